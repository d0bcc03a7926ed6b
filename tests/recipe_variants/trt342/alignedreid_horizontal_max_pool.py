"""AlignedReID's local features: a horizontal max pooling whose window is the whole width.

Reduced from OrientTraveller/AlignedReID, model/HorizontalMaxPool2d.py (commit 82dbafc):
``HorizontalMaxPool2d.forward`` keeps ``input_size = x.size()`` and calls
``nn.functional.max_pool2d(input=x, kernel_size=(1, input_size[3]))``: one maximum per row (strip pooling over
the width). The backbone and the 1x1 reduction after it (the model's local branch) are ours. Written here in
our own words.
"""

import torch
from torch import nn


class HorizontalMaxPool2d(nn.Module):
    def forward(self, x):
        input_size = x.size()
        return nn.functional.max_pool2d(input=x, kernel_size=(1, input_size[3]))


class LocalBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.horizontal = HorizontalMaxPool2d()
        self.reduce = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        rows = self.horizontal(self.backbone(x))
        return self.reduce(rows).squeeze(-1).permute(0, 2, 1)


def build() -> nn.Module:
    return LocalBranch().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
