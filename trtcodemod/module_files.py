"""The files of the user's modules that a file's imports name, and the functions defined there.

A rule reads its own file; a few also read a module that file imports: what ``from models.common
import *`` binds (:mod:`trtcodemod.star_imports`), whether ``KORNIA_CHECK`` only raises
(:mod:`trtcodemod.migrate.check_calls`), whether ``amp_to_db(x)`` reads ``x`` only through ``abs``
(TRT709). They all find the module's file the way ``sys.path`` finds a checkout's package (the
folders above the importing file) and read it here, so that:

* a module is found the same way for every rule (:func:`find_module`);
* a module-level ``def`` or ``class`` is followed through ``from ... import`` re-exports the same way
  (:func:`imported_function`, :func:`imported_class`), and a class's bases through their own modules
  (:func:`is_module_subclass`: ``class AlibiAttention(MultiHeadAttention)`` where ``MultiHeadAttention``,
  imported from another file of the checkout, derives from ``nn.Module``);
* each read is recorded while :func:`recording` is active, so the per-file result cache keys the
  result on the bytes of every other file it depended on (:mod:`trtcodemod.cache` checks them on
  each hit): an edit to ``utils.py`` is seen by the cached result of ``model.py`` that read it.

Files are parsed with :mod:`ast` and kept per path, size and modification time.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from trtcodemod.usercode import is_installed

#: How many folders above the importing file's are tried as the root of an absolute import.
MAX_LEVELS = 8
#: How many re-exports a name is followed through.
MAX_REEXPORTS = 3

#: The files read while a result is computed: path -> SHA-256 of the bytes read (None: unreadable).
_reads: ContextVar[dict[str, str | None] | None] = ContextVar("trtcodemod_module_reads", default=None)


@contextlib.contextmanager
def recording() -> Iterator[dict[str, str | None]]:
    """Record, in the dict yielded, every file :func:`read_module` reads inside the block."""
    reads: dict[str, str | None] = {}
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


def digest(path: str) -> str | None:
    """The SHA-256 of the file's bytes now (None: it cannot be read)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def read_module(path: Path) -> bytes | None:
    """The bytes of another file of the user's code (None: unreadable), recorded for the cache."""
    try:
        data = path.read_bytes()
    except OSError:
        data = None
    reads = _reads.get()
    if reads is not None:
        reads[os.path.abspath(path)] = hashlib.sha256(data).hexdigest() if data is not None else None
    return data


def _module_file(base: Path, dotted: str) -> Path | None:
    target = base.joinpath(*dotted.split("."))
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def find_module(origin: Path, module: str | None, level: int, installed: bool = False) -> Path | None:
    """The file of the module that ``from <level dots><module> import ...`` names in ``origin``,
    if on disk: relative to ``origin``'s package, or, for an absolute import, in ``origin``'s
    folder or one of the :data:`MAX_LEVELS` above it. A file of an installed package
    (``site-packages``) counts only with ``installed``."""
    folder = origin.parent
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        if not module:
            found = folder / "__init__.py"
            return found if found.is_file() else None
        return _module_file(folder, module)
    if not module:
        return None
    for _ in range(MAX_LEVELS):
        found = _module_file(folder, module)
        if found is not None:
            return found if installed or not is_installed(str(found)) else None
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


@lru_cache(maxsize=64)
def _tree(source: bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def module_function(source: bytes, name: str) -> ast.FunctionDef | None:
    """The module-level ``def name`` of ``source`` (the last one), if any."""
    tree = _tree(source)
    found = None
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            found = statement
    return found


def literal_all(statements: list[ast.stmt]) -> set[str] | None:
    """The names a literal ``__all__`` (a list or tuple of strings) among ``statements`` lists; None where there
    is none, or it is computed."""
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                     for t in statement.targets):
            value = statement.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                return {e.value for e in value.elts}
            return None
    return None


def imported_function(origin: Path, name: str, source: bytes | None = None) -> ast.FunctionDef | None:
    """The module-level ``def name`` that ``name`` means in the module at ``origin`` (its bytes
    ``source``, read when not given): its own, or one it imports with ``from <module> import name
    [as ...]`` from a file :func:`find_module` finds (installed ones too), followed through
    :data:`MAX_REEXPORTS` re-exports; None when it cannot be found."""
    found = _imported(origin, name, source, ast.FunctionDef, 0)
    return found[0] if found is not None and isinstance(found[0], ast.FunctionDef) else None


