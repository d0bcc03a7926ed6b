"""Ultralytics' SAM 3 semantic predictor: boxes and masks brought to the original image's size.

Reduced from ultralytics 8.4.190 (the pinned wheel), ultralytics/models/sam/predict.py,
``SAM3SemanticPredictor.postprocess`` (lines 2344-2382): the predicted boxes (normalized centre
and size, one row per query) get a score and go to corners with ``ops.xywh2xyxy``; for an image
with detections the masks are upscaled to the image with ``_upscale_masks`` (lines 2323-2342:
bilinear ``F.interpolate`` to the image's height and width, then ``torch.gt`` against the mask
threshold) and the boxes scaled with ``boxes[..., [0, 2]] *= orig_img.shape[1]`` and
``boxes[..., [1, 3]] *= orig_img.shape[0]`` (lines 2379-2380). The confidence filter, the NMS and
the Results objects of the original are left out; the original image comes in as a tensor (3,
height, width) whose size is dynamic, so the scale is read from its shape. Written here in our own
words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def xywh2xyxy(x):
    y = torch.empty_like(x)
    xy = x[..., :2]
    wh = x[..., 2:] / 2
    y[..., :2] = xy - wh
    y[..., 2:] = xy + wh
    return y


class SAM3BoxesToImage(nn.Module):
    def __init__(self, mask_threshold=0.0) -> None:
        super().__init__()
        self.mask_threshold = mask_threshold

    def forward(self, pred_boxes, pred_logits, pred_masks, orig_img):
        scores = pred_logits.sigmoid()
        boxes = torch.cat([xywh2xyxy(pred_boxes.sigmoid()), scores], dim=-1)
        shape = orig_img.shape[1:]
        masks = torch.gt(F.interpolate(pred_masks[None], shape, mode="bilinear")[0], self.mask_threshold)
        boxes[..., [0, 2]] *= orig_img.shape[2]
        boxes[..., [1, 3]] *= orig_img.shape[1]
        return boxes, masks


def build() -> nn.Module:
    return SAM3BoxesToImage().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    queries = 5
    return (torch.randn(queries, 4, generator=generator), torch.randn(queries, 1, generator=generator),
            torch.randn(queries, 8, 8, generator=generator), torch.rand(3, 24, 40, generator=generator))


DYNAMIC = {"pred_boxes": {0: "queries"}, "pred_logits": {0: "queries"}, "pred_masks": {0: "queries"},
           "orig_img": {1: "height", 2: "width"}}
