"""EoMT's masked attention: each query may attend to the patches its current mask prediction touches.

Reduced from imagra93/attr-eomt @ pypi:attr-eomt==2.0.0 (Apache-2.0; the repository's snapshot holds an older
form), ``eomt/model.py``, ``_build_attention_mask``: a patch is touched where any of its mask-logit cells is positive
(``allowed = F.adaptive_max_pool2d(masks_queries_logits, grid_size).flatten(2) > 0``); a query whose mask touches no
patch may attend to all of them (``allowed |= ~allowed.any(-1, keepdim=True)``, line 715); the mask is written into
the query-to-patch block of an all-true ``[B, N, N]`` attention mask (``attention_mask[:, :q, start:] =
allowed``), which one attention layer then uses. Kept: the pooling, both augmented ors' forms (the annealing one is
off at inference, ``prob`` 1), the block write and a masked attention over the tokens. Reduced: one layer, one head,
no prefix tokens but one, a linear mask head. Written here in our own words.

The augmented or reads the name it updates (``~allowed.any(...)``), and the mask is then written into another
tensor's elements (a copy): neither hides the tensor from the rule any more.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"tokens": {0: "batch"}}
#: The line of the augmented or (the rule's finding).
CALL = "allowed |= ~allowed.any(-1, keepdim=True)"


class MaskedAttention(nn.Module):
    def __init__(self, dim: int = 8, queries: int = 3, grid: int = 4) -> None:
        super().__init__()
        self.queries, self.grid, self.prefix = queries, grid, 1
        self.mask_head = nn.Linear(dim, dim)
        self.qkv = nn.Linear(dim, 3 * dim)

    def attention_mask(self, tokens: torch.Tensor, mask_logits: torch.Tensor, prob: float) -> torch.Tensor:
        b, n = tokens.shape[:2]
        start = self.queries + self.prefix
        allowed = F.adaptive_max_pool2d(mask_logits, self.grid).flatten(2) > 0
        allowed |= ~allowed.any(-1, keepdim=True)
        if prob < 1:
            allowed |= torch.rand(b, self.queries, 1, device=tokens.device) > prob
        attention_mask = torch.ones(b, n, n, device=tokens.device, dtype=torch.bool)
        attention_mask[:, :self.queries, start:] = allowed
        return attention_mask[:, None]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        start = self.queries + self.prefix
        patches = tokens[:, start:].transpose(1, 2).reshape(tokens.shape[0], -1, self.grid, self.grid)
        queries = self.mask_head(tokens[:, :self.queries])
        mask_logits = torch.einsum("bqc,bchw->bqhw", queries, F.interpolate(patches, scale_factor=2.0))
        mask = self.attention_mask(tokens, mask_logits, 1.0)
        q, k, v = self.qkv(tokens)[:, None].chunk(3, dim=-1)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[:, 0]


def build() -> nn.Module:
    return MaskedAttention().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    """``batch`` images' tokens: 3 queries, 1 prefix token and a 4 x 4 grid of patches."""
    return (torch.randn(batch, 3 + 1 + 16, 8, generator=generator),)
