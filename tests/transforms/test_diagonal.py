"""TRT320: ``torch.diag`` has no ONNX symbolic (TorchScript exporter, torch 2.13); the helper keeps
torch's own function outside an export and, while exporting, builds the matrix of a vector or takes
the diagonal of a matrix by indexing (offsets of both signs and past the size, empty and size-1
inputs, NaN and infinities, integers, dynamic sizes). Real forward uses rewritten and run: kornia's
guided filter and quaternion fit, MONAI's MMD metric and normalize_transform."""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from support import import_file, migrate_json, rewrite, rules_found

from trtcodemod.helpers.diagonal import _trt_diag

NAN, INF = float("nan"), float("inf")


def test_the_rewrite() -> None:
    code = ("import torch\n\n\ndef f(cov, guidance, eps, w, data, sim, batch_size, x):\n"
            "    C = cov.shape[-1]\n"
            "    a = cov + guidance.new_full((C,), eps).diag().view(1, 1, 1, C, C)\n"
            "    b = data.T @ torch.diag(w) @ data\n"
            "    c = torch.diag(sim, batch_size) + torch.diag(input=sim, diagonal=-batch_size) + x.diag(1)\n"
            "    d = torch.diag(x, out=w)\n"
            "    e = np.diag(x) + torch.diagonal(x) + torch.diag_embed(x)\n"
            "    return a, b, c, d, e\n")
    new = rewrite(code)
    assert "    a = cov + _trt_diag(guidance.new_full((C,), eps)).view(1, 1, 1, C, C)\n" in new
    assert "    b = data.T @ _trt_diag(w) @ data\n" in new
    assert "    c = _trt_diag(sim, batch_size) + _trt_diag(sim, diagonal=-batch_size) + _trt_diag(x, 1)\n" in new
    assert "    d = torch.diag(x, out=w)\n" in new  # out=: reported only
    assert "    e = np.diag(x) + torch.diagonal(x) + torch.diag_embed(x)\n" in new
    assert rules_found(code) == ["TRT320"] * 6  # TRT706 no longer reports it
    assert rewrite("def f(x):\n    return torch.diag(x)\n").endswith("torch.diag(x)\n")  # torch not imported


class Diag(torch.nn.Module):
    def forward(self, v: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                                                 torch.Tensor, torch.Tensor, torch.Tensor,
                                                                 torch.Tensor]:
        return (_trt_diag(v), _trt_diag(v, 2), _trt_diag(v, -1), _trt_diag(m), _trt_diag(m, 1), _trt_diag(m, -2),
                _trt_diag(m, 9))


