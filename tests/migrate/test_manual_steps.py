"""Every error ``migrate`` leaves names the guidance's manual step: a rule's own message gives
it; a reverted fix, an unclaimed TracerWarning, a line the second trace found baked, a failed
export and a graph that fails to load get theirs from :mod:`trtcodemod.migrate.manual_steps`."""

from __future__ import annotations

from typing import Any

import pytest

from trtcodemod.migrate.manual_steps import (CUSTOM_OP_STEP, DATA_SHAPE_STEP, EMPTY_INPUT_STEP, EXPORT_STEP, GRAD_CONSTANT_STEP,
                                             LOAD_STEP, LOOP_STEP, MISSING_KERNEL_STEP, NUMBER_STEP, OTHER_VALUES_STEP, OVERLAP_STEP,
                                             SIZE_STEP, SPLIT_STEP, SQUEEZE_STEP, VALUE_STEP, add_manual_steps,
                                             manual_step)


def _entry(**fields: Any) -> dict[str, Any]:
    return {"op": "(traced constant)", "source": "m.py:3", "rule": None, "message": "", "kind": "baked",
            "exporter": "torchscript", "severity": "error", **fields}


@pytest.mark.parametrize(("rule", "step"), [("TRT717", SIZE_STEP), ("TRT718", SIZE_STEP), ("TRT101", VALUE_STEP),
                                             ("TRT702", NUMBER_STEP), ("TRT104", LOOP_STEP), ("TRT403", SQUEEZE_STEP)])
def test_a_reverted_fix_gets_its_family_step(rule: str, step: str) -> None:
    assert manual_step(_entry(rule=rule, message="fix reverted: breaks equivalence", kind="finding")) == step


def test_an_overlapping_write_gets_the_step_that_decides_what_it_means() -> None:
    """AlphaPose's flip shift (zoo 99): the rule's unsafe fix is not applied, and no graph matches eager mode there."""
    message = ("a write that read memory it overwrote in the recorded run at line 521 (error): ...; unsafe fix not "
               "applied (no observation covers its assumption; --unsafe applies it)")
    for kind in ("undefined", "finding"):
        assert manual_step(_entry(rule="TRT740", kind=kind, op="(overlapping write)", message=message)) == OVERLAP_STEP
    assert ".clone()" in OVERLAP_STEP and "torch.cat" in OVERLAP_STEP


def test_a_reverted_operator_fix_points_to_its_rule() -> None:
    step = manual_step(_entry(rule="TRT727", op="Resize", kind="hostile", message="fix reverted: breaks equivalence"))
    assert step is not None and "trtcodemod explain TRT727" in step


def test_an_operation_with_no_tensorrt_path_gets_the_operator_step() -> None:
    """kornia DISK's `torch.kthvalue` (the seventh zoo): TRT706 says what TensorRT lacks, not what to do."""
    message = ("torchscript export failed at line 59; no automatic fix: `torch.kthvalue` has no TensorRT path: "
               "the TorchScript exporter has no ONNX symbolic for it")
    step = manual_step(_entry(rule="TRT706", kind="export_failure", op="(export)", message=message))
    assert step is not None and "trtcodemod explain TRT706" in step


