"""A loop nest writing a value into slices whose bounds are read per element (TRT735).

``for b in range(x.size(0)): for t in range(x.size(2)): x[b, :lo[b, t], t] = v`` (torchcrepe's weighted argmax
masks everything outside a window around each frame's peak this way): a trace unrolls both loops with the
example's sizes and reads every bound into a Python int, so the graph holds one write per element of the
example, with its bounds as constants. The rewrite fills the same positions at once:
``x.masked_fill_(_trt_slice_bound_mask(x, 1, [0, 2], None, lo), v)``.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, int_value, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_slice_bound_mask"


def _axis_range(loop: cst.For) -> tuple[str, str, int] | None:
    """``for v in range(x.size(a))`` / ``range(x.shape[a])`` / ``range(len(x))``: (v, the code of x, a)."""
    if type(loop.target) is not cst.Name or loop.orelse is not None or loop.asynchronous is not None:
        return None
    it = loop.iter
    if type(it) is not cst.Call or type(it.func) is not cst.Name or it.func.value != "range" or len(it.args) != 1:
        return None
    bound = it.args[0].value
    if type(bound) is cst.Call and type(bound.func) is cst.Name and bound.func.value == "len" and len(bound.args) == 1:
        return loop.target.value, code_of(bound.args[0].value), 0
    if type(bound) is cst.Call and type(bound.func) is cst.Attribute and bound.func.attr.value == "size" \
            and len(bound.args) == 1 and int_value(bound.args[0].value) is not None:
        return loop.target.value, code_of(bound.func.value), int_value(bound.args[0].value)  # type: ignore[return-value]
    if type(bound) is cst.Subscript and type(bound.value) is cst.Attribute and bound.value.attr.value == "shape" \
            and len(bound.slice) == 1 and type(bound.slice[0].slice) is cst.Index:
        axis = int_value(bound.slice[0].slice.value)
        if axis is not None:
            return loop.target.value, code_of(bound.value.value), axis
    return None


def _fill_value(node: cst.BaseExpression) -> bool:
    """A number the code spells out: a literal, ``float('inf')``, ``math.inf``, a sign before one of those."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    if type(node) in (cst.Integer, cst.Float):
        return True
    if type(node) is cst.Name and node.value in ("True", "False"):
        return True
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "float" and len(node.args) == 1 \
            and type(node.args[0].value) is cst.SimpleString:
        return True
    return type(node) is cst.Attribute and code_of(node) in ("math.inf", "torch.inf", "np.inf", "numpy.inf")


class _Write:
    """One ``x[...] = v`` of the nest, understood: the sliced axis, the looped axes in the bounds' order, the
    bound tensors (None for an open end) and the value."""

    def __init__(self, axis: int, looped: list[int], start: cst.BaseExpression | None,
                 stop: cst.BaseExpression | None, value: cst.BaseExpression) -> None:
        self.axis, self.looped, self.start, self.stop, self.value = axis, looped, start, stop, value


def _bound(node: cst.BaseExpression | None, axes: dict[str, int]) -> tuple[cst.BaseExpression | None, list[int]] | None:
    """``lo[b, t]`` (a tensor indexed by every loop variable, each once): (``lo``, the variables' axes in that
    order); (None, []) for an open end; None for anything else."""
    if node is None:
        return None, []
    if type(node) is not cst.Subscript or any(type(e.slice) is not cst.Index for e in node.slice):
        return None
    names = [e.slice.value for e in node.slice]  # type: ignore[union-attr]
    if any(type(n) is not cst.Name or n.value not in axes for n in names):
        return None
    order = [axes[n.value] for n in names]  # type: ignore[union-attr]
    if len(set(order)) != len(axes) or len(order) != len(axes):
        return None
    base = node.value
    if any(type(n) is cst.Name and n.value in axes for n in walk(base)):
        return None
    return base, order


def _write(statement: cst.CSTNode, target: str, axes: dict[str, int]) -> _Write | None:
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1 or not _fill_value(assign.value):
        return None
    subscript = assign.targets[0].target
    if type(subscript) is not cst.Subscript or code_of(subscript.value) != target:
        return None
    sliced: tuple[int, cst.Slice] | None = None
    for position, element in enumerate(subscript.slice):
        part = element.slice
        if type(part) is cst.Slice:
            if part.step is not None:
                return None
            if part.lower is None and part.upper is None:
                continue  # a whole axis
            if sliced is not None:
                return None
            sliced = (position, part)
        elif type(part) is cst.Index and type(part.value) is cst.Name and axes.get(part.value.value) == position:
            continue  # a loop variable at the axis it ranges over
        else:
            return None
    if sliced is None or sum(type(e.slice) is cst.Index for e in subscript.slice) != len(axes):
        return None
    axis, part = sliced
    lower, upper = _bound(part.lower, axes), _bound(part.upper, axes)
    if lower is None or upper is None:
        return None
    orders = [order for bound, order in (lower, upper) if bound is not None]
    if any(order != sorted(order) for order in orders):
        return None  # the helper places a bound's axes on x's in their order
    return _Write(axis, sorted(axes.values()), lower[0], upper[0], assign.value)


