"""The safety contract (tests/safety.py) applied to TRT304 (safe) and TRT404 (unsafe).

TRT304's rewrite (one-operand einsum → permute) must keep everything, bit for bit: values,
dtype, shape, strides, aliasing, gradients and exceptions, on drawn tensors of every dtype
and layout, and under TorchScript, fx, compile and export.

TRT404's rewrite (repeat → expand on a new size-1 axis) is unsafe: within its stated
assumptions the values, shapes, dtypes and gradients are the same, and the comparator must
catch what the documentation says changes (the result becomes a view of the input).
TRT303's unsafe rewrite is compared with a rounding bound in tests/transforms/test_einsum.py.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import given

from drawn import FLOATS, INTEGERS, SETTINGS, tensors
from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def _pair(code: str, folder, **options) -> tuple[type, type]:
    source = HEADER + code
    after = rewrite(source, **options)
    assert after != source, "the fix did not apply"
    return import_source(source, folder)["M"], import_source(after, folder)["M"]


# --- TRT304: safe ---------------------------------------------------------------------------

# Annotated: the fix is safe only where the operand is evidently a tensor (see its doc).
PERMUTE_PROGRAMS = [
    ("class M(nn.Module):\n    def forward(self, x: torch.Tensor):\n        return torch.einsum('bchw->bhwc', x)\n", 4),
    ("class M(nn.Module):\n    def forward(self, x: torch.Tensor):\n        return torch.einsum('ij->ji', x) * 2\n", 2),
    ("class M(nn.Module):\n    def forward(self, x: torch.Tensor):\n        return torch.einsum('abc->abc', x)\n", 3),
    ("class M(nn.Module):\n    def forward(self, x: torch.Tensor):\n        return torch.einsum('i->i', x)\n", 1),
]


@pytest.fixture(scope="module")
def permute_programs(tmp_path_factory) -> list[tuple[type, type]]:
    folder = tmp_path_factory.mktemp("trt304")
    return [_pair(code, folder, target="8.0") for code, _ in PERMUTE_PROGRAMS]


class _Programs:
    """Holds the loaded programs (hypothesis prints arguments; keep the repr short)."""

    def __init__(self, items) -> None:
        self.items = items

    def __repr__(self) -> str:
        return "<programs>"


@pytest.mark.parametrize("number", range(len(PERMUTE_PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_trt304_eager_contract(permute_programs, number: int, data: st.DataObject) -> None:
    before_type, after_type = permute_programs[number]
    rank = PERMUTE_PROGRAMS[number][1]
    # Mostly the equation's rank; sometimes another, where both forms must raise alike.
    x = data.draw(tensors(dtypes=FLOATS + INTEGERS + (torch.bool,), min_dim=0, max_dim=4)
                  if data.draw(st.integers(0, 4)) == 0 else
                  tensors(dtypes=FLOATS + INTEGERS + (torch.bool,), min_dim=rank, max_dim=rank))
    before = run_once(before_type(), [x])
    after = run_once(after_type(), [x])
    assert_same_run(before, after)


@pytest.mark.parametrize("number", range(len(PERMUTE_PROGRAMS)))
def test_trt304_toolchains(permute_programs, tmp_path, number: int) -> None:
    before_type, after_type = permute_programs[number]
    rank = PERMUTE_PROGRAMS[number][1]
    x = torch.randn(*(2 + axis for axis in range(rank)))
    before = toolchain_outcomes(before_type, [x], tmp_path)
    after = toolchain_outcomes(after_type, [x], tmp_path)
    worked = [name for name, result in before.items() if not isinstance(result, Exception)]
    assert set(worked) == {"script", "fx", "fx+script", "compile", "export"}, before
    for name in worked:
        assert not isinstance(after[name], Exception), f"{name}: {after[name]!r}"
        assert_same_run(Run([x], before[name]), Run([x], after[name]), context=name)


def test_trt304_keeps_the_view() -> None:
    """The rewritten call is a view of its input, as einsum's permutation is."""
    x = torch.randn(2, 3, 4, 5, requires_grad=True)
    y = torch.einsum("bchw->bhwc", x)
    z = x.permute(0, 2, 3, 1)
    assert y._base is x and z._base is x and y.stride() == z.stride()
    assert type(y.grad_fn) is type(z.grad_fn)


# --- TRT404: unsafe -------------------------------------------------------------------------

