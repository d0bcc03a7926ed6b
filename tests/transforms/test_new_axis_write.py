"""TRT355: writes through a subscript holding ``None`` → the same write without it, the value as it would be taken.

The TorchScript exporter records no node for ``T[:, :3, 3, None] = t`` (its graph keeps the tensor as
it was); after the rewrite the graph writes and equals eager mode at the traced size and at others
(dynamic axes, both exporters), and eager mode writes the same elements with the same values
(dtypes, zeros, negatives, infinities and NaN, empty tensors, leading size-1 axes of the value,
errors, writes through attributes and views, gradients, ``torch.jit.script``).
"""

from __future__ import annotations

import io
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite

from trtcodemod.engine import Options, check_source
from trtcodemod.helpers.indexing import _trt_new_axes_value
from trtcodemod.rules import Safety

SOURCE = """import torch
from torch import nn


class Writes(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = 2.0

    def forward(self, t: torch.Tensor, v: torch.Tensor):
        T = torch.zeros(t.shape[0], 4, 4, dtype=t.dtype)
        T[:, 3, 3] = 1
        T[:, :3, 3, None] = t.view(-1, 3, 1)
        T[None, :, 0, :2] = v[None]
        T[..., 1, None] += t[:, :1, None] * self.scale
        T[:, None, 2, ..., -1, None] -= 1.5
        T[None] *= 2
        return T
"""


def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="new_axis_write_"))


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT355",))
    body = after.split("class Writes", 1)[1]
    assert "        T[:, :3, 3] = _trt_new_axes_value(t.view(-1, 3, 1), T[:, :3, 3, None], [2])\n" in body
    assert "        T[:, 0, :2] = _trt_new_axes_value(v[None], T[None, :, 0, :2], [0])\n" in body
    assert ("        T[..., 1] += _trt_new_axes_value(t[:, :1, None] * self.scale, T[..., 1, None], [-1], False)\n"
            in body)
    # a number literal is written as it is; the axes are taken before the Ellipsis from the front, after it
    # from the back
    assert "        T[:, 2, ..., -1] -= 1.5\n" in body
    assert "        T[...] *= 2\n" in body
    assert "        T[:, 3, 3] = 1\n" in body
    assert "def _trt_new_axes_value(value, view, axes, assigned=True):" in after
    assert rewrite(after, select=("TRT355",)) == after  # a second apply changes nothing
    kept = ("def f(x: torch.Tensor, k: int, idx: torch.Tensor, w, g):\n"
            "    x[:, k, None] = x[:, :1]\n    x[idx, None] = 0\n    x[..., None, ...] = 1\n"
            "    x[:, None] = w\n    g()[:, None] = 1\n    x[g(), None] = 1\n    y = x[:, None]\n"
            "    x[:, 0] = 1\n    return y\n")
    source = "import torch\n" + kept
    assert rewrite(source, select=("TRT355",)).endswith(kept)
    found = check_source(source.encode(), "snippet.py", Options(select=("TRT355",)))
    assert [f.line for f in found] == [3, 4, 5, 6, 7, 8]
    assert all(f.fix == Safety.NONE and "not rewritten" in f.message for f in found)
    assert "it may be a tensor" in found[0].message and "not visibly a tensor" in found[3].message
    assert "evaluates it twice" in found[4].message
    # a file that does not import torch (NumPy code) is left alone
    numpy_code = "def f(a, b):\n    a[:, None] = b\n"
    assert rewrite(numpy_code, select=("TRT355",)) == numpy_code


