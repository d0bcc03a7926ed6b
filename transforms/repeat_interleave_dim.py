"""``repeat_interleave`` along a negative axis (TRT373): the TorchScript export rewrites a shared constant.

``z.repeat_interleave(stride, dim=-1)`` (also ``torch.repeat_interleave(z, stride, dim=-1)``, the axis passed by
position, or held in a name or attribute that may be negative) exports through a symbolic that adds the input's
rank to the axis constant in place. The trace holds one ``Constant`` per value, so every other ``-1`` of the graph
(a ``reshape(b, c, -1)``, a ``cat(..., dim=-1)``) is then the rank minus one: ONNX Runtime refuses a node far from the
``repeat_interleave`` (snac's ``Reshape`` in its snake activation, its rotary ``Concat``) or the graph computes other
values. The rewrite passes the axis through an inserted helper (``trtcodemod/helpers/interleave.py``) that is the
axis itself outside an export and, while exporting, the same axis counted from the front.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args, helper_call, int_value, plain_read
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_export_dim"
CALL_HELPER = "_trt_repeat_interleave"
_FUNCTION = ("torch.repeat_interleave",)


class RepeatInterleaveDim(Rule):
    needs_text = spelled("repeat_interleave")
    info = RuleInfo(
        id="TRT373",
        name="repeat-interleave-dim",
        summary="`x.repeat_interleave(n, dim=-1)`: the TorchScript exporter adds the rank to the axis constant in "
                "place, and every other use of that constant in the graph (a `reshape(b, c, -1)`, a `cat(dim=-1)`) "
                "changes with it; pass the axis counted from the front while exporting",
        doc="""\
What it finds (opt-in: whether the graph uses the same constant elsewhere is not in the text; `migrate` applies it
where its line ran and the exported graph fails to run or computes other values than the model, at any line):
`x.repeat_interleave(repeats, dim=d)` and `torch.repeat_interleave(x, repeats, dim=d)` (the axis by keyword or by
position) where `d` is a negative integer literal or a name, attribute or other expression that may hold a
negative axis, and `x` is a plain read (a name, an attribute, a subscript by literals) that can be evaluated
again. snac 1.2.1's vector quantizer writes `z_q = z_q.repeat_interleave(self.stride, dim=-1)` (`snac/vq.py`);
timm's DINOv3 rotary embedding `angles = angles.repeat_interleave(2, dim=-1)` (`timm/layers/pos_embed_sincos.py`).
A receiver that calls something, in the method form with two arguments (LTX-Video's 3-D rotary embedding,
`freqs.cos().repeat_interleave(2, dim=-1)`), becomes one call of `_trt_repeat_interleave(receiver, repeats, axis)`,
which reads the receiver once. A literal axis of 0 or more, a call without an axis (the flattened form), the
function form of a computed input and a call with `output_size=` are not taken.

Why it hurts: the TorchScript exporter's `repeat_interleave` symbolic (opset 9 and 13, torch 2.13) takes a
negative axis as the `Constant` node's own tensor and adds the input's rank to it in place (`dim += rank`). The
traced graph keeps one `Constant` per value, shared by every node that uses it, so every other `-1` of the
graph becomes the rank minus one: in snac, the `-1` of its scripted snake activation's `x.reshape(shape[0],
shape[1], -1)` becomes 2 (ONNX Runtime: "The input tensor cannot be reshaped to the requested shape. Input
shape:{1,16,2520}, requested shape:{1,16,2}") and its rotary embedding's `torch.cat((freqs, freqs), dim=-1)` of a
2-D tensor gets axis 2 ("axis must be in [-rank, rank-1]"), lines and files away from the `repeat_interleave`.
Where the mutated constant reaches an index or a slice bound, the graph loads and computes other values.

The rewrite: `z.repeat_interleave(self.stride, dim=-1)` → `z.repeat_interleave(self.stride,
dim=_trt_export_dim(z, -1))`: an inserted helper that returns the axis unchanged outside an ONNX export (and when
scripted), and while exporting returns a negative integer axis within `z`'s rank as `axis + rank`, the same axis
counted from the front, which the symbolic reads without writing to any constant.

Fix safety: safe. Outside an ONNX export the helper returns its argument: the call is the original (values,
dtypes, gradients, exceptions, under eager, `torch.jit.script`, `torch.fx`, `torch.compile`, `torch.export`).
While exporting, `axis + rank` names the axis `axis` names for every axis within the rank; an axis out of range, a
`bool`, `None` or anything that is not an `int` is passed on as it is, for torch to refuse as it would. The
receiver is read once more, which only a plain read is allowed to be.

TensorRT versions: all (ONNX Runtime refuses the graph, or its values are wrong, before TensorRT sees it).""",
        fix=Safety.SAFE,
        opt_in=True,
        examples=(
            Example("z_q = z_q.repeat_interleave(self.stride, dim=-1)\n",
                    "z_q = z_q.repeat_interleave(self.stride, dim=_trt_export_dim(z_q, -1))\n"),
            Example("out = torch.repeat_interleave(x, 2, -2)\n",
                    "out = torch.repeat_interleave(x, 2, _trt_export_dim(x, -2))\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.repeat_interleave.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node):
            return
        method = False
        if any(self.context.refers_to(node.func, name) for name in _FUNCTION):
            tensor = argument(node, 0, "input")
            dim = argument(node, 2, "dim")
        else:
            receiver = tensor_method_receiver(self, node, ("repeat_interleave",))
            if receiver is None:
                return
            tensor, method = cst.Arg(receiver), True
            dim = argument(node, 1, "dim")
        if tensor is None or dim is None:
            return
        value = int_value(dim.value)
        if value is not None and value >= 0:
            return  # an axis counted from the front: the symbolic writes nothing
        if type(dim.value) is cst.Name and dim.value.value == "None":
            return
        if type(dim.value) is cst.Call and type(dim.value.func) is cst.Name and dim.value.func.value == HELPER:
            return  # already rewritten
        message = ("`repeat_interleave` along a negative axis: the TorchScript export adds the rank to the axis "
                   "constant in place, which every other use of that constant in the graph shares (a `-1` of a "
                   "reshape or cat elsewhere); `{}` passes the axis counted from the front while exporting")
        if plain_read(tensor.value):
            wrapped = helper_call(HELPER, as_argument(tensor.value), as_argument(dim.value))
            self.report(node, message.format(HELPER), Fix({dim: dim.with_changes(value=wrapped)}, helpers=(HELPER,)))
            return
        # A receiver that calls something (a chain of two repeats, a projection): read once, by the whole-call helper.
        repeats = argument(node, 0, "repeats")
        if not method or repeats is None or len(node.args) != 2:
            return  # the function form of a computed input, or `output_size`: left alone
        call = helper_call(CALL_HELPER, as_argument(tensor.value), as_argument(repeats.value), as_argument(dim.value))
        self.report(node, message.format(CALL_HELPER), Fix({node: call}, helpers=(CALL_HELPER,)))


RULES = (RepeatInterleaveDim,)
