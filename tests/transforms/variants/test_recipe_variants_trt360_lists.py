"""Per-image NMS loops that fill further lists beside the rows (TRT360) and their callers' flattening (TRT361), on
real-code variants.

Each variant in ``tests/recipe_variants/trt360_lists/`` is a small runnable model reduced from real code (cited in
its docstring), by five owners: CoreYOLO's ``non_max_suppression`` (zoo 94: each image read channels first, the mask
coefficients an optional second list, filled under ``if extra is not None:``, an empty entry appended to both lists
before ``continue``, NMS on the CPU) and its caller's ``process_mask`` on ``coeffs[index]``; Roboflow inference's
instance-segmentation NMS (channels first, four tensors picked by one mask, a per-class threshold tensor as a
setting, class-agnostic ids by ``zeros_like``) and its caller's ``[det[:, 6:] for det in found]``; py-feat's
RetinaFace ``batched_nms`` (three lists side by side, ``torch.ops.torchvision.nms``) and its caller's
``torch.cat(final_landmarks)``; super-gradients' YOLO-NAS-Pose callback (``zip(*predictions)``, ``torch.topk``'s
result read as ``.indices``, each entry cut to its first rows) and its caller's unpacked entries; the ultralytics
package's own NMS as 8.4 has it (the batch zipped with each candidate's index, ``x[:, :4] = xywh2xyxy(x[:, :4])`` of a
function that checks its input's type and last size, a sort in two steps, ``import torchvision`` in the loop, a second
list of kept indices written under ``return_idxs``).

The TorchScript export unrolls the loops with the example's batch. Rewritten from the code alone, each graph equals
eager mode at batches of 1, 3 and 5, on zeros, negatives and tied scores, and, where the variant has one, with an
image that keeps no row; eager mode is the loops themselves; ``migrate`` applies the rules at first contact and ends
at exit 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from variant_models import assert_cited_by_distinct_owners, assert_follows_the_batch, built_variant, \
    migrate_with_standin, seeded
from variant_models import TORCHVISION_STANDIN as STANDIN, line_of as _line_of, load_variant

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt360_lists"
RULES = ("TRT360", "TRT361")
CODE_ALONE = Options(select=RULES, scope="all")
UNSAFE = Options(select=RULES, scope="all", unsafe=True)
torchvision_standin = load_variant(STANDIN, "torchvision_standin")

#: variant -> (TRT360's loop header, TRT361's callers, a line of the rewrite, the fill that empties an image or None).
TAKEN: dict[str, tuple[str, tuple[str, ...], str, float | None]] = {
    "coreyolo_nms_extra_masks": (
        "for i in range(batch):", ("for index, det in enumerate(found):",),
        "extra_out = _trt_per_image_list(feat[keep_idx], _trt_rows_image, _trt_count)", 40.0),
    "roboflow_nms_instance_segmentation": (
        "for b in range(bs):", ("rows = torch.cat([torch.cat([det[:, :6],", "coefficients = torch.cat([det[:, 6:] for det in"),
        "coefficients = torch.cat([_trt_flat[:, 6:]])", 40.0),
    "pyfeat_retinaface_batched_nms_landmarks": (
        "for i in range(batch_size):", ("for i, d in enumerate(final_boxes)])", "return rows, torch.cat(final_lan"),
        "final_landmarks = _trt_per_image_list(landmarks.flatten(0, 1)[keep], _trt_rows_image, _trt_count)", None),
    "super_gradients_yolo_nas_pose_nms": (
        "in zip(*predictions):", ("rows = torch.cat([torch.cat([bboxes,", "poses = torch.cat([poses."),
        "pred_bboxes_conf = pred_bboxes_conf[topk_candidates]", 40.0),
    # the second list written by the image's index only under `return_idxs`: the tracing branch taken where it is off
    "ultralytics_nms_zip_indices": (
        "for xi, (x, xk) in enumerate(zip(prediction, xinds)):", ("for index, det in enumerate(found):",),
        "_trt_tracing() and not (return_idxs) and (use_torchvision) and not (rotated):", 40.0),
}


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)
    monkeypatch.setitem(sys.modules, "torchvision.ops", torchvision_standin.ops)


def test_the_variants_come_from_five_owners() -> None:
    assert_cited_by_distinct_owners(HERE, list(TAKEN), count=5)


@pytest.mark.parametrize("name", list(TAKEN))
def test_the_loops_and_their_callers_are_found_and_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    loop, callers, line, _ = TAKEN[name]
    found = sorted((f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE))
    # (CoreYOLO's segmenter and detector call the loop alike: its header twice)
    expected = [("TRT360", _line_of(path, loop)), *(("TRT361", at) for caller in set(callers)
                                                    for at in _lines(path, caller))]
    assert found == sorted(expected)
    after = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    assert line in after, after
    # every loop and concatenation kept for eager code, once
    assert all(sum(caller in row for row in after.splitlines() if "``" not in row) == (2 if name.startswith("core")
               else 1) for caller in callers), after


def _lines(path: Path, fragment: str) -> list[int]:
    """The lines of code in ``path`` that hold ``fragment`` (docstrings quote code in ``)."""
    return [at for at, text in enumerate(path.read_text().splitlines(), 1) if fragment in text and "``" not in text]


def _sets(name: str, seed: int) -> dict[str, tuple[torch.Tensor]]:
    def images(batch: int) -> torch.Tensor:
        return torch.rand(batch, 3, 32, 32, generator=seeded(seed + batch))

    ties = images(2)
    ties[:, :, :, 16:] = ties[:, :, :, :16]  # every window twice: equal scores, overlapping boxes
    sets = {"batch-1": (images(1),), "batch-3": (images(3),), "batch-5": (images(5),),
            "zeros": (torch.zeros(2, 3, 32, 32),), "negatives": (-images(3),), "ties": (ties,)}
    fill = TAKEN[name][3]
    if fill is not None:
        empty = images(3)
        empty[1] = fill  # the middle image: no candidate over the threshold
        sets["an-image-without-rows"] = (empty,)
    return sets


def _counts(rows: torch.Tensor, batch: int) -> list[int]:
    return [int((rows[:, -1] == j).sum()) for j in range(batch)]


@pytest.mark.parametrize("name,builder", [(name, "build") for name in TAKEN]
                         + [("coreyolo_nms_extra_masks", "build_detector")])
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, builder: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode())
    module, _ = built_variant(path, f"trt360_lists_{name}")
    rewritten_module, _ = built_variant(new_path, f"trt360_lists_rewritten_{name}")
    original, rewritten = getattr(module, builder)(), getattr(rewritten_module, builder)()
    rewritten.load_state_dict(original.state_dict())
    sets = _sets(name, 1)
    found = original(*sets["batch-3"])
    rows = found[0] if isinstance(found, tuple) else found
    assert min(_counts(rows, 3)) > 0  # every image keeps rows, and a second output of them (where there is one)
    assert not isinstance(found, tuple) or found[1].shape[0] == rows.shape[0] and found[1].abs().sum() > 0
    if "an-image-without-rows" in sets:
        found = original(*sets["an-image-without-rows"])
        assert _counts(found[0] if isinstance(found, tuple) else found, 3)[1] == 0
    assert_follows_the_batch(original, rewritten, module, module.inputs(seeded(0)), sets, tmp_path)


@pytest.mark.parametrize("name", ["coreyolo_nms_extra_masks", "super_gradients_yolo_nas_pose_nms",
                                  "ultralytics_nms_zip_indices"])
def test_migrate_applies_the_rewrites_at_first_contact(name: str, tmp_path: Path) -> None:
    path, report = migrate_with_standin(HERE / f"{name}.py", STANDIN, tmp_path, f"trt360_lists_migrate_{name}")
    assert report["before"]["faithful"] is not True, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    loop, callers, _, _ = TAKEN[name]
    assert ("TRT360", _line_of(path, loop)) in applied and ("TRT361", _lines(path, callers[0])[0]) in applied, applied
    assert report["after"]["faithful"] is True
