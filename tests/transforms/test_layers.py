"""TRT725's rewrite: antialiased ``F.interpolate`` as weight matrices while exporting.

What it finds (literal ``antialias=True``, or a parameter defaulting to True as in timm's
``resample_abs_pos_embed``), the rewrite, the eager path (``F.interpolate`` itself, bit for bit),
the weights against PyTorch's own kernel, and both exporters: no Resize, ONNX Runtime equal to
eager at sizes other than the traced one. Tolerance as in test_bicubic_resize.py: the matrices
sum in another order, |after - before| <= TOL * max|before|.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F

from safety import assert_same_run, import_source, run_once
from support import TESTS, assert_same, export_nchw, import_file, migrate_json, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.interpolate import _trt_interpolate, _trt_resize_onnx
from trtcodemod.trt.check import check_graph

TOL = {torch.float32: 1e-5, torch.float64: 1e-12}

SOURCE = '''
import torch
import torch.nn.functional as F
from torch import nn


def resample(posemb, new_size, interpolation: str = "bicubic", antialias: bool = True):
    posemb = posemb.float()
    return F.interpolate(posemb, size=new_size, mode=interpolation, align_corners=False, antialias=antialias)


def never(x, antialias: bool = False):
    return F.interpolate(x, size=(4, 4), mode="bilinear", antialias=antialias)


def rebound(x, antialias: bool = True):
    antialias = x.shape[-1] > 64
    return F.interpolate(x, size=(4, 4), mode="bilinear", antialias=antialias)


def from_a_caller(x, flag):
    return F.interpolate(x, size=(4, 4), mode="bilinear", antialias=flag)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, 4, 7, 7))

    def forward(self, x):
        h, w = x.shape[-2] // 4, x.shape[-1] // 4
        small = F.interpolate(x, size=(5, 6), mode="bilinear", antialias=True)
        pos = resample(self.pos, (h, w))
        plain = F.interpolate(x, scale_factor=0.5, mode="bilinear")
        return small, pos, plain
'''


def test_what_it_finds_and_the_rewrite() -> None:
    found = rules_found(SOURCE, select=("TRT725", "TRT727"))
    assert found == ["TRT725", "TRT725"]  # the literal and the parameter defaulting to True; TRT727 leaves both
    after = strip_helpers(rewrite(SOURCE, unsafe=True, select=("TRT725",)))
    assert ("return _trt_interpolate(posemb, size=new_size, mode=interpolation, align_corners=False, "
            "antialias=antialias)") in after
    assert 'small = _trt_interpolate(x, size=(5, 6), mode="bilinear", antialias=True)' in after
    # A default of False, a rebound parameter, a value from a caller, no antialias: left as written.
    assert after.count("F.interpolate(x, size=(4, 4)") == 3
    assert 'plain = F.interpolate(x, scale_factor=0.5, mode="bilinear")' in after
    assert rewrite(SOURCE, unsafe=False, select=("TRT725",)) == rewrite(SOURCE, unsafe=False, select=())
    once = rewrite(SOURCE, unsafe=True, select=("TRT725",))
    assert rewrite(once, unsafe=True, select=("TRT725",)) == once


def test_a_literal_bicubic_mode_with_a_defaulted_antialias_is_not_claimed_twice() -> None:
    code = ("import torch.nn.functional as F\n"
            "def f(x, antialias=True):\n    return F.interpolate(x, size=3, mode='bicubic', antialias=antialias)\n")
    assert rules_found(code, select=("TRT725", "TRT727")) == ["TRT725"]


ATTRIBUTES = '''
import torch.nn.functional as F
from torch import nn


class Embeds(nn.Module):
    def __init__(self, pos_embed_antialias: bool = True, interpolate_antialias=False, rebound=True, twice=True):
        super().__init__()
        self.pos_embed_antialias = pos_embed_antialias
        self.fixed = True
        self.interpolate_antialias = interpolate_antialias
        rebound = rebound and twice
        self.rebound = rebound
        self.twice = twice

    def forward(self, x, other):
        def inner(size):
            return F.interpolate(x, size=size, mode="bilinear", antialias=self.pos_embed_antialias)
        a = inner((4, 4))
        b = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=self.fixed)
        c = F.interpolate(x, size=(3, 3), mode="bicubic", antialias=self.interpolate_antialias)
        d = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=self.rebound)
        e = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=self.twice)
        f = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=other.fixed)
        return a, b, c, d, e, f

    def set_twice(self, value):
        self.twice = value
'''


def test_an_attribute_the_class_stores_once_as_true_or_from_a_default_of_true() -> None:
    """timm's NaFlexViT: ``antialias=self.pos_embed_antialias``, stored once in ``__init__`` from a
    parameter defaulting to True, is taken (also inside a nested function), as is an attribute set
    to True. Left: DINOv2's ``interpolate_antialias`` (default False; its literal bicubic mode is
    TRT727's, whose helper antialiases by the value at run time), a rebound parameter, an attribute
    stored twice, another object's attribute."""
    assert rules_found(ATTRIBUTES, select=("TRT725",)) == ["TRT725", "TRT725"]
    after = strip_helpers(rewrite(ATTRIBUTES, unsafe=True, select=("TRT725",)))
    assert 'return _trt_interpolate(x, size=size, mode="bilinear", antialias=self.pos_embed_antialias)' in after
    assert 'b = _trt_interpolate(x, size=(3, 3), mode="bilinear", antialias=self.fixed)' in after
    for kept in ('c = F.interpolate(x, size=(3, 3), mode="bicubic", antialias=self.interpolate_antialias)',
                 'd = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=self.rebound)',
                 'e = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=self.twice)',
                 'f = F.interpolate(x, size=(3, 3), mode="bilinear", antialias=other.fixed)'):
        assert kept in after, kept
    assert rules_found(ATTRIBUTES, select=("TRT727",)) == ["TRT727"]  # c only


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(SOURCE, unsafe=True, select=("TRT725",)), tmp_path_factory.mktemp("after"))
    return before, after


