"""``view``/``reshape`` to sizes read at run time, exported so that a size of 0 stays 0 (TRT367).

The TorchScript exporter writes ``x.view(b, g, c, h, w)`` as an ONNX ``Reshape`` whose target shape is
computed in the graph, with ``allowzero`` left at 0: a 0 in that shape means "copy the input's size at
this position". Where a size read from a tensor is 0 at run time (an empty slice ``f[..., i:]`` when
``i`` passes the width), ONNX Runtime copies another axis's size or refuses the node (the position lies
past the input's rank), and TensorRT reads the 0 the same way. The helper is ``view``/``reshape``
itself outside a TorchScript export. While the exporter traces, it reshapes through sizes that are
never 0: every size is raised to at least 1, the flat input gets as many zeros appended as the raised
sizes need beyond the true ones (none unless a size is 0), and each axis is cut back to its size.

TRT399's ``_trt_resize`` is here too: the deprecated out-of-place ``Tensor.resize`` as a ``reshape`` while exporting.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_reshape_sizes(x, sizes, copy):
    # type: (Tensor, List[int], bool) -> Tensor
    """``x.reshape(sizes)`` when ``copy``, else ``x.view(sizes)``; while the TorchScript exporter traces,
    a reshape whose graph keeps a run-time size of 0 as 0."""
    if torch.jit.is_scripting():
        return x.reshape(sizes) if copy else x.view(sizes)
    return _trt_reshape_sizes_eager(x, sizes, copy)


@torch.jit.unused
def _trt_reshape_sizes_eager(x, sizes, copy):
    """``view``/``reshape``, or the zero-safe reshape while the TorchScript exporter traces (never runs
    when scripted)."""
    # The call itself, always: its value outside an export, and while tracing it raises where the
    # original would (a count that does not match); the exporter drops its unused nodes.
    result = x.reshape(sizes) if copy else x.view(sizes)
    if not (torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()):
        return result
    sizes = list(sizes)
    count = torch.ones((), dtype=torch.int64)
    for size in x.shape:
        count = count * size
    known = torch.ones((), dtype=torch.int64)
    for size in sizes:
        if not (isinstance(size, int) and size == -1):
            known = known * size
    full = []
    for size in sizes:
        if isinstance(size, int) and size == -1:
            full.append(count // torch.clamp(known, min=1))
        elif isinstance(size, torch.Tensor):
            full.append(size.to(torch.int64).reshape(()))
        else:  # a number the trace keeps as a constant (`torch.as_tensor` would warn that it does)
            full.append(torch.full((), int(size), dtype=torch.int64))
    raised = [torch.clamp(size, min=1) for size in full]
    needed = torch.ones((), dtype=torch.int64)
    true_count = torch.ones((), dtype=torch.int64)
    for size, up in zip(full, raised):
        needed = needed * up
        true_count = true_count * size
    flat = x.reshape(-1)
    extra = flat.new_zeros(1).expand(needed - true_count)
    out = torch.cat([flat, extra]).reshape(raised)
    for axis, size in enumerate(sizes):
        if not (isinstance(size, int) and size > 0):  # a positive literal is its own raised size
            out = out.narrow(axis, 0, full[axis])
    return out


def _trt_resize(tensor, sizes):
    # type: (Tensor, List[int]) -> Tensor
    """``tensor.resize(*sizes)``; while ``torch.onnx.export`` traces the model, the same values by ``reshape``.

    The deprecated out-of-place ``Tensor.resize`` is an autograd Function (``torch.autograd._functions.Resize``)
    that compares element counts in Python and returns the contiguous input viewed at ``sizes``: the
    TorchScript exporter stops at it ("unordered_map::at"). ``reshape`` gives the same values, and raises where
    the counts differ as ``resize`` does. Anything but a tensor (a PIL image, a NumPy array) keeps its own
    ``resize``. The sizes come as one list so that TorchScript compiles the helper: a scripted caller runs
    ``resize`` of the list, as it ran ``resize`` of the sizes."""
    if not torch.jit.is_scripting():
        if isinstance(tensor, torch.Tensor) and _trt_onnx_exporting():
            return tensor.reshape(sizes)
        return tensor.resize(*sizes)
    return tensor.resize(sizes)
