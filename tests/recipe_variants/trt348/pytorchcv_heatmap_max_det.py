"""pytorchcv's keypoint decoder: the maxima of each heatmap, shifted a quarter pixel towards the higher neighbour.

Reduced from pytorchcv 0.0.74, models/common/tutti.py: ``HeatmapMaxDetBlock.forward`` (lines 423-440),
the head of SimplePose, SimplePoseMobile and AlphaPose in that library. It finds each heatmap's maximum
with ``view(batch, channels, -1).max(...)``, builds ``pts`` of (x, y, score), then loops over the batch
and the keypoints: ``px = int(pts[b, k, 0])``, a neighbour test on the sizes, and ``pts[b, k, 0] +=
(hm[py, px + 1] - hm[py, px - 1]).sign() * 0.25`` (the same for y). Written here in our own words,
with a small convolution in front so the heatmaps come from the input.
"""

import torch
from torch import nn


class KeypointHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 5, 3, padding=1)

    def forward(self, x):
        heatmap = self.conv(x)
        batch = heatmap.shape[0]
        channels = heatmap.shape[1]
        in_size = x.shape[2:]
        scores, indices = heatmap.view(batch, channels, -1).max(dim=2, keepdims=True)
        scores_mask = (scores > 0.0).float()
        pts_x = (indices % in_size[1]) * scores_mask
        pts_y = (indices // in_size[1]) * scores_mask
        pts = torch.cat((pts_x, pts_y, scores), dim=2)
        for b in range(batch):
            for k in range(channels):
                hm = heatmap[b, k, :, :]
                px = int(pts[b, k, 0])
                py = int(pts[b, k, 1])
                if (0 < px < in_size[1] - 1) and (0 < py < in_size[0] - 1):
                    pts[b, k, 0] += (hm[py, px + 1] - hm[py, px - 1]).sign() * 0.25
                    pts[b, k, 1] += (hm[py + 1, px] - hm[py - 1, px]).sign() * 0.25
        return pts


def build() -> nn.Module:
    torch.manual_seed(0)
    return KeypointHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 16, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
