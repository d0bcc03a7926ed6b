"""kornia's distance transform clamps its input mask to [0, 1] with two nested ``torch.where``s
(the inner one floors at 0, the outer one caps at 1), on purpose instead of ``torch.clamp``: the
selects pass a gradient of 1 at exactly 0 and 1 on every torch version. The clamped mask is the
boundary the exponential-kernel convolution then spreads.

Reduced from kornia at tag v0.9.0 (the PyPI release the zoo unpacks),
kornia/contrib/distance_transform.py:140-160 (``_distance_transform_2d_impl``: the kernel
``exp(-dist / h)`` over a ``kernel_size`` grid, then ``boundary = torch.where(image > 1,
ones_like, torch.where(image < 0, zeros_like, image))``), and the first iteration of its loop
(:163-167: a filter of the boundary, ``-h * log`` of the positive responses), written here in our
own words; the iteration count and the early stop are left out, and ``filter2d`` with replicate
borders is a plain ``conv2d`` with zero padding here.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ClampedBoundary(nn.Module):
    def __init__(self, kernel_size: int = 3, h: float = 0.35) -> None:
        super().__init__()
        half = kernel_size // 2
        offsets = torch.arange(kernel_size, dtype=torch.float32) - half
        dist = torch.sqrt(offsets[:, None] ** 2 + offsets[None, :] ** 2)
        self.register_buffer("kernel", torch.exp(-dist / h)[None, None])
        self.h = h
        self.pad = half

    def forward(self, image: Tensor) -> Tensor:
        boundary = torch.where(
            image > 1, torch.ones_like(image), torch.where(image < 0, torch.zeros_like(image), image)
        )
        cdt = F.conv2d(boundary, self.kernel, padding=self.pad)
        positive = cdt > 0
        cdt = -self.h * torch.log(torch.where(positive, cdt, torch.ones_like(cdt)))
        return torch.where(positive, cdt, torch.zeros_like(cdt))


def build() -> nn.Module:
    return ClampedBoundary()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 5, 6, generator=generator),)  # below 0, within [0, 1] and above 1


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
