"""TRT316: torch's attention modules become ``_Trt*`` subclasses whose TorchScript ONNX export
projects with the three blocks of ``in_proj_weight`` (the sequence length then stays dynamic).

The rewrite text (every import spelling; what is left alone); eager runs before and after on real
tensors (values, ``state_dict`` keys, attributes; zeros, negatives, inf/NaN, an empty batch);
the export path itself against torch's forward (masks, cross attention, ``batch_first``,
unbatched input, per-head weights); both exporters with a dynamic sequence length, run in ONNX
Runtime at other lengths (torch's own module fails there with the TorchScript exporter);
``torch.jit.script``; and ``migrate`` on a small model whose problem is located at the line
that calls the encoder while the construction is in ``__init__``.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import assert_same, load, migrate_json, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.multihead import (
    _TrtMultiheadAttention,
    _TrtTransformer,
    _TrtTransformerDecoderLayer,
    _TrtTransformerEncoderLayer,
)

MODEL = """
import torch
import torch.nn as nn
from torch.nn import MultiheadAttention as MHA, TransformerDecoderLayer


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.attn = MHA(16, 2, batch_first=True)
        self.cross = torch.nn.modules.activation.MultiheadAttention(16, 4, kdim=8, vdim=8)
        self.decoder = TransformerDecoderLayer(16, 2, 24, batch_first=True)
        self.full = torch.nn.Transformer(16, 2, 1, 1, 24)

    def forward(self, x, memory):
        a = self.encoder(x)
        b, w = self.attn(x, x, x, average_attn_weights=False)
        c = self.cross(x, memory, memory, need_weights=False)[0]
        d = self.decoder(x, x)
        e = self.full(x, x)
        return a, b, w, c, d, e
