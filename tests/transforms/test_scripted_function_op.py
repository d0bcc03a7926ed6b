"""TRT398: an autograd Function whose `forward` calls a scripted function, run as plain code while exporting.

The memory-efficient activations rwightman wrote for geffnet and timm, and the copies other repositories keep
(under an `if`, on a `Function` imported by name, with `ctx.saved_variables` in `backward`), in our own words:
the rewrite's text, eager values and gradients unchanged, the original's TorchScript export stopping with
"Couldn't export Python operator", the rewritten graph equal to eager mode in ONNX Runtime on zeros, negatives,
large values and another batch, and migrate taking the fix where the export stops. A class with its own `symbolic`,
and one whose `forward` is plain torch (YOLOv5's `SwishImplementation`, which exports), are left.
"""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

RULE = ("TRT398",)

VARIANTS = {
    # rwightman/gen-efficientnet-pytorch geffnet/activations/activations_me.py `HardSwishJitAutoFn` (timm's
    # activations_me.py of its time too): scripted forward and backward functions, the input kept for backward.
    "geffnet_hard_swish": '''
import torch
from torch import nn


@torch.jit.script
def hard_swish_fwd(x):
    return x * (x + 3).clamp(min=0, max=6).div(6.)


@torch.jit.script
def hard_swish_bwd(x, grad_output):
    m = torch.ones_like(x) * (x >= 3.)
    m = torch.where((x >= -3.) & (x <= 3.), x / 3. + .5, m)
    return grad_output * m


class HardSwishAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return hard_swish_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return hard_swish_bwd(x, grad_output)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return HardSwishAutoFn.apply(self.conv(x))
''',
    # Copies that pick the implementation when the module loads: the scripted functions and the class under an
    # `if`, `Function` imported by name, the old `ctx.saved_variables` in backward (a swish the way EfficientNet
    # ports keep it).
    "conditional_swish": '''
import torch
from torch import nn
from torch.autograd import Function

if hasattr(torch.jit, "script"):
    @torch.jit.script
    def swish_fwd(x):
        return x.mul(torch.sigmoid(x))

    @torch.jit.script
    def swish_bwd(x, grad_output):
        s = torch.sigmoid(x)
        return grad_output * (s * (1 + x * (1 - s)))

    class SwishAutoFn(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return swish_fwd(x)

        @staticmethod
        def backward(ctx, grad_output):
            x = ctx.saved_variables[0]
            return swish_bwd(x, grad_output)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return SwishAutoFn.apply(self.conv(x))
''',
    # A mish bound with `torch.jit.script(f)` instead of the decorator, applied through a module attribute.
    "bound_mish": '''
import torch
import torch.nn.functional as F
from torch import nn


def _mish(x):
    return x.mul(torch.tanh(F.softplus(x)))


mish_fwd = torch.jit.script(_mish)


class MishAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return mish_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        s = torch.sigmoid(x)
        t = F.softplus(x).tanh()
        return grad_output * (t + x * s * (1 - t * t))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.act = MishAutoFn.apply

    def forward(self, x):
        return self.act(self.conv(x))
''',
}

_CLASS = {"geffnet_hard_swish": "HardSwishAutoFn", "conditional_swish": "SwishAutoFn", "bound_mish": "MishAutoFn"}


def _inputs(batch: int, seed: int, scale: float = 4.0) -> torch.Tensor:
    return torch.randn(batch, 3, 8, 10, generator=torch.Generator().manual_seed(seed)) * scale


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_class_is_decorated(name: str) -> None:
    assert rules_found(VARIANTS[name], select=RULE) == ["TRT398"]
    after = rewrite(VARIANTS[name], select=RULE)
    assert f"@_trt_traced_forward\n" in after and f"class {_CLASS[name]}" in after
    assert rewrite(after, select=RULE) == after  # once decorated, left


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_eager_values_and_gradients_are_unchanged(name: str, tmp_path) -> None:
    torch.manual_seed(0)
    before = import_source(VARIANTS[name], tmp_path)["Model"]()
    after = import_source(rewrite(VARIANTS[name], select=RULE), tmp_path)["Model"]()
    after.load_state_dict(before.state_dict())
    for x in (_inputs(2, 1), torch.zeros(1, 3, 8, 10), -_inputs(3, 2), _inputs(0, 3), _inputs(2, 4, 1e3)):
        assert_same_run(run_once(before, [x.requires_grad_()]), run_once(after, [x.clone().requires_grad_()]),
                        context=name)


def _export(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (_inputs(2, 0),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    return buffer.getvalue()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_original_stops_the_export_and_the_rewritten_graph_is_eager_mode(name: str, tmp_path) -> None:
    torch.manual_seed(0)
    original = import_source(VARIANTS[name], tmp_path)["Model"]().eval()
    with pytest.raises(Exception, match="Couldn't export Python operator " + _CLASS[name]):
        _export(original)
    rewritten = import_source(rewrite(VARIANTS[name], select=RULE), tmp_path)["Model"]().eval()
    rewritten.load_state_dict(original.state_dict())
    session = ort.InferenceSession(_export(rewritten), providers=["CPUExecutionProvider"])
    for x in (_inputs(5, 7), torch.zeros(1, 3, 8, 10), -_inputs(3, 8), _inputs(2, 9, 50.0)):
        with torch.no_grad():
            want = original(x)
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_a_function_with_its_own_symbolic_or_a_plain_forward_is_left() -> None:
    with_symbolic = VARIANTS["geffnet_hard_swish"].replace(
        "    @staticmethod\n    def forward(ctx, x):",
        "    @staticmethod\n    def symbolic(g, x):\n        return g.op('HardSwish', x)\n\n"
        "    @staticmethod\n    def forward(ctx, x):", 1)
    assert "def symbolic" in with_symbolic
    assert rules_found(with_symbolic, select=RULE) == []
    # YOLOv5's SwishImplementation (ultralytics/yolov5 utils/activations.py): plain torch in forward, which the
    # exporter inlines
    plain = VARIANTS["geffnet_hard_swish"].replace("        return hard_swish_fwd(x)\n",
                                                   "        return x * (x + 3).clamp(min=0, max=6).div(6.)\n")
    assert rules_found(plain, select=RULE) == []


def test_migrate_takes_the_fix_where_the_export_stops(tmp_path) -> None:
    from support import migrate_json

    path = tmp_path / "model.py"
    path.write_text(VARIANTS["geffnet_hard_swish"] + "\n\ndef build():\n    torch.manual_seed(0)\n"
                    "    return Model().eval()\n\n\ndef inputs(generator):\n"
                    "    return (torch.randn(2, 3, 8, 10, generator=generator),)\n")
    report = migrate_json(path, '{"x": {"0": "batch", "2": "h", "3": "w"}}')
    assert report["before"]["exported"] is False
    assert [d["rule"] for d in report["applied"]] == ["TRT398"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True
