"""Roboflow inference's instance-segmentation NMS: each image's channels-first head read transposed, the mask
coefficients filtered and gathered with the boxes, an empty image's zeros appended before ``continue``.

Reduced from roboflow/inference @ 3bb973b5ca52076a167d39e22853686fe85138c3
inference_models/inference_models/models/common/roboflow/post_processing.py:108-164
(``run_nms_for_instance_segmentation``): the head split as ``boxes = output[:, :4, :]``, ``scores = output[:, 4:-32,
:]``, ``masks = output[:, -32:, :]``; ``for b in range(bs):`` each image read as ``boxes[b].T``, ``scores[b].T``,
``masks[b].T``; the best class (``class_scores.max(1)``) and its mask (a scalar threshold, or a per-class tensor
indexed by the class); ``if mask.sum() == 0: results.append(torch.zeros((0, 38), device=output.device)); continue``;
four parallel tensors filtered by the one mask; centres to corners under ``if box_format == "xywh":``; class-agnostic
ids by ``torch.zeros_like``; ``torchvision.ops.batched_nms``; ``keep = keep[:max_detections]``; the kept rows
concatenated with their 32 mask coefficients (``box_masks[keep]``). What is reduced: the network is one convolution
whose class logits are lowered by the image's brightness, so an image filled with 40.0 keeps no candidate (the empty
branch); -40.0 keeps every one. The caller (a zoo wrapper) flattens the list: the rows with the image's index, and the
mask coefficients beside them. Written here in our own words.
"""

from typing import List, Literal, Union

import torch
import torchvision
from torch import nn
from torch.nn import functional as F


def run_nms_for_instance_segmentation(
    output: torch.Tensor,
    conf_thresh: Union[float, torch.Tensor] = 0.25,
    iou_thresh: float = 0.45,
    max_detections: int = 100,
    class_agnostic: bool = False,
    box_format: Literal["xywh", "xyxy"] = "xywh",
) -> List[torch.Tensor]:
    bs = output.shape[0]
    boxes = output[:, :4, :]
    scores = output[:, 4:-32, :]
    masks = output[:, -32:, :]
    results = []

    for b in range(bs):
        bboxes = boxes[b].T
        class_scores = scores[b].T
        box_masks = masks[b].T
        class_conf, class_ids = class_scores.max(1)
        if isinstance(conf_thresh, torch.Tensor):
            mask = class_conf > conf_thresh.to(output.device)[class_ids]
        else:
            mask = class_conf > conf_thresh
        if mask.sum() == 0:
            results.append(torch.zeros((0, 38), device=output.device))
            continue
        bboxes = bboxes[mask]
        class_conf = class_conf[mask]
        class_ids = class_ids[mask]
        box_masks = box_masks[mask]
        if box_format == "xywh":
            xy = bboxes[:, :2]
            wh = bboxes[:, 2:]
            half_wh = wh / 2
            xyxy = torch.cat((xy - half_wh, xy + half_wh), 1)
        else:
            xyxy = bboxes
        nms_class_ids = torch.zeros_like(class_ids) if class_agnostic else class_ids
        keep = torchvision.ops.batched_nms(xyxy, class_conf, nms_class_ids, iou_thresh)
        keep = keep[:max_detections]
        detections = torch.cat(
            [
                xyxy[keep],
                class_conf[keep].unsqueeze(1),
                class_ids[keep].unsqueeze(1).float(),
                box_masks[keep],
            ],
            dim=1,
        )
        results.append(detections)
    return results


class Model(nn.Module):
    """A YOLOv8-seg-like head (boxes, 3 classes, 32 mask coefficients, channels first) and Roboflow's NMS."""

    def __init__(self, classes: int = 3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 4 + classes + 32, 3, stride=4, padding=1)

    def forward(self, images: torch.Tensor):
        out = self.head(images)
        n, _, h, w = out.shape
        # brighter than the input range lowers every class logit (an image filled with 40.0 keeps no candidate)
        light = F.avg_pool2d(images.mean(1, keepdim=True), 4)
        at = torch.arange(h * w, dtype=images.dtype, device=images.device)
        cells = torch.stack([at % w, at // w]) * 4
        centres = cells + out[:, :2].flatten(2).sigmoid() * 4
        sizes = out[:, 2:4].flatten(2).sigmoid() * 12
        classes = (out[:, 4:-32] - 4 * (light - 0.5)).flatten(2).sigmoid()
        output = torch.cat([centres, sizes, classes, out[:, -32:].flatten(2)], 1)
        found = run_nms_for_instance_segmentation(output, 0.4, 0.45, max_detections=6)
        rows = torch.cat([torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(i))], 1)
                          for i, det in enumerate(found)])
        coefficients = torch.cat([det[:, 6:] for det in found])
        return rows, coefficients


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
