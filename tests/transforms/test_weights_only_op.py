"""TRT382: an operator the TorchScript exporter cannot write, of the module's weights alone, computed outside the trace.

Checked as text (a Glow-style invertible convolution's log-determinant; the arguments the rule must not take: a
forward argument, state written in forward, another method's result, extra arguments), then run: eager mode the same
(values, result type, gradients) including a singular and a negative-determinant weight; ``torch.jit.script``, fx,
compile and export the same; the TorchScript export of the original stops, the rewritten one exports and ONNX Runtime
equals eager mode at other sizes of the dynamic axes.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from safety import assert_same_run, import_source, run_once
from support import export_torchscript, ort_session, rewrite, rules_found

HEADER = "import torch\nfrom torch import nn\n\n\n"

FLOW = HEADER + """class InvConv(nn.Module):
    def __init__(self, channels):
        super().__init__()
        weight = torch.linalg.qr(torch.randn(channels, channels)).Q
        self.weight = nn.Parameter(weight.view(channels, channels, 1, 1))

    def _log_det(self):
        w = self.weight.squeeze(-1).squeeze(-1)
        _sign, log_abs_det = torch.linalg.slogdet(w)
        return log_abs_det

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        logdet = x.new_zeros(x.size(0)) + self._log_det() * h * w
        return nn.functional.conv2d(x, self.weight), logdet
"""


def fixed(code: str) -> str:
    return rewrite(code, select=("TRT382",))


def method(body: str, init: str = "self.weight = nn.Parameter(torch.randn(3, 3))") -> str:
    return (f"{HEADER}class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        {init}\n\n"
            f"    def forward(self, x):\n        {body}\n")


def test_the_flows_log_determinant_is_rewritten() -> None:
    new = fixed(FLOW)
    assert "_sign, log_abs_det = _trt_weights_linalg_slogdet(w)\n" in new
    assert "def _trt_weights_linalg_slogdet(A):" in new


@pytest.mark.parametrize("body,after", [
    ("return x * torch.det(self.weight)", "return x * _trt_weights_det(self.weight)"),
    ("return x * torch.linalg.det(self.weight.t() @ self.weight)",
     "return x * _trt_weights_linalg_det(self.weight.t() @ self.weight)"),
    ("return x * torch.logdet(self.weight.double()).float()", "return x * _trt_weights_logdet(self.weight.double()).float()"),
    ("return x @ torch.linalg.pinv(self.weight)", "return x @ _trt_weights_pinv(self.weight)"),
    ("w = torch.tril(self.weight, -1) + torch.eye(3, device=x.device)\n        return x * torch.slogdet(w)[1]",
     "return x * _trt_weights_slogdet(w)[1]"),
    ("s = torch.slogdet(self.weight)\n        return x * s.logabsdet", "s = _trt_weights_slogdet(self.weight)"),
    ("scale = 2.0 * self.weight[:, 0]\n        return x * torch.erfinv(torch.tanh(scale))",
     "return x * _trt_weights_erfinv(torch.tanh(scale))"),
])
def test_weights_only_arguments(body: str, after: str) -> None:
    assert after in fixed(method(body))


@pytest.mark.parametrize("body", [
    "return torch.det(x)",                                        # a forward argument
    "y = x[0]\n        return torch.det(y)",                     # a local of an argument
    "return torch.det(self.weight + torch.eye(x.shape[1]))",       # a size of an argument
    "self.cache = x[0]\n        return torch.det(self.cache)",   # state written in forward
    "return torch.det(self.matrix())",                             # another method's result
    "return x @ torch.linalg.pinv(self.weight, rcond=1e-3)",      # extra arguments
    "w = self.weight\n        w = w + x[0]\n        return torch.det(w)",  # rebound from an argument
])
def test_arguments_left_alone(body: str) -> None:
    assert rules_found(method(body), select=("TRT382",)) == []


def test_init_is_left_alone_and_forward_taken() -> None:
    """Nothing in ``__init__`` is exported: only forward's call is a finding."""
    source = (f"{HEADER}class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.weight = torch.linalg.det(torch.eye(3))\n\n"
              "    def forward(self, x):\n        return x * torch.det(self.weight)\n")
    assert rules_found(source, select=("TRT382",)) == ["TRT382"]


def test_a_function_outside_a_class_is_left_alone() -> None:
    assert rules_found(HEADER + "def f(weight):\n    return torch.det(weight)\n", select=("TRT382",)) == []


# --- run -------------------------------------------------------------------------------------------------------------

