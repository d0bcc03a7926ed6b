"""Lifting per-frame state (issue 17): the rewrite, the adapter frame by frame, the exported
wrapper under ONNX Runtime frame by frame, and what is refused (trtcodemod.temporal)."""

from __future__ import annotations

import inspect
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from support import REPO, bits_equal as _bits_equal, import_file as _import

from trtcodemod.temporal.apply import LiftOutcome, lift_model, load_source
from trtcodemod.temporal.contract import DeploymentContract
from trtcodemod.temporal.lift import LiftState, lift
from trtcodemod.temporal.wrapper import write_files

EXAMPLES = REPO / "examples" / "temporal"


def _names(model: Any) -> list[str]:
    return list(inspect.signature(model.forward).parameters)


# --- frames per example: first frame, edge values, a reset, another batch after the reset ------

def _bev_frames() -> tuple[list[tuple[torch.Tensor, ...]], list[int]]:
    g = torch.Generator().manual_seed(3)
    image = torch.randn(2, 4, 6, 6, generator=g)
    edge = image.clone()
    edge[0, 0, 0, :3] = torch.tensor([float("inf"), float("-inf"), float("nan")])
    edge[1, 1] = -0.0
    frames = [(image, torch.randn(2, 2, generator=g)), (torch.zeros(2, 4, 6, 6), torch.zeros(2, 2)),
              (-image.abs(), -torch.ones(2, 2)), (edge, torch.randn(2, 2, generator=g)),
              (torch.randn(3, 4, 6, 6, generator=g), torch.randn(3, 2, generator=g)),  # after the reset
              (torch.randn(3, 4, 6, 6, generator=g), torch.full((3, 2), float("inf")))]
    return frames, [4]


def _memory_frames() -> tuple[list[tuple[torch.Tensor, ...]], list[int]]:
    g = torch.Generator().manual_seed(4)
    q = torch.randn(2, 5, 8, generator=g)
    frames = [(q, torch.ones(2)), (torch.zeros(2, 5, 8), torch.ones(2)), (-q, torch.tensor([1.0, 0.0])),
              (q * 1e30, torch.ones(2)), (torch.randn(1, 5, 8, generator=g), torch.ones(1)),
              (torch.randn(1, 5, 8, generator=g), torch.zeros(1))]
    return frames, [4]


def _clock_frames() -> tuple[list[tuple[torch.Tensor, ...]], list[int]]:
    g = torch.Generator().manual_seed(5)
    return [(torch.randn(3, 4, generator=g),), (torch.zeros(3, 4),), (torch.full((3, 4), -2.5),),
            (torch.tensor([[float("inf"), float("nan"), -0.0, 1.0]] * 3),), (torch.empty(0, 4),),
            (torch.randn(5, 4, generator=g),)], []


CASES = {
    "bev_fusion": ("TemporalBEV", _bev_frames),
    "query_memory": ("QueryMemory", _memory_frames),
    "frame_clock": ("FrameClock", _clock_frames),
}


def _lift(tmp_path: Path, name: str) -> tuple[LiftOutcome, Any, list[tuple[torch.Tensor, ...]], list[int]]:
    cls, make = CASES[name]
    path = tmp_path / f"{name}.py"
    shutil.copy(EXAMPLES / f"{name}.py", path)
    original = _import(path, f"_t17_{name}")
    frames, resets = make()
    kwargs = [dict(zip(_names(original.build()), f)) for f in frames]
    outcome = lift_model(path, cls, lambda module: (module or original).build(), kwargs, reset_at=resets)
    return outcome, original, frames, resets


@pytest.mark.parametrize("name", sorted(CASES))
def test_lift_keeps_every_other_byte_and_the_call_signature(tmp_path: Path, name: str) -> None:
    outcome, original, _, _ = _lift(tmp_path, name)
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    old = (EXAMPLES / f"{name}.py").read_text()
    new = outcome.files[str(tmp_path / f"{name}.py")]
    start = old.index("    def forward(")
    end = old.index("\n\n\ndef build()")
    assert new.startswith(old[:start]) and new.endswith(old[end:])  # only forward changed
    lifted = load_source(new, tmp_path / f"{name}.py", f"_t17_lifted_{name}")
    cls = CASES[name][0]
    # The adapter keeps the original call signature, annotations included.
    assert inspect.signature(getattr(lifted, cls).forward) == inspect.signature(getattr(original, cls).forward)


