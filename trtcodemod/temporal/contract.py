"""The deployment contract of a temporal model: what the engine takes, returns and feeds back.

A model that keeps per-frame state on ``self`` (previous-frame features, a query memory, a
frame counter) cannot be exported as it is: the graph is a pure function of its inputs. Once
``migrate`` has made the state explicit, deployment needs to know which engine inputs are
frame inputs and which are state, which outputs feed back into which state inputs, each state
tensor's shape, dtype and first-frame value, and how the first frame is signalled.

This module holds that description as plain data (no torch import), with a JSON form that the
rewrite writes and the sequence verifier reads, and a Markdown form for people.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: How a state slot starts: ``zeros``/``value`` are a tensor filled with ``initial_value`` (0 for
#: ``zeros``); ``none`` is a zero tensor plus an indicator input that is 0 on the first frame.
INITIAL_KINDS = ("zeros", "value", "none")

Dim = int | str  # an int for a fixed size, a name for an axis that varies between frames


@dataclass(frozen=True)
class StateSlot:
    """One piece of state: eager mode keeps it on ``module.<attribute>``, the engine gets it as
    ``input`` and returns its next value as ``output``."""

    attribute: str
    input: str
    output: str
    shape: tuple[Dim, ...]
    dtype: str  # a torch dtype name without the prefix: "float32", "int64", "bool"
    initial: str = "zeros"
    initial_value: float | int | bool = 0
    #: For ``initial == "none"``: the input that says whether the state holds a previous frame
    #: (shape ``(1,)``, dtype ``indicator_dtype``; 0 on the first frame and after a reset, else 1).
    indicator: str | None = None
    indicator_dtype: str = "bool"
    #: The attribute path of the module that owns the state, relative to the exported model
    #: ("" for the model itself, "head.memory" style dotted paths otherwise).
    owner: str = ""
    #: Where forward writes it, for reports: "file.py:LINE".
    written_at: str | None = None
    #: For ``initial == "value"`` where the built model's tensor is not one value repeated (a buffer
    #: or parameter set in ``__init__``): that tensor element by element, nested lists of ``shape``.
    initial_data: Any = None
    #: "state"; "queue" for a memory queue kept as ``shape[0]`` padded rows, the valid rows last,
    #: counted by the slot whose input is ``count``; "count" for that count (int64, shape (1,)).
    role: str = "state"
    count: str | None = None

    def __post_init__(self) -> None:
        if self.initial not in INITIAL_KINDS:
            raise ValueError(f"state {self.attribute!r}: initial must be one of {INITIAL_KINDS}, got {self.initial!r}")
        if self.initial == "none" and not self.indicator:
            raise ValueError(f"state {self.attribute!r}: an initial None needs an indicator input")


@dataclass(frozen=True)
class OptionalInput:
    """A frame input that the original forward takes as ``None`` or a tensor (``prev_bev=None``).

    The engine always takes the tensor and an indicator right after it (shape ``(1,)``, dtype
    ``indicator_dtype``): 1 where the caller has the input, 0 where it has none, with the input
    then filled with zeros (its ``absent`` value) of ``shape`` and ``dtype``."""

    name: str
    indicator: str
    shape: tuple[Dim, ...]
    dtype: str
    absent: str = "zeros"
    indicator_dtype: str = "bool"


@dataclass(frozen=True)
class DeploymentContract:
    """The engine's signature and the feedback loop between frames.

    The exported wrapper's forward takes ``(*inputs, *state_inputs)`` and returns
    ``(*outputs, *state_outputs)``, in the order of :meth:`engine_inputs` and
    :meth:`engine_outputs`.
    """

    model: str  # "package.module:ClassName" of the model whose state was lifted
    wrapper: str  # "path/to/model_export.py:ClassName" of the generated wrapper
    inputs: tuple[str, ...]  # per-frame inputs, without state
    outputs: tuple[str, ...]  # per-frame outputs, without state
    states: tuple[StateSlot, ...] = ()
    #: The model's own way to start a new scene, if it has one (a method name such as "reset").
    reset: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: Frame inputs (among ``inputs``) that may be absent, each with its indicator.
    optional: tuple[OptionalInput, ...] = ()

    def engine_inputs(self) -> tuple[str, ...]:
        """Every input of the exported graph, in order: frame inputs (an optional one followed by
        its indicator), then per slot its state input followed by its indicator (when it has one)."""
        indicators = {o.name: o.indicator for o in self.optional}
        names = [n for name in self.inputs for n in (name, indicators.get(name)) if n]
        for slot in self.states:
            names.append(slot.input)
            if slot.indicator:
                names.append(slot.indicator)
        return tuple(names)

    def engine_outputs(self) -> tuple[str, ...]:
        """Every output of the exported graph, in order: frame outputs, then state outputs."""
        return (*self.outputs, *(slot.output for slot in self.states))

    def feedback(self) -> dict[str, str]:
        """Which output feeds which input on the next frame."""
        return {slot.output: slot.input for slot in self.states}

    # --- serialisation ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["version"] = 1
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DeploymentContract":
        states = tuple(StateSlot(**{**slot, "shape": tuple(slot["shape"])}) for slot in data.get("states", ()))
        optional = tuple(OptionalInput(**{**o, "shape": tuple(o["shape"])}) for o in data.get("optional", ()))
        return cls(model=data["model"], wrapper=data["wrapper"], inputs=tuple(data["inputs"]),
                   outputs=tuple(data["outputs"]), states=states, reset=data.get("reset"),
                   notes=tuple(data.get("notes", ())), optional=optional)

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def read_json(cls, path: Path) -> "DeploymentContract":
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def to_markdown(self) -> str:
        """A page a deployment engineer can follow without reading the model."""
        lines = [f"# Deployment contract: {self.model}", "",
                 f"Export `{self.wrapper}`. Its engine takes, in order: "
                 + ", ".join(f"`{name}`" for name in self.engine_inputs())
                 + "; and returns: " + ", ".join(f"`{name}`" for name in self.engine_outputs()) + ".", ""]
        if self.states:
            lines += ["| state | shape | dtype | first frame | fed back from | written at |",
                      "| --- | --- | --- | --- | --- | --- |"]
            for slot in self.states:
                shape = _shape(slot.shape)
                if slot.role == "queue":
                    first = f"zeros: no valid row (the last `{slot.count}` rows are the queue, oldest first)"
                elif slot.role == "count":
                    first = "0 (the valid rows of the queue)"
                elif slot.initial == "none":
                    first = f"zeros, with `{slot.indicator}` = 0 (1 on later frames)"
                elif slot.initial_data is not None:
                    first = f"the built model's `self.{slot.attribute}` (`initial_data` in the JSON)"
                else:
                    first = f"filled with {slot.initial_value}"
                lines.append(f"| `{slot.input}` (was `self.{slot.attribute}`) | {shape} | {slot.dtype} | {first} "
                             f"| `{slot.output}` | {slot.written_at or '-'} |")
            lines.append("")
        if self.optional:
            lines += ["| optional input | shape | dtype | when absent | indicator |", "| --- | --- | --- | --- | --- |"]
            for item in self.optional:
                lines.append(f"| `{item.name}` (was `{item.name}=None`) | {_shape(item.shape)} | {item.dtype} | "
                             f"{item.absent}, with `{item.indicator}` = 0 | `{item.indicator}` = 1 where given |")
            lines.append("")
        if self.states:
            lines.append("The caller keeps the state between frames, outside the engine: after each frame, copy "
                         "every state output into the state input it feeds.")
        if self.reset:
            lines.append(f"A new scene starts as the model's `{self.reset}()` does: with the first-frame values above.")
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


def _shape(shape: tuple[Dim, ...]) -> str:
    return "(" + ", ".join(str(dim) for dim in shape) + ("," if len(shape) == 1 else "") + ")"
