"""When to take the TensorRT-safe formulation: only while ``torch.onnx.export`` runs.

Every helper computes the original torch operation in eager mode, under
``torch.jit.script``, ``torch.fx``, ``torch.compile`` and ``torch.export``, so the
rewritten code keeps the original's values, dtype, strides, gradients, aliasing,
exceptions and speed there by construction. Only while one of the two ONNX exporters
traces the model does a helper switch to the formulation TensorRT parses.

``torch.onnx.is_in_onnx_export()`` imports two modules on every call, and eager code asks
on every call, so two flags are read first: the TorchScript exporter traces
(``torch.jit.is_tracing()``; ``torch.compile`` cannot trace the private flag it reads)
and the dynamo exporter runs ``torch.export``
(``torch.compiler.is_exporting()``, torch 2.4 and newer; older torch has neither that
flag nor that exporter). A ``try`` costs nothing when nothing is raised.
"""

import torch


def _trt_onnx_exporting() -> bool:
    """True while ``torch.onnx.export`` traces the model, with either exporter."""
    if torch.jit.is_tracing():
        return torch.onnx.is_in_onnx_export()
    try:
        exporting = torch.compiler.is_exporting()
    except AttributeError:
        return False
    return exporting and torch.onnx.is_in_onnx_export()
