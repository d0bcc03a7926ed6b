"""A detector ensemble's per-image detections padded to a fixed 200 rows with NaN (boxes, scores) and -1 (labels).

Source: neuroinformatics-unit/ethology @ a6abeaeadaa4d62c509d592c9839ccc8c731d087
notebooks/notebook_detect_with_ensemble_vectorized.py:209-247 (``wrapper_model``; ``max_detections_per_image = 200``
at line 196): a torchvision Faster R-CNN (per-image NMS in its ``postprocess_detections``) returns one dict an image;
``for detection_dict in list_detection_dicts:`` takes ``n_detections = detection_dict["boxes"].shape[0]`` and pads
``boxes`` with ``F.pad(..., (0, 0, 0, max_detections_per_image - n_detections), mode="constant", value=np.nan)``,
``scores`` with ``(0, max_... - n_detections)`` and ``value=np.nan``, ``labels`` with ``value=-1``, appends the
padded dict, and returns the list (``torch.vmap`` over the ensemble's models then stacks it model by model). Kept:
the loop's form (count bound first, three ``F.pad`` calls by column with their fill values, a dict appended). Reduced:
the rows are YOLOv7's ``(n, 6)`` detections split into boxes, scores and labels (the R-CNN's dict keys),
``max_detections_per_image`` is 5 (above the NMS's cap, 4); so that the model returns tensors, each key of the list
is stacked after the loop (our addition; the original returns the list). The NMS is YOLOv7's ``non_max_suppression`` reduced from WongKinYiu/yolov7 @ a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:608-700 exactly as ``tests/recipe_variants/trt393/yolov7_nms_padded_rows.py`` (and ``trt360/yolov7_nms_output_by_index.py``) reduce it (its cap ``max_det`` is 4), the per-image loop TRT360 takes.
Written here in our own words.

TRT393 does not take this loop (see the report): the fill is NaN / -1 (``F.pad`` with a ``value``), a dict of
three padded columns is appended, and there is no cap.
"""

import torch.nn.functional as F
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
        self.max_det = 5

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = non_max_suppression(pred, conf_thres=0.1, iou_thres=0.45)
        list_detection_dicts = [{"boxes": d[:, :4], "scores": d[:, 4], "labels": d[:, 5].long()} for d in detections]
        list_detection_dicts_padded = []
        for detection_dict in list_detection_dicts:
            n_detections = detection_dict["boxes"].shape[0]
            detection_dict_padded = {}
            detection_dict_padded["boxes"] = F.pad(
                detection_dict["boxes"], (0, 0, 0, self.max_det - n_detections), mode="constant", value=np.nan)
            detection_dict_padded["scores"] = F.pad(
                detection_dict["scores"], (0, self.max_det - n_detections), mode="constant", value=np.nan)
            detection_dict_padded["labels"] = F.pad(
                detection_dict["labels"], (0, self.max_det - n_detections), mode="constant", value=-1)
            list_detection_dicts_padded.append(detection_dict_padded)
        return tuple(torch.stack([d[key] for d in list_detection_dicts_padded]) for key in ("boxes", "scores", "labels"))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for detection_dict in list_detection_dicts:"
