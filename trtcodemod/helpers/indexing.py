"""Boolean-mask indexing, exported with explicit integer positions."""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_mask_index(values, mask):
    """``values[mask]``; while exporting to ONNX, a bool mask is turned into positions.

    Outside ``torch.onnx.export`` this is ``values[mask]`` itself, whatever ``values``
    and ``mask`` are (a Python list indexed by a one-element mask, a user class's
    ``__getitem__``, a long index from NMS, a mask of the wrong length that raises).

    While exporting, a tensor indexed by a 1-D bool tensor becomes
    ``index_select(values, 0, positions)``, the positions of the True entries in
    increasing order being exactly ``mask.nonzero()[:, 0]``. The mask is cast to float32 first, so the exported
    ``NonZero`` reads a type TensorRT's parser documents (FP32/FP16), and the selection
    exports as a plain ``Gather`` instead of ``Transpose`` + ``GatherND``. A k-D bool mask over
    the first k axes (detectron2's ``R x K`` score mask on ``R x K x 4`` boxes) is the same
    selection on those axes flattened into one, at the row-major positions of its True entries.
    """
    if torch.jit.is_scripting():
        return values[mask]
    if (
        _trt_onnx_exporting()
        and isinstance(values, torch.Tensor)
        and isinstance(mask, torch.Tensor)
        and mask.dtype == torch.bool
        and mask.dim() >= 1
        and values.dim() >= mask.dim()
    ):
        # index_select: a plain Gather from both exporters (dynamo turns `values[index]` into GatherND).
        if mask.dim() == 1:
            return torch.index_select(values, 0, torch.nonzero(mask.to(torch.float32)).reshape(-1))
        positions = torch.nonzero(mask.flatten().to(torch.float32)).reshape(-1)
        return torch.index_select(values.flatten(0, mask.dim() - 1), 0, positions)
    return values[mask]
