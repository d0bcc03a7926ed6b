"""A per-image NMS loop whose picks are capped per image (TRT360's cap), on real-code variants.

Each variant in ``tests/recipe_variants/trt360/`` is a small runnable model reduced from real code (cited in its
docstring), by five authors: YOLOv5's ``if i.shape[0] > max_det: i = i[:max_det]`` (and YOLOv7's, its list made
beforehand and written by the image's index, a time limit, flattened by its caller: TRT361), RTMDet's
``batched_nms(...)[: self.max_num_detections]``, torchvision FCOS's ``keep = keep[: self.detections_per_img]``
(one dict an image, flattened by its caller: TRT361) and yolort's ``PostProcess`` (zoo 63: a decode helper of the
file returning boxes and scores, called on the flattened rows; ``inds, labels = torch.where(scores > t)`` of a mask of
rows with classes and ``scores[inds, labels]``; its caller's ``labels.to(boxes.dtype)``), and Lightning-Bolts' YOLO
``process_detections`` (zoo 77: a function of one image defined in the method and called by a list comprehension
over the batch; its body is the loop's), and YOLOv9's ``non_max_suppression`` (zoo 92: the batch count bound to a
name, the columns split, a sort after the cap, an ``mps`` move of each entry; its caller's masks under a setting).

The TorchScript export unrolls the loops with the example's batch. Rewritten from the code alone, each graph equals
eager mode (the same rows in the same order) at batches of 1, 3 and 5, with an image that keeps no row, on zeros,
negatives and tied scores, where each image keeps more picks than the cap; eager mode is the loops themselves;
``migrate`` applies the rules at first contact and ends at exit 0. The last section takes zoo 32's wrapper of
wf_pytorch_yolo_v4: a mask's positions made one axis (``(score > t).nonzero().squeeze(1)``) and the image's boxes read
with the rest of the subscript (``boxes[i, keep, 0]``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from variant_models import assert_follows_the_batch, built_variant, migrate_with_standin, seeded
from variant_models import TORCHVISION_STANDIN as STANDIN, line_of as _line_of, load_variant

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt360"
RULES = ("TRT360", "TRT361")
CODE_ALONE = Options(select=RULES, scope="all")
UNSAFE = Options(select=RULES, scope="all", unsafe=True)
torchvision_standin = load_variant(STANDIN, "torchvision_standin")

#: variant -> (the cap as written, the cap's rewrite, the loops' headers: TRT360's, then TRT361's if any, the cap).
TAKEN: dict[str, tuple[str, str, tuple[str, ...], int]] = {
    "yolov5_nms_max_det": ("if i.shape[0] > max_det:",
                           "i = _trt_cap_by_image(i, _trt_image[prediction.flatten(0, 1)[:, 4] > conf_thres]"
                           "[conf[:, 0] > conf_thres], max_det, _trt_count)", ("for xi, x in enumerate",), 5),
    "yolov7_nms_output_by_index": ("if i.shape[0] > max_det:",
                                   # `if multi_label:` / `else:` carried both ways, its rows' images kept in one
                                   # name, then the class filter's (`if classes is not None:`)
                                   "i = _trt_cap_by_image(i, _trt_image_4, max_det, _trt_count)",
                                   ("for xi, x in enumerate(prediction):", "for i, d in enumerate(out)])"), 4),
    "rtmdet_batched_nms_slice": (")[: self.max_num_detections]", ", _trt_image, self.max_num_detections, _trt_count)",
                                 ("for i in range(boxes.shape[0]):",), 4),
    "torchvision_fcos_detections_per_img": ("keep = keep[: self.detections_per_img]",
                                            "keep = _trt_cap_by_image(keep, _trt_image[inds], self.detections_per_img,",
                                            ("for index in range(boxes.shape[0]):", "for i, det in enumerate("), 3),
    # a decode helper of rows returning two tensors, the (candidate, class) pairs of a 2-D mask, `scores[inds, labels]`
    "yolort_postprocess_multilabel": ("keep = keep[: self.detections_per_img]",
                                      "keep = _trt_cap_by_image(keep, _trt_image[inds], self.detections_per_img, "
                                      "_trt_count)", ("for idx in range(batch_size):", "for index, det in enumerate("),
                                      4),
    # YOLOv9's: the batch count bound first, columns split, the cap's else sort, `if mps:` moving the entry; the
    # caller's masks appended only `if self.segment and det.shape[0]` (zoo 92)
    "yolov9_nms_split_mps": ("if i.shape[0] > max_det:", "i = _trt_cap_by_image(i, _trt_image_4, max_det, _trt_count)",
                             ("for xi, x in enumerate(prediction):", "for index, det in enumerate(found):"), 20),
    # Lightning-Bolts' function of one image defined in the method, called by a list comprehension over the batch
    "pl_bolts_process_detections": ("keep = keep[: self.detections_per_image]",
                                    "keep = _trt_cap_by_image(keep, _trt_image[idxs], self.detections_per_image, "
                                    "_trt_count)", ("return [process(", "for index, found in enumerate("), 4),
}


#: Variants whose export from the code alone stops elsewhere: YOLOv9's `multi_label &= nc > 1` of a traced size is a
#: bitwise `and` of a tensor and a bool, which the TorchScript exporter's alias analysis refuses; TRT732 takes it where
#: migrate's facts place the failure, so the migrate test below covers that variant end to end.
MIGRATE_ONLY = ("yolov9_nms_split_mps",)


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


@pytest.mark.parametrize("name", list(TAKEN))
def test_the_capped_loops_are_found_and_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    cap, rewritten, loops, _ = TAKEN[name]
    found = sorted((f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE))
    assert found == sorted(zip(RULES, (_line_of(path, loop) for loop in loops)))
    after = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert rewritten in after and "def _trt_cap_by_image(" in after, after
    # the loop kept for eager code, with the cap as written (docstrings quote code in ``)
    assert [line.strip() for line in after.splitlines() if cap in line and "``" not in line] == [cap.strip()] \
        or sum(cap in line and "``" not in line for line in after.splitlines()) == 1


def _counts(rows: torch.Tensor, batch: int) -> list[int]:
    """Rows of each image (the last column is the image's index)."""
    return [int((rows[:, -1] == j).sum()) for j in range(batch)]


#: A value that, filling an image, leaves it no candidate over the thresholds (RTMDet's NMS runs on every candidate:
#: its score mask is made and left unused, as there, so every image keeps some).
EMPTY_FILL = {"yolov9_nms_split_mps": 40.0, "pl_bolts_process_detections": 40.0, "yolov5_nms_max_det": 40.0, "yolov7_nms_output_by_index": 40.0, "rtmdet_batched_nms_slice": -40.0,
              "torchvision_fcos_detections_per_img": -40.0, "yolort_postprocess_multilabel": 40.0}


def _sets(name: str, seed: int) -> dict[str, tuple[torch.Tensor]]:
    def images(batch: int) -> torch.Tensor:
        return torch.rand(batch, 3, 32, 32, generator=seeded(seed + batch))

    ties = images(2)
    ties[:, :, :, 16:] = ties[:, :, :, :16]  # every window twice: equal scores, overlapping boxes
    empty = images(3)
    empty[1] = EMPTY_FILL[name]  # the middle image: no candidate over the thresholds
    return {"batch-1": (images(1),), "batch-3": (images(3),), "batch-5": (images(5),),
            "an-image-without-rows": (empty,), "zeros": (torch.zeros(2, 3, 32, 32),),
            "negatives": (-images(3),), "ties": (ties,)}


@pytest.mark.parametrize("name", [name for name in TAKEN if name not in MIGRATE_ONLY])
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode())
    module, _ = built_variant(path, f"trt360_{name}")
    rewritten_module, _ = built_variant(new_path, f"trt360_rewritten_{name}")
    original, rewritten = module.build(), rewritten_module.build()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    sets = _sets(name, 1)
    cap = TAKEN[name][3]
    # the cap bites: an image keeps more picks than it without it; and one image keeps none
    assert max(_counts(original(*sets["batch-3"]), 3)) == cap
    assert (_counts(original(*sets["an-image-without-rows"]), 3)[1] == 0) is (name != "rtmdet_batched_nms_slice")
    assert_follows_the_batch(original, rewritten, module, example, sets, tmp_path)


