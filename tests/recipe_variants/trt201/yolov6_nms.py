"""YOLOv6's NMS pre-filter: the candidate mask is a ``torch.logical_and`` of two thresholds, indexed
per image (``x = x[pred_candidates[img_idx]]``), then a class filter by ``(x[:, 5:6] == classes).any(1)``.

Reduced from meituan/YOLOv6 @ e86a483f3f6bded25d45970b56831345a99744a4,
yolov6/utils/nms.py:48-84 (``non_max_suppression``: ``pred_candidates = torch.logical_and(
prediction[..., 4] > conf_thres, torch.max(prediction[..., 5:], axis=-1)[0] > conf_thres)``,
``x = x[pred_candidates[img_idx]]``, ``x[:, 5:] *= x[:, 4:5]``, ``torch.cat((box, conf,
class_idx.float()), 1)[conf.view(-1) > conf_thres]``, ``x = x[(x[:, 5:6] == torch.tensor(classes,
device=x.device)).any(1)]``), written here in our own words; the NMS call after it is left out.
"""

import torch
from torch import nn


class NMSFilter(nn.Module):
    def __init__(self, conf_thres: float = 0.3, classes=(0, 2)) -> None:
        super().__init__()
        self.conf_thres = conf_thres
        self.classes = classes

    def forward(self, prediction):
        conf_thres = self.conf_thres
        pred_candidates = torch.logical_and(prediction[..., 4] > conf_thres,
                                            torch.max(prediction[..., 5:], axis=-1)[0] > conf_thres)
        output = []
        for img_idx, x in enumerate(prediction):
            x = x[pred_candidates[img_idx]]
            x[:, 5:] *= x[:, 4:5]
            box = torch.cat((x[:, :2] - x[:, 2:4] / 2, x[:, :2] + x[:, 2:4] / 2), 1)
            conf, class_idx = x[:, 5:].max(1, keepdim=True)
            x = torch.cat((box, conf, class_idx.float()), 1)[conf.view(-1) > conf_thres]
            x = x[(x[:, 5:6] == torch.tensor(self.classes, device=x.device)).any(1)]
            output.append(x)
        return torch.cat(output, 0)


def build() -> nn.Module:
    return NMSFilter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 12, 9, generator=generator),)


DYNAMIC = {"prediction": {1: "anchors"}}
