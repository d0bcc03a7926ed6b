"""DaD's sub-pixel keypoint refinement: a grid of cell offsets made by a function of the file, its two columns
scaled in place by the map's width and height (``offsets[..., 0] = offsets[..., 0] * nms_size / W``), then an
``einsum`` of the softmax over each keypoint's patch of scores with those offsets, added to the keypoints.

Reduced from Parskatt/DaD as published on PyPI (dad_detector 0.2.2, the ninety-third zoo's wheel),
``dad/utils.py:69-75`` (``get_grid``: ``torch.linspace(-1 + 1 / n, 1 - 1 / n, n)`` for each of (B, H, W), a
meshgrid, two of its planes stacked and reshaped) and ``dad/utils.py:123-186`` (``sample_keypoints``' top-k and
sub-pixel branch: ``extract_patches_from_inds`` by ``nn.Unfold`` and ``gather``), written here in our own words; the
coverage reweighting and the non-maximum suppression before the top-k are left out.

Why it is here: the in-place writes lose the tensor's type in the TorchScript exporter, which then computes the
written columns in float64 (two ``Cast`` nodes to float64 that TensorRT refuses; the ``Einsum`` of float32
probabilities and float64 offsets is refused by ONNX Runtime at load). Built anew (TRT203), the offsets stay float32.
"""

import torch
from torch import nn


def cell_grid(b: int, h: int, w: int) -> torch.Tensor:
    """Cell centres in [-1, 1], (b, h * w, 2) as (x, y)."""
    planes = torch.meshgrid(*[torch.linspace(-1 + 1 / n, 1 - 1 / n, n) for n in (b, h, w)], indexing="ij")
    planes = torch.stack((planes[2], planes[1]), dim=-1).reshape(b, h * w, 2)
    return planes


def patches_at(scores: torch.Tensor, inds: torch.Tensor, size: int) -> torch.Tensor:
    """The ``size`` x ``size`` patch of ``scores`` (b, h, w) around each flat position of ``inds`` (b, k)."""
    b, _, _ = scores.shape
    unfolded = nn.Unfold(kernel_size=size, padding=size // 2, stride=1)(scores[:, None])
    return torch.gather(unfolded, dim=2, index=inds[:, None, :].expand(b, size**2, inds.shape[1]))


class SubpixelKeypoints(nn.Module):
    def __init__(self, count: int = 6, nms_size: int = 3, temperature: float = 0.5) -> None:
        super().__init__()
        self.count, self.nms_size, self.temperature = count, nms_size, temperature

    def forward(self, scoremap: torch.Tensor) -> torch.Tensor:
        B, H, W = scoremap.shape
        nms_size = self.nms_size
        probs = scoremap.reshape(B, H * W).softmax(-1)
        inds = torch.topk(probs, k=self.count).indices
        grid = cell_grid(B, H, W)
        kps = torch.gather(grid, dim=1, index=inds[..., None].expand(B, self.count, 2))
        offsets = cell_grid(B, nms_size, nms_size).reshape(B, nms_size**2, 2)
        offsets[..., 0] = offsets[..., 0] * nms_size / W
        offsets[..., 1] = offsets[..., 1] * nms_size / H
        patch = (patches_at(scoremap, inds, nms_size) / self.temperature).softmax(dim=1)
        return kps + torch.einsum("bkn, bkd ->bnd", patch, offsets)


def build() -> nn.Module:
    return SubpixelKeypoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 12, 10, generator=generator),)


DYNAMIC = {"scoremap": {0: "batch", 1: "height", 2: "width"}}
