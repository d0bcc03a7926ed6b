"""TRT379: ``torch.cdist`` exports a formula eager mode does not use at 25 rows or fewer.

The rewrite is checked as text (the spellings taken, what is left alone), then run: eager mode is ``torch.cdist``
itself (values, dtypes, gradients, exceptions) on edge inputs (identical points, empty sides, batch dims that
broadcast, infinities and NaN, float64) and under scripting, fx and ``torch.compile``; ``torch.export`` records eager
mode's choice of formula at any row count (dynamic ones too, which it refused before). Exported by the TorchScript
exporter at static and dynamic row counts on both sides of 25 and compared with eager mode in ONNX Runtime: the
original's graph is wrong where it should be (identical points apart by rounding of the matrix product, with a
dynamic axis or 25 static rows), the rewritten one equals eager mode everywhere. The dynamo exporter, which had no
function for the exact path, exports the rewritten call. ``migrate`` ties the rule to wrong values at its line only.
Other finite p above 0 (an unsafe rewrite: the graph holds every difference): the original's graph sums the signed
differences (NaN), the rewritten one is eager mode's, and migrate keeps the candidate it verifies.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.helpers.distances import _trt_cdist, _trt_cdist_p, _trt_cdist_traced
from trtcodemod.migrate.locate import FAILS_TO_RUN, WRONG_VALUES, Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.trt.check import RULES


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\nr = torch.cdist(pos, pos)\n", "r = _trt_cdist(pos, pos)\n"),
    ("import torch\nd = torch.cdist(q, k, p=2.0)\n", "d = _trt_cdist(q, k)\n"),
    ("import torch\nd = torch.cdist(q, k, 2)\n", "d = _trt_cdist(q, k)\n"),
    ("import torch\nd = torch.cdist(x2=k, x1=q, p=2)\n", "d = _trt_cdist(q, k)\n"),
    ("from torch import cdist\nd = cdist(a[None], b[None]).squeeze(0)\n",
     "d = _trt_cdist(a[None], b[None]).squeeze(0)\n"),
    ("import torch as T\nd = T.cdist(a, b)\n", "d = _trt_cdist(a, b)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=("TRT379",))
    assert after.endswith(want), after
    assert "def _trt_cdist(" in after and "def _trt_cdist_traced(" in after and "def _trt_cdist_eager(" in after
    assert rules_found(after, select=("TRT379",)) == []


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\nd = torch.cdist(a, b, p=1.0)\n", "d = _trt_cdist_p(a, b, 1.0)\n"),
    ("import torch\nd = torch.cdist(a, b, 3)\n", "d = _trt_cdist_p(a, b, 3)\n"),
    ("import torch\nd = torch.cdist(x1=a, p=1.5, x2=b)\n", "d = _trt_cdist_p(a, b, 1.5)\n"),
])
def test_other_p_is_an_unsafe_rewrite(code: str, want: str) -> None:
    assert rewrite(code, select=("TRT379",)) == code
    after = rewrite(code, select=("TRT379",), unsafe=True)
    assert after.endswith(want) and "def _trt_cdist_p_traced(" in after and "def _trt_cdist_traced(" not in after, after


@pytest.mark.parametrize("code", [
    "import torch\nd = torch.cdist(a, b, 0)\n",
    "import torch\nd = torch.cdist(a, b, p=-1.0)\n",
    "import torch\nd = torch.cdist(a, b, p=float('inf'))\n",
    "import torch\nd = torch.cdist(a, b, p=self.p)\n",  # p unknown
    "import torch\nd = torch.cdist(a, b, compute_mode='use_mm_for_euclid_dist')\n",
    "import torch\nd = torch.cdist(a, b, 2.0, 'donot_use_mm_for_euclid_dist')\n",
    "import torch\nd = torch.cdist(*pair)\n",
    "import torch\nd = torch.cdist(a, **options)\n",
    "def cdist(a, b):\n    return a - b\nd = cdist(a, b)\n",  # the file's own function
    "from scipy.spatial.distance import cdist\nd = cdist(a, b)\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=("TRT379",)) == []


@pytest.mark.parametrize("p", [1.0, 1.5, 3.0])
def test_other_p_exports_eager_modes_distances(p: float) -> None:
    """The original's graph sums the signed differences (NaN where their sum is negative); the rewritten one is eager
    mode's at every size, NaN and infinities where eager mode has them; eager mode, scripted, is torch's call."""
    class Distances(nn.Module):
        def __init__(self, cdist) -> None:
            super().__init__()
            self.cdist = cdist

        def forward(self, a, b):
            return self.cdist(a, b, p)

    example = _inputs(10, 30)
    original = _export(Distances(torch.cdist), example, dynamic=True)
    rewritten = _export(Distances(_trt_cdist_p), example, dynamic=True)
    assert np.isnan(_run(original, example)).any()
    for size in [(10, 30), (3, 3), (40, 26), (0, 4)]:
        inputs = _inputs(*size)
        if size[0] > 1:
            inputs[0][0, 1], inputs[0][1, 2] = float("nan"), float("inf")
        want = torch.cdist(*inputs, p=p).numpy()
        got = _run(rewritten, inputs)
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True), size
        eager = torch.cdist(*inputs, p=p)
        for run in (_trt_cdist_p, torch.jit.script(_trt_cdist_p)):
            assert torch.equal(run(*inputs, p).nan_to_num(), eager.nan_to_num())
            assert torch.equal(run(*inputs, p).isnan(), eager.isnan())


def test_the_dynamo_exporters_failure_names_trt379() -> None:
    assert RULES["aten._cdist_forward"] == ("TRT379",)


# --- eager mode and the other toolchains: torch's call -------------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor):
        r = torch.cdist(a, b)
        return r, torch.cdist(a * 2, b, p=2.0)
"""


