"""TRT322 (``F.scaled_dot_product_attention(..., scale=s)`` with ``s`` from a size): the query scaled while tracing.

The rewrite text (a scale from unpacked sizes, from ``x.shape``, positional; literals, ``None``,
configuration and a parameter without facts left alone), the helper against the operator (eager:
bit for bit, edge values, masks, causal, grouped heads; the traced formulation on a traced scale),
the TorchScript export at two sizes (the original keeps the example's scale, the rewritten graph
follows the tokens in ONNX Runtime), and migrate on Florence-2's channel attention, whose scale is
handed down to transformers' ``sdpa_attention_forward`` (only the observed export names it).
"""

from __future__ import annotations

import io
import math
import warnings

import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from support import load, migrate_json, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.attention import _trt_sdpa

SOURCE = '''
import math

import torch
import torch.nn.functional as F
from torch.nn.functional import scaled_dot_product_attention as sdpa


class ChannelAttention(torch.nn.Module):
    def forward(self, q, k, v):
        b, h, n, d = k.shape
        a = F.scaled_dot_product_attention(q, k, v, scale=n ** -0.5)
        c = sdpa(q, k, v, None, 0.0, False, scale=k.shape[2] ** -0.5)
        e = F.scaled_dot_product_attention(q, k, v, scale=0.125)
        f = F.scaled_dot_product_attention(q, k, v, scale=None)
        g = F.scaled_dot_product_attention(q, k, v, scale=self.scale)
        r = F.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(n))
        return a, c, e, f, g, r


def attend(q, k, v, scaling=None):
    return F.scaled_dot_product_attention(q, k, v, scale=scaling)
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT322",)) == ["TRT322"] * 3
    after = strip_helpers(rewrite(SOURCE, select=("TRT322",)))  # safe: no --unsafe needed
    assert "a = _trt_sdpa(q, k, v, scale=n ** -0.5)" in after
    assert "c = _trt_sdpa(q, k, v, None, 0.0, False, scale=k.shape[2] ** -0.5)" in after
    assert "r = _trt_sdpa(q, k, v, scale=1 / math.sqrt(n))" in after
    for kept in ("scale=0.125)", "scale=None)", "scale=self.scale)", "scale=scaling)"):
        assert f"F.scaled_dot_product_attention(q, k, v, {kept}" in after
    once = rewrite(SOURCE, select=("TRT322",))
    assert rewrite(once, select=("TRT322",)) == once


def _qkv(batch: int, heads: int, queries: int, keys: int, width: int, kv_heads: int | None = None,
         seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    kv = kv_heads or heads
    return (torch.randn(batch, heads, queries, width, generator=g), torch.randn(batch, kv, keys, width, generator=g),
            torch.randn(batch, kv, keys, width, generator=g))


@pytest.mark.parametrize("scale", [None, 0.3, 0.0, -1.5, 1e30])
def test_eager_is_the_operator_bit_for_bit(scale: float | None) -> None:
    q, k, v = _qkv(2, 4, 5, 7, 8)
    mask = torch.rand(5, 7, generator=torch.Generator().manual_seed(1)) > 0.3
    for kwargs in ({}, {"attn_mask": mask}, {"is_causal": True}, {"attn_mask": torch.zeros(5, 7)}):
        expected = F.scaled_dot_product_attention(q, k, v, scale=scale, **kwargs)
        got = _trt_sdpa(q, k, v, scale=scale, **kwargs)
        assert torch.equal(expected.isnan(), got.isnan()) and torch.equal(expected.nan_to_num(), got.nan_to_num())
    qg, kg, vg = _qkv(1, 4, 3, 6, 8, kv_heads=2)
    assert torch.equal(_trt_sdpa(qg, kg, vg, scale=scale, enable_gqa=True),
                       F.scaled_dot_product_attention(qg, kg, vg, scale=scale, enable_gqa=True))
    # Edge values pass through as the operator has them: zeros, empty key sets, infinities.
    zeros = torch.zeros(1, 1, 2, 4)
    assert torch.equal(_trt_sdpa(zeros, zeros, zeros, scale=scale),
                       F.scaled_dot_product_attention(zeros, zeros, zeros, scale=scale))
    empty = torch.zeros(1, 1, 0, 4)
    assert torch.equal(_trt_sdpa(zeros, empty, empty, scale=scale).isnan(),
                       F.scaled_dot_product_attention(zeros, empty, empty, scale=scale).isnan())
    inf = torch.full((1, 1, 2, 4), float("inf"))
    assert torch.equal(_trt_sdpa(inf, zeros, zeros, scale=scale).isnan(),
                       F.scaled_dot_product_attention(inf, zeros, zeros, scale=scale).isnan())


def test_the_same_exceptions_as_the_operator() -> None:
    q, k, v = _qkv(1, 2, 3, 4, 8)
    for bad in ({"scale": 0.5, "enable_gqa": "no", "dropout_p": "x"}, {"attn_mask": torch.zeros(3, 5)}):
        with pytest.raises(Exception) as expected:
            F.scaled_dot_product_attention(q, k, v, **bad)
        with pytest.raises(type(expected.value)):
            _trt_sdpa(q, k, v, **bad)


def test_scripted_the_helper_is_the_operator() -> None:
    scripted = torch.jit.script(_trt_sdpa)
    q, k, v = _qkv(1, 2, 3, 4, 8)
    assert torch.equal(scripted(q, k, v, None, 0.0, False, 0.25, False), F.scaled_dot_product_attention(q, k, v, scale=0.25))


class _Tokens(torch.nn.Module):
    """Florence-2's channel attention: the scale is the number of tokens to the power -0.5."""

    def __init__(self, attention) -> None:
        super().__init__()
        self.attention = attention

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        q = k = v = x.reshape(b, n, 2, c // 2).permute(0, 2, 3, 1)  # channels attend to channels over n tokens
        return self.attention(q, k, v, scale=n ** -0.5)


def _export(model: torch.nn.Module, x: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "tokens"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_exported_graph_follows_the_number_of_tokens() -> None:
    g = torch.Generator().manual_seed(3)
    traced_at, other = torch.randn(1, 6, 8, generator=g) * 3, torch.randn(2, 21, 8, generator=g) * 3
    original, rewritten = _Tokens(F.scaled_dot_product_attention), _Tokens(_trt_sdpa)
    for x in (traced_at, other):
        assert torch.equal(original(x), rewritten(x))
    before, after = _export(original, traced_at), _export(rewritten, traced_at)
    for x in (traced_at, other):
        expected = original(x).numpy()
        assert abs(after.run(None, {"x": x.numpy()})[0] - expected).max() < 1e-5
    # The original's graph keeps the scale of 6 tokens: at 21 it computes other values.
    assert abs(before.run(None, {"x": other.numpy()})[0] - original(other).numpy()).max() > 1e-3


MODEL = '''
import torch
import torch.nn.functional as F


