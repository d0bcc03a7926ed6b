"""TRT101/TRT104: Python control flow on tensor values — rewrite, run, export, run the ONNX graph."""

from __future__ import annotations

import io
import textwrap
import warnings
from types import SimpleNamespace

import pytest
import torch

from support import REPO, assert_same, load, onnx_ops, rewrite, rules_found
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts, Span
from trtcodemod.evidence.proofs import Observation, prove_both_ways


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
    import torch
    class Pool:
        def pick(self, x: torch.Tensor):
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
        def step(self, score: torch.Tensor, misses: torch.Tensor, best: torch.Tensor):
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
        def f(self, a: torch.Tensor, b: torch.Tensor, x, y):
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
        def f(self, n: th.Tensor, x: th.Tensor):
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
        def f(self, x: torch.Tensor, _trt_cond):
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
    assert rules_found(STATIC, select=("TRT1",)) == []
    # `x.numel() == 0` is static for TRT101 but an emptiness guard for TRT713 (sizes, not values).
    assert rules_found(STATIC) == ["TRT713"]


NOT_FIXED = """
import torch


class Tracker:
    def update(self, x: torch.Tensor, y, boxes):
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
    assert "`b` is assigned in only some branches" in messages[4]  # `a` is a temporary of the branch
    assert "`fresh` is assigned in only some branches" in messages[5]
    assert "Python value" in messages[6]


TEMPORARY = """
import torch
from torch import nn


class Clamp(nn.Module):
    def forward(self, hidden_states, scale):
        if not torch.isfinite(hidden_states).all():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        if scale.abs().max() > 1:
            peak = scale.abs().max()
            scale = scale / peak
        return hidden_states * scale
"""


def test_a_branch_temporary_is_computed_before_the_selects() -> None:
    """The clamp of DETR-family encoder layers: `clamp_value` is the branch's own temporary
    (read only by its next assignment): it is computed before the `torch.where`."""
    after = rewrite(TEMPORARY, unsafe=True, select=("TRT101",))  # TRT733 would take the isfinite too
    assert ("        _trt_cond = torch.logical_not(torch.as_tensor(torch.isfinite(hidden_states).all()))\n"
            "        clamp_value = torch.finfo(hidden_states.dtype).max - 1000\n"
            "        hidden_states = torch.where(_trt_cond, torch.clamp(hidden_states, min=-clamp_value, "
            "max=clamp_value), hidden_states)\n") in after
    assert "        peak = scale.abs().max()\n        scale = torch.where(_trt_cond_1, scale / peak, scale)\n" in after \
        or "        peak = scale.abs().max()\n        scale = torch.where(_trt_cond, scale / peak, scale)\n" in after
    before, fixed = load(TEMPORARY, "Clamp")(), load(after, "Clamp")()
    big = torch.finfo(torch.float32).max
    for hidden, scale in [(torch.randn(2, 3), torch.tensor([0.5, -0.2, 0.1])), (torch.randn(2, 3), torch.randn(3) * 4),
                          (torch.tensor([[float("inf"), -float("inf"), 1.0]]), torch.tensor([3.0, 0.0, -2.0])),
                          (torch.tensor([[big, -big, float("nan")]]), torch.zeros(3)), (torch.zeros(0, 3), torch.ones(3))]:
        assert_same(before(hidden, scale), fixed(hidden, scale))


def test_a_name_the_branch_sets_and_others_read_is_no_temporary() -> None:
    code = """
    import torch
    def gate(x: torch.Tensor, y: torch.Tensor):
        if x.sum() > 0:
            s = x.sum()
            y = y / s
        return y, s
    """
    after = rewrite(code, unsafe=True)
    assert "torch.where" not in after
    [message] = [m for m in _messages(code) if "TRT101" in m or "tensor values" in m]
    assert "reads a name another assignment" in message


def test_a_name_that_may_be_none_before_the_if_is_not_selected() -> None:
    """timm's Gemma4 ViT sets `patch_valid = ~sentinel` only when a sentinel is there; the
    parameter defaults to None, which `torch.where(c, ~sentinel, patch_valid)` raises on."""
    code = """
    import torch
    from torch import nn
    class Embed(nn.Module):
        def forward(self, x, patch_coord, patch_valid=None):
            if patch_valid is None:
                sentinel = (patch_coord == -1).all(dim=-1)
                if sentinel.any():
                    patch_valid = ~sentinel
            return x, patch_valid
    """
    assert "torch.where" not in rewrite(code, unsafe=True)
    [message] = _messages(code)
    assert "`patch_valid` is assigned in only some branches and may be None before the `if`" in message


def test_a_python_bool_from_allclose_or_equal_is_not_a_tensor_condition() -> None:
    """`torch.allclose` and `Tensor.equal` answer with a Python bool: a trace bakes it in whatever
    wraps it, so the rewrite would gain nothing (kornia closed its polygons so)."""
    code = """
    import torch
    def close(polygon: torch.Tensor, other: torch.Tensor):
        y = other
        if not torch.allclose(polygon[-1], polygon[0]):
            y = polygon
        if polygon.equal(other):
            y = other * 2
        return y
    """
    assert "torch.where" not in rewrite(code, unsafe=True)
    messages = _messages(code)
    assert len(messages) == 2 and all("the condition is a Python value" in m for m in messages)


def _messages(code: str) -> list[str]:
    from trtcodemod.engine import Options, check_source

    return [f.message for f in check_source(textwrap.dedent(code).encode(), "s.py", Options(select=("TRT101",)))]


def test_static_then_dynamic_elif_not_fixed() -> None:
    code = """
    from typing import Optional
    import torch
    class Gate:
        def f(self, x: Optional[torch.Tensor], y):
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
        def decode(self, deltas: torch.Tensor, anchors: torch.Tensor):
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
        def f(self, x: torch.Tensor, y):
            if x.sum() > 0:  # trtcodemod: ignore[TRT101]
                y = x
            return y
    """
    assert rules_found(code) == []


def test_example_model_tracker_update() -> None:
    """examples/tracker_update.py: the rewritten model (TRT101 + TRT102, --unsafe) matches eager."""
    from pathlib import Path

    source = (REPO / "examples" / "tracker_update.py").read_text()
    after = rewrite(source, unsafe=True, select=("TRT1",), target="8.0")
    assert "if det_scores" not in after and "torch.where(misses > self.max_misses)" in after
    found = rules_found(source, target="8.0")  # TRT102 matters below 8.4
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
    from typing import Optional
    import torch
    class Gate:
        def f(self, x: torch.Tensor, mask: Optional[torch.Tensor], note: str):
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


# --- the stated assumptions: values, dtype, gradients, aliasing, exceptions ---------------

CLIP = """
import torch
from torch import nn


class Clip(nn.Module):
    def forward(self, x, limit):
        if x.abs().sum() > limit:
            y = x.clamp(-limit, limit)
        else:
            y = x
        return y
"""


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
@pytest.mark.parametrize("values", [
    [0.0, 0.0, 0.0], [-3.0, 0.5, -0.0], [4.0, -5.0, 2.0], [float("inf"), 1.0, -1.0], [float("nan"), 2.0, 3.0],
    [float("-inf"), float("inf"), 0.0], [],
], ids=["zeros", "small", "large", "inf", "nan", "infs", "empty"])
def test_rewrite_keeps_values_dtype_shape_on_edge_inputs(dtype: torch.dtype, values: list) -> None:
    after = rewrite(CLIP, unsafe=True, select=("TRT101",))
    assert "y = torch.where(_trt_cond, x.clamp(-limit, limit), x)" in after
    before_m, after_m = load(CLIP, "Clip")(), load(after, "Clip")()
    for shape in ((len(values),), (1, len(values))):
        x = torch.tensor(values, dtype=dtype).reshape(shape)
        for limit in (1.0, 100.0):
            assert_same(before_m(x, limit), after_m(x, limit))


def test_branches_of_different_dtypes_promote() -> None:
    """The documented dtype assumption: an int input takes the else branch as int, torch.where promotes."""
    after = rewrite(CLIP, unsafe=True, select=("TRT101",))
    x = torch.tensor([0, 1, -1])
    assert load(CLIP, "Clip")()(x, 100.0).dtype == torch.int64
    assert load(after, "Clip")()(x, 100.0).dtype == torch.float32
    assert "promoted dtype" in _doc()


def _doc() -> str:
    from transforms.control_flow import DataDependentIf

    return " ".join(DataDependentIf.info.doc.split())  # its wrapping is no part of what it says


def test_doc_states_the_contract() -> None:
    doc = _doc()
    for part in ("Values:", "Dtype and shape:", "Gradients:", "Aliasing:", "Exceptions:", "Toolchains:",
                 "NaN gradients", "zero `.grad`", "new tensor", "never a view", "now raises", "cost time",
                 "TRT102"):
        assert part in doc, part


ROOT = """
import torch
from torch import nn


class Root(nn.Module):
    def forward(self, x):
        if x.min() > 0:
            y = x.sqrt()
        else:
            y = x * 2
        return y
"""


def test_gradient_is_nan_from_the_branch_not_taken() -> None:
    """The stated gradient assumption is real: sqrt runs where the `if` skipped it, and 0 * inf is NaN."""
    after = rewrite(ROOT, unsafe=True, select=("TRT101",))
    assert "y = torch.where(_trt_cond, x.sqrt(), x * 2)" in after
    for values in ([0.0, 4.0], [-1.0, 4.0], [-0.0, -3.0]):  # the else branch is taken
        runs = []
        for source in (ROOT, after):
            x = torch.tensor(values, requires_grad=True)
            y = load(source, "Root")()(x)
            y.sum().backward()
            runs.append((y.detach(), x.grad))
        assert_same(runs[0][0], runs[1][0])  # the forward values agree
        assert torch.equal(runs[0][1], torch.tensor([2.0, 2.0]))
        # NaN exactly where sqrt' is inf (x = 0) or NaN (x < 0); 0 * finite elsewhere adds nothing.
        not_finite = torch.tensor(values) <= 0
        assert torch.equal(torch.isnan(runs[1][1]), not_finite)
        assert torch.equal(runs[1][1][~not_finite], runs[0][1][~not_finite])
    # Where the branch with sqrt is the one taken, the gradients agree.
    runs = []
    for source in (ROOT, after):
        x = torch.tensor([1.0, 4.0], requires_grad=True)
        load(source, "Root")()(x).sum().backward()
        runs.append(x.grad)
    assert_same(runs[0], runs[1])
    assert "NaN gradients" in _doc()


PICK = """
import torch
from torch import nn


