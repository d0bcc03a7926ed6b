"""YOLOv9's ``non_max_suppression``: one image at a time, its columns split, a cap with a sort, an ``mps`` move.

Reduced from WongKinYiu/yolov9 @ 05d703633667eadfe756b18bc454186dfde898a8 utils/general.py (the function's loop,
zoo 92's GELAN models through the yolo9 1.0.18 wheel): the batch count bound first (``bs =
prediction.shape[0]``), the list made as ``[torch.zeros((0, 6 + nm), ...)] * bs``, each image's candidates picked
through the transposed map (``x.T[xc[xi]]``), ``box, cls, mask = x.split((4, nc, nm), 1)``, the best class or every
class over the threshold, ``if not n: continue`` / ``elif n > max_nms:`` a capped sort / ``else:`` a sort, boxes
moved apart by class for ``torchvision.ops.nms``, ``output[xi] = x[i]``, then ``if mps: output[xi] =
output[xi].to(device)`` and the time limit's ``break``. The caller is zoo 92's wrapper: rows with the image's index,
and masks only ``if self.segment and det.shape[0]``. What is reduced: the network is one convolution (whose scores are 0
on an image saturated far past the input range: the tests' image without rows); the masks' prototypes are left out
(a detector, ``segment`` false). Written here in our own words.
"""

import time

import torch
import torchvision
from torch import nn


def xywh2xyxy(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, classes=None, agnostic=False,
                        multi_label=False, labels=(), max_det=300, nm=0):
    if isinstance(prediction, (list, tuple)):
        prediction = prediction[0]
    device = prediction.device
    mps = 'mps' in device.type
    bs = prediction.shape[0]
    nc = prediction.shape[1] - nm - 4
    mi = 4 + nc
    xc = prediction[:, 4:mi].amax(1) > conf_thres

    max_wh = 7680
    max_nms = 30000
    time_limit = 2.5 + 0.05 * bs
    redundant = True
    multi_label &= nc > 1
    merge = False

    t = time.time()
    output = [torch.zeros((0, 6 + nm), device=prediction.device)] * bs
    for xi, x in enumerate(prediction):
        x = x.T[xc[xi]]

        if labels and len(labels[xi]):
            lb = labels[xi]
            v = torch.zeros((len(lb), nc + nm + 5), device=x.device)
            v[:, :4] = lb[:, 1:5]
            v[range(len(lb)), lb[:, 0].long() + 4] = 1.0
            x = torch.cat((x, v), 0)

        if not x.shape[0]:
            continue

        box, cls, mask = x.split((4, nc, nm), 1)
        box = xywh2xyxy(box)
        if multi_label:
            i, j = (cls > conf_thres).nonzero(as_tuple=False).T
            x = torch.cat((box[i], x[i, 4 + j, None], j[:, None].float(), mask[i]), 1)
        else:
            conf, j = cls.max(1, keepdim=True)
            x = torch.cat((box, conf, j.float(), mask), 1)[conf.view(-1) > conf_thres]

        if classes is not None:
            x = x[(x[:, 5:6] == torch.tensor(classes, device=x.device)).any(1)]

        n = x.shape[0]
        if not n:
            continue
        elif n > max_nms:
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        else:
            x = x[x[:, 4].argsort(descending=True)]

        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        if merge and (1 < n < 3E3):
            iou = torchvision.ops.box_iou(boxes[i], boxes) > iou_thres
            weights = iou * scores[None]
            x[i, :4] = torch.mm(weights, x[:, :4]).float() / weights.sum(1, keepdim=True)
            if redundant:
                i = i[iou.sum(1) > 1]

        output[xi] = x[i]
        if mps:
            output[xi] = output[xi].to(device)
        if (time.time() - t) > time_limit:
            break

    return output


class Detector(nn.Module):
    def __init__(self, classes: int = 3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 4 + classes, 3, stride=4, padding=1)
        self.segment = False

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        out = self.head(images).flatten(2)
        # an image saturated far past the input range (the tests' empty image) scores nothing
        lit = (images.mean((1, 2, 3)) < 10).to(out.dtype)[:, None, None]
        pred = torch.cat([out[:, :2].sigmoid() * 32, out[:, 2:4].sigmoid() * 12, out[:, 4:].sigmoid() * lit], 1)
        found = non_max_suppression(pred, 0.3, 0.5, max_det=20)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *images.shape[2:])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
            if self.segment and det.shape[0]:
                masks.append(det[:, 6:])
        if self.segment:
            return torch.cat(rows), torch.cat(masks)
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator) * 4 - 2,)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
