"""TRT361 with TRT360's list of one result an image: a per-image NMS loop that returns a list, and its caller that
flattens the list into rows with the image's index, taken flattened while tracing."""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found
from test_per_image_nms import _export

import torchvision_standin

RULES = ("TRT360", "TRT361")


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)
    # `from torchvision.ops.boxes import batched_nms`: the stand-in's functions as that module's
    monkeypatch.setitem(sys.modules, "torchvision.ops", torchvision_standin.ops)
    monkeypatch.setitem(sys.modules, "torchvision.ops.boxes", torchvision_standin.ops)


# The library's per-image loop returns one dict an image: our own re-writing of Holocron's YOLO post-processing
# (pylocron 0.3.0, holocron/models/detection/yolo.py:196-211, `_post_process`: the best class by `max(dim=-1)`,
# objectness multiplied in place, `boxes[idx, score_mask]`, class-wise `batched_nms` with a keyword threshold,
# an annotated empty list). The callers flatten it with the image's index: a loop over `enumerate` of a call
# (benchmarks/real_zoo22.py's `_HOLO_ROWS`) and YOLOv7's comprehension (benchmarks/real_zoo19.py's `_ROWS`).
SOURCE = """\
import torch
import torchvision
from torch import Tensor
from torchvision.ops.boxes import batched_nms


def per_image(boxes: Tensor, objectness: Tensor, classes: Tensor, iou: float = 0.5,
              threshold: float = 0.2) -> list[dict[str, Tensor]]:
    found: list[dict[str, Tensor]] = []
    for n in range(boxes.shape[0]):
        best, label = classes[n].max(dim=-1)
        best *= objectness[n]
        keep = best >= threshold
        picked, best, label = boxes[n, keep], best[keep], label[keep]
        kept = batched_nms(picked, best, label, iou_threshold=iou)
        found.append({"boxes": picked[kept], "scores": best[kept], "labels": label[kept]})
    return found


def per_image_rows(boxes: Tensor, scores: Tensor, iou: float = 0.5) -> list[Tensor]:
    found = []
    for n in range(boxes.shape[0]):
        kept = torchvision.ops.nms(boxes[n], scores[n], iou)
        found.append(torch.cat([boxes[n][kept], scores[n][kept, None]], 1))
    return found


def decode(x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    corner = x[..., :2].sigmoid() * 8
    boxes = torch.cat([corner, corner + x[..., 2:4].sigmoid() * 4], -1)
    return boxes, x[..., 4].sigmoid(), x[..., 5:].softmax(-1)


class Dicts(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        rows = []
        for i, det in enumerate(per_image(*decode(x))):
            rows.append(torch.cat([det['boxes'], det['scores'][:, None], det['labels'][:, None].to(x.dtype),
                                   torch.full_like(det['scores'][:, None], i)], 1))
        return torch.cat(rows)


class Listed(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        boxes, objectness, classes = decode(x)
        out = per_image_rows(boxes, objectness)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])


class Zipped(torch.nn.Module):
    # the index beside the entries by `zip(range(len(out)), out)`
    def forward(self, x: Tensor) -> Tensor:
        out = per_image(*decode(x))
        rows = []
        for i, det in zip(range(len(out)), out):
            rows.append(torch.cat([det['boxes'], torch.full_like(det['scores'][:, None], i)], 1))
        return torch.cat(rows)


# torchvision's RoI formats (our own re-writings of torchvision 0.29.1's ops/_utils.py:18-25,
# `convert_boxes_to_roi_format`, and ops/poolers.py:87-95, `_convert_to_roi_format`): the rows concatenated apart from
# the image column, which a loop or a comprehension along dim=0 makes (`full_like` with keywords there); mmdet's
# `bbox2roi` (open-mmlab/mmdetection@6fc47b7f592181ecc442d61da4a331469059eeda mmdet/structures/bbox/transforms.py:82-102):
# the loop binds `rois`, which the block binds again before reading it.
def roi_rows(boxes: list[Tensor]) -> Tensor:
    joined = torch.cat([b for b in boxes], dim=0)
    column = []
    for i, b in enumerate(boxes):
        column.append(torch.full_like(b[:, :1], i))
    return torch.cat([torch.cat(column, dim=0), joined], dim=1)


def pooler_rows(boxes: list[Tensor]) -> Tensor:
    joined = torch.cat(boxes, dim=0)
    ids = torch.cat([torch.full_like(b[:, :1], i, dtype=torch.float64, device=joined.device)
                     for i, b in enumerate(boxes)], dim=0)
    return torch.cat([ids, joined.double()], dim=1)


def bbox_rois(bbox_list: list[Tensor]) -> Tensor:
    joined = []
    for n, b in enumerate(bbox_list):
        column = b.new_full((b.shape[0], 1), n)
        out = torch.cat([column, b], 1)
        joined.append(out)
    out = torch.cat(joined)
    return out


class RoiRows(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        boxes, objectness, classes = decode(x)
        return roi_rows(per_image_rows(boxes, objectness))


class PoolerRows(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        boxes, objectness, classes = decode(x)
        return pooler_rows(per_image_rows(boxes, objectness))


class BboxRois(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        boxes, objectness, classes = decode(x)
        return bbox_rois(per_image_rows(boxes, objectness))


class Stacked(torch.nn.Module):
    # the list itself, used another way: each entry as the loop made it
    def forward(self, x: Tensor) -> list[dict[str, Tensor]]:
        return per_image(*decode(x))
"""
NAMES = ("Dicts", "Listed", "Zipped", "RoiRows", "PoolerRows", "BboxRois")


