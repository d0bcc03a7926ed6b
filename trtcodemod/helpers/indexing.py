"""Boolean-mask indexing, exported with explicit integer positions."""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_mask_index(values, mask):
    """``values[mask]``; while exporting to ONNX, a bool mask is turned into positions.

    Outside ``torch.onnx.export`` this is ``values[mask]`` itself, whatever ``values``
    and ``mask`` are (a Python list indexed by a one-element mask, a user class's
    ``__getitem__``, a long index from NMS, a mask of the wrong length that raises).

    While exporting, a tensor indexed by a 1-D bool tensor becomes
    ``index_select(values, 0, positions)``, the positions of the True entries in
    increasing order being exactly ``mask.nonzero()[:, 0]``. The mask is cast to float32 first, so the exported
    ``NonZero`` reads a type TensorRT's parser documents (FP32/FP16), and the selection
    exports as a plain ``Gather`` instead of ``Transpose`` + ``GatherND``. A k-D bool mask over
    the first k axes (detectron2's ``R x K`` score mask on ``R x K x 4`` boxes) is the same
    selection on those axes flattened into one, at the row-major positions of its True entries.
    """
    if torch.jit.is_scripting():
        return values[mask]
    if (
        _trt_onnx_exporting()
        and isinstance(values, torch.Tensor)
        and isinstance(mask, torch.Tensor)
        and mask.dtype == torch.bool
        and mask.dim() >= 1
        and values.dim() >= mask.dim()
    ):
        # index_select: a plain Gather from both exporters (dynamo turns `values[index]` into GatherND).
        if mask.dim() == 1:
            return torch.index_select(values, 0, torch.nonzero(mask.to(torch.float32)).reshape(-1))
        positions = torch.nonzero(mask.flatten().to(torch.float32)).reshape(-1)
        return torch.index_select(values.flatten(0, mask.dim() - 1), 0, positions)
    return values[mask]


@torch.jit.unused
def _trt_mask_axes(values, start: int, mask):
    """``values[:, ..., :, mask]``, ``start`` full slices before the mask (full slices after it change nothing).
    While exporting to ONNX, a tensor indexed there by a bool tensor selects on the masked axes flattened into
    one, at the row-major positions of the mask's True entries (``_trt_mask_index``'s selection, moved to axis
    ``start``): the TorchScript exporter writes a bool mask of two or more axes after a sliced axis with a
    Squeeze that ONNX Runtime refuses to load (SPIGA's ``dist[:, self.diagonal_mask, :]``)."""
    index = (slice(None),) * start + (mask,)
    if (_trt_onnx_exporting() and isinstance(values, torch.Tensor) and isinstance(mask, torch.Tensor)
            and mask.dtype == torch.bool and mask.dim() >= 1 and values.dim() >= start + mask.dim()):
        # (No call of the subscript for its errors here: tracing it converts a tensor to a bool, a bake the
        # verification would report at the helper. A mask that does not fit is checked by eager mode only, as the
        # original's exported graph checks nothing either.)
        positions = torch.nonzero(mask.flatten().to(torch.float32)).reshape(-1)
        return torch.index_select(values.flatten(start, start + mask.dim() - 1), start, positions)
    return values[index]


def _trt_index_list(indices):
    # type: (List[int]) -> List[int]
    """``indices`` itself, a list of positions on one axis; while exporting, the slice that names the same
    positions, where there is one.

    The TorchScript exporter writes an assignment into ``x[..., [0, 2]]`` (a list right after an
    Ellipsis, last in the subscript) as a graph that ONNX Runtime refuses: the Ellipsis's place among
    the write's indices becomes an absent input. A slice there exports as an ordinary slice write.
    Outside ``torch.onnx.export`` the list is returned untouched, so the write is the original one (an
    index past the axis raises ``IndexError`` as before; a slice would silently take fewer positions).
    """
    if torch.jit.is_scripting():
        return indices
    if _trt_onnx_exporting():
        return _trt_index_slice(indices)
    return indices


def _trt_ellipsis_list_write(target, index, value):
    """``target[..., index] = value``; while exporting, where ``index`` names positions on the last axis of a
    tensor (a list or tuple of distinct non-negative ints below its length), the same write as
    ``index_copy_`` along that axis of the value broadcast to the part written.

    The TorchScript exporter writes an assignment into ``x[..., positions]`` (a list, or a name bound to one,
    right after an Ellipsis) as a graph ONNX Runtime refuses (an ``Add`` of an absent input), and where the
    positions are no slice's (``list(range(5)) + list(range(15, 17))``) there is no slice to give it instead.
    ``index_copy_`` writes the same elements in place (an ONNX ScatterElements whose indices follow every size).
    Outside ``torch.onnx.export`` (and under ``torch.jit.script``) it is the assignment itself, on the same
    objects: values, errors (a position past the axis raises ``IndexError``) and aliasing are the original's.
    Repeated or negative positions, a tensor or bool index and a value with more axes than the part written keep
    the original write while exporting too."""
    if torch.jit.is_scripting():
        target[..., index] = value
        return
    if _trt_onnx_exporting() and isinstance(target, torch.Tensor) and target.dim() >= 1:
        positions = _trt_written_positions(index, target.shape[-1], target.device)
        if positions is not None:
            source = torch.as_tensor(value, dtype=target.dtype, device=target.device)
            if source.dim() <= target.dim():
                part = target[..., : positions.shape[0]]
                target.index_copy_(target.dim() - 1, positions, source.expand_as(part))
                return
    target[..., index] = value


