"""TRT320: ``torch.diag`` has no ONNX symbolic (TorchScript exporter, torch 2.13); the helper keeps
torch's own function outside an export and, while exporting, builds the matrix of a vector or takes
the diagonal of a matrix by indexing (offsets of both signs and past the size, empty and size-1
inputs, NaN and infinities, integers, dynamic sizes). Real forward uses rewritten and run: kornia's
guided filter and quaternion fit, MONAI's MMD metric and normalize_transform.

``torch.diagonal`` (the same family) exports as its input times an EyeLike of its run-time sizes,
summed: TensorRT builds no such EyeLike, and an infinity off the diagonal makes NaN. Its helper is
``torch.diagonal`` outside an export (a view) and a gathered copy while exporting (every offset,
pair of dimensions, rank, dtype, empty sizes); the fix is unsafe for the view, as tested below."""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from support import export_dynamo, export_torchscript, import_file, migrate_json, ort_session, rewrite, rules_found, same_up_to_zero_sign

from trtcodemod.helpers.diagonal import _trt_diag, _trt_diagonal
from trtcodemod.trt.check import check_graph

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
    new = rewrite(code, select=("TRT320",))  # diag_embed is TRT337's: this rule leaves it
    assert "    a = cov + _trt_diag(guidance.new_full((C,), eps)).view(1, 1, 1, C, C)\n" in new
    assert "    b = data.T @ _trt_diag(w) @ data\n" in new
    assert "    c = _trt_diag(sim, batch_size) + _trt_diag(sim, diagonal=-batch_size) + _trt_diag(x, 1)\n" in new
    assert "    d = torch.diag(x, out=w)\n" in new  # out=: reported only
    assert "    e = np.diag(x) + torch.diagonal(x) + torch.diag_embed(x)\n" in new  # diagonal: unsafe
    assert "    e = np.diag(x) + _trt_diagonal(x) + torch.diag_embed(x)\n" in rewrite(code, unsafe=True, select=("TRT320",))
    assert rules_found(code) == ["TRT320"] * 7 + ["TRT337"]  # TRT706 no longer reports diag; diag_embed is TRT337's
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
        return ort_session(export_torchscript(Diag(), example, {"v": {0: "n"}, "m": {0: "a", 1: "b"}}))
    shapes = ({0: torch.export.Dim("n")}, {0: torch.export.Dim("a"), 1: torch.export.Dim("b")})
    return ort_session(export_dynamo(Diag(), example, shapes))


@pytest.mark.parametrize("case", CASES)
def test_the_graph_gives_torchs_values(graph: ort.InferenceSession, case: str) -> None:
    v, m = CASES[case]
    outputs = graph.run(None, {i.name: t.numpy() for i, t in zip(graph.get_inputs(), (v, m))})
    for got, want in zip(outputs, _expected(v, m)):
        assert same_up_to_zero_sign(torch.from_numpy(got), want), (case, got, want)


def test_the_graph_holds_only_ops_tensorrt_parses() -> None:
    model = export_torchscript(Diag(), (torch.randn(4), torch.randn(3, 5)), {"v": {0: "n"}, "m": {0: "a", 1: "b"}})
    ops = {node.op_type for node in onnx.load_from_string(model).graph.node}
    parsed = {"Add", "Cast", "Concat", "Constant", "Equal", "Gather", "Mul", "Range", "Reshape", "Shape", "Slice",
              "Sub", "Unsqueeze", "Where", "ConstantOfShape", "Expand"}
    assert ops <= parsed, ops - parsed


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.float16, torch.float64])
def test_other_dtypes(dtype: torch.dtype) -> None:
    def make(*shape: int) -> torch.Tensor:
        values = torch.randint(-3, 3, shape)
        return values > 0 if dtype == torch.bool else values.to(dtype)

    session = ort_session(export_torchscript(Diag(), (make(4), make(3, 5)), {"v": {0: "n"}, "m": {0: "a", 1: "b"}}))
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
            export_torchscript(Bad(), (x,), {"x": {}})


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
        export_torchscript(Original(), tuple(tensors), axes)
    session = ort_session(export_torchscript(Wrapped(), tuple(tensors), axes))
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


# --- torch.diagonal ------------------------------------------------------------------------------


