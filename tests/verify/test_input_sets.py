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
    assert [tuple(s["x"].shape) for s in made.sets] == [(1, 3, 8, 8), (1, 3, 8, 8), (2, 3, 16, 16)]
    assert any("refuses its dynamic axes one larger (RuntimeError" in n for n in made.notes), made.notes
    assert model.calls == 0  # the probes ran on copies
    for feed in made.sets:
        model(**feed)  # every set is one the model takes


def test_a_model_that_takes_one_more_keeps_it() -> None:
    made = make_input_sets(_module(), InputsSpec(function="inputs"), AnySize(), AXES, seed=0)
    assert tuple(made.sets[-1]["x"].shape) == (2, 3, 9, 9)
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
    first, resized = made.sets[0]["x"], made.sets[-1]["x"]
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