class Pick(nn.Module):
    def forward(self, score, a, b):
        if score > 0:
            out = a * 2
        else:
            out = b
        return out
"""


def test_branch_not_taken_gets_zero_gradient_instead_of_none() -> None:
    after = rewrite(PICK, unsafe=True, select=("TRT101",))
    grads = []
    for source in (PICK, after):
        a = torch.tensor([1.0, -2.0], requires_grad=True)
        b = torch.tensor([3.0, 0.0], requires_grad=True)
        out = load(source, "Pick")()(torch.tensor(1.0), a, b)
        out.sum().backward()
        grads.append((a.grad, b.grad))
    assert_same(grads[0][0], grads[1][0])
    assert grads[0][1] is None
    assert torch.equal(grads[1][1], torch.zeros(2))
    # requires_grad follows either branch: `b` alone requires grad, the `if` returned `a * 2`.
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0], requires_grad=True)
    assert not load(PICK, "Pick")()(torch.tensor(1.0), a, b).requires_grad
    assert load(after, "Pick")()(torch.tensor(1.0), a, b).requires_grad


def test_branch_exception_now_raises() -> None:
    """A branch the `if` skipped runs: its shape error raises."""
    after = rewrite(PICK, unsafe=True, select=("TRT101",))
    a, b = torch.ones(2), torch.ones(3)
    assert load(PICK, "Pick")()(torch.tensor(1.0), a, b).shape == (2,)
    with pytest.raises(RuntimeError):
        load(after, "Pick")()(torch.tensor(1.0), a, b)


def test_with_trt102_the_branch_not_taken_leaks_nan() -> None:
    """Both unsafe rules: the torch.where TRT101 writes becomes a blend, and log(-1) = NaN leaks."""
    code = """
    import torch
    from torch import nn
    class Log(nn.Module):
        def forward(self, x):
            if x.min() > 0:
                y = x.log()
            else:
                y = x
            return y
    """
    only_101 = rewrite(code, unsafe=True, select=("TRT101",))
    both = rewrite(code, unsafe=True, select=("TRT101", "TRT102"), target="8.0")
    assert "y = x.log() * _trt_cond + x * torch.logical_not(_trt_cond)" in both
    x = torch.tensor([-1.0, 2.0])
    expected = load(code, "Log")()(x)
    assert_same(expected, load(only_101, "Log")()(x))
    assert torch.isnan(load(both, "Log")()(x)[0])


ALIASED = {
    "method": """
        if x.sum() > 0:
            out = x
        else:
            out = y * 2
        out.add_(1)
        return out
    """,
    "source": """
        if x.sum() > 0:
            out = x
        else:
            out = y
        x.mul_(2)
        return out
    """,
    "view": """
        if x.sum() > 0:
            out = x.view(-1)
        else:
            out = y
        torch.relu_(x)
        return out
    """,
    "item": """
        if x.sum() > 0:
            out = x[0]
        else:
            out = y[0]
        out[0] = 5.0
        return x, y
    """,
    "augmented": """
        if x.sum() > 0:
            out = y
        else:
            out = x
        out += 1
        return out
    """,
    "out_argument": """
        if x.sum() > 0:
            out = x
        else:
            out = y
        torch.add(y, 1, out=out)
        return out
    """,
    "one_sided": """
        if x.sum() > 0:
            x = y * 2
        x.clamp_(min=0)
        return x
    """,
    "loop": """
        for _ in range(2):
            y.mul_(2)
            if x.sum() > 0:
                out = y
            else:
                out = x
        return out
    """,
    # `t` is its own tensor only until another name holds it: then `t /= 2` reaches that name too
    "kept_after_an_alias": """
        t = x * 2
        keep = t
        if x.sum() > 0:
            t = t - 1
        t /= 2
        return t, keep
    """,
    "kept_after_a_view": """
        t = x * 2
        flat = t.view(-1)
        if x.sum() > 0:
            t = t - 1
        t /= 2
        return t, flat
    """,
    "kept_after_a_container": """
        t = x * 2
        seen = []
        seen.append(t)
        if x.sum() > 0:
            t = t - 1
        t /= 2
        return t, seen[0]
    """,
    "kept_bound_outside_the_loop": """
        t = x * 2
        for _ in range(2):
            if t.sum() > 0:
                t = t - 1
            t /= 2
        return t
    """,
    "attribute": """
        if x.sum() > 0:
            out = self.state
        else:
            out = y
        self.state[0] = 1.0
        return out
    """,
}


def _aliased_module(body: str) -> str:
    return ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, y):\n"
            + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n")


@pytest.mark.parametrize("case", list(ALIASED))
def test_alias_changed_in_place_later_is_reported_not_fixed(case: str) -> None:
    code = _aliased_module(ALIASED[case])
    assert rewrite(code, unsafe=True, select=("TRT101",)) == code
    from trtcodemod.engine import Options, check_source

    (finding,) = check_source(code.encode(), "s.py", Options(select=("TRT101",), unsafe=True))
    assert "later changes it in place" in finding.message and finding.edit is None


def test_own_tensor_changed_in_place_later_is_fixed() -> None:
    """MONAI's SobelGradients: `grad` is a computed tensor no other name holds, so `grad -= grad_min` (one
    branch) and the later `grad /= grad_max` change only what `grad` names, in eager mode and after the rewrite."""
    code = _aliased_module("""
        grad = x * 2
        grad_min = grad.min()
        if grad_min != grad.max():
            grad -= grad_min
        grad_max = grad.max()
        if grad_max > 0:
            grad /= grad_max
        return grad
    """)
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "grad = torch.where(_trt_cond, grad - grad_min, grad)" in after, after
    assert "grad = torch.where(_trt_cond, grad / grad_max, grad)" in after, after
    for x in (torch.tensor([1.0, -0.5, 3.0]), torch.zeros(3), torch.full((3,), -2.0), torch.tensor([2.0, 2.0])):
        assert torch.equal(load(code, "M")()(x.clone(), x), load(after, "M")()(x.clone(), x))


def test_why_the_alias_check_exists() -> None:
    """Without the check, `out = x` then `out.add_(1)` would stop changing x (shown on the rewrite of a
    version whose mutation the check cannot see: it happens inside a called method)."""
    code = """
    import torch
    from torch import nn
    class M(nn.Module):
        def bump(self, t):
            t.add_(1)
        def forward(self, x, y):
            if x.sum() > 0:
                out = x
            else:
                out = y
            self.bump(out)
            return x
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "out = torch.where(_trt_cond, x, y)" in after  # not seen: a documented limit
    x, y = torch.ones(2), torch.zeros(2)
    assert torch.equal(load(code, "M")()(x.clone(), y), torch.full((2,), 2.0))
    assert torch.equal(load(after, "M")()(x.clone(), y), torch.ones(2))
    assert "inside a called function is" in _doc()


def test_alias_changed_before_the_if_is_fixed() -> None:
    code = _aliased_module("""
        x.add_(1)
        if x.sum() > 0:
            out = x
        else:
            out = y
        return out * 2
    """)
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "out = torch.where(_trt_cond, x, y)" in after
    for x in (torch.tensor([1.0, -0.5]), torch.tensor([-3.0, 0.0]), torch.zeros(0)):
        y = torch.tensor([4.0, -4.0])[: x.numel()]
        assert_same(load(code, "M")()(x.clone(), y), load(after, "M")()(x.clone(), y))


# --- precision: only conditions that are evidently tensor values ------------------------

LOOK_ALIKES = """
import math
import os

import numpy as np
import torch
from torch import nn


class Loader(nn.Module):
    def __init__(self, cfg, path="weights.pt"):
        super().__init__()
        self.cfg = cfg
        self.use_fp16 = cfg.fp16
        self.path = path
        self.proj = nn.Linear(4, 4)
        self.stats = np.zeros(3)

    def load(self, path):
        if path.endswith(".npy"):
            state = np.load(path)
        else:
            state = torch.load(path)
        return state

    def forward(self, x, meta):
        name = os.path.basename(self.path)
        if name.startswith("ckpt"):
            x = x + 1
        arr = np.asarray(self.stats)
        if arr.max() > 0 or np.any(arr < 0) or math.isfinite(arr.sum()):
            x = x + 1
        if self.use_fp16 and self.cfg.head.norm == "bn" or self.cfg.scale > 1:
            x = x + 1
        if x.size(0) > 2 and x.numel() > 0 and x.dim() == 2 and len(x) > 1 and x.shape[-1] == 4:
            x = x + 1
        n = x.shape[0]
        total = n * 2 + len(meta)
        if total > 10:
            x = x + 1
        if meta["flip"] or meta.get("scale", 1.0) > 1:
            x = x + 1
        if isinstance(meta, dict) and "boxes" in meta and meta is not None:
            x = x + 1
        count = helper(x)
        if count > 3:
            x = x + 1
        if torch.is_grad_enabled() or torch.overrides.has_torch_function((x,)) or x.is_nested:
            x = x + 1
        fmt = x.dtype
        if fmt == torch.float16 or x.data_ptr() % 16 or meta.flip:
            x = x + 1
        return self.crop(x, n, meta["scale"])

    def crop(self, x, size, scale):
        # called with a shape and a dict value: neither parameter is a tensor
        if size > 4 or scale > 1.5:
            x = x[:4]
        return x


def helper(x):
    if x.sum() > 0:
        return 1
    return 0


class Stats:
    def summarize(self, values, threshold=0.5):
        if values.mean() > threshold:
            return "high"
        return "low"


def read_config(text: str, depth: int):
    if text.strip() == "" or depth > 3:
        return None
    return text


def per_class(scores: torch.Tensor, thr: float):
    # mmdet3d's box3d_multiclass_nms: a list, tested for emptiness, then rebound to a tensor
    kept = []
    for i in range(scores.shape[1]):
        kept.append(scores[:, i] * thr)
    if kept:
        kept = torch.cat(kept)
    else:
        kept = scores.new_zeros(0)
    if not kept.numel():
        kept = scores
    return kept
"""


