"""TRT397: a hand-written greedy NMS loop, one NMS node while tracing.

Ten spellings of the same algorithm, each in our own words after a public repository's (cited at each; three are
TRT104's recipe variants, tests/recipe_variants/trt104/, migrated end to end): picks through `.item()`, `int()`, a
walrus or `order[-1]` after an ascending sort; coordinates read as columns, by `unbind`, through box slices or by an
IoU helper; widths with and without `+ 1`; the threshold as `<=`, `.le()`, a `nonzero()` of the mask shifted by one,
or `torch.where`; the list tested for truth, made a tensor by `torch.stack`, `torch.tensor` or `torch.LongTensor`, or
ssd.pytorch's buffer written at a count. For each inline one: the rewrite's text, eager mode unchanged (the same run
on random boxes, ties, one box, no box), and the TorchScript export of the rewritten model against the original in
eager mode in ONNX Runtime at other numbers of boxes than the traced one (the original's graph keeps the example's
picks). Not taken: a loop that stops before keeping the last box, and a kept list read another way after it; taken
back by migrate's proof: a loop whose overlap is not an IoU.
"""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

import torchvision_standin

RULE = ("TRT397",)


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


_MODEL = '''

class Model(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = nms(boxes, scores, 0.45)
        return boxes[keep], scores[keep]
'''

#: The buffer form's caller takes the first `count` entries (ssd.pytorch's `ids[:count]`).
_BUFFER_MODEL = _MODEL.replace("keep = nms(boxes, scores, 0.45)", "keep, count = nms(boxes, scores, 0.45)\n"
                               "        keep = keep[:count]")
_BUFFERED = {"ssd_buffer"}


def _program(name: str) -> str:
    return VARIANTS[name] + (_BUFFER_MODEL if name in _BUFFERED else _MODEL)

