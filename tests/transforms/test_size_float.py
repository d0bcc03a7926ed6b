"""TRT350: arithmetic of tensor sizes and a float literal → ``_trt_size_float(...)`` of the whole of it.

The rewrite text for the forms the rule takes and the code it leaves (``**``, ``//``, integer-only
arithmetic, tensors, code already rewritten; ``trtcodemod apply`` twice is idempotent); eager mode
gives the original's values, dtypes and gradients (the helper is ``float``); the TorchScript export,
with static shapes, of the arithmetic meeting an integer constant of the trace has a ``Cast`` to
DOUBLE the rewritten graph lacks, and the rewritten graph equals eager mode there, at other sizes
with dynamic axes and on edge values; where the original export has no float64 (dynamic axes,
only float tensors met) the rewrite keeps the values; ``migrate`` on a small model applies the
rule and ends with exit 0.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import invoke, migrate_small, rewrite, rules_found

from trtcodemod.helpers.sizes import _trt_size_float

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, p, w):\n"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, unsafe=True, select=("TRT350",))


@pytest.mark.parametrize(("body", "want"), [
    ("        return x + (p.shape[1] - 2.5) * w\n", "        return x + (_trt_size_float(p.shape[1] - 2.5)) * w\n"),
    ("        return x * (x.shape[2] * 0.5)\n", "        return x * (_trt_size_float(x.shape[2] * 0.5))\n"),
    ("        return x * (2.0 / (5.0 * x.shape[-1]))\n", "        return x * (_trt_size_float(2.0 / (5.0 * x.shape[-1])))\n"),
    ("        return x / (x.size(1) + 1.0)\n", "        return x / (_trt_size_float(x.size(1) + 1.0))\n"),
    ("        return x.div(2.0 * x.shape[0])\n", "        return x.div(_trt_size_float(2.0 * x.shape[0]))\n"),
    ("        return x * (x.shape[1] * -0.5)\n", "        return x * (_trt_size_float(x.shape[1] * -0.5))\n"),
    ("        return x * (-x.shape[1] * 0.5)\n", "        return x * (_trt_size_float(-x.shape[1] * 0.5))\n"),
    ("        return x + (-(x.shape[1] - 1) / 2.0)\n", "        return x + (_trt_size_float(-(x.shape[1] - 1) / 2.0))\n"),
    ("        return x - (1.0 * x.shape[3] / 2)\n", "        return x - (_trt_size_float(1.0 * x.shape[3] / 2))\n"),
    ("        h = x.shape[2]\n        return x * (h * 0.5 + 1)\n",
     "        h = x.shape[2]\n        return x * (_trt_size_float(h * 0.5 + 1))\n"),
    ("        _, _, h, w = x.shape\n        return x + (h * w - 0.5)\n",
     "        _, _, h, w = x.shape\n        return x + (_trt_size_float(h * w - 0.5))\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert after.endswith(want), after
    assert "def _trt_size_float(" in after  # the helper is inserted with the call
    assert rules_found(after, select=("TRT350",)) == []


@pytest.mark.parametrize("body", [
    "        return x * (x.shape[1] ** 0.5)\n",  # a power: not an operator the rule takes
    "        return x * (x.shape[1] // 2.0)\n",  # a floor division
    "        return x * (x.shape[1] * 2 - 1)\n",  # integers only: the graph stays integer
    "        return x * (x.shape[1] / 2)\n",  # true division of integers: no float literal
    "        return x * 0.5 + p\n",  # tensors, no size
    "        return (x * 0.5) * x.shape[1]\n",  # a tensor in the arithmetic: the trace types it
    "        return x * (x.sum() * 0.5 + x.shape[1])\n",
    "        return x * (scale * 0.5)\n",  # a name bound nowhere here
    "        return x * (_trt_size_float(x.shape[1] * 0.5) * 2.0)\n",  # already rewritten
])
def test_other_code_is_left_alone(body: str) -> None:
    code = HEAD + body
    assert "TRT350" not in rules_found(code, select=("TRT350",))
    assert rewrite(code, unsafe=True, select=("TRT350",)) == code


def test_unsafe_fix_needs_unsafe() -> None:
    code = HEAD + "        return x * (x.shape[2] * 0.5)\n"
    assert rules_found(code, select=("TRT350",)) == ["TRT350"]
    assert rewrite(code, unsafe=False, select=("TRT350",)) == code


def test_apply_twice_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(HEAD + "        h = x.shape[2]\n        return x + (p.shape[1] - 2.5) * w + x * (h * 0.5)\n")
    first = invoke("apply", str(path), "--unsafe", "--select", "TRT350")
    once = path.read_text()
    assert first.exit_code == 0 and once.count("_trt_size_float(") == 2 + 1, once  # two calls and the def
    second = invoke("apply", str(path), "--unsafe", "--select", "TRT350")
    assert second.exit_code == 0 and path.read_text() == once
    assert invoke("apply", str(path), "--unsafe", "--select", "TRT350", "--check").exit_code == 0


# --- the helper and eager mode ---------------------------------------------------------------------

@pytest.mark.parametrize("value", [0, 1, -3, 7, 2**24 + 1, 0.5, -2.5, 1e300, float("inf"), -float("inf")])
def test_the_helper_is_float_outside_a_trace(value: float) -> None:
    got = _trt_size_float(value)
    assert type(got) is float and got == float(value)
    assert np.isnan(_trt_size_float(float("nan")))


def test_the_helper_while_tracing_is_the_traced_value_as_float32() -> None:
    seen = []

    def f(x: torch.Tensor) -> torch.Tensor:
        size = _trt_size_float(x.shape[1])  # a traced 0-d int64 tensor in, float32 out
        seen.append((type(size), getattr(size, "dtype", None)))
        return x * _trt_size_float(x.shape[1] - 2.5) + size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(f, (torch.ones(2, 5),), check_trace=False)
    assert traced(torch.ones(3, 9)).dtype == torch.float32
    assert seen == [(torch.Tensor, torch.float32)]
    assert torch.equal(traced(torch.ones(3, 9)), torch.full((3, 9), 15.5))  # the size follows the input


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x.shape[0]
        reweight = torch.arange(x.shape[-1])
        a = x + (x.shape[-1] - 2.5) * reweight
        b = x * (h * 0.5 + 1) - x.div(2.0 * len(x))
        c = x.to(torch.float64) * (x.size(-1) / 3.0) if x.is_floating_point() else x * (1.0 * h / 2)
        d = x * (-x.shape[-1] * 0.5)
        return a, b, c, d
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt350")
    after = rewrite(PROGRAM, unsafe=True, select=("TRT350",))
    assert after.count("_trt_size_float(") == 6 + 1, after  # six arithmetics and the helper's definition
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "one", "strided", "int",
                                   "3-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes (float32, float64 and integer tensors), gradients and exceptions."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


# --- the TorchScript export ------------------------------------------------------------------------

#: easydetect's best-mask choice: the size arithmetic meets an integer constant of the trace, then the
#: float32 scores. The other outputs meet only the input (no float64 in either export: measured).
EXPORTED = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, scores, points):
        reweight = torch.tensor([[1000, 0, 0, 0]])
        best = scores + (points.shape[1] - 2.5) * reweight
        ramp = scores + torch.arange(4) * (points.shape[1] / 2.0)
        plain = scores * (points.shape[1] * 0.5 + 1.0)
        return best, ramp, plain
"""

