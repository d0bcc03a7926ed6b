"""A YOLOv5-seg v7.0 copy (the segmentation scripts at the top of the repository): ``non_max_suppression`` with
mask coefficients and its ``classes`` filter, then ``predict.py``'s loop that, where an image has rows, makes its
masks by ``process_mask``.

Reduced from z1069614715/yolov5-seg @ 1a2eb145f649ab3d412221868708c159d9b8ee6a: utils/general.py:760-767
``xywh2xyxy`` and 884-999 ``non_max_suppression`` (``xc = prediction[..., 4] > conf_thres``, ``mi = 5 + nc``,
``output = [torch.zeros((0, 6 + nm), ...)] * bs``, ``x = x[xc[xi]]``, objectness times the class scores in place, the
best class with ``mask = x[:, mi:]``, ``if classes is not None:`` the rows of the classes asked for (``(x[:, 5:6] ==
torch.tensor(classes, device=x.device)).any(1)``), ``if not n: continue`` / ``elif n > max_nms:`` / ``else:`` sorts,
``torchvision.ops.nms`` with class offsets, ``if i.shape[0] > max_det:``, ``output[xi] = x[i]``);
utils/segment/general.py:7-22 ``crop_mask`` and 43-67 ``process_mask`` (``c, mh, mw = protos.shape``, ``masks_in @
protos.float().view(c, -1)``, sigmoid, the boxes scaled down to the prototypes on a copy, the crop, the resize with
``upsample``, ``masks.gt_(0.5)``); predict.py:133-154 (``non_max_suppression(pred, conf_thres, iou_thres, classes,
agnostic_nms, max_det=max_det, nm=32)``, ``for i, det in enumerate(pred):``, ``if len(det):``, ``process_mask(proto[i],
det[:, 6:], det[:, :4], im.shape[2:], upsample=True)``). Left out: the MPS copy, the a-priori labels, ``multi_label``,
merge-NMS and the time limit (all off by default); the caller's paths, annotator, box rescaling to the original image
and files: the caller here keeps each image's rows with its index and appends its masks. The model asks for classes
0 and 2 of three. Written in our own words, with two convolutions in place of the network and four prototypes in
place of 32.
"""

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torch import Tensor, nn


def xywh2xyxy(x):
    y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45, classes=None,
                        agnostic: bool = False, max_det: int = 300, nm: int = 0) -> list[Tensor]:
    bs = prediction.shape[0]
    nc = prediction.shape[2] - nm - 5
    xc = prediction[..., 4] > conf_thres
    max_wh = 7680
    max_nms = 30000
    mi = 5 + nc
    output = [torch.zeros((0, 6 + nm), device=prediction.device)] * bs
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if not x.shape[0]:
            continue
        x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        mask = x[:, mi:]
        conf, j = x[:, 5:mi].max(1, keepdim=True)
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
        output[xi] = x[i]
    return output


def crop_mask(masks, boxes):
    n, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(boxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


def process_mask(protos, masks_in, bboxes, shape, upsample=False):
    c, mh, mw = protos.shape
    ih, iw = shape
    masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
    downsampled_bboxes = bboxes.clone()
    downsampled_bboxes[:, 0] *= mw / iw
    downsampled_bboxes[:, 2] *= mw / iw
    downsampled_bboxes[:, 3] *= mh / ih
    downsampled_bboxes[:, 1] *= mh / ih
    masks = crop_mask(masks, downsampled_bboxes)
    if upsample:
        masks = F.interpolate(masks[None], shape, mode="bilinear", align_corners=False)[0]
    return masks.gt_(0.5)


class SegmentPredict(nn.Module):
    """Boxes, objectness, three class scores and four mask coefficients a cell at a quarter of the input; four
    prototypes at half of it."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.detect = nn.Conv2d(8, 12, kernel_size=3, stride=2, padding=1)
        self.proto = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, im: Tensor) -> tuple[Tensor, Tensor]:
        features = self.stem(im).relu()
        p = self.detect(features).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 12 * p[..., 2:4].sigmoid(), p[..., 4:8].sigmoid(),
                          3 * p[..., 8:]], -1)
        proto = self.proto(features)
        pred = non_max_suppression(pred, 0.1, 0.45, [0, 2], False, max_det=6, nm=4)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *im.shape[2:])]
        for i, det in enumerate(pred):
            rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(i))], 1))
            if len(det):
                masks.append(process_mask(proto[i], det[:, 6:], det[:, :4], im.shape[2:], upsample=True))
        return torch.cat(rows), torch.cat(masks).float()


def build() -> nn.Module:
    torch.manual_seed(0)
    return SegmentPredict().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"im": {0: "batch_size"}}
