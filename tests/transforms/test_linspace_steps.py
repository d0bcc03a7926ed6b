"""TRT368: ``torch.linspace`` with a run-time number of steps, exported without 0/0 at one step.

The rewrite is checked as text (the forms taken, and what is left alone: a literal count, an integer
dtype, ``out=``), then run: eager mode is the same for counts of 0, 1, 2 and more, negative and reversed
ranges, float dtypes, gradients and the errors of a negative count; the same under scripting, fx,
``torch.compile`` and ``torch.export``; the original's TorchScript export is NaN (the most negative
int64 after ``.long()``) at one step, the rewritten one equals eager mode at every count. The real form
(stereo_matching's S2M2 relative positional encoding) is ``tests/recipe_variants/trt368/``, migrated here.
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

from trtcodemod.helpers.spacing import _trt_linspace

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, y):\n"
VARIANT = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt368" / "s2m2_relative_pe.py"


@pytest.mark.parametrize(("body", "want"), [
    ("        h = x.shape[-2] // 8\n        return torch.linspace(0, h - 1, h).long()\n",
     "        return _trt_linspace(0, h - 1, h).long()\n"),
    ("        return torch.linspace(-3, 3, 2 * x.size(1) + 1, dtype=torch.float16)\n",
     "        return _trt_linspace(-3, 3, 2 * x.size(1) + 1, dtype=torch.float16)\n"),
    ("        return torch.linspace(0, 1, steps=x.shape[0], device=x.device)\n",
     "        return _trt_linspace(0, 1, steps=x.shape[0], device=x.device)\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = rewrite(HEAD + body, select=("TRT368",))
    assert after.endswith(want), after
    assert "def _trt_linspace(" in after
    assert rules_found(after, select=("TRT368",)) == []


@pytest.mark.parametrize("body", [
    "        return torch.linspace(0, 1, 5)\n",  # a literal count: a constant of the graph
    "        return torch.linspace(0, 10, x.shape[0], dtype=torch.long)\n",  # an integer dtype rounds otherwise
    "        return torch.linspace(0, 1, x.shape[0], out=y)\n",
    "        return torch.linspace(*y)\n",
])
def test_other_code_is_left_alone(body: str) -> None:
    code = HEAD + body
    assert rules_found(code, select=("TRT368",)) == []


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        n = x.shape[0]
        a = torch.linspace(0, n - 1, n)
        b = torch.linspace(x.shape[-1], -2.5, 2 * n + 1, dtype=torch.float64)
        c = torch.linspace(-1, 1, x.shape[-1], requires_grad=True)
        return a.long(), b, c * 2
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt368")
    after = rewrite(PROGRAM, select=("TRT368",))
    assert after.count("_trt_linspace(") == 3 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, gradients and exceptions (a 0-d tensor has no first size)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    assert_same_run(run_once(before, [x]), run_once(after, [x]), context=label)


def test_the_helper_is_linspace_outside_an_export() -> None:
    for steps in (0, 1, 2, 7):
        for start, end in ((0, steps - 1), (3.5, -2.0), (-1, 1)):
            want = torch.linspace(start, end, steps)
            got = _trt_linspace(start, end, steps)
            assert got.dtype == want.dtype and torch.equal(got, want)
    assert _trt_linspace(0, 1, 3, dtype=torch.float64).dtype == torch.float64
    assert _trt_linspace(0, 1, 3, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        _trt_linspace(0, 1, -1)
    scripted = torch.jit.script(_trt_linspace)
    assert torch.equal(scripted(0.0, 1.0, 4), torch.linspace(0, 1, 4))


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4, 5)], tmp_path, original_may_fail=True)


class Positions(nn.Module):
    def __init__(self, linspace) -> None:
        super().__init__()
        self.linspace = linspace

    def forward(self, x):
        h = x.shape[-2] // 8
        return self.linspace(0, h - 1, h).long(), self.linspace(-3, 3, 2 * h + 1), self.linspace(x.shape[-1], 0, h)


def _export(model: nn.Module, example: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {2: "height", 3: "width"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_export_is_right_at_one_step_only_after() -> None:
    example = torch.rand(1, 2, 16, 5)
    one_step = torch.rand(1, 2, 9, 3)
    before = _export(Positions(torch.linspace), example).run(None, {"x": one_step.numpy()})
    assert before[0][0] == np.iinfo(np.int64).min and np.isnan(before[2]).all()
    session = _export(Positions(_trt_linspace), example)
    for x in (example, one_step, torch.rand(1, 2, 8, 1), torch.rand(1, 2, 47, 6), torch.rand(1, 2, 3, 4)):
        got = session.run(None, {"x": x.numpy()})
        want = Positions(torch.linspace)(x)
        for a, b in zip(got, want):
            assert a.shape == tuple(b.shape) and a.dtype == b.numpy().dtype, (tuple(x.shape), a.shape, b.shape)
            assert np.allclose(a, b.numpy(), atol=1e-6), tuple(x.shape)


def test_migrate_applies_the_rule_where_the_gather_fails() -> None:
    module = load_variant(VARIANT, "trt368_migrate")
    line = line_of(VARIANT, "grid_y, grid_x = torch.meshgrid(torch.linspace(")
    report = migrate_json(VARIANT, axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT368", line) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
