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
