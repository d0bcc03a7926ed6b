"""The suite builds the dynamo exporter's table of torchlib functions once per opset
(``tests/conftest.py``): each export still gets a table of its own, equal to the one the exporter
builds, and exports the same graph."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn


class _Net(nn.Module):
    def forward(self, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.atan2(y, x).cumsum(0) + x.softmax(-1)


def _functions(table) -> dict:
    return {name: [meta.onnx_function for meta in metas] for name, metas in table.functions.items()}


def _export() -> bytes:
    example = (torch.randn(4, 3), torch.randn(4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(_Net(), example, dynamo=True, verbose=False, input_names=["y", "x"],
                                    dynamic_shapes=({0: torch.export.Dim.AUTO}, {0: torch.export.Dim.AUTO}))
    return program.model_proto.SerializeToString()


@pytest.fixture
def builder(torchlib_table_built_once):
    if torchlib_table_built_once is None:
        pytest.skip("this torch builds no torchlib table")  # nothing is shared then
    return torchlib_table_built_once


def test_each_export_gets_its_own_copy_of_the_table_the_exporter_builds(builder) -> None:
    from torch.onnx._internal.exporter._registration import ONNXRegistry

    fresh, first, second = builder(18), ONNXRegistry.from_torchlib(18), ONNXRegistry.from_torchlib(18)
    assert first.opset_version == fresh.opset_version == 18
    assert _functions(first) == _functions(fresh) and len(fresh.functions) > 100
    name = next(iter(first.functions))
    first.functions[name].append(object())  # what registering a custom function does
    assert _functions(second) == _functions(fresh)


def test_a_dynamo_export_gives_the_graph_of_a_freshly_built_table(builder, monkeypatch) -> None:
    from torch.onnx._internal.exporter import _registration

    shared = _export()
    monkeypatch.setattr(_registration.ONNXRegistry, "from_torchlib", classmethod(lambda cls, opset_version=18:
                                                                                  builder(opset_version)))
    assert _export() == shared
