"""The export wrapper next to a lifted model, and its deployment contract (JSON and Markdown).

The wrapper is a small readable file (``<model>_export.py``) with no import of trtcodemod: an
``nn.Module`` holding the model, whose forward has the engine's signature
(:meth:`DeploymentContract.engine_inputs` → :meth:`~DeploymentContract.engine_outputs`) and
calls the lifted ``forward_step``; ``initial_state`` gives the first frame's state inputs.
:func:`build_wrapper` makes one around a model (the proof, ``verify --contract``).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from trtcodemod.files import write_atomic

from .contract import DeploymentContract, OptionalInput, StateSlot
from .lift import LiftResult
from .observe import ObservedOptional, ObservedState


def build_contract(result: LiftResult, observed: Mapping[str, ObservedState], model: str, wrapper: str,
                   outputs: Sequence[str], source_name: str, reset: str | None = None,
                   optional: Mapping[str, ObservedOptional] | None = None) -> DeploymentContract:
    """The contract of a lifted model (``result``), with what the frames showed of each state."""
    slots = []
    for attr, param in result.state_params.items():
        seen = observed[attr]
        line = result.written_at.get(attr)
        slots.append(StateSlot(
            attribute=attr, input=param, output=f"next_{param}", shape=seen.shape, dtype=seen.dtype,
            initial="none" if seen.initial_none else (
                "zeros" if not seen.initial_value and seen.initial_data is None else "value"),
            initial_value=seen.initial_value, indicator=result.indicators.get(attr),
            written_at=f"{source_name}:{line}" if line else None, initial_data=seen.initial_data,
            role="queue" if attr in result.counts else "state", count=result.counts.get(attr)))
        if attr in result.counts:
            count = result.counts[attr]
            slots.append(StateSlot(attribute=attr, input=count, output=f"next_{count}", shape=(1,), dtype="int64",
                                   role="count", written_at=slots[-1].written_at))
    notes = []
    if any(s.role == "queue" for s in slots):
        notes.append("A memory queue that grows to a cap is a fixed number of rows, the valid ones last, and a "
                     "count: the model reads only the valid rows (a boolean index on the row number).")
    if any(s.initial == "none" for s in slots):
        notes.append("A `None` test on the state became both branches and a `torch.where` on the indicator: both "
                     "branches run on every frame (the first frame's other branch on zeros).")
    items = tuple(OptionalInput(name=param, indicator=indicator, shape=(optional or {})[param].shape,
                                dtype=(optional or {})[param].dtype) for param, indicator in result.optional.items())
    if items:
        notes.append("An `is None` test on an optional input became both branches and a `torch.where` on its "
                     "indicator: the engine always takes the input (zeros where the caller has none).")
    return DeploymentContract(model=model, wrapper=wrapper, inputs=result.inputs, outputs=tuple(outputs),
                              states=tuple(slots), reset=reset, notes=tuple(notes), optional=items)


def wrapper_source(cls_name: str, model_file: str, result: LiftResult, contract: DeploymentContract,
                   observed: Mapping[str, ObservedState],
                   optional: Mapping[str, ObservedOptional] | None = None) -> str:
    """The text of ``<model>_export.py``."""
    stem = Path(model_file).stem
    inputs = ", ".join(contract.engine_inputs())
    call = ", ".join(f"{name}={name}" for name in contract.engine_inputs())
    nexts = [slot.output for slot in contract.states]
    many = len(contract.outputs) > 1
    outs = ", ".join(["*result" if many else "result", *nexts]) if nexts else "result"
    first = []
    for slot in contract.states:
        seen = observed[slot.attribute]
        if slot.role == "count":
            first.append(f"torch.zeros((1,), dtype=torch.int64, device={_device(seen.zeros)})")
        elif slot.initial_data is not None:
            # The built model's tensor, taken when the wrapper is built (before any frame runs).
            device = _device(seen.zeros)
            first.append(f"self.initial_{slot.input}" + (f".to({device})" if device != "None" else ".clone()"))
        elif seen.zeros is not None:
            first.append(seen.zeros if slot.initial != "value" else seen.zeros.replace(
                "torch.zeros(", "torch.full(").replace("), dtype", f"), {slot.initial_value!r}, dtype"))
        else:
            first.append(f"torch.tensor({slot.initial_value!r}, dtype=torch.{slot.dtype})")
        if slot.indicator:
            device = _device(seen.zeros)
            first.append(f"torch.zeros(1, dtype=torch.{slot.indicator_dtype}, device={device})")
    state_names = [n for slot in contract.states for n in (slot.input, slot.indicator) if n]
    about = (f"""The state comes in
