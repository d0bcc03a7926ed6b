"""Super Gradients' conversion of a flat NMS output to TensorRT's batched format: each image's rows zero-padded
to ``max_predictions`` with ``F.pad`` and written by the image's index into a ``(batch, max_predictions, 6)`` tensor
of zeros made before the loop, then split into boxes, scores and classes.

Source: Deci-AI/super-gradients @ 015357da955c272ff6b6170072f3258add8c2c95
src/super_gradients/conversion/onnx/nms.py:48-66 (``ConvertFlatTensorToTRTFormat.forward``): ``batched_predictions =
torch.zeros((self.batch_size, self.max_predictions, 6), dtype=predictions.dtype, device=predictions.device)`` (line
50), then ``for i in range(self.batch_size):`` (57-61) takes image ``i``'s rows ``selected_predictions`` and writes
``batched_predictions[i] = torch.nn.functional.pad(selected_predictions, (0, 0, 0, self.max_predictions -
selected_predictions.size(0)), value=0, mode="constant")``; ``pred_boxes``, ``pred_scores`` and ``pred_classes``
(``.long()``) are slices of it (63-65). There the rows of every image come flat out of ONNX's NonMaxSuppression and
image ``i``'s are picked with a mask of their image column (``predictions[masks[i], 1:]``). Kept: the zeros made before
the loop with the rows' dtype and device, the index loop that picks image ``i``'s rows and writes ``F.pad`` of them
(the four widths, ``value=0``, ``mode="constant"``, ``size(0)``) into slot ``i``, the three slices. Reduced: the
batch is the input's rather than a fixed ``batch_size``, the rows of image ``i`` are entry ``i`` of a per-image NMS's
list (``for i in range(len(detections)): selected_predictions = detections[i]``) in place of the mask over the flat
rows, and ``num_predictions`` (a sum of the masks) is left out. The NMS is YOLOv7's ``non_max_suppression`` as
``yolov7_nms_padded_rows.py`` here reduces it (its cap 4; the padding's 3, so the padding also crops). Written here in
our own words.
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
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, the NMS, the padding."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 3

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = non_max_suppression(pred, conf_thres=0.1, iou_thres=0.45)
        batched_predictions = torch.zeros((x.shape[0], self.max_det, 6), dtype=pred.dtype, device=pred.device)
        for i in range(len(detections)):
            selected_predictions = detections[i]
            batched_predictions[i] = torch.nn.functional.pad(
                selected_predictions, (0, 0, 0, self.max_det - selected_predictions.size(0)), value=0, mode="constant"
            )
        pred_boxes = batched_predictions[:, :, 0:4]
        pred_scores = batched_predictions[:, :, 4]
        pred_classes = batched_predictions[:, :, 5].long()
        return pred_boxes, pred_scores, pred_classes


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i in range(len(detections)):"
