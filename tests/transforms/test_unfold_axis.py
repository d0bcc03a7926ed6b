"""TRT330: ``x.unfold(-d, k, s)`` becomes ``_trt_unfold_axis(x, -d, k, s)``, the same axis counted from the front.

The rewrite text and what is left alone; the helper against ``unfold`` on real tensors (every
negative and positive axis of ranks 0 to 4, windows that tile, overlap and leave gaps, empty,
transposed, inf/NaN and integer inputs; values, shape, strides, storage, gradients, errors); the
other toolchains before and after; both exporters: the TorchScript export of the original puts
the windows on the wrong axis (another shape than eager mode's, or a graph ONNX Runtime refuses,
PatchTST's form), the rewritten graph equals eager mode with either exporter, at other batch
sizes too; and migrate on a small model, which ends at exit 0 with TRT330 applied.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.splitting import _trt_unfold_axis


def _fixed(code: str) -> str:
    return strip_helpers(rewrite("import torch\n\n\n" + code, select=("TRT330",)))


@pytest.mark.parametrize(("code", "want"), [
    ("t = x.unfold(-1, 8, 8)\n", "t = _trt_unfold_axis(x, -1, 8, 8)\n"),
    ("t = out.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)\n",
     "t = _trt_unfold_axis(out, -2, self.patch_length, self.patch_stride)\n"),
    ("t = x.unfold(-3, step=s, size=k)\n", "t = _trt_unfold_axis(x, -3, k, s)\n"),
    ("t = (x + 1).unfold(-1, 400, 160)\n", "t = _trt_unfold_axis(x + 1, -1, 400, 160)\n"),
    ("t = self.norm(x).unfold(-1, k, 1)\n", "t = _trt_unfold_axis(self.norm(x), -1, k, 1)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT330",)) == ["TRT330"]
    after = rewrite(source, select=("TRT330",))  # safe: no --unsafe needed
    assert after.endswith(want), after
    assert "def _trt_unfold_axis(" in after
    assert rewrite(after, select=("TRT330",)) == after


@pytest.mark.parametrize("code", [
    "t = x.unfold(1, 8, 8)\n",         # counted from the front already
    "t = x.unfold(0, 2, 1)\n",
    "t = x.unfold(d, 8, 8)\n",         # sign not written
    "t = x.unfold(-d, 8, 8)\n",
    "t = x.unfold(-0, 8, 8)\n",        # zero: the front
    "t = F.unfold(x, 3)\n",            # im2col
    "t = x.unfold(*args)\n",
    "t = x.unfold(-1, 8)\n",           # not unfold's signature
])
def test_what_is_left(code: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\n\n\n" + code
    assert rules_found(source, select=("TRT330",)) == []
    assert rewrite(source, select=("TRT330",)) == source


def _inputs() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -5.0, 1e-30, -1e30])
    return [
        torch.randn(7, generator=g),
        torch.randn(2, 9, 3, generator=g).transpose(0, 2),              # not contiguous
        torch.randn(2, 3, 6, 5, generator=g, dtype=torch.float64),
        special.repeat(3).reshape(3, 8),                                # inf, NaN, zeros, negatives
        torch.arange(-12, 12).reshape(2, 12),                           # integers, negatives
        torch.zeros(0, 6, 4),                                           # empty batch
        torch.zeros(3, 0),                                              # empty axis
    ]


@pytest.mark.parametrize(("size", "step"), [(1, 1), (2, 2), (3, 1), (2, 3), (4, 2), (6, 6), (9, 1)])
def test_helper_is_unfold_on_every_axis(size: int, step: int) -> None:
    for x in _inputs():
        for dim in range(-x.dim() - 1, x.dim() + 1):  # out of range on both sides too
            for requires_grad in ((False, True) if x.is_floating_point() else (False,)):
                base = x.clone().requires_grad_(requires_grad)
                before = run_once(lambda t: t.unfold(dim, size, step), [base])
                after = run_once(lambda t: _trt_unfold_axis(t, dim, size, step), [base])
                assert_same_run(before, after, context=f"{tuple(x.shape)} dim={dim} k={size} s={step}")


def test_helper_keeps_the_view_of_x() -> None:
    x = torch.arange(24.0).reshape(2, 12)
    got, want = _trt_unfold_axis(x, -1, 4, 4), x.unfold(-1, 4, 4)
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
    assert got.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    got[0, 1, 2] = -7.0  # an in-place write reaches x, as through unfold's view
    assert x[0, 6] == -7.0


def test_helper_on_a_0d_tensor_and_other_arguments_is_unfold_as_written() -> None:
    for x, dim in ((torch.tensor(2.0), -1), (torch.tensor(2.0), 0), (torch.randn(3), True), (torch.randn(3), 1.0),
                   ([1, 2, 3], -1)):
        assert_same_run(run_once(lambda t: t.unfold(dim, 1, 1), [x]),
                        run_once(lambda t: _trt_unfold_axis(t, dim, 1, 1), [x]), context=repr((x, dim)))


MODULE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        patches = x.unfold(dimension=-2, size=4, step=4)
        frames = x.unfold(-1, 2, 1)
        return patches.sum(-1), frames.flatten(-2)
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(MODULE, tmp_path_factory.mktemp("before"))["M"]
    after = import_source(rewrite(MODULE, select=("TRT330",)), tmp_path_factory.mktemp("after"))["M"]
    return before, after


def test_eager_mode_is_the_original(programs) -> None:
    before, after = programs
    for x in (torch.randn(2, 8, 3).requires_grad_(True), torch.zeros(0, 8, 3),
              torch.tensor([[math.inf, -math.inf, math.nan, 0.0]] * 8).reshape(1, 8, 4),
              torch.randn(3, 2), torch.randn(8)):                                     # errors: too short, rank 1
        assert_same_run(run_once(before(), [x]), run_once(after(), [x]), context=str(tuple(x.shape)))


def test_other_toolchains_run_the_original(programs, tmp_path) -> None:
    before, after = programs
    inputs = [torch.randn(2, 8, 3)]
    want = toolchain_outcomes(before, inputs, tmp_path)
    got = toolchain_outcomes(after, inputs, tmp_path)
    assert set(want) == set(got)
    for name in want:
        if isinstance(want[name], Exception):
            assert type(got[name]) is type(want[name]), name
        else:
            assert_same_run(run_once(lambda v=want[name]: v, []), run_once(lambda v=got[name]: v, []), context=name)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"],
                                     dynamic_shapes={"x": {0: torch.export.Dim("n")}}, verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, x: torch.Tensor) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    return [torch.from_numpy(v) for v in session.run(None, {session.get_inputs()[0].name: x.numpy()})]


def test_the_torchscript_export_of_the_original_puts_the_windows_on_the_wrong_axis(programs) -> None:
    before, _ = programs
    x = torch.randn(2, 8, 3)
    want = before()(x)
    got = _run(_export(before(), x, dynamo=False), x)
    assert [tuple(g.shape) for g in got] != [tuple(w.shape) for w in want]
    assert tuple(got[0].shape) == (2, 3, 2)  # the window count and the channels swapped: (2, 2, 3) in eager mode


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_model_exports_and_matches_eager_at_other_sizes(programs, dynamo) -> None:
    before, after = programs
    graph = _export(after(), torch.randn(2, 8, 3), dynamo)
    g = torch.Generator().manual_seed(1)
    for x in (torch.randn(5, 8, 3, generator=g), torch.randn(1, 8, 3, generator=g),
              torch.tensor([[math.inf, -math.inf, math.nan]] * 8).reshape(1, 8, 3), -torch.rand(3, 8, 3)):
        for got, want in zip(_run(graph, x), before()(x), strict=True):
            assert got.shape == want.shape
            torch.testing.assert_close(got, want, equal_nan=True, rtol=1e-6, atol=1e-6)


PATCHTST_LIKE = '''
import torch
from torch import nn


class Patchify(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_length, self.patch_stride = 4, 4
        self.position = nn.Parameter(torch.randn(4, 5))

    def forward(self, x):
        # (batch, length, channels) -> (batch, patches, channels, size) -> (batch, channels, patches, size)
        out = x.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)
        out = out.transpose(-2, -3).contiguous()
        return torch.nn.functional.linear(out, torch.ones(5, 4)) + self.position


def build():
    torch.manual_seed(0)
    return Patchify().eval()
'''


def test_the_patchtst_form_is_refused_by_onnx_runtime_before_and_exports_after(tmp_path) -> None:
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    before = import_source(PATCHTST_LIKE, tmp_path / "before")["build"]()
    after = import_source(rewrite(PATCHTST_LIKE, select=("TRT330",)), tmp_path / "after")["build"]()
    x = torch.randn(2, 16, 3)  # 4 patches of 3 channels
    with pytest.raises(Exception, match="Incompatible dimensions|ShapeInference"):
        _run(_export(before, x, dynamo=False), x)
    for dynamo in (False, True):
        graph = _export(after, x, dynamo)
        for batch in (1, 4):
            y = torch.randn(batch, 16, 3)
            torch.testing.assert_close(_run(graph, y)[0], before(y), rtol=1e-6, atol=1e-6)


SMALL = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        windows = x.unfold(-1, 5, 5)
        return windows * 2.0


def build():
    return M().eval()
'''


def test_migrate_applies_it_where_the_graph_differs_from_its_model(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(SMALL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT330"]
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert "+        windows = _trt_unfold_axis(x, -1, 5, 5)" in report["diff"]
