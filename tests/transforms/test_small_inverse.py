"""TRT338 (``torch.inverse`` / ``torch.linalg.inv`` / ``torch.linalg.solve``): the adjugate over the
determinant while exporting, for 2x2, 3x3 and 4x4 matrices, and Gaussian elimination with partial
pivoting, unrolled, for 5x5 up to 128x128.

The rewrite text (function, method and solve forms, only with ``--unsafe``, what is left), eager
mode before and after (the torch functions themselves, singular matrices' errors included), the
TorchScript export at each size (the original's fails; the graph passes the TensorRT check and
gives in ONNX Runtime, at two other batch sizes, torch's inverse within rounding), what stays
unexportable (129x129) and what differs (a singular matrix), the elimination on matrices that need
its pivoting, and ``migrate`` on a small warp_perspective-like model and a thin-plate spline.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import export_formulation, migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn
from torch.linalg import inv


class M(nn.Module):
    def forward(self, m, b):
        first = torch.inverse(m)
        second = (m * 2).inverse() + inv(m)
        return first, second, torch.linalg.solve(m, b), torch.linalg.solve(m, b[..., 0])
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT338",)) == ["TRT338"] * 5
    assert rewrite(SOURCE, select=("TRT338",)) == SOURCE  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT338",), unsafe=True))
    assert "first = _trt_inverse(m)" in after
    assert "second = _trt_inverse(m * 2) + _trt_inverse(m)" in after
    assert "return first, second, _trt_solve(m, b), _trt_solve(m, b[..., 0])" in after
    once = rewrite(SOURCE, select=("TRT338",), unsafe=True)
    assert rewrite(once, select=("TRT338",), unsafe=True) == once
    left = ("import torch\nimport numpy as np\n"
            "def f(a, b, t):\n"
            "    torch.linalg.inv(a, out=b)\n"
            "    x = torch.linalg.solve(a, b, left=False)\n"
            "    y = cropper.inverse(a)\n"
            "    return np.linalg.inv(t), torch.linalg.pinv(a), x, y\n")
    assert rules_found(left, select=("TRT338",)) == ["TRT338", "TRT338"]  # reported, not rewritten
    assert rewrite(left, select=("TRT338",), unsafe=True) == left


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(SOURCE, select=("TRT338",), unsafe=True), tmp_path_factory.mktemp("after"))
    return before, after


def _matrices(batch: int, n: int, dtype=torch.float32, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, n, n, generator=g, dtype=torch.float64) + 3 * torch.eye(n, dtype=torch.float64)).to(dtype)


def test_eager_mode_is_the_original(programs) -> None:
    before, after = programs
    for n in (2, 3, 4, 5, 9):
        for dtype in (torch.float32, torch.float64):
            m = _matrices(4, n, dtype).requires_grad_(True)
            inputs = [m, torch.randn(4, n, 2, dtype=dtype)]
            assert_same_run(run_once(before["M"](), inputs), run_once(after["M"](), inputs), context=f"{n} {dtype}")
    singular = torch.zeros(2, 3, 3)
    for inputs in ([singular, torch.randn(2, 3, 2)],                      # torch's LinAlgError
                   [torch.randn(2, 3, 4), torch.randn(2, 3, 2)],          # not square
                   [torch.randint(0, 3, (2, 3, 3)), torch.randn(2, 3, 2)]):  # integers: torch's error
        assert_same_run(run_once(before["M"](), inputs), run_once(after["M"](), inputs))


class _Inverse(torch.nn.Module):
    def __init__(self, program) -> None:
        super().__init__()
        self.program = program()

    def forward(self, m, b):
        first, second, solved, vector = self.program(m, b)
        return first, second, solved, vector


def _export(model: torch.nn.Module, inputs: tuple) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=["m", "b"],
                          dynamic_axes={"m": {0: "batch"}, "b": {0: "batch"}})
    return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: tuple) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString())
    return [torch.from_numpy(o) for o in session.run(None, {"m": inputs[0].numpy(), "b": inputs[1].numpy()})]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 9])
def test_the_export_passes_the_trt_check_and_matches_torch_at_other_batch_sizes(programs, n) -> None:
    before, after = programs
    example = (_matrices(2, n), torch.randn(2, n, 3))
    with pytest.raises(Exception, match="linalg_inv|inverse|Unsupported"):
        _export(_Inverse(before["M"]), example)
    graph = _export(_Inverse(after["M"]), example)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    assert {"Div", "Mul"} <= {node.op_type for node in graph.graph.node}
    for batch in (1, 7):
        inputs = (_matrices(batch, n, seed=batch), torch.randn(batch, n, 3))
        got, want = _run(graph, inputs), before["M"]()(*inputs)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            assert torch.allclose(g, w, rtol=1e-4, atol=1e-5), (n, batch, (g - w).abs().max())


def test_other_sizes_still_fail_and_a_singular_matrix_is_not_an_error() -> None:
    from trtcodemod.helpers.inverse import _trt_inverse

    class _One(torch.nn.Module):
        def forward(self, m):
            return _trt_inverse(m)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception, match="linalg_inv|inverse|Unsupported"):
            torch.onnx.export(_One(), (_matrices(2, 129),), io.BytesIO(), dynamo=False, opset_version=17)
    singular = torch.tensor([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]])
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(singular)
    with export_formulation():
        closed = _trt_inverse(singular)  # what the graph computes: a division by a zero determinant
    assert not bool(torch.isfinite(closed).all())
    with export_formulation():  # and on a regular matrix, torch's inverse within rounding, not bit for bit
        m = _matrices(200, 4, seed=3)
        closed = _trt_inverse(m)
    assert torch.allclose(closed, torch.linalg.inv(m), rtol=1e-4, atol=1e-5)


def _permutation(n: int, dtype=torch.float64) -> torch.Tensor:
    """A permutation matrix with zeros all along its diagonal: no step can skip pivoting."""
    return torch.eye(n, dtype=dtype).roll(1, 0)


def test_the_elimination_pivots_as_lapack_and_broadcasts_as_torch() -> None:
    from trtcodemod.helpers.inverse import _trt_inverse, _trt_solve

    for n in (5, 9, 20):
        permutation = _permutation(n).expand(3, n, n)
        scaled = _matrices(3, n, torch.float64, seed=n)
        scaled[:, 0, 0] = 1e-20  # a tiny first pivot: elimination without row swaps loses every digit
        wide = _matrices(3, n, torch.float64, seed=n + 1) * torch.logspace(-6, 6, n, dtype=torch.float64)
        ties = torch.ones(3, n, n, dtype=torch.float64) + torch.eye(n, dtype=torch.float64)  # equal magnitudes
        b = torch.randn(3, n, 2, dtype=torch.float64)
        with export_formulation():
            assert torch.equal(_trt_inverse(permutation), permutation.mT)  # a swap of rows is exact
            for A in (scaled, wide, ties):
                for got, want in ((_trt_solve(A, b), torch.linalg.solve(A, b)),
                                  (_trt_solve(A, b[..., 0]), torch.linalg.solve(A, b[..., 0])),
                                  (_trt_solve(A, b[0]), torch.linalg.solve(A, b[0])),          # one B for all
                                  (_trt_solve(A, b[:1]), torch.linalg.solve(A, b[:1])),        # a batch of one
                                  (_trt_solve(A[0], b), torch.linalg.solve(A[0], b)),          # one A for all
                                  (_trt_inverse(A), torch.linalg.inv(A))):
                    assert got.shape == want.shape
                    assert torch.allclose(got, want, rtol=1e-9, atol=1e-12), (n, (got - want).abs().max())
            single = _trt_solve(scaled.float(), b.float())  # float32 stays float32, within its rounding
            assert single.dtype == torch.float32
            assert torch.allclose(single.double(), torch.linalg.solve(scaled, b), rtol=1e-4, atol=1e-5)
            singular = _matrices(1, n, torch.float64)
            singular[:, 2] = 0.0  # a zero row: a zero pivot in LAPACK and in the graph
            assert not bool(torch.isfinite(_trt_solve(singular, b[:1])).all())  # no error: inf/NaN
        with pytest.raises(torch.linalg.LinAlgError):
            torch.linalg.solve(singular, b[:1])
        mismatched = torch.randn(2, n, n, dtype=torch.float64), torch.randn(3, n, 2, dtype=torch.float64)
        with export_formulation(), pytest.raises(RuntimeError):  # batches that do not broadcast: torch's error
            _trt_solve(*mismatched)


MODEL = '''
import torch
import torch.nn.functional as F
from torch import nn


class Warp(nn.Module):
    """A warp_perspective-like model: a 3x3 homography per image, inverted in forward."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 9, 1)

    def forward(self, x):
        b, _, h, w = x.shape
        homography = self.conv(x).mean((2, 3)).reshape(b, 3, 3) * 0.1 + torch.eye(3)
        dst_to_src = torch.inverse(homography)
        ys = torch.arange(h, dtype=x.dtype) / (h - 1) * 2 - 1
        xs = torch.arange(w, dtype=x.dtype) / (w - 1) * 2 - 1
        grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
        points = torch.stack([grid_x, grid_y, torch.ones_like(grid_x)], -1).reshape(1, h * w, 3)
        warped = points @ dst_to_src.transpose(1, 2)
        grid = (warped[..., :2] / warped[..., 2:]).reshape(b, h, w, 2)
        return F.grid_sample(x, grid, align_corners=True)


