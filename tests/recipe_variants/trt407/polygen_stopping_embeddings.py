"""PolyGen's face model (a PyTorch port): learned stopping embeddings tiled over the batch.

Reduced from CharlieCrosley/Polygen-Pytorch at commit e7fa0d148d2cbb66765628d0ba99476b7e935160,
modules.py: ``FaceModel.__init__`` (the ``1 x 2 x D`` parameter, line 430) and
``FaceModel.embed_vertices`` (lines 458-490), with ``quantize_verts`` from shared/data_utils.py
(lines 73-85). Vertices in [-0.5, 0.5] are quantized to 8 bits (shifted, scaled by 255, rounded,
cast to int), each coordinate is embedded by its own ``nn.Embedding`` and the three are summed,
the padding vertices are zeroed by the mask, and the two learned tokens are tiled over the batch
with ``torch.tile(self.stopping_embeddings, [vertices.shape[0], 1, 1])`` (the function, a list
display, as many counts as axes, one read from a size) and put in front of the vertices with
``torch.cat``. Written here in our own words; the transformer encoder after it is a layer norm and
a linear layer here (the original's ``nn.TransformerEncoder`` with its padding mask is not what is
studied), and the quantized indices are clamped to the embedding's range.
"""

import torch
import torch.nn as nn


def quantize(vertices: torch.Tensor, bits: int = 8) -> torch.Tensor:
    levels = 2**bits - 1
    return ((vertices + 0.5) * levels).round().clamp(0, levels).int()


class VertexEmbedder(nn.Module):
    def __init__(self, dim: int = 16, bits: int = 8) -> None:
        super().__init__()
        self.bits = bits
        self.embed_x = nn.Embedding(2**bits, dim)
        self.embed_y = nn.Embedding(2**bits, dim)
        self.embed_z = nn.Embedding(2**bits, dim)
        self.stopping_embeddings = nn.Parameter(torch.rand([1, 2, dim]))
        self.encoder = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim))

    def forward(self, vertices: torch.Tensor, vertices_mask: torch.Tensor) -> torch.Tensor:
        verts = quantize(vertices, self.bits)
        embeddings = self.embed_x(verts[..., 0]) + self.embed_y(verts[..., 1]) + self.embed_z(verts[..., 2])
        embeddings = embeddings * vertices_mask.unsqueeze(-1)
        stopping_embeddings = torch.tile(self.stopping_embeddings, [vertices.shape[0], 1, 1])
        embeddings = torch.cat([stopping_embeddings, embeddings], dim=1)
        return self.encoder(embeddings)


def build() -> nn.Module:
    return VertexEmbedder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    vertices = torch.rand(2, 7, 3, generator=generator) - 0.5
    mask = torch.ones(2, 7)
    mask[1, 5:] = 0
    return (vertices, mask)


DYNAMIC = {"vertices": {0: "batch", 1: "vertices"}, "vertices_mask": {0: "batch", 1: "vertices"}}