def attention_forward(module, query, key, value, scaling=None):
    return F.scaled_dot_product_attention(query, key, value, scale=scaling)


class ChannelAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, 2, c // 2).permute(2, 0, 3, 4, 1)
        q, k, v = qkv.unbind(0)
        scale = n ** -0.5
        out = attention_forward(self, q, k, v, scaling=scale)
        return out.permute(0, 3, 1, 2).reshape(b, n, c)


def build():
    return ChannelAttention()


def inputs(generator):
    return (torch.randn(1, 6, 8, generator=generator),)
'''


def test_migrate_fixes_a_scale_handed_down_from_the_caller(tmp_path) -> None:
    """Without facts the call in ``attention_forward`` has only a parameter for its scale; the
    observed export warns there that it read a traced value into a float: the fix lands there."""
    assert rules_found(MODEL, select=("TRT322",)) == []
    path = tmp_path / "channel_attention.py"
    path.write_text(MODEL)
    report = migrate_json(path, '{"x": {"0": "batch", "1": "tokens"}}')
    assert report["before"]["faithful"] is False
    assert [a["rule"] for a in report["applied"]] == ["TRT322"]
    assert "return _trt_sdpa(query, key, value, scale=scaling)" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True
    assert report["exit_code"] == 0, report["remaining"]


def test_the_loaded_rewrite_runs_as_the_original() -> None:
    rewritten = load(rewrite(SOURCE, select=("TRT322",)), "ChannelAttention")()
    original = load(SOURCE, "ChannelAttention")()
    rewritten.scale = original.scale = 0.2
    q, k, v = _qkv(2, 2, 5, 9, 8)
    for got, expected in zip(rewritten(q, k, v), original(q, k, v)):
        assert torch.equal(got, expected)


# --- proportional attention: a scale from the log of the number of tokens -------------------------------------

PROPORTIONAL = '''
import math

