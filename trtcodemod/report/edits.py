"""Each fix as plain text replacements, for JSON ``edits`` and SARIF ``fixes``.

A fix is a LibCST edit; editors and code-scanning tools want "replace this region of the
file with this text". The replacements of one fix are what :func:`trtcodemod.engine.fix_source`'s
first pass writes when that fix alone is applied to the original file, helper and
``import torch`` insertions included: the substitution comes first, then each insertion.
Every region refers to the original text (apply them from the last offset to the first).

A replacement is ``{"line", "column", "end_line", "end_column", "offset", "length", "content"}``:
1-based lines, 1-based columns counted in Unicode code points, end exclusive; ``offset`` and
``length`` count code points from the start of the decoded file. Lines end at ``\\n``, ``\\r\\n``
or ``\\r``, as Python's own tokenizer ends them.
"""

from __future__ import annotations

import bisect
import difflib
import re
from typing import Any

from trtcodemod.engine import Options, analyze, apply_fixes, parse
from trtcodemod.rules import Finding

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where Python splits them."""
    return _LINE.findall(text)


def check_with_edits(source: bytes, path: str, options: Options) -> tuple[list[Finding], list[list[dict[str, Any]] | None]]:
    """``engine.check_source``'s findings and, for each, its fix as replacements (None: no fix)."""
    module = parse(source, path)
    findings = analyze(module, source, path, options)[0]
    edits: list[list[dict[str, Any]] | None] = []
    original = source.decode(module.encoding)
    for finding in findings:
        if finding.edit is None:
            edits.append(None)
            continue
        try:
            new = apply_fixes(module, [finding.edit], source).bytes
        except Exception:  # a fix LibCST cannot print is reported by apply; no edit to offer here
            edits.append(None)
            continue
        edits.append(replacements(original, new.decode(module.encoding), finding.line, finding.end_line))
    return findings, edits


def replacements(old: str, new: str, line: int = 0, end_line: int = 0) -> list[dict[str, Any]]:
    """The smallest regions of ``old`` to replace to get ``new``; those touching lines
    ``line``..``end_line`` (the finding) first, the others (inserted helpers) after, by position."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    starts = [0]
    for text in old_lines:
        starts.append(starts[-1] + len(text))
    new_starts = [0]
    for text in new_lines:
        new_starts.append(new_starts[-1] + len(text))
    out = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        begin, end = starts[i1], starts[i2]
        deleted, inserted = old[begin:end], new[new_starts[j1]:new_starts[j2]]
        prefix = _common_prefix(deleted, inserted)
        suffix = _common_prefix(deleted[prefix:][::-1], inserted[prefix:][::-1])
        begin, end = begin + prefix, end - suffix
        content = inserted[prefix:len(inserted) - suffix]
        first = _position(starts, old_lines, begin)
        last = _position(starts, old_lines, end)
        out.append({"line": first[0], "column": first[1], "end_line": last[0], "end_column": last[1],
                    "offset": begin, "length": end - begin, "content": content})
    at_finding = [r for r in out if line and r["line"] <= end_line and r["end_line"] >= line]
    return at_finding + [r for r in out if r not in at_finding]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _position(starts: list[int], lines: list[str], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a code-point offset."""
    index = bisect.bisect_right(starts, offset) - 1
    if index >= len(lines):  # the very end of the file
        if lines and not lines[-1].endswith(("\n", "\r")):
            return len(lines), len(lines[-1]) + 1
        return len(lines) + 1, 1
    return index + 1, offset - starts[index] + 1


def apply_replacements(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with ``edits`` (regions of ``text``) applied; what an editor does with them."""
    for edit in sorted(edits, key=lambda e: e["offset"], reverse=True):
        text = text[:edit["offset"]] + edit["content"] + text[edit["offset"] + edit["length"]:]
    return text


__all__ = ["apply_replacements", "check_with_edits", "replacements", "split_lines"]
