"""Unified diffs of rewritten files, with the file's own line endings kept."""

from __future__ import annotations

import difflib


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """``--- a/path`` / ``+++ b/path`` diff of two versions of a file."""
    old = _decode(before).splitlines(keepends=True)
    new = _decode(after).splitlines(keepends=True)
    shown = path.replace("\\", "/").lstrip("/")
    lines = difflib.unified_diff(old, new, fromfile=f"a/{shown}", tofile=f"b/{shown}")
    out = []
    for line in lines:
        # Show CRLF files' lines without the stray carriage return; end every line.
        text = line.rstrip("\r\n") if line.endswith(("\n", "\r")) else line
        if not line.endswith(("\n", "\r")) and not line.startswith(("---", "+++", "@@")):
            out.append(text + "\n\\ No newline at end of file\n")
        else:
            out.append(text + "\n")
    return "".join(out)
