"""TRT733 (``isinf``, ``isfinite``, ``isposinf``, ``isneginf``, ``nan_to_num``): the TorchScript
exporter writes the first three with a Cast to float64 and cannot convert the other two; the
rewrite compares with infinity in the tensor's own dtype while exporting.

The rewrite text (function and method forms, what is left), eager mode against the original on
edge values (values, dtype, gradients, errors) and other toolchains, both exporters at other
sizes in ONNX Runtime with no float64 Cast, and migrate on a small model whose graph TensorRT
refused before.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.finite import _trt_isfinite, _trt_isinf, _trt_nan_to_num
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, y):
        inf = torch.isinf(x)
        finite = x.isfinite()
        up, down = torch.isposinf(y), y.isneginf()
        clean = torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
        capped = y.nan_to_num(1.5, neginf=-2.0)
        default = torch.nan_to_num(x * y)
        return inf, finite, up, down, clean, capped, default
'''
RULE = ("TRT733",)


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=RULE) == ["TRT733"] * 7
    after = strip_helpers(rewrite(SOURCE, select=RULE))  # safe: no --unsafe needed
    for line in ("inf = _trt_isinf(x)", "finite = _trt_isfinite(x)", "up, down = _trt_isposinf(y), _trt_isneginf(y)",
                 "clean = _trt_nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)",
                 "capped = _trt_nan_to_num(y, 1.5, neginf=-2.0)", "default = _trt_nan_to_num(x * y)"):
        assert line in after, after
    once = rewrite(SOURCE, select=RULE)
    assert rewrite(once, select=RULE) == once
    left = ("import torch\nimport numpy as np\nimport math\n"
            "def f(a, b, t, args):\n"
            "    torch.isinf(a, out=b)\n"
            "    c = torch.nan_to_num(a, out=b)\n"
            "    d = torch.isfinite(*args)\n"
            "    return np.isinf(t), math.isfinite(t), np.nan_to_num(t), a.isnan()\n")
    assert rules_found(left, select=RULE) == ["TRT733"] * 3  # reported, not rewritten
    assert rewrite(left, select=RULE) == left


def test_a_rewritten_mask_is_still_a_mask_to_the_indexing_rule() -> None:
    code = "import torch\ndef f(boxes):\n    return boxes[torch.isfinite(boxes).all(1)]\n"
    after = strip_helpers(rewrite(code))
    assert "_trt_mask_index(boxes, _trt_isfinite(boxes).all(1))" in after, after


def _values(dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    base = torch.randn(500, generator=g, dtype=torch.float64) * 1e3
    info = torch.finfo(dtype)
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, info.max, info.min, info.tiny, -1.0],
                           dtype=torch.float64)
    return torch.cat([base, special]).to(dtype)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["M"]
    after = import_source(rewrite(SOURCE, select=RULE), tmp_path_factory.mktemp("after"))["M"]
    return before, after


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_eager_mode_is_the_original(programs, dtype) -> None:
    before, after = programs
    x = _values(dtype)
    for inputs in ([x.clone().requires_grad_(True), x.flip(0).clone()],
                   [torch.zeros(0, 3, dtype=dtype), torch.zeros(0, 3, dtype=dtype)],   # empty
                   [-x.abs(), torch.zeros_like(x)]):                                   # negatives, zeros
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs), context=str(dtype))


def test_eager_mode_on_other_dtypes_and_errors(programs) -> None:
    before, after = programs
    for inputs in ([torch.arange(-5, 6), torch.arange(11)],                       # integers hold no infinity
                   [torch.tensor([True, False]), torch.tensor([False, True])],
                   [torch.randn(3), torch.randn(4)],                               # broadcast error
                   [2.0, torch.randn(2)]):                                          # not a tensor: torch's error
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs))
    z = torch.tensor([complex(math.inf, 0.0), complex(1.0, math.nan)])
    assert_same_run(run_once(_trt_isinf, [z]), run_once(torch.isinf, [z]))
    assert_same_run(run_once(_trt_isfinite, [z]), run_once(torch.isfinite, [z]))


def test_other_toolchains_run_the_original(programs, tmp_path) -> None:
    before, after = programs
    inputs = [torch.tensor([1.0, math.inf, -math.inf, math.nan]), torch.tensor([-math.inf, 2.0, math.inf, 0.0])]
    want = toolchain_outcomes(before, inputs, tmp_path)
    got = toolchain_outcomes(after, inputs, tmp_path)
    assert set(want) == set(got)
    for name in want:
        if isinstance(want[name], Exception):
            assert type(got[name]) is type(want[name]), name
        else:
            assert_same_run(run_once(lambda *a, v=want[name]: v, []), run_once(lambda *a, v=got[name]: v, []),
                            context=name)


class _Tests(torch.nn.Module):
    """The program's outputs that export in the original too (``isposinf``/``isneginf`` do not)."""

    def __init__(self, program, keep: tuple[int, ...]) -> None:
        super().__init__()
        self.program, self.keep = program(), keep

    def forward(self, x, y):
        outputs = self.program(x, y)
        return tuple(outputs[k] for k in self.keep)