def test_unclaimed_problems_get_the_step_of_their_kind() -> None:
    assert manual_step(_entry(kind="export_failure", op="(export)", message="TypeError: x")) == EXPORT_STEP
    assert manual_step(_entry(kind="unfaithful", op="(graph fails to run)", message="ONNX Runtime")) == LOAD_STEP
    # Grounding DINO's boolean `torch.eye`: a missing kernel, not shapes that disagree.
    missing = ("ONNX Runtime CPU failed: session creation failed: NotImplemented: [ONNXRuntimeError] : 9 : "
               "NOT_IMPLEMENTED : Could not find an implementation for EyeLike(9) node with name '/EyeLike'")
    assert manual_step(_entry(kind="unfaithful", op="(graph fails to run)", message=missing)) == MISSING_KERNEL_STEP
    # YOLOv5's `boxes[..., [0, 2]] -= pad[0]`: a node with a lost input, not shapes that disagree.
    empty = ("ONNX Runtime CPU failed: session creation failed: InvalidGraph: [ONNXRuntimeError] : 10 : INVALID_GRAPH "
             ": This is an invalid model. In Node, (\"/Add\", Add, \"\", -1) : (\"\", \"/Constant_1_output_0\": "
             "tensor(int64),) -> (\"/Add_output_0\",) , Error Node (/Add)'s input 0 is marked single but has an "
             "empty string in the graph")
    assert manual_step(_entry(kind="unfaithful", op="(graph fails to run)", message=empty)) == EMPTY_INPUT_STEP
    # oriented_det's RetinaNet export wrapper (zoo 29): `torch.unbind(images, dim=0)` traced with one image.
    split = ("the graph matches eager on the traced input set but not on set(s) 3: the export baked something in (set "
             "3: Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Split node. "
             "Name:'/m/Split' Status Message: Cannot split using values in 'split' attribute. Axis=0 Input "
             "shape={2,3,97,97} NumOutputs=1 Num entries in 'split' (must equal number of outputs) was 1)")
    assert manual_step(_entry(kind="unfaithful", op="(graph fails to run)", message=split)) == SPLIT_STEP
    assert "torch.unbind(x, 0)" in SPLIT_STEP and SPLIT_STEP != LOAD_STEP
    assert manual_step(_entry(kind="unfaithful", op="(wrong values)", message="differs")) == OTHER_VALUES_STEP
    assert manual_step(_entry(op="(retraced graph)", message="the graph traced at x differs")) == SIZE_STEP
    assert manual_step(_entry(message="Iterating over a tensor might cause the trace to be incorrect.")) == LOOP_STEP
    boolean = manual_step(_entry(message="Converting a tensor to a Python boolean might cause ..."))
    number = manual_step(_entry(op="(baked value)", message="Python reads a tensor's value here (tolist)"))
    assert boolean is not None and VALUE_STEP in boolean and SIZE_STEP in boolean
    assert number is not None and NUMBER_STEP in number and SIZE_STEP in number


def test_values_taken_out_as_numpy_or_lists_name_the_offline_step() -> None:
    """torch-timeseries 0.2.5's TimesNet (``torch_timeseries/model/TimesNet.py:16-17``, zoo 41): the
    top-k frequencies of its FFT read with ``.cpu().numpy()`` become periods that pad and reshape
    each branch, so the shapes follow the data: the step says no fixed-shape graph or faithful
    rewrite exists and names the offline constants; a scalar ``.item()`` read does not get it."""
    reads = [_entry(op="(baked value)", message="Python reads a tensor's value here (numpy): the export bakes it in"),
             _entry(message="Converting a tensor to a NumPy array might cause the trace to be incorrect."),
             _entry(message="torch.from_numpy results are registered as constants in the trace."),
             _entry(op="(baked value)", message="Python reads a tensor's value here (tolist)")]
    for entry in reads:
        step = manual_step(entry)
        assert step is not None and step.endswith(DATA_SHAPE_STEP) and NUMBER_STEP in step, entry
    assert "no faithful rewrite exists" in DATA_SHAPE_STEP and "offline" in DATA_SHAPE_STEP
    scalar = manual_step(_entry(op="(baked value)", message="Python reads a tensor's value here (item)"))
    assert scalar is not None and DATA_SHAPE_STEP not in scalar and NUMBER_STEP in scalar


def test_warnings_and_messages_that_carry_a_step_get_none() -> None:
    assert manual_step(_entry(severity="warning", message="Converting a tensor to a Python boolean")) is None
    assert manual_step(_entry(rule="TRT713", kind="finding",
                              message="value baked in at line 5; no automatic fix: `M == 0` branches ...")) is None
    assert manual_step(_entry(rule="TRT701", op="Cast", kind="hostile", message="casts to float64; cast to float32")) \
        is None


def test_every_error_of_a_report_gets_a_step_in_place() -> None:
    remaining = [_entry(rule="TRT717", message="fix reverted: breaks equivalence"),
                 _entry(severity="warning", message="it stands in a check"),
                 _entry(kind="export_failure", op="(export)", message="SymbolicValueError")]
    add_manual_steps(remaining)
    assert [e.get("manual_step") for e in remaining] == [SIZE_STEP, None, EXPORT_STEP]