VARIANTS = {
    # dongdonghy/Detection-PyTorch-Notebook chapter8/nms.py: descending sort, pixel widths (+ 1), a last-box branch
    # picking with `.item()`, the mask's `nonzero().squeeze()` shifted by one, `torch.LongTensor(keep)`.
    "notebook": '''
import torch


def nms(bboxes, scores, thresh=0.5):
    x1 = bboxes[:, 0]
    y1 = bboxes[:, 1]
    x2 = bboxes[:, 2]
    y2 = bboxes[:, 3]
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    _, order = scores.sort(0, descending=True)
    keep = []
    while order.numel() > 0:
        if order.numel() == 1:
            i = order.item()
            keep.append(i)
            break
        else:
            i = order[0].item()
            keep.append(i)
        xx1 = x1[order[1:]].clamp(min=x1[i])
        yy1 = y1[order[1:]].clamp(min=y1[i])
        xx2 = x2[order[1:]].clamp(max=x2[i])
        yy2 = y2[order[1:]].clamp(max=y2[i])
        inter = (xx2 - xx1 + 1).clamp(min=0) * (yy2 - yy1 + 1).clamp(min=0)
        iou = inter / (areas[i] + areas[order[1:]] - inter)
        idx = (iou <= thresh).nonzero().squeeze()
        if idx.numel() == 0:
            break
        order = order[idx + 1]
    return torch.LongTensor(keep)
''',
    # mantasu/face-crop-plus models/retinaface.py `filter_preds`: the pick by a walrus inside the append, corners
    # through box slices `bbox[j, :2]`, pixel widths, `torch.where(ovr <= t)[0]` shifted by one.
    "retinaface": '''
import torch


def nms(bbox, scores, nms_threshold):
    area = (bbox[:, 2] - bbox[:, 0] + 1) * (bbox[:, 3] - bbox[:, 1] + 1)
    scores_sorted = scores.argsort(descending=True)
    keep = []
    while scores_sorted.numel() > 0:
        keep.append(j := scores_sorted[0])
        xy1 = torch.maximum(bbox[j, :2], bbox[scores_sorted[1:], :2])
        xy2 = torch.minimum(bbox[j, 2:], bbox[scores_sorted[1:], 2:])
        w = torch.maximum(torch.tensor(0.0), xy2[:, 0] - xy1[:, 0] + 1)
        h = torch.maximum(torch.tensor(0.0), xy2[:, 1] - xy1[:, 1] + 1)
        ovr = (a := w * h) / (area[j] + area[scores_sorted[1:]] - a)
        inds = torch.where(ovr <= nms_threshold)[0]
        scores_sorted = scores_sorted[inds + 1]
    return torch.stack(keep)
''',
    # amdegroot/ssd.pytorch layers/box_utils.py `nms`: an ascending sort cut to the top k, the pick at the end
    # (`idx[-1]`), the view shortened first and the overlaps `.le()` the threshold; here appending to a list.
    "ascending": '''
import torch


def nms(boxes, scores, overlap=0.5, top_k=200):
    x1 = boxes[:, 0]
    y1 = boxes[:, 1]
    x2 = boxes[:, 2]
    y2 = boxes[:, 3]
    area = torch.mul(x2 - x1, y2 - y1)
    v, idx = scores.sort(0)
    idx = idx[-top_k:]
    keep = []
    while idx.numel() > 0:
        i = idx[-1]
        keep.append(i)
        if idx.size(0) == 1:
            break
        idx = idx[:-1]
        xx1 = torch.clamp(x1[idx], min=x1[i])
        yy1 = torch.clamp(y1[idx], min=y1[i])
        xx2 = torch.clamp(x2[idx], max=x2[i])
        yy2 = torch.clamp(y2[idx], max=y2[i])
        w = torch.clamp(xx2 - xx1, min=0.0)
        h = torch.clamp(yy2 - yy1, min=0.0)
        inter = w * h
        union = (area[idx] - inter) + area[i]
        iou = inter / union
        idx = idx[iou.le(overlap)]
    return torch.stack(keep)
''',
    # amdegroot/ssd.pytorch layers/box_utils.py `nms`, the form SSD, FaceBoxes and S3FD ports copy: a buffer of
    # zeros written at a count (`keep[count] = i`), preallocated scratch tensors filled by `index_select(...,
    # out=)` and `resize_as_`, the ascending sort cut to the top k, and `return keep, count` (the buffer made with
    # `zeros_like`: the original's `scores.new(scores.size(0))` with a traced size is TRT349's, which migrate applies
    # where the observed run shows `scores` a tensor).
    "ssd_buffer": '''
import torch


def nms(boxes, scores, overlap=0.5, top_k=200):
    keep = torch.zeros_like(scores, dtype=torch.long)
    if boxes.numel() == 0:
        return keep
    x1 = boxes[:, 0]
    y1 = boxes[:, 1]
    x2 = boxes[:, 2]
    y2 = boxes[:, 3]
    area = torch.mul(x2 - x1, y2 - y1)
    v, idx = scores.sort(0)
    idx = idx[-top_k:]
    xx1 = boxes.new()
    yy1 = boxes.new()
    xx2 = boxes.new()
    yy2 = boxes.new()
    w = boxes.new()
    h = boxes.new()
    count = 0
    while idx.numel() > 0:
        i = idx[-1]
        keep[count] = i
        count += 1
        if idx.size(0) == 1:
            break
        idx = idx[:-1]
        torch.index_select(x1, 0, idx, out=xx1)
        torch.index_select(y1, 0, idx, out=yy1)
        torch.index_select(x2, 0, idx, out=xx2)
        torch.index_select(y2, 0, idx, out=yy2)
        xx1 = torch.clamp(xx1, min=x1[i])
        yy1 = torch.clamp(yy1, min=y1[i])
        xx2 = torch.clamp(xx2, max=x2[i])
        yy2 = torch.clamp(yy2, max=y2[i])
        w.resize_as_(xx2)
        h.resize_as_(yy2)
        w = xx2 - xx1
        h = yy2 - yy1
        w = torch.clamp(w, min=0.0)
        h = torch.clamp(h, min=0.0)
        inter = w*h
        rem_areas = torch.index_select(area, 0, idx)
        union = (rem_areas - inter) + area[i]
        IoU = inter/union
        idx = idx[IoU.le(overlap)]
    return keep, count
''',
    # The pure-PyTorch fallbacks people install for torchvision's `nms` when its compiled ops do not load (an
    # Ultralytics call site, a Deformable DETR wrapper): an IoU helper on box slices, `order[1:][ious <= t]`.
    "iou_helper": '''
import torch


def pairwise_iou(a, b):
    low = torch.maximum(a[:, None, :2], b[None, :, :2])
    high = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(-1)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_thresh):
    keep = []
    order = scores.argsort(descending=True)
    while order.numel() > 0:
        i = order[0].item()
        keep.append(i)
        if order.numel() == 1:
            break
        ious = pairwise_iou(boxes[i].unsqueeze(0), boxes[order[1:]])[0]
        order = order[1:][ious <= iou_thresh]
    return torch.tensor(keep, device=boxes.device)
''',
    # The torchvision stand-in Jetson users install for Ultralytics' NMS call: `rest` named, `torch.maximum` of the
    # pick's coordinates against the rest's, an epsilon, and `if keep: return torch.stack(keep)` with an empty
    # tensor otherwise.
    "standin": '''
import torch


def nms(boxes, scores, iou_thres):
    keep = []
    order = scores.argsort(descending=True)
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        rest = order[1:]
        low = torch.maximum(boxes[i, :2], boxes[rest, :2])
        high = torch.minimum(boxes[i, 2:], boxes[rest, 2:])
        inter = (high - low).clamp(min=0).prod(1)
        area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
        area_r = (boxes[rest, 2] - boxes[rest, 0]) * (boxes[rest, 3] - boxes[rest, 1])
        iou = inter / (area_i + area_r - inter + 1e-7)
        order = rest[iou <= iou_thres]
    if keep:
        return torch.stack(keep)
    return torch.empty(0, dtype=torch.long, device=boxes.device)
''',
    # Tiled-inference tools' `_nms`: `unbind` columns, an annotated list, `int()` picks, the rest named, an epsilon in
    # the union and a `float()` threshold.
    "unbind": '''
import torch


def nms(boxes: torch.Tensor, scores: torch.Tensor, iou_thr: float) -> torch.Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    areas = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    order = scores.argsort(descending=True)
    keep: list[int] = []
    while order.numel() > 0:
        i = int(order[0])
        keep.append(i)
        if order.numel() == 1:
            break
        rest = order[1:]
        xx1 = torch.maximum(x1[i], x1[rest])
        yy1 = torch.maximum(y1[i], y1[rest])
        xx2 = torch.minimum(x2[i], x2[rest])
        yy2 = torch.minimum(y2[i], y2[rest])
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        iou = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[iou <= float(iou_thr)]
    return torch.tensor(keep, dtype=torch.long)
''',
}

