"""DETR's ``PostProcess``: every image's scores, labels and boxes split into one dict an image by a comprehension.

Reduced from facebookresearch/detr @ e42a3b174d2325c28f82d7114138c755ac7c095a models/detr.py:258-286: the class
probabilities by ``F.softmax(out_logits, -1)``, ``scores, labels = prob[..., :-1].max(-1)`` (the last class is "no
object"), centre-size boxes made corners and scaled by each image's size from ``target_sizes.unbind(1)``, then
``results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]``. The caller is a
deploying user's (zoo 90's wrapper): each image's detections over a threshold as rows with the image's index, the
count of the column read as ``int(keep.sum())``. What is reduced: the transformer is one convolution pooled into the
queries' logits and boxes; the image sizes are the input's; the two asserts on the sizes (``len(out_logits) ==
len(target_sizes)``) are left out here: tests/transforms/variants/test_recipe_variants_trt360_split.py puts them back
with the class in a file of its own, as the library has it. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def box_cxcywh_to_xyxy(x: torch.Tensor) -> torch.Tensor:
    x_c, y_c, w, h = x.unbind(-1)
    return torch.stack([x_c - 0.5 * w, y_c - 0.5 * h, x_c + 0.5 * w, y_c + 0.5 * h], dim=-1)


class PostProcess(nn.Module):
    @torch.no_grad()
    def forward(self, outputs, target_sizes):
        out_logits, out_bbox = outputs["pred_logits"], outputs["pred_boxes"]

        prob = F.softmax(out_logits, -1)
        scores, labels = prob[..., :-1].max(-1)
        boxes = box_cxcywh_to_xyxy(out_bbox)
        img_h, img_w = target_sizes.unbind(1)
        scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1)
        boxes = boxes * scale_fct[:, None, :]
        results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]
        return results


class Detector(nn.Module):
    def __init__(self, queries: int = 12, classes: int = 4, threshold: float = 0.3) -> None:
        super().__init__()
        self.queries, self.classes, self.threshold = queries, classes, threshold
        self.body = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.logits = nn.Linear(8, queries * (classes + 1))
        self.boxes = nn.Linear(8, queries * 4)
        self.post = PostProcess()

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        features = self.body(images).mean((2, 3))
        outputs = {"pred_logits": self.logits(features).view(-1, self.queries, self.classes + 1) * 3,
                   "pred_boxes": self.boxes(features).view(-1, self.queries, 4).sigmoid()}
        sizes = torch.ones(images.shape[0], 2) * torch.tensor([images.shape[2], images.shape[3]])
        results = self.post(outputs, sizes)
        rows = [torch.zeros(0, 7)]
        for index, result in enumerate(results):
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