as inputs ({", ".join(state_names)}) and its next value goes out ({", ".join(nexts)}); the
caller keeps it between frames and feeds each output back on the next frame, starting a scene
with `initial_state` ({stem}_contract.md).""" if contract.states else f"See {stem}_contract.md.")
    if contract.optional:
        about += ("\nAn input the original forward takes as None always comes with its indicator: where the caller "
                  "has\nnone, pass `absent_inputs`'s placeholder and indicator instead.")
    target = ", ".join(["result", *nexts]) if nexts else "result"
    absent_methods = ""
    if contract.optional:
        others = [n for n in result.inputs if n not in result.optional]
        values = []
        for item in contract.optional:
            zeros = (optional or {})[item.name].zeros
            device = zeros.rsplit("device=", 1)[1][:-1] if "device=" in zeros else "None"
            values += [zeros, f"torch.zeros(1, dtype=torch.{item.indicator_dtype}, device={device})"]
        absent_methods = f'''
    def absent_inputs(self, {", ".join(others)}):
        """Where the caller has no {" / ".join(o.name for o in contract.optional)}: each placeholder and its indicator."""
        return ({", ".join(values)},)
'''
    snapshots = "".join(f"\n        self.initial_{slot.input} = model.{slot.attribute}.detach().clone()"
                        for slot in contract.states if slot.initial_data is not None)
    initial = f"""
    def initial_state(self, {", ".join(result.inputs)}):
        \"\"\"The state inputs of a scene's first frame.\"\"\"
        return ({", ".join(first)},)
""" if first else ""
    return f'''"""Export wrapper of `{cls_name}` ({stem}.py), generated by trtcodemod lift-state.

Export this module, not the model: its forward is the engine's signature. {about}
"""

import torch
from torch import nn


class {cls_name}Export(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model{snapshots}

    def forward(self, {inputs}):
        {target} = self.model.{result.step}({call})
        return {outs}
{initial}{absent_methods}'''


def _device(zeros: str | None) -> str:
    """The ``device=`` of a first-frame tensor's code, or ``None``."""
    return zeros.rsplit("device=", 1)[1][:-1] if zeros and "device=" in zeros else "None"


def build_wrapper(cls: Any, model: Any) -> Any:
    """``Cls(model)`` when the constructor takes an argument, else ``Cls()``."""
    params = [p for p in inspect.signature(cls).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    return (cls(model) if params else cls()).eval()


def export_texts(model_path: Path, cls_name: str, result: LiftResult, contract: DeploymentContract,
                 observed: Mapping[str, ObservedState],
                 optional: Mapping[str, ObservedOptional] | None = None) -> dict[str, str]:
    """``<model>_export.py``, ``<model>_contract.json`` and ``<model>_contract.md`` next to the model."""
    stem = model_path.with_suffix("")
    return {f"{stem}_export.py": wrapper_source(cls_name, model_path.name, result, contract, observed, optional),
            f"{stem}_contract.json": json.dumps(contract.to_dict(), indent=2) + "\n",
            f"{stem}_contract.md": contract.to_markdown()}


def write_files(files: Mapping[str, str]) -> list[Path]:
    """Write each file atomically (the project's writer: a temporary file, then a rename)."""
    for path, text in files.items():
        write_atomic(Path(path), text.encode("utf-8"))
    return [Path(p) for p in files]
