"""AlphaPose's flip test runs the pose network on the image and on its mirror image, then maps the mirrored
heatmaps back with ``flip_heatmap``: it flips the width axis, swaps the heatmaps of left/right joint pairs and,
with ``shift=True``, moves the flipped heatmap one column to the right so it lines up with the unflipped one
(the mirrored feature grid is off by one pixel). The shift is written as a slice assignment whose source is an
overlapping view of the same tensor, ``out[:, :, :, 1:] = out[:, :, :, 0:-1]``. PyTorch does not define such
a copy: eager copies column by column, so later columns read values already overwritten (a smear), while the
ONNX exporters read the source as it was before the write.

Reduced from MVIG-SJTU/AlphaPose @ c60106d19afb443e964df6f06ed1842962f5f1f7, alphapose/utils/transforms.py
lines 484-523 (``flip`` and ``flip_heatmap``), as scripts/demo_inference.py lines 246-251 calls it
(``hm_j_flip = flip_heatmap(hm_j[half:], joint_pairs, shift=True)`` then the average). What is reduced: the
pose network is two convolutions giving four joint heatmaps, the joint pairs are (0, 1) and (2, 3), only the
4-D branch of the shift is kept, and the batch is split by the input's batch size instead of ``len(hm) / 2``.
Written here in our own words.
"""

import torch
from torch import nn


def flip(x: torch.Tensor) -> torch.Tensor:
    return x.flip(dims=(x.dim() - 1,))


def flip_heatmap(heatmap: torch.Tensor, joint_pairs, shift: bool = False) -> torch.Tensor:
    out = flip(heatmap)
    for first, second in joint_pairs:
        idx = torch.Tensor((first, second)).long()
        inv_idx = torch.Tensor((second, first)).long()
        out[:, idx] = out[:, inv_idx]
    if shift:
        out[:, :, :, 1:] = out[:, :, :, 0:-1]
    return out


class TinyPoseFlipTest(nn.Module):
    joint_pairs = ((0, 1), (2, 3))

    def __init__(self, joints: int = 4) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.head = nn.Conv2d(8, joints, 3, padding=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        n = images.shape[0]
        both = torch.cat((images, flip(images)))
        hm = self.head(self.stem(both).relu())
        hm_flip = flip_heatmap(hm[n:], self.joint_pairs, shift=True)
        return (hm[:n] + hm_flip) / 2


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyPoseFlipTest().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
CALL = "out[:, :, :, 1:] = out[:, :, :, 0:-1]"
