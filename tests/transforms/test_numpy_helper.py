"""TRT711 on a NumPy helper that returns its array to a caller making a tensor of it.

The helper (a prior or anchor generator) is translated into torch statement by statement, its
callers' ``torch.from_numpy`` dropped; the tests show the rewrite's text and run the helper before
and after on sizes that the strides do not divide, size 1, and sizes of the real model.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from support import bits_equal, load
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts

#: Sizes (height, width): not divisible by the strides, size 1, the zoo model's example and a larger one.
SIZES = [(1, 1), (1, 7), (7, 5), (8, 8), (33, 17), (128, 96), (257, 193)]


def _facts(*lines: int) -> Facts:
    facts = Facts(runs=3, lines={str(Path("snippet.py").resolve()): set(range(1, 80))})
    facts.note_traced([("snippet.py", line, "torch.from_numpy results are registered as constants in the trace.")
                       for line in lines])
    return facts


def _options(facts: Facts | None, select: tuple[str, ...] = ("TRT711",)) -> Options:
    return Options(select=select, unsafe=True, facts=facts, **({"scope": "all"} if facts else {}))


def fixed(code: str, facts: Facts | None = None, select: tuple[str, ...] = ("TRT711",)) -> str:
    return fix_source(code.encode(), "snippet.py", _options(facts, select)).source.decode()


def findings(code: str, facts: Facts | None = None) -> list:
    return check_source(code.encode(), "snippet.py", _options(facts))


def line_of(code: str, text: str) -> int:
    return next(i for i, line in enumerate(code.splitlines(), 1) if text in line)


# Our own re-writing of online-face-detection 0.3.4's RetinaFace priors (PyPI online-face-detection==0.3.4,
# online_face/models/retinaface/box.py:21-46, as installed in zoo 29): per stride, cell centres from
# `np.arange`/`np.meshgrid`, anchor sizes from a list comprehension over a constant row, `np.repeat`ed to
# one row per cell, appended to a list, concatenated and cast; cached per size; the caller converts.
PRIORS = '''\
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

PRIORS_AFTER = '''\
@lru_cache(maxsize=8)
def _cells(h: int, w: int) -> np.ndarray:
    out = []
    for level, stride in enumerate(_STRIDES):
        rows, cols = math.ceil(h / stride), math.ceil(w / stride)
        sizes = _ANCHORS[level]
        ys = ((torch.arange(rows).to(torch.float64) + 0.5) * stride) / h
        xs = ((torch.arange(cols).to(torch.float64) + 0.5) * stride) / w
        gy, gx = torch.meshgrid(ys, xs, indexing="ij")
        gx = gx.reshape(-1, 1)
        gy = gy.reshape(-1, 1)
        n = len(sizes)
        cx = gx.repeat_interleave(n, 1)
        cy = gy.repeat_interleave(n, 1)
        sx = (torch.tensor(sizes, dtype=torch.int64).to(torch.float64) / w).reshape(1, n).repeat_interleave(gx.shape[0], 0)
        sy = (torch.tensor(sizes, dtype=torch.int64).to(torch.float64) / h).reshape(1, n).repeat_interleave(gy.shape[0], 0)
        out.append(torch.stack((cx, cy, sx, sy), 2).reshape(-1, 4))
    return torch.cat(out, 0).to(torch.float32)


def priors(size, device):
    import torch

    arr = _cells(int(size[0]), int(size[1]))
    return arr.to(device)
'''


def test_the_helper_is_rewritten_with_its_callers_conversion() -> None:
    line = line_of(PRIORS, "torch.from_numpy(arr)")
    [finding] = findings(PRIORS, _facts(line))
    # From the helper's first rewritten line to the caller's: a problem located in either is this fix's.
    assert (finding.line, finding.end_line) == (line_of(PRIORS, "ys = "), line), finding
    assert finding.fix.value == "unsafe"
    assert "`_cells` builds its array from sizes in NumPy and returns it" in finding.message, finding.message
    assert "cache is kept" in finding.message
    new = fixed(PRIORS, _facts(line))
    assert PRIORS_AFTER in new, new
    assert "\nimport torch\n" in new  # the module bound torch only inside `priors`


def test_the_rewritten_priors_are_the_original_bit_for_bit() -> None:
    line = line_of(PRIORS, "torch.from_numpy(arr)")
    before, after = load(PRIORS, "priors"), load(fixed(PRIORS, _facts(line)), "priors")
    for size in SIZES:
        expected, got = before(size, "cpu"), after(size, "cpu")
        assert bits_equal(expected, got), size
        assert got.dtype == torch.float32 and got.is_contiguous()


def test_the_cache_still_hands_every_caller_the_same_memory() -> None:
    # The NumPy array was cached and `torch.from_numpy` shares it: two calls alias; so do the tensors.
    line = line_of(PRIORS, "torch.from_numpy(arr)")
    for code in (PRIORS, fixed(PRIORS, _facts(line))):
        priors = load(code, "priors")
        first, second = priors((33, 17), "cpu"), priors((33, 17), "cpu")
        assert first.data_ptr() == second.data_ptr()
        assert priors((17, 33), "cpu").data_ptr() != first.data_ptr()


def test_with_trt712_the_priors_follow_the_size_in_the_exported_graph() -> None:
    # TRT712 keeps `int(size[0])` and `math.ceil(h / stride)` traced; with both, the graph is the eager
    # priors at every size (the cache misses while tracing: the sizes are tensors, hashed by identity).
    lines = [line_of(PRIORS, "torch.from_numpy(arr)"), line_of(PRIORS, "_cells(int(size[0])"),
             line_of(PRIORS, "math.ceil(h / stride)")]
    new = fixed(PRIORS, _facts(*lines), select=("TRT711", "TRT712"))
    assert "rows, cols = _trt_size_ceil(h / stride), _trt_size_ceil(w / stride)" in new, new
    original, rewritten = load(PRIORS, "priors"), load(new, "priors")

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
    for size in SIZES:
        x = torch.ones(1, 1, *size)
        [got] = session.run(None, {"x": x.numpy()})
        expected = Model(original)(x)
        assert got.shape == tuple(expected.shape), size
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-6, atol=1e-7)


# The smallest form: sizes passed by forward, no loop, no cache; the finding needs no recorded run.
CENTERS = '''\
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
    code = CENTERS.format(wrapper=wrapper, keywords=keywords)
    [finding] = findings(code)
    assert finding.fix is not None
    new = fixed(code)
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


def _unchanged(code: str) -> None:
    assert fixed(code) == code
    assert all(f.fix is None for f in findings(code))


def test_a_public_helper_is_not_rewritten() -> None:
    # Another module may import it and read the NumPy array.
    _unchanged(CENTERS.format(wrapper="from_numpy", keywords="").replace("_centers", "centers"))


def test_a_helper_whose_array_is_also_read_as_numpy_is_not_rewritten() -> None:
    code = CENTERS.format(wrapper="from_numpy", keywords="") + (
        "\n\ndef count(h, w):\n    return _centers(h, w).size\n")
    _unchanged(code)


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
    _unchanged(code)


def _held(code: str, holds: str) -> Facts:
    """Facts of a run where every call of ``_centers`` passed ``holds`` (``int``, ``float``) for h and w."""
    path = str(Path("snippet.py").resolve())
    line = line_of(code, "def _centers")
    events = [{"kind": "parameter", "path": path, "line": line, "column": 1, "end_line": line, "end_column": 1,
               "direct": True, "count": 3, "function": "_centers", "name": name, "holds": holds} for name in "hw"]
    return Facts.from_json({"version": 1, "runs": 3, "lines": {path: list(range(1, 20))}, "events": events,
                            "inputs": {}})


@pytest.mark.parametrize("holds, rewritten", [("int", True), ("float", False)])
def test_unannotated_sizes_are_ints_where_the_run_saw_only_ints(holds: str, rewritten: bool) -> None:
    # `np.arange(2.0)` is float64 and `np.arange(2)` int64: a parameter seen holding a float is not a size.
    code = CENTERS.format(wrapper="from_numpy", keywords="").replace("(h: int, w: int)", "(h, w)")
    new = fixed(code, _held(code, holds))
    assert ("torch.meshgrid(torch.arange(h)" in new) == rewritten, new
    if rewritten:
        before, after = load(code, "_centers"), load(new, "_centers")
        for size in [(1, 1), (3, 2)]:
            assert bits_equal(torch.from_numpy(before(*size)), after(*size))
