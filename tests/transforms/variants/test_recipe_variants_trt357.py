"""The conv-short-params recipe (TRT357) on real-code variants.

Each variant in ``tests/recipe_variants/trt357/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose EfficientNet-style "same"-padding convolution builds its
``nn.Conv2d`` with the one-element stride its block strings decode to: zylo117's EfficientDet
(padding from ``math.ceil(w / stride)``), DIRV's earlier copy (padding from a cover length) and
bubbliiiing's, whose blocks get the convolution from a factory (``partial(..., image_size=...)``, the
module taking ``**kwargs``) and their strides from a literal table (``stride=[2]``), and quickdetection's
(lianglin74/CoOp), whose "simple padding" convolution gives ``nn.Conv2d`` the symmetric padding
``(kernel_size - 1) // 2`` itself, so nothing is read from the sizes and TRT357 alone takes it; and,
by other authors than the EfficientNet family, Graphcore's PopART custom-op example, whose PyTorch
reference network writes a one-element padding literal (``padding=[padding]``). The
original exports, but its Conv nodes carry one stride for two spatial axes and ONNX Runtime refuses to
load the graph (zylo117's also picks feature maps by the stride its wrapper repeats, ``== [2, 2]``,
which the module's own attribute must keep feeding). ``migrate`` applies TRT357 where the convolution is
built (located at the line that calls it) and TRT712 to the padding read from the sizes, and ends with exit 0: equivalent, faithful at
other sizes, no TensorRT error.
"""

from __future__ import annotations

import onnxruntime as ort
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built, exported_graph, line_of,
                            load_variant, rewrite_variant, seeded, with_specials)

from trtcodemod.engine import Options, check_source

HERE = TESTS / "recipe_variants" / "trt357"

#: variant -> the text where the convolution is built.
VARIANTS = {
    "zylo117_static_same_padding": "self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride",
    "dirv_cover_length_padding": "self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride",
    "bubbliiiing_partial_same_padding": "self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride",
    "quickdetection_simple_conv": "self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, bias=bias,",
    "popart_reference_net_padding": "self.conv = nn.Conv2d(cin, cout, KERNEL, padding=[PAD])",
}
#: variant -> the rules migrate applies: the "same" padding read from the sizes is TRT712's as well; quickdetection's
#: symmetric padding is the convolution's own, so TRT357 alone takes it.
RULES = {name: {"TRT357", "TRT712"} for name in VARIANTS} | {"quickdetection_simple_conv": {"TRT357"},
                                                             "popart_reference_net_padding": {"TRT357"}}
#: Variants that need TRT357 alone, rewritten from the code alone in the test below.
ALONE = ("quickdetection_simple_conv", "popart_reference_net_padding")


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
    assert {rule for rule, _ in applied} == RULES[name], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True, report["after"]
    assert report["after"]["trt_errors"] == 0 and VARIANTS[name].replace("nn.Conv2d", "_TrtConv2d") in report["diff"]


def _sets(module) -> dict[str, tuple]:
    """The example, other batches and sizes (odd, small, mixed), zeros, negatives, infinities and NaN, an empty
    batch."""
    example = module.inputs(seeded(0))
    return {"traced size": example, "odd": (torch.randn(3, 3, 17, 25, generator=seeded(1)),),
            "small": (torch.randn(1, 3, 5, 3, generator=seeded(2)),),
            "mixed": (torch.randn(2, 3, 32, 9, generator=seeded(3)),),
            "zeros": (torch.zeros(2, 3, 16, 16),), "negatives": (-torch.rand(2, 3, 12, 20, generator=seeded(4)),),
            "specials": (with_specials((1, 3, 10, 14), 5),), "empty batch": (torch.zeros(0, 3, 16, 16),)}


@pytest.mark.parametrize("name", ALONE)
@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_rewritten_from_the_code_alone(tmp_path, dynamo: bool, name: str) -> None:
    """The symmetric-padding form and the one-element padding literal need TRT357 alone (unsafe: the subclass
    assumption): rewritten from the code, the graph equals eager mode at other sizes with both exporters, and eager
    mode is unchanged (quickdetection's feature maps chosen by `== [2, 2]` too)."""
    path = HERE / f"{name}.py"
    original = load_variant(path, f"trt357_alone_o_{name}_{dynamo}")
    text, rewritten = rewrite_variant(path, Options(select=("TRT357",), scope="all", unsafe=True), tmp_path,
                                      f"trt357_alone_r_{name}_{dynamo}")
    assert VARIANTS[name].replace("nn.Conv2d", "_TrtConv2d") in text
    before, after = built(original), built(rewritten)
    sets = _sets(original)
    assert_eager_unchanged(before, after, sets)
    graph = exported_graph(after, original, tmp_path / "after.onnx", dynamo)  # at the example, sets["traced size"]
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for label, inputs in sets.items():
        assert_graph_within(session, before, inputs, 1e-5, label)
