"""The rules of ``transforms/layers.py``: TRT722 tensor-copy, TRT723 gelu-op, TRT724
conv-dynamic-weight, TRT725 antialias-resize. Their findings and the export behaviour their
documentation claims, TRT722's deepcopy fix (below), and first TRT725's rewrite: antialiased ``F.interpolate`` as weight matrices while exporting.

What it finds (literal ``antialias=True``, or a parameter defaulting to True as in timm's
``resample_abs_pos_embed``), the rewrite, the eager path (``F.interpolate`` itself, bit for bit),
the weights against PyTorch's own kernel, and both exporters: no Resize, ONNX Runtime equal to
eager at sizes other than the traced one. Tolerance as in test_bicubic_resize.py: the matrices
sum in another order, |after - before| <= TOL * max|before|.
"""

from __future__ import annotations

import copy
import io
import warnings
from contextlib import nullcontext
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from snippets import export_model, found_selected as found
from support import (
    TESTS,
    assert_same,
    export_nchw,
    import_file,
    migrate_json,
    onnx_ops,
    rewrite,
    rules_found,
    strip_helpers,
)
from trtcodemod.helpers.copying import _trt_deepcopy, _trt_deepcopy_traced
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


# --- TRT722-TRT725: findings and look-alikes, and the export behaviour their documentation
# claims (TorchScript exporter; dynamo where cheap) ---------------------------------------------

@pytest.mark.parametrize("code", [
    "class H(nn.Module):\n    def forward(self, x):\n        y = copy.deepcopy(x)\n        return y + 1\n",
    "class H(nn.Module):\n    def forward(self, feats):\n        return self.run(feats)\n"
    "    def run(self, feats):\n        return copy.copy(feats)\n",
    "from copy import deepcopy as dc\nclass H(nn.Module):\n    def forward(self, x):\n        return dc(x)\n",
    # a top-level function bound to a module as its forward (showlab/DiffSim@06d48b1
    # diffsim/hacked_modules.py:71 and :363, `block.forward = fn.__get__(block, Block)`), and the other bindings
    "def patched(self, x):\n    return copy.deepcopy(x)\n"
    "class M(nn.Module):\n    def forward(self, x):\n        for b in self.blocks:\n"
    "            b.forward = patched.__get__(b, Block)\n        return self.blocks[0](x)\n",
    "import types\ndef patched(self, x):\n    return copy.deepcopy(x)\nm.forward = types.MethodType(patched, m)\n",
    "from functools import partial\ndef patched(self, x):\n    return copy.deepcopy(x)\n"
    "self.block.forward = partial(patched, self.block)\n",
])
def test_copy_reported(code: str) -> None:
    assert found(code, "TRT722") == ["TRT722"]


@pytest.mark.parametrize("code", [
    "class H(nn.Module):\n    def forward(self, x):\n        cfg = copy.deepcopy({'a': 1, 'b': [1, 2]})\n"
    "        return x * cfg['a']\n",
    "class H(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n        self.cfg = copy.deepcopy(cfg)\n",
    "def build(cfg):\n    return copy.deepcopy(cfg)\n",  # not forward code
    "class H(nn.Module):\n    def forward(self, x):\n        return x.clone()\n",
    "class Ema:\n    def forward(self, model):\n        return copy.deepcopy(model)\n",  # not a module
    "class H(nn.Module):\n    def forward(self, x):\n        deepcopy = lambda v: v\n        return deepcopy(x)\n",
    # a function bound to another object than the one whose forward it becomes, or not bound at all
    "def patched(self, x):\n    return copy.deepcopy(x)\na.forward = patched.__get__(b, Block)\n",
    "def patched(self, x):\n    return copy.deepcopy(x)\nm.forward = patched\nm.hook = patched.__get__(m, M)\n",
])
def test_copy_not_reported(code: str) -> None:
    assert found(code, "TRT722") == []


