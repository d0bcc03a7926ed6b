"""TRT308 (``torch.rad2deg``/``deg2rad``) and TRT309 (``F.affine_grid``): operators the TorchScript
exporter cannot convert, rewritten into helpers that are the torch functions outside an export.

Each: the rewrite text (function and method forms, what is left), eager mode bit for bit against the
original (values, dtype, strides, gradients, errors) on edge values, the helper's export formulation
against torch eagerly, and the export with both exporters: the original fails, the rewritten graph
equals eager on other values and sizes.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import assert_same, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.affine import _trt_affine_grid, _trt_affine_grid_2d
from trtcodemod.helpers.angles import _trt_deg2rad, _trt_rad2deg
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
import torch.nn.functional as F
from torch import nn


class Frames(nn.Module):
    def forward(self, laf, img):
        angle = laf[..., 0, 1] * 4.0  # (kornia takes an atan2 here: TRT301's, left out)
        degrees = torch.rad2deg(angle)
        back = degrees.deg2rad()
        theta = laf.reshape(-1, 2, 3)
        grid = F.affine_grid(theta, [theta.shape[0], img.shape[1], 5, 7], align_corners=False)
        patches = F.grid_sample(img.expand(theta.shape[0], -1, -1, -1), grid, align_corners=False)
        return degrees, back, grid, patches
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT308", "TRT309")) == ["TRT308", "TRT308", "TRT309"]
    after = strip_helpers(rewrite(SOURCE, select=("TRT308", "TRT309")))  # safe: no --unsafe needed
    assert "degrees = _trt_rad2deg(angle)" in after and "back = _trt_deg2rad(degrees)" in after
    assert "grid = _trt_affine_grid(theta, [theta.shape[0], img.shape[1], 5, 7], align_corners=False)" in after
    once = rewrite(SOURCE, select=("TRT308", "TRT309"))
    assert rewrite(once, select=("TRT308", "TRT309")) == once
    left = ("import torch\nimport torch.nn.functional as F\n"
            "def f(a, b, theta):\n"
            "    torch.rad2deg(a, out=b)\n"
            "    a.rad2deg_()\n"
            "    return F.affine_grid(*theta, align_corners=True)\n")
    assert rules_found(left, select=("TRT308", "TRT309")) == ["TRT308", "TRT309"]  # reported, not rewritten
    assert rewrite(left, select=("TRT308", "TRT309")) == left


def _angles(dtype: torch.dtype) -> torch.Tensor:
    base = torch.randn(2000, generator=torch.Generator().manual_seed(2), dtype=torch.float64) * 400
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-300, 1e300], dtype=torch.float64)
    return torch.cat([base, special]).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_the_export_products_are_torchs_conversions_bit_for_bit(dtype) -> None:
    x = _angles(dtype)
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    assert torch.equal((x * 57.29577951308232).view(bits), torch.rad2deg(x).view(bits))
    assert torch.equal((x * 0.017453292519943295).view(bits), torch.deg2rad(x).view(bits))
    whole = torch.arange(-4, 5)
    assert torch.equal(whole * 57.29577951308232, torch.rad2deg(whole))  # integers: the default float type


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_export_grid_is_pytorchs_bit_for_bit(dtype, align_corners) -> None:
    g = torch.Generator().manual_seed(3)
    for n, h, w in [(2, 8, 8), (3, 1, 5), (1, 7, 1), (4, 32, 17)]:
        theta = torch.randn(n, 2, 3, generator=g, dtype=dtype)
        want = F.affine_grid(theta, [n, 3, h, w], align_corners=align_corners)
        got = _trt_affine_grid_2d(theta, [n, 3, h, w], align_corners)
        assert torch.equal(got, want) and got.stride() == want.stride()
    theta = torch.tensor([[[math.inf, 0.0, 1.0], [0.0, math.nan, 0.0]]], dtype=dtype)
    assert_same(_trt_affine_grid_2d(theta, [1, 1, 3, 3], align_corners), F.affine_grid(
        theta, [1, 1, 3, 3], align_corners=align_corners))


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["Frames"]
    after = import_source(rewrite(SOURCE, select=("TRT308", "TRT309")), tmp_path_factory.mktemp("after"))["Frames"]
    return before, after


def _inputs(n: int, values: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(n)
    laf = torch.randn(1, n, 2, 3, generator=g)
    if values == "zeros":
        laf = torch.zeros_like(laf)
    elif values == "negative":
        laf = -laf.abs() - 1
    elif values == "special":
        laf.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
    return [laf.requires_grad_(True), torch.randn(1, 2, 9, 9, generator=g)]


def test_eager_mode_is_the_original_bit_for_bit(frames) -> None:
    before, after = frames
    for n in (1, 4):
        for values in ("random", "zeros", "negative", "special"):
            assert_same_run(run_once(before(), _inputs(n, values)), run_once(after(), _inputs(n, values)),
                            context=f"{n} {values}")
    bad = [torch.randn(1, 2, 2, 4), torch.randn(1, 2, 9, 9)]  # theta of another shape: F.affine_grid's error
    assert_same_run(run_once(before(), bad), run_once(after(), bad))
    assert_same_run(run_once(_trt_rad2deg, [torch.ones(2, dtype=torch.complex64)]),
                    run_once(torch.rad2deg, [torch.ones(2, dtype=torch.complex64)]))
    assert_same_run(run_once(_trt_deg2rad, [torch.tensor([True, False])]),
                    run_once(torch.deg2rad, [torch.tensor([True, False])]))
    assert_same_run(run_once(_trt_affine_grid, [torch.randn(2, 2, 3), [2, 1, 0, 4]]),
                    run_once(F.affine_grid, [torch.randn(2, 2, 3), [2, 1, 0, 4]]))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool,
            names: tuple[str, ...] | list[str] = ("laf", "img"), axes: dict | None = None) -> onnx.ModelProto:
    names = list(names)
    axes = axes or {"laf": {1: "n"}, "img": {2: "h", 3: "w"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"laf": {1: torch.export.Dim("n")}, "img": {2: torch.export.Dim("h"), 3: torch.export.Dim("w")}}
            return torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=names, dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=axes)
        return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_original_does_not_export_and_the_rewrite_matches_eager(frames, dynamo) -> None:
    before, after = frames
    example = [t.detach() for t in _inputs(3, "random")]
    if not dynamo:
        with pytest.raises(Exception, match="rad2deg|affine_grid"):
            _export(before(), example, dynamo)
    graph = _export(after(), example, dynamo)
    assert not {"AffineGrid"} & {n.op_type for n in graph.graph.node}
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for n, values in [(3, "random"), (5, "zeros"), (1, "negative"), (6, "special")]:
        inputs = [t.detach() for t in _inputs(n, values)]
        got = session.run(None, {"laf": inputs[0].numpy(), "img": inputs[1].numpy()})
        with torch.no_grad():
            want = before()(*inputs)
        # With inf/NaN in theta, F.grid_sample and ONNX Runtime's GridSample disagree on their own: the
        # grid is compared, the patches are not.
        for a, b in zip(want[:3] if values == "special" else want, got):
            assert_same(a, torch.from_numpy(b), atol=1e-6 * max(1.0, a.nan_to_num().abs().max().item()), rtol=0)


def test_the_toolchains_run_the_original_calls(frames, tmp_path) -> None:
    """Scripted, fx-traced (and scripted after), compiled and ``torch.export``-ed, the rewritten module
    gives what the original gives, and fails where it fails."""
    before, after = frames
    inputs = [t.detach() for t in _inputs(3, "random")]
    original, rewritten = toolchain_outcomes(before, inputs, tmp_path), toolchain_outcomes(after, inputs, tmp_path)
    assert not isinstance(original["script"], Exception)  # the point: it scripted before, so it must after
    for name, outcome in original.items():
        if isinstance(outcome, Exception):
            assert isinstance(rewritten[name], Exception), name
            continue
        assert_same(tuple(outcome), tuple(rewritten[name])), name



BOUND_SOURCE = '''
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn


class Boxes(nn.Module):
    """OpenPCDet's SECOND head keeps ``F.affine_grid`` as a value and calls it through the attribute
    (open-mmlab/OpenPCDet@8cacccec11db6f59bf6934600c9a175dae254806
    pcdet/models/roi_heads/second_head.py:37-42 and 105)."""

    def __init__(self, volumetric: bool = False):
        super().__init__()
        self.affine_grid = partial(F.affine_grid, align_corners=True)
        self.plain_grid = F.affine_grid
        self.sample = partial(F.grid_sample, align_corners=True)
        self.volumetric = volumetric

    def forward(self, theta, img):
        if self.volumetric:
            return self.affine_grid(theta, [theta.size(0), 1, 2, 3, 4])
        size = torch.Size((theta.size(0), img.size(1), 3, img.size(3)))
        grid = self.affine_grid(theta, size)
        plain = self.plain_grid(theta=theta, size=size, align_corners=False)
        return self.sample(img, grid), grid, plain
'''


_BOUND_AXES = {"theta": {0: "n"}, "img": {0: "n", 2: "h", 3: "w"}}


def _bound_inputs(n: int, h: int, w: int, values: str) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(n * 100 + h * 10 + w)
    theta = torch.eye(2, 3).expand(n, 2, 3) + 0.3 * torch.randn(n, 2, 3, generator=g)
    if values == "zeros":
        theta = torch.zeros(n, 2, 3)
    elif values == "negative":
        theta = -theta.abs() - 0.5
    elif values == "special":
        theta = theta.clone()
        theta.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
    return [theta.requires_grad_(True), torch.randn(n, 2, h, w, generator=g)]


def test_a_bound_affine_grid_becomes_the_helper_and_runs_the_same(tmp_path) -> None:
    """``partial(F.affine_grid, ...)`` and ``name = F.affine_grid`` (before: no finding, the export stopped at
    ``aten::affine_grid_generator`` through the name): the bound value is the helper after the rewrite, and
    ``partial(F.grid_sample, ...)`` and an identity test are left alone. Eager mode gives the same samples,
    grids, gradients and errors (a 5-D size through the name: F.affine_grid's own error for a 2x3 theta; no
    boxes), and the rewritten export gives eager mode's grids at other sizes and values."""
    assert rules_found(BOUND_SOURCE, select=("TRT308", "TRT309")) == ["TRT309", "TRT309"]
    after = rewrite(BOUND_SOURCE, select=("TRT308", "TRT309"))
    body = strip_helpers(after)
    assert "self.affine_grid = partial(_trt_affine_grid, align_corners=True)\n" in body
    assert "self.plain_grid = _trt_affine_grid\n" in body
    assert "self.sample = partial(F.grid_sample, align_corners=True)\n" in body
    assert rewrite(after, select=("TRT308", "TRT309")) == after
    unrelated = "import torch.nn.functional as F\nsame = f is F.affine_grid\ngrid = F.affine_grid\n"
    assert rewrite(unrelated, select=("TRT308", "TRT309")).endswith("same = f is F.affine_grid\ngrid = _trt_affine_grid\n")

    before_cls = import_source(BOUND_SOURCE, tmp_path)["Boxes"]
    after_cls = import_source(after, tmp_path)["Boxes"]
    cases = [(2, 4, 5, "random"), (1, 1, 1, "random"), (3, 6, 2, "zeros"), (2, 5, 5, "negative"),
             (1, 3, 4, "special"), (0, 3, 4, "random")]
    for n, h, w, values in cases:
        assert_same_run(run_once(before_cls(), _bound_inputs(n, h, w, values)),
                        run_once(after_cls(), _bound_inputs(n, h, w, values)), context=f"{n}x{h}x{w} {values}")
    assert_same_run(run_once(before_cls(True), _bound_inputs(2, 4, 5, "random")),
                    run_once(after_cls(True), _bound_inputs(2, 4, 5, "random")))

    example = [t.detach() for t in _bound_inputs(2, 4, 5, "random")]
    with pytest.raises(Exception, match="affine_grid"):
        _export(before_cls(), example, dynamo=False, names=["theta", "img"], axes=_BOUND_AXES)
    graph = _export(after_cls(), example, dynamo=False, names=["theta", "img"], axes=_BOUND_AXES)
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for n, h, w, values in [(3, 4, 7, "random"), (1, 2, 2, "zeros"), (4, 5, 3, "negative"), (1, 3, 4, "special")]:
        inputs = [t.detach() for t in _bound_inputs(n, h, w, values)]
        got = session.run(None, {"theta": inputs[0].numpy(), "img": inputs[1].numpy()})
        with torch.no_grad():
            want = before_cls()(*inputs)
        # GridSample at NaN coordinates is ONNX Runtime's own: with inf/NaN in theta the grids are compared.
        for a, b in zip(want[1:] if values == "special" else want, got[1:] if values == "special" else got):
            assert_same(a, torch.from_numpy(b), atol=1e-6 * max(1.0, a.nan_to_num().abs().max().item()), rtol=0)

    # Scripted (the partial refuses scripting before and after; a plain `name = F.affine_grid` scripts both
    # ways), fx-traced, compiled and `torch.export`-ed: the same outcome.
    original = toolchain_outcomes(before_cls, example, tmp_path)
    rewritten = toolchain_outcomes(after_cls, example, tmp_path)
    for name, outcome in original.items():
        if isinstance(outcome, Exception):
            assert isinstance(rewritten[name], Exception), name
            continue
        assert_same(tuple(outcome), tuple(rewritten[name])), name
