"""TRT306: ``tensor_split`` at written-out points → ``_trt_tensor_split``; into a written-out
number of sections → ``_trt_tensor_sections``.

The rewrite text for every form the rule takes, and the forms it reports without a fix; the
helpers' slices are ``tensor_split``'s parts bit for bit (values, dtype, shape, strides, storage
offset, the same storage) at negative points, points past the end, decreasing points, on an
empty axis and for every length and number of sections up to a bound; eager mode is unchanged
(outputs, gradients, exceptions); ``torch.jit.script``, ``torch.fx``, ``torch.compile`` and
``torch.export`` give the original's results; and both ONNX exporters write the rewritten model
without a sequence operator, its graph equal to eager mode at other sizes and on edge values.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from snippets import EDGE_TENSORS
from support import rewrite, rules_found

from trtcodemod.helpers.splitting import _trt_section_points, _trt_tensor_split_slices

#: Operators no TensorRT release parses, which the original's export holds.
SEQUENCE_OPS = {"SequenceEmpty", "SequenceInsert", "SequenceAt", "SequenceConstruct", "SplitToSequence",
                "ConcatFromSequence", "Loop"}


def _fixed(code: str) -> str:
    return rewrite("import torch\n\n\n" + code, select=("TRT306",))


@pytest.mark.parametrize(("code", "want"), [
    ("a, b = torch.tensor_split(x, (1,), dim=2)\n", "a, b = _trt_tensor_split(x, [1], 2)\n"),
    ("a, b = torch.tensor_split(x, indices=(1,), dim=2)\n", "a, b = _trt_tensor_split(x, [1], 2)\n"),
    ("a, b = torch.tensor_split(x, indices_or_sections=[1], dim=-1)\n", "a, b = _trt_tensor_split(x, [1], -1)\n"),
    ("a, b, c = torch.tensor_split(x, (2, 5))\n", "a, b, c = _trt_tensor_split(x, [2, 5])\n"),
    ("a, b, c = torch.tensor_split(x, [n, -n], -1)\n", "a, b, c = _trt_tensor_split(x, [n, -n], -1)\n"),
    ("a, b = torch.tensor_split(input=x, indices=[k], dim=0)\n", "a, b = _trt_tensor_split(x, [k], 0)\n"),
    ("a, b, c = x.tensor_split([a, b], d)\n", "a, b, c = _trt_tensor_split(x, [a, b], d)\n"),
    ("a, b = x.tensor_split((self.k,), dim=1)\n", "a, b = _trt_tensor_split(x, [self.k], 1)\n"),
    ("a, b = f(x).tensor_split([2 * h])\n", "a, b = _trt_tensor_split(f(x), [2 * h])\n"),
    ("a, b, c = x[0].tensor_split((1, 2,), -2)\n", "a, b, c = _trt_tensor_split(x[0], [1, 2], -2)\n"),
    ("parts = torch.tensor_split(x, 3, dim=1)\n", "parts = _trt_tensor_sections(x, 3, 1)\n"),
    ("a, b = x.tensor_split(2)\n", "a, b = _trt_tensor_sections(x, 2)\n"),
    ("parts = torch.tensor_split(x, indices_or_sections=4, dim=-1)\n", "parts = _trt_tensor_sections(x, 4, -1)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert f"def {want.split('= ')[1].split('(')[0]}(" in after  # the helper is inserted with the call


def test_the_call_keeps_its_layout() -> None:
    """Line breaks between the arguments and inside the points, a trailing comma, keywords in any order."""
    code = ("a, b, c = torch.tensor_split(\n    x,\n    (\n        h,\n        2 * h,\n    ),\n    dim=-1,\n)\n"
            "d, e = torch.tensor_split(x, dim=1, indices=(1,))\n"
            "f, g = y.tensor_split(\n    2, dim=0\n)\n")
    assert _fixed(code).endswith(
        "a, b, c = _trt_tensor_split(\n    x,\n    [\n        h,\n        2 * h\n    ],\n    -1,\n)\n"
        "d, e = _trt_tensor_split(x, [1], 1)\n"
        "f, g = _trt_tensor_sections(\n    y, 2, 0\n)\n")


def test_the_function_through_an_import_alias() -> None:
    after = rewrite("import torch as T\nfrom torch import tensor_split\n\n"
                    "a, b = T.tensor_split(x, (1,), 1)\nc, d = tensor_split(y, [2])\n", select=("TRT306",))
    assert "a, b = _trt_tensor_split(x, [1], 1)\nc, d = _trt_tensor_split(y, [2])\n" in after


@pytest.mark.parametrize("code", [
    "parts = x.tensor_split(len(heads), dim=0)\n",  # sections from an expression
    "parts = torch.tensor_split(x, points, 1)\n",  # points held in a name: a list or a count
    "parts = torch.tensor_split(x, self.split_indices, dim=-1)\n",
    "parts = torch.tensor_split(x, (*points, 4), 1)\n",  # unpacked points
    "parts = torch.tensor_split(x, *args)\n",  # unpacked arguments
    "parts = torch.tensor_split(x, (1,), dim=1, out=None)\n",  # an argument torch's call has not
])
def test_forms_reported_without_a_fix(code: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT306",)) == ["TRT306"]
    assert rewrite(source, select=("TRT306",)) == source


def test_other_code_is_left_alone() -> None:
    source = "import torch\n\n\nparts = torch.split(x, (1, 2), 1)\nhead = torch.tensor_split\n"
    assert rules_found(source, select=("TRT306",)) == []


# --- eager mode: the helper's slices are tensor_split's parts ------------------------------------

#: (shape, points, dim): negative points, points past the end, decreasing points, an empty axis.
CASES = [
    ((4, 7), [2, 5], 1), ((4, 7), [-2], -1), ((4, 7), [3, 100], 1), ((4, 7), [5, 2], 1), ((4, 7), [-100, 2], 1),
    ((4, 7), [0, 0, 7], 1), ((4, 0), [1, 2], 1), ((0, 7), [1], 0), ((3, 4, 5), [1], -2), ((6,), [2, 2, -1], 0),
    ((2, 3, 4), [], 2),
]


def _same_part(a: torch.Tensor, b: torch.Tensor) -> None:
    """One part, bit for bit, and the same view: strides, storage offset and storage."""
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride(), (a.shape, b.shape)
    assert a.storage_offset() == b.storage_offset()
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert torch.equal(a, b)


@pytest.mark.parametrize(("shape", "points", "dim"), CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_the_slices_are_tensor_splits_parts(shape: tuple[int, ...], points: list[int], dim: int,
                                            dtype: torch.dtype) -> None:
    x = (torch.arange(int(np.prod(shape)), dtype=torch.float32).reshape(shape) - 5).to(dtype)
    for source in (x, x.transpose(0, -1) if x.dim() > 1 else x[::2]):  # a contiguous and a strided input
        want = torch.tensor_split(source, points, dim)
        got = _trt_tensor_split_slices(source, points, dim)
        assert len(got) == len(want)
        for a, b in zip(want, got):
            _same_part(a, b)


def test_the_sections_are_tensor_splits_parts() -> None:
    """Every length up to 40 in 1 to 9 sections: torch's points (the first ``L % n`` parts longer)."""
    for length in range(41):
        x = torch.arange(float(length * 2)).reshape(2, length)
        for sections in range(1, 10):
            want = torch.tensor_split(x, sections, 1)
            got = _trt_tensor_split_slices(x, _trt_section_points(x.shape[1], sections), 1)
            assert len(got) == len(want) == sections
            for a, b in zip(want, got):
                _same_part(a, b)