#: The pixel-box variants add 1 to the far corners.
_OFFSET = {"notebook": 1, "retinaface": 1}


def _boxes(count: int, seed: int, *, integer: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=generator) * 60
    size = torch.rand(count, 2, generator=generator) * 30 + 1
    boxes = torch.cat([corner, corner + size], 1)
    if integer:
        boxes = boxes.round()
    return boxes, torch.rand(count, generator=generator)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_loop_is_found_and_kept_for_eager_code(name: str) -> None:
    source = VARIANTS[name]
    assert rules_found(source, select=RULE) == ["TRT397"]
    after = rewrite(source, unsafe=True, select=RULE)
    assert "_trt_tracing() and _trt_nms_ready():" in after
    offset = _OFFSET.get(name, 0)
    last = name in ("ascending", "ssd_buffer")
    assert f", {offset}, {last})" in after
    if name in _BUFFERED:  # the buffer stays a tensor and the count is returned beside it
        assert "keep, count = _trt_greedy_nms_into(keep, boxes, idx, overlap, 0, True)" in after
    else:
        assert "isinstance(keep, torch.Tensor)" in after


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_eager_mode_runs_the_same_loop(name: str, tmp_path) -> None:
    before = import_source(_program(name), tmp_path)["Model"]()
    after = import_source(rewrite(_program(name), unsafe=True, select=RULE), tmp_path)["Model"]()
    boxes, scores = _boxes(40, 1)
    cases = [(boxes, scores), (boxes, scores.round(decimals=1)), (boxes[:1], scores[:1]),
             (boxes[:0], scores[:0]), (boxes.round(), scores), (-boxes.flip(1), scores)]
    for index, inputs in enumerate(cases):
        assert_same_run(run_once(before, list(inputs)), run_once(after, list(inputs)), context=f"{name} case {index}")


