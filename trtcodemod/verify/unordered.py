"""Outputs whose row order is not part of the contract (``--unordered NAME[:AXIS]``).

Rows are the slices along the *row axis*; every axis before it is a batch axis whose elements
are kept apart, every axis after it is the row's content. Without ``:AXIS`` the row axis is 0
for an output of rank 1 or 2 (``(k,)``, ``(k, 6)``) and 1 for rank 3 and more (``(batch, k, 6)``:
each batch element's rows are a set of its own). Both sides of a comparison get their rows
sorted the same way, so equal sets of rows compare equal.

Unordered outputs that share their batch axes and their number of rows (a detector's boxes
``(k, 6)`` and their masks ``(k, h, w)``, or keypoints ``(batch, k, 17, 3)`` beside ``(batch, k, 5)``)
are the rows of one set: :func:`order_all` and :func:`match_all` move their rows together, so a
mask never leaves its box. Sorted apart, two full-size masks a few threshold flips apart would sort
by those flips and be compared with other rows' masks.

Output names are only known once the model has run (``output``, ``output.0``, ``output.boxes``,
from what ``forward`` returns), so :func:`resolve` checks the names against them then, before any
comparison: a name the model does not have is an error, never an option that silently does
nothing.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

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


#: The most pairwise element comparisons :func:`matched_rows` makes for one output (rows out of place by rows out of
#: place by values): past it, the sorted order is kept as it is.
_MATCH_LIMIT = 50_000_000


def matched_rows(expected: np.ndarray, actual: np.ndarray, axis: int, atol: float, rtol: float) -> np.ndarray:
    """``actual`` (rows sorted by :func:`order_rows`) with each row moved to the place of a row of ``expected``
    it equals within ``|a - e| <= atol + rtol * |e|`` (NaN equal to NaN), within each batch element.

    Sorting lines equal sets of rows up only while no two rows sort apart by rounding alone: a detector's boxes
    whose first coordinates lie within the tolerance of each other (or a clamped zero and a coordinate just
    past it) sort in one order on one side and the other on the other. A row keeps its place where it already
    matches; only the others are compared with each other (so thousands of rows cost what their few displaced
    ones do) and paired greedily, each with the first unpaired partner; rows with no partner within the tolerance
    are paired nearest first (:func:`_pairs`). The comparison that follows judges every pair, so a pass still
    shows a one-to-one pairing of equal rows: the same set."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape or actual.ndim <= axis or actual.shape[axis] < 2 or actual.size == 0 \
            or not np.issubdtype(actual.dtype, np.number) or not np.issubdtype(expected.dtype, np.number):
        return actual
    batch = int(np.prod(actual.shape[:axis], dtype=np.int64))
    rows = actual.shape[axis]
    e_rows = expected.reshape(batch, rows, -1).astype(np.float64)
    a_rows = actual.reshape(batch, rows, -1)
    out = a_rows.copy()
    for b in range(batch):
        e, a = e_rows[b], a_rows[b].astype(np.float64)
        partner = _displaced_pairs([e], [a], atol, rtol)
        if partner is not None:
            out[b] = a_rows[b][partner]
    return out.reshape(actual.shape)


def _displaced_pairs(expected: list[np.ndarray], actual: list[np.ndarray], atol: float,
                     rtol: float) -> np.ndarray | None:
    """:func:`_pairs` over the rows that do not already equal the row at their place: ``expected[k]`` and
    ``actual[k]`` are one batch element's ``(rows, values)`` of the group's ``k``-th output, the first leading.
    None where no row moves, or where the displaced rows are too many to compare pairwise (:data:`_MATCH_LIMIT`)."""
    in_place = [_close_in_place(e, a, atol, rtol) for e, a in zip(expected, actual)]
    moving = np.flatnonzero(~np.logical_and.reduce(in_place))

    def fits(rows: np.ndarray) -> bool:
        return moving.size * moving.size * max(1, rows.shape[1]) <= _MATCH_LIMIT

    if moving.size == 0 or not fits(expected[0]):
        return None
    lead_e, lead_a = expected[0][moving], actual[0][moving]
    lead = _close(lead_e, lead_a, atol, rtol)
    every = lead.copy()
    for e, a in zip(expected[1:], actual[1:]):
        if fits(e):  # a follower too wide to compare pairwise (full-size masks) is judged after pairing only
            every &= _close(e[moving], a[moving], atol, rtol)
    partner = _pairs(lead, every, lambda i, j: _distance(lead_e[i], lead_a[j], atol, rtol))
    if partner is None:
        return None
    whole = np.arange(expected[0].shape[0])
    whole[moving] = moving[partner]
    return whole


