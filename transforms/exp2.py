"""``torch.exp2`` (TRT708): no TorchScript symbolic; ``Pow(2, x)`` while exporting.

The rewrite calls an inserted helper (``trtcodemod/helpers/powers.py``) that is ``torch.exp2``
outside an export and, while exporting, ``torch.pow(2.0, x)``: the ONNX ``Pow`` node torch's own
dynamo exporter writes for ``aten::exp2``. Function (``torch.exp2``, ``torch.special.exp2``) and
method forms are taken.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper, torch_operator_call

HELPER = "_trt_exp2"


class Exp2(Rule):
    needs_text = spelled("torch.exp2")
    info = RuleInfo(
        id="TRT708",
        name="exp2",
        summary="`torch.exp2` does not export with the TorchScript exporter (no ONNX symbolic); take `Pow(2, x)` "
                "while exporting",
        doc="""\
What it finds: `torch.exp2(x)`, `torch.special.exp2(x)` and the method `x.exp2()`. A call with
other arguments (`out=`) or unpacked ones is reported without a fix; the in-place `x.exp2_()` is
left alone (rewriting it would change what is written where).

Why it hurts: the TorchScript exporter has no symbolic for `aten::exp2` at any opset (torch
2.13): `torch.onnx.export(..., dynamo=False)` stops with `UnsupportedOperatorError`, so there is
no ONNX file for TensorRT. (The dynamo exporter writes it as ONNX `Pow(2, x)`, which TensorRT
parses.) kornia's scale-space refinement scales its 3x3 systems by `torch.exp2(exponent.abs())`
(`kornia/geometry/subpix/spatial_soft_argmax.py`), and SIFT its sigmas by `torch.exp2(...)`
(`kornia/feature/sift/scale_space.py`), so models that use them (ALIKE's keypoint refinement)
do not export with the TorchScript exporter.

The rewrite: `torch.exp2(x)` → `_trt_exp2(x)`, an inserted helper. Outside `torch.onnx.export` it
is `torch.exp2` itself. While exporting, a real tensor takes `torch.pow(2.0, x)`, which both
exporters write as the ONNX `Pow` node with the base 2 that the dynamo exporter writes for
`torch.exp2` itself: ONNX Runtime gives the rewritten TorchScript export, bit for bit, what it
gives the original's dynamo export (measured in float16, float32 and float64, infinities and
NaN included), and that is `torch.exp2`'s value or one ulp from it (as ONNX Runtime's `Exp` is
from `torch.exp`). Integer and bool inputs come out in the default float type, as with
`torch.exp2`. Eager code never takes `torch.pow(2.0, x)`, which is one ulp from `torch.exp2` on
some 5 % of float32 values.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
`torch.exp2` itself (values, dtype, gradients, errors); the exported graph is one Pow, as the
dynamo exporter's export of the original.

TensorRT versions: all (the export fails before TensorRT is involved; TensorRT parses Pow from
8.4).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def scale(exponent, *rows):\n"
                "    power = torch.exp2(exponent.abs())\n"
                "    return tuple(r * power for r in rows)\n",
                "def scale(exponent, *rows):\n"
                "    power = _trt_exp2(exponent.abs())\n"
                "    return tuple(r * power for r in rows)\n",
            ),
            Example("sigma = ((s + ss) / 3.0).exp2() * pixel\n", "sigma = _trt_exp2((s + ss) / 3.0) * pixel\n"),
            Example("power = torch.exp2(exponent, out=buffer)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.exp2.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("exp2",))
        if found is None and not in_inserted_helper(self) and self.context.refers_to(node.func, "torch.special.exp2"):
            found = ("exp2", argument(node, 0, "input"), 1)
        if found is None:
            return
        _, tensor, count = found
        message = "the TorchScript exporter cannot convert `torch.exp2` (aten::exp2), so the model does not export"
        if has_star_args(node) or tensor is None or len(node.args) != count:
            self.report(node, f"{message}; use `torch.pow(2.0, x)` while exporting instead (not rewritten: other "
                              "arguments)")
            return
        self.report(node, f"{message}; take `torch.pow(2.0, x)` (ONNX Pow) while exporting (`torch.exp2` otherwise)",
                    Fix({node: cst.Call(func=cst.Name(HELPER), args=[cst.Arg(value=as_argument(tensor.value))])},
                        helpers=(HELPER,)))


RULES = (Exp2,)
