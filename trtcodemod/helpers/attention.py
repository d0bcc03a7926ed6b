"""``flex_attention``, exported as the attention it computes: ``MatMul``, ``Softmax``, ``MatMul``.

``torch.nn.attention.flex_attention.flex_attention`` is a higher-order operator that neither ONNX
exporter writes: the TorchScript exporter's trace stops inside it (building the empty block mask
runs ``vmap``: "RuntimeError: Unsupported value kind: Tensor"; on CPU with gradients enabled it
refuses outright), and no ONNX translation exists for the operator. What it computes is scaled
dot-product attention whose scores pass through ``score_mod(score, b, h, q_idx, kv_idx)`` and,
where the block mask's ``mask_mod(b, h, q_idx, kv_idx)`` is false, are excluded; a row with every
score excluded gives zeros. Outside an export the helper calls the attention function it is given
(``flex_attention`` itself, or a ``torch.compile`` of it); while exporting it computes that
definition with broadcast index tensors, the way torch's own eager implementation does.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_flex_attention(attend, query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                        return_lse=False, kernel_options=None, *, return_aux=None):
    """``attend(query, key, value, ...)`` (``flex_attention`` or a compiled copy of it); while
    exporting to ONNX, the attention it defines written with ``matmul`` and ``softmax``.

    The export formulation is taken for 4-D tensors and no auxiliary-output request; anything else
    (and a block mask built from blocks alone, without a ``mask_mod``) calls ``attend``."""
    if torch.jit.is_scripting():
        return attend(query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse, kernel_options,
                      return_aux=return_aux)
    if (_trt_onnx_exporting() and return_aux is None and isinstance(query, torch.Tensor)
            and isinstance(key, torch.Tensor) and isinstance(value, torch.Tensor)
            and query.dim() == 4 and key.dim() == 4 and value.dim() == 4):
        mask_mod = None
        if block_mask is not None:
            mask_mod = getattr(block_mask, "mask_mod", None)
            if mask_mod is None or mask_mod is torch.nn.attention.flex_attention.noop_mask:
                mask_mod = None
                if not _trt_block_mask_is_full(block_mask):
                    return attend(query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse,
                                  kernel_options, return_aux=return_aux)
        return _trt_flex_attention_math(query, key, value, score_mod, mask_mod, scale, enable_gqa, return_lse)
    return attend(query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse, kernel_options,
                  return_aux=return_aux)


def _trt_block_mask_is_full(block_mask) -> bool:
    """A block mask that excludes nothing: the one ``flex_attention`` makes for ``block_mask=None``
    (blocks of ``1 << 30``), never anything built from blocks (never runs when scripted)."""
    sizes = getattr(block_mask, "BLOCK_SIZE", None)
    return sizes is not None and tuple(sizes) == (1 << 30, 1 << 30)


def _trt_flex_attention_math(query, key, value, score_mod, mask_mod, scale, enable_gqa: bool, return_lse: bool):
    """``flex_attention``'s definition in tensor operations (never runs when scripted): scores in
    float32 (float64 for float64 inputs), scaled, modified, masked to ``-inf``; softmax, with rows
    that exclude every key giving zeros; the weights in the query's dtype times the values."""
    if enable_gqa:
        # Each key/value head serves `groups` consecutive query heads (repeat_interleave on the heads).
        batch, heads, length, width = key.shape
        groups = query.shape[1] // heads
        key = key[:, :, None].expand(batch, heads, groups, length, width).reshape(batch, -1, length, width)
        batch, heads, length, width = value.shape
        value = value[:, :, None].expand(batch, heads, groups, length, width).reshape(batch, -1, length, width)
    precision = torch.float64 if query.dtype == torch.float64 else torch.float32
    if scale is None:
        scale = 1.0 / query.shape[-1] ** 0.5
    scores = (query.to(precision) @ key.to(precision).transpose(-2, -1)) * scale
    masked = None
    if score_mod is not None or mask_mod is not None:
        device = scores.device
        b = torch.arange(scores.shape[0], device=device).view(-1, 1, 1, 1)
        h = torch.arange(scores.shape[1], device=device).view(1, -1, 1, 1)
        q_idx = torch.arange(scores.shape[2], device=device).view(1, 1, -1, 1)
        kv_idx = torch.arange(scores.shape[3], device=device).view(1, 1, 1, -1)
        if score_mod is not None:
            scores = score_mod(scores, b, h, q_idx, kv_idx).to(precision).expand_as(scores)
        if mask_mod is not None:
            keep = torch.as_tensor(mask_mod(b, h, q_idx, kv_idx), device=device).expand_as(scores)
            scores = scores.masked_fill(~keep, float("-inf"))
        # A row whose every score is -inf (masked, or made so by score_mod) attends to nothing: zeros.
        masked = (scores == float("-inf")).all(-1, keepdim=True)
    weights = scores.softmax(-1)
    if masked is not None:
        weights = weights.masked_fill(masked, 0.0)
    out = weights.to(query.dtype) @ value.to(query.dtype)
    if not return_lse:
        return out
    lse = scores.logsumexp(-1)
    if masked is not None:
        lse = lse.masked_fill(masked.squeeze(-1), float("-inf"))
    # flex_attention keeps the log-sum-exp in base 2 and converts it back: the same rounding.
    ln2 = 0.6931471805599453
    return out, lse / ln2 * ln2


def _trt_sdpa(query, key, value, attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0,
              is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False):
    """``F.scaled_dot_product_attention`` with the same arguments; while a trace passes ``scale`` as a
    0-d tensor (a number computed from a traced size, ``num_tokens ** -0.5``), the query multiplied by
    it and a scale of 1, so that the graph computes the scale from the input's size instead of keeping
    the example's number (SDPA reads ``scale`` into a Python float)."""
    if torch.jit.is_scripting():
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if enable_gqa and _trt_onnx_exporting() and isinstance(key, torch.Tensor) and isinstance(value, torch.Tensor) \
            and isinstance(query, torch.Tensor) and query.dim() >= 3 and key.dim() >= 3 and value.dim() >= 3:
        # The TorchScript exporter has no conversion with enable_gqa=True: each key/value head repeated
        # for its group of query heads (what PyTorch's own math kernel does), then the plain attention.
        key, value = _trt_repeat_heads(key, query), _trt_repeat_heads(value, query)
        enable_gqa = False
    if isinstance(scale, torch.Tensor) and torch.jit.is_tracing():
        return _trt_sdpa_traced_scale(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                            scale=scale, enable_gqa=enable_gqa)


@torch.jit.unused
def _trt_repeat_heads(kv, query):
    """``kv`` with each head (axis -3) repeated ``query heads / kv heads`` times in a row, as
    ``repeat_interleave`` along that axis; the count stays a traced size while exporting."""
    groups = query.shape[-3] // kv.shape[-3]
    wide = kv.unsqueeze(-3)
    sizes = list(kv.shape[:-2]) + [groups] + list(kv.shape[-2:])
    return wide.expand(sizes).flatten(-4, -3)


@torch.jit.unused
def _trt_sdpa_traced_scale(query, key, value, attn_mask, dropout_p: float, is_causal: bool, scale,
                           enable_gqa: bool):
    """The attention with the traced ``scale`` applied to the query (never runs when scripted)."""
    return torch.nn.functional.scaled_dot_product_attention(query * scale.to(query.dtype), key, value, attn_mask,
                                                            dropout_p, is_causal, scale=1.0, enable_gqa=enable_gqa)
