"""PyTorch-YOLOv3's NMS as pytorchyolo 1.8.0 ships it: a pick by (box, class) pairs when the model has more than one
class, a class filter, a pre-cap, and a one-line ``to_cpu`` helper.

Reduced from pytorchyolo 1.8.0 (PyPI; eriklindernoren/PyTorch-YOLOv3) ``pytorchyolo/utils/utils.py:306-374``
(``non_max_suppression``), ``:42-43`` (``to_cpu``: ``return tensor.detach().cpu()``) and ``:86-92`` (``xywh2xyxy``),
the forms zoo 65's ``pytorchyolo_*_nms`` models run: ``multi_label = nc > 1`` with ``nc`` the class columns (a size:
the same for every image), so ``if multi_label:`` picks every (box, class) pair over the threshold with ``i, j = (x[:,
5:] > conf_thres).nonzero(as_tuple=False).T`` and reads each pair's score as ``x[i, j + 5, None]``, where the
``else:`` takes each box's best class; ``if classes is not None:`` keeps the rows of the given classes
(``(x[:, 5:6] == torch.tensor(classes, device=x.device)).any(1)``); ``n = x.shape[0]``, ``if not n: continue`` /
``elif n > max_nms:`` the pre-cap by score; NMS offset by class, the cap ``if i.shape[0] > max_det``, ``output[xi] =
to_cpu(x[i])`` and a time limit. ``pytorch_yolov3_nms_new_shape`` (the same file at an earlier commit) leaves the
multi-label pick, the filter and ``to_cpu`` out. Written here in our own words, with three classes and smaller caps.
"""

import time

import torch
import torchvision
from torch import Tensor, nn


def to_cpu(tensor):
    return tensor.detach().cpu()


def xywh2xyxy(x: Tensor) -> Tensor:
    y = x.new(x.shape)
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.2, iou_thres: float = 0.45, classes=None):
    nc = prediction.shape[2] - 5
    max_wh = 4096
    max_det = 6
    max_nms = 3000
    time_limit = 10.0
    multi_label = nc > 1
    t = time.time()
    output = [torch.zeros((0, 6), device="cpu")] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[x[..., 4] > conf_thres]
        if not x.shape[0]:
            continue
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
        c = x[:, 5:6] * max_wh
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output[xi] = to_cpu(x[i])
        if (time.time() - t) > time_limit:
            print(f"WARNING: NMS time limit {time_limit}s exceeded")
            break
    return output


class Detector(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the NMS."""

    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        at = torch.arange(out.shape[1], dtype=x.dtype)
        centres = torch.stack([at % 8, at // 8], 1) * 4 + out[..., :2].sigmoid() * 4
        prediction = torch.cat([centres, out[..., 2:4].exp() * 6, out[..., 4:].sigmoid()], -1)
        detections = non_max_suppression(prediction)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(detections)])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Four images."""
    return (torch.rand(4, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
