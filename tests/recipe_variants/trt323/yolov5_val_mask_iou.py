"""YOLOv5's segmentation validation: ground-truth masks resized, ``gt_masks = gt_masks.gt_(0.5)``, then their IoU.

Reduced from yolov5 7.0.14 (the PyPI package): yolov5/segment/val.py, ``process_batch`` (lines 92-126,
the masks at lines 101-110: when the ground-truth masks' size differs from the predictions', a
bilinear resize, then ``gt_masks = gt_masks.gt_(0.5)``, the result bound to its receiver's name,
and ``mask_iou(gt_masks.view(gt_masks.shape[0], -1), pred_masks.view(pred_masks.shape[0], -1))``),
and yolov5/utils/segment/general.py, ``mask_iou`` (lines 121-131: a product of the flattened masks,
clamped, over the union). The thresholded float masks enter a matrix product. The overlap-mask
expansion and the matching at IoU levels are left out. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def mask_iou(mask1, mask2, eps=1e-7):
    intersection = torch.matmul(mask1, mask2.t()).clamp(0)
    union = (mask1.sum(1)[:, None] + mask2.sum(1)[None]) - intersection
    return intersection / (union + eps)


class MaskIoU(nn.Module):
    def forward(self, gt_masks, pred_masks):
        if gt_masks.shape[1:] != pred_masks.shape[1:]:
            gt_masks = F.interpolate(gt_masks[None], pred_masks.shape[1:], mode="bilinear", align_corners=False)[0]
            gt_masks = gt_masks.gt_(0.5)
        return mask_iou(gt_masks.view(gt_masks.shape[0], -1), pred_masks.view(pred_masks.shape[0], -1))


def build() -> nn.Module:
    return MaskIoU()


def masks(generator: torch.Generator, n: int, h: int, w: int) -> torch.Tensor:
    return (torch.rand(n, h, w, generator=generator) > 0.6).float()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return masks(generator, 3, 16, 20), masks(generator, 4, 8, 10)


DYNAMIC = {"gt_masks": {0: "labels"}, "pred_masks": {0: "predictions"}}
