"""The shape-from-values rewrites: TRT714 ``torch.arange(m.sum())`` → ``torch.arange(m.nonzero().shape[0])``
and TRT715 ``x[:n]`` → ``x[torch.arange(x.shape[0], device=x.device) < n]``.

Each rewrite is shown, then run before and after on inputs including the edges (empty, all
false, all true, 2-D, inf/NaN/-0.0 rows), compared with the safety contract; where its
assumption fails, the difference is shown too, so the rules' label (unsafe) is the measured
one. The exported graph of each rewritten program has no execution tensor where TensorRT
needs a shape tensor, and ONNX Runtime runs it to the same values.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import pytest
import torch

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from snippets import SIZE_HEADER as HEADER, export_checked_session as export_session, forward, ort_matches
from support import load, rewrite
from trtcodemod.trt.check import check_graph

SOURCE = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, ids: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        ids = ids.clone()
        ids[cond] = torch.arange(cond.sum().long(), dtype=ids.dtype)
        return ids


class Count(nn.Module):
    def forward(self, m: torch.Tensor) -> torch.Tensor:
        return torch.arange(m.sum())
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> tuple[dict, dict, str]:
    after = rewrite(SOURCE, unsafe=True, select=("TRT714",))
    folder = tmp_path_factory.mktemp("arange_count")
    return import_source(SOURCE, folder), import_source(after, folder), after


def test_the_rewrite_takes_the_count_from_a_shape(programs) -> None:
    after = programs[2]
    assert "ids[cond] = torch.arange(cond.nonzero().shape[0], dtype=ids.dtype)" in after
    assert "return torch.arange(m.nonzero().shape[0])" in after
    assert rewrite(SOURCE, select=("TRT714",)) == SOURCE  # unsafe: not without --unsafe
    assert rewrite(after, unsafe=True, select=("TRT714",)) == after  # idempotent


MASKS = {
    "random": torch.tensor([True, False, True, True, False, False, True]),
    "all_false": torch.zeros(7, dtype=torch.bool),
    "all_true": torch.ones(7, dtype=torch.bool),
    "empty": torch.zeros(0, dtype=torch.bool),
}


@pytest.mark.parametrize("name", list(MASKS))
def test_same_program_on_bool_masks(programs, name) -> None:
    before, after, _ = programs
    cond = MASKS[name]
    ids = torch.tensor([-3, 0, 7, -0, 2**31 - 1, -2**31, 5], dtype=torch.int32)[: len(cond)]
    assert_same_run(run_once(before["M"](), [ids, cond]), run_once(after["M"](), [ids, cond]), context=name)
    for m in (cond, cond.long(), cond.reshape(-1, 1), cond.int()):  # 0/1 integers, 2-D: the same count
        assert_same_run(run_once(before["Count"](), [m]), run_once(after["Count"](), [m]), context=name)


def test_outside_the_assumption_the_results_differ(programs) -> None:
    before, after, _ = programs
    counts = torch.tensor([2, 0, 1])  # not a 0/1 mask: sum 3, two non-zeros
    assert len(before["Count"]()(counts)) == 3 and len(after["Count"]()(counts)) == 2
    floats = torch.tensor([1.0, 0.0, 1.0])  # float mask: same length, other dtype
    assert before["Count"]()(floats).dtype == torch.float32 and after["Count"]()(floats).dtype == torch.int64
    with pytest.raises(RuntimeError):
        before["Count"]()(torch.tensor([-2, 0]))  # a negative sum raised; the count never is
    assert len(after["Count"]()(torch.tensor([-2, 0]))) == 1


def test_toolchains_give_the_same_results(programs, tmp_path) -> None:
    before, after, _ = programs
    ids, cond = torch.arange(7, dtype=torch.int32), MASKS["random"]
    outcomes_before = toolchain_outcomes(before["M"], [ids, cond], tmp_path)
    outcomes_after = toolchain_outcomes(after["M"], [ids, cond], tmp_path)
    for name, result in outcomes_before.items():
        other = outcomes_after[name]
        if isinstance(result, Exception):
            continue  # the rewrite may only remove failures
        assert not isinstance(other, Exception), f"{name}: {other}"
        assert torch.equal(result, other), name


def _export(module: torch.nn.Module, cond: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (cond,), buffer, dynamo=False, input_names=["m"], dynamic_axes={"m": {0: "n"}})
    return onnx.load_from_string(buffer.getvalue())


def test_the_rewritten_range_is_sized_by_a_shape_tensor(programs) -> None:
    before, after, _ = programs
    cond = MASKS["random"]

    def range_issues(model: onnx.ModelProto) -> list[str]:
        return [i.severity for i in check_graph(model, "8.6") if i.op == "Range" and "shape tensor" in i.reason]

    assert range_issues(_export(before["Count"](), cond)) == ["warning"]
    rewritten = _export(after["Count"](), cond)
    assert range_issues(rewritten) == []
    import onnxruntime as ort

    session = ort.InferenceSession(rewritten.SerializeToString(), providers=["CPUExecutionProvider"])
    for name, mask in MASKS.items():
        got = session.run(None, {"m": mask.numpy()})[0]
        assert got.tolist() == list(range(int(mask.sum()))), name


# --- TRT715 ------------------------------------------------------------------------------------

SLICE_SOURCE = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n = mask.sum()
        return x[:n]
"""


@pytest.fixture(scope="module")
def slicing(tmp_path_factory) -> tuple[dict, dict, str]:
    after = rewrite(SLICE_SOURCE, unsafe=True, select=("TRT715",))
    folder = tmp_path_factory.mktemp("slice_mask")
    return import_source(SLICE_SOURCE, folder), import_source(after, folder), after


