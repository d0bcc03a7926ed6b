"""hukkelas' batched RetinaFace: offsets decoded for the whole batch, then image by image a score mask, NMS, the
boxes clipped and scaled to pixels in place.

Reduced from hukkelas/DSFD-Pytorch-Inference@382de8f715f9e4311e5d08241c1725e820cd8dce
face_detection/retinaface/detect.py:52-97 (``batched_detect_with_landmarks``; ``_detect``, :100-127, decodes with
``batched_decode``): ``orig_shape = image.shape[2:]``, ``scores = boxes[:, :, -1]``, ``boxes = boxes[:, :, :-1]``,
``for i in range(len(boxes)):``, ``boxes_ = boxes[i]`` (likewise ``landms_``, ``scores_``), ``keep_idx = scores_ >=
self.confidence_threshold`` picking the three, ``keep_idx = nms(boxes_, scores_, self.nms_iou_threshold)`` picking
them again, ``height, width = orig_shape``, ``if self.clip_boxes: boxes_ = boxes_.clamp(0, 1)``, ``boxes_[:, [0, 2]]
*= width`` and ``boxes_[:, [1, 3]] *= height``. There the landmarks are scaled in NumPy and two lists of arrays are
returned; here the landmarks are scaled alike in the loop and the rows (box, score, landmarks, image) concatenated.
Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def batched_decode(loc: Tensor, priors: Tensor, variances: tuple[float, float]) -> Tensor:
    """Every image's offsets against the priors at once, to corners in [0, 1]."""
    centres = priors[None, :, :2] + loc[..., :2] * variances[0] * priors[None, :, 2:]
    sizes = priors[None, :, 2:] * torch.exp(loc[..., 2:] * variances[1])
    return torch.cat([centres - sizes / 2, centres + sizes / 2], -1)


class Detector(nn.Module):
    def __init__(self, confidence_threshold: float = 0.5, nms_iou_threshold: float = 0.3, clip_boxes: bool = False):
        super().__init__()
        self.head = nn.Conv2d(3, 10, 3, stride=4, padding=1)  # 2 scores, 4 box and 4 landmark offsets a prior
        self.confidence_threshold = confidence_threshold
        self.nms_iou_threshold = nms_iou_threshold
        self.clip_boxes = clip_boxes

    def forward(self, x: Tensor) -> Tensor:
        orig_shape = x.shape[2:]
        out = self.head(x).flatten(2).transpose(1, 2)
        at = torch.arange(out.shape[1], dtype=x.dtype)
        priors = torch.stack([(at % 8 + 0.5) / 8, (at // 8 + 0.5) / 8, torch.full_like(at, 0.2),
                              torch.full_like(at, 0.3)], 1)
        boxes = torch.cat([batched_decode(out[..., 2:6], priors, (0.1, 0.2)), (out[..., :2] * 4).softmax(-1)[..., 1:]],
                          -1)
        landms = priors[None, :, :2].repeat(1, 1, 2) + out[..., 6:] * 0.1 * priors[None, :, 2:].repeat(1, 1, 2)
        scores = boxes[:, :, -1]
        boxes = boxes[:, :, :-1]
        rows = []
        for i in range(len(boxes)):
            boxes_ = boxes[i]
            landms_ = landms[i]
            scores_ = scores[i]
            keep_idx = scores_ >= self.confidence_threshold
            boxes_ = boxes_[keep_idx]
            scores_ = scores_[keep_idx]
            landms_ = landms_[keep_idx]
            keep_idx = torchvision.ops.nms(boxes_, scores_, self.nms_iou_threshold)
            boxes_ = boxes_[keep_idx]
            scores_ = scores_[keep_idx]
            landms_ = landms_[keep_idx]
            height, width = orig_shape
            if self.clip_boxes:
                boxes_ = boxes_.clamp(0, 1)
            boxes_[:, [0, 2]] *= width
            boxes_[:, [1, 3]] *= height
            landms_[:, [0, 2]] *= width
            landms_[:, [1, 3]] *= height
            rows.append(torch.cat((boxes_, scores_.view(-1, 1), landms_, torch.full_like(scores_[:, None], i)), 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Six images, darker than the others."""
    return (0.5 * torch.rand(6, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
