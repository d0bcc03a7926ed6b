"""Finding the Python files to process, reading them, and writing them back atomically."""

from __future__ import annotations

import ast
import contextlib
import errno
import itertools
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import pathspec

from trtcodemod.errors import InputError

#: Folder names never walked into: caches and installed-package stores.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})

#: Our temporary files: ``.<name>.trtcodemod-<8 hex digits>.tmp`` next to the file they replace.
#: Only names matching this exactly are ever removed as stale (:func:`remove_stale_temps`).
TEMP_NAME = re.compile(r"\A\.(?P<name>.+)\.trtcodemod-[0-9a-f]{8}\.tmp\Z", re.DOTALL)


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
    (gitignore syntax). A file named explicitly is always taken. What cannot be
    taken (a missing path, a symlink loop, a FIFO, an unreadable folder) becomes an
    error for that path; the rest of the paths are still expanded.
    """
    excluded = pathspec.GitIgnoreSpec.from_lines(list(exclude))
    found: dict[str, SourceFile] = {}
    errors: list[InputError] = []
    for given in paths:
        path = Path(given)
        kind, problem = _kind(path)
        if problem is not None:
            errors.append(InputError(given, problem))
        elif kind == "dir":
            for file, walk_problem in _walk(path, excluded):
                if walk_problem is not None:
                    errors.append(InputError(str(file), walk_problem))
                else:
                    found.setdefault(os.path.realpath(file), SourceFile(str(file), file))
        else:
            found.setdefault(os.path.realpath(path), SourceFile(given, path))
    return sorted(found.values(), key=lambda f: f.display), errors


def _kind(path: Path) -> tuple[str | None, str | None]:
    """``("file" | "dir", None)``, or ``(None, why it cannot be processed)``.

    ``os.stat`` rather than ``Path.is_file``: the latter answers False for a symlink
    loop, a FIFO and a permission problem alike, and ``Path.resolve`` raises
    ``RuntimeError`` on a loop, which used to end the whole batch.
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink loop"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            if os.path.islink(path):
                return None, "broken symbolic link (its target does not exist)"
            return None, "no such file or directory"
        return None, f"cannot read: {exc.strerror or exc}"
    if stat.S_ISDIR(info.st_mode):
        return "dir", None
    if stat.S_ISREG(info.st_mode):
        return "file", None
    # Reading a FIFO would block forever; a device is never Python source.
    return None, "not a regular file"


def _walk(root: Path, excluded: pathspec.PathSpec) -> Iterator[tuple[Path, str | None]]:
    """``(file, None)`` for each Python file under ``root``, ``(path, reason)`` for each problem."""
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    problems: list[OSError] = []
    for current, dirs, files in os.walk(root, onerror=problems.append):
        while problems:  # a subfolder os.walk could not list
            failed = problems.pop()
            yield Path(failed.filename or current), f"cannot read folder: {failed.strerror or failed}"
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
            if not name.endswith(".py") or _ignored(file, False, root, excluded, ignores):
                continue
            # os.walk lists a symlink loop, a dangling link and a FIFO among the files.
            kind, problem = _kind(file)
            if kind == "file":
                yield file, None
            elif problem is not None and not problem.startswith("broken symbolic link"):
                # A dangling link (an editor's lock file, say) holds no code: skip it quietly.
                yield file, problem
    while problems:
        failed = problems.pop()
        yield Path(failed.filename or root), f"cannot read folder: {failed.strerror or failed}"


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


def read(file: SourceFile, max_size: int | None = None) -> bytes:
    """The file's bytes; :class:`InputError` when it cannot be read or is over ``max_size`` bytes.

    The size is checked before reading, so a huge generated file costs nothing: parsing
    it would take about a gigabyte of memory per megabyte of source.
    """
    try:
        info = os.stat(file.path)
        if not stat.S_ISREG(info.st_mode):
            reason = "is a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise InputError(file.display, reason)
        if max_size and info.st_size > max_size:
            raise InputError(file.display, size_message(info.st_size, max_size))
        with open(file.path, "rb") as handle:
            data = handle.read(max_size + 1) if max_size else handle.read()
    except OSError as exc:
        reason = "symlink loop" if exc.errno == errno.ELOOP else f"cannot read: {exc.strerror or exc}"
        raise InputError(file.display, reason) from None
    if max_size and len(data) > max_size:  # it grew since the stat
        raise InputError(file.display, size_message(len(data), max_size))
    return data


