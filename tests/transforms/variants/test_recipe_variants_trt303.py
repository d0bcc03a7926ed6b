"""The einsum-to-matmul recipe (TRT303, unsafe) on real-code variants.

Each variant in ``tests/recipe_variants/trt303/`` is a small runnable model reduced from a public
repository (cited in its docstring) that writes a matrix product as ``torch.einsum``: attention
scores and outputs (MaxViT, CvT, the Idefics perceiver, LightGlue), MobileNetV4's key and value
projections by a weight shared over the batch and its query, score and mix contractions (timm)
and a VQ codebook distance (LlamaGen). Their forms differ: three upper-case batch labels with spaces, operands in a list
(``einsum(eq, [q, k])``, not taken before), a leading ellipsis with spaces, a transposed first
operand, a bare weight matrix broadcast over the batch (``bmd,dk->bmk``, not taken before), a 2-D
product whose operand is another einsum. Both exporters emit ONNX ``Einsum``, which
TensorRT before 8.2 lacks (and before 10.12 refuses with an ellipsis). The rule rewrites each file
from the code alone (``--unsafe``, as migrate tries a verified candidate) into ``torch.matmul``;
the rewritten graphs, with both exporters, hold no two-operand Einsum, and equal eager mode at other
sizes and on edge values (zeros, negatives, inf/NaN, empty batches where the model takes them).
Eager mode agrees within float32 rounding (outputs and input gradients): the rule's stated
assumption is that results may differ in the last bits.
"""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
import torch
from einsum_variants import assert_rewritten, einsum_operand_counts, graph_outputs_match, migrated, rewrite_at
from safety import run_once

from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt303"
INF, NAN = float("inf"), float("nan")
TARGET = "8.0"  # TensorRT without an Einsum importer: TRT303 names every einsum


