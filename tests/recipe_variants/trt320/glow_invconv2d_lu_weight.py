"""Glow's invertible 1x1 convolution in LU form: every forward call rebuilds the convolution
weight from its factors, the upper factor's diagonal made from a parameter vector with
``torch.diag(self.s_sign * torch.exp(self.w_s))`` (a vector turned into a square matrix).

Reduced from rosinality/glow-pytorch, commit 97081ff115a694cf04aeedbd58447f33d242c879,
model.py, ``InvConv2dLU.forward`` lines 114-122 and ``InvConv2dLU.calc_weight`` lines 124-131
(the diag at line 128). Written here in our own words: the LU factors are drawn with torch
(a QR of a random matrix, then ``torch.linalg.lu``) instead of scipy; the module stands
alone (in Glow it sits between ActNorm and the affine coupling).
"""

import torch
from torch import nn
from torch.nn import functional as F


class InvConv2dLU(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(channels, channels))
        p, lower, upper = torch.linalg.lu(q)
        s = torch.diagonal(upper)
        upper_mask = torch.triu(torch.ones(channels, channels), 1)
        self.register_buffer("w_p", p)
        self.register_buffer("u_mask", upper_mask)
        self.register_buffer("l_mask", upper_mask.T.contiguous())
        self.register_buffer("s_sign", torch.sign(s))
        self.register_buffer("l_eye", torch.eye(channels))
        self.w_l = nn.Parameter(lower)
        self.w_s = nn.Parameter(torch.log(torch.abs(s)))
        self.w_u = nn.Parameter(torch.triu(upper, 1))

    def calc_weight(self) -> torch.Tensor:
        weight = (self.w_p @ (self.w_l * self.l_mask + self.l_eye)
                  @ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s))))
        return weight.unsqueeze(2).unsqueeze(3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, _, height, width = x.shape
        out = F.conv2d(x, self.calc_weight())
        logdet = height * width * torch.sum(self.w_s)
        return out, logdet


def build() -> nn.Module:
    return InvConv2dLU()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
