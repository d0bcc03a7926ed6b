"""A 1-D position table stretched to a length with ``F.affine_grid`` of height one: timm's NaFlexViT.

Reduced from timm 1.0.31 (the PyPI wheel), timm/models/naflexvit.py, the factorized position
embedding's ``_interp1d`` (lines 857-865): the table ``(1, L, C)`` as a ``(B, C, 1, L)`` image,
``theta`` zeros with ``scale`` and ``scale - 1`` in its first row and 1 at ``[1, 1]``, and
``F.affine_grid(theta, (B, C, 1, out_length), align_corners=False)`` (a tuple with a literal height
of one, where PyTorch's base grid is 0) followed by ``grid_sample``. Written here in our own words
as a module whose output length is the width of its input grid and whose scale is the ratio of
that length to each image's patch width (the original takes the largest patch grid of the
batch, a value, not a shape).
"""

import torch
import torch.nn.functional as F
from torch import nn


class FactorizedPosInterp(nn.Module):
    def __init__(self, length: int = 8, dim: int = 4) -> None:
        super().__init__()
        self.pos_embed_x = nn.Parameter(torch.randn(1, length, dim))

    def forward(self, x, patch_widths):
        B, C, out_length = x.shape[0], self.pos_embed_x.shape[-1], x.shape[-1]
        scale = out_length / patch_widths
        pe = self.pos_embed_x.permute(0, 2, 1).unsqueeze(2).expand(B, -1, -1, -1).float()
        theta = torch.zeros(B, 2, 3, device=x.device)
        theta[:, 0, 0] = scale
        theta[:, 0, 2] = scale - 1
        theta[:, 1, 1] = 1
        grid = F.affine_grid(theta, (B, C, 1, out_length), align_corners=False)
        pe = F.grid_sample(pe, grid, mode="bilinear", align_corners=False, padding_mode="border")
        return x + pe.squeeze(2).sum(1, keepdim=True)


def build() -> nn.Module:
    return FactorizedPosInterp()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(3, 5, 10, generator=generator), torch.tensor([10.0, 7.0, 4.0])


DYNAMIC = {"x": {0: "batch", 1: "tokens", 2: "width"}, "patch_widths": {0: "batch"}}
