"""TRT702's unsafe rewrites: ``.item()`` dropped where its number only feeds arithmetic, and a
``.tolist()`` whose list a call reads as sizes given to the trace as its elements (below).

Shown as a rewrite, then run before and after on real tensors (ordinary values, zeros,
negatives, inf/NaN, float16, an empty tensor that raises in both) and compared: the same
values to rounding and the same dtype, while the exported graph now follows the input.
"""

from __future__ import annotations

import io
import textwrap
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, import_source, run_once
from snippets import HEADER, export_session, found, messages
from support import assert_same, load, onnx_ops, rewrite, rules_found

from trtcodemod.helpers.tracing import _trt_tolist


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


# --- TRT702 and TRT704: findings, TRT704's rewrite and the premises checked by export --------


MODULE_702 = """
class Head(nn.Module):
    def forward(self, logits, boxes, k: int, ratio: float = 0.5):
        peak = logits.max().item()
        rows = boxes.tolist()
        arr = boxes.cpu().numpy()
        n = int(logits)
        total = torch.sum(boxes)
        t = float(total)
        s = float(boxes.max() / 2)
        return self._decode(logits), peak, rows, arr, n, t, s

    def _decode(self, logits):
        return logits.argmax().item()
"""


def test_tensor_to_python_positives() -> None:
    assert found(MODULE_702) == ["TRT702"] * 7


def test_tensor_to_python_negatives() -> None:
    code = """
    class Head(nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale
            self.steps = torch.tensor([8, 16]).tolist()

        def forward(self, x, xs, k: int, mode="bilinear"):
            a = int(x.shape[0]) + int(len(xs)) + int(k) + int(mode == "bilinear")
            b = float(self.scale) + self.logit_scale.exp().item()
            n = x.size(0)
            c = int(n)
            if self.training:
                loss = x.mean().item()
            if not torch.jit.is_tracing():
                print(x.sum().item())
            return x * a * b * c

        def summary(self, x):
            return x.mean().item()  # not reached from forward

    class Tracker:
        def forward(self, x):
            return x.item()  # not a module
    """
    assert found(code, "TRT702") == []


def test_tensor_to_python_local_reassigned_to_number() -> None:
    code = """
    class Head(nn.Module):
        def forward(self, x):
            n = torch.sum(x)
            n = 3
            return x * float(n)
    """
    assert found(code) == []


def test_item_premise_export_bakes_the_value() -> None:
    """The exported graph keeps the traced example's `.item()` value: wrong on a second input."""
    code = """
    import torch
    from torch import nn

    class Normalize(nn.Module):
        def forward(self, x):
            peak = x.abs().max().item()
            return x / peak
    """
    model = load(code, "Normalize")()
    session = export_session(model, (torch.ones(4) * 2,), ["x"])
    second = torch.tensor([1.0, -8.0, 4.0, 0.5])
    (result,) = session.run(None, {"x": second.numpy()})
    assert not np.allclose(result, model(second).numpy())  # divided by 2, not by 8
    assert np.allclose(result, (second / 2).numpy())
    assert rules_found(code) == ["TRT702"]


MODULE_704 = """
import torch
from torch import Tensor, nn


class RoiHead(nn.Module):
    def forward(self, rois: Tensor, extra: torch.Tensor):
        rois = rois.flatten(1)  # still a tensor
        n = len(rois)
        ids = torch.arange(len(extra), dtype=torch.float32)
        return rois.sum(1) + ids, rois.new_full((n,), float(n)), n
"""


def test_len_rewrite_text() -> None:
    after = rewrite(MODULE_704)
    assert "n = rois.shape[0]" in after
    assert "torch.arange(extra.shape[0], dtype=torch.float32)" in after
    assert "len(" not in after
    assert "# still a tensor" in after
    assert rewrite(after) == after


