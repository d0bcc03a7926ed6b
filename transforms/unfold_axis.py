"""``x.unfold(-d, k, s)`` → ``_trt_unfold_axis(x, -d, k, s)`` (TRT330): the same axis counted from the front.

The TorchScript exporter writes ``unfold`` on an axis of fixed length as one ``Slice`` per window,
each moved (``Transpose``) and ``Unsqueeze``-d at ``dimension``, then a ``Concat`` on ``dimension``.
Those two take the dimension as written, in a tensor one rank larger than the input: a negative
dimension lands one axis too far to the right. PatchTST's patchify (``unfold(dimension=-2, ...)``
of ``(batch, length, channels)``) then gives ``(batch, channels, patches, size)`` where eager mode
gives ``(batch, patches, channels, size)``, and the graph fails where that meets another shape.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_unfold_axis"
_KEYWORDS = ("dimension", "size", "step")


def _negative(value: cst.BaseExpression) -> bool:
    """A negative integer literal (``-2``, ``-(1)``)."""
    if type(value) is not cst.UnaryOperation or type(value.operator) is not cst.Minus:
        return False
    operand = value.expression
    return type(operand) is cst.Integer and operand.evaluated_value != 0


class UnfoldNegativeAxis(Rule):
    needs_text = (b"unfold",)
    info = RuleInfo(
        id="TRT330",
        name="unfold-negative-axis",
        summary="`x.unfold(-d, k, s)`: the TorchScript exporter puts the windows of a negative dimension on the "
                "wrong axis (wrong values or a graph that does not load); count the axis from the front",
        doc="""\
What it finds: the tensor method `x.unfold(dimension, size, step)` (by position or by keyword)
whose dimension is a negative integer literal: `x.unfold(-1, 400, 160)`,
`past_values.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)`.
Left alone: a dimension of 0 or more, one that is a name or an expression (its sign is not
written), `F.unfold`/`nn.Unfold` (another operation), and calls with unpacked arguments.

Why it hurts: on an axis of fixed length the TorchScript exporter writes `unfold` as one `Slice`
per window, moves the window's axis last (`Transpose`), `Unsqueeze`-s it at `dimension` and
joins the windows with a `Concat` on `dimension`. `Unsqueeze` and `Concat` act on a tensor one
rank larger than the input, and the exporter passes the dimension as written: a negative one
counts from the end of that larger tensor and lands one axis to the right of where `unfold` puts
the windows. `x.unfold(-1, k, k)` of `(n, L)` exports as `(n, k, L // k)` instead of
`(n, L // k, k)`: transposed values, silently when the two sizes are equal; PatchTST's
`unfold(dimension=-2, ...)` of `(batch, length, channels)` exports as `(batch, channels, patches,
size)`, and ONNX Runtime refuses the graph where the positional encoding is added further on
(`[ShapeInferenceError] Incompatible dimensions`). The dynamo exporter is not affected.

The rewrite: `_trt_unfold_axis(x, -d, k, s)`, an inserted helper that calls
`x.unfold(-d + x.dim(), k, s)` when `-d` is within `x`'s rank, the same axis counted from the
front, and `x.unfold(-d, k, s)` as written otherwise (a 0-d tensor, an axis out of range: the
same error), and under `torch.jit.script`.

Fix safety: safe. `unfold` wraps a negative dimension to the same axis before it does anything,
so both calls return the same view of `x` (values, shape, strides, storage, gradients) in every
mode (eager, `torch.jit.script`, `torch.fx` (a proxy is passed to `unfold` as written),
`torch.compile`, `torch.export`); only the TorchScript exporter's graph changes, to the right
one. `x` is evaluated once, as before.""",
        fix=Safety.SAFE,
        examples=(
            Example("output = output.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)\n",
                    "output = _trt_unfold_axis(output, -2, self.patch_length, self.patch_stride)\n"),
            Example("frames = signal.unfold(-1, 400, 160)\n", "frames = _trt_unfold_axis(signal, -1, 400, 160)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.unfold.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
            "https://onnx.ai/onnx/operators/onnx__Unsqueeze.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node) or len(node.args) != 3:
            return
        receiver = tensor_method_receiver(self, node, ("unfold",))
        if receiver is None:
            return
        args = [argument(node, k, name) for k, name in enumerate(_KEYWORDS)]
        if any(a is None for a in args) or not _negative(args[0].value):  # type: ignore[union-attr]
            return
        if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            receiver = receiver.with_changes(lpar=[], rpar=[])  # `(x + 1).unfold(...)`: an argument needs none
        new_args = [cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
        for k, arg in enumerate(args):
            last = k == len(args) - 1
            new_args.append(cst.Arg(value=arg.value,  # type: ignore[union-attr]
                                    comma=cst.MaybeSentinel.DEFAULT if last
                                    else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        self.report(node, f"`{short_code(node)}`: the TorchScript exporter unsqueezes and joins the windows at the "
                          "negative dimension of a tensor one rank larger, one axis too far right (wrong values, or "
                          f"a graph ONNX Runtime refuses further on); `{HELPER}` counts the axis from the front",
                    Fix({node: cst.Call(func=cst.Name(HELPER), args=new_args)}, helpers=(HELPER,)))


RULES = (UnfoldNegativeAxis,)
