"""The max-unpooling recipe (TRT340) on real-code variants: SegNet- and ENet-style decoders.

Each variant in ``tests/recipe_variants/trt340/`` is a small runnable model reduced from public code
(source, version or commit and lines cited in its docstring) that unpools with the indices of its
encoder's max pooling, written as its original writes it: davidtvs' ENet (``nn.MaxPool2d(2,
stride=2, return_indices=return_indices)``, the flag a parameter, and ``self.main_unpool1(main,
max_indices, output_size=output_size)`` back to a stage's input size, odd sizes included),
pytorchcv's ENet (3x3 windows, stride 2, padding 1, all by keyword: overlapping windows, an
unpooling without output size), trypag's SegNet (``F.max_pool2d(output, 2, 2,
return_indices=True)`` and ``F.max_unpool2d(x, indices, 2, 2, 0, size)``, every argument by
position), pytorch-semseg's SegNet (``self.unpool(input=inputs, indices=indices,
output_size=output_shape)``, every argument by keyword) and pytorchcv's SegNet (the units built in
loops, bound to one name and registered with ``add_module``, the unpooling called by a dual-path
container). Every form was taken as it was.

The TorchScript exporter stops at each original's unpooling ("cond must be a bool"). The rule
rewrites the pooling and the unpooling from the code alone (safe fixes); the rewritten model
exports with no MaxUnpool and no MaxPool Indices output (nothing TensorRT's parser rejects), its
graph equals eager mode (shape, dtype, values within the convolutions' rounding) at other sizes and
on edge values (zeros and constant images, whose windows tie; negatives; inf and NaN), and eager
mode is unchanged bit for bit (outputs, gradients, exceptions). ``migrate`` applies TRT340 at the
same lines and ends equivalent (exit 0).
"""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt340"
NAN, INF = float("nan"), float("inf")

#: variant -> (a fragment of each pooling or unpooling line, the rewritten lines)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "davidtvs_enet_bottlenecks": (("self.main_max1 = nn.MaxPool2d(", "self.main_unpool1 = nn.MaxUnpool2d("),
                                  ("self.main_max1 = _TrtMaxPool2d(\n            2,\n            stride=2,\n"
                                   "            return_indices=return_indices)",
                                   "self.main_unpool1 = _TrtMaxUnpool2d(kernel_size=2)")),
    "pytorchcv_enet_overlapping": (("self.pool = nn.MaxPool2d(", "self.unpool = nn.MaxUnpool2d("),
                                   ("self.pool = _TrtMaxPool2d(\n            kernel_size=kernel_size,",
                                    "self.unpool = _TrtMaxUnpool2d(kernel_size=2)")),
    "trypag_segnet_functional": (("return F.max_pool2d(", "unpooled = F.max_unpool2d("),
                                 ("return _trt_max_pool2d(output, 2, 2, return_indices=True), output.size()",
                                  "unpooled = _trt_max_unpool2d(x, indices, 2, 2, 0, size)")),
    "semseg_segnet_keywords": (("nn.MaxPool2d(2, 2, return_indices=True)", "self.unpool = nn.MaxUnpool2d("),
                               ("self.maxpool_with_argmax = _TrtMaxPool2d(2, 2, return_indices=True)",
                                "self.unpool = _TrtMaxUnpool2d(2, 2)")),
    "pytorchcv_segnet_stages": (("unit = nn.MaxPool2d(", "unit = nn.MaxUnpool2d("),
                                ("unit = _TrtMaxPool2d(\n                        kernel_size=2,",
                                 "unit = _TrtMaxUnpool2d(\n                        kernel_size=2,")),
}


def _image(shape: tuple[int, ...], seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(seed)) * scale


def _specials(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    x = _image(shape, seed).flatten()
    x[::13] = INF
    x[5::17] = NAN
    x[9::19] = -INF
    return x.view(shape)


def _sets(name: str, example: torch.Tensor) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes (odd ones where the model unpools to a given size) and edge values."""
    _, c, h, w = example.shape
    odd = name in ("davidtvs_enet_bottlenecks", "trypag_segnet_functional", "semseg_segnet_keywords")
    sets = {
        "larger": (_image((3, c, h + 8, w + 4), 1),),
        "other-size": (_image((1, c, h + 1, w + 3) if odd else (1, c, h - 4, w + 8), 2, 10.0),),
        "zeros": (torch.zeros(2, c, h, w),),  # every window ties: torch's first element
        "constant": (torch.full((1, c, h, w), -3.0),),
        "negatives": (-_image((2, c, h, w), 3).abs(),),
        "inf-nan": (_specials((2, c, h, w), 4),),
    }
    if odd:
        sets["smallest"] = (_image((1, c, 4, 5), 5),)
    return sets


def _lines_of(path: Path, fragment: str) -> list[int]:
    """Every line of code in ``path`` that holds ``fragment`` (after the module's docstring)."""
    text = path.read_text()
    start = text[:text.index('"""', 3)].count("\n") + 1
    lines = [i for i, line in enumerate(text.splitlines(), 1) if i > start and fragment in line]
    assert len(lines) == 1, (fragment, lines)
    return lines


def _expected(name: str) -> list[int]:
    return sorted(line for fragment in VARIANTS[name][0] for line in _lines_of(HERE / f"{name}.py", fragment))


OPTIONS = Options(select=("TRT340",), scope="all")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_pooling_and_the_unpooling_and_rewrites_them(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), OPTIONS)
    assert sorted(f.line for f in findings) == _expected(name), findings
    assert all(f.rule == "TRT340" and f.fix is not None for f in findings), findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode()
    for fragment in VARIANTS[name][1]:
        assert fragment in new_source, new_source
    body = new_source[new_source.index("\n\n\n", new_source.rindex("\nclass _Trt") if "\nclass _Trt" in new_source
                                       else new_source.rindex("\ndef _trt_")) + 3:]
    assert not re.search(r"(?<!_trt_)(?<!_Trt)(max_unpool2d|MaxUnpool2d)\(", body), body


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_graph_has_no_unpooling_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt340_{name}")
    example = module.inputs(seeded(0))
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and "cond must be a bool" in before.error, before.error

    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode())
    _, rewritten = built_variant(new_path, f"trt340_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    graph = onnx.load(str(tmp_path / "after.onnx"))
    assert "MaxUnpool" not in {n.op_type for n in graph.graph.node}
    assert all(len([o for o in n.output if o]) == 1 for n in graph.graph.node if n.op_type == "MaxPool")
    assert [i for i in check_graph(graph, "10.0") if i.severity == "error"] == []

    sets = {"example": example, **_sets(name, example[0])}
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {**sets, "no-images": (torch.zeros(0, *example[0].shape[1:]),)})


@pytest.mark.parametrize("name", ["davidtvs_enet_bottlenecks", "trypag_segnet_functional", "semseg_segnet_keywords"])
def test_migrate_applies_trt340_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt340_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == \
        [("TRT340", line) for line in _expected(name)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
