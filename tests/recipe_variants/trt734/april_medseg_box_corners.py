"""LiteMedSAM's box prompt (a SAM-style prompt encoder for medical images): the two corners of each box get the
learned embeddings of the point labels 2 (top left) and 3 (bottom right), looked up with ids made by
``torch.full((B,), 2, device=boxes.device)`` and ``torch.full((B,), 3, device=boxes.device)``: no dtype, ``int``
literal fills (eager mode infers int64), the size the number of boxes (traced). With the batch traced, the
TorchScript exporter makes both ``full`` calls float ``ConstantOfShape`` nodes, and ONNX Runtime refuses the
embedding's ``Gather`` with float indices.

Reduced from juntaoJianggavin/APRIL-MedSeg @ 1690759da4f377a6fc78a479b439a9f70febf887 (Apache-2.0),
medseg/models/networks/sam/lite_medsam.py: ``_PromptEncoder._embed_boxes`` (lines 103-110; the two ``full`` calls
at lines 108 and 109) and ``forward`` (lines 112-144), ``_MaskDecoder.forward`` (lines 186-218) and
``LiteMedSAM.forward`` (lines 271-319) on its box prompt (``text={"boxes": ...}``). Written here in our own words
with a small width (8): the TinyViT image encoder is one strided convolution (no resize to 64 by 64), the two-layer
decoder one cross-attention of the tokens to the image, the upscaling two transposed convolutions back to the
input's size (so no final interpolation); the box corners, their linear position encoding, the two label
embeddings, the token order (IoU token, mask tokens, prompts) and the per-class mask product are kept as they are.
"""

import torch
from torch import nn


class PromptEncoder(nn.Module):
    def __init__(self, embed_dim: int = 8) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.point_embeddings = nn.Embedding(4, embed_dim)  # background, foreground, top left, bottom right
        self.no_mask_embed = nn.Embedding(1, embed_dim)
        self.pe_layer = nn.Linear(2, embed_dim)

    def _embed_boxes(self, boxes):
        B = boxes.shape[0]
        corners = self.pe_layer(boxes.view(B, 2, 2))
        tl_embed = self.point_embeddings(torch.full((B,), 2, device=boxes.device))
        br_embed = self.point_embeddings(torch.full((B,), 3, device=boxes.device))
        return corners + torch.stack((tl_embed, br_embed), dim=1)

    def forward(self, boxes, grid: tuple):
        sparse = torch.cat([self._embed_boxes(boxes)], dim=1)
        dense = self.no_mask_embed.weight.view(1, self.embed_dim, 1, 1).expand(boxes.shape[0], -1, *grid)
        return sparse, dense


class MaskDecoder(nn.Module):
    def __init__(self, embed_dim: int = 8, num_classes: int = 1) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.mask_tokens = nn.Embedding(num_classes + 1, embed_dim)
        self.iou_token = nn.Embedding(1, embed_dim)
        self.query = nn.Linear(embed_dim, embed_dim)
        self.key_value = nn.Linear(embed_dim, 2 * embed_dim)
        self.scale = embed_dim ** -0.5
        self.upscale = nn.Sequential(nn.ConvTranspose2d(embed_dim, 8, 2, stride=2), nn.GELU(),
                                     nn.ConvTranspose2d(8, 4, 2, stride=2), nn.GELU())
        self.mask_mlp = nn.Sequential(nn.Linear(embed_dim, 4), nn.GELU(), nn.Linear(4, 4))

    def forward(self, image_embed, sparse_embed, dense_embed):
        batch = image_embed.shape[0]
        queries = torch.cat([self.iou_token.weight[None].expand(batch, -1, -1),
                             self.mask_tokens.weight[None].expand(batch, -1, -1), sparse_embed], dim=1)
        memory = (image_embed + dense_embed).flatten(2).transpose(1, 2)
        keys, values = self.key_value(memory).chunk(2, dim=-1)
        weights = (self.query(queries) @ keys.transpose(1, 2) * self.scale).softmax(dim=-1)
        decoded = queries + weights @ values
        mask_proj = self.mask_mlp(decoded[:, 1:self.num_classes + 2])
        per_class = torch.einsum("nkc,nchw->nkhw", mask_proj, self.upscale(image_embed))
        return per_class[:, 1:]


class LiteMedSAM(nn.Module):
    def __init__(self, embed_dim: int = 8) -> None:
        super().__init__()
        self.image_encoder = nn.Conv2d(3, embed_dim, kernel_size=4, stride=4)
        self.prompt_encoder = PromptEncoder(embed_dim)
        self.mask_decoder = MaskDecoder(embed_dim)

    def forward(self, image, boxes):
        image_embed = self.image_encoder(image)
        sparse, dense = self.prompt_encoder(boxes, image_embed.shape[2:])
        return self.mask_decoder(image_embed, sparse, dense)


def build() -> nn.Module:
    return LiteMedSAM()


def inputs(generator: torch.Generator, batch: int = 2, size: int = 16) -> tuple[torch.Tensor, ...]:
    """``batch`` images of ``size`` by ``size`` pixels and one box each, ``[x1, y1, x2, y2]`` in ``[0, 1]``."""
    image = torch.randn(batch, 3, size, size, generator=generator)
    corners = torch.rand(batch, 2, 2, generator=generator).sort(dim=1).values
    return image, corners.reshape(batch, 4)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "boxes": {0: "batch"}}
CALL = "tl_embed = self.point_embeddings(torch.full((B,), 2, device=boxes.device))"