def test_an_operator_that_is_not_in_onnx_gets_the_custom_op_step() -> None:
    """CoinCheung/BiSeNet@6b4b67a lib/models/bisenetv2.py:359 (`CustomArgMax.apply(logits, 1)`, a Function whose
    `symbolic` emits `g.op('CustomArgMax', ...)` for the repository's own TensorRT plugin): the hostile node and
    the graph ONNX Runtime refuses get the custom-op step, not the step of shapes that disagree."""
    hostile = _entry(kind="hostile", op="CustomArgMax",
                     message="CustomArgMax is not in TensorRT's ONNX operator list; assume the parser rejects it")
    assert manual_step(hostile) == CUSTOM_OP_STEP
    assert manual_step(_entry(kind="hostile", op="TRT::EfficientNMS_TRT", message="custom domain")) == CUSTOM_OP_STEP
    refused = ("ONNX Runtime CPU failed: session creation failed: InvalidGraph: [ONNXRuntimeError] : 10 : INVALID_GRAPH"
               " : Load model from before.torchscript.onnx failed:This is an invalid model. In Node, "
               "(\"/CustomArgMax\", "
               "CustomArgMax, \"\", -1) : (\"x\": tensor(float),) -> (\"output\": tensor(int32),) , Error No Op "
               "registered for CustomArgMax with domain_version of 17")
    assert manual_step(_entry(kind="unfaithful", op="(graph fails to run)", message=refused)) == CUSTOM_OP_STEP
    # an ONNX operator TensorRT lacks, with no rule, keeps no step of this kind (its message is the check's own)
    assert manual_step(_entry(kind="hostile", op="Unique", message="Unique is not supported")) is None
    assert manual_step(_entry(kind="hostile", op="ai.onnx.ml::TreeEnsembleClassifier", message="x")) is None


def test_an_attribute_that_requires_grad_gets_its_own_export_step(tmp_path: Any) -> None:
    """dblur's FNAFNet (zoo 33) keeps ``torch.complex(nn.Parameter(a), nn.Parameter(b))`` on the module: the tracer
    refuses to freeze a tensor that requires grad, and the step says what to do with that attribute."""
    import torch

    class Weighted(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Parameter(torch.ones(3))
            self.scale = self.a * 2  # neither a parameter nor a buffer, and it requires grad

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.scale

    with pytest.raises(RuntimeError) as failure:
        torch.onnx.export(Weighted(), (torch.ones(2, 3),), str(tmp_path / "m.onnx"), dynamo=False)
    message = f"RuntimeError: {failure.value}"
    step = manual_step(_entry(kind="export_failure", op="(export)", message=message))
    assert step == GRAD_CONSTANT_STEP and step != EXPORT_STEP


MARGINALS = '''import torch


def marginals(log_partition, edges):
    (grads,) = torch.autograd.grad(
        log_partition.sum(),
        edges,
        create_graph=True,
    )
    return grads


def energy(x):
    y = (x * x).sum()
    y.backward()
    return x.grad
'''


def test_an_export_that_stops_in_a_derivative_gets_the_autograd_step(tmp_path: Any) -> None:
    """torch-struct 0.5 (zoo 43) takes a CRF's marginals as ``torch.autograd.grad`` of the log-partition in
    ``forward`` (``torch_struct/helpers.py:111-113``): the export stops at a backward operator
    (``aten::select_backward``) or at a tensor that requires grad, at any line of that call."""
    import torch

    from trtcodemod.migrate.manual_steps import AUTOGRAD_STEP

    class Marginals(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                edges = x.detach().requires_grad_()
                (grads,) = torch.autograd.grad(torch.logsumexp(edges, -1).sum(), edges, create_graph=True)
            return grads

    with pytest.raises(Exception) as failure:  # the real exporter's refusal, whatever its words
        torch.onnx.export(Marginals(), (torch.ones(2, 3),), str(tmp_path / "m.onnx"), dynamo=False)
    path = tmp_path / "helpers.py"
    path.write_text(MARGINALS)
    message = f"{type(failure.value).__name__}: {failure.value}"
    for line in (5, 6, 7, 8, 15):  # the call's lines, and a `.backward()`
        step = manual_step(_entry(kind="export_failure", op="(export)", message=message, source=f"{path}:{line}"))
        assert step == AUTOGRAD_STEP, line
    assert manual_step(_entry(kind="export_failure", op="(export)", message=message, source=f"{path}:14")) != \
        AUTOGRAD_STEP  # `y = (x * x).sum()` differentiates nothing
    assert manual_step(_entry(kind="export_failure", op="(export)", message="TypeError: x",
                              source="/no/such/file.py:3")) == EXPORT_STEP
