"""The new-axis-write recipe (TRT355) on real-code variants.

Each variant in ``tests/recipe_variants/trt355/`` is a small runnable model reduced from real code
(cited in its docstring) that writes through a subscript holding ``None``: monodepth2's
``T[:, :3, 3, None] = t`` (the translation column of its pose transform; manydepth has the same
function) and stribor's spline knots pinned to the interval's ends (``cumwidths[..., 0, None] =
left``, ``left`` a column tensor made by a local function); AI-Subspace-Methods' differentiable 2-D MUSIC peak, which
writes each source's soft angle and range into a column through a view of a view,
``soft_row[:, source][:, None] = torch.einsum(...)``; and POET's matching cost, whose columns are written
with a ``range`` loop's variable as the index, ``cost_deltas[:, i, None] = torch.cdist(...)``; and TTPI's
planar-pushing dynamics, which rotates the planar velocity into the pushed face's frame in place through a
view of a view, ``f[:, :2][:, :, None] = torch.einsum(...)``.

monodepth2's graph computes a transform whose translation stays zero (the TorchScript exporter
drops the write): ``migrate`` takes TRT355 there and ends with exit 0, the rewrite equivalent. In
stribor's the write only restores the ends that rounding moved, so the graph is faithful as it is
and ``migrate`` changes nothing; from the code alone the value is not visibly a tensor and the rule
only reports it, and with the facts of a recorded run (the value seen holding a tensor) it fixes it,
after which the graph's first and last knots are the bounds exactly, as in eager mode. Rewritten,
each variant's graph equals eager mode at other sizes, with both exporters, on edge values, and eager
mode is unchanged.

MUSIC's and TTPI's rewrites write into the inner view (``soft_row[:, source] = ...``, ``f[:, :2] = ...``:
the exporter stops at the view of a view written whole, ``x[:, s][:] = v``), and ``migrate`` ends with
exit 0 (first contact: exit 1, the fix taken back because the export stopped). POET's three writes are rewritten (first contact: reported
without a fix, the index not visibly an int), but its graph stays wrong for another reason: the
TorchScript exporter's ``cdist`` with ``p=1`` leaves out the absolute value (NaN), which no rule takes
yet; ``migrate`` applies TRT355 and ends with exit 1 naming wrong values it cannot locate.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, export_variant_dynamo,
                            load_variant, observed_facts, rewrite_variant, seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source
from trtcodemod.rules import Safety

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt355"
CODE_ALONE = Options(select=("TRT355",), scope="all")


def _pose_sets() -> dict[str, tuple]:
    special = torch.tensor([[0.0, -0.0, 1e4, -1e4] * 4, [float("inf")] * 16, [float("nan")] * 16])
    return {"traced size": (torch.randn(2, 16, generator=seeded(0)) * 50,),
            "one": (torch.randn(1, 16, generator=seeded(1)) * 50,),
            "nine": (torch.randn(9, 16, generator=seeded(2)) * 50,),
            "zeros": (torch.zeros(3, 16),), "edge values": (special,)}


def _knot_sets() -> dict[str, tuple]:
    def made(n: int, seed: int) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        low = -1.0 - 1000 * torch.rand(n, generator=g)
        return torch.randn(n, 3, generator=g) * 20, low, low + 0.3 + 3000 * torch.rand(n, generator=g)
    return {"traced size": made(6, 0), "one": made(1, 1), "eleven": made(11, 2),
            "zero width": (torch.zeros(4, 3), torch.full((4,), -2.0), torch.full((4,), -2.0))}


def test_monodepth2_migrates_with_the_rule() -> None:
    path = HERE / "monodepth2_pose_transform.py"
    module = load_variant(path, "trt355_m_monodepth2")
    line = _line_of(path, "out[:, :3, 3, None] = column")
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(line, Safety.SAFE)]  # from the code alone
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT355", line)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "+    out[:, :3, 3] = _trt_new_axes_value(column, out[:, :3, 3, None], [2])" in report["diff"]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_monodepth2_rewritten_graph_equals_eager(tmp_path, dynamo: bool) -> None:
    path = HERE / "monodepth2_pose_transform.py"
    original = load_variant(path, f"trt355_o_md2_{dynamo}")
    text, rewritten = rewrite_variant(path, CODE_ALONE, tmp_path, f"trt355_r_md2_{dynamo}")
    assert "out[:, :3, 3] = _trt_new_axes_value(column, out[:, :3, 3, None], [2])" in text
    before, after = built(original), built(rewritten)  # the same weights, drawn from seed 0
    sets = _pose_sets()
    assert_eager_unchanged(before, after, sets)
    example = sets["traced size"]
    if dynamo:
        session = export_variant_dynamo(after, example, original.DYNAMIC, tmp_path / "after.onnx")
    else:
        session, _ = export_variant(after, example, original.DYNAMIC, tmp_path / "after.onnx", HERE)
    for label, inputs in sets.items():
        assert_graph_within(session, before, inputs, 1e-5, label)


def test_stribor_is_faithful_as_it_is_and_fixed_with_facts(tmp_path) -> None:
    path = HERE / "stribor_spline_knots.py"
    module = load_variant(path, "trt355_m_stribor")
    lines = [_line_of(path, "knots[..., 0, None] = left"), _line_of(path, "knots[..., -1, None] = right")]
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(n, Safety.NONE) for n in lines]
    assert all("not visibly a tensor" in f.message for f in found)
    report = migrate_json(path, _axes_json(module))
    assert report["exit_code"] == 0 and report["applied"] == [], report
    facts = observed_facts(path, module, tmp_path)
    options = Options(select=("TRT355",), facts=facts, scope="all")
    text, rewritten = rewrite_variant(path, options, tmp_path, "trt355_r_stribor")
    assert "knots[..., 0] = _trt_new_axes_value(left, knots[..., 0, None], [-1])" in text
    assert "knots[..., -1] = _trt_new_axes_value(right, knots[..., -1, None], [-1])" in text
    before, after = built(module), built(rewritten)  # the same weights, drawn from seed 0
    sets = _knot_sets()
    assert_eager_unchanged(before, after, sets)
    session, _ = export_variant(after, sets["traced size"], module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for x, low, high in sets.values():
        knots = torch.from_numpy(session.run(None, {"x": x.numpy(), "low": low.numpy(), "high": high.numpy()})[0])
        # the ends are the bounds exactly, as the write makes them in eager mode
        assert torch.equal(knots[:, 0], low) and torch.equal(knots[:, -1], high)
        torch.testing.assert_close(knots, before(x, low, high)[0], rtol=1e-5, atol=1e-3)


def _music_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    def made(batch: int, seed: int, scale: float = 5.0) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        return (torch.rand(batch, 16, 12, generator=g) * scale, torch.randint(0, 16, (batch, 3), generator=g),
                torch.randint(0, 12, (batch, 3), generator=g))
    spectrum, rows, cols = made(3, 4)
    spectrum[0, :, :] = -1e4  # a flat, very negative spectrum: the softmax is uniform
    spectrum[1, rows[1, 0], cols[1, 0]] = 1e30  # one overwhelming cell
    edges = torch.tensor([[0, 15, 7], [15, 0, 0], [3, 3, 3]])  # windows wrapped around both ends
    return {"traced size": made(2, 0), "one": made(1, 1), "seven": made(7, 2), "zeros": (torch.zeros(2, 16, 12),
            torch.zeros(2, 3, dtype=torch.int64), torch.zeros(2, 3, dtype=torch.int64)),
            "extremes": (spectrum, rows, cols), "wrapped windows": (made(3, 5)[0], edges, edges.clamp(max=11))}


def test_music_soft_peaks_migrate_with_the_rule(tmp_path) -> None:
    path = HERE / "subspace_music_soft_peaks.py"
    module = load_variant(path, "trt355_m_music")
    lines = [_line_of(path, "soft_row[:, source][:, None] = torch.einsum("),
             _line_of(path, "soft_col[:, source][:, None] = torch.einsum(")]
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(n, Safety.SAFE) for n in lines]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT355", n) for n in lines]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "+            soft_row[:, source] = _trt_new_axes_value(torch.einsum(" in report["diff"]


def test_music_soft_peaks_rewritten_graph_equals_eager(tmp_path) -> None:
    path = HERE / "subspace_music_soft_peaks.py"
    module = load_variant(path, "trt355_o_music")
    text, rewritten = rewrite_variant(path, CODE_ALONE, tmp_path, "trt355_r_music")
    assert "soft_col[:, source] = _trt_new_axes_value(torch.einsum(" in text
    before, after = built(module), built(rewritten)
    sets = _music_sets()
    assert_eager_unchanged(before, after, sets)
    baked, _ = export_variant(before, sets["traced size"], module.DYNAMIC, tmp_path / "before.onnx", HERE)
    with pytest.raises(AssertionError):  # the original's graph dropped the writes: its soft peaks stay zero
        try:
            assert_graph_within(baked, before, sets["seven"], 1e-5, "before")
        except Exception as error:  # noqa: BLE001 - with the write of the columns went the input `peaks_c`
            raise AssertionError(error) from error
    session, _ = export_variant(after, sets["traced size"], module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for label, inputs in sets.items():
        assert_graph_within(session, before, inputs, 1e-5, label)


def test_poet_matching_cost_is_rewritten_and_what_is_left_is_named(tmp_path) -> None:
    """POET writes each person's column with the loop's variable as the index: TRT355 takes the three writes
    (an int: a `range` loop's variable). The graph is still wrong after them, and not through them: the
    TorchScript exporter writes `torch.cdist(..., p=1)` without the absolute value (NaN or other values),
    which no rule takes yet; what migrate leaves is that, unlocated."""
    path = HERE / "poet_keypoint_matching_cost.py"
    module = load_variant(path, "trt355_m_poet")
    lines = [_line_of(path, text) for text in ("cost_deltas[:, i, None] = torch.cdist(",
                                               "cost_kpts[:, i, None] = torch.cdist(",
                                               "cost_ctrs[:, i, None] = torch.cdist(")]
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(n, Safety.SAFE) for n in lines]
    text, rewritten = rewrite_variant(path, CODE_ALONE, tmp_path, "trt355_r_poet")
    assert "            cost_deltas[:, i] = _trt_new_axes_value(torch.cdist(out_kpts[:, 2:, i], " in text
    sets = {"traced size": module.inputs(seeded(0)), "one image": (torch.randn(1, 5, 4), torch.rand(1, 5, 10),
            torch.tensor([0, 3, 3]), torch.rand(3, 10), torch.ones(3, 10)),
            "zeros": (torch.zeros(2, 7, 4), torch.zeros(2, 7, 10), torch.zeros(3, dtype=torch.int64),
                      torch.zeros(3, 10), torch.zeros(3, 10))}
    assert_eager_unchanged(built(module), built(rewritten), sets)
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT355", n) for n in lines]
    assert report["exit_code"] == 1 and report["equivalent"] is True
    assert [(r["op"], r["rule"]) for r in report["remaining"]] == [("(wrong values)", None)], report["remaining"]


def _pushing_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    module = load_variant(HERE / "ttpi_pusher_slider_dynamics.py", "trt355_sets_ttpi")

    def made(batch: int, seed: int) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        xs, us = module.inputs(g)
        more = [module.inputs(g) for _ in range(batch // 6 + 1)]
        return torch.cat([m[0] for m in more])[:batch], torch.cat([m[1] for m in more])[:batch]
    xs, us = made(5, 4)
    xs[0, 3] = -0.2  # the pusher away from the face: separated
    xs[1, :3] = torch.tensor([float("inf"), -float("inf"), float("nan")])
    us[2, 1:] = 0.0  # no push
    us[3, 1:] = torch.tensor([-0.04, 1e6])  # pulling, and far outside the cone
    return {"traced size": module.inputs(seeded(0)), "one": made(1, 1), "nine": made(9, 2),
            "zeros": (torch.zeros(3, 6), torch.zeros(3, 3)), "edges": (xs, us)}


def test_ttpi_pushing_dynamics_migrates_with_the_rule(tmp_path) -> None:
    path = HERE / "ttpi_pusher_slider_dynamics.py"
    module = load_variant(path, "trt355_m_ttpi")
    line = _line_of(path, "f[:, :2][:, :, None] = torch.einsum(")
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(line, Safety.SAFE)]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT355", line)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    text, rewritten = rewrite_variant(path, CODE_ALONE, tmp_path, "trt355_r_ttpi")
    assert "        f[:, :2] = _trt_new_axes_value(torch.einsum('ijk,ikl -> ijl', R_mat, f[:, :2][:, :, None]), " \
           "f[:, :2][:, :, None], [2])\n" in text
    before, after = built(module), built(rewritten)
    sets = _pushing_sets()
    assert_eager_unchanged(before, after, sets)
    baked, _ = export_variant(before, sets["traced size"], module.DYNAMIC, tmp_path / "before.onnx", HERE)
    with pytest.raises(AssertionError):  # the original's graph dropped the rotation into the pushed face's frame
        assert_graph_within(baked, before, sets["nine"], 1e-5, "before")
    session, _ = export_variant(after, sets["traced size"], module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for label, inputs in sets.items():
        assert_graph_within(session, before, inputs, 1e-5, label)