def test_bev_rewrite_blends_the_none_branch_on_the_indicator(tmp_path: Path) -> None:
    outcome, _, _, _ = _lift(tmp_path, "bev_fusion")
    new = outcome.files[str(tmp_path / "bev_fusion.py")]
    assert "    def forward_step(self, image: torch.Tensor, shift: torch.Tensor, prev_bev, has_prev_bev):\n" in new
    assert ("        prev = torch.where(has_prev_bev.reshape(()), prev_bev + self.ego(shift)[:, :, None, None], "
            "bev)\n") in new
    assert "        prev_bev = fused.detach()\n        return self.head(fused), prev_bev\n" in new
    assert ("            prev_bev = torch.zeros((image.shape[0], 8, image.shape[2], image.shape[3]), "
            "dtype=torch.float32, device=image.device)\n") in new
    assert "        result, self.prev_bev = self.forward_step(image, shift, prev_bev, has_prev_bev)\n" in new
    assert "if self.prev_bev is None" not in new.split("def forward_step")[1]


def test_counter_and_memory_rewrites(tmp_path: Path) -> None:
    clock, _, _, _ = _lift(tmp_path, "frame_clock")
    new = clock.files[str(tmp_path / "frame_clock.py")]
    assert ("    def forward_step(self, x: torch.Tensor, frame):\n        frame += 1\n        phase = frame / "
            "self.period\n        return self.proj(x) + torch.sin(x * phase), frame\n") in new
    memory, _, _, _ = _lift(tmp_path, "query_memory")
    new = memory.files[str(tmp_path / "query_memory.py")]
    assert ("        memory = torch.where(has_memory_embedding.reshape(()), memory_embedding * "
            "prev_exists.view(batch, 1, 1), queries.new_zeros(batch, self.memory_len, dims))\n") in new
    assert "        return (out, scores), memory_embedding\n" in new


@pytest.mark.parametrize("name", sorted(CASES))
def test_adapter_matches_the_original_frame_by_frame(tmp_path: Path, name: str) -> None:
    outcome, original, frames, resets = _lift(tmp_path, name)
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    lifted = load_source(outcome.files[str(tmp_path / f"{name}.py")], tmp_path / f"{name}.py", f"_t17_ad_{name}")
    torch.manual_seed(0)
    a = original.build()
    b = lifted.build()
    b.load_state_dict(a.state_dict())
    states = outcome.states
    reset = outcome.contract.reset if outcome.contract else None
    with torch.no_grad():
        for k, frame in enumerate(frames):
            if k in resets:
                getattr(a, reset)()
                getattr(b, reset)()
            want, got = a(*frame), b(*frame)
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            for x, y in zip(want, got, strict=True):
                assert _bits_equal(x, y), f"frame {k + 1}"
            for attr in states:
                sa, sb = getattr(a, attr), getattr(b, attr)
                assert type(sa) is type(sb)
                assert _bits_equal(torch.as_tensor(sa), torch.as_tensor(sb)), f"frame {k + 1}: {attr}"


