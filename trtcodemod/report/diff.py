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


#: The first line of the block of helpers ``apply`` inserts (see :mod:`trtcodemod.insertion`).
_HELPER_MARK = "# Inserted by trtcodemod"
_IMPORT_ONLY = ("import torch", "")


def _is_support_insertion(lines: list[str]) -> bool:
    """Lines that ``apply`` adds on its own: the helper block, or ``import torch``."""
    text = [line.strip() for line in lines]
    return any(line.startswith(_HELPER_MARK) for line in text) or (
        any(text) and all(line in _IMPORT_ONLY for line in text))


def review_diff(path: str, before: bytes, after: bytes) -> str:
    """The diff of a rewritten file, the user's own changes first.

    ``apply`` inserts its helpers (and ``import torch``) near the top, so a plain diff
    opens with dozens of lines of helper code. Here the changes to the user's code come
    first, as one diff from the original file, and the inserted support code second, as a
    diff from that intermediate state, preceded by a ``#`` line saying so: applied one after
    the other (``patch -p1``) the two give exactly the rewritten file.
    """
    old = _decode(before).splitlines(keepends=True)
    new = _decode(after).splitlines(keepends=True)
    middle: list[str] = []
    support = 0
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "insert" and _is_support_insertion(new[j1:j2]):
            support += j2 - j1
            continue  # left out of the first step
        middle.extend(new[j1:j2] if tag != "equal" else old[i1:i2])
    if not support:
        return unified_diff(path, before, after)
    encoding = "utf-8"
    middle_bytes = "".join(middle).encode(encoding, "surrogateescape")
    before_text, after_text = _decode(before), _decode(after)
    own = unified_diff(path, before_text.encode(encoding, "surrogateescape"), middle_bytes) if middle_bytes != \
        before_text.encode(encoding, "surrogateescape") else ""
    helpers = unified_diff(path, middle_bytes, after_text.encode(encoding, "surrogateescape"))
    note = f"# {path}: {support} line{'s' * (support != 1)} of helper code and imports inserted by trtcodemod:\n"
    return own + note + helpers