"""


def _rewritten() -> str:
    return rewrite(MODEL, unsafe=True, select=("TRT316",))


def test_rewrite_text() -> None:
    after = _rewritten()
    assert "layer = _TrtTransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32)" in after
    assert "self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)" in after
    assert "self.attn = _TrtMultiheadAttention(16, 2, batch_first=True)" in after
    assert "self.cross = _TrtMultiheadAttention(16, 4, kdim=8, vdim=8)" in after
    assert "self.decoder = _TrtTransformerDecoderLayer(16, 2, 24, batch_first=True)" in after
    assert "self.full = _TrtTransformer(16, 2, 1, 1, 24)" in after
    call_sites = strip_helpers(after)
    assert "MHA(" not in call_sites and "nn.TransformerEncoderLayer(" not in call_sites
    assert after.count("class _TrtMultiheadAttention(") == 1
    assert rewrite(after, unsafe=True, select=("TRT316",)) == after  # idempotent
    # Unsafe: nothing changes without --unsafe.
    assert rewrite(MODEL, select=("TRT316",)) == textwrap_dedent(MODEL)


def textwrap_dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code)


@pytest.mark.parametrize("code", [
    "class MultiheadAttention(torch.nn.Module):\n    pass\n\n\nm = MultiheadAttention()\n",  # the project's own
    "enc = torch.nn.TransformerEncoder(layer, 2)\n",
    "m = torch.nn.TransformerDecoder(layer, 2)\n",
    "y = torch.nn.functional.multi_head_attention_forward\n",
])
def test_left_alone(code: str) -> None:
    source = "import torch\n\n\n" + code
    assert "TRT316" not in rules_found(source)
    assert rewrite(source, unsafe=True, select=("TRT316",)) == source


def _pair() -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(0)
    before = load(MODEL, "Net")().eval()
    torch.manual_seed(1)
    after = load(_rewritten(), "Net")().eval()
    after.load_state_dict(before.state_dict())
    return before, after


EDGE = {
    "random": lambda: torch.randn(5, 3, 16),
    "zeros": lambda: torch.zeros(5, 3, 16),
    "negative": lambda: -torch.rand(5, 3, 16) * 100,
    "inf-nan": lambda: torch.randn(5, 3, 16).index_put_((torch.tensor([1]), torch.tensor([0]), torch.tensor([2])),
                                                        torch.tensor(float("nan"))).index_put_(
        (torch.tensor([2]), torch.tensor([1]), torch.tensor([3])), torch.tensor(float("inf"))),
    "empty-batch": lambda: torch.randn(5, 0, 16),
}


@pytest.mark.parametrize("name", list(EDGE))
@pytest.mark.parametrize("grad", [False, True])
def test_eager_is_the_original(name: str, grad: bool) -> None:
    before, after = _pair()
    assert list(before.state_dict()) == list(after.state_dict())
    for (n_b, m_b), (n_a, m_a) in zip(before.named_modules(), after.named_modules()):
        assert n_b == n_a
        assert {k: v for k, v in vars(m_b).items() if not k.startswith("_")} == \
               {k: v for k, v in vars(m_a).items() if not k.startswith("_")}, n_b
    # The rewritten file carries its own copy of the helpers.
    for attention in (after.encoder.layers[0].self_attn, after.decoder.multihead_attn,
                      after.full.encoder.layers[0].self_attn, after.full.decoder.layers[0].multihead_attn):
        assert type(attention).__name__ == "_TrtMultiheadAttention"
    x = EDGE[name]()
    memory = torch.randn(7, x.shape[1], 8)
    with torch.set_grad_enabled(grad):
        expected = before(x, memory)
        got = after(x, memory)
    assert_same(expected, got)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("case", ["self", "masks", "causal", "cross", "unbatched", "per-head", "bias-kv"])
def test_export_path_is_the_same_function(batch_first: bool, case: str) -> None:
    torch.manual_seed(0)
    extra = {"add_bias_kv": True, "add_zero_attn": True} if case == "bias-kv" else {}
    module = _TrtMultiheadAttention(16, 4, batch_first=batch_first, **extra).eval()
    x = torch.randn(3, 5, 16) if batch_first else torch.randn(5, 3, 16)  # 3 sequences of 5
    if case == "unbatched":
        x = torch.randn(5, 16)
    q = k = v = x
    kwargs: dict = {}
    if case == "cross":
        q = torch.randn(3, 2, 16) if batch_first else torch.randn(2, 3, 16)
    if case == "masks":
        padding = torch.zeros(3, 5, dtype=torch.bool)
        padding[0, -1] = True
        kwargs = {"key_padding_mask": padding, "attn_mask": torch.randn(5, 5)}
    if case == "causal":
        kwargs = {"attn_mask": torch.nn.Transformer.generate_square_subsequent_mask(5), "is_causal": True}
    if case == "per-head":
        kwargs = {"average_attn_weights": False}
    expected = torch.nn.MultiheadAttention.forward(module, q, k, v, **kwargs)
    got = module._trt_separate_projections(q, k, v, kwargs.get("key_padding_mask"), True, kwargs.get("attn_mask"),
                                          kwargs.get("average_attn_weights", True), kwargs.get("is_causal", False))
    assert_same(expected, got, atol=1e-6, rtol=1e-5)


class _Encoder(torch.nn.Module):
    def __init__(self, layer_type: type, batch_first: bool) -> None:
        super().__init__()
        self.encoder = torch.nn.TransformerEncoder(layer_type(32, 4, 64, batch_first=batch_first), 2,
                                                   enable_nested_tensor=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {0: torch.export.Dim("a"), 1: torch.export.Dim("b")}
            program = torch.onnx.export(model, (x,), dynamo=True, dynamic_shapes={"x": dims}, verbose=False)
            program.save(buffer)
        else:
            torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "a", 1: "b"}})
    return ort.InferenceSession(buffer.getvalue())


def _run_at(session: ort.InferenceSession, model: torch.nn.Module, shape: tuple[int, ...]) -> None:
    x = torch.randn(*shape)
    with torch.no_grad():
        expected = model(x).numpy()
    got = session.run(None, {"x": x.numpy()})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=str(shape))


@pytest.mark.parametrize("batch_first", [False, True])
def test_torch_module_bakes_the_length(batch_first: bool) -> None:
    """What the rule is for: torch's own layer, TorchScript exporter, another sequence length."""
    torch.manual_seed(0)
    model = _Encoder(torch.nn.TransformerEncoderLayer, batch_first).eval()
    session = _export(model, torch.randn(4, 2, 32), dynamo=False)
    _run_at(session, model, (4, 2, 32))
    with pytest.raises(Exception, match="Reshape"):
        _run_at(session, model, (9, 3, 32))


class _FastPathBlock(torch.nn.Module):
    """Self-attention as torchvision's ViT block calls it (one tensor, ``need_weights=False``)."""

    def __init__(self, attention_type: type) -> None:
        super().__init__()
        self.attn = attention_type(32, 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x, x, x, need_weights=False)[0]


def test_fast_path_under_no_grad_does_not_export_and_the_helper_does() -> None:
    """Exported under ``torch.no_grad()`` in eval mode, torch's module takes its fast path, which the
    TorchScript exporter cannot convert; the helper exports the same call and follows the length."""
    torch.manual_seed(0)
    plain = _FastPathBlock(torch.nn.MultiheadAttention).eval()
    with torch.no_grad(), pytest.raises(Exception, match="_native_multi_head_attention"):
        _export(plain, torch.randn(2, 4, 32), dynamo=False)
    model = _FastPathBlock(_TrtMultiheadAttention).eval()
    model.load_state_dict(plain.state_dict())
    with torch.no_grad():
        session = _export(model, torch.randn(2, 4, 32), dynamo=False)
    for shape in [(2, 4, 32), (3, 9, 32), (1, 1, 32)]:
        _run_at(session, plain, shape)


