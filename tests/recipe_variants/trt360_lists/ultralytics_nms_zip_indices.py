"""The ultralytics package's ``non_max_suppression`` as 8.4 has it: the batch zipped with each candidate's index,
columns written in place, NMS through torchvision where it is imported (inside the loop), the kept indices of a
second list under ``return_idxs``, the time limit.

Reduced from ultralytics/ultralytics @ pypi:ultralytics==8.4.190: ultralytics/utils/nms.py:13-169
(``non_max_suppression``: the checks, a list's first entry, ``classes`` made a tensor; the end-to-end branch for
``prediction.shape[-1] == 6``; ``bs``, ``nc``, ``extra``, ``mi``, ``xc = prediction[:, 4:mi].amax(1) > conf_thres``,
``xinds = torch.arange(prediction.shape[-1], ...).expand(bs, -1)[..., None]``, the time limit, ``multi_label &= nc >
1``, ``prediction = prediction.transpose(-1, -2)``, both lists made as one empty tensor an image, ``use_torchvision``;
``for xi, (x, xk) in enumerate(zip(prediction, xinds)):``, ``x = x[filt]``, ``if not rotated: x[:, :4] =
xywh2xyxy(x[:, :4])``, ``if return_idxs: xk = xk[filt]``, ``if not x.shape[0]: continue``, ``box, cls, mask =
x.split((4, nc, extra), 1)``, ``multi_label`` or the best class, the ``classes`` filter, ``n = x.shape[0]``, ``if not
n: continue``, ``if n > max_nms:`` a sort and cut, classes moved apart, ``if rotated:`` / ``else:`` with ``if
use_torchvision: import torchvision`` / ``i = torchvision.ops.nms(...)`` / ``else: i = TorchNMS.nms(...)``, ``i =
i[:max_det]``, ``output[xi] = x[i]``, ``if return_idxs: keepi[xi] = xk[i].view(-1)``, the time limit's ``break``);
ultralytics/utils/ops.py:264-284 ``xywh2xyxy`` and 745-747 ``empty_like``. Left out: the rotated boxes' NMS
(``TorchNMS.fast_nms`` with ``batch_probiou``) and ``TorchNMS.nms`` (the branches not taken when torchvision is
imported), the logger's warning text. The caller is a predictor's: each image's rows with its index. Written here in
our own words, with one convolution in place of the network; an image filled with 40.0 keeps no candidate.
"""

import sys
import time

import numpy as np
import torch
import torchvision
from torch import nn
from torch.nn import functional as F


def empty_like(x):
    return torch.empty_like(x, dtype=x.dtype) if isinstance(x, torch.Tensor) else np.empty_like(x, dtype=x.dtype)


