"""TRT102/TRT103: torch.where as a blend, and the one-argument nonzero form."""

from __future__ import annotations

import io
import math
import textwrap
import warnings

import pytest
import torch

import functools

import support
from support import assert_same, load, onnx_ops

# TRT102 matters only below TensorRT 8.4 (every later parser takes Where): test it there.
rewrite = functools.partial(support.rewrite, target="8.0")
rules_found = functools.partial(support.rules_found, target="8.0")
from transforms.where import WhereToBlend

#: The rule's doc on one line (its wrapping is no part of what it says).
DOC = " ".join(WhereToBlend.info.doc.split())

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
    assert "boxes = refined * keep[:, None] + anchors * torch.logical_not(keep[:, None])" in after
    assert "kept = scores * (scores > thresh) + torch.logical_not(scores > thresh).to(scores.dtype) * 0.0" in after
    assert "track = ids * keep + torch.logical_not(keep).to(ids.dtype) * (-1)" in after
    assert "level = ids * torch.logical_not(keep) + keep.to(ids.dtype) * 2.5" in after
    assert "flag = ids * keep + torch.logical_not(keep).to(ids.dtype) * 0" in after
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
    assert "return a * m + b * torch.logical_not(m)" in after
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
    assert "(inter / union) * valid + torch.zeros_like(inter) * torch.logical_not(valid)" in after
    inter, union = torch.tensor([0.0, 1.0]), torch.tensor([0.0, 2.0])  # 0/0 in the unselected slot
    expected = load(code, "iou")(inter, union)
    actual = load(after, "iou")(inter, union)
    assert torch.equal(expected, torch.tensor([0.0, 0.5]))
    assert torch.isnan(actual[0]) and actual[1] == 0.5
    # The finding says the guard is lost.
    from trtcodemod.engine import Options, check_source
    (finding,) = check_source(textwrap.dedent(code).encode(), "s.py", Options(select=("TRT102",), target="8.0"))
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
    assert "return a * m + b * th.logical_not(m), a * m + b * th.logical_not(m)" in after


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
    ("torch.where(m, 1.0, 0.0)", "m * 1.0 + torch.logical_not(m) * 0.0"),
    ("torch.where(m, 1, 0)", "m * 1 + torch.logical_not(m) * 0"),
    ("torch.where(m, 0, 2.5)", "m * 0 + torch.logical_not(m) * 2.5"),
    ("torch.where(m, 3, -2.5)", "m * 3 + torch.logical_not(m) * (-2.5)"),
    ("torch.where(m, x, 0)", "x * m + torch.logical_not(m).to(x.dtype) * 0"),
    ("torch.where(m, 0.0, x)", "x * torch.logical_not(m) + 0.0"),
    ("torch.where(m, 0.0, x * 2)", "(x * 2) * torch.logical_not(m) + 0.0"),
    ("torch.where(m, x, -3)", "x * m + torch.logical_not(m).to(x.dtype) * (-3)"),
    ("torch.where(m, 7, x)", "x * torch.logical_not(m) + m.to(x.dtype) * 7"),
    ("torch.where(m, x, True)", "x * m + torch.logical_not(m).to(x.dtype) * True"),
])
def test_number_branch_text(call: str, expected_text: str) -> None:
    code = f"import torch\ndef f(m, x):\n    return {call}\n"
    assert f"return {expected_text}\n" in rewrite(code, unsafe=True)


# --- number branches: exactly torch.where's dtype, shape and values ---------------------

#: Python numbers as written in a call: each kind promotes differently in torch.where.
LITERALS = ["0", "0.0", "2.5", "-1", "-2.5", "7", "True", "False", "1j", "2 ** 3", "1 / 4", "-True", "+3"]
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.complex64]
#: (branch shape, condition shape): broadcasting either way, 0-d, empty.
SHAPES = [((2, 5), (5,)), ((2, 5), (2, 1)), ((), (3,)), ((2, 5), ()), ((0, 5), (5,)), ((), ()), ((2, 5), (2, 5)),
          ((3, 4), (3, 4))]


