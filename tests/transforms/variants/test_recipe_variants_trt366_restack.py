"""TRT366's batch handed on as its rows and stacked back, on real-code variants.

Each variant in ``tests/recipe_variants/trt366_restack/`` is a small runnable model reduced from oriented_det 0.4.1
(cited in its docstring): the RetinaNet export wrapper's ``torch.unbind(images, dim=0)`` handed to the feature helper
that stacks it (zoo 29's ``od_retinanet_r18_heads``), the FCOS forward over a sequence of images called with
``list(x)`` (zoo 29's ``od_*_rows`` wrappers' call), and the Faster R-CNN inference function handed ``x.unbind(0)``,
whose callee rebinds a lone tensor to a list before its stack. Exported with a dynamic batch, the original graph
splits the example's two rows and ONNX Runtime refuses batch 3; the rule rewrites both halves from the code alone
(the callee's parameter is annotated as a sequence of tensors): eager mode is unchanged, bit for bit, with
gradients, and the rewritten graph equals eager mode at batch 1, 2 and 3; migrate ends with exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import assert_follows_the_batch, axes_json, built, load_variant, rewrite_variant, seeded, \
    with_specials

from trtcodemod.engine import Options

HERE = TESTS / "recipe_variants" / "trt366_restack"

#: variant -> the rewritten caller and callee lines.
VARIANTS: dict[str, tuple[str, ...]] = {
    "retinanet_heads_unbind": ("rows: Sequence[torch.Tensor] = _trt_unbound(torch.unbind(images, dim=0), images)",
                               "batch = _trt_restack(images)"),
    "fcos_forward_list": ("return self.m(_trt_listed(x))", "images_tensor = _trt_restack(images)"),
    "faster_rcnn_inference_unbind": ("return region_scores(self.net, _trt_unbound(x.unbind(0), x))",
                                     "images_tensor = _trt_restack(images)"),
}


def _sets(module) -> dict[str, tuple[torch.Tensor, ...]]:
    [example] = module.inputs(seeded(0))
    shape = tuple(example.shape[1:])
    return {"batch-1": (with_specials((1, *shape), 1),), "batch-3": (with_specials((3, *shape), 3),),
            "zeros": (torch.zeros(2, *shape),), "negatives": (-example.abs() - 1,)}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewritten_and_follows_the_batch(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt366r_{name}")
    text, rewritten_module = rewrite_variant(path, Options(select=("TRT366",), scope="all"), tmp_path,
                                             f"trt366r_rewritten_{name}")
    for fragment in VARIANTS[name]:
        assert fragment in text, text
    original, rewritten = built(module), built(rewritten_module)
    assert_follows_the_batch(original, rewritten, module, module.inputs(seeded(0)), _sets(module), tmp_path)


@pytest.mark.parametrize("name", ["retinanet_heads_unbind", "fcos_forward_list"])
def test_migrate(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt366r_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is not True, report["before"]
    assert [fix["rule"] for fix in report["applied"]] == ["TRT366", "TRT366"], report["remaining"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
