"""NMS run class by class over ``labels.unique()`` (TRT738), on real-code variants.

Each variant in ``tests/recipe_variants/trt738/`` is a small runnable model reduced from a public repository of a
different owner (cited in its docstring) that runs NMS class by class the way the original writes it: owndet's
``class_aware_nms`` (its own greedy NMS, ``torch.unique(labels, sorted=True)``, positions by ``nonzero``, a list
concatenated), detectron2's ``batched_nms`` (``torch.jit.annotate(List[int], torch.unique(idxs).cpu().tolist())``,
the kept positions set in a mask), tkdetection's copy of its first form (``torch.unique(idxs).cpu().tolist()``), an
anchor-free camera detector's ``class_spec_nms_`` (the unique labels bound first, the class's rows bound to names,
the positions from ``torch.arange(n)[class_mask]``, ``torch.concat``), and a from-scratch Faster R-CNN's
``filter_predictions`` (``torch.ops.torchvision.nms`` over every (proposal, class) pair, a mask, a top-K).

From the code alone the rule finds each loop at its line and writes the one-NMS branch; eager mode is the loop
itself (unchanged at several sizes, on a constant image whose candidates all have one class and tied scores, with no
candidate over the threshold); the one-NMS branch itself, run eagerly, equals the loop on hand-made sets (one class,
every box of one class, tied scores, no box, one box, negative corners); the rewritten graph equals eager mode at
other sizes and on constant images, and ``migrate`` applies TRT738 at the loop's line and ends at exit 0 (owndet's
migrate run is in tests/transforms/test_per_class_nms.py, with TRT397 on its greedy loop).
torchvision is the plain-PyTorch stand-in (tests/transforms/torchvision_standin.py): its compiled ops do not load with
the project's CPU torch.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from variant_models import TORCHVISION_STANDIN, assert_cited_by_distinct_owners, assert_eager_unchanged, \
    assert_graph_within, export_variant, load_variant, migrate_with_standin, random_boxes, seeded

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt738"
CODE_ALONE = Options(select=("TRT738",), scope="all")
UNSAFE = Options(select=("TRT738",), scope="all", unsafe=True)
torchvision_standin = load_variant(TORCHVISION_STANDIN, "torchvision_standin_trt738")

#: variant -> (the one-NMS line the rewrite writes, the model's score-threshold attribute, the suppression as
#: ``suppress(module, model)(boxes, scores, labels, iou)``)
VARIANTS = {
    "owndet_class_aware_nms": (
        "kept_per_class = [_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, iou_threshold), labels)]",
        "threshold", lambda module, model: module.class_aware_nms),
    "detectron2_batched_nms": (
        "result_mask[nms(_trt_classes_apart(boxes, idxs), scores, iou_threshold)] = True",
        "score_thresh", lambda module, model: module.batched_nms),
    "tkdetection_batched_nms": (
        "result_mask[nms(_trt_classes_apart(boxes, idxs), scores, iou_threshold)] = True",
        "threshold", lambda module, model: module.batched_nms),
    "anchor_free_class_spec_nms": (
        "keep = [_trt_by_class(torchvision.ops.nms(_trt_classes_apart(boxes, class_labels), scores, iou_threshold), "
        "class_labels)]", "score_threshold", lambda module, model: module.class_spec_nms_),
    "faster_rcnn_filter_predictions": (
        "keep_mask[torch.ops.torchvision.nms(_trt_classes_apart(pred_boxes, pred_labels), pred_scores, "
        "self.nms_threshold)] = True", "low_score_threshold",
        lambda module, model: lambda boxes, scores, labels, iou: model.filter_predictions(boxes, labels, scores)),
}
#: The variants migrate runs here (owndet's own run is in test_per_class_nms.py).
MIGRATED = [name for name in VARIANTS if name != "owndet_class_aware_nms"]


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)
    monkeypatch.setitem(sys.modules, "torchvision.ops", torchvision_standin.ops)


def _loop_line(path: Path, call: str) -> int:
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == call]
    return line


@pytest.fixture(scope="module", params=list(VARIANTS))
def variant(request, tmp_path_factory) -> dict:
    """The variant, its rewritten text and both models (same weights), built once for its tests."""
    name = request.param
    path = HERE / f"{name}.py"
    folder = tmp_path_factory.mktemp(f"trt738_{name}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "torchvision", torchvision_standin)
        patch.setitem(sys.modules, "torchvision.ops", torchvision_standin.ops)
        text = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
        (folder / f"{name}_rewritten.py").write_text(text)
        module = load_variant(path, f"trt738_{name}")
        rewritten_module = load_variant(folder / f"{name}_rewritten.py", f"trt738_rewritten_{name}")
    torch.manual_seed(0)
    original = module.build().eval()
    rewritten = rewritten_module.build().eval()
    rewritten.load_state_dict(original.state_dict())
    return {"name": name, "path": path, "text": text, "module": module, "rewritten_module": rewritten_module,
            "original": original, "rewritten": rewritten, "folder": folder}


def test_five_owners() -> None:
    assert_cited_by_distinct_owners(HERE, list(VARIANTS))


def test_the_loop_is_found_and_rewritten_from_the_code_alone(variant: dict) -> None:
    path, module = variant["path"], variant["module"]
    found = [(f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)]
    assert found == [("TRT738", _loop_line(path, module.CALL))], found
    text = variant["text"]
    assert fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source == path.read_bytes()  # unsafe only
    assert VARIANTS[variant["name"]][0] in text, text
    assert "if not torch.jit.is_scripting() and _trt_tracing():" in text, text
    # the loop kept for eager code, under the tracing test's else
    assert re.search(rf"\n( *)else:\n\1    {re.escape(module.CALL)}\n", text), text


def _image_sets(module, fills: tuple[int, ...] = (-20, -1, 0, 1, 20)) -> dict[str, tuple[torch.Tensor]]:
    sets = {f"{h}x{w}": module.inputs(seeded(h + w), h, w) for h, w in ((32, 32), (48, 40), (64, 64), (24, 56))}
    # a constant image: every interior cell gives the same scores (ties) and, for a fill, one class
    sets.update({f"fill {fill}": (torch.full((1, 3, 32, 32), float(fill)),) for fill in fills})
    return sets


def _classes_kept(model: torch.nn.Module, inputs: tuple) -> list[float]:
    with torch.no_grad():
        return model(*inputs)[:, -1].unique().tolist()


def test_eager_is_the_loop_at_other_sizes_and_edges(variant: dict) -> None:
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    sets = _image_sets(module)
    kept = {label: _classes_kept(original, inputs) for label, inputs in sets.items()}
    assert any(len(classes) == 1 for classes in kept.values()), kept  # a set whose boxes keep one class
    assert any(len(classes) >= 2 for classes in kept.values()), kept
    assert_eager_unchanged(original, rewritten, sets)
    # no candidate over the threshold (both models' threshold raised past any score)
    attribute = VARIANTS[variant["name"]][1]
    for model in (original, rewritten):
        setattr(model, attribute, 2.0)
    try:
        assert _classes_kept(original, sets["32x32"]) == []
        assert_eager_unchanged(original, rewritten, {"no candidate": sets["32x32"]})
    finally:
        for model in (original, rewritten):
            setattr(model, attribute, getattr(module.build(), attribute))


def _boxes(count: int, seed: int, classes: int = 3, low: float = 0.0) -> tuple[torch.Tensor, ...]:
    return random_boxes(count, seed, classes, low, spread=30.0, size=14.0)


def _suppression_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    boxes, scores, labels = _boxes(30, 5)
    tied = scores.clone()
    tied[::2] = 0.5
    same = torch.tensor([[2.0, 2.0, 12.0, 12.0]]).repeat(6, 1)
    return {
        "three classes": _boxes(40, 1),
        "one class": _boxes(25, 2, classes=1),
        "every box the same class": (boxes, scores, torch.full_like(labels, 2)),
        "tied scores": (boxes, tied, labels),
        "the same box six times, tied": (same, torch.full((6,), 0.7), torch.tensor([0, 1, 0, 1, 1, 0])),
        "one box": _boxes(1, 3),
        "no box": (torch.zeros(0, 4), torch.zeros(0), torch.zeros(0, dtype=torch.long)),
        "negative corners": _boxes(24, 4, low=-50.0),
        "sparse labels": (boxes, scores, labels * 7 + 1),
    }


def test_the_one_nms_branch_is_the_loop_on_hand_made_sets(variant: dict) -> None:
    """The rewrite's tracing branch, run eagerly (its test forced true), against the loop: the same kept
    positions in the same order, on one class, tied scores, no box, one box and negative corners."""
    name, module, rewritten_module = variant["name"], variant["module"], variant["rewritten_module"]
    loop = VARIANTS[name][2](module, variant["original"])
    one_call = VARIANTS[name][2](rewritten_module, variant["rewritten"])
    forced = []
    original_tracing = rewritten_module._trt_tracing

    def counting() -> bool:
        forced.append(True)
        return True

    rewritten_module._trt_tracing = counting
    try:
        for label, (boxes, scores, labels) in _suppression_sets().items():
            expected = loop(boxes, scores, labels, 0.5)
            got = one_call(boxes, scores, labels, 0.5)
            for want, have in zip(expected if isinstance(expected, tuple) else (expected,),
                                  got if isinstance(got, tuple) else (got,)):
                assert want.shape == have.shape and torch.equal(want, have), (label, want, have)
    finally:
        rewritten_module._trt_tracing = original_tracing
    assert forced, "the one-NMS branch was not taken"


def test_the_rewritten_graph_is_eager_mode(variant: dict) -> None:
    """The TorchScript export of the rewritten model equals eager mode at other sizes and on constant images
    (owndet's own NMS is itself a greedy loop that TRT397 rewrites and a stable sort: its graph is checked by its
    migrate run in test_per_class_nms.py). Fills of +-20 are left to eager mode: there tkdetection's decode
    ``exp(delta)`` makes boxes from a hundredth of a pixel to millions of pixels wide, and the span that moves the
    classes apart rounds the small ones away (the rule's stated limit: boxes not much wider than a float32 step of
    the moved distance)."""
    if variant["name"] not in MIGRATED:
        return
    module, original = variant["module"], variant["original"]
    example = module.inputs(seeded(0))
    session, _ = export_variant(variant["rewritten"], example, module.DYNAMIC, variant["folder"] / "after.onnx",
                                variant["folder"])
    for label, inputs in _image_sets(module, fills=()).items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    for label, inputs in _image_sets(module, fills=(-1, 0, 1)).items():
        if label.startswith("fill"):
            # tied scores: the sort by score after the loop orders ties as it likes, in torch and in ONNX Runtime
            # alike (not the rewrite's doing): the same rows, in any order
            with torch.no_grad():
                want = original(*inputs).numpy()
            [got] = session.run(None, {"image": inputs[0].numpy()})
            assert got.shape == want.shape, (label, got.shape, want.shape)
            ordered = [rows[np.lexsort(rows.T[::-1])] for rows in (got, want)]
            assert np.allclose(*ordered, rtol=0, atol=1e-4), (label, *ordered)


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_the_rule_at_the_loop(name: str, tmp_path: Path) -> None:
    source = HERE / f"{name}.py"
    line = _loop_line(source, load_variant(source, f"trt738_migrated_{name}").CALL)
    _, report = migrate_with_standin(source, TORCHVISION_STANDIN, tmp_path, f"trt738_migrate_{name}")
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT738", line) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
