"""Produce the "after" model: copy the model's package to a folder and rewrite every file.

A model file inside a package may use relative imports, and a fix may touch several
files of that package, so the whole top-level package is copied and each ``.py`` in it
goes through the same rewrite ``trtcodemod apply`` would do. A lone file is copied alone
(its neighbours stay importable from their original folder).

Locations in the copy (exporter doc strings, tracer warnings) map back to the user's
files: the path by prefix, the line through a diff of the two sources.
"""

from __future__ import annotations

import bisect
import difflib
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from trtcodemod.usercode import AT_USER_LINE

from .mirror import drop_bytecode, mirror_file, mirror_tree, remove, write_file
from .spec import RewriteOptions

#: ``fixer(source_bytes, user_path, options) -> (new_source_bytes, [(rule, line, message)])``
Fixer = Callable[[bytes, str, RewriteOptions], tuple[bytes, list[tuple[str, int, str]]]]
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".hg", ".mypy_cache", ".pytest_cache")


@dataclass(frozen=True)
class SourceLayout:
    """Where the model file lives and how to import it."""

    model_file: Path
    package_dir: Path | None  # the top-level package folder, if any
    import_root: Path  # the folder that goes on sys.path
    module: str  # dotted module name under import_root

    @property
    def user_roots(self) -> tuple[str, ...]:
        return (str(self.package_dir or self.model_file.parent),)


def locate(model_file: Path) -> SourceLayout:
    """Find the top-level package around ``model_file`` (folders with ``__init__.py``)."""
    model_file = model_file.resolve()
    top = None
    folder = model_file.parent
    while (folder / "__init__.py").is_file():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    if top is None:
        return SourceLayout(model_file, None, model_file.parent, model_file.stem)
    rel = model_file.relative_to(top.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return SourceLayout(model_file, top, top.parent, ".".join(parts))


class LineMap:
    """Rewritten line number -> original line number (1-based), from a line diff."""

    def __init__(self, before: str, after: str) -> None:
        self._after = after.splitlines()
        ops = difflib.SequenceMatcher(None, before.splitlines(), self._after, autojunk=False).get_opcodes()
        self._starts = [j1 for _, _, _, j1, _ in ops]
        self._ops = ops

    def inserted_helper(self, line: int) -> str | None:
        """The trtcodemod helper whose inserted definition holds rewritten ``line``, if any."""
        k = bisect.bisect_right(self._starts, line - 1) - 1
        if k < 0 or self._ops[k][0] != "insert":
            return None
        for text in reversed(self._after[: line]):
            match = re.match(r"^(?:def|class) (_trt_\w+|_Trt\w+)", text)
            if match:
                return match.group(1)
            if text and not text[0].isspace() and not text.startswith(("#", "@")):
                return None  # left the helper block without meeting its definition
        return None

    def __call__(self, line: int) -> int:
        k = bisect.bisect_right(self._starts, line - 1) - 1
        if k < 0:
            return line
        tag, i1, i2, j1, _ = self._ops[k]
        if tag == "equal":
            return i1 + (line - 1 - j1) + 1
        return min(i1, max(i2 - 1, i1)) + 1  # a changed or inserted block: its first original line


@lru_cache(maxsize=4096)
def _resolved(path: str) -> str | None:
    """Absolute ``path`` resolved (None for a relative one), once per path: a graph check asks
    for the same few files at every node of the graph."""
    return str(Path(path).resolve()) if Path(path).is_absolute() else None


@dataclass
class Fix:
    rule: str
    path: str
    line: int
    message: str


@dataclass
class RewrittenTree:
    layout: SourceLayout  # of the copy: import it from here
    fixes: list[Fix] = field(default_factory=list)
    changed_files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: copy path -> (user path, line map)
    maps: dict[str, tuple[str, LineMap]] = field(default_factory=dict)
    extra_paths: list[str] = field(default_factory=list)

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule for f in self.fixes})

    def _entry(self, path: str) -> tuple[str, LineMap] | None:
        """The map of the copied file at absolute ``path``, None for any other path."""
        resolved = _resolved(path)
        return self.maps.get(resolved) if resolved is not None else None

    def map_path(self, path: str | None, line: int | None) -> tuple[str | None, int | None]:
        """A location in the copy -> the user's file and line (unchanged if not in the copy)."""
        if path is None:
            return path, line
        entry = self._entry(path)
        if entry is None:
            return path, line
        user_path, line_map = entry
        return user_path, (line_map(line) if line is not None else None)

    def helper_at(self, frame: Any) -> str | None:
        """The inserted helper whose definition holds ``frame`` (a ``source_map.Frame`` of the copy)."""
        entry = self._entry(frame.file)
        return entry[1].inserted_helper(frame.line) if entry else None

    def map_location(self, text: str | None) -> str | None:
        """``"/tmp/…/after_src/pkg/head.py:12"`` -> ``"/home/…/pkg/head.py:10"``."""
        if not text:
            return text
        match = re.match(r"^(.*?):(\d+)(.*)$", text)
        if not match:
            return text
        copy_path, copy_line = match.group(1), int(match.group(2))
        path, line = self.map_path(copy_path, copy_line)
        entry = self._entry(copy_path)
        helper = entry[1].inserted_helper(copy_line) if entry else None
        where = f" (in {helper}, inserted by trtcodemod)" if helper else ""
        return f"{path}:{line}{where}{match.group(3)}"

    def map_error(self, error: str | None) -> str | None:
        """An export error of the copy, its user line (``[at /tmp/…/head.py:12]``) the user's file's."""
        match = AT_USER_LINE.search(error or "")
        if match is None:
            return error
        where = self.map_location(f"{match['file']}:{match['line']}")
        return f"{error[:match.start()]} [at {where}]"