@pytest.mark.parametrize(
    "shape", [(3, 4), (1, 2, 5), (0, 4), (0, 3, 2), (7, 1)], ids=["2d", "3d", "empty", "empty-3d", "column"]
)
def test_len_same_results(shape) -> None:
    before = load(MODULE_704, "RoiHead")()
    after = load(rewrite(MODULE_704), "RoiHead")()
    for fill in ("randn", "zeros", "nan"):
        rois = torch.randn(*shape) if fill == "randn" else torch.zeros(*shape)
        if fill == "nan" and rois.numel():
            rois[..., 0] = float("nan")
        extra = torch.full((shape[0], 2), -float("inf"))
        assert_same(before(rois, extra), after(rois, extra))


def test_len_zero_dim_both_raise() -> None:
    """The documented difference: a 0-d tensor raises in both forms, with different exception types."""
    code = "import torch\ndef f(x: torch.Tensor):\n    return len(x)\n"
    before, after = load(code, "f"), load(rewrite(code), "f")
    with pytest.raises(TypeError):
        before(torch.tensor(1.0))
    with pytest.raises(IndexError):
        after(torch.tensor(1.0))


def test_len_export_follows_the_batch() -> None:
    """Before: Reshape to a baked (2, -1). After: Shape/Gather, right for batch 5 too."""
    code = """
    import torch
    from torch import nn

    class Flatten(nn.Module):
        def forward(self, x: torch.Tensor):
            return x.reshape(len(x), -1)
    """
    example, second = torch.randn(2, 3, 4), torch.randn(5, 3, 4)
    axes = {"x": {0: "n"}}
    before = load(code, "Flatten")()
    after_code = rewrite(code)
    after = load(after_code, "Flatten")()
    (wrong,) = export_session(before, (example,), ["x"], axes).run(None, {"x": second.numpy()})
    (right,) = export_session(after, (example,), ["x"], axes).run(None, {"x": second.numpy()})
    assert wrong.shape == (2, 30)
    assert right.shape == (5, 12) and np.allclose(right, after(second).numpy())
    ops = onnx_ops(after, (example,), dynamic_axes=axes, input_names=["x"])
    assert "Shape" in ops and "Gather" in ops


def test_len_report_only_cases() -> None:
    code = """
    import torch
    from mylib import len as mylen

    class Head(nn.Module):
        def forward(self, x, boxes: torch.Tensor, feats: torch.Tensor, cfg: list):
            a = len(x)                   # unannotated: may be a list
            boxes = [boxes]
            b = len(boxes)               # reassigned to a list
            try:
                c = len(feats)           # a try may catch the TypeError
            except TypeError:
                c = 0
            d = len(cfg) + len(x.shape) + mylen(feats)
            e = [len(feats) for feats in x]           # the comprehension's own name
            f = (lambda boxes: len(boxes))(x)         # the lambda's own name
            return a, b, c, d, e, f

    def helper(x):
        return len(x)                    # not forward, not annotated: silent
    """
    msgs = messages(code, "TRT704")
    assert len(msgs) == 3
    assert "not annotated" in msgs[0] and "reassigned" in msgs[1] and "try" in msgs[2]
    assert rewrite(HEADER + textwrap.dedent(code)) == HEADER + textwrap.dedent(code)


def test_len_of_a_parameter_converted_in_a_tuple_assignment() -> None:
    """kornia's histogram matching: ``x, xp, fp = x.to(t), xp.to(t), fp.to(t)`` keeps each a tensor
    (each name bound to its own element, a tensor method of itself), so ``len(xp)`` after it takes
    ``xp.shape[0]``; an element that is not one (``xp, n = [xp], 2``), or a value that is not a
    tuple of as many elements (``a, b = pair``), still withholds the fix."""
    code = """
    import torch

    def interp(x: torch.Tensor, xp: torch.Tensor, fp: torch.Tensor, a: torch.Tensor, pair):
        x, xp, fp = x.to(torch.float32), xp.to(torch.float32), fp.to(torch.float32)
        n = len(xp) - 1
        a, b = pair
        return torch.clip(x, 1, n), fp, len(a)

    def listed(xp: torch.Tensor):
        xp, n = [xp], 2
        return len(xp) + n
    """
    fixed = rewrite(HEADER + textwrap.dedent(code), select=("TRT704",))
    assert "n = xp.shape[0] - 1" in fixed and "len(a)" in fixed and "return len(xp) + n" in fixed, fixed
    msgs = messages(code, "TRT704")
    assert len(msgs) == 3 and sum("reassigned" in m for m in msgs) == 2, msgs
    interp = load(fixed, "interp")
    x, xp = torch.tensor([0.5, 2.5, 9.0]), torch.tensor([0.0, 1.0, 2.0, 3.0])
    assert torch.equal(interp(x, xp, xp * 2, xp, (xp, xp))[0], torch.clip(x, 1, 3))


