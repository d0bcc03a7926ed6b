"""A CenterNet head's ``decode``: peaks of the class heatmaps made rows (image, x1, y1, x2, y2, score, class), the
image index FIRST, then every image's best ``keep_n`` rows picked by that column in a loop over the batch read from
the logits' shape, and the concatenation scaled by the stride in place.

Reduced from borhanMorphy/object-as-points @ 7eaa4ffee5b735ada1f45974b771004c4152c82a,
centernet/head/detection_head.py:58-105 (``DetectionHead2D.decode``, the loop at 92-104): ``for batch_idx in
range(cls_logits.shape[0])``, ``(pick_n,) = torch.where(batch_idx == preds[:, 0])``, ``order = preds[pick_n,
5].sort(descending=True)[1]``, ``batch_preds.append(preds[pick_n, :][order][:keep_n, :])``, then
``batch_preds = torch.cat(batch_preds, dim=0)`` and ``batch_preds[:, 1:5] *= 4``. What is reduced: the three heads are
one convolution each on the image, the peaks are a 3x3 max pool as there; the integer peak positions are cast to the
logits' dtype before the stack (the original stacks them with float tensors, which the type promotion of old PyTorch
allowed); the class logits are shifted by the image's mean brightness, so that a dark image keeps no row. The same
author as fastface: another form of the loop (column 0, the count from a shape), not another author.
Written here in our own words.
"""

from typing import List

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class DetectionHead2D(nn.Module):
    def __init__(self, num_classes: int = 2, keep_n: int = 3, score_threshold: float = 0.45) -> None:
        super().__init__()
        self.offset_head = nn.Conv2d(3, 2, 3, stride=4, padding=1)
        self.shape_head = nn.Conv2d(3, 2, 3, stride=4, padding=1)
        self.cls_head = nn.Conv2d(3, num_classes, 3, stride=4, padding=1)
        self.keep_n = keep_n
        self.score_threshold = score_threshold

    def decode(self, cls_logits: Tensor, offset_logits: Tensor, shape_logits: Tensor, score_threshold: float,
               keep_n: int) -> Tensor:
        mp = F.max_pool2d(cls_logits.permute(0, 3, 1, 2), 3, stride=1, padding=1)
        keep = mp.permute(0, 2, 3, 1) == cls_logits
        bs, gy, gx, cats = torch.where(keep)
        wh_half = shape_logits[bs, gy, gx, :] / 2
        offsets = offset_logits[bs, gy, gx, :]
        scores = torch.sigmoid(cls_logits[bs, gy, gx, cats])
        bs, gy, gx, cats = (t.to(scores.dtype) for t in (bs, gy, gx, cats))

        xmin = gx + offsets[:, 0] - wh_half[:, 0]
        ymin = gy + offsets[:, 1] - wh_half[:, 1]
        xmax = gx + offsets[:, 0] + wh_half[:, 0]
        ymax = gy + offsets[:, 1] + wh_half[:, 1]

        preds = torch.stack([bs, xmin, ymin, xmax, ymax, scores, cats], dim=1)

        preds = preds[scores >= score_threshold, :]

        batch_preds: List[torch.Tensor] = []
        for batch_idx in range(cls_logits.shape[0]):
            (pick_n,) = torch.where(batch_idx == preds[:, 0])
            order = preds[pick_n, 5].sort(descending=True)[1]

            batch_preds.append(
                preds[pick_n, :][order][:keep_n, :]
            )

        batch_preds = torch.cat(batch_preds, dim=0)
        batch_preds[:, 1:5] *= 4
        return batch_preds

    def forward(self, x: Tensor) -> Tensor:
        offset_logits = self.offset_head(x).permute(0, 2, 3, 1)
        shape_logits = self.shape_head(x).exp().permute(0, 2, 3, 1)
        brightness = x.mean((1, 2, 3)) - 0.5  # a dark image: no peak over the threshold
        cls_logits = (self.cls_head(x) + 4 * brightness[:, None, None, None]).permute(0, 2, 3, 1)
        return self.decode(cls_logits, offset_logits, shape_logits, self.score_threshold, self.keep_n)


def build() -> nn.Module:
    torch.manual_seed(0)
    return DetectionHead2D().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
CALL = "for batch_idx in range(cls_logits.shape[0]):"
