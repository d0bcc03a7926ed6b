"""TRT324 (a convolution kernel built from a tensor's size): the TorchScript exporter cannot tell its shape.

The rewrite text on the real forms (SSIM's window expanded to the channel count, kornia's sharpness kernel
repeated to it, a size unpacked from ``img.size()``), what is left alone, eager mode unchanged on edge values,
``torch.jit.script``, and the export: the original stops with "kernel of unknown shape", the rewritten graph
exports with dynamic batch, height and width and gives eager mode's values at other sizes; where the kernel's
spatial size follows the image (the rule's assumption broken) the graph is right only at the traced size.
"""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch

from support import load, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.convolution import _trt_conv_kernel

SSIM = '''
import torch
import torch.nn.functional as F


def gaussian_window(size, channel):
    g = torch.exp(-(torch.arange(size, dtype=torch.float32) - size // 2) ** 2 / 4.5)
    g = (g / g.sum())[:, None]
    return (g @ g.t())[None, None].expand(channel, 1, size, size).contiguous()


class SSIMBlur(torch.nn.Module):
    def forward(self, img):
        (_, channel, _, _) = img.size()
        window = gaussian_window(5, channel)
        return F.conv2d(img, window, padding=2, groups=channel)
'''

SHARPNESS = '''
import torch


class Sharpen(torch.nn.Module):
    def forward(self, input):
        kernel = (
            torch.tensor([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=input.dtype)
            .view(1, 1, 3, 3)
            .repeat(input.size(1), 1, 1, 1)
            / 13
        )
        return torch.nn.functional.conv2d(input, kernel, bias=None, stride=1, padding=1, groups=input.size(1))
'''

#: The kernel's spatial size follows the image's width: the rule's assumption does not hold.
SIZED_BY_WIDTH = '''
import torch
import torch.nn.functional as F


class Blur(torch.nn.Module):
    def forward(self, x):
        k = x.shape[-1] // 16 * 2 + 1
        window = torch.ones(x.shape[1], 1, k, k) / (k * k)
        return F.conv2d(x, window, padding=k // 2, groups=x.shape[1])
'''


#: The SSIM most repositories copy: the window tiled to the channel count by the caller, the convolutions in a
#: function that receives it with the group count.
SSIM_PASSED = '''
import torch
import torch.nn.functional as F


def create_window(window_size, channel):
    g = torch.exp(-(torch.arange(window_size, dtype=torch.float32) - window_size // 2) ** 2 / 4.5)
    g = (g / g.sum()).unsqueeze(1)
    return g.mm(g.t()).float().unsqueeze(0).unsqueeze(0).expand(channel, 1, window_size, window_size).contiguous()


def _ssim(img1, img2, window, window_size, channel):
    mu1 = F.conv2d(img1, window, padding=window_size // 2, groups=channel)
    mu2 = F.conv2d(img2, window, padding=window_size // 2, groups=channel)
    return mu1 * mu2


class SSIMMap(torch.nn.Module):
    def forward(self, x):
        channel = x.size(1)
        return _ssim(x, x.flip(-1), create_window(5, channel), 5, channel)
'''


def test_rewrite_text() -> None:
    assert "return F.conv2d(img, _trt_conv_kernel(window), padding=2, groups=channel)" in rewrite(SSIM, unsafe=True)
    after = rewrite(SHARPNESS, unsafe=True)
    assert "conv2d(input, _trt_conv_kernel(kernel), bias=None" in after
    assert rewrite(SHARPNESS) == SHARPNESS  # unsafe: only with --unsafe (or proved by migrate)
    assert rewrite(after, unsafe=True) == after  # a second pass changes nothing
    passed = rewrite(SSIM_PASSED, unsafe=True)
    assert passed.count("_trt_conv_kernel(window), padding=window_size // 2, groups=channel)") == 2
    keyword = ("import torch\ndef f(x, k):\n    c = x.shape[1]\n"
               "    return torch.conv_transpose2d(x, weight=k.expand(c, 1, 2, 2), stride=2, groups=c)\n")
    assert "weight=_trt_conv_kernel(k.expand(c, 1, 2, 2))" in rewrite(keyword, unsafe=True)