def test_eager_mode_is_the_original_bit_for_bit(modules) -> None:
    before, after = modules
    for shape in [(2, 3, 16, 20), (1, 3, 9, 5), (0, 3, 12, 12)]:
        for name, x in {"random": torch.randn(shape), "zeros": torch.zeros(shape),
                        "negative": -torch.rand(shape) - 1, "nan": torch.full(shape, float("nan"))}.items():
            torch.manual_seed(0)
            net_a = before["Net"]()
            torch.manual_seed(0)
            net_b = after["Net"]()
            x.requires_grad_(True)
            assert_same_run(run_once(net_a, [x]), run_once(net_b, [x]), context=f"{shape} {name}")


def _weights_cases():
    for mode in ("bilinear", "bicubic"):
        for size_in in [(14, 14), (7, 9), (32, 20), (1, 5)]:
            for size_out in [(14, 14), (5, 7), (28, 9), (1, 3), (3, 40)]:
                for align_corners in (False, True):
                    yield mode, size_in, size_out, align_corners


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_matrices_equal_pytorchs_antialiased_kernel(dtype) -> None:
    g = torch.Generator().manual_seed(1)
    for mode, size_in, size_out, align_corners in _weights_cases():
        x = torch.randn(2, 3, *size_in, generator=g, dtype=dtype)
        want = F.interpolate(x, size=size_out, mode=mode, antialias=True, align_corners=align_corners)
        got = _trt_resize_onnx(x, size_out, None, mode, align_corners, False, True)
        assert_same(want, got, atol=TOL[dtype] * want.abs().max().item(), rtol=0)
    for mode in ("bilinear", "bicubic"):
        x = torch.randn(1, 2, 16, 24, generator=g, dtype=dtype)
        for factor, recompute in [(0.5, False), (0.3, True), ((0.7, 1.6), False), (2.0, True)]:
            want = F.interpolate(x, scale_factor=factor, mode=mode, antialias=True, recompute_scale_factor=recompute)
            got = _trt_resize_onnx(x, None, factor, mode, False, recompute, True)
            assert_same(want, got, atol=TOL[dtype] * want.abs().max().item(), rtol=0)


def test_the_same_size_is_the_identity_and_zeros_stay_zero() -> None:
    x = torch.randn(1, 3, 11, 6)
    for mode in ("bilinear", "bicubic"):
        assert torch.equal(_trt_resize_onnx(x, (11, 6), None, mode, False, False, True), x)
        zeros = torch.zeros(1, 3, 11, 6)
        assert torch.equal(_trt_resize_onnx(zeros, (4, 3), None, mode, False, False, True), torch.zeros(1, 3, 4, 3))


def test_an_output_width_of_one_is_computed_per_row() -> None:
    """PyTorch 2.13's CPU kernel repeats the first row's value down a width-1 output (the
    documented difference); the matrices give each row what a resize of the transposed image gives."""
    x = torch.arange(48.0).reshape(1, 1, 16, 3)
    got = _trt_resize_onnx(x, (8, 1), None, "bilinear", False, False, True)
    per_row = F.interpolate(x.transpose(2, 3).contiguous(), size=(1, 8), mode="bilinear", antialias=True)
    assert_same(got, per_row.transpose(2, 3), atol=1e-5 * per_row.abs().max().item(), rtol=0)


