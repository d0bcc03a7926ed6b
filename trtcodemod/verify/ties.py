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
                 rtol: float, scales: list[float]) -> list[np.ndarray] | None:
    """Per batch element, ``perm`` with ``got[b, perm[i]]`` matching ``ref[b, i]`` in every output
    and ``|perm[i] - i| <= REACH``; None where no such one-to-one pairing exists. With ``exact``
    rows (in ``ref``'s order), a value as accurate as eager mode (``admitted_by_exact`` with the
    output's rounding ``scales``) matches too, as the comparison itself admits it."""

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
        near = [[j for j in range(max(0, i - REACH), min(rows, i + REACH + 1)) if match(b, i, j)]
                for i in range(rows)]
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
        evidence = _permutation(ref, x, [None] * len(members), [atol + s for s in scales], rtol, scales)
        if evidence is None or not _moved(evidence):
            continue  # float64 keeps eager mode's order here (or differs otherwise): no trade is rounding's
        x = [_reorder(rows, evidence) for rows in x]
        scales = [eager_error_scale(r, rows, atol, rtol) for r, rows in zip(ref, x)]
        got = [_rows(actual[i], axis) for i in members]
        perms = _permutation(ref, got, x, [atol] * len(members), rtol, scales)
        if perms is None:
            continue
        for k, i in enumerate(members):
            result[i] = _reorder(got[k], perms).reshape(np.shape(actual[i]))
            reference[i] = x[k].reshape(np.shape(exact[i]))
        moved = max(moved, _moved(perms))
    return (result, reference, moved) if moved else None
