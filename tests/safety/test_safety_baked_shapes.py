"""The contract for TRT712's rewrite (integer arithmetic on sizes), before vs after.

Hypothesis draws tensor shapes (empty axes included) and dtypes; each program is
rewritten by the real engine with --unsafe and compared with tests/safety.py's comparator
(values, dtypes, shapes, strides, gradients, aliasing, exceptions). The program is also
run under torch.jit.script, torch.fx, torch.compile and torch.export: wherever the
original works the rewrite must work and agree, and where the original fails (fx cannot
call math.ceil on a traced size) the rewrite may do better.
"""

from __future__ import annotations

from pathlib import Path

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import HealthCheck, given, settings

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite

HEADER = "import math\nimport torch\nfrom torch import nn\n\n"

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
    return f"{HEADER}class M(nn.Module):\n    def forward(self, x):\n{lines}"


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
