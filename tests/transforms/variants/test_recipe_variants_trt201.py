"""The boolean-mask recipe (TRT201) on real-code variants.

Each variant in ``tests/recipe_variants/trt201/`` is a small runnable model reduced from a public
repository (cited in its docstring): a detector's post-processing that selects rows by a score mask.
For each one: the rule rewrites the file from the code alone (safe, no facts); the original's
TorchScript export reads the bool mask in NonZero and gathers with GatherND, the rewritten one
(TorchScript and dynamo exporters) casts every mask to float32 before NonZero and selects with a
plain Gather, as TRT201's doc promises, and its graph equals eager mode at other sizes and on edge
values; eager mode is unchanged, bit for bit (outputs, gradients, exceptions), on random, zero,
negative, all-false, all-true, empty and inf/NaN inputs.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import (
    assert_graph_equals_eager,
    export_variant,
    export_variant_dynamo,
    load_variant,
    variant_inputs,
)

from trtcodemod.engine import Options, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt201"

# name → (fragments of the rewritten code, input shapes of two other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], list[list[tuple[int, ...]]]]] = {
    # Not taken before: the row of a batch-wide mask, `xc[xi]`.
    "yolov5_nms": (("x = _trt_mask_index(x, xc[xi])",
                    "x = _trt_mask_index(torch.cat((box, conf, j.float()), 1), conf.view(-1) > conf_thres)"),
                   [[(1, 30, 8)], [(1, 3, 8)]]),
    # Not taken before: the row of a `torch.logical_and` mask, `pred_candidates[img_idx]`.
    "yolov6_nms": (("x = _trt_mask_index(x, pred_candidates[img_idx])",
                    "x = _trt_mask_index(x, (x[:, 5:6] == torch.tensor(self.classes, device=x.device)).any(1))"),
                   [[(1, 25, 9)], [(1, 2, 9)]]),
    "yolox_postprocess": (("detections = _trt_mask_index(detections, conf_mask)",), [[(1, 31, 8)], [(1, 4, 8)]]),
    "detr_panoptic": (("cur_scores = _trt_mask_index(cur_scores, keep)",
                       "cur_boxes = box_cxcywh_to_xyxy(_trt_mask_index(cur_boxes, keep))"),
                      [[(1, 20, 4), (1, 20, 4)], [(1, 3, 4), (1, 3, 4)]]),
    # Rewritten before, but its 2-D mask (R x K over R x K x 4 boxes) still exported as NonZero on
    # the bool mask + GatherND: the helper now flattens the masked axes.
    "detectron2_fast_rcnn": (("boxes = _trt_mask_index(boxes, filter_mask)",
                              "scores = _trt_mask_index(scores, filter_mask)"),
                             [[(17, 12), (17, 4)], [(2, 12), (2, 4)]]),
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _all_true(name: str, example: tuple) -> tuple:
    if name == "detr_panoptic":  # a confident first class: the softmax maximum is above the threshold
        logits = torch.zeros_like(example[0])
        logits[..., 0] = 10.0
        return logits, example[1]
    return tuple(torch.ones_like(t) for t in example)


def _non_finite(example: tuple) -> tuple:
    made = []
    for t in example:
        t = t.clone()
        flat = t.view(-1)
        flat[1], flat[4], flat[6], flat[9] = float("inf"), float("nan"), -float("inf"), -0.0
        made.append(t)
    return tuple(made)


def _edge_sets(name: str, module) -> dict[str, tuple]:
    example = variant_inputs(module, None, 0)
    dynamic = module.DYNAMIC
    empty = []
    for t, axes in zip(example, dynamic.values()):
        shape = list(t.shape)
        for axis in axes:
            shape[axis] = 0
        empty.append(torch.zeros(shape))
    return {
        "random": example,
        "zeros": tuple(torch.zeros_like(t) for t in example),  # all False
        "negatives": tuple(-t.abs() - 0.5 for t in example),  # all False
        "all-true": _all_true(name, example),
        "empty": tuple(empty),
        "inf-nan": _non_finite(example),
    }


def _rewritten(name: str, tmp_path: Path):
    path = HERE / f"{name}.py"
    new_source = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT201",), scope="all"))
    text = new_source.source.decode()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(text)
    return text, load_variant(new_path, f"trt201_rewritten_{name}")


def _mask_reads(model: onnx.ModelProto) -> tuple[int, int, int]:
    """(NonZero nodes, those reading a float32 Cast, GatherND nodes)."""
    producers = {out: node for node in model.graph.node for out in node.output}
    nonzero = [node for node in model.graph.node if node.op_type == "NonZero"]
    cast = [node for node in nonzero if producers.get(node.input[0]) is not None
            and producers[node.input[0]].op_type == "Cast"
            and producers[node.input[0]].attribute[0].i == onnx.TensorProto.FLOAT]
    return len(nonzero), len(cast), sum(node.op_type == "GatherND" for node in model.graph.node)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_export(name: str, tmp_path: Path) -> None:
    fragments, others = VARIANTS[name]
    module = load_variant(HERE / f"{name}.py", f"trt201_{name}")
    text, rewritten_module = _rewritten(name, tmp_path)
    for fragment in fragments:
        assert fragment in text, text
    original, rewritten = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)

    # Before: the bool mask goes straight into NonZero, the rows are gathered with GatherND.
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    nonzero, cast, gather_nd = _mask_reads(onnx.load(tmp_path / "before.onnx"))
    assert nonzero and cast < nonzero and gather_nd, (nonzero, cast, gather_nd)

    # After: every NonZero reads a float32 Cast, no GatherND; the graph equals eager elsewhere.
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    nonzero, cast, gather_nd = _mask_reads(onnx.load(tmp_path / "after.onnx"))
    assert nonzero and cast == nonzero and not gather_nd, (nonzero, cast, gather_nd)
    sets = {f"size{seed}": variant_inputs(module, shapes, seed) for seed, shapes in enumerate(others, 1)}
    sets.update(_edge_sets(name, module))
    for label, inputs in sets.items():
        if label == "empty" and name == "detectron2_fast_rcnn":
            continue  # `view(-1, K, 4)` of no rows raises in eager mode
        assert_graph_equals_eager(session, original, inputs, label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_dynamo_export(name: str, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt201_dynamo_{name}")
    _, rewritten_module = _rewritten(name, tmp_path)
    rewritten = _built(rewritten_module)
    example = variant_inputs(module, None, 0)
    path = tmp_path / "dynamo.onnx"
    session = export_variant_dynamo(rewritten, example, module.DYNAMIC, path)
    nonzero, cast, gather_nd = _mask_reads(onnx.load(path))
    assert nonzero and cast == nonzero and not gather_nd, (nonzero, cast, gather_nd)
    original = _built(module)
    for seed, shapes in enumerate(VARIANTS[name][1], 1):
        assert_graph_equals_eager(session, original, variant_inputs(module, shapes, seed), str(shapes))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt201_eager_{name}")
    _, rewritten_module = _rewritten(name, tmp_path)
    original, rewritten = _built(module), _built(rewritten_module)
    for label, inputs in _edge_sets(name, module).items():
        graded = [t.clone().requires_grad_() for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(original, given), run_once(rewritten, given), context=label)
