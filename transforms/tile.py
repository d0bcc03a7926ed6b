"""``torch.tile(x, dims)`` / ``x.tile(...)`` → ``_trt_tile(x, [...])`` (TRT407): a ``repeat`` of a
known rank while exporting, instead of the exporter's ``If`` nodes on the ranks.

The counts must be written out (a list or tuple display, a list comprehension, or the method's
positional counts), so that the helper receives a list (``torch.jit.script`` types it
``List[int]``); counts held in a name (a tuple or a list, or an int for the method) are reported without a fix.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, helper_call, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_tile"

_MESSAGE = ("the TorchScript exporter writes `tile` with two `If` nodes on the tensor's rank, whose output has no "
            "static shape: later operators lose their sizes (instance_norm/batch_norm fail to export \"for unknown "
            "channel size\") and TensorRT gets conditional layers")


class TileStaticRank(Rule):
    needs_text = (b"tile",)
    info = RuleInfo(
        id="TRT407",
        name="tile-static-rank",
        summary="`tile` exports as `If` nodes on the rank, which erase the static shape downstream; "
        "repeat with the counts padded to the rank",
        doc="""\
What it finds: `torch.tile(x, dims)` and the method `x.tile(...)` with the counts written out:
`x.tile(2)`, `x.tile(1, n)`, `x.tile((2, 1))`, `torch.tile(x, [1, k])`, `dims=` by keyword, and
a list comprehension (`x.tile([a // b for a, b in zip(p.shape, x.shape)])`, SAM 2's window embedding).
Counts held in a name (`x.tile(reps)`: a tuple, a list, or for the method an int) and unpacked
arguments are reported without a fix.

Why it hurts: the TorchScript exporter writes `tile` (opset 13 and later) with two `If` nodes
that compare the tensor's rank with the number of counts while the graph runs (pad the counts
with ones, or the shape with ones). An `If` output has no static shape, so every value computed
from the result loses its rank and sizes in the exporter's shape inference, through any number
of later operators: an operator whose symbolic needs a size then stops the export
(`InstanceNorm2d` after the rotary-embedding `angles.tile(2)` of a ViT: "Unsupported: ONNX export
of instance_norm for unknown channel size", batch_norm the same, transpose "of unknown rank"),
and TensorRT builds conditional layers for a decision that never changes.

The rewrite: `angles.tile(2)` → `_trt_tile(angles, [2])`, an inserted helper that is
`torch.tile` itself outside `torch.onnx.export` and, while exporting, `x.repeat(counts)` with the
counts padded with leading ones to the tensor's rank (a Python int at trace time): `Expand` and
`Tile` of a known rank, the shape inference intact.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `torch.tile` itself (a Python call and two flag checks more). While
exporting, `torch.tile` is defined as that padded `repeat` (more counts than axes: `repeat`
adds the leading axes, as `tile` does): the same values, shape, dtype and a new contiguous
tensor; an object that is not a tensor keeps `torch.tile` and its error.

TensorRT versions: all (the `If` nodes are a conditional layer in every version, and the export
that loses the shapes fails before TensorRT).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Rope(nn.Module):\n"
                "    def forward(self, coords):\n"
                "        angles = (coords[:, :, None] * self.inv_freq).flatten(1, 2)\n"
                "        angles = angles.tile(2)\n"
                "        return torch.cos(angles), torch.sin(angles)\n",
                "class Rope(nn.Module):\n"
                "    def forward(self, coords):\n"
                "        angles = (coords[:, :, None] * self.inv_freq).flatten(1, 2)\n"
                "        angles = _trt_tile(angles, [2])\n"
                "        return torch.cos(angles), torch.sin(angles)\n",
            ),
            Example("grid = torch.tile(base, (b, 1, 1))\n", "grid = _trt_tile(base, [b, 1, 1])\n"),
            Example("tiled = x.tile(self.reps)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.tile.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.repeat.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        receiver = tensor_method_receiver(self, node, ("tile",))
        if self.context.refers_to(node.func, "torch.tile"):
            tensor = argument(node, 0, "input")
            counts = _counts(node, 1)
        elif receiver is not None:
            tensor = cst.Arg(value=receiver)
            counts = _counts(node, 0)
        else:
            return
        if tensor is None or counts is None:
            self.report(node, f"`{short_code(node)}`: {_MESSAGE}; repeat with the counts padded to the rank "
                              "(not rewritten: the counts are not written out, or other arguments)")
            return
        value = tensor.value
        if value.lpar and type(value) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            value = value.with_changes(lpar=[], rpar=[])  # `(a + b).tile(2)`: an argument needs none
        self.report(node, f"`{short_code(node)}`: {_MESSAGE}; `{HELPER}` repeats with the counts padded to the "
                          "rank while exporting (`torch.tile` otherwise)",
                    Fix({node: helper_call(HELPER, value, counts)}, helpers=(HELPER,)))


def _counts(call: cst.Call, first: int) -> cst.List | cst.ListComp | None:
    """The counts of ``call`` as a list display (or the list comprehension written there), or None
    when they are not written out.

    ``first`` is the position of the counts (1 for ``torch.tile(x, dims)``, 0 for the method,
    whose positional arguments are each a count unless there is exactly one display or
    comprehension)."""
    if has_star_args(call):
        return None
    allowed = {"dims"} | ({"input"} if first else set())
    if any(a.keyword is not None and a.keyword.value not in allowed for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None][first:]
    keyword = argument(call, None, "dims")
    if keyword is not None:
        if positional:
            return None
        return _counts_value(keyword.value)
    if not positional:
        return None
    if len(positional) == 1:
        single = positional[0].value
        if type(single) in (cst.Tuple, cst.List, cst.ListComp):
            return _counts_value(single)
        if first or type(single) is not cst.Integer:
            return None  # torch.tile takes a sequence; a name may hold an int or a tuple
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.List(elements=[cst.Element(value=a.value, comma=comma) for a in positional[:-1]]
                    + [cst.Element(value=positional[-1].value)])


def _counts_value(node: cst.BaseExpression) -> cst.List | cst.ListComp | None:
    """A list comprehension as written (it makes a list: ``List[int]`` for the helper in scripted
    code too), else the display as a list display."""
    if type(node) is cst.ListComp:
        return node
    return _display(node)


def _display(node: cst.BaseExpression) -> cst.List | None:
    """A tuple or list display of counts as a list display (no unpacking), else None."""
    if type(node) not in (cst.Tuple, cst.List) or not node.elements:
        return None
    if any(isinstance(e, cst.StarredElement) for e in node.elements):
        return None
    elements = [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for e in node.elements[:-1]]
    elements.append(node.elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT))
    return cst.List(elements=elements)


RULES = (TileStaticRank,)