def _close_in_place(expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """``[i]``: every value of expected row ``i`` within the tolerance of actual row ``i`` (NaN equals NaN)."""
    with np.errstate(invalid="ignore"):
        within = np.abs(actual - expected) <= atol + rtol * np.abs(expected)
    within |= (np.isnan(expected) & np.isnan(actual)) | ((expected == actual) & np.isinf(expected))
    return within.reshape(within.shape[0], -1).all(axis=1)


def _distance(expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """``[i, j]``: the largest difference between expected row ``i`` and actual row ``j``, in units of the
    tolerance at the expected value (0 where both are NaN or the same infinity; infinite where only one is not
    finite, or where the tolerance is 0 and the values differ). Computed a block of expected rows at a time, so the
    temporaries stay a fraction of what the pairwise comparison's limit allows."""
    out = np.empty((expected.shape[0], actual.shape[0]))
    a = actual[None, :, :]
    for start in range(0, expected.shape[0], 256):
        e = expected[start:start + 256, None, :]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            gap = np.abs(a - e)
            units = np.where(gap == 0, 0.0, gap / (atol + rtol * np.abs(e)))
        same = (np.isnan(e) & np.isnan(a)) | ((e == a) & np.isinf(e))
        units = np.where(same, 0.0, np.where(np.isnan(units), np.inf, units))
        out[start:start + 256] = units.max(axis=2, initial=0.0)
    return out


def _close(expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """``[i, j]``: every value of expected row ``i`` within the tolerance of actual row ``j`` (NaN equals NaN)."""
    e, a = expected[:, None, :], actual[None, :, :]
    with np.errstate(invalid="ignore"):
        within = np.abs(a - e) <= atol + rtol * np.abs(e)
    within |= (np.isnan(e) & np.isnan(a)) | ((e == a) & np.isinf(e))
    return within.all(axis=2)


def linked(labels: Sequence[str], arrays: Sequence[np.ndarray | None], axes: Mapping[str, int]) -> list[list[int]]:
    """The unordered outputs (indices into ``labels``) grouped by their leading shape up to and with the
    row axis: each group is one set of rows, its members ordered from the fewest values a row to the most
    (the boxes lead their masks). Outputs without rows to move (missing, or under two rows) are left out."""
    groups: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for i, (name, a) in enumerate(zip(labels, arrays)):
        if name not in axes or a is None:
            continue
        shape, axis = np.shape(a), axes[name]
        if len(shape) <= axis or shape[axis] < 2 or 0 in shape:
            continue
        groups.setdefault((axis, tuple(shape[:axis + 1])), []).append(i)
    return [sorted(g, key=lambda i: (_per_row(arrays[i], axes[labels[i]]), i)) for g in groups.values()]


def _per_row(a: np.ndarray, axis: int) -> int:
    shape = np.shape(a)
    return int(np.prod(shape[axis + 1:], dtype=np.int64))


def order_all(labels: Sequence[str], arrays: Sequence[np.ndarray | None], axes: Mapping[str, int]) -> list:
    """``arrays`` with the rows of each group of :func:`linked` outputs sorted together: by the lead
    output's values first (as :func:`order_rows`), then its followers' (a lone output sorts as
    :func:`order_rows`). Every other output is returned as it is."""
    out = list(arrays)
    for group in linked(labels, arrays, axes):
        if len(group) == 1:
            out[group[0]] = order_rows(arrays[group[0]], axes[labels[group[0]]])
            continue
        axis = axes[labels[group[0]]]
        rows = [_as_rows(np.asarray(arrays[i]), axis) for i in group]
        batch, count = rows[0].shape[:2]
        keys = [np.round(r.astype(np.float64), 4) if np.issubdtype(r.dtype, np.floating) else r for r in rows]
        key = np.concatenate([k.reshape(batch * count, -1).astype(np.float64) for k in keys], axis=1)
        element = np.repeat(np.arange(batch), count)
        order = np.lexsort((*key.T[::-1], element)).reshape(batch, count) - (np.arange(batch) * count)[:, None]
        for i, r in zip(group, rows):
            out[i] = r[np.arange(batch)[:, None], order].reshape(np.shape(arrays[i]))
    return out


def match_all(labels: Sequence[str], expected: Sequence[np.ndarray | None], actual: Sequence[np.ndarray | None],
              axes: Mapping[str, int], atol: float, rtol: float) -> list:
    """``actual`` (sorted by :func:`order_all`) with each group of :func:`linked` outputs' rows moved together
    to the places of ``expected``'s rows they pair with (a lone output as :func:`matched_rows`). A pair is
    found where every member's rows are equal within the tolerance, else where the lead output's are: a
    mask with a few threshold flips then stays with its box, and the comparison that follows judges it
    (with its float64 allowance). Every output is checked there, so a pass still shows one set of rows."""
    out = list(actual)
    groups = [g for g in linked(labels, expected, axes)
              if all(actual[i] is not None and np.shape(actual[i]) == np.shape(expected[i]) for i in g)]
    for group in groups:
        axis = axes[labels[group[0]]]
        if len(group) == 1:
            out[group[0]] = matched_rows(expected[group[0]], actual[group[0]], axis, atol, rtol)
            continue
        if not all(np.issubdtype(np.asarray(x[i]).dtype, np.number) for x in (expected, actual) for i in group):
            continue
        e_rows = [_as_rows(np.asarray(expected[i]), axis) for i in group]
        a_rows = [_as_rows(np.asarray(actual[i]), axis) for i in group]
        batch = e_rows[0].shape[0]
        moved = [a.copy() for a in a_rows]
        for b in range(batch):
            partner = _displaced_pairs([_flat(e[b]) for e in e_rows], [_flat(a[b]) for a in a_rows], atol, rtol)
            if partner is None:
                continue
            for k in range(len(group)):
                moved[k][b] = a_rows[k][b][partner]
        for i, m in zip(group, moved):
            out[i] = m.reshape(np.shape(actual[i]))
    return out


def _as_rows(a: np.ndarray, axis: int) -> np.ndarray:
    """``(batch, rows, ...)``: the axes before the row axis folded into one."""
    batch = int(np.prod(a.shape[:axis], dtype=np.int64))
    return a.reshape(batch, a.shape[axis], *a.shape[axis + 1:])


def _flat(rows: np.ndarray) -> np.ndarray:
    return rows.reshape(rows.shape[0], -1).astype(np.float64)


def _pairs(lead: np.ndarray, every: np.ndarray,
           distance: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray | None:
    """``partner[i]``: the actual row placed at expected row ``i``: a row keeps its place where it pairs; the
    others go, first to a partner equal in every output, then to one equal in the lead's values. Rows left over
    (no partner within the tolerance: values that moved further, by a graph's other rounding that a float64 run
    may admit) pair nearest first by ``distance(expected rows, actual rows)``, else fill the places left in their
    order. None where every row keeps its place."""
    count = lead.shape[0]
    taken = np.zeros(count, dtype=bool)
    partner = np.full(count, -1)
    for close in (every, lead):
        for i in np.flatnonzero((partner < 0) & close[np.arange(count), np.arange(count)] & ~taken):
            partner[i], taken[i] = i, True
        for i in np.flatnonzero(partner < 0):
            free = np.flatnonzero(close[i] & ~taken)
            if free.size:
                partner[i], taken[free[0]] = free[0], True
    if np.all(partner == np.arange(count)):
        return None
    alone, free = np.flatnonzero(partner < 0), np.flatnonzero(~taken)
    if distance is not None and alone.size:
        gaps = distance(alone, free)
        # Nearest pairs first; ties by place, so that the pairing is the same on every run.
        left = alone.size
        for flat in np.lexsort((np.arange(gaps.size), gaps.ravel())):
            i, j = divmod(int(flat), free.size)
            if partner[alone[i]] < 0 and not taken[free[j]]:
                partner[alone[i]], taken[free[j]] = free[j], True
                left -= 1
                if not left:
                    break
    partner[partner < 0] = np.flatnonzero(~taken)
    return partner
