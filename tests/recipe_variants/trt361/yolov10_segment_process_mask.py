"""YOLOv10's copy of ultralytics' segmentation post-processing: ``ops.non_max_suppression`` on channels-first
predictions with ``nc`` given (the columns after the classes are the mask coefficients), then
``SegmentationPredictor.postprocess``'s loop over the images that makes an image's masks from its prototypes by
``ops.process_mask`` unless the image has no rows.

Reduced from THU-MIG/yolov10 @ 453c6e38a51e9d1d5a2aa5fb7f1014a711913397: ultralytics/utils/ops.py:402-421
``xywh2xyxy`` (an empty tensor filled from the half width and height), 163-302 ``non_max_suppression`` (``nm =
prediction.shape[1] - nc - 4``, ``mi = 4 + nc``, ``xc = prediction[:, 4:mi].amax(1) > conf_thres`` before
``prediction = prediction.transpose(-1, -2)`` and the boxes made corners in place, ``output = [torch.zeros((0, 6 +
nm), ...)] * bs``, ``for xi, x in enumerate(prediction):``, ``x = x[xc[xi]]``, ``if not x.shape[0]: continue``, ``box,
cls, mask = x.split((4, nc, nm), 1)``, the best class with its mask columns, ``n = x.shape[0]`` / ``if not n:
continue`` / ``if n > max_nms:`` the sort cut, ``scores = x[:, 4]``, ``boxes = x[:, :4] + c`` and
``torchvision.ops.nms``, ``i = i[:max_det]``, ``output[xi] = x[i]``), 630-646 ``crop_mask`` and 670-701
``process_mask`` (``c, mh, mw = protos.shape``, ``masks_in @ protos.float().view(c, -1)``, sigmoid, the width and
height ratios, the boxes scaled down on a copy, the crop, the bilinear resize with ``upsample``, ``masks.gt_(0.5)``);
ultralytics/models/yolo/segment/predict.py:28-57 (``proto = preds[1][-1] if isinstance(preds[1], tuple) else
preds[1]``, ``for i, pred in enumerate(p):``, ``if not len(pred):`` no masks for the image, else
``ops.process_mask(proto[i], pred[:, 6:], pred[:, :4], img.shape[2:], upsample=True)``). Left out: the a-priori labels,
``classes``, ``multi_label``, rotated boxes and the time limit (all off by default); the caller's ``retina_masks``
branch (``process_mask_native`` on boxes scaled to the original image), its original images, paths and ``Results``:
the caller here keeps each image's rows with its index and appends the image's masks, an empty tensor in place of
``None`` where it has no rows, and calls ``process_mask`` of this file in place of the ``ops`` module's. Written in
our own words, with two convolutions in place of the network and four prototypes in place of 32.

Not taken (TRT360 names the NMS loop and does not rewrite it): ``output = [...] * bs`` with ``bs =
prediction.shape[0]`` bound before ``prediction = prediction.transpose(-1, -2)`` rebinds ``prediction`` (the count is
not known as the batch's), and ``if n > max_nms: x = x[x[:, 4].argsort(descending=True)[:max_nms]]`` with no
``else`` (the sort only past ``max_nms``). With both written YOLOv5's way, TRT361 still leaves the caller as it is:
its masks are an ``if not len(pred): ... else: ...`` binding appended after the test, not ``masks.append`` under a
test that the image has rows.
"""

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torch import Tensor, nn


def xywh2xyxy(x):
    y = torch.empty_like(x) if isinstance(x, torch.Tensor) else np.empty_like(x)
    dw = x[..., 2] / 2
    dh = x[..., 3] / 2
    y[..., 0] = x[..., 0] - dw
    y[..., 1] = x[..., 1] - dh
    y[..., 2] = x[..., 0] + dw
    y[..., 3] = x[..., 1] + dh
    return y


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45, agnostic: bool = False,
                        max_det: int = 300, nc: int = 0, max_nms: int = 30000, max_wh: int = 7680,
                        in_place: bool = True) -> list[Tensor]:
    bs = prediction.shape[0]
    nc = nc or (prediction.shape[1] - 4)
    nm = prediction.shape[1] - nc - 4
    mi = 4 + nc
    xc = prediction[:, 4:mi].amax(1) > conf_thres
    prediction = prediction.transpose(-1, -2)
    if in_place:
        prediction[..., :4] = xywh2xyxy(prediction[..., :4])
    else:
        prediction = torch.cat((xywh2xyxy(prediction[..., :4]), prediction[..., 4:]), dim=-1)
    output = [torch.zeros((0, 6 + nm), device=prediction.device)] * bs
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if not x.shape[0]:
            continue
        box, cls, mask = x.split((4, nc, nm), 1)
        conf, j = cls.max(1, keepdim=True)
        x = torch.cat((box, conf, j.float(), mask), 1)[conf.view(-1) > conf_thres]
        n = x.shape[0]
        if not n:
            continue
        if n > max_nms:
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        scores = x[:, 4]
        boxes = x[:, :4] + c
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        i = i[:max_det]
        output[xi] = x[i]
    return output


def crop_mask(masks, boxes):
    _, h, w = masks.shape
    x1, y1, x2, y2 = torch.chunk(boxes[:, :, None], 4, 1)
    r = torch.arange(w, device=masks.device, dtype=x1.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=x1.dtype)[None, :, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


def process_mask(protos, masks_in, bboxes, shape, upsample=False):
    c, mh, mw = protos.shape
    ih, iw = shape
    masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
    width_ratio = mw / iw
    height_ratio = mh / ih
    downsampled_bboxes = bboxes.clone()
    downsampled_bboxes[:, 0] *= width_ratio
    downsampled_bboxes[:, 2] *= width_ratio
    downsampled_bboxes[:, 3] *= height_ratio
    downsampled_bboxes[:, 1] *= height_ratio
    masks = crop_mask(masks, downsampled_bboxes)
    if upsample:
        masks = F.interpolate(masks[None], shape, mode="bilinear", align_corners=False)[0]
    return masks.gt_(0.5)


class SegmentationPredictor(nn.Module):
    """Channels first: four box values, three class scores and four mask coefficients a cell at a quarter of the
    input; four prototypes at half of it, returned as a tuple beside them as the PyTorch model does."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.detect = nn.Conv2d(8, 11, kernel_size=3, stride=2, padding=1)
        self.proto = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, img: Tensor) -> tuple[Tensor, Tensor]:
        features = self.stem(img).relu()
        d = self.detect(features).flatten(2)
        head = torch.cat([28 * d[:, :2].sigmoid(), 12 * d[:, 2:4].sigmoid(), d[:, 4:7].sigmoid(), 3 * d[:, 7:]], 1)
        preds = (head, (None, None, self.proto(features)))
        p = non_max_suppression(preds[0], 0.1, 0.45, max_det=6, nc=3)
        proto = preds[1][-1] if isinstance(preds[1], tuple) else preds[1]
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *img.shape[2:])]
        for i, pred in enumerate(p):
            rows.append(torch.cat([pred[:, :6], torch.full((pred.shape[0], 1), float(i))], 1))
            if not len(pred):
                image_masks = torch.zeros(0, *img.shape[2:])
            else:
                image_masks = process_mask(proto[i], pred[:, 6:], pred[:, :4], img.shape[2:], upsample=True)
            masks.append(image_masks)
        return torch.cat(rows), torch.cat(masks).float()


def build() -> nn.Module:
    torch.manual_seed(0)
    return SegmentationPredictor().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"img": {0: "batch_size"}}
