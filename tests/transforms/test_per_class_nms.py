"""TRT738: NMS run class by class over ``labels.unique()``, one NMS call on boxes moved apart by class while tracing.

The spellings are our own, after real code: owndet 0.1.0's ``class_aware_nms`` (``torch.unique(labels,
sorted=True)``, ``torch.nonzero(..., as_tuple=False).squeeze(1)``), a class-aware helper of a segmentation tool
(``labels.unique()``, the chunks concatenated and sorted by score), a test-time-augmentation merge
(``(labels == c).nonzero(as_tuple=True)[0]``, the list concatenated only where it holds anything), a page-layout
detector's evaluation (a mask per class, ``if m.sum() == 0: continue``, the kept positions mapped back through
``torch.nonzero(m)``), a per-class helper that binds the unique labels first and unpacks ``torch.where``, and
torchvision's own ``_batched_nms_vanilla`` (the kept positions set in a mask), detectron2's ``batched_nms`` (the labels
through ``torch.jit.annotate(List[int], torch.unique(idxs).cpu().tolist())``) and an anchor-free detector's
``class_spec_nms_`` (the class's rows bound to names, its positions ``torch.arange(n)[class_mask]``). For each:
the rewrite's text; eager mode unchanged; the original's TorchScript export keeps the example's classes and differs
on another set, the rewritten one's equals eager mode on boxes with other classes, one class, no box, negative
corners, tied scores and float labels. Not taken: a per-class cap, soft-NMS, the list read as a list, `unique` asked
for more than its values or reordered, a range that does not start at 0, picked rows bound again, and a loop doing
anything else. The reduced owndet variant (tests/recipe_variants/trt738/)
migrates to exit 0 with TRT397 and TRT738 applied.
"""

from __future__ import annotations

import io
import re
import shutil
import sys
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import rewrite, rules_found
from variant_models import TORCHVISION_STANDIN, axes_json, built_variant, random_boxes

import torchvision_standin
from trtcodemod.helpers.suppression import _trt_by_class, _trt_classes_apart

RULE = ("TRT738",)
VARIANTS = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt738"


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


_HEADER = "import torch\nimport torchvision\n\nnms = torchvision.ops.nms\n\n"

