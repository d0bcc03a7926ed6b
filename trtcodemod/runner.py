"""Run the engine over a batch of files; one bad file never stops the batch."""

from __future__ import annotations

import os
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Sequence

from trtcodemod.config import Settings
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.errors import InputError
from trtcodemod.files import SourceFile, read, write_atomic
from trtcodemod.rules import Finding


@dataclass
class FileOutcome:
    """What happened to one file."""

    file: SourceFile
    findings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    original: bytes | None = None
    new_source: bytes | None = None  # set when a fix changed the file
    error: InputError | None = None

    @property
    def changed(self) -> bool:
        return self.new_source is not None


def options_for(file: SourceFile, settings: Settings, unsafe: bool) -> Options:
    return Options(
        select=settings.select,
        ignore=settings.ignores_for(file.path),
        unsafe=unsafe,
        target=settings.target,
    )


def process(file: SourceFile, settings: Settings, fix: bool, unsafe: bool) -> FileOutcome:
    """Check (``fix=False``) or fix one file in memory; never raises."""
    outcome = FileOutcome(file)
    try:
        source = read(file)
        outcome.original = source
        options = options_for(file, settings, unsafe)
        if not fix:
            outcome.findings = check_source(source, file.display, options)
        else:
            result = fix_source(source, file.display, options)
            outcome.fixed = result.fixed
            if result.changed:
                outcome.new_source = result.source
                # What is left, with positions in the rewritten file.
                outcome.findings = check_source(result.source, file.display, options)
            else:
                outcome.findings = result.findings
    except InputError as exc:
        outcome.error = exc
    except Exception as exc:  # a bug in a rule must not end the batch
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        outcome.error = InputError(file.display, f"internal error, file left unchanged: {detail}")
    outcome.findings = [replace(f, edit=None) for f in outcome.findings]
    outcome.fixed = [replace(f, edit=None) for f in outcome.fixed]
    return outcome


def _process_args(args: tuple[SourceFile, Settings, bool, bool]) -> FileOutcome:
    return process(*args)


def run_batch(
    files: Sequence[SourceFile], settings: Settings, *, fix: bool, unsafe: bool, jobs: int = 1
) -> list[FileOutcome]:
    """Process every file, in parallel when ``jobs`` > 1; results keep the input order."""
    work = [(file, settings, fix, unsafe) for file in files]
    if jobs == 0:
        jobs = os.cpu_count() or 1
    if jobs <= 1 or len(files) < 2:
        return [_process_args(item) for item in work]
    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        return list(pool.map(_process_args, work, chunksize=max(1, len(work) // (jobs * 8))))


def write_changes(outcomes: Sequence[FileOutcome]) -> None:
    """Write every changed file atomically; a file that fails to write becomes an error."""
    for outcome in outcomes:
        if outcome.new_source is None or outcome.error is not None:
            continue
        try:
            write_atomic(outcome.file.path, outcome.new_source)
        except OSError as exc:
            outcome.error = InputError(outcome.file.display, f"cannot write: {exc.strerror or exc}")
            outcome.new_source = None