def test_a_nan_spreads_over_its_plane_only() -> None:
    x = torch.randn(1, 2, 12, 12)
    x[0, 0, 5, 5] = float("nan")
    got = _trt_resize_onnx(x, (4, 4), None, "bilinear", False, False, True)
    assert torch.isnan(got[0, 0]).all() and not torch.isnan(got[0, 1]).any()


class _Resize(torch.nn.Module):
    def __init__(self, interpolate, **call) -> None:
        super().__init__()
        self.interpolate, self.call = interpolate, call

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.interpolate(x, antialias=True, **self.call)


class _PosEmbed(torch.nn.Module):
    """A fixed grid resized to the image's patch grid: the output size follows the input."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(1, 4, 14, 14, generator=torch.Generator().manual_seed(3)))
        self.mode = mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size = (x.shape[-2] // 16, x.shape[-1] // 16)
        return _trt_interpolate(self.pos, size=size, mode=self.mode, align_corners=False, antialias=True) + x.mean()


def _matches(model: onnx.ModelProto, reference, shapes) -> None:
    assert "Resize" not in {n.op_type for n in model.graph.node}
    assert not [i for i in check_graph(model) if i.severity == "error"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in shapes:
        y = torch.randn(shape)
        want = reference(y)
        (got,) = session.run(None, {"x": y.numpy()})
        assert_same(want, torch.from_numpy(got), atol=1e-5 * want.abs().max().item(), rtol=0)


_BICUBIC = dict(size=(9, 13), mode="bicubic")
_BILINEAR = dict(scale_factor=(0.3, 1.5), mode="bilinear", recompute_scale_factor=True)


# The dynamo exporter once (its exports are slow): the weights are the same code for either mode.
@pytest.mark.parametrize(("dynamo", "call"), [(False, _BICUBIC), (True, _BICUBIC), (False, _BILINEAR)],
                         ids=["bicubic-size-torchscript", "bicubic-size-dynamo", "bilinear-scale-torchscript"])
def test_both_exporters_give_no_resize_and_onnxruntime_matches(dynamo, call) -> None:
    x = torch.randn(2, 3, 18, 26)
    with pytest.raises(Exception, match="_aa|antialias") if not dynamo else nullcontext():
        original = export_nchw(_Resize(F.interpolate, **call), x, dynamo, min_side=4)
    if dynamo:  # the dynamo exporter's Resize with antialias=1, which TensorRT does not parse
        assert [i.rule for i in check_graph(original) if i.op == "Resize"] == ["TRT725"]
    model = export_nchw(_Resize(_trt_interpolate, **call), x, dynamo, min_side=4)
    _matches(model, lambda y: F.interpolate(y, antialias=True, **call), [(2, 3, 18, 26), (1, 3, 40, 7), (3, 3, 9, 64)])


def test_a_position_embedding_follows_the_image_size() -> None:
    """timm's use: the output size, not the input's, is dynamic (TorchScript exporter, the default)."""
    for mode in ("bicubic", "bilinear"):
        model = _PosEmbed(mode).eval()
        graph = export_nchw(model, torch.randn(1, 3, 224, 224), dynamo=False, min_side=4)
        with torch.no_grad():
            _matches(graph, model, [(1, 3, 224, 224), (1, 3, 160, 320), (1, 3, 480, 96), (1, 3, 16, 16)])



VARIANT = TESTS / "recipe_variants" / "trt717" / "timm_pos_embed_early_out.py"


def test_migrate_takes_the_resize_the_shortcut_hid_in_a_second_round(tmp_path: Path) -> None:
    """timm's position embedding: the example's grid is the embedding's own, so the trace keeps the
    size shortcut (TRT717). Skipping it while tracing makes the export reach the antialiased resize,
    which fails; that is no reason to take TRT717 back: the next round adds TRT725's matrices."""
    model = tmp_path / "vit.py"
    model.write_text(VARIANT.read_text())
    report = migrate_json(model, '{"x": {"2": "h", "3": "w"}}')
    assert [r["round"] for r in report["rounds"]] == [1, 2], report["rounds"]
    assert report["rounds"][0]["after"]["exported"] is False and not report["reverted"]
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT717", "TRT725"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] and report["equivalent"] is True
    rewritten = import_file(model, "vit_rewritten")
    original = import_file(VARIANT, "vit_original")
    for shape in [(1, 3, 16, 16), (2, 3, 20, 12)]:
        x = torch.randn(shape)
        torch.manual_seed(0)
        want = original.build()(x)
        torch.manual_seed(0)
        assert torch.equal(rewritten.build()(x), want)
