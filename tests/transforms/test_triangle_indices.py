"""TRT383: ``torch.triu_indices`` / ``torch.tril_indices`` have no TorchScript ONNX symbolic, so the export stops.

The rewrite is checked as text (the spellings taken, the defaults written out, what is left alone), then run: the
helper's traced formulation equals torch's call on a grid of row and column counts (0 to 5) and offsets (-7 to 7),
for both triangles and both dtypes; the rewritten program is torch's call in eager mode (values, dtype, device,
exceptions) and under scripting, fx, ``torch.compile`` and ``torch.export``. Exported: the original's export stops at
``aten::triu_indices``, the rewritten one exports with dynamic sizes and equals torch in ONNX Runtime at other sizes,
and still stops where torch stops. ``migrate`` ties TRT383 to the export failure at its line and ends at exit 0 on a
small all-pairs distance model (torchani 2.9.0's ``neighbors.py:214`` spelling).
"""

from __future__ import annotations

import io
import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found

from trtcodemod.helpers.triangles import _trt_triangle_indices_traced, _trt_tril_indices, _trt_triu_indices
from trtcodemod.migrate.locate import _rules_named
from trtcodemod.trt.check import RULES

SELECT = ("TRT383",)


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\nidx = torch.triu_indices(atoms, atoms, 1, device=device)\n",
     "idx = _trt_triu_indices(atoms, atoms, 1, None, device)\n"),
    ("import torch\nidx = torch.triu_indices(n, m)\n", "idx = _trt_triu_indices(n, m, 0, None, None)\n"),
    ("import torch\nidx = torch.tril_indices(row=n, col=n, offset=-1, dtype=torch.int32)\n",
     "idx = _trt_tril_indices(n, n, -1, torch.int32, None)\n"),
    ("from torch import tril_indices as tri\nidx = tri(n, n, device=x.device, dtype=torch.long)\n",
     "idx = _trt_tril_indices(n, n, 0, torch.long, x.device)\n"),
    ("import torch as t\nidx = t.triu_indices(x.shape[1], x.shape[1], offset=k)\n",
     "idx = _trt_triu_indices(x.shape[1], x.shape[1], k, None, None)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=SELECT)
    assert after.endswith(want), after
    assert "def _trt_triangle_indices_traced" in after and "def _trt_onnx_exporting" in after
    assert rules_found(after, select=SELECT) == []


@pytest.mark.parametrize("code", [
    "import torch\nidx = torch.triu_indices(n, n, 1, layout=torch.strided)\n",
    "import torch\nidx = torch.triu_indices(n, n, 1, pin_memory=False)\n",
    "import torch\nidx = torch.triu_indices(*size)\n",
    "import torch\nidx = torch.triu_indices(**kw)\n",
    "import torch\nidx = torch.triu(x)\n",
    "def triu_indices(n, m):\n    return n\nidx = triu_indices(3, 3)\n",  # a function of the file's own
    "from mylib import tril_indices\nidx = tril_indices(3, 3)\n",
    "import numpy as np\nidx = np.triu_indices(3, 1)\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=SELECT) == []


def test_the_export_failure_names_trt383() -> None:
    assert RULES["aten::triu_indices"] == RULES["aten::tril_indices"] == ("TRT383",)


# --- the formulation: exact on a grid ------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_the_traced_formulation_is_torchs_on_a_grid(upper: bool, dtype: torch.dtype) -> None:
    """Every row and column count 0..5 (row != col, 0 rows, 0 columns) and offset -7..7 (past either edge)."""
    torch_call = torch.triu_indices if upper else torch.tril_indices
    for row, col, offset in itertools.product(range(6), range(6), range(-7, 8)):
        want = torch_call(row, col, offset, dtype=dtype)
        got = _trt_triangle_indices_traced(row, col, offset, dtype, None, upper)
        assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want), (row, col, offset)


# --- eager mode and the other toolchains: torch's call -------------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, coords: torch.Tensor):
        atoms = coords.shape[1]
        pairs = torch.triu_indices(atoms, atoms, 1, device=coords.device)
        lower = torch.tril_indices(atoms, coords.shape[2], offset=-1, dtype=torch.int32)
        return coords[:, pairs[0]] - coords[:, pairs[1]], lower, torch.triu_indices(atoms, 2, -3)
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt383")
    after = rewrite(PROGRAM, select=SELECT)
    assert after.count("_trt_triu_indices(") == 1 + 2 and after.count("_trt_tril_indices(") == 1 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


EAGER_CASES = {
    "some atoms": [torch.randn(1, 5, 3, requires_grad=True)],
    "one atom": [torch.randn(2, 1, 3)],
    "no atoms": [torch.randn(1, 0, 3)],
    "wide": [torch.randn(1, 3, 7, dtype=torch.float64)],
    "inf-nan": [torch.tensor([[[float("inf"), 0.0, -0.0], [float("nan"), 1.0, 2.0]]])],
}


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    before, after = program[0](), program[1]()
    assert_same_run(run_once(before, EAGER_CASES[label]), run_once(after, EAGER_CASES[label]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(1, 4, 3)], tmp_path, original_may_fail=True)


def test_the_helper_is_torch_outside_the_export_and_scripts() -> None:
    for helper, torch_call in ((_trt_triu_indices, torch.triu_indices), (_trt_tril_indices, torch.tril_indices)):
        for args in ((4, 4, 1, None, None), (3, 5, -2, torch.int32, torch.device("cpu")), (0, 2, 0, None, None)):
            row, col, offset, dtype, device = args
            want = torch_call(row, col, offset, dtype=torch.int64 if dtype is None else dtype, device=device)
            for got in (helper(*args), torch.jit.script(helper)(*args)):
                assert got.dtype == want.dtype and got.device == want.device and torch.equal(got, want), args
        for bad in ((-1, 3, 0, None, None), (3, 3, 0, torch.float32, None)):
            with pytest.raises((RuntimeError, NotImplementedError)):
                helper(*bad)
    traced = torch.jit.trace(lambda x: _trt_triu_indices(x.shape[0], x.shape[0], 1, None, None), (torch.zeros(3),))
    assert any(node.kind() == "aten::triu_indices" for node in traced.graph.nodes())  # a trace alone: torch's call


# --- the export --------------------------------------------------------------------------------------------------

class Pairs(nn.Module):
    def __init__(self, triu, tril) -> None:
        super().__init__()
        self.triu, self.tril = triu, tril

    def forward(self, x):
        n, m = x.shape[0], x.shape[1]
        return (self.triu(n, n, 1, None, x.device), self.tril(n, m, -1, torch.int32, None),
                self.triu(n, m, 2, torch.int64, None), self.tril(m, n, 3, None, None))


def _torch_triu(row, col, offset, dtype, device):
    return torch.triu_indices(row, col, offset, dtype=torch.int64 if dtype is None else dtype, device=device)


def _torch_tril(row, col, offset, dtype, device):
    return torch.tril_indices(row, col, offset, dtype=torch.int64 if dtype is None else dtype, device=device)


def _export(model: nn.Module, x: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 1: "m"}})
    return buffer.getvalue()


