"""Lift a model's per-frame state end to end: observe frames, rewrite the class, check, write.

In-process (it runs the model): ``migrate`` calls it from a worker (``task.py``), the
``lift-state`` command and the tests directly. The check runs the original and the rewritten
model (same weights) over the frames and compares every output and every state attribute
exactly, frame by frame; the rewrite is kept only when they match.
"""

from __future__ import annotations

import copy
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import libcst as cst

from trtcodemod.versions import DEFAULT_TARGET

from .contract import DeploymentContract
from .lift import LiftOptional, LiftResult, Refusal, _functions, _self_attr, _writes, lift
from .newcode import StepFinding, check_step
from .observe import (
    ObservedOptional, ObservedState, mix_optional, observe_optional, observe_queue, observe_states, optional_inputs,
    state_attributes,
)
from .queue import QUEUE_STEP, capped_queues


@dataclass
class LiftOutcome:
    """What the lift did: the result, what the frames showed, and the files to write."""

    cls: str
    states: list[str]
    result: LiftResult | None = None
    observed: dict[str, ObservedState] = field(default_factory=dict)
    contract: DeploymentContract | None = None
    #: path -> text of every file to write (the rewritten model, the wrapper, the contract).
    files: dict[str, str] = field(default_factory=dict)
    #: Optional forward inputs tested with `is None` (lifted with an indicator), as observed.
    optional: list[str] = field(default_factory=list)
    observed_optional: dict[str, ObservedOptional] = field(default_factory=dict)
    frames_checked: int = 0
    mismatch: str | None = None  # the first frame where the rewrite differed, or None
    refusals: list[Refusal] = field(default_factory=list)
    #: What the rules found in the lifted forward_step with the state known to be tensors (newcode.py).
    step_findings: list[StepFinding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.files) and self.mismatch is None and not self.refusals


def reset_method(source: str, cls_name: str, states: Sequence[str]) -> str | None:
    """A method (not forward, not __init__) that sets listed states to None: the scene reset."""
    module = cst.parse_module(source)
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    for name, func in (_functions(cls.body) if cls is not None else {}).items():
        if name in ("forward", "__init__"):
            continue
        cleared = {_self_attr(t) for n, t in _writes(func.body)
                   if type(n) is cst.Assign and type(n.value) is cst.Name and n.value.value == "None"}
        if cleared & set(states):
            return name
    return None


