"""A shape-keyed cache keyed by a list of sizes: mmyolo's YOLOv5 head keeps ``self.featmap_sizes``
and regenerates its priors only when the list of feature-map sizes differs.

Reduced from open-mmlab/mmyolo @ 8c4d9dc503dc8e327bec8147e8dc97124052f693,
mmyolo/models/dense_heads/yolov5_head.py:212 (``self.featmap_sizes = [torch.empty(1)] * ...``) and
:332-346 (``featmap_sizes = [cls_score.shape[2:] for cls_score in cls_scores]``,
``if featmap_sizes != self.featmap_sizes:`` → ``self.mlvl_priors = self.prior_generator.grid_priors(
...)``, ``self.featmap_sizes = featmap_sizes``, ``torch.cat(self.mlvl_priors)``), with the box decode of
mmyolo/models/task_modules/coders/yolov5_bbox_coder.py, written here in our own words for one base
anchor per level; the prior generator is a plain object, as mmyolo's task utilities are. The
per-level stride vector counts each level's priors here; mmyolo's ``featmap_size.numel()`` on a
``torch.Size`` is a Python int the trace keeps silently (no TracerWarning), another recipe's matter.
"""

import torch
from torch import nn


class AnchorGrid:
    """One base anchor per level, shifted to every cell of the level."""

    def __init__(self, strides, sizes) -> None:
        self.strides = strides
        self.sizes = sizes

    def grid_priors(self, featmap_sizes, dtype, device):
        priors = []
        for (h, w), stride, (aw, ah) in zip(featmap_sizes, self.strides, self.sizes):
            ys = (torch.arange(h, dtype=dtype, device=device) + 0.5) * stride
            xs = (torch.arange(w, dtype=dtype, device=device) + 0.5) * stride
            yy, xx = torch.meshgrid(ys, xs, indexing="ij")
            cx, cy = xx.reshape(-1), yy.reshape(-1)
            priors.append(torch.stack((cx - aw / 2, cy - ah / 2, cx + aw / 2, cy + ah / 2), -1))
        return priors


class YOLOv5Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.featmap_strides = (1, 2)
        self.num_levels = len(self.featmap_strides)
        self.prior_generator = AnchorGrid(self.featmap_strides, ((2.0, 3.0), (5.0, 4.0)))
        self.featmap_sizes = [torch.empty(1)] * self.num_levels
        self.bbox_preds = nn.ModuleList(nn.Conv2d(3, 4, 1, stride=s) for s in self.featmap_strides)

    def predict_by_feat(self, bbox_preds):
        num_imgs = bbox_preds[0].shape[0]
        featmap_sizes = [bbox_pred.shape[2:] for bbox_pred in bbox_preds]
        if featmap_sizes != self.featmap_sizes:
            self.mlvl_priors = self.prior_generator.grid_priors(
                featmap_sizes, dtype=bbox_preds[0].dtype, device=bbox_preds[0].device)
            self.featmap_sizes = featmap_sizes
        flatten_priors = torch.cat(self.mlvl_priors)
        flatten_stride = torch.cat([priors.new_full((priors.shape[0],), stride)
                                    for priors, stride in zip(self.mlvl_priors, self.featmap_strides)])
        pred = torch.cat([p.permute(0, 2, 3, 1).reshape(num_imgs, -1, 4) for p in bbox_preds], 1).sigmoid()
        priors = flatten_priors[None]
        x_center = (priors[..., 0] + priors[..., 2]) * 0.5
        y_center = (priors[..., 1] + priors[..., 3]) * 0.5
        w = priors[..., 2] - priors[..., 0]
        h = priors[..., 3] - priors[..., 1]
        x = (pred[..., 0] - 0.5) * 2 * flatten_stride + x_center
        y = (pred[..., 1] - 0.5) * 2 * flatten_stride + y_center
        w = (pred[..., 2] * 2) ** 2 * w
        h = (pred[..., 3] * 2) ** 2 * h
        return torch.stack((x - w / 2, y - h / 2, x + w / 2, y + h / 2), -1)

    def forward(self, img):
        return self.predict_by_feat([conv(img) for conv in self.bbox_preds])


def build() -> nn.Module:
    return YOLOv5Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
