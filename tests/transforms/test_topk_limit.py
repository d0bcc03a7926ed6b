"""TRT804 topk-large-k: findings, the rewrite run on real tensors (eager, toolchains, the export
formulation), and the exported graphs of both exporters in ONNX Runtime against eager."""

from __future__ import annotations

import io
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import assert_same, export_formulation, rewrite, rules_found
from trtcodemod.helpers.detection import _trt_topk_capped, _trt_topk_large
from trtcodemod.trt.check import check_graph

HEADER = "import torch\nfrom torch import nn\n\n"
INF, NAN = float("inf"), float("nan")


def _rules(body: str) -> list[str]:
    return rules_found(HEADER + body, select=("TRT803", "TRT804"))


# --- findings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "def f(s):\n    return s.topk(5000)\n",
    "def f(s):\n    return torch.topk(s, 3840, dim=0)\n",
    "def f(s):\n    k = 6000\n    return s.topk(k, 1)\n",
    "PRE = 4000\n\ndef f(s):\n    return s.topk(PRE)\n",
    "def f(s, nms_pre=5000):\n    return torch.topk(s, nms_pre)\n",
    "class H(nn.Module):\n    def __init__(self, nms_pre=5000):\n        super().__init__()\n"
    "        self.nms_pre = nms_pre\n    def forward(self, s):\n        return s.topk(self.nms_pre)\n",
    "class H(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.k = 9000\n"
    "    def forward(self, s):\n        return s.topk(self.k)\n",
])
def test_large_k_found(body: str) -> None:
    assert _rules(body) == ["TRT804"]
    for target in ("8.4", "10.x"):
        assert rules_found(HEADER + body, target=target, select=("TRT804",)) == ["TRT804"]


@pytest.mark.parametrize("body", [
    "def f(s):\n    return s.topk(3839)\n",  # below the limit
    "def f(s, k):\n    return s.topk(k)\n",  # not known here
    "def f(s, k=100):\n    return s.topk(k)\n",
    "PRE = 4000\nPRE = 10\n\ndef f(s):\n    return s.topk(PRE)\n",  # assigned twice
    "def f(s, nms_pre=5000):\n    nms_pre = nms_pre // 10\n    return s.topk(nms_pre)\n",
    "class H(nn.Module):\n    def __init__(self, nms_pre=5000):\n        super().__init__()\n"
    "        self.nms_pre = nms_pre\n    def set(self, v):\n        self.nms_pre = v\n"
    "    def forward(self, s):\n        return s.topk(self.nms_pre)\n",  # set in two places
    "def f(s, cfg):\n    return s.topk(cfg.nms_pre)\n",
    "def f(s):\n    return sorted(s)[:5000]\n",
])
def test_large_k_look_alikes(body: str) -> None:
    assert "TRT804" not in _rules(body)


def test_min_form_is_trt803_with_a_fix_for_large_caps() -> None:
    body = "def f(s):\n    return s.topk(min(5000, s.shape[1]), dim=1)\n"
    assert _rules(body) == ["TRT803"]
    after = rewrite(HEADER + body, unsafe=True, select=("TRT803",))
    assert "_trt_topk_capped(s, min(5000, s.shape[1]), 5000, 1, dim=1)" in after


def test_rewrite_text_needs_unsafe_and_is_idempotent() -> None:
    body = "def f(s):\n    a = s.topk(5000, dim=1)\n    b = torch.topk(s, 4000, 1, False)\n    return a, b\n"
    assert rewrite(HEADER + body, select=("TRT804",)) == HEADER + body
    after = rewrite(HEADER + body, unsafe=True, select=("TRT804",))
    assert "a = _trt_topk_large(s, 5000, dim=1)" in after
    assert "b = _trt_topk_large(s, 4000, 1, False)" in after
    assert after.count("def _trt_topk_large(") == 1 and after.count("def _trt_topk_rounds(") == 1
    assert rewrite(after, unsafe=True, select=("TRT804",)) == after
    compile(after, "after.py", "exec")


# --- the rewritten code on tensors ----------------------------------------------------------------

PROGRAM = HEADER + (
    "def last(s, k: int = 5000):\n    return s.topk(k)\n\n"
    "def first(s, k: int = 5000, largest: bool = True):\n    return torch.topk(s, k, 0, largest)\n"
)


