"""TRT315: ``flex_attention(q, k, v, ...)`` → ``_trt_flex_attention(flex_attention, q, k, v, ...)``.

The rewrite text for the function through its imports and aliases and through names bound to a
``torch.compile`` of it; the helper's export formulation equals ``flex_attention`` (torch's eager
CPU implementation) bit for bit with score and mask modifications, rows that exclude every key,
grouped heads, the log-sum-exp, half precision and edge values; a block mask it cannot express
calls the attention function; eager mode is unchanged (outputs, inputs, exceptions: CPU flex
attention refuses gradients); the original does not export while the rewritten model exports with
both exporters, its graph equal to eager mode at other sizes; and ``migrate`` fixes the export
failure at the call.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_json, rewrite, rules_found
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

from trtcodemod.helpers.attention import _trt_flex_attention, _trt_flex_attention_math

IMPORT = "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\n\n\n"


def _fixed(code: str) -> str:
    return rewrite(IMPORT + code, select=("TRT315",), unsafe=True)


@pytest.mark.parametrize(("code", "want"), [
    ("o = flex_attention(q, k, v)\n", "o = _trt_flex_attention(flex_attention, q, k, v)\n"),
    ("o = flex_attention(q, k, v, block_mask=bm, scale=self.scale)\n",
     "o = _trt_flex_attention(flex_attention, q, k, v, block_mask=bm, scale=self.scale)\n"),
    ("o, lse = flex_attention(q, k, v, score_mod, None, 0.1, True, True)\n",
     "o, lse = _trt_flex_attention(flex_attention, q, k, v, score_mod, None, 0.1, True, True)\n"),
    ("o = flex_attention(*qkv, **options)\n", "o = _trt_flex_attention(flex_attention, *qkv, **options)\n"),
    ("o = torch.nn.attention.flex_attention.flex_attention(q, k, v)\n",
     "o = _trt_flex_attention(torch.nn.attention.flex_attention.flex_attention, q, k, v)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_flex_attention(" in after


def test_the_safe_pass_leaves_it_alone() -> None:
    """An unsafe fix: without --unsafe the finding stays and nothing changes."""
    source = IMPORT + "o = flex_attention(q, k, v)\n"
    assert rules_found(source, select=("TRT315",)) == ["TRT315"]
    assert rewrite(source, select=("TRT315",)) == source


def test_calls_through_an_alias_and_a_compiled_copy() -> None:
    code = ("from torch.nn.attention import flex_attention as fa\n"
            "from torch.nn.attention.flex_attention import flex_attention as attend\n\n"
            "compiled_flex = torch.compile(attend, dynamic=False)\n\n\n"
            "class Attention(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.flex = torch.compile(fa.flex_attention)\n\n"
            "    def forward(self, q, k, v):\n"
            "        return fa.flex_attention(q, k, v) + attend(q, k, v) + compiled_flex(q, k, v) + self.flex(q, k, v)\n")
    after = rewrite("import torch\n" + code, select=("TRT315",), unsafe=True)
    assert ("        return _trt_flex_attention(fa.flex_attention, q, k, v) + _trt_flex_attention(attend, q, k, v) + "
            "_trt_flex_attention(compiled_flex, q, k, v) + _trt_flex_attention(self.flex, q, k, v)\n") in after
    assert "compiled_flex = torch.compile(attend, dynamic=False)" in after  # the binding is kept


def test_a_rebinding_and_a_conditional_choice_are_flex_attention() -> None:
    """`flex_attention = torch.compile(flex_attention)` (the most common form) and transformers'
    `compiled() if not compiling else flex_attention`; a name also bound to something else, and
    a `functools.partial` (its held arguments are not visible at the call), are left alone."""
    code = ("flex_attention = torch.compile(flex_attention, dynamic=False)\n\n\n"
            "def attend(q, k, v, bm):\n    return flex_attention(q, k, v, block_mask=bm)\n\n\n"
            "def friendly(q, k, v, compiling=False, **kwargs):\n"
            "    fn = Wrapped()() if not compiling else flex_attention\n"
            "    return fn(q, k, v, **kwargs)\n\n\n"
            "def other(q, k, v):\n    g = torch.compile(flex_attention)\n    g = something_else\n"
            "    h = functools.partial(flex_attention, block_mask=bm)\n    return g(q, k, v) + h(q, k, v)\n")
    after = _fixed(code)
    assert "    return _trt_flex_attention(flex_attention, q, k, v, block_mask=bm)\n" in after
    assert "    return _trt_flex_attention(fn, q, k, v, **kwargs)\n" in after
    assert "    return g(q, k, v) + h(q, k, v)\n" in after


def test_a_binding_through_a_function_that_returns_it() -> None:
    """torchtune's ``flex_attention_compiled = compile_flex_attention()``, the function returning
    ``torch.compile(flex_attention, ...)`` on each path; a function that may return something
    else, one defined twice and one whose name is also assigned are left alone."""
    code = ("if supported:\n"
            "    def compile_flex_attention():\n"
            "        try:\n"
            "            return torch.compile(flex_attention, dynamic=False)\n"
            "        except Exception:\n"
            "            return torch.compile(flex_attention, dynamic=False, mode='max-autotune')\n\n"
            "    flex_attention_compiled = compile_flex_attention()\n\n\n"
            "def maybe():\n    if ok:\n        return flex_attention\n    return other\n\n\n"
            "def twice():\n    return flex_attention\n\n\n"
            "def twice():\n    return other\n\n\n"
            "def renamed():\n    return flex_attention\n\n\n"
            "renamed = other\n"
            "a, b, c = maybe(), twice(), renamed()\n\n\n"
            "def attend(q, k, v, bm):\n"
            "    return flex_attention_compiled(q, k, v, block_mask=bm) + a(q, k, v) + b(q, k, v) + c(q, k, v)\n")
    after = _fixed(code)
    assert ("    return _trt_flex_attention(flex_attention_compiled, q, k, v, block_mask=bm) + a(q, k, v) + "
            "b(q, k, v) + c(q, k, v)\n") in after, after


def test_a_class_attribute_called_through_its_class() -> None:
    """torchtitan's ``FlexAttentionWrapper._compiled_flex_attn``: bound in the class body (with an
    annotation) to ``torch.compile(flex_attention, ...)`` and called through the class name. A bare
    name of a method that happens to be the attribute's, another class's attribute of that name and
    one the class also binds to something else are left alone."""
    code = ("class FlexAttentionWrapper(nn.Module):\n"
            "    _compiled_flex_attn: ClassVar[Callable] = torch.compile(flex_attention, mode='max-autotune')\n\n"
            "    def forward(self, q, k, v, *, block_mask, scale=None):\n"
            "        _compiled_flex_attn = other\n"
            "        return FlexAttentionWrapper._compiled_flex_attn(q, k, v, block_mask=block_mask, scale=scale) + "
            "_compiled_flex_attn(q, k, v) + Other._compiled_flex_attn(q, k, v) + Twice.attend(q, k, v)\n\n\n"
            "class Twice:\n    attend = flex_attention\n    attend = other\n")
    after = _fixed(code)
    assert ("        return _trt_flex_attention(FlexAttentionWrapper._compiled_flex_attn, q, k, v, "
            "block_mask=block_mask, scale=scale) + _compiled_flex_attn(q, k, v) + Other._compiled_flex_attn(q, k, v)"
            " + Twice.attend(q, k, v)\n") in after, after


def test_other_code_is_left_alone() -> None:
    source = ("import torch\nimport torch.nn.functional as F\n\n\n"
              "def flex_attention(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n\n\n"
              "o = flex_attention(q, k, v)\n"  # the project's own function of that name
              "fn = torch.compile(flex_attention)\np = fn(q, k, v)\n"
              "o = F.scaled_dot_product_attention(q, k, v)\n")
    assert rules_found(source, select=("TRT315",)) == []
    source = IMPORT + "attention_fn = flex_attention\nchosen = {'flex': flex_attention}\n"
    assert rules_found(source, select=("TRT315",)) == []


# --- the export formulation is flex_attention ------------------------------------------------------

def _qkv(batch: int = 2, heads: int = 4, kv_heads: int = 4, length: int = 10, width: int = 8,
         dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(batch * 100 + heads * 10 + length)
    q = torch.randn(batch, heads, length, width, generator=g)
    k = torch.randn(batch, kv_heads, length, width, generator=g)
    v = torch.randn(batch, kv_heads, length, width + 2, generator=g)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def _relative(score, b, h, q_idx, kv_idx):
    return score + (q_idx - kv_idx) * 0.05 * (h + 1)


def _causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def _few(b, h, q_idx, kv_idx):
    """Rows 3 and later exclude every key."""
    return (q_idx < 3) & (kv_idx <= q_idx)


def _same(want, got) -> None:
    if isinstance(want, tuple):
        for a, b in zip(want, got):
            _same(a, b)
        return
    assert want.dtype == got.dtype and want.shape == got.shape
    assert torch.equal(want.isnan(), got.isnan()) and torch.equal(want.nan_to_num(), got.nan_to_num())


@pytest.mark.parametrize("case", ["plain", "scale", "score_mod", "causal", "rows-excluded", "gqa", "lse", "half",
                                  "float64", "zeros", "negatives", "inf", "one-token", "empty-batch"])
def test_the_formulation_is_flex_attention(case: str) -> None:
    q, k, v = _qkv(dtype={"half": torch.float16, "float64": torch.float64}.get(case, torch.float32))
    mask_mod = {"causal": _causal, "rows-excluded": _few}.get(case)
    kwargs: dict = {}
    if case == "scale":
        kwargs["scale"] = 0.3
    if case == "score_mod":
        kwargs["score_mod"] = _relative
    if case == "gqa":
        q, (k, v) = _qkv(heads=4)[0], _qkv(kv_heads=2)[1:]
        kwargs["enable_gqa"] = True
    if case == "lse":
        mask_mod, kwargs["return_lse"] = _few, True
    if case == "zeros":
        q, k, v = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    if case == "negatives":
        q, k, v = -q.abs() - 1, k.abs() + 1, -v.abs()
    if case == "inf":
        q[0, 0, 0, 0], k[0, 1, 2, 3] = float("inf"), -float("inf")
    if case == "one-token":
        q, k, v = q[:, :, :1], k[:, :, :1], v[:, :, :1]
    if case == "empty-batch":
        q, k, v = q[:0], k[:0], v[:0]
    if mask_mod is not None:
        kwargs["block_mask"] = create_block_mask(mask_mod, None, None, q.shape[2], k.shape[2], device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = flex_attention(q, k, v, **kwargs)
        except Exception as error:  # noqa: BLE001 - the formulation must fail too
            with pytest.raises(type(error)), export_formulation():
                _trt_flex_attention(flex_attention, q, k, v, **kwargs)
            return
    with export_formulation():
        got = _trt_flex_attention(flex_attention, q, k, v, **kwargs)
    _same(want, got)
    direct = _trt_flex_attention_math(q, k, v, kwargs.get("score_mod"), mask_mod, kwargs.get("scale"),
                                      kwargs.get("enable_gqa", False), kwargs.get("return_lse", False))
    _same(want, direct)


def test_what_the_formulation_cannot_express_calls_the_function() -> None:
    """A block mask made from blocks alone, an auxiliary-output request, 3-D tensors."""
    calls = []

    def attend(*args, **kwargs):
        calls.append(kwargs.get("return_aux"))
        return "called"

    q, k, v = _qkv(length=256)
    blocks = create_block_mask(_causal, None, None, 256, 256, device="cpu")
    by_blocks = type(blocks).from_kv_blocks(blocks.kv_num_blocks, blocks.kv_indices)  # mask_mod: noop
    with export_formulation():
        assert _trt_flex_attention(attend, q, k, v, block_mask=by_blocks) == "called"
        assert _trt_flex_attention(attend, q, k, v, return_aux=object()) == "called"
        assert _trt_flex_attention(attend, q[0], k[0], v[0]) == "called"
        assert isinstance(_trt_flex_attention(attend, q, k, v, block_mask=blocks), torch.Tensor)
    assert len(calls) == 3


# --- eager mode is unchanged -------------------------------------------------------------------------

PROGRAM = IMPORT + """

