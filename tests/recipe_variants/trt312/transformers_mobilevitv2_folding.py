"""MobileViT-v2's patch folding: non-overlapping patches put back into a feature map.

Reduced from huggingface/transformers 5.24.0, src/transformers/models/mobilevitv2/modeling_mobilevitv2.py,
``MobileViTV2Layer.unfolding`` (lines 416-425), ``MobileViTV2Layer.folding`` (lines 427-438) and
``MobileViTV2Layer.forward`` (lines 440-461): the feature map is cut into ``patch_size`` x
``patch_size`` patches by ``nn.functional.unfold``, the patches go through the global
representation (linear attention blocks and a GroupNorm), and ``folding`` puts them back with
``nn.functional.fold(`` spread over four lines, ``output_size=output_size`` (the map's height and
width, a tuple read from its shape), ``kernel_size`` and ``stride`` both the tuple
``(self.patch_height, self.patch_width)``. Written here in our own words with the local
representation cut to two convolutions, the attention blocks to one token-wise mixing
convolution, and no downsampling layer; the height and width are multiples of the patch size,
as MobileViT-v2's stages give them.
"""

import torch
from torch import nn


class MobileViTV2Layer(nn.Module):
    def __init__(self, channels=8, attn_dim=12, patch_size=2):
        super().__init__()
        self.patch_height = patch_size
        self.patch_width = patch_size
        self.conv_kxk = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)
        self.conv_1x1 = nn.Conv2d(channels, attn_dim, 1, bias=False)
        self.transformer = nn.Sequential(nn.GroupNorm(1, attn_dim), nn.Conv2d(attn_dim, attn_dim, 1), nn.SiLU())
        self.layernorm = nn.GroupNorm(num_groups=1, num_channels=attn_dim)
        self.conv_projection = nn.Conv2d(attn_dim, channels, 1)

    def unfolding(self, feature_map):
        patch = (self.patch_height, self.patch_width)
        columns = nn.functional.unfold(feature_map, kernel_size=patch, stride=patch)
        per_patch = columns.reshape(columns.shape[0], feature_map.shape[1], patch[0] * patch[1], -1)
        return per_patch, (feature_map.shape[2], feature_map.shape[3])

    def folding(self, patches, output_size):
        patches = patches.flatten(1, 2)

        feature_map = nn.functional.fold(
            patches,
            output_size=output_size,
            kernel_size=(self.patch_height, self.patch_width),
            stride=(self.patch_height, self.patch_width),
        )

        return feature_map

    def forward(self, features):
        features = self.conv_1x1(self.conv_kxk(features))
        patches, output_size = self.unfolding(features)
        patches = self.layernorm(self.transformer(patches))
        features = self.folding(patches, output_size)
        return self.conv_projection(features)


def build() -> nn.Module:
    torch.manual_seed(0)
    return MobileViTV2Layer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 8, 12, generator=generator),)


DYNAMIC = {"features": {0: "batch", 2: "height", 3: "width"}}
