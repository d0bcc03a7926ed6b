"""TRT702's unsafe rewrite: ``.item()`` dropped where its number only feeds arithmetic.

Shown as a rewrite, then run before and after on real tensors (ordinary values, zeros,
negatives, inf/NaN, float16, an empty tensor that raises in both) and compared: the same
values to rounding and the same dtype, while the exported graph now follows the input.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite

BEFORE = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        shifted = x - x.mean().item() * 0.5
        return shifted / (peak + 1.0)
'''

KEPT = [
    # The number is read by something other than arithmetic: not rewritten.
    "peak = x.abs().max().item()\n        print(f'{peak:.3f}')\n        return x / peak\n",
    "peak = x.abs().max().item()\n        return x[: int(peak)] / peak\n",
    "peak = x.abs().max().item()\n        peak = 2.0\n        return x / peak\n",
    "return torch.full((2,), x.sum().item())\n",
]


def test_the_rewrite_drops_item_only_before_arithmetic() -> None:
    after = rewrite(BEFORE, unsafe=True, select=("TRT702",))
    assert "peak = x.abs().max()\n" in after and "x - x.mean() * 0.5" in after
    assert rewrite(BEFORE, select=("TRT702",)) == BEFORE  # unsafe: not without --unsafe
    head = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        "
    for body in KEPT:
        assert rewrite(head + body, unsafe=True, select=("TRT702",)) == head + body, body


INPUTS = [torch.randn(3, 4), torch.zeros(2, 2), -torch.rand(5), torch.tensor([1.0, float("inf"), -2.0]),
          torch.tensor([float("nan"), 1.0]), torch.randn(4, 4).half()]


@pytest.mark.parametrize("x", INPUTS, ids=["random", "zeros", "negative", "inf", "nan", "float16"])
def test_before_and_after_agree_on_values_and_dtype(tmp_path: Path, x: torch.Tensor) -> None:
    before = import_source(BEFORE, tmp_path)["M"]()
    after = import_source(rewrite(BEFORE, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    expected, got = before(x.clone()), after(x.clone())
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tolerance = {"rtol": 1e-3, "atol": 1e-3} if x.dtype == torch.float16 else {"rtol": 1e-6, "atol": 1e-7}
    torch.testing.assert_close(got, expected, equal_nan=True, **tolerance)


def test_an_empty_input_raises_in_both(tmp_path: Path) -> None:
    before = import_source(BEFORE, tmp_path)["M"]()
    after = import_source(rewrite(BEFORE, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    for model in (before, after):
        with pytest.raises(RuntimeError):
            model(torch.zeros(0))


def test_the_rewritten_export_follows_the_input(tmp_path: Path) -> None:
    after = import_source(rewrite(BEFORE, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    before = import_source(BEFORE, tmp_path)["M"]()
    feeds = [torch.randn(6) * 10, torch.randn(6) * 0.1]
    for model, follows in ((after, True), (before, False)):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(6),), buffer, dynamo=False, input_names=["x"])
        session = ort.InferenceSession(buffer.getvalue())
        same = [torch.allclose(torch.from_numpy(session.run(None, {"x": f.numpy()})[0]), model(f), atol=1e-5)
                for f in feeds]
        assert all(same) is follows


# --- an item inside a math function torch has too ----------------------------------------------

MATH = '''\
import math

import torch
from torch import nn


class Decay(nn.Module):
    def __init__(self):
        super().__init__()
        self.tau = 2.0

    def forward(self, x, stamps):
        gap = (stamps[1] - stamps[0]).abs()
        weight = math.exp(-gap.item() / self.tau)
        spread = math.sqrt(gap.item())
        whole = math.floor(gap.item())
        nested = math.exp(math.log(gap.item() + 1.0))
        return x * weight + spread + whole + nested
'''


def test_math_of_an_item_becomes_the_torch_function() -> None:
    after = rewrite(MATH, unsafe=True, select=("TRT702",))
    assert "weight = torch.exp(-gap / self.tau)" in after and "spread = torch.sqrt(gap)" in after
    # math.floor gives an int (torch.floor a float tensor); a nested math call would read the
    # inner tensor back: both stay, reported.
    assert "whole = math.floor(gap.item())" in after and "math.exp(math.log(gap.item() + 1.0))" in after
    assert rewrite(MATH, select=("TRT702",)) == MATH
    aliased = MATH.replace("import torch\n", "import torch as th\n").replace("torch.Tensor", "th.Tensor")
    assert "weight = th.exp(-gap / self.tau)" in rewrite(aliased, unsafe=True, select=("TRT702",))


STAMPS = [torch.tensor([1.7e9, 1.7e9 + 0.25], dtype=torch.float64), torch.tensor([5.0, 5.0], dtype=torch.float64),
          torch.tensor([3.0, -1.0], dtype=torch.float64), torch.tensor([0.0, -0.0], dtype=torch.float64)]


@pytest.mark.parametrize("stamps", STAMPS, ids=["epoch", "zero-gap", "negative", "signed-zero"])
def test_math_rewrite_agrees_on_values_and_dtype(tmp_path: Path, stamps: torch.Tensor) -> None:
    before = import_source(MATH, tmp_path)["Decay"]()
    after = import_source(rewrite(MATH, unsafe=True, select=("TRT702",)), tmp_path)["Decay"]()
    x = torch.tensor([0.0, -1.5, 2.0, float("inf")])
    if stamps[0] > stamps[1]:
        stamps = stamps.flip(0)  # math.log of a negative gap + 1 raises; torch would give NaN
    expected, got = before(x, stamps), after(x, stamps)
    assert got.dtype == expected.dtype == torch.float32  # a 0-d float64 does not promote x
    torch.testing.assert_close(got, expected, rtol=1e-6, atol=0, equal_nan=True)


def test_math_rewrite_export_follows_the_stamps(tmp_path: Path) -> None:
    code = (MATH.replace("        whole = math.floor(gap.item())\n", "")
            .replace("        nested = math.exp(math.log(gap.item() + 1.0))\n", "")
            .replace(" + whole + nested", ""))
    before = import_source(code, tmp_path)["Decay"]()
    after = import_source(rewrite(code, unsafe=True, select=("TRT702",)), tmp_path)["Decay"]()
    x = torch.tensor([1.0, -2.0, 0.0])
    results = []
    for model in (before, after):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x, STAMPS[0]), buffer, dynamo=False, input_names=["x", "stamps"])
        session = ort.InferenceSession(buffer.getvalue())
        other = STAMPS[2]
        feeds = {"x": x.numpy(), "stamps": other.numpy()}
        # The original's graph may not even take the stamps: the trace folded them into a constant.
        graph = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0]
        results.append(torch.allclose(torch.from_numpy(graph), model(x, other), rtol=1e-5))
    assert results == [False, True]  # the original's graph kept the example's weight


# --- slice bounds and torch.arange; a call that wants a number -------------------------------

BOUNDS = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask):
        max_len = (mask != 0).sum(1).max().item()
        cut = x[:, :max_len] * mask[:, :max_len]
        steps = torch.arange(mask.sum(0).max().item() + 1)
        n_t, n_w = (mask.shape[0] + mask[0].max().item() // 2, mask.sum().item() // 3)
        return cut.sum(1) + steps.sum() + torch.arange(n_t).sum() + n_w
'''

#: Where a 0-d tensor does not stand for the number: a call that wants one gets it (directly or
#: through arithmetic and a name), or a subscript (a 0-d index tensor is advanced indexing: a copy).
NUMBER_WANTED = [
    "m = x.min().item() - 1.0\n        return torch.full((2,), fill_value=m)\n",
    "return torch.full((2,), x.min().item() - 1.0)\n",
    "n = x.sum().item()\n        return x[: n] + sum(range(n // 2))\n",
    "n = x.sum().item()\n        return x[n]\n",
]


def test_slice_bounds_and_arange_take_the_tensor() -> None:
    after = rewrite(BOUNDS, unsafe=True, select=("TRT702",))
    assert "max_len = (mask != 0).sum(1).max()\n" in after
    assert "steps = torch.arange(mask.sum(0).max() + 1)" in after
    assert "(mask.shape[0] + mask[0].max() // 2, mask.sum() // 3)" in after
    assert ".item()" not in after
    head = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        "
    for body in NUMBER_WANTED:
        assert rewrite(head + body, unsafe=True, select=("TRT702",)) == head + body, body


MASKS = [torch.tensor([[1, 1, 0, 0], [1, 0, 0, 0]]), torch.zeros(2, 4, dtype=torch.long),
         torch.ones(3, 4, dtype=torch.long), torch.zeros(0, 4, dtype=torch.long)]


@pytest.mark.parametrize("mask", MASKS, ids=["padded", "all-padding", "no-padding", "empty"])
def test_bounds_rewrite_runs_as_the_original(tmp_path: Path, mask: torch.Tensor) -> None:
    before = import_source(BOUNDS, tmp_path)["M"]()
    after = import_source(rewrite(BOUNDS, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    x = torch.tensor([[1.0, -2.0, float("inf"), 0.0]]).expand(mask.shape[0], 4)
    try:
        expected = before(x, mask)
    except RuntimeError:  # max() of an empty mask
        with pytest.raises(RuntimeError):
            after(x, mask)
        return
    got = after(x, mask)
    assert got.dtype == expected.dtype and torch.equal(got, expected)


def test_the_rewritten_bounds_export_follows_the_mask(tmp_path: Path) -> None:
    code = BOUNDS.replace("        n_t, n_w = (mask.shape[0] + mask[0].max().item() // 2, mask.sum().item() // 3)\n",
                          "").replace(" + torch.arange(n_t).sum() + n_w", "")
    results = []
    for source in (code, rewrite(code, unsafe=True, select=("TRT702",))):
        model = import_source(source, tmp_path)["M"]()
        x, mask = torch.randn(2, 6), torch.tensor([[1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]])
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x, mask), buffer, dynamo=False, input_names=["x", "mask"])
        session = ort.InferenceSession(buffer.getvalue())
        other = torch.tensor([[1, 1, 1, 1, 1, 0], [1, 0, 0, 0, 0, 0]])
        feeds = {"x": x.numpy(), "mask": other.numpy()}
        got = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0]
        want = model(x, other)
        results.append(got.shape == tuple(want.shape) and torch.allclose(torch.from_numpy(got), want))
    assert results == [False, True]  # the original's graph kept the example's lengths
