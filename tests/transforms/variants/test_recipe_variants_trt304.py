"""The einsum-to-permute recipe (TRT304, safe where the operand is evidently a tensor) on real-code variants.

Each variant in ``tests/recipe_variants/trt304/`` is a small runnable model reduced from a public
repository (cited in its docstring) that reorders axes with a one-operand ``torch.einsum``: MAE's
6-D patch split and its inverse, DiT's output head, LlamaGen's quantiser moving channels last and back (spaced
labels), XLNet's attention mask and probabilities, and a channels-last preprocessing lambda whose
operand sits in a list (``einsum('chw->hwc', [x])``, neither named nor rewritten before). Both
exporters emit ONNX ``Einsum``, which TensorRT before 8.2 lacks. The rule rewrites each from the
code alone into ``permute``: safely where the operand is visibly a tensor (XLNet's softmax result),
with ``--unsafe`` elsewhere (the rule's stated assumption: the operand is a tensor, not a list of
operands). The rewritten graphs, with both exporters, hold no one-operand Einsum and equal eager
mode at other sizes and on edge values; eager mode is unchanged bit for bit (values, dtype, shape,
strides, aliasing, gradients, exceptions: einsum computes a pure reordering as that very permute
view), and so are TorchScript, fx, compile and export wherever the original ran under them.
"""

from __future__ import annotations


import onnx
import pytest
import torch
from einsum_variants import assert_rewritten, einsum_operand_counts, graph_outputs_match, migrated, rewrite_at
from variant_rewrites import assert_eager_unchanged, assert_toolchains_agree

from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt304"
INF, NAN = float("inf"), float("nan")
TARGET = "8.0"  # TensorRT without an Einsum importer


def _seeded(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(*shape: int, seed: int) -> torch.Tensor:
    return (torch.rand(*shape, generator=torch.Generator().manual_seed(seed)) > 0.6).float()


# name → (fragments with --unsafe, fragments without it, einsums left, other input sets by name)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], int, dict[str, tuple[torch.Tensor, ...]]]] = {
    "mae_patchify": (("x = x.permute(0, 2, 4, 3, 5, 1)", "x = x.permute(0, 5, 1, 3, 2, 4)"), (), 0, {
        "larger": (_seeded(3, 3, 8, 4, seed=1),),
        "one-patch": (_seeded(1, 3, 2, 2, seed=2),),
        "zeros": (torch.zeros(2, 3, 4, 4),),
        "negatives": (-_seeded(2, 3, 6, 2, seed=3).abs() * 100,),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0]).repeat(12).view(2, 3, 4, 3)[..., :2].contiguous(),),
        "empty": (torch.zeros(0, 3, 4, 4),),
    }),
    "dit_unpatchify": (("x = x.permute(0, 5, 1, 3, 2, 4)",), (), 0, {
        "larger": (_seeded(3, 2, 8, 8, seed=21),),
        "one-patch": (_seeded(1, 2, 2, 2, seed=22),),
        "zeros": (torch.zeros(2, 2, 4, 4),),
        "negatives": (-_seeded(2, 2, 6, 6, seed=23).abs() * 100,),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0, 2.0, -3.0]).repeat(8).view(2, 2, 4, 4),),
        # No empty batch: the TorchScript graph of the patch embedding's `flatten(2)` (a Reshape
        # with -1) fails on no elements; that line is not the rule's and the rewrite leaves it.
    }),
    "llamagen_vq_layout": (("z = z.permute(0, 2, 3, 1).contiguous()", "z_q = z_q.permute(0, 3, 1, 2)"), (), 0, {
        "larger": (_seeded(3, 4, 7, 2, seed=4),),
        "one-pixel": (_seeded(1, 4, 1, 1, seed=5),),
        "zeros": (torch.zeros(2, 4, 2, 3),),
        "negatives": (-_seeded(2, 4, 3, 3, seed=6).abs() * 10,),
        # No empty map: the TorchScript export of `view(z.shape)` after the code look-up keeps a
        # shape that fails on no pixels, in the original's graph too.
    }),
    "transformers_xlnet_rel_attn": (("attn_score = attn_score - 1e30 * attn_mask.permute(2, 3, 0, 1)",
                                     "return attn_vec, attn_prob.permute(2, 3, 0, 1)"),
                                    ("return attn_vec, attn_prob.permute(2, 3, 0, 1)",), 2, {
        "longer": (_seeded(6, 3, 2, 3, seed=7), _seeded(7, 3, 2, 3, seed=8), _seeded(7, 3, 2, 3, seed=9),
                   _mask(6, 7, 3, 2, seed=10)),
        "unmasked": (_seeded(2, 1, 2, 3, seed=11), _seeded(3, 1, 2, 3, seed=12), _seeded(3, 1, 2, 3, seed=13),
                     torch.zeros(2, 3, 1, 2)),
        "all-masked": (_seeded(2, 2, 2, 3, seed=14), _seeded(2, 2, 2, 3, seed=15), _seeded(2, 2, 2, 3, seed=16),
                       torch.ones(2, 2, 2, 2)),
        "inf-nan": (torch.tensor([INF, NAN, -1.0]).repeat(8).view(2, 2, 2, 3), _seeded(3, 2, 2, 3, seed=17),
                    _seeded(3, 2, 2, 3, seed=18), torch.zeros(2, 3, 2, 2)),
        # No empty lengths: the two-operand einsums left (not TRT304's) stop ONNX Runtime's process
        # (a floating-point exception) on an empty operand.
    }),
    "google_bird_or_bicycle_layout": (("self.steps = (lambda x: x / 255.0, lambda x: x.permute(1, 2, 0))",), (), 0, {
        "larger": (torch.randint(0, 256, (3, 9, 2), generator=torch.Generator().manual_seed(19)).float(),),
        "one-pixel": (torch.tensor([[[0.0]], [[255.0]], [[128.0]]]),),
        "negatives": (-_seeded(3, 2, 3, seed=20).abs() * 255,),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 255.0]).view(3, 1, 2),),
        "empty": (torch.zeros(3, 0, 4),),
    }),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def variant(request, tmp_path_factory) -> dict:
    name = request.param
    found = migrated(HERE / f"{name}.py", "TRT304", TARGET, tmp_path_factory.mktemp(name))
    return {**found, "name": name, "sets": {"example": found["example"], **VARIANTS[name][3]}}


