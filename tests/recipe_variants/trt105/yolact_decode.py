"""YOLACT's box decoding: ``decode`` is a ``@torch.jit.script`` function that branches on a
``bool`` argument, ``if use_yolo_regressors:`` (YOLOv2-style offsets, then ``point_form``) or else
SSD-style offsets with variances, whose arm also writes the boxes in place
(``boxes[:, :2] -= boxes[:, 2:] / 2``); ``Detect`` calls it per image with the default,
``decode(loc_data[batch_idx], prior_data)``.

Reduced from dbolya/yolact at commit 902073d414728280b496c5f0a59a8e8285b3c13c (2025-09-08):
layers/box_utils.py, ``point_form`` (lines 7-17, also scripted, no control flow) and ``decode``
(lines 267-313), and layers/functions/detection.py, ``Detect.__call__`` (lines 53-78; the call at
line 70). Written here in our own words: the network is one convolution per output, the priors
are an input, and the per-image NMS and mask assembly after the decoding are left out (the module
returns the decoded boxes with each prior's best class score). The loop over the images of the
batch is kept, so the batch is not a dynamic axis here; the number of priors is.
"""

import torch
from torch import nn


@torch.jit.script
def point_form(boxes):
    return torch.cat((boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2), 1)


@torch.jit.script
def decode(loc, priors, use_yolo_regressors:bool=False):
    if use_yolo_regressors:
        boxes = torch.cat((
            loc[:, :2] + priors[:, :2],
            priors[:, 2:] * torch.exp(loc[:, 2:])
        ), 1)
        boxes = point_form(boxes)
    else:
        variances = [0.1, 0.2]
        boxes = torch.cat((
            priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
            priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1)
        boxes[:, :2] -= boxes[:, 2:] / 2
        boxes[:, 2:] += boxes[:, :2]
    return boxes


class Detect(nn.Module):
    def __init__(self, num_classes: int = 3) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.loc = nn.Linear(8, 4)
        self.conf = nn.Linear(8, num_classes)

    def forward(self, features, prior_data):
        loc_data = 0.5 * torch.tanh(self.loc(features))
        conf_data = self.conf(features).softmax(-1)
        batch_size = loc_data.size(0)
        num_priors = prior_data.size(0)
        conf_preds = conf_data.view(batch_size, num_priors, self.num_classes).transpose(2, 1).contiguous()
        out = []
        for batch_idx in range(batch_size):
            decoded_boxes = decode(loc_data[batch_idx], prior_data)
            scores = conf_preds[batch_idx, 1:].max(0).values
            out.append(torch.cat([decoded_boxes, scores[:, None]], 1))
        return torch.stack(out)


def priors(generator: torch.Generator, count: int) -> torch.Tensor:
    centres = torch.rand(count, 2, generator=generator)
    sizes = 0.05 + 0.3 * torch.rand(count, 2, generator=generator)
    return torch.cat([centres, sizes], 1)


def build() -> nn.Module:
    return Detect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 10, 8, generator=generator), priors(generator, 10)


DYNAMIC = {"features": {1: "priors"}, "prior_data": {0: "priors"}}
