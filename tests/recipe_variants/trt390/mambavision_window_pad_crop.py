"""MambaVision's windowed stage: the map padded to a multiple of the window only where it is not one, and cropped
back only where it was padded.

Source: NVlabs/MambaVision @ 7860a506b2eb844eaaae676f08461ce8c3c26f43 mambavision/models/mamba_vision.py:602-624
(``MambaVisionLayer.forward``), with ``window_partition`` and ``window_reverse`` at lines 94-123. There the stage
reads ``_, _, H, W = x.shape``, computes ``pad_r``/``pad_b`` up to the next multiple of the window, and writes
``if pad_r > 0 or pad_b > 0:`` twice: before the partition (pad with ``torch.nn.functional.pad`` and read the padded
sizes ``Hp, Wp`` back from the shape, or ``else: Hp, Wp = H, W``) and after the reverse (crop back to
``x[:, :, :H, :W].contiguous()``). Kept: the stage's ``forward`` statement for statement (the ``transformer_block``
switch, both tests, the ``else`` that names the sizes, the crop), the partition and reverse by views and permutes.
Reduced: the mixer and attention blocks are one residual single-head window attention each (two of them); the
stage's downsample is left out; ``window_reverse`` reads the batch as ``windows.shape[0] // (windows per image)``
where the original divides in float and calls ``int``. Written here in our own words.

Why it matters for export: traced at a size that is a multiple of the window, both tests are False and the graph has
neither the pad nor the crop; at any other size its views fail. Padding by zero and cropping to the full size are
what the ``else`` ways do, so the ``if`` branches hold at every size: TRT390 takes them while tracing.
"""

import torch
from torch import nn


def window_partition(x, window_size):
    B, C, H, W = x.shape
    x = x.view(B, C, H // window_size, window_size, W // window_size, window_size)
    return x.permute(0, 2, 4, 3, 5, 1).reshape(-1, window_size * window_size, C)


def window_reverse(windows, window_size, H, W):
    B = windows.shape[0] // ((H // window_size) * (W // window_size))
    x = windows.reshape(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 5, 1, 3, 2, 4).reshape(B, windows.shape[2], H, W)


class WindowBlock(nn.Module):
    """A residual single-head attention over the tokens of each window (the padded zeros included, as there)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, -1)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(-1)
        return x + self.proj(attn @ v)


class MambaVisionLayer(nn.Module):
    def __init__(self, dim: int = 8, depth: int = 2, window_size: int = 4) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([WindowBlock(dim) for _ in range(depth)])
        self.transformer_block = True
        self.window_size = window_size

    def forward(self, x):
        _, _, H, W = x.shape

        if self.transformer_block:
            pad_r = (self.window_size - W % self.window_size) % self.window_size
            pad_b = (self.window_size - H % self.window_size) % self.window_size
            if pad_r > 0 or pad_b > 0:
                x = torch.nn.functional.pad(x, (0, pad_r, 0, pad_b))
                _, _, Hp, Wp = x.shape
            else:
                Hp, Wp = H, W
            x = window_partition(x, self.window_size)

        for _, blk in enumerate(self.blocks):
            x = blk(x)
        if self.transformer_block:
            x = window_reverse(x, self.window_size, Hp, Wp)
            if pad_r > 0 or pad_b > 0:
                x = x[:, :, :H, :W].contiguous()
        return x


class Model(nn.Module):
    """A strided patch embedding, the windowed stage, a 1x1 head."""

    def __init__(self) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.level = MambaVisionLayer()
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.head(self.level(self.patch_embed(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator) - 0.5,)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "if pad_r > 0 or pad_b > 0:"
