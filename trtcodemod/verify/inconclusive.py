"""Input sets on which eager mode is no reference, set aside when another set judges the graph.

A random-weight detector can saturate on one input: every score exactly 1.0 in float32, boxes
decoded through ``exp`` of huge values. Its top rows are then picked among ties, and eager
float32 misses the model's own float64 run at a quarter of the output or more
(``compare.NO_REFERENCE_SHARE``; effdet's efficientdet_q0, eleventh zoo, set 1: 86 of 120
elements; the yolo26n_obb case in ``tests/verify/test_compare_float64.py``). On
such a set no comparison can tell a faithful graph from a wrong one: a graph that matches eager
mode matches one arbitrary tie order, and one that does not may be as right.
Where the ties are exact in float32 (a sigmoid at 1.0), the float64 run that takes eager float32's
picks among them (``tiedref``) is a reference again and judges such a set first (``run._along_ties``);
what follows is for a set it does not pass.

Such a set is set aside, neither passed as proof nor failed, only where another set of the same
input shapes is a reference (eager mode misses float64 at less than that share) and so judges the
same graph path; the report says which set judged it. Where no set of those shapes is a
reference, the failure stands: nothing was proved for those shapes. It is then said so
(:func:`none_judged`, :func:`unreferenced`), not that the export baked something in: a network
that amplifies rounding at other sizes (torchvision's EfficientNetV2-S with random weights and
BatchNorms calibrated at 64 px, sixteenth zoo, set 3 at 129x65: its last stage grows eager float32's
error against float64 from 1e-6 to 0.46 of the output's root mean square, 20 of 20 logits, the
graph's 0.45) moves every value, and the line where the graph's values first part from eager
mode's is where the rounding grew, not where anything went wrong.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from trtcodemod.verify.compare import OutputComparison


def _shapes(inputs: Mapping[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    return tuple(sorted((name, tuple(getattr(value, "shape", ()))) for name, value in inputs.items()))


def no_reference(comparisons: Sequence[OutputComparison]) -> bool:
    """A failing set whose every failing output is one where eager mode misses float64 at half of it or more."""
    failing = [c for c in comparisons if not c.passed]
    return bool(failing) and all(c.eager_no_reference for c in failing)


def none_judged(per_set: Sequence[Sequence[OutputComparison]], failing: Sequence[int]) -> list[int]:
    """``failing`` (set numbers from 1, indices into ``per_set`` plus one) where every one of them is
    a set whose eager mode is no reference (:func:`no_reference`, left failing by :func:`set_aside`:
    no set of its shapes judged), else []: then the failure stands, with nothing proved for those
    shapes, and is no evidence that the graph computes other values. One failing set where eager
    mode is a reference makes it a plain failure."""
    if not failing or not all(no_reference(per_set[k - 1]) for k in failing):
        return []
    return list(failing)


def unreferenced(comparisons: Sequence[OutputComparison]) -> str:
    """What makes a set no reference, in words, from its first failing output: how much of the output
    eager float32 misses its float64 run at, and how far both runs are from float64 over the output."""
    c = next(c for c in comparisons if not c.passed)
    text = (f"{c.name}: eager float32 misses its float64 run at {c.eager_misses} of {_size(c.expected_shape)} "
            f"element(s)")
    if c.eager_rms_share is not None and c.graph_rms_share is not None:
        text += (f", a root mean square error of {c.eager_rms_share:.3g} of the output's own (the graph's: "
                 f"{c.graph_rms_share:.3g}): the model amplifies float32 rounding at these inputs")
    return text


def set_aside(per_set: Sequence[list[OutputComparison]], numbers: Sequence[int],
              input_sets: Sequence[Mapping[str, Any]]) -> None:
    """Mark, in place, the comparisons of each set where eager mode is no reference as set aside,
    when a set of the same input shapes is a reference. ``numbers``: each entry's input set (from
    0), an index into ``input_sets``."""
    shapes = [_shapes(input_sets[k]) if k < len(input_sets) else None for k in numbers]
    useless = {i for i, comps in enumerate(per_set) if no_reference(comps)}
    for i in sorted(useless):
        judge = next((j for j in range(len(per_set))
                      if j not in useless and shapes[j] is not None and shapes[j] == shapes[i]), None)
        if judge is None:
            continue
        for c in per_set[i]:
            if c.passed:
                continue
            c.passed, c.set_aside = True, True
            c.problem = (f"set {numbers[i] + 1} not judged: eager float32 itself is outside atol/rtol of its "
                         f"float64 run at {c.eager_misses} of {_size(c.expected_shape)} element(s), so this set "
                         f"cannot tell a faithful graph from a wrong one; set {numbers[judge] + 1}, of the same "
                         f"input shapes, judged the graph")


def _size(shape: Sequence[int]) -> int:
    size = 1
    for n in shape:
        size *= int(n)
    return size
