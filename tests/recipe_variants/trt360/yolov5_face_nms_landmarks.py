"""YOLOv5-face's NMS image by image: a confidence mask, corners from centres, the best class, landmarks kept, NMS.

Reduced from deepcam-cn/yolov5-face@84ef013381e3a155b7a746215974dca7894e0f3e utils/general.py:379-455
(``non_max_suppression_face``) and its ``xywh2xyxy`` (:216-223): ``xc = prediction[..., 4] > conf_thres``, ``output =
[torch.zeros((0, 16), device=prediction.device)] * prediction.shape[0]``, ``for xi, x in enumerate(prediction):``,
``x = x[xc[xi]]``, ``if labels and len(labels[xi]):`` (autolabelling), ``if not x.shape[0]: continue``, ``x[:, 15:]
*= x[:, 4:5]``, ``box = xywh2xyxy(x[:, :4])`` (there column by column; here by pairs), the best class
``torch.cat((box, conf, x[:, 5:15], j.float()), 1)[conf.view(-1) > conf_thres]`` (ten landmark columns carried; its
``if multi_label:`` and ``if classes is not None:`` are YOLOv7's and left out here), ``n = x.shape[0]`` and
``if not n: continue``, ``c = x[:, 15:16] * (0 if agnostic else max_wh)``, ``torchvision.ops.nms``, ``if merge and (1
< n < 3E3):`` (merge-NMS), ``output[xi] = x[i]``, a time limit. The list is flattened by the caller with the image's
index (TRT361). Written here in our own words, with a smaller head.
"""

import time

import numpy as np
import torch
import torchvision
from torch import Tensor, nn


def xywh2xyxy(x):
    out = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    out[:, :2] = x[:, :2] - x[:, 2:4] / 2
    out[:, 2:4] = x[:, :2] + x[:, 2:4] / 2
    return out


def box_iou(a: Tensor, b: Tensor) -> Tensor:
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    inter = (torch.min(a[:, None, 2:], b[:, 2:]) - torch.max(a[:, None, :2], b[:, :2])).clamp(0).prod(2)
    return inter / (area_a[:, None] + area_b - inter)


def non_max_suppression_face(prediction, conf_thres=0.25, iou_thres=0.45, agnostic=False, labels=()):
    nc = prediction.shape[2] - 15
    xc = prediction[..., 4] > conf_thres
    max_wh = 4096
    time_limit = 10.0
    redundant = True
    merge = False
    t = time.time()
    output = [torch.zeros((0, 16), device=prediction.device)] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if labels and len(labels[xi]):
            found = labels[xi]
            v = torch.zeros((len(found), nc + 15), device=x.device)
            v[:, :4] = found[:, 1:5]
            v[:, 4] = 1.0
            v[range(len(found)), found[:, 0].long() + 15] = 1.0
            x = torch.cat((x, v), 0)
        if not x.shape[0]:
            continue
        x[:, 15:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        conf, j = x[:, 15:].max(1, keepdim=True)
        x = torch.cat((box, conf, x[:, 5:15], j.float()), 1)[conf.view(-1) > conf_thres]
        n = x.shape[0]
        if not n:
            continue
        c = x[:, 15:16] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if merge and (1 < n < 3e3):
            iou = box_iou(boxes[i], boxes) > iou_thres
            weights = iou * scores[None]
            x[i, :4] = torch.mm(weights, x[:, :4]).float() / weights.sum(1, keepdim=True)
            if redundant:
                i = i[iou.sum(1) > 1]
        output[xi] = x[i]
        if (time.time() - t) > time_limit:
            break
    return output


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 16, 3, stride=4, padding=1)  # box, objectness, five landmarks, one class

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        at = torch.arange(out.shape[1], dtype=x.dtype)
        cells = torch.stack([at % 8, at // 8], 1) * 4
        centres = cells + out[..., :2].sigmoid() * 4
        landmarks = (cells.repeat(1, 5) + out[..., 5:15] * 4)
        prediction = torch.cat([centres, out[..., 2:4].exp() * 6, out[..., 4:5].sigmoid(), landmarks,
                                out[..., 15:].sigmoid()], -1)
        detections = non_max_suppression_face(prediction)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(detections)])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Four images, brighter than the others."""
    return (1.5 * torch.rand(4, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
