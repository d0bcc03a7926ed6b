"""TRT203 (slice / index assignment → torch.cat) and TRT204 (masked number fill → helper).

Rewrites are run before/after on real tensors (broadcast values, other dtypes, empty
slices, bounds past the end, negative bounds, NaN/inf); the exported graphs (TorchScript
and dynamo exporters, static and dynamic shapes) lose their ScatterND / NonZero and
ONNX Runtime gives the original's values.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import hypothesis.strategies as st
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from hypothesis import given

from drawn import SETTINGS, tensors
from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import assert_same, export_formulation, load, rewrite, rules_found

HEADER = "import torch\nimport numpy as np\nfrom torch import nn\n\n"
BOTH = ("TRT203", "TRT204")


def found(body: str) -> list[str]:
    return rules_found(HEADER + body, select=BOTH)


def fixed(body: str, unsafe: bool = True) -> str:
    return rewrite(HEADER + body, unsafe=unsafe, select=BOTH)


# --- detection -----------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 1:3] = y\n    return out\n",
    "def f(x: torch.Tensor, y):\n    x[..., 0] = y\n    return x\n",
    "def f(x, idx, y):\n    out = x.new_zeros(5, 3)\n    out[idx] = y\n    return out\n",
    "def f(x):\n    m = x.float()\n    m[:, 0] += 1\n    return m\n",
    "def f(hs, ws):\n    img_mask = torch.zeros((1, 8, 8, 1))\n    cnt = 0\n    for h in hs:\n"
    "        for w in ws:\n            img_mask[:, h, w, :] = cnt\n            cnt += 1\n    return img_mask\n",
    "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('buf', torch.zeros(3, 4))\n"
    "    def forward(self, y):\n        self.buf[:, 0:2] = y\n        return self.buf\n",
])
def test_slice_assign_found(body: str) -> None:
    assert found(body) == ["TRT203"]


@pytest.mark.parametrize("body", [
    # dicts, lists, NumPy arrays, unknown objects, Python numbers
    "def f(b):\n    out = {}\n    out['boxes'] = b\n    return out\n",
    "def f(xs, v):\n    xs[0:2] = [v, v]\n    return xs\n",
    "def f():\n    a = np.zeros((3, 4))\n    a[:, 0:2] = 1\n    return a\n",
    "def f(x, y):\n    x[:, 1:3] = y\n    return x\n",  # an unannotated parameter: no evidence
    "def f(cfg, y):\n    cfg.table[:, 0] = y\n    return cfg\n",
    "def f():\n    sizes = [1, 2, 3]\n    sizes[1:] = [4, 5]\n    return sizes\n",
    # construction-time code
    "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        w = torch.zeros(3, 4)\n"
    "        w[:, 0] = 1\n        self.register_buffer('w', w)\n",
    # masks are TRT202 / TRT204's
    "def f(x):\n    out = x.clone()\n    out[out > 0] = x.sum()\n    return out\n",
    # reads are not writes
    "def f(x):\n    out = torch.zeros(4, 6)\n    y = out[:, 1:3]\n    return y\n",
    # module-level code is not run-time code
    "table = torch.zeros(3, 4)\ntable[:, 0] = 1\n",
])
def test_slice_assign_not_found(body: str) -> None:
    assert "TRT203" not in found(body)


@pytest.mark.parametrize("body,fires", [
    ("def f(s: torch.Tensor, t):\n    s[s < t] = 0.0\n    return s\n", True),
    ("def f(x):\n    x[torch.isnan(x)] = float('-inf')\n    return x\n", True),
    ("def f(x: torch.Tensor, valid_mask):\n    x[valid_mask] = 1\n    return x\n", True),
    ("def f(s, t):\n    s[s < t] = 0.0\n    return s\n", False),  # no sign of a tensor: NumPy looks the same
    ("def f(w):\n    w = np.bincount(w)\n    w[w == 0] = 1\n    return w\n", False),
    ("def f(x, keep):\n    x[keep] = 0\n    return x\n", False),     # long indices from NMS, probably
    ("def f(x, m, v):\n    x[x > 0] = v\n    return x\n", False),     # a variable value: TRT202's if a tensor
    ("def f(x, y):\n    x[x > 0] = y\n    return x\n", False),
    ("def f(d, k):\n    d[k] = 0\n    return d\n", False),
])
def test_mask_fill_found(body: str, fires: bool) -> None:
    assert ("TRT204" in found(body)) is fires
    # Never reported twice: TRT202 leaves number literals to TRT204.
    all_ids = rules_found(HEADER + body, select=("TRT202", "TRT204"))
    assert len(all_ids) == (1 if fires else all_ids.count("TRT202"))


def test_file_without_torch_is_ignored() -> None:
    body = "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 1:3] = y\n    return out\n"
    assert rules_found("import numpy as np\n" + body, select=BOTH) == []


# --- when TRT203's rebinding fix is withheld --------------------------------------------------


@pytest.mark.parametrize("body", [
    # a parameter: the caller holds the tensor
    "def f(x: torch.Tensor, y):\n    x[:, 1:3] = y\n    return x\n",
    # an attribute
    "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('buf', torch.zeros(3, 4))\n"
    "    def forward(self, y):\n        self.buf[:, 0:2] = y\n        return self.buf\n",
    # a subscript of a subscript (a view)
    "def f(y):\n    out = torch.zeros(2, 4, 6)\n    out[0][:, 1:3] = y\n    return out\n",
    # a view taken before the write
    "def f(y):\n    out = torch.zeros(4, 6)\n    first = out[:, 1]\n    out[:, 1:3] = y\n    return out, first\n",
    # another name for the same tensor
    "def f(y):\n    out = torch.zeros(4, 6)\n    alias = out\n    out[:, 1:3] = y\n    return alias\n",
    # passed to a call that may keep it
    "def f(y, keep):\n    out = torch.zeros(4, 6)\n    keep.append(out)\n    out[:, 1:3] = y\n    return out\n",
    # bound from something that may be a view
    "def f(x, y):\n    out = x.view(4, 6)\n    out[:, 1:3] = y\n    return out\n",
    # a leaf that requires grad: the in-place write raises, the rebinding would not
    "def f(y):\n    out = torch.zeros(4, 6, requires_grad=True)\n    out[:, 1:3] = y\n    return out\n",
    # read in the loop that writes
    "def f(ys, acc):\n    out = torch.zeros(4, 6)\n    for y in ys:\n        out[:, 1:3] = y\n"
    "        acc.append(out)\n    return acc\n",
    # used in a nested function
    "def f(y):\n    out = torch.zeros(4, 6)\n    g = lambda: out\n    out[:, 1:3] = y\n    return g\n",
    # forms that are not rewritten
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 1:-1] = y\n    return out\n",
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, ::2] = y\n    return out\n",
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 4:2] = y\n    return out\n",
    "def f(y, a):\n    out = torch.zeros(4, 6)\n    out[:, a:3] = y\n    return out\n",
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[1:2, 1:3] = y\n    return out\n",
    "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 1:3] += y\n    return out\n",
    "def f(y):\n    out = torch.zeros(4, 6)\n    a = out[:, 1:3] = y\n    return out, a\n",
])
def test_slice_fix_withheld(body: str) -> None:
    assert found(body) == ["TRT203"]
    # The rebinding is withheld. A tensor value written into a view keeps its write, expanded to the view while
    # exporting (`_trt_slice_value`); nothing else changes.
    expected = []
    for line in body.split("\n"):
        target, sep, value = line.partition(" = ")
        if sep and value == "y" and target.strip().endswith("]") and "=" not in target:
            line = f"{target} = _trt_slice_value(y, {target.strip()})"
        expected.append(line)
    after = fixed(body)
    assert "torch.cat" not in after and after.endswith("\n".join(expected))


#: DaD's sub-pixel offsets (dad_detector 0.2.2, `dad/utils.py`): a grid made by a function of the file, whose one
#: return is a new tensor (`x1_n = torch.stack(...).reshape(...)`), its columns then written in place.
_FRESH_CALL = ("def grid(b, n):\n"
               "    \"\"\"The cell offsets.\"\"\"\n"
               "    g = torch.meshgrid(*[torch.linspace(-1 + 1 / k, 1 - 1 / k, k) for k in (b, n, n)], indexing='ij')\n"
               "    g = torch.stack((g[2], g[1]), dim=-1).reshape(b, n * n, 2)\n"
               "    return g\n\n"
               "def f(x, n: int = 3):\n"
               "    b, h, w = x.shape\n"
               "    offsets = grid(b, n).reshape(b, n * n, 2)\n"
               "    offsets[..., 0] = offsets[..., 0] * n / w\n"
               "    offsets[..., 1] = offsets[..., 1] * n / h\n"
               "    return offsets\n")


#: RAFT's ``coords_grid`` (princeton-vl/RAFT, core/utils/utils.py): a grid made once and ``repeat``-ed over the
#: batch, which copies it (``expand`` would not); the caller then scales its columns in place.
_REPEATED_GRID = ("def coords_grid(batch, ht, wd):\n"
                  "    coords = torch.meshgrid(torch.arange(ht), torch.arange(wd), indexing='ij')\n"
                  "    coords = torch.stack(coords[::-1], dim=0).float()\n"
                  "    return coords[None].repeat(batch, 1, 1, 1)\n\n"
                  "def f(x):\n"
                  "    b, _, h, w = x.shape\n"
                  "    grid = coords_grid(b, h, w)\n"
                  "    grid[:, 0] = grid[:, 0] / max(w - 1, 1)\n"
                  "    grid[:, 1] = grid[:, 1] / max(h - 1, 1)\n"
                  "    return grid * x[:, :1]\n")


#: (source, the name written, its runs): DaD's with ``n`` as a second argument; the empty batch's ZeroDivisionError
#: (the grid's ``1 / k`` of b = 0) raised by both; RAFT's on NaN too.
_FRESH_GRIDS = {
    "dad": (_FRESH_CALL, "offsets", [[x, n] for x in (torch.randn(2, 5, 7), torch.zeros(1, 1, 1), -torch.rand(3, 4, 2),
                                                      torch.zeros(0, 4, 6)) for n in (1, 3)]),
    "raft": (_REPEATED_GRID, "grid", [[x] for x in (torch.randn(2, 3, 5, 7), torch.zeros(1, 1, 1, 1),
                                                    -torch.rand(3, 2, 4, 2), torch.zeros(0, 1, 4, 6),
                                                    torch.full((1, 1, 2, 2), float("nan")))]),
}


@pytest.mark.parametrize("name", list(_FRESH_GRIDS))
def test_a_tensor_a_function_of_the_file_returns_new_is_rebound(name: str, tmp_path) -> None:
    source, written, runs = _FRESH_GRIDS[name]
    after = fixed(source)
    assert after.count(f"{written} = torch.cat([") == 2, after
    assert not any(line.strip().startswith(f"{written}[") for line in after.splitlines()), after  # no write left
    before_f = import_source(HEADER + source, tmp_path)["f"]
    after_f = import_source(after, tmp_path)["f"]
    for arguments in runs:  # values, dtype, gradients and errors
        assert_same_run(run_once(before_f, arguments), run_once(after_f, arguments),
                        context=str([tuple(a.shape) if hasattr(a, "shape") else a for a in arguments]))
    if name == "dad":
        assert run_once(before_f, [torch.zeros(0, 4, 6), 3]).error is ZeroDivisionError


def test_a_grid_expand_shares_is_left() -> None:
    # ``expand`` shares the grid's one copy across the batch: its writes land in every image, so it stays
    shared = _REPEATED_GRID.replace(".repeat(batch, 1, 1, 1)", ".expand(batch, -1, -1, -1)")
    assert fixed(shared) == HEADER + shared


#: Bound from a function of the file that may not return a new tensor: a view of its parameter, a tensor it also
#: keeps, one under a decorator, a name the module binds again, a body that is not straight-line code, a name the
#: caller binds itself.
_NOT_FRESH_CALLS = [
    "def grid(x):\n    return x.view(4, 6)\n\ndef f(x, y):\n    out = grid(x)\n    out[:, 1:3] = y\n    return out\n",
    "def grid(keep):\n    g = torch.zeros(4, 6)\n    keep.append(g)\n    return g\n\n"
    "def f(keep, y):\n    out = grid(keep)\n    out[:, 1:3] = y\n    return out\n",
    "@torch.no_grad()\ndef grid():\n    return torch.zeros(4, 6)\n\n"
    "def f(y):\n    out = grid()\n    out[:, 1:3] = y\n    return out\n",
    "def grid():\n    return torch.zeros(4, 6)\n\ngrid = lambda: CACHE\n\n"
    "def f(y):\n    out = grid()\n    out[:, 1:3] = y\n    return out\n",
    "def grid(x):\n    if x is None:\n        return torch.zeros(4, 6)\n    return x\n\n"
    "def f(x, y):\n    out = grid(x)\n    out[:, 1:3] = y\n    return out\n",
    # the caller's own `grid` (a parameter) shadows the module's function
    "def grid():\n    return torch.zeros(4, 6)\n\ndef f(grid, y):\n    out = grid()\n    out[:, 1:3] = y\n    return out\n",
    # a function returning another's result: not followed (two that call each other end nowhere)
    "def a():\n    return b()\n\ndef b():\n    return a()\n\ndef f(y):\n    out = a()\n    out[:, 1:3] = y\n    return out\n",
]


@pytest.mark.parametrize("body", _NOT_FRESH_CALLS)
def test_a_call_that_may_not_return_a_new_tensor_is_left(body: str) -> None:
    assert fixed(body) == HEADER + body


def test_slice_fix_needs_unsafe() -> None:
    body = "def f(y):\n    out = torch.zeros(4, 6)\n    out[:, 1:3] = y\n    return out\n"
    assert fixed(body, unsafe=False) == HEADER + body
    after = fixed(body)
    assert "torch.cat" in after and fixed(after[len(HEADER):]) == after  # idempotent


def test_torch_alias_is_kept() -> None:
    code = "import torch as th\n\ndef f(y):\n    out = th.zeros(4, 6)\n    out[:, 1:3] = y\n    return out\n"
    after = rewrite(code, unsafe=True, select=("TRT203",))
    assert "th.cat([" in after and "th.as_tensor(" in after and "torch" not in after.replace("import torch as th", "")


# --- TRT203: the same values on real tensors ---------------------------------------------------

#: (index text, value expression over `v`), each run on several shapes and value kinds.
SLICE_FORMS = [
    ":, 1:3", ":, 2:", ":, :2", ":, -2:", ":, -3:-1", ":, :-1", ":, 5:9", ":, 0:0",
    "..., 0", "..., -1", "..., 1, :", ":, 0", ":, -2", "1:3", "..., 1:4",
]


def _program(index: str) -> str:
    return ("def f(x, v):\n    out = x.clone()\n"
            f"    out[{index}] = v\n    return out\n")


def _values_for(x: torch.Tensor, index: str) -> list:
    target = x[eval(f"np.s_[{index}]", {"np": np})]
    shape = tuple(target.shape)
    values: list = [0, -1, 2.75, float("nan"), float("-inf"), torch.tensor(3.5)]
    values.append(torch.randn(shape, dtype=torch.float64))            # another dtype
    if shape:
        values.append(torch.randn(shape[-1:]))                          # broadcast from the last axis
        values.append(torch.randn((1,) * len(shape)))                   # size-1 axes
    return values


@pytest.mark.parametrize("index", SLICE_FORMS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8, torch.bool])
def test_slice_rewrite_same_values(index: str, dtype: torch.dtype) -> None:
    before_src = HEADER + _program(index)
    after_src = rewrite(before_src, unsafe=True, select=("TRT203",))
    assert "torch.cat" in after_src, after_src
    before, after = load(before_src, "f"), load(after_src, "f")
    for shape in [(3, 5, 4), (2, 4), (4, 0, 3), (1, 6, 1)]:
        base = torch.randn(shape) * 4
        x = base.to(dtype) if dtype != torch.bool else base > 0
        try:
            values = _values_for(x, index)
        except IndexError:
            values = [1.0]
        for value in values:
            if isinstance(value, torch.Tensor) and dtype == torch.uint8:
                value = value.abs()
            if isinstance(value, float) and value != value and not dtype.is_floating_point:
                continue  # NaN into an integer tensor is undefined in torch itself
            if isinstance(value, float) and abs(value) == float("inf") and not dtype.is_floating_point:
                continue
            if value == -1 if not isinstance(value, torch.Tensor) else False:
                if dtype == torch.uint8:
                    continue  # both wrap to 255 or both fail, platform-defined in torch itself
            outcome = []
            for fn in (before, after):
                try:
                    outcome.append(fn(x.clone(), value))
                except (IndexError, RuntimeError) as error:
                    outcome.append(type(error))
            if isinstance(outcome[0], type):
                assert isinstance(outcome[1], type), (index, shape, value, outcome)
                continue
            assert not isinstance(outcome[1], type), (index, shape, value, outcome)
            assert_same(outcome[0], outcome[1])


def test_slice_rewrite_gradients() -> None:
    src = HEADER + _program(":, 1:3")
    before, after = load(src, "f"), load(rewrite(src, unsafe=True, select=("TRT203",)), "f")
    grads = []
    for fn in (before, after):
        x = torch.randn(3, 5, requires_grad=True)
        v = torch.randn(3, 1, requires_grad=True)
        (fn(x, v) * torch.arange(15.0).reshape(3, 5)).sum().backward()
        grads.append((x.grad, v.grad))
    assert_same(grads[0][0], grads[1][0])
    assert_same(grads[0][1], grads[1][1])


# --- exported graphs ------------------------------------------------------------------------------


def _export(model: torch.nn.Module, inputs: tuple, dynamo: bool, dynamic: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            shapes = tuple({0: torch.export.Dim.AUTO} for _ in inputs) if dynamic else None
            return torch.onnx.export(model, inputs, dynamo=True, dynamic_shapes=shapes, verbose=False).model_proto
        buffer = io.BytesIO()
        names = [f"i{n}" for n in range(len(inputs))]
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={name: {0: "n"} for name in names} if dynamic else {})
        return onnx.load_from_string(buffer.getvalue())


def _ops(model: onnx.ModelProto) -> set[str]:
    return {node.op_type for node in model.graph.node}


def _run(model: onnx.ModelProto, inputs: tuple) -> torch.Tensor:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(np.asarray(session.run(None, feed)[0]))


MODULE = ("class M(nn.Module):\n    def forward(self, x, y):\n"
          "        out = (x * 2).clone()\n        out[:, 1:3] = y\n        out[..., -1] = 0.5\n        return out\n")


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_slice_rewrite_export(dynamo: bool, dynamic: bool) -> None:
    before = load(HEADER + MODULE, "M")()
    after_src = rewrite(HEADER + MODULE, unsafe=True, select=("TRT203",))
    assert after_src.count("torch.cat") == 2
    after = load(after_src, "M")()
    inputs = (torch.randn(3, 5, 4), torch.randn(3, 2, 1))
    assert _ops(_export(before, inputs, dynamo, dynamic)) & {"ScatterND", "ScatterElements"}
    model = _export(after, inputs, dynamo, dynamic)
    assert not _ops(model) & {"ScatterND", "ScatterElements"}, _ops(model)
    other = (torch.randn(5 if dynamic else 3, 5, 4), torch.randn(5 if dynamic else 3, 2, 1))
    for feed in (inputs, other):
        assert_same(before(*feed), _run(model, feed))


# --- TRT204: the helper ----------------------------------------------------------------------------


def test_mask_fill_rewrite_text() -> None:
    body = ("class M(nn.Module):\n    def forward(self, boxes, scores):\n"
            "        boxes[scores < 0.5] = 0\n        scores[scores.isnan()] = -1.5\n        return boxes, scores\n")
    after = fixed(body, unsafe=False)
    assert "_trt_mask_fill_int(boxes, scores < 0.5, 0)" in after
    assert "_trt_mask_fill_float(scores, scores.isnan(), -1.5)" in after
    assert fixed(after[len(HEADER):], unsafe=False) == after


PROGRAM = ("class M(nn.Module):\n    def forward(self, boxes, scores):\n        boxes = boxes.clone()\n"
           "        boxes[scores < 0.5] = 0\n        scores = scores.clone()\n        scores[scores > 0.9] = -1.5\n"
           "        return boxes, scores\n")


def _mask_inputs() -> list[tuple[torch.Tensor, torch.Tensor]]:
    scores = torch.tensor([0.2, 0.95, float("nan"), 0.7, -0.0, float("inf")])
    return [
        (torch.randn(6, 4), scores),
        (torch.randn(6), scores),
        (torch.randn(0, 4), torch.randn(0)),
        (torch.randn(6, 4).to(torch.int64), scores),
    ]


def test_mask_fill_export_formulation_same_values() -> None:
    """The masked_fill_ taken while exporting is the assignment itself on leading-axis masks."""
    before = load(HEADER + PROGRAM, "M")()
    namespace: dict = {"__name__": "snippet"}
    exec(compile(rewrite(HEADER + PROGRAM, select=("TRT204",)), "snippet.py", "exec"), namespace)
    after = namespace["M"]()
    for boxes, scores in _mask_inputs():
        with export_formulation(namespace):
            got = after(boxes.clone(), scores.clone())
        assert_same(before(boxes.clone(), scores.clone()), got)
    # a mask that does not match the leading axes: the assignment's error, not masked_fill_'s broadcast
    with export_formulation(namespace), pytest.raises(IndexError):
        after(torch.randn(4, 6), torch.randn(6))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_mask_fill_export(dynamo: bool, dynamic: bool) -> None:
    before = load(HEADER + PROGRAM, "M")()
    after = load(rewrite(HEADER + PROGRAM, select=("TRT204",)), "M")()
    inputs = (torch.randn(6, 4), torch.tensor([0.2, 0.95, 0.1, 0.7, -0.0, 0.6]))
    if dynamo:  # the TorchScript exporter already writes a Where
        assert {"NonZero", "ScatterND"} <= _ops(_export(before, inputs, dynamo, dynamic))
    model = _export(after, inputs, dynamo, dynamic)
    assert not _ops(model) & {"NonZero", "ScatterND"}, _ops(model)
    assert "Where" in _ops(model)
    session_inputs = [inputs] + ([(torch.randn(3, 4), torch.tensor([0.6, 0.1, 0.99]))] if dynamic else [])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for feed in session_inputs:
        names = [arg.name for arg in session.get_inputs()]
        got = session.run(None, {name: value.numpy() for name, value in zip(names, feed)})
        expected = before(*[t.clone() for t in feed])
        for e, g in zip(expected, got):
            assert_same(e, torch.from_numpy(np.asarray(g)))


def test_mask_fill_scripts_with_int_and_float_literals() -> None:
    before = load(HEADER + PROGRAM, "M")
    after_src = rewrite(HEADER + PROGRAM, select=("TRT204",))
    import tempfile, importlib.util, pathlib
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "scripted_mask_fill.py"
        path.write_text(after_src)
        spec = importlib.util.spec_from_file_location("scripted_mask_fill", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        scripted = torch.jit.script(module.M())
        for boxes, scores in _mask_inputs():
            assert_same(before()(boxes.clone(), scores.clone()), scripted(boxes.clone(), scores.clone()))


def test_a_value_that_reads_the_written_tensor_is_not_rebuilt() -> None:
    """`hist[1:] = hist[:-1]` overlaps: torch raises or copies in its own order, unlike torch.cat."""
    from trtcodemod.engine import Options, check_source, fix_source

    code = ("import torch\ndef shift(x):\n    hist = torch.zeros(5)\n    hist[0] = x\n"
            "    hist[1:] = hist[:-1]\n    return hist\n")
    found = check_source(code.encode(), "m.py", Options(select=("TRT203",)))
    overlap = [f for f in found if f.line == 5]
    assert overlap and overlap[0].fix.value == "none" and "overlapping" in overlap[0].message
    assert "hist[1:] = hist[:-1]" in fix_source(code.encode(), "m.py", Options(select=("TRT203",), unsafe=True)).source.decode()
    hist = torch.arange(5.0)
    with pytest.raises(RuntimeError):
        hist[1:] = hist[:-1]  # what the original does; a concatenation would have returned values


def test_overlapping_slice_write_is_not_a_concatenation() -> None:
    """Why: the in-place copy of an overlapping view raises, where the concatenation would not."""
    hist = torch.arange(5.0)
    with pytest.raises(RuntimeError, match="memory location"):
        hist[1:] = hist[:-1]
    other = torch.arange(5.0)
    assert torch.equal(torch.cat([other[:1], other[:-1]]), torch.tensor([0.0, 0.0, 1.0, 2.0, 3.0]))


# --- TRT203: a value computed anew from the tensor it is written into ---------------------------

#: `out[idx] = <value over out>`: arithmetic or an elementwise call allocates the value first.
COMPUTED_VALUES = [
    (":, 0", "out[:, 0].clamp(0, 2)"),
    ("..., 1", "torch.clamp(out[..., 1], min=-1.0)"),
    ("..., 0", "out[..., 0] * (3 / 2)"),
    (":, 1:3", "-out[:, 1:3]"),
    (":, 2", "out[:, 0] - out[:, 2]"),
    (":, :2", "out[:, 1:3].clip(max=0.5)"),
]


@pytest.mark.parametrize(("index", "value"), COMPUTED_VALUES)
def test_slice_rewrite_of_a_value_computed_from_the_target(index: str, value: str) -> None:
    src = HEADER + f"def f(x):\n    out = x.clone()\n    out[{index}] = {value}\n    return out\n"
    after_src = rewrite(src, unsafe=True, select=("TRT203",))
    assert "torch.cat" in after_src, after_src
    before, after = load(src, "f"), load(after_src, "f")
    odd = torch.tensor([[float("nan"), float("inf"), -float("inf"), 0.0], [-0.0, -3.0, 2.5, 1.0]])
    for x in (torch.randn(3, 4) * 3, torch.zeros(2, 4), odd, torch.zeros(0, 4), torch.randn(2, 4, 3)):
        assert_same(before(x.clone()), after(x.clone()))


@pytest.mark.parametrize("value", [
    "out[:, 1]",                                   # a view of the target
    "+out[:, 1]",                                  # `+t` is `t` itself
    "out[:, 1].view(-1)",                          # a view again
    "torch.clamp(out[:, 1], 0, 1, out=out[:, 0])",  # writes into the target's memory
    "out[:, :2].contiguous()",                     # the receiver itself when it is contiguous
])
def test_slice_fix_withheld_for_a_value_that_may_share_the_target(value: str) -> None:
    body = f"def f(x):\n    out = x.clone()\n    out[:, 0] = {value}\n    return out\n"
    assert found(body) == ["TRT203"]
    assert fixed(body) == HEADER + body


# --- TRT203: a name rebound to a new tensor on a line of its own -------------------------------

@pytest.mark.parametrize("body", [
    # a parameter rebound to its own copy before the writes (SAM's `coords = deepcopy(coords).to(...)`)
    "import copy\ndef f(x):\n    x = copy.deepcopy(x).to(torch.float)\n"
    "    x[..., 0] = x[..., 0] * 2\n    return x\n",
    "def f(x):\n    x = x.clone()\n    x[:, 0] = 5\n    return x\n",
    # a view of a new tensor: nothing else holds its base
    "def f(xs):\n    out = torch.cat(xs, dim=1).permute(0, 2, 1)\n"
    "    out[..., :2] = out[..., :2] + 1\n    return out\n",
    # read, then replaced by a new tensor: the read saw the previous one
    "def f(x):\n    out = x.clone()\n    first = out[:, 0]\n    out = x.sigmoid()\n"
    "    out[:, 1:3] = 0\n    return out, first\n",
])
def test_slice_rewrite_after_a_rebinding(body: str) -> None:
    after_src = fixed(body)
    assert "torch.cat([" in after_src and after_src.count("= torch.cat([") == 1, after_src
    before, after = load(HEADER + body, "f"), load(after_src, "f")
    x = torch.randn(2, 3, 4)
    given = (lambda: [x.clone(), x.clone() + 1]) if "xs" in body else (lambda: x.clone())
    original = given()
    assert_same(before(given()), after(given()))
    if not isinstance(original, list):
        caller = x.clone()
        after(caller)
        assert torch.equal(caller, x)  # the caller's tensor is not written, as in the original


@pytest.mark.parametrize("body", [
    # the caller's tensor is written before the rebinding
    "def f(x):\n    x[:, 0] = 1\n    x = x.clone()\n    x[:, 1] = 2\n    return x\n",
    # rebound in a branch only: the write may reach the caller's tensor
    "def f(x, c: bool):\n    if c:\n        x = x.clone()\n    x[:, 0] = 1\n    return x\n",
    # a view of the caller's tensor
    "def f(x):\n    x = x.view(-1, 4)\n    x[:, 0] = 1\n    return x\n",
    # an expanded view: its write raises, a concatenation would not
    "def f(x):\n    out = torch.zeros(1, 4).expand(3, 4)\n    out[:, 0] = 1\n    return out\n",
])
def test_slice_fix_withheld_for_a_rebinding_that_may_share(body: str) -> None:
    assert "torch.cat([" not in fixed(body)


# --- TRT204: a mask over inner axes ----------------------------------------------------------

def test_mask_over_inner_axes_is_reported_without_a_fix() -> None:
    """`scores[:, ~valid] = -1` (kornia's SOLD2) exports as NonZero + ScatterND too; the helpers
    take a mask over the leading axes only, so it is reported and left."""
    from trtcodemod.engine import Options, check_source

    body = "def f(scores: torch.Tensor, valid: torch.Tensor):\n    scores[:, ~(valid > 0)] = -1\n    return scores\n"
    [finding] = check_source((HEADER + body).encode(), "m.py", Options(select=BOTH, unsafe=True))
    assert finding.rule == "TRT204" and finding.fix.value == "none" and "inner axes" in finding.message
    assert fixed(body) == HEADER + body
    # not for an index that is no mask, nor after an index that is not a bare `:`
    assert found("def f(scores: torch.Tensor, idx):\n    scores[1, idx > 0] = -1\n    return scores\n") \
        in ([], ["TRT203"])


# --- the safety contract on drawn tensors (was safety/test_safety_assignment.py) ------------------
# The safety contract (tests/safety.py) for TRT204's safe fix, on drawn tensors.
#
# Each program is rewritten by the engine with default options (safe fixes only); hypothesis
# draws tensors of every dtype, shape and layout, edge values included, and every property
# (values bit for bit, dtype, shape, strides, requires_grad, gradients, aliasing, the
# exception raised) is compared before and after, in eager mode and, where the original
# works, under torch.jit.script, torch.fx, torch.compile and torch.export. The export
# formulation (what the ONNX graph computes) is compared on the same inputs too.


CONTRACT_HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def leading_mask(data: st.DataObject) -> list[Any]:
    """A tensor and scores over its first axis (sometimes of the wrong length)."""
    values = data.draw(tensors(min_dim=1))
    length = values.shape[0] if data.draw(st.integers(0, 4)) else values.shape[0] + 1
    scores = data.draw(tensors(dtypes=(torch.float32, torch.int64), shape=(length,), grad=False))
    return [values, scores]


def one_tensor(data: st.DataObject) -> list[Any]:
    return [data.draw(tensors())]


PROGRAMS = [
    ("class M(nn.Module):\n    def forward(self, t, s):\n        t = t * 1\n"
     "        t[s > 0] = 0.0\n        return t\n", leading_mask),
    ("class M(nn.Module):\n    def forward(self, t, s):\n        keep = s < 1\n"
     "        t[keep] = -2\n        return t\n", leading_mask),
    # in place on the caller's tensor, and through a view of it
    ("class M(nn.Module):\n    def forward(self, t):\n        t[t != t] = float('inf')\n        return t\n",
     one_tensor),
    ("class M(nn.Module):\n    def forward(self, t, s):\n        v = t[:1]\n        v[s[:1] > 0] = 1.5\n"
     "        return v\n", leading_mask),
]


class _Loaded:
    def __init__(self, folder) -> None:
        self.table = {}
        for number, (body, _) in enumerate(PROGRAMS):
            source = CONTRACT_HEADER + body
            after = rewrite(source)
            assert "_trt_mask_fill_" in after, after
            after_ns = import_source(after, folder)
            self.table[number] = (import_source(source, folder)["M"], after_ns["M"], after_ns)

    def __repr__(self) -> str:
        return "<rewritten programs>"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> _Loaded:
    return _Loaded(tmp_path_factory.mktemp("safety_assignment"))


@pytest.mark.parametrize("number", range(len(PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_eager_contract(loaded, number: int, data: st.DataObject) -> None:
    before_type, after_type, _ = loaded.table[number]
    inputs = PROGRAMS[number][1](data)
    assert_same_run(run_once(before_type(), inputs), run_once(after_type(), inputs))


@pytest.mark.parametrize("number", range(len(PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_export_formulation_same_values(loaded, number: int, data: st.DataObject) -> None:
    """What the exported graph computes (masked_fill_ where it applies) is the assignment's result."""
    before_type, after_type, namespace = loaded.table[number]
    inputs = PROGRAMS[number][1](data)
    before = run_once(before_type(), inputs)
    with export_formulation(namespace):
        after = run_once(after_type(), inputs)
    # Gradients are not part of an exported graph; errors, values and in-place effects are.
    before.grads = after.grads = None
    before.backward_error = after.backward_error = None
    assert_same_run(before, after)


@pytest.mark.parametrize("number", range(len(PROGRAMS)))
def test_toolchains(loaded, tmp_path, number: int) -> None:
    before_type, after_type, _ = loaded.table[number]
    generator = torch.Generator().manual_seed(number)
    t = torch.randn(5, 3, generator=generator)
    inputs = [t] if PROGRAMS[number][1] is one_tensor else [t, torch.randn(5, generator=generator)]
    if PROGRAMS[number][1] is one_tensor:
        inputs[0][1, 1] = float("nan")
    before = toolchain_outcomes(before_type, inputs, tmp_path)
    after = toolchain_outcomes(after_type, inputs, tmp_path)
    worked = [name for name, result in before.items() if not isinstance(result, Exception)]
    assert "script" in worked, before
    for name in worked:
        assert not isinstance(after[name], Exception), f"{name}: {after[name]!r}"
        assert_same_run(Run(inputs, before[name]), Run(inputs, after[name]), context=name)


def test_the_contract_can_fail(loaded) -> None:
    """A plain masked_fill_ (the tempting rewrite) breaks on a leading-axis mask; the check sees it."""
    source = CONTRACT_HEADER + PROGRAMS[0][0].replace("t[s > 0] = 0.0", "t.masked_fill_(s > 0, 0.0)")
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        wrong = import_source(source, Path(folder))["M"]
        inputs = [torch.randn(3, 3), torch.tensor([1.0, -1.0, -1.0])]
        with pytest.raises(AssertionError):
            assert_same_run(run_once(loaded.table[0][0](), inputs), run_once(wrong(), inputs))


# --- an integer position among index tensors (`out[b, 0, h, w] = v`) ------------------------------------
# kornia 0.9.0's ConvQuadInterp3d writes its refined coordinates this way (`coords_max[b_idx, c_idx, 0, d_idx,
# h_idx, w_idx] = ...`, spatial_soft_argmax.py:1128): the TorchScript exporter refuses the write outright.

POSITIONS = """\
import torch
from torch import nn


class Scatter(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(x.shape[0], 3, x.shape[1], x.shape[2], dtype=x.dtype)
        b, h, w = torch.where(x > 0.5)
        out[b, 0, h, w] = x[b, h, w] * 2
        out[b, 2, h, w] = h.to(x.dtype)
        out[b, 2, h, w] += w.to(x.dtype)
        return out
"""


def test_an_integer_among_index_names_is_rewritten() -> None:
    after = rewrite(POSITIONS, select=BOTH)  # a safe fix: no --unsafe needed
    assert "out[b, _trt_index_position(0, [b, h, w]), h, w] = x[b, h, w] * 2" in after
    assert "out[b, _trt_index_position(2, [b, h, w]), h, w] = h.to(x.dtype)" in after
    assert "out[b, _trt_index_position(2, [b, h, w]), h, w] += w.to(x.dtype)" in after
    assert "def _trt_index_position_tensor(" in after
    assert rewrite(after, select=BOTH) == after  # idempotent


@pytest.mark.parametrize("write", [
    "out[b, -1, h, w] = 1.0",  # a negative position: left to the original
    "out[b, :, h] = 1.0",  # a slice: the integer's axis and the slice's would be placed otherwise
    "out[b, 0, h + 1, w] = 1.0",  # an index that is not a plain name
    "out[0, 1, 2, 3] = 1.0",  # no index tensor
    "out[b, None, h] = 1.0",
])
def test_what_is_not_a_position_among_index_names_is_left_alone(write: str) -> None:
    body = ("def f(x: torch.Tensor):\n    out = torch.zeros(2, 3, 4, 5)\n    b, h, w = torch.where(x > 0.5)\n"
            f"    {write}\n    return out\n")
    assert found(body) == ["TRT203"]
    assert "_trt_index_position" not in fixed(body)


def _position_models() -> tuple[torch.nn.Module, torch.nn.Module]:
    return load(POSITIONS, "Scatter")().eval(), load(rewrite(POSITIONS, select=BOTH), "Scatter")().eval()


def test_a_position_among_index_tensors_writes_as_the_original() -> None:
    from trtcodemod.helpers.indexing import _trt_index_position, _trt_index_position_tensor

    # The models in eager mode (the helper returns the integer itself): bit for bit, with infinities, NaN, no
    # index at all (nothing above 0.5) and every index.
    original, rewritten = _position_models()
    edge = torch.tensor([[[float("inf"), 0.7, float("nan")], [0.9, -float("inf"), 1.0]]])
    for x in (torch.rand(2, 5, 7), torch.zeros(1, 3, 3), torch.ones(3, 1, 2), edge):
        want, got = original(x), rewritten(x)
        assert got.dtype == want.dtype and torch.equal(want.nan_to_num(-7), got.nan_to_num(-7))
    assert _trt_index_position(1, [torch.tensor([0])]) == 1

    # What the helper gives while exporting names the elements the integer does: a write and a read, long
    # and int32 indices, the integer first, in the middle and last, an empty index.
    generator = torch.Generator().manual_seed(0)
    target = torch.rand(3, 4, 5, 6, generator=generator)
    for dtype in (torch.long, torch.int32):
        for n in (0, 1, 9):
            a = torch.randint(0, 3, (n,), generator=generator, dtype=dtype)
            c = torch.randint(0, 5, (n,), generator=generator, dtype=dtype)
            d = torch.randint(0, 6, (n,), generator=generator, dtype=dtype)
            value = torch.rand(n, generator=generator)
            for k in (0, 3):
                k_t = _trt_index_position_tensor(k, [a, c, d])
                assert isinstance(k_t, torch.Tensor) and k_t.dtype == dtype and k_t.shape == (n,)
                want, got = target.clone(), target.clone()
                want[a, k, c, d] = value
                got[a, k_t, c, d] = value
                assert torch.equal(want, got) and torch.equal(target[a, k, c, d], target[a, k_t, c, d])
            first = _trt_index_position_tensor(2, [a, c])
            assert torch.equal(target[2, a, c], target[first, a, c])
            last = _trt_index_position_tensor(5, [a, a, c])
            assert torch.equal(target[a, a, c, 5], target[a, a, c, last])
    # Any other index keeps the integer (the original write): a mask, a 2-d index, a number.
    for others in ([torch.tensor([True, False])], [torch.zeros(2, 2, dtype=torch.long)], [torch.tensor([0]), 3],
                   [torch.tensor([0.5])], []):
        assert _trt_index_position_tensor(1, others) == 1


def _export_positions(model: torch.nn.Module, size: tuple[int, int, int]) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.rand(*size),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 1: "h", 2: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_original_does_not_export_and_the_rewrite_follows_the_input() -> None:
    original, rewritten = _position_models()
    with pytest.raises(Exception, match="consecutive 1-d tensor indices"):
        _export_positions(original, (1, 8, 8))
    for traced, others in (((1, 8, 8), [(2, 5, 7), (3, 16, 4)]), ((2, 5, 7), [(1, 8, 8), (1, 1, 1)])):
        session = _export_positions(rewritten, traced)
        for size in (traced, *others):
            for x in (torch.rand(*size), torch.zeros(*size)):  # and no index at all
                (got,) = session.run(None, {"x": x.numpy()})
                assert torch.equal(torch.from_numpy(got), original(x)), (traced, size)


# --- a value broadcast into a slice (`coords[:, :, 0] = torch.arange(d).view(d, 1, 1)`) ---------------------
# kornia 0.9.0's ConvQuadInterp3d fills its coordinate grid this way (spatial_soft_argmax.py:953-955), and reads
# the grid before its later writes, so the torch.cat rebuild is withheld.

GRID = """\
import torch
from torch import nn


class Grid(nn.Module):
    def forward(self, x: torch.Tensor):
        b, c, d, h, w = x.shape
        coords = torch.empty(b, c, 3, d, h, w, dtype=x.dtype)
        coords[:, :, 0] = torch.arange(d, dtype=x.dtype).view(d, 1, 1)
        coords[:, :, 1] = torch.arange(w, dtype=x.dtype).view(1, 1, w)
        coords[:, :, 2] = torch.arange(h, dtype=x.dtype).view(1, h, 1)
        first = coords[:, :, 0].sum()
        coords[..., 1:w - 1] = x[:, :, None, :, :, 1:w - 1] * first
        coords[:, :, 1, 0] = 0.5
        return coords
"""


def test_a_value_broadcast_into_a_slice_is_expanded_while_exporting() -> None:
    after = rewrite(GRID, select=BOTH)  # a safe fix: no --unsafe needed
    assert "coords[:, :, 0] = _trt_slice_value(torch.arange(d, dtype=x.dtype).view(d, 1, 1), coords[:, :, 0])" in after
    assert "coords[..., 1:w - 1] = _trt_slice_value(x[:, :, None, :, :, 1:w - 1] * first, coords[..., 1:w - 1])" \
        in after
    assert "coords[:, :, 1, 0] = 0.5" in after  # a number is filled, nothing to broadcast
    assert after.count("_trt_slice_value(") == 1 + 4  # the definition and four writes
    assert rewrite(after, select=BOTH) == after  # idempotent


@pytest.mark.parametrize("write", [
    "out[:, k] = y",  # a name as an index: maybe an index tensor (a gather, not a view)
    "out[:, 1:3] = y",  # rebuilt with torch.cat under --unsafe instead (which expands the value itself)
    "out[idx(), 0] = y",
    "out[:, 0] = -1.5",
])
def test_what_is_not_a_broadcast_into_a_view_is_left_alone(write: str) -> None:
    body = f"def f(x: torch.Tensor, y, k, idx):\n    out = torch.zeros(2, 3, 4)\n    {write}\n    return out\n"
    assert found(body) == ["TRT203"]
    assert "_trt_slice_value" not in fixed(body, unsafe=False)


def test_a_value_expanded_into_a_slice_writes_as_the_original() -> None:
    from trtcodemod.helpers.indexing import _trt_slice_value, _trt_slice_value_expanded

    original, rewritten = load(GRID, "Grid")().eval(), load(rewrite(GRID, select=BOTH), "Grid")().eval()
    edge = torch.tensor([float("inf"), -float("inf"), float("nan"), 0.0, -0.0]).view(1, 1, 1, 1, 5)
    for x in (torch.rand(2, 3, 4, 5, 6), torch.rand(1, 1, 1, 1, 1), torch.rand(1, 2, 3, 0, 4), edge):
        want, got = original(x), rewritten(x)
        assert want.shape == got.shape and torch.equal(want.nan_to_num(7), got.nan_to_num(7))
    # What the helper gives while exporting writes the same values, for values of fewer axes, one size-1 axis to
    # broadcast, the slice's own shape, another dtype (the write converts it) and an empty slice; a value with a
    # leading extra axis (which the write drops and expand_as rejects) and a number stay as they are.
    target = torch.rand(2, 3, 4, 5)
    for index, value in (((slice(None), 0), torch.arange(5.0)), ((Ellipsis, slice(1, 3)), torch.rand(3, 1, 2)),
                         ((slice(None), 1), torch.rand(2, 4, 5)), ((0,), torch.arange(5)),
                         ((slice(None), slice(2, 2)), torch.rand(5))):
        want, got = target.clone(), target.clone()
        want[index] = value
        got[index] = _trt_slice_value_expanded(value, got[index])
        assert torch.equal(want, got), index
    extra = torch.rand(1, 4, 5)
    assert _trt_slice_value_expanded(extra, target[0, 0]) is extra
    assert _trt_slice_value_expanded(0.5, target[0]) == 0.5
    assert _trt_slice_value(extra, target[0, 0]) is extra  # outside an export: the value itself


def test_a_value_broadcast_into_a_slice_exports_following_the_input() -> None:
    original, rewritten = load(GRID, "Grid")().eval(), load(rewrite(GRID, select=BOTH), "Grid")().eval()
    for traced, others in (((1, 2, 3, 8, 8), [(2, 1, 3, 5, 7), (1, 3, 2, 16, 4)]),
                           ((2, 1, 3, 5, 7), [(1, 2, 3, 8, 8), (1, 1, 1, 1, 3)])):
        wrong = []
        for model, name in ((original, "original"), (rewritten, "rewritten")):
            buffer = io.BytesIO()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(model, (torch.rand(*traced),), buffer, dynamo=False, input_names=["x"],
                                  dynamic_axes={"x": {0: "b", 1: "c", 2: "d", 3: "h", 4: "w"}})
            session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
            for size in (traced, *others):
                x = torch.rand(*size)
                try:
                    (got,) = session.run(None, {"x": x.numpy()})
                    same = torch.allclose(torch.from_numpy(got), model(x), rtol=1e-6, atol=1e-6)
                except Exception:  # noqa: BLE001  (ONNX Runtime refuses the baked Expand)
                    same = False
                if not same:
                    wrong.append((name, size))
        assert wrong == [("original", size) for size in others], (traced, wrong)


# --- migrate: the exporter and ONNX Runtime stop at the first of several such writes -----------------------

STOPS = """\
import torch


def refine(x: torch.Tensor):
    b, c, d, h, w = x.shape
    coords = torch.empty(b, c, 3, d, h, w)
    coords[:, :, 0] = torch.arange(d, dtype=x.dtype).view(d, 1, 1)
    coords[:, :, 1] = torch.arange(w, dtype=x.dtype).view(1, 1, w)
    coords[:, :, 2] = torch.arange(h, dtype=x.dtype).view(1, h, 1)
    total = coords.sum()
    bi, ci, di, hi, wi = torch.where(x > 0.5)
    coords[bi, ci, 0, di, hi, wi] = x[bi, ci, di, hi, wi]
    coords[bi, ci, 1, di, hi, wi] = x[bi, ci, di, hi, wi]
    coords[bi, ci, 2, di, hi, wi] = x[bi, ci, di, hi, wi]
    coords[bi] = total
    return coords
"""


def test_migrate_plans_every_write_the_first_failure_stands_for(tmp_path) -> None:
    """The TorchScript exporter refuses the first integer position among index tensors and ONNX Runtime the first
    baked broadcast: each round would locate one more. Located at one, the plan takes every finding with the same
    kind of fix in the file, and none with another kind (the index-tensor write, the other kind of fix)."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.evidence.facts import Facts
    from trtcodemod.migrate.locate import FAILS_TO_RUN, Problem
    from trtcodemod.migrate.plan import Plan

    path = tmp_path / "refine.py"
    path.write_text(STOPS)
    where = str(path.resolve())
    findings = check_source(STOPS.encode(), where, Options(select=("TRT203",)))
    assert [f.line for f in findings] == [7, 8, 9, 12, 13, 14, 15]
    facts = Facts.from_json({"version": 1, "runs": 2, "lines": {where: list(range(4, 17))}, "events": [],
                             "inputs": {}})
    refused = Problem("export_failure", where, 12, "(export)", None,
                      "RuntimeError: Only consecutive 1-d tensor indices are supported in exporting aten::index_put "
                      "to ONNX.Check https://pytorch.org/docs/stable/onnx.html#indexing for details")
    plan = Plan()
    assert plan.update(findings, [refused], facts, unsafe=False)
    assert sorted(d.finding.line for d in plan.applied) == [12, 13, 14]
    # ONNX Runtime refusing another node at a broadcast write (a Gather out of bounds) is not the broadcast's.
    gather = Problem("unfaithful", where, 7, FAILS_TO_RUN, None, "the torchscript graph fails to run at line 7; ONNX "
                     "Runtime refuses the Gather node '/Gather_3' made at refine.py:7")
    assert not plan.update(findings, [gather], facts, unsafe=False)
    fails = Problem("unfaithful", where, 7, FAILS_TO_RUN, None, "the torchscript graph fails to run at line 7; ONNX "
                    "Runtime refuses the Expand node '/Expand_1' made at refine.py:7")
    assert plan.update(findings, [fails], facts, unsafe=False)
    assert sorted(d.finding.line for d in plan.applied) == [7, 8, 9, 12, 13, 14]
    # Another export failure at such a write (not the exporter's refusal) stands for its own line only.
    other = Problem("export_failure", where, 12, "(export)", None, "RuntimeError: something else")
    alone = Plan()
    alone.update(findings, [other], facts, unsafe=False)
    assert sorted(d.finding.line for d in alone.applied) == [12]


# --- index tensors a `:` stands between (`final[b, :, z, x, y] = feats`) ---------------------------

APART = """\
import torch
from torch import nn


class Splat(nn.Module):
    # The voxel pooling's last step: each pooled feature row written into its voxel of a (B, C, Z, X, Y) grid
    # through four index columns, the channel axis sliced in between (after nv-tlabs/lift-splat-shoot@
    # d74598cb51101e2143097ab270726a561f81f8fd src/models.py:236-237, and the copies of it in LSS-based
    # repositories), in our own words.
    def forward(self, feats: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        grid = torch.zeros((2, feats.shape[1], 3, 5, 6), dtype=feats.dtype)
        grid[coords[:, 3], :, coords[:, 2], coords[:, 0], coords[:, 1]] = feats
        return torch.cat(grid.unbind(dim=2), 1)


class Pillars(nn.Module):
    # A pillar scatter into a (B, C, H, W) canvas by named index columns, the value converted by a call (the
    # PointPillars scatter as t-lou/mlfield@342998e7704ee9da9ed4cb8ed8f6c0edff3acd36
    # mmperc/src/scatter/scatter.py:49 writes it per sample), in our own words.
    def forward(self, feats: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        canvas = torch.zeros(2, feats.shape[1], 4, 5)
        b = coords[:, 0]
        y = coords[:, 1]
        x = coords[:, 2]
        canvas[b, :, y, x] = feats.float()
        return canvas


class PerSample(nn.Module):
    # t-lou/mlfield@342998e7704ee9da9ed4cb8ed8f6c0edff3acd36 mmperc/src/scatter/scatter.py:32-49: a loop over
    # the batch, `bev[b, :, iy, ix] = feats.t()` with a Python int `b` (a select, not an index tensor).
    def forward(self, feats: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        bev = torch.zeros(feats.shape[0], feats.shape[2], 4, 5)
        for b in range(feats.shape[0]):
            ix = coords[b, :, 0]
            iy = coords[b, :, 1]
            bev[b, :, iy, ix] = feats[b].t()
        return bev
"""


def test_indices_a_slice_stands_between_are_rewritten() -> None:
    after = rewrite(APART, select=BOTH)  # a safe fix: no --unsafe needed
    assert ("_trt_index_put_sliced(grid, [coords[:, 3], coords[:, 2], coords[:, 0], coords[:, 1]], [1], feats)"
            in after)
    assert "_trt_index_put_sliced(canvas, [b, y, x], [1], feats.float())" in after
    assert "_trt_index_put_sliced(bev, [b, iy, ix], [1], feats[b].t())" in after
    assert "def _trt_index_put_moved(" in after and "def _trt_index_put_write(" in after
    assert rewrite(after, select=BOTH) == after  # idempotent


@pytest.mark.parametrize("write", [
    "out[b, h, :] = v",  # consecutive indices: the exporter writes them
    "out[:, b, h] = v",
    "out[b, :, h] += v",  # augmented: the write reads the part first
    "out[b, :, h] = 1.0",  # a number: TorchScript would type the helper's value as a tensor
    "out[b, :, h, ...] = v",  # an Ellipsis
    "out[b, 1:, h] = v",  # a slice with bounds
    "out[b, :, None] = v",  # a new axis
    "out[0][b, :, h] = v",  # a view: the copy back would go into a temporary
    "out[b.long(), :, h] = v.float()",  # calls on both sides: the order they run in would change
])
def test_what_is_not_indices_apart_is_left_alone(write: str) -> None:
    body = ("def f(x: torch.Tensor, v: torch.Tensor):\n    out = torch.zeros(2, 3, 4, 5)\n"
            f"    b, h = torch.where(x > 0.5)\n    {write}\n    return out\n")
    assert found(body) == ["TRT203"]
    assert "_trt_index_put_sliced" not in fixed(body)


def _apart_models(name: str) -> tuple[torch.nn.Module, torch.nn.Module]:
    return load(APART, name)().eval(), load(rewrite(APART, select=BOTH), name)().eval()


def _voxel_inputs(n: int, generator: torch.Generator, dtype: torch.dtype = torch.long) -> tuple[torch.Tensor, ...]:
    """``n`` distinct voxels of the (2, 3, 5, 6) grid (a repeated voxel is written in no defined order) and
    four channels of features."""
    cells = torch.randperm(2 * 3 * 5 * 6, generator=generator)[:n]
    coords = torch.stack([cells // 6 % 5, cells % 6, cells // 30 % 3, cells // 90], 1).to(dtype)
    return torch.randn(n, 4, generator=generator), coords


def _pillar_inputs(n: int, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    cells = torch.randperm(2 * 4 * 5, generator=generator)[:n]
    return torch.randn(n, 3, generator=generator), torch.stack([cells // 20, cells // 5 % 4, cells % 5], 1)


def test_indices_apart_write_as_the_original() -> None:
    generator = torch.Generator().manual_seed(0)
    edge = torch.tensor([[float("inf"), -float("inf"), float("nan"), -0.0]])
    for name, make in (("Splat", _voxel_inputs), ("Pillars", _pillar_inputs)):
        original, rewritten = _apart_models(name)
        for n in (0, 1, 7):
            feats, coords = make(n, generator)
            sets = {"random": [feats, coords], "zeros": [torch.zeros_like(feats), coords],
                    "negatives": [-feats.abs(), coords], "int32": [feats, coords.int()]}
            if n:
                sets["inf-nan"] = [edge[:, :feats.shape[1]].expand(n, -1).clone(), coords]
                sets["out-of-range"] = [feats, coords + 10]  # both raise IndexError
                sets["float-index"] = [feats, coords.float()]  # both raise IndexError
                sets["float64"] = [feats.double(), coords]  # a float64 grid (Splat), `.float()` (Pillars)
            for label, inputs in sets.items():
                assert_same_run(run_once(original, inputs), run_once(rewritten, inputs), context=f"{name} {label}")
                graded = [inputs[0].clone().requires_grad_(), inputs[1]]
                assert_same_run(run_once(original, graded), run_once(rewritten, graded), context=f"{name} grad")
    # The per-sample loop (an int among the indices) is the original write outside and inside an export.
    original, rewritten = _apart_models("PerSample")
    feats = torch.randn(2, 6, 3, generator=generator)
    coords = torch.stack([torch.randperm(20, generator=generator)[:6] for _ in range(2)]).unsqueeze(-1)
    coords = torch.cat([coords % 5, coords // 5], -1)
    assert_same_run(run_once(original, [feats, coords]), run_once(rewritten, [feats, coords]))


def test_indices_apart_script_as_the_original(tmp_path) -> None:
    generator = torch.Generator().manual_seed(1)
    namespace = import_source(rewrite(APART, select=BOTH), tmp_path)  # TorchScript reads the source file
    for name, make in (("Splat", _voxel_inputs), ("Pillars", _pillar_inputs)):
        original = load(APART, name)().eval()
        scripted = torch.jit.script(namespace[name]().eval())
        for n in (0, 5):
            feats, coords = make(n, generator)
            assert torch.equal(scripted(feats, coords), original(feats, coords))


def _export_apart(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            n = torch.export.Dim("n", min=0)
            torch.onnx.export(model, inputs, buffer, dynamo=True, input_names=["feats", "coords"],
                              dynamic_shapes={"feats": {0: n}, "coords": {0: n}}, verbose=False)
        else:
            torch.onnx.export(model, inputs, buffer, dynamo=False, input_names=["feats", "coords"],
                              dynamic_axes={"feats": {0: "n"}, "coords": {0: "n"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("dynamo", [False, True])
def test_indices_apart_export_and_follow_the_input(dynamo: bool) -> None:
    generator = torch.Generator().manual_seed(2)
    for name, make in (("Splat", _voxel_inputs), ("Pillars", _pillar_inputs)):
        original, rewritten = _apart_models(name)
        example = make(7, generator)
        if not dynamo:
            with pytest.raises(Exception, match="consecutive 1-d tensor indices"):
                _export_apart(original, example, dynamo)
        session = _export_apart(rewritten, example, dynamo)
        for n in (7, 3, 12, 0):
            feats, coords = make(n, generator)
            (got,) = session.run(None, {"feats": feats.numpy(), "coords": coords.numpy()})
            assert torch.equal(torch.from_numpy(got), original(feats, coords)), (name, n, dynamo)


def test_indices_apart_helper_keeps_the_original_write_where_it_must() -> None:
    from trtcodemod.helpers.indexing import _trt_index_put_moved, _trt_index_put_sliced

    grid = torch.zeros(2, 3, 4)
    i, j = torch.tensor([0, 1]), torch.tensor([3, 2])
    # not moved (False, nothing written): consecutive indices, a mask, a 2-d index, an int, a NumPy array
    for target, indices, sliced in ((grid, [i, j], [2]), (grid, [i > 0, j], [1]), (grid, [i[None], j], [1]),
                                    (grid, [1, j], [1]), (np.zeros((2, 3, 4)), [i, j], [1])):
        assert not _trt_index_put_moved(target, indices, sliced, 1.0)
    assert not grid.any()
    # moved: the values the write gives, for a tensor value broadcast along the slice and for a number
    for value in (torch.arange(3, dtype=torch.float32), 2.5):
        want, got = grid.clone(), grid.clone()
        want[i, :, j] = value
        assert _trt_index_put_moved(got, [i, j], [1], value)
        assert torch.equal(want, got) and got.dtype == torch.float32
    # outside an export the helper is the write itself, on a NumPy array too
    array, expected = np.zeros((2, 3, 4)), np.zeros((2, 3, 4))
    _trt_index_put_sliced(array, [np.array([0, 1]), np.array([3, 2])], [1], 7.0)
    expected[[0, 1], :, [3, 2]] = 7.0
    assert (array == expected).all()


# --- a number written into slices and index names: _trt_slice_fill ----------------------------

# Swin's shifted-window mask, in our own words: SwinTransformer/Swin-Transformer-Object-Detection
# @c7b20110addde0f74b1fbf812b403d16a59a87a9 mmdet/models/backbones/swin_transformer.py:371-384 (BasicLayer.forward).
FILL = """
import numpy as np
import torch
from torch import nn


class Regions(nn.Module):
    def __init__(self, window: int = 4) -> None:
        super().__init__()
        self.window = window
        self.shift = window // 2

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        rows, cols = feats.shape[2], feats.shape[3]
        rows_p = int(np.ceil(rows / self.window)) * self.window
        cols_p = int(np.ceil(cols / self.window)) * self.window
        img_mask = torch.zeros((1, rows_p, cols_p, 1), device=feats.device)
        parts = (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None))
        cnt = 0
        for h in parts:
            for w in parts:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        return feats.mean(1) + img_mask[:, :rows, :cols, 0]


class Traced(nn.Module):
    # the sizes read from the input: the trace follows them (spatial axes dynamic)
    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        out = feats.clone()
        h = slice(1, -1)
        w = slice(1, -1, 2)  # a step: the mask keeps every other column
        out[:, 0:1, h, w] = -2.5
        return out


def fill(target: torch.Tensor, h, w, value):
    target[:, h, w, :] = value
    return target
"""


def test_slice_fill_rewrite_text() -> None:
    after = rewrite(FILL, select=BOTH)  # a safe fix: no --unsafe needed
    assert "                _trt_slice_fill(img_mask)[:, h, w, :] = cnt\n" in after
    assert "        out[:, 0:1, h, w] = -2.5\n" in after.replace("_trt_slice_fill(out)", "out")
    assert "_trt_slice_fill(out)[:, 0:1, h, w] = -2.5" in after
    assert "_trt_slice_fill(target)[:, h, w, :] = value" in after
    assert "class _TrtSliceFill" in after and "def _trt_slice_fill_mask(" in after
    assert rewrite(after, select=BOTH) == after  # idempotent


@pytest.mark.parametrize("write", [
    "out[:, h, w] += 1",  # augmented: the write reads the part first
    "out[:, h, w] = v.float()",  # a call: not a number or a plain name
    "out[:, 0, h] = 1.0",  # an integer among the indices (a select)
    "out[:, h, None] = 1.0",  # a new axis
    "out[:, h.start, w] = 1.0",  # an attribute as an index
    "out[:, h, w] = None",
    "out[:, 1:3, 0:2] = v",  # slices alone and a name: the value may be a tensor (_trt_slice_value's)
    "out[:, :] = 1.0",  # no indexed axis
    "out[:, h, 0:len(v)] = 1.0",  # a call in a slice bound
])
def test_what_is_no_slice_fill_is_left_alone(write: str) -> None:
    body = ("def f(x: torch.Tensor, v, h, w):\n    out = torch.zeros(2, 3, 4)\n"
            f"    {write}\n    return out\n")
    assert found(body) == ["TRT203"]
    assert "_trt_slice_fill(" not in fixed(body)


_BOUNDS = (None, 0, 1, 3, 5, 8, -1, -3, -5, -9)


def _written(target: torch.Tensor, key: Any, value: Any) -> tuple[Any, Any]:
    """``target[key] = value`` on a copy, and the same through the exporting object: (result or exception type)."""
    from trtcodemod.helpers.assignment import _TrtSliceFill

    out = []
    for write in (lambda t: t.__setitem__(key, value), lambda t: _TrtSliceFill(t).__setitem__(key, value)):
        copy = target.clone()
        try:
            write(copy)
            out.append(copy)
        except Exception as error:  # noqa: BLE001 - the exception type is part of the contract
            out.append(type(error))
    return out[0], out[1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_slice_fill_writes_what_the_assignment_writes(dtype: torch.dtype) -> None:
    """The exporting object's masked_fill_ against the assignment: every pair of bounds (empty slices, negative
    bounds, bounds past either end), steps, and edge values of the dtype."""
    target = (torch.arange(2 * 5 * 6, dtype=torch.float64) - 30).reshape(2, 5, 6, 1).to(dtype)
    values: list[Any] = [0, -3, 7, torch.tensor(4, dtype=dtype)]
    if dtype.is_floating_point:
        values += [2.5, -0.5, float("inf"), -float("inf"), float("nan"), torch.tensor(float("nan"), dtype=dtype)]
    for lower in _BOUNDS:
        for upper in _BOUNDS:
            for step in (None, 1, 2, 3):
                key = (slice(None), slice(lower, upper, step), slice(upper, lower), slice(None))
                for value in values:
                    want, got = _written(target, key, value)
                    assert_same(want, got)
    # Ellipsis, a single slice, an empty target axis
    for key in ((..., slice(-2, None), slice(None)), slice(1, -1), (slice(None), slice(0, -5))):
        want, got = _written(target, key, 9)
        assert_same(want, got)
    want, got = _written(target[:, :0], (slice(None), slice(0, -4)), 1)
    assert_same(want, got)


def test_slice_fill_keeps_the_original_write_where_it_must() -> None:
    from trtcodemod.helpers.assignment import _trt_slice_fill_mask

    target = torch.zeros(2, 5, 6)
    # what the mask does not cover: the original write (and its exception), the same result
    for key, value in (((slice(None), 1, slice(2, 4)), 3.0),  # an int (a select)
                       ((slice(None), torch.tensor([0, 2])), 3.0),  # an index tensor
                       ((slice(None), None, slice(1, 3)), 3.0),  # a new axis
                       ((slice(None), slice(-4, None, 2)), 3.0),  # a negative start with a step
                       ((slice(None), slice(None, None, -1)), 3.0),  # raises ValueError
                       ((slice(None), slice(None, None, 0)), 3.0),  # raises ValueError
                       ((..., ..., slice(1, 2)), 3.0),  # raises IndexError
                       ((slice(None),) * 4, 3.0),  # too many indices: raises IndexError
                       ((slice(None), slice(1, 3)), torch.ones(6)),  # a tensor that broadcasts
                       ((slice(None), slice(1, 3)), torch.tensor(2)),  # a 0-d tensor of another dtype
                       ((slice(None), slice(1, 3)), True),
                       ((slice(None), slice(torch.tensor(1), 3)), 3.0),  # a tensor bound
                       ((slice(None), slice(1, 3)), -0.0)):  # the dynamo exporter's constant loses the sign
        assert _trt_slice_fill_mask(target, key, value) is None, key
        want, got = _written(target, key, value)
        assert_same(want, got) if isinstance(want, torch.Tensor) else (want is got)
    assert _trt_slice_fill_mask(np.zeros((2, 5)), (slice(None), slice(1, 2)), 1.0) is None
    assert _trt_slice_fill_mask(target.half(), (slice(None), slice(1, 2)), 1e6) is None  # masked_fill_ raises
    assert _trt_slice_fill_mask(target.long(), (slice(None), slice(1, 2)), 2.5) is None  # the write truncates
    assert _trt_slice_fill_mask(target.bool(), (slice(None), slice(1, 2)), 1) is None  # no Where kernel


def test_slice_fill_is_the_write_outside_an_export(tmp_path) -> None:
    """Eager mode: the rewritten functions and models run as the original (values, aliasing, gradients,
    exceptions), on empty slices, negative bounds and edge values; TorchScript scripts the helper."""
    from trtcodemod.helpers.assignment import _trt_slice_fill

    after = rewrite(FILL, select=BOTH)
    before_fill, after_fill = load(FILL, "fill"), load(after, "fill")
    for target in (torch.zeros(1, 4, 4, 1), torch.randn(2, 8, 4, 1, dtype=torch.float64),
                   torch.arange(32).reshape(1, 4, 8, 1), torch.zeros(1, 0, 4, 1)):
        for h, w in ((slice(0, -4), slice(-4, -2)), (slice(-2, None), slice(0, -4)), (slice(1, 99), slice(-99, 2))):
            values: list[Any] = [0, -1, 3, torch.tensor(5)]
            if target.is_floating_point():
                # NaN as a 0-d tensor: the harness compares Python inputs with ==
                values += [float("inf"), -float("inf"), torch.tensor(float("nan")),
                           torch.tensor(2.0, requires_grad=True)]
            for value in values:
                assert_same_run(run_once(before_fill, [target, h, w, value]),
                                run_once(after_fill, [target, h, w, value]), context=f"{h} {w} {value}")
    leaf = torch.zeros(1, 4, 4, 1, requires_grad=True)
    assert_same_run(run_once(before_fill, [leaf, slice(0, 2), slice(None), 1.0]),
                    run_once(after_fill, [leaf, slice(0, 2), slice(None), 1.0]))  # both raise (a leaf)
    graded = torch.zeros(1, 4, 4, 1, requires_grad=True)
    assert_same_run(run_once(lambda t, v: before_fill(t * 2, slice(0, 2), slice(1, None), v), [graded, 3.0]),
                    run_once(lambda t, v: after_fill(t * 2, slice(0, 2), slice(1, None), v), [graded, 3.0]))
    t = torch.zeros(3)
    assert _trt_slice_fill(t) is t
    for name in ("Regions", "Traced"):
        original, rewritten = load(FILL, name)(), load(after, name)()
        for shape in ((1, 3, 4, 4), (2, 3, 7, 4), (1, 3, 8, 12), (1, 3, 2, 3)):
            x = torch.randn(shape)
            assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=f"{name} {shape}")
            assert_same_run(run_once(original, [x.requires_grad_()]), run_once(rewritten, [x]))
    # TorchScript: the helper is the tensor itself, so the write scripts as it did
    source = ("import torch\n\ndef f(x: torch.Tensor, a: int):\n    out = x.clone()\n    h = a\n"
              "    out[:, h, 1:3] = 2.0\n    return out\n")
    scripted = torch.jit.script(import_source(rewrite(source, select=BOTH), tmp_path)["f"])
    assert "_trt_slice_fill(out)" in rewrite(source, select=BOTH)
    x = torch.randn(2, 3, 4)
    assert torch.equal(scripted(x, 1), import_source(source, tmp_path)["f"](x, 1))


def _export_fill(model: torch.nn.Module, example: torch.Tensor, dynamo: bool, axes: dict) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(model, (example,), buffer, dynamo=True, input_names=["feats"], verbose=False,
                              dynamic_shapes={"feats": {axis: torch.export.Dim.AUTO for axis in axes}})
        else:
            torch.onnx.export(model, (example,), buffer, dynamo=False, input_names=["feats"],
                              dynamic_axes={"feats": axes})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("dynamo", [False, True])
def test_slice_fill_exports_at_the_crashing_size_and_follows_the_input(dynamo: bool) -> None:
    """At a size whose padded rows equal the window the original's TorchScript export stops in shape inference;
    the rewritten one exports with both exporters and equals eager mode at that size and at other batch sizes
    (and, where the sizes are traced, at other spatial sizes)."""
    after = rewrite(FILL, select=BOTH)
    original, rewritten = load(FILL, "Regions")().eval(), load(after, "Regions")().eval()
    example = torch.randn(2, 3, 4, 4)
    if not dynamo:
        with pytest.raises(Exception, match="minus_one_pos != -1"):
            _export_fill(original, example, dynamo, {0: "batch"})
    session = _export_fill(rewritten, example, dynamo, {0: "batch"})
    for batch in (2, 1, 5):
        x = torch.randn(batch, 3, 4, 4)
        (got,) = session.run(None, {"feats": x.numpy()})
        assert torch.equal(torch.from_numpy(got), original(x)), (batch, dynamo)
    traced, traced_after = load(FILL, "Traced")().eval(), load(after, "Traced")().eval()
    session = _export_fill(traced_after, torch.randn(1, 2, 5, 6), dynamo, {0: "batch", 2: "rows", 3: "cols"})
    for shape in ((1, 2, 5, 6), (3, 2, 2, 2), (2, 2, 9, 4), (1, 2, 1, 11)):
        x = torch.randn(shape)
        (got,) = session.run(None, {"feats": x.numpy()})
        assert torch.equal(torch.from_numpy(got), traced(x)), (shape, dynamo)


FILL_STOPS = """\
import torch


def regions(x: torch.Tensor, rows, cols, a, b):
    img_mask = torch.zeros((1, 4, 4, 1))
    img_mask[:, rows, cols, :] = 1
    img_mask[:, cols, rows, :] = 2
    out = torch.zeros(2, 3, 4)
    out[a, 0, b] = x
    return img_mask, out
"""


def test_migrate_plans_every_slice_fill_the_first_failure_stands_for(tmp_path) -> None:
    """The TorchScript exporter stops at the first empty slice written at constant sizes (shape inference's
    internal assert), then at the next: located at one, the plan takes every slice fill of the file, and not the
    rule's other kinds of fix (an integer position among index tensors), which another error stands for."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.evidence.facts import Facts
    from trtcodemod.migrate.locate import Problem
    from trtcodemod.migrate.plan import Plan

    path = tmp_path / "regions.py"
    path.write_text(FILL_STOPS)
    where = str(path.resolve())
    findings = check_source(FILL_STOPS.encode(), where, Options(select=("TRT203",)))
    assert [(f.line, f.edit.helpers) for f in findings] == [
        (6, ("_trt_slice_fill",)), (7, ("_trt_slice_fill",)), (9, ("_trt_index_position",))]
    facts = Facts.from_json({"version": 1, "runs": 2, "lines": {where: list(range(5, 11))}, "events": [],
                             "inputs": {}})
    stops = Problem("export_failure", where, 6, "(export)", None,
                    'RuntimeError: minus_one_pos != -1 INTERNAL ASSERT FAILED at "/pytorch/torch/csrc/jit/passes/'
                    'onnx/shape_type_inference.cpp":536, please report a bug to PyTorch. There are no examples for '
                    "shape_has_zero = true && minus_one_pos == -1.")
    plan = Plan()
    assert plan.update(findings, [stops], facts, unsafe=False)
    assert sorted(d.finding.line for d in plan.applied) == [6, 7]
    refused = Problem("export_failure", where, 9, "(export)", None,
                      "RuntimeError: Only consecutive 1-d tensor indices are supported in exporting aten::index_put")
    alone = Plan()
    assert alone.update(findings, [refused], facts, unsafe=False)
    assert sorted(d.finding.line for d in alone.applied) == [9]
    # the rule's error at a slice fill's line stands for that line only
    other = Problem("export_failure", where, 7, "(export)", None,
                    "RuntimeError: Only consecutive 1-d tensor indices are supported in exporting aten::index_put")
    own = Plan()
    own.update(findings, [other], facts, unsafe=False)
    assert sorted(d.finding.line for d in own.applied) == [7]


def test_slice_fill_under_fx_compile_and_export() -> None:
    """fx refuses both writes alike (a Proxy takes no item assignment); torch.compile and torch.export run the
    rewritten write as the original."""
    source = ("import torch\n\ndef f(x: torch.Tensor):\n    out = x.clone()\n    h = slice(0, -4)\n"
              "    w = slice(-2, None)\n    out[:, h, w] = 2.0\n    return out\n")
    after = rewrite(source, select=BOTH)
    assert "_trt_slice_fill(out)[:, h, w] = 2.0" in after
    original, rewritten = load(source, "f"), load(after, "f")
    for fn in (original, rewritten):
        with pytest.raises(TypeError, match="does not support item assignment"):
            torch.fx.symbolic_trace(fn)
    x = torch.randn(2, 4, 5)
    assert torch.equal(torch.compile(rewritten, backend="eager", fullgraph=True)(x), original(x))

    class Wrapped(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return rewritten(x)

    assert torch.equal(torch.export.export(Wrapped(), (x,)).module()(x), original(x))
