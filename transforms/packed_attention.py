"""``nn.MultiheadAttention`` and the transformer layers → helper subclasses (TRT316).

The TorchScript exporter bakes the sequence length into torch's own packed-projection
attention; the helpers (``trtcodemod/helpers/multihead.py``) export it with the three
projection blocks instead, and are torch's modules everywhere else.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

#: torch's class name → the helper that replaces it.
_HELPERS = {
    "MultiheadAttention": "_TrtMultiheadAttention",
    "TransformerEncoderLayer": "_TrtTransformerEncoderLayer",
    "TransformerDecoderLayer": "_TrtTransformerDecoderLayer",
    "Transformer": "_TrtTransformer",
}

#: Every spelling of the classes: ``torch.nn.X``, ``torch.nn.modules.<file>.X``.
_CLASSES: dict[str, str] = {}
for _name in _HELPERS:
    _file = "activation" if _name == "MultiheadAttention" else "transformer"
    for _prefix in ("torch.nn.", "torch.nn.modules.", f"torch.nn.modules.{_file}."):
        _CLASSES[_prefix + _name] = _name


class PackedAttention(Rule):
    needs_text = (b"MultiheadAttention", b"Transformer")
    info = RuleInfo(
        id="TRT316",
        name="packed-attention",
        summary="`nn.MultiheadAttention` (and the `nn.Transformer*` layers) export with the sequence length baked in "
                "(TorchScript exporter); project with the three weight blocks while exporting",
        doc="""\
What it finds: constructions of torch's `nn.MultiheadAttention(...)`,
`nn.TransformerEncoderLayer(...)`, `nn.TransformerDecoderLayer(...)` and `nn.Transformer(...)`
(any import spelling: `torch.nn.X`, `nn.X`, `from torch.nn import X`, `torch.nn.modules...X`).
`nn.TransformerEncoder(layer, n)` / `nn.TransformerDecoder` copy the layer they are given, so
the layer's construction is where the rewrite goes.

