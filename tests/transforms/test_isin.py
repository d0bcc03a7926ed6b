"""TRT305: ``torch.isin`` → ``_trt_isin``: the rewrite, eager runs, and the exported graph in ONNX Runtime.

The original does not export with the TorchScript exporter at all (``aten::isin`` has no
symbolic); after the rewrite it exports, the graph holds no op TensorRT lacks, and ONNX
Runtime gives ``torch.isin``'s answer on edge values, empty inputs and other lengths than
the traced one. The safety contract (eager, script, fx, compile, export, errors) runs in
tests/safety/test_safety.py and tests/safety/test_safety_exporters.py with the other safe rules.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite

SOURCE = """import torch
from torch import nn


class Keep(nn.Module):
    def __init__(self, invert: bool = False):
        super().__init__()
        self.invert = invert

    def forward(self, labels, wanted):
        return torch.isin(labels, wanted, invert=self.invert)
"""
EDGES = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1.5, -2.0, 3.0, 3.0]


def _export(model: torch.nn.Module, args: tuple[torch.Tensor, ...], dynamo: bool) -> bytes:
    names = ["labels", "wanted"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, input_names=names, verbose=False,
                                        dynamic_shapes=({0: torch.export.Dim.AUTO}, {0: torch.export.Dim.AUTO}))
            return program.model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={"labels": {0: "n"}, "wanted": {0: "m"}})
        return buffer.getvalue()


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("isin")
    after = rewrite(SOURCE)
    assert "_trt_isin(labels, wanted, invert=self.invert)" in after
    return import_source(SOURCE, folder)["Keep"], import_source(after, folder)["Keep"]


def test_rewrite_keeps_other_bytes_and_refuses_assume_unique() -> None:
    after = rewrite(SOURCE)
    assert after.replace("_trt_isin(labels", "torch.isin(labels").endswith(SOURCE.split("\n\n\n", 1)[1])
    kept = "ids = torch.isin(a, b, assume_unique=True)\n"
    assert rewrite("import torch\n" + kept).endswith(kept)


def test_the_original_does_not_export(programs: tuple[type, type]) -> None:
    before, _ = programs
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="aten::isin"):
        _export(before(), (torch.arange(4.0), torch.tensor([1.0])), dynamo=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int8])
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_exported_graph_gives_isins_answer(programs: tuple[type, type], dtype: torch.dtype, invert: bool,
                                           dynamo: bool) -> None:
    before, after = programs

    def values(length: int, shift: int) -> torch.Tensor:
        base = torch.tensor([EDGES[(i + shift) % len(EDGES)] for i in range(length)], dtype=torch.float64)
        if not dtype.is_floating_point:
            base = torch.nan_to_num(base, nan=0.0, posinf=7.0, neginf=-7.0).round()
        return base.to(dtype)

    graph = _export(after(invert), (values(5, 0), values(3, 4)), dynamo)
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    ops = {node.op_type for node in __import__("onnx").load_from_string(graph).graph.node}
    assert not ops & {"Unique", "Loop", "If", "NonZero"}, ops
    for n, m in [(5, 3), (0, 3), (4, 0), (1, 1), (9, 6)]:
        labels, wanted = values(n, 1), values(m, 5)
        expected = before(invert)(labels, wanted)
        assert torch.equal(after(invert)(labels, wanted), expected)  # eager: torch.isin itself
        feed = {arg.name: v.numpy() for arg, v in zip(session.get_inputs(), (labels, wanted))}
        got = torch.from_numpy(np.asarray(session.run(None, feed)[0]))
        assert got.dtype == torch.bool and torch.equal(got, expected), (n, m, got, expected)


def test_mixed_dtypes_and_zero_d(programs: tuple[type, type]) -> None:
    """An int64 id tensor tested against float ids, and a 0-d element: torch promotes, so does the graph."""
    before, after = programs
    labels, wanted = torch.tensor([1, 2, 3, -0]), torch.tensor([2.0, -0.0, float("nan")])
    session = ort.InferenceSession(_export(after(), (labels, wanted), dynamo=False), providers=["CPUExecutionProvider"])
    got = session.run(None, {"labels": labels.numpy(), "wanted": wanted.numpy()})[0]
    assert torch.equal(torch.from_numpy(got), before()(labels, wanted))
    scalar = torch.tensor(2.0)
    assert torch.equal(after()(scalar, wanted), before()(scalar, wanted))
    with pytest.raises(RuntimeError, match="Bool"):  # torch.isin's own error, kept
        after()(torch.tensor([True]), torch.tensor([True]))
