"""A per-image NMS loop that returns one result an image (TRT360) and its caller's flattening (TRT361), on
real-code variants.

Each variant in ``tests/recipe_variants/trt361/`` is a small runnable model reduced from real code (cited in its
docstring): Holocron's YOLO ``_post_process`` (one dict an image) under the zoo's row wrapper; coin-detector's
``infer`` (one tensor an image) under YOLOv5's ``output_to_target`` and under YOLOv7's comprehension; Holocron's
earlier loop that runs NMS under ``if torch.any(...)`` (named, not rewritten); torchvision's RPN proposals under its
RoI pooler's ``_convert_to_roi_format`` and ``roi_align``'s ``convert_boxes_to_roi_format`` (the rows concatenated
apart from the image column); mmdet's RPN proposals under ``bbox2roi``; YOLO-seg's masks from each image's prototypes
by ``process_mask`` (YOLOv7-seg, YOLOv5-seg as it is now and three other owners' v7.0 copies: ``process_mask_native``,
the ``classes`` filter, the MPS move and time limit), and YOLOv10's copy of ultralytics' later NMS (rewritten; its
caller's ``if not len(pred):`` / ``else:`` masks kept as a loop).

The TorchScript export unrolls both loops with the example's batch. Rewritten from the code alone, each graph
equals eager mode at other batches, on zeros, negatives, no candidate over the threshold and tied boxes, and eager
mode is the loops themselves; ``migrate`` applies both rules at first contact and ends at exit 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from variant_models import assert_cited_by_distinct_owners, assert_follows_the_batch, assert_graph_within, \
    built_variant, export_variant, migrate_with_standin, seeded
from variant_models import TORCHVISION_STANDIN as STANDIN, line_of as _line_of, load_variant

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt361"
RULES = ("TRT360", "TRT361")
CODE_ALONE = Options(select=RULES, scope="all")
UNSAFE = Options(select=RULES, scope="all", unsafe=True)
torchvision_standin = load_variant(STANDIN, "torchvision_standin")

#: variant -> (builder, the producer's loop header, the callers' lines as written).
TAKEN: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "holocron_post_process_rows": ("build", "for idx in range(boxes.shape[0]):",
                                   ("for i, det in enumerate(self.m(x)):",)),
    "coin_detector_output_to_target": ("build", "for boxes_, classes_ in zip(boxes, classes):",
                                       ("for i, o in enumerate(self.m(x)):", "for i, d in enumerate(out)])")),
    # the pooler's rows (the list itself concatenated, the index column by a comprehension along dim=0, full_like
    # with dtype, layout and device) and roi_align's (the entries concatenated, the index column by a loop)
    "torchvision_rpn_roi_format": ("build", "for boxes, scores, lvl in zip(proposals, objectness_prob, levels):",
                                   ("concat_boxes = torch.cat(boxes, dim=0)", "ids = torch.cat(",
                                    "concat_boxes = torch.cat([b for b in boxes], dim=0)",
                                    "for i, b in enumerate(boxes):")),
    # mmdet's bbox2roi: `rois`, bound in the loop, bound again by the concatenation before it is read
    "mmdet_rpn_bbox2roi": ("build", "for (mlvl_proposals, mlvl_scores,", ("for img_id, bboxes in enumerate(bbox_list):",)),
    # YOLOv7-seg: each image's masks from its prototypes by `process_mask`, where the image has rows
    "yolov7_seg_process_mask": ("build", "for xi, x in enumerate(prediction):",
                                ("for index, det in enumerate(found):",)),
    # YOLOv5-seg's `segment/predict.py`: `if len(det):` then `process_mask(proto[i], ...)`; its NMS sorts and cuts
    # each image's rows with no `if` around
    "yolov5_seg_process_mask": ("build", "for xi, x in enumerate(prediction):", ("for i, det in enumerate(pred):",)),
    # a fork's `retina_masks` branch: `process_mask_native` (the product resized before the crop)
    "yolov5_segment_mask_native": ("build", "for xi, x in enumerate(prediction):",
                                   ("for i, det in enumerate(pred):",)),
    # a copy's NMS with its `classes` filter asked for
    "yolov5_seg_classes_process_mask": ("build", "for xi, x in enumerate(prediction):",
                                        ("for i, det in enumerate(pred):",)),
    # a fork's NMS with its MPS move and time limit
    "yolov5_seg_mps_time_limit": ("build", "for xi, x in enumerate(prediction):",
                                  ("for i, det in enumerate(pred):",)),
}

#: The variants whose masks come from each image's prototypes by a `process_mask` (one owner each).
PROCESS_MASK = ["yolov7_seg_process_mask", "yolov5_seg_process_mask", "yolov5_segment_mask_native",
                "yolov5_seg_classes_process_mask", "yolov5_seg_mps_time_limit"]


def _line(path: Path, caller: str) -> int:
    """The line of ``caller``: the one line that is it exactly, else the one line that holds it."""
    exact = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == caller]
    return exact[0] if len(exact) == 1 else _line_of(path, caller)


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


def _finding_lines(path: Path) -> list[tuple[str, int]]:
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    return sorted((f.rule, f.line) for f in found)


@pytest.mark.parametrize("name", list(TAKEN))
def test_both_loops_are_found(name: str) -> None:
    path = HERE / f"{name}.py"
    _, producer, callers = TAKEN[name]
    assert _finding_lines(path) == sorted([("TRT360", _line_of(path, producer)),
                                           *(("TRT361", _line(path, c)) for c in callers)])


def test_a_loop_that_decides_per_image_is_named_only() -> None:
    path = HERE / "holocron_objectness_gate.py"
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    [nms] = [f for f in found if f.rule == "TRT360"]
    assert "not rewritten" in nms.message and nms.line == _line_of(path, "for idx in range(objectness.shape[0]):")
    # the caller's rewrite waits for a list the producer never makes here: eager and traced code keep the loop
    assert "_trt_per_image_list" not in fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()


def _sets(module, seed: int) -> dict[str, tuple[torch.Tensor]]:
    def images(batch: int) -> torch.Tensor:
        return torch.rand(batch, 3, 32, 32, generator=seeded(seed + batch))

    ties = images(2)
    ties[:, :, :, 16:] = ties[:, :, :, :16]  # every window twice: equal scores, overlapping boxes
    return {"batch-1": (images(1),), "batch-3": (images(3),), "batch-5": (images(5),),
            "zeros": (torch.zeros(2, 3, 32, 32),), "negatives": (-images(3),),
            "no-candidate": (torch.full((2, 3, 32, 32), -30.0),), "ties": (ties,)}


def _rewritten(name: str, builder: str, tmp_path: Path):
    path = HERE / f"{name}.py"
    new_source = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert "_trt_per_image_list(" in new_source and "_trt_flat = None" in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    module, _ = built_variant(path, f"trt361_{name}")
    rewritten_module, _ = built_variant(new_path, f"trt361_rewritten_{name}")
    return module, getattr(module, builder)(), getattr(rewritten_module, builder)()


@pytest.mark.parametrize("name,builder", [("holocron_post_process_rows", "build"),
                                          ("coin_detector_output_to_target", "build"),
                                          ("coin_detector_output_to_target", "build_comprehension"),
                                          ("torchvision_rpn_roi_format", "build"),
                                          ("torchvision_rpn_roi_format", "build_roi_align"),
                                          ("mmdet_rpn_bbox2roi", "build"),
                                          ("yolov7_seg_process_mask", "build"),
                                          ("yolov7_seg_process_mask", "build_retina"),
                                          ("yolov5_seg_process_mask", "build"),
                                          ("yolov5_segment_mask_native", "build"),
                                          ("yolov5_segment_mask_native", "build_retina"),
                                          ("yolov5_seg_classes_process_mask", "build"),
                                          ("yolov5_seg_mps_time_limit", "build")])
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, builder: str, tmp_path: Path) -> None:
    module, original, rewritten = _rewritten(name, builder, tmp_path)
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    sets = _sets(module, 1)
    assert_follows_the_batch(original, rewritten, module, example, sets, tmp_path)


@pytest.mark.parametrize("name", list(TAKEN))
def test_migrate_applies_both_rules(name: str, tmp_path: Path) -> None:
    path, report = migrate_with_standin(HERE / f"{name}.py", STANDIN, tmp_path, f"trt361_migrate_{name}")
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    _, producer, callers = TAKEN[name]
    assert ("TRT360", _line_of(path, producer)) in applied and ("TRT361", _line(path, callers[0])) in applied
    assert report["after"]["faithful"] is True


def test_the_process_mask_variants_are_cited_by_distinct_owners() -> None:
    assert_cited_by_distinct_owners(HERE, PROCESS_MASK, count=5)


def test_ultralytics_later_nms_is_taken_and_its_if_else_caller_is_not() -> None:
    """YOLOv10's copy of ultralytics' ``non_max_suppression`` (``bs`` counted before ``prediction`` is transposed and,
    under ``if in_place:`` / ``else:``, written in place or concatenated along its last axis; the sort only under
    ``if n > max_nms:``): TRT360 rewrites the loop. Its caller binds each image's masks by ``if not len(pred):`` /
    ``else:`` and appends them after: a form TRT361 does not take (the empty entry's shape and dtype against the
    function's are not read), so the caller's loop is kept."""
    path = HERE / "yolov10_segment_process_mask.py"
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.rule, f.line) for f in found] == [("TRT360", _line_of(path, "for xi, x in enumerate(prediction):"))]
    assert "not rewritten" not in found[0].message
    after = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert "_trt_nms_by_image(" in after and "_trt_image_blocks" not in after


def test_masks_from_every_image_s_prototypes_at_once(tmp_path: Path) -> None:
    """YOLOv7-seg's ``process_mask(proto[index], det[:, 6:], ...)`` under ``if det.shape[0]:``: while tracing it runs
    once on every image's rows, with every image's prototypes one after another and each row's coefficients at its
    image's block; the graph gives each row its own image's mask at other batches, for an image without rows beside
    others, and where no image has any (the resize then works on no mask at all)."""
    module, original, rewritten = _rewritten("yolov7_seg_process_mask", "build", tmp_path)
    text = (tmp_path / "yolov7_seg_process_mask_rewritten.py").read_text()
    assert "process_mask(_trt_image_channels(proto), _trt_image_blocks(_trt_flat[:, 6:], _trt_flat_image, " \
           "proto.shape[0]), _trt_flat[:, :4], images.shape[2:], upsample=True)" in text, text
    assert "if _trt_flat.shape[0]:" in text
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "masks.onnx", tmp_path)
    none = torch.zeros(2, 3, 32, 32)
    none[:, 2] = -30.0  # no candidate over the threshold in any image
    mixed = torch.cat([none[:1], module.inputs(seeded(3))[0][:1], none[:1]])  # rows in the middle image only
    with torch.no_grad():
        assert original(none)[0].shape[0] == 0 and original(mixed)[0][:, 6].unique().tolist() == [1.0]
        assert original(*example)[1].sum() > 0  # masks that are not all empty
    for label, images in {"none": none, "mixed": mixed, "batch-4": module.inputs(seeded(4))[0].repeat(2, 1, 1, 1),
                          "negatives": -module.inputs(seeded(5))[0]}.items():
        assert_graph_within(session, original, (images,), 1e-5, label)