#: name -> (a function `suppress(boxes, scores, labels)` returning kept positions, the tracing line expected)
SPELLINGS = {
    "owndet": ('''
def suppress(boxes, scores, labels):
    kept_per_class = []
    for label in torch.unique(labels, sorted=True):
        class_indices = torch.nonzero(labels == label, as_tuple=False).squeeze(1)
        local_keep = nms(boxes[class_indices], scores[class_indices], 0.5)
        kept_per_class.append(class_indices[local_keep])
    return torch.cat(kept_per_class)
''', "kept_per_class = [_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, 0.5), labels)]"),
    "chunks sorted by score": ('''
def suppress(boxes, scores, labels):
    keep_chunks = []
    for label in labels.unique():
        idx = torch.nonzero(labels == label).squeeze(1)
        label_keep = nms(boxes[idx], scores[idx], 0.5)
        keep_chunks.append(idx[label_keep])
    keep = torch.cat(keep_chunks)
    order = scores[keep].argsort(descending=True)
    return keep[order]
''', "keep_chunks = [_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, 0.5), labels)]"),
    "as_tuple, guarded cat": ('''
def suppress(boxes, scores, labels):
    keep_all = []
    for c in labels.unique():
        idx = (labels == c).nonzero(as_tuple=True)[0]
        keep = nms(boxes[idx], scores[idx], 0.5)
        keep_all.append(idx[keep])
    keep_all = torch.cat(keep_all) if keep_all else torch.zeros((0,), dtype=torch.long)
    return keep_all
''', "keep_all = [_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, 0.5), labels)]"),
    "mask, skip, mapped inline": ('''
def suppress(boxes, scores, labels):
    final_keep = []
    for c in labels.unique():
        m = (labels == c)
        if m.sum() == 0: continue
        idx = torchvision.ops.nms(boxes[m], scores[m], 0.5)
        sel = torch.nonzero(m, as_tuple=False).squeeze(1)[idx]
        final_keep.append(sel)
    if len(final_keep):
        final_keep = torch.cat(final_keep, dim=0)
    else:
        final_keep = torch.zeros((0,), dtype=torch.long)
    return final_keep
''', "final_keep = [_trt_by_class(torchvision.ops.nms(_trt_classes_apart(boxes, labels), scores, 0.5), labels)]"),
    "bound unique, where unpacked": ('''
def suppress(boxes, scores, labels, iou_threshold=0.5):
    unique_labels = labels.unique()
    keep = []
    for c in unique_labels:
        (pos,) = torch.where(labels == c)
        k = torchvision.ops.nms(boxes[pos], scores[pos], iou_threshold=iou_threshold)
        keep.append(pos[k])
    return torch.cat(keep)
''', "keep = [_trt_by_class(torchvision.ops.nms(_trt_classes_apart(boxes, labels), scores, "
     "iou_threshold=iou_threshold), labels)]"),
    # facebookresearch/detectron2's `batched_nms` (tests/recipe_variants/trt738/detectron2_batched_nms.py): the class
    # ids as Python ints through `.cpu().tolist()`, annotated for the scripting compiler; the kept positions in a mask
    "ints for the labels, annotated": ('''
from typing import List


def suppress(boxes, scores, labels):
    result_mask = scores.new_zeros(scores.size(), dtype=torch.bool)
    for id in torch.jit.annotate(List[int], torch.unique(labels).cpu().tolist()):
        mask = (labels == id).nonzero().view(-1)
        keep = nms(boxes[mask], scores[mask], 0.5)
        result_mask[mask[keep]] = True
    keep = result_mask.nonzero().view(-1)
    return keep[scores[keep].argsort(descending=True)]
''', "result_mask[nms(_trt_classes_apart(boxes, labels), scores, 0.5)] = True"),
    # an anchor-free detector's `class_spec_nms_` (tests/recipe_variants/trt738/anchor_free_class_spec_nms.py): the
    # class's rows bound to names, its positions a range picked by its mask, `torch.concat`
    "rows named, positions from a range": ('''
def suppress(boxes, scores, class_labels):
    unique_class_labels = class_labels.unique()
    keep = []
    index_tensor = torch.arange(boxes.shape[0])
    for class_label in unique_class_labels:
        class_mask = (class_labels == class_label)
        class_boxes = boxes[class_mask]
        class_scores = scores[class_mask]
        class_index = index_tensor[class_mask]
        keep_indices = torchvision.ops.nms(class_boxes, class_scores, 0.5)
        keep.append(class_index[keep_indices])
    keep = torch.concat(keep, dim=0)
    return keep
''', "keep = [_trt_by_class(torchvision.ops.nms(_trt_classes_apart(boxes, class_labels), scores, 0.5), "
     "class_labels)]"),
    # pytorch/vision @ 2f3a43fbca2070ca6f0a863e7e92fcd750eb0c1a torchvision/ops/boxes.py `_batched_nms_vanilla`: the
    # kept positions set in a mask, read back in ascending order and sorted by score
    "torchvision's mask": ('''
def suppress(boxes, scores, idxs, iou_threshold=0.5):
    keep_mask = torch.zeros_like(scores, dtype=torch.bool)
    for class_id in torch.unique(idxs):
        curr_indices = torch.where(idxs == class_id)[0]
        curr_keep_indices = nms(boxes[curr_indices], scores[curr_indices], iou_threshold)
        keep_mask[curr_indices[curr_keep_indices]] = True
    keep_indices = torch.where(keep_mask)[0]
    return keep_indices[scores[keep_indices].sort(descending=True)[1]]
''', "keep_mask[nms(_trt_classes_apart(boxes, idxs), scores, iou_threshold)] = True"),
}

_MODEL = '''

class Model(torch.nn.Module):
    def forward(self, boxes, scores, labels):
        kept = suppress(boxes, scores, labels)
        return boxes[kept], scores[kept], labels[kept]
'''


def _sets() -> dict[str, tuple[torch.Tensor, ...]]:
    boxes, scores, labels = random_boxes(30, 5)
    tied = scores.clone()
    tied[::2] = 0.5
    return {
        "other classes": random_boxes(25, 1, classes=5),
        "one class": random_boxes(20, 2, classes=1),
        "one box": random_boxes(1, 3),
        "no box": (torch.zeros(0, 4), torch.zeros(0), torch.zeros(0, dtype=torch.long)),
        "negative corners": random_boxes(24, 4, low=-60.0),
        "tied scores": (boxes, tied, labels),
        "zeros": (torch.zeros(6, 4), torch.zeros(6), torch.tensor([0, 1, 0, 1, 2, 2])),
        "negative labels": (boxes, scores, labels - 2),
    }