def _pair(tmp_path: Path, source: str, name: str, *args):
    original = import_source(source, tmp_path)[name]
    rewritten = import_source(fixed(source), tmp_path)[name]
    torch.manual_seed(0)
    a = original(*args)
    b = rewritten(*args)
    b.load_state_dict(a.state_dict())
    return a, b


@pytest.mark.parametrize("weight", ["orthogonal", "singular", "negative"])
def test_eager_mode_is_unchanged(weight: str, tmp_path: Path) -> None:
    original, rewritten = _pair(tmp_path, FLOW, "InvConv", 3)
    with torch.no_grad():
        if weight == "singular":
            original.weight.zero_()
        elif weight == "negative":
            original.weight.copy_(torch.diag(torch.tensor([-2.0, 1.0, 3.0])).view(3, 3, 1, 1))
        rewritten.weight.copy_(original.weight)
    for x in (torch.randn(2, 3, 5, 4), torch.zeros(0, 3, 2, 2), torch.full((1, 3, 1, 1), -float("inf"))):
        before = run_once(lambda t: original(t), [x.requires_grad_(True)])
        after = run_once(lambda t: rewritten(t), [x])
        assert_same_run(before, after, context=f"{weight} {tuple(x.shape)}")
    grads = []
    for model in (original, rewritten):
        model.zero_grad()
        model(torch.randn(1, 3, 2, 2, generator=torch.Generator().manual_seed(1)))[1].sum().backward()
        grads.append(model.weight.grad.clone())
    assert torch.equal(torch.nan_to_num(grads[0]), torch.nan_to_num(grads[1]))


def test_the_result_type_is_torchs(tmp_path: Path) -> None:
    source = method("return torch.slogdet(self.weight), torch.linalg.slogdet(self.weight)")
    original, rewritten = _pair(tmp_path, source, "M")
    for want, got in zip(original(None), rewritten(None)):
        assert type(want) is type(got) and torch.equal(want.logabsdet, got.logabsdet)


def test_every_toolchain_runs_the_operator(tmp_path: Path) -> None:
    original, rewritten = _pair(tmp_path, FLOW, "InvConv", 4)
    x = torch.randn(2, 4, 3, 5)
    want = original(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = {
            "script": torch.jit.script(rewritten)(x),
            "fx": torch.fx.symbolic_trace(rewritten)(x),
            "compile": torch.compile(rewritten, fullgraph=True, backend="eager")(x),
            "export": torch.export.export(rewritten, (x,)).module()(x),
            "trace": torch.jit.trace(rewritten, (x,))(x),
        }
    for tool, got in results.items():
        for p, q in zip(want, got):
            assert torch.allclose(p, q, rtol=1e-6, atol=1e-6), tool


def test_the_export_stops_before_and_follows_the_sizes_after(tmp_path: Path) -> None:
    original, rewritten = _pair(tmp_path, FLOW, "InvConv", 4)
    axes = {"x": {0: "batch", 2: "height", 3: "width"}}
    example = (torch.randn(1, 4, 6, 6),)
    with pytest.raises(Exception, match="slogdet"):
        export_torchscript(original, example, axes)
    session = ort_session(export_torchscript(rewritten, example, axes))
    for shape in [(1, 4, 6, 6), (3, 4, 9, 5), (2, 4, 1, 1)]:
        x = torch.randn(shape)
        conv, logdet = session.run(None, {"x": x.numpy()})
        want_conv, want_logdet = original(x)
        assert torch.allclose(torch.from_numpy(conv), want_conv.detach(), atol=1e-5), shape
        assert torch.allclose(torch.from_numpy(logdet), want_logdet.detach(), rtol=1e-5, atol=1e-5), shape


def test_a_determinant_of_the_weights_leaves_no_det_node(tmp_path: Path) -> None:
    """``det`` exports as ONNX Det, which no TensorRT release parses; of the weights alone it becomes a constant."""
    import onnx

    source = method("return x * torch.det(self.weight)")
    original, rewritten = _pair(tmp_path, source, "M")
    axes = {"x": {0: "batch"}}
    ops = [{n.op_type for n in onnx.load_from_string(export_torchscript(m, (torch.randn(2, 3),), axes)).graph.node}
           for m in (original, rewritten)]
    assert "Det" in ops[0] and "Det" not in ops[1]
    session = ort_session(export_torchscript(rewritten, (torch.randn(2, 3),), axes))
    x = torch.randn(5, 3)
    (got,) = session.run(None, {"x": x.numpy()})
    assert torch.allclose(torch.from_numpy(got), original(x).detach(), rtol=1e-6)
