"""WeNet's absolute positional encoding: the sinusoid table, a plain attribute built in
``__init__``, is moved to the input's device at the top of every forward.

Reduced from wenet-e2e/wenet @ 03030968258594d3522e562212b0ac87dbf9c889,
wenet/transformer/embedding.py (``PositionalEncoding.forward``: ``self.pe = self.pe.to(x.device)``,
then ``self.pe[offset:offset + x.size(1)]`` and ``x * self.xscale + pos_emb``), written here in our
own words; dropout (identity in eval) and the streaming offset are left out.
"""

import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int = 8, max_len: int = 64) -> None:
        super().__init__()
        self.xscale = math.sqrt(d_model)
        position = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        self.pe = torch.zeros(max_len, d_model)
        self.pe[:, 0::2] = torch.sin(position * div)
        self.pe[:, 1::2] = torch.cos(position * div)

    def forward(self, x):
        self.pe = self.pe.to(x.device)
        pos_emb = self.pe[: x.size(1)]
        return x * self.xscale + pos_emb


def build() -> nn.Module:
    return PositionalEncoding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 10, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "time"}}
