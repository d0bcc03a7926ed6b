"""TRT345: ``x.unflatten(dim, sizes)`` / ``torch.unflatten(x, dim, sizes)`` → ``_trt_unflatten``.

The rewrite text for every form the rule takes, the forms it reports without a fix and the calls
it leaves alone; the helper's export-time view is ``unflatten``'s result bit for bit (values, shape,
strides, storage) at negative axes, ``-1`` sizes, strided and empty inputs, infinities and NaN, and
it raises where ``unflatten`` raises; eager mode and the toolchains (``torch.jit.script``, fx,
compile, export) are unchanged; the original's TorchScript export bakes the traced batch into every
later ``Reshape`` while the rewritten one's graph equals eager mode at other batch sizes; and
``migrate``'s plan ties the second trace's first difference, found at a line far from the call, to
the finding.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from snippets import EDGE_TENSORS
from support import rewrite, rules_found

from trtcodemod.helpers.splitting import _trt_unflatten, _trt_unflatten_takes, _trt_unflatten_view
from trtcodemod.migrate.locate import FAILS_TO_RUN, Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.migrate.retrace import RETRACED_GRAPH


def _fixed(code: str) -> str:
    return rewrite("import torch\n\n\n" + code, select=("TRT345",))


@pytest.mark.parametrize(("code", "want"), [
    ("y = x.unflatten(2, f.shape[2:])\n", "y = _trt_unflatten(x, 2, f.shape[2:])\n"),
    ("y = torch.unflatten(x, -1, (-1, 2))\n", "y = _trt_unflatten(x, -1, (-1, 2))\n"),
    ("y = torch.unflatten(input=x, dim=1, sizes=[h, w])\n", "y = _trt_unflatten(x, 1, [h, w])\n"),
    ("y = torch.unflatten(x, sizes=(2, 3), dim=0)\n", "y = _trt_unflatten(x, 0, (2, 3))\n"),
    ("y = feats.unflatten(0, sizes=(batch_size, frames))\n", "y = _trt_unflatten(feats, 0, (batch_size, frames))\n"),
    ("y = x.unflatten(dim=-1, sizes=(self.hc_count, self.hidden_size))\n",
     "y = _trt_unflatten(x, -1, (self.hc_count, self.hidden_size))\n"),
    ("y = (a + b).unflatten(1, sizes)\n", "y = _trt_unflatten(a + b, 1, sizes)\n"),
    ("y = x.unflatten(1, (-1, d)).unflatten(-1, (-1, d))\n",
     "y = _trt_unflatten(_trt_unflatten(x, 1, (-1, d)), -1, (-1, d))\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_unflatten(" in after  # the helper is inserted with the call


def test_the_call_keeps_its_layout_and_the_alias() -> None:
    code = ("import torch as T\nfrom torch import unflatten\n\n"
            "a = T.unflatten(\n    x,\n    1,\n    (2, -1),\n)\nb = unflatten(y, 0, [1, -1])\n")
    assert rewrite(code, select=("TRT345",)).endswith(
        "a = _trt_unflatten(\n    x,\n    1,\n    (2, -1),\n)\nb = _trt_unflatten(y, 0, [1, -1])\n")


def test_a_chain_is_one_finding() -> None:
    """ESMFold's outer product splits both axes in one expression: one finding rewrites both calls."""
    source = "import torch\n\n\ny = x.unflatten(1, (-1, d)).unflatten(-1, (-1, d)).transpose(2, 3)\n"
    assert rules_found(source, select=("TRT345",)) == ["TRT345"]
    assert rewrite(source, select=("TRT345",)).endswith(
        "y = _trt_unflatten(_trt_unflatten(x, 1, (-1, d)), -1, (-1, d)).transpose(2, 3)\n")


def test_unpacked_arguments_are_reported_without_a_fix() -> None:
    source = "import torch\n\n\ny = x.unflatten(*args)\nz = torch.unflatten(x, **kw)\n"
    assert rules_found(source, select=("TRT345",)) == ["TRT345", "TRT345"]
    assert rewrite(source, select=("TRT345",)) == source


