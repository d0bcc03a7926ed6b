"""SAM 2's mask decoding in ultralytics: where the object-score head says no object appears,
every low-resolution mask logit of that prompt is replaced by a large negative constant, so the
upsampled mask is empty. The condition is one bool per prompt, broadcast over the mask's two
spatial axes by indexing with ``[:, None, None]``; the fill is a float held in a module-level
name, not a literal.

Reduced from ultralytics at tag v8.4.190 (the PyPI release the zoo unpacks),
ultralytics/models/sam/modules/sam.py:22 (the module constant ``NO_OBJ_SCORE``, -1024.0) and
:504-508 (``SAM2Model._forward_sam_heads``: ``is_obj_appearing = object_score_logits > 0``, then
the select of the decoder's logits or the constant), and :511 (the bilinear upsampling that
follows), written here in our own words; the prompt encoder and mask decoder are left out: the
model takes their outputs (mask logits and object scores) as inputs.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn

NO_OBJ_SCORE = -1024.0


class NoObjectMasks(nn.Module):
    def __init__(self, out_size: int = 8) -> None:
        super().__init__()
        self.out_size = out_size

    def forward(self, low_res_masks: Tensor, object_score_logits: Tensor) -> Tensor:
        is_obj_appearing = object_score_logits > 0
        low_res_masks = torch.where(is_obj_appearing[:, None, None], low_res_masks, NO_OBJ_SCORE)
        return F.interpolate(low_res_masks, size=(self.out_size, self.out_size), mode="bilinear",
                             align_corners=False)


def build() -> nn.Module:
    return NoObjectMasks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    masks = torch.randn(3, 2, 4, 4, generator=generator)  # 3 prompts, 2 candidate masks each
    scores = torch.tensor([[1.5], [-0.5], [0.25]])  # the second prompt sees no object
    return masks, scores


DYNAMIC = {"low_res_masks": {0: "prompts", 2: "height", 3: "width"}, "object_score_logits": {0: "prompts"}}
