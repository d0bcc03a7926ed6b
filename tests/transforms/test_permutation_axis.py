"""TRT371: ``x.movedim(-s, d)`` becomes ``_trt_movedim(x, -s, d)``, ``x.permute(0, -1, 1, 2)`` becomes
``_trt_permute(x, [0, -1, 1, 2])``: the axes counted from the front while exporting.

The rewrite text and what is left alone; the helpers against ``movedim`` on real tensors (every
source and destination of ranks 0 to 4, out of range on both sides, inf/NaN, integer, empty and
non-contiguous inputs; values, shape, strides, storage, gradients, errors); the other toolchains
before and after; the TorchScript export of the original writes the negative source into the
``Transpose`` permutation (a graph ONNX Runtime refuses at load), the rewritten graph equals eager
mode with either exporter at other sizes; a reduced pyniftireg B-spline evaluation; and migrate on
a small model, which ends at exit 0 with TRT371 applied.
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
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_small, rewrite, rules_found, strip_helpers

import itertools

from trtcodemod.helpers.transposing import _trt_movedim, _trt_permute, _trt_torch_movedim


@pytest.mark.parametrize(("code", "want"), [
    ("t = x.movedim(-1, 2)\n", "t = _trt_movedim(x, -1, 2)\n"),
    ("t = torch.tensordot(x, m, dims=([2 + a], [1])).movedim(-1, 2 + a)\n",
     "t = _trt_movedim(torch.tensordot(x, m, dims=([2 + a], [1])), -1, 2 + a)\n"),
    ("t = x.moveaxis(source=-3, destination=0)\n", "t = _trt_movedim(x, -3, 0)\n"),
    ("t = (x + 1).movedim(-(2), d)\n", "t = _trt_movedim(x + 1, -(2), d)\n"),
    ("t = torch.movedim(f, -1, 1)\n", "t = _trt_torch_movedim(f, -1, 1)\n"),
    ("t = torch.moveaxis(input=f, destination=1, source=-1)\n", "t = _trt_torch_movedim(f, -1, 1)\n"),
    ("t = x.permute(0, -1, 1, 2)\n", "t = _trt_permute(x, [0, -1, 1, 2])\n"),
    ("t = self.proj(x).permute(-1, 0, k)\n", "t = _trt_permute(self.proj(x), [-1, 0, k])\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT371",)) == ["TRT371"]
    after = rewrite(source, select=("TRT371",))  # safe: no --unsafe needed
    assert after.endswith(want), after
    assert rewrite(after, select=("TRT371",)) == after


@pytest.mark.parametrize("code", [
    "t = x.movedim(1, -1)\n",          # a negative destination exports right
    "t = x.movedim(0, 2)\n",
    "t = x.movedim(d, 2)\n",           # sign not written
    "t = x.movedim(-0, 2)\n",          # zero: the front
    "t = x.movedim((-1,), (0,))\n",    # axes as a sequence (not taken)
    "t = np.moveaxis(x, -1, 0)\n",     # NumPy's
    "t = x.movedim(*args)\n",
    "t = x.movedim(-1)\n",             # not movedim's signature
    "t = x.permute(0, 2, 3, 1)\n",     # counted from the front already
    "t = x.permute((0, -1, 1))\n",     # one sequence of axes (not taken)
    "t = x.permute(dims=[0, -1, 1])\n",
    "t = torch.permute(x, (0, -1, 1))\n",
    "t = x.permute(*order)\n",
])
def test_what_is_left(code: str) -> None:
    source = "import numpy as np\nimport torch\n\n\n" + code
    assert rules_found(source, select=("TRT371",)) == []
    assert rewrite(source, select=("TRT371",)) == source


def _inputs() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -5.0, 1e-30, -1e30])
    return [
        torch.tensor(2.0),                                               # 0-d: every axis out of range
        torch.randn(7, generator=g),
        torch.randn(2, 9, 3, generator=g).transpose(0, 2),              # not contiguous
        torch.randn(2, 3, 6, 5, generator=g, dtype=torch.float64),
        special.repeat(3).reshape(3, 8),                                # inf, NaN, zeros, negatives
        torch.arange(-12, 12).reshape(2, 3, 4),                         # integers
        torch.zeros(0, 6, 4),                                           # empty
    ]


@pytest.mark.parametrize("function", [False, True], ids=["method", "function"])
def test_helper_is_movedim_on_every_axis(function: bool) -> None:
    helper = _trt_torch_movedim if function else _trt_movedim
    original = (lambda t, s, d: torch.movedim(t, s, d)) if function else (lambda t, s, d: t.movedim(s, d))
    for x in _inputs():
        for source in range(-x.dim() - 1, x.dim() + 1):  # out of range on both sides too
            for destination in range(-x.dim() - 1, x.dim() + 1):
                for requires_grad in ((False, True) if x.is_floating_point() else (False,)):
                    base = x.clone().requires_grad_(requires_grad)
                    before = run_once(lambda t: original(t, source, destination), [base])
                    after = run_once(lambda t: helper(t, source, destination), [base])
                    assert_same_run(before, after, context=f"{tuple(x.shape)} {source}->{destination}")


def test_permute_helper_is_permute_on_every_order() -> None:
    for x in _inputs():
        rank = x.dim()
        orders = [list(p) for p in itertools.permutations(range(rank))]
        signed = [[a - rank if k % 2 else a for k, a in enumerate(p)] for p in orders]  # some axes negative
        wrong = [[0] * rank, list(range(rank + 1)), [rank] + list(range(1, rank)), [-rank - 1] + list(range(1, rank))]
        for dims in orders + signed + wrong:
            for requires_grad in ((False, True) if x.is_floating_point() else (False,)):
                base = x.clone().requires_grad_(requires_grad)
                before = run_once(lambda t: t.permute(*dims), [base])
                after = run_once(lambda t: _trt_permute(t, dims), [base])
                assert_same_run(before, after, context=f"{tuple(x.shape)} {dims}")


def test_helper_keeps_the_view_of_x() -> None:
    x = torch.arange(24.0).reshape(2, 3, 4)
    got, want = _trt_movedim(x, -1, 0), x.movedim(-1, 0)
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
    assert got.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    got[3, 1, 2] = -7.0  # an in-place write reaches x, as through movedim's view
    assert x[1, 2, 3] == -7.0


def test_helper_with_other_arguments_is_movedim_as_written() -> None:
    x = torch.randn(2, 3)
    for args in ((x, True, 0), (x, -1.0, 0), (x, (-1,), (0,)), ([1, 2], -1, 0), (x, -1, 5)):
        for helper, original in ((_trt_movedim, lambda t, s, d: t.movedim(s, d)), (_trt_torch_movedim, torch.movedim)):
            assert_same_run(run_once(lambda: original(*args), []), run_once(lambda: helper(*args), []),
                            context=repr(args))


MODULE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        a = x.movedim(-1, 1)
        b = torch.moveaxis(x, -3, -1)
        c = x.permute(-1, 0, -2, 1)
        return a * 2.0, b.flatten(2), c + 1.0
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(MODULE, tmp_path_factory.mktemp("before"))["M"]
    after = import_source(rewrite(MODULE, select=("TRT371",)), tmp_path_factory.mktemp("after"))["M"]
    return before, after


def test_eager_mode_is_the_original(programs) -> None:
    before, after = programs
    for x in (torch.randn(2, 3, 4, 5).requires_grad_(True), torch.zeros(0, 3, 4, 5),
              torch.tensor([math.inf, -math.inf, math.nan, 0.0] * 6).reshape(1, 2, 3, 4),
              torch.randn(3, 2), torch.randn(8)):                                     # errors: rank 2, rank 1
        assert_same_run(run_once(before(), [x]), run_once(after(), [x]), context=str(tuple(x.shape)))


def test_other_toolchains_run_the_original(programs, tmp_path) -> None:
    before, after = programs
    assert_same_toolchain_outcomes(before, after, [torch.randn(2, 3, 4, 5)], tmp_path)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool, axes: dict[int, str]) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            shapes = {"x": {axis: torch.export.Dim(name) for axis, name in axes.items()}}
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_shapes=shapes,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": axes})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, x: torch.Tensor) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    return [torch.from_numpy(v) for v in session.run(None, {session.get_inputs()[0].name: x.numpy()})]


def _permutations(graph: onnx.ModelProto) -> list[list[int]]:
    return [list(a.ints) for n in graph.graph.node if n.op_type == "Transpose" for a in n.attribute if a.name == "perm"]


def test_the_torchscript_export_of_the_original_writes_a_negative_permutation(programs) -> None:
    before, _ = programs
    graph = _export(before(), torch.randn(2, 3, 4, 5), dynamo=False, axes={0: "n"})
    assert [0, -1, 1, 2] in _permutations(graph) and [-1, 0, -2, 1] in _permutations(graph)
    with pytest.raises(Exception, match="Invalid attribute perm"):
        _run(graph, torch.randn(2, 3, 4, 5))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_model_exports_and_matches_eager_at_other_sizes(programs, dynamo) -> None:
    before, after = programs
    graph = _export(after(), torch.randn(2, 3, 4, 5), dynamo, axes={0: "n"})
    assert all(p >= 0 for perm in _permutations(graph) for p in perm)
    g = torch.Generator().manual_seed(1)
    for x in (torch.randn(5, 3, 4, 5, generator=g), torch.randn(1, 3, 4, 5, generator=g),
              torch.tensor([math.inf, -math.inf, math.nan] * 20).reshape(1, 3, 4, 5), -torch.rand(3, 3, 4, 5)):
        for got, want in zip(_run(graph, x), before()(x), strict=True):
            assert got.shape == want.shape
            torch.testing.assert_close(got, want, equal_nan=True, rtol=0.0, atol=0.0)


# pyniftireg 0.1.1 (C. T. Lo), `pyniftireg/bspline.py:62-65` (`_apply_per_axis`) and `:75-83` (`to_dense`):
# control points `(B, C, *cp_shape)` are evaluated on a dense grid one axis at a time, each axis contracted
# with that axis' B-spline weight matrix by `torch.tensordot` (which puts the new axis last) and moved back to
# its place with `.movedim(-1, 2 + axis)`. Reduced here: a fixed weight matrix per axis, shaped from the
# sizes, for a field `(B, 2, H, W)` resampled to `(B, 2, H', W')`.
BSPLINE_LIKE = '''
import torch
from torch import nn


def per_axis(x, mats):
    for axis, m in enumerate(mats):
        x = torch.tensordot(x, m, dims=([2 + axis], [1])).movedim(-1, 2 + axis)
    return x


class Dense(nn.Module):
    def forward(self, cp):
        h, w = cp.shape[2] * 2, cp.shape[3] * 2
        mats = [torch.ones(h, cp.shape[2]) / cp.shape[2], torch.ones(w, cp.shape[3]) / cp.shape[3]]
        return per_axis(cp, mats)


def build():
    return Dense().eval()
'''


def test_the_pyniftireg_form_is_refused_by_onnx_runtime_before_and_exports_after(tmp_path) -> None:
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    new = rewrite(BSPLINE_LIKE, select=("TRT371",))
    assert "x = _trt_movedim(torch.tensordot(x, m, dims=([2 + axis], [1])), -1, 2 + axis)" in strip_helpers(new)
    before = import_source(BSPLINE_LIKE, tmp_path / "before")["build"]()
    after = import_source(new, tmp_path / "after")["build"]()
    cp = torch.randn(1, 2, 5, 6)
    axes = {0: "b", 2: "h", 3: "w"}
    with pytest.raises(Exception, match="Invalid attribute perm"):
        _run(_export(before, cp, dynamo=False, axes=axes), cp)
    graph = _export(after, cp, dynamo=False, axes=axes)
    for x in (torch.randn(2, 2, 7, 3), torch.randn(1, 2, 1, 1),
              torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e30] * 2).reshape(1, 2, 2, 3)):
        torch.testing.assert_close(_run(graph, x)[0], before(x), equal_nan=True, rtol=1e-6, atol=1e-6)


SMALL = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        return torch.tensordot(x, torch.ones(4, 5), dims=([2], [1])).movedim(-1, 2) * 2.0


def build():
    return M().eval()
'''


def test_migrate_applies_it_where_onnx_runtime_refuses_the_graph(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(SMALL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT371"]
    assert "+        return _trt_movedim(torch.tensordot(x, torch.ones(4, 5), dims=([2], [1])), -1, 2) * 2.0" \
        in report["diff"]
