"""TRT407: ``torch.tile`` / ``x.tile(...)`` → ``_trt_tile(x, [...])``.

The rewrite text for every form the rule takes and the forms it reports without a fix; the
helper's export formulation (``repeat`` with padded counts) is ``torch.tile`` bit for bit on
edge values, fewer and more counts than axes, empty tensors and 0-d tensors; eager mode is
unchanged (outputs, gradients, exceptions); the toolchains give the original's results; the
TorchScript export of the original loses the shape downstream (an ``InstanceNorm2d`` after it
does not export) while the rewritten model exports with both exporters, without ``If``, its graph
equal to eager mode at other sizes; and ``migrate`` places the export failure's cause on the tile
line.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from snippets import EDGE_TENSORS
from support import export_formulation, migrate_json, rewrite, rules_found

from trtcodemod.helpers.tiling import _trt_tile


def _fixed(code: str) -> str:
    return rewrite("import torch\n\n\n" + code, select=("TRT407",))


@pytest.mark.parametrize(("code", "want"), [
    ("y = x.tile(2)\n", "y = _trt_tile(x, [2])\n"),
    ("y = x.tile(1, n)\n", "y = _trt_tile(x, [1, n])\n"),
    ("y = x.tile((2, 1))\n", "y = _trt_tile(x, [2, 1])\n"),
    ("y = x.tile([b, 1, 1],)\n", "y = _trt_tile(x, [b, 1, 1])\n"),
    ("y = x.tile(dims=(3,))\n", "y = _trt_tile(x, [3])\n"),
    ("y = (a + b).tile(2, 2)\n", "y = _trt_tile(a + b, [2, 2])\n"),
    ("y = torch.tile(x, (b, 1, 1))\n", "y = _trt_tile(x, [b, 1, 1])\n"),
    ("y = torch.tile(x, [2])\n", "y = _trt_tile(x, [2])\n"),
    ("y = torch.tile(input=x, dims=(2, k))\n", "y = _trt_tile(x, [2, k])\n"),
    ("y = torch.tile(x, dims=[1, 2])\n", "y = _trt_tile(x, [1, 2])\n"),
    ("y = f(x).tile(self.n, 1)\n", "y = _trt_tile(f(x), [self.n, 1])\n"),
    # A list comprehension is a list as written (ultralytics' SAM 2 encoder, tests/recipe_variants/trt407).
    ("y = w.tile([a // b for a, b in zip(p.shape, w.shape)])\n",
     "y = _trt_tile(w, [a // b for a, b in zip(p.shape, w.shape)])\n"),
    ("y = torch.tile(w, dims=[2 * k for k in ks])\n", "y = _trt_tile(w, [2 * k for k in ks])\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_tile(" in after  # the helper is inserted with the call


def test_the_function_through_an_import_alias() -> None:
    after = rewrite("import torch as T\nfrom torch import tile as tl\n\n"
                    "a = T.tile(x, (2,))\nb = tl(y, [1, 3])\n", select=("TRT407",))
    assert "a = _trt_tile(x, [2])\nb = _trt_tile(y, [1, 3])\n" in after


@pytest.mark.parametrize("code", [
    "y = x.tile(reps)\n",  # an int or a sequence, by the name alone
    "y = torch.tile(x, self.reps)\n",  # a tuple: scripted code types it Tuple, the helper List[int]
    "y = x.tile(*reps)\n",
    "y = torch.tile(x, (*lead, 2))\n",
    "y = torch.tile(x, ())\n",
])
def test_forms_reported_without_a_fix(code: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT407",)) == ["TRT407"]
    assert rewrite(source, select=("TRT407",)) == source


def test_other_code_is_left_alone() -> None:
    source = ("import numpy as np\nimport torch\n\n\n"
              "a = np.tile(x, 2)\nb = x.repeat(2, 1)\nc = torch.tile\nd = self.tile(x)\n")
    assert rules_found(source, select=("TRT407",)) == []


# --- the export formulation is torch.tile ---------------------------------------------------------

#: (shape, counts): fewer counts than axes, as many, more, zeros, empty tensors, a 0-d tensor.
CASES = [
    ((2, 3), [2]), ((2, 3), [2, 3]), ((2, 3), [1, 1]), ((2, 3), [2, 1, 3]), ((2, 3, 4), [3]), ((4,), [2, 2, 2]),
    ((2, 3), [0]), ((2, 3), [0, 2]), ((0, 3), [2]), ((2, 0), [3, 1]), ((), [3]), ((), []), ((2, 3), []),
    ((1, 1, 1, 5), [1, 2]),
]


def _values(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    x = torch.arange(int(torch.tensor(shape).prod()) if shape else 1, dtype=torch.float32).reshape(shape) - 3
    if x.numel() >= 4:
        x.view(-1)[:4] = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0])
    return x.to(dtype) if dtype.is_floating_point else x.nan_to_num(0, 7, -7).to(dtype)


@pytest.mark.parametrize(("shape", "counts"), CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_the_formulation_is_torch_tile(shape: tuple[int, ...], counts: list[int], dtype: torch.dtype) -> None:
    x = _values(shape, dtype)
    for source in (x, x.t() if x.dim() == 2 else x):  # a contiguous and a strided input
        want = torch.tile(source, counts)
        with export_formulation():
            got = _trt_tile(source, counts)
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert got.data_ptr() != source.data_ptr() or source.numel() == 0  # a new tensor, as tile's
        assert torch.equal(got.isnan(), want.isnan()) if dtype.is_floating_point else True
        assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.signbit(), want.signbit()) \
            if dtype.is_floating_point else torch.equal(got, want)


def test_the_formulation_keeps_gradients_and_errors() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    y = x.detach().clone().requires_grad_()
    weights = torch.arange(24.0).reshape(2, 2, 6)
    (torch.tile(x, (2, 1, 2)) * weights).sum().backward()
    with export_formulation():
        (_trt_tile(y, [2, 1, 2]) * weights).sum().backward()
    assert torch.equal(x.grad, y.grad)
    for counts in ([-1], [2, -2]):
        with pytest.raises(RuntimeError):
            torch.tile(x, counts)
        with export_formulation(), pytest.raises(RuntimeError):
            _trt_tile(x, counts)


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        a = x.tile(2)
        b = torch.tile(x, (2, 1, 1))
        c = (x * 2).tile(1, x.shape[0])
        return a, b + 1, c
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt407")
    after = rewrite(PROGRAM, select=("TRT407",))
    assert "a = _trt_tile(x, [2])" in after and "b = _trt_tile(x, [2, 1, 1])" in after
    assert "c = _trt_tile(x * 2, [1, x.shape[0]])" in after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


INPUTS = {**EDGE_TENSORS, "half": torch.randn(2, 3).half()}


@pytest.mark.parametrize("label", list(INPUTS))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Outputs, inputs afterwards, gradients and exceptions (a 0-d tensor has no ``shape[0]``)."""
    before, after = program[0](), program[1]()
    x = INPUTS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)
    if label == "0-d":
        assert run_once(before, [x]).error is IndexError  # the exception is part of what is kept


