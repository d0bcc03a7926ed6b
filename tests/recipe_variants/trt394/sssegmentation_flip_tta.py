"""SSSegmentation's test-time augmentation: a segmentor's scores on the image and on its mirror image, averaged.

Reduced from SegmentationBLWX/sssegmentation @ eb1878c112402e86a92ee6958778272065bf59b9,
ssseg/modules/models/segmentors/base/base.py, ``auginference`` (lines 89 to 117): for each scale the images are
mirrored through NumPy, ``torch.from_numpy(np.flip(images_scale.cpu().numpy(), axis=3).copy())`` (line 99), segmented
again, and the flipped scores are mirrored back the same way, ``torch.from_numpy(np.flip(seg_logits_flip.cpu()
.numpy(), axis=3).copy()).type_as(seg_logits)`` (line 114). Kept: both round trips as written, the ``.cpu()`` of the
scores and the ``type_as``, run without gradients as SSSegmentation's inference runs. Reduced: one scale (1.0, where
``F.interpolate`` keeps the size), a convolution for the segmentor, no swap of symmetric classes
(``fixed_seg_target_pairs``), and the list of scores averaged here rather than by the caller. Written here in our
own words.

Why it matters for export: ``.numpy()`` leaves the trace, so a TorchScript export records the example's mirrored
image as a constant: the graph segments the example's mirror image for every input, and at another size it fails.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
#: The round trip that mirrors the input (the rule's first finding).
CALL = "images_flip = torch.from_numpy(np.flip(images.cpu().numpy(), axis=3).copy())"


class FlipTTASegmentor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.segmentor = nn.Conv2d(3, 5, 3, padding=1)

    def inference(self, images):
        return self.segmentor(images)

    @torch.no_grad()
    def forward(self, images):
        seg_logits = self.inference(images).cpu()
        images_flip = torch.from_numpy(np.flip(images.cpu().numpy(), axis=3).copy())
        seg_logits_flip = self.inference(images_flip)
        seg_logits_flip = torch.from_numpy(np.flip(seg_logits_flip.cpu().numpy(), axis=3).copy()).type_as(seg_logits)
        return (seg_logits + seg_logits_flip) / 2


def build() -> nn.Module:
    return FlipTTASegmentor().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 12) -> tuple[torch.Tensor, ...]:
    """``batch`` RGB images of ``height`` x ``width`` pixels, normalised (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