def test_look_alikes_are_not_flagged() -> None:
    """Strings, NumPy, math, shapes, configuration, file loaders and unknown values: no TRT101."""
    assert rules_found(LOOK_ALIKES, select=("TRT101", "TRT104")) == []
    assert rewrite(LOOK_ALIKES, unsafe=True, select=("TRT101", "TRT104")) == textwrap.dedent(LOOK_ALIKES)


def test_file_loader_branches_not_merged() -> None:
    """The loader `--unsafe` used to turn into torch.where, running both branches: it now runs one."""
    code = """
    import numpy as np
    import torch
    class Checkpoint:
        def load(self, path):
            if path.endswith(".npy"):
                state = np.load(path)
            else:
                state = torch.load(path)
            return state
    """
    assert rules_found(code) == []
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


POSITIVES = """
import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.blocks = nn.ModuleList([nn.Linear(4, 4)])
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("running", torch.zeros(4))

    def forward(self, x, mask=None):
        logits = self.proj(x)
        if logits.max() > 0:  # submodule output, tensor method
            x = x * 2
        probs = F.softmax(logits, dim=-1)
        if (probs > 0.5).any():  # torch op on an input
            x = x * 3
        if self.scale > 1:  # module parameter
            x = x * 4
        if self.running.sum() == 0:  # module buffer
            x = x * 5
        y = self.blocks[0](x)
        if y.mean() < 0:  # a ModuleList entry
            x = x * 6
        if x.max().item() > 1:  # a value read out of a tensor
            x = x * 7
        return self.refine(x, 2)

    def refine(self, feat, steps: int):
        # A helper called from forward with a tensor: its parameter is a tensor too.
        if feat.abs().sum() > steps:
            feat = feat / 2
        return feat


def gate(score: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if score > 0:
        out = a
    else:
        out = b
    return out
"""


def test_tensor_conditions_flagged() -> None:
    from trtcodemod.engine import Options, check_source

    findings = check_source(textwrap.dedent(POSITIVES).encode(), "p.py", Options(select=("TRT101",)))
    lines = textwrap.dedent(POSITIVES).splitlines()
    flagged = [lines[f.line - 1].strip() for f in findings]
    assert flagged == [
        "if logits.max() > 0:  # submodule output, tensor method",
        "if (probs > 0.5).any():  # torch op on an input",
        "if self.scale > 1:  # module parameter",
        "if self.running.sum() == 0:  # module buffer",
        "if y.mean() < 0:  # a ModuleList entry",
        "if x.max().item() > 1:  # a value read out of a tensor",
        "if feat.abs().sum() > steps:",
        "if score > 0:",
    ]


def test_annotated_free_function_is_rewritten_and_matches() -> None:
    code = """
    import torch
    def gate(score: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        if score > 0:
            out = a
        else:
            out = b
        return out
    """
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert "out = torch.where(_trt_cond, a, b)" in after
    ns_before, ns_after = {}, {}
    exec(textwrap.dedent(code), ns_before)
    exec(after, ns_after)
    a, b = torch.ones(2), torch.zeros(2)
    for score in (1.0, -1.0):
        assert_same(ns_before["gate"](torch.tensor(score), a, b), ns_after["gate"](torch.tensor(score), a, b))


def test_evidence_reaches_a_helper_defined_before_its_caller() -> None:
    """forward → refine → gate, defined in reverse: the class analysis must come back to
    `gate` and `refine` once their callers have shown their arguments are tensors."""
    from trtcodemod.engine import Options, check_source

    code = textwrap.dedent("""\
        import torch
        from torch import nn

        class Head(nn.Module):
            def gate(self, score):
                if score.sum() > 0:
                    score = score * 2
                return score

            def refine(self, feat):
                return self.gate(feat.abs())

            def forward(self, x):
                return self.refine(x)

            def unused(self, y):
                if y.sum() > 0:
                    y = y * 2
                return y
        """)
    findings = check_source(code.encode(), "head.py", Options(select=("TRT101",)))
    assert [(f.rule, f.line) for f in findings] == [("TRT101", 6)]

    before: dict = {}
    after: dict = {}
    exec(code, before)
    exec(rewrite(code, select=("TRT101",), unsafe=True), after)
    for x in (torch.tensor([[1.0, -2.0]]), torch.zeros(1, 2), torch.tensor([[-0.0, 0.0]]), torch.empty(0, 2)):
        assert torch.equal(after["Head"]()(x), before["Head"]()(x))


TRACING_DECIDED = """
import torch
import torchvision
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if not torch.jit.is_tracing() and bool((x >= 0).all()):  # eager-only shortcut
            return x * 1.0
        if x.numel() > 4000 and not torchvision._is_tracing():  # torchvision's batched_nms switch
            return x
        if torch.jit.is_tracing():
            y = x.relu()
        elif x.sum() > 0:  # never evaluated while tracing
            y = x + 1
        else:
            y = x - 1
        return y
"""


def test_conditions_decided_while_tracing_are_not_reported() -> None:
    """`not is_tracing() and ...` is False in the trace (the data never decides it there), and an
    `elif` after a test that is True while tracing never runs in the trace."""
    assert rules_found(TRACING_DECIDED, select=("TRT101", "TRT713")) == []
    still = TRACING_DECIDED.replace("if torch.jit.is_tracing():", "if x.mean() > 0:")
    assert rules_found(still, select=("TRT101",)) == ["TRT101"]
    runnable = TRACING_DECIDED.replace("import torchvision\n", "").replace("torchvision._is_tracing()",
                                                                          "torch.jit.is_tracing()")
    net = load(runnable, "Net")()
    for x in (torch.tensor([1.0, -2.0]), torch.zeros(3), torch.empty(0)):
        assert torch.equal(torch.jit.trace(net, (x,), check_trace=False)(x), x.relu())


EMPTY_GUARD = """\
import torch


def mutual(d1: torch.Tensor, d2: torch.Tensor):
    if (len(d1) == 0) or (len(d2) == 0):
        return d1.new_empty(0, 1)
    return torch.cdist(d1, d2).min(dim=1).values.view(-1, 1)
"""


def _observed_guard(method: str, path: str):
    """Facts of a run of ``EMPTY_GUARD`` (``path``) that read ``method`` of a tensor at each `len(...)`."""
    from trtcodemod.evidence.facts import Facts

    line = EMPTY_GUARD.splitlines().index("    if (len(d1) == 0) or (len(d2) == 0):") + 1
    reads = [{"kind": "value_read", "path": path, "line": line, "column": col, "end_line": line,
              "end_column": col + 7, "method": method, "count": 1} for col in (9, 27)]
    return Facts.from_json({"runs": 2, "lines": {path: [4, 5, 7]}, "events": reads})


@pytest.mark.parametrize("method, reported", [("__len__", False), ("__bool__", True)])
def test_len_read_by_the_run_is_a_size_not_a_tensor_value(tmp_path, method: str, reported: bool) -> None:
    """kornia's `match_mnn`: the recorded run saw `Tensor.__len__` in `if len(d1) == 0 ...`, which reads
    `shape[0]`, not the data; it made TRT101 report a data-dependent `if`. A `__bool__` read at the
    same place still does (the test would pass for a rule that never reports)."""
    from trtcodemod.engine import Options, check_source

    path = str((tmp_path / "m.py").resolve())
    (tmp_path / "m.py").write_text(EMPTY_GUARD)
    found = check_source(EMPTY_GUARD.encode(), path, Options(select=("TRT101",), facts=_observed_guard(method, path)))
    assert [f.rule for f in found] == (["TRT101"] if reported else [])


def test_an_emptiness_guard_traces_right_at_every_non_empty_size() -> None:
    """What the verdict rests on: a trace keeps the non-empty branch, which equals eager mode at other
    sizes (and at one row, the edge); only an empty input (which a convolution's grid never gives) would
    need the other branch, which is what TRT713's warning says."""
    mutual = load(EMPTY_GUARD, "mutual")
    gen = torch.Generator().manual_seed(0)
    example = (torch.randn(5, 4, generator=gen), torch.randn(5, 4, generator=gen))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(mutual, example, check_trace=False)
    for n, m in ((5, 5), (1, 1), (9, 3), (2, 11)):
        d1, d2 = torch.randn(n, 4, generator=gen), torch.randn(m, 4, generator=gen)
        d2[0] = d1[0]  # an exact match: a zero distance
        assert torch.equal(traced(d1, d2), mutual(d1, d2))
    empty = torch.empty(0, 4)
    assert mutual(empty, example[1]).shape == (0, 1)
    with pytest.raises(RuntimeError):  # the trace has no empty branch: `min` over no rows
        traced(example[0], empty)


TILE_CHAIN = """\
import torch


class Upscale(torch.nn.Module):
    def forward(self, x, tile_mode):
        if tile_mode == 0:
            return x * 2
        elif tile_mode == 1:
            return x[:, :, : x.shape[2] // 2] * 2
        return x
"""


