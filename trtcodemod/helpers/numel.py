"""``shape.numel()`` of a ``torch.Size`` that keeps its sizes in the graph while exporting (TRT346).

Under ``torch.jit.trace`` (which the TorchScript exporter runs) every size in a ``torch.Size`` is a
traced 0-d tensor, but ``torch.Size.numel()`` multiplies them in C++ and returns a Python ``int``:
the graph gets the traced example's count as a constant, with no ``TracerWarning``. The helper is
``numel()`` itself outside an export; while the TorchScript exporter traces, it multiplies the sizes
with Python's ``*`` on the traced tensors, which records ``Mul`` nodes on ``Shape``/``Gather``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_size_numel(shape):
    # type: (List[int]) -> int
    """``shape.numel()``: the product of the sizes (1 for no sizes); while exporting, the product of
    traced sizes as a traced 0-d ``int64`` tensor."""
    if torch.jit.is_scripting():
        count = 1
        for size in shape:
            count = count * size
        return count
    return _trt_size_numel_eager(shape)


@torch.jit.unused
def _trt_size_numel_eager(shape):
    """``shape.numel()``, or the traced product where a trace hands ``torch.Size`` traced sizes while
    exporting (never runs when scripted)."""
    if isinstance(shape, torch.Size) and _trt_onnx_exporting() \
            and any(isinstance(size, torch.Tensor) for size in shape):
        count = 1
        for size in shape:
            count = count * size
        return count
    return shape.numel()
