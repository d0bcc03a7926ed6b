"""TRT339 (floor division the TorchScript exporter writes as truncation): rewrite, eager mode, export.

The rewrite of `//`, `torch.floor_divide` and `x.floor_divide` on tensors and of `//` on sizes that can
be negative (and what is left); eager mode before and after on edge values (the same values, dtype,
errors, and the same error from backward); the export-time quotient against torch's bit for bit;
and exports whose originals are silently wrong in ONNX Runtime while the rewritten graphs give eager
torch's values at other sizes.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.trt.check import check_graph

SPECIAL = (0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 2.5, -2.5, 1.0, -1.0, 3.0, 1e-30, -7.25, 0.1, 7.0,
           -0.3, 1e30)

SOURCE = """
import torch
import numpy as np


def by_number(x: torch.Tensor, stride: int):
    return x // stride, (x - 1) // 2.5


def by_tensor(a: torch.Tensor, b: torch.Tensor):
    return a // b, torch.floor_divide(a, b), a.floor_divide(b)


def ceil_rows(x: torch.Tensor, size: int = 4):
    h = x.shape[-1]
    rows = -(-h // size)
    half = (size - h) // 2
    plain = h // 2
    out = (h - 1) // 2 + 1
    return x.new_zeros(x.shape[0], rows), half, plain, out


def untouched(n: int, arr, t: torch.Tensor):
    t //= 2
    return n // 2, (n - 3) // 2, np.asarray(arr) // 2, t


def indices(x: torch.Tensor, w: int):
    return torch.arange(x.shape[1]) // 2, x.argmax(1) // w, torch.arange(-3, 4) // 2, x.argmax(1) // -w
"""


def test_rewrite_text_and_what_is_left() -> None:
    safe = strip_helpers(rewrite(SOURCE, select=("TRT339",)))
    assert "return _trt_floor_divide(x, stride), _trt_floor_divide(x - 1, 2.5)" in safe
    assert ("return _trt_floor_divide(a, b), _trt_floor_divide(a, b), _trt_floor_divide(a, b)" in safe)
    assert "rows = -(-h // size)" in safe  # the size fix is unsafe
    unsafe = strip_helpers(rewrite(SOURCE, select=("TRT339",), unsafe=True))
    assert "rows = -(_trt_size_floordiv(-h, size))" in unsafe
    assert "half = _trt_size_floordiv(size - h, 2)" in unsafe
    assert "plain = h // 2" in unsafe  # a size and a positive number: truncation is the floor
    assert "out = (h - 1) // 2 + 1" in unsafe  # a size minus a number: taken as non-negative
    assert "return n // 2, (n - 3) // 2, np.asarray(arr) // 2, t" in unsafe and "t //= 2" in unsafe
    # Non-negative indices by a divisor not written negative: left alone; a negative start or divisor: taken.
    assert "return torch.arange(x.shape[1]) // 2, x.argmax(1) // w, _trt_floor_divide(torch.arange(-3, 4), 2), " \
           "_trt_floor_divide(x.argmax(1), -w)" in safe
    # 7 tensor divisions, 2 size divisions, and the in-place one reported without a fix.
    assert rules_found(SOURCE, select=("TRT339",)) == ["TRT339"] * 10
    once = rewrite(SOURCE, select=("TRT339",), unsafe=True)
    assert rewrite(once, select=("TRT339",), unsafe=True) == once


def values(n: int, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        drawn = torch.randn(max(n, 1), generator=g, dtype=torch.float64) * 20
        return torch.cat([torch.tensor(SPECIAL, dtype=torch.float64), drawn])[:n].to(dtype)
    low = 0 if dtype == torch.uint8 else -50
    return torch.randint(low, 50, (n,), generator=g).to(dtype)


DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64, torch.int32, torch.int8,
          torch.uint8)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(SOURCE, select=("TRT339",), unsafe=True), tmp_path_factory.mktemp("after"))
    return before, after


def _same(got: torch.Tensor, want: torch.Tensor, context: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, context
    if want.is_floating_point():
        same = ((got == want) & (torch.signbit(got) == torch.signbit(want))) | (got.isnan() & want.isnan())
    else:
        same = got == want
    assert bool(same.all()), f"{context}: {got[~same][:4].tolist()} vs {want[~same][:4].tolist()}"


def _finite_quotients(a: torch.Tensor, b) -> torch.Tensor:
    """Where torch's own vectorized ``fmod`` (which the composition calls in eager mode) is exact: the
    quotient does not overflow. (The graph's ``Mod`` is exact there too: see the export test.)"""
    return ((a.double() / (b.double() if isinstance(b, torch.Tensor) else b)).abs() < 1e30) | ~torch.isfinite(a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_mode_is_the_original_and_the_export_time_quotient_is_torchs(programs, dtype) -> None:
    before, after = programs
    n = len(SPECIAL) * len(SPECIAL) if dtype.is_floating_point else 200
    a = values(len(SPECIAL), dtype).repeat_interleave(len(SPECIAL)) if dtype.is_floating_point else values(n, dtype)
    b = values(len(SPECIAL), dtype).repeat(len(SPECIAL)) if dtype.is_floating_point else values(n, dtype, seed=1)
    for inputs in ([a, b], [a[:0], b[:0]], [a.reshape(-1, 1)[:7], b[:5]]):
        assert_same_run(run_once(before["by_tensor"], inputs), run_once(after["by_tensor"], inputs), context=str(dtype))
        want = run_once(before["by_tensor"], inputs)
        if want.error is not None:  # integer division by zero: the same error before and after
            assert not dtype.is_floating_point
            continue
        with export_formulation(after):
            got = after["by_tensor"](*inputs)
        keep = _finite_quotients(*inputs) if dtype.is_floating_point else torch.ones((), dtype=torch.bool)
        for g, w in zip(got, want.output):
            _same(g[keep.expand_as(g)], w[keep.expand_as(w)], f"{dtype}")
    for stride in (2, -3, 7) if not dtype.is_floating_point or dtype == torch.uint8 else (2, -3):
        inputs = [a, stride]
        assert_same_run(run_once(before["by_number"], inputs), run_once(after["by_number"], inputs), context=str(dtype))
        want = before["by_number"](*inputs)
        with export_formulation(after):
            got = after["by_number"](*inputs)
        for g, w in zip(got, want):
            _same(g, w, f"{dtype} by {stride}")


def test_backward_raises_the_same_error(programs) -> None:
    before, after = programs
    for program in (before, after):
        x = torch.tensor([-3.5, 2.0], requires_grad=True)
        quotient, _ = program["by_number"](x, 2)
        with pytest.raises(RuntimeError, match="floor_divide"):
            quotient.sum().backward()


class _Call(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def _export(model: torch.nn.Module, inputs: list, dynamic: dict | None = None) -> onnx.ModelProto:
    names = [f"input_{i}" for i in range(len(inputs))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=dynamic if dynamic is not None else {n: {0: f"n{i}"} for i, n in enumerate(names)})
    return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: list) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString())
    feed = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return [torch.from_numpy(o) for o in session.run(None, feed)]


@pytest.mark.parametrize("dtype", (torch.float32, torch.int64))
def test_the_original_export_is_wrong_and_the_rewritten_one_is_torch(programs, dtype) -> None:
    before, after = programs
    example = [values(40, dtype), values(40, dtype, seed=1)]
    example[1] = torch.where(example[1] == 0, torch.ones_like(example[1]), example[1])  # no integer division by 0
    wrong = _run(_export(_Call(before["by_tensor"]), example), example)
    assert not torch.equal(wrong[0], before["by_tensor"](*example)[0])  # truncated, silently
    graph = _export(_Call(after["by_tensor"]), example)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    a = values(len(SPECIAL), dtype).repeat_interleave(len(SPECIAL)) if dtype.is_floating_point else values(300, dtype)
    b = values(len(SPECIAL), dtype).repeat(len(SPECIAL)) if dtype.is_floating_point else values(300, dtype, seed=2)
    b = torch.where(b == 0, torch.ones_like(b), b) if not dtype.is_floating_point else b
    for got, want in zip(_run(graph, [a, b]), before["by_tensor"](a, b)):
        _same(got, want, f"{dtype} in ONNX Runtime")  # overflowing quotients included
    graph = _export(_Call(lambda x: after["by_number"](x, -3)), [example[0]])
    for got, want in zip(_run(graph, [a]), before["by_number"](a, -3)):
        _same(got, want, f"{dtype} by -3 in ONNX Runtime")


def test_a_ceiling_of_a_traced_size_keeps_its_rows(programs) -> None:
    before, after = programs
    dynamic = {"input_0": {1: "width"}}
    wrong = _export(_Call(lambda x: before["ceil_rows"](x)[0]), [torch.randn(1, 10)], dynamic)
    assert _run(wrong, [torch.randn(1, 10)])[0].shape == (1, 2)  # one row short at the traced size itself
    graph = _export(_Call(lambda x: after["ceil_rows"](x)[0]), [torch.randn(1, 10)], dynamic)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    for width in (10, 13, 16, 1):
        x = torch.randn(1, width)
        assert _run(graph, [x])[0].shape == before["ceil_rows"](x)[0].shape, width
    for width in (0, 3, 10):
        x = torch.randn(2, width)
        assert_same_run(run_once(before["ceil_rows"], [x]), run_once(after["ceil_rows"], [x]), context=str(width))


TOOLCHAIN_SOURCE = """
import torch
from torch import nn


class M(nn.Module):
    def forward(self, a, b):
        h = a.shape[-1]
        return a // b, torch.floor_divide(a, 3), a.floor_divide(b), a // 2.5, a.new_zeros(-(-h // 4))
"""


def test_other_toolchains_run_the_original(tmp_path) -> None:
    before = import_source(TOOLCHAIN_SOURCE, tmp_path)["M"]
    after = import_source(rewrite(TOOLCHAIN_SOURCE, select=("TRT339",), unsafe=True), tmp_path)["M"]
    assert "_trt_size_floordiv(" in rewrite(TOOLCHAIN_SOURCE, select=("TRT339",), unsafe=True)
    inputs = [torch.randn(4, 6) * 10, torch.randn(4, 6) * 3]
    want = toolchain_outcomes(before, inputs, tmp_path)
    got = toolchain_outcomes(after, inputs, tmp_path)
    assert set(want) == set(got)
    for name in want:
        if isinstance(want[name], Exception):
            assert isinstance(got[name], Exception), name
        else:
            assert not isinstance(got[name], Exception), f"{name}: {got[name]!r}"
            assert_same_run(Run(inputs, want[name]), Run(inputs, got[name]), context=name)


def _conv_model(*lines: str) -> str:
    """A model source: a 1x1 convolution `y = self.conv(x)`, then ``lines`` of forward (the last a return)."""
    body = "".join(f"        {line}\n" for line in lines)
    return ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.conv = nn.Conv2d(3, 4, 1)\n\n    def forward(self, x):\n"
            f"        y = self.conv(x)\n{body}\n\ndef build():\n    torch.manual_seed(0)\n    return Net().eval()\n")


MODEL = _conv_model(
    "# Signed cell offsets of each activation (negative ones too): a floor division.",
    "cells = (y * 8).round() // 3",
    "# Column pairs: a floor division of non-negative values, the same in the graph (left alone).",
    "pairs = torch.arange(y.shape[-1], device=y.device) // 2",
    "return y + cells + pairs",
)


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    """The original exports and loads, but its graph differs from eager mode on the traced inputs: TRT339 is
    the suspect, applied and verified, only where the recorded run saw a quotient differ from its truncation."""
    path = tmp_path / "cells_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT339"]
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert "+        cells = _trt_floor_divide((y * 8).round(), 3)" in report["diff"]
    assert "_trt_floor_divide(torch.arange" not in report["diff"]