def _export(model: torch.nn.Module, example: tuple, path: Path) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17,
                          input_names=["boxes", "scores", "labels"], output_names=["b", "s", "l"],
                          dynamic_axes={"boxes": {0: "n"}, "scores": {0: "n"}, "labels": {0: "n"}})
    path.write_bytes(buffer.getvalue())
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _matches(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, as_sets: bool = False) -> bool:
    """The graph's outputs equal eager mode's, in order (``as_sets``: the same rows in any order)."""
    expected = model(*inputs)
    try:
        got = session.run(None, {"boxes": inputs[0].numpy(), "scores": inputs[1].numpy(),
                                 "labels": inputs[2].numpy()})
    except Exception:  # noqa: BLE001 - ONNX Runtime refusing the unrolled graph counts as a difference
        return False
    if any(tuple(g.shape) != tuple(e.shape) for g, e in zip(got, expected)):
        return False
    rows = [torch.cat([torch.from_numpy(g).reshape(len(g), -1).double() for g in got], 1) if len(got[0]) else None,
            torch.cat([e.reshape(len(e), -1).double() for e in expected], 1) if len(expected[0]) else None]
    if rows[0] is None:
        return True  # both empty, of the same shapes
    if as_sets:
        rows = [r[torch.argsort(r[:, 0] * 1e6 + r[:, 1])] for r in rows]
    return rows[0].shape == rows[1].shape and torch.equal(rows[0], rows[1])


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_is_one_nms_call_while_tracing_and_the_loop_otherwise(name, tmp_path):
    code, tracing = SPELLINGS[name]
    source = _HEADER + code + _MODEL
    assert rules_found(source, select=RULE) == ["TRT738"]
    assert rewrite(source, select=RULE) == source  # unsafe: nothing without --unsafe
    fixed = rewrite(source, unsafe=True, select=RULE)
    assert tracing in fixed, fixed
    assert "if not torch.jit.is_scripting() and _trt_tracing():" in fixed
    original = import_source(source, tmp_path)["Model"]()
    rewritten = import_source(fixed, tmp_path)["Model"]()
    example = random_boxes(30, 0, classes=2)
    sets = _sets()
    raising = set()
    for label, inputs in {"example": example, **sets}.items():  # eager mode: the loop itself, its errors too
        try:
            expected = original(*inputs)
        except ValueError as error:  # `torch.cat` of no class at all, where the code does not guard it
            with pytest.raises(ValueError, match=re.escape(str(error))):
                rewritten(*inputs)
            raising.add(label)
            continue
        for before, after in zip(expected, rewritten(*inputs)):
            assert torch.equal(before, after), label
    baked = _export(original, example, tmp_path / "before.onnx")
    assert not _matches(baked, original, sets["other classes"])  # the example's two classes, unrolled
    session = _export(rewritten, example, tmp_path / "after.onnx")
    kinds = {node.op_type for node in onnx.load(str(tmp_path / "after.onnx")).graph.node}
    assert "NonMaxSuppression" in kinds and "Unique" not in kinds and "Loop" not in kinds, kinds
    for label, inputs in {"example": example, **sets}.items():
        if label not in raising:
            # tied scores: an `argsort` of the kept scores after the loop orders ties as it likes, in torch and in
            # ONNX Runtime alike (not the rewrite's doing): the same rows, in any order
            assert _matches(session, original, inputs, as_sets=label == "tied scores"), label
    assert raising <= {"no box"}, raising


