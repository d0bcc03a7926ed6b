"""The chained-inplace-view rule (TRT387) on real-code variants: two or more in-place calls chained on a subscript.

Each variant in ``tests/recipe_variants/trt387/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): l5kit's Urban Driver (the lanes' types, ``indices[:, a:b].copy_(...).add_(5)``),
torchvision's v2 box flip (``bounding_boxes[:, 0].add_(bounding_boxes[:, 2]).sub_(width).neg_()``), BSL-1K's clip
normalisation (``x[:, 0].sub_(mean[0]).div_(std[0])``), PyTorch-GAN's ESRGAN de-normalisation
(``tensors[:, c].mul_(std[c]).add_(mean[c])``) and timm's NaFlex Mixup targets (``targets[i].mul_(lam).add_(...)``).
Every original exports with the TorchScript exporter without an error and its graph differs from eager mode even
on the inputs it was traced with. The first two are rewritten from the code alone by the safe rule (no
``--unsafe``): eager mode is unchanged and the rewritten graph, exported with the variant's dynamic axes, equals
eager mode on other inputs. In the last three the chain's base is a parameter the code does not show to be a
tensor, so the code alone leaves them; ``migrate``, with the facts of a recorded run, applies TRT387's unsafe form
there, proved by the tensors it saw. On all five ``migrate`` applies TRT387 at the line and ends at exit 0 with a
faithful graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import rules_found
from variant_models import assert_cited_by_distinct_owners, assert_migrate_corrects, assert_safe_rewrite_corrects

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt387"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its chains become from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "l5kit_vectorized_embedding": (
        "            indices[:, lanes_start_idx:crosswalks_start_idx].copy_(lanes_mid[:, :, 0, -1])\n"
        "            indices[:, lanes_start_idx:crosswalks_start_idx].add_(\n"
        "                self.polyline_types[\"TL_UNKNOWN\"]\n            )\n",),
    "torchvision_box_flip": (
        "        bounding_boxes[:, 0].add_(bounding_boxes[:, 2])\n        bounding_boxes[:, 0].sub_(canvas_size[1])\n"
        "        bounding_boxes[:, 0].neg_()\n",
        "    else:  # CXCYWH\n        bounding_boxes[:, 0].sub_(canvas_size[1])\n        bounding_boxes[:, 0].neg_()\n",
        "        bounding_boxes[:, [2, 0]] = bounding_boxes[:, [0, 2]].sub_(canvas_size[1]).neg_()\n"),
}
#: variant -> input sets (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "l5kit_vectorized_embedding": [(1, 2), (4, 5)],
    "torchvision_box_flip": [(1, 20), (9, 48)],
}
#: Variants whose chain's base the code alone does not show to be a tensor: migrate's facts do.
FACTS_ONLY = ("bsl1k_color_normalize", "pytorch_gan_esrgan_denormalize", "timm_naflex_mixup_target")


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted((*CODE_ALONE_CALLS, *FACTS_ONLY)) and sorted(CODE_ALONE_CALLS) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS)


@pytest.mark.parametrize("name", sorted(CODE_ALONE_CALLS))
def test_rewritten_from_the_code_alone_matches_eager(name: str, tmp_path: Path) -> None:
    assert_safe_rewrite_corrects(HERE / f"{name}.py", "TRT387", tmp_path, CODE_ALONE_CALLS[name], SIZES[name])


@pytest.mark.parametrize("name", FACTS_ONLY)
def test_the_code_alone_leaves_what_it_cannot_show(name: str) -> None:
    assert rules_found((HERE / f"{name}.py").read_text(), select=("TRT387",)) == []


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_corrects(HERE / f"{name}.py", "TRT387", f"trt387_migrate_{name}")
