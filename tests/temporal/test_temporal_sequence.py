"""The frame-sequence verifier: hand-written temporal models, their explicit-state wrappers, and
the wrappers' typical mistakes, each caught at the frame where it shows."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch import nn

from trtcodemod.temporal.contract import DeploymentContract, StateSlot
from trtcodemod.temporal.frames import FIRST, NEW_SCENE, NEXT, RESET, RESIZED, make_frame_plan
from trtcodemod.temporal.report import render_text, verdict
from trtcodemod.temporal.sequence import verify_sequence
from trtcodemod.verify.spec import InputsSpec

HERE = sys.modules[__name__]


def _edges(t: torch.Tensor) -> torch.Tensor:
    """Zeros and negatives in every frame: a blend with 0 or a sign flip must not hide."""
    t = t.clone()
    t.view(-1)[0] = 0.0
    t.view(-1)[-1] = -4.0
    return t


# --- model 1: previous-frame features, fused where there are some (`is None`) ------------------


class PrevFusion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.prev: torch.Tensor | None = None

    def reset(self) -> None:
        self.prev = None

    def forward(self, feat: torch.Tensor) -> torch.Tensor:
        cur = self.proj(feat)
        fused = cur if self.prev is None else 0.5 * cur + 0.5 * self.prev
        self.prev = fused
        return fused


def fusion_inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (_edges(torch.randn(2, 4, generator=g)),)


class PrevFusionExport(nn.Module):
    """The deployment signature: the previous features and their indicator come in, go out."""

    def __init__(self, model: PrevFusion) -> None:
        super().__init__()
        self.model = model

    def forward(self, feat, prev, use_prev):
        cur = self.model.proj(feat)
        fused = torch.where(use_prev, 0.5 * cur + 0.5 * prev, cur)
        return fused, fused


class ReturnsOldState(PrevFusionExport):
    def forward(self, feat, prev, use_prev):
        fused, _ = super().forward(feat, prev, use_prev)
        return fused, prev


class BakedFirstFrame(PrevFusionExport):
    """What tracing the original on its first frame gives: the `None` branch, the state unused."""

    def forward(self, feat, prev, use_prev):
        cur = self.model.proj(feat)
        return cur, cur


class IgnoresIndicator(PrevFusionExport):
    def forward(self, feat, prev, use_prev):
        fused = 0.5 * self.model.proj(feat) + 0.5 * prev
        return fused, fused


FUSION = DeploymentContract(
    "test:PrevFusion", "test:PrevFusionExport", ("feat",), ("fused",),
    (StateSlot("prev", "prev", "prev_out", ("batch", 4), "float32", "none", indicator="use_prev"),), reset="reset")
FUSION_AXES = {"feat": {0: "batch"}}


# --- model 2: a tracker's query memory that grows, then is capped ----------------------------


class CappedMemory(nn.Module):
    def __init__(self, cap: int = 4) -> None:
        super().__init__()
        self.embed = nn.Linear(3, 3)
        self.cap = cap
        self.memory: torch.Tensor | None = None

    def forward(self, dets: torch.Tensor) -> torch.Tensor:
        q = self.embed(dets)
        memory = q if self.memory is None else torch.cat([self.memory, q])[-self.cap:]
        self.memory = memory
        return (q @ memory.t()).amax(dim=1)


def tracker_inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (_edges(torch.randn(2, 3, generator=g)),)


class CappedMemoryExport(nn.Module):
    """The memory starts empty: concatenating onto nothing is the `None` branch."""

    def __init__(self, model: CappedMemory) -> None:
        super().__init__()
        self.model = model

    def forward(self, dets, memory):
        q = self.model.embed(dets)
        memory = torch.cat([memory, q])[-self.model.cap:]
        return (q @ memory.t()).amax(dim=1), memory


class BakedObjectCount(CappedMemoryExport):
    def forward(self, dets, memory):
        n = int(dets.shape[0])  # a Python int: the trace keeps this frame's object count
        q = self.model.embed(dets).reshape(n, 3)
        memory = torch.cat([memory, q])[-self.model.cap:]
        return (q @ memory.t()).amax(dim=1), memory


TRACKER = DeploymentContract(
    "test:CappedMemory", "test:CappedMemoryExport", ("dets",), ("scores",),
    (StateSlot("memory", "memory", "memory_out", ("mem", 3), "float32"),))
TRACKER_AXES = {"dets": {0: "objects"}}


# --- model 3: a frame counter ------------------------------------------------------------------


class FrameCounter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.count = torch.zeros((), dtype=torch.int64)

    def reset(self) -> None:
        self.count = torch.zeros((), dtype=torch.int64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count = self.count + 1
        return x * 0.5 - self.count.to(x.dtype)


class LeakyReset(FrameCounter):
    def reset(self) -> None:
        pass  # forgets the count: the new scene continues the old one's numbering


def counter_inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (_edges(torch.randn(3, generator=g)),)


class FrameCounterExport(nn.Module):
    def forward(self, x, count):
        count = count + 1
        return x * 0.5 - count.to(x.dtype), count


COUNTER = DeploymentContract("test:FrameCounter", "test:FrameCounterExport", ("x",), ("y",),
                             (StateSlot("count", "count", "count_out", (), "int64", "value", 0),), reset="reset")


# --- helpers -----------------------------------------------------------------------------------


def _verify(model, wrapper, contract, inputs, axes=None, exporters=("torchscript",), frames=6):
    torch.manual_seed(0)
    plan = make_frame_plan(HERE, InputsSpec(function=inputs), model, contract, axes or {}, seed=0, frames=frames)
    return verify_sequence(model, wrapper, contract, plan, dynamic_axes=axes, exporters=exporters)


def _run(report, name):
    return next(r for r in report["runs"] if r["name"].startswith(name))


def _failing(run):
    first = run["first_failure"]
    return first["frame"], first["kind"], [(f["role"], f["name"]) for f in first["failing"]]


def _trt_is_skipped_honestly(report):
    for run in report["runs"]:
        if run["backend"] == "tensorrt":
            assert run["status"] in ("skipped", "ok", "failed")
            if run["status"] == "skipped":
                assert run["reason"] and not run["frames"]


# --- correct wrappers --------------------------------------------------------------------------


CASES = {
    "fusion": (PrevFusion, PrevFusionExport, FUSION, "fusion_inputs", FUSION_AXES),
    "tracker": (CappedMemory, CappedMemoryExport, TRACKER, "tracker_inputs", TRACKER_AXES),
    "counter": (FrameCounter, lambda model: FrameCounterExport(), COUNTER, "counter_inputs", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_correct_wrapper_is_equivalent_frame_by_frame_with_both_exporters(case) -> None:
    model_cls, wrapper_cls, contract, inputs, axes = CASES[case]
    torch.manual_seed(0)
    model = model_cls()
    report = _verify(model, wrapper_cls(model), contract, inputs, axes, exporters=("torchscript", "dynamo"))
    assert report["exit_code"] == 0, render_text(report)
    assert len(report["frames"]) >= 6 and report["frames"][0]["kind"] == FIRST
    ran = [r for r in report["runs"] if r["status"] != "skipped"]
    assert [r["name"] for r in ran][:3] == ["wrapper (torch eager, state carried by the caller)",
                                            "onnxruntime-cpu (torchscript)", "onnxruntime-cpu (dynamo)"]
    for run in ran:
        assert run["frames_passed"] == len(report["frames"])
        # Every frame compared its output and the state, not only the first frame.
        assert all({c["role"] for c in f["checks"]} == {"output", "state"} for f in run["frames"])
    _trt_is_skipped_honestly(report)
    state = getattr(model, contract.states[0].attribute)
    assert state is None or int(state) == 0  # the reference ran on a copy
    json.dumps(report)


def test_the_growing_memory_is_compared_at_every_size() -> None:
    torch.manual_seed(0)
    model = CappedMemory()
    report = _verify(model, CappedMemoryExport(model), TRACKER, "tracker_inputs", TRACKER_AXES)
    run = _run(report, "onnxruntime-cpu (torchscript)")
    sizes = [next(c["shape"] for c in f["checks"] if c["role"] == "state") for f in run["frames"]]
    assert sizes[:4] == [[2, 3], [4, 3], [4, 3], [4, 3]]  # grows from empty, then capped
    assert any("'mem'" in note and "starts empty" in note for note in report["notes"])
    assert run["passed"]


# --- wrappers that drop the feedback -------------------------------------------------------------


def test_a_wrapper_returning_the_old_state_fails_on_the_first_frame_at_its_state() -> None:
    torch.manual_seed(0)
    model = PrevFusion()
    report = _verify(model, ReturnsOldState(model), FUSION, "fusion_inputs", FUSION_AXES)
    assert report["exit_code"] == 1
    for name in ("wrapper", "onnxruntime-cpu (torchscript)"):
        run = _run(report, name)
        assert _failing(run) == (0, FIRST, [("state", "prev_out")])
        # The next frame fuses with zeros instead of the previous features: the output goes wrong.
        assert ("output", "fused") in [(f["role"], f["name"]) for f in run["frames"][1]["failing"]]


def test_a_wrapper_that_bakes_the_first_frame_fails_on_the_second_frame_at_its_output() -> None:
    torch.manual_seed(0)
    model = PrevFusion()
    report = _verify(model, BakedFirstFrame(model), FUSION, "fusion_inputs", FUSION_AXES)
    assert report["exit_code"] == 1
    run = _run(report, "onnxruntime-cpu (torchscript)")
    assert run["frames"][0]["passed"]
    assert _failing(run) == (1, NEXT, [("output", "fused"), ("state", "prev_out")])
    assert "frame 1 (next): output fused, state prev_out" in render_text(report)
    assert verdict(report).startswith("NOT EQUIVALENT over frames")


def test_a_wrapper_that_ignores_the_indicator_fails_on_the_first_frame_and_after_the_reset() -> None:
    torch.manual_seed(0)
    model = PrevFusion()
    report = _verify(model, IgnoresIndicator(model), FUSION, "fusion_inputs", FUSION_AXES)
    run = _run(report, "onnxruntime-cpu (torchscript)")
    assert _failing(run)[:2] == (0, FIRST)
    kinds = {f["kind"]: f["passed"] for f in run["frames"] if f["kind"] in (RESET, NEW_SCENE)}
    assert kinds == {RESET: False, NEW_SCENE: False}


# --- resets and sizes ------------------------------------------------------------------------------


def test_a_reset_that_does_not_restart_the_state_fails_at_the_reset_frame() -> None:
    torch.manual_seed(0)
    good = _verify(FrameCounter(), FrameCounterExport(), COUNTER, "counter_inputs")
    assert good["exit_code"] == 0, render_text(good)
    reset = next(f for f in good["frames"] if f["kind"] == RESET)
    assert "reset()" in reset["note"]
    report = _verify(LeakyReset(), FrameCounterExport(), COUNTER, "counter_inputs")
    for name in ("wrapper", "onnxruntime-cpu (torchscript)"):
        run = _run(report, name)
        assert _failing(run) == (reset["index"], RESET, [("output", "y"), ("state", "count_out")])
        assert all(f["passed"] for f in run["frames"][:reset["index"]])


def test_a_batch_change_on_a_state_dim_starts_a_new_scene_at_the_new_size() -> None:
    torch.manual_seed(0)
    model = PrevFusion()
    report = _verify(model, PrevFusionExport(model), FUSION, "fusion_inputs", FUSION_AXES,
                     exporters=("torchscript", "dynamo"))
    resized = [f for f in report["frames"] if f["shapes"]["feat"][0] == 3]
    assert [f["kind"] for f in resized] == [NEW_SCENE, NEXT]
    assert report["exit_code"] == 0, render_text(report)
    for run in report["runs"]:
        if run["status"] == "ok":
            state = [c for c in run["frames"][resized[1]["index"]]["checks"] if c["role"] == "state"]
            assert state[0]["shape"] == [3, 4] and state[0]["passed"]


def test_an_object_count_baked_by_the_trace_fails_at_the_resized_frame_mid_scene() -> None:
    torch.manual_seed(0)
    model = CappedMemory()
    report = _verify(model, BakedObjectCount(model), TRACKER, "tracker_inputs", TRACKER_AXES)
    kinds = [f["kind"] for f in report["frames"]]
    assert RESIZED in kinds and NEW_SCENE not in kinds  # the memory is carried across the resize
    where = kinds.index(RESIZED)
    assert _run(report, "wrapper")["passed"]  # eager mode has nothing baked
    run = _run(report, "onnxruntime-cpu (torchscript)")
    frame, kind, _ = _failing(run)
    assert (frame, kind) == (where, RESIZED)
    assert run["first_failure"]["error"]  # the graph's Reshape to 2 rows refuses 3
    assert report["exit_code"] == 1


# --- the plan ------------------------------------------------------------------------------------


def test_the_plan_is_deterministic_and_holds_edge_values() -> None:
    def plan(seed):
        return make_frame_plan(HERE, InputsSpec(function="fusion_inputs"), PrevFusion(), FUSION, FUSION_AXES, seed=seed)

    a, b, c = plan(0), plan(0), plan(1)
    assert [f.kind for f in a.frames] == [FIRST, NEXT, NEXT, NEXT, RESET, NEXT, NEW_SCENE, NEXT]
    for x, y in zip(a.frames, b.frames):
        assert torch.equal(x.inputs["feat"], y.inputs["feat"])
    assert not torch.equal(a.frames[1].inputs["feat"], c.frames[1].inputs["feat"])
    assert not torch.equal(a.frames[0].inputs["feat"], a.frames[1].inputs["feat"])
    values = np.concatenate([f.inputs["feat"].numpy().ravel() for f in a.frames])
    assert (values == 0).any() and (values < 0).any()


def test_a_contract_naming_an_unknown_input_is_refused() -> None:
    wrong = DeploymentContract("m", "w", ("image",), ("y",))
    with pytest.raises(ValueError, match="image"):
        make_frame_plan(HERE, InputsSpec(function="counter_inputs"), FrameCounter(), wrong, {})


# --- the command line --------------------------------------------------------------------------

MODEL_FILE = '''
import torch
from torch import nn


class Fusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.prev = None

    def reset(self):
        self.prev = None

    def forward(self, feat):
        cur = self.proj(feat)
        fused = cur if self.prev is None else 0.5 * cur + 0.5 * self.prev
        self.prev = fused
        return fused


def frame(g):
    x = torch.randn(2, 4, generator=g)
    x[0, 0], x[1, 3] = 0.0, -4.0
    return (x,)
'''

WRAPPER_FILE = '''
import torch
from torch import nn


class FusionExport(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, feat, prev, use_prev):
        cur = self.model.proj(feat)
        fused = torch.where(use_prev, 0.5 * cur + 0.5 * prev, cur)
        return fused, fused


class TracedOriginal(FusionExport):
    def forward(self, feat, prev, use_prev):
        cur = self.model.proj(feat)
        return cur, cur
'''


def _cli(tmp_path, wrapper: str, *extra: str):
    from typer.testing import CliRunner

    from trtcodemod.cli import app

    (tmp_path / "fusion_model.py").write_text(MODEL_FILE)
    (tmp_path / "fusion_export.py").write_text(WRAPPER_FILE)
    contract = DeploymentContract("fusion_model:Fusion", f"fusion_export.py:{wrapper}", ("feat",), ("fused",),
                                  FUSION.states, reset="reset")
    contract.write_json(tmp_path / "contract.json")
    result = CliRunner().invoke(app, ["verify", str(tmp_path / "fusion_model.py"), "--model", "Fusion",
                                      "--inputs", "frame", "--dynamic-axes", '{"feat": {"0": "batch"}}',
                                      "--contract", str(tmp_path / "contract.json"), *extra])
    return result.exit_code, result.stdout


def test_verify_contract_on_the_command_line(tmp_path) -> None:
    code, out = _cli(tmp_path, "FusionExport", "--frames", "4")
    assert code == 0, out
    assert "verdict: EQUIVALENT over 8 frames" in out
    _cli(tmp_path, "TracedOriginal")
    # A real process: the exporters print their graphs to fd 1, which must not reach the JSON.
    done = subprocess.run([sys.executable, "-m", "trtcodemod", "verify", str(tmp_path / "fusion_model.py"),
                           "--model", "Fusion", "--inputs", "frame", "--contract", str(tmp_path / "contract.json"),
                           "--format", "json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    report = json.loads(done.stdout)
    run = _run(report, "onnxruntime-cpu (torchscript)")
    assert _failing(run) == (1, NEXT, [("output", "fused"), ("state", "prev_out")])
    code, out = _cli(tmp_path, "Missing")
    assert code == 2 and "COULD NOT RUN" in out and "Missing" in out


def test_a_contract_that_does_not_fit_the_model_could_not_run() -> None:
    two_outputs = DeploymentContract("m", "w", ("x",), ("y", "extra"), COUNTER.states, reset="reset")
    report = _verify(FrameCounter(), FrameCounterExport(), two_outputs, "counter_inputs")
    assert report["exit_code"] == 2 and "returns 1 tensor(s)" in report["error"]
    assert report["runs"] == [] and "COULD NOT RUN" in render_text(report)


class WrongArity(nn.Module):
    def forward(self, x):  # forgot the state input
        return x, x


def test_a_wrapper_that_fails_in_eager_mode_is_not_equivalent_and_not_exported() -> None:
    report = _verify(FrameCounter(), WrongArity(), COUNTER, "counter_inputs")
    assert report["exit_code"] == 1 and [r["name"] for r in report["runs"]] == [
        "wrapper (torch eager, state carried by the caller)"]
    first = report["runs"][0]["first_failure"]
    assert first["frame"] == 0 and "TypeError" in first["error"]
    assert "NOT EQUIVALENT" in verdict(report)
