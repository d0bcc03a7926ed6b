"""TRT313: ``F.grid_sample`` of a 5-D volume becomes ``_trt_grid_sample(...)``: ``F.grid_sample`` itself
outside an ONNX export, the kernel's trilinear (or nearest) sum written with gathers while exporting.

The rewrite text where the code shows a volume's grid, and where only a recorded run does
(``migrate`` on a monai-like warp whose grid is a reference grid plus a displacement field);
what is left alone; the export formulation against ``F.grid_sample`` for both modes, the three
padding modes (zeros, border, reflection) and both ``align_corners`` on volumes of several shapes (an empty batch, a
one-voxel axis), with infinities in the volume and points outside it; eager runs and the
toolchains before and after; and both exporters' graphs with a dynamic batch, depth, height and
width against eager mode.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import migrate_json, rewrite, rules_found

from trtcodemod.helpers.sampling import _trt_grid_sample, _trt_grid_sample_3d

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


@pytest.mark.parametrize(("code", "want"), [
    ("y = F.grid_sample(x, flow.permute(0, 2, 3, 4, 1), align_corners=True)\n",
     "y = _trt_grid_sample(x, flow.permute(0, 2, 3, 4, 1), align_corners=True)\n"),
    ("y = torch.nn.functional.grid_sample(input=x, grid=d.permute([0, 2, 3, 4, 1]), mode='nearest')\n",
     "y = _trt_grid_sample(input=x, grid=d.permute([0, 2, 3, 4, 1]), mode='nearest')\n"),
])
def test_rewrite_text_where_the_code_shows_a_volume(code: str, want: str) -> None:
    after = rewrite(HEADER + code, select=("TRT313",))
    assert after.endswith(want), after
    assert "def _trt_grid_sample(" in after and "def _trt_grid_sample_3d(" in after


@pytest.mark.parametrize("code", [
    "y = F.grid_sample(x, grid)\n",  # the rank is unknown without a recorded run
    "y = F.grid_sample(x, flow.permute(0, 2, 3, 1))\n",  # a 2-D field
    "y = grid_sample(x, flow.permute(0, 2, 3, 4, 1))\n",  # not torch's
])
def test_left_alone(code: str) -> None:
    assert "TRT313" not in rules_found(HEADER + code)


def _volume(shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    x = torch.randn(shape, generator=generator, dtype=torch.float64)
    if x.numel():
        x.view(-1)[:: max(1, x.numel() // 3)] = float("inf")
    return x


@pytest.mark.parametrize(("mode", "padding_mode", "align_corners"),
                         list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"],
                                                           [True, False])))
def test_the_export_form_is_the_kernels_sum(mode: str, padding_mode: str, align_corners: bool) -> None:
    generator = torch.Generator().manual_seed(0)
    for shape, points in [((2, 3, 4, 5, 6), (3, 4, 2)), ((1, 1, 1, 3, 2), (2, 2, 2)), ((0, 2, 3, 3, 3), (2, 1, 2))]:
        x = torch.randn(shape, generator=generator, dtype=torch.float64)
        # Points inside and outside the volume (beyond [-1, 1]), on voxel centres and between them.
        grid = torch.rand((shape[0], *points, 3), generator=generator, dtype=torch.float64) * 2.6 - 1.3
        if grid.numel():
            grid[0, 0, 0, 0] = torch.tensor([0.0, -1.0, 1.0], dtype=torch.float64)
        expected = F.grid_sample(x, grid, mode, padding_mode, align_corners)
        got = _trt_grid_sample_3d(x, grid, mode, padding_mode, align_corners)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert torch.equal(got, expected), (shape, (got - expected).abs().max())


def test_infinities_stay_where_the_kernel_puts_them_and_errors_are_the_kernels() -> None:
    generator = torch.Generator().manual_seed(1)
    x = _volume((1, 2, 3, 4, 5), generator)
    grid = torch.rand((1, 3, 3, 3, 3), generator=generator, dtype=torch.float64) * 2.4 - 1.2
    for padding_mode in ("zeros", "border"):
        torch.testing.assert_close(_trt_grid_sample_3d(x, grid, "bilinear", padding_mode, True),
                                   F.grid_sample(x, grid, "bilinear", padding_mode, True), rtol=0, atol=0,
                                   equal_nan=True)
    # Reflection folds an infinite or NaN point into a NaN, which the kernel's clamp takes to the far edge.
    grid[0, 0, 0, 0] = torch.tensor([math.inf, 0.0, 0.0])
    grid[0, 0, 0, 1] = torch.tensor([0.0, math.nan, 0.0])
    grid[0, 0, 1, 0] = torch.tensor([0.0, 0.0, -math.inf])
    grid[0, 0, 1, 1] = torch.tensor([1e30, -1e30, 7.5])  # many spans away: flips counted by floor
    for mode, align_corners in itertools.product(["bilinear", "nearest"], [True, False]):
        assert torch.equal(_trt_grid_sample_3d(x.nan_to_num(posinf=2.0), grid, mode, "reflection", align_corners),
                           F.grid_sample(x.nan_to_num(posinf=2.0), grid, mode, "reflection", align_corners))
    with pytest.raises(RuntimeError) as original:
        F.grid_sample(x, grid[..., :2], "bilinear", "zeros", True)
    with pytest.raises(RuntimeError, match=re.escape(str(original.value)[:20])):
        _trt_grid_sample_3d(x, grid[..., :2], "bilinear", "zeros", True)


def test_outside_an_export_the_helper_is_grid_sample() -> None:
    x, grid = torch.randn(1, 2, 3, 4, 5), torch.rand(1, 2, 2, 2, 3) * 2 - 1
    assert torch.equal(_trt_grid_sample(x, grid, align_corners=True), F.grid_sample(x, grid, align_corners=True))
    picture, flat = torch.randn(1, 2, 5, 5), torch.rand(1, 3, 3, 2) * 2 - 1
    assert torch.equal(_trt_grid_sample(picture, flat, "nearest", "reflection", False),
                       F.grid_sample(picture, flat, "nearest", "reflection", False))


WARP = """\
import torch
import torch.nn.functional as F
from torch import nn


