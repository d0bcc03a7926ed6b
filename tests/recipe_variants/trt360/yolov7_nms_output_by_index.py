"""YOLOv7's ``non_max_suppression``: a list of one empty tensor an image made before the loop and written by the
image's index, ``continue`` on an image without candidates, the cap ``if i.shape[0] > max_det``, a time limit; its
caller flattens the list with the image's index (TRT361).

Reduced from WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:608-700 (yolov7-package
0.0.13's utils/general.py:605-684, zoo 19's ``y7_idetect_nms``): ``xc = prediction[..., 4] > conf_thres`` before the
loop, ``output = [torch.zeros((0, 6), device=prediction.device)] * prediction.shape[0]``, ``for xi, x in
enumerate(prediction)``, ``x = x[xc[xi]]``, ``if not x.shape[0]: continue``, the best class, boxes offset by class,
``torchvision.ops.nms``, ``if i.shape[0] > max_det: i = i[:max_det]``, ``output[xi] = x[i]`` and ``if (time.time() -
t) > time_limit: ... break``. There the class scores are multiplied in place, ``xywh2xyxy`` converts the boxes, the
rows are kept by ``conf.view(-1) > conf_thres``, a second ``if not n: continue`` / ``elif n > max_nms:`` pre-caps by
``argsort`` and ``labels``, ``classes``, ``multi_label`` and ``merge`` branch on settings; here the boxes are corners
already and none of those. The caller is zoo 19's comprehension (benchmarks/real_zoo19.py's ``_ROWS``). Written here
in our own words.
"""

import time

import torch
import torchvision
from torch import Tensor, nn


def non_max_suppression(prediction: Tensor, conf_thres: float = 0.25, iou_thres: float = 0.45,
                        agnostic: bool = False) -> list[Tensor]:
    max_wh, max_det, time_limit = 4096, 4, 10.0
    xc = prediction[..., 4] > conf_thres
    t = time.time()
    output = [torch.zeros((0, 6), device=prediction.device)] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if not x.shape[0]:
            continue
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = torch.cat((x[:, :4], conf * x[:, 4:5], j.float()), 1)[conf[:, 0] * x[:, 4] > conf_thres]
        c = x[:, 5:6] * (0 if agnostic else max_wh)
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:
            i = i[:max_det]
        output[xi] = x[i]
        if (time.time() - t) > time_limit:
            print(f"WARNING: NMS time limit {time_limit}s exceeded")
            break
    return output


class Model(nn.Module):
    """One strided convolution: corner boxes, objectness and three class scores a cell, then the NMS."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        p = self.m(x).flatten(2).transpose(1, 2)
        xy = 28 * p[..., :2].sigmoid()
        pred = torch.cat([xy, xy + 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        out = non_max_suppression(pred, conf_thres=0.2, iou_thres=0.45)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
