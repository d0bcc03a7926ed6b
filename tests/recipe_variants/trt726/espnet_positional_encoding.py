"""A grow-only table of sinusoidal positions whose hit is nested under the emptiness test and moves the
table to the input's dtype and device before returning: ESPnet's positional encoding for speech
transformers (and its copies, icefall's and many conformer ports), built for ``max_len`` frames at
construction and rebuilt for a longer utterance.

Reduced from espnet/espnet at 52652168315019b33ecd48601e56a78256fd7c02,
espnet/nets/pytorch_backend/transformer/embedding.py: ``PositionalEncoding.__init__`` builds the table
for ``max_len`` frames through ``self.reset_(torch.tensor(0.0).expand(1, max_len))`` (:10-23);
``reset_`` returns at :27-31 when ``self.pe is not None`` and ``self.pe.size(1) >= x.size(1)`` (after
``self.pe = self.pe.to(dtype=x.dtype, device=x.device)`` where they differ), and otherwise builds the
table for ``x.size(1)`` frames (:32-39); ``forward`` adds ``self.pe[:, :x.size(1)]`` to the scaled input
(:41-53; later releases call the method ``extend_pe``). Written here in our own words: four frames at
construction where the original has 5000, so that the example's utterance already grows the table;
no dropout (eval mode).
"""

import math

import torch


class PositionalEncoding(torch.nn.Module):
    def __init__(self, d_model: int = 4, max_len: int = 4) -> None:
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.pe = None
        self.reset_(torch.tensor(0.0).expand(1, max_len))

    def reset_(self, x: torch.Tensor) -> None:
        if self.pe is not None:
            if self.pe.size(1) >= x.size(1):
                if self.pe.dtype != x.dtype or self.pe.device != x.device:
                    self.pe = self.pe.to(dtype=x.dtype, device=x.device)
                return
        pe = torch.zeros(x.size(1), self.d_model)
        position = torch.arange(0, x.size(1), dtype=torch.float32).unsqueeze(1)
        freqs = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        pe[:, 0::2] = torch.sin(position * freqs)
        pe[:, 1::2] = torch.cos(position * freqs)
        self.pe = pe.unsqueeze(0).to(device=x.device, dtype=x.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.reset_(x)
        return x * self.xscale + self.pe[:, :x.size(1)]


def build() -> torch.nn.Module:
    return PositionalEncoding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 4, generator=generator),)


DYNAMIC = {"x": {1: "frames"}}
