"""TRT341: ``index_add`` / ``index_put(..., accumulate=True)`` → scatter-add helpers.

The original exports, loads and runs, but its graph keeps one write where an index repeats (a
``ScatterElements`` or ``ScatterND`` with no reduction); after the rewrite the graph sums them
(``ScatterElements`` with ``reduction="add"``) at the traced size and at others, eager mode is
torch's call itself, and ``migrate`` picks the rule for a model whose graph differs from eager. The
safety contract (script, fx, compile, export, hypothesis-drawn tensors) runs in tests/safety/.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import export_formulation, migrate_small, rewrite

from trtcodemod.engine import Options, check_source
from trtcodemod.trt.check import check_graph

SOURCE = """import torch
from torch import nn


class Pool(nn.Module):
    def forward(self, grid, cells, feats, ys, xs):
        summed = grid.index_add(0, cells, feats)
        scaled = torch.index_add(grid, 0, cells, feats, alpha=2)
        put = grid.index_put((cells,), feats, accumulate=True)
        bev = grid.new_zeros(grid.shape[0], grid.shape[1])
        bev.index_put_((ys, xs), feats[:, 0], accumulate=True)
        counts = grid.new_zeros(grid.shape[0])
        counts.index_add_(0, cells, torch.ones_like(cells, dtype=grid.dtype))
        return summed, scaled, put, bev, counts