BLOCKS_MODEL = '''
import torch
from torch import nn


class Blocks(nn.Module):
    def forward(self, x):
        w = x.shape[-1]
        blocks = -(-w // 2)
        cols = torch.arange(w, device=x.device) // 2
        pooled = x.new_zeros(x.shape[0], x.shape[1], x.shape[2], blocks)
        return pooled.scatter_add(-1, cols.expand_as(x), x)


def build():
    return Blocks().eval()
'''


def test_migrate_takes_a_ceiling_whose_short_count_fails_an_index_further_on(tmp_path) -> None:
    """The traced ceiling is one block short (2 for w = 5), and ONNX Runtime refuses the ScatterElements
    two lines below, whose indices reach the third block: the failing node is not at the ceiling's line,
    but its wrong value is an index count, so TRT339 is the suspect there (as in MiniMax-M3-VL's indexer)."""
    path = tmp_path / "blocks_model.py"
    path.write_text(BLOCKS_MODEL)
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT339"]
    assert "+        blocks = -(_trt_size_floordiv(-w, 2))" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True


TRACE_BRANCH = """
import warnings

import torch


def lengths(x_lens: torch.Tensor, frames: torch.Tensor):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        x_lens = (x_lens - 7) // 2
    else:
        with warnings.catch_warnings():
            x_lens = (x_lens - 7) // 2
    return x_lens, frames // 2
"""


