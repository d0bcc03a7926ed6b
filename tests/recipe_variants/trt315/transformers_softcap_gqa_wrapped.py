"""transformers' flex-attention integration: a tanh soft cap as ``score_mod``, grouped key/value heads,
called through a callable chosen by a conditional.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/integrations/flex_attention.py:
``WrappedFlexAttention`` (lines 58-94, a singleton handing out the attention function),
``get_flex_attention_lse_kwargs`` (lines 97-108: ``{"return_aux": None}`` when no log-sum-exp is
wanted on torch 2.9 and later), ``compile_friendly_flex_attention`` (lines 111-126: the callable is
``WrappedFlexAttention(training)() if not is_torchdynamo_compiling() else flex_attention`` and is
called with the query, key, value and the keywords) and ``flex_attention_forward`` (lines 258-330:
the ``score_mod`` closure applying ``softcap * tanh(score / softcap)``, ``enable_gqa=True`` for
a power-of-two head count, ``scale=scaling``, no log-sum-exp on CPU). Written here in our own
words, around a Gemma-2-like attention block (soft cap 50, 4 query heads sharing 2 key/value heads).
Left out: the singleton's ``torch.compile`` (it hands out ``flex_attention`` itself here, so the
test needs no inductor build; the conditional's form is kept), and the additive ``score_mask`` and
``position_bias`` terms of the closure (``None`` for a model given a block mask or no mask).
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import flex_attention


def is_torchdynamo_compiling() -> bool:
    return torch.compiler.is_compiling()


class WrappedFlexAttention:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self, training: bool) -> None:
        self.training = training
        self._attention = flex_attention

    def __call__(self):
        return self._attention


def lse_request(return_lse: bool) -> dict:
    from torch.nn.attention.flex_attention import AuxRequest

    return {"return_aux": AuxRequest(lse=True) if return_lse else None}


def compile_friendly_flex_attention(query, key, value, training=False, **kwargs):
    flex_attention_compiled = WrappedFlexAttention(training)() if not is_torchdynamo_compiling() else flex_attention
    return flex_attention_compiled(query, key, value, **kwargs)


def flex_attention_forward(module, query, key, value, scaling=None, softcap=None):
    def score_mod(score, batch_idx, head_idx, q_idx, kv_idx):
        if softcap is not None:
            score = softcap * torch.tanh(score / softcap)
        return score

    return_lse = query.device.type != "cpu"
    return compile_friendly_flex_attention(query, key, value, score_mod=score_mod, block_mask=None,
                                           enable_gqa=True, scale=scaling, training=module.training,
                                           **lse_request(return_lse))


class SoftcapAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4, kv_heads: int = 2, softcap: float = 50.0) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.softcap = softcap
        self.q_proj = nn.Linear(dim, heads * self.head_dim)
        self.k_proj = nn.Linear(dim, kv_heads * self.head_dim)
        self.v_proj = nn.Linear(dim, kv_heads * self.head_dim)
        self.o_proj = nn.Linear(heads * self.head_dim, dim)

    def forward(self, hidden_states):
        b, n, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        out = flex_attention_forward(self, q, k, v, scaling=self.head_dim ** -0.5, softcap=self.softcap)
        return self.o_proj(out.transpose(1, 2).reshape(b, n, -1))


def build() -> nn.Module:
    return SoftcapAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, 16, generator=generator) * 4,)


DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
