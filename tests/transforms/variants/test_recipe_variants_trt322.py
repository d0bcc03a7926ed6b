"""The attention-traced-scale recipe (TRT322) on real-code variants.

``tests/recipe_variants/trt322/`` holds small runnable models reduced from public repositories
(cited in their docstrings) that pass ``F.scaled_dot_product_attention`` a ``scale`` computed from
a traced size, which the TorchScript exporter reads into a float at the call:

- transformers' Florence-2 channel attention hands ``scale = num_tokens**-0.5`` down as
  ``scaling=scale`` to ``sdpa_attention_forward``, whose ``scale=scaling`` is a parameter: the rule
  takes it from the observed export (``migrate``, or ``--facts``), not from the code alone. The
  original's graph keeps the example's scale and misses eager mode at another number of tokens; the
  rewritten one equals eager mode at other token counts and on edge values (zeros, negatives,
  infinities and NaN, one token), eager mode is unchanged bit for bit, and ``migrate`` applies TRT322
  at the call and ends equivalent (exit 0).
- NVIDIA PhysicsNeMo's U-Net attention (``UNetAttention``) passes ``scale=1 / math.sqrt(k.shape[-1])``,
  the form the recipe's searches looked for (a scale from a head's size). The export does read the
  size into a float at the call, and ``migrate`` applies TRT322 there (from the observed export: the
  code alone does not show ``k`` is a tensor) and ends at exit 0; but the size is each head's number of
  channels, which the weights fix, so the original graph was already faithful (the tests assert it):
  the bake is harmless, a second owner whose call the rule takes, not a second wrong graph.

- Proportional attention, five owners: the softmax scale is ``math.sqrt(math.log(sequence_length,
  base_sequence_length)) * attn.scale`` (diffusers' Lumina-Next processor, VectorSpaceLab's OmniGen2
  processor, bghira's SimpleTuner copy of Lumina 2's) or ``math.sqrt(math.log(seqlen, self.base_seqlen) /
  self.head_dim)`` (Alpha-VLLM's Lumina-Next NextDiT, kijai's ComfyUI-LuminaWrapper copy), bound in an
  ``if``/``else`` and passed as ``scale=softmax_scale``. ``math.log`` reads the traced size into a Python
  float on the binding's line (TRT712 reports it there, without a fix), before the call; TRT322 takes
  the call from the code alone and rewrites that binding too (``_trt_size_sqrt(_trt_size_log_base(...))``).
  Each original graph keeps the example's scale and misses eager mode at other numbers of tokens (the
  base length included); each rewritten graph equals eager mode from one token (log 0, a zero scale)
  through the base length to longer sequences, eager mode is unchanged bit for bit, and ``migrate``
  applies TRT322 at the call and ends at exit 0.

For the Florence-2 form (a power of the number of tokens) the brief asked for five variants: public code that passes
a size-derived ``scale`` to SDPA that way is rare
(most code passes ``self.scale`` or nothing; transformers' size-derived ``scaling`` feeds its eager
matmul path, not SDPA), and the searches found only these. Read and left out, with why:

- a vendored, layout-optimised copy of transformers' Florence-2 DaViT tower (found by code search;
  the store does not name its repository, so it cannot be cited) binds ``scale = num_tokens**-0.5``
  and calls ``F.scaled_dot_product_attention(query, key, value, scale=scale)``: the recipe itself,
  which TRT322 takes from the code alone (a local bound to a size), but uncitable;
- diffusers' Lumina2 processor (``transformer_lumina2.py``, the same ``math.sqrt(math.log(...))``
  scale as Lumina-Next): the same owner as the Lumina-Next variant; copies of the processor that code
  search found without naming their repository (a token-merging processor, a helper function
  returning the scale) cannot be cited; Alpha-VLLM's Lumina-Image-2.0 fixes ``math.sqrt(1 / head_dim)``
  (no proportional arm in its model code);
- timm's DaViT ``ChannelAttentionV2`` (``q = q * N ** -0.5``, then a matmul): no SDPA, and the traced
  product stays in the graph;
- transformers' Inkling2 (``scaling=hidden_size**-0.5`` handed to the attention interface): the same
  owner as Florence-2, and the hidden size is fixed by the weights;
- MONAI's channel attention block (``scale = float(self.temperature.mean())``): a parameter's value
  read into a float (TRT702's), not a size;
- length-extrapolation experiments that scale the query by a tensor of ``log(n)`` and pass
  ``scale=1.0``: already what the rewrite does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_graph_within, axes_json,
                            built_variant, export_variant, input_names, line_of, load_variant, observed_facts, seeded)

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt322"
NAN, INF = float("nan"), float("inf")
FLORENCE = HERE / "transformers_florence2_channel_attention.py"


def _observed_rewrite(path: Path, name: str, folder: Path) -> dict:
    """The variant at ``path``, its original export, the facts migrate would have, and TRT322's rewrite by them."""
    module, original = built_variant(path, f"trt322_{name}")
    example = module.inputs(seeded(0))
    before, traced = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", HERE)
    facts = observed_facts(path, module, folder, traced)
    options = Options(select=("TRT322",), facts=facts, scope="all")
    source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, f"trt322_{name}_rewritten")
    rewritten.load_state_dict(original.state_dict())
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    return dict(module=module, original=original, rewritten=rewritten, example=example, before=before, after=after,
                traced=traced, facts=facts, source=source)


