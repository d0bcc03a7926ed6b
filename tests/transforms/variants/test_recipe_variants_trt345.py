"""The unflatten-sizes recipe (TRT345) on real-code variants.

Each variant in ``tests/recipe_variants/trt345/`` is a small runnable model reduced from real code
(cited in its docstring) that splits an axis with ``unflatten`` and reads sizes downstream: the
Perceiver optical-flow preprocessor (3x3 patches ``F.unfold(f, 3, padding=1).unflatten(2,
f.shape[2:])``, then ``space_to_depth``'s ``view`` of ``frames.shape``), LLaVA-NeXT-Video's frames
regrouped per video (``unflatten(0, (batch_size, frames)).flatten(1, 2)``), ESMFold 2's outer product
(two ``unflatten`` calls in one chain), V-JEPA 2's rotary attention (``unflatten(-1, (-1, 2))``) and kornia's
TinyViT (a stage's tokens back to the map, ``x.transpose(1, 2).unflatten(2, self.input_resolution)``, for the patch
merging, whose tokens the next stage's block reads its batch from).

In all but V-JEPA 2 the TorchScript exporter types the unflattened result with the example's sizes
and folds every size read from it later: no TracerWarning, yet the graph fails or computes other
shapes at another batch. ``migrate`` traces again at other sizes, finds the first node that changed
(a ``Reshape`` lines away from the call), ties it to the call's finding and applies TRT345 there,
ending with exit 0 and the rewritten model equivalent. V-JEPA 2's graph already follows the sizes
(its rotated pairs are added to the unrotated input, whose sizes the exporter keeps): ``migrate``
leaves its call as it is. Rewritten from the code alone, each graph equals eager mode at other sizes
and on edge values, and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt345"
CODE_ALONE = Options(select=("TRT345",), scope="all")

#: variant -> the call TRT345 takes, as written, and whether the original's export bakes a size.
CALLS: dict[str, tuple[str, bool]] = {
    "perceiver_flow_patches": ("F.unfold(f, 3, padding=1).unflatten(2, f.shape[2:])", True),
    "llava_next_video_pool": ("features.unflatten(0, (batch_size, frames))", True),
    "esmfold2_outer_product": ("outer.unflatten(1, (-1, outer_dim)).unflatten(-1, (-1, outer_dim))", True),
    "vjepa2_rope_attention": ("x.unflatten(-1, (-1, 2))", False),
    "kornia_tiny_vit_merging": ("x.transpose(1, 2).unflatten(2, self.input_resolution)", True),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_the_rule_where_a_size_is_baked(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt345_m_{name}")
    call, baked = CALLS[name]
    line = _line_of(path, call)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [f.line for f in found] == [line]  # from the code alone: one finding, a chain included
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is (not baked), report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    if not baked:
        assert applied == [], applied  # nothing located: the call is left as written
        return
    assert applied == [("TRT345", line)], applied
    # What the fix answers is found elsewhere than the call: the second trace's first changed node, or the node
    # ONNX Runtime refuses on the set whose batch changed (placed at its line since the verifier reads a refusal
    # on any one set).
    if "retrace" in report:
        difference = report["retrace"]["first_difference"]
        assert difference["op"] == "Reshape" and not difference["source"].endswith(f":{line}")
    else:
        [fix] = report["applied"]
        assert "graph fails to run at line" in fix["proof"] and not fix["proof"].endswith(f"line {line}"), fix
    added = [text for text in report["diff"].splitlines() if text.startswith("+") and "_trt_unflatten(" in text]
    assert any("def _trt_unflatten(" in text for text in added)
    assert any("def " not in text and ".unflatten(" not in text for text in added), report["diff"]  # the call


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes of the dynamic axes, edge values (zeros, negatives, infinities and NaN)."""
    if name == "perceiver_flow_patches":
        return {"batch-1": (torch.rand(1, 6, 8, 8, generator=seeded(1)),),
                "batch-5": (torch.rand(5, 6, 8, 8, generator=seeded(2)),),
                "zeros": (torch.zeros(3, 6, 8, 8),), "specials": (with_specials((2, 6, 8, 8), 3),)}
    if name == "llava_next_video_pool":
        return {"one-video-one-frame": (torch.randn(1, 1, 3, 16, 16, generator=seeded(1)),),
                "more": (torch.randn(3, 7, 3, 16, 16, generator=seeded(2)),),
                "negatives": (-torch.rand(2, 2, 3, 16, 16, generator=seeded(3)) - 1,)}
    if name == "esmfold2_outer_product":
        return {"batch-1": (torch.randn(1, 5, 3, 8, generator=seeded(1)),),
                "batch-6": (torch.randn(6, 5, 3, 8, generator=seeded(2)),),
                "zeros": (torch.zeros(3, 5, 3, 8),)}
    if name == "kornia_tiny_vit_merging":
        return {"batch-1": (torch.randn(1, 3, 32, 32, generator=seeded(1)),),
                "batch-5": (torch.randn(5, 3, 32, 32, generator=seeded(2)),),
                "zeros": (torch.zeros(3, 3, 32, 32),), "negatives": (-torch.rand(2, 3, 32, 32, generator=seeded(3)),),
                "specials": (with_specials((2, 3, 32, 32), 4),)}
    return {"batch-1": (torch.randn(1, 6, 32, generator=seeded(1)),),
            "longer": (torch.randn(3, 11, 32, generator=seeded(2)),),
            "specials": (with_specials((2, 4, 32), 3),)}


@pytest.mark.parametrize("name", list(CALLS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt345_{name}")
    example = module.inputs(seeded(0))
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert new_source.count("_trt_unflatten(") == CALLS[name][0].count(".unflatten(") + 1, new_source  # + its def
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt345_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    if CALLS[name][1]:  # the original's graph: exported, wrong at another batch
        before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
        with pytest.raises((AssertionError, Exception)):  # noqa: B017 - a refused Reshape or another shape
            for label, inputs in _sets(name).items():
                assert_graph_within(before, original, inputs, 1e-5, label)
    session, traced = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})