class SliceBoundFill(Rule):
    needs_text = (b"range",)
    info = RuleInfo(
        id="TRT735",
        name="slice-bound-fill",
        summary="a loop nest over a tensor's axes writing a value into slices with per-element bounds "
                "(`x[b, :lo[b, t], t] = v`): tracing unrolls it and bakes every bound; fill a mask of the same "
                "positions at once",
        doc="""\
What it finds: a nest of `for` loops, each over a whole axis of one tensor (`for b in range(x.size(0))`,
`range(x.shape[2])`, `range(len(x))`), whose body only writes a value the code spells out (a number,
`float('inf')`, `-math.inf`, a bool) into that tensor at the loop variables, each at the axis it ranges over,
and a slice of one more axis whose bounds are read from tensors at the loop variables (`x[b, :lo[b, t], t] =
-float('inf')`, `x[b, hi[b, t]:, t] = 0`). torchcrepe's `weighted_argmax` masks the pitch bins outside a window
around each frame's peak this way; padding masks written row by row from lengths (`for i in
range(mask.size(0)): mask[i, lengths[i]:] = 0`) are the same construct.

Why it hurts: a traced export (`torch.onnx.export(..., dynamo=False)`) unrolls the loops with the example's
sizes and reads each bound into a Python int (`__index__`): the graph holds one ScatterND per element of the
example with its bounds as constants, wrong at any other size or data and huge (zoo 62's torchcrepe: 60305
nodes from one line at 32001 samples). In eager mode the loop is also slow (one kernel launch per element).

The rewrite: each write becomes `x.masked_fill_(_trt_slice_bound_mask(x, axis, looped_axes, start, stop),
value)`, in the nest's order. The helper compares an `arange` of the sliced axis with the bounds placed on the
looped axes (the first `x.shape[a]` elements, as the loops read them), with Python's slice rules: a negative
bound counts from the end, and bounds are clamped to the axis. The same positions are written in place, so
values, dtype, strides and aliasing are the original's; every write is of one value, so their order does not
matter.

Fix safety: unsafe. It assumes the bounds are integer tensors (or nested lists of ints) with at least the
looped extents, and that the value fits the tensor's dtype: where a bound is missing an element the loops
raise an `IndexError` and the mask a shape error, and a value that does not fit raises even where the loops
would not have run (an empty axis). Under `torch.jit.script` the helper compiles. `migrate` keeps the fix
where the rewritten model is equivalent on every observed input set.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption="the bounds are integer tensors with at least the looped extents, and the value fits the "
                   "tensor's dtype",
        fails_when=("a bound tensor shorter than a looped axis: the loops raise IndexError, the mask a shape error",
                    "a value the dtype cannot hold, with an empty looped axis: the loops write nothing, the fill "
                    "raises"),
        examples=(
            Example(
                "def weighted_argmax(logits):\n"
                "    bins = logits.argmax(dim=1)\n"
                "    start = torch.clamp(bins - 4, min=0)\n"
                "    for batch in range(logits.size(0)):\n"
                "        for time in range(logits.size(2)):\n"
                "            logits[batch, :start[batch, time], time] = -float('inf')\n"
                "    return logits\n",
                "def weighted_argmax(logits):\n"
                "    bins = logits.argmax(dim=1)\n"
                "    start = torch.clamp(bins - 4, min=0)\n"
                "    logits.masked_fill_(_trt_slice_bound_mask(logits, 1, [0, 2], None, start), -float('inf'))\n"
                "    return logits\n",
                unsafe=True,
            ),
            Example(
                "def padding_mask(mask, lengths):\n"
                "    for i in range(mask.size(0)):\n"
                "        mask[i, lengths[i]:] = 0\n"
                "    return mask\n",
                "def padding_mask(mask, lengths):\n"
                "    mask.masked_fill_(_trt_slice_bound_mask(mask, 1, [0], lengths, None), 0)\n"
                "    return mask\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.masked_fill_.html",
            "https://github.com/maxrmorrison/torchcrepe/blob/master/torchcrepe/decode.py",
        ),
    )

    def visit_For(self, node: cst.For) -> bool | None:
        if in_inserted_helper(self) or self.context.function is None:
            return None
        found = self._nest(node)
        if found is None:
            return None
        target, writes = found
        statements: list[cst.SimpleStatementLine] = []
        for write in writes:
            args = [cst.parse_expression(target), cst.Integer(str(write.axis)),
                    cst.parse_expression("[" + ", ".join(str(a) for a in write.looped) + "]"),
                    write.start if write.start is not None else cst.Name("None"),
                    write.stop if write.stop is not None else cst.Name("None")]
            mask = cst.Call(func=cst.Name(HELPER), args=[
                cst.Arg(value=a, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]
            ] + [cst.Arg(value=args[-1])])
            call = cst.Call(func=cst.Attribute(value=cst.parse_expression(target), attr=cst.Name("masked_fill_")),
                            args=[cst.Arg(value=mask, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                  cst.Arg(value=write.value)])
            statements.append(cst.SimpleStatementLine(body=[cst.Expr(value=call)]))
        statements[0] = statements[0].with_changes(leading_lines=node.leading_lines)
        message = (f"the loops write into slices of `{target}` whose bounds they read element by element: a trace "
                   "unrolls them with the example's sizes and bakes every bound; a mask of the same positions "
                   "fills them at once (unsafe: assumes integer bounds with the looped extents)")
        self.report(node, message, Fix({node: cst.FlattenSentinel(statements)}, safety=Safety.UNSAFE,
                                       helpers=(HELPER,)))
        return False

    def _nest(self, node: cst.For) -> tuple[str, list[_Write]] | None:
        """The tensor and its writes, where ``node`` is such a nest."""
        axes: dict[str, int] = {}
        target: str | None = None
        loop: cst.CSTNode = node
        while type(loop) is cst.For:
            found = _axis_range(loop)
            if found is None or found[0] in axes or (target is not None and found[1] != target):
                return None
            name, target, axis = found
            if axis in axes.values():
                return None
            axes[name] = axis
            body = loop.body.body
            if len(body) == 1 and type(body[0]) is cst.For:
                loop = body[0]
                continue
            writes = [_write(statement, target, axes) for statement in body]
            if not writes or any(w is None for w in writes):
                return None
            return target, writes  # type: ignore[return-value]
        return None


RULES = (SliceBoundFill,)
