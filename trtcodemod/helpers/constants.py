"""A tensor built from Python data in forward, then updated in place, as the TorchScript exporter can follow it.

While tracing, ``torch.tensor([...])`` (and ``torch.as_tensor`` of Python data) is recorded as a
constant. An in-place update of it afterwards (``t += y``, ``t.add_(y)``, ``t[0] = v``) is traced,
but the ONNX graph the TorchScript exporter writes reads the constant as it was built: the update
is lost (torch 2.13; kornia's CLAHE: ``j_idxs = torch.tensor([...]); j_idxs += j_floor``, whose
indices then point past the lookup tables). ``_trt_updatable`` is its argument itself everywhere
except inside ``torch.onnx.export``, where it is a ``clone()``: a node of the graph, whose updates
the graph keeps.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_updatable(value: torch.Tensor) -> torch.Tensor:
    """``value``; while exporting to ONNX, ``value.clone()`` (a fresh tensor the trace records)."""
    if torch.jit.is_scripting():
        return value
    if isinstance(value, torch.Tensor) and _trt_onnx_exporting():
        return value.clone()
    return value
