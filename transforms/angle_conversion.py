"""``torch.rad2deg`` / ``torch.deg2rad`` (TRT308): no ONNX symbolic; the product with the constant.

The rewrite calls an inserted helper (``trtcodemod/helpers/angles.py``) that is the torch function
outside an export and, while exporting, the input times 180/pi (pi/180): the product PyTorch
computes. Function and method forms are taken.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

HELPERS = {"rad2deg": "_trt_rad2deg", "deg2rad": "_trt_deg2rad"}


class AngleConversion(Rule):
    needs_text = (b"rad2deg", b"deg2rad")
    info = RuleInfo(
        id="TRT308",
        name="angle-conversion",
        summary="`torch.rad2deg`/`torch.deg2rad` do not export (no ONNX symbolic); multiply by the constant",
        doc="""\
What it finds: `torch.rad2deg(x)` and `torch.deg2rad(x)`, also as methods (`x.rad2deg()`). A call
with other arguments (`out=`) or unpacked ones is reported without a fix; the in-place methods
(`x.rad2deg_()`) are left alone (they export as the same missing operator, but rewriting them would
change what is written where).

Why it hurts: the TorchScript exporter has no symbolic for `aten::rad2deg` or `aten::deg2rad` at
any opset (torch 2.13): `torch.onnx.export` stops with `UnsupportedOperatorError`, so there is no
ONNX file for TensorRT. kornia's local feature frames turn their orientation into degrees this way
(`kornia/feature/laf.py:172`, `get_laf_orientation`), so kornia's SIFT and KeyNet-AffNet-HardNet
do not export.

The rewrite: `torch.rad2deg(x)` → `_trt_rad2deg(x)` (`_trt_deg2rad` for `deg2rad`), an inserted
helper. Outside `torch.onnx.export` it is the torch function itself. While exporting it is
`x * 57.29577951308232` (`x * 0.017453292519943295`): PyTorch computes the conversion as the
input times that double constant, in the input's floating type (the default float type for
integer and bool inputs), so the product is the same, bit for bit (measured in float16, bfloat16,
float32 and float64, signed zeros, infinities and NaN included). A complex input, which torch
refuses, keeps the torch function and its error.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
the torch function itself; the exported graph is one Mul by a constant.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def orientation(laf):\n"
                "    angle = torch.atan2(laf[..., 0, 1], laf[..., 0, 0])\n"
                "    return torch.rad2deg(angle).unsqueeze(-1)\n",
                "def orientation(laf):\n"
                "    angle = torch.atan2(laf[..., 0, 1], laf[..., 0, 0])\n"
                "    return _trt_rad2deg(angle).unsqueeze(-1)\n",
            ),
            Example("radians = yaw.deg2rad()\n", "radians = _trt_deg2rad(yaw)\n"),
            Example("degrees = torch.rad2deg(angle, out=buffer)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.rad2deg.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, tuple(HELPERS))
        if found is None:
            return
        name, tensor, count = found
        message = f"the TorchScript exporter cannot convert `torch.{name}` (aten::{name}), so the model does not export"
        if has_star_args(node) or tensor is None or len(node.args) != count:
            self.report(node, f"{message}; multiply by the constant instead (not rewritten: other arguments)")
            return
        self.report(node, f"{message}; multiply by the constant while exporting (`torch.{name}` otherwise)",
                    Fix({node: cst.Call(func=cst.Name(HELPERS[name]), args=[cst.Arg(value=tensor.value)])},
                        helpers=(HELPERS[name],)))


RULES = (AngleConversion,)
