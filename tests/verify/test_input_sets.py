"""The verifier's third input set grows every dynamic axis by one; a model whose strides must
divide its input refuses that (ultralytics' YOLO26 segmentation head concatenates maps a
129-pixel input leaves a row apart), and the set then tested an input the model never takes.
``make_input_sets`` now tries the copy of the model on it and, where it refuses, doubles the axes
instead (every divisor kept); a model that takes the larger-by-one set keeps it."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F

from trtcodemod.verify.inputs import make_input_sets, refusal
from trtcodemod.verify.spec import InputsSpec


class Halves(torch.nn.Module):
    """A map and its pooled-then-upsampled self, side by side: odd sizes do not line up."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0  # state kept between calls: the probe must not advance it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return torch.cat([x, F.interpolate(F.avg_pool2d(x, 2), scale_factor=2.0)], dim=1)


class AnySize(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


def _module() -> types.ModuleType:
    module = types.ModuleType("inputs_module")
    module.inputs = lambda generator: (torch.rand(1, 3, 8, 8, generator=generator),)  # type: ignore[attr-defined]
    return module


AXES = {"x": {0: "batch", 2: "height", 3: "width"}}


def test_a_model_that_refuses_one_more_gets_twice_the_size() -> None:
    model = Halves()
    made = make_input_sets(_module(), InputsSpec(function="inputs"), model, AXES, seed=0)
    assert [tuple(s["x"].shape) for s in made.sets] == [(1, 3, 8, 8), (1, 3, 8, 8), (2, 3, 16, 16), (1, 3, 4, 4)]
    assert any("refuses its dynamic axes one larger (RuntimeError" in n for n in made.notes), made.notes
    assert model.calls == 0  # the probes ran on copies
    for feed in made.sets:
        model(**feed)  # every set is one the model takes


def test_a_model_that_takes_one_more_keeps_it() -> None:
    made = make_input_sets(_module(), InputsSpec(function="inputs"), AnySize(), AXES, seed=0)
    assert tuple(made.sets[2]["x"].shape) == (2, 3, 9, 9)
    assert not any("refuses" in n for n in made.notes)


def test_the_sets_are_the_same_on_every_call() -> None:
    """The observer and the verifier build them apart: they must agree."""
    one = make_input_sets(_module(), InputsSpec(function="inputs"), Halves(), AXES, seed=3)
    two = make_input_sets(_module(), InputsSpec(function="inputs"), Halves(), AXES, seed=3)
    assert all(torch.equal(a["x"], b["x"]) for a, b in zip(one.sets, two.sets))


@pytest.mark.parametrize(("model", "refused"), [(AnySize(), False), (Halves(), True)])
def test_refusal_names_the_error(model: torch.nn.Module, refused: bool) -> None:
    answer = refusal(model, {"x": torch.rand(1, 3, 9, 9)})
    assert (answer is not None) is refused
    assert answer is None or answer.startswith("RuntimeError:")


class ChecksRange(torch.nn.Module):
    """piq's metrics (``piq/utils/common.py`` ``_validate_input``) assert images in [0, 1] before anything."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert 0 <= x.min(), f"Expected values to be greater or equal to 0, got {x.min()}"
        assert x.max() <= 1, f"Expected values to be lower or equal to 1, got {x.max()}"
        return x.mean((2, 3))


def test_resized_and_stretched_sets_keep_the_example_range() -> None:
    """The resized set was the example's values scaled by 1.1 plus noise, so a model that checks its input's
    range refused it (and the stretched set), and no other size was ever tested; now every set's floats stay
    in the example's range, and differ from it."""
    from trtcodemod.verify.inputs import stretched_set

    made = make_input_sets(_module(), InputsSpec(function="inputs"), ChecksRange(), AXES, seed=0)
    first, resized = made.sets[0]["x"], made.sets[2]["x"]
    assert resized.shape[2:] == (9, 9) and not any("refuses" in note for note in made.notes)
    stretched, changed = stretched_set(made.sets[0], AXES, seed=0)
    for tensor in (resized, stretched["x"]):
        assert float(tensor.min()) >= float(first.min()) and float(tensor.max()) <= float(first.max())
        assert refusal(ChecksRange(), {"x": tensor}) is None
    assert changed and stretched["x"].shape[2:] == (17, 17)
    assert not torch.equal(resized[..., :8, :8], first)  # new values, not a copy


def test_the_range_keeps_infinities_and_nan_and_negative_values() -> None:
    from trtcodemod.verify.inputs import _perturb

    example = torch.tensor([[-3.0, 2.0, float("inf"), float("nan"), 0.0, -float("inf"), 1.5, -0.5]])
    out = _perturb(example, torch.Generator().manual_seed(0))
    assert torch.isinf(out[0, 2]) and out[0, 2] > 0 and torch.isnan(out[0, 3]) and torch.isinf(out[0, 5])
    finite = out[torch.isfinite(out)]
    assert float(finite.min()) >= -3.0 and float(finite.max()) <= 2.0 and bool((finite < 0).any())


class TopCap(torch.nn.Module):
    """mmdet's pre-NMS selection: ``k = min(cap, n)`` scores of ``n`` candidates."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = x.mean(1).flatten(1)
        k = min(40, scores.shape[1])
        return scores.topk(k, dim=1).values


class MultipleOf(torch.nn.Module):
    """A model whose height and width must be multiples of 4 (a stride of 4, as YOLO's of 32)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] % 4 or x.shape[-2] % 4:
            raise ValueError(f"sides {tuple(x.shape[-2:])} are not multiples of 4")
        return F.avg_pool2d(x, 4)


def _made(model: torch.nn.Module, size: int, batch: int = 2) -> list[tuple[int, ...]]:
    module = types.ModuleType("inputs_module")
    module.inputs = lambda generator: (torch.rand(batch, 3, size, size, generator=generator),)  # type: ignore[attr-defined]
    made = make_input_sets(module, InputsSpec(function="inputs"), model, AXES, seed=0)
    return [tuple(s["x"].shape) for s in made.sets], made.notes  # type: ignore[return-value]


def test_a_fourth_set_makes_every_dynamic_axis_smaller() -> None:
    """The traced 8x8 has 64 candidates over the cap of 40; the smaller set has 16, under it: a graph that kept
    ``k = 40`` fails there, which no larger set shows."""
    shapes, notes = _made(TopCap(), 8)
    assert shapes[3] == (1, 3, 4, 4) and len(shapes) == 4
    assert any("set 4 makes dynamic axes smaller: x[0] (batch) 2->1, x[2] (height) 8->4" in n for n in notes), notes
    model = TopCap()
    out = model(torch.rand(*shapes[3]))
    assert out.shape == (1, 16)  # eager mode takes it: the graph must too


def test_a_model_that_takes_only_multiples_keeps_the_largest_power_of_two_step() -> None:
    """12 -> 6 breaks a stride of 4; 12 - 4 = 8 keeps it."""
    shapes, notes = _made(MultipleOf(), 12)
    assert shapes[3][2:] == (8, 8), shapes
    assert any("n//2 (ValueError" in n for n in notes) is False  # refusals before a taken try are not notes
    assert any("set 4 makes dynamic axes smaller" in n and "12->8" in n for n in notes), notes


class NanBelow(torch.nn.Module):
    """Divides by its width less 4: NaN everywhere at width 4 (0 / 0), as FastFlowNet's coordinates at a 1x1 level."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - x) / (x.shape[-1] - 4) + x.mean()


class Infinite(torch.nn.Module):
    """Positive inputs divided by zero: +inf everywhere."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / 0


def test_a_smaller_set_where_eager_mode_gives_no_number_is_refused() -> None:
    """8 -> 4 makes every output NaN in eager mode, a reference for no graph: the next try, 8 - 1, is taken."""
    shapes, notes = _made(NanBelow(), 8)
    assert shapes[3] == (1, 3, 7, 7), (shapes, notes)
    assert torch.isnan(NanBelow()(torch.rand(1, 3, 4, 4))).all()  # the refused try's outputs, as the model gives them
    assert refusal(NanBelow(), {"x": torch.rand(1, 3, 4, 4)}).startswith("no number:")
    assert refusal(NanBelow(), {"x": torch.rand(1, 3, 5, 5)}) is None
    # An infinity everywhere is a value a graph can match: not refused.
    assert torch.isinf(Infinite()(torch.rand(1, 3, 4, 4) + 1)).all()
    assert refusal(Infinite(), {"x": torch.rand(1, 3, 4, 4) + 1}) is None


def test_no_smaller_set_where_the_model_refuses_every_try_or_nothing_can_shrink() -> None:
    shapes, notes = _made(MultipleOf(), 4, batch=1)  # 4 -> 2, 4 - 4 = 0, 4 - 1 = 3: all refused or empty
    assert len(shapes) == 3
    assert any(n.startswith("no smaller set: the model refuses n//2 (ValueError") for n in notes), notes
    ones = make_input_sets(_module(), InputsSpec(function="inputs"), AnySize(), {"x": {0: "batch"}}, seed=0)
    assert len(ones.sets) == 3 and not any("smaller" in n for n in ones.notes)  # a batch of one has no smaller
