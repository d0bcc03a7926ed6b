"""TRT385: XOR, AND and OR of integer tensors have no ONNX operator the TorchScript exporter writes (and TensorRT
parses no Bitwise operator).

The rewrite is checked as text (the spellings taken, chains as one finding, what is left alone: Python numbers, sizes,
bool tensors, in-place forms), then run: the helpers' exported formulation equals torch's operator over int64 and
int32 values across the whole range (MIN, MAX, -1, 0 among them), the narrow dtypes and mixed promotions, broadcast,
0-d and empty shapes and a Python int on either side; the rewritten program is the operator in eager mode and under
scripting, fx, ``torch.compile`` and ``torch.export``. Exported (one export per exporter for the file): the
original's TorchScript export stops, the rewritten graphs of both exporters hold no Bitwise node and equal torch's
operator in ONNX Runtime at sizes other than the traced one. The export errors and the graph check name TRT385.
"""

from __future__ import annotations

import collections
import io
import itertools
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.helpers.bitwise import _trt_bitwise_and, _trt_bitwise_exported, _trt_bitwise_or, _trt_bitwise_xor
from trtcodemod.migrate.locate import _rules_named
from trtcodemod.trt.check import RULES

SELECT = ("TRT385",)
OPS = ((0, torch.bitwise_xor), (1, torch.bitwise_and), (2, torch.bitwise_or))
INTEGERS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\nx = torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])\n",
     "x = _trt_bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])\n"),
    ("import torch as t\nx = t.bitwise_and(input=a, other=b)\n", "x = _trt_bitwise_and(a, b)\n"),
    ("import torch\ncode = ids.long().bitwise_or(flags << 8)\n", "code = _trt_bitwise_or(ids.long(), flags << 8)\n"),
    ("import torch\ndef f(c):\n    h = torch.zeros_like(c[..., 0])\n    h = h ^ (c[..., 0] * 3) ^ (c[..., 1] * 5)\n"
     "    return (h & 1023) % 7\n",
     "    h = _trt_bitwise_xor(_trt_bitwise_xor(h, c[..., 0] * 3), c[..., 1] * 5)\n"
     "    return (_trt_bitwise_and(h, 1023)) % 7\n"),
    ("import torch\ndef f(x: torch.Tensor):\n    return 5 ^ x\n", "    return _trt_bitwise_xor(5, x)\n"),
    ("import torch\ndef f(x: torch.Tensor, y: torch.Tensor):\n    x, y = x.long(), y.long()\n    return x | y\n",
     "    return _trt_bitwise_or(x, y)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=SELECT)
    assert after.endswith(want), after
    assert "def _trt_bitwise_bits" in after and "def _trt_onnx_exporting" in after
    assert rules_found(after, select=SELECT) == []


@pytest.mark.parametrize("code", [
    "bit = (i >> 2) & 1\n",  # Python ints
    "flags = a | b\n",  # nothing shows a tensor
    "import torch\ndef f(x: torch.Tensor):\n    return x.shape[-1] | 7, x.size(0) ^ 1, len(x) & 3\n",  # sizes
    "import torch\ndef f(x: torch.Tensor):\n    m = x > 0\n    return m | (x < -3), (x > 1) & m, x.bool() ^ m\n",
    "import torch\ndef f(x: torch.Tensor):\n    x ^= 3\n    x |= 1\n    return x.bitwise_and_(1)\n",  # in place
    "import torch\ny = torch.bitwise_xor(a, b, out=c)\n",
    "import torch\ny = torch.bitwise_xor(*pair)\n",
    "X: int | None = None\n",
    "import numpy as np\nh = np.bitwise_xor(a, b)\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=SELECT) == []


def test_the_export_failures_and_the_graph_check_name_trt385() -> None:
    assert RULES["aten::bitwise_xor"] == RULES["aten::bitwise_and"] == ("TRT385",)
    assert RULES["BitwiseXor"] == RULES["BitwiseAnd"] == RULES["BitwiseOr"] == ("TRT385",)
    for operator in ("XOR", "AND", "OR"):
        message = f"ONNX export does NOT support exporting bitwise {operator} for non-boolean input values"
        assert _rules_named(message)[0] == "TRT385"
    # A Python flag and a traced comparison (TRT732's alias-analysis error) names TRT732 alone.
    assert _rules_named("We don't have an op for aten::bitwise_and but it isn't a special case.  Argument types: "
                        "Tensor, bool, ") == ["TRT732"]


# --- the formulation: exact over the whole range ----------------------------------------------------------------

def _values(dtype: torch.dtype, n: int, generator: torch.Generator) -> torch.Tensor:
    info = torch.iinfo(dtype)
    special = torch.tensor([info.min, info.max, -1 if info.min < 0 else 1, 0, 1, info.min + 1, info.max - 1],
                           dtype=dtype)
    return torch.cat([special, torch.randint(info.min, info.max, (n,), dtype=dtype, generator=generator)])


@pytest.mark.parametrize("dtype", INTEGERS)
def test_the_exported_formulation_is_torchs_operator(dtype: torch.dtype) -> None:
    generator = torch.Generator().manual_seed(0)
    a, b = _values(dtype, 2000, generator), _values(dtype, 200, generator)
    for op, torch_op in OPS:
        for x, y in ((a[:, None], b[None, :]), (a[:1].reshape(()), b), (a[:0], b[:1]), (a[:0, None], b[:3])):
            want, got = torch_op(x, y), _trt_bitwise_exported(x, y, op)
            assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want), (dtype, op)
        for number in (5, -1, 0, 300, 2654435761, 2**62, -2**63, True):
            want = torch_op(a, number)
            for got in (_trt_bitwise_exported(a, number, op), _trt_bitwise_exported(number, a, op)):
                assert got.dtype == want.dtype and torch.equal(got, want), (dtype, op, number)


def test_mixed_promotions_and_bool_are_torchs() -> None:
    generator = torch.Generator().manual_seed(1)
    for left, right in itertools.product(INTEGERS, repeat=2):
        a, b = _values(left, 300, generator), _values(right, 300, generator)
        for op, torch_op in OPS:
            want, got = torch_op(a, b), _trt_bitwise_exported(a, b, op)
            assert got.dtype == want.dtype and torch.equal(got, want), (left, right, op)
    m, n = torch.rand(9) > 0.5, torch.rand(9) > 0.5
    for op, torch_op in OPS:
        assert torch.equal(_trt_bitwise_exported(m, n, op), torch_op(m, n))
    with pytest.raises(NotImplementedError):
        _trt_bitwise_exported(torch.ones(2), 1, 0)  # floats: torch's error


# --- eager mode and the other toolchains: the operator ---------------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, corners: torch.Tensor, flags: torch.Tensor):
        c = corners.long() * torch.tensor([1, 2654435761, 805459861])
        h = torch.bitwise_xor(c[..., 0], c[..., 1])
        h = h ^ c[..., 2]
        low = corners.int()
        return h & 524287, low.bitwise_or(flags), 7 ^ low, h | flags
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt385")
    after = rewrite(PROGRAM, select=SELECT)
    assert after.count("_trt_bitwise_xor(c") == 1 and after.count("_trt_bitwise_xor(h") == 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


EAGER_CASES = {
    "corners": [torch.randint(-2**20, 2**20, (6, 3)), torch.randint(0, 8, (6,), dtype=torch.int32)],
    "one": [torch.randint(0, 9, (1, 3)), torch.tensor([3], dtype=torch.int32)],
    "empty": [torch.zeros(0, 3, dtype=torch.int32), torch.zeros(0, dtype=torch.int32)],
    "float corners": [torch.rand(4, 3) * 100, torch.ones(4, dtype=torch.int32)],
    "float flags": [torch.randint(0, 9, (4, 3)), torch.ones(4)],  # torch's error, kept
}


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    before, after = program[0](), program[1]()
    assert_same_run(run_once(before, EAGER_CASES[label]), run_once(after, EAGER_CASES[label]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], EAGER_CASES["corners"], tmp_path, original_may_fail=True)


def test_the_helpers_script_and_trace_as_the_operator() -> None:
    x, y = torch.randint(-99, 99, (5,)), torch.randint(-99, 99, (5,))
    for helper, torch_op in ((_trt_bitwise_xor, torch.bitwise_xor), (_trt_bitwise_and, torch.bitwise_and),
                             (_trt_bitwise_or, torch.bitwise_or)):
        scripted = torch.jit.script(helper)
        for a, b in ((x, y), (x, 7), (7, x), (x.int(), 2**40)):
            want = torch_op(a, b) if isinstance(a, torch.Tensor) else torch_op(b, a)
            for got in (helper(a, b), scripted(a, b)):
                assert got.dtype == want.dtype and torch.equal(got, want)
    traced = torch.jit.trace(lambda a, b: _trt_bitwise_xor(a, b), (x, y))  # a trace alone: the operator
    assert any(node.kind() in ("aten::bitwise_xor", "aten::__xor__") for node in traced.graph.nodes())


# --- the export: one per exporter ---------------------------------------------------------------------------------------

class Hash(nn.Module):
    def __init__(self, xor, and_, or_) -> None:
        super().__init__()
        self.xor, self.and_, self.or_ = xor, and_, or_

    def forward(self, corners, flags):
        c = corners * torch.tensor([1, 2654435761, 805459861])
        h = self.xor(self.xor(c[..., 0], c[..., 1]), c[..., 2])
        low = corners.int()
        return self.and_(h, 524287), self.or_(low, flags), self.xor(7, low), self.or_(h, -2**63), self.and_(flags, -1)


def _operators() -> Hash:
    return Hash(torch.bitwise_xor, torch.bitwise_and, torch.bitwise_or)


def _helpers() -> Hash:
    return Hash(_trt_bitwise_xor, _trt_bitwise_and, _trt_bitwise_or)


def _inputs(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    corners = torch.randint(-2**40, 2**40, (n, 3), generator=generator)
    return corners, torch.randint(-2**31, 2**31 - 1, (n, 1), generator=generator).to(torch.int32)


DYNAMIC = {"corners": {0: "n"}, "flags": {0: "n"}}


def _torchscript_export(model: nn.Module) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, _inputs(5, 0), buffer, dynamo=False, opset_version=17,
                          input_names=["corners", "flags"], dynamic_axes=DYNAMIC)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def graphs() -> dict[str, bytes]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = torch.export.Dim("n")
        dynamo = torch.onnx.export(_helpers(), _inputs(5, 0), dynamo=True, verbose=False,
                                   dynamic_shapes=({0: n}, {0: n})).model_proto.SerializeToString()
    return {"torchscript": _torchscript_export(_helpers()), "dynamo": dynamo}


def test_the_originals_torchscript_export_stops() -> None:
    with pytest.raises(Exception, match="bitwise") as error:
        _torchscript_export(_operators())
    assert _rules_named(str(error.value))[0] == "TRT385"


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_the_rewritten_graph_has_no_bitwise_node_and_equals_torch(graphs: dict[str, bytes], exporter: str) -> None:
    model = onnx.load_from_string(graphs[exporter])
    ops = collections.Counter(node.op_type for node in model.graph.node)
    assert not {op for op in ops if op.startswith("Bitwise") or op == "ATen"}, ops
    session = ort.InferenceSession(graphs[exporter], providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for n, seed in ((5, 1), (1, 2), (37, 3), (0, 4)):
        corners, flags = _inputs(n, seed)
        got = session.run(None, dict(zip(names, (corners.numpy(), flags.numpy()))))
        for value, want in zip(got, _operators()(corners, flags)):
            assert value.dtype == want.numpy().dtype and np.array_equal(value, want.numpy()), (exporter, n)
