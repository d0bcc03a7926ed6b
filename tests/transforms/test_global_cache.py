"""TRT729: a module-level tensor rebuilt only when an input outgrows it misses while a tracer records.

The variants are our own re-writings of ClementPinard's SfmLearner pixel grid
(ClementPinard/SfmLearner-Pytorch@59689e6045dbd8199bb8b7665cd61596e52108bc inverse_warp.py:33-38,
copied as is into JiawangBian/SC-SfMLearner-Release@781d128de170a9f717fd0473111653787fadcfce
inverse_warp.py:37-39) and of a shape-compared form of the same memo. The rewrite is checked as
text, then run before and after on real tensors (sizes growing and shrinking, zeros, negatives, an
empty map, inf/NaN) with the same outputs and the same grid left in the global; traced after a
larger input filled the grid, the original's graph fails or differs at a still larger input and the
rewritten one matches eager mode there.
"""

from __future__ import annotations

import textwrap
import types

import pytest
import torch

from support import rewrite, rules_found

SFM = '''\
import torch

pixel_coords = None


def set_id_grid(depth):
    global pixel_coords
    b, h, w = depth.size()
    rows = torch.arange(0, h).view(1, h, 1).expand(1, h, w).type_as(depth)
    cols = torch.arange(0, w).view(1, 1, w).expand(1, h, w).type_as(depth)
    ones = torch.ones(1, h, w).type_as(depth)
    pixel_coords = torch.stack((cols, rows, ones), dim=1)


def pixel2cam(depth, intrinsics_inv):
    global pixel_coords
    b, h, w = depth.size()
    if (pixel_coords is None) or pixel_coords.size(2) < h:
        set_id_grid(depth)
    current = pixel_coords[..., :h, :w].expand(b, 3, h, w).reshape(b, 3, -1)
    return (intrinsics_inv @ current).reshape(b, 3, h, w) * depth.unsqueeze(1)
'''

#: The memo compared by shape, refilled in its own body (no helper function).
SHAPED = '''\
import torch

_grid = None


def lift(depth):
    global _grid
    h, w = depth.shape[-2:]
    if _grid is None or _grid.shape[-2:] != depth.shape[-2:]:
        ys, xs = torch.meshgrid(torch.arange(h, dtype=depth.dtype), torch.arange(w, dtype=depth.dtype), indexing="ij")
        _grid = torch.stack((xs, ys))
    return _grid * depth.unsqueeze(-3)
'''


#: A module-level table of grids keyed by the flow's device and size (the backward warp of RIFE,
#: hzwer/ECCV2022-RIFE@20d6abefb86d17acddbe335b9c9ad57057c6d46c model/warplayer.py:5-12, after sniklaus'
#: PWC-Net; keyed inline by `str(flow.size())` in Jonlysun/SIBRNet@e64ef0c94bc09f09e3978dae5bcc9da9ea06f9dc
#: utils/warping.py `backwarp`).
TABLE = '''\
import torch

grids = {}


def warp(image, flow):
    key = (str(flow.device), str(flow.size()))
    if key not in grids:
        across = torch.linspace(-1.0, 1.0, flow.shape[3]).view(1, 1, 1, flow.shape[3]).expand(flow.shape[0], -1, flow.shape[2], -1)
        down = torch.linspace(-1.0, 1.0, flow.shape[2]).view(1, 1, flow.shape[2], 1).expand(flow.shape[0], -1, -1, flow.shape[3])
        grids[key] = torch.cat([across, down], 1)
    g = (grids[key] + flow).permute(0, 2, 3, 1)
    return torch.nn.functional.grid_sample(image, g, mode="bilinear", padding_mode="zeros", align_corners=True)
'''

#: A table passed in by the caller, tested for a hit and read in the body (CellDetection 0.4.9's
#: `add_contour_offsets`, FZJ-INM1-BDA/celldetection celldetection/ops/cpn.py:24-37, Apache-2.0: the contour
#: proposal network's offsets of each pixel, cached by `str((h, w, device))` in a dict the model keeps).
HIT = '''\
import torch


def offsets(locations, cache=None):
    d = locations.device
    (h, w) = locations.shape[-2:]
    offset = None
    if cache is not None:
        key = str((h, w, d))
        if key in cache.keys():
            offset = cache[key]
    if offset is None:
        offset = torch.stack((torch.arange(w, device=d)[None] + torch.zeros(h, device=d)[:, None],
                              torch.zeros(w, device=d)[None] + torch.arange(h, device=d)[:, None]), 0)
        if cache is not None:
            cache[str((h, w, d))] = offset
    return locations + offset


class Proposals(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, locations):
        return offsets(locations, self.cache)
'''

INLINE_KEY = TABLE.replace("    key = (str(flow.device), str(flow.size()))\n", "").replace("key", "str(flow.size())")


