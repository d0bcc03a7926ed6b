"""A shape-keyed cache read through a local name: YOLOX keeps ``grid = self.grids[k]``, compares the
local's shape and writes the new grid back to ``self.grids[k]``.

Reduced from Megvii-BaseDetection/YOLOX @ 6ddff4824372906469a7fae2dc3206c7aa4bbaee,
yolox/models/yolo_head.py:215-233 (``get_output_and_grid``: ``grid = self.grids[k]``,
``if grid.shape[2:4] != output.shape[2:4]:``, ``self.grids[k] = grid``), written here in our own
words. YOLOX calls that helper on its training path; here the same decode runs in forward.
"""

import torch
from torch import nn


class YOLOXHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.num_classes = 1
        self.strides = (1, 2)
        self.grids = [torch.zeros(1)] * len(self.strides)
        self.preds = nn.ModuleList(nn.Conv2d(3, 5 + self.num_classes, 1, stride=s) for s in self.strides)

    def get_output_and_grid(self, output, k, stride, dtype):
        grid = self.grids[k]
        batch_size = output.shape[0]
        n_ch = 5 + self.num_classes
        hsize, wsize = output.shape[-2:]
        if grid.shape[2:4] != output.shape[2:4]:
            yv, xv = torch.meshgrid([torch.arange(hsize), torch.arange(wsize)], indexing="ij")
            grid = torch.stack((xv, yv), 2).view(1, 1, hsize, wsize, 2).type(dtype)
            self.grids[k] = grid
        output = output.view(batch_size, 1, n_ch, hsize, wsize)
        output = output.permute(0, 1, 3, 4, 2).reshape(batch_size, hsize * wsize, -1)
        grid = grid.view(1, -1, 2)
        xy = (output[..., :2] + grid) * stride
        wh = torch.exp(output[..., 2:4]) * stride
        return torch.cat((xy, wh, output[..., 4:]), -1), grid

    def forward(self, img):
        outputs = []
        for k, stride in enumerate(self.strides):
            output, _ = self.get_output_and_grid(self.preds[k](img), k, stride, img.dtype)
            outputs.append(output)
        return torch.cat(outputs, 1)


def build() -> nn.Module:
    return YOLOXHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