def _branch(dtype: torch.dtype, shape: tuple, g: torch.Generator, specials: bool = True) -> torch.Tensor:
    """Zeros, negatives and positives of ``dtype``; with ``specials``, inf and NaN too where it has them."""
    values = torch.tensor([0.0, -1.5, 3.0, -7.0, 0.0, 2.0, -0.5, 11.0, 1.0, -3.0])
    count = math.prod(shape)
    x = values[torch.randint(0, len(values), (count,), generator=g)].reshape(shape)
    if specials and dtype.is_floating_point and count >= 4:
        x.view(-1)[:3] = torch.tensor([float("inf"), float("-inf"), float("nan")])
    if dtype == torch.bool:
        return x > 0
    if dtype == torch.uint8:
        return x.abs().to(dtype)
    return x.to(dtype)


def _mask(shape: tuple, g: torch.Generator, x: torch.Tensor, x_selected_where: bool) -> torch.Tensor:
    """A random condition that selects every inf/NaN of ``x`` (where torch.where and the blend agree)."""
    m = torch.rand(shape, generator=g) > 0.5
    if m.shape == x.shape and x.is_floating_point():
        special = ~torch.isfinite(x)
        m = m | special if x_selected_where else m & ~special
    return m


def _compare_calls(call: str, x_side: bool | None) -> list[str]:
    """Run ``call`` before and after the rewrite over every dtype and shape; the mismatches."""
    code = f"import torch\ndef f(m, x):\n    return {call}\n"
    after = rewrite(code, unsafe=True)
    assert after != code, f"{call} was not rewritten"
    before_f, after_f = load(code, "f"), load(after, "f")
    g = torch.Generator().manual_seed(7)
    problems = []
    for dtype in DTYPES:
        for x_shape, m_shape in SHAPES:
            # inf/NaN only where the mask can always select them (same shape).
            x = _branch(dtype, x_shape, g, specials=x_shape == m_shape)
            m = _mask(m_shape, g, x, x_selected_where=x_side is not False)
            try:
                expected = before_f(m, x)
            except RuntimeError as error:  # every input here is one torch.where takes: a refusal is a test bug
                problems.append(f"{call} {dtype} {x_shape}/{m_shape}: torch.where raised {error}")
                continue
            try:
                assert_same(expected, after_f(m, x))
            except AssertionError as error:
                problems.append(f"{call} {dtype} {x_shape}/{m_shape}: {str(error)[:200]}")
    return problems


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("literal", LITERALS)
@pytest.mark.parametrize("side", ["input", "other"])
def test_number_beside_tensor_is_exact(literal: str, side: str) -> None:
    """Values, dtype and shape of torch.where for a number literal beside a tensor, every dtype and shape."""
    call = f"torch.where(m, x, {literal})" if side == "input" else f"torch.where(m, {literal}, x)"
    assert _compare_calls(call, side == "input") == []


@pytest.mark.parametrize("first", LITERALS)
def test_two_numbers_are_exact(first: str) -> None:
    """Two numbers: torch.where's result_type of two scalars and the condition's shape."""
    problems = []
    for second in LITERALS:
        problems += _compare_calls(f"torch.where(m, {first}, {second})", None)
    assert problems == []


@pytest.mark.parametrize("call", ["torch.where(m, 0.0, x * 2)", "torch.where(m, 0, x[:, None])",
                                  "torch.where(m, False, x.abs())"])
def test_zero_selected_by_negation_beside_any_expression(call: str) -> None:
    code = f"import torch\ndef f(m, x):\n    return {call}\n"
    after = rewrite(code, unsafe=True)
    assert "+ 0" in after or "+ False" in after
    g = torch.Generator().manual_seed(3)
    for dtype in (torch.float32, torch.float16, torch.int32, torch.int64):
        for x_shape, m_shape in [((2, 5), (5,)), ((0, 5), (5,)), ((), ())]:
            x = _branch(dtype, x_shape, g, specials=x_shape == m_shape)
            m = _mask(m_shape, g, x, x_selected_where=False)
            if "None" in call and x.dim() == 0:
                continue
            assert_same(load(code, "f")(m, x), load(after, "f")(m, x))