def test_float_labels_and_every_order_kept_as_the_loop_keeps_them():
    """The helpers alone: one NMS on boxes moved apart, ordered by class, equals the loop's list on random sets
    (integer and float labels, negative labels, negative corners, empty)."""
    generator = torch.Generator().manual_seed(7)
    for trial in range(120):
        count = int(torch.randint(0, 40, (1,), generator=generator))
        corner = torch.rand(count, 2, generator=generator) * 60 - 20
        boxes = torch.cat([corner, corner + torch.rand(count, 2, generator=generator) * 25], 1)
        scores = torch.rand(count, generator=generator)
        labels = torch.randint(-2, 5, (count,), generator=generator)
        if trial % 2:
            labels = labels.float()
        kept = []
        for label in labels.unique():
            members = (labels == label).nonzero(as_tuple=True)[0]
            kept.append(members[torchvision_standin.ops.nms(boxes[members], scores[members], 0.4)])
        expected = torch.cat(kept) if kept else torch.zeros(0, dtype=torch.long)
        got = _trt_by_class(torchvision_standin.ops.nms(_trt_classes_apart(boxes, labels), scores, 0.4), labels)
        assert torch.equal(expected, got), trial


NOT_TAKEN = {
    "a cap per class": SPELLINGS["owndet"][0].replace("scores[class_indices], 0.5)",
                                                      "scores[class_indices], 0.5, max_detections=5)"),
    "soft-NMS": SPELLINGS["owndet"][0].replace("local_keep = nms(", "local_keep = soft_nms("),
    "the list counted": SPELLINGS["owndet"][0].replace("    return torch.cat(kept_per_class)",
                                                       "    return torch.cat(kept_per_class), len(kept_per_class)"),
    "unique with counts": SPELLINGS["owndet"][0].replace("torch.unique(labels, sorted=True)",
                                                         "torch.unique(labels, return_counts=True)[0]"),
    "other work in the loop": SPELLINGS["owndet"][0].replace(
        "        kept_per_class.append(class_indices[local_keep])",
        "        kept_per_class.append(class_indices[local_keep])\n        scores = scores * 0.5"),
    "another label than the loop's": SPELLINGS["owndet"][0].replace("labels == label", "labels == 1"),
    "the background class skipped": SPELLINGS["mask, skip, mapped inline"][0].replace(
        "if m.sum() == 0: continue", "if c == 0: continue"),
    # a range from 1: its entries picked by the mask are not the class's positions
    "a range that does not start at 0": SPELLINGS["rows named, positions from a range"][0].replace(
        "torch.arange(boxes.shape[0])", "torch.arange(1, boxes.shape[0] + 1)"),
    # a float range: the positions it gives are float, where the rewrite's are int64
    "a float range": SPELLINGS["rows named, positions from a range"][0].replace(
        "torch.arange(boxes.shape[0])", "torch.arange(boxes.shape[0], dtype=torch.float32)"),
    # the range bound again in the loop, to the class's boxes: no longer the positions
    "the range bound again in the loop": SPELLINGS["rows named, positions from a range"][0].replace(
        "        class_index = index_tensor[class_mask]",
        "        index_tensor = boxes[class_mask]\n        class_index = index_tensor[class_mask]"),
    # the picked rows bound again after the NMS call (the call read the first binding)
    "the picked rows bound again": SPELLINGS["rows named, positions from a range"][0].replace(
        "        keep.append(class_index[keep_indices])",
        "        keep.append(class_index[keep_indices])\n        class_boxes = scores[class_mask]"),
    # the unique values reordered before the loop: not the classes in ascending order
    "the unique values reversed": SPELLINGS["ints for the labels, annotated"][0].replace(
        "torch.unique(labels).cpu().tolist()", "torch.unique(labels).flip(0).cpu().tolist()"),
}


@pytest.mark.parametrize("name", sorted(NOT_TAKEN))
def test_loops_that_are_not_the_recipe_are_left_alone(name):
    assert rules_found(_HEADER + NOT_TAKEN[name], select=RULE) == []


def test_owndet_variant_migrates_with_the_greedy_loop_and_the_class_loop(tmp_path):
    """owndet's own greedy `nms` run class by class: migrate applies TRT397 to the greedy loop and TRT738 to the class
    loop, and ends at exit 0, equivalent, on a graph with one NMS node."""
    from support import migrate_json

    source = VARIANTS / "owndet_class_aware_nms.py"
    path = tmp_path / source.name
    shutil.copy(source, path)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(TORCHVISION_STANDIN, tmp_path / "torchvision" / "__init__.py")
    module, _ = built_variant(source, "owndet_class_aware_nms_variant")
    report = migrate_json(path, axes_json(module))
    [loop] = [i for i, text in enumerate(source.read_text().splitlines(), 1) if text.strip() == module.CALL]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT738", loop) in applied and any(rule == "TRT397" for rule, _ in applied), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
