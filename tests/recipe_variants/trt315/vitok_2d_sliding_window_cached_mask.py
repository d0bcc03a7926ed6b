"""ViTok's attention: a 2-D sliding window over the patch grid (special tokens see and are seen by all),
its block mask built on the first call and cached on the module.

Reduced from Na-VAE/vitok-release at commit e1d3640bce854f6615ac4f0e44de303c93ce81cb,
vitok/models/modules/attention.py: ``_make_2d_mask_mod`` (lines 23-41: a query and a key are
kept when either is a special token or their rows and columns differ by at most ``window``),
``create_2d_block_mask`` (the grid side from the patch count, ``create_block_mask(mask_mod,
B=None, H=None, Q_LEN=n, KV_LEN=n)``), ``Attention._get_block_mask`` (a dict cache keyed by the
window, the length and the device), ``Attention.forward`` (fused qkv projection, permuted and
unbound) and ``Attention._flex_attention`` (``flex_attention(q, k, v, block_mask=block_mask,
score_mod=score_mod)`` on both branches). Written here in our own words. Left out: the q/k
RMSNorm, rotary embeddings and the flash/SDPA backends. Form kept: a block mask built inside
``forward`` on a cache miss (so the traced export finds it cached from an eager run at that
length) and the call with ``block_mask=`` and ``score_mod=None`` keywords. The sequence length
is tied to the grid, so only the batch is declared dynamic.
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def make_2d_window(window: int, side: int, special: int):
    def mask_mod(b, h, q_idx, kv_idx):
        either_special = (q_idx < special) | (kv_idx < special)
        q_patch, kv_patch = q_idx - special, kv_idx - special
        rows_near = ((q_patch // side) - (kv_patch // side)).abs() <= window
        cols_near = ((q_patch % side) - (kv_patch % side)).abs() <= window
        return either_special | (rows_near & cols_near)

    return mask_mod


def window_block_mask(window: int, length: int, special: int, device):
    side = int((length - special) ** 0.5)
    if side * side != length - special:
        raise ValueError(f"{length - special} patches do not make a square grid")
    return create_block_mask(make_2d_window(window, side, special), B=None, H=None, Q_LEN=length, KV_LEN=length,
                             device=device)


class WindowAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2, special: int = 1, window: int = 1) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.special, self.window = special, window
        self.qkv_proj = nn.Linear(dim, 3 * dim, bias=False)
        self.out_proj = nn.Linear(dim, dim, bias=False)
        self._masks = {}

    def _mask(self, length: int, device):
        key = (self.window, length, self.special, str(device))
        if key not in self._masks:
            self._masks[key] = window_block_mask(self.window, length, self.special, device)
        return self._masks[key]

    def forward(self, hidden_states, score_mod=None, block_mask=None):
        b, n, c = hidden_states.shape
        q, k, v = self.qkv_proj(hidden_states).reshape(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4) \
            .unbind(0)
        if block_mask is None:
            block_mask = self._mask(n, q.device)
        out = flex_attention(q, k, v, block_mask=block_mask, score_mod=score_mod)
        return self.out_proj(out.transpose(1, 2).reshape(b, n, c))


def build() -> nn.Module:
    model = WindowAttention().eval()
    model._mask(1 + 5 * 5, torch.device("cpu"))  # the grid the model is used at
    return model


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1 + 5 * 5, 16, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch"}}
