"""Helpers and ``import torch`` into a rewritten module: which names, where, in which line endings.

The engine hands over the module before and after a pass's replacements; this module
decides the helpers' names (a user's own ``_trt_*`` definition is never taken for ours:
ours then gets a fresh name) and inserts their definitions, and ``import torch`` when the
new code needs it, right after the first statement that binds ``torch``, in the file's
own line endings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterator, Sequence

import libcst as cst

from trtcodemod.astutil import walk
from trtcodemod.helpers import (
    InsertedHelper,
    fresh_name,
    helper_closure,
    helper_definitions,
    helper_names,
    inserted_helper,
    is_reserved,
)


# --- helper names ---------------------------------------------------------------


@dataclass
class HelperPlan:
    """Which helpers a pass needs, under which names, and which to insert."""

    #: Canonical name → the name the module uses for it, for every helper needed.
    names: dict[str, str]
    #: Canonical names of the helpers to insert, dependencies first.
    insert: list[str]
    #: Canonical name → new name, where they differ.
    renames: dict[str, str]
    #: Name nodes of the original module that must keep their name (the user's own code).
    keep: set[int]


def plan_helpers(module: cst.Module, helpers: list[str], source: bytes) -> HelperPlan:
    """Reuse the module's own copies of our helpers; insert the rest under free names.

    A copy counts as ours only when its content is ours (``inserted_helper``), its name
    is bound by nothing else in the module, and the helpers it calls are ours too. A
    helper name the user's code binds is never taken over: ours gets a fresh name.
    """
    needed = helper_closure(helpers)
    relevant = tuple(name for name in needed if name.encode() in source)
    if not relevant:
        # The common case: no name of ours occurs anywhere in the file.
        return HelperPlan({name: name for name in needed}, needed, {}, set())
    ours: dict[str, InsertedHelper] = {}
    ours_ids: set[int] = set()
    for stmt in module.body:
        if is_reserved(stmt):
            info = inserted_helper(stmt)
            if info is not None:
                ours.setdefault(stmt.name.value, info)  # type: ignore[attr-defined]
                ours_ids.add(id(stmt))
    mentioned, bound, keep = _scan_names(module, relevant, ours_ids)
    usable: dict[str, bool] = {}

    def is_usable(name: str) -> bool:
        """A copy of ours whose name only it binds, calling copies of ours that are usable."""
        if name not in usable:
            usable[name] = False  # a cycle through a broken copy stays broken
            info = ours.get(name)
            usable[name] = info is not None and name not in bound and all(
                dep == info.canonical
                or (dep_name in ours and ours[dep_name].canonical == dep and is_usable(dep_name))
                for dep, dep_name in info.names.items()
            )
        return usable[name]

    existing: dict[str, str] = {}
    for name, info in ours.items():
        if is_usable(name):
            existing.setdefault(info.canonical, name)
    reserved = helper_names()
    chosen: set[str] = set()
    names: dict[str, str] = {}
    insert: list[str] = []
    for canonical in needed:
        if canonical in existing:
            names[canonical] = existing[canonical]
            continue
        name = canonical
        number = 0
        while name in bound or name in ours or name in chosen or (name != canonical and (
            name in mentioned or name in reserved
        )):
            number += 1
            name = fresh_name(canonical, number)
        chosen.add(name)
        names[canonical] = name
        insert.append(canonical)
    renames = {canonical: name for canonical, name in names.items() if canonical != name}
    return HelperPlan(names, insert, renames, keep)


def _scan_names(
    module: cst.Module, prefixes: tuple[str, ...], ours: set[int]
) -> tuple[set[str], set[str], set[int]]:
    """Names starting with one of ``prefixes``: every one the module mentions, those the
    module binds outside our helper definitions (ids in ``ours``), and the ids of the
    Name nodes that spell them (the user's code, never renamed)."""
    mentioned: set[str] = set()
    bound: set[str] = set()
    keep: set[int] = set()
    for stmt in module.body:
        mine = id(stmt) in ours
        for node in walk(stmt):
            if type(node) is cst.Name:
                if node.value.startswith(prefixes):
                    mentioned.add(node.value)
                    keep.add(id(node))
            elif not mine:
                bound.update(name for name in _binds(node) if name.startswith(prefixes))
    return mentioned, bound, keep


def _binds(node: cst.CSTNode) -> Iterator[str]:
    """The names ``node`` itself binds (or deletes) in its scope."""
    if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Param):
        yield node.name.value
    elif type(node) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
        yield from _target_names(node.target)
    elif type(node) is cst.Del:
        yield from _target_names(node.target)
    elif type(node) is cst.AsName:
        yield from _target_names(node.name)  # import ... as, with ... as, except ... as
    elif type(node) is cst.ImportAlias and node.asname is None:
        head = node.name
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is cst.Name:
            yield head.value
    elif type(node) is cst.NameItem:  # global / nonlocal
        yield node.name.value
    elif type(node) in (cst.MatchAs, cst.MatchStar) and node.name is not None:
        yield node.name.value
    elif type(node) is cst.MatchMapping and node.rest is not None:
        yield node.rest.value


