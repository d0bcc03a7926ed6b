"""SAM 2's ``_use_mask_as_output``: a binary mask given as a prompt becomes mask logits directly
(scaled to +-10), and the low-resolution logits are the high-resolution ones shrunk four times,
``size=(h // 4, w // 4)`` taken from the tensor's own ``size()``, bilinearly with the literal
``antialias=True``. The output size follows the input's.

Reduced from facebookresearch/sam2 at commit 2b90b9f5ceec907a1c18123530e92e794ad901a4,
sam2/modeling/sam2_base.py, ``SAM2Base._use_mask_as_output`` lines 415-431 (``out_scale,
out_bias = 20.0, -10.0``, ``mask_inputs.float()``, the call with ``align_corners=False``,
``mode="bilinear"``, ``antialias=True``). Written here in our own words: the IoU and object-pointer
outputs, which do not touch the resize, and the high-resolution logits are left out: the model
returns the low-resolution logits.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MaskAsOutput(nn.Module):
    def forward(self, mask_inputs: torch.Tensor) -> torch.Tensor:
        out_scale, out_bias = 20.0, -10.0
        mask_inputs_float = mask_inputs.float()
        high_res_masks = mask_inputs_float * out_scale + out_bias
        low_res_masks = F.interpolate(
            high_res_masks,
            size=(high_res_masks.size(-2) // 4, high_res_masks.size(-1) // 4),
            align_corners=False,
            mode="bilinear",
            antialias=True,
        )
        return low_res_masks


def build() -> nn.Module:
    return MaskAsOutput()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return ((torch.rand(1, 1, 32, 24, generator=generator) > 0.5).float(),)


DYNAMIC = {"mask_inputs": {0: "batch", 2: "height", 3: "width"}}
