"""TRT369: a stereo cost volume written plane by plane over shifted columns, each plane at full width.

The rewrite is checked as text (the guarded form, a range from 1, ``...`` slices, names assigned in the block,
a volume written without a shifted target) and for what it refuses, with its reason: a convolution, a matrix
product, a reduction over the columns in the plane's computation (in the block or in a function of the module it
calls), ``:-i`` where ``i`` may be 0, other slices of ``i``, a name read after the loop at its sliced width, a
statement other than an assignment. The helpers equal the slices they replace at every shift, the width and past
it. The program runs the same in eager mode on real tensors at widths below, at and above the disparity range
(zeros, negatives, inf/NaN, gradients), under scripting, fx, ``torch.compile`` and ``torch.export``; its
TorchScript export fails in ONNX Runtime at a narrow width before and equals eager mode at every width after.
Real code: ``tests/recipe_variants/trt369/`` (tests/transforms/variants/test_recipe_variants_trt369.py).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.engine import Options, fix_source
from trtcodemod.helpers.shifting import _trt_shift_right, _trt_where_from

HEAD = "import torch\n\n\ndef f(ref, tgt, volume, D: int):\n"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, select=("TRT369",), unsafe=True)


def _messages(code: str) -> list[str]:
    result = fix_source(code.encode(), "snippet.py", Options(select=("TRT369",), unsafe=True))
    return [f.message for f in result.findings]


@pytest.mark.parametrize(("body", "want"), [
    ("    for i in range(D):\n"
     "        if i > 0:\n"
     "            volume[:, :, i, :, i:] = (ref[:, :, :, i:] * tgt[:, :, :, :-i]).mean(dim=1, keepdim=True)\n"
     "        else:\n"
     "            volume[:, :, i, :, :] = (ref * tgt).mean(dim=1, keepdim=True)\n",
     "            volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], (ref * _trt_shift_right(tgt, i, 3))"
     ".mean(dim=1, keepdim=True), i, 3)\n"),
    ("    for d in range(1, D):\n        volume[:, d, :, d:] = (ref[..., d:] - tgt[..., :-d]).abs().sum(1)\n",
     "        volume[:, d, :, :] = _trt_where_from(volume[:, d, :, :], (ref - _trt_shift_right(tgt, d, -1)).abs()"
     ".sum(1), d, 2)\n"),
    ("    for i in range(D):\n        if 0 < i:\n            a = ref[:, :4, :, i:]\n            b = tgt[:, :4, :, :-i]\n"
     "            volume[:, :, i, :, i:] = torch.cat((a, b), dim=1)\n",
     "            a = ref[:, :4, :, :]\n            b = _trt_shift_right(tgt[:, :4, :, :], i, 3)\n"
     "            volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], torch.cat((a, b), dim=1), i, 3)\n"),
    ("    for i in range(D):\n        volume[:, :, i, :, i:] = ref[:, :, :, i:]\n",  # i == 0 is the whole map
     "        volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], ref, i, 3)\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert want in after, after
    assert "def _trt_where_from(" in after and ("_trt_shift_right(" not in want or "def _trt_shift_right(" in after)
    assert rules_found(after, select=("TRT369",)) == []


def _guarded(value: str, extra: str = "") -> str:
    return ("    for i in range(D):\n        if i > 0:\n" + extra
            + f"            volume[:, :, i, :, i:] = {value}\n        else:\n            volume[:, :, i] = ref * tgt\n")


@pytest.mark.parametrize(("body", "reason"), [
    (_guarded("torch.conv2d(ref[:, :, :, i:] * tgt[:, :, :, :-i], w)"), "not column-local: `torch.conv2d`"),
    (_guarded("ref[:, :, :, i:] @ tgt[:, :, :, :-i]"), "not column-local: a matrix product `@`"),
    (_guarded("(ref[:, :, :, i:] * tgt[:, :, :, :-i]).softmax(dim=-1)"), "over the last axis"),
    (_guarded("(ref[:, :, :, i:] * tgt[:, :, :, :-i]).mean()"), "over the last axis"),
    (_guarded("self.pool(ref[:, :, :, i:] - tgt[:, :, :, :-i])"), "not column-local: `self.pool`"),
    (_guarded("ref[:, :, :, i:] - tgt[:, :, :, 1:-i]"), "other than `i:` or `:-i`"),
    (_guarded("ref[:, :, :, i:] - tgt[:, :, 0, :-i]"), "beside an integer index"),
    (_guarded("(ref[:, :, :, i:] * tgt[:, :, :, :-i]).view(1, 2, 2, 3, 5 - i).mean(dim=2)"),
     "outside its slices (a size such as `W - i`)"),
    ("    for i in range(D):\n        volume[:, :, i, :, i:] = ref[:, :, :, i:] - tgt[:, :, :, :-i]\n",
     "where `i` may be 0"),
    ("    for i in range(D):\n        if i > 0:\n            x = ref[:, :, :, i:] * tgt[:, :, :, :-i]\n"
     "            volume[:, :, i, :, i:] = x\n    return x\n", "`x`, assigned from shifted columns, is read outside"),
    ("    x = ref\n    for i in range(D):\n        if i > 0:\n            y = x[:, :, :, i:] * tgt[:, :, :, :-i]\n"
     "            x = y\n            volume[:, :, i, :, i:] = y\n",
     "`x` is read before the block assigns it"),
    ("    for i in range(D):\n        if i > 0:\n            print(i)\n            volume[:, :, i, :, i:] = ref[..., i:]\n",
     "a statement other than one assignment"),
])
def test_refusals_say_why(body: str, reason: str) -> None:
    code = HEAD + body
    [message] = _messages(code)
    assert "not rewritten" in message and reason in message, message
    assert _fixed(body) == code


def test_a_function_of_the_module_is_read() -> None:
    """The plane's function is read a few calls deep: a convolution there refuses, a channel mean does not."""
    called = ("def corr(a, b):\n    return inner(a, b)\n\n\ndef inner(a, b):\n    return {}\n\n\n")
    loop = ("def f(ref, tgt, volume, D: int):\n    for i in range(D):\n        if i > 0:\n"
            "            volume[:, :, i, :, i:] = corr(ref[:, :, :, i:], tgt[:, :, :, :-i])\n")
    [refused] = _messages("import torch\n\n\n" + called.format("torch.nn.functional.avg_pool2d(a * b, 3)") + loop)
    assert "not column-local: `torch.nn.functional.avg_pool2d`" in refused, refused
    [taken] = _messages("import torch\n\n\n" + called.format("(a * b).mean(dim=1)") + loop)
    assert "not rewritten" not in taken


