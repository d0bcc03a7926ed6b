"""A lift is proved on the frames its code distinguishes, its forward_step is checked as new code,
and nothing unproved is written (issue 27: "the lifted wrapper bakes what the original decided in
Python", "a lift that fails its proof is still written")."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

from support import invoke
from test_temporal_lift import _import
from trtcodemod.migrate.run import NOT_EQUIVALENT_AS_BEFORE
from trtcodemod.temporal.apply import lift_model
from trtcodemod.temporal.lift import LiftState, lift
from trtcodemod.temporal.reach import CAP, frames_to_reach

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--no-cache"]

def _model(doc: str, cls: str, state: str, body: str, helper: str = "") -> str:
    """A model file: ``cls`` with a Linear and a counter ``self.<state>`` from 0, forward ``body``."""
    return f'''"""{doc}"""

import torch
from torch import nn
{helper}

class {cls}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.{state} = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
{textwrap.indent(textwrap.dedent(body).strip(chr(10)), "        ")}


def build() -> nn.Module:
    return {cls}().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, generator=generator),)
'''


#: `if self.frame > 10:` -- a Python decision before the lift, a branch on a tensor input after it.
LATE = _model("Doubles its output from frame 11 on.", "LateSwitch", "frame", """
    self.frame += 1
    y = self.proj(x)
    if self.frame > 10:
        y = y * 2
    return y
""")

#: A warm-up whose branch returns, on a condition built with `and`: no rule rewrites it into tensor code
#: (TRT101 takes an early return on the state alone since stop 54: lifted, `seen` is a tensor input).
WARMUP_RETURN = _model("Half strength during a warm-up of four frames.", "Warmup", "seen", """
    self.seen += 1
    if self.seen <= 4 and x.numel() > 0:
        return self.proj(x)
    return self.proj(x) * 2
""")

#: A warm-up decided in a helper outside the class: only the proof over frames sees it.
WARMUP_HELPER = _model("Half strength during a warm-up, decided by a helper outside the class.", "Warmup", "seen", """
    self.seen += 1
    return self.proj(x) * ramp(self.seen)
""", helper="""

def ramp(seen):
    return 2.0 if seen > 4 else 1.0