def test_a_division_in_a_branch_written_for_the_trace_is_taken(tmp_path) -> None:
    """icefall's Zipformer writes its frame counts twice, under ``is_tracing()`` and in eager mode: the
    traced branch is what the export runs, and truncates. From the code alone it is rewritten (the
    eager branch is left); with a recorded run, which never reaches it, too (no observation can
    speak for it), while a division the run saw give whole quotients is left."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    safe = strip_helpers(rewrite(TRACE_BRANCH, select=("TRT339",)))
    assert "        x_lens = _trt_floor_divide(x_lens - 7, 2)\n    else:" in safe
    assert "            x_lens = (x_lens - 7) // 2\n    return" in safe
    path = tmp_path / "trace_branch.py"
    path.write_text(TRACE_BRANCH)
    lines = set(range(1, len(TRACE_BRANCH.splitlines()) + 1)) - {9}  # the eager run skips the traced branch
    facts = Facts(runs=1, lines={str(path.resolve()): lines})
    fixed = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT339",), facts=facts)).source
    fixed = strip_helpers(fixed.decode())
    assert "        x_lens = _trt_floor_divide(x_lens - 7, 2)\n    else:" in fixed
    assert "return x_lens, frames // 2" in fixed


DIV_MODEL = _conv_model(
    "# Positions on a 0.1 grid binned by 0.1: a float floor division whose quotients round to whole numbers.",
    'cells = torch.div((y * 8).round() * 0.1, 0.1, rounding_mode="floor")',
    "# An integer floor division: exported exactly, left alone.",
    'rows = torch.div(torch.arange(y.shape[-1], device=y.device) - 3, 2, rounding_mode="floor")',
    "return y + cells + rows",
)


def test_a_float_div_floor_is_taken_where_the_run_saw_the_graph_differ(tmp_path) -> None:
    """`torch.div(..., rounding_mode="floor")` exports as Floor(Div) for floats: without facts it is not
    reported (an integer one is exact, the code does not say which); `migrate` sees the float one differ and
    rewrites it alone."""
    source = DIV_MODEL
    assert rules_found(source, select=("TRT339",)) == []
    path = tmp_path / "grid_model.py"
    path.write_text(source)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT339"]
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert "+        cells = _trt_div_floor((y * 8).round() * 0.1, 0.1)" in report["diff"]
    assert "_trt_div_floor(torch.arange" not in report["diff"]


def test_div_floor_helper_is_torch_in_eager_mode_and_while_exporting() -> None:
    from trtcodemod.helpers.division import _trt_div_floor
    a = torch.arange(-40, 40).float() * 0.1
    x = torch.tensor([-3.5, 2.0], requires_grad=True)
    _trt_div_floor(x, 2).sum().backward()  # div keeps its zero gradient (`//` would raise)
    assert torch.equal(x.grad, torch.zeros(2))
    with export_formulation():
        _same(_trt_div_floor(a, 0.1), torch.div(a, 0.1, rounding_mode="floor"), "while exporting")
    graph = _export(_Call(lambda t: _trt_div_floor(t, 0.1)), [a])
    _same(_run(graph, [a])[0], torch.div(a, 0.1, rounding_mode="floor"), "in ONNX Runtime")
    scripted = torch.jit.script(_trt_div_floor)  # a tensor, an int and a float divisor: torch.div each time
    n = torch.arange(-7, 8)
    for divisor in (n.flip(0).clamp(min=1), 2, 0.1):
        _same(scripted(a if isinstance(divisor, float) else n, divisor),
              torch.div(a if isinstance(divisor, float) else n, divisor, rounding_mode="floor"), f"scripted {divisor!r}")
