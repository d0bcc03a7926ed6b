"""The zoo options ``migrate`` and ``verify`` share, and the one call their commands make."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

import typer

from trtcodemod.verify.spec import SpecError, VerifySpec, load_model_tables

from .batch import Inline, run_zoo
from .cluster import ClusterError
from .local import ErrorReport
from .reports import Verdict, ZooProgress
from .worker import Result

JobsOpt = typer.Option(1, "--jobs", "-j", min=0, help="With a config: models at once, each in its own "
                                                        "processes (0: one per core; default 1).")
CacheOpt = typer.Option(True, "--cache/--no-cache", help="With a config: reuse a model's result when its files, "
                                                          "table, trtcodemod and library versions are unchanged.")
RayOpt = typer.Option(None, "--ray", metavar="ADDRESS",
                      help="With a config: run the models as Ray tasks (pip install 'trtcodemod[cluster]'): "
                           "local (a Ray instance on this machine for the run), auto (the running cluster) "
                           "or ray://HOST:10001.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No line per finished model on standard error.")


def resources(config: Optional[Path], specs: Sequence[VerifySpec]) -> list[tuple[float, float]]:
    """``(num_cpus, num_gpus)`` per model from its config table (default 1 CPU, no GPU)."""
    tables = load_model_tables(config, Path.cwd())[1]
    out = []
    for spec in specs:
        table = tables.get(spec.name, {})
        try:
            cpus, gpus = float(table.get("num_cpus", 1)), float(table.get("num_gpus", 0))
        except (TypeError, ValueError):
            raise SpecError(f"{spec.name}: num_cpus and num_gpus must be numbers") from None
        if cpus < 0 or gpus < 0:
            raise SpecError(f"{spec.name}: num_cpus and num_gpus must be >= 0")
        out.append((cpus, gpus))
    return out


__all__ = ["CacheOpt", "ClusterError", "JobsOpt", "QuietOpt", "RayOpt", "render_junit", "run_models", "zoo_only"]


def run_models(command: str, specs: list[VerifySpec], *, multi: bool, config: Optional[Path], jobs: int,
               cache: bool, ray: Optional[str], quiet: bool, inline: Inline, on_error: ErrorReport,
               verdict: Verdict, facts_out: Optional[Path] = None) -> list[Result]:
    """Run the models; a zoo (``multi``) gets the cache, ``--jobs``, ``--ray`` and progress lines."""
    from trtcodemod import cache as file_cache

    from .cache import ModelCache
    from .schedule import Durations

    if not multi:
        return [inline(spec) for spec in specs]
    saved = any(spec.save_dir is not None for spec in specs) or facts_out is not None
    store = ModelCache.for_config(config) if cache and not saved else None  # saved files are not cached
    progress = ZooProgress(len(specs), verdict, enabled=not quiet)
    wanted = resources(config, specs) if ray is not None else []
    # The models' last wall times order the run even with --no-cache: a hint, never a result.
    durations = Durations.for_cache_folder(file_cache.default_location(str(config if config is not None
                                                                           else Path.cwd())))
    return run_zoo(command, specs, jobs=jobs, inline=inline, on_error=on_error, progress=progress,
                   cache=store, ray=ray, resources=wanted, facts_out=facts_out, durations=durations)


def zoo_only(multi: bool, jobs: int, ray: Optional[str]) -> None:
    """``--jobs``/``--ray`` are for zoos: with one model they are an error, not silently ignored;
    and ``--ray`` took an option for its address."""
    if not multi and (jobs != 1 or ray is not None):
        raise SpecError("--jobs and --ray run the models of a config; give --config (or no MODEL_FILE)")
    if ray is not None and ray.startswith("-"):  # `--ray --no-cache`: the option took the next one as its value
        raise SpecError(f"--ray: {ray!r} is not an address; write `--ray local` for a local instance")


def render_junit(reports: list[dict[str, Any]], command: str, verdict: Verdict, render_text: Any) -> str:
    from .reports import junit

    return junit(reports, command, verdict, render_text)