def _exported(model: torch.nn.Module, boxes: torch.Tensor, scores: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (boxes, scores), buffer, dynamo=False, opset_version=17,
                          input_names=["boxes", "scores"], output_names=["kept", "kept_scores"],
                          dynamic_axes={"boxes": {0: "n"}, "scores": {0: "n"}, "kept": {0: "k"},
                                        "kept_scores": {0: "k"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_rewritten_graph_keeps_the_loops_boxes_at_every_count(name: str, tmp_path) -> None:
    original = import_source(_program(name), tmp_path)["Model"]()
    rewritten = import_source(rewrite(_program(name), unsafe=True, select=RULE), tmp_path)["Model"]()
    integer = name in _OFFSET
    session = _exported(rewritten, *_boxes(30, 2, integer=integer))
    compared = 0
    for count, seed in ((30, 3), (7, 4), (90, 5), (1, 6), (50, 7), (12, 8)):
        boxes, scores = _boxes(count, seed, integer=integer)
        expected = original(boxes, scores)
        compared += 1
        got = session.run(None, {"boxes": boxes.numpy(), "scores": scores.numpy()})
        assert expected[0].shape[0] > 0
        torch.testing.assert_close(torch.from_numpy(got[0]), expected[0], msg=f"{name} at {count} boxes")
        torch.testing.assert_close(torch.from_numpy(got[1]), expected[1], msg=f"{name} at {count} boxes")
    assert compared == 6


def test_the_original_graph_keeps_the_examples_picks(tmp_path) -> None:
    original = import_source(VARIANTS["unbind"] + _MODEL, tmp_path)["Model"]()
    session = _exported(original, *_boxes(30, 2))
    boxes, scores = _boxes(90, 5)
    expected = original(boxes, scores)[0]
    got = session.run(None, {"boxes": boxes.numpy(), "scores": scores.numpy()})[0]
    assert got.shape[0] != expected.shape[0] or not torch.equal(torch.from_numpy(got), expected)


def test_a_loop_that_never_keeps_the_last_box_is_another_algorithm() -> None:
    # Rhyx14/secretary x_secretary/computer_vision_utils/object_detection/nms.py stops before keeping the last
    # remaining box: NMS would keep one more.
    source = VARIANTS["notebook"].replace(
        "        if order.numel() == 1:\n            i = order.item()\n            keep.append(i)\n            break\n"
        "        else:\n            i = order[0].item()\n            keep.append(i)\n",
        "        if order.numel() == 1:\n            break\n        i = order[0].item()\n        keep.append(i)\n")
    assert "keep.append(i)\n\n" not in source and source != VARIANTS["notebook"]
    assert rules_found(source, select=RULE) == []


def test_a_kept_list_read_another_way_is_left() -> None:
    # face-crop-plus maps each kept index through a comprehension (`[cumsum + k for k in keep]`): a tensor there
    # would be iterated while tracing.
    source = VARIANTS["retinaface"].replace("    return torch.stack(keep)\n",
                                            "    return [k + 1 for k in keep]\n")
    assert rules_found(source, select=RULE) == []
    found = VARIANTS["unbind"].replace("return torch.tensor(keep, dtype=torch.long)",
                                       "return torch.tensor(keep, dtype=torch.long), sorted(keep)")
    assert rules_found(found, select=RULE) == []


_HEAD = '''

class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 5, 3, stride=4, padding=1)

    def forward(self, x):
        out = self.conv(x)[0].flatten(1).t()
        boxes = torch.cat([out[:, :2] * 16, out[:, :2] * 16 + out[:, 2:4].exp() * 8], -1)
        scores = out[:, 4].sigmoid()
        keep = nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep]


def build():
    torch.manual_seed(0)
    return Head().eval()


def inputs(generator):
    return (torch.rand(1, 3, 32, 40, generator=generator),)
'''


def test_migrate_takes_the_loop_at_first_contact(tmp_path) -> None:
    # A head whose candidates follow the image's height and width: the original graph keeps the example's picks;
    # migrate finds the `while` test read into Python, applies the rewrite and proves it, with nothing left there.
    import shutil

    from support import migrate_json

    path = tmp_path / "model.py"
    path.write_text(VARIANTS["unbind"] + _HEAD)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(torchvision_standin.__file__, tmp_path / "torchvision" / "__init__.py")
    report = migrate_json(path, '{"x": {"2": "h", "3": "w"}}')
    assert report["before"]["faithful"] is False
    assert [d["rule"] for d in report["applied"]] == ["TRT397"]
    assert report["after"]["faithful"] is True and report["after"]["exported"] is True
    assert not [r for r in report["remaining"] if r["source"] and r["source"].startswith(str(path))]


TRT104_VARIANTS = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt104"


@pytest.mark.parametrize("name, taken", [("retinanet_box_nms", True), ("kornia_bbox_nms", True),
                                         ("ssd_nms_while_numel", True), ("ssd_box_nms_item_bounds", False),
                                         ("pyfacer_retinaface_nms", True)])
def test_migrate_proves_the_nms_node_only_where_the_loop_is_nms(name: str, taken: bool, tmp_path) -> None:
    # kuangliu's RetinaNet `box_nms` (a `raise` for an unknown mode in the body, pixel widths), kornia's `nms`
    # (`if len(keep) > 0:` after the loop) and ssd.pytorch's (a buffer written at a count) end at exit 0 with the NMS node where TRT104 scripted them into an ONNX
    # Loop; the SSD training script clamps the far edges with `min` (its overlap is not an IoU), so the NMS node is
    # not the loop: migrate takes it back and the loop is scripted as before. pyfacer's RetinaFace appends
    # `order[0].item()` to a list TorchScript types as tensors: not scripted, the NMS node alone.
    import json
    import shutil

    from support import migrate_json

    path = tmp_path / f"{name}.py"
    shutil.copy(TRT104_VARIANTS / f"{name}.py", path)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(torchvision_standin.__file__, tmp_path / "torchvision" / "__init__.py")
    report = migrate_json(path, json.dumps({"boxes": {"0": "boxes"}, "scores": {"0": "boxes"}}))
    applied = [d["rule"] for d in report["applied"]]
    reverted = [d["rule"] for d in report["reverted"]]
    if taken:
        # (TRT201, safe, may also take a mask inside the loop, which eager mode keeps running)
        assert "TRT397" in applied and "TRT104" not in applied and report["exit_code"] == 0, report["remaining"]
        assert not [r for r in report["remaining"] if r["source"] and r["source"].startswith(str(path))
                    and r["rule"] in ("TRT104", "TRT103", "TRT801")]
    else:
        assert "TRT397" in reverted and "TRT397" not in applied
