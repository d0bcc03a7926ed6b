"""Video Swin's 3-D shifted-window mask: ``img_mask[:, d, h, w, :] = cnt`` over three slices per
axis, the first one written ``slice(-window)`` (a stop only), empty where the padded size equals
the window (here the rows).

Reduced from SwinTransformer/Video-Swin-Transformer@db018fb8896251711791386bbd2127562fd8d6a6
mmaction/models/backbones/swin_transformer.py:317-330 (``compute_mask``: the 5-D zeros mask, the three
nested loops over slices, the windows' pairwise differences) and :402-405 (the padded sizes), written
here in our own words, without the ``lru_cache`` and ``get_window_size`` (the window and shift are
fixed) and with a one-layer mixer.
"""

import numpy as np
import torch
from torch import nn


def region_mask(D, H, W, window, shift, device):
    img_mask = torch.zeros((1, D, H, W, 1), device=device)
    cnt = 0
    for d in slice(-window[0]), slice(-window[0], -shift[0]), slice(-shift[0], None):
        for h in slice(-window[1]), slice(-window[1], -shift[1]), slice(-shift[1], None):
            for w in slice(-window[2]), slice(-window[2], -shift[2]), slice(-shift[2], None):
                img_mask[:, d, h, w, :] = cnt
                cnt += 1
    return img_mask


class VideoWindowMask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window = (2, 4, 4)
        self.shift = (1, 2, 2)
        self.mix = nn.Conv3d(3, 3, 1)

    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        _, _, D, H, W = clip.shape
        window, shift = self.window, self.shift
        Dp = int(np.ceil(D / window[0])) * window[0]
        Hp = int(np.ceil(H / window[1])) * window[1]
        Wp = int(np.ceil(W / window[2])) * window[2]
        mask = region_mask(Dp, Hp, Wp, window, shift, clip.device)
        return self.mix(clip) + mask[:, :D, :H, :W, 0].unsqueeze(1)


def build() -> nn.Module:
    return VideoWindowMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 4, 4, 8, generator=generator),)  # rows equal to the window


DYNAMIC = {"clip": {0: "batch"}}