def _observed_chain(path: str, holds: str | None):
    """Facts of a run of ``TILE_CHAIN`` that took the first branch: the chain's later tests never ran, and
    (``holds``) what ``tile_mode`` held at each recorded call."""
    from trtcodemod.evidence.facts import Facts

    events = []
    if holds is not None:
        events = [{"kind": "parameter", "path": path, "line": 5, "column": 1, "end_line": 5, "end_column": 1,
                   "direct": True, "count": 3, "function": "forward", "name": name, "holds": kind}
                  for name, kind in (("x", "tensor"), ("tile_mode", holds))]
    return Facts.from_json({"version": 1, "runs": 3, "lines": {path: [1, 4, 5, 6, 7]}, "events": events,
                            "inputs": {}})


@pytest.mark.parametrize("holds, reported", [(None, True), ("tensor", True), ("int", False)])
def test_a_forward_input_the_run_passed_as_a_number_is_configuration(tmp_path, holds, reported) -> None:
    """ccrestoration's Real-CUGAN (``UpCunet2x.forward(self, x, tile_mode, cache_mode, alpha, pro)``,
    ``if tile_mode == 0: ... elif tile_mode == 1:``): an unannotated forward input reads as a tensor, and
    the ``elif`` the run never reached was reported as depending on tensor values. The recorded run says
    every call passed a Python int: then no test of the chain is data-dependent. Without that record, or
    where the run passed a tensor, the never-run ``elif`` is still reported."""
    from trtcodemod.engine import Options, check_source

    path = str((tmp_path / "m.py").resolve())
    (tmp_path / "m.py").write_text(TILE_CHAIN)
    found = check_source(TILE_CHAIN.encode(), path,
                         Options(select=("TRT101",), facts=_observed_chain(path, holds)))
    assert [(f.rule, f.line) for f in found] == ([("TRT101", 6)] if reported else [])
    if reported:
        assert "`if tile_mode == 1`" in found[0].message
    # The chain itself: eager mode for both modes (what the trace of tile_mode=0 keeps is the first branch).
    model = load(TILE_CHAIN, "Upscale")()
    for x in (torch.randn(1, 2, 4, 4), torch.zeros(2, 1, 3, 3), torch.full((1, 1, 2, 2), float("-inf"))):
        assert torch.equal(model(x, 0), x * 2) and model(x, 1).shape[2] == x.shape[2] // 2


# --- an early return on a tensor condition ------------------------------------------------------------
# The trace reads the condition once, so the graph keeps the example's way: with a moving example, a flow
# that is (nearly) zero is warped where eager mode returns the frame itself. The rewrite computes the rest
# while tracing and selects the early return's value with torch.where.

# CSRavasio/oflibpytorch@bf650ce01b00867220311bd48e8a55e70b36e7de src/oflibpytorch/utils.py:497
# (`apply_flow`): `if all(is_zero_flow(flow, thresholded=True)): return target`, Python's `all` over the
# batch's per-image flags, before the warp (a helper whose condition the run saw read).
STILL_WARP = """\
import torch
import torch.nn.functional as F
from torch import nn


def still(flow):
    return (flow.abs() < 0.5).flatten(1).all(1)


def shift(flow, frame):
    if all(still(flow)):  # a flow this small moves nothing
        return frame
    h, w = flow.shape[-2:]
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    grid = torch.stack((xs, ys), -1).to(flow.dtype) - flow.permute(0, 2, 3, 1)
    scale = torch.stack([torch.as_tensor(w - 1), torch.as_tensor(h - 1)]).clamp(min=1).to(flow.dtype)
    return F.grid_sample(frame, 2 * grid / scale - 1, align_corners=True)


class M(nn.Module):
    def forward(self, flow, frame):
        return shift(flow, frame)
"""

# The same shortcut as a tensor reduction in forward itself (`if torch.all(flo == 0): return x` before a
# backward warp, as in DenseMatching-style `warp(x, flo)` helpers): evidently a tensor value, no facts needed.
ZERO_WARP = """\
import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, flow, frame):
        if torch.all(flow.abs() < 0.5):
            return frame
        n, _, h, w = flow.shape
        base = torch.stack(torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")[::-1], -1)
        return F.grid_sample(frame, base - flow.permute(0, 2, 3, 1) / 4, align_corners=True)
"""


def _still_facts(path: str):
    from trtcodemod.evidence.facts import Facts

    line = STILL_WARP.splitlines().index("    if all(still(flow)):  # a flow this small moves nothing") + 1
    reads = [{"kind": "value_read", "path": path, "line": line, "column": 7, "end_line": line, "end_column": 23,
              "method": "__bool__", "count": 2}]
    return Facts.from_json({"runs": 2, "lines": {path: list(range(1, 26))}, "events": reads})


def _shortcut_rewrite(code: str, tmp_path) -> str:
    from trtcodemod.engine import Options, fix_source

    path = str((tmp_path / "warp.py").resolve())
    facts = _still_facts(path) if code is STILL_WARP else None
    options = Options(select=("TRT101",), unsafe=True, facts=facts, **({"scope": "all"} if facts else {}))
    return fix_source(code.encode(), path, options).source.decode()


def test_an_early_return_becomes_a_select_of_its_value(tmp_path) -> None:
    after = _shortcut_rewrite(STILL_WARP, tmp_path)
    assert ("    _trt_cond = _trt_all(still(flow))\n"
            "    if _trt_shortcut_taken(_trt_cond):  # a flow this small moves nothing\n"
            "        return frame\n"
            "    _trt_shortcut = frame\n") in after, after
    assert ("    return _trt_shortcut_select(_trt_cond, _trt_shortcut, F.grid_sample(frame, 2 * grid / scale - 1, "
            "align_corners=True))\n") in after, after
    after = _shortcut_rewrite(ZERO_WARP, tmp_path)
    assert ("        _trt_cond = torch.all(flow.abs() < 0.5)\n"
            "        if _trt_shortcut_taken(_trt_cond):\n"
            "            return frame\n"
            "        _trt_shortcut = frame\n") in after, after
    assert "        return _trt_shortcut_select(_trt_cond, _trt_shortcut, F.grid_sample(" in after


def _flow_inputs(kind: str, n: int = 2, h: int = 5, w: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    frame = torch.randn(n, 3, h, w)
    frame[:, 0, 0, 0] = float("-inf") if kind == "inf" else frame[:, 0, 0, 0]
    flow = {"still": torch.full((n, 2, h, w), 0.4), "zero": torch.zeros(n, 2, h, w),
            "moving": torch.randn(n, 2, h, w) * 3, "negative": -torch.rand(n, 2, h, w) - 0.6,
            "mixed": torch.cat([torch.zeros(1, 2, h, w), torch.ones(n - 1, 2, h, w)]),
            "inf": torch.zeros(n, 2, h, w), "nan": torch.full((n, 2, h, w), float("nan"))}[kind]
    return flow, frame


@pytest.mark.parametrize("code", [STILL_WARP, ZERO_WARP], ids=["all-builtin", "torch-all"])
def test_an_early_return_rewrite_is_eager_mode_and_follows_the_condition_in_the_graph(code: str, tmp_path) -> None:
    import numpy as np
    import onnxruntime as ort

    after = _shortcut_rewrite(code, tmp_path)
    original, rewritten = load(code, "M")(), load(after, "M")()
    kinds = ["still", "zero", "moving", "negative", "mixed", "inf", "nan"]
    for kind in kinds:
        flow, frame = _flow_inputs(kind)
        expected = original(flow, frame)
        got = rewritten(flow, frame)
        assert_same(expected, got)
        assert (got is frame) == (expected is frame)  # the shortcut still returns the very tensor
    empty = (torch.zeros(0, 2, 5, 6), torch.zeros(0, 3, 5, 6))
    assert rewritten(*empty) is empty[1] and original(*empty) is empty[1]

    def session(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, _flow_inputs("moving"), buffer, dynamo=False, opset_version=17,
                              input_names=["flow", "frame"], dynamic_axes={"flow": {0: "n"}, "frame": {0: "n"}})
        return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])

    before_graph, after_graph = session(original), session(rewritten)
    # ONNX Runtime's GridSample spreads a NaN coordinate or an infinite pixel otherwise than torch (a backend
    # difference, the same for both graphs): the graphs are compared on finite inputs.
    for kind in ("still", "zero", "moving", "negative", "mixed"):
        flow, frame = _flow_inputs(kind, n=3)
        feed = {"flow": flow.numpy(), "frame": frame.numpy()}
        expected = original(flow, frame).numpy()
        np.testing.assert_allclose(after_graph.run(None, feed)[0], expected, rtol=1e-5, atol=1e-5)
        if kind == "still":
            # The example moved: the original's graph warps by 0.4 px what eager mode returns as it is (a
            # zero flow warps to the frame itself, within rounding, either way).
            assert not np.allclose(before_graph.run(None, feed)[0], expected, atol=1e-3, equal_nan=True)
    assert "If" not in onnx_ops(rewritten, _flow_inputs("moving"))


@pytest.mark.parametrize("body,why", [
    ("if torch.all(flow == 0):\n    return frame.mul_(2)\nreturn frame + flow.sum()", "writes in place (`mul_`)"),
    ("if torch.all(flow == 0):\n    return frame * 2\nframe[0] = 0\nreturn frame + 1", "in place"),
    ("if torch.all(flow == 0):\n    return self.buf[0]\nself.buf.add_(1)\nreturn frame", "in place"),
    ("if torch.all(flow == 0):\n    return None\nreturn frame + 1", "hands back None"),
    ("if torch.all(flow == 0):\n    return frame\nout = frame\nout[0] = 0\nreturn out", "in place"),
    ("if torch.all(flow == 0):\n    return frame\nframe.add_(1)\nreturn frame", "in place"),
    ("if torch.any(flow) and torch.all(frame):\n    return frame\nreturn frame + flow.sum()", "Python value"),
    ("if torch.any(flow) or self.off:\n    return frame\nreturn frame + flow.sum()", "Python value"),
    ("if not flow.sum().item():\n    return frame\nreturn frame + flow.sum()", "Python value"),
    ("if torch.all(flow == 0):\n    return frame\nif flow.shape[0] > 1:\n    return\nreturn frame + 1", "nothing"),
    ("for _ in range(2):\n    if torch.all(flow == 0):\n        return frame\nreturn frame + 1", "inside a block"),
])
def test_early_returns_the_rewrite_cannot_keep_are_reported(body: str, why: str) -> None:
    from trtcodemod.engine import Options, check_source

    code = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, flow, frame):\n" + \
        textwrap.indent(body, "        ") + "\n"
    found = check_source(code.encode(), "m.py", Options(select=("TRT101",)))
    finding = next((f for f in found if f.fix.value == "none"), None)
    assert finding is not None and why in finding.message, (code, finding)