_OTHER_BASE = """\
import copy
from .roi_head_template import RoIHeadTemplate


class Head(RoIHeadTemplate):
    def forward(self, batch_dict):
        boxes = copy.deepcopy(batch_dict['rois'].detach())[:, :, 0]
        return boxes


def untouched(cfg):
    return copy.deepcopy(cfg)
"""


def _copies_seen(code: str, events: list[tuple[int, int, int, str]]) -> list[tuple[str, int]]:
    """TRT722's findings on ``code`` with facts holding the observer's ``deepcopy`` events
    (line, column, end column, the copied object's type)."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.evidence.facts import Facts

    path = str(Path("snippet.py").resolve())
    facts = Facts(runs=1, lines={path: set(range(1, 20))}, forward={path: set(range(1, 20))})
    facts.events.extend({"kind": "deepcopy", "path": path, "line": line, "column": column, "end_line": line,
                         "end_column": end, "direct": True, "count": 1, "type": kind}
                        for line, column, end, kind in events)
    found = check_source(code.encode(), "snippet.py", Options(select=("TRT722",), facts=facts, scope="all"))
    return [(f.rule, f.line) for f in found]


def test_copy_the_recorded_forwards_ran_is_reported_whatever_its_class() -> None:
    # OpenPCDet's MPPNetHead (open-mmlab/OpenPCDet@8cacccec pcdet/models/roi_heads/mppnet_head.py:674): its base
    # comes from another file, so nothing in the code shows a module; the observer saw the copy run in a forward.
    assert _copies_seen(_OTHER_BASE, []) == []
    assert _copies_seen(_OTHER_BASE, [(7, 17, 61, "Tensor")]) == [("TRT722", 7)]
    # a copy elsewhere in the file that the recorded forwards did not run stays unreported
    assert ("TRT722", 12) not in _copies_seen(_OTHER_BASE, [(7, 17, 61, "Tensor")])


class _DeepCopy(nn.Module):
    def forward(self, x):
        return copy.deepcopy(x) + 1


class _Clone(nn.Module):
    def forward(self, x):
        return x.clone() + 1


def test_deepcopy_cuts_the_graph_and_clone_does_not() -> None:
    x = torch.randn(2, 3)
    broken = export_model(_DeepCopy(), (x,), input_names=["x"])
    assert len(broken.graph.input) == 0  # the input is gone: the output is a constant
    fixed = export_model(_Clone(), (x,), input_names=["x"])
    session = ort.InferenceSession(fixed.SerializeToString())
    other = torch.randn(2, 3)
    got = session.run(None, {"x": other.numpy()})[0]
    assert torch.equal(torch.from_numpy(got), _Clone()(other))


@pytest.mark.parametrize("code", [
    "def f(x):\n    return F.gelu(x)\n",
    "def f(x):\n    return torch.nn.functional.gelu(x, approximate='tanh')\n",
    "act = nn.GELU()\n",
    "from torch.nn import GELU\nact = GELU()\n",
    "block = Block(act_layer=nn.GELU)\n",
    "ACTS = {'gelu': F.gelu}\n",
])
def test_gelu_reported_before_10(code: str) -> None:
    assert found(code, "TRT723", target="8.6") == ["TRT723"]
    assert found(code, "TRT723", target="9.3") == ["TRT723"]
    assert found(code, "TRT723", target="10.0") == []


@pytest.mark.parametrize("code", [
    "from torch.nn import GELU\n",
    "def f(m):\n    return isinstance(m, nn.GELU)\n",
    "def gelu(x):\n    return x * torch.sigmoid(1.702 * x)\ny = gelu(x)\n",
    "cfg = dict(type='GELU')\n",
    "act = nn.ReLU()\n",
    "def f(x):\n    return F.silu(x)\n",
])
def test_gelu_not_reported(code: str) -> None:
    assert found(code, "TRT723") == []


class _Gelu(nn.Module):
    def forward(self, x):
        return F.gelu(x)


def test_gelu_op_depends_on_opset() -> None:
    from trtcodemod.trt import support

    x = torch.randn(2, 8)
    assert onnx_ops(_Gelu(), (x,), opset=20) == ["Gelu"]
    assert "Gelu" not in onnx_ops(_Gelu(), (x,), opset=17)
    assert "Erf" in onnx_ops(_Gelu(), (x,), opset=17)
    default = export_model(_Gelu(), (x,))  # the exporter's default opset
    assert "Gelu" in [n.op_type for n in default.graph.node]
    assert not support.is_supported("Gelu", "9.3") and support.is_supported("Gelu", "10.0")
    assert support.is_supported("Erf", "8.4")


@pytest.mark.parametrize("code", [
    "class M(nn.Module):\n    def forward(self, x, style):\n        w = self.weight * style\n"
    "        return F.conv2d(x, w, padding=1)\n",
    "class M(nn.Module):\n    def forward(self, x, kernel):\n        return F.conv1d(x, kernel)\n",
    "class M(nn.Module):\n    def forward(self, x):\n        b = x.shape[0]\n"
    "        k = self.fc(x.mean((2, 3))).reshape(b * 4, 4, 3, 3)\n"
    "        return F.conv2d(x.reshape(1, -1, 8, 8), weight=k, groups=b)\n",
    "class M(nn.Module):\n    def forward(self, x, z):\n        k = z\n        k = k.flip(-1)\n"
    "        return torch.conv_transpose2d(x, k)\n",
])
def test_conv_weight_reported_before_8_5(code: str) -> None:
    assert found(code, "TRT724", target="8.4") == ["TRT724"]
    assert found(code, "TRT724", target="8.6") == []


@pytest.mark.parametrize("code", [
    # parameters only: folded into an initializer
    "class M(nn.Module):\n    def forward(self, x):\n        return F.conv2d(x, self.weight, self.bias)\n",
    "class M(nn.Module):\n    def forward(self, x):\n        w = self.weight\n"
    "        w = (w - w.mean((1, 2, 3), keepdim=True)) / (w.std((1, 2, 3), keepdim=True) + 1e-5)\n"
    "        return F.conv2d(x, w)\n",
    # helper functions receive the weight from their caller: not analysed
    "def conv2d_same(x, weight, bias=None):\n    return F.conv2d(x, weight, bias)\n",
    "class M(nn.Module):\n    def _conv(self, x, w):\n        return F.conv2d(x, w)\n",
    # a module's own conv layer, or not a module
    "class M(nn.Module):\n    def forward(self, x):\n        return self.conv(x)\n",
    "class M:\n    def forward(self, x, k):\n        return F.conv2d(x, k)\n",
])
def test_conv_weight_not_reported(code: str) -> None:
    assert found(code, "TRT724", target="8.4") == []


class _ConvFromParams(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4, 3, 3))

    def forward(self, x):
        return F.conv2d(x, self.weight * 2, padding=1)


class _ConvFromInput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4, 3, 3))

    def forward(self, x, style):
        return F.conv2d(x, self.weight * style.view(1, -1, 1, 1), padding=1)


def test_conv_weight_initializer_or_not() -> None:
    x = torch.randn(2, 4, 8, 8)
    folded = export_model(_ConvFromParams(), (x,))
    initializers = {i.name for i in folded.graph.initializer}
    conv = [n for n in folded.graph.node if n.op_type == "Conv"][0]
    assert conv.input[1] in initializers
    dynamic = export_model(_ConvFromInput(), (x, torch.randn(4)))
    initializers = {i.name for i in dynamic.graph.initializer}
    conv = [n for n in dynamic.graph.node if n.op_type == "Conv"][0]
    assert conv.input[1] not in initializers


@pytest.mark.parametrize("code", [
    "def f(x):\n    return F.interpolate(x, size=(5, 5), mode='bilinear', antialias=True)\n",
    "def f(x):\n    return F.interpolate(x, None, 0.5, 'bicubic', False, None, True)\n",
    "from torchvision import transforms as T\nclass P(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.resize = T.Resize(224)\n",
    "import torchvision.transforms.v2 as T2\nclass P(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.resize = T2.Resize((224, 224), antialias=True)\n",
    "import torchvision.transforms.functional as TF\nclass P(nn.Module):\n    def forward(self, x):\n"
    "        return TF.resize(x, [224, 224])\n",
])
def test_antialias_reported(code: str) -> None:
    assert found(code, "TRT725") == ["TRT725"]


@pytest.mark.parametrize("code", [
    "def f(x):\n    return F.interpolate(x, size=(5, 5), mode='bilinear')\n",
    "def f(x):\n    return F.interpolate(x, size=(5, 5), mode='bilinear', antialias=False)\n",
    "up = nn.UpsamplingBilinear2d(scale_factor=2)\n",
    # a data pipeline, not the model
    "from torchvision import transforms as T\ntrain_tf = T.Compose([T.Resize(256), T.ToTensor()])\n",
    "from torchvision import transforms as T\nclass P(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.resize = T.Resize(224, antialias=False)\n",
    "from torchvision import transforms as T\nfrom torchvision.transforms import InterpolationMode\n"
    "class P(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.resize = T.Resize(224, interpolation=InterpolationMode.NEAREST)\n",
])
def test_antialias_not_reported(code: str) -> None:
    assert found(code, "TRT725") == []


# --- TRT725 on torchvision's `Resize` built in a module: held by `_TrtResize` -------------------------------

_SAM2_TRANSFORMS = (
    "from torchvision.transforms import Normalize, Resize\n"
    "class SAM2Transforms(nn.Module):\n"
    "    def __init__(self, resolution):\n"
    "        super().__init__()\n"
    "        self.transforms = nn.Sequential(\n"
    "            Resize((resolution, resolution)),\n"
    "            Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),\n"
    "        )\n"
    "        self.small = Resize(256)\n"
    "        self.named = Resize(size=self.size, interpolation=self.mode)\n")


def test_resize_of_two_numbers_is_held_by_trt_resize_and_one_number_is_only_named() -> None:
    after = strip_helpers(rewrite(_SAM2_TRANSFORMS, unsafe=True, select=("TRT725",)))
    assert "            _TrtResize(Resize((resolution, resolution))),\n" in after, after
    assert "        self.named = _TrtResize(Resize(size=self.size, interpolation=self.mode))\n" in after
    assert "        self.small = Resize(256)\n" in after  # the shorter edge: the helper would call it as it is
    full = rewrite(_SAM2_TRANSFORMS, unsafe=True, select=("TRT725",))
    assert "class _TrtResize(torch.nn.Module):" in full and "def _trt_tv_resize_eager(" in full
    assert rules_found(full, select=("TRT725",)) == ["TRT725"]  # Resize(256), named, not rewritten
    assert rewrite(full, unsafe=True, select=("TRT725",)) == full
    assert rewrite(_SAM2_TRANSFORMS, unsafe=False, select=("TRT725",)) == _SAM2_TRANSFORMS


class _TensorResize(nn.Module):
    """The attributes of torchvision's ``Resize`` and the call its tensor path makes on a floating image
    (``torchvision/transforms/_functional_tensor.py`` ``resize``: ``interpolate(img, size=size,
    mode=interpolation, align_corners=False, antialias=antialias)``). torchvision itself is not installed in
    the test environment (its PyPI wheel links CUDA torch); the zoo runs the real one (benchmarks/real_zoo67.py)."""

    def __init__(self, size, interpolation="bilinear", antialias=True) -> None:
        super().__init__()
        self.size, self.interpolation, self.antialias, self.max_size = size, interpolation, antialias, None

    def forward(self, img):
        batched = img if img.dim() == 4 else img.unsqueeze(0)
        out = F.interpolate(batched, size=list(self.size), mode=self.interpolation, align_corners=False,
                            antialias=bool(self.antialias))
        return out if img.dim() == 4 else out.squeeze(0)


@pytest.fixture(scope="module")
def held_resizes():
    """A bilinear and a bicubic antialiased resize held by ``_TrtResize``, each exported once with a dynamic
    batch, height and width."""
    from trtcodemod.helpers.interpolate import _TrtResize
    made = {}
    for mode, size in (("bilinear", (24, 24)), ("bicubic", (20, 13))):
        model = nn.Sequential(_TrtResize(_TensorResize(size, mode)), nn.Identity()).eval()
        f = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 3, 40, 36),), f, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
        graph = onnx.load_from_string(f.getvalue())
        made[mode] = (model, graph, ort.InferenceSession(f.getvalue()))
    return made


@pytest.mark.parametrize("antialias", [None, "warn", False])
def test_held_resize_without_antialias_exports_torchs_plain_resize(antialias) -> None:
    """torchvision 0.15-0.16's default "warn", and None, leave tensors unantialiased: no weight matrices."""
    from trtcodemod.helpers.interpolate import _TrtResize
    transform = _TensorResize((24, 24), "bilinear", antialias)
    transform.forward = lambda img: F.interpolate(img, size=[24, 24], mode="bilinear", align_corners=False)
    model = nn.Sequential(_TrtResize(transform)).eval()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(1, 3, 40, 36),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {2: "h", 3: "w"}})
    assert "Resize" in {n.op_type for n in onnx.load_from_string(buffer.getvalue()).graph.node}
    session = ort.InferenceSession(buffer.getvalue())
    x = torch.randn(1, 3, 50, 70)
    [got] = session.run(None, {"x": x.numpy()})
    # ONNX Runtime's linear Resize itself rounds otherwise than torch's kernel (a few 1e-5)
    torch.testing.assert_close(torch.from_numpy(got), transform(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_held_resize_exports_without_a_resize_and_follows_every_size(held_resizes, mode) -> None:
    model, graph, session = held_resizes[mode]
    assert "Resize" not in {n.op_type for n in graph.graph.node}
    gen = torch.Generator().manual_seed(3)
    inputs = [torch.randn(2, 3, 40, 36, generator=gen), torch.randn(1, 3, 97, 31, generator=gen),
              torch.randn(3, 3, 24, 24, generator=gen), torch.randn(1, 3, 8, 200, generator=gen),
              torch.zeros(1, 3, 30, 30), -torch.rand(2, 3, 50, 17, generator=gen) * 1e3]
    for x in inputs:
        want = model[0].resize(x)
        [got] = session.run(None, {"x": x.numpy()})
        assert got.shape == tuple(want.shape), (x.shape, got.shape)
        assert float((torch.from_numpy(got) - want).abs().max()) <= 1e-5 * max(1.0, float(want.abs().max())), x.shape


def test_held_resize_is_the_transform_outside_an_export_and_when_scripted() -> None:
    from trtcodemod.helpers.interpolate import _TrtResize
    transform = _TensorResize((24, 24))
    held = _TrtResize(transform)
    x = torch.tensor([[[[float("inf"), float("nan"), -1.0, 0.0]]]]).expand(1, 3, 4, 4).contiguous()
    for img in (torch.randn(2, 3, 40, 36), torch.randn(3, 40, 36), x, torch.empty(0, 3, 5, 5)):
        assert_same(held(img), transform(img))
    assert torch.equal(torch.jit.script(held)(torch.ones(1, 3, 9, 9)), transform(torch.ones(1, 3, 9, 9)))
    assert held.state_dict().keys() == transform.state_dict().keys()


class _AntialiasResize(nn.Module):
    def __init__(self, antialias: bool) -> None:
        super().__init__()
        self.antialias = antialias

    def forward(self, x):
        return F.interpolate(x, size=(5, 5), mode="bilinear", antialias=self.antialias)


def test_antialias_export() -> None:
    x = torch.randn(1, 3, 16, 16)
    with pytest.raises(Exception, match="_upsample_bilinear2d_aa"):
        onnx_ops(_AntialiasResize(True), (x,))
    assert "Resize" in onnx_ops(_AntialiasResize(False), (x,))


def test_old_upsampling_modules_export_like_interpolate() -> None:
    """Why nn.UpsamplingBilinear2d and friends get no rule: the same Resize as F.interpolate."""

    class Up(nn.Module):
        def __init__(self, module) -> None:
            super().__init__()
            self.module = module

        def forward(self, x):
            return self.module(x)

    class Interp(nn.Module):
        def forward(self, x):
            return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)

    def resize_nodes(model):
        graph = export_model(model, (torch.randn(1, 3, 8, 8),)).graph
        return [(n.op_type, sorted((a.name, onnx.helper.get_attribute_value(a)) for a in n.attribute))
                for n in graph.node if n.op_type == "Resize"]

    assert resize_nodes(Up(nn.UpsamplingBilinear2d(scale_factor=2))) == resize_nodes(Interp())
    x = torch.randn(1, 3, 8, 8)
    assert torch.equal(nn.UpsamplingBilinear2d(scale_factor=2)(x), Interp()(x))


# --- TRT722's fix (was test_copying.py) -------------------------------------------------------
# TRT722's fix: ``copy.deepcopy`` through ``_trt_deepcopy``, which the exporters can follow.
#
# The rewrite is shown, the rewritten module is run against the original on edge values
# (eager: the same call; under both ONNX exporters: a graph that follows the inputs where the
# original's froze the copy or did not export at all), and the export-time copy is checked
# against ``copy.deepcopy`` itself: values, dtypes, aliasing, what it hands back to deepcopy.


BEFORE = '''\
import copy

import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        feats = [x, x * 2, {"a": x - 1}]
        saved = copy.deepcopy(feats)
        feats[0].mul_(3)
        return feats[0] + saved[1] + saved[2]["a"] + saved[0]
'''


EDGE = [torch.tensor([[0.0, -0.0, 1.5], [-2.0, float("inf"), float("nan")]]), torch.zeros(0, 3),
        torch.randn(4, 3), torch.full((1, 3), -1.0)]


def test_the_rewrite_calls_the_helper_with_the_users_deepcopy() -> None:
    after = rewrite(BEFORE, select=("TRT722",))
    assert "saved = _trt_deepcopy(copy.deepcopy, feats)" in after
    assert "def _trt_deepcopy(" in after and rewrite(after, select=("TRT722",)) == after
    # copy.copy and a deepcopy given its own memo are only reported.
    for kept in ("copy.copy(feats)", "copy.deepcopy(feats, {})"):
        source = BEFORE.replace("copy.deepcopy(feats)", kept)
        assert rewrite(source, unsafe=True, select=("TRT722",)) == source


def _modules(tmp_path: Path) -> tuple[type, type]:
    before = import_source(BEFORE, tmp_path)["M"]
    after = import_source(rewrite(BEFORE, select=("TRT722",)), tmp_path)["M"]
    return before, after


@pytest.mark.parametrize("x", EDGE, ids=["edges", "empty", "random", "row"])
def test_eager_and_the_toolchains_run_the_original_copy(tmp_path: Path, x: torch.Tensor) -> None:
    before, after = _modules(tmp_path)
    assert_same_run(run_once(before(), [x]), run_once(after(), [x]))
    original, rewritten = toolchain_outcomes(before, [x], tmp_path), toolchain_outcomes(after, [x], tmp_path)
    for name, outcome in original.items():
        if isinstance(outcome, Exception):
            continue  # scripting refuses copy.deepcopy in both
        assert torch.equal(outcome.nan_to_num(), rewritten[name].nan_to_num()), name


def _onnx_outputs(module: torch.nn.Module, trace_with: torch.Tensor, feed: list[torch.Tensor], dynamo: bool):
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(module, (trace_with,), dynamo=True, input_names=["x"],
                                        dynamic_axes={"x": {0: "n"}}, verbose=False)
            program.save(buffer)
        else:
            torch.onnx.export(module, (trace_with,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "n"}})
    session = ort.InferenceSession(buffer.getvalue())
    return [torch.from_numpy(session.run(None, {"x": x.numpy()})[0]) for x in feed]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_exported_graph_follows_the_inputs(tmp_path: Path, dynamo: bool) -> None:
    before, after = _modules(tmp_path)
    trace_with = torch.randn(3, 3)
    feed = [x for x in EDGE if x.shape[0] > 0] + [torch.randn(7, 3)]
    expected = [after()(x.clone()) for x in feed]
    got = _onnx_outputs(after(), trace_with, feed, dynamo)
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e, equal_nan=True)
    # The original froze the copies (TorchScript) or did not export (dynamo): the reason for the rule.
    try:
        frozen = _onnx_outputs(before(), trace_with, feed, dynamo)
    except Exception:  # noqa: BLE001 - the dynamo exporter refuses copy.deepcopy
        assert dynamo
    else:
        assert not all(torch.allclose(f, e, equal_nan=True) for f, e in zip(frozen, expected))