AXES = {"scores": {0: "batch"}, "points": {0: "batch", 1: "points"}}
DOUBLE = onnx.TensorProto.DOUBLE


def _export(model: torch.nn.Module, args: tuple, axes: dict | None) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=["scores", "points"],
                          output_names=["best", "ramp", "plain"], dynamic_axes=axes)
    return onnx.load_from_string(buffer.getvalue())


def _double_casts(graph: onnx.ModelProto) -> int:
    return sum(1 for node in graph.graph.node if node.op_type == "Cast"
               and any(a.name == "to" and a.i == DOUBLE for a in node.attribute))


def _double_values(graph: onnx.ModelProto) -> int:
    inferred = onnx.shape_inference.infer_shapes(graph).graph
    return sum(1 for value in [*inferred.value_info, *inferred.output] if value.type.tensor_type.elem_type == DOUBLE)


def _inputs(batch: int, points: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 4, generator=generator), torch.rand(batch, points, 2, generator=generator)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("trt350_onnx")
    after = rewrite(EXPORTED, unsafe=True, select=("TRT350",))
    assert after.count("_trt_size_float(") == 3 + 1, after
    before_model, after_model = import_source(EXPORTED, folder)["M"](), import_source(after, folder)["M"]()
    example = _inputs(2, 2, 0)
    return {"before": before_model, "after": after_model, "example": example,
            "static": (_export(before_model, example, None), _export(after_model, example, None)),
            "dynamic": (_export(before_model, example, AXES), _export(after_model, example, AXES))}


