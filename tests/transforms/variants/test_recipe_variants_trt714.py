"""The arange-from-values recipe (TRT714) on real-code variants.

Each variant in ``tests/recipe_variants/trt714/`` is a small runnable model reduced from a public
repository (cited in its docstring) that builds ``torch.arange`` of a count computed from tensor
values.

- Six are taken (``TAKEN``): the rules rewrite the file from the code alone (``--unsafe``) so
  that the count comes from ``nonzero()``'s shape, also where a local holds the count
  (PyTorch3D's ray tracer twice, MMYOLO's instance numbering; MMYOLO's ``view`` keeps its size
  from the sum, which the graph check still reports). The original TorchScript graph either ranges
  over a value (a ``Range`` fed by ``ReduceSum``: an execution tensor where TensorRT needs a
  shape tensor; the graph check reports it) or, with ``.item()``, bakes the example's range and
  is wrong where more elements are selected; the rewritten graph has no such ``Range`` and equals eager mode at
  other sizes and counts (none selected, all selected, no elements). Eager mode is unchanged
  (outputs, dtype, gradients, exceptions) on bool masks, the fix's assumption.
- Two are reported and left (``REPORTED``): a sum of counts per group (PyG's kNN search, where
  ``nonzero()``'s count would number fewer candidates than there are; rewritten before) and the
  largest class id plus one (no shape holds it).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import TESTS, rewrite
from variant_models import (assert_eager_unchanged, assert_graph_equals_eager, built, export_variant, graph_matches,
                            load_rewritten, load_variant)

from trtcodemod.engine import Options, fix_source
from trtcodemod.trt.check import check_graph

HERE = TESTS / "recipe_variants" / "trt714"


def _isolated_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(3)
    return {
        "10 nodes, 6 edges": (torch.randn(10, 3, generator=g), torch.randint(0, 10, (2, 6), generator=g)),
        "no edges (count 0)": (torch.randn(4, 3, generator=g), torch.zeros(2, 0, dtype=torch.long)),
        "every node touched": (torch.randn(3, 3, generator=g), torch.tensor([[0, 1, 2], [1, 2, 0]])),
        "one self-loop": (torch.zeros(5, 3), torch.zeros(2, 1, dtype=torch.long)),
    }


def _transfusion_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(4)
    special = torch.tensor([float("inf"), float("nan"), -1.0, 0.0, -0.0, 2.5])
    return {
        "12 boxes": (torch.rand(12, generator=g), torch.randint(0, 5, (12,), generator=g)),
        "no box of the first task (count 0)": (torch.rand(5, generator=g), torch.tensor([1, 2, 3, 4, 2])),
        "no box of any task": (torch.rand(3, generator=g), torch.tensor([4, 3, 4])),
        "every box kept": (torch.rand(4, generator=g), torch.tensor([0, 1, 2, 0])),
        "inf, NaN, negative and signed-zero scores": (special, torch.tensor([0, 1, 2, 3, 0, 1])),
        "no boxes": (torch.zeros(0), torch.zeros(0, dtype=torch.long)),
    }


def _subgraph_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(5)
    return {
        "8 nodes, 9 edges": (torch.randint(0, 8, (2, 9), generator=g), torch.rand(8, generator=g) > 0.3),
        "no node kept (count 0)": (torch.tensor([[0, 1], [1, 2]]), torch.zeros(3, dtype=torch.bool)),
        "every node kept, more edges than the example's": (
            torch.tensor([[0, 1, 2, 3, 0, 1], [2, 0, 1, 0, 3, 3]]), torch.ones(4, dtype=torch.bool)),
        "no edges": (torch.zeros(2, 0, dtype=torch.long), torch.ones(4, dtype=torch.bool)),
    }


def _ray_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(6)
    rays = torch.randn(9, 5, 3, generator=g), torch.randn(9, 5, generator=g)  # 5 steps: the model's
    return {
        "9 rays": (*rays, torch.rand(9, generator=g) > 0.5),
        "every ray out (object mask empty)": (*rays, torch.zeros(9, dtype=torch.bool)),
        "no ray out (count 0)": (torch.randn(4, 5, 3, generator=g), -torch.rand(4, 5, generator=g) - 0.1,
                                 torch.ones(4, dtype=torch.bool)),
        "zero SDF (no sign change)": (torch.randn(3, 5, 3, generator=g), torch.zeros(3, 5),
                                      torch.ones(3, dtype=torch.bool)),
        "inf and negative SDF": (torch.randn(2, 5, 3, generator=g),
                                 torch.tensor([[float("inf"), 1.0, -2.0, -float("inf"), 0.5],
                                               [-0.0, 3.0, -1.0, 2.0, float("inf")]]),
                                 torch.tensor([True, False])),
        "no rays": (torch.zeros(0, 5, 3), torch.zeros(0, 5), torch.zeros(0, dtype=torch.bool)),
    }


def _secant_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(8)
    steps = torch.linspace(0.0, 2.0, 5)
    sdf = torch.randn(9, 5, generator=g)
    sdf[:, 0] = sdf[:, 0].abs() + 0.1  # every ray starts outside the surface (see the variant)
    crossing = -torch.rand(4, 5, generator=g) - 0.1
    crossing[:, 0] = 0.5
    return {
        "9 rays": (steps.repeat(9, 1), sdf),
        "no sign change (count 0)": (steps.repeat(3, 1), torch.rand(3, 5, generator=g) + 0.1),
        "every ray crossing after its first sample": (steps.repeat(4, 1), crossing),
        "zero and inf SDF": (steps.repeat(2, 1), torch.tensor([[0.0, 0.0, -1.0, 2.0, 0.5],
                                                               [float("inf"), 1.0, -float("inf"), -0.0, 3.0]])),
        "no rays": (torch.zeros(0, 5), torch.zeros(0, 5)),
    }


def _instance_sets() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(7)

    def gts(images: list[float]) -> torch.Tensor:
        return torch.cat([torch.tensor(images).view(-1, 1), torch.rand(len(images), 5, generator=g)], 1)

    return {
        "9 instances": (gts([0, 1, 1, 0, 0, 1, 0, 1, 1]),),
        "no instance in the second image (count 0)": (gts([0, 0, 0]),),
        "every instance in the second image": (gts([1, 1, 1, 1]),),
        "an image outside the batch": (gts([2, 0, 2, 1]),),
        "no instances": (torch.zeros(0, 6),),
    }


# name → (rules, fragment of the rewritten code, other input sets)
TAKEN = {
    "pyg_remove_isolated_nodes": (
        ("TRT714",), "assoc[mask] = torch.arange(mask.nonzero().shape[0], device=assoc.device)", _isolated_sets),
    "mmdet3d_transfusion_keep": (
        ("TRT714",), "task_keep_indices = torch.arange(task_mask.nonzero().shape[0])", _transfusion_sets),
    # `.item()` is TRT702's: it hands the 0-d count to the range, and TRT714 takes that
    "pyg_subgraph_relabel": (
        ("TRT702", "TRT714"), "edge_idx[edge_mask] = torch.arange(edge_mask.nonzero().shape[0], device=device)",
        _subgraph_sets),
    # a local holds the count (`n_p_out = p_out_mask.sum()`): taken since the mask is the same
    "pytorch3d_ray_sampler_p_out": (
        ("TRT714",), "[torch.arange(p_out_mask.nonzero().shape[0]), out_pts_idx, :]", _ray_sets),
    # the same local feeds two ranges
    "pytorch3d_ray_sampler_secant": (
        ("TRT714",), "sdf_low = sdf_val[secant_pts][torch.arange(secant_pts.nonzero().shape[0]), sampler_pts_ind",
        _secant_sets),
    "mmyolo_instance_target_inds": (
        ("TRT714",), "torch.arange((batch_gt_instances[:, 0] == i).nonzero().shape[0], device=", _instance_sets),
}

#: Variants whose rewritten graph still sizes a reshape from the sum (no rule rewrites a view's size)
VIEWS_FROM_VALUES = {"mmyolo_instance_target_inds"}

REPORTED = {
    "pyg_knn_counts": "`count.sum()` is computed from tensor values",
    "super_gradients_top_k_per_cls": "`n_unique_cls + 1` is computed from tensor values",
}


def _value_ranges(model: onnx.ModelProto, op: str = "Range") -> list[str]:
    """The graph check's findings of a Range (or ``op``) sized by an execution tensor (before TensorRT 8.5)."""
    return [i.op for i in check_graph(model, "8.4") if i.op == op and "shape tensor" in i.reason]