def test_the_slices_keep_inf_nan_and_gradients() -> None:
    x = torch.tensor([[float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 3.0]], requires_grad=True)
    y = x.detach().clone().requires_grad_()
    want, got = torch.tensor_split(x, [1, -2], 1), _trt_tensor_split_slices(y, [1, -2], 1)
    for a, b in zip(want, got):
        assert torch.equal(torch.signbit(a), torch.signbit(b)) and torch.equal(a.isnan(), b.isnan())
    sum((p * (k + 2)).nan_to_num().sum() for k, p in enumerate(want)).backward()
    sum((p * (k + 2)).nan_to_num().sum() for k, p in enumerate(got)).backward()
    assert torch.equal(x.grad, y.grad)


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        a, b, c = torch.tensor_split(x, (1, -1), dim=-1)
        d, e = x.tensor_split([2], 0)
        f, g, h = torch.tensor_split(x, 3, dim=-1)
        return a * 2, b, c + 1, d, e, f, g * 3, h
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt306")
    after = rewrite(PROGRAM, select=("TRT306",))
    assert "a, b, c = _trt_tensor_split(x, [1, -1], -1)" in after and "d, e = _trt_tensor_split(x, [2], 0)" in after
    assert "f, g, h = _trt_tensor_sections(x, 3, -1)" in after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


INPUTS = EDGE_TENSORS


