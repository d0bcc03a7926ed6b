"""The floor-divide recipe (TRT339) on real-code variants.

Each variant in ``tests/recipe_variants/trt339/`` is a small runnable model reduced from a public
repository (cited in its docstring) that floor-divides something that can be negative, in the form
the original writes it: OpenPCDet's Voxel R-CNN (voxel cells of RoI grid points, a float tensor
``// voxel_size`` then ``// cur_stride``; points outside the range have negative cells), the
block indexer of transformers' MiniMax-M3-VL (the ceiling ``-(-k_len // self.block_size)`` of a
traced size), Qwen2-Audio's output lengths in transformers (``(input_lengths - 1) // 2 + 1`` of an
int64 tensor in a helper method; a one-frame clip or an empty row is negative), icefall's Zipformer
subsampling (``(x_lens - 7) // 2`` written twice, in a branch for the trace and one for eager
mode) and kornia's Qwen2.5-VL window mask (``-(-gw // patches_per_window)`` of a size passed to a
helper as ``gw: int``). The TorchScript exporter writes every such ``//`` as a truncating Div: each
original exports and loads, and its graph differs from eager mode on the traced inputs.

``migrate`` applies TRT339 where the recorded run saw a quotient differ from its truncation (from
the code alone the rule finds only OpenPCDet's ``// cur_stride``: the other operands are a
submodule's or helper's results), and ends with exit 0, the rewritten model equivalent, for
OpenPCDet, MiniMax (with TRT712 and TRT717 on its ``if pad:`` and ``min(...)``) and Qwen2-Audio
(with TRT603 on its AvgPool1d). OpenPCDet (rewritten with the observer's facts) and icefall
(rewritten from the code alone) are also exported directly: the graph equals eager mode at other
sizes and on edge values (OpenPCDet's integer cells exactly, for boxes across the range's edges, far
outside it, on whole cells and all zeros; icefall's counts exactly and its features to 1e-5, for
every count below 9, negative counts, zeros, infinities in the features and an empty batch), and
eager mode is unchanged (OpenPCDet's empty batch and box list too, where eager mode alone runs).

Not taken by ``migrate``: icefall's traced branch, which the eager run never reaches (the rule
takes it, the plan has no observation or graph node there to prove it by), and kornia's ceiling,
whose ``gw`` is a parameter annotated ``int`` (a Python int to the size rules); the last tests pin
what happens today.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, input_names,
                            load_variant, observed_facts, seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt339"

#: variant -> (the divisions migrate rewrites, as written; the text it writes for them; what the rule
#: finds from the code alone, as written; the other rules migrate applies).
MIGRATED: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "openpcdet_voxelrcnn_roi_grid_coords": (
        ("roi_grid_coords_x = (", "roi_grid_coords_y = (", "roi_grid_coords_z = (",
         "cur_roi_grid_coords = roi_grid_coords // cur_stride"),
        ("roi_grid_coords_x = _trt_floor_divide(roi_grid_xyz[:, :, 0:1] - self.point_cloud_range[0], "
         "self.voxel_size[0])", "cur_roi_grid_coords = _trt_floor_divide(roi_grid_coords, cur_stride)"),
        ("cur_roi_grid_coords = roi_grid_coords // cur_stride",), ()),
    "transformers_minimax_m3_indexer_blocks": (
        ("num_key_blocks = -(-k_len // self.block_size)",),
        ("num_key_blocks = -(_trt_size_floordiv(-k_len, self.block_size))",),
        # From the code alone: the block of each position, a forward input (the run sees it non-negative).
        ("q_block = position_ids // self.block_size",), ("TRT712", "TRT717")),
    "transformers_qwen2_audio_output_lengths": (
        ("input_lengths = (input_lengths - 1) // 2 + 1", "output_lengths = (input_lengths - 2) // 2 + 1"),
        ("input_lengths = _trt_floor_divide(input_lengths - 1, 2) + 1",
         "output_lengths = _trt_floor_divide(input_lengths - 2, 2) + 1"), (), ("TRT603",)),
}


@pytest.mark.parametrize("name", list(MIGRATED))
def test_migrate_applies_the_rule_where_the_run_saw_a_negative_quotient(name: str) -> None:
    divisions, written, from_code, others = MIGRATED[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt339_m_{name}")
    alone = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT339",), scope="all",
                                                                          unsafe=True))
    assert [f.line for f in alone] == [_line_of(path, d) for d in from_code]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert sorted(line for rule, line in applied if rule == "TRT339") == sorted(_line_of(path, d) for d in divisions)
    assert sorted({rule for rule, _ in applied} - {"TRT339"}) == sorted(others), applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True
    for text in written:
        assert any(line.startswith("+") and text in line for line in report["diff"].splitlines()), report["diff"]


def _boxes(seed: int, batch: int, count: int, centre: tuple[float, float, float], spread: float) -> torch.Tensor:
    """Car-sized boxes with any heading, their centres ``spread`` metres around ``centre``."""
    g = seeded(seed)
    where = torch.tensor(centre) + (torch.rand(batch, count, 3, generator=g) * 2 - 1) * spread
    size = torch.tensor([3.9, 1.6, 1.56]) * (0.8 + 0.4 * torch.rand(batch, count, 3, generator=g))
    heading = (torch.rand(batch, count, 1, generator=g) * 2 - 1) * torch.pi
    return torch.cat([where, size, heading], dim=-1)


def _with_inf(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[0, 2, 3], x[1, 5, 0] = float("inf"), -float("inf")
    return x


def _features(seed: int, batch: int, frames: int, lengths: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(batch, frames, 13, generator=seeded(seed)), torch.tensor(lengths)


#: variant -> (the rewrite with the observer's facts or from the code alone; the lines it writes; the sets
#: the graph is compared on; the sets compared in eager mode only).
DIRECT = {
    "openpcdet_voxelrcnn_roi_grid_coords": (True, (
        "roi_grid_coords_x = _trt_floor_divide(roi_grid_xyz[:, :, 0:1] - self.point_cloud_range[0], "
        "self.voxel_size[0])",
        "roi_grid_coords_y = _trt_floor_divide(roi_grid_xyz[:, :, 1:2] - self.point_cloud_range[1], "
        "self.voxel_size[1])",
        "roi_grid_coords_z = _trt_floor_divide(roi_grid_xyz[:, :, 2:3] - self.point_cloud_range[2], "
        "self.voxel_size[2])",
        "cur_roi_grid_coords = _trt_floor_divide(roi_grid_coords, cur_stride)"), {
        "more-boxes": (_boxes(1, 3, 7, (0.0, -40.0, -3.0), 2.0),),
        "one-box": (_boxes(2, 1, 1, (0.3, -39.8, -2.9), 0.5),),
        "inside-the-range": (_boxes(3, 2, 4, (35.0, 0.0, -1.0), 10.0),),
        "far-outside": (_boxes(4, 2, 3, (-500.0, -900.0, -40.0), 100.0),),
        "zeros": (torch.zeros(2, 3, 7),),
        # Centres on whole cells and negative offsets of whole cells: quotients exactly whole.
        "on-cell-edges": (torch.tensor([[[-0.5, -40.5, -3.5, 1.0, 1.0, 1.0, 0.0],
                                         [0.05, -39.95, -2.9, 0.2, 0.2, 0.2, 0.0]]]),),
    }, {"eager-no-boxes": (torch.zeros(2, 0, 7),), "eager-no-batch": (torch.zeros(0, 3, 7),)}),
    "icefall_zipformer_subsampling_lengths": (False, (
        "            x_lens = _trt_floor_divide(x_lens - 7, 2)\n        else:",
        "                x_lens = (x_lens - 7) // 2\n        return"), {
        "every-short-length": _features(5, 9, 21, [0, 1, 2, 3, 4, 5, 6, 7, 8]),
        "longer": _features(6, 2, 40, [40, 33]),
        "one-utterance": _features(7, 1, 9, [9]),
        "zeros": (torch.zeros(3, 15, 13), torch.tensor([15, 5, 0])),
        "negative-counts": _features(8, 3, 11, [-1, -2, -9]),
        "inf-in-the-features": (_with_inf(torch.randn(2, 12, 13, generator=seeded(10))), torch.tensor([12, 3])),
        "no-batch": (torch.zeros(0, 21, 13), torch.zeros(0, dtype=torch.long)),
    }, {}),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager_where_the_original_does_not(name: str, tmp_path: Path) -> None:
    with_facts, lines, others, eager_only = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt339_{name}")
    example = module.inputs(seeded(0))

    wrong = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)[0]
    with torch.no_grad():
        want = original(*example)
    want = want if isinstance(want, tuple) else (want,)
    got = wrong.run(None, {n: t.numpy() for n, t in zip(input_names(original), example)})
    assert not all(np.array_equal(g, w.numpy()) for g, w in zip(got, want))  # silently wrong at the example

    facts = observed_facts(path, module, tmp_path) if with_facts else None
    options = Options(select=("TRT339",), scope="all", facts=facts)
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for text in lines:
        assert text in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt339_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    for label, inputs in {"example": example, **others}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **others, **eager_only})


def test_icefall_traced_branch_is_found_but_not_applied_by_migrate() -> None:
    """The rule takes the division under ``is_tracing()`` (what the export runs) and leaves the eager
    branch; the recorded run never reaches the traced line, so migrate's plan has no observation or graph
    node there to prove the fix by: it stays information, and the export stays wrong (exit 1)."""
    path = HERE / "icefall_zipformer_subsampling_lengths.py"
    module = load_variant(path, "trt339_m_icefall")
    traced = _line_of(path, "        if torch.jit.is_scripting() or torch.jit.is_tracing():") + 1
    found = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT339",), scope="all"))
    assert [f.line for f in found] == [traced]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["faithful"] is False and report["applied"] == []
    assert [(i["line"], i["reason"]) for i in report["info"] if i["rule"] == "TRT339"] == \
        [(traced, "never ran in the observed forwards (not on the exported path)")]
    assert report["exit_code"] == 1


def test_kornia_size_passed_as_an_int_parameter_is_not_taken_today(tmp_path: Path) -> None:
    """``_window_mask(self, gh: int, gw: int, ...)`` receives the traced sizes as parameters annotated
    ``int``, which the size rules take for Python ints: the ceiling is not found (with or without the
    observer's facts), and the original's graph gives other window ids at the traced size itself (6
    patches across, 4 to a window: one window across instead of two)."""
    path = HERE / "kornia_qwen25_window_mask.py"
    module, original = built_variant(path, "trt339_kornia")
    facts = observed_facts(path, module, tmp_path)
    for given in (None, facts):
        assert check_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT339",), scope="all", unsafe=True, facts=given)) == []
    example = module.inputs(seeded(0))
    session = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)[0]
    with torch.no_grad():
        want = original(*example).numpy()
    [got] = session.run(None, {"images": example[0].numpy()})
    assert got.shape == want.shape and not np.allclose(got, want, atol=1e-4)
    # At a width whose patch count is a whole number of windows the ceiling is exact, and so is the graph.
    whole = torch.randn(1, 3, 16, 16, generator=seeded(9))
    with torch.no_grad():
        assert np.allclose(session.run(None, {"images": whole.numpy()})[0], original(whole).numpy(), atol=1e-5)


GEFFNET = HERE / "geffnet_conv2d_same_pad.py"
#: The ceiling's line in the variant, and what TRT712 and TRT339 write there together.
SAME_PAD = "    return max((-(i // -s) - 1) * s + (k - 1) * d + 1 - i, 0)"
SAME_PAD_FIXED = "    return _trt_size_max((-(_trt_size_floordiv(i, -s)) - 1) * s + (k - 1) * d + 1 - i, 0)"


def test_geffnet_same_pad_of_int_parameters_is_taken_only_with_the_export_s_warning(tmp_path: Path) -> None:
    """``_calc_same_pad(i: int, k, s, d)`` reads its sizes through parameters annotated ``int``: from the
    code alone TRT339 leaves ``i // -s`` (a Python int to the size rules); with the recorded run and the
    export's TracerWarning at the line (the ``max`` of a traced size) it takes it, together with TRT712's
    ``max``, in one rewrite of the line."""
    module, original = built_variant(GEFFNET, "trt339_geffnet")
    alone = check_source(GEFFNET.read_bytes(), str(GEFFNET.resolve()),
                         Options(select=("TRT339",), scope="all", unsafe=True))
    assert alone == []
    traced = export_variant(original, module.inputs(seeded(0)), module.DYNAMIC, tmp_path / "before.onnx",
                            tmp_path)[1]
    facts = observed_facts(GEFFNET, module, tmp_path, traced)
    found = check_source(GEFFNET.read_bytes(), str(GEFFNET.resolve()),
                         Options(select=("TRT339",), scope="all", unsafe=True, facts=facts))
    assert [f.line for f in found] == [_line_of(GEFFNET, SAME_PAD)]
    text = fix_source(GEFFNET.read_bytes(), str(GEFFNET.resolve()),
                      Options(select=("TRT712", "TRT339"), scope="all", unsafe=True, facts=facts)).source.decode()
    assert SAME_PAD_FIXED in text, text


def test_geffnet_same_pad_migrates_and_the_graph_pads_as_eager_at_every_size(tmp_path: Path) -> None:
    """The original's graph keeps the traced example's pads (16 x 24: strides dividing both) and truncates
    the ceiling: at 17 x 23 its output has another shape. migrate applies TRT712 and TRT339 at the line and
    ends equivalent; the rewritten model's graph equals eager mode at sizes the strides do not divide, one
    pixel, zeros, negatives and infinities, and eager mode is unchanged."""
    module, original = built_variant(GEFFNET, "trt339_m_geffnet")
    report = migrate_json(GEFFNET, _axes_json(module))
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    line = _line_of(GEFFNET, SAME_PAD)
    assert applied == [("TRT339", line), ("TRT712", line)], (report["applied"], report["remaining"])
    assert report["before"]["faithful"] is False and report["exit_code"] == 0 and report["equivalent"] is True

    example = module.inputs(seeded(0))
    wrong = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)[0]
    odd = torch.randn(1, 3, 17, 23, generator=seeded(1))
    assert wrong.run(None, {input_names(original)[0]: odd.numpy()})[0].shape != tuple(original(odd).shape)

    traced = export_variant(original, example, module.DYNAMIC, tmp_path / "traced.onnx", tmp_path)[1]
    facts = observed_facts(GEFFNET, module, tmp_path, traced)
    new_source = fix_source(GEFFNET.read_bytes(), str(GEFFNET.resolve()),
                            Options(select=("TRT712", "TRT339"), scope="all", facts=facts, unsafe=True)).source
    new_path = tmp_path / "geffnet_rewritten.py"
    new_path.write_bytes(new_source)
    _, rewritten = built_variant(new_path, "trt339_rewritten_geffnet")
    rewritten.load_state_dict(original.state_dict())
    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    sets = {"17x23": (odd,), "33x47": (torch.randn(3, 3, 33, 47, generator=seeded(2)),),
            "1x1": (torch.randn(1, 3, 1, 1, generator=seeded(3)),), "2x5": (torch.randn(2, 3, 2, 5, generator=seeded(4)),),
            "zeros": (torch.zeros(2, 3, 19, 21),), "negatives": (-example[0].abs() - 1,)}
    for label, inputs in {"example": example, **sets}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    special = example[0].clone()
    special[0, 0, 0, :3] = torch.tensor([float("inf"), -float("inf"), float("nan")])
    assert_eager_unchanged(original, rewritten, {"example": example, **sets, "inf-nan": (special,),
                                                 "wrong rank": (torch.randn(3, 8),)})