def test_len_of_a_parameter_rebound_only_after_it() -> None:
    """A rebinding the `len` cannot see (after it, outside any loop around both; or the value
    holding the call) leaves the parameter there; one that can (a loop, a lambda called
    later) still withholds the fix."""
    code = """
    import torch
    from torch import nn

    class Merge(nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor, w: torch.Tensor):
            b = len(x)
            x = self.conv(x)                 # after the len: x there is the parameter
            y = [len(y)]                     # the value holds the call: it runs first
            for _ in range(2):
                c = len(z)                   # the second pass sees the list
                z = [z]
            count = lambda: len(w)           # runs after the rebinding
            w = [w]
            return b, x, y, c, count()
    """
    fixed = rewrite(HEADER + textwrap.dedent(code), select=("TRT704",))
    assert "b = x.shape[0]" in fixed and "y = [y.shape[0]]" in fixed
    assert "c = len(z)" in fixed and "count = lambda: len(w)" in fixed
    msgs = messages(code, "TRT704")
    assert len(msgs) == 4 and sum("reassigned" in m for m in msgs) == 2

    merge = HEADER + textwrap.dedent('''
    class Merge(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv1d(3, 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b = len(x)
            x = self.conv(x)
            return x.reshape(b, -1)
    ''')
    after_code = rewrite(merge, select=("TRT704",))
    assert "b = x.shape[0]" in after_code
    Before, After = load(merge, "Merge"), load(after_code, "Merge")
    # Values, gradients and exceptions (a 1-D input fails in the convolution on both sides).
    for x in (torch.randn(2, 3, 5), torch.zeros(0, 3, 5), torch.full((1, 3, 2), float("nan")), torch.randn(3)):
        torch.manual_seed(0)
        before = Before()
        torch.manual_seed(0)
        after = After()
        assert_same_run(run_once(before, [x.clone().requires_grad_()]), run_once(after, [x.clone().requires_grad_()]))


def test_code_after_a_tracing_early_exit_is_eager_only() -> None:
    """torchvision's ``heatmaps_to_keypoints`` shape: ``if _is_tracing(): ...; return`` and the eager
    loop after it. The trace never runs the loop, so its `.item()` and bicubic resize are not findings;
    without the early exit (or before the guard) they are."""
    code = """
    import torchvision

    class Keypoints(nn.Module):
        def forward(self, maps, sizes):
            if torchvision._is_tracing():
                return traced_path(maps, sizes)
            out = []
            for i in range(maps.shape[0]):
                h = int(sizes[i].item())
                out.append(F.interpolate(maps[i][None], size=(h, h), mode="bicubic"))
            return out
    """
    assert found(code, "TRT702") == [] and found(code, "TRT727") == []
    falls_through = code.replace("return traced_path(maps, sizes)", "maps = traced_path(maps, sizes)")
    assert len(found(falls_through, "TRT702")) == 1 and len(found(falls_through, "TRT727")) == 1
    guard = "            if torchvision._is_tracing():\n                return traced_path(maps, sizes)\n"
    eager_first = code.replace(guard, "").replace("            return out\n", guard + "            return out\n")
    assert len(found(eager_first, "TRT702")) == 1


# --- a .tolist() whose list a call reads as numbers (pad widths, sizes) --------------------------
# ``F.pad(x, pad.tolist())`` becomes ``F.pad(x, _trt_tolist(pad))``: eager code keeps ``tolist``;
# while a tracer records the model the helper gives the 1-D tensor's elements as 0-d tensors, which
# the call reads as the numbers, and the TorchScript exporter's graph computes them from the input.

