"""``torch.eye`` exported as a comparison of two ranges.

The TorchScript exporter writes ``torch.eye(n)`` as ``EyeLike`` of a ``ConstantOfShape``: TensorRT
parses EyeLike only where its input has static dimensions, so an ``n`` taken from a dynamic axis
(a text length, a number of queries) gives a graph TensorRT cannot build, and ONNX Runtime has no
EyeLike kernel for booleans, so ``torch.eye(n, dtype=torch.bool)`` gives a graph it cannot load.
``arange(n)[:, None] == arange(m)[None, :]`` is the same matrix (True on the diagonal), cast to
the dtype ``torch.eye`` would give. ``_trt_eye`` is ``torch.eye`` itself everywhere except inside
``torch.onnx.export``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_eye(n: int, m: int | None = None, dtype: torch.dtype | None = None, device: torch.device | None = None):
    """``torch.eye(n, m, dtype=dtype, device=device)``; while exporting, a comparison of ranges."""
    if torch.jit.is_scripting():
        return torch.eye(n, n if m is None else m, dtype=dtype, device=device)
    if not _trt_onnx_exporting():
        if m is None:
            return torch.eye(n, dtype=dtype, device=device)
        return torch.eye(n, m, dtype=dtype, device=device)
    rows = torch.arange(n, device=device)
    cols = torch.arange(n if m is None else m, device=device)
    diagonal = rows.unsqueeze(1) == cols.unsqueeze(0)
    wanted = torch.get_default_dtype() if dtype is None else dtype
    return diagonal if wanted == torch.bool else diagonal.to(wanted)
