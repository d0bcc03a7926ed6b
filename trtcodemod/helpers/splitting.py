"""``torch.tensor_split`` at given indices, exported as slices.

The TorchScript exporter writes ``tensor_split`` as ONNX sequence operators (a ``Loop`` filling
a sequence, or ``SplitToSequence``; each part then a ``SequenceAt``), which no TensorRT release
parses; the dynamo exporter keeps a split into sections at the traced size's part sizes. The parts are basic slices of the input
along one axis, ``x[:i1]``, ``x[i1:i2]``, ..., ``x[ik:]``, with Python's slice rules for
negative and out-of-range indices, exactly as ``tensor_split`` takes them; slices export as
``Slice`` nodes. ``_trt_tensor_split`` is ``torch.tensor_split`` itself everywhere except
inside ``torch.onnx.export``. ``_trt_tensor_sections`` does the same for a split into a number of
sections, with torch's part sizes: of ``L`` elements in ``n`` sections the first ``L % n`` parts hold
``L // n + 1``, the others ``L // n``.

``_trt_split_by_size`` (TRT718) is ``x.split(size, dim)`` itself everywhere except inside
``torch.onnx.export``, where ``split`` would take a traced ``size`` as the example's number: there
the axis is viewed as ``(parts, size)`` with every other size read from ``x`` and the parts
unbound. ``view`` with the other sizes, not ``unflatten``: the TorchScript exporter keeps a size
read later from a part of ``unflatten`` as the example's (a decoder's ``hidden.shape[:-1]`` after
Deformable DETR's two-stage split), and the sizes of a ``view`` as computed.

``_trt_unfold`` (TRT311) is ``x.unfold(dimension, size, step)`` itself everywhere except inside
``torch.onnx.export``, where windows that do not overlap (``step == size``) are the axis cut to a
whole number of windows and viewed as ``(windows, size)``, the window moved last: the same view of
``x`` as ``unfold``'s, with the axis's length kept in the graph (the TorchScript exporter's
``unfold`` needs that length fixed and stops on a dynamic one). Windows that overlap or leave gaps
(``step != size``) are gathered along the axis by computed indices instead: the same values, as a
copy (TRT311's unsafe case).

``_trt_as_strided`` (TRT363) is ``x.as_strided(size, stride, storage_offset)`` itself everywhere except
while the TorchScript exporter traces, where a view that is windows of one axis of ``x`` at the traced
numbers (an ``unfold`` written by hand: julius's and Kaldi's framing), or of two neighbouring axes of ``x``
taken as one (Longformer's overlapping chunks of a chunked view), is gathered as ``_trt_unfold``'s
overlapping windows are, from the count, window and step the code computed.

``_trt_unfold_axis`` (TRT330) is ``x.unfold(dimension, size, step)`` with a negative ``dimension``
counted from the front (``dimension + x.dim()``): the same axis, so the same view, in every mode;
the TorchScript exporter's ``unfold`` takes a negative dimension as an axis of the tensor one rank
larger it builds, and puts the windows on the wrong axis.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_tensor_split(x, indices: list[int], dim: int = 0):
    """``torch.tensor_split(x, indices, dim)``; while exporting to ONNX, the same views as slices.

    An input ``tensor_split`` refuses (a 0-d tensor, an axis out of range, indices that are not
    numbers) keeps ``torch.tensor_split`` while exporting too, so its error stays the same.
    """
    if torch.jit.is_scripting():
        return torch.tensor_split(x, indices, dim)
    if (_trt_onnx_exporting() and isinstance(x, torch.Tensor) and -x.dim() <= dim < x.dim()
            and all(isinstance(i, (int, torch.Tensor)) and not isinstance(i, bool) for i in indices)):
        return _trt_tensor_split_slices(x, indices, dim)
    return torch.tensor_split(x, indices, dim)


@torch.jit.unused
def _trt_tensor_split_slices(x, indices, dim: int):
    """The parts as slices along ``dim`` (never runs when scripted)."""
    lead = (slice(None),) * (dim % x.dim())
    bounds = [None, *indices, None]
    return tuple(x[lead + (slice(bounds[k], bounds[k + 1]),)] for k in range(len(bounds) - 1))


def _trt_tensor_sections(x, sections: int, dim: int = 0):
    """``torch.tensor_split(x, sections, dim)``; while exporting to ONNX, the same views as slices.

    An input ``tensor_split`` refuses (a 0-d tensor, an axis out of range, no sections) keeps
    ``torch.tensor_split`` while exporting too, so its error stays the same.
    """
    if torch.jit.is_scripting():
        return torch.tensor_split(x, sections, dim)
    if (_trt_onnx_exporting() and isinstance(x, torch.Tensor) and -x.dim() <= dim < x.dim()
            and isinstance(sections, int) and not isinstance(sections, bool) and sections > 0):
        return _trt_tensor_split_slices(x, _trt_section_points(x.shape[dim], sections), dim)
    return torch.tensor_split(x, sections, dim)


@torch.jit.unused
def _trt_section_points(length, sections: int):
    """Where torch cuts ``length`` elements into ``sections`` parts (never runs when scripted).

    Point ``k`` is ``k * (length // sections) + min(k, length % sections)``; the minimum is written
    as ``(k + r - |k - r|) // 2``, with no comparison, so that a length the exporter traces stays a
    computation in the graph instead of the example's value.
    """
    size, extra = length // sections, length % sections
    return [k * size + (k + extra - abs(k - extra)) // 2 for k in range(1, sections)]


def _trt_split_by_size(x, size: int, dim: int = 0):
    """``x.split(size, dim)``; while exporting to ONNX, the axis viewed as whole parts of ``size``.

    The export's form assumes the axis holds a whole number of parts (TRT718's stated assumption);
    an input ``split`` refuses (a 0-d tensor, an axis out of range) keeps ``split`` there too.
    """
    if torch.jit.is_scripting():
        return x.split(size, dim)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor) and -x.dim() <= dim < x.dim():
        return _trt_split_views(x, size, dim)
    return x.split(size, dim)


@torch.jit.unused
def _trt_split_views(x, size, dim: int):
    """The parts as views of ``x``: its axis ``dim`` viewed as ``(-1, size)``, then unbound."""
    axis = dim % x.dim()
    return x.view(tuple(x.shape[:axis]) + (-1, size) + tuple(x.shape[axis + 1:])).unbind(axis)


def _trt_unfold(x, dimension: int, size: int, step: int):
    """``x.unfold(dimension, size, step)``; while exporting to ONNX, windows that do not overlap
    as a view of the axis cut to whole windows, and other windows gathered by computed indices.

    A size that is also the step and a 0-d integer tensor (a size the exporter traces) gives the view
    too. Any other size or step that is not a positive ``int``, and an input ``unfold`` refuses (a 0-d
    tensor, an axis out of range), keep ``unfold`` while exporting too (a negative dimension counted
    from the front, the same view: ``_trt_unfold_axis``).
    """
    if torch.jit.is_scripting():
        return x.unfold(dimension, size, step)
    if (_trt_onnx_exporting() and isinstance(x, torch.Tensor) and isinstance(dimension, int)
            and not isinstance(dimension, bool) and -x.dim() <= dimension < x.dim()):
        if (isinstance(size, int) and not isinstance(size, bool) and isinstance(step, int)
                and not isinstance(step, bool) and size > 0 and step > 0):
            if size == step:
                return _trt_unfold_views(x, dimension, size)
            return _trt_unfold_gathered(x, dimension, size, step)
        if size is step and _trt_traced_count(size):
            # One traced size for both (`t.unfold(2, k, k)`, `k` read from a shape): whole windows.
            return _trt_unfold_views(x, dimension, size)
    # A negative dimension counted from the front: the same view, which the TorchScript exporter's own
    # `unfold` puts on the right axis (TRT330).
    return _trt_unfold_axis(x, dimension, size, step)


def _trt_unfold_axis(x, dimension: int, size: int, step: int):
    """``x.unfold(dimension, size, step)`` with a negative ``dimension`` in range written as the same axis
    counted from the front; anything else (scripted, not a tensor, not an ``int``, out of range, a 0-d
    tensor) is ``unfold`` as written, with its own errors."""
    if torch.jit.is_scripting():
        return x.unfold(dimension, size, step)
    if (isinstance(x, torch.Tensor) and isinstance(dimension, int) and not isinstance(dimension, bool)
            and -x.dim() <= dimension < 0):
        return x.unfold(dimension + x.dim(), size, step)
    return x.unfold(dimension, size, step)


@torch.jit.unused
def _trt_traced_count(value) -> bool:
    """A 0-d integer tensor: how the TorchScript exporter passes a size read from a shape, or computed
    from one (never runs when scripted)."""
    return (isinstance(value, torch.Tensor) and value.dim() == 0 and not value.is_floating_point()
            and not value.is_complex() and value.dtype != torch.bool)


@torch.jit.unused
def _trt_unfold_views(x, dimension: int, size: int):
    """The windows of ``size`` along ``dimension`` as one view of ``x`` (never runs when scripted)."""
    # unfold's own check: an axis shorter than one window raises as unfold does; the result
    # is never used, so the exported graph drops the node.
    x.unfold(dimension, size, size)
    axis = dimension % x.dim()
    count = x.shape[axis] // size  # a count, not -1: a view of no elements cannot infer it
    whole = x.narrow(axis, 0, count * size)
    # The other sizes are read from `x`, not `whole`: ONNX Runtime folds sizes read from the
    # reshaped tensor itself into a shape with -1, which an input of no elements cannot take.
    windows = whole.view(tuple(x.shape[:axis]) + (count, size) + tuple(x.shape[axis + 1:]))
    return windows.movedim(axis + 1, -1)


@torch.jit.unused
def _trt_unfold_gathered(x, dimension: int, size: int, step: int):
    """Windows of ``size`` every ``step`` along ``dimension``, gathered by index (never runs when
    scripted): ``unfold``'s values and shape, as a new tensor."""
    x.unfold(dimension, size, step)  # unfold's own check, as in _trt_unfold_views
    axis = dimension % x.dim()
    return _trt_windows_gathered(x, axis, (x.shape[axis] - size) // step + 1, size, step)


@torch.jit.unused
def _trt_windows_gathered(x, axis: int, count: int, size: int, step: int):
    """The first ``count`` windows of ``size`` every ``step`` along ``axis`` (non-negative), gathered by
    index, the window axis last (never runs when scripted). The three numbers may be traced sizes (0-d
    tensors): the indices are computed in the graph from them."""
    starts = torch.arange(count, device=x.device) * step
    index = (starts[:, None] + torch.arange(size, device=x.device)[None, :]).reshape(-1)
    windows = x.index_select(axis, index)
    # Sizes from `x` and the count, never -1: as in _trt_unfold_views, an empty input must reshape.
    windows = windows.view(tuple(x.shape[:axis]) + (count, size) + tuple(x.shape[axis + 1:]))
    return windows.movedim(axis + 1, -1)


def _trt_unflatten(x, dim: int, sizes: list[int]):
    """``torch.unflatten(x, dim, sizes)``; while exporting to ONNX, the same view written as ``view``
    with every other size read from ``x``.

    An input ``unflatten`` refuses before it views (a 0-d tensor, an axis out of range, no sizes,
    sizes that are not numbers or 0-d tensors) keeps ``torch.unflatten`` while exporting too, so its error stays the
    same; sizes that do not multiply up to the axis make ``view`` raise as ``unflatten`` does.
    """
    if torch.jit.is_scripting():
        return torch.unflatten(x, dim, sizes)
    if _trt_onnx_exporting() and _trt_unflatten_takes(x, dim, sizes):
        return _trt_unflatten_view(x, dim, sizes)
    return torch.unflatten(x, dim, sizes)


@torch.jit.unused
def _trt_unflatten_takes(x, dim, sizes) -> bool:
    """A tensor of one axis or more, an integer axis in range and one or more sizes, each an integer
    or a 0-d tensor (a size the TorchScript exporter traces; its ``dim()`` is a number while tracing,
    where ``numel()`` would be a traced tensor read into a bool) (never runs when scripted)."""
    if not (isinstance(x, torch.Tensor) and x.dim() > 0 and isinstance(dim, int) and not isinstance(dim, bool)):
        return False
    if not (-x.dim() <= dim < x.dim() and isinstance(sizes, (list, tuple)) and len(sizes) > 0):
        return False
    return all((isinstance(s, int) and not isinstance(s, bool)) or (isinstance(s, torch.Tensor) and s.dim() == 0)
               for s in sizes)


@torch.jit.unused
def _trt_unflatten_view(x, dim: int, sizes):
    """``x`` viewed with axis ``dim`` replaced by ``sizes`` and the other sizes read from ``x`` (never
    runs when scripted): the TorchScript exporter keeps those reads in the graph, where its ``unflatten``
    leaves the result's sizes unknown and any size read from it later is the example's."""
    axis = dim % x.dim()
    return x.view(tuple(x.shape[:axis]) + tuple(sizes) + tuple(x.shape[axis + 1:]))


def _trt_as_strided(x, size: list[int], stride: list[int], storage_offset: int | None = None):
    """``x.as_strided(size, stride, storage_offset)``; while the TorchScript exporter traces, a view that is
    windows of one axis of ``x`` (an ``unfold`` written by hand: audio framing) as those windows.

    The TorchScript exporter needs ``as_strided``'s strides as constants (a traced one stops it), and strides
    read from ``x.stride()`` are the example's numbers. Where, on the traced example, the view's sizes and
    strides are ``x``'s own with one axis ``d`` replaced by ``count`` windows every ``step`` elements (stride
    ``step * x.stride(d)``) and a window axis of ``window`` elements (stride ``x.stride(d)``) placed anywhere,
    the offset is ``x``'s and every window lies inside the axis (or all this holds of ``x`` with two
    neighbouring axes flattened, where the view keeps ``x``'s rank: Longformer's overlapping chunks), the view
    is ``unfold``'s first ``count`` windows: they are computed from the count, window and step the code passed (traced sizes stay traced),
    gathered by index (a copy), the window axis moved where the code put it. Anything else, and every mode
    but a TorchScript export, is ``as_strided`` as written, with its own errors.
    """
    if torch.jit.is_scripting():
        return x.as_strided(size, stride, storage_offset)
    if torch.jit.is_tracing() and _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        windows = _trt_as_strided_windows(x, size, stride, storage_offset)
        if windows is not None:
            return windows
    if storage_offset is None:
        return x.as_strided(size, stride)
    return x.as_strided(size, stride, storage_offset)


@torch.jit.unused
def _trt_as_strided_windows(x, size, stride, storage_offset):
    """The windows ``x.as_strided(size, stride, storage_offset)`` views, gathered, or None where the view
    is not windows of one axis of ``x``, nor of two neighbouring axes of ``x`` taken as one (never runs
    when scripted)."""
    found = _trt_strided_windows(x, size, stride, storage_offset)
    if found is None:
        x, found = _trt_merged_windows(x, size, stride, storage_offset)
    if found is None:
        return None
    axis, place, step = found
    windows = _trt_windows_gathered(x, axis, size[axis if axis < place else axis + 1], size[place], step)
    # Non-negative: the TorchScript exporter writes a negative source of movedim into Transpose wrongly.
    return windows.movedim(windows.dim() - 1, place)


@torch.jit.unused
def _trt_merged_windows(x, size, stride, storage_offset):
    """``(merged, found)`` where ``as_strided`` keeps ``x``'s rank and views windows of two neighbouring axes
    of ``x`` taken as one: Longformer's chunks of ``2w`` rows overlapped by halving the chunk stride, CogView's
    blocks of ``w`` rows stretched over the blocks after them. ``merged`` is ``x`` with those axes flattened,
    a view of the same storage at the same offset, so ``as_strided`` of either is the same view; ``found`` is
    :func:`_trt_strided_windows` of it. ``(x, None)`` otherwise (never runs when scripted). The axes are tried
    last first, the check made outside the trace (no node); only the flatten that is used is traced."""
    if not isinstance(size, (list, tuple)) or len(size) != x.dim():
        return x, None
    for axis in range(x.dim() - 2, -1, -1):
        inner = _trt_untraced_int(x.shape[axis + 1])
        # Flattening these two axes is a view only where the outer one steps over the whole inner one.
        if inner is None or inner < 2 or x.stride(axis) != inner * x.stride(axis + 1):
            continue
        state = torch._C._get_tracing_state()
        torch._C._set_tracing_state(None)
        try:
            found = _trt_strided_windows(x.flatten(axis, axis + 1), size, stride, storage_offset)
        finally:
            torch._C._set_tracing_state(state)
        if found is not None:
            return x.flatten(axis, axis + 1), found
    return x, None


@torch.jit.unused
def _trt_strided_windows(x, size, stride, storage_offset):
    """``(axis, place, step)`` where ``as_strided(size, stride, storage_offset)`` of ``x`` is, on these
    values, windows of ``x``'s ``axis`` with the window axis at ``place`` of the result, every ``step``
    (the code's own number where its stride is one, so a traced step stays traced); None otherwise (never
    runs when scripted). Traced sizes are read outside the trace: the check leaves no node in the graph."""
    rank = x.dim()
    if rank == 0 or not isinstance(size, (list, tuple)) or not isinstance(stride, (list, tuple)):
        return None
    if len(size) != rank + 1 or len(stride) != rank + 1:
        return None
    sizes = [_trt_untraced_int(v) for v in size]
    strides = [_trt_untraced_int(v) for v in stride]
    shape = [_trt_untraced_int(v) for v in x.shape]
    offset = x.storage_offset() if storage_offset is None else _trt_untraced_int(storage_offset)
    if None in sizes or None in strides or offset != x.storage_offset():
        return None
    for place in range(rank, -1, -1):  # the window axis, last first (unfold's layout)
        kept = [k for k in range(rank + 1) if k != place]  # the result's axes that are x's
        for axis in range(rank - 1, -1, -1):
            unit = x.stride(axis)
            at = kept[axis]
            if unit <= 0 or strides[place] != unit or strides[at] % unit != 0:
                continue
            count, window, step = sizes[at], sizes[place], strides[at] // unit
            if step < 1 or window < 1 or count < 0 or (count > 0 and (count - 1) * step + window > shape[axis]):
                continue
            if any(sizes[kept[k]] != shape[k] or strides[kept[k]] != x.stride(k) for k in range(rank) if k != axis):
                continue
            # The code's own step (traced where the code's is), in units of the axis's elements.
            return axis, place, stride[at] if unit == 1 else stride[at] // unit
    return None


@torch.jit.unused
def _trt_untraced_int(value):
    """An ``int`` or a 0-d integer tensor's value as an ``int``, read outside the trace (no TracerWarning,
    no node); None for anything else (never runs when scripted)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not _trt_traced_count(value):
        return None
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        return int(value)
    finally:
        torch._C._set_tracing_state(state)
