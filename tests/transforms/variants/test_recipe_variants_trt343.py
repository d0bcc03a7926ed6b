"""The sort-stable recipe (TRT343) on real-code variants.

Each variant in ``tests/recipe_variants/trt343/`` is a small runnable model reduced from a pinned wheel
(cited in its docstring) that sorts with ``stable=``, in the form the original writes it:
transformers' Nemotron-H Omni video token pruning (``torch.argsort(dissimilarity_flat, dim=-1,
descending=True, stable=True)``, blank patches tied across the cut), kornia's quartic solver
(``torch.where(genuine, roots, -torch.inf).argsort(dim=-1, descending=True, stable=True)``, a method
on an expression, spurious roots tied at -inf), transformers' MXFP4 expert routing
(``torch.argsort(torch.where(local, expt_indx, num_experts), stable=True)`` on int32 expert ids,
many routes per expert), PyG's top-k node selection (``torch.sort(batch, descending=False,
stable=True)`` on graph ids already in score order: each graph's nodes keep their score order) and
spandrel's ATD category attention (``torch.sort(tk_id, dim=-1,
stable=False)``). The TorchScript exporter refuses every one ("Unsupported: ONNX export of operator
Sort, Out parameter is not supported").

``migrate`` applies TRT343 (and TRT712 for Nemotron's kept count, TRT201 and TRT334 for PyG's mask and
running count) and ends with exit 0, the rewritten model equivalent, for the first four. They are
also rewritten from the code alone and exported directly: the graph equals eager mode at other sizes
and on edge values (all roots spurious, NaN and infinite candidates, one row; one token, identical
tokens, many tokens; one node, no nodes, a graph without nodes, tied scores), and eager mode is
unchanged.

Not taken equivalently: ATD's ``stable=False``. The rule drops the argument (the same kernel), the
model exports, and its graph differs from eager mode, because which tokens share a group depends on
the order among equal categories, which torch's unstable CPU sort and the graph's TopK choose each
their own way; migrate reverts it (exit 1). Written ``stable=True``, the same model migrates to exit
0, equivalent. The last test pins both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt343"
INF, NAN = float("inf"), float("nan")
CODE_ALONE = Options(select=("TRT343",), scope="all")

#: variant -> (the calls, as written; the text migrate writes for them; the other rules migrate applies).
MIGRATED: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "transformers_nemotron_evs_retention": (
        ("order = torch.argsort(dissimilarity_flat, dim=-1, descending=True, stable=True)",),
        ("order = _trt_argsort(dissimilarity_flat, dim=-1, descending=True, stable=True)",), ("TRT712",)),
    "kornia_quartic_root_order": (
        ("order = torch.where(genuine, roots, -torch.inf).argsort(dim=-1, descending=True, stable=True)",),
        ("order = _trt_argsort(torch.where(genuine, roots, -torch.inf), dim=-1, descending=True, stable=True)",),
        ()),
    "transformers_mxfp4_moe_routing": (
        ("topk_indx = torch.argsort(torch.where(local, expt_indx, num_experts), stable=True).to(torch.int32)",),
        ("topk_indx = _trt_argsort(torch.where(local, expt_indx, num_experts), stable=True).to(torch.int32)",), ()),
    "pyg_topk_select_per_graph": (
        ("batch, batch_perm = torch.sort(batch, descending=False, stable=True)",),
        ("batch, batch_perm = _trt_sort(batch, descending=False, stable=True)",), ("TRT201", "TRT334")),
}


@pytest.mark.parametrize("name", list(MIGRATED))
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    calls, written, others = MIGRATED[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt343_m_{name}")
    lines = sorted(_line_of(path, call) for call in calls)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert sorted(f.line for f in found) == lines  # from the code alone
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert sorted(line for rule, line in applied if rule == "TRT343") == lines, applied
    assert sorted({rule for rule, _ in applied} - {"TRT343"}) == sorted(others), applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    added = [line for line in report["diff"].splitlines() if line.startswith("+")]
    for text in written:
        assert any(text in line for line in added), report["diff"]


def _roots(seed: int, rows: int) -> tuple[torch.Tensor, ...]:
    module = load_variant(HERE / "kornia_quartic_root_order.py", "trt343_roots")
    g = seeded(seed)
    true = torch.randint(-3, 4, (rows, 4), generator=g).float()
    return true.clone(), module.quartic(true), torch.randn(rows, generator=g)


def _roots_edges() -> tuple[torch.Tensor, ...]:
    candidates, coeffs, scale = _roots(5, 5)
    candidates[0] = torch.tensor([9.5, 8.5, 7.5, 6.5])  # all spurious: four ties at -inf
    candidates[1, 0], candidates[2, 1], candidates[3, 2] = float("nan"), INF, -INF
    candidates[4] = candidates[4, :1].expand(4)  # one root four times (spurious unless it is one)
    return candidates, coeffs, scale


def _tokens(seed: int, n: int) -> tuple[torch.Tensor]:
    return (torch.randn(n, 8, generator=seeded(seed)),)


def _nodes(seed: int, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = seeded(seed)
    return torch.randn(n, 4, generator=g), torch.randint(0, 3, (n,), generator=g)


def _blank_video() -> tuple[torch.Tensor]:
    patches = torch.randn(20, 6, generator=seeded(7))
    patches[5:] = 0.0  # every later token blank: 15 ties at dissimilarity 1
    return (patches,)


#: variant -> (the rewritten calls; the sets the graph is compared on).
DIRECT = {
    "kornia_quartic_root_order": (
        ("    order = _trt_argsort(torch.where(genuine, roots, -torch.inf), dim=-1, descending=True, stable=True)\n",),
        {"more-rows": _roots(1, 11), "one-row": _roots(2, 1), "edges": _roots_edges()}),
    "transformers_mxfp4_moe_routing": (
        ("    topk_indx = _trt_argsort(torch.where(local, expt_indx, num_experts), stable=True).to(torch.int32)\n",),
        {"one-token": _tokens(1, 1), "many-tokens": _tokens(2, 40),
         "identical-tokens": (torch.randn(1, 8, generator=seeded(3)).expand(12, 8).contiguous(),)}),
    "transformers_nemotron_evs_retention": (
        ("    order = _trt_argsort(dissimilarity_flat, dim=-1, descending=True, stable=True)\n",),
        {"blank-video": _blank_video(), "other-frames": (torch.randn(20, 6, generator=seeded(8)),)}),
    "pyg_topk_select_per_graph": (
        ("    batch, batch_perm = _trt_sort(batch, descending=False, stable=True)\n",),
        {"more-nodes": _nodes(1, 40), "one-node": _nodes(2, 1),
         "one-graph": (_nodes(3, 9)[0], torch.zeros(9, dtype=torch.long)),
         "a-graph-without-nodes": (_nodes(4, 7)[0], torch.tensor([0, 2, 2, 0, 2, 0, 0])),
         "graph-ids-in-blocks": (_nodes(5, 12)[0], torch.arange(12) // 4),
         "zeros-and-negatives": (torch.cat([torch.zeros(1, 4), -torch.rand(5, 4, generator=seeded(6))]),
                                 torch.tensor([1, 0, 1, 1, 0, 2])),
         "inf-nan": (torch.tensor([[INF, 0.0, 0.0, 0.0], [1.0, NAN, 0.0, 0.0], [-INF, 1.0, 2.0, 3.0],
                                   [0.5, -1.0, 0.0, 2.0]]), torch.tensor([0, 0, 1, 0])),
         "no-nodes": (torch.zeros(0, 4), torch.zeros(0, dtype=torch.long))}),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    written, others = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt343_{name}")
    example = module.inputs(seeded(0))
    with pytest.raises(AssertionError, match="operator Sort, Out parameter is not supported"):
        export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)

    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    for text in written:
        assert text in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt343_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    for label, inputs in {"example": example, **others}.items():
        assert_graph_within(session, original, inputs, 1e-6, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **others})


def test_atd_stable_false_exports_but_its_ties_order_otherwise(tmp_path: Path) -> None:
    """ATD's ``torch.sort(tk_id, dim=-1, stable=False)``: the rule drops the argument (torch's default sort is
    that call), the model exports, and the graph differs from eager mode: which tokens share a group depends on
    the order among equal categories, torch's unstable CPU sort's own. migrate reverts the fix (exit 1) and names
    the line. With ``stable=True`` written in its place, the order is one, and migrate ends equivalent (exit 0)."""
    path = HERE / "spandrel_atd_category_attention.py"
    module = load_variant(path, "trt343_m_atd")
    line = _line_of(path, "torch.sort(tk_id, dim=-1, stable=False)")
    [finding] = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert finding.line == line and "without `stable=False` it is the same call" in finding.message
    after = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert "_x_sort_values, x_sort_indices = torch.sort(tk_id, dim=-1)\n" in after

    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False and report["exit_code"] == 1
    [reverted] = [fix for fix in report["reverted"] if fix["rule"] == "TRT343"]
    assert reverted["line"] == line and "breaks equivalence" in reverted["why"]

    stable = tmp_path / path.name
    stable.write_text(path.read_text().replace("torch.sort(tk_id, dim=-1, stable=False)",
                                               "torch.sort(tk_id, dim=-1, stable=True)"))
    report = migrate_json(stable, _axes_json(module))
    assert ("TRT343", line) in [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True
