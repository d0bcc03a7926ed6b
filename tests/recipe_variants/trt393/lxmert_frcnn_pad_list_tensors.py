"""The LXMERT/VisualBERT demo's Faster R-CNN: per-image NMS results padded to ``max_detections`` rows and stacked.

Source: huggingface/transformers @ 2782171f27770c128adbfbcf7b30451469164235
examples/research_projects/lxmert/modeling_frcnn.py, ``pad_list_tensors`` (lines 46-112; the loop 80-106, the
stack 110) and its caller ``GeneralizedRCNN.inference`` near the end of the file (``preds_per_image =
torch.tensor([p.size(0) for p in boxes])`` then ``boxes = pad_list_tensors(boxes, preds_per_image,
**subset_kwargs)``). There each image's boxes come from ``do_nms`` run image by image (``keep = nms(...);
keep = keep[:maxd]``), and with ``padding="max_detections", return_tensors="pt"`` the list is padded and stacked
into ``(images, max_detections, 4)``. Kept: the loop over ``range(len(list_tensors))`` that pops the list's first
entry, ``nn.functional.pad(input=..., pad=(0, 0, 0, max_detections - preds_per_image[i]), mode="constant",
value=pad_value)`` (``pad_value`` 0 by default), ``new.append``, ``torch.stack(new, dim=0)``; the count of each
image's rows a separate tensor made by the caller. Reduced: the other ``padding``/``return_tensors``/``location``
branches and the 1-d ``too_small`` case are left out; the rows are YOLOv7's ``(n, 6)`` detections rather than the
R-CNN's boxes, and ``max_detections`` (5) is above the NMS's cap (4), as ``do_nms``'s ``maxd`` keeps it there
(a negative pad would crop). The NMS is YOLOv7's ``non_max_suppression`` reduced from WongKinYiu/yolov7 @ a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:608-700 exactly as ``tests/recipe_variants/trt393/yolov7_nms_padded_rows.py`` (and ``trt360/yolov7_nms_output_by_index.py``) reduce it (its cap ``max_det`` is 4), the per-image loop TRT360 takes. Written here in our own words.

TRT393 does not take this loop (see the report): no ``rows = []`` right before a ``for det in detections`` loop
(an index loop that pops), ``F.pad`` by keywords with a ``mode`` and a ``value``, the count not ``det.shape[0]``.
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


def pad_list_tensors(list_tensors, preds_per_image, max_detections, pad_value=0):
    new = []
    for i in range(len(list_tensors)):
        tensor_i = list_tensors.pop(0)
        tensor_i = nn.functional.pad(
            input=tensor_i,
            pad=(0, 0, 0, max_detections - preds_per_image[i]),
            mode="constant",
            value=pad_value,
        )
        new.append(tensor_i)
    return torch.stack(new, dim=0)


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the NMS."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 5

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = non_max_suppression(pred, conf_thres=0.1, iou_thres=0.45)
        preds_per_image = torch.tensor([p.size(0) for p in detections])
        return pad_list_tensors(detections, preds_per_image, max_detections=self.max_det, pad_value=0)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i in range(len(list_tensors)):"
