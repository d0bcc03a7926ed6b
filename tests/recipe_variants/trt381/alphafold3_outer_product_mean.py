"""alphafold3-pytorch's outer-product mean (Algorithm 9): an MSA mask gates, counts and a pair mask multiplies, by einx.

Reduced from lucidrains/alphafold3-pytorch @ 1fd83f319b58a0bd78507f16e9cb75943655770f, alphafold3_pytorch/alphafold3.py:
``OuterProductMean.forward`` (lines 1042-1087) projects the normed MSA to two halves, zeroes the masked-out rows with
``einx.multiply('b s i d, b s -> b s i d', a, msa_mask.type(dtype))`` and its twin (lines 1061-1062), sums their outer
products over the rows, divides by the number of rows kept with ``einx.divide('b i j d e, b', ...)`` (line 1068),
flattens the two feature axes and multiplies by the pair mask ``to_pairwise_mask(mask)`` (lines 1080-1084; the helper,
lines 338-345, is ``einx.logical_and('... i, ... j -> ... i j', mask_i, mask_j)``) before the output projection. The
batch, the MSA depth and the number of tokens differ per input. Kept: every einx call as written, the LayerNorm, the
projections, the ``eps`` of the count. Reduced: both masks are given (the code takes either as optional), einops'
``einsum``, ``reduce`` and ``rearrange`` are ``torch.einsum``, ``sum`` and ``flatten``, small sizes. Written here in
our own words.
"""

import einx
import torch
from torch import nn

DYNAMIC = {"msa": {0: "b", 1: "s", 2: "n"}, "mask": {0: "b", 1: "n"}, "msa_mask": {0: "b", 1: "s"}}
#: The line of the row count's division (one of the rule's five findings).
CALL = "outer_product_mean = einx.divide('b i j d e, b', outer_product, num_msa.clamp(min = self.eps))"


def to_pairwise_mask(mask_i, mask_j=None):
    mask_j = mask_i if mask_j is None else mask_j
    return einx.logical_and('... i, ... j -> ... i j', mask_i, mask_j)


class OuterProductMean(nn.Module):
    def __init__(self, dim_msa: int = 6, dim_pairwise: int = 5, dim_hidden: int = 3, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.norm = nn.LayerNorm(dim_msa)
        self.to_hidden = nn.Linear(dim_msa, dim_hidden * 2, bias=False)
        self.to_pairwise_repr = nn.Linear(dim_hidden ** 2, dim_pairwise)

    def forward(self, msa, mask, msa_mask):
        dtype = msa.dtype
        msa = self.norm(msa)
        a, b = self.to_hidden(msa).chunk(2, dim = -1)

        a = einx.multiply('b s i d, b s -> b s i d', a, msa_mask.type(dtype))
        b = einx.multiply('b s j e, b s -> b s j e', b, msa_mask.type(dtype))
        outer_product = torch.einsum('bsid,bsje->bijde', a, b)
        num_msa = msa_mask.type(dtype).sum(dim = -1)
        outer_product_mean = einx.divide('b i j d e, b', outer_product, num_msa.clamp(min = self.eps))

        outer_product_mean = outer_product_mean.flatten(-2)
        mask = to_pairwise_mask(mask)
        outer_product_mean = einx.multiply('b i j d, b i j', outer_product_mean, mask.type(dtype))
        return self.to_pairwise_repr(outer_product_mean)


def build() -> nn.Module:
    return OuterProductMean().eval()


def inputs(generator: torch.Generator, b: int = 2, s: int = 4, n: int = 6) -> tuple[torch.Tensor, ...]:
    """An MSA's embeddings, the tokens kept (padding is False) and the MSA rows kept."""
    msa = torch.randn(b, s, n, 6, generator=generator)
    mask = torch.arange(n)[None, :] < torch.randint(0, n + 1, (b, 1), generator=generator)
    msa_mask = torch.rand(b, s, generator=generator) < 0.7
    return msa, mask, msa_mask
