"""fastface's ``FaceDetector._postprocess``: every image's best ``keep_n`` candidates, picked from one flat rows
tensor by its image column, before one batched NMS.

Reduced from borhanMorphy/fastface @ 4db5e4bb2c378d973c5d7da60e78be36c2422f45 (v0.1.4), fastface/module.py:201-245
(the loop at 221-231, zoo 87's LFFD models): the candidates over ``det_threshold`` are made rows (x1, y1, x2, y2,
score, image) by ``torch.where`` on the batch's scores and a ``torch.cat`` of the image index; ``for batch_idx in
range(batch_size)`` picks the image's rows with ``(pick_n,) = torch.where(batch_idx == preds[:, 5])``, orders them by
``preds[pick_n, 4].sort(descending=True)[1]`` and appends ``preds[pick_n, :][order][:keep_n, :]``; the list is
concatenated along its first axis. What is reduced: the LFFD network is one convolution whose outputs are decoded into
boxes and a score; the batched NMS after the loop is left out (TRT360's rules take NMS; this variant is the cap), and
the preprocessing's mean and deviation are folded into the head. Written here in our own words.
"""

from typing import List

import torch
from torch import nn


class FaceDetector(nn.Module):
    def __init__(self, det_threshold: float = 0.5, keep_n: int = 4) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 5, 3, stride=4, padding=1)
        self.det_threshold = det_threshold
        self.keep_n = keep_n

    def compute_preds(self, x: torch.Tensor) -> torch.Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2].sigmoid() * 32
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 8], -1)
        return torch.cat([boxes, out[..., 4:5].sigmoid()], -1)

    def _postprocess(self, preds: torch.Tensor, det_threshold: float, keep_n: int) -> torch.Tensor:
        batch_size = preds.size(0)

        pick_b, pick_n = torch.where(preds[:, :, 4] >= det_threshold)

        preds = torch.cat(
            [preds[pick_b, pick_n, :], pick_b.to(preds.dtype).unsqueeze(1)], dim=1
        )

        batch_preds: List[torch.Tensor] = []
        for batch_idx in range(batch_size):
            (pick_n,) = torch.where(batch_idx == preds[:, 5])
            order = preds[pick_n, 4].sort(descending=True)[1]

            batch_preds.append(
                preds[pick_n, :][order][:keep_n, :]
            )

        batch_preds = torch.cat(batch_preds, dim=0)
        return batch_preds

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._postprocess(self.compute_preds(x), self.det_threshold, self.keep_n)


def build() -> nn.Module:
    torch.manual_seed(0)
    return FaceDetector().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
CALL = "for batch_idx in range(batch_size):"
