"""TRT364 (a list appended numbers in a loop nest over sizes, then made a tensor): one computation while tracing.

The rewrite text (prior boxes with ``ceil`` counts, a list of lists of integers, ``extend`` with ``sqrt``
and a ``dtype``, a grid whose rows can be none), what it leaves (an ``if`` on an iteration's value, the
list read in the loop or used after it, appends of different lengths, a loop variable read after the
loop, a loop over sizes inside the nest apart from it, loops over fixed iterables only), eager mode (the
loop itself, bit for bit, exceptions included), scripting (the loop only), and the traced and exported
graphs against eager mode at sizes that round up, round to nothing and differ from the example's.
"""

from __future__ import annotations

import warnings

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import assert_same, rewrite, rules_found, strip_helpers

SOURCE = '''
import math
from itertools import product
from math import ceil, sqrt

import torch


def priors(sizes, steps, h, w):
    anchors = []
    for k, step in enumerate(steps):
        for i, j in product(range(ceil(h / step)), range(ceil(w / step))):
            for size in sizes[k]:
                anchors += [(j + 0.5) * step / w, (i + 0.5) * step / h, size / w, size / h]
    out = torch.Tensor(anchors).view(-1, 4)
    out.clamp_(max=1, min=0)
    return out


def cells(n, m):
    found = []
    for i in range(n):
        for j in range(m):
            found.append([i, j, i * m + j])
    return torch.tensor(found)


def spread(n, scale):
    values = []
    for i in range(n):
        values.extend((i / scale, sqrt(i) * scale, -i))
    return torch.as_tensor(values, dtype=torch.float64)


def grid(h, w):
    points = []
    for i in range(h // 4):
        for j in range(w // 4):
            points.append(j * 4 + 2)
            points.append(i * 4 + 2)
    return torch.FloatTensor(points).view(-1, 2)


def branch(n):
    kept = []
    for i in range(n):
        if i > 2:
            kept += [i, i]
    return torch.Tensor(kept)


def read_back(n):
    seen = []
    for i in range(n):
        seen += [i, len(seen)]
    return torch.Tensor(seen)


def uneven(n):
    mixed = []
    for i in range(n):
        mixed.append([i, i])
        mixed.append([i])
    return torch.tensor(mixed)


def used_after(n):
    acc = []
    for i in range(n):
        acc += [i]
    return torch.Tensor(acc), acc


def variable_after(n):
    acc = []
    for i in range(n):
        acc += [i]
    out = torch.Tensor(acc)
    return out, i


def inner_sizes(n, m):
    acc = []
    for i in range(n):
        for s in (1, 2):
            for j in range(m):
                acc += [i, s, j]
    return torch.Tensor(acc)


def fixed_only(sizes):
    acc = []
    for s in sizes:
        acc += [s, s / 2]
    return torch.Tensor(acc)
'''

NAMES = ("priors", "cells", "spread", "grid")


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT364",)) == ["TRT364"] * 4
    assert "_trt_" not in rewrite(SOURCE, select=("TRT364",))  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT364",), unsafe=True))
    # the counts keep TRT712's rounding traced; the tensor's statement and the clamp after it stay as written
    assert "            _trt_size_i = _trt_size_ceil(h / step)\n" in after
    assert ("        out = _trt_appended(_trt_parts, torch.get_default_dtype(), 0).view(-1, 4)\n    else:\n"
            "        anchors = []\n") in after
    assert "        out = torch.Tensor(anchors).view(-1, 4)\n    out.clamp_(max=1, min=0)\n" in after
    assert "        _trt_row1.extend([_trt_i, _trt_j, ((_trt_i * m) + _trt_j)])\n" in after
    assert "        return _trt_appended(_trt_parts, None, 3)\n" in after  # torch.tensor: the numbers' own dtype
    assert ("_trt_row1.extend([(_trt_i / scale), (torch.sqrt(torch.as_tensor(_trt_i)) * scale), (-_trt_i)])"
            in after)
    assert "        return _trt_appended(_trt_parts, torch.float64, 0)\n" in after
    assert "        return _trt_appended(_trt_parts, torch.float32, 0).view(-1, 2)\n" in after
    rest = "def branch" + SOURCE.split("def branch")[1]
    assert after.endswith(rest)  # nothing else rewritten
    once = rewrite(SOURCE, select=("TRT364",), unsafe=True)
    assert rewrite(once, select=("TRT364",), unsafe=True) == once  # the loop it keeps is not taken again


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """The source's functions as written and as rewritten (``--unsafe``)."""
    sources = {"before": SOURCE, "after": rewrite(SOURCE, select=("TRT364",), unsafe=True)}
    return tuple(import_source(code, tmp_path_factory.mktemp(label)) for label, code in sources.items())


