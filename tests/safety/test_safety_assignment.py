"""The safety contract (tests/safety.py) for TRT204's safe fix, on drawn tensors.

Each program is rewritten by the engine with default options (safe fixes only); hypothesis
draws tensors of every dtype, shape and layout, edge values included, and every property
(values bit for bit, dtype, shape, strides, requires_grad, gradients, aliasing, the
exception raised) is compared before and after, in eager mode and, where the original
works, under torch.jit.script, torch.fx, torch.compile and torch.export. The export
formulation (what the ONNX graph computes) is compared on the same inputs too.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import given

from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, rewrite
from test_safety import SETTINGS, tensors

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


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
            source = HEADER + body
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
    source = HEADER + PROGRAMS[0][0].replace("t[s > 0] = 0.0", "t.masked_fill_(s > 0, 0.0)")
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        wrong = import_source(source, Path(folder))["M"]
        inputs = [torch.randn(3, 3), torch.tensor([1.0, -1.0, -1.0])]
        with pytest.raises(AssertionError):
            assert_same_run(run_once(loaded.table[0][0](), inputs), run_once(wrong(), inputs))