def test_the_export_time_copy_is_deepcopy_for_what_it_handles() -> None:
    x = torch.randn(3)
    param = torch.nn.Parameter(torch.ones(2))
    shared = [x, x, (x, {"k": x}), param, None, 3, "s"]
    copied = _trt_deepcopy_traced(copy.deepcopy, shared, {})
    reference = copy.deepcopy(shared)
    assert type(copied) is list and len(copied) == len(reference)
    assert torch.equal(copied[0], x) and copied[0] is not x
    # One object, copied once: the aliasing deepcopy's memo keeps, ours keeps.
    assert copied[0] is copied[1] is copied[2][0] is copied[2][1]["k"]
    assert reference[0] is reference[1] is reference[2][0]
    assert isinstance(copied[3], torch.nn.Parameter) and copied[3] is not param  # handed to deepcopy
    assert copied[4:] == [None, 3, "s"]
    looped: list = [x]
    looped.append(looped)
    again = _trt_deepcopy_traced(copy.deepcopy, looped, {})
    assert again[1] is again and torch.equal(again[0], x)
    # Outside an export the helper is the user's function, called as it was.
    calls = []
    assert _trt_deepcopy(lambda v: calls.append(v) or "copied", shared) == "copied" and calls == [shared]


def test_a_grad_requiring_non_leaf_still_goes_to_deepcopy() -> None:
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError):
        copy.deepcopy(y)
    with pytest.raises(RuntimeError):
        _trt_deepcopy_traced(copy.deepcopy, [y], {})


