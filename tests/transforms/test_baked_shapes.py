"""The rules of ``transforms/baked_shapes.py``: TRT711 numpy-on-size, TRT712 python-math-on-size,
TRT713 size-guard (the detection table covers TRT714/TRT715 too; their rewrites are in
test_value_shapes.py).

Detection is checked on positives and on look-alikes that must stay quiet; TRT712's
rewrite is run before/after on many sizes (zero included); the claims the rule docs make
are checked by exporting small models with torch 2.13 and running them in ONNX Runtime
on a second input size.
"""

from __future__ import annotations

import io
import itertools
import math
import warnings
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from snippets import SIZE_HEADER as HEADER, export_checked_session as export_session, forward, ort_matches
from support import assert_same, bits_equal, load, onnx_ops, rewrite, rules_found, strip_helpers
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.rules import Safety
from trtcodemod.helpers.sizes import (_trt_size_ceil, _trt_size_float, _trt_size_floor, _trt_size_int, _trt_size_is_int,
                                      _trt_size_max, _trt_size_max_float, _trt_size_max_of, _trt_size_min, _trt_size_min_float,
                                      _trt_size_min_of, _trt_size_round, _trt_size_sqrt)

IDS = ("TRT711", "TRT712", "TRT713", "TRT714", "TRT715")


def found(code: str) -> list[str]:
    return [r for r in rules_found(HEADER + code, select=IDS)]


# --- detection -------------------------------------------------------------------------

