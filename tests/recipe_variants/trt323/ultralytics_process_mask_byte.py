"""Ultralytics' instance masks binarised in place and cast to bytes before the crop: ``masks.gt_(0.0).byte()``.

Reduced from ultralytics 8.4.190 (the PyPI package), ultralytics/utils/ops.py, ``crop_mask``
(lines 505-525) and ``process_mask`` (lines 528-556), its ``upsample=False`` path: the mask
logits (coefficients times prototypes, no sigmoid: ``> 0.0`` is ``sigmoid > 0.5``), the boxes
scaled to the prototypes' resolution by a ratio tensor, and ``return crop_mask(masks.gt_(0.0).byte(),
bboxes)``: the in-place comparison as the receiver of ``.byte()``, inside a call's argument; the
crop multiplies the uint8 masks in place by the column and then the row comparisons. The early
return for no detections (a size test) is left out. Written here in our own words.
"""

import torch
from torch import nn


def crop_mask(masks, boxes):
    _, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(boxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    masks *= (r >= x1) * (r < x2)
    masks *= (c >= y1) * (c < y2)
    return masks


class ProcessMask(nn.Module):
    shape = (32, 48)

    def forward(self, protos, masks_in, bboxes):
        shape = self.shape
        c, mh, mw = protos.shape
        masks = (masks_in @ protos.float().view(c, -1)).view(-1, mh, mw)
        width_ratio = mw / shape[1]
        height_ratio = mh / shape[0]
        ratios = torch.tensor([[width_ratio, height_ratio, width_ratio, height_ratio]], device=bboxes.device)
        bboxes = bboxes * ratios
        return crop_mask(masks.gt_(0.0).byte(), bboxes)


def build() -> nn.Module:
    return ProcessMask()


def boxes(generator: torch.Generator, n: int) -> torch.Tensor:
    corner = torch.rand(n, 2, generator=generator) * torch.tensor([40.0, 26.0])
    size = torch.rand(n, 2, generator=generator) * 16 + 2
    return torch.cat([corner, corner + size], 1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(8, 8, 12, generator=generator), torch.randn(4, 8, generator=generator), boxes(generator, 4)


DYNAMIC = {"masks_in": {0: "masks"}, "bboxes": {0: "masks"}}
