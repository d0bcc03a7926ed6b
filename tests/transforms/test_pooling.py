"""TRT601: adaptive average pooling as exact bins or a mean — rewrite, run, export. TRT602: adaptive max
pooling as the maxima of the exact bins while exporting — rewrite, the export form against torch (values, NaN,
inf, empty batch, contiguity), scripting, both exporters at other sizes, the real forms, and ``migrate`` on a
model pooled like ultralytics' YOLO-World ``ImagePoolingAttn`` (the pooled map viewed after the pool)."""

from __future__ import annotations

import io
import itertools
import textwrap
import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from snippets import found_selected as found
from support import assert_same, export_formulation, load, onnx_ops, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.pooling import (
    _trt_adaptive_avg_pool1d,
    _trt_adaptive_avg_pool2d,
    _trt_adaptive_max_pool1d,
    _trt_adaptive_max_pool2d,
    _TrtAdaptiveAvgPool1d,
    _TrtAdaptiveAvgPool2d,
    _TrtAdaptiveMaxPool1d,
    _TrtAdaptiveMaxPool2d,
)


MODEL = """
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import adaptive_avg_pool2d as aap


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.pool = nn.AdaptiveAvgPool2d(7)
        self.cls = nn.Sequential(nn.Conv2d(4, 4, 1), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(4, 2))
        self.rows = nn.AdaptiveAvgPool2d((3, None))

    def forward(self, x):
        feat = self.conv(x)
        glob = F.adaptive_avg_pool2d(feat, 1)              # global context
        strip = aap(feat, (1, None))
        grid = F.adaptive_avg_pool2d(feat, output_size=(2, 5))
        seq = F.adaptive_avg_pool1d(feat.flatten(2), 6)
        return self.pool(feat), self.cls(feat), self.rows(feat), glob, strip, grid, seq
"""

# Rounding-level tolerances (a different summation order than PyTorch's kernel).
TOL = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3}


def _close(expected: torch.Tensor, actual: torch.Tensor) -> None:
    tol = TOL[expected.dtype]
    assert_same(expected, actual, atol=tol, rtol=tol)


def test_rewrite_text() -> None:
    after = rewrite(MODEL, unsafe=True)
    sites = strip_helpers(after)
    assert "self.pool = _TrtAdaptiveAvgPool2d(7)" in sites
    # Output size 1 exports as GlobalAveragePool for any input size: left alone.
    assert "nn.Sequential(nn.Conv2d(4, 4, 1), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(4, 2))" in sites
    assert "self.rows = _TrtAdaptiveAvgPool2d((3, None))" in sites
    assert "glob = F.adaptive_avg_pool2d(feat, 1)              # global context" in sites
    assert "strip = _trt_adaptive_avg_pool2d(feat, (1, None))" in sites
    assert "grid = _trt_adaptive_avg_pool2d(feat, output_size=(2, 5))" in sites
    assert "seq = _trt_adaptive_avg_pool1d(feat.flatten(2), 6)" in sites
    assert after.count("def _trt_adaptive_bin_sum(") == 1 and after.count("class _TrtAdaptiveAvgPool2d(") == 1
    assert rewrite(after, unsafe=True) == after


INPUTS = {
    "random": torch.randn(2, 3, 9, 11),
    "small": torch.randn(1, 3, 2, 3),          # n < o: bins overlap and repeat
    "exact": torch.randn(1, 3, 7, 7),          # n == o
    "empty-batch": torch.empty(0, 3, 8, 8),
    "zeros-neg": -torch.zeros(1, 3, 5, 5),
}


@pytest.mark.parametrize("name", list(INPUTS))
def test_same_results(name: str) -> None:
    torch.manual_seed(0)
    before = load(MODEL, "Head")()
    after = load(rewrite(MODEL, unsafe=True), "Head")()
    after.load_state_dict(before.state_dict())  # identical keys: Sequential indices did not shift
    assert list(before.state_dict()) == list(after.state_dict())
    x = INPUTS[name]
    for expected, actual in zip(before(x), after(x)):
        _close(expected, actual)


def _pool2d_export(x: torch.Tensor, size) -> torch.Tensor:
    """What ``_trt_adaptive_avg_pool2d`` computes inside ``torch.onnx.export``."""
    with export_formulation():
        return _trt_adaptive_avg_pool2d(x, size)