REPEAT_PROGRAMS = [
    # (code, rank of x, how the count is drawn)
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return x.unsqueeze(0).repeat(n, 1, 1)\n", 2),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return x[..., None].repeat(1, 1, n) + 1\n", 2),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return torch.unsqueeze(x, 0).repeat(n, 1)\n", 1),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return x.unsqueeze(-2).repeat(1, n, 1)\n", 2),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return x.unsqueeze(1).repeat(1, n, 1)\n", 2),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n"
     "        return x[:, None, None, :].repeat(1, n, 1, 1)\n", 2),
    ("class M(nn.Module):\n    def forward(self, x, n: int):\n        return x[None, :, None].repeat(1, 1, n)\n", 1),
]


@pytest.fixture(scope="module")
def repeat_programs(tmp_path_factory) -> _Programs:
    folder = tmp_path_factory.mktemp("trt404")
    return _Programs([_pair(code, folder, unsafe=True, select=("TRT404",)) for code, _ in REPEAT_PROGRAMS])


def _without_aliasing(run: Run) -> Run:
    """The run with its output copied: what remains when aliasing is set aside."""
    if isinstance(run.output, torch.Tensor):
        run.output = run.output.detach().clone(memory_format=torch.contiguous_format).requires_grad_(
            run.output.requires_grad)
    return run


@pytest.mark.parametrize("number", range(len(REPEAT_PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_trt404_same_values_within_assumptions(repeat_programs, number: int, data: st.DataObject) -> None:
    """Counts are sizes (>= 0) and x has the rank the counts imply: values, shape, dtype, gradients agree."""
    before_type, after_type = repeat_programs.items[number]
    rank = REPEAT_PROGRAMS[number][1]
    x = data.draw(tensors(dtypes=FLOATS + INTEGERS + (torch.bool,), min_dim=rank, max_dim=rank))
    n = data.draw(st.integers(0, 4))
    before = _without_aliasing(run_once(before_type(), [x, n]))
    after = _without_aliasing(run_once(after_type(), [x, n]))
    assert_same_run(before, after)


def test_trt404_comparator_catches_the_view(repeat_programs) -> None:
    """What makes TRT404 unsafe is real: the result aliases the input, and writes to it fail."""
    before_type, after_type = repeat_programs.items[0]
    x = torch.randn(3, 4)
    with pytest.raises(AssertionError, match="aliasing|strides"):
        assert_same_run(run_once(before_type(), [x, 2]), run_once(after_type(), [x, 2]))
    out = after_type()(x, 2)
    with pytest.raises(RuntimeError):
        out.add_(1)
    before_type()(x, 2).add_(1)  # the copy takes writes


def test_trt404_negative_count_differs(repeat_programs) -> None:
    before_type, after_type = repeat_programs.items[0]
    x = torch.randn(3, 4)
    with pytest.raises(RuntimeError):
        before_type()(x, -1)
    assert after_type()(x, -1).shape == (1, 3, 4)


@pytest.mark.parametrize("number", range(len(REPEAT_PROGRAMS)))
def test_trt404_fewer_axes_raise_or_agree(repeat_programs, number: int) -> None:
    """Outside the one-axis-per-count assumption (x of a rank below what the counts imply, where
    repeat adds leading axes) the rewrite raises or gives repeat's result, never other values."""
    before_type, after_type = repeat_programs.items[number]
    rank = REPEAT_PROGRAMS[number][1]
    for shape in [(3, 4, 5)[:r] for r in range(rank)] + [(1,) * r for r in range(rank)]:
        for n in (0, 1, 3):
            x = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
            before, after = run_once(before_type(), [x, n]), run_once(after_type(), [x, n])
            if after.error is None:
                assert before.error is None and torch.equal(before.output, after.output), (shape, n)


def test_trt404_toolchains(repeat_programs, tmp_path) -> None:
    """Wherever the original scripts, fx-traces, compiles or exports, the rewrite does, with equal values."""
    for (before_type, after_type), (_, rank) in zip(repeat_programs.items, REPEAT_PROGRAMS):
        inputs: list[Any] = [torch.randn(*(3 + axis for axis in range(rank))), 3]
        before = toolchain_outcomes(before_type, inputs, tmp_path)
        after = toolchain_outcomes(after_type, inputs, tmp_path)
        worked = [name for name, result in before.items() if not isinstance(result, Exception)]
        assert "script" in worked and "compile" in worked, before
        for name in worked:
            assert not isinstance(after[name], Exception), f"{name}: {after[name]!r}"
            assert torch.equal(before[name], after[name]), name
