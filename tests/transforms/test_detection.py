"""TRT801 threshold-select, TRT802 topk-shape-k, TRT803 topk-min-k: findings, look-alikes that must
stay quiet, the TRT803 rewrite run on real tensors, and the exported graphs (both exporters); then
TRT803 on a K capped at run time (issue 30), on snippets and on the real variants of
``tests/topk_variants/``, migrated end to end."""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from hypothesis import HealthCheck, given, settings

from drawn import tensors
from safety import assert_same_run, import_source, run_once
from support import TESTS, assert_same, export_formulation, load, rewrite, rules_found
from trtcodemod.helpers.detection import _trt_sort_guarded, _trt_topk_capped, _trt_topk_guard, _trt_topk_guarded
from trtcodemod.trt.check import RULES, check_graph

HEADER = "import torch\nimport numpy as np\nfrom torch import nn, Tensor\n\n"
INF, NAN = float("inf"), float("nan")


def _found(body: str, rule: str, target: str = "8.6") -> int:
    return rules_found(HEADER + body, target=target, select=(rule,)).count(rule)


# --- TRT801: what fires -------------------------------------------------------------------------

THRESHOLD_POSITIVES = [
    # a mask name assigned once, used twice: one finding (on the comparison)
    "def f(boxes: torch.Tensor, scores, score_thr):\n    keep = scores > score_thr\n    return boxes[keep], scores[keep]\n",
    "def f(boxes: torch.Tensor, scores):\n    return boxes[scores > 0.3]\n",
    "def f(boxes, scores: Tensor):\n    return boxes[0.3 <= scores]\n",
    "def f(scores):\n    return torch.where(scores >= 0.05)[0]\n",
    "def f(scores, conf_thres):\n    return (scores > conf_thres).nonzero()\n",
    "def f(scores):\n    return torch.nonzero(scores.sigmoid() > 0.5, as_tuple=True)\n",
    "def f(x, mask_thr):\n    return x.masked_select(x >= mask_thr)\n",
    "def f(x, mask_thr):\n    return torch.masked_select(x, mask=x >= mask_thr)\n",
    "def f(boxes, scores, valid):\n    keep = (scores.sigmoid() > 0.25) & valid\n    return boxes[keep]\n",
    "def f(boxes, scores: torch.Tensor):\n    return boxes[~(scores < 0.1)]\n",
    "def f(x, cfg):\n    pred = x.float()\n    return pred[pred[..., 4] > cfg.conf_thresh]\n",
    "class H(nn.Module):\n    def forward(self, boxes, logits):\n"
    "        keep = logits.sigmoid().max(1)[0] > self.score_threshold\n        return boxes[keep]\n",
]


@pytest.mark.parametrize("body", THRESHOLD_POSITIVES)
def test_threshold_select_fires_once(body: str) -> None:
    assert _found(body, "TRT801") == 1


def test_threshold_select_message_and_location() -> None:
    from trtcodemod.engine import Options, check_source

    source = HEADER + "def f(boxes: torch.Tensor, scores, thr):\n    keep = scores > thr\n    return boxes[keep]\n"
    findings = check_source(source.encode(), "s.py", Options(select=("TRT801",), target="8.4"))
    assert [(f.line, f.column, f.fix.value) for f in findings] == [(6, 12, "none")]  # `scores > thr` (1-based columns)
    assert "TensorRT 8.4" in findings[0].message and "topk(K)" in findings[0].message
    newer = check_source(source.encode(), "s.py", Options(select=("TRT801",), target="10.0"))
    assert "data-dependent" in newer[0].message


def test_threshold_select_is_not_the_selection_node() -> None:
    """TRT201 reports the subscript, TRT801 the comparison inside it: two nodes, two columns."""
    from trtcodemod.engine import Options, check_source

    source = HEADER + "def f(boxes, scores: Tensor):\n    return boxes[scores > 0.3]\n"
    findings = check_source(source.encode(), "s.py", Options(select=("TRT201", "TRT801")))
    where = {f.rule: (f.line, f.column) for f in findings}
    assert where == {"TRT201": (6, 12), "TRT801": (6, 18)}


THRESHOLD_NEGATIVES = [
    # no sign of a tensor: NumPy code looks the same (`x, y = segment.T; x[x >= 0]`)
    "def f(boxes, scores):\n    return boxes[scores > 0.3]\n",
    "def f(segment, width):\n    x, y = segment.T\n    inside = (x >= 0) & (x <= width)\n    return x[inside]\n",
    "def f(a):\n    a = np.asarray(a)\n    return a[a > 0.5]\n",
    # a sign test and a one-hot pick are no score thresholds
    "def f(x: Tensor):\n    positive = x > 0\n    return x[positive]\n",
    "def f(q: Tensor, c: Tensor):\n    return c[torch.nn.functional.one_hot(q.argmax(-1), 4) > 0.5]\n",
    # used as a number, not a selection
    "def f(scores, thr):\n    return scores * (scores > thr)\n",
    "def f(scores, thr):\n    return (scores > thr).float().sum()\n",
    "def f(scores, thr):\n    return torch.where(scores > thr, scores, 0.0)\n",
    # NumPy
    "def f(a, t):\n    return np.where(a > t)[0]\n",
    "def f(a, thr):\n    return np.nonzero(a > thr)\n",
    # equality is a class pick, not a threshold
    "def f(labels, c, boxes):\n    return boxes[labels == c]\n",
    # written through the mask (TRT202's), not a selection read
    "def f(boxes, scores, thr):\n    boxes[scores < thr] = 0\n    return boxes\n",
    # sizes and counts
    "def f(x, thr):\n    return x[x.shape[0] > thr]\n",
    "def f(x, n):\n    return x[n > 3]\n",
    "def f(x, items):\n    return x[len(items) > 2]\n",
    "def f(x, self_):\n    return x[self_.num_classes > 1]\n",
    # the other side is not a threshold
    "def f(boxes, a, b):\n    return boxes[a > b]\n",
    # the mask name is assigned twice: no single origin
    "def f(boxes, scores, thr, other):\n    keep = scores > thr\n    keep = other\n    return boxes[keep]\n",
    # training-only code is not exported
    "class H(nn.Module):\n    def forward(self, boxes, scores):\n        if self.training:\n"
    "            return boxes[scores > 0.5]\n        return boxes\n",
    # no torch in the file
]


