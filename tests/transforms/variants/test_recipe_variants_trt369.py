"""The cost-volume-shift recipe (TRT369) on real-code variants.

Each variant in ``tests/recipe_variants/trt369/`` is a small runnable model reduced from a public repository
(cited in its docstring) that fills a stereo cost volume one disparity plane at a time over shifted columns:
GwcNet's group-wise correlation and concatenation volumes, PSMNet's concatenation cost in its forward (channel
counts read from ``.size()``), AANet's difference, concatenation and 4-D correlation volumes, Fast-ACVNet's
normalized correlations and its concatenation volume with a whole reference plane, and stereo_matching's
IGEV-Stereo (zoo 33's ``sm_igev_stereo``). At a feature map as wide as the disparity range or narrower the
slices are empty and the exported graph fails in ONNX Runtime (a zero-size Reshape or ScatterND). Rewritten
(``--unsafe``, as migrate tries a verified candidate), the full-width planes are taken only while tracing:
eager mode runs the block as written, the same bit for bit, gradients included, at widths below, at and above
the range, on zeros, negatives and inf/NaN; the rewritten graph equals eager mode at every width. MobileStereoNet's volume goes through a 3-D convolution with a 3x3 spatial kernel: not
column-local, refused with the reason. ``migrate`` fixes the IGEV variant (exit 0).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built, export_variant, line_of,
                            load_variant, rewrite_variant, seeded, with_specials)

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt369"

#: variant -> (a fragment of the rewrite, the disparity range at feature resolution).
VARIANTS: dict[str, tuple[str, int]] = {
    "gwcnet_volumes": ("volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], groupwise_correlation("
                       "refimg_fea, _trt_shift_right(targetimg_fea, i, 3),", 10),
    "psmnet_concat_cost": ("cost[:, refimg_fea.size()[1]:, i, :,:] = _trt_where_from(cost[:, refimg_fea.size()[1]:, "
                           "i, :,:], _trt_shift_right(targetimg_fea, i, 3), i, 3)", 8),
    "aanet_cost_volume": ("cost_volume[:, i, :, :] = _trt_where_from(cost_volume[:, i, :, :], (left_feature *", 9),
    "fast_acvnet_norm_volumes": ("volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], norm_correlation("
                                 "refimg_fea, _trt_shift_right(targetimg_fea, i, 3)), i, 3)", 8),
    "igev_stereo_gwc_volume": ("volume[:, :, idx, :, :] = _trt_where_from(volume[:, :, idx, :, :], "
                               "_igev_groupwise_correlation(", 12),
}


def _sets(module, disparities: int) -> dict[str, tuple[torch.Tensor, ...]]:
    example = module.inputs(seeded(0))
    found = {"example": example}
    for width in (1, disparities - 1, disparities, disparities + 3):
        found[f"width {width}"] = (torch.randn(1, 6, 3, width, generator=seeded(width)),)
    found["zeros"] = (torch.zeros_like(example[0]),)
    found["negatives"] = (-example[0].abs() - 1,)
    found["inf-nan"] = (with_specials((1, 6, 3, disparities + 2), 5),)
    return found


def _rewritten(name: str, tmp_path: Path):
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt369_{name}")
    original = built(module)
    text, rewritten_module = rewrite_variant(path, Options(select=("TRT369",), unsafe=True, scope="all"), tmp_path,
                                             f"trt369_rewritten_{name}")
    rewritten = built(rewritten_module)
    rewritten.load_state_dict(original.state_dict())
    return module, original, rewritten, text


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewritten_and_eager_unchanged(name: str, tmp_path: Path) -> None:
    fragment, disparities = VARIANTS[name]
    module, original, rewritten, text = _rewritten(name, tmp_path)
    assert fragment in text, text
    code = text.split('"""', 2)[2]  # after the docstring
    traced = [branch.split("else:", 1)[0] for branch in code.split("if _trt_tracing():")[1:]]
    assert traced and not any(":-i]" in t or ":-idx]" in t for t in traced), code
    # Eager mode runs the block as written (the `else`): the same program bit for bit, gradients included.
    assert_eager_unchanged(original, rewritten, _sets(module, disparities))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_graph_runs_at_every_width(name: str, tmp_path: Path) -> None:
    module, original, rewritten, _ = _rewritten(name, tmp_path)
    disparities = VARIANTS[name][1]
    sets = _sets(module, disparities)
    example = module.inputs(seeded(0))
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    with pytest.raises(Exception, match="Reshape|ScatterND|Expand|zero"):  # an empty slice at a narrow width
        assert_graph_within(before, original, sets[f"width {disparities - 1}"], 1e-5, "narrow")
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)


def test_a_convolution_over_the_columns_is_refused() -> None:
    """MobileStereoNet's 3-D convolution has a 3x3 spatial kernel: the full-width plane would see the zeros
    shifted in where the original sees the slice's edge. The finding names it and has no fix."""
    path = HERE / "mobilestereonet_interweave.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT369",), unsafe=True, scope="all"))
    assert result.source == path.read_bytes()
    [finding] = [f for f in result.findings if f.rule == "TRT369"]
    assert finding.fix.value == "none" and finding.line == line_of(path, "volume[:, :, i, :, i:] = x")
    assert "not column-local: `self.conv3d`" in finding.message, finding.message


@pytest.fixture(scope="module")
def igev_report() -> dict:
    path = HERE / "igev_stereo_gwc_volume.py"
    return migrate_json(path, axes_json(load_variant(path, "trt369_migrate")))


def test_migrate_fixes_the_volume_that_fails_at_a_narrow_width(igev_report: dict) -> None:
    """IGEV's 12 disparities on a 9-column map: the original graph fails in ONNX Runtime at the traced size
    itself; migrate plans TRT369 at the loop as a candidate, verifies it and keeps it."""
    path = HERE / "igev_stereo_gwc_volume.py"
    report = igev_report
    assert report["before"]["faithful"] is not True, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT369", line_of(path, "if idx > 0:")) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True, report["after"]
    assert "_trt_shift_right(targetimg_fea, idx, 3)" in report["diff"]
    # The write TRT203 reported (a ScatterND of an empty slice) is a whole-plane write now: no problem is left.
    assert report["remaining"] == [], report["remaining"]
