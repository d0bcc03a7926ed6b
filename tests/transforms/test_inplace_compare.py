"""TRT323: in-place comparisons (``x.gt_(v)``) that the TorchScript exporter writes as bool."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import bits_equal, migrate_small, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.comparisons import _trt_compare_

HEADER = "import torch\nfrom torch import nn\n\n"


def fixed(code: str) -> str:
    return rewrite(code, select=("TRT323",))


@pytest.mark.parametrize("call,after", [
    ("masks.gt_(0.5)", '_trt_compare_(masks, "gt", 0.5)'),
    ("masks.greater_(0.5)", '_trt_compare_(masks, "gt", 0.5)'),
    ("x.ge_(y)", '_trt_compare_(x, "ge", y)'),
    ("x.greater_equal_(y)", '_trt_compare_(x, "ge", y)'),
    ("x.lt_(0)", '_trt_compare_(x, "lt", 0)'),
    ("x.less_(0)", '_trt_compare_(x, "lt", 0)'),
    ("x.le_(-1.5)", '_trt_compare_(x, "le", -1.5)'),
    ("x.less_equal_(-1.5)", '_trt_compare_(x, "le", -1.5)'),
    ("x.eq_(y[:, :1])", '_trt_compare_(x, "eq", y[:, :1])'),
    ("x.ne_(True)", '_trt_compare_(x, "ne", True)'),
    ("x.not_equal_(y)", '_trt_compare_(x, "ne", y)'),
    ("x.logical_and_(y)", '_trt_compare_(x, "logical_and", y)'),
    ("x.logical_or_(y)", '_trt_compare_(x, "logical_or", y)'),
    ("x.logical_xor_(y)", '_trt_compare_(x, "logical_xor", y)'),
    ("x.logical_not_()", '_trt_compare_(x, "logical_not")'),
    # a receiver that is an expression: evaluated once, as the helper's argument
    ("(x - y).gt_(0)", '_trt_compare_(x - y, "gt", 0)'),
    ("x.sum(2, keepdim=True).gt_(0.0)", '_trt_compare_(x.sum(2, keepdim=True), "gt", 0.0)'),
])
def test_the_in_place_comparison_becomes_the_helper(call: str, after: str) -> None:
    code = f"{HEADER}def f(x, y):\n    return {call}\n"
    out = fixed(code)
    assert strip_helpers(out).strip().splitlines()[-1] == f"    return {after}"
    assert "def _trt_compare_(input, op, other=None):" in out


@pytest.mark.parametrize("call", ["x.gt_(other=y)", "x.gt_(*args)", "x.logical_not_(y, z)"])
def test_other_arguments_are_reported_without_a_fix(call: str) -> None:
    code = f"{HEADER}def f(x, y, z, args):\n    return {call}\n"
    found = rules_found(code, select=("TRT323",))
    assert found == (["TRT323"] if call != "x.logical_not_(y, z)" else [])
    assert fixed(code) == code


@pytest.mark.parametrize("call", ["x.gt(0.5)", "x > 0.5", "torch.gt(x, 0.5)", "x.add_(1)", "np.gt_(x)"])
def test_out_of_place_comparisons_and_other_methods_are_not_reported(call: str) -> None:
    assert rules_found(f"{HEADER}import numpy as np\n\n\ndef f(x):\n    return {call}\n", select=("TRT323",)) == []


# --- eager: the helper is the method, bit for bit, and writes into its input -----------------------

EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -3.0, float("inf"), float("-inf"), float("nan"), 2.0]
OPS = ("gt", "ge", "lt", "le", "eq", "ne", "logical_and", "logical_or", "logical_xor")


def _tensor(dtype: torch.dtype, shape=(2, 5)) -> torch.Tensor:
    values = torch.tensor(EDGES).view(2, 5)[: shape[0], : shape[1]] if shape[0] else torch.empty(shape)
    if dtype == torch.bool:
        return values != 0
    if not dtype.is_floating_point:
        return torch.nan_to_num(values, nan=0.0, posinf=7, neginf=-7).to(dtype)
    return values.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int32, torch.uint8, torch.bool])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("other", ["float", "int", "bool", "tensor", "row", "empty"])
def test_eager_is_the_in_place_method_bit_for_bit(dtype: torch.dtype, op: str, other: str) -> None:
    shape = (0, 5) if other == "empty" else (2, 5)
    base = _tensor(dtype, shape)
    operand = {"float": 0.5, "int": 0, "bool": True, "tensor": _tensor(torch.float32, shape).flip(0),
               "row": _tensor(dtype)[1], "empty": _tensor(torch.float32, shape)}[other]
    expected, got = base.clone(), base.clone()
    try:
        result = getattr(expected, op + "_")(operand)
    except (RuntimeError, TypeError) as error:  # torch refuses it (a number for a logical operand): so does the helper
        with pytest.raises(type(error)):
            _trt_compare_(got, op, operand)
        return
    out = _trt_compare_(got, op, operand)
    assert out is got and result is expected
    assert bits_equal(got, expected)


def test_logical_not_takes_no_operand() -> None:
    for dtype in (torch.float32, torch.int64, torch.bool):
        expected, got = _tensor(dtype), _tensor(dtype)
        expected.logical_not_()
        assert _trt_compare_(got, "logical_not") is got and bits_equal(got, expected)


# --- the graph: the original's is bool, the rewritten one's the model's type ------------------------

MODEL = HEADER + '''
class Masks(nn.Module):
    def forward(self, x):
        masks = x.sigmoid()
        keep = (x > -1).float()
        keep.logical_and_(x < 1)
        return masks.gt_(0.5), keep


class Reused(nn.Module):
    def forward(self, x):
        m = x * 1
        y = m.le_(0.25)
        return m + y * 2
'''


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            b, h = torch.export.Dim("b", min=2, max=64), torch.export.Dim("h", min=2, max=64)
            program = torch.onnx.export(model, (x,), dynamo=True, dynamic_shapes={"x": {0: b, 1: h}},
                                        input_names=["x"], verbose=False)
            graph = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 1: "h"}})
            graph = buffer.getvalue()
    return ort.InferenceSession(graph, providers=["CPUExecutionProvider"])


def _matches(code: str, name: str, tmp_path: Path, dynamo: bool) -> bool:
    model = import_source(code, tmp_path)[name]().eval()
    try:
        session = _export(model, _tensor(torch.float32), dynamo)
    except Exception:  # noqa: BLE001 - ONNX Runtime refuses an Add of a bool and a float
        return False
    for x in (_tensor(torch.float32), torch.randn(3, 7) * 2):
        expected = model(x.clone())
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = session.run(None, {"x": x.numpy()})
        if any(g.dtype != e.numpy().dtype or not bits_equal(torch.from_numpy(g), e) for g, e in zip(got, expected)):
            return False
    return True


@pytest.mark.parametrize("name", ["Masks", "Reused"])
def test_the_torchscript_graph_has_the_models_type_only_after_the_fix(tmp_path: Path, name: str) -> None:
    assert not _matches(MODEL, name, tmp_path, dynamo=False)
    assert _matches(fixed(MODEL), name, tmp_path, dynamo=False)


@pytest.mark.parametrize("name", ["Masks", "Reused"])
def test_the_dynamo_graph_stays_right(tmp_path: Path, name: str) -> None:
    assert _matches(MODEL, name, tmp_path, dynamo=True)
    assert _matches(fixed(MODEL), name, tmp_path, dynamo=True)


@pytest.mark.parametrize("name", ["Masks", "Reused"])
def test_scripted_the_rewritten_model_computes_what_the_original_does(tmp_path: Path, name: str) -> None:
    before = import_source(MODEL, tmp_path)[name]().eval()
    after = torch.jit.script(import_source(fixed(MODEL), tmp_path)[name]().eval())
    for x in (_tensor(torch.float32), torch.randn(3, 7), torch.empty(0, 4)):
        expected, got = before(x.clone()), after(x.clone())
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        assert all(bits_equal(g, e) for g, e in zip(got, expected))


ON_INPUTS = HEADER + '''
class OnInputs(nn.Module):
    """LeViT's drop-path draw given as an argument: ``rnd.ge_(rate)`` writes into a graph input."""

    def forward(self, x):
        y = x.ge_(0.25)
        keep = x < 0.5
        keep.logical_not_()
        return y * 2 + x, keep