"""
NAMES = ["grid", "cells", "feats", "ys", "xs"]


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT341",))
    body = after.split("class Pool", 1)[1]
    assert "summed = _trt_index_add(grid, 0, cells, feats)" in body
    assert "scaled = _trt_index_add(grid, 0, cells, feats, alpha=2)" in body
    assert "put = _trt_index_put(grid, (cells,), feats, accumulate=True)" in body
    assert "_trt_index_put_(bev, (ys, xs), feats[:, 0], accumulate=True)" in body
    assert "_trt_index_add_(counts, 0, cells, torch.ones_like(cells, dtype=grid.dtype))" in body
    kept = ("def f(x, i, v, args):\n    a = x.index_put((i,), v)\n    b = x.index_put((i,), v, False)\n"
            "    c = x.index_add(*args)\n    return a, b, c\n")
    assert rewrite("import torch\n" + kept, select=("TRT341",)).endswith(kept)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("index_add")
    after = rewrite(SOURCE, select=("TRT341",))
    return import_source(SOURCE, folder)["Pool"], import_source(after, folder)


def _inputs(rows: int, dtype: torch.dtype, seed: int = 0) -> list[torch.Tensor]:
    """A grid of ``rows`` rows, cells with repeats (and, for index_put, negative ones), features with edge values."""
    generator = torch.Generator().manual_seed(seed)
    grid = (torch.randn(rows, 3, generator=generator) * 4).to(dtype)
    count = rows + 3
    cells = torch.randint(0, rows, (count,), generator=generator)
    cells[:2] = 0  # a repeat, always
    feats = (torch.randn(count, 3, generator=generator) * 4).to(dtype)
    if dtype.is_floating_point:
        feats[2, 0], feats[3, 1], feats[0, 2] = float("inf"), float("nan"), -0.0
    ys = torch.randint(-rows, rows, (count,), generator=generator)
    xs = torch.randint(0, 3, (count,), generator=generator)
    ys[1], xs[1] = ys[0], xs[0]
    return [grid, cells, feats, ys, xs]


def _same(got, want) -> None:
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert torch.equal(torch.nan_to_num(g, nan=123.0), torch.nan_to_num(w, nan=123.0)), (g, w)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_eager_mode_is_torchs_call_and_the_export_formulation_is_its_sum(programs, dtype) -> None:
    before, namespace = programs
    for rows in (1, 4, 7):
        inputs = _inputs(rows, dtype, seed=rows)
        want = before()(*inputs)
        _same(namespace["Pool"]()(*inputs), want)
        with export_formulation(namespace):
            got = namespace["Pool"]()(*inputs)
        for number, (g, w) in enumerate(zip(got, want)):
            if number == 1 and dtype.is_floating_point:  # alpha=2: multiplied, then added (torch fuses the two)
                torch.testing.assert_close(g, w, equal_nan=True)
            else:
                _same([g], [w])


def test_empty_indices_and_a_scalar_row() -> None:
    from trtcodemod.helpers.accumulation import _trt_index_add, _trt_index_put

    grid = torch.tensor([[1.0, -2.0]])
    empty = torch.zeros(0, dtype=torch.int64)
    with export_formulation():
        assert torch.equal(_trt_index_add(grid, 0, empty, torch.zeros(0, 2)), grid)
        assert torch.equal(_trt_index_put(grid, [empty], torch.zeros(0, 2), True), grid)
        assert torch.equal(_trt_index_put(grid, [torch.tensor([0, 0])], torch.tensor(0.5), True),
                           grid.index_put((torch.tensor([0, 0]),), torch.tensor(0.5), accumulate=True))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool = False) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            axes = ({0: torch.export.Dim.AUTO},) * len(inputs)
            return torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=NAMES, verbose=False,
                                     dynamic_shapes=axes).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=NAMES,
                          dynamic_axes={name: {0: f"n_{name}"} for name in NAMES})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return [torch.from_numpy(out) for out in session.run(None, feeds)]


def test_the_original_export_keeps_one_write_or_fails(programs) -> None:
    before, _ = programs
    inputs = _inputs(4, torch.float32)
    with pytest.raises(Exception, match="index_add, alpha != 1"):
        _export(before(), inputs)
    plain = import_source(SOURCE.replace(", alpha=2", ""), _tmp_folder())["Pool"]
    got = _run(_export(plain(), inputs), inputs)
    want = plain()(*inputs)
    # the repeated cell 0: the graph's row 0 is one write, not the sum
    assert not torch.equal(torch.nan_to_num(got[0][0], nan=1.0), torch.nan_to_num(want[0][0], nan=1.0))


def _tmp_folder():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="index_add_"))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_export_sums_at_every_size(programs, dynamo: bool) -> None:
    _, namespace = programs
    model = namespace["Pool"]()
    graph = _export(model, _inputs(4, torch.float32), dynamo=dynamo)
    ops = {node.op_type for node in graph.graph.node}
    assert "ScatterND" not in ops
    reductions = {attr.s for node in graph.graph.node if node.op_type == "ScatterElements"
                  for attr in node.attribute if attr.name == "reduction"}
    assert reductions == {b"add"}
    for rows in (1, 4, 9):
        inputs = _inputs(rows, torch.float32, seed=10 + rows)
        got = _run(graph, inputs)
        want = model(*inputs)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, equal_nan=True)
    if not dynamo:
        assert [f for f in check_graph(graph, "10.0") if f.severity == "error"] == []


def test_in_place_into_a_fresh_tensor_reaches_its_readers_and_views_are_left() -> None:
    """BEV pooling into a grid made in forward: ``bev.index_put_(...)`` must change ``bev`` in the graph. An
    in-place write into a view (``grid[0].index_add_``) is named but not rewritten: through a helper's
    parameter the TorchScript exporter would lose it."""
    source = """import torch
from torch import nn


class Scatter(nn.Module):
    def forward(self, feats, ys, xs):
        bev = feats.new_zeros(5, 4)
        bev.index_put_((ys, xs), feats, accumulate=True)
        counts = feats.new_zeros(5)
        counts.index_add_(0, ys.clamp(min=0), torch.ones_like(feats))
        grid = feats.new_zeros(2, 5)
        grid[0].index_add_(0, ys.clamp(min=0), feats)
        return bev * 1, counts * 1, grid * 1
