"""State in a registered buffer, a parameter or a tensor attribute set in ``__init__`` (issue 30):
the lifted wrapper starts from the value the freshly built model had, not the one the observed
frames left, frame by frame bit for bit against the original, and proved in ONNX Runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from support import bits_equal as _bits_equal, import_file as _import

from trtcodemod.temporal.apply import LiftOutcome, lift_model, load_source

SOURCE = '''import torch
from torch import nn


class Clocked(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("frames", torch.zeros(()))
        self.register_buffer("ema", torch.tensor([-1.5, 0.0, -0.0, 2.5]))
        self.gain = nn.Parameter(torch.tensor([1.0, -2.0, 0.5, 3.0]))
        self.offset = torch.tensor([[0.25, -4.0, 0.0, 1.0]])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.frames += 1
        self.ema = self.ema * 0.5 + x.mean(0)
        self.gain += x.amax(0)
        self.offset = self.offset.flip(1) - 1.0
        return self.proj(x) * self.frames + self.ema * self.gain + self.offset


def build() -> nn.Module:
    return Clocked().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, generator=generator),)
'''
STATES = ["frames", "ema", "gain", "offset"]


def _frames() -> list[dict[str, torch.Tensor]]:
    g = torch.Generator().manual_seed(30)
    x = torch.randn(3, 4, generator=g)
    return [{"x": t} for t in (x, torch.zeros(3, 4), -x.abs(), torch.full((3, 4), -0.0), torch.randn(3, 4, generator=g))]


def _lift(tmp_path: Path) -> tuple[LiftOutcome, Any, Path]:
    path = tmp_path / "clocked.py"
    path.write_text(SOURCE)
    module = _import(path, "_t30b_clocked")
    outcome = lift_model(path, "Clocked", lambda m: (m or module).build(), _frames())
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    return outcome, module, path


def test_the_contract_starts_each_state_from_the_built_models_value(tmp_path: Path) -> None:
    outcome, _, _ = _lift(tmp_path)
    assert outcome.contract is not None
    slots = {s.attribute: s for s in outcome.contract.states}
    # `self.frames += 1` on a buffer: 0 as built, not the 5 the observed frames left in it
    assert (slots["frames"].initial, slots["frames"].initial_value, slots["frames"].initial_data) == ("zeros", 0.0, None)
    # not one value repeated: the built tensors element by element (-0.0 kept), in a fixed shape
    assert slots["ema"].initial == "value" and slots["ema"].shape == (4,)
    assert [repr(v) for v in slots["ema"].initial_data] == ["-1.5", "0.0", "-0.0", "2.5"]
    assert slots["gain"].initial_data == [1.0, -2.0, 0.5, 3.0]
    assert slots["offset"].initial_data == [[0.25, -4.0, 0.0, 1.0]] and slots["offset"].shape == (1, 4)
    markdown = outcome.contract.to_markdown()
    assert "| `ema` (was `self.ema`) | (4,) | float32 | the built model's `self.ema` (`initial_data` in the JSON) |" in markdown
    assert "| `frames` (was `self.frames`) | () | float32 | filled with 0.0 |" in markdown


def test_the_wrapper_from_its_initial_state_follows_the_original_bit_for_bit(tmp_path: Path) -> None:
    outcome, module, path = _lift(tmp_path)
    lifted = load_source(outcome.files[str(path)], path, "_t30b_lifted")
    wrapper_path = tmp_path / "clocked_export.py"
    exported = load_source(outcome.files[str(wrapper_path)], wrapper_path, "_t30b_export")
    torch.manual_seed(0)
    original = module.build()
    model = lifted.build()
    model.load_state_dict(original.state_dict())
    wrapper = exported.ClockedExport(model).eval()
    frames = _frames()
    state = wrapper.initial_state(frames[0]["x"])
    built = {name: getattr(original, name).detach().clone() for name in STATES}
    for name, value in zip(STATES, state):
        assert _bits_equal(value, built[name]), name
    with torch.no_grad():
        for k, frame in enumerate(frames):
            want = original(**frame)
            got, *state = wrapper(frame["x"], *state)
            assert _bits_equal(got, want), f"frame {k}: output"
            for name, value in zip(STATES, state):
                assert _bits_equal(value, getattr(original, name).detach()), f"frame {k}: {name}"
    # the wrapper takes the built value when it is built, before any frame runs
    assert "        self.initial_ema = model.ema.detach().clone()\n" in outcome.files[str(wrapper_path)]


def test_the_frame_verifier_proves_the_wrapper_from_the_built_values(tmp_path: Path) -> None:
    from trtcodemod.temporal.prove import prove_wrapper
    from trtcodemod.verify.spec import InputsSpec

    outcome, module, path = _lift(tmp_path)
    report = prove_wrapper(path, module, lambda m: (m or module).build(), outcome, InputsSpec(function="inputs"),
                           seed=0, dynamic_axes={}, exporters=["torchscript"], target="10.x")
    assert report["equivalent"], [(r["name"], r["verdict"], r.get("first_failure")) for r in report["runs"]]
    assert {r["backend"] for r in report["runs"] if r["status"] == "ok"} == {"torch-cpu", "onnxruntime-cpu"}


def test_a_snapshot_is_a_copy_of_a_buffer_written_in_place() -> None:
    from trtcodemod.temporal.observe import observe_states

    module = type("M", (torch.nn.Module,), {
        "__init__": lambda self: (torch.nn.Module.__init__(self), self.register_buffer("n", torch.zeros(2)))[0],
        "forward": lambda self, x: self.n.add_(1) + x})
    observed = observe_states(module(), [{"x": torch.ones(2)}] * 3, ["n"])
    assert observed["n"].initial_value == 0.0 and observed["n"].initial_data is None
