"""The flex-attention recipe (TRT315) on real-code variants.

Each variant in ``tests/recipe_variants/trt315/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``flex_attention`` in the form the original writes
it, with its mask or score modification kept: vit-pytorch's N-d causal block mask (the function
imported by name, ``block_mask=`` and ``scale=``), transformers' tanh soft cap with grouped
key/value heads (a callable chosen by a conditional, ``**`` keywords), attention-gym's ALiBi
``score_mod`` (the function reached through its module path), ViTok's 2-D sliding window (a block
mask cached on the module, built in ``forward``) and torchtune's packed document mask (a compiled
copy bound through a function's return value, ``flex_attention_compiled =
compile_flex_attention()``: found since this variant set, see the rule's test) and torchtitan's
causal block mask built before the forward, called through a compiled copy held as a class attribute
(``FlexAttentionWrapper._compiled_flex_attn``: found since this variant, see the rule's test). The
originals do not export (the TorchScript trace stops inside ``flex_attention``). ``migrate``
rewrites vit-pytorch's, transformers', torchtune's, torchtitan's and attention-gym's and ends with
exit 0, equivalent; two of them are also rewritten by
the rule and exported directly, the graph equal to eager mode at other sizes and on edge values
(zeros, negatives, large magnitudes, infinities), eager mode unchanged.

ViTok's 2-D sliding window is found but not taken: its block mask is built inside ``forward``
(cached by length, but the length is a traced value while exporting), so the trace stops in
``create_block_mask`` before the call. ALiBi's ``score_mod`` itself calls ``torch.exp2``, which the
TorchScript exporter does not write: it stopped there until TRT708 (``exp2``) existed, and now ends
with exit 0 with both fixes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, export_variant, input_names, load_variant
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt315"
INF = float("inf")


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _found(path: Path) -> list[tuple[str, int]]:
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT315",), scope="all"))
    return [(f.rule, f.line) for f in findings]


#: variant -> the text of its flex_attention call.
CALLS = {
    "vit_pytorch_nd_causal_block_mask": "out = flex_attention(q, k, v, block_mask=self.block_mask, scale=self.scale)",
    "transformers_softcap_gqa_wrapped": "return flex_attention_compiled(query, key, value, **kwargs)",
    "attention_gym_alibi_score_mod":
        "out = torch.nn.attention.flex_attention.flex_attention(q, k, v, score_mod=self.alibi)",
    "torchtune_packed_document_mask": "return flex_attention_compiled(q, k, v, block_mask=block_mask)",
    "vitok_2d_sliding_window_cached_mask": "out = flex_attention(q, k, v, block_mask=block_mask, score_mod=score_mod)",
    "torchtitan_flex_wrapper_class_compiled": "return FlexAttentionWrapper._compiled_flex_attn(q, k, v, block_mask=",
}


@pytest.mark.parametrize("name", ["vit_pytorch_nd_causal_block_mask", "transformers_softcap_gqa_wrapped",
                                  "torchtune_packed_document_mask", "torchtitan_flex_wrapper_class_compiled"])
def test_migrate_rewrites_the_call_and_the_model_exports_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt315_m_{name}")
    assert _found(path) == [("TRT315", _line_of(path, CALLS[name]))]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT315", _line_of(path, CALLS[name]))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "_trt_flex_attention(" in report["diff"], report["diff"]


def test_alibi_takes_the_call_and_its_score_mod_s_exp2_end_to_end() -> None:
    """The call is rewritten by TRT315, and the ``score_mod``'s own ``torch.exp2`` (no
    TorchScript-exporter translation) by TRT708; this variant stopped at that line before TRT708
    existed."""
    name = "attention_gym_alibi_score_mod"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt315_m_{name}")
    assert _found(path) == [("TRT315", _line_of(path, CALLS[name]))]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [
        ("TRT315", _line_of(path, CALLS[name])), ("TRT708", _line_of(path, "torch.exp2("))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def test_vitok_block_mask_built_in_forward_stops_the_export_before_the_call() -> None:
    """The rule finds the call, but the export never reaches it: while tracing, the sequence
    length is a traced value, the cache keyed by it misses, and ``create_block_mask`` runs its
    ``vmap`` inside the trace ("Unsupported value kind: Tensor"). migrate places the failure at
    that line, applies no TRT315 fix there and ends with exit 1."""
    name = "vitok_2d_sliding_window_cached_mask"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt315_m_{name}")
    assert _found(path) == [("TRT315", _line_of(path, CALLS[name]))]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert "TRT315" not in [fix["rule"] for fix in report["applied"]], report["applied"]
    mask_line = _line_of(path, "return create_block_mask(make_2d_window(")
    assert any("Unsupported value kind: Tensor" in r["message"] and f"{path.name}:{mask_line}" in r["message"]
               for r in report["remaining"]), report["remaining"]
    assert report["exit_code"] == 1


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """Shape and dtype; values to 1e-5 of the largest finite magnitude; NaN where eager has them."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[3] = INF
    flat[7] = -INF
    return flat.reshape(tensor.shape)