""")

#: The same warm-up, and a branch on the input's values (a TRT101 candidate).
WARMUP_AND_BRANCH = WARMUP_HELPER.replace(
    "        return self.proj(x) * ramp(self.seen)",
    "        if x.mean() > 0:\n            y = x * 2\n        else:\n            y = x - 1\n"
    "        return self.proj(y) * ramp(self.seen)")


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _migrate(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = invoke("migrate", str(path), "--model", "build", "--inputs", "inputs", "--format", "json", *FAST, *extra)
    return result.exit_code, json.loads(result.stdout)["models"][0]


# --- how many frames: what the code compares the state with ---------------------------------------


def _class(body: str, init: str = "") -> str:
    return ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n" + textwrap.indent(textwrap.dedent(init) or "pass\n", "        ")
            + "\n    def forward(self, x):\n" + textwrap.indent(textwrap.dedent(body), "        "))


@pytest.mark.parametrize("body, initial, frames", [
    ("self.frame += 1\nif self.frame > 10:\n    x = x * 2\nreturn x\n", {"frame": 0}, 12),
    ("self.frame += 1\nif 10 < self.frame:\n    x = x * 2\nreturn x\n", {"frame": 0}, 12),  # either side
    ("self.ttl -= 1\nif self.ttl < 0:\n    x = x * 0\nreturn x\n", {"ttl": 5}, 7),  # counting down from 5
    ("self.t += 0.5\nif 0 < self.t <= 3.5:\n    x = x + 1\nreturn x\n", {"t": 0.0}, 5),  # a chain, each pair
    ("self.frame += 1\nif self.frame >= -20:\n    x = x + 1\nreturn x\n", {"frame": torch.tensor(0)}, 22),
    ("self.frame += 1\nif x.shape[0] > 50:\n    x = x + 1\nreturn x\n", {"frame": 0}, 4),  # not the state
    ("self.frame += 1\nreturn x * self.frame\n", {"frame": 0}, 4),  # no comparison: the minimum
])
def test_frames_reach_every_number_the_state_is_compared_with(body: str, initial: dict[str, Any],
                                                              frames: int) -> None:
    reach = frames_to_reach(_class(body), "M", initial, minimum=4)
    assert reach.frames == frames and reach.beyond == []


def test_a_configuration_attribute_is_read_from_the_built_model_and_the_cap_is_said() -> None:
    source = _class("self.frame += 1\nif self.frame < self.warmup:\n    x = x * 0\nreturn x\n", "self.warmup = 30\n")

    class Built:
        warmup = 30

    assert frames_to_reach(source, "M", {"frame": 0}, 4, Built()).frames == 32
    far = _class("self.frame += 1\nif self.frame == 1000:\n    x = x * 0\nreturn x\n")
    reach = frames_to_reach(far, "M", {"frame": 0}, 4)
    assert reach.frames == CAP == 64
    assert reach.notes() == [f"line {_line(far, 'self.frame == 1000')}: `self.frame == 1000` compares `self.frame` with 1000, beyond the 64 frames "
                             "the proof runs: frames after 64 are not checked"]


# --- the lifted forward_step is new code: a branch on state becomes a torch.where ----------------


def _frames() -> list[dict[str, torch.Tensor]]:
    g = torch.Generator().manual_seed(7)
    edge = [torch.zeros(3, 4), -torch.ones(3, 4), torch.tensor([[float("inf"), float("-inf"), float("nan"), -0.0]] * 3),
            torch.empty(0, 4), torch.full((3, 4), 1e30)]
    return [{"x": t} for t in edge + [torch.randn(3, 4, generator=g) for _ in range(9)]]


def test_the_lifted_branch_on_state_becomes_a_where_and_follows_the_original_bit_for_bit(tmp_path: Path) -> None:
    path = tmp_path / "late.py"
    path.write_text(LATE)
    original = _import(path, "_t27_late")
    frames = _frames()  # 14 frames: both sides of `> 10`, zeros, negatives, inf/NaN/-0.0, an empty batch
    outcome = lift_model(path, "LateSwitch", lambda module: (module or original).build(), frames)
    assert outcome.ok and outcome.mismatch is None and outcome.frames_checked == 14, outcome.refusals
    [found] = outcome.step_findings
    assert (found.rule, found.original_line, found.fixed) == ("TRT101", _line(LATE, "if self.frame > 10"), True)
    lifted = outcome.files[str(path)]
    step = lifted[lifted.index("def forward_step"):]
    assert step.startswith("def forward_step(self, x: torch.Tensor, frame):\n")  # the annotation was the check's
    assert "_trt_cond = torch.as_tensor(frame > 10)\n        y = torch.where(_trt_cond, y * 2, y)\n" in step
    # The export's view: the state a tensor, frame after frame, against the original with its state on self.
    module = _import(_write(tmp_path / "late_lifted.py", lifted), "_t27_late_lifted")
    torch.manual_seed(0)
    want = original.build()
    torch.manual_seed(0)
    got = module.build()
    got.load_state_dict(want.state_dict())
    state = torch.tensor(0)
    with torch.no_grad():
        for inputs in frames:
            expected = want(**inputs)
            result, state = got.forward_step(inputs["x"], state.clone())
            assert expected.dtype == result.dtype and expected.shape == result.shape
            assert torch.equal(expected.view(-1).view(torch.int32), result.view(-1).view(torch.int32))
    assert int(state) == want.frame == 14


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_the_proof_runs_past_the_constant_and_catches_the_baked_branch(tmp_path: Path) -> None:
    """The lift without the new-code round (`if frame > 10` left as it is) passes a proof over six
    frames, as before; over the frames the comparison asks for, it fails from frame 11."""
    from trtcodemod.temporal.prove import prove_wrapper, summary
    from trtcodemod.verify.spec import InputsSpec

    path = _write(tmp_path / "late.py", LATE)
    original = _import(path, "_t27_late_proof")
    outcome = lift_model(path, "LateSwitch", lambda module: (module or original).build(), _frames()[:4])
    assert outcome.ok
    baked = lift(LATE, "LateSwitch", [LiftState("frame")]).source
    assert baked is not None and "        if frame > 10:\n" in baked
    outcome.files[str(path)] = baked

    def prove(scene: int | None) -> dict[str, Any]:
        return summary(prove_wrapper(path, original, lambda module: (module or original).build(), outcome,
                                     InputsSpec("inputs"), seed=0, dynamic_axes={}, exporters=("torchscript",),
                                     target="8.6", scene=scene))

    assert prove(None)["equivalent"] is True  # six frames never reach frame 11
    reach = frames_to_reach(LATE, "LateSwitch", {"frame": 0}, 4)
    failed = prove(reach.frames)
    assert reach.frames == 12 and len(failed["frames"]) == 12 and failed["equivalent"] is False
    run = next(r for r in failed["runs"] if r["name"] == "onnxruntime-cpu (torchscript)")
    assert run["first_failure"]["frame"] == 10  # the eleventh frame, the first that takes the other branch


# --- migrate: proved, named, or reverted; never written unproved ---------------------------------


def test_migrate_rewrites_the_branch_on_lifted_state_and_proves_it_past_frame_11(tmp_path: Path) -> None:
    path = _write(tmp_path / "late.py", LATE)
    code, model = _migrate(path, "--write")
    assert code == 0 and model["exit_code"] == 0, model["remaining"]
    proof = model["lift"]["proof"]
    assert len(proof["frames"]) >= 12 and proof["equivalent"] is True, proof
    applied = {(a["rule"], a["line"]) for a in model["applied"] if a["landed"]}
    assert applied == {("TRT703", _line(LATE, "self.frame += 1")), ("TRT101", _line(LATE, "if self.frame > 10"))}
    assert "y = torch.where(_trt_cond, y * 2, y)" in path.read_text()
    assert (tmp_path / "late_export.py").exists()


def test_migrate_names_a_branch_on_state_no_rule_rewrites_and_writes_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "warmup.py", WARMUP_RETURN)
    code, model = _migrate(path, "--write")
    assert code == 1 and model["exit_code"] == 1
    line = _line(WARMUP_RETURN, "if self.seen <= 4 and")
    named = [r for r in model["remaining"] if r["rule"] == "TRT101"]
    assert [r["source"] for r in named] == [f"{path}:{line}"] and named[0]["severity"] == "error"
    assert "rewrite the decision on the state as tensor code by hand" in named[0]["message"]
    assert model["lift"]["refusals"][0].startswith(f"line {line}: `if self.seen <= 4 and x.numel() > 0:` decides on the state")
    assert path.read_text() == WARMUP_RETURN and sorted(p.name for p in tmp_path.iterdir()) == ["warmup.py"]
    assert model["changed_files"] == [] and not any(a["landed"] for a in model["applied"])


def test_migrate_reverts_a_lift_whose_proof_fails_and_writes_nothing(tmp_path: Path) -> None:
    """The warm-up is decided in a helper no rule looks into: the wrapper differs from frame 5 on,
    so the lift is reverted: in the report (applied: not landed, and why; reverted) and on disk."""
    path = _write(tmp_path / "warmup.py", WARMUP_HELPER)
    code, model = _migrate(path, "--write")
    assert code == 1 and model["exit_code"] == 1
    [applied] = model["applied"]
    assert applied["rule"] == "TRT703" and applied["landed"] is False
    assert applied["reverted"].startswith("lift reverted (not written): warmup_export.py differs from the original")
    assert "NOT EQUIVALENT from frame 4" in applied["reverted"]
    assert [(r["rule"], r["why"]) for r in model["reverted"]] == [("TRT703", applied["reverted"])]
    assert model["changed_files"] == [] and model["diff"] == "" and model["lift"]["files"] == []
    assert path.read_text() == WARMUP_HELPER and sorted(p.name for p in tmp_path.iterdir()) == ["warmup.py"]


def test_migrate_does_not_write_a_candidate_the_verification_could_not_prove(tmp_path: Path) -> None:
    """TRT101's candidate at the input branch: the rewritten model is not equivalent (the state is
    still baked, as in the original, so the candidate is not blamed), so its assumption is untested:
    reverted, not written."""
    path = _write(tmp_path / "both.py", WARMUP_AND_BRANCH)
    code, model = _migrate(path, "--write")
    assert code == 1
    line = _line(WARMUP_AND_BRANCH, "if x.mean() > 0")
    reverted = {(r["rule"], r["line"]): r["why"] for r in model["reverted"]}
    assert reverted[("TRT101", line)] == NOT_EQUIVALENT_AS_BEFORE  # the original's graph is wrong the same way
    assert not any(a["rule"] == "TRT101" for a in model["applied"])
    assert model["changed_files"] == [] and path.read_text() == WARMUP_AND_BRANCH
    assert sorted(p.name for p in tmp_path.iterdir()) == ["both.py"]


def test_migrate_says_which_comparison_the_proof_cannot_reach(tmp_path: Path) -> None:
    """`> 1000` is beyond the 64 frames a proof runs: the branch is still made a torch.where and
    proved on 64 frames, and the report names the line whose far side was not run."""
    source = LATE.replace("self.frame > 10", "self.frame > 1000")
    path = _write(tmp_path / "late.py", source)
    code, model = _migrate(path)
    assert code == 0 and len(model["lift"]["proof"]["frames"]) == CAP
    line = _line(source, "if self.frame > 1000")
    assert [(r["op"], r["source"], r["severity"]) for r in model["remaining"]] == [
        ("(frames not reached)", f"{path}:{line}", "warning")]
    assert "beyond the 64 frames the proof runs" in model["remaining"][0]["message"]
    assert ("TRT101", line) in {(a["rule"], a["line"]) for a in model["applied"] if a["landed"]}
