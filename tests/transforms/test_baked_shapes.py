"""TRT711–TRT715: sizes baked in through NumPy / Python, size guards, shapes from values.

Detection is checked on positives and on look-alikes that must stay quiet; TRT712's
rewrite is run before/after on many sizes (zero included); the claims the rule docs make
are checked by exporting small models with torch 2.13 and running them in ONNX Runtime
on a second input size.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import assert_same, load, onnx_ops, rewrite, rules_found

IDS = ("TRT711", "TRT712", "TRT713", "TRT714", "TRT715")
HEADER = "import math\nimport numpy as np\nimport torch\nfrom torch import nn\n\n"


def found(code: str) -> list[str]:
    return [r for r in rules_found(HEADER + code, select=IDS)]


def forward(body: str, params: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"class M(nn.Module):\n    def forward(self, {params}):\n{lines}"


def export_session(model, args, names, dynamic_axes, *, dynamo: bool = False) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, input_names=names, dynamic_axes=dynamic_axes,
                                        verbose=False)
            program.save(buffer)
        else:
            torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes=dynamic_axes)
    onnx.checker.check_model(onnx.load_from_string(buffer.getvalue()))
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def ort_matches(session: ort.InferenceSession, model, *args: torch.Tensor) -> bool:
    """Whether the exported graph gives the eager result (shape and values) on ``args``."""
    expected = model(*args)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    feeds = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    try:
        got = session.run(None, feeds)
    except Exception:  # noqa: BLE001 - a graph that cannot run on this size does not match
        return False
    return all(
        tuple(e.shape) == g.shape and np.allclose(e.detach().numpy(), g) for e, g in zip(expected, got)
    )


# --- detection -------------------------------------------------------------------------

POSITIVE = [
    ("TRT711", forward("h, w = x.shape[2:]\nreturn torch.from_numpy(np.arange(h))")),
    ("TRT711", forward("w = x.size(-1)\nreturn torch.tensor(np.linspace(0, w - 1, w))")),
    ("TRT711", forward("return np.zeros((x.shape[0], 4))")),
    ("TRT711", forward("b, c, h, w = x.size()\nreturn np.meshgrid(np.arange(h), range(3))")),
    ("TRT711", "def f(x: torch.Tensor):\n    return np.arange(len(x))\n"
     "class M(nn.Module):\n    def forward(self, x):\n        return f(x)\n"),
    ("TRT712", forward("k = min(4, x.shape[1])\nreturn x[:, :k]")),
    ("TRT712", forward("n = max(x.shape[0] - 3, 1)\nreturn x[:n]")),
    ("TRT712", forward("return x[:, :int(x.shape[1] * 0.5)]")),
    ("TRT712", forward("h = x.shape[2]\nreturn x.new_zeros(math.ceil(h / 8))")),
    ("TRT712", forward("n = x.shape[1] - 1\nreturn x.new_zeros(math.sqrt(n))")),
    ("TRT712", forward("return float(x.numel())")),
    ("TRT712", forward("return round(x.size(1) / 3)")),
    ("TRT713", forward("if x.shape[0] == 0:\n    return x\nreturn x + 1")),
    ("TRT713", forward("if not len(dets):\n    return x\nreturn x", "x, dets")),
    ("TRT713", forward("if boxes.numel() > 4000:\n    boxes = boxes[:100]\nreturn boxes", "boxes")),
    ("TRT713", forward("keep = boxes[scores > 0.3]\nif keep.shape[0] > 300:\n    keep = keep[:300]\nreturn keep",
                       "boxes, scores")),
    ("TRT713", forward("idx = torch.nonzero(m)\nn = idx.size(0)\nif n > 5:\n    return idx[:5]\nreturn idx", "m")),
    ("TRT713", forward("if x.numel():\n    x = x * 2\nreturn x")),
    ("TRT714", forward("ids[cond] = torch.arange(cond.sum().long(), dtype=ids.dtype)\nreturn ids", "ids, cond")),
    ("TRT714", forward("n = torch.count_nonzero(m)\nreturn torch.arange(0, n + 1)", "m")),
    ("TRT715", forward("n = mask.sum()\nreturn x[:n]", "x, mask")),
    ("TRT715", forward("return x[:, : scores.argmax().long() + 1]", "x, scores")),
]

NEGATIVE = [
    # NumPy on NumPy arrays, on lists, on configuration.
    forward("a = np.zeros((3, 4))\nreturn np.arange(a.shape[0])"),
    forward("return np.arange(self.num_anchors)"),
    forward("return np.arange(len(self.strides))"),
    # NumPy and built-ins outside forward: construction and non-modules.
    "class M(nn.Module):\n    def __init__(self, x):\n        super().__init__()\n"
    "        self.g = np.arange(x.shape[0])\n        self.k = min(3, x.shape[0])\n",
    "class Coder:\n    def forward(self, x):\n        return np.arange(x.shape[0]), min(2, x.shape[0])\n",
    # Built-ins on non-sizes, on tensor values (TRT702's), on ranks (static).
    forward("return min(self.k, 3), max([1, 2])"),
    forward("return x[: int(x.dim() / 2)]"),
    forward("return int(x.sum())"),
    forward("return min(x.shape)"),  # one argument: a tuple
    forward("return max(x.shape[0], x.shape[1], key=abs)"),
    forward("s: int = 4\nreturn math.ceil(self.size / s)"),
    forward("return x[: x.shape[0] // 2]"),  # integer arithmetic: stays in the graph
    forward("return int(k)", "x, k: int = 2"),
    # A size guard on layout sizes, ranks, lists, configuration.
    forward("if x.shape[1] == 3:\n    x = x * 2\nreturn x"),
    forward("if x.dim() == 4:\n    x = x.flatten(2)\nreturn x"),
    forward("if len(self.layers) == 0:\n    return x\nreturn x"),
    forward("items = []\nif len(items) == 0:\n    return x\nreturn x"),
    forward("if self.training and x.shape[0] == 0:\n    return x\nreturn x"),
    forward("if not torch.jit.is_tracing() and x.shape[0] == 0:\n    return x\nreturn x"),
    # Ranges and slices from shapes or Python numbers.
    forward("return torch.arange(x.shape[0]), torch.arange(len(x)), torch.arange(10)"),
    forward("n = x.shape[0] - 1\nreturn x[:n], x[: self.k]"),
    forward("return x.sum(1)[:5], x[: x.sum(1).shape[0]]"),
    forward("return torch.arange(x.sum(dim=0).shape[0])"),
    # .item() is TRT702's, len() of a tensor is TRT704's.
    forward("return x[: x.sum().item()]"),
    forward("return x.new_zeros(len(x))"),
    # layout tests, not emptiness: one image, a batch of more than one
    forward("if x.shape[0] == 1:\n    x = x[0]\nreturn x"),
    forward("if x.shape[0] > 1 and 1 < x.shape[1]:\n    x = x.mean(0)\nreturn x"),
    # min() of a size as a top-k's K is TRT803's construct (one finding for it).
    forward("return x.topk(min(4, x.shape[1]))"),
    # A user's own `min`, `math` or `np`.
    "def min(a, b):\n    return a\n" + forward("return x.topk(min(4, x.shape[1]))"),
    forward("np = object()\nreturn np.arange(x.shape[0])"),
]


@pytest.mark.parametrize("rule,code", POSITIVE, ids=[f"{r}-{i}" for i, (r, _) in enumerate(POSITIVE)])
def test_positive(rule: str, code: str) -> None:
    assert rule in found(code), code


@pytest.mark.parametrize("code", NEGATIVE, ids=[str(i) for i in range(len(NEGATIVE))])
def test_negative(code: str) -> None:
    assert found(code) == [], code


def test_no_duplicate_with_item_and_len_rules() -> None:
    code = HEADER + forward("a = x[: x.sum().item()]\nb = int(x.sum())\nc = x.new_zeros(len(x))\nreturn a, b, c")
    everything = rules_found(code)
    assert not set(everything) & set(IDS), everything
    assert everything.count("TRT702") == 2 and "TRT704" in everything


# --- TRT712's rewrite --------------------------------------------------------------------

MATH_MODEL = HEADER + """\
class M(nn.Module):
    def forward(self, x):
        h, w = x.shape[-2:]
        a = math.ceil(h / 3)
        b = math.floor(x.size(-1) / 4)
        c = int(w / 2)
        d = int(x.shape[0])
        e = math.ceil(x.numel() / 1)
        return x.new_zeros(a, b, c), d, e
