"""Latency: warm-up calls, then median and p90 over timed runs."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np


def time_calls(call: Callable[[], object], runs: int, warmup: int, sync: Callable[[], None] | None = None) -> list[float]:
    """Seconds per call; ``sync`` waits for asynchronous devices (CUDA) before the clock stops."""
    for _ in range(warmup):
        call()
    if sync:
        sync()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        if sync:
            sync()
        samples.append(time.perf_counter() - start)
    return samples


def summarize(samples: list[float] | None) -> dict[str, float] | None:
    """``{"median": ms, "p90": ms, "runs": n}``, or None when nothing was timed."""
    if not samples:
        return None
    ms = np.asarray(samples, dtype=np.float64) * 1e3
    return {"median": round(float(np.median(ms)), 4), "p90": round(float(np.percentile(ms, 90)), 4), "runs": len(samples)}