@pytest.fixture(scope="module")
def florence(tmp_path_factory) -> dict:
    """The Florence-2 variant, its original export, the facts migrate would have, and the rewrite."""
    return _observed_rewrite(FLORENCE, "florence", tmp_path_factory.mktemp("florence"))


def _tokens(seed: int, batch: int, tokens: int) -> tuple:
    return (torch.randn(batch, tokens, 16, generator=seeded(seed)),)


SETS = {
    "more-tokens": _tokens(1, 3, 25),
    "fewer-tokens": _tokens(2, 1, 4),
    "one-token": _tokens(3, 2, 1),
    "zeros": (torch.zeros(2, 9, 16),),
    "negatives": (-_tokens(4, 2, 7)[0].abs(),),
    "inf-nan": (torch.tensor([INF, NAN, -INF, 1.0]).repeat(1, 5, 4),),
}


def test_the_call_is_found_from_the_observed_export_not_from_the_code_alone(florence) -> None:
    call = line_of(FLORENCE, "attn_output = torch.nn.functional.scaled_dot_product_attention(")
    plain = check_source(FLORENCE.read_bytes(), str(FLORENCE.resolve()), Options(select=("TRT322",), scope="all"))
    assert plain == []  # `scale=scaling`: a parameter, as far as the code shows
    with_facts = check_source(FLORENCE.read_bytes(), str(FLORENCE.resolve()),
                              Options(select=("TRT322",), facts=florence["facts"], scope="all"))
    assert [(f.rule, f.line) for f in with_facts] == [("TRT322", call)]
    assert "    attn_output = _trt_sdpa(\n" in florence["source"], florence["source"]
    assert "scale=scaling," in florence["source"]


def test_the_original_keeps_the_examples_scale_and_the_rewrite_follows_the_tokens(florence) -> None:
    original, example = florence["original"], florence["example"]
    names = input_names(original)
    for label in ("more-tokens", "fewer-tokens"):
        inputs = SETS[label]
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = florence["before"].run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        assert got.shape == want.shape and not np.allclose(got, want, rtol=1e-4, atol=1e-4), label
    for label, inputs in {"example": example, **SETS}.items():
        assert_graph_within(florence["after"], original, inputs, 1e-5, label)
    assert_eager_unchanged(original, florence["rewritten"], {"example": example, **SETS})


def test_migrate_applies_trt322_at_the_call_and_ends_equivalent() -> None:
    report = migrate_json(FLORENCE, axes_json(load_variant(FLORENCE, "trt322_florence_m")))
    assert report["before"]["faithful"] is False, report["before"]
    call = line_of(FLORENCE, "attn_output = torch.nn.functional.scaled_dot_product_attention(")
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT322", call)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True, report["after"]
    assert "+    attn_output = _trt_sdpa(" in report["diff"]


#: The proportional-attention variants (one owner each) and the line of the binding that reads the size into a float.
PROPORTIONAL = {
    "diffusers_lumina_next_proportional":
        "softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale",
    "alpha_vllm_lumina_next_mini_proportional":
        "softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) / self.head_dim)",
    "kijai_lumina_wrapper_proportional":
        "softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) / self.head_dim)",
    "omnigen2_attention_processor_proportional":
        "softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale",
    "simpletuner_lumina2_proportional":
        "softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale",
}
SDPA_CALL = "F.scaled_dot_product_attention("


def _math_calls(source: str) -> dict[str, int]:
    """The ``math.*`` calls of the model's code (outside the inserted helpers) by function."""
    found: dict[str, int] = {}
    for top in ast.parse(source).body:
        if isinstance(top, ast.FunctionDef) and top.name.startswith("_trt_"):
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "math":
                found[node.func.attr] = found.get(node.func.attr, 0) + 1
    return found