def engine_fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
    """The real rewrite: ``trtcodemod.engine.fix_source`` with the ``apply`` options."""
    from trtcodemod.engine import Options, fix_source

    # The user named this model: its file is model code wherever it lives.
    opts = Options(select=tuple(options.select), ignore=tuple(options.ignore), unsafe=options.unsafe,
                   target=options.target, scope="all")
    result = fix_source(source, path, opts)
    return result.source, [(f.rule, int(f.line), str(f.message)) for f in result.fixed]


def _package_pairs(package_dir: Path, dest: Path, relative: Path | None = None) -> list[tuple[Path, Path]]:
    """Copy ``package_dir`` to ``dest/<relative>`` (its name by default); ``(copy, original)`` for each of its ``.py``
    files."""
    target_pkg = dest / (relative or package_dir.name)
    mirror_tree(package_dir, target_pkg, _SKIP)
    return [(target_pkg / p.relative_to(package_dir), p)
            for p in sorted(package_dir.rglob("*.py")) if "__pycache__" not in p.parts]


def _on_import_path(folder: Path) -> bool:
    """Is ``folder`` itself where imports look (``PYTHONPATH``, this interpreter's ``sys.path`` with its ``.pth``
    entries)? A package there is imported by its own name (a library on ``PYTHONPATH`` from a folder inside the
    project), not as a part of a namespace named after the folders above it."""
    entries = [*os.environ.get("PYTHONPATH", "").split(os.pathsep), *sys.path]
    return os.path.realpath(folder) in {os.path.realpath(entry) for entry in entries if entry}


