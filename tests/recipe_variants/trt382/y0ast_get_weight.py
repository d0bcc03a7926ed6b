"""Glow's invertible 1x1 convolution in y0ast's Glow-PyTorch: the log-determinant in a method forward calls.

Reduced from y0ast/Glow-PyTorch @ 13c7b013dde32600e732416f2ed15438d686636f, modules.py: ``InvertibleConv1x1``
(lines 314-388) either keeps the weight as a matrix parameter or as LU factors; ``get_weight(input, reverse)``
(lines 342-371), called first thing in ``forward`` (line 377), reads ``b, c, h, w = input.shape`` and, for the plain
weight, computes ``dlogdet = torch.slogdet(self.weight)[1] * h * w`` (line 346); the LU branch moves its mask and
identity to the device by assigning ``self.l_mask`` and ``self.eye`` there, so those two are written outside
``__init__``, and takes ``sum(log_s) * h * w`` instead. ``forward`` convolves and adds the log-determinant to the
running ``logdet`` it was given (model.py's ``FlowStep.normal_flow`` passes one per image). Kept: both branches of
``get_weight`` and ``forward`` (the model is built without LU, as Glow's ``--no_LU_decomposed`` runs it), the
``.to(input.device)`` of both results. Reduced: the LU factors come from ``torch.linalg.lu`` (there
``torch.lu_unpack(*torch.lu(...))``), no actnorm or coupling around it. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"input": {0: "b", 2: "h", 3: "w"}, "logdet": {0: "b"}}
#: The line of the log-determinant (the rule's finding).
CALL = "dlogdet = torch.slogdet(self.weight)[1] * h * w"
CHANNELS = 6


class InvertibleConv1x1(nn.Module):
    def __init__(self, num_channels, LU_decomposed):
        super().__init__()
        w_shape = [num_channels, num_channels]
        w_init = torch.linalg.qr(torch.randn(*w_shape))[0]
        if not LU_decomposed:
            self.weight = nn.Parameter(w_init)
        else:
            p, lower, upper = torch.linalg.lu(w_init)
            s = torch.diag(upper)
            self.register_buffer("p", p)
            self.register_buffer("sign_s", torch.sign(s))
            self.lower = nn.Parameter(lower)
            self.log_s = nn.Parameter(torch.log(torch.abs(s)))
            self.upper = nn.Parameter(torch.triu(upper, 1))
            self.l_mask = torch.tril(torch.ones(w_shape), -1)
            self.eye = torch.eye(*w_shape)
        self.w_shape = w_shape
        self.LU_decomposed = LU_decomposed

    def get_weight(self, input, reverse):
        b, c, h, w = input.shape
        if not self.LU_decomposed:
            dlogdet = torch.slogdet(self.weight)[1] * h * w
            if reverse:
                weight = torch.inverse(self.weight)
            else:
                weight = self.weight
        else:
            self.l_mask = self.l_mask.to(self.lower.device)
            self.eye = self.eye.to(self.lower.device)
            lower = self.lower * self.l_mask + self.eye
            u = self.upper * self.l_mask.transpose(0, 1).contiguous()
            u = u + torch.diag(self.sign_s * torch.exp(self.log_s))
            dlogdet = torch.sum(self.log_s) * h * w
            if reverse:
                weight = torch.inverse(u) @ torch.inverse(lower) @ torch.inverse(self.p)
            else:
                weight = self.p @ lower @ u
        return weight.view(self.w_shape[0], self.w_shape[1], 1, 1).to(input.device), dlogdet.to(input.device)

    def forward(self, input, logdet=None, reverse=False):
        weight, dlogdet = self.get_weight(input, reverse)
        z = F.conv2d(input, weight)
        if logdet is not None:
            logdet = logdet - dlogdet if reverse else logdet + dlogdet
        return z, logdet


def build() -> nn.Module:
    return InvertibleConv1x1(CHANNELS, LU_decomposed=False).eval()


def inputs(generator: torch.Generator, b: int = 2, h: int = 4, w: int = 6) -> tuple[torch.Tensor, ...]:
    """Feature maps and the log-likelihood gathered so far, one per image."""
    return torch.randn(b, CHANNELS, h, w, generator=generator), torch.randn(b, generator=generator)
