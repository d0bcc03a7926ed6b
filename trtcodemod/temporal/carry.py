"""Carrying state frame by frame: the eager model keeps it on ``self``, a graph gets it from its caller.

``reference_run`` runs the original model over a frame plan and records, per frame, its outputs
and the value of every state attribute after the call. ``carry`` runs any step function with the
deployment signature (the wrapper in eager mode, an ONNX Runtime session, a TensorRT engine) the
way a deployment does: first-frame state from the contract, then each state output fed back into
its state input, indicators 0 on a scene's first frame and 1 after. Imports torch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import torch

from trtcodemod.verify.worker import flatten_outputs

from .contract import DeploymentContract, StateSlot
from .frames import NEW_SCENE, RESET, Frame, FramePlan, optional_shape

Step = Callable[[dict[str, np.ndarray]], Sequence[Any]]


@dataclass
class FrameResult:
    """What one frame produced: outputs and states (numpy), or the error that stopped it."""

    outputs: list[np.ndarray] = field(default_factory=list)
    states: list[np.ndarray | None] = field(default_factory=list)
    error: str | None = None
    feed: dict[str, np.ndarray] | None = None


def _numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _owner(model: torch.nn.Module, slot: StateSlot) -> Any:
    return model.get_submodule(slot.owner) if slot.owner else model


def reference_run(model: torch.nn.Module, plan: FramePlan, contract: DeploymentContract) -> list[FrameResult]:
    """The original model, state on ``self``, over every frame.

    Runs on a copy, so the caller's model keeps its own state. A scene that starts with a
    resize of a state dim starts from the model's reset, or from a fresh copy when it has none.
    """
    pristine = copy.deepcopy(model).eval()
    current = copy.deepcopy(pristine)
    results = []
    for frame in plan.frames:
        if frame.kind in (RESET, NEW_SCENE):
            if contract.reset:
                getattr(current, contract.reset)()
            else:
                current = copy.deepcopy(pristine)
        result = FrameResult()
        try:
            with torch.no_grad():
                flat = flatten_outputs(current(**{k: v.clone() for k, v in frame.inputs.items()}))
        except Exception as exc:  # noqa: BLE001 - reported as the run's error
            result.error = f"{type(exc).__name__}: {str(exc).strip()[:500]}"
            results.append(result)
            continue
        result.outputs = [_numpy(t) for _, t in flat]
        for slot in contract.states:
            value = getattr(_owner(current, slot), slot.attribute, None)
            result.states.append(None if value is None else _state_value(slot, value))
        results.append(result)
    return results


def _dim_size(dim: int | str, frame: Frame, plan: FramePlan) -> int:
    """A named dim takes its size from the frame input that carries it; one that no input carries
    (a memory that grows from nothing) starts empty."""
    if isinstance(dim, int):
        return dim
    source = plan.dims.get(dim)
    if source and source[0] in frame.inputs:
        return int(frame.inputs[source[0]].shape[source[1]])
    return 0


def _state_value(slot: StateSlot, value: Any) -> np.ndarray:
    """A state attribute as the contract's slot holds it: a queue's rows stacked (a list queue) and
    its count as ``[rows]``; the padding is the slot's own business (see :func:`valid_rows`)."""
    if slot.role == "count":
        return np.array([len(value)], dtype=np.int64)
    if slot.role == "queue" and type(value) is list:
        return np.stack([_numpy(v) for v in value]) if value else np.zeros((0, *slot.shape[1:]), dtype=slot.dtype)
    # A copy: a buffer the next frame writes in place (`self.frames += 1`) shares this memory.
    return _numpy(value).copy()


def valid_rows(contract: DeploymentContract, slot: StateSlot, states: Sequence[Any]) -> Any:
    """A queue slot's output cut to its valid rows (the last ``count``), where its count output is there."""
    value = states[contract.states.index(slot)]
    index = next((i for i, s in enumerate(contract.states) if s.input == slot.count), None)
    if index is None or index >= len(states):
        return value
    rows = int(np.asarray(states[index]).reshape(-1)[0])
    return np.asarray(value)[np.asarray(value).shape[0] - rows:]


