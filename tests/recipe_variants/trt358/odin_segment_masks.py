"""ODIN's mask head over 3-D segments: each query's mask per segment, mapped back to every point.

Reduced from ayushjain1144/odin at 9c67a0b09f18715e1333b3c379964e2eb7b05ffd: ``voxel_map_to_source``
(odin/modeling/backproject/backproject.py, lines 293-303; a method of the same text in
odin/modeling/transformer_decoder/odin_transformer_decoder.py, lines 239-249) names the batch size
first, ``bs, n, c = voxel_map.shape``, and takes each scene's rows with a comprehension stacked at once,
``torch.stack([voxel_map[i, poin2voxel[i]] for i in range(bs)])`` (the row read as ``[i, index[i]]``);
the decoder's prediction heads (odin_transformer_decoder.py, lines 466-489, with ``USE_SEGMENTS``)
normalise the queries, classify them, embed them for masks, score every segment's feature with
``einsum("bqc,bcn->bqn")`` and map the segment masks back to the points, ``poin2voxel`` giving each
point's segment. Here the queries are ``(batch, queries, channels)`` already and the mask embedding a
two-layer MLP. Written here in our own words.
"""

import torch
from torch import nn


def voxel_map_to_source(voxel_map, poin2voxel):
    bs, n, c = voxel_map.shape
    src_new = torch.stack([voxel_map[i, poin2voxel[i]] for i in range(bs)])
    return src_new


class SegmentMaskHead(nn.Module):
    def __init__(self, dim: int = 8, classes: int = 5) -> None:
        super().__init__()
        self.decoder_norm = nn.LayerNorm(dim)
        self.class_embed = nn.Linear(dim, classes)
        self.mask_embed = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, queries, segment_features, segments):
        decoder_output = self.decoder_norm(queries)
        outputs_class = self.class_embed(decoder_output)
        mask_embed = self.mask_embed(decoder_output)
        segment_mask = torch.einsum("bqc,bcn->bqn", mask_embed, segment_features)
        output_mask = voxel_map_to_source(segment_mask.permute(0, 2, 1), segments).permute(0, 2, 1)
        return outputs_class, output_mask


def build() -> nn.Module:
    return SegmentMaskHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    batch, queries, segments, points = 2, 6, 5, 11
    return (torch.randn(batch, queries, 8, generator=generator),
            torch.randn(batch, 8, segments, generator=generator),
            torch.randint(0, segments, (batch, points), generator=generator))


DYNAMIC = {"queries": {0: "batch"}, "segment_features": {0: "batch", 2: "segments"},
           "segments": {0: "batch", 1: "points"}}
