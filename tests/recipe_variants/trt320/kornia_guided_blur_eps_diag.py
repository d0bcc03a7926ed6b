"""kornia's guided filter with a multichannel guidance: per pixel, the guidance's channel
covariance is regularised with ``eps`` on its diagonal, built as
``guidance.new_full((C,), eps).diag().view(1, 1, 1, C, C)`` (a vector turned into a square
matrix, the tensor-method form), and the filter's linear coefficients solve against it.

Reduced from kornia 0.9.0 (the PyPI wheel the zoo unpacks), kornia/filters/guided.py,
``_guided_blur_multichannel_guidance`` lines 115-179 (the diag at line 152), reached from
``GuidedBlur.forward``. Written here in our own words: a two-channel guidance and no
subsampling; the box blur is a reflect pad and a 3x3 average; ``torch.linalg.solve`` (which the
TorchScript exporter cannot convert either) is written as the 2x2 adjugate over the
determinant; the dtype promotions are left out.
"""

import torch
from torch import nn
from torch.nn import functional as F


def box_blur(x: torch.Tensor) -> torch.Tensor:
    return F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), kernel_size=3, stride=1)


def solve_2x2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a00, a01, a10, a11 = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
    det = (a00 * a11 - a01 * a10)[..., None, None]
    adjugate = torch.stack([torch.stack([a11, -a01], -1), torch.stack([-a10, a00], -1)], -2)
    return adjugate @ b / det


class GuidedBlur(nn.Module):
    def __init__(self, eps: float = 0.01) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, guidance: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
        B, C, H, W = guidance.shape
        C_in = image.shape[1]
        mean_I = box_blur(guidance).permute(0, 2, 3, 1)
        II = (guidance.unsqueeze(1) * guidance.unsqueeze(2)).flatten(1, 2)
        corr_I = box_blur(II).permute(0, 2, 3, 1)
        var_I = corr_I.reshape(B, H, W, C, C) - mean_I.unsqueeze(-2) * mean_I.unsqueeze(-1)
        mean_p = box_blur(image).permute(0, 2, 3, 1)
        Ip = (image.unsqueeze(1) * guidance.unsqueeze(2)).flatten(1, 2)
        corr_Ip = box_blur(Ip).permute(0, 2, 3, 1)
        cov_Ip = corr_Ip.reshape(B, H, W, C, C_in) - mean_p.unsqueeze(-2) * mean_I.unsqueeze(-1)
        _eps = guidance.new_full((C,), self.eps).diag().view(1, 1, 1, C, C)
        a = solve_2x2(var_I + _eps, cov_Ip)
        b = mean_p - (mean_I.unsqueeze(-2) @ a).squeeze(-2)
        mean_a = box_blur(a.flatten(-2).permute(0, 3, 1, 2)).reshape(B, C, C_in, H, W)
        mean_b = box_blur(b.permute(0, 3, 1, 2))
        return (guidance.unsqueeze(2) * mean_a).sum(1) + mean_b


def build() -> nn.Module:
    return GuidedBlur()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 2, 7, 6, generator=generator), torch.rand(2, 3, 7, 6, generator=generator))


DYNAMIC = {"guidance": {0: "batch", 2: "height", 3: "width"}, "image": {0: "batch", 2: "height", 3: "width"}}
