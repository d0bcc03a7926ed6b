"""The pool-1d recipe (TRT603) on real-code variants.

Each variant in ``tests/recipe_variants/trt603/`` is a small runnable model reduced from a public
repository (cited in its docstring) that pools along one axis with ``nn.AvgPool1d``/``nn.MaxPool1d``
or ``F.avg_pool1d``/``F.max_pool1d``, in the form the original writes it: Autoformer's moving
average (a module with keywords, on a series padded by repeating its ends and permuted), PANNs'
Cnn14 (the two functions side by side, all keywords), Tacotron's CBHG (a module with padding 1 whose
extra frame is sliced off), Informer's distilling layer (a strided module after a circular
convolution, two of them in a ``ModuleList``) and SpeechBrain's ``Pooling1d`` (``torch.nn.`` modules
chosen by branches in ``__init__``, the pooled axis moved last by ``transpose``). Every original
exports, but with 1-D AveragePool/MaxPool nodes, which TensorRT refuses: the graph check names them
TRT603. ``migrate`` applies TRT603 where each pool is built or called (the modules as verified
candidates, the functions as safe fixes) and ends with exit 0, the rewritten model equivalent and
its graph free of TensorRT errors. Two variants are also rewritten by the rule and exported
directly (one with the dynamo exporter too): the pools have 2-D kernels, the graph equals eager
mode at other lengths and batch sizes and on zeros, negatives, infinities and an empty batch, and
eager mode is unchanged bit for bit.

Not taken: Kim-CNN's max-over-time in LibMultiLabel, ``F.max_pool1d(h_sub, h_sub.shape[2])``, whose
kernel is the traced length; the test at the end pins what happens to it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, export_variant, export_variant_dynamo, input_names, load_variant,
                            rewritten_variant)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt603"
INF = float("inf")


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


#: variant -> (the text where each pool is built or called, the 1-D pool nodes of the original graph).
VARIANTS: dict[str, tuple[tuple[str, ...], dict[str, int]]] = {
    "autoformer_series_decomp": (("self.avg = nn.AvgPool1d(kernel_size=kernel_size",), {"AveragePool": 2}),
    "panns_cnn14_time_pooling": (("x1 = F.max_pool1d(x, kernel_size=3", "x2 = F.avg_pool1d(x, kernel_size=3"),
                                 {"MaxPool": 1, "AveragePool": 1}),
    "tacotron_cbhg_max_pool": (("self.max_pool1d = nn.MaxPool1d(kernel_size=2",), {"MaxPool": 1}),
    "informer_distilling_conv_layer": (("self.maxPool = nn.MaxPool1d(kernel_size=3",), {"MaxPool": 2}),
    "speechbrain_pooling1d": (("self.pool_layer = torch.nn.AvgPool1d(", "self.pool_layer = torch.nn.MaxPool1d("),
                              {"MaxPool": 1, "AveragePool": 1}),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_every_pool_from_the_code_alone(name: str) -> None:
    path = HERE / f"{name}.py"
    fragments, _ = VARIANTS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT603",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT603", _line_of(path, text)) for text in fragments]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt603_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    fragments, nodes = VARIANTS[name]
    module = load_variant(path, f"trt603_m_{name}")
    report = migrate_json(path, _axes_json(module))
    # The original exports, but its 1-D pools are nodes TensorRT refuses.
    assert report["before"]["exported"] is True and report["before"]["trt_errors_by_op"] == nodes, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == \
        sorted(("TRT603", _line_of(path, text)) for text in fragments), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_avg_pool1d(" in report["diff"] or "_trt_max_pool1d(" in report["diff"] \
        or "_TrtAvgPool1d(" in report["diff"] or "_TrtMaxPool1d(" in report["diff"], report["diff"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 5)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


def _one_inf_per_frame(tensor: torch.Tensor) -> torch.Tensor:
    out = tensor.clone()
    out[0, 4, 2], out[1, 9, 0], out[1, 17, 5] = INF, -INF, INF
    return out


#: variant -> (rewritten text, input sets at other sizes and edge values, dynamo too).
DIRECT = {
    "panns_cnn14_time_pooling": (
        ("x1 = _trt_max_pool1d(x, kernel_size=3, stride=1, padding=1)",
         "x2 = _trt_avg_pool1d(x, kernel_size=3, stride=1, padding=1)"), {
            "longer": (torch.randn(3, 1, 40, 16, generator=_g(1)),),
            "odd-frames": (torch.randn(1, 1, 13, 16, generator=_g(2)),),
            "four-frames": (torch.randn(2, 1, 4, 16, generator=_g(3)),),
            "zeros": (torch.zeros(2, 1, 24, 16),),
            "negatives": (-torch.rand(2, 1, 24, 16, generator=_g(4)) - 1,),
            "inf": (_with_inf(torch.randn(2, 1, 24, 16, generator=_g(5))),),
            "empty-batch": (torch.zeros(0, 1, 24, 16),),
        }, False),
    "speechbrain_pooling1d": (
        ("self.pool_layer = _TrtAvgPool1d(", "self.pool_layer = _TrtMaxPool1d("), {
            "longer": (torch.randn(3, 47, 6, generator=_g(6)),),
            "short": (torch.randn(1, 3, 6, generator=_g(7)),),
            "ceil-tail": (torch.randn(2, 21, 6, generator=_g(8)),),
            "zeros": (torch.zeros(2, 20, 6),),
            "negatives": (-torch.rand(2, 20, 6, generator=_g(9)) - 1,),
            # One infinity per frame: two in a frame make the first Linear's inf - inf, which ONNX
            # Runtime's GEMM and torch resolve differently (before the pools, with or without the rewrite).
            "inf": (_one_inf_per_frame(torch.randn(2, 20, 6, generator=_g(10))),),
            "empty-batch": (torch.zeros(0, 20, 6),),
        }, True),
}


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """Shape and dtype; values to 1e-5 of the largest finite magnitude; NaN and infinities where eager has them."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)


