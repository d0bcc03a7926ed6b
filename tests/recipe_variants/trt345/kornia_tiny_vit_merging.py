"""kornia's TinyViT: tokens unflattened to the map for the patch merging, the next stage reading their batch.

Reduced from kornia/kornia@b4f5a78a13891c7ac4c1cd9695941380273e981d kornia/models/tiny_vit.py: ``PatchMerging.forward``
(lines 156-172) turns a stage's tokens back into the map with ``x.transpose(1, 2).unflatten(2,
self.input_resolution)`` (line 169), runs its 1x1, depthwise 3x3 (stride 2) and 1x1 convolutions and flattens the
result to tokens again; the next stage's ``TinyViTBlock.forward`` (lines 407-435) reads ``B, L, C = x.shape``
(line 419), views the tokens as ``(B, H, W, C)`` for its window attention (``Attention.forward``, lines 340-363:
``qkv.view(B, N, self.num_heads, -1)``), adds them back to its input and runs its local convolution on
``x.transpose(1, 2).reshape(B, C, H, W)``. Here the patch embedding is one strided convolution, each stage one block
whose window is the whole map (no partition, no padding), the attention without its relative-position biases, the
MLP one linear layer, and the classifier a mean over the tokens. Written here in our own words.
"""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = (dim // num_heads) ** -0.5

    def forward(self, x):
        B, N, _ = x.shape
        qkv = self.qkv(self.norm(x)).view(B, N, self.num_heads, -1).permute(0, 2, 1, 3)
        q, k, v = qkv.chunk(3, dim=3)
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, -1))


class TinyViTBlock(nn.Module):
    def __init__(self, dim: int, input_resolution: tuple[int, int]) -> None:
        super().__init__()
        self.input_resolution = input_resolution
        self.attn = Attention(dim)
        self.local_conv = nn.Conv2d(dim, dim, 3, padding=1, groups=dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        res_x = x
        x = x.view(B, H, W, C)
        x = self.attn(x.flatten(1, 2))
        x = x.view(B, L, C)
        x = res_x + x
        x = x.transpose(1, 2).reshape(B, C, H, W)
        x = self.local_conv(x)
        x = x.view(B, C, L).transpose(1, 2)
        return x + self.mlp(x)


class PatchMerging(nn.Module):
    def __init__(self, input_resolution: tuple[int, int], dim: int, out_dim: int) -> None:
        super().__init__()
        self.input_resolution = input_resolution
        self.conv1 = nn.Conv2d(dim, out_dim, 1)
        self.conv2 = nn.Conv2d(out_dim, out_dim, 3, 2, 1, groups=out_dim)
        self.conv3 = nn.Conv2d(out_dim, out_dim, 1)

    def forward(self, x):
        if x.ndim == 3:
            x = x.transpose(1, 2).unflatten(2, self.input_resolution)
        x = self.conv3(self.conv2(self.conv1(x)))
        x = x.flatten(2).transpose(1, 2)
        return x


class TinyViT(nn.Module):
    def __init__(self, dims: tuple[int, int] = (8, 16), classes: int = 5) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dims[0], 4, stride=4)
        self.stage1 = TinyViTBlock(dims[0], (8, 8))
        self.merge = PatchMerging((8, 8), dims[0], dims[1])
        self.stage2 = TinyViTBlock(dims[1], (4, 4))
        self.head = nn.Linear(dims[1], classes)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        x = self.stage2(self.merge(self.stage1(x)))
        return self.head(x.mean(1))


def build() -> nn.Module:
    return TinyViT().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
