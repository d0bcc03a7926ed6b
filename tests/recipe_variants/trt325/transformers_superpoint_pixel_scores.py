"""SuperPoint's pixel scores in transformers: ``nn.functional.max_pool2d`` in a ``simple_nms`` closure.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/superpoint/modeling_superpoint.py:
``simple_nms`` (lines 55-69) and ``SuperPointInterestPointDecoder._get_pixel_scores`` (lines 225-234).
The port spells the pooling through ``from torch import nn`` as ``nn.functional.max_pool2d(x,
kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius)``, raises ``ValueError`` for a negative
radius instead of asserting, and names the score map's sizes ``batch_size, height, width`` in the
decoder's method: the map handed to ``simple_nms`` is ``(batch_size, height * 8, width * 8)``, with no
channel axis. The encoder is one strided convolution here and the keypoint extraction after the scores
is left out. Written here in our own words.
"""

import torch
from torch import nn


def simple_nms(scores: torch.Tensor, nms_radius: int) -> torch.Tensor:
    if nms_radius < 0:
        raise ValueError("nms_radius must not be negative")

    def max_pool(x):
        return nn.functional.max_pool2d(x, kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius)

    zeros = torch.zeros_like(scores)
    max_mask = scores == max_pool(scores)
    for _ in range(2):
        supp_mask = max_pool(max_mask.float()) > 0
        supp_scores = torch.where(supp_mask, zeros, scores)
        new_max_mask = supp_scores == max_pool(supp_scores)
        max_mask = max_mask | (new_max_mask & (~supp_mask))
    return torch.where(max_mask, scores, zeros)


class InterestPointDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(1, 16, 8, stride=8)
        self.conv_score_b = nn.Conv2d(16, 65, 1)
        self.nms_radius = 3

    def _get_pixel_scores(self, encoded: torch.Tensor) -> torch.Tensor:
        scores = self.conv_score_b(nn.functional.relu(encoded))
        scores = nn.functional.softmax(scores, 1)[:, :-1]
        batch_size, _, height, width = scores.shape
        scores = scores.permute(0, 2, 3, 1).reshape(batch_size, height, width, 8, 8)
        scores = scores.permute(0, 1, 3, 2, 4).reshape(batch_size, height * 8, width * 8)
        return simple_nms(scores, self.nms_radius)

    def forward(self, pixel_values):
        return self._get_pixel_scores(self.encoder(pixel_values))


def build() -> nn.Module:
    return InterestPointDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 40, 56, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