POSITIVE = [
    ("TRT711", forward("h, w = x.shape[2:]\nreturn torch.from_numpy(np.arange(h))")),
    ("TRT711", forward("w = x.size(-1)\nreturn torch.tensor(np.linspace(0, w - 1, w))")),
    ("TRT711", forward("return np.zeros((x.shape[0], 4))")),
    ("TRT711", forward("b, c, h, w = x.size()\nreturn np.meshgrid(np.arange(h), range(3))")),
    # yhenon/pytorch-retinanet @ 0348a9d57b279e3b5b235461b472d37da5feec3d, retinanet/anchors.py:23-25: the
    # whole shape made an array, each level's size computed from it in NumPy
    ("TRT711", forward("image_shape = x.shape[2:]\nimage_shape = np.array(image_shape)\n"
                       "return [(image_shape + 2 ** k - 1) // (2 ** k) for k in (3, 4)]")),
    ("TRT711", forward("return np.asarray(x.size()) // 2")),
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

POSITIVE += [
    # The smallest of a tensor's sizes, all of them or a slice (piq's `min(x.size()[-2:])`).
    ("TRT712", forward("return min(x.shape)")),
    ("TRT712", forward("return x[:, : max(x.size()[2:])]")),
    ("TRT712", forward("return x[:, : round(x.shape[1] / 3)]")),
]

NEGATIVE = [
    # an array of configuration values or of a literal list, not of a shape
    forward("return np.array(self.ratios)"),
    forward("return np.array([x.dim(), 2])"),
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
    forward("return min(x.dims)"),  # one argument, not a tensor's sizes
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


#: spandrel RGT's (and Swin-style models') ``windows2img``: the batch read back as ``int`` of a quotient of sizes.
WINDOW_BATCH = HEADER + forward("""\
b, c, h, w = x.shape
win = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 2, 4, 3, 5, 1).reshape(-1, 4, c)
B = int(win.shape[0] / (h * w / 2 / 2))
return win.view(B, h // 2, w // 2, 2, 2, -1).permute(0, 5, 1, 3, 2, 4).reshape(B, -1, h, w)""")


#: CREDIT's earth padding (NCAR/miles-credit, credit/boundary_padding.py): half the longitude through `int` of an
#: integer quotient, a symbolic integer under `torch.export`, which `int()` specializes as it does a float.
INT_HALF = HEADER + forward("""\
half = int(x.shape[-1] // 2)
return torch.cat([x[..., half:], x[..., :half]], dim=-1) * 2""")


@pytest.mark.parametrize("code,example,others,axes", [
    (INT_SCALE, (2, 10), [(2, 1), (2, 3), (3, 7), (1, 11), (2, 10)], {"x": {0: "b", 1: "n"}}),
    (WINDOW_BATCH, (1, 3, 8, 8), [(2, 3, 6, 10), (3, 3, 4, 4), (1, 3, 8, 8)], {"x": {0: "b", 2: "h", 3: "w"}}),
    (INT_HALF, (2, 3, 12), [(2, 3, 16), (1, 3, 7), (3, 3, 2), (2, 3, 12)], {"x": {0: "b", 2: "n"}}),
], ids=["scaled-width", "window-batch", "integer-half"])
def test_dynamo_export_of_rewritten_int_follows_the_input(code, example, others, axes) -> None:
    """``int()`` of a symbolic float is specialized by ``torch.export`` (the dynamo exporter) to the example's
    value; the rewritten ``_trt_size_int`` keeps it symbolic there, so the graph follows every size."""
    before = load(code, "M")()
    after = load(rewrite(code, unsafe=True, select=("TRT712",)), "M")()
    assert "_trt_size_int(" in rewrite(code, unsafe=True, select=("TRT712",))
    generator = torch.Generator().manual_seed(0)
    inputs = [torch.randn(shape, generator=generator) for shape in others]
    for x in inputs:  # the same program in eager mode
        assert_same(before(x), after(x))
    old = export_session(before, (torch.randn(example),), ["x"], axes, dynamo=True)
    new = export_session(after, (torch.randn(example),), ["x"], axes, dynamo=True)
    assert not all(ort_matches(old, before, x) for x in inputs)
    for x in inputs:
        assert ort_matches(new, after, x), tuple(x.shape)


def test_the_int_helper_still_scripts(tmp_path: Path) -> None:
    """The symbolic branch is never compiled by ``torch.jit.script``, which keeps the built-in."""
    after = import_source(rewrite(WINDOW_BATCH, unsafe=True, select=("TRT712",)), tmp_path)["M"]()
    scripted = torch.jit.script(after)
    for shape in ((1, 3, 8, 8), (2, 3, 6, 10), (3, 3, 4, 4)):
        x = torch.randn(shape)
        assert_same(scripted(x), after(x))


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



# --- TRT713: Python decisions on sizes the observed export warned of ------------------------------

#: kornia's CLAHE, reduced: the parity of the tile size picks one of two computations, a check on a
#: size raises after computing its message, and a layout test (`c == 3`) that no trace warned of.
PARITY = HEADER + """\
class M(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        tile_h = -(-h // 4)
        tile_w = -(-w // 4)
        odd = tile_h % 2 == 1 or tile_w % 2 == 1
        y = scale(x, not odd)
        if h <= 4:
            low = 4 + 1
            raise ValueError(f"at least {low} rows")
        if c == 3:
            y = y + 1
        if odd:
            return y * 2
        return y + (1 if tile_h % 2 else 0)


def scale(x: torch.Tensor, up: bool) -> torch.Tensor:
    return x * 3 if up else x
"""
#: The lines of PARITY where the TorchScript export turns a traced size into a Python bool.
PARITY_TRACED = (11, 12, 13, 16, 18, 20)


def _decisions(code: str, traced: tuple[int, ...]) -> list[tuple[int, str]]:
    facts = Facts(runs=1, lines={str(Path("snippet.py").resolve()): set(range(1, 40))})
    facts.note_traced([("snippet.py", line, "Converting a tensor to a Python boolean might cause the trace to be "
                        "incorrect.") for line in traced])
    found = check_source(code.encode(), "snippet.py", Options(select=("TRT713",), facts=facts, scope="all"))
    return [(f.line, f.message) for f in found]


def test_decisions_on_sizes_are_found_where_the_export_warned() -> None:
    found = _decisions(PARITY, PARITY_TRACED)
    assert [line for line, _ in found] == [11, 12, 13, 16, 18, 20]
    by_line = dict(found)
    assert by_line[11].startswith("`tile_h % 2 == 1 or tile_w % 2 == 1` decides on a size in Python")
    assert by_line[12].startswith("`not odd` decides on a size")  # `odd` names the decision of line 11
    assert by_line[13].startswith("`h <= 4` checks a size in Python") and "drops the check" in by_line[13]
    assert by_line[18].startswith("`odd` branches on a size") and "declare the axis static" in by_line[18]
    assert by_line[20].startswith("`tile_h % 2` chooses a value on a size")


def test_decisions_on_sizes_need_the_export_to_have_warned_there() -> None:
    assert _decisions(PARITY, ()) == []
    # `c == 3` compares a size too (every size is traced): found, and `migrate` judges whether it
    # follows a dynamic axis (here it does not: the same graph at two sizes, a warning only).
    assert [line for line, _ in _decisions(PARITY, (16,))] == [16]
    # A warning on another line says nothing of this one.
    assert [line for line, _ in _decisions(PARITY, (12,))] == [12]
    # A comparison with a tensor is a mask (TRT101's), not a decision on a size.
    mask = HEADER + forward("n = x.shape[0]\nif (x.sum() > n) or n > 2:\n    return x\nreturn x + 1")
    assert _decisions(mask, (5,)) == []



def test_a_loop_on_a_size_and_a_decision_on_a_data_sized_tensor_say_so() -> None:
    """NMS's `while order.shape[0] > 0:` (kornia's bbox.py) is a loop the trace unrolls, and a test on
    the size of a masked tensor is a count the data decides: neither is an input size to declare static."""
    nms = HEADER + ("def nms(boxes: torch.Tensor, scores: torch.Tensor):\n    order = scores.argsort()\n"
                    "    keep = []\n    while order.shape[0] > 0:\n        keep.append(order[0])\n"
                    "        order = order[1:][scores[order[1:]] > 0.5]\n    return keep\n")
    [(line, message)] = _decisions(nms, (9,))
    assert line == 9 and "unrolls the loop as many times as the example ran it" in message
    masked = HEADER + forward("keep = x[x > 0]\ny = keep if keep.shape[0] % 4 else x\nreturn y")
    [(line, message)] = _decisions(masked, (9,))
    assert line == 9 and "a size the data decides" in message and "declare the axis static" not in message

def test_a_decision_on_a_dynamic_size_keeps_the_examples_case_in_the_traced_graph() -> None:
    """What TRT713 says of a decision on a size: the TorchScript graph computes the traced example's
    case at a size that decides otherwise (the height 10 gives odd tiles of 3 rows, 8 even ones of 2)."""
    model = load(PARITY, "M")()
    axes = {"x": {2: "h", 3: "w"}}
    session = export_session(model, (torch.rand(1, 3, 8, 8),), ["x"], axes)
    assert ort_matches(session, model, torch.rand(1, 3, 16, 8))  # tiles of 4 and 2 rows: even, as traced
    assert not ort_matches(session, model, torch.rand(1, 3, 10, 8))


def test_migrate_names_each_decision_on_a_size_at_its_line(tmp_path: Path) -> None:
    from support import migrate_json

    model = tmp_path / "parity.py"
    model.write_text(PARITY + "\n\ndef build():\n    return M().eval()\n\n\ndef inputs(generator):\n"
                              "    return (torch.rand(1, 3, 8, 8, generator=generator),)\n")
    report = migrate_json(model, '{"x": {"2": "h", "3": "w"}}')
    assert report["exit_code"] == 1
    at = {int(r["source"].rsplit(":", 1)[1]): r for r in report["remaining"] if r["source"]}
    for line, said in ((11, "decides on"), (12, "decides on"), (18, "branches on"), (20, "chooses a value on")):
        assert at[line]["rule"] == "TRT713" and at[line]["severity"] == "error", at[line]
        assert f"{said} a size in Python" in at[line]["message"] and "no automatic fix" in at[line]["message"]
    assert at[13]["rule"] == "TRT713" and at[13]["severity"] == "warning" and "checks a size" in at[13]["message"]
    # `c == 3` (the channels, no dynamic axis): TRT713's rewrite is not tried where the trace baked the same
    # number at both sizes; the exporter's warning is left under the rule, a warning only.
    assert at[16]["rule"] == "TRT713" and at[16]["severity"] == "warning"
    assert "the same in the graph traced at" in at[16]["message"]
    # Every TracerWarning of the export has its rule: none is left as the exporter's raw text.
    assert not [r for r in report["remaining"] if r["rule"] is None and "Python boolean" in r["message"]]

# --- TRT713's rewrite: both cases of a decision on a size, selected in the graph while tracing ----------

#: piq's `get_meshgrid` (photosynthesis-team/piq@d9fb8af35486f5b2dd86d8b12c5e51049b1e90df
#: piq/functional/base.py, used by FSIM and VSI), in our words: the parity of a size handed in as
#: `Tuple[int, int]` picks the odd or the even centring of a grid; both give `size[0]` samples.
CENTRED = HEADER + """\
from typing import Tuple


def centred_grid(size: Tuple[int, int], dtype: torch.dtype) -> torch.Tensor:
    if size[0] % 2:
        # odd: the middle sample is 0
        rows = torch.arange(-(size[0] - 1) / 2, size[0] / 2, dtype=dtype) / (size[0] - 1)
    else:
        rows = torch.arange(-size[0] / 2, size[0] / 2, dtype=dtype) / size[0]
    return rows


class M(nn.Module):
    def forward(self, x):
        return x * centred_grid((x.shape[-1], x.shape[-2]), x.dtype)
"""

CENTRED_AFTER = """\
def centred_grid(size: Tuple[int, int], dtype: torch.dtype) -> torch.Tensor:
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        _trt_cond = _trt_size_truth(size[0] % 2)
        rows = _trt_traced_where(_trt_cond, torch.arange(-(size[0] - 1) / 2, size[0] / 2, dtype=dtype) / (size[0] - 1), torch.arange(-size[0] / 2, size[0] / 2, dtype=dtype) / size[0])
    elif size[0] % 2:
        # odd: the middle sample is 0
        rows = torch.arange(-(size[0] - 1) / 2, size[0] / 2, dtype=dtype) / (size[0] - 1)
    else:
        rows = torch.arange(-size[0] / 2, size[0] / 2, dtype=dtype) / size[0]
    return rows
"""


def _line(code: str, text: str) -> int:
    return code.splitlines().index(text) + 1


def _size_facts(*lines: int) -> Facts:
    facts = Facts(runs=1, lines={str(Path("snippet.py").resolve()): set(range(1, 60))})
    facts.note_traced([("snippet.py", line, "Converting a tensor to a Python boolean might cause the trace to be "
                        "incorrect.") for line in lines])
    return facts


def _blended(code: str, *lines: int, unsafe: bool = True) -> str:
    options = Options(select=("TRT713",), facts=_size_facts(*lines), scope="all", unsafe=unsafe)
    return fix_source(code.encode(), "snippet.py", options).source.decode()


def _messages(code: str, *lines: int) -> list[str]:
    options = Options(select=("TRT713",), facts=_size_facts(*lines), scope="all")
    return [f.message for f in check_source(code.encode(), "snippet.py", options)]


CENTRED_IF = _line(CENTRED, "    if size[0] % 2:")


def test_a_parity_choice_between_formulas_of_one_shape_is_selected_while_tracing() -> None:
    [message] = _messages(CENTRED, CENTRED_IF)
    assert "both branches are computed and selected with torch.where on the traced size" in message
    new = _blended(CENTRED, CENTRED_IF)
    assert CENTRED_AFTER in new
    assert "def _trt_size_truth(" in new and "def _trt_traced_where(" in new
    assert _blended(CENTRED, CENTRED_IF, unsafe=False) == CENTRED  # unsafe: only with --unsafe or migrate's proof
    assert _blended(new, _line(new, "    elif size[0] % 2:")) == new  # the branch kept for eager mode is not redone
    assert _messages(CENTRED) == []  # no warning observed: nothing said, nothing rewritten


def test_the_blend_keeps_eager_mode_and_scripting_bit_for_bit(tmp_path: Path) -> None:
    before = load(CENTRED, "centred_grid")
    after = import_source(_blended(CENTRED, CENTRED_IF), tmp_path)["centred_grid"]
    scripted = torch.jit.script(after)  # TorchScript compiles nothing behind `not torch.jit.is_scripting()`
    for n in (0, 1, 2, 3, 4, 7, 8, 9):  # 1: the odd formula divides 0 by 0 (NaN), as the original does
        for dtype in (torch.float32, torch.float64):
            expected = before((n, 5), dtype)
            assert bits_equal(expected, after((n, 5), dtype)), n
            assert bits_equal(expected, scripted((n, 5), dtype)), n


def test_the_blended_graph_follows_the_parity_of_the_size() -> None:
    """Exported at an even size, the original graph keeps the even centring (wrong at an odd size); the
    rewritten one computes both and selects by the traced parity, with no TracerWarning left."""
    before = load(CENTRED, "M")()
    after = load(_blended(CENTRED, CENTRED_IF), "M")()
    example, axes = torch.rand(2, 3, 8), {"x": {1: "h", 2: "w"}}
    original = export_session(before, (example,), ["x"], axes)
    assert ort_matches(original, before, torch.rand(2, 3, 6))
    assert not ort_matches(original, before, torch.rand(2, 3, 9))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.jit.trace(after, (example,))
    assert not [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    rewritten = export_session(after, (example,), ["x"], axes)
    for width in (2, 3, 5, 8, 9, 16, 17):
        assert ort_matches(rewritten, after, torch.rand(2, 3, width)), width
    odd = export_session(after, (torch.rand(2, 3, 9),), ["x"], axes)  # traced at an odd size too
    for width in (2, 5, 8, 17):
        assert ort_matches(odd, after, torch.rand(2, 3, width)), width


#: A scale chosen by the longer side (`if h > w:`): numbers computed from sizes, 0-d tensors while tracing.
LONGER = HEADER + forward("""\
h, w = x.shape[-2], x.shape[-1]
scale = x.new_ones(())
if h > w:
    scale = scale * 32 / h
else:
    scale = scale * 32 / w
return x * scale""")


def test_a_scale_chosen_by_the_longer_side_is_selected_in_the_graph() -> None:
    line = _line(LONGER, "        if h > w:")
    new = _blended(LONGER, line)
    assert "            _trt_cond = _trt_size_truth(h > w)\n" \
           "            scale = _trt_traced_where(_trt_cond, scale * 32 / h, scale * 32 / w)\n" in new
    before, after = load(LONGER, "M")(), load(new, "M")()
    for shape in ((1, 1, 4, 6), (1, 1, 6, 4), (1, 1, 5, 5), (1, 1, 0, 3), (1, 1, 3, 0)):
        x = torch.randn(shape)
        x.view(-1)[:1] = float("nan") if x.numel() else 0.0
        assert bits_equal(before(x), after(x)), shape
    session = export_session(after, (torch.rand(1, 1, 4, 6),), ["x"], {"x": {2: "h", 3: "w"}})
    for shape in ((1, 1, 6, 4), (1, 1, 7, 7), (1, 1, 3, 9)):
        assert ort_matches(session, after, torch.rand(shape)), shape


def test_branches_of_other_shapes_keep_the_examples_branch_with_its_warning() -> None:
    """A sum that keeps its axis in one branch only (shapes that differ per branch, which the rewrite cannot
    see): `_trt_traced_where` does not broadcast them; the trace reads the condition as the `if` did, with its
    warning, so `migrate` still sees the bake."""
    code = HEADER + forward("w = x.shape[-1]\nif w % 2:\n    y = x.sum(-1, keepdim=True)\nelse:\n    y = x.sum(-1)\n"
                            "return y * 2")
    new = _blended(code, _line(code, "        if w % 2:"))
    assert "_trt_traced_where(_trt_cond, x.sum(-1, keepdim=True), x.sum(-1))" in new
    before, after = load(code, "M")(), load(new, "M")()
    for width in (0, 1, 4, 5):
        x = torch.randn(2, width)
        assert bits_equal(before(x), after(x))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(after, (torch.randn(2, 5),))
    assert [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    assert traced(torch.randn(2, 5)).shape == (2, 1)


@pytest.mark.parametrize("body,reason", [
    ("w = x.shape[-1]\nif w % 2:\n    return x[..., :-1]\nelse:\n    y = x\nreturn y",
     "a branch does more than assign plain names"),
    ("w = x.shape[-1]\nif w % 2:\n    raise ValueError('odd')\nelse:\n    y = x\nreturn y",
     "a branch does more than assign plain names"),
    ("w = x.shape[-1]\nif w % 4 == 1:\n    y = x + 1\nelif w % 4 == 2:\n    y = x + 2\nelse:\n    y = x\nreturn y",
     "an `elif` chain"),
    ("w = x.shape[-1]\nodd = w % 2 == 1\nif odd:\n    y = x + 1\nelse:\n    y = x\nreturn y",
     "the condition names a decision taken on an earlier line"),
    ("w = x.shape[-1]\nif w % 2:\n    y = x + 1\n    z = y * 2\nelse:\n    y = x\n    z = x\nreturn z",
     "a branch reads a name another assignment of this `if` sets"),
    ("w = x.shape[-1]\nif w % 2:\n    y = torch.nn.functional.pad(x, (0, 1))\nelse:\n    y = x\nreturn y",
     "a branch changes the value's shape (`torch.nn.functional.pad(x, (0, 1))`)"),
    ("w = x.shape[-1]\nif w % 2:\n    x = x[..., :-1]\nreturn x", "a branch changes the value's shape (`x[..., :-1]`)"),
    # A pad's `mode=` string is the call's setting, not a value assigned (S2M2's stereo pair padded
    # by replication, zoo 33 `stereo_matching/models/s2m2/modeling_s2m2.py:980-982`).
    ("w = x.shape[-1]\nif w % 2:\n    x = torch.nn.functional.pad(x, (0, 1), mode='replicate')\nreturn x",
     "a branch changes the value's shape (`torch.nn.functional.pad(x, (0, 1), mode="),
    ("w = x.shape[-1]\nif w % 2:\n    y = 'odd'\nelse:\n    y = x.sum(-1, keepdim=True)\nreturn x",
     "a branch assigns a string or None"),
])
def test_what_the_blend_refuses_is_reported_with_its_reason(body: str, reason: str) -> None:
    code = HEADER + forward(body)
    test = next(line for line in code.splitlines() if line.strip().startswith("if "))
    line = _line(code, test)
    messages = _messages(code, line)
    assert any(f"(not rewritten: {reason}" in m for m in messages), messages
    assert _blended(code, line) == code


INT_SIZE = HEADER + forward("b = int(x.shape[0])\nreturn x.new_zeros(b, 2)")


def test_int_of_size_is_baked_by_torchscript_and_rewrite_follows_input() -> None:
    before = load(INT_SIZE, "M")()
    after = load(rewrite(INT_SIZE, unsafe=True, select=("TRT712",)), "M")()
    example, other = torch.randn(3, 4), torch.randn(5, 4)
    axes = {"x": {0: "b"}}
    assert not ort_matches(export_session(before, (example,), ["x"], axes), before, other)
    assert ort_matches(export_session(after, (example,), ["x"], axes), after, other)
    assert ort_matches(export_session(before, (example,), ["x"], axes, dynamo=True), before, other)


# --- (was test_numpy_on_size_fix.py) -------------------------------------------
# TRT711's rewrite: a NumPy computation on tensor sizes that ends as a tensor becomes torch.
#
# Each rewrite is checked as text, then run before and after on real tensors at many sizes
# (1 and 0 included): values bit for bit, dtype, shape, strides, device. The YOLO grid is
# exported with both exporters at one size and run at another. Observed TracerWarnings
# (``--facts``, or ``migrate``'s own) unlock a helper whose argument has no annotation.


GRID_HEADER = "import numpy as np\nimport torch\nfrom torch import nn\n\n"


def module(body: str, params: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"{GRID_HEADER}class M(nn.Module):\n    def forward(self, {params}):\n{lines}"


def _options(facts: Facts | None, unsafe: bool = False) -> Options:
    # With facts, every line is looked at, as `migrate` does (its facts say what ran).
    return Options(select=("TRT711",), unsafe=unsafe, facts=facts, **({"scope": "all"} if facts else {}))


def fixed(code: str, facts: Facts | None = None) -> str:
    return fix_source(code.encode(), "snippet.py", _options(facts, unsafe=True)).source.decode()


def findings(code: str, facts: Facts | None = None) -> list:
    return check_source(code.encode(), "snippet.py", _options(facts))


# (name, forward before, forward after, input shapes to run both on)
GRID_SHAPES = [(1, 3, 1, 1), (1, 3, 0, 4), (2, 3, 4, 0), (1, 3, 2, 5), (1, 3, 7, 3), (1, 3, 13, 17)]


ROW_SHAPES = [(1, 1), (2, 0), (0, 3), (3, 7), (1, 64), (2, 199)]


CASES = [
    ("yolo_grid_ij",
     'ny, nx = x.shape[2:]\nyv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")\n'
     "return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))",
     'ny, nx = x.shape[2:]\nyv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")\n'
     "return torch.stack((xv, yv), 2).to(torch.float32)",
     GRID_SHAPES),
    ("grid_xy_default",  # NumPy's default order is "xy": written out, torch's default is "ij"
     "h, w = x.size(2), x.size(3)\nreturn torch.from_numpy(np.stack(np.meshgrid(np.arange(w), np.arange(h)), -1))",
     "h, w = x.size(2), x.size(3)\n"
     'return torch.stack(torch.meshgrid(torch.arange(w), torch.arange(h), indexing="xy"), -1)',
     GRID_SHAPES),
    ("linspace_to_input_dtype",
     "w = x.size(-1)\nreturn x * torch.tensor(np.linspace(0, w - 1, w), dtype=x.dtype)",
     "w = x.size(-1)\nreturn x * _trt_linspace(0, w - 1, w, dtype=torch.float64).to(x.dtype)",
     ROW_SHAPES),
    ("linspace_float64_kept",
     "w = x.shape[1]\nreturn torch.tensor(np.linspace(0, w - 1, w))",
     "w = x.shape[1]\nreturn _trt_linspace(0, w - 1, w, dtype=torch.float64)",
     ROW_SHAPES),
    ("zeros_plus_ones_float64",
     "n = x.shape[0]\nz = np.zeros((n, 4)) + np.ones((n, 4))\nreturn torch.from_numpy(z)",
     "n = x.shape[0]\nz = torch.zeros((n, 4), dtype=torch.float64) + torch.ones((n, 4), dtype=torch.float64)\n"
     "return z",
     ROW_SHAPES),
    ("indices_row",  # mmdetection3d's CenterFormer: np.indices((batch, self.obj_num))[0]
     "b, n = x.shape[:2]\nreturn torch.as_tensor(np.indices((b, n))[0])",
     'b, n = x.shape[:2]\nreturn torch.stack(torch.meshgrid(torch.arange(b), torch.arange(n), indexing="ij"))[0]',
     ROW_SHAPES),
    ("arange_arithmetic_int64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(1, w + 1) * 2 - 1)",
     "w = x.shape[1]\nreturn ((torch.arange(1, w + 1) * 2) - 1)",
     ROW_SHAPES),
    # NumPy's promotion made explicit: a Python float or a true division with an integer array
    # is float64 in NumPy, float32 in torch.
    ("arange_times_float_is_float64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) * 0.5)",
     "w = x.shape[1]\nreturn (torch.arange(w).to(torch.float64) * 0.5)",
     ROW_SHAPES),
    ("arange_divided_is_float64",
     "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) / 2)",
     "w = x.shape[1]\nreturn (torch.arange(w).to(torch.float64) / 2)",
     ROW_SHAPES),
    ("device_keyword",
     "w = x.shape[1]\nreturn torch.tensor(np.arange(w), device=x.device)",
     "w = x.shape[1]\nreturn torch.arange(w).to(device=x.device)",
     ROW_SHAPES),
    # More of the table: tile vs repeat (NumPy's repeat is repeat_interleave), the stacks,
    # promotion across arrays (int64 with float32 is float64 in NumPy), views of a transpose.
    ("tile_and_repeat",
     "w = x.shape[1]\nreturn torch.from_numpy(np.tile(np.arange(w), (2, 1)) + np.repeat(np.arange(2), w).reshape(2, w))",
     "w = x.shape[1]\nreturn (torch.tile(torch.arange(w), (2, 1)) + torch.arange(2).repeat_interleave(w).reshape(2, w))",
     ROW_SHAPES),
    ("hstack_column_stack",
     "w = x.shape[1]\n"
     "return torch.from_numpy(np.column_stack((np.arange(w), np.hstack((np.arange(w - w), np.ones(w))))))",
     "w = x.shape[1]\nreturn torch.stack((torch.arange(w).to(torch.float64), torch.cat((torch.arange(w - w)"
     ".to(torch.float64), torch.ones(w, dtype=torch.float64)), 0)), 1)",
     ROW_SHAPES),
    ("concatenate_promotes",
     "n = x.shape[0]\nreturn torch.from_numpy(np.concatenate((np.arange(n), np.zeros(n, dtype=np.float32)), 0))",
     "n = x.shape[0]\nreturn torch.cat((torch.arange(n).to(torch.float64), torch.zeros(n, dtype=torch.float32)"
     ".to(torch.float64)), 0)",
     ROW_SHAPES),
    ("full_and_floor_division",
     "n = x.shape[0]\nreturn torch.from_numpy(np.full((n, 2), 7) // 2 - np.full((n, 2), 1.5))",
     "n = x.shape[0]\nreturn ((torch.full((n, 2), 7, dtype=torch.int64) // 2).to(torch.float64) - "
     "torch.full((n, 2), 1.5, dtype=torch.float64))",
     ROW_SHAPES),
    ("transpose_slices",
     "h, w = x.shape\nreturn torch.from_numpy(np.indices((h, w)).transpose(1, 2, 0)[:, 1:])",
     'h, w = x.shape\nreturn torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"))'
     ".permute(1, 2, 0)[:, 1:]",
     ROW_SHAPES),
    ("T_of_stack_to_tensor",
     "h, w = x.shape\nreturn torch.tensor(np.stack((np.arange(w), np.arange(w) * 2)).T, dtype=torch.float32)",
     "h, w = x.shape\nreturn torch.stack((torch.arange(w), (torch.arange(w) * 2)), 0).permute(1, 0)"
     ".to(torch.float32)",
     ROW_SHAPES),
    # torch.tensor copies: two tensors of one local are two tensors after the rewrite too.
    ("local_read_twice_by_tensor",
     "w = x.shape[1]\na = np.arange(w)\nreturn torch.tensor(a), torch.tensor(a)",
     "w = x.shape[1]\na = torch.arange(w)\nreturn a.clone(), a.clone()",
     ROW_SHAPES),
]


@pytest.mark.parametrize("name,before,after,shapes", CASES, ids=[c[0] for c in CASES])
def test_numpy_grid_rewrite_text(name, before, after, shapes) -> None:
    new = fixed(module(before))
    assert strip_helpers(new).split("class M", 1)[1] == module(after).split("class M", 1)[1]
    # TRT368's helper is inserted where a converted `np.linspace` of a run-time count calls it, and only there.
    assert ("def _trt_linspace(" in new) == ("_trt_linspace(" in after)
    assert strip_helpers(new).split("class M", 1)[0].strip() == module(after).split("class M", 1)[0].strip()
    assert rewrite(module(before)) == module(before)  # unsafe: not without --unsafe


def _run(model, x):
    try:
        return model(x), None
    except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
        return None, type(exc)


@pytest.mark.parametrize("name,before,after,shapes", CASES, ids=[c[0] for c in CASES])
def test_same_values_dtype_shape_strides_and_device_at_every_size(name, before, after, shapes) -> None:
    original, new = load(module(before), "M")(), load(fixed(module(before)), "M")()
    assert "np." not in fixed(module(before)).split("class M", 1)[1]
    for shape in shapes:
        x = torch.randn(shape)
        x.view(-1)[:3] = torch.tensor([0.0, -0.0, float("nan")])[: x.numel()]
        want, error = _run(original, x)
        got, new_error = _run(new, x)
        assert error is new_error, (shape, error, new_error)
        if want is None:
            continue
        assert_same(want, got)  # exact: values, dtype, shape, NaN and the sign of zero
        wants, gots = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for one, other in zip(wants, gots):
            assert one.device == other.device == torch.device("cpu") and one.is_contiguous() == other.is_contiguous()
            if one.numel():  # an empty array's strides address nothing (from_numpy gives zeros there)
                assert one.stride() == other.stride(), shape
            assert not other.requires_grad
        # Memory shared between outputs is shared after the rewrite too, and only then.
        assert _sharing(wants) == _sharing(gots), shape


def _sharing(outputs: tuple) -> list[list[bool]]:
    """Which pairs of (non-empty) outputs share memory."""
    return [[a.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() for b in outputs]
            for a in outputs]


def test_negative_sizes_are_the_stated_assumption() -> None:
    """`np.arange(w - 1)` at w = 0 is empty; `torch.arange(-1)` raises: why the fix is unsafe."""
    code = module("w = x.shape[1]\nreturn torch.from_numpy(np.arange(w - 1))")
    new = fixed(code)
    assert "torch.arange(w - 1)" in new
    x = torch.zeros(2, 0)
    assert load(code, "M")()(x).shape == (0,)
    with pytest.raises(RuntimeError):
        load(new, "M")()(x)
    assert load(new, "M")()(torch.zeros(2, 5)).tolist() == [0, 1, 2, 3]


NOT_REWRITTEN = [
    # The array stays NumPy: returned, printed, read twice, or a view handed out as a tensor.
    "return np.arange(x.shape[0])",
    "w = x.shape[1]\na = np.arange(w)\nprint(a.shape)\nreturn torch.from_numpy(a)",
    'h, w = x.shape\nyv, xv = np.meshgrid(np.arange(h), np.arange(w))\nreturn torch.from_numpy(xv)',
    # A NumPy local changed in place, a power, a function outside the table.
    "w = x.shape[1]\na = np.arange(w)\na[0] = 5\nreturn torch.from_numpy(a)",
    "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w) ** 2)",
    "w = x.shape[1]\nreturn torch.from_numpy(np.cumsum(np.arange(w)))",
    # A new axis: NumPy's stride 0 there is not torch's, and from_numpy keeps it.
    "w = x.shape[1]\nreturn torch.from_numpy(np.arange(w)[:, None])",
    # No exact torch form, or a keyword the rewrite does not know.
    "w = x.shape[1]\nreturn torch.from_numpy(np.prod(np.arange(w)))",
    "w = x.shape[1]\nreturn torch.from_numpy(np.linspace(0, 1, w, endpoint=False))",
]


@pytest.mark.parametrize("body", NOT_REWRITTEN)
def test_named_not_rewritten(body) -> None:
    code = module(body)
    found = findings(code)
    assert found and all(f.edit is None and "not rewritten" in f.message for f in found)
    assert fixed(code) == code


def test_numpy_on_constants_is_not_reported() -> None:
    assert findings(module("return x + torch.from_numpy(np.arange(10))")) == []


HELPER = GRID_HEADER + '''\
def make_grid(output):
    ny, nx = output.size(2), output.size(3)
    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))


class Decode(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 3, 1)[..., :2] + make_grid(x)
'''


GRID_LINE = HELPER.splitlines().index('    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")') + 1


def _facts(path: str, line: int) -> Facts:
    facts = Facts(runs=3, lines={str(Path(path).resolve()): set(range(1, 12))})
    facts.note_traced([(path, line, "Converting a tensor to a NumPy array might cause the trace to be incorrect.")])
    return facts


def test_a_helper_without_annotation_is_silent_without_facts() -> None:
    assert findings(HELPER) == []
    assert check_source(HELPER.encode(), "snippet.py", Options(select=("TRT711",), scope="all")) == []


def test_a_tracer_warning_at_the_line_unlocks_the_rewrite() -> None:
    facts = _facts("snippet.py", GRID_LINE)
    [finding] = findings(HELPER, facts)
    assert finding.line == GRID_LINE and finding.fix.value == "unsafe"
    new = fixed(HELPER, facts)
    assert '    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")\n' in new
    assert "    return torch.stack((xv, yv), 2).to(torch.float32)\n" in new
    helper, rewritten = load(HELPER, "make_grid"), load(new, "make_grid")
    for h, w in [(1, 1), (0, 2), (3, 0), (4, 5), (9, 2)]:
        out = torch.randn(1, 2, h, w)
        assert_same(helper(out), rewritten(out))


def test_a_tracer_warning_elsewhere_unlocks_nothing() -> None:
    assert findings(HELPER, _facts("snippet.py", GRID_LINE + 1)) == []
    assert findings(HELPER, _facts("other.py", GRID_LINE)) == []


def test_tracer_warnings_survive_the_facts_file(tmp_path) -> None:
    facts = _facts(str(tmp_path / "m.py"), 7)
    facts.save(tmp_path / "facts.json")
    again = Facts.load(tmp_path / "facts.json").for_file(str(tmp_path / "m.py"))
    assert again is not None and again.traced(7, 7) and not again.traced(8, 9)


DECODE = module(
    'ny, nx = x.shape[2:]\nyv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")\n'
    "grid = torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))\n"
    "return x[:, :2].permute(0, 2, 3, 1) + grid")


def _exported(model, example: torch.Tensor, path: Path, dynamo: bool) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(model, (example,), dynamo=True, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}}, verbose=False).save(str(path))
        else:
            torch.onnx.export(model, (example,), str(path), dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _matches(session: ort.InferenceSession, model, x: torch.Tensor) -> bool:
    try:
        [got] = session.run(None, {"x": x.numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
        return False
    want = model(x).numpy()
    return got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_grid_exports_for_every_size(tmp_path, dynamo) -> None:
    original, new = load(DECODE, "M")(), load(fixed(DECODE), "M")()
    example, others = torch.randn(1, 3, 4, 5), [torch.randn(1, 3, 6, 3), torch.randn(1, 3, 9, 11)]
    session = _exported(new, example, tmp_path / "new.onnx", dynamo)
    assert all(_matches(session, new, x) for x in [example, *others])
    if not dynamo:
        # The TorchScript exporter keeps the NumPy grid of the traced size: wrong elsewhere.
        before = _exported(original, example, tmp_path / "old.onnx", dynamo)
        assert _matches(before, original, example) and not any(_matches(before, original, x) for x in others)


def test_the_users_torch_alias_is_kept_and_a_missing_import_added() -> None:
    aliased = ("import numpy\nimport torch as th\nfrom torch import nn\n\nclass M(nn.Module):\n"
               "    def forward(self, x):\n        return th.from_numpy(numpy.arange(x.shape[1]))\n")
    assert fixed(aliased).endswith("        return th.arange(x.shape[1])\n")
    bare = aliased.replace("import torch as th\nfrom torch import nn", "from torch import nn, from_numpy").replace(
        "th.from_numpy", "from_numpy")
    new = fixed(bare)
    assert "import torch\n" in new and new.endswith("        return torch.arange(x.shape[1])\n")
    assert_same(load(bare, "M")()(torch.zeros(2, 5)), load(new, "M")()(torch.zeros(2, 5)))


# --- (was test_size_minmax.py) -------------------------------------------------
# TRT712's `min`/`max` of sizes: the helpers keep the choice in the TorchScript export.
#
# The rewrite text, the helpers against the built-ins on ints, scripting, fx, and both ONNX
# exporters run in ONNX Runtime at sizes other than the example's. Then the `int`/`ceil`/`floor`
# helpers: the built-ins outside a trace (values, types, exceptions), a traced size in the graph.


HALF = """\
import torch
from torch import nn


class Half(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k = max(x.shape[1] // 2, 1)
        n = min(x.shape[1] - 2, 3)
        return torch.topk(x, k, dim=1).values, x[:, :n]
"""


def _load(code: str, tmp_path, name: str) -> torch.nn.Module:
    # A real file: TorchScript needs the source of the helpers inserted into it.
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    namespace: dict = {"__name__": name, "__file__": str(path)}
    exec(compile(code, str(path), "exec"), namespace)
    return namespace["Half"]()


def test_rewrite_text() -> None:
    assert rewrite(HALF) == HALF  # unsafe: applied with --unsafe or by migrate as a verified candidate
    after = rewrite(HALF, unsafe=True)
    assert "k = _trt_size_max(x.shape[1] // 2, 1)" in after and "n = _trt_size_min(x.shape[1] - 2, 3)" in after
    assert "def _trt_size_traced(" in after


def test_an_int_of_a_size_is_a_size_and_remainders_stay_integers() -> None:
    """``h = int(x.shape[2])`` binds the size itself (transformers' TF-style padding), and ``%`` of
    it by a number is an integer like ``//``: the ``max`` is rewritten, and the ``int`` too."""
    code = (
        "import torch\n\n\n"
        "def f(x: torch.Tensor):\n"
        "    h = int(x.shape[2])\n"
        "    return x[:, :, : max(3 - h % 2, 1)]\n"
    )
    after = rewrite(code, unsafe=True, select=("TRT712",))
    assert "h = x.shape[2]\n" in after and "x[:, :, : _trt_size_max(3 - h % 2, 1)]" in after, after


@pytest.mark.parametrize("call", [
    "max(x.shape[1] * 0.5, 1)",  # a float: the traced form would change the type
    "max(x.shape[1] / 2, 1)",
    "max(x.shape[0], x.shape[1], 2)",  # three operands
    "max(x.shape[0], x.shape[1], key=abs)",
    "min(n, x.shape[1])",  # a name the rule cannot see is an int
])
def test_only_two_integer_operands_are_rewritten(call: str) -> None:
    code = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x, n):\n        return {call}\n"
    assert "_trt_size" not in rewrite(code, unsafe=True, select=("TRT712",))  # TRT350 takes `x.shape[1] * 0.5`


LETTERBOX = """\
import torch
from torch import nn


class Letterbox(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, w = x.shape[2:]
        gain = min(h / 48, w / 64)
        top = max(h / 2.0, w - 1.5)
        return x * gain + top
"""


def test_a_minimum_of_two_quotients_is_rewritten_as_floats() -> None:
    """YOLOv5's letterbox gain `min(img1_shape[0] / img0_shape[0], img1_shape[1] / img0_shape[1])`:
    both operands are floats, so eager code gets a float whichever wins."""
    after = rewrite(LETTERBOX, unsafe=True, select=("TRT712",))
    assert "gain = _trt_size_min_float(h / 48, w / 64)" in after, after
    assert "top = _trt_size_max_float(h / 2.0, w - 1.5)" in after, after
    assert "def _trt_size_chosen_float(" in after and "def _trt_size_traced(" in after


def test_locals_bound_to_float_quotients_are_floats() -> None:
    """A tracker's `gain_w = float(img_size[0]) / img0_shape[1]`, then `min(gain_w, gain_h)`; a name bound
    twice, once to an int, is not a float."""
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        h, w = x.shape[2:]\n"
            "        gain_w = float(w) / 64\n        gain_h = h / 48\n        k = w\n        if h > 3:\n"
            "            k = w / 2\n        return x * min(gain_w, gain_h), x * max(gain_h, k)\n")
    path = str(Path("letterbox_locals.py").resolve())
    facts = Facts(runs=3, lines={path: set(range(1, 12))})
    facts.note_traced([(path, 10, "Converting a tensor to a Python boolean might cause the trace to be incorrect.")])
    options = Options(select=("TRT712",), unsafe=True, facts=facts, scope="all")
    after = fix_source(code.encode(), path, options).source.decode()
    assert "min(gain_w, gain_h)" not in after and "_trt_size_min_float(gain_w, gain_h)" in after, after
    assert "max(gain_h, k)" in after


@pytest.mark.parametrize("call", ["min(h / 48, w)", "max(h * 1.5, 3)", "min(h / 48, w / 64, 2.0)"])
def test_a_float_and_an_int_are_left(call: str) -> None:
    """Eager code gets an int or a float depending on which operand wins: no single traced type."""
    code = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        h, w = x.shape[2:]\n" \
           f"        return x * {call}\n"
    assert "_trt_size" not in rewrite(code, unsafe=True, select=("TRT712",))


def test_float_helpers_are_the_builtins_on_floats() -> None:
    values = (-2.5, -0.0, 0.0, 0.75, 1.0, 3e38, float("inf"))
    for a, b in itertools.product(values, values):
        for helper, builtin in ((_trt_size_max_float, max), (_trt_size_min_float, min)):
            result = helper(a, b)
            assert result is builtin(a, b) or (result == builtin(a, b) and type(result) is float)


def test_the_letterbox_gain_follows_the_size_in_the_graph(tmp_path) -> None:
    """Exported at 48x64 (where the height's quotient wins by a hair: both are 1.0), the original keeps
    the example's choice as a constant; the rewritten graph follows both sizes, and eager mode and
    scripting are unchanged."""
    original = _load(LETTERBOX.replace("Letterbox", "Half"), tmp_path, "lb_before")
    rewritten = _load(rewrite(LETTERBOX, unsafe=True, select=("TRT712",)).replace("Letterbox", "Half"), tmp_path,
                      "lb_after")
    scripted = torch.jit.script(rewritten)
    sizes = ((48, 64), (96, 64), (48, 128), (20, 100), (100, 20))
    for h, w in sizes:
        x = torch.randn(1, 2, h, w)
        assert torch.equal(rewritten(x), original(x)) and torch.equal(scripted(x), original(x))
    example = torch.randn(1, 2, 60, 64)  # height wins: 1.25 vs 1.0
    axes = {"x": {2: "h", 3: "w"}}
    before = export_session(original, (example,), ["x"], axes)
    after = export_session(rewritten, (example,), ["x"], axes)
    for h, w in sizes:
        x = torch.randn(1, 2, h, w)
        assert ort_matches(after, original, x), (h, w)
    assert not ort_matches(before, original, torch.randn(1, 2, 100, 20))  # the width wins there


def test_helpers_are_the_builtins_on_ints() -> None:
    values = (-3, -1, 0, 1, 2, 7, 2**62)
    for a, b in itertools.product(values, values):
        for helper, builtin in ((_trt_size_max, max), (_trt_size_min, min)):
            result = helper(a, b)
            assert result == builtin(a, b) and type(result) is int


def _compare_eager(original, rewritten, widths) -> None:
    for width in widths:
        x = torch.randn(2, width)
        x[0, 0] = -0.0
        for got, want in zip(rewritten(x), original(x)):
            assert torch.equal(got, want) and got.dtype == want.dtype and got.stride() == want.stride()


def test_eager_and_script_are_the_original(tmp_path) -> None:
    original = _load(HALF, tmp_path, "half_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "half_after")
    _compare_eager(original, rewritten, (1, 2, 3, 8, 17))
    _compare_eager(torch.jit.script(original), torch.jit.script(rewritten), (1, 2, 3, 8, 17))


def test_fx_fails_as_the_original_does(tmp_path) -> None:
    """fx makes sizes Proxies; comparing one in Python raises in both."""
    errors = []
    for code, name in ((HALF, "fx_before"), (rewrite(HALF, unsafe=True), "fx_after")):
        with pytest.raises(Exception) as caught:
            torch.fx.symbolic_trace(_load(code, tmp_path, name))
        errors.append(type(caught.value))
    assert errors[0] is errors[1]


def _onnx_outputs(model, path, widths, dynamo: bool) -> dict[int, list]:
    example = (torch.randn(2, 8),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(model, example, str(path), dynamo=True, input_names=["x"],
                              dynamic_shapes={"x": {1: torch.export.Dim.AUTO}})
        else:
            torch.onnx.export(model, example, str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {1: "width"}})
    session = ort.InferenceSession(str(path))
    return {w: session.run(None, {"x": torch.arange(2.0 * w).reshape(2, w).numpy()}) for w in widths}


def test_torchscript_export_keeps_the_choice(tmp_path) -> None:
    widths = (1, 2, 3, 8, 9, 17)
    original = _load(HALF, tmp_path, "ts_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "ts_after")
    before = _onnx_outputs(original, tmp_path / "before.onnx", widths, dynamo=False)
    after = _onnx_outputs(rewritten, tmp_path / "after.onnx", widths, dynamo=False)
    for width in widths:
        expected = rewritten(torch.arange(2.0 * width).reshape(2, width))
        for got, want in zip(after[width], expected):
            assert got.shape == tuple(want.shape) and (got == want.numpy()).all(), width
    # The original's graph kept the example's choices: max picked the size (so k = 0 at width 1,
    # where max gives 1) and min picked 3 (so 3 columns at width 3, where min gives 1).
    assert before[1][0].shape == (2, 0) and before[3][1].shape == (2, 3)
    assert before[17][0].shape == (2, 8)  # where the choice does not flip, the size was traced


def test_dynamo_export_is_unchanged(tmp_path) -> None:
    """The dynamo exporter keeps min/max of symbolic sizes itself; the helpers leave it alone."""
    widths = (3, 8, 9, 17)
    original = _load(HALF, tmp_path, "dy_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "dy_after")
    before = _onnx_outputs(original, tmp_path / "before.onnx", widths, dynamo=True)
    after = _onnx_outputs(rewritten, tmp_path / "after.onnx", widths, dynamo=True)
    for width in widths:
        for got, want in zip(after[width], before[width]):
            assert got.shape == want.shape and (got == want).all()


TOPK_INDEX = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, max_det: int = 4) -> None:
        super().__init__()
        self.max_det = max_det

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return self.top(scores, self.max_det)

    def top(self, scores: torch.Tensor, max_det: int) -> torch.Tensor:
        anchors, nc = scores.shape[1:]
        k = min(max_det, anchors)
        return scores.amax(-1).topk(k, dim=1).values
"""


def test_a_parameter_annotated_int_is_an_integer_operand(tmp_path) -> None:
    """ultralytics' Detect.get_topk_index: `k = min(max_det, anchors)` with `max_det: int` and
    `anchors` a size. The original's graph keeps the example's choice (4 of 7 anchors: k = 4
    at 2 anchors fails); the rewritten one follows the anchors, and eager is unchanged."""
    after = rewrite(TOPK_INDEX, unsafe=True)
    assert "k = _trt_size_min(max_det, anchors)" in after
    # Unannotated, or rebound before the call, the name is not known to be an int.
    assert "_trt_size" not in rewrite(TOPK_INDEX.replace("max_det: int)", "max_det)"), unsafe=True)
    rebound = TOPK_INDEX.replace("        k = min", "        max_det = scores.sum()\n        k = min")
    assert "_trt_size" not in rewrite(rebound, unsafe=True)
    models = {}
    for name, code in (("before", TOPK_INDEX), ("after", after)):
        path = tmp_path / f"topk_{name}.py"
        path.write_text(code)
        namespace: dict = {"__name__": f"topk_{name}", "__file__": str(path)}
        exec(compile(code, str(path), "exec"), namespace)
        models[name] = namespace["Head"]()
    for anchors in (0, 1, 2, 4, 5, 9):
        scores = torch.randn(2, anchors, 3)
        scores[0, :1] = -0.0
        want, got = models["before"](scores), models["after"](scores)
        assert torch.equal(got, want) and got.shape == want.shape and got.dtype == want.dtype
    outputs = {}
    for name, model in models.items():
        path = tmp_path / f"topk_{name}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 7, 3),), str(path), dynamo=False, input_names=["s"],
                              dynamic_axes={"s": {1: "anchors"}})
        session = ort.InferenceSession(str(path))
        outputs[name] = {}
        for anchors in (2, 3, 7, 12):
            scores = torch.randn(1, anchors, 3)
            try:
                outputs[name][anchors] = session.run(None, {"s": scores.numpy()})[0].shape
            except Exception:  # noqa: BLE001 - the baked k larger than the row
                outputs[name][anchors] = "fails"
            assert models["after"](scores).shape == (1, min(4, anchors))
    assert outputs["after"] == {2: (1, 2), 3: (1, 3), 7: (1, 4), 12: (1, 4)}
    assert outputs["before"][2] == "fails" and outputs["before"][12] == (1, 4)


ROUNDED = [(_trt_size_int, int), (_trt_size_ceil, math.ceil), (_trt_size_floor, math.floor)]


@pytest.mark.parametrize("helper,builtin", ROUNDED, ids=["int", "ceil", "floor"])
def test_rounding_helpers_are_the_builtins_outside_a_trace(helper, builtin) -> None:
    values = [0, 7, -7, 2**62, True, 0.0, -0.0, 2.5, -2.5, 1e20, -1e-300, 7 / 3, np.float64(2.2), np.float32(-2.7),
              np.int64(5), torch.tensor(3), torch.tensor(2.5), torch.tensor(-2.5)]
    for value in values:
        want = builtin(value)
        got = helper(value)
        assert got == want and type(got) is type(want), (value, got, want)
    for odd in [float("inf"), float("-inf"), float("nan"), "3", None, torch.tensor([1.0, 2.0])]:
        outcomes = []
        for function in (builtin, helper):
            try:
                outcomes.append(function(odd))
            except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], (odd, outcomes)


@pytest.mark.parametrize("helper,builtin", ROUNDED, ids=["int", "ceil", "floor"])
def test_rounding_helpers_keep_the_traced_size(helper, builtin, tmp_path) -> None:
    """Traced on one width, the exported graph rounds every other width's quotient as eager does."""

    def crop(x: torch.Tensor) -> torch.Tensor:
        return x[:, : helper(x.shape[1] * 0.75)] if helper is _trt_size_int else x[:, : helper(x.shape[1] / 3)]

    class Crop(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return crop(x)

    path = tmp_path / "crop.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Crop(), (torch.randn(2, 8),), str(path), dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {1: "width"}})
    session = ort.InferenceSession(str(path))
    for width in (1, 2, 3, 4, 7, 8, 9, 13):
        x = torch.arange(2.0 * width).reshape(2, width)
        [got] = session.run(None, {"x": x.numpy()})
        quotient = width * 0.75 if helper is _trt_size_int else width / 3
        assert got.shape == (2, builtin(quotient)) and (got == Crop()(x).numpy()).all(), width


@pytest.mark.parametrize("call,after", [
    ("int(h * self.scale)", "_trt_size_int(h * self.scale)"),
    ("math.ceil(h / self.stride)", "_trt_size_ceil(h / self.stride)"),
    ("math.floor(w * 0.5)", "_trt_size_floor(w * 0.5)"),
    ("int(np.ceil(w / self.window))", "_trt_size_ceil(w / self.window)"),
    ("int(math.floor(h / 2.5))", "_trt_size_floor(h / 2.5)"),
    ("int(math.ceil(h / 4))", "(h + 3) // 4"),  # the exact integer form where there is one
    # py-feat's RetinaFace priors: the quotient made a float32 tensor and rounded up by torch.
    ("int(torch.ceil(torch.tensor(h / 8)))", "(h + 7) // 8"),
    ("int(torch.floor(torch.as_tensor(w / self.stride)))", "_trt_size_floor(w / self.stride)"),
    ("int(torch.ceil(torch.tensor(h / 8, dtype=torch.float64)))", None),  # (another dtype: not read)
    ("int(torch.ceil(x.sum() / 8))", None),  # a tensor value
    # ptlflow's InputScaler: `float` of the size inside the rounding is the same quotient.
    ("int(math.ceil(float(h) / 4))", "(h + 3) // 4"),
    ("int(math.ceil(float(h) / self.stride))", "_trt_size_ceil(_trt_size_float(h) / self.stride)"),
    ("int(math.ceil(float(n) / 4))", None),  # `n` is no size
    ("int(math.ceil(float(x.sum()) / 4))", None),  # a tensor value
    ("int(math.sqrt(x.shape[1]))", "_trt_size_int(_trt_size_sqrt(x.shape[1]))"),  # a token grid's side
    ("int(np.sqrt(h * w))", "_trt_size_int(_trt_size_sqrt(h * w))"),
    ("int(x.shape[1] ** 0.5)", "_trt_size_int(x.shape[1] ** 0.5)"),
    ("int(math.sqrt(h) * 2)", "_trt_size_int(_trt_size_sqrt(h) * 2)"),
    ("math.sqrt(x.shape[-1])", "_trt_size_sqrt(x.shape[-1])"),
    # SpyNet's size padded to a multiple of 32: the outer floor reads the traced size too.
    ("math.floor(math.ceil(w / 32.0) * 32.0)", "_trt_size_floor(_trt_size_ceil(w / 32.0) * 32.0)"),
    ("float(w) / float(h)", "_trt_size_float(w) / _trt_size_float(h)"),  # a ratio of sizes
    ("float(n)", None),  # `n` is no size
    ("int(math.sqrt(n))", None),  # `n` is no size
    ("int(math.sqrt(x.sum()))", None),  # a tensor value
    ("max(h - self.k, 0)", "_trt_size_max(h - self.k, 0)"),
    ("int(x.sum())", None),  # a tensor value: TRT702's
    ("round(h * 0.5)", "_trt_size_round(h * 0.5)"),
    ("round(h * 0.5, 2)", None),  # `ndigits`: a float, no size
    ("round(n)", None),  # `n` is no size
    ("round(x.sum())", None),  # a tensor value
    # piq's automatic downsampling: one finding, the whole expression rewritten.
    ("max(1, round(min(x.size()[-2:]) / 256))",
     "_trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))"),
    ("min(x.shape[2:])", "_trt_size_min_of(x.shape[2:])"),  # the sequence whole: no rank assumed
    ("max(x.shape[-2:])", "_trt_size_max_of(x.shape[-2:])"),
    ("min(x.shape[-2:], key=abs)", None),
    ("min(n)", None),
    # piq's DSS (piq/dss.py:151): a rank among the pixels, `round` of a product of sizes and a fraction.
    ("round(n * (x.size(-2) * x.size(-1)))", None),  # `n` could be anything: no number the helper takes
    ("round(0.3 * (x.size(-2) * x.size(-1)))", "_trt_size_round(0.3 * (x.size(-2) * x.size(-1)))"),
    ("max(h * 0.5, 1)", None),  # a float: min/max keep integers only
    ("int(h * n)", None),  # `n` could be anything: without facts, not a number the helper takes
])
def test_int_ceil_floor_of_sizes(call: str, after: str | None) -> None:
    code = ("import math\nimport numpy as np\nimport torch\nclass M(torch.nn.Module):\n"
            f"    def forward(self, x, n):\n        h, w = x.shape[2:]\n        return {call}\n")
    new = rewrite(code, unsafe=True, select=("TRT712",))
    assert new.endswith(f"        return {after or call}\n"), new


def test_sizes_handed_down_are_taken_on_the_observed_evidence(tmp_path) -> None:
    """`int(patch_h * 2)` in a head whose `patch_h` comes from the caller's `h // 2`: TRT702 names a
    tensor conversion without facts; with the recorded run (no value read there) and the export's
    TracerWarning at the line, it is TRT712's, rewritten with `_trt_size_int`."""
    from trtcodemod.engine import Options, check_source, fix_source
    from trtcodemod.evidence.facts import Facts

    code = ("import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n    def forward(self, out, patch_h, patch_w):\n"
            "        return F.interpolate(out, (int(patch_h * 2), int(patch_w * 2)))\n")
    path = tmp_path / "head.py"
    path.write_text(code)
    assert {f.rule for f in check_source(code.encode(), str(path), Options(select=("TRT702", "TRT712")))} == {"TRT702"}
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 8))})
    facts.note_traced([(str(path), 7, "Converting a tensor to a Python integer might cause the trace to be incorrect.")])
    options = Options(select=("TRT702", "TRT712"), facts=facts, scope="all", unsafe=True)
    assert [f.rule for f in check_source(code.encode(), str(path), options)] == ["TRT712", "TRT712"]
    new = fix_source(code.encode(), str(path), options).source.decode()
    assert "(_trt_size_int(patch_h * 2), _trt_size_int(patch_w * 2))" in new


def test_float_helper_is_the_builtin_outside_a_trace() -> None:
    values = [0, 7, -7, 2**62, 2**53 + 1, True, 0.0, -0.0, 2.5, -2.5, 1e300, float("inf"), float("-inf"), np.int64(5),
              np.float32(-2.7), torch.tensor(3), torch.tensor(-2.5)]
    for value in values:
        want, got = float(value), _trt_size_float(value)
        assert type(got) is type(want) and (got == want or math.isnan(want) and math.isnan(got)), (value, got, want)
    nan = _trt_size_float(float("nan"))
    assert type(nan) is float and math.isnan(nan)
    for odd in ["3", "x", None, torch.tensor([1.0, 2.0]), torch.zeros(0)]:
        outcomes = []
        for function in (float, _trt_size_float):
            try:
                outcomes.append(function(odd))
            except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], (odd, outcomes)
    scripted = torch.jit.script(_trt_size_float)
    assert scripted(5) == 5.0 and scripted(-2.5) == -2.5


SPYNET_SIZES = '''import math
import torch
import torch.nn.functional as F
from torch import nn


class Pyramid(nn.Module):
    def forward(self, x):
        h, w = x.size(2), x.size(3)
        h_pad = math.floor(math.ceil(h / 32.0) * 32.0)
        w_pad = math.floor(math.ceil(w / 32.0) * 32.0)
        y = F.interpolate(x, size=(h_pad, w_pad), mode="bilinear", align_corners=False)
        y = F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
        return y * (float(w) / float(w_pad)) + float(h) / float(h_pad)
'''


def test_a_size_padded_to_a_multiple_and_its_ratio_follow_the_input(tmp_path) -> None:
    """SpyNet (basicsr, mmagic): the input resized to the next multiple of 32 with
    `math.floor(math.ceil(w / 32.0) * 32.0)`, the flow scaled back by `float(w) / float(w_pad)`. The outer
    floor and the `float`s read the traced sizes into Python numbers too: exported at 64 px, the original
    graph resizes every size to 64 and scales by 1. Rewritten, the graph follows the input at every size
    (equal to eager mode), where the original's does not."""
    after = rewrite(SPYNET_SIZES, unsafe=True, select=("TRT712",))
    assert "_trt_size_floor(_trt_size_ceil(h / 32.0) * 32.0)" in after
    assert "_trt_size_float(w) / _trt_size_float(w_pad)" in after and "= math.floor(" not in after
    matches = {}
    for side, source in (("before", SPYNET_SIZES), ("after", after)):
        model = import_source(source, tmp_path)["Pyramid"]()
        session = export_session(model, (torch.rand(1, 2, 64, 64),), ["x"], {"x": {0: "b", 2: "h", 3: "w"}})
        for shape in [(1, 2, 64, 64), (2, 2, 65, 40), (1, 2, 33, 100), (1, 2, 1, 1), (3, 2, 96, 31)]:
            x = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))
            want = model(x).numpy()
            [got] = session.run(None, {"x": x.numpy()})
            # The traced ratio is float32 where eager mode's is a double: a few ulps apart.
            matches[side, shape] = got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-5, atol=1e-5))
    assert all(v for (side, _), v in matches.items() if side == "after"), matches
    assert not any(v for (side, shape), v in matches.items() if side == "before" and shape[2:] != (64, 64)), matches
    f_before = import_source(SPYNET_SIZES, tmp_path)["Pyramid"]()
    f_after = import_source(after, tmp_path)["Pyramid"]()
    for shape in [(1, 1, 5, 7), (0, 2, 40, 40), (1, 1, 32, 64)]:
        for x in (torch.zeros(shape), -torch.rand(shape) - 1, torch.full(shape, float("inf"))):
            assert_same(f_before(x), f_after(x))


