"""TRT708 (``torch.exp2``): the TorchScript exporter cannot convert it; the rewrite exports ``Pow(2, x)``.

The rewrite text (function, method and ``torch.special`` forms, imports under other names, what is
left), eager mode bit for bit against the original on edge values (values, dtype, gradients,
errors), the other toolchains, and the export with both exporters: the original fails with the
TorchScript exporter, the rewritten graph is one Pow and gives, in ONNX Runtime, what the
original's dynamo export gives, bit for bit, at other sizes too.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.powers import _trt_exp2
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn
from torch import exp2 as power_of_two


class M(nn.Module):
    def forward(self, exponent, s):
        power = torch.exp2(exponent.abs())
        sigma = 1.6 * ((s + 0.5) / 3.0).exp2()
        other = torch.special.exp2(exponent) + power_of_two(s)
        return power * sigma, other
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT708",)) == ["TRT708"] * 4
    after = strip_helpers(rewrite(SOURCE, select=("TRT708",)))  # safe: no --unsafe needed
    assert "power = _trt_exp2(exponent.abs())" in after
    assert "sigma = 1.6 * _trt_exp2((s + 0.5) / 3.0)" in after
    assert "other = _trt_exp2(exponent) + _trt_exp2(s)" in after
    once = rewrite(SOURCE, select=("TRT708",))
    assert rewrite(once, select=("TRT708",)) == once
    left = ("import torch\nimport numpy as np\n"
            "def f(a, b, t):\n"
            "    torch.exp2(a, out=b)\n"
            "    a.exp2_()\n"
            "    return np.exp2(t), torch.exp(a), (a, b).exp2()\n")
    assert rules_found(left, select=("TRT708",)) == ["TRT708", "TRT708"]  # out=: reported; the tuple: kept whole
    kept = rewrite(left, select=("TRT708",))
    assert "torch.exp2(a, out=b)" in kept and "a.exp2_()" in kept and "np.exp2(t)" in kept
    assert "_trt_exp2((a, b))" in kept  # a tuple receiver keeps its parentheses (one argument)
    own = "def exp2(x):\n    return x\n\ndef f(x):\n    return exp2(x)\n"
    assert rules_found(own, select=("TRT708",)) == []


def _values(dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(5)
    base = torch.cat([torch.randn(3000, generator=g, dtype=torch.float64) * s for s in (1, 30, 300)])
    whole = torch.arange(-160, 160, dtype=torch.float64)
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 127.99, 128.0, -149.0, -150.0, 1e-30],
                           dtype=torch.float64)
    return torch.cat([base, whole, special]).to(dtype)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["M"]
    after = import_source(rewrite(SOURCE, select=("TRT708",)), tmp_path_factory.mktemp("after"))["M"]
    return before, after


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_eager_mode_is_the_original_bit_for_bit(programs, dtype) -> None:
    before, after = programs
    x = _values(dtype)
    for inputs in ([x.clone().requires_grad_(True), x.flip(0).clone()],
                   [torch.zeros(0, 3, dtype=dtype), torch.zeros(0, 3, dtype=dtype)],   # empty
                   [-x.abs(), torch.zeros_like(x)]):                                   # negatives, zeros
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs), context=str(dtype))


def test_eager_mode_on_other_dtypes_and_errors(programs) -> None:
    before, after = programs
    for inputs in ([torch.arange(-5, 6), torch.arange(11)],                       # integers: the default float type
                   [torch.tensor([True, False]), torch.tensor([False, True])],
                   [torch.arange(4, dtype=torch.uint8), torch.arange(4, dtype=torch.uint8)],
                   [torch.randn(3), torch.randn(4)],                               # broadcast error
                   [2.0, torch.randn(2)]):                                          # not a tensor: torch's error
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs))
    z = torch.randn(3, dtype=torch.complex64)
    assert_same_run(run_once(_trt_exp2, [z]), run_once(torch.exp2, [z]))


def test_other_toolchains_run_the_original(programs, tmp_path) -> None:
    before, after = programs
    inputs = [torch.randn(2, 3), torch.randn(2, 3)]
    want = toolchain_outcomes(before, inputs, tmp_path)
    got = toolchain_outcomes(after, inputs, tmp_path)
    assert set(want) == set(got)
    for name in want:
        if isinstance(want[name], Exception):
            assert type(got[name]) is type(want[name]), name
        else:
            assert_same_run(run_once(lambda *a, v=want[name]: v, []), run_once(lambda *a, v=got[name]: v, []),
                            context=name)


class _Power(torch.nn.Module):
    def __init__(self, program) -> None:
        super().__init__()
        self.program = program()

    def forward(self, exponent, s):
        return self.program(exponent, s)[0]


def _export(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"exponent": {0: torch.export.Dim("n")}, "s": {0: torch.export.Dim("n")}}
            return torch.onnx.export(model, inputs, dynamo=True, input_names=["exponent", "s"], dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=["exponent", "s"],
                          dynamic_axes={"exponent": {0: "n"}, "s": {0: "n"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: tuple) -> torch.Tensor:
    session = ort.InferenceSession(graph.SerializeToString())
    feed = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(session.run(None, feed)[0])


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_model_exports_and_matches_eager_at_other_sizes(programs, dynamo) -> None:
    before, after = programs
    example = (torch.randn(4), torch.randn(4))
    if not dynamo:
        with pytest.raises(Exception, match="exp2"):
            _export(_Power(before), example, dynamo=False)
    graph = _export(_Power(after), example, dynamo)
    assert "Pow" in {n.op_type for n in graph.graph.node}
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    x = _values(torch.float32)[:6000]  # another size than the example's
    s = x.flip(0).clamp(-40, 40)
    assert torch.allclose(_run(graph, (x, s)), before()(x, s)[0], rtol=1e-6, atol=0.0, equal_nan=True)


class _Original(torch.nn.Module):
    def forward(self, x):
        return torch.exp2(x)


class _One(torch.nn.Module):
    def forward(self, x):
        return _trt_exp2(x)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_the_export_is_the_dynamo_exporters_pow_and_exp2_or_one_ulp_from_it(dtype) -> None:
    """The rewritten TorchScript export computes what the dynamo exporter's export of ``torch.exp2``
    computes, bit for bit, and that is ``torch.exp2`` or one ulp from it."""
    x = _values(dtype)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_One(), (x[:3],), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n"}})
        dynamo = torch.onnx.export(_Original(), (x[:3],), dynamo=True, input_names=["x"],
                                   dynamic_shapes={"x": {0: torch.export.Dim("n")}}, verbose=False).model_proto
    got, want = _run(onnx.load_from_string(buffer.getvalue()), (x,)), torch.exp2(x)
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    reference = _run(dynamo, (x,))
    assert bool(((got.view(bits) == reference.view(bits)) | (got.isnan() & reference.isnan())).all())
    both_nan = got.isnan() & want.isnan()
    assert bool((got.isnan() == want.isnan()).all())
    ulps = (got.view(bits).long() - want.view(bits).long()).abs()[~both_nan]
    assert int(ulps.max()) <= 1


def test_the_export_formulation_is_one_ulp_from_exp2_in_eager() -> None:
    """Why eager code keeps ``torch.exp2``: ``torch.pow(2.0, x)`` is not it bit for bit."""
    x = _values(torch.float32)
    want, got = torch.exp2(x), torch.pow(2.0, x)
    ulps = (got.view(torch.int32).long() - want.view(torch.int32).long()).abs()[~want.isnan()]
    assert int(ulps.max()) == 1 and int((ulps > 0).sum()) > 0
    whole = torch.arange(-20, 20)
    assert torch.equal(torch.pow(2.0, whole), torch.exp2(whole))  # integers: same value and dtype


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        exponent = torch.floor(self.conv(x).clamp(-8, 8))
        return x.mean(1, keepdim=True) * torch.exp2(-exponent)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "power_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT708"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        return x.mean(1, keepdim=True) * _trt_exp2(-exponent)" in report["diff"]
