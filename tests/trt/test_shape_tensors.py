"""The graph check's shape tensors: a bound computed from device values where TensorRT needs a
shape tensor is reported at the user's line, per target version; bounds from shapes are not."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

from trtcodemod.trt.check import TrtIssue, check_graph

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def make_model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def vi(name: str, dtype: int = F, shape=None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name: str, values) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def shape_issues(model: onnx.ModelProto, target: str = "8.6") -> list[TrtIssue]:
    return [i for i in check_graph(model, target) if "shape tensor" in i.reason]


def line_of(marker: str) -> int:
    for number, text in enumerate(Path(__file__).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# LINE: {marker}"):
            return number
    raise AssertionError(marker)


# -- graphs built with onnx.helper ------------------------------------------------------------


def _range_of_mask_sum() -> onnx.ModelProto:
    """``torch.arange(cond.sum())``: Cast → ReduceSum → Range."""
    return make_model(
        [helper.make_node("Cast", ["cond"], ["c"], to=I64),
         helper.make_node("ReduceSum", ["c"], ["n"], keepdims=0),
         helper.make_node("Range", ["zero", "n", "one"], ["y"])],
        [vi("cond", B, ["N"])], [vi("y", I64, ["M"])], [const("zero", 0), const("one", 1)])


def test_a_range_limit_summed_from_a_mask_is_an_execution_tensor() -> None:
    [issue] = shape_issues(_range_of_mask_sum())
    assert (issue.op, issue.rule, issue.severity) == ("Range", "TRT714", "warning")
    assert "the limit of Range" in issue.reason and "`ReduceSum`" in issue.reason
    assert "nonzero().shape[0]" in issue.reason  # the guidance's fix travels with the issue


@pytest.mark.parametrize("target,severity", [("8.0", "error"), ("8.4", "error"), ("8.5", "warning"),
                                             ("8.6", "warning"), ("10.x", "warning")])
def test_per_version_data_dependent_shapes_build_from_8_5(target, severity) -> None:
    [issue] = shape_issues(_range_of_mask_sum(), target)
    assert issue.severity == severity
    assert ("cannot build" in issue.reason) == (severity == "error")


def test_a_range_from_a_shape_or_a_nonzero_count_passes() -> None:
    # torch.arange(x.shape[0]) and the guidance's torch.arange(cond.nonzero().shape[0])
    model = make_model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         helper.make_node("Range", ["zero", "n", "one"], ["y"]),
         helper.make_node("NonZero", ["cond"], ["nz"]),
         helper.make_node("Transpose", ["nz"], ["nzt"], perm=[1, 0]),
         helper.make_node("Shape", ["nzt"], ["s2"]),
         helper.make_node("Gather", ["s2", "zero"], ["k"], axis=0),
         helper.make_node("Range", ["zero", "k", "one"], ["z"])],
        [vi("x", F, ["N", 3]), vi("cond", B, ["N"])], [vi("y", I64, ["N"]), vi("z", I64, ["K"])],
        [const("zero", 0), const("one", 1)])
    assert shape_issues(model) == []


def test_shape_arithmetic_on_reshape_expand_tile_slice_passes() -> None:
    model = make_model(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "zero1"], ["b"], axis=0),
         helper.make_node("Div", ["b", "two"], ["half"]),
         helper.make_node("Concat", ["b", "minus1"], ["target"], axis=0),
         helper.make_node("Reshape", ["x", "target"], ["r"]),
         helper.make_node("Max", ["b", "two"], ["big"]),
         helper.make_node("Concat", ["big", "three"], ["eshape"], axis=0),
         helper.make_node("Expand", ["x", "eshape"], ["e"]),
         helper.make_node("Concat", ["half", "one1"], ["reps"], axis=0),
         helper.make_node("Tile", ["x", "reps"], ["t"]),
         helper.make_node("Slice", ["x", "zero1", "half", "zero1"], ["sl"]),
         helper.make_node("ConstantOfShape", ["s"], ["c"])],
        [vi("x", F, ["B", 3])], [vi(n) for n in ("r", "e", "t", "sl", "c")],
        [const("zero1", [0]), const("two", [2]), const("minus1", [-1]), const("three", [3]), const("one1", [1])])
    assert shape_issues(model) == []


@pytest.mark.parametrize("op,inputs,role", [
    ("Reshape", ["x", "bound"], "the target shape"),
    ("Expand", ["x", "bound"], "the target shape"),
    ("Tile", ["x", "bound"], "the repeats"),
    ("Slice", ["x", "zero1", "bound"], "the ends"),
    ("TopK", ["x", "bound"], "K"),
    ("ConstantOfShape", ["bound"], "the shape"),
])
def test_every_shape_input_fed_from_values_is_reported(op, inputs, role) -> None:
    # bound = Unsqueeze(ArgMax(x)): a position read from the data.
    nodes = [helper.make_node("ArgMax", ["x"], ["am"], axis=0, keepdims=0),
             helper.make_node("ReduceMax", ["am"], ["m"], keepdims=0),
             helper.make_node("Unsqueeze", ["m", "zero1"], ["bound"]),
             helper.make_node(op, inputs, ["y"] if op != "TopK" else ["y", "yi"])]
    model = make_model(nodes, [vi("x", F, ["N", 3])], [vi("y")], [const("zero1", [0])])
    issues = shape_issues(model, "10.x")
    assert [(i.op, i.severity) for i in issues] == [(op, "warning")]
    assert issues[0].reason.startswith(f"{role} of {op} is an execution tensor") and "`ArgMax`" in issues[0].reason


def test_a_small_integer_input_is_a_shape_input_of_the_engine_but_a_float_one_is_not() -> None:
    def model(dtype, shape):
        return make_model([helper.make_node("Reshape", ["x", "shape"], ["y"])],
                          [vi("x", F, ["N", 6]), vi("shape", dtype, shape)], [vi("y")])
    assert shape_issues(model(I64, [2])) == []
    [issue] = shape_issues(model(I64, ["K"]))  # no build-time size: cannot be a shape tensor
    assert "graph input 'shape'" in issue.reason


def test_subgraph_inputs_and_unknown_ops_are_not_guessed() -> None:
    # A Loop body's carried value has no producer: unknown, never reported.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Range", ["zero", "v", "one"], ["r"]),
         helper.make_node("Identity", ["v"], ["v_out"])],
        "body", [vi("i", I64, []), vi("cond_in", B, []), vi("v", I64, [])],
        [vi("cond_out", B, []), vi("v_out", I64, [])])
    model = make_model([helper.make_node("Loop", ["trip", "", "v0"], ["vf"], body=body)],
                       [vi("v0", I64, [])], [vi("vf", I64, [])], [const("trip", 3), const("zero", 0), const("one", 1)])
    assert shape_issues(model) == []


def test_axes_that_must_be_constant_are_said_once() -> None:
    nodes = [helper.make_node("Cast", ["m"], ["c"], to=I64),
             helper.make_node("ReduceSum", ["c"], ["n"], keepdims=1),
             helper.make_node("Squeeze", ["x", "n"], ["y"])]
    model = make_model(nodes, [vi("x", F, [1, 3]), vi("m", B, [1])], [vi("y")])
    issues = [i for i in check_graph(model, "8.6") if i.op == "Squeeze"]
    assert len(issues) == 1 and "needs it constant" in issues[0].reason
    # From 10.7 run-time axes parse: what is left is that they come from values.
    [late] = [i for i in check_graph(model, "10.8") if i.op == "Squeeze"]
    assert "shape tensor" in late.reason


# -- graphs exported from torch, at the user's line ---------------------------------------------


class TrackIds(nn.Module):
    def forward(self, ids: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        ids = ids.clone()
        ids[cond] = torch.arange(cond.sum().long(), dtype=ids.dtype)  # LINE: track
        return ids


class Head(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n = mask.sum()
        return x[:n]  # LINE: head


class ShapesOnly(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        b, c = x.shape[0], x.shape[1]
        flat = x.reshape(b, -1)
        half = flat[:, : flat.shape[1] // 2]
        grid = torch.arange(c).expand(b, c)
        return half, grid, torch.zeros(b, 3), x.view(b * c, -1)[: b * c - 1]


def export(model: nn.Module, args: tuple, dynamic: dict, dynamo: bool) -> onnx.ModelProto:
    names = [f"in{i}" for i in range(len(args))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = tuple({axis: torch.export.Dim.AUTO for axis in dynamic.get(n, {})} for n in names)
            return torch.onnx.export(model, args, dynamo=True, dynamic_shapes=dims, verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False, verbose=True, input_names=names, dynamic_axes=dynamic)
    return onnx.load_from_string(buffer.getvalue())


MASK = torch.tensor([True, False, True, True, False, False])


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_exported_data_bounds_are_reported_at_the_users_line(dynamo) -> None:
    dyn = {"in0": {0: "n"}, "in1": {0: "n"}}
    track = export(TrackIds(), (torch.arange(6), MASK), dyn, dynamo)
    ranges = [i for i in shape_issues(track, "8.4") if i.op == "Range"]
    assert [(i.rule, i.severity, i.source) for i in ranges] == [("TRT714", "error", f"{__file__}:{line_of('track')}")]
    head = export(Head(), (torch.randn(6, 3), MASK), dyn, dynamo)
    slices = [i for i in shape_issues(head, "8.6") if i.op == "Slice"]
    assert [(i.rule, i.severity, i.source) for i in slices] == [("TRT715", "warning", f"{__file__}:{line_of('head')}")]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_exported_shape_arithmetic_has_no_false_positive(dynamo) -> None:
    model = export(ShapesOnly(), (torch.randn(2, 3, 4),), {"in0": {0: "b", 1: "c"}}, dynamo)
    ops = {n.op_type for n in model.graph.node}
    assert {"Reshape", "Slice", "Expand"} <= ops, ops  # the shape inputs are there, computed from Shape
    assert shape_issues(model, "8.4") == [] and shape_issues(model, "10.x") == []