STRIDE_SCALER = '''import math
import torch
import torch.nn.functional as F
from torch import nn


class Scaler(nn.Module):
    def __init__(self, stride=16):
        super().__init__()
        self.stride = stride

    def forward(self, x):
        h, w = x.shape[-2:]
        th = int(math.ceil(float(h) / self.stride)) * self.stride
        tw = int(math.ceil(float(w) / 8)) * 8
        y = F.interpolate(x, size=(th, tw), mode="bilinear", align_corners=False)
        return F.interpolate(y * 2, size=(h, w), mode="bilinear", align_corners=False)
'''


def test_a_stride_padded_size_through_float_follows_the_input(tmp_path) -> None:
    """ptlflow's InputScaler (github.com/hmorimitsu/ptlflow, ptlflow/utils/utils.py) resizes the frames to
    `int(math.ceil(float(h) / stride)) * stride`: rewriting only the `float` left `math.ceil` reading the
    traced number, so FastFlowNet's graph kept the example's 128x128 at every size. The whole rounding is
    rewritten now, and the graph follows the input where the original's does not."""
    after = rewrite(STRIDE_SCALER, unsafe=True, select=("TRT712",))
    assert "th = _trt_size_ceil(_trt_size_float(h) / self.stride) * self.stride" in after, after
    assert "tw = ((w + 7) // 8) * 8" in after, after
    matches = {}
    for side, source in (("before", STRIDE_SCALER), ("after", after)):
        model = import_source(source, tmp_path)["Scaler"]()
        session = export_session(model, (torch.rand(1, 2, 32, 40),), ["x"], {"x": {0: "b", 2: "h", 3: "w"}})
        for shape in [(1, 2, 32, 40), (2, 2, 33, 17), (1, 2, 1, 1), (1, 2, 48, 64)]:
            x = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))
            [got] = session.run(None, {"x": x.numpy()})
            matches[side, shape] = bool(np.allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-5))
    assert all(v for (side, _), v in matches.items() if side == "after"), matches
    assert not matches["before", (2, 2, 33, 17)] and not matches["before", (1, 2, 48, 64)], matches
    f_before = import_source(STRIDE_SCALER, tmp_path)["Scaler"]()
    f_after = import_source(after, tmp_path)["Scaler"]()
    for shape in [(1, 1, 5, 7), (0, 2, 16, 16), (1, 1, 16, 9)]:
        for x in (torch.zeros(shape), -torch.rand(shape) - 1, torch.full(shape, float("nan"))):
            assert_same(f_before(x), f_after(x))