SHARED = '''\
import copy

import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        full = x * 1
        saved = copy.deepcopy({"full": full, "row": full[0], "col": full[:, 1]})
        saved[WRITE].add_(10)
        return saved["full"] * 1, saved["row"] * 1, saved["col"] * 1
'''


SHARED_EDGE = [torch.tensor([[0.0, -0.0, 1.5], [-2.0, float("inf"), float("nan")]]), torch.randn(4, 3),
               torch.full((1, 3), -1.0)]


def _shared_modules(tmp_path: Path, write: str) -> tuple[type, type]:
    source = SHARED.replace("WRITE", repr(write))
    after = rewrite(source, select=("TRT722",))
    assert "saved = _trt_deepcopy(copy.deepcopy, {" in after
    return import_source(source, tmp_path)["M"], import_source(after, tmp_path)["M"]


@pytest.mark.parametrize("write", ["full", "row", "col"])
def test_a_copy_of_a_tensor_and_its_views_keeps_them_views_under_the_dynamo_exporter(
        tmp_path: Path, write: str) -> None:
    before, after = _shared_modules(tmp_path, write)
    for x in SHARED_EDGE:
        assert_same_run(run_once(before(), [x]), run_once(after(), [x]))
    trace_with = torch.randn(3, 3)
    feed = SHARED_EDGE + [torch.randn(7, 3)]
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(after(), (trace_with,), dynamo=True, input_names=["x"],
                          dynamic_axes={"x": {0: "n"}}, verbose=False).save(buffer)
    session = ort.InferenceSession(buffer.getvalue())
    for x in feed:
        expected = before()(x.clone())  # the original, eager: the write shows in every view
        got = session.run(None, {"x": x.numpy()})
        assert len(got) == 3
        for e, g in zip(expected, got):
            torch.testing.assert_close(torch.from_numpy(g), e, equal_nan=True)


