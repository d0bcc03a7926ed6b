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


def _trt_nanmedian(input, dim: int | None = None, keepdim: bool = False):
    """``torch.nanmedian(input)``, or ``torch.nanmedian(input, dim, keepdim).values``; while exporting,
    the lower middle of the numbers a sort puts first (NaN left out; NaN where there is none)."""
    if torch.jit.is_scripting():
        if dim is None:
            return torch.nanmedian(input)
        return torch.nanmedian(input, dim, keepdim)[0]
    if _trt_onnx_exporting() and _trt_selectable(input, dim, None):
        if not input.is_floating_point():
            return _trt_sorted_element(input, None, dim, keepdim)  # no NaN: the median
        return _trt_sorted_nan_median(input, dim, keepdim)
    if dim is None:
        return torch.nanmedian(input)
    return torch.nanmedian(input, dim, keepdim)[0]


@torch.jit.unused
def _trt_sorted_nan_median(input, dim: int | None, keepdim: bool):
    """The lower median of the numbers along ``dim`` (``None``: of all elements), NaN left out: a sort with NaN
    as +inf, at position ``(count - 1) // 2`` of each line's ``count`` numbers; NaN where a line has none. An inf
    among the numbers sorts with the NaN, but the position stays among the first ``count``, where it is inf
    exactly when the numbers' median is."""
    keys = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else dim % input.dim()
    nan = torch.isnan(keys)
    keys = torch.where(nan, torch.full((), float("inf"), dtype=keys.dtype, device=keys.device), keys)
    count = keys.shape[axis] - nan.sum(axis, keepdim=True)
    position = torch.clamp((count - 1) // 2, min=0)
    picked = keys.sort(axis)[0].gather(axis, position)
    picked = torch.where(count == 0, torch.full((), float("nan"), dtype=picked.dtype, device=picked.device), picked)
    if dim is None:
        return picked.reshape(())
    return picked if keepdim else picked.select(axis, 0)


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


def _trt_quantile(input: torch.Tensor, q: float | torch.Tensor, dim: int | None = None, keepdim: bool = False,
                  interpolation: str = "linear"):
    """``torch.quantile(input, q, dim, keepdim, interpolation=...)``; while the TorchScript exporter
    traces, the two neighbouring elements of a sort and torch's interpolation between them.
    (``interpolation`` is keyword-only in torch; a script compiles no keyword-only parameter with a
    default, and the rewrite passes it by name.)"""
    if torch.jit.is_scripting():
        if isinstance(q, float):  # the script compiles torch's two overloads, one per branch
            return torch.quantile(input, q, dim, keepdim, interpolation=interpolation)
        return torch.quantile(input, q, dim, keepdim, interpolation=interpolation)
    # The dynamo exporter decomposes `aten::quantile` itself (sort, gather, lerp): only the
    # TorchScript exporter, which has no symbolic for it, takes the sort here.
    if torch.jit.is_tracing() and _trt_onnx_exporting() and _trt_quantile_takes(input, q, dim, interpolation):
        return _trt_sorted_quantile(input, q, dim, keepdim, interpolation)
    return torch.quantile(input, q, dim, keepdim, interpolation=interpolation)


@torch.jit.unused
def _trt_quantile_takes(input, q, dim: int | None, interpolation: str) -> bool:
    """The inputs torch.quantile answers without an error (float or double, non-empty, ``q`` in
    ``[0, 1]``, a float or a 0-d or 1-D tensor of the input's dtype, a known interpolation); others keep
    the torch function and its error."""
    if not isinstance(input, torch.Tensor) or input.dtype not in (torch.float32, torch.float64):
        return False
    if input.numel() == 0 or interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        return False
    if dim is not None and (type(dim) is not int or not -input.dim() <= dim < input.dim()):
        return False  # a 0-d input with a dim, or a dim out of range: torch's error
    if isinstance(q, torch.Tensor):
        if q.dim() > 1 or q.numel() == 0 or q.dtype != input.dtype or q.device != input.device:
            return False
        # q's values decide whether torch raises: read them outside the trace (a check read inside
        # would warn that the trace keeps a Python bool; q is the model's constant here, not an input).
        state = torch._C._get_tracing_state()
        torch._C._set_tracing_state(None)
        try:
            inside = bool(((q >= 0) & (q <= 1)).all())
        finally:
            torch._C._set_tracing_state(state)
        return inside
    return type(q) in (int, float) and 0 <= q <= 1


@torch.jit.unused
def _trt_sorted_quantile(input, q, dim: int | None, keepdim: bool, interpolation: str):
    """torch's quantile computed as torch does (aten ``quantile_compute``): ranks ``q * (n - 1)`` in the
    input's dtype, the elements at their floor and ceiling in a sort, torch's ``lerp`` between them; NaN
    wherever the reduced slice holds one. The sort is ONNX TopK, whose order of NaN is not defined, so
    NaN is sorted as ``+inf`` and the slice's result set to NaN after."""
    one_q = not isinstance(q, torch.Tensor) or q.dim() == 0
    qs = torch.as_tensor(q, dtype=input.dtype, device=input.device).reshape(-1)
    axis = 0 if dim is None else dim % input.dim()
    # The reduced axis last, by a permutation of non-negative axes (the TorchScript exporter writes
    # `movedim`'s negative axes into Transpose's `perm`, which ONNX Runtime refuses).
    others = [a for a in range(input.dim()) if a != axis]
    keys = input.reshape(-1) if dim is None else input.permute(others + [axis])
    nan = torch.isnan(keys)
    keys = torch.where(nan, torch.full((), float("inf"), dtype=keys.dtype, device=keys.device), keys)
    ordered = keys.sort(-1)[0]
    last = keys.shape[-1] - 1  # a traced size: the ranks follow the axis's length
    ranks = qs * last
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()  # half to even, as torch and ONNX Round
    below_index = ranks.to(torch.int64)  # ranks are >= 0: truncation is the floor, as torch's cast
    result = ordered.index_select(-1, below_index)
    if interpolation in ("linear", "midpoint"):
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below_index
        above = ordered.index_select(-1, ranks.ceil().to(torch.int64))
        # torch's lerp: start + w * (end - start) for |w| < 0.5, end + (w - 1) * (end - start) otherwise
        # (torch's CPU kernel fuses that multiply-add; the graph rounds twice, within an ulp).
        step = above - result
        result = torch.where(weights < 0.5, result + weights * step, above + (weights - 1) * step)
    result = torch.where(nan.any(-1, keepdim=True),
                         torch.full((), float("nan"), dtype=result.dtype, device=result.device), result)
    if dim is None:
        result = result.reshape((1,) * input.dim() + (-1,)) if keepdim else result
    elif keepdim:
        result = result.unsqueeze(axis)
    if one_q:
        return result[..., 0]
    return result.permute([result.dim() - 1] + list(range(result.dim() - 1)))  # the quantiles first, as torch
