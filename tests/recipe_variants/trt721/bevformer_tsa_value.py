"""BEVFormer's temporal self-attention layer: ``value`` holds the previous and the current BEV
stacked along the batch; without a previous BEV the layer stacks the current query twice, and an
optional positional embedding is added to the query only where one is passed.

Reduced from fundamentalvision/BEVFormer at commit 66b65f3a1f58caf0507cb2a971b9c0e7f842376c,
projects/mmdet3d_plugin/bevformer/modules/temporal_self_attention.py:128-272
(``TemporalSelfAttention.forward(self, query, key=None, value=None, identity=None,
query_pos=None, ...)``): ``if value is None:`` unpacking ``bs, len_bev, c = query.shape`` and
binding ``torch.stack([query, query], 1).reshape(bs*2, len_bev, c)``, ``identity = query``,
``if query_pos is not None:`` adding it, the value projected and viewed as two queues per sample,
the attention output averaged over the two queues and projected, plus the identity. Written here in
our own words with the deformable sampling reduced to an attention of the query over each queue.
(The encoder's own ``prev_bev`` code, which restacks the input to another shape before handing it
to this layer, is ``examples/temporal/bevformer_encoder.py`` and is refused; this is the layer.)
"""

import torch
from torch import nn


class TemporalSelfAttention(nn.Module):
    def __init__(self, embed_dims: int = 8) -> None:
        super().__init__()
        self.value_proj = nn.Linear(embed_dims, embed_dims)
        self.output_proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, query: torch.Tensor, value=None, query_pos=None) -> torch.Tensor:
        if value is None:
            bs, len_bev, c = query.shape
            value = torch.stack([query, query], 1).reshape(bs * 2, len_bev, c)
        identity = query
        if query_pos is not None:
            query = query + query_pos
        bs, num_query, embed_dims = query.shape
        value = self.value_proj(value).reshape(bs, 2, -1, embed_dims)
        logits = torch.einsum("bqc,bkvc->bkqv", query, value) / embed_dims ** 0.5
        output = torch.einsum("bkqv,bkvc->bkqc", logits.softmax(-1), value)
        output = output.mean(1)
        return self.output_proj(output) + identity


def build() -> nn.Module:
    return TemporalSelfAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A later frame: the previous and current BEV stacked (2 * bs rows), and the BEV's positions.
    return (torch.randn(2, 6, 8, generator=generator), torch.randn(4, 6, 8, generator=generator),
            torch.randn(2, 6, 8, generator=generator))


DYNAMIC: dict = {}
