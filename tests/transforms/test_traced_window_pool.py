"""TRT395: pooling whose window or stride is computed from the input's size → gathered windows while exporting.

PSPNet's pyramid pooling (``k_sizes.append((int(h / p), int(w / p)))``, then ``F.avg_pool2d(x, k_sizes[i],
stride=strides[i])``): read with ``int()`` the trace bakes the example's windows; kept traced (TRT712) the export
stops on a kernel that is not constant. With both rewrites the graph pools the windows of every size. Eager mode is
torch's call itself (the safety contract, scripting, fx, compile and torch.export run in tests/safety/).
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import rewrite, strip_helpers
from variant_models import assert_migrate_corrects

from trtcodemod.trt.check import check_graph

VARIANT = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt395" / "ptsemseg_pyramid_pooling.py"

SOURCE = """import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import max_pool2d


class Pyramid(nn.Module):
    def __init__(self, bins=(4, 2, 1)):
        super().__init__()
        self.bins = bins
        self.k = 2

    def forward(self, x):
        h, w = x.shape[2:]
        k_sizes = []
        for b in self.bins:
            k_sizes.append((int(h / b), int(w / b)))
        pooled = [F.avg_pool2d(x, k_sizes[i], stride=k_sizes[i], padding=0) for i in range(len(self.bins))]
        strip = max_pool2d(x, (int(h / 2), 1), stride=(int(h / 2), 1))
        half = math.floor(x.size(3) / 2)
        column = F.avg_pool2d(x, (1, half))
        plain = F.avg_pool2d(x, 2) + F.max_pool2d(x, self.k)
        whole = F.avg_pool2d(x, x.size()[2:]) + F.avg_pool2d(x, kernel_size=(int(x.size(2)), 1))[..., :1]
        indices = F.max_pool2d(x, (int(h / 2), 2), return_indices=True)[1]
        return [p.flatten(1) for p in pooled], strip, column, plain, whole, indices
"""


def test_rewrite_text_and_what_is_left() -> None:
    body = strip_helpers(rewrite(SOURCE, select=("TRT395",)))  # a safe fix: no --unsafe needed
    assert "pooled = [_trt_traced_avg_pool2d(x, k_sizes[i], stride=k_sizes[i], padding=0) for i in" in body
    assert "strip = _trt_traced_max_pool2d(x, (int(h / 2), 1), stride=(int(h / 2), 1))" in body
    assert "column = _trt_traced_avg_pool2d(x, (1, half))" in body
    # literal and attribute windows, a whole-axis window (TRT342's) and `return_indices` are left as written
    assert "plain = F.avg_pool2d(x, 2) + F.max_pool2d(x, self.k)" in body
    assert "whole = F.avg_pool2d(x, x.size()[2:]) + F.avg_pool2d(x, kernel_size=(int(x.size(2)), 1))[..., :1]" in body
    assert "indices = F.max_pool2d(x, (int(h / 2), 2), return_indices=True)[1]" in body
    once = rewrite(SOURCE, select=("TRT395",))
    assert rewrite(once, select=("TRT395",)) == once


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """The original, TRT395 alone, and TRT395 with TRT712's traced `int()`."""
    alone = rewrite(SOURCE, select=("TRT395",))
    both = rewrite(SOURCE, select=("TRT395", "TRT712"), unsafe=True)
    return tuple(import_source(code, tmp_path_factory.mktemp(name))["Pyramid"]
                 for name, code in (("original", SOURCE), ("alone", alone), ("both", both)))


def _same(got, want) -> None:
    if isinstance(want, (list, tuple)):
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(), want.nan_to_num())


def test_eager_mode_is_the_original(programs) -> None:
    original, alone, both = (cls() for cls in programs)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 2, 8, 12, generator=g) * 4
    x[0, 0, 0, 0], x[1, 1, 2, 3], x[2, 0] = math.inf, math.nan, 0.0
    x[0, 1] = -x[0, 1].abs()
    for inputs in (x, x.half(), x.double(), x[:0], x[:, :, :7, :9]):
        want = original(inputs)
        _same(alone(inputs), want)
        _same(both(inputs), want)
    for model in (original, alone, both):
        with pytest.raises(RuntimeError):
            model(x[:, :, :3])  # a window of int(3 / 4) = 0 rows: torch's own error on every side


