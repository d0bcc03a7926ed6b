"""Latency: warm-up calls, then median and p90 over timed runs."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

#: Timed runs a time budget never cuts below (a median and a p90 of fewer say little).
MIN_BUDGET_RUNS = 3


def time_calls(call: Callable[[], object], runs: int, warmup: int, sync: Callable[[], None] | None = None,
               budget: float | None = None) -> list[float]:
    """Seconds per call; ``sync`` waits for asynchronous devices (CUDA) before the clock stops.

    ``budget``: seconds for the warm-up and the timed runs together; once they are spent the
    timing stops after at least ``MIN_BUDGET_RUNS`` timed runs (a slow model's figure then comes
    from fewer than ``runs``). None or 0: always ``runs``.
    """
    began = time.perf_counter()
    for _ in range(warmup):
        call()
    if sync:
        sync()
    samples: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        if sync:
            sync()
        samples.append(time.perf_counter() - start)
        if budget and len(samples) >= MIN_BUDGET_RUNS and time.perf_counter() - began >= budget:
            break
    return samples


def summarize(samples: list[float] | None) -> dict[str, float] | None:
    """``{"median": ms, "p90": ms, "runs": n}``, or None when nothing was timed."""
    if not samples:
        return None
    ms = np.asarray(samples, dtype=np.float64) * 1e3
    return {"median": round(float(np.median(ms)), 4), "p90": round(float(np.percentile(ms, 90)), 4), "runs": len(samples)}
