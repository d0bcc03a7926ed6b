"""The frame plan: which frames a temporal model is verified on, and where each scene starts.

A plan is a list of scenes, each a run of frames that share state. The first scene is the
model's first frame and the frames that follow it; a second scene starts with the model's own
reset (``contract.reset``) where it has one; a last scene changes the size of every axis the
config marks dynamic. A resize that touches a state tensor's named dim (the batch of a
previous-frame feature map) cannot carry the old state, so it starts a new scene; one that
does not (an object count beside a fixed-size memory) happens mid-scene, with the state carried.

Frame inputs come from the model config's inputs function, one seeded generator per frame
(``verify.inputs.make_input_sets``), so a plan is the same on every run. Imports torch.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any, Mapping

import torch

from trtcodemod.verify.inputs import resize_dynamic, make_input_sets
from trtcodemod.verify.spec import InputsSpec

from .contract import DeploymentContract

FIRST, NEXT, RESET, NEW_SCENE, RESIZED = "first", "next", "reset", "new scene", "resized"
#: Frames in the first scene; the brief of issue 17 asks for at least four frames in all.
FIRST_SCENE = 4


@dataclass
class Frame:
    """One call of the model. ``kind`` is FIRST/RESET/NEW_SCENE where the state starts afresh."""

    index: int
    kind: str
    inputs: dict[str, torch.Tensor]
    note: str = ""

    @property
    def starts_scene(self) -> bool:
        return self.kind in (FIRST, RESET, NEW_SCENE)

    def describe(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "note": self.note,
                "shapes": {name: list(t.shape) for name, t in self.inputs.items()}}


@dataclass
class FramePlan:
    frames: list[Frame]
    #: How each named dim of the contract is sized on a scene's first frame: (input, axis).
    dims: dict[str, tuple[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


#: A dim spelled as code over a frame input: ``image.shape[0]``.
_SHAPE_OF_INPUT = re.compile(r"(\w+)\.shape\[(\d+)\]")


def _state_dims(contract: DeploymentContract) -> set[str]:
    return {dim for slot in contract.states for dim in slot.shape if isinstance(dim, str)}


def _optional_dims(contract: DeploymentContract) -> set[str]:
    return {dim for item in contract.optional for dim in item.shape if isinstance(dim, str)}


def optional_shape(shape: tuple[int | str, ...], inputs: Mapping[str, torch.Tensor],
                   dims: Mapping[str, tuple[str, int]]) -> tuple[int, ...]:
    """A contract shape on one frame: a named dim takes its size from the input that carries it."""
    out = []
    for dim in shape:
        source = dims.get(dim) if isinstance(dim, str) else None
        out.append(int(inputs[source[0]].shape[source[1]]) if source and source[0] in inputs else
                   (dim if isinstance(dim, int) else 0))
    return tuple(out)


def _mix_optional(plan: FramePlan, contract: DeploymentContract, seed: int) -> None:
    """Each optional input absent on even frames and given on odd ones (the inputs function's value
    where it gave one, else random values of the contract's shape): both branches, mixed, in a scene."""
    for frame in plan.frames:
        present = []
        for item in contract.optional:
            if frame.index % 2 == 0:
                frame.inputs.pop(item.name, None)
                continue
            present.append(item.name)
            if item.name not in frame.inputs:
                shape = optional_shape(item.shape, frame.inputs, plan.dims)
                generator = torch.Generator().manual_seed(seed + 7919 * (frame.index + 1))
                frame.inputs[item.name] = torch.randn(shape, generator=generator).to(getattr(torch, item.dtype))
        absent = [item.name for item in contract.optional if item.name not in present]
        if contract.optional:
            said = ", ".join([*(f"{n} given" for n in present), *(f"{n} absent (None)" for n in absent)])
            frame.note = f"{frame.note}; {said}" if frame.note else said


def dim_sources(dynamic_axes: Mapping[str, Mapping[int, str]]) -> dict[str, tuple[str, int]]:
    """``{"batch": ("image", 0)}``: the first input axis that carries each dynamic dim name."""
    sources: dict[str, tuple[str, int]] = {}
    for name, axes in dynamic_axes.items():
        for axis, dim in axes.items():
            sources.setdefault(dim, (name, int(axis)))
    return sources


def make_frame_plan(
    module: Any, inputs: InputsSpec, model: torch.nn.Module, contract: DeploymentContract,
    dynamic_axes: Mapping[str, Mapping[int, str]], seed: int = 0, frames: int = 6, scene: int = FIRST_SCENE,
) -> FramePlan:
    """``frames`` frames (at least four) from the config's inputs function, plus a scene for the
    reset and for the resized axes where the model has them; the first scene has ``scene`` frames
    at least (a lift's proof: enough to reach what the code compares the state with)."""
    frames = max(frames, FIRST_SCENE)
    resets = 2 if contract.reset else 0
    resized = 2 if dynamic_axes else 0
    first_scene = max(frames - resets - resized, FIRST_SCENE, scene)
    total = first_scene + resets + resized
    sets = make_input_sets(module, inputs, model, {}, seed, count=total)
    plan = FramePlan(frames=[], dims=dim_sources(dynamic_axes), notes=list(sets.notes))
    kinds = [FIRST] + [NEXT] * (first_scene - 1)
    if resets:
        kinds += [RESET, NEXT]
    for index, kind in enumerate(kinds):
        plan.frames.append(Frame(index, kind, sets.sets[index]))
    if resets:
        plan.frames[first_scene].note = f"the eager model's {contract.reset}() runs first; the graph restarts its state"
    if resized:
        plan.frames += _resized_frames(sets.sets[len(kinds):], sets.sets[0], contract, dynamic_axes, seed, len(kinds))
    optional = {item.name for item in contract.optional}
    missing = [name for name in contract.inputs if name not in plan.frames[0].inputs and name not in optional]
    if missing:
        raise ValueError(f"the contract's inputs {missing} are not among the inputs function's {list(sets.names)}")
    for dim in (_state_dims(contract) | _optional_dims(contract)) - set(plan.dims):
        # The lift writes a dim as the code that sizes it on a frame (`image.shape[0]`).
        match = _SHAPE_OF_INPUT.fullmatch(dim)
        if match and match.group(1) in contract.inputs:
            plan.dims[dim] = (match.group(1), int(match.group(2)))
    _mix_optional(plan, contract, seed)
    for dim in sorted(_state_dims(contract) - set(plan.dims)):
        # Said in the report: a wrong guess here shows as a shape error on the first frame.
        plan.notes.append(f"state dim {dim!r} is on no input's dynamic axis: it starts empty (size 0) on a "
                          "scene's first frame, as a memory that grows")
    return plan


def _resized_frames(
    samples: list[dict[str, torch.Tensor]], reference: dict[str, torch.Tensor], contract: DeploymentContract,
    dynamic_axes: Mapping[str, Mapping[int, str]], seed: int, start: int,
) -> list[Frame]:
    """Two frames at other sizes. A state-shaped dim changes with a new scene; others mid-scene."""
    resized_dims = {dim for axes in dynamic_axes.values() for dim in axes.values()}
    first_kind = NEW_SCENE if _state_dims(contract) & resized_dims else RESIZED
    out = []
    for offset, sample in enumerate(samples):
        generator = torch.Generator().manual_seed(seed + 104729 + offset)
        # The same sizes on both frames: the second one carries the first one's state.
        resized, changed = resize_dynamic(sample, reference, dynamic_axes, generator)
        if not changed:
            out.append(Frame(start + offset, NEXT, sample, "no dynamic axis of these inputs could be resized"))
        elif offset == 0:
            note = "resized: " + ", ".join(changed)
            if first_kind == NEW_SCENE:
                note += "; the state's shape changes with it, so a new scene starts"
            out.append(Frame(start + offset, first_kind, resized, note))
        else:
            out.append(Frame(start + offset, NEXT, resized, "same sizes, state carried"))
    return out
