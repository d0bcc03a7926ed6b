"""mmdetection3d's ``Single3DRoIAwareExtractor`` pools point features per sample of the batch:
``for batch_idx in range(int(batch_inds.max()) + 1)``, the RoIs and points of that sample
selected by comparing their batch ids, pooled, and the results concatenated.

Reduced from open-mmlab/mmdetection3d at commit fe25f7a51d36e3702f961e198894580d83c4387b,
mmdet3d/models/roi_heads/roi_extractors/single_roiaware_extractor.py,
``Single3DRoIAwareExtractor.forward`` (lines 39-62). Written here in our own words: the
``RoIAwarePool3d`` CUDA op becomes a sum of the sample's point features scaled by each RoI's
first box value. The loop is in a method: TRT104 reports it and has no rewrite.
"""

import torch
from torch import nn


class RoIAwareBatches(nn.Module):
    def roi_layer(self, rois: torch.Tensor, coordinate: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        return rois[:, :1] * (feats * coordinate[:, :1]).sum(0)

    def forward(self, feats: torch.Tensor, coordinate: torch.Tensor, batch_inds: torch.Tensor,
                rois: torch.Tensor) -> torch.Tensor:
        pooled_roi_feats = []
        for batch_idx in range(int(batch_inds.max()) + 1):
            roi_inds = rois[..., 0].int() == batch_idx
            coors_inds = batch_inds.int() == batch_idx
            pooled_roi_feat = self.roi_layer(rois[..., 1:][roi_inds], coordinate[coors_inds], feats[coors_inds])
            pooled_roi_feats.append(pooled_roi_feat)
        return torch.cat(pooled_roi_feats, 0)


def build() -> nn.Module:
    return RoIAwareBatches()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    batch_inds = torch.tensor([0, 0, 1, 1, 1])
    rois = torch.cat([torch.tensor([[0.0], [1.0], [1.0]]), torch.rand(3, 7, generator=generator)], 1)
    return torch.randn(5, 4, generator=generator), torch.randn(5, 3, generator=generator), batch_inds, rois


DYNAMIC = {"feats": {0: "points"}, "coordinate": {0: "points"}, "batch_inds": {0: "points"}, "rois": {0: "rois"}}
