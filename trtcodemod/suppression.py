"""``# trtcodemod: ignore`` comments: which findings they suppress, and which codes in them name no rule.

One module for both, so that what the engine suppresses and what the batch warns about read the
same pattern.
"""

from __future__ import annotations

import re

from trtcodemod.registry import unknown_codes
from trtcodemod.rules import Finding

#: ``# trtcodemod: ignore`` or ``# trtcodemod: ignore[TRT101, data-dependent-if]``.
SUPPRESS_RE = re.compile(r"#\s*trtcodemod:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


def is_suppressed(finding: Finding, lines: list[str]) -> bool:
    """``# trtcodemod: ignore`` (all rules) or ``ignore[TRT101, TRT2]`` on the finding's line."""
    candidates = {finding.line}
    if finding.end_line - finding.line <= 2:
        candidates.add(finding.end_line)
    for number in candidates:
        if not 0 < number <= len(lines):
            continue
        for match in SUPPRESS_RE.finditer(lines[number - 1]):
            codes = match.group("codes")
            if codes is None:
                return True
            wanted = [c.strip().upper() for c in codes.split(",") if c.strip()]
            if any(finding.rule.startswith(code) or finding.name.upper() == code for code in wanted):
                return True
    return False


_CODE_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def suppression_warnings(source: bytes, path: str) -> list[str]:
    """A warning for each code in ``# trtcodemod: ignore[...]`` that names no rule (once per file).

    Such a comment suppresses nothing (the engine matches codes as rule-ID prefixes or
    names), so a typo would silently keep a finding or, worse, look like it is handled.
    The pattern is :func:`is_suppressed`'s, so this agrees with what the engine suppresses.
    """
    if b"trtcodemod" not in source.lower():
        return []
    first_line: dict[str, int] = {}
    # bytes.splitlines splits on \n, \r and \r\n only: Python's own line numbers.
    for number, raw in enumerate(source.splitlines(), 1):
        if b"trtcodemod" not in raw.lower():
            continue
        for match in SUPPRESS_RE.finditer(raw.decode("utf-8", errors="replace")):
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