@pytest.fixture(scope="module")
def programs() -> tuple[dict, dict]:
    body = PROGRAM
    after = rewrite(body, unsafe=True, select=("TRT804",))
    assert after.count("_trt_topk_large(") == 3  # two calls + the definition
    namespaces: tuple[dict, dict] = ({}, {})
    exec(compile(body, "before.py", "exec"), namespaces[0])
    exec(compile(after, "after.py", "exec"), namespaces[1])
    return namespaces


def _rows(n: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Rows with the edges: plain, ties (rounded), -inf and NaN and +inf, all zeros with -0.0, all -inf."""
    g = torch.Generator().manual_seed(n)
    rows = torch.randn(5, n, generator=g)
    rows[1] = torch.round(rows[1] * 2)
    rows[2, ::3] = -INF
    rows[2, 1::7] = NAN
    rows[2, 2::11] = INF
    rows[3] = 0.0
    rows[3, ::2] = -0.0
    rows[4] = -INF
    return rows.to(dtype)


@pytest.mark.parametrize("n", [3840, 5000, 7679, 9000])
def test_eager_is_the_original(programs, n: int) -> None:
    before, after = programs
    x = _rows(n)
    for k in (3840, 5000, 7679, n):
        if k > n:
            continue
        expected, got = before["last"](x, k), after["last"](x, k)
        assert type(got) is type(expected)
        assert_same(tuple(expected), tuple(got))
        assert expected.values.stride() == got.values.stride()
    # errors and gradients
    for program in (before, after):
        with pytest.raises(RuntimeError):
            program["last"](x, n + 1)
    x1 = torch.randn(2, 4000, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_(True)
    (before["last"](x1, 3900).values * torch.arange(3900.0)).sum().backward()
    (after["last"](x2, 3900).values * torch.arange(3900.0)).sum().backward()
    assert torch.equal(x1.grad, x2.grad)


@pytest.mark.parametrize("k", [3839, 3840, 5000, 7678, 7679, 7680, 9000])
@pytest.mark.parametrize("largest", [True, False])
def test_export_formulation_matches_topk(k: int, largest: bool) -> None:
    """The rounds, run in eager mode: the values of torch.topk; indices distinct and pointing at them."""
    n = 9000
    x = _rows(n)
    expected = torch.topk(x, k, dim=1, largest=largest)
    with export_formulation():
        # sorted=False: the rounds sort anyway (below the limit it is torch.topk's own unsorted order).
        got = _trt_topk_large(x, k, 1, largest, k < 3840)
    # Equal values, NaN included; 0.0 and -0.0 are equal, so eager topk may put either first (a tie).
    torch.testing.assert_close(got.values, expected.values, atol=0, rtol=0, equal_nan=True)
    assert got.values.dtype == expected.values.dtype and got.indices.dtype == torch.int64
    assert all(len(set(row.tolist())) == k for row in got.indices)
    assert_same(torch.gather(x, 1, got.indices), got.values)
    plain = torch.stack([torch.randperm(n, generator=torch.Generator().manual_seed(i)) for i in range(3)]).float() - 4000
    # no ties: the same indices
    with export_formulation():
        assert torch.equal(_trt_topk_large(plain, k, -1, largest).indices, torch.topk(plain, k, largest=largest).indices)


def test_export_formulation_is_used() -> None:
    """The suite can fail: under `export_formulation` the rounds really run (two TopK calls for 5000)."""
    calls = []
    real = torch.topk

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    x = torch.randn(2, 6000)
    torch.topk = spy
    try:
        with export_formulation():
            _trt_topk_large(x, 5000)
        _trt_topk_large(x, 5000)
    finally:
        torch.topk = real
    assert calls == [3839, 1161, 5000]


def test_toolchains_run_the_original() -> None:
    src = HEADER + "class M(nn.Module):\n    def forward(self, s):\n        return s.topk(4000, dim=1)\n"
    after = rewrite(src, unsafe=True, select=("TRT804",))
    from safety import Run, assert_same_run, import_source, toolchain_outcomes

    with tempfile.TemporaryDirectory() as folder:
        before_m = import_source(src, Path(folder))["M"]
        after_m = import_source(after, Path(folder))["M"]
        x = _rows(4500)
        before = toolchain_outcomes(before_m, [x], Path(folder))
        got = toolchain_outcomes(after_m, [x], Path(folder))
        for name, result in before.items():
            assert not isinstance(result, Exception), (name, result)
            assert not isinstance(got[name], Exception), (name, got[name])
            assert_same_run(Run([x], tuple(result)), Run([x], tuple(got[name])), context=name)


# --- the exported graphs ------------------------------------------------------------------------------


class _Top(torch.nn.Module):
    def __init__(self, k: int, helper: bool, largest: bool = True, sorted: bool = True) -> None:
        super().__init__()
        self.k, self.helper, self.largest, self.sorted = k, helper, largest, sorted

    def forward(self, x):
        topk = _trt_topk_large if self.helper else torch.topk
        return tuple(topk(x, self.k, 1, self.largest, self.sorted))


def _export(model: torch.nn.Module, n: int, dynamo: bool) -> onnx.ModelProto:
    x = torch.randn(2, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], verbose=False,
                                     dynamic_shapes=({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},)
                                     ).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 1: "n"}})
        return onnx.load_from_string(buffer.getvalue())


def _ks(model: onnx.ModelProto) -> list[int]:
    values = {init.name: onnx.numpy_helper.to_array(init) for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            values[node.output[0]] = onnx.numpy_helper.to_array(node.attribute[0].t)
    return [int(values[n.input[1]].ravel()[0]) for n in model.graph.node if n.op_type == "TopK"]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("k,largest,sorted", [(5000, True, True), (7679, False, True), (3840, True, False)])
def test_exported_rounds_match_eager_and_one_onnx_topk(dynamo: bool, k: int, largest: bool, sorted: bool) -> None:
    original = _export(_Top(k, False, largest, sorted), 9000, dynamo)
    rounds = _export(_Top(k, True, largest, sorted), 9000, dynamo)
    assert _ks(original) == [k]
    # the original: K over the limit (and sorted=0 where asked); the rounds: neither
    assert [i.rule for i in check_graph(original, "10.x") if i.op == "TopK"] == ["TRT805"] * (not sorted) + ["TRT804"]
    assert all(v < 3840 for v in _ks(rounds)) and sum(_ks(rounds)) == k
    for target in ("8.4", "8.6", "10.x"):
        assert [i for i in check_graph(rounds, target) if i.severity == "error"] == []
    sessions = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                for m in (original, rounds)]
    for n in (k, 9000, 12001):  # K equal to the axis, and other sizes than the traced one
        x = _rows(n)
        feed = {sessions[0].get_inputs()[0].name: x.numpy()}
        single = sessions[0].run(None, feed)
        values, indices = sessions[1].run(None, {sessions[1].get_inputs()[0].name: x.numpy()})
        eager = torch.topk(x, k, 1, largest, True)
        assert values.dtype == np.float32 and indices.dtype == np.int64 and values.shape == (5, k)
        assert np.array_equal(values, eager.values.numpy(), equal_nan=True)
        assert np.array_equal(values, single[0], equal_nan=True) or not sorted
        assert np.array_equal(indices, single[1]) or not sorted  # one ONNX TopK's indices, ties included
        assert np.array_equal(np.take_along_axis(x.numpy(), indices, 1), values, equal_nan=True)
        assert all(len(set(row)) == k for row in indices.tolist())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_capped_k_above_the_limit_exports_in_rounds(dynamo: bool) -> None:
    """TRT803's helper with a cap of 5000: a constant K per round, min(5000, n) results for every n."""

    class Capped(torch.nn.Module):
        def forward(self, x):
            return tuple(_trt_topk_capped(x, min(5000, x.shape[1]), 5000, 1, dim=1))

    model = _export(Capped(), 6000, dynamo)
    assert all(v < 3840 for v in _ks(model)) and sum(_ks(model)) == 5000
    assert [i for i in check_graph(model, "10.x") if i.op == "TopK"] == []
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (10, 3839, 5000, 7000):
        x = _rows(n)
        values, indices = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        expected = torch.topk(x, min(5000, n), dim=1).values.numpy()
        assert np.array_equal(values, expected, equal_nan=True)
        assert (indices < n).all() or bool(np.isneginf(values[indices >= n]).all())
