"""``torch.triu_indices`` and ``torch.tril_indices`` while the TorchScript exporter traces (TRT383).

The TorchScript exporter has no symbolic for ``aten::triu_indices`` or ``aten::tril_indices``, so a model that takes
every pair of its items once (an all-pairs neighbour list: torchani's ``neighbors.py``) stops exporting there. While it
traces, the helper writes the same ``(2, K)`` tensor from the traced sizes: the ``row x col`` grid's mask
``col_index - row_index >= offset`` (``<=`` for ``tril``), its positions in row-major order (NonZero, transposed),
cast to the requested dtype.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_triu_indices(row: int, col: int, offset: int = 0, dtype: torch.dtype | None = None,
                      device: torch.device | None = None):
    """``torch.triu_indices(row, col, offset, dtype=dtype, device=device)``; while the TorchScript exporter traces,
    the positions of the upper triangle's mask (:func:`_trt_triangle_indices_traced`)."""
    return _trt_triangle_indices(row, col, offset, dtype, device, True)


def _trt_tril_indices(row: int, col: int, offset: int = 0, dtype: torch.dtype | None = None,
                      device: torch.device | None = None):
    """``torch.tril_indices(row, col, offset, dtype=dtype, device=device)``; while the TorchScript exporter traces,
    the positions of the lower triangle's mask (:func:`_trt_triangle_indices_traced`)."""
    return _trt_triangle_indices(row, col, offset, dtype, device, False)


def _trt_triangle_indices(row: int, col: int, offset: int, dtype: torch.dtype | None, device: torch.device | None,
                          upper: bool):
    """torch's ``triu_indices`` (``upper``) or ``tril_indices``; scripted, torch's call (``dtype=None`` is torch's
    int64 default, passed by leaving it out)."""
    if torch.jit.is_scripting():
        if upper:
            if dtype is None:
                return torch.triu_indices(row, col, offset, device=device)
            return torch.triu_indices(row, col, offset, dtype=dtype, device=device)
        if dtype is None:
            return torch.tril_indices(row, col, offset, device=device)
        return torch.tril_indices(row, col, offset, dtype=dtype, device=device)
    return _trt_triangle_indices_eager(row, col, offset, dtype, device, upper)


@torch.jit.unused
def _trt_triangle_indices_eager(row, col, offset, dtype, device, upper):
    """torch's ``triu_indices`` (``upper``) or ``tril_indices``, except while the TorchScript exporter traces (never
    runs scripted). There torch's call runs first on the example, for its errors only (a negative size, an
    unsupported dtype); its nodes feed nothing, so the exporter drops them. Then
    :func:`_trt_triangle_indices_traced` writes the same tensor."""
    torch_call = torch.triu_indices if upper else torch.tril_indices
    if dtype is None:
        dtype = torch.int64
    if not (torch.jit.is_tracing() and _trt_onnx_exporting()):
        return torch_call(row, col, offset, dtype=dtype, device=device)
    torch_call(row, col, offset, dtype=dtype, device=device)  # the example's errors; its nodes feed nothing
    return _trt_triangle_indices_traced(row, col, offset, dtype, device, upper)


@torch.jit.unused
def _trt_triangle_indices_traced(row, col, offset, dtype, device, upper):
    """The ``(2, K)`` indices of the ``row x col`` grid's upper (``upper``) or lower triangle at ``offset``, row-major
    (never runs scripted): ``j - i >= offset`` (``<= offset`` for the lower) of two ranges, the mask's positions by
    ``nonzero`` (row-major, int64), transposed and cast to ``dtype``. No size is compared in Python, so the graph
    follows the traced sizes (0 rows or columns give ``(2, 0)``)."""
    rows = torch.arange(row, device=device)
    cols = torch.arange(col, device=device)
    distance = cols.unsqueeze(0) - rows.unsqueeze(1)
    mask = distance >= offset if upper else distance <= offset
    indices = mask.nonzero().t()
    return indices if dtype == torch.int64 else indices.to(dtype)
