"""Qualified names from a file's imports.

LibCST's ``QualifiedNameProvider`` costs several times the parse itself on large
model libraries (see shared/STYLE.md: 97 s against 17 s on timm + torchvision).
Rules only need to know which imported object a dotted name refers to, so this
module reads the import statements and resolves ``F.pad`` → ``torch.nn.functional.pad``.

:class:`ImportTable` is flow- and scope-insensitive: it records every import seen,
wherever it is. Rules do not ask it directly: :class:`~trtcodemod.context.FileContext`
answers through :mod:`trtcodemod.scopes`, which uses the table only as a cheap first
filter (a name no import binds is never torch's) and then applies Python's scope rules,
so that a parameter, a local or a later definition that shadows an imported name is
not taken for it.

A name imported in two ways (``try: from torch import vmap`` / ``except:
from functorch import vmap``) resolves to both, in sorted order, so results are
the same from run to run. ``torch.torch`` is the torch module itself (torch binds its own
name), so ``torch.torch.deg2rad`` resolves to ``torch.deg2rad``.
"""

from __future__ import annotations

from typing import Collection, Iterable

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` as text for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def canonical(qualified: str) -> str:
    """``qualified`` without the repeats of ``torch.torch``, which is the torch module itself."""
    while qualified.startswith("torch.torch") and qualified[11:12] in ("", "."):
        qualified = qualified[6:]
    return qualified


def import_bindings(node: cst.Import | cst.ImportFrom) -> list[tuple[str, str | None]]:
    """The local names an import statement binds, each with the qualified name it binds.

    ``import a.b`` binds ``a`` to ``a``; ``import a.b as c`` binds ``c`` to ``a.b``;
    ``from a import b as c`` binds ``c`` to ``a.b``. Names bound by a project-relative
    import (``from .m import x``) come with None: they never name torch, but they still
    bind the name. ``from m import *`` binds names that cannot be known from the statement: none
    listed (:meth:`ImportTable.add_star_bindings` takes what :mod:`trtcodemod.star_imports` reads
    from ``m``'s file when it is the user's own module).
    """
    bound: list[tuple[str, str | None]] = []
    if type(node) is cst.Import:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None:
                local = _asname(alias)
                if local:
                    bound.append((local, full))
            else:
                # `import torch.nn.functional` binds only `torch`.
                head = full.split(".", 1)[0]
                bound.append((head, head))
        return bound
    if type(node.names) is cst.ImportStar:
        return bound
    module = None if node.relative or node.module is None else dotted_name(node.module)
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        local = _asname(alias) if alias.asname is not None else name
        if local:
            bound.append((local, f"{module}.{name}" if module else None))
    return bound


class ImportTable:
    """Local name → the qualified names it may be bound to by imports."""

    def __init__(self) -> None:
        self._bindings: dict[str, set[str]] = {}
        #: Every module an import statement named (``import a.b``, ``from a.b import *``).
        self._modules: set[str] = set()
        #: Names the file's module-level star imports of its own code bind (:mod:`trtcodemod.star_imports`).
        self._star: dict[str, set[str]] = {}

    def add_import(self, node: cst.Import | cst.ImportFrom) -> None:
        """Record the names an import statement binds."""
        if type(node) is cst.Import:
            for alias in node.names:
                full = dotted_name(alias.name)
                if full is not None:
                    self._modules.add(full)
        elif not node.relative and node.module is not None:
            module = dotted_name(node.module)
            if module is not None:
                self._modules.add(module)
        for local, qualified in import_bindings(node):
            if qualified is not None:  # project-relative imports never name torch
                self._bind(local, qualified)

    def add_star_bindings(self, bindings: Iterable[tuple[str, str, str]]) -> None:
        """Record what ``from m import *`` binds where ``m`` is the user's file on disk and was read
        (local name, qualified name, module its import statement named): ``models/yolo.py`` of
        YOLOv5 gets ``torch``, ``nn`` and ``F`` from ``from models.common import *`` only."""
        for local, qualified, module in bindings:
            self._modules.add(module)
            self._bind(local, qualified)
            self._star.setdefault(local, set()).add(qualified)

    def star_binding(self, local: str) -> tuple[str, ...]:
        """The qualified names a module-level star import binds ``local`` to (sorted; ``()`` if none)."""
        return tuple(sorted(self._star.get(local, ())))

    def add_imports_from(self, statements: Iterable[cst.CSTNode]) -> None:
        """Record the imports among module-level statements, also inside if/try/with."""
        for statement in statements:
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) in (cst.Import, cst.ImportFrom):
                        self.add_import(small)
            elif type(statement) in (cst.If, cst.Try, cst.With, cst.TryStar):
                for block in _blocks_of(statement):
                    self.add_imports_from(block)

    def imports_module(self, module: str) -> bool:
        """Whether an import seen so far names ``module`` or a submodule (``import torch.nn``,
        ``from torch import *``); project-relative imports never count.

        Before the traversal the table holds the module-level imports (also inside
        if/try/with), so asking from ``visit_Module`` ignores imports inside functions.
        """
        prefix = module + "."
        return any(name == module or name.startswith(prefix) for name in self._modules)

    def binds(self, local: str) -> bool:
        """Whether some import seen so far binds ``local`` (the cheap test before any scope work)."""
        return local in self._bindings

    def may_bind(self, local: str, qualified: Collection[str]) -> bool:
        """Whether some import seen so far binds ``local`` to one of ``qualified`` (where the
        traversal is, ``local`` can only mean less: scopes shadow imports, never add any)."""
        bound = self._bindings.get(local)
        return bound is not None and not bound.isdisjoint(qualified)

    def _bind(self, local: str, qualified: str) -> None:
        self._bindings.setdefault(local, set()).add(qualified)

    def resolve(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """Qualified names a Name/Attribute expression may refer to through any import (sorted,
        maybe empty), ignoring scopes: see :meth:`FileContext.qualified_names` for what rules use."""
        head = node
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is not cst.Name or head.value not in self._bindings:
            return ()  # the common case, answered without building the dotted name
        dotted = dotted_name(node)
        if dotted is None:
            return ()
        head, _, rest = dotted.partition(".")
        bound = self._bindings.get(head)
        if not bound:
            return ()
        suffix = f".{rest}" if rest else ""
        return tuple(sorted(canonical(f"{q}{suffix}") for q in bound))

    def matches(self, node: cst.BaseExpression, qualified: Iterable[str]) -> str | None:
        """The first of ``qualified`` that ``node`` refers to, or None."""
        wanted = set(qualified)
        for name in self.resolve(node):
            if name in wanted:
                return name
        return None

    def local_names_for(self, qualified: str) -> list[str]:
        """Local names bound directly to ``qualified`` (e.g. ``th`` for ``torch``), sorted."""
        return sorted(n for n, q in self._bindings.items() if qualified in q)


def _asname(alias: cst.ImportAlias) -> str | None:
    asname = alias.asname
    if asname is not None and type(asname.name) is cst.Name:
        return asname.name.value
    return None


def _blocks_of(statement: cst.CSTNode) -> list[Iterable[cst.CSTNode]]:
    blocks: list[Iterable[cst.CSTNode]] = []
    body = getattr(statement, "body", None)
    if type(body) is cst.IndentedBlock:
        blocks.append(body.body)
    for handler in getattr(statement, "handlers", ()) or ():
        if type(handler.body) is cst.IndentedBlock:
            blocks.append(handler.body.body)
    for attr in ("orelse", "finalbody"):
        extra = getattr(statement, attr, None)
        if extra is None:
            continue
        if type(extra) is cst.If:
            blocks.extend(_blocks_of(extra))
        elif type(getattr(extra, "body", None)) is cst.IndentedBlock:
            blocks.append(extra.body.body)
    return blocks
