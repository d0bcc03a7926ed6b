"""A stand-in for torchvision's box ops (the project's environment has no torchvision), for TRT360's tests.

Importable as ``torchvision`` (the tests copy it into a user's project as ``torchvision/__init__.py``, where
``migrate``'s observation imports it): ``torch.ops.torchvision.nms`` with its ONNX symbolic, and ``ops`` with
``nms``, ``batched_nms``, ``remove_small_boxes`` and ``clip_boxes_to_image`` written in plain PyTorch.
"""

from __future__ import annotations

import sys
import types

import torch

def _greedy_nms(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> torch.Tensor:
    """Greedy NMS by descending score, ties by position (what the compiled kernel does)."""
    order = scores.argsort(descending=True, stable=True)
    ordered = boxes[order]
    area = (ordered[:, 2] - ordered[:, 0]) * (ordered[:, 3] - ordered[:, 1])
    low = torch.max(ordered[:, None, :2], ordered[None, :, :2])
    high = torch.min(ordered[:, None, 2:], ordered[None, :, 2:])
    overlap = (high - low).clamp(min=0).prod(2)
    suppress = (overlap / (area[:, None] + area[None, :] - overlap) > threshold).tolist()
    dropped, kept = [False] * len(suppress), []
    for at, row in enumerate(suppress):
        if not dropped[at]:
            kept.append(at)
            dropped = [d or (j > at and row[j]) for j, d in enumerate(dropped)]
    return order[torch.tensor(kept, dtype=torch.int64)]


def _nms_symbolic(g, boxes, scores, threshold):
    """``NonMaxSuppression`` of one batch and one class (the exporter's form of torchvision's op)."""
    from torch.onnx import symbolic_helper

    threshold = g.op("Constant", value_t=torch.tensor([symbolic_helper._maybe_get_const(threshold, "f")]))
    picked = g.op("NonMaxSuppression", symbolic_helper._unsqueeze_helper(g, boxes, [0]),
                  symbolic_helper._unsqueeze_helper(g, symbolic_helper._unsqueeze_helper(g, scores, [0]), [0]),
                  g.op("Constant", value_t=torch.tensor([sys.maxsize], dtype=torch.long)), threshold)
    column = g.op("Gather", picked, g.op("Constant", value_t=torch.tensor([2], dtype=torch.long)), axis_i=1)
    return symbolic_helper._squeeze_helper(g, column, [1])


if not hasattr(torch.ops, "torchvision") or not hasattr(torch.ops.torchvision, "nms"):
    _LIBRARY = torch.library.Library("torchvision", "DEF")  # noqa: TOR901 (a test stand-in for the extension)
    _LIBRARY.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBRARY.impl("nms", _greedy_nms, "CompositeExplicitAutograd")
    torch.onnx.register_custom_op_symbolic("torchvision::nms", _nms_symbolic, 11)


def _batched_nms(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Per-class NMS by torchvision's coordinate offsets (torchvision's parameter names: callers pass them by
    keyword)."""
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64)
    offsets = idxs.to(boxes) * (boxes.max() + 1)
    return torch.ops.torchvision.nms(boxes + offsets[:, None], scores, iou_threshold)


def _remove_small_boxes(boxes, min_size):
    wide = (boxes[:, 2] - boxes[:, 0] >= min_size) & (boxes[:, 3] - boxes[:, 1] >= min_size)
    return torch.where(wide)[0]


def _clip_boxes_to_image(boxes, size):
    height, width = size
    x = boxes[..., 0::2].clamp(min=0, max=width)
    y = boxes[..., 1::2].clamp(min=0, max=height)
    return torch.stack((x, y), dim=boxes.dim()).reshape(boxes.shape)



def _nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    return torch.ops.torchvision.nms(boxes, scores, iou_threshold)


def _box_convert(boxes: torch.Tensor, in_fmt: str, out_fmt: str) -> torch.Tensor:
    """Centre-size boxes to corners, the one conversion the variants make (yolort's decode)."""
    if (in_fmt, out_fmt) != ("cxcywh", "xyxy"):
        raise NotImplementedError(f"{in_fmt} -> {out_fmt}")
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1)


#: A module, so that ``from torchvision.ops import nms`` (CoreYOLO) finds it once registered as ``torchvision.ops``
#: (here, as this module's submodule; the tests register it beside the stand-in); ``ops.boxes`` is itself.
ops = types.ModuleType(f"{__name__}.ops")
ops.__dict__.update(nms=_nms, batched_nms=_batched_nms, remove_small_boxes=_remove_small_boxes,
                    clip_boxes_to_image=_clip_boxes_to_image, box_convert=_box_convert)
ops.boxes = ops
sys.modules.setdefault(ops.__name__, ops)
