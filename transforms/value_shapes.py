"""Shapes computed from tensor values: ``torch.arange(m.sum())``, ``x[:m.sum()]`` (TRT714, TRT715).

Both exporters keep such bounds in the graph, but TensorRT needs a range length or a
slice bound as a shape tensor, and a value computed from the data is an execution tensor
(the graph check's side: :mod:`trtcodemod.trt.shape_tensors`). TRT714 takes a mask's count
from a shape, TRT715 turns a slice's end into a bool index (both unsafe). What counts as a
value is decided in :mod:`trtcodemod.transforms._size_facts`.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, method_call, parenthesize, short_code, strip_parens
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._size_facts import OPERATORS as _OPERATORS
from trtcodemod.transforms._size_facts import TRT_SHAPE_TENSORS as _TRT_SHAPE_TENSORS
from trtcodemod.transforms._size_facts import NUMBER_AS_TENSOR_FAILURES
from trtcodemod.transforms._size_facts import SizeRule as _SizeRule

# --- TRT714 ------------------------------------------------------------------------------


class ArangeFromValues(_SizeRule):
    needs_text = spelled("torch.arange", "torch.range")
    info = RuleInfo(
        id="TRT714",
        name="arange-from-values",
        summary="`torch.arange(mask.sum())`: a range whose length is computed from tensor values",
        doc="""\
What it finds, in forward code: `torch.arange(...)` (also `torch.range`) whose start,
end or step is a 0-d tensor computed from tensor values: a reduction without a dim
(`cond.sum()`, `x.max()`, `torch.count_nonzero(m)`), its `.long()`/`.int()`/`.clamp(...)`,
arithmetic on it, or a local holding one. Bounds read with `.item()` are TRT702's.

Why it hurts: both exporters keep the bound in the graph (ONNX `ReduceSum` → `Range`,
measured with torch 2.13, and ONNX Runtime gives the right result), but TensorRT
distinguishes shape tensors, computed on the host from shapes and constants, from
execution tensors, computed on the device by the layers. The length of a `Range` sizes
its output, so TensorRT needs the bound as a shape tensor; a sum over the data is an
execution tensor. TensorRT before 8.5 cannot build such a network; from 8.5 it builds a
data-dependent shape: the engine stops to copy the value to the host and sizes every
tensor after it at run time. The graph check (`verify`, `migrate`, `inspect`) reports the
`Range` at this line for the same reason, per target version.

The rewrite (the guidance's recipe), for a range whose bounds from values are all counts of
a tensor's non-zero entries, `m.sum()`, `torch.count_nonzero(m)`, `m.count_nonzero()` (or
their `.long()`/`.int()`, or a local bound to one, `n = m.sum()`, while `m` is neither
rebound nor written through since), a start or step beside them kept: `torch.arange(m.sum())`
→ `torch.arange(m.nonzero().shape[0])`, `torch.arange(0, (x > 0).sum())` →
`torch.arange(0, (x > 0).nonzero().shape[0])`, `n = m.sum()` then `torch.arange(n)` →
`torch.arange(m.nonzero().shape[0])` (the local is kept for its other uses). The count now
comes from the shape of `NonZero`'s output, a shape tensor TensorRT computes itself (8.5 and
later; `NonZero` itself is TRT705's data-dependent shape). Other bounds (`x.max()`,
arithmetic, a local whose mask was rebound since) are reported with the manual step, and so is the sum of counts per group (`c = m.sum(dim=1)`,
`torch.bincount(i)`, then `c.sum()`): its elements are not 0/1. Where the range only
numbers the selected elements (`ids[cond] = torch.arange(cond.sum())`), a fixed-size form
avoids the data-dependent shape altogether: `ids = torch.where(cond, cond.long().cumsum(0)
- 1, ids)` (not applied automatically: it rebinds `ids`, which is wrong when `ids` is an
attribute or a view another object sees).

