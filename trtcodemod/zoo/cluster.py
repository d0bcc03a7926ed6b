"""The zoo's models as Ray tasks: ``--ray [ADDRESS]`` (the optional ``trtcodemod[cluster]`` extra).

Each model is one task in a fresh worker process (``max_calls=1``: nothing a model loads
or leaks reaches the next one), never retried (a model that kills its process would kill
the retry too), asking for the ``num_cpus``/``num_gpus`` of its config table, so Ray puts
models with GPU backends on nodes with GPUs. Results come back as tasks finish. The
cluster's nodes must see the model files and trtcodemod at the same paths as this
machine (a shared checkout or the same image); a task that cannot is a failure report.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from .local import Done, ErrorReport
from .worker import Task, run_task

#: ``--ray`` without an address: start a Ray instance on this machine for the run.
LOCAL = "local"


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached (the run cannot start: exit 2)."""


def connect(address: str) -> tuple[Any, bool]:
    """Import Ray and attach to ``address`` (``local``: a new instance here; ``auto``: the running
    one); also whether this call connected (a program that embeds us may be connected already)."""
    try:
        import ray
    except ImportError:
        raise ClusterError("--ray needs Ray: pip install 'trtcodemod[cluster]'") from None
    connected = not ray.is_initialized()
    if connected:
        try:
            ray.init(address=None if address == LOCAL else address, include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; all mean "cannot start"
            raise ClusterError(f"--ray {address}: cannot connect: {type(exc).__name__}: {exc}") from None
    return ray, connected


def run_ray(tasks: list[Task], address: str, resources: list[tuple[float, float]], on_done: Done,
            on_error: ErrorReport) -> None:
    """Submit every task with its ``(num_cpus, num_gpus)``; ``on_done`` gets results as they finish."""
    # Ray prints its workers' and raylet's messages to sys.stdout, where the report goes
    # (`--format json > zoo.json`): while the zoo runs they go to stderr instead.
    # Ray's driver also prints errors pushed to it (a killed worker) from a thread of its own,
    # whenever they arrive: a connection this run made ends inside the redirection, so nothing
    # reaches the report after it (a cluster's processes stay up; the driver only disconnects).
    with contextlib.redirect_stdout(sys.stderr):
        ray, connected = connect(address)
        try:
            _submit_and_wait(ray, tasks, resources, on_done, on_error)
        finally:
            if connected:
                ray.shutdown()


def _submit_and_wait(ray: Any, tasks: list[Task], resources: list[tuple[float, float]], on_done: Done,
                     on_error: ErrorReport) -> None:
    remote = ray.remote(max_calls=1, max_retries=0)(run_task)
    pending: dict[Any, int] = {}
    for index, (task, (cpus, gpus)) in enumerate(zip(tasks, resources)):
        ref = remote.options(num_cpus=cpus, num_gpus=gpus, name=f"trtcodemod {task.command} {task.spec.label}"
                             ).remote(task)
        pending[ref] = index
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                index = pending.pop(ref)
                on_done(index, _result(ray, ref, tasks[index], on_error))
    finally:
        for ref in pending:  # interrupted: cancel what has not finished
            ray.cancel(ref, force=True)


def _result(ray: Any, ref: Any, task: Task, on_error: ErrorReport) -> Any:
    try:
        return ray.get(ref)
    except Exception as exc:  # noqa: BLE001 - a crashed or lost task is that model's result
        message = str(exc).strip().splitlines()
        return on_error(task.spec.label, f"the model's Ray task failed: {type(exc).__name__}: "
                                         f"{message[-1] if message else ''}"), {}