@pytest.fixture(scope="module", params=list(TAKEN))
def taken(request, tmp_path_factory) -> dict:
    """The variant, its rewrite, both exported (TorchScript exporter, dynamic axes) and loaded."""
    name = request.param
    rules, _, sets = TAKEN[name]
    folder = tmp_path_factory.mktemp(name)
    module, source, rewritten_module = load_rewritten(HERE / f"{name}.py", rules, folder, "trt714")
    original, rewritten = built(module), built(rewritten_module)
    example = module.inputs(torch.Generator().manual_seed(0))
    exported = {}
    for label, model in (("before", original), ("after", rewritten)):
        path = folder / f"{label}.onnx"
        session, _ = export_variant(model, example, module.DYNAMIC, path, folder)
        exported[label] = (session, onnx.load(str(path)))
    return dict(name=name, module=module, source=source, original=original, rewritten=rewritten,
                sets={"example": example, **sets()}, **exported)


def test_the_rules_take_the_count_from_nonzero(taken) -> None:
    rules, fragment, _ = TAKEN[taken["name"]]
    assert fragment in taken["source"], taken["source"]
    path = HERE / f"{taken['name']}.py"
    safe = fix_source(path.read_bytes(), str(path), Options(select=rules, scope="all")).source.decode()
    assert safe == path.read_text()  # unsafe: not without --unsafe


