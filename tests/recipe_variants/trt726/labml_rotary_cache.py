"""A grow-only rotary table whose hit returns early: labml's rotary positional embeddings keep cos/sin
tables for the longest sequence seen so far and read the first ``seq_len`` rows of them.

Reduced from labmlai/annotated_deep_learning_paper_implementations (labml-nn 0.5.1) at
e6b3c8a6a2cdae4071bcde1abeaaf9a2bc37bd53, labml_nn/transformers/rope/__init__.py:
``RotaryPositionalEmbeddings._build_cache`` returns at :134-135 when ``self.cos_cached is not None and
x.shape[0] <= self.cos_cached.shape[0]``, and otherwise fills ``self.cos_cached`` and ``self.sin_cached``
for ``x.shape[0]`` positions (:138-155); ``forward`` calls it and rotates the first ``d`` features with
``self.cos_cached[:seq_len]`` (:164-194). Written here in our own words, the module on its own (the
input laid out as the original's, ``[seq_len, batch_size, n_heads, d]``), rotating half of the features.
"""

import torch
from torch import nn


class RotaryTable(nn.Module):
    def __init__(self, d: int = 4, base: int = 10_000) -> None:
        super().__init__()
        self.base = base
        self.d = d
        self.cos_cached = None
        self.sin_cached = None

    def _build_cache(self, x: torch.Tensor) -> None:
        if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
            return
        n = x.shape[0]
        theta = 1.0 / (self.base ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
        angles = torch.arange(n, device=x.device).float()[:, None] * theta[None, :]
        angles = torch.cat([angles, angles], dim=1)
        self.cos_cached = angles.cos()[:, None, None, :]
        self.sin_cached = angles.sin()[:, None, None, :]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._build_cache(x)
        n = x.shape[0]
        rotated, rest = x[..., :self.d], x[..., self.d:]
        half = self.d // 2
        swapped = torch.cat([-rotated[..., half:], rotated[..., :half]], dim=-1)
        rotated = rotated * self.cos_cached[:n] + swapped * self.sin_cached[:n]
        return torch.cat((rotated, rest), dim=-1)


def build() -> nn.Module:
    return RotaryTable()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 2, 3, 6, generator=generator),)


DYNAMIC = {"x": {0: "seq"}}
