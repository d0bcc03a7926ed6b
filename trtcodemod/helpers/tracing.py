"""Whether a tracer is recording the model: a cache on ``self`` must miss then (TRT726).

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
