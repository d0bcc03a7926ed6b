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
