"""torchvision's Faster R-CNN: the RPN's proposals, one tensor an image, made the RoI pooler's rows.

The producer is reduced from torchvision 0.29.1 (the pinned wheel), torchvision/models/detection/rpn.py:242-297,
``RegionProposalNetwork.filter_proposals``: ``for boxes, scores, lvl, img_shape in zip(proposals, objectness_prob,
levels, image_shapes)`` clips each image's boxes, runs ``box_ops.batched_nms(boxes, scores, lvl, self.nms_thresh)``
with the feature level as the class, caps the kept positions with ``keep[: self.post_nms_top_n()]`` and appends the
boxes. The caller is reduced from the same wheel's torchvision/ops/poolers.py:87-95, ``_convert_to_roi_format``
(what ``MultiScaleRoIAlign`` calls on the proposals): ``concat_boxes = torch.cat(boxes, dim=0)``, the image's index
as a column by ``torch.cat([torch.full_like(b[:, :1], i, dtype=dtype, layout=torch.strided, device=device) for i,
b in enumerate(boxes)], dim=0)``, then both side by side. A second caller is the same wheel's
torchvision/ops/_utils.py:18-25, ``convert_boxes_to_roi_format`` (what ``roi_align`` calls on a list of boxes): the
entries concatenated by ``[b for b in boxes]`` and the index column made by a loop (there ``_cat``, which returns a
one-entry list's tensor itself; here ``torch.cat``). Left out of the producer: the image sizes zipped along (the
input's size here), the pre-NMS picks of the rows themselves (``remove_small_boxes``, the score threshold, 0.0 by
default) and the second list of scores, which TRT360 does not carry over (the report says so). The anchors are
decoded before the loop; a one-convolution head per level stands in for the backbone and the RPN head. Written here
in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def filter_proposals(proposals: Tensor, objectness: Tensor, levels: Tensor, nms_thresh: float = 0.7,
                     post_nms_top_n: int = 6) -> list[Tensor]:
    objectness_prob = torch.sigmoid(objectness)
    final_boxes = []
    for boxes, scores, lvl in zip(proposals, objectness_prob, levels):
        boxes = torchvision.ops.clip_boxes_to_image(boxes, (32, 32))
        keep = torchvision.ops.batched_nms(boxes, scores, lvl, nms_thresh)
        keep = keep[:post_nms_top_n]
        boxes, scores = boxes[keep], scores[keep]
        final_boxes.append(boxes)
    return final_boxes


def _convert_to_roi_format(boxes: list[Tensor]) -> Tensor:
    concat_boxes = torch.cat(boxes, dim=0)
    device, dtype = concat_boxes.device, concat_boxes.dtype
    ids = torch.cat(
        [torch.full_like(b[:, :1], i, dtype=dtype, layout=torch.strided, device=device) for i, b in enumerate(boxes)],
        dim=0,
    )
    return torch.cat([ids, concat_boxes], dim=1)


def convert_boxes_to_roi_format(boxes: list[Tensor]) -> Tensor:
    concat_boxes = torch.cat([b for b in boxes], dim=0)
    temp = []
    for i, b in enumerate(boxes):
        temp.append(torch.full_like(b[:, :1], i))
    ids = torch.cat(temp, dim=0)
    rois = torch.cat([ids, concat_boxes], dim=1)
    return rois


class RPN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(3, 5, 3, stride=8, padding=1), nn.Conv2d(3, 5, 3, stride=16, padding=1)])

    def forward(self, images: Tensor) -> list[Tensor]:
        proposals, objectness, levels = [], [], []
        for level, conv in enumerate(self.levels):
            out = conv(images).flatten(2).transpose(1, 2)
            corner = out[..., :2].sigmoid() * 32
            proposals.append(torch.cat([corner, corner + out[..., 2:4].exp() * 4], -1))
            objectness.append(out[..., 4])
            levels.append(torch.full_like(out[..., 4], level, dtype=torch.int64))
        return filter_proposals(torch.cat(proposals, 1), torch.cat(objectness, 1), torch.cat(levels, 1))


class PoolerRois(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rpn = RPN()

    def forward(self, images: Tensor) -> Tensor:
        return _convert_to_roi_format(self.rpn(images))


class RoiAlignRois(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rpn = RPN()

    def forward(self, images: Tensor) -> Tensor:
        return convert_boxes_to_roi_format(self.rpn(images))


def build() -> nn.Module:
    torch.manual_seed(0)
    return PoolerRois().eval()


def build_roi_align() -> nn.Module:
    torch.manual_seed(0)
    return RoiAlignRois().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