def _scaled_call(path: Path) -> int:
    """The line of the SDPA call that passes ``scale=softmax_scale``: the last one opened at or before it."""
    lines = path.read_text().splitlines()
    [argument] = [i for i, text in enumerate(lines, 1) if "scale=softmax_scale" in text and "``" not in text]
    return max(i for i, text in enumerate(lines[:argument], 1) if SDPA_CALL in text and "``" not in text)


def _base_length(model: torch.nn.Module) -> int:
    return getattr(model, "base_sequence_length", None) or model.base_seqlen


def _proportional_sets(module, base: int) -> dict[str, tuple]:
    """Other numbers of tokens than the example's: one (log 0), two, the base length (log 1), longer; another batch."""
    sets = {f"{tokens} tokens": module.inputs(seeded(100 + tokens), 3 if tokens % 2 else 1, tokens)
            for tokens in sorted({1, 2, base - 1, base, base + 1, 3 * base + 2})}
    zeros = tuple(torch.zeros_like(t) if t.is_floating_point() else t for t in module.inputs(seeded(7), 2, base + 3))
    return {**sets, "zero states": zeros}


@pytest.fixture(scope="module", params=sorted(PROPORTIONAL))
def proportional(request, tmp_path_factory) -> dict:
    """A proportional-attention variant: its original export, the rewrite from the code alone and its export."""
    name = request.param
    path = HERE / f"{name}.py"
    folder = tmp_path_factory.mktemp(name)
    module, original = built_variant(path, f"trt322_{name}")
    example = module.inputs(seeded(0))
    before, traced = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", HERE)
    result = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT322",), scope="all"))
    source = result.source.decode()
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, f"trt322_{name}_rewritten")
    rewritten.load_state_dict(original.state_dict())
    after, traced_after = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    return dict(name=name, path=path, module=module, original=original, rewritten=rewritten, example=example,
                before=before, traced=traced, after=after, traced_after=traced_after, source=source,
                binding=line_of(path, PROPORTIONAL[name]), call=_scaled_call(path),
                sets=_proportional_sets(module, _base_length(original)))


def test_proportional_the_log_reads_the_size_into_a_float_and_trt322_takes_the_call(proportional) -> None:
    """The export warns on the binding's line (``math.log`` of the traced size), not at the call; TRT322 finds the
    call from the code alone (a safe fix), rewrites the binding's ``math.log``/``math.sqrt`` and the call, and its
    rewrite leaves nothing to find and no warning in the export."""
    path, binding = proportional["path"], proportional["binding"]
    assert any(line == binding and "Python float" in message for _, line, message in proportional["traced"]), \
        proportional["traced"]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT322",), scope="all"))
    assert [(f.rule, f.line, f.fix.value) for f in findings] == [("TRT322", proportional["call"], "safe")], findings
    source = proportional["source"]
    written = PROPORTIONAL[proportional["name"]].replace("math.sqrt(math.log(", "_trt_size_sqrt(_trt_size_log_base(")
    assert written in source, source
    assert _math_calls(source) == {"sqrt": 1} if "else:\n            softmax_scale = math.sqrt(1 /" in source \
        else _math_calls(source) == {}, _math_calls(source)
    assert "_trt_sdpa(" in source and source.count("F.scaled_dot_product_attention(") == \
        path.read_text().count("F.scaled_dot_product_attention(") - 1
    again = Path(str(proportional["path"]) + ".x")
    assert check_source(source.encode(), str(again), Options(select=("TRT322", "TRT712"), scope="all")) == []
    assert proportional["traced_after"] == [], proportional["traced_after"]


def test_proportional_the_original_keeps_the_examples_scale_the_rewrite_follows_the_tokens(proportional) -> None:
    original, before, after = proportional["original"], proportional["before"], proportional["after"]
    names = input_names(original)
    longer = proportional["sets"][max((k for k in proportional["sets"] if k.endswith(" tokens")),
                                      key=lambda k: int(k.split()[0]))]
    for inputs in (longer, proportional["sets"][f"{_base_length(original)} tokens"]):
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = before.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        assert got.shape == want.shape and not np.allclose(got, want, rtol=1e-4, atol=1e-4)
    for label, inputs in {"example": proportional["example"], **proportional["sets"]}.items():
        assert_graph_within(after, original, inputs, 1e-5, f"{proportional['name']} {label}")
    assert_eager_unchanged(original, proportional["rewritten"], {"example": proportional["example"],
                                                                 **proportional["sets"]})


