"""The range-blocks recipe (TRT359) on real-code variants.

Each variant in ``tests/recipe_variants/trt359/`` is a small runnable model reduced from a public repository
(cited in its docstring) that gives every frustum point of a Lift-Splat view transform its batch index with
``torch.cat([torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long) for ix in range(B)])``, as five
repositories write it: Lift-Splat-Shoot itself (the call over two lines, the cumulative-sum trick), HDMapNet
(one line, x and y swapped in the grid), ADLab-AutoDrive's BEVFusion (the column moved with ``.to(...)``, the
height folded by a reshape), MIT HAN Lab's BEVFusion (the comprehension spread over six lines by a formatter,
a scatter-add kernel) and BEVDet (behind the depth net's lift, the voxel counts a float parameter).

The rule finds each from the code alone, at the concatenation, and rewrites it. The TorchScript export of
each original concatenates the example's two blocks at every batch size: ONNX Runtime refuses the Concat
that joins the column to the coordinates at batch 3. Each rewritten graph equals eager mode (values, dtype,
shape) at batches of 1, 3 and 5, on zeros, negatives, points all outside the grid and (for the scatter-add)
infinities and NaN; eager mode is unchanged bit for bit (an empty batch raises as ``torch.cat([])`` does).
``migrate`` applies TRT359 at the column and ends equivalent (exit 0) on two of them.

The cumulative-sum trick turns an infinite feature into NaN in the voxels after it in the sorted order, and
points of one voxel tie in that order, which ONNX Runtime's TopK breaks otherwise than ``argsort``: infinite
and NaN features are compared in eager mode only there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, line_of, seeded)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt359"
OPTIONS = Options(select=("TRT359",), scope="all")
NAN, INF = float("nan"), float("inf")

#: variant -> the rewritten column's first line (each concatenation is found at its ``batch_ix = torch.cat(`` line)
VARIANTS: dict[str, str] = {
    "lift_splat_shoot_voxel_pooling": "        batch_ix = _trt_range_blocks([torch.full([Nprime//B, 1], ix,\n",
    "hdmapnet_lift_splat": "        batch_ix = _trt_range_blocks([torch.full([Nprime//B, 1], ix, device=x.device, dtype=torch.long)"
                           " for ix in range(B)], B)\n",
    "adlab_bevfusion_cam_stream": "        batch_ix = _trt_range_blocks([torch.full([Nprime // B, 1], ix,\n",
    "mit_bevfusion_bev_pool": "        batch_ix = _trt_range_blocks([\n"
                              "                torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long)\n"
                              "                for ix in range(B)\n            ],\n        B)\n",
    "bevdet_view_transformer": "        batch_ix = _trt_range_blocks([torch.full([Nprime // B, 1], ix,\n",
}
SCATTER_ADD = ("mit_bevfusion_bev_pool",)  # no cumulative sum: infinities and NaN in the graph too
MIGRATED = ("lift_splat_shoot_voxel_pooling", "mit_bevfusion_bev_pool")


def _like(example: tuple[torch.Tensor, torch.Tensor], batch: int, seed: int, features: float = 1.0,
          points=lambda p: p * 5 - 2.5) -> tuple[torch.Tensor, torch.Tensor]:
    """Features and points of the example's kinds at ``batch``: features times ``features``, points
    ``points`` of uniform [0, 1) draws (by default spread over the grid and just beyond it)."""
    g = seeded(seed)
    x, geom = example
    return (torch.randn((batch, *x.shape[1:]), generator=g) * features,
            points(torch.rand((batch, *geom.shape[1:]), generator=g)))


def _sets(name: str, example: tuple[torch.Tensor, torch.Tensor]) -> dict[str, tuple[torch.Tensor, ...]]:
    x, geom = example
    special = torch.tensor([INF, -INF, NAN, 0.0, 1.0, -1.0]).repeat(x.numel() // 6 + 1)[:x.numel()].reshape(x.shape)
    inf_nan = "inf-nan" if name in SCATTER_ADD else "eager-inf-nan"
    return {
        "batch-3": _like(example, 3, 1),
        "batch-1": _like(example, 1, 2),
        "batch-5": _like(example, 5, 3),
        "zeros": (torch.zeros_like(x), torch.zeros_like(geom)),  # every point in one voxel
        "negatives": _like(example, 2, 4, -3.0, lambda p: -p * 2),  # some points left of the grid
        "all-outside": _like(example, 2, 5, 1.0, lambda p: p + 100.0),  # no point kept
        inf_nan: (special, _like(example, 2, 6)[1]),
        "raises-no-samples": _like(example, 0, 7),  # torch.cat([]) in both
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    """name -> (module, original, rewritten, new source, original's session, rewritten session), made once."""
    folder = tmp_path_factory.mktemp("trt359_variants")
    made: dict[str, tuple] = {}

    def make(name: str) -> tuple:
        if name not in made:
            path = HERE / f"{name}.py"
            module, original = built_variant(path, f"trt359_{name}")
            source = fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode()
            new_path = folder / f"{name}_rewritten.py"
            new_path.write_text(source)
            _, rewritten = built_variant(new_path, f"trt359_rewritten_{name}")
            rewritten.load_state_dict(original.state_dict())
            example = module.inputs(seeded(0))
            before, _ = export_variant(original, example, module.DYNAMIC, folder / f"{name}_before.onnx", folder)
            after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / f"{name}_after.onnx", folder)
            made[name] = (module, original, rewritten, source, before, after)
        return made[name]

    return make


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_column_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), OPTIONS)
    assert [(f.rule, f.line) for f in findings] == [("TRT359", line_of(path, "batch_ix = torch.cat("))], findings
    source = fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode()
    assert VARIANTS[name] in source, source
    assert source.count("for ix in range(B)], B)") + source.count("for ix in range(B)\n            ],\n        B)") == 1
    assert check_source(source.encode(), "rewritten.py", OPTIONS) == []


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_originals_graph_keeps_the_examples_two_blocks(name: str, built) -> None:
    module, original, _, _, before, _ = built(name)
    example = module.inputs(seeded(0))
    assert example[0].shape[0] == 2
    feed = {n: t.numpy() for n, t in zip(input_names(original), example)}
    assert before.run(None, feed)[0].shape == tuple(original(*example).shape)  # the example itself runs
    batch3 = _like(example, 3, 1)
    with pytest.raises(Exception, match="Non concat axis dimensions must match"):
        before.run(None, {n: t.numpy() for n, t in zip(input_names(original), batch3)})


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_graph_follows_the_batch_and_edge_values(name: str, built) -> None:
    module, original, _, _, _, after = built(name)
    example = module.inputs(seeded(0))
    for label, inputs in {"example": example, **_sets(name, example)}.items():
        if label.startswith(("eager-", "raises-")):
            continue
        assert_graph_within(after, original, inputs, 1e-5, f"{name} {label}")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_eager_mode_is_unchanged(name: str, built) -> None:
    module, original, rewritten, _, _, _ = built(name)
    example = module.inputs(seeded(0))
    sets = {"example": example, **_sets(name, example)}
    assert_eager_unchanged(original, rewritten, sets)
    with pytest.raises(ValueError, match="non-empty list of Tensors"):
        original(*sets["raises-no-samples"])
    with torch.no_grad():
        assert np.isnan(original(*sets["zeros"]).numpy()).sum() == 0


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_trt359_at_the_column_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt359_m_{name}")
    report = migrate_json(path, axes_json(module))
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert ("TRT359", line_of(path, "batch_ix = torch.cat(")) in applied, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
    assert "_trt_range_blocks(" in report["diff"], report["diff"]
