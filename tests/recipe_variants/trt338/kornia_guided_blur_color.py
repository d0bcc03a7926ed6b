"""kornia's guided filter with a colour guidance image: per pixel, the 3x3 covariance of the
guidance channels plus ``eps`` on the diagonal is solved against the guidance/input covariance,
``torch.linalg.solve(A.to(solve_dtype), cov_Ip.to(solve_dtype)).to(cov_Ip.dtype)`` (a batch of
B x H x W systems of 3x3 matrices, with a matrix of C_in columns on the right), and the
box-blurred coefficients are applied to the guidance.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/filters/guided.py,
``_guided_blur_multichannel_guidance`` (lines 115-179; the solve at line 167), behind
``guided_blur`` and ``GuidedBlur`` with a multi-channel guidance. Written here in our own words:
``box_blur`` is a reflect padding and an average pool, subsampling is left out, and ``eps`` on the
diagonal is an identity times it (the original's ``new_full(...).diag()`` is TRT320's recipe, not
this one's); the dtype promotion around the solve is kept as the original writes it.
"""

import torch
import torch.nn.functional as F
from torch import nn


def box_blur(x, kernel_size: int):
    pad = kernel_size // 2
    return F.avg_pool2d(F.pad(x, (pad, pad, pad, pad), mode="reflect"), kernel_size, stride=1)


class GuidedBlur(nn.Module):
    def __init__(self, kernel_size: int = 3, eps: float = 0.01) -> None:
        super().__init__()
        self.kernel_size, self.eps = kernel_size, eps

    def forward(self, guidance, input):
        k = self.kernel_size
        B, C, H, W = guidance.shape
        C_in = input.shape[1]
        mean_I = box_blur(guidance, k).permute(0, 2, 3, 1)
        II = (guidance.unsqueeze(1) * guidance.unsqueeze(2)).flatten(1, 2)
        corr_I = box_blur(II, k).permute(0, 2, 3, 1)
        var_I = torch.addcmul(corr_I.reshape(B, H, W, C, C), mean_I.unsqueeze(-2), mean_I.unsqueeze(-1), value=-1)
        mean_p = box_blur(input, k).permute(0, 2, 3, 1)
        Ip = (input.unsqueeze(1) * guidance.unsqueeze(2)).flatten(1, 2)
        corr_Ip = box_blur(Ip, k).permute(0, 2, 3, 1)
        cov_Ip = torch.addcmul(corr_Ip.reshape(B, H, W, C, C_in), mean_p.unsqueeze(-2), mean_I.unsqueeze(-1), value=-1)

        eps = (torch.eye(C, dtype=guidance.dtype) * self.eps).view(1, 1, 1, C, C)
        A = var_I + eps
        solve_dtype = torch.promote_types(A.dtype, cov_Ip.dtype)
        a = torch.linalg.solve(A.to(solve_dtype), cov_Ip.to(solve_dtype)).to(cov_Ip.dtype)
        b = mean_p - (mean_I.unsqueeze(-2) @ a).squeeze(-2)

        mean_a = box_blur(a.flatten(-2).permute(0, 3, 1, 2), k).view(B, C, C_in, H, W)
        mean_b = box_blur(b.permute(0, 3, 1, 2), k)
        return mean_b + torch.einsum("BCHW,BCcHW->BcHW", guidance, mean_a)


def build() -> nn.Module:
    return GuidedBlur()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 3, 6, 7, generator=generator), torch.rand(2, 2, 6, 7, generator=generator)


DYNAMIC = {"guidance": {0: "batch", 2: "height", 3: "width"}, "input": {0: "batch", 2: "height", 3: "width"}}
