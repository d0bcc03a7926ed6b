"""TRT388: a tensor written through a subscript and broadcast there, expanded to the part's run-time shape.

The rewrite is checked as text (the forms taken, and what is left alone: a number, an index that may be a
tensor, a subscript with a call or a new axis, a value not visibly a tensor), then run: eager mode is the
same on real tensors with zeros, negatives, inf/NaN and empty axes (a value that does not broadcast raises
as before); the same under scripting, fx, ``torch.compile`` and ``torch.export``; the original's
TorchScript export fails in ONNX Runtime at another size of a dynamic axis, the rewritten one equals eager
mode at every size. ``migrate`` applies it where the graph fails to run.
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

from trtcodemod.helpers.broadcasting import _trt_broadcast_written

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x: torch.Tensor, y: torch.Tensor):\n"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, select=("TRT388",))


@pytest.mark.parametrize(("body", "want"), [
    ("        x[..., 2] = y.sum(-1, keepdim=True)\n        return x\n",
     "        x[..., 2] = _trt_broadcast_written(y.sum(-1, keepdim=True), x[..., 2])\n"),
    ("        out = x.clone()\n        out[:, 1:3] = y[:1, :1]\n        return out\n",
     "        out[:, 1:3] = _trt_broadcast_written(y[:1, :1], out[:, 1:3])\n"),
    ("        for i in range(2):\n            x[i, :, -1] = torch.arange(x.shape[1])[:, None]\n        return x\n",
     "            x[i, :, -1] = _trt_broadcast_written(torch.arange(x.shape[1])[:, None], x[i, :, -1])\n"),
    ("        self.cache[:, :2] = y.float()\n        return x\n",
     "        self.cache[:, :2] = _trt_broadcast_written(y.float(), self.cache[:, :2])\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert want in after, after
    assert "def _trt_broadcast_written(" in after
    assert rules_found(after, select=("TRT388",)) == []


@pytest.mark.parametrize("body", [
    "        x[..., 2] = 0.5\n        return x\n",  # a number: written as a fill
    "        x[y > 0] = y[:1]\n        return x\n",  # an index that is a tensor
    "        x[:, y.argmax()] = y\n        return x\n",  # a call in the index
    "        x[:, None, 0] = y\n        return x\n",  # a new axis: TRT355's
    "        x[..., 2] = 3\n        return x\n",
    "        z = [1, 2]\n        z[0] = len(z)\n        return x\n",  # not visibly a tensor
    "        x[:, 0] = _trt_broadcast_written(y, x[:, 0])\n        return x\n",
])
def test_other_code_is_left_alone(body: str) -> None:
    code = HEAD + body
    assert rules_found(code, select=("TRT388",)) == []
    assert _fixed(body) == code


def test_the_rule_is_opt_in() -> None:
    code = HEAD + "        x[..., 2] = y.sum(-1, keepdim=True)\n        return x\n"
    assert "TRT388" not in rules_found(code, select=("ALL",))
    assert rules_found(code, select=("TRT388",)) == ["TRT388"]


def test_the_helper_is_the_value_outside_an_export() -> None:
    value, written = torch.randn(3, 1), torch.zeros(3, 4)
    assert _trt_broadcast_written(value, written) is value
    assert _trt_broadcast_written(2.0, written) == 2.0
    scripted = torch.jit.script(_trt_broadcast_written)
    assert scripted(value, written) is value


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        out = x.clone() * 2
        out[..., 0] = x.sum(-1, keepdim=True)
        out[:1, 1:] = x[:1, :1]
        return out
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt388")
    after = rewrite(PROGRAM, select=("TRT388",))
    assert after.count("_trt_broadcast_written(") == 2 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, strides, gradients and exceptions (a 0-d input has no axis to index: both raise)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4, 5)], tmp_path, original_may_fail=True)


LANES = """import torch
from torch import nn


class Lanes(nn.Module):
    def forward(self, x: torch.Tensor):
        lanes = (x.shape[1] - 8) // 4
        mid = x[:, 8:8 + lanes].clone()
        mid[..., 2] = (x[:, 8:8 + lanes, :1, 3] * 5).floor().clamp(max=4)
        return mid
"""


def _session(model: nn.Module, example: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "elements", 2: "points"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_export_follows_every_size_only_after(tmp_path: Path) -> None:
    """Urban Driver's per-lane traffic-light state written into every point of the lane (zoo 52's wrapper)."""
    before = import_source(LANES, tmp_path)["Lanes"]()
    after = import_source(rewrite(LANES, select=("TRT388",)), tmp_path)["Lanes"]()
    example = torch.rand(1, 24, 4, 4)
    with pytest.raises(Exception, match="Reshape|reshape"):
        _session(before, example).run(None, {"x": torch.rand(3, 48, 4, 4).numpy()})
    session = _session(after, example)
    specials = torch.rand(2, 16, 5, 4)
    specials[0, 9, :, 3] = float("nan")
    specials[1, 10, 0, 3] = float("inf")
    for x in (example, torch.rand(3, 48, 4, 4), torch.rand(2, 12, 1, 4), -torch.rand(1, 40, 6, 4),
              torch.zeros(2, 8, 3, 4), specials):
        got = session.run(None, {"x": x.numpy()})[0]
        want = before(x)
        assert got.shape == tuple(want.shape), (tuple(x.shape), got.shape)
        assert np.allclose(got, want.numpy(), equal_nan=True), tuple(x.shape)


MODEL = LANES + """

def build() -> nn.Module:
    return Lanes().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 24, 4, 4, generator=generator),)
"""


def test_migrate_applies_the_rule_where_the_graph_fails_to_run(tmp_path: Path) -> None:
    path = tmp_path / "lanes.py"
    path.write_text(MODEL)
    line = MODEL.splitlines().index("        mid[..., 2] = (x[:, 8:8 + lanes, :1, 3] * 5).floor().clamp(max=4)") + 1
    report = migrate_json(path, '{"x": {"0": "batch", "1": "elements"}}')
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT388", line) in applied, (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
