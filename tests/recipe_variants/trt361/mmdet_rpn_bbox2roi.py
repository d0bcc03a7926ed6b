"""mmdet's two-stage path: the RPN's proposals, one tensor an image, made RoIs by ``bbox2roi``.

The producer is reduced from open-mmlab/mmdetection@006c106415fc038bf218de6b5c38e32fdc618570
mmdet/models/dense_heads/rpn_head.py:78-192, ``RPNHead._get_bboxes``: each level's scores and deltas, its top
``nms_pre`` candidates by ``scores.sort(descending=True)`` and a batch gather, the level's index as
``scores.new_full((batch_size, scores.size(1)), idx, dtype=torch.long)``, the decoded proposals, then ``for
(mlvl_proposals, mlvl_scores, mlvl_ids) in zip(...)`` (lines 173-192): class-aware NMS with the level as the class
and ``result_list.append(dets[:cfg.max_per_img])``. There mmcv's ``batched_nms`` returns the kept rows with their
scores (``dets``), by score; here torchvision's ``batched_nms`` gives the kept positions, capped, and the rows are
concatenated as mmcv does. Left out: the ``min_bbox_size`` filter before NMS (a pick of the rows themselves under
``if valid_ind.sum().item() != len(...)``, which TRT360 does not carry over; the report says so). The caller is
open-mmlab/mmdetection@6fc47b7f592181ecc442d61da4a331469059eeda mmdet/structures/bbox/transforms.py:82-102,
``bbox2roi``: ``img_inds = bboxes.new_full((bboxes.size(0), 1), img_id)``, ``rois = torch.cat([img_inds, bboxes],
dim=-1)`` appended, then ``rois = torch.cat(rois_list, 0)``: the name the loop binds, bound again (``get_box_tensor``,
the identity on a tensor, left out). Delta decoding is reduced to centre and size offsets on the anchors. Written
here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def bbox2roi(bbox_list: list[Tensor]) -> Tensor:
    rois_list = []
    for img_id, bboxes in enumerate(bbox_list):
        img_inds = bboxes.new_full((bboxes.size(0), 1), img_id)
        rois = torch.cat([img_inds, bboxes], dim=-1)
        rois_list.append(rois)
    rois = torch.cat(rois_list, 0)
    return rois


class RPNHead(nn.Module):
    def __init__(self, nms_pre: int = 12, max_per_img: int = 6, iou_threshold: float = 0.7) -> None:
        super().__init__()
        self.nms_pre, self.max_per_img, self.iou_threshold = nms_pre, max_per_img, iou_threshold
        self.rpn_cls = nn.ModuleList([nn.Conv2d(3, 1, 3, stride=8, padding=1), nn.Conv2d(3, 1, 3, stride=16, padding=1)])
        self.rpn_reg = nn.ModuleList([nn.Conv2d(3, 4, 3, stride=8, padding=1), nn.Conv2d(3, 4, 3, stride=16, padding=1)])

    def _get_bboxes(self, images: Tensor) -> list[Tensor]:
        level_ids, mlvl_scores, mlvl_bbox_preds, mlvl_valid_anchors = [], [], [], []
        batch_size = images.shape[0]
        for idx in range(len(self.rpn_cls)):
            scores = self.rpn_cls[idx](images).permute(0, 2, 3, 1).reshape(batch_size, -1).sigmoid()
            rpn_bbox_pred = self.rpn_reg[idx](images).permute(0, 2, 3, 1).reshape(batch_size, -1, 4)
            stride = 8 * 2 ** idx
            height, width = images.shape[2] // stride, images.shape[3] // stride
            ys, xs = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
            centres = torch.stack([xs, ys], -1).reshape(-1, 2).float() * stride + stride / 2
            anchors = torch.cat([centres - stride, centres + stride], -1).expand_as(rpn_bbox_pred)
            ranked_scores, rank_inds = scores.sort(descending=True)
            topk_inds = rank_inds[:, :self.nms_pre]
            scores = ranked_scores[:, :self.nms_pre]
            batch_inds = torch.arange(batch_size).view(-1, 1).expand_as(topk_inds)
            mlvl_scores.append(scores)
            mlvl_bbox_preds.append(rpn_bbox_pred[batch_inds, topk_inds, :])
            mlvl_valid_anchors.append(anchors[batch_inds, topk_inds, :])
            level_ids.append(scores.new_full((batch_size, scores.size(1)), idx, dtype=torch.long))
        batch_mlvl_scores = torch.cat(mlvl_scores, dim=1)
        anchors = torch.cat(mlvl_valid_anchors, dim=1)
        deltas = torch.cat(mlvl_bbox_preds, dim=1)
        centre = (anchors[..., :2] + anchors[..., 2:]) / 2 + deltas[..., :2] * 4
        size = (anchors[..., 2:] - anchors[..., :2]) * deltas[..., 2:].clamp(-2, 2).exp()
        batch_mlvl_proposals = torch.cat([centre - size / 2, centre + size / 2], -1)
        batch_mlvl_ids = torch.cat(level_ids, dim=1)

        result_list = []
        for (mlvl_proposals, mlvl_scores,
             mlvl_ids) in zip(batch_mlvl_proposals, batch_mlvl_scores,
                              batch_mlvl_ids):
            keep = torchvision.ops.batched_nms(mlvl_proposals, mlvl_scores, mlvl_ids, self.iou_threshold)[
                :self.max_per_img]
            dets = torch.cat([mlvl_proposals[keep], mlvl_scores[keep, None]], 1)
            result_list.append(dets)
        return result_list


class TwoStage(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rpn_head = RPNHead()

    def forward(self, images: Tensor) -> Tensor:
        proposals = self.rpn_head._get_bboxes(images)
        return bbox2roi(proposals)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TwoStage().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
