"""Neighbouring rows that rounding orders: the same rows, with places traded between neighbours.

A model that keeps the top k of its scores in order (DETR-family detectors keep 300 queries of the
encoder's, and every later output row follows that order) puts two scores closer than float32's
own error of them in an order rounding decides. Eager float32, its float64 run and ONNX Runtime
then trade such neighbours' places: row 25 of one is row 26 of the other, in every output that
follows the order, the values equal within the tolerance. That is no other computation, and no
engine promises one order there (TensorRT's TopK breaks near-ties its own way too).

:func:`traded_rows` takes that verdict only with evidence that the outputs' order is rounding's
to decide on this very input: eager float32 and the model's float64 run themselves trade the
places of some neighbouring rows in those outputs. Then, and only where every output of the
same rows matches eager mode's after trading places between rows at most ``reach`` apart, the
actual outputs count as eager mode's rows in another order. Anything else (a row that matches
no neighbour, one output that does and another that does not, a permutation over a longer
distance, no evidence from the float64 run) stays the plain comparison's failure.

Rows sorted by a key column of their own (a score beside its box: CenterNet's decoder keeps the
top 40 heatmap peaks, ``(batch, 40, 6)`` with the score last) need no such evidence where the
key's values of two rows are within the comparison's tolerance of each other (:func:`key_ties`):
a graph whose keys each pass the comparison may sort those rows either way, however far apart
they are (a sigmoid saturated a few float32 steps below 1 ties dozens of peaks). Such rows trade
places at any distance within their ties, and only there; every row must still match one of
eager mode's, in every output of the group.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from trtcodemod.verify.compare import admitted_by_exact, eager_error_scale
from trtcodemod.verify.unordered import default_axis

#: How far apart two traded rows may be: neighbours, or one between them (three near-equal scores).
REACH = 2


def _groups(arrays: Sequence[np.ndarray | None], skip: set[int]) -> dict[tuple[int, tuple[int, ...]], list[int]]:
    """Floating outputs of rank 2 or more that share their leading axes up to the row axis."""
    out: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    for i, a in enumerate(arrays):
        if i in skip or a is None:
            continue
        a = np.asarray(a)
        if a.ndim < 2 or not np.issubdtype(a.dtype, np.floating) or a.size == 0:
            continue
        axis = default_axis(a.ndim)
        if a.shape[axis] < 2:
            continue
        out.setdefault((axis, tuple(a.shape[:axis + 1])), []).append(i)
    return out


def _rows(a: np.ndarray, axis: int) -> np.ndarray:
    a = np.asarray(a)
    batch = int(np.prod(a.shape[:axis], dtype=np.int64))
    return a.reshape(batch, a.shape[axis], -1)


def _permutation(ref: list[np.ndarray], got: list[np.ndarray], exact: list[np.ndarray | None], atol: list[float],
                 rtol: float, scales: list[float], reach: int = REACH,
                 tied: list[np.ndarray] | None = None) -> list[np.ndarray] | None:
    """Per batch element, ``perm`` with ``got[b, perm[i]]`` matching ``ref[b, i]`` in every output
    and ``|perm[i] - i| <= reach`` or rows ``i`` and ``perm[i]`` ``tied`` (:func:`key_ties`); None
    where no such one-to-one pairing exists. With ``exact`` rows (in ``ref``'s order), a value as
    accurate as eager mode (``admitted_by_exact`` with the output's rounding ``scales``) matches
    too, as the comparison itself admits it."""

    def match(b: int, i: int, j: int) -> bool:
        for r, g, x, tol, scale in zip(ref, got, exact, atol, scales):
            e, a = r[b, i], g[b, j]
            ok = np.abs(a.astype(np.float64) - e) <= tol + rtol * np.abs(e.astype(np.float64))
            if x is not None and not ok.all():
                ok |= admitted_by_exact(e, a, x[b, i], tol, rtol, scale)
            if not ok.all():
                return False
        return True

    batch, rows = ref[0].shape[:2]
    perms: list[np.ndarray] = []
    for b in range(batch):
        near = [[j for j in range(rows) if (abs(i - j) <= reach or (tied is not None and tied[b][i, j]))
                 and match(b, i, j)] for i in range(rows)]
        for i in range(rows):  # a row's own place first: trades only where they are needed
            if i in near[i]:
                near[i].remove(i)
                near[i].insert(0, i)
        owner = [-1] * rows  # got row -> the ref row it stands for

        def assign(i: int, seen: set[int]) -> bool:
            for j in near[i]:
                if j not in seen:
                    seen.add(j)
                    if owner[j] < 0 or assign(owner[j], seen):
                        owner[j] = i
                        return True
            return False

        for i in range(rows):
            if not assign(i, set()):
                return None
        perm = np.empty(rows, dtype=np.int64)
        perm[owner] = np.arange(rows)
        perms.append(perm)
    return perms


def key_ties(ref: list[np.ndarray], atol: float, rtol: float, scales: list[float] | None = None
             ) -> list[np.ndarray] | None:
    """Per batch element, which rows' places the comparison cannot order: ``tied[b][i, j]``.

    A *key* is one column of a group's rows (``ref``, each ``(batch, rows, width)``, eager mode's)
    that the rows are sorted by: monotone along the rows in every batch element, one direction
    for all, and not one value throughout (a constant column orders nothing). Two rows tie when
    every key's values of them are within ``atol + rtol * |key|`` of each other (plus the output's
    rounding ``scales``): a graph whose keys are each within the comparison's tolerance of eager
    mode's may sort such rows either way, so their order is no part of what is compared (a top-k
    of scores that a saturated sigmoid puts a few float32 steps below 1, CenterNet's heatmap
    peaks). None where the rows have no key or no two rows tie.
    """
    keys: list[tuple[np.ndarray, float]] = []
    for k, r in enumerate(ref):
        if r.ndim != 3 or r.shape[1] < 2:
            continue
        scale = scales[k] if scales else 0.0
        for c in range(r.shape[2]):
            col = r[:, :, c].astype(np.float64)
            if not np.isfinite(col).all() or col.max() == col.min():
                continue
            step = np.diff(col, axis=1)
            if (step <= 0).all() or (step >= 0).all():
                keys.append((col, scale))
    if not keys:
        return None
    batch, rows = keys[0][0].shape
    tied = [np.ones((rows, rows), dtype=bool) for _ in range(batch)]
    for col, scale in keys:
        for b in range(batch):
            v = col[b]
            gap = np.abs(v[:, None] - v[None, :])
            tied[b] &= gap <= atol + scale + rtol * np.maximum(np.abs(v)[:, None], np.abs(v)[None, :])
    for t in tied:
        np.fill_diagonal(t, False)
    return tied if any(t.any() for t in tied) else None


def _moved(perms: list[np.ndarray]) -> int:
    return int(sum(np.count_nonzero(p != np.arange(len(p))) for p in perms))


def _reorder(rows: np.ndarray, perms: list[np.ndarray]) -> np.ndarray:
    return np.stack([rows[b, p] for b, p in enumerate(perms)])


def traded_rows(expected: Sequence[np.ndarray | None], actual: Sequence[np.ndarray | None],
                exact: Sequence[np.ndarray | None] | None, atol: float, rtol: float,
                skip: set[int] = frozenset()) -> tuple[list[np.ndarray | None], list[np.ndarray | None], int] | None:
    """``actual`` and ``exact`` with neighbouring rows put back in eager mode's order, and how many
    rows of ``actual`` moved.

    None unless, for some group of outputs that share their rows, eager mode and its float64 run
    (``exact``) themselves trade neighbours' places, and ``actual`` differs from ``expected`` only
    by such trades there (within atol/rtol, or as accurate as eager mode against the float64 rows
    put in eager mode's order). Outputs in ``skip`` (compared as sets already) and those of no such
    group are returned as they were.
    """
    if not exact or len(exact) != len(expected) or len(actual) != len(expected):
        return None
    result = [None if a is None else np.array(a, copy=True) for a in actual]
    reference = [None if x is None else np.array(x, copy=True) for x in exact]
    moved = 0
    for (axis, shape), members in _groups(expected, set(skip)).items():
        if any(actual[i] is None or np.shape(actual[i]) != np.shape(expected[i]) for i in members):
            continue
        if any(exact[i] is None or np.shape(exact[i]) != np.shape(expected[i]) for i in members):
            continue
        ref = [_rows(expected[i], axis) for i in members]
        x = [_rows(exact[i], axis) for i in members]
        # Eager mode's own rounding error on each output, as the comparison measures it: where
        # float64's rows are eager mode's with neighbours traded, within that, that is the tie.
        scales = [eager_error_scale(expected[i], exact[i], atol, rtol) for i in members]
        # Rows sorted by a key whose values sit within the tolerance of each other: their order
        # is no part of the comparison, with or without the float64 run's word on it.
        tied = key_ties(ref, atol, rtol, scales)
        evidence = _permutation(ref, x, [None] * len(members), [atol + s for s in scales], rtol, scales,
                                tied=tied)
        if evidence is not None and _moved(evidence):
            reach = REACH  # float64 itself trades neighbours: rounding orders them
            x = [_reorder(rows, evidence) for rows in x]
        elif tied is None:
            continue  # float64 keeps eager mode's order here (or differs otherwise): no trade is rounding's
        else:
            reach = 0  # only the key's ties trade
            if evidence is None:
                x = None  # float64's rows are no others' in another order: no reference row by row
        kept = x if x is not None else [None] * len(members)
        scales = ([eager_error_scale(r, rows, atol, rtol) for r, rows in zip(ref, x)] if x is not None
                  else [0.0] * len(members))
        got = [_rows(actual[i], axis) for i in members]
        perms = _permutation(ref, got, kept, [atol] * len(members), rtol, scales, reach=reach, tied=tied)
        if perms is None:
            continue
        for k, i in enumerate(members):
            result[i] = _reorder(got[k], perms).reshape(np.shape(actual[i]))
            reference[i] = None if x is None else x[k].reshape(np.shape(exact[i]))
        moved = max(moved, _moved(perms))
    return (result, reference, moved) if moved else None
