"""TRT101/TRT104: Python control flow on tensor values — rewrite, run, export, run the ONNX graph."""

from __future__ import annotations

import io
import textwrap
import warnings

import pytest
import torch

from support import assert_same, load, onnx_ops, rewrite, rules_found

MODEL = """
import torch
from torch import nn


class TrackGate(nn.Module):
    def __init__(self, dim=8, thresh=0.5):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.thresh = thresh

    def forward(self, feat, prev, age):
        score = self.proj(feat).sigmoid().mean()
        # Blend with the previous state only when the match is good.
        if score > self.thresh:  # data-dependent
            out = 0.5 * feat + 0.5 * prev
            age = age * 0
        elif score > 0.3:
            out = feat
        else:
            out = prev
            age += 1
        return out, age
"""

AFTER_BODY = """\
        score = self.proj(feat).sigmoid().mean()
        # Blend with the previous state only when the match is good.
        # data-dependent
        _trt_cond = torch.as_tensor(score > self.thresh)
        _trt_cond_2 = torch.as_tensor(score > 0.3)
        out = torch.where(_trt_cond, 0.5 * feat + 0.5 * prev, torch.where(_trt_cond_2, feat, prev))
        age = torch.where(_trt_cond, age * 0, torch.where(_trt_cond_2, age, age + 1))
        return out, age
"""


def _build(code: str, thresh: float = 0.5):
    torch.manual_seed(0)
    model = load(code, "TrackGate")(thresh=thresh)
    return model.eval()


def _pair(thresh: float = 0.5):
    before = _build(MODEL, thresh)
    after = _build(rewrite(MODEL, unsafe=True, select=("TRT101",)), thresh)
    after.load_state_dict(before.state_dict())
    return before, after


def _inputs(seed: int, n: int = 4, scale: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, 8, generator=g) * scale, torch.randn(n, 8, generator=g),
            torch.randint(0, 5, (n,), generator=g))


def test_rewrite_text() -> None:
    after = rewrite(MODEL, unsafe=True, select=("TRT101",))
    assert AFTER_BODY in after
    assert "if score" not in after


def test_needs_unsafe() -> None:
    assert rewrite(MODEL, select=("TRT101",)) == textwrap.dedent(MODEL)
    assert rules_found(MODEL) == ["TRT101"]


