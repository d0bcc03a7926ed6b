"""DiT's output head: tokens back to a latent image through a 6-D einsum permutation: facebookresearch/DiT.

Reduced from facebookresearch/DiT at ed81ce2229091fd4ecc9a223645f95cf379d582b, models.py,
``DiT.unpatchify`` (lines 218-231: ``x = x.reshape(shape=(x.shape[0], h, w, p, p, c))``, then
``x = torch.einsum('nhwpqc->nchpwq', x)`` on line 229, then a reshape to a square image) called
at the end of ``DiT.forward`` (lines 233-248, after the final layer's linear map to
``patch_size**2 * out_channels``). Written here in our own words: a strided convolution stands for
the patch embedding, the transformer blocks and the conditioning are left out, and the grid comes
from the input's size (the original's ``int(x.shape[1] ** 0.5)`` would be a number baked into the
export, another rule's matter). As in DiT, the output has twice the input's channels (noise and
variance) and the image is square.
"""

import torch
from torch import nn


class DiTHead(nn.Module):
    def __init__(self, channels: int = 2, patch: int = 2, hidden: int = 8) -> None:
        super().__init__()
        self.patch, self.out_channels = patch, 2 * channels
        self.x_embedder = nn.Conv2d(channels, hidden, kernel_size=patch, stride=patch)
        self.final_layer = nn.Linear(hidden, patch * patch * self.out_channels)

    def unpatchify(self, x, h):
        c, p = self.out_channels, self.patch
        x = x.reshape(shape=(x.shape[0], h, h, p, p, c))
        x = torch.einsum('nhwpqc->nchpwq', x)
        return x.reshape(shape=(x.shape[0], c, h * p, h * p))

    def forward(self, x):
        h = x.shape[2] // self.patch
        tokens = self.x_embedder(x).flatten(2).transpose(1, 2)
        return self.unpatchify(self.final_layer(tokens), h)


def build() -> nn.Module:
    return DiTHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 4, 4, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "size", 3: "size"}}