def _target_names(target: cst.CSTNode) -> Iterator[str]:
    if type(target) is cst.Name:
        yield target.value
    elif type(target) in (cst.Tuple, cst.List):
        for element in target.elements:
            yield from _target_names(element.value)
    elif type(target) is cst.StarredElement:
        yield from _target_names(target.value)


class Rename(cst.CSTTransformer):
    """Renames helper names in code we build (never an attribute, never a node in ``keep``)."""

    def __init__(self, renames: dict[str, str], keep: Collection[int] = ()) -> None:
        super().__init__()
        self.renames = renames
        self.keep = keep

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.renames.get(original_node.value)
        if new is None or id(original_node) in self.keep:
            return updated_node
        return updated_node.with_changes(value=new)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)


def renamed(value: object, renamer: Rename) -> object:
    if isinstance(value, cst.FlattenSentinel):
        return cst.FlattenSentinel([node.visit(renamer) for node in value.nodes])
    if isinstance(value, cst.CSTNode):
        return value.visit(renamer)
    return value


# --- inserting helpers and imports ---------------------------------------------

INSERTED_COMMENT = "# Inserted by trtcodemod: TensorRT-safe helpers."


def insert_support(
    module: cst.Module, new_module: cst.Module, plan: HelperPlan | None, needs_torch: bool, limit: int
) -> cst.Module:
    """Add ``import torch`` and the planned helper definitions to ``new_module``.

    ``module`` is the module before the fixes; its first ``limit`` statements hold no
    replaced node and are the same in ``new_module``. Helpers go right after the first
    of them that binds ``torch``; without one, ``import torch`` and the helpers go after
    the first statement that imports from torch, else after the docstring, ``__future__``
    and leading imports; in each case after the import lines that follow it. Never later
    than ``limit``: the new code may run at import time.
    """
    definitions = _definitions(plan, new_module.default_newline) if plan is not None else []
    binding = next((i for i in range(limit) if _binds_torch(module.body[i])), None)
    add_import = needs_torch and binding is None
    if not definitions and not add_import:
        return new_module
    if binding is not None:
        index = binding + 1
    else:
        importing = next((i for i in range(limit) if _imports_torch(module.body[i])), None)
        index = importing + 1 if importing is not None else min(_after_leading_imports(module.body), limit)
    # The rest of that import block too: an import never needs a helper.
    while index < limit and _is_import_line(module.body[index]):
        index += 1
    body = list(new_module.body)
    follower = body[index] if index < len(body) else None
    follower_lines = list(getattr(follower, "leading_lines", ()))
    blank_prefix = []
    for line in follower_lines:
        if line.comment is not None:
            break
        blank_prefix.append(line)
    inserted: list[cst.BaseStatement] = []
    if add_import:
        after_import = index > 0 and _is_import_line(body[index - 1])
        inserted.append(
            cst.SimpleStatementLine(
                body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("torch"))])],
                # Inside an import block it joins the block; elsewhere it keeps the spacing
                # the file had at that point (after a docstring, a blank line).
                leading_lines=[] if after_import else blank_prefix,
            )
        )
    for number, definition in enumerate(definitions):
        lines = [cst.EmptyLine(), cst.EmptyLine()]
        if number == 0:
            lines.append(cst.EmptyLine(comment=cst.Comment(INSERTED_COMMENT)))
        inserted.append(definition.with_changes(leading_lines=lines))
    if definitions and follower is not None and hasattr(follower, "leading_lines"):
        # Two blank lines between the helpers and the code that follows them.
        if len(blank_prefix) < 2:
            body[index] = follower.with_changes(
                leading_lines=[cst.EmptyLine()] * (2 - len(blank_prefix)) + follower_lines
            )
    body[index:index] = inserted
    return new_module.with_changes(body=body)


def _definitions(plan: HelperPlan, newline: str) -> list[cst.BaseStatement]:
    """The definitions to insert, under their planned names, written with ``newline``."""
    definitions = helper_definitions(plan.insert)
    if plan.renames:
        # The inserted helpers call each other (and copies already in the module) by these names.
        renamer = Rename(plan.renames)
        definitions = [d.visit(renamer) for d in definitions]
    if newline != "\n":
        converter = _LineEndings(newline)
        definitions = [d.visit(converter) for d in definitions]
    return definitions  # type: ignore[return-value]


