"""``torch.rad2deg`` / ``torch.deg2rad`` exported as a product with the constant.

Neither has a symbolic in the TorchScript exporter (torch 2.13, any opset): the export stops with
``UnsupportedOperatorError``. PyTorch computes both as the input times a wrapped double constant
(180 / pi, pi / 180), in the input's own floating type or in the default float type for integers
and bools; ``x * (180.0 / math.pi)`` is that same product (measured bit for bit in float16,
bfloat16, float32 and float64). ``_trt_rad2deg`` / ``_trt_deg2rad`` are the torch functions
themselves everywhere except inside ``torch.onnx.export``, where a complex input (which torch
refuses) keeps the torch function and its error.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_rad2deg(x):
    """``torch.rad2deg(x)``; while exporting, ``x * (180 / pi)``."""
    if torch.jit.is_scripting():
        return torch.rad2deg(x)
    if _trt_onnx_exporting() and not x.is_complex():
        return x * 57.29577951308232
    return torch.rad2deg(x)


def _trt_deg2rad(x):
    """``torch.deg2rad(x)``; while exporting, ``x * (pi / 180)``."""
    if torch.jit.is_scripting():
        return torch.deg2rad(x)
    if _trt_onnx_exporting() and not x.is_complex():
        return x * 0.017453292519943295
    return torch.deg2rad(x)