DIRECT = {
    # The grid (hence the sequence) is fixed when the model is built: the batch varies.
    "vit_pytorch_nd_causal_block_mask": {
        "larger-batch": (torch.randn(5, 13, 16, generator=_g(1)),),
        "one": (torch.randn(1, 13, 16, generator=_g(2)),),
        "zeros": (torch.zeros(3, 13, 16),),
        "negatives": (-torch.rand(2, 13, 16, generator=_g(3)) * 5 - 1,),
        "large": (torch.randn(2, 13, 16, generator=_g(4)) * 1e3,),
        "inf": (_with_inf(torch.randn(2, 13, 16, generator=_g(5))),),
        # No empty batch: the model's own ``reshape(b, n, heads, -1)`` refuses 0 elements.
    },
    "transformers_softcap_gqa_wrapped": {
        "longer": (torch.randn(3, 12, 16, generator=_g(6)) * 4,),
        "one-token": (torch.randn(2, 1, 16, generator=_g(7)),),
        "zeros": (torch.zeros(1, 5, 16),),
        "negatives": (-torch.rand(2, 6, 16, generator=_g(8)) * 5 - 1,),
        "capped": (torch.randn(2, 9, 16, generator=_g(9)) * 30,),  # scores past the soft cap
        "inf": (_with_inf(torch.randn(2, 6, 16, generator=_g(10))),),
        # No empty batch: the model's own ``reshape(b, n, -1)`` refuses 0 elements.
    },
}


def _registered(path: Path, name: str, monkeypatch: pytest.MonkeyPatch):
    """The variant at ``path`` loaded as ``name``, registered in ``sys.modules`` (eager
    ``flex_attention`` with a block mask traces ``mask_mod`` with dynamo, which imports its module)."""
    module = load_variant(path, name)
    monkeypatch.setitem(sys.modules, name, module)
    torch.manual_seed(0)
    return module, module.build()


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = HERE / f"{name}.py"
    fixed = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT315",), unsafe=True, scope="all"))
    safe = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT315",), scope="all"))
    assert safe.source == path.read_bytes()  # an unsafe fix: nothing without --unsafe
    source = fixed.source.decode()
    call = CALLS[name]
    callee = call.partition("(")[0].split("= ")[-1].removeprefix("return ")
    assert call.replace(f"{callee}(", f"_trt_flex_attention({callee}, ") in source, source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(source)
    module, original = _registered(path, f"trt315_d_{name}", monkeypatch)
    _, rewritten = _registered(new_path, f"trt315_d_rewritten_{name}", monkeypatch)
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(_g(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        _graph_equals_eager(session, original, inputs, label)
    # Eager mode is unchanged: the same values bit for bit, and the same behaviour with gradients.
    for label, inputs in sets.items():
        with torch.no_grad():
            torch.testing.assert_close(rewritten(*inputs), original(*inputs), rtol=0, atol=0, equal_nan=True,
                                       msg=label)
    assert_eager_unchanged(original, rewritten, {"example": example})
