"""TRT338 (``torch.inverse`` / ``torch.linalg.inv`` / ``torch.linalg.solve``): the adjugate over the
determinant while exporting, for 2x2, 3x3 and 4x4 matrices.

The rewrite text (function, method and solve forms, only with ``--unsafe``, what is left), eager
mode before and after (the torch functions themselves, singular matrices' errors included), the
TorchScript export at each size (the original's fails; the graph passes the TensorRT check and
gives in ONNX Runtime, at two other batch sizes, torch's inverse within rounding), what stays
unexportable (5x5) and what differs (a singular matrix), and ``migrate`` on a small
warp_perspective-like model.
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
    for n in (2, 3, 4, 5):
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


@pytest.mark.parametrize("n", [2, 3, 4])
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
            torch.onnx.export(_One(), (_matrices(2, 5),), io.BytesIO(), dynamo=False, opset_version=17)
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
