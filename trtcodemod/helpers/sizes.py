"""``len``, ``min``/``max``/``int``/``math.ceil``/``math.floor`` of sizes, kept in the graph while
the TorchScript exporter traces.

``_trt_len(x)`` is ``x.shape[0]`` for a tensor that has a first dimension (a size the trace
records, where ``len`` gives it a Python int) and ``len(x)`` for everything else, so it keeps
``len``'s result and exceptions whatever a caller passes.

Under ``torch.jit.trace`` (which the TorchScript exporter runs) a tensor's size is a traced
0-d tensor. Python's ``min``/``max`` compare it into a ``bool`` and return one of the
operands: the trace keeps the example's choice. These helpers are the built-in everywhere
else (eager, scripting, fx, ``torch.compile``, ``torch.export`` and the dynamo exporter,
which keeps ``min``/``max`` of symbolic sizes itself), and only while a trace meets a
tensor operand do they compute the choice with a traced ``clamp``/``minimum``/``maximum``.
``_trt_size_where`` is the choice an ``if`` on a size made between two numbers (TRT717).
``int``, ``ceil`` and ``floor`` of a traced size (``int(h * scale)``, ``math.ceil(h / s)``) read
it into a Python number the same way; their helpers keep it a 0-d ``int64`` tensor there
(``Ceil``/``Floor`` and a cast in the graph, the cast truncating toward zero as ``int`` does).
``math.sqrt`` of a size (a token count's side, ``int(math.sqrt(n))``) reads it the same way; its
helper keeps a traced float32 ``Sqrt`` there.
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


def _trt_size_where(condition: bool, chosen: int, other: int) -> int:
    """``chosen if condition else other``; a traced choice while a trace passes a tensor condition
    (a size compared with a number: ``if h <= window: size = h`` kept in the graph)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and isinstance(condition, torch.Tensor):
        return _trt_size_chosen(condition, chosen, other)
    return chosen if condition else other


@torch.jit.unused
def _trt_size_chosen(condition, chosen, other):
    """The traced choice: ``where`` of two numbers or 0-d tensors (never runs when scripted)."""
    # Numbers go in as scalars: torch.as_tensor would record a constant (and warn).
    return torch.where(condition, chosen, other)


def _trt_size_int(value: int | float) -> int:
    """``int(value)``; the traced number as an ``int64`` 0-d tensor while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "trunc")
        return int(value)
    if isinstance(value, int):
        return value
    return int(value)


def _trt_size_ceil(value: int | float) -> int:
    """``math.ceil(value)``; a traced ``ceil`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "ceil")
        # What math.ceil does: the value's own __ceil__, else that of its float.
        ceil = getattr(value, "__ceil__", None)
        return ceil() if ceil is not None else _trt_size_real(value).__ceil__()
    if isinstance(value, int):
        return value
    return -int(-value // 1.0)  # TorchScript has no math here; the same for every finite float


def _trt_size_floor(value: int | float) -> int:
    """``math.floor(value)``; a traced ``floor`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "floor")
        floor = getattr(value, "__floor__", None)
        return floor() if floor is not None else _trt_size_real(value).__floor__()
    if isinstance(value, int):
        return value
    return int(value // 1.0)


@torch.jit.unused
def _trt_size_real(value):
    """``value`` as the float ``math.ceil``/``math.floor`` read (a string is no number to them)."""
    if not (hasattr(value, "__float__") or hasattr(value, "__index__")):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


@torch.jit.unused
def _trt_size_rounded(value, how):
    """The traced integer: ``ceil``/``floor`` of a float, then ``int64`` (a cast truncates toward zero)."""
    if value.is_floating_point():
        if how == "ceil":
            value = torch.ceil(value)
        elif how == "floor":
            value = torch.floor(value)
    return value.to(torch.int64)


def _trt_size_sqrt(value: int | float) -> float:
    """``math.sqrt(value)``; a traced float32 ``Sqrt`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_root(value)
        return _trt_size_math_sqrt(value)
    # TorchScript has no math here; its scalar aten::sqrt is the op scripted math.sqrt calls.
    return torch.sqrt(float(value))


@torch.jit.unused
def _trt_size_math_sqrt(value):
    """``math.sqrt`` itself, imported where it runs (the helpers import only torch at the top)."""
    import math

    return math.sqrt(value)


@torch.jit.unused
def _trt_size_root(value):
    """The traced root: float32, as the graph computes it (TensorRT has no float64)."""
    return torch.sqrt(value.to(torch.float32))
