"""``copy.deepcopy`` of tensors and plain containers of tensors, as a trace can follow it.

Neither exporter follows Python's copy protocol: the TorchScript exporter records the copied
tensors as constants cut off from the inputs, and the dynamo exporter refuses the model.
``_trt_deepcopy`` is the user's own ``deepcopy`` everywhere except inside
``torch.onnx.export``, where plain tensors are copied with ``clone()`` (a node the graph
keeps) and lists, tuples and dicts are rebuilt around them.

``deepcopy`` copies a storage once, so copied tensors that shared memory (a tensor and a
view of it) share the copy's memory, and an in-place write through one shows in the other.
While exporting, such tensors are rebuilt as views of one clone (the dynamo exporter follows
writes through views), or the copy is refused with an error (the TorchScript exporter drops
writes through views, so no graph it makes can keep them).
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_deepcopy(deepcopy, value):
    """``deepcopy(value)``; while exporting to ONNX, a copy the trace records.

    ``deepcopy`` is the function the code called (``copy.deepcopy`` under whatever name it
    was imported). Outside ``torch.onnx.export`` it is called as it was. While exporting,
    ``torch.Tensor`` objects (not subclasses such as ``nn.Parameter``) become ``clone()``s,
    and exact ``list``, ``tuple`` and ``dict`` objects are rebuilt around them; an object
    met twice is copied once, as ``deepcopy``'s memo does, and tensors sharing memory share
    the copy's (``_trt_deepcopy_views``), so aliasing between the copies is kept. Anything
    else (a module, a subclass of a container, a parameter, a tensor that is not a leaf but
    requires grad, which ``deepcopy`` refuses) goes to ``deepcopy`` itself, with the same
    memo. The copies hold the same values; unlike ``deepcopy``, ``clone()`` lays a copy out
    densely (an expanded tensor's copy is no longer a view of one row).
    """
    if torch.jit.is_scripting() or not _trt_onnx_exporting():
        return deepcopy(value)
    memo = {}
    _trt_deepcopy_views(value, memo)
    return _trt_deepcopy_traced(deepcopy, value, memo)


def _trt_deepcopy_clones(value):
    """Whether the export-time copy takes ``value`` with ``clone()`` (else it goes to ``deepcopy``)."""
    # isinstance, not the exact type: torch.export traces with tensor subclasses (FakeTensor).
    return isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter) and (
        value.is_leaf or not value.requires_grad)


def _trt_deepcopy_tensors(value, seen):
    """The tensors in ``value`` and its exact lists, tuples and dicts (keys too), each once."""
    if id(value) in seen:
        return []
    seen[id(value)] = value
    if isinstance(value, torch.Tensor):
        return [value]
    kind = type(value)
    if kind is dict:
        items = [part for pair in value.items() for part in pair]
    elif kind is list or kind is tuple:
        items = value
    else:
        return []
    found = []
    for item in items:
        found.extend(_trt_deepcopy_tensors(item, seen))
    return found


def _trt_deepcopy_views(value, memo):
    """Copy, into ``memo``, the tensors of ``value`` that share memory, as views of one clone.

    Tensors copied with ``clone()`` are grouped by storage. A group of one is left to
    ``_trt_deepcopy_traced``. In a larger group every tensor must be its group's base tensor
    or a view of it (``_base``) with its dtype, and the base one that ``clone()`` copies: the
    base is cloned once and each view replayed on the clone (``Tensor._view_func``, which
    takes the base's strides and offset where it cannot replay, hence the clone must keep
    them). Otherwise, and always under the TorchScript exporter, a ``RuntimeError`` says why
    the copy cannot keep the sharing.
    """
    groups = {}
    for tensor in _trt_deepcopy_tensors(value, {}):
        # What goes to deepcopy (a parameter) gets memory of its own there, as in eager mode.
        if _trt_deepcopy_clones(tensor):
            groups.setdefault(tensor.untyped_storage()._cdata, []).append(tensor)
    for group in groups.values():
        if len(group) < 2:
            continue
        problem = (f"copy.deepcopy while exporting to ONNX: {len(group)} of the copied tensors share memory (a "
                   "tensor and a view of it), and deepcopy's copies share it too, so an in-place write through "
                   "one shows in the other; ")
        if torch.jit.is_tracing():
            raise RuntimeError(problem + "the TorchScript exporter (dynamo=False) drops writes through views, so no "
                               "graph it makes keeps that: export with dynamo=True, or copy tensors that share "
                               "nothing (clone a view before copying it)")
        base = group[0] if group[0]._base is None else group[0]._base
        copied = base.clone() if _trt_deepcopy_clones(base) else None
        if copied is None or base.storage_offset() != 0 or tuple(copied.stride()) != tuple(base.stride()) or any(
                (t if t._base is None else t._base) is not base or t.dtype != base.dtype for t in group):
            raise RuntimeError(problem + "here they are not all views of one dense tensor of one dtype, so the "
                               "export cannot rebuild that sharing: copy tensors that share nothing (clone a view "
                               "before copying it)")
        memo[id(base)] = copied
        for tensor in group:
            if tensor is not base:
                memo[id(tensor)] = tensor._view_func(copied)


def _trt_deepcopy_traced(deepcopy, value, memo):
    """The export-time copy of ``_trt_deepcopy``; ``memo`` maps ``id`` of a copied object to its copy."""
    key = id(value)
    if key in memo:
        return memo[key]
    kind = type(value)
    if _trt_deepcopy_clones(value):
        copied = value.clone()
    elif kind is list:
        copied = []
        memo[key] = copied  # before the items: a list that holds itself is copied once
        copied.extend(_trt_deepcopy_traced(deepcopy, item, memo) for item in value)
        return copied
    elif kind is tuple:
        copied = tuple(_trt_deepcopy_traced(deepcopy, item, memo) for item in value)
    elif kind is dict:
        copied = {}
        memo[key] = copied
        for name, item in value.items():
            copied[_trt_deepcopy_traced(deepcopy, name, memo)] = _trt_deepcopy_traced(deepcopy, item, memo)
        return copied
    elif value is None or kind in (bool, int, float, complex, str, bytes):
        return value  # immutable: deepcopy returns the object itself
    else:
        copied = deepcopy(value, memo)
    memo[key] = copied
    return copied