def _inputs(batch: int, generator: torch.Generator, candidates: int = 40) -> torch.Tensor:
    return torch.randn(batch, candidates, 8, generator=generator) * 2


def test_the_rewrite() -> None:
    after = rewrite(SOURCE, select=RULES, unsafe=True)
    assert ("    found: list[dict[str, Tensor]] = []\n"
            "    if not torch.jit.is_scripting() and _trt_tracing():\n"
            "        _trt_n = classes.shape[1]\n"
            "        _trt_count = classes.shape[0]\n"
            "        _trt_image = torch.arange(_trt_count * _trt_n, device=classes.device) // _trt_n\n"
            "        best, label = classes.flatten(0, 1).max(dim=-1)\n"
            "        best *= objectness.flatten(0, 1)\n"
            "        keep = best >= threshold\n"
            "        picked, best, label = boxes.flatten(0, 1)[keep], best[keep], label[keep]\n"
            "        kept = _trt_nms_by_image(picked, best, label, _trt_image[keep], iou, _trt_count)\n"
            "        found = _trt_per_image_list({\"boxes\": picked[kept], \"scores\": best[kept], "
            "\"labels\": label[kept]}, _trt_image[keep][kept], _trt_count)\n"
            "    else:\n"
            "        for n in range(boxes.shape[0]):\n") in after
    assert ("        rows = []\n"
            "        _trt_results = per_image(*decode(x))\n"
            "        _trt_flat = None\n"
            "        if not torch.jit.is_scripting() and _trt_tracing():\n"
            "            _trt_flat = _trt_flat_rows(_trt_results)\n"
            "        if _trt_flat is not None:\n"
            "            _trt_flat_image = _trt_flat_images(_trt_results)\n"
            "            rows.append(torch.cat([_trt_flat['boxes'], _trt_flat['scores'][:, None], "
            "_trt_flat['labels'][:, None].to(x.dtype), "
            "_trt_image_fill(_trt_flat['scores'][:, None], _trt_flat_image)], 1))\n"
            "        else:\n"
            "            for i, det in enumerate(_trt_results):\n") in after
    assert ("        _trt_flat = None\n"
            "        if not torch.jit.is_scripting() and _trt_tracing():\n"
            "            _trt_flat = _trt_flat_rows(out)\n"
            "        if _trt_flat is not None:\n"
            "            _trt_flat_image = _trt_flat_images(out)\n"
            "            return torch.cat([torch.cat([_trt_flat, _trt_image_fill(_trt_flat[:, :1], _trt_flat_image)], "
            "1)])\n"
            "        else:\n"
            "            return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in "
            "enumerate(out)])\n") in after
    assert ("            _trt_flat_image = _trt_flat_images(out)\n"
            "            rows.append(torch.cat([_trt_flat['boxes'], "
            "_trt_image_fill(_trt_flat['scores'][:, None], _trt_flat_image)], 1))\n"
            "        else:\n"
            "            for i, det in zip(range(len(out)), out):\n") in after
    assert "found = _trt_per_image_list(torch.cat([boxes.flatten(0, 1)[kept], scores.flatten(0, 1)[kept, None]]" \
        in after
    assert rewrite(after, select=RULES, unsafe=True) == after  # idempotent