def _pool1d_export(x: torch.Tensor, size) -> torch.Tensor:
    with export_formulation():
        return _trt_adaptive_avg_pool1d(x, size)


@pytest.mark.parametrize("dtype", list(TOL))
def test_helper_matches_torch_on_many_sizes(dtype) -> None:
    generator = torch.Generator().manual_seed(1)
    for n_h, n_w, o_h, o_w in itertools.product([1, 3, 14], [2, 5, 10], [1, 2, 5, None], [1, 3, 4, None]):
        x = torch.randn(2, 3, n_h, n_w, generator=generator).to(dtype)
        _close(F.adaptive_avg_pool2d(x, (o_h, o_w)), _pool2d_export(x, (o_h, o_w)))
        _close(F.adaptive_avg_pool2d(x[0], (o_h, o_w)), _pool2d_export(x[0], (o_h, o_w)))  # (C, H, W)
    for n, o in itertools.product([1, 3, 8, 13], [1, 2, 5, 8, 20]):
        x = torch.randn(2, 3, n, generator=generator).to(dtype)
        _close(F.adaptive_avg_pool1d(x, o), _pool1d_export(x, o))
        _close(F.adaptive_avg_pool1d(x[0], o), _pool1d_export(x[0], o))


def test_inf_and_nan_stay_in_their_bins() -> None:
    x = torch.randn(1, 2, 9, 10, dtype=torch.float64)
    x[0, 0, 1, 1] = float("inf")
    x[0, 0, 8, 9] = float("nan")
    x[0, 1, 4, 4] = -float("inf")
    for size in [(4, 3), (2, 2), (9, 10), (12, 15), (3, None)]:
        expected, actual = F.adaptive_avg_pool2d(x, size), _pool2d_export(x, size)
        _close(expected, actual)
        assert torch.isfinite(actual).sum() == torch.isfinite(expected).sum() > 0
    x = torch.tensor([[[1.0, float("inf"), 2.0, -float("inf"), 3.0]]])
    _close(F.adaptive_avg_pool1d(x, 3), _pool1d_export(x, 3))


def test_half_precision_sums_do_not_overflow() -> None:
    x = torch.full((1, 1, 6, 6), 60000.0, dtype=torch.float16)  # a bin's sum exceeds float16's range
    _close(F.adaptive_avg_pool2d(x, (2, 4)), _pool2d_export(x, (2, 4)))
    assert torch.isfinite(_pool2d_export(x, (2, 4))).all()


def test_rejects_what_torch_rejects() -> None:
    for bad in (torch.ones(2, 4, 4, dtype=torch.long), torch.randn(4, 4), torch.randn(1, 1, 1, 4, 4)):
        with pytest.raises((RuntimeError, ValueError)):
            F.adaptive_avg_pool2d(bad, 3)
        with pytest.raises((RuntimeError, ValueError)):
            _pool2d_export(bad, 3)


def test_modules_keep_the_torch_interface() -> None:
    pool = _TrtAdaptiveAvgPool2d((7, None))
    assert isinstance(pool, torch.nn.AdaptiveAvgPool2d) and pool.output_size == (7, None)
    assert not list(pool.state_dict())
    x = torch.randn(2, 3, 15, 6)
    assert_same(torch.nn.AdaptiveAvgPool2d((7, None))(x), pool(x))
    with export_formulation():
        _close(torch.nn.AdaptiveAvgPool2d((7, None))(x), pool(x))
    pool1d = _TrtAdaptiveAvgPool1d(4)
    assert isinstance(pool1d, torch.nn.AdaptiveAvgPool1d)
    assert_same(torch.nn.AdaptiveAvgPool1d(4)(x[:, :, 0]), pool1d(x[:, :, 0]))
    with export_formulation():
        _close(torch.nn.AdaptiveAvgPool1d(4)(x[:, :, 0]), pool1d(x[:, :, 0]))


