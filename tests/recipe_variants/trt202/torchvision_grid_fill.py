"""torchvision's grid transform with a fill colour: a channel of ones is sampled with the
image, and where it came out below 0.5 (outside the source, nearest mode) the pixel takes the
fill colour, ``img[mask] = fill_img[mask]`` with a mask of the image's own shape and a value
selected by the same mask.

Reduced from pytorch/vision at tag v0.29.1 (the PyPI release the zoo unpacks),
torchvision/transforms/_functional_tensor.py:554-571 (``_apply_grid_transform``: the ones
channel ``torch.cat((img, mask), dim=1)``, ``grid_sample(..., mode=mode, padding_mode="zeros")``,
``mask = img[:, -1:, :, :]``, ``img = img[:, :-1, :, :]``, ``mask = mask.expand_as(img)``, the
fill image ``torch.tensor(fill_list, ...).view(1, len_fill, 1, 1).expand_as(img)``, then in
nearest mode ``mask = mask < 0.5`` and ``img[mask] = fill_img[mask]``), written here in our own
words; the dtype casts and the bilinear branch are left out.
"""

import torch
from torch import Tensor, nn
from torch.nn.functional import grid_sample


class GridFill(nn.Module):
    def __init__(self, fill: tuple = (0.25, 0.5, 0.75)) -> None:
        super().__init__()
        self.fill = list(fill)

    def forward(self, img: Tensor, grid: Tensor) -> Tensor:
        mask = torch.ones((img.shape[0], 1, img.shape[2], img.shape[3]), dtype=img.dtype, device=img.device)
        img = torch.cat((img, mask), dim=1)
        img = grid_sample(img, grid, mode="nearest", padding_mode="zeros", align_corners=False)
        mask = img[:, -1:, :, :]
        img = img[:, :-1, :, :]
        mask = mask.expand_as(img)
        fill_img = torch.tensor(self.fill, dtype=img.dtype, device=img.device).view(1, len(self.fill), 1, 1)
        fill_img = fill_img.expand_as(img)
        mask = mask < 0.5
        img[mask] = fill_img[mask]
        return img


def build() -> nn.Module:
    return GridFill()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    img = torch.rand(1, 3, 6, 5, generator=generator)
    grid = torch.rand(1, 6, 5, 2, generator=generator) * 3 - 1.5  # a third of it outside the image
    return img, grid


DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}, "grid": {0: "batch", 1: "height", 2: "width"}}
