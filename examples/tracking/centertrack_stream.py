"""CenterTrack's tracking loop as a module: the previous frame's image kept on ``self``.

Reduced (my own code) from github.com/xingyizhou/CenterTrack at e4e7534, ``src/lib/detector.py``
lines 96-148 (``Detector.run``): ``if self.pre_images is None: self.pre_images = images`` on a
video's first frame, the network called with ``(images, self.pre_images, pre_hms)``, then
``self.pre_images = images`` after the frame; ``reset_tracking`` (line 457) sets it back to None.
The tracker's CPU steps (heatmap rendering, matching) stay outside, as in the repository: this is
the configuration without ``--pre_hm`` (``pre_hms`` None). The network is ``centertrack.py``'s.
"""

import torch
from torch import nn

from centertrack import CenterTrackNet


class CenterTrackStream(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.model = CenterTrackNet()
        self.pre_images = None

    def reset(self) -> None:
        self.pre_images = None

    def forward(self, images: torch.Tensor) -> list[list[torch.Tensor]]:
        pre_hms = None
        if self.pre_images is None:
            # the first frame of a video is its own previous frame
            self.pre_images = images
        output = self.model(images, self.pre_images, pre_hms)
        self.pre_images = images
        return output


def build() -> nn.Module:
    return CenterTrackStream().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 24, generator=generator),)
