"""TRT362: ``F.interpolate`` by a scale factor computed from a size — rewrite, run, trace, export.

The real forms (each restated in our own code below):
- hkchengrex/CascadePSP (segmentation-refinement 0.6) ``segmentation_refinement/eval_helper.py:4-11``
  ``resize_max_side``: ``ratio = size / max(h, w)``, the mode handed in as a parameter;
- ajabri/vision@a94e665 ``references/video_classification/transforms.py:29-36`` (torchvision's video
  reference transforms): ``scale = float(size) / min(vid.shape[-2:])``.

Tolerance: linear, bicubic and area sum in another order than PyTorch's kernels, so values agree to
rounding (measured at most 3e-5 for values of order 1); nearest copies values, and is compared where
the source coordinate is not an integer in exact arithmetic (the rule's stated exposure).
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F

from support import assert_same, load, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.interpolate import _trt_interpolate
from trtcodemod.trt.check import check_graph

SELECT = ("TRT362",)

MODEL = """
import torch
import torch.nn.functional as F


def resize_max_side(im: torch.Tensor, size: int, method: str):
    h, w = im.shape[-2:]
    max_side = max(h, w)
    ratio = size / max_side
    if method in ['bilinear', 'bicubic']:
        return F.interpolate(im, scale_factor=ratio, mode=method, align_corners=False)
    return F.interpolate(im, scale_factor=ratio, mode=method)


def short_side(vid: torch.Tensor, size: int):
    scale = float(size) / min(vid.shape[-2:])
    return torch.nn.functional.interpolate(vid, size=None, scale_factor=scale, mode='bilinear', align_corners=False)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factor = 2.0

    def forward(self, x):
        h, w = x.shape[2:]
        a = F.interpolate(x, scale_factor=(40 / h, 24 / w), mode="nearest")
        b = F.interpolate(x, scale_factor=2.0, mode="bilinear")
        c = F.interpolate(x, scale_factor=self.factor)
        d = F.interpolate(x, scale_factor=40 / h, mode="bilinear", recompute_scale_factor=True)
        e = F.interpolate(x, scale_factor=40 / h, mode="bilinear", antialias=True)
        f = F.interpolate(x, size=(h * 2, w), mode="bilinear")
        g = F.interpolate(x, scale_factor=40 / h, mode="nearest-exact")
        return a, b, c, d, e, f, g
