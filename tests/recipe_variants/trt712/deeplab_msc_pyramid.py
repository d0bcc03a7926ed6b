"""DeepLab's multi-scale inputs: the image resized to fractions of its size, each scale's logits taken.

Reduced from kazuto1011/deeplab-pytorch at 2760e35a219fac54a3be86ee851d2697e24935e1, libs/models/msc.py:30-33
(``MSC.forward``: ``for p in self.pyramids:`` then ``size = [int(s * p) for s in x.shape[2:]]`` and
``F.upsample(x, size=size, mode="bilinear", align_corners=False)``, the logits upsampled back and the
pixel-wise maximum kept). Written here in our own words, with one small convolution for the backbone. Form
kept: each scale's size is ``int`` of a comprehension target over the input's spatial shape, so the
TorchScript export keeps the example's size for every scale and, at another size, the scaled branches are
resized to the example's size and the maximum fails to broadcast or mixes wrong pixels.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MultiScale(nn.Module):
    def __init__(self, pyramids=(0.5, 0.75)) -> None:
        super().__init__()
        self.backbone = nn.Conv2d(3, 4, 3, padding=1)
        self.pyramids = pyramids

    def forward(self, x):
        logits = self.backbone(x)
        scaled = []
        for p in self.pyramids:
            size = [int(s * p) for s in x.shape[2:]]
            h = F.interpolate(x, size=size, mode="bilinear", align_corners=False)
            scaled.append(self.backbone(h))
        back = [F.interpolate(l, size=logits.shape[2:], mode="bilinear", align_corners=False) for l in scaled]
        return torch.max(torch.stack([logits] + back), dim=0)[0]


def build() -> nn.Module:
    torch.manual_seed(0)
    return MultiScale().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 24, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