@pytest.mark.parametrize("code", [
    # A module's own weight and its sizes: constants of the export.
    "import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        w = self.weight - self.weight.mean(dim=(1, 2, 3), keepdim=True)\n"
    "        return F.conv2d(x, w.view(self.weight.shape[0], -1, 3, 3))\n",
    "import torch\nimport torch.nn.functional as F\ndef f(x, w):\n    return F.conv2d(x, w * 2, groups=4)\n",
    "import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        return F.conv2d(x, self.weight, groups=self.groups)\n",
    "import torch\ndef conv2d(x, w):\n    return x\ndef f(x, k):\n    return conv2d(x, k.repeat(x.size(1), 1, 1, 1))\n",
    "import numpy as np\nimport torch\ndef f(x, k):\n    return np.convolve(x, k.repeat(x.size(1)))\n",
])
def test_left_alone(code: str) -> None:
    assert "TRT324" not in rules_found(code)
    assert rewrite(code, unsafe=True) == code


@pytest.mark.parametrize("code,cls", [(SSIM, "SSIMBlur"), (SHARPNESS, "Sharpen")])
def test_eager_and_script_unchanged(code: str, cls: str) -> None:
    before, after = load(code, cls)(), load(rewrite(code, unsafe=True), cls)()
    for x in (torch.rand(2, 3, 9, 11) * 4 - 2, torch.zeros(1, 3, 5, 5), torch.empty(0, 3, 6, 6),
              torch.tensor([float("inf"), -float("inf"), float("nan"), -0.0, 1e30, -3.0]).repeat(3, 6)
              .view(1, 3, 6, 6)):
        expected, got = before(x), after(x)
        assert torch.equal(expected.isnan(), got.isnan())
        assert torch.equal(expected.nan_to_num(0.0, 1.0, -1.0), got.nan_to_num(0.0, 1.0, -1.0))
    weight = torch.randn(4, 1, 3, 3)
    assert _trt_conv_kernel(weight) is weight
    scripted = torch.jit.script(_trt_conv_kernel)
    assert scripted(weight) is weight