TOLIST_HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# The crop of a U-Net's skip connection to the upsampled map (the form of unet/decoding.py's
# center_crop in fepegar/unet 0.8.1, which zoo 24 runs), in our own words.
CROP = TOLIST_HEAD + '''\
class Crop(nn.Module):
    def forward(self, skip, x):
        crop = torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]
        half = (crop / 2).int()
        pad = -torch.stack((half, half)).t().flatten()
        return torch.cat((F.pad(skip, pad.tolist()), x), 1)
'''

#: body → the rewritten body (each a list only read as numbers by one call)
TOLIST_TAKEN = {
    "return F.pad(x, p.tolist())\n": "return F.pad(x, _trt_tolist(p))\n",
    "w = p.tolist()\n        return F.pad(x, w, mode='constant')\n":
        "w = _trt_tolist(p)\n        return F.pad(x, w, mode='constant')\n",
    "return F.pad(x, pad=(-p).tolist())\n": "return F.pad(x, pad=_trt_tolist(-p))\n",
    "return F.interpolate(x, size=p[:2].tolist(), mode='bilinear')\n":
        "return F.interpolate(x, size=_trt_tolist(p[:2]), mode='bilinear')\n",
    "return F.interpolate(x, p.long().tolist())\n": "return F.interpolate(x, _trt_tolist(p.long()))\n",
    "return x.view(p.tolist())\n": "return x.view(_trt_tolist(p))\n",
    "return torch.reshape(x, p.tolist())\n": "return torch.reshape(x, _trt_tolist(p))\n",
    "return x.new_zeros(p.tolist(), dtype=torch.int8)\n": "return x.new_zeros(_trt_tolist(p), dtype=torch.int8)\n",
    "return torch.zeros(p.tolist()) + x\n": "return torch.zeros(_trt_tolist(p)) + x\n",
    # copied into a tuple first (pytracking's ltr/data/processing_utils.py:231 resizes a mask to
    # `tuple(output_sz.flip(0).long().tolist())`, visionml/pytracking@7eb9e74b)
    "return F.interpolate(x, tuple(p.flip(0).tolist()))\n": "return F.interpolate(x, tuple(_trt_tolist(p.flip(0))))\n",
}

#: bodies whose list is read otherwise too (or not as one list of numbers): reported, not rewritten
TOLIST_KEPT = [
    "w = p.tolist()\n        print(len(w))\n        return F.pad(x, w)\n",  # len() sees 0-d tensors
    "w = p.tolist()\n        return F.pad(x, w[:2])\n",  # a slice of the list: a list method
    "w = p.tolist()\n        w = [0, 0]\n        return F.pad(x, w)\n",  # bound twice
    "w: List[int] = p.tolist()\n        return F.pad(x, w)\n",  # annotated: what scripting needs
    "return x.view(*p.tolist())\n",  # starred
    "return x.view(p.tolist(), 3)\n",  # not the one list
    "return torch.full(p.tolist(), 1.0)\n",  # not a function known to read its sizes so
    "return F.pad(x, [0, 0] + p.tolist())\n",  # concatenated first
    "return F.interpolate(x, scale_factor=p.tolist())\n",  # scale factors are floats, not sizes
    "return F.pad(x, sorted(p.tolist()))\n",  # another function of the list
    "tuple = list\n        return F.pad(x, tuple(p.tolist()))\n",  # not the builtin
]


def _tolist_module(body: str) -> str:
    return TOLIST_HEAD + f"class M(nn.Module):\n    def forward(self, x, p):\n        {body}"


def test_the_rewrite_takes_a_list_read_as_numbers() -> None:
    for body, want in TOLIST_TAKEN.items():
        after = rewrite(_tolist_module(body), unsafe=True, select=("TRT702",))
        assert _tolist_module(want).split("class M")[1] in after, (body, after)
        assert "def _trt_tolist(values):" in after and "def _trt_tracing()" in after
        assert rewrite(_tolist_module(body), select=("TRT702",)) == _tolist_module(body)  # unsafe: not without --unsafe


def test_the_rewrite_leaves_a_list_read_otherwise() -> None:
    for body in TOLIST_KEPT:
        source = _tolist_module(body).replace("from torch import nn\n", "from torch import nn\nfrom typing import List\n")
        assert rewrite(source, unsafe=True, select=("TRT702",)) == source, body