def _export(model: torch.nn.Module, inputs: tuple, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"x": {0: torch.export.Dim("n")}, "y": {0: torch.export.Dim("n")}}
            return torch.onnx.export(model, inputs, dynamo=True, input_names=["x", "y"], dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17, input_names=["x", "y"],
                          dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
        return onnx.load_from_string(buffer.getvalue())


def _casts_to_float64(graph: onnx.ModelProto) -> int:
    return sum(1 for n in graph.graph.node if n.op_type == "Cast"
               and any(a.name == "to" and a.i == onnx.TensorProto.DOUBLE for a in n.attribute))


def test_the_original_exports_a_float64_cast_or_fails() -> None:
    before = import_source(SOURCE, __import__("pathlib").Path(__import__("tempfile").mkdtemp()))["M"]
    example = (torch.randn(4), torch.randn(4))
    graph = _export(_Tests(before, (0, 1, 4, 5, 6)), example, dynamo=False)
    assert _casts_to_float64(graph) >= 5
    assert any(i.severity == "error" and i.op == "Cast" for i in check_graph(graph))
    with pytest.raises(Exception, match="isposinf|isneginf"):
        _export(_Tests(before, (2,)), example, dynamo=False)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_model_exports_without_float64_and_matches_eager_at_other_sizes(programs, dynamo) -> None:
    before, after = programs
    keep = tuple(range(7))
    graph = _export(_Tests(after, keep), (torch.randn(4), torch.randn(4)), dynamo)
    assert _casts_to_float64(graph) == 0
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    x = _values(torch.float32)  # another size than the example's, with every edge value
    y = x.flip(0)
    got = session.run(None, {"x": x.numpy(), "y": y.numpy()})
    want = before()(x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.numpy().dtype and g.shape == tuple(w.shape)
        assert torch.equal(torch.from_numpy(g).isnan(), w.isnan())
        assert torch.equal(torch.from_numpy(g).nan_to_num(0.0), w.nan_to_num(0.0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float64])
def test_nan_to_num_defaults_are_the_dtype_s_extremes_while_exporting(dtype) -> None:
    class One(torch.nn.Module):
        def forward(self, x):
            return _trt_nan_to_num(x)

    x = torch.tensor([math.inf, -math.inf, math.nan, 1.0], dtype=dtype)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(One(), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"])
    [got] = ort.InferenceSession(buffer.getvalue()).run(None, {"x": x.numpy()})
    assert torch.equal(torch.from_numpy(got), torch.nan_to_num(x))


def test_nan_to_num_keeps_a_negative_zero_in_onnx_runtime() -> None:
    """ONNX Runtime's optimizer swaps the branches of a Where on a Not (`x != x`), and its Where reads a -0.0
    from the first branch as 0.0: the NaN test is an IsNaN, so -0.0 stays -0.0."""
    class One(torch.nn.Module):
        def forward(self, x):
            return _trt_nan_to_num(x, 1.0)

    x = torch.tensor([-0.0, 0.0, math.nan, -2.0, -0.0])
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(One(), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"])
    [got] = ort.InferenceSession(buffer.getvalue()).run(None, {"x": x.numpy()})
    want = torch.nan_to_num(x, 1.0)
    assert torch.equal(torch.from_numpy(got), want)
    assert torch.equal(torch.signbit(torch.from_numpy(got)), torch.signbit(want))


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = torch.log(self.conv(x).abs())  # -inf where a channel is exactly zero
        y = torch.nan_to_num(y, nan=0.0, posinf=0.0, neginf=0.0)
        return y * torch.isfinite(x).all(1, keepdim=True).float()


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "finite_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert report["before"]["trt_errors"] >= 1, report["before"]
    assert exit_code == 0, report["remaining"]
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT733", "TRT733"]
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True
    assert "+        return y * _trt_isfinite(x).all(1, keepdim=True).float()" in report["diff"]


def test_nan_to_num_after_a_head_split_follows_other_sizes_while_exporting() -> None:
    """The replacements are 0-d and broadcast: a ``full_like`` of a tensor whose shape the exporter
    infers statically (here after ``unflatten`` into heads) is a ConstantOfShape it folds to the
    example's size, and the graph then refuses another size (LightGlue's cross attention,
    tests/recipe_variants/trt733/lightglue_cross_block.py)."""
    class Attend(torch.nn.Module):
        def forward(self, q, k):
            q, k = (t.unflatten(-1, (2, -1)).transpose(1, 2) for t in (q, k))
            sim = torch.einsum("bhid,bhjd->bhij", q, k).masked_fill(k[:, :, None, :, 0] > 0, -math.inf)
            out = torch.einsum("bhij,bhjd->bhid", sim.softmax(-1), k)
            return _trt_nan_to_num(out), _trt_nan_to_num(out * math.inf, nan=1.5, neginf=-2.0)

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Attend(), (torch.randn(1, 2, 4), torch.randn(1, 3, 4)), buffer, dynamo=False,
                          opset_version=17, input_names=["q", "k"],
                          dynamic_axes={"q": {0: "b", 1: "n"}, "k": {0: "b", 1: "m"}})
    q, k = torch.randn(3, 5, 4), torch.randn(3, 7, 4)
    k[1, :, 0] = 1.0  # every key of the first head masked: NaN rows
    got = ort.InferenceSession(buffer.getvalue()).run(None, {"q": q.numpy(), "k": k.numpy()})
    want = Attend()(q, k)
    assert torch.equal(want[0][1, 0], torch.zeros(5, 2))  # the NaN rows, cleared
    assert got[0].shape == (3, 2, 5, 2) and torch.allclose(torch.from_numpy(got[0]), want[0], atol=1e-6)
    assert torch.equal(torch.from_numpy(got[1]), want[1])  # every value replaced: exact