def _export(tmp_path: Path, name: str, dynamo: bool) -> tuple[Any, Any, DeploymentContract, Path, list, list[int]]:
    outcome, original, frames, resets = _lift(tmp_path, name)
    assert outcome.ok
    write_files(outcome.files)
    sys.path.insert(0, str(tmp_path))
    try:
        lifted = _import(tmp_path / f"{name}.py", f"_t17_x_{name}_{dynamo}")
        wrapper_module = _import(tmp_path / f"{name}_export.py", f"_t17_w_{name}_{dynamo}")
    finally:
        sys.path.remove(str(tmp_path))
    contract = DeploymentContract.read_json(tmp_path / f"{name}_contract.json")
    torch.manual_seed(0)
    ref = original.build()
    model = lifted.build()
    model.load_state_dict(ref.state_dict())
    wrapper = getattr(wrapper_module, f"{CASES[name][0]}Export")(model).eval()
    example = (*frames[1], *wrapper.initial_state(*frames[1]))
    onnx_path = tmp_path / f"{name}_{dynamo}.onnx"
    torch.onnx.export(wrapper, example, str(onnx_path), dynamo=dynamo, input_names=list(contract.engine_inputs()),
                      output_names=list(contract.engine_outputs()))
    return ref, wrapper, contract, onnx_path, frames, resets


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_exported_wrapper_carries_the_state_frame_by_frame(tmp_path: Path, name: str, dynamo: bool) -> None:
    """The graph, fed its own state outputs back frame by frame (the caller's loop), matches eager."""
    import numpy as np
    import onnxruntime as ort

    ref, wrapper, contract, onnx_path, frames, resets = _export(tmp_path, name, dynamo)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    takes = [i.name for i in session.get_inputs()]
    batch = frames[0][0].shape[0]
    frames = [f for f in frames if f[0].shape[0] == batch][:4]  # the export's batch is static
    assert len(frames) >= 4
    state = None
    with torch.no_grad():
        for k, frame in enumerate(frames):
            if state is None:
                state = [s.numpy() for s in wrapper.initial_state(*frame)]
            feed = dict(zip(contract.engine_inputs(), [x.numpy() for x in frame] + state))
            got = session.run(None, {n: feed[n] for n in takes})
            want = ref(*frame)
            want = want if isinstance(want, tuple) else (want,)
            for x, y in zip(want, got[:len(want)], strict=True):
                np.testing.assert_allclose(y, x.numpy(), rtol=1e-5, atol=1e-5, err_msg=f"frame {k + 1}")
            # The caller's loop: every state output into the input it feeds, the indicator set.
            outputs = dict(zip(contract.engine_outputs(), got))
            fed = {state_input: outputs[output] for output, state_input in contract.feedback().items()}
            state = []
            for slot in contract.states:
                state.append(fed[slot.input])
                if slot.indicator:
                    state.append(np.ones(1, dtype=bool))


def test_the_indicator_selects_the_first_frame_branch(tmp_path: Path) -> None:
    """A graph that ignored the indicator would give the same output for both values."""
    import onnxruntime as ort

    ref, wrapper, contract, onnx_path, frames, _ = _export(tmp_path, "bev_fusion", dynamo=False)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    image, shift = frames[0]
    state = torch.randn(2, 8, 6, 6)
    results = []
    for flag in (False, True):
        feed = {"image": image.numpy(), "shift": shift.numpy(), "prev_bev": state.numpy(),
                "has_prev_bev": torch.tensor([flag]).numpy()}
        results.append(session.run(None, feed)[0])
    with torch.no_grad():
        first = ref(image, shift)  # the original's first frame: prev_bev is None
    assert torch.allclose(torch.from_numpy(results[0]), first, atol=1e-5)
    assert not torch.allclose(torch.from_numpy(results[1]), first, atol=1e-3)


def test_contract_names_the_state_its_first_frame_and_where_it_was_written(tmp_path: Path) -> None:
    outcome, _, _, _ = _lift(tmp_path, "bev_fusion")
    contract = outcome.contract
    assert contract is not None
    assert contract.engine_inputs() == ("image", "shift", "prev_bev", "has_prev_bev")
    assert contract.engine_outputs() == ("output", "next_prev_bev")
    assert contract.feedback() == {"next_prev_bev": "prev_bev"}
    slot = contract.states[0]
    assert (slot.initial, slot.indicator, slot.dtype, slot.written_at) == ("none", "has_prev_bev", "float32",
                                                                            "bev_fusion.py:33")
    assert slot.shape == ("image.shape[0]", 8, 6, 6)  # the batch changed between the frames; H, W did not
    assert contract.reset == "reset"
    assert "`prev_bev` (was `self.prev_bev`)" in outcome.files[str(tmp_path / "bev_fusion_contract.md")]
    clock, _, _, _ = _lift(tmp_path, "frame_clock")
    assert clock.contract is not None and clock.contract.states[0].dtype == "int64"
    assert "import trtcodemod" not in clock.files[str(tmp_path / "frame_clock_export.py")]


# --- refusals: the line and the manual step -------------------------------------------------

_HEADER = "import torch\nfrom torch import nn\n\n\n"


def _refused(body: str, cls: str, states: list[LiftState]) -> list[str]:
    result = lift(_HEADER + body, cls, states)
    assert result.source is None
    return [str(r) for r in result.refusals]


