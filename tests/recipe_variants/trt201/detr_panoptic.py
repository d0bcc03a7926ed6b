"""DETR's panoptic post-processing: a mask named ``keep`` (a name that usually holds NMS indices)
built as ``labels.ne(...) & (scores > threshold)`` and used on three tensors.

Reduced from facebookresearch/detr @ 29901c51d7fe8712168b8d0d64351170bc0f83e0,
models/segmentation.py:281-287 (``PostProcessPanoptic.forward``: ``scores, labels =
cur_logits.softmax(-1).max(-1)``, ``keep = labels.ne(outputs["pred_logits"].shape[-1] - 1) & (scores >
self.threshold)``, ``cur_scores = cur_scores[keep]``, ``cur_classes = cur_classes[keep]``,
``box_ops.box_cxcywh_to_xyxy(cur_boxes[keep])``), written here in our own words; the masks and
their interpolation are left out.
"""

import torch
from torch import nn


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    return torch.stack([x_c - 0.5 * w, y_c - 0.5 * h, x_c + 0.5 * w, y_c + 0.5 * h], dim=-1)


class PostProcessPanoptic(nn.Module):
    def __init__(self, threshold: float = 0.4) -> None:
        super().__init__()
        self.threshold = threshold

    def forward(self, pred_logits, pred_boxes):
        preds = []
        for cur_logits, cur_boxes in zip(pred_logits, pred_boxes):
            scores, labels = cur_logits.softmax(-1).max(-1)
            keep = labels.ne(pred_logits.shape[-1] - 1) & (scores > self.threshold)
            cur_scores, cur_classes = cur_logits.softmax(-1).max(-1)
            cur_scores = cur_scores[keep]
            cur_classes = cur_classes[keep]
            cur_boxes = box_cxcywh_to_xyxy(cur_boxes[keep])
            preds.append(torch.cat((cur_boxes, cur_scores[:, None], cur_classes[:, None].float()), 1))
        return torch.cat(preds, 0)


def build() -> nn.Module:
    return PostProcessPanoptic()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (2 * torch.randn(1, 9, 4, generator=generator), torch.rand(1, 9, 4, generator=generator))


DYNAMIC = {"pred_logits": {1: "queries"}, "pred_boxes": {1: "queries"}}
