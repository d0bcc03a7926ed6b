"""The unique recipe (TRT302) on real-code variants.

Each variant in ``tests/recipe_variants/trt302/`` is a small runnable model reduced from a public
library (cited in its docstring) that takes the distinct values of a tensor with ``torch.unique``
or ``.unique()``: label groups of a grounding prompt, the labels of a segmentation map, the pyramid
levels SIFT keypoints use, the classes in a batch of labels, the prompts of tracked objects. The
original's TorchScript graph holds ONNX ``Unique``, which no TensorRT version parses. The rule
rewrites the file from the code alone (a safe fix); the rewritten graphs, with both exporters, hold
no ``Unique`` and equal eager mode exactly at other sizes and on other values (one value repeated,
negative ids, every value distinct, empty tensors), and eager mode is unchanged bit for bit
(outputs, gradients, exceptions).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from variant_rewrites import assert_eager_unchanged, assert_toolchains_agree, built_pair
from variant_models import export_variant, export_variant_dynamo, input_names, load_variant

from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt302"

# name → (the rewritten fragment, other input sets by name)
VARIANTS: dict[str, tuple[str, dict[str, tuple[torch.Tensor, ...]]]] = {
    "grounding_dino_label_maps": ("unique_labels = _trt_unique(label_group)[1:, None]", {
        "longer": (torch.tensor([0, 5, 5, 0, 2, 2, 0, 9, 0, 1, 1, 1, 0, 4]),),
        "no-labels": (torch.zeros(6, dtype=torch.long),),
        "no-zero": (torch.tensor([3, 3, 1, 2]),),
        "empty": (torch.zeros(0, dtype=torch.long),),
    }),
    "eomt_binary_masks": ("all_labels = _trt_unique(segmentation_map)", {
        "larger": (torch.randint(0, 9, (7, 11), generator=torch.Generator().manual_seed(1)),),
        "background": (torch.zeros(3, 4, dtype=torch.long),),
        "one-label": (torch.full((2, 5), 4),),
        "empty": (torch.zeros(0, 5, dtype=torch.long),),
    }),
    "kornia_sift_used_levels": ("used_levels = _trt_unique(level_indices[octave_selected])", {
        "more": (torch.randn(2, 1, 5, 3, 7, generator=torch.Generator().manual_seed(2)),
                 torch.randint(0, 5, (2, 12), generator=torch.Generator().manual_seed(3)),
                 torch.randint(0, 3, (2, 12), generator=torch.Generator().manual_seed(4))),
        "one-level": (torch.randn(1, 1, 5, 4, 6), torch.full((1, 5), 2), torch.ones(1, 5, dtype=torch.long)),
        "inf-nan": (torch.tensor([float("inf"), float("nan"), -1.0, 0.0, -0.0, 2.0]).repeat(10).view(1, 1, 5, 2, 6),
                    torch.tensor([[4, 0, 4, 1]]), torch.tensor([[1, 1, 1, 1]])),
        "none-selected": (torch.randn(1, 1, 5, 4, 6), torch.tensor([[1, 2, 3]]), torch.zeros(1, 3, dtype=torch.long)),
        "no-keypoints": (torch.randn(1, 1, 5, 4, 6), torch.zeros(1, 0, dtype=torch.long),
                         torch.zeros(1, 0, dtype=torch.long)),
    }),
    "ultralytics_yoloe_class_counts": ("cls = _trt_unique(batch_cls.squeeze(-1).to(torch.int))", {
        "more": (torch.randint(0, 6, (30, 1), generator=torch.Generator().manual_seed(5)).float(),),
        "one-class": (torch.full((4, 1), 5.0),),
        "all-classes": (torch.arange(6.0).flip(0)[:, None],),
        "empty": (torch.zeros(0, 1),),
    }),
    "sam3_video_prompt_groups": ("unique_prompts = _trt_unique(prompt_ids_global)", {
        "more": (torch.randint(-3, 4, (25,), generator=torch.Generator().manual_seed(6)),),
        "one-prompt": (torch.full((3,), 7),),
        "distinct": (torch.tensor([5, -1, 2, 0]),),
        "empty": (torch.zeros(0, dtype=torch.long),),
    }),
}


def _ops(path: Path) -> set[str]:
    return {node.op_type for node in onnx.load(str(path)).graph.node}


def _graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """The graph's output is eager mode's, exactly (shape, dtype, values; NaN where NaN)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape, got.dtype)
    assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), label


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """One variant, its rewrite, the original's TorchScript graph and the rewritten graphs."""
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, new_source, original, rewritten = built_pair(HERE / f"{name}.py", "TRT302", tmp)
    example = module.inputs(torch.Generator().manual_seed(0))
    # Not loaded: ONNX Runtime has no int32 Unique kernel either (the ultralytics variant).
    before = export_model(original, example, tmp / "original.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is None, before.error
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp / "rewritten.onnx", tmp)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp / "rewritten_dynamo.onnx")
    return {"name": name, "source": new_source, "original": original, "rewritten": rewritten, "tmp": tmp,
            "graphs": {"torchscript": torchscript, "dynamo": dynamo}, "sets": {"example": example, **VARIANTS[name][1]}}


def test_rule_rewrites_the_unique(migrated: dict) -> None:
    body = migrated["source"].split("\n\n\nclass ", 1)[1]  # below the inserted helper
    assert VARIANTS[migrated["name"]][0] in migrated["source"], migrated["source"]
    assert "torch.unique(" not in body and ".unique(" not in body, body


def test_unique_node_only_before(migrated: dict) -> None:
    tmp = migrated["tmp"]
    assert "Unique" in _ops(tmp / "original.onnx")
    assert "Unique" not in _ops(tmp / "rewritten.onnx")
    assert "Unique" not in _ops(tmp / "rewritten_dynamo.onnx")


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(migrated: dict, exporter: str) -> None:
    for label, inputs in migrated["sets"].items():
        _graph_equals_eager(migrated["graphs"][exporter], migrated["original"], inputs, f"{exporter} {label}")


def test_eager_unchanged(migrated: dict) -> None:
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], migrated["sets"])


def test_toolchains_unchanged(migrated: dict, tmp_path: Path) -> None:
    sets = migrated["sets"]
    for label in ("example", list(sets)[-1]):
        assert_toolchains_agree(migrated["original"], migrated["rewritten"], list(sets[label]), tmp_path, label)
