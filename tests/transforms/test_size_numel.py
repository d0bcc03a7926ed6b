"""TRT346: ``x.shape[1:].numel()`` (``numel`` of a ``torch.Size``) → ``_trt_size_numel``.

The rewrite text for every form the rule takes and the code it leaves alone; the helper is
``numel()`` outside an export (empty sizes, zero sizes, non-``Size`` values and their errors); eager
mode and the toolchains (``torch.jit.script``, where the original does not compile, fx, compile,
export) give the original's results; the original's TorchScript export keeps the traced count with
no TracerWarning while the rewritten graph equals eager mode at other heights, widths and batches;
``migrate``'s plan ties the second trace's first difference to the finding.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from snippets import EDGE_TENSORS
from support import rewrite, rules_found

from trtcodemod.helpers.numel import _trt_size_numel
from trtcodemod.migrate.locate import FAILS_TO_RUN, Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.migrate.retrace import RETRACED_GRAPH


def _fixed(code: str) -> str:
    return rewrite("import torch\n\n\n" + code, select=("TRT346",))


@pytest.mark.parametrize(("code", "want"), [
    ("n = pixel_values.shape[1:].numel()\n", "n = _trt_size_numel(pixel_values.shape[1:])\n"),
    ("n = x.shape.numel()\n", "n = _trt_size_numel(x.shape)\n"),
    ("n = x.size()[:-1].numel()\n", "n = _trt_size_numel(x.size()[:-1])\n"),
    ("n = x.size().numel()\n", "n = _trt_size_numel(x.size())\n"),
    ("n = (x.shape[2:]).numel()\n", "n = _trt_size_numel(x.shape[2:])\n"),
    ("n = self.proj(x).shape[1:-1].numel()\n", "n = _trt_size_numel(self.proj(x).shape[1:-1])\n"),
    ("counts = [f.shape[2:].numel() for f in feats]\n", "counts = [_trt_size_numel(f.shape[2:]) for f in feats]\n"),
    ("def f(x):\n    s = x.shape[2:]\n    return x.reshape(2, s.numel())\n",
     "def f(x):\n    s = x.shape[2:]\n    return x.reshape(2, _trt_size_numel(s))\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_size_numel(" in after  # the helper is inserted with the call


@pytest.mark.parametrize("code", [
    "n = x.numel()\n",  # a tensor's own numel: the trace records it
    "n = torch.numel(x)\n",
    "n = x.shape[1].numel()\n",  # one size, not a Size
    "n = x.size(1).numel()\n",
    "n = x.shape[1:].numel(0)\n",  # not torch.Size.numel's arguments
    "n = shape.numel()\n",  # a name bound nowhere here: a tensor, maybe
    "def f(s):\n    return s.numel()\n",  # a parameter
    "def f(x):\n    s = x.shape[2:]\n    s = x\n    return s.numel()\n",  # bound twice
    "def f(x):\n    s = x.flatten()\n    return s.numel()\n",  # bound to a tensor
    "def f(x):\n    for s in x.shape:\n        pass\n    return s.numel()\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert "TRT346" not in rules_found("import torch\n\n\n" + code)


# --- the helper outside an export ------------------------------------------------------------------

@pytest.mark.parametrize("shape", [torch.Size([]), torch.Size([0]), torch.Size([3, 0, 2]), torch.Size([2, 3, 4]),
                                   torch.Size([1]), torch.Size([7, 1, 1, 5]), torch.zeros(2, 3, 4).shape[1:]])
def test_the_helper_is_numel_outside_an_export(shape: torch.Size) -> None:
    got = _trt_size_numel(shape)
    assert type(got) is int and got == shape.numel()


def test_what_has_no_numel_raises_as_before() -> None:
    with pytest.raises(AttributeError):
        _trt_size_numel((2, 3))  # a tuple (a NumPy array's shape) has no numel
    with pytest.raises(AttributeError):
        (2, 3).numel()  # type: ignore[attr-defined]
    tensor = torch.ones(2, 3)  # anything with a numel of its own keeps it
    assert _trt_size_numel(tensor) == 6


# --- eager and the toolchains ------------------------------------------------------------------------

PROGRAM = """import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        rest = x.shape[1:]
        per_row = rest.numel()
        return x.reshape(-1) * x.shape.numel() - per_row, (x == 0).reshape(-1).sum() != x.size()[:1].numel()
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt346")
    after = rewrite(PROGRAM, select=("TRT346",))
    assert after.count("_trt_size_numel(") == 3 + 1  # three calls and the helper's definition
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", list(EDGE_TENSORS))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Outputs, dtypes, gradients and exceptions (a 0-d tensor's `shape[:1]` is empty: its count is 1)."""
    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