@pytest.mark.parametrize("body, line, words", [
    ("class M(nn.Module):\n    def forward(self, x):\n        self.mem[:, 0] = x\n        return x + self.mem\n",
     7, "in place through an index"),
    ("class M(nn.Module):\n    def forward(self, x):\n        self.mem.copy_(x)\n        return x + self.mem\n",
     7, "mutated in place"),
    ("class M(nn.Module):\n    def forward(self, x):\n        self.mem.append(x)\n        return x + len(self.mem)\n",
     7, "grows without bound"),
    ("def update(model, x):\n    model.mem = x\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
     "        update(self, x)\n        return x + self.mem\n", 6, "outside `M`"),
    ("class M(nn.Module):\n    def keep(self, x):\n        self.mem = x\n\n    def forward(self, x):\n"
     "        self.keep(x)\n        return x + self.mem\n", 7, "a helper that forward calls"),
    ("class M(nn.Module):\n    def forward(self, x, y):\n        if self.mem is None and y:\n            a = x\n"
     "        else:\n            a = self.mem\n        self.mem = a\n        return a\n", 7, "not the whole condition"),
    ("class M(nn.Module):\n    def forward(self, x):\n        if self.mem is None:\n            return x\n"
     "        self.mem = x\n        return x + self.mem\n", 7, "cannot be blended"),
])
def test_refusals_name_the_line_and_the_manual_step(body: str, line: int, words: str) -> None:
    reasons = _refused(body, "M", [LiftState("mem", initial_none=True, zeros="torch.zeros_like(x)")])
    assert any(r.startswith(f"line {line}: ") and words in r and "pass the state into forward" in r
               for r in reasons), reasons


def test_streampetr_as_written_is_refused_at_its_helpers_and_its_slice_write(tmp_path: Path) -> None:
    path = tmp_path / "streampetr_memory.py"
    shutil.copy(EXAMPLES / "streampetr_memory.py", path)
    original = _import(path, "_t17_spetr")
    g = torch.Generator().manual_seed(0)
    frames = [dict(zip(_names(original.build()), original.inputs(g))) for _ in range(4)]
    outcome = lift_model(path, "StreamMemoryHead", lambda module: (module or original).build(), frames)
    assert outcome.states == ["memory_embedding", "memory_reference_point"]
    assert not outcome.ok and not outcome.files
    reasons = [str(r) for r in outcome.refusals]
    assert any(r.startswith("line 40: ") and "in place through an index in `pre_update_memory`" in r
               for r in reasons), reasons
    assert any(r.startswith("line 47: ") and "`post_update_memory`" in r for r in reasons), reasons