def test_the_helper_takes_the_value_as_the_write_does() -> None:
    scripted = torch.jit.script(_trt_new_axes_value)
    cases = [
        (torch.zeros(2, 4, 4), (slice(None), slice(None, 3), 3, None), torch.randn(2, 3, 1), [2]),
        (torch.zeros(2, 4, 4), (slice(None), slice(None, 3), 3, None), torch.randn(1, 1, 2, 3, 1), [2]),
        (torch.zeros(2, 4, 4), (None, slice(None), 0, slice(None, 2)), torch.randn(2), [0]),
        (torch.zeros(3, 5), (Ellipsis, 0, None), torch.randn(3, 1), [-1]),
        (torch.zeros(3, 5), (None, Ellipsis, None), torch.tensor(7.0), [0, -1]),
        (torch.zeros(0, 4), (slice(None), None, 1), torch.randn(0, 1), [1]),
    ]
    for base, index, value, axes in cases:
        want = base.clone()
        want[index] = value
        plain = tuple(i for i in index if i is not None) or (Ellipsis,)
        for helper in (_trt_new_axes_value, scripted):
            got = base.clone()
            got[plain] = helper(value, base[index], axes)
            assert torch.equal(got, want), (index, axes)
    # an augmented write is an in-place operation on the view: a leading size-1 axis of the value raises there
    # as it does in the original, where an assignment drops it
    value = torch.randn(1, 2, 1)
    with pytest.raises(RuntimeError):
        torch.zeros(4, 3)[:, 1:, None] += value[None]
    with pytest.raises(RuntimeError):
        _trt_new_axes_value(value[None], torch.zeros(4, 3)[:, 1:, None], [2], False)
    assert _trt_new_axes_value(value[None], torch.zeros(4, 3)[:, 1:, None], [2]).shape == (4, 2)
    # a Python number is returned as it is (it fills the slice alike)
    assert _trt_new_axes_value(2.5, torch.zeros(2, 1), [1]) == 2.5
    # a value that does not broadcast raises RuntimeError, as the write does
    for value in (torch.randn(2, 2, 1), torch.randn(2, 1, 3, 1)):
        with pytest.raises(RuntimeError):
            torch.zeros(2, 4, 4)[:, :3, 3, None] = value
        with pytest.raises(RuntimeError):
            _trt_new_axes_value(value, torch.zeros(2, 4, 4)[:, :3, 3, None], [2])


@pytest.fixture(scope="module")
def programs():
    folder = _folder()
    after = rewrite(SOURCE, select=("TRT355",))
    assert after.count("_trt_new_axes_value(") == 4  # the definition and three calls: the tests run them
    return import_source(SOURCE, folder)["Writes"], import_source(after, folder)["Writes"]