@pytest.mark.parametrize("name", [*TAKEN, "retinaface_process_predictions", "pytorch_yolov3_nms_new_shape",
                                  "pytorchyolo_nms_multi_label",
                                  "face_detection_batched_landmarks", "yolov5_face_nms_landmarks",
                                  "wf_yolov4_nonzero_squeeze"])
def test_migrate_applies_the_rewrite_at_first_contact(name: str, tmp_path: Path) -> None:
    # the capped loops and those that decode before NMS (DECODING, below)
    path, report = migrate_with_standin(HERE / f"{name}.py", STANDIN, tmp_path, f"trt360_migrate_{name}")
    assert report["before"]["faithful"] is not True, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    loops = TAKEN[name][2] if name in TAKEN else {**DECODING, **ONE_AXIS}[name][1]
    assert all((rule, _line_of(path, loop)) in applied for rule, loop in zip(RULES, loops)), applied
    assert report["after"]["faithful"] is True


# --- loops that decode before NMS (zoo 27's retinaface_nms form) -----------------------------------------------------

#: variant -> (a line of the tracing branch, the loops' headers: TRT360's, then TRT361's if any, other rules the
#: graph needs: PyTorch-YOLOv3's `x.new(x.shape)` records the traced number of rows, TRT349's).
DECODING: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "retinaface_process_predictions": (
        "boxes = _trt_stack_map(decode(_trt_row, prior_box.to(loc.device), self.variance) for _trt_row in "
        "_trt_rows(loc)).flatten(0, 1)", ("for batch_id in range(loc.shape[0]):",), ()),
    "pytorch_yolov3_nms_new_shape": (
        "x = prediction.flatten(0, 1)[prediction.flatten(0, 1)[..., 4] > conf_thres]",
        ("for xi, x in enumerate(prediction):", "for i, d in enumerate(detections)])"), ("TRT349",)),
    "face_detection_batched_landmarks": (
        "_trt_image_1 = _trt_image[keep_idx]", ("for i in range(len(boxes)):",), ()),
    "yolov5_face_nms_landmarks": (
        "box = xywh2xyxy(x[:, :4])", ("for xi, x in enumerate(prediction):", "for i, d in enumerate(detections)])"),
        ()),
    # pytorchyolo's `if multi_label:` (a size's test) picks rows by (box, class) pairs one way, by the best class the
    # other: each way's images kept in one name, `x[i, j + 5, None]`, the class filter's `.any(1)`, `to_cpu`
    "pytorchyolo_nms_multi_label": (
        "    _trt_image_1 = _trt_image[prediction.flatten(0, 1)[..., 4] > conf_thres][i]",
        ("for xi, x in enumerate(prediction):", "for i, d in enumerate(detections)])"), ("TRT349",)),
}
EMPTY_FILL.update({"retinaface_process_predictions": 40.0, "pytorch_yolov3_nms_new_shape": 40.0,
                   "pytorchyolo_nms_multi_label": 40.0,
                   "yolov5_face_nms_landmarks": 40.0, "face_detection_batched_landmarks": 40.0})