"""


def test_rewrite_text() -> None:
    after = strip_helpers(rewrite(MODEL, unsafe=True, select=SELECT))
    assert "return _trt_interpolate(im, scale_factor=ratio, mode=method, align_corners=False)" in after
    assert "return _trt_interpolate(im, scale_factor=ratio, mode=method)" in after
    assert "return _trt_interpolate(vid, size=None, scale_factor=scale, mode='bilinear', align_corners=False)" in after
    assert 'a = _trt_interpolate(x, scale_factor=(40 / h, 24 / w), mode="nearest")' in after
    # A constant or configured factor, a recomputed linear one (it traces), antialiasing, `size=`, a mode the
    # helper does not compute: untouched.
    for kept in ('b = F.interpolate(x, scale_factor=2.0, mode="bilinear")', "c = F.interpolate(x, scale_factor="
                 "self.factor)", 'd = F.interpolate(x, scale_factor=40 / h, mode="bilinear", recompute_scale_factor'
                 '=True)', 'e = F.interpolate(x, scale_factor=40 / h, mode="bilinear", antialias=True)',
                 'f = F.interpolate(x, size=(h * 2, w), mode="bilinear")',
                 'g = F.interpolate(x, scale_factor=40 / h, mode="nearest-exact")'):
        assert kept in after
    assert rules_found(MODEL, select=SELECT) == ["TRT362"] * 4
    assert rewrite(MODEL, unsafe=False, select=SELECT) == rewrite(MODEL, unsafe=False, select=())
    once = rewrite(MODEL, unsafe=True, select=SELECT)
    assert rewrite(once, unsafe=True, select=SELECT) == once


def _namespace(code: str) -> dict:
    namespace: dict = {"__name__": "snippet"}
    exec(compile(code, "snippet.py", "exec"), namespace)
    return namespace


EDGES = {
    "random": lambda shape: torch.randn(shape),
    "zeros": lambda shape: torch.zeros(shape),
    "negative": lambda shape: -torch.rand(shape) - 1,
}


@pytest.mark.parametrize("edge", sorted(EDGES))
@pytest.mark.parametrize("method", ["bilinear", "bicubic", "nearest", "area"])
def test_eager_code_is_interpolate_itself(edge, method) -> None:
    """Outside a trace the rewritten function is the original, bit for bit (and raises as it does)."""
    before = load(MODEL, "resize_max_side")
    after = _namespace(rewrite(MODEL, unsafe=True, select=SELECT))["resize_max_side"]
    for shape in [(2, 3, 56, 72), (1, 1, 9, 5), (0, 3, 10, 12)]:
        x = EDGES[edge](shape)
        assert torch.equal(before(x, 96, method), after(x, 96, method))
    x = torch.randn(1, 1, 4, 4)
    assert _outcome(before, x, 0, method) == _outcome(after, x, 0, method)  # a zero factor: torch's error or result


def _outcome(function, *args) -> object:
    try:
        return tuple(function(*args).shape)
    except RuntimeError as error:
        return str(error)


def _traced_factor_resize(mode: str, align_corners: bool | None, recompute: bool | None, target: int,
                          others: tuple[float, ...] = ()):
    """The first spatial axis by a factor computed from its size (traced), the others by Python floats."""
    def resize(x: torch.Tensor) -> torch.Tensor:
        factor = target / x.shape[2]
        return _trt_interpolate(x, scale_factor=(factor, *others) if others else factor, mode=mode,
                                align_corners=align_corners, recompute_scale_factor=recompute)
    return resize


def _integer_source(n_in: int, target: int, out: int) -> bool:
    """Some output row's nearest source ``i * n_in / target`` is an integer other than ``i`` itself (where
    PyTorch's double reciprocal and the graph's float32 may floor differently: the stated exposure)."""
    return any((i * n_in) % target == 0 for i in range(1, out))


class _Resize(torch.nn.Module):
    """F.interpolate itself with the factor computed from the traced size (what does not export)."""

    def __init__(self, target, others, mode, align_corners, recompute) -> None:
        super().__init__()
        self.target, self.others, self.mode = target, others, mode
        self.align_corners, self.recompute = align_corners, recompute

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        factor = self.target / x.shape[2]
        return F.interpolate(x, scale_factor=(factor, *self.others) if self.others else factor, mode=self.mode,
                             align_corners=self.align_corners, recompute_scale_factor=self.recompute)


CASES = [("nearest", None), ("linear", False), ("linear", True), ("bilinear", False), ("bilinear", True),
         ("trilinear", False), ("bicubic", False), ("bicubic", True), ("area", None)]


@pytest.mark.parametrize("recompute", [None, True], ids=["factor", "recomputed"])
@pytest.mark.parametrize("mode,align_corners", CASES, ids=[f"{m}-{a}" for m, a in CASES])
def test_a_traced_factor_resizes_as_pytorch_does(mode, align_corners, recompute) -> None:
    """torch.jit.trace of the helper with the factor computed from the traced size: F.interpolate itself
    raises a TypeError there; the helper's graph equals F.interpolate with the Python factor, at the traced
    size and at others."""
    rank = {"linear": 1, "trilinear": 3}.get(mode, 2)
    spatial, others = {1: ((), ()), 2: ((7,), (1.5,)), 3: ((5, 6), (1.5, 0.5))}[rank]
    torch.manual_seed(0)
    for target in (40, 7, 96):
        traced_at = torch.randn((2, 3, 17) + spatial)
        resize = _traced_factor_resize(mode, align_corners, recompute, target, others)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not recompute or mode == "area":  # F.interpolate computes a recomputed size first, which traces
                with pytest.raises((TypeError, RuntimeError)):
                    torch.onnx.export(_Resize(target, others, mode, align_corners, recompute), (traced_at,),
                                      io.BytesIO(), dynamo=False, opset_version=17)
            graph = torch.jit.trace(resize, (traced_at,))
        for n_in in (17, 5, 31, 56):
            x = torch.randn((2, 3, n_in) + spatial)
            x[0, 0] = 0.0
            x[1, 1] = -x[1, 1].abs()
            factor = target / n_in
            want = F.interpolate(x, scale_factor=(factor, *others) if others else factor, mode=mode,
                                 align_corners=align_corners, recompute_scale_factor=recompute)
            got = graph(x)
            assert got.shape == want.shape and got.dtype == want.dtype
            if mode == "nearest" and not recompute and _integer_source(n_in, target, want.shape[2]):
                continue
            tolerance = 0.0 if mode == "nearest" else 3e-5 * max(want.abs().max().item(), 1.0)
            assert_same(want, got, atol=tolerance, rtol=0)


def test_nearest_copies_inf_and_nan_and_linear_spreads_them_as_pytorch() -> None:
    x = torch.randn(1, 2, 10, 6)
    x[0, 0, 3, 2] = float("inf")
    x[0, 1, 7, 4] = float("nan")
    for mode in ("nearest", "bilinear"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = torch.jit.trace(_traced_factor_resize(mode, None, None, 15), (x,))
        want = F.interpolate(x, scale_factor=1.5, mode=mode)
        assert_same(want, graph(x), atol=1e-5, rtol=0)


class _ResizeMaxSide(torch.nn.Module):
    """CascadePSP's step, as a module: the longer side brought to 48."""

    def __init__(self, mode: str, fn) -> None:
        super().__init__()
        self.mode, self.fn = mode, fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x, 48, self.mode)


