"""TRT314: ``x.mT`` becomes ``_trt_mT(x)``: ``x.mT`` itself outside an ONNX export, ``x.transpose(-2, -1)``
while exporting.

The rewrite text and what is left alone; the export form against ``mT`` on real tensors (the same
view: shape, strides, storage offset, storage; gradients; fewer than two axes keep ``mT``'s error);
eager runs and the toolchains before and after; and a descriptor-matching head (DeDoDe's
similarity, reduced) whose TorchScript export stops at ``aten::mT`` before the rewrite, and after
it exports with both exporters and equals eager mode at other sizes, infinities and NaN included.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_json, rewrite, rules_found

from trtcodemod.helpers.transposing import _trt_mT


@pytest.mark.parametrize(("code", "want"), [
    ("y = a @ b.mT\n", "y = a @ _trt_mT(b)\n"),
    ("y = (a + b).mT.contiguous()\n", "y = _trt_mT(a + b).contiguous()\n"),
    ("y = self.proj.weight.mT\n", "y = _trt_mT(self.proj.weight)\n"),
    ("y = f(a)[0].mT\n", "y = _trt_mT(f(a)[0])\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite("import torch\n\n\n" + code, select=("TRT314",))
    assert after.endswith(want), after
    assert "def _trt_mT(" in after


@pytest.mark.parametrize("code", [
    "y = a.mH\n",  # the conjugate transpose
    "y = np.mT\n",  # a module's attribute
    "y = a.T\n",
    "y = a.transpose(-2, -1)\n",
])
def test_left_alone(code: str) -> None:
    source = "import numpy as np\nimport torch\n\n\n" + code
    assert "TRT314" not in rules_found(source)
    assert rewrite(source, select=("TRT314",)) == source


@pytest.mark.parametrize("x", [torch.randn(3, 4), torch.randn(2, 3, 4).transpose(0, 2), torch.randn(2, 5, 6)[:, 1:, ::2],
                               torch.zeros(0, 3, 2), torch.randn(4, 4).contiguous(memory_format=torch.contiguous_format)])
def test_the_export_form_is_the_same_view(x: torch.Tensor) -> None:
    with export_formulation():
        got = _trt_mT(x)
    expected = x.mT
    assert got.shape == expected.shape and got.stride() == expected.stride()
    assert got.storage_offset() == expected.storage_offset()
    assert got.untyped_storage().data_ptr() == expected.untyped_storage().data_ptr() and torch.equal(got, expected)


def test_fewer_axes_and_other_objects_keep_mT() -> None:
    for value in (torch.randn(3), torch.tensor(1.0)):
        try:
            expected: object = value.mT
        except RuntimeError as error:  # torch 2.13 still allows mT of fewer axes, with a warning
            with export_formulation(), pytest.raises(RuntimeError, match=str(error)[:20]):
                _trt_mT(value)
            continue
        with export_formulation():
            got = _trt_mT(value)
        assert torch.equal(got, expected) and got.stride() == expected.stride()
    array = np.arange(6.0).reshape(2, 3)
    if hasattr(array, "mT"):  # NumPy 2
        assert np.array_equal(_trt_mT(array), array.mT)


def test_gradients_flow_through_the_export_form() -> None:
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 4, 3, dtype=torch.float64)
    (x.mT * weight).sum().backward()
    expected, x.grad = x.grad.clone(), None
    with export_formulation():
        (_trt_mT(x) * weight).sum().backward()
    assert torch.equal(x.grad, expected)


MATCHER = """\
import torch
import torch.nn.functional as F
from torch import nn


class DualSoftmax(nn.Module):
    # Mutual similarities of two descriptor sets, as DeDoDe's dual-softmax matcher computes them.

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        a, b = F.normalize(self.proj(x[:, 0]), dim=-1), F.normalize(self.proj(x[:, 1]), dim=-1)
        sim = a @ b.mT / 0.1
        return sim.softmax(-1) * sim.softmax(-2)


def build():
    torch.manual_seed(0)
    return DualSoftmax().eval()


def inputs(generator):
    return [torch.randn(1, 2, 16, 8, generator=generator)]
"""


@pytest.fixture(scope="module")
def matcher(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("matrix_transpose")
    after = rewrite(MATCHER, select=("TRT314",))
    assert "sim = a @ _trt_mT(b) / 0.1" in after
    return import_source(MATCHER, folder), import_source(after, folder)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> bytes:
    axes = {"x": {0: "n", 2: "points"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_axes=axes,
                                     verbose=False).model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"], dynamic_axes=axes)
        return buffer.getvalue()


def test_eager_runs_and_toolchains_are_unchanged(matcher: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = matcher
    for shape in [(1, 2, 16, 8), (3, 2, 5, 8), (0, 2, 4, 8)]:
        x = torch.randn(shape)
        torch.manual_seed(0)
        model_before = before["DualSoftmax"]()
        torch.manual_seed(0)
        model_after = after["DualSoftmax"]()
        assert_same_run(run_once(model_before, [x]), run_once(model_after, [x]), context=str(shape))
    x = torch.randn(2, 2, 6, 8)
    torch.manual_seed(0)
    outcomes_before = toolchain_outcomes(before["DualSoftmax"], [x], tmp_path)
    torch.manual_seed(0)
    outcomes_after = toolchain_outcomes(after["DualSoftmax"], [x], tmp_path)
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def test_the_original_does_not_export(matcher: tuple[dict, dict]) -> None:
    before, _ = matcher
    with pytest.raises(Exception, match="aten::mT"):
        _export(before["DualSoftmax"]().eval(), torch.randn(1, 2, 16, 8), dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_equals_eager_at_other_sizes(matcher: tuple[dict, dict], dynamo: bool) -> None:
    _, after = matcher
    torch.manual_seed(0)
    model = after["DualSoftmax"]().eval()
    session = ort.InferenceSession(_export(model, torch.randn(1, 2, 16, 8), dynamo), providers=["CPUExecutionProvider"])
    for shape in [(1, 2, 16, 8), (3, 2, 5, 8), (2, 2, 1, 8)]:
        x = torch.randn(shape)
        x[0, 0, 0, :2] = torch.tensor([float("inf"), float("nan")])
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=str(shape))


def test_migrate_fixes_the_export_failure_at_the_line(tmp_path: Path) -> None:
    model = tmp_path / "matcher.py"
    model.write_text(MATCHER)
    report = migrate_json(model, '{"x": {"0": "n", "2": "points"}}')
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT314", 15)]
    assert report["exit_code"] == 0 and report["equivalent"] is True