@pytest.mark.parametrize("label", ["example", "zeros", "inf-nan", "empty-rows", "3-d"])
def test_the_toolchains_give_the_originals_results(program: tuple[type, type], label: str, tmp_path: Path) -> None:
    """torch.jit.script, fx (and fx scripted), torch.compile and torch.export."""
    x = INPUTS[label]
    assert_same_toolchain_outcomes(program[0], program[1], [x], tmp_path, original_may_fail=True)


# --- both ONNX exporters: a rotary-embedding tile ahead of an instance norm ------------------------

HEAD = """import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, 4, 4)
        self.up = nn.ConvTranspose2d(8, 4, 4, 2, 1, bias=False)
        self.norm = nn.InstanceNorm2d(4)
        self.register_buffer("inv_freq", torch.linspace(1.0, 2.0, 2))

    def forward(self, x):
        b, _, h, w = x.shape
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        n = tokens.shape[1]
        coords = torch.arange(n, dtype=x.dtype)[:, None] / n
        angles = (coords[:, :, None] * self.inv_freq[None, None, :]).flatten(1, 2)
        angles = angles.tile(4)
        tokens = tokens * torch.cos(angles) + tokens.flip(-1) * torch.sin(angles)
        grid = tokens.transpose(1, 2).reshape(b, -1, h // 4, w // 4)
        return self.norm(self.up(grid))


def build():
    torch.manual_seed(0)
    return M().eval()


def inputs(generator):
    return (torch.rand(1, 3, 16, 16, generator=generator),)
"""


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    """The export with batch, height and width dynamic."""
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], verbose=False,
                                        dynamic_shapes=({0: torch.export.Dim.AUTO, 2: torch.export.Dim.AUTO,
                                                         3: torch.export.Dim.AUTO},))
            return program.model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
        return onnx.load_from_string(buffer.getvalue())


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt405_onnx")
    after = rewrite(HEAD, select=("TRT407",))
    assert "angles = _trt_tile(angles, [4])" in after
    return {"before": import_source(HEAD, folder)["build"](), "after": import_source(after, folder)["build"]()}