@pytest.mark.parametrize("code", [
    "out = self.unflatten(outputs)\n",  # a pytree's or a runner's unflatten: one argument
    "out = spec.unflatten(leaves, treedef, extra)\n",  # three arguments: not the tensor method
    "y = x.unflatten('C', (('C1', 2), ('C2', 3)))\n",  # named tensors
    "y = torch.flatten(x, 1)\nf = torch.unflatten\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found("import torch\n\n\n" + code, select=("TRT345",)) == []


# --- eager mode: the export-time view is unflatten's result ----------------------------------------

#: (tensor, dim, sizes): negative axes, -1, one size, three sizes, strided and empty inputs, infinities.
CASES = {
    "middle": (torch.arange(24.0).reshape(2, 12, 1), 1, (3, 4)),
    "last-negative": (torch.arange(24.0).reshape(2, 12), -1, (-1, 2)),
    "first": (torch.arange(24).reshape(6, 4), 0, (2, -1)),
    "one-size": (torch.arange(6.0).reshape(2, 3), 1, (3,)),
    "three-sizes": (torch.arange(48.0).reshape(2, 24), 1, (2, 3, 4)),
    "strided": (torch.arange(24.0).reshape(4, 6).t(), 1, (2, 2)),
    "strided-first": (torch.arange(24.0).reshape(4, 6).t(), -2, (3, 2)),
    "sliced": (torch.arange(48.0).reshape(4, 12)[:, ::2], 1, (2, 3)),
    "empty-batch": (torch.zeros(0, 6), 1, (2, 3)),
    "empty-axis": (torch.zeros(3, 0), 1, (0, 5)),
    "inf-nan-negzero": (torch.tensor([[float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0]]), 1, (3, 2)),
    "bool": (torch.tensor([[True, False, True, False]]), 1, (2, 2)),
    "1-d": (torch.arange(6.0), 0, (2, 3)),
    "traced-size-tensor": (torch.arange(12.0).reshape(2, 6), 1, (torch.tensor(3), 2)),
}


@pytest.mark.parametrize("label", list(CASES))
def test_the_view_is_unflattens_result(label: str) -> None:
    x, dim, sizes = CASES[label]
    want = torch.unflatten(x, dim, [int(s) for s in sizes])
    assert _trt_unflatten_takes(x, dim, sizes)
    got = _trt_unflatten_view(x, dim, sizes)
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride(), label
    assert got.storage_offset() == want.storage_offset()
    assert got.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()  # a view, as unflatten's
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.signbit(), want.signbit())


def test_the_view_keeps_gradients() -> None:
    x = torch.randn(2, 12, requires_grad=True)
    y = x.detach().clone().requires_grad_()
    weights = torch.arange(24.0).reshape(2, 3, 4)
    (torch.unflatten(x, 1, (3, 4)) * weights).sum().backward()
    (_trt_unflatten_view(y, 1, (3, 4)) * weights).sum().backward()
    assert torch.equal(x.grad, y.grad)


@pytest.mark.parametrize(("x", "dim", "sizes"), [
    (torch.tensor(1.0), 0, (1,)),  # 0-d
    (torch.zeros(2, 6), 2, (2, 3)),  # an axis out of range
    (torch.zeros(2, 1), 1, ()),  # no sizes (a view without the axis would succeed here)
    (torch.zeros(2, 6), 1, ((2, 3),)),  # not numbers
])
def test_what_unflatten_refuses_before_viewing_keeps_unflatten(x: torch.Tensor, dim: int, sizes: tuple) -> None:
    assert not _trt_unflatten_takes(x, dim, sizes)


@pytest.mark.parametrize(("x", "dim", "sizes"), [
    (torch.zeros(2, 6), 1, (4, -1)),  # does not multiply up
    (torch.zeros(2, 6), 1, (-1, -1)),  # two unknown sizes
    (torch.zeros(2, 0), 1, (0, -1)),  # -1 on an empty axis
    (torch.zeros(2, 6), 1, (4, 2)),
])
def test_sizes_that_do_not_fit_raise_as_unflatten_does(x: torch.Tensor, dim: int, sizes: tuple) -> None:
    with pytest.raises(RuntimeError):
        torch.unflatten(x, dim, sizes)
    with pytest.raises(RuntimeError):
        _trt_unflatten_view(x, dim, sizes)


PROGRAM = """import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        a = x.unflatten(-1, (-1, 1))
        b = torch.unflatten(x, 0, [1, -1])
        return a * 2, b + 1
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt345")
    after = rewrite(PROGRAM, select=("TRT345",))
    assert "a = _trt_unflatten(x, -1, (-1, 1))" in after and "b = _trt_unflatten(x, 0, [1, -1])" in after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", list(EDGE_TENSORS))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Outputs, aliasing, gradients and exceptions (0-d raises; an empty axis with -1 raises)."""
    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)
    if label == "0-d":
        assert run_once(before, [x]).error is not None  # the exception is part of what is kept


@pytest.mark.parametrize("label", ["example", "zeros", "inf-nan", "strided", "3-d"])
def test_the_toolchains_give_the_originals_results(program: tuple[type, type], label: str, tmp_path: Path) -> None:
    """torch.jit.script (a tuple of sizes passed as the helper's list), fx, torch.compile and torch.export."""
    x = EDGE_TENSORS[label]
    assert_same_toolchain_outcomes(program[0], program[1], [x], tmp_path)


def test_the_helper_is_unflatten_outside_an_export() -> None:
    x = torch.randn(2, 6)
    assert torch.equal(_trt_unflatten(x, 1, [2, 3]), torch.unflatten(x, 1, [2, 3]))
    with pytest.raises(RuntimeError):
        _trt_unflatten(torch.zeros(2, 6), 1, [4, 2])


