"""TRT727: bicubic ``F.interpolate`` as weight matrices while exporting — rewrite, run, export.

Tolerance: the matrices sum in another order than PyTorch's four-tap kernel, so values agree
to rounding: |after - before| <= TOL * max|before| (TOL 1e-5 in float32, 1e-12 in float64;
measured about 2e-6 and 3e-15).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F

from support import assert_same, export_formulation, export_nchw, load, rewrite, rules_found, strip_helpers
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.helpers.interpolate import _trt_bicubic_onnx, _trt_interpolate, _TrtUpsample
from trtcodemod.registry import rule_by_id
from trtcodemod.trt.check import check_graph

TOL = {torch.float32: 1e-5, torch.float64: 1e-12}

MODEL = """
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import interpolate as resize


def interpolate(x, size, mode):  # a project's own wrapper: not torch's
    return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)
        self.near = nn.Upsample(scale_factor=2)

    def forward(self, x, mode: str):
        a = F.interpolate(x, size=(7, 5), mode="bicubic", align_corners=False)
        b = resize(x, None, 1.5, "bicubic")
        c = torch.nn.functional.interpolate(x, scale_factor=0.5, mode='bicubic', recompute_scale_factor=True)
        d = F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True)
        e = F.interpolate(x, scale_factor=2, mode="bilinear")
        f = F.interpolate(x, scale_factor=2, mode=mode)
        g = interpolate(x, 3, "bicubic")
        return a, b, c, d, e, f, g, self.up(x), self.near(x)
"""


def test_rewrite_text() -> None:
    after = strip_helpers(rewrite(MODEL, unsafe=True, select=("TRT727",)))
    assert 'a = _trt_interpolate(x, size=(7, 5), mode="bicubic", align_corners=False)' in after
    assert 'b = _trt_interpolate(x, None, 1.5, "bicubic")' in after
    assert "c = _trt_interpolate(x, scale_factor=0.5, mode='bicubic', recompute_scale_factor=True)" in after
    assert 'self.up = _TrtUpsample(scale_factor=2, mode="bicubic", align_corners=True)' in after
    # Antialiased (TRT725's), other modes, a mode in a variable, a project's own `interpolate`: untouched.
    for kept in ('d = F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True)',
                 'e = F.interpolate(x, scale_factor=2, mode="bilinear")', "f = F.interpolate(x, scale_factor=2, "
                 "mode=mode)", 'g = interpolate(x, 3, "bicubic")', "self.near = nn.Upsample(scale_factor=2)"):
        assert kept in after
    assert rules_found(MODEL, select=("TRT727",)) == ["TRT727"] * 4
    assert "TRT725" in rules_found(MODEL, select=("TRT725",))  # the antialiased call stays TRT725's finding
    # Unsafe: nothing changes without --unsafe; a second pass changes nothing.
    assert rewrite(MODEL, unsafe=False, select=("TRT727",)) == rewrite(MODEL, unsafe=False, select=())
    once = rewrite(MODEL, unsafe=True, select=("TRT727",))
    assert rewrite(once, unsafe=True, select=("TRT727",)) == once


def test_not_rewritten_without_unsafe() -> None:
    code = "import torch.nn.functional as F\ndef f(x):\n    return F.interpolate(x, size=4, mode='bicubic')\n"
    assert rewrite(code, unsafe=False, select=("TRT727",)) == code
    assert "_trt_interpolate(x, size=4, mode='bicubic')" in rewrite(code, unsafe=True, select=("TRT727",))


def test_positional_antialias_and_construction_code_are_left_alone() -> None:
    aa = "import torch.nn.functional as F\ndef f(x):\n    return F.interpolate(x, None, 0.5, 'bicubic', False, None, True)\n"
    assert rules_found(aa, select=("TRT727",)) == [] and rules_found(aa, select=("TRT725",)) == ["TRT725"]
    init = ("import torch.nn.functional as F\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, p):\n"
            "        super().__init__()\n        self.p = F.interpolate(p, size=4, mode='bicubic')\n")
    assert rules_found(init, select=("TRT727",)) == []  # runs once while building, never exported


def _inputs(shape: tuple[int, ...], dtype: torch.dtype) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(sum(shape))
    random = torch.randn(shape, generator=g, dtype=dtype)
    return {"random": random, "zeros": torch.zeros(shape, dtype=dtype), "negative": -random.abs() - 1,
            "large": random * 1e30 if dtype == torch.float32 else random * 1e200}


CALLS = [  # F.interpolate keywords, bicubic
    dict(size=(9, 13)), dict(size=(3, 2)), dict(size=5), dict(size=(1, 1)), dict(size=(17, 4)),
    dict(scale_factor=2.0), dict(scale_factor=0.5), dict(scale_factor=(1.7, 0.6)), dict(scale_factor=1.05),
    dict(scale_factor=2.5, recompute_scale_factor=True), dict(scale_factor=(0.3, 3.1), recompute_scale_factor=True),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(2, 3, 8, 6), (1, 1, 1, 1), (1, 4, 2, 9), (3, 2, 12, 12)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_the_export_formulation_equals_interpolate(dtype, shape, align_corners) -> None:
    """The matrices TRT727's helper computes while exporting, on real tensors, against F.interpolate."""
    for call in CALLS:
        for name, x in _inputs(shape, dtype).items():
            try:
                want = F.interpolate(x, mode="bicubic", align_corners=align_corners, **call)
            except RuntimeError:
                continue  # an output size of 0 (a small scale factor): PyTorch refuses it
            got = _trt_bicubic_onnx(x, call.get("size"), call.get("scale_factor"), align_corners,
                                    bool(call.get("recompute_scale_factor")))
            scale = want.abs().max().item() if want.numel() else 0.0
            assert_same(want, got, atol=TOL[dtype] * scale + 1e-30, rtol=0), (name, call)
            if name == "zeros":
                assert torch.equal(got, want)


