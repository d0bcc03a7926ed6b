"""EfficientViT's local window attention: the map padded to whole windows only where it has a partial one (a
decision bound to a name, ``padding``), cropped back under the same name.

Source: microsoft/Cream @ 4a13c4091e78f9abd2160e7e01c02e48c1cf8fb9 EfficientViT/downstream/efficientvit.py:233-266
(``LocalWindowAttention.forward``, the detection / segmentation backbone). There the block reads ``B, C, H, W =
x.shape``, permutes to channels last, computes ``pad_b``/``pad_r`` up to the next multiple of
``window_resolution``, binds ``padding = pad_b > 0 or pad_r > 0``, pads under ``if padding:`` with
``torch.nn.functional.pad(x, (0, 0, 0, pad_r, 0, pad_b))``, takes ``pH, pW = H + pad_b, W + pad_r`` either way,
partitions, runs the cascaded group attention on every window, reverses, and crops under a second ``if padding:``
to ``x[:, :H, :W].contiguous()``. Kept: that statement for statement (the decision bound to a name, both tests, the
padded sizes computed from the pads rather than read back). Reduced: the cascaded group attention (with its
attention biases per window position) is a residual single-head window attention over channels-first windows; the
shortcut for maps no larger than one window (``if H <= self.window_resolution and W <= self.window_resolution:
x = self.attn(x)``) is left out, the inputs staying above one window. Written here in our own words.

Why it matters for export: traced at a multiple of the window, ``padding`` is False and the graph neither pads nor
crops; at any other size its views fail. Padding by nothing and cropping to the full size change nothing, so the
``if`` branches hold at every size: TRT390 takes them while tracing (the test is the name, a decision on sizes).
"""

import torch
from torch import nn


class WindowAttention(nn.Module):
    """A residual single-head attention over the positions of each ``(C, w, w)`` window."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.qkv = nn.Conv2d(dim, 3 * dim, 1)
        self.proj = nn.Conv2d(dim, dim, 1)
        self.scale = dim ** -0.5

    def forward(self, x):
        n, c, h, w = x.shape
        q, k, v = self.qkv(x).flatten(2).chunk(3, 1)
        attn = (q.transpose(1, 2) @ k * self.scale).softmax(-1)
        return x + self.proj((v @ attn.transpose(1, 2)).reshape(n, c, h, w))


class LocalWindowAttention(nn.Module):
    def __init__(self, dim: int = 8, window_resolution: int = 4) -> None:
        super().__init__()
        self.window_resolution = window_resolution
        self.attn = WindowAttention(dim)

    def forward(self, x):
        B, C, H, W = x.shape
        x = x.permute(0, 2, 3, 1)
        pad_b = (self.window_resolution - H % self.window_resolution) % self.window_resolution
        pad_r = (self.window_resolution - W % self.window_resolution) % self.window_resolution
        padding = pad_b > 0 or pad_r > 0

        if padding:
            x = torch.nn.functional.pad(x, (0, 0, 0, pad_r, 0, pad_b))

        pH, pW = H + pad_b, W + pad_r
        nH = pH // self.window_resolution
        nW = pW // self.window_resolution
        x = x.view(B, nH, self.window_resolution, nW, self.window_resolution, C).transpose(2, 3).reshape(
            B * nH * nW, self.window_resolution, self.window_resolution, C).permute(0, 3, 1, 2)
        x = self.attn(x)
        x = x.permute(0, 2, 3, 1).view(B, nH, nW, self.window_resolution, self.window_resolution, C).transpose(
            2, 3).reshape(B, pH, pW, C)

        if padding:
            x = x[:, :H, :W].contiguous()

        return x.permute(0, 3, 1, 2)


class Model(nn.Module):
    """A strided patch embedding, the local window attention, a 1x1 head."""

    def __init__(self) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.mixer = LocalWindowAttention()
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.head(self.mixer(self.patch_embed(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator) - 0.5,)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "if padding:"
