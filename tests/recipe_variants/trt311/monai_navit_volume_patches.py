"""NaViT's tokens of a 3-D volume: three ``unfold(d, p, p)`` in a chain, then a patch embedding.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/nets/navit.py, ``NaViT._image_to_patches``
(lines 395-430, the 3-D branch) with the check and the embedding of ``NaViT.forward`` (lines
432-551): one volume ``(C, H, W, D)`` is cut into ``p``-cubes by
``image.unfold(1, p, p).unfold(2, p, p).unfold(3, p, p)`` (``p = self.patch_size``), each cube
flattened to a token, and each token gets the grid position ``(h, w, d)`` whose per-axis tables,
clamped to their length, are added to the embedded patch. Written here in our own words for one
volume (no packing, no attention); a spatial size that is not a multiple of the patch raises, as
NaViT's forward checks.
"""

import torch
from torch import nn


class VolumeTokens(nn.Module):
    def __init__(self, in_channels: int = 2, patch_size: int = 2, hidden: int = 8, grid: int = 3) -> None:
        super().__init__()
        self.in_channels = in_channels
        self.patch_size = patch_size
        patch_dim = in_channels * patch_size**3
        self.to_patch_embedding = nn.Sequential(nn.LayerNorm(patch_dim), nn.Linear(patch_dim, hidden),
                                                nn.LayerNorm(hidden))
        self.pos_embed_axes = nn.ParameterList([nn.Parameter(torch.randn(grid, hidden)) for _ in range(3)])

    def _image_to_patches(self, image):
        p = self.patch_size
        h, w, d = image.shape[1:]
        seq = image.unfold(1, p, p).unfold(2, p, p).unfold(3, p, p)  # (C, H/p, W/p, D/p, p, p, p)
        seq = seq.permute(1, 2, 3, 0, 4, 5, 6).reshape(-1, self.in_channels * p * p * p)
        axes = [torch.arange(n, device=image.device) for n in (h // p, w // p, d // p)]
        pos = torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=-1).reshape(-1, 3)
        return seq, pos

    def forward(self, image):
        if any(size % self.patch_size != 0 for size in image.shape[1:]):
            raise ValueError(f"All spatial dimensions must be divisible by patch_size={self.patch_size}")
        seq, pos = self._image_to_patches(image)
        x = self.to_patch_embedding(seq)
        for axis, table in enumerate(self.pos_embed_axes):
            x = x + table[pos[:, axis].clamp(max=table.shape[0] - 1)]
        return x


def build() -> nn.Module:
    return VolumeTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 2, generator=generator),)


DYNAMIC = {"image": {1: "height", 2: "width", 3: "depth"}}