def build():
    torch.manual_seed(0)
    return Warp().eval()
'''


def test_migrate_fixes_a_small_warp_model(tmp_path) -> None:
    path = tmp_path / "warp_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT338"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        dst_to_src = _trt_inverse(homography)" in report["diff"]


TPS_MODEL = '''
import torch
import torch.nn.functional as F
from torch import nn


def radial(d2):
    return d2 * torch.log(d2 + 1e-9)


class Spline(nn.Module):
    """A thin-plate spline warp: control points moved by a small network, the (k + 3)-square system solved in
    forward against one right-hand side of shape (1, k + 3, 2), the image resampled through it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 1)
        ys, xs = torch.meshgrid(torch.linspace(-0.8, 0.8, 2), torch.linspace(-0.8, 0.8, 3), indexing="ij")
        self.register_buffer("points", torch.stack([xs, ys], -1).reshape(1, 6, 2))

    def forward(self, x):
        b, _, h, w = x.shape
        moved = self.points + 0.05 * torch.tanh(self.conv(x).mean((2, 3))).reshape(b, 6, 2)
        k = moved.shape[1]
        kernel = radial(((moved[:, :, None] - moved[:, None]) ** 2).sum(-1))
        affine = torch.cat([torch.ones_like(moved[..., :1]), moved], -1)
        top = torch.cat([kernel, affine], -1)
        bottom = torch.cat([affine.transpose(1, 2), torch.zeros_like(kernel[:, :3, :3])], -1)
        system = torch.cat([top, bottom], 1)
        target = torch.cat([self.points, torch.zeros(1, 3, 2)], 1)
        weights = torch.linalg.solve(system, target)
        ys = torch.arange(h, dtype=x.dtype) / (h - 1) * 2 - 1
        xs = torch.arange(w, dtype=x.dtype) / (w - 1) * 2 - 1
        grid = torch.stack(torch.meshgrid(xs, ys, indexing="xy"), -1).reshape(1, h * w, 2)
        near = radial(((grid[:, :, None] - moved[:, None]) ** 2).sum(-1))
        flat = torch.cat([torch.ones_like(grid[..., :1]), grid], -1)
        warped = near @ weights[:, :k] + flat @ weights[:, k:]
        return F.grid_sample(x, warped.reshape(b, h, w, 2), align_corners=True)


def build():
    torch.manual_seed(0)
    return Spline().eval()
'''


def test_migrate_fixes_a_thin_plate_spline_that_exports_at_other_sizes(tmp_path) -> None:
    path = tmp_path / "spline_model.py"
    path.write_text(TPS_MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT338"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        weights = _trt_solve(system, target)" in report["diff"]
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    before = import_source(TPS_MODEL, tmp_path / "before")
    after = import_source(rewrite(TPS_MODEL, select=("TRT338",), unsafe=True), tmp_path / "after")
    original, rewritten = before["build"](), after["build"]()
    rewritten.load_state_dict(original.state_dict())
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, (torch.rand(2, 3, 16, 20),), buffer, dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
    graph = onnx.load_from_string(buffer.getvalue())
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for shape in ((1, 3, 24, 24), (5, 3, 9, 31)):
        x = torch.rand(*shape, generator=torch.Generator().manual_seed(shape[0]))
        with torch.no_grad():
            want = original(x)
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        assert got.shape == want.shape
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (shape, (got - want).abs().max())


# --- determinants: ONNX Det, which TensorRT does not parse ----------------------------------------------

DET_SOURCE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, m):
        return torch.det(m), torch.linalg.det(m) * 2, m.det(), torch.logdet(m), m.logdet()
'''


def test_determinants_rewrite_text_and_what_is_left() -> None:
    assert rules_found(DET_SOURCE, select=("TRT338",)) == ["TRT338"] * 5
    after = strip_helpers(rewrite(DET_SOURCE, select=("TRT338",), unsafe=True))
    assert "return _trt_det(m), _trt_det(m) * 2, _trt_det(m), _trt_logdet(m), _trt_logdet(m)" in after
    keyword = "import torch\ny = torch.linalg.det(A=m)\n"
    assert "y = _trt_det(m)" in rewrite(keyword, select=("TRT338",), unsafe=True)
    left = ("import torch\n"
            "def f(a, b, scene):\n"
            "    torch.linalg.det(a, out=b)\n"
            "    return scene.det(a), torch.linalg.slogdet(a)\n")
    assert rules_found(left, select=("TRT338",)) == ["TRT338"]  # `out=`: reported, not rewritten
    assert rewrite(left, select=("TRT338",), unsafe=True) == left


@pytest.fixture(scope="module")
def det_programs(tmp_path_factory):
    before = import_source(DET_SOURCE, tmp_path_factory.mktemp("det_before"))
    after = import_source(rewrite(DET_SOURCE, select=("TRT338",), unsafe=True), tmp_path_factory.mktemp("det_after"))
    return before, after


def test_determinants_in_eager_mode_are_the_original(det_programs) -> None:
    before, after = det_programs
    for n in (1, 2, 3, 4, 5, 9):
        for dtype in (torch.float32, torch.float64):
            m = _matrices(3, n, dtype).requires_grad_(True)
            assert_same_run(run_once(before["M"](), [m]), run_once(after["M"](), [m]), context=f"{n} {dtype}")
    for m in (torch.zeros(2, 3, 3), -torch.eye(3).expand(2, 3, 3), torch.empty(0, 3, 3),  # 0, negative, empty
              torch.full((1, 2, 2), float("nan")), torch.randn(2, 3, 4),                  # NaN; not square
              torch.eye(3, dtype=torch.float16)[None], torch.randint(0, 3, (2, 3, 3))):    # torch's errors
        assert_same_run(run_once(before["M"](), [m]), run_once(after["M"](), [m]))


class _Det(torch.nn.Module):
    def __init__(self, program) -> None:
        super().__init__()
        self.program = program()

    def forward(self, m):
        return self.program(m)


def _export_det(model: torch.nn.Module, example: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["m"],
                          dynamic_axes={"m": {0: "batch"}})
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_the_determinants_export_without_det_and_match_torch(det_programs, n) -> None:
    before, after = det_programs
    original = _export_det(_Det(before["M"]), _matrices(2, n))
    assert "Det" in {node.op_type for node in original.graph.node}
    assert [i for i in check_graph(original) if i.severity == "error"]  # TensorRT refuses the original's Det
    graph = _export_det(_Det(after["M"]), _matrices(2, n))
    assert "Det" not in {node.op_type for node in graph.graph.node}
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for batch, sign in ((1, 1.0), (5, -1.0)):
        # a row swapped: a negative determinant, whose logarithm is NaN in both
        m = _matrices(batch, n, seed=batch) * torch.tensor([sign] + [1.0] * (n - 1))[:, None]
        got = [torch.from_numpy(o) for o in session.run(None, {"m": m.numpy()})]
        want = before["M"]()(m)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            assert torch.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True), (n, batch, g, w)
    singular = torch.zeros(1, n, n)
    got = session.run(None, {"m": singular.numpy()})
    assert got[0].tolist() == [0.0] and got[3].tolist() == [float("-inf")]  # as torch: det 0, logdet -inf