def test_the_rewrite_of_the_roi_formats() -> None:
    after = rewrite(SOURCE, select=RULES, unsafe=True)
    flat = ("    _trt_flat = None\n"
            "    if not torch.jit.is_scripting() and _trt_tracing():\n"
            "        _trt_flat = _trt_flat_rows(boxes)\n"
            "    if _trt_flat is not None:\n"
            "        _trt_flat_image = _trt_flat_images(boxes)\n")
    assert (f"{flat}        joined = torch.cat([_trt_flat], dim=0)\n"
            "    else:\n"
            "        joined = torch.cat([b for b in boxes], dim=0)\n"
            "    column = []\n"
            f"{flat}        column.append(_trt_image_fill(_trt_flat[:, :1], _trt_flat_image))\n"
            "    else:\n"
            "        for i, b in enumerate(boxes):\n") in after
    assert (f"{flat}        joined = torch.cat([_trt_flat], dim=0)\n"
            "    else:\n"
            "        joined = torch.cat(boxes, dim=0)\n"
            f"{flat}        ids = torch.cat([_trt_image_fill(torch.full_like(_trt_flat[:, :1], 0, dtype=torch.float64, "
            "device=joined.device), _trt_flat_image)], dim=0)\n"
            "    else:\n") in after
    assert ("        _trt_flat_image = _trt_flat_images(bbox_list)\n"
            "        column = _trt_image_fill(_trt_flat.new_full((_trt_flat.shape[0], 1), 0), _trt_flat_image)\n"
            "        out = torch.cat([column, _trt_flat], 1)\n"
            "        joined.append(out)\n"
            "    else:\n"
            "        for n, b in enumerate(bbox_list):\n") in after


@pytest.mark.parametrize("code", [
    # no loop over the list that this rule takes: a concatenation alone is not a flattening with the image's index
    "    return torch.cat(boxes, dim=0)\n",
    # along another axis
    "    joined = torch.cat(boxes, 1)\n    for i, b in enumerate(boxes):\n        column.append(torch.full_like(b, i))\n"
    "    return joined, torch.cat(column)\n",
])
def test_other_concatenations_are_left_alone(code: str) -> None:
    found = rewrite(f"import torch\n\ndef f(boxes):\n    column = []\n{code}", select=("TRT361",), unsafe=True)
    assert "torch.cat([_trt_flat]" not in found


@pytest.mark.parametrize("after", [
    "    rois = rois + 1\n    return torch.cat(rows), rois\n",  # the loop's last `rois`, read as it rebinds it
    "    rows = torch.cat(rows)\n    return rows, rois\n",  # read before any rebinding
    "    if rows:\n        rois = torch.cat(rows)\n    return rois\n",  # rebound only on one path
])
def test_a_name_the_loop_binds_read_afterwards_keeps_the_loop(after: str) -> None:
    code = ("import torch\n\ndef f(results):\n    rows = []\n    for i, det in enumerate(results):\n"
            "        rois = torch.cat([det, torch.full_like(det[:, :1], i)], 1)\n        rows.append(rois)\n" + after)
    assert rules_found(code, select=("TRT361",)) == []
    rebound = code.split("        rows.append(rois)\n")[0] + "        rows.append(rois)\n    rois = torch.cat(rows)\n" \
        "    return rois\n"
    assert rules_found(rebound, select=("TRT361",)) == ["TRT361"]


def test_a_fill_whose_keywords_read_the_entry_is_left_alone() -> None:
    code = ("import torch\n\ndef f(out):\n"
            "    return torch.cat([torch.full_like(d[:, :1], i, dtype=d.dtype) for i, d in enumerate(out)], dim=0)\n")
    assert rules_found(code, select=("TRT361",)) == []
    assert rules_found(code.replace("d.dtype", "torch.float64"), select=("TRT361",)) == ["TRT361"]


def _namespaces(tmp_path) -> tuple[dict, dict]:
    return import_source(SOURCE, tmp_path), import_source(rewrite(SOURCE, select=RULES, unsafe=True), tmp_path)


def _edge_inputs(batch: int, generator: torch.Generator) -> list[torch.Tensor]:
    x = _inputs(batch, generator)
    none_kept = x.clone()
    none_kept[..., 4] = -50.0  # no objectness: no candidate passes the score filter
    ties = x.clone()
    ties[:, 1::2] = ties[:, 0::2]  # every box twice with the same score: NMS keeps one of each pair
    odd = x.clone()
    if batch:
        odd[0, 0, :4] = torch.tensor([float("inf"), -float("inf"), float("nan"), 0.0])
    return [x, torch.zeros_like(x), -x.abs(), none_kept, ties, odd]


@pytest.mark.parametrize("name", NAMES)
def test_eager_code_runs_the_loops(name: str, tmp_path) -> None:
    before, after = _namespaces(tmp_path)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(0)
    for batch in (1, 2, 3, 0):  # no image: torch.cat([]) raises in both
        for x in _edge_inputs(batch, generator):
            assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=f"{name} {batch}")


def test_a_list_of_another_origin_takes_the_loop(tmp_path) -> None:
    _, after = _namespaces(tmp_path)
    rows = [{"boxes": torch.ones(2, 4), "scores": torch.ones(2), "labels": torch.zeros(2, dtype=torch.long)}]
    assert after["_trt_flat_rows"](rows) is None and after["_trt_flat_rows"](torch.ones(2)) is None


def _tracing(monkeypatch, namespace: dict) -> None:
    monkeypatch.setitem(namespace, "_trt_tracing", lambda: True)


