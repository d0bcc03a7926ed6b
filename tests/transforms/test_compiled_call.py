"""TRT392 compiled-call: ``torch.compile`` → ``_trt_compile``, whose compiled function runs the original while traced.

The forms (a call, the decorator bare and given keywords, an alias), the look-alikes (Python's own ``compile``,
``*args``), the helper's eager path (the compiled function, its backend called once), the original's TorchScript
export stopping at the compiled function and the rewrite's export equal to eager at other sizes, the other
toolchains unchanged, and ``migrate`` on AudioSeal's form (moshi's lazy compile) and on a decorator that ran at
import. The compiled functions here use a recording backend (``torch.compile(..., backend=...)``) so that no
kernel is generated.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.compiling import _trt_compile


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\nf = torch.compile(g)\n", "f = _trt_compile(g)\n"),
    ("import torch\nf = torch.compile(self.step, dynamic=True, backend=b)\n",
     "f = _trt_compile(self.step, dynamic=True, backend=b)\n"),
    ("import torch\n@torch.compile\ndef f(x):\n    return x\n", "@_trt_compile\ndef f(x):\n    return x\n"),
    ("from torch import compile as c\n@c(mode='max-autotune')\ndef f(x):\n    return x\n",
     "@_trt_compile(mode='max-autotune')\ndef f(x):\n    return x\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=("TRT392",))
    assert strip_helpers(after).endswith(want), after
    assert "def _trt_compile(" in after
    assert rules_found(after, select=("TRT392",)) == []
    assert rewrite(after, select=("TRT392",)) == after


@pytest.mark.parametrize("code", [
    "code = compile('x + 1', '<string>', 'eval')\n",  # Python's builtin
    "import torch\nf = torch.compile(*args)\n",
    "import torch\nf = torch.jit.script(g)\n",
    "import torch\n@torch.compiler.disable\ndef f(x):\n    return x\n",
    # flex attention compiles itself while traced: TRT315 takes its calls
    "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\n"
    "attend = torch.compile(flex_attention, mode='max-autotune-no-cudagraphs')\n",
])
def test_look_alikes_are_not_found(code: str) -> None:
    assert rules_found(code, select=("TRT392",)) == []


class _Recorder:
    """A ``torch.compile`` backend that counts its compilations and runs the captured graph as it is."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, graph_module, example_inputs):
        self.calls += 1
        return graph_module.forward


def _scaled(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x) * x.shape[-1] + x.flip(-1)


def test_the_helper_runs_the_compiled_function_outside_a_trace_and_the_original_inside() -> None:
    recorder = _Recorder()
    run = _trt_compile(_scaled, backend=recorder)
    assert run.__wrapped__ is _scaled and run.__name__ == "_scaled" and run.__module__ == _scaled.__module__
    x = torch.tensor([[0.0, -1.5, float("inf"), float("nan"), -0.0, 3.0]])
    assert torch.equal(run(x).nan_to_num(), _scaled(x).nan_to_num())
    assert recorder.calls == 1  # compiled, once
    traced = torch.jit.trace(run, (torch.randn(2, 6),), check_trace=False)  # the check would call it eagerly
    assert recorder.calls == 1  # the trace ran the original
    y = torch.randn(3, 6)
    assert torch.equal(traced(y), _scaled(y))
    assert any(node.kind() == "aten::tanh" for node in traced.graph.nodes())  # the original's operations
    decorated = _trt_compile(backend=recorder)(_scaled)
    assert torch.equal(decorated(torch.ones(1, 4)), _scaled(torch.ones(1, 4)))
    module = torch.nn.Linear(3, 2)
    assert type(_trt_compile(module, backend=recorder)).__name__ == "OptimizedModule"


PROGRAM = '''import torch


def _body(x):
    return torch.sigmoid(x) * x.shape[-1] - x.cumsum(-1)


_compiled = None


class Net(torch.nn.Module):
    def forward(self, x):
        global _compiled
        if _compiled is None:
            _compiled = torch.compile(_body, backend="eager")
        return _compiled(x)
'''


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt392")
    after = rewrite(PROGRAM, select=("TRT392",))
    assert "            _compiled = _trt_compile(_body, backend=\"eager\")\n" in after, after
    return import_source(PROGRAM, folder)["Net"], import_source(after, folder)["Net"]


def _export(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(2, 5),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "time"}})
    return buffer.getvalue()


EAGER = {
    "example": [torch.randn(2, 5, generator=torch.Generator().manual_seed(0))],
    "zeros": [torch.zeros(3, 4)],
    "negatives": [-torch.rand(1, 9, generator=torch.Generator().manual_seed(1)) * 100],
    "inf-nan": [torch.tensor([[float("inf"), float("nan"), -float("inf"), 1.0]])],
    "empty": [torch.zeros(0, 3)],
    "grad": [torch.randn(2, 3, requires_grad=True)],
}


@pytest.mark.parametrize("label", sorted(EAGER))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    assert_same_run(run_once(program[0](), EAGER[label]), run_once(program[1](), EAGER[label]), context=label)


def test_the_original_export_stops_and_the_rewrite_follows_every_size(program: tuple[type, type]) -> None:
    with pytest.raises(RuntimeError, match="dynamo-optimized function"):
        _export(program[0]())
    session = ort.InferenceSession(_export(program[1]()))
    reference = program[0]()
    for x in (torch.randn(1, 11), torch.randn(4, 2), torch.zeros(2, 7), -torch.rand(3, 3) * 50):
        [got] = session.run(None, {"x": x.numpy()})
        np.testing.assert_allclose(got, reference(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(2, 4)], tmp_path, original_may_fail=True)


MOSHI_LAZY = '''"""Kyutai moshi's lazy compile as AudioSeal 0.2.0 ships it (audioseal/libs/moshi/utils/compile.py:35-55): the
first call compiles the wrapped method, every call runs the compiled one."""
from functools import wraps

import torch


def torch_compile_lazy(fun):
    fun_compiled = None

    @wraps(fun)
    def _wrapped(*args, **kwargs):
        nonlocal fun_compiled
        if fun_compiled is None:
            fun_compiled = torch.compile(fun, backend="eager")
        return fun_compiled(*args, **kwargs)

    return _wrapped


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 4, 3, padding=1)

    @torch_compile_lazy
    def forward(self, x):
        return torch.tanh(self.conv(x)).mean(1, keepdim=True) + x


def build():
    return Encoder()


def inputs(g):
    return (torch.randn(2, 1, 40, generator=g),)
'''

DECORATED = '''import torch


@torch.compile(backend="eager")
def gate(x):
    return x * torch.sigmoid(x[..., :1])


class Net(torch.nn.Module):
    def forward(self, x):
        return gate(x) - x.amax(-1, keepdim=True)


def build():
    return Net()


def inputs(g):
    return (torch.randn(2, 6, generator=g),)
'''


@pytest.mark.parametrize(("source", "line"), [(MOSHI_LAZY, 15), (DECORATED, 4)])
def test_migrate_applies_trt392_and_ends_equivalent(tmp_path: Path, source: str, line: int) -> None:
    path = tmp_path / "model.py"
    path.write_text(source)
    axes = '{"x": {"0": "batch", "%d": "time"}}' % (2 if "Conv1d" in source else 1)
    report = migrate_json(path, axes)
    assert report["before"]["exported"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT392", line)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True
