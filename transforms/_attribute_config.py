"""What a module's configuration attribute holds: the values its class stores in ``self.<attr>``.

Shared by the rules that read a setting a module keeps from its constructor (TRT804's ``k``,
TRT725's ``antialias``). This module defines no rule and is not registered.
"""

from __future__ import annotations

import libcst as cst


class _Writes(cst.CSTVisitor):
    """The values stored into ``self.<attr>`` (a class of the module, not of the function: a class made per call
    is a reference cycle that would keep the nodes it found until the cycle collector runs)."""

    def __init__(self, attr: str) -> None:
        super().__init__()
        self.attr = attr
        self.found: list[cst.BaseExpression] = []

    def _target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self" \
                and target.attr.value == self.attr:
            self.found.append(value if value is not None else cst.Name("_unknown"))
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:  # type: ignore[attr-defined]
                self._target(element.value, None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target, node.value)


def self_writes(function: cst.FunctionDef, attr: str) -> list[cst.BaseExpression]:
    """Values ``function`` stores into ``self.<attr>`` (any store counts: augmented and annotated too)."""
    writes = _Writes(attr)
    function.visit(writes)
    return writes.found


def class_writes(cls: cst.ClassDef, attr: str) -> list[tuple[cst.FunctionDef, cst.BaseExpression]]:
    """Every value the methods of ``cls`` store into ``self.<attr>``, with the method storing it
    (the whole class, also the methods after the one being read)."""
    writes: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
    for statement in cls.body.body:
        if type(statement) is cst.FunctionDef:
            writes.extend((statement, value) for value in self_writes(statement, attr))
    return writes
