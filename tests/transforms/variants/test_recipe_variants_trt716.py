"""The tensor-of-sizes recipe (TRT716) on real-code variants.

``tests/recipe_variants/trt716/gmflow_local_correlation.py`` is reduced from GMFlow's local matching
(cited in its docstring): the sampling coordinates are normalised by ``torch.Tensor([(w - 1) / 2.,
(h - 1) / 2.])``, the legacy constructor of numbers computed from sizes a caller hands down. The
TorchScript export keeps the example's numbers (its graph samples the wrong places at another size);
from the code alone the rule cannot tell that ``h`` and ``w`` are sizes, so it takes the call where the
export warned there, as migrate does: migrate applies it and ends with exit 0, equivalent, and the
rewritten graph equals eager mode at other sizes while eager mode is unchanged.

Four more, each reduced from another repository (cited in its docstring), build the tensor in other forms:
XFeat's sparse sampler divides by ``torch.tensor([W - 1, H - 1], device=..., dtype=...)`` of the image size
its caller hands down (integer numbers of parameters: taken where the export warned, as GMFlow's);
ALIKED's soft keypoint detection by ``torch.tensor([w - 1, h - 1], device=...)`` of its own score map's
size; RT-DETR's anchors by ``torch.tensor([w, h]).to(dtype)`` of each level's sizes unpacked by a loop
over a list of sizes; SuperPoint's descriptor sampling by numbers computed from the descriptor map's size
and the cell size. Each exports not faithful; ``migrate`` applies TRT716 at the call and ends with exit 0,
equivalent; the rewritten graph equals eager mode at other sizes and on edge values, and eager mode is
unchanged.

``pyniftireg_grid_scale.py`` (pyniftireg 0.1.1's ``to_grid_sample``) builds the factors with a list
comprehension over the sizes a caller hands down, each through the built-in ``max``
(``[2.0 / max(n - 1, 1) for n in shape]``): migrate applies TRT716 at the call with TRT712's
``_trt_size_max`` inside it, and ends with exit 0; the graph follows the size, one-row images included.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_follows_where_baked, assert_graph_within, built,
                            export_variant, graph_matches, load_variant, observed_facts, rewrite_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt716"
NAME = "gmflow_local_correlation"
CALL = "c = torch.Tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)"
REWRITTEN = "c = _trt_sizes_legacy_tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)"


def test_migrate_takes_the_normaliser_and_the_model_exports_equivalent() -> None:
    path = HERE / f"{NAME}.py"
    module = load_variant(path, f"trt716_m_{NAME}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["faithful"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT716", _line_of(path, CALL))]
    assert report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert REWRITTEN in report["diff"], report["diff"]


def test_the_rewrite_follows_the_size_where_the_original_bakes_it(tmp_path: Path) -> None:
    path = HERE / f"{NAME}.py"
    module = load_variant(path, f"trt716_d_{NAME}")
    original = built(module)
    example = module.inputs(seeded(0))
    assert check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT716",), scope="all")) == []
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    facts = observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=("TRT716",), unsafe=True, facts=facts, scope="all"), tmp_path,
                                  f"trt716_d_rewritten_{NAME}")
    assert REWRITTEN in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)

    def pair(b, h, w, seed):
        return (torch.randn(b, 4, h, w, generator=seeded(seed)), torch.randn(b, 4, h, w, generator=seeded(seed + 9)))

    sets = {"other size": pair(2, 12, 20, 1), "tall": pair(1, 16, 6, 2), "zeros": (torch.zeros(1, 4, 6, 6),) * 2,
            "negatives": tuple(-t.abs() for t in pair(1, 10, 7, 3))}
    assert_follows_where_baked(baked, session, original, rewritten, example, sets)


#: variant -> the call, and what the rewrite writes there.
OTHERS = {
    "xfeat_sparse_interpolator": (
        "return 2. * (pts / (torch.tensor([W - 1, H - 1], device=pts.device, dtype=pts.dtype))) - 1.",
        "return 2. * (pts / (_trt_sizes_tensor([W - 1, H - 1], device=pts.device, dtype=pts.dtype))) - 1."),
    "aliked_soft_keypoints": (
        "wh = torch.tensor([w - 1, h - 1], device=score_map.device)",
        "wh = _trt_sizes_tensor([w - 1, h - 1], device=score_map.device)"),
    "rtdetr_level_anchors": (
        "valid_WH = torch.tensor([w, h]).to(dtype)",
        "valid_WH = _trt_sizes_tensor([w, h]).to(dtype)"),
    "superpoint_descriptor_sampling": (
        "keypoints /= torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)]).to(keypoints)[None]",
        "keypoints /= _trt_sizes_tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)]).to(keypoints)[None]"),
}


def _image(b: int, c: int, h: int, w: int, seed: int) -> torch.Tensor:
    return torch.rand(b, c, h, w, generator=seeded(seed))


def _other_sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Inputs at other sizes and edge values (zeros, negatives, no keypoints, positions off the map)."""
    if name in ("aliked_soft_keypoints", "rtdetr_level_anchors"):
        c = 3
        sets = {"other size": (_image(1, c, 40, 24, 1),), "wide": (_image(1, c, 16, 64, 2),),
                "zeros": (torch.zeros(1, c, 24, 24),), "negatives": (-_image(1, c, 32, 40, 3),)}
        if name == "rtdetr_level_anchors":
            sets["batch"] = (_image(3, c, 24, 40, 4),)
        return sets

    def points(b: int, n: int, h: int, w: int, seed: int) -> torch.Tensor:
        return torch.rand(b, n, 2, generator=seeded(seed)) * torch.tensor([w - 1.0, h - 1.0])
    # positions off the map (negative, far out): zeros padding; inf and NaN positions are left out, as
    # grid_sample's and ONNX Runtime's GridSample read them otherwise before any rewrite
    special = torch.tensor([[[0.0, 0.0], [-3.0, 5.0], [1e4, -1e4], [-0.0, 23.0], [55.0, 23.0]]])
    return {"other size": (_image(2, 1, 48, 24, 1), points(2, 7, 48, 24, 11)),
            "wide": (_image(1, 1, 16, 80, 2), points(1, 3, 16, 80, 12)),
            "zeros": (torch.zeros(1, 1, 24, 40), torch.zeros(1, 4, 2)),
            "no keypoints": (_image(1, 1, 40, 40, 3), torch.zeros(1, 0, 2)),
            "edge values": (_image(1, 1, 24, 56, 4), special)}


