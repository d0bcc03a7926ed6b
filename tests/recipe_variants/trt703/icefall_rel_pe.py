"""icefall's relative positional encoding (conformer CTC): ``extend_pe`` compares the cached
table's dtype and its device as strings (TorchScript has no ``==`` for devices) and casts it.

Reduced from k2-fsa/icefall @ 0f2be1893b5058c6c6a8cc52326d40c777dabc85,
egs/librispeech/ASR/conformer_ctc/conformer.py (``RelPositionalEncoding.extend_pe``:
``if self.pe.dtype != x.dtype or str(self.pe.device) != str(x.device): self.pe = self.pe.to(dtype=x.dtype,
device=x.device)``; ``forward`` slices the centred ``2 * time - 1`` positions), written here in our
own words; dropout is left out and the table is built long enough in ``__init__``.
"""

import math

import torch
from torch import nn


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model: int = 8, max_len: int = 40) -> None:
        super().__init__()
        self.d_model, self.xscale, self.pe = d_model, math.sqrt(d_model), None
        self.extend_pe(torch.zeros(1, max_len))

    def extend_pe(self, x):
        if self.pe is not None and self.pe.size(1) >= x.size(1) * 2 - 1:
            if self.pe.dtype != x.dtype or str(self.pe.device) != str(x.device):
                self.pe = self.pe.to(dtype=x.dtype, device=x.device)
            return
        n = x.size(1)
        position = torch.arange(0, n, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        positive, negative = torch.zeros(n, self.d_model), torch.zeros(n, self.d_model)
        positive[:, 0::2], positive[:, 1::2] = torch.sin(position * div), torch.cos(position * div)
        negative[:, 0::2], negative[:, 1::2] = torch.sin(-position * div), torch.cos(-position * div)
        pe = torch.cat([torch.flip(positive, [0]).unsqueeze(0), negative[1:].unsqueeze(0)], dim=1)
        self.pe = pe.to(device=x.device, dtype=x.dtype)

    def forward(self, x):
        self.extend_pe(x)
        centre = self.pe.size(1) // 2
        pos_emb = self.pe[:, centre - x.size(1) + 1: centre + x.size(1)]
        return x * self.xscale, pos_emb


def build() -> nn.Module:
    return RelPositionalEncoding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 9, 8, generator=generator, dtype=torch.float64),)


DYNAMIC = {"x": {0: "batch", 1: "time"}}
