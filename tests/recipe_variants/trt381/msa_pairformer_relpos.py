"""MSA Pairformer's clipped relative-position encoding: five pairwise differences of per-token ids, taken with einx.

Reduced from yoakiyama/MSA_Pairformer @ ef2f8e1f49c9da659f34d8bc3095790b9195fcac,
MSAPairformer/positional_encoding.py: ``RelativePositionEncoding.forward`` (lines 63-118) unbinds the residue, token,
chain, entity and symmetry ids from the molecule features (line 70), takes every pairwise difference with
``einx.subtract('b i, b j -> b i j', ...)`` (lines 74-79; the entity one as ``'b i, b j -> b i j 1'``, line 81),
compares them with zero for the same-chain, same-residue and same-entity masks, clips the differences into bins with
``torch.where`` (lines 84-98), one-hot encodes them, packs them with the entity mask and projects them (lines 100-118).
The number of tokens is the sequence length: it differs from one input to the next. Kept: the five subtractions, the
masks (the same-residue one multiplied with the same-chain one, as the code does), the clipping and the projection.
Reduced: the one-hot encoding, which the code writes as the nearest of the bins ``0 .. K-1`` found through a sixth
einx subtraction, ``'... i, j -> ... i j'``, is written ``F.one_hot`` (the nearest bin of an integer in range is the
integer itself); ``pack`` is ``torch.cat``; the projection has no bias (``LinearNoBias``) and small sizes. Written here
in our own words.
"""

import einx
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"feats": {0: "b", 1: "n"}}
#: The line of the token-index difference (one of the rule's five findings).
CALL = "diff_token_idx = einx.subtract('b i, b j -> b i j', token_idx, token_idx)"


class RelativePositionEncoding(nn.Module):
    def __init__(self, r_max: int = 4, s_max: int = 2, dim_out: int = 8):
        super().__init__()
        self.r_max = r_max
        self.s_max = s_max
        dim_input = (2 * r_max + 2) + (2 * r_max + 2) + 1 + (2 * s_max + 2)
        self.out_embedder = nn.Linear(dim_input, dim_out, bias=False)

    def forward(self, feats):
        res_idx, token_idx, asym_id, entity_id, sym_id = feats.unbind(dim=-1)

        diff_res_idx = einx.subtract('b i, b j -> b i j', res_idx, res_idx)
        diff_token_idx = einx.subtract('b i, b j -> b i j', token_idx, token_idx)
        diff_sym_id = einx.subtract('b i, b j -> b i j', sym_id, sym_id)
        mask_same_chain = einx.subtract('b i, b j -> b i j', asym_id, asym_id) == 0
        mask_same_res = diff_res_idx == 0
        mask_same_entity = einx.subtract('b i, b j -> b i j 1', entity_id, entity_id) == 0

        r_max, s_max = self.r_max, self.s_max
        d_res = torch.where(mask_same_chain, torch.clip(diff_res_idx + r_max, 0, 2 * r_max), 2 * r_max + 1)
        d_token = torch.where(mask_same_chain * mask_same_res, torch.clip(diff_token_idx + r_max, 0, 2 * r_max),
                              2 * r_max + 1)
        d_chain = torch.where(~mask_same_chain, torch.clip(diff_sym_id + s_max, 0, 2 * s_max), 2 * s_max + 1)

        a_rel_pos = F.one_hot(d_res, 2 * r_max + 2)
        a_rel_token = F.one_hot(d_token, 2 * r_max + 2)
        a_rel_chain = F.one_hot(d_chain, 2 * s_max + 2)
        out = torch.cat((a_rel_pos, a_rel_token, mask_same_entity.long(), a_rel_chain), dim=-1)
        return self.out_embedder(out.float())


def build() -> nn.Module:
    return RelativePositionEncoding().eval()


def inputs(generator: torch.Generator, b: int = 2, n: int = 7) -> tuple[torch.Tensor, ...]:
    """Per-token ids (residue, token, chain, entity, symmetry) as the featurizer writes them: positions that grow
    along the chain, a few chains, residues that repeat for a ligand's atoms."""
    res_idx = torch.arange(n).expand(b, n) + torch.randint(0, 3, (b, 1), generator=generator)
    res_idx = res_idx - (torch.rand(b, n, generator=generator) < 0.3).long().cumsum(dim=-1)
    token_idx = torch.arange(n).expand(b, n)
    asym_id = (torch.rand(b, n, generator=generator) < 0.2).long().cumsum(dim=-1)
    entity_id = asym_id // 2
    sym_id = asym_id % 2
    return (torch.stack((res_idx, token_idx, asym_id, entity_id, sym_id), dim=-1),)
