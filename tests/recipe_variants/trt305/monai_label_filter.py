"""A segmentation's chosen labels kept, every other voxel zeroed, with ``torch.isin``: MONAI.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/transforms/post/array.py, ``LabelFilter.__call__``
(lines 482-508: ``appl_lbls = torch.as_tensor(self.applied_labels, device=img_.device)`` and
``out = torch.where(torch.isin(img_, appl_lbls), img_, torch.tensor(0.0).to(img_))``, line 503).
Written here in our own words, as a module after an argmax over the class channel: a float label
map tested against integer labels.
"""

import torch
from torch import nn


class LabelFilter(nn.Module):
    def __init__(self, applied_labels=(1, 3)) -> None:
        super().__init__()
        self.applied_labels = tuple(applied_labels)

    def forward(self, logits):
        img_ = logits.argmax(1, keepdim=True).to(torch.float32)
        appl_lbls = torch.as_tensor(self.applied_labels, device=img_.device)
        return torch.where(torch.isin(img_, appl_lbls), img_, torch.tensor(0.0).to(img_))


def build() -> nn.Module:
    return LabelFilter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 5, 6, generator=generator),)


DYNAMIC = {"logits": {0: "batch", 2: "height", 3: "width"}}
