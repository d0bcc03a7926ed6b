"""The linspace-steps recipe (TRT368) on real-code variants.

Each variant in ``tests/recipe_variants/trt368/`` is a small runnable model reduced from public code
(cited in its docstring) that spaces one point per row or column of a map with ``torch.linspace`` and a
count read from a shape, in the form the original writes it: S2M2's relative positions
(``s2m2_relative_pe``, migrated in ``tests/transforms/test_linspace_steps.py``), Deformable DETR's
reference points (``torch.meshgrid`` of two calls with ``dtype=torch.float32, device=device``), kornia's
illumination ramps (four calls with the dtype held in a name, ``dtype=_dtype``: taken since the rule
leaves a dtype it cannot read to the helper, which is ``torch.linspace`` itself for a dtype that is not
floating), timm's FourierEmbed grid (a comprehension with ``steps=s`` as a keyword) and Perceiver's
linear positions (a nested ``_linspace`` with every argument a keyword, mapped over the index axes).

For each: the rule finds every call from the code alone and rewrites it; eager mode is unchanged bit for
bit (outputs, gradients, exceptions) on the example, other sizes, one row, one column, zeros, negatives,
inf/NaN and empty inputs; the original's TorchScript export is NaN where eager mode is finite at a count
of 1 and right at two or more; the rewritten export equals eager mode (values, dtype, shape) on every set.
Deformable DETR's example has one row at its coarsest level: ``migrate`` finds the graph NaN where eager
mode is finite (a wrong value, no refused node), plans TRT368 for it in the same file (the plan's
narrowing took only a Gather refused on the index NaN casts to before), applies it at both calls,
verifies it and ends with exit 0.

Not counted: RIFE's backward warp (megvii-research/ECCV2022-RIFE, model/warplayer.py) spaces
``torch.linspace(-1.0, 1.0, tenFlow.shape[3])`` the same way and is taken, but divides the flow by
``(W - 1.0) / 2.0`` beside it, so at one column eager mode itself is inf/NaN: no case where the fix shows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json, rules_found
from variant_models import (assert_eager_unchanged, axes_json, built_variant, export_variant, input_names, line_of,
                            load_variant, seeded, seeded_rand, seeded_specials)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.findings import Finding
from trtcodemod.migrate.locate import FAILS_TO_RUN, WRONG_VALUES, Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Safety

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt368"
INF, NAN = float("inf"), float("nan")


#: variant -> (the calls the rule finds, one line each; input sets; the sets with a count of 1 somewhere)
VARIANTS: dict[str, tuple[tuple[str, ...], dict[str, tuple[torch.Tensor, ...]], tuple[str, ...]]] = {
    "deformable_detr_reference_points": (
        ("ref_y, ref_x = torch.meshgrid(torch.linspace(0.5, H_ - 0.5, H_",
         "torch.linspace(0.5, W_ - 0.5, W_, dtype=torch.float32, device=device),"), {
            "larger": (seeded_rand(2, 3, 48, 64),),
            "one-row-level": (seeded_rand(1, 3, 31, 40, seed=2),),
            "one-column-level": (seeded_rand(2, 3, 40, 16, seed=3),),
            "one-cell-level": (seeded_rand(1, 3, 16, 16, seed=4),),
            "zeros": (torch.zeros(1, 3, 32, 32),),
            "negatives": (-seeded_rand(1, 3, 33, 47, seed=5, scale=9),),
            "inf-nan": (seeded_specials(1, 3, 32, 48, seed=6),),
            # No empty batch: `ref.flatten(2)` exports as a Reshape to (0, n, -1), which ONNX Runtime refuses for
            # an empty tensor, before and after the rewrite (not this recipe's).
        }, ("example", "one-row-level", "one-column-level", "one-cell-level")),
    "kornia_linear_illumination_ramps": (
        ("ramp_h = torch.linspace(0, 1, height,", "ramp_h_rev = torch.linspace(1, 0, height,",
         "ramp_w = torch.linspace(0, 1, width,", "ramp_w_rev = torch.linspace(1, 0, width,"), {
            "larger": (seeded_rand(2, 3, 20, 33),),
            "one-row": (seeded_rand(2, 3, 1, 7, seed=2),),
            "one-column": (seeded_rand(2, 3, 9, 1, seed=3),),
            "one-pixel": (seeded_rand(2, 3, 1, 1, seed=4),),
            "zeros": (torch.zeros(2, 3, 4, 4),),
            "negatives": (-seeded_rand(2, 3, 5, 8, seed=5),),
            "inf": (torch.tensor([INF, -INF, 0.5]).repeat(2, 3, 4, 2),),
            # No empty image here: the ramp's `.view(1, 1, height, 1)` at height 0 is a Reshape whose 0 ONNX reads
            # as "copy" (TRT367's recipe: tests/recipe_variants/trt367/kornia_illumination_ramp_view.py).
        }, ("one-row", "one-column", "one-pixel")),
    "timm_fourier_embed_grid": (
        ("return torch.linspace(1.0, max_freq / 2, num_bands", "t = [torch.linspace(-1., 1., steps=s,"), {
            "larger": (seeded_rand(1, 3, 12, 9),),
            "one-row": (seeded_rand(1, 3, 1, 6, seed=2),),
            "one-column": (seeded_rand(3, 3, 4, 1, seed=3),),
            "zeros": (torch.zeros(2, 3, 3, 3),),
            "negatives": (-seeded_rand(2, 3, 6, 2, seed=5, scale=4),),
            "inf-nan": (seeded_specials(2, 3, 5, 6, seed=6),),
            "no-images": (torch.zeros(0, 3, 4, 4),),
            # No map of 0 rows: the grid's `flatten(2)` is a Reshape to (0, w, -1), refused by ONNX Runtime for an
            # empty tensor before and after (not this recipe's).
        }, ("one-row", "one-column")),
    "perceiver_linear_positions": (
        ("return torch.linspace(start=output_range[0], end=output_range[1], steps=n_xels_per_dim",
         "bands = torch.stack([torch.linspace(start=1.0, end=res / 2, steps=num_bands)"), {
            "larger": (seeded_rand(3, 9, 11, 2),),
            "one-row": (seeded_rand(2, 1, 5, 2, seed=2),),
            "one-column": (seeded_rand(1, 7, 1, 2, seed=3),),
            "zeros": (torch.zeros(1, 3, 3, 2),),
            "negatives": (-seeded_rand(2, 4, 4, 2, seed=5, scale=3),),
            "inf-nan": (seeded_specials(1, 5, 6, 2, seed=6),),
            "no-rows": (torch.zeros(1, 0, 4, 2),),
        }, ("one-row", "one-column")),
}


def _lines(name: str) -> list[int]:
    return [line_of(HERE / f"{name}.py", fragment) for fragment in VARIANTS[name][0]]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_every_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT368",), scope="all"))
    assert sorted((f.rule, f.line) for f in findings) == [("TRT368", line) for line in sorted(_lines(name))], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT368",), scope="all")).source.decode()
    body = new_source.split('"""', 2)[2]
    assert "torch.linspace(" not in body.split("def _trt_linspace", 1)[0], new_source
    assert body.count("_trt_linspace(") >= len(_lines(name)) + 1
    assert rules_found(new_source, select=("TRT368",)) == []


