"""A loop nest writing a value into slices whose bounds are read per element (TRT735).

``for b in range(x.size(0)): for t in range(x.size(2)): x[b, :lo[b, t], t] = v`` (torchcrepe's weighted argmax
masks everything outside a window around each frame's peak this way): a trace unrolls both loops with the
example's sizes and reads every bound into a Python int, so the graph holds one write per element of the
example, with its bounds as constants. The rewrite fills the same positions at once:
``x.masked_fill_(_trt_slice_bound_mask(x, 1, [0, 2], [x.size(0), x.size(2)], None, lo), v)``.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, int_value, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_slice_bound_mask"


def _axis_range(loop: cst.For) -> tuple[str, cst.BaseExpression, tuple[str, cst.BaseExpression] | None] | None:
    """``for v in range(n)``: (v, n, None); ``for i, v in enumerate(seq)``: (i, the length of ``seq``, (v, seq)),
    ``v`` being ``seq[i]`` (CheXbert's ``for idx, src_len in enumerate(source_lengths): masks[idx, src_len:] =
    0``). The length is ``torch.as_tensor(seq).size(0)``: a list's length, or a tensor's first axis as a trace
    keeps it (``len`` of a traced tensor is a constant)."""
    if loop.orelse is not None or loop.asynchronous is not None:
        return None
    it = loop.iter
    if type(it) is not cst.Call or type(it.func) is not cst.Name or len(it.args) != 1 \
            or it.args[0].keyword is not None or it.args[0].star:
        return None
    if it.func.value == "range" and type(loop.target) is cst.Name:
        return loop.target.value, it.args[0].value, None
    target = loop.target
    if it.func.value != "enumerate" or type(target) is not cst.Tuple or len(target.elements) != 2 \
            or any(type(e) is not cst.Element or type(e.value) is not cst.Name for e in target.elements):
        return None
    index, value = (e.value.value for e in target.elements)  # type: ignore[attr-defined]
    sequence = it.args[0].value
    if any(type(n) not in (cst.Name, cst.Attribute, cst.Dot) for n in walk(sequence)):
        return None  # read twice by the rewrite (its length and its elements): a name or an attribute only
    if index == value or any(type(n) is cst.Name and n.value in (index, value) for n in walk(sequence)):
        return None
    length = cst.parse_expression(f"torch.as_tensor({code_of(sequence)}).size(0)")
    return index, length, (value, sequence)


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

    def __init__(self, axis: int, axes: dict[str, int], start: cst.BaseExpression | None,
                 stop: cst.BaseExpression | None, value: cst.BaseExpression) -> None:
        self.axis, self.axes, self.start, self.stop, self.value = axis, axes, start, stop, value


def _bound(node: cst.BaseExpression | None, axes: dict[str, int],
           aliases: dict[str, tuple[str, cst.BaseExpression]]) -> tuple[cst.BaseExpression | None, list[int]] | None:
    """``lo[b, t]`` (a tensor indexed by every loop variable, each once): (``lo``, the variables' axes in that
    order); an ``enumerate`` loop's value ``v`` (``seq[i]``) where that loop is the only one: (``seq``, [i's
    axis]); (None, []) for an open end; None for anything else."""
    if node is None:
        return None, []
    if type(node) is cst.Name and node.value in aliases:
        index, sequence = aliases[node.value]
        return (sequence, [axes[index]]) if list(axes) == [index] else None
    if type(node) is not cst.Subscript or any(type(e.slice) is not cst.Index for e in node.slice):
        return None
    names = [e.slice.value for e in node.slice]  # type: ignore[union-attr]
    if any(type(n) is not cst.Name or n.value not in axes for n in names):
        return None
    order = [axes[n.value] for n in names]  # type: ignore[union-attr]
    if len(set(order)) != len(axes) or len(order) != len(axes):
        return None
    base = node.value
    if any(type(n) is cst.Name and (n.value in axes or n.value in aliases) for n in walk(base)):
        return None
    return base, order


def _write(statement: cst.CSTNode, target: str, axes: dict[str, int],
           aliases: dict[str, tuple[str, cst.BaseExpression]]) -> _Write | None:
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
    lower, upper = _bound(part.lower, axes, aliases), _bound(part.upper, axes, aliases)
    if lower is None or upper is None:
        return None
    if any(bound is not None and target in code_of(bound) for bound in (lower[0], upper[0])):
        return None  # bounds read from the tensor the loops write: each write may move the next bound
    orders = [order for bound, order in (lower, upper) if bound is not None]
    if any(order != sorted(order) for order in orders):
        return None  # the helper places a bound's axes on x's in their order
    return _Write(axis, axes, lower[0], upper[0], assign.value)


class SliceBoundFill(Rule):
    needs_text = (b"range", b"enumerate")
    info = RuleInfo(
        id="TRT735",
        name="slice-bound-fill",
        summary="a loop nest over a tensor's axes writing a value into slices with per-element bounds "
                "(`x[b, :lo[b, t], t] = v`): tracing unrolls it and bakes every bound; fill a mask of the same "
                "positions at once",
        doc="""\
