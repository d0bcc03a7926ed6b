"""``torch.cummax`` / ``torch.cummin`` (TRT307): no ONNX symbolic; a masked extreme over a triangle.

The rewrite calls an inserted helper (``trtcodemod/helpers/cumulative.py``) that is the torch
function outside an export and the same values and indices from a lower triangle of comparisons
while exporting (integers, bool masks, and floats with torch's NaN and tie rules). Function and
method forms are taken (the method names are torch's alone).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

HELPERS = {"cummax": "_trt_cummax", "cummin": "_trt_cummin"}


class CumulativeExtreme(Rule):
    needs_text = (b"cummax", b"cummin")
    info = RuleInfo(
        id="TRT307",
        name="cumulative-extreme",
        summary="`torch.cummax`/`torch.cummin` do not export (no ONNX symbolic); take the running extreme over a triangle",
        doc="""\
What it finds: `torch.cummax(x, dim)` and `torch.cummin(x, dim)`, also as methods
(`x.cummax(dim)`), `dim` by position or keyword. A call with unpacked arguments or without a
`dim` is reported without a fix.

Why it hurts: the TorchScript exporter has no symbolic for `aten::cummax` or `aten::cummin` at
any opset (torch 2.13): `torch.onnx.export` stops with `UnsupportedOperatorError`, so there is no
ONNX file for TensorRT. transformers' Grounding DINO finds, for every text token, the special
token before and after it this way (`torch.cummax(prev_special, dim=1)[0]` and a `cummin` of the
flipped ids, `modeling_grounding_dino.py:1834, 1838`).

The rewrite: `torch.cummax(x, dim=1)` → `_trt_cummax(x, 1)`, an inserted helper (`_trt_cummin`
for `cummin`). Outside `torch.onnx.export` it is the torch function itself. While exporting it
compares every position with every earlier one along the axis: the extreme is the `amax` (`amin`)
over that lower triangle, the index the last earlier position holding it, which is the index torch
gives among equal values, and the values are the input at those indices (so `-0.0` after `0.0`
keeps its sign, as in torch). torch's loop takes every NaN it meets and keeps it: with a NaN at or
before a position, the value is NaN and the index the last such NaN's, and so is the graph's. Bool
masks and 8- or 16-bit integers are compared as int32 (ONNX reduces neither bool nor int16). Where,
ReduceMax/ReduceMin, Equal, IsNaN, Range, GatherElements: all parsed by TensorRT. The result has
`.values` and `.indices` and indexes as a pair, as torch's does.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
the torch function itself. While exporting, what torch refuses (a complex tensor, an axis out of
range) keeps the torch function, and its error. The triangle holds `n * n` elements per row of the
axis: meant for short axes (token positions, a batch of scores), not for image sizes.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def previous_special(ids, special):\n"
                "    marked = torch.where(special, torch.arange(ids.shape[1]), -1)\n"
                "    return torch.cummax(marked, dim=1)[0]\n",
                "def previous_special(ids, special):\n"
                "    marked = torch.where(special, torch.arange(ids.shape[1]), -1)\n"
                "    return _trt_cummax(marked, 1)[0]\n",
            ),
            Example("lowest = ids.cummin(-1).values\n", "lowest = _trt_cummin(ids, -1).values\n"),
            Example("running = torch.cummax(scores)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.cummax.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, tuple(HELPERS))
        if found is None:
            return
        name, tensor, first = found
        message = (f"the TorchScript exporter cannot convert `torch.{name}` (aten::{name}), so the model does not "
                   "export")
        dim = argument(node, first, "dim")
        if has_star_args(node) or tensor is None or dim is None or len(node.args) != first + 1:
            self.report(node, f"{message}; take the running extreme over a triangle of comparisons (not "
                        "rewritten: unpacked, missing or other arguments)")
            return
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(value=tensor.value, comma=comma), cst.Arg(value=dim.value)]
        self.report(node, f"{message}; take the running extreme over a triangle of comparisons while exporting "
                    f"(`torch.{name}` otherwise)",
                    Fix({node: cst.Call(func=cst.Name(HELPERS[name]), args=args)}, helpers=(HELPERS[name],)))


RULES = (CumulativeExtreme,)
