"""Whether a tracer is recording the model: a cache on ``self`` must miss then (TRT726), and a
``tolist`` of sizes must give the trace its elements (TRT702).

A cache keyed by an input's shape (``if self.shape != shape: self.anchors = ...``) compares
the key in Python. While ``torch.jit.trace`` (the TorchScript exporter) or ``torch.export``
(the dynamo exporter) records the model, that comparison is decided once, on the example,
and a hit bakes the cached tensors into the graph. This flag makes the cache miss there.

``torch.compile`` is left out on purpose: dynamo turns the comparison into a guard and
recompiles when the key changes, so its graphs are right without a refresh. Under
``torch.jit.script`` the flag is ``False`` (the script keeps the comparison as code).
"""

import torch


def _trt_tracing() -> bool:
    """True while ``torch.jit.trace`` or ``torch.export`` (either ONNX exporter) records the model."""
    if torch.jit.is_scripting():
        return False
    return torch.jit.is_tracing() or torch.compiler.is_exporting()


def _trt_tolist(values):
    """``values.tolist()``; while a tracer records the model, a 1-D tensor's elements as 0-d tensors.

    A size or pad argument (``F.pad``'s ``pad``, ``view``'s sizes, ``F.interpolate``'s ``size``)
    reads a 0-d tensor as the number it holds, and the trace then computes it from the input
    where ``tolist`` gave it a constant (TRT702). Everywhere else, and for anything but a 1-D
    tensor (a nested list, a number, a NumPy array), this is ``values.tolist()``.
    """
    if _trt_tracing() and isinstance(values, torch.Tensor) and values.dim() == 1:
        return list(values.unbind(0))
    return values.tolist()


def _trt_int(value):
    """``int(value)``; while ``torch.jit.trace`` records a 0-d tensor, that tensor as an int64 tensor
    instead (truncated toward zero, as ``int`` truncates), which ``torch.arange``, sizes, slice bounds
    and arithmetic read as the number it holds: the TorchScript exporter's graph then computes the
    number from the input where ``int`` left the example's (TRT702). Eager mode, ``torch.jit.script``,
    ``torch.compile``, ``torch.fx`` and ``torch.export`` get ``int(value)``."""
    if torch.jit.is_scripting():
        return int(value)
    if torch.jit.is_tracing() and isinstance(value, torch.Tensor) and value.dim() == 0:
        return value.to(torch.int64)
    return int(value)


def _trt_item(value):
    """``value.item()``; while ``torch.jit.trace`` records a 0-d tensor, that tensor instead, which
    ``torch.arange``, sizes, slice bounds and arithmetic read as the number it holds (TRT702). Eager mode,
    ``torch.jit.script``, ``torch.compile``, ``torch.fx`` and ``torch.export`` get ``value.item()``."""
    if torch.jit.is_scripting():
        return value.item()
    if torch.jit.is_tracing() and isinstance(value, torch.Tensor) and value.dim() == 0:
        return value
    return value.item()


# An early return on a tensor condition (``if all(is_zero_flow(flow)): return target``, TRT101): the
# trace must not read the condition, so it computes the rest of the function and selects the shortcut's
# value where the condition holds. Eager mode and scripting take the `if` as written.


def _trt_all(values):
    """``all(values)``; while a tracer records a 1-D tensor, ``values.all()`` (a 0-d bool tensor: the same
    truth, element by element, and True for no elements) instead of reading every element."""
    if _trt_tracing() and isinstance(values, torch.Tensor) and values.dim() == 1:
        return values.all()
    return all(values)


def _trt_any(values):
    """``any(values)``; while a tracer records a 1-D tensor, ``values.any()``."""
    if _trt_tracing() and isinstance(values, torch.Tensor) and values.dim() == 1:
        return values.any()
    return any(values)


def _trt_not(value):
    """``not value``; of a tensor, ``torch.logical_not(value)``: a bool tensor of the opposite truth (NaN counting
    as true), which ``if`` reads as it read ``not`` (raising alike for none or several elements) and a trace
    keeps in the graph. One type per branch, so that it scripts."""
    if isinstance(value, torch.Tensor):
        return torch.logical_not(value)
    else:
        return not value


def _trt_shortcut_taken(condition) -> bool:
    """The truth of an early return's (or an emptiness exit's) condition, as ``if`` reads it; False while a
    tracer records a one-element tensor condition: the trace goes on to compute the rest, and
    :func:`_trt_shortcut_select` picks the shortcut's value in the graph (an exit ahead of a mask selection
    needs none: the rest selects nothing there). Any other condition is read as it is (and raises as it did)."""
    if _trt_tracing() and isinstance(condition, torch.Tensor) and condition.numel() == 1:
        return False
    return bool(condition)