def test_the_torchscript_exporter_is_refused_a_copy_it_would_unshare(tmp_path: Path) -> None:
    before, after = _shared_modules(tmp_path, "full")
    with pytest.raises(RuntimeError, match="share memory.*TorchScript exporter"):
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(after(), (torch.randn(3, 3),), io.BytesIO(), dynamo=False, input_names=["x"])


@pytest.mark.parametrize("make", [lambda x: [x, x.detach()], lambda x: [x, x.view(torch.int32)],
                                  lambda x: [torch.nn.Parameter(x)[0], torch.nn.Parameter(x)[1]]],
                         ids=["detach", "dtype", "parameter-views"])
def test_sharing_the_export_cannot_rebuild_is_refused(make) -> None:
    class Copy(torch.nn.Module):
        def forward(self, x):
            held = make(x * 1)
            copied = _trt_deepcopy(copy.deepcopy, held)
            return copied[0] * 1

    with pytest.raises(Exception, match="share memory.*not all views of one dense tensor"):
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(Copy(), (torch.randn(3, 3),), dynamo=True, verbose=False)


def test_views_of_a_tensor_left_out_of_the_copy_still_share_its_copy() -> None:
    class Copy(torch.nn.Module):
        def forward(self, x):
            full = x * 1
            copied = _trt_deepcopy(copy.deepcopy, (full[0:2], full[1:3]))
            copied[0].add_(10)
            return copied[1] * 1

    x = torch.arange(12.0).reshape(4, 3)
    expected = Copy()(x)
    assert torch.equal(expected[0], x[1] + 10)  # eager deepcopy: the overlap row was written
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Copy(), (x,), dynamo=True, input_names=["x"], verbose=False).save(buffer)
    got = ort.InferenceSession(buffer.getvalue()).run(None, {"x": x.numpy()})[0]
    torch.testing.assert_close(torch.from_numpy(got), expected)


