"""kornia's CLAHE: the bilinear weights that blend the equalized tiles of neighbouring grid cells.

Reduced from kornia 0.9.0, enhance/equalization.py: ``_compute_equalized_tiles`` (lines 346-429) reads
``num_imgs, gh, gw, c, th, tw = interp_tiles.shape`` and builds the row weights as
``torch.arange(2 * th, 0, -1, dtype=...).sub(0.5).div(2.0 * th)`` (lines 387-393), the column weights
likewise with ``2.0 * tw`` (lines 395-400), unfolds them into the two half-tiles and blends the four
neighbouring look-up results with ``torch.addcmul`` (lines 403-411, the internal regions). Here the four
look-ups are the input tiles shifted by fixed offsets. Written here in our own words.
"""

import torch
from torch import nn


class ClaheBlend(nn.Module):
    def forward(self, interp_tiles):
        num_imgs, gh, gw, c, th, tw = interp_tiles.shape
        ih = (
            torch.arange(2 * th, 0, -1, dtype=interp_tiles.dtype, device=interp_tiles.device)
            .sub(0.5)
            .div(2.0 * th)[None]
            .transpose(-2, -1)
            .expand(2 * th, tw)
        )
        ih = ih.unfold(0, th, th).unfold(1, tw, tw)
        iw = (
            torch.arange(2 * tw, 0, -1, dtype=interp_tiles.dtype, device=interp_tiles.device)
            .sub(0.5)
            .div(2.0 * tw)
            .expand(th, 2 * tw)
        )
        iw = iw.unfold(0, th, th).unfold(1, tw, tw)
        tiw = iw.expand((gw - 2) // 2, 2, th, tw).reshape(gw - 2, 1, th, tw).unsqueeze(0)
        tih = ih.repeat((gh - 2) // 2, 1, 1, 1).unsqueeze(1)
        inner = interp_tiles[:, 1:-1, 1:-1]
        tl, tr, bl, br = inner, inner + 0.25, inner - 0.5, inner * 0.5
        t = torch.addcmul(tr, tiw, torch.sub(tl, tr))
        b = torch.addcmul(br, tiw, torch.sub(bl, br))
        return torch.addcmul(b, tih, torch.sub(t, b))


def build() -> nn.Module:
    return ClaheBlend().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 6, 8, 3, 4, 5, generator=generator),)


#: Static shapes: with a dynamic batch the TorchScript exporter refuses the ``unfold`` of the weights (input size
#: not accessible), before and after the rewrite.
DYNAMIC: dict = {}
