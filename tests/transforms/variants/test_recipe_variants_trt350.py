"""The size-float-arithmetic recipe (TRT350) on real-code variants.

Each variant in ``tests/recipe_variants/trt350/`` is a small runnable model reduced from real code
(cited in its docstring) that computes with a tensor size and a float literal: easydetect's ONNX SAM
decoder choosing the best mask (``scores + (point_coords.shape[1] - 2.5) * reweight``), kornia's
``intrinsics_like`` (``1.0 * W / 2``), kornia's CLAHE blend weights (``.div(2.0 * th)``) and RF-DETR's
top-k accuracy (``correct_k.mul_(100.0 / batch_size)``), and Meta's ONNX SAM decoder, whose
``select_masks`` scores ``iou_preds + (num_points - 2.5) * score_reweight`` with the point count a
parameter the caller hands in (taken only with the observed run and the graph check's located Cast).

Only the SAM decoder's TorchScript export casts to float64: exported with static shapes, the exporter
folds the point term with the integer ``reweight`` constant into a float64 tensor and casts the
float32 scores to DOUBLE to add it. ``migrate`` ties the graph check's Cast to the finding, applies
TRT350 and ends with exit 0 and the rewritten model equivalent. The other three export in float32
with and without the rewrite (measured: the arithmetic meets only float tensors there), and
``migrate`` leaves them. Rewritten from the code alone, each graph has no float64 Cast and equals
eager mode (other sizes where an axis is dynamic, edge values), and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt350"
CODE_ALONE = Options(select=("TRT350",), scope="all", unsafe=True)

#: variant -> the arithmetic TRT350 takes, as written, and whether the original's export casts to float64.
CALLS: dict[str, tuple[tuple[str, ...], bool]] = {
    "easydetect_sam_best_mask": (("(point_coords.shape[1] - 2.5)",), True),
    "kornia_intrinsics_like": (("1.0 * W / 2", "1.0 * H / 2"), False),
    "kornia_clahe_weights": ((".div(2.0 * th)", ".div(2.0 * tw)"), False),
    "rfdetr_topk_accuracy": (("100.0 / batch_size",), False),
}


def _double_casts(path: Path) -> int:
    return sum(1 for node in onnx.load(str(path)).graph.node if node.op_type == "Cast"
               and any(a.name == "to" and a.i == onnx.TensorProto.DOUBLE for a in node.attribute))


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_the_rule_where_the_graph_casts_to_double(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt350_m_{name}")
    fragments, casts = CALLS[name]
    lines = [_line_of(path, fragment) for fragment in fragments]
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.rule, f.line) for f in found] == [("TRT350", line) for line in lines]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    if not casts:
        assert report["before"]["trt_errors"] == 0 and applied == [], (report["before"], applied)
        return
    assert report["before"]["trt_errors_by_op"].get("Cast", 0) > 0, report["before"]
    assert applied == [("TRT350", line) for line in lines], applied
    assert report["after"]["trt_errors"] == 0, report["after"]
    added = [text for text in report["diff"].splitlines() if text.startswith("+") and "_trt_size_float(" in text]
    assert any("def _trt_size_float(" in text for text in added)
    assert any("def " not in text and "_trt_size_float(point_coords.shape[1] - 2.5)" in text for text in added)


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other values (other sizes where an axis is dynamic) and edge values: zeros, negatives, inf/NaN."""
    if name == "easydetect_sam_best_mask":  # static shapes: a batch of two, two points (a box)
        points = torch.rand(2, 2, 2, generator=seeded(1)) * 64
        return {"other-values": (torch.randn(2, 8, generator=seeded(2)), points),
                "zeros": (torch.zeros(2, 8), torch.zeros(2, 2, 2)),
                "negatives": (-torch.rand(2, 8, generator=seeded(3)) - 1.0, -points),
                "large": (torch.full((2, 8), 1.0e4), points)}
    if name == "kornia_intrinsics_like":
        return {"batch-1": (torch.rand(1, 3, 17, 9, generator=seeded(1)), torch.randn(1, 2, 3, generator=seeded(2))),
                "larger": (torch.rand(3, 3, 40, 64, generator=seeded(3)), torch.randn(3, 7, 3, generator=seeded(4))),
                "zeros": (torch.zeros(2, 3, 5, 5), torch.zeros(2, 4, 3)),
                "negatives": (-torch.rand(2, 3, 8, 6, generator=seeded(5)), -torch.rand(2, 4, 3, generator=seeded(6))),
                "specials": (torch.rand(2, 3, 6, 10, generator=seeded(7)), with_specials((2, 4, 3), 8))}
    if name == "kornia_clahe_weights":  # static shapes
        return {"other-values": (torch.rand(2, 6, 8, 3, 4, 5, generator=seeded(1)),),
                "zeros": (torch.zeros(2, 6, 8, 3, 4, 5),),
                "negatives": (-torch.rand(2, 6, 8, 3, 4, 5, generator=seeded(2)),),
                "specials": (with_specials((2, 6, 8, 3, 4, 5), 3),)}
    return {"batch-1": (torch.randn(1, 5, generator=seeded(1)), torch.tensor([2])),
            "larger": (torch.randn(9, 5, generator=seeded(2)), torch.randint(0, 5, (9,), generator=seeded(3))),
            # all-zero logits tie every class: torch and ONNX Runtime break top-k ties differently, with or
            # without the rewrite; zero targets and zeros among distinct logits instead
            "zeros": (torch.cat([torch.zeros(4, 1), torch.randn(4, 4, generator=seeded(6))], 1),
                      torch.zeros(4, dtype=torch.int64)),
            "specials": (with_specials((4, 5), 7), torch.tensor([0, 1, 2, 3])),
            "negatives": (-torch.rand(6, 5, generator=seeded(4)), torch.randint(0, 5, (6,), generator=seeded(5)))}