@pytest.mark.parametrize("thresh", [0.0, 0.45, 0.5, 2.0, float("nan")], ids=["then", "mid", "half", "else", "nan"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_results_every_branch(thresh: float, seed: int) -> None:
    before, after = _pair(thresh)
    for n in (4, 1, 0):
        feat, prev, age = _inputs(seed, n)
        if n == 0:
            if thresh != thresh:
                continue
            # mean() of an empty tensor is NaN in both versions: comparisons are False.
        assert_same(before(feat, prev, age.clone()), after(feat, prev, age.clone()))


def test_first_true_condition_wins() -> None:
    """Both conditions hold (score > thresh and score > 0.3): eager takes the first branch."""
    before, after = _pair(0.31)
    feat, prev, age = _inputs(3)
    out, new_age = before(feat, prev, age.clone())
    assert torch.equal(new_age, torch.zeros_like(age))  # the first branch ran
    assert_same((out, new_age), after(feat, prev, age.clone()))


def _run_onnx(model, export_args, run_args):
    import onnxruntime as ort

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, export_args, buffer, dynamo=False, opset_version=17,
                          input_names=["feat", "prev", "age"])
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    feeds = {name: arg.numpy() for name, arg in zip(["feat", "prev", "age"], run_args)}
    return [torch.from_numpy(v) for v in session.run(None, feeds)]


def test_traced_export_bakes_the_branch_and_the_rewrite_does_not() -> None:
    """Export on an input taking the first branch, run ONNX on inputs taking the others."""
    before, after = _pair(0.5)
    with torch.no_grad():
        before.proj.weight.copy_(torch.eye(8))
        before.proj.bias.zero_()
        after.load_state_dict(before.state_dict())
    bright = (torch.full((2, 8), 3.0), torch.randn(2, 8), torch.tensor([1, 2]))   # sigmoid(3) > 0.5
    middle = (torch.full((2, 8), -0.5), torch.randn(2, 8), torch.tensor([1, 2]))  # 0.3 < 0.38 < 0.5
    dark = (torch.full((2, 8), -3.0), torch.randn(2, 8), torch.tensor([1, 2]))    # sigmoid(-3) < 0.3
    for other in (middle, dark):
        # `age += 1` is in place in eager: give each run its own copy.
        expected = before(*(t.clone() for t in other))
        baked = _run_onnx(before, bright, other)
        assert not torch.allclose(baked[0], expected[0]) or not torch.equal(baked[1], expected[1])
        fixed = _run_onnx(after, bright, other)
        torch.testing.assert_close(fixed[0], expected[0])
        assert torch.equal(fixed[1], expected[1])


def test_export_has_where_and_no_if() -> None:
    _, after = _pair()
    ops = onnx_ops(after, _inputs(0))
    assert "Where" in ops and "If" not in ops


def _scripted_gate(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if bool(x.sum() > 0):
        out = x
    else:
        out = y + 1
    return out


class _ScriptedGate(torch.nn.Module):
    def forward(self, x, y):
        return torch.jit.script(_scripted_gate)(x, y)


def test_scripted_branch_exports_if() -> None:
    """The other way a data-dependent `if` reaches ONNX: scripted, it is an `If` node."""
    assert "If" in onnx_ops(_ScriptedGate(), (torch.randn(3), torch.randn(3)))


def test_unsafe_assumption_is_real() -> None:
    """Branches of different shapes: `if` keeps one, torch.where broadcasts to both."""
    code = """
    class Pool:
        def pick(self, x):
            if x.sum() > 1e9:
                y = x
            else:
                y = x.sum()
            return y
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "y = torch.where(_trt_cond, x, x.sum())" in after
    x = torch.randn(3)
    assert load(code, "Pool")().pick(x).shape == ()
    assert load(after, "Pool")().pick(x).shape == (3,)


def test_one_sided_and_augmented_assignment() -> None:
    code = """
    import torch
    class Counter:
        def step(self, score, misses, best):
            if score < 0.3:
                misses += 1
            if not (score < best):
                best = score
            return misses, best
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "misses = torch.where(_trt_cond, misses + 1, misses)" in after
    assert "_trt_cond = torch.logical_not(torch.as_tensor(score < best))" in after
    assert "best = torch.where(_trt_cond, score, best)" in after
    before_f, after_f = load(code, "Counter")(), load(after, "Counter")()
    for score in (0.1, 0.3, 0.9, float("nan"), float("-inf")):
        def args():
            return torch.tensor(score), torch.tensor([0, 4]), torch.tensor(0.5)
        assert_same(before_f.step(*args()), after_f.step(*args()))
    # The documented difference: eager `misses += 1` changed the caller's tensor in place.
    misses = torch.tensor([0, 4])
    before_f.step(torch.tensor(0.1), misses, torch.tensor(0.5))
    assert misses.tolist() == [1, 5]
    misses = torch.tensor([0, 4])
    after_f.step(torch.tensor(0.1), misses, torch.tensor(0.5))
    assert misses.tolist() == [0, 4]


def test_boolean_operators_become_logical() -> None:
    code = """
    import torch
    class Gate:
        def f(self, a, b, x, y):
            if a.any() and not b.all() or a.sum() > 2:
                z = x
            else:
                z = y
            return z
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert ("torch.logical_or(torch.logical_and(torch.as_tensor(a.any()), "
            "torch.logical_not(torch.as_tensor(b.all()))), torch.as_tensor(a.sum() > 2))") in after
    before_f, after_f = load(code, "Gate")(), load(after, "Gate")()
    x, y = torch.randn(2), torch.randn(2)
    for a in ([True, False], [False, False], [True, True, True]):
        for b in ([True, True], [False, True]):
            at, bt = torch.tensor(a), torch.tensor(b)
            assert_same(before_f.f(at, bt, x, y), after_f.f(at, bt, x, y))


def test_truthiness_condition_and_parameter_alias() -> None:
    code = """
    import torch as th
    class Gate:
        def f(self, n, x):
            count = n.sum()
            if count:
                x = x * 2
            return x
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "_trt_cond = th.as_tensor(count).bool()" in after and "x = th.where(_trt_cond, x * 2, x)" in after
    before_f, after_f = load(code, "Gate")(), load(after, "Gate")()
    for n in (torch.tensor([0, 0]), torch.tensor([3, 0]), torch.tensor([float("nan")]), torch.tensor([-1, 1])):
        assert_same(before_f.f(n, torch.ones(2)), after_f.f(n, torch.ones(2)))


def test_fresh_name_does_not_collide() -> None:
    code = """
    import torch
    class Gate:
        def f(self, x, _trt_cond):
            if x.sum() > 0:
                y = x
            else:
                y = _trt_cond
            return y
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "_trt_cond_2 = torch.as_tensor(x.sum() > 0)" in after
    assert "y = torch.where(_trt_cond_2, x, _trt_cond)" in after


STATIC = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout, depth):
        super().__init__()
        if cin != cout:
            self.proj = nn.Linear(cin, cout)
        self.layers = self._make(depth)

    def _make(self, depth):
        if depth > 1:
            return [nn.Identity()] * depth
        return []

    @classmethod
    def from_cfg(cls, cfg):
        if cfg.depth > 50:
            return cls(1, 1, 2)

    def forward(self, x, mask=None, mode="bilinear", k: int = 3, flag: bool = False, return_loss=None, state=None):
        if return_loss or not state.valid:
            x = x + 1
        if "boxes" in state or mode not in ("a", "b"):
            x = x + 1
        if self.training:
            x = x + 1
        if x.dim() == 4 and x.shape[0] > 1 and len(x.shape) == 4 and x.size(1) > 2 and x.ndim == 4:
            x = x + 1
        if mask is None or mask is not None:
            x = x + 1
        if isinstance(x, torch.Tensor) and torch.cuda.is_available() and x.is_cuda:
            x = x + 1
        if torch.jit.is_tracing() or torch.jit.is_scripting():
            x = x + 1
        if mode == "bilinear" or k > 2 or flag:
            x = x + 1
        if x.numel() == 0 or x.dtype == torch.float16 or x.device.type == "cuda":
            x = x + 1
        h, w = x.shape[-2:]
        if h * w > 100:
            x = x + 1
        for i in range(x.shape[0]):
            x = x + i
        for i in range(k):
            x = x + i
        while h > 1:
            h = h // 2
        return x


def free_function(x):
    if x.sum() > 0:
        x = x + 1
    return x
"""


def test_static_conditions_not_flagged() -> None:
    assert rules_found(STATIC) == []


NOT_FIXED = """
import torch


class Tracker:
    def update(self, x, y, boxes):
        if x.sum() > 0:
            self.hits += 1
        if x.sum() > 1:
            return y
        if x.max() > 2:
            y = y.add_(1)
        if x.max() > 3:
            print("big")
            y = x
        if x.min() > 0:
            a = x
            b = a * 2
        if x.min() > 1:
            fresh = x
        if x.max().item() > 0.5:
            y = x
        if 0 < x.sum() < 1:
            y = x
        if x.mean() > 0:
            boxes[0] = x
        if x.std() > 0:
            y = x
            y = y + 1
        return y
"""


def test_not_fixed_but_reported() -> None:
    found = rules_found(NOT_FIXED)
    assert found == ["TRT101"] * 10
    assert rewrite(NOT_FIXED, unsafe=True) == textwrap.dedent(NOT_FIXED)


def test_not_fixed_messages_say_why() -> None:
    from trtcodemod.engine import Options, check_source

    findings = check_source(textwrap.dedent(NOT_FIXED).encode(), "s.py", Options())
    messages = [f.message for f in findings]
    assert all("indicator tensor" in m and "torch.jit.script" in m for m in messages)
    assert "in-place `add_`" in messages[2]
    assert "does more than assign plain names" in messages[3]
    assert "reads a name another assignment" in messages[4]
    assert "`fresh` is assigned in only some branches" in messages[5]
    assert "Python value" in messages[6]


def test_static_then_dynamic_elif_not_fixed() -> None:
    code = """
    import torch
    class Gate:
        def f(self, x, y):
            if x is None:
                y = y
            elif x.sum() > 0:
                y = x
            return y
    """
    assert rules_found(code) == ["TRT101"]
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_taint_flows_through_locals_and_helpers() -> None:
    code = """
    import torch
    class Coder:
        def decode(self, deltas, anchors):
            scale = deltas.abs()
            peak = scale.max()
            if peak > 4:
                deltas = deltas / peak
            return deltas
    """
    assert rules_found(code) == ["TRT101"]


def test_suppression_comment() -> None:
    code = """
    import torch
    class Gate:
        def f(self, x, y):
            if x.sum() > 0:  # trtcodemod: ignore[TRT101]
                y = x
            return y
    """
    assert rules_found(code) == []


def test_data_dependent_loops_reported() -> None:
    code = """
    import torch
    class Refiner:
        def run(self, x, steps, scores):
            for _ in range(int(steps)):
                x = x + 1
            for _ in range(steps.item()):
                x = x + 1
            for _ in range(0, x.sum()):
                x = x + 1
            n = 0
            while scores[n] > 0.5:
                n += 1
            for _ in range(x.shape[0]):
                x = x + 1
            return x
    """
    assert rules_found(code) == ["TRT104"] * 4
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_traced_loop_is_unrolled() -> None:
    """What TRT104 warns about is real: the trace repeats the body the example's number of times."""
    code = """
    import torch
    class Refiner(torch.nn.Module):
        def forward(self, x, steps):
            for _ in range(int(steps)):
                x = x * 2
            return x
    """
    model = load(code, "Refiner")()
    ops = onnx_ops(model, (torch.randn(2), torch.tensor(3)))
    assert ops.count("Mul") == 3


def test_example_model_tracker_update() -> None:
    """examples/tracker_update.py: the rewritten model (TRT101 + TRT102, --unsafe) matches eager."""
    from pathlib import Path

    source = (Path(__file__).parent.parent / "examples" / "tracker_update.py").read_text()
    after = rewrite(source, unsafe=True, select=("TRT1",))
    assert "if det_scores" not in after and "torch.where(misses > self.max_misses)" in after
    found = rules_found(source)
    assert found.count("TRT101") == 2 and found.count("TRT102") == 2 and found.count("TRT103") == 1
    before_ns, after_ns = {}, {}
    exec(compile(source, "tracker_update.py", "exec"), before_ns)
    exec(compile(after, "tracker_update_after.py", "exec"), after_ns)
    before, rewritten = before_ns["build"](), after_ns["build"]()
    rewritten.load_state_dict(before.state_dict())
    for seed in range(4):
        args = before_ns["inputs"](torch.Generator().manual_seed(seed))
        with torch.no_grad():
            assert_same(before(*args), rewritten(*args))
    ops = onnx_ops(rewritten, before_ns["inputs"](torch.Generator().manual_seed(0)))
    assert "If" not in ops and "Where" not in ops


def test_guarded_condition_and_string_branches_not_fixed() -> None:
    code = """
    import torch
    class Gate:
        def f(self, x, mask, note):
            if mask is not None and mask.any():
                x = x * 2
            label = note.lower()
            if x.sum() > 0:
                label = "positive"
            return x, label
    """
    assert rules_found(code) == ["TRT101", "TRT101"]
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)
    # Evaluated eagerly, the guarded operand would crash on None:
    before = load(code, "Gate")()
    assert before.f(torch.ones(2), None, "n")[1] == "positive"