'''


def test_a_comparison_of_a_graph_input_exports_after_the_fix(tmp_path: Path) -> None:
    """A copy into one of the graph's inputs exports as an ``aten::copy`` with no symbolic: the helper
    zeroes its receiver and adds the comparison instead (``logical_or_`` for bool), which exports."""
    model = import_source(fixed(ON_INPUTS), tmp_path)["OnInputs"]().eval()
    session = _export(model, _tensor(torch.float32), dynamo=False)
    for x in (_tensor(torch.float32), torch.rand(3, 7), torch.tensor([[0.25, float("nan"), float("inf")]])):
        expected = model(x.clone())
        got = session.run(None, {"x": x.numpy()})
        assert all(g.dtype == e.numpy().dtype and bits_equal(torch.from_numpy(g), e) for g, e in zip(got, expected))


# --- migrate: the graph's wrong type (or a graph that does not load) is traced to the comparison -------

MIGRATE_MASKS = HEADER + '''
class Net(nn.Module):
    """YOLOv5's mask decoding ends in `masks.gt_(0.5)` (utils/segment/general.py)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 1)

    def forward(self, x):
        masks = self.conv(x).sigmoid()
        return masks.gt_(0.5)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''

MIGRATE_REUSED = HEADER + '''
class Net(nn.Module):
    """The thresholded tensor read again on a later line: an Add of two bools, refused at load."""

    def forward(self, x):
        keep = x.sigmoid()
        high = keep.gt_(0.5)
        return keep + high


def build():
    return Net().eval()
'''


@pytest.mark.parametrize("code", [MIGRATE_MASKS, MIGRATE_REUSED], ids=["returned", "read-later"])
def test_migrate_fixes_the_graph(tmp_path: Path, code: str) -> None:
    path = tmp_path / "masks_model.py"
    path.write_text(code)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert [a["rule"] for a in report["applied"]] == ["TRT323"]
