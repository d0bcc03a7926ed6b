"""Per-output numeric comparison (numpy only).

NaN in the same places counts as equal; an infinity must meet an infinity of the
same sign. The relative error is taken where the expected value is not zero; the
pass test is numpy's ``|actual - expected| <= atol + rtol * |expected|``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np


@dataclass
class OutputComparison:
    """One output of one input set: expected (original eager) vs actual."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    expected_shape: tuple[int, ...]
    expected_dtype: str
    max_abs_err: float | None
    max_rel_err: float | None
    passed: bool
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["shape"], data["expected_shape"] = list(self.shape), list(self.expected_shape)
        for key in ("max_abs_err", "max_rel_err"):
            data[key] = finite_or_none(data[key])
        return data


def finite_or_none(value: float | None) -> float | None:
    """JSON has no inf/NaN: an unbounded error becomes null (the ``problem`` says why)."""
    if value is None or not np.isfinite(value):
        return None
    return float(value)


def compare_array(name: str, expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float) -> OutputComparison:
    """Compare one output."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    base = dict(
        name=name,
        shape=tuple(actual.shape),
        dtype=str(actual.dtype),
        expected_shape=tuple(expected.shape),
        expected_dtype=str(expected.dtype),
    )
    if expected.shape != actual.shape:
        return OutputComparison(**base, max_abs_err=None, max_rel_err=None, passed=False,
                                problem=f"shape {list(actual.shape)} != expected {list(expected.shape)}")
    if expected.dtype != actual.dtype:
        return OutputComparison(**base, max_abs_err=None, max_rel_err=None, passed=False,
                                problem=f"dtype {actual.dtype} != expected {expected.dtype}")
    if expected.size == 0:
        return OutputComparison(**base, max_abs_err=0.0, max_rel_err=0.0, passed=True)
    if expected.dtype == np.bool_ or not np.issubdtype(expected.dtype, np.number):
        wrong = int(np.count_nonzero(expected != actual))
        return OutputComparison(**base, max_abs_err=float(wrong > 0), max_rel_err=float(wrong > 0),
                                passed=wrong == 0, problem=f"{wrong} element(s) differ" if wrong else "")

    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    e_nan, a_nan = np.isnan(e), np.isnan(a)
    e_inf, a_inf = np.isinf(e), np.isinf(a)
    problems = []
    nan_mismatch = int(np.count_nonzero(e_nan != a_nan))
    if nan_mismatch:
        where = "the original is finite" if np.any(a_nan & ~e_nan) else "the rewrite is finite"
        problems.append(f"NaN at {nan_mismatch} position(s) where {where}")
    inf_mismatch = int(np.count_nonzero((e_inf | a_inf) & ~(e_nan | a_nan) & (e != a)))
    if inf_mismatch:
        problems.append(f"inf mismatch at {inf_mismatch} position(s)")

    finite = np.isfinite(e) & np.isfinite(a)
    diff = np.abs(a[finite] - e[finite])
    ref = np.abs(e[finite])
    max_abs = float(diff.max()) if diff.size else 0.0
    nonzero = ref > 0
    max_rel = float((diff[nonzero] / ref[nonzero]).max()) if np.any(nonzero) else 0.0
    tolerance_misses = int(np.count_nonzero(diff > atol + rtol * ref))
    if tolerance_misses:
        problems.append(f"{tolerance_misses} of {e.size} element(s) outside atol/rtol")
    if nan_mismatch or inf_mismatch:
        max_abs = max_rel = float("inf")
    return OutputComparison(**base, max_abs_err=max_abs, max_rel_err=max_rel,
                            passed=not problems, problem="; ".join(problems))


def compare_outputs(
    names: Sequence[str], expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], atol: float, rtol: float
) -> list[OutputComparison]:
    """Compare output lists position by position (ONNX output names differ by exporter)."""
    results = [compare_array(n, e, a, atol, rtol) for n, e, a in zip(names, expected, actual)]
    if len(expected) != len(actual):
        results.append(OutputComparison(
            name="(outputs)", shape=(len(actual),), dtype="", expected_shape=(len(expected),), expected_dtype="",
            max_abs_err=None, max_rel_err=None, passed=False,
            problem=f"{len(actual)} output(s), expected {len(expected)}"))
    return results


def worst(comparisons: Sequence[OutputComparison]) -> tuple[float | None, float | None, bool]:
    """Max abs and rel error over many comparisons, and whether all passed.

    An error is None only when nothing numeric could be compared (shape or count mismatch).
    """
    abs_errs = [c.max_abs_err for c in comparisons if c.max_abs_err is not None]
    rel_errs = [c.max_rel_err for c in comparisons if c.max_rel_err is not None]
    passed = bool(comparisons) and all(c.passed for c in comparisons)
    return (max(abs_errs) if abs_errs else None, max(rel_errs) if rel_errs else None, passed)