@pytest.mark.parametrize("name", NAMES)
def test_the_flattened_branches_keep_the_loops_rows(name: str, tmp_path, monkeypatch) -> None:
    before, after = _namespaces(tmp_path)
    _tracing(monkeypatch, after)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(1)
    for batch in (1, 2, 3, 5):
        for x in _edge_inputs(batch, generator)[:5]:  # finite values: NMS of NaN boxes is unordered
            expected, got = original(x), rewritten(x)
            assert expected.dtype == got.dtype and torch.equal(expected, got), (name, batch)


def test_the_list_is_the_loops_list(tmp_path, monkeypatch) -> None:
    before, after = _namespaces(tmp_path)
    _tracing(monkeypatch, after)
    generator = torch.Generator().manual_seed(3)
    for batch in (1, 3):
        for x in _edge_inputs(batch, generator)[:5]:
            expected, got = before["Stacked"]()(x), after["Stacked"]()(x)
            assert len(expected) == len(got) == batch and hasattr(got, "trt_flat")
            for one, other in zip(expected, got):
                assert list(one) == list(other)
                assert all(one[k].dtype == other[k].dtype and torch.equal(one[k], other[k]) for k in one)


@pytest.mark.parametrize("name", NAMES)
def test_the_exported_graph_follows_the_batch(name: str, tmp_path) -> None:
    before, after = _namespaces(tmp_path)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(2)
    session = _export(original, [_inputs(2, generator)])
    x = _inputs(3, generator)
    try:
        (got,) = session.run(None, {"in0": x.numpy()})
    except Exception:  # noqa: BLE001 - ONNX Runtime's refusal is the symptom too
        got = None
    assert got is None or got.shape != tuple(original(x).shape)  # the graph keeps the example's two images
    session = _export(rewritten, [_inputs(2, generator)])
    for batch in (2, 3, 1, 5):
        x = _inputs(batch, generator)
        (got,) = session.run(None, {"in0": x.numpy()})
        expected = original(x)
        assert got.shape == tuple(expected.shape), (name, batch)
        assert torch.allclose(torch.from_numpy(got), expected, atol=1e-5), (name, batch)  # ORT's sigmoid rounding


def test_a_script_compiles_none_of_it(tmp_path) -> None:
    before, after = _namespaces(tmp_path)
    x = _inputs(2, torch.Generator().manual_seed(4))
    # Dicts: the stand-in's `torchvision.ops` is a namespace a script cannot read as `torchvision.ops.nms` (Listed)
    assert torch.equal(torch.jit.script(after["Dicts"]())(x), before["Dicts"]()(x))
    assert torch.equal(torch.jit.script(before["Dicts"]())(x), before["Dicts"]()(x))


@pytest.mark.parametrize("loop", [
    # no image column: not a flattening with the image's index
    "    for i, det in enumerate(results):\n        rows.append(det['boxes'])\n",
    # the image's index as a number
    "    for i, det in enumerate(results):\n        rows.append(det['boxes'][:i])\n",
    # another call on the entry
    "    for i, det in enumerate(results):\n        rows.append(torch.full_like(mine(det['boxes']), i))\n",
])
def test_other_loops_are_left_alone(loop: str) -> None:
    code = f"import torch\n\ndef f(results, mine):\n    rows = []\n{loop}    return torch.cat(rows)\n"
    assert rules_found(code, select=("TRT361",)) == []


_NONE_SKIP = ("import torch\n\ndef f(results):\n    rows = {made}\n    for i, det in enumerate(results):\n{skip}"
              "        rows.append(torch.cat([det, torch.full((det.shape[0], 1), float(i))], 1))\n"
              "    return torch.cat(rows)\n")


@pytest.mark.parametrize("made,skip,taken", [
    # a wrapper over YOLOX's `postprocess` (zoo 89): TRT360's list holds no None, the skip never runs while tracing
    ("[torch.zeros(0, 8)]", "        if det is None:\n            continue\n", True),
    ("[]", "        if det is None:\n            continue\n", True),
    # a skip of an image without rows: every later append under a test that some image has rows
    ("[]", "        if det.shape[0] == 0:\n            continue\n", True),
    # a skip of something else, a skip that does more, a start that is not empty
    ("[]", "        if det.shape[0] == 1:\n            continue\n", False),
    ("[]", "        if det is None:\n            rows.append(torch.zeros(1, 8))\n            continue\n", False),
    ("[torch.zeros(1, 8)]", "", False),
])
def test_a_skip_of_none_entries_and_an_empty_start(made: str, skip: str, taken: bool) -> None:
    code = _NONE_SKIP.format(made=made, skip=skip)
    assert (rules_found(code, select=("TRT361",)) == ["TRT361"]) is taken
    if taken:
        after = rewrite(code, unsafe=True, select=("TRT361",))
        flat = after.split("def f(")[1].split("    if _trt_flat is not None:\n")[1].split("    else:\n")[0]
        assert "None" not in flat and "continue" not in flat
        assert textwrap.indent(skip, "    ") in after  # kept in the loop for other lists


