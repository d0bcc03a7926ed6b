"""The axis of ``repeat_interleave`` counted from the front while exporting (TRT373).

The TorchScript exporter's ``repeat_interleave`` symbolic (opset 9 and 13, torch 2.13) reads a negative ``dim``
as the traced graph's ``Constant`` tensor itself and adds the input's rank to it in place. The trace keeps one
``Constant`` per value for the whole graph, so every other use of that value changes with it: a ``-1`` beside
(``x.reshape(b, c, -1)``, ``torch.cat(..., dim=-1)``, ``x.shape[-1]``) becomes the rank minus one, and the graph
fails to load or computes other values far from the ``repeat_interleave``. The helper is the axis unchanged outside
an export; while exporting it gives a negative axis in range as the same axis counted from the front, which the
symbolic reads without writing anything.
"""

import torch


def _trt_export_dim(tensor, dim):
    # type: (Tensor, int) -> int
    """``dim``; while exporting to ONNX, a negative ``dim`` within ``tensor``'s rank counted from the front."""
    if torch.jit.is_scripting():
        return dim
    return _trt_export_dim_eager(tensor, dim)


@torch.jit.unused
def _trt_export_dim_eager(tensor, dim):
    """``dim``, made non-negative while exporting where it is an int within the rank (never runs when scripted);
    anything else as it is, for torch to take or refuse as it would."""
    if not torch.onnx.is_in_onnx_export() or not isinstance(tensor, torch.Tensor):
        return dim
    if type(dim) is not int or dim >= 0:
        return dim
    rank = tensor.dim()
    return dim + rank if -rank <= dim else dim


def _trt_repeat_interleave(tensor, repeats, dim):
    # type: (Tensor, Union[int, Tensor], int) -> Tensor
    """``tensor.repeat_interleave(repeats, dim=dim)``; while exporting to ONNX, along ``dim`` counted from the front
    (for a receiver that cannot be read twice: ``x.repeat_interleave(2, dim=-1).repeat_interleave(2, dim=-2)``)."""
    if torch.jit.is_scripting():
        if isinstance(repeats, int):
            return tensor.repeat_interleave(repeats, dim=dim)
        return tensor.repeat_interleave(repeats, dim=dim)
    return tensor.repeat_interleave(repeats, dim=_trt_export_dim_eager(tensor, dim))
