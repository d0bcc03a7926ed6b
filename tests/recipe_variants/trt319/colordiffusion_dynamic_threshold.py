"""Color-diffusion's dynamic threshold: the ``percentile`` quantile of |x| over each image's
flattened values (``torch.quantile(rearrange(img, 'b ... -> b (...)').abs(), percentile, dim=-1)``),
at least 1 (``s.clamp_(min=1.)``), padded with trailing axes and used to clamp and scale the image.

Reduced from ErwannMillon/Color-diffusion at 6a576624d92f4bf4c17ee4a5a4b3e4edaa81dde8,
dynamic_threshold.py, ``dynamic_threshold`` lines 5-16 (the quantile at lines 6-10), with
``right_pad_dims_to`` from its utils.py. Written here in our own words: einops' ``rearrange`` is a
``reshape`` of the batch against the rest (tests do not import einops), and a convolution in front
predicts the image the threshold clips.
"""

import torch
from torch import nn


def right_pad_dims_to(x, t):
    padding_dims = x.ndim - t.ndim
    if padding_dims <= 0:
        return t
    return t.view(*t.shape, *((1,) * padding_dims))


def dynamic_threshold(img, percentile=0.8):
    s = torch.quantile(img.reshape(img.shape[0], -1).abs(), percentile, dim=-1)
    # a threshold under 1 leaves the image as the [-1, 1] clamp would
    s.clamp_(min=1.)
    s = right_pad_dims_to(img, s)
    img = img.clamp(-s, s) / s
    return img


class ClippedPrediction(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return dynamic_threshold(self.conv(image) * 2.0)


def build() -> nn.Module:
    return ClippedPrediction()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 5, 6, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