def test_an_index_that_may_stop_early_is_left_alone() -> None:
    code = ("import torch\n\ndef f(results, n):\n    rows = []\n    for i, det in zip(range(n), results):\n"
            "        rows.append(torch.full_like(det['boxes'], i))\n    return torch.cat(rows)\n")
    assert rules_found(code, select=("TRT361",)) == []
    assert rules_found(code.replace("range(n)", "range(len(results))"), select=("TRT361",)) == ["TRT361"]


def test_a_comprehension_over_a_call_is_left_alone() -> None:
    # the list would be computed twice
    code = ("import torch\n\ndef f(m, x):\n    return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) "
            "for i, d in enumerate(m(x))])\n")
    assert rules_found(code, select=("TRT361",)) == []


def test_a_list_whose_images_a_continue_skips_is_named() -> None:
    code = ("import torch\nimport torchvision\n\ndef f(boxes, scores):\n    found = []\n"
            "    for n in range(boxes.shape[0]):\n        keep = torch.where(scores[n] > 0.5)[0]\n"
            "        if not keep.numel():\n            continue\n"
            "        keep = keep[torchvision.ops.nms(boxes[n][keep], scores[n][keep], 0.5)]\n"
            "        found.append(boxes[n][keep])\n    return found\n")
    assert rewrite(code, select=RULES, unsafe=True) == code


def test_a_reverted_rewrite_gives_the_per_image_step() -> None:
    from trtcodemod.migrate.manual_steps import PER_IMAGE_NMS_STEP, manual_step

    for rule in RULES:
        entry = {"rule": rule, "severity": "error", "kind": "baked", "op": "(unrolled loop)",
                 "message": "fix reverted: not proved: the rewritten model's graph still differs"}
        assert manual_step(entry) == PER_IMAGE_NMS_STEP


@pytest.mark.parametrize("body", [
    # in place on a view of an input: the flattened view may be a copy (or write the caller's tensor)
    "        best = classes[n][:, 0]\n        best *= objectness[n]\n",
    # a mask of rows already picked, beside the image's index: not the image's own candidates
    "        high = best[best >= 0.2] > 0.5\n        picked = boxes[n, high]\n",
    # a reduction across the candidates
    "        best, label = classes[n].max(dim=0)\n",
])
def test_per_image_lists_it_cannot_carry_over_are_named(body: str) -> None:
    code = ("import torch\nimport torchvision\n\ndef f(boxes, objectness, classes):\n    found = []\n"
            "    for n in range(boxes.shape[0]):\n        best, label = classes[n].max(dim=-1)\n"
            f"{body}"
            "        keep = best >= 0.2\n"
            "        kept = torchvision.ops.batched_nms(boxes[n, keep], best[keep], label[keep], 0.5)\n"
            "        found.append({'boxes': boxes[n, keep][kept], 'scores': best[keep][kept]})\n    return found\n")
    assert rewrite(code, select=RULES, unsafe=True) == code
    assert rules_found(code, select=RULES) == ["TRT360"]


# --- each image's masks from its prototypes (YOLO-seg's `process_mask`) ---------------------------------------------

#: YOLOv5/v7's ``process_mask`` (ultralytics/yolov5 utils/segment/general.py; WongKinYiu/yolov7 u7's), in our words.
_PROCESS_MASK = """\
def process_mask(protos, masks_in, bboxes, shape, upsample=False):
    c, mh, mw = protos.shape
    ih, iw = shape
    masks = (masks_in @ protos.float().view(c, -1)).sigmoid().view(-1, mh, mw)
    scaled = bboxes.clone()
    scaled[:, 0::2] *= mw / iw
    scaled[:, 1::2] *= mh / ih
    cols = torch.arange(mw, dtype=scaled.dtype)[None, None, :]
    rows = torch.arange(mh, dtype=scaled.dtype)[None, :, None]
    x1, y1, x2, y2 = torch.chunk(scaled[:, :, None], 4, 1)
    masks = masks * ((cols >= x1) * (cols < x2) * (rows >= y1) * (rows < y2))
    if upsample:
        masks = torch.nn.functional.interpolate(masks[None], shape, mode='bilinear', align_corners=False)[0]
    return masks.gt_(0.5)
"""

#: The caller: each image's rows, and its masks where it has rows (zoo 92's YOLOv9 and zoo 93's YOLOv7-seg wrappers).
_MASKS_CALLER = """\
import torch


{function}

def f(found, proto, shape):
    rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *shape)]
    for index, det in enumerate(found):
        rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
        if {test}:
            masks.append(process_mask(proto[index], det[:, 6:], det[:, :4], shape, upsample=True))
    return torch.cat(rows), torch.cat(masks).float()
"""


