"""BSL-1K's sign-recognition input: a batch of RGB clips normalised channel by channel before the I3D network.

Reduced from gulvarol/bsl1k @ bfeaa3a8463152a79bcfd0fafd358c4d203b4c16, utils/transforms.py: ``color_normalize(x,
mean, std)`` normalises a single clip channel by channel through ``zip(x, mean, std)`` and a batch of clips (five
dimensions) with ``x[:, 0].sub_(mean[0]).div_(std[0])`` and the same for channels 1 and 2 (lines 55 to 57). Kept: the
function with both branches, called on the clips before a 3-D convolution (I3D's first layer). Reduced: one
convolution for the network. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"clips": {0: "batch", 2: "frames"}}
#: The first of the chained in-place calls (the rule's finding).
CALL = "x[:, 0].sub_(mean[0]).div_(std[0])"


def color_normalize(x, mean, std):
    """Normalise a clip or a batch of clips in RGB space: subtract the mean and divide by the deviation."""
    if x.dim() in {3, 4}:
        if x.size(0) == 1:
            x = x.repeat(3, 1, 1)
        assert x.size(0) == 3, "For single video format, expected RGB along first dim"
        for t, m, s in zip(x, mean, std):
            t.sub_(m)
            t.div_(s)
    elif x.dim() == 5:
        assert (
            x.shape[1] == 3
        ), "For batched video format, expected RGB along second dim"
        x[:, 0].sub_(mean[0]).div_(std[0])
        x[:, 1].sub_(mean[1]).div_(std[1])
        x[:, 2].sub_(mean[2]).div_(std[2])
    return x


class NormalizedStem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mean = (0.485, 0.456, 0.406)
        self.std = (0.229, 0.224, 0.225)
        self.stem = nn.Conv3d(3, 4, 3, padding=1)

    def forward(self, clips):
        return self.stem(color_normalize(clips.clone(), self.mean, self.std))


def build() -> nn.Module:
    return NormalizedStem().eval()


def inputs(generator: torch.Generator, batch: int = 2, frames: int = 4) -> tuple[torch.Tensor, ...]:
    """``batch`` clips of ``frames`` RGB frames of 8 x 8 pixels in [0, 1)."""
    return (torch.rand(batch, 3, frames, 8, 8, generator=generator),)