def test_empty_batch_and_half_precision_keep_shape_and_dtype() -> None:
    x = torch.randn(0, 3, 5, 4)
    assert_same(F.interpolate(x, size=(7, 9), mode="bicubic"), _trt_bicubic_onnx(x, (7, 9), None, False, False))
    for dtype in (torch.float16, torch.bfloat16):
        x = torch.randn(1, 2, 6, 5).to(dtype)
        want = F.interpolate(x.float(), size=(9, 4), mode="bicubic").to(dtype)
        got = _trt_bicubic_onnx(x, (9, 4), None, False, False)
        assert got.dtype == dtype
        assert_same(want, got, atol=1e-2 * want.abs().max().item(), rtol=0)


def test_eager_code_runs_interpolate_itself() -> None:
    """Outside torch.onnx.export the rewritten calls are F.interpolate: bit for bit, NaN and inf
    included, with its gradients and its errors."""
    before = load(MODEL, "Net")()
    after = load(rewrite(MODEL, unsafe=True, select=("TRT727",)), "Net")()
    x = torch.randn(2, 3, 6, 8)
    x[0, 0, 2, 3] = float("nan")
    x[1, 2, 0, 0] = float("inf")
    assert_same(before(x, "nearest"), after(x, "nearest"))
    leaf = torch.randn(1, 1, 4, 4, requires_grad=True)
    _trt_interpolate(leaf, size=(6, 6), mode="bicubic").sum().backward()
    grad = leaf.grad.clone()
    leaf.grad = None
    F.interpolate(leaf, size=(6, 6), mode="bicubic").sum().backward()
    assert torch.equal(grad, leaf.grad)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        _trt_interpolate(x, size=3, scale_factor=2.0, mode="bicubic")


def test_the_rewritten_model_computes_the_matrices_while_exporting() -> None:
    """The rewritten module's own copy of the helper takes the matrices under the export flag."""
    code = rewrite(MODEL, unsafe=True, select=("TRT727",))
    namespace: dict = {"__name__": "snippet"}
    exec(compile(code, "snippet.py", "exec"), namespace)
    net = namespace["Net"]()
    x = torch.randn(2, 3, 6, 8)
    want = load(MODEL, "Net")()(x, "nearest")
    with export_formulation(namespace):
        got = net(x, "nearest")
    for index in (0, 1, 2, 7):  # the rewritten calls and the module; the rest are untouched
        assert_same(want[index], got[index], atol=1e-5 * want[index].abs().max().item(), rtol=0)


class _Pos(torch.nn.Module):
    def __init__(self, **call) -> None:
        super().__init__()
        self.call = call

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _trt_interpolate(x, mode="bicubic", **self.call)


class _Original(_Pos):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, mode="bicubic", **self.call)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("call", [dict(size=(9, 13)), dict(scale_factor=2.0, align_corners=True),
                                  dict(scale_factor=(0.5, 1.5), recompute_scale_factor=True)],
                         ids=["size", "scale-align", "scale-recompute"])
