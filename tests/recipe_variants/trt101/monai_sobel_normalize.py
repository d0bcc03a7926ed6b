"""MONAI's Sobel gradients: two `if`s on tensor values inside an `if` on configuration, in a loop over axes.

Reduced from Project-MONAI/MONAI at commit d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83,
monai/transforms/post/array.py:947-993 (``SobelGradients.__call__``): for each spatial axis the gradient
is a separable filtering (the difference kernel on that axis, the smoothing kernel on the others); with
``self.normalize_gradients`` (configuration) it is shifted by its minimum where it is not constant
(``if grad_min != grad.max(): grad -= grad_min``) and divided by its maximum where that is positive
(``if grad_max > 0: grad /= grad_max``); the gradients are concatenated. The nesting is the other way
round from UniMatch's: configuration outer, the tensor tests inner. Kept: the loop, the flag, both
in-place updates of a fresh tensor, the concatenation. Left out: MONAI's tensor conversions and
`separable_filtering` (two depthwise `conv2d`s with reflect padding here, 2-D images of two
channels). Written in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


CHANNELS = 2


def filter_axes(image, kernels):
    """Separable filtering of a (batch, CHANNELS, h, w) image with one 3-tap kernel per spatial axis."""
    out = image
    for axis, kernel in enumerate(kernels):
        shape = (CHANNELS, 1, 3, 1) if axis == 0 else (CHANNELS, 1, 1, 3)
        pad = (0, 0, 1, 1) if axis == 0 else (1, 1, 0, 0)
        out = F.conv2d(F.pad(out, pad, mode="reflect"), kernel.expand(CHANNELS, 3).reshape(shape), groups=CHANNELS)
    return out


class SobelGradients(nn.Module):
    def __init__(self, normalize_gradients=True):
        super().__init__()
        self.normalize_gradients = normalize_gradients
        self.register_buffer("kernel_diff", torch.tensor([-1.0, 0.0, 1.0]) / 2.0)
        self.register_buffer("kernel_smooth", torch.tensor([1.0, 2.0, 1.0]) / 4.0)

    def forward(self, image):
        spatial_axes = [0, 1]
        grad_list = []
        for ax in spatial_axes:
            kernels = [self.kernel_smooth] * 2
            kernels[ax] = self.kernel_diff
            grad = filter_axes(image, kernels)
            if self.normalize_gradients:
                grad_min = grad.min()
                if grad_min != grad.max():
                    grad -= grad_min
                grad_max = grad.max()
                if grad_max > 0:
                    grad /= grad_max
            grad_list.append(grad)

        return torch.cat(grad_list, dim=1)


def build() -> nn.Module:
    return SobelGradients()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 6, 7, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
