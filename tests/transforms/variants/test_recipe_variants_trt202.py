"""The mask-update recipe (TRT202) on real-code variants.

Each variant in ``tests/recipe_variants/trt202/`` is a small runnable model reduced from a public
repository (cited in its docstring): ``t[mask] op= v`` / ``t[mask] = tensor`` in SAM-style point
prompts, a sliding-window stitch and a grid fill. For each one the rules rewrite the file from the
code alone (TRT202 with ``--unsafe``, TRT204 where a number is written first); the original's
TorchScript export holds NonZero on those lines (and for a mask over fewer axes, a Where that
ONNX Runtime refuses to run), the
rewritten one has no NonZero, loads, and equals eager mode at other sizes and on edge values (all
labels one kind, all-false and all-true masks, no rows, inf/NaN); eager mode is unchanged, bit for
bit (outputs, input gradients, exceptions). Two variants write a value with one row per selected
entry: TRT202 reports them and leaves the file as it is.
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
    input_names,
    load_variant,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt202"

# name → (fragments of the rewritten code, whether the original's graph runs in ONNX Runtime,
#         input shapes of two other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], bool, list[list[tuple[int, ...]]]]] = {
    # SAM 2: `= 0.0` (TRT204's helper) then five `+=` through (B, N) label masks.
    "sam2_points": (("_trt_mask_fill_float(point_embedding, labels == -1, 0.0)",
                     "point_embedding = torch.where(_trt_mask_rows(labels == 3, point_embedding), "
                     "(point_embedding + self.point_embeddings[3].weight).to(point_embedding.dtype), point_embedding)"),
                    False, [[(1, 3, 2), (1, 3)], [(3, 1, 2), (3, 1)]]),
    # MONAI VISTA3D: a value that is a sum, parenthesized in `t + (a + b)`.
    "monai_vista3d_points": (("point_embedding = torch.where(_trt_mask_rows(point_labels == 2, point_embedding), "
                              "(point_embedding + (self.point_embeddings[0].weight + self.special_class_embed.weight))"
                              ".to(point_embedding.dtype), point_embedding)",),
                             False, [[(2, 3, 3), (2, 3)], [(1, 9, 3), (1, 9)]]),
    # kornia: the same in a helper method called with pad=True.
    "kornia_sam_points": (("point_embedding = torch.where(_trt_mask_rows(labels == 0, point_embedding), "
                           "(point_embedding + self.point_embeddings[0].weight).to(point_embedding.dtype), "
                           "point_embedding)",),
                          False, [[(2, 2, 2), (2, 2)], [(1, 7, 2), (1, 7)]]),
    # MONAI's stitching: `t[m] = v[m]` takes `v` whole; NaN (0/0) where the mask is False.
    "monai_vista3d_stitch": (("stitched_output = torch.where(_trt_mask_rows(stitched_mask < 1, stitched_output), "
                              "torch.as_tensor(prev_mask, dtype=stitched_output.dtype, "
                              "device=stitched_output.device), stitched_output)",),
                             True, [[(1, 1, 2, 5, 6), (1, 1, 2, 5, 6)], [(1, 1, 4, 1, 6), (1, 1, 4, 1, 6)]]),
    # torchvision: a full-shape mask over a view of the name's own previous value.
    "torchvision_grid_fill": (("img = torch.where(_trt_mask_rows(mask, img), torch.as_tensor(fill_img, "
                               "dtype=img.dtype, device=img.device), img)",),
                              True, [[(2, 3, 4, 7), (2, 4, 7, 2)], [(1, 3, 9, 3), (1, 9, 3, 2)]]),
}

#: Variants whose original output is a view (``img = img[:, :-1]`` then the masked write).
OTHER_STRIDES = {"torchvision_grid_fill"}

#: Variants whose value has one row per selected entry: reported, not rewritten.
PER_ROW = {"pyg_mask_label": "self.emb(y[mask])", "torchvision_loss_inter_union": "(xkis2[mask] - xkis1[mask])"}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _rewritten(name: str, tmp_path: Path):
    path = HERE / f"{name}.py"
    options = Options(select=("TRT202", "TRT204"), unsafe=True, scope="all")
    text = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(text)
    return text, load_variant(new_path, f"trt202_rewritten_{name}")


def _labels_like(t: torch.Tensor, value: int) -> torch.Tensor:
    return torch.full_like(t, value)


def _edge_sets(name: str, module) -> dict[str, tuple]:
    """Edge values per kind of variant: every label one kind (masks all-false and all-true), no
    rows, inf/NaN in the values written through the mask and in those it leaves."""
    example = variant_inputs(module, None, 0)
    first, second = example
    if name.endswith("_points"):
        sets = {f"all-label-{k}": (first, _labels_like(second, k)) for k in (-1, 0, 1)}
        sets["empty"] = (first[:, :0], second[:, :0])
        sets["no-batch"] = (first[:0], second[:0])
        coords = first.clone()
        coords.view(-1)[[0, 3]] = torch.tensor([float("inf"), float("nan")])
        sets["inf-nan"] = (coords, second)
        return sets
    if name == "monai_vista3d_stitch":
        odd = first.clone()
        odd.view(-1)[[0, 5, 7]] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        return {"zeros": (torch.zeros_like(first), torch.zeros_like(second)),
                "inf-nan": (odd, second), "nan-prev": (first, torch.full_like(second, float("nan")))}
    assert name == "torchvision_grid_fill"
    inside = torch.zeros_like(second)  # every sample inside: an all-false mask
    outside = torch.full_like(second, 5.0)  # every sample outside: an all-true mask
    odd = first.clone()
    odd.view(-1)[[0, 4]] = torch.tensor([float("inf"), float("nan")])
    return {"all-inside": (first, inside), "all-outside": (first, outside), "inf-nan": (odd, second),
            "negatives": (-first.abs(), second), "empty": (first[:0], second[:0])}


def _nonzero(path: Path) -> int:
    return sum(node.op_type == "NonZero" for node in onnx.load(path).graph.node)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_export(name: str, tmp_path: Path) -> None:
    fragments, runs_before, others = VARIANTS[name]
    module = load_variant(HERE / f"{name}.py", f"trt202_{name}")
    text, rewritten_module = _rewritten(name, tmp_path)
    for fragment in fragments:
        assert fragment in text, text
    original, rewritten = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)

    # Before: NonZero for the masked writes; with a mask over fewer axes than the tensor, the
    # TorchScript exporter's `= 0.0` is a Where that ONNX Runtime refuses to run (to load, with
    # static shapes): it broadcasts the mask from the trailing axes.
    before = tmp_path / "before.onnx"
    session, _ = export_variant(original, example, module.DYNAMIC, before, HERE)
    assert _nonzero(before), name
    if not runs_before:
        with pytest.raises(Exception, match="running Where node"):
            session.run(None, {n: t.numpy() for n, t in zip(input_names(original), example)})

    # After: no NonZero; the graph loads and equals eager mode at other sizes and edge values.
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    assert not _nonzero(tmp_path / "after.onnx")
    sets = {f"size{seed}": variant_inputs(module, shapes, seed) for seed, shapes in enumerate(others, 1)}
    sets.update(_edge_sets(name, module))
    for label, inputs in sets.items():
        assert_graph_equals_eager(session, original, inputs, label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_dynamo_export(name: str, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt202_dynamo_{name}")
    text, rewritten_module = _rewritten(name, tmp_path)
    assert all(fragment in text for fragment in VARIANTS[name][0])
    rewritten = _built(rewritten_module)
    example = variant_inputs(module, None, 0)
    path = tmp_path / "dynamo.onnx"
    session = export_variant_dynamo(rewritten, example, module.DYNAMIC, path)
    assert not _nonzero(path)
    original = _built(module)
    for seed, shapes in enumerate(VARIANTS[name][2], 1):
        assert_graph_equals_eager(session, original, variant_inputs(module, shapes, seed), str(shapes))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt202_eager_{name}")
    text, rewritten_module = _rewritten(name, tmp_path)
    assert all(fragment in text for fragment in VARIANTS[name][0])  # the rewrite is what runs here
    original, rewritten = _built(module), _built(rewritten_module)
    if name in OTHER_STRIDES:
        # Assumption (5) of TRT202's doc: the new tensor is contiguous, the original's output a
        # view; everything else (values, dtype, shape, gradients, errors) is compared as is.
        original, rewritten = _contiguous(original), _contiguous(rewritten)
    sets = {"random": variant_inputs(module, None, 0), **_edge_sets(name, module)}
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(original, given), run_once(rewritten, given), context=label)


def _contiguous(model: torch.nn.Module):
    return lambda *inputs: model(*inputs).clone(memory_format=torch.contiguous_format)


@pytest.mark.parametrize("name", list(PER_ROW))
def test_per_row_value_reported_not_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    options = Options(select=("TRT202",), unsafe=True, scope="all")
    [finding] = check_source(source, str(path.resolve()), options)
    assert finding.fix.value == "none" and "selects rows with the mask itself" in finding.message, finding.message
    assert PER_ROW[name] in finding.message
    assert fix_source(source, str(path.resolve()), options).source == source