def _seeded(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _special(*shape: int) -> torch.Tensor:
    values = torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0, -2.5])
    return values.repeat(-(-torch.Size(shape).numel() // len(values)))[: torch.Size(shape).numel()].view(shape)


# name → (fragments of the rewritten code, einsums left, other input sets by name)
VARIANTS: dict[str, tuple[tuple[str, ...], int, dict[str, tuple[torch.Tensor, ...]]]] = {
    "torchvision_maxvit_attention": (("scores = torch.matmul(q, k.transpose(-1, -2))",
                                      "mixed = torch.matmul(weights, v)"), 0, {
        "larger": (_seeded(3, 2, 7, 8, seed=1),),
        "one-token": (_seeded(1, 1, 1, 8, seed=2),),
        "zeros": (torch.zeros(2, 2, 3, 8),),
        "negatives": (-_seeded(2, 3, 4, 8, seed=3).abs() * 50,),
        "inf-nan": (_special(2, 1, 4, 8),),
        "empty": (torch.zeros(0, 3, 4, 8),),
    }),
    "transformers_cvt_attention": (("attention_score = torch.matmul(query, key.transpose(-1, -2)) * self.scale",
                                    "context = torch.matmul(attention_probs, value)"), 0, {
        "longer": (_seeded(3, 11, 8, seed=4),),
        "one-token": (_seeded(1, 1, 8, seed=5),),
        "zeros": (torch.zeros(2, 4, 8),),
        "negatives": (-_seeded(2, 6, 8, seed=6).abs() * 30,),
        "inf-nan": (_special(2, 3, 8),),
        # No empty batch: ONNX Runtime stops the process (a floating-point exception) on the
        # original's graph, and the rewritten graph's last Reshape of no elements fails.
    }),
    "transformers_idefics_perceiver": (("scores = torch.matmul(q * self.qk_scale, k.transpose(-1, -2))",
                                        "resampled = torch.matmul(attn, v)"), 0, {
        "longer": (_seeded(3, 10, 8, seed=7), _seeded(3, 4, 8, seed=8)),
        "one-latent": (_seeded(1, 1, 8, seed=9), _seeded(1, 1, 8, seed=10)),
        "zeros": (torch.zeros(2, 6, 8), torch.zeros(2, 3, 8)),
        "negatives": (-_seeded(2, 5, 8, seed=11).abs() * 40, _seeded(2, 2, 8, seed=12)),
        "inf-nan": (_special(2, 2, 8), _seeded(2, 3, 8, seed=13)),
        "no-context": (torch.zeros(2, 0, 8), _seeded(2, 3, 8, seed=14)),
    }),
    "kornia_lightglue_cross": (("sim = torch.matmul(qk0, qk1.transpose(-1, -2))", "m0 = torch.matmul(attn01, v1)",
                                "m1 = torch.matmul(attn10.transpose(-2, -1).transpose(-1, -2), v0)"), 0, {
        "larger": (_seeded(3, 7, 8, seed=15), _seeded(3, 2, 8, seed=16),
                   torch.rand(3, 1, 7, 2, generator=torch.Generator().manual_seed(17)) > 0.3),
        "all-masked": (_seeded(2, 4, 8, seed=18), _seeded(2, 5, 8, seed=19), torch.zeros(2, 1, 4, 5, dtype=torch.bool)),
        "zeros": (torch.zeros(2, 3, 8), torch.zeros(2, 3, 8), torch.ones(2, 1, 3, 3, dtype=torch.bool)),
        "inf-nan": (_special(1, 3, 8), _seeded(1, 4, 8, seed=20), torch.ones(1, 1, 3, 4, dtype=torch.bool)),
        # No image without keypoints: the head split's Reshape (`unflatten(-1, (heads, -1))`) of no
        # elements fails in ONNX Runtime on the original's graph too.
    }),
    "timm_multi_query_attention": (("k = torch.matmul(reshaped_x, self.key_proj)",
                                    "v = torch.matmul(reshaped_x, self.value_proj)",
                                    "q = torch.matmul(reshaped_x[..., None, :, :], "
                                    "self.query_proj.transpose(-2, -1)).transpose(-3, -2)",
                                    "attn = (torch.matmul(q, k.transpose(-2, -1)[..., None, :, :]) * self.scale)",
                                    "o = torch.matmul(attn, v[..., None, :, :])"), 1, {
        "larger": (_seeded(3, 6, 5, 2, seed=25),),
        "one-pixel": (_seeded(1, 6, 1, 1, seed=26),),
        "zeros": (torch.zeros(2, 6, 2, 2),),
        "negatives": (-_seeded(2, 6, 3, 3, seed=27).abs() * 30,),
        "inf-nan": (_special(2, 6, 2, 3),),
        # No empty batch: the einsums left (not one product) stop ONNX Runtime's process on it.
    }),
    "llamagen_vq_distance": (("torch.matmul(z_flattened, torch.einsum('n d -> d n', embedding))",), 1, {
        "more": (_seeded(17, 4, seed=22),),
        "one": (_seeded(1, 4, seed=23),),
        "zeros": (torch.zeros(3, 4),),
        "negatives": (-_seeded(4, 4, seed=24).abs() * 1e3,),
        "nan": (torch.tensor([[NAN, 1.0, 0.0, -1.0], [0.5, -0.5, 2.0, 1.0]]),),
        # No inf: F.normalize's graph (ReduceL2, then Div) gives NaN where eager mode's norm keeps
        # numbers, in the original's graph too.
        "empty": (torch.zeros(0, 4),),
    }),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def variant(request, tmp_path_factory) -> dict:
    name = request.param
    found = migrated(HERE / f"{name}.py", "TRT303", TARGET, tmp_path_factory.mktemp(name))
    return {**found, "name": name, "sets": {"example": found["example"], **VARIANTS[name][2]}}


def test_rule_rewrites_each_matrix_product(variant: dict) -> None:
    fragments, left, _ = VARIANTS[variant["name"]]
    assert_rewritten(variant["source"], fragments, left)
    path = variant["path"]
    assert rewrite_at(path, "TRT303", TARGET, unsafe=False) == path.read_text(), "an unsafe fix applied without --unsafe"


def test_two_operand_einsum_leaves_the_graph(variant: dict) -> None:
    folder = variant["folder"]
    code = variant["source"].split('"""', 2)[2]
    products_left = sum("," in equation for equation in re.findall(r"einsum\(['\"]([^'\"]*)['\"]", code))
    assert einsum_operand_counts(folder / "original.onnx").count(2) > products_left
    before = [issue for issue in check_graph(onnx.load(str(folder / "original.onnx")), TARGET) if issue.op == "Einsum"]
    assert before, "the original's Einsum is not named for TensorRT 8.0"
    # What is left is what the rule names without a fix: two-operand einsums that are not one product.
    for graph in ("rewritten.onnx", "rewritten_dynamo.onnx"):
        assert einsum_operand_counts(folder / graph).count(2) == products_left, graph


def test_ellipsis_is_named_for_newer_tensorrt_too() -> None:
    """The perceiver's ``...`` equations are refused up to TensorRT 10.11, so the rule fires at
    the default target (8.6) as well, and the rewrite clears the graph check there."""
    path = HERE / "transformers_idefics_perceiver.py"
    source = rewrite_at(path, "TRT303", "8.6", unsafe=True)
    assert "resampled = torch.matmul(attn, v)" in source
    assert rewrite_at(path, "TRT303", "10.12", unsafe=True) == path.read_text()


def test_ellipsis_graph_check(tmp_path: Path) -> None:
    found = migrated(HERE / "transformers_idefics_perceiver.py", "TRT303", "8.6", tmp_path)
    before = [i for i in check_graph(onnx.load(str(tmp_path / "original.onnx")), "8.6") if i.op == "Einsum"]
    after = [i for i in check_graph(onnx.load(str(tmp_path / "rewritten.onnx")), "8.6") if i.op == "Einsum"]
    assert before and "ellipsis" in before[0].reason and not after, (before, after)
    assert found["source"].count("torch.matmul(") == 2


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(variant: dict, exporter: str) -> None:
    for label, inputs in variant["sets"].items():
        graph_outputs_match(variant["graphs"][exporter], variant["original"], inputs, 1e-5, f"{exporter} {label}")


def test_eager_agrees_within_rounding(variant: dict) -> None:
    """Outputs and input gradients within float32 rounding (the rule's stated assumption), NaN where NaN;
    shapes, dtypes and raised exceptions the same."""
    for label, inputs in variant["sets"].items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            before, after = run_once(variant["original"], given), run_once(variant["rewritten"], given)
            assert before.error is after.error, label
            # float32 rounding of the products, which the scores' softmax carries to the outputs (MobileNetV4's
            # attention at scores of a few hundred: 6e-5 on outputs of 46).
            torch.testing.assert_close(after.output, before.output, equal_nan=True, rtol=1e-5, atol=1e-5, msg=label)
            if before.grads is not None:
                for a, b in zip(before.grads, after.grads):
                    if a is not None:
                        torch.testing.assert_close(b, a, equal_nan=True, rtol=1e-4, atol=1e-4, msg=label)