def _crop_pair(tmp_path: Path) -> tuple[torch.nn.Module, torch.nn.Module]:
    after = rewrite(CROP, unsafe=True, select=("TRT702",))
    assert "return torch.cat((F.pad(skip, _trt_tolist(pad)), x), 1)" in after
    return import_source(CROP, tmp_path)["Crop"](), import_source(after, tmp_path)["Crop"]()


def _special(shape: tuple[int, ...]) -> torch.Tensor:
    values = torch.randn(shape)
    if values.numel() >= 3:
        values.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), float("-inf")])
    return values


CROP_SETS = {
    "example": (torch.randn(1, 2, 10, 10), torch.randn(1, 3, 6, 6)),
    "other-sizes": (torch.randn(2, 2, 17, 17), torch.randn(2, 3, 9, 9)),
    "no-crop": (torch.randn(1, 2, 4, 4), torch.randn(1, 3, 4, 4)),
    "zeros": (torch.zeros(1, 2, 8, 8), torch.zeros(1, 3, 4, 4)),
    "negatives": (-torch.rand(1, 2, 8, 8) - 1, -torch.rand(1, 3, 2, 2)),
    "inf-nan": (_special((1, 2, 9, 9)), _special((1, 3, 5, 5))),
    "empty-batch": (torch.randn(0, 2, 8, 8), torch.randn(0, 3, 4, 4)),
    "skip-smaller": (torch.randn(1, 2, 4, 4), torch.randn(1, 3, 8, 8)),  # a positive pad: cat sizes agree
    "odd-3d": (torch.randn(1, 2, 7, 9, 9), torch.randn(1, 3, 4, 6, 6)),  # 3-D maps
    "wrong-channels-dim": (torch.randn(1, 2, 8), torch.randn(1, 3, 9, 9)),  # raises in both
}


@pytest.mark.parametrize("label", list(CROP_SETS))
def test_tolist_eager_runs_as_the_original(tmp_path: Path, label: str) -> None:
    before, after = _crop_pair(tmp_path)
    inputs = list(CROP_SETS[label])
    graded = [t.clone().requires_grad_() for t in inputs]
    for given in (inputs, graded):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def _export_crop(model: torch.nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, CROP_SETS["example"], buffer, dynamo=False, input_names=["skip", "x"], opset_version=17,
                          dynamic_axes={"skip": {0: "n", 2: "h", 3: "w"}, "x": {0: "n", 2: "h2", 3: "w2"}})
    return ort.InferenceSession(buffer.getvalue())


