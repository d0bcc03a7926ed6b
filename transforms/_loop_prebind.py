"""Make a name that a data-dependent loop first binds, and that is read right after it, defined on
every path, so that ``torch.jit.script`` compiles the function holding the loop (TRT104's fix).

TorchScript rejects a name first bound inside a loop and read after it ("undefined value"): the
loop may run zero times. Where every binding of the name inside the loop is evidently a tensor and
the statement right after the loop reads it unconditionally, the name is declared
``name: torch.Tensor | None = None`` before the loop and ``assert name is not None`` follows the
loop. Eager mode runs as before wherever it ran: the loop binds a tensor (never None) before the
read, and where it did not, eager raised ``UnboundLocalError`` at that read and now raises
``AssertionError`` at the assert, one line before.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import walk
from trtcodemod.transforms._condition_evidence import read_names

#: Nodes that evaluate a part of an expression only on some paths: a read under them may not run.
_CONDITIONAL = (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                cst.GeneratorExp)


def prebind(function: cst.FunctionDef, loop: cst.While | cst.For, names: list[str],
            is_tensor: Callable[[cst.BaseExpression], bool], tensor: cst.BaseExpression) -> cst.FunctionDef | None:
    """``function`` with ``names`` declared before ``loop`` and asserted bound after it, or None where
    that is not evidently sound (a binding that is not a tensor, no unconditional read right after)."""
    if loop.orelse is not None or not all(_binds_tensors_only(loop, name, is_tensor) for name in names):
        return None
    transformer = _Prebind(loop, names, tensor)
    rewritten = function.visit(transformer)
    return rewritten if transformer.done else None


def _binds_tensors_only(loop: cst.CSTNode, name: str, is_tensor: Callable[[cst.BaseExpression], bool]) -> bool:
    """Every binding of ``name`` in ``loop`` is ``name = <tensor>`` (one target, not unpacked)."""
    found = False
    for node in walk(loop.body):
        if type(node) is cst.Assign and any(_mentions(t.target, name) for t in node.targets):
            if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name or not is_tensor(node.value):
                return False
            found = True
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.WithItem, cst.FunctionDef,
                            cst.ClassDef, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal):
            if any(type(n) is cst.Name and n.value == name for n in _bound_parts(node)):
                return False
    return found


def _bound_parts(node: cst.CSTNode) -> list[cst.CSTNode]:
    """What a binding statement other than a plain assignment may bind (conservatively, all of it
    but the bound value of an augmented or annotated assignment and a loop's body)."""
    kind = type(node)
    if kind in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr):
        return list(walk(node.target))
    if kind is cst.For:
        return list(walk(node.target))
    if kind is cst.WithItem:
        return list(walk(node.asname)) if node.asname is not None else []
    if kind in (cst.FunctionDef, cst.ClassDef):
        return [node.name]
    return list(walk(node))


def _mentions(target: cst.BaseExpression, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(target))


def _reads_unconditionally(statement: cst.BaseStatement, names: list[str]) -> bool:
    """``statement`` is one simple statement that reads every name, none under a conditional part."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if any(isinstance(n, _CONDITIONAL) for n in walk(small)):
        return False
    value = small.value if type(small) in (cst.Assign, cst.Expr, cst.Return) else None
    return value is not None and set(names) <= read_names(value)


class _Prebind(cst.CSTTransformer):
    """Inserts the declarations before the loop and the assertions after it, in the loop's block."""

    def __init__(self, loop: cst.CSTNode, names: list[str], tensor: cst.BaseExpression) -> None:
        super().__init__()
        self.loop, self.names, self.tensor = loop, names, tensor
        self.done = False

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = list(original_node.body)
        at = next((i for i, s in enumerate(body) if s is self.loop), None)
        if at is None or at + 1 >= len(body) or not _reads_unconditionally(body[at + 1], self.names):
            return updated_node
        self.done = True
        new = list(updated_node.body)
        declared = [cst.SimpleStatementLine([cst.AnnAssign(
            cst.Name(n), cst.Annotation(cst.BinaryOperation(self.tensor, cst.BitOr(), cst.Name("None"))),
            cst.Name("None"))]) for n in self.names]
        asserted = [cst.SimpleStatementLine([cst.Assert(cst.Comparison(cst.Name(n), [cst.ComparisonTarget(
            cst.IsNot(), cst.Name("None"))]))]) for n in self.names]
        return updated_node.with_changes(body=[*new[:at], *declared, new[at], *asserted, *new[at + 1:]])
