"""TRT311: ``x.unfold(d, k, k)`` becomes ``_trt_unfold(x, d, k, k)``: ``unfold`` itself outside an ONNX
export, the axis cut to whole windows and viewed as ``(-1, k)`` while exporting.

The rewrite text and what is left alone; the export formulation against ``unfold`` on real tensors
(values, shape, strides, storage, gradients, an in-place write through the view, the error of a
short axis) for every axis, window and remainder up to a bound, transposed and empty inputs; eager
runs and the toolchains before and after; and a patch embedding of the usual form (pad to a
multiple, ``unfold`` twice, flatten the tiles) exported with a dynamic height and width: the
TorchScript export stops before the rewrite and, after it, both exporters' graphs equal eager mode
at other sizes, infinities and NaN included.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_nchw, migrate_json, rewrite, rules_found

from trtcodemod.helpers.splitting import _trt_unfold, _trt_unfold_gathered, _trt_unfold_views


def _fixed(code: str) -> str:
    return rewrite("import torch\n\n\n" + code, select=("TRT311",))


@pytest.mark.parametrize(("code", "want"), [
    ("t = x.unfold(2, p, p).unfold(3, p, p)\n", "t = _trt_unfold(_trt_unfold(x, 2, p, p), 3, p, p)\n"),
    ("t = x.unfold(-1, 8, 8)\n", "t = _trt_unfold(x, -1, 8, 8)\n"),
    ("t = x.unfold(dimension=1, size=self.ws, step=self.ws)\n", "t = _trt_unfold(x, 1, self.ws, self.ws)\n"),
    ("t = x.unfold(1, step=k, size=k)\n", "t = _trt_unfold(x, 1, k, k)\n"),
    ("t = (x + 1).unfold(0, 2 * k, 2*k)\n", "t = _trt_unfold(x + 1, 0, 2 * k, 2*k)\n"),
    ("t = img[:, :, :hc, :wc].unfold(2, s, s)\n", "t = _trt_unfold(img[:, :, :hc, :wc], 2, s, s)\n"),
    ("t = self.norm(x).unfold(1, cfg.patch, cfg.patch)\n", "t = _trt_unfold(self.norm(x), 1, cfg.patch, cfg.patch)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_unfold(" in after and "def _trt_unfold_views(" in after


@pytest.mark.parametrize(("code", "want"), [
    ("t = x.unfold(-1, 400, 160)\n", "t = _trt_unfold(x, -1, 400, 160)\n"),  # overlapping frames
    ("t = x.unfold(1, k, 1)\n", "t = _trt_unfold(x, 1, k, 1)\n"),
    ("t = x.unfold(1, k, s)\n", "t = _trt_unfold(x, 1, k, s)\n"),  # not known to be equal
    # Halo attention: overlapping windows along the height, tiles along the width: one unsafe finding.
    ("kv = kv.unfold(2, self.win, self.block).unfold(3, self.block, self.block)\n",
     "kv = _trt_unfold(_trt_unfold(kv, 2, self.win, self.block), 3, self.block, self.block)\n"),
])
def test_windows_that_may_overlap_are_gathered_only_with_unsafe(code: str, want: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT311",)) == ["TRT311"]
    assert rewrite(source, select=("TRT311",)) == source  # safe fixes only: left as it is
    assert rewrite(source, select=("TRT311",), unsafe=True).endswith(want)


@pytest.mark.parametrize(("code", "want", "unsafe"), [
    ("t = _trt_unfold_axis(x, -1, 400, 160)\n", "t = _trt_unfold(x, -1, 400, 160)\n", True),
    ("t = _trt_unfold_axis(x, -1, 8, 8)\n", "t = _trt_unfold(x, -1, 8, 8)\n", False),
    ("t = _trt_unfold_axis(_trt_unfold_axis(pad(x), -2, k, 1), -1, k, 1)\n",
     "t = _trt_unfold(_trt_unfold(pad(x), -2, k, 1), -1, k, 1)\n", True),
])
def test_trt330s_helper_call_is_taken_as_an_unfold(code: str, want: str, unsafe: bool) -> None:
    """After a pad the exporter cannot size the axis either way: TRT311 replaces TRT330's helper call
    (what the one file ``migrate`` has holds after TRT330's safe round), keeping its arguments."""
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT311",)) == ["TRT311"]
    if unsafe:
        assert rewrite(source, select=("TRT311",)) == source
    after = rewrite(source, select=("TRT311",), unsafe=unsafe)
    assert after.endswith(want), after
    # TRT330's helper comes along: TRT311's calls it for anything it does not gather or view.
    assert "def _trt_unfold(" in after and "def _trt_unfold_axis(" in after
    assert rules_found(after, select=("TRT311",)) == []


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 9, 16])
@pytest.mark.parametrize(("size", "step"), [(1, 2), (2, 1), (3, 2), (4, 3), (2, 5), (3, 1)])
def test_gathered_windows_are_unfolds_values_for_every_length_size_and_step(length: int, size: int,
                                                                           step: int) -> None:
    base = torch.arange(2 * length * 3, dtype=torch.float32).reshape(2, length, 3).transpose(0, 2)
    for dim in (1, -2):
        try:
            expected = base.unfold(dim, size, step)
        except RuntimeError as error:
            with pytest.raises(RuntimeError, match=str(error)[:30]):
                _trt_unfold_gathered(base, dim, size, step)
            continue
        got = _trt_unfold_gathered(base, dim, size, step)
        assert got.shape == expected.shape and got.dtype == expected.dtype and torch.equal(got, expected)