ROWS = torch.tensor([[1.0, -0.0], [float("inf"), float("nan")], [-3.5, 0.0], [2.0, -float("inf")],
                     [0.0, 1e-45], [7.0, 8.0], [-1.0, -2.0]])


def test_the_slice_end_becomes_a_bool_index(slicing) -> None:
    assert "return x[torch.arange(x.shape[0], device=x.device) < n]" in slicing[2]
    assert rewrite(SLICE_SOURCE, select=("TRT715",)) == SLICE_SOURCE
    assert rewrite(slicing[2], unsafe=True, select=("TRT715",)) == slicing[2]


@pytest.mark.parametrize("name", list(MASKS))
def test_same_rows_dtype_and_gradients_for_every_count(slicing, name) -> None:
    # Everything of the contract but aliasing (a view becomes a copy: the documented difference).
    before, after, _ = slicing
    mask = MASKS[name]
    outputs, grads = [], []
    for program in (before, after):
        x = ROWS[: len(mask)].clone().requires_grad_(True)
        out = program["M"]()(x, mask)
        (out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).nan_to_num().sum().backward()
        outputs.append(out.detach())
        grads.append(x.grad)
    b, a = outputs
    assert (b.shape, b.dtype, b.stride()) == (a.shape, a.dtype, a.stride())
    assert torch.equal(b.isnan(), a.isnan()) and torch.equal(b.nan_to_num(), a.nan_to_num())
    assert torch.equal(b.signbit(), a.signbit())  # -0.0 stays -0.0
    assert torch.equal(grads[0], grads[1])


def test_outside_the_assumption_the_slicing_differs(slicing) -> None:
    before, after, _ = slicing
    x = ROWS.clone()
    negative = torch.tensor([-1, -1, 0])  # a sum below zero: x[:-2] drops rows, the mask keeps none
    assert len(before["M"]()(x, negative)) == 5 and len(after["M"]()(x, negative)) == 0
    assert before["M"]()(x, MASKS["all_true"]).data_ptr() == x.data_ptr()  # a view before...
    assert after["M"]()(x, MASKS["all_true"]).data_ptr() != x.data_ptr()  # ...a copy after
    strided = ROWS.nan_to_num().t()  # 2 x 7, not contiguous: same values, other strides
    b, a = before["M"]()(strided, MASKS["all_true"]), after["M"]()(strided, MASKS["all_true"])
    assert torch.equal(b, a) and b.stride() != a.stride()


def test_slice_toolchains_give_the_same_results(slicing, tmp_path) -> None:
    before, after, _ = slicing
    args = [ROWS.nan_to_num(), MASKS["random"]]
    outcomes_before = toolchain_outcomes(before["M"], args, tmp_path)
    outcomes_after = toolchain_outcomes(after["M"], args, tmp_path)
    assert not isinstance(outcomes_after["script"], Exception)
    for name, result in outcomes_before.items():
        if not isinstance(result, Exception):
            assert torch.equal(result, outcomes_after[name]), name


def test_the_rewritten_slice_needs_no_shape_tensor_from_values(slicing) -> None:
    before, after, _ = slicing

    def export(module: torch.nn.Module) -> onnx.ModelProto:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, (ROWS, MASKS["random"]), buffer, dynamo=False, input_names=["x", "m"],
                              dynamic_axes={"x": {0: "n"}, "m": {0: "n"}})
        return onnx.load_from_string(buffer.getvalue())

    def shape_issues(model: onnx.ModelProto) -> list[str]:
        return [i.op for i in check_graph(model, "8.4") if "shape tensor" in i.reason]

    assert shape_issues(export(before["M"]())) == ["Slice"]
    rewritten = export(after["M"]())
    assert shape_issues(rewritten) == []
    import onnxruntime as ort

    session = ort.InferenceSession(rewritten.SerializeToString(), providers=["CPUExecutionProvider"])
    for name, mask in MASKS.items():
        x = ROWS[: len(mask)] if len(mask) else ROWS[:0]
        got = session.run(None, {"x": x.numpy(), "m": mask.numpy()})[0]
        assert np.array_equal(got, before["M"]()(x, mask).numpy(), equal_nan=True), name


# --- the premise: shapes from values stay in the graph as execution tensors ----------------

ARANGE = HEADER + forward("return torch.arange(cond.sum().long(), dtype=torch.int32)", "cond")


SLICE = HEADER + forward("n = m.sum()\nreturn x[:n]", "x, m")


def _producer_of(model, args, names, op_type: str) -> set[str]:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names)
    graph = onnx.load_from_string(buffer.getvalue()).graph
    producers = {out: node for node in graph.node for out in node.output}
    seen: set[int] = set()
    types: set[str] = set()
    for node in graph.node:
        if node.op_type == op_type:
            todo = list(node.input)
            while todo:
                producer = producers.get(todo.pop())
                if producer is not None and id(producer) not in seen:
                    seen.add(id(producer))
                    types.add(producer.op_type)
                    todo.extend(producer.input)
    return types


def test_arange_length_comes_from_a_reduction() -> None:
    model = load(ARANGE, "M")()
    assert "ReduceSum" in _producer_of(model, (torch.tensor([True, False, True]),), ["cond"], "Range")
    session = export_session(model, (torch.tensor([True, False, True]),), ["cond"], {"cond": {0: "n"}})
    assert ort_matches(session, model, torch.tensor([True, True, True, True]))  # correct, but an execution tensor


def test_slice_bound_comes_from_a_reduction() -> None:
    model = load(SLICE, "M")()
    args = (torch.randn(5, 2), torch.tensor([1, 1, 0, 0, 1]))
    assert "ReduceSum" in _producer_of(model, args, ["x", "m"], "Slice")
