"""A hand-written greedy NMS loop, as one NMS node while tracing (TRT397).

``while order.numel() > 0:`` picks the first index of ``order``, keeps it, and drops from ``order`` every
later index whose box overlaps the kept one by more than a threshold. A traced export runs the loop on the
example and unrolls it: the graph keeps the example's number of boxes. Given the loop's own candidates in
its own order, the kept indices are those of NMS run with the candidates' ranks as scores (the first
candidate the best): ``torchvision.ops.nms``, which the TorchScript exporter writes as ONNX
``NonMaxSuppression`` and TensorRT's parser takes as its NMS layer.

A loop over the classes (TRT738), ``for c in labels.unique():`` running NMS on each class's boxes and
gathering the kept indices class by class, is one NMS call on boxes moved apart by class, so that boxes
of two classes never overlap (:func:`_trt_classes_apart`), its kept indices put back in the loop's order,
class by class (:func:`_trt_by_class`).
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


@torch.jit.unused
def _trt_classes_apart(boxes: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """``boxes`` with the corners in their first four columns moved by ``labels`` times a span wider than all of
    them: two boxes of different (whole-numbered) labels then never overlap, two of one label keep their IoU.

    The span counts 0 among the corners, so it is defined (and wide enough) where there is no box at all."""
    corners = boxes[:, :4]
    bounds = torch.cat([corners.reshape(-1), corners.new_zeros(1)])
    span = bounds.max() - bounds.min() + 1
    moved = corners + labels.to(corners.dtype)[:, None] * span
    return torch.cat([moved, boxes[:, 4:]], 1)


@torch.jit.unused
def _trt_by_class(kept: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """``kept`` (indices of rows with ``labels``) grouped by label, smallest first, each label's indices in the
    order they had: what a loop over ``labels.unique()`` gathers class by class.

    A stable sort the ONNX exporters write: the key is the label times the count plus the position (distinct,
    so no tie is left to the sort), in float32, exact while it stays under 2**24."""
    count = kept.shape[0]
    position = torch.arange(count, device=kept.device).float()
    key = labels[kept].float() * count + position
    return kept[torch.argsort(key)]
