"""BEV temporal fusion with the previous frame's features kept on ``self``.

Reduced from BEVFormer's temporal self-attention input (``prev_bev``, aligned to the current
frame by the ego motion, or the current BEV itself on the first frame of a scene). A traced
export keeps the first frame's branch and never sees a previous frame.
"""

import torch
from torch import nn


class TemporalBEV(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(4, channels, 3, padding=1)
        self.ego = nn.Linear(2, channels)
        self.fuse = nn.Conv2d(2 * channels, channels, 1)
        self.head = nn.Conv2d(channels, 3, 1)
        self.prev_bev = None

    def reset(self) -> None:
        """A new scene: the next frame has no previous frame."""
        self.prev_bev = None

    def forward(self, image: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
        bev = self.encoder(image)
        if self.prev_bev is None:
            prev = bev
        else:
            # align the previous frame to this one by the ego motion
            prev = self.prev_bev + self.ego(shift)[:, :, None, None]
        fused = torch.relu(self.fuse(torch.cat([bev, prev], dim=1)))
        self.prev_bev = fused.detach()
        return self.head(fused)


def build() -> nn.Module:
    return TemporalBEV().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 6, generator=generator), torch.randn(2, 2, generator=generator))