POS_EMBED_RESIZE = """\
import torch
import torch.nn.functional as F
from torch import nn


class PosEmbed(nn.Module):
    \"\"\"rf-detr's windowed DINOv2 position embeddings, resized to the patch grid with the flag an expression.\"\"\"

    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, 8, 6, 6))

    def forward(self, x):
        h, w = x.shape[2] // 4, x.shape[3] // 4
        pos = F.interpolate(self.pos, size=(h, w), mode="bicubic", align_corners=False,
                            antialias=self.pos.device.type != "mps")
        return x[:, :8, ::4, ::4] + pos


def build():
    return PosEmbed().eval()


def inputs(generator):
    return (torch.rand(1, 8, 16, 20, generator=generator),)
"""


def test_an_antialias_expression_is_taken_where_the_export_stopped_at_its_kernel(tmp_path) -> None:
    """From the code alone `antialias=<expression>` may be false (DINOv2's configured flag is): not reported.
    Where the recorded export stopped at the antialiased kernel made at this call, the run took it true:
    migrate rewrites it, and the rewritten model exports and is equivalent at other sizes."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    assert found(POS_EMBED_RESIZE, "TRT725") == []
    path = tmp_path / "pos_embed.py"
    path.write_text(POS_EMBED_RESIZE)
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", json.dumps({"x": {"2": "h", "3": "w"}}), "--format", "json",
                                      "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    [report] = json.loads(result.stdout)["models"]
    assert report["before"]["exported"] is False
    line = POS_EMBED_RESIZE.splitlines().index("        pos = F.interpolate(self.pos, size=(h, w), mode=\"bicubic\", "
                                               "align_corners=False,") + 1
    assert [(entry["rule"], entry["line"]) for entry in report["applied"]] == [("TRT725", line)], report["applied"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["equivalent"] is True and result.exit_code == 0, report["remaining"]
    assert "pos = _trt_interpolate(self.pos" in report["diff"]