def test_number_beside_an_expression_needs_a_name() -> None:
    """The number needs the tensor's dtype; an expression would be computed twice for it."""
    code = """
    import torch
    def f(m, x):
        return torch.where(m, x * 2, 2.5), torch.where(m, 0.0, x), torch.where(m, x.abs(), 0)
    """
    after = rewrite(code, unsafe=True)
    assert "torch.where(m, x * 2, 2.5)" in after and "torch.where(m, x.abs(), 0)" in after
    assert "x * torch.logical_not(m) + 0.0" in after
    from trtcodemod.engine import Options, check_source
    messages = [f.message for f in check_source(textwrap.dedent(code).encode(), "s.py", Options(select=("TRT102",), target="8.0"))]
    assert sum("assign that branch to a name first" in message for message in messages) == 2


@pytest.mark.parametrize("call", [
    "torch.where(m, x, y)", "torch.where(m, x, 0)", "torch.where(m, x, 0.0)", "torch.where(m, 0.0, x)",
    "torch.where(m, 2.5, -1)", "torch.where(m, 1, 0)", "torch.where(m, True, False)", "torch.where(m, x, -1)",
    "torch.where(m, 7, x)", "torch.where(m, 0, x * 2)",
])
@pytest.mark.parametrize("condition", [True, False, 1, 0])
def test_python_condition_raises_type_error(call: str, condition: bool | int) -> None:
    """torch.where wants a tensor condition; the blend must not turn a Python bool/int into a number."""
    code = f"import torch\ndef f(m, x, y):\n    return {call}\n"
    after = rewrite(code, unsafe=True)
    assert after != code
    x, y = torch.tensor([1.0, -2.0]), torch.tensor([3.0, 4.0])
    with pytest.raises(TypeError):
        load(code, "f")(condition, x, y)
    with pytest.raises(TypeError):
        load(after, "f")(condition, x, y)


def test_torch_imported_under_another_name_only() -> None:
    """`from torch import where`: the blend's `torch.logical_not` needs torch itself."""
    code = "from torch import where\ndef f(m, x):\n    return where(m, x, 2.5)\n"
    after = rewrite(code, unsafe=True)
    assert "import torch" in after
    m, x = torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int32)
    assert_same(load(code, "f")(m, x), load(after, "f")(m, x))


def test_number_held_in_a_name_is_taken_for_a_tensor() -> None:
    """The documented limit: `fill` may be a Python number, which promotes like a float32 tensor in the blend."""
    code = "import torch\ndef f(m, x, fill):\n    return torch.where(m, x, fill)\n"
    after = rewrite(code, unsafe=True)
    assert "return x * m + fill * torch.logical_not(m)\n" in after
    m, x = torch.tensor([True, False]), torch.tensor([1.0, 2.0], dtype=torch.float16)
    assert load(code, "f")(m, x, 2.5).dtype == torch.float16
    assert load(after, "f")(m, x, 2.5).dtype == torch.float32  # widened, as the doc says
    # With a tensor of the same dtype, the same result.
    assert_same(load(code, "f")(m, x, torch.tensor([5.0, 6.0], dtype=torch.float16)),
                load(after, "f")(m, x, torch.tensor([5.0, 6.0], dtype=torch.float16)))
    assert "held in a name" in DOC


