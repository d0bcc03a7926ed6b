"""The parallelizable-loop recipe (TRT348) on real-code variants: the quarter-pixel keypoint shift.

Each variant in ``tests/recipe_variants/trt348/`` is a small runnable model reduced from real code
(cited in its docstring) that decodes keypoints from heatmaps with a Python loop over the batch and the
keypoints: pytorchcv's ``HeatmapMaxDetBlock`` (``int(pts[b, k, 0])``, ``pts[b, k, 0] += ...sign() *
0.25``), AlphaPose's ``getPrediction`` (``pX, pY = int(round(float(...))), ...``, a vector built with
``torch.Tensor((a, b))`` added to a row, ``preds[i][j] += diff.sign() * 0.25``) and pytorch-pose's
``final_preds`` (``int(math.floor(...))``, a list resolution, a shifted neighbour test) and
simple-HRNet's ``get_final_preds`` (under ``if post_processing:``, ``torch.tensor([...]).to(device)``,
``torch.sign(diff)``) and the face-alignment network's ``get_preds_fromhm`` (a row sliced with one written
``:``, ``torch.FloatTensor([...])``, in-place methods: ``preds[i, j].add_(diff.sign_().mul_(.25))``; its
heatmaps are 64x64 for its fixed border test, so only the batch varies).

The TorchScript export unrolls the loops with the example's batch and keypoints and keeps the example's
positions and branches. ``migrate`` locates the reads, applies TRT348 and ends at exit 0 with the
rewritten model equivalent; rewritten from the code alone, each graph equals eager mode at other batch,
height and width, on maxima at the border (the shift skipped), ties (a zero sign), zeros and negatives,
and eager mode is the loop itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            export_variant_dynamo, seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt348"
CODE_ALONE = Options(select=("TRT348",), scope="all")
UNSAFE = Options(select=("TRT348",), scope="all", unsafe=True)

#: variant -> the outer loop's header, as written.
LOOPS: dict[str, str] = {
    "pytorchcv_heatmap_max_det": "for b in range(batch):",
    "alphapose_get_prediction": "for i in range(preds.size(0)):",
    "bearpaw_final_preds": "for n in range(coords.size(0)):",
    "simple_hrnet_final_preds": "for n in range(coords.shape[0]):",
    "fan_preds_fromhm": "for i in range(preds.size(0)):",
}


def _load(name: str):
    module, model = built_variant(HERE / f"{name}.py", f"trt348_{name}")
    return module, model


@pytest.mark.parametrize("name", list(LOOPS))
def test_migrate_applies_the_rule(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = _load(name)
    line = _line_of(path, LOOPS[name])
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [f.line for f in found] == [line]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT348", line)]
    assert report["after"]["faithful"] is True


def _heatmap_inputs(shape: tuple[int, ...], seed: int, kind: str) -> tuple[torch.Tensor]:
    x = torch.rand(*shape, generator=seeded(seed))
    if kind == "zeros":
        x = torch.zeros(shape)
    elif kind == "negatives":
        x = -x
    elif kind == "ties":
        x = torch.floor(x * 2) / 2
    return (x,)


def _sets(name: str) -> dict[str, tuple[torch.Tensor]]:
    if name == "fan_preds_fromhm":  # its border test is written for 64x64 heatmaps: other batches, other values
        return {"batch-3": _heatmap_inputs((3, 3, 64, 64), 1, "random"),
                "batch-2": _heatmap_inputs((2, 3, 64, 64), 2, "random"),
                "zeros": _heatmap_inputs((2, 3, 64, 64), 4, "zeros"),
                "negatives": _heatmap_inputs((2, 3, 64, 64), 5, "negatives"),
                "ties": _heatmap_inputs((2, 3, 64, 64), 6, "ties")}
    return {"batch-3": _heatmap_inputs((3, 3, 16, 12), 1, "random"),
            "taller": _heatmap_inputs((2, 3, 24, 10), 2, "random"),
            "small": _heatmap_inputs((1, 3, 4, 4), 3, "random"),
            "zeros": _heatmap_inputs((2, 3, 16, 12), 4, "zeros"),
            "negatives": _heatmap_inputs((2, 3, 9, 13), 5, "negatives"),
            "ties": _heatmap_inputs((2, 3, 8, 8), 6, "ties")}


@pytest.mark.parametrize("name", list(LOOPS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = _load(name)
    example = module.inputs(seeded(0))
    assert "_trt_tracing" not in fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    new_source = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert new_source.count("if _trt_tracing():") == 1, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt348_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    with pytest.raises((AssertionError, Exception)):  # noqa: B017 - the unrolled loop: other values or a refusal
        for label, inputs in _sets(name).items():
            assert_graph_within(before, original, inputs, 1e-6, label)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-6, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})


def test_fan_in_place_form_with_the_dynamo_exporter(tmp_path: Path) -> None:
    """The in-place form (`diff.sign_().mul_(.25)` on the stacked differences, the `.add_` write) exported by
    the dynamo exporter too: the graph equals eager mode at other batches and values."""
    path = HERE / "fan_preds_fromhm.py"
    module, original = _load("fan_preds_fromhm")
    new_path = tmp_path / "fan_preds_fromhm_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode())
    _, rewritten = built_variant(new_path, "trt348_rewritten_dynamo_fan")
    rewritten.load_state_dict(original.state_dict())
    session = export_variant_dynamo(rewritten, module.inputs(seeded(0)), module.DYNAMIC, tmp_path / "after.onnx")
    for label, inputs in _sets("fan_preds_fromhm").items():
        assert_graph_within(session, original, inputs, 1e-6, label)
