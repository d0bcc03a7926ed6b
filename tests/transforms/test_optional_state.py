"""Guidance rules: TRT602 (adaptive max pool), TRT721 (is None), TRT722 (copy; its deepcopy fix is
tested in test_copying.py), TRT723 (GELU op), TRT724 (conv with run-time weights), TRT725
(antialiased resize: what it reports; its rewrite is tested in test_antialias_resize.py); all detect
only but TRT722 and TRT725.

Each rule gets positive and look-alike negative snippets, and the export behaviour its
documentation claims is checked with torch 2.13 (TorchScript exporter; dynamo where cheap).
"""

from __future__ import annotations

import copy
import io
import textwrap
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from support import onnx_ops, rewrite, rules_found

HEADER = (
    "import copy\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from typing import Optional\nfrom torch import Tensor\n"
)


def found(code: str, rule: str, target: str = "8.6") -> list[str]:
    return [r for r in rules_found(HEADER + textwrap.dedent(code), select=(rule,), target=target) if r == rule]


def export_model(model: nn.Module, args: tuple, **kw) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, **kw)
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("rule", ["TRT602", "TRT721", "TRT723", "TRT724"])
def test_detect_only(rule: str) -> None:
    from trtcodemod.registry import rule_by_id

    info = rule_by_id(rule)
    assert info is not None and info.fix.value == "none"
    for example in info.examples:
        source = HEADER + example.before
        assert rewrite(source, unsafe=True, select=(rule,), target="8.0") == source


# --- TRT602 adaptive max pooling ------------------------------------------------------------


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


# --- TRT721 is None on optional inputs and run-time state -------------------------------------

STATE = """
class Encoder(nn.Module):
    def __init__(self, norm=None):
        super().__init__()
        self.norm = norm
        self.prev_bev = None
        self.cache = None
        self.reparam = None
        self.proj = nn.Linear(4, 4)

    def reset(self):
        self.cache = None

    def fuse(self):
        self.reparam = self.proj

    def _store(self, x):
        self.prev_bev = x

    def forward(self, x):
        if self.norm is not None:          # configuration: static
            x = self.norm(x)
        if self.prev_bev is None:          # state written by a method forward calls
            prev = torch.zeros_like(x)
        else:
            prev = self.prev_bev
        use_cache = self.cache is not None  # only reset() writes it: fixed while tracing
        if self.reparam is not None:        # model surgery before the export: configuration
            x = self.reparam(x)
        self._store(x)
        assert self.prev_bev is not None
        return self.proj(x + prev)
"""


def test_state_checks() -> None:
    from trtcodemod.engine import Options, check_source

    findings = check_source((HEADER + STATE).encode(), "m.py", Options(select=("TRT721",)))
    messages = [f.message for f in findings]
    assert len(findings) == 1, messages
    assert "self.prev_bev" in messages[0] and "`_store`" in messages[0]


@pytest.mark.parametrize("code", [
    # forward inputs with a None default, visibly tensors
    "class A(nn.Module):\n    def forward(self, q, mask: Optional[Tensor] = None):\n"
    "        if mask is not None:\n            q = q + mask\n        return q\n",
    "class A(nn.Module):\n    def forward(self, q, mask=None):\n"
    "        if mask is None:\n            mask = torch.ones_like(q)\n        return q * mask.float()\n",
    "class A(nn.Module):\n    def forward(self, q, pos=None):\n"
    "        return q if pos is None else torch.cat([q, pos], 1)\n",
    # state written in forward itself
    "class A(nn.Module):\n    def forward(self, x):\n        if self.memory is None:\n"
    "            self.memory = x\n        return x + self.memory\n",
])
def test_none_check_reported(code: str) -> None:
    assert found(code, "TRT721") == ["TRT721"]


