"""The adaptive-pooling recipe (TRT601) on real-code variants.

Each variant in ``tests/recipe_variants/trt601/`` is a small runnable model reduced from a public
library (cited in its docstring) that pools a feature map to a fixed grid with
``nn.AdaptiveAvgPool2d(s)`` or ``F.adaptive_avg_pool2d(x, s)``, ``s`` not 1. With dynamic spatial
axes the TorchScript exporter stops at the pooling ("input size not accessible"). The rule rewrites
the file from the code alone (``--unsafe``: the exact bins are slower where the original already
exports; migrate applies it where the export fails at that line, its proof); the rewritten model
exports with both exporters, its graph equals eager mode at other sizes (sizes that do not divide,
sizes below the grid, an empty batch) and on zeros, negatives and inf/NaN, and eager mode is
unchanged bit for bit (outputs, gradients, exceptions).
"""

from __future__ import annotations


import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import export_variant, export_variant_dynamo, input_names, rewritten_variant

from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt601"

# name → (fragments of the rewritten code, input shapes at other sizes)
VARIANTS: dict[str, tuple[tuple[str, ...], list[tuple[int, ...]]]] = {
    "torchvision_alexnet_head": (("self.avgpool = _TrtAdaptiveAvgPool2d((6, 6))",),
                                 [(1, 3, 13, 7), (3, 3, 4, 5), (0, 3, 9, 9)]),
    "torchvision_googlenet_aux": (("x = _trt_adaptive_avg_pool2d(x, (4, 4))",),
                                  [(1, 3, 9, 17), (2, 3, 3, 2), (0, 3, 8, 8)]),
    "smp_pspnet_block": (("_TrtAdaptiveAvgPool2d(output_size=(pool_size, pool_size)),",),
                         [(2, 4, 7, 11), (1, 4, 4, 5), (0, 4, 6, 6)]),
    "transformers_upernet_ppm": (("self.layers = [_TrtAdaptiveAvgPool2d(pool_scale), nn.Conv2d(",),
                                 [(2, 3, 10, 7), (1, 3, 5, 2), (0, 3, 6, 6)]),
    # an empty batch makes the original reshape(B, C, -1) raise in eager mode: not a graph comparison
    "timm_pvt_v2_linear_sra": (("self.pool = _TrtAdaptiveAvgPool2d(7)",),
                               [(1, 4, 9, 20), (2, 4, 5, 3), (1, 4, 7, 7)]),
}


def _edge_values(example: torch.Tensor) -> dict[str, torch.Tensor]:
    special = example.clone()
    special[..., 0, 0] = float("inf")
    special[..., -1, 1] = float("nan")
    special[..., 1, -1] = -float("inf")
    return {"zeros": torch.zeros_like(example), "negatives": -example.abs() - 1, "inf-nan": special}


#: Variants that resize the pooled map back with a bilinear ``Resize``: at an output that lands exactly
#: on an input pixel, ONNX Runtime's Resize skips the neighbour whose weight is 0 where PyTorch multiplies
#: it (0 * inf is NaN), so one gives inf where the other gives NaN. That is the exporters' Resize, after
#: the pooling, the same with and without the rewrite: on inf/NaN inputs these compare which outputs are
#: finite, and the finite values.
BILINEAR_AFTER = {"smp_pspnet_block", "transformers_upernet_ppm"}


def _graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, label: str,
                        finite_only: bool = False) -> None:
    """The graph's output is eager mode's up to the summation order (shape; NaN where NaN)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape, label
    if finite_only:
        assert np.array_equal(np.isfinite(got), np.isfinite(want)), label
        got, want = np.where(np.isfinite(got), got, 0), np.where(np.isfinite(want), want, 0)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), (label, np.abs(got - want).max())


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant, its original export's error, and its rewritten model exported both ways."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT601", folder)
    original, rewritten = variant["original"], variant["rewritten"]
    module = variant["module"]
    example = module.inputs(torch.Generator().manual_seed(0))
    failed = export_model(original, example, folder / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, folder / "after_dynamo.onnx")
    return dict(variant, example=example, error=failed.error, sessions={"torchscript": torchscript, "dynamo": dynamo})


def test_the_original_does_not_export_with_dynamic_sizes(migrated) -> None:
    assert migrated["error"] is not None and "adaptive_avg_pool2d" in migrated["error"], migrated["error"]


def test_the_rule_rewrites_every_pool_from_the_code_alone(migrated) -> None:
    fragments, _ = VARIANTS[migrated["name"]]
    for fragment in fragments:
        assert fragment in migrated["source"], migrated["source"]
    body = migrated["source"].split("\n\n\nclass ", 1)[1]  # below the inserted helpers
    assert "nn.AdaptiveAvgPool2d(" not in body and "F.adaptive_avg_pool2d(" not in body, body
    assert migrated["safe_only"] == migrated["path"].read_text()  # unsafe: not without --unsafe


def test_the_graphs_follow_other_sizes_and_edge_values(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    generator = torch.Generator().manual_seed(1)
    sets = {"example": migrated["example"][0], **{f"size {s}": torch.randn(s, generator=generator) for s in shapes},
            **_edge_values(migrated["example"][0])}
    for exporter, session in migrated["sessions"].items():
        for label, x in sets.items():
            finite_only = label == "inf-nan" and migrated["name"] in BILINEAR_AFTER
            _graph_equals_eager(session, migrated["original"], (x,), f"{exporter} {label}", finite_only)


def test_eager_mode_is_unchanged_bit_for_bit(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    generator = torch.Generator().manual_seed(2)
    sets = [migrated["example"][0], *(torch.randn(s, generator=generator) for s in shapes),
            *_edge_values(migrated["example"][0]).values(), torch.randn(2, 3)]  # a wrong rank raises alike
    for x in sets:
        for given in (x, x.clone().requires_grad_()):
            assert_same_run(run_once(migrated["original"], [given]), run_once(migrated["rewritten"], [given]),
                            context=f"{migrated['name']} {tuple(x.shape)}")
