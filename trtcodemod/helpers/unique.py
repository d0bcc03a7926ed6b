"""``torch.unique`` (sorted values only) without the ONNX ``Unique`` op.

TensorRT has never parsed ``Unique`` (reference/trt_onnx_ops_history.csv). The helper
sorts and keeps the first value of each run of equal values: Sort exports as ``TopK``,
the selection as ``NonZero`` + ``Gather``. The result's length still depends on the
data, so TensorRT needs a version with ``NonZero`` (8.5 or newer). Outside
``torch.onnx.export``, ``_trt_unique`` is ``torch.unique`` itself.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_unique(x):
    """``torch.unique(x)``; while exporting to ONNX, a sort-based form without ``Unique``.

    An fx ``Proxy`` records ``torch.unique`` as the original call would. A receiver of
    the method form that is not a tensor (a pandas ``Series``) keeps its own ``unique``.
    """
    if torch.jit.is_scripting():
        return torch.unique(x)
    # An fx Proxy has every method, yet stands for a tensor: it must record torch.unique.
    if not isinstance(x, (torch.Tensor, torch.fx.Proxy)) and hasattr(x, "unique"):
        return x.unique()
    if _trt_onnx_exporting():
        return _trt_unique_onnx(x)
    return torch.unique(x)


def _trt_unique_onnx(x):
    """``torch.unique(x)``: the sorted distinct values of ``x``, flattened.

    Same values, length and dtype as ``torch.unique`` (sorted=True, no inverse, no
    counts, dim=None) for every dtype and shape, empty and 0-d tensors included.
    NaN compares unequal to itself, so every NaN is kept, after all numbers, as
    torch does. When both 0.0 and -0.0 occur, which one stands for zero is
    unspecified in torch itself (its sort is not stable); the helper may pick the
    other one.
    """
    flat = x.reshape(-1)
    if flat.dtype == torch.bool:
        # ONNX TopK has no bool kernel: sort 0/1 as int32 and convert back.
        return _trt_unique_onnx(flat.to(torch.int32)).to(torch.bool)
    values = torch.sort(flat).values
    # A value is kept when it differs from its predecessor; the first one always is. Every
    # size here follows the input's length, 0 included: a slice like values[:1] would be
    # traced as length 1 (torch.export assumes a dynamic length of 2 or more) and break
    # on an empty input; and the dynamo exporter refuses a Concat of pieces that are all empty
    # in the example (a (0, 4) input), so the filler in front of the predecessors is one value.
    previous = torch.cat([values.new_zeros(1), values])[:values.shape[0]]
    first = torch.arange(values.shape[0], device=values.device) == 0
    keep = (values != previous) | first
    # index_select: a plain Gather (indexing by a tensor exports as GatherND with dynamo).
    return torch.index_select(values, 0, torch.nonzero(keep.to(torch.float32)).reshape(-1))


def _trt_unique_inverse(x):
    """``torch.unique(x, return_inverse=True)``; while exporting to ONNX, sort-based (no ``Unique``)."""
    if torch.jit.is_scripting():
        return torch.unique(x, return_inverse=True)
    if not isinstance(x, (torch.Tensor, torch.fx.Proxy)) and hasattr(x, "unique"):
        return x.unique(return_inverse=True)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        values, inverse, _ = _trt_unique_all_onnx(x)
        return values, inverse
    return torch.unique(x, return_inverse=True)


def _trt_unique_counts(x):
    """``torch.unique(x, return_counts=True)``; while exporting to ONNX, sort-based (no ``Unique``)."""
    if torch.jit.is_scripting():
        return torch.unique(x, return_counts=True)
    if not isinstance(x, (torch.Tensor, torch.fx.Proxy)) and hasattr(x, "unique"):
        return x.unique(return_counts=True)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        values, _, counts = _trt_unique_all_onnx(x)
        return values, counts
    return torch.unique(x, return_counts=True)


def _trt_unique_inverse_counts(x):
    """``torch.unique(x, return_inverse=True, return_counts=True)``; while exporting to ONNX,
    sort-based (no ``Unique``)."""
    if torch.jit.is_scripting():
        return torch.unique(x, return_inverse=True, return_counts=True)
    if not isinstance(x, (torch.Tensor, torch.fx.Proxy)) and hasattr(x, "unique"):
        return x.unique(return_inverse=True, return_counts=True)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        return _trt_unique_all_onnx(x)
    return torch.unique(x, return_inverse=True, return_counts=True)


@torch.jit.unused
def _trt_unique_all_onnx(x):
    """The sorted distinct values of ``x``, each element's index among them (``x``'s shape) and each
    value's count, as ``torch.unique(x, return_inverse=True, return_counts=True)`` gives them
    (never runs when scripted).

    The flat values are sorted (TopK, which also gives where each came from); a run of equal
    values starts where a value differs from its predecessor (every NaN starts its own, as in
    torch). An element's index is the number of run starts up to its sorted place, less one:
    a running sum of the start flags, taken in float32 because TensorRT's CumSum is floating
    point only, so it is exact below 2**24 elements (the fix's assumption); ScatterElements
    puts each back where the sort took it from. A count is the distance from a run's start to
    the next one's (the last to the length); NonZero finds the starts, so the lengths of the
    values and counts still follow the data (TensorRT 8.5 or newer).
    """
    flat = x.reshape(-1)
    sortable = flat.to(torch.int32) if flat.dtype == torch.bool else flat  # ONNX TopK has no bool kernel
    ordered, order = torch.sort(sortable)
    # As in _trt_unique_onnx: every size follows the input's length, an empty one included.
    previous = torch.cat([ordered.new_zeros(1), ordered])[:ordered.shape[0]]
    first = torch.arange(ordered.shape[0], device=ordered.device) == 0
    starts_here = (ordered != previous) | first
    rank = starts_here.to(torch.float32).cumsum(0).to(torch.int64) - 1
    inverse = torch.zeros_like(order).scatter(0, order, rank).reshape(x.shape)
    starts = torch.nonzero(starts_here.to(torch.float32)).reshape(-1)
    ends = torch.cat([starts, starts.new_ones(1) * flat.shape[0]])[1:]
    values = torch.index_select(ordered, 0, starts)
    if flat.dtype == torch.bool:
        values = values.to(torch.bool)
    return values, inverse, ends - starts