def _export(model: torch.nn.Module, example: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
    return onnx.load_from_string(buffer.getvalue())


class _Traced(torch.nn.Module):
    """The pyramid's outputs but two: the whole-axis window (TRT342's, which stops this export) and the indices of
    `return_indices` (left as written)."""

    def __init__(self, program) -> None:
        super().__init__()
        self.program = program()

    def forward(self, x):
        pooled, strip, column, plain, _, _ = self.program(x)
        return torch.cat(pooled, 1), strip, column, plain


def test_the_graph_pools_the_windows_of_every_size(programs) -> None:
    original, _, both = programs
    example = torch.randn(2, 3, 16, 20, generator=torch.Generator().manual_seed(1))
    baked = ort.InferenceSession(_export(_Traced(original), example).SerializeToString())
    graph = _export(_Traced(both), example)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    assert "AveragePool" in {n.op_type for n in graph.graph.node}  # the literal window keeps torch's pooling
    session = ort.InferenceSession(graph.SerializeToString())
    reference = _Traced(original)
    for shape in ((1, 3, 16, 20), (3, 3, 23, 37), (1, 3, 9, 5), (2, 3, 40, 8)):
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))
        want = [w.detach() for w in reference(x)]
        got = [torch.from_numpy(o) for o in session.run(None, {"x": x.numpy()})]
        for g, w in zip(got, want):
            assert g.shape == w.shape, (shape, g.shape, w.shape)
            assert torch.allclose(g, w, rtol=1e-5, atol=1e-6), (shape, (g - w).abs().max())
        if shape[2:] != (16, 20):  # the original's graph pools the example's windows
            old = [torch.from_numpy(o) for o in baked.run(None, {"x": x.numpy()})]
            assert any(o.shape != w.shape or not torch.allclose(o, w, atol=1e-4) for o, w in zip(old, want))


def test_traced_windows_alone_stop_the_export_and_the_pooling_takes_them(programs) -> None:
    """TRT712 alone keeps the windows traced and the export stops on them; with TRT395 it exports."""
    from trtcodemod.helpers.sizes import _trt_size_int
    from trtcodemod.helpers.traced_pooling import _trt_traced_max_pool1d

    class Stopped(torch.nn.Module):
        def forward(self, x):
            k = _trt_size_int(x.shape[-1] / 3)
            return torch.nn.functional.avg_pool2d(x.unsqueeze(-1), (k, 1), stride=(k, 1))

    class Taken(torch.nn.Module):
        def forward(self, x):
            k = _trt_size_int(x.shape[-1] / 3)
            return _trt_traced_max_pool1d(x, k, stride=k)

    x = torch.randn(2, 4, 12)
    buffer = io.BytesIO()
    with warnings.catch_warnings(), pytest.raises(Exception, match="not constant"):
        warnings.simplefilter("ignore")
        torch.onnx.export(Stopped(), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {2: "t"}})
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Taken(), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {2: "t"}})
    session = ort.InferenceSession(buffer.getvalue())
    for length in (12, 17, 3):
        y = torch.randn(2, 4, length)
        y[0, 0, 0] = math.nan
        k = int(length / 3)
        want = torch.nn.functional.max_pool1d(y, k, stride=k)
        got = torch.from_numpy(session.run(None, {"x": y.numpy()})[0])
        assert got.shape == want.shape and torch.equal(got.isnan(), want.isnan())
        assert torch.equal(got.nan_to_num(), want.nan_to_num())


def test_migrate_fixes_pspnets_pyramid_pooling() -> None:
    """pytorch-semseg's pyramid pooling (torchxrayvision's ChestX-Det PSPNet ships the same code): migrate applies
    TRT712 at both `int()` lines and TRT395 at the pooling, and ends equivalent at exit 0."""
    report = assert_migrate_corrects(VARIANT, "TRT395", "trt395_ptsemseg")
    lines = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert {("TRT712", 38), ("TRT712", 39)} <= lines


# --- the real-code variants, each from another owner -------------------------------------------------------------