@pytest.mark.parametrize("label", ["example", "zeros", "inf-nan", "strided", "3-d"])
def test_the_toolchains_give_the_originals_results(program: tuple[type, type], label: str, tmp_path: Path) -> None:
    """fx, torch.compile and torch.export as the original; torch.jit.script, where the original does not
    compile (a scripted shape is a `List[int]`, with no `numel`), gives eager mode's results; fx then
    script fails on both (fx keeps the `numel` call of either)."""
    x = EDGE_TENSORS[label]
    before, after = toolchain_outcomes(program[0], [x], tmp_path), toolchain_outcomes(program[1], [x], tmp_path)
    assert set(before) == set(after) == {"script", "fx", "fx+script", "compile", "export"}
    eager = program[0]()(x)
    for name, got in after.items():
        want = before[name]
        if name == "fx+script":  # fx records `numel` on the shape proxy, in either program: neither scripts
            assert isinstance(want, Exception) and isinstance(got, Exception), name
            continue
        if name == "script":
            assert isinstance(want, Exception), f"{name}: the original scripts now: update the doc"
            want = eager
        assert not isinstance(want, Exception), f"{name}: the original fails: {want!r}"
        assert not isinstance(got, Exception), f"{name}: {got!r}"
        for p, q in zip(want, got):
            assert p.dtype == q.dtype and torch.equal(p.nan_to_num(), q.nan_to_num()), name
            assert torch.equal(p.isnan(), q.isnan()), name


# --- the TorchScript export: the count follows the input -------------------------------------------

#: Idefics2's padding-image test (`(pixel_values == 0.0).sum(...) != pixel_values.shape[1:].numel()`), and
#: kornia's reshape to the per-patch count, on an image input whose batch, height and width are dynamic.
EXPORTED = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        per_image = x.shape[1:].numel()
        padding = (x == 0.0).sum(dim=(-1, -2, -3)) == per_image
        flat = x.reshape(x.shape[0], x.size()[1:].numel())
        return flat * 2 + padding.to(x.dtype)[:, None]
"""

#: Idefics2's test alone: the original's graph runs at every size, and compares with the example's count.
PADDING = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        return (x == 0.0).sum(dim=(-1, -2, -3)) != x.shape[1:].numel()
"""

AXES = {0: "batch", 2: "height", 3: "width"}