@pytest.mark.parametrize("dynamo", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_helper_exports_follow_the_length(batch_first: bool, dynamo: bool) -> None:
    torch.manual_seed(0)
    model = _Encoder(_TrtTransformerEncoderLayer, batch_first).eval()
    session = _export(model, torch.randn(4, 2, 32), dynamo=dynamo)
    for shape in [(9, 3, 32), (4, 2, 32), (1, 1, 32), (6, 5, 32)]:
        _run_at(session, model, shape)


def test_script_compiles_torchs_classes() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(_TrtTransformerEncoderLayer(16, 2, 32), _TrtMultiheadAttentionBlock()).eval()
    x = torch.randn(5, 3, 16)
    expected = model(x)
    scripted = torch.jit.script(model)
    assert_same(expected, scripted(x))
    # The documented cost: torch writes the prepared (torch's own) modules back into the parent.
    assert type(model[1].attn) is torch.nn.MultiheadAttention
    assert_same(expected, model(x))


def test_compile_and_export_run_torchs_forward() -> None:
    torch.manual_seed(0)
    model = _TrtTransformerEncoderLayer(16, 2, 32).eval()
    reference = torch.nn.TransformerEncoderLayer(16, 2, 32).eval()
    reference.load_state_dict(model.state_dict())
    x = torch.randn(5, 3, 16)
    expected = reference(x)
    assert_same(expected, torch.compile(model, backend="eager", fullgraph=True)(x))
    program = torch.export.export(model, (x,))
    assert_same(expected, program.module()(x))
    assert not any("chunk" in str(node.target) or "split" in str(node.target) for node in program.graph.nodes)


class _TrtMultiheadAttentionBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = _TrtMultiheadAttention(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x, x, x)[0]


def test_layer_helpers_keep_custom_parts() -> None:
    custom = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(16, 2, 32), 1)
    model = _TrtTransformer(16, 2, 1, 1, 32, custom_encoder=custom)
    assert type(custom.layers[0].self_attn) is torch.nn.MultiheadAttention
    assert type(model.decoder.layers[0].self_attn) is _TrtMultiheadAttention
    assert type(_TrtTransformerDecoderLayer(16, 2).self_attn) is _TrtMultiheadAttention
    assert isinstance(_TrtTransformer(16, 2, 1, 1, 32), torch.nn.Transformer)


BAG = """
import torch
import torch.nn as nn


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Linear(8, 32)
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dropout=0.0)
        self.transformer = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        x = self.embed(x).permute(1, 0, 2)
        x = self.transformer(x)
        return self.head(x.permute(1, 0, 2).mean(1))


def build():
    return Bag().eval()


def inputs(generator):
    return (torch.rand(1, 4, 8, generator=generator),)
"""


