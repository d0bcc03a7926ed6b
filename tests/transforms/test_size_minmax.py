"""TRT712's `min`/`max` of sizes: the helpers keep the choice in the TorchScript export.

The rewrite text, the helpers against the built-ins on ints, scripting, fx, and both ONNX
exporters run in ONNX Runtime at sizes other than the example's. Then the `int`/`ceil`/`floor`
helpers: the built-ins outside a trace (values, types, exceptions), a traced size in the graph.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

import onnxruntime as ort
import pytest
import torch
from support import rewrite

from trtcodemod.helpers.sizes import (
    _trt_size_ceil, _trt_size_floor, _trt_size_int, _trt_size_max, _trt_size_min,
)

HALF = """\
import torch
from torch import nn


class Half(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k = max(x.shape[1] // 2, 1)
        n = min(x.shape[1] - 2, 3)
        return torch.topk(x, k, dim=1).values, x[:, :n]
"""


def _load(code: str, tmp_path, name: str) -> torch.nn.Module:
    # A real file: TorchScript needs the source of the helpers inserted into it.
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    namespace: dict = {"__name__": name, "__file__": str(path)}
    exec(compile(code, str(path), "exec"), namespace)
    return namespace["Half"]()


def test_rewrite_text() -> None:
    assert rewrite(HALF) == HALF  # unsafe: applied with --unsafe or by migrate as a verified candidate
    after = rewrite(HALF, unsafe=True)
    assert "k = _trt_size_max(x.shape[1] // 2, 1)" in after and "n = _trt_size_min(x.shape[1] - 2, 3)" in after
    assert "def _trt_size_traced(" in after


def test_an_int_of_a_size_is_a_size_and_remainders_stay_integers() -> None:
    """``h = int(x.shape[2])`` binds the size itself (transformers' TF-style padding), and ``%`` of
    it by a number is an integer like ``//``: the ``max`` is rewritten, and the ``int`` too."""
    code = (
        "import torch\n\n\n"
        "def f(x: torch.Tensor):\n"
        "    h = int(x.shape[2])\n"
        "    return x[:, :, : max(3 - h % 2, 1)]\n"
    )
    after = rewrite(code, unsafe=True, select=("TRT712",))
    assert "h = x.shape[2]\n" in after and "x[:, :, : _trt_size_max(3 - h % 2, 1)]" in after, after


@pytest.mark.parametrize("call", [
    "max(x.shape[1] * 0.5, 1)",  # a float: the traced form would change the type
    "max(x.shape[1] / 2, 1)",
    "max(x.shape[0], x.shape[1], 2)",  # three operands
    "max(x.shape[0], x.shape[1], key=abs)",
    "min(n, x.shape[1])",  # a name the rule cannot see is an int
])
def test_only_two_integer_operands_are_rewritten(call: str) -> None:
    code = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x, n):\n        return {call}\n"
    assert "_trt_size" not in rewrite(code, unsafe=True)


def test_helpers_are_the_builtins_on_ints() -> None:
    values = (-3, -1, 0, 1, 2, 7, 2**62)
    for a, b in itertools.product(values, values):
        for helper, builtin in ((_trt_size_max, max), (_trt_size_min, min)):
            result = helper(a, b)
            assert result == builtin(a, b) and type(result) is int


def _compare_eager(original, rewritten, widths) -> None:
    for width in widths:
        x = torch.randn(2, width)
        x[0, 0] = -0.0
        for got, want in zip(rewritten(x), original(x)):
            assert torch.equal(got, want) and got.dtype == want.dtype and got.stride() == want.stride()


def test_eager_and_script_are_the_original(tmp_path) -> None:
    original = _load(HALF, tmp_path, "half_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "half_after")
    _compare_eager(original, rewritten, (1, 2, 3, 8, 17))
    _compare_eager(torch.jit.script(original), torch.jit.script(rewritten), (1, 2, 3, 8, 17))


def test_fx_fails_as_the_original_does(tmp_path) -> None:
    """fx makes sizes Proxies; comparing one in Python raises in both."""
    errors = []
    for code, name in ((HALF, "fx_before"), (rewrite(HALF, unsafe=True), "fx_after")):
        with pytest.raises(Exception) as caught:
            torch.fx.symbolic_trace(_load(code, tmp_path, name))
        errors.append(type(caught.value))
    assert errors[0] is errors[1]


def _onnx_outputs(model, path, widths, dynamo: bool) -> dict[int, list]:
    example = (torch.randn(2, 8),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(model, example, str(path), dynamo=True, input_names=["x"],
                              dynamic_shapes={"x": {1: torch.export.Dim.AUTO}})
        else:
            torch.onnx.export(model, example, str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {1: "width"}})
    session = ort.InferenceSession(str(path))
    return {w: session.run(None, {"x": torch.arange(2.0 * w).reshape(2, w).numpy()}) for w in widths}


def test_torchscript_export_keeps_the_choice(tmp_path) -> None:
    widths = (1, 2, 3, 8, 9, 17)
    original = _load(HALF, tmp_path, "ts_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "ts_after")
    before = _onnx_outputs(original, tmp_path / "before.onnx", widths, dynamo=False)
    after = _onnx_outputs(rewritten, tmp_path / "after.onnx", widths, dynamo=False)
    for width in widths:
        expected = rewritten(torch.arange(2.0 * width).reshape(2, width))
        for got, want in zip(after[width], expected):
            assert got.shape == tuple(want.shape) and (got == want.numpy()).all(), width
    # The original's graph kept the example's choices: max picked the size (so k = 0 at width 1,
    # where max gives 1) and min picked 3 (so 3 columns at width 3, where min gives 1).
    assert before[1][0].shape == (2, 0) and before[3][1].shape == (2, 3)
    assert before[17][0].shape == (2, 8)  # where the choice does not flip, the size was traced


def test_dynamo_export_is_unchanged(tmp_path) -> None:
    """The dynamo exporter keeps min/max of symbolic sizes itself; the helpers leave it alone."""
    widths = (3, 8, 9, 17)
    original = _load(HALF, tmp_path, "dy_before")
    rewritten = _load(rewrite(HALF, unsafe=True), tmp_path, "dy_after")
    before = _onnx_outputs(original, tmp_path / "before.onnx", widths, dynamo=True)
    after = _onnx_outputs(rewritten, tmp_path / "after.onnx", widths, dynamo=True)
    for width in widths:
        for got, want in zip(after[width], before[width]):
            assert got.shape == want.shape and (got == want).all()


TOPK_INDEX = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, max_det: int = 4) -> None:
        super().__init__()
        self.max_det = max_det

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return self.top(scores, self.max_det)

    def top(self, scores: torch.Tensor, max_det: int) -> torch.Tensor:
        anchors, nc = scores.shape[1:]
        k = min(max_det, anchors)
        return scores.amax(-1).topk(k, dim=1).values
"""


def test_a_parameter_annotated_int_is_an_integer_operand(tmp_path) -> None:
    """ultralytics' Detect.get_topk_index: `k = min(max_det, anchors)` with `max_det: int` and
    `anchors` a size. The original's graph keeps the example's choice (4 of 7 anchors: k = 4
    at 2 anchors fails); the rewritten one follows the anchors, and eager is unchanged."""
    after = rewrite(TOPK_INDEX, unsafe=True)
    assert "k = _trt_size_min(max_det, anchors)" in after
    # Unannotated, or rebound before the call, the name is not known to be an int.
    assert "_trt_size" not in rewrite(TOPK_INDEX.replace("max_det: int)", "max_det)"), unsafe=True)
    rebound = TOPK_INDEX.replace("        k = min", "        max_det = scores.sum()\n        k = min")
    assert "_trt_size" not in rewrite(rebound, unsafe=True)
    models = {}
    for name, code in (("before", TOPK_INDEX), ("after", after)):
        path = tmp_path / f"topk_{name}.py"
        path.write_text(code)
        namespace: dict = {"__name__": f"topk_{name}", "__file__": str(path)}
        exec(compile(code, str(path), "exec"), namespace)
        models[name] = namespace["Head"]()
    for anchors in (0, 1, 2, 4, 5, 9):
        scores = torch.randn(2, anchors, 3)
        scores[0, :1] = -0.0
        want, got = models["before"](scores), models["after"](scores)
        assert torch.equal(got, want) and got.shape == want.shape and got.dtype == want.dtype
    outputs = {}
    for name, model in models.items():
        path = tmp_path / f"topk_{name}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 7, 3),), str(path), dynamo=False, input_names=["s"],
                              dynamic_axes={"s": {1: "anchors"}})
        session = ort.InferenceSession(str(path))
        outputs[name] = {}
        for anchors in (2, 3, 7, 12):
            scores = torch.randn(1, anchors, 3)
            try:
                outputs[name][anchors] = session.run(None, {"s": scores.numpy()})[0].shape
            except Exception:  # noqa: BLE001 - the baked k larger than the row
                outputs[name][anchors] = "fails"
            assert models["after"](scores).shape == (1, min(4, anchors))
    assert outputs["after"] == {2: (1, 2), 3: (1, 3), 7: (1, 4), 12: (1, 4)}
    assert outputs["before"][2] == "fails" and outputs["before"][12] == (1, 4)


# --- int / ceil / floor of a size: _trt_size_int, _trt_size_ceil, _trt_size_floor ---------------

ROUNDED = [(_trt_size_int, int), (_trt_size_ceil, math.ceil), (_trt_size_floor, math.floor)]


@pytest.mark.parametrize("helper,builtin", ROUNDED, ids=["int", "ceil", "floor"])
def test_rounding_helpers_are_the_builtins_outside_a_trace(helper, builtin) -> None:
    values = [0, 7, -7, 2**62, True, 0.0, -0.0, 2.5, -2.5, 1e20, -1e-300, 7 / 3, np.float64(2.2), np.float32(-2.7),
              np.int64(5), torch.tensor(3), torch.tensor(2.5), torch.tensor(-2.5)]
    for value in values:
        want = builtin(value)
        got = helper(value)
        assert got == want and type(got) is type(want), (value, got, want)
    for odd in [float("inf"), float("-inf"), float("nan"), "3", None, torch.tensor([1.0, 2.0])]:
        outcomes = []
        for function in (builtin, helper):
            try:
                outcomes.append(function(odd))
            except Exception as exc:  # noqa: BLE001 - the same exception is part of the same program
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], (odd, outcomes)


@pytest.mark.parametrize("helper,builtin", ROUNDED, ids=["int", "ceil", "floor"])
def test_rounding_helpers_keep_the_traced_size(helper, builtin, tmp_path) -> None:
    """Traced on one width, the exported graph rounds every other width's quotient as eager does."""

    def crop(x: torch.Tensor) -> torch.Tensor:
        return x[:, : helper(x.shape[1] * 0.75)] if helper is _trt_size_int else x[:, : helper(x.shape[1] / 3)]

    class Crop(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return crop(x)

    path = tmp_path / "crop.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Crop(), (torch.randn(2, 8),), str(path), dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {1: "width"}})
    session = ort.InferenceSession(str(path))
    for width in (1, 2, 3, 4, 7, 8, 9, 13):
        x = torch.arange(2.0 * width).reshape(2, width)
        [got] = session.run(None, {"x": x.numpy()})
        quotient = width * 0.75 if helper is _trt_size_int else width / 3
        assert got.shape == (2, builtin(quotient)) and (got == Crop()(x).numpy()).all(), width


@pytest.mark.parametrize("call,after", [
    ("int(h * self.scale)", "_trt_size_int(h * self.scale)"),
    ("math.ceil(h / self.stride)", "_trt_size_ceil(h / self.stride)"),
    ("math.floor(w * 0.5)", "_trt_size_floor(w * 0.5)"),
    ("int(np.ceil(w / self.window))", "_trt_size_ceil(w / self.window)"),
    ("int(math.floor(h / 2.5))", "_trt_size_floor(h / 2.5)"),
    ("int(math.ceil(h / 4))", "(h + 3) // 4"),  # the exact integer form where there is one
    ("max(h - self.k, 0)", "_trt_size_max(h - self.k, 0)"),
    ("int(x.sum())", None),  # a tensor value: TRT702's
    ("round(h * 0.5)", None),
    ("max(h * 0.5, 1)", None),  # a float: min/max keep integers only
    ("int(h * n)", None),  # `n` could be anything: without facts, not a number the helper takes
])
def test_int_ceil_floor_of_sizes(call: str, after: str | None) -> None:
    code = ("import math\nimport numpy as np\nimport torch\nclass M(torch.nn.Module):\n"
            f"    def forward(self, x, n):\n        h, w = x.shape[2:]\n        return {call}\n")
    new = rewrite(code, unsafe=True, select=("TRT712",))
    assert new.endswith(f"        return {after or call}\n"), new


def test_sizes_handed_down_are_taken_on_the_observed_evidence(tmp_path) -> None:
    """`int(patch_h * 2)` in a head whose `patch_h` comes from the caller's `h // 2`: TRT702 names a
    tensor conversion without facts; with the recorded run (no value read there) and the export's
    TracerWarning at the line, it is TRT712's, rewritten with `_trt_size_int`."""
    from trtcodemod.engine import Options, check_source, fix_source
    from trtcodemod.evidence.facts import Facts

    code = ("import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n    def forward(self, out, patch_h, patch_w):\n"
            "        return F.interpolate(out, (int(patch_h * 2), int(patch_w * 2)))\n")
    path = tmp_path / "head.py"
    path.write_text(code)
    assert {f.rule for f in check_source(code.encode(), str(path), Options(select=("TRT702", "TRT712")))} == {"TRT702"}
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 8))})
    facts.note_traced([(str(path), 7, "Converting a tensor to a Python integer might cause the trace to be incorrect.")])
    options = Options(select=("TRT702", "TRT712"), facts=facts, scope="all", unsafe=True)
    assert [f.rule for f in check_source(code.encode(), str(path), options)] == ["TRT712", "TRT712"]
    new = fix_source(code.encode(), str(path), options).source.decode()
    assert "(_trt_size_int(patch_h * 2), _trt_size_int(patch_w * 2))" in new


def test_rounding_rewrites_script_as_the_original(tmp_path) -> None:
    code = ("import math\nimport torch\nfrom torch import nn\n\n\nclass Crop(nn.Module):\n"
            "    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:\n"
            "        h = x.shape[1]\n"
            "        return x[:, : math.ceil(h / 3)], x[:, : int(h * 0.5)], x[:, : math.floor(h * 2 / 3)]\n")
    new = rewrite(code, unsafe=True, select=("TRT712",))
    assert new.count("_trt_size_") >= 3
    scripted = []
    for name, source in (("crop_before", code), ("crop_after", new)):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        namespace: dict = {"__name__": name, "__file__": str(path)}
        exec(compile(source, str(path), "exec"), namespace)
        scripted.append(torch.jit.script(namespace["Crop"]()))
    for width in (0, 1, 2, 3, 5, 8, 13):
        x = torch.arange(2.0 * width).reshape(2, width)
        for want, got in zip(scripted[0](x), scripted[1](x)):
            assert torch.equal(want, got), width