def test_both_exporters_give_no_cubic_resize_and_onnxruntime_matches(dynamo, call) -> None:
    x = torch.randn(2, 3, 8, 6)
    original = export_nchw(_Original(**call), x, dynamo)
    assert [i.rule for i in check_graph(original) if i.op == "Resize"] == ["TRT727"]
    model = export_nchw(_Pos(**call), x, dynamo)
    assert "Resize" not in {n.op_type for n in model.graph.node}
    assert not [i for i in check_graph(model) if i.severity == "error"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(2, 3, 8, 6), (1, 3, 5, 11), (3, 3, 16, 16)]:  # other sizes than the traced one
        y = torch.randn(shape)
        want = F.interpolate(y, mode="bicubic", **call)
        (got,) = session.run(None, {"x": y.numpy()})
        assert_same(want, torch.from_numpy(got), atol=1e-5 * want.abs().max().item(), rtol=0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_nan_or_inf_spreads_over_its_whole_plane_as_the_rule_says(bad) -> None:
    """The stated assumption (finite inputs): the matrix products multiply it by every zero weight
    (0 * inf and 0 * NaN are NaN), so the whole output plane of that image and channel is NaN or inf, where
    F.interpolate's four taps change only the outputs beside it. Other planes stay exact."""
    x = torch.randn(1, 2, 8, 8, dtype=torch.float64)
    x[0, 0, 1, 1] = bad
    want = F.interpolate(x, size=(16, 16), mode="bicubic")
    got = _trt_bicubic_onnx(x, (16, 16), None, False, False)
    assert 0 < (~want[0, 0].isfinite()).sum().item() < 64 and not got[0, 0].isfinite().any()
    assert_same(want[0, 1], got[0, 1], atol=1e-12 * want[0, 1].abs().max().item(), rtol=0)
    doc = rule_by_id("TRT727").doc
    assert "finite inputs only" in doc and "NaN" in doc and "up to float rounding" in doc
    assert "antialias" in doc and rule_by_id("TRT727").fix.value == "unsafe"


def test_upsample_module_subclass() -> None:
    up = _TrtUpsample(scale_factor=2, mode="bicubic", align_corners=True)
    assert isinstance(up, torch.nn.Upsample) and not list(up.parameters())
    x = torch.randn(1, 2, 5, 7)
    want = torch.nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True)(x)
    assert torch.equal(up(x), want)
    model = export_nchw(up, x, dynamo=False)
    assert "Resize" not in {n.op_type for n in model.graph.node}


class _Calls(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _trt_interpolate(x, size=(5, 7), mode="bicubic", align_corners=False)


def test_fx_export_and_compile_record_interpolate_itself_and_the_module_scripts() -> None:
    x = torch.randn(1, 2, 4, 4)
    want = F.interpolate(x, size=(5, 7), mode="bicubic", align_corners=False)
    traced = torch.fx.symbolic_trace(_Calls())
    assert "torch.nn.functional.interpolate" in traced.code and torch.equal(traced(x), want)
    program = torch.export.export(_Calls(), (x,))
    assert "upsample_bicubic2d" in str(program.graph) and torch.equal(program.module()(x), want)
    assert torch.equal(torch.compile(_Calls(), backend="eager")(x), want)
    module = torch.nn.Upsample(scale_factor=2, mode="bicubic")
    assert torch.equal(torch.jit.script(_TrtUpsample(scale_factor=2, mode="bicubic"))(x), module(x))
    from trtcodemod.helpers import trt_interpolate

    assert trt_interpolate is _trt_interpolate


def test_a_mode_held_in_a_name_is_taken_where_the_graph_showed_a_cubic_resize_there(tmp_path: Path) -> None:
    """EfficientViT-SAM's ``resize`` helper (efficientsam 1.0.0 ``models/utils/network.py:42-58``): ``mode`` is a
    parameter, bicubic by default; the code alone cannot say the call is bicubic, the recorded graph can (a cubic
    Resize located at the call). The helper resizes by matrices only where the mode it is given is bicubic, so its
    bilinear calls stay ``F.interpolate`` in the graph too."""
    from trtcodemod.evidence.facts import Facts

    code = ("import torch.nn.functional as F\n\n\ndef resize(x, size=None, mode: str = 'bicubic'):\n"
            "    if mode in {'bilinear', 'bicubic'}:\n"
            "        return F.interpolate(x, size=size, mode=mode, align_corners=False)\n"
            "    return F.interpolate(x, size=size, mode=mode)\n")
    path = tmp_path / "network.py"
    path.write_text(code)
    alone = check_source(path.read_bytes(), str(path), Options(select=("TRT727",), scope="all"))
    assert alone == []
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 8))})
    facts.note_located([(str(path), 6, "TRT727"), (str(path), 7, "TRT401")])
    options = Options(select=("TRT727",), scope="all", facts=facts, unsafe=True)
    assert [f.line for f in check_source(path.read_bytes(), str(path), options)] == [6]
    after = fix_source(path.read_bytes(), str(path), options).source.decode()
    assert "        return _trt_interpolate(x, size=size, mode=mode, align_corners=False)\n" in after
    assert "    return F.interpolate(x, size=size, mode=mode)\n" in after
    x = torch.randn(1, 2, 5, 7)
    for mode in ("bicubic", "bilinear"):
        assert torch.equal(_trt_interpolate(x, size=(9, 4), mode=mode, align_corners=False),
                           torch.nn.functional.interpolate(x, size=(9, 4), mode=mode, align_corners=False))