def _inputs(batch: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Translations with zeros, signed zeros, negatives, infinities and NaN (floats), and a row pair."""
    generator = torch.Generator().manual_seed(seed)
    t = torch.randn(batch, 3, generator=generator) * 100
    if batch:
        flat = t.view(-1)
        flat[::4] = 0.0
        flat[1::5] = -0.0
        flat[2::7] = float("inf")
        flat[3::11] = float("nan")
        flat[5::6] = -float("inf")
    v = torch.tensor([-3.0, 0.0])
    return t.to(dtype), v.to(dtype)


def _same(got: torch.Tensor, want: torch.Tensor) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert torch.equal(got.isnan(), want.isnan())
    keep = ~want.isnan()
    assert torch.equal(got[keep], want[keep]) and torch.equal(got[keep].signbit(), want[keep].signbit())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_eager_mode_writes_the_same_values(programs, dtype) -> None:
    before, after = programs
    for batch in (0, 1, 2, 7):
        inputs = _inputs(batch, dtype, seed=batch)
        _same(after()(*inputs), before()(*inputs))


def test_errors_views_attributes_gradients_and_script() -> None:
    source = ("import torch\n\n\nclass Box:\n    def __init__(self, m: torch.Tensor) -> None:\n        self.m = m\n\n\n"
              "def through(box: Box, view_of: torch.Tensor, v: torch.Tensor):\n"
              "    box.m[:, 0, None] = v\n    rows = view_of[1:]\n    rows[..., None, 1] += v[:1]\n"
              "    return box.m, view_of\n\n\n"
              "def pose(t: torch.Tensor):\n    T = torch.eye(4).repeat(t.shape[0], 1, 1)\n"
              "    T[:, :3, 3, None] = t.view(-1, 3, 1)\n    return T\n")
    after = rewrite(source, select=("TRT355",))
    assert "    box.m[:, 0] = _trt_new_axes_value(v, box.m[:, 0, None], [1])\n" in after
    assert "    rows[..., 1] += _trt_new_axes_value(v[:1], rows[..., None, 1], [-1], False)\n" in after
    old, new = import_source(source, _folder()), import_source(after, _folder())
    results = []
    for namespace in (old, new):
        base = torch.arange(12.0).reshape(3, 4)
        view_of = torch.arange(12.0).reshape(3, 4)
        box = namespace["Box"](base)
        m, written = namespace["through"](box, view_of, torch.tensor([[5.0], [6.0], [7.0]]))
        assert m is base and written is view_of  # in place: the attribute's tensor and the view's base change
        results.append((m.clone(), written.clone()))
    for got, want in zip(*results):
        assert torch.equal(got, want)
    # an integer tensor takes a float value by truncation on both sides; a float augmented write into it raises
    for namespace in (old, new):
        box = namespace["Box"](torch.zeros(3, 4, dtype=torch.int64))
        with pytest.raises(RuntimeError, match="can't be cast"):
            namespace["through"](box, torch.zeros(3, 4, dtype=torch.int64), torch.full((3, 1), 2.7))
    # a value that does not broadcast raises RuntimeError on both sides
    for namespace in (old, new):
        with pytest.raises(RuntimeError):
            namespace["pose"](torch.randn(2, 2))
    # gradients reach the value the same way, and both script
    grads = []
    for namespace in (old, new):
        t = torch.tensor([[1.0, -2.0, 0.0], [3.0, 0.5, -0.0]], requires_grad=True)
        out = namespace["pose"](t)
        (out * torch.arange(32.0).reshape(2, 4, 4)).sum().backward()
        grads.append((out.detach(), t.grad))
        scripted = torch.jit.script(namespace["pose"])
        assert torch.equal(scripted(t.detach()), out.detach())
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


def _export(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> ort.InferenceSession:
    names = ["t", "v"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            shapes = ({0: torch.export.Dim("batch", min=1, max=64)}, None)
            proto = torch.onnx.export(model, inputs, dynamo=True, input_names=names, verbose=False,
                                      dynamic_shapes=shapes).model_proto
            data = proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes={"t": {0: "batch"}})
            data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _graph_values(session: ort.InferenceSession, inputs: tuple) -> torch.Tensor:
    feed = {"t": inputs[0].numpy(), "v": inputs[1].numpy()}
    # the original's TorchScript graph drops the write of `v`, and with it the input
    names = {arg.name for arg in session.get_inputs()}
    return torch.from_numpy(np.asarray(session.run(None, {k: a for k, a in feed.items() if k in names})[0]))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_writes(programs, dynamo: bool) -> None:
    before, after = programs
    example = _inputs(2, torch.float32, seed=0)
    original = _export(before(), example, dynamo)
    rewritten = _export(after(), example, dynamo)
    for batch in (1, 2, 5):
        inputs = _inputs(batch, torch.float32, seed=10 + batch)
        want = before()(*inputs)
        torch.testing.assert_close(_graph_values(rewritten, inputs), want, rtol=0, atol=0, equal_nan=True)
        if not dynamo:
            # the original's graph keeps the zeros the dropped writes should have replaced
            assert not torch.equal(_graph_values(original, inputs).nan_to_num(), want.nan_to_num())


#: The written column chosen by a `range` loop's variable (POET's matcher, amathislab/poet@080d78c9aff0
#: models/matcher.py:115-119: ``cost_deltas[:, i, None] = torch.cdist(...)`` in ``for i in range(num_persons)``),
#: and a view of a view whose last subscript takes all of it (ShlezingerLab/AI-Subspace-Methods@1114656744c3
#: src/methods_pack/music.py:418-423: ``soft_row[:, source][:, None] = torch.einsum(...)``), in our own words.
LOOPS = """import torch


def columns(a: torch.Tensor, b: torch.Tensor):
    out = torch.zeros(a.shape[0], b.shape[0])
    for i in range(b.shape[0]):
        out[:, i, None] = (a - b[i]).abs().sum(1, keepdim=True)
    return out


def chained(a: torch.Tensor, b: torch.Tensor):
    out = torch.zeros(a.shape[0], b.shape[0])
    for s in range(b.shape[0]):
        out[:, s][:, None] = (a * b[s]).sum(1, keepdim=True)
        out[:, s][..., None] += a[:, :1]
    return out
"""


def test_loop_variables_and_views_of_views_are_rewritten() -> None:
    after = rewrite(LOOPS, select=("TRT355",))
    assert "        out[:, i] = _trt_new_axes_value((a - b[i]).abs().sum(1, keepdim=True), out[:, i, None], [1])\n" \
        in after
    assert "        out[:, s] = _trt_new_axes_value((a * b[s]).sum(1, keepdim=True), out[:, s][:, None], [1])\n" in after
    assert "        out[:, s] += _trt_new_axes_value(a[:, :1], out[:, s][..., None], [-1], False)\n" in after
    assert rewrite(after, select=("TRT355",)) == after
    kept = ("def f(x: torch.Tensor, v: torch.Tensor, idx):\n"
            "    for i in range(3):\n        i = i + 1\n        x[:, i, None] = v\n"  # bound again in the body
            "    for j in idx:\n        x[:, j, None] = v\n"  # not a range: j may be a tensor
            "    for k in range(3):\n        def g(k: torch.Tensor):\n            x[:, k, None] = v\n"  # another scope
            "    x[:, k, None] = v\n"  # after the loop
            "    return x\n")
    source = "import torch\n" + kept
    found = check_source(source.encode(), "snippet.py", Options(select=("TRT355",)))
    assert [(f.line, f.fix) for f in found] == [(5, Safety.NONE), (7, Safety.NONE), (10, Safety.NONE),
                                                (11, Safety.NONE)]
    assert all("it may be a tensor" in f.message for f in found)
    # a bounded slice after the view of a view writes part of it: the `None` s leave, the subscript stays
    part = "import torch\n\n\ndef f(x: torch.Tensor, v: torch.Tensor):\n    x[:, 0][1:, None] = v\n    return x\n"
    assert "    x[:, 0][1:] = _trt_new_axes_value(v, x[:, 0][1:, None], [1])\n" in rewrite(part, select=("TRT355",))


def _tables(batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(batch, 5, generator=generator) * 10
    if batch > 1:  # one row of infinities and NaN, one with signed zeros; the others finite
        a[0, ::2] = float("inf")
        a[0, 1] = float("nan")
        a[1, 1::2] = -0.0
    return a, torch.randn(4, 5, generator=generator)


@pytest.mark.parametrize("name", ["columns", "chained"])
def test_loop_and_chained_writes_eager_unchanged_and_exported(name: str) -> None:
    folder = _folder()
    before = import_source(LOOPS, folder)[name]
    after = import_source(rewrite(LOOPS, select=("TRT355",)), folder)[name]
    for batch in (0, 1, 3):
        inputs = _tables(batch, batch)
        _same(after(*inputs), before(*inputs))
    a = _tables(3, 7)[0].nan_to_num(posinf=3.0).requires_grad_()
    b = torch.randn(4, 5, requires_grad=True)
    grads = []
    for function in (before, after):  # the written values' gradients reach `a` and `b` alike
        a.grad = b.grad = None
        function(a, b).sum().backward()
        grads.append((a.grad.clone(), b.grad.clone()))
    assert all(torch.equal(x, y) for x, y in zip(*grads))
    snippet = "import torch\n\n\ndef g(x: torch.Tensor, v: torch.Tensor):\n    x[0][:, None] = v\n    return x\n"
    written = import_source(rewrite(snippet, select=("TRT355",)), folder)["g"]
    assert written(torch.zeros(2, 3), torch.ones(3, 1)).sum() == 3
    for function in (import_source(snippet, folder)["g"], written):  # too many indices for the 0-d view:
        with pytest.raises(IndexError):  # raised as before, by the helper's argument
            function(torch.zeros(3), torch.ones(1, 1))

    class Model(torch.nn.Module):
        def __init__(self, function) -> None:
            super().__init__()
            self.function = function

        def forward(self, a, b):
            return self.function(a, b)

    example = _tables(2, 1)
    sessions = []
    for function in (before, after):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(Model(function), example, buffer, dynamo=False, opset_version=17, input_names=["a", "b"],
                              dynamic_axes={"a": {0: "n"}})
        sessions.append(ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"]))
    for batch in (1, 2, 6):
        inputs = _tables(batch, 20 + batch)
        want = before(*inputs)
        feed = {"a": inputs[0].numpy(), "b": inputs[1].numpy()}
        got = torch.from_numpy(sessions[1].run(None, feed)[0])
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-5, equal_nan=True)  # sums in another order
        names = {arg.name for arg in sessions[0].get_inputs()}  # the original's graph dropped the writes
        dropped = torch.from_numpy(sessions[0].run(None, {k: v for k, v in feed.items() if k in names})[0])
        finite = want.isfinite() & (want != 0)
        assert finite.any() and not torch.equal(dropped[finite], want[finite])  # the zeros it started with
