"""Outputs whose row order is not part of the contract (``--unordered NAME[:AXIS]``).

Rows are the slices along the *row axis*; every axis before it is a batch axis whose elements
are kept apart, every axis after it is the row's content. Without ``:AXIS`` the row axis is 0
for an output of rank 1 or 2 (``(k,)``, ``(k, 6)``) and 1 for rank 3 and more (``(batch, k, 6)``:
each batch element's rows are a set of its own). Both sides of a comparison get their rows
sorted the same way, so equal sets of rows compare equal.

Output names are only known once the model has run (``output``, ``output.0``, ``output.boxes``,
from what ``forward`` returns), so :func:`resolve` checks the names against them then, before any
comparison: a name the model does not have is an error, never an option that silently does
nothing.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np


class UnorderedError(ValueError):
    """An ``unordered`` entry that names no output, or an axis the output does not have."""


def parse(entry: str) -> tuple[str, int | None]:
    """``"output"`` -> ``("output", None)``; ``"output.0:1"`` -> ``("output.0", 1)``.

    A suffix after the last ``:`` is an axis only when it is an integer, so a name holding
    a colon (a dict key) still reads as a name.
    """
    text = str(entry).strip()
    name, sep, axis = text.rpartition(":")
    if sep and axis.strip().lstrip("-").isdigit():
        if not name.strip():
            raise UnorderedError(f"{text!r}: expected NAME or NAME:AXIS")
        return name.strip(), int(axis)
    if not text:
        raise UnorderedError("an empty output name")
    return text, None


def parse_all(entries: Sequence[str]) -> dict[str, int | None]:
    """Every entry parsed; a name given twice is an error (two axes for one output are ambiguous)."""
    out: dict[str, int | None] = {}
    for entry in entries:
        name, axis = parse(entry)
        if name in out:
            raise UnorderedError(f"{name!r} is named twice")
        out[name] = axis
    return out


def default_axis(ndim: int) -> int:
    """The row axis when none is given: 0 up to rank 2, else 1 (axis 0 is the batch)."""
    return 0 if ndim <= 2 else 1


def resolve(entries: Sequence[str], names: Sequence[str], arrays: Sequence[np.ndarray]) -> dict[str, int]:
    """``name -> row axis`` for each entry, checked against the model's outputs (one input set's).

    Raises :class:`UnorderedError` naming the outputs the model has when an entry names none
    of them, or an axis its output does not have.
    """
    shapes = {n: np.shape(a) for n, a in zip(names, arrays)}
    resolved: dict[str, int] = {}
    for name, axis in parse_all(entries).items():
        if name not in shapes:
            raise UnorderedError(f"no output named {name!r}{_hint(name, list(shapes))}; "
                                 f"the model's outputs: {_listing(shapes)}")
        ndim = len(shapes[name])
        if ndim == 0:
            raise UnorderedError(f"output {name!r} is a scalar: it has no rows to compare as a set")
        row = default_axis(ndim) if axis is None else axis
        if not -ndim <= row < ndim:
            raise UnorderedError(f"output {name!r} has shape {list(shapes[name])}: no axis {row}")
        resolved[name] = row % ndim
    return resolved


def _hint(name: str, known: list[str]) -> str:
    # The common slip: a model returning one tensor has one output, ``output``, not ``output.0``.
    if known == ["output"] and name.startswith("output."):
        return " (a model that returns one tensor has a single output, named 'output'; " \
               "'output.0' is the first tensor of a returned tuple or list)"
    return ""


def _listing(shapes: Mapping[str, tuple[int, ...]]) -> str:
    if not shapes:
        return "none"
    return ", ".join(f"{n} {list(s)}" for n, s in shapes.items())


def order_rows(array: np.ndarray, axis: int = 0) -> np.ndarray:
    """``array`` with its rows along ``axis`` sorted lexicographically within each batch element.

    Detections with tied scores may swap rows between backends; sorted, equal sets of rows
    compare equal. Floats are rounded to 4 decimals for the sort key only, so rows that differ
    within tolerance usually still line up. NaN sorts last.
    """
    array = np.asarray(array)
    if array.ndim <= axis or array.shape[axis] < 2 or array.size == 0:
        return array
    batch = int(np.prod(array.shape[:axis], dtype=np.int64))
    rows = array.shape[axis]
    flat = array.reshape(batch * rows, -1)
    key = np.round(flat.astype(np.float64), 4) if np.issubdtype(flat.dtype, np.floating) else flat
    # The batch element is the primary key (np.lexsort sorts by its last key first), so
    # rows never leave their batch element; then the row's values, first column first.
    element = np.repeat(np.arange(batch), rows)
    order = np.lexsort((*key.T[::-1], element))
    return flat[order].reshape(array.shape)
