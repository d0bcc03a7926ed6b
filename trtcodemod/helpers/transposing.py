"""``x.mT``, exported as ``Transpose``.

The TorchScript exporter has no symbolic for ``aten::mT`` (torch 2.13, every opset), the
property that swaps a tensor's last two axes: the export stops. ``x.transpose(-2, -1)`` is the same
view and exports as ``Transpose``. ``_trt_mT`` is ``x.mT`` itself everywhere except inside
``torch.onnx.export``, where it takes ``transpose``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_mT(x):
    """``x.mT``; while exporting a tensor of two or more axes to ONNX, ``x.transpose(-2, -1)``,
    the same view of the same storage. Anything else (fewer axes, which ``mT`` refuses, or an
    object that is not a tensor: NumPy arrays have ``mT`` too) keeps ``x.mT``."""
    if torch.jit.is_scripting():
        return x.mT
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor) and x.dim() >= 2:
        return x.transpose(-2, -1)
    return x.mT