@pytest.mark.parametrize("test", ["det.shape[0]", "len(det)", "det.size(0) > 0", "det.shape[0] != 0",
                                  "self_segment and det.shape[0]"])
def test_masks_from_each_image_s_prototypes_are_carried(test: str) -> None:
    code = _MASKS_CALLER.format(function=_PROCESS_MASK, test=test).replace("def f(found,", "def f(self_segment, found,"
                                                                          if "self_" in test else "def f(found,")
    after = rewrite(code, unsafe=True, select=("TRT361",))
    flat = after.split("if _trt_flat is not None:\n")[1].split("    else:\n")[0]
    setting = "self_segment and " if "self_" in test else ""
    assert f"if {setting}_trt_flat.shape[0]:\n" in flat, flat
    assert ("masks.append(process_mask(_trt_image_channels(proto), _trt_image_blocks(_trt_flat[:, 6:], "
            "_trt_flat_image, proto.shape[0]), _trt_flat[:, :4], shape, upsample=True))") in flat, flat


#: Functions whose prototypes are read otherwise than through the one product: the per-image call stays.
_NOT_PROTOTYPE_MASKS = [
    # the prototypes' mean: every image's channels at once would mix the images
    _PROCESS_MASK.replace("masks = (masks_in", "masks = protos.mean() + (masks_in"),
    # `c` reused: made the images' channels together, it would be the batch's
    _PROCESS_MASK.replace(".view(-1, mh, mw)", ".view(-1, mh, mw) * c"),
    # the coefficients read twice
    _PROCESS_MASK.replace(".sigmoid().view", ".sigmoid().view(-1, mh, mw).sum() + masks_in.view"),
    # the product the other way round: a channel a column
    _PROCESS_MASK.replace("masks_in @ protos.float().view(c, -1)", "protos.float().view(c, -1).T @ masks_in.T"),
    # the prototypes rebound before the product
    _PROCESS_MASK.replace("    ih, iw = shape\n", "    ih, iw = shape\n    protos = protos.flip(0)\n"),
    # the channels read from another axis
    _PROCESS_MASK.replace("c, mh, mw = protos.shape", "mh, mw, c = protos.shape"),
]


@pytest.mark.parametrize("function", _NOT_PROTOTYPE_MASKS)
def test_a_function_that_reads_prototypes_otherwise_keeps_the_loop(function: str) -> None:
    code = _MASKS_CALLER.format(function=function, test="det.shape[0]")
    assert rewrite(code, unsafe=True, select=("TRT361",)) == code


@pytest.mark.parametrize("test", ["det.numel()", "det.shape[1]", "index > 0", "det.shape[0] > 1"])
def test_a_test_other_than_the_image_having_rows_keeps_the_loop(test: str) -> None:
    code = _MASKS_CALLER.format(function=_PROCESS_MASK, test=test)
    after = rewrite(code, unsafe=True, select=("TRT361",))
    assert "_trt_image_blocks" not in after


def _per_image_masks(function, found, proto, shape):
    """The loop as written: each image's masks where it has rows."""
    masks = [torch.zeros(0, *shape)]
    for index, det in enumerate(found):
        if det.shape[0]:
            masks.append(function(proto[index], det[:, 6:], det[:, :4], shape, upsample=True))
    return torch.cat(masks)


def _found(counts, channels, generator, scale=1.0):
    return [torch.cat([torch.rand(n, 2, generator=generator) * 8, 8 + torch.rand(n, 2, generator=generator) * 8,
                       torch.rand(n, 2, generator=generator),
                       torch.randn(n, channels, generator=generator) * scale], 1) for n in counts]


@pytest.mark.parametrize("counts", [(3, 0, 2), (0, 0), (4,), (0, 5, 0, 1)])
def test_the_blocks_give_each_row_its_own_image_s_masks(counts, tmp_path) -> None:
    from trtcodemod.helpers.per_image import _trt_image_blocks, _trt_image_channels

    process_mask = import_source("import torch\n\n" + _PROCESS_MASK, tmp_path)["process_mask"]
    generator = torch.Generator().manual_seed(sum(counts))
    for kind in ("random", "zeros", "negatives", "non-finite coefficients"):
        found = _found(counts, 4, generator)
        proto = torch.randn(len(counts), 4, 8, 8, generator=generator) * 3
        if kind == "zeros":
            proto = torch.zeros_like(proto)
        elif kind == "negatives":
            proto = -proto.abs()
        elif kind == "non-finite coefficients" and sum(counts):
            rows = next(d for d in found if d.shape[0])
            rows[0, 6], rows[-1, 7] = float("nan"), float("inf")  # a row's own: in its own block only
        flat = torch.cat(found)
        image = torch.cat([torch.full((n,), i) for i, n in enumerate(counts)])
        want = _per_image_masks(process_mask, found, proto, (16, 16))
        got = process_mask(_trt_image_channels(proto), _trt_image_blocks(flat[:, 6:], image, proto.shape[0]),
                           flat[:, :4], (16, 16), upsample=True) if flat.shape[0] else torch.zeros(0, 16, 16)
        assert got.shape == want.shape and got.dtype == want.dtype, kind
        assert torch.equal(got, want), (kind, (got != want).sum())


