"""The NumPy round-trip rule (TRT394) on real-code variants: a tensor's values through NumPy and back.

Each variant in ``tests/recipe_variants/trt394/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): SSSegmentation's test-time flip (``torch.from_numpy(np.flip(images.cpu().numpy(),
axis=3).copy())`` on the images and, with ``.type_as``, on the scores), the flip test of Microsoft's Simple Baselines
(the same flip with a positional axis, split over two statements through a name the second rebinds) and
HRNet-Semantic-Segmentation's flip inference (NumPy's flip as a reversed slice, ``image.numpy()[:, :, :, ::-1]``,
split over two statements, once through a name nothing reads again and once rebound), AdaBins' mirrored depth pass
(``torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy())``: the legacy constructor, which shares an array of
the default dtype and converts any other, around ``np.array``, NumPy's copy; the rule did not take either before) and
TransPose's flip test (Simple Baselines' two statements under another author's transformer pose model, its outputs a
list). Rewritten from the code alone
(``--unsafe``; nothing without it), eager mode is unchanged on real inputs (the example, other sizes, zeros,
negatives, inf and NaN, an empty batch; as given and requiring gradients), the original's TorchScript graph,
exported with the variant's dynamic axes, differs from eager mode at another size while the rewritten one equals it
everywhere, and ``migrate`` applies TRT394 at each round trip, verified, and ends at exit 0 with a faithful graph
TensorRT's check passes (TRT702's finding of the `.numpy()` TRT394 removed is superseded, as migrate's plan says).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_graph_within,
                            assert_unsafe_rewrite, export_variant, graph_matches, rewritten_variant, seeded)

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt394"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its round trips become from the code alone.
TAKEN: dict[str, tuple[str, ...]] = {
    "sssegmentation_flip_tta": (
        "images_flip = torch.flip(images.cpu(), (3,)).contiguous()",
        "seg_logits_flip = torch.flip(seg_logits_flip.cpu(), (3,)).contiguous().type_as(seg_logits)"),
    "simple_baselines_flip_test_split": (
        "input_flipped = torch.flip(input.cpu(), (3,)).contiguous()\n"
        "        input_flipped = input_flipped.to(input.device)\n",),
    "hrnet_seg_flip_inference": (
        "flip_img = torch.flip(image, (3,))\n        flip_output = self.model(flip_img.contiguous())\n",
        "flip_pred = flip_output.cpu().clone(memory_format=torch.contiguous_format)\n"
        "        flip_pred = torch.flip(flip_pred, (3,)).contiguous()\n"),
    # the legacy constructor (the default dtype) around NumPy's copy, `np.array`, of a reversed slice
    "adabins_flip_predict": (
        "image = torch.flip(image.cpu().clone(), (-1,)).contiguous().to(torch.get_default_dtype()).to(self.device)",),
    "transpose_flip_test_split": (
        "input_flipped = torch.flip(input.cpu(), (3,)).contiguous()\n"
        "        input_flipped = input_flipped.to(input.device)\n",),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "sssegmentation_flip_tta": [(1, 8, 12), (3, 6, 10), (2, 5, 7)],
    "simple_baselines_flip_test_split": [(1, 8, 6), (3, 10, 7), (2, 4, 4)],
    "hrnet_seg_flip_inference": [(1, 8, 10), (3, 6, 9), (2, 5, 5)],
    "adabins_flip_predict": [(1, 8, 10), (3, 6, 9), (2, 5, 5)],
    "transpose_flip_test_split": [(1, 8, 10), (3, 10, 6), (2, 4, 4)],
}


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted(TAKEN) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS, count=len(VARIANTS))


def _sets(module, name: str) -> dict[str, tuple]:
    example = module.inputs(seeded(0))
    special = example[0].clone().flatten()
    special[:4] = torch.tensor([float("inf"), float("nan"), -float("inf"), -0.0])
    return {"example": example,
            **{f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in SIZES[name]},
            "zeros": (torch.zeros_like(example[0]),), "negatives": (-example[0].abs() - 1,),
            "inf-nan": (special.reshape(example[0].shape),), "empty batch": (example[0][:0],)}


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_rewritten_from_the_code_alone_keeps_eager_and_follows_the_input(name: str, tmp_path: Path) -> None:
    variant = rewritten_variant(HERE / f"{name}.py", "TRT394", tmp_path)
    assert_unsafe_rewrite(variant, TAKEN[name], "TRT394")
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    sets = _sets(module, name)
    # Values, dtype, shape, strides, exceptions, as given and with the input requiring gradients: each original's
    # inference runs without them, where `.numpy()` takes such a tensor too.
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    other = sets[f"sizes {SIZES[name][0]}"]
    assert not graph_matches(before, original, other)  # the example's mirror image, recorded as a constant
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():  # inf, NaN and the empty batch included
        assert_graph_within(after, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_migrate_applies_the_rule_and_proves_it(name: str) -> None:
    """``migrate`` applies TRT394 at each round trip, verified, and ends at exit 0: nothing remains, TRT702's finding
    of the same `.numpy()` included (before the plan said TRT394 supersedes it, it was left at every line fixed)."""
    from support import migrate_json
    from variant_models import axes_json, load_variant

    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt394_proof_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    fixed = {fix["line"] for fix in report["applied"] if fix["rule"] == "TRT394"}
    [call] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    assert call in fixed and len(fixed) == len(TAKEN[name]), report["applied"]
    assert report["equivalent"] is True and report["reverted"] == [], report.get("reverted")
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert report["remaining"] == [] and report["exit_code"] == 0, report["remaining"]