def _expected(v: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return (torch.diag(v), torch.diag(v, 2), torch.diag(v, -1), torch.diag(m), torch.diag(m, 1), torch.diag(m, -2),
            torch.diag(m, 9))


def _session(model: bytes) -> ort.InferenceSession:
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"])


def _torchscript(module: torch.nn.Module, example: tuple, axes: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, buffer, dynamo=False, input_names=list(axes), dynamic_axes=axes)
    return buffer.getvalue()


def _dynamo(module: torch.nn.Module, example: tuple, shapes: tuple) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.onnx.export(module, example, dynamo=True, dynamic_shapes=shapes, verbose=False).model_proto \
            .SerializeToString()


def _same(got: torch.Tensor, want: torch.Tensor) -> bool:
    """Same dtype, shape and values, NaN where torch has NaN (ONNX Runtime's Where writes -0.0 as 0.0)."""
    return got.dtype == want.dtype and got.shape == want.shape and torch.equal(got.isnan(), want.isnan()) and (
        torch.equal(got.nan_to_num(0.0), want.nan_to_num(0.0)))


CASES = {
    "random": (torch.randn(4), torch.randn(3, 5)),
    "tall": (torch.randn(2), torch.randn(6, 2)),
    "nan-inf": (torch.tensor([NAN, -0.0, INF, -INF]), torch.tensor([[NAN, INF, 1.0], [-INF, NAN, 2.0], [0.0, 1.0, INF]])),
    "one": (torch.tensor([2.0]), torch.tensor([[-1.0]])),
    "empty": (torch.empty(0), torch.empty(0, 3)),
    "negatives": (-torch.arange(1.0, 6.0), -torch.arange(20.0).reshape(4, 5)),
}


@pytest.fixture(scope="module", params=["torchscript", "dynamo"])
def graph(request: pytest.FixtureRequest) -> ort.InferenceSession:
    example = (torch.randn(4), torch.randn(3, 5))
    if request.param == "torchscript":
        return _session(_torchscript(Diag(), example, {"v": {0: "n"}, "m": {0: "a", 1: "b"}}))
    shapes = ({0: torch.export.Dim("n")}, {0: torch.export.Dim("a"), 1: torch.export.Dim("b")})
    return _session(_dynamo(Diag(), example, shapes))


@pytest.mark.parametrize("case", CASES)
def test_the_graph_gives_torchs_values(graph: ort.InferenceSession, case: str) -> None:
    v, m = CASES[case]
    outputs = graph.run(None, {i.name: t.numpy() for i, t in zip(graph.get_inputs(), (v, m))})
    for got, want in zip(outputs, _expected(v, m)):
        assert _same(torch.from_numpy(got), want), (case, got, want)


def test_the_graph_holds_only_ops_tensorrt_parses() -> None:
    model = _torchscript(Diag(), (torch.randn(4), torch.randn(3, 5)), {"v": {0: "n"}, "m": {0: "a", 1: "b"}})
    ops = {node.op_type for node in onnx.load_from_string(model).graph.node}
    parsed = {"Add", "Cast", "Concat", "Constant", "Equal", "Gather", "Mul", "Range", "Reshape", "Shape", "Slice",
              "Sub", "Unsqueeze", "Where", "ConstantOfShape", "Expand"}
    assert ops <= parsed, ops - parsed


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.float16, torch.float64])
def test_other_dtypes(dtype: torch.dtype) -> None:
    def make(*shape: int) -> torch.Tensor:
        values = torch.randint(-3, 3, shape)
        return values > 0 if dtype == torch.bool else values.to(dtype)

    session = _session(_torchscript(Diag(), (make(4), make(3, 5)), {"v": {0: "n"}, "m": {0: "a", 1: "b"}}))
    for v, m in ((make(4), make(3, 5)), (make(7), make(8, 3))):
        for got, want in zip(session.run(None, {"v": v.numpy(), "m": m.numpy()}), _expected(v, m)):
            got = torch.from_numpy(got)
            assert got.dtype == want.dtype and torch.equal(got, want), (dtype, got, want)


def test_eager_scripted_traced_compiled_exported_is_torchs_function() -> None:
    v, m = torch.tensor([1.0, -0.0, NAN]), torch.randn(3, 4)
    want = _expected(v, m)
    scripted = torch.jit.script(Diag())
    traced = torch.fx.symbolic_trace(Diag())
    compiled = torch.compile(Diag(), fullgraph=True, backend="eager")
    exported = torch.export.export(Diag(), (v, m)).module()
    for model in (Diag(), scripted, traced, compiled, exported):
        for got, expected in zip(model(v, m), want):
            assert got.dtype == expected.dtype and torch.equal(got.view(torch.int32), expected.view(torch.int32))
    x = torch.randn(4, requires_grad=True)
    (_trt_diag(x, 1) * torch.arange(25.0).view(5, 5)).sum().backward()
    ours = x.grad.clone()
    x.grad = None
    (torch.diag(x, 1) * torch.arange(25.0).view(5, 5)).sum().backward()
    assert torch.equal(ours, x.grad)


