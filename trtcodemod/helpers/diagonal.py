"""``torch.diag`` exported by indexing.

The TorchScript exporter has no symbolic for ``aten::diag`` (torch 2.13, any opset). Both of its
meanings are built from ranges the size of the input (Range, Gather, Where, Slice, which TensorRT
parses, with sizes from dynamic axes):

- of a vector ``v`` (length ``n``) and an offset ``d``: a square matrix of side ``n + |d|`` that
  holds ``v[i]`` at ``(i, i + d)`` (``(i - d, i)`` below the main diagonal) and zero elsewhere;
  ``v`` padded with ``|d|`` zeros is read along the rows (columns), kept where ``column - row ==
  d``, so values (NaN, infinities, signed zeros) are copied, never multiplied;
- of a matrix and an offset ``d``: its ``d``-th diagonal, a copy. The matrix is cut to the block
  that diagonal crosses (columns from ``d``, or rows from ``-d``, then a square of the shorter
  side: slices clamp to the size), and the block's flattened elements ``0, k + 1, 2 (k + 1), ...``
  are gathered.

``_trt_diag`` is ``torch.diag`` itself everywhere except inside ``torch.onnx.export``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_diag(input, diagonal: int = 0):
    """``torch.diag(input, diagonal)``; while exporting, built by indexing."""
    if torch.jit.is_scripting():
        return torch.diag(input, diagonal)
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (1, 2) and (
            type(diagonal) is int):
        if input.dim() == 1:
            return _trt_diag_matrix(input, diagonal)
        return _trt_diag_vector(input, diagonal)
    return torch.diag(input, diagonal)


@torch.jit.unused
def _trt_diag_matrix(vector, diagonal: int):
    """The square matrix with ``vector`` on its ``diagonal``-th diagonal, zero elsewhere."""
    shift = abs(diagonal)
    padded = torch.cat([vector, vector.new_zeros(shift)]) if shift else vector
    position = torch.arange(padded.shape[0], device=vector.device)
    on = (position.unsqueeze(0) - position.unsqueeze(1)) == diagonal  # [row, column]: column - row == d
    # Above the main diagonal the value is the row's element, below it the column's.
    values = padded.unsqueeze(1) if diagonal >= 0 else padded.unsqueeze(0)
    if vector.dtype == torch.bool:
        return on & values  # ONNX Runtime has no Where for booleans
    return torch.where(on, values, torch.zeros((), dtype=vector.dtype, device=vector.device))


@torch.jit.unused
def _trt_diag_vector(matrix, diagonal: int):
    """The ``diagonal``-th diagonal of ``matrix`` (a copy)."""
    block = matrix[:, diagonal:] if diagonal >= 0 else matrix[-diagonal:, :]
    block = block[:block.shape[1], :block.shape[0]]  # a square of the shorter side (slices clamp)
    side = block.shape[0]
    return block.reshape(-1)[torch.arange(side, device=matrix.device) * (side + 1)]


def _trt_diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """``torch.diagonal(input, offset, dim1, dim2)`` (a view); while exporting, a gathered copy.

    The TorchScript exporter writes ``torch.diagonal`` as the input times an EyeLike of its
    shape, summed: an EyeLike of a run-time shape, which TensorRT builds only from static
    dimensions (and an infinity off the diagonal turns its diagonal element into NaN there).
    """
    if torch.jit.is_scripting():
        return torch.diagonal(input, offset, dim1, dim2)
    if not isinstance(input, torch.Tensor):
        return input.diagonal(offset, dim1, dim2)  # a method call on another array type (NumPy's)
    if _trt_onnx_exporting() and type(offset) is int and type(dim1) is int and type(dim2) is int:
        rank = input.dim()
        if -rank <= dim1 < rank and -rank <= dim2 < rank and dim1 % rank != dim2 % rank:
            return _trt_diagonal_gather(input, offset, dim1 % rank, dim2 % rank)
    return torch.diagonal(input, offset, dim1, dim2)


@torch.jit.unused
def _trt_diagonal_gather(input, offset: int, dim1: int, dim2: int):
    """The ``offset``-th diagonal of the planes ``(dim1, dim2)`` of ``input``, as the last axis (a copy)."""
    planes = input.movedim((dim1, dim2), (-2, -1))
    block = planes[..., :, offset:] if offset >= 0 else planes[..., -offset:, :]
    block = block[..., :block.shape[-1], :block.shape[-2]]  # a square of the shorter side (slices clamp)
    # Row i of the square gives its element i: an index per row, broadcast over the other axes.
    index = torch.arange(block.shape[-1], device=input.device).unsqueeze(-1).expand(block.shape[:-1] + (1,))
    return block.gather(-1, index).select(-1, 0)
