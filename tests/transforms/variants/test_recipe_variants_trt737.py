"""Each image's rows picked by an image-index column, sorted and capped (TRT737), on real-code variants.

Each variant in ``tests/recipe_variants/trt737/`` is a small runnable model reduced from real code (cited in its
docstring): fastface 0.1.4's ``FaceDetector._postprocess`` (the image column 5 of rows with a score in 4), its later
form that keeps the landmarks and reads the image from the last column (``preds[:, -1]``), a CenterNet head's
``decode`` by the same author (the image column 0, the score in 5, the loop's count from ``cls_logits.shape[0]``, the
concatenation scaled in place afterwards), and United-Perception's ``RpnMerger.merge`` (ModelTC: the image column 0,
the rows picked by the mask itself, an image without rows skipped by ``continue``, a sorted TopK of K =
``min(top_n, rows)`` as the sort and the cap). The first three are one author's (borhanMorphy), the fourth another
owner's: two owners, so the recipe's bar of five owners is NOT met here. NOT_TAKEN lists the relatives of other
authors that were read and why they stay out (a code search over detection, 3-D detection, keypoint and deployment
code found no other owner's loop of this meaning in a form to take: parallel tensors, comprehensions, padded slots
or contiguous blocks instead of one rows tensor picked image by image).

From the code alone the rule finds each loop and writes the helper call; eager mode is the loop itself (unchanged on
every set); the original's TorchScript export unrolls the loop with the example's two images, the rewritten one's
graph equals eager mode at batches of 1, 3 and 5, with an image that keeps no row, on zeros, negatives and tied
scores, where images keep more rows than the cap; ``migrate`` applies TRT737 at first contact and ends at exit 0.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_follows_the_batch,
                            axes_json, built_variant, export_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt737"
UNSAFE = Options(select=("TRT737",), scope="all", unsafe=True)

#: variant -> (the helper call the rewrite appends, the image column's index in the output rows, the cap)
TAKEN: dict[str, tuple[str, int, int]] = {
    "fastface_postprocess": (
        "batch_preds.append(_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size))", 5, 4),
    "fastface_landmarks_last_column": (
        "batch_preds.append(_trt_rows_by_image(preds, preds[:, -1], preds[:, 4], True, keep_n, batch_size))", -1, 3),
    "centernet_head_decode": (
        "batch_preds.append(_trt_rows_by_image(preds, preds[:, 0], preds[:, 5], True, keep_n, "
        "cls_logits.shape[0]))", 0, 3),
    "modeltc_rpn_merger": (
        "merged_rois.append(_trt_rows_by_image(mlvl_rois, mlvl_rois[:, 0], mlvl_rois[:, 5], True, self.top_n, B))",
        0, 3),
}

#: variant -> the score column of its output rows, and where its cap is set (attributes from the model down)
SCORE_COLUMN = {"fastface_postprocess": 4, "fastface_landmarks_last_column": 4, "centernet_head_decode": 5,
                "modeltc_rpn_merger": 5}
CAP_AT = {"fastface_postprocess": ("keep_n",), "fastface_landmarks_last_column": ("keep_n",),
          "centernet_head_decode": ("keep_n",), "modeltc_rpn_merger": ("merger", "top_n")}
#: one variant of each owner (the others are the same owner's)
BY_OWNER = ["fastface_postprocess", "modeltc_rpn_merger"]

#: Relatives of the recipe by other authors, found by code search and left out (their repositories not pinned
#: to a commit here: the search's excerpts do not name them).
NOT_TAKEN = {
    "PVT-SSD fps_pool_layer": "three tensors picked by one mask `points[:, 0] == bs_idx` and `torch.topk` of a "
                              "sigmoid with K = min(count, MAX_NPOINTS): several parallel tensors, not one rows tensor",
    "VoxelNeXt _topk_1d": "two nested TopKs (per class, then over classes) of a masked score table, returning "
                          "indices and classes: not rows sorted and capped",
    "PVT-SSD-like vote and key-voxel layers": "`indices[indices[:, 0] == bs_idx]` and `features[...]` (up to four "
                                              "tensors by one mask), `torch.topk` of a sigmoid with a fixed K: "
                                              "several parallel tensors, and a K the image may lack rows for",
    "LightGlue SuperPoint (cvg/LightGlue @ 1fd587b6f5a7a0befd31188f1e5d2f05740006d7, lightglue/superpoint.py:"
    "189-205, 224)": "`best_kp = torch.where(scores > threshold)` over the batch, then list comprehensions "
                     "`[torch.stack(best_kp[1:3], -1)[best_kp[0] == i] for i in range(b)]` and the scores alike, "
                     "each image capped by `top_k_keypoints` (a TopK in a function of its own), then "
                     "`torch.stack`: parallel lists, comprehensions, a stack (equal counts), not one rows tensor "
                     "concatenated",
    "super-gradients PickNMSPredictionsAndReturnAsBatchedResult (Deci-AI/super-gradients @ "
    "0515496b76db7e53cba771e6d867122c25dfb283, src/super_gradients/conversion/onnx/nms.py:93-99)":
        "each image's NMS rows picked by a mask row `predictions[masks[i]]`, padded and cut to "
        "`max_predictions_per_image` and written into a fixed slot `batch_predictions[i]`: no sort (the NMS order), "
        "padded slots of a batch fixed at construction, not a concatenation (TRT393's kind); its flat form is "
        "already computed at once",
    "an OpenMMLab-derived easydeploy `sort_nms_index` (found by code search; repository not named)":
        "the NMS index rows sorted by their image column, then per image a slice `[start:end]` of the contiguous "
        "block re-sorted by score in place and cut by rebuilding the tensor with `torch.cat`: blocks by cumulative "
        "counts and in-place writes, not a pick by the image column",
    "a Faster R-CNN's RPN (found by code search; repository not named)":
        "`keep = torch.cat([keep[imidx[keep] == i][:imtop] for i in range(n)])` after a batched NMS: a list "
        "comprehension over an index vector with the image read from a parallel tensor, no for loop appending",
    "United-Perception's RetinaMerger / RetinaMergerMultiCls (same file as RpnMerger)":
        "the same per-image pick, but a per-class NMS between the sort and the cap: an NMS, not rows sorted and "
        "capped (the owner is counted once, by RpnMerger)",
    "a Caffe-style SSD DetectionOutput port (found by code search; repository not named)":
        "per image, the per-class NMS outputs concatenated, then that image's rows sorted by score and cut to "
        "`keep_top_k`: an NMS before the sort, and rows built image by image, not picked by an image column",
    "a two-stage detector's test-time box head (found by code search; repository not named)":
        "`img_idxs = torch.where(proposals[:, 0] == batch_id)[0]`, then a loop over the classes with an NMS each: "
        "the pick of this recipe followed by NMS, not a sort and a cap",
    "United-Perception's training targets and an older NumPy evaluation helper of the same lineage (ModelTC)":
        "`proposals[proposals[:, 0] == b_ix]` sliced to boxes for target assignment (training, no sort), and "
        "`nmsed_bboxes[nmsed_bboxes[:, 0] == b_ix]`, `scores.argsort()[::-1][:top_n]`, `np.vstack`: NumPy, "
        "outside any traced graph; the owner is counted once, by RpnMerger",
    "sparse 3-D heads' target assignment (VoxelNeXt-like, found by code search)":
        "`spatial_indices[spatial_indices[:, 0] == bs_idx]` handed to a per-sample target builder: training, no "
        "sort, and the rows go to a function, not a concatenation",
    "YOLO-style plotting and label utilities (`targets[targets[:, 0] == i]`, found by code search)":
        "each image's label rows picked by the image column for drawing or matching: NumPy or training code, no "
        "sort and cap, nothing exported",
}


def _sets(seed: int) -> dict[str, tuple[torch.Tensor]]:
    def images(batch: int) -> torch.Tensor:
        return torch.rand(batch, 3, 32, 32, generator=seeded(seed + batch))

    ties = images(2)
    ties[:, :, :, 16:] = ties[:, :, :, :16]  # every window twice: tied scores within an image
    empty = images(3)
    return {"batch-1": (images(1),), "batch-3": (images(3),), "batch-5": (images(5),),
            "an-image-without-rows": (empty,), "zeros": (torch.zeros(2, 3, 32, 32),),
            "negatives": (-images(3),), "ties": (ties,)}


#: A fill that leaves the middle image of "an-image-without-rows" no row over the threshold.
EMPTY_FILL = {"fastface_postprocess": 40.0, "fastface_landmarks_last_column": 40.0, "centernet_head_decode": -40.0,
              "modeltc_rpn_merger": 40.0}


def _variant_sets(name: str) -> dict[str, tuple[torch.Tensor]]:
    sets = _sets(1)
    sets["an-image-without-rows"][0][1] = EMPTY_FILL[name]
    return sets


def _loop_line(path: Path, call: str) -> int:
    """The line whose code is the loop's header (``CALL`` itself also holds it)."""
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == call]
    return line