def _outputs(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _same(a: Any, b: Any) -> bool:
    """Equal values bit for bit (NaN equal to NaN), dtype and shape; lists, tuples and dicts
    element by element (CenterTrack returns a list of head outputs per stack); plain Python values by ==."""
    import torch

    if type(a) in (list, tuple) or type(b) in (list, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return (type(a) is type(b) and list(a) == list(b)
                and all(_same(a[k], b[k]) for k in a))
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype
                and a.shape == b.shape and a.stride() == b.stride()
                and torch.equal(_bytes(a), _bytes(b)))
    return type(a) is type(b) and a == b


def _bytes(tensor: Any) -> Any:
    import torch

    return tensor.detach().contiguous().reshape(-1).view(torch.uint8)


def compare_frames(original: Any, lifted: Any, frames: Sequence[dict[str, Any]], states: Sequence[str],
                   reset: str | None = None, reset_at: Sequence[int] = ()) -> str | None:
    """Run both models frame by frame; the first difference (outputs or state attributes), or None."""
    import torch

    with torch.no_grad():
        for k, inputs in enumerate(frames):
            if reset and k in reset_at:
                getattr(original, reset)()
                getattr(lifted, reset)()
            try:
                want = _outputs(original(**inputs))
            except Exception as exc:  # noqa: BLE001 - the original's own error must be the lifted one's too
                try:
                    lifted(**inputs)
                except type(exc):
                    continue
                return f"frame {k + 1}: the original raises {type(exc).__name__}, the lifted model does not"
            got = _outputs(lifted(**inputs))
            if len(want) != len(got) or not all(_same(a, b) for a, b in zip(want, got)):
                return f"frame {k + 1}: outputs differ"
            for attr in states:
                if not _same(getattr(original, attr), getattr(lifted, attr)):
                    return f"frame {k + 1}: `self.{attr}` differs after the call"
    return None


def load_source(source: str, path: Path, name: str) -> types.ModuleType:
    """Execute a rewritten model file as a fresh module (its folder importable, like the original's)."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    # dont_inherit: this file's `from __future__ import annotations` must not leak into the model
    exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    return module


def lift_model(path: Path, cls_name: str, build: Callable[[types.ModuleType | None], Any],
               frames: Sequence[dict[str, Any]], states: Sequence[str] | None = None,
               reset_at: Sequence[int] = (), optional: Sequence[str] | None = None,
               target: str = DEFAULT_TARGET) -> LiftOutcome:
    """Lift ``cls_name`` in ``path``. ``build(None)`` builds the original model and ``build(module)``
    the same model from the rewritten module (called after seeding, so weights match).

    The lifted ``forward_step`` is checked as new code for ``target`` (``newcode.check_step``):
    what the rules fix there is part of the rewrite the frames check; what they cannot fix refuses it.
    """
    import torch

    source = path.read_text(encoding="utf-8")
    attributes = list(states) if states is not None else state_attributes(source, cls_name)
    params = list(optional) if optional is not None else optional_inputs(source, cls_name)
    torch.manual_seed(0)
    observed_model = build(None)
    queues = {q.attribute: q for q in capped_queues(source, cls_name, observed_model)
              if states is None or q.attribute in states}
    attributes += [a for a in queues if a not in attributes]  # `self.q.append(v)` alone is no write
    outcome = LiftOutcome(cls_name, attributes, optional=params)
    if not attributes and not params:
        return outcome
    reset = reset_method(source, cls_name, attributes)
    if params:
        outcome.observed_optional = observe_optional(copy.deepcopy(observed_model), frames, params)
        # Check (and observe the state) on frames where each optional input is absent and given, mixed.
        frames = mix_optional(frames, outcome.observed_optional)
    outcome.observed = observe_states(copy.deepcopy(observed_model), frames,
                                      [a for a in attributes if a not in queues], reset, reset_at)
    for attr, queue in queues.items():
        seen_queue = observe_queue(copy.deepcopy(observed_model), frames, queue)
        if isinstance(seen_queue, str):
            outcome.refusals.append(Refusal(queue.line, seen_queue, QUEUE_STEP))
        else:
            outcome.observed[attr] = seen_queue
    if outcome.refusals:
        return outcome
    missing = [a for a in attributes if a not in outcome.observed]
    if missing:
        outcome.refusals = [Refusal(0, f"`self.{a}` never held a tensor or a number in the observed frames")
                            for a in missing]
        return outcome
    seen = outcome.observed_optional
    result = lift(source, cls_name, [outcome.observed[a].lift_state() for a in attributes],
                  optional=[LiftOptional(p, seen[p].zeros if p in seen else None) for p in params])
    outcome.result = result
    if not result.ok:
        outcome.refusals = result.refusals
        return outcome
    assert result.source is not None
    step = check_step(result.source, source, str(path), cls_name, result, target)
    outcome.step_findings = step.found
    if step.unfixed:
        outcome.refusals = [f.refusal() for f in step.unfixed]
        return outcome
    result.source = step.source
    lifted_module = load_source(result.source, path, f"_trtcodemod_lifted_{path.stem}")
    torch.manual_seed(0)
    lifted_model = build(lifted_module)
    lifted_model.load_state_dict(observed_model.state_dict())
    probe = copy.deepcopy(lifted_model)  # before the frames: the first frame's outputs, how many
    outcome.mismatch = compare_frames(observed_model, lifted_model, frames, attributes, reset, reset_at)
    outcome.frames_checked = len(frames)
    if outcome.mismatch is not None:
        return outcome
    from .wrapper import build_contract, export_texts

    from trtcodemod.verify.worker import flatten_outputs

    with torch.no_grad():
        # One name per tensor the export returns: nested outputs (CenterTrack's list of head
        # outputs per stack) are flattened by both exporters and by the frame verifier alike.
        count = len(flatten_outputs(probe(**frames[0])))
    seen_optional = outcome.observed_optional
    names = ["output"] if count == 1 else [f"output_{i}" for i in range(count)]
    stem = path.stem
    outcome.contract = build_contract(result, outcome.observed, f"{stem}:{cls_name}",
                                      f"{stem}_export.py:{cls_name}Export", names, path.name, reset,
                                      optional=seen_optional)
    outcome.files = {str(path): result.source,
                     **export_texts(path, cls_name, result, outcome.contract, outcome.observed,
                                   seen_optional)}
    return outcome