def test_rule_rewrites_each_permutation(variant: dict) -> None:
    unsafe, safe, left, _ = VARIANTS[variant["name"]]
    assert_rewritten(variant["source"], unsafe, left)
    # Without --unsafe only the operands the code shows to be tensors are rewritten.
    path = variant["path"]
    safe_only = rewrite_at(path, "TRT304", TARGET, unsafe=False)
    assert [f for f in unsafe if f in safe_only] == list(safe), safe_only


def test_one_operand_einsum_leaves_the_graph(variant: dict) -> None:
    folder = variant["folder"]
    assert 1 in einsum_operand_counts(folder / "original.onnx")
    named = {issue.rule for issue in check_graph(onnx.load(str(folder / "original.onnx")), TARGET) if issue.op == "Einsum"}
    assert "TRT304" in named, named
    for graph in ("rewritten.onnx", "rewritten_dynamo.onnx"):
        assert 1 not in einsum_operand_counts(folder / graph), graph


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(variant: dict, exporter: str) -> None:
    for label, inputs in variant["sets"].items():
        graph_outputs_match(variant["graphs"][exporter], variant["original"], inputs, 1e-5, f"{exporter} {label}")


def test_eager_unchanged_bit_for_bit(variant: dict) -> None:
    """Values, dtype, shape, strides, aliasing, input gradients and exceptions (tests/safety.py)."""
    assert_eager_unchanged(variant["original"], variant["rewritten"], variant["sets"])


def test_toolchains_agree(variant: dict) -> None:
    """TorchScript, fx, compile and export: wherever the original runs, the rewrite does, exactly."""
    assert_toolchains_agree(variant["original"], variant["rewritten"], list(variant["example"]),
                            variant["folder"], variant["name"])
