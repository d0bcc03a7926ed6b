"""TRT360 on a list that only splits batch tensors into one entry an image, and the image column counted by a mask.

DETR's ``PostProcess`` ends in ``[{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]``
(facebookresearch/detr, and the DETR family that copies it); its callers keep each image's detections over a
threshold as rows with the image's index, the column's count read as ``int(keep.sum())``. While tracing, TRT360 makes
the list from the rows flattened (so that TRT361 takes the caller's loop at once), and the column counted by a bool
mask is the mask's image per kept row; written inline (``for index in range(scores.shape[0])``), TRT360 runs the loop
once on the flattened batch. For each: the rewrite's text, eager mode unchanged, and the TorchScript export (batch and
queries dynamic) equal to eager mode at other batches, with no query kept, with every query kept and on NaN logits.
Not taken: a comprehension that computes, a `zip` of one tensor, an `if` in it, a column counted by a sum of values.
The reduced DETR and Deformable DETR variants (tests/recipe_variants/trt360/) migrate to exit 0.
"""

from __future__ import annotations

import io
import shutil
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import migrate_json, rewrite, rules_found
from variant_models import axes_json, built_variant

RULES = ("TRT360", "TRT361")
VARIANT = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt360" / "detr_postprocess_split.py"

_SPLIT = '''import torch


class PostProcess(torch.nn.Module):
    def forward(self, logits, boxes):
        prob = logits.softmax(-1)
        scores, labels = prob[..., :-1].max(-1)
        results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]
        return results


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.post = PostProcess()

    def forward(self, logits, boxes):
        rows = [torch.zeros(0, 7)]
        for index, result in enumerate(self.post(logits, boxes)):
            keep = result["scores"] > 0.5
            image = torch.full((int(keep.sum()), 1), float(index))
            rows.append(torch.cat([result["boxes"][keep], result["scores"][keep, None],
                                   result["labels"][keep, None].float(), image], 1))
        return torch.cat(rows)
'''

_INLINE = '''import torch


class Model(torch.nn.Module):
    def forward(self, logits, boxes):
        prob = logits.softmax(-1)
        scores, labels = prob[..., :-1].max(-1)
        rows = [torch.zeros(0, 7)]
        for index in range(scores.shape[0]):
            keep = scores[index] > 0.5
            image = torch.full((int(keep.sum()), 1), float(index))
            rows.append(torch.cat([boxes[index][keep], scores[index][keep, None],
                                   labels[index][keep, None].float(), image], 1))
        return torch.cat(rows)
'''

#: zoo 90's wrapper over DETR's post-processors: a second list filled under a setting, both made in one statement
_TWO_LISTS = _SPLIT.replace(
    "        self.post = PostProcess()\n",
    "        self.post = PostProcess()\n        self.corners = True\n").replace(
    "        rows = [torch.zeros(0, 7)]\n",
    "        rows, corners = [torch.zeros(0, 7)], [torch.zeros(0, 2)]\n").replace(
    "                                   result[\"labels\"][keep, None].float(), image], 1))\n",
    "                                   result[\"labels\"][keep, None].float(), image], 1))\n"
    "            if self.corners is not None:\n"
    "                corners.append(result[\"boxes\"][keep, :2] * 2)\n").replace(
    "        return torch.cat(rows)\n", "        return torch.cat([torch.cat(rows)[:, :2] - torch.cat(corners), torch.cat(rows)], 1)\n")

#: program -> the lines its rewrite holds
PROGRAMS = {
    "split, then the caller's loop": (_SPLIT, (
        "results = _trt_per_image_list({'scores': scores.flatten(0, 1), 'labels': labels.flatten(0, 1), "
        "'boxes': boxes.flatten(0, 1)}, _trt_image, _trt_count)",
        "and isinstance(scores, torch.Tensor) and scores.dim() >= 2 and isinstance(labels, torch.Tensor) and "
        "labels.dim() >= 2 and isinstance(boxes, torch.Tensor) and boxes.dim() >= 2:",
        "results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]",
        "image = _trt_image_fill(torch.full((keep[keep].shape[0], 1), 0.0), _trt_flat_image[keep])")),
    "two lists, one under a setting": (_TWO_LISTS, (
        "if self.corners is not None:\n                corners.append(_trt_flat[\"boxes\"][keep, :2] * 2)",)),
    "inline": (_INLINE, (
        "keep = scores.flatten(0, 1) > 0.5",
        "image = _trt_image_fill(torch.full((keep[keep].shape[0], 1), 0.0), _trt_image[keep])")),
}