def test_the_original_loses_the_channel_count_downstream(head: dict) -> None:
    with pytest.raises(Exception, match="instance_norm for unknown channel size"):
        _export(head["before"], torch.rand(1, 3, 16, 16), dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewrite_exports_without_if_and_matches_eager(head: dict, dynamo: bool) -> None:
    graph = _export(head["after"], torch.rand(1, 3, 16, 16), dynamo)
    ops = {node.op_type for node in graph.graph.node}
    assert "If" not in ops and "InstanceNormalization" in ops or dynamo
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(1, 3, 16, 16), (2, 3, 24, 32), (3, 3, 8, 8)]:
        x = torch.rand(shape)
        x[0, 0, :2, :2] = torch.tensor([[0.0, -1.0], [5.0, 0.0]])
        with torch.no_grad():
            want = head["before"](x)
        got = torch.from_numpy(session.run(None, {session.get_inputs()[0].name: x.numpy()})[0])
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=str(shape))


def test_migrate_places_the_lost_shape_at_the_tile(tmp_path: Path) -> None:
    model = tmp_path / "rope_head.py"
    model.write_text(HEAD)
    report = migrate_json(model, '{"x": {"0": "batch", "2": "height", "3": "width"}}')
    assert report["before"]["exported"] is False
    line = next(i for i, text in enumerate(HEAD.splitlines(), 1) if "angles.tile(4)" in text)
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT407", line)]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True


def test_migrate_removes_the_if_nodes_of_a_tile_that_exports(tmp_path: Path) -> None:
    """Without a norm after it the model exports, with tile's If nodes (warnings at the tile line,
    which TRT407's fix removes)."""
    source = HEAD.replace("return self.norm(self.up(grid))", "return self.up(grid)")
    model = tmp_path / "rope_only.py"
    model.write_text(source)
    report = migrate_json(model, '{"x": {"0": "batch", "2": "height", "3": "width"}}')
    assert report["before"]["exported"] is True
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "angles.tile(4)" in text)
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT407", line)]
    graph = _export(import_source(rewrite(source, select=("TRT407",)), tmp_path)["build"](),
                    torch.rand(1, 3, 16, 16), dynamo=False)
    assert "If" not in {node.op_type for node in graph.graph.node}
    original = _export(import_source(source, tmp_path)["build"](), torch.rand(1, 3, 16, 16),
                       dynamo=False)
    assert "If" in {node.op_type for node in original.graph.node}
    assert report["exit_code"] == 0 and report["equivalent"] is True