@pytest.mark.parametrize("body", THRESHOLD_NEGATIVES)
def test_threshold_select_look_alikes_stay_quiet(body: str) -> None:
    assert _found(body, "TRT801") == 0


def test_threshold_select_needs_torch() -> None:
    code = "import numpy as np\n\ndef f(a, thr):\n    return a[a > thr]\n"
    assert rules_found(code, select=("TRT801",)) == []


def test_threshold_select_is_detect_only() -> None:
    code = HEADER + "def f(boxes, scores):\n    return boxes[scores > 0.3]\n"
    assert rewrite(code, unsafe=True, select=("TRT801",)) == code


def test_threshold_select_pattern_exports_nonzero() -> None:
    """What the rule is about, measured: the selection exports a NonZero and a size that follows the data."""
    f = load(HEADER + "def f(boxes, scores):\n    return boxes[scores > 0.3]\n", "f")

    class M(torch.nn.Module):
        def forward(self, boxes, scores):
            return f(boxes, scores)

    model = _export(M(), (torch.randn(6, 4), torch.rand(6)), {"b": {0: "n"}, "s": {0: "n"}}, names=["b", "s"])
    assert "NonZero" in [n.op_type for n in model.graph.node]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    sizes = {session.run(None, {"b": np.ones((5, 4), np.float32), "s": np.array([0.9] * k + [0.1] * (5 - k),
                                                                                   np.float32)})[0].shape[0]
             for k in (0, 2, 5)}
    assert sizes == {0, 2, 5}


# --- TRT802 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "def f(scores):\n    return torch.topk(scores, scores.shape[1] // 2)\n",
    "def f(scores):\n    return scores.topk(scores.size(1) - 1, dim=1)\n",
    "def f(x):\n    k = x.numel() // 8\n    return x.flatten().topk(k)\n",
])
def test_topk_shape_k_fires_before_8_6_only(body: str) -> None:
    assert _found(body, "TRT802", target="8.4") == 1
    assert _found(body, "TRT802", target="8.5") == 1
    assert _found(body, "TRT802", target="8.6") == 0
    assert _found(body, "TRT802", target="10.0") == 0


@pytest.mark.parametrize("body", [
    "def f(scores):\n    return torch.topk(scores, 5)\n",                      # literal K
    "def f(scores, k):\n    return scores.topk(k)\n",                           # K from an argument
    "def f(scores, a, b):\n    return torch.topk(scores, min(a, b))\n",         # min of Python ints, no shape
    "def f(scores):\n    return torch.topk(scores, int(scores.shape[1] * 0.5))\n",  # baked constant: TRT712
    "def f(scores):\n    return scores.topk(min(10, scores.shape[1]))\n",       # TRT803's
    "def f(a):\n    return np.partition(a, a.shape[0] // 2)\n",                 # NumPy
    "def f(scores):\n    k = scores.shape[1] // 2\n    k = 3\n    return scores.topk(k)\n",  # two bindings
])
def test_topk_shape_k_look_alikes(body: str) -> None:
    assert _found(body, "TRT802", target="8.4") == 0


# --- TRT803: findings -------------------------------------------------------------------------------


@pytest.mark.parametrize("body,fixable", [
    ("def f(scores, max_det):\n    return scores.topk(min(max_det, scores.shape[1]), dim=1)\n", True),
    ("def f(scores):\n    return torch.topk(scores, min(scores.size(0), 100))\n", True),
    ("def f(scores):\n    return scores.topk(min(100, scores.size()[-1]))\n", True),
    ("class H(nn.Module):\n    def forward(self, s):\n        return s.topk(min(self.max_det, s.shape[1]), 1)\n", True),
    ("def f(scores):\n    k = min(100, scores.shape[-1])\n    return scores.topk(k)\n", True),
    ("def f(scores, cap):\n    k = min(cap, scores.shape[-1])\n    cap = 3\n    return scores.topk(k)\n", False),
    ("def f(scores, cap):\n    return scores.topk(min(cap, scores.shape[1]), largest=False)\n", False),
    ("def f(scores, logits):\n    return scores.topk(min(10, logits.shape[1]))\n", False),
    ("def f(scores):\n    return scores.topk(min(5000, scores.shape[1]))\n", True),
    ("def f(scores):\n    return scores.topk(min(10, scores.shape[0]), dim=1)\n", False),
    ("def f(scores, d):\n    return scores.topk(min(10, scores.shape[1]), dim=d)\n", False),
])
def test_topk_min_k_fires_on_every_target(body: str, fixable: bool) -> None:
    for target in ("8.4", "8.6", "10.0"):
        assert _found(body, "TRT803", target=target) == 1
    changed = rewrite(HEADER + body, unsafe=True, select=("TRT803",)) != HEADER + body
    assert changed == fixable
    assert rewrite(HEADER + body, unsafe=False, select=("TRT803",)) == HEADER + body


@pytest.mark.parametrize("body", [
    "def f(scores, a, b):\n    return scores.topk(min(a, b))\n",
    "def f(scores):\n    return scores.topk(max(1, scores.shape[1]))\n",
    "def f(scores):\n    return scores.topk(10)\n",
    "def min(a, b):\n    return a\n\ndef f(scores):\n    return scores.topk(min(10, scores.shape[1]))\n",
    "def f(a):\n    return np.argpartition(a, min(3, a.shape[0]))\n",
])
def test_topk_min_k_look_alikes(body: str) -> None:
    assert _found(body, "TRT803") == 0


def test_topk_min_k_rewrite_text_and_idempotence() -> None:
    code = HEADER + (
        "class Head(nn.Module):\n"
        "    def forward(self, scores, boxes):\n"
        "        top, idx = torch.topk(scores, min(self.max_det, scores.shape[1]), dim=1, sorted=True)\n"
        "        return top, boxes.gather(1, idx)\n"
    )
    after = rewrite(code, unsafe=True, select=("TRT803",))
    assert ("top, idx = _trt_topk_capped(scores, min(self.max_det, scores.shape[1]), self.max_det, 1, dim=1, "
            "sorted=True)") in after
    assert after.count("def _trt_topk_capped(") == 1
    assert rewrite(after, unsafe=True, select=("TRT803",)) == after
    compile(after, "after.py", "exec")


# --- TRT803: the rewritten code on tensors -----------------------------------------------------------

