"""TRT728 constant-update: a tensor built from Python data in forward, then updated in place.

The rewrite is shown as text (each way of updating, each way of building), the look-alikes it
must leave are listed, the rewritten model is run against the original on real tensors (zeros,
negatives, inf/NaN, an empty batch, an index that raises) and under every toolchain, and the
claim is exported: the TorchScript graph of the original loses the update (other values, or a
Gather out of bounds where the values are indices, as in kornia's CLAHE), the rewritten one keeps
it at other sizes, with both exporters.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite, rules_found

from trtcodemod.helpers.constants import _trt_updatable

HEADER = "import torch\nfrom torch import nn\n\n\n"


def _function(body: str) -> str:
    lines = "".join(f"    {line}\n" for line in body.strip().splitlines())
    return HEADER + f"def f(x: torch.Tensor, n: int):\n{lines}"


REWRITES = [
    ("idx = torch.tensor([0, 1, 1, 2] * n)\nidx += torch.arange(4 * n) // 4\nreturn x[:, idx]",
     "idx = _trt_updatable(torch.tensor([0, 1, 1, 2] * n))"),
    ("s = torch.as_tensor([1.0, 2.0])\ns[0] = 3.0\nreturn x * s", "s = _trt_updatable(torch.as_tensor([1.0, 2.0]))"),
    ("t = torch.tensor([1.0, -2.0])\nt.mul_(2)\nreturn x * t", "t = _trt_updatable(torch.tensor([1.0, -2.0]))"),
    ("t = torch.tensor([[1, 2], [3, 4]], dtype=torch.long)\nif n > 1:\n    t[0][1] -= n\nreturn x[:, t[0]]",
     "t = _trt_updatable(torch.tensor([[1, 2], [3, 4]], dtype=torch.long))"),
    # the legacy constructors of Python data and `new_tensor` are constants of the trace too
    ("t = torch.Tensor([[1.0, -2.0]])\nt[..., 0::2] = t[..., 0::2].clamp(0, n)\nreturn x * t",
     "t = _trt_updatable(torch.Tensor([[1.0, -2.0]]))"),
    ("t = torch.LongTensor([0, 1] * n)\nt += 1\nreturn x[:, t]", "t = _trt_updatable(torch.LongTensor([0, 1] * n))"),
    ("t = x.new_tensor([1.0, 2.0])\nt.mul_(n)\nreturn x[:, :2] * t", "t = _trt_updatable(x.new_tensor([1.0, 2.0]))"),
]


@pytest.mark.parametrize("body, want", REWRITES)
def test_rewrite_text(body: str, want: str) -> None:
    code = _function(body)
    after = rewrite(code, select=("TRT728",))
    assert want in after and after.count(" = _trt_updatable(") == 1
    assert rules_found(code, select=("TRT728",)) == ["TRT728"]


LEFT_ALONE = [
    "t = torch.tensor([1, 2])\nt = t + x\nreturn t",  # rebound, not updated in place
    "t = torch.arange(4)\nt += 1\nreturn x[:, t]",  # an operation's result: the graph keeps its update
    "t = torch.as_tensor(x)\nt += 1\nreturn t",  # may be `x` itself: a clone would cut the write to it
    "t = torch.tensor([1.0], requires_grad=True)\nt.add_(1)\nreturn x * t",
    "t = torch.tensor([1, 2])\nt = torch.zeros(2)\nt += 1\nreturn t",  # updated after it names another
    "t = torch.tensor([1, 2])\nu = t.clone()\nu += 1\nreturn x * u",
    "t = torch.Tensor(2, 3)\nt.fill_(1.0)\nreturn x * t",  # a legacy constructor of sizes: an uninitialized tensor
    "t = torch.FloatTensor(x)\nt += 1\nreturn t",  # of a tensor: may share its data
]


@pytest.mark.parametrize("body", LEFT_ALONE)
def test_left_alone(body: str) -> None:
    assert rules_found(_function(body), select=("TRT728",)) == []


def test_outside_an_export_the_helper_is_its_argument() -> None:
    t = torch.tensor([1, 2])
    assert _trt_updatable(t) is t and _trt_updatable(3) == 3


LUT = HEADER + """\
class M(nn.Module):
    def forward(self, luts: torch.Tensor) -> torch.Tensor:
        g = luts.shape[1]
        j_idxs = torch.tensor([[0, 0, 1, 1], [-1, -1, 0, 0]] * ((g - 2) // 2))
        j_idxs += torch.arange(1, g - 1).view(g - 2, 1).div(2, rounding_mode="trunc")
        scale = torch.tensor([1.0, -1.0])
        scale[1] = 0.5
        return luts[:, j_idxs[:, 0]] * scale[1] + luts[:, j_idxs[:, 3]] * scale[0]
"""


@pytest.fixture(scope="module")
def lut(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("constant_update")
    after = rewrite(LUT, select=("TRT728",))
    assert after.count("_trt_updatable(torch.tensor(") == 2
    return import_source(LUT, folder), import_source(after, folder)


@pytest.mark.parametrize("shape", [(2, 6, 5), (1, 4, 3), (0, 8, 2), (3, 10, 0), (2, 2, 4)])
def test_eager_runs_are_unchanged(lut: tuple[dict, dict], shape: tuple[int, ...]) -> None:
    before, after = lut
    x = torch.randn(shape)
    if x.numel():
        x.view(-1)[:4] = torch.tensor([float("inf"), float("nan"), -0.0, 0.0])[: min(4, x.numel())]
    # (2, 2, 4): no rows to index (g - 2 == 0), as in the original.
    assert_same_run(run_once(before["M"](), [x]), run_once(after["M"](), [x]), context=str(shape))


def test_the_toolchains_run_as_before(lut: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = lut
    x = torch.randn(2, 6, 5)
    outcomes_before = toolchain_outcomes(before["M"], [x], tmp_path)
    outcomes_after = toolchain_outcomes(after["M"], [x], tmp_path)
    assert outcomes_before.keys() == outcomes_after.keys()
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def _session(model: nn.Module, example: torch.Tensor, dynamo: bool) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (example,), dynamo=True, input_names=["luts"],
                                        dynamic_shapes={"luts": {0: torch.export.Dim("b"), 2: torch.export.Dim("w")}},
                                        verbose=False)
            data = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["luts"],
                              dynamic_axes={"luts": {0: "b", 2: "w"}})
            data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])



def test_the_original_graph_loses_the_update(lut: tuple[dict, dict]) -> None:
    model = lut[0]["M"]().eval()
    example = torch.randn(2, 8, 5)
    session = _session(model, example, dynamo=False)
    got = session.run(None, {"luts": example.numpy()})[0]
    assert not np.allclose(got, model(example).numpy())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_keeps_the_update_at_other_sizes(lut: tuple[dict, dict], dynamo: bool) -> None:
    _, after = lut
    model = after["M"]().eval()
    session = _session(model, torch.randn(2, 8, 5), dynamo)
    for shape in [(2, 8, 5), (1, 8, 9), (3, 8, 1)]:
        x = torch.randn(shape)
        x[0, 0, 0] = float("nan")
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_array_equal(session.run(None, {"luts": x.numpy()})[0], expected, err_msg=str(shape))


def test_migrate_finds_the_lost_update_and_fixes_it(tmp_path: Path) -> None:
    """The trace warns at the building line ("torch.tensor results are registered as constants"):
    migrate takes TRT728 there, and the rewritten graph computes what the model does."""
    from support import migrate_json

    model = tmp_path / "lut.py"
    model.write_text(LUT + "\n\ndef build():\n    return M().eval()\n\n\ndef inputs(generator):\n"
                           "    return (torch.randn(2, 8, 5, generator=generator),)\n")
    report = migrate_json(model, '{"luts": {"0": "b", "2": "w"}}')
    assert report["before"]["faithful"] is False  # the original's graph lost the updates
    assert sorted((f["rule"], f["line"], f["landed"]) for f in report["applied"]) == [
        ("TRT728", 8, True), ("TRT728", 10, True)]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


LEGACY = HEADER + """\
class M(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[1]
        a = torch.Tensor([[1.0, -2.0, 3.0]])
        a[..., 0::2] = a[..., 0::2].clamp(0, n - 3)
        b = x.new_tensor([0.5, 1.0, 2.0])
        b.mul_(n)
        c = torch.LongTensor([0, 2, 1])
        c += n - 4
        return x[:, c] * a * b
"""


def test_the_legacy_constructors_and_new_tensor_lose_the_update_until_rewritten(tmp_path: Path) -> None:
    """Exported at width 4, the original's graph reads the three constants as built; the rewritten
    one (all three wrapped) follows eager mode at other widths."""
    after = rewrite(LEGACY, select=("TRT728",))
    assert after.count(" = _trt_updatable(") == 3, after
    before, fixed = import_source(LEGACY, tmp_path), import_source(after, tmp_path)
    for namespace, faithful in ((before, False), (fixed, True)):
        model = namespace["M"]().eval()
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 4),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "b", 1: "w"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        for shape in [(2, 4), (3, 6)]:
            x = torch.randn(shape)
            with torch.no_grad():
                same = np.allclose(session.run(None, {"x": x.numpy()})[0], model(x).numpy())
            assert same is faithful, (faithful, shape)


# --- in-place writes in the forward of an autograd Function -----------------------------------------------
#
# The TorchScript exporter records `Fn.apply(x)` as one PythonOp holding the trace of `forward` and inlines
# that trace; the inlining loses the trace's in-place writes (torch 2.13): a buffer filled by slice writes
# reads as allocated (pytorchcv's iSQRT-COV Newton-Schulz), and `t.add_(y)`, `t[i] += v` stop the export.

FUNCTIONS = HEADER + """\
class PowerSeries(torch.autograd.Function):
    \"\"\"Powers a, a^2, ... of square matrices, kept in a buffer filled in a loop.\"\"\"

    @staticmethod
    def forward(ctx, a, n):
        b, m, _ = a.size()
        terms = torch.zeros(b, n, m, m, dtype=a.dtype, device=a.device)
        terms[:, 0, :, :] = a
        for i in range(1, n):
            terms[:, i, :, :] = terms[:, i - 1, :, :].bmm(a)
        ctx.save_for_backward(a, terms)
        ctx.n = n
        return terms.sum(dim=1)

    @staticmethod
    def backward(ctx, grad):
        a, terms = ctx.saved_tensors
        return grad * ctx.n, None


class ShiftedRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2.0
        y.clamp_(min=0.0)
        y[..., 0] += 1.0
        ctx.mark_non_differentiable(y) if not ctx.needs_input_grad[0] else None
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad * 2.0


class Filled(torch.autograd.Function):
    \"\"\"The style without ctx: `setup_context` keeps the state.\"\"\"

    @staticmethod
    def forward(x):
        out = torch.empty_like(x)
        out[:, 1:] = x[:, :-1]
        out[:, :1] = 0.0
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.width = inputs[0].shape[1]

    @staticmethod
    def backward(ctx, grad):
        return torch.cat([grad[:, 1:], grad.new_zeros(grad.shape[0], 1) + 0.0 * ctx.width], dim=1)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.series = PowerSeries.apply

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cov = x.flatten(2).bmm(x.flatten(2).transpose(1, 2)) / x[0, 0].numel()
        s = self.series(cov, 3)
        t = ShiftedRelu.apply(s)
        return Filled.apply(t.flatten(1))
"""


def test_the_functions_are_decorated_once() -> None:
    after = rewrite(FUNCTIONS, select=("TRT728",))
    for name in ("PowerSeries", "ShiftedRelu", "Filled"):
        assert f"@_trt_traced_forward\nclass {name}(torch.autograd.Function):" in after, name
    assert after.count("@_trt_traced_forward\n") == 3
    assert rewrite(after, select=("TRT728",)) == after  # a second pass changes nothing
    assert rules_found(FUNCTIONS, select=("TRT728",)) == ["TRT728"] * 3


FUNCTION_LEFT_ALONE = [
    # no write into a tensor: the inlined trace is right
    "    @staticmethod\n    def forward(ctx, x, n):\n        n += 1\n        return x * n\n",
    # a write only in backward, which an export never runs
    "    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n\n    @staticmethod\n"
    "    def backward(ctx, g):\n        out = torch.zeros_like(g)\n        out[0] = g[0]\n        return out\n",
    # the Function has its own ONNX form: the exporter does not inline the forward
    "    @staticmethod\n    def forward(ctx, x):\n        y = x.clone()\n        y[0] = 1.0\n        return y\n\n"
    "    @staticmethod\n    def symbolic(g, x):\n        return g.op('Identity', x)\n",
    # a number's size: `m = x.size(0); m += 1` rebinds an int
    "    @staticmethod\n    def forward(ctx, x):\n        m = x.size(0)\n        m += 1\n        return x[:m]\n",
]


@pytest.mark.parametrize("body", FUNCTION_LEFT_ALONE)
def test_functions_left_alone(body: str) -> None:
    code = HEADER + "class F(torch.autograd.Function):\n" + body
    assert rules_found(code, select=("TRT728",)) == []
    # and a write in a plain method of a module is no autograd Function's
    assert rules_found(HEADER + "class N(nn.Module):\n    def forward(self, x):\n        y = x.clone()\n"
                                "        y[0] = 1.0\n        return y\n", select=("TRT728",)) == []


@pytest.fixture(scope="module")
def functions(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("autograd_functions")
    return import_source(FUNCTIONS, folder), import_source(rewrite(FUNCTIONS, select=("TRT728",)), folder)


@pytest.mark.parametrize("shape", [(2, 3, 4, 4), (1, 5, 2, 3), (0, 3, 4, 4), (2, 1, 1, 1)])
@pytest.mark.parametrize("edge", ["plain", "inf_nan", "zeros", "grad"])
def test_function_eager_runs_are_unchanged(functions: tuple[dict, dict], shape: tuple[int, ...], edge: str) -> None:
    before, after = functions
    x = torch.randn(shape)
    if edge == "inf_nan" and x.numel():
        x.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), -0.0])[: min(3, x.numel())]
    elif edge == "zeros":
        x = torch.zeros(shape)
    if edge == "grad":
        x.requires_grad_(True)  # the backward of each Function still runs (run_once backpropagates)
    assert_same_run(run_once(before["M"](), [x]), run_once(after["M"](), [x]), context=f"{shape} {edge}")


def test_function_toolchains_run_as_before(functions: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = functions
    x = torch.randn(2, 3, 4, 4)
    outcomes_before = toolchain_outcomes(before["M"], [x], tmp_path)
    outcomes_after = toolchain_outcomes(after["M"], [x], tmp_path)
    assert outcomes_before.keys() == outcomes_after.keys()
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def _function_session(model: nn.Module, example: torch.Tensor, dynamo: bool = False) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (example,), dynamo=True, input_names=["x"], verbose=False,
                                        dynamic_shapes={"x": {0: torch.export.Dim("b"), 2: torch.export.Dim("h")}})
            data = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
            data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _alone(function: type, example: torch.Tensor, *extra: object) -> bool:
    """Whether the TorchScript graph of ``function.apply`` alone computes what eager mode does at ``example``
    (False also where the export stops)."""
    module = type("Alone", (nn.Module,), {"forward": lambda self, a: function.apply(a * 1.0, *extra)})()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(module, (example,), buffer, dynamo=False, opset_version=17, input_names=["a"],
                              dynamic_axes={"a": {0: "b"}})
        except Exception:  # noqa: BLE001 - the export stopping is the loss too
            return False
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        return bool(np.allclose(session.run(None, {"a": example.numpy()})[0], module(example).numpy()))


@pytest.mark.parametrize("name", ["PowerSeries", "ShiftedRelu", "Filled"])
def test_each_original_function_graph_loses_its_writes_until_decorated(functions: tuple[dict, dict],
                                                                       name: str) -> None:
    """Each Function alone, on the traced input: the original's graph loses the writes (the buffer reads
    as allocated, or the export stops); the decorated one keeps them."""
    before, after = functions
    example, extra = (torch.randn(2, 4, 4), (3,)) if name == "PowerSeries" else (torch.randn(2, 5), ())
    assert _alone(before[name], example, *extra) is False
    assert _alone(after[name], example, *extra) is True


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_function_graph_keeps_the_writes_at_other_sizes(functions: tuple[dict, dict],
                                                                       dynamo: bool) -> None:
    _, after = functions
    model = after["M"]().eval()
    session = _function_session(model, torch.randn(2, 3, 4, 4), dynamo)
    for shape in [(2, 3, 4, 4), (1, 3, 6, 4), (3, 3, 2, 4)]:
        x = torch.randn(shape)
        x[0, 0, 0, 0] = 0.0
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(session.run(None, {"x": x.numpy()})[0], expected, rtol=1e-5, atol=1e-5,
                                   err_msg=str(shape))


def test_migrate_fixes_the_function_that_loses_its_writes(tmp_path: Path) -> None:
    """The graph differs from eager on the traced inputs with no line to blame: migrate takes TRT728 at
    the Function's first write, and the rewritten model is faithful and equivalent."""
    from support import migrate_json

    model = tmp_path / "functions.py"
    model.write_text(FUNCTIONS + "\n\ndef build():\n    return M().eval()\n\n\ndef inputs(generator):\n"
                                 "    return (torch.randn(2, 3, 4, 4, generator=generator),)\n")
    report = migrate_json(model, '{"x": {"0": "b", "2": "h"}}')
    assert report["before"]["exported"] is False or report["before"]["faithful"] is False
    assert sorted((f["rule"], f["landed"]) for f in report["applied"]) == [("TRT728", True)] * 3
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


STOPS = HEADER + """\
class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 1
        y.add_(1)
        return y * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2.0


class M(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return AddOne.apply(x * 1)


def build():
    return M().eval()


def inputs(generator):
    return (torch.randn(2, 3, generator=generator),)
"""


def test_migrate_fixes_the_function_whose_write_stops_the_export(tmp_path: Path) -> None:
    """`y.add_(1)` in the Function's forward stops the TorchScript export in a graph pass, with no user
    frame left ("Argument passed to at() was not in the map"): the error names TRT728, migrate applies it,
    and the rewritten model exports, faithful at another batch size."""
    from support import migrate_json

    model = tmp_path / "stops.py"
    model.write_text(STOPS)
    report = migrate_json(model, '{"x": {"0": "b"}}')
    assert report["before"]["exported"] is False
    assert [(f["rule"], f["line"], f["landed"]) for f in report["applied"]] == [("TRT728", 9, True)]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


def test_the_decorated_apply_is_the_class_own_outside_an_export() -> None:
    """Outside an export `apply` is the one it replaced (a class's own `apply` too); a subclass of a decorated
    class runs its own forward while exporting."""
    from trtcodemod.helpers.constants import _trt_traced_forward

    calls: list[str] = []

    @_trt_traced_forward
    class Own(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.clone()
            out[0] = 5.0
            return out

        @staticmethod
        def backward(ctx, grad):
            return grad

        @classmethod
        def apply(cls, *args):
            calls.append(cls.__name__)
            return super().apply(*args)

    class Child(Own):
        @staticmethod
        def forward(ctx, x):
            out = x.clone()
            out[0] = -5.0
            return out

    x = torch.randn(3)
    assert Own.apply(x)[0].item() == 5.0 and calls == ["Own"]
    assert Child.apply(x)[0].item() == -5.0 and calls == ["Own", "Child"]
    module = type("C", (nn.Module,), {"forward": lambda self, a: Child.apply(a * 1)})()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (x,), buffer, dynamo=False, opset_version=17, input_names=["a"],
                          dynamic_axes={"a": {0: "n"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    y = torch.randn(5)
    np.testing.assert_array_equal(session.run(None, {"a": y.numpy()})[0], Child.apply(y).numpy())