#: CPython's tokenizer refuses more than this many nested brackets ("too many nested
#: parentheses"), so no Python file holds more. LibCST's native parser has no such check
#: and overflows its stack (a segmentation fault) at about 1,500 levels.
MAX_BRACKET_DEPTH = 200
#: Unary operators chained this deep make CPython's parser give up (RecursionError from
#: about 3,000) and crash LibCST's further on.
_UNARY_RUN = re.compile(rb"[-+~]{1000}")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"()[]{}")))
_BRACKET_STEP = [0] * 256
for _char in b"([{":
    _BRACKET_STEP[_char] = 1
for _char in b")]}":
    _BRACKET_STEP[_char] = -1


def nesting_problem(source: bytes) -> InputError | None:
    """Why ``source`` nests too deeply to hand to LibCST (None: it does not); path left empty.

    A pathological file (thousands of nested brackets or unary operators, usually
    generated) would crash the process in LibCST's native parser, taking the whole batch
    with it. A cheap scan finds the candidates (bracket depth ignoring strings, long runs
    of ``-``/``+``/``~``); CPython's parser then decides, and its own error is reported.
    Files CPython parses are left to the engine.
    """
    deep_unary = _UNARY_RUN.search(source)
    if deep_unary is None:
        if source.count(b"(") + source.count(b"[") + source.count(b"{") <= MAX_BRACKET_DEPTH:
            return None
        brackets = source.translate(None, _NOT_BRACKETS)
        if max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) <= MAX_BRACKET_DEPTH:
            return None
    try:
        compile(source, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return InputError("", f"syntax error: {exc.msg}", exc.lineno)
    except (RecursionError, MemoryError):
        line = source.count(b"\n", 0, deep_unary.start()) + 1 if deep_unary is not None else None
        return InputError("", "source nests too deeply to parse (Python's own parser gives up too)", line)
    except ValueError:  # NUL bytes: the engine reports those
        return None
    return None


def size_message(size: int, limit: int) -> str:
    return f"file is {size} bytes, over the {format_size(limit)} limit (--max-file-size)"


def format_size(size: int) -> str:
    """``2097152`` → ``2 MiB``; sizes that are no whole number of KiB/MiB/GiB stay in bytes."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def temp_path(target: Path) -> Path:
    """A fresh name matching :data:`TEMP_NAME`, in ``target``'s folder (so the rename is atomic)."""
    return target.with_name(f".{target.name}.trtcodemod-{secrets.token_hex(4)}.tmp")


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` whole or not at all, keeping its permission bits.

    The bytes go to a temporary file in the same folder (named as :data:`TEMP_NAME`
    says), are flushed to disk, and the temporary file is renamed over the original
    (atomic on POSIX and Windows). On any exception the temporary file is removed; one
    left by a killed process is removed by a later ``apply`` (:func:`remove_stale_temps`).
    Symbolic links are followed, so the link stays and its target is updated. A file that
    does not exist yet (a report) gets the permissions the umask gives a new file.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        temp = temp_path(target)
        try:
            handle = os.open(temp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 32 random bits
        raise FileExistsError(errno.EEXIST, "cannot create a temporary file", str(target.parent))
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def remove_stale_temps(paths: Iterable[Path], older_than: float) -> list[Path]:
    """Remove our temporary files left next to ``paths`` by a killed run; return what was removed.

    Only regular files named exactly as :data:`TEMP_NAME` says *for one of these files*,
    and last modified before ``older_than`` (the start of this run, so a concurrent
    run's file in the making is left alone), are removed.
    """
    by_folder: dict[Path, set[str]] = {}
    for path in paths:
        target = Path(os.path.realpath(path))
        by_folder.setdefault(target.parent, set()).add(target.name)
    removed: list[Path] = []
    for folder, names in by_folder.items():
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            match = TEMP_NAME.match(entry.name)
            if match is None or match["name"] not in names:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and info.st_mtime < older_than:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            except OSError:
                continue
    return removed