def relative(score, b, h, q_idx, kv_idx):
    return score + (q_idx - kv_idx) * 0.1


class M(torch.nn.Module):
    def forward(self, q, k, v):
        a = flex_attention(q, k, v, score_mod=relative)
        b = flex_attention(q, k[:, :1], v[:, :1], scale=0.25, enable_gqa=True)
        return a, b * 2
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt315")
    after = rewrite(PROGRAM, select=("TRT315",), unsafe=True)
    assert "a = _trt_flex_attention(flex_attention, q, k, v, score_mod=relative)" in after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "inf", "half", "gradients", "three-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Outputs, inputs afterwards and exceptions (CPU flex attention refuses gradients; 3-D tensors)."""
    q, k, v = _qkv(kv_heads=4)
    v = v[..., :8]
    if label == "zeros":
        q, k, v = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    if label == "inf":
        q[0, 0, 0, 0] = float("inf")
    if label == "half":
        q, k, v = q.half(), k.half(), v.half()
    if label == "gradients":
        q = q.requires_grad_()
    if label == "three-d":
        q, k, v = q[0], k[0], v[0]
    before, after = program[0](), program[1]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = run_once(before, [q, k, v]), run_once(after, [q, k, v])
    assert_same_run(a, b, context=label)
    if label in ("gradients", "three-d"):
        assert a.error is not None  # the exception is part of what is kept


