"""easydetect's ONNX SAM mask decoder: the best of the multimask outputs, chosen by the point count.

Reduced from easydetect 0.7.10, nn/sam_decoder.py: ``SamDecoderOnnx.forward`` (lines 308-334) runs the
mask decoder, then (lines 318-327) builds ``reweight``, a ``torch.tensor`` of 1000 for the first mask token
and 0 for the others, and picks ``best = torch.argmax(scores + (point_coords.shape[1] - 2.5) * reweight,
dim=1)``: with a box (two corner points) the point term is negative and the first (single) mask loses to
the multimask outputs; with more points it wins. The masks and scores of the best output are gathered with
``torch.arange``. Here the decoder is reduced to a small projection of the image embedding and the point
coordinates. Written here in our own words.
"""

import torch
from torch import nn


class SamBestMask(nn.Module):
    def __init__(self, num_mask_tokens: int = 4, dim: int = 8, side: int = 6) -> None:
        super().__init__()
        self.num_mask_tokens = num_mask_tokens
        self.side = side
        self.points = nn.Linear(2, dim)
        self.masks = nn.Linear(dim, num_mask_tokens * side * side)
        self.iou = nn.Linear(dim, num_mask_tokens)

    def forward(self, image_embedding, point_coords):
        tokens = self.points(point_coords).mean(dim=1) + image_embedding
        masks = self.masks(tokens).reshape(-1, self.num_mask_tokens, self.side, self.side)
        scores = self.iou(tokens)
        reweight = torch.tensor([[1000] + [0] * (self.num_mask_tokens - 1)], device=scores.device)
        best = torch.argmax(scores + (point_coords.shape[1] - 2.5) * reweight, dim=1)
        chosen = masks[torch.arange(masks.shape[0]), best, :, :]
        score = scores[torch.arange(masks.shape[0]), best]
        return chosen * score[:, None, None]


def build() -> nn.Module:
    return SamBestMask().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 8, generator=generator), torch.rand(2, 2, 2, generator=generator) * 64


#: Static shapes, as easydetect exports its box decoder (two points, batch of one prompt set): with a dynamic
#: batch the exporter does not fold the pair and the graph stays float32 without the rewrite.
DYNAMIC: dict = {}
