"""Accumulating writes (``index_add``, ``index_put(..., accumulate=True)``) as a scatter-add while exporting (TRT341).

The TorchScript exporter writes ``aten::index_add`` as a ``ScatterElements`` with no reduction and
``index_put(..., accumulate=True)`` as a ``ScatterND`` with none (torch 2.13, opset 17): where an index
repeats, the graph keeps one of the writes instead of their sum, with no error and no warning, and an
``alpha`` other than 1 does not export at all. ``scatter_add`` exports as ``ScatterElements`` with
``reduction="add"``, which ONNX Runtime and TensorRT (every release that parses opset 16) sum. Each helper
is torch's own call outside ``torch.onnx.export`` and that scatter-add while exporting.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_index_add(input, dim: int, index, source, alpha=1):
    # type: (Tensor, int, Tensor, Tensor, Union[int, float]) -> Tensor
    """``input.index_add(dim, index, source, alpha=alpha)``; while exporting, a scatter-add whose graph sums
    the rows a repeated index sends to one place."""
    if torch.jit.is_scripting():  # each type of `alpha` refined: index_add has no overload for the Union
        if isinstance(alpha, int):
            return torch.index_add(input, dim, index, source, alpha=alpha)
        return torch.index_add(input, dim, index, source, alpha=alpha)
    if _trt_index_add_takes(input, index, source, alpha) and _trt_onnx_exporting():
        return _trt_index_add_sum(input, dim, index, source, alpha)
    return torch.index_add(input, dim, index, source, alpha=alpha)


def _trt_index_add_(input, dim: int, index, source, alpha=1):
    # type: (Tensor, int, Tensor, Tensor, Union[int, float]) -> Tensor
    """``input.index_add_(dim, index, source, alpha=alpha)`` (in place, returning ``input``); while exporting,
    :func:`_trt_index_add`'s sum copied into ``input`` (the TorchScript exporter carries a copy into a tensor
    to its later readers, not one into a view passed in: TRT341 leaves in-place writes into views alone)."""
    if torch.jit.is_scripting():
        if isinstance(alpha, int):
            return input.index_add_(dim, index, source, alpha=alpha)
        return input.index_add_(dim, index, source, alpha=alpha)
    if _trt_index_add_takes(input, index, source, alpha) and _trt_onnx_exporting():
        return input.copy_(_trt_index_add_sum(input, dim, index, source, alpha))
    return input.index_add_(dim, index, source, alpha=alpha)


def _trt_index_put(input, indices, values, accumulate: bool = False):
    # type: (Tensor, List[Optional[Tensor]], Tensor, bool) -> Tensor
    """``input.index_put(indices, values, accumulate)``; while exporting with ``accumulate=True`` and integer
    index tensors on the leading axes, the flat positions they name, added to by one scatter-add."""
    if torch.jit.is_scripting():
        return torch.index_put(input, indices, values, accumulate)
    if accumulate and _trt_index_put_takes(input, indices, values) and _trt_onnx_exporting():
        return _trt_index_put_added(input, indices, values)
    return torch.index_put(input, indices, values, accumulate)


def _trt_index_put_(input, indices, values, accumulate: bool = False):
    # type: (Tensor, List[Optional[Tensor]], Tensor, bool) -> Tensor
    """``input.index_put_(indices, values, accumulate)`` (in place, returning ``input``); while exporting with
    ``accumulate=True``, :func:`_trt_index_put`'s sum copied into ``input`` (as :func:`_trt_index_add_`)."""
    if torch.jit.is_scripting():
        return input.index_put_(indices, values, accumulate)
    if accumulate and _trt_index_put_takes(input, indices, values) and _trt_onnx_exporting():
        return input.copy_(_trt_index_put_added(input, indices, values))
    return input.index_put_(indices, values, accumulate)


@torch.jit.unused
def _trt_index_add_takes(input, index, source, alpha) -> bool:
    """A real tensor of one or more axes, integer indices of at most one axis and a source of the same rank
    and dtype (anything else keeps torch's call, and its error)."""
    return (isinstance(input, torch.Tensor) and isinstance(index, torch.Tensor) and isinstance(source, torch.Tensor)
            and not input.is_complex() and input.dim() >= 1 and source.dim() == input.dim()
            and source.dtype == input.dtype and index.dim() <= 1
            and index.dtype in (torch.int32, torch.int64)
            and isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
            and (input.is_floating_point() or isinstance(alpha, int)))


@torch.jit.unused
def _trt_index_add_sum(input, dim: int, index, source, alpha):
    """``input`` with ``alpha * source`` added along ``dim`` at ``index``: one scatter-add, the index spread
    over the source's other axes (``scatter_add`` takes one index per element), no multiplication where
    ``alpha`` is 1 (torch adds the source itself then)."""
    shape = [1] * source.dim()
    shape[dim % source.dim()] = -1
    spread = index.reshape(shape).to(torch.int64).expand_as(source)
    return _trt_scatter_add(input, dim, spread, source if alpha == 1 else source * alpha)


@torch.jit.unused
def _trt_scatter_add(input, dim: int, index, source):
    """``input.scatter_add(dim, index, source)``; half and bfloat16 tensors summed in float32 and rounded back
    (ONNX Runtime's CPU ScatterElements adds no half values)."""
    if input.dtype in (torch.float16, torch.bfloat16):
        return input.float().scatter_add(dim, index, source.float()).to(input.dtype)
    return input.scatter_add(dim, index, source)


@torch.jit.unused
def _trt_index_put_takes(input, indices, values) -> bool:
    """Index tensors of an integer dtype on the leading axes (no ``None``, no boolean mask: a mask's count is
    data-dependent), no more of them than ``input`` has axes, and values of ``input``'s dtype."""
    if not (isinstance(input, torch.Tensor) and isinstance(values, torch.Tensor) and isinstance(indices, (list, tuple))):
        return False
    if len(indices) == 0 or len(indices) > input.dim() or values.dtype != input.dtype or input.is_complex():
        return False
    return all(isinstance(i, torch.Tensor) and i.dtype in (torch.int32, torch.int64) for i in indices)


@torch.jit.unused
def _trt_index_put_rows(input, indices, values):
    """The flat position on ``input``'s first ``len(indices)`` axes of each indexed element (negative indices
    counted from the end, as ``index_put`` counts them), spread over the remaining axes, and the values
    broadcast to the indexed shape, both with one leading axis of positions."""
    count = len(indices)
    index = torch.broadcast_tensors(*[i.to(torch.int64) for i in indices])
    flat = None
    for axis in range(count):
        size = input.shape[axis]
        position = torch.where(index[axis] < 0, index[axis] + size, index[axis])
        flat = position if flat is None else flat * size + position
    rest = input.shape[count:]
    added = values.expand(*index[0].shape, *rest).reshape(-1, *rest)
    rows = flat.reshape([-1] + [1] * len(rest)).expand_as(added)
    return rows, added


@torch.jit.unused
def _trt_index_put_added(input, indices, values):
    """``input`` with ``values`` added at ``indices``, by one scatter-add over the indexed axes flattened."""
    count = len(indices)
    rows, added = _trt_index_put_rows(input, indices, values)
    flat = input.reshape(-1, *input.shape[count:]) if count > 1 else input
    return _trt_scatter_add(flat, 0, rows, added).reshape(input.shape)
