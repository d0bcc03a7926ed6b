"""TRT102/TRT103: torch.where as a blend, and the one-argument nonzero form."""

from __future__ import annotations

import textwrap

import pytest
import torch

from support import assert_same, load, onnx_ops, rewrite, rules_found

MODEL = """
import torch
from torch import nn


class ScoreGate(nn.Module):
    def forward(self, scores, refined, anchors, ids, thresh):
        keep = scores > thresh
        boxes = torch.where(keep[:, None], refined, anchors)   # (N, 4) from (N, 1) mask
        kept = torch.where(scores > thresh, scores, 0.0)
        track = torch.where(keep, ids, -1)
        level = torch.where(keep, 2.5, ids)                     # int tensor with a float number: float32
        flag = torch.where(condition=keep, input=ids, other=0)
        return boxes, kept, track, level, flag
"""


def _inputs(n: int, dtype: torch.dtype, ids_dtype: torch.dtype, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand(n, generator=g).to(dtype)
    refined = (torch.randn(n, 4, generator=g) * 10).to(dtype)
    anchors = (torch.randn(n, 4, generator=g) * 10).to(dtype)
    ids = torch.randint(-5, 50, (n,), generator=g).to(ids_dtype)
    return scores, refined, anchors, ids, torch.tensor(0.5, dtype=dtype)


def test_rewrite_text() -> None:
    after = rewrite(MODEL, unsafe=True)
    assert "boxes = refined * keep[:, None] + anchors * keep[:, None].logical_not()" in after
    assert "kept = scores * (scores > thresh) + 0.0" in after
    assert "track = ids * keep + keep.logical_not().to(ids.dtype) * (-1)" in after
    assert "level = ids * keep.logical_not() + keep.to(ids.dtype) * 2.5" in after
    assert "flag = ids * keep" in after
    assert "torch.where" not in after
    assert "# (N, 4) from (N, 1) mask" in after


def test_needs_unsafe() -> None:
    assert rewrite(MODEL) == textwrap.dedent(MODEL)
    assert rules_found(MODEL).count("TRT102") == 5


@pytest.mark.parametrize("dtype,ids_dtype", [
    (torch.float32, torch.int64), (torch.float16, torch.int32), (torch.float64, torch.int64),
    (torch.bfloat16, torch.int16),
])
@pytest.mark.parametrize("n", [7, 1, 0])
def test_same_as_where_on_finite_inputs(dtype, ids_dtype, n) -> None:
    before = load(MODEL, "ScoreGate")()
    after = load(rewrite(MODEL, unsafe=True), "ScoreGate")()
    args = _inputs(n, dtype, ids_dtype)
    assert_same(before(*args), after(*args))


def test_edge_values() -> None:
    """All-true and all-false masks, zeros and negatives (finite values only)."""
    before = load(MODEL, "ScoreGate")()
    after = load(rewrite(MODEL, unsafe=True), "ScoreGate")()
    for fill in (0.0, 1.0):
        scores = torch.full((5,), fill)
        refined, anchors = -torch.ones(5, 4), torch.zeros(5, 4)
        ids = torch.arange(-2, 3)
        for thresh in (torch.tensor(-1.0), torch.tensor(2.0), torch.tensor(0.5)):
            assert_same(before(scores, refined, anchors, ids, thresh),
                                  after(scores, refined, anchors, ids, thresh))


@pytest.mark.parametrize("a_dtype,b_dtype", [
    (torch.float16, torch.float32), (torch.int32, torch.float16), (torch.int64, torch.int8), (torch.bool, torch.bool),
])
def test_dtype_promotion_matches_where(a_dtype, b_dtype) -> None:
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    assert "return a * m + b * m.logical_not()" in after
    g = torch.Generator().manual_seed(1)
    m = torch.rand(3, 4, generator=g) > 0.5
    a = (torch.randn(3, 4, generator=g) * 5).to(a_dtype)
    b = (torch.randn(1, 4, generator=g) * 5).to(b_dtype)
    assert_same(load(code, "f")(m, a, b), load(after, "f")(m, a, b))


def test_inf_in_unselected_branch_leaks() -> None:
    """Why TRT102 is unsafe: torch.where hides inf/NaN in the branch it does not select."""
    code = """
    import torch
    def iou(inter, union):
        valid = union > 0
        return torch.where(valid, inter / union, torch.zeros_like(inter))
    """
    after = rewrite(code, unsafe=True)
    assert "(inter / union) * valid + torch.zeros_like(inter) * valid.logical_not()" in after
    inter, union = torch.tensor([0.0, 1.0]), torch.tensor([0.0, 2.0])  # 0/0 in the unselected slot
    expected = load(code, "iou")(inter, union)
    actual = load(after, "iou")(inter, union)
    assert torch.equal(expected, torch.tensor([0.0, 0.5]))
    assert torch.isnan(actual[0]) and actual[1] == 0.5
    # The finding says the guard is lost.
    from trtcodemod.engine import Options, check_source
    (finding,) = check_source(textwrap.dedent(code).encode(), "s.py", Options(select=("TRT102",)))
    assert "check the guard" in finding.message and "`/`" in finding.message


def test_negative_zero_selected_loses_its_sign() -> None:
    """The documented signed-zero difference: a selected -0.0 plus the other branch's +0.0 is +0.0."""
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    m, a, b = torch.tensor([True]), torch.tensor([-0.0]), torch.tensor([3.0])
    assert torch.signbit(load(code, "f")(m, a, b)).item()
    assert not torch.signbit(load(after, "f")(m, a, b)).item()


def test_inf_with_plain_tensors_leaks() -> None:
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    m = torch.tensor([True, False])
    a = torch.tensor([1.0, float("inf")])
    b = torch.tensor([float("-inf"), 2.0])
    assert torch.equal(load(code, "f")(m, a, b), torch.tensor([1.0, 2.0]))
    assert torch.isnan(load(after, "f")(m, a, b)).all()


@pytest.mark.parametrize("fill", ["float('-inf')", "-math.inf", "torch.inf", "float('nan')", "-1e9", "1e5"])
def test_nonfinite_or_fp16_overflowing_fill_not_fixed(fill: str) -> None:
    code = f"import math\nimport torch\ndef f(m, x):\n    return torch.where(m, x, {fill})\n"
    assert rules_found(code) == ["TRT102"]
    assert rewrite(code, unsafe=True) == code


def test_export_has_no_where() -> None:
    args = _inputs(6, torch.float32, torch.int64)
    names = ["scores", "refined", "anchors", "ids", "thresh"]
    axes = {"scores": {0: "n"}, "refined": {0: "n"}, "anchors": {0: "n"}, "ids": {0: "n"}}
    before_ops = onnx_ops(load(MODEL, "ScoreGate")(), args, dynamic_axes=axes, input_names=names)
    after_ops = onnx_ops(load(rewrite(MODEL, unsafe=True), "ScoreGate")(), args, dynamic_axes=axes,
                         input_names=names)
    assert "Where" in before_ops
    assert "Where" not in after_ops
    assert {"Mul", "Add", "Not"} <= set(after_ops)


def test_aliases_match() -> None:
    code = """
    import torch as th
    from torch import where as pick
    def f(m, a, b):
        return th.where(m, a, b), pick(m, a, b)
    """
    after = rewrite(code, unsafe=True)
    assert "return a * m + b * m.logical_not(), a * m + b * m.logical_not()" in after


def test_own_where_and_numpy_not_matched() -> None:
    code = """
    import numpy as np
    import torch
    def where(c, a, b):
        return a
    def f(m, a, b, t):
        return where(m, a, b), np.where(m, a, b), t.where(m, b)
    """
    assert rules_found(code) == []


def test_not_rewritten_when_arguments_hidden_or_condition_costly() -> None:
    code = """
    import torch
    def f(m, a, b, args, out, net, x):
        y = torch.where(*args)
        z = torch.where(m, a, b, out=out)
        w = torch.where(net(x) > 0, a, b)
        v = torch.where(m, a.exp() * 2, 3.0)
        return y, z, w, v
    """
    assert rules_found(code) == ["TRT102", "TRT102", "TRT102", "TRT102"]
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_uint8_mask_uses_logical_not() -> None:
    """`~` on a uint8 mask is a bitwise not (255/254): a name condition gets `.logical_not()`."""
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    m = torch.tensor([1, 0, 1], dtype=torch.uint8)
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([-1.0, -2.0, -3.0])
    assert_same(load(after, "f")(m, a, b), torch.tensor([1.0, -2.0, 3.0]))


@pytest.mark.parametrize("call,expected_text", [
    ("torch.where(m, 1.0, 0.0)", "1.0 * m"),
    ("torch.where(m, 1, 0)", "1 * m"),
    ("torch.where(m, 0, 2.5)", "2.5 * m.logical_not()"),
    ("torch.where(m, 3, -2.5)", "3 * m + (-2.5) * m.logical_not()"),
    ("torch.where(m, x, 0)", "x * m + 0"),
    ("torch.where(m, 0.0, x)", "x * m.logical_not() + 0.0"),
    ("torch.where(m, x, -3)", "x * m + m.logical_not().to(x.dtype) * (-3)"),
    ("torch.where(m, 7, x)", "x * m.logical_not() + m.to(x.dtype) * 7"),
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.int64])
def test_number_branches(call: str, expected_text: str, dtype: torch.dtype) -> None:
    code = f"import torch\ndef f(m, x):\n    return {call}\n"
    after = rewrite(code, unsafe=True)
    assert f"return {expected_text}\n" in after
    g = torch.Generator().manual_seed(2)
    m = torch.rand(2, 5, generator=g) > 0.4
    x = (torch.randn(2, 5, generator=g) * 4).to(dtype)
    assert_same([load(code, "f")(m, x)], [load(after, "f")(m, x)])


def test_nonzero_reported_not_rewritten() -> None:
    code = """
    import torch
    def f(iou, scores):
        rows, cols = torch.where(iou > 0.5)
        keep = torch.where(condition=scores > 0.1)[0]
        return rows, cols, keep
    """
    assert rules_found(code) == ["TRT103", "TRT103"]
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_nonzero_export_has_nonzero_node() -> None:
    """What TRT103 warns about is real: the one-argument form exports as NonZero."""
    f = load("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.where(x > 0)[0]\n",
             "M")()
    assert "NonZero" in onnx_ops(f, (torch.randn(5),))
