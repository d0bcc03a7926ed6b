"""TRT714's rewrite: ``torch.arange(m.sum())`` → ``torch.arange(m.nonzero().shape[0])``.

The rewrite is shown, then run before and after on masks including the edges (empty, all
false, all true, 2-D), compared with the safety contract; where its assumption (a 0/1 mask)
fails, the difference is shown too, so the rule's label (unsafe) is the measured one. The
exported graph of the rewritten program has no execution tensor where TensorRT needs a
shape tensor.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnx
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite

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