def test_the_iterating_builtins_helpers_are_the_builtins_outside_a_trace() -> None:
    from trtcodemod.helpers.tracing import _trt_all, _trt_any, _trt_shortcut_select, _trt_shortcut_taken

    for values in ([], [0, 1], torch.tensor([1.0, float("nan")]), torch.zeros(0), torch.tensor([True, False]),
                   torch.tensor([[1, 1], [1, 1]]) == 1):
        for helper, builtin in ((_trt_all, all), (_trt_any, any)):
            try:
                expected = ("ok", builtin(values))
            except Exception as error:  # noqa: BLE001 - the same exception is the contract
                expected = (type(error), None)
            try:
                got = ("ok", helper(values))
            except Exception as error:  # noqa: BLE001
                got = (type(error), None)
            assert got == expected, values
    for condition in (True, 0, torch.tensor(False), torch.tensor([1.0])):
        assert _trt_shortcut_taken(condition) is bool(condition)
    with pytest.raises(RuntimeError):
        _trt_shortcut_taken(torch.tensor([1, 0]))
    result = torch.ones(2)
    assert _trt_shortcut_select(torch.tensor(False), torch.zeros(2), result) is result


def test_not_through_its_helper_is_not_in_eager_mode() -> None:
    """`_trt_not` is `not` for everything but a tensor; of a tensor, a bool tensor `if` reads as `not` read it
    (NaN true, so its negation false), raising alike for no element or several."""
    from trtcodemod.helpers.tracing import _trt_not, _trt_shortcut_taken

    for value in (True, 0, [], [0], torch.tensor(False), torch.tensor([float("nan")]), torch.tensor(2.5),
                  torch.tensor([[0]]), torch.tensor(-0.0), torch.tensor(float("-inf"))):
        assert _trt_shortcut_taken(_trt_not(value)) is (not value), value
    for value in (torch.zeros(0), torch.tensor([1, 0])):
        with pytest.raises(RuntimeError) as before:
            not value  # noqa: B015 - the exception is the point
        with pytest.raises(RuntimeError) as after:
            _trt_shortcut_taken(_trt_not(value))
        assert str(after.value) == str(before.value)


GUARDED = """\
import torch
from torch import nn


class M(nn.Module):
    def __init__(self, smooth: bool = True):
        super().__init__()
        self.smooth = smooth

    def forward(self, t):
        if not self.smooth or not (t != 0).any():
            return t
        return t * 0.5 + t.mean()
"""


@pytest.mark.parametrize("smooth", [True, False])
def test_a_static_guard_keeps_its_own_if_and_the_rewrite_scripts(smooth: bool, tmp_path) -> None:
    """`if S or C: return A` is `if S: return A` and the shortcut on C; `not` of a tensor goes through
    `_trt_not`. Eager and scripted alike, and the trace follows C where S lets it."""
    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT101",), unsafe=True)
    after = fix_source(GUARDED.encode(), str(tmp_path / "g.py"), options).source.decode()
    assert ("        if not self.smooth:\n            return t\n"
            "        _trt_cond = _trt_not((t != 0).any())\n        if _trt_shortcut_taken(_trt_cond):\n"
            "            return t\n        _trt_shortcut = t\n") in after, after
    from safety import import_source

    original, rewritten = load(GUARDED, "M")(smooth), import_source(after, tmp_path)["M"](smooth)
    scripted = torch.jit.script(rewritten)
    cases = [torch.zeros(3), torch.tensor([0.0, -2.0, float("nan")]), torch.tensor([float("inf"), 1.0]), torch.zeros(0)]
    for x in cases:
        expected = original(x)
        for got in (rewritten(x), scripted(x)):
            assert_same(expected, got)
        assert (rewritten(x) is x) == (expected is x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(rewritten, (torch.ones(4),), check_trace=False)
    for x in (torch.zeros(5), torch.arange(5.0) - 2):
        assert_same(traced(x), original(x))


def test_a_computed_shortcut_is_computed_only_while_tracing(tmp_path) -> None:
    """Eager mode computes the early return's value only where it returns it (a counter in the value's helper
    says so); the trace computes it and selects it."""
    code = """\
import torch
from torch import nn

CALLS = []


def fallback(x):
    CALLS.append(1)
    return x.new_zeros(x.shape)


class M(nn.Module):
    def forward(self, x):
        if (x == 0).all():
            return fallback(x)
        return x / x.abs().sum()
"""
    from trtcodemod.engine import Options, fix_source

    after = fix_source(code.encode(), str(tmp_path / "c.py"), Options(select=("TRT101",), unsafe=True)).source.decode()
    assert "        _trt_shortcut = fallback(x) if _trt_tracing() else None\n" in after, after
    namespace: dict = {}
    exec(compile(after, str(tmp_path / "c.py"), "exec"), namespace)
    model = namespace["M"]()
    assert_same(model(torch.tensor([1.0, -3.0])), torch.tensor([0.25, -0.75]))
    assert namespace["CALLS"] == []
    assert_same(model(torch.zeros(2)), torch.zeros(2))
    assert namespace["CALLS"] == [1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(model, (torch.ones(3),), check_trace=False)
    assert_same(traced(torch.zeros(3)), torch.zeros(3))
    assert_same(traced(torch.tensor([2.0, 0.0, -2.0])), torch.tensor([0.5, 0.0, -0.5]))


PAIRS = """\
import torch
from torch import nn


class Kept(nn.Module):
    def forward(self, x, y):
        pair = (x, y)
        if (x == 0).all():
            return pair
        return x + 1, y * 2


class Built(nn.Module):
    def forward(self, x, y):
        if (x == 0).all():
            return x, y.abs() if y.numel() else y
        return x + 1, y * 2
"""


@pytest.mark.parametrize("name", ["Kept", "Built"])
def test_an_early_return_of_a_tuple_is_selected_element_by_element(name: str, tmp_path) -> None:
    """`return a, b` after the shortcut was passed to the select as two arguments (a TypeError on every call);
    a tuple the shortcut builds, or a conditional expression in it, keeps its grouping."""
    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT101",), unsafe=True)
    after = fix_source(PAIRS.encode(), str(tmp_path / "p.py"), options).source.decode()
    assert "return _trt_shortcut_select(_trt_cond, _trt_shortcut, (x + 1, y * 2))\n" in after, after
    assert "        _trt_shortcut = (x, y.abs() if y.numel() else y) if _trt_tracing() else None\n" in after, after
    original, rewritten = load(PAIRS, name)(), load(after, name)()
    cases = [(torch.zeros(3), torch.tensor([-1.0, float("nan"), 2.0])), (torch.tensor([0.0, -2.0]), torch.ones(2)),
             (torch.zeros(0), torch.zeros(0)), (torch.tensor([float("inf")]), torch.tensor([-0.0]))]
    for x, y in cases:
        expected, got = original(x, y), rewritten(x, y)
        assert type(got) is tuple and len(got) == 2
        for e, g in zip(expected, got):
            assert_same(e, g)
            assert (g is x) == (e is x) and (g is y) == (e is y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(rewritten, (torch.ones(3), torch.ones(3)), check_trace=False)
    for x, y in cases[:2]:
        for e, g in zip(original(x, y), traced(x, y)):
            assert_same(e, g)


ZERO_SCORE = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, preds, target):
        if not target.sum():
            return torch.zeros((), device=preds.device)
        return (preds * target).sum() / target.sum()
"""


def test_a_computed_shortcut_scripts(tmp_path) -> None:
    """The computed shortcut's local is None where a script runs; the select takes it as Optional there."""
    from safety import import_source

    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT101",), unsafe=True)
    after = fix_source(ZERO_SCORE.encode(), str(tmp_path / "z.py"), options).source.decode()
    assert "        _trt_shortcut = torch.zeros((), device=preds.device) if _trt_tracing() else None\n" in after, after
    original = load(ZERO_SCORE, "M")()
    scripted = torch.jit.script(import_source(after, tmp_path)["M"]())
    cases = [(torch.ones(3), torch.zeros(3)), (torch.tensor([1.0, -2.0, 4.0]), torch.tensor([1.0, 0.0, 1.0])),
             (torch.zeros(0), torch.zeros(0)), (torch.tensor([float("nan")]), torch.ones(1))]
    for preds, target in cases:
        assert_same(scripted(preds, target), original(preds, target))


CHAINED = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask):
        if not mask.any():
            return x
        if mask.all():
            return x * 0
        return torch.where(mask, x * 0, x)
"""


def test_chained_early_returns_compose(tmp_path) -> None:
    """Two shortcuts in a row: the second's value and the rest are each selected against the first's, so the
    trace follows both conditions; eager mode returns what the original returns (the very input where it did)."""
    from safety import import_source

    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT101",), unsafe=True)
    after = fix_source(CHAINED.encode(), str(tmp_path / "c.py"), options).source.decode()
    assert "        _trt_cond_2 = mask.all()\n        if _trt_shortcut_taken(_trt_cond_2):\n" in after, after
    original, rewritten = load(CHAINED, "M")(), import_source(after, tmp_path)["M"]()
    x = torch.tensor([0.0, -1.0, float("nan"), float("inf")])
    masks = [torch.zeros(4, dtype=torch.bool), torch.ones(4, dtype=torch.bool), torch.tensor([True, False, True, False])]
    for mask in masks:
        expected, got = original(x, mask), rewritten(x, mask)
        assert_same(expected, got)
        assert (got is x) == (expected is x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(rewritten, (torch.ones(4), masks[2]), check_trace=False)
    for mask in masks:
        assert_same(traced(x, mask), original(x, mask))


# kornia/kornia@b4f5a78a13891c7ac4c1cd9695941380273e981d kornia/filters/kernels.py:161-181 (`_modified_bessel_0`):
# each range of the argument written through its mask under `if idx_a.any():` / `if idx_b.any():`, the
# temporary `y` reused. Our own words, the series shortened.
MASKED = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        ax = torch.abs(x)
        out = torch.zeros_like(x)
        small = ax < 3.75
        if small.any():
            y = (x[small] / 3.75) ** 2
            out[small] = 1.0 + y * (3.5156229 + y * 3.0899424)
        large = ~small
        if torch.any(large):
            y = 3.75 / ax[large]
            out[large] = (ax[large].exp() / ax[large].sqrt()) * (0.39894228 + y * 0.01328592)
        return out
"""


def test_an_emptiness_guard_over_masked_writes_is_traced_open(tmp_path) -> None:
    """`if mask.any(): out[mask] = f(x[mask])` writes nothing where the mask is empty: the trace records the
    writes on every input (a trace of small values kept no large-value branch before), eager mode reads the
    test as before."""
    import numpy as np
    from safety import assert_same_run, import_source, run_once

    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT101",), unsafe=True)
    after = fix_source(MASKED.encode(), str(tmp_path / "m.py"), options).source.decode()
    assert "        if _trt_masked_taken(small.any()):\n" in after and \
        "        if _trt_masked_taken(torch.any(large)):\n" in after, after
    original, rewritten = load(MASKED, "M")(), import_source(after, tmp_path)["M"]()
    cases = [torch.tensor([0.5, -1.0, 0.0]), torch.tensor([5.0, -8.0]), torch.tensor([1.0, 4.0, -0.0]),
             torch.zeros(0), torch.tensor([float("nan"), float("inf"), -3.75])]
    for x in cases:
        assert_same(original(x), rewritten(x))
        graded = [x.clone().requires_grad_()]
        assert_same_run(run_once(original, graded), run_once(rewritten, graded))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = torch.jit.trace(original, (torch.tensor([0.5, 1.0]),), check_trace=False)
        traced = torch.jit.trace(rewritten, (torch.tensor([0.5, 1.0]),), check_trace=False)
    big = torch.tensor([5.0, 0.5, -7.0])
    assert not np.allclose(before(big).numpy(), original(big).numpy())  # the large range was dropped
    for x in (big, torch.tensor([0.1, 0.2]), torch.tensor([9.0, 10.0])):
        assert_same(traced(x), original(x))


@pytest.mark.parametrize("body", [
    "if small.any():\n    y = x[small] * 2\n    out[small] = y\nreturn out + y",  # y read after: live
    # torchmetrics' pearson: the name the branch rebinds was bound before the `if` and is read after it
    "corr = out + 1\nif small.any():\n    out[small] = x[small]\n    corr = torch.clamp(out, -1.0, 1.0)\nreturn corr",
    "if small.any():\n    out[small] = x[small]\n    out.add_(1)\nreturn out",  # a write not through the mask
    "if small.any():\n    out[large] = x[large]\nreturn out",  # through another mask
    # integer indices: `.any()` is False for [0], where the write would still reach row 0
    "index = (x > 0).nonzero()[:, 0]\nif index.any():\n    out[index] = x[index]\nreturn out",
    "for _ in range(2):\n    if small.any():\n        y = x[small]\n        out[small] = y\nreturn out",  # in a loop
])
def test_what_an_emptiness_guard_does_not_open(body: str) -> None:
    from trtcodemod.engine import Options, fix_source

    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        out = torch.zeros_like(x)\n        small = x.abs() < 1\n        large = ~small\n"
            + textwrap.indent(body, "        ") + "\n")
    after = fix_source(code.encode(), "m.py", Options(select=("TRT101",), unsafe=True)).source.decode()
    assert "_trt_masked_taken" not in after, after


