"""YOLOv7-seg's post-processing: ``non_max_suppression`` with mask coefficients (``nm``), then the caller's loop that
makes each image's rows and, where the image has rows, its masks by ``process_mask`` from the image's prototypes.

Reduced from WongKinYiu/yolov7 @ pypi:sas_yolov7_seg==1.0.6 (the u7 branch's seg/utils/general.py
``non_max_suppression`` and seg/utils/segment/general.py ``crop`` and ``process_mask``, which the default branch's
history lacks, as that wheel packages them: sas_yolov7_seg/utils/general.py:768-870,
sas_yolov7_seg/utils/segment/general.py:6-66; zoo 93's ``yolov7_seg``):
``xc = prediction[..., 4] > conf_thres``, ``mi = 5 + nc``, ``output = [torch.zeros((0, 6 + nm), ...)] * bs``, ``x =
x[xc[xi]]``, ``if not x.shape[0]: continue``, the class scores times objectness in place, ``mask = x[:, mi:]``, the
best class with its mask columns kept, the sort by confidence and ``torchvision.ops.nms`` with class offsets, the cap
``max_det``; ``process_mask`` reads ``c, mh, mw = protos.shape`` and ``masks_in @ protos.float().view(c, -1)``, scales
the boxes down to the prototypes in place on a copy, crops, resizes bilinearly and thresholds in place,
``masks.gt_(0.5)``. The caller is zoo 93's wrapper (``if det.shape[0]:`` then ``if self.retina:`` /
``process_mask_upsample`` else ``process_mask(..., upsample=True)``). Written here in our own words, with two
convolutions in place of the network and four prototypes in place of 32.
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


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45, max_det: int = 6,
                        nm: int = 0) -> list[Tensor]:
    bs = prediction.shape[0]
    nc = prediction.shape[2] - nm - 5
    xc = prediction[..., 4] > conf_thres
    max_wh, max_nms = 4096, 30000
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
        n = x.shape[0]
        if not n:
            continue
        elif n > max_nms:
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        else:
            x = x[x[:, 4].argsort(descending=True)]
        c = x[:, 5:6] * max_wh
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output[xi] = x[i]
    return output


def crop(masks, boxes):
    n, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(boxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


def process_mask_upsample(protos, masks_in, bboxes, shape):
    c, mh, mw = protos.shape
    masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
    masks = F.interpolate(masks[None], shape, mode='bilinear', align_corners=False)[0]
    masks = crop(masks, bboxes)
    return masks.gt_(0.5)


def process_mask(protos, masks_in, bboxes, shape, upsample=False):
    c, mh, mw = protos.shape
    ih, iw = shape
    masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
    downsampled_bboxes = bboxes.clone()
    downsampled_bboxes[:, 0] *= mw / iw
    downsampled_bboxes[:, 2] *= mw / iw
    downsampled_bboxes[:, 3] *= mh / ih
    downsampled_bboxes[:, 1] *= mh / ih
    masks = crop(masks, downsampled_bboxes)
    if upsample:
        masks = F.interpolate(masks[None], shape, mode='bilinear', align_corners=False)[0]
    return masks.gt_(0.5)


class Segmenter(nn.Module):
    """Boxes, objectness, three class scores and four mask coefficients a cell at a quarter of the input; four
    prototypes at half of it."""

    def __init__(self, retina: bool = False) -> None:
        super().__init__()
        self.retina = retina
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.detect = nn.Conv2d(8, 12, kernel_size=3, stride=2, padding=1)
        self.proto = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, images: Tensor) -> tuple[Tensor, Tensor]:
        features = self.stem(images).relu()
        p = self.detect(features).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 12 * p[..., 2:4].sigmoid(), p[..., 4:8].sigmoid(),
                          3 * p[..., 8:]], -1)
        proto = self.proto(features)
        found = non_max_suppression(pred, 0.1, 0.45, max_det=6, nm=4)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *images.shape[2:])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
            if det.shape[0]:
                if self.retina:
                    masks.append(process_mask_upsample(proto[index], det[:, 6:], det[:, :4], images.shape[2:]))
                else:
                    masks.append(process_mask(proto[index], det[:, 6:], det[:, :4], images.shape[2:], upsample=True))
        return torch.cat(rows), torch.cat(masks).float()


def build() -> nn.Module:
    torch.manual_seed(0)
    return Segmenter().requires_grad_(False).eval()


def build_retina() -> nn.Module:
    torch.manual_seed(0)
    return Segmenter(retina=True).requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"images": {0: "batch_size"}}
