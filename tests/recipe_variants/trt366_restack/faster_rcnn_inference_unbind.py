"""An inference function over a sequence of images, handed a batch's rows by ``x.unbind(0)``.

Reduced from oriented_det 0.4.1 (PyPI; DL4EO/oriented-det), oriented_det/models/faster_rcnn_inference.py:285-297
(``faster_rcnn_inference(model, images: Sequence[torch.Tensor], ...)``: ``if not isinstance(images, (list,
tuple)): images = [images]``, the image sizes, ``images_tensor = torch.stack(images, dim=0)``), in our own words:
the region scores of a small backbone, with the rows handed over by the tensor's own ``unbind``.
"""

from typing import Sequence, Tuple

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def region_scores(model: nn.Module, images: Sequence[torch.Tensor]) -> torch.Tensor:
    if not isinstance(images, (list, tuple)):
        images = [images]
    images_tensor = torch.stack(images, dim=0)
    return model(images_tensor).flatten(2).softmax(-1)


class Wrap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return region_scores(self.net, x.unbind(0))


def build() -> nn.Module:
    return Wrap()


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 6, 6, generator=generator),)