# --- emptiness exits and narrowing guards -------------------------------------------------------------------
# `if not M.any(): continue` (or `return`), or `if M.any(): <selects> else: <exit>`, ahead of code that selects
# with the bool mask M; and `if <test of M>: ...; M = A & B`. The `if` reads its test through a helper that
# answers the selecting (narrowing) way while tracing; eager mode and scripts run it as before. Proved only by
# observation: the run saw the test go both ways, never a candidate.
# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rpn.py:2203
# (`generate_midpoint_proposals`: a level none of whose anchors passes the threshold is skipped before
# `valid.nonzero(as_tuple=True)[0]`; an image with no level left gets a `(0, 5)` tensor).
LEVELS = """\
import torch
from torch import nn


class Levels(nn.Module):
    def forward(self, scores, deltas):
        props, kept = [], []
        for level in range(scores.shape[0]):
            level_scores = scores[level].sigmoid()
            valid = level_scores >= 0.6
            if not valid.any():
                continue
            idx = valid.nonzero(as_tuple=True)[0]
            props.append(deltas[level][idx] * 2.0)
            kept.append(level_scores[idx])
        if not props:
            return torch.zeros((0, 5)), torch.zeros((0,))
        return torch.cat(props, dim=0), torch.cat(kept, dim=0)
"""

# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rcnn_inference.py:94
# (`_roi_candidates_from_head`: `if candidate_mask.any(): <select by nonzero> else: return None`, and
# the caller pads None to the fixed number of rows, as it pads an empty selection).
HEAD = """\
import torch
from torch import nn


def _positive(boxes):
    return (boxes[:, 2] > 0) & (boxes[:, 3] > 0)


def _candidates(probs: torch.Tensor, boxes: torch.Tensor):
    real = _positive(boxes)
    candidate_mask = (probs > 0.3) & real.unsqueeze(1)
    if candidate_mask.any():
        rows, classes = candidate_mask.nonzero(as_tuple=True)
        picked = boxes[rows]
        scores = probs[rows, classes]
    else:
        return None
    return picked, scores, classes + 1


class Head(nn.Module):
    def forward(self, probs, boxes):
        found = _candidates(probs, boxes)
        out = boxes.new_zeros((6, 6))
        if found is None:
            return out
        picked, scores, labels = found
        rows = torch.cat([picked, scores[:, None]], dim=1)[:6]
        out[: rows.shape[0]] = rows
        return out
"""

# Own re-writing of facebookresearch/detectron2@02b5c4e295e990042a714712c21dc79b731e8833
# projects/DensePose/densepose/modeling/losses/embed.py:80 (`if not torch.any(j_valid): continue` before
# `[j_valid, :]`, j_valid a product of bool masks): here the exit is NOT an optimisation, the mean over an
# empty selection is NaN, which is what the proof by observation catches.
MESHES = """\
import torch
from torch import nn


class Meshes(nn.Module):
    def forward(self, emb, ids, inside):
        total = emb.new_zeros(())
        for mesh in range(3):
            j_valid = (inside > 0) * (ids == mesh)
            if not torch.any(j_valid):
                continue
            total = total + emb[j_valid, :].pow(2).mean()
        return total
"""


def _fixed(code: str) -> str:
    return fix_source(code.encode(), "m.py", Options(select=("TRT101",), unsafe=True)).source.decode()


def _traced(model: torch.nn.Module, example: tuple) -> torch.jit.ScriptModule:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.trace(model, example, check_trace=False)


def _level_cases() -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    deltas = torch.randn(3, 7, 5, generator=g)
    return [
        (torch.randn(3, 7, generator=g) * 3, deltas),  # some levels empty, some not
        (torch.full((3, 7), -9.0), deltas),  # every level empty: the (0, 5) exit of the function
        (torch.full((3, 7), 9.0), deltas),  # nothing empty
        (torch.zeros(3, 7), deltas),  # sigmoid(0) = 0.5 < 0.6: empty
        (torch.tensor([[float("nan")] * 7, [float("inf")] * 7, [-float("inf")] * 7]), deltas),
        (torch.zeros(3, 0), torch.zeros(3, 0, 5)),  # no anchors at all
    ]


def test_a_continue_exit_reads_its_test_through_the_shortcut_helper_and_computes_the_same() -> None:
    after = _fixed(LEVELS)
    assert "            if _trt_shortcut_taken(_trt_not(valid.any())):\n                continue\n" in after, after
    original, rewritten = load(LEVELS, "Levels")(), load(after, "Levels")()
    for scores, deltas in _level_cases():
        assert_same(original(scores, deltas), rewritten(scores, deltas))


def test_a_trace_of_an_empty_example_keeps_the_selection_instead_of_the_exit() -> None:
    original, rewritten = load(LEVELS, "Levels")(), load(_fixed(LEVELS), "Levels")()
    cases = _level_cases()
    empty = cases[1]
    before, after = _traced(original, empty), _traced(rewritten, empty)
    some = cases[0]
    assert before(*some)[0].shape[0] == 0 and original(*some)[0].shape[0] > 0  # the exit was baked in
    for scores, deltas in cases[:5]:
        assert_same(after(scores, deltas), original(scores, deltas))


def test_an_else_exit_reads_its_test_through_the_masked_helper_and_computes_the_same() -> None:
    after = _fixed(HEAD)
    assert "    if _trt_masked_taken(candidate_mask.any()):\n" in after, after
    original, rewritten = load(HEAD, "Head")(), load(after, "Head")()
    g = torch.Generator().manual_seed(1)
    boxes = torch.rand(5, 5, generator=g) + 0.1
    cases = [(torch.rand(5, 4, generator=g), boxes), (torch.zeros(5, 4), boxes),  # none above the threshold
             (torch.rand(5, 4, generator=g), torch.cat([boxes[:2], -boxes[2:]])),  # pads of no size
             (torch.full((5, 4), float("nan")), boxes), (torch.zeros(0, 4), torch.zeros(0, 5))]
    for probs, b in cases:
        assert_same(original(probs, b), rewritten(probs, b))
    before, traced = _traced(original, cases[1]), _traced(load(after, "Head")(), cases[1])
    assert not torch.equal(before(*cases[0]), original(*cases[0]))  # the trace kept `return None`'s way
    for probs, b in cases[:4]:
        assert_same(traced(probs, b), original(probs, b))


