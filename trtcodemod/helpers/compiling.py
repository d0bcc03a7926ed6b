"""``torch.compile`` whose compiled function runs the function itself while traced (TRT392).

``torch.jit.trace`` and the TorchScript ONNX exporter refuse a dynamo-optimized function ("Detected
that you are using FX to torch.jit.trace a dynamo-optimized function. This is not supported at the
moment."). ``_trt_compile`` has ``torch.compile``'s signature and returns what it returns, except
that for a function (not a module) it returns a function that calls the compiled one, or, while
``torch.jit.is_tracing()``, the original: the trace then records the function's own operations.
"""

from __future__ import annotations

import torch


def _trt_compile(model=None, **kwargs):
    """``torch.compile(model, **kwargs)``; a compiled function (not a module) runs ``model`` itself while
    ``torch.jit.trace`` or the TorchScript ONNX exporter traces it. With no ``model`` (a decorator given
    arguments, ``@torch.compile(dynamic=True)``), the decorator that does the same."""
    if model is None:
        def decorate(function):
            return _trt_compile(function, **kwargs)
        return decorate
    compiled = torch.compile(model, **kwargs)
    if isinstance(model, torch.nn.Module):
        return compiled  # torch's OptimizedModule, as it is: its parameters and state dict are the module's

    def run(*args, **kw):
        if torch.jit.is_tracing():
            return model(*args, **kw)
        return compiled(*args, **kw)

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        if hasattr(model, name):
            setattr(run, name, getattr(model, name))
    run.__wrapped__ = model
    return run
