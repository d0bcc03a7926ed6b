"""U-Mamba's bottleneck: the feature map's pixels as tokens for a Mamba block, then back to the map.

Reduced from bowang-lab/U-Mamba@28459e33ca03769800dd35e23c6e62491d1925b5
umamba/nnunetv2/nets/UMambaBot_2d.py:39-64, ``MambaLayer.forward``: it counts the pixels of the map with
``n_tokens = x.shape[2:].numel()`` (line 57), reshapes the map to ``(B, C, n_tokens)`` and moves the
tokens before the channels (line 59), normalizes them, runs the Mamba block and reshapes the result
back to ``(B, C, *img_dims)`` (line 63). The network puts it at the encoder's last stage (line 426).
Here the encoder is one strided convolution, the decoder a 1x1 convolution, and the Mamba block
(a CUDA kernel) is reduced to its in-projection, its causal depthwise convolution over the tokens, a
SiLU gate and its out-projection. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TokenMixer(nn.Module):
    """A stand-in for Mamba: projection, causal depthwise convolution over the tokens, gate, projection."""

    def __init__(self, dim: int, width: int = 4) -> None:
        super().__init__()
        self.in_proj = nn.Linear(dim, 2 * dim)
        self.conv = nn.Conv1d(dim, dim, width, groups=dim, padding=width - 1)
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        hidden, gate = self.in_proj(tokens).chunk(2, dim=-1)
        length = tokens.shape[1]
        hidden = self.conv(hidden.transpose(1, 2))[..., :length].transpose(1, 2)
        return self.out_proj(F.silu(hidden) * F.silu(gate))


class BottleneckMamba(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.dim = dim
        self.norm = nn.LayerNorm(dim)
        self.mixer = TokenMixer(dim)

    def forward(self, x):
        B, C = x.shape[:2]
        n_tokens = x.shape[2:].numel()
        img_dims = x.shape[2:]
        x_flat = x.reshape(B, C, n_tokens).transpose(-1, -2)
        mixed = self.mixer(self.norm(x_flat))
        return mixed.transpose(-1, -2).reshape(B, C, *img_dims)


class UMambaBot(nn.Module):
    def __init__(self, dim: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(1, dim, 3, stride=2, padding=1)
        self.bottleneck = BottleneckMamba(dim)
        self.head = nn.Conv2d(dim, classes, 1)

    def forward(self, image):
        return self.head(self.bottleneck(self.encoder(image)))


def build() -> nn.Module:
    return UMambaBot().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 12, 16, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
