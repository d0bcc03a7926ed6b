"""TRT357: a 2-D/3-D convolution module built with a stride, padding or dilation that may be a one-element
list or tuple (``nn.Conv2d(..., stride=stride)`` with ``stride == [2]``) → ``_TrtConv2d(...)``, which passes
them with one element per spatial axis while exporting.

The rewrite text (keywords, positions, the 3-D module, star-args, import aliases), what is left alone
(integers, full literals, strings, a project's own ``Conv2d``, 1-D and transposed convolutions), opt-in
and unsafe; the parameter helper on every kind of value; the modules before and after on real tensors,
bit for bit (zeros, negatives, inf/NaN, an empty batch; gradients; every padding mode), with torch's
attributes and state, and scripted; and both exporters: the original graph's Conv has one stride and
ONNX Runtime refuses to load it, the rewritten one loads and equals eager mode at other sizes.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import bits_equal, load, rewrite, rules_found

from trtcodemod.helpers.convolution import _trt_conv_params

HEADER = "import torch\nfrom torch import nn\n\n\n"


@pytest.mark.parametrize(("code", "want"), [
    ("c = nn.Conv2d(3, 8, 3, stride=stride, bias=False)\n", "c = _TrtConv2d(3, 8, 3, stride=stride, bias=False)\n"),
    ("c = nn.Conv2d(3, 8, 3, s, p, d)\n", "c = _TrtConv2d(3, 8, 3, s, p, d)\n"),
    ("c = torch.nn.Conv3d(3, 8, 3, stride=[2], padding=1)\n", "c = _TrtConv3d(3, 8, 3, stride=[2], padding=1)\n"),
    ("c = nn.Conv3d(8, 4, 3, dilation=cfg.dilation)\n", "c = _TrtConv3d(8, 4, 3, dilation=cfg.dilation)\n"),
    ("c = nn.Conv2d(3, 8, 3, **kwargs)\n", "c = _TrtConv2d(3, 8, 3, **kwargs)\n"),  # may pass one
    ("from torch.nn import Conv2d as C\nc = C(3, 8, 3, stride=block.stride)\n",
     "c = _TrtConv2d(3, 8, 3, stride=block.stride)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = HEADER + code
    assert rewrite(source, select=("TRT357",)) == source  # unsafe: not without --unsafe
    after = rewrite(source, select=("TRT357",), unsafe=True)
    assert after.endswith(want), after
    helper = want.split("= ", 1)[1].split("(", 1)[0]
    assert f"class {helper}(torch.nn.Conv" in after and "def _trt_conv_exported(module, input, dims):" in after
    assert rewrite(after, select=("TRT357",), unsafe=True) == after  # a second pass changes nothing


@pytest.mark.parametrize("code", [
    "c = nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=1)\n",
    "c = nn.Conv2d(3, 8, 3, 2, (1, 1), [1, 2])\n",
    "c = nn.Conv3d(3, 8, 3, stride=(1, 2, 2), padding=-0)\n",
    "c = nn.Conv2d(3, 8, 3, padding='same')\n",
    "c = nn.Conv2d(3, 8, k, groups=g, bias=b)\n",  # none of the three given
    "c = nn.Conv1d(3, 8, 3, stride=stride)\n",  # one element is the right length
    "c = nn.ConvTranspose2d(3, 8, 3, stride=stride)\n",  # not taken: its forward has an output size
    "class Conv2d:\n    def __init__(self, *a, **k):\n        pass\n\n\nc = Conv2d(3, 8, 3, stride=stride)\n",
    # Integers by their code (YOLOX's BaseConv, as examples/tracking/bytetrack_yolox.py has it).
    "def conv(c: int, stride: int = 1, k: int = 3):\n    return nn.Conv2d(c, c, k, stride, k // 2, bias=False)\n",
    "def conv(c, s):\n    return nn.Conv2d(c, c, 3, int(s), padding=-(1 - 2))\n",
])
def test_left_alone(code: str) -> None:
    assert rules_found(HEADER + code, select=("TRT357",)) == []


def test_opt_in() -> None:
    source = HEADER + "c = nn.Conv2d(3, 8, 3, stride=stride)\n"
    assert "TRT357" not in rules_found(source)
    assert rules_found(source, select=("TRT357",)) == ["TRT357"]


@pytest.mark.parametrize(("value", "dims", "want"), [
    ([2], 2, (2, 2)), ((3,), 3, (3, 3, 3)), ([1], 2, (1, 1)),
    (2, 2, 2), ((1, 2), 2, (1, 2)), ([1, 2], 2, [1, 2]), ("same", 2, "same"), ("s", 2, "s"),
    ((), 2, ()), ((1, 2, 3), 2, (1, 2, 3)),  # wrong lengths are torch's to refuse, as before
])
def test_helper(value, dims: int, want) -> None:
    got = _trt_conv_params(value, dims)
    assert got == want and type(got) is type(want)


MODULES = """\
import torch
from torch import nn


