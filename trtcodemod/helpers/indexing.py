"""Boolean-mask indexing written as explicit integer indices."""

import torch


def _trt_bool_to_index(mask):
    """Integer indices with ``t[_trt_bool_to_index(mask)]`` equal to ``t[mask]``.

    For a 1-D bool mask: the positions of its True entries in increasing order,
    exactly ``mask.nonzero()[:, 0]`` (empty for an all-False or empty mask). The mask
    is cast to float32 first, so the exported ``NonZero`` reads a type TensorRT's
    parser documents (FP32/FP16), and the selection exports as a plain ``Gather``
    instead of ``Transpose`` + ``GatherND``.

    Anything else is returned unchanged, because indexing with it already means the
    right thing and a conversion could only break it: long or int index tensors
    (``keep`` from NMS), legacy uint8 masks, 0-d masks (``t[mask]`` with a 0-d mask
    adds an axis rather than selecting rows), masks of rank 2 or more (``t[mask]``
    with a 2-D mask already exports as one NonZero + GatherND), and non-tensors.
    """
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.dim() != 1:
        return mask
    return torch.nonzero(mask.to(torch.float32)).reshape(-1)
