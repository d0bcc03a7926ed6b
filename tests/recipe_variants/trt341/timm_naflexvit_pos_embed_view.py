"""timm's NaFlexViT: learned position embeddings added in place into a slice of the tokens.

Reduced from timm 1.0.31 (the pinned wheel), timm/models/naflexvit.py: ``calculate_naflex_grid_sizes``
(lines 218-222: each sample's patch grid from its patch coordinates) and
``NaFlexEmbeds._apply_learned_naflex_pos_embed`` (lines 642-696): the learned table interpolated once
per grid size, then ``x[:, :seq_len].index_add_(0, torch.as_tensor(batch_indices, ...),
pos_embed_flat[:, :seq_len].expand(len(batch_indices), -1, -1))`` (line 692): an in-place add into
a view of the tokens (their first ``seq_len`` positions), the write reaching ``x`` through the view;
called from ``NaFlexEmbeds.forward`` (line 997) after the patch projection. The interpolation is
bilinear without antialiasing; the patch embedding is a linear layer of the flattened patches.
Written here in our own words, with an 8x8 table and small sizes.
"""

import torch
import torch.nn.functional as F
from torch import nn


def calculate_naflex_grid_sizes(_coord: torch.Tensor):
    max_y = _coord[:, :, 0].amax(dim=1) + 1
    max_x = _coord[:, :, 1].amax(dim=1) + 1
    return [(int(h.item()), int(w.item())) for h, w in zip(max_y, max_x)]


class NaFlexEmbeds(nn.Module):
    def __init__(self, patch_dim: int = 12, embed_dim: int = 8, table: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(patch_dim, embed_dim)
        self.pos_embed = nn.Parameter(torch.randn(1, table, table, embed_dim) * 0.5)

    def _apply_learned_naflex_pos_embed(self, x, patch_coord):
        naflex_grid_sizes = calculate_naflex_grid_sizes(patch_coord)
        pos_embed_nchw = self.pos_embed.permute(0, 3, 1, 2).float()

        def _interp2d(size):
            return F.interpolate(pos_embed_nchw, size=size, mode="bilinear", align_corners=False
                                 ).flatten(2).transpose(1, 2).to(dtype=x.dtype)

        size_to_indices = {}
        for bi, k in enumerate(naflex_grid_sizes):
            size_to_indices.setdefault(k, []).append(bi)
        for k, batch_indices in size_to_indices.items():
            pos_embed_flat = _interp2d(k)
            seq_len = min(x.shape[1], pos_embed_flat.shape[1])
            x[:, :seq_len].index_add_(
                0,
                torch.as_tensor(batch_indices, device=x.device),
                pos_embed_flat[:, :seq_len].expand(len(batch_indices), -1, -1),
            )

    def forward(self, patches, patch_coord):
        x = self.proj(patches)
        self._apply_learned_naflex_pos_embed(x, patch_coord)
        return x


def build() -> nn.Module:
    return NaFlexEmbeds().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Two images of 3x4 patches: coordinates (y, x) in row-major order.
    coord = torch.stack(torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij"), dim=-1).reshape(1, 12, 2)
    return torch.randn(2, 12, 12, generator=generator), coord.expand(2, -1, -1).contiguous()


DYNAMIC = {"patches": {0: "batch"}, "patch_coord": {0: "batch"}}