@pytest.mark.parametrize("name", list(CALLS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt350_{name}")
    example = module.inputs(seeded(0))
    fragments, casts = CALLS[name]
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert new_source.count("_trt_size_float(") == len(fragments) + 1, new_source  # the calls and the def
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt350_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert (_double_casts(tmp_path / "before.onnx") > 0) is casts
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert _double_casts(tmp_path / "after.onnx") == 0
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})


META_SAM = HERE / "segment_anything_select_masks.py"


def test_meta_sam_count_handed_in_is_taken_where_the_graph_casts(tmp_path: Path) -> None:
    """Meta's ``select_masks(..., num_points: int)``: nothing in the code shows the count is a size (the caller
    hands in ``point_coords.shape[1]``), so the code alone gives no finding, nor does a recorded run alone; with
    the graph check's float64 Cast located at the line (``migrate``), TRT350 takes it, and the rewritten graph
    has no float64 Cast, equals eager mode on other values and edge values, and eager mode is unchanged."""
    from trtcodemod.evidence.facts import Facts
    from variant_models import built, observed_facts, rewrite_variant

    line = _line_of(META_SAM, "(num_points - 2.5)")
    source = META_SAM.read_bytes()
    assert check_source(source, str(META_SAM.resolve()), CODE_ALONE) == []
    module, original = built_variant(META_SAM, "trt350_meta_sam")
    ran_only = Options(select=("TRT350",), scope="all", unsafe=True,
                       facts=observed_facts(META_SAM, module, tmp_path / "observed"))
    assert check_source(source, str(META_SAM.resolve()), ran_only) == []

    saved = tmp_path / "facts.json"
    report = migrate_json(META_SAM, _axes_json(module), "--save-facts", str(saved))
    assert report["before"]["trt_errors_by_op"].get("Cast", 0) > 0, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT350", line)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True, report["after"]

    observed = Options(select=("TRT350",), scope="all", unsafe=True, facts=Facts.load(saved))
    assert [(f.rule, f.line) for f in check_source(source, str(META_SAM.resolve()), observed)] == [("TRT350", line)]
    text, rewritten_module = rewrite_variant(META_SAM, observed, tmp_path, "trt350_meta_sam_rewritten")
    assert "score = iou_preds + (_trt_size_float(num_points - 2.5)) * score_reweight" in text
    rewritten = built(rewritten_module)
    example = module.inputs(seeded(0))
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert _double_casts(tmp_path / "before.onnx") > 0
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert _double_casts(tmp_path / "after.onnx") == 0
    sets = {"example": example, **_sets("easydetect_sam_best_mask")}  # the same inputs, static shapes
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
