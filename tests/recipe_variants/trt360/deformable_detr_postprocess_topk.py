"""Deformable DETR's ``PostProcess``: the best query-class pairs of the batch, then one dict an image.

Reduced from fundamentalvision/Deformable-DETR @ 1212c970d85a11132bd77a4785e903c961037d01 models/deformable_detr.py
(``PostProcess.forward``): sigmoid class probabilities, ``torch.topk`` over each image's queries times classes
flattened (``prob.view(out_logits.shape[0], -1)``), the query as the position's integer division by the classes and
the label as its remainder, the boxes made corners, gathered at those queries (``torch.gather(boxes, 1,
topk_boxes.unsqueeze(-1).repeat(1, 1, 4))``) and scaled by each image's size, then ``results = [{'scores': s,
'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]``. The caller keeps each image's pairs over a
threshold as rows with the image's index, counted by ``int(keep.sum())``. What is reduced: the deformable transformer
is one convolution pooled into the queries' logits and boxes, 6 pairs kept instead of 100, the image sizes the
input's, the asserts on the sizes left out. Written here in our own words.
"""

import torch
from torch import nn


def box_cxcywh_to_xyxy(x: torch.Tensor) -> torch.Tensor:
    x_c, y_c, w, h = x.unbind(-1)
    return torch.stack([x_c - 0.5 * w, y_c - 0.5 * h, x_c + 0.5 * w, y_c + 0.5 * h], dim=-1)


class PostProcess(nn.Module):
    def __init__(self, pairs: int = 6) -> None:
        super().__init__()
        self.pairs = pairs

    @torch.no_grad()
    def forward(self, outputs, target_sizes):
        out_logits, out_bbox = outputs["pred_logits"], outputs["pred_boxes"]

        prob = out_logits.sigmoid()
        topk_values, topk_indexes = torch.topk(prob.view(out_logits.shape[0], -1), self.pairs, dim=1)
        scores = topk_values
        topk_boxes = topk_indexes // out_logits.shape[2]
        labels = topk_indexes % out_logits.shape[2]
        boxes = box_cxcywh_to_xyxy(out_bbox)
        boxes = torch.gather(boxes, 1, topk_boxes.unsqueeze(-1).repeat(1, 1, 4))

        img_h, img_w = target_sizes.unbind(1)
        scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1)
        boxes = boxes * scale_fct[:, None, :]

        results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]

        return results


class Detector(nn.Module):
    def __init__(self, queries: int = 10, classes: int = 3, threshold: float = 0.7) -> None:
        super().__init__()
        self.queries, self.classes, self.threshold = queries, classes, threshold
        self.body = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.logits = nn.Linear(8, queries * classes)
        self.boxes = nn.Linear(8, queries * 4)
        self.post = PostProcess()

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        features = self.body(images).mean((2, 3))
        outputs = {"pred_logits": self.logits(features).view(-1, self.queries, self.classes) * 3,
                   "pred_boxes": self.boxes(features).view(-1, self.queries, 4).sigmoid()}
        sizes = torch.ones(images.shape[0], 2) * torch.tensor([images.shape[2], images.shape[3]])
        rows = [torch.zeros(0, 7)]
        for index, result in enumerate(self.post(outputs, sizes)):
            keep = result["scores"] > self.threshold
            image = torch.full((int(keep.sum()), 1), float(index))
            rows.append(torch.cat([result["boxes"][keep], result["scores"][keep, None],
                                   result["labels"][keep, None].float(), image], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 32, 32, generator=generator) * 4 - 2,)


DYNAMIC = {"images": {0: "batch"}}
CALL = "results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]"
