"""RetinaFace's box decoding for a batch: each image's offsets decoded against one set of priors, then stacked.

The decoding is ternaus/retinaface @ b72317d682c9e17492f5418073073e63c4ce2ce2, retinaface/box_utils.py:205
(``decode``: centres and sizes from the priors and variances, then the corners fixed up in place,
``boxes[:, :2] -= boxes[:, 2:] / 2``, ``boxes[:, 2:] += boxes[:, :2]``); the batch comprehension is zoo 27's
``retinaface_decode`` wrapper of it (``torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])``), written
here in our own words with static priors (a buffer) so that the comprehension is the only problem.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def decode(loc, priors, variances):
    """Corner boxes from (dx, dy, dw, dh) predictions against (cx, cy, w, h) priors."""
    boxes = torch.cat((priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
                       priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1)
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)  # two priors of four offsets a cell
        centres = (torch.arange(4.0) + 0.5) / 4
        cy, cx = torch.meshgrid(centres, centres, indexing="ij")
        cells = torch.stack([cx, cy], -1).reshape(-1, 1, 2).repeat(1, 2, 1)
        sizes = torch.tensor([[0.1, 0.1], [0.3, 0.3]]).expand(16, 2, 2)
        self.register_buffer("priors", torch.cat([cells, sizes], -1).reshape(-1, 4))

    def forward(self, x):
        loc = self.head(x).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 4)
        return torch.stack([decode(l, self.priors, [0.1, 0.2]) for l in loc])


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 16, generator=generator),)
