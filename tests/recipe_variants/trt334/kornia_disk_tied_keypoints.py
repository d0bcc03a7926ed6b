"""kornia DISK's ``n`` strongest keypoints: every score above the ``n``-th largest is kept, and the
scores tied with it in raster order until ``n`` are kept, counted by a cumulative sum of the bool
tie mask (``tied & (torch.cumsum(tied, 0) <= n - above.sum())``); the ``n``-th largest is the
``n``-th smallest of the negated scores (``torch.kthvalue``).

Reduced from kornia 0.9.0 (the PyPI wheel the zoo unpacks), kornia/feature/disk/detector.py,
``heatmap_to_keypoints`` lines 27-69 (the cumsum at line 63). Written here in our own words, on the
dense heatmap of every image at once instead of the selected maxima of one image: the scores are
flattened in raster order, the selection is a mask along that axis (the cumsum on axis -1) that
multiplies the heatmap, and the ``numel() > n`` guard is left out (each map holds more than ``n``
pixels). A convolution gives the heatmap so the model has weights.
"""

import torch
from torch import nn


def strongest(scores: torch.Tensor, n: int) -> torch.Tensor:
    minus_threshold, _indices = torch.kthvalue(-scores, n, dim=-1, keepdim=True)
    threshold = -minus_threshold
    above = scores > threshold
    tied = scores == threshold
    return above | (tied & (torch.cumsum(tied, -1) <= n - above.sum(-1, keepdim=True)))


class Detector(nn.Module):
    def __init__(self, n: int = 5) -> None:
        super().__init__()
        self.n = n
        self.heatmap = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        heatmap = self.heatmap(image).round()  # coarse scores: ties at the threshold are common
        flat = heatmap.flatten(1)
        keep = strongest(flat, self.n)
        return (flat * keep).view_as(heatmap)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 7, generator=generator) * 2,)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
