"""A YOLO-style head's GlobalAvgPool2d: sizes read into locals from ``x.data``, ``avg_pool2d`` imported bare.

Reduced from cycoslee/NV_DeepstreamSDK_Excercise, 11_test_ds_trt_yolo/tools/onnx/layer/globalavgpool.py
(commit 5a2561f): ``GlobalAvgPool2d.forward`` binds ``N``, ``C``, ``H``, ``W`` from ``x.data.size(i)``, pools
with ``avg_pool2d(x, (H, W))`` (``from torch.nn.functional import avg_pool2d``), rebinds ``x`` to the result
and views it as ``(N, C)``. The convolution before it and the scoring layer after it are ours. Written here
in our own words.
"""

import torch
from torch import nn
from torch.nn.functional import avg_pool2d


class GlobalAvgPool2d(nn.Module):
    def forward(self, x):
        N = x.data.size(0)
        C = x.data.size(1)
        H = x.data.size(2)
        W = x.data.size(3)
        x = avg_pool2d(x, (H, W))
        x = x.view(N, C)
        return x


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.gap = GlobalAvgPool2d()
        self.score = nn.Linear(6, 2)

    def forward(self, x):
        return self.score(self.gap(torch.relu(self.conv(x))))


def build() -> nn.Module:
    return Head().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 3, 10, 14, generator=generator),)


#: The batch stays static: ``x.view(N, C)`` reads it through ``x.data`` too, baked in the graph (another matter).
DYNAMIC = {"x": {2: "height", 3: "width"}}