@pytest.mark.parametrize("name", list(DECODING))
def test_the_decoding_loops_are_found_and_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    line, loops, _ = DECODING[name]
    found = sorted((f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE))
    assert found == sorted(zip(RULES, (_line_of(path, loop) for loop in loops)))
    after = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert f"        {line}\n" in after, after


@pytest.mark.parametrize("name", [*DECODING, "wf_yolov4_nonzero_squeeze"])
def test_a_decoding_loop_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    # also the loop on positions made one axis (ONE_AXIS, below), which decodes before its loop
    path = HERE / f"{name}.py"
    new_path = tmp_path / f"{name}_rewritten.py"
    options = Options(select=(*RULES, *DECODING.get(name, ("", (), ()))[2]), scope="all", unsafe=True)
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    module, _ = built_variant(path, f"trt360_{name}")
    rewritten_module, _ = built_variant(new_path, f"trt360_rewritten_{name}")
    original, rewritten = module.build(), rewritten_module.build()
    rewritten.load_state_dict(original.state_dict())
    sets = _sets(name, 1)
    # every image keeps rows, but the one filled so that none of its candidates passes the threshold
    assert min(_counts(original(*sets["batch-3"]), 3)) > 0
    assert _counts(original(*sets["an-image-without-rows"]), 3)[1] == 0
    assert_follows_the_batch(original, rewritten, module, module.inputs(seeded(0)), sets, tmp_path)



# --- positions made one axis (zoo 32's y4_*_nms wrappers) -------------------------------------------------------------

#: variant -> (the tracing branch's lines, the loop's header).
ONE_AXIS: dict[str, tuple[str, tuple[str, ...]]] = {
    "wf_yolov4_nonzero_squeeze": (
        "            keep = (score > self.conf_thresh).nonzero().squeeze(1)\n"
        "            b = boxes.flatten(0, 1)[keep, 0]\n"
        "            k = keep[_trt_nms_by_image(b, score[keep], label[keep], _trt_image[keep], self.nms_thresh, "
        "_trt_count)]\n", ("for i in range(x.shape[0]):",)),
}
EMPTY_FILL.update({"wf_yolov4_nonzero_squeeze": -40.0})


@pytest.mark.parametrize("name", list(ONE_AXIS))
def test_positions_made_one_axis_are_found_and_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    lines, loops = ONE_AXIS[name]
    found = sorted((f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE))
    assert found == [("TRT360", _line_of(path, loops[0]))]
    after = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert lines in after and "        else:\n            for i in range(x.shape[0]):\n" in after, after
    # no candidate at all on zeros and negatives (the export test, with the decoding loops', runs these sets too)
    _, original = built_variant(path, f"trt360_one_axis_{name}")
    sets = _sets(name, 1)
    assert original(*sets["zeros"]).shape[0] == 0 and original(*sets["negatives"]).shape[0] == 0
