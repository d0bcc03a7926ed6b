"""The stacked-row-gather recipe (TRT358) on real-code variants.

Each variant in ``tests/recipe_variants/trt358/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose FCOS detection head takes each image's top-k candidates in a
loop over the batch, ``_boxes.append(boxes[batch][topk_ind[batch]])``, and stacks the lists:
zhenghao977's (square root of score times centerness, a ``min``-capped k) and VectXmy's original (the
product, the sigmoid in place, a fixed k). Exported with a dynamic batch, the loop is unrolled with the
example's batch size. ``migrate`` applies TRT358 at the loop and ends with exit 0: equivalent, the graph
faithful at other batch sizes, no TensorRT error.
"""

from __future__ import annotations

import pytest
from support import TESTS, migrate_json
from variant_models import axes_json, line_of, load_variant

from trtcodemod.engine import Options, check_source

HERE = TESTS / "recipe_variants" / "trt358"
LOOP = "for batch in range(cls_scores.shape[0]):"
VARIANTS = ("fcos_detect_head_topk", "vectxmy_detect_head_topk")


@pytest.mark.parametrize("name", VARIANTS)
def test_the_rule_finds_the_loop(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT358",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT358", line_of(path, LOOP))]


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_trt358_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt358_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is not True, report["before"]
    assert ("TRT358", line_of(path, LOOP)) in [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_stacked_rows(_boxes, boxes, topk_ind, cls_scores.shape[0])" in report["diff"]