def _points(*shape: int, seed: int = 0, dtype=torch.float32, grad: bool = True, same: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=generator) * 3).to(dtype).requires_grad_(grad)


def _pair(rows: int, cols: int, features: int = 3, batch: tuple[int, ...] = (), seed: int = 0,
          dtype=torch.float32, grad: bool = False) -> list[torch.Tensor]:
    """Two point sets whose first ``min(rows, cols)`` points are the same points (0 apart in eager mode)."""
    generator = torch.Generator().manual_seed(seed)
    a = (torch.randn(*batch, rows, features, generator=generator) * 3 + 2).to(dtype)
    b = (torch.randn(*batch, cols, features, generator=generator) * 3 + 2).to(dtype)
    shared = min(rows, cols)
    b[..., :shared, :] = a[..., :shared, :]
    return [a.requires_grad_(grad), b.requires_grad_(grad)]


EAGER_CASES = {
    "10x10": _pair(10, 10, grad=True),
    "25x25": _pair(25, 25, grad=True),
    "26x5": _pair(26, 5, grad=True),
    "40x40": _pair(40, 40, grad=True),
    "batch broadcast": [_points(2, 1, 7, 4, seed=1), _points(3, 9, 4, seed=2)],
    "empty rows": [_points(0, 3, seed=3), _points(5, 3, seed=4)],
    "empty cols": [_points(6, 3, seed=5), _points(0, 3, seed=6)],
    "no features": [_points(4, 0, seed=7), _points(3, 0, seed=8)],
    "float64": _pair(12, 30, dtype=torch.float64, grad=True),
    "inf-nan": [torch.tensor([[0.0, float("inf")], [float("nan"), 1.0], [1e20, 0.0]]),
                torch.tensor([[0.0, float("inf")], [1e-30, 0.0]])],
    "features differ": [_points(4, 3, seed=9), _points(4, 2, seed=10)],
    "dtypes differ": [_points(4, 3, seed=11), _points(4, 3, seed=12, dtype=torch.float64)],
    "rank 1": [torch.randn(3), torch.randn(3)],
    "int": [torch.ones(3, 2, dtype=torch.int64), torch.ones(3, 2, dtype=torch.int64)],
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt379")
    after = rewrite(PROGRAM, select=("TRT379",))
    assert after.count("_trt_cdist(") == 1 + 2, after  # the definition and two calls
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values bit for bit, dtypes, gradients and exceptions: torch's own."""
    before, after = program[0](), program[1]()
    assert_same_run(run_once(before, EAGER_CASES[label]), run_once(after, EAGER_CASES[label]), context=label)


@pytest.mark.parametrize("rows", [10, 40])
def test_script_fx_and_compile_run_torchs_call(program: tuple[type, type], rows: int) -> None:
    inputs = _pair(rows, 7)
    want = program[0]()(*inputs)
    runs = {
        "script": torch.jit.script(program[1]()),
        "fx": torch.fx.symbolic_trace(program[1]()),
        "fx+script": torch.jit.script(torch.fx.symbolic_trace(program[1]())),
        "compile": torch.compile(program[1](), fullgraph=True, backend="eager"),
    }
    for name, run in runs.items():
        got = run(*inputs)
        assert all(torch.equal(g, w) for g, w in zip(got, want)), name


def test_torch_export_records_eager_modes_choice_at_any_row_count(program: tuple[type, type]) -> None:
    """The original's export guards the row count to 26 or more and refuses a dynamic one; the rewritten one
    exports it, and its program gives eager mode's values (to rounding) on both sides of 25."""
    rows, cols = torch.export.Dim("rows"), torch.export.Dim("cols")
    example = _pair(30, 30)
    with pytest.raises(Exception, match="Constraints violated"):
        torch.export.export(program[0](), tuple(example), dynamic_shapes=({0: rows}, {0: cols}))
    exported = torch.export.export(program[1](), tuple(example), dynamic_shapes=({0: rows}, {0: cols})).module()
    for shape in [(10, 10), (25, 25), (26, 3), (3, 40), (1, 1)]:
        inputs = _pair(*shape, seed=sum(shape))
        for got, want in zip(exported(*inputs), program[0]()(*inputs)):
            assert torch.allclose(got, want, rtol=1e-6, atol=1e-6), shape
            assert torch.equal(got == 0, want == 0), shape


def test_the_helper_is_torch_outside_a_trace_and_scripts() -> None:
    a, b = _pair(9, 30)
    assert torch.equal(_trt_cdist(a, b), torch.cdist(a, b))
    assert torch.equal(torch.jit.script(_trt_cdist)(a, b), torch.cdist(a, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_traced_forms_equal_eager_mode_to_rounding(dtype: torch.dtype) -> None:
    """What the graph computes, run in eager mode: within 3 units of epsilon (relative) of torch's values at
    every size and feature count, exact zeros where torch's are zero (identical points at 25 rows or fewer)."""
    for rows, cols, features in [(10, 10, 3), (25, 25, 3), (26, 5, 3), (5, 40, 8), (20, 20, 64), (40, 40, 128),
                                 (3, 7, 1), (0, 4, 3), (4, 0, 3)]:
        for seed in range(3):
            a, b = _pair(rows, cols, features, seed=seed, dtype=dtype)
            want, got = torch.cdist(a, b), _trt_cdist_traced(a, b)
            assert got.shape == want.shape and got.dtype == want.dtype
            error = (got - want).abs() / want.abs().clamp_min(torch.finfo(dtype).tiny)
            assert bool((error <= 3 * torch.finfo(dtype).eps).all()), (rows, cols, features, error.max())
            assert torch.equal(got == 0, want == 0)


# --- the export --------------------------------------------------------------------------------------------------

class Distances(nn.Module):
    def __init__(self, cdist) -> None:
        super().__init__()
        self.cdist = cdist

    def forward(self, a, b):
        return self.cdist(a, b)


def _export(model: nn.Module, example: list[torch.Tensor], dynamic: bool) -> bytes:
    buffer = io.BytesIO()
    rows = example[0].dim() - 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(example), buffer, dynamo=False, opset_version=17, input_names=["a", "b"],
                          dynamic_axes={"a": {rows: "rows"}, "b": {rows: "cols"}} if dynamic else None)
    return buffer.getvalue()


def _run(graph: bytes, inputs: list[torch.Tensor]) -> np.ndarray:
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    return session.run(None, {"a": inputs[0].numpy(), "b": inputs[1].numpy()})[0]


def _equals_eager(graph: bytes, inputs: list[torch.Tensor]) -> bool:
    """The graph's distances are eager mode's: zeros where eager mode's are zero, the rest within 2e-6 relative."""
    want = torch.cdist(*inputs).numpy()
    got = _run(graph, inputs)
    return got.shape == want.shape and np.array_equal(got == 0, want == 0) and \
        np.allclose(got, want, rtol=2e-6, atol=0, equal_nan=True)


#: Row counts on both sides of 25; above 25 on a side eager mode writes the matrix product itself, whose rounding
#: ONNX Runtime's MatMul does not repeat, so identical points are taken only up to 25 rows.
SIZES = [(10, 10), (25, 25), (1, 1), (3, 25), (26, 26), (40, 40), (10, 40), (40, 10)]


def _inputs(rows: int, cols: int, batch: tuple[int, ...] = ()) -> list[torch.Tensor]:
    if rows > 25 or cols > 25:  # no identical points: eager mode's own rounding would decide their zeros
        generator = torch.Generator().manual_seed(rows * 100 + cols)
        return [torch.randn(*batch, rows, 3, generator=generator) * 3 + 2,
                torch.randn(*batch, cols, 3, generator=generator) * 3 + 2]
    return _pair(rows, cols, batch=batch, seed=rows + cols)


@pytest.mark.parametrize(("rows", "cols"), [(10, 10), (25, 25), (26, 26), (40, 40), (10, 40)])
def test_static_rows_on_both_sides_of_25(rows: int, cols: int) -> None:
    """The original's graph is wrong at 25 static rows (matrix product, eager mode exact; at fewer it writes its
    `pairwise_distance`, whose exponent 1 / 2.000001 is off by about 1e-6 relative, within this comparison); the
    rewritten graph is eager mode."""
    inputs = _inputs(rows, cols)
    original = _export(Distances(torch.cdist), inputs, dynamic=False)
    rewritten = _export(Distances(_trt_cdist), inputs, dynamic=False)
    assert _equals_eager(original, inputs) is not (rows == cols == 25)
    assert _equals_eager(rewritten, inputs)


@pytest.mark.parametrize("traced_at", [(10, 10), (30, 30)])
def test_dynamic_rows_on_both_sides_of_25(traced_at: tuple[int, int]) -> None:
    """With the row axes dynamic the original's graph takes the matrix product at every size, and identical points
    are apart by its rounding at 25 rows or fewer; the rewritten graph selects eager mode's form by the row counts."""
    original = _export(Distances(torch.cdist), _inputs(*traced_at), dynamic=True)
    rewritten = _export(Distances(_trt_cdist), _inputs(*traced_at), dynamic=True)
    assert not [node for node in onnx.load_from_string(rewritten).graph.node if node.op_type in ("Loop", "If")]
    wrong = [size for size in SIZES if not _equals_eager(original, _inputs(*size))]
    # (1, 1) and (3, 25): ONNX Runtime's MatMul cancels |a|^2 - 2a.a + |a|^2 exactly for these few points
    assert {(10, 10), (25, 25)} <= set(wrong) and all(max(size) <= 25 for size in wrong), wrong
    for size in SIZES:
        assert _equals_eager(rewritten, _inputs(*size)), size
    for size in [(0, 5), (5, 0)]:
        assert _run(rewritten, _inputs(*size)).shape == size


def test_batch_dims_and_float64() -> None:
    example = _inputs(10, 10, batch=(2,))
    rewritten = _export(Distances(_trt_cdist), example, dynamic=True)
    for size in [(10, 10), (25, 3), (26, 30), (1, 40)]:
        assert _equals_eager(rewritten, _inputs(*size, batch=(2,))), size
    double = [t.double() for t in _inputs(12, 12)]
    graph = _export(Distances(_trt_cdist), double, dynamic=True)
    assert _run(graph, double).dtype == np.float64 and _equals_eager(graph, double)


def test_the_export_bakes_nothing() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(Distances(_trt_cdist), tuple(_inputs(10, 12)), io.BytesIO(), dynamo=False,
                          opset_version=17, input_names=["a", "b"], dynamic_axes={"a": {0: "rows"}, "b": {0: "cols"}})
    assert not [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)]


def test_the_export_stops_where_torch_does() -> None:
    for inputs in ([torch.randn(4, 3), torch.randn(5, 2)], [torch.randn(2, 4, 3), torch.randn(3, 5, 3)]):
        for cdist in (torch.cdist, _trt_cdist):
            with pytest.raises(RuntimeError):
                _export(Distances(cdist), inputs, dynamic=True)


def test_the_dynamo_exporter_exports_the_rewritten_call(tmp_path) -> None:
    """The dynamo exporter has no function for `aten._cdist_forward` (eager mode's exact path): the original fails at
    10 rows; the rewritten call exports with dynamic row counts and equals eager mode on both sides of 25."""
    example = _inputs(10, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception, match="_cdist_forward"):
            torch.onnx.export(Distances(torch.cdist), tuple(example), dynamo=True, verbose=False)
        dims = ({0: torch.export.Dim("rows", min=0)}, {0: torch.export.Dim("cols", min=0)})
        program = torch.onnx.export(Distances(_trt_cdist), tuple(example), dynamo=True, dynamic_shapes=dims,
                                    verbose=False)
    path = tmp_path / "dynamo.onnx"
    program.save(str(path))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for size in SIZES:
        inputs = _inputs(*size)
        got = session.run(None, {names[0]: inputs[0].numpy(), names[1]: inputs[1].numpy()})[0]
        want = torch.cdist(*inputs).numpy()
        assert np.array_equal(got == 0, want == 0) and np.allclose(got, want, rtol=2e-6, atol=0), size


# --- migrate -------------------------------------------------------------------------------------------------------

def _finding(line: int):
    [finding] = [f for f in rules_found_findings("import torch\n\n\nr = torch.cdist(pos, pos)\n")]
    return finding


def rules_found_findings(code: str):
    from trtcodemod.engine import Options, check_source

    return check_source(code.encode(), "/work/model.py", Options(select=("TRT379",), scope="all"))


def test_migrate_ties_it_to_wrong_values_at_its_line_only() -> None:
    finding = _finding(4)
    at_line = Problem("unfaithful", "/work/model.py", 4, WRONG_VALUES, None, "Sqrt node, max abs error 0.000345",
                      "error", "torchscript")
    assert matches(at_line, finding)
    elsewhere = Problem("unfaithful", "/work/model.py", 9, WRONG_VALUES, None, "", "error", "torchscript")
    refused = Problem("unfaithful", "/work/model.py", 4, FAILS_TO_RUN, None, "", "error", "torchscript")
    assert not matches(elsewhere, finding) and not matches(refused, finding)


L1_MODEL = """import torch
from torch import nn

DYNAMIC = {"queries": {0: "queries"}}


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("bank", torch.randn(12, 8, generator=torch.Generator().manual_seed(3)))

    def forward(self, queries):
        return torch.cdist(queries, self.bank, p=1.0)


def build():
    return Model().eval()


def inputs(generator=None):
    return (torch.randn(6, 8, generator=torch.Generator().manual_seed(0) if generator is None else generator),)
"""


def test_migrate_applies_the_l1_form_where_it_verifies_it(tmp_path) -> None:
    """An L1 distance to a memory bank: the original graph is NaN where eager mode is finite, located at the call;
    migrate tries the unsafe rewrite as a candidate, verifies it and keeps it."""
    from support import migrate_json

    path = tmp_path / "l1_bank.py"
    path.write_text(L1_MODEL)
    report = migrate_json(path, '{"queries": {"0": "queries"}}')
    assert report["before"]["faithful"] is False, report["before"]
    assert ("TRT379", 13) in {(fix["rule"], fix["line"]) for fix in report["applied"]}, report["remaining"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True, report["remaining"]
