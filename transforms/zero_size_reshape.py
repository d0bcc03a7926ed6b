"""``x.view(b, g, c, h, w)`` with sizes read at run time (TRT367): a size of 0 is exported as "copy".

The TorchScript exporter writes ``view``/``reshape`` as an ONNX ``Reshape`` whose target is computed in
the graph, with ``allowzero`` left at 0, so a size that is 0 at run time means "the input's size at
this position". The rewrite calls an inserted helper (``trtcodemod/helpers/reshaping.py``) that is
``view``/``reshape`` itself outside an export and, while the TorchScript exporter traces, a reshape
through sizes of at least 1 cut back to the true sizes.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import method_call, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_reshape_sizes"
_METHODS = {"view": False, "reshape": True}
_MESSAGE = ("`{method}` to sizes read at run time exports as a `Reshape` whose 0 means \"copy the input's size\" "
            "(ONNX `allowzero=0`): where a size is 0 (an empty slice), ONNX Runtime and TensorRT copy another "
            "size or refuse the node")


def _literal_int(node: cst.BaseExpression) -> bool:
    if type(node) is cst.Integer:
        return True
    return type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(node.expression) is cst.Integer


def _sizes(call: cst.Call) -> list[cst.BaseExpression] | None:
    """The sizes of ``x.view(a, b, ...)`` or ``x.view((a, b, ...))``, written out one by one; ``None``
    for a single name (a dtype, or a shape held whole), a starred or keyword argument."""
    args = call.args
    if not args or any(a.star or a.keyword is not None for a in args):
        return None
    if len(args) == 1:
        value = args[0].value
        if type(value) not in (cst.Tuple, cst.List) or any(type(e) is not cst.Element for e in value.elements):
            return None
        return [e.value for e in value.elements]
    return [a.value for a in args]


def _written_in_place(function: cst.FunctionDef, name: str) -> bool:
    """Is local ``name`` written in place anywhere in ``function`` (``name[...] = v``, ``name += v``,
    ``name.add_(v)``)? Then it may alias the reshaped tensor's storage, which the export's copy would
    not share."""
    for inner in walk(function.body):
        if type(inner) is cst.Assign:
            for target in inner.targets:
                base = target.target
                while type(base) in (cst.Subscript, cst.Attribute):
                    base = base.value
                if type(base) is cst.Name and base.value == name and base is not target.target:
                    return True
        elif type(inner) is cst.AugAssign:
            base = inner.target
            while type(base) in (cst.Subscript, cst.Attribute):
                base = base.value
            if type(base) is cst.Name and base.value == name:
                return True
        elif type(inner) is cst.Call:
            parts = method_call(inner)
            if parts is not None and type(parts[0]) is cst.Name and parts[0].value == name \
                    and parts[1].endswith("_") and not parts[1].endswith("__"):
                return True
    return False


class ZeroSizeReshape(Rule):
    needs_text = (b"view", b"reshape")
    info = RuleInfo(
        id="TRT367",
        name="zero-size-reshape",
        summary="`x.view(b, g, c, h, w)` with sizes read at run time exports a Reshape whose 0 means \"copy\" "
                "(TorchScript exporter): an axis that is empty at run time gets another's size or the graph "
                "fails; reshape through sizes of at least 1 while exporting",
        doc="""\
What it finds: `x.view(...)` and `x.reshape(...)` (sizes one by one or as one tuple or list literal)
where some size is not an integer literal: a size read from a tensor at run time. Opt-in: most such
reshapes never meet an empty axis, and `migrate` applies the fix only at a line where the exported
graph fails to run. Real model code meets an empty axis in cost volumes built over a disparity range
wider than the feature map: stereo_matching 0.2.0's IGEV++ (`_igevpp_groupwise_correlation`, called
with `refimg_fea[:, :, :, idx:]` for every `idx` below the maximum disparity) reads
`batch, channels, height, width = fea1.shape` and views the product as `(batch, num_groups,
channels // num_groups, height, width)`, and `width` is 0 wherever `idx` passes the width. GwcNet's and
FoundationStereo's volumes do the same; kornia's illumination ramps view `.view(1, 1, height, 1)` over an
image of no rows, and BART's cross-attention views its weights as `(bsz, heads, tgt_len, src_len)` over a
memory of no tokens.

