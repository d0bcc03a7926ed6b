"""``trtcodemod migrate``: the typer command. Imports neither torch nor onnx at import time."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from trtcodemod.report.progress import StatusLine
from trtcodemod.verify.command import collect_specs
from trtcodemod.verify.spec import SpecError
from trtcodemod.zoo import options as zoo

from .one import run_one
from .report import FORMATS, error_report, exit_code, render, render_text, verdict


def _fail(message: str) -> typer.Exit:
    typer.echo(f"trtcodemod migrate: error: {message}", err=True)
    return typer.Exit(2)


def write_sources(reports: list[dict[str, Any]], sources: list[dict[str, tuple[bytes, bytes]]]) -> None:
    """Write every model's rewritten files atomically (``files.write_atomic``, as ``apply`` does).

    A file is written only if it still holds the bytes the migration read, and never with two
    different rewrites (two models sharing a file but planning different fixes): those are errors.
    """
    from trtcodemod.files import write_atomic

    planned: dict[str, bytes] = {}
    for report, files in zip(reports, sources):
        for path, (original, new) in sorted(files.items()):
            if planned.get(path, new) != new:
                report["rewrite_errors"].append(f"{path}: not written: another model rewrites it differently")
                report["exit_code"] = max(report["exit_code"], 1)
                continue
            if path in planned:
                continue
            try:
                # A new file (the lift's export wrapper and contract) was read as empty.
                current = Path(path).read_bytes() if original or Path(path).exists() else b""
                if current != original:
                    raise OSError("the file changed since it was read")
                write_atomic(Path(path), new)
                planned[path] = new
            except OSError as exc:
                report["rewrite_errors"].append(f"{path}: cannot write: {exc.strerror or exc}")
                report["exit_code"] = 2


def migrate_command(
    model_file: Annotated[Optional[Path], typer.Argument(
        help="Python file defining the model (may be a wrapper importing it). Omit with --config.",
        show_default=False)] = None,
    model: Annotated[Optional[str], typer.Option(
        "--model", help="Callable returning an nn.Module, or an nn.Module class. "
                        "With --config: the model table name(s), comma-separated (default: all).")] = None,
    inputs: Annotated[Optional[str], typer.Option(
        "--inputs", help="Function in MODEL_FILE returning a tuple (or dict) of tensors.")] = None,
    input_shape: Annotated[Optional[list[str]], typer.Option(
        "--input-shape", help="NAME:1x3x224x224 random float input (repeatable).")] = None,
    dynamic_axes: Annotated[Optional[str], typer.Option(
        "--dynamic-axes", help='JSON {"input": {"0": "batch"}}; the last input set changes these sizes.')] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="TensorRT version deployed on (default 8.6).")] = None,
    exporter: Annotated[Optional[str], typer.Option("--exporter", help="torchscript (default), dynamo or both.")] = None,
    unsafe: Annotated[Optional[bool], typer.Option(
        "--unsafe/--no-unsafe", help="Also apply unsafe fixes no observation proves.", show_default=False)] = None,
    write: Annotated[bool, typer.Option("--write", help="Write the verified rewrite to your files.")] = False,
    format: Annotated[str, typer.Option(  # noqa: A002
        "--format", help="text, json, markdown or junit (JUnit XML, a test case per model).")] = "text",
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", help="Rule IDs or prefixes to consider (comma-separated or repeated).")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(
        "--ignore", help="Rule IDs or prefixes to skip (comma-separated or repeated).")] = None,
    unordered: Annotated[Optional[list[str]], typer.Option(
        "--unordered", help="Output NAME or NAME:AXIS whose row order is not part of the contract, "
                            "as for verify (repeatable).")] = None,
    opset: Annotated[Optional[int], typer.Option("--opset", help="ONNX opset (default 17).")] = None,
    backends: Annotated[Optional[str], typer.Option("--backends", help="As for verify (default all).")] = None,
    runs: Annotated[Optional[int], typer.Option("--runs", help="Timed runs per backend (default 20).")] = None,
    warmup: Annotated[Optional[int], typer.Option("--warmup", help="Warm-up runs (default 3).")] = None,
    timing_budget: Annotated[Optional[float], typer.Option(
        "--timing-budget", help="Seconds of warm-up and timed runs per latency figure: a slow model is timed "
                                "fewer than --runs times, at least 3 (default 10; 0: always --runs).")] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="Seconds per worker (default 300).")] = None,
    model_timeout: Annotated[Optional[float], typer.Option(
        "--model-timeout", help="Seconds for each model's whole migration; past it the model ends with "
                                "exit 2 and its phases so far (default: no limit).")] = None,
    profile: Annotated[bool, typer.Option(
        "--profile", help="Show each model's phases and their wall times in the text report, and each "
                          "phase as it starts on standard error.")] = False,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed for weights and inputs (default 0).")] = None,
    save_facts: Annotated[Optional[Path], typer.Option(
        "--save-facts", help="Write the observed facts (JSON) to this file (one model only).")] = None,
    config: Annotated[Optional[Path], typer.Option(
        "--config", help="TOML file with [models.NAME] tables, as for verify.")] = None,
    jobs: int = zoo.JobsOpt,
    cache: bool = zoo.CacheOpt,
    ray: Optional[str] = zoo.RayOpt,
    quiet: bool = zoo.QuietOpt,
) -> None:
    """Observe a model, locate what blocks TensorRT, rewrite only that, prove it, report (dry run unless --write)."""
    if format not in (*FORMATS, "junit"):
        raise _fail(f"--format must be one of {', '.join(FORMATS)} or junit")
    cli = {"inputs": inputs, "input_shape": input_shape or None, "dynamic_axes": dynamic_axes, "unsafe": unsafe,
           "select": ",".join(select) if select else None, "ignore": ",".join(ignore) if ignore else None,
           "unordered": list(unordered) if unordered else None, "target": target, "exporter": exporter, "opset": opset,
           "backends": backends, "runs": runs, "warmup": warmup, "timing_budget": timing_budget, "timeout": timeout,
           "model_timeout": model_timeout, "seed": seed}
    cli = {k: v for k, v in cli.items() if v is not None}
    try:
        specs, reports, multi = collect_specs(model_file, config, model, cli, on_error=error_report)
        if multi and save_facts is not None:
            raise SpecError("--save-facts takes one model, not a config")
        zoo.zoo_only(multi, jobs, ray)
    except SpecError as exc:
        raise _fail(str(exc)) from None

    progress = StatusLine(lines=profile)
    sources: list[dict[str, tuple[bytes, bytes]]] = [{} for _ in reports]
    try:
        results = zoo.run_models("migrate", specs, multi=multi, config=config, jobs=jobs, cache=cache, ray=ray,
                                 quiet=quiet, inline=lambda spec: run_one(spec, progress, save_facts),
                                 on_error=error_report, verdict=verdict, facts_out=save_facts)
    except (SpecError, zoo.ClusterError) as exc:
        raise _fail(str(exc)) from None
    finally:
        progress.done()
    for report, files in results:
        reports.append(report)
        sources.append(files)
    if write:
        write_sources(reports, sources)
    if format == "junit":
        typer.echo(zoo.render_junit(reports, "migrate", verdict, lambda r: render_text(r, write, profile)), nl=False)
    else:
        typer.echo(render(reports, format, multi=multi, written=write, profile=profile), nl=False)
    raise typer.Exit(exit_code(reports))