def test_a_size_of_a_list_element_is_taken_on_the_observed_evidence(tmp_path) -> None:
    """SpyNet's pyramid is a list of tensors: `int(math.floor(ref[0].size(2) / 2.0))` reads a size of one
    of its elements, which no annotation shows to be a tensor. With the recorded run (no tensor value
    read there) and the export's TracerWarning at the line, it is rewritten with `_trt_size_floor`."""
    code = ("import math\nimport torch\nfrom torch import nn\n\n"
            "class Pyramid(nn.Module):\n    def forward(self, x):\n        ref = [x, x[:, :, ::2, ::2]]\n"
            "        return ref[1].new_zeros([ref[1].size(0), int(math.floor(ref[1].size(2) / 2.0)), "
            "int(math.floor(ref[-1].shape[3] / 2.0))])\n")
    path = tmp_path / "pyramid.py"
    path.write_text(code)
    assert not [f for f in check_source(code.encode(), str(path), Options(select=("TRT712",)))]
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 9))})
    facts.note_traced([(str(path), 8, "Converting a tensor to a Python integer might cause the trace to be incorrect.")])
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    assert [f.rule for f in check_source(code.encode(), str(path), options)] == ["TRT712", "TRT712"]
    new = fix_source(code.encode(), str(path), options).source.decode()
    assert "_trt_size_floor(ref[1].size(2) / 2.0), _trt_size_floor(ref[-1].shape[3] / 2.0)])" in new
    model = import_source(new, tmp_path)["Pyramid"]()
    session = export_session(model, (torch.rand(1, 2, 16, 12),), ["x"], {"x": {0: "b", 2: "h", 3: "w"}})
    for shape in [(1, 2, 16, 12), (2, 2, 9, 30), (1, 2, 3, 5)]:
        assert ort_matches(session, model, torch.rand(shape)), shape


def test_rounding_rewrites_script_as_the_original(tmp_path) -> None:
    code = ("import math\nimport torch\nfrom torch import nn\n\n\nclass Crop(nn.Module):\n"
            "    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:\n"
            "        h = x.shape[1]\n"
            "        return x[:, : math.ceil(h / 3)], x[:, : int(h * 0.5)], x[:, : math.floor(h * 2 / 3)]\n")
    new = rewrite(code, unsafe=True, select=("TRT712",))
    assert new.count("_trt_size_") >= 3
    scripted = []
    for name, source in (("crop_before", code), ("crop_after", new)):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        namespace: dict = {"__name__": name, "__file__": str(path)}
        exec(compile(source, str(path), "exec"), namespace)
        scripted.append(torch.jit.script(namespace["Crop"]()))
    for width in (0, 1, 2, 3, 5, 8, 13):
        x = torch.arange(2.0 * width).reshape(2, width)
        for want, got in zip(scripted[0](x), scripted[1](x)):
            assert torch.equal(want, got), width


def test_square_root_helper_is_math_sqrt_outside_a_trace() -> None:
    for value in [0, 1, 2, 4, 7, 2**62, True, 0.0, -0.0, 2.5, 1e300, np.float32(2.0), np.int64(9), torch.tensor(9),
                  torch.tensor(2.5), float("inf"), float("nan"), -1, -2.5, "4", None, torch.tensor([1.0, 4.0])]:
        outcomes = []
        for function in (math.sqrt, _trt_size_sqrt):
            try:
                got = function(value)
                outcomes.append((got, type(got)) if got == got else ("nan", type(got)))
            except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], (value, outcomes)
    scripted = torch.jit.script(_trt_size_sqrt)
    for value in [0, 1, 2, 3, 16, 10**12 + 7, 2.25, 1e-300, float("inf")]:
        assert scripted(value) == math.sqrt(value), value


RVT_FORM = """\
from math import sqrt

import torch
from torch import nn


class AxialRotary(nn.Module):
    def forward(self, x):
        n = int(sqrt(x.shape[-2]))
        seq = torch.linspace(-1.0, 1.0, steps=n, device=x.device).unsqueeze(-1)
        # RvT repeats with einops (`i d -> i j d`); expand is the same grid without the dependency.
        grid = seq[:, None, :].expand(n, n, 1) + seq[None, :, :].expand(n, n, 1) * 10
        return x + grid.reshape(1, n * n, 1)
"""


def test_a_token_grid_side_follows_the_tokens_after_the_rewrite(tmp_path) -> None:
    """vit-pytorch's RvT (1.26.11, ``rvt.py:29``): a rotary table's side is ``int(sqrt(tokens))``.
    The TorchScript export keeps the traced side (a TracerWarning); rewritten, the side is a traced
    ``Sqrt`` and a cast, and ``linspace``/``repeat`` follow the token count at every size."""
    new = rewrite(RVT_FORM, unsafe=True, select=("TRT712",))
    assert "n = _trt_size_int(_trt_size_sqrt(x.shape[-2]))" in new
    models = {name: load(source, "AxialRotary")() for name, source in (("before", RVT_FORM), ("after", new))}
    results = {}
    for name, model in models.items():
        path = tmp_path / f"rvt_{name}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 16, 3),), str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "batch", 1: "tokens"}})
        session = ort.InferenceSession(str(path))
        results[name] = {}
        for tokens in (0, 1, 4, 16, 49, 144):
            x = torch.randn(2, tokens, 3)
            x[0, :1] = -0.0
            want = models["before"](x)
            assert_same(want, models["after"](x))  # eager: the same program
            try:
                [got] = session.run(None, {"x": x.numpy()})
                results[name][tokens] = bool(np.allclose(got, want.numpy(), atol=1e-6))
            except Exception:  # noqa: BLE001 - the baked side meets another token count
                results[name][tokens] = False
    # One token: the exporter's own linspace divides by steps - 1 (NaN for one step), whatever the rewrite.
    assert results["after"] == {0: True, 1: False, 4: True, 16: True, 49: True, 144: True}, results["after"]
    assert not results["before"][49] and results["before"][16]


# --- (was test_written_for_tracing.py) -----------------------------------------
# Code its author wrote for the trace keeps its Python sizes: kornia's ``filter2d`` reads the
# channel count as an int only while tracing (``int(c) if torch.jit.is_tracing() else c``,
# kornia 0.9 ``filters/filter.py:182``), because the convolution's ``groups`` must be a constant
# in ONNX. TRT712 made it a traced size, and the export then failed ("convolution for kernel of
# unknown shape"), in the fifth and sixth zoos' kornia models.


KORNIA_FORM = """\
import torch
import torch.nn.functional as F


def filter2d(input: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    b, c, h, w = input.shape
    tmp_kernel = kernel[:, None, ...].expand(-1, int(c) if torch.jit.is_tracing() else c, -1, -1)
    if torch.jit.is_tracing():
        groups = int(c)
    else:
        groups = c
    n = int(h)
    y = torch.atan2(input, input) if torch.jit.is_tracing() else input
    return F.conv2d(y, tmp_kernel.reshape(-1, 1, 3, 3), groups=groups, padding=1)[..., :n, :]
"""


def _lines(rule: str, source: str = KORNIA_FORM) -> list[int]:
    found = check_source(source.encode(), "filter.py", Options(select=(rule,)))
    return sorted(f.line for f in found)


def test_sizes_made_ints_for_the_trace_are_left_alone() -> None:
    assert _lines("TRT712") == [12]  # `n = int(h)` runs in eager mode too: still found


def test_the_same_code_outside_a_tracing_branch_is_found() -> None:
    plain = KORNIA_FORM.replace("int(c) if torch.jit.is_tracing() else c", "int(c)").replace(
        "if torch.jit.is_tracing():", "if c > 0:")
    assert _lines("TRT712", plain) == [7, 9, 12]
    training = KORNIA_FORM.replace("torch.jit.is_tracing()", "not self.training")
    assert 7 in _lines("TRT712", training)  # true while exporting, but not written for the trace


def test_operators_in_a_tracing_branch_are_still_found() -> None:
    """An op the trace records is in the graph whoever wrote it: only sizes are the author's choice."""
    assert _lines("TRT301") == [13]


