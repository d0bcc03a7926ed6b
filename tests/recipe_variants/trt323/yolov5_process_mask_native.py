"""YOLOv5's instance masks, cropped after upsampling and binarised in place: ``return masks.gt_(0.5)``.

Reduced from yolov5 7.0.14 (the PyPI package), yolov5/utils/segment/general.py, ``crop_mask``
(lines 7-22) and ``process_mask_native`` (lines 70-90): the mask coefficients times the prototypes,
a sigmoid, the letterbox padding cut off (``gain``, ``pad``, ``masks[:, top:bottom, left:right]``),
a bilinear resize to the image, the crop to each box by a product of four comparisons, and
``return masks.gt_(0.5)``: the float masks overwritten with 1.0 and 0.0 and returned. Written here
in our own words as a module whose image size is a class attribute; the prototypes are an input of
a fixed size, the number of masks varies.
"""

import torch
import torch.nn.functional as F
from torch import nn


def crop_mask(masks, boxes):
    n, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(boxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


class ProcessMaskNative(nn.Module):
    shape = (32, 40)

    def forward(self, protos, masks_in, bboxes):
        shape = self.shape
        c, mh, mw = protos.shape
        masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
        gain = min(mh / shape[0], mw / shape[1])
        pad = (mw - shape[1] * gain) / 2, (mh - shape[0] * gain) / 2
        top, left = int(pad[1]), int(pad[0])
        bottom, right = int(mh - pad[1]), int(mw - pad[0])
        masks = masks[:, top:bottom, left:right]
        masks = F.interpolate(masks[None], shape, mode="bilinear", align_corners=False)[0]
        masks = crop_mask(masks, bboxes)
        return masks.gt_(0.5)


def build() -> nn.Module:
    return ProcessMaskNative()


def boxes(generator: torch.Generator, n: int) -> torch.Tensor:
    corner = torch.rand(n, 2, generator=generator) * torch.tensor([30.0, 24.0])
    size = torch.rand(n, 2, generator=generator) * 12 + 2
    return torch.cat([corner, corner + size], 1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(8, 8, 12, generator=generator), torch.randn(5, 8, generator=generator) * 2,
            boxes(generator, 5))


DYNAMIC = {"masks_in": {0: "masks"}, "bboxes": {0: "masks"}}
