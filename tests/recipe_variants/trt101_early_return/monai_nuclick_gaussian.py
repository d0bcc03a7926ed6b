"""A click map smoothed with a Gaussian unless smoothing is off or the map is empty.

Reduced from Project-MONAI/MONAI@d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83 monai/apps/nuclick/transforms.py:333-337
(``AddClickSignalsd._apply_gaussian``: ``if not self.gaussian or (t != 0).sum() == 0: return t``, then
``GaussianFilter(spatial_dims=2, sigma=self.sigma)`` of the map). Written here in our own words: the filter is a
fixed separable Gaussian convolution built in ``__init__``, and ``torch.count_nonzero(t)`` is written as its
meaning, ``(t != 0).sum()`` (the TorchScript exporter has no ``count_nonzero``: the original exports only because
the trace reads its value in Python).
"""

import torch
import torch.nn.functional as F
from torch import nn


class ClickSignal(nn.Module):
    def __init__(self, gaussian: bool = True, sigma: float = 1.0, radius: int = 2) -> None:
        super().__init__()
        self.gaussian = gaussian
        offsets = torch.arange(-radius, radius + 1, dtype=torch.float32)
        weights = torch.exp(-offsets ** 2 / (2 * sigma ** 2))
        self.register_buffer("kernel", (weights / weights.sum()).outer(weights / weights.sum())[None, None])

    def forward(self, t):
        if not self.gaussian or (t != 0).sum() == 0:
            return t
        smoothed = F.conv2d(t.unsqueeze(0).unsqueeze(0), self.kernel, padding=self.kernel.shape[-1] // 2)
        return smoothed.squeeze(0).squeeze(0)


def build() -> nn.Module:
    return ClickSignal()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # No click yet: an empty map, so the example takes the shortcut.
    return (torch.zeros(9, 11),)


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    clicks = torch.zeros(9, 11)
    clicks[2, 3] = clicks[6, 8] = 1.0
    return (clicks,)


DYNAMIC = {"t": {0: "height", 1: "width"}}