class Warp(nn.Module):
    # A moving volume resampled at a reference grid plus a displacement field (monai's Warp, reduced).

    def __init__(self) -> None:
        super().__init__()
        self.flow = nn.Conv3d(2, 3, 3, padding=1)

    def forward(self, x):
        moving = x[:, :1]
        ddf = self.flow(x)
        spatial = ddf.shape[2:]
        mesh = torch.meshgrid(*[torch.arange(0, s).to(ddf) for s in spatial], indexing="ij")
        grid = torch.stack(mesh, 0)[None] + ddf
        grid = torch.stack([grid[:, i] * 2 / max(s - 1, 1) - 1 for i, s in enumerate(spatial)], -1)
        grid = grid[..., [2, 1, 0]]
        return F.grid_sample(moving, grid, mode="bilinear", padding_mode="border", align_corners=True)


def build():
    torch.manual_seed(0)
    return Warp().eval()


def inputs(generator):
    return [torch.randn(1, 2, 6, 7, 8, generator=generator)]
"""


@pytest.fixture(scope="module")
def warp(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """The model as written, and as migrate rewrites it (the call only: the helper imported from
    the package, the same text the engine inserts; migrate's own rewrite is tested below)."""
    folder = tmp_path_factory.mktemp("grid_sample_3d")
    after = WARP.replace("return F.grid_sample(", "return _trt_grid_sample(").replace(
        "from torch import nn\n", "from torch import nn\n\nfrom trtcodemod.helpers.sampling import _trt_grid_sample\n", 1)
    return import_source(WARP, folder), import_source(after, folder)


def test_eager_runs_and_toolchains_are_unchanged(warp: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = warp
    for shape in [(2, 2, 6, 7, 8), (1, 2, 1, 3, 2), (0, 2, 4, 4, 4)]:
        x = torch.randn(shape)
        torch.manual_seed(0)
        model_before = before["Warp"]()
        torch.manual_seed(0)
        model_after = after["Warp"]()
        assert_same_run(run_once(model_before, [x]), run_once(model_after, [x]), context=str(shape))
    x = torch.randn(1, 2, 6, 7, 8)
    torch.manual_seed(0)
    outcomes_before = toolchain_outcomes(before["Warp"], [x], tmp_path)
    torch.manual_seed(0)
    outcomes_after = toolchain_outcomes(after["Warp"], [x], tmp_path)
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> bytes:
    import io

    axes = {"x": {0: "n", 2: "d", 3: "h", 4: "w"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_axes=axes,
                                     verbose=False).model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"], dynamic_axes=axes)
        return buffer.getvalue()


def test_the_original_does_not_export(warp: tuple[dict, dict]) -> None:
    before, _ = warp
    with pytest.raises(Exception, match="GridSample with 5D"):
        _export(before["Warp"]().eval(), torch.randn(1, 2, 6, 7, 8), dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_equals_eager_at_other_sizes(warp: tuple[dict, dict], dynamo: bool) -> None:
    _, after = warp
    torch.manual_seed(0)
    model = after["Warp"]().eval()
    graph = _export(model, torch.randn(1, 2, 6, 7, 8), dynamo)
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    for shape in [(1, 2, 6, 7, 8), (2, 2, 5, 9, 4), (1, 2, 3, 3, 3)]:
        x = torch.randn(shape)
        x[0, 0, 1, 1, :2] = torch.tensor([float("inf"), -0.0])
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {"x": x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=str(shape))


def test_migrate_finds_the_volume_from_the_observed_run_and_fixes_it(tmp_path: Path) -> None:
    model = tmp_path / "warp.py"
    model.write_text(WARP)
    assert "TRT313" not in rules_found(WARP)  # from the code alone the rank is unknown
    report = migrate_json(model, '{"x": {"0": "n", "2": "d", "3": "h", "4": "w"}}')
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT313"] == [("TRT313", 21)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


class _Sampler(torch.nn.Module):
    def __init__(self, padding_mode: str) -> None:
        super().__init__()
        self.padding_mode = padding_mode

    def forward(self, x, grid):
        return _trt_grid_sample(x, grid, padding_mode=self.padding_mode, align_corners=True)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_the_dynamo_graph_is_valid_with_a_symbolic_batch_and_runs_an_empty_one(padding_mode: str) -> None:
    """Clamping indices to a size the dynamo exporter holds as a symbol once made it write a graph
    ONNX Runtime refused to load; the original's 5-D GridSample exports there and runs every batch."""
    batch = torch.export.Dim("batch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(_Sampler(padding_mode), (torch.randn(2, 2, 4, 5, 6), torch.rand(2, 3, 3, 3, 3)),
                                    dynamo=True, input_names=["x", "grid"], verbose=False,
                                    dynamic_shapes=({0: batch}, {0: batch}))
    session = ort.InferenceSession(program.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (3, 0):
        x, grid = torch.randn(n, 2, 4, 5, 6), torch.rand(n, 3, 3, 3, 3) * 2.6 - 1.3
        got = session.run(None, {"x": x.numpy(), "grid": grid.numpy()})[0]
        expected = F.grid_sample(x, grid, padding_mode=padding_mode, align_corners=True).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_migrate_reads_the_volume_from_the_grid_when_the_input_is_a_call(tmp_path: Path) -> None:
    """lucidrains/deformable-attention 0.0.20 ``deformable_attention_3d.py:179`` samples ``group(x)``, a call whose
    value the run records no shape for: the grid, seen 5-D, says the input is a volume (grid_sample requires the
    same rank)."""
    code = WARP.replace("        self.flow = nn.Conv3d(2, 3, 3, padding=1)\n",
                        "        self.flow = nn.Conv3d(2, 3, 3, padding=1)\n        self.keep = nn.Identity()\n")
    code = code.replace("return F.grid_sample(moving, grid,", "return F.grid_sample(self.keep(moving), grid,")
    model = tmp_path / "warp_call.py"
    model.write_text(code)
    report = migrate_json(model, '{"x": {"0": "n", "2": "d", "3": "h", "4": "w"}}')
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT313"] == [("TRT313", 22)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
