"""The conv-short-params recipe (TRT357) on real-code variants.

Each variant in ``tests/recipe_variants/trt357/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose EfficientNet-style "same"-padding convolution builds its
``nn.Conv2d`` with the one-element stride its block strings decode to: zylo117's EfficientDet
(padding from ``math.ceil(w / stride)``), DIRV's earlier copy (padding from a cover length) and
bubbliiiing's, whose blocks get the convolution from a factory (``partial(..., image_size=...)``, the
module taking ``**kwargs``) and their strides from a literal table (``stride=[2]``). The
original exports, but its Conv nodes carry one stride for two spatial axes and ONNX Runtime refuses to
load the graph (zylo117's also picks feature maps by the stride its wrapper repeats, ``== [2, 2]``,
which the module's own attribute must keep feeding). ``migrate`` applies TRT357 where the convolution is
built (located at the line that calls it) and TRT712 to the padding read from the sizes, and ends with exit 0: equivalent, faithful at
other sizes, no TensorRT error.
"""

from __future__ import annotations

import pytest
from support import TESTS, migrate_json
from variant_models import axes_json, line_of, load_variant

from trtcodemod.engine import Options, check_source

HERE = TESTS / "recipe_variants" / "trt357"

#: variant -> the text where the convolution is built.
VARIANTS = {
    "zylo117_static_same_padding": "self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride",
    "dirv_cover_length_padding": "self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride",
    "bubbliiiing_partial_same_padding": "self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride",
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_construction(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT357",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT357", line_of(path, VARIANTS[name]))]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt357_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt357_m_{name}")
    report = migrate_json(path, axes_json(module))
    # The original exports, but ONNX Runtime refuses its Conv's one-element strides.
    assert report["before"]["exported"] is True and report["before"]["faithful"] is not True, report["before"]
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert ("TRT357", line_of(path, VARIANTS[name])) in applied, report["applied"]
    assert {rule for rule, _ in applied} == {"TRT357", "TRT712"}, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True, report["after"]
    assert report["after"]["trt_errors"] == 0 and VARIANTS[name].replace("nn.Conv2d", "_TrtConv2d") in report["diff"]