def test_the_diagonal_rewrite() -> None:
    code = ("import torch\n\n\ndef f(x, y, m, args):\n"
            "    a = torch.diagonal(x) + x.diagonal(1) + torch.diagonal(input=x, offset=-1, dim1=1, dim2=0)\n"
            "    b = torch.sum(y - torch.diag(torch.diagonal(y)))\n"
            "    c = m.diagonal(dim1=-2, dim2=-1).sum(-1) + torch.diag(m.diagonal())\n"
            "    d = torch.diagonal(x, *args) + x.diagonal(outdim='d', dim1='a', dim2='b') + torch.diagonal()\n"
            "    e = self.diagonal() + np.diagonal(x)\n"
            "    return a, b, c, d, e\n")
    new = rewrite(code, unsafe=True)
    assert "    a = _trt_diagonal(x) + _trt_diagonal(x, 1) + _trt_diagonal(x, offset=-1, dim1=1, dim2=0)\n" in new
    assert "    b = torch.sum(y - _trt_diag(_trt_diagonal(y)))\n" in new  # both in one pass
    assert "    c = _trt_diagonal(m, dim1=-2, dim2=-1).sum(-1) + _trt_diag(_trt_diagonal(m))\n" in new
    # Unpacked arguments, named dimensions, no tensor: reported, not rewritten; a module or self: not found.
    assert "    d = torch.diagonal(x, *args) + x.diagonal(outdim='d', dim1='a', dim2='b') + torch.diagonal()\n" in new
    assert "    e = self.diagonal() + np.diagonal(x)\n" in new
    assert rules_found(code) == ["TRT320"] * 11
    safe = rewrite(code)  # the diagonal's fix is unsafe: without --unsafe only the diags change
    assert "    b = torch.sum(y - _trt_diag(torch.diagonal(y)))\n" in safe and "_trt_diagonal" not in safe


