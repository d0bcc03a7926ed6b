"""MONAI's VISTA3D: the automatic branch's logits are NaN where no class was predicted; when point
clicks are given, ``connected_components_combine`` records the NaN voxels
(``nan_mask = torch.isnan(_logits)``), turns the logits into probabilities with
``torch.nan_to_num(_logits, nan=self.NINF_VALUE).sigmoid()`` (the replacement an attribute, the
call chained), and takes the point branch's logits where the automatic ones were NaN or where the
click region disagrees.

Reduced from MONAI 1.6.1 (the PyPI wheel the second zoo unpacks), monai/networks/nets/vista3d.py,
``VISTA3D.connected_components_combine`` lines 217-272 (``NINF_VALUE = -9999`` set at line 79; the
``nan_to_num`` at line 254). Written here in our own words: two 1x1x1 convolutions stand in for
the automatic and point heads, the connected-component step (NumPy, outside the graph) is left
out (the disagreeing region is taken whole), and the update is a ``torch.where``.
"""

import torch
from torch import nn


class PointCombine(nn.Module):
    def __init__(self, channels: int = 2) -> None:
        super().__init__()
        self.auto_head = nn.Conv3d(channels, 1, kernel_size=1)
        self.point_head = nn.Conv3d(channels, 1, kernel_size=1)
        self.NINF_VALUE = -9999
        self.thred = 0.5

    def forward(self, features: torch.Tensor, predicted: torch.Tensor) -> torch.Tensor:
        logits = self.auto_head(features)
        logits = torch.where(predicted, logits, torch.full_like(logits, float("nan")))
        point_logits = self.point_head(features)
        nan_mask = torch.isnan(logits)
        probs = torch.nan_to_num(logits, nan=self.NINF_VALUE).sigmoid()
        pos_region = point_logits.sigmoid() > self.thred
        diff_pos = (probs <= self.thred) & pos_region
        diff_neg = (probs > self.thred) & ~pos_region
        update = nan_mask | diff_pos | diff_neg
        return torch.where(update, point_logits, logits)


def build() -> nn.Module:
    return PointCombine()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    features = torch.randn(1, 2, 4, 5, 3, generator=generator)
    predicted = torch.rand(1, 1, 4, 5, 3, generator=generator) > 0.3
    return features, predicted


DYNAMIC = {"features": {0: "batch", 2: "d", 3: "h", 4: "w"}, "predicted": {0: "batch", 2: "d", 3: "h", 4: "w"}}
