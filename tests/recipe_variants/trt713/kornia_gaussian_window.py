"""An even window's samples move half a step to stay centred: kornia's ``gaussian`` (an ``if`` with no
``else``, the name bound before it).

Reduced from kornia/kornia @ 00bb6c0989abe357e81851cb787aefda38df6ad1, kornia/filters/kernels.py:99-102
(``gaussian``: ``x = (torch.arange(window_size, ...) - mean).expand(batch_size, -1)``, then ``if
window_size % 2 == 0: x = x + 0.5``), written here in our own words. Here the window spans the input's
width, so its parity follows a dynamic axis.
"""

import torch
from torch import nn


def centred_gaussian(window_size: int, sigma: torch.Tensor) -> torch.Tensor:
    batch = sigma.shape[0]
    offsets = (torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - window_size // 2).expand(batch, -1)
    if window_size % 2 == 0:
        offsets = offsets + 0.5
    weights = torch.exp(-offsets.pow(2.0) / (2 * sigma.pow(2.0)))
    return weights / weights.sum(-1, keepdim=True)


class WidthProfile(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sigma = nn.Parameter(torch.tensor([[1.5]]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        profile = centred_gaussian(x.shape[-1], self.sigma)
        return x * profile[:, None, None, :]


def build() -> nn.Module:
    return WidthProfile()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 5, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
