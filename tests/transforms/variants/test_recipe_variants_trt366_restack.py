"""TRT366's batch handed on as its rows and stacked back, on real-code variants.

Each variant in ``tests/recipe_variants/trt366_restack/`` is a small runnable model reduced from oriented_det 0.4.1
(cited in its docstring): the RetinaNet export wrapper's ``torch.unbind(images, dim=0)`` handed to the feature helper
that stacks it (zoo 29's ``od_retinanet_r18_heads``), the FCOS forward over a sequence of images called with
``list(x)`` (zoo 29's ``od_*_rows`` wrappers' call), and the Faster R-CNN inference function handed ``x.unbind(0)``,
whose callee rebinds a lone tensor to a list before its stack. Exported with a dynamic batch, the original graph
splits the example's two rows and ONNX Runtime refuses batch 3; the rule rewrites both halves from the code alone
(the callee's parameter is annotated as a sequence of tensors): eager mode is unchanged, bit for bit, with
gradients, and the rewritten graph equals eager mode at batch 1, 2 and 3; migrate ends with exit 0.

Two more from other authors hand the rows on as a list comprehension of the batch itself (``[c for c in
cls_preds]``) to mmdetection's ``images_to_levels``, whose ``torch.stack(target, 0)`` makes them a batch again
before it is cut into feature levels: RangiLyu/nanodet's GFL head (with nanodet's ``.squeeze(0)`` per level) and
Bo396543018/Picodet_Pytorch's PicoDet head (the prior centres and strides). There the batch is a parameter of the
caller and the callee's parameter is unannotated, so the rule takes both halves where the recorded run (migrate's
observer) saw them: the comprehension's source hold a tensor and the stack run. With those facts it finds and
rewrites them; from the code alone it leaves them as written. The rewritten graph follows the batch (1, 2, 3, with
infinities, NaN, zeros, negatives), eager mode is unchanged (an empty batch still raises at the stack), and
migrate ends equivalent: with exit 0 for PicoDet's; nanodet's ``.squeeze(0)`` of the batch is left named (exit 1),
since the verifier's batch of one shows it squeezing (``SQUEEZED``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import assert_eager_unchanged, assert_follows_the_batch, axes_json, built, line_of, load_variant, \
    observed_facts, rewrite_variant, seeded, with_specials

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts

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


#: variant (the rows handed on as ``[e for e in x]``, taken with the recorded run's facts) -> the lines as written
#: and as rewritten, caller's first.
LISTED: dict[str, tuple[tuple[str, str], ...]] = {
    "nanodet_gfl_levels_listcomp": (
        ("images_to_levels([c for c in cls_preds], num_level_cells)",
         "images_to_levels(_trt_listed(cls_preds), num_level_cells)"),
        ("images_to_levels([r for r in reg_preds], num_level_cells)",
         "images_to_levels(_trt_listed(reg_preds), num_level_cells)"),
        ("target = torch.stack(target, 0)", "target = _trt_restack(target)")),
    "picodet_center_strides_listcomp": (
        ("images_to_levels([flatten_cs for flatten_cs in flatten_center_and_strides],",
         "images_to_levels(_trt_listed(flatten_center_and_strides),"),
        ("target = torch.stack(target, 0)", "target = _trt_restack(target)")),
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Facts]:
    """Each listed variant's facts from migrate's observer (one run per variant, shared by the tests)."""
    cache: dict[str, Facts] = {}

    def facts(name: str) -> Facts:
        if name not in cache:
            path = HERE / f"{name}.py"
            cache[name] = observed_facts(path, load_variant(path, f"trt366r_o_{name}"), tmp_path_factory.mktemp(name))
        return cache[name]
    return facts  # type: ignore[return-value]


@pytest.mark.parametrize("name", list(LISTED))
def test_listed_rows_found_with_the_recorded_run_at_their_lines(name: str, recorded) -> None:
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    assert check_source(source, str(path.resolve()), Options(select=("TRT366",), scope="all")) == []
    found = check_source(source, str(path.resolve()), Options(select=("TRT366",), scope="all", facts=recorded(name)))
    assert sorted((f.rule, f.line) for f in found) == \
        sorted(("TRT366", line_of(path, written)) for written, _ in LISTED[name]), found


@pytest.mark.parametrize("name", list(LISTED))
def test_listed_rows_rewritten_and_follow_the_batch(name: str, recorded, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt366r_l_{name}")
    options = Options(select=("TRT366",), scope="all", facts=recorded(name))
    text, rewritten_module = rewrite_variant(path, options, tmp_path, f"trt366r_l_rewritten_{name}")
    for written, rewritten in LISTED[name]:
        assert rewritten in text and not [line for line in text.splitlines() if written in line and "``" not in line]
    original, rewritten = built(module), built(rewritten_module)
    assert_follows_the_batch(original, rewritten, module, module.inputs(seeded(0)), _sets(module), tmp_path)
    [example] = module.inputs(seeded(0))
    assert_eager_unchanged(original, rewritten, {"empty": (torch.zeros(0, *example.shape[1:]),)})  # both raise


#: variant -> the squeeze of the batch axis left as written: nanodet's ``target[:, start:end].squeeze(0)`` drops the
#: batch at a batch of one (eager mode returns (cells, C) there, (B, cells, C) otherwise). The verifier's smaller
#: input set is a batch of one, so the observer sees the axis both 1 and not: no observation proves TRT401's
#: unsafe fix (dropping the squeeze, which would return (1, cells, C) at a batch of one), and the graph's ``If``,
#: which follows the batch but TensorRT refuses, stays named: exit 1, the rewritten graph faithful.
SQUEEZED: dict[str, str] = {"nanodet_gfl_levels_listcomp": "level_targets.append(target[:, start:end].squeeze(0))"}


@pytest.mark.parametrize("name", list(LISTED))
def test_listed_rows_migrate(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt366r_lm_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is not True, report["before"]
    assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT366") == \
        sorted(line_of(path, written) for written, _ in LISTED[name]), report["applied"]
    assert report["equivalent"] is True and report["after"]["faithful"] is True, report["after"]
    if name in SQUEEZED:
        assert report["exit_code"] == 1 and report["after"]["trt_errors"] > 0, report["after"]
        assert [(r["rule"], r["op"], r["source"]) for r in report["remaining"]] == \
            [("TRT401", "If", f"{path}:{line_of(path, SQUEEZED[name])}")], report["remaining"]
        return
    assert report["exit_code"] == 0, report["remaining"]
    assert report["after"]["trt_errors"] == 0, report["after"]
