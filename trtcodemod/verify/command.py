"""``trtcodemod verify``: the typer command. Imports neither torch nor onnx at import time."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import typer

from trtcodemod.report.progress import StatusLine
from trtcodemod.zoo import options as zoo

from .one import run_one
from .report import FORMATS, error_report, exit_code, render, render_text, verdict
from .spec import SpecError, VerifySpec, build_spec, load_model_tables, load_project_defaults


def _fail(message: str) -> typer.Exit:
    typer.echo(f"trtcodemod verify: error: {message}", err=True)
    return typer.Exit(2)


def collect_specs(model_file: Optional[Path], config: Optional[Path], model: Optional[str], cli: dict[str, Any],
                  on_error: Callable[[str, str], dict[str, Any]] = error_report,
                  ) -> tuple[list[VerifySpec], list[dict[str, Any]], bool]:
    """Specs from MODEL_FILE or ``--config`` (not both), error reports of bad config tables, and
    whether it is a zoo run; ``verify`` and ``migrate`` share it."""
    if model_file is not None and config is not None:
        raise SpecError("give MODEL_FILE or --config, not both")
    if model_file is None:
        specs, reports = _config_specs(config, model, cli, on_error=on_error)
        return specs, reports, True
    settings = {**load_project_defaults(Path.cwd()), **cli, "model_file": str(model_file), "model": model}
    return [build_spec(settings)], [], False


def _config_specs(config: Optional[Path], names: Optional[str], cli: dict[str, Any],
                  on_error: Callable[[str, str], dict[str, Any]] = error_report,
                  ) -> tuple[list[VerifySpec], list[dict[str, Any]]]:
    """Specs for the config's models (all, or those named by ``--model``); bad tables become error reports.

    ``on_error(name, message)`` makes the report of a model whose table is bad (``migrate``
    passes its own, so both commands read configs the same way).
    """
    path, tables = load_model_tables(config, Path.cwd())
    wanted = [n.strip() for n in names.split(",")] if names else list(tables)
    unknown = [n for n in wanted if n not in tables]
    if unknown:
        raise SpecError(f"{path}: no model(s) {', '.join(unknown)} (known: {', '.join(tables)})")
    defaults = load_project_defaults(path.parent)
    specs, errors = [], []
    for name in wanted:
        settings = {**defaults, **tables[name], **cli}
        if cli.get("save"):
            settings["save"] = str(Path(cli["save"]) / name)
        try:
            # A wrong output name in `unordered` is found once the model has run: its error
            # then names where the name was given.
            source = "--unordered" if "unordered" in cli else f"{path}: model {name!r}: unordered"
            specs.append(build_spec(settings, base_dir=path.parent, name=name, unordered_source=source))
        except SpecError as exc:
            errors.append(on_error(name, str(exc)))
    return specs, errors


def verify_command(
    model_file: Annotated[Optional[Path], typer.Argument(
        help="Python file defining the model (may sit in a package). Omit to verify the models of a config.",
        show_default=False)] = None,
    model: Annotated[Optional[str], typer.Option(
        "--model", help="Callable returning an nn.Module, or an nn.Module class; constructor arguments as Python "
                        "literals: 'Net(3, 8)' or 'Net(3, width=8)'. "
                        "With a config: the model table name(s), comma-separated (default: all).")] = None,
    inputs: Annotated[Optional[str], typer.Option(
        "--inputs", help="Function in MODEL_FILE returning a tuple (or dict) of tensors; "
                         "given a torch.Generator when it takes one argument.")] = None,
    input_shape: Annotated[Optional[list[str]], typer.Option(
        "--input-shape", help="NAME:1x3x224x224 random float input (repeatable).")] = None,
    dynamic_axes: Annotated[Optional[str], typer.Option(
        "--dynamic-axes", help='JSON {"input": {"0": "batch"}} for the exporter; '
                               "the last input set changes these sizes.")] = None,
    unsafe: Annotated[Optional[bool], typer.Option(
        "--unsafe/--no-unsafe", help="Apply unsafe fixes too, as `apply --unsafe`.", show_default=False)] = None,
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", help="Rule IDs or prefixes to apply (comma-separated or repeated).")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(
        "--ignore", help="Rule IDs or prefixes to skip (comma-separated or repeated).")] = None,
    unordered: Annotated[Optional[list[str]], typer.Option(
        "--unordered", help="Output NAME or NAME:AXIS whose row order is not part of the contract: its rows "
                            "compared as a set, within each batch element (repeatable; names as in the "
                            "report: output for a single tensor, output.0, ... for a tuple).")] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="TensorRT version deployed on (default 8.6).")] = None,
    exporter: Annotated[Optional[str], typer.Option(
        "--exporter", help="torchscript (default), dynamo or both.")] = None,
    opset: Annotated[Optional[int], typer.Option("--opset", help="ONNX opset (default 17).")] = None,
    backends: Annotated[Optional[str], typer.Option(
        "--backends", help="Comma list of torch-cpu, torch-cuda, onnxruntime-cpu, onnxruntime-cuda, "
                           "onnxruntime-tensorrt, tensorrt (aliases: torch, onnxruntime, trt); default all.")] = None,
    atol: Annotated[Optional[float], typer.Option("--atol", help="Absolute tolerance (default 1e-4).")] = None,
    rtol: Annotated[Optional[float], typer.Option("--rtol", help="Relative tolerance (default 1e-3).")] = None,
    runs: Annotated[Optional[int], typer.Option("--runs", help="Timed runs per backend (default 20).")] = None,
    warmup: Annotated[Optional[int], typer.Option("--warmup", help="Warm-up runs (default 3).")] = None,
    timing_budget: Annotated[Optional[float], typer.Option(
        "--timing-budget", help="Seconds of warm-up and timed runs per latency figure: a slow model is timed "
                                "fewer than --runs times, at least 3 (default 10; 0: always --runs).")] = None,
    threads: Annotated[Optional[int], typer.Option(
        "--threads", help="CPU threads for torch and ONNX Runtime in the workers (default 1, steady timings; "
                          "0: the libraries' own default).")] = None,
    save: Annotated[Optional[Path], typer.Option(
        "--save", help="Keep the ONNX files and the rewritten sources in this folder.")] = None,
    format: Annotated[str, typer.Option(  # noqa: A002
        "--format", help="text, json, markdown or junit (JUnit XML, a test case per model).")] = "text",
    timeout: Annotated[Optional[float], typer.Option(
        "--timeout", help="Seconds per worker process (build, export, one backend) (default 300).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed for weights and inputs (default 0).")] = None,
    config: Annotated[Optional[Path], typer.Option(
        "--config", help="TOML file with [models.NAME] tables (default: [tool.trtcodemod.models.NAME] "
                         "in pyproject.toml when MODEL_FILE is omitted).")] = None,
    contract: Annotated[Optional[Path], typer.Option(
        "--contract", help="A temporal model's deployment contract (JSON): verify its export wrapper over a "
                           "sequence of frames, the state carried by the caller, instead of rewriting.")] = None,
    frames: Annotated[int, typer.Option("--frames", help="Frames per sequence with --contract (at least 4).")] = 6,
    jobs: int = zoo.JobsOpt,
    cache: bool = zoo.CacheOpt,
    ray: Optional[str] = zoo.RayOpt,
    quiet: bool = zoo.QuietOpt,
) -> None:
    """Rewrite a model, then prove the rewrite: export, run on every backend, compare, check for TensorRT."""
    if format not in (*FORMATS, "junit"):
        raise _fail(f"--format must be one of {', '.join(FORMATS)} or junit")
    cli = {
        "inputs": inputs, "input_shape": input_shape or None, "dynamic_axes": dynamic_axes, "unsafe": unsafe,
        "select": ",".join(select) if select else None, "ignore": ",".join(ignore) if ignore else None,
        "unordered": list(unordered) if unordered else None, "target": target, "exporter": exporter, "opset": opset,
        "backends": backends, "atol": atol, "rtol": rtol, "runs": runs, "warmup": warmup,
        "timing_budget": timing_budget, "threads": threads, "save": str(save) if save else None, "timeout": timeout,
        "seed": seed,
    }
    cli = {k: v for k, v in cli.items() if v is not None}
    try:
        specs, reports, multi = collect_specs(model_file, config, model, cli)
        zoo.zoo_only(multi, jobs, ray)
    except SpecError as exc:
        raise _fail(str(exc)) from None

    if contract is not None:
        if any(spec.unordered for spec in specs):
            # The frame sequence compares every output in order: a set comparison there is not built.
            raise _fail("--unordered is not supported with --contract (each frame's outputs are compared in order)")
        raise typer.Exit(_frames(specs, reports, contract, frames, format))
    progress = StatusLine()
    try:
        results = zoo.run_models("verify", specs, multi=multi, config=config, jobs=jobs, cache=cache, ray=ray,
                                      quiet=quiet, inline=lambda spec: (run_one(spec, progress), {}),
                                      on_error=error_report, verdict=verdict)
    except (SpecError, zoo.ClusterError) as exc:
        raise _fail(str(exc)) from None
    finally:
        progress.done()
    reports.extend(report for report, _ in results)
    if format == "junit":
        typer.echo(zoo.render_junit(reports, "verify", verdict, render_text), nl=False)
    else:
        typer.echo(render(reports, format, multi=multi), nl=False)
    raise typer.Exit(exit_code(reports))


def _frames(specs: list[VerifySpec], reports: list[dict[str, Any]], contract: Path, frames: int, format: str) -> int:
    """``--contract``: each model's wrapper over frames; the exit code is the worst model's."""
    import json

    from trtcodemod.temporal.command import verify_frames
    from trtcodemod.temporal.report import render_text as render_frames

    if format not in ("text", "json"):
        raise _fail("--contract reports as text or json")
    if not contract.is_file():
        raise _fail(f"{contract}: no such contract file")
    for spec in specs:
        try:
            reports.append(verify_frames(spec, contract, frames))
        except Exception as exc:  # noqa: BLE001 - a model that cannot start is a report, not a crash
            reports.append({**error_report(spec.label, f"{type(exc).__name__}: {exc}"), "runs": [], "frames": [],
                            "contract": None})
    if format == "json":
        typer.echo(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
    else:
        typer.echo("\n".join(render_frames(r) for r in reports), nl=False)
    return exit_code(reports)