@pytest.mark.parametrize("code", [
    # configuration set while building the module
    "class A(nn.Module):\n    def __init__(self, norm=None):\n        super().__init__()\n        self.norm = norm\n"
    "    def forward(self, x):\n        if self.norm is not None:\n            x = self.norm(x)\n        return x\n",
    # built by a helper only __init__ calls
    "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self._build()\n"
    "    def _build(self):\n        self.head = None\n"
    "    def forward(self, x):\n        return x if self.head is None else self.head(x)\n",
    # attribute never assigned in the class: where it changes is not visible
    "class A(nn.Module):\n    def forward(self, x):\n        if self.downsample is not None:\n"
    "            x = self.downsample(x)\n        return x\n",
    # an optional argument with no sign of being a tensor (metadata)
    "class A(nn.Module):\n    def forward(self, x, img_metas=None):\n        if img_metas is None:\n"
    "            img_metas = {}\n        return x\n",
    # rebound before the test: no longer the input
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        mask = self.make_mask(x)\n"
    "        if mask is not None:\n            x = x * mask.float()\n        return x\n",
    # not a module; not forward; training-only; assert; a required argument
    "class Tracker:\n    def forward(self, x, mask=None):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def helper(self, x, mask=None):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        if self.training:\n"
    "            if mask is not None:\n                x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        assert mask is not None\n"
    "        return x * mask.float()\n",
    "class A(nn.Module):\n    def forward(self, x, mask):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    # `==` None and `is` on something else
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        if x.dtype is torch.float16:\n"
    "            x = x.float()\n        return x * mask.float()\n",
])
def test_none_check_not_reported(code: str) -> None:
    assert found(code, "TRT721") == []


class _Masked(nn.Module):
    def forward(self, q, mask: torch.Tensor | None = None):
        if mask is not None:
            q = q * mask
        return q + 1


def test_trace_keeps_one_branch() -> None:
    q = torch.randn(2, 3)
    without = export_model(_Masked(), (q,), input_names=["q"])
    assert [i.name for i in without.graph.input] == ["q"]
    with_mask = export_model(_Masked(), (q, torch.ones(2, 3)), input_names=["q", "mask"])
    assert [i.name for i in with_mask.graph.input] == ["q", "mask"]
    assert "Mul" in [n.op_type for n in with_mask.graph.node]
    assert "Mul" not in [n.op_type for n in without.graph.node]


# --- TRT722 copy in forward -------------------------------------------------------------------


@pytest.mark.parametrize("code", [
    "class H(nn.Module):\n    def forward(self, x):\n        y = copy.deepcopy(x)\n        return y + 1\n",
    "class H(nn.Module):\n    def forward(self, feats):\n        return self.run(feats)\n"
    "    def run(self, feats):\n        return copy.copy(feats)\n",
    "from copy import deepcopy as dc\nclass H(nn.Module):\n    def forward(self, x):\n        return dc(x)\n",
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
])
def test_copy_not_reported(code: str) -> None:
    assert found(code, "TRT722") == []


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


# --- TRT723 GELU --------------------------------------------------------------------------------


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


# --- TRT724 conv with run-time weights ----------------------------------------------------------


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


# --- TRT725 antialiased resize -------------------------------------------------------------------


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


class _Resize(nn.Module):
    def __init__(self, antialias: bool) -> None:
        super().__init__()
        self.antialias = antialias

    def forward(self, x):
        return F.interpolate(x, size=(5, 5), mode="bilinear", antialias=self.antialias)


def test_antialias_export() -> None:
    x = torch.randn(1, 3, 16, 16)
    with pytest.raises(Exception, match="_upsample_bilinear2d_aa"):
        onnx_ops(_Resize(True), (x,))
    assert "Resize" in onnx_ops(_Resize(False), (x,))


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


@pytest.mark.parametrize("code", [
    # a container of tensors and a size option are no tensors
    "class M(nn.Module):\n    def forward(self, x, targets: Optional[list[dict[str, torch.Tensor]]] = None):\n"
    "        if targets is not None:\n            x = x + 1\n        return x\n",
    "class M(nn.Module):\n    def forward(self, x, patch_size=None):\n        if patch_size is None:\n"
    "            patch_size = 4\n        return F.interpolate(x, size=patch_size)\n",
])
def test_none_checks_on_non_tensors_stay_quiet(code: str) -> None:
    from trtcodemod.engine import Options, check_source

    source = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom typing import Optional\n" + code
    assert check_source(source.encode(), "m.py", Options(select=("TRT721",))) == []
