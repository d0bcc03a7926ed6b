"""How many frames a lift's proof runs: enough to reach what the code compares the state with.

A frame counter tested with ``if self.frame > 10:`` behaves one way for ten frames and another
after; a proof over six frames never sees the second. The count comes from the source: every
comparison of a state attribute (``self.<s>``, in forward or a method it calls) with a number
(a literal, or a configuration attribute such as ``self.warmup`` whose value the built model
holds) must be crossed, one frame more on its far side. A counter is assumed to move by at
least 1 per frame from its first-frame value, so ``> 10`` from 0 takes 12 frames. The count
is capped (:data:`CAP`); a constant beyond the cap is said, since frames after it are not run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from trtcodemod.astutil import code_of, float_value, walk

from .lift import _self_attr
from .observe import forward_methods

#: The most frames a proof runs for a comparison (a constant beyond it is named, not reached).
CAP = 64


@dataclass(frozen=True)
class Comparison:
    """``self.<attribute>`` compared with ``constant`` at ``line`` (``code`` is the comparison)."""

    attribute: str
    constant: float
    line: int
    code: str

    @property
    def number(self) -> str:
        """The constant as the code would write it (``10``, ``3.5``)."""
        return str(int(self.constant)) if float(self.constant).is_integer() else repr(self.constant)


@dataclass
class Reach:
    """The frames a scene needs (at least the minimum given), and what it cannot reach."""

    frames: int
    comparisons: list[Comparison] = field(default_factory=list)
    #: Comparisons whose constant is beyond :data:`CAP` frames: the proof does not reach them.
    beyond: list[Comparison] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One sentence per comparison beyond the cap, for the report."""
        return [f"line {c.line}: `{c.code}` compares `self.{c.attribute}` with {c.number}, beyond the "
                f"{CAP} frames the proof runs: frames after {CAP} are not checked" for c in self.beyond]


def _constant(node: cst.BaseExpression, model: Any, states: Sequence[str]) -> float | None:
    """A number literal, or ``self.<attr>`` that is no state and holds a number on the built model."""
    value = float_value(node)
    if value is not None:
        return value
    attr = _self_attr(node)
    if attr is None or attr in states or model is None:
        return None
    held = getattr(model, attr, None)
    return float(held) if type(held) in (int, float) else None


def comparisons(source: str, cls_name: str, states: Sequence[str], model: Any = None) -> list[Comparison]:
    """Every comparison of a state attribute with a number in forward and the methods it calls."""
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found: list[Comparison] = []
    for func in forward_methods(module, cls_name):
        for node in walk(func.body):
            if type(node) is not cst.Comparison:
                continue
            operands = [node.left, *(c.comparator for c in node.comparisons)]
            for left, right in zip(operands, operands[1:]):  # `0 < self.t < 10`: each pair
                for subject, other in ((left, right), (right, left)):
                    attr = _self_attr(subject)
                    value = _constant(other, model, states) if attr in states else None
                    if attr is not None and value is not None and math.isfinite(value):
                        found.append(Comparison(attr, value, positions[node].start.line, code_of(node)))
    return found


def frames_to_reach(source: str, cls_name: str, initial: Mapping[str, Any], minimum: int,
                    model: Any = None) -> Reach:
    """The frames a scene needs so that each state crosses every number the code compares it with.

    ``initial``: each state attribute's first-frame value (a number, a 0-d tensor; anything else
    counts as 0); ``model``: the built model, for configuration attributes (``self.warmup``).
    """
    found = comparisons(source, cls_name, list(initial), model)
    needed = minimum
    beyond = []
    for c in found:
        start = _start(initial.get(c.attribute))
        frames = math.floor(abs(c.constant - start)) + 2
        if frames > CAP:
            beyond.append(c)
        needed = max(needed, min(frames, CAP))
    from .queue import capped_queues

    for queue in capped_queues(source, cls_name, model):
        # A memory queue fills up to its cap: the proof runs past the frame where the cap is reached.
        needed = max(needed, min(queue.capacity + 2, CAP))
    return Reach(needed, found, beyond)


def _start(value: Any) -> float:
    if type(value) in (int, float, bool):
        return float(value)
    numel = getattr(value, "numel", None)
    if callable(numel) and numel() == 1 and not getattr(value, "is_complex", lambda: False)():
        return float(value.reshape(()).item())
    return 0.0
