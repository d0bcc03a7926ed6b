"""YOLOv8-TensorRT's segmentation masks, binarised in place and given a channel axis: ``masks.gt_(0.5)[..., None]``.

Reduced from triple-Mu/YOLOv8-TensorRT at d5f68cd79a589dd6875ccc070c31fbfc2f38227d,
models/torch_utils.py, ``seg_postprocess`` (lines 11-38, the masks at lines 31-37) and ``crop_mask``
(lines 97-105): the kept detections' mask coefficients times the prototypes (``proto``, already
flattened to ``(32, h*w)``), a sigmoid, a view at a quarter of the image size, the crop to the
boxes divided by 4, a bilinear resize to the image and ``masks = masks.gt_(0.5)[..., None]``: the
in-place comparison subscripted. The score threshold and NMS that pick the detections are left
out (the kept coefficients and boxes are inputs). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def crop_mask(masks, bboxes):
    n, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(bboxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


class SegMasks(nn.Module):
    shape = (24, 32)

    def forward(self, maskconf, proto, bboxes):
        shape = self.shape
        h, w = shape[0] // 4, shape[1] // 4
        masks = (maskconf @ proto).sigmoid().view(-1, h, w)
        masks = crop_mask(masks, bboxes / 4.)
        masks = F.interpolate(masks[None], shape, mode="bilinear", align_corners=False)[0]
        masks = masks.gt_(0.5)[..., None]
        return masks


def build() -> nn.Module:
    return SegMasks()


def boxes(generator: torch.Generator, n: int) -> torch.Tensor:
    corner = torch.rand(n, 2, generator=generator) * torch.tensor([26.0, 18.0])
    return torch.cat([corner, corner + torch.rand(n, 2, generator=generator) * 10 + 2], 1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(3, 32, generator=generator), torch.randn(32, 48, generator=generator), boxes(generator, 3)


DYNAMIC = {"maskconf": {0: "masks"}, "bboxes": {0: "masks"}}