FOLDER = VARIANT.parent
#: variant -> (the line TRT395 writes from the code alone, sizes (batch, height, width) its pooling takes).
VARIANTS = {
    "ptsemseg_pyramid_pooling": ("out = _trt_traced_avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)",
                                 [(1, 12, 18), (3, 37, 29)]),
    "yolox_obb_adaptive_pool_export": (
        "x = _trt_traced_avg_pool2d(x, kernel_size=kernel, stride=kernel, padding=0, ceil_mode=False)",
        [(1, 3, 4), (3, 29, 17)]),
    "mmdeploy_adaptive_avg_pool": (
        "        out = _trt_traced_avg_pool2d(\n            input,\n            kernel_size=k,\n",
        [(1, 2, 3), (3, 31, 8)]),
    "multiagent_pyramid_sum": ("out = _trt_traced_avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)",
                               [(1, 6, 6), (3, 41, 23)]),
    "buildingheight_pspnet_head": ("out = _trt_traced_avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)",
                                   [(1, 12, 12), (3, 70, 45)]),
}


def _input_sets(module, sizes) -> dict[str, tuple]:
    """The example, other sizes, zeros, negatives, inf/NaN, an empty batch and a size too small for a window."""
    from variant_models import seeded, with_specials

    [example] = module.inputs(seeded(0))
    sets = {"example": (example,), **{f"size {s}": module.inputs(seeded(sum(s) + 1), *s) for s in sizes}}
    sets["zeros"] = (torch.zeros_like(example),)
    sets["negatives"] = (-example.abs() - 1,)
    sets["inf-nan"] = (with_specials(tuple(example.shape), 3),)
    sets["empty batch"] = (example[:0],)
    sets["too small"] = (example[:, :, :1, :1],)  # a window of int(1 / p) = 0 rows: torch's own error on both sides
    return sets


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_from_the_code_alone_keeps_eager_mode(tmp_path: Path, name: str) -> None:
    from support import rules_found
    from variant_models import assert_eager_unchanged, rewritten_variant

    fragment, sizes = VARIANTS[name]
    variant = rewritten_variant(FOLDER / f"{name}.py", "TRT395", tmp_path)
    assert fragment in variant["source"], variant["source"]
    assert variant["safe_only"] == variant["source"]  # a safe fix: the same text without --unsafe
    assert rules_found(variant["source"], select=("TRT395",)) == []
    assert rewrite(variant["source"], select=("TRT395",)) == variant["source"]
    assert_eager_unchanged(variant["original"], variant["rewritten"], _input_sets(variant["module"], sizes))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_graph_pools_the_windows_of_every_size(tmp_path: Path, name: str) -> None:
    """The original's TorchScript graph pools the example's windows (wrong at other sizes); with TRT395 and TRT712
    (given what migrate observes: the observer's run and the export's TracerWarnings) the graph equals eager mode at
    every size."""
    from trtcodemod.engine import Options
    from variant_models import (assert_graph_within, built, built_variant, export_variant, graph_matches,
                                observed_facts, rewrite_variant)

    path = FOLDER / f"{name}.py"
    fragment, sizes = VARIANTS[name]
    module, original = built_variant(path, f"trt395_graph_{name}")
    sets = {k: v for k, v in _input_sets(module, sizes).items() if k not in ("empty batch", "too small")}
    baked, traced = export_variant(original, sets["example"], module.DYNAMIC, tmp_path / "before.onnx", FOLDER)
    assert not graph_matches(baked, original, sets[f"size {sizes[1]}"])
    facts = observed_facts(path, module, tmp_path / "work", traced)
    options = Options(select=("TRT395", "TRT712"), unsafe=True, scope="all", facts=facts)
    text, rewritten_module = rewrite_variant(path, options, tmp_path, f"trt395_graph_rewritten_{name}")
    assert fragment in text and "_trt_size_int(" in text
    rewritten = built(rewritten_module)
    session, _ = export_variant(rewritten, sets["example"], module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", [n for n in VARIANTS if n != "ptsemseg_pyramid_pooling"])
def test_migrate_takes_each_variant_end_to_end(name: str) -> None:
    """migrate applies TRT395 at the pooling and TRT712 at the `int()` that makes its window, and ends equivalent."""
    from variant_models import line_of

    path = FOLDER / f"{name}.py"
    report = assert_migrate_corrects(path, "TRT395", f"trt395_migrate_{name}")
    window = "kernel = [int(" if name.startswith("yolox") else "k = [int(" if name.startswith("mmdeploy") \
        else "k_sizes.append((int(h / pool_size)"
    assert ("TRT712", line_of(path, window)) in {(fix["rule"], fix["line"]) for fix in report["applied"]}


def test_the_variants_are_cited_by_distinct_owners() -> None:
    from variant_models import assert_cited_by_distinct_owners

    assert_cited_by_distinct_owners(FOLDER, list(VARIANTS), count=5)