"""
    after = rewrite(source, select=("TRT341",))
    assert "_trt_index_put_(bev, (ys, xs), feats, accumulate=True)" in after
    assert "_trt_index_add_(counts, 0, ys.clamp(min=0), torch.ones_like(feats))" in after
    assert "        grid[0].index_add_(0, ys.clamp(min=0), feats)\n" in after
    model = import_source(after, _tmp_folder())["Scatter"]()
    names = ["feats", "ys", "xs"]
    inputs = [torch.tensor([1.0, 2.0, 4.0]), torch.tensor([0, 0, -1]), torch.tensor([3, 3, 0])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17,
                          input_names=names, dynamic_axes={n: {0: "n"} for n in names})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for feeds in (inputs, [torch.tensor([1.0, -3.0]), torch.tensor([4, 4]), torch.tensor([0, 0])]):
        got = session.run(None, dict(zip(names, (t.numpy() for t in feeds))))
        want = model(*feeds)
        for g, w in list(zip(got, want))[:2]:
            assert w.abs().sum() > 0 and torch.equal(torch.from_numpy(g), w)


def test_a_call_in_a_scripted_function_is_named_but_not_rewritten() -> None:
    """schnetpack's ``@torch.jit.script`` ``_scatter_add``: a traced export runs the compiled function, in which
    ``torch.jit.is_scripting()`` is true, so the helper there is torch's call and the graph keeps one write (shown
    below with the helper written in by hand). The rule names the call and leaves it as it is."""
    source = """import torch


@torch.jit.script
def pool(x: torch.Tensor, idx: torch.Tensor, n: int) -> torch.Tensor:
    tmp = torch.zeros(n, 3, dtype=x.dtype)
    return tmp.index_add(0, idx, x)


def unscripted(x, idx, n: int):
    tmp = torch.zeros(n, 3, dtype=x.dtype)
    return tmp.index_add(0, idx, x)
"""
    findings = check_source(source.encode(), "snippet.py", Options(select=("TRT341",)))
    assert [(f.line, "`torch.jit.script`" in f.message) for f in findings] == [(7, True), (12, False)]
    after = rewrite(source, select=("TRT341",))
    assert "    return tmp.index_add(0, idx, x)\n\n\ndef unscripted" in after
    assert "    return _trt_index_add(tmp, 0, idx, x)\n" in after

    by_hand = source.replace("    return tmp.index_add(0, idx, x)\n\n\ndef",
                             "    return _trt_index_add(tmp, 0, idx, x)\n\n\ndef")
    by_hand = "from trtcodemod.helpers.accumulation import _trt_index_add\n" + by_hand
    pool = import_source(by_hand, _tmp_folder())["pool"]

    class Pool(torch.nn.Module):
        def forward(self, x, idx):
            return pool(x, idx, 2) * 1

    x, idx = torch.ones(4, 3), torch.tensor([0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buffer = io.BytesIO()
        torch.onnx.export(Pool(), (x, idx), buffer, dynamo=False, opset_version=17, input_names=["x", "idx"],
                          dynamic_axes={"x": {0: "n"}, "idx": {0: "n"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    [got] = session.run(None, {"x": x.numpy(), "idx": idx.numpy()})
    assert torch.equal(Pool()(x, idx), torch.full((2, 3), 2.0))
    assert (got == 1.0).all()  # one write kept: the helper's scatter-add never ran


def _bins_model(bins: str, pooled: str) -> str:
    """A 1x1 convolution, then its rows (H, C, W) summed into ``pooled`` at ``bins``."""
    return f"""import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        bins = {bins}
        rows = y[0].permute(1, 0, 2)
        pooled = {pooled}
        return pooled.index_add(0, bins, rows)


def build():
    torch.manual_seed(0)
    return Net().eval()
"""


def test_migrate_fixes_a_graph_that_keeps_one_write(tmp_path) -> None:
    """Bins from the activations (two of them for five rows: repeats): the original exports and runs, but its
    graph differs from eager mode on the traced input; TRT341 is the suspect, applied and verified."""
    path = tmp_path / "bins_model.py"
    path.write_text(_bins_model("y[0, :, :, 0].argmax(0) % 2", "rows * 0.5"))
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT341"]
    assert "+        return _trt_index_add(pooled, 0, bins, rows)" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True


def test_migrate_fixes_an_index_add_the_exporter_refuses(tmp_path) -> None:
    """Five rows into two bins: the exporter refuses an index_add whose source has more rows than its target
    ("duplicated values in 'index'"); the export error names index_add, and TRT341 takes it."""
    path = tmp_path / "bins_model.py"
    path.write_text(_bins_model("torch.arange(y.shape[2], device=y.device) % 2",
                                "rows.new_zeros(2, rows.shape[1], rows.shape[2])"))
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is False
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT341"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True
