"""fastface's ``FaceDetector._postprocess`` once it kept the landmarks: the image index appended after them, the loop
picks each image's rows by the LAST column (``preds[:, -1]``) and keeps every column of the rows.

Reduced from borhanMorphy/fastface @ 2cc7683e2e23a67143528741e49fc10c19222485 ("added landmark prediction output
support"), fastface/module.py:203-252 (the loop at 232-242): rows are (x1, y1, x2, y2, score, landmarks..., image);
``(pick_n,) = torch.where(batch_idx == preds[:, -1])``, ``order = preds[pick_n, 4].sort(descending=True)[1]``,
``batch_preds.append(preds[pick_n, :][order][:keep_n, :])``, then ``torch.cat(batch_preds, dim=0)`` and a batched NMS
whose result indexes the rows. What is reduced: the network is one convolution decoded into a box, a score and two
landmark points; the NMS is left out (the cap is this variant's recipe). The same author as fastface_postprocess:
another form of the loop, not another author. Written here in our own words.
"""

from typing import List

import torch
from torch import nn


class FaceDetector(nn.Module):
    def __init__(self, det_threshold: float = 0.45, keep_n: int = 3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 9, 3, stride=4, padding=1)
        self.det_threshold = det_threshold
        self.keep_n = keep_n

    def compute_preds(self, x: torch.Tensor) -> torch.Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2].sigmoid() * 32
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 8], -1)
        landmarks = corner.repeat(1, 1, 2) + out[..., 5:9].tanh() * 4
        return torch.cat([boxes, out[..., 4:5].sigmoid(), landmarks], -1)

    def _postprocess(self, preds: torch.Tensor, det_threshold: float, keep_n: int) -> torch.Tensor:
        batch_size = preds.size(0)

        pick_b, pick_n = torch.where(preds[:, :, 4] >= det_threshold)

        preds = torch.cat(
            [preds[pick_b, pick_n, :], pick_b.to(preds.dtype).unsqueeze(1)], dim=1
        )

        batch_preds: List[torch.Tensor] = []
        for batch_idx in range(batch_size):
            (pick_n,) = torch.where(batch_idx == preds[:, -1])
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
