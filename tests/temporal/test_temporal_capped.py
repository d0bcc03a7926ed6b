"""A memory queue that grows to a cap over the first frames (issue 30): lifted to a fixed number of
padded rows plus a count, the original and the lifted model run frame by frame across the cap and
compared bit for bit, and the export wrapper proved over those frames in ONNX Runtime.

The real-code variants (``tests/capped_queue_variants/``, each file cites its source):
- ``deepsort_gallery.py``: nwojke/deep_sort @ f08cf1dc470eeb1cd2add1cbf077d95ac6c48aab,
  deep_sort/nn_matching.py:137-153 and :78-96 (a list appended, then ``[-self.budget:]``);
- ``memvit_memory.py``: facebookresearch/MeMViT @ 20a24f05ca756a254d52c71011990ff419d399e6,
  memvit/models/attention.py:675-727 (a list appended, read by ``torch.cat(..., dim=1)`` for an
  attention, trimmed by ``[1:]`` when ``len(...) == self.keep_max_len``);
and ``examples/temporal/memory_bank.py``, the issue's own ``torch.cat([self.memory, x], 0)[-self.cap:]`` form.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from support import REPO, TESTS, bits_equal, import_file as _import

from trtcodemod.temporal.apply import LiftOutcome, lift_model, load_source
from trtcodemod.temporal.lift import LiftState, lift
from trtcodemod.temporal.reach import frames_to_reach

VARIANTS = TESTS / "capped_queue_variants"
EXAMPLES = REPO / "examples" / "temporal"
#: name -> (class, the input's name, attributes that hold a queue, capacity during forward, rows kept after it)
CASES = {
    "memory_bank": ("MemoryBank", "x", ["memory"], 3, 3),
    "deepsort_gallery": ("TrackGallery", "features", ["samples"], 4, 3),
    "memvit_memory": ("MemoryAttention", "x", ["cached_k", "cached_v"], 3, 2),
}


def capped_queues(source: str, cls_name: str, model: Any) -> Any:
    from trtcodemod.temporal.queue import capped_queues as found  # not imported at collection: the old code lacks it

    return found(source, cls_name, model)


def _source(name: str) -> Path:
    return (EXAMPLES if name == "memory_bank" else VARIANTS) / f"{name}.py"


def _bits_equal(x: Any, y: Any) -> bool:
    """Tensors: same dtype, shape, strides and bytes (NaN payloads and -0.0 included); lists element by element."""
    if isinstance(x, list) or isinstance(y, list):
        return type(x) is type(y) and len(x) == len(y) and all(_bits_equal(a, b) for a, b in zip(x, y))
    return bits_equal(x, y)


def _frames(name: str) -> list[dict[str, torch.Tensor]]:
    """More frames than the capacity: random, zeros, negatives, -0.0, large values, then random again."""
    _, arg, _, capacity, _ = CASES[name]
    g = torch.Generator().manual_seed(30)
    shape = {"memory_bank": (2, 4), "deepsort_gallery": (5, 8), "memvit_memory": (2, 4, 8)}[name]
    base = torch.randn(shape, generator=g)
    edge = [base, torch.zeros(shape), -base.abs(), torch.full(shape, -0.0), base * 1e4]
    extra = [torch.randn(shape, generator=g) for _ in range(capacity + 3 - len(edge))]
    frames = [{arg: t} for t in edge + extra]
    assert len(frames) > capacity + 1  # the proof crosses the cap
    return frames


def _lift(tmp_path: Path, name: str) -> tuple[LiftOutcome, Any, Path]:
    path = tmp_path / f"{name}.py"
    shutil.copy(_source(name), path)
    original = _import(path, f"_t30q_{name}")
    outcome = lift_model(path, CASES[name][0], lambda module: (module or original).build(), _frames(name))
    return outcome, original, path


def test_the_tensor_queue_rewrite_pads_counts_and_reads_the_valid_rows(tmp_path: Path) -> None:
    outcome, _, path = _lift(tmp_path, "memory_bank")
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    new = outcome.files[str(path)]
    assert "    def forward_step(self, x: torch.Tensor, memory, memory_count):\n" in new
    # growing: the original cat and cut on the padded rows, the count up to the cap
    assert "        memory_grown = torch.cat([memory, self.proj(x).detach()], 0)\n" in new
    assert ("        memory_count = torch.clamp(memory_count + (memory_grown.shape[0] - memory.shape[0]), "
            "max=self.cap)\n        memory = memory_grown[-self.cap:]\n") in new
    # reading: every consumer sees the valid rows only
    valid = "memory[torch.arange(memory.shape[0], device=memory.device) >= memory.shape[0] - memory_count]"
    assert f"        context = {valid}.mean(0)\n" in new
    assert f"        attention = torch.softmax(x @ {valid}.T, dim=-1) @ {valid}\n" in new
    # the adapter pads what `self.memory` holds and stores the valid rows back
    assert ("        memory = torch.cat([memory.new_zeros((self.cap - memory.shape[0],) + tuple(memory.shape[1:])), "
            "memory], 0)\n") in new
    assert "        self.memory = self.memory[self.memory.shape[0] - int(memory_count):]\n" in new
    contract = outcome.contract
    assert contract is not None and contract.engine_inputs() == ("x", "memory", "memory_count")
    assert [(s.input, s.shape, s.dtype, s.role) for s in contract.states] == [
        ("memory", (3, 4), "float32", "queue"), ("memory_count", (1,), "int64", "count")]


def test_the_list_queue_rewrites_append_trim_and_whole_reads(tmp_path: Path) -> None:
    outcome, _, path = _lift(tmp_path, "memvit_memory")
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    new = outcome.files[str(path)]
    assert "        cached_k = torch.cat([cached_k[1:], (k.detach()).unsqueeze(0)], 0)\n" in new
    assert "        cached_k_count = torch.clamp(cached_k_count + 1, max=self.keep_max_len)\n" in new
    # `torch.cat(self.cached_k, dim=1)`: the valid rows, each row's axis 1 joined
    assert ("        keys = cached_k[torch.arange(cached_k.shape[0], device=cached_k.device) >= cached_k.shape[0] - "
            "cached_k_count].movedim(0, 1).flatten(1, 2)\n") in new
    # `if len(self.cached_k) == self.keep_max_len: self.cached_k = self.cached_k[1:]`: the count kept
    assert "        cached_k_count = torch.clamp(cached_k_count, max=self.keep_max_len - 1)\n" in new
    code = [line for line in new.split("def forward_step")[1].splitlines() if not line.strip().startswith("#")]
    assert not [line for line in code if "self.cached_" in line]
    deepsort, _, ds_path = _lift(tmp_path, "deepsort_gallery")
    assert deepsort.ok, (deepsort.refusals, deepsort.mismatch)
    ds = deepsort.files[str(ds_path)]
    assert "        samples_count = torch.clamp(samples_count, max=self.budget)\n" in ds
    assert ("        distances = 1.0 - samples[torch.arange(samples.shape[0], device=samples.device) >= "
            "samples.shape[0] - samples_count] @ embedded.T\n") in ds
    assert "        self.samples = list(self.samples[self.samples.shape[0] - int(samples_count):].unbind(0))\n" in ds


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_lifted_model_follows_the_original_bit_for_bit_across_the_cap(tmp_path: Path, name: str) -> None:
    outcome, original, path = _lift(tmp_path, name)
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    assert outcome.frames_checked == len(_frames(name)) > CASES[name][3]
    assert outcome.contract is not None and outcome.contract.states[0].shape[0] == CASES[name][3]  # fixed rows
    lifted = load_source(outcome.files[str(path)], path, f"_t30q_lifted_{name}")
    torch.manual_seed(0)
    a = original.build()
    b = getattr(lifted, "build")()
    b.load_state_dict(a.state_dict())
    with torch.no_grad():
        for k, frame in enumerate(_frames(name)):
            want, got = a(**frame), b(**frame)
            assert _bits_equal(want, got), f"frame {k}: output"
            for attr in CASES[name][2]:
                # the module's own attribute: the same rows, list or tensor, as the original keeps them
                assert _bits_equal(getattr(a, attr), getattr(b, attr)), f"frame {k}: self.{attr}"
            sizes = {attr: len(getattr(a, attr)) for attr in CASES[name][2]}
        assert all(size == CASES[name][4] for size in sizes.values())  # the cap was reached and held


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_export_wrapper_is_proved_over_frames_that_cross_the_cap(tmp_path: Path, name: str) -> None:
    from trtcodemod.temporal.prove import prove_wrapper
    from trtcodemod.verify.spec import InputsSpec

    outcome, original, path = _lift(tmp_path, name)
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    scene = CASES[name][3] + 2
    report = prove_wrapper(path, original, lambda module: (module or original).build(), outcome,
                           InputsSpec(function="inputs"), seed=0, dynamic_axes={}, exporters=["torchscript"],
                           target="10.x", scene=scene)
    assert report["equivalent"], [(r["name"], r["verdict"], r.get("reason"), r.get("first_failure"))
                                  for r in report["runs"]]
    ran = [r for r in report["runs"] if r["status"] == "ok"]
    assert {r["backend"] for r in ran} == {"torch-cpu", "onnxruntime-cpu"}
    assert all(r["frames_passed"] >= scene for r in ran)
    assert not [i for i in report["trt_issues"]["torchscript"] if i["severity"] == "error"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_proof_runs_past_the_cap(name: str) -> None:
    source = _source(name).read_text()
    model = _import(_source(name), f"_t30q_reach_{name}").build()
    queues = capped_queues(source, CASES[name][0], model)
    assert sorted(q.attribute for q in queues) == sorted(CASES[name][2])
    assert frames_to_reach(source, CASES[name][0], {}, 4, model).frames == CASES[name][3] + 2


_GALLERY = '''import torch
from torch import nn


class Gallery(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.budget = 3
        self.samples = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.samples.append(x)
        self.samples = self.samples[-self.budget:]
        return {read}
'''


@pytest.mark.parametrize("read, words", [
    ("self.samples[0] + x", "`self.samples` in a form whose padding the lift cannot keep exact"),
    ("x * len(self.samples)", "`self.samples` in a form whose padding the lift cannot keep exact"),
    ("torch.stack(self.samples, dim=1)", "`self.samples` in a form whose padding the lift cannot keep exact"),
])
def test_a_list_queue_read_in_another_form_is_refused_at_its_line(read: str, words: str) -> None:
    import types

    source = _GALLERY.format(read=read)
    queues = capped_queues(source, "Gallery", types.SimpleNamespace(budget=3))
    assert [q.attribute for q in queues] == ["samples"]
    result = lift(source, "Gallery", [LiftState("samples", queue=queues[0], item_zeros="torch.zeros(4)")])
    assert not result.ok
    assert [r.line for r in result.refusals] == [14]
    assert words in result.refusals[0].message and "fixed capacity" in result.refusals[0].step


def test_a_queue_written_elsewhere_or_starting_full_is_refused(tmp_path: Path) -> None:
    import types

    source = _source("memory_bank").read_text().replace(
        "        context = self.memory.mean(0)\n", "        context = self.memory.mean(0)\n        self.memory = self.memory * 2\n")
    queues = capped_queues(source, "MemoryBank", types.SimpleNamespace(cap=3))
    result = lift(source, "MemoryBank", [LiftState("memory", queue=queues[0])])
    assert not result.ok and [r.line for r in result.refusals] == [22]
    assert "written outside its queue statement (line 20)" in result.refusals[0].message
    path = tmp_path / "full_bank.py"
    path.write_text(_source("memory_bank").read_text().replace("torch.zeros(0, dims)", "torch.zeros(2, dims)"))
    module = _import(path, "_t30q_full_bank")
    outcome = lift_model(path, "MemoryBank", lambda m: (m or module).build(), _frames("memory_bank"))
    assert not outcome.ok
    assert [r.line for r in outcome.refusals] == [20]
    assert "holds 2 row(s) on the built model" in outcome.refusals[0].message


def test_a_queue_without_a_cap_is_still_refused_as_a_growing_container(tmp_path: Path) -> None:
    path = tmp_path / "grow.py"
    path.write_text(_GALLERY.format(read="torch.stack(self.samples).sum(0)").replace(
        "        self.samples = self.samples[-self.budget:]\n", ""))
    module = _import(path, "_t30q_grow")
    frames = [{"x": torch.randn(4)} for _ in range(4)]
    outcome = lift_model(path, "Gallery", lambda m: (m or module).Gallery(), frames, states=["samples"])
    assert not outcome.ok and not outcome.files
    assert any("`self.samples`" in r.message for r in outcome.refusals)


def test_copy_of_a_lifted_queue_model_keeps_its_rows(tmp_path: Path) -> None:
    """The adapter stores plain rows on `self`: a deep copy mid-stream (the frame verifier's reference) goes on alike."""
    outcome, original, path = _lift(tmp_path, "deepsort_gallery")
    lifted = load_source(outcome.files[str(path)], path, "_t30q_copy")
    torch.manual_seed(0)
    a = original.build()
    b = lifted.build()
    b.load_state_dict(a.state_dict())
    frames = _frames("deepsort_gallery")
    with torch.no_grad():
        for frame in frames[:2]:
            a(**frame), b(**frame)
        a2, b2 = copy.deepcopy(a), copy.deepcopy(b)
        for frame in frames[2:]:
            assert _bits_equal(a2(**frame), b2(**frame))