@pytest.mark.parametrize("label", list(INPUTS))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Outputs, inputs afterwards, aliasing of the input, gradients and exceptions (0-d, 1-d)."""
    before, after = program[0](), program[1]()
    x = INPUTS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        a, b = run_once(before, given), run_once(after, given)
        assert_same_run(a, b, context=label)
        if a.error is None:
            for p, q in zip(a.output, b.output):
                assert p.storage_offset() == q.storage_offset()
    if label == "0-d":
        assert run_once(before, [x]).error is RuntimeError  # the exception is part of what is kept


@pytest.mark.parametrize(("call", "error"), [("(1,), dim=3", IndexError), ("2, dim=3", IndexError),
                                             ("0, dim=1", RuntimeError)])
def test_an_axis_out_of_range_or_no_sections_raise_the_same(tmp_path: Path, call: str, error: type) -> None:
    source = f"import torch\n\n\ndef f(x):\n    return torch.tensor_split(x, {call})\n"
    before = import_source(source, tmp_path)["f"]
    after = import_source(rewrite(source, select=("TRT306",)), tmp_path)["f"]
    assert "_trt_tensor_s" in rewrite(source, select=("TRT306",))
    assert_same_run(run_once(before, [torch.randn(2, 3)]), run_once(after, [torch.randn(2, 3)]))
    assert run_once(after, [torch.randn(2, 3)]).error is error


@pytest.mark.parametrize("label", ["example", "zeros", "inf-nan", "empty-rows", "3-d"])
def test_the_toolchains_give_the_originals_results(program: tuple[type, type], label: str, tmp_path: Path) -> None:
    """torch.jit.script, fx (and fx scripted), torch.compile and torch.export."""
    x = INPUTS[label]
    assert_same_toolchain_outcomes(program[0], program[1], [x], tmp_path)


# --- both ONNX exporters ----------------------------------------------------------------------------

EXPORTED = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        a, b, c = torch.tensor_split(x, (2, -1), dim=1)
        d, e, f = x.tensor_split([3, 1], -1)
        g, h = torch.tensor_split(x, indices=(100,), dim=0)
        i, j, k = x.tensor_split(3, -1)
        m, n = torch.tensor_split(x, 2)
        return a + 1, b * 2, c - 3, d, e * 4, f, g, h - 1, i, j * 5, k, m, n * 6
"""


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    """The export with both axes dynamic."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], verbose=False,
                                        dynamic_shapes=({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},))
            return program.model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "rows", 1: "columns"}})
        return onnx.load_from_string(buffer.getvalue())


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt306_onnx")
    after = rewrite(EXPORTED, select=("TRT306",))
    before_model, after_model = import_source(EXPORTED, folder)["M"](), import_source(after, folder)["M"]()
    example = torch.randn(5, 6)
    return {"before": before_model, "after": after_model,
            "original": _export(before_model, example, dynamo=False),
            "torchscript": _export(after_model, example, dynamo=False),
            "dynamo": _export(after_model, example, dynamo=True)}


def test_the_originals_torchscript_export_holds_sequence_operators(exported: dict) -> None:
    assert {n.op_type for n in exported["original"].graph.node} & SEQUENCE_OPS


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_the_rewritten_export_has_no_sequence_operator(exported: dict, exporter: str) -> None:
    assert not {n.op_type for n in exported[exporter].graph.node} & SEQUENCE_OPS


GRAPH_INPUTS = {
    "example-size": torch.randn(5, 6), "smaller": torch.randn(2, 3), "larger": torch.randn(9, 11),
    "one-column": torch.randn(4, 1), "two-columns": torch.randn(1, 2), "seven-rows": torch.randn(7, 4),
    "ten-columns": torch.randn(3, 10), "no-columns": torch.zeros(3, 0), "no-rows": torch.zeros(0, 5),
    "zeros": torch.zeros(4, 4), "negatives": -torch.rand(3, 7) - 0.5,
    "inf-nan": torch.tensor([[float("nan"), float("inf"), -float("inf"), -0.0, 1.0]] * 2),
}


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
@pytest.mark.parametrize("label", list(GRAPH_INPUTS))
def test_the_rewritten_graph_equals_eager(exported: dict, exporter: str, label: str) -> None:
    x = GRAPH_INPUTS[label]
    session = ort.InferenceSession(exported[exporter].SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.no_grad():
        want = exported["before"](x)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == tuple(w.shape) and np.array_equal(g, w.numpy(), equal_nan=True), f"output {k}"
