"""Meta's ONNX SAM decoder: the best mask chosen by the point count, the count a parameter of a helper.

Reduced from facebookresearch/segment-anything @ dca509fe793f601edb92606367a655c15ac00fdf,
segment_anything/utils/onnx.py: ``SamOnnxModel.select_masks`` (lines 92-105) builds ``score_reweight``, a
``torch.tensor`` of 1000 for the first mask token and 0 for the others, and scores the outputs with
``iou_preds + (num_points - 2.5) * score_reweight`` (line 100), ``num_points: int`` a parameter; ``forward``
(lines 108-144) calls it as ``self.select_masks(masks, scores, point_coords.shape[1])`` (line 133) and
gathers the best mask with ``torch.arange``. Unlike easydetect's copy, nothing in ``select_masks`` shows
``num_points`` is a size: the caller hands it in, and the annotation says ``int``. Written here in our own
words, the decoder reduced to a projection of the image embedding and the point coordinates.
"""

from typing import Tuple

import torch
from torch import nn


class SamOnnxSelect(nn.Module):
    def __init__(self, mask_tokens: int = 4, width: int = 8, grid: int = 6) -> None:
        super().__init__()
        self.mask_tokens, self.grid = mask_tokens, grid
        self.embed_points = nn.Linear(2, width)
        # one projection for every mask token's mask logits and its IoU prediction
        self.decode = nn.Linear(width, mask_tokens * (grid * grid + 1))

    def select_masks(self, masks: torch.Tensor, iou_preds: torch.Tensor,
                     num_points: int) -> Tuple[torch.Tensor, torch.Tensor]:
        # a large weight on the single-mask output, signed by whether more than two points were given
        score_reweight = torch.tensor([[1000] + [0] * (self.mask_tokens - 1)]).to(iou_preds.device)
        score = iou_preds + (num_points - 2.5) * score_reweight
        best = score.argmax(dim=1)
        rows = torch.arange(masks.shape[0])
        return masks[rows, best][:, None], iou_preds[rows, best][:, None]

    def forward(self, image_embedding, point_coords):
        decoded = self.decode(self.embed_points(point_coords).mean(dim=1) + image_embedding)
        split = self.mask_tokens * self.grid * self.grid
        masks = decoded[:, :split].reshape(-1, self.mask_tokens, self.grid, self.grid)
        masks, scores = self.select_masks(masks, decoded[:, split:], point_coords.shape[1])
        return masks * scores[:, :, None, None]


def build() -> nn.Module:
    return SamOnnxSelect().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 8, generator=generator), torch.rand(2, 2, 2, generator=generator) * 64


#: Static shapes, as the SAM decoder is exported for one prompt kind: with a dynamic batch the exporter does not
#: fold the pair and the graph stays float32 without the rewrite.
DYNAMIC: dict = {}
