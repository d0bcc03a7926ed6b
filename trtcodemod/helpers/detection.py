"""Top-k helpers: a capped K (``topk(x, min(C, x.shape[d]))``) exported with a constant K, a K
above TensorRT's TopK limit (K < 3840) exported as several TopK rounds, and an unsorted top-k exported sorted."""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_topk_capped(input: torch.Tensor, k: int, cap: int, size_dim: int, dim: int = -1, largest: bool = True,
                     sorted: bool = True):
    """``torch.topk(input, k, dim, largest, sorted)`` where ``k`` is ``min(cap, input.shape[size_dim])``.

    Outside ``torch.onnx.export`` this is ``torch.topk(input, k, ...)`` itself, with the
    ``k`` the caller computed: same values, indices, gradients and errors.

    While exporting, a floating-point tensor whose capped axis is the top-k axis, with
    ``largest=True`` and a positive Python int ``cap``, takes a form with a constant K:
    ``cap`` entries of ``-inf`` are appended along the axis, ``topk(cap)`` selects from
    that (in rounds of at most 3839 when ``cap`` passes TensorRT's TopK limit, see
    :func:`_trt_topk_rounds`), and both results are cut to the axis' size. The cut keeps
    ``min(cap, n)`` entries for every size ``n`` of the axis (a slice clamps at the end),
    which is what ``k`` is, instead of the one branch of ``min`` a trace records.
    Appended entries sort after every input entry except ``-inf`` ones, and ONNX's TopK
    puts the lower index first among equal values: an input ``-inf`` is kept before an
    appended one. The padded TopK is always sorted: the cut needs the input entries first,
    and ``sorted=False`` leaves the order unspecified, so sorted is one of its orders.
    """
    if torch.jit.is_scripting():
        return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    if (
        _trt_onnx_exporting()
        and isinstance(input, torch.Tensor)
        and input.is_floating_point()
        and input.dim() >= 1
        and type(cap) is int
        and 0 < cap
        and type(size_dim) is int
        and type(dim) is int
        and -input.dim() <= size_dim < input.dim()
        and -input.dim() <= dim < input.dim()
        and size_dim % input.dim() == dim % input.dim()
        and largest is True
    ):
        axis = dim % input.dim()
        size = input.shape[axis]
        # A constant block of -inf (an initializer) expanded to the input's other sizes.
        block = [1] * input.dim()
        block[axis] = cap
        fill = torch.full(block, float("-inf"), dtype=input.dtype, device=input.device)
        fill = fill.expand(input.shape[:axis] + (cap,) + input.shape[axis + 1:])
        # sorted=True whatever the caller asked: an unsorted TopK (ONNX Runtime's) may put an
        # appended -inf before an input entry, and the cut would drop that entry.
        values, indices = _trt_topk_rounds(torch.cat([input, fill], axis), cap, axis, True)
        keep = (slice(None),) * axis + (slice(0, size),)
        return torch.return_types.topk((values[keep], indices[keep]))
    if not isinstance(input, torch.Tensor):
        return input.topk(k, dim=dim, largest=largest, sorted=sorted)
    # TensorRT's parser takes a sorted TopK only (TRT805); sorted is an order sorted=False allows.
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted or _trt_onnx_exporting())


def _trt_topk_rounds(input: torch.Tensor, k: int, axis: int, largest: bool):
    """ONNX TopK(K = ``k``, sorted) along ``axis`` as TopK rounds of at most 3839 (TensorRT's limit).

    Each round takes the best of what is left, then drops the taken entries and keeps the
    others in their order (a stable partition: ``CumSum`` of the kept flags gives each kept
    entry its new place, ``ScatterElements`` moves values and original positions there, a
    constant ``Slice`` drops the taken tail). Since ONNX's TopK orders equal values by
    index, lower first, and the order of what is left never changes, the rounds return the
    values and indices one TopK of ``k`` returns. The flags are summed in float32 (TensorRT's
    CumSum is floating point only): exact for axes below 2**24 entries.
    """
    limit = 3839
    if k <= limit:
        return torch.topk(input, k, dim=axis, largest=largest, sorted=True)
    values, indices = [], []
    rest = input
    origin = None  # the original position of each entry of `rest` along the axis; None: its own
    left = k
    while True:
        take = min(left, limit)
        part_values, part_indices = torch.topk(rest, take, dim=axis, largest=largest, sorted=True)
        values.append(part_values)
        indices.append(part_indices if origin is None else torch.gather(origin, axis, part_indices))
        left -= take
        if left == 0:
            break
        if origin is None:
            shape = [1] * rest.dim()
            shape[axis] = -1
            origin = torch.arange(rest.shape[axis], device=rest.device).view(shape).expand_as(rest)
        taken = torch.zeros(rest.shape, dtype=torch.float32, device=rest.device).scatter(
            axis, part_indices, torch.ones(part_indices.shape, dtype=torch.float32, device=rest.device))
        kept = 1.0 - taken
        place = torch.where(taken > 0, kept.sum(axis, keepdim=True) + taken.cumsum(axis), kept.cumsum(axis)) - 1.0
        place = place.long()
        keep = (slice(None),) * axis + (slice(0, -take),)
        rest = torch.zeros_like(rest).scatter(axis, place, rest)[keep]
        origin = torch.zeros_like(origin).scatter(axis, place, origin)[keep]
    return torch.cat(values, axis), torch.cat(indices, axis)