"""


def test_rewrite_text_and_safety_level() -> None:
    assert rewrite(MATH_MODEL, select=("TRT712",)) == MATH_MODEL  # unsafe: needs --unsafe
    after = rewrite(MATH_MODEL, unsafe=True, select=("TRT712",))
    assert "a = (h + 2) // 3" in after
    assert "b = x.size(-1) // 4" in after
    assert "c = w // 2" in after
    assert "d = x.shape[0]" in after
    assert "e = x.numel() // 1" in after
    assert "math.ceil" not in after and "int(" not in after
    assert rewrite(after, unsafe=True, select=("TRT712",)) == after
    assert [r for r in rules_found(after, select=("TRT712",))] == []


@pytest.mark.parametrize("shape", [(0, 0, 0), (1, 1, 1), (2, 3, 5), (1, 7, 8), (3, 9, 12), (2, 0, 13), (1, 31, 64)])
def test_rewrite_same_values(shape) -> None:
    before = load(MATH_MODEL, "M")()
    after = load(rewrite(MATH_MODEL, unsafe=True, select=("TRT712",)), "M")()
    x = torch.randn(*shape)
    expected, got = before(x), after(x)
    assert_same(expected, got)
    assert [type(v) for v in expected] == [type(v) for v in got]


def test_integer_forms_match_math_on_many_sizes() -> None:
    for size in range(0, 2000):
        for k in range(1, 17):
            assert (size + k - 1) // k == math.ceil(size / k)
            assert size // k == math.floor(size / k) == int(size / k)
    big = 2**53 + 1  # past float precision: the float form is the wrong one (documented)
    assert (big + 1) // 2 != math.ceil(big / 2)


CEIL = HEADER + forward("n = math.ceil(x.shape[1] / 3)\nreturn x.new_zeros(n)")
NEG_CEIL = HEADER + forward("n = -(-x.shape[1] // 3)\nreturn x.new_zeros(n)")
MIN_K = HEADER + forward("return x.topk(min(4, x.shape[1]), dim=1).values")
INT_SCALE = HEADER + forward("return x[:, : int(x.shape[1] * 0.5)]")


def test_torchscript_export_bakes_ceil_and_rewrite_follows_input() -> None:
    before = load(CEIL, "M")()
    after = load(rewrite(CEIL, unsafe=True, select=("TRT712",)), "M")()
    example, other = torch.randn(2, 10), torch.randn(3, 2)
    axes = {"x": {0: "b", 1: "n"}}
    assert onnx_ops(before, (example,), dynamic_axes=axes, input_names=["x"]) == ["Constant"]
    assert not ort_matches(export_session(before, (example,), ["x"], axes), before, other)
    session = export_session(after, (example,), ["x"], axes)
    assert "Shape" in onnx_ops(after, (example,), dynamic_axes=axes, input_names=["x"])
    for n in (0, 1, 2, 3, 4, 11, 30):
        assert ort_matches(session, after, torch.randn(2, n)), n


def test_negated_floor_division_ceiling_is_wrong_in_export() -> None:
    """The doc warns that `-(-s // k)` exports wrongly: ONNX Div truncates the negative operand."""
    model = load(NEG_CEIL, "M")()
    session = export_session(model, (torch.randn(2, 10),), ["x"], {"x": {0: "b", 1: "n"}})
    assert model(torch.randn(3, 2)).shape == (1,)
    assert not ort_matches(session, model, torch.randn(3, 2))


def test_min_of_size_is_baked_by_torchscript_not_by_dynamo() -> None:
    model = load(MIN_K, "M")()
    example, small = torch.randn(2, 10), torch.randn(3, 2)
    axes = {"x": {0: "b", 1: "n"}}
    assert "Min" not in onnx_ops(model, (example,), dynamic_axes=axes, input_names=["x"])
    assert not ort_matches(export_session(model, (example,), ["x"], axes), model, small)
    assert ort_matches(export_session(model, (example,), ["x"], axes, dynamo=True), model, small)


def test_int_of_scaled_size_is_baked_by_both_exporters() -> None:
    model = load(INT_SCALE, "M")()
    example, other = torch.randn(2, 10), torch.randn(3, 2)
    axes = {"x": {0: "b", 1: "n"}}
    assert not ort_matches(export_session(model, (example,), ["x"], axes), model, other)
    assert not ort_matches(export_session(model, (example,), ["x"], axes, dynamo=True), model, other)


def test_dynamo_export_of_rewritten_ceil() -> None:
    after = load(rewrite(CEIL, unsafe=True, select=("TRT712",)), "M")()
    session = export_session(after, (torch.randn(2, 10),), ["x"], {"x": {0: "b", 1: "n"}}, dynamo=True)
    for n in (1, 2, 3, 4, 11):
        assert ort_matches(session, after, torch.randn(2, n)), n


# --- TRT711: the NumPy grid and its torch form --------------------------------------------

GRID_NP = HEADER + forward("""\
ny, nx = x.shape[2:]
yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
grid = torch.from_numpy(np.stack((xv, yv), 2)).float()
return x.permute(0, 2, 3, 1)[..., :2] + grid""")
GRID_TORCH = HEADER + forward("""\
ny, nx = x.shape[2:]
yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
grid = torch.stack((xv, yv), 2).float()
return x.permute(0, 2, 3, 1)[..., :2] + grid""")


def test_numpy_grid_is_baked_and_torch_grid_follows_input() -> None:
    assert found(GRID_NP[len(HEADER):]).count("TRT711") == 1  # one finding, its fix rewrites the whole grid
    assert "TRT711" not in found(GRID_TORCH[len(HEADER):])
    numpy_model, torch_model = load(GRID_NP, "M")(), load(GRID_TORCH, "M")()
    example, other = torch.randn(1, 3, 4, 5), torch.randn(2, 3, 6, 7)
    assert_same(numpy_model(other), torch_model(other))  # the torch form is the same grid
    axes = {"x": {0: "b", 2: "h", 3: "w"}}
    ops = onnx_ops(numpy_model, (example,), dynamic_axes=axes, input_names=["x"])
    assert "Range" not in ops and "Shape" not in ops
    assert not ort_matches(export_session(numpy_model, (example,), ["x"], axes), numpy_model, other)
    assert "Range" in onnx_ops(torch_model, (example,), dynamic_axes=axes, input_names=["x"])
    assert ort_matches(export_session(torch_model, (example,), ["x"], axes), torch_model, other)


def test_linspace_dtype_note() -> None:
    """NumPy's linspace is float64 and torch.tensor keeps it: the message's torch form says so."""
    w = 7
    assert torch.tensor(np.linspace(0, w - 1, w)).dtype == torch.float64
    assert_same(torch.tensor(np.linspace(0, w - 1, w)), torch.linspace(0, w - 1, w, dtype=torch.float64))
    assert torch.from_numpy(np.arange(w)).dtype == torch.arange(w).dtype == torch.int64
    code = HEADER + forward("w = x.size(-1)\nreturn torch.tensor(np.linspace(0, w - 1, w))")
    from trtcodemod.engine import Options, check_source

    messages = [f.message for f in check_source(code.encode(), "m.py", Options(select=("TRT711",)))]
    assert len(messages) == 1 and "torch.float64" in messages[0]


# --- TRT713: guards on sizes --------------------------------------------------------------

EMPTY_GUARD = HEADER + forward("if x.shape[0] == 0:\n    return x.sum(0)\nreturn x.amax(0)")
COUNT_GUARD = HEADER + forward("keep = x[s > 0.5]\nif keep.numel() > 6:\n    return keep[:2]\nreturn keep * 2", "x, s")


def test_empty_guard_branch_is_baked_by_both_exporters() -> None:
    model = load(EMPTY_GUARD, "M")()
    example, empty = torch.randn(3, 4), torch.randn(0, 4)
    axes = {"x": {0: "n"}}
    assert ort_matches(export_session(model, (example,), ["x"], axes), model, torch.randn(5, 4))
    assert not ort_matches(export_session(model, (example,), ["x"], axes), model, empty)
    assert not ort_matches(export_session(model, (example,), ["x"], axes, dynamo=True), model, empty)


def test_count_guard_on_masked_tensor_stops_torch_export() -> None:
    model = load(COUNT_GUARD, "M")()
    args = (torch.randn(10, 4), torch.rand(10))
    with pytest.raises(Exception, match="(?i)data.dependent|guard"):
        torch.export.export(model, args)
    assert "TRT713" in found(COUNT_GUARD[len(HEADER):])


# --- TRT714 / TRT715: shapes from values stay in the graph as execution tensors ---------

ARANGE = HEADER + forward("return torch.arange(cond.sum().long(), dtype=torch.int32)", "cond")
SLICE = HEADER + forward("n = m.sum()\nreturn x[:n]", "x, m")


def _producer_of(model, args, names, op_type: str) -> set[str]:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names)
    graph = onnx.load_from_string(buffer.getvalue()).graph
    producers = {out: node for node in graph.node for out in node.output}
    seen: set[int] = set()
    types: set[str] = set()
    for node in graph.node:
        if node.op_type == op_type:
            todo = list(node.input)
            while todo:
                producer = producers.get(todo.pop())
                if producer is not None and id(producer) not in seen:
                    seen.add(id(producer))
                    types.add(producer.op_type)
                    todo.extend(producer.input)
    return types


def test_arange_length_comes_from_a_reduction() -> None:
    model = load(ARANGE, "M")()
    assert "ReduceSum" in _producer_of(model, (torch.tensor([True, False, True]),), ["cond"], "Range")
    session = export_session(model, (torch.tensor([True, False, True]),), ["cond"], {"cond": {0: "n"}})
    assert ort_matches(session, model, torch.tensor([True, True, True, True]))  # correct, but an execution tensor


def test_slice_bound_comes_from_a_reduction() -> None:
    model = load(SLICE, "M")()
    args = (torch.randn(5, 2), torch.tensor([1, 1, 0, 0, 1]))
    assert "ReduceSum" in _producer_of(model, args, ["x", "m"], "Slice")


INT_SIZE = HEADER + forward("b = int(x.shape[0])\nreturn x.new_zeros(b, 2)")


def test_int_of_size_is_baked_by_torchscript_and_rewrite_follows_input() -> None:
    before = load(INT_SIZE, "M")()
    after = load(rewrite(INT_SIZE, unsafe=True, select=("TRT712",)), "M")()
    example, other = torch.randn(3, 4), torch.randn(5, 4)
    axes = {"x": {0: "b"}}
    assert not ort_matches(export_session(before, (example,), ["x"], axes), before, other)
    assert ort_matches(export_session(after, (example,), ["x"], axes), after, other)
    assert ort_matches(export_session(before, (example,), ["x"], axes, dynamo=True), before, other)