PROGRAM = HEADER + (
    "def last(scores, cap: int):\n"
    "    return scores.topk(min(cap, scores.shape[-1]))\n\n"
    "def first(scores, cap: int):\n"
    "    return torch.topk(scores, min(scores.size(0), cap), dim=0, sorted=True)\n\n"
    "def middle(scores, cap: int):\n"
    "    return scores.topk(min(cap, scores.shape[1]), 1)\n"
)


def _edge_inputs(dim_size: int, dtype: torch.dtype = torch.float32, rank: int = 2) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(dim_size)
    shape = (3, dim_size) if rank == 2 else (2, dim_size, 3)
    plain = torch.randn(shape, generator=generator).to(dtype)
    special = plain.clone()
    if dim_size and dtype.is_floating_point:
        flat = special.view(-1)
        flat[::3] = -INF
        flat[1::5] = NAN
        flat[2::7] = INF
    ties = torch.zeros(shape, dtype=dtype)
    return [plain, special, ties]


@pytest.fixture(scope="module")
def programs() -> tuple[dict, dict]:
    after = rewrite(PROGRAM, unsafe=True, select=("TRT803",))
    assert after.count("_trt_topk_capped(") == 4  # three calls + the definition
    before_ns: dict = {"__name__": "before"}
    after_ns: dict = {"__name__": "after"}
    exec(compile(PROGRAM, "before.py", "exec"), before_ns)
    exec(compile(after, "after.py", "exec"), after_ns)
    return before_ns, after_ns


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64, torch.int64])
@pytest.mark.parametrize("size", [0, 1, 4, 10, 23])
def test_eager_is_the_original(programs, dtype: torch.dtype, size: int) -> None:
    before, after = programs
    for name, rank in (("last", 2), ("first", 2), ("middle", 3)):
        for x in _edge_inputs(size, dtype, rank):
            if name == "first":
                x = x.transpose(0, 1).contiguous()
            for cap in (1, 10):
                expected, got = before[name](x, cap), after[name](x, cap)
                assert type(got) is type(expected)
                assert_same(tuple(expected), tuple(got))
                assert expected.indices.stride() == got.indices.stride()


