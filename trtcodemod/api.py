"""The Python API: check or rewrite one piece of source code without touching files.

    >>> import trtcodemod
    >>> result = trtcodemod.apply_source("import torch\\ny = torch.atan2(a, b)\\n")
    >>> result.changed, [f.rule for f in result.findings]
    (True, ['TRT301'])

Both functions take ``str`` or ``bytes`` and give back the same type they were given.
Bad input raises :class:`trtcodemod.InputError` (``.path``, ``.line``, ``.message``).
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Union

from trtcodemod.engine import Options, check_source as _check_bytes, fix_source as _fix_bytes
from trtcodemod.model_code import SCOPES
from trtcodemod.rules import Finding
from trtcodemod.versions import DEFAULT_TARGET

Source = Union[str, bytes]


@dataclass
class ApplyResult:
    """The rewritten code (same type as the input), whether it changed, and what was found and fixed."""

    code: Source
    changed: bool
    findings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)


def _options(select: Iterable[str], ignore: Iterable[str], unsafe: bool, target: str, scope: str) -> Options:
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
    return Options(select=tuple(select), ignore=tuple(ignore), unsafe=unsafe, target=target, scope=scope)


def _encoding(text: str) -> str:
    """The encoding a ``# -*- coding: ... -*-`` line declares (UTF-8 without one)."""
    try:
        return tokenize.detect_encoding(io.BytesIO(text.encode("utf-8", "surrogatepass")).readline)[0]
    except SyntaxError:
        return "utf-8"  # an unknown coding name: the engine reports it


def _as_bytes(code: Source) -> bytes:
    if isinstance(code, bytes):
        return code
    if isinstance(code, str):
        # Bytes that agree with the file's own coding line, so the engine decodes them back to `code`.
        return code.encode(_encoding(code))
    raise TypeError(f"source code must be str or bytes, not {type(code).__name__}")


def check_source(code: Source, *, path: str = "<source>", select: Iterable[str] = ("ALL",),
                 ignore: Iterable[str] = (), target: str = DEFAULT_TARGET, scope: str = "model") -> list[Finding]:
    """Findings for ``code``; ``path`` names it in findings and errors, and says whether it is
    model code (``scope="model"``, the default; ``"all"`` looks at every line)."""
    return _check_bytes(_as_bytes(code), path, _options(select, ignore, False, target, scope))


def apply_source(code: Source, *, path: str = "<source>", select: Iterable[str] = ("ALL",),
                 ignore: Iterable[str] = (), unsafe: bool = False, target: str = DEFAULT_TARGET,
                 scope: str = "model") -> ApplyResult:
    """``code`` with every allowed fix applied (safe ones, and unsafe ones with ``unsafe=True``)."""
    result = _fix_bytes(_as_bytes(code), path, _options(select, ignore, unsafe, target, scope))
    new: Source = result.source if isinstance(code, bytes) else result.source.decode(_encoding(code))
    return ApplyResult(code=new if result.changed else code, changed=result.changed,
                       findings=result.findings, fixed=result.fixed)
