"""TRT801 threshold-select, TRT802 topk-shape-k, TRT803 topk-min-k: findings, look-alikes that must
stay quiet, the TRT803 rewrite run on real tensors, and the exported graphs (both exporters)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import assert_same, export_formulation, load, rewrite, rules_found
from trtcodemod.helpers.detection import _trt_topk_capped
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
