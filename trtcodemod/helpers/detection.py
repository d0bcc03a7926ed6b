"""Top-k helpers: a capped K (``topk(x, min(C, x.shape[d]))``) exported with a constant K, and a K
above TensorRT's TopK limit (K < 3840) exported as several TopK rounds."""

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
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)


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
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