CALLS = {
    "priors": [([[2, 4], [8]], [4, 8], h, w) for h, w in [(16, 20), (17, 5), (1, 1), (0, 4), (3, 0), (-2, 5)]]
    + [([[2], [8]], [4, 8], 2.5, 7.25), ([[-1.0, float("inf")]], [4], 9, 9),
       ([], [], 4, 4)],
    "cells": [(3, 4), (1, 1), (0, 5), (4, 0), (-1, 3)],
    "spread": [(5, 2.0), (0, 1.0), (3, 0.0), (4, -1.5), (2, float("inf"))],
    "grid": [(16, 12), (17, 9), (3, 8), (0, 0), (-8, 8)],
}


@pytest.mark.parametrize("name", NAMES)
def test_eager_is_the_loop_bit_for_bit(programs, name: str) -> None:
    before, after = programs
    for args in CALLS[name]:
        assert_same_run(run_once(before[name], list(args)), run_once(after[name], list(args)), context=f"{name}{args}")


class _Sized(torch.nn.Module):
    """Each function fed the traced input's sizes (0-d tensors while tracing)."""

    def __init__(self, namespace: dict, name: str) -> None:
        super().__init__()
        self.namespace, self.name = namespace, name

    def forward(self, x):
        h, w = x.shape[2:]
        f = self.namespace[self.name]
        if self.name == "priors":
            return f([[2, 4], [8]], [4, 8], h, w)
        if self.name == "cells":
            return f(h, w)
        if self.name == "spread":
            return f(h, 2.0)
        return f(h, w)


#: (height, width): odd sizes that `ceil` rounds up, a grid of no rows (h // 4 = 0), a single cell.
SIZES = [(16, 20), (17, 9), (9, 17), (3, 8), (5, 1), (1, 1), (24, 4)]


@pytest.mark.parametrize("name", NAMES)
def test_traced_follows_the_sizes(programs, name: str) -> None:
    before, after = programs
    example = torch.zeros(1, 3, 16, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(_Sized(after, name), example)
        baked = torch.jit.trace(_Sized(before, name), example)
    for h, w in SIZES:
        x = torch.zeros(1, 3, h, w)
        want = _Sized(before, name)(x)
        got = traced(x)
        assert got.dtype == want.dtype and got.shape == want.shape, (name, h, w, got.shape, want.shape)
        assert_same(want, got, atol=1e-6 if want.is_floating_point() else 0.0)
    assert baked(torch.zeros(1, 3, 9, 17)).shape != _Sized(before, name)(torch.zeros(1, 3, 9, 17)).shape


@pytest.mark.parametrize("name", ("priors", "grid"))
def test_exported_graph_follows_the_sizes(programs, name: str, tmp_path) -> None:
    before, after = programs
    path = tmp_path / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Sized(after, name), (torch.zeros(1, 3, 16, 20),), str(path), input_names=["x"],
                          dynamic_axes={"x": {2: "h", 3: "w"}}, dynamo=False)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for h, w in SIZES:
        x = torch.zeros(1, 3, h, w)
        want = _Sized(before, name)(x)
        [got] = session.run(None, {"x": x.numpy()})
        assert_same(want, torch.from_numpy(got), atol=1e-6)


SCRIPTED = '''
from typing import List

import torch


def centres(h: int, w: int) -> torch.Tensor:
    points: List[float] = []
    for i in range(h // 4):
        for j in range(w // 4):
            points.append(j * 4 + 2.0)
            points.append(i * 4 + 2.0)
    return torch.tensor(points).view(-1, 2)
'''


def test_scripting_compiles_only_the_loop(tmp_path) -> None:
    """A loop that scripts still scripts: TorchScript skips the branch under `not torch.jit.is_scripting()`."""
    after = rewrite(SCRIPTED, select=("TRT364",), unsafe=True)
    assert "    if not torch.jit.is_scripting() and _trt_tracing():\n" in after
    before_scripted = torch.jit.script(import_source(SCRIPTED, tmp_path)["centres"])
    after_scripted = torch.jit.script(import_source(after, tmp_path)["centres"])
    for h, w in [(9, 13), (3, 8), (0, 0), (16, 4)]:
        assert_same(before_scripted(h, w), after_scripted(h, w))