def test_proportional_migrate_applies_trt322_at_the_call_and_ends_at_exit_0(proportional, tmp_path: Path) -> None:
    path = tmp_path / proportional["path"].name
    path.write_bytes(proportional["path"].read_bytes())
    report = migrate_json(path, axes_json(proportional["module"]))
    assert report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT322", proportional["call"])], \
        (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
    assert report["after"]["faithful"] is True, report["after"]
    assert "_trt_size_sqrt(_trt_size_log_base(" in report["diff"] and "_trt_sdpa(" in report["diff"]


def test_proportional_variants_cite_five_owners() -> None:
    assert_cited_by_distinct_owners(HERE, sorted(PROPORTIONAL), count=5)


PHYSICSNEMO = HERE / "physicsnemo_unet_attention_head_dim.py"


def _pixels(seed: int, batch: int, height: int, width: int) -> tuple:
    return (torch.randn(batch, 16, height, width, generator=seeded(seed)),)


#: Other image sizes than the example's (2x16x6x5), one pixel, and edge values.
PIXEL_SETS = {
    "larger": _pixels(11, 3, 9, 4),
    "one-pixel": _pixels(12, 1, 1, 1),
    "wide": _pixels(13, 2, 2, 12),
    "zeros": (torch.zeros(2, 16, 3, 3),),
    "negatives": (-_pixels(14, 2, 4, 4)[0].abs(),),
    "inf-nan": (torch.tensor([INF, NAN, -INF, 1.0]).repeat(1, 16, 2, 1),),
}


@pytest.fixture(scope="module")
def physicsnemo(tmp_path_factory) -> dict:
    """The PhysicsNeMo variant, its original export, the facts migrate would have, and the rewrite."""
    built = _observed_rewrite(PHYSICSNEMO, "physicsnemo", tmp_path_factory.mktemp("physicsnemo"))
    text = PHYSICSNEMO.read_text().splitlines()
    [call] = [i for i, line in enumerate(text, 1) if line.strip() == built["module"].CALL]  # not the docstring's
    return dict(built, call=call)


def test_physicsnemo_the_export_reads_the_head_size_into_a_float_at_the_call(physicsnemo) -> None:
    """The scale's size is read into a Python float at the call (the TracerWarning migrate observes); the code alone
    does not show ``k`` is a tensor (three picks of a generator), the observed export does."""
    call = physicsnemo["call"]
    assert any(line == call and "Python float" in message for _, line, message in physicsnemo["traced"]), \
        physicsnemo["traced"]
    plain = check_source(PHYSICSNEMO.read_bytes(), str(PHYSICSNEMO.resolve()), Options(select=("TRT322",), scope="all"))
    assert plain == []
    with_facts = check_source(PHYSICSNEMO.read_bytes(), str(PHYSICSNEMO.resolve()),
                              Options(select=("TRT322",), facts=physicsnemo["facts"], scope="all"))
    assert [(f.rule, f.line) for f in with_facts] == [("TRT322", call)]
    assert "attn = _trt_sdpa(q, k, v, scale=1 / math.sqrt(k.shape[-1]))" in physicsnemo["source"]


def test_physicsnemo_both_graphs_follow_the_image_the_bake_was_harmless(physicsnemo) -> None:
    """The size is each head's channel count, fixed by the weights: the original graph's baked float is the one every
    image gives, so it already equals eager mode at other sizes; the rewritten graph does too, and eager mode is the
    original's, bit for bit."""
    original = physicsnemo["original"]
    for label, inputs in {"example": physicsnemo["example"], **PIXEL_SETS}.items():
        assert_graph_within(physicsnemo["before"], original, inputs, 1e-5, f"before {label}")
        assert_graph_within(physicsnemo["after"], original, inputs, 1e-5, f"after {label}")
    assert_eager_unchanged(original, physicsnemo["rewritten"], {"example": physicsnemo["example"], **PIXEL_SETS})


def test_physicsnemo_migrate_applies_trt322_and_ends_at_exit_0(physicsnemo, tmp_path: Path) -> None:
    path = tmp_path / PHYSICSNEMO.name
    path.write_bytes(PHYSICSNEMO.read_bytes())
    report = migrate_json(path, axes_json(physicsnemo["module"]))
    # the original's graph is already faithful: the bake is of a size no input changes
    assert report["before"]["exported"] is True and report["before"]["faithful"] is True, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT322", physicsnemo["call"])], \
        (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "+        attn = _trt_sdpa(q, k, v, scale=1 / math.sqrt(k.shape[-1]))" in report["diff"]


def test_physicsnemo_cites_its_source() -> None:
    # one repository at a full commit (Florence-2 cites transformers' PyPI wheel by version, in its own words)
    assert_cited_by_distinct_owners(HERE, ["physicsnemo_unet_attention_head_dim"], count=1)