Why it hurts: the TorchScript exporter writes the call as an ONNX `Reshape` fed by the sizes it
computed in the graph, with `allowzero` at its default 0, which makes a 0 in the target mean "copy
the input's size at this position". Where the size is 0 at run time, ONNX Runtime copies the size of
whatever axis stands at that position, or, past the input's rank, refuses the node ("The dimension
with value zero exceeds the dimension size of the input tensor"); TensorRT reads the 0 as a
placeholder the same way. Eager mode makes an empty tensor of the asked shape. The graph traced at an
example where no size is 0 has no constant to show it: it fails only at other sizes.

The rewrite: `(fea1 * fea2).view(batch, g, c, height, width)` → `_trt_reshape_sizes(fea1 * fea2,
[batch, g, c, height, width], False)` (`True` for `reshape`), an inserted helper. Outside a
TorchScript export it is the call itself (`view` keeps sharing the storage). While the exporter
traces, it runs the call (so a count that does not match raises as before, and the exporter drops its
nodes), then flattens the input, appends the zeros that sizes raised to at least 1 need beyond the
true count (none unless a size is 0), reshapes to the raised sizes (no 0, so nothing is copied) and
cuts each axis back to its size with a `Slice`. A `-1` is resolved from the traced element count.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile`, `torch.export` and the
dynamo exporter run the call itself. While the TorchScript exporter traces, the result holds the
same values in the same shape, empty where a size is 0. It is a new tensor in the graph, not a view:
the rule leaves a call alone where its result is bound to a name that the function writes in place
(`y[...] = v`, `y += v`, `y.add_(v)`), since a write through a view reaches the viewed tensor.

In `migrate`: a graph that fails to run at another size is placed at the line of the `Reshape` node
ONNX Runtime refuses, and this rule's finding there is planned for it, applied and verified on every
input set.

TensorRT versions: all (the `Reshape` target's 0 is read as "copy" by every parser).""",
        fix=Safety.SAFE,
        opt_in=True,
        examples=(
            Example(
                "def groupwise_correlation(fea1, fea2, num_groups):\n"
                "    batch, channels, height, width = fea1.shape\n"
                "    cost = (fea1 * fea2).view(batch, num_groups, channels // num_groups, height, width)\n"
                "    return cost.mean(dim=2)\n",
                "def groupwise_correlation(fea1, fea2, num_groups):\n"
                "    batch, channels, height, width = fea1.shape\n"
                "    cost = _trt_reshape_sizes(fea1 * fea2, [batch, num_groups, channels // num_groups, height, width], False)\n"
                "    return cost.mean(dim=2)\n",
            ),
            Example("y = x.reshape((b, -1, x.shape[-1]))\n",
                    "y = _trt_reshape_sizes(x, [b, -1, x.shape[-1]], True)\n"),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Reshape.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        parts = method_call(node)
        if parts is None or parts[1] not in _METHODS:
            return
        receiver, method = parts
        if type(receiver) is cst.Name and receiver.value == "torch":
            return
        sizes = _sizes(node)
        if sizes is None or all(_literal_int(size) for size in sizes):
            return
        if self._result_written_in_place(node):
            return
        if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp):
            receiver = receiver.with_changes(lpar=[], rpar=[])
        size_list = cst.List([cst.Element(size.with_changes(lpar=[], rpar=[]) if type(size) is not cst.Tuple else size)
                              for size in sizes])
        replacement = node.with_changes(func=cst.Name(HELPER), args=[
            cst.Arg(value=receiver), cst.Arg(value=size_list),
            cst.Arg(value=cst.Name("True" if _METHODS[method] else "False"))])
        self.report(node, _MESSAGE.format(method=method)
                    + f"; `{HELPER}` reshapes through sizes of at least 1 while exporting (the call otherwise)",
                    Fix({node: replacement}, helpers=(HELPER,)))

    def _result_written_in_place(self, node: cst.Call) -> bool:
        function = self.context.function
        if function is None:
            return False
        for inner in walk(function.body):
            if type(inner) is cst.Assign and inner.value is node:
                names = [t.target.value for t in inner.targets if type(t.target) is cst.Name]
                return any(_written_in_place(function, name) for name in names)
        return False


RULES = (ZeroSizeReshape,)
