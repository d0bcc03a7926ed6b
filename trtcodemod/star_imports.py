"""What ``from m import *`` binds, when ``m`` is a file of the user's own code on disk.

YOLOv5, YOLOv7 and the many repositories cut from them write ``from models.common import *``
and never ``import torch`` in ``models/yolo.py``: ``torch``, ``nn`` and ``F`` come through the
star import. Read from the file alone, such a module uses no torch at all, so no rule spoke
about its ``Detect`` head. This module finds the imported module's file (next to the
importing file's package, or in a folder above it, as ``sys.path`` would find a checkout's
top-level package) and reads the imports that module binds at its top level, following its
own star imports. Only absolute imports count (a project-relative one never names torch);
``__all__``, when it is a literal list or tuple of strings, limits what a star import takes,
and names starting with ``_`` are never taken, as Python does. A name the imported module
binds again after importing it (an assignment, ``def`` or ``class``) is not taken for the
import. Installed packages (``site-packages``) are not read: ``from torch import *`` is the
plain table's, and a library's star exports are not the user's code.

Files are parsed with :mod:`ast` (imports only) and kept per path, size and modification
time. :func:`star_import_files` lists the files a file's result depends on, for the cache key.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path

from trtcodemod.module_files import find_module, literal_all

#: How deep star imports are followed (``a`` star-imports ``b``, which star-imports ``c``...).
_MAX_DEPTH = 4

#: (local name, qualified name, module named by the import statement)
Binding = tuple[str, str, str]


def _top_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module-level statements, also those inside if/try/with (imports there run at import time)."""
    out: list[ast.stmt] = []
    for statement in body:
        out.append(statement)
        if isinstance(statement, (ast.If, ast.With, ast.Try)) or type(statement).__name__ == "TryStar":
            out.extend(_top_statements(statement.body))
            for handler in getattr(statement, "handlers", ()):
                out.extend(_top_statements(handler.body))
            out.extend(_top_statements(getattr(statement, "orelse", [])))
            out.extend(_top_statements(getattr(statement, "finalbody", [])))
    return out


def _rebound(statement: ast.stmt) -> set[str]:
    """Names a module-level statement binds other than by an import."""
    names: set[str] = set()
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(statement.name)
    elif isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


#: What one module-level statement does to the names a star import takes: ("bind", local, qualified, module),
#: ("unbind", local) or ("star", module, level).
Event = tuple


@lru_cache(maxsize=256)
def _parsed(path: str, size: int, mtime: int) -> tuple[tuple[Event, ...], frozenset[str] | None]:
    """The import events of one file, in order, and its literal ``__all__`` (kept per size and mtime)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return (), frozenset()
    statements = _top_statements(tree.body)
    events: list[Event] = []
    for statement in statements:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    events.append(("bind", alias.asname, alias.name, alias.name))
                else:
                    head = alias.name.split(".", 1)[0]
                    events.append(("bind", head, head, alias.name))
        elif isinstance(statement, ast.ImportFrom):
            if any(alias.name == "*" for alias in statement.names):
                events.append(("star", statement.module, statement.level))
                continue
            for alias in statement.names:
                local = alias.asname or alias.name
                if statement.level or not statement.module:
                    events.append(("unbind", local))  # project-relative: never torch's
                else:
                    events.append(("bind", local, f"{statement.module}.{alias.name}", statement.module))
        else:
            events.extend(("unbind", name) for name in sorted(_rebound(statement)))
    public = literal_all(statements)
    return tuple(events), (frozenset(public) if public is not None else None)


def exports_of(path: Path, depth: int = 0) -> tuple[tuple[Binding, ...], tuple[str, ...]]:
    """The absolute-import bindings module ``path`` exports to a star import, and the files read
    (each file's parse kept per its size and modification time; the star imports it makes resolved anew)."""
    try:
        stat = os.stat(path)
    except OSError:
        return (), ()
    events, public = _parsed(str(path), stat.st_size, stat.st_mtime_ns)
    bound: dict[str, tuple[str, str]] = {}
    files: list[str] = [str(path)]
    for event in events:
        if event[0] == "bind":
            bound[event[1]] = (event[2], event[3])
        elif event[0] == "unbind":
            bound.pop(event[1], None)
        else:
            inner = find_module(Path(path), event[1], event[2])
            if inner is not None and depth < _MAX_DEPTH:
                found, read = exports_of(inner, depth + 1)
                files.extend(read)
                for local, qualified, module in found:
                    bound[local] = (qualified, module)
    out = tuple((local, qualified, module) for local, (qualified, module) in sorted(bound.items())
                if (local in public if public is not None else not local.startswith("_")))
    return out, tuple(dict.fromkeys(files))


def star_bindings(path: str | os.PathLike[str], source: bytes) -> list[Binding]:
    """The bindings the module-level star imports of ``source`` (the file at ``path``) bring, in order."""
    origin = Path(path)
    if not origin.is_file():
        return []
    found: list[Binding] = []
    for statement in _star_statements(source):
        module = find_module(origin, statement.module, statement.level)
        if module is not None and module.resolve() != origin.resolve():
            found.extend(exports_of(module)[0])
    return found


def _star_statements(source: bytes) -> list[ast.ImportFrom]:
    if b"import *" not in source and b"import*" not in source:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [s for s in _top_statements(tree.body)
            if isinstance(s, ast.ImportFrom) and any(alias.name == "*" for alias in s.names)]


def star_import_files(path: str | os.PathLike[str], source: bytes) -> list[str]:
    """The files whose contents decide what the star imports of ``source`` (at ``path``) bind."""
    origin = Path(path)
    if not origin.is_file():
        return []
    files: list[str] = []
    for statement in _star_statements(source):
        module = find_module(origin, statement.module, statement.level)
        if module is not None and module.resolve() != origin.resolve():
            files.extend(exports_of(module)[1])
    return list(dict.fromkeys(files))
