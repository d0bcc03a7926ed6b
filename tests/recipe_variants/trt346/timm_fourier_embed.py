"""timm's Fourier position embedding, concatenated to the tokens of a feature map.

Reduced from timm 1.0.31, layers/pos_embed_sincos.py: ``FourierEmbed.forward`` (lines 409-430) reads
``feat_shape = x.shape[2:]``, builds the embedding of a pixel grid in [-1, 1] for those sizes
(``build_fourier_pos_embed``, lines 292-372: the grid times the frequency bands, then its sine and
cosine, with the grid itself), moves the channels last, concatenates the embedding and flattens the
positions with ``x.reshape(B, feat_shape.numel(), -1)`` (line 428, ``keep_spatial=False``). Written
here in our own words.
"""

import torch
from torch import nn


class FourierEmbed(nn.Module):
    def __init__(self, num_bands: int = 4, max_res: int = 32) -> None:
        super().__init__()
        bands = torch.linspace(1.0, max_res / 2, num_bands) * torch.pi
        self.register_buffer("bands", bands, persistent=False)

    def forward(self, x):
        B, C = x.shape[:2]
        feat_shape = x.shape[2:]
        grid = torch.stack(torch.meshgrid([torch.linspace(-1.0, 1.0, steps=s) for s in feat_shape], indexing="ij"),
                           dim=-1)
        grid = grid.unsqueeze(-1)
        pos = grid * self.bands
        emb = torch.cat([grid, pos.sin(), pos.cos()], dim=-1).flatten(-2)
        batch_expand = (B,) + (-1,) * (x.ndim - 1)
        x = torch.cat([x.permute(0, 2, 3, 1), emb.unsqueeze(0).expand(batch_expand)], dim=-1)
        return x.reshape(B, feat_shape.numel(), -1)


def build() -> nn.Module:
    return FourierEmbed().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
