"""TRT307: ``torch.cummax``/``torch.cummin`` have no ONNX symbolic; the helper keeps torch's own
function outside an export and takes the running extreme over a lower triangle while exporting
(integers, bool masks, and floats with torch's NaN index and signed zeros). And ``migrate`` takes a second round for an export failure that only
shows once the first is fixed: transformers' Grounding DINO calls ``torch.isin`` (TRT305) and,
four lines later, ``torch.cummax`` (``modeling_grounding_dino.py:1827, 1834``)."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from support import import_file, migrate_json, rewrite

from trtcodemod.helpers.cumulative import _trt_cummax, _trt_cummin

SOURCE = """\
import torch


def previous_and_next(ids, special):
    positions = torch.arange(ids.shape[1]).unsqueeze(0).expand(ids.shape[0], -1)
    previous = torch.cummax(torch.where(special, positions, -1), dim=1)[0]
    following = torch.cummin(torch.where(special, positions, ids.shape[1]).flip(1), 1).values.flip(1)
    lowest = ids.cummin(-1)
    return previous, following, lowest.values, lowest.indices
"""


def test_the_rewrite() -> None:
    new = rewrite(SOURCE)
    assert "previous = _trt_cummax(torch.where(special, positions, -1), 1)[0]" in new
    assert "following = _trt_cummin(torch.where(special, positions, ids.shape[1]).flip(1), 1).values.flip(1)" in new
    assert "lowest = _trt_cummin(ids, -1)" in new
    assert rewrite("import torch\nrunning = torch.cummax(scores)\n").endswith("torch.cummax(scores)\n")  # no dim
    assert rewrite("running = torch.cummax(scores)\n") == "running = torch.cummax(scores)\n"  # torch not imported


def _export(module: torch.nn.Module, example: tuple) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "n"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


class Running(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                                torch.Tensor]:
        high, low, across = _trt_cummax(x, 1), _trt_cummin(x, -1), _trt_cummax(x, 0)
        return high.values, high.indices, low[0], low[1], across.values, across.indices


@pytest.fixture(scope="module")
def graph() -> ort.InferenceSession:
    return _export(Running(), (torch.randint(-3, 3, (2, 7)),))


@pytest.mark.parametrize("x", [torch.randint(-3, 3, (3, 11)), torch.zeros(2, 5, dtype=torch.int64),
                               -torch.arange(12).reshape(3, 4), torch.tensor([[4, 4, 4, 1, 4]]),
                               torch.empty(2, 0, dtype=torch.int64), torch.empty(0, 3, dtype=torch.int64),
                               torch.tensor([[torch.iinfo(torch.int64).min, torch.iinfo(torch.int64).max, 0]])],
                         ids=["random", "zeros", "negative", "ties", "empty-axis", "empty-batch", "extremes"])
def test_the_graph_gives_torchs_values_and_indices(graph: ort.InferenceSession, x: torch.Tensor) -> None:
    outputs = graph.run(None, {"x": x.numpy()})
    expected = (*torch.cummax(x, 1), *torch.cummin(x, -1), *torch.cummax(x, 0))
    for got, want in zip(outputs, expected):
        assert torch.equal(torch.from_numpy(got), want)


def test_eager_is_torchs_own_function() -> None:
    for x in (torch.randn(4, 6), torch.tensor([1.0, float("nan"), 3.0, float("-inf")]), torch.randint(0, 5, (5,))):
        for ours, theirs in ((_trt_cummax, torch.cummax), (_trt_cummin, torch.cummin)):
            got, want = ours(x, 0), theirs(x, 0)
            assert type(got) is type(want)
            assert torch.equal(got.values.nan_to_num(7.0), want.values.nan_to_num(7.0))
            assert torch.equal(got.indices, want.indices)
    x = torch.randn(3, 4, requires_grad=True)
    _trt_cummax(x, 1).values.sum().backward()
    grad = x.grad.clone()
    x.grad = None
    torch.cummax(x, 1).values.sum().backward()
    assert torch.equal(grad, x.grad)
    for bad in (lambda: _trt_cummax(torch.randn(3), 2), lambda: _trt_cummin(torch.tensor(1.0), 1)):
        with pytest.raises((IndexError, RuntimeError)) as ours:
            bad()
        with pytest.raises(type(ours.value)):
            torch.cummax(torch.randn(3), 2) if "cummax" in str(bad.__code__.co_names) else torch.cummin(
                torch.tensor(1.0), 1)


NAN, INF = float("nan"), float("inf")


def _bits(t: torch.Tensor) -> torch.Tensor:
    """The tensor's bytes as integers: -0.0 and 0.0 differ, and a NaN equals a NaN of the same bits."""
    return t.view({torch.float32: torch.int32, torch.float64: torch.int64}[t.dtype]) if t.is_floating_point() else t


@pytest.fixture(scope="module", params=[torch.float32, torch.float64], ids=["float32", "float64"])
def float_graph(request: pytest.FixtureRequest) -> tuple[ort.InferenceSession, torch.dtype]:
    return _export(Running(), (torch.randn(2, 7, dtype=request.param),)), request.param