def first_state(contract: DeploymentContract, frame: Frame, plan: FramePlan) -> dict[str, np.ndarray]:
    """Every state input and indicator as a scene's first frame gets them."""
    feed: dict[str, np.ndarray] = {}
    for slot in contract.states:
        shape = tuple(_dim_size(dim, frame, plan) for dim in slot.shape)
        value = slot.initial_value if slot.initial == "value" else 0
        if slot.initial_data is not None:  # the built model's tensor (a buffer or parameter set in __init__)
            feed[slot.input] = torch.tensor(slot.initial_data, dtype=getattr(torch, slot.dtype)).reshape(shape).numpy()
        else:
            feed[slot.input] = torch.full(shape, value, dtype=getattr(torch, slot.dtype)).numpy()
        if slot.indicator:
            feed[slot.indicator] = torch.zeros((1,), dtype=getattr(torch, slot.indicator_dtype)).numpy()
    return feed


def optional_feed(contract: DeploymentContract, frame: Frame, plan: FramePlan) -> dict[str, np.ndarray]:
    """Each optional input and its indicator: the frame's tensor and 1, or zeros and 0 where absent."""
    feed: dict[str, np.ndarray] = {}
    for item in contract.optional:
        given = frame.inputs.get(item.name)
        if given is None:
            shape = optional_shape(item.shape, frame.inputs, plan.dims)
            feed[item.name] = torch.zeros(shape, dtype=getattr(torch, item.dtype)).numpy()
        else:
            feed[item.name] = _numpy(given)
        feed[item.indicator] = torch.full((1,), given is not None, dtype=getattr(torch, item.indicator_dtype)).numpy()
    return feed


def carry(step: Step, plan: FramePlan, contract: DeploymentContract) -> list[FrameResult]:
    """Run ``step`` over the plan with the caller carrying the state, as a deployment does."""
    n_out = len(contract.outputs)
    results: list[FrameResult] = []
    state: dict[str, np.ndarray] | None = None
    for frame in plan.frames:
        if frame.starts_scene:
            state = first_state(contract, frame, plan)
        result = FrameResult()
        if state is None:
            result.error = "not run: an earlier frame of this scene failed"
            results.append(result)
            continue
        feed = optional_feed(contract, frame, plan)
        feed.update({name: _numpy(frame.inputs[name]) for name in contract.inputs if name not in feed})
        feed.update(state)
        result.feed = feed
        try:
            produced = [_numpy(v) for v in step(dict(feed))]
        except Exception as exc:  # noqa: BLE001 - one failing frame is a finding
            result.error = f"{type(exc).__name__}: {str(exc).strip()[:500]}"
            state = None
            results.append(result)
            continue
        result.outputs, states = produced[:n_out], produced[n_out:]
        result.states = list(states)
        if len(states) != len(contract.states):
            result.error = (f"{len(produced)} output(s), the contract has {n_out} frame output(s) "
                            f"and {len(contract.states)} state output(s)")
            state = None
        else:
            state = {}
            for slot, value in zip(contract.states, states):
                state[slot.input] = value
                if slot.indicator:
                    state[slot.indicator] = torch.ones((1,), dtype=getattr(torch, slot.indicator_dtype)).numpy()
        results.append(result)
    return results


def eager_step(wrapper: torch.nn.Module, contract: DeploymentContract) -> Step:
    """The export wrapper called in torch eager mode, positionally in engine-input order."""
    names = contract.engine_inputs()

    def step(feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        with torch.no_grad():
            # A copy: the wrapper must not see (or write) the caller's feed arrays.
            args = [torch.from_numpy(np.array(feed[name])) for name in names]
            return [_numpy(t) for _, t in flatten_outputs(wrapper(*args))]

    return step
