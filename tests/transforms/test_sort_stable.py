"""TRT343: sorts with ``stable=`` and ``torch.msort`` → the same call without ``stable=False``, ``sort(dim=0)``,
or helpers that sort twice while exporting.

The original does not export ("Unsupported: ONNX export of operator Sort, Out parameter is not
supported", "aten::msort ... is not supported"); after the rewrite it exports, its graph gives torch's
stable order on ties (ints, bools, floats with repeated values, ``-0.0``, infinities and NaN) at the
traced size and at others, eager mode is torch's call itself, and ``migrate`` picks the rule from the
export's error. The safety contract (script, fx, compile, export, hypothesis-drawn tensors) runs in
tests/safety/.
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


class Rank(nn.Module):
    def forward(self, x, labels):
        _, grouped = torch.sort(labels, dim=-1, stable=False)
        values, order = x.sort(dim=1, descending=True, stable=True)
        by_label = torch.argsort(labels, dim=-1, stable=True)
        rows = x.argsort(dim=0, stable=True)
        flags = torch.sort(labels > 1, stable=True).indices
        columns = torch.msort(x)
        return grouped, values, order, by_label, rows, flags, columns, x.msort()
"""
NAMES = ["x", "labels"]


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT343",))
    body = after.split("class Rank", 1)[1]
    assert "_, grouped = torch.sort(labels, dim=-1)\n" in body
    assert "values, order = _trt_sort(x, dim=1, descending=True, stable=True)" in body
    assert "by_label = _trt_argsort(labels, dim=-1, stable=True)" in body
    assert "rows = _trt_argsort(x, dim=0, stable=True)" in body
    assert "flags = _trt_sort(labels > 1, stable=True).indices" in body
    assert "columns = torch.sort(x, dim=0).values" in body
    assert "return grouped, values, order, by_label, rows, flags, columns, x.sort(dim=0).values" in body
    multi = "def f(x):\n    return torch.sort(x,\n                      stable=None,\n                      )\n"
    assert rewrite("import torch\n" + multi, select=("TRT343",)).endswith(
        "def f(x):\n    return torch.sort(x)\n")
    kept = ("def f(x, args, out):\n    a = torch.sort(x, *args, stable=True)\n    b = torch.sort(x, -1, stable=True)\n"
            "    c = torch.sort(x, stable=True, out=out)\n    d = torch.sort(x, dim=0)\n    e = x.argsort()\n"
            "    return msort(x), torch.msort(x, out=out)\n")
    source = "import torch\nfrom torch import msort\n" + kept
    assert rewrite(source, select=("TRT343",)).endswith(kept)
    lines = [f.line for f in check_source(source.encode(), "snippet.py", Options(select=("TRT343",)))]
    assert lines == [4, 5, 6, 9, 9]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sort_stable")
    after = rewrite(SOURCE, select=("TRT343",))
    return import_source(SOURCE, folder)["Rank"], import_source(after, folder)


