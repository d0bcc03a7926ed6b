"""TRT367: ``view``/``reshape`` to sizes read at run time, exported so that a size of 0 stays 0.

The rewrite is checked as text (the forms taken, and what is left alone: literal sizes, a dtype, a shape
held whole, a result written in place), then run: eager mode is the same on real tensors with zeros,
negatives, inf/NaN, empty and 0-d tensors (a count that does not match raises as before); the same under
scripting, fx, ``torch.compile`` and ``torch.export``; the original's TorchScript export of a reshape to
an empty axis fails in ONNX Runtime, the rewritten one equals eager mode at every size, empty or not.
The real form (stereo_matching's IGEV++ cost volume) is ``tests/recipe_variants/trt367/``, migrated here.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found
from variant_models import axes_json, line_of, load_variant

from trtcodemod.helpers.reshaping import _trt_reshape_sizes

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, y):\n"
VARIANT = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt367" / "igevpp_groupwise_volume.py"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, select=("TRT367",))


@pytest.mark.parametrize(("body", "want"), [
    ("        b, c, h, w = x.shape\n        return (x * y).view(b, 2, c // 2, h, w)\n",
     "        return _trt_reshape_sizes(x * y, [b, 2, c // 2, h, w], False)\n"),
    ("        return x.reshape(x.shape[0], -1)\n", "        return _trt_reshape_sizes(x, [x.shape[0], -1], True)\n"),
    ("        return x.view((x.size(0), 3, -1))\n", "        return _trt_reshape_sizes(x, [x.size(0), 3, -1], False)\n"),
    ("        n = x.size(1)\n        return y[0].reshape([n, n]).sum()\n",
     "        return _trt_reshape_sizes(y[0], [n, n], True).sum()\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert after.endswith(want), after
    assert "def _trt_reshape_sizes(" in after
    assert rules_found(after, select=("TRT367",)) == []


@pytest.mark.parametrize("body", [
    "        return x.view(2, -1)\n",  # literal sizes: the graph holds constants, never a run-time 0
    "        return x.view(torch.float16)\n",  # a dtype
    "        return x.view(y.shape)\n",  # a shape held whole
    "        return x.reshape(*y.shape)\n",
    "        return torch.reshape(x, (x.size(0), -1))\n",
    "        z = x.view(x.size(0), -1)\n        z[0] = 1\n        return x\n",  # a write through the view
    "        z = x.view(x.size(0), -1)\n        z.add_(1)\n        return x\n",
    "        z = x.view(x.size(0), -1)\n        z += 1\n        return x\n",
])
def test_other_code_is_left_alone(body: str) -> None:
    code = HEAD + body
    assert rules_found(code, select=("TRT367",)) == []
    assert _fixed(body) == code


def test_the_rule_is_opt_in() -> None:
    code = HEAD + "        return x.view(x.size(0), -1)\n"
    assert "TRT367" not in rules_found(code, select=("ALL",))
    assert rules_found(code, select=("TRT367",)) == ["TRT367"]


def test_the_helper_is_the_call_outside_an_export() -> None:
    x = torch.randn(2, 3, 4)
    view = _trt_reshape_sizes(x, [2, -1], False)
    assert view.shape == (2, 12) and view.data_ptr() == x.data_ptr() and view._base is x
    t = x.transpose(1, 2)
    with pytest.raises(RuntimeError):
        _trt_reshape_sizes(t, [2, -1], False)  # a view of strides that do not allow it raises as `view` does
    assert torch.equal(_trt_reshape_sizes(t, [2, -1], True), t.reshape(2, -1))
    with pytest.raises(RuntimeError):
        _trt_reshape_sizes(x, [5, -1], True)
    scripted = torch.jit.script(_trt_reshape_sizes)
    assert torch.equal(scripted(x, [4, 6], True), x.reshape(4, 6))


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        rows = x.shape[0]
        flat = x.reshape(rows, -1) if x.dim() > 0 else x.reshape(1, 1)
        cols = flat.shape[1]
        return flat.view(cols, rows) * 2, flat.reshape((1, rows, cols)) + 1
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt367")
    after = rewrite(PROGRAM, select=("TRT367",))
    assert after.count("_trt_reshape_sizes(") == 3 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, strides, gradients, aliasing and exceptions (a transposed input cannot be viewed)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4, 5)], tmp_path, original_may_fail=True)


def _export(model: nn.Module, example: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {2: "height", 3: "width"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


class ShiftedCorrelations(nn.Module):
    """The variant's correlation at each of 12 disparities, returned one by one (no volume written)."""

    def __init__(self, correlation) -> None:
        super().__init__()
        self.correlation = correlation

    def forward(self, x):
        left, right = x[:, :3], x[:, 3:]
        outs = [self.correlation(left, right, 3)]
        for idx in range(1, 12):
            outs.append(self.correlation(left[:, :, :, idx:], right[:, :, :, :-idx], 3))
        return tuple(outs)


def test_the_export_keeps_an_empty_axis_only_after(tmp_path: Path) -> None:
    """IGEV++'s correlation over 12 disparities: at 12 columns or fewer some shifted slices are empty."""
    module = load_variant(VARIANT, "trt367_export")
    rewritten = import_source(rewrite(VARIANT.read_text(), select=("TRT367",)), tmp_path)
    before = ShiftedCorrelations(module.groupwise_correlation)
    after = ShiftedCorrelations(rewritten["groupwise_correlation"])
    example = module.inputs(torch.Generator().manual_seed(0))[0]
    with pytest.raises(Exception, match="Reshape|reshape"):
        _export(before, example).run(None, {"x": example.numpy()})
    session = _export(after, example)
    specials = torch.rand(1, 6, 5, 9)
    specials[0, :, 1, 2] = float("nan")
    specials[0, :, 2, 3] = float("inf")
    specials[0, :, 3, 4] = -float("inf")
    cases = (example, torch.rand(1, 6, 3, 12), torch.rand(1, 6, 7, 13), torch.rand(1, 6, 1, 1), torch.zeros(1, 6, 2, 5),
             -torch.rand(1, 6, 4, 11), specials)
    for x in cases:
        got = session.run(None, {"x": x.numpy()})
        want = before(x)
        for a, b in zip(got, want):
            assert a.shape == tuple(b.shape), (tuple(x.shape), a.shape, tuple(b.shape))
            assert np.allclose(a, b.numpy(), atol=1e-6, equal_nan=True), tuple(x.shape)


def test_migrate_applies_the_rule_where_the_graph_fails_to_run() -> None:
    """The view is fixed and verified; the volume's write into ``volume[:, :, idx, :, idx:]``, empty where
    ``idx`` passes the width, is what stops the graph next (the exporter's own ``Reshape`` of the write), and
    TRT369's full-width planes, a candidate, fix it: both verified, exit 0."""
    module = load_variant(VARIANT, "trt367_migrate")
    line = line_of(VARIANT, "cost = (fea1 * fea2).view(")
    loop = line_of(VARIANT, "if idx > 0:")
    report = migrate_json(VARIANT, axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT367", line) in applied and ("TRT369", loop) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert not [r for r in report["remaining"] if r["kind"] == "unfaithful" and r["severity"] == "error"]
