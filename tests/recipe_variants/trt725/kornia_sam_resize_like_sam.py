"""kornia's ``VisualPrompter`` resizes the image for SAM's encoder the way SAM's reference does:
``_resize_like_sam`` promotes the image to at least float32 (``torch.promote_types``), resizes it
bilinearly with the literal ``antialias=True`` to a size fixed by the prompter's ``Resize`` stage,
falls back to a CPU resize in an ``except NotImplementedError`` (a second antialiased call, for
MPS), and casts the result back to the image's dtype. The output size is fixed while the input's
varies; two calls, one in an exception handler.

Reduced from kornia 0.9.0 (the PyPI wheel the second zoo unpacks),
kornia/contrib/visual_prompter.py, ``_resize_like_sam`` lines 36-50, called from
``VisualPrompter.set_image`` lines 235-251 (the output size from the ``Resize`` stage's
parameters, then ``preprocess_image``). Written here in our own words: an ``nn.Module`` holds the
size and the pixel statistics, and normalises the resized image as ``preprocess_image`` does;
the padding to the encoder's size and the encoder are left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _resize_like_sam(image: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    x = image.to(torch.promote_types(image.dtype, torch.float32))
    try:
        out = F.interpolate(x, size=size, mode="bilinear", align_corners=False, antialias=True)
    except NotImplementedError:
        if x.device.type != "mps":
            raise
        out = F.interpolate(x.cpu(), size=size, mode="bilinear", align_corners=False, antialias=True).to(x.device)
    return out.to(image.dtype)


class SamImageResize(nn.Module):
    def __init__(self, size: tuple[int, int] = (24, 32)) -> None:
        super().__init__()
        self.size = size
        self.register_buffer("pixel_mean", torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        image = _resize_like_sam(image, self.size)
        return (image - self.pixel_mean) / self.pixel_std


def build() -> nn.Module:
    return SamImageResize()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 48, 60, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
