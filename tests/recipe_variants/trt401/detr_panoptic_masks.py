"""DETR's panoptic post-processing: ``interpolate(cur_masks[:, None], ...).squeeze(1)``.

Reduced from facebookresearch/detr at commit 29901c51d7fe8712168b8d0d64351170bc0f83e0,
models/segmentation.py, ``PostProcessPanoptic.forward`` (lines 276-300): for each image the mask
logits of the kept queries get a channel axis (``[:, None]``), are resized bilinearly to the
processed image size, lose that axis again with ``.squeeze(1)`` on the call's result (line 287),
and are flattened to choose, per pixel, the query whose mask is highest. Written here in our own
words for one image: every query is kept (the original's score threshold is a boolean selection,
outside this recipe), the processed size is the size of an image input, and the output is the
per-pixel softmax over the queries, from which the original takes its argmax.

The squeezed axis is the one ``[:, None]`` added, so it is 1 on every call; after the resize to a
size read from another input the TorchScript exporter cannot size it and guards the squeeze with
an ``If``.
"""

import torch
from torch import nn
from torch.nn.functional import interpolate


class PanopticMasks(nn.Module):
    def forward(self, pred_masks, image):
        size = image.shape[-2:]
        cur_masks = interpolate(pred_masks[:, None], size, mode="bilinear").squeeze(1)
        h, w = cur_masks.shape[-2:]
        cur_masks = cur_masks.flatten(1)
        return cur_masks.transpose(0, 1).softmax(-1).view(h, w, -1)


def build() -> nn.Module:
    return PanopticMasks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 6, 7, generator=generator), torch.randn(3, 12, 14, generator=generator))


DYNAMIC = {"pred_masks": {0: "queries", 1: "mask_height", 2: "mask_width"},
           "image": {1: "height", 2: "width"}}
