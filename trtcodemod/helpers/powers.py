"""``torch.exp2`` exported as ``Pow(2, x)``: the node torch's own dynamo exporter writes for it (TRT708).

The TorchScript exporter has no symbolic for ``aten::exp2`` (torch 2.13, any opset): the export
stops with ``UnsupportedOperatorError``. The dynamo exporter writes ``aten::exp2`` as ONNX
``Pow`` with the base 2, which TensorRT parses. ``_trt_exp2`` is ``torch.exp2`` itself everywhere
except inside ``torch.onnx.export``, where a real tensor takes ``torch.pow(2.0, x)``: the same
ONNX ``Pow`` node, so ONNX Runtime gives the rewritten TorchScript export bit for bit what it gives
the original's dynamo export (measured in float16, float32 and float64). Eagerly, ``torch.pow(2.0,
x)`` is not ``torch.exp2(x)`` bit for bit in float32/float64 (one ulp apart on some 5 % of
values), which is why eager code never takes it. Integer and bool tensors come out in the default
float type either way.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_exp2(input):
    """``torch.exp2(input)``; while exporting to ONNX, ``torch.pow(2.0, input)`` (ONNX ``Pow``).

    A receiver of the method form that is not a tensor but has its own ``exp2`` keeps its
    method; an fx ``Proxy`` records ``torch.exp2``.
    """
    if torch.jit.is_scripting():
        return torch.exp2(input)
    if not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, "exp2"):
        return input.exp2()
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        return torch.pow(2.0, input)
    return torch.exp2(input)