def test_the_form_left_alone_exports_and_computes_the_blur() -> None:
    """Left as its author wrote it, the form exports with a dynamic batch and size."""
    namespace: dict = {}
    exec(compile(KORNIA_FORM, "filter.py", "exec"), namespace)
    filter2d = namespace["filter2d"]

    class Blur(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return filter2d(x, torch.ones(1, 3, 3) / 9)

    x = torch.rand(2, 3, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Blur(), (x,), io.BytesIO(), dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    assert torch.equal(Blur()(x)[..., :8, :], F.conv2d(x, (torch.ones(1, 3, 3) / 9)[:, None].expand(-1, 3, -1, -1)
                                                       .reshape(-1, 1, 3, 3), groups=3, padding=1))


# --- the safety contract on drawn tensors (was safety/test_safety_baked_shapes.py) ----------------
# The contract for TRT712's rewrite (integer arithmetic on sizes), before vs after.
#
# Hypothesis draws tensor shapes (empty axes included) and dtypes; each program is
# rewritten by the real engine with --unsafe and compared with tests/safety.py's comparator
# (values, dtypes, shapes, strides, gradients, aliasing, exceptions). The program is also
# run under torch.jit.script, torch.fx, torch.compile and torch.export: wherever the
# original works the rewrite must work and agree, and where the original fails (fx cannot
# call math.ceil on a traced size) the rewrite may do better.


CONTRACT_HEADER = "import math\nimport torch\nfrom torch import nn\n\n"


PROGRAMS = {
    "ceil": "n = math.ceil(x.shape[1] / 4)\nreturn x.new_zeros(x.shape[0], n) + x.sum()",
    "floor": "n = math.floor(x.size(-1) / 3)\nreturn x[..., :n] * 2",
    "int-div": "n = int(x.shape[0] / 2)\nreturn x[:n].clone()",
    "int": "b = int(x.shape[0])\nreturn x.reshape(b, -1)",
    "numel": "n = math.ceil(x.numel() / 5)\nreturn torch.arange(n) + x.numel()",
}


SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _source(body: str) -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return f"{CONTRACT_HEADER}class M(nn.Module):\n    def forward(self, x):\n{lines}"


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> dict[str, tuple[type, type]]:
    folder: Path = tmp_path_factory.mktemp("baked_shapes")
    built = {}
    for name, body in PROGRAMS.items():
        before = _source(body)
        after = rewrite(before, unsafe=True, select=("TRT712",))
        assert after != before and "math." not in after and "int(" not in after, after
        built[name] = (import_source(before, folder)["M"], import_source(after, folder)["M"])
    return built


@st.composite
def tensors(draw) -> torch.Tensor:
    shape = draw(st.lists(st.integers(0, 9), min_size=2, max_size=3))
    dtype = draw(st.sampled_from([torch.float32, torch.float16, torch.int64]))
    x = torch.randn(shape).to(dtype) if dtype.is_floating_point else torch.randint(-5, 5, shape)
    if draw(st.booleans()) and x.dim() >= 2:
        x = x.transpose(0, 1)  # non-contiguous
    if dtype is torch.float32 and draw(st.booleans()):
        x = x.requires_grad_(True)
    return x


@pytest.mark.parametrize("name", list(PROGRAMS))
@SETTINGS
@given(x=tensors())
def test_eager_contract(modules, name: str, x: torch.Tensor) -> None:
    before, after = modules[name]
    assert_same_run(run_once(before(), [x]), run_once(after(), [x]), context=name)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_toolchains(modules, name: str, tmp_path) -> None:
    before, after = modules[name]
    for shape in [(4, 9), (2, 8)]:
        x = torch.randn(shape)
        old = toolchain_outcomes(before, [x], tmp_path)
        new = toolchain_outcomes(after, [x], tmp_path)
        for chain, result in old.items():
            if isinstance(result, Exception):
                continue
            assert not isinstance(new[chain], Exception), f"{name}: {chain} broke: {new[chain]!r}"
            assert_same_run(run_once(lambda t: result, [x]), run_once(lambda t: new[chain], [x]),
                            context=f"{name} under {chain}")


TRIP_COUNT = '''
import math
import torch


def pyramid(image: torch.Tensor) -> torch.Tensor:
    levels = math.log2(image.shape[2])
    out = image
    for i in range(int(levels)):
        out = out + torch.roll(out, 1, 2)
    return out


def scaled(image: torch.Tensor) -> torch.Tensor:
    n = math.log2(image.shape[2])
    return image * n
'''


def test_a_number_that_bounds_a_loop_says_why_no_arithmetic_helps() -> None:
    """TRT712 without a fix, where the number is a `range` bound below it (kornia's distance transform:
    `n_iters = math.ceil(max(h, w) / k_half)`, then `for i in range(n_iters):`): the report names the
    loop's line and the step by hand, not "integer arithmetic on the size"; elsewhere it is unchanged."""
    found = check_source(TRIP_COUNT.encode(), "m.py", Options(select=("TRT712",)))
    by_line = {f.line: f for f in found}
    assert sorted(by_line) == [7, 15] and {f.fix for f in found} == {Safety.NONE}
    loop = by_line[7].message
    assert "the trip count of the loop `for ... in range(int(levels))`" in loop
    assert "a fixed number of times that covers the largest size you deploy" in loop
    assert "torch.jit.script" in loop and "integer arithmetic" not in loop
    assert "integer arithmetic on the size" in by_line[15].message and "trip count" not in by_line[15].message
    # What the note says: the traced export unrolls the loop for the example's size, so a larger
    # input gets the example's rounds (3 at height 8), not its own (5 at height 32).
    pyramid = load(TRIP_COUNT, "pyramid")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(pyramid, (torch.rand(1, 1, 8, 4),))
    x = torch.rand(1, 1, 32, 4)
    assert torch.equal(traced(torch.ones(1, 1, 8, 4)), pyramid(torch.ones(1, 1, 8, 4)))
    assert not torch.equal(traced(x), pyramid(x))


#: transformers' BiT (`DynamicPad2d`): TensorFlow's "SAME" padding computed by a closure that `__init__`
#: defines and stores on the object, called from forward as `self.compute_padding(...)`.
STORED_CLOSURE = '''\
import math

import torch
import torch.nn.functional as F
from torch import nn


class DynamicPad2d(nn.Module):
    def __init__(self, kernel_size, stride, dilation):
        super().__init__()
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation

        def compute_padding(x, kernel_size, stride, dilation):
            return max((math.ceil(x / stride) - 1) * stride + (kernel_size - 1) * dilation + 1 - x, 0)

        def only_at_build(n):
            return math.ceil(n / 2)

        self.compute_padding = compute_padding
        self.half = only_at_build(kernel_size)

    def forward(self, input):
        input_height, input_width = input.size()[-2:]
        padding_height = self.compute_padding(input_height, self.kernel_size, self.stride, self.dilation)
        padding_width = self.compute_padding(input_width, self.kernel_size, self.stride, self.dilation)
        if padding_height > 0 or padding_width > 0:
            input = F.pad(input, [padding_width // 2, padding_width - padding_width // 2,
                                  padding_height // 2, padding_height - padding_height // 2])
        return input


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = DynamicPad2d(3, 2, 1)
        self.conv = nn.Conv2d(3, 4, 3, stride=2)

    def forward(self, x):
        return self.conv(self.pad(x))


def build():
    return Net()


def inputs(generator):
    return (torch.rand(1, 3, 16, 16, generator=generator),)
'''


def test_a_closure_init_stores_on_the_object_is_run_time_code() -> None:
    """The closure runs where forward calls `self.compute_padding(...)`: its `math.ceil` of a size handed
    down is found where the export warned (facts); the closure only `__init__` calls is left alone."""
    facts = Facts(runs=1, lines={str(Path("snippet.py").resolve()): set(range(1, 60))})
    facts.note_traced([("snippet.py", line, "Converting a tensor to a Python float might cause the trace to be "
                        "incorrect.") for line in (14, 17)])
    found = check_source(STORED_CLOSURE.encode(), "snippet.py", Options(select=("TRT712",), facts=facts, scope="all",
                                                                         unsafe=True))
    assert sorted({f.line for f in found}) == [14], [(f.line, f.message) for f in found]
    fixed = fix_source(STORED_CLOSURE.encode(), "snippet.py",
                       Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)).source.decode()
    assert "_trt_size_ceil(x / stride)" in fixed and "return math.ceil(n / 2)" in fixed


def test_migrate_fixes_the_padding_a_stored_closure_computes(tmp_path: Path) -> None:
    from support import migrate_json

    model = tmp_path / "bit_pad.py"
    model.write_text(STORED_CLOSURE)
    report = migrate_json(model, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["before"]["faithful"] is False
    assert {a["rule"] for a in report["applied"]} == {"TRT712", "TRT717"}, report["applied"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True
    assert report["exit_code"] == 0, report["remaining"]


#: TensorFlow's "SAME" padding with the rounding inside the `max` (old timm's `get_same_padding`, BiT).
SAME_PAD = HEADER + '''class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.k, self.s = 2, 3

    def forward(self, x):
        h = x.shape[2]
        pad = max((math.ceil(h / self.s) - 1) * self.s + self.k - h, 0)
        return torch.nn.functional.pad(x, (0, 0, 0, pad))
'''


def test_a_rounding_inside_min_or_max_is_rewritten_with_it() -> None:
    after = rewrite(SAME_PAD, select=("TRT712",), unsafe=True)
    assert "pad = _trt_size_max((_trt_size_ceil(h / self.s) - 1) * self.s + self.k - h, 0)" in after
    assert rules_found(SAME_PAD, select=("TRT712",)) == ["TRT712"]  # one finding: the ceil goes with the max
    before, rewritten = load(SAME_PAD, "M")(), load(after, "M")()
    for h in (0, 1, 2, 5, 9, 10):  # a kernel of 2, stride 3: a row where h % 3 == 1, none elsewhere
        x = torch.randn(1, 2, h, 3)
        assert torch.equal(before(x), rewritten(x))
    session = export_session(rewritten, (torch.randn(1, 2, 9, 3),), ["x"], {"x": {2: "h"}})
    original = export_session(before, (torch.randn(1, 2, 9, 3),), ["x"], {"x": {2: "h"}})
    for h in (9, 10, 11, 13):
        assert ort_matches(session, before, torch.randn(1, 2, h, 3))
    assert not ort_matches(original, before, torch.randn(1, 2, 10, 3))  # the trace kept `max` choosing 0


#: julius 0.2.8 (adefossez/julius on PyPI): julius/fftconv.py:116, the block of `fft_conv1d`,
#: `min(int(kernel_size * block_ratio), length)`, and julius/core.py:114, the frame count of its `unfold`,
#: `math.ceil((max(length, kernel_size) - kernel_size) / stride) + 1`: an `int` and a `max` of sizes inside
#: the number. Here the count's step is the block less the kernel, a size too (julius's `fold_stride`).
BLOCKS = HEADER + '''class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.ratio = 2.5

    def forward(self, x, w):
        length = x.shape[-1]
        k = w.shape[-1]
        block = min(int(k * self.ratio), length)
        step = block - k + 1
        count = math.ceil((max(length, k) - k) / step) + 1
        return x.new_zeros(count, block) + x.sum()
'''


def test_an_int_and_a_max_inside_the_number_are_rewritten_with_it() -> None:
    after = rewrite(BLOCKS, select=("TRT712",), unsafe=True)
    assert "block = _trt_size_min(_trt_size_int(k * self.ratio), length)" in after
    assert "count = _trt_size_ceil((_trt_size_max(length, k) - k) / step) + 1" in after
    assert rules_found(BLOCKS, select=("TRT712",)) == ["TRT712", "TRT712"]  # one finding a line
    before, rewritten = load(BLOCKS, "M")(), load(after, "M")()
    w = torch.randn(1, 1, 4)
    for length in (4, 5, 9, 10, 11, 23):  # the block is the length up to 10, then 10; one window to many
        x = torch.randn(1, 1, length) - 0.5
        assert torch.equal(before(x, w), rewritten(x, w))
    dynamic = {"x": {2: "length"}}
    session = export_session(rewritten, (torch.randn(1, 1, 8), w), ["x", "w"], dynamic)
    original = export_session(before, (torch.randn(1, 1, 8), w), ["x", "w"], dynamic)
    for length in (8, 5, 12, 31):
        assert ort_matches(session, before, torch.randn(1, 1, length), w)
    assert not ort_matches(original, before, torch.randn(1, 1, 31), w)  # the trace kept the block and the count


def test_an_array_of_the_shape_is_named_without_a_fix() -> None:
    code = HEADER + forward("image_shape = x.shape[2:]\nimage_shape = np.array(image_shape)\nreturn image_shape // 8")
    assert rules_found(code, select=("TRT711",)) == ["TRT711"]
    assert rewrite(code, select=("TRT711",), unsafe=True) == code


# --- round() and min()/max() of a slice of the sizes (piq's automatic downsampling) ------------


def _outcome(function, value):
    """What ``function(value)`` gives: its result with its type, or the type of what it raises."""
    try:
        result = function(value)
    except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
        return type(exc)
    return result, type(result)


def test_round_helper_is_round_outside_a_trace() -> None:
    """Halves to even, negatives, zeros, huge and odd values: the same result, type and exception."""
    values = [0, 7, -7, 2**62, True, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 383 / 256, 640 / 256, 255 / 256,
              1e20, -1e-300, 2**53 + 1.0, np.float64(2.5), np.float32(-1.5), np.int64(5),
              float("inf"), float("-inf"), float("nan"), "3", None, torch.tensor(2.5), torch.tensor([1.0])]
    for value in values:
        assert _outcome(_trt_size_round, value) == _outcome(round, value), value
    scripted = torch.jit.script(_trt_size_round)
    # TorchScript's own round: a float, halves to even; the scripted helper is the same.
    for value in (2.5, 3.5, -0.5, 1.4999, 7):
        assert scripted(value) == torch.jit.script(_scripted_round)(float(value)) == float(round(value)), value


def _scripted_round(value: float) -> float:
    return round(value)


def test_extreme_of_sizes_helpers_are_min_and_max_outside_a_trace() -> None:
    x = torch.zeros(2, 3, 5, 4)
    for sizes in (x.shape[-2:], x.shape[2:], x.size()[1:], x.shape, torch.zeros(7).shape[-2:], [3, 1, 2]):
        assert _trt_size_min_of(sizes) == min(sizes) and _trt_size_max_of(sizes) == max(sizes), sizes
    for helper, builtin in ((_trt_size_min_of, min), (_trt_size_max_of, max)):
        assert _outcome(helper, torch.zeros(()).shape[-2:]) == _outcome(builtin, torch.zeros(()).shape[-2:])
        assert _outcome(helper, None) == _outcome(builtin, None)
        scripted = torch.jit.script(helper)
        assert scripted([4, 9, 2]) == builtin([4, 9, 2])


PIQ_DOWNSAMPLE = '''import torch
import torch.nn.functional as F
from torch import nn


# The form of piq 0.8.0 (photosynthesis-team/piq) piq/ssim.py:59, written again: the factor of an
# average pooling that brings the smaller side near 256.
class Downsample(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = max(1, round(min(x.size()[-2:]) / 256))
        return x[..., :f, :f] * 2 + f
'''

#: Sizes around the factor's steps (a half, 384 / 256 = 1.5, rounds to even: 2; 640 / 256 = 2.5 to 2).
PIQ_SIDES = (0, 1, 255, 256, 383, 384, 640, 896, 1152)


def test_piq_downsampling_factor_is_rewritten_and_follows_the_size(tmp_path) -> None:
    """piq's `max(1, round(min(x.size()[-2:]) / 256))`: the original does not export at all (a traced size
    reaches `round`, which a Tensor does not define); the rewritten expression, one finding, is the same in
    eager mode at every size (bit for bit, zero included) and its graph, traced at one size, follows the
    factor at the others."""
    code = PIQ_DOWNSAMPLE
    findings = [f.rule for f in check_source(code.encode(), "piq.py", Options(select=("TRT712",)))]
    assert findings == ["TRT712"]
    after = rewrite(code, unsafe=True, select=("TRT712",))
    assert "f = _trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))" in after
    before_model = import_source(code, tmp_path)["Downsample"]()
    after_model = import_source(after, tmp_path)["Downsample"]()
    with pytest.raises(TypeError, match="__round__"):
        export_session(before_model, (torch.rand(1, 2, 300, 520),), ["x"], {"x": {2: "h", 3: "w"}})
    session = export_session(after_model, (torch.rand(1, 2, 300, 520),), ["x"], {"x": {2: "h", 3: "w"}})
    for h, w in itertools.product(PIQ_SIDES, (0, 1, 384, 640, 1200)):
        x = torch.randn(1, 2, h, w, generator=torch.Generator().manual_seed(h * 7 + w))
        want, got = before_model(x), after_model(x)
        assert_same(want, got)
        factor = max(1, round(min(h, w) / 256))
        assert want.shape[-1] == min(factor, w)
        if h and w:  # ONNX Runtime refuses empty inputs to this graph's slice; eager mode is checked above
            [onnx_out] = session.run(None, {"x": x.numpy()})
            assert onnx_out.shape == tuple(want.shape) and np.array_equal(onnx_out, want.numpy()), (h, w)


def test_round_and_extremes_keep_the_traced_size(tmp_path) -> None:
    """`round` alone (`round(w * 0.5)`) and `max` of the sizes' slice alone, traced on one size, follow the
    others; `round` halves to even in the graph as in Python (width 3: 1.5 -> 2, width 5: 2.5 -> 2)."""

    class Crop(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x[:, : _trt_size_round(x.shape[1] * 0.5)], x[:, : _trt_size_max_of(x.shape[-1:]) // 2]

    session = export_session(Crop(), (torch.randn(2, 8),), ["x"], {"x": {1: "width"}})
    for width in (1, 2, 3, 4, 5, 7, 9, 13):
        x = torch.arange(2.0 * width).reshape(2, width)
        got = session.run(None, {"x": x.numpy()})
        want = Crop()(x)
        assert want[0].shape[1] == round(width * 0.5)
        assert all(np.array_equal(g, w.numpy()) for g, w in zip(got, want)), width


def test_scripted_round_is_torchscripts_float_and_the_int_helpers_refuse_it() -> None:
    """What the rule's doc says of `torch.jit.script`: `round` alone scripts to TorchScript's own float round;
    `max(1, round(...))` rewritten does not compile scripted (the int helper refuses the float), and piq's own
    function, which pools by that float, did not compile either."""

    def alone(x: torch.Tensor):
        return _trt_size_round(x.shape[1] * 0.5)

    def alone_original(x: torch.Tensor):
        return round(x.shape[1] * 0.5)

    for width in (0, 1, 3, 5, 8):
        x = torch.zeros(1, width)
        assert torch.jit.script(alone)(x) == torch.jit.script(alone_original)(x) == float(round(width * 0.5))

    def nested(x: torch.Tensor):
        return _trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))

    def piq_original(x: torch.Tensor, downsample: bool = True):
        f = max(1, round(min(x.size()[-2:]) / 256))
        if (f > 1) and downsample:
            x = F.avg_pool2d(x, kernel_size=f)
        return x

    for function in (nested, piq_original):
        with pytest.raises(RuntimeError):
            torch.jit.script(function)


# --- TRT712: `isinstance(s, int)` of a size ----------------------------------------------------------
# Under the TorchScript exporter a size is a 0-d tensor, so a check that it is an int fails and the
# export stops at the check's `raise`, where eager mode passes it.

# CSRavasio/oflibpytorch@bf650ce01b00867220311bd48e8a55e70b36e7de src/oflibpytorch/utils.py:126
# (`get_valid_shape`): every size of a tuple a caller builds from `flow.shape` must be a positive int.
DIMS_CHECK = """\
import torch
from torch import nn


def checked_dims(dims):
    if any((d <= 0 or not isinstance(d, int)) for d in dims):
        raise ValueError("dims must be positive integers")
    return tuple(dims)


class M(nn.Module):
    def forward(self, x):
        n, h, w = checked_dims((x.shape[0],) + x.shape[2:])
        return x.mean(1).reshape(n, h * w) * 2
"""
DIMS_CHECK_LINE = 6

# pyro-ppl/pyro@ff6ae1c9572591791aae8842bcd702fcf0b46fd6 pyro/ops/tensor_utils.py:200 (`next_fast_len`,
# called by `convolve` with `m + n - 1` of two `.size(-1)`): an assert that the length is a positive int.
EVEN_LENGTH = """\
import torch
import torch.nn.functional as F
from torch import nn


def even_length(size):
    assert isinstance(size, int) and size > 0
    return size + size % 2


class M(nn.Module):
    def forward(self, x):
        n = even_length(x.shape[-1] + 1)
        return F.pad(x, (0, n - x.shape[-1]))
"""
EVEN_LENGTH_LINE = 7

# A size read straight from a shape needs no facts.
SIDE_CHECK = HEADER + forward("h = x.shape[2]\nif not isinstance(h, int):\n    raise TypeError(h)\nreturn x[:, :, : h // 2]")


def _int_test_facts(path: str, line: int) -> Facts:
    resolved = str(Path(path).resolve())
    facts = Facts(runs=3, lines={resolved: set(range(1, 20))})
    facts.note_traced([(path, line, "Converting a tensor to a Python boolean might cause the trace to be incorrect.")])
    return facts


def _int_test_fixed(code: str, path: str, facts: Facts | None) -> str:
    options = Options(select=("TRT712",), unsafe=True, facts=facts, **({"scope": "all"} if facts else {}))
    return fix_source(code.encode(), path, options).source.decode()


def test_isinstance_of_a_shape_size_becomes_the_helper() -> None:
    after = rewrite(SIDE_CHECK, unsafe=True, select=("TRT712",))
    assert "        if not _trt_size_is_int(h):\n" in after, after
    assert "def _trt_size_is_int(" in after and "def _trt_size_stands_for_int(" in after


@pytest.mark.parametrize("code,line,text", [
    (DIMS_CHECK, DIMS_CHECK_LINE, "    if any((d <= 0 or not _trt_size_is_int(d)) for d in dims):\n"),
    (EVEN_LENGTH, EVEN_LENGTH_LINE, "    assert _trt_size_is_int(size) and size > 0\n"),
])
def test_isinstance_of_a_handed_down_size_needs_the_traced_warning(code: str, line: int, text: str) -> None:
    """The checked value is a parameter: only the export's warning at the line (a traced size met Python)
    with no tensor value read there says it is a size."""
    assert _int_test_fixed(code, "int_check.py", None) == code
    assert _int_test_fixed(code, "int_check.py", _int_test_facts("int_check.py", line + 1)) == code
    after = _int_test_fixed(code, "int_check.py", _int_test_facts("int_check.py", line))
    assert text in after, after


@pytest.mark.parametrize("code", [
    forward("if isinstance(x, int):\n    return x\nreturn x + 1"),  # a tensor, never a size
    forward("if isinstance(self.k, int):\n    return x[:, : self.k]\nreturn x"),  # configuration
    forward("h = x.shape[2]\nif isinstance(h, float):\n    return x\nreturn x * h"),  # another type
    "int = float\n" + forward("h = x.shape[2]\nif isinstance(h, int):\n    return x\nreturn x * h"),
])
def test_isinstance_look_alikes_are_left(code: str) -> None:
    assert "_trt_size_is_int" not in rewrite(HEADER + code, unsafe=True, select=("TRT712",))


def test_the_int_test_helper_is_isinstance_outside_a_trace() -> None:
    values = [0, 7, -3, True, False, 2.0, float("nan"), np.int64(3), torch.tensor(3), torch.tensor(2.5),
              torch.tensor(True), torch.tensor([1, 2]), torch.empty(0, dtype=torch.long), "3", None]
    for value in values:
        assert _trt_size_is_int(value) is isinstance(value, int), value
    scripted = torch.jit.script(_trt_size_is_int)
    assert scripted(torch.tensor(3)) is False


def test_the_int_test_helper_takes_only_integer_0d_tensors_while_tracing() -> None:
    seen: list[bool] = []

    def probe(x: torch.Tensor) -> torch.Tensor:
        seen.extend(_trt_size_is_int(v) for v in (x.shape[0], x.shape[1] * 2, x.sum(), (x > 0).all(),
                                                   x[0].long(), x.long(), 3))
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(probe, (torch.ones(2, 3),), check_trace=False)
    assert seen == [True, True, False, False, False, False, True]


@pytest.mark.parametrize("code,line,sizes", [
    (DIMS_CHECK, DIMS_CHECK_LINE, [(1, 3, 4, 5), (2, 3, 7, 1), (3, 3, 1, 9)]),
    (EVEN_LENGTH, EVEN_LENGTH_LINE, [(1, 2, 5), (2, 2, 6), (1, 2, 1), (3, 2, 10)]),
])
def test_the_int_test_rewrite_exports_and_follows_the_sizes(code: str, line: int, sizes: list, tmp_path) -> None:
    """Eager mode is unchanged (values, and the check's exception on an empty axis); the original stops the
    export at its check, the rewritten one exports a graph that follows every size."""
    after = _int_test_fixed(code, "int_check.py", _int_test_facts("int_check.py", line))
    before_model, after_model = load(code, "M")().eval(), load(after, "M")().eval()
    for shape in sizes:
        x = torch.randn(*shape)
        x[0].view(-1)[0] = float("-inf") if code is DIMS_CHECK else 0.0
        assert_same(before_model(x), after_model(x))
    empty = torch.zeros(0, *sizes[0][1:]) if code is DIMS_CHECK else torch.zeros(*sizes[0][:-1], 0)
    outcomes = []
    for model in (before_model, after_model):
        try:
            outcomes.append(("ok", model(empty).shape))
        except (ValueError, AssertionError) as error:
            outcomes.append((type(error).__name__, None))
    assert outcomes[0] == outcomes[1]
    rank = len(sizes[0])
    axes = {"x": {i: f"d{i}" for i in range(rank) if i != 1}}
    with pytest.raises((ValueError, AssertionError)):
        export_session(before_model, (torch.randn(*sizes[0]),), ["x"], axes)
    session = export_session(after_model, (torch.randn(*sizes[0]),), ["x"], axes)
    for shape in sizes[1:]:
        x = torch.randn(*shape)
        [out] = session.run(None, {"x": x.numpy()})
        np.testing.assert_allclose(out, before_model(x).detach().numpy(), rtol=1e-6, atol=1e-6)


#: The form of facexlib's `PriorBox` (xinntao/facexlib@260620ae93990a300f4b16448df9bb459f1caba9
#: facexlib/detection/retinaface_utils.py:10-16, built by `RetinaFace.forward` at retinaface.py:159), written
#: again: a plain object built anew by every forward call, whose `__init__` computes the feature-map sizes.
BUILT_IN_FORWARD = '''\
from math import ceil

import torch


class Priors:
    def __init__(self, image_size, steps=(8, 16)):
        self.image_size = image_size
        self.maps = [[ceil(image_size[0] / s), ceil(image_size[1] / s)] for s in steps]

    def count(self):
        return sum(h * w for h, w in self.maps)


class Head(torch.nn.Module):
    def forward(self, x):
        priors = Priors(x.shape[2:])
        return x.new_zeros(priors.count(), 2) + x.sum()
'''

#: The line of `Priors.__init__` that computes the sizes (where the export warns).
PRIORS_LINE = 9


def _warned(*lines: int) -> Facts:
    """Facts of one observed run of ``snippet.py`` whose export warned on ``lines``."""
    facts = Facts(runs=1, lines={str(Path("snippet.py").resolve()): set(range(1, 40))})
    facts.note_traced([("snippet.py", line, "Converting a tensor to a Python float might cause the trace to be "
                        "incorrect.") for line in lines])
    return facts


@pytest.mark.parametrize("facts, expected", [(None, []), (_warned(), []), (_warned(PRIORS_LINE), [9, 9])])
def test_a_constructor_the_export_warned_in_is_run_time_code(facts: Facts | None, expected: list[int]) -> None:
    """facexlib's `PriorBox(cfg, image_size=(h, w))` is built by every forward call, and its `__init__`
    computes the feature-map sizes with `ceil(image_size[0] / step)`: where the observed export warned
    inside it, the constructor ran in a traced forward and TRT712 takes it; without facts (`apply`), or
    where the export did not warn there, an `__init__` runs at construction only and is left alone."""
    found = check_source(BUILT_IN_FORWARD.encode(), "snippet.py", Options(select=("TRT712",), facts=facts))
    assert [f.line for f in found] == expected


def test_the_sizes_a_constructor_computes_in_forward_follow_the_input(tmp_path: Path) -> None:
    """The rewrite of the constructor's `ceil`s is the same program in eager mode at every size (zero and
    one included, NaN and inf in the values), and its graph, traced at one size, follows the others, where
    the original's keeps the traced size's count."""
    after = fix_source(BUILT_IN_FORWARD.encode(), "snippet.py",
                       Options(select=("TRT712",), facts=_warned(PRIORS_LINE), unsafe=True)).source.decode()
    assert "self.maps = [[_trt_size_ceil(image_size[0] / s), _trt_size_ceil(image_size[1] / s)] for s in steps]" \
        in after
    before_model, after_model = import_source(BUILT_IN_FORWARD, tmp_path)["Head"](), import_source(after, tmp_path)["Head"]()
    args, axes = (torch.rand(1, 3, 40, 56),), {"x": {2: "h", 3: "w"}}
    baked, session = export_session(before_model, args, ["x"], axes), export_session(after_model, args, ["x"], axes)
    for h, w in itertools.product((0, 1, 7, 8, 9, 40, 65), (0, 1, 16, 17, 56)):
        x = torch.randn(1, 3, h, w, generator=torch.Generator().manual_seed(h * 101 + w))
        if h and w > 1:
            x[0, 0, 0, :2] = torch.tensor([float("nan") if h % 2 else float("inf"), -0.0])
        want = before_model(x)
        assert_same(want, after_model(x))
        assert want.shape[0] == sum(math.ceil(h / s) * math.ceil(w / s) for s in (8, 16))
        if h and w:  # ONNX Runtime is not asked about empty inputs; eager mode is checked above
            [got] = session.run(None, {"x": x.numpy()})
            assert got.shape == tuple(want.shape)
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)  # the graph sums in its own order
            if (h, w) != (40, 56):
                [stale] = baked.run(None, {"x": x.numpy()})
                assert stale.shape != tuple(want.shape)


#: A constructor that defines the closure forward runs and stores it on the object (transformers' BiT,
#: huggingface/transformers@dab13fc8de29c2fc401eea286ab4e94bf786835f src/transformers/models/bit/modeling_bit.py,
#: `DynamicPad2d.__init__`'s `compute_padding`), written again with a size of its own computed at construction.
CLOSURE_AND_OWN = '''\
import math

import torch


class Pad(torch.nn.Module):
    def __init__(self, stride, width):
        super().__init__()

        def amount(x):
            return math.ceil(x / stride) * stride - x

        def halved(n):
            return math.ceil(n / 2)

        self.amount = amount
        self.half = halved(width)
        self.quarter = math.ceil(width / 4)

    def forward(self, x):
        return torch.nn.functional.pad(x, [0, self.amount(x.shape[-1])])
'''


@pytest.mark.parametrize("lines, expected", [((11,), [11]), ((11, 14), [11]), ((11, 14, 18), [11, 14, 18]),
                                             ((18,), [18])])
def test_only_a_constructor_s_own_statements_make_it_run_time_code(lines: tuple[int, ...], expected: list[int]) -> None:
    """A warning in a function `__init__` defines is that function's (the closure stored on the object runs
    where forward calls `self.amount(...)`): `__init__` and the helper only it calls stay construction-time
    code; a warning on one of `__init__`'s own statements makes it run-time code, with what it calls."""
    found = check_source(CLOSURE_AND_OWN.encode(), "snippet.py", Options(select=("TRT712",), facts=_warned(*lines)))
    assert sorted(f.line for f in found) == expected, [(f.line, f.message) for f in found]


# A prior helper that builds its cells in NumPy and returns them; the caller makes the tensor. Our own
# re-writing of online-face-detection 0.3.4's RetinaFace priors (online_face/models/retinaface/box.py:21-46,
# as installed in zoo 29): `_priors_np(h, w)` under `functools.lru_cache`, `torch.from_numpy` in `prior_box`.
RETURNED_PRIORS = GRID_HEADER + '''\
import functools


{decorator}def cells(output):
    rows = output.size(2)
    ys = (np.arange(rows) + 0.5) / rows
    return np.repeat(ys.reshape(-1, 1), 2, axis=1).astype("float32")


class Priors(nn.Module):
    def forward(self, x):
        return x + torch.from_numpy(cells(x))
'''


@pytest.mark.parametrize("decorator", ["", "@functools.lru_cache(maxsize=8)\n"])
def test_a_numpy_result_returned_to_the_caller_is_named_as_the_reason(decorator: str) -> None:
    code = RETURNED_PRIORS.format(decorator=decorator)
    line = code.splitlines().index("    ys = (np.arange(rows) + 0.5) / rows") + 1
    found = findings(code, _facts("snippet.py", line))
    assert found and all(f.edit is None for f in found), found
    message = found[0].message
    assert ("`cells` returns the NumPy array (`return np.repeat(ys.reshape(-1, 1), 2, axis=1).astyp...`), "
            "so any tensor is made from it by a caller" in message), message
    assert "Build the whole result with torch in `cells`" in message
    assert ("cache keeps working in eager code" in message) == bool(decorator)
    assert fixed(code, _facts("snippet.py", line)) == code


def test_numpy_repeat_is_pointed_at_repeat_interleave_not_repeat() -> None:
    # torch's `Tensor.repeat` tiles; NumPy's repeat repeats each element: the guidance names the torch form.
    code = module("w = x.shape[1]\nreturn x + torch.tensor(np.repeat(np.ones(3), w) ** 2)")
    [finding] = findings(code)
    assert "use torch.repeat_interleave(...)" in finding.message, finding.message
    a = np.arange(3)
    assert np.array_equal(np.repeat(a, 2), torch.arange(3).repeat_interleave(2).numpy())
    assert not np.array_equal(np.repeat(a, 2), torch.arange(3).repeat(2).numpy())


# --- TRT711 on a NumPy helper that returns its array to a caller making a tensor of it -------------
# The helper (a prior or anchor generator) is translated into torch statement by statement, its callers'
# `torch.from_numpy` dropped; the tests show the rewrite's text and run the helper before and after on
# sizes the strides do not divide, size 1, and sizes of the real model.

#: Sizes (height, width): not divisible by the strides, size 1, the zoo model's example and a larger one.
HELPER_SIZES = [(1, 1), (1, 7), (7, 5), (8, 8), (33, 17), (128, 96), (257, 193)]


def _helper_facts(*lines: int) -> Facts:
    facts = Facts(runs=3, lines={str(Path("snippet.py").resolve()): set(range(1, 80))})
    facts.note_traced([("snippet.py", line, "torch.from_numpy results are registered as constants in the trace.")
                       for line in lines])
    return facts


def _helper_options(facts: Facts | None, select: tuple[str, ...] = ("TRT711",)) -> Options:
    return Options(select=select, unsafe=True, facts=facts, **({"scope": "all"} if facts else {}))


def helper_fixed(code: str, facts: Facts | None = None, select: tuple[str, ...] = ("TRT711",)) -> str:
    return fix_source(code.encode(), "snippet.py", _helper_options(facts, select)).source.decode()


def helper_findings(code: str, facts: Facts | None = None) -> list:
    return check_source(code.encode(), "snippet.py", _helper_options(facts))


def _line_of(code: str, text: str) -> int:
    return next(i for i, line in enumerate(code.splitlines(), 1) if text in line)


# Our own re-writing of online-face-detection 0.3.4's RetinaFace priors (PyPI online-face-detection==0.3.4,
# online_face/models/retinaface/box.py:21-46, as installed in zoo 29): per stride, cell centres from
# `np.arange`/`np.meshgrid`, anchor sizes from a list comprehension over a constant row, `np.repeat`ed to
# one row per cell, appended to a list, concatenated and cast; cached per size; the caller converts.
HELPER_PRIORS = '''\
"""Priors."""
import math
from functools import lru_cache

import numpy as np

_STRIDES = (8, 16, 32)
_ANCHORS = ((16, 32), (64, 128), (256, 512))


@lru_cache(maxsize=8)
def _cells(h: int, w: int) -> np.ndarray:
    out = []
    for level, stride in enumerate(_STRIDES):
        rows, cols = math.ceil(h / stride), math.ceil(w / stride)
        sizes = _ANCHORS[level]
        ys = (np.arange(rows) + 0.5) * stride / h
        xs = (np.arange(cols) + 0.5) * stride / w
        gy, gx = np.meshgrid(ys, xs, indexing="ij")
        gx = gx.reshape(-1, 1)
        gy = gy.reshape(-1, 1)
        n = len(sizes)
        cx = np.repeat(gx, n, axis=1)
        cy = np.repeat(gy, n, axis=1)
        sx = np.repeat(np.array([s / w for s in sizes]).reshape(1, n), gx.shape[0], axis=0)
        sy = np.repeat(np.array([s / h for s in sizes]).reshape(1, n), gy.shape[0], axis=0)
        out.append(np.stack([cx, cy, sx, sy], axis=2).reshape(-1, 4))
    return np.concatenate(out, axis=0).astype("float32")


def priors(size, device):
    import torch

    arr = _cells(int(size[0]), int(size[1]))
    return torch.from_numpy(arr).to(device)
'''

#: The lines the rewrite changes (the others, the loop, the scalars and the cache, stay as they were).
HELPER_PRIORS_REWRITTEN = [
    "        ys = ((torch.arange(rows).to(torch.float64) + 0.5) * stride) / h",
    "        xs = ((torch.arange(cols).to(torch.float64) + 0.5) * stride) / w",
    '        gy, gx = torch.meshgrid(ys, xs, indexing="ij")',
    "        cx = gx.repeat_interleave(n, 1)",
    "        cy = gy.repeat_interleave(n, 1)",
    "        sx = (torch.tensor(sizes, dtype=torch.int64).to(torch.float64) / w).reshape(1, n)"
    ".repeat_interleave(gx.shape[0], 0)",
    "        sy = (torch.tensor(sizes, dtype=torch.int64).to(torch.float64) / h).reshape(1, n)"
    ".repeat_interleave(gy.shape[0], 0)",
    "        out.append(torch.stack((cx, cy, sx, sy), 2).reshape(-1, 4))",
    "    return torch.cat(out, 0).to(torch.float32)",
    "    return arr.to(device)",
]


def test_the_helper_is_rewritten_with_its_callers_conversion() -> None:
    line = _line_of(HELPER_PRIORS, "torch.from_numpy(arr)")
    [finding] = helper_findings(HELPER_PRIORS, _helper_facts(line))
    # From the helper's first rewritten line to the caller's: a problem located in either is this fix's.
    assert (finding.line, finding.end_line) == (_line_of(HELPER_PRIORS, "ys = "), line), finding
    assert finding.fix.value == "unsafe"
    assert "`_cells` builds its array from sizes in NumPy and returns it" in finding.message, finding.message
    assert "cache is kept" in finding.message
    new = helper_fixed(HELPER_PRIORS, _helper_facts(line))
    old_lines, new_lines = HELPER_PRIORS.splitlines(), new.splitlines()
    changed = [text for text in new_lines if text not in old_lines]
    assert changed == ["import torch", *HELPER_PRIORS_REWRITTEN], changed
    assert "@lru_cache(maxsize=8)" in new_lines and len(new_lines) == len(old_lines) + 1
    assert "\nimport torch\n" in new  # the module bound torch only inside `priors`


def test_the_rewritten_priors_are_the_original_bit_for_bit() -> None:
    line = _line_of(HELPER_PRIORS, "torch.from_numpy(arr)")
    before, after = load(HELPER_PRIORS, "priors"), load(helper_fixed(HELPER_PRIORS, _helper_facts(line)), "priors")
    for size in HELPER_SIZES:
        expected, got = before(size, "cpu"), after(size, "cpu")
        assert bits_equal(expected, got), size
        assert got.dtype == torch.float32 and got.is_contiguous()


def test_a_zero_size_is_assumed_away() -> None:
    # The assumption the rule states: `m / w` of Python numbers raises at w = 0, the tensor division does not.
    line = _line_of(HELPER_PRIORS, "torch.from_numpy(arr)")
    before, after = load(HELPER_PRIORS, "priors"), load(helper_fixed(HELPER_PRIORS, _helper_facts(line)), "priors")
    with pytest.raises(ZeroDivisionError):
        before((0, 5), "cpu")
    assert after((0, 5), "cpu").shape == (0, 4)


def test_the_cache_still_hands_every_caller_the_same_memory() -> None:
    # The NumPy array was cached and `torch.from_numpy` shares it: two calls alias; so do the tensors.
    line = _line_of(HELPER_PRIORS, "torch.from_numpy(arr)")
    for code in (HELPER_PRIORS, helper_fixed(HELPER_PRIORS, _helper_facts(line))):
        priors = load(code, "priors")
        first, second = priors((33, 17), "cpu"), priors((33, 17), "cpu")
        assert first.data_ptr() == second.data_ptr()
        assert priors((17, 33), "cpu").data_ptr() != first.data_ptr()


def test_with_trt712_the_priors_follow_the_size_in_the_exported_graph() -> None:
    # TRT712 keeps `int(size[0])` and `math.ceil(h / stride)` traced; with both, the graph is the eager
    # priors at every size (the cache misses while tracing: the sizes are tensors, hashed by identity).
    lines = [_line_of(HELPER_PRIORS, "torch.from_numpy(arr)"), _line_of(HELPER_PRIORS, "_cells(int(size[0])"),
             _line_of(HELPER_PRIORS, "math.ceil(h / stride)")]
    new = helper_fixed(HELPER_PRIORS, _helper_facts(*lines), select=("TRT711", "TRT712"))
    assert "rows, cols = _trt_size_ceil(h / stride), _trt_size_ceil(w / stride)" in new, new
    original, rewritten = load(HELPER_PRIORS, "priors"), load(new, "priors")

    class Model(torch.nn.Module):
        def __init__(self, priors) -> None:
            super().__init__()
            self.priors = priors

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.priors((x.shape[2], x.shape[3]), x.device) * x.mean()

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Model(rewritten), (torch.ones(1, 1, 128, 96),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {2: "h", 3: "w"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for size in HELPER_SIZES:
        x = torch.ones(1, 1, *size)
        [got] = session.run(None, {"x": x.numpy()})
        expected = Model(original)(x)
        assert got.shape == tuple(expected.shape), size
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-6, atol=1e-7)


# The smallest form: sizes passed by forward, no loop, no cache; the finding needs no recorded run.
HELPER_CENTERS = '''\
import numpy as np
import torch
from torch import nn


def _centers(h: int, w: int):
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    return np.stack([xs, ys], axis=-1).reshape(-1, 2) + 0.5


class Head(nn.Module):
    def forward(self, x):
        return torch.{wrapper}(_centers(x.shape[2], x.shape[3]){keywords})
'''


@pytest.mark.parametrize("wrapper, keywords, call", [
    ("from_numpy", "", "_centers(x.shape[2], x.shape[3])"),
    ("as_tensor", ", dtype=torch.float32", "_centers(x.shape[2], x.shape[3]).to(torch.float32)"),
    ("tensor", "", "_centers(x.shape[2], x.shape[3]).clone()"),
])
def test_each_conversion_is_made_the_tensors(wrapper: str, keywords: str, call: str) -> None:
    code = HELPER_CENTERS.format(wrapper=wrapper, keywords=keywords)
    [finding] = helper_findings(code)
    assert finding.fix is not None
    new = helper_fixed(code)
    assert ('    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")\n'
            "    return (torch.stack((xs, ys), -1).reshape(-1, 2).to(torch.float64) + 0.5)\n") in new, new
    assert f"        return {call}\n" in new, new
    before, after = load(code, "Head")(), load(new, "Head")()
    for size in [(0, 3), (1, 1), (2, 5), (9, 4)]:
        x = torch.zeros(1, 1, *size)
        expected, got = before(x), after(x)
        if expected.numel() == 0:  # an empty tensor's strides are each library's choice, never read
            assert (got.shape, got.dtype) == (expected.shape, expected.dtype), size
        else:
            assert bits_equal(expected, got), size


def _helper_unchanged(code: str) -> None:
    assert helper_fixed(code) == code
    assert all(f.fix is None for f in helper_findings(code))


def test_a_public_helper_is_not_rewritten() -> None:
    # Another module may import it and read the NumPy array.
    _helper_unchanged(HELPER_CENTERS.format(wrapper="from_numpy", keywords="").replace("_centers", "centers"))


def test_a_helper_whose_array_is_also_read_as_numpy_is_not_rewritten() -> None:
    code = HELPER_CENTERS.format(wrapper="from_numpy", keywords="") + (
        "\n\ndef count(h, w):\n    return _centers(h, w).size\n")
    _helper_unchanged(code)


@pytest.mark.parametrize("body", [
    # a name read before the loop binds it in this iteration: the previous iteration's array
    "    out = []\n    prev = np.zeros(2)\n    for s in _S:\n        out.append(prev + s)\n        prev = np.arange(h) * 1.0\n"
    "    return np.concatenate(out)\n",
    # arrays of two dtypes in one list
    "    out = []\n    for s in _S:\n        out.append(np.arange(h))\n        out.append(np.arange(w) * 0.5)\n"
    "    return np.concatenate(out)\n",
    # a while loop, a branch: not in the table
    "    out = []\n    k = 0\n    while k < h:\n        out.append(np.arange(w))\n        k = k + 1\n    return np.concatenate(out)\n",
    "    if h > 3:\n        return np.arange(h)\n    return np.arange(w)\n",
    # a helper that does not read its sizes
    "    return np.arange(4) * 0.5\n",
])
def test_what_is_not_in_the_table_stays(body: str) -> None:
    code = ("import numpy as np\nimport torch\nfrom torch import nn\n\n_S = (8, 16)\n\n\n"
            f"def _grid(h: int, w: int):\n{body}\n\nclass Head(nn.Module):\n    def forward(self, x):\n"
            "        return torch.from_numpy(_grid(x.shape[2], x.shape[3]))\n")
    _helper_unchanged(code)


def _helper_held(code: str, holds: str) -> Facts:
    """Facts of a run where every call of ``_centers`` passed ``holds`` (``int``, ``float``) for h and w."""
    path = str(Path("snippet.py").resolve())
    line = _line_of(code, "def _centers")
    events = [{"kind": "parameter", "path": path, "line": line, "column": 1, "end_line": line, "end_column": 1,
               "direct": True, "count": 3, "function": "_centers", "name": name, "holds": holds} for name in "hw"]
    return Facts.from_json({"version": 1, "runs": 3, "lines": {path: list(range(1, 20))}, "events": events,
                            "inputs": {}})


@pytest.mark.parametrize("holds, rewritten", [("int", True), ("float", False)])
def test_unannotated_sizes_are_ints_where_the_run_saw_only_ints(holds: str, rewritten: bool) -> None:
    # `np.arange(2.0)` is float64 and `np.arange(2)` int64: a parameter seen holding a float is not a size.
    code = HELPER_CENTERS.format(wrapper="from_numpy", keywords="").replace("(h: int, w: int)", "(h, w)")
    new = helper_fixed(code, _helper_held(code, holds))
    assert ("torch.meshgrid(torch.arange(h)" in new) == rewritten, new
    if rewritten:
        before, after = load(code, "_centers"), load(new, "_centers")
        for size in [(1, 1), (3, 2)]:
            assert bits_equal(torch.from_numpy(before(*size)), after(*size))


# A kernel whose size follows the image's, built in a Python loop over that size (reduced from
# pytorch_filters 0.1.1, pytorch_filters/main.py:59-75 and :221-235, `ex_difference_of_gaussians`:
# `size1 = 2 * int(3 * scaled_simga) + 1` passed to `variable_gaussian_blur(image, size=size1, ...)`,
# whose `for i in range(size)` fills the kernel); names and code are ours.
KERNEL_FROM_SIZE = '''
import math
import torch
import torch.nn.functional as F


def blur(image, size, sigma):
    kernel = torch.empty((size, size))
    half = int(math.floor(size / 2))
    for i in range(size):
        for j in range(size):
            kernel[i, j] = math.exp(-((i - half) ** 2 + (j - half) ** 2) / (2 * sigma ** 2))
    kernel = (kernel / kernel.sum())[None, None]
    return F.conv2d(image, kernel, padding=half)


def scaled_blur(image: torch.Tensor, sigma: float = 1.0) -> torch.Tensor:
    _, _, h, w = image.shape
    scaled = sigma * (h + w) / 2 / 16
    width = 2 * int(3 * scaled) + 1
    return blur(image, size=width, sigma=scaled)


def ring(image: torch.Tensor) -> torch.Tensor:
    n = int(image.shape[2] / 4)
    out = image
    for _ in range(3):
        out = torch.roll(out, n, 2) + out
    return out
'''


def test_a_number_that_sizes_a_kernel_built_in_a_loop_elsewhere_gets_no_fix() -> None:
    """TRT712 without a fix where the number is passed to a function of the file whose parameter bounds
    a `range` loop there (the kernel's size): kept traced, it meets `range` again, so the helper's fix
    changes nothing the trace keeps (`migrate` tried it three times on pytorch_filters' XDoG and took
    each back). The report names the loop and the function, and the step by hand for a kernel whose
    size follows the image's; a number no loop reads (`ring`'s roll, under a static `range(3)`) keeps
    its fix."""
    found = check_source(KERNEL_FROM_SIZE.encode(), "m.py", Options(select=("TRT712",)))
    by_line = {f.line: f for f in found}
    kernel = by_line[20]
    assert kernel.fix == Safety.NONE
    assert "the trip count of the loop `for ... in range(size)` in `blur`, the function it is passed to" in \
        kernel.message
    assert "export one engine per deployed size" in kernel.message and "make the number a constant" in kernel.message
    assert by_line[25].fix == Safety.UNSAFE and "trip count" not in by_line[25].message
    # Why: the kernel's shape follows the input's size, so a trace at one size is another program at the next.
    scaled_blur = load(KERNEL_FROM_SIZE, "scaled_blur")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(scaled_blur, (torch.rand(1, 1, 16, 16),))
    for x in (torch.rand(1, 1, 16, 16), torch.zeros(1, 1, 16, 16), -torch.rand(1, 1, 16, 16)):
        assert torch.equal(traced(x), scaled_blur(x))
    big = torch.rand(1, 1, 40, 40)
    assert not torch.allclose(traced(big), scaled_blur(big))


def test_a_number_computed_from_a_loop_bound_gets_no_fix() -> None:
    """TRT712 in the loop's own function, with facts: `half = int(math.floor(size / 2))` beside `for i in
    range(size)`: the loop is the example's at every size whatever `half` becomes, so no fix is offered."""
    path = Path("/k.py")
    lines = KERNEL_FROM_SIZE.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "half = int(" in text)
    events = [{"kind": "traced", "path": str(path), "line": line, "column": 1, "end_line": line,
               "end_column": len(lines[line - 1]) + 1, "count": 1, "message": "Converting a tensor to a Python integer"}]
    facts = Facts(runs=1, lines={str(path): set(range(1, len(lines) + 1))}, events=events)
    found = check_source(KERNEL_FROM_SIZE.encode(), str(path), Options(select=("TRT712",), facts=facts))
    [half] = [f for f in found if f.line == line]
    assert half.fix == Safety.NONE
    assert "it is computed from the trip count of the loop `for ... in range(size)`, which `range` reads" in half.message


# A shape handed down as a parameter, its sizes made a NumPy row: PaddleOCR's TPS rectifier, the variant
# tests/size_recipe_variants/paddleocr_tps_grid.py (reduced from easypaddleocr 0.3,
# pytorchocr/modeling/transforms/tps.py: ``TPS.forward`` hands ``image.shape[2:]`` to the grid generator at :294;
# ``build_P_paddle`` unpacks it at :200 and divides the ranges by
# ``torch.as_tensor(np.array([I_r_width]).astype(np.float64))`` at :201-207). Without the rewrite the export keeps
# the example's width: the grid, and the sampled image, are wrong at any other width. Only the recorded run says
# the parameter held a ``torch.Size``; the export's warning at the line says the size became a NumPy value.
TPS_GRID = (Path(__file__).parents[1] / "size_recipe_variants" / "paddleocr_tps_grid.py").read_text()


def _tps_facts(holds: str) -> Facts:
    """The recorded run: ``sampling_grid`` called with ``holds`` for ``size``, and the export's warnings
    at the two NumPy rows."""
    path = str(Path("snippet.py").resolve())
    line = _line_of(TPS_GRID, "def sampling_grid")
    events = [{"kind": "parameter", "path": path, "line": line, "column": 1, "end_line": line, "end_column": 1,
               "direct": True, "count": 3, "function": "sampling_grid", "name": "size", "holds": holds}]
    facts = Facts.from_json({"version": 1, "runs": 3, "lines": {path: list(range(1, 110))}, "events": events,
                             "inputs": {}})
    facts.note_traced([(path, number, "Converting a tensor to a NumPy array might cause the trace to be incorrect.")
                       for number, text in enumerate(TPS_GRID.splitlines(), 1) if "np.array" in text])
    return facts


@pytest.mark.parametrize("holds", ["tensor", "int"])
def test_a_handed_down_parameter_not_seen_holding_a_shape_stays(holds: str) -> None:
    for facts in (None, _tps_facts(holds)):
        assert "np.array([cols])" in fixed(TPS_GRID, facts) and "np.array([rows])" in fixed(TPS_GRID, facts)


def test_a_shape_handed_down_to_a_numpy_row_is_rewritten() -> None:
    facts = _tps_facts("shape")
    found = findings(TPS_GRID, facts)
    assert [f.line for f in found] == [_line_of(TPS_GRID, "np.array([cols])"), _line_of(TPS_GRID, "np.array([rows])")]
    new = fixed(TPS_GRID, facts)
    assert ("        across = (torch.arange(-cols, cols, 2, dtype=torch.float64) + 1.0) / "
            "torch.stack([torch.as_tensor(cols, dtype=torch.int64)]).to(torch.float64)\n") in new
    assert "np.array" not in new
    before, after = load(TPS_GRID, "build")(), load(new, "build")()
    # The grid alone: the same float64 values bit for bit, at one row or column, odd sizes, an empty axis.
    for size in [(1, 1), (1, 2), (2, 1), (3, 7), (32, 100), (0, 4), (5, 0)]:
        assert bits_equal(before.grid.sampling_grid(torch.Size(size)), after.grid.sampling_grid(torch.Size(size)))
    # The whole rectifier on images with edge values.
    for image in [torch.rand(2, 3, 8, 20, generator=torch.Generator().manual_seed(0)), torch.zeros(1, 3, 1, 1),
                  -torch.ones(1, 3, 4, 3), torch.full((1, 3, 2, 5), float("inf"))]:
        assert_same(before(image), after(image))
    # Exported with a dynamic width, with TRT338's inverse (the original's does not export): with the facts of a
    # shape the grid follows the width; with those of a tensor TRT711 leaves it, and it keeps the example's.
    exported = {name: load(fix_source(TPS_GRID.encode(), "snippet.py", Options(
        select=("TRT711", "TRT338"), unsafe=True, facts=_tps_facts(holds), scope="all")).source.decode(), "build")()
        for name, holds in (("before", "tensor"), ("after", "shape"))}
    example = torch.rand(1, 3, 8, 20, generator=torch.Generator().manual_seed(1))
    other = torch.rand(2, 3, 8, 33, generator=torch.Generator().manual_seed(2))
    axes = {"image": {0: "batch", 3: "width"}}

    def gap(model: torch.nn.Module) -> float:
        """The largest difference of the exported graph from eager mode at the other width (inf if it fails)."""
        session = export_session(model, (example,), ["image"], axes)
        try:
            got = session.run(None, {"image": other.numpy()})[0]
        except Exception:  # noqa: BLE001 - a graph that cannot run at this width
            return float("inf")
        expected = model(other).detach().numpy()
        return float(np.abs(got - expected).max()) if got.shape == expected.shape else float("inf")

    with torch.no_grad():
        assert gap(exported["after"]) < 1e-5  # the elimination's rounding, not LAPACK's
        assert gap(exported["before"]) > 1e-2


def test_migrate_makes_the_tps_rectifier_export_at_every_width() -> None:
    """The reduced TPS rectifier (``tests/size_recipe_variants/paddleocr_tps_grid.py``): the recorded run says
    the grid builder is handed a ``torch.Size``, so TRT711 keeps its NumPy rows traced; TRT338 inverts the
    spline's system while exporting; TRT701 narrows the float64 computation at the located sites, the float64
    constants of the same file that feed them, and the float64 cast TRT711's row keeps (a follow-up in the code
    it wrote). The model ends exported, faithful at the stretched width, with no TensorRT error (exit 0)."""
    from support import TESTS, migrate_json

    path = TESTS / "size_recipe_variants" / "paddleocr_tps_grid.py"
    report = migrate_json(path, '{"image": {"0": "batch", "3": "width"}}')
    assert report["before"]["exported"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    source = path.read_text()
    for rule, text in (("TRT711", "np.array([cols])"), ("TRT711", "np.array([rows])"),
                       ("TRT338", "torch.inverse(system)"), ("TRT701", "xs = torch.linspace")):
        assert (rule, _line_of(source, text)) in applied, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True, report["after"]
    assert report["after"]["trt_errors"] == 0, report["remaining"]


# neuraloperator 2.0.0's spectral convolution (`neuralop/layers/spectral_convolution.py`, `transform`): the sizes
# are copied into a list first, then zipped with the resolution factors and rounded one by one.
COPIED_SIZES = HEADER + """import torch.nn.functional as F


class Resample(nn.Module):
    def __init__(self):
        super().__init__()
        self.factors = (0.5, 1.5)

    def forward(self, x):
        in_shape = list(x.shape[2:])
        out_shape = tuple([round(s * r) for (s, r) in zip(in_shape, self.factors)])
        return F.interpolate(x, size=out_shape, mode="nearest")
"""


def test_sizes_copied_into_a_list_are_sizes(tmp_path) -> None:
    after = rewrite(COPIED_SIZES, unsafe=True)
    assert "tuple([_trt_size_round(s * r) for (s, r) in zip(in_shape, self.factors)])" in after
    original, rewritten = (import_source(code, tmp_path)["Resample"]().eval() for code in (COPIED_SIZES, after))
    # 5 * 0.5 and 3 * 1.5 are halves: Python's `round` and the traced one both go to the even integer.
    sizes = ((2, 1), (5, 3), (6, 7), (33, 20))
    for model in (original, rewritten):
        with pytest.raises(RuntimeError):  # 1 * 0.5 rounds to 0: nothing to resample to, in both
            model(torch.randn(1, 3, 1, 1))
    for h, w in sizes:
        x = torch.randn(2, 3, h, w)
        x[0, 0, 0, 0] = float("nan")
        assert_same(original(x), rewritten(x))
    example = torch.randn(1, 3, 16, 16)
    axes = {"x": {0: "n", 2: "h", 3: "w"}}
    after_session = export_session(rewritten, (example,), ["x"], axes)
    for h, w in sizes[1:]:
        assert ort_matches(after_session, original, torch.randn(1, 3, h, w)), (h, w)
    with pytest.raises(Exception, match="__round__"):
        export_session(original, (example,), ["x"], axes)


# Halves of an image split at `int(H / 2)`, each cut into patches that a helper of the file merges
# pairwise in `for i in range(0, len(feats), 2)` (reduced from deepinv 0.5.0's MPRNet,
# deepinv/models/third_party/mprnet.py:58-67 and :703-704); names and code are ours.
HALVES = HEADER + '''

def merge(feats: list, dim: int) -> torch.Tensor:
    out = [torch.cat((feats[i], feats[i + 1]), dim) for i in range(0, len(feats), 2)]
    return torch.cat(out, dim)


class Halves(nn.Module):
    def forward(self, x: torch.Tensor):
        H = x.size(-2)
        top = x[..., 0:int(H / 2), :]
        bottom = x[..., int(H / 2):H, :]
        return merge([top * 2, bottom.flip(-1)], 2)
'''


def test_a_number_that_slices_a_tensor_a_helper_counts_keeps_its_fix(tmp_path) -> None:
    """The list of slices has a fixed length whatever the size: the helper's `range(len(feats))` is not
    bounded by the number, which only slices, so TRT712's fix is offered (and keeps the traced size)."""
    found = {f.line: f for f in check_source(HALVES.encode(), "m.py", Options(select=("TRT712",)))}
    assert [f.fix for f in found.values()] == [Safety.UNSAFE, Safety.UNSAFE], found
    assert all("trip count" not in f.message for f in found.values())
    after = rewrite(HALVES, unsafe=True)
    assert "top = x[..., 0:(H // 2), :]" in after and "bottom = x[..., (H // 2):H, :]" in after
    original, rewritten = (import_source(code, tmp_path)["Halves"]() for code in (HALVES, after))
    for shape in ((1, 2, 6, 3), (2, 1, 7, 4), (1, 1, 1, 2), (1, 1, 0, 2)):
        x = torch.randn(*shape)
        assert_same(original(x), rewritten(x))
    example = torch.randn(1, 2, 8, 4)
    axes = {"x": {2: "h", 3: "w"}}
    after_session = export_session(rewritten, (example,), ["x"], axes)
    before_session = export_session(original, (example,), ["x"], axes)
    for h in (6, 11, 16):
        x = torch.randn(1, 2, h, 5)
        assert ort_matches(after_session, original, x), h
    assert not ort_matches(before_session, original, torch.randn(1, 2, 12, 5))


PRIORS_FROM_TORCH_ROUNDING = '''import torch
from torch import nn


def grid_sizes(image_size, steps):
    return [[int(torch.ceil(torch.tensor(image_size[0] / step))), int(torch.ceil(torch.tensor(image_size[1] / step)))]
            for step in steps]


def scaled_grid_size(x, factor):
    return int(torch.ceil(torch.tensor(x.shape[-1] * factor)))


class Net(nn.Module):
    def forward(self, x):
        sizes = grid_sizes((x.shape[2], x.shape[3]), (8, 16))
        wide = int(torch.ceil(torch.tensor(x.mean() * 4)))
        return torch.zeros(sizes[0][0], sizes[1][1] + wide + scaled_grid_size(x, 0.5))


def build():
    return Net()


def inputs(generator):
    return (torch.rand(1, 3, 20, 36, generator=generator),)
'''


def test_a_rounding_by_torch_of_sizes_handed_down_is_taken_although_int_reads_its_tensor(tmp_path) -> None:
    """py-feat's RetinaFace priors: `int(torch.ceil(torch.tensor(image_size[0] / step)))` with `image_size` handed down.
    The recorded run sees `int()` read the value of the tensor its argument made; that read is of a tensor built
    from Python numbers, so with the export's TracerWarning there it is TRT712's. A quotient that held a tensor value
    in the run (`x.mean() * 4`) stays a value read, not a size."""
    from trtcodemod.engine import Options, check_source, fix_source
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    model = tmp_path / "priors.py"
    model.write_text(PRIORS_FROM_TORCH_ROUNDING)
    facts, why = observe(build_spec({"model_file": str(model), "model": "build", "inputs": "inputs"}), tmp_path)
    assert facts is not None, why
    lines = PRIORS_FROM_TORCH_ROUNDING.splitlines()
    rounding = [i for i, text in enumerate(lines, 1) if "torch.ceil(torch.tensor(" in text]
    assert {e["line"] for e in facts.value_reads()} >= set(rounding)  # every `int()` reads a tensor's value
    facts.note_traced([(str(model), line, "Converting a tensor to a Python integer might cause the trace to be "
                        "incorrect.") for line in rounding])
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    found = check_source(PRIORS_FROM_TORCH_ROUNDING.encode(), str(model), options)
    assert sorted(f.line for f in found) == [rounding[0], rounding[0], rounding[1]]  # not `x.mean()`'s
    new = fix_source(PRIORS_FROM_TORCH_ROUNDING.encode(), str(model), options).source.decode()
    assert "[[_trt_size_ceil(image_size[0] / step), _trt_size_ceil(image_size[1] / step)]" in new
    assert "int(torch.ceil(torch.tensor(x.mean() * 4)))" in new
    assert "_trt_size_ceil(x.shape[-1] * 0.5)" in new or "_trt_size_ceil(x.shape[-1] * factor)" in new
    namespace: dict = {}
    exec(compile(new, str(model), "exec"), namespace)
    original: dict = {}
    exec(compile(PRIORS_FROM_TORCH_ROUNDING, str(model), "exec"), original)
    for shape in [(1, 3, 20, 36), (2, 3, 1, 1), (1, 3, 65, 7)]:
        x = torch.rand(shape)
        assert namespace["Net"]()(x).shape == original["Net"]()(x).shape


MASK_FROM_HANDED_DOWN_SHAPE = '''from typing import Sequence

import torch
from torch import nn


def centre_lines(shape: Sequence[int], fraction: float) -> int:
    columns = shape[-2]
    return round(columns * fraction)


class Masked(nn.Module):
    def forward(self, kspace):
        low = centre_lines(kspace.shape, 0.08)
        return kspace[..., :low, :] * 2


def build():
    return Masked()


def inputs(generator):
    return (torch.rand(1, 40, 50, 2, generator=generator),)
'''


def test_round_of_a_size_handed_down_is_taken_where_the_export_failed_there(tmp_path) -> None:
    """fastMRI's mask function, `round(num_cols * center_fraction)` of a shape the caller passes: the trace passes a
    0-d tensor, which has no `__round__`, so the export stops there with no TracerWarning before it. migrate notes
    that failure as the warning at its line (`_traced_at`), and TRT712 takes the `round` with the recorded run."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.migrate.locate import Problem
    from trtcodemod.migrate.run import _traced_at, observe
    from trtcodemod.verify.spec import build_spec

    model = tmp_path / "masked.py"
    model.write_text(MASK_FROM_HANDED_DOWN_SHAPE)
    line = next(i for i, text in enumerate(MASK_FROM_HANDED_DOWN_SHAPE.splitlines(), 1) if "round(" in text)
    failed = Problem("export_failure", str(model), line, "(export)", None,
                     "TypeError: type Tensor doesn't define __round__ method")
    other = Problem("export_failure", str(model), line, "(export)", None, "RuntimeError: shapes do not match")
    assert _traced_at([failed, other]) == [(str(model), line, failed.message)]
    facts, why = observe(build_spec({"model_file": str(model), "model": "build", "inputs": "inputs"}), tmp_path)
    assert facts is not None, why
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    assert check_source(MASK_FROM_HANDED_DOWN_SHAPE.encode(), str(model), options) == []  # nothing says it is a size
    facts.note_traced(_traced_at([failed]))
    found = check_source(MASK_FROM_HANDED_DOWN_SHAPE.encode(), str(model), options)
    assert [(f.rule, f.line) for f in found] == [("TRT712", line)]
    from trtcodemod.engine import fix_source

    new = fix_source(MASK_FROM_HANDED_DOWN_SHAPE.encode(), str(model), options).source.decode()
    assert "    return _trt_size_round(columns * fraction)\n" in new


NUMPY_MULTIPLE = '''import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Resize:
    def __init__(self, side: int, multiple: int):
        self.side, self.multiple = side, multiple

    def constrained(self, x, min_val=0):
        y = (np.round(x / self.multiple) * self.multiple).astype(int)
        if y < min_val:
            y = (np.ceil(x / self.multiple) * self.multiple).astype(int)
        return y

    def size(self, height, width):
        scale = self.side / height
        return self.constrained(scale * height, self.side), self.constrained(scale * width, self.side)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.resize = Resize(28, 14)

    def forward(self, x):
        h, w = x.shape[2:]
        height, width = self.resize.size(h, w)
        y = F.interpolate(x, size=(int(height), int(width)), mode="bilinear", align_corners=False)
        return F.interpolate(y.cos(), (h, w), mode="bilinear", align_corners=True)
'''


def test_a_numpy_rounding_of_a_size_handed_down_is_kept_traced(tmp_path) -> None:
    """Depth Anything's `Resize.constrain_to_multiple_of`: `(np.round(x / m) * m).astype(int)` of a size its
    caller scaled. Under a trace `x` is a tensor: `np.round` reads it into NumPy and `astype` stops the export.
    With the run's facts (the export warned there, no value read), `_trt_size_np` and `_trt_size_astype` are
    NumPy's own calls in eager mode and keep the traced number while tracing."""
    from trtcodemod.engine import Options, check_source, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "resize.py"
    path.write_text(NUMPY_MULTIPLE)
    line = NUMPY_MULTIPLE.splitlines().index("        y = (np.round(x / self.multiple) * self.multiple).astype(int)") + 1
    assert check_source(NUMPY_MULTIPLE.encode(), str(path), Options(select=("TRT712",), scope="all")) == []
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 35))})
    facts.note_traced([(str(path), line, "Converting a tensor to a NumPy array might cause the trace to be incorrect.")])
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    assert [(f.rule, f.line) for f in check_source(NUMPY_MULTIPLE.encode(), str(path), options)] == [("TRT712", line)]
    new = fix_source(NUMPY_MULTIPLE.encode(), str(path), options).source.decode()
    assert ("        y = _trt_size_astype(_trt_size_np(np.round, x / self.multiple) * self.multiple, int)\n") in new
    assert "            y = (np.ceil(x / self.multiple) * self.multiple).astype(int)\n" in new  # no warning there
    before, after = load(NUMPY_MULTIPLE, "Net")(), load(new, "Net")()
    for shape in [(1, 2, 28, 28), (2, 1, 40, 57), (1, 1, 7, 91), (0, 3, 30, 30)]:
        x = torch.randn(*shape)
        assert torch.equal(before(x), after(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AttributeError):  # the original's export stops at `astype`
            torch.jit.trace(before, (torch.randn(1, 1, 40, 60),))
        traced = torch.jit.trace(after, (torch.randn(1, 1, 40, 60),))
    for shape in [(1, 1, 40, 60), (2, 1, 80, 120), (1, 1, 20, 30)]:  # the example's aspect: the branch it took
        x = torch.randn(*shape)
        assert torch.allclose(traced(x), before(x), atol=1e-6), shape


def test_the_numpy_helpers_are_numpys_calls_outside_a_trace() -> None:
    from trtcodemod.helpers.sizes import _trt_size_astype, _trt_size_np

    for function in (np.round, np.around, np.rint, np.floor, np.ceil, np.trunc, np.fix):
        for value in (0.0, -0.0, 2.5, 3.5, -2.5, 7, np.float32(1.49), float("inf"), float("nan"), np.array([0.5, 1.5])):
            want, got = function(value), _trt_size_np(function, value)
            assert type(got) is type(want) and np.array_equal(want, got, equal_nan=True), (function, value)
    for value, dtype in ((np.float64(28.0), int), (np.float64(-2.7), int), (np.array([1.9, -1.9]), np.int32),
                         (np.float64(3.5), float), (np.float64(2.0), "int64")):
        want, got = value.astype(dtype), _trt_size_astype(value, dtype)
        assert type(got) is type(want) and np.array_equal(want, got) and got.dtype == want.dtype
    with pytest.raises(AttributeError):
        _trt_size_astype(28.0, int)  # a float has no `astype`, here as in the code it replaces
    with pytest.raises(AttributeError):
        _trt_size_astype(torch.tensor(3.0), int)  # nor a tensor outside a trace

    def traced(x):
        return _trt_size_astype(_trt_size_np(np.round, x.shape[2] / 14) * 14, int) + x.shape[3]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.jit.trace(lambda x: torch.zeros(1) + traced(x), (torch.zeros(1, 1, 40, 3),))
    for h in (40, 7, 21, 35, 63):  # 21 / 14 = 1.5 and 35 / 14 = 2.5: halves to even, as NumPy
        assert program(torch.zeros(1, 1, h, 3)).item() == float(np.round(h / 14) * 14 + 3), h


UNRUN_LOOP = '''import torch
from torch import nn


class Decoder(nn.Module):
    def forward(self, images, beams: int = 1):
        batch_size = int(images.size(0))
        if beams <= 1:
            return torch.full((batch_size, 1), 2, dtype=torch.long)
        rows = []
        for idx in range(batch_size):
            rows.append(images[idx:idx + 1].flatten(1).argmax(1, keepdim=True))
        return torch.cat(rows)
'''


@pytest.mark.parametrize("loop_ran", [False, True])
def test_a_trip_count_of_a_loop_that_never_ran_is_no_reason_to_leave_the_number(tmp_path, loop_ran: bool) -> None:
    """latex-ocr's `generate`: `batch_size = int(images.size(0))` fills greedy decoding's first tokens, and bounds
    a loop over the images only for beam search. Where the recorded forwards never ran that loop, the number is
    what the code that ran reads: TRT712 keeps it traced; where the loop ran, the trace unrolls it whatever the
    number, and the finding names the loop with no fix."""
    path = tmp_path / "decoder.py"
    path.write_text(UNRUN_LOOP)
    lines = set(range(1, 10)) | ({10, 11, 12, 13} if loop_ran else set())
    facts = Facts(runs=1, lines={str(path.resolve()): lines})
    facts.note_traced([(str(path), 7, "Converting a tensor to a Python integer might cause the trace to be incorrect.")])
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    [finding] = check_source(UNRUN_LOOP.encode(), str(path), options)
    assert finding.line == 7 and ("trip count" in finding.message) is loop_ran
    new = fix_source(UNRUN_LOOP.encode(), str(path), options).source.decode()
    assert ("        batch_size = images.size(0)\n" in new) is not loop_ran
    if loop_ran:
        return
    before, after = load(UNRUN_LOOP, "Decoder")(), load(new, "Decoder")()
    for batch in (1, 3, 0):
        x = torch.randn(batch, 2, 3)
        assert torch.equal(before(x), after(x))
        if batch:  # beam search over no image: `torch.cat([])` raises in both
            assert torch.equal(before(x, 2), after(x, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced_before = torch.jit.trace(before, (torch.randn(2, 2, 3),))
        traced_after = torch.jit.trace(after, (torch.randn(2, 2, 3),))
    assert traced_before(torch.randn(5, 2, 3)).shape[0] == 2  # the example's batch kept
    assert traced_after(torch.randn(5, 2, 3)).shape[0] == 5


# owndet 0.1.0's `_normalize_image_size` (utils/decode.py, zoo 91): `isinstance(value, int)` comes first in the
# test, so a traced size (a 0-d tensor) raises before any comparison could warn: the export stops at the `raise`
# with no TracerWarning at the test.
VALIDATED_SIZE = """\
import torch
import torch.nn.functional as F
from torch import nn


def normalized(size):
    if isinstance(size, int):
        size = (size, size)
    if (not isinstance(size, tuple) or len(size) != 2
            or any(not isinstance(value, int) or value <= 0 for value in size)):
        raise ValueError("size must be a positive int or (height, width)")
    return size


class M(nn.Module):
    def forward(self, x):
        h, w = normalized(tuple(x.shape[-2:]))
        return F.interpolate(x, size=(h // 2, w // 2), mode="nearest") * 2


def build():
    return M().eval()


def inputs(generator):
    return (torch.randn(1, 2, 12, 16, generator=generator),)
"""


def test_migrate_takes_a_size_validation_that_raises_only_while_tracing(tmp_path: Path) -> None:
    """The export failure is at the `raise`; its `if`'s test, noted with the failure, is the evidence that the
    value tested is a size, and the failure is the finding's: TRT712's `_trt_size_is_int` is applied and proved."""
    from support import migrate_json

    path = tmp_path / "validated.py"
    path.write_text(VALIDATED_SIZE)
    report = migrate_json(path, '{"x": {"2": "height", "3": "width"}}')
    assert report["before"]["exported"] is False
    line = VALIDATED_SIZE.splitlines().index("            or any(not isinstance(value, int) or value <= 0 for value "
                                             "in size)):") + 1
    assert ("TRT712", line) in [(d["rule"], d["line"]) for d in report["applied"]], report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0, report["remaining"]
