"""``copy.deepcopy`` of tensors and plain containers of tensors, as a trace can follow it.

Neither exporter follows Python's copy protocol: the TorchScript exporter records the copied
tensors as constants cut off from the inputs, and the dynamo exporter refuses the model.
``_trt_deepcopy`` is the user's own ``deepcopy`` everywhere except inside
``torch.onnx.export``, where plain tensors are copied with ``clone()`` (a node the graph
keeps) and lists, tuples and dicts are rebuilt around them.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_deepcopy(deepcopy, value):
    """``deepcopy(value)``; while exporting to ONNX, a copy the trace records.

    ``deepcopy`` is the function the code called (``copy.deepcopy`` under whatever name it
    was imported). Outside ``torch.onnx.export`` it is called as it was. While exporting,
    ``torch.Tensor`` objects (not subclasses such as ``nn.Parameter``) become ``clone()``s,
    and exact ``list``, ``tuple`` and ``dict`` objects are rebuilt around the copies; an
    object met twice is copied once, as ``deepcopy``'s memo does, so aliasing between the
    copies is kept. Anything else (a module, a subclass of a container, a parameter, a tensor
    that is not a leaf but requires grad, which ``deepcopy`` refuses) goes to ``deepcopy`` itself,
    with the same memo. The copies hold the same values; unlike ``deepcopy``, ``clone()``
    lays a copy out densely (an expanded tensor's copy is no longer a view of one row).
    """
    if torch.jit.is_scripting() or not _trt_onnx_exporting():
        return deepcopy(value)
    return _trt_deepcopy_traced(deepcopy, value, {})


def _trt_deepcopy_traced(deepcopy, value, memo):
    """The export-time copy of ``_trt_deepcopy``; ``memo`` maps ``id`` of a copied object to its copy."""
    key = id(value)
    if key in memo:
        return memo[key]
    kind = type(value)
    # isinstance, not the exact type: torch.export traces with tensor subclasses (FakeTensor).
    if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter) and (
            value.is_leaf or not value.requires_grad):
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
