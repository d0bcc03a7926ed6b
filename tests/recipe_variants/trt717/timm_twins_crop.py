"""The crop in a helper whose sizes the caller hands down: timm's Twins locally grouped attention.

Reduced from timm 1.0.31 (the PyPI wheel), timm/models/twins.py:64-104
(``LocallyGroupedAttn.forward(self, x, size)``: ``H, W = size``, ``pad_r = (self.ws - W % self.ws) %
self.ws``, ``F.pad``, attention per window, ``if pad_r > 0 or pad_b > 0: x = x[:, :H, :W,
:].contiguous()``; the block passes the feature map's size), written here in our own words with a
per-window mean standing in for the attention. The sizes are parameters here, so only the export's
warning at the ``if`` says they are sizes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GroupedAttn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ws = 4
        self.proj = nn.Linear(6, 6)

    def forward(self, x, size):
        B, N, C = x.shape
        H, W = size
        x = x.view(B, H, W, C)
        pad_r = (self.ws - W % self.ws) % self.ws
        pad_b = (self.ws - H % self.ws) % self.ws
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, Hp, Wp, _ = x.shape
        _h, _w = Hp // self.ws, Wp // self.ws
        x = x.reshape(B, _h, self.ws, _w, self.ws, C)
        x = x - x.mean(dim=(2, 4), keepdim=True)
        x = x.reshape(B, _h * self.ws, _w * self.ws, C)
        if pad_r > 0 or pad_b > 0:
            x = x[:, :H, :W, :].contiguous()
        x = x.reshape(B, N, C)
        return self.proj(x)


class Stage(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = GroupedAttn()

    def forward(self, x):
        b, c, h, w = x.shape
        tokens = x.flatten(2).transpose(1, 2)
        return self.attn(tokens, (h, w))


def build() -> nn.Module:
    return Stage()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 6, 8, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
