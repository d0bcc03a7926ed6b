"""TRT357: a 2-D/3-D convolution module built with a stride, padding or dilation that may be a one-element
list or tuple (``nn.Conv2d(..., stride=stride)`` with ``stride == [2]``) → ``_trt_conv_params(stride, 2)``.

The rewrite text (keywords, positions, the transposed and 3-D modules, import aliases), what is left
alone (integers, full literals, strings, a project's own ``Conv2d``, 1-D convolutions), opt-in and
unsafe; the helper on every kind of value; the modules before and after on real tensors, bit for bit
(zeros, negatives, inf/NaN, an empty batch; gradients); and both exporters: the original graph's Conv
has one stride and ONNX Runtime refuses to load it, the rewritten one loads and equals eager mode at
other sizes.
"""

from __future__ import annotations

import io

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import bits_equal, load, rewrite, rules_found

from trtcodemod.helpers.convolution import _trt_conv_params

HEADER = "import torch\nfrom torch import nn\n\n\n"


@pytest.mark.parametrize(("code", "want"), [
    ("c = nn.Conv2d(3, 8, 3, stride=stride, bias=False)\n",
     "c = nn.Conv2d(3, 8, 3, stride=_trt_conv_params(stride, 2), bias=False)\n"),
    ("c = nn.Conv2d(3, 8, 3, s, p, d)\n",
     "c = nn.Conv2d(3, 8, 3, _trt_conv_params(s, 2), _trt_conv_params(p, 2), _trt_conv_params(d, 2))\n"),
    ("c = torch.nn.Conv3d(3, 8, 3, stride=[2], padding=1)\n",
     "c = torch.nn.Conv3d(3, 8, 3, stride=_trt_conv_params([2], 3), padding=1)\n"),
    ("c = nn.ConvTranspose2d(8, 4, 3, 2, pad, out_pad)\n",
     "c = nn.ConvTranspose2d(8, 4, 3, 2, _trt_conv_params(pad, 2), _trt_conv_params(out_pad, 2))\n"),
    ("c = nn.ConvTranspose3d(8, 4, 3, dilation=cfg.dilation)\n",
     "c = nn.ConvTranspose3d(8, 4, 3, dilation=_trt_conv_params(cfg.dilation, 3))\n"),
    ("from torch.nn import Conv2d as C\nc = C(3, 8, 3, stride=block.stride)\n",
     "c = C(3, 8, 3, stride=_trt_conv_params(block.stride, 2))\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = HEADER + code
    assert rewrite(source, select=("TRT357",)) == source  # unsafe: not without --unsafe
    after = rewrite(source, select=("TRT357",), unsafe=True)
    assert after.endswith(want), after
    assert "def _trt_conv_params(value, dims):" in after
    assert rewrite(after, select=("TRT357",), unsafe=True) == after  # a second pass changes nothing


@pytest.mark.parametrize("code", [
    "c = nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=1)\n",
    "c = nn.Conv2d(3, 8, 3, 2, (1, 1), [1, 2])\n",
    "c = nn.Conv3d(3, 8, 3, stride=(1, 2, 2), padding=-0)\n",
    "c = nn.Conv2d(3, 8, 3, padding='same')\n",
    "c = nn.Conv2d(3, 8, k, groups=g, bias=b)\n",  # none of the three given
    "c = nn.Conv1d(3, 8, 3, stride=stride)\n",  # one element is the right length
    "class Conv2d:\n    def __init__(self, *a, **k):\n        pass\n\n\nc = Conv2d(3, 8, 3, stride=stride)\n",
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


def build(stride, padding, dilation, extra):
    torch.manual_seed(0)
    return nn.KIND(4, 6, 3, stride=stride, padding=padding, dilation=dilation, groups=2, **extra)
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


@pytest.mark.parametrize(("kind", "dims", "extra"), [
    ("Conv2d", 2, {}), ("Conv3d", 3, {}), ("ConvTranspose2d", 2, {"output_padding": [1]}),
])
def test_eager_unchanged_on_real_tensors(kind: str, dims: int, extra: dict) -> None:
    source = MODULES.replace("KIND", kind)
    after = rewrite(source, select=("TRT357",), unsafe=True)
    assert f"stride=_trt_conv_params(stride, {dims})" in after and f"dilation=_trt_conv_params(dilation, {dims})" in after
    original = load(source, "build")([2], (1,), [2], extra)
    rewritten = load(after, "build")([2], (1,), [2], extra)
    assert original.stride == (2,) and rewritten.stride == (2,) * dims  # the attribute is what changes
    rewritten.load_state_dict(original.state_dict())
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
