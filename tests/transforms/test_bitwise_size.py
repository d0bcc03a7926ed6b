"""TRT732 (``|``, ``&``, ``^``, ``<<``, ``>>`` on a tensor size): arithmetic while tracing.

The rewrite text (MONAI's ``divisible_pad_t``, shifts, a chain, what is left), the helper against
Python's operators (eager: the operator itself; the traced formulation on 0-d integer tensors over
negative, zero and large values and constants), the export with both exporters (the original stops
at ``bitwise OR`` with the TorchScript exporter; the rewritten graph follows the sizes in ONNX
Runtime), and migrate on a small model.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.sizes import _trt_size_bitwise, _trt_size_bitwise_traced
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
import torch.nn.functional as F
from torch import Tensor


def divisible_pad_t(x: Tensor, k: int = 16):
    b, c, h, w = x.shape
    w_mult = ((w - 1) | (k - 1)) + 1
    h_mult = ((h - 1) | (k - 1)) + 1
    return F.pad(x, (0, w_mult - w, 0, h_mult - h))


class Net(torch.nn.Module):
    def forward(self, x, y):
        half = x.shape[-1] >> 1
        odd = x.size(1) & 1 | 2
        both = x | y            # tensors: not sizes
        flags = 3 | 4           # numbers
        return divisible_pad_t(x[..., :half] * 1.0), odd, both, flags
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert "w_mult = ((w - 1) | (k - 1)) + 1" in SOURCE
    assert rules_found(SOURCE, select=("TRT732",)) == ["TRT732"] * 4
    assert "_trt_" not in rewrite(SOURCE, select=("TRT732",))  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT732",), unsafe=True))
    assert 'w_mult = (_trt_size_bitwise("|", w - 1, k - 1)) + 1' in after
    assert 'h_mult = (_trt_size_bitwise("|", h - 1, k - 1)) + 1' in after
    assert 'half = _trt_size_bitwise(">>", x.shape[-1], 1)' in after
    assert 'odd = _trt_size_bitwise("|", _trt_size_bitwise("&", x.size(1), 1), 2)' in after  # a chain: one finding
    assert "both = x | y" in after and "flags = 3 | 4" in after
    once = rewrite(SOURCE, select=("TRT732",), unsafe=True)
    assert rewrite(once, select=("TRT732",), unsafe=True) == once
    inplace = "import torch\ndef f(x: torch.Tensor):\n    w = x.shape[0]\n    w |= 7\n    return w\n"
    assert rules_found(inplace, select=("TRT732",)) == []


NUMBERS = [*range(-70, 71), 2**40 + 5, -(2**40) - 3, 2**62 - 1]
CONSTANTS = [*range(-40, 41), 2**20 - 1, 2**33, -(2**33) + 7]


@pytest.mark.parametrize("op", ["|", "&", "^"])
def test_the_traced_formulation_is_the_operator(op) -> None:
    python = {"|": lambda a, b: a | b, "&": lambda a, b: a & b, "^": lambda a, b: a ^ b}[op]
    for a in NUMBERS:
        t = torch.tensor(a)
        for c in CONSTANTS:
            want = python(a, c)
            assert _trt_size_bitwise(op, a, c) == want and type(_trt_size_bitwise(op, a, c)) is int  # eager
            got, flipped = _trt_size_bitwise_traced(op, t, c), _trt_size_bitwise_traced(op, c, t)
            assert got.dtype == torch.int64 and got.dim() == 0
            assert int(got) == want and int(flipped) == want, (op, a, c)


def test_the_traced_shifts_and_what_keeps_the_operator() -> None:
    for a in NUMBERS[:-1]:
        for n in range(0, 21):
            assert int(_trt_size_bitwise_traced("<<", torch.tensor(a), n)) == a << n
            assert int(_trt_size_bitwise_traced(">>", torch.tensor(a), n)) == a >> n
    # eager: whatever the operator does, errors included
    assert _trt_size_bitwise("|", {1}, {2}) == {1, 2}
    assert _trt_size_bitwise("&", True, False) is False
    mask = torch.tensor([True, False])
    assert torch.equal(_trt_size_bitwise("|", mask, torch.tensor([False, False])), mask)
    with pytest.raises(TypeError):
        _trt_size_bitwise("|", 1.5, 2)
    with pytest.raises(ValueError, match="negative shift"):
        _trt_size_bitwise(">>", 4, -1)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(SOURCE, select=("TRT732",), unsafe=True), tmp_path_factory.mktemp("after"))
    return before, after


def test_eager_mode_is_the_original(programs) -> None:
    before, after = programs
    for shape in [(1, 3, 5, 50), (2, 1, 16, 16), (1, 1, 1, 1), (0, 2, 3, 9), (1, 2, 17, 2)]:
        for values in ("random", "zeros", "negative"):
            x = torch.randn(*shape) if values == "random" else torch.zeros(*shape)
            if values == "negative":
                x = -torch.rand(*shape) - 1
            y = torch.zeros(shape, dtype=torch.int64)
            ints = (x * 10).to(torch.int64)
            assert_same_run(run_once(before["Net"](), [ints, y]), run_once(after["Net"](), [ints, y]), context=str(shape))
            assert_same_run(run_once(before["divisible_pad_t"], [x.requires_grad_(True)]),
                            run_once(after["divisible_pad_t"], [x.detach().requires_grad_(True)]), context=str(shape))
    for k in (1, 8, 5, 32):  # 5: not a power of two, the same bits either way
        x = torch.randn(1, 2, 9, 13)
        assert torch.equal(before["divisible_pad_t"](x, k), after["divisible_pad_t"](x, k))


class _Pad(torch.nn.Module):
    def __init__(self, fn, k=16) -> None:
        super().__init__()
        self.fn, self.k = fn, k

    def forward(self, x):
        return self.fn(x, self.k)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_export_follows_the_sizes(programs, dynamo) -> None:
    before, after = programs
    example = torch.randn(1, 2, 20, 50)

    def export(fn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if dynamo:
                dims = {"x": {2: torch.export.Dim("h", min=2, max=512), 3: torch.export.Dim("w", min=2, max=512)}}
                return torch.onnx.export(_Pad(fn), (example,), dynamo=True, input_names=["x"], dynamic_shapes=dims,
                                         verbose=False).model_proto
            buffer = io.BytesIO()
            torch.onnx.export(_Pad(fn), (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
            return onnx.load_from_string(buffer.getvalue())

    if not dynamo:
        with pytest.raises(Exception, match="bitwise OR"):
            export(before["divisible_pad_t"])
    graph = export(after["divisible_pad_t"])
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for h, w in [(20, 50), (16, 16), (17, 33), (2, 3), (31, 64)]:  # other sizes than the example's
        x = torch.randn(1, 2, h, w)
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        assert torch.equal(got, before["divisible_pad_t"](x)), (h, w)


MODEL = '''
import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h, w = x.shape[-2:]
        padded = F.pad(x, (0, ((w - 1) | 7) + 1 - w, 0, ((h - 1) | 7) + 1 - h))
        return self.conv(padded)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "bitwise_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT732", "TRT732"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert '_trt_size_bitwise("|", w - 1, 7)' in report["diff"]


# --- a Python flag combined with a comparison of sizes (YOLOv5/YOLOv7 `non_max_suppression`) ---------------

#: `multi_label &= nc > 1`: `nc` is a size (the class axis), the comparison a traced 0-d bool tensor, and
#: `bool & Tensor` records `aten::bitwise_and(Tensor, bool)`: the TorchScript exporter stops in alias analysis.
FLAG = '''
import torch
from torch import Tensor


def decode(prediction: Tensor, multi_label: bool = False, wide: bool = True):
    nc = prediction.shape[2] - 5
    multi_label &= nc > 1
    wide = wide | (prediction.shape[1] > 3)
    scale = 2.0 if wide else 1.0
    if multi_label:
        return prediction[..., 5:] * prediction[..., 4:5] * scale
    return prediction[..., 5:].amax(-1, keepdim=True) * scale


class Net(torch.nn.Module):
    def __init__(self, multi_label: bool) -> None:
        super().__init__()
        self.multi_label = multi_label

    def forward(self, x):
        return decode(x, self.multi_label)
'''


def test_a_flag_and_a_size_comparison_rewrite_text_and_what_is_left() -> None:
    assert rules_found(FLAG, select=("TRT732",)) == ["TRT732"] * 2
    after = rewrite(FLAG, select=("TRT732",), unsafe=True)
    assert "    multi_label &= bool(nc > 1)\n" in after
    assert "    wide = wide | (bool(prediction.shape[1] > 3))\n" in after
    assert rewrite(FLAG, select=("TRT732",)) == FLAG  # unsafe: nothing without --unsafe
    assert rewrite(after, select=("TRT732",), unsafe=True) == after
    left = [
        "def f(x: Tensor, y: Tensor):\n    keep = (x.shape[0] > 1) & (y.shape[0] > 1)\n    return keep\n",  # two traced
        "def f(x: Tensor, m: Tensor):\n    m &= x.shape[0] > 1\n    return m\n",  # a tensor flag
        "def f(x: Tensor, a: int):\n    a &= a > 1\n    return a\n",  # no size compared
    ]
    for code in left:
        assert "TRT732" not in rules_found("import torch\nfrom torch import Tensor\n\n\n" + code, select=("TRT732",))


@pytest.mark.parametrize("multi_label", [False, True])
def test_a_flag_and_a_size_comparison_eager_and_export(tmp_path, multi_label: bool) -> None:
    before = import_source(FLAG, tmp_path)["Net"](multi_label)
    after = import_source(rewrite(FLAG, select=("TRT732",), unsafe=True), tmp_path)["Net"](multi_label)
    # Class axes of 1, 2 and 3 (`nc` 0 decides the flag off), rows with zeros, infinities and a NaN.
    for shape in [(1, 4, 6), (2, 3, 8), (1, 0, 7), (2, 5, 5)]:
        x = torch.randn(shape)
        x.view(-1)[:4] = torch.tensor([0.0, -0.0, float("inf"), float("nan")])[: x.numel()]
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=str(shape))

    def export(model) -> bytes:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 6, 8),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "b", 1: "n"}})
        return buffer.getvalue()

    with pytest.raises(Exception, match="bitwise_and|bitwise_or"):
        export(before)
    session = ort.InferenceSession(export(after))
    for shape in [(1, 6, 8), (3, 11, 8)]:  # the example's size and another batch and row count
        x = torch.randn(shape)
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        assert torch.equal(got, before(x)), shape


FLAG_MODEL = '''
import torch
from torch import nn


def decode(prediction, multi_label=False):
    nc = prediction.shape[2] - 5  # number of classes
    multi_label &= nc > 1
    if multi_label:
        return prediction[..., 5:] * prediction[..., 4:5]
    return prediction[..., 5:].amax(-1, keepdim=True)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)

    def forward(self, x):
        return decode(self.conv(x).flatten(2).transpose(1, 2), True)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_names_the_flag_for_the_export_failure_without_a_line(tmp_path) -> None:
    """The export stops in alias analysis with no user frame; the error names `aten::bitwise_and` with a
    Python bool, which is TRT732's: migrate tries the rewrite and verifies it."""
    path = tmp_path / "flag_model.py"
    path.write_text(FLAG_MODEL)
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is False
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT732", 8)]
    assert "multi_label &= bool(nc > 1)" in report["diff"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert exit_code == 0, report["remaining"]
