"""A cache read on a hit and filled on a miss, its key recorded at the end of ``forward``: DeAOT's local
attention keeps the window masks of the last feature size on ``self``.

Reduced from deaotpy 1.11.0 (Zongxin Yang's AOT/DeAOT as packaged on PyPI),
aot/networks/layers/attention.py: ``GatedPropagation.forward`` tests
``if self.qk_mask is not None and (h, w) == self.last_size_2d:`` at :797 (the hit reads ``self.qk_mask``,
the miss unfolds a ones map and stores it at :804), records ``self.last_size_2d = (h, w)`` at :852 after
everything else, and its ``local2global`` does the same with ``self.local_mask`` at :861-881, compared with
the size of the previous call. Written here in our own words with one head, a plain softmax and no
gating; the boolean-mask assignment of ``local2global`` is kept (another recipe's matter).
"""

import torch
import torch.nn.functional as F
from torch import nn


class LocalAttention(nn.Module):
    def __init__(self, channels: int = 3, max_dis: int = 1) -> None:
        super().__init__()
        self.max_dis = max_dis
        self.key = nn.Conv2d(channels, channels, 1)
        self.qk_mask = None
        self.local_mask = None
        self.last_size_2d = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.size()
        span = 2 * self.max_dis + 1
        if self.qk_mask is not None and (h, w) == self.last_size_2d:
            qk_mask = self.qk_mask
        else:
            ones = torch.ones((1, 1, h, w), device=x.device).float()
            qk_mask = 1 - F.unfold(ones, span, padding=self.max_dis).view(1, span * span, h * w)
            self.qk_mask = qk_mask
        k = self.key(x)
        qk = (F.unfold(k, span, padding=self.max_dis).view(n, c, span * span, h * w)
              * x.flatten(2).unsqueeze(2)).sum(1)
        qk = qk - qk_mask * 1e8
        attn = torch.softmax(qk, dim=1)
        spread = self.local2global(attn, h, w)
        out = spread @ x.flatten(2).transpose(1, 2)
        self.last_size_2d = (h, w)
        return out.transpose(1, 2).reshape(n, c, h, w)

    def local2global(self, attn: torch.Tensor, height: int, width: int) -> torch.Tensor:
        d = self.max_dis
        pad_h, pad_w = height + 2 * d, width + 2 * d
        if self.local_mask is not None and (height, width) == self.last_size_2d:
            local_mask = self.local_mask
        else:
            ky, kx = torch.meshgrid(torch.arange(pad_h, device=attn.device),
                                    torch.arange(pad_w, device=attn.device), indexing="ij")
            qy, qx = torch.meshgrid(torch.arange(height, device=attn.device),
                                    torch.arange(width, device=attn.device), indexing="ij")
            off_y = qy.reshape(-1, 1) - ky.reshape(1, -1) + d
            off_x = qx.reshape(-1, 1) - kx.reshape(1, -1) + d
            local_mask = ((off_y.abs() <= d) & (off_x.abs() <= d)).view(1, height * width, pad_h, pad_w)
            self.local_mask = local_mask
        n = attn.size()[0]
        spread = torch.zeros((n, height * width, pad_h, pad_w), device=attn.device)
        spread[local_mask.expand(n, -1, -1, -1)] = attn.transpose(-1, -2).reshape(-1)
        return spread[:, :, d:-d, d:-d].reshape(n, height * width, height * width)


def build() -> nn.Module:
    return LocalAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