Fix safety: unsafe. The count of non-zero elements equals the sum only when `m` holds 0
and 1 (a bool mask, or 0/1 integers; `count_nonzero` is that count for any `m`); for a
float `m` the range's dtype also changes (float32 from a float sum, int64 from a count)
unless `dtype=` is given. For a local count, `m` must also not be changed in place by a
method between (`m.zero_()`; a rebinding or `m[i] = v` is seen and the local left), nor
rebound after the range in a loop that reaches the count again. A negative sum raised before and gives an empty range after.
`nonzero` costs more than `sum` in eager mode (it compacts the positions). `migrate` tries
it as a candidate where the graph check locates the `Range`, and keeps it only when the
verification finds the model equivalent. Applies to every TensorRT version (before 8.5
`NonZero` does not parse either: there, use the fixed-size form). Based on TensorRT's
shape-tensor rules; not measured on a TensorRT build here.""",
        fix=Safety.UNSAFE,
        assumption=(
            "`m` holds only 0 and 1 (a bool mask, or 0/1 integers), so its sum is the count of its non-zero entries; "
            "for a local count (`n = m.sum()`), `m` is not changed in place between"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "class Track(nn.Module):\n"
                "    def forward(self, ids, cond):\n"
                "        ids[cond] = torch.arange(cond.sum().long(), dtype=ids.dtype)\n"
                "        return ids\n",
                "class Track(nn.Module):\n"
                "    def forward(self, ids, cond):\n"
                "        ids[cond] = torch.arange(cond.nonzero().shape[0], dtype=ids.dtype)\n"
                "        return ids\n",
                unsafe=True,
            ),
            Example(
                "class Track(nn.Module):\n"
                "    def forward(self, ids, cond):\n"
                "        n = cond.sum()\n"
                "        cond = cond & (ids > 0)\n"
                "        ids[cond] = torch.arange(n, dtype=ids.dtype)\n"
                "        return ids\n"
            ),
        ),
        references=(_TRT_SHAPE_TENSORS, "https://onnx.ai/onnx/operators/onnx__Range.html", _OPERATORS),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or has_star_args(node):
            return
        name = self.context.refers_to(node.func, "torch.arange", "torch.range")
        if name is None:
            return
        bounds = [argument(node, 0, "start"), argument(node, 1, "end"), argument(node, 2, "step")]
        if len([a for a in node.args if a.keyword is None]) == 1:
            bounds = [argument(node, 0, "end"), argument(node, None, "start"), argument(node, None, "step")]
        valued = [b for b in bounds if b is not None and self.is_value(b.value)]
        if not valued:
            return
        counts = [self._count(b.value) if name == "torch.arange" else None for b in valued]
        fix = Fix({b.value: c for b, c in zip(valued, counts)}, safety=Safety.UNSAFE) \
            if all(c is not None for c in counts) else None
        how = ("the count is taken from `nonzero()`'s shape (equal for a 0/1 mask)" if fix else
               "number selected elements with a fixed-size `cumsum` instead, or take the count from a "
               "shape (`m.nonzero().shape[0]`)")
        self.found(node, f"`{short_code(valued[0].value)}` is computed from tensor values: TensorRT needs a "
                   f"range length as a shape tensor; {how}", fix)

    def _count(self, bound: cst.BaseExpression) -> cst.BaseExpression | None:
        """``m.nonzero().shape[0]`` for a bound that counts the non-zero entries of ``m``:
        ``torch.count_nonzero(m)`` or ``m.count_nonzero()`` (always), ``m.sum()`` (for a 0/1 ``m``:
        the fix's assumption; not for counts per group, ``m = x.sum(dim=1)``), their
        ``.long()``/``.int()``, or a local bound to one (``n = m.sum()``) while ``m`` still holds
        what it held then; None for other bounds."""
        call = bound
        parts = method_call(call) if type(call) is cst.Call else None
        if parts is not None and parts[1] in ("long", "int") and not call.args:  # type: ignore[union-attr]
            call = parts[0]
        source = self.value_source(call)
        if source is not None:
            return self._count(source)  # `n = m.sum()` earlier, `m` not rebound or written since
        if type(call) is not cst.Call:
            return None
        if self.context.refers_to(call.func, "torch.count_nonzero"):
            if len(call.args) != 1 or call.args[0].keyword is not None:
                return None
            receiver = call.args[0].value
        else:
            parts = method_call(call)
            if parts is None or call.args or parts[1] not in ("sum", "count_nonzero"):
                return None
            receiver = parts[0]
            if not (self.is_tensor(receiver) or self.is_mask(receiver)):
                return None
            if parts[1] == "sum" and self.is_counts(receiver):
                return None  # a sum of counts is no count of entries
        return cst.Subscript(
            value=cst.Attribute(value=cst.Call(func=cst.Attribute(value=parenthesize(receiver),
                                                                  attr=cst.Name("nonzero"))),
                                attr=cst.Name("shape")),
            slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer("0")))])


# --- TRT715 ------------------------------------------------------------------------------


class SliceFromValues(_SizeRule):
    info = RuleInfo(
        id="TRT715",
        name="slice-from-values",
        summary="`x[:mask.sum()]`: a slice bound computed from tensor values",
        doc="""\
What it finds, in forward code: a slice of a tensor (`x[a:b]`, `x[:, :n]`) whose start,
stop or step is a 0-d tensor computed from tensor values: a reduction without a dim
(`mask.sum()`, `scores.argmax()`), its `.long()`/`.int()`/`.clamp(...)`, arithmetic on it,
or a local holding one. Bounds read with `.item()` (TRT702) or taken from shapes are not
reported.

Why it hurts: both exporters keep the bound in the graph (ONNX `ReduceSum` → `Slice`,
measured with torch 2.13; with `.item()` the TorchScript exporter bakes it instead), but
the bound decides the output's shape, which TensorRT wants as a shape tensor; a value
computed on the device is an execution tensor. Before TensorRT 8.5 the engine does not
build; from 8.5 the slice gets a data-dependent shape (the engine copies the bound to the
host mid-run). The graph check reports the `Slice` at this line, per target version.

The rewrite (the guidance's "slice with a dynamic dim": turn the bound into a bool index),
for `x[:n]` read from a plain name `x`: `x[torch.arange(x.shape[0], device=x.device) < n]`.
The `Range` is sized by a shape, the comparison runs on the device, and the rows are
selected by a mask (`NonZero`, TensorRT's own data-dependent-shape layer, 8.5 and later).
The same on another axis, when every other axis is kept whole: `x[:, :n]` masks axis 1
(`x[:, torch.arange(x.shape[1], device=x.device) < n]`), `x[..., :n]` the last axis, and
whole-axis slices may follow (`x[:n, :]`); a one-dimensional bool index selects along its
own axis only. A start from values is the same range seen from the other end: `x[:, n:]`
becomes `arange(...) >= n`, and `x[a:b]` both tests joined by `&`. Other slices (a step, a
bound written as a negative number, two bounded axes, integers or `None` beside it, an
assignment target) are reported with the manual step: mask at a fixed size
(`x * (torch.arange(x.shape[0]) < n)[:, None]`) or compute the bound outside the model and
pass it in (a shape input of the engine).

Fix safety: unsafe. The same rows only for bounds `>= 0` (a count always is; `x[:-2]`
drops rows where the mask keeps none, `x[-2:]` keeps two where the mask keeps all); a
start's view begins inside `x`'s storage where the copy is aligned, so a later CPU matmul may
round the last bit differently (VALL-E's variant, `tests/transforms/variants/test_recipe_variants_trt715.py`); the result is a copy, not a view of `x` (writes to it no
longer reach `x`, and its strides are contiguous); a float `n` made `x[:n]` raise and
no longer does. `migrate` tries it as a candidate where the graph check locates the
`Slice`, and keeps it only when the verification finds the model equivalent. Based on
TensorRT's shape-tensor rules; not measured on a TensorRT build here.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the bounds are not negative and are integers, and nothing writes through the result to `x` (a copy now,"
            " not a view)"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "class Select(nn.Module):\n"
                "    def forward(self, x, mask):\n"
                "        n = mask.sum()\n"
                "        return x[:n]\n",
                "class Select(nn.Module):\n"
                "    def forward(self, x, mask):\n"
                "        n = mask.sum()\n"
                "        return x[torch.arange(x.shape[0], device=x.device) < n]\n",
                unsafe=True,
            ),
            Example(
                "class Select(nn.Module):\n"
                "    def forward(self, x, scores):\n"
                "        return x[:, : scores.argmax() + 1]\n",
                "class Select(nn.Module):\n"
                "    def forward(self, x, scores):\n"
                "        return x[:, torch.arange(x.shape[1], device=x.device) < scores.argmax() + 1]\n",
                unsafe=True,
            ),
            Example(
                "class Select(nn.Module):\n"
                "    def forward(self, x, scores):\n"
                "        return x[:, : scores.argmax() + 1, : scores.argmin() + 1]\n"
            ),
        ),
        references=(_TRT_SHAPE_TENSORS, "https://onnx.ai/onnx/operators/onnx__Slice.html", _OPERATORS),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._targets: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets.update(id(t.target) for t in node.targets)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets.add(id(node.target))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._frames or not self.active() or not self.is_tensor(node.value):
            return
        for element in node.slice:
            sl = element.slice
            if type(sl) is not cst.Slice:
                continue
            for bound in (sl.lower, sl.upper, sl.step):
                if bound is not None and self.is_value(bound):
                    fix = self._mask_fix(node)
                    how = ("it becomes a bool index (`arange(len) < n`)" if fix else
                           "mask at a fixed size, or turn it into a bool index (`x[torch.arange(x.shape[0]) < n]`)")
                    self.found(node, f"slice bound `{short_code(bound)}` is computed from tensor values: TensorRT "
                               f"needs it as a shape tensor; {how}", fix)
                    return

    def _mask_fix(self, node: cst.Subscript) -> Fix | None:
        """``x[:n]`` → ``x[torch.arange(x.shape[0], device=x.device) < n]``, ``x[n:]`` the same with
        ``>= n``, ``x[a:b]`` both compared and joined by ``&``, on any one axis: after whole-axis
        slices (``x[:, :n]`` masks axis 1) or an ellipsis (``x[..., :n]``, the last axis); None for
        other slices, and for a bound written as a negative number (``x[n:-1]``), which counts from
        the end where the mask would not."""
        if id(node) in self._targets or type(node.value) is not cst.Name:
            return None
        axis = _masked_axis(node.slice)
        if axis is None:
            return None
        sl = node.slice[axis if axis >= 0 else -1].slice
        assert type(sl) is cst.Slice and (sl.lower is not None or sl.upper is not None)
        if any(_negative_literal(b) for b in (sl.lower, sl.upper) if b is not None):
            return None
        x = node.value.value
        arange = f"{self.context.torch_name()}.arange({x}.shape[{axis}], device={x}.device)"
        tests = [_compared(arange, op, bound) for op, bound in ((">=", sl.lower), ("<", sl.upper)) if bound is not None]
        mask: cst.BaseExpression = tests[0] if len(tests) == 1 else cst.BinaryOperation(
            left=parenthesize(tests[0]), operator=cst.BitAnd(), right=parenthesize(tests[1]))
        position = axis if axis >= 0 else len(node.slice) - 1
        elements = list(node.slice)
        elements[position] = elements[position].with_changes(slice=cst.Index(value=mask))
        return Fix({node: node.with_changes(slice=elements)}, safety=Safety.UNSAFE)


def _compared(arange: str, op: str, bound: cst.BaseExpression) -> cst.Comparison:
    """``arange <op> bound``, the bound parenthesized where a comparison would split it."""
    if type(bound) in (cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda, cst.NamedExpr,
                       cst.UnaryOperation):
        bound = parenthesize(bound)
    mask = cst.parse_expression(f"{arange} {op} 0")
    assert isinstance(mask, cst.Comparison)
    return mask.with_changes(comparisons=[mask.comparisons[0].with_changes(comparator=bound)])


def _negative_literal(bound: cst.BaseExpression) -> bool:
    """``-1``, ``-(2)``: a bound that counts from the end."""
    return type(bound) is cst.UnaryOperation and type(bound.operator) is cst.Minus \
        and type(strip_parens(bound.expression)) in (cst.Integer, cst.Float)


def _whole(element: cst.SubscriptElement) -> bool:
    """``:``: a whole axis, kept as it is."""
    sl = element.slice
    return type(sl) is cst.Slice and sl.lower is None and sl.upper is None and sl.step is None


def _masked_axis(elements: Sequence[cst.SubscriptElement]) -> int | None:
    """The axis of the one ``:n`` (``n:``, ``a:b``) slice of ``x[...]`` that a bool index can replace: ``:n`` after
    whole-axis slices (its position; whole-axis slices may follow it), or as the last element after a
    leading ``...`` (-1); ``n:`` and ``a:b`` alike (a contiguous range). A bool index selects along as
    many axes as it has dimensions, one here, so the other axes keep their place; None for any other
    subscript (a step, integers, ``None``, two bounded axes)."""
    def bounded(element: cst.SubscriptElement) -> bool:
        sl = element.slice
        return type(sl) is cst.Slice and sl.step is None and (sl.upper is not None or sl.lower is not None)

    if len(elements) >= 2 and type(elements[0].slice) is cst.Index \
            and type(elements[0].slice.value) is cst.Ellipsis:
        return -1 if len(elements) == 2 and bounded(elements[1]) else None
    kept = [i for i, e in enumerate(elements) if not _whole(e)]
    if len(kept) != 1 or not bounded(elements[kept[0]]):
        return None
    return kept[0]


RULES = (ArangeFromValues, SliceFromValues)