class _LineEndings(cst.CSTTransformer):
    """Writes the line breaks inside string literals and whitespace with ``newline``.

    LibCST already writes statement ends with the module's newline; what it cannot know
    is the text of a multi-line string (a docstring) or a backslash continuation.
    """

    def __init__(self, newline: str) -> None:
        super().__init__()
        self.newline = newline

    def _convert(self, text: str) -> str:
        return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", self.newline)

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        return updated_node.with_changes(value=self._convert(updated_node.value))

    def leave_FormattedStringText(
        self, original_node: cst.FormattedStringText, updated_node: cst.FormattedStringText
    ) -> cst.FormattedStringText:
        return updated_node.with_changes(value=self._convert(updated_node.value))

    def leave_SimpleWhitespace(
        self, original_node: cst.SimpleWhitespace, updated_node: cst.SimpleWhitespace
    ) -> cst.SimpleWhitespace:
        return updated_node.with_changes(value=self._convert(updated_node.value))


def _binds_torch(statement: cst.CSTNode) -> bool:
    """Whether ``torch`` is bound to the torch module once ``statement`` completes normally.

    ``import torch``, ``import torch.nn`` and ``import torch as torch`` bind it;
    ``import torch as th`` does not. A compound statement binds it when every way
    through it does: ``if`` needs an ``else`` (``if TYPE_CHECKING:`` alone never
    counts), ``try`` needs every handler to bind it or to end in ``raise``.
    """
    if type(statement) is cst.SimpleStatementLine:
        return any(type(small) is cst.Import and _import_binds_torch(small) for small in statement.body)
    if type(statement) is cst.If:
        return _block_binds_torch(statement.body) and statement.orelse is not None and (
            _binds_torch(statement.orelse) if type(statement.orelse) is cst.If
            else _block_binds_torch(statement.orelse.body)
        )
    if type(statement) in (cst.Try, cst.TryStar):
        if statement.finalbody is not None and _block_binds_torch(statement.finalbody.body):
            return True
        normal = _block_binds_torch(statement.body) or (
            statement.orelse is not None and _block_binds_torch(statement.orelse.body)
        )
        return normal and all(
            _block_binds_torch(handler.body) or _block_raises(handler.body) for handler in statement.handlers
        )
    if type(statement) is cst.With:
        return _block_binds_torch(statement.body)
    return False


def _import_binds_torch(node: cst.Import) -> bool:
    for alias in node.names:
        name = _dotted(alias.name)
        if alias.asname is None:
            if name == "torch" or name.startswith("torch."):
                return True
        elif name == "torch" and type(alias.asname.name) is cst.Name and alias.asname.name.value == "torch":
            return True
    return False


def _block_binds_torch(block: cst.BaseSuite) -> bool:
    if type(block) is cst.SimpleStatementSuite:
        return any(type(small) is cst.Import and _import_binds_torch(small) for small in block.body)
    return any(_binds_torch(statement) for statement in block.body)  # type: ignore[attr-defined]


def _block_raises(block: cst.BaseSuite) -> bool:
    statements = list(getattr(block, "body", ()))
    last = statements[-1] if statements else None
    if type(last) is cst.SimpleStatementLine:
        return type(last.body[-1]) is cst.Raise
    return type(last) is cst.Raise


def _imports_torch(statement: cst.CSTNode) -> bool:
    """Whether ``statement`` imports anything from torch, under any name, at any depth of
    its blocks (``import torch as th``, ``from torch.nn import functional as F``)."""
    if type(statement) is cst.Import:
        return any(_is_torch(_dotted(alias.name)) for alias in statement.names)
    if type(statement) is cst.ImportFrom:
        return not statement.relative and statement.module is not None and _is_torch(_dotted(statement.module))
    if type(statement) in (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock):
        return any(_imports_torch(small) for small in statement.body)
    if type(statement) in (cst.If, cst.Try, cst.TryStar, cst.With, cst.Else, cst.Finally):
        parts = [statement.body, *(handler.body for handler in getattr(statement, "handlers", ()))]
        parts.extend(getattr(statement, extra, None) for extra in ("orelse", "finalbody"))
        return any(part is not None and _imports_torch(part) for part in parts)
    return False


def _is_torch(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def _dotted(node: cst.BaseExpression) -> str:
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
    return ".".join(reversed(parts))


def _after_leading_imports(body: Sequence[cst.BaseStatement]) -> int:
    """Index after the module docstring, ``__future__`` and the leading import block."""
    index = 0
    if body and _is_docstring(body[0]):
        index = 1
    while index < len(body) and _is_import_line(body[index]):
        index += 1
    return index


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        type(statement) is cst.SimpleStatementLine
        and len(statement.body) == 1
        and type(statement.body[0]) is cst.Expr
        and type(statement.body[0].value) in (cst.SimpleString, cst.ConcatenatedString)
    )


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return type(statement) is cst.SimpleStatementLine and all(
        type(small) in (cst.Import, cst.ImportFrom) for small in statement.body
    )
