"""A negative axis the TorchScript exporter writes into a ``Transpose`` permutation as it is (TRT371).

``x.movedim(-s, d)`` → ``_trt_movedim(x, -s, d)`` and ``x.permute(0, -1, 1, 2)`` →
``_trt_permute(x, [0, -1, 1, 2])``: the axes counted from the front while exporting.
The TorchScript exporter's ``movedim`` (torch 2.13) builds the ``Transpose`` permutation in Python
from the source and destination as written: a negative destination indexes the permutation from its
end, the right place, but a negative source is written into it as it is. ``x.movedim(-1, 2)`` of a
4-D tensor exports as ``Transpose(perm=[0, 1, -1, 2])``, which ONNX Runtime refuses when it loads
the graph and TensorRT cannot parse. Its ``permute`` passes the axes to the ``Transpose`` as written,
negative ones too. pyniftireg's per-axis B-spline evaluation moves each
contracted axis back this way (``torch.tensordot(x, m, dims=...).movedim(-1, 2 + axis)``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_movedim"
FUNCTION_HELPER = "_trt_torch_movedim"
PERMUTE_HELPER = "_trt_permute"
_NAMES = ("movedim", "moveaxis")
_FUNCTIONS = tuple(f"torch.{name}" for name in _NAMES)


def _negative(value: cst.BaseExpression) -> bool:
    """A negative integer literal (``-1``, ``-(2)``)."""
    if type(value) is not cst.UnaryOperation or type(value.operator) is not cst.Minus:
        return False
    operand = value.expression
    return type(operand) is cst.Integer and operand.evaluated_value != 0


def _arg(value: cst.BaseExpression, last: bool) -> cst.Arg:
    if value.lpar and type(value) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
        value = value.with_changes(lpar=[], rpar=[])  # `(x + 1).movedim(...)`: an argument needs none
    return cst.Arg(value=value, comma=cst.MaybeSentinel.DEFAULT if last
                   else cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))


class NegativePermutationAxis(Rule):
    needs_text = (b"movedim", b"moveaxis", b"permute")
    info = RuleInfo(
        id="TRT371",
        name="negative-permutation-axis",
        summary="`x.movedim(-s, d)`, `x.permute(0, -1, 1, 2)`: the TorchScript exporter writes a negative axis into "
                "the Transpose permutation as it is, a graph ONNX Runtime refuses at load; count it from the front",
        doc="""\
