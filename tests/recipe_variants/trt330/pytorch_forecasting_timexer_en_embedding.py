"""pytorch-forecasting's TimeXer endogenous embedding: non-overlapping patches by keyword at -1, a global token.

Reduced from sktime/pytorch-forecasting at commit 7df1500376753e3f9597ad8518f13d0b24d4692d,
pytorch_forecasting/layers/_embeddings/_en_embedding.py: ``EnEmbedding.__init__`` (lines 29-38) and
``EnEmbedding.forward`` (lines 40-52). The ``(batch, length, variables)`` input is permuted to put
time last, a learned global token is repeated over the batch, the series is cut with
``x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)`` (the stride is the patch
length), batch and variables are merged by a reshape built from the tensor's shape, each patch is
projected and a sinusoidal position table added, and the global token is concatenated after the
patches of each variable. Written here in our own words; the position table (the repository's
``PositionalEmbedding``) is rebuilt here in a few lines, and the module returns the embedding only
(the original also returns the variable count, a Python int).
"""

import math

import torch
import torch.nn as nn


class SinusoidalPositions(nn.Module):
    def __init__(self, d_model: int, max_len: int = 64) -> None:
        super().__init__()
        position = torch.arange(max_len, dtype=torch.float32)[:, None]
        rate = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(position * rate)
        table[:, 1::2] = torch.cos(position * rate)
        self.register_buffer("table", table[None])

    def forward(self, x):
        return self.table[:, : x.size(1)]


class EnEmbedding(nn.Module):
    def __init__(self, n_vars: int = 3, d_model: int = 8, patch_len: int = 4) -> None:
        super().__init__()
        self.patch_len = patch_len
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.glb_token = nn.Parameter(torch.randn(1, n_vars, 1, d_model))
        self.position_embedding = SinusoidalPositions(d_model)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        x = x.permute(0, 2, 1)
        n_vars = x.shape[1]
        glb = self.glb_token.repeat((x.shape[0], 1, 1, 1))
        x = x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)
        x = torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
        x = self.value_embedding(x) + self.position_embedding(x)
        x = torch.reshape(x, (-1, n_vars, x.shape[-2], x.shape[-1]))
        x = torch.cat([x, glb], dim=2)
        x = torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
        return self.dropout(x), n_vars


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.en_embedding = EnEmbedding()

    def forward(self, x_enc):
        embedded, _ = self.en_embedding(x_enc)
        return embedded


def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 3, generator=generator),)


DYNAMIC = {"x_enc": {0: "batch"}}
