"""Ultralytics' export-time NMS (``NMSModel``): each image's kept detections zero-padded to ``max_det`` rows with
``F.pad`` and written into a ``(batch, max_det, C)`` tensor of zeros made before the loop.

Source: ultralytics/ultralytics @ a88c763964379c24f19646ffa05fbac8116c2872 ultralytics/engine/exporter.py,
``NMSModel.forward`` (the last statements of the file; the snapshot is too large to fetch, so the lines were not
counted): ``out = torch.zeros(bs, self.args.max_det, boxes.shape[-1] + 2 + extra_shape, **kwargs)``, then ``for i in
range(bs):`` ... ``keep = nms_fn(...)[: self.args.max_det]``, ``dets = torch.cat([box[keep], score[keep].view(-1, 1),
cls[keep].view(-1, 1).to(out.dtype), extra[keep]], dim=-1)``, "Zero-pad to max_det size to avoid reshape error":
``pad = (0, 0, 0, self.args.max_det - dets.shape[0])``, ``out[i] = torch.nn.functional.pad(dets, pad)``; ``return
out[:bs]``. This is the graph Ultralytics exports with ``nms=True`` for ONNX/TensorRT. Kept: the zeros made before
the loop, the pad widths bound to a name, ``out[i] = F.pad(dets, pad)`` by the image's index, the cap made by the NMS
(no ``dets[:k]`` in the padding). Reduced: in Ultralytics the NMS and the padding are one loop over ``range(bs)``;
here the NMS is a separate per-image loop (The NMS is YOLOv7's ``non_max_suppression`` reduced from WongKinYiu/yolov7 @ a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:608-700 exactly as ``tests/recipe_variants/trt393/yolov7_nms_padded_rows.py`` (and ``trt360/yolov7_nms_output_by_index.py``) reduce it (its cap ``max_det`` is 4), the per-image loop TRT360 takes.) and the padding loop runs over its
list with ``enumerate``, the padding's ``max_det`` the NMS's cap (4). Written here in our own words.

TRT393 does not take this loop (see the report): the padded tensor is preallocated and written by index rather
than appended to a list and stacked, and there is no cap ``dets = dets[:k]`` in the loop.
"""

import time

import numpy as np
import torch
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
                        agnostic: bool = False, multi_label: bool = False, labels=()) -> list[Tensor]:
    nc = prediction.shape[2] - 5
    xc = prediction[..., 4] > conf_thres
    max_wh, max_det, max_nms, time_limit = 4096, 4, 30000, 10.0
    merge = False
    t = time.time()
    output = [torch.zeros((0, 6), device=prediction.device)] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if labels and len(labels[xi]):
            x = torch.cat((x, labels[xi]), 0)
        if not x.shape[0]:
            continue
        if nc == 1:
            x[:, 5:] = x[:, 4:5]
        else:
            x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        if multi_label:
            i, j = (x[:, 5:] > conf_thres).nonzero(as_tuple=False).T
            x = torch.cat((box[i], x[i, j + 5, None], j[:, None].float()), 1)
        else:
            conf, j = x[:, 5:].max(1, keepdim=True)
            x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        if classes is not None:
            x = x[(x[:, 5:6] == torch.tensor(classes, device=x.device)).any(1)]
        n = x.shape[0]
        if not n:
            continue
        elif n > max_nms:
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        if merge and (1 < n < 3E3):
            i = i[:1]
        output[xi] = x[i]
        if (time.time() - t) > time_limit:
            print(f"WARNING: NMS time limit {time_limit}s exceeded")
            break
    return output


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the NMS."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 4

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = non_max_suppression(pred, conf_thres=0.1, iou_thres=0.45)
        out = torch.zeros(x.shape[0], self.max_det, 6, dtype=pred.dtype, device=pred.device)
        for i, dets in enumerate(detections):
            pad = (0, 0, 0, self.max_det - dets.shape[0])
            out[i] = torch.nn.functional.pad(dets, pad)
        return out


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i, dets in enumerate(detections):"