@pytest.mark.parametrize("x", [
    [[0.0, -0.0, 1.0, NAN, 2.0, NAN, -1.0]], [[-0.0, 0.0, -0.0, 0.0], [0.0, -0.0, 0.0, -0.0]],
    [[NAN, 1.0, NAN], [2.0, NAN, 3.0]], [[INF, -INF, INF, -INF, 5.0]], [[-INF, -INF], [NAN, NAN]],
    [[1.5, 1.5, -2.0, 1.5, 7.0, 7.0]], [[3.0]], [[]]],
    ids=["nan-then-larger", "signed-zeros", "nan-first", "infinities", "only-minus-inf-or-nan", "ties", "one", "empty"])
def test_the_graph_gives_torchs_values_and_indices_on_floats(float_graph: tuple, x: list) -> None:
    """torch takes every NaN it meets and keeps it (its index the last NaN's), and among equal values
    the last, so ``-0.0`` after ``0.0`` is the value: the graph gives the same bits."""
    graph, dtype = float_graph
    x = torch.tensor(x, dtype=dtype)
    outputs = graph.run(None, {"x": x.numpy()})
    expected = (*torch.cummax(x, 1), *torch.cummin(x, -1), *torch.cummax(x, 0))
    for got, want in zip(outputs, expected):
        got = torch.from_numpy(got)
        assert got.dtype == want.dtype and torch.equal(_bits(got), _bits(want)), (got, want)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16],
                         ids=["bool", "uint8", "int8", "int16"])
def test_the_graph_gives_torchs_values_and_indices_on_masks_and_narrow_integers(dtype: torch.dtype) -> None:
    """Bool masks (a running any / all) and 8- or 16-bit integers are compared as int32 (ONNX reduces
    neither bool nor int16); the values are the input's own, in its dtype."""
    def make(shape: tuple[int, ...], seed: int) -> torch.Tensor:
        values = torch.randint(-3, 3, shape, generator=torch.Generator().manual_seed(seed))
        return values > 0 if dtype == torch.bool else (values if dtype != torch.uint8 else values + 3).to(dtype)

    graph = _export(Running(), (make((2, 7), 0),))
    info = torch.iinfo(dtype) if dtype != torch.bool else None
    extremes = torch.tensor([[info.max, info.min, 0, info.min, info.max]], dtype=dtype) if info else make((1, 2), 5)
    for x in (make((5, 9), 1), make((1, 1), 2), torch.ones(2, 3, dtype=dtype), torch.zeros(3, 4, dtype=dtype),
              extremes, torch.empty(2, 0, dtype=dtype)):
        outputs = graph.run(None, {"x": x.numpy()})
        for got, want in zip(outputs, (*torch.cummax(x, 1), *torch.cummin(x, -1), *torch.cummax(x, 0))):
            got = torch.from_numpy(got)
            assert got.dtype == want.dtype and torch.equal(got, want), (x, got, want)


def test_complex_and_out_of_range_keep_torchs_function_while_exporting() -> None:
    """What torch refuses keeps torch's call, and torch's error, inside the export too."""
    class OutOfRange(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_cummax(x, 2).values

    with pytest.raises(IndexError, match="Dimension out of range"):
        _export(OutOfRange(), (torch.randint(0, 3, (2, 5)),))
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        _export(Running(), (torch.randn(2, 5, dtype=torch.complex64),))


def test_scripted_traced_compiled_and_exported() -> None:
    x = torch.randint(-3, 3, (2, 6))
    scripted = torch.jit.script(Running())
    traced = torch.fx.symbolic_trace(Running())
    compiled = torch.compile(Running(), fullgraph=True, backend="eager")
    exported = torch.export.export(Running(), (x,)).module()
    for model in (scripted, traced, compiled, exported):
        for got, want in zip(model(x), Running()(x)):
            assert torch.equal(got, want)


MODEL = """\
import torch
from torch import nn


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("special", torch.tensor([0, 3]))

    def forward(self, ids):
        marked = torch.isin(ids, self.special)
        positions = torch.arange(ids.shape[1]).unsqueeze(0).expand(ids.shape[0], -1)
        previous = torch.cummax(torch.where(marked, positions, -1), dim=1)[0]
        return previous * 2 + ids


def build():
    return Blocks().eval()


def inputs(generator):
    return (torch.randint(0, 6, (2, 9), generator=generator),)
"""


def test_migrate_fixes_the_export_failure_behind_the_first(tmp_path: Path) -> None:
    model = tmp_path / "blocks.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"ids": {"0": "batch", "1": "n"}}')
    assert [r["round"] for r in report["rounds"]] == [1, 2], report["rounds"]
    assert report["rounds"][0]["exit_code"] == 2  # the isin fixed, the export stops at cummax
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT305", "TRT307"]
    assert report["exit_code"] == 0 and report["after"]["exported"] and report["equivalent"] is True
    rewritten = import_file(model, "blocks_rewritten")
    original = {}
    exec(compile(MODEL, "blocks.py", "exec"), original)
    x = torch.randint(0, 6, (3, 12))
    assert torch.equal(rewritten.build()(x), original["build"]()(x))
