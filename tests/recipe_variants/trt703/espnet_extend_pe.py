"""ESPnet's positional encoding: ``extend_pe``, called from forward, casts the cached table to
the input's dtype and device when they differ (a float64 input converts it once, on the first call).

Reduced from espnet/espnet @ 029365d81725db38ae9d8fe2f16a3e1df97df1ee,
espnet/nets/pytorch_backend/transformer/embedding.py (``PositionalEncoding.extend_pe``:
``if self.pe.dtype != x.dtype or self.pe.device != x.device: self.pe = self.pe.to(dtype=x.dtype,
device=x.device)``; ``forward``: ``self.extend_pe(x)``, ``x * self.xscale + self.pe[:, : x.size(1)]``),
written here in our own words; the table is built long enough in ``__init__`` so that the growing
branch does not run, and dropout is left out.
"""

import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int = 8, max_len: int = 64) -> None:
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(d_model)
        self.pe = None
        self.extend_pe(torch.tensor(0.0).expand(1, max_len))

    def extend_pe(self, x):
        if self.pe is not None and self.pe.size(1) >= x.size(1):
            if self.pe.dtype != x.dtype or self.pe.device != x.device:
                self.pe = self.pe.to(dtype=x.dtype, device=x.device)
            return
        position = torch.arange(0, x.size(1), dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        pe = torch.zeros(x.size(1), self.d_model)
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.pe = pe.unsqueeze(0).to(device=x.device, dtype=x.dtype)

    def forward(self, x):
        self.extend_pe(x)
        return x * self.xscale + self.pe[:, : x.size(1)]


def build() -> nn.Module:
    return PositionalEncoding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # float64 features: the first forward casts the float32 table, later ones find it cast.
    return (torch.randn(2, 12, 8, generator=generator, dtype=torch.float64),)


DYNAMIC = {"x": {0: "batch", 1: "time"}}