def test_migrate_fixes_the_call_line_at_the_construction(tmp_path: Path) -> None:
    model = tmp_path / "bag.py"
    model.write_text(BAG.lstrip("\n"))
    axes = '{"x": {"0": "batch", "1": "instances"}}'
    without = migrate_json(model, axes, "--ignore", "TRT316")
    assert without["exit_code"] == 1 and without["before"]["faithful"] is False
    assert any(p["source"].endswith("bag.py:16") for p in without["remaining"]), without["remaining"]
    report = migrate_json(model, axes)
    assert report["before"]["faithful"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT316", 10)]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


LAYER_CONFIGS = {
    # The arabicocr-khatt CRNN's layer (pre-norm, GELU, batch first, even heads): fused fast path under no_grad.
    "prenorm-gelu-batch-first": dict(activation="gelu", batch_first=True, norm_first=True),
    "postnorm-relu-batch-first": dict(batch_first=True),
    "gelu-callable-batch-first": dict(activation=torch.nn.functional.gelu, batch_first=True),
    "custom-activation-batch-first": dict(activation=torch.tanh, batch_first=True, norm_first=True),
    "odd-heads-batch-first": dict(batch_first=True, nhead=1),
    "no-bias-batch-first": dict(batch_first=True, bias=False, norm_first=True),
    "sequence-first": dict(activation="gelu", norm_first=True),
}


class _Layer(torch.nn.Module):
    def __init__(self, layer_type: type, config: dict) -> None:
        super().__init__()
        config = {"nhead": 4, **config}
        self.layer = layer_type(32, dim_feedforward=48, dropout=0.1, **config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)


@pytest.mark.parametrize("config", list(LAYER_CONFIGS))
def test_encoder_layer_exports_under_no_grad_in_every_configuration(config: str) -> None:
    """Exported in eval mode without gradients (migrate's verifier), torch's encoder layer with
    ``batch_first=True``, an even number of heads, relu or gelu and biases runs one fused kernel that
    the TorchScript exporter cannot convert; the helper exports torch's own operators in every
    configuration, follows the sequence length and computes torch's values (edge values too); eager
    mode keeps the fast path afterwards."""
    torch.manual_seed(0)
    plain = _Layer(torch.nn.TransformerEncoderLayer, LAYER_CONFIGS[config]).eval()
    model = _Layer(_TrtTransformerEncoderLayer, LAYER_CONFIGS[config]).eval()
    model.load_state_dict(plain.state_dict())
    fused = plain.layer.self_attn.batch_first and plain.layer.self_attn.num_heads % 2 == 0 and \
        plain.layer.activation_relu_or_gelu and plain.layer.self_attn.in_proj_bias is not None
    example = torch.randn(2, 5, 32)
    if fused:
        with torch.no_grad(), pytest.raises(Exception, match="_transformer_encoder_layer_fwd"):
            _export(plain, example, dynamo=False)
    with torch.no_grad():
        session = _export(model, example, dynamo=False)
    assert torch.backends.mha.get_fastpath_enabled()
    for shape in [(2, 5, 32), (3, 9, 32), (1, 1, 32), (4, 2, 32)]:
        _run_at(session, plain, shape)
    for x in [torch.zeros(3, 4, 32), -torch.rand(3, 4, 32) * 100, torch.randn(3, 4, 32) * 1e4]:
        with torch.no_grad():
            expected = plain(x).numpy()
            assert_same(plain(x), model(x))
        got = session.run(None, {"x": x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(expected).max())))


def test_transformer_exports_under_no_grad() -> None:
    torch.manual_seed(0)
    plain = torch.nn.Transformer(32, 4, 1, 1, 48, batch_first=True, norm_first=True).eval()
    model = _TrtTransformer(32, 4, 1, 1, 48, batch_first=True, norm_first=True).eval()
    model.load_state_dict(plain.state_dict())

    class Both(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.inner(x, x[:, :3])

    with torch.no_grad():
        session = _export(Both(model), torch.randn(2, 5, 32), dynamo=False)
    assert torch.backends.mha.get_fastpath_enabled()
    for shape in [(2, 5, 32), (3, 9, 32), (1, 4, 32)]:
        _run_at(session, Both(plain), shape)


def test_encoder_stack_with_a_padding_mask_stays_a_manual_step() -> None:
    """Not covered, and named in the rule's doc: ``nn.TransformerEncoder`` called with a left-aligned
    ``src_key_padding_mask`` in eval mode without gradients runs on nested tensors, which do not export
    (helper layers or not), and returns zeros at the padded positions where its slow path computes values,
    so no fixed graph is that function; ``enable_nested_tensor=False`` exports (values differ only there)."""
    torch.manual_seed(0)

    class Stack(torch.nn.Module):
        def __init__(self, nested: bool) -> None:
            super().__init__()
            layer = _TrtTransformerEncoderLayer(32, 4, 48, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=nested)

        def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
            return self.encoder(x, src_key_padding_mask=pad)

    nested, plain = Stack(True).eval(), Stack(False).eval()
    plain.load_state_dict(nested.state_dict())
    x, pad = torch.randn(2, 6, 32), torch.zeros(2, 6, dtype=torch.bool)
    pad[0, 4:] = True
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zeroed, computed = nested(x, pad), plain(x, pad)
        assert zeroed[0, 4:].abs().max() == 0 and computed[0, 4:].abs().max() > 0
        torch.testing.assert_close(zeroed[~pad], computed[~pad])
        with pytest.raises(Exception, match="_nested_tensor_from_mask"):
            torch.onnx.export(nested, (x, pad), io.BytesIO(), dynamo=False)
        buffer = io.BytesIO()
        torch.onnx.export(plain, (x, pad), buffer, dynamo=False, input_names=["x", "pad"],
                          dynamic_axes={"x": {1: "n"}, "pad": {1: "n"}})
    x2, pad2 = torch.randn(2, 9, 32), torch.zeros(2, 9, dtype=torch.bool)
    pad2[1, 5:] = True
    got = ort.InferenceSession(buffer.getvalue()).run(None, {"x": x2.numpy(), "pad": pad2.numpy()})[0]
    with torch.no_grad():
        np.testing.assert_allclose(got, plain(x2, pad2).numpy(), rtol=1e-4, atol=1e-5)