def _trt_topk_large(input: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``torch.topk(input, k, dim, largest, sorted)`` for a ``k`` that may pass TensorRT's TopK limit.

    Outside ``torch.onnx.export`` this is ``torch.topk`` itself: same values, indices,
    gradients and errors. While exporting, a Python int ``k`` of 3840 or more takes
    :func:`_trt_topk_rounds`: several TopK nodes of at most 3839, whose results are
    those of one ONNX TopK of ``k`` (sorted; ``sorted=False`` leaves the order free).
    """
    if torch.jit.is_scripting():
        return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    if (
        _trt_onnx_exporting()
        and isinstance(input, torch.Tensor)
        and input.dim() >= 1
        and type(k) is int
        and k >= 3840
        and type(dim) is int
        and -input.dim() <= dim < input.dim()
        and type(largest) is bool
    ):
        values, indices = _trt_topk_rounds(input, k, dim % input.dim(), largest)
        return torch.return_types.topk((values, indices))
    if not isinstance(input, torch.Tensor):
        return input.topk(k, dim=dim, largest=largest, sorted=sorted)
    # TensorRT's parser takes a sorted TopK only (TRT805); sorted is an order sorted=False allows.
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted or _trt_onnx_exporting())


def _trt_topk_unsorted(input: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``torch.topk(input, k, dim, largest, sorted)`` whose export is a sorted TopK (TRT805).

    Outside ``torch.onnx.export`` this is ``torch.topk`` itself: same values, indices,
    gradients and errors. While exporting, a tensor's top-k is asked for ``sorted=True``:
    TensorRT's parser takes ``sorted=1`` only, and ``sorted=False`` leaves the order of the
    results to the implementation, so the sorted order is one it allows.
    """
    if torch.jit.is_scripting():
        return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    if not isinstance(input, torch.Tensor):
        return input.topk(k, dim=dim, largest=largest, sorted=sorted)
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted or _trt_onnx_exporting())


def _trt_topk_guard(k: int, size: int) -> bool:
    """``k < size`` in a guard ``if 0 < k < x.shape[d]:`` around a top-k of ``k`` (TRT803).

    Outside ``torch.onnx.export`` this is ``k < size`` itself. While exporting, for a
    positive Python int ``k``, it is ``True``: the size is a traced value there, and the
    comparison would keep the branch the example took. The guarded block's top-k is then
    :func:`_trt_topk_guarded` (or :func:`_trt_sort_guarded`), which selects every entry in
    its order where ``k`` is not below the size, as skipping the block does.
    """
    if torch.jit.is_scripting():
        return k < size
    if _trt_onnx_exporting() and type(k) is int and k > 0:
        return True
    return k < size


def _trt_guarded_exporting(input: torch.Tensor, k: int, dim: int, largest_first: bool) -> bool:
    """Whether a guarded selection takes its export formulation: while exporting, a floating-point
    tensor, a positive Python int ``k``, an int ``dim`` in range, the largest entries first."""
    return (
        _trt_onnx_exporting()
        and isinstance(input, torch.Tensor)
        and input.is_floating_point()
        and input.dim() >= 1
        and type(k) is int
        and k > 0
        and type(dim) is int
        and -input.dim() <= dim < input.dim()
        and largest_first is True
    )


def _trt_guarded_selection(input: torch.Tensor, k: int, axis: int):
    """While exporting: the top ``k`` of ``input`` along ``axis`` where the axis has more than
    ``k`` entries, else every entry in its order (what ``if k < n: topk(k)`` keeps), as
    (values, indices) of ``min(k, n)`` entries, with a constant K in every TopK node.

    The axis is padded with ``max(k - n, 0)`` entries of ``-inf`` (a slice of a constant block
    from ``n`` on: empty where ``n > k``), so that a TopK of the constant ``k`` (in rounds past
    TensorRT's limit, :func:`_trt_topk_rounds`) always has enough entries; where ``n > k`` it
    sees the input alone, as the original's TopK does. Where ``n <= k`` its result is not
    used: the indices are ``arange(n)``. Which of the two is a tensor (``arange(n) >= k`` has
    a true entry), never a Python bool, so the graph keeps both outcomes; the values are
    gathered from the input at the chosen indices, so they are the input's entries bit for bit.
    """
    n = input.shape[axis]
    block = [1] * input.dim()
    block[axis] = k
    fill = torch.full(block, float("-inf"), dtype=input.dtype, device=input.device)
    fill = fill.expand(input.shape[:axis] + (k,) + input.shape[axis + 1:])
    before = (slice(None),) * axis
    padded = torch.cat([input, fill[before + (slice(n, None),)]], axis)
    _, best = _trt_topk_rounds(padded, k, axis, True)
    best = best[before + (slice(0, n),)]
    positions = torch.arange(n, device=input.device)
    more = (positions >= k).any()
    shape = [1] * input.dim()
    shape[axis] = -1
    order = positions[:k].view(shape).expand_as(best)
    indices = torch.where(more, best, order)
    return torch.gather(input, axis, indices), indices


