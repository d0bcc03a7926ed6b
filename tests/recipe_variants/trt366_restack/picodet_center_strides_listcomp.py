"""A detection head whose target helper hands the batch of prior centres and strides to ``images_to_levels`` as a
list comprehension of its rows, stacked back there and cut into feature levels.

Reduced from Bo396543018/Picodet_Pytorch (an mmdetection fork) at commit 276ecbf6f4f7eefbf046d1bccc25293acf28ba25
(2022-02-13): mmdet/models/dense_heads/picodet_head.py, ``PicoDetHead.loss`` (lines 223-290: the cells per level
at line 248, the priors with their strides repeated for each image at lines 260-261 and concatenated at line 279,
``flatten_center_and_strides``, handed to ``get_targets`` at line 281; per level, from line 298, the levels'
centres and strides go to ``loss_single``, lines 459-515, which decodes the box distributions against them),
``PicoDetHead.get_targets`` (lines 642-702; at line 692 ``images_to_levels([flatten_cs for flatten_cs in flatten_center_and_strides],
num_level_anchors)``), and mmdet/core/anchor/utils.py, ``images_to_levels`` (lines 5-18: ``torch.stack(target,
0)``, then ``target[:, start:end]`` per level, without nanodet's squeeze). In our own words: two levels from two
strided convolutions, the integral of the box distributions and ``distance2bbox`` as in the head, the per-image
label assignment left out (in the fork this runs while training; here each level's decoded boxes and class
scores are the model's outputs).
"""

from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def images_to_levels(target, num_levels):
    target = torch.stack(target, 0)
    level_targets = []
    start = 0
    for n in num_levels:
        end = start + n
        level_targets.append(target[:, start:end])
        start = end
    return level_targets


def distance2bbox(points, distance):
    x1 = points[..., 0] - distance[..., 0]
    y1 = points[..., 1] - distance[..., 1]
    x2 = points[..., 0] + distance[..., 2]
    y2 = points[..., 1] + distance[..., 3]
    return torch.stack([x1, y1, x2, y2], -1)


class Integral(nn.Module):
    def __init__(self, reg_max: int) -> None:
        super().__init__()
        self.reg_max = reg_max
        self.register_buffer("project", torch.linspace(0, reg_max, reg_max + 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.softmax(x.reshape(-1, self.reg_max + 1), dim=1)
        return F.linear(x, self.project.type_as(x)).reshape(-1, 4)


class PicoDetHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.strides = (8, 16)
        self.reg_max = 3
        self.cls_out_channels = 2
        self.stem = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.gfl_cls = nn.Conv2d(8, self.cls_out_channels, 1)
        self.gfl_reg = nn.Conv2d(8, 4 * (self.reg_max + 1), 1)
        self.integral = Integral(self.reg_max)

    def grid_priors(self, featmap_sizes, dtype: torch.dtype, device: torch.device) -> List[torch.Tensor]:
        priors = []
        for (h, w), stride in zip(featmap_sizes, self.strides):
            ys, xs = torch.meshgrid(torch.arange(h, dtype=dtype, device=device) * stride,
                                    torch.arange(w, dtype=dtype, device=device) * stride, indexing="ij")
            strides = torch.full_like(xs, stride)
            priors.append(torch.stack([xs, ys, strides, strides], -1).reshape(-1, 4))
        return priors

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        p3 = self.stem(x).relu()
        feats = (p3, self.down(p3).relu())
        cls_scores = [self.gfl_cls(feat) for feat in feats]
        bbox_preds = [self.gfl_reg(feat) for feat in feats]
        num_imgs = x.shape[0]
        num_level_anchors = [featmap.shape[-2] * featmap.shape[-1] for featmap in cls_scores]
        mlvl_priors = self.grid_priors([cls_score.shape[2:] for cls_score in cls_scores], x.dtype, x.device)
        center_and_strides = []
        for center_and_stride in mlvl_priors:
            center_and_strides.append(center_and_stride.repeat(num_imgs, 1, 1))
        flatten_center_and_strides = torch.cat(center_and_strides, dim=1)
        center_and_strides_list = self.get_targets(flatten_center_and_strides, num_level_anchors)
        out = []
        for cls_score, bbox_pred, center_and_strides, stride in zip(
                cls_scores, bbox_preds, center_and_strides_list, self.strides):
            centers = center_and_strides.reshape(-1, 4)[:, :-2] / stride
            corners = self.integral(bbox_pred.permute(0, 2, 3, 1).reshape(-1, 4 * (self.reg_max + 1)))
            out.append(distance2bbox(centers, corners) * stride)
            out.append(cls_score.permute(0, 2, 3, 1).reshape(-1, self.cls_out_channels).sigmoid())
        return tuple(out)

    def get_targets(self, flatten_center_and_strides, num_level_anchors):
        center_and_strides_list = images_to_levels([flatten_cs for flatten_cs in flatten_center_and_strides],
                                                   num_level_anchors)
        return center_and_strides_list


def build() -> nn.Module:
    return PicoDetHead()


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)
