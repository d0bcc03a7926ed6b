"""A YOLOv5-seg fork's post-processing with the MPS move and the time limit kept: ``non_max_suppression`` with mask
coefficients, then ``segment/predict.py``'s loop that, where an image has rows, makes its masks by ``process_mask``.

Reduced from hiennguyen9874/yolov5-seg @ 416b0cbaebbd793bb5fbb75bc13925b592ffea5d: utils/general.py:876-883
``xywh2xyxy`` and 1010-1131 ``non_max_suppression`` (``device = prediction.device``, ``mps = "mps" in device.type``
and ``if mps: prediction = prediction.cpu()``, ``xc = prediction[..., 4] > conf_thres``, ``time_limit = 0.5 + 0.05 *
bs`` and ``t = time.time()``, ``mi = 5 + nc``, ``output = [torch.zeros((0, 6 + nm), ...)] * bs``, ``x = x[xc[xi]]``,
objectness times the class scores in place, the best class with ``mask = x[:, mi:]``, ``if not n: continue`` / ``elif
n > max_nms:`` / ``else:`` sorts, ``torchvision.ops.nms`` with class offsets, ``if i.shape[0] > max_det:``,
``output[xi] = x[i]``, ``if mps: output[xi] = output[xi].to(device)``, the warning and ``break`` past the time
limit); utils/segment/general.py:7-22 ``crop_mask`` and 43-67 ``process_mask`` (``c, mh, mw = protos.shape``,
``masks_in @ protos.float().view(c, -1)``, sigmoid, the boxes scaled down on a copy, the crop, the resize with
``upsample``, ``masks.gt_(0.5)``); segment/predict.py:148-175 (``for i, det in enumerate(pred):``, ``if len(det):``,
``masks = process_mask(proto[i], det[:, 6:], det[:, :4], im.shape[2:], upsample=True)``). Left out: the a-priori
labels, ``classes``, ``multi_label`` and merge-NMS (all off by default); the caller's paths, annotator, box rescaling
to the original image and files: the caller here keeps each image's rows with its index and appends its masks.
Written in our own words, with two convolutions in place of the network and four prototypes in place of 32.
"""

import logging
import time

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torch import Tensor, nn

LOGGER = logging.getLogger(__name__)


def xywh2xyxy(x):
    y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45, agnostic: bool = False,
                        max_det: int = 300, nm: int = 0) -> list[Tensor]:
    device = prediction.device
    mps = "mps" in device.type
    if mps:
        prediction = prediction.cpu()
    bs = prediction.shape[0]
    nc = prediction.shape[2] - nm - 5
    xc = prediction[..., 4] > conf_thres
    max_wh = 7680
    max_nms = 30000
    time_limit = 0.5 + 0.05 * bs
    t = time.time()
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
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output[xi] = x[i]
        if mps:
            output[xi] = output[xi].to(device)
        if (time.time() - t) > time_limit:
            LOGGER.warning(f"NMS time limit {time_limit:.3f}s exceeded")
            break
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
        pred = non_max_suppression(pred, 0.1, 0.45, max_det=6, nm=4)
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
