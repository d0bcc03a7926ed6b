"""Finding the Python files to process, reading them, and writing them back atomically."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import pathspec

from trtcodemod.errors import InputError

#: Folder names never walked into: caches and installed-package stores.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


@dataclass(frozen=True)
class SourceFile:
    """A file to process: its path as the user should see it, and where it is."""

    display: str
    path: Path


def discover(paths: Iterable[str], exclude: Iterable[str] = ()) -> tuple[list[SourceFile], list[InputError]]:
    """Expand files and folders into Python files, sorted and without duplicates.

    Folders are walked for ``*.py``, skipping hidden folders, virtual environments
    (a ``pyvenv.cfg`` inside), the names in :data:`SKIPPED_DIRS`, what the
    ``.gitignore`` files met on the way ignore, and the ``exclude`` patterns
    (gitignore syntax). A file named explicitly is always taken.
    """
    excluded = pathspec.GitIgnoreSpec.from_lines(list(exclude))
    found: dict[Path, SourceFile] = {}
    errors: list[InputError] = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.setdefault(path.resolve(), SourceFile(given, path))
        elif path.is_dir():
            for file in _walk(path, excluded):
                found.setdefault(file.resolve(), SourceFile(str(file), file))
        else:
            errors.append(InputError(given, "no such file or directory"))
    return sorted(found.values(), key=lambda f: f.display), errors


def _walk(root: Path, excluded: pathspec.PathSpec) -> Iterator[Path]:
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    for current, dirs, files in os.walk(root):
        here = Path(current)
        gitignore = here / ".gitignore"
        if gitignore.is_file():
            try:
                lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
                ignores.append((here, pathspec.GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass
        kept = []
        for name in sorted(dirs):
            sub = here / name
            if name.startswith(".") or name in SKIPPED_DIRS or (sub / "pyvenv.cfg").exists():
                continue
            if _ignored(sub, True, root, excluded, ignores):
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            file = here / name
            if name.endswith(".py") and not _ignored(file, False, root, excluded, ignores):
                yield file


def _ignored(path: Path, is_dir: bool, root: Path, excluded: pathspec.PathSpec,
             ignores: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    suffix = "/" if is_dir else ""
    if excluded.match_file(path.relative_to(root).as_posix() + suffix) or excluded.match_file(
        path.as_posix() + suffix
    ):
        return True
    for base, spec in ignores:
        try:
            relative = path.relative_to(base).as_posix()
        except ValueError:
            continue
        if spec.match_file(relative + suffix):
            return True
    return False


def read(file: SourceFile) -> bytes:
    try:
        return file.path.read_bytes()
    except OSError as exc:
        raise InputError(file.display, f"cannot read: {exc.strerror or exc}") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` whole or not at all, keeping its permission bits.

    The bytes go to a temporary file in the same folder, are flushed to disk, and the
    temporary file is renamed over the original (atomic on POSIX and Windows).
    Symbolic links are followed, so the link stays and its target is updated.
    """
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".trtcodemod", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise
