"""The ``trtcodemod`` command line (DESIGN.md §3)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from trtcodemod import __version__
from trtcodemod.config import ConfigError, Settings, load_settings, parse_size, split_codes
from trtcodemod.errors import InputError, InternalError
from trtcodemod.files import SourceFile, discover, remove_stale_temps, write_atomic
from trtcodemod.interrupt import Interrupted, SignalGuard, interruption
from trtcodemod.registry import all_rules, rule_by_id, unknown_codes
from trtcodemod.report import FORMATS, render
from trtcodemod.report.diff import review_diff
from trtcodemod.report.formats import EDIT_FORMATS
from trtcodemod.report.progress import Progress
from trtcodemod.cache import Cache, default_location
from trtcodemod.outcome import FileOutcome
from trtcodemod.runner import process, run_batch, write_changes
from trtcodemod.trt.inspect import inspect_command
from trtcodemod.migrate.command import migrate_command
from trtcodemod.temporal.lift_command import lift_state_command
from trtcodemod.model_code import SCOPES
from trtcodemod.verify.command import verify_command
from trtcodemod.versions import VersionError, format_version, parse_target

app = typer.Typer(
    name="trtcodemod",
    help="Find PyTorch code that exports badly to ONNX/TensorRT, rewrite it, and verify the rewrite.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    context_settings={"help_option_names": ["-h", "--help"]},
    # Plain help text: Rich markup would eat every bracketed word ("[tool.trtcodemod]").
    rich_markup_mode=None,
)

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

SelectOpt = typer.Option(None, "--select", help="Rule IDs, ID prefixes (TRT4) or names to enable; ALL for every rule. Comma-separated or repeated.")
IgnoreOpt = typer.Option(None, "--ignore", help="Rule IDs, prefixes or names to disable.")
TargetOpt = typer.Option(None, "--target", help="The TensorRT version you deploy on (e.g. 8.6, 10.x). Default 8.6.")
ConfigOpt = typer.Option(None, "--config", help="A pyproject.toml or TOML file with a [tool.trtcodemod] table.")
PathsArg = typer.Argument(None, help="Files or folders (folders are walked for *.py). Default: the current folder.")
JobsOpt = typer.Option(1, "--jobs", "-j", min=0, help="Worker processes (0: one per core).")
MaxSizeOpt = typer.Option(
    None, "--max-file-size", metavar="SIZE",
    help="Report larger files instead of parsing them: bytes, or e.g. 4MiB, 500KB; 0 for no limit. Default 2MiB.")
ScopeOpt = typer.Option(
    None, "--scope",
    help="model (default): only model code, not tests, tools, data loading, training, losses or "
         "__main__ blocks (README: Model code); all: every line. Config: scope = \"all\".")
CacheOpt = typer.Option(
    None, "--cache/--no-cache",
    help="Reuse the results of files whose bytes and settings did not change (default: on inside a project; "
         "stored in .trtcodemod_cache/ at the project root or $TRTCODEMOD_CACHE_DIR). Config: cache = false.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress bar and no end-of-run summary on standard error.")
FactsOpt = typer.Option(
    None, "--facts",
    help="Facts saved by `trtcodemod migrate --save-facts` (JSON): check by what the recorded run observed, "
         "and apply unsafe fixes whose assumption it proves. Config: facts = \"path\".")


def _color(stream) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _fail(message: str) -> None:
    typer.echo(f"trtcodemod: error: {message}", err=True)
    raise typer.Exit(EXIT_ERROR)


def _settings(paths: List[str], config: Optional[Path], select, ignore, target, unsafe: Optional[bool],
              max_file_size: Optional[str] = None, scope: Optional[str] = None) -> Settings:
    """Configuration file values, overridden by whatever the command line gives.

    ``--select`` replaces the file's ``select`` *and* ``ignore`` (as a later layer does
    in Ruff), so that it can turn on a rule the configuration ignores; ``--ignore``
    replaces the file's ``ignore``; ``--unsafe`` / ``--no-unsafe`` replace ``unsafe``.
    """
    try:
        settings = load_settings(config, paths)
    except ConfigError as exc:
        _fail(str(exc).removeprefix(f"{exc.path}: error: ") + f" ({exc.path})")
    selected, ignored = split_codes(select), split_codes(ignore)
    if selected is not None:
        settings.select = selected
        settings.ignore = ()
    if ignored is not None:
        settings.ignore = ignored
    if target is not None:
        settings.target = target
    if unsafe is not None:
        settings.unsafe = unsafe
    if scope is not None:
        if scope not in SCOPES:
            _fail(f"--scope: choose from {', '.join(SCOPES)}, not {scope!r}")
        settings.scope = scope
    if max_file_size is not None:
        try:
            settings.max_file_size = parse_size(max_file_size)
        except ValueError as exc:
            _fail(f"--max-file-size: {exc}")
    try:
        parse_target(settings.target)
    except VersionError as exc:
        _fail(str(exc))
    # Echo each bad code as the user typed it (``foo-bar``, not ``FOO-BAR``).
    bad = [code for code in (*settings.select, *settings.ignore) if unknown_codes([code])]
    if bad:
        _fail(f"unknown rule code(s): {', '.join(bad)} (see `trtcodemod rules`)")
    return settings


def _load_facts(settings: Settings, facts: Optional[Path]) -> None:
    """Read the facts file (``--facts`` over the config's ``facts``) once, before any file is checked.

    A missing or malformed file is a usage error (exit 2): checking without the facts the
    user asked for would silently check differently.
    """
    from trtcodemod.evidence.facts import Facts, FactsError

    if facts is not None:
        settings.facts_path = facts
    if settings.facts_path is None:
        return
    try:
        settings.facts = Facts.read(settings.facts_path)
    except FactsError as exc:
        _fail(f"--facts: {exc}")


def _collect(paths: List[str], settings: Settings) -> tuple[list, list[InputError]]:
    files, errors = discover(paths, settings.exclude)
    return files, errors


def _warn_no_files(paths: List[str]) -> None:
    """Nothing to check is not "All checks passed": say so on stderr (exit 0, as Ruff does)."""
    typer.echo(f"trtcodemod: warning: no Python files found under {', '.join(paths)}", err=True)


def _print_warnings(outcomes: List[FileOutcome]) -> None:
    for outcome in outcomes:
        for warning in outcome.warnings:
            typer.echo(warning, err=True)


def _reraise_unless_interrupted(error: BaseException) -> Interrupted:
    """The signal behind ``error`` (see :func:`interruption`); any other error goes on up."""
    exc = interruption(error)
    if exc is None:
        raise error
    return exc


def _interrupted(exc: Interrupted, detail: str) -> None:
    """Ctrl-C or SIGTERM: one line on what happened to the files, then 130 / 143."""
    typer.echo(f"trtcodemod: interrupted by {exc.name}: {detail}", err=True)
    raise typer.Exit(exc.exit_code)


def _all_findings(outcomes: List[FileOutcome]):
    return [f for o in outcomes for f in o.findings]


def _all_errors(outcomes: List[FileOutcome], extra: List[InputError]) -> List[InputError]:
    """Files that could not be processed, then fixes of ours that failed (the file was still fixed)."""
    return (
        extra
        + [o.error for o in outcomes if o.error is not None]
        + [e for o in outcomes if o.error is None for e in o.internal_errors]
    )


@app.command()
def check(
    paths: Optional[List[str]] = PathsArg,
    select: Optional[List[str]] = SelectOpt,
    ignore: Optional[List[str]] = IgnoreOpt,
    target: Optional[str] = TargetOpt,
    output_format: str = typer.Option("text", "--format", help="text, json, sarif or github."),
    config: Optional[Path] = ConfigOpt,
    jobs: int = JobsOpt,
    max_file_size: Optional[str] = MaxSizeOpt,
    facts: Optional[Path] = FactsOpt,
    scope: Optional[str] = ScopeOpt,
    cache: Optional[bool] = CacheOpt,
    quiet: bool = QuietOpt,
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", help="Write the report to this file (atomically) instead of standard output."),
    stdin_filename: Optional[str] = typer.Option(
        None, "--stdin-filename",
        help="With PATH '-' (code read from standard input): the name to report it under and to match per-file ignores."),
) -> None:
    """Report what would hurt on ONNX/TensorRT. Exit 0: clean, 1: findings, 2: some input could not be processed.

    PATH '-' reads the code from standard input (editors and pre-commit pipes).
    """
    if output_format not in FORMATS:
        _fail(f"unknown format {output_format!r}; choose from {', '.join(FORMATS)}")
    paths = paths or ["."]
    if "-" in paths and paths != ["-"]:
        _fail("'-' (standard input) cannot be mixed with other paths")
    missing: list[InputError] = []
    started = time.perf_counter()
    edits = output_format in EDIT_FORMATS
    with SignalGuard():  # from the start: Ctrl-C at any point is "interrupted", exit 130
        try:
            settings = _settings(paths, config, select, ignore, target, None, max_file_size, scope)
            _load_facts(settings, facts)
            if paths == ["-"]:
                name = stdin_filename or "-"
                stdin = SourceFile(display=name, path=Path(name))
                outcomes = [process(stdin, settings, fix=False, unsafe=settings.unsafe,
                                    source=sys.stdin.buffer.read(), edits=edits)]
            else:
                files, missing = _collect(paths, settings)
                if not files and not missing:
                    _warn_no_files(paths)
                    if output_format == "text" and output is None:
                        raise typer.Exit(EXIT_OK)
                with Progress(len(files), enabled=not quiet, label="checking") as progress:
                    outcomes = run_batch(files, settings, fix=False, unsafe=settings.unsafe, jobs=jobs,
                                         cache=_cache(paths, settings, cache, fix=False, edits=edits),
                                         progress=progress, edits=edits)
        except BaseException as error:
            _interrupted(_reraise_unless_interrupted(error), "nothing was written.")
    _print_warnings(outcomes)
    findings, errors = _all_findings(outcomes), _all_errors(outcomes, missing)
    fix_edits = _edits_by_finding(outcomes) if edits else None
    if output is None:
        sys.stdout.write(render(output_format, findings, errors, color=_color(sys.stdout), unsafe=settings.unsafe,
                                edits=fix_edits))
    else:
        report = render(output_format, findings, errors, color=False, unsafe=settings.unsafe, edits=fix_edits)
        try:
            write_atomic(output, report.encode("utf-8"))
        except OSError as exc:
            _fail(f"--output: cannot write {output}: {exc.strerror or exc}")
    if not quiet and output_format == "text" and paths != ["-"]:
        typer.echo(_run_account("Checked", outcomes, missing, time.perf_counter() - started), err=True)
    raise typer.Exit(EXIT_ERROR if errors else EXIT_FINDINGS if findings else EXIT_OK)


def _cache(paths: List[str], settings: Settings, enabled: Optional[bool], fix: bool, edits: bool = False
           ) -> Optional[Cache]:
    """The run's cache: ``--cache/--no-cache`` over the config's ``cache``; its folder from
    ``$TRTCODEMOD_CACHE_DIR``, the config's ``cache-dir``, or the project root (None: no cache)."""
    if not (settings.cache if enabled is None else enabled):
        return None
    folder = settings.cache_dir if settings.cache_dir is not None and "TRTCODEMOD_CACHE_DIR" not in os.environ \
        else default_location(paths[0] if paths else ".")
    if folder is None:
        return None
    return Cache.for_run(folder, settings, fix=fix, unsafe=settings.unsafe, edits=edits)


def _edits_by_finding(outcomes: List[FileOutcome]) -> dict:
    """``id(finding)`` -> its fix's replacements, for the JSON and SARIF renderers."""
    found = {}
    for outcome in outcomes:
        if outcome.edits is None:
            continue
        for finding, replacements in zip(outcome.findings, outcome.edits):
            if replacements:
                found[id(finding)] = replacements
    return found


def _run_account(verb: str, outcomes: List[FileOutcome], missing: List[InputError], seconds: float,
                 changed: Optional[int] = None) -> str:
    """``Checked 489 files in 3.2 s (412 from cache); 2 could not be processed.``"""
    scanned = len(outcomes)
    cached = sum(1 for o in outcomes if o.cached)
    failed = sum(1 for o in outcomes if o.error is not None) + len(missing)
    text = f"{verb} {scanned} file{'s' * (scanned != 1)} in {seconds:.1f} s"
    if cached:
        text += f" ({cached} from the cache)"
    if changed is not None:
        text += f"; {changed} changed"
    if failed:
        text += f"; {failed} could not be processed"
    return text + "."


@app.command()
def apply(
    paths: Optional[List[str]] = PathsArg,
    dry_run: bool = typer.Option(False, "--dry-run", "--diff", help="Print a unified diff; write nothing."),
    check_only: bool = typer.Option(False, "--check", help="Write nothing; exit 1 when some file would change."),
    unsafe: Optional[bool] = typer.Option(
        None, "--unsafe/--no-unsafe",
        help="Also apply fixes that hold only under a stated assumption (--no-unsafe: not even when the configuration says unsafe = true)."),
    select: Optional[List[str]] = SelectOpt,
    ignore: Optional[List[str]] = IgnoreOpt,
    target: Optional[str] = TargetOpt,
    config: Optional[Path] = ConfigOpt,
    jobs: int = JobsOpt,
    max_file_size: Optional[str] = MaxSizeOpt,
    facts: Optional[Path] = FactsOpt,
    scope: Optional[str] = ScopeOpt,
    cache: Optional[bool] = CacheOpt,
    quiet: bool = QuietOpt,
) -> None:
    """Rewrite files in place into TensorRT-safe form (atomic writes; untouched bytes stay untouched).

    SIGINT (Ctrl-C) or SIGTERM never leaves a file half-written: the file being written
    is finished, the others are left as they were, and the exit code is 130 / 143.
    """
    started = time.time()
    paths = paths or ["."]
    writing = not (dry_run or check_only)
    to_write: Optional[int] = None  # set when writing begins
    written = 0
    with SignalGuard() as guard:
        try:
            settings = _settings(paths, config, select, ignore, target, unsafe, max_file_size, scope)
            _load_facts(settings, facts)
            files, missing = _collect(paths, settings)
            if not files and not missing:
                _warn_no_files(paths)
                raise typer.Exit(EXIT_OK)
            if writing:
                # Temporary files of ours that a killed run left next to these files.
                stale = remove_stale_temps([f.path for f in files], older_than=started)
                if stale:
                    typer.echo(f"trtcodemod: removed {len(stale)} temporary file{'s' * (len(stale) != 1)} "
                               "left by an interrupted run", err=True)
            with Progress(len(files), enabled=not quiet, label="fixing") as progress:
                outcomes = run_batch(files, settings, fix=True, unsafe=settings.unsafe, jobs=jobs,
                                     cache=_cache(paths, settings, cache, fix=True), progress=progress)
            changed = [o for o in outcomes if o.changed and o.error is None]
            if dry_run:
                for outcome in changed:
                    sys.stdout.write(review_diff(outcome.file.display, outcome.original or b"", outcome.new_source or b""))
            elif not check_only:
                to_write = len(changed)
                written = write_changes(outcomes, guard)
                guard.check()
                changed = [o for o in outcomes if o.changed and o.error is None]
            # Still guarded: a signal while the summary prints says how many files were written.
            _print_warnings(outcomes)
            errors = _all_errors(outcomes, missing)
            _apply_summary(outcomes, changed, errors, settings, written=not (dry_run or check_only))
            if not quiet:
                _per_rule_account(outcomes, changed, not (dry_run or check_only))
                typer.echo(_run_account("Scanned", outcomes, missing, time.time() - started, changed=len(changed)),
                           err=True)
        except BaseException as error:
            exc = _reraise_unless_interrupted(error)
            if to_write is None:
                _interrupted(exc, "no file was written.")
            _interrupted(exc, f"wrote {written} of {to_write} changed file{'s' * (to_write != 1)}; "
                              "the other files are untouched.")
    if errors:
        raise typer.Exit(EXIT_ERROR)
    raise typer.Exit(EXIT_FINDINGS if check_only and changed else EXIT_OK)


def _per_rule_account(outcomes: List[FileOutcome], changed: List[FileOutcome], written: bool) -> None:
    """One stderr line per rule: fixes made and findings left (nothing when there are neither)."""
    fixed: dict[str, int] = {}
    left: dict[str, int] = {}
    for outcome in changed:
        for finding in outcome.fixed:
            fixed[finding.rule] = fixed.get(finding.rule, 0) + 1
    for outcome in outcomes:
        for finding in outcome.findings:
            left[finding.rule] = left.get(finding.rule, 0) + 1
    verb = "fixed" if written else "would fix"
    for rule in sorted(set(fixed) | set(left)):
        typer.echo(f"  {rule}: {verb} {fixed.get(rule, 0)}, {left.get(rule, 0)} remaining", err=True)


def _apply_summary(outcomes, changed, errors, settings: Settings, written: bool) -> None:
    """Remaining findings and a one-line account, on stderr (stdout carries the diff)."""
    stream = sys.stderr
    remaining = [f for o in outcomes for f in o.findings_on_disk(written)]
    fixed = sum(len(o.fixed) for o in changed)
    text = render("text", remaining, errors, color=_color(stream), unsafe=settings.unsafe)
    lines = text.rstrip("\n").split("\n")[:-1]  # drop the check-style summary line
    verb = "Fixed" if written else "Would fix"
    account = f"{verb} {fixed} finding{'s' * (fixed != 1)} in {len(changed)} file{'s' * (len(changed) != 1)}"
    account += f"; {len(remaining)} remaining" if remaining else ""
    unsafe_left = sum(1 for f in remaining if f.fix.value == "unsafe")
    if unsafe_left and not settings.unsafe:
        account += f" ({unsafe_left} fixable with --unsafe)"
    internal = sum(1 for e in errors if isinstance(e, InternalError))
    unprocessed = len(errors) - internal
    if unprocessed:
        account += f"; {unprocessed} file{'s' * (unprocessed != 1)} could not be processed"
    if internal:
        account += f"; {internal} fix{'es' * (internal != 1)} left out by an internal error"
    lines.append(account + ".")
    stream.write("\n".join(lines) + "\n")


@app.command()
def rules(
    output_format: str = typer.Option("text", "--format", help="text, json or markdown (the README's table)."),
    target: Optional[str] = typer.Option(
        None, "--target", help="Only the rules that matter for this TensorRT version (e.g. 8.4, 10.x)."),
) -> None:
    """List every rule: ID, name, fix safety, the TensorRT versions it matters for, summary."""
    infos = all_rules()
    if target is not None:
        try:
            version = parse_target(target)
        except VersionError as exc:
            _fail(str(exc))
        infos = [i for i in infos if i.applies_to(version)]
        if output_format == "text":
            typer.echo(f"{len(infos)} of {len(all_rules())} rules matter for TensorRT {format_version(version)}:")
    if output_format == "json":
        data = [
            {
                "id": i.id,
                "name": i.name,
                "fix": i.fix.value,
                "summary": i.summary,
                "needed_before": format_version(i.needed_before) if i.needed_before else None,
                "opt_in": i.opt_in,
            }
            for i in infos
        ]
        typer.echo(json.dumps(data, indent=2))
        return
    if output_format == "markdown":
        typer.echo(rule_table_markdown(infos), nl=False)
        return
    if output_format != "text":
        _fail(f"unknown format {output_format!r}; choose text, json or markdown")
    width = max(len(i.name) for i in infos)
    for i in infos:
        opt_in = "  (opt-in)" if i.opt_in else ""
        typer.echo(f"{i.id}  {i.name:<{width}}  {i.fix.value:<6}  {i.summary}{opt_in}")


@app.command()
def explain(rule: str = typer.Argument(..., help="A rule ID (TRT401) or name (squeeze-dim).")) -> None:
    """Show a rule's documentation and examples."""
    info = rule_by_id(rule)
    if info is None:
        _fail(f"no rule {rule!r} (see `trtcodemod rules`)")
    typer.echo(f"{info.id} {info.name}: {info.summary}\n")
    typer.echo(f"Fix safety: {info.fix.value}")
    if info.assumption:
        typer.echo(f"Assumption of the unsafe fix: {info.assumption}")
    if info.fails_when:
        typer.echo("How the assumption can fail:\n" + "\n".join(f"  - {way}" for way in info.fails_when))
    if info.opt_in:
        typer.echo("Opt-in: runs only when selected by its ID, its name or an ID prefix, never by ALL")
    if info.needed_before:
        typer.echo(f"Matters for TensorRT older than {format_version(info.needed_before)}")
    typer.echo("Looks at model code only (not tests, tools, data loading, training steps, losses, "
               "weight loading, plotting, `if self.training:` or `__main__` blocks); --scope all looks everywhere.")
    typer.echo("\n" + info.doc.strip() + "\n")
    for number, example in enumerate(info.examples, 1):
        typer.echo(f"Example {number}:\n" + _indent(example.before))
        if example.after is not None:
            flag = " (with --unsafe)" if example.unsafe else ""
            typer.echo(f"becomes{flag}:\n" + _indent(example.after))
    if info.references:
        typer.echo("References:\n" + "\n".join(f"  {ref}" for ref in info.references))


#: Releases the README's rule table has a column for: where the version facts change.
TABLE_RELEASES = ((8, 4), (8, 6), (9, 0), (10, 0), (10, 12), (11, 2))


def rule_table_markdown(infos: "list | None" = None) -> str:
    """The README's rule table, generated from the rules' metadata (x: the rule matters there)."""
    releases = " | ".join(format_version(v) for v in TABLE_RELEASES)
    rows = [f"| ID | name | fix | TensorRT | {releases} | what it does |",
            "| --- | --- | --- | --- | " + "--- | " * len(TABLE_RELEASES) + "--- |"]
    for i in all_rules() if infos is None else infos:
        versions = f"< {format_version(i.needed_before)}" if i.needed_before else "all"
        marks = " | ".join("x" if i.applies_to(v) else "" for v in TABLE_RELEASES)
        summary = i.summary.replace("|", "\\|")
        name = f"`{i.name}` (opt-in)" if i.opt_in else f"`{i.name}`"
        rows.append(f"| {i.id} | {name} | {i.fix.value} | {versions} | {marks} | {summary} |")
    return "\n".join(rows) + "\n"


def _indent(code: str) -> str:
    return "".join(f"    {line}\n" for line in code.rstrip("\n").split("\n"))


#: What ``pip install 'trtcodemod[verify]'`` brings that these commands import.
_VERIFY_MODULES = {
    "inspect": ("numpy", "onnx"),
    "verify": ("torch", "numpy", "onnx", "onnxruntime"),
    "migrate": ("torch", "numpy", "onnx", "onnxruntime"),
    "lift-state": ("torch",),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _needs_verify_extra(name: str, command):
    """``command``, first checking that the ``[verify]`` extra is installed (else: what to install, exit 2)."""

    @functools.wraps(command)
    def checked(*args, **kwargs):
        missing = [m for m in _VERIFY_MODULES[name] if not _installed(m)]
        if missing:
            _fail(f"`trtcodemod {name}` needs {', '.join(missing)}, not installed here; "
                  "install the verify extra: pip install 'trtcodemod[verify]'")
        return command(*args, **kwargs)

    return checked


app.command("inspect")(_needs_verify_extra("inspect", inspect_command))
app.command("verify")(_needs_verify_extra("verify", verify_command))
app.command("migrate")(_needs_verify_extra("migrate", migrate_command))
app.command("lift-state")(_needs_verify_extra("lift-state", lift_state_command))


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"trtcodemod {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", "-V", callback=_version_callback, is_eager=True,
                                 help="Show the version and exit."),
) -> None:
    """trtcodemod: TensorRT-safe rewrites for PyTorch model code."""


def main() -> None:
    """The console entry point. One guard covers the whole run, so Ctrl-C or SIGTERM while the
    command line is still being parsed is a line and 130 / 143 too (typer alone would exit 130
    without a word); commands that write nest their own guard, which says what was written."""
    with SignalGuard():
        try:
            app()
        except BaseException as error:
            exc = _reraise_unless_interrupted(error)
            typer.echo(f"trtcodemod: interrupted by {exc.name}.", err=True)
            sys.exit(exc.exit_code)
