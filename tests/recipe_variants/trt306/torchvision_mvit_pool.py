"""MViT V2's pooling of the tokens behind the class token, with ``torch.tensor_split``: torchvision.

Reduced from pytorch/vision, torchvision/models/video/mvit.py, ``_Pool.forward`` (the line migrate
located when MViT V2 of the second real zoo migrated, mvit.py:87): the class token is cut off the token axis with
``torch.tensor_split(x, indices=(1,), dim=2)``, the other tokens are laid back out as a
(T, H, W) volume, pooled by a strided 3-d convolution, flattened again and put back behind the class
token. Written here in our own words as one module that builds the tokens from a video feature map
(batch, channels, T, H, W) with a learned class token, per head, so that T, H and W follow the input.
"""

import torch
from torch import nn


class PoolBehindClassToken(nn.Module):
    def __init__(self, channels: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = channels // heads
        self.cls = nn.Parameter(torch.randn(1, heads, 1, self.head_dim))
        self.pool = nn.Conv3d(self.head_dim, self.head_dim, 3, stride=2, padding=1, groups=self.head_dim, bias=False)
        self.norm = nn.LayerNorm(self.head_dim)

    def forward(self, video):
        batch, channels, t, h, w = video.shape
        tokens = video.flatten(2).transpose(1, 2).reshape(batch, -1, self.heads, self.head_dim).transpose(1, 2)
        x = torch.cat((self.cls.expand(batch, -1, -1, -1), tokens), dim=2)

        cls_token, x = torch.tensor_split(x, indices=(1,), dim=2)
        x = x.transpose(2, 3)
        x = x.reshape(batch * self.heads, self.head_dim, t, h, w)
        x = self.pool(x)
        x = x.reshape(batch, self.heads, self.head_dim, -1).transpose(2, 3)
        x = torch.cat((cls_token, x), dim=2)
        return self.norm(x)


def build() -> nn.Module:
    return PoolBehindClassToken()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 3, 4, 5, generator=generator),)


DYNAMIC = {"video": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
