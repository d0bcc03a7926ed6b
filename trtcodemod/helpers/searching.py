"""``torch.searchsorted`` exported as a count of comparisons.

The TorchScript exporter has no symbolic for ``aten::searchsorted`` (torch 2.13, any opset) and
the dynamo exporter fails on it too. On an ascending ``sorted_sequence`` the index torch's binary
search returns for a value ``v`` is the number of boundaries it passes: ``not (s >= v)`` (``left``)
or ``not (s > v)`` (``right``). Written with the negation a NaN value passes every boundary, as in
torch (index ``n``). Boundaries that are not ascending, or hold a NaN, give torch an unspecified
(search-order) answer and the graph the count: the two can differ there.
``_trt_searchsorted`` is ``torch.searchsorted`` itself everywhere except inside
``torch.onnx.export``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_searchsorted(sorted_sequence, input, out_int32: bool = False, right: bool = False,
                      side: str | None = None):
    """``torch.searchsorted(sorted_sequence, input, ...)``; while exporting, the count of boundaries
    below each value (``m * n`` comparisons for ``m`` values and ``n`` boundaries)."""
    if torch.jit.is_scripting():
        return torch.searchsorted(sorted_sequence, input, out_int32=out_int32, right=right, side=side)
    if _trt_onnx_exporting() and _trt_countable(sorted_sequence, input, right, side):
        return _trt_count_below(sorted_sequence, input, out_int32, right or side == "right")
    return torch.searchsorted(sorted_sequence, input, out_int32=out_int32, right=right, side=side)


def _trt_countable(sorted_sequence, input, right: bool, side: str | None) -> bool:
    """The arguments torch accepts that the count takes: tensors of real dtypes, boundaries along
    the last axis (one row, or one per leading index of ``input``) and a consistent ``side``
    (anything else keeps torch's function and its error)."""
    if not (isinstance(sorted_sequence, torch.Tensor) and isinstance(input, torch.Tensor)):
        return False
    if side not in (None, "left", "right") or (side == "left" and right):
        return False
    for tensor in (sorted_sequence, input):
        if tensor.is_complex() or tensor.dtype == torch.bool:
            return False
    if sorted_sequence.dim() == 1:
        return True
    return sorted_sequence.dim() > 1 and input.dim() == sorted_sequence.dim() and (
        input.shape[:-1] == sorted_sequence.shape[:-1])


@torch.jit.unused
def _trt_count_below(sorted_sequence, input, out_int32: bool, right: bool):
    """For each value, how many boundaries lie below it (at or below it with ``right``)."""
    # Both in their promoted dtype, as torch compares them (an int64 value against float32
    # boundaries is compared as float32).
    common = torch.promote_types(sorted_sequence.dtype, input.dtype)
    values, boundaries = input.to(common).unsqueeze(-1), sorted_sequence.to(common)
    if boundaries.dim() > 1:
        boundaries = boundaries.unsqueeze(-2)
    passed = torch.logical_not(boundaries > values) if right else torch.logical_not(boundaries >= values)
    counts = passed.sum(-1)
    return counts.to(torch.int32) if out_int32 else counts