#: ultralytics' later ``process_mask`` (ultralytics 8.4, ultralytics/utils/ops.py): an early return where there are no
#: rows (reading the coefficients' count and device), no sigmoid, the threshold before the crop; in our own words.
_OPS_PROCESS_MASK = """\
import torch
import torch.nn.functional as F


def process_mask(protos, masks_in, bboxes, shape, upsample=False):
    c, mh, mw = protos.shape
    if masks_in.shape[0] == 0:
        return torch.zeros((0, *(shape if upsample else (mh, mw))), dtype=torch.uint8, device=masks_in.device)
    masks = (masks_in @ protos.float().view(c, -1)).view(-1, mh, mw)
    if upsample:
        masks = F.interpolate(masks[None], shape, mode="bilinear")[0]
    x1, y1, x2, y2 = torch.chunk(bboxes[:, :, None], 4, 1)
    cols = torch.arange(masks.shape[2], device=masks.device)[None, None, :]
    rows = torch.arange(masks.shape[1], device=masks.device)[None, :, None]
    return masks.gt_(0.0).byte() * ((cols >= x1) * (cols < x2) * (rows >= y1) * (rows < y2))
"""

_OPS_CALLER = """\
import torch
from pkg.utils import ops


def f(found, proto, shape):
    rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *shape, dtype=torch.uint8)]
    for index, det in enumerate(found):
        rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
        masks.append(ops.process_mask(proto[index], det[:, 6:], det[:, :4], shape, upsample=True))
    return torch.cat(rows), torch.cat(masks)
"""


@pytest.mark.parametrize("changed", [None, "masks_in.sum() + ", "protos.mean() + "])
def test_a_module_s_mask_function_with_an_early_return_is_called_on_all_rows(changed, tmp_path) -> None:
    from trtcodemod.engine import Options, fix_source

    function = _OPS_PROCESS_MASK if changed is None else _OPS_PROCESS_MASK.replace(
        "masks = (masks_in @", f"masks = {changed}(masks_in @")
    (tmp_path / "pkg" / "utils").mkdir(parents=True)
    for folder in (tmp_path / "pkg", tmp_path / "pkg" / "utils"):
        (folder / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "ops.py").write_text(function)
    caller = tmp_path / "caller.py"
    caller.write_text(_OPS_CALLER)
    after = fix_source(caller.read_bytes(), str(caller), Options(select=("TRT361",), unsafe=True)).source.decode()
    carried = ("masks.append(ops.process_mask(_trt_image_channels(proto), _trt_image_blocks(_trt_flat[:, 6:], "
               "_trt_flat_image, proto.shape[0]), _trt_flat[:, :4], shape, upsample=True))") in after
    assert carried is (changed is None), after
    if changed is not None:
        return
    _assert_one_call_gives_each_image_s_masks(import_source(function, tmp_path)["process_mask"], torch.uint8, 7,
                                              (16, 16), upsample=True)


def _assert_one_call_gives_each_image_s_masks(process_mask, dtype: torch.dtype, seed: int, *args, **kwargs) -> None:
    """``process_mask`` called once on every image's rows through the blocks gives what a call an image gives (an
    image without rows too, which the function answers by its early return), concatenated: values and ``dtype``."""
    from trtcodemod.helpers.per_image import _trt_image_blocks, _trt_image_channels

    generator = torch.Generator().manual_seed(seed)
    for counts in [(2, 0, 3), (0, 0), (1,)]:
        found = _found(counts, 4, generator, scale=2.0)
        proto = torch.randn(len(counts), 4, 8, 8, generator=generator)
        flat, image = torch.cat(found), torch.cat([torch.full((n,), i) for i, n in enumerate(counts)])
        want = torch.cat([process_mask(proto[i], d[:, 6:], d[:, :4], *args, **kwargs) for i, d in enumerate(found)])
        got = process_mask(_trt_image_channels(proto), _trt_image_blocks(flat[:, 6:], image, proto.shape[0]),
                           flat[:, :4], *args, **kwargs)
        assert got.dtype == want.dtype == dtype and torch.equal(got, want), counts