# --- the TorchScript export: the batch stays dynamic ------------------------------------------------

#: The zoo model's idiom: 3x3 patches with `F.unfold`, the pixel axis unflattened back to the image's
#: height and width, then sizes read downstream (a `view` of the batch, as Perceiver's `space_to_depth`),
#: and a last-axis split into pairs (V-JEPA 2's rotary embedding) whose batch is read again.
EXPORTED = """import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        patches = F.unfold(x, 3, padding=1).unflatten(2, x.shape[2:])
        b, c, h, w = patches.shape
        flat = patches.view(b, c, h * w).transpose(1, 2)
        pairs = torch.unflatten(flat, -1, (-1, x.shape[1] + 1))  # a size the exporter traces as a 0-d tensor
        return pairs.reshape(pairs.shape[0], -1) * 2 + 1
"""


def _export(model: torch.nn.Module, x: torch.Tensor, *, strict: bool = False) -> onnx.ModelProto:
    """The TorchScript export with a dynamic batch; ``strict``: a TracerWarning (a traced value read
    into Python, as ``numel()`` of a traced size would be) fails it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if strict:
            warnings.simplefilter("error", torch.jit.TracerWarning)
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
        return onnx.load_from_string(buffer.getvalue())


def _reshape_constants(model: onnx.ModelProto) -> list[list[int]]:
    """The shapes the graph's Reshape nodes take as constants."""
    constants = {n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t).tolist()
                 for n in model.graph.node if n.op_type == "Constant"}
    constants.update({i.name: onnx.numpy_helper.to_array(i).tolist() for i in model.graph.initializer})
    return [constants[n.input[1]] for n in model.graph.node if n.op_type == "Reshape" and n.input[1] in constants]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt345_onnx")
    after = rewrite(EXPORTED, select=("TRT345",))
    assert after.count("_trt_unflatten(") == 3  # two calls and the helper's definition
    before_model, after_model = import_source(EXPORTED, folder)["M"](), import_source(after, folder)["M"]()
    example = torch.randn(3, 2, 5, 4)
    return {"before": before_model, "original": _export(before_model, example),
            "rewritten": _export(after_model, example, strict=True)}


def test_the_originals_export_bakes_the_traced_batch(exported: dict) -> None:
    assert any(shape and shape[0] == 3 for shape in _reshape_constants(exported["original"]))
    session = ort.InferenceSession(exported["original"].SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime's error type is its own
        session.run(None, {"x": np.zeros((2, 2, 5, 4), dtype=np.float32)})


def test_the_rewritten_export_bakes_no_batch(exported: dict) -> None:
    assert not any(shape and shape[0] == 3 for shape in _reshape_constants(exported["rewritten"]))


GRAPH_INPUTS = {
    "example-batch": torch.randn(3, 2, 5, 4), "batch-1": torch.randn(1, 2, 5, 4), "batch-2": torch.randn(2, 2, 5, 4),
    "batch-7": torch.randn(7, 2, 5, 4), "zeros": torch.zeros(4, 2, 5, 4), "negatives": -torch.rand(2, 2, 5, 4) - 0.5,
    "inf-nan": torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1.0]).repeat(2, 2, 4, 1).transpose(2, 3),
}


@pytest.mark.parametrize("label", list(GRAPH_INPUTS))
def test_the_rewritten_graph_equals_eager(exported: dict, label: str) -> None:
    x = GRAPH_INPUTS[label].contiguous()
    session = ort.InferenceSession(exported["rewritten"].SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"x": x.numpy()})
    with torch.no_grad():
        want = exported["before"](x)
    assert got.shape == tuple(want.shape) and np.array_equal(got, want.numpy(), equal_nan=True)


# --- migrate: the symptom is far from the call -------------------------------------------------------

class _Finding:
    def __init__(self, rule: str) -> None:
        self.rule, self.path, self.line, self.column, self.end_line, self.end_column = rule, "/m/model.py", 21, 8, 21, 60


@pytest.mark.parametrize(("op", "kind", "line", "want"), [
    (RETRACED_GRAPH, "baked", 2346, True),  # the second trace's first difference, in a library's file
    (FAILS_TO_RUN, "unfaithful", 80, True),  # a Reshape that ONNX Runtime refuses at another batch
    ("(traced constant)", "baked", 2346, False),  # a number read elsewhere: another construct's
    ("If", "hostile", 2346, False),
])
def test_the_plan_ties_a_downstream_size_bake_to_the_call(op: str, kind: str, line: int, want: bool) -> None:
    problem = Problem(kind, "/lib/modeling.py", line, op, None, "a value computed from an input size is baked in")
    assert matches(problem, _Finding("TRT345")) is want
    assert not matches(problem, _Finding("TRT306"))  # only a rule that erases the sizes
