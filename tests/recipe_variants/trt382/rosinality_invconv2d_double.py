"""Glow's invertible 1x1 convolution in rosinality's glow-pytorch: the log-determinant through float64 and back.

Reduced from rosinality/glow-pytorch @ 97081ff115a694cf04aeedbd58447f33d242c879, model.py: ``InvConv2d`` (lines
63-86) keeps its weight as a ``(C, C, 1, 1)`` parameter, convolves the input with it and returns the flow's
log-determinant ``height * width * torch.slogdet(self.weight.squeeze().double())[1].float()`` (line 77): the weight
squeezed to a matrix, taken to float64 for the determinant and the result brought back to float32; ``Flow.forward``
(lines 226-235) adds it to ActNorm's ``height * width * sum(log|scale|)``. Kept: the float64 round trip, the product
with the traced height and width, ActNorm's scaled shift and its log-determinant, the flow's sum. Reduced: ActNorm's
initialisation from the first batch (a flag flipped in forward) is gone, its scale starts from random values; no
coupling layer and no reverse pass. The weight starts orthogonal (``torch.linalg.qr`` here, ``torch.qr`` there).
Written here in our own words.
"""

import torch
from torch import nn
from torch.nn import functional as F

DYNAMIC = {"input": {0: "b", 2: "h", 3: "w"}}
#: The line of the log-determinant (the rule's finding).
CALL = "height * width * torch.slogdet(self.weight.squeeze().double())[1].float()"
CHANNELS = 4


class ActNorm(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        self.loc = nn.Parameter(0.1 * torch.randn(1, in_channel, 1, 1))
        self.scale = nn.Parameter(1 + 0.1 * torch.randn(1, in_channel, 1, 1))

    def forward(self, input):
        _, _, height, width = input.shape
        logdet = height * width * torch.sum(torch.log(torch.abs(self.scale)))
        return self.scale * (input + self.loc), logdet


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(in_channel, in_channel))
        self.weight = nn.Parameter(q.unsqueeze(2).unsqueeze(3))

    def forward(self, input):
        _, _, height, width = input.shape
        out = F.conv2d(input, self.weight)
        logdet = (
            height * width * torch.slogdet(self.weight.squeeze().double())[1].float()
        )
        return out, logdet


class Flow(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        self.actnorm = ActNorm(in_channel)
        self.invconv = InvConv2d(in_channel)

    def forward(self, input):
        out, logdet = self.actnorm(input)
        out, det1 = self.invconv(out)
        return out, logdet + det1


def build() -> nn.Module:
    return Flow(CHANNELS).eval()


def inputs(generator: torch.Generator, b: int = 2, h: int = 6, w: int = 5) -> tuple[torch.Tensor, ...]:
    """A batch of feature maps with the flow's channels."""
    return (torch.randn(b, CHANNELS, h, w, generator=generator),)