def build(stride, padding, dilation, mode):
    torch.manual_seed(0)
    return nn.KIND(4, 6, 3, stride=stride, padding=padding, dilation=dilation, groups=2, padding_mode=mode)
"""


def _edge_inputs(shape: tuple[int, ...]) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    special = torch.randn(shape, generator=g)
    flat = special.view(-1)
    flat[::7], flat[3::11], flat[5::13] = float("inf"), float("-inf"), float("nan")
    return {
        "random": torch.randn(shape, generator=g),
        "zeros": torch.zeros(shape),
        "negatives": -torch.rand(shape, generator=g) - 1,
        "inf-nan": special,
        "empty-batch": torch.zeros((0,) + shape[1:]),
    }


@pytest.mark.parametrize(("kind", "dims", "mode"), [
    ("Conv2d", 2, "zeros"), ("Conv3d", 3, "zeros"), ("Conv2d", 2, "reflect"), ("Conv2d", 2, "circular"),
])
def test_eager_unchanged_on_real_tensors(kind: str, dims: int, mode: str) -> None:
    source = MODULES.replace("KIND", kind)
    after = rewrite(source, select=("TRT357",), unsafe=True)
    assert f"return _TrtConv{dims}d(4, 6, 3, stride=stride" in after
    # torch refuses a one-element padding with a padding mode other than zeros (its own F.pad): an int there
    padding = (1,) if mode == "zeros" else 1
    original = load(source, "build")([2], padding, [2], mode)
    rewritten = load(after, "build")([2], padding, [2], mode)
    for attr in ("stride", "padding", "dilation", "groups", "padding_mode", "_reversed_padding_repeated_twice"):
        assert getattr(original, attr) == getattr(rewritten, attr), attr  # the attributes are torch's
    assert original.state_dict().keys() == rewritten.state_dict().keys()
    assert all(bits_equal(a, b) for a, b in zip(original.state_dict().values(), rewritten.state_dict().values()))
    shape = (2, 4) + (9,) * dims
    for label, x in _edge_inputs(shape).items():
        a = x.clone().requires_grad_(label != "empty-batch")
        b = x.clone().requires_grad_(label != "empty-batch")
        want, got = original(a), rewritten(b)
        assert bits_equal(want.detach(), got.detach()), label
        if a.requires_grad:
            want.sum().backward()
            got.sum().backward()
            assert bits_equal(a.grad, b.grad), label
            for p, q in zip(original.parameters(), rewritten.parameters()):
                assert bits_equal(p.grad, q.grad), label
            original.zero_grad()
            rewritten.zero_grad()


def test_scripted_module_runs_as_torch_does(tmp_path: Path) -> None:
    after = rewrite(MODULES.replace("KIND", "Conv2d"), select=("TRT357",), unsafe=True)
    original = load(MODULES.replace("KIND", "Conv2d"), "build")([2], (1,), [2], "zeros")
    rewritten = import_source(after, tmp_path)["build"]([2], (1,), [2], "zeros")
    x = torch.randn(1, 4, 9, 9)
    assert bits_equal(torch.jit.script(rewritten)(x), torch.jit.script(original)(x))


def _session(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> ort.InferenceSession:
    if dynamo:
        program = torch.onnx.export(model, (x,), dynamo=True, opset_version=18, verbose=False,
                                    dynamic_shapes={"x": {0: torch.export.Dim("b"), 2: torch.export.Dim("h"),
                                                          3: torch.export.Dim("w")}})
        data = program.model_proto.SerializeToString()
    else:
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
        data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


class _Net(torch.nn.Module):
    def __init__(self, conv: torch.nn.Module) -> None:
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return self.conv(x)


@pytest.mark.parametrize("dynamo", [False, True])
def test_exported_graph_before_and_after(dynamo: bool) -> None:
    code = HEADER + "def build(stride, padding):\n    torch.manual_seed(0)\n" \
        "    return nn.Conv2d(4, 6, 3, stride=stride, padding=padding)\n"
    assert "_TrtConv2d(4, 6, 3, stride=stride, padding=padding)" in rewrite(code, select=("TRT357",), unsafe=True)
    after = rewrite(code, select=("TRT357",), unsafe=True)
    original = _Net(load(code, "build")([2], [1])).eval()
    rewritten = _Net(load(after, "build")([2], [1])).eval()
    rewritten.load_state_dict(original.state_dict())
    example = torch.randn(1, 4, 12, 14)
    with pytest.raises(Exception, match="incorrect size"):
        _session(original, example, dynamo)  # the Conv's one-element attribute: refused on load
    session = _session(rewritten, example, dynamo)
    g = torch.Generator().manual_seed(5)
    for x in (example, torch.randn(3, 4, 17, 9, generator=g), torch.zeros(2, 4, 5, 6),
              -torch.rand(1, 4, 8, 8, generator=g)):
        with torch.no_grad():
            want = original(x).numpy()
        [got] = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("code", [
    "def conv(c, stride):\n    return nn.Conv2d(c, c, 3, stride)\n",  # unannotated: may be a list
    "def conv(c: int, s: int):\n    return nn.Conv2d(c, c, 3, s * [1])\n",  # a list repeated s times
    "def conv(c: int, s: int):\n    return nn.Conv2d(c, c, 3, s, [s // 2])\n",  # one-element padding
])
def test_an_int_parameter_does_not_hide_a_list(code: str) -> None:
    assert rules_found(HEADER + code, select=("TRT357",)) == ["TRT357"]


def test_eager_quantization_is_a_stated_way_the_assumption_fails() -> None:
    """``prepare_qat`` swaps ``nn.Conv2d`` by exact type and leaves the subclass a float convolution, as the
    QAT fork of zylo117's EfficientDet (vallabha30/QAT_ED_PyTorch@87932272 efficientnet/utils_extra.py:17-20,
    a ``QuantStub`` and a ``qconfig`` around ``nn.Conv2d(..., stride=stride)``) would see it: the rule says so."""
    from trtcodemod.helpers.convolution import _TrtConv2d
    from trtcodemod.registry import rule_by_id

    swapped = {}
    for kind in (torch.nn.Conv2d, _TrtConv2d):
        model = torch.nn.Sequential(torch.ao.quantization.QuantStub(), kind(3, 4, 3, stride=[2])).train()
        model.qconfig = torch.ao.quantization.get_default_qat_qconfig("x86")
        swapped[kind] = type(torch.ao.quantization.prepare_qat(model)[1]) is not kind
    assert swapped == {torch.nn.Conv2d: True, _TrtConv2d: False}
    assert any("prepare_qat" in line for line in rule_by_id("TRT357").fails_when)
