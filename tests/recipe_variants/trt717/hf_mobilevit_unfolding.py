"""Resize to whole patches only when the size changed, and record it: transformers' MobileViT.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/mobilevit/modeling_mobilevit.py
:388-433 and :439-465 (``MobileViTLayer.unfolding``: the new sizes rounded up to whole patches, with
``torch.ceil`` while tracing and ``math.ceil`` otherwise; ``interpolate = False`` and ``if new_width !=
orig_width or new_height != orig_height:`` a bilinear resize and ``interpolate = True``; the flag
travels in a dict to ``folding``, which resizes back to the original size ``if
info_dict["interpolate"]``), written here in our own words with a patch mean standing in for the
transformer.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def as_int(x):
    """transformers' ``torch_int``: a traced size stays a tensor, anything else becomes an int."""
    return x.to(torch.int64) if torch.jit.is_tracing() and isinstance(x, torch.Tensor) else int(x)


class MobileViTLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch_height, self.patch_width = 2, 2
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def unfolding(self, features):
        batch_size, channels, orig_height, orig_width = features.shape
        new_height = (
            as_int(torch.ceil(orig_height / self.patch_height) * self.patch_height)
            if torch.jit.is_tracing()
            else int(math.ceil(orig_height / self.patch_height) * self.patch_height)
        )
        new_width = (
            as_int(torch.ceil(orig_width / self.patch_width) * self.patch_width)
            if torch.jit.is_tracing()
            else int(math.ceil(orig_width / self.patch_width) * self.patch_width)
        )
        interpolate = False
        if new_width != orig_width or new_height != orig_height:
            features = F.interpolate(features, size=(new_height, new_width), mode="bilinear", align_corners=False)
            interpolate = True
        info = {"orig_size": (orig_height, orig_width), "interpolate": interpolate}
        return features, info

    def folding(self, features, info):
        if info["interpolate"]:
            features = F.interpolate(features, size=info["orig_size"], mode="bilinear", align_corners=False)
        return features

    def forward(self, x):
        features, info = self.unfolding(x)
        b, c, h, w = features.shape
        patches = features.reshape(b, c, h // self.patch_height, self.patch_height, w // self.patch_width,
                                   self.patch_width)
        mixed = self.conv(features) + patches.mean(dim=(3, 5)).repeat_interleave(2, 2).repeat_interleave(2, 3)
        return self.folding(mixed, info)


def build() -> nn.Module:
    return MobileViTLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 8, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