def test_what_torch_refuses_keeps_its_error_while_exporting() -> None:
    class Bad(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_diag(x)

    for x in (torch.tensor(1.0), torch.randn(2, 2, 2)):
        with pytest.raises(RuntimeError) as theirs:
            torch.diag(x)
        with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
            _torchscript(Bad(), (x,), {"x": {}})


# Real forward code (the library lines cited), rewritten and run before and after.
KORNIA_GUIDED = """\
import torch


def regularized(cov_I, guidance, eps):
    # kornia/filters/guided.py:148-152 (a float eps)
    B, H, W, C, _ = cov_I.shape
    _eps = guidance.new_full((C,), eps).diag().view(1, 1, 1, C, C)
    return cov_I + _eps
"""

KORNIA_QUATERNION = """\
import torch


def scatter(data, w):
    # kornia/geometry/quaternion.py:759-760
    w = w / w.sum()
    A = data.T @ torch.diag(w) @ data
    return A
"""

MONAI_MMD = """\
import torch


def off_diagonal_sums(y_y, y_pred_y_pred):
    # monai/metrics/mmd.py:80, 84
    a = torch.sum(y_y - torch.diag(torch.diagonal(y_y)))
    b = torch.sum(y_pred_y_pred - torch.diag(torch.diagonal(y_pred_y_pred)))
    return a, b
"""

MONAI_NORMALIZE = """\
import torch


def normalize(norm):
    # monai/networks/utils.py:271-272 (align_corners, zero_centered)
    norm = 2.0 / norm
    norm = torch.diag(torch.cat((norm, torch.ones((1,), dtype=norm.dtype, device=norm.device))))
    return norm.unsqueeze(0)
"""


def _load(tmp_path: Path, name: str, code: str, rewritten: bool):
    path = tmp_path / f"{name}_{int(rewritten)}.py"
    path.write_text(rewrite(code) if rewritten else code)
    return import_file(path, f"{name}_{int(rewritten)}")


@pytest.mark.parametrize("name,code,function,make", [
    ("guided", KORNIA_GUIDED, "regularized", lambda: (torch.randn(2, 4, 5, 3, 3), torch.randn(2, 3, 4, 5), 0.01)),
    ("quaternion", KORNIA_QUATERNION, "scatter", lambda: (torch.randn(6, 4), torch.rand(6))),
    ("mmd", MONAI_MMD, "off_diagonal_sums", lambda: (torch.randn(5, 5), torch.randn(3, 3))),
    ("normalize", MONAI_NORMALIZE, "normalize", lambda: (torch.tensor([32.0, 24.0, 8.0], dtype=torch.float64),)),
])
def test_real_uses_rewrite_run_and_export(tmp_path: Path, name: str, code: str, function: str, make) -> None:
    """Each real use is rewritten to the helper; before and after give the same values in eager mode,
    the original does not export, and the rewritten one exports (TorchScript, dynamic sizes) and
    runs in ONNX Runtime as torch does on other sizes."""
    new = rewrite(code)
    body = new.split("\n\n\ndef ")[-1]
    assert "torch.diag(" not in body and ".diag()" not in body and "_trt_diag(" in body
    before, after = _load(tmp_path, name, code, False), _load(tmp_path, name, code, True)
    args = make()
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    others = [a for a in args if not isinstance(a, torch.Tensor)]
    for want, got in zip(torch.utils._pytree.tree_leaves(getattr(before, function)(*args)),
                         torch.utils._pytree.tree_leaves(getattr(after, function)(*args))):
        assert torch.equal(want, got)

    class Original(torch.nn.Module):
        def forward(self, *xs):
            return getattr(before, function)(*xs, *others)

    class Wrapped(torch.nn.Module):
        def forward(self, *xs):
            return getattr(after, function)(*xs, *others)

    axes = {f"t{i}": {d: f"t{i}_{d}" for d in range(t.dim())} for i, t in enumerate(tensors)}
    with pytest.raises(Exception, match="diag"):
        _torchscript(Original(), tuple(tensors), axes)
    session = _session(_torchscript(Wrapped(), tuple(tensors), axes))
    for xs in (tensors, [t.repeat(*([2] * t.dim())) if name in ("mmd", "normalize", "quaternion") else t
                         for t in tensors]):
        got = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), xs)})
        want = torch.utils._pytree.tree_leaves(getattr(before, function)(*xs, *others))
        for g, w in zip(got, want):
            assert torch.allclose(torch.from_numpy(g), w, rtol=1e-6, atol=1e-6), (name, g, w)


MODEL = """\
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 2.0, 6))
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        return self.proj(x) @ torch.diag(self.scale) + x.sum(-1, keepdim=True)


def build():
    return Scaled().eval()


def inputs(generator):
    return (torch.randn(2, 6, 6, generator=generator),)
"""


def test_migrate_fixes_the_export_failure(tmp_path: Path) -> None:
    model = tmp_path / "scaled.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"x": {"0": "batch"}}')
    assert [a["rule"] for a in report["applied"]] == ["TRT320"], report["applied"]
    assert report["exit_code"] == 0 and report["after"]["exported"] and report["equivalent"] is True
    rewritten = import_file(model, "scaled_rewritten")
    original = {}
    exec(compile(MODEL, "scaled.py", "exec"), original)
    x = torch.randn(3, 6, 6)
    torch.manual_seed(0)
    ours = rewritten.build()
    torch.manual_seed(0)
    theirs = original["build"]()
    assert torch.equal(ours(x), theirs(x))
