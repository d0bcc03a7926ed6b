"""PyTorch-YOLOv3's NMS image by image: a confidence mask, corners from centres, NMS offset by class, a cap.

Reduced from eriklindernoren/PyTorch-YOLOv3@1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7 pytorchyolo/utils/utils.py:306-374
(``non_max_suppression``) and its ``xywh2xyxy`` (:86-92, which makes ``y = x.new(x.shape)`` and sets ``y[..., k]``):
``output = [torch.zeros((0, 6), device="cpu")] * prediction.shape[0]``, ``for xi, x in enumerate(prediction):``,
``x = x[x[..., 4] > conf_thres]``, ``if not x.shape[0]: continue``, ``x[:, 5:] *= x[:, 4:5]``, ``box =
xywh2xyxy(x[:, :4])``, the best class, ``n = x.shape[0]`` with ``if not n: continue``, boxes offset by class for
``torchvision.ops.nms``, ``if i.shape[0] > max_det: i = i[:max_det]``, ``output[xi] = to_cpu(x[i])`` (here
``x[i].detach().cpu()``, what its ``to_cpu`` does), a time limit. Its ``if multi_label:``, ``if classes is not None:``
and ``elif n > max_nms:`` are YOLOv7's (``yolov7_nms_output_by_index``) and left out here. The list is flattened by
the caller with the image's index (TRT361). Written here in our own words, with a smaller cap.
"""

import time

import torch
import torchvision
from torch import Tensor, nn


def xywh2xyxy(x: Tensor) -> Tensor:
    y = x.new(x.shape)
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.2, iou_thres: float = 0.45):
    max_wh = 4096
    max_det = 5
    time_limit = 10.0
    t = time.time()
    output = [torch.zeros((0, 6), device="cpu")] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[x[..., 4] > conf_thres]
        if not x.shape[0]:
            continue
        x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        n = x.shape[0]
        if not n:
            continue
        c = x[:, 5:6] * max_wh
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output[xi] = x[i].detach().cpu()
        if (time.time() - t) > time_limit:
            print(f"WARNING: NMS time limit {time_limit}s exceeded")
            break
    return output


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        at = torch.arange(out.shape[1], dtype=x.dtype)
        centres = torch.stack([at % 8, at // 8], 1) * 4 + out[..., :2].sigmoid() * 4  # the YOLO layer's decoding
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