def test_the_toolchains_give_the_originals_results(program: tuple[type, type], tmp_path: Path) -> None:
    """torch.compile and torch.export run flex_attention itself; torch.jit.script and torch.fx fail
    on the original (a higher-order operator, control flow on traced values) and the same way after."""
    q, k, v = _qkv()
    v = v[..., :8]
    before = toolchain_outcomes(program[0], [q, k, v], tmp_path)
    after = toolchain_outcomes(program[1], [q, k, v], tmp_path)
    assert set(before) == set(after) == {"script", "fx", "fx+script", "compile", "export"}
    for name, want in before.items():
        got = after[name]
        if isinstance(want, Exception):
            assert type(got) is type(want), f"{name}: {want!r} became {got!r}"
            continue
        assert not isinstance(got, Exception), f"{name}: {got!r}"
        for p, r in zip(want, got):
            assert torch.equal(p, r), name
    assert not isinstance(before["compile"], Exception) and not isinstance(before["export"], Exception)


# --- both ONNX exporters ------------------------------------------------------------------------------

MODEL = IMPORT + """

def relative(score, b, h, q_idx, kv_idx):
    return score - (q_idx - kv_idx).abs() * 0.05


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 16 + 8 + 8)
        self.out = torch.nn.Linear(16, 16)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).split([16, 8, 8], dim=-1)
        q = q.reshape(b, n, 4, 4).transpose(1, 2)
        k = k.reshape(b, n, 2, 4).transpose(1, 2)
        v = v.reshape(b, n, 2, 4).transpose(1, 2)
        plain = flex_attention(q[:, :2], k, v, scale=0.5)
        modified = flex_attention(q, k, v, score_mod=relative, enable_gqa=True)
        return self.out(modified.transpose(1, 2).reshape(b, n, 16)), plain


def build():
    torch.manual_seed(0)
    return Attention().eval()


def inputs(generator):
    return (torch.rand(1, 6, 16, generator=generator),)
"""


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    """The export with the batch and the sequence dynamic."""
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], verbose=False,
                                        dynamic_shapes=({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},))
            return program.model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "tokens"}})
        return onnx.load_from_string(buffer.getvalue())