@torch.jit.unused
def _trt_written_positions(index, length, device):
    """``index``, a list or tuple of ints, as a 1-D int64 tensor of distinct positions in ``[0, length)``, or None
    where it is not one (a tensor, which a trace cannot read into positions; an empty index, a bool, a repeated or
    negative position, a position past the axis: the original write then)."""
    if not isinstance(index, (list, tuple)) or len(index) == 0 or not all(type(i) is int for i in index):
        return None
    if len(set(index)) != len(index) or min(index) < 0 or max(index) >= length:
        return None
    return torch.tensor(index, dtype=torch.int64, device=device)


@torch.jit.unused
def _trt_index_slice(indices):
    """The slice ``first:last + 1:step`` that names the positions of ``indices`` when they are integers of one
    sign (all at least 0, or all negative, counted from the end) in strictly increasing steps of one size; else
    ``indices`` unchanged. ``[k]`` is ``k:k + 1``; a negative run that ends at -1 runs to the end (``-3::2``)."""
    if not isinstance(indices, list) or len(indices) == 0:
        return indices
    if not all(type(i) is int for i in indices):
        return indices
    first, last = indices[0], indices[-1]
    if (first < 0) != (last < 0):
        return indices
    step = indices[1] - first if len(indices) > 1 else 1
    if step <= 0 or any(b - a != step for a, b in zip(indices, indices[1:])):
        return indices
    stop = last + 1
    return slice(first, None if stop == 0 else stop, step)


def _trt_index_position(position, indices):
    # type: (int, List[Tensor]) -> int
    """``position``, an integer index written among index tensors (``out[b, 0, h, w] = v``); while exporting,
    the same position as a tensor of the index tensors' length.

    PyTorch takes the integer as a ``select`` of its axis and the index tensors as one advanced index of what
    is left; the TorchScript exporter cannot write that (``Only consecutive 1-d tensor indices are supported
    in exporting aten::index_put``). Where every other index of the subscript is a 1-d integer tensor and
    nothing is sliced, the position broadcast to their length names the same elements in the same order
    (every axis written is indexed, so the written elements line up alike), and the exporter writes one
    ScatterND. Outside ``torch.onnx.export``, or with any other index (a bool mask, a 2-d index, a number),
    the integer itself: the original write.
    """
    if torch.jit.is_scripting():
        return position
    if _trt_onnx_exporting():
        return _trt_index_position_tensor(position, indices)
    return position


@torch.jit.unused
def _trt_index_position_tensor(position, indices):
    """``position`` as a tensor like the first index tensor, where all of ``indices`` are 1-d integer tensors."""
    if not indices or not all(isinstance(i, torch.Tensor) and i.dim() == 1 and i.dtype in (torch.long, torch.int)
                              for i in indices):
        return position
    return torch.full_like(indices[0], position)


def _trt_index_put_sliced(target, indices, sliced, value):
    # type: (Tensor, List[Tensor], List[int], Tensor) -> None
    """``target[i, :, j, k] = value``: the index tensors ``indices`` in order, with a full slice ``:`` at each
    position of ``sliced`` (positions in the subscript, increasing); while exporting, a write the TorchScript
    exporter takes.

    Index tensors that a slice stands between make PyTorch put the indexed axes first in the part written, then
    the sliced ones; the TorchScript exporter refuses that write (``Only consecutive 1-d tensor indices are
    supported in exporting aten::index_put``), so the model does not export at all (lift-splat-shoot's voxel
    pooling, ``final[b, :, z, x, y] = feats``; PointPillars' scatter, ``canvas[b, :, y, x] = pillars``).
    While exporting, where ``target`` is a tensor and every index a 1-d integer tensor, the axes are moved so
    that the indexed ones come first: the part written is then the same elements in the same order and shape,
    the value is written there out of place (one ScatterND) and copied back into ``target``, which the trace
    follows as a write of ``target`` itself. Outside ``torch.onnx.export`` this is the assignment itself, with
    the same objects (a NumPy array, a bool mask, an index out of range that raises).
    """
    if torch.jit.is_scripting():
        # TorchScript writes `target[i, :, j] = value` as index_put_ with None at the slices; the same write
        # into a view whose indexed axes come first.
        order: List[int] = []
        for axis in range(target.dim()):
            if axis < len(indices) + len(sliced) and axis not in sliced:
                order.append(axis)
        for axis in range(target.dim()):
            if axis not in order:
                order.append(axis)
        target.permute(order).index_put_(indices, value)
        return
    if _trt_onnx_exporting() and _trt_index_put_moved(target, indices, sliced, value):
        return
    _trt_index_put_write(target, indices, sliced, value)


