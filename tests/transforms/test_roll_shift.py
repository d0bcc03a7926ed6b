"""TRT353 (``torch.roll`` by a shift computed at run time): a gather of the rolled positions while exporting.

The rewrite text (function and method forms, keywords, what is left), eager mode against the original
on edge values (values, dtype, gradients, errors), the other toolchains, and the export with both
exporters: the original stops (a negated shift, TorchScript; any computed shift, dynamo) or rolls by
the traced example's shift at every size (TorchScript), the rewritten graph equals eager mode exactly at
other sizes, on infinities, NaN, zeros, negatives and an empty axis.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.rolling import _trt_roll
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        h, w = x.shape[-2:]
        shift_h, shift_w = h // 4, w // 3
        windows = torch.roll(x, shifts=(-shift_h, -shift_w), dims=(2, 3))
        half = x.roll(w // 2, 3)
        flat = torch.roll(x, h)
        return windows, half, flat
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT353",)) == ["TRT353"] * 3
    after = strip_helpers(rewrite(SOURCE, select=("TRT353",)))  # safe: no --unsafe needed
    assert "windows = _trt_roll(x, shifts=(-shift_h, -shift_w), dims=(2, 3))" in after
    assert "half = _trt_roll(x, w // 2, 3)" in after
    assert "flat = _trt_roll(x, h)" in after
    once = rewrite(SOURCE, select=("TRT353",))
    assert rewrite(once, select=("TRT353",)) == once
    left = ("import torch\nimport numpy as np\n"
            "class Block(torch.nn.Module):\n"
            "    def forward(self, x, a, args):\n"
            "        y = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))\n"
            "        sh, sw = self.shift_size\n"
            "        y = y + torch.roll(x, shifts=(-sh, -sw), dims=(1, 2))\n"
            "        z = torch.roll(x, 3, 0) + x.roll(-1, 1) + torch.roll(x, [1, -2], [0, 1])\n"
            "        u = torch.roll(x, *args)\n"
            "        return y, z, u, np.roll(a, x.shape[0])\n")
    assert rules_found(left, select=("TRT353",)) == ["TRT353"]  # only the unpacked call: reported, not rewritten
    assert rewrite(left, select=("TRT353",)) == left
    rebound = ("import torch\n"
               "class Block(torch.nn.Module):\n"
               "    def forward(self, x):\n"
               "        sh = self.shift\n"
               "        sh = x.shape[1] // 2\n"
               "        return torch.roll(x, sh, 1)\n")
    assert rules_found(rebound, select=("TRT353",)) == ["TRT353"]  # a local bound to a size too is not constant
    own = "def roll(x, n):\n    return x\n\ndef f(x):\n    return roll(x, x.shape[0] // 2)\n"
    assert rules_found(own, select=("TRT353",)) == []


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["M"]
    after = import_source(rewrite(SOURCE, select=("TRT353",)), tmp_path_factory.mktemp("after"))["M"]
    return before, after


def _edge(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
    flat = x.view(-1)
    if flat.numel() > 8 and dtype.is_floating_point:
        flat[1], flat[4], flat[7] = math.inf, -math.inf, math.nan
        flat[2] = 0.0
    return x


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_eager_mode_is_the_original(programs, dtype) -> None:
    before, after = programs
    for inputs in ([_edge((2, 3, 8, 6), dtype, 1).requires_grad_(True)],
                   [_edge((1, 2, 5, 7), dtype, 2)],
                   [torch.zeros(2, 3, 0, 6, dtype=dtype)],        # empty axis
                   [-_edge((1, 1, 9, 4), dtype, 3).abs()]):       # negatives
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs), context=str(dtype))


def test_eager_mode_on_other_dtypes_and_errors(programs) -> None:
    before, after = programs
    for inputs in ([torch.arange(2 * 3 * 4 * 5).view(2, 3, 4, 5)],
                   [torch.rand(1, 2, 4, 4) > 0.5],
                   [torch.randn(3, 4)],                            # dim 3 does not exist: torch's error
                   [[1.0, 2.0]]):                                  # not a tensor: torch's error
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs))
    z = torch.randn(2, 5, dtype=torch.complex64)
    assert_same_run(run_once(_trt_roll, [z, 2, 1]), run_once(torch.roll, [z, 2, 1]))
    x = torch.randn(3, 4)
    assert_same_run(run_once(_trt_roll, [x, (1, 2), (0,)]), run_once(torch.roll, [x, (1, 2), (0,)]))  # lengths differ


def test_other_toolchains_run_the_original(programs, tmp_path) -> None:
    before, after = programs
    assert_same_toolchain_outcomes(before, after, [torch.randn(2, 3, 8, 6)], tmp_path, original_may_fail=True)


class _Half(torch.nn.Module):
    """A roll by a positive shift from a size: the TorchScript export bakes the example's shift."""

    def __init__(self, roll) -> None:
        super().__init__()
        self.roll = roll

    def forward(self, x):
        return self.roll(x, x.shape[3] // 2, 3) * 2.0


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"x": {0: torch.export.Dim("b"), 2: torch.export.Dim("h"), 3: torch.export.Dim("w")}}
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, x: torch.Tensor) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString())
    return [torch.from_numpy(o) for o in session.run(None, {session.get_inputs()[0].name: x.numpy()})]


