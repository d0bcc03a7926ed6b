"""FNet's token mixing: a complex transform of a complex transform, its real part.

Reduced from rishikksh20/FNet-pytorch at commit 6288eca8af31a5c2a2f753c11eb0a56783e9483a,
fnet.py: ``FNetBlock.forward`` (line 30: ``x = torch.fft.fft(torch.fft.fft(x, dim=-1),
dim=-2).real``) inside ``FNet`` (lines 36-49: pre-norm residual blocks, a feed-forward after each
mixing). Written here in our own words, one layer, small sizes. Form kept: the inner transform over
the features written as the outer transform's input, over the tokens, read by ``.real``.
"""

import torch
from torch import nn


class FourierMixing(nn.Module):
    def forward(self, x):
        x = torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real
        return x


class FNetLayer(nn.Module):
    def __init__(self, dim: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.mix = FourierMixing()
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = self.mix(self.norm1(x)) + x
        return self.ff(self.norm2(x)) + x


def build() -> nn.Module:
    torch.manual_seed(0)
    return FNetLayer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