def _imported(origin: Path, name: str, source: bytes | None, kind: type, depth: int) -> tuple[ast.AST, Path] | None:
    """The module-level ``def`` or ``class`` (``kind``; the last of that name) that ``name`` means in the module at
    ``origin``, and the file that defines it (see :func:`imported_function`)."""
    if source is None:
        source = read_module(origin)
        if source is None:
            return None
    tree = _tree(source)
    if tree is None:
        return None
    own = None
    for statement in tree.body:
        if isinstance(statement, kind) and statement.name == name:  # type: ignore[attr-defined]
            own = statement
    if own is not None or depth > MAX_REEXPORTS:
        return (own, origin) if own is not None else None
    stars = []
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom):
            continue
        for alias in statement.names:
            if alias.name == "*":
                stars.append(statement)
            if (alias.asname or alias.name) != name:
                continue
            found = find_module(origin, statement.module, statement.level, installed=True)
            if found is None or os.path.realpath(found) == os.path.realpath(origin):
                return None
            return _imported(found, alias.name, None, kind, depth + 1)
    if name.startswith("_"):
        return None  # no star import takes it
    for statement in reversed(stars):  # the last star import that binds the name is the one in force
        # A package's `from .utils import *` (cnstd's `cnstd/utils/__init__.py`), within its `__all__` if it has one.
        found = find_module(origin, statement.module, statement.level, installed=True)
        if found is None or os.path.realpath(found) == os.path.realpath(origin):
            continue
        star_source = read_module(found)
        star_tree = _tree(star_source) if star_source is not None else None
        public = literal_all(star_tree.body) if star_tree is not None else None
        if public is not None and name not in public:
            continue
        taken = _imported(found, name, star_source, kind, depth + 1)
        if taken is not None:
            return taken
    return None


def module_attribute_function(origin: Path, alias: str, name: str,
                              source: bytes | None = None) -> ast.FunctionDef | None:
    """The ``def name`` of the module that ``alias`` names in the module at ``origin`` (``from pkg.utils import
    ops`` or ``import pkg.utils.ops as ops``, then ``ops.name``: ultralytics' ``ops.process_mask``), found as
    :func:`imported_function` finds it there; None when ``alias`` is bound otherwise or the file is not found."""
    if source is None:
        source = read_module(origin)
    tree = _tree(source) if source is not None else None
    if tree is None:
        return None
    found = None
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            for imported in statement.names:
                if (imported.asname or imported.name) == alias:
                    dotted = f"{statement.module}.{imported.name}" if statement.module else imported.name
                    found = find_module(origin, dotted, statement.level, installed=True)
        elif isinstance(statement, ast.Import):
            for imported in statement.names:
                if imported.asname == alias or imported.asname is None and imported.name == alias:
                    found = find_module(origin, imported.name, 0, installed=True)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(n, ast.Name) and n.id == alias for target in targets for n in ast.walk(target)):
                found = None  # bound again at module level: not the module any more
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and statement.name == alias:
            found = None
    return imported_function(found, name) if found is not None else None


def imported_class(origin: Path, name: str, source: bytes | None = None) -> tuple[ast.ClassDef, Path] | None:
    """The module-level ``class name`` that ``name`` means in the module at ``origin`` (its own, or one it
    imports with ``from <module> import name``, followed as :func:`imported_function` does), with its file."""
    found = _imported(origin, name, source, ast.ClassDef, 0)
    return found if found is not None and isinstance(found[0], ast.ClassDef) else None  # type: ignore[return-value]


def is_module_subclass(origin: Path, name: str, source: bytes | None = None, depth: int = 0) -> bool:
    """Does the class ``name`` means at ``origin`` derive from ``torch.nn.Module``, through bases that
    are named ``...Module`` (``nn.Module``, ``torch.nn.Module``, ``Module``), or defined or imported by name in
    their own module and deriving from one (up to :data:`MAX_REEXPORTS` levels of classes)?"""
    found = imported_class(origin, name, source)
    if found is None or depth > MAX_REEXPORTS:
        return False
    cls, where = found
    for base in cls.bases:
        dotted = _dotted(base)
        if dotted is None:
            continue
        if dotted.rsplit(".", 1)[-1] == "Module" or dotted.startswith(("nn.", "torch.nn.")):
            return True
        if "." not in dotted and is_module_subclass(where, dotted, None, depth + 1):
            return True
    return False


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None
