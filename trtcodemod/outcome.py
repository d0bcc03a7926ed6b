"""What happened to one file in a batch, and the warnings about its suppression comments.

Its own module so that the cache (which stores outcomes) and the runner (which makes them)
both import it, and neither the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from trtcodemod.engine import _SUPPRESS_RE, findings_in_original
from trtcodemod.errors import InputError, InternalError
from trtcodemod.files import SourceFile
from trtcodemod.registry import unknown_codes
from trtcodemod.rules import Finding


@dataclass
class FileOutcome:
    """What happened to one file."""

    file: SourceFile
    findings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    original: bytes | None = None
    new_source: bytes | None = None  # set when a fix changed the file
    error: InputError | None = None
    #: Fixes left out because they produced invalid code (the file's other fixes stand).
    internal_errors: list[InternalError] = field(default_factory=list)
    #: ``path:line: warning: ...`` lines (unknown codes in suppression comments).
    warnings: list[str] = field(default_factory=list)
    #: With ``edits``: for each finding, its fix as text replacements (None: no fix); see
    #: :mod:`trtcodemod.report.edits`.
    edits: list[list[dict[str, Any]] | None] | None = None
    #: Whether the outcome came from the cache.
    cached: bool = False

    @property
    def changed(self) -> bool:
        return self.new_source is not None

    def findings_on_disk(self, written: bool) -> list[Finding]:
        """Remaining findings with the line numbers of the file as it is on disk: the rewritten
        file once written, the original one after a dry run."""
        if written or self.new_source is None or self.original is None:
            return self.findings
        return findings_in_original(self.findings, self.original, self.new_source)


_CODE_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def suppression_warnings(source: bytes, path: str) -> list[str]:
    """A warning for each code in ``# trtcodemod: ignore[...]`` that names no rule (once per file).

    Such a comment suppresses nothing (the engine matches codes as rule-ID prefixes or
    names), so a typo would silently keep a finding or, worse, look like it is handled.
    The engine's own pattern is used, so this agrees with what it suppresses.
    """
    if b"trtcodemod" not in source.lower():
        return []
    first_line: dict[str, int] = {}
    # bytes.splitlines splits on \n, \r and \r\n only: Python's own line numbers.
    for number, raw in enumerate(source.splitlines(), 1):
        if b"trtcodemod" not in raw.lower():
            continue
        for match in _SUPPRESS_RE.finditer(raw.decode("utf-8", errors="replace")):
            for code in (match.group("codes") or "").split(","):
                code = code.strip()
                # Only what looks like a code: prose such as ``ignore[...]`` in a docstring is not one.
                if not _CODE_LIKE.fullmatch(code) or code in first_line:
                    continue
                if code.upper() == "ALL" or unknown_codes([code]):
                    first_line[code] = number
    warnings = []
    for code, number in first_line.items():
        if code.upper() == "ALL":
            reason = f"`ignore[{code}]` suppresses nothing; write `# trtcodemod: ignore` to suppress every rule"
        else:
            reason = f"unknown rule code {code!r} in a `# trtcodemod: ignore[...]` comment suppresses nothing"
        warnings.append(f"{path}:{number}: warning: {reason} (see `trtcodemod rules`)")
    return warnings