def _pools(graph: onnx.ModelProto) -> list[list[int]]:
    return sorted(list(onnx.helper.get_attribute_value(a)) for n in graph.graph.node
                  if n.op_type in ("AveragePool", "MaxPool") for a in n.attribute if a.name == "kernel_shape")


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_2d_windows_and_equals_eager(name: str, tmp_path: Path) -> None:
    rewritten_text, others, with_dynamo = DIRECT[name]
    variant = rewritten_variant(HERE / f"{name}.py", "TRT603", tmp_path)
    for text in rewritten_text:
        assert text in variant["source"], variant["source"]
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(_g(0))

    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is None, before.error
    graph = onnx.load(str(tmp_path / "before.onnx"))
    one_d = [kernel for kernel in _pools(graph) if len(kernel) == 1]
    two_d = [kernel for kernel in _pools(graph) if len(kernel) == 2]
    assert one_d, _pools(graph)
    assert {i.rule for i in check_graph(graph) if i.op in ("AveragePool", "MaxPool")} == {"TRT603"}

    sessions = {"torchscript": export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx",
                                              tmp_path)[0]}
    graph = onnx.load(str(tmp_path / "after.onnx"))
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
        graph_dynamo = onnx.load(str(tmp_path / "dynamo.onnx"))
        assert sorted(_pools(graph_dynamo)) == sorted(two_d + [[1, k] for [k] in one_d]), _pools(graph_dynamo)
    # Each 1-D window is now the 2-D window (1, k); the 2-D pools the model had stay.
    assert _pools(graph) == sorted(two_d + [[1, k] for [k] in one_d]), _pools(graph)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        for exporter, session in sessions.items():
            _graph_equals_eager(session, original, inputs, f"{exporter} {label}")
    assert_eager_unchanged(original, rewritten, sets)


KIM_CNN = '''\
import torch
import torch.nn.functional as F
from torch import nn


class CNNEncoder(nn.Module):
    # LibMultiLabel 6e8fa71, libmultilabel/nn/networks/modules.py:136-145 (num_pool == 1, Kim-CNN).

    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(6, 4, kernel_size=k) for k in (2, 3)])

    def forward(self, input):
        h = input.transpose(1, 2)
        h_list = []
        for conv in self.convs:
            h_sub = conv(h)
            h_sub = F.max_pool1d(h_sub, h_sub.shape[2])
            h_list.append(h_sub)
        return torch.cat(h_list, 1)


def build():
    return CNNEncoder()


def inputs(generator):
    return (torch.randn(2, 10, 6, generator=generator),)
'''


def test_not_taken_a_kernel_that_is_the_traced_length(tmp_path: Path) -> None:
    """Kim-CNN's max over time passes the length itself as the kernel. The rule rewrites the call,
    but while tracing ``h_sub.shape[2]`` is a traced value, not an int, so the helper keeps torch's
    function: the graph still has a 1-D MaxPool, and its kernel is the example's length, so at another
    length it pools the first frames only."""
    path = tmp_path / "kim_cnn.py"
    path.write_text(KIM_CNN)
    variant = rewritten_variant(path, "TRT603", tmp_path)
    assert "h_sub = _trt_max_pool1d(h_sub, h_sub.shape[2])" in variant["source"]
    module, rewritten = variant["module"], variant["rewritten"]
    session, _ = export_variant(rewritten, module.inputs(_g(0)), {"input": {0: "batch", 1: "length"}},
                                tmp_path / "kim.onnx", tmp_path)
    graph = onnx.load(str(tmp_path / "kim.onnx"))
    assert _pools(graph) == [[9], [8]] or _pools(graph) == [[8], [9]], _pools(graph)
    assert {i.rule for i in check_graph(graph) if i.op == "MaxPool"} == {"TRT603"}
    longer = torch.randn(2, 16, 6, generator=_g(1))
    longer[:, -1] = 100.0  # the last frame holds every maximum
    [got] = session.run(None, {"input": longer.numpy()})
    with torch.no_grad():
        want = variant["original"](longer).numpy()
    assert got.shape == want.shape and not np.allclose(got, want)
