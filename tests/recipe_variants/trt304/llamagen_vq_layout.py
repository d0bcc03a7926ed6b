"""A vector quantiser that moves channels last and back with spaced einsums: LlamaGen.

Reduced from FoundationVision/LlamaGen at ce98ec41803a74a90ce68c40ababa9eaeffeb4ec,
tokenizer/tokenizer_image/vq_model.py, ``VectorQuantizer.forward`` (lines 215-259:
``z = torch.einsum('b c h w -> b h w c', z).contiguous()`` on line 217, and
``z_q = torch.einsum('b h w c -> b c h w', z_q)`` on line 257 after the straight-through
``z_q = z + (z_q - z).detach()``). Written here in our own words: the nearest code by squared
distance (written with ``@`` here; the original's einsum product is the TRT303 variant
``llamagen_vq_distance``), the look-up and the straight-through estimator are kept; the losses
and the usage statistics are left out.
"""

import torch
from torch import nn


class VectorQuantiser(nn.Module):
    def __init__(self, codes: int = 6, dim: int = 4) -> None:
        super().__init__()
        self.dim = dim
        self.embedding = nn.Embedding(codes, dim)

    def forward(self, z):
        z = torch.einsum('b c h w -> b h w c', z).contiguous()
        z_flattened = z.view(-1, self.dim)
        embedding = self.embedding.weight
        d = torch.sum(z_flattened ** 2, dim=1, keepdim=True) + torch.sum(embedding ** 2, dim=1) - \
            2 * z_flattened @ embedding.t()
        z_q = embedding[torch.argmin(d, dim=1)].view(z.shape)
        z_q = z + (z_q - z).detach()
        z_q = torch.einsum('b h w c -> b c h w', z_q)
        return z_q


def build() -> nn.Module:
    return VectorQuantiser()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 3, 5, generator=generator),)


DYNAMIC = {"z": {0: "batch", 2: "height", 3: "width"}}
