"""YOLOv5's ``non_max_suppression`` before ``max_det`` became an argument: each image's NMS picks capped by
``if i.shape[0] > max_det: i = i[:max_det]``.

Reduced from ultralytics/yolov5@2435bfe8968cd80f3caa5ba46f4ec0fe3ad0aa2b utils/general.py:522-571: ``for xi, x in
enumerate(prediction)``, the image's candidates over the objectness threshold (``x = x[xc[xi]]``, the image's own
tensor bound anew), ``if not x.shape[0]: continue``, the best class (``conf, j = x[:, 5:].max(1, keepdim=True)``),
the rows over the confidence threshold, boxes offset by class (``c = x[:, 5:6] * (0 if agnostic else max_wh)``),
``torchvision.ops.nms`` and the cap. There the rows are written into a list made beforehand (``output[xi] = x[i]``),
the class scores are multiplied in place and a time limit stops the loop; here the rows are appended with the
image's index and concatenated, as the zoo's wrappers do. Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45,
                        agnostic: bool = False, max_det: int = 5) -> Tensor:
    max_wh = 4096
    output = []
    for xi, x in enumerate(prediction):
        x = x[x[:, 4] > conf_thres]
        if not x.shape[0]:
            continue
        conf, j = x[:, 5:].max(1, keepdim=True)
        conf = conf * x[:, 4:5]
        x = torch.cat((x[:, :4], conf, j.float()), 1)[conf[:, 0] > conf_thres]
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output.append(torch.cat([x[i], torch.full_like(x[i][:, :1], xi)], 1))
    return torch.cat(output)


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        centre = out[..., :2].sigmoid() * 32
        size = out[..., 2:4].sigmoid() * 12
        boxes = torch.cat([centre - size / 2, centre + size / 2], -1)
        return non_max_suppression(torch.cat([boxes, out[..., 4:].sigmoid()], -1), conf_thres=0.2, iou_thres=0.4)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