@pytest.mark.parametrize("original", [_torch_triu, _torch_tril])
def test_the_originals_export_stops_at_the_operator(original) -> None:
    name = original.__name__[len("_torch_"):]
    model = Pairs(original, _torch_tril) if name == "triu" else Pairs(_trt_triu_indices, original)
    with pytest.raises(Exception, match=f"aten::{name}_indices") as error:
        _export(model, torch.zeros(5, 3))
    assert _rules_named(str(error.value)) == ["TRT383"]  # migrate's export failure names the rule


def test_the_rewritten_graph_follows_the_sizes_and_equals_torch() -> None:
    graph = _export(Pairs(_trt_triu_indices, _trt_tril_indices), torch.zeros(5, 3))
    ops = {node.op_type for node in onnx.load_from_string(graph).graph.node}
    assert "Range" in ops and "NonZero" in ops and not ops & {"If", "Loop", "ATen"}, ops
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    reference = Pairs(_torch_triu, _torch_tril)
    for n, m in [(5, 3), (0, 3), (3, 0), (1, 1), (2, 9), (9, 2), (17, 17), (40, 7)]:
        x = torch.zeros(n, m)
        for got, want in zip(session.run(None, {"x": x.numpy()}), reference(x)):
            assert got.dtype == want.numpy().dtype and np.array_equal(got, want.numpy()), (n, m)


def test_the_export_bakes_nothing() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(Pairs(_trt_triu_indices, _trt_tril_indices), (torch.zeros(4, 3),), io.BytesIO(),
                          dynamo=False, opset_version=17, input_names=["x"], dynamic_axes={"x": {0: "n", 1: "m"}})
    tracer = [str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    assert not tracer, tracer


def test_the_export_stops_where_torch_does() -> None:
    class Bad(nn.Module):
        def forward(self, x):
            return _trt_triu_indices(x.shape[0], x.shape[0], 0, torch.float32, None)

    with pytest.raises(NotImplementedError):
        _export(Bad(), torch.zeros(3, 2))


# --- migrate -------------------------------------------------------------------------------------------------------

MODEL = '''import torch
from torch import nn


class AllPairs(nn.Module):
    """torchani 2.9.0's all-pairs neighbour list (torchani/neighbors.py:214) for one molecule: every pair once."""

    def forward(self, coords):
        atoms = coords.shape[1]
        device = coords.device
        neighbor_idxs = torch.triu_indices(atoms, atoms, 1, device=device)
        diff = coords[:, neighbor_idxs[0]] - coords[:, neighbor_idxs[1]]
        return diff.pow(2).sum(-1)


def build():
    return AllPairs().eval()


def inputs(generator=None):
    return (torch.randn(1, 6, 3, generator=generator),)
'''


def test_migrate_applies_trt383_and_ends_at_exit_0(tmp_path: Path) -> None:
    path = tmp_path / "all_pairs.py"
    path.write_text(MODEL)
    report = migrate_json(path, json.dumps({"coords": {"1": "atoms"}}), "-j", "1")
    assert report["before"]["exported"] is False, report["before"]
    line = [i for i, text in enumerate(MODEL.splitlines(), 1) if "torch.triu_indices(" in text][0]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT383", line) in applied, applied
    assert report["after"]["faithful"] is True, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