def _trt_topk_guarded(input: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``torch.topk(input, k, dim, largest, sorted)`` inside ``if 0 < k < input.shape[dim]:`` (TRT803).

    Outside ``torch.onnx.export`` this is ``torch.topk`` itself: same values, indices,
    gradients and errors. While exporting (where :func:`_trt_topk_guard` lets the block run
    for every size), a floating-point input with a positive Python int ``k``, ``largest=True``
    and an int ``dim`` takes :func:`_trt_guarded_selection`: the top ``k`` where the axis has
    more than ``k`` entries, every entry in its order otherwise (what skipping the block
    keeps), with no TopK over TensorRT's limit and no size baked in.
    """
    if torch.jit.is_scripting():
        return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    if _trt_guarded_exporting(input, k, dim, largest):
        values, indices = _trt_guarded_selection(input, k, dim % input.dim())
        return torch.return_types.topk((values, indices))
    if not isinstance(input, torch.Tensor):
        return input.topk(k, dim=dim, largest=largest, sorted=sorted)
    # TensorRT's parser takes a sorted TopK only (TRT805); sorted is an order sorted=False allows.
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted or _trt_onnx_exporting())


def _trt_sort_guarded(input: torch.Tensor, k: int, dim: int = -1, descending: bool = False):
    """``torch.sort(input, dim, descending)`` inside ``if 0 < k < input.shape[dim]:`` whose
    results are only read through ``[:k]`` (TRT803; mmdet's "sort is faster than topk").

    Outside ``torch.onnx.export`` this is ``torch.sort`` itself. While exporting, a
    floating-point input with a positive Python int ``k`` and ``descending=True`` takes
    :func:`_trt_guarded_selection`: only the first ``min(k, n)`` entries of the sort, which
    is all that ``[:k]`` reads, instead of a TopK of the whole axis (K = n, past TensorRT's
    limit for large inputs); every entry in its order where the block would be skipped.
    """
    if torch.jit.is_scripting():
        return torch.sort(input, dim=dim, descending=descending)
    if _trt_guarded_exporting(input, k, dim, descending):
        values, indices = _trt_guarded_selection(input, k, dim % input.dim())
        return torch.return_types.sort((values, indices))
    if not isinstance(input, torch.Tensor):
        return input.sort(dim=dim, descending=descending)
    return torch.sort(input, dim=dim, descending=descending)


def _trt_stacked_rows(items, values, index, count):
    """``torch.stack(items)`` where a loop ``for b in range(count)`` made ``items[b] = values[b][index[b]]``
    (TRT358).

    Outside ``torch.onnx.export`` this is ``torch.stack(items)`` itself. While exporting, with an
    integer ``index`` of at least one axis, it takes the rows of the first ``count`` batch elements
    at once: element ``b`` is ``values[b][index[b]]``, as in the loop (a negative position counted
    from the end of the row), taken by one Gather from ``values`` with its batch and row axes
    flattened, and ``count`` is the traced size the loop's bound was read from, where the loop a
    trace unrolls holds the example's.
    """
    if torch.jit.is_scripting():
        return torch.stack(items)
    if (
        _trt_onnx_exporting()
        and len(items) > 0
        and isinstance(values, torch.Tensor)
        and isinstance(index, torch.Tensor)
        and index.dtype in (torch.int64, torch.int32)
        and index.dim() >= 1
        and values.dim() >= 2
    ):
        index = index[:count]
        size = values.shape[1]
        rows = torch.arange(count, device=index.device).reshape([-1] + [1] * (index.dim() - 1))
        # Python's negative positions counted from the end of each row (advanced indexing exports wrong
        # values for negative ones); then one Gather over the flattened (batch, row) axes whose indices keep
        # their shape: no Reshape to the result's sizes, which ONNX would read a 0 of (an empty index axis)
        # as "keep the input's size".
        flat = rows * size + torch.where(index < 0, index + size, index)
        return values.flatten(0, 1)[flat]
    return torch.stack(items)
