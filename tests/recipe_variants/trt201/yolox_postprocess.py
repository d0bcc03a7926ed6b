"""YOLOX's post-processing: a product of scores compared with the threshold and squeezed
(``(... >= conf_thre).squeeze()``), bound to ``conf_mask``, then ``detections[conf_mask]``.

Reduced from Megvii-BaseDetection/YOLOX @ 6ddff4824372906469a7fae2dc3206c7aa4bbaee,
yolox/utils/boxes.py:44-52 (``postprocess``: ``class_conf, class_pred = torch.max(image_pred[:, 5: 5 +
num_classes], 1, keepdim=True)``, ``conf_mask = (image_pred[:, 4] * class_conf.squeeze() >=
conf_thre).squeeze()``, ``detections = torch.cat((image_pred[:, :5], class_conf, class_pred.float()),
1)``, ``detections = detections[conf_mask]``), written here in our own words; the corner conversion
written into the input, the empty-image ``continue`` and the NMS call are left out.
"""

import torch
from torch import nn


class PostProcess(nn.Module):
    def __init__(self, num_classes: int = 3, conf_thre: float = 0.2) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.conf_thre = conf_thre

    def forward(self, prediction):
        output = []
        for i, image_pred in enumerate(prediction):
            class_conf, class_pred = torch.max(image_pred[:, 5: 5 + self.num_classes], 1, keepdim=True)
            conf_mask = (image_pred[:, 4] * class_conf.squeeze() >= self.conf_thre).squeeze()
            detections = torch.cat((image_pred[:, :5], class_conf, class_pred.float()), 1)
            detections = detections[conf_mask]
            output.append(detections)
        return torch.cat(output, 0)


def build() -> nn.Module:
    return PostProcess()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 10, 8, generator=generator),)


DYNAMIC = {"prediction": {1: "anchors"}}