@torch.jit.unused
def _trt_index_put_write(target, indices, sliced, value):
    """``target[...] = value`` with the subscript rebuilt: ``indices`` in order, ``:`` at ``sliced``."""
    subscript = list(indices)
    for position in sliced:
        subscript.insert(position, slice(None))
    target[tuple(subscript)] = value


@torch.jit.unused
def _trt_index_put_moved(target, indices, sliced, value) -> bool:
    """Write ``target[...] = value`` with the indexed axes moved first, out of place, then copied back; False
    (nothing written) unless ``target`` is a tensor and ``indices`` are 1-d integer tensors standing apart."""
    if not isinstance(target, torch.Tensor) or not indices or not all(
            isinstance(i, torch.Tensor) and i.dim() == 1 and i.dtype in (torch.long, torch.int) for i in indices):
        return False
    count = len(indices) + len(sliced)
    if count > target.dim():
        return False
    axes = [axis for axis in range(count) if axis not in sliced]
    if axes[-1] - axes[0] == len(axes) - 1:
        return False  # consecutive: the exporter writes it as it is
    order = axes + [axis for axis in range(target.dim()) if axis not in axes]
    back = [order.index(axis) for axis in range(target.dim())]
    # a tensor value as the write takes it (another dtype raises as it does); a number as a 0-d tensor of the
    # target's dtype, which the write converts it to (torch.as_tensor would warn in the trace)
    fill = value if isinstance(value, torch.Tensor) else target.new_full((), value)
    target.copy_(target.permute(order).index_put(tuple(indices), fill).permute(back))
    return True


def _trt_slice_value(value, part):
    """``value``, written into ``part`` (the slice ``x[:, :, 0]`` of ``x[:, :, 0] = value``); while exporting,
    ``value.expand_as(part)``.

    The write broadcasts ``value`` to the slice (``torch.arange(d).view(d, 1, 1)`` into a slice of shape
    ``(b, c, d, h, w)``). The TorchScript trace records that broadcast with the example's sizes as constants,
    so at any other size the graph expands to the wrong shape and ONNX Runtime refuses to run it. Expanded
    explicitly to the slice, the shape comes from the slice's own traced sizes. The same values are written:
    the write would broadcast the value to this shape itself. A value with more axes than the slice (leading
    size-1 axes, which the write drops and ``expand_as`` rejects) and anything that is not a tensor are left
    to the write.
    """
    if torch.jit.is_scripting():
        return value
    if _trt_onnx_exporting():
        return _trt_slice_value_expanded(value, part)
    return value


@torch.jit.unused
def _trt_slice_value_expanded(value, part):
    """``value.expand_as(part)`` where ``value`` is a tensor with no more axes than the tensor ``part``."""
    if isinstance(value, torch.Tensor) and isinstance(part, torch.Tensor) and value.dim() <= part.dim():
        return value.expand_as(part)
    return value


def _trt_new_axes_value(value, view, axes, assigned=True):
    # type: (Tensor, Tensor, List[int], bool) -> Tensor
    """``value`` as a write into ``view`` (``x[:, :3, 3, None]``, a subscript with ``None``) takes it, with
    the new axes ``axes`` (select order: non-negative ones from the last, then negative ones from the first)
    taken away: what the same write without the ``None`` s (``x[:, :3, 3]``) needs to change the same elements
    to the same values.

    The TorchScript exporter drops a write through a subscript holding ``None`` from the graph without a
    word (torch 2.13); the same write without it is recorded. The value is broadcast to ``view``, as the
    write does, and the new axes, of size 1 in ``view``, are selected at 0. An assignment (``assigned``)
    first drops leading size-1 axes ``view`` lacks, as ``x[...] = value`` does; an augmented write
    (``x[...] += value``, an in-place operation on the view) drops none, and raises where it does. A value
    that does not broadcast raises ``RuntimeError`` as the write does. The result is a view of ``value``. A
    value that is not a tensor (a Python number) fills the slice alike and is returned as it is.
    """
    if not isinstance(value, torch.Tensor):
        return value
    extra = value.dim() - view.dim()
    if assigned and extra > 0:
        value = value.reshape(value.shape[extra:])
    value = value.expand_as(view)
    for axis in axes:
        value = value.select(axis, 0)
    return value
