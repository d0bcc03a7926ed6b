"""Pad to a multiple of 8 by writing the image and the mask into filled tensors, only when a side is
not one: CascadePSP's ``safe_forward``.

Reduced from hkchengrex/CascadePSP@481847c8f20d11e036c2b29d0be290aa8fa26071 eval_helper.py:7-39 (the
same function ships in the segmentation-refinement 0.6 wheel, segmentation_refinement/eval_helper.py:13-45):
``if (ph % 8 != 0) or (pw % 8 != 0):`` the next multiples of 8 (one more 8 than needed is never
taken, as the test asks), a zero image and a mask filled with -1 of those sizes, the inputs written into
their top-left corner and the names rebound, a coarse map padded the same way under ``if ... is not
None:``; the refinement's maps cropped back after. Written here in our own words, with a small network
whose output depends on every pixel of what it gets (a mean over the image), as the real one's does.
"""

import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Conv2d(4, 2, 3, padding=1)
        self.extra = nn.Conv2d(1, 2, 3, padding=1)

    def forward(self, im, seg, coarse=None):
        y = self.net(torch.cat([im, seg], 1))
        if coarse is not None:
            y = y + self.extra(coarse)
        return y - y.mean(dim=(2, 3), keepdim=True)


def refine_padded(net, im, seg, coarse=None):
    n, _, rows, cols = seg.shape
    if (rows % 8 != 0) or (cols % 8 != 0):
        rows8 = ((rows // 8 + 1) * 8)
        cols8 = ((cols // 8 + 1) * 8)
        big_im = torch.zeros(n, 3, rows8, cols8, device=im.device)
        big_seg = torch.zeros(n, 1, rows8, cols8, device=im.device) - 1

        big_im[:, :, 0:rows, 0:cols] = im
        big_seg[:, :, 0:rows, 0:cols] = seg
        im = big_im
        seg = big_seg

        if coarse is not None:
            big_coarse = torch.zeros(n, 1, rows8, cols8, device=im.device) - 1
            big_coarse[:, :, 0:rows, 0:cols] = coarse
            coarse = big_coarse
    out = net(im, seg, coarse)
    return out[:, :, 0:rows, 0:cols]


class Wrap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.refiner = Refiner()

    def forward(self, x):
        mask = (x[:, 3:] > 0).float() * 2 - 1
        return refine_padded(self.refiner, x[:, :3], mask, coarse=x[:, 3:])


def build() -> nn.Module:
    return Wrap()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 30, 21, generator=generator),)


DYNAMIC = {"x": {0: "n", 2: "h", 3: "w"}}