def test_the_original_graph_ranges_over_a_value_or_bakes_the_count(taken) -> None:
    session, model = taken["before"]
    if taken["name"] == "pyg_subgraph_relabel":
        # `.item()`: the trace keeps the example's range as a constant, too short for more edges
        assert not graph_matches(session, taken["original"], taken["sets"]["every node kept, more edges than the "
                                                                           "example's"])
    else:
        assert "Range" in _value_ranges(model)


def test_the_rewritten_graph_has_no_value_range_and_equals_eager_mode(taken) -> None:
    session, model = taken["after"]
    assert _value_ranges(model) == []
    # what is left is the view's size, not the range's
    assert bool(_value_ranges(model, "Reshape")) == (taken["name"] in VIEWS_FROM_VALUES)
    for label, inputs in taken["sets"].items():
        assert_graph_equals_eager(session, taken["original"], inputs, label)


def test_eager_mode_is_unchanged_on_bool_masks(taken) -> None:
    assert_eager_unchanged(taken["original"], taken["rewritten"], taken["sets"])


@pytest.mark.parametrize("name", list(REPORTED))
def test_counts_that_are_no_count_of_entries_are_reported_and_left(name: str) -> None:
    path = HERE / f"{name}.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT714",), unsafe=True, scope="all"))
    assert result.source.decode() == path.read_text()
    [finding] = [f for f in result.findings if f.rule == "TRT714"]
    assert REPORTED[name] in finding.message


def test_the_count_from_nonzero_would_be_wrong_for_counts_per_group(tmp_path: Path) -> None:
    """Why PyG's kNN range is left: its counts sum to more than their non-zero entries."""
    path = HERE / "pyg_knn_counts.py"
    text = path.read_text().replace("torch.arange(count.sum(),", "torch.arange(count.nonzero().shape[0],")
    (tmp_path / "forced.py").write_text(text)
    module, forced = load_variant(path, "trt714_knn"), load_variant(tmp_path / "forced.py", "trt714_knn_forced")
    inputs = module.inputs(torch.Generator().manual_seed(0))
    built(module)(*inputs)
    with pytest.raises(RuntimeError, match="must match the size"):
        built(forced)(*inputs)  # 3 non-zero counts number 8 candidates


FORMS = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask):
        a = torch.arange(0, mask.sum(), device=x.device)
        b = torch.arange(torch.count_nonzero(mask))
        c = torch.arange(mask.count_nonzero().long(), dtype=torch.int32)
        d = torch.arange((x > 0).sum())
        return a, b, c, d
"""

LEFT = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, notin):
        count = notin.view(-1, 3).sum(dim=1)
        a = torch.arange(count.sum())
        b = torch.arange(notin.sum(1).sum())
        c = torch.arange(count.long().sum())
        return a, b, c
"""


