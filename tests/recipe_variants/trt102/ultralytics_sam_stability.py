"""SAM 2's dynamic multimask choice in ultralytics: the stability score of a mask is the ratio
of the areas above ``+delta`` and above ``-delta`` of its logits, and a mask with no area above
``-delta`` scores 1.0: ``torch.where(area_u > 0, area_i / area_u, 1.0)``, a guard against
``0 / 0`` whose selected branch is a division written in the call and whose other branch is a
float literal.

Reduced from ultralytics at tag v8.4.190 (the PyPI release the zoo unpacks),
ultralytics/models/sam/modules/decoders.py:437-442 (``SAM2MaskDecoder._get_stability_scores``:
``flatten(-2)``, the two areas as sums of ``mask_logits > delta`` and ``> -delta`` cast to
float, the select), written here in our own words with ``delta`` a constructor argument.

Not rewritten, reported: the number needs the dtype of the other branch (``torch.where`` gives
``result_type(area_i / area_u, 1.0)``), and that branch is an expression, not a name the blend
can read ``.dtype`` from without computing the division a second time. The message says to
assign the division to a name first (then the rule writes the blend).
"""

import torch
from torch import Tensor, nn


class StabilityScore(nn.Module):
    def __init__(self, delta: float = 0.05) -> None:
        super().__init__()
        self.dynamic_multimask_stability_delta = delta

    def forward(self, mask_logits: Tensor) -> Tensor:
        mask_logits = mask_logits.flatten(-2)
        area_i = torch.sum(mask_logits > self.dynamic_multimask_stability_delta, dim=-1).float()
        area_u = torch.sum(mask_logits > -self.dynamic_multimask_stability_delta, dim=-1).float()
        return torch.where(area_u > 0, area_i / area_u, 1.0)


def build() -> nn.Module:
    return StabilityScore()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    logits = torch.randn(2, 3, 4, 4, generator=generator)
    logits[1, 2] = -5.0  # a mask with no area: the guarded branch
    return (logits,)


DYNAMIC = {"mask_logits": {0: "batch", 2: "height", 3: "width"}}
