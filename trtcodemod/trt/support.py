"""Which ONNX ops the TensorRT ONNX parser accepts, per TensorRT release.

The data lives in ``onnx_ops.csv`` beside this module (package data, read with
``importlib.resources`` so an installed wheel never looks outside itself). Version
columns say Y (parsed), N (listed as unsupported) or ``-`` (not listed: the op was
added to the parser later, or to ONNX later). ``-`` counts as unsupported.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from importlib import resources

from trtcodemod.versions import Version, format_version, parse_target

TABLE_FILE = "onnx_ops.csv"

#: Spellings users and ONNX use for the dtype names in the table.
_DTYPE_ALIASES = {
    "float32": "FP32", "float": "FP32", "float16": "FP16", "half": "FP16",
    "bfloat16": "BF16", "int8": "INT8", "int32": "INT32", "int64": "INT64",
    "uint8": "UINT8", "bool": "BOOL", "fp8": "FP8", "float8": "FP8", "int4": "INT4",
}


@dataclass(frozen=True)
class OpSupport:
    """One row of the table."""

    op: str
    status: dict[Version, str]  # version -> "Y" | "N" | "-"
    dtypes: tuple[str, ...]  # as of the newest listed release
    restrictions: str  # our own summary, as of the newest listed release

    def supported_in(self, version: Version) -> bool:
        return self.status.get(version) == "Y"

    @property
    def first_supported(self) -> Version | None:
        """The oldest listed release whose parser takes this op, if any."""
        return next((v for v, flag in sorted(self.status.items()) if flag == "Y"), None)


@dataclass(frozen=True)
class ResolvedTarget:
    """A user's target mapped onto the releases the table lists."""

    requested: Version
    version: Version  # the listed release the checks use
    note: str | None  # set when the mapping is not exact enough to stay silent about

    @property
    def label(self) -> str:
        return format_version(self.version)


def _parse_version_header(text: str) -> Version:
    major, minor = text.split(".")
    return (int(major), int(minor))


@functools.lru_cache(maxsize=1)
def _load() -> tuple[tuple[Version, ...], dict[str, OpSupport]]:
    raw = resources.files("trtcodemod.trt").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    # Comment lines carry the citation; csv has no comment syntax of its own.
    lines = [line for line in raw.splitlines() if line and not line.startswith("#")]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader)
    version_cols = header[1:-2]
    versions = tuple(_parse_version_header(v) for v in version_cols)
    table: dict[str, OpSupport] = {}
    for row in reader:
        op, flags, dtypes, restrictions = row[0], row[1:-2], row[-2], row[-1]
        if len(flags) != len(versions):
            raise ValueError(f"{TABLE_FILE}: row {op!r} has {len(flags)} version columns")
        table[op] = OpSupport(
            op=op,
            status=dict(zip(versions, flags)),
            dtypes=tuple(dtypes.split()),
            restrictions=restrictions,
        )
    return versions, table


def listed_versions() -> tuple[Version, ...]:
    """The TensorRT releases the table has a column for, oldest first."""
    return _load()[0]


def table() -> dict[str, OpSupport]:
    """Every op in the table, by ONNX op type."""
    return _load()[1]


def resolve_target(target: str | Version | None) -> ResolvedTarget:
    """Map a target to the newest listed release not newer than it."""
    requested = target if isinstance(target, tuple) else parse_target(target)
    versions = listed_versions()
    oldest, newest = versions[0], versions[-1]
    if requested < oldest:
        note = (
            f"target {format_version(requested)} is older than {format_version(oldest)}, "
            f"the oldest release in the support table: checked against {format_version(oldest)}"
        )
        return ResolvedTarget(requested, oldest, note)
    chosen = max(v for v in versions if v <= requested)
    note = None
    if requested[0] > newest[0]:
        # A future major line may drop or add ops; say what we really checked.
        note = (
            f"target {format_version(requested)} is newer than the support table: "
            f"checked against {format_version(newest)}"
        )
    return ResolvedTarget(requested, chosen, note)


def lookup(op: str) -> OpSupport | None:
    """The table row for an op of the default ONNX domain, or None."""
    return table().get(op)


def is_supported(op: str, target: str | Version | None = "8.6") -> bool | None:
    """Whether the parser of ``target`` takes ``op``; None when the op is not in the table."""
    row = lookup(op)
    if row is None:
        return None
    return row.supported_in(resolve_target(target).version)


def first_supported(op: str) -> Version | None:
    """The first listed release that supports ``op`` (None: never, or unknown op)."""
    row = lookup(op)
    return row.first_supported if row else None


def supported_dtypes(op: str) -> tuple[str, ...] | None:
    """The dtypes TensorRT 10.15 takes for ``op`` (names like FP32, INT64, BOOL)."""
    row = lookup(op)
    return row.dtypes if row else None


def normalize_dtype(dtype: str) -> str:
    """``float32`` / ``fp32`` / ``FP32`` -> ``FP32``."""
    return _DTYPE_ALIASES.get(dtype.lower(), dtype.upper())


def supports_dtype(op: str, dtype: str) -> bool | None:
    """Whether ``op`` takes tensors of ``dtype``; None when the op is unknown or lists no dtypes."""
    dtypes = supported_dtypes(op)
    if not dtypes:
        return None
    return normalize_dtype(dtype) in dtypes


def restrictions(op: str) -> str:
    """What the parser requires of the op beyond its name (empty when nothing is known)."""
    row = lookup(op)
    return row.restrictions if row else ""
