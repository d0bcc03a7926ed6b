"""The CPU cores a run may use: the one ``--jobs`` policy of ``check``, ``apply`` and the zoos."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def resolve_jobs(jobs: int) -> int:
    """``--jobs N``: ``N`` workers, 0 meaning one per usable core."""
    return jobs or usable_cores()
