"""CogView's window attention keys: the keys padded in front by ``(times - 1) * w`` rows, viewed as
blocks of ``w`` rows, then ``as_strided`` with the block count less ``times - 1`` and each block
stretched to ``w * times`` rows under the same strides, so that each window reads the blocks after it.

Reduced from THUDM/CogView @ 189a12bbe87227d3d127fa74abe968dd795cad39, mpu/sparse_transformer.py:629-650
(``_chunk(x, w, times)``: ``torch.nn.functional.pad(x, (0, 0, npad, 0), value=0)``, ``x.view(x.size(0),
x.size(1), x.size(2) // w, w, x.size(3))``, ``chunk_size[2] = chunk_size[2] - times + 1``,
``chunk_size[3] = w * times``, ``x.as_strided(size=chunk_size, stride=chunk_stride)``), as
``sparse_attention`` calls it on the keys and values (:699-700). Written here in our own words with
one projection and a sum over each window as the output. The view keeps the tensor's rank: the
windows run over the merged block and row axes.
"""

import torch
from torch import nn


def window_chunks(x: torch.Tensor, w: int, times: int) -> torch.Tensor:
    s = x.size(2)
    assert s % w == 0
    npad = (times - 1) * w
    x = torch.nn.functional.pad(x, (0, 0, npad, 0), value=0)
    x = x.view(x.size(0), x.size(1), x.size(2) // w, w, x.size(3))
    chunk_size = list(x.size())
    chunk_stride = list(x.stride())
    chunk_size[2] = chunk_size[2] - times + 1
    chunk_size[3] = w * times
    return x.as_strided(size=chunk_size, stride=chunk_stride)


class WindowKeys(nn.Module):
    def __init__(self, dim: int = 4, heads: int = 2, w: int = 2, times: int = 3) -> None:
        super().__init__()
        self.heads, self.w, self.times = heads, w, times
        self.k = nn.Linear(dim, dim * heads)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        b, s, d = hidden.shape
        k = self.k(hidden).view(b, s, self.heads, d).transpose(1, 2)
        return window_chunks(k, self.w, self.times).sum(3)


def build() -> nn.Module:
    return WindowKeys()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 4, generator=generator),)


DYNAMIC = {"hidden": {0: "batch", 1: "sequence"}}
