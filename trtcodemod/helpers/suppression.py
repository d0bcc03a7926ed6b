"""A hand-written greedy NMS loop, as one NMS node while tracing (TRT397).

``while order.numel() > 0:`` picks the first index of ``order``, keeps it, and drops from ``order`` every
later index whose box overlaps the kept one by more than a threshold. A traced export runs the loop on the
example and unrolls it: the graph keeps the example's number of boxes. Given the loop's own candidates in
its own order, the kept indices are those of NMS run with the candidates' ranks as scores (the first
candidate the best): ``torchvision.ops.nms``, which the TorchScript exporter writes as ONNX
``NonMaxSuppression`` and TensorRT's parser takes as its NMS layer.
"""

import torch


@torch.jit.unused
def _trt_nms_ready() -> bool:
    """Whether torchvision's ``nms`` operator is registered (importing torchvision registers it, and its
    ONNX symbolic); the loop as written otherwise."""
    try:
        import torchvision  # noqa: F401  - registers torch.ops.torchvision.nms
    except Exception:  # noqa: BLE001 - absent or broken: the loop as written
        return False
    return hasattr(torch.ops, "torchvision") and hasattr(torch.ops.torchvision, "nms")


@torch.jit.unused
def _trt_greedy_nms(boxes: torch.Tensor, order: torch.Tensor, threshold: float, offset: float,
                    last: bool) -> torch.Tensor:
    """The indices a greedy NMS loop over ``order`` keeps, in the order it keeps them.

    ``boxes`` holds each candidate's corners in its first four columns (x1, y1, x2, y2, or y1, x1, y2, x2:
    IoU is the same), indexed by ``order``'s values; ``last``: the loop picks ``order[-1]`` first (an
    ascending sort). ``offset`` is added to the far corners where the loop counts a box's width as
    ``x2 - x1 + 1`` (pixel boxes), so that the IoU torchvision computes is the loop's."""
    ranked = order.flip(0) if last else order
    corners = boxes[ranked][:, :4].float()  # an IoU of half-precision corners would round far from the loop's
    if offset:
        corners = torch.cat([corners[:, :2], corners[:, 2:] + offset], 1)
    count = ranked.shape[0]
    # the loop's priority as the score: the first candidate the best, every score distinct (no tie to break)
    rank = torch.arange(count, 0, -1, device=corners.device).float()
    kept = torch.ops.torchvision.nms(corners, rank, float(threshold))
    return ranked[kept]


@torch.jit.unused
def _trt_greedy_nms_into(buffer: torch.Tensor, boxes: torch.Tensor, order: torch.Tensor, threshold: float,
                         offset: float, last: bool):
    """ssd.pytorch's form: the kept indices written at the start of ``buffer`` (the rest as it was), and their
    count, a traced 0-d tensor where the loop counts in a Python int."""
    kept = _trt_greedy_nms(boxes, order, threshold, offset, last)
    count = kept.shape[0]
    return torch.cat([kept.to(buffer.dtype), buffer[count:]]), count
