"""``len`` and ``min``/``max`` of sizes, kept in the graph while the TorchScript exporter traces.

``_trt_len(x)`` is ``x.shape[0]`` for a tensor that has a first dimension (a size the trace
records, where ``len`` gives it a Python int) and ``len(x)`` for everything else, so it keeps
``len``'s result and exceptions whatever a caller passes.

Under ``torch.jit.trace`` (which the TorchScript exporter runs) a tensor's size is a traced
0-d tensor. Python's ``min``/``max`` compare it into a ``bool`` and return one of the
operands: the trace keeps the example's choice. These helpers are the built-in everywhere
else (eager, scripting, fx, ``torch.compile``, ``torch.export`` and the dynamo exporter,
which keeps ``min``/``max`` of symbolic sizes itself), and only while a trace meets a
tensor operand do they compute the choice with a traced ``clamp``/``minimum``/``maximum``.
"""

import torch


def _trt_len(value):
    """``len(value)``, as ``value.shape[0]`` where that is the same: a tensor with a first
    dimension whose class keeps ``Tensor.__len__`` (a 0-d tensor's ``len`` raises ``TypeError``)."""
    if not torch.jit.is_scripting() and _trt_len_is_size(value):
        return value.shape[0]
    return len(value)


@torch.jit.unused
def _trt_len_is_size(value) -> bool:
    """Whether ``len(value)`` is ``value.shape[0]`` (never runs when scripted)."""
    return isinstance(value, torch.Tensor) and type(value).__len__ is torch.Tensor.__len__ and value.dim() > 0


def _trt_size_max(a: int, b: int) -> int:
    """``max(a, b)``; a traced maximum while a trace passes a tensor for a size."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_traced(True, a, b)
    return max(a, b)


def _trt_size_min(a: int, b: int) -> int:
    """``min(a, b)``; a traced minimum while a trace passes a tensor for a size."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_traced(False, a, b)
    return min(a, b)


@torch.jit.unused
def _trt_size_traced(largest: bool, a: int, b: int) -> int:
    """The traced choice: a 0-d tensor, as the trace's sizes are (never runs when scripted)."""
    # clamp against a Python number records no constant tensor (torch.as_tensor would warn).
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    if not isinstance(b, torch.Tensor):
        return torch.clamp(a, min=b) if largest else torch.clamp(a, max=b)
    return torch.maximum(a, b) if largest else torch.minimum(a, b)