def _export(model: torch.nn.Module, x: torch.Tensor) -> tuple[bytes, list[str]]:
    """The TorchScript export with a dynamic batch, height and width, and its TracerWarnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": AXES})
    return buffer.getvalue(), [str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt346_onnx")
    after = rewrite(EXPORTED, select=("TRT346",))
    assert after.count("_trt_size_numel(") == 2 + 1  # two calls and the helper's definition
    before_model, after_model = import_source(EXPORTED, folder)["M"](), import_source(after, folder)["M"]()
    example = torch.randn(2, 3, 4, 6)
    example[1] = 0.0  # a padding image, so the comparison's true side is traced too
    original, original_warnings = _export(before_model, example)
    rewritten, rewritten_warnings = _export(after_model, example)
    padding_after = rewrite(PADDING, select=("TRT346",))
    padding = import_source(PADDING, folder)["M"](), import_source(padding_after, folder)["M"]()
    return {"before": before_model, "original": original, "rewritten": rewritten,
            "warnings": (original_warnings, rewritten_warnings),
            "padding": (padding[0], _export(padding[0], example)[0], _export(padding[1], example)[0])}


def _run(graph: bytes, x: torch.Tensor) -> np.ndarray:
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x.numpy()})[0]


def test_neither_export_warns(exported: dict) -> None:
    assert exported["warnings"] == ([], [])  # the original's bake is silent


def test_the_originals_export_keeps_the_traced_count(exported: dict) -> None:
    x = torch.randn(2, 3, 5, 7)
    with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime refuses the Reshape to 3 * 4 * 6 elements
        _run(exported["original"], x)


GRAPH_INPUTS = {
    "example-size": torch.randn(2, 3, 4, 6),
    "taller": torch.randn(2, 3, 9, 6),
    "wider-batch-3": torch.randn(3, 3, 4, 11),
    "batch-1": torch.randn(1, 3, 5, 5),
    "zeros": torch.zeros(3, 3, 7, 2),
    "a padding image": torch.cat([torch.zeros(1, 3, 5, 8), torch.randn(1, 3, 5, 8)]),
    "negatives": -torch.rand(2, 3, 6, 3) - 0.5,
    "inf-nan": torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1.0]).repeat(2, 3, 4, 1),
    "empty": torch.zeros(2, 3, 0, 5),
}


@pytest.mark.parametrize("label", list(GRAPH_INPUTS))
def test_the_rewritten_graph_equals_eager(exported: dict, label: str) -> None:
    x = GRAPH_INPUTS[label]
    got = _run(exported["rewritten"], x)
    with torch.no_grad():
        want = exported["before"](x).numpy()
    assert got.shape == want.shape and np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("label", list(GRAPH_INPUTS))
def test_the_padding_test_follows_the_image_size(exported: dict, label: str) -> None:
    """The original's graph runs and silently keeps the example's count (3 * 4 * 6): at any other image size
    it calls a padding image real; the rewritten graph equals eager mode."""
    x = GRAPH_INPUTS[label]
    before, original, rewritten = exported["padding"]
    with torch.no_grad():
        want = before(x).numpy()
    assert np.array_equal(_run(rewritten, x), want)
    if label == "a padding image":
        assert not np.array_equal(_run(original, x), want)


# --- migrate: the symptom lies on the line that uses the count -------------------------------------

class _Finding:
    def __init__(self, rule: str) -> None:
        self.rule, self.path, self.line, self.column, self.end_line, self.end_column = rule, "/m/model.py", 21, 8, 21, 60


@pytest.mark.parametrize(("op", "kind", "line", "want"), [
    (RETRACED_GRAPH, "baked", 23, True),  # the second trace's first difference, at the Reshape two lines below
    (FAILS_TO_RUN, "unfaithful", 23, True),  # a Reshape that ONNX Runtime refuses at another height
    ("(traced constant)", "baked", 23, False),  # a number read elsewhere, with a warning: another construct's
])
def test_the_plan_ties_the_bake_to_the_call(op: str, kind: str, line: int, want: bool) -> None:
    problem = Problem(kind, "/m/model.py", line, op, None, "", "error", "torchscript")
    assert matches(problem, _Finding("TRT346")) is want


def test_a_silent_bake_finding_asks_for_the_second_trace(tmp_path: Path) -> None:
    """`migrate` traces again at other sizes where the code holds one, even when every observed set matched."""
    from trtcodemod.migrate.run import _silent_bake_found

    counted, plain = tmp_path / "counted.py", tmp_path / "plain.py"
    counted.write_text(PADDING)
    plain.write_text(PADDING.replace("x.shape[1:].numel()", "x[0].numel()"))
    assert _silent_bake_found([str(plain), str(counted)]) is True
    assert _silent_bake_found([str(plain)]) is False
    assert _silent_bake_found([str(tmp_path / "missing.py")]) is False


COUNT_USES = """import math
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if x.shape[2:].numel() > 4000:
            x = x * 2
        n = int(math.sqrt(x.shape[2:].numel()))
        return torch.tensor([x.shape[1:].numel(), x.shape[0]]) + n
"""


def test_the_count_is_a_size_for_the_size_rules_before_and_after_the_rewrite() -> None:
    """TRT713 (a guard on it), TRT712 (`int`/`math.sqrt` of it) and TRT716 (a tensor of it) see the count of a
    shape as a size, written as `numel()` or as TRT346's helper, so `migrate` can apply them after TRT346."""
    others = {"TRT712", "TRT713", "TRT716"}
    before = set(rules_found(COUNT_USES)) & others
    after = set(rules_found(rewrite(COUNT_USES, select=("TRT346",)))) & others
    assert before == after == others