#: ultralytics' predictors skip an image without rows first, then append its rows and masks.
_SKIPPING_CALLER = """\
import torch


{function}

def f(found, proto, shape):
    rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *shape)]
    for index, det in enumerate(found):
        if {skip}:
            continue
        rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
        masks.append(process_mask(proto[index], det[:, 6:], det[:, :4], shape, upsample=True))
    return torch.cat(rows), torch.cat(masks).float()
"""


@pytest.mark.parametrize("skip,taken", [("not len(det)", True), ("det.shape[0] == 0", True),
                                        ("not det.size(0)", True), ("len(det) == 1", False),
                                        ("not det.numel()", False)])
def test_a_skip_of_an_image_without_rows_guards_every_append(skip: str, taken: bool, tmp_path) -> None:
    code = _SKIPPING_CALLER.format(function=_PROCESS_MASK, skip=skip)
    after = rewrite(code, unsafe=True, select=("TRT361",))
    assert ("_trt_image_blocks" in after) is taken, after
    if not taken:
        return
    flat = after.split("if _trt_flat is not None:\n")[1].split("    else:\n")[0]
    assert "    if _trt_flat.shape[0]:\n            rows.append(" in flat and "continue" not in flat, flat
    # eager code keeps the loop; the flattened branch, run by hand, gives the loop's rows and masks
    from trtcodemod.helpers.per_image import _trt_image_blocks, _trt_image_channels, _trt_image_fill

    namespace = import_source(code, tmp_path)
    generator = torch.Generator().manual_seed(11)
    for counts in [(2, 0, 3), (0, 0), (0, 4)]:
        found = _found(counts, 4, generator)
        proto = torch.randn(len(counts), 4, 8, 8, generator=generator)
        want = namespace["f"](found, proto, (16, 16))
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, 16, 16)]
        flat, image = torch.cat(found), torch.cat([torch.full((n,), i) for i, n in enumerate(counts)])
        if flat.shape[0]:
            rows.append(torch.cat([flat[:, :6], _trt_image_fill(torch.full((flat.shape[0], 1), 0.0), image)], 1))
            masks.append(namespace["process_mask"](_trt_image_channels(proto), _trt_image_blocks(
                flat[:, 6:], image, proto.shape[0]), flat[:, :4], (16, 16), upsample=True))
        got = torch.cat(rows), torch.cat(masks).float()
        assert all(torch.equal(g, w) for g, w in zip(got, want)), counts


#: CoreYOLO's ``process_mask`` (coreyolo 0.2.1, coreyolo/infer/masks.py:19-34; zoo 94): an early return on
#: ``coeff.numel() == 0`` made by ``proto.new_zeros``, the product without ``.float()``, a bool mask; in our words.
_NUMEL_PROCESS_MASK = """\
import torch
import torch.nn.functional as F


def process_mask(proto, coeff, boxes_xyxy, imgsz):
    if coeff.numel() == 0:
        return proto.new_zeros((0, imgsz, imgsz), dtype=torch.bool)
    nm, mh, mw = proto.shape
    masks = (coeff @ proto.view(nm, -1)).sigmoid().view(-1, mh, mw)
    gain = boxes_xyxy.new_tensor([mw / imgsz, mh / imgsz, mw / imgsz, mh / imgsz])
    x1, y1, x2, y2 = torch.chunk((boxes_xyxy * gain)[:, :, None], 4, 1)
    cols = torch.arange(mw, dtype=x1.dtype)[None, None, :]
    rows = torch.arange(mh, dtype=x1.dtype)[None, :, None]
    masks = masks * ((cols >= x1) * (cols < x2) * (rows >= y1) * (rows < y2))
    masks = F.interpolate(masks.unsqueeze(0), (imgsz, imgsz), mode="bilinear", align_corners=False)[0]
    return masks > 0.5
"""


@pytest.mark.parametrize("change,taken", [(None, True), ("coeff.new_zeros((0, imgsz, imgsz), dtype=torch.bool)", True),
                                          ("proto.mean().new_zeros((0, imgsz, imgsz), dtype=torch.bool)", False),
                                          ("coeff.sum().new_zeros((0, imgsz, imgsz), dtype=torch.bool)", False)])
def test_an_early_return_on_no_coefficients_made_like_the_prototypes(change, taken, tmp_path) -> None:
    import ast

    from trtcodemod.transforms._prototype_masks import prototype_masks

    source = _NUMEL_PROCESS_MASK if change is None else _NUMEL_PROCESS_MASK.replace(
        "proto.new_zeros((0, imgsz, imgsz), dtype=torch.bool)", change)
    [function] = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    assert prototype_masks(function) is taken
    if not taken:
        return
    _assert_one_call_gives_each_image_s_masks(import_source(source, tmp_path)["process_mask"], torch.bool, 5, 16)