@pytest.fixture(scope="module", params=list(VARIANTS))
def graphs(request, tmp_path_factory) -> dict:
    """A variant, its original and rewritten models and both TorchScript exports (shared by the tests)."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt368_o_{name}")
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=("TRT368",), scope="all")).source.decode())
    _, rewritten = built_variant(new_path, f"trt368_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    before, _ = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", path.parent)
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    sets = {"example": example, **VARIANTS[name][1]}
    return {"name": name, "original": original, "rewritten": rewritten, "before": before, "after": after,
            "sets": sets}


def _run(session, model, inputs) -> np.ndarray:
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    return got


def test_eager_mode_is_unchanged(graphs) -> None:
    assert_eager_unchanged(graphs["original"], graphs["rewritten"], graphs["sets"])


def test_the_originals_graph_is_nan_at_one_step_only(graphs) -> None:
    one_step = VARIANTS[graphs["name"]][2]
    for label, inputs in graphs["sets"].items():
        with torch.no_grad():
            want = graphs["original"](*inputs).numpy()
        got = _run(graphs["before"], graphs["original"], inputs)
        nan_where_finite = bool(np.any(np.isnan(got) & np.isfinite(want)))
        assert nan_where_finite == (label in one_step), label
        if label not in one_step:
            assert got.shape == want.shape and np.allclose(got, want, atol=1e-5, equal_nan=True), label


def test_the_rewritten_graph_equals_eager_mode(graphs) -> None:
    for label, inputs in graphs["sets"].items():
        with torch.no_grad():
            want = graphs["original"](*inputs).numpy()
        got = _run(graphs["after"], graphs["original"], inputs)
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), label


def test_migrate_plans_trt368_for_values_that_are_nan_where_eager_is_finite() -> None:
    path = HERE / "deformable_detr_reference_points.py"
    module = load_variant(path, "trt368_m_ddetr")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == [("TRT368", line) for line in sorted(_lines("deformable_detr_reference_points"))], applied
    assert all("safe fix" in fix.get("proof", "") for fix in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True, report["after"]


def test_the_plan_ties_trt368_to_nan_values_in_its_file_only(tmp_path: Path) -> None:
    path, other = str(tmp_path / "model.py"), str(tmp_path / "other.py")
    finding = Finding("TRT368", "linspace-steps", "m", path, 33, 9, 33, 60, Safety.SAFE)
    nan = ("the graph differs from eager even on the traced inputs (set 1: NaN at 8 position(s) where the original "
           "is finite)")
    assert matches(Problem("unfaithful", path, 39, WRONG_VALUES, None, nan), finding)
    assert not matches(Problem("unfaithful", other, 39, WRONG_VALUES, None, nan), finding)
    # Other wrong values (no NaN where eager mode is finite) are not a linspace of one step.
    assert not matches(Problem("unfaithful", path, 39, WRONG_VALUES, None, "max abs error 0.5"), finding)
    assert not matches(Problem("unfaithful", path, 33, "(no float32 reference)", None, nan), finding)
    # The refused Gather of S2M2's relative positions, as before.
    refused = "indices element out of data bounds, idx=-9223372036854775808"
    assert matches(Problem("unfaithful", path, 47, FAILS_TO_RUN, None, refused), finding)
    # TRT367 stays narrowed to a refused Reshape over a run-time 0.
    view = Finding("TRT367", "zero-size-reshape", "m", path, 39, 9, 39, 60, Safety.SAFE)
    assert not matches(Problem("unfaithful", path, 39, WRONG_VALUES, None, nan), view)