def test_lift_state_command_writes_the_model_wrapper_and_contract(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from trtcodemod.cli import app

    shutil.copy(EXAMPLES / "frame_clock.py", tmp_path / "frame_clock.py")
    result = CliRunner().invoke(app, ["lift-state", str(tmp_path / "frame_clock.py"), "--cls", "FrameClock",
                                      "--model", "build", "--inputs", "inputs", "--write"])
    assert result.exit_code == 0, result.output
    assert "lifted self.frame of FrameClock: equal to the original on 4 frames" in result.output
    assert "def forward_step(self, x: torch.Tensor, frame):" in (tmp_path / "frame_clock.py").read_text()
    contract = DeploymentContract.read_json(tmp_path / "frame_clock_contract.json")
    assert contract.engine_inputs() == ("x", "frame") and contract.engine_outputs() == ("output", "next_frame")
    assert "class FrameClockExport(nn.Module):" in (tmp_path / "frame_clock_export.py").read_text()
    shutil.copy(EXAMPLES / "streampetr_memory.py", tmp_path / "streampetr_memory.py")
    refused = CliRunner().invoke(app, ["lift-state", str(tmp_path / "streampetr_memory.py"), "--cls",
                                       "StreamMemoryHead", "--model", "build", "--inputs", "inputs"])
    assert refused.exit_code == 1 and "not lifted: line 40:" in refused.output


def test_migrate_writes_the_lifted_model_and_the_new_wrapper_files(tmp_path: Path) -> None:
    """migrate --write: the lift's rewrite and its new files (wrapper, contract) land on disk."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    shutil.copy(EXAMPLES / "bev_fusion.py", tmp_path / "bev_fusion.py")
    result = CliRunner().invoke(app, ["migrate", str(tmp_path / "bev_fusion.py"), "--model", "build", "--inputs",
                                      "inputs", "--format", "json", "--write", "--runs", "1", "--warmup", "0",
                                      "--backends", "torch-cpu,onnxruntime-cpu"])
    model = json.loads(result.stdout)["models"][0]
    assert model["lift"]["states"] == ["prev_bev"] and model["lift"]["mismatch"] is None, model["lift"]
    assert [a["line"] for a in model["applied"] if a["rule"] == "TRT703"] == [33]
    assert not model["rewrite_errors"], model["rewrite_errors"]
    assert "def forward_step(" in (tmp_path / "bev_fusion.py").read_text()
    contract = DeploymentContract.read_json(tmp_path / "bev_fusion_contract.json")
    assert contract.engine_inputs() == ("image", "shift", "prev_bev", "has_prev_bev")
    assert (tmp_path / "bev_fusion_export.py").exists() and (tmp_path / "bev_fusion_contract.md").exists()


# --- migrate proves the exported wrapper over frames -------------------------------------------


def test_migrate_keeps_the_lift_when_the_wrapper_follows_the_model_over_frames() -> None:
    """examples/temporal: each lifted wrapper is exported with both exporters and run over frames
    (state carried by the caller) against the original; then the model counts as migrated."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    result = CliRunner().invoke(app, ["migrate", "--config", str(EXAMPLES / "models.toml"), "--format", "json",
                                      "--no-cache", "--runs", "1", "--warmup", "0",
                                      "--backends", "torch-cpu,onnxruntime-cpu"])
    models = {m["name"]: m for m in json.loads(result.stdout)["models"]}
    assert set(models) == {"bev_fusion", "query_memory", "frame_clock", "bev_prev_input", "bevformer_encoder",
                           "memory_bank"}
    # BEVFormer's own code (reduced) is refused at its line: a warning at its `is not None` test.
    refused = models.pop("bevformer_encoder")
    assert refused["lift"]["refusals"] and not refused["lift"]["files"]
    assert [(r["rule"], r["severity"]) for r in refused["remaining"]] == [("TRT721", "warning")]
    assert [a["rule"] for a in models["bev_prev_input"]["applied"]] == ["TRT721"]
    for name, model in models.items():
        proof = model["lift"]["proof"]
        assert proof["equivalent"] is True and not any(proof["trt_errors"].values()), (name, proof)
        ran = {r["name"] for r in proof["runs"] if r["status"] == "ok"}
        assert {"onnxruntime-cpu (torchscript)", "onnxruntime-cpu (dynamo)"} <= ran, (name, ran)
        assert len(proof["frames"]) >= 4
        assert model["after"]["wrapper_faithful"] is True and model["remaining"] == [], (name, model["remaining"])
        assert model["exit_code"] == 0, name
    kinds = [f.split(":")[1] for f in models["query_memory"]["lift"]["proof"]["frames"]]
    assert "resize" in " ".join(kinds) or any(k != "frame" for k in kinds), kinds  # the object count changes


def test_prove_wrapper_catches_a_wrapper_that_feeds_back_the_old_state(tmp_path: Path) -> None:
    """The proof is the frame-sequence verifier: a wrapper returning the state it was given (what
    a traced export of the original amounts to) fails from the second frame of the scene."""
    from trtcodemod.temporal.prove import prove_wrapper, summary
    from trtcodemod.verify.spec import InputsSpec

    outcome, original, _, _ = _lift(tmp_path, "bev_fusion")
    assert outcome.ok

    def build(module: Any) -> Any:
        return (module or original).build()

    def prove() -> dict[str, Any]:
        return summary(prove_wrapper(tmp_path / "bev_fusion.py", original, build, outcome, InputsSpec("inputs"),
                                     seed=0, dynamic_axes={}, exporters=("torchscript",), target="8.6"))

    good = prove()
    assert good["equivalent"] is True and good["trt_errors"] == {"torchscript": []}, good
    wrapper = next(p for p in outcome.files if p.endswith("_export.py"))
    text = outcome.files[wrapper]
    outcome.files[wrapper] = text.replace("return result, next_prev_bev", "return result, prev_bev")
    assert outcome.files[wrapper] != text
    bad = prove()
    assert bad["equivalent"] is False
    failed = [r for r in bad["runs"] if not r["passed"]]
    assert {r["name"] for r in failed} == {"wrapper (torch eager, state carried by the caller)",
                                           "onnxruntime-cpu (torchscript)"}
    assert all(r["first_failure"]["frame"] == 0 for r in failed)  # the state output is wrong at once