What it finds: `x.movedim(source, destination)` and `x.moveaxis(...)` (tensor methods), and
`torch.movedim(x, source, destination)` / `torch.moveaxis(...)`, by position or by keyword, whose
source is a negative integer literal: `torch.tensordot(x, m, dims=([2 + axis], [1])).movedim(-1,
2 + axis)` (pyniftireg 0.1.1's per-axis B-spline evaluation, `pyniftireg/bspline.py:64`),
`torch.movedim(feats, -1, 1)`, `x.moveaxis(-3, 0)`; and the tensor method `x.permute(...)` whose
axes, given one by one, include a negative integer literal: `x.permute(0, -1, 1, 2)`.
Left alone: axes of 0 or more, ones that are names or expressions (their sign is not written),
axes given as one tuple or list (a movedim source, `x.permute((0, -1, 1))`), a negative movedim
destination alone (the exporter places it right), `torch.permute`, NumPy's `np.moveaxis`, and
calls with unpacked arguments.

Why it hurts: the TorchScript exporter's `movedim` (torch 2.13, every opset) builds the permutation
of one `Transpose` in Python: `perm[destination] = source`, then the other axes in order. A
negative destination indexes that list from its end, the right place; a negative source is
stored as written. `movedim(-1, 2)` of a 4-D tensor exports as `Transpose(perm=[0, 1, -1, 2])`:
ONNX Runtime refuses the graph when it loads it (`[TypeInferenceError] Invalid attribute perm
{0, 1, -1, 2}`), and TensorRT's parser, which needs a permutation of the axes, cannot take it.
`permute`'s symbolic passes its axes to the `Transpose` unchanged: `x.permute(0, -1, 1, 2)` exports
as `perm=[0, -1, 1, 2]`, refused the same way. The dynamo exporter is not affected.

The rewrite: `_trt_movedim(x, -s, d)` (`_trt_torch_movedim(x, -s, d)` for the function form), an
inserted helper that, while `torch.onnx.export` runs, calls `x.movedim(-s + x.dim(), d)` when
both axes are within `x`'s rank, the same axis counted from the front, and `movedim` as written
otherwise (not a tensor, a 0-d tensor, an axis out of range: the same error), outside an export
and under `torch.jit.script`. `x.permute(a, b, ...)` → `_trt_permute(x, [a, b, ...])`, which
while exporting passes the axes counted from the front when they are then a permutation of `x`'s
axes, and `x.permute(a, b, ...)` as written otherwise (`x.permute(dims)` under `torch.jit.script`).

Fix safety: safe. `movedim` and `permute` wrap a negative axis to the same axis before they do
anything, so both calls return the same view of `x` (values, dtype, shape, strides, storage,
gradients) in every mode; eager mode, `torch.jit.script`, `torch.fx` (a proxy is passed on as
written), `torch.compile` and `torch.export` run the call as written; only the TorchScript
exporter's graph changes, to a valid permutation. `x` is evaluated once, as before.
Measured on pyniftireg 0.1.1 (`benchmarks/real_zoo38.py`): the B-spline models' graphs (pn_bspline,
pn_bspline_nmi), refused at `bspline.py:64`, load and run, exit 1 → 0 with TRT716's grid; the LNCC
smoothing of pn_svf_inverse_lncc (`filters.py:44`, which ONNX Runtime names at `:40`, the next axis'
transpose its optimizer merged it with; migrate matches the rule to a refused permutation anywhere in
the file) loads and runs too.""",
        fix=Safety.SAFE,
        examples=(
            Example("x = torch.tensordot(x, m, dims=([2 + axis], [1])).movedim(-1, 2 + axis)\n",
                    "x = _trt_movedim(torch.tensordot(x, m, dims=([2 + axis], [1])), -1, 2 + axis)\n"),
            Example("y = torch.movedim(feats, -1, 1)\n", "y = _trt_torch_movedim(feats, -1, 1)\n"),
            Example("y = x.permute(0, -1, 1, 2)\n", "y = _trt_permute(x, [0, -1, 1, 2])\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.movedim.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
            "https://onnx.ai/onnx/operators/onnx__Transpose.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node):
            return
        if tensor_method_receiver(self, node, ("permute",)) is not None:
            self._permute(node)
            return
        if self.context.refers_to(node.func, *_FUNCTIONS):
            helper, offset = FUNCTION_HELPER, 1
            tensor = argument(node, 0, "input")
        else:
            receiver = tensor_method_receiver(self, node, _NAMES)
            if receiver is None:
                return
            helper, offset, tensor = HELPER, 0, cst.Arg(value=receiver)
        if len(node.args) != offset + 2 or tensor is None:
            return
        source = argument(node, offset, "source")
        destination = argument(node, offset + 1, "destination")
        if source is None or destination is None or not _negative(source.value):
            return
        args = [_arg(tensor.value, False), _arg(source.value, False), _arg(destination.value, True)]
        self.report(node, f"`{short_code(node)}`: the TorchScript exporter writes the negative source axis into the "
                          "Transpose permutation as it is, a graph ONNX Runtime refuses at load and TensorRT cannot "
                          f"parse; `{helper}` counts the axis from the front while exporting",
                    Fix({node: cst.Call(func=cst.Name(helper), args=args)}, helpers=(helper,)))

    def _permute(self, node: cst.Call) -> None:
        receiver = tensor_method_receiver(self, node, ("permute",))
        axes = [a.value for a in node.args]
        if not axes or any(a.keyword is not None for a in node.args) or not any(_negative(axis) for axis in axes):
            return
        listed = cst.List(elements=[cst.Element(value=axis, comma=cst.MaybeSentinel.DEFAULT if k == len(axes) - 1
                                                else cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                                    for k, axis in enumerate(axes)])
        self.report(node, f"`{short_code(node)}`: the TorchScript exporter writes the negative axis into the Transpose "
                          "permutation as it is, a graph ONNX Runtime refuses at load and TensorRT cannot parse; "
                          f"`{PERMUTE_HELPER}` counts the axes from the front while exporting",
                    Fix({node: cst.Call(func=cst.Name(PERMUTE_HELPER),
                                        args=[_arg(receiver, False), _arg(listed, True)])},
                        helpers=(PERMUTE_HELPER,)))


RULES = (NegativePermutationAxis,)
