"""When to take the TensorRT-safe formulation: only while ``torch.onnx.export`` runs.

Every helper computes the original torch operation in eager mode, under
``torch.jit.script``, ``torch.fx``, ``torch.compile`` and ``torch.export``, so the
rewritten code keeps the original's values, dtype, strides, gradients, aliasing,
exceptions and speed there by construction. Only while one of the two ONNX exporters
traces the model does a helper switch to the formulation TensorRT parses.

``torch.onnx.is_in_onnx_export()`` costs about as much as a small tensor operation
(it imports two modules on every call), so the cheap public checks go first: the
TorchScript exporter traces (``torch.jit.is_tracing()``) and the dynamo exporter
runs ``torch.export`` (``torch.compiler.is_exporting()``, torch 2.4 and newer).
"""

import torch


def _trt_onnx_exporting() -> bool:
    """True while ``torch.onnx.export`` traces the model, with either exporter."""
    if torch.jit.is_tracing():
        return torch.onnx.is_in_onnx_export()
    is_exporting = getattr(torch.compiler, "is_exporting", None)
    return is_exporting is not None and is_exporting() and torch.onnx.is_in_onnx_export()
