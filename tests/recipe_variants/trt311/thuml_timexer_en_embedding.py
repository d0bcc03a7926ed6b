"""TimeXer's endogenous embedding: patches of the series by ``unfold`` with keywords, a negative axis.

Reduced from thuml/Time-Series-Library at commit 4e938a1767106324dd753b2a44832bf870a0252e,
models/TimeXer.py, ``EnEmbedding.forward`` (lines 36-47), with ``PositionalEmbedding``
(layers/Embed.py, lines 8-26): each variable's series ``(batch, n_vars, length)`` is cut into
patches by ``x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)``, the patches are
embedded linearly plus a sinusoidal position, and a learned global token is appended per
variable. Written here in our own words with a shorter position table and no dropout (the model
runs in eval mode). A length that is not a multiple of the patch drops its last steps, as
``unfold`` does.
"""

import math

import torch
from torch import nn


class SinePositions(nn.Module):
    def __init__(self, d_model: int, max_len: int = 64) -> None:
        super().__init__()
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(position * div)
        table[:, 1::2] = torch.cos(position * div)
        self.register_buffer("pe", table.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, :x.size(1)]


class EnEmbedding(nn.Module):
    def __init__(self, n_vars: int = 3, d_model: int = 8, patch_len: int = 4) -> None:
        super().__init__()
        self.patch_len = patch_len
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.glb_token = nn.Parameter(torch.randn(1, n_vars, 1, d_model))
        self.position_embedding = SinePositions(d_model)

    def forward(self, x):
        n_vars = x.shape[1]
        glb = self.glb_token.repeat((x.shape[0], 1, 1, 1))
        x = x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)
        x = torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
        x = self.value_embedding(x) + self.position_embedding(x)
        x = torch.reshape(x, (-1, n_vars, x.shape[-2], x.shape[-1]))
        x = torch.cat([x, glb], dim=2)
        return torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))


def build() -> nn.Module:
    return EnEmbedding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
