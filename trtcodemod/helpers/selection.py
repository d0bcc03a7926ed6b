"""``torch.median`` / ``torch.kthvalue`` values exported as an element of a sort.

Neither exporter converts ``aten::median`` or ``aten::kthvalue`` (torch 2.13, any opset). The
``k``-th smallest element along an axis is the element at ``k - 1`` of that axis sorted
(``median`` takes ``(n - 1) // 2``, the lower median). The sort exports as ONNX TopK, whose
order of NaN is not defined, so NaN is sorted as ``+inf`` and put back by a count: ``median``
is NaN wherever the axis holds a NaN, ``kthvalue`` where ``k`` reaches past the numbers (torch
orders NaN above everything there). Only values: which index torch reports among equal values is
its selection algorithm's business, so calls whose indices are used are not taken.
``_trt_median`` / ``_trt_kthvalue`` are the torch functions themselves everywhere except inside
``torch.onnx.export``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_median(input, dim: int | None = None, keepdim: bool = False):
    """``torch.median(input)``, or ``torch.median(input, dim, keepdim).values``; while exporting,
    the middle element of a sort."""
    if torch.jit.is_scripting():
        if dim is None:
            return torch.median(input)
        return torch.median(input, dim, keepdim)[0]
    if _trt_onnx_exporting() and _trt_selectable(input, dim, None):
        return _trt_sorted_element(input, None, dim, keepdim)
    if dim is None:
        return torch.median(input)
    return torch.median(input, dim, keepdim)[0]


def _trt_kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """``torch.kthvalue(input, k, dim, keepdim).values``; while exporting, element ``k - 1`` of a
    sort."""
    if torch.jit.is_scripting():
        return torch.kthvalue(input, k, dim, keepdim)[0]
    if _trt_onnx_exporting() and _trt_selectable(input, dim, k):
        return _trt_sorted_element(input, k, dim, keepdim)
    return torch.kthvalue(input, k, dim, keepdim)[0]


def _trt_selectable(input, dim: int | None, k: int | None) -> bool:
    """A non-empty tensor of a dtype ONNX TopK sorts, ``dim`` one of its axes and ``k`` a Python
    int in ``1..n``: the inputs the sort takes (others keep torch's function and its error)."""
    if not isinstance(input, torch.Tensor) or input.dtype not in (
            torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64):
        return False
    if dim is None:
        return k is None and input.numel() > 0
    if input.dim() == 0 or not -input.dim() <= dim < input.dim() or input.shape[dim] == 0:
        return False
    return k is None or (type(k) is int and 1 <= k <= input.shape[dim])


@torch.jit.unused
def _trt_sorted_element(input, k: int | None, dim: int | None, keepdim: bool):
    """The ``k``-th smallest element along ``dim`` (``None``: the lower median; ``dim`` None:
    over all elements), NaN as torch gives it."""
    keys = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else dim % input.dim()
    n = keys.shape[axis]
    position = (n - 1) // 2 if k is None else k - 1
    nan = torch.isnan(keys) if keys.is_floating_point() else None
    if nan is not None:
        keys = torch.where(nan, torch.full((), float("inf"), dtype=keys.dtype, device=keys.device), keys)
    # Kept as an axis of one (narrow, not select) and dropped by an index: a squeeze of an axis
    # the exporter cannot size is written as an ONNX If.
    picked = keys.sort(axis)[0].narrow(axis, position, 1)
    if nan is not None:
        numbers = n - nan.sum(axis, keepdim=True)
        missing = numbers < n if k is None else numbers <= position
        picked = torch.where(missing, torch.full((), float("nan"), dtype=picked.dtype, device=picked.device), picked)
    if dim is None:
        return picked.reshape(())
    return picked if keepdim else picked.select(axis, 0)
