"""The roll-by-a-computed-shift recipe (TRT353) on real-code variants.

Each variant in ``tests/recipe_variants/trt353/`` is a small runnable model reduced from a public
repository (cited in its docstring) that rolls a tensor by a shift computed from its size, in the form the
original writes it: GMFlow's shifted-window attention (half a window, the window the feature map over the
splits: negated before the attention, positive after it) and CREDIT's earth padding (half the longitude,
through ``int(x.shape[-1] // 2)``). The rule finds every roll from the code alone and rewrites it (a safe
fix). GMFlow's does not export with the TorchScript exporter (the negated shift is not a constant);
CREDIT's exports and rolls by the traced example's half at every width, which the verifier's larger
size (one more, the same half for an even width) does not show: migrate's second trace at other sizes
(asked for by the ``int``'s warning here; by the TRT353 finding itself where nothing warns, see
``test_roll_shift.py``) finds the Slice baked at the roll and applies TRT353, with TRT712 for the ``int``.
Both end with exit 0, equivalent; the rewritten graphs equal eager mode at other sizes and on edge values,
with both exporters, and eager mode is unchanged. PARADIS's pole padding rolls the rows next to each pole by
half the width unpacked from the shape, at two lines: the second trace locates the first roll's Slice, and
migrate applies TRT353 at both (they bake alike), exit 0. iliad-comfy's seamless-pattern decode rolls the
latents by half their height and width before a second decode and the decoded images back by ``(-dh // 2,
-dw // 2)`` (channels last, the negation floored): the export stops at the first roll (its floored half is
no constant); migrate applies
TRT353 at both rolls in one round, exit 0 (first contact too).

anatome's Fourier shift rolls by lists of half-sizes over lists of axes, the inverse one ``-n // 2``: the
rule takes both rolls, but the graph is right at odd sizes only with TRT339's floor division too, which
``migrate`` does not reach yet (first contact and after: exit 1, TRT353 taken back as the culprit).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, export_variant_dynamo,
                            graph_matches, input_names, load_variant, observed_facts, rewrite_variant,
                            rewritten_variant, seeded, with_specials)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt353"

#: variant -> the rolls' lines (their text) and what the rewrite writes at the first.
ROLLS = {
    "gmflow_shifted_window_attention": (
        ("q = torch.roll(q, shifts=(-shift_h, -shift_w), dims=(1, 2))",
         "k = torch.roll(k, shifts=(-shift_h, -shift_w), dims=(1, 2))",
         "v = torch.roll(v, shifts=(-shift_h, -shift_w), dims=(1, 2))",
         "out = torch.roll(out, shifts=(shift_h, shift_w), dims=(1, 2))"),
        "q = _trt_roll(q, shifts=(-shift_h, -shift_w), dims=(1, 2))"),
    "credit_earth_padding": (
        ("rolled = torch.roll(x, shifts=shift_size, dims=-1)",),
        "rolled = _trt_roll(x, shifts=shift_size, dims=-1)"),
    "paradis_geo_cyclic_padding": (
        ("top_padding = torch.roll(top_source, shifts=middle_index, dims=3)",
         "bottom_padding = torch.roll(bottom_source, shifts=middle_index, dims=3)"),
        "top_padding = _trt_roll(top_source, shifts=middle_index, dims=3)"),
    "iliad_pattern_decode": (
        ("d1 = self.decode(torch.roll(samples_in, shifts=(h // 2, w // 2), dims=(2, 3)))",
         "d1 = torch.roll(d1, shifts=(-dh // 2, -dw // 2), dims=(1, 2))"),
        "d1 = self.decode(_trt_roll(samples_in, shifts=(h // 2, w // 2), dims=(2, 3)))"),
}

#: variants whose original export stops at a shift that is no constant (the other ones export and bake the
#: example's).
NEGATED = {"gmflow_shifted_window_attention", "iliad_pattern_decode"}


def _found(path: Path) -> list[tuple[str, int, str]]:
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT353",), scope="all"))
    return [(f.rule, f.line, f.fix.value) for f in findings]


@pytest.mark.parametrize("name", list(ROLLS))
def test_the_rule_finds_each_roll_and_rewrites_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    lines, rewritten = ROLLS[name]
    assert _found(path) == [("TRT353", _line_of(path, text), "safe") for text in lines]
    variant = rewritten_variant(path, "TRT353", tmp_path)
    assert rewritten in variant["source"], variant["source"]
    assert variant["safe_only"] == variant["source"]  # a safe fix: the same without --unsafe
    assert check_source(variant["source"].encode(), "rewritten.py", Options(select=("TRT353",), scope="all")) == []


@pytest.mark.parametrize("name", sorted(NEGATED))
def test_migrate_takes_the_rolls_together_and_the_model_exports_equivalent(name: str) -> None:
    """The export stops at the first roll (GMFlow's negated shift, iliad-comfy's floored half); every roll of
    the file is applied in one round, those that would bake with them."""
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt353_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == sorted(("TRT353", _line_of(path, text)) for text in ROLLS[name][0])
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert ROLLS[name][1] in report["diff"], report["diff"]


def test_migrate_traces_credits_padding_again_and_takes_the_baked_roll() -> None:
    name = "credit_earth_padding"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt353_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True
    assert report["retrace"]["same"] is False
    assert report["retrace"]["first_difference"]["source"].endswith(f"{name}.py:{_line_of(path, ROLLS[name][0][0])}")
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == [("TRT353", _line_of(path, ROLLS[name][0][0])),
                       ("TRT712", _line_of(path, "shift_size = int(x.shape[-1] // 2)"))]
    assert report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def test_migrate_takes_both_of_paradis_pole_rolls_from_one_located_bake() -> None:
    """The second trace locates the first roll's Slice only; the other roll by the same half bakes alike, so
    both are applied in one round (without it, the first alone leaves the graph wrong at other widths)."""
    name = "paradis_geo_cyclic_padding"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt353_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["retrace"]["first_difference"]["source"].endswith(f"{name}.py:{_line_of(path, ROLLS[name][0][0])}")
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == sorted(("TRT353", _line_of(path, text)) for text in ROLLS[name][0])
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    if name == "iliad_pattern_decode":  # odd latent sizes too: the decoded images are twice as large, even
        return {"other size": (torch.randn(3, 4, 9, 16, generator=seeded(1)),),
                "odd sizes": (torch.randn(1, 4, 5, 7, generator=seeded(2)),),
                "one pixel": (torch.randn(1, 4, 1, 1, generator=seeded(6)),),
                "zeros": (torch.zeros(2, 4, 6, 10),),
                "negatives": (-torch.rand(1, 4, 8, 20, generator=seeded(3)) - 1,),
                "inf": (with_specials((1, 4, 6, 14), 4),)}
    if name == "paradis_geo_cyclic_padding":  # an even number of longitudes, as the model asserts
        return {"other size": (torch.randn(3, 4, 9, 16, generator=seeded(1)),),
                "two longitudes": (torch.randn(1, 4, 5, 2, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 4, 6, 10),),
                "negatives": (-torch.rand(1, 4, 8, 20, generator=seeded(3)) - 1,),
                "inf": (with_specials((1, 4, 6, 14), 4),)}
    if name == "credit_earth_padding":
        return {"other size": (torch.randn(3, 4, 9, 16, generator=seeded(1)),),
                "odd width": (torch.randn(1, 4, 5, 7, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 4, 6, 10),),
                "negatives": (-torch.rand(1, 4, 8, 20, generator=seeded(3)) - 1,),
                "inf": (with_specials((1, 4, 6, 14), 4),)}
    def pair(b, h, w, seed):
        return (torch.randn(b, 8, h, w, generator=seeded(seed)), torch.randn(b, 8, h, w, generator=seeded(seed + 50)))
    return {"other size": pair(2, 12, 20, 1), "square": pair(1, 16, 16, 2),
            "zeros": (torch.zeros(1, 8, 8, 8), torch.zeros(1, 8, 8, 8)),
            "negatives": tuple(-t.abs() for t in pair(1, 4, 24, 3)),
            "inf": (with_specials((1, 8, 8, 12), 4), torch.randn(1, 8, 8, 12, generator=seeded(5)))}


@pytest.mark.parametrize("name", list(ROLLS))
def test_rewritten_exports_with_both_exporters_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt353_d_{name}")
    original = built(module)
    example = module.inputs(seeded(0))
    rules, facts = ("TRT353",), None
    if name == "credit_earth_padding":
        # The shift is also read through `int`, which bakes it by itself: TRT712 takes that where the export
        # warned, as in migrate.
        _, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "traced.onnx", HERE)
        rules, facts = ("TRT353", "TRT712"), observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=rules, unsafe=True, facts=facts, scope="all"), tmp_path,
                                  f"trt353_d_rewritten_{name}")
    assert ROLLS[name][1] in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    sets = _sets(name)
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    if name in NEGATED:  # GMFlow's stops at the negation; iliad-comfy's at the first roll's floored half
        assert before.error is not None and "because it is not constant" in before.error, before.error
    else:  # exports, and rolls by the example's half at another width
        import onnxruntime as ort

        baked = ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
        assert not graph_matches(baked, original, sets["other size"])
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
        if label != "inf":  # the dynamo graph's attention sums in another order: the same values to rounding
            assert_graph_within(dynamo, original, inputs, 1e-5, f"dynamo {label}")
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})


#: anatome's Fourier shift (moskomule/anatome@53979417a4698e3067bb9c8952fed57aa9f91682, anatome/fourier.py:4-33):
#: shifts and axes both lists made by comprehensions, the inverse shift ``-input.size(dim) // 2``.
ANATOME = HERE / "anatome_fourier_shift.py"


def _spectra() -> dict[str, tuple[torch.Tensor, ...]]:
    return {"even": (torch.randn(2, 3, 10, 16, 2, generator=seeded(1)),),
            "odd": (torch.randn(1, 3, 9, 13, 2, generator=seeded(2)),),
            "one row": (torch.randn(1, 3, 1, 7, 2, generator=seeded(3)),),
            "zeros": (torch.zeros(1, 3, 5, 6, 2),),
            "negatives": (-torch.rand(1, 3, 7, 4, 2, generator=seeded(4)) - 1,),
            "inf": (with_specials((1, 3, 6, 5, 2), 5),)}


def test_anatome_both_rolls_are_found_and_rewritten(tmp_path: Path) -> None:
    found = _found(ANATOME)
    assert found == [("TRT353", _line_of(ANATOME, "shift = [input.size(dim) // 2 for dim in dims]") + 1, "safe"),
                     ("TRT353", _line_of(ANATOME, "shift = [-input.size(dim) // 2 for dim in dims]") + 1, "safe")]
    variant = rewritten_variant(ANATOME, "TRT353", tmp_path)
    assert variant["source"].count("    return _trt_roll(input, shift, dims)\n") == 2
    assert variant["safe_only"] == variant["source"]


def test_anatome_rewritten_with_the_floor_division_equals_eager_at_every_size(tmp_path: Path) -> None:
    """The rolls alone export (the original stops at the negation), but ``-n // 2`` exports as a truncating
    Div: at odd sizes the inverse shift is one off until TRT339 keeps the floor in the graph. Together the
    graph equals eager mode at every size. ``migrate`` does not get there yet: it blames TRT353 for the
    difference the Div makes and takes it back, and never tries TRT339 at a line the original's failed
    export did not reach."""
    module = load_variant(ANATOME, "trt353_d_anatome")
    original = built(module)
    example = module.inputs(seeded(0))
    sets = _spectra()
    (tmp_path / "rolls").mkdir()
    _, rolled = rewrite_variant(ANATOME, Options(select=("TRT353",), scope="all"), tmp_path / "rolls",
                                "trt353_anatome_rolls")
    session, _ = export_variant(built(rolled), example, module.DYNAMIC, tmp_path / "rolls.onnx", tmp_path)
    assert graph_matches(session, original, sets["even"])
    assert not graph_matches(session, original, sets["odd"])  # -13 // 2: -7 in torch, -6 in the graph
    text, after = rewrite_variant(ANATOME, Options(select=("TRT353", "TRT339"), unsafe=True, scope="all"), tmp_path,
                                  "trt353_anatome_both")
    assert "    shift = [_trt_size_floordiv(-input.size(dim), 2) for dim in dims]\n" \
           "    return _trt_roll(input, shift, dims)\n" in text
    rewritten = built(after)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "both.onnx", tmp_path)
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-6, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})
