"""BEV temporal fusion whose caller passes the previous frame's BEV, or None on a scene's first frame.

The deployment pattern of BEVFormer (``BEVFormerEncoder.forward(..., prev_bev=None)``, where the
detector hands in the last frame's BEV, and None at a scene start): the model keeps no state,
the optional input decides the branch. A traced export keeps the branch of the example call:
traced with ``prev_bev=None`` the graph has no ``prev_bev`` input at all.
"""

import torch
from torch import nn


class PrevBEVFusion(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(4, channels, 3, padding=1)
        self.ego = nn.Linear(2, channels)
        self.fuse = nn.Conv2d(2 * channels, channels, 1)
        self.head = nn.Conv2d(channels, 3, 1)

    def forward(self, image: torch.Tensor, shift: torch.Tensor, prev_bev: torch.Tensor | None = None):
        bev = self.encoder(image)
        if prev_bev is None:
            # first frame of a scene: the current BEV stands in for the previous one
            prev = bev
        else:
            prev = prev_bev + self.ego(shift)[:, :, None, None]
        fused = torch.relu(self.fuse(torch.cat([bev, prev], dim=1)))
        return self.head(fused), fused.detach()


def build() -> nn.Module:
    return PrevBEVFusion().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A later frame's call: the previous BEV given (the lift then knows its shape and dtype; the
    # lifted model is checked with it absent and given, frame by frame).
    return (torch.randn(2, 4, 6, 6, generator=generator), torch.randn(2, 2, generator=generator),
            torch.randn(2, 8, 6, 6, generator=generator))