def _export(model: torch.nn.Module, example: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
    return buffer.getvalue()


@pytest.mark.parametrize("code,cls", [(SSIM, "SSIMBlur"), (SHARPNESS, "Sharpen"), (SSIM_PASSED, "SSIMMap")])
def test_export_at_two_sizes(code: str, cls: str) -> None:
    example = torch.rand(1, 3, 32, 32)
    with pytest.raises(Exception, match="kernel of unknown shape"):
        _export(load(code, cls)(), example)
    after = rewrite(code, unsafe=True)
    assert "_trt_conv_kernel" in strip_helpers(after)
    model = load(after, cls)()
    session = ort.InferenceSession(_export(model, example), providers=["CPUExecutionProvider"])
    for shape in ((1, 3, 32, 32), (3, 3, 19, 45)):
        x = torch.rand(shape) * 6 - 3
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        torch.testing.assert_close(got, load(code, cls)()(x), rtol=1e-5, atol=1e-6)


def test_assumption_is_real() -> None:
    """A kernel whose spatial size follows the image: exported at 32 pixels (3x3), its graph keeps 3x3, and at 64
    pixels, where eager mode builds 5x5, its Reshape cannot take the 5x5 kernel: ONNX Runtime raises rather than
    computing other values (migrate's check at other sizes finds it and reverts the fix)."""
    after = rewrite(SIZED_BY_WIDTH, unsafe=True)
    assert "_trt_conv_kernel(window)" in after
    model = load(after, "Blur")()
    session = ort.InferenceSession(_export(model, torch.rand(1, 2, 32, 32)), providers=["CPUExecutionProvider"])
    x = torch.rand(1, 2, 32, 32)
    torch.testing.assert_close(torch.from_numpy(session.run(None, {"x": x.numpy()})[0]), model(x))
    with pytest.raises(Exception, match="cannot be reshaped"):
        session.run(None, {"x": torch.rand(1, 2, 64, 64).numpy()})


#: timm's CondConv (timm/layers/cond_conv2d.py, timm_3d's CondConv3d the same in 3-D): per-sample kernels mixed by
#: routing weights, the batch folded into the channels and the groups (``groups=self.groups * B``).
CONDCONV = '''
import torch
import torch.nn.functional as F


class CondConv(torch.nn.Module):
    def __init__(self, dims=2, cin=4, cout=6, k=3, groups=2, experts=3):
        super().__init__()
        self.dims, self.in_channels, self.out_channels, self.groups = dims, cin, cout, groups
        self.kernel_size = (k,) * dims
        g = torch.Generator().manual_seed(1)
        size = cout * (cin // groups) * k ** dims
        self.weight = torch.nn.Parameter(torch.randn(experts, size, generator=g) / 4)
        self.bias = torch.nn.Parameter(torch.randn(experts, cout, generator=g))
        self.route = torch.nn.Parameter(torch.randn(cin, experts, generator=g))

    def forward(self, x):
        B, C = x.shape[:2]
        routing_weights = torch.sigmoid(x.flatten(2).mean(-1) @ self.route)
        weight = torch.matmul(routing_weights, self.weight)
        weight = weight.view((B * self.out_channels, self.in_channels // self.groups) + self.kernel_size)
        bias = torch.matmul(routing_weights, self.bias).view(B * self.out_channels)
        x = x.reshape((1, B * C) + x.shape[2:])
        out = F.conv2d(x, weight, bias, stride=2, padding=1, dilation=1, groups=self.groups * B)
        return out.view((B, self.out_channels) + out.shape[2:])
'''
CONDCONV3D = CONDCONV.replace("F.conv2d", "F.conv3d").replace("dims=2", "dims=3")

#: StyleGAN2's modulated convolution (GFPGAN's in spandrel, rosinality's): ``b, c, h, w = x.shape``, ``groups=b``.
MODULATED = '''
import torch
import torch.nn.functional as F


class Modulated(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(2)
        self.weight = torch.nn.Parameter(torch.randn(1, 5, 3, 3, 3, generator=g))
        self.style = torch.nn.Parameter(torch.randn(3, 3, generator=g))

    def forward(self, x):
        b, c, h, w = x.shape
        style = (x.mean((2, 3)) @ self.style).view(b, 1, c, 1, 1)
        weight = self.weight * style
        weight = weight * torch.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8).view(b, 5, 1, 1, 1)
        weight = weight.view(b * 5, c, 3, 3)
        x = x.view(1, b * c, h, w)
        out = F.conv2d(x, weight, padding=1, groups=b)
        return out.view(b, 5, *out.shape[2:4])
'''

#: kornia's filter2d with a kernel per sample: the groups are the kernel's first axis (batch times channels).
FILTER2D = '''
import torch
import torch.nn.functional as F


class Filter(torch.nn.Module):
    def forward(self, input):
        b, c, h, w = input.shape
        kernel = torch.softmax(input.mean(1).flatten(1)[:, :9], -1).view(-1, 3, 3)
        tmp_kernel = kernel[:, None, ...].expand(-1, c, -1, -1).reshape(-1, 1, 3, 3)
        input = input.reshape(-1, tmp_kernel.size(0), input.size(-2), input.size(-1))
        output = F.conv2d(input, tmp_kernel, groups=tmp_kernel.size(0), padding=1, stride=1)
        return output.view(b, c, h, w)
'''


def test_rewrite_text_batch_folded_into_groups() -> None:
    direct = CONDCONV3D
    assert ("out = _trt_sized_groups_conv(F.conv3d, x, weight, bias, stride=2, padding=1, dilation=1, "
            "groups=self.groups * B)") in rewrite(direct, unsafe=True)
    assert "_trt_sized_groups_conv(F.conv2d, x, weight, padding=1, groups=b)" in rewrite(MODULATED, unsafe=True)
    assert ("_trt_sized_groups_conv(F.conv2d, input, tmp_kernel, groups=tmp_kernel.size(0), padding=1, stride=1)"
            in rewrite(FILTER2D, unsafe=True))
    for code in (direct, MODULATED, FILTER2D):
        once = rewrite(code, unsafe=True)
        assert "_trt_conv_kernel(" not in strip_helpers(once)
        assert rewrite(once, unsafe=True) == once
        assert rewrite(code) == code  # unsafe


def test_patches_equal_convolution_on_edge_values() -> None:
    """The export path, run eagerly: the same values as the convolution, in 1-D, 2-D and 3-D, with strides,
    dilations, string paddings, several groups, unbatched input and non-finite values."""
    from trtcodemod.helpers.convolution import _trt_grouped_conv_patches

    g = torch.Generator().manual_seed(3)
    convs = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}
    cases = [(1, 3, 4, 3, 1, 1, 1), (6, 1, 1, 3, 2, 0, 1), (4, 2, 3, 2, 2, 1, 2), (2, 2, 2, 3, 1, "same", 2),
             (3, 1, 2, 2, 1, "valid", 1)]
    for dims, conv in convs.items():
        for groups, per_group, out_per_group, k, stride, padding, dilation in cases:
            x = torch.randn((2, groups * per_group) + (7,) * dims, generator=g, dtype=torch.float64)
            w = torch.randn((groups * out_per_group, per_group) + (k,) * dims, generator=g, dtype=torch.float64)
            b = torch.randn(groups * out_per_group, generator=g, dtype=torch.float64)
            expected = conv(x, w, b, stride, padding, dilation, groups)
            torch.testing.assert_close(_trt_grouped_conv_patches(x, w, b, stride, padding, dilation), expected)
            torch.testing.assert_close(_trt_grouped_conv_patches(x[0], w, None, stride, padding, dilation),
                                       conv(x[0], w, None, stride, padding, dilation, groups))
    x = torch.tensor([float("inf"), -float("inf"), float("nan"), -0.0, 1e30, -3.0, 0.0, 2.5]).repeat(4, 8)
    x = x.view(1, 4, 8, 8)
    w = torch.rand(4, 2, 3, 3, generator=g) + 0.5  # positive: inf stays inf where it is alone
    expected = torch.nn.functional.conv2d(x, w, None, 1, 1, 1, 2)
    got = _trt_grouped_conv_patches(x, w, None, 1, 1, 1)
    assert torch.equal(expected.isnan(), got.isnan())
    assert torch.equal(expected.isinf(), got.isinf())
    torch.testing.assert_close(got.nan_to_num(0.0, 1.0, -1.0), expected.nan_to_num(0.0, 1.0, -1.0))