def _counts(rows: torch.Tensor, column: int, batch: int) -> list[int]:
    return [int((rows[:, column] == j).sum()) for j in range(batch)]


@pytest.fixture(scope="module", params=list(TAKEN))
def variant(request, tmp_path_factory) -> dict:
    """The variant's path, its rewritten text, and both models (same weights), built once for its tests."""
    name = request.param
    path = HERE / f"{name}.py"
    folder = tmp_path_factory.mktemp(f"trt737_{name}")
    text = fix_source(path.read_bytes(), str(path.resolve()), UNSAFE).source.decode()
    (folder / f"{name}_rewritten.py").write_text(text)
    module, original = built_variant(path, f"trt737_{name}")
    _, rewritten = built_variant(folder / f"{name}_rewritten.py", f"trt737_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    return {"name": name, "path": path, "text": text, "module": module, "original": original,
            "rewritten": rewritten, "folder": folder}


def test_the_loop_is_found_and_rewritten_from_the_code_alone(variant: dict) -> None:
    path, name = variant["path"], variant["name"]
    found = [(f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()), UNSAFE)]
    assert found == [("TRT737", _loop_line(path, variant["module"].CALL))], found
    text = variant["text"]
    assert f"            {TAKEN[name][0]}\n" in text, text
    assert "def _trt_rows_by_image(" in text and "        if _trt_tracing():\n" in text, text
    # the loop kept for eager code, under the tracing test's else
    assert f"        else:\n            {variant['module'].CALL}\n" in text, text


