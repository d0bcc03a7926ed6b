"""Multi-head attention whose TorchScript ONNX export follows the sequence length.

``nn.MultiheadAttention`` with its packed input projection (``in_proj_weight``, the case
``kdim == vdim == embed_dim``) projects self-attention in ``F._in_projection_packed`` with
``unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)``; after it, the
TorchScript exporter records the ``k.view(k.shape[0], ...)`` of
``F.multi_head_attention_forward`` with the traced sequence length as a constant, so the
graph's Reshape fails (ONNX Runtime, TensorRT) at every other length. The same function
called with ``use_separate_proj_weight=True`` and the three row blocks of
``in_proj_weight`` projects each of query, key and value on its own and exports a graph
that follows the length. The transformer layers build their attention modules in
``__init__``; their helpers swap those modules to ``_TrtMultiheadAttention``.
In eval mode without gradients torch's encoder layer (batch first, an even number of heads,
relu or gelu, biases) computes in one fused kernel the exporter does not convert; while the
exporter traces, the encoder-layer and ``nn.Transformer`` helpers switch torch's fast path off
for the call (``_trt_without_fast_path``), and torch's own operators run.

Outside the TorchScript exporter each helper runs torch's own ``forward`` (inherited or
called through ``super()``); ``torch.jit.script`` compiles a plain ``nn.MultiheadAttention``
over the same parameters (``__prepare_scriptable__``).
"""

from __future__ import annotations

import torch


class _TrtMultiheadAttention(torch.nn.MultiheadAttention):
    """``nn.MultiheadAttention`` (same arguments, attributes and state) whose TorchScript ONNX
    export projects query, key and value with the three blocks of ``in_proj_weight``."""

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if (
            _trt_onnx_tracing()
            and self._qkv_same_embed_dim
            and self.in_proj_weight is not None
            and not (query.is_nested or key.is_nested or value.is_nested)
            and hasattr(torch.nn.functional, "_canonical_mask")
        ):
            return self._trt_separate_projections(query, key, value, key_padding_mask, need_weights, attn_mask,
                                                  average_attn_weights, is_causal)
        return super().forward(query, key, value, key_padding_mask=key_padding_mask, need_weights=need_weights,
                               attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal)

    def _trt_separate_projections(self, query, key, value, key_padding_mask, need_weights, attn_mask,
                                  average_attn_weights, is_causal):
        """torch's own non-fast path of ``forward``, with the packed weight passed as three blocks."""
        functional = torch.nn.functional
        is_batched = query.dim() == 3
        key_padding_mask = functional._canonical_mask(
            mask=key_padding_mask, mask_name="key_padding_mask", other_type=functional._none_or_dtype(attn_mask),
            other_name="attn_mask", target_type=query.dtype)
        attn_mask = functional._canonical_mask(
            mask=attn_mask, mask_name="attn_mask", other_type=None, other_name="", target_type=query.dtype,
            check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        q_proj_weight, k_proj_weight, v_proj_weight = self.in_proj_weight.chunk(3)
        attn_output, attn_output_weights = functional.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=True, q_proj_weight=q_proj_weight,
            k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def __prepare_scriptable__(self):
        # torch.jit.script compiles torch's own class over the same parameters and buffers.
        return _trt_plain_module(self, torch.nn.MultiheadAttention)


def _trt_onnx_tracing():
    """Whether the TorchScript ONNX exporter is tracing this call."""
    return torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()


def _trt_without_fast_path(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with torch's transformer fast path switched off for the call
    (``torch.backends.mha``, put back afterwards): the layer computes with its own operators
    (``_sa_block``, ``_ff_block``: the same function) instead of the fused kernel
    ``aten::_transformer_encoder_layer_fwd``, which the exporter cannot convert."""
    switch = getattr(torch.backends, "mha", None)
    if switch is None or not hasattr(switch, "set_fastpath_enabled"):
        return function(*args, **kwargs)
    enabled = switch.get_fastpath_enabled()
    switch.set_fastpath_enabled(False)
    try:
        return function(*args, **kwargs)
    finally:
        switch.set_fastpath_enabled(enabled)


def _trt_plain_module(module, cls):
    """``module`` as an object of torch's own ``cls`` (what ``torch.jit.script`` compiles):
    the same parameters, buffers, submodules and settings, in dicts of its own, so that
    scripting, which writes the modules it prepares back into their parent's dict, does not
    change the modules below ``module``."""
    plain = cls.__new__(cls)
    plain.__dict__ = module.__dict__.copy()
    plain._modules = dict(module._modules)
    return plain


def _trt_swap_attention(module):
    """Make every ``nn.MultiheadAttention`` (exactly that class) below ``module`` a
    ``_TrtMultiheadAttention``: the same object, parameters and state, another ``forward``."""
    for child in module.modules():
        if type(child) is torch.nn.MultiheadAttention:
            child.__class__ = _TrtMultiheadAttention


class _TrtTransformerEncoderLayer(torch.nn.TransformerEncoderLayer):
    """``nn.TransformerEncoderLayer`` (same arguments, attributes and state) whose attention
    exports with the sequence length followed (``_TrtMultiheadAttention``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _trt_swap_attention(self)

    def forward(self, *args, **kwargs):
        src = args[0] if args else kwargs.get("src")
        if _trt_onnx_tracing() and not getattr(src, "is_nested", False):
            # In eval mode without gradients torch's forward takes one fused kernel (batch_first,
            # an even number of heads, relu or gelu), which the exporter cannot convert. (A nested
            # tensor, from nn.TransformerEncoder's own fast path, runs only in that kernel.)
            return _trt_without_fast_path(super().forward, *args, **kwargs)
        return super().forward(*args, **kwargs)

    def __prepare_scriptable__(self):
        return _trt_plain_module(self, torch.nn.TransformerEncoderLayer)


class _TrtTransformerDecoderLayer(torch.nn.TransformerDecoderLayer):
    """``nn.TransformerDecoderLayer`` (same arguments, attributes and state) whose two
    attention modules export with the sequence lengths followed (``_TrtMultiheadAttention``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _trt_swap_attention(self)

    def __prepare_scriptable__(self):
        return _trt_plain_module(self, torch.nn.TransformerDecoderLayer)


class _TrtTransformer(torch.nn.Transformer):
    """``nn.Transformer`` (same arguments, attributes and state) whose own encoder and decoder
    layers' attention exports with the sequence lengths followed; a ``custom_encoder`` or
    ``custom_decoder`` passed in is the caller's and stays as it is."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        custom_encoder = args[7] if len(args) > 7 else kwargs.get("custom_encoder")
        custom_decoder = args[8] if len(args) > 8 else kwargs.get("custom_decoder")
        if custom_encoder is None:
            _trt_swap_attention(self.encoder)
        if custom_decoder is None:
            _trt_swap_attention(self.decoder)

    def forward(self, *args, **kwargs):
        if _trt_onnx_tracing():
            # Its encoder's fast paths (nested tensors from a padding mask, the fused layer kernel)
            # do not export.
            return _trt_without_fast_path(super().forward, *args, **kwargs)
        return super().forward(*args, **kwargs)

    def __prepare_scriptable__(self):
        return _trt_plain_module(self, torch.nn.Transformer)