def _crop_matches(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple) -> bool:
    want = model(*inputs).numpy()
    try:
        [got] = session.run(None, {"skip": inputs[0].numpy(), "x": inputs[1].numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run on these inputs does not match
        return False
    return got.shape == want.shape and np.allclose(got, want, equal_nan=True)


def test_the_tolist_export_follows_the_sizes(tmp_path: Path) -> None:
    """The original's graph pads by the example's widths (wrong, or failing, at every other size);
    the rewrite's computes them: the TRT716 half of the fix (`torch.tensor(x.shape)`) is done here by
    tracing with the shapes' sizes, which `torch.tensor` of a traced shape already records."""
    source = CROP.replace("torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]",
                          "torch._shape_as_tensor(skip)[2:] - torch._shape_as_tensor(x)[2:]")
    before = import_source(source, tmp_path)["Crop"]()
    after = import_source(rewrite(source, unsafe=True, select=("TRT702",)), tmp_path)["Crop"]()
    baked, follows = _export_crop(before), _export_crop(after)
    others = [CROP_SETS[k] for k in ("other-sizes", "no-crop", "zeros", "negatives", "inf-nan")]
    assert _crop_matches(baked, before, CROP_SETS["example"])
    assert not _crop_matches(baked, before, CROP_SETS["other-sizes"]) and not _crop_matches(baked, before, CROP_SETS["no-crop"])
    assert all(_crop_matches(follows, before, s) for s in [CROP_SETS["example"], *others])


def test_the_helper_is_tolist_outside_a_trace() -> None:
    flat = torch.tensor([3, -1, 0])
    assert _trt_tolist(flat) == [3, -1, 0] and all(type(v) is int for v in _trt_tolist(flat))
    assert _trt_tolist(torch.tensor([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]  # nested: not one list of sizes
    assert _trt_tolist(torch.tensor(5)) == 5  # a 0-d tensor's tolist is its number
    assert _trt_tolist(torch.tensor([])) == []
    assert _trt_tolist(np.array([1, 2])) == [1, 2]  # anything with tolist
    assert _trt_tolist(torch.tensor([1.5, float("nan")]))[0] == 1.5


def test_the_helper_gives_the_elements_while_tracing() -> None:
    seen: list = []

    def probe(x: torch.Tensor) -> torch.Tensor:
        seen.append(_trt_tolist(torch._shape_as_tensor(x)))
        seen.append(_trt_tolist(torch._shape_as_tensor(x).reshape(1, -1)))  # 2-D: tolist as before
        return x.view(seen[0])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(probe, torch.randn(2, 3), check_trace=False)
    assert [type(v) for v in seen[0]] == [torch.Tensor, torch.Tensor] and seen[1] == [[2, 3]]
    assert traced(torch.randn(4, 5)).shape == (4, 5)


def test_torch_export_takes_the_rewrite_as_the_original(tmp_path: Path) -> None:
    """Under torch.export (the dynamo exporter) the elements are read as the numbers they hold, as the
    list was: pad widths from the input's values export and run alike before and after."""
    source = TOLIST_HEAD + "class M(nn.Module):\n    def forward(self, x, p):\n        return F.pad(x, p.tolist())\n"
    before = import_source(source, tmp_path)["M"]()
    after = import_source(rewrite(source, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    example = (torch.randn(1, 2, 5, 5), torch.tensor([1, 2, 0, -1]))
    for model in (before, after):
        program = torch.export.export(model, example)
        for widths in ([1, 2, 0, -1], [0, 0, 3, 1]):
            inputs = (example[0], torch.tensor(widths))
            torch.testing.assert_close(program.module()(*inputs), before(*inputs))


# --- an int(t) whose number goes only where a 0-d tensor stands for it ------------------------------
# ``int(t)`` becomes ``_trt_int(t)``: ``int`` in eager mode, the tensor while ``torch.jit.trace`` records.
# Depth Anything v3's rotary tables (depth-estimation 0.1.3, modeling_depth_anything_v3.py:452-491):
# the length read off the positions, handed to a method that caches the tables under it.

INT_HEAD = '''\
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def tables(self, dim, length):
        key = (dim, length)
        if key not in self.cache:
            self.cache[key] = torch.arange(length).float()[:, None] * torch.arange(1, dim + 1).float()
        return self.cache[key]

    def other(self, dim, length):
        return torch.full((dim,), length)

    def forward(self, x, t):
        '''

INT_TAKEN = {
    "n = int(t.max()) + 1\n        return x[: n] + torch.arange(n).sum()\n":
        "n = _trt_int(t.max()) + 1\n",
    "return self.tables(2, int(t.max()) + 1)[t.long()].sum() + x.sum()\n":
        "return self.tables(2, _trt_int(t.max()) + 1)[t.long()].sum() + x.sum()\n",
    "n = int(t.max()) + 1\n        return self.tables(dim=2, length=n)[t.long()].sum() + x.sum()\n":
        "n = _trt_int(t.max()) + 1\n",
    "return torch.arange(int(t.max())).sum() + x.sum()\n": "return torch.arange(_trt_int(t.max())).sum()",
    # `.item()` handed to the method: dropping it would hand the tensor to eager code too; `_trt_item` only traces
    "return self.tables(2, t.max().item() + 1)[t.long()].sum() + x.sum()\n":
        "return self.tables(2, _trt_item(t.max()) + 1)[t.long()].sum() + x.sum()\n",
    "n = t.max().item() + 1\n        return self.tables(length=n, dim=2)[t.long()].sum() + x.sum()\n":
        "n = _trt_item(t.max()) + 1\n",
}
INT_KEPT = [
    "n = int(t.max()) + 1\n        return self.other(2, n) + x.sum()\n",  # torch.full reads a number
    "n = int(t.max())\n        return x[: n] + len(range(n))\n",  # range wants an int
    "n = int(t.max())\n        print(f'{n}')\n        return x[: n]\n",  # an f-string
    "n = int(t.max())\n        n = 3\n        return x[: n]\n",  # bound twice
    "n = float(t.max())\n        return x * n\n",  # float: reported only
    "k = int(t.max())\n        n = k + 1\n        return torch.full((2,), n) + x.sum()\n",  # through a second name
    "n = t.max().item() + 1\n        return self.other(2, n) + x.sum()\n",  # the item into torch.full's value
]


def test_the_rewrite_takes_an_int_read_as_a_number() -> None:
    for body, want in INT_TAKEN.items():
        after = rewrite(INT_HEAD + body, unsafe=True, select=("TRT702",))
        assert want in after and ("def _trt_int(value):" in after or "def _trt_item(value):" in after), (body, after)
        assert rewrite(INT_HEAD + body, select=("TRT702",)) == INT_HEAD + body  # unsafe: not without --unsafe
    for body in INT_KEPT:
        assert rewrite(INT_HEAD + body, unsafe=True, select=("TRT702",)) == INT_HEAD + body, body


INT_VALUES = [torch.tensor([3.0, 1.0, 4.0]), torch.tensor([0.0, 0.0]), torch.tensor([2.9, 0.5]),
              torch.tensor([7, 2, 5]), torch.tensor([-0.5, -3.0]), torch.tensor([float("nan"), 1.0]),
              torch.tensor([float("inf"), 1.0]), torch.zeros(0)]


@pytest.mark.parametrize("body", list(INT_TAKEN))
@pytest.mark.parametrize("t", INT_VALUES, ids=["floats", "zeros", "fractions", "ints", "negatives", "nan", "inf",
                                               "empty"])
def test_the_int_rewrite_runs_as_the_original(tmp_path: Path, body: str, t: torch.Tensor) -> None:
    """Eager mode is unchanged bit for bit: values, dtypes, gradients and exceptions (NaN, inf and an empty
    tensor raise in both), the cache included (a second call hits it in both)."""
    before = import_source(INT_HEAD + body, tmp_path)["M"]()
    after = import_source(rewrite(INT_HEAD + body, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    x = torch.randn(10, requires_grad=True)
    for _ in range(2):
        assert_same_run(run_once(before, [x, t]), run_once(after, [x, t]), context=body)
    assert len(before.cache) == len(after.cache)


@pytest.mark.parametrize("number", ["int(t.max())", "t.max().item()"])
def test_the_int_rewrite_exports_the_number_from_the_input(tmp_path: Path, number: str) -> None:
    """Before, the graph keeps the example's table length and fails or reads past it at a larger value;
    after, it follows the input, at a smaller and a larger maximum."""
    body = f"return self.tables(2, {number} + 1)[t.long()].sum() + x.sum()\n"
    before = import_source(INT_HEAD + body, tmp_path)["M"]()
    after = import_source(rewrite(INT_HEAD + body, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    x = torch.randn(4)
    feeds = [torch.tensor([1, 6, 2]), torch.tensor([0, 1, 0]), torch.tensor([9, 3, 12])]
    for model, follows in ((after, True), (before, False)):
        model.cache.clear()
        model(x, torch.tensor([3, 1, 4]))  # an eager call first: the cache holds the example's length
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x, torch.tensor([3, 1, 4])), buffer, dynamo=False, input_names=["x", "t"])
        session = ort.InferenceSession(buffer.getvalue())
        same = []
        for f in feeds:
            try:
                got = session.run(None, {"x": x.numpy(), "t": f.numpy()})[0]
            except Exception:  # noqa: BLE001 - a gather past the baked table fails: not the same
                same.append(False)
                continue
            same.append(bool(np.allclose(got, model(x, f).detach().numpy(), atol=1e-4)))
        assert all(same) is follows, (follows, same)