def _inputs(batch: int, queries: int, seed: int, scale: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(batch, queries, 5, generator=generator) * scale, torch.rand(batch, queries, 4, generator=generator)


def _sets() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    nan = _inputs(2, 6, 9)
    nan[0][0, 1] = float("nan")  # a query whose every probability is NaN: never over the threshold
    return {"one image": _inputs(1, 10, 1), "three images, 7 queries": _inputs(3, 7, 2),
            "five images": _inputs(5, 12, 3), "none kept": (torch.zeros(3, 8, 5), torch.rand(3, 8, 4)),
            "all kept": (torch.cat([torch.full((2, 9, 1), 9.0), torch.zeros(2, 9, 4)], 2), torch.rand(2, 9, 4)),
            "NaN logits": nan, "negative boxes": (_inputs(2, 10, 4)[0], -torch.rand(2, 10, 4))}


def _export(model: torch.nn.Module, path: Path) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, _inputs(2, 10, 0), buffer, dynamo=False, opset_version=17,
                          input_names=["logits", "boxes"], output_names=["rows"],
                          dynamic_axes={"logits": {0: "b", 1: "q"}, "boxes": {0: "b", 1: "q"}})
    path.write_bytes(buffer.getvalue())
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _rows(session: ort.InferenceSession, inputs: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    return torch.from_numpy(session.run(None, {"logits": inputs[0].numpy(), "boxes": inputs[1].numpy()})[0])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_image_rows_at_once_while_tracing(name, tmp_path):
    source, fragments = PROGRAMS[name]
    fixed = rewrite(source, unsafe=True, select=RULES)
    for fragment in fragments:
        assert fragment in fixed, fixed
    assert rewrite(fixed, unsafe=True, select=RULES) == fixed  # the kept comprehension is not taken again
    original = import_source(source, tmp_path)["Model"]()
    rewritten = import_source(fixed, tmp_path)["Model"]()
    sets = _sets()
    for label, inputs in sets.items():
        assert torch.equal(original(*inputs), rewritten(*inputs)), label
    before = _export(original, tmp_path / "before.onnx")
    with pytest.raises((AssertionError, Exception)):  # noqa: B017 - two images, unrolled: other rows or a refusal
        assert _rows(before, sets["five images"]).shape == original(*sets["five images"]).shape
    after = _export(rewritten, tmp_path / "after.onnx")
    for label, inputs in sets.items():
        expected, got = original(*inputs), _rows(after, inputs)
        assert got.shape == expected.shape and torch.allclose(got, expected, atol=1e-6, equal_nan=True), label


@pytest.mark.parametrize("comprehension", [
    "[{'scores': s * 2, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]",
    "[{'scores': s} for s in scores]",
    "[{'scores': s, 'labels': l} for s, l in zip(scores, labels) if s.numel()]",
])
def test_comprehensions_that_do_more_than_split_are_left_alone(comprehension):
    source = _SPLIT.replace("[{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]",
                            comprehension)
    assert "TRT360" not in rules_found(source, select=("TRT360",))


@pytest.mark.parametrize("test", ["keep.any()", "index > 0", "result['scores'].numel() and self.corners"])
def test_a_list_filled_under_a_test_of_the_image_is_left_alone(test):
    source = _TWO_LISTS.replace("if self.corners is not None:", f"if {test}:")
    assert source != _TWO_LISTS
    assert rules_found(source, select=("TRT361",)) == []


def test_a_list_filled_under_a_setting_and_a_test_of_the_image_is_left_out_where_the_setting_is_false():
    """zoo 92's YOLOv9 wrapper: `if self.segment and det.shape[0]: masks.append(...)`: the flattened rows are taken
    where the setting is false (the appends never made), the loop otherwise."""
    source = _TWO_LISTS.replace("if self.corners is not None:", "if self.corners and keep.any():")
    fixed = rewrite(source, unsafe=True, select=RULES)
    assert "if not torch.jit.is_scripting() and _trt_tracing() and not (self.corners):" in fixed, fixed
    assert "corners.append(_trt_flat" not in fixed


def test_a_column_counted_by_a_sum_of_values_is_left_alone():
    source = _INLINE.replace("int(keep.sum())", "int(scores[index].sum())")
    assert rules_found(source, select=("TRT360",)) == []


@pytest.mark.parametrize("variant", [VARIANT, VARIANT.with_name("deformable_detr_postprocess_topk.py")],
                         ids=["detr", "deformable-detr"])
def test_the_detr_variants_migrate(variant, tmp_path):
    path = tmp_path / variant.name
    shutil.copy(variant, path)
    module, _ = built_variant(variant, f"{variant.stem}_variant")
    [line] = [i for i, text in enumerate(variant.read_text().splitlines(), 1) if text.strip() == module.CALL]
    report = migrate_json(path, axes_json(module))
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT360", line) in applied and any(rule == "TRT361" for rule, _ in applied), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]


def test_the_detr_variant_with_its_post_processing_in_a_file_of_its_own_migrates(tmp_path):
    """DETR's layout: `PostProcess` (with its asserts on the sizes, which TRT704 rewrites and which read traced sizes
    while tracing) in the library's file, the wrapper's loop in the model's. A read at a line another fix wrote in
    another file does not keep the wrapper's bake (`int(keep.sum())`, in the loop TRT361 rewrote whole) an error."""
    text = VARIANT.read_text()
    start, end = text.index("def box_cxcywh_to_xyxy"), text.index("class Detector")
    library = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n" + text[start:end]
    library = library.replace(
        '        out_logits, out_bbox = outputs["pred_logits"], outputs["pred_boxes"]\n',
        '        out_logits, out_bbox = outputs["pred_logits"], outputs["pred_boxes"]\n\n'
        "        assert len(out_logits) == len(target_sizes)\n        assert target_sizes.shape[1] == 2\n")
    assert "assert len(out_logits)" in library
    (tmp_path / "detr_post.py").write_text(library)
    model = tmp_path / "detr_model.py"
    model.write_text(text[:start] + "from detr_post import PostProcess\n\n\n" + text[end:])
    module, _ = built_variant(VARIANT, "detr_postprocess_split_two_files")
    report = migrate_json(model, axes_json(module))
    applied = {fix["rule"] for fix in report["applied"]}
    assert {"TRT360", "TRT361", "TRT704"} <= applied, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]

