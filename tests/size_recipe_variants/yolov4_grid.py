"""NumPy on sizes, nested: a YOLOv4 decode builds its cell grid from the output's sizes.

Reduced from Tianxiaomo/pytorch-YOLOv4 @ a65d219f9066bae4e12003bd7cdc04531860c672,
tool/yolo_layer.py:202-203 (``np.expand_dims`` around ``np.linspace(...).repeat(...)``) and
:229-231 (``torch.tensor(grid, device=..., dtype=torch.float32)`` in the anchor loop), written
here in our own words with two anchors and no class scores. The same decode is wf-pytorch-yolo-v4 0.2.2's
yolov4/tool/yolo_layer.py:201-202 and :226-228 (zoo 32's y4_yolov4_sam_mish_decode), whose stride-32 head is a
1x1 map at a 32x32 input: ``np.linspace(0, 0, 1)`` is ``[0.]``, so the test's sets include one row and one column.
"""

import numpy as np
import torch
from torch import nn


def decode(output, num_anchors):
    cells_x = np.expand_dims(np.expand_dims(np.expand_dims(
        np.linspace(0, output.size(3) - 1, output.size(3)), axis=0).repeat(output.size(2), 0), axis=0), axis=0)
    cells_y = np.expand_dims(np.expand_dims(np.expand_dims(
        np.linspace(0, output.size(2) - 1, output.size(2)), axis=1).repeat(output.size(3), 1), axis=0), axis=0)
    device = output.device if output.is_cuda else None
    boxes = []
    for i in range(num_anchors):
        bx = torch.sigmoid(output[:, 2 * i:2 * i + 1]) + torch.tensor(cells_x, device=device, dtype=torch.float32)
        by = torch.sigmoid(output[:, 2 * i + 1:2 * i + 2]) + torch.tensor(cells_y, device=device, dtype=torch.float32)
        boxes.append(torch.cat((bx / output.size(3), by / output.size(2)), 1))
    return torch.cat(boxes, 1)


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        return decode(self.conv(x), 2)


def build() -> nn.Module:
    return Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 5, 7, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
