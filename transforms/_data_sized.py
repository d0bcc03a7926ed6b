"""Trip counts read from the size of a tensor whose size depends on values (TRT104).

``while idx.numel() > 0`` after ``idx = idx[iou.le(t)]``, ``range(len(m.nonzero()))``,
``for c in torch.unique(labels)``: no value is read into Python, yet the count is the data's.
A traced export reads the example's size and unrolls the loop that many times, as it does
for ``range(int(n))``. A tensor is data-sized when it comes from ``nonzero``, ``unique``,
``masked_select``, one-argument ``torch.where``, indexing by a boolean selection (also one
held in a local, ``detections[~invalid]``) or by another data-sized tensor (also shifted by a
number, ``order[inds + 1]``), or a slice, reshape or cast of one; a local is data-sized (or a
mask) when any binding of it is (flow-insensitive, as :mod:`._condition_evidence` is).
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from trtcodemod.astutil import method_call, walk
from trtcodemod.context import FileContext
from trtcodemod.transforms._script_blockers import _literal_type
from trtcodemod.transforms._op_calls import INF_TEST_HELPERS

_SIZED_METHODS = frozenset({"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select"})
_SIZED_TORCH = tuple(f"torch.{name}" for name in _SIZED_METHODS)
#: Methods that keep the number of rows of a 1-d selection (a view, a copy, a cast).
_ROW_KEEPING = frozenset({
    "view", "reshape", "flatten", "squeeze", "long", "int", "float", "to", "clone", "contiguous",
    "detach", "cpu", "cuda", "type", "t",
})
#: Methods whose result is a boolean mask (torch's; numpy arrays have none of them but ``nonzero``).
_MASK_METHODS = frozenset({
    "le", "lt", "ge", "gt", "eq", "ne", "bool", "logical_not", "logical_and", "logical_or", "isnan",
    "isinf", "isfinite",
})
#: Operators that act element by element: with a number on one side, the result has the other's size.
_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
#: Methods that read a size.
_SIZE_METHODS = frozenset({"numel", "nelement", "size"})


class DataSized:
    """Which expressions of one function are tensors of data-dependent size, and which read a size of one."""

    def __init__(self, context: FileContext, bindings: Iterable[tuple[cst.BaseExpression, cst.CSTNode]],
                 is_tensor) -> None:
        self._context = context
        self._is_tensor = is_tensor
        self._values: dict[str, list[cst.CSTNode]] = {}
        for target, value in bindings:
            if type(target) is cst.Name:
                self._values.setdefault(target.value, []).append(value)
        self._busy: set[str] = set()

    def sized(self, node: cst.CSTNode) -> bool:
        """Is ``node`` a tensor whose size depends on the values of the data?"""
        kind = type(node)
        if kind is cst.Name:
            return self._any_binding(node.value, self.sized)
        if kind is cst.Call:
            if self._context.refers_to(node.func, *_SIZED_TORCH):
                return True
            if self._context.refers_to(node.func, "torch.where") and len(node.args) == 1:
                return True
            parts = method_call(node)
            if parts is None:
                return False
            receiver, method = parts
            if method in _SIZED_METHODS:
                return self._is_tensor(receiver) or self._mask(receiver) or self.sized(receiver)
            return method in _ROW_KEEPING and self.sized(receiver)
        if kind is cst.BinaryOperation and type(node.operator) in _ELEMENTWISE:
            # `inds + 1`: arithmetic with a number keeps the size of the selection
            return any(self.sized(side) and _literal_type(other) in ("int", "float")
                       for side, other in ((node.left, node.right), (node.right, node.left)))
        if kind is cst.Subscript:
            if self.sized(node.value):
                return True  # `torch.where(m)[0]`, `order[1:]` of a selection
            return any(type(e.slice) is cst.Index and (self._mask(e.slice.value) or self.sized(e.slice.value))
                       for e in node.slice)
        return False

    def _any_binding(self, name: str, test) -> bool:
        """Does ``test`` hold for a value bound to the local ``name`` (not while already asking it)?"""
        if name in self._busy or name not in self._values:
            return False
        self._busy.add(name)
        try:
            return any(test(value) for value in self._values[name])
        finally:
            self._busy.discard(name)

    def _mask(self, node: cst.BaseExpression) -> bool:
        """A boolean selection evidently on tensors: a comparison of one, or a mask method's result,
        or a local bound to one (``invalid = overlap & same``, then ``~invalid``)."""
        if type(node) is cst.Name:
            return self._any_binding(node.value, self._mask)
        if type(node) is cst.Comparison:
            operands = [node.left, *(c.comparator for c in node.comparisons)]
            return not any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in node.comparisons) \
                and any(self._is_tensor(o) for o in operands)
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.BitInvert:
            return self._mask(node.expression)
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.BitAnd, cst.BitOr):
            return self._mask(node.left) or self._mask(node.right)
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in INF_TEST_HELPERS:
            return True  # TRT733's rewrite of x.isinf() and the like
        parts = method_call(node) if type(node) is cst.Call else None
        return parts is not None and parts[1] in _MASK_METHODS

    def reads_size(self, node: cst.CSTNode) -> bool:
        """Does ``node`` read a size of a data-sized tensor (``len``, ``numel``, ``size``, ``shape``)?"""
        for inner in walk(node):
            owner = self._size_owner(inner)
            if owner is not None and self.sized(owner):
                return True
            if type(inner) is cst.Name and inner.value in self._values and inner.value not in self._busy:
                self._busy.add(inner.value)  # `n = len(keep)` ... `range(n)`
                try:
                    if any(self.reads_size(value) for value in self._values[inner.value]):
                        return True
                finally:
                    self._busy.discard(inner.value)
        return False

    def _size_owner(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """``x`` when ``node`` reads a size of ``x`` (``x.shape``, ``x.numel()``, ``len(x)``...)."""
        if type(node) is cst.Attribute and node.attr.value == "shape":
            return node.value
        if type(node) is not cst.Call:
            return None
        parts = method_call(node)
        if parts is not None and parts[1] in _SIZE_METHODS:
            return parts[0]
        if len(node.args) == 1 and node.args[0].keyword is None:
            if self._context.refers_to(node.func, "torch.numel") or (
                    type(node.func) is cst.Name and node.func.value == "len"
                    and not self._context.qualified_names(node.func)):
                return node.args[0].value
        return None