class Diagonals(torch.nn.Module):
    """Offsets of both signs (past the size too) and pairs of dimensions in either order, negative
    ones included, of a 2-D and a 3-D input."""

    PAIRS2 = [(0, 1), (-1, -2)]
    PAIRS3 = [(1, 2), (2, 0), (0, -1)]
    OFFSETS = [0, 1, -2, 9, -9]

    def forward(self, m: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
        return ([_trt_diagonal(m, o, a, b) for o in self.OFFSETS for a, b in self.PAIRS2]
                + [_trt_diagonal(t, o, a, b) for o in self.OFFSETS for a, b in self.PAIRS3])


def _diagonals_expected(m: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
    return ([torch.diagonal(m, o, a, b) for o in Diagonals.OFFSETS for a, b in Diagonals.PAIRS2]
            + [torch.diagonal(t, o, a, b) for o in Diagonals.OFFSETS for a, b in Diagonals.PAIRS3])


DIAGONAL_AXES = {"m": {0: "a", 1: "b"}, "t": {0: "c", 1: "d", 2: "e"}}
OFF_DIAGONAL_INF = torch.tensor([[1.0, INF, 2.0], [-INF, NAN, 3.0], [0.0, -0.0, INF]])
DIAGONAL_CASES = {
    "random": (torch.randn(3, 5), torch.randn(2, 4, 3)),
    "wide-and-tall": (torch.randn(2, 7), torch.randn(6, 1, 4)),
    "nan-inf-off-the-diagonal": (OFF_DIAGONAL_INF, OFF_DIAGONAL_INF.expand(2, 3, 3).contiguous()),
    "one": (torch.tensor([[-1.0]]), torch.tensor([[[2.0]]])),
    "empty": (torch.empty(0, 3), torch.empty(3, 0, 2)),
    "empty-batch": (torch.empty(4, 0), torch.empty(0, 3, 3)),
    "negatives": (-torch.arange(20.0).reshape(4, 5), -torch.arange(24.0).reshape(2, 3, 4)),
}


@pytest.fixture(scope="module", params=["torchscript", "dynamo"])
def diagonal_graph(request: pytest.FixtureRequest) -> tuple[str, ort.InferenceSession, bytes]:
    example = (torch.randn(3, 5), torch.randn(2, 4, 3))
    if request.param == "torchscript":
        model = export_torchscript(Diagonals(), example, DIAGONAL_AXES)
    else:
        dims = [{axis: torch.export.Dim(name) for axis, name in axes.items()} for axes in DIAGONAL_AXES.values()]
        model = export_dynamo(Diagonals(), example, tuple(dims))
    return request.param, ort_session(model), model


#: torch.export takes a dynamic size as at least 2 and simplifies the block's sizes on that (a width
#: ``b - 1`` past an offset of 1, never clamped at 0): a size of 0 at run time is outside the dynamo
#: graph's contract. The TorchScript exporter (migrate's) keeps the sizes in the graph: every case.
DYNAMO_OUTSIDE = {"empty", "empty-batch"}


@pytest.mark.parametrize("case", DIAGONAL_CASES)
def test_the_diagonal_graph_gives_torchs_values(diagonal_graph, case: str) -> None:
    """Values, shapes and dtypes of every diagonal at other sizes than traced, NaN and infinities
    where torch has them (an infinity off the diagonal stays out of it)."""
    exporter, session, _ = diagonal_graph
    if exporter == "dynamo" and case in DYNAMO_OUTSIDE:
        return
    m, t = DIAGONAL_CASES[case]
    outputs = session.run(None, {i.name: x.numpy() for i, x in zip(session.get_inputs(), (m, t))})
    wants = _diagonals_expected(m, t)
    assert len(outputs) == len(wants)
    for got, want in zip(outputs, wants):
        assert same_up_to_zero_sign(torch.from_numpy(got), want), (case, got, want)


def test_the_diagonal_graph_holds_no_eye_like_and_only_ops_tensorrt_parses() -> None:
    model = export_torchscript(Diagonals(), (torch.randn(3, 5), torch.randn(2, 4, 3)), DIAGONAL_AXES)
    graph = onnx.load_from_string(model)
    ops = {node.op_type for node in graph.graph.node}
    parsed = {"Cast", "Concat", "Constant", "ConstantOfShape", "Equal", "Expand", "Gather", "GatherElements", "Mul",
              "Range", "Reshape", "Shape", "Slice", "Transpose", "Unsqueeze", "Where"}
    assert ops <= parsed, ops - parsed
    assert [i for i in check_graph(graph, "10.0") if i.severity == "error"] == []


class Original(torch.nn.Module):
    def forward(self, m: torch.Tensor) -> torch.Tensor:
        return torch.diagonal(m, 0, -2, -1)


def test_what_the_original_exports_to_and_why_it_is_rewritten() -> None:
    """The measurement the rule rests on: ``torch.diagonal`` exports as Mul by an EyeLike of the
    input's sizes, then ReduceSum; the graph check names that EyeLike TRT320's (an error), and
    an infinity off the diagonal makes its row's element NaN in the graph."""
    model = export_torchscript(Original(), (torch.randn(2, 3, 3),), {"m": {0: "a", 1: "b", 2: "c"}})
    graph = onnx.load_from_string(model)
    ops = [node.op_type for node in graph.graph.node]
    assert "EyeLike" in ops and "Mul" in ops and "ReduceSum" in ops, ops
    assert [(i.op, i.rule, i.severity) for i in check_graph(graph, "10.0") if i.op == "EyeLike"] == [
        ("EyeLike", "TRT320", "error")]
    x = OFF_DIAGONAL_INF.expand(1, 3, 3).contiguous()
    [got] = ort_session(model).run(None, {"m": x.numpy()})
    assert torch.isnan(torch.from_numpy(got)).sum() > torch.isnan(torch.diagonal(x, 0, -2, -1)).sum()


def test_the_graph_check_keeps_torch_eyes_eye_like_for_trt310() -> None:
    class Eye(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return 2 * torch.eye(x.shape[0]) - x

    graph = onnx.load_from_string(export_torchscript(Eye(), (torch.randn(3, 3),), {"x": {0: "n", 1: "n2"}}))
    assert [(i.op, i.rule) for i in check_graph(graph, "10.0") if i.op == "EyeLike"] == [("EyeLike", "TRT310")]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.float16, torch.float64])
def test_the_diagonal_of_other_dtypes(dtype: torch.dtype) -> None:
    def make(*shape: int) -> torch.Tensor:
        values = torch.randint(-3, 3, shape)
        return values > 0 if dtype == torch.bool else values.to(dtype)

    session = ort_session(export_torchscript(Diagonals(), (make(3, 5), make(2, 4, 3)), DIAGONAL_AXES))
    m, t = make(6, 2), make(3, 5, 5)
    for got, want in zip(session.run(None, {"m": m.numpy(), "t": t.numpy()}), _diagonals_expected(m, t)):
        got = torch.from_numpy(got)
        assert got.dtype == want.dtype and torch.equal(got, want), (dtype, got, want)


class Diagonal(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _trt_diagonal(x, 1, -1, 0)


def test_outside_an_export_the_diagonal_is_torchs_view() -> None:
    """Eager, scripted, fx-traced, compiled and torch.export'ed: torch.diagonal's values; eagerly a
    view (writes go through both ways) with torch's strides; gradients; torch's errors; and
    another array type's own ``.diagonal`` (NumPy's method of the same name)."""
    x = torch.randn(4, 3, 5)
    want = torch.diagonal(x, 1, -1, 0)
    scripted = torch.jit.script(Diagonal())
    traced = torch.fx.symbolic_trace(Diagonal())
    compiled = torch.compile(Diagonal(), fullgraph=True, backend="eager")
    exported = torch.export.export(Diagonal(), (x,)).module()
    for model in (Diagonal(), scripted, traced, compiled, exported):
        got = model(x)
        assert got.dtype == want.dtype and torch.equal(got, want)
    view = _trt_diagonal(x, 1, -1, 0)
    assert view._base is x and view.stride() == want.stride() and view.storage_offset() == want.storage_offset()
    view.add_(100.0)
    assert torch.equal(torch.diagonal(x, 1, -1, 0), view) and (x > 50).sum() == view.numel()
    x.zero_()
    assert not view.any()
    leaf = torch.randn(3, 4, requires_grad=True)
    (_trt_diagonal(leaf, -1) * torch.arange(2.0)).sum().backward()
    ours = leaf.grad.clone()
    leaf.grad = None
    (torch.diagonal(leaf, -1) * torch.arange(2.0)).sum().backward()
    assert torch.equal(ours, leaf.grad)
    for args in ((torch.randn(3),), (torch.randn(3, 3), 0, 0, 0), (torch.randn(3, 3), 0, 0, 2)):
        with pytest.raises((RuntimeError, IndexError)) as theirs:
            torch.diagonal(*args)
        with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
            _trt_diagonal(*args)
    import numpy as np

    array = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(_trt_diagonal(array, 1), array.diagonal(1))


def test_what_torch_refuses_keeps_its_error_while_exporting_the_diagonal() -> None:
    class Bad(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_diagonal(x, 0, 0, -2)

    x = torch.randn(2, 2)
    with pytest.raises(RuntimeError) as theirs:
        torch.diagonal(x, 0, 0, -2)
    with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
        export_torchscript(Bad(), (x,), {"x": {}})


class WriteThrough(torch.nn.Module):
    """Writes through the diagonal, then reads the tensor: what makes the fix unsafe."""

    def __init__(self, take) -> None:
        super().__init__()
        self.take = take

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        self.take(y).add_(10.0)
        return y * 1.0


def test_a_write_through_the_diagonal_is_lost_in_the_graph_hence_unsafe() -> None:
    """Eager mode (the helper is torch.diagonal) keeps the write; the exported graph of the
    rewritten code loses it, as the TorchScript exporter loses it with ``torch.diagonal`` itself:
    this is why the fix is unsafe, and why migrate verifies it on the model's inputs."""
    x = torch.zeros(3, 3)
    wants = WriteThrough(torch.diagonal)(x)
    assert torch.equal(WriteThrough(_trt_diagonal)(x), wants) and wants.sum() == 30.0
    for take in (_trt_diagonal, torch.diagonal):
        [got] = ort_session(export_torchscript(WriteThrough(take), (x,), {"x": {0: "a", 1: "b"}})).run(None, {"x": x.numpy()})
        assert not torch.equal(torch.from_numpy(got), wants)


def test_the_diagonal_in_a_model_kornias_trace(tmp_path: Path) -> None:
    """kornia's ``angle_error_mat`` takes a trace with ``relative.diagonal(dim1=-2, dim2=-1)``
    (kornia/metrics/pose.py): rewritten with --unsafe, eager mode unchanged, and the graph (no
    EyeLike, batch dynamic) equals torch on other batches."""
    code = ("import torch\n\n\n"
            "def trace(R1, R2):\n"
            "    relative = R1.transpose(-2, -1) @ R2\n"
            "    return relative.diagonal(dim1=-2, dim2=-1).sum(-1)\n")
    new = rewrite(code, unsafe=True)
    assert "    return _trt_diagonal(relative, dim1=-2, dim2=-1).sum(-1)\n" in new
    before, after = _load(tmp_path, "trace", code, False), _load_text(tmp_path, "trace", new)
    r1, r2 = torch.randn(4, 3, 3), torch.randn(4, 3, 3)
    assert torch.equal(before.trace(r1, r2), after.trace(r1, r2))

    class Wrapped(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return after.trace(a, b)

    model = export_torchscript(Wrapped(), (r1, r2), {"a": {0: "n"}, "b": {0: "n"}})
    assert "EyeLike" not in {node.op_type for node in onnx.load_from_string(model).graph.node}
    session = ort_session(model)
    for n in (1, 7, 0):
        a, b = torch.randn(n, 3, 3), torch.randn(n, 3, 3)
        [got] = session.run(None, {"a": a.numpy(), "b": b.numpy()})
        assert torch.allclose(torch.from_numpy(got), before.trace(a, b), atol=1e-6)


def _load_text(tmp_path: Path, name: str, text: str):
    path = tmp_path / f"{name}_text.py"
    path.write_text(text)
    return import_file(path, f"{name}_text")