@pytest.fixture(scope="module")
def attention(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt315_onnx")
    after = rewrite(MODEL, select=("TRT315",), unsafe=True)
    assert after.count("_trt_flex_attention(flex_attention, ") == 2
    return {"before": import_source(MODEL, folder)["build"](), "after": import_source(after, folder)["build"]()}


def test_the_original_does_not_export(attention: dict) -> None:
    with pytest.raises(Exception):  # noqa: B017 - any failure: there is no ONNX file
        _export(attention["before"], torch.rand(1, 6, 16), dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewrite_exports_and_matches_eager(attention: dict, dynamo: bool) -> None:
    graph = _export(attention["after"], torch.rand(1, 6, 16), dynamo)
    ops = {node.op_type for node in graph.graph.node}
    assert "MatMul" in ops and "Softmax" in ops and not any(op.startswith("Flex") for op in ops)
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(1, 6, 16), (2, 9, 16), (3, 1, 16)]:
        x = torch.rand(shape)
        x[0, 0, :3] = torch.tensor([0.0, -4.0, 7.0])
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = attention["before"](x)
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        for w, g in zip(want, got):
            torch.testing.assert_close(torch.from_numpy(g), w, rtol=1e-4, atol=1e-5, msg=str(shape))


def test_migrate_fixes_the_export_failure_at_the_call(tmp_path: Path) -> None:
    model = tmp_path / "flex_model.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"x": {"0": "batch", "1": "tokens"}}')
    assert report["before"]["exported"] is False
    lines = [i for i, text in enumerate(MODEL.splitlines(), 1) if "= flex_attention(" in text]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT315", line) for line in lines]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True