def _equal(got: torch.Tensor, want: torch.Tensor) -> bool:
    return got.shape == want.shape and bool(((got == want) | (got.isnan() & want.isnan())).all())


#: Input sets at other sizes than the example's (2x3x8x6), with edge values.
SETS = {
    "other size": _edge((3, 3, 12, 9), torch.float32, 4),
    "shift past the axis": _edge((1, 3, 11, 5), torch.float32, 5),
    "zeros": torch.zeros(1, 3, 7, 10),
    "negatives": -_edge((2, 3, 16, 3), torch.float32, 6).abs(),
    "one row": _edge((1, 3, 1, 13), torch.float32, 7),
}


class _Module(torch.nn.Module):
    def __init__(self, program) -> None:
        super().__init__()
        self.program = program()

    def forward(self, x):
        return self.program(x)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_original_does_not_export_and_the_rewritten_model_equals_eager(programs, dynamo) -> None:
    before, after = programs
    example = _edge((2, 3, 8, 6), torch.float32, 0)
    with pytest.raises(Exception, match="onnx::Neg|aten.roll"):
        _export(_Module(before), example, dynamo)
    graph = _export(_Module(after), example, dynamo)
    ops = {n.op_type for n in graph.graph.node}
    assert {"Mod", "Gather"} <= ops, ops
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    for label, x in SETS.items():  # empty axes: the rolls with dims, below (a flattened roll's view back is a
        # Reshape, which reads a 0 in the shape as "keep the input's dimension")
        want = before()(x)
        got = _run(graph, x)
        assert all(_equal(g, w) for g, w in zip(got, want)), label


def test_a_positive_computed_shift_is_baked_by_the_original_and_follows_the_size_rewritten() -> None:
    example = _edge((2, 3, 8, 6), torch.float32, 0)
    baked = _export(_Half(torch.roll), example, dynamo=False)   # exports, silently
    kept = _export(_Half(_trt_roll), example, dynamo=False)
    x = SETS["other size"]  # width 9: a roll by 4, where the example rolled by 3
    want = _Half(torch.roll)(x)
    assert not _equal(_run(baked, x)[0], want)
    assert _equal(_run(kept, x)[0], want)
    for label, x in {**SETS, "empty rows": torch.zeros(1, 3, 0, 6), "empty columns": torch.zeros(1, 3, 5, 0)}.items():
        assert _equal(_run(kept, x)[0], _Half(torch.roll)(x)), label


def test_a_roll_without_dims_rolls_the_flattened_tensor_in_the_graph() -> None:
    class Flat(torch.nn.Module):
        def forward(self, x):
            return _trt_roll(x, -(x.shape[2] * 3 + 1))

    example = _edge((2, 3, 8, 6), torch.float32, 0)
    graph = _export(Flat(), example, dynamo=False)
    for label, x in SETS.items():
        assert _equal(_run(graph, x)[0], torch.roll(x, -(x.shape[2] * 3 + 1))), label


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        window = y.shape[-1] // 2
        return torch.roll(y, shifts=(-(window // 2), -(window // 2)), dims=(2, 3))


def build():
    torch.manual_seed(0)
    return Net().eval()


def inputs(generator):
    return (torch.randn(1, 3, 8, 12, generator=generator),)
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "shifted_model.py"
    path.write_text(MODEL)
    report = migrate_json(path, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["exit_code"] == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT353"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        return _trt_roll(y, shifts=(-(window // 2), -(window // 2)), dims=(2, 3))" in report["diff"]


HALF = '''
import torch
from torch import nn


class Earth(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        y = self.mix(x)
        opposite = torch.roll(y, shifts=y.shape[-1] // 2, dims=-1)
        return torch.cat([torch.flip(opposite[..., :2, :], (-2,)), y], dim=-2)


def build():
    torch.manual_seed(0)
    return Earth().eval()


def inputs(generator):
    return (torch.randn(1, 3, 6, 12, generator=generator),)
'''


def test_migrate_traces_again_for_a_roll_whose_bake_warns_nowhere(tmp_path) -> None:
    """A positive shift from a size: the export warns nowhere and its graph matches the model at the
    verifier's width one larger (13 // 2 == 12 // 2), not at its smaller width (6 // 2 != 12 // 2), where
    it shifts by the traced 6; a TRT353 finding asks for the second trace, which finds the Slice baked at
    the roll, and the fix is applied there."""
    path = tmp_path / "earth_model.py"
    path.write_text(HALF)
    report = migrate_json(path, '{"x": {"0": "b", "2": "h", "3": "w"}}')
    assert report["before"]["faithful"] is False  # the smaller set sees it (the larger one does not)
    assert report["retrace"]["same"] is False
    assert [a["rule"] for a in report["applied"]] == ["TRT353"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True, report["remaining"]
