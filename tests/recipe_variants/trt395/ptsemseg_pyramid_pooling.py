"""pytorch-semseg's PSPNet pyramid pooling: windows and strides computed from the feature map's size.

Reduced from meetshah1995/pytorch-semseg @ 801fb200547caa5b0d91b8dde56b837da029f746, ptsemseg/models/utils.py,
``pyramidPooling.forward`` (from line 515): ``h, w = x.shape[2:]``, then per pool size
``k_sizes.append((int(h / pool_size), int(w / pool_size)))`` and the same numbers as strides, then
``F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)``, a 1x1 convolution, an upsampling back to
``(h, w)`` and a concatenation with the input. The same code ships in torchxrayvision 1.5.7 (PyPI),
``baseline_models/chestx_det/ptsemseg/utils.py`` lines 590-615, under its ChestX-Det PSPNet. Kept: the window and
stride lists built in a loop with ``int()`` of a division, the indexed list arguments, the pooling with explicit
zero padding, the upsampling to the traced size and the concatenation. Reduced: one 1x1 convolution per path
without batch norm, bilinear ``F.interpolate`` for the deprecated ``F.upsample``, 8 channels. Written here in our
own words.

Why it matters for export: ``int()`` of the traced size makes the windows Python numbers, so the TorchScript graph
pools the example's windows at every size (PSPNet's bins are wrong at any other input size); kept traced, the
windows stop the exporter, whose pooling symbolic takes constant kernels only.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)"


class PyramidPooling(nn.Module):
    def __init__(self, channels: int = 8, pool_sizes=(6, 3, 2, 1)) -> None:
        super().__init__()
        self.paths = nn.ModuleList(nn.Conv2d(channels, channels // len(pool_sizes), 1) for _ in pool_sizes)
        self.pool_sizes = pool_sizes

    def forward(self, x):
        h, w = x.shape[2:]
        k_sizes = []
        strides = []
        for pool_size in self.pool_sizes:
            k_sizes.append((int(h / pool_size), int(w / pool_size)))
            strides.append((int(h / pool_size), int(w / pool_size)))
        output_slices = [x]
        for i, (module, pool_size) in enumerate(zip(self.paths, self.pool_sizes)):
            out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)
            out = module(out)
            out = F.interpolate(out, size=(h, w), mode="bilinear", align_corners=False)
            output_slices.append(out)
        return torch.cat(output_slices, dim=1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return PyramidPooling().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 24, width: int = 30) -> tuple[torch.Tensor, ...]:
    """``batch`` feature maps of 8 channels, ``height`` x ``width`` (standard normal values)."""
    return (torch.randn(batch, 8, height, width, generator=generator),)