def _trt_masked_taken(condition) -> bool:
    """The truth of ``if mask.any():`` over writes through ``mask`` (or over a selection with it, whose
    ``else`` exits), as ``if`` reads it; True while a tracer records a one-element tensor condition: the
    writes (the selection) are recorded and write (select) nothing where the mask is empty."""
    if _trt_tracing() and isinstance(condition, torch.Tensor) and condition.numel() == 1:
        return True
    return bool(condition)


def _trt_shortcut_select(condition, shortcut, result):
    # type: (Tensor, Optional[Tensor], Tensor) -> Tensor
    """What the function returns: ``result`` (the shortcut was not taken) everywhere but a trace; while a
    tracer records a tensor condition, ``shortcut`` where it holds and ``result`` elsewhere, selected in the
    graph for tensors of one shape and dtype (element by element for tuples and lists of them). Anything
    else reads the condition as the original did (the trace keeps the example's choice, with its warning).
    The type comment is for ``torch.jit.script`` only (where a computed shortcut is None, never read)."""
    if not (_trt_tracing() and isinstance(condition, torch.Tensor)):
        return result
    return _trt_shortcut_traced(condition, shortcut, result)


@torch.jit.unused
def _trt_shortcut_traced(condition, shortcut, result):
    # type: (Tensor, Optional[Tensor], Tensor) -> Tensor
    """:func:`_trt_shortcut_select` while a tracer records a tensor condition (never runs scripted)."""
    if _trt_shortcut_selectable(shortcut, result):
        return _trt_shortcut_where(condition.reshape(()), shortcut, result)
    return shortcut if bool(condition) else result


@torch.jit.unused
def _trt_shortcut_selectable(shortcut, result) -> bool:
    """Tensors of the same shape and dtype, or tuples/lists of them (of one length and type)."""
    if isinstance(shortcut, torch.Tensor) and isinstance(result, torch.Tensor):
        return shortcut.shape == result.shape and shortcut.dtype == result.dtype
    if type(shortcut) in (tuple, list) and type(result) is type(shortcut) and len(shortcut) == len(result):
        return all(_trt_shortcut_selectable(a, b) for a, b in zip(shortcut, result))
    return False


@torch.jit.unused
def _trt_shortcut_where(condition, shortcut, result):
    """``torch.where`` of two tensors, or of tuples/lists of them element by element (never runs scripted)."""
    if isinstance(shortcut, torch.Tensor):
        return torch.where(condition, shortcut, result)
    return type(shortcut)(_trt_shortcut_where(condition, a, b) for a, b in zip(shortcut, result))


# A decision on a size (``if size[0] % 2:`` picking one of two formulas, TRT713): while tracing, both branches
# are computed and the value is selected in the graph, so it follows the size at every size of a dynamic axis.


def _trt_size_truth(value):
    """The truth of a decision on sizes as a 0-d bool tensor: a traced decision (a tensor while tracing) as it is,
    with no constant recorded (``torch.as_tensor`` of it would warn that it is one); a Python value's truth as a
    constant (a size the trace does not follow)."""
    if isinstance(value, torch.Tensor):
        return value.bool()
    return torch.as_tensor(bool(value))


def _trt_traced_where(condition, chosen, other):
    """``chosen`` where the condition (a 0-d bool tensor) holds, else ``other``: while a tracer records the model
    and the branches are tensors of one shape and dtype at the traced size (tuples and lists of them element by
    element), selected in the graph with ``torch.where``; anything else reads the condition as the ``if`` did (the
    trace keeps the example's branch, with its warning, and nothing is hidden)."""
    if _trt_tracing() and condition.dim() == 0 and _trt_untraced_selectable(chosen, other):
        return _trt_shortcut_where(condition, chosen, other)
    return chosen if bool(condition) else other


@torch.jit.unused
def _trt_untraced_selectable(chosen, other) -> bool:
    """:func:`_trt_shortcut_selectable`, its shapes compared outside the trace (no TracerWarning, no node)."""
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        return _trt_shortcut_selectable(chosen, other)
    finally:
        torch._C._set_tracing_state(state)


def _trt_squeeze_kept(tensor, dim):
    """``tensor.squeeze(dim)``; while a tracer records the model, ``tensor`` itself: the axis is taken never
    to have size 1 (the squeeze changes nothing), so no ``If`` on its size is exported (TRT401)."""
    if _trt_tracing():
        return tensor
    return tensor.squeeze(dim)


def _trt_squeeze_axes(tensor, dims: list[int]):
    """``tensor.squeeze()``; while a tracer records the model, index 0 of each axis in ``dims`` (ascending: the axes
    the observed run saw at size 1 on every call) and keep the others, so a batch of 1 in the traced example is not
    dropped from the graph and no Squeeze without axes is exported (TRT403)."""
    if _trt_tracing():
        for i in range(len(dims) - 1, -1, -1):
            tensor = tensor.select(dims[i], 0)
        return tensor
    return tensor.squeeze()