def _run(graph: onnx.ModelProto, args: tuple) -> list[np.ndarray]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    have = [i.name for i in session.get_inputs()]
    return session.run(None, {name: t.numpy() for name, t in zip(["scores", "points"], args) if name in have})


def _assert_equals_eager(graph: onnx.ModelProto, model: torch.nn.Module, args: tuple, context: str) -> None:
    with torch.no_grad():
        want = [t.numpy() for t in model(*args)]
    got = _run(graph, args)
    for name, p, q in zip(["best", "ramp", "plain"], want, got):
        assert q.dtype == p.dtype == np.float32 and q.shape == p.shape, (context, name, q.dtype, q.shape)
        assert np.allclose(q, p, rtol=1e-6, atol=1e-4, equal_nan=True), (context, name, q, p)
        assert np.array_equal(np.isnan(q), np.isnan(p)) and np.array_equal(np.isinf(q), np.isinf(p)), (context, name)


def test_static_export_casts_to_double_only_before(exported: dict) -> None:
    """The original's static graph casts the scores to DOUBLE where they meet the folded product
    of the size arithmetic and the integer constants; the rewritten graph has no float64 at all."""
    before, after = exported["static"]
    assert _double_casts(before) == 2, [n.op_type for n in before.graph.node]  # `best` and `ramp`
    assert _double_values(before) > 0
    assert _double_casts(after) == 0 and _double_values(after) == 0


def test_dynamic_export_has_no_double_before_or_after(exported: dict) -> None:
    """Measured, and said so in the rule's doc: with the point count dynamic the exporter folds
    nothing and the original graph stays float32 too."""
    before, after = exported["dynamic"]
    assert _double_casts(before) == 0 and _double_casts(after) == 0
    assert _double_values(after) == 0


def _edge_sets() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    points = torch.rand(2, 2, 2)
    specials = torch.tensor([[float("inf"), float("nan"), -float("inf"), 1.0], [-0.0, 3.0, -2.0, float("nan")]])
    return {"zeros": (torch.zeros(2, 4), points), "negatives": (-torch.rand(2, 4) - 1.0, points),
            "inf-nan": (specials, points), "large": (torch.full((2, 4), 3.0e38), points)}


def test_static_rewritten_graph_equals_eager(exported: dict) -> None:
    before, after = exported["static"]
    for label, args in {"example": exported["example"], "other-values": _inputs(2, 2, 5), **_edge_sets()}.items():
        _assert_equals_eager(after, exported["before"], args, label)
        _assert_equals_eager(after, exported["after"], args, label)


def test_dynamic_rewritten_graph_equals_eager_at_other_sizes(exported: dict) -> None:
    _, after = exported["dynamic"]
    sets = {"example": exported["example"], "more-points": _inputs(3, 7, 1), "one-point": _inputs(1, 1, 2),
            "many-points": _inputs(2, 40, 3)}
    for label, args in {**sets, **_edge_sets()}.items():
        _assert_equals_eager(after, exported["before"], args, label)


def test_eager_export_models_agree(exported: dict) -> None:
    """The rewritten model in eager mode gives the original's outputs (dtype float32, same values)."""
    for args in (exported["example"], _inputs(3, 5, 4), *_edge_sets().values()):
        with torch.no_grad():
            for p, q in zip(exported["before"](*args), exported["after"](*args)):
                assert p.dtype == q.dtype == torch.float32
                assert torch.equal(p.nan_to_num(), q.nan_to_num()) and torch.equal(p.isnan(), q.isnan())


# --- migrate ---------------------------------------------------------------------------------------

MIGRATED = """import torch
from torch import nn


class Choose(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        y = self.conv(x)
        return y + (x.shape[1] - 2.5) * torch.arange(5)


def build():
    return Choose().eval()
"""


def test_migrate_applies_the_rule_where_the_graph_casts_to_double(tmp_path: Path) -> None:
    path = tmp_path / "choose.py"
    path.write_text(MIGRATED)
    report, code = migrate_small(path)
    assert code == 0 and report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT350", 12)], applied
    assert report["before"]["trt_errors"] > 0 and report["after"]["trt_errors"] == 0
    added = [line for line in report["diff"].splitlines() if line.startswith("+")]
    assert "+        return y + (_trt_size_float(x.shape[1] - 2.5)) * torch.arange(5)" in added, report["diff"]