import torch
import torch.nn.functional as F


class Proportional(torch.nn.Module):
    def __init__(self, base=16, proportional=True):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.base, self.proportional, self.scale = base, proportional, 0.5

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, 2, 4).permute(2, 0, 3, 1, 4).unbind(0)
        if self.proportional:
            if self.base is not None:
                softmax_scale = math.sqrt(math.log(n, self.base)) * self.scale
            else:
                softmax_scale = self.scale
        else:
            softmax_scale = None
        a = F.scaled_dot_product_attention(q, k, v, scale=softmax_scale)
        quotient = math.sqrt(math.log(n, self.base) / 4)
        d = F.scaled_dot_product_attention(q, k, v, scale=quotient)
        e = F.scaled_dot_product_attention(q, k, v, scale=math.log(x.shape[1], self.base) / math.sqrt(4))
        natural = math.log(n) * 0.25
        f = F.scaled_dot_product_attention(q, k, v, scale=natural)
        return torch.cat([a, d, e, f], 1).transpose(1, 2).reshape(b, n, -1)


class Rounded(torch.nn.Module):
    def forward(self, q, k, v):
        n = k.shape[2]
        s = math.exp(math.log(n, 16)) * 0.1
        return F.scaled_dot_product_attention(q, k, v, scale=s)
