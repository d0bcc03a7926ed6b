"""kornia DISK's keypoints from a heatmap: the local maxima above a threshold are kept and, where an
image has more than ``n``, only its ``n`` strongest: the ``n``-th largest score is the ``n``-th
smallest of the negated scores (``minus_threshold, _indices = torch.kthvalue(-detection_logp, n)``,
the indices unpacked into an underscored name and never read), every score above it is kept, and
the scores tied with it in raster order until ``n`` are kept.

Reduced from kornia 0.9.0 (the PyPI wheel the zoo unpacks), kornia/feature/disk/detector.py,
``heatmap_to_keypoints`` lines 27-69 (the selection at line 59). Written here in our own words:
the maxima are the pixels equal to the max-pool of their window (kornia's ``nms2d`` keeps strict
maxima only), a convolution gives the heatmap so the model has weights, and the keypoints of all
images are returned as one tensor of rows ``(x, y, score)`` instead of a list of ``Keypoints``.
The batch is not declared dynamic: the loop over the images runs as many times as the example
has images, and the traced graph keeps that count.
"""

import torch
import torch.nn.functional as F
from torch import nn


def heatmap_to_keypoints(heatmap: torch.Tensor, n: int, window_size: int = 3,
                         score_threshold: float = 0.0) -> torch.Tensor:
    heatmap = heatmap.squeeze(1)
    pooled = F.max_pool2d(heatmap.unsqueeze(1), window_size, stride=1, padding=window_size // 2).squeeze(1)
    nmsed = (heatmap == pooled) & (heatmap > score_threshold)

    keypoints = []
    for b in range(heatmap.shape[0]):
        yx = nmsed[b].nonzero(as_tuple=False)
        detection_logp = heatmap[b][nmsed[b]]
        xy = yx.flip((1,))
        if detection_logp.numel() > n:
            # every score above the n-th largest, then the ties in raster order until n are kept
            minus_threshold, _indices = torch.kthvalue(-detection_logp, n)
            threshold = -minus_threshold
            above = detection_logp > threshold
            tied = detection_logp == threshold
            mask = above | (tied & (torch.cumsum(tied, 0) <= n - above.sum()))
            xy = xy[mask]
            detection_logp = detection_logp[mask]
        keypoints.append(torch.cat([xy.to(detection_logp.dtype), detection_logp.unsqueeze(-1)], dim=-1))
    return torch.cat(keypoints, dim=0)


class Detector(nn.Module):
    def __init__(self, n: int = 4) -> None:
        super().__init__()
        self.n = n
        self.heatmap = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return heatmap_to_keypoints(self.heatmap(image), self.n)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 10, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
