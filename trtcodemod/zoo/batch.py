"""Run a zoo: the cache first, then the remaining models inline, in local processes or on Ray."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from trtcodemod.cores import resolve_jobs, usable_cores
from trtcodemod.verify.spec import VerifySpec

from .cache import ModelCache, spec_key
from .local import ErrorReport, run_local
from .reports import ZooProgress
from .schedule import Durations, model_id
from .worker import Result, Task

#: Runs one model in this process (``--jobs 1``: the commands' own path, with its status line).
Inline = Callable[[VerifySpec], Result]


def threads_per_model(jobs: int, cores: int | None = None) -> int:
    """CPU threads each of ``jobs`` concurrent models may use, so together they fit the cores."""
    return max(1, (cores or usable_cores()) // max(1, jobs))


def run_zoo(command: str, specs: Sequence[VerifySpec], *, jobs: int, inline: Inline, on_error: ErrorReport,
            progress: ZooProgress, cache: ModelCache | None = None, ray: str | None = None,
            resources: Sequence[tuple[float, float]] = (), facts_out: Path | None = None,
            durations: Durations | None = None) -> list[Result]:
    """Every spec's ``(report, sources)``, in the specs' order whatever order they finish in.

    ``jobs``: models at once on this machine (1: one after another in this process; 0: one
    per core). ``ray``: an address (or ``local``) to run them as Ray tasks instead, each
    with its ``resources`` ``(num_cpus, num_gpus)``. ``durations``: earlier wall times; models
    start longest first (:mod:`.schedule`) and this run's times are recorded (not on Ray, where a
    task's start is the cluster's decision).
    """
    durations = durations if durations is not None else Durations(None)
    ids = [model_id(command, spec) for spec in specs]
    results: list[Result | None] = [None] * len(specs)
    keys = [spec_key(command, spec) for spec in specs] if cache is not None else []
    todo: list[int] = []
    for index, spec in enumerate(specs):
        hit = cache.load(keys[index]) if cache is not None else None
        if hit is None:
            todo.append(index)
            continue
        results[index] = hit
        progress(hit[0], cached=True)
    jobs = resolve_jobs(jobs)
    if jobs != 1 or ray is not None:  # one after another, the order changes nothing: keep the config's
        todo = [todo[p] for p in durations.order([ids[i] for i in todo])]

    def started(position: int) -> None:
        durations.started(ids[todo[position]])

    def done(position: int, result: Result) -> None:
        index = todo[position]
        durations.finished(ids[index])
        results[index] = result
        if cache is not None:
            cache.store(keys[index], specs[index], result)
        progress(result[0])

    if not todo:
        pass  # every result came from the cache: no process, no cluster
    elif ray is not None:
        from .cluster import run_ray

        wanted = [resources[i] if i < len(resources) else (1.0, 0.0) for i in todo]
        tasks = [Task(command, specs[i], max(1, int(cpus)), facts_out) for i, (cpus, _) in zip(todo, wanted)]
        run_ray(tasks, ray, wanted, done, on_error)
    elif jobs == 1:
        for position, index in enumerate(todo):
            started(position)
            done(position, inline(specs[index]))
    else:
        threads = threads_per_model(min(jobs, len(todo)))
        run_local([Task(command, specs[i], threads, facts_out) for i in todo], jobs, done, on_error, started)
    durations.save()
    if cache is not None:
        cache.prune()
    missing = [specs[i].label for i, result in enumerate(results) if result is None]
    if missing:  # every path above sets every result; a gap would misalign the summary
        raise RuntimeError(f"no result for {', '.join(missing)}")
    return results  # type: ignore[return-value]
