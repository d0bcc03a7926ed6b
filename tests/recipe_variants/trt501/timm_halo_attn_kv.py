"""HaloNet's halo attention in timm: keys and values are computed on the whole map, padded with
a zero halo of ``halo_size`` on all four sides, ``F.pad(kv, [self.halo_size, self.halo_size,
self.halo_size, self.halo_size])``, and cut into overlapping ``win_size`` windows (a block plus
its halo) with two ``unfold``s; each query block attends to its window. The pads are the
module's configuration (attributes set in ``__init__``), not literals.

Reduced from huggingface/pytorch-image-models at tag v1.0.31 (the PyPI release the zoo
unpacks), timm/layers/halo_attn.py:114-245 (``HaloAttn``: ``block_size``, ``halo_size``,
``win_size = block_size + halo_size * 2``, the 1x1 ``q`` and ``kv`` convolutions, ``forward``:
the query blocks, the pad at :227, the two ``unfold``s, ``split`` into keys and values,
``softmax`` and the fold back), written here in our own words with one head, no relative
position embedding and no pooling.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class HaloAttn(nn.Module):
    def __init__(self, dim: int = 4, block_size: int = 2, halo_size: int = 1) -> None:
        super().__init__()
        self.dim = dim
        self.block_size = block_size
        self.halo_size = halo_size
        self.win_size = block_size + halo_size * 2
        self.scale = dim ** -0.5
        self.q = nn.Conv2d(dim, dim, 1, bias=False)
        self.kv = nn.Conv2d(dim, dim * 2, 1, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        B, C, H, W = x.shape
        bs = self.block_size
        num_h_blocks, num_w_blocks = H // bs, W // bs
        num_blocks = num_h_blocks * num_w_blocks
        q = self.q(x).reshape(B, C, num_h_blocks, bs, num_w_blocks, bs).permute(0, 1, 3, 5, 2, 4)
        q = q.reshape(B, C, bs * bs, num_blocks).transpose(1, 3)  # B, blocks, bs*bs, C

        kv = self.kv(x)
        kv = F.pad(kv, [self.halo_size, self.halo_size, self.halo_size, self.halo_size])
        kv = kv.unfold(2, self.win_size, bs).unfold(3, self.win_size, bs)  # B, 2C, nh, nw, win, win
        kv = kv.reshape(B, 2 * C, num_blocks, -1).permute(0, 2, 3, 1)  # B, blocks, win*win, 2C
        k, v = torch.split(kv, [C, C], dim=-1)

        attn = (q @ k.transpose(-1, -2) * self.scale).softmax(dim=-1)
        out = (attn @ v).transpose(1, 3)  # B, C, bs*bs, blocks
        out = out.reshape(B, C, bs, bs, num_h_blocks, num_w_blocks).permute(0, 1, 4, 2, 5, 3)
        return out.reshape(B, C, H, W)


def build() -> nn.Module:
    return HaloAttn()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 6, 4, generator=generator),)


# Static sizes: the TorchScript exporter's `unfold` needs the size of the axis it unfolds ("input size
# not accessible") and a dynamic axis hides it. At static sizes the original fails there too: the
# Pad's computed `pads` leave its output's sizes unknown; the concatenation's are known.
DYNAMIC: dict = {}
