"""Dynamic if-else, special case 1: a flag passed in as a (1,) bool tensor (BEVFormer's ``use_prev_bev``).

``if use_prev:`` reads the flag while tracing, so the export keeps one branch. The guidance's
recipe is to vectorize: both branches computed and ``torch.where`` picks by the flag. migrate
applies TRT101 as a candidate and keeps it because the rewritten model is equivalent on every
input set (the flag alternates between them).
"""

import torch
from torch import nn


class PrevFusion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, bev: torch.Tensor, prev_bev: torch.Tensor, use_prev: torch.Tensor) -> torch.Tensor:
        fused = self.proj(bev)
        if use_prev:
            fused = fused + 0.5 * prev_bev
        return fused


def build() -> nn.Module:
    return PrevFusion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    first_frame = generator.initial_seed() % 2 == 1
    return (torch.randn(2, 8, generator=generator), torch.randn(2, 8, generator=generator),
            torch.tensor([not first_frame]))
