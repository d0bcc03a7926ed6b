"""CoreYOLO's instance segmentation after its head: an NMS that fills the rows and, beside them, each row's mask
coefficients, then its ``process_mask`` on each image's prototypes.

Reduced from zawawiAI/coreyolo @ pypi:coreyolo==0.2.1 (zoo 94's ``coreyolo_dfl_seg``): coreyolo/infer/nms.py:11-78
``non_max_suppression`` (``batch, ch, _ = pred.shape``, ``nc = ch - 4``, two lists made empty, ``for i in
range(batch):``, each image read channels first, ``pred[i, :4].transpose(0, 1)`` and ``extra[i].transpose(0, 1) if
extra is not None else None``, the best class or, for one class, zeros made as many as the rows, a confidence mask on
three tensors at once and on the features under ``if feat is not None:``, a ``classes`` filter, ``if boxes.numel()
== 0:`` appending an empty entry to both lists before ``continue``, ``xywh_to_xyxy(boxes).float()``, classes moved
apart by 7680, ``nms(nms_boxes.cpu(), conf_f.cpu(), iou_thres).to(pred.device)``, ``keep_idx[:max_det]``, the rows
and, under ``if extra is not None:``, ``extra_out.append(feat[keep_idx])``); coreyolo/nn/decode.py:83-85
``xywh_to_xyxy`` (``chunk`` and ``cat``; in its own module there, here in this one); coreyolo/infer/masks.py:9-33
``crop_mask`` and ``process_mask`` (an early ``proto.new_zeros`` where there are no coefficients, ``coeff @
proto.view(nm, -1)``, sigmoid, the crop against ``arange`` grids, a bilinear resize to the input, ``> 0.5``); the
caller is zoo 94's wrapper of its ``Predictor._postprocess`` (the rows with the image's index; under ``if coeffs is
not None:`` each image's masks from ``out[2][index]`` and ``coeffs[index]``). What is reduced: the network is two
convolutions (boxes, three class scores, four coefficients a cell; four prototypes), and a model without the
segmentation head (``Detector``) runs the same NMS with ``extra`` left ``None``. Written here in our own words; an
image filled with 40.0 keeps no candidate (its class scores saturate at 0).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torchvision.ops import nms


def xywh_to_xyxy(boxes: torch.Tensor) -> torch.Tensor:
    c, s = boxes.chunk(2, -1)
    return torch.cat((c - s / 2, c + s / 2), -1)


def non_max_suppression(pred, conf_thres=0.25, iou_thres=0.45, max_det=300, classes=None, extra=None):
    if pred.ndim == 2:
        pred = pred.unsqueeze(0)
    batch, ch, _ = pred.shape
    nc = ch - 4
    out: list[torch.Tensor] = []
    extra_out: list[torch.Tensor] = []
    for i in range(batch):
        boxes = pred[i, :4].transpose(0, 1)
        scores = pred[i, 4:].transpose(0, 1)
        feat = extra[i].transpose(0, 1) if extra is not None else None
        if nc == 1:
            conf, cls_id = scores, torch.zeros(scores.shape[0], device=pred.device, dtype=torch.long)
            conf = conf.squeeze(-1)
        else:
            conf, cls_id = scores.max(1)
        keep = conf > conf_thres
        boxes, conf, cls_id = boxes[keep], conf[keep], cls_id[keep]
        if feat is not None:
            feat = feat[keep]
        if classes is not None:
            allow = torch.zeros_like(cls_id, dtype=torch.bool)
            for c in classes:
                allow |= cls_id == c
            boxes, conf, cls_id = boxes[allow], conf[allow], cls_id[allow]
            if feat is not None:
                feat = feat[allow]
        if boxes.numel() == 0:
            out.append(pred.new_zeros((0, 6)))
            if extra is not None:
                extra_out.append(extra.new_zeros((0, extra.shape[1])))
            continue
        xyxy = xywh_to_xyxy(boxes).float()
        conf_f = conf.float()
        cls_f = cls_id.float()
        max_wh = 7680
        nms_boxes = xyxy + cls_f[:, None] * max_wh
        keep_idx = nms(nms_boxes.cpu(), conf_f.cpu(), iou_thres).to(pred.device)
        keep_idx = keep_idx[:max_det]
        det = torch.cat((xyxy[keep_idx], conf_f[keep_idx, None], cls_f[keep_idx, None]), 1)
        out.append(det.to(dtype=pred.dtype))
        if extra is not None:
            extra_out.append(feat[keep_idx])
    if extra is not None:
        return out, extra_out
    return out


def crop_mask(masks, boxes):
    _, h, w = masks.shape
    x1, y1, x2, y2 = boxes.unbind(1)
    r = torch.arange(w, device=masks.device, dtype=masks.dtype)[None, None, :]
    c = torch.arange(h, device=masks.device, dtype=masks.dtype)[None, :, None]
    x1, y1, x2, y2 = x1[:, None, None], y1[:, None, None], x2[:, None, None], y2[:, None, None]
    return masks * ((r >= x1) * (r < x2) * (c >= y1) * (c < y2))


def process_mask(proto, coeff, boxes_xyxy, imgsz):
    if coeff.numel() == 0:
        return proto.new_zeros((0, imgsz, imgsz), dtype=torch.bool)
    nm, mh, mw = proto.shape
    masks = (coeff @ proto.view(nm, -1)).sigmoid().view(-1, mh, mw)
    gain = boxes_xyxy.new_tensor([mw / imgsz, mh / imgsz, mw / imgsz, mh / imgsz])
    masks = crop_mask(masks, boxes_xyxy * gain)
    masks = F.interpolate(masks.unsqueeze(0), (imgsz, imgsz), mode="bilinear", align_corners=False)[0]
    return masks > 0.5


class Head(nn.Module):
    """Channels first: centre, size and three class scores a cell at a quarter of the input (``(B, 7, cells)``),
    four mask coefficients a cell (``(B, 4, cells)``) and four prototypes at half of it."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.detect = nn.Conv2d(8, 11, kernel_size=3, stride=2, padding=1)
        self.proto = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, images):
        features = self.stem(images).relu()
        p = self.detect(features)
        n, _, h, w = p.shape
        at = torch.arange(h * w, dtype=images.dtype, device=images.device)
        cells = torch.stack([at % w, at // w]) * 4 + 2
        light = F.avg_pool2d(images.mean(1, keepdim=True), 4).flatten(2)
        centres = cells + 4 * (p[:, :2].flatten(2).sigmoid() - 0.5)
        sizes = 12 * p[:, 2:4].flatten(2).sigmoid()
        scores = (p[:, 4:7].flatten(2) - 4 * (light - 0.5)).sigmoid()
        return torch.cat([centres, sizes, scores], 1), 6 * p[:, 7:].flatten(2) + 1, 4 * self.proto(features)


class Segmenter(nn.Module):
    """The rows ``(n, 7)`` (corners, score, class, image) and each row's mask ``(n, S, S)`` as floats."""

    def __init__(self) -> None:
        super().__init__()
        self.model = Head()

    def forward(self, images):
        out = self.model(images)
        found, coeffs = non_max_suppression(out[0], 0.45, 0.45, 6, extra=out[1])
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, images.shape[-1], images.shape[-1])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det, torch.full((det.shape[0], 1), float(index))], 1))
            if coeffs is not None:
                masks.append(process_mask(out[2][index], coeffs[index], det[:, :4], images.shape[-1]).float())
        return torch.cat(rows), torch.cat(masks)


class Detector(nn.Module):
    """The same NMS without mask coefficients: the rows ``(n, 7)``."""

    def __init__(self) -> None:
        super().__init__()
        self.model = Head()

    def forward(self, images):
        found = non_max_suppression(self.model(images)[0], 0.45, 0.45, 6)
        rows = [torch.zeros(0, 7)]
        for index, det in enumerate(found):
            rows.append(torch.cat([det, torch.full((det.shape[0], 1), float(index))], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Segmenter().requires_grad_(False).eval()


def build_detector() -> nn.Module:
    torch.manual_seed(0)
    return Detector().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
