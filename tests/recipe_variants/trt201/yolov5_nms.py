"""YOLOv5's NMS pre-filter: a batch-wide candidate mask computed once, then indexed per image
(``x = x[xc[xi]]``), and a second mask on a concatenation (``torch.cat(...)[conf.view(-1) > t]``).

Reduced from ultralytics/yolov5 @ 5081342f04fb287fc2e5f2b5a4e06752b7937b1c,
utils/general.py:686-731 (``non_max_suppression``: ``xc = prediction[..., 4] > conf_thres``,
``x = x[xc[xi]]``, ``x[:, 5:] *= x[:, 4:5]``, ``torch.cat((box, conf, j.float(), mask), 1)[conf.view(-1) >
conf_thres]``), written here in our own words; the empty-image ``continue`` and the NMS call after
the selection are left out (they are not this recipe).
"""

import torch
from torch import nn


def xywh2xyxy(x):
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


class NMSFilter(nn.Module):
    def __init__(self, conf_thres: float = 0.25) -> None:
        super().__init__()
        self.conf_thres = conf_thres

    def forward(self, prediction):
        conf_thres = self.conf_thres
        xc = prediction[..., 4] > conf_thres
        output = []
        for xi, x in enumerate(prediction):
            x = x[xc[xi]]
            x[:, 5:] *= x[:, 4:5]
            box = xywh2xyxy(x[:, :4])
            conf, j = x[:, 5:].max(1, keepdim=True)
            x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
            output.append(x)
        return torch.cat(output, 0)


def build() -> nn.Module:
    return NMSFilter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 12, 8, generator=generator),)


DYNAMIC = {"prediction": {1: "anchors"}}