def test_other_code_is_left_alone() -> None:
    for body in ("    for i in range(D):\n        volume[:, :, i] = ref[:, :, :, i:i + 1]\n",
                 "    for i in range(D):\n        volume[:, :, i, :, :-i] = ref[:, :, :, :-i]\n",
                 "    for i in D:\n        volume[:, :, i, :, i:] = ref[:, :, :, i:]\n"):
        assert rules_found(HEAD + body, select=("TRT369",)) == []


@pytest.mark.parametrize("shift", [0, 1, 3, 5, 6, 9])
def test_the_helpers_are_the_slices(shift: int) -> None:
    x = torch.randn(2, 3, 4, 6)
    x[0, 0, 0, :3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    shifted = _trt_shift_right(x, shift, 3)
    want = torch.zeros_like(x)
    if shift < 6:
        want[..., shift:] = x[..., :6 - shift]
    assert torch.equal(shifted.nan_to_num(), want.nan_to_num()) and torch.equal(shifted.isnan(), want.isnan())
    assert torch.equal(_trt_shift_right(x, shift, -1).nan_to_num(), shifted.nan_to_num())
    old = torch.full((2, 5, 4, 6), 7.0)
    value = torch.full((2, 1, 4, 6), float("nan"))
    written = old.clone()
    written[..., shift:] = value[..., shift:]
    got = _trt_where_from(old, value, shift, 3)
    assert torch.equal(got.nan_to_num(), written.nan_to_num()) and torch.equal(got.isnan(), written.isnan())
    assert torch.equal(_trt_where_from(old[0], value[0], shift, -1).nan_to_num(), got[0].nan_to_num())
    scripted_shift, scripted_where = torch.jit.script(_trt_shift_right), torch.jit.script(_trt_where_from)
    assert torch.equal(scripted_shift(x, shift, 3).nan_to_num(), shifted.nan_to_num())
    assert torch.equal(scripted_where(old, value, shift, 3).nan_to_num(), got.nan_to_num())


PROGRAM = """import torch
from torch import nn


def correlation(fea1, fea2, groups: int):
    b, c, h, w = fea1.shape
    return (fea1 * fea2).view(b, groups, c // groups, h, w).mean(dim=2)


class M(nn.Module):
    def forward(self, x):
        ref, tgt = x[:, :4], x[:, 4:]
        b, c, h, w = ref.shape
        volume = ref.new_zeros(b, 2 + 2 * c, 6, h, w)
        for i in range(6):
            if i > 0:
                volume[:, :2, i, :, i:] = correlation(ref[:, :, :, i:], tgt[:, :, :, :-i], 2)
                volume[:, 2:2 + c, i, :, i:] = ref[:, :, :, i:]
                volume[:, 2 + c:, i, :, i:] = tgt[:, :, :, :-i]
            else:
                volume[:, :2, i, :, :] = correlation(ref, tgt, 2)
                volume[:, 2:2 + c, i, :, :] = ref
                volume[:, 2 + c:, i, :, :] = tgt
        return volume
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt369")
    after = rewrite(PROGRAM, select=("TRT369",), unsafe=True)
    assert after.count("_trt_where_from(volume") == 3 and after.count("_trt_shift_right(tgt, i, 3)") == 2, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


def _edge(label: str) -> torch.Tensor:
    width = {"narrow": 1, "below": 5, "at": 6, "above": 9}.get(label, 7)
    x = torch.randn(2, 8, 3, width, generator=torch.Generator().manual_seed(width))
    if label == "zeros":
        return torch.zeros_like(x)
    if label == "negatives":
        return -x.abs() - 1
    if label == "inf-nan":
        x[0, 0, 0, :3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        x[1, 5, 2, 4] = float("nan")
    return x


@pytest.mark.parametrize("label", ["narrow", "below", "at", "above", "zeros", "negatives", "inf-nan"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    before, after = program[0](), program[1]()
    x = _edge(label)
    for given in ([x], [x.clone().requires_grad_()]):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [_edge("below")], tmp_path, original_may_fail=True)


def _session(model: nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (_edge("above"),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_export_runs_at_every_width_only_after(program: tuple[type, type]) -> None:
    before, after = program[0](), program[1]()
    with pytest.raises(Exception, match="Reshape|ScatterND|zero"):
        _session(before).run(None, {"x": _edge("below").numpy()})
    session = _session(after)
    for label in ("narrow", "below", "at", "above", "zeros", "negatives", "inf-nan"):
        x = _edge(label)
        [got] = session.run(None, {"x": x.numpy()})
        want = before(x).numpy()
        assert got.shape == want.shape and np.allclose(got, want, atol=1e-6, equal_nan=True), label


def test_a_name_read_before_the_loop_only_is_the_blocks_own() -> None:
    """``x`` is read before the loop (the input) and assigned in the block: the loop's writes come later."""
    body = ("    x = ref + 1\n    for i in range(D):\n        if i > 0:\n            x = ref[:, :, :, i:] * tgt[:, :, :, :-i]\n"
            "            volume[:, :, i, :, i:] = x\n    return volume\n")
    after = _fixed(body)
    assert "            x = ref * _trt_shift_right(tgt, i, 3)\n" in after, after