def test_gathered_windows_keep_gradients_and_are_a_copy() -> None:
    x = torch.randn(2, 9, 4, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    (x.unfold(1, 5, 2) * weight).sum().backward()
    expected, x.grad = x.grad.clone(), None
    (_trt_unfold_gathered(x, 1, 5, 2) * weight).sum().backward()
    assert torch.allclose(x.grad, expected, rtol=0, atol=1e-12)  # overlaps add up in another order
    plain = torch.zeros(6)
    _trt_unfold_gathered(plain, 0, 3, 1)[0, 0] = 5.0
    assert plain.sum() == 0.0  # the stated assumption: a write into the windows does not reach `x`


@pytest.mark.parametrize(("code", "want"), [
    # kornia's CLAHE tiles (kornia/enhance/equalization.py, _compute_tiles, lines 74-79): a call a line, a comment
    ("tiles = (\n"
     "    batch.unfold(1, c, c)  # unfold(dimension, size, step)\n"
     "    .unfold(2, kv, kv)\n"
     "    .unfold(3, kh, kh)\n"
     "    .squeeze(1)\n"
     ").contiguous()\n",
     "tiles = (\n"
     "    _trt_unfold(_trt_unfold(_trt_unfold(batch, 1, c, c),  # unfold(dimension, size, step)\n"
     "    2, kv, kv),\n"
     "    3, kh, kh)\n"
     "    .squeeze(1)\n"
     ").contiguous()\n"),
    # Aria's patch grid (transformers 5.24.0, models/aria/modeling_aria.py, lines 926-930): a keyword a line
    ("s = pixel_mask.unfold(\n    dimension=1,\n    size=self.config.patch_size,\n"
     "    step=self.config.patch_size,\n)\n",
     "s = _trt_unfold(\n    pixel_mask, 1,\n    self.config.patch_size,\n    self.config.patch_size,\n)\n"),
    ("s = x.unfold(\n    2,  # height\n    p, p,  # windows\n)\n",
     "s = _trt_unfold(\n    x, 2,  # height\n    p, p,  # windows\n)\n"),
    ("s = (x  # a\n    .  # b\n    unfold(2, p, p))\n",
     "s = (_trt_unfold(x  # a\n    ,  # b\n    2, p, p))\n"),
])
def test_line_breaks_and_comments_stay(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert rules_found(after, select=("TRT311",)) == []
    compile(after, "after.py", "exec")


def test_a_chain_is_one_finding() -> None:
    assert rules_found("import torch\n\n\nt = x.unfold(2, p, p).unfold(3, p, p)\n", select=("TRT311",)) == ["TRT311"]


@pytest.mark.parametrize("code", [
    "t = torch.nn.functional.unfold(x, 3)\n",  # im2col, another operation
    "t = F.unfold(x, kernel_size=2, stride=2)\n",
    "t = x.unfold(*args)\n",
    "t = x.unfold(1, 2)\n",  # another signature
    "t = torch.Tensor.unfold(x, 1, 2, 2)\n",
])
def test_left_alone(code: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\n\n\n" + code
    assert "TRT311" not in rules_found(source)
    assert rewrite(source, select=("TRT311",)) == source


def _same_view(expected: torch.Tensor, got: torch.Tensor) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if expected.numel():  # a view of no elements takes contiguous strides (documented in TRT311)
        assert got.stride() == expected.stride() and got.storage_offset() == expected.storage_offset()
    assert got.untyped_storage().data_ptr() == expected.untyped_storage().data_ptr()
    assert torch.equal(got, expected)


@pytest.mark.parametrize("length", [1, 2, 3, 5, 7, 8, 9, 16])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_the_export_form_is_unfolds_view_for_every_length_and_window(length: int, size: int) -> None:
    base = torch.arange(2 * length * 3, dtype=torch.float32).reshape(2, length, 3)
    for dim in (1, -2):
        try:
            expected = base.unfold(dim, size, size)
        except RuntimeError as error:
            with pytest.raises(RuntimeError, match=str(error)[:30]):
                _trt_unfold_views(base, dim, size)
            continue
        _same_view(expected, _trt_unfold_views(base, dim, size))


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -4])
def test_the_export_form_on_transposed_sliced_and_empty_inputs(dim: int) -> None:
    wide = torch.randn(3, 10, 4, 9)
    for x in (wide.transpose(1, 3), wide[:, 1::2], wide[..., 1:], torch.randn(0, 4, 6, 6),
              torch.randn(2, 4, 0, 6).transpose(0, 3)):
        if x.shape[dim] < 2:
            with pytest.raises(RuntimeError):
                _trt_unfold_views(x, dim, 2)
            continue
        _same_view(x.unfold(dim, 2, 2), _trt_unfold_views(x, dim, 2))


def test_the_export_form_keeps_gradients_and_writes_through_the_view() -> None:
    x = torch.randn(2, 7, 6, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 3, 6, 2, dtype=torch.float64)
    (x.unfold(1, 2, 2) * weight).sum().backward()
    expected, x.grad = x.grad.clone(), None
    (_trt_unfold_views(x, 1, 2) * weight).sum().backward()
    assert torch.equal(x.grad, expected)
    plain = torch.zeros(4, 6)
    _trt_unfold_views(plain, 1, 3)[1, 0, 2] = 5.0  # row 1, first window, its last element
    assert plain[1, 2] == 5.0 and plain.sum() == 5.0


def test_outside_an_export_the_helper_is_unfold_with_its_errors() -> None:
    x = torch.randn(3, 8)
    _same_view(x.unfold(1, 3, 1), _trt_unfold(x, 1, 3, 1))
    for bad in ((2, 2, 2), (1, 9, 9), (1, 0, 0), (1, 2, -1)):
        with pytest.raises(Exception) as original:
            x.unfold(*bad)
        with pytest.raises(type(original.value)):
            _trt_unfold(x, *bad)


PATCHES = """\
import torch
import torch.nn.functional as F
from torch import nn


class Patches(nn.Module):
    def __init__(self, patch: int = 4) -> None:
        super().__init__()
        self.patch = patch
        self.project = nn.Linear(3 * patch * patch, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.patch
        pad_h, pad_w = (p - x.shape[2] % p) % p, (p - x.shape[3] % p) % p
        x = F.pad(x, (0, pad_w, 0, pad_h))
        tiles = x.unfold(2, p, p).unfold(3, p, p)  # B, C, H/p, W/p, p, p
        tiles = tiles.permute(0, 2, 3, 1, 4, 5).flatten(3)
        return self.project(tiles).flatten(1, 2)


class Blocks(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A remainder dropped: blocks of 3 rows of a height that need not be a multiple of 3.
        return x.unfold(dimension=2, size=3, step=3).amax(-1)
"""


@pytest.fixture(scope="module")
def patches(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("unfold")
    after = rewrite(PATCHES, select=("TRT311",))
    assert after.count("_trt_unfold(") >= 4  # three calls and the helper's own definition
    return import_source(PATCHES, folder), import_source(after, folder)


@pytest.mark.parametrize("shape", [(2, 3, 8, 12), (1, 3, 9, 5), (3, 3, 4, 4), (0, 3, 8, 8)])
def test_eager_runs_are_unchanged(patches: tuple[dict, dict], shape: tuple[int, ...]) -> None:
    before, after = patches
    x = torch.randn(shape)
    x[..., 0, 0] = float("inf")
    for name in ("Patches", "Blocks"):
        torch.manual_seed(0)
        model_before = before[name]()
        torch.manual_seed(0)
        model_after = after[name]()
        assert_same_run(run_once(model_before, [x]), run_once(model_after, [x]), context=name)


def test_the_toolchains_run_unfold_itself(patches: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = patches
    x = torch.randn(2, 3, 8, 12)
    for name in ("Patches", "Blocks"):
        torch.manual_seed(0)
        outcomes_before = toolchain_outcomes(before[name], [x], tmp_path)
        torch.manual_seed(0)
        outcomes_after = toolchain_outcomes(after[name], [x], tmp_path)
        assert outcomes_before.keys() == outcomes_after.keys()
        for toolchain, result in outcomes_before.items():
            if isinstance(result, Exception):
                assert isinstance(outcomes_after[toolchain], type(result)), toolchain
            else:
                assert torch.equal(result, outcomes_after[toolchain]), toolchain


def test_the_original_does_not_export_with_a_dynamic_height(patches: tuple[dict, dict]) -> None:
    before, _ = patches
    with pytest.raises(Exception, match="Unfold"):
        export_nchw(before["Patches"]().eval(), torch.randn(1, 3, 8, 8), dynamo=False)


def _run(model_proto, x: torch.Tensor) -> np.ndarray:
    session = ort.InferenceSession(model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_equals_eager_at_other_sizes(patches: tuple[dict, dict], dynamo: bool) -> None:
    _, after = patches
    for name in ("Patches", "Blocks"):
        torch.manual_seed(0)
        model = after[name]().eval()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = export_nchw(model, torch.randn(2, 3, 8, 12), dynamo, min_side=3)
        ops = {node.op_type for node in graph.graph.node}
        assert not ops & {"Loop", "SequenceAt", "SplitToSequence"}, ops
        for shape in [(2, 3, 8, 12), (1, 3, 13, 7), (3, 3, 4, 20), (1, 3, 3, 3)]:
            x = torch.randn(shape)
            x[0, 0, 0, :2] = torch.tensor([float("inf"), float("nan")])
            x[-1, -1, -1, -1] = -0.0
            with torch.no_grad():
                expected = model(x).numpy()
            np.testing.assert_allclose(_run(graph, x), expected, rtol=1e-5, atol=1e-5, equal_nan=True,
                                       err_msg=f"{name} {shape}")



#: Windows whose size is read from the input's shape (kornia's CLAHE: `batch.unfold(1, c, c)` with
#: `c = batch.shape[-3]`, then tiles of `ceil(h / grid)` rows): while the TorchScript exporter traces,
#: those sizes are 0-d tensors, not ints.
TRACED_SIZES = """\
import torch
from torch import nn


class Grid(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = x.shape[-3]
        k = x.shape[-1] // 4
        tiles = x.unfold(1, c, c).unfold(3, k, k)
        return tiles.sum(-1) * 2
"""


@pytest.fixture(scope="module")
def traced_sizes(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("unfold_traced")
    after = rewrite(TRACED_SIZES, select=("TRT311",))
    assert "tiles = _trt_unfold(_trt_unfold(x, 1, c, c), 3, k, k)" in after
    return import_source(TRACED_SIZES, folder), import_source(after, folder)


@pytest.mark.parametrize("shape", [(2, 3, 5, 12), (1, 1, 2, 9), (0, 3, 4, 8), (2, 4, 3, 4), (1, 3, 2, 3)])
def test_windows_of_a_size_read_from_the_shape_run_as_before(traced_sizes: tuple[dict, dict],
                                                              shape: tuple[int, ...]) -> None:
    before, after = traced_sizes
    x = torch.randn(shape)
    if x.numel():
        x.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), -0.0])
    # (1, 3, 2, 3): a window of 0 rows, which unfold refuses; the same error before and after.
    assert_same_run(run_once(before["Grid"](), [x]), run_once(after["Grid"](), [x]), context=str(shape))


def test_the_helper_takes_one_traced_size_for_size_and_step_only() -> None:
    """Outside an export a tensor size is unfold's (its values and errors); while exporting, only the
    same 0-d integer tensor for size and step is viewed as whole windows: two tensors, even of one
    value, may differ at another size, and a float is no size: unfold keeps them."""
    x = torch.randn(2, 9, 4)
    k = torch.tensor(3)
    _same_view(x.unfold(1, 3, 3), _trt_unfold(x, 1, k, k))
    with pytest.raises(Exception) as original:
        x.unfold(1, torch.tensor(0), torch.tensor(0))
    with pytest.raises(type(original.value)):
        _trt_unfold(x, 1, torch.tensor(0), torch.tensor(0))
    from trtcodemod.helpers.splitting import _trt_traced_count

    assert _trt_traced_count(k) and _trt_traced_count(torch.tensor(3, dtype=torch.int32))
    assert not any(_trt_traced_count(v) for v in (3, torch.tensor(3.0), torch.tensor(True), torch.tensor([3])))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_windows_of_a_traced_size_export_and_follow_the_input(traced_sizes: tuple[dict, dict], dynamo: bool) -> None:
    before, after = traced_sizes
    example = torch.randn(2, 3, 5, 12)
    shapes = [(2, 3, 5, 12), (1, 3, 7, 9), (3, 3, 4, 23), (0, 3, 6, 8)]
    if dynamo:
        # The helper is unfold itself there: torch.export keeps the width the window size is read
        # from as the example's, for the original and the rewrite alike.
        shapes = [(2, 3, 5, 12), (1, 3, 7, 12), (0, 3, 6, 12)]
        original = export_nchw(before["Grid"]().eval(), example, dynamo, min_side=4)
        assert [str(i.type) for i in original.graph.input] == [
            str(i.type) for i in export_nchw(after["Grid"]().eval(), example, dynamo, min_side=4).graph.input]
    else:  # the original stops the TorchScript exporter
        with pytest.raises(Exception, match="(?i)unfold"):
            export_nchw(before["Grid"]().eval(), example, dynamo=False)
    model = after["Grid"]().eval()
    graph = export_nchw(model, example, dynamo, min_side=4)
    for shape in shapes:
        x = torch.randn(shape)
        if x.numel():
            x[0, 0, 0, :2] = torch.tensor([float("inf"), float("nan")])
        with torch.no_grad():
            expected = model(x).numpy()
        got = _run(graph, x)
        assert got.shape == expected.shape, shape
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=str(shape))

TILES = """\
import torch
from torch import nn


class Tiles(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        b, c, h, w = y.shape
        t = y.unfold(2, 4, 4).unfold(3, 4, 4)
        return t.reshape(b, c, h // 4, w // 4, 16).mean(-1)


def build():
    torch.manual_seed(0)
    return Tiles().eval()


def inputs(generator):
    return [torch.randn(1, 3, 16, 16, generator=generator)]
"""


def test_migrate_finds_the_export_failure_at_the_chain_and_fixes_it(tmp_path: Path) -> None:
    model = tmp_path / "tiles.py"
    model.write_text(TILES)
    report = migrate_json(model, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False  # the TorchScript exporter stops at the unfold
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT311", 13)]
    assert report["exit_code"] == 0 and report["equivalent"] is True and not report["remaining"]
    assert "_trt_unfold(_trt_unfold(y, 2, 4, 4), 3, 4, 4)" in report["diff"]


HALO = """\
import torch
from torch import nn


class Halo(nn.Module):
    \"\"\"Blocks of 4 rows, each attending to a window of 8 rows around it (overlapping windows).\"\"\"

    def __init__(self) -> None:
        super().__init__()
        self.block, self.win = 4, 8
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        y = nn.functional.pad(y, (0, 0, 2, 2))
        windows = y.unfold(2, self.win, self.block)
        return windows.amax(-1)


def build():
    torch.manual_seed(0)
    return Halo().eval()


def inputs(generator):
    return [torch.randn(1, 3, 16, 12, generator=generator)]
"""


def test_migrate_gathers_overlapping_windows_as_a_candidate_and_proves_it(tmp_path: Path) -> None:
    model = tmp_path / "halo.py"
    model.write_text(HALO)
    report = migrate_json(model, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False
    [fix] = report["applied"]
    assert (fix["rule"], fix["line"]) == ("TRT311", 16) and fix["proof"].startswith("verified:")
    assert report["exit_code"] == 0 and report["equivalent"] is True and not report["remaining"]