def test_eager_is_unchanged_and_the_graph_follows_the_batch(variant: dict) -> None:
    name, original = variant["name"], variant["original"]
    sets = _variant_sets(name)
    column, cap = TAKEN[name][1], TAKEN[name][2]
    *path, attribute = CAP_AT[name]
    holder = original
    for step in path:
        holder = getattr(holder, step)
    with torch.no_grad():
        # the cap bites (an image has more rows than it without the cap), and one image keeps none
        original_cap = getattr(holder, attribute)
        assert original_cap == cap
        setattr(holder, attribute, 10 ** 6)
        uncapped = _counts(original(*sets["batch-3"]), column, 3)
        setattr(holder, attribute, original_cap)
        assert max(uncapped) > cap, uncapped
        assert max(_counts(original(*sets["batch-3"]), column, 3)) == cap
        assert _counts(original(*sets["an-image-without-rows"]), column, 3)[1] == 0
        scores = original(*sets["ties"])[:, SCORE_COLUMN[name]]
        assert scores.unique().numel() < scores.numel()  # tied scores among the kept rows
    ties = sets.pop("ties")
    example = variant["module"].inputs(seeded(0))
    assert_follows_the_batch(original, variant["rewritten"], variant["module"], example, sets, variant["folder"])
    # tied scores: eager mode unchanged; the graph keeps ties in their rows' order (the rule's assumption), which is
    # the loop run with a stable sort (the loop's own sort or TopK may order them otherwise, and the cap may cut
    # through them)
    assert_eager_unchanged(original, variant["rewritten"], {"ties": ties})
    session, _ = export_variant(variant["rewritten"], example, variant["module"].DYNAMIC,
                                variant["folder"] / "ties.onnx", variant["folder"])
    with mock.patch.object(torch.Tensor, "sort", _stable_sort), mock.patch.object(torch, "topk", _stable_topk), \
            torch.no_grad():
        want = original(*ties).numpy()
    [got] = session.run(None, {"x": ties[0].numpy()})
    assert got.shape == want.shape and np.allclose(got, want, rtol=0, atol=1e-5), (got, want)


def _stable_sort(self: torch.Tensor, *args, **kwargs):
    return torch.sort(self, *args, stable=True, **kwargs)


_SORT = torch.sort


def _stable_topk(values: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """``torch.topk`` with ties kept in their positions' order: a stable sort cut at ``k``."""
    assert sorted and dim in (0, -1) and values.dim() == 1
    kept, order = _SORT(values, descending=largest, stable=True)
    return kept[:k], order[:k]


def test_migrate_applies_the_rule_at_first_contact(variant: dict, tmp_path: Path) -> None:
    path = tmp_path / variant["path"].name
    shutil.copy(variant["path"], path)
    report = migrate_json(path, axes_json(variant["module"]))
    assert report["before"]["faithful"] is not True, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT737", _loop_line(path, variant["module"].CALL)) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
    assert report["after"]["faithful"] is True, report["after"]


def test_the_variants_cite_their_sources() -> None:
    # each cites one repository at a full commit; one variant of each owner: as many owners as those variants
    for name in TAKEN:
        assert_cited_by_distinct_owners(HERE, [name], count=1)
    assert_cited_by_distinct_owners(HERE, BY_OWNER, count=len(BY_OWNER))
    owners = {re.search(r"\b([\w.-]+)/[\w.-]+ @ ", (HERE / f"{name}.py").read_text()).group(1) for name in TAKEN}
    assert owners == {"borhanMorphy", "ModelTC"}, owners  # the recipe's bar of five owners is not met (docstring)
