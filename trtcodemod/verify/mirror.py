"""Keep a copy of the user's sources equal to them, copying only what differs.

``migrate`` rewrites a copy of the model's packages once per round, into the same folder: a
transformers checkout is thousands of files, and removing the last round's copy and copying
it all again took most of a round's rewrite. A file whose size and modification time (kept by
``shutil.copy2``) are the source's is left as it is; any other (one the last round rewrote) is
copied again, and its compiled bytecode removed, so no import runs code compiled from another
text; what the source no longer has is removed.

Where the file system allows, a copy is a hard link to the user's file: no bytes are copied,
and its size and modification time are the source's by construction. A linked file is the
user's own, so nothing may write into it in place: :func:`write_file` replaces it instead.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

#: ``shutil.ignore_patterns`` style: ``(folder, names) -> names left out of the copy``.
Ignore = Callable[[str, list[str]], set[str]]


def _same(source: os.stat_result, target: Path) -> bool:
    try:
        stat = target.lstat()
    except OSError:
        return False
    return stat.st_size == source.st_size and stat.st_mtime_ns == source.st_mtime_ns and target.is_file() \
        and not target.is_symlink()


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def drop_bytecode(target: Path) -> None:
    cache = target.parent / "__pycache__"
    if cache.is_dir():
        for compiled in cache.glob(f"{target.stem}.*.pyc"):
            compiled.unlink()


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    """``target`` as a hard link to ``source``, or a copy (``shutil.copy2``) where links cannot be
    made (another file system, a file system without them)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def write_file(target: Path, data: bytes) -> None:
    """Give ``target`` the bytes ``data`` as a new file: a linked copy's old bytes are the user's file."""
    remove(target)
    target.write_bytes(data)
    drop_bytecode(target)


def mirror_file(source: Path, target: Path) -> None:
    """Make ``target`` a copy of the file ``source`` (linked or copied) unless it already is one."""
    if _same(source.stat(), target):
        return
    remove(target)
    _link_or_copy(source, target)
    drop_bytecode(target)


def mirror_tree(source: Path, target: Path, ignore: Ignore) -> None:
    """Make ``target`` what ``shutil.copytree(source, target, ignore=ignore)`` makes, reusing the
    files of an earlier copy that are still the source's. ``__pycache__`` folders the copy's
    imports wrote stay (bytecode records its source's size and time; a replaced file's is removed)."""
    if not target.is_dir() or target.is_symlink() or any(p.is_symlink() for p in source.rglob("*")):
        remove(target)
        # Nothing to reuse, or symbolic links, which copytree resolves.
        shutil.copytree(source, target, ignore=ignore, copy_function=_link_or_copy)
        return
    for folder, dirs, files in os.walk(source):
        here = Path(folder)
        there = target / here.relative_to(source)
        left_out = ignore(folder, dirs + files)
        dirs[:] = [d for d in dirs if d not in left_out]
        kept = set(dirs) | {f for f in files if f not in left_out}
        for entry in list(there.iterdir()):
            if entry.name not in kept and entry.name != "__pycache__":
                remove(entry)
        for name in dirs:
            if not (there / name).is_dir() or (there / name).is_symlink():
                remove(there / name)
                (there / name).mkdir()
        for name in files:
            if name not in left_out:
                mirror_file(here / name, there / name)