def _export(model: torch.nn.Module, x: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "area", "nearest"])
def test_the_rewritten_step_exports_and_onnxruntime_matches_at_other_sizes(mode) -> None:
    before = load(MODEL, "resize_max_side")
    # With TRT712's `max` of sizes, which the trace would otherwise take as the example's longer side.
    rewritten = rewrite(MODEL, unsafe=True, select=SELECT + ("TRT712",))
    assert "max_side = _trt_size_max(h, w)" in rewritten
    after = _namespace(rewritten)["resize_max_side"]
    x = torch.rand(1, 3, 30, 40)
    with pytest.raises((TypeError, RuntimeError)):  # the kernels refuse the factor; area: no constant pool size
        _export(_ResizeMaxSide(mode, before), x)
    graph = _export(_ResizeMaxSide(mode, after), x)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    assert "Resize" not in {n.op_type for n in graph.graph.node}  # Gathers, matrices or pooling bins
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    # 30x40 traced; 24x24 upsamples, 64x36 shrinks with the height the longer side (the ratio from the other side).
    for shape in [(1, 3, 30, 40), (2, 3, 24, 24), (1, 3, 64, 36), (1, 3, 11, 13)]:
        y = torch.rand(shape)
        want = before(y, 48, mode)
        (got,) = session.run(None, {"x": y.numpy()})
        got = torch.from_numpy(got)
        assert got.shape == want.shape
        if mode == "nearest" and _integer_source(max(shape[2:]), 48, 48):
            continue
        assert_same(want, got, atol=0.0 if mode == "nearest" else 3e-5, rtol=0)


NUMPY_SIDE = """
import numpy as np
import torch
import torch.nn.functional as F


def positions(table: torch.Tensor, w0: float, h0: float):
    side = int(np.sqrt(table.shape[0] - 1))
    grid = table[1:].reshape(1, side, side, -1).permute(0, 3, 1, 2)
    return F.interpolate(grid, scale_factor=(w0 / side, h0 / side), mode="bicubic", align_corners=False)
"""


def test_a_numpy_function_of_a_size_is_a_number_computed_from_it() -> None:
    """FeatUp's CLIP position embeddings (mhamilton723/FeatUp@6b5a6c0
    featup/featurizers/maskclip/interpolate.py:38-46): the grid's side from ``np.sqrt`` of the table's row
    count, the factor ``w0 / patch_per_ax``. NumPy's functions of a size are numbers computed from it, as
    ``math``'s are; of something that is no size they are not."""
    assert rules_found(NUMPY_SIDE, select=SELECT) == ["TRT362"]
    after = strip_helpers(rewrite(NUMPY_SIDE, unsafe=True, select=SELECT))
    assert 'return _trt_interpolate(grid, scale_factor=(w0 / side, h0 / side), mode="bicubic", align_corners=False)' \
        in after
    assert rules_found(NUMPY_SIDE.replace("np.sqrt(table.shape[0] - 1)", "np.sqrt(9)"), select=SELECT) == []
    before, fixed = load(NUMPY_SIDE, "positions"), _namespace(rewrite(NUMPY_SIDE, unsafe=True, select=SELECT))["positions"]
    for table in (torch.randn(10, 4), torch.zeros(10, 4), -torch.rand(10, 4) - 1):
        for w0, h0 in ((5.1, 6.1), (2.1, 2.1), (1.1, 9.1)):
            assert torch.equal(before(table, w0, h0), fixed(table, w0, h0))
    empty = torch.randn(10, 0)  # no channels: F.interpolate's own error, on both sides
    assert _outcome(before, empty, 5.1, 6.1) == _outcome(fixed, empty, 5.1, 6.1)
