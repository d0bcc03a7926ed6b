"""TRT352: a sum of bool tensors (torch's logical or) becomes ``|``, which exports as ONNX ``Or``.

The rewrite is checked as text (chains, parentheses where a tighter operator takes the sum, the
evidence that both operands are bool tensors), then run: eager mode bit for bit the same on real
tensors with zeros, negatives, inf/NaN, empty tensors and broadcasting; the TorchScript export
of the original is refused by ONNX Runtime (an ``Add`` of bools), the rewritten one loads and
equals eager mode at two sizes of its dynamic axes.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

HEADER = "import torch\nfrom torch import nn\n\n"


def fixed(code: str) -> str:
    return rewrite(code, select=("TRT352",))


def body(line: str) -> str:
    return f"{HEADER}def f(u, v, z):\n    x = u.float()\n    y = v.float()\n    return {line}\n"


@pytest.mark.parametrize("line,after", [
    ("(x < 0) + (y > 1)", "(x < 0) | (y > 1)"),
    ("(x < 0) + (y > 1) + (x == y)", "(x < 0) | (y > 1) | (x == y)"),
    ("(x < 0) + (0.5 >= y)", "(x < 0) | (0.5 >= y)"),
    ("torch.isnan(x) + (y != 0) + torch.isinf(y)", "torch.isnan(x) | (y != 0) | torch.isinf(y)"),
    ("x.gt(0) + y.logical_not() + x.bool()", "x.gt(0) | y.logical_not() | x.bool()"),
    ("~(x < 0) + ((x > 1) & (y > 1))", "~(x < 0) | ((x > 1) & (y > 1))"),
    # parentheses where an operator tighter than `|` takes the sum as its left operand
    ("(x < 0) + (y > 1) - x", "((x < 0) | (y > 1)) - x"),
    ("(x < 0) + (y > 1) & (x > y)", "((x < 0) | (y > 1)) & (x > y)"),
    ("((x < 0) + (y > 1)) * 2", "((x < 0) | (y > 1)) * 2"),
    ("(x < 0) + (y > 1) > 0", "((x < 0) | (y > 1)) > 0"),  # not needed there, but clearer
    # the same rule both sides of a comparison: each sum on its own
    ("((x < 0) + (y < 0)).float() + 1", "((x < 0) | (y < 0)).float() + 1"),
])
def test_a_sum_of_bool_tensors_becomes_an_or(line: str, after: str) -> None:
    assert fixed(body(line)) == body(after)


def test_a_name_every_assignment_of_which_is_bool_counts() -> None:
    code = HEADER + (
        "def f(heat, l, r):\n"
        "    kps = heat.sigmoid()\n"
        "    left = kps < l\n"
        "    right = torch.gt(kps, r)\n"
        "    mask = left + right\n"
        "    return (mask > 0).float()\n")
    assert fixed(code) == code.replace("left + right", "left | right")


@pytest.mark.parametrize("line", [
    "(a < 0) + (b > 1)",  # no sign that a or b is a tensor: Python's True + True is 2
    "(x < 0) + (b > 1)",  # one side may be a Python bool
    "(x < 0) + 1",
    "(x < 0) + x",  # a bool tensor plus a float tensor is arithmetic
    "(x < 0) + (x.long() + 1)",
    "(x == None) + (y > 1)",  # `tensor == None` is a Python bool
    "(0 < x < 1) + (y > 1)",  # a chained comparison is Python's `and`
    "(x < 0) * (y > 1)",  # `*` of bools exports as And
    "(x < 0) | (y > 1)",
    "(x.size(0) > 0) + (y.dim() > 1)",  # sizes are numbers: Python's True + True is 2
    "(x.numel() > 0) + (x.item() > 1)",
])
def test_not_a_sum_of_bool_tensors(line: str) -> None:
    code = f"{HEADER}def f(u, v, a, b):\n    x = u.float()\n    y = v.float()\n    return {line}\n"
    assert rules_found(code, select=("TRT352",)) == []
    assert fixed(code) == code


def test_a_name_also_assigned_something_else_does_not_count() -> None:
    code = HEADER + (
        "def f(u, y, flag):\n"
        "    x = u.float()\n"
        "    m = x > 0\n"
        "    if flag:\n"
        "        m = x + 1\n"
        "    return m + (y.float() > 0)\n")
    assert rules_found(code, select=("TRT352",)) == []


@pytest.mark.parametrize("line,after", [
    # a view, copy or rearrangement of a bool tensor is one (ZhengTang1120/tacred_tagging@54eac22 bert.py:35-38)
    ("x.eq(0).unsqueeze(2) + y.gt(1).unsqueeze(2)", "x.eq(0).unsqueeze(2) | y.gt(1).unsqueeze(2)"),
    ("(x < 0).view(-1) + (y > 1).reshape(-1)", "(x < 0).view(-1) | (y > 1).reshape(-1)"),
    ("(x < 0).permute(1, 0).contiguous() + (y > 1).t()", "(x < 0).permute(1, 0).contiguous() | (y > 1).t()"),
    ("(x < 0)[:, 0] + torch.isnan(y)[..., 1]", "(x < 0)[:, 0] | torch.isnan(y)[..., 1]"),
])
def test_a_reshaped_or_indexed_bool_tensor_counts(line: str, after: str) -> None:
    assert fixed(body(line)) == body(after)


@pytest.mark.parametrize("line", [
    "(x < 0).view(-1) + x.view(-1)",  # a float tensor's view: arithmetic
    "(x < 0).float().unsqueeze(0) + (y > 1).unsqueeze(0)",
    "(a < 0).reshape(-1) + (b > 1).reshape(-1)",  # no sign of a tensor: NumPy's or Python's
    "(x < 0).sum(0) + (y > 1).sum(0)",  # a count, not a mask
])
def test_a_reshape_of_something_else_does_not_count(line: str) -> None:
    code = f"{HEADER}def f(u, v, a, b):\n    x = u.float()\n    y = v.float()\n    return {line}\n"
    assert rules_found(code, select=("TRT352",)) == []


#: The running mask of JialianW/TraDeS@0443c36 src/lib/model/decode.py:35-69: a float first, then
#: started over as a comparison that the sums in both branches add to.
RUNNING = HEADER + (
    "def f(score, peak, l, r, boxes):\n"
    "    peak = peak.float()\n"
    "    mask = (score > 0.2).float()\n"
    "    score = (1 - mask) * -1 + mask * score\n"
    "    mask = (score < 0.2)\n"
    "    if boxes:\n"
    "        mask = (peak < l) + (peak > r) + mask\n"
    "    else:\n"
    "        mask = (peak < l - 1) + mask\n"
    "    mask = (mask > 0).float()\n"
    "    return mask\n")


def test_the_assignment_that_reaches_a_sum_decides() -> None:
    assert fixed(RUNNING) == RUNNING.replace("(peak > r) + mask", "(peak > r) | mask").replace(
        "(peak < l) + (peak", "(peak < l) | (peak").replace("(peak < l - 1) + mask", "(peak < l - 1) | mask")


@pytest.mark.parametrize("between", [
    "    if boxes:\n        mask = score * 2\n",  # a branch may rebind it
    "    for i in range(2):\n        mask = score * i\n",  # a loop may
    "    mask += score\n",  # an in-place sum of a float makes it float
    "    mask, other = score, peak\n",
])
def test_a_binding_between_that_may_not_be_bool_stops_it(between: str) -> None:
    code = HEADER + (
        "def f(score, peak, l, boxes):\n"
        "    mask = (score > 0.2).float()\n"
        "    mask = (score.sigmoid() < 0.2)\n"
        f"{between}"
        "    return (peak.float() < l) + mask\n")
    assert rules_found(code, select=("TRT352",)) == []


@pytest.mark.parametrize("body", [
    # a later pass of the loop sees the float the loop binds after the sum
    "    for i in range(n):\n        keep = (peak.float() < l) + mask\n        mask = score * i\n    return keep\n",
    # the handler runs after part of the `try`, which may have rebound it
    "    try:\n        mask = score * n\n        peak = peak.float()\n"
    "    except RuntimeError:\n        return (peak.float() < l) + mask\n    return peak\n",
])
def test_a_loop_or_try_that_rebinds_the_name_stops_it(body: str) -> None:
    code = HEADER + "def f(score, peak, l, n):\n    mask = (score.sigmoid() < 0.2)\n" + body
    assert rules_found(code, select=("TRT352",)) == []


def test_the_running_mask_is_the_same_in_eager_mode(tmp_path: Path) -> None:
    before = import_source(RUNNING, tmp_path)["f"]
    after = import_source(fixed(RUNNING), tmp_path)["f"]
    g = torch.Generator().manual_seed(3)
    for shape in ((4, 3), (1, 1), (0, 2)):
        score, peak = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g) * 3
        l, r = torch.randn(*shape, generator=g), torch.randn(*shape, generator=g) + 1
        if score.numel():
            score.view(-1)[0], peak.view(-1)[-1] = float("nan"), float("-inf")
        for boxes in (True, False):
            inputs = [score, peak, l, r, boxes]
            assert_same_run(run_once(before, inputs), run_once(after, inputs), context=f"{shape} {boxes}")


# --- eager mode: the same values, dtype, shape; the same errors ---------------------------------

MODEL = HEADER + '''
class Decode(nn.Module):
    def forward(self, points, boxes):
        kps = points.float()
        box = boxes.float()
        l, t, r, b = box.unbind(-1)
        mask = (kps[..., 0] < l[:, None]) + (kps[..., 0] > r[:, None]) + \\
               (kps[..., 1] < t[:, None]) + (kps[..., 1] > b[:, None]) + torch.isnan(kps).any(-1)
        return mask, (mask > 0).float()
'''


def _inputs(n: int, k: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    kps = torch.randn(n, k, 2, generator=g) * 3
    box = torch.randn(n, 4, generator=g)
    if kps.numel():
        flat = kps.view(-1)
        for i, edge in enumerate((0.0, -0.0, float("inf"), float("-inf"), float("nan"), -2.5)):
            if i < flat.numel():
                flat[i] = edge
    return kps, box


@pytest.mark.parametrize("shape", [(2, 5), (1, 1), (3, 0), (0, 4)])
def test_eager_is_bit_for_bit_the_same(tmp_path: Path, shape: tuple[int, int]) -> None:
    out = fixed(MODEL)
    assert out.count(" | ") == 4 and " + " not in out.split("mask =")[1].split("return")[0]
    before = import_source(MODEL, tmp_path)["Decode"]()
    after = import_source(out, tmp_path)["Decode"]()
    inputs = list(_inputs(*shape, seed=sum(shape)))
    ran = run_once(before, inputs)
    assert_same_run(ran, run_once(after, inputs), context=str(shape))


def test_both_forms_refuse_the_same_shapes(tmp_path: Path) -> None:
    f = import_source(body("(x < 0) + (y > 1)"), tmp_path)["f"]
    g = import_source(fixed(body("(x < 0) + (y > 1)")), tmp_path)["f"]
    x, y = torch.zeros(2, 3), torch.zeros(4, 3)
    errors = []
    for fn in (f, g):
        with pytest.raises(RuntimeError) as caught:
            fn(x, y, None)
        errors.append(type(caught.value))
    assert errors[0] is errors[1]
    assert torch.equal(f(x, y[:1], None), g(x, y[:1], None))  # broadcasting alike


# --- the TorchScript export ---------------------------------------------------------------------


def _session(code: str, tmp_path: Path) -> tuple[ort.InferenceSession | None, torch.nn.Module]:
    model = import_source(code, tmp_path)["Decode"]().eval()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, _inputs(2, 5, 0), buffer, dynamo=False, input_names=["kps", "box"],
                          output_names=["mask", "keep"], dynamic_axes={"kps": {0: "n", 1: "k"}, "box": {0: "n"}})
    try:
        return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"]), model
    except Exception as error:  # noqa: BLE001 - ONNX Runtime refuses the graph at load
        assert "tensor(bool)" in str(error) and "Add" in str(error), error
        return None, model


def test_the_export_loads_and_equals_eager_only_after_the_fix(tmp_path: Path) -> None:
    before, _ = _session(MODEL, tmp_path)
    assert before is None
    after, model = _session(fixed(MODEL), tmp_path)
    assert after is not None
    for n, k, seed in ((2, 5, 1), (3, 7, 2)):
        kps, box = _inputs(n, k, seed)
        mask, keep = after.run(None, {"kps": kps.numpy(), "box": box.numpy()})
        with torch.no_grad():
            want_mask, want_keep = model(kps, box)
        assert mask.dtype == bool and torch.equal(torch.from_numpy(mask), want_mask)
        assert torch.equal(torch.from_numpy(keep), want_keep)
