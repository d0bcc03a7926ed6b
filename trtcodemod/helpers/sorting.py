"""Stable sorts (``torch.sort(..., stable=True)``, ``torch.argsort(..., stable=True)``) that export (TRT343).

The TorchScript exporter has no symbolic for the ``sort.stable`` overload that a call with ``stable=``
takes ("Unsupported: ONNX export of operator Sort, Out parameter is not supported"). Each helper is
torch's own call outside ``torch.onnx.export``; while exporting, two plain sorts (each one ONNX
``TopK``) give the stable order whatever order the graph's ``TopK`` keeps among equal values: the
first groups equal values, the second orders each group by position, with keys that are all
different, so its order is the only one.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_sort(input: torch.Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """``torch.sort(input, stable=stable, dim=dim, descending=descending)``; while exporting, a plain sort
    where ``stable`` is false (the same kernel) and :func:`_trt_sort_order`'s stable order where it is true."""
    if torch.jit.is_scripting():
        return torch.sort(input, stable=stable, dim=dim, descending=descending)
    if _trt_sort_takes(input, stable) and _trt_onnx_exporting():
        return _trt_sort_exported(input, dim, descending, stable)
    return torch.sort(input, stable=stable, dim=dim, descending=descending)


def _trt_argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    # type: (Tensor, int, bool, bool) -> Tensor
    """``torch.argsort(input, dim=dim, descending=descending, stable=stable)``; while exporting, the indices of
    :func:`_trt_sort`'s exported sort."""
    if torch.jit.is_scripting():
        return torch.argsort(input, dim=dim, descending=descending, stable=stable)
    if _trt_sort_takes(input, stable) and _trt_onnx_exporting():
        return _trt_sort_exported(input, dim, descending, stable)[1]
    return torch.argsort(input, dim=dim, descending=descending, stable=stable)


@torch.jit.unused
def _trt_sort_takes(input, stable) -> bool:
    """A real tensor of one or more axes whose values a ``TopK`` orders exactly (its own dtype or a wider one),
    and a Python bool for ``stable``; anything else keeps torch's call (and its error)."""
    return (isinstance(input, torch.Tensor) and isinstance(stable, bool) and input.dim() >= 1
            and input.dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool))


@torch.jit.unused
def _trt_sort_exported(input, dim: int, descending: bool, stable: bool):
    """The sort as a graph: torch's plain sort where ``stable`` is false (of :func:`_trt_sort_keys`, where they
    are wider); where it is true, the values at :func:`_trt_sort_order`'s indices; as torch's ``(values,
    indices)`` named tuple."""
    if stable:
        indices = _trt_sort_order(input, dim, descending)
    elif _trt_sort_keys(input).dtype == input.dtype:
        return torch.sort(input, dim=dim, descending=descending)
    else:
        indices = torch.sort(_trt_sort_keys(input), dim=dim, descending=descending)[1]
    return torch.return_types.sort((input.gather(dim, indices), indices))


@torch.jit.unused
def _trt_sort_order(input, dim: int, descending: bool):
    """The indices of a stable sort of ``input`` along ``dim``, from two plain sorts.

    The first sorts keys that order as the values (bool and small integers as int32, half and bfloat16
    as float32, NaN as +inf): equal values end up next to each other, in any order. A running count of
    the places where the sorted value changes numbers the groups of equal values in sorted order
    (counted in float32, which TensorRT's CumSum takes: exact below 2 ** 24 elements). The second
    sorts ``(group * 2 + nan) * n + position`` in int64, where ``nan`` puts NaN after +inf ascending and
    before it descending, as torch does: every key differs, so any sort gives the one order, equal
    values by position. Exact while ``2 * n * n`` fits in int64 (``n`` below 2 ** 31 along ``dim``)."""
    keys = _trt_sort_keys(input)
    nan = None
    if keys.is_floating_point():
        nan = torch.isnan(keys)
        keys = torch.where(nan, torch.full_like(keys, float("inf")), keys)
    first = torch.sort(keys, dim=dim, descending=descending)[1]
    ranked = keys.gather(dim, first)
    count = input.shape[dim]
    before = (torch.arange(count, device=input.device) - 1).clamp(min=0)  # each place's predecessor (the first: itself)
    changed = (ranked != ranked.index_select(dim, before)).to(torch.float32)
    group = changed.cumsum(dim).to(torch.int64) * 2
    if nan is not None:
        ranked_nan = nan.gather(dim, first).to(torch.int64)
        group = group + (1 - ranked_nan if descending else ranked_nan)
    second = torch.sort(group * count + first, dim=dim)[1]
    return first.gather(dim, second)


@torch.jit.unused
def _trt_sort_keys(input):
    """Keys that order as ``input`` and that ONNX Runtime's and TensorRT's ``TopK`` take: bool and the
    integers narrower than int32 as int32, half and bfloat16 as float32 (each value exactly)."""
    if input.dtype in (torch.bool, torch.uint8, torch.int8, torch.int16):
        return input.to(torch.int32)
    if input.dtype in (torch.float16, torch.bfloat16):
        return input.to(torch.float32)
    return input
