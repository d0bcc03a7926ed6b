"""DeDoDe's keypoint detector in kornia: a coarse-to-fine decoder whose running logits are resized
bicubically to each finer feature map's size (``size=sizes[-(idx + 2)]``, taken from a list the
encoder returns), inside a loop.

Reduced from kornia 0.9.0 (the PyPI wheel the second zoo unpacks),
kornia/feature/dedode/detector.py, ``DeDoDeDetector.forward`` lines 48-61 (features and sizes
from the encoder, one decoder step per scale, ``logits = F.interpolate(logits, size=size,
mode="bicubic", align_corners=False)`` and the bilinear resize of the context). Written here in
our own words: two strided convolutions stand in for the VGG encoder, a 1x1 convolution per scale
for the decoder, and the context is left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DeDoDeDetector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.ModuleList([nn.Conv2d(1, 2, 3, padding=1), nn.Conv2d(2, 2, 3, stride=2, padding=1),
                                      nn.Conv2d(2, 2, 3, stride=2, padding=1)])
        self.decoder = nn.ModuleList([nn.Conv2d(2, 1, 1) for _ in range(3)])

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        features, sizes = [], []
        x = images
        for layer in self.encoder:
            x = layer(x)
            features.append(x)
            sizes.append(x.shape[-2:])
        logits = None
        for idx, feature_map in enumerate(reversed(features)):
            delta_logits = self.decoder[idx](feature_map)
            logits = delta_logits if logits is None else logits + delta_logits.float()
            if idx < len(features) - 1:
                size = sizes[-(idx + 2)]
                logits = F.interpolate(logits, size=size, mode="bicubic", align_corners=False)
        return logits


def build() -> nn.Module:
    return DeDoDeDetector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 1, 16, 12, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
