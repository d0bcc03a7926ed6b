"""Microsoft SFM's masks: a bool causal mask filled in place with ``True``, periodic neighbours cleared with ``False``.

Reduced from Tai-Xinwei/MSAGen @ 1b1c3093064367e65e3917298ffbbaf690fb29df (a copy of Microsoft's SFM code):
sfm/models/llama2/llama_modules.py ``_make_causal_mask`` (lines 301-314) starts from
``mask = torch.full((tgt_len, tgt_len), False, device=device)`` (a bool tensor: the fill value's type) and writes
``mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), True)`` (line 314);
sfm/models/graphormer/modules/pbc.py (lines 135-156) keeps the periodic images within the cutoff,
``expand_mask = (expand_dist < self.cutoff) & (expand_dist > 1e-5)``, and clears the padding atoms' rows with the
function form ``expand_mask = torch.masked_fill(expand_mask, atoms.eq(0).unsqueeze(-1), False)`` (line 153) before
``(torch.sum(expand_mask, dim=1) > 0)``. Kept: the bool ``torch.full``, the in-place fill of a comparison with
``True``, the function form with ``False``. The TorchScript exporter stops on the bool ``torch.full`` too (the
same missing schema for a bool Scalar). Reduced: one cell offset set given as an input, no past key values.
Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"pos": {0: "b", 1: "t"}, "atoms": {0: "b", 1: "t"}, "offset": {0: "b", 1: "c"}}
FILL = "expand_mask = torch.masked_fill(expand_mask, atoms.eq(0).unsqueeze(-1), False)"
IN_PLACE = "mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), True)"


class PeriodicMasks(nn.Module):
    def __init__(self, cutoff: float = 2.5) -> None:
        super().__init__()
        self.cutoff = cutoff

    def _make_causal_mask(self, tgt_len, device):
        mask = torch.full((tgt_len, tgt_len), False, device=device)
        mask_cond = torch.arange(mask.size(-1), device=device)
        mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), True)
        return mask

    def forward(self, pos, atoms, offset):
        batch_size, tokens = atoms.shape
        expand_pos = pos.unsqueeze(1) + offset.unsqueeze(2)
        expand_pos = expand_pos.reshape(batch_size, -1, 3)
        expand_dist = torch.norm(pos.unsqueeze(2) - expand_pos.unsqueeze(1), p=2, dim=-1)
        expand_mask = (expand_dist < self.cutoff) & (expand_dist > 1e-5)
        expand_mask = torch.masked_fill(expand_mask, atoms.eq(0).unsqueeze(-1), False)
        kept = torch.sum(expand_mask, dim=1) > 0
        return kept, self._make_causal_mask(tokens, pos.device)


def build() -> nn.Module:
    return PeriodicMasks().eval()


def inputs(generator: torch.Generator, b: int = 2, t: int = 6, c: int = 3) -> tuple[torch.Tensor, ...]:
    pos = torch.randn(b, t, 3, generator=generator) * 2
    atoms = torch.randint(0, 4, (b, t), generator=generator)
    offset = torch.randn(b, c, 3, generator=generator)
    return pos, atoms, offset
