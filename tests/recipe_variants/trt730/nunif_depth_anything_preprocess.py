"""nunif's iw3 (2D-to-3D video) resizes each frame for Depth Anything before the depth model: with
``limit_resolution`` and a frame smaller than the model's resolution, ``batch_preprocess(x, lower_bound, ...)``
lowers the target to the frame's short side, ``lower_bound = min(W, H)``, rounds it down to a multiple of the
patch size with ``lower_bound -= lower_bound % ensure_multiple_of`` and keeps it above a floor with ``max``; the
scale is then ``lower_bound / W`` (or ``/ H``) and the new size ``int(H * scale_factor)``, rounded down to the
multiple again. ``W`` and ``H`` come from ``x.shape``. In eager mode they are ``int``s and ``min`` hands back one
of them, so ``-=`` rebinds ``lower_bound`` alone. While the TorchScript exporter traces, ``W`` and ``H`` are 0-d
tensors, ``min`` hands back the very tensor ``H`` (or ``W``), and ``-=`` is an in-place ``sub_`` on it: the
frame's own height shrinks with the target, the scale becomes ``lower_bound / H = 1``, and the traced graph
resizes to another size than eager mode does, on the very frame it was traced with. No caller is involved: the
size the update changes is the function's own ``H``, which ``min`` aliased.

Reduced from nagadomi/nunif @ d23721f1b5f0a4c92c3ee1be013180bf298730c5, iw3/depth_anything_model.py:
``batch_preprocess`` (lines 69-110; the alias at line 77, the update at line 78) and its call in ``batch_infer``
(line 140, ``batch_preprocess(x, model.prep_lower_bound, limit_resolution=limit_resolution)``). Written here in our
own words. Kept: the unpacked ``x.shape``, the ``limit_resolution`` branch (``min``, the augmented update, the
``max`` floor), the scale by the short side, ``int`` sizes, the aspect-ratio cap, the rounding of both sides with
``-=``, the lower bound, the bilinear resize and the in-place clamp and normalisation. Reduced: the model's
resolution is 56 with a floor of 28 (392 by default and 224 there); ``antialias`` is off (nunif turns it off on MPS
and XPU devices); Depth Anything's ViT is one patch-sized strided convolution.
"""

import torch
import torch.nn.functional as F
from torch import nn

MIN_RESOLUTION = 28


def batch_preprocess(x, lower_bound=56, max_aspect_ratio=4, limit_resolution=False):
    B, C, H, W = x.shape
    ensure_multiple_of = 14

    if limit_resolution and lower_bound > min(W, H):
        lower_bound = min(W, H)
        lower_bound -= lower_bound % ensure_multiple_of
        lower_bound = max(lower_bound, MIN_RESOLUTION)

    if W < H:
        scale_factor = lower_bound / W
    else:
        scale_factor = lower_bound / H
    new_h = int(H * scale_factor)
    new_w = int(W * scale_factor)

    if new_h < new_w:
        new_w = min(new_w, int(max_aspect_ratio * new_h))
    else:
        new_h = min(new_h, int(max_aspect_ratio * new_w))

    new_h -= new_h % ensure_multiple_of
    new_w -= new_w % ensure_multiple_of
    if new_h < lower_bound:
        new_h = lower_bound
    if new_w < lower_bound:
        new_w = lower_bound

    x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
    x.clamp_(0, 1)
    mean = torch.tensor([0.485, 0.456, 0.406], dtype=x.dtype, device=x.device).reshape(1, 3, 1, 1)
    stdv = torch.tensor([0.229, 0.224, 0.225], dtype=x.dtype, device=x.device).reshape(1, 3, 1, 1)
    x.sub_(mean).div_(stdv)
    return x


class DepthAnythingFrames(nn.Module):
    def __init__(self, prep_lower_bound: int = 56) -> None:
        super().__init__()
        self.prep_lower_bound = prep_lower_bound
        self.patch = nn.Conv2d(3, 1, kernel_size=14, stride=14)

    def forward(self, x):
        frame = x.clone()
        x = batch_preprocess(frame, self.prep_lower_bound, limit_resolution=True)
        return F.relu(self.patch(x))


def build() -> nn.Module:
    return DepthAnythingFrames()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 40, width: int = 50) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
CALL = "lower_bound -= lower_bound % ensure_multiple_of"
