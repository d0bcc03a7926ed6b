"""Florence-2's DaViT channel attention in transformers: the attention runs between channels
within groups, so its scale follows the number of tokens, ``scale = num_tokens**-0.5`` with
``num_tokens`` unpacked from ``hidden_states.shape`` (the image size); the module hands it down
as ``scaling=scale`` to the attention interface, and transformers' ``sdpa_attention_forward``
passes that on as ``torch.nn.functional.scaled_dot_product_attention(..., scale=scaling, ...)``.

Reduced from transformers 5.24.0 (the PyPI wheel): src/transformers/models/florence2/
modeling_florence2.py, ``Florence2VisionChannelAttention.forward`` (lines 234-261; the scale at
line 242, handed down at line 253), and src/transformers/integrations/sdpa_attention.py,
``sdpa_attention_forward`` (lines 94-197; the call at lines 182-191). Written here in our own
words: the interface lookup (``ALL_ATTENTION_FUNCTIONS``) is the SDPA function itself, and the
grouped-query, NPU and position-bias paths of ``sdpa_attention_forward`` are left out; its causal
flag (``q_length > 1 and attention_mask is None and is_causal``, read with ``.item()`` while
tracing) is kept.
"""

import torch
from torch import nn


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout: float = 0.0,
                           scaling=None, is_causal=None, **kwargs):
    q_length = query.shape[2]
    is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    is_causal = q_length > 1 and attention_mask is None and is_causal
    if torch.jit.is_tracing() and isinstance(is_causal, torch.Tensor):
        is_causal = is_causal.item()
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=dropout,
        scale=scaling,
        is_causal=is_causal,
    )
    attn_output = attn_output.reshape(attn_output.shape[0], -1, q_length, value.shape[-1])
    return attn_output.transpose(1, 2).contiguous(), None


class Florence2VisionChannelAttention(nn.Module):
    def __init__(self, dim: int = 16, groups: int = 2) -> None:
        super().__init__()
        self.dim, self.groups = dim, groups
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.is_causal = False

    def forward(self, hidden_states):
        batch_size, num_tokens, hidden_size = hidden_states.shape
        qkv = self.qkv(hidden_states).reshape(batch_size, num_tokens, 3, self.groups, hidden_size // self.groups)
        qkv = qkv.permute(2, 0, 3, 4, 1)
        query, key, value = qkv.unbind(0)

        scale = num_tokens**-0.5
        attention_interface = sdpa_attention_forward
        hidden_states, _ = attention_interface(
            self,
            query,
            key,
            value,
            attention_mask=None,
            scaling=scale,
        )
        hidden_states = hidden_states.permute(0, 3, 2, 1)
        hidden_states = hidden_states.reshape(batch_size, num_tokens, hidden_size)
        return self.proj(hidden_states)


def build() -> nn.Module:
    return Florence2VisionChannelAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 16, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
