"""The unsorted top-k recipe (TRT805) on real-code variants.

Each variant in ``tests/recipe_variants/trt805/`` is a small runnable model reduced from a public
repository (cited in its docstring) that takes the k nearest points with ``topk(...,
largest=False, sorted=False)`` and then pools over them (a max, a mean, a weighted sum): PCT,
PointMLP, PointPWC-Net, LieConv and a PointNet++ library. Both exporters write ``TopK(sorted=0)``,
which TensorRT's parser rejects: the graph check names TRT805 at the top-k's line. The rule
rewrites the file from the code alone (``--unsafe``, as migrate tries a verified candidate); the
rewritten model exports a sorted TopK with both exporters, the graph check finds no TopK left to
report, the graphs equal eager mode at other sizes and on edge values, and eager mode is unchanged
bit for bit (outputs, gradients, exceptions), NaN and infinities included.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from variant_models import (assert_eager_unchanged, assert_unsafe_rewrite, export_variant, export_variant_dynamo,
                            input_names, rewritten_variant, seeded)

from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt805"
NAN, INF = float("nan"), float("inf")


def _points(shapes: list[tuple[int, ...]], seed: int, masks: tuple[int, ...] = ()) -> tuple[torch.Tensor, ...]:
    """Random inputs at ``shapes``; a bool mask (all set but the last of each row) where listed."""
    g = seeded(seed)
    out = []
    for index, shape in enumerate(shapes):
        if index in masks:
            mask = torch.ones(shape, dtype=torch.bool)
            mask[:, -1:] = False
            out.append(mask)
        else:
            out.append(torch.randn(shape, generator=g))
    return tuple(out)


# name → (rewritten fragment, graph sets: other sizes and translated/negative points, eager-only sets)
VARIANTS: dict[str, tuple[str, dict[str, tuple], dict[str, tuple]]] = {
    "pct_local_grouping": (
        "_, group_idx = _trt_topk_unsorted(sqrdists, nsample, dim=-1, largest=False, sorted=False)",
        {"more": _points([(3, 40, 3), (3, 40, 5)], 1), "one": _points([(1, 6, 3), (1, 6, 5)], 2)},
        {"no-batch": (torch.zeros(0, 16, 3), torch.zeros(0, 16, 5)),
         "too-few": _points([(2, 3, 3), (2, 3, 5)], 3)}),  # fewer points than neighbours: raises alike
    "pointmlp_local_grouper": (
        "_, idx = _trt_topk_unsorted(pairwise_sq(new_xyz, xyz), self.kneighbors, dim=-1, largest=False, sorted=False)",
        {"more": _points([(3, 31, 3), (3, 31, 4)], 4), "few": _points([(1, 7, 3), (1, 7, 4)], 5)},
        {"too-few": _points([(2, 4, 3), (2, 4, 4)], 6)}),
    "pointpwc_smoothness": (
        "_, kidx = _trt_topk_unsorted(sqrdist, 9, -1, False, False)",
        {"more": _points([(2, 45, 3), (2, 45, 3)], 7), "nine": _points([(3, 9, 3), (3, 9, 3)], 8)},
        {"no-batch": (torch.zeros(0, 20, 3), torch.zeros(0, 20, 3)),
         "too-few": _points([(2, 8, 3), (2, 8, 3)], 9)}),
    # K is `min(mc_samples, n)`: TRT803 has no fix for the smallest entries, so TRT805 takes the flag.
    # The graph sets keep n above mc_samples (below it the TorchScript trace's branch of min is TRT803's).
    "lieconv_knn_neighbourhood": (
        "nbhd_idx = _trt_topk_unsorted(dists, k, dim=-1, largest=False, sorted=False)[1]",
        {"more": _points([(3, 30, 3), (3, 30, 4), (3, 30)], 10, masks=(2,)),
         "few": _points([(1, 6, 3), (1, 6, 4), (1, 6)], 11, masks=(2,))},
        {"below-cap": _points([(2, 3, 3), (2, 3, 4), (2, 3)], 12, masks=(2,))}),
    "pointnet_upblock_interpolation": (
        "idx = _trt_topk_unsorted(dists, k, dim=-1, largest=False, sorted=False)[1]",
        {"more": _points([(3, 25, 5), (3, 25, 3), (3, 60, 3)], 13), "three": _points([(1, 3, 5), (1, 3, 3), (1, 4, 3)], 14)},
        {"too-few": _points([(2, 2, 5), (2, 2, 3), (2, 5, 3)], 15)}),
}


def _edge_sets(example: tuple[torch.Tensor, ...]) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """Edge values: for the graphs, zeros (every distance tied and every gathered value equal) and
    every value negative; for eager mode only, NaN and infinities too (where
    TopK's order among NaN is the implementation's)."""
    zeros = tuple(t if t.dtype == torch.bool else torch.zeros_like(t) for t in example)
    negative = tuple(t if t.dtype == torch.bool else -t.abs() - 1.0 for t in example)
    odd = []
    for t in example:
        if t.dtype != torch.bool:
            t = t.clone()
            t.view(-1)[:3] = torch.tensor([NAN, INF, -INF])
        odd.append(t)
    return {"zeros": zeros, "negative": negative}, {"inf-nan": tuple(odd)}


def _topk_flags(model: onnx.ModelProto) -> list[int]:
    return [next((a.i for a in node.attribute if a.name == "sorted"), 1)
            for node in model.graph.node if node.op_type == "TopK"]


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    with torch.no_grad():
        want = model(*inputs)
    wants = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
    gots = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    for got, expected in zip(gots, wants):
        assert got.shape == expected.shape, (label, got.shape, expected.shape)
        # A mean or weighted sum over the neighbours adds them in another order: within float32 rounding.
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-5), (label, np.abs(got - expected).max())


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragment, others, eager_only = VARIANTS[name]
    path = HERE / f"{name}.py"
    variant = rewritten_variant(path, "TRT805", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(seeded(0))
    source = path.read_text()
    code_start = source.index('"""', 3) + 3  # below the docstring, which cites the original line
    topk_line = source[:source.index("topk(", code_start)].count("\n") + 1

    # Before: TopK(sorted=0), which the graph check names TRT805 at the top-k's line.
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    before = onnx.load(str(tmp_path / "before.onnx"))
    assert _topk_flags(before) == [0]
    issues = [i for i in check_graph(before, "10.x") if i.op == "TopK"]
    assert [i.rule for i in issues] == ["TRT805"], issues
    assert issues[0].source and issues[0].source.endswith(f"{path.name}:{topk_line}"), issues[0].source

    # The rule from the code alone (unsafe: nothing without --unsafe; migrate keeps it only verified).
    assert_unsafe_rewrite(variant, (fragment,), "TRT805")

    # After: both exporters write a sorted TopK; the graphs follow other sizes and edge values.
    new_path = tmp_path / f"{name}_rewritten.py"
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    for graph in ("after.onnx", "after_dynamo.onnx"):
        model = onnx.load(str(tmp_path / graph))
        assert _topk_flags(model) and set(_topk_flags(model)) == {1}, graph
        assert [i for i in check_graph(model, "10.x") if i.op == "TopK"] == [], graph
    graph_sets, odd_sets = _edge_sets(example)
    for label, inputs in {"example": example, **others, **graph_sets}.items():
        _graph_equals_eager(torchscript, original, inputs, f"torchscript {label}")
        _graph_equals_eager(dynamo, original, inputs, f"dynamo {label}")
    assert new_path.exists()

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    assert_eager_unchanged(original, rewritten, {"example": example, **others, **graph_sets, **odd_sets, **eager_only})