What it finds: a nest of `for ... in range(n)` loops whose body only writes a value the code spells out (a
number, `float('inf')`, `-math.inf`, a bool) into one tensor, indexed by every loop variable at an axis of its own
and by a slice of one more axis whose bounds are read from tensors at the loop variables (`x[b, :lo[b, t], t] =
-float('inf')`, `x[b, hi[b, t]:, t] = 0`). torchcrepe's `weighted_argmax` masks the pitch bins outside a window
around each frame's peak this way; padding masks written row by row from lengths (`for i in range(batch_size):
mask[i, :lengths[i]] = 1`, in FastSpeech-style variance adaptors, CRF taggers and collators) are the same
construct. A loop `for i, v in enumerate(seq)` is read as `for i in range(len(seq))` with `v` as `seq[i]`
(CheXbert's `for idx, src_len in enumerate(source_lengths): masks[idx, src_len:] = 0`), `seq` being a name or
an attribute, where it is the nest's only loop.

Why it hurts: a traced export (`torch.onnx.export(..., dynamo=False)`) unrolls the loops with the example's
sizes and reads each bound into a Python int (`__index__`): the graph holds one ScatterND per element of the
example with its bounds as constants, wrong at any other size or data and huge (zoo 62's torchcrepe: 60305
nodes from one line at 32001 samples). In eager mode the loop is also slow (one kernel launch per element).

The rewrite: each write becomes `x.masked_fill_(_trt_slice_bound_mask(x, axis, looped_axes, counts, start,
stop), value)`, in the nest's order, `counts` being the loops' `range` arguments. The helper compares an `arange`
of the sliced axis with the bounds placed on the looped axes (the first `count` elements of each, as the loops
read them; indices past a count are left alone, as the loops leave them), with Python's slice rules: a negative
bound counts from the end, and bounds are clamped to the axis. The same positions are written in place, so
values, dtype, strides and aliasing are the original's; every write is of one value, so their order does not
matter.

Fix safety: unsafe. It assumes the bounds are integer tensors with at least the counts' elements, that the
counts do not exceed the axes they index (the loops raise an `IndexError` there, the mask does not), and that
the value fits the tensor's dtype (a value that does not fit raises even where the loops would not have run). Under `torch.jit.script` the helper compiles. `migrate` keeps the fix
where the rewritten model is equivalent on every observed input set.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption="the bounds are integer tensors with at least the loops' counts of elements, the counts do not "
                   "exceed their axes, and the value fits the tensor's dtype",
        fails_when=("a bound tensor shorter than a count: the loops raise IndexError, the mask a shape error",
                    "a count beyond its axis: the loops raise IndexError, the mask fills the whole axis",
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
                "    logits.masked_fill_(_trt_slice_bound_mask(logits, 1, [0, 2], [logits.size(0), logits.size(2)], "
                "None, start), -float('inf'))\n"
                "    return logits\n",
                unsafe=True,
            ),
            Example(
                "def mask_from_lengths(lengths, mask):\n"
                "    batch_size = lengths.size(0)\n"
                "    for i in range(batch_size):\n"
                "        mask[i, :lengths[i]] = 1\n"
                "    return mask\n",
                "def mask_from_lengths(lengths, mask):\n"
                "    batch_size = lengths.size(0)\n"
                "    mask.masked_fill_(_trt_slice_bound_mask(mask, 1, [0], [batch_size], None, lengths), 1)\n"
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
        target, writes, counts = found
        statements: list[cst.SimpleStatementLine] = []
        for write in writes:
            # The loop variables in the order of their axes, with their counts.
            ordered = sorted(counts, key=lambda name: write.axes[name])
            args = [cst.parse_expression(target), cst.Integer(str(write.axis)),
                    cst.parse_expression("[" + ", ".join(str(write.axes[n]) for n in ordered) + "]"),
                    cst.parse_expression("[" + ", ".join(code_of(counts[n]) for n in ordered) + "]"),
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
                   "fills them at once (unsafe: assumes integer bounds with the loops' counts of elements)")
        self.report(node, message, Fix({node: cst.FlattenSentinel(statements)}, safety=Safety.UNSAFE,
                                       helpers=(HELPER,)))
        return False

    def _nest(self, node: cst.For) -> tuple[str, list[_Write], dict[str, cst.BaseExpression]] | None:
        """The tensor, its writes and each loop variable's count, where ``node`` is such a nest."""
        counts: dict[str, cst.BaseExpression] = {}
        aliases: dict[str, tuple[str, cst.BaseExpression]] = {}  # an enumerate's value: (its index, the sequence)
        loop: cst.CSTNode = node
        while type(loop) is cst.For:
            found = _axis_range(loop)
            if found is None or found[0] in counts or found[0] in aliases \
                    or (found[2] is not None and found[2][0] in set(counts) | set(aliases)):
                return None
            counts[found[0]] = found[1]
            if found[2] is not None:
                aliases[found[2][0]] = (found[0], found[2][1])
            body = loop.body.body
            if len(body) == 1 and type(body[0]) is cst.For:
                loop = body[0]
                continue
            first = body[0] if body else None
            target = _written(first)
            if target is None:
                return None
            axes = _loop_axes(first, counts)
            names = set(counts) | set(aliases)
            if axes is None or any(n.value in names for c in counts.values() for n in walk(c) if type(n) is cst.Name):
                return None
            writes = [_write(statement, target, axes, aliases) for statement in body]
            if any(w is None for w in writes):
                return None
            return target, writes, counts  # type: ignore[return-value]
        return None


def _written(statement: cst.CSTNode | None) -> str | None:
    """The code of the tensor ``statement`` (``x[...] = v``) writes into."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Subscript:
        return None
    return code_of(assign.targets[0].target.value)  # type: ignore[attr-defined]


def _loop_axes(statement: cst.CSTNode, counts: dict[str, cst.BaseExpression]) -> dict[str, int] | None:
    """Each loop variable's axis: where the write's subscript holds it."""
    subscript = statement.body[0].targets[0].target  # type: ignore[attr-defined]
    axes = {element.slice.value.value: position for position, element in enumerate(subscript.slice)
            if type(element.slice) is cst.Index and type(element.slice.value) is cst.Name
            and element.slice.value.value in counts}
    return axes if set(axes) == set(counts) else None


RULES = (SliceBoundFill,)