@pytest.mark.parametrize("code,cls", [(CONDCONV, "CondConv"), (MODULATED, "Modulated"), (FILTER2D, "Filter")])
def test_batch_folded_eager_unchanged(code: str, cls: str) -> None:
    before, after = load(code, cls)(), load(rewrite(code, unsafe=True), cls)()
    for x in (torch.rand(2, 4, 9, 11) * 4 - 2, torch.zeros(1, 4, 5, 5),
              torch.tensor([1e30, -0.0, -3.0, 0.0, 2.5, 1e-30]).repeat(4, 6).view(1, 4, 6, 6)):
        if cls != "CondConv":
            x = x[:, :3].contiguous()
        assert torch.equal(before(x), after(x))


def _export_batch(model: torch.nn.Module, example: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    axes = {0: "batch", **{i: f"s{i}" for i in range(2, example.dim())}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": axes})
    return buffer.getvalue()


@pytest.mark.parametrize("code,cls,shapes", [
    (CONDCONV, "CondConv", ((2, 4, 16, 16), (3, 4, 11, 20))),
    (CONDCONV3D, "CondConv", ((2, 4, 8, 8, 8), (3, 4, 5, 9, 7))),
    (MODULATED, "Modulated", ((2, 3, 16, 16), (3, 3, 11, 20))),
    (FILTER2D, "Filter", ((2, 3, 16, 16), (3, 3, 11, 20))),
])
def test_batch_folded_export_at_two_sizes(code: str, cls: str, shapes) -> None:
    """Exported at batch 2, the graph gives eager mode's values at batch 1 and 3 and other sizes (the Conv's
    constant group count would refuse them)."""
    after = rewrite(code, unsafe=True)
    assert "_trt_sized_groups_conv(F.conv" in after
    model = load(after, cls)()
    session = ort.InferenceSession(_export_batch(model, torch.rand(shapes[0])), providers=["CPUExecutionProvider"])
    for shape in (*shapes, (1, *shapes[1][1:])):
        x = torch.rand(shape) * 6 - 3
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        torch.testing.assert_close(got, load(code, cls)()(x), rtol=1e-4, atol=1e-5)


#: HyperIQA's target layer (xinntao/facexlib@260620ae93990a300f4b16448df9bb459f1caba9
#: facexlib/assessment/hyperiqa_net.py:277-298, after SSL-92/hyperIQA's models.py): the module is built in forward
#: with the hyper network's per-image 1x1 kernels, the batch is folded into the channels and the group count is
#: the kernels' first axis read through ``self`` (data, not a parameter).
HYPER = '''
import torch
import torch.nn.functional as F


class PerImageFC(torch.nn.Module):
    def __init__(self, weight, bias):
        super().__init__()
        self.weight = weight
        self.bias = bias

    def forward(self, feats):
        n, c, h, w = feats.shape
        folded = feats.view(-1, n * c, h, w)
        kernels, shifts = self.weight.flatten(0, 1), self.bias.flatten()
        out = F.conv2d(input=folded, weight=kernels, bias=shifts, groups=self.weight.shape[0])
        return out.view(n, -1, h, w)


class Scorer(torch.nn.Module):
    def __init__(self, size=1):
        super().__init__()
        g = torch.Generator().manual_seed(4)
        self.size = size
        self.to_weight = torch.nn.Parameter(torch.randn(4, 5 * 4 * size * size, generator=g) / 3)
        self.to_bias = torch.nn.Parameter(torch.randn(4, 5, generator=g))

    def forward(self, x):
        pooled = x.mean((2, 3))
        weight = (pooled @ self.to_weight).view(-1, 5, 4, self.size, self.size)
        layer = PerImageFC(weight, pooled @ self.to_bias)
        return layer(x)
'''

#: The same with 3x3 per-image kernels over a ``reshape(1, -1, h, w)`` local, strided and padded.
HYPER3 = HYPER.replace("def __init__(self, size=1)", "def __init__(self, size=3)").replace(
    "groups=self.weight.shape[0])", "groups=self.weight.shape[0], padding=1, stride=2)").replace(
    "feats.view(-1, n * c, h, w)", "feats.reshape(1, -1, h, w)").replace(
    "return out.view(n, -1, h, w)", "return out.view(n, -1, out.shape[2], out.shape[3])")


def test_rewrite_text_batch_folded_into_the_input() -> None:
    """A group count that names no size of the batch, with the batch folded into the input's channels."""
    assert ("out = _trt_sized_groups_conv(F.conv2d, input=folded, weight=kernels, bias=shifts, "
            "groups=self.weight.shape[0])") in rewrite(HYPER, unsafe=True)
    assert ("out = _trt_sized_groups_conv(F.conv2d, input=folded, weight=kernels, bias=shifts, "
            "groups=self.weight.shape[0], padding=1, stride=2)") in rewrite(HYPER3, unsafe=True)
    for code in (HYPER, HYPER3):
        once = rewrite(code, unsafe=True)
        assert "_trt_conv_kernel(" not in strip_helpers(once)
        assert rewrite(once, unsafe=True) == once
        assert rewrite(code) == code  # unsafe


@pytest.mark.parametrize("code", [
    # Folded, but one group: the samples' channels mixed on purpose, a constant group count.
    "import torch\nimport torch.nn.functional as F\ndef f(x, w):\n"
    "    return F.conv2d(x.view(1, -1, x.shape[2], x.shape[3]), w, groups=1)\n",
    "import torch\nimport torch.nn.functional as F\ndef f(x, w):\n"
    "    return F.conv2d(x.reshape(1, -1, 4, 4), w)\n",
    # Not folded: a group count of the module's own (a depthwise layer).
    "import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        y = x.view(2, 4, 8, 8)\n        return F.conv2d(y, self.weight, groups=self.groups)\n",
    # A view that keeps the batch first.
    "import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        y = x.view(x.shape[0], -1, 8, 8)\n        return F.conv2d(y, self.weight, groups=self.groups)\n",
])
def test_folded_left_alone(code: str) -> None:
    assert "TRT324" not in rules_found(code)
    assert rewrite(code, unsafe=True) == code


def _folded_inputs() -> list[torch.Tensor]:
    """Batches 1, 2 and 5 with zeros, negatives and tiny and huge values."""
    g = torch.Generator().manual_seed(5)
    edge = torch.tensor([0.0, -0.0, -3.0, 2.5, 1e-30, -1e3]).repeat(5, 4, 6).view(5, 4, 6, 6)
    return [torch.rand(2, 4, 6, 6, generator=g) * 4 - 2, torch.zeros(1, 4, 6, 6), -torch.rand(1, 4, 7, 5, generator=g),
            edge, torch.randn(5, 4, 9, 8, generator=g)]


@pytest.mark.parametrize("code", [HYPER, HYPER3])
def test_batch_folded_input_eager_unchanged(code: str) -> None:
    before, after = load(code, "Scorer")(), load(rewrite(code, unsafe=True), "Scorer")()
    for x in _folded_inputs():
        assert torch.equal(before(x), after(x))
        x = x.clone().requires_grad_()
        y = x.detach().clone().requires_grad_()
        before(x).sum().backward()
        after(y).sum().backward()
        assert torch.equal(x.grad, y.grad)


@pytest.mark.parametrize("code", [HYPER, HYPER3])
def test_batch_folded_input_export(code: str) -> None:
    """The original stops the TorchScript export; the rewritten graph, exported at batch 2, holds no Conv whose
    kernel is computed and gives eager mode's values at batches 1, 2 and 5 on edge values."""
    import onnx

    example = torch.rand(2, 4, 6, 6)
    with pytest.raises(Exception, match="kernel of unknown shape"):
        _export(load(code, "Scorer")(), example)
    model = load(rewrite(code, unsafe=True), "Scorer")()
    graph = _export(model, example)
    proto = onnx.load_from_string(graph)
    assert not [n for n in proto.graph.node if n.op_type == "Conv"]
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    for x in _folded_inputs():
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        torch.testing.assert_close(got, load(code, "Scorer")()(x), rtol=1e-4, atol=1e-5)