@pytest.mark.parametrize("name", list(OTHERS))
def test_migrate_takes_each_other_form_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt716_mo_{name}")
    call, rewritten = OTHERS[name]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT716", _line_of(path, call))]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert rewritten in report["diff"], report["diff"]


@pytest.mark.parametrize("name", list(OTHERS))
def test_each_other_form_rewritten_follows_the_size(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt716_do_{name}")
    original = built(module)
    example = module.inputs(seeded(0))
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    facts = observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=("TRT716",), unsafe=True, facts=facts, scope="all"), tmp_path,
                                  f"trt716_do_rewritten_{name}")
    assert OTHERS[name][1] in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = _other_sets(name)
    assert not graph_matches(baked, original, sets["other size"])
    for label, inputs in sets.items():
        if name == "aliked_soft_keypoints" and label == "zeros":
            continue  # every score ties: top-k's order among equals is the backend's own (eager mode is checked)
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})


GRID = "pyniftireg_grid_scale"
GRID_CALL = ("scale = torch.tensor([2.0 / max(n - 1, 1) for n in shape], dtype=coords.dtype, "
             "device=coords.device)")
GRID_REWRITTEN = ("scale = _trt_sizes_tensor([2.0 / _trt_size_max(n - 1, 1) for n in shape], dtype=coords.dtype, "
                  "device=coords.device)")


def test_migrate_takes_the_comprehension_of_sizes_handed_down_and_ends_with_exit_0() -> None:
    path = HERE / f"{GRID}.py"
    module = load_variant(path, f"trt716_mg_{GRID}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    line = _line_of(path, GRID_CALL)
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT712", line), ("TRT716", line)]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert GRID_REWRITTEN in report["diff"], report["diff"]


def test_the_comprehension_of_sizes_rewritten_follows_the_size(tmp_path: Path) -> None:
    path = HERE / f"{GRID}.py"
    module = load_variant(path, f"trt716_dg_{GRID}")
    original = built(module)
    example = module.inputs(seeded(0))
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    facts = observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=("TRT716", "TRT712"), unsafe=True, facts=facts, scope="all"),
                                  tmp_path, f"trt716_dg_rewritten_{GRID}")
    assert GRID_REWRITTEN in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"other size": (_image(2, 2, 40, 24, 1),), "wide": (_image(1, 2, 16, 64, 2),),
            "one row": (_image(1, 2, 1, 20, 3),), "one pixel": (_image(1, 2, 1, 1, 4),),
            "zeros": (torch.zeros(1, 2, 24, 24),), "negatives": (-_image(3, 2, 32, 40, 5),),
            "large": (_image(1, 2, 12, 12, 6) * 1e6,)}
    assert_follows_where_baked(baked, session, original, rewritten, example, sets, 1e-4)
