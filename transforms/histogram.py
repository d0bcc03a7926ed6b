"""``torch.histc`` (TRT321): no ONNX symbolic; count each element's bin against every bin number.

The rewrite calls an inserted helper (``trtcodemod/helpers/histogram.py``) that is ``torch.histc``
outside an export and, while exporting with a fixed range, the same binning arithmetic and a sum.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

HELPER = "_trt_histc"
_PARAMETERS = ("bins", "min", "max")


class Histogram(Rule):
    needs_text = (b"histc",)
    info = RuleInfo(
        id="TRT321",
        name="histc-count",
        summary="`torch.histc` does not export (no ONNX symbolic); count each element's bin against every bin",
        doc="""\
What it finds: `torch.histc(x, bins, min, max)`, also as a method (`x.histc(...)`), arguments by
position or keyword. Without `min` and `max` the range is the data's (`min == max == 0`), which
the graph cannot take from torch: reported without a fix, as are `out=` and unpacked arguments.

Why it hurts: the TorchScript exporter has no symbolic for `aten::histc` at any opset (torch
2.13): `torch.onnx.export` stops with `UnsupportedOperatorError`. (The dynamo exporter
decomposes it.) Forward code counts with it: transformers' grouped-GEMM MoE experts count the
tokens per expert (`torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts
- 1)`, `integrations/moe.py:449`, also `integrations/deepgemm.py:466`,
`integrations/finegrained_fp8.py:643`), torchvision's `equalize` (`transforms/_functional_tensor.py:869`),
MONAI's `VectorQuantizer` perplexity (`networks/layers/vector_quantizer.py:218`) and kornia's
`_torch_histc_cast` (`core/utils.py:446`).

The rewrite: `torch.histc(...)` → `_trt_histc(...)`, the tensor first, the other arguments as
written. Outside `torch.onnx.export` it is `torch.histc` itself. While exporting, for a float32 or
float64 tensor and a range of Python numbers with `min < max` in its dtype: each element's bin is
`int((x - min) * bins / (max - min))` in the input's dtype, the operations in torch's order (the
CPU kernel's linear interpolation), `max` itself in the last bin; elements outside `[min, max]`
and NaN are not counted; the bin is compared with every bin number and the hits summed (Sub,
Mul, Div, Cast, Min, Equal, And, ReduceSum), cast to the input's dtype. A range from the data
(`min == max`), other dtypes and what torch refuses keep `torch.histc` and its error. The graph
holds `numel * bins` booleans: meant for expert ids and class maps, not for 256 bins of a large
image.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
`torch.histc` itself. The exported graph gives the same counts (measured bit for bit against
torch on random data and on every bin edge and its neighbouring floats). The graph counts in
int64: a bin of more than 2**24 float32 elements holds the rounded count, where torch's float
accumulator stops adding.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example("tokens_per_expert = torch.histc(ids.float(), bins=num_experts, min=0, max=num_experts - 1)\n",
                    "tokens_per_expert = _trt_histc(ids.float(), bins=num_experts, min=0, max=num_experts - 1)\n"),
            Example("hist = img.to(torch.float32).histc(bins=256, min=0, max=255)\n",
                    "hist = _trt_histc(img.to(torch.float32), bins=256, min=0, max=255)\n"),
            Example("hist = torch.histc(x, 10)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.histc.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("histc",))
        if found is None:
            return
        _, tensor, first = found
        message = "the TorchScript exporter cannot convert `torch.histc` (aten::histc), so the model does not export"
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args[first:] if arg.keyword is None]
        ranged = argument(node, first + 1, "min") is not None or argument(node, first + 2, "max") is not None
        if (tensor is None or has_star_args(node) or keywords - {"input", *_PARAMETERS} or len(positional) > 3
                or not ranged):
            self.report(node, f"{message}; count each element's bin (not rewritten: no `min`/`max` (a range from "
                        "the data), `out`, unpacked or other arguments)")
            return
        rest = [arg for arg in node.args if arg is not tensor] if first else list(node.args)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        tensor_arg = cst.Arg(value=tensor.value, comma=comma if rest else cst.MaybeSentinel.DEFAULT)
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.report(node, f"{message}; count each element's bin while exporting (`torch.histc` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=[tensor_arg, *rest])}, helpers=(HELPER,)))


RULES = (Histogram,)
