"""MMYOLO's YOLOv5 instance-segmentation head numbers each image's ground-truth instances when the
masks overlap: for image ``i`` of the batch, ``num_gts = (batch_gt_instances[:, 0] == i).sum()``
counts its instances (a local holding the sum of a comparison), then ``torch.arange(num_gts,
device=...).float().view(1, num_gts).repeat(num_base_priors, 1) + 1`` gives every prior the
instance numbers 1..n, and the images' numbers are concatenated along the instance axis.

Reduced from open-mmlab/mmyolo at commit 8c4d9dc503dc8e327bec8147e8dc97124052f693,
mmyolo/models/dense_heads/yolov5_ins_head.py, ``YOLOv5InsHead._convert_gt_to_norm_format``
(lines 416-433, the ``mask_overlap`` branch). Written here in our own words: the batch size is
the module's configuration (the original takes ``len(batch_img_metas)``), the parent's box
normalisation is left out, and the instance numbers are the output. The range is taken; its
``view(1, num_gts)`` still reads the sum, a reshape's size from values that no rule rewrites.
"""

import torch
from torch import nn


class InstanceTargetInds(nn.Module):
    def __init__(self, batch_size: int = 2, num_base_priors: int = 3) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.num_base_priors = num_base_priors

    def forward(self, batch_gt_instances: torch.Tensor) -> torch.Tensor:
        target_inds = []
        for i in range(self.batch_size):
            num_gts = (batch_gt_instances[:, 0] == i).sum()
            target_inds.append(
                torch.arange(num_gts, device=batch_gt_instances.device).float().view(1, num_gts).repeat(
                    self.num_base_priors, 1) + 1)
        return torch.cat(target_inds, 1)


def build() -> nn.Module:
    return InstanceTargetInds()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    boxes = torch.rand(5, 5, generator=generator)
    return (torch.cat([torch.tensor([[0.0], [0.0], [1.0], [0.0], [1.0]]), boxes], 1),)


DYNAMIC = {"batch_gt_instances": {0: "instances"}}
