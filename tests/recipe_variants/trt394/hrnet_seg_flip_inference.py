"""HRNet-Semantic-Segmentation's flip inference: the image and the scores mirrored by a reversed NumPy slice.

Reduced from HRNet/HRNet-Semantic-Segmentation @ 0bbb2880446ddff2d78f8dd7e8c4c610151d5a51, lib/datasets/base_dataset.py,
``inference`` (lines 190 to 220): ``flip_img = image.numpy()[:, :, :, ::-1]`` (line 203) and ``flip_output =
model(torch.from_numpy(flip_img.copy()))`` (line 204) segment the mirrored image, then ``flip_pred =
flip_output.cpu().numpy().copy()`` (line 214) and ``flip_pred = torch.from_numpy(flip_pred[:, :, :, ::-1].copy())
.cuda()`` (lines 215 and 216) mirror its scores back, which are averaged with the image's and exponentiated. Kept:
both round trips as written, each split over two consecutive statements through a name (the first never read
again, the second rebound), NumPy's flip spelled as a slice with a negative step, the in-place sum and the ``exp``,
without gradients as HRNet's testing runs. Reduced: a convolution for the model (one output, at the image's size,
so no ``F.interpolate`` back to it), no ``.cuda()``. Written here in our own words.

Why it matters for export: ``.numpy()`` leaves the trace; a TorchScript export records the example's mirrored image
and the example's mirrored scores as constants, so every input gets the example's scores averaged in.
"""

import torch
from torch import nn

DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
#: The statement that mirrors the image through NumPy (the rule's first finding; its fix runs through the next line).
CALL = "flip_img = image.numpy()[:, :, :, ::-1]"


class FlipInference(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.model = nn.Conv2d(3, 4, 3, padding=1)

    @torch.no_grad()
    def forward(self, image):
        pred = self.model(image)
        flip_img = image.numpy()[:, :, :, ::-1]
        flip_output = self.model(torch.from_numpy(flip_img.copy()))
        flip_pred = flip_output.cpu().numpy().copy()
        flip_pred = torch.from_numpy(
            flip_pred[:, :, :, ::-1].copy())
        pred += flip_pred
        pred = pred * 0.5
        return pred.exp()


def build() -> nn.Module:
    return FlipInference().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 10) -> tuple[torch.Tensor, ...]:
    """``batch`` normalised RGB images of ``height`` x ``width`` pixels (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
