"""transformers' SDPA attention for a grouped-query decoder: ``enable_gqa`` set through ``**sdpa_kwargs``.

Reduced from transformers 5.24.0 (the pinned wheel), transformers/integrations/sdpa_attention.py:
``use_gqa_in_sdpa`` (lines 42-52: on CPU, GQA goes to SDPA when there is no mask and the head sizes are
at most 256), ``repeat_kv`` (lines 19-28, the other path) and ``sdpa_attention_forward`` (lines 94-197:
``sdpa_kwargs["enable_gqa"] = True`` when the module has ``num_key_value_groups > 1`` (line 120), the
causal flag read back with ``.item()`` under a trace (lines 152-153), and
``torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask,
dropout_p=dropout, scale=scaling, is_causal=is_causal, **sdpa_kwargs)``, lines 182-190). The calling
attention module is a Llama-style one with 4 query heads over 2 key/value heads and no rotary
embedding; the position-bias, NPU, MPS and XPU branches are left out. Written here in our own words.
"""

import torch
from torch import nn


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def use_gqa_in_sdpa(attention_mask, key, value):
    return attention_mask is None and key.shape[-1] == value.shape[-1] <= 256


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None,
                           **kwargs):
    sdpa_kwargs = {}
    if hasattr(module, "num_key_value_groups") and module.num_key_value_groups > 1:
        if use_gqa_in_sdpa(attention_mask, key, value):
            sdpa_kwargs["enable_gqa"] = True
        else:
            key = repeat_kv(key, module.num_key_value_groups)
            value = repeat_kv(value, module.num_key_value_groups)
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
        **sdpa_kwargs,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class LlamaStyleAttention(nn.Module):
    def __init__(self, hidden_size: int = 32, num_heads: int = 4, num_key_value_heads: int = 2) -> None:
        super().__init__()
        self.head_dim = hidden_size // num_heads
        self.num_key_value_groups = num_heads // num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim)
        self.k_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim)
        self.v_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size)

    def forward(self, hidden_states):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        attn_output, _ = sdpa_attention_forward(self, query_states, key_states, value_states, None,
                                                scaling=self.scaling)
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


def build() -> nn.Module:
    torch.manual_seed(0)
    return LlamaStyleAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 32, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