def test_an_exit_that_is_no_optimisation_differs_in_the_graph_so_only_observation_may_prove_it() -> None:
    """The mean over an empty selection is NaN where the exit added nothing: eager mode is the same, the
    graph is not, which is why the fix is never a candidate and needs the test seen both ways."""
    after = _fixed(MESHES)
    assert "            if _trt_shortcut_taken(_trt_not(torch.any(j_valid))):\n" in after, after
    original, rewritten = load(MESHES, "Meshes")(), load(after, "Meshes")()
    emb = torch.randn(6, 4)
    ids, inside = torch.tensor([0, 0, 1, 1, 1, 0]), torch.ones(6)
    assert_same(original(emb, ids, inside), rewritten(emb, ids, inside))
    graph = _traced(rewritten, (emb, ids, inside))
    assert torch.isfinite(original(emb, ids, inside)) and torch.isnan(graph(emb, ids, inside))
    [finding] = check_source(MESHES.encode(), "m.py", Options(select=("TRT101",)))
    assert finding.edit is not None and finding.edit.proof is prove_both_ways


@pytest.mark.parametrize("body", [
    # integer indices: `.any()` is False for index [0], which the selection still picks
    "keep = (row > 0).nonzero()[:, 0]\nif not keep.any():\n    continue\nout.append(row[keep])",
    # nothing after the exit selects with the mask
    "keep = row > 0\nif not keep.any():\n    continue\nout.append(row * 2)",
    # the exit does more than exit
    "keep = row > 0\nif not keep.any():\n    print('empty')\n    continue\nout.append(row[keep])",
    # an `else` that does not exit
    "keep = row > 0\nif keep.any():\n    out.append(row[keep])\nelse:\n    out.append(row[:0])",
])
def test_what_is_no_emptiness_exit(body: str) -> None:
    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        out = []\n        for row in x:\n" + textwrap.indent(body, "            ")
            + "\n        return torch.cat(out)\n")
    after = _fixed(code)
    assert "_trt_shortcut_taken" not in after and "_trt_masked_taken" not in after, after


def test_an_early_return_the_shortcut_selects_stays_the_shortcut_s() -> None:
    """`if not keep.any(): return x` before writes through `keep`: the shortcut selects `x` in the graph (a
    candidate, as before this form); the exit form takes only what the shortcut refuses."""
    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        keep = x > 0\n        if not keep.any():\n            return x\n        out = x.clone()\n"
            "        out[keep] = x[keep].sqrt()\n        return out\n")
    [finding] = check_source(code.encode(), "m.py", Options(select=("TRT101",)))
    assert finding.edit is not None and finding.edit.proof is None and "early return's value" in finding.message
    assert "return _trt_shortcut_select(_trt_cond, _trt_shortcut, out)" in _fixed(code)


def _truths(*values: bool) -> Facts:
    events = [{"kind": "truth", "path": "/m.py", "line": 4, "column": 12, "end_line": 4, "end_column": 30,
               "direct": True, "count": 2, "value": v} for v in values]
    return Facts(runs=3, events=events)


def test_the_exit_is_proved_only_where_the_run_saw_its_test_go_both_ways() -> None:
    span = Span("/m.py", 4, 9, 5, 25)
    assert prove_both_ways(Observation(_truths(True), span)) is None
    assert prove_both_ways(Observation(_truths(False), span)) is None
    assert prove_both_ways(Observation(Facts(runs=3), span)) is None
    text = prove_both_ways(Observation(_truths(True, False), span))
    assert text is not None and "went both ways (2 call(s) true, 2 false) over 3 input set(s)" in text
    # A test read on another line of the `if` (its body's) proves nothing about this one.
    assert prove_both_ways(Observation(_truths(True, False), Span("/m.py", 3, 9, 5, 25))) is None


def test_migrate_keeps_an_unproved_exit_as_remaining_not_a_candidate() -> None:
    from trtcodemod.migrate.plan import APPLY, REMAINS, decide

    [finding] = check_source(LEVELS.encode(), "/m.py", Options(select=("TRT101",)))
    line = finding.line
    baked = SimpleNamespace(kind="baked", rule=None, path="/m.py", line=line, op="(baked value)", exporter=None,
                            severity="error", message="value read")
    ran = Facts(runs=2, lines={"/m.py": set(range(1, 40))})
    kept = decide(finding, [baked], ran, unsafe=False)
    assert kept.action == REMAINS and not kept.candidate, kept
    assert "give migrate an input set that takes the exit" in kept.reason and "by hand, drop the exit" in kept.reason
    both = _truths(True, False)
    for event in both.events:
        event.update(line=line, end_line=line)
    both.lines = ran.lines
    proved = decide(finding, [baked], both, unsafe=False)
    assert proved.action == APPLY and "went both ways" in proved.proof, proved


# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rpn.py:2193 (a level
# with more anchors above the threshold than `pre_nms_top_n` keeps its top `min(2 * pre_nms_top_n, n)`, then
# the same temporaries are bound again and read for the image-wide top-k).
NARROW = """\
import torch
from torch import nn


def _trt_size_min(a, b):
    return torch.minimum(torch.as_tensor(a), torch.as_tensor(b)) if torch.jit.is_tracing() else min(a, b)


class Narrow(nn.Module):
    def forward(self, logits, limit: int = 3, exact: bool = True):
        picked = []
        for level in range(logits.shape[0]):
            scores = logits[level].sigmoid()
            valid = scores >= 0.25
            if valid.sum() > limit:
                k = _trt_size_min(limit * 2, scores.shape[0])
                if exact:
                    ranked = scores
                else:
                    ranked = scores + 1e-5 * torch.rand_like(scores)
                _, order = torch.topk(ranked, k)
                keep = torch.zeros_like(valid)
                keep[order] = True
                valid = keep & (scores >= 0.25)
            picked.append(torch.where(valid, scores, scores.new_zeros(())))
        flat = torch.cat(picked)
        if exact:
            ranked = flat
        else:
            ranked = flat * 1.0
        order = torch.topk(ranked, 4).indices
        return torch.cat([flat, flat[order]])
"""


def test_a_narrowing_guard_is_traced_narrowing_and_computes_the_same() -> None:
    after = _fixed(NARROW)
    assert "            if _trt_masked_taken(valid.sum() > limit):\n" in after, after
    original, rewritten = load(NARROW, "Narrow")(), load(after, "Narrow")()
    g = torch.Generator().manual_seed(2)
    cases = [torch.randn(2, 9, generator=g) * 3, torch.linspace(-1, 5, 18).reshape(2, 9), torch.full((2, 9), -5.0),
             torch.zeros(2, 9), torch.cat([torch.full((1, 9), 5.0), torch.full((1, 9), -5.0)]),
             torch.tensor([[float("inf")] * 9, [-float("inf")] * 9])]
    for x in cases:
        assert_same(original(x), rewritten(x))
    # Traced where no level needs narrowing, the original graph never narrows; the rewrite's always does,
    # which changes nothing where the test is false.
    quiet = torch.full((2, 9), -5.0)
    before, traced = _traced(original, (quiet,)), _traced(rewritten, (quiet,))
    assert not torch.equal(before(cases[1]), original(cases[1]))
    for x in cases:
        assert_same(traced(x), original(x))


@pytest.mark.parametrize("change", [
    # the body writes into a tensor it did not make
    ("keep = torch.zeros_like(valid)\n", "keep = valid\n"),
    # a temporary read after the `if` without being bound again
    ("        flat = torch.cat(picked)\n", "        flat = torch.cat(picked) + k\n"),
    # the body does not narrow the mask the test reads
    ("valid = keep & (scores >= 0.25)", "other = keep & (scores >= 0.25)"),
])
def test_what_is_no_narrowing_guard(change: tuple[str, str]) -> None:
    code = NARROW.replace(*change)
    assert code != NARROW
    assert "_trt_masked_taken" not in _fixed(code)


def test_the_observer_records_which_way_a_test_went_on_the_verified_sets_only() -> None:
    """In a child process, as ``migrate`` runs the observer: each ``__bool__`` of a tensor in user code leaves
    a ``truth`` event with its value; none while the stretched set runs (the verifier compares no graph there)."""
    import subprocess
    import sys
    from pathlib import Path

    from support import TESTS

    script = ("import sys; sys.path[:0] = sys.argv[1:3]; import test_data_dependent_if as t; "
              "t.observe_truths()")
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent), str(TESTS)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def _gate(x: torch.Tensor) -> torch.Tensor:
    keep = x > 0
    if not keep.any():
        return x[:0]
    return x[keep]


def observe_truths() -> None:
    """The body of the test above (in its own process)."""
    import inspect
    from pathlib import Path

    from trtcodemod.migrate.observe import Recorder, Wrappers
    from trtcodemod.usercode import UserFiles

    rec = Recorder(UserFiles([str(Path(__file__).parent)]))
    with Wrappers(rec):
        rec.recording = True
        seen = [_gate(x) for x in (torch.tensor([1.0, -2.0]), torch.tensor([-1.0]), torch.tensor([3.0]))]
        rec.stretched = True
        _gate(torch.tensor([-4.0]))
        rec.recording = False
    assert [s.tolist() for s in seen] == [[1.0], [], [3.0]]
    line = inspect.getsourcelines(_gate)[1] + 2
    truths = {e["value"]: e["count"] for e in rec.events.values() if e["kind"] == "truth"}
    assert truths == {True: 2, False: 1}, rec.events
    assert all(e["line"] == line for e in rec.events.values() if e["kind"] == "truth")


