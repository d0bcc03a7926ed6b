"""pytorch-forecasting's patch embedding: replication padding, then patches by keyword, dimension -1.

Reduced from sktime/pytorch-forecasting at commit 05f61dd11044b19e11307f8e7e41006ecaa6f850,
pytorch_forecasting/layers/_embeddings/_patch_embedding.py: ``PatchEmbedding.__init__`` (lines 31-47)
and ``PatchEmbedding.forward`` (lines 49-82). A series of shape ``(batch * variables, 1, length)``
is padded on the right by repeating its last value (``nn.ReplicationPad1d((0, padding))``), cut
with ``x.unfold(dimension=-1, size=self.patch_len, step=self.stride)``, the singleton axis squeezed
away, each patch projected by a bias-free linear layer and a sinusoidal position table added.
Written here in our own words; the sinusoidal table (the repository's ``PositionalEmbedding``, a
buffer sliced to the patch count) is rebuilt here in a few lines.
"""

import math

import torch
from torch import nn


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


class PatchEmbedding(nn.Module):
    def __init__(self, d_model: int = 8, patch_len: int = 8, stride: int = 4, padding: int = 4) -> None:
        super().__init__()
        self.patch_len = patch_len
        self.stride = stride
        self.padding_patch_layer = nn.ReplicationPad1d((0, padding))
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.position_embedding = SinusoidalPositions(d_model)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        x = self.padding_patch_layer(x)
        x = x.unfold(dimension=-1, size=self.patch_len, step=self.stride)
        x = x.squeeze(1)
        x = self.value_embedding(x)
        x = x + self.position_embedding(x)
        return self.dropout(x)


def build() -> nn.Module:
    torch.manual_seed(0)
    return PatchEmbedding().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 1, 24, generator=generator),)


DYNAMIC = {}
