"""RF-DETR's matcher samples masks at points: ``torch.squeeze(x, (-1, 1))``, a tuple of axes.

Reduced from transformers 5.24.0, transformers/loss/loss_rf_detr.py, the Hungarian matcher's mask
cost (lines 241-258) and ``sample_point`` (lines 110-139): the predicted mask logits get a channel
axis (``unsqueeze(1)``), are sampled bilinearly at the same points for every query with
``grid_sample``, and the result, shaped (queries, 1, points) once ``sample_point`` has dropped its
own trailing axis, is squeezed with the function form and a tuple of axes,
``torch.squeeze(pred_masks_logits, (-1, 1))`` (line 249); the same is done to the target masks
(line 255) before the pairwise dice cost. Written here in our own words: the points are an input
(the original draws them with ``torch.rand``), and the output is the dice cost alone.

Not an axis of size 1 everywhere: axis -1 holds the points, so ``squeeze`` leaves it (a no-op on an
axis that is not 1) and only drops axis 1. Indexing both with 0 (the rule's rewrite) keeps one
point per mask, and the dice cost's ``flatten(1)`` then fails; with a single point the original
fails there itself. No input meets the rule's assumption, and ``migrate``'s observer, which sees
axis -1 at the number of points, never proves the fix here. The TorchScript exporter cannot export
a squeeze of a tuple of axes at all; the dynamo exporter can.
"""

import torch
from torch import nn


def sample_point(features: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """Bilinear samples of ``features`` (N, C, H, W) at ``points`` (N, P, 2) in [0, 1]: (N, C, P)."""
    grid = 2.0 * points.unsqueeze(2) - 1.0
    return torch.nn.functional.grid_sample(features, grid, align_corners=False).squeeze(3)


class PointMaskCost(nn.Module):
    def forward(self, out_masks, target_masks, point_coords):
        pred_points = point_coords.repeat(out_masks.shape[0], 1, 1)
        pred_masks_logits = sample_point(out_masks.unsqueeze(1), pred_points)
        pred_masks_logits = torch.squeeze(pred_masks_logits, (-1, 1))
        target_points = point_coords.repeat(target_masks.shape[0], 1, 1)
        target_masks = sample_point(target_masks.unsqueeze(1), target_points)
        target_masks = torch.squeeze(target_masks, (-1, 1))
        inputs = pred_masks_logits.sigmoid().flatten(1)
        numerator = 2 * torch.matmul(inputs, target_masks.flatten(1).T)
        denominator = inputs.sum(-1)[:, None] + target_masks.flatten(1).sum(-1)[None, :]
        return 1 - (numerator + 1) / (denominator + 1)


def build() -> nn.Module:
    return PointMaskCost()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 6, 7, generator=generator), (torch.rand(3, 6, 7, generator=generator) > 0.5).float(),
            torch.rand(1, 5, 2, generator=generator))


DYNAMIC = {"out_masks": {0: "queries", 1: "height", 2: "width"}, "target_masks": {0: "targets", 1: "height", 2: "width"},
           "point_coords": {1: "points"}}