def xywh2xyxy(x):
    if isinstance(x, (list, tuple)):
        x = np.asarray(x, dtype=np.float32)
    assert x.shape[-1] == 4, f"input shape last dimension expected 4 but input shape is {x.shape}"
    y = empty_like(x)
    xy = x[..., :2]
    wh = x[..., 2:] / 2
    y[..., :2] = xy - wh
    y[..., 2:] = xy + wh
    return y


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, classes=None, agnostic=False,
                        multi_label=False, max_det=300, nc=0, max_time_img=0.05, max_nms=30000, max_wh=7680,
                        rotated=False, end2end=False, return_idxs=False):
    assert 0 <= conf_thres <= 1, f"Invalid Confidence threshold {conf_thres}"
    assert 0 <= iou_thres <= 1, f"Invalid IoU {iou_thres}"
    if isinstance(prediction, (list, tuple)):
        prediction = prediction[0]
    if classes is not None:
        classes = torch.tensor(classes, device=prediction.device)

    if prediction.shape[-1] == 6 or end2end:
        output, keepi = [], []
        for pred in prediction:
            mask = pred[:, 4] > conf_thres
            if classes is not None:
                mask &= (pred[:, 5:6] == classes).any(1)
            idx = mask.nonzero(as_tuple=False).view(-1)[:max_det]
            output.append(pred[idx].float())
            keepi.append(idx)
        return (output, keepi) if return_idxs else output

    bs = prediction.shape[0]
    nc = nc or (prediction.shape[1] - 4)
    extra = prediction.shape[1] - nc - 4
    mi = 4 + nc
    xc = prediction[:, 4:mi].amax(1) > conf_thres
    xinds = torch.arange(prediction.shape[-1], device=prediction.device).expand(bs, -1)[..., None]

    time_limit = 2.0 + max_time_img * bs
    multi_label &= nc > 1

    prediction = prediction.transpose(-1, -2)

    t = time.time()
    output = [torch.zeros((0, 6 + extra), device=prediction.device)] * bs
    keepi = [torch.zeros((0, 1), device=prediction.device)] * bs
    use_torchvision = prediction.device.type != "xpu" and "torchvision" in sys.modules
    for xi, (x, xk) in enumerate(zip(prediction, xinds)):
        filt = xc[xi]
        x = x[filt]
        if not rotated:
            x[:, :4] = xywh2xyxy(x[:, :4])
        if return_idxs:
            xk = xk[filt]

        if not x.shape[0]:
            continue

        box, cls, mask = x.split((4, nc, extra), 1)

        if multi_label:
            i, j = torch.where(cls > conf_thres)
            x = torch.cat((box[i], x[i, 4 + j, None], j[:, None].float(), mask[i]), 1)
            if return_idxs:
                xk = xk[i]
        else:
            conf, j = cls.max(1, keepdim=True)
            filt = conf.view(-1) > conf_thres
            x = torch.cat((box, conf, j.float(), mask), 1)[filt]
            if return_idxs:
                xk = xk[filt]

        if classes is not None:
            filt = (x[:, 5:6] == classes).any(1)
            x = x[filt]
            if return_idxs:
                xk = xk[filt]

        n = x.shape[0]
        if not n:
            continue
        if n > max_nms:
            filt = x[:, 4].argsort(descending=True)[:max_nms]
            x = x[filt]
            if return_idxs:
                xk = xk[filt]

        c = x[:, 5:6] * (0 if agnostic else max_wh)
        scores = x[:, 4]
        if rotated:
            raise NotImplementedError("rotated boxes: left out of this reduction")
        else:
            boxes = x[:, :4] + c
            if use_torchvision:
                import torchvision

                i = torchvision.ops.nms(boxes, scores, iou_thres)
            else:
                raise NotImplementedError("ultralytics' own NMS: left out of this reduction")
        i = i[:max_det]

        output[xi] = x[i]
        if return_idxs:
            keepi[xi] = xk[i].view(-1)
        if (time.time() - t) > time_limit:
            break

    return (output, keepi) if return_idxs else output


class Predict(nn.Module):
    """A YOLOv8-like head (centre and size, three class scores, two extra channels a cell, channels first) and the
    NMS, then each image's rows with its index as a predictor keeps them."""

    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 4 + 3 + 2, 3, stride=4, padding=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        out = self.head(images)
        n, _, h, w = out.shape
        light = F.avg_pool2d(images.mean(1, keepdim=True), 4).flatten(2)
        at = torch.arange(h * w, dtype=images.dtype, device=images.device)
        cells = torch.stack([at % w, at // w]) * 4 + 2
        centres = cells + 4 * (out[:, :2].flatten(2).sigmoid() - 0.5)
        sizes = 12 * out[:, 2:4].flatten(2).sigmoid()
        scores = (out[:, 4:7].flatten(2) - 4 * (light - 0.5)).sigmoid()
        prediction = torch.cat([centres, sizes, scores, out[:, 7:].flatten(2)], 1)
        found = non_max_suppression(prediction, 0.45, 0.45, max_det=6, nc=3)
        rows = [torch.zeros(0, 9)]
        for index, det in enumerate(found):
            rows.append(torch.cat([det, torch.full((det.shape[0], 1), float(index))], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Predict().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