Why it hurts: with its packed input projection (`in_proj_weight`, the default
`kdim == vdim == embed_dim`), torch's attention projects self-attention in
`F._in_projection_packed` (`proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2)
.squeeze(-2)`); after it, the TorchScript exporter records the following `k.view(k.shape[0],
...)` of `F.multi_head_attention_forward` with the traced sequence length as a constant. The
graph exports without error and computes the traced input exactly, but its Reshape fails at
every other sequence length (ONNX Runtime: "Reshape ... requested shape {4,12,16}"; TensorRT
builds a profile it cannot run), with `batch_first` True or False, for a bare
`nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128), 1)`. The trace also reads
sizes in torch's own `if ...: raise` checks, which is the TracerWarning at the line that
calls the module. Exported under `torch.no_grad()` in eval mode (as migrate's verifier does), a
self-attention call that takes torch's fast path (query, key and value one tensor, e.g.
`attn(x, x, x, need_weights=False)` as torchvision's ViT writes it) does not export at all:
"Exporting the operator 'aten::_native_multi_head_attention' ... is not supported". The
dynamo exporter keeps the length dynamic.

The rewrite: `nn.MultiheadAttention(...)` → `_TrtMultiheadAttention(...)`, a subclass with
the same constructor arguments, attributes, parameters and `state_dict` keys. Its forward is
torch's own (`super().forward`) except while the TorchScript ONNX exporter traces
(`torch.jit.is_tracing()` and `torch.onnx.is_in_onnx_export()`) and the packed weight is in
use: then it runs torch's non-fast path with `use_separate_proj_weight=True` and
`in_proj_weight.chunk(3)` as the query/key/value weights (the bias is split the same way by
torch), which is the same function and exports a graph that follows the sequence length.
`nn.TransformerEncoderLayer(...)` → `_TrtTransformerEncoderLayer(...)` (likewise the decoder
layer and `nn.Transformer`): the same class with its `forward` inherited, whose `__init__`
turns the attention modules it built into `_TrtMultiheadAttention` (the same objects; a
`custom_encoder`/`custom_decoder` given to `nn.Transformer` is left as it is).
Exported under `torch.no_grad()` in eval mode, torch's encoder layer with `batch_first=True`, an
even number of heads, relu or gelu and biases (any `norm_first`) runs one fused kernel,
"Exporting the operator 'aten::_transformer_encoder_layer_fwd' ... is not supported"; while the
TorchScript exporter traces, the encoder-layer and `nn.Transformer` helpers run torch's forward
with its fast path switched off for the call (`torch.backends.mha.set_fastpath_enabled`, put
back afterwards; another thread's attention during the export computes the same function on
its slow path), which is torch's own `_sa_block`/`_ff_block`: the same function. Not covered:
`nn.TransformerEncoder(layer, n)` (left as written) called with a `src_key_padding_mask` in eval
mode without gradients, when the mask is left-aligned (read from the values), runs on nested
tensors (`aten::_nested_tensor_from_mask`), which do not export, and returns zeros at the padded
positions where its slow path computes values: no fixed graph is that function. Manual step:
build it with `enable_nested_tensor=False` (padded positions then hold computed values; zero them
with `masked_fill` if later code reads them).

Fix safety: unsafe. Values, dtypes, gradients, state and `state_dict` are the original's in
eager mode, `torch.compile` and `torch.export` (torch's own forward runs), and the exported
ONNX graph computes the same function (the separate projections multiply by the same rows;
differences are float rounding, ~1e-7). What differs is the model's structure: the model
prints `_TrtMultiheadAttention(...)`, `type(m) is nn.MultiheadAttention` is false, and
`torch.fx.symbolic_trace` traces into the helper classes (torch's own modules are leaves),
where torch's data-dependent checks stop it. `torch.jit.script` compiles torch's own classes
over the same parameters (`__prepare_scriptable__`), but torch writes those prepared modules
back into the parent module, so after scripting the eager model holds plain
`nn.MultiheadAttention` again (same values; its TorchScript export bakes the length again).
Code that walks modules by type, repr or fx graph sees another model.""",
        fix=Safety.UNSAFE,
        assumption=("nothing tells the helper classes from torch's (type checks, repr, torch.fx leaf modules, "
                    "torch.jit.script's write-back of prepared modules)"),
        fails_when=(
            "code checks `type(m) is nn.MultiheadAttention` (or the layer classes) or matches the repr",
            "the model is traced with `torch.fx.symbolic_trace`, which keeps torch's modules as leaves but traces "
            "into the helpers and stops at torch's data-dependent checks",
            "`torch.jit.script(model)` replaces the helpers in the eager model by torch's classes (values unchanged)",
        ),
        examples=(
            Example("self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)\n",
                    "self.attn = _TrtMultiheadAttention(dim, heads, batch_first=True)\n", unsafe=True),
            Example("layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dropout=0.1)\n"
                    "self.transformer = torch.nn.TransformerEncoder(layer, num_layers=2)\n",
                    "layer = _TrtTransformerEncoderLayer(d_model=256, nhead=8, dropout=0.1)\n"
                    "self.transformer = torch.nn.TransformerEncoder(layer, num_layers=2)\n", unsafe=True),
            Example("from torch.nn import Transformer\nself.model = Transformer(d_model=64, nhead=4)\n",
                    "from torch.nn import Transformer\nself.model = _TrtTransformer(d_model=64, nhead=4)\n",
                    unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html",
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.multi_head_attention_forward.html",
            "https://github.com/pytorch/pytorch/issues/73276",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.refers_to(node.func, *_CLASSES)
        if qualified is None:
            return
        name = _CLASSES[qualified]
        helper = _HELPERS[name]
        self.report(
            node,
            f"nn.{name}'s packed attention projection exports (TorchScript exporter) with the traced sequence "
            f"length baked into a Reshape, so the graph fails at every other length; `{helper}` projects with the "
            "three weight blocks while exporting",
            Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,), safety=Safety.UNSAFE),
        )


RULES = (PackedAttention,)
"""The rules, one module per rule family; the registry is trtcodemod.registry."""