'''


def test_proportional_rewrite_text() -> None:
    """Each ``math.log`` of a size is ``_trt_size_log`` (``_trt_size_log_base`` with a base), each ``math.sqrt``
    around one ``_trt_size_sqrt``, in the binding the call reads (nested ``if``/``else`` arms left as written) or
    inline;
    a root of a plain number (``math.sqrt(4)``) and a log read by another ``math`` function are left."""
    assert rules_found(PROPORTIONAL, select=("TRT322",)) == ["TRT322"] * 4
    after = strip_helpers(rewrite(PROPORTIONAL, select=("TRT322",)))
    assert "softmax_scale = _trt_size_sqrt(_trt_size_log_base(n, self.base)) * self.scale" in after
    assert "softmax_scale = self.scale\n" in after and "softmax_scale = None\n" in after
    assert "a = _trt_sdpa(q, k, v, scale=softmax_scale)" in after
    assert "quotient = _trt_size_sqrt(_trt_size_log_base(n, self.base) / 4)" in after
    assert "d = _trt_sdpa(q, k, v, scale=quotient)" in after
    assert "e = _trt_sdpa(q, k, v, scale=_trt_size_log_base(x.shape[1], self.base) / math.sqrt(4))" in after
    assert "natural = _trt_size_log(n) * 0.25" in after and "f = _trt_sdpa(q, k, v, scale=natural)" in after
    # math.exp would read the traced log into a float again: not taken
    assert "s = math.exp(math.log(n, 16)) * 0.1" in after
    assert "return F.scaled_dot_product_attention(q, k, v, scale=s)" in after
    once = rewrite(PROPORTIONAL, select=("TRT322",))
    assert rewrite(once, select=("TRT322",)) == once
    assert all(f"def {name}(" in once for name in ("_trt_size_log", "_trt_size_log_base", "_trt_size_sqrt"))


def _tokens(n: int, batch: int = 2, seed: int = 0) -> torch.Tensor:
    return torch.randn(batch, n, 8, generator=torch.Generator().manual_seed(seed + n)) * 2


#: Lengths around the base (16): one token (log 0: a zero scale), below it, the base itself (log 1), above it.
LENGTHS = (1, 2, 5, 15, 16, 17, 40, 100)


def test_proportional_eager_is_bit_for_bit_and_the_graph_follows_the_tokens() -> None:
    original_class = load(PROPORTIONAL, "Proportional")
    rewritten_class = load(rewrite(PROPORTIONAL, select=("TRT322",)), "Proportional")
    torch.manual_seed(0)
    original = original_class()
    rewritten = rewritten_class()
    rewritten.load_state_dict(original.state_dict())
    with torch.no_grad():
        for n in LENGTHS:
            assert torch.equal(original(_tokens(n)), rewritten(_tokens(n))), n
        zeros = torch.zeros(1, 7, 8)
        assert torch.equal(original(zeros), rewritten(zeros))
        before, after = _export(original, _tokens(12)), _export(rewritten, _tokens(12))
        for n in LENGTHS:
            x = _tokens(n, batch=3)
            expected = original(x).numpy()
            assert abs(after.run(None, {"x": x.numpy()})[0] - expected).max() < 1e-5, n
        # traced at 12 tokens, the original's graph keeps log_16(12): at 40 tokens it computes other values
        other = _tokens(40)
        assert abs(before.run(None, {"x": other.numpy()})[0] - original(other).numpy()).max() > 1e-3
    # the arm without proportional attention (SDPA's default scale) is unchanged too; without a base the
    # unconditional `math.log(n, None)` lines raise, with the same TypeError in both
    plain, plain_rewritten = original_class(16, False), rewritten_class(16, False)
    plain_rewritten.load_state_dict(plain.state_dict())
    with torch.no_grad():
        assert torch.equal(plain(_tokens(9)), plain_rewritten(_tokens(9)))
    with pytest.raises(TypeError) as raised:
        original_class(None, True)(_tokens(3))
    with pytest.raises(TypeError) as raised_rewritten:
        rewritten_class(None, True)(_tokens(3))
    assert str(raised.value) == str(raised_rewritten.value)


def test_zero_tokens_raise_as_math_log_does() -> None:
    """An empty sequence: ``math.log(0)`` raises ``ValueError`` in eager mode, so do the helpers (and every other
    exception ``math.log`` raises, with its message: a base of 1, of ``None``, a string)."""
    from trtcodemod.helpers.sizes import _trt_size_log, _trt_size_log_base

    for args in ((0,), (-1,), (0, 16), (-3, 16), (5, 1), (5, 0), (5, None), ("5",), (5, "16")):
        with pytest.raises((ValueError, ZeroDivisionError, TypeError)) as expected:
            math.log(*args)
        with pytest.raises(type(expected.value)) as got:
            (_trt_size_log if len(args) == 1 else _trt_size_log_base)(*args)
        assert str(got.value) == str(expected.value), args


def test_the_log_helper_is_math_log_exactly() -> None:
    from trtcodemod.helpers.sizes import _trt_size_log, _trt_size_log_base

    bases = (2, 3, 7, 10, 16, 256, 4096, 1.5, 0.5, 2.718281828459045)
    for value in (*range(1, 300), 4096, 8192, 2 ** 31 - 1, 2 ** 62, 0.25, 1e-300, 3.7, 1e300, True):
        assert _trt_size_log(value) == math.log(value), value
        for base in bases:
            assert _trt_size_log_base(value, base) == math.log(value, base), (value, base)
            assert type(_trt_size_log_base(value, base)) is float


def test_the_log_helper_scripted_and_traced() -> None:
    from trtcodemod.helpers.sizes import _trt_size_log, _trt_size_log_base

    scripted, scripted_base = torch.jit.script(_trt_size_log), torch.jit.script(_trt_size_log_base)
    for value, base in ((12.0, 16.0), (1.0, 16.0), (16.0, 16.0), (4096.0, 256.0)):
        assert abs(scripted_base(value, base) - math.log(value, base)) < 1e-12
        assert abs(scripted(value) - math.log(value)) < 1e-12

    def scale(x):
        return _trt_size_log_base(x.shape[1], 16) * x + _trt_size_log(x.shape[1])

    with warnings.catch_warnings():
        warnings.simplefilter("error", torch.jit.TracerWarning)  # nothing read into a Python number
        traced = torch.jit.trace(scale, (torch.ones(1, 12),))
    for n in (1, 16, 12, 33):
        assert abs(traced(torch.ones(1, n))[0, 0].item() - math.log(n, 16) - math.log(n)) < 1e-6, n


SEPARATE = '''
import math

import torch.nn.functional as F


def scale_of(x, base):
    b, n, c = x.shape
    softmax_scale = math.sqrt(math.log(n, base))
    return softmax_scale


def attend(q, k, v, softmax_scale):
    return F.scaled_dot_product_attention(q, k, v, scale=softmax_scale)
'''


def test_a_binding_in_another_function_is_not_the_calls() -> None:
    """The binding counts only in the function of the call: a parameter of the same name elsewhere is no log of a
    size."""
    assert rules_found(SEPARATE, select=("TRT322",)) == []
    assert "math.sqrt(math.log(n, base))" in rewrite(SEPARATE, select=("TRT322",))
