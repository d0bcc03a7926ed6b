"""MOTR's track queries: the decoder's reference points come from the tracks carried over from the
previous frame when the caller passes them (``ref_pts``), else from the learned query embedding.

Reduced from megvii-research/MOTR at commit 8690da3392159635ca37c31975126acf40220724,
models/deformable_transformer_plus.py:135-196 (``DeformableTransformer.forward(self, srcs, masks,
pos_embeds, query_embed=None, ref_pts=None)``, single-stage branch): ``query_embed`` split into the
positional part and the target, both expanded over the batch, then ``if ref_pts is None:`` the
reference points are ``self.reference_points(query_embed).sigmoid()``, else
``ref_pts.unsqueeze(0).repeat(bs, 1, 1).sigmoid()`` (models/motr.py passes the track instances'
``ref_pts``, the boxes of the last frame's tracks, together with their ``query_pos``). Written here
in our own words: the encoder is one linear layer over the flattened features and the deformable
decoder one attention step whose logits are shifted by the reference points.
"""

import torch
from torch import nn


class TrackQueryDecoder(nn.Module):
    def __init__(self, dims: int = 8) -> None:
        super().__init__()
        self.dims = dims
        self.encoder = nn.Linear(dims, dims)
        self.reference_points = nn.Linear(dims, 2)
        self.point_proj = nn.Linear(2, dims)
        self.out = nn.Linear(dims, 4)

    def forward(self, src: torch.Tensor, query_embed: torch.Tensor, ref_pts=None) -> tuple[torch.Tensor, torch.Tensor]:
        bs, c = src.shape[0], self.dims
        memory = self.encoder(src)
        query_embed, tgt = torch.split(query_embed, c, dim=1)
        query_embed = query_embed.unsqueeze(0).expand(bs, -1, -1)
        tgt = tgt.unsqueeze(0).expand(bs, -1, -1)
        if ref_pts is None:
            reference_points = self.reference_points(query_embed).sigmoid()
        else:
            reference_points = ref_pts.unsqueeze(0).repeat(bs, 1, 1).sigmoid()
        query = tgt + query_embed + self.point_proj(reference_points)
        attention = torch.softmax(query @ memory.transpose(1, 2), dim=-1)
        hs = tgt + attention @ memory
        return self.out(hs), reference_points


def build() -> nn.Module:
    return TrackQueryDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # The tracks of the previous frame: three queries and their reference points (pre-sigmoid).
    return (torch.randn(2, 10, 8, generator=generator), torch.randn(3, 16, generator=generator),
            torch.randn(3, 2, generator=generator))


DYNAMIC: dict = {}
