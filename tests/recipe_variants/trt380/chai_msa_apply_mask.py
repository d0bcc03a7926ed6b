"""Chai-1's MSA context: rows outside a keep mask become gaps, and the MSA's own bool mask is cleared there.

Reduced from chaidiscovery/chai-lab @ 66c38d1fe5c6756a89ff8596b1dea87d305ec06f,
chai_lab/data/dataset/msas/msa_context.py: ``MSAContext.apply_mask`` (lines 114-126) fills the tokens outside
``mask`` with the gap token, the deletion counts with 0 and writes ``mask=self.mask.masked_fill(~mask, False)``
(line 122) for the context's own bool mask. Kept: the fills of the tokens, the deletions and the bool mask under one
keep mask. Reduced: the context's tensors are forward arguments and the keep mask is made from the MSA depth in the
model (the original takes it from the caller). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"tokens": {0: "depth", 1: "n"}, "deletions": {0: "depth", 1: "n"}, "msa_mask": {0: "depth", 1: "n"}}
FILL = "masked = msa_mask.masked_fill(~mask, False)"
GAP = 21


class ApplyMask(nn.Module):
    def forward(self, tokens, deletions, msa_mask):
        depth = torch.arange(tokens.shape[0], device=tokens.device)
        mask = (depth[:, None] < 3) & (tokens != GAP)
        gapped = tokens.masked_fill(~mask, GAP)
        kept = deletions.masked_fill(~mask, 0)
        masked = msa_mask.masked_fill(~mask, False)
        return gapped, kept, masked


def build() -> nn.Module:
    return ApplyMask().eval()


def inputs(generator: torch.Generator, depth: int = 5, n: int = 7) -> tuple[torch.Tensor, ...]:
    tokens = torch.randint(0, 22, (depth, n), generator=generator)
    deletions = torch.randint(0, 3, (depth, n), generator=generator).float()
    return tokens, deletions, torch.rand(depth, n, generator=generator) > 0.3
