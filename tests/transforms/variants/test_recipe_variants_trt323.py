"""The in-place comparison recipe (TRT323, ``x.gt_(v)`` and the like) on real-code variants.

Each variant in ``tests/recipe_variants/trt323/`` is a small runnable model reduced from public code
(source, version and lines cited in its docstring), the comparison written as its original writes
it: YOLOv5's ``return masks.gt_(0.5)`` (``process_mask_native``), YOLOv8-TensorRT's
``masks.gt_(0.5)[..., None]`` (subscripted), ultralytics' assigner masks (``gt_bboxes.sum(2,
keepdim=True).gt_(0)`` and ``bbox_deltas.amin(3).gt_(eps)``, calls' results, an int and a float
operand, multiplied together), ultralytics' ``crop_mask(masks.gt_(0.0).byte(), bboxes)`` (chained,
inside a call's argument), LeViT's drop path ``rnd.ge_(self.drop_rate).div(...)`` (an attribute
operand, the receiver one of the graph's inputs) and YOLOv5's validation ``gt_masks =
gt_masks.gt_(0.5)`` fed to a matrix product.

The TorchScript exporter writes the comparison alone (bool): the first three originals' graphs
return bool where the model returns float32 (the assigner's a product of two bools).
In the other three, an operator that follows casts the bool (``.byte()``, ``div``, ``matmul``), so
their graphs were right already. One form was not taken before: the rewrite's ``input.copy_``
into one of the graph's inputs (LeViT's draw, given as a forward argument) became an ``aten::copy``
the exporter has no symbolic for; the helper now zeroes the input and adds the 0/1 (``logical_or_``
for bool), which exports wherever the receiver comes from.

The rule rewrites every comparison from the code alone (safe fixes), the rewritten model exports,
its graph equals eager mode (shape, dtype, values) on other sizes and edge values (zeros,
negatives, inf/NaN, empty batches where the graph can take them), and eager mode is unchanged bit
for bit (outputs, inputs afterwards, gradients, exceptions). ``migrate`` applies the rule at the
same lines and ends equivalent (exit 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, axes_json, built_variant, export_variant, input_names,
                            load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt323"
NAN, INF = float("nan"), float("inf")


class Variant(NamedTuple):
    found: tuple[str, ...]  # a fragment of each line that holds one comparison
    fragments: tuple[str, ...]  # the rewritten lines
    wrong_before: bool  # the original's TorchScript graph differs from eager mode (or does not load)
    sets: dict[str, tuple[torch.Tensor, ...]]  # "eager-": compared in eager mode only


def _module(name: str):
    return load_variant(HERE / f"{name}.py", f"trt323_sets_{name}")


def _rand(*shape: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(seed)) * scale


def _with(t: torch.Tensor, *values: float) -> torch.Tensor:
    t = t.clone()
    t.view(-1)[:len(values)] = torch.tensor(values)
    return t


_NATIVE, _BYTE, _SEG = _module("yolov5_process_mask_native"), _module("ultralytics_process_mask_byte"), \
    _module("yolov8_tensorrt_seg_masks")
_ASSIGN, _VAL = _module("ultralytics_assigner_candidates"), _module("yolov5_val_mask_iou")
_PROTOS = _rand(8, 8, 12, seed=1)
_WHOLE = torch.tensor([[-5.0, -5.0, 100.0, 100.0]])  # a box over the whole image
_EMPTY = torch.tensor([[10.0, 10.0, 4.0, 4.0]])  # x2 < x1: a box of nothing

VARIANTS: dict[str, Variant] = {
    "yolov5_process_mask_native": Variant(("return masks.gt_(0.5)",), ('return _trt_compare_(masks, "gt", 0.5)',),
                                          True, {
        "more-masks": (_PROTOS, _rand(9, 8, seed=2, scale=3), _NATIVE.boxes(seeded(3), 9)),
        "one-whole-box": (_PROTOS, _rand(1, 8, seed=4, scale=3), _WHOLE),
        "empty-box": (_PROTOS, _rand(1, 8, seed=5), _EMPTY),
        "zeros": (torch.zeros(8, 8, 12), torch.zeros(2, 8), torch.zeros(2, 4)),  # sigmoid 0.5: not above 0.5
        "negatives": (-_PROTOS.abs(), _rand(3, 8, seed=6).abs(), _NATIVE.boxes(seeded(7), 3)),
        "inf-nan": (_PROTOS, _with(_rand(3, 8, seed=8), INF, NAN, -INF), _with(_NATIVE.boxes(seeded(9), 3), NAN)),
        "eager-no-masks": (_PROTOS, torch.zeros(0, 8), torch.zeros(0, 4)),
    }),
    "yolov8_tensorrt_seg_masks": Variant(("masks = masks.gt_(0.5)[..., None]",),
                                         ('masks = _trt_compare_(masks, "gt", 0.5)[..., None]',), True, {
        "more-masks": (_rand(8, 32, seed=10), _rand(32, 48, seed=11), _SEG.boxes(seeded(12), 8)),
        "one-whole-box": (_rand(1, 32, seed=13), _rand(32, 48, seed=14), _WHOLE),
        "zeros": (torch.zeros(2, 32), torch.zeros(32, 48), torch.zeros(2, 4)),
        "negatives": (-_rand(3, 32, seed=15).abs(), _rand(32, 48, seed=16).abs(), _SEG.boxes(seeded(17), 3)),
        "inf-nan": (_with(_rand(3, 32, seed=18), INF, NAN, -INF), _rand(32, 48, seed=19),
                    _with(_SEG.boxes(seeded(20), 3), NAN)),
        "eager-no-masks": (torch.zeros(0, 32), _rand(32, 48, seed=21), torch.zeros(0, 4)),
    }),
    "ultralytics_assigner_candidates": Variant(
        ("mask_gt = gt_bboxes.sum(2, keepdim=True).gt_(0)", "return bbox_deltas.amin(3).gt_(eps)"),
        ('mask_gt = _trt_compare_(gt_bboxes.sum(2, keepdim=True), "gt", 0)',
         'return _trt_compare_(bbox_deltas.amin(3), "gt", eps)'), True, {
            "more-boxes": (_ASSIGN.targets(seeded(30), 3, 9, 6),),
            "every-box-real": (_ASSIGN.targets(seeded(31), 2, 4, 4),),
            "no-real-box": (torch.zeros(2, 5, 5),),
            "negatives": (-_ASSIGN.targets(seeded(32), 2, 4, 4),),
            "on-the-centres": (torch.tensor([[[0.0, 4.0, 4.0, 12.0, 12.0], [1.0, 4.0, 4.0, 4.0, 4.0]]]),),
            "inf-nan": (torch.tensor([[[0.0, -INF, -INF, INF, INF], [1.0, NAN, 0.0, 30.0, 30.0]]]),),
            # view(bs, n_boxes, anchors, -1) of no element raises, before and after: eager mode only.
            "eager-empty-batch": (torch.zeros(0, 4, 5),),
            "eager-no-boxes": (torch.zeros(2, 0, 5),),
        }),
    "ultralytics_process_mask_byte": Variant(("return crop_mask(masks.gt_(0.0).byte(), bboxes)",),
                                             ('return crop_mask(_trt_compare_(masks, "gt", 0.0).byte(), bboxes)',),
                                             False, {
        "more-masks": (_PROTOS, _rand(9, 8, seed=40), _BYTE.boxes(seeded(41), 9)),
        "one-whole-box": (_PROTOS, _rand(1, 8, seed=42), _WHOLE),
        "empty-box": (_PROTOS, _rand(1, 8, seed=43), _EMPTY),
        "zeros": (torch.zeros(8, 8, 12), torch.zeros(2, 8), torch.zeros(2, 4)),
        "negatives": (-_PROTOS.abs(), _rand(3, 8, seed=44).abs(), _BYTE.boxes(seeded(45), 3)),
        "inf-nan": (_PROTOS, _with(_rand(3, 8, seed=46), INF, NAN, -INF), _with(_BYTE.boxes(seeded(47), 3), NAN)),
        "no-masks": (_PROTOS, torch.zeros(0, 8), torch.zeros(0, 4)),
    }),
    "transformers_levit_drop_path": Variant(("rnd = rnd.ge_(self.drop_rate)",),
                                            ('rnd = _trt_compare_(rnd, "ge", self.drop_rate).div(1 - self.drop_rate)'
                                             '.detach()',), False, {
        "more": (_rand(7, 3, 6, seed=50), torch.rand(7, 1, 1, generator=seeded(51))),
        "at-the-rate": (_rand(3, 5, 6, seed=52), torch.tensor([0.25, 0.2499999, 1.0]).view(3, 1, 1)),
        "zeros": (torch.zeros(2, 5, 6), torch.zeros(2, 1, 1)),
        "negatives": (-_rand(2, 5, 6, seed=53).abs(), -torch.ones(2, 1, 1)),
        "inf-nan": (_with(_rand(2, 5, 6, seed=54), INF, NAN), torch.tensor([NAN, INF]).view(2, 1, 1)),
        "empty-batch": (torch.zeros(0, 5, 6), torch.zeros(0, 1, 1)),
    }),
    "yolov5_val_mask_iou": Variant(("gt_masks = gt_masks.gt_(0.5)",),
                                   ('gt_masks = _trt_compare_(gt_masks, "gt", 0.5)',), False, {
        "more": (_VAL.masks(seeded(60), 7, 16, 20), _VAL.masks(seeded(61), 9, 8, 10)),
        "zeros": (torch.zeros(2, 16, 20), torch.zeros(3, 8, 10)),
        "ones": (torch.ones(2, 16, 20), torch.ones(1, 8, 10)),
        "negatives": (-torch.ones(2, 16, 20), _VAL.masks(seeded(62), 2, 8, 10)),
        "inf-nan": (_with(_VAL.masks(seeded(63), 2, 16, 20), INF, NAN), _VAL.masks(seeded(64), 2, 8, 10)),
        "eager-no-predictions": (_VAL.masks(seeded(65), 2, 16, 20), torch.zeros(0, 8, 10)),  # view(0, -1) raises
    }),
}


def _lines_of(path: Path, fragment: str) -> list[int]:
    """Every line of code in ``path`` that holds ``fragment`` (after the module's docstring)."""
    text = path.read_text()
    start = text[:text.index('"""', 3)].count("\n") + 1
    lines = [i for i, line in enumerate(text.splitlines(), 1) if i > start and fragment in line]
    assert len(lines) == 1, (fragment, lines)
    return lines


def _expected(name: str) -> list[int]:
    return sorted(line for fragment in VARIANTS[name].found for line in _lines_of(HERE / f"{name}.py", fragment))


OPTIONS = Options(select=("TRT323",), scope="all")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_every_comparison_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), OPTIONS)
    assert sorted(f.line for f in findings) == _expected(name), findings
    assert all(f.rule == "TRT323" and f.fix is not None for f in findings), findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode()
    for fragment in VARIANTS[name].fragments:
        assert fragment in new_source, new_source
    body = new_source[new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")) + 3:]
    assert ".gt_(" not in body and ".ge_(" not in body, body


def _original_graph_matches(original: torch.nn.Module, module, path: Path) -> bool:
    example = module.inputs(seeded(0))
    result = export_model(original, tuple(t.clone() for t in example), path, exporter="torchscript",
                          input_names=input_names(original),
                          output_names=["out"], dynamic_axes=module.DYNAMIC, opset=17)
    assert result.error is None, result.error
    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(original), example)})
    except Exception:  # noqa: BLE001 - a graph ONNX Runtime refuses does not match either
        return False
    with torch.no_grad():
        want = original(*[t.clone() for t in example]).numpy()
    return got.dtype == want.dtype and np.allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_graph_equals_eager_and_eager_is_unchanged(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt323_{name}")
    assert _original_graph_matches(original, module, tmp_path / "before.onnx") is not VARIANTS[name].wrong_before

    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode())
    _, rewritten = built_variant(new_path, f"trt323_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, tuple(t.clone() for t in example), module.DYNAMIC, tmp_path / "after.onnx",
                                tmp_path)
    sets = {"example": example, **VARIANTS[name].sets}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            _assert_graph_equals_eager(session, original, inputs, label)
    assert_eager_unchanged(original, rewritten, sets)


def _assert_graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple,
                               label: str) -> None:
    """The graph's output is eager mode's: shape, dtype and values (NaN where NaN), each side fed its own
    copy of the inputs (a comparison writes into its receiver, LeViT's an input)."""
    with torch.no_grad():
        want = model(*[t.clone() for t in inputs]).numpy()
    [got] = session.run(None, {n: t.clone().numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape, got.dtype)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), (label, got, want)


@pytest.mark.parametrize("name", [name for name, variant in VARIANTS.items() if variant.wrong_before])
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt323_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True, report["before"]
    assert report["before"]["faithful"] is not VARIANTS[name].wrong_before, report["before"]
    # YOLOv5's letterbox sizes (``int(pad[1])``...) are traced constants: TRT712's, applied there too.
    assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT323") == _expected(name), \
        report["applied"]
    assert {fix["rule"] for fix in report["applied"]} <= {"TRT323", "TRT712"}, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