def _inputs(rows: int, columns: int, dtype: torch.dtype, seed: int = 0) -> list[torch.Tensor]:
    """Values with many ties (a few distinct values), and, for floats, -0.0 next to 0.0, infinities and NaN."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randint(-2, 3, (rows, columns), generator=generator).to(dtype)
    if dtype.is_floating_point:
        flat = x.view(-1)
        flat[::7] = float("nan")
        flat[1::5] = float("inf")
        flat[2::11] = -0.0
        flat[3::13] = -float("inf")
    elif dtype == torch.bool:
        x = x > 0
    labels = torch.randint(0, 4, (rows, columns), generator=generator)
    return [x, labels]


def _same(got, want) -> None:
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.is_floating_point():
            assert torch.equal(g.isnan(), w.isnan()), (g, w)
            assert torch.equal(g[~g.isnan()], w[~w.isnan()]), (g, w)
            assert torch.equal(g[~g.isnan()].signbit(), w[~w.isnan()].signbit()), (g, w)  # -0.0 kept in place
        else:
            assert torch.equal(g, w), (g, w)


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_eager_mode_is_torchs_call_and_the_export_formulation_is_its_stable_sort(programs, dtype) -> None:
    before, namespace = programs
    for rows, columns in ((1, 1), (3, 40), (40, 3), (2, 300)):
        inputs = _inputs(rows, columns, dtype, seed=rows + columns)
        if dtype == torch.uint8:
            inputs[0] = inputs[0] + 2
        want = before()(*inputs)
        _same(namespace["Rank"]()(*inputs), want)
        with export_formulation(namespace):
            got = namespace["Rank"]()(*inputs)
        # the unstable sort (first output) keeps torch's call in eager mode; the graph's order among its ties
        # is the graph's own: compared through what every order shares, the sorted values
        assert torch.equal(inputs[1].gather(-1, got[0]), inputs[1].gather(-1, want[0]))
        _same(got[1:], want[1:])


def test_the_stable_formulation_on_edge_shapes_and_keys() -> None:
    from trtcodemod.helpers.sorting import _trt_argsort, _trt_sort

    cases = [torch.zeros(0, 3), torch.zeros(3, 0, dtype=torch.int64), torch.tensor([5]),
             torch.tensor([0.0, -0.0, 0.0, -0.0]), torch.full((20,), float("nan")),
             torch.tensor([float("nan"), float("inf"), float("nan"), float("inf"), -float("inf")]),
             torch.tensor([2 ** 62, -2 ** 62, 2 ** 62, 0, -2 ** 62]),
             torch.tensor([127, -128, 127, -128, 0], dtype=torch.int8),
             torch.tensor([255, 0, 255, 0], dtype=torch.uint8),
             torch.tensor([65504.0, -65504.0, 65504.0, 6e-8], dtype=torch.float16)]
    for x in cases:
        for descending in (False, True):
            want = torch.sort(x, stable=True, dim=-1, descending=descending)
            with export_formulation():
                got = _trt_sort(x, dim=-1, descending=descending, stable=True)
                indices = _trt_argsort(x, dim=-1, descending=descending, stable=True)
            _same(got, want)
            assert torch.equal(indices, want.indices)
    scalar = torch.tensor(3.0)  # 0-d: torch's call, also while exporting
    with export_formulation():
        assert torch.equal(_trt_sort(scalar, stable=True).indices, torch.tensor(0))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool = False) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            axes = ({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},) * len(inputs)
            return torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=NAMES, verbose=False,
                                     dynamic_shapes=axes).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=NAMES,
                          dynamic_axes={name: {0: f"r_{name}", 1: f"c_{name}"} for name in NAMES})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return [torch.from_numpy(out) for out in session.run(None, feeds)]


def test_the_original_export_fails(programs) -> None:
    before, _ = programs
    with pytest.raises(Exception, match="operator Sort, Out parameter is not supported"):
        _export(before(), _inputs(3, 5, torch.float32))
    msort_only = import_source(SOURCE.replace("stable=False", "").replace("stable=True", "")
                               .replace(", )", ")").replace(", ,", ","), _tmp_folder())["Rank"]
    with pytest.raises(Exception, match="aten::msort"):
        _export(msort_only(), _inputs(3, 5, torch.float32))


def _tmp_folder():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="sort_stable_"))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int32], ids=str)
def test_the_rewritten_export_sorts_stably_at_every_size(programs, dynamo: bool, dtype) -> None:
    _, namespace = programs
    model = namespace["Rank"]()
    graph = _export(model, _inputs(3, 8, dtype), dynamo=dynamo)
    assert "TopK" in {node.op_type for node in graph.graph.node}
    for rows, columns in ((3, 8), (5, 300), (2, 1)):
        inputs = _inputs(rows, columns, dtype, seed=10 + rows)
        got = _run(graph, inputs)
        want = model(*inputs)
        assert torch.equal(inputs[1].gather(-1, got[0]), inputs[1].gather(-1, want[0]))
        _same(got[1:], want[1:])
    if not dynamo:
        assert [f for f in check_graph(graph, "10.0") if f.severity == "error"] == []


MIGRATE_MODEL = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x).flatten(2)
        bins = (y > 0).sum(1)
        order = torch.argsort(bins, dim=-1, descending=True, stable=True)
        return y.gather(2, order[:, None].expand_as(y))


def build():
    torch.manual_seed(0)
    return Net().eval()
"""


def test_migrate_fixes_a_stable_sort_the_exporter_refuses(tmp_path) -> None:
    """Pixels ranked by how many channels are positive (0 to 4: ties everywhere): the export stops at the
    stable argsort; the error names the Sort, TRT343 takes it, and the graph's order is torch's."""
    path = tmp_path / "rank_model.py"
    path.write_text(MIGRATE_MODEL)
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is False
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT343"]
    assert "+        order = _trt_argsort(bins, dim=-1, descending=True, stable=True)" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True