def test_non_bool_tensor_condition_does_not_raise() -> None:
    """The documented limit: torch.where refuses a float condition; the blend multiplies by it."""
    code = "import torch\ndef f(m, x, y):\n    return torch.where(m, x, y)\n"
    after = rewrite(code, unsafe=True)
    m, x, y = torch.tensor([0.5, 0.0]), torch.tensor([2.0, 2.0]), torch.tensor([3.0, 3.0])
    with pytest.raises(RuntimeError):
        load(code, "f")(m, x, y)
    assert torch.equal(load(after, "f")(m, x, y), torch.tensor([1.0, 3.0]))
    assert "float or integer tensor condition" in DOC


def test_zero_dim_tensor_branch_may_widen() -> None:
    """The documented dtype corner: torch.where keeps the dimensioned int32, the sum takes the 0-d int64."""
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    m, a, b = torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int32), torch.tensor(-5)
    assert load(code, "f")(m, a, b).dtype == torch.int32
    assert load(after, "f")(m, a, b).dtype == torch.int64
    assert torch.equal(load(after, "f")(m, a, b), torch.tensor([1, -5]))
    assert "0-d tensor" in DOC


def test_uint8_condition_with_other_values_scales() -> None:
    """The documented uint8 limit: a 2 in the mask doubles the selected value (torch.where just selects)."""
    code = "import torch\ndef f(m, a, b):\n    return torch.where(m, a, b)\n"
    after = rewrite(code, unsafe=True)
    m, a, b = torch.tensor([2, 0], dtype=torch.uint8), torch.tensor([3.0, 3.0]), torch.tensor([5.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.equal(load(code, "f")(m, a, b), torch.tensor([3.0, 5.0]))
    assert torch.equal(load(after, "f")(m, a, b), torch.tensor([6.0, 5.0]))
    assert "uint8 condition" in DOC


def test_gradients_match_where() -> None:
    """Both branches get torch.where's gradients (zeros where not selected), NaN from sqrt(0) included."""
    code = """
    import torch
    def f(m, x, y):
        return torch.where(m, x.sqrt(), y) * 3, torch.where(m, y, -1.5), torch.where(m, 0.0, x)
    """
    after = rewrite(code, unsafe=True)
    assert "torch.where" not in after
    m = torch.tensor([True, False, False, True, False])
    grads = []
    for source in (code, after):
        x = torch.tensor([4.0, 0.0, 9.0, 0.0, 1.0], requires_grad=True)
        y = torch.tensor([-1.0, 2.0, 0.0, 5.0, -3.0], requires_grad=True)
        outputs = load(source, "f")(m, x, y)
        assert all(out.requires_grad for out in outputs)
        sum(out.sum() for out in outputs).backward()
        grads.append((x.grad, y.grad, [out.detach() for out in outputs]))
    assert_same(grads[0][2], grads[1][2])
    assert_same(grads[0][:2], grads[1][:2])
    # sqrt'(0) = inf at position 1, which torch.where does not select: NaN in both.
    assert torch.isnan(grads[0][0][1]) and torch.isnan(grads[1][0][1])


def test_infinite_upstream_gradient_gives_nan_to_the_branch_not_selected() -> None:
    """The documented gradient difference: inf * 0 in the blend's backward, a clean 0 in torch.where's."""
    code = "import torch\ndef f(m, x, y):\n    return torch.where(m, x, y)\n"
    after = rewrite(code, unsafe=True)
    m = torch.tensor([True, False])
    results = []
    for source in (code, after):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([3.0, 4.0], requires_grad=True)
        load(source, "f")(m, x, y).backward(torch.tensor([float("inf"), float("inf")]))
        results.append((x.grad, y.grad))
    assert torch.equal(results[0][0], torch.tensor([float("inf"), 0.0]))
    assert torch.isnan(results[1][0][1]) and torch.isnan(results[1][1][0])
    assert "inf/NaN upstream gradient" in DOC


def test_result_is_a_new_tensor() -> None:
    """Aliasing: torch.where never returns its input; neither does the blend (even x * True + 0)."""
    code = "import torch\ndef f(m, x):\n    return torch.where(m, x, 0.0), torch.where(m, 0, x)\n"
    after = rewrite(code, unsafe=True)
    x = torch.ones(3)
    for out in load(after, "f")(torch.tensor(True), x):
        assert out.data_ptr() != x.data_ptr()
        out.add_(1)
    assert torch.equal(x, torch.ones(3))


def test_doc_states_the_contract() -> None:
    doc = DOC
    for part in ("Values:", "Dtype and shape:", "Gradients:", "Aliasing:", "Exceptions:", "Toolchains:",
                 "TypeError", "inf * 0", "Signed", "0-d tensor", "held in a name", "uint8"):
        assert part in doc, part


SCALAR_MODEL = """
import torch
from torch import nn


class Fill(nn.Module):
    def forward(self, m, x, xi):
        a = torch.where(m, 2.5, -1)
        b = torch.where(m, x, 0)
        c = torch.where(m, 0.0, x * 2)
        d = torch.where(m, xi, 2.5)
        e = torch.where(m, True, 0)
        return a, b, c, d, e
"""


def test_number_branches_export_without_where_and_match_onnxruntime() -> None:
    import onnxruntime as ort

    # A bool number fails the TorchScript exporter before and after (`where(Tensor, bool, int)`,
    # `mul(Tensor, bool)`: a tracer gap the doc states); the dynamo exporter takes both.
    model = SCALAR_MODEL.replace("        e = torch.where(m, True, 0)\n", "").replace(", d, e", ", d")
    before = load(model, "Fill")()
    after = load(rewrite(model, unsafe=True), "Fill")()
    args = (torch.tensor([True, False, True, False]), torch.tensor([0.0, -1.5, 3.0, -2.0]),
            torch.tensor([0, -3, 5, 7], dtype=torch.int32))
    names = ["m", "x", "xi"]
    axes = {name: {0: "n"} for name in names}
    assert "Where" in onnx_ops(before, args, dynamic_axes=axes, input_names=names)
    assert "Where" not in onnx_ops(after, args, dynamic_axes=axes, input_names=names)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(after, args, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=axes)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    run = (torch.tensor([False, True, True, False, False, True]), torch.tensor([1.0, 0.0, -4.0, 2.5, -0.5, 8.0]),
           torch.tensor([1, 2, -3, 0, 9, -8], dtype=torch.int32))
    outputs = session.run(None, {name: arg.numpy() for name, arg in zip(names, run)})
    assert_same(list(before(*run)), [torch.from_numpy(out) for out in outputs])


def test_number_branches_script_and_fx_trace(tmp_path) -> None:
    """The blend keeps working where torch.where did: torch.jit.script (needs a file) and torch.fx."""
    import importlib.util

    import torch.fx

    path = tmp_path / "fill_after.py"
    path.write_text(rewrite(SCALAR_MODEL, unsafe=True))
    spec = importlib.util.spec_from_file_location("fill_after", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    eager = module.Fill()
    args = (torch.tensor([True, False, True]), torch.tensor([0.0, -1.5, 3.0]), torch.tensor([0, -3, 5]))
    expected = load(SCALAR_MODEL, "Fill")()(*args)
    assert_same(list(expected), list(torch.jit.script(eager)(*args)))
    assert_same(list(expected), list(torch.fx.symbolic_trace(eager)(*args)))


def test_nonzero_reported_not_rewritten() -> None:
    code = """
    import torch
    def f(iou, scores):
        rows, cols = torch.where(iou > 0.5)
        keep = torch.where(condition=scores > 0.1)[0]
        return rows, cols, keep
    """
    assert rules_found(code, select=("TRT1",)) == ["TRT103", "TRT103"]
    assert rules_found(code).count("TRT801") == 2  # and each threshold, on its comparison
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_nonzero_export_has_nonzero_node() -> None:
    """What TRT103 warns about is real: the one-argument form exports as NonZero."""
    f = load("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.where(x > 0)[0]\n",
             "M")()
    assert "NonZero" in onnx_ops(f, (torch.randn(5),))
