"""TensorRT target versions: parsing and comparison.

Users name the TensorRT release they deploy on (``--target 8.6``, ``target = "10.x"``).
A version is kept as a ``(major, minor)`` tuple; ``10.x`` and ``10`` mean the newest
minor release of that major line, so they compare above every ``10.N``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Version = tuple[int, int]

DEFAULT_TARGET = "8.6"
#: What ``N.x`` means: newer than any concrete minor release of line ``N``.
ANY_MINOR = 999

_VERSION_RE = re.compile(r"^\s*(\d+)(?:\.(\d+|x|X|\*))?(?:\.\d+)*\s*$")


class VersionError(ValueError):
    """A target version string that cannot be understood."""


def parse_target(text: str | None) -> Version:
    """Parse ``"8.6"``, ``"10.x"``, ``"10"`` or ``"8.6.1"`` into ``(major, minor)``."""
    if text is None:
        text = DEFAULT_TARGET
    match = _VERSION_RE.match(str(text))
    if not match:
        raise VersionError(f"not a TensorRT version: {text!r} (expected e.g. 8.6 or 10.x)")
    major = int(match.group(1))
    minor_text = match.group(2)
    if minor_text is None or minor_text in ("x", "X", "*"):
        return (major, ANY_MINOR)
    return (major, int(minor_text))


def format_version(version: Version) -> str:
    """Render a parsed version the way users write it."""
    major, minor = version
    return f"{major}.x" if minor == ANY_MINOR else f"{major}.{minor}"


# --- what changed between releases ----------------------------------------------------------------

_CHANGELOG = "onnx/onnx-tensorrt docs/Changelog.md"
_OPERATORS = "onnx/onnx-tensorrt docs/operators.md"


@dataclass(frozen=True)
class VersionFact:
    """A parser capability and the first release that has it, with where that is written."""

    since: Version
    what: str
    source: str


#: TensorRT 8.5 to 11.x, as the sources say them (read for issues 20 and 21). The checks and the rules'
#: ``needed_before`` take their boundaries from here, so a boundary has one place to change.
FACTS: dict[str, VersionFact] = {
    "data_dependent_shapes": VersionFact(
        (8, 5), "an input TensorRT needs as a shape tensor (a reshape's shape, a slice's bounds, a range's "
        "limit...) may be computed from device values: the engine builds, stops to copy the value to the host, "
        "and sizes what follows at run time (before, shape tensors come from shapes, constants and shape inputs "
        "only, and such a network does not build)",
        "TensorRT 8.5 developer guide, 'Execution Tensors vs. Shape Tensors' and 'Dynamically Shaped Output' "
        "(data-dependent shapes, INonZeroLayer and IOutputAllocator are new in 8.5; the 8.5.1 release notes "
        "list them); onnx/onnx-tensorrt docs/operators.md gains NonZero in 8.5. Not verified on a TensorRT "
        "build here: no TensorRT on this machine"),
    "topk_dynamic_k": VersionFact((8, 6), "TopK takes K computed at run time (before, K must be an initializer)",
                                  f"{_CHANGELOG}, TensorRT 8.6 EA"),
    "int64": VersionFact((9, 0), "INT64 is a native type (the parser no longer casts INT64 to INT32, "
                         "clamping to +-INT_MAX)", f"{_CHANGELOG}, TensorRT 9.0 EA"),
    "slice_tensor_axes": VersionFact((10, 3), "Slice takes its axes as a tensor input",
                                     f"{_CHANGELOG}, TensorRT 10.3 GA"),
    "pad_tensor_axes": VersionFact((10, 4), "Pad takes its axes as a tensor input", f"{_CHANGELOG}, TensorRT 10.4 GA"),
    "squeeze_dynamic_axes": VersionFact((10, 7), "Squeeze and Unsqueeze take axes computed at run time",
                                        f"{_CHANGELOG}, TensorRT 10.7 GA"),
    "cumsum_dynamic_axis": VersionFact((10, 8), "CumSum takes an axis computed at run time",
                                       f"{_CHANGELOG}, TensorRT 10.8 GA"),
    "einsum_full": VersionFact((10, 12), "Einsum with ellipsis, diagonals and broadcasting between inputs",
                               f"{_CHANGELOG}, TensorRT 10.12 GA (operators.md stops listing the restriction "
                               "earlier, from 9.x; the changelog dates the support)"),
    "strongly_typed": VersionFact((11, 0), "networks are strongly typed only: the ONNX dtypes decide each "
                                  "layer's precision (no FP16 builder flag)",
                                  "TensorRT 11.0.0 release notes (strongly typed networks are the default; "
                                  "weak typing is no longer supported)"),
    "gridsample_3d": VersionFact((11, 2), "GridSample takes 5-D input (3-D sampling)",
                                 "TensorRT 11.2.1 release notes; NVIDIA/TensorRT v11.2 release (parsers: 5D "
                                 "GridSample)"),
}

#: TensorRT's TopK takes K below this in every release: operators.md's TopK row and the TopK layer's page
#: ("k must obey k <= d, k <= 3840"; the parser checks K < 3840).
TOPK_K_LIMIT = 3840

#: What holds in every release: the dtype facts of operators.md (8.x to 10.x).
DTYPE_FACTS: dict[str, str] = {
    "float64": (f"DOUBLE is cast down to FLOAT, clamping values to +-FLT_MAX ({_OPERATORS}, every release): "
                "magnitudes above 3.4e38 become +-FLT_MAX and float64's precision is lost"),
    "uint8": f"UINT8 only as a network input or output tensor (from 8.5; {_OPERATORS} 9.x and 10.x)",
    "int16": f"INT16 is not among the ONNX data types TensorRT supports ({_OPERATORS}, every release)",
}


def since(fact: str) -> Version:
    """The first release with ``fact`` (a key of :data:`FACTS`)."""
    return FACTS[fact].since