def test_a_start_count_nonzero_and_a_comparison_are_taken_and_keep_eager_values(tmp_path: Path) -> None:
    """Forms not taken before: an end after a start, ``count_nonzero`` (exact for any tensor), and
    the sum of a comparison (not even reported before)."""
    after = rewrite(FORMS, unsafe=True, select=("TRT714",))
    assert "a = torch.arange(0, mask.nonzero().shape[0], device=x.device)" in after
    assert "b = torch.arange(mask.nonzero().shape[0])" in after
    assert "c = torch.arange(mask.nonzero().shape[0], dtype=torch.int32)" in after
    assert "d = torch.arange((x > 0).nonzero().shape[0])" in after
    _assert_same_values(FORMS, after)


def _assert_same_values(source: str, after: str) -> None:
    """``M()(x, mask)`` of both sources gives the same tensors (dtype, shape, values, NaN where
    NaN) on random, all-false, all-true, empty and inf/NaN/signed-zero inputs."""
    namespace: dict = {}
    exec(compile(source, "before", "exec"), namespace)  # noqa: S102 - our own test source
    before = namespace["M"]()
    exec(compile(after, "after", "exec"), namespace)  # noqa: S102
    later = namespace["M"]()
    for x, mask in ((torch.randn(7), torch.rand(7) > 0.5), (torch.zeros(3), torch.zeros(3, dtype=torch.bool)),
                    (-torch.ones(4), torch.ones(4, dtype=torch.bool)),
                    (torch.zeros(0), torch.zeros(0, dtype=torch.bool)),
                    (torch.tensor([float("nan"), float("inf"), -0.0]), torch.tensor([True, False, True]))):
        for got, want in zip(later(x, mask), before(x, mask)):
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)  # dtype and shape too


def test_sums_of_counts_per_group_are_left(tmp_path: Path) -> None:
    path = tmp_path / "left.py"
    path.write_text(LEFT)
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT714",), unsafe=True, scope="all"))
    assert result.source.decode() == LEFT
    assert len([f for f in result.findings if f.rule == "TRT714"]) == 3


LOCALS = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask):
        n = mask.sum()
        k = (x > 0).count_nonzero()
        a = torch.arange(n, device=x.device)
        b = torch.arange(0, k.long())
        c = x[mask][torch.arange(n)]
        g = (x > 0) & mask if self.training else mask
        d = torch.arange(g.sum())
        return a, b, c, d
"""

STALE = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask, other):
        n = mask.sum()
        mask = other
        a = torch.arange(n)
        m = mask.sum()
        mask[0] = True
        b = torch.arange(m)
        k = (x > 0).sum()
        x += 1
        c = torch.arange(k)
        j = mask.sum()
        for i in range(2):
            d = torch.arange(j)
            mask = x > i
        j = mask.sum()
        j = j.long()
        e = torch.arange(j)
        return a, b, c, d, e
"""


def test_a_local_holding_a_count_is_taken_and_keeps_eager_values() -> None:
    """``n = m.sum()`` then ``torch.arange(n)`` (PyTorch3D's and MMYOLO's form): the range reads
    the count from ``m``'s shape, the local stays for its other uses. A mask bound from a
    conditional between masks (PyTorch3D's ``secant_pts``) is one too."""
    after = rewrite(LOCALS, unsafe=True, select=("TRT714",))
    assert "n = mask.sum()" in after and "k = (x > 0).count_nonzero()" in after
    assert "a = torch.arange(mask.nonzero().shape[0], device=x.device)" in after
    assert "b = torch.arange(0, (x > 0).nonzero().shape[0])" in after
    assert "c = x[mask][torch.arange(mask.nonzero().shape[0])]" in after
    assert "d = torch.arange(g.nonzero().shape[0])" in after  # a conditional between masks is a mask
    _assert_same_values(LOCALS, after)


def test_a_local_count_whose_tensor_changed_since_is_reported_and_left() -> None:
    """The mask rebound, written through or added to between the count and the range, rebound
    below the range in a loop that reaches the range again: the local no longer counts what the
    range would read. A local rebound from itself (``j = j.long()``) is left too."""
    path = Path("stale.py")
    result = fix_source(STALE.encode(), str(path), Options(select=("TRT714",), unsafe=True, scope="all"))
    assert result.source.decode() == STALE
    assert len([f for f in result.findings if f.rule == "TRT714"]) == 5
