"""GMFlow's local matching: each pixel against a window around it, sampled at coordinates normalised by the size.

Reduced from haofeixu/gmflow at b5123431164d01ec14526a1c3d22218aecb62024: ``local_correlation_softmax``
(gmflow/matching.py, lines 39-83) and the ``normalize_coords`` it calls (gmflow/geometry.py, lines
35-38). Written here in our own words, with a smaller radius. Form kept: the sampling coordinates are
mapped to [-1, 1] by dividing by a tensor the legacy constructor builds from the feature map's height
and width, handed down as plain parameters (``torch.Tensor([(w - 1) / 2., (h - 1) / 2.])``): the
TorchScript export reads both numbers into Python floats and keeps the example's, so at another size
every window is sampled at the wrong place.
"""

import torch
import torch.nn.functional as F
from torch import nn


def normalize_coords(coords, h, w):
    c = torch.Tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)
    return (coords - c) / c


class LocalMatching(nn.Module):
    def __init__(self, radius: int = 2) -> None:
        super().__init__()
        self.radius = radius
        self.proj = nn.Conv2d(4, 4, 1)

    def forward(self, feature0, feature1):
        feature0, feature1 = self.proj(feature0), self.proj(feature1)
        b, c, h, w = feature0.shape
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        coords = torch.stack([xs, ys], -1).float().view(1, -1, 1, 2)
        r = self.radius
        offsets = torch.linspace(-r, r, 2 * r + 1)
        dy, dx = torch.meshgrid(offsets, offsets, indexing="ij")
        window = torch.stack([dx, dy], -1).view(1, 1, -1, 2)
        sample = (coords + window).expand(b, -1, -1, -1)
        valid = (sample[..., 0] >= 0) & (sample[..., 0] < w) & (sample[..., 1] >= 0) & (sample[..., 1] < h)
        sampled = F.grid_sample(feature1, normalize_coords(sample, h, w), align_corners=True)
        corr = (feature0.view(b, c, -1, 1) * sampled).sum(1) / c ** 0.5
        corr = corr.masked_fill(~valid, -1e9)
        prob = torch.softmax(corr, -1)
        flow = (prob.unsqueeze(-1) * sample).sum(2) - coords.view(1, -1, 2)
        return flow.view(b, h, w, 2).permute(0, 3, 1, 2)


def build() -> nn.Module:
    torch.manual_seed(0)
    return LocalMatching().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 8, 12, generator=generator), torch.randn(1, 4, 8, 12, generator=generator))


DYNAMIC = {"feature0": {0: "batch", 2: "height", 3: "width"}, "feature1": {0: "batch", 2: "height", 3: "width"}}