def _export(model: torch.nn.Module, x: torch.Tensor, axes: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": axes})
    return buffer.getvalue()


POOL = "import torch.nn.functional as F\nfrom torch import nn\n" \
       "class M(nn.Module):\n    def forward(self, x):\n        return F.adaptive_avg_pool2d(x, {size})\n"


@pytest.mark.parametrize("size", ["7", "(2, 3)", "(5, None)"])
def test_export_with_dynamic_spatial_axes(size: str) -> None:
    """The exporter refuses these with dynamic H/W; the rewrite exports and stays exact at other sizes."""
    import onnxruntime

    code = POOL.format(size=size)
    axes = {0: "n", 2: "h", 3: "w"}
    x = torch.randn(2, 3, 14, 14)
    with pytest.raises(Exception, match="adaptive"):
        _export(load(code, "M")(), x, axes)
    model = load(rewrite(code, unsafe=True), "M")()
    session = onnxruntime.InferenceSession(_export(model, x, axes), providers=["CPUExecutionProvider"])
    for shape in [(1, 3, 5, 9), (3, 3, 20, 6), (1, 3, 1, 1), (0, 3, 4, 4)]:
        x = torch.randn(shape)
        x[..., 0, 0] = float("inf")
        expected = F.adaptive_avg_pool2d(x, eval(size))
        _close(expected, torch.from_numpy(session.run(None, {"x": x.numpy()})[0]))


def test_size_one_is_left_alone_and_exports_as_global_pool() -> None:
    code = POOL.format(size="(1, 1)")
    assert "TRT601" not in rules_found(code)
    ops = onnx_ops(load(code, "M")(), (torch.randn(2, 3, 5, 6),), input_names=["x"],
                   dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
    assert ops == ["GlobalAveragePool"]


def test_not_rewritten() -> None:
    code = """
    import torch.nn.functional as F
    from torch import nn

    def adaptive_avg_pool2d(x, s):
        return x

    class MyPool(nn.AdaptiveAvgPool2d):                # subclass: reported
        pass

    def build(x, args, kw, layer):
        a = adaptive_avg_pool2d(x, 7)                   # the user's own function
        b = F.adaptive_avg_pool2d(*args)                # star-args: reported
        c = nn.AdaptiveAvgPool2d(**kw)
        d = dict(pool=nn.AdaptiveAvgPool2d)             # passed as a value: reported
        e = isinstance(layer, (nn.AdaptiveAvgPool2d, nn.Conv2d))
        f = F.adaptive_max_pool2d(x, 7)
        return a, b, c, d, e, f
    """
    assert rules_found(code, select=("TRT601",)) == ["TRT601"] * 4  # the max form is TRT602's
    assert rewrite(code, select=("TRT601",), unsafe=True) == textwrap.dedent(code)


def test_inserted_helpers_are_not_flagged() -> None:
    after = rewrite(MODEL, unsafe=True)
    assert "TRT601" not in rules_found(after)


AREA = "import torch.nn.functional as F\nfrom torch import nn\n" \
       "class M(nn.Module):\n    def forward(self, x):\n" \
       "        return F.interpolate(x, size={size}, mode=\"area\") * 2\n"


@pytest.mark.parametrize("size", ["(2, 3)", "6", "(3, 3)"])
def test_area_resize_is_adaptive_pooling(size: str) -> None:
    """segmentation_models_pytorch 0.6.0's PSPNet (pspnet/decoder.py:42) pools with
    ``F.interpolate(x, size=(s, s), mode="area")`` while exporting: torch computes it with
    ``adaptive_avg_pool2d``, so the export fails the same way; the rewrite exports and follows every size."""
    import onnxruntime

    code = AREA.format(size=size)
    new = rewrite(code, unsafe=True)
    assert f"return _trt_area_resize(x, {size}) * 2" in new
    original, rewritten = load(code, "M")(), load(new, "M")()
    # Eager mode is F.interpolate itself: bit for bit, errors included.
    for shape in [(2, 3, 14, 14), (1, 3, 5, 9), (0, 3, 4, 4), (1, 2, 1, 1)]:
        base = torch.randn(shape)
        special = base.clone()
        special.view(-1)[:2] = torch.tensor([float("inf"), float("nan")])[: special.numel()]
        for x in (base, torch.zeros(shape), -base.abs() - 1, special):
            assert_same(original(x), rewritten(x))
    for bad in (torch.randn(3, 5), torch.zeros(2, 3, 4, 4, dtype=torch.long)):
        with pytest.raises(Exception) as before:
            original(bad)
        with pytest.raises(type(before.value)):
            rewritten(bad)
    axes = {0: "n", 2: "h", 3: "w"}
    x = torch.randn(2, 3, 14, 14)
    with pytest.raises(Exception, match="adaptive"):
        _export(original, x, axes)
    session = onnxruntime.InferenceSession(_export(rewritten, x, axes), providers=["CPUExecutionProvider"])
    for shape in [(1, 3, 5, 9), (3, 3, 20, 6), (1, 3, 2, 2), (0, 3, 4, 4)]:
        x = torch.randn(shape)
        x[..., 0, 0] = float("inf")
        _close(original(x), torch.from_numpy(session.run(None, {"x": x.numpy()})[0]))


def test_area_resize_left_alone_or_reported() -> None:
    code = """
    import torch.nn.functional as F

    def build(x, kw):
        a = F.interpolate(x, size=(7, 7), mode="bilinear")     # another mode
        b = F.interpolate(x, size=(1, 1), mode="area")         # one bin: GlobalAveragePool
        c = F.interpolate(x, scale_factor=0.5, mode="area")    # a scale: reported
        d = F.interpolate(x, size=(3, 3), mode="area", **kw)   # more arguments: reported
        return a, b, c, d
    """
    assert rules_found(code, select=("TRT601",)) == ["TRT601"] * 2
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_area_resize_scripts_traces_and_exports_like_the_original(tmp_path) -> None:
    """TorchScript compiles the helper (its ONNX branch behind ``torch.jit.is_scripting()``), and
    fx and torch.export record the same values as the original's area resize."""
    from safety import import_source

    code = AREA.format(size="(self.s, self.s)").replace(
        "class M(nn.Module):\n", "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                "        self.s = 3\n\n")
    original = import_source(code, tmp_path)["M"]()
    rewritten = import_source(rewrite(code, unsafe=True), tmp_path)["M"]()
    x = torch.randn(2, 3, 7, 9)
    expected = original(x)
    assert_same(torch.jit.script(original)(x), torch.jit.script(rewritten)(x))
    assert_same(expected, torch.fx.symbolic_trace(rewritten)(x))
    assert_same(torch.export.export(original, (x,)).module()(x), torch.export.export(rewritten, (x,)).module()(x))


# --- TRT602 adaptive max pooling: findings, look-alikes and what the export does ---------------

@pytest.mark.parametrize("code", [
    "y = F.adaptive_max_pool2d(x, (7, 7))\n",
    "y = F.adaptive_max_pool2d(x, output_size=3)\n",
    "y = F.adaptive_max_pool1d(x, 8)\n",
    "y = torch.nn.functional.adaptive_max_pool3d(x, 2)\n",
    "from torch.nn.functional import adaptive_max_pool2d as amp\ny = amp(x, (1, 4))\n",
    "pool = nn.AdaptiveMaxPool2d((4, None))\n",
    "pool = nn.AdaptiveMaxPool2d(size)\n",
    "pool = nn.AdaptiveMaxPool2d(2, return_indices=True)\n",
    "from torch.nn import AdaptiveMaxPool1d\npool = AdaptiveMaxPool1d(5)\n",
])
def test_adaptive_max_pool_reported(code: str) -> None:
    assert found(code, "TRT602") == ["TRT602"]


@pytest.mark.parametrize("code", [
    "y = F.adaptive_max_pool2d(x, 1)\n",  # GlobalMaxPool
    "y = F.adaptive_max_pool2d(x, (1, 1))\n",
    "pool = nn.AdaptiveMaxPool2d(1, return_indices=True)\n",
    "pool = nn.AdaptiveMaxPool3d((1, 1, 1))\n",
    "pool = nn.AdaptiveAvgPool2d(7)\n",  # the average form is TRT601's
    "pool = nn.MaxPool2d(2)\n",
    "def adaptive_max_pool2d(x, s):\n    return x\ny = adaptive_max_pool2d(x, 7)\n",  # a user's own function
])
def test_adaptive_max_pool_not_reported(code: str) -> None:
    assert found(code, "TRT602") == []


class _Pool(nn.Module):
    def __init__(self, size) -> None:
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d(size)

    def forward(self, x):
        return self.pool(x)


def test_adaptive_max_pool_export_claims() -> None:
    x = torch.randn(2, 3, 8, 8)
    dynamic = {"input_0": {2: "h", 3: "w"}}
    # Output size 1 is GlobalMaxPool for any input size (not reported).
    assert onnx_ops(_Pool(1), (x,), dynamic_axes=dynamic) == ["GlobalMaxPool"]
    # Dividing and static: an exact MaxPool.
    assert onnx_ops(_Pool(4), (x,)) == ["MaxPool"]
    with pytest.raises(Exception, match="input size not accessible"):
        onnx_ops(_Pool(4), (x,), dynamic_axes=dynamic)
    with pytest.raises(Exception, match="not factor of input size"):
        onnx_ops(_Pool(3), (x,))


def test_adaptive_max_pool_dynamo_bakes_the_kernel() -> None:
    from torch.export import Dim

    model = _Pool(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(model, (torch.randn(2, 3, 8, 8),), dynamo=True,
                                    dynamic_shapes=({2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)},))
    session = ort.InferenceSession(program.model_proto.SerializeToString())
    x = torch.randn(2, 3, 16, 16)
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
    assert model(x).shape == (2, 3, 4, 4)
    assert got.shape == (2, 3, 8, 8)  # the example's 2x2 kernel, silently


# --- TRT602's fix: the maxima of PyTorch's exact bins while exporting -------------------------

@pytest.mark.parametrize(("code", "want"), [
    ("y = F.adaptive_max_pool2d(x, (7, 7))\n", "y = _trt_adaptive_max_pool2d(x, (7, 7))\n"),
    ("y = F.adaptive_max_pool1d(x, output_size=4)\n", "y = _trt_adaptive_max_pool1d(x, output_size=4)\n"),
    ("m = nn.ModuleList([nn.AdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n",
     "m = nn.ModuleList([_TrtAdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n"),
    ("m = nn.AdaptiveMaxPool1d(output_size=8)\n", "m = _TrtAdaptiveMaxPool1d(output_size=8)\n"),
])
def test_adaptive_max_pool_rewrite_is_unsafe(code: str, want: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n" + code
    assert rewrite(source, select=("TRT602",)) == textwrap.dedent(source)  # not without --unsafe
    after = rewrite(source, select=("TRT602",), unsafe=True)
    assert after.endswith(want), after
    assert rewrite(after, select=("TRT602",), unsafe=True) == after


@pytest.mark.parametrize("code", [
    "y, i = F.adaptive_max_pool2d(x, 7, return_indices=True)\n",
    "y = F.adaptive_max_pool2d(x, 7, False)\n",  # a third argument: not the helper's
    "y, i = torch.adaptive_max_pool1d(x, 3)\n",  # returns the indices too
    "y = F.adaptive_max_pool3d(x, 3)\n",
    "m = nn.AdaptiveMaxPool2d(3, True)\n",
    "m = nn.AdaptiveMaxPool2d(**kw)\n",
    "m = nn.AdaptiveMaxPool3d((2, 2, 2))\n",
])
def test_adaptive_max_pool_reported_without_a_fix(code: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n" + code
    assert found(code, "TRT602") == ["TRT602"]
    assert rewrite(source, select=("TRT602",), unsafe=True) == textwrap.dedent(source)


def _max_cases() -> list[tuple[torch.Tensor, object]]:
    g = torch.Generator().manual_seed(3)
    special = torch.randn(2, 3, 9, 7, generator=g)
    special[0, 0, 0, 0], special[0, 1, 4, 3], special[1, 2, 8, 6] = float("nan"), float("inf"), -float("inf")
    special[1, 1] = -float("inf")  # a whole map of -inf
    cases = []
    for x in (torch.randn(2, 3, 7, 7, generator=g) * 3 - 1, torch.randn(3, 13, 5, generator=g), special,
              torch.zeros(0, 2, 6, 6), -torch.rand(1, 2, 5, 11, generator=g),
              torch.randn(1, 2, 6, 6, generator=g).half(), torch.randn(1, 2, 6, 6, generator=g).double(),
              torch.randn(2, 3, 8, 8, generator=g).contiguous(memory_format=torch.channels_last)):
        for size in ((3, 3), (2, 5), (7, 7), (1, 4), (4, None), (None, 2), (9, 9), 3, 1):
            cases.append((x, size))
    return cases


@pytest.mark.parametrize(("x", "size"), _max_cases())
def test_adaptive_max_pool_export_form_is_torchs(x: torch.Tensor, size: object) -> None:
    expected = F.adaptive_max_pool2d(x, size)
    with export_formulation():
        got = _trt_adaptive_max_pool2d(x, size)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert torch.equal(torch.isnan(got), torch.isnan(expected))
    assert torch.equal(torch.nan_to_num(got, nan=0.0), torch.nan_to_num(expected, nan=0.0))
    if x.is_contiguous():
        assert got.is_contiguous()  # a `view` after the pool traces as it runs (ultralytics' ImagePoolingAttn)


@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 11), (0, 2, 6), (1, 1, 2)])
def test_adaptive_max_pool1d_export_form_is_torchs(shape: tuple[int, ...]) -> None:
    x = torch.randn(shape)
    for size in (3, 1, 5, 11, 14, (4,)):
        with export_formulation():
            got = _trt_adaptive_max_pool1d(x, size)
        assert torch.equal(got, F.adaptive_max_pool1d(x, size)), size


def test_adaptive_max_pool_errors_and_eager_are_torchs() -> None:
    for x, size in ((torch.randn(2, 3, 0, 5), 2), (torch.ones(1, 2, 5, 5, dtype=torch.long), 2),
                    (torch.randn(2, 3, 5), (2, 2, 2))):
        with pytest.raises(Exception) as theirs:
            F.adaptive_max_pool2d(x, size)
        for context in (export_formulation(), warnings.catch_warnings()):
            with context, pytest.raises(Exception) as ours:
                _trt_adaptive_max_pool2d(x, size)
            assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
    x = torch.randn(2, 3, 9, 9, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 3, 4, 4, dtype=torch.float64)
    (F.adaptive_max_pool2d(x, 4) * weight).sum().backward()
    expected, x.grad = x.grad.clone(), None
    (_trt_adaptive_max_pool2d(x, 4) * weight).sum().backward()  # eager: torch's own, one index per window
    assert torch.equal(x.grad, expected)


def test_adaptive_max_pool_modules_script_and_keep_the_interface() -> None:
    class Calls(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.two, self.one = _TrtAdaptiveMaxPool2d((3, 3)), _TrtAdaptiveMaxPool1d(4)

        def forward(self, x, y):
            return (self.two(y).sum() + self.one(x).sum() + _trt_adaptive_max_pool2d(y, 2).sum()
                    + _trt_adaptive_max_pool2d(y, [2, 3]).sum() + _trt_adaptive_max_pool1d(x, 2).sum())

    x, y = torch.randn(2, 3, 10), torch.randn(2, 3, 9, 9)
    assert torch.equal(torch.jit.script(Calls())(x, y), Calls()(x, y))
    ours, theirs = _TrtAdaptiveMaxPool2d((5, None)), nn.AdaptiveMaxPool2d((5, None))
    assert isinstance(ours, nn.AdaptiveMaxPool2d) and ours.extra_repr() == theirs.extra_repr()
    assert ours.state_dict().keys() == theirs.state_dict().keys() and torch.equal(ours(y), theirs(y))


WORLD = """\
import torch
from torch import nn


class ImagePooling(nn.Module):
    # ultralytics' ImagePoolingAttn (nn/modules/block.py:713, :733): each map pooled to k x k, then viewed.

    def __init__(self, ch=(4, 8), ec=8, k=3) -> None:
        super().__init__()
        self.projections = nn.ModuleList([nn.Conv2d(c, ec, kernel_size=1) for c in ch])
        self.im_pools = nn.ModuleList([nn.AdaptiveMaxPool2d((k, k)) for _ in range(len(ch))])
        self.k = k

    def forward(self, x):
        bs = x.shape[0]
        feats = [x, torch.cat([x, x], 1)[:, :, ::2, ::2]]
        out = [pool(proj(f)).view(bs, -1, self.k**2) for (f, proj, pool) in zip(feats, self.projections, self.im_pools)]
        return torch.cat(out, dim=-1)


def build():
    torch.manual_seed(0)
    return ImagePooling().eval()


def inputs(generator):
    return (torch.rand(2, 4, 16, 16, generator=generator),)
"""


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_adaptive_max_pool_rewritten_exports_follow_any_size(dynamo: bool) -> None:
    after = rewrite(WORLD, select=("TRT602",), unsafe=True)
    assert "nn.ModuleList([_TrtAdaptiveMaxPool2d((k, k)) for _ in range(len(ch))])" in after
    namespace: dict = {"__name__": "world"}
    exec(compile(after, "world.py", "exec"), namespace)
    model = namespace["build"]()
    axes = {"x": {0: "n", 2: "h", 3: "w"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            data = torch.onnx.export(model, (torch.rand(2, 4, 16, 16),), dynamo=True, input_names=["x"],
                                     dynamic_axes=axes).model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (torch.rand(2, 4, 16, 16),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes=axes)
            data = buffer.getvalue()
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for shape in [(1, 4, 16, 16), (3, 4, 20, 14), (2, 4, 7, 9), (1, 4, 3, 2)]:  # (view(0, -1, 9) fails in torch)
        x = torch.rand(shape) * 4 - 2
        x[0, 0, 0, 0] = float("inf")
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {"x": x.numpy()})[0]
        assert got.shape == expected.shape, shape
        # The maxima are exact; the 1x1 convolutions before them round differently in ONNX Runtime.
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=str(shape))


SIZED_BINS = """\
import torch
import torch.nn.functional as F
from torch import nn


class Pyramid(nn.Module):
    def forward(self, x):
        h, w = x.size()[-2:]
        levels = [x]
        for i in range(1, 3):
            levels.append(F.interpolate(F.{pool}(x, (h // 2**i, w // 2**i)), size=(h, w), mode="nearest"))
        return torch.cat(levels, 1)
"""


@pytest.mark.parametrize("pool", ["adaptive_max_pool2d", "adaptive_avg_pool2d"])
def test_bins_read_from_the_shape_follow_every_size(pool: str) -> None:
    """SAFMN's pyramid: the bin counts are the input's sizes halved (a 0-d tensor each while the
    exporter traces). The original does not export ("output_size is not constant"); the rewrite's
    graph computes the bins from them and equals eager mode at sizes that do and do not divide."""
    code = SIZED_BINS.format(pool=pool)
    axes = {0: "n", 2: "h", 3: "w"}
    x = torch.rand(1, 2, 40, 48) * 4 - 2
    with pytest.raises(Exception, match="output_size is not constant|adaptive"):
        _export(load(code, "Pyramid")(), x, axes)
    after = rewrite(code, unsafe=True)
    assert f"_trt_{pool}(x, (h // 2**i, w // 2**i))" in after, after
    model = load(after, "Pyramid")()
    session = ort.InferenceSession(_export(model, x, axes), providers=["CPUExecutionProvider"])
    for shape in [(1, 2, 40, 48), (2, 2, 81, 97), (1, 2, 7, 5), (3, 2, 4, 4)]:
        x = torch.rand(shape) * 4 - 2
        x[0, 0, 1, 2] = float("inf")
        x[-1, 1, 0, 0] = -float("inf")
        expected = load(code, "Pyramid")()(x)
        with torch.no_grad():
            assert torch.equal(model(x), expected), shape  # eager mode is torch's own pooling
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        assert got.shape == expected.shape, shape
        if pool == "adaptive_max_pool2d":
            assert torch.equal(got, expected), shape  # maxima are exact
        else:
            _close(expected, got)


def test_migrate_fixes_the_adaptive_max_pool_where_the_export_fails(tmp_path) -> None:
    from support import migrate_json

    model = tmp_path / "world.py"
    model.write_text(WORLD)
    report = migrate_json(model, '{"x": {"0": "n", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False
    line = next(i for i, text in enumerate(WORLD.splitlines(), 1) if "nn.AdaptiveMaxPool2d((k, k))" in text)
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT602", line)], report["applied"]
    assert "export fails on adaptive pooling" in report["applied"][0]["proof"]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["trt_errors"] == 0


@pytest.mark.parametrize(("where", "code", "want"), [
    ("ultralytics/nn/modules/block.py:713",
     "self.im_pools = nn.ModuleList([nn.AdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n",
     "self.im_pools = nn.ModuleList([_TrtAdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n"),
    ("timm/layers/non_local_attn.py:127", "rp = F.adaptive_max_pool2d(out, (self.block_size, 1))\n",
     "rp = _trt_adaptive_max_pool2d(out, (self.block_size, 1))\n"),
    ("timm/layers/adaptive_avgmax_pool.py:32", "x_max = F.adaptive_max_pool2d(x, output_size)\n",
     "x_max = _trt_adaptive_max_pool2d(x, output_size)\n"),
    ("segmentation_models_pytorch/encoders/_dpn.py:332", "self.pool = nn.AdaptiveMaxPool2d(output_size)\n",
     "self.pool = _TrtAdaptiveMaxPool2d(output_size)\n"),
])
def test_adaptive_max_pool_real_forms(where: str, code: str, want: str) -> None:
    source = "import torch.nn.functional as F\nfrom torch import nn\n\n\n" + code
    assert rules_found(source, select=("TRT602",)) == ["TRT602"], where
    assert rewrite(source, select=("TRT602",), unsafe=True).endswith(want), where


def test_adaptive_max_pool_real_form_timm_non_local_views_after_the_pool() -> None:
    """timm's BilinearAttnTransform (non_local_attn.py:127-129) pools to (block, 1) and (1, block) and
    views the convolved result: the export form's values are torch's at other sizes too."""
    g = torch.Generator().manual_seed(5)
    for shape in [(2, 6, 8, 8), (1, 6, 12, 20)]:
        out = torch.randn(shape, generator=g)
        for size in ((4, 1), (1, 4)):
            with export_formulation():
                got = _trt_adaptive_max_pool2d(out, size)
            assert torch.equal(got, F.adaptive_max_pool2d(out, size)) and got.is_contiguous()


def test_adaptive_max_pool_exported_graph_and_nan() -> None:
    """The exported bins equal torch wherever no NaN is pooled; ONNX Runtime's ReduceMax may drop a NaN
    that torch keeps (measured: one of two NaN windows here), as TRT602's documentation says."""

    class Pool(nn.Module):
        def forward(self, x):
            return _trt_adaptive_max_pool2d(x, (3, 3))

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Pool(), (torch.randn(1, 2, 7, 7),), buffer, dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": {2: "h", 3: "w"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    x = torch.randn(1, 2, 9, 8)
    x[0, 0, 0, 0], x[0, 1, 4, 4], x[0, 0, 8, 7] = float("nan"), float("nan"), float("inf")
    expected = F.adaptive_max_pool2d(x, (3, 3))
    got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
    keep = ~torch.isnan(expected)
    assert torch.equal(got[keep], expected[keep]) and torch.isinf(got).sum() == 1
    assert torch.isnan(got).sum() <= torch.isnan(expected).sum() == 2


KEEP_AN_AXIS = """\
import torch
from torch import nn


class AxisPools(nn.Module):
    # seq2seq.pytorch's Pervasive Attention decoder (prevasive.py:88) and coordinate attention's
    # strip pools: an output size with None in it keeps that axis.

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=1)
        self.over_rows = nn.AdaptiveMaxPool2d((1, None))
        self.over_columns = nn.AdaptiveAvgPool2d((None, 1))

    def forward(self, x):
        x = self.conv(x)
        return self.over_rows(x).squeeze(2).sum(-1) + self.over_columns(x).squeeze(3).sum(-1)


def build():
    torch.manual_seed(0)
    return AxisPools().eval()


def inputs(generator):
    return (torch.randn(2, 3, 9, 7, generator=generator),)
"""


def test_migrate_takes_the_pools_that_keep_an_axis(tmp_path) -> None:
    """With ``None`` in the output size the TorchScript exporter's message names no operator
    ("ONNX export of operator adaptive pooling, since output_size is not constant"); migrate names
    TRT601 and TRT602 for it, so both fixes are applied where the export fails."""
    from support import migrate_json

    model = tmp_path / "axis_pools.py"
    model.write_text(KEEP_AN_AXIS)
    report = migrate_json(model, '{"x": {"0": "n", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False
    lines = KEEP_AN_AXIS.splitlines()
    wanted = [("TRT602", next(i for i, t in enumerate(lines, 1) if "nn.AdaptiveMaxPool2d((1, None))" in t)),
              ("TRT601", next(i for i, t in enumerate(lines, 1) if "nn.AdaptiveAvgPool2d((None, 1))" in t))]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == sorted(wanted), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["exported"] is True