def test_a_scripted_exit_still_exits(tmp_path) -> None:
    """Scripted, the helpers read the test as `if` did (a script has no tracer): same results, exit included."""
    from safety import import_source

    code = LEVELS.replace("valid.nonzero(as_tuple=True)[0]", "valid.nonzero()[:, 0]").replace(
        "props, kept = [], []", "props: list[torch.Tensor] = []\n        kept: list[torch.Tensor] = []")
    after = _fixed(code)
    assert "_trt_shortcut_taken(_trt_not(valid.any()))" in after
    before = torch.jit.script(import_source(code, tmp_path)["Levels"]())
    scripted = torch.jit.script(import_source(after, tmp_path)["Levels"]())
    for scores, deltas in _level_cases():
        assert_same(before(scores, deltas), scripted(scores, deltas))


def test_a_mask_seen_only_as_bool_opens_the_exit(tmp_path) -> None:
    """DensePose's `j_valid = interpolator.j_valid * (...)` (embed.py:80, cited above) multiplies an attribute the
    rule cannot see into: static evidence does not make it a bool mask, the recorded run's dtypes do."""
    code = MESHES.replace("j_valid = (inside > 0) * (ids == mesh)", "j_valid = self.inside * (ids == mesh)").replace(
        "def forward(self, emb, ids, inside):", "def forward(self, emb, ids):")
    path = tmp_path / "meshes.py"
    path.write_text(code)
    line = code.splitlines().index("            if not torch.any(j_valid):") + 1
    event = {"kind": "tensor", "path": str(path.resolve()), "line": line, "column": 1, "end_line": line,
             "end_column": 80, "direct": True, "count": 3, "name": "j_valid", "dtypes": ["bool"], "shapes": [[6]]}
    read = {**event, "kind": "value_read", "method": "__bool__", "caller": None}
    del read["name"], read["dtypes"], read["shapes"]
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 20))}, events=[event, read])
    read_only = Facts(runs=1, lines={str(path.resolve()): set(range(1, 20))}, events=[read])
    unseen = fix_source(code.encode(), str(path), Options(select=("TRT101",), unsafe=True,
                                                          facts=read_only)).source.decode()
    assert "_trt_shortcut_taken" not in unseen
    seen = fix_source(code.encode(), str(path), Options(select=("TRT101",), unsafe=True, facts=facts)).source.decode()
    assert "            if _trt_shortcut_taken(_trt_not(torch.any(j_valid))):\n" in seen, seen


# UniMatch's transformer layer, reduced (stereo_matching 0.2.0,
# stereo_matching/models/unimatch/modeling_unimatch.py:599-621; autonomousvision/unimatch 943a990,
# unimatch/transformer.py:55-131): a tensor test tells self- from cross-attention, and each branch picks
# its attention by a Python int with an `if` of its own. Our own words, small stand-ins for the attentions.
NESTED = """
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, source, target, splits: int = 2):
        is_self = (source - target).abs().max() < 1e-6
        query = self.proj(source)
        if is_self:
            if splits > 1:
                # windows
                message = torch.softmax(query.reshape(splits, -1), dim=-1).reshape(query.shape)
            else:
                message = torch.softmax(query, dim=-1)
        else:
            scale = target.exp()
            if splits > 2:
                message = query * scale
            elif splits > 1:
                message = query / scale
            else:
                message = query + scale
            message2 = message * 2
        return source + message, message2
"""

NESTED_AFTER = """\
        _trt_cond = torch.as_tensor(is_self).bool()
        if splits > 1:
            # windows
            _trt_then_message = torch.softmax(query.reshape(splits, -1), dim=-1).reshape(query.shape)
        else:
            _trt_then_message = torch.softmax(query, dim=-1)
        _trt_else_scale = target.exp()
        if splits > 2:
            _trt_else_message = query * _trt_else_scale
        elif splits > 1:
            _trt_else_message = query / _trt_else_scale
        else:
            _trt_else_message = query + _trt_else_scale
        _trt_else_message2 = _trt_else_message * 2
        message = torch.where(_trt_cond, _trt_then_message, _trt_else_message)
        message2 = torch.where(_trt_cond, message2, _trt_else_message2)
        return source + message, message2
"""


def _nested_cases():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 4, generator=g)
    big = torch.full((2, 4), 80.0)
    return [(x, x), (x, torch.randn(2, 4, generator=g)), (torch.zeros(2, 4), torch.zeros(2, 4)),
            (torch.zeros(2, 4), torch.ones(2, 4)), (big, -big), (x, x + 1e-7)]


def test_nested_configuration_ifs_are_kept_and_their_results_selected() -> None:
    """Before: "a branch holds a compound statement", no rewrite. The inner `if`s stay as they are, writing
    fresh locals (their temporary `scale` too, read after it is assigned), and each name the code after the `if`
    reads is selected; `message2`, assigned in one branch only, keeps its value from before in the other."""
    code = NESTED.replace("        is_self = ", "        message2 = source\n        is_self = ")
    after = rewrite(code, unsafe=True, select=("TRT101",))
    assert NESTED_AFTER in after, after
    before_model = load(code, "Layer")()
    after_model = load(after, "Layer")()
    after_model.load_state_dict(before_model.state_dict())
    for splits in (1, 2, 4):
        for source, target in _nested_cases():
            assert_same(before_model(source, target, splits), after_model(source, target, splits))
            a, b = source.clone().requires_grad_(), target.clone().requires_grad_()
            c, d = source.clone().requires_grad_(), target.clone().requires_grad_()
            sum(o.sum() for o in before_model(a, b, splits)).backward()
            sum(o.sum() for o in after_model(c, d, splits)).backward()
            for eager, rewritten in ((a.grad, c.grad), (b.grad, d.grad)):
                if eager is None:
                    # The rule's stated cost: the branch not taken runs, so an input only it reads gets a zero
                    # gradient through torch.where instead of none.
                    assert not rewritten.any()
                else:
                    assert_same(eager, rewritten)
    # The trace keeps the test in the graph: self and cross inputs both follow eager mode.
    x = torch.randn(2, 4)
    with warnings.catch_warnings():
        # A decision baked by the trace shows as a conversion to a Python value. Not every TracerWarning: torch's
        # generic constructor warning for `torch.as_tensor` (of a traced tensor here, which the trace records as
        # `.to`) came up once in a full suite run and never alone, and as an error raised inside the tracer's C++
        # call it ends in a SystemError; the comparisons below show the graph follows both cases.
        warnings.filterwarnings("error", message="Converting a tensor to a Python", category=torch.jit.TracerWarning)
        traced = torch.jit.trace(after_model, (x, x), check_trace=False)
    for source, target in _nested_cases():
        assert_same(traced(source, target), after_model(source, target))


@pytest.mark.parametrize("change, replacement, reason", [
    # the inner test reads a tensor value: it is the chain's own decision, not configuration (TRT101 vectorizes
    # that inner `if` on its own first; then the outer one is a chain of plain branches again)
    ("            if splits > 1:\n", "            if query.sum() > 0:\n", "a nested `if` in a branch tests a tensor value"),
    # `message` assigned on one way through the inner `if` only
    ("            else:\n                message = torch.softmax(query, dim=-1)\n", "",
     "`message` is assigned on only some ways through a nested `if` of a branch"),
    # a check that may raise where the `if` does not take the branch
    ("            if splits > 2:\n", "            assert splits < 9\n            if splits > 2:\n",
     "a nested branch checks or raises (`assert splits < 9`)"),
    # `scale` read after only some ways assign it
    ("            scale = target.exp()\n", "            if splits > 3:\n                scale = target.exp()\n"
     "            else:\n                pass\n", "`scale` is read after only some ways through a nested `if` assign it"),
])
def test_nested_branches_it_refuses(change: str, replacement: str, reason: str) -> None:
    assert change in NESTED
    code = NESTED.replace("        is_self = ", "        message2 = source\n        is_self = ").replace(change, replacement)
    [finding] = [f for f in check_source(textwrap.dedent(code).encode(), "snippet.py",
                                         Options(select=("TRT101",), unsafe=True)) if "is_self" in f.message]
    assert f"not rewritten: {reason}" in finding.message, finding.message
    if "query.sum()" not in replacement:
        assert "if is_self" in rewrite(code, unsafe=True, select=("TRT101",))


def test_a_read_observed_at_the_outer_if_is_not_the_inner_ifs(tmp_path) -> None:
    """The observer locates `if is_self:`'s `__bool__` at the whole statement (the jump of a bare name), whose
    span holds the inner tests: they are not reads of their own (zoo 33's sm_unimatch: without this, "a nested
    `if` in a branch tests a tensor value" and the inner `if splits > 1:` reported as a tensor test)."""
    code = textwrap.dedent(NESTED).replace("splits: int = 2", "splits").replace(  # the port's: no annotation
        "        is_self = ", "        message2 = source\n        is_self = ")
    path = tmp_path / "layer.py"
    path.write_text(code)
    lines = code.splitlines()
    start = lines.index("        if is_self:") + 1
    end = lines.index("        return source + message, message2")
    events = [{"kind": "value_read", "path": str(path.resolve()), "line": start, "column": 9, "end_line": end,
               "end_column": len(lines[end - 1]) + 1, "direct": True, "count": 2, "method": "__bool__",
               "caller": None}]
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(lines) + 1))}, events=events)
    options = Options(select=("TRT101",), unsafe=True, facts=facts)
    findings = check_source(code.encode(), str(path), options)
    assert [f.line for f in findings] == [start], [(f.line, f.message) for f in findings]
    after = fix_source(code.encode(), str(path), options).source.decode()
    assert "_trt_then_message" in after and "message = torch.where(_trt_cond, _trt_then_message" in after, after
