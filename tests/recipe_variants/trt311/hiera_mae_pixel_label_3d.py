"""Hiera's MAE targets for video: 5-D frames cut into pixel patches by two ``unfold(d, size, size)``.

Reduced from facebookresearch/hiera at commit b12b842542ee5c757fcfec8c41f6b56fcbe89b65,
hiera/hiera_mae.py, ``MaskedAutoencoderHiera.get_pixel_label_3d`` (lines 164-183), called by
``forward_loss`` (lines 255-275) from ``forward``: the video ``(B, C, T, H, W)`` keeps one frame
per temporal patch (``input_vid[:, :, ::self.patch_stride[0], :, :]``), is cut by
``input_vid.unfold(3, size, size).unfold(4, size, size)`` with ``size = self.pred_stride``,
permuted and flattened to one row of pixels per token; the masked tokens' rows are kept and each is
normalized by its mean and variance. Written here in our own words as a module over the video
and the token mask (True for a masked token); the encoder and decoder are left out.
"""

import torch
from torch import nn


class PixelLabel3d(nn.Module):
    def __init__(self, temporal_stride: int = 2, pred_stride: int = 4) -> None:
        super().__init__()
        self.patch_stride = (temporal_stride, 4, 4)
        self.pred_stride = pred_stride

    def forward(self, input_vid, mask):
        input_vid = input_vid[:, :, ::self.patch_stride[0], :, :]
        size = self.pred_stride
        label = input_vid.unfold(3, size, size).unfold(4, size, size)
        label = label.permute(0, 2, 3, 4, 5, 6, 1)
        label = label.flatten(1, 3).flatten(2)
        label = label[mask]
        mean = label.mean(dim=-1, keepdim=True)
        var = label.var(dim=-1, keepdim=True)
        return (label - mean) / (var + 1.0e-6) ** 0.5


def build() -> nn.Module:
    return PixelLabel3d()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    video = torch.randn(2, 3, 4, 8, 12, generator=generator)
    mask = torch.rand(2, 2 * 2 * 3, generator=generator) < 0.5
    return video, mask


DYNAMIC = {"input_vid": {0: "batch", 2: "frames", 3: "height", 4: "width"}, "mask": {0: "batch", 1: "tokens"}}
