"""Lifting optional forward inputs (issue 17): ``prev_bev=None`` becomes a tensor plus an
indicator input and a ``torch.where`` blend; the adapter keeps the call; the wrapper is proved
over frames with the input absent and given (trtcodemod.temporal)."""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from trtcodemod.temporal.apply import LiftOutcome, compare_frames, lift_model, load_source
from trtcodemod.temporal.contract import DeploymentContract
from trtcodemod.temporal.lift import LiftOptional, lift
from support import REPO

EXAMPLES = REPO / "examples" / "temporal"


def _bits_equal(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Same dtype, shape, strides and bytes (NaN payloads and -0.0 included)."""
    return (x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
            and torch.equal(x.contiguous().reshape(-1).view(torch.uint8), y.contiguous().reshape(-1).view(torch.uint8)))


def _lift_file(tmp_path: Path, source: str, cls: str, frames: list[dict[str, Any]],
               name: str = "model") -> tuple[LiftOutcome, Any]:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    original = load_source(source, path, f"_test_original_{name}")

    def build(module: Any) -> Any:
        return (module or original).build()

    return lift_model(path, cls, build, frames), original


def _example(tmp_path: Path) -> tuple[LiftOutcome, Any, Any]:
    """The example lifted in a copy; (outcome, original module, lifted model with the same weights)."""
    shutil.copy(EXAMPLES / "bev_prev_input.py", tmp_path / "bev_prev_input.py")
    g = torch.Generator().manual_seed(0)
    frames = [{"image": torch.randn(2, 4, 6, 6, generator=g), "shift": torch.randn(2, 2, generator=g),
               "prev_bev": torch.randn(2, 8, 6, 6, generator=g)} for _ in range(4)]
    outcome, original = _lift_file(tmp_path, (tmp_path / "bev_prev_input.py").read_text(), "PrevBEVFusion", frames,
                                   "bev_prev_input")
    return outcome, original, _lifted(tmp_path / "bev_prev_input.py", outcome, original)


def _lifted(path: Path, outcome: LiftOutcome, original: Any) -> Any:
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    module = load_source(outcome.files[str(path)], path, f"_test_lifted_{path.stem}")
    torch.manual_seed(0)
    model = original.build()
    lifted = module.build()
    lifted.load_state_dict(model.state_dict())
    return model, lifted


def _edge_frames() -> list[tuple[tuple[torch.Tensor, ...], torch.Tensor]]:
    g = torch.Generator().manual_seed(7)
    image = torch.randn(2, 4, 6, 6, generator=g)
    special = torch.randn(2, 8, 6, 6, generator=g)
    special[0, 0, 0, :4] = torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0])
    return [((image, torch.randn(2, 2, generator=g)), torch.randn(2, 8, 6, 6, generator=g)),
            ((torch.zeros(2, 4, 6, 6), torch.zeros(2, 2)), torch.zeros(2, 8, 6, 6)),
            ((-image.abs(), -torch.ones(2, 2)), -torch.ones(2, 8, 6, 6)),
            ((image, torch.full((2, 2), float("inf"))), special),
            ((torch.randn(3, 4, 6, 6, generator=g), torch.randn(3, 2, generator=g)), torch.full((3, 8, 6, 6), -0.0))]


# --- the rewrite and the adapter ---------------------------------------------------------------


def test_the_example_is_lifted_with_an_indicator_and_a_blend(tmp_path: Path) -> None:
    outcome, _, _ = _example(tmp_path)
    assert outcome.optional == ["prev_bev"] and outcome.states == []
    text = outcome.files[str(tmp_path / "bev_prev_input.py")]
    assert "def forward_step(self, image: torch.Tensor, shift: torch.Tensor, prev_bev: torch.Tensor | None = None, " \
           "*, has_prev_bev):" in text
    assert "prev = torch.where(has_prev_bev.reshape(()), prev_bev + self.ego(shift)[:, :, None, None], bev)" in text
    assert "if prev_bev is None:" not in text.split("def forward_step")[1]
    contract = outcome.contract
    assert contract is not None
    assert contract.engine_inputs() == ("image", "shift", "prev_bev", "has_prev_bev")
    assert [(o.name, o.indicator, o.shape, o.dtype, o.absent) for o in contract.optional] == [
        ("prev_bev", "has_prev_bev", (2, 8, 6, 6), "float32", "zeros")]
    assert DeploymentContract.from_dict(contract.to_dict()) == contract
    assert "| `prev_bev` (was `prev_bev=None`) | (2, 8, 6, 6) | float32 | zeros, with `has_prev_bev` = 0" \
        in contract.to_markdown()


def test_the_adapter_keeps_the_signature_and_every_call_bit_for_bit(tmp_path: Path) -> None:
    """Positional, keyword and omitted `prev_bev`, None and tensors with inf/NaN/-0.0: the same bits."""
    _, _, (model, lifted) = _example(tmp_path)
    assert inspect.signature(lifted.forward) == inspect.signature(model.forward)
    with torch.no_grad():
        for (image, shift), prev in _edge_frames():
            calls = [((image, shift), {}), ((image, shift, None), {}), ((image, shift), {"prev_bev": None}),
                     ((image, shift, prev), {}), ((image, shift), {"prev_bev": prev}),
                     ((), {"image": image, "shift": shift, "prev_bev": prev})]
            for args, kwargs in calls:
                want, got = model(*args, **kwargs), lifted(*args, **kwargs)
                assert len(want) == len(got) == 2
                assert all(_bits_equal(a, b) for a, b in zip(want, got)), (args, kwargs)
        with pytest.raises(TypeError):  # the original's own errors stay: no fourth parameter
            lifted(image, shift, prev, prev)


def test_the_indicator_decides_absent_from_given(tmp_path: Path) -> None:
    """The same tensor fed with the indicator 0 and 1 gives the original's None and given outputs;
    an indicator that the step ignored would give one of them for both."""
    _, _, (model, lifted) = _example(tmp_path)
    (image, shift), prev = _edge_frames()[0]
    with torch.no_grad():
        absent = lifted.forward_step(image, shift, torch.zeros(2, 8, 6, 6),
                                     has_prev_bev=torch.zeros(1, dtype=torch.bool))
        given = lifted.forward_step(image, shift, prev, has_prev_bev=torch.ones(1, dtype=torch.bool))
        zeros_given = lifted.forward_step(image, shift, torch.zeros(2, 8, 6, 6),
                                          has_prev_bev=torch.ones(1, dtype=torch.bool))
        assert _bits_equal(absent[0], model(image, shift)[0])
        assert _bits_equal(given[0], model(image, shift, prev)[0])
        assert not torch.equal(absent[0], zeros_given[0])  # zeros given is not "absent"


def test_an_ignored_indicator_is_caught_by_the_frame_check(tmp_path: Path) -> None:
    """compare_frames runs absent and given frames: a step that always takes the given branch differs."""
    outcome, original, _ = _example(tmp_path)
    path = tmp_path / "bev_prev_input.py"
    broken = outcome.files[str(path)].replace("has_prev_bev.reshape(())", "torch.ones((), dtype=torch.bool)")
    assert broken != outcome.files[str(path)]
    module = load_source(broken, path, "_test_broken_bev_prev_input")
    torch.manual_seed(0)
    model = original.build()
    bad = module.build()
    bad.load_state_dict(model.state_dict())
    g = torch.Generator().manual_seed(1)
    frames = [{"image": torch.randn(2, 4, 6, 6, generator=g), "shift": torch.randn(2, 2, generator=g)},
              {"image": torch.randn(2, 4, 6, 6, generator=g), "shift": torch.randn(2, 2, generator=g),
               "prev_bev": torch.randn(2, 8, 6, 6, generator=g)}]
    assert compare_frames(model, bad, frames, []) == "frame 1: outputs differ"
    assert compare_frames(model, bad, frames[1:], []) is None  # given frames alone cannot tell


# --- what is refused -----------------------------------------------------------------------------

_REFUSED = {
    "attribute of None": ("""
        if prev is None:
            y = x * prev.shape[0]
        else:
            y = x + prev
        return y
""", 8, "may be None"),
    "early return": ("""
        if prev is None:
            return x
        return x + prev
""", 7, "cannot be blended"),
    "passed on": ("""
        y = self.lin(x)
        if prev is not None:
            y = y + prev
        return self.other(y, prev)
""", 10, "may be None"),
    "tested again after rebinding": ("""
        if prev is None:
            prev = torch.zeros_like(x)
        y = x + prev
        if prev is not None:
            y = y * 2
        return y
""", 10, "after forward rebinds it"),
}


@pytest.mark.parametrize("case", sorted(_REFUSED))
def test_a_branch_that_cannot_run_on_the_placeholder_is_refused_at_its_line(case: str) -> None:
    body, line, why = _REFUSED[case]
    source = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, prev=None):"
              + body)
    result = lift(source, "M", [], optional=[LiftOptional("prev", "torch.zeros((x.shape[0], 4))")])
    assert not result.ok
    assert [r.line for r in result.refusals] == [line] and why in result.refusals[0].message, result.refusals
    assert "always pass the input (zeros where the caller has none)" in str(result.refusals[0])  # the manual step


def test_an_unseen_optional_input_has_no_placeholder_and_is_refused() -> None:
    source = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, prev=None):\n" \
             "        if prev is not None:\n            x = x + prev\n        return x\n"
    result = lift(source, "M", [], optional=[LiftOptional("prev", None)])
    assert not result.ok and "never given" in result.refusals[0].message


# --- state on self and an optional input together ----------------------------------------------

_BOTH = '''"""State on self and an optional input in one forward."""

import torch
from torch import nn


class Both(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.memory = None

    def reset(self) -> None:
        self.memory = None

    def forward(self, x: torch.Tensor, hint: torch.Tensor | None = None) -> torch.Tensor:
        y = self.lin(x)
        if hint is not None:
            y = y * torch.sigmoid(hint)
        if self.memory is None:
            mixed = y
        else:
            mixed = 0.5 * (y + self.memory)
        self.memory = mixed.detach()
        return mixed


def build() -> nn.Module:
    return Both().eval()


def inputs(generator: torch.Generator):
    return (torch.randn(3, 4, generator=generator), torch.randn(3, 4, generator=generator))
'''


def test_state_and_an_optional_input_lift_together_and_the_wrapper_follows_the_model(tmp_path: Path) -> None:
    from trtcodemod.temporal.prove import prove_wrapper, summary
    from trtcodemod.verify.spec import InputsSpec

    g = torch.Generator().manual_seed(2)
    frames = [{"x": torch.randn(3, 4, generator=g), "hint": torch.randn(3, 4, generator=g)} for _ in range(5)]
    outcome, original = _lift_file(tmp_path, _BOTH, "Both", frames, "both_model")
    path = tmp_path / "both_model.py"
    model, lifted = _lifted(path, outcome, original)
    assert outcome.states == ["memory"] and outcome.optional == ["hint"]
    assert outcome.contract is not None
    assert outcome.contract.engine_inputs() == ("x", "hint", "has_hint", "memory", "has_memory")
    assert inspect.signature(lifted.forward) == inspect.signature(model.forward)
    edge = torch.tensor([[float("inf"), float("nan"), -0.0, 0.0]] * 3)
    with torch.no_grad():
        for x, hint in [(frames[0]["x"], None), (edge, frames[1]["hint"]), (-frames[2]["x"], None), (edge, edge),
                        (torch.zeros(3, 4), -edge)]:
            args = (x,) if hint is None else (x, hint)
            assert _bits_equal(model(*args), lifted(*args))
            assert _bits_equal(model.memory, lifted.memory)
    module = load_source(_BOTH, path, "_test_both_prove")
    report = summary(prove_wrapper(path, module, lambda m: (m or module).build(), outcome, InputsSpec("inputs"),
                                   seed=0, dynamic_axes={}, exporters=("torchscript", "dynamo"), target="8.6"))
    assert report["equivalent"] is True and not any(report["trt_errors"].values()), report
    ran = {r["name"] for r in report["runs"] if r["status"] == "ok"}
    assert {"onnxruntime-cpu (torchscript)", "onnxruntime-cpu (dynamo)"} <= ran


def test_frames_mix_the_optional_input_absent_and_given(tmp_path: Path) -> None:
    from trtcodemod.temporal.frames import make_frame_plan
    from trtcodemod.verify.spec import InputsSpec

    outcome, original, _ = _example(tmp_path)
    assert outcome.contract is not None
    plan = make_frame_plan(original, InputsSpec("inputs"), original.build(), outcome.contract, {}, seed=0)
    given = ["prev_bev" in f.inputs for f in plan.frames]
    assert len(given) >= 4 and True in given and False in given
    assert given[0] is False  # a scene starts as BEVFormer's does: no previous BEV


def test_bevformers_own_prev_bev_code_is_refused_at_its_lines(tmp_path: Path) -> None:
    """The real encoder (reduced): the present branch restacks `prev_bev` to another shape and the
    layer tests it again through `value`: no mechanical blend; refused where `prev_bev` flows on."""
    shutil.copy(EXAMPLES / "bevformer_encoder.py", tmp_path / "bevformer_encoder.py")
    g = torch.Generator().manual_seed(0)
    frames = [{"bev_query": torch.randn(16, 2, 8, generator=g), "shift": torch.randn(2, 2, generator=g),
               "prev_bev": torch.randn(16, 2, 8, generator=g)} for _ in range(4)]
    outcome, _ = _lift_file(tmp_path, (tmp_path / "bevformer_encoder.py").read_text(), "BEVFormerTemporalEncoder",
                            frames, "bevformer_encoder")
    assert outcome.optional == ["prev_bev"] and not outcome.ok and not outcome.files
    assert [r.line for r in outcome.refusals] == [47] and "may be None" in outcome.refusals[0].message
    assert "indicator input" in str(outcome.refusals[0])