def test_eager_keeps_errors_and_gradients(programs) -> None:
    before, after = programs
    for cap in (-5, 0):
        x = torch.randn(3, 4)
        outcomes = []
        for program in (before, after):
            try:
                outcomes.append(tuple(program["last"](x, cap)))
            except RuntimeError as error:
                outcomes.append(type(error))
        if isinstance(outcomes[0], tuple):
            assert_same(outcomes[0], outcomes[1])
        else:
            assert outcomes[0] is outcomes[1] is RuntimeError
    x1 = torch.randn(3, 7, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_(True)
    weights = torch.arange(15.0).reshape(3, 5)
    (before["last"](x1, 5).values * weights).sum().backward()
    (after["last"](x2, 5).values * weights).sum().backward()
    assert torch.equal(x1.grad, x2.grad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("size", [0, 1, 4, 10, 23])
def test_export_formulation_matches_topk(programs, dtype: torch.dtype, size: int) -> None:
    """The form the exported graph computes, run in eager mode: values exact; every index points at its value."""
    before, after = programs
    for name, rank, axis in (("last", 2, 1), ("first", 2, 0), ("middle", 3, 1)):
        for x in _edge_inputs(size, dtype, rank):
            if name == "first":
                x = x.transpose(0, 1).contiguous()
            for cap in (1, 10):
                expected = before[name](x, cap)
                with export_formulation(after):
                    got = after[name](x, cap)
                assert_same(expected.values, got.values)
                assert got.indices.shape == expected.indices.shape
                # An index of an appended entry can only stand for a -inf (eager topk does not order
                # equal values by index; ONNX's TopK does: see the ONNX Runtime test below).
                inside = got.indices < x.shape[axis]
                assert bool((inside | (got.values == -INF)).all())
                picked = torch.gather(x, axis, got.indices.clamp(max=max(x.shape[axis] - 1, 0)))
                assert_same(torch.where(inside, picked, got.values), got.values)
                finite = x[~torch.isnan(x)]
                if finite.numel() == x.numel() and finite.unique().numel() == x.numel():
                    assert torch.equal(got.indices, expected.indices)  # no ties: the same indices


def test_export_formulation_is_used(programs) -> None:
    """The suite can fail: the export form really runs under `export_formulation` (and appends -inf)."""
    _, after = programs
    x = torch.randn(2, 3)
    calls = []
    real_cat = torch.cat

    def spy(tensors, dim=0):
        calls.append(tensors[1])
        return real_cat(tensors, dim)

    with export_formulation(after):
        torch.cat = spy
        try:
            after["last"](x, 5)
        finally:
            torch.cat = real_cat
    assert len(calls) == 1 and calls[0].shape == (2, 5) and bool((calls[0] == -INF).all())


def test_helper_falls_back_to_topk_outside_its_conditions() -> None:
    """Where the padded form would not be the same operation, the export takes the original topk."""
    x = torch.randn(2, 6)
    ints = torch.tensor([[3, 1, 2]])
    with export_formulation():
        cases = [
            (torch.topk(x, 4, largest=False), _trt_topk_capped(x, 4, 4, -1, largest=False)),  # smallest
            (torch.topk(x, 2, dim=0), _trt_topk_capped(x, 2, 4, -1, dim=0)),  # size read on another axis
            (torch.topk(ints, 2), _trt_topk_capped(ints, 2, 5, -1)),  # integers: no -inf
        ]
        for expected, got in cases:
            assert_same(tuple(expected), tuple(got))
            assert expected.values.stride() == got.values.stride()  # not a slice of a padded result


def test_toolchains_run_the_original(programs) -> None:
    src = HEADER + (
        "class M(nn.Module):\n"
        "    def forward(self, scores):\n"
        "        return scores.topk(min(5, scores.shape[1]), dim=1)\n"
    )
    after = rewrite(src, unsafe=True, select=("TRT803",))
    import tempfile
    from pathlib import Path

    from safety import Run, assert_same_run, import_source, toolchain_outcomes

    with tempfile.TemporaryDirectory() as folder:
        before_m = import_source(src, Path(folder))["M"]
        after_m = import_source(after, Path(folder))["M"]
        for x in (torch.randn(3, 8), torch.randn(3, 2)):
            before = toolchain_outcomes(before_m, [x], Path(folder))
            got = toolchain_outcomes(after_m, [x], Path(folder))
            for name, result in before.items():
                if isinstance(result, Exception):
                    continue
                assert not isinstance(got[name], Exception), (name, got[name])
                assert_same_run(Run([x], tuple(result)), Run([x], tuple(got[name])), context=name)
            assert not isinstance(before["script"], Exception) and not isinstance(before["compile"], Exception)


# --- TRT803: the exported graphs ------------------------------------------------------------------------


def _export(model: torch.nn.Module, args: tuple, axes: dict, *, names: list[str], dynamo: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, input_names=names, verbose=False,
                                        dynamic_shapes=tuple({a: torch.export.Dim.AUTO for a in axes[n]}
                                                             for n in names))
            return program.model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names, dynamic_axes=axes)
        return onnx.load_from_string(buffer.getvalue())


def _k_is_constant(model: onnx.ModelProto) -> bool:
    graph = model.graph
    producers = {out: node for node in graph.node for out in node.output}
    initializers = {init.name for init in graph.initializer}
    (topk,) = [node for node in graph.node if node.op_type == "TopK"]
    k = topk.input[1]
    return k in initializers or (k in producers and producers[k].op_type == "Constant")


def _modules(programs):
    before, after = programs

    class Before(torch.nn.Module):
        def forward(self, scores):
            return tuple(before["last"](scores, 10))

    class After(torch.nn.Module):
        def forward(self, scores):
            return tuple(after["last"](scores, 10))

    return Before(), After()


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("traced_size", [5, 50])
def test_exported_graph_has_constant_k_and_right_sizes(programs, dynamo: bool, traced_size: int) -> None:
    original, rewritten = _modules(programs)
    axes = {"scores": {0: "batch", 1: "n"}}
    example = (torch.randn(2, traced_size),)
    model = _export(rewritten, example, axes, names=["scores"], dynamo=dynamo)
    assert _k_is_constant(model)
    assert check_graph(model, "8.4") == []
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for size in (1, 4, 10, 30):
        for x in _edge_inputs(size):
            values, indices = session.run(None, {session.get_inputs()[0].name: x.numpy()})
            expected = original(x)
            assert values.shape == tuple(expected[0].shape)
            assert np.array_equal(values, expected[0].numpy(), equal_nan=True)
            assert (indices < size).all()
            gathered = np.take_along_axis(x.numpy(), indices, axis=1)
            assert np.array_equal(gathered, values, equal_nan=True)


def test_original_torchscript_export_is_wrong_for_other_sizes(programs) -> None:
    """The problem TRT803 fixes, measured: traced on 5 entries, K is the size (30 results for 30 entries)."""
    original, _ = _modules(programs)
    model = _export(original, (torch.randn(2, 5),), {"scores": {0: "batch", 1: "n"}}, names=["scores"])
    assert not _k_is_constant(model)
    issues = [i for i in check_graph(model, "8.4") if i.op == "TopK"]
    assert issues and RULES["TopK"][0] == "TRT803"
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    values, _ = session.run(None, {"scores": np.random.rand(2, 30).astype(np.float32)})
    assert values.shape == (2, 30)  # the model itself gives (2, 10)
    traced_large = _export(original, (torch.randn(2, 50),), {"scores": {0: "batch", 1: "n"}}, names=["scores"])
    session = ort.InferenceSession(traced_large.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):
        session.run(None, {"scores": np.random.rand(2, 4).astype(np.float32)})


def test_padding_with_f_pad_would_not_parse_on_8_4() -> None:
    """Why the helper appends an expanded constant instead of `F.pad(..., value=-inf)`."""

    class Pad(torch.nn.Module):
        def forward(self, x):
            values, indices = torch.topk(torch.nn.functional.pad(x, (0, 10), value=-INF), 10)
            return values[:, :x.shape[1]], indices[:, :x.shape[1]]

    model = _export(Pad(), (torch.randn(2, 5),), {"x": {0: "b", 1: "n"}}, names=["x"])
    assert any(issue.op == "Pad" for issue in check_graph(model, "8.4"))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_unsorted_capped_topk_keeps_the_top_entries(dynamo: bool) -> None:
    """Issue 19.7: with `sorted=False` the padded TopK must still keep every input entry (and no appended one)."""

    class Unsorted(torch.nn.Module):
        def forward(self, scores):
            return tuple(_trt_topk_capped(scores, min(10, scores.shape[1]), 10, 1, dim=1, sorted=False))

    model = _export(Unsorted(), (torch.randn(2, 50),), {"scores": {0: "batch", 1: "n"}}, names=["scores"],
                    dynamo=dynamo)
    assert _k_is_constant(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for size in (1, 4, 10, 30):
        for x in _edge_inputs(size):
            values, indices = session.run(None, {session.get_inputs()[0].name: x.numpy()})
            expected = torch.topk(x, min(10, size), dim=1).values.numpy()
            assert values.shape == expected.shape
            # The order is unspecified with sorted=False: compare each row as a sorted set of values.
            assert np.array_equal(np.sort(values, axis=1), np.sort(expected, axis=1), equal_nan=True)
            assert (indices < size).all()
            assert np.array_equal(np.take_along_axis(x.numpy(), indices, axis=1), values, equal_nan=True)


# --- TRT803 on a K capped at run time (was test_topk_runtime_k.py) -----------------------------
# Issue 30: a pre-NMS selection whose K is capped at run time (``k = min(cap, n)`` through a
# local name, ``if 0 < cap < n:`` guards around a top-k or a sort) migrates to a graph with no
# TopK over TensorRT's limit and the same selection for n below, at and above the cap.
#
# The real variants are the models under ``tests/topk_variants/`` (each cites its source).


RUNTIME_K_HEADER = "import torch\nfrom torch import nn\n\n"


VARIANTS = TESTS / "topk_variants"


CAP = 5000


INF, NAN = float("inf"), float("nan")


#: variant -> its inputs' names (all share the candidate axis 0)
NAMES = {
    "mmdet3d_point_rpn": ("obj_scores", "bbox"),
    "mmdet3d_anchor3d": ("scores", "priors", "bbox_pred", "dir_cls_score"),
    "mmrotate_reppoints": ("scores", "points", "points_pred"),
    "mmrotate_csl_retina": ("scores", "anchors", "bbox_pred", "angle_cls"),
    "mmrotate_rpn_sort": ("scores", "rpn_bbox_pred", "anchors"),
    "openpcdet_nms": ("box_scores", "box_preds"),
}


def _found_runtime_k(body: str) -> list[str]:
    return rules_found(RUNTIME_K_HEADER + body, select=("TRT803", "TRT804"))


GUARDS = {
    "chain": ("if 0 < nms_pre < s.shape[0]:", "if 0 < nms_pre and _trt_topk_guard(nms_pre, s.shape[0]):"),
    "and": ("if nms_pre > 0 and s.shape[0] > nms_pre:", "if nms_pre > 0 and _trt_topk_guard(nms_pre, s.shape[0]):"),
    "size first": ("if s.shape[0] > nms_pre > 0:", "if _trt_topk_guard(nms_pre, s.shape[0]) and nms_pre > 0:"),
    "alone": ("if s.size(0) > nms_pre:", "if _trt_topk_guard(nms_pre, s.size(0)):"),
}


@pytest.mark.parametrize("form", sorted(GUARDS))
def test_guard_forms_are_rewritten(form: str) -> None:
    test, new_test = GUARDS[form]
    body = (f"def f(s, b, nms_pre=5000):\n    {test}\n        m, _ = s.max(dim=1)\n"
            "        _, inds = m.topk(nms_pre)\n        b = b[inds, :]\n        s = s[inds]\n    return s, b\n")
    assert _found_runtime_k(body) == ["TRT803"]  # TRT804 leaves the guarded top-k to TRT803's fix
    assert rewrite(RUNTIME_K_HEADER + body, select=("TRT803",)) == RUNTIME_K_HEADER + body  # unsafe: needs --unsafe
    after = rewrite(RUNTIME_K_HEADER + body, unsafe=True, select=("TRT803", "TRT804"))
    assert f"    {new_test}\n" in after and "_, inds = _trt_topk_guarded(m, nms_pre)\n" in after
    assert after.count("def _trt_topk_guard(") == 1 and "def _trt_sort_guarded(" not in after
    assert rewrite(after, unsafe=True, select=("TRT803", "TRT804")) == after
    compile(after, "after.py", "exec")


def test_local_k_with_a_stable_cap_is_rewritten() -> None:
    body = ("class H(nn.Module):\n    def forward(self, s):\n        k = min(self.pre_top_k, s.shape[0])\n"
            "        scores, idx = s.topk(k)\n        return scores, idx\n")
    after = rewrite(RUNTIME_K_HEADER + body, unsafe=True, select=("TRT803",))
    assert "        scores, idx = _trt_topk_capped(s, k, self.pre_top_k, 0)\n" in after
    assert "        k = min(self.pre_top_k, s.shape[0])\n" in after


def test_a_cap_of_arithmetic_on_settings_is_rewritten(tmp_path) -> None:
    # torchlm's FaceBoxesV2 (DefTruth/torchlm@0.1.6.10 torchlm/runtime/_faceboxesv2.py, zoo 96):
    # `torch.topk(scores, min(self.top_k * 3, scores.shape[0]))`
    body = ("class H(nn.Module):\n    def __init__(self, top_k=2):\n        super().__init__()\n"
            "        self.top_k = top_k\n\n    def forward(self, scores):\n"
            "        return tuple(torch.topk(scores, min(self.top_k * 3, scores.shape[0])))\n")
    after = rewrite(RUNTIME_K_HEADER + body, unsafe=True, select=("TRT803",))
    assert "        return tuple(_trt_topk_capped(scores, min(self.top_k * 3, scores.shape[0]), self.top_k * 3, 0))\n" \
           in after
    before, rewritten = import_source(RUNTIME_K_HEADER + body, tmp_path)["H"](), import_source(after, tmp_path)["H"]()
    model = _export(rewritten, (torch.randn(9),), {"scores": {0: "n"}}, names=["scores"])
    assert _k_is_constant(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for size in (0, 1, 5, 6, 7, 40):  # below, at and above the cap of 6
        for x in _edge_inputs(size, rank=2)[:2]:
            x = x[0]
            values, indices = session.run(None, {"scores": x.numpy()})
            want = before(x)
            assert np.array_equal(values, want[0].numpy(), equal_nan=True) and values.shape == (min(6, size),)
            assert torch.equal(rewritten(x)[1], want[1])  # eager mode: topk itself
    for cap in ("self.top_k * len(self.levels)", "self.top_k[0]", "3 ** self.top_k"):
        assert "_trt_topk_capped(" not in rewrite(RUNTIME_K_HEADER + body.replace("self.top_k * 3", cap), unsafe=True,
                                                  select=("TRT803",))


@pytest.mark.parametrize("body", [
    # the cap changes between the min and the top-k
    "class H(nn.Module):\n    def forward(self, s):\n        k = min(self.cap, s.shape[0])\n"
    "        self.cap = 7\n        return s.topk(k)\n",
    "def f(s, cap):\n    k = min(cap, s.shape[0])\n    cap = cap + 1\n    return s.topk(k)\n",
    # a guard whose block does more than select, or has an else
    "def f(s, cap, seen):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap)\n        seen.append(i)\n"
    "        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap)\n        s = s[i]\n"
    "    else:\n        s = s * 2\n    return s\n",
    # a sort read otherwise than through [:cap]
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        v, i = s.sort(descending=True)\n        s = v[:cap]\n"
    "    return s, i\n",
    # smallest entries
    "def f(s, cap):\n    if 0 < cap < s.shape[0]:\n        _, i = s.topk(cap, largest=False)\n        s = s[i]\n"
    "    return s\n",
])
def test_reported_without_a_fix(body: str) -> None:
    assert "TRT803" in _found_runtime_k(body)
    after = rewrite(RUNTIME_K_HEADER + body, unsafe=True, select=("TRT803",))
    assert "_trt_topk_guarded(" not in after and "_trt_sort_guarded(" not in after
    assert "_trt_topk_capped(" not in after


@pytest.mark.parametrize("body", [
    "def f(s, cap):\n    if cap < s.shape[0] or cap < 0:\n        _, i = s.topk(cap)\n        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if cap < s.shape[0]:\n        _, i = s.topk(10)\n        s = s[i]\n    return s\n",
    "def f(s, cap):\n    if cap < s.shape[0]:\n        s = s[:cap]\n    return s\n",
    "def f(s, cap, t):\n    if cap < t:\n        _, i = s.topk(cap)\n        s = s[i]\n    return s\n",
])
def test_guard_look_alikes_are_not_reported(body: str) -> None:
    assert "TRT803" not in _found_runtime_k(body)


def _original(x: torch.Tensor, cap: int, sort: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """What ``if 0 < cap < n: select`` keeps (values, indices): every entry in order otherwise."""
    if 0 < cap < x.shape[0]:
        if sort:
            v, i = x.sort(descending=True)
            return v[:cap], i[:cap]
        return tuple(x.topk(cap))  # type: ignore[return-value]
    return x, torch.arange(x.shape[0])


def _guarded(x: torch.Tensor, cap: int, sort: bool) -> tuple[torch.Tensor, torch.Tensor]:
    if 0 < cap and _trt_topk_guard(cap, x.shape[0]):
        if sort:
            v, i = _trt_sort_guarded(x, cap, descending=True)
            return v[:cap], i[:cap]
        return tuple(_trt_topk_guarded(x, cap))  # type: ignore[return-value]
    return x, torch.arange(x.shape[0])


def _scores(n: int, kind: str) -> torch.Tensor:
    g = torch.Generator().manual_seed(n)
    if kind == "distinct":
        return torch.randperm(n, generator=g).float() / max(n, 1)
    x = torch.randn(n, generator=g)
    if kind == "ties":
        return torch.round(x * 2)
    x[::3] = -INF
    x[1::7] = NAN
    x[2::11] = INF
    return x


@pytest.mark.parametrize("n", [0, 1, 10, 3839, 3840, CAP - 1, CAP, CAP + 1, 9000])
@pytest.mark.parametrize("sort", [False, True], ids=["topk", "sort"])
def test_export_formulation_selects_what_the_guard_selects(n: int, sort: bool) -> None:
    for kind in ("distinct", "ties", "edges"):
        x = _scores(n, kind)
        expected = _original(x, CAP, sort)
        assert_same(expected, _guarded(x, CAP, sort))  # eager: the original calls
        with export_formulation():
            values, indices = _guarded(x, CAP, sort)
        assert indices.dtype == torch.int64 and values.dtype == x.dtype and values.shape == expected[0].shape
        torch.testing.assert_close(values, expected[0], atol=0, rtol=0, equal_nan=True)
        assert_same(x[indices], values)  # the input's own entries, bit for bit
        if n <= CAP or kind == "distinct":
            assert torch.equal(indices, expected[1])  # every entry in order; or no tie to order
        else:
            assert len(set(indices.tolist())) == CAP


def test_export_formulation_is_used_and_keeps_topk_below_the_limit() -> None:
    calls: list[int] = []
    real = torch.topk

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    torch.topk = spy
    try:
        with export_formulation():
            assert _trt_topk_guard(CAP, 10) is True
            _trt_topk_guarded(torch.randn(6000), CAP)
    finally:
        torch.topk = real
    assert _trt_topk_guard(CAP, 10) is False and _trt_topk_guard(0, 10) is True
    assert calls and max(calls) < 3840 and sum(calls) == CAP


def test_guarded_helpers_keep_gradients_and_errors() -> None:
    x1 = torch.randn(40, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_(True)
    (x1.topk(7).values * torch.arange(7.0)).sum().backward()
    (_trt_topk_guarded(x2, 7).values * torch.arange(7.0)).sum().backward()
    assert torch.equal(x1.grad, x2.grad)
    for fn in (torch.topk, _trt_topk_guarded):
        with pytest.raises(RuntimeError):
            fn(torch.randn(3), 5)
    assert_same(tuple(torch.sort(x1, descending=True)), tuple(_trt_sort_guarded(x1, 7, descending=True)))


def test_scripted_rewrite_runs_the_original() -> None:
    src = RUNTIME_K_HEADER + ("class M(nn.Module):\n    def forward(self, s: torch.Tensor, nms_pre: int):\n"
                    "        if 0 < nms_pre < s.shape[0]:\n            _, i = s.topk(nms_pre)\n            s = s[i]\n"
                    "        return s\n")
    after = rewrite(src, unsafe=True, select=("TRT803",))
    from safety import import_source

    with tempfile.TemporaryDirectory() as folder:
        before_m = torch.jit.script(import_source(src, Path(folder))["M"]())
        after_m = torch.jit.script(import_source(after, Path(folder))["M"]())
        for n, cap in ((10, 4), (3, 4), (0, 4), (10, 0)):
            x = _scores(n, "ties")
            assert_same(before_m(x, cap), after_m(x, cap))


def _load(path: Path, name: str) -> Any:
    """Import a variant file as module ``name`` (its folder on the path for ``_sizes``)."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    """Each variant's module before and after `apply --unsafe --select TRT803`."""
    folder = tmp_path_factory.mktemp("variants")
    shutil.copy(VARIANTS / "_sizes.py", folder / "_sizes.py")
    out = {}
    for name in NAMES:
        source = (VARIANTS / f"{name}.py").read_text()
        after = rewrite(source, unsafe=True, select=("TRT803",))
        assert after != source, name
        (folder / f"{name}_after.py").write_text(after)
        out[name] = (_load(VARIANTS / f"{name}.py", f"{name}_before"),
                     _load(folder / f"{name}_after.py", f"{name}_after"))
    return out


def _inputs(module: Any, n: int, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """The variant's inputs with ``n`` candidates (its own generator gives 6000, 3000 or 5000)."""
    g = torch.Generator().manual_seed(seed)
    full = module.inputs(g)
    return tuple(t[torch.arange(n) % t.shape[0]] if n else t[:0] for t in full)


def _export_runtime_k(model: torch.nn.Module, args: tuple, names: tuple[str, ...], dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            shapes = tuple({0: torch.export.Dim.AUTO} for _ in args)
            return torch.onnx.export(model, args, dynamo=True, input_names=list(names), verbose=False,
                                     dynamic_shapes=shapes).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=list(names),
                          dynamic_axes={name: {0: "n"} for name in names})
        return onnx.load_from_string(buffer.getvalue())


def _run(model: onnx.ModelProto, args: tuple, names: tuple[str, ...]) -> list[np.ndarray] | Exception:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    try:
        return session.run(None, feed)
    except Exception as error:  # noqa: BLE001 - the original graph fails on small inputs
        return error


def _same(eager: Any, outputs: list[np.ndarray] | Exception) -> bool:
    if isinstance(outputs, Exception):
        return False
    flat = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    return len(flat) == len(outputs) and all(
        e.shape == tuple(o.shape) and np.array_equal(e.numpy(), o, equal_nan=True) for e, o in zip(flat, outputs))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", sorted(NAMES))
def test_variant_exports_with_no_topk_over_the_limit_and_the_same_selection(
        rewritten: dict[str, tuple[Any, Any]], name: str, dynamo: bool) -> None:
    before, after = rewritten[name]
    names = NAMES[name]
    traced = _inputs(before, 6000)
    original = before.build().eval()
    graph = _export_runtime_k(after.build().eval(), traced, names, dynamo)
    for target in ("8.4", "8.6", "10.x"):
        errors = [(i.op, i.message) for i in check_graph(graph, target) if i.severity == "error"]
        assert errors == [], (target, errors)
    assert not [i for i in check_graph(graph, "10.x") if i.op == "TopK"]
    for n in (0, 10, 3839, 3840, CAP, CAP + 1, 7000):
        args = _inputs(before, n, seed=n)
        with torch.no_grad():
            eager = original(*args)
        assert _same(eager, _run(graph, args, names)), (name, n)


def test_the_original_variants_do_not_deploy(rewritten: dict[str, tuple[Any, Any]]) -> None:
    """What the rewrite removes: each original TorchScript graph, traced above the cap, has a TopK
    TensorRT rejects or gives other results than the model at some size."""
    for name, (before, _) in rewritten.items():
        names = NAMES[name]
        graph = _export_runtime_k(before.build().eval(), _inputs(before, 6000), names, False)
        rejected = any(i.op == "TopK" and i.severity == "error" for i in check_graph(graph, "10.x"))
        wrong = []
        for n in (3000, CAP):
            args = _inputs(before, n, seed=n)
            with torch.no_grad():
                wrong.append(not _same(before.build().eval()(*args), _run(graph, args, names)))
        assert rejected or any(wrong), name


@pytest.fixture(scope="module")
def migrated() -> dict[str, dict[str, Any]]:
    from support import invoke

    result = invoke("migrate", "--config", str(VARIANTS / "variants.toml"), "--no-cache", "--jobs", "2",
                    "--format", "json", "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    data = json.loads(result.stdout)
    return {m["name"]: m for m in data["models"]}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_migrate_makes_each_variant_tensorrt_clean_and_equivalent(migrated: dict[str, dict[str, Any]],
                                                                  name: str) -> None:
    r = migrated[name]
    # before: the traced graph gives other results at 3000 or 5000 candidates, and (but for the
    # sort, whose TopK takes every candidate: a K known only at run time) a TopK of 5000
    assert r["before"]["faithful"] is False
    assert r["before"]["trt_errors_by_op"] == ({} if name == "mmrotate_rpn_sort" else {"TopK": 1})
    assert [a["rule"] for a in r["applied"]] == ["TRT803"]
    # without --unsafe: a candidate, kept because the rewritten model is equivalent on every set
    assert r["applied"][0]["proof"].startswith("verified: the rewritten model is equivalent")
    assert r["after"]["trt_errors"] == 0 and r["after"]["faithful"] is True and r["equivalent"] is True
    assert [x for x in r["remaining"] if x.get("severity") == "error"] == []
    assert r["exit_code"] == 0


# --- the safety contract on drawn tensors (was safety/test_safety_detection.py) -------------------
# The safety contract for TRT803's rewrite (`topk(x, min(C, x.shape[d]))` → `_trt_topk_capped`).
#
# The fix is unsafe only for what the exported graph does among equal values (documented);
# in eager mode it must keep everything: values, indices, dtype, shape, strides, gradients,
# aliasing and exceptions, on drawn tensors with edge values (inf, NaN, -0.0, empty axes,
# 0-d, integer and half dtypes, non-contiguous layouts).


CONTRACT_HEADER = "import torch\nfrom torch import nn\n\n"


SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


PROGRAMS = [
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        return x.topk(min(cap, x.shape[-1]))\n",
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        values, indices = torch.topk(x, min(x.size(0), cap), dim=0, sorted=True)\n"
    "        return values * 2, indices\n",
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        return x.topk(min(cap, x.size()[-1]), -1, True, False)\n",
]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("safety_detection")
    table = []
    for body in PROGRAMS:
        source = CONTRACT_HEADER + body
        after = rewrite(source, unsafe=True, select=("TRT803",))
        assert "_trt_topk_capped(" in after, "the fix did not apply"
        assert rewrite(source, select=("TRT803",)) == source, "an unsafe fix ran without --unsafe"
        table.append((import_source(source, folder)["M"], import_source(after, folder)))
    return table


@pytest.mark.parametrize("number", range(len(PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_eager_contract(loaded, number: int, data: st.DataObject) -> None:
    before_type, after_ns = loaded[number]
    x = data.draw(tensors(dtypes=(torch.float32, torch.float16, torch.float64, torch.bfloat16, torch.int64,
                                  torch.int32, torch.bool), min_dim=0, max_dim=3))
    cap = data.draw(st.sampled_from([-1, 0, 1, 2, 5, 100]))
    before = run_once(before_type(), [x, cap])
    after = run_once(after_ns["M"](), [x, cap])
    assert_same_run(before, after)


def test_the_contract_can_fail(loaded) -> None:
    """Forcing the export form into eager mode breaks the contract on a -inf tie (caught here)."""
    before_type, after_ns = loaded[0]
    x = torch.tensor([[1.0, -float("inf"), 2.0]])
    before = run_once(before_type(), [x, 5])
    with export_formulation(after_ns):
        after = run_once(after_ns["M"](), [x, 5])
    # Values are the same; the strides of the cut results differ from topk's own (a slice of a
    # wider tensor), which the eager contract sees: the export form must stay out of eager mode.
    with pytest.raises(AssertionError, match="strides"):
        assert_same_run(before, after)


# --- TRT803: the early-return cap of SuperPoint's keypoints ---------------------------------------------------
# ``top_k_keypoints`` as magicleap/SuperGluePretrainedNetwork models/superpoint.py (commit ddcf11f, lines 72-76)
# writes it, and so do cvg/LightGlue lightglue/superpoint.py, cvg/glue-factory gluefactory/models/extractors/
# superpoint_open.py and huggingface/transformers models/superpoint/modeling_superpoint.py (``top_k_keypoints``):
# an early return of the tensors unchanged where the cap is not below the count, else the top ``k`` rows.

EARLY = HEADER + (
    "def top_k_keypoints(keypoints, scores, k: int):\n"
    "    if k >= len(keypoints):\n"
    "        return keypoints, scores\n"
    "    scores, indices = torch.topk(scores, k, dim=0)\n"
    "    return keypoints[indices], scores\n"
)
EARLY_FORMS = {
    "len": EARLY,
    "shape": EARLY.replace("k >= len(keypoints)", "keypoints.shape[0] <= k"),
    "size_method": EARLY.replace("k >= len(keypoints)", "k >= scores.size(0)").replace(
        "torch.topk(scores, k, dim=0)", "scores.topk(k, dim=0, sorted=True)"),
}
EARLY_CAP = 32


@pytest.mark.parametrize("form", sorted(EARLY_FORMS))
def test_early_return_forms_are_rewritten(form: str) -> None:
    code = EARLY_FORMS[form]
    assert rules_found(code, select=("TRT803",)) == ["TRT803"]
    after = rewrite(code, unsafe=True, select=("TRT803",))
    assert "    if not _trt_topk_guard(k, " in after
    assert "    scores, indices = _trt_topk_guarded(scores, k, dim=0" in after
    assert "        return keypoints, scores\n" in after and "    return keypoints[indices], scores\n" in after
    assert rewrite(code, unsafe=False, select=("TRT803",)) == code
    assert rewrite(after, unsafe=True, select=("TRT803",)) == after


@pytest.mark.parametrize("body", [
    # the top-k along another axis than the guarded one (torch's default -1)
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k)\n    return kp[i], s\n",
    # the last return reorders, or reads other rows
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0)\n    return s, kp[i]\n",
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0)\n"
    "    return kp[i + 1], s\n",
    # the smallest entries, another K, a strict comparison, a statement in between
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0, largest=False)\n"
    "    return kp[i], s\n",
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k - 1, dim=0)\n"
    "    return kp[i], s\n",
    "def f(kp, s, k):\n    if k > len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0)\n    return kp[i], s\n",
    "def f(kp, s, k):\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0)\n"
    "    print(i)\n    return kp[i], s\n",
    # the cap reassigned in the function
    "def f(kp, s, k):\n    k = k + 1\n    if k >= len(kp):\n        return kp, s\n    s, i = torch.topk(s, k, dim=0)\n"
    "    return kp[i], s\n",
])
def test_early_return_look_alikes_are_not_rewritten(body: str) -> None:
    code = HEADER + body
    assert rewrite(code, unsafe=True, select=("TRT803",)) == code


def _keypoint_inputs(n: int, kind: str) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(n)
    keypoints = torch.stack([torch.arange(n, dtype=torch.float32), torch.randn(n, generator=generator)], 1)
    if kind == "distinct":  # negatives, zero and infinities, no ties
        scores = torch.randperm(n, generator=generator).float() - n / 2
        if n >= 3:
            scores[0], scores[1] = INF, -INF
    elif kind == "zeros":
        scores = torch.zeros(n)
    else:  # negative ties
        scores = -(torch.arange(n) % 3).float()
    return keypoints, scores


@pytest.fixture(scope="module")
def early_programs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    after = rewrite(EARLY, unsafe=True, select=("TRT803",))
    folder = tmp_path_factory.mktemp("early_return")
    return import_source(EARLY, folder)["top_k_keypoints"], import_source(after, folder)["top_k_keypoints"]


def _assert_same_selection(inputs, expected, got, ties: bool) -> None:
    (kp_e, s_e), (kp_g, s_g) = expected, [torch.as_tensor(np.asarray(t)) for t in got]
    assert kp_g.shape == kp_e.shape and s_g.shape == s_e.shape
    assert kp_g.dtype == kp_e.dtype and s_g.dtype == s_e.dtype
    assert torch.equal(s_g, s_e)
    if not ties:
        assert torch.equal(kp_g, kp_e)
    else:  # equal scores may come in another index order: distinct input rows with the returned scores
        keypoints, scores = inputs
        rows = kp_g[:, 0].long()
        assert len(set(rows.tolist())) == len(rows)
        assert torch.equal(keypoints[rows], kp_g) and torch.equal(scores[rows], s_g)


@pytest.mark.parametrize("n", [0, 1, EARLY_CAP - 1, EARLY_CAP, EARLY_CAP + 1, 90])
@pytest.mark.parametrize("kind", ["distinct", "zeros", "ties"])
def test_early_return_eager_is_the_original(early_programs, n: int, kind: str) -> None:
    before, after = early_programs
    keypoints, scores = _keypoint_inputs(n, kind)
    expected, got = before(keypoints, scores, EARLY_CAP), after(keypoints, scores, EARLY_CAP)
    for e, g in zip(expected, got):
        assert torch.equal(e, g) and e.dtype == g.dtype


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("traced", [10, 60])
def test_early_return_exports_every_size(early_programs, dynamo: bool, traced: int) -> None:
    before, after = early_programs

    class Model(torch.nn.Module):
        def __init__(self, function):
            super().__init__()
            self.function = function

        def forward(self, keypoints, scores):
            return tuple(self.function(keypoints, scores, EARLY_CAP))

    axes = {"keypoints": {0: "n"}, "scores": {0: "n"}}
    model = _export(Model(after), _keypoint_inputs(traced, "distinct"), axes, names=["keypoints", "scores"],
                    dynamo=dynamo)
    assert check_graph(model, "8.6") == []
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for n in (0, 1, 5, EARLY_CAP, EARLY_CAP + 1, 90):
        for kind in ("distinct", "zeros", "ties"):
            keypoints, scores = _keypoint_inputs(n, kind)
            got = session.run(None, dict(zip(names, (keypoints.numpy(), scores.numpy()))))
            expected = before(keypoints, scores, EARLY_CAP)
            _assert_same_selection((keypoints, scores), expected, got, kind != "distinct" and n > EARLY_CAP)


def test_early_return_original_export_keeps_one_branch(early_programs) -> None:
    """What the fix is for: the original traced on 10 rows returns every row of 90."""
    before, _ = early_programs

    class Model(torch.nn.Module):
        def forward(self, keypoints, scores):
            return tuple(before(keypoints, scores, EARLY_CAP))

    axes = {"keypoints": {0: "n"}, "scores": {0: "n"}}
    model = _export(Model(), _keypoint_inputs(10, "distinct"), axes, names=["keypoints", "scores"])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    keypoints, scores = _keypoint_inputs(90, "distinct")
    got = session.run(None, {"keypoints": keypoints.numpy(), "scores": scores.numpy()})
    assert got[0].shape[0] == 90 != EARLY_CAP