def rewrite_copy(layout: SourceLayout, dest: Path, options: RewriteOptions, fixer: Fixer | None = None,
                 *, extra_files: tuple[Path, ...] | list[Path] = ()) -> RewrittenTree:
    """Copy the model's package (or file) under ``dest`` and rewrite every Python file in it.

    ``extra_files`` are other files the model's code comes from (``migrate``'s observer knows
    them: a model file that is a wrapper importing the model from a sibling module or another
    package). Each is copied next to the model's copy (its whole top-level package when it sits
    in one) and rewritten too; the copy comes first on ``sys.path``, so imports find the copies.
    A ``dest`` an earlier call filled (the last round's) is brought to the same state, copying
    only the files that differ from the user's (``mirror.py``).
    """
    fixer = fixer or engine_fixer
    if dest.exists() and not dest.is_dir():
        dest.unlink()
    dest.mkdir(parents=True, exist_ok=True)
    if layout.package_dir is not None:
        pairs = _package_pairs(layout.package_dir, dest)
        copy_file = dest / layout.package_dir.name / layout.model_file.relative_to(layout.package_dir)
        tree = RewrittenTree(SourceLayout(copy_file, dest / layout.package_dir.name, dest, layout.module))
    else:
        copy_file = dest / layout.model_file.name
        mirror_file(layout.model_file, copy_file)
        pairs = [(copy_file, layout.model_file)]
        tree = RewrittenTree(SourceLayout(copy_file, None, dest, layout.module),
                             extra_paths=[str(layout.model_file.parent)])
    copied = {original.resolve() for _, original in pairs}
    made = {(layout.package_dir or copy_file).name}  # the names this copy holds at dest's top
    #: Files placed in folders without ``__init__.py`` (namespace packages), relative to ``dest``.
    namespaced: set[Path] = set()
    root = layout.import_root.resolve()
    for extra in sorted({Path(p).resolve() for p in extra_files}):
        if extra in copied or not extra.is_file() or extra.suffix != ".py":
            continue
        where = locate(extra)
        inside = where.package_dir is not None and where.package_dir.parent != root \
            and where.package_dir.is_relative_to(root) and not _on_import_path(where.package_dir.parent)
        if inside:
            # A package in folders without `__init__.py` under the import root (nemotron-ocr's `nemotron_ocr/
            # inference`, imported as `nemotron_ocr.inference`): the copy keeps the namespace folders above it, so
            # the copy's portion of the namespace comes first on sys.path, as a loose file's does below.
            relative = where.package_dir.relative_to(root)
            top = relative.parts[0]
            if top in made and top not in {p.parts[0] for p in namespaced}:
                continue  # a package or file of that name is already there: never shadow it
            for folder in reversed((dest / relative).parents[:len(relative.parts) - 1]):
                if not folder.is_dir() or folder.is_symlink():
                    remove(folder)  # an earlier copy's file or link where this copy needs a folder
            new_pairs = _package_pairs(where.package_dir, dest, relative)
            namespaced.update(p.relative_to(dest) for p in (dest / relative).rglob("*")
                              if p.is_file() and "__pycache__" not in p.parts)
            made.add(top)
            pairs += new_pairs
            copied.update(original.resolve() for _, original in new_pairs)
            continue
        if where.package_dir is not None:
            if where.package_dir.name in made:
                continue  # a package of the same name is already there: never shadow it
            new_pairs = _package_pairs(where.package_dir, dest)
        elif extra.parent != root and extra.is_relative_to(root):
            # In a folder without `__init__.py` under the model's import root (CenterNet's `src/lib/models`,
            # imported as `models.decode`): a namespace package, imported by its folder's path from the root.
            # The copy keeps that path, so the copy's portion of the namespace comes first on sys.path.
            relative = extra.relative_to(root)
            top = relative.parts[0]
            if top in made and top not in {p.parts[0] for p in namespaced}:
                continue  # a package or file of that name is already there: never shadow it
            target = dest / relative
            for folder in reversed(target.parents[:len(relative.parts) - 1]):
                if not folder.is_dir() or folder.is_symlink():
                    remove(folder)  # an earlier copy's file or link where this copy needs a folder
            target.parent.mkdir(parents=True, exist_ok=True)
            mirror_file(extra, target)
            namespaced.add(relative)
            made.add(top)
            pairs.append((target, extra))
            copied.add(extra)
            continue
        elif extra.name in made:
            continue
        else:
            mirror_file(extra, dest / extra.name)
            new_pairs = [(dest / extra.name, extra)]
        made.add((where.package_dir or extra).name)
        pairs += new_pairs
        copied.update(original.resolve() for _, original in new_pairs)
    for entry in list(dest.iterdir()):
        if entry.name not in made and entry.name != "__pycache__":
            remove(entry)  # an earlier copy's, which this one does not hold
    for top in {p.parts[0] for p in namespaced}:
        # A namespace folder holds only this copy's files: an earlier round's other file would shadow the user's.
        for path in sorted((dest / top).rglob("*"), reverse=True):
            if "__pycache__" in path.parts:
                continue
            if path.is_file() and path.relative_to(dest) not in namespaced:
                remove(path)
                drop_bytecode(path)
    for copy_path, user_path in pairs:
        original = user_path.read_bytes()
        try:
            new, fixed = fixer(original, str(user_path), options)
        except Exception as exc:  # noqa: BLE001 - InputError or an engine bug: report, keep the original
            tree.errors.append(f"{user_path}: {exc}")
            continue
        tree.fixes.extend(Fix(rule, str(user_path), line, msg) for rule, line, msg in fixed)
        if new != original:
            write_file(copy_path, new)
            tree.changed_files.append(str(user_path))
            tree.maps[str(copy_path.resolve())] = (
                str(user_path), LineMap(original.decode("utf-8", "replace"), new.decode("utf-8", "replace")))
        else:
            tree.maps[str(copy_path.resolve())] = (str(user_path), LineMap("", ""))
    return tree
