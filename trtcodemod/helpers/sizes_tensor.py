"""A tensor of sizes kept in the graph while the TorchScript exporter traces (TRT716).

``torch.as_tensor([(h, w), ...])`` copies Python numbers into a new tensor. Under
``torch.jit.trace`` (which the TorchScript exporter runs) each size is a traced 0-d tensor,
but the copy reads its value: the graph keeps the example's sizes as a constant. Built
with ``torch.stack`` of ``torch.as_tensor`` of each size instead, the trace records the
sizes' own nodes. Everywhere else (eager, scripting, fx, ``torch.compile``, ``torch.export``
and the dynamo exporter, which keep sizes symbolic themselves) the helper is the original call.
"""

import torch


def _trt_sizes_legacy_tensor(data):
    """``torch.Tensor(data)`` of a list: the default float dtype, stacked from the sizes while tracing."""
    return _trt_sizes_tensor(data, torch.get_default_dtype())


def _trt_sizes_tensor(data, dtype=None, device=None):
    """``torch.as_tensor(data, dtype=dtype, device=device)``; stacked from the sizes while tracing."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        stacked = _trt_sizes_stacked(data, dtype, device)
        if stacked is not None:
            return stacked
    return torch.as_tensor(data, dtype=dtype, device=device)


@torch.jit.unused
def _trt_sizes_stacked(data, dtype, device):
    """``data`` stacked size by size, or None where it is not a uniform nest of integer sizes."""
    if _trt_sizes_nest(data) is None:
        return None
    if dtype is None:
        # What as_tensor infers: the default float dtype where any number is a float (a Python
        # float, or a traced size divided or scaled: `w / 2.0` is a 0-d float tensor while
        # tracing), torch.long otherwise.
        dtype = torch.get_default_dtype() if _trt_sizes_fractional(data) else torch.long
    if isinstance(data, (list, tuple)):
        return torch.stack([_trt_sizes_stacked(item, dtype, device) for item in data])
    # A plain number stays a constant either way; a traced size's conversion is recorded, so the
    # graph computes it from the input. Not `torch.as_tensor` itself: the tracer warns that its
    # result is a constant even for a traced size, which it is not, and migrate would locate that
    # warning in this helper.
    if isinstance(data, torch.Tensor):
        return data.to(dtype=dtype, device=device)
    return torch.full((), data, dtype=dtype, device=device)


@torch.jit.unused
def _trt_sizes_nest(data):
    """The lengths of ``data``'s nested lists (``(3, 2)`` for three pairs), or None where it is
    not a uniform nest of numbers and traced sizes (0-d ``int64`` tensors, or of the default float
    dtype where a size was divided or scaled)."""
    # Judged on the Python lists: while tracing, a stacked tensor's shape holds traced sizes.
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            return None  # as_tensor([]) is float32 with no size to keep: the original call says so
        nests = [_trt_sizes_nest(item) for item in data]
        if any(nest is None for nest in nests) or len(set(nests)) != 1:
            return None  # a ragged nest is an error in as_tensor: let it raise there
        return (len(data),) + nests[0]
    if isinstance(data, bool):
        return None  # as_tensor infers torch.bool for it
    if isinstance(data, (int, float)):
        return ()
    if isinstance(data, torch.Tensor) and data.dim() == 0 and data.dtype in (torch.long, torch.get_default_dtype()):
        return ()  # a traced size, or one divided or scaled by a float (`w / 2.0`, `h * 0.8`)
    return None


@torch.jit.unused
def _trt_sizes_fractional(data):
    """Is any number of the nest ``data`` a float (a Python float or a floating 0-d tensor)?"""
    if isinstance(data, (list, tuple)):
        return any(_trt_sizes_fractional(item) for item in data)
    return isinstance(data, float) or isinstance(data, torch.Tensor) and data.is_floating_point()


def _trt_sizes_repeated(data, count, dtype=None, device=None):
    """``torch.as_tensor(data * count, dtype=dtype, device=device)`` of a list of sizes repeated ``count`` times
    (``[x.shape[2]] * x.shape[0]``: each sample's length); while tracing, the sizes stacked and repeated along
    the first axis by the traced count (Python's repetition would read the example's count)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and isinstance(data, (list, tuple)):
        if isinstance(count, torch.Tensor) and count.dim() == 0:
            stacked = _trt_sizes_stacked(data, dtype, device)
            if stacked is not None:
                return stacked.repeat([count] + [1] * (stacked.dim() - 1))
        else:
            stacked = _trt_sizes_stacked(data * count, dtype, device)
            if stacked is not None:
                return stacked
    return torch.as_tensor(data * count, dtype=dtype, device=device)
