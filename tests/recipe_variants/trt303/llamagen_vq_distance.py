"""A VQ codebook's squared distances, a 2-D product whose right operand is itself an einsum: LlamaGen.

Reduced from FoundationVision/LlamaGen at ce98ec41803a74a90ce68c40ababa9eaeffeb4ec,
tokenizer/tokenizer_image/vq_model.py, ``VectorQuantizer.forward`` (lines 215-232: the distance
``sum(z**2) + sum(e**2) - 2 * torch.einsum('bd,dn->bn', z_flattened, torch.einsum('n d -> d n',
embedding))`` on lines 228-230, the codebook L2-normalised first). Written here in our own words:
the flattened features come in as one (points, dim) input; the losses and the code lookup after
the distance are left out. The inner one-operand einsum is TRT304's (a transpose).
"""

import torch
import torch.nn.functional as F
from torch import nn


class CodebookDistance(nn.Module):
    def __init__(self, codes: int = 6, dim: int = 4) -> None:
        super().__init__()
        self.embedding = nn.Embedding(codes, dim)

    def forward(self, z_flattened):
        z_flattened = F.normalize(z_flattened, p=2, dim=-1)
        embedding = F.normalize(self.embedding.weight, p=2, dim=-1)
        return torch.sum(z_flattened ** 2, dim=1, keepdim=True) + torch.sum(embedding ** 2, dim=1) - 2 * \
            torch.einsum('bd,dn->bn', z_flattened, torch.einsum('n d -> d n', embedding))


def build() -> nn.Module:
    return CodebookDistance()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 4, generator=generator),)


DYNAMIC = {"z_flattened": {0: "points"}}
