"""YOLOX_OBB's export replacement for ``nn.AdaptiveAvgPool2d``: a window list computed from the input's size.

Reduced from DDGRCF/YOLOX_OBB @ 986dbee50c7a0ccbeb4c7db94d672db8a2a7e3a2, yolox/models/modules/export.py, lines
5-10, ``AdaptiveAvgPool2d__forward(ctx, x, align_corners=False)`` (the function
exps/example/yolox_inst/yolox_s_sparseinst_coco.py puts in place of ``nn.AdaptiveAvgPool2d``'s forward before
exporting): ``size = x.shape[2:]``, the window list built by a list comprehension over the axes,
``[int(size[i] / ctx.output_size[i]) for i in range(0, len(size))]``, then ``F.avg_pool2d`` with that list as
``kernel_size=`` and ``stride=`` keywords, ``padding=0`` and ``ceil_mode=False``, and an upsampling back to
``size``. Kept: the list comprehension over the traced sizes, the keyword arguments, the same list as window and
stride, the bilinear upsampling to the traced size. Reduced: the function becomes the forward of a module that
holds ``output_size`` (the ``ctx`` the original receives is the replaced pooling module), after a 1x1
convolution standing for the SparseInst encoder's features; 6 channels. Written here in our own words.

Why it matters for export: the replacement exists to export the adaptive pooling, but ``int()`` of the traced
size makes the window Python numbers, so the TorchScript graph pools the example's windows at every size (the
pooled grid is wrong at any other input size); kept traced, the window stops the exporter, whose pooling symbolic
takes constant kernels only.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "x = F.avg_pool2d(x, kernel_size=kernel, stride=kernel, padding=0, ceil_mode=False)"


class AdaptivePoolForExport(nn.Module):
    def __init__(self, channels: int = 6, output_size=(3, 4), align_corners: bool = False) -> None:
        super().__init__()
        self.features = nn.Conv2d(channels, channels, 1)
        self.output_size = output_size
        self.align_corners = align_corners

    def forward(self, x):
        x = self.features(x)
        size = x.shape[2:]
        kernel = [int(size[i] / self.output_size[i]) for i in range(0, len(size))]
        x = F.avg_pool2d(x, kernel_size=kernel, stride=kernel, padding=0, ceil_mode=False)
        x = F.interpolate(x, size=size, mode="bilinear", align_corners=self.align_corners)
        return x


def build() -> nn.Module:
    torch.manual_seed(0)
    return AdaptivePoolForExport().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 24, width: int = 30) -> tuple[torch.Tensor, ...]:
    """``batch`` feature maps of 6 channels, ``height`` x ``width`` (standard normal values)."""
    return (torch.randn(batch, 6, height, width, generator=generator),)
