"""TensorRT target versions: parsing and comparison.

Users name the TensorRT release they deploy on (``--target 8.6``, ``target = "10.x"``).
A version is kept as a ``(major, minor)`` tuple; ``10.x`` and ``10`` mean the newest
minor release of that major line, so they compare above every ``10.N``.
"""

from __future__ import annotations

import re

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
