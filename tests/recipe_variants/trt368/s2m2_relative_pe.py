"""S2M2's relative positional encoding: a table of sinc features indexed by row and column offsets.

Reduced from stereo_matching 0.2.0 (PyPI), stereo_matching/models/s2m2/modeling_s2m2.py: ``_s2m2_get_pe``
(lines 81-107) meshes ``torch.linspace(0, h - 1, h)`` with ``torch.linspace(0, w - 1, w)``, takes the
``.long()`` differences of every pair of positions, and gathers rows of a table of ``2 * w + 1`` (and
``2 * h + 1``) normalized sinc features at ``rel_x_pos + w - 1``; ``_S2M2_Unet.forward`` (lines 390-393)
calls it with ``H // 8, W // 8`` of its feature map. At a map of 8 to 15 rows the count is 1, and the
exported ``linspace`` divides 0 by 0. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def custom_sinc(x):
    return torch.where(torch.abs(x) < 1e-6, torch.ones_like(x), torch.sin(3.1415 * x) / (3.1415 * x))


def relative_pe(h: int, w: int, pe_dim: int):
    grid_y, grid_x = torch.meshgrid(torch.linspace(0, h - 1, h), torch.linspace(0, w - 1, w), indexing="ij")
    rel_x = (grid_x.reshape(-1, 1) - grid_x.reshape(1, -1)).long()
    rel_y = (grid_y.reshape(-1, 1) - grid_y.reshape(1, -1)).long()
    dim_t = torch.linspace(-1, 1, pe_dim // 2)
    x_pos = torch.linspace(-3, 3, 2 * w + 1).tanh()
    pe_x = F.normalize(custom_sinc((dim_t[None, :] - x_pos[:, None]) / (5 / pe_dim)), p=2, dim=-1)
    y_pos = torch.linspace(-3, 3, 2 * h + 1).tanh()
    pe_y = F.normalize(custom_sinc((dim_t[None, :] - y_pos[:, None]) / (5 / pe_dim)), p=2, dim=-1)
    rel_pe_x = pe_x[rel_x + w - 1].reshape(h * w, h * w, pe_dim // 2)
    rel_pe_y = pe_y[rel_y + h - 1].reshape(h * w, h * w, pe_dim // 2)
    return 0.5 * torch.cat([rel_pe_x, rel_pe_y], dim=2)


class PositionalAttention(nn.Module):
    """Self-attention over the cells of a map pooled by 8, biased by the relative encoding."""

    def __init__(self, channels: int = 4, pe_dim: int = 8) -> None:
        super().__init__()
        self.pe_dim = pe_dim
        self.proj = nn.Conv2d(channels, pe_dim, 1)

    def forward(self, x):
        H, W = x.shape[-2:]
        pe = relative_pe(H // 8, W // 8, self.pe_dim)
        z = self.proj(F.avg_pool2d(x, 8))
        tokens = z.flatten(2).transpose(1, 2)
        scores = (tokens[:, :, None, :] * pe[None]).sum(-1)
        return scores.softmax(dim=-1) @ tokens


def build() -> nn.Module:
    torch.manual_seed(0)
    return PositionalAttention().eval()


def inputs(generator):
    return (torch.rand(1, 4, 8, 16, generator=generator),)