def _module(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def test_the_rewrite_text() -> None:
    assert rules_found(SFM, select=("TRT729",)) == ["TRT729"]
    after = rewrite(SFM, unsafe=True, select=("TRT729",))
    assert "    if _trt_tracing() or (pixel_coords is None) or pixel_coords.size(2) < h:\n        set_id_grid(depth)\n" \
        in after
    shaped = rewrite(SHAPED, unsafe=True, select=("TRT729",))
    assert "    if _trt_tracing() or _grid is None or _grid.shape[-2:] != depth.shape[-2:]:\n" in shaped
    for table in (TABLE, INLINE_KEY):
        assert rules_found(table, select=("TRT729",)) == ["TRT729"]
    assert "    if _trt_tracing() or key not in grids:\n" in rewrite(TABLE, unsafe=True, select=("TRT729",))
    assert "    if _trt_tracing() or str(flow.size()) not in grids:\n" in rewrite(INLINE_KEY, unsafe=True,
                                                                                  select=("TRT729",))
    # Unsafe: not applied without --unsafe.
    assert rewrite(SFM, select=("TRT729",)) == SFM
    assert rules_found(HIT, select=("TRT729",)) == ["TRT729"]
    assert "        if not _trt_tracing() and key in cache.keys():\n            offset = cache[key]\n" \
        in rewrite(HIT, unsafe=True, select=("TRT729",))
    assert "if not _trt_tracing() and str((h, w)) in cache:\n" in rewrite(
        HIT.replace("key in cache.keys()", "str((h, w)) in cache"), unsafe=True, select=("TRT729",))


@pytest.mark.parametrize("source", [
    # A first-call initialisation alone: its value is that call's, not a memo keyed by a size.
    SFM.replace("(pixel_coords is None) or pixel_coords.size(2) < h", "pixel_coords is None"),
    # No `global`: a local name, rebuilt every call.
    SHAPED.replace("    global _grid\n", "    _grid = None\n"),
    # The body does not rebuild the global.
    SFM.replace("        set_id_grid(depth)\n", "        print('small')\n"),
    # A test of the global's values decides too: no plain memo.
    SHAPED.replace("_grid is None or", "_grid is None or bool(_grid.sum() > 0) or"),
    # Already rewritten.
    SFM.replace("if (pixel_coords", "if _trt_tracing() or (pixel_coords"),
    # An `else`: two paths, not a memo.
    SFM.replace("        set_id_grid(depth)\n", "        set_id_grid(depth)\n    else:\n        pass\n"),
    # A table keyed by something other than a size.
    TABLE.replace("(str(flow.device), str(flow.size()))", "str(flow.device)"),
    # The function's own table (bound locally), not the module's.
    TABLE.replace("    key = (", "    grids = {}\n    key = ("),
    # The body does not fill the table.
    TABLE.replace("        grids[key] = torch.cat([across, down], 1)\n", "        print(across, down)\n"),
    # A hit keyed by something other than a size.
    HIT.replace("key = str((h, w, d))", "key = str(d)"),
    # A hit whose body does not take the cached value.
    HIT.replace("            offset = cache[key]\n", "            offset = None\n"),
], ids=["none-only", "no-global", "no-rebuild", "value-test", "done", "else", "table-key", "table-local",
        "table-unfilled", "hit-key", "hit-unread"])
def test_not_reported(source: str) -> None:
    assert rules_found(source, select=("TRT729",)) == []


def _pair(source: str, name: str) -> tuple[types.ModuleType, types.ModuleType]:
    return _module(source, f"{name}_before"), _module(rewrite(source, unsafe=True, select=("TRT729",)), f"{name}_after")


SIZES = [(1, 4, 5), (2, 6, 3), (1, 2, 2), (1, 6, 7), (1, 8, 7), (3, 5, 5)]


def _outcome(call, *args):
    """The output, or the exception's type and message (the same program raises the same)."""
    try:
        return call(*args)
    except RuntimeError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("fill", ["random", "zeros", "negative", "nonfinite"])
def test_eager_runs_are_the_same_with_the_same_grid_left_behind(fill: str) -> None:
    before, after = _pair(SFM, f"sfm_eager_{fill}")
    g = torch.Generator().manual_seed(7)
    k_inv = torch.linalg.inv(torch.tensor([[50.0, 0.0, 3.0], [0.0, 50.0, 2.0], [0.0, 0.0, 1.0]]))
    for b, h, w in SIZES + [(1, 0, 4)]:  # the last an empty map
        depth = {"random": torch.rand(b, h, w, generator=g) + 0.1, "zeros": torch.zeros(b, h, w),
                 "negative": -torch.rand(b, h, w, generator=g),
                 "nonfinite": torch.tensor([float("inf"), float("nan"), -0.0]).repeat(b * h * w)[:b * h * w]
                 .reshape(b, h, w)}[fill]
        want, got = (_outcome(side.pixel2cam, depth, k_inv.expand(b, 3, 3)) for side in (before, after))
        if isinstance(want, str):  # the memo keys on height alone: a wider map fails the same way on both sides
            assert got == want
            continue
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
        assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == want.dtype
        torch.testing.assert_close(after.pixel_coords, before.pixel_coords, rtol=0, atol=0)


def test_shaped_memo_eager_and_gradients_are_the_same() -> None:
    before, after = _pair(SHAPED, "shaped_eager")
    for h, w in [(3, 4), (3, 4), (5, 2), (0, 3)]:
        a = torch.randn(2, h, w, requires_grad=True)
        b = a.detach().clone().requires_grad_(True)
        want, got = before.lift(a), after.lift(b)
        torch.testing.assert_close(got, want, rtol=0, atol=0)
        want.sum().backward()
        got.sum().backward()
        torch.testing.assert_close(b.grad, a.grad, rtol=0, atol=0)


def test_table_eager_runs_are_the_same_on_edge_values() -> None:
    before, after = _pair(TABLE, "table_eager")
    g = torch.Generator().manual_seed(5)
    for b, h, w in [(1, 4, 5), (1, 4, 5), (2, 6, 3), (1, 1, 1)]:
        image = torch.randn(b, 3, h, w, generator=g)
        for flow in (torch.zeros(b, 2, h, w), -torch.rand(b, 2, h, w, generator=g),
                     torch.full((b, 2, h, w), float("nan")), torch.full((b, 2, h, w), float("inf"))):
            want, got = before.warp(image, flow), after.warp(image, flow)
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
    assert list(after.grids) == list(before.grids)


def test_a_hit_on_a_table_passed_in_runs_the_same_eagerly_and_fills_the_same_table() -> None:
    before, after = _pair(HIT, "hit_eager")
    models = before.Proposals(), after.Proposals()
    g = torch.Generator().manual_seed(9)
    for h, w in [(3, 4), (3, 4), (5, 2), (0, 3), (3, 4)]:
        for locations in (torch.randn(2, 2, h, w, generator=g), torch.zeros(1, 2, h, w),
                          torch.full((1, 2, h, w), float("nan")), -torch.full((1, 2, h, w), float("inf"))):
            want, got = (m(locations) for m in models)
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
            assert got.shape == want.shape and got.dtype == want.dtype
    assert list(models[1].cache) == list(models[0].cache)
    assert before.offsets(torch.ones(1, 2, 2, 3)).tolist() == after.offsets(torch.ones(1, 2, 2, 3)).tolist()


def test_traced_after_a_hit_the_rewrite_follows_another_size() -> None:
    before, after = _pair(HIT, "hit_trace")
    outcomes = {}
    for side, module in (("before", before), ("after", after)):
        model = module.Proposals()
        small, large = torch.rand(1, 2, 4, 5), torch.rand(1, 2, 7, 6)
        model(small)
        # A tracer's sizes are tensors, so the key of a traced call is its own (`(tensor(4), tensor(5), ...)`): the
        # first trace fills the cache, and a second trace in the same process (an exporter run again, migrate's
        # export after its observation) hits it.
        torch.jit.trace(model, small, check_trace=False)
        traced = torch.jit.trace(model, small, check_trace=False)
        try:
            outcomes[side] = torch.equal(traced(large), module.Proposals()(large))
        except RuntimeError:
            outcomes[side] = False
    assert outcomes == {"before": False, "after": True}


@pytest.mark.parametrize("source,name", [(SFM, "sfm"), (SHAPED, "shaped"), (TABLE, "table")])
def test_traced_on_a_filled_grid_the_rewrite_follows_a_larger_input(source: str, name: str) -> None:
    before, after = _pair(source, f"{name}_trace")
    k_inv = torch.eye(3)

    def run(module: types.ModuleType):
        if name == "sfm":
            return lambda d: module.pixel2cam(d, k_inv.expand(d.shape[0], 3, 3))
        if name == "table":
            return lambda d: module.warp(d, d[:, :2] * 0.1)
        return module.lift

    outcomes = {}
    for side, module in (("before", before), ("after", after)):
        # An earlier call fills the grid (migrate's observation does) so that the traced call hits it:
        # a larger map for the memo kept for the largest size, the same size for the one kept per shape.
        small, large = ((torch.rand(1, 3, 4, 5), torch.rand(2, 3, 12, 13)) if name == "table"
                        else (torch.rand(1, 4, 5), torch.rand(2, 12, 13)))
        run(module)(torch.rand(1, 9, 9) if name == "sfm" else small)
        traced = torch.jit.trace(run(module), small, check_trace=False)
        want = run(_module(source, f"{name}_fresh_{side}"))(large)
        try:
            outcomes[side] = torch.equal(traced(large), want)
        except RuntimeError:
            outcomes[side] = False
    assert outcomes == {"before": False, "after": True}


def test_the_rule_documents_its_assumption() -> None:
    from trtcodemod.registry import rule_by_id

    info = rule_by_id("TRT729")
    assert info is not None and info.fix.value == "unsafe"
    assert "assumes the rebuild computes" in textwrap.dedent(info.doc)
