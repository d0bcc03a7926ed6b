"""Run the engine over a batch of files; one bad file never stops the batch."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from dataclasses import fields, replace
from typing import Any, Callable, Sequence

from trtcodemod.cache import Cache
from trtcodemod.config import Settings
from trtcodemod.cores import resolve_jobs
from trtcodemod import errors as _errors
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.errors import InputError
from trtcodemod.files import SourceFile, nesting_problem, read, write_atomic
from trtcodemod.interrupt import SignalGuard
from trtcodemod.module_files import recording
from trtcodemod.outcome import FileOutcome
from trtcodemod.suppression import suppression_warnings


def options_for(file: SourceFile, settings: Settings, unsafe: bool) -> Options:
    return Options(
        select=settings.select,
        ignore=settings.ignores_for(file.path),
        unsafe=unsafe,
        target=settings.target,
        facts=settings.facts,
        scope=settings.scope,
        scope_path=settings.relative(file.path),
    )


def process(file: SourceFile, settings: Settings, fix: bool, unsafe: bool, source: bytes | None = None,
            edits: bool = False) -> FileOutcome:
    """Check (``fix=False``) or fix one file in memory; never raises.

    ``source``: the code itself, when it does not come from ``file`` (standard input, or
    bytes the caller already read). ``edits``: when checking, also give each fix as text
    replacements (:attr:`FileOutcome.edits`).
    """
    outcome = FileOutcome(file)
    try:
        if source is None:
            source = read(file, settings.max_file_size)
        outcome.original = source
        deep = nesting_problem(source)
        if deep is not None:
            raise InputError(file.display, deep.message, deep.line)
        options = options_for(file, settings, unsafe)
        if not fix and edits:
            from trtcodemod.report.edits import check_with_edits

            outcome.findings, outcome.edits = check_with_edits(source, file.display, options)
        elif not fix:
            outcome.findings = check_source(source, file.display, options, crashes=outcome.internal_errors)
        else:
            result = fix_source(source, file.display, options)
            outcome.fixed = result.fixed
            outcome.internal_errors = result.internal_errors
            if result.changed:
                outcome.new_source = result.source
                # What is left, with positions in the rewritten file.
                outcome.findings = check_source(result.source, file.display, options, original=source,
                                                crashes=outcome.internal_errors)
            else:
                outcome.findings = result.findings
        outcome.warnings = suppression_warnings(source, file.display)
        if settings.facts is not None and settings.facts.stale(file.display, source):
            outcome.warnings.append(f"{file.display}: warning: the facts were observed on other contents of this "
                                    "file; they prove nothing here (run `trtcodemod migrate --save-facts` again)")
    except InputError as exc:
        outcome.error = exc
    except Exception as exc:  # a bug in a rule must not end the batch
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        outcome.error = InputError(file.display, f"internal error, file left unchanged: {detail}")
    outcome.findings = [replace(f, edit=None) for f in outcome.findings]
    outcome.fixed = [replace(f, edit=None) for f in outcome.fixed]
    return outcome


def run_batch(
    files: Sequence[SourceFile], settings: Settings, *, fix: bool, unsafe: bool, jobs: int = 1,
    cache: Cache | None = None, progress: Callable[[FileOutcome], None] | None = None, edits: bool = False,
) -> list[FileOutcome]:
    """Process every file, in parallel when ``jobs`` > 1 (0: one per core); results keep the input order.

    With a ``cache`` (:mod:`trtcodemod.cache`), this process reads each file and looks its
    bytes up first; only the misses are processed (by the workers, which read the file
    again, key what they read and store what they compute: no source travels between
    processes, and a file changed in between is never stored under its old bytes' key).
    ``progress`` is called here, in this process, once per finished file.

    A worker process that dies on one file (a crash in native code, the OOM killer)
    makes that file an error; the other files are still processed.
    """
    jobs = resolve_jobs(jobs)
    results: list[FileOutcome | None] = [None] * len(files)
    work: dict[int, _Work] = {}
    sizes: dict[int, int] = {}
    for index, file in enumerate(files):
        item: _Work = (file, settings, fix, unsafe, edits, cache)
        if cache is not None:
            try:
                source = read(file, settings.max_file_size)
            except InputError as exc:
                results[index] = _done(FileOutcome(file, error=exc), progress)
                continue
            key = cache.key(options_for(file, settings, unsafe), file.display, source)
            hit = cache.load(key, file, source)
            if hit is not None:
                hit.cached = True
                results[index] = _done(hit, progress)
                continue
            if jobs <= 1:  # process it now, with the bytes in hand
                results[index] = _done(_process_item(item, source, key), progress)
                continue
            sizes[index] = len(source)
        work[index] = item
    if jobs <= 1 or len(work) < 2:
        for index, item in work.items():
            results[index] = _done(_process_item(item), progress)
    else:
        # Largest first: the last file to finish should be a small one, or one worker idles
        # while the other parses a big file at the end.
        for index in work:
            if index not in sizes:
                try:
                    sizes[index] = os.stat(files[index].path).st_size
                except OSError:
                    sizes[index] = 0
        order = sorted(work, key=lambda i: -sizes[i])
        _run_parallel(work, order, jobs, results, progress)
    if cache is not None and any(r is not None and not r.cached for r in results):
        cache.prune()  # something may have been written
    return [r for r in results if r is not None]


def _done(outcome: FileOutcome, progress: Callable[[FileOutcome], None] | None) -> FileOutcome:
    if progress is not None:
        progress(outcome)
    return outcome


def _process_item(item: _Work, source: bytes | None = None, key: str | None = None) -> FileOutcome:
    """:func:`process` one work item; with a cache, key the bytes processed and store the outcome."""
    file, settings, fix, unsafe, edits, cache = item
    if cache is not None and source is None:
        try:
            source = read(file, settings.max_file_size)
        except InputError as exc:
            return FileOutcome(file, error=exc)
    with recording() as reads:  # the other files the rules read, for the cache entry
        if source is None and not edits:
            outcome = process(file, settings, fix, unsafe)
        else:
            outcome = process(file, settings, fix, unsafe, source, edits=edits)
    if cache is not None and source is not None:
        if key is None:
            key = cache.key(options_for(file, settings, unsafe), file.display, source)
        cache.store(key, outcome, reads)
    return outcome


# --- parallel runs -------------------------------------------------------------------------
#
# Workers send back plain data (:func:`_to_plain`): an exception object whose class cannot
# be rebuilt in the parent used to break the whole pool. A shared byte per file says which
# files a worker had started and not finished, so when a worker dies the culprit is found
# by re-running only those, each alone in a fresh process.

_NOT_STARTED, _RUNNING, _DONE = 0, 1, 2
_worker_state: Any = None

#: file, settings, fix, unsafe, edits, cache.
_Work = tuple[SourceFile, Settings, bool, bool, bool, "Cache | None"]
#: In a worker: the batch's work items (given once, when the worker starts).
_worker_work: dict[int, _Work] = {}


def _init_worker(state: Any, work: dict[int, _Work]) -> None:
    global _worker_state, _worker_work
    _worker_state = state
    _worker_work = work
    _worker_signals()


def _worker_signals() -> None:
    """Ctrl-C reaches the whole process group, but the parent decides what happens; SIGTERM
    (the parent stopping the pool) kills at once. Forked workers inherit the parent's
    handlers, which must not run here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this worker when the parent dies (even by SIGKILL).

    Otherwise idle workers of a killed run would wait for work forever.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        except (OSError, AttributeError):
            pass


def _work_item(index: int) -> dict[str, Any]:
    """Process work item ``index``; only the index and the plain outcome cross the process
    boundary (the settings, facts included, reach each worker once, at its start)."""
    item = _worker_work[index]
    _worker_state[index] = _RUNNING
    try:
        outcome = _process_item(item)
        if not item[2]:
            outcome.original = None  # a check needs no copy of the file back
    except BaseException as exc:  # SystemExit from a rule must not reach the parent as its own
        file = item[0]
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        outcome = FileOutcome(file, error=InputError(file.display, f"internal error, file left unchanged: {detail}"))
    plain = _to_plain(outcome)
    _worker_state[index] = _DONE
    return plain


def _to_plain(outcome: FileOutcome) -> dict[str, Any]:
    """The outcome as builtins and plain dataclasses; errors become ``("error", class, fields)``."""
    return {f.name: _plain(getattr(outcome, f.name)) for f in fields(outcome)}


def _plain(value: Any) -> Any:
    if isinstance(value, InputError):
        state = {k: v for k, v in vars(value).items() if isinstance(v, (str, int, tuple, type(None)))}
        return ("error", type(value).__name__, state)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _from_plain(data: dict[str, Any]) -> FileOutcome:
    return FileOutcome(**{name: _unplain(value) for name, value in data.items()})


def _unplain(value: Any) -> Any:
    if isinstance(value, tuple) and len(value) == 3 and value[0] == "error":
        cls = getattr(_errors, value[1], None)
        if not (isinstance(cls, type) and issubclass(cls, InputError)):
            cls = InputError
        error = cls.__new__(cls)
        Exception.__init__(error, value[2].get("message", ""))
        error.__dict__.update(value[2])
        return error
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return value


def _run_parallel(work: dict[int, _Work], order: list[int], jobs: int, results: list[FileOutcome | None],
                  progress: Callable[[FileOutcome], None] | None) -> None:
    """Fill ``results[i]`` for each ``i`` in ``order`` (the order work is handed out)."""
    context = multiprocessing.get_context()
    if context.get_start_method() == "fork":
        _warm_up(work)
        # Forked workers share this process's memory until they write to it; the cyclic GC
        # writes to every object it scans, copying pages into each worker. Frozen objects
        # (everything imported so far: LibCST, the rules) are never scanned.
        gc.freeze()
    try:
        _run_rounds(work, order, jobs, results, progress, context)
    finally:
        gc.unfreeze()


def _warm_up(work: dict[int, _Work]) -> None:
    """Import the selected rules and fill the engine's caches here, once, rather than in each worker."""
    file, settings, fix, unsafe, _edits, _cache = next(iter(work.values()))
    try:
        check_source(b"import torch\n\n\ndef f(x: torch.Tensor):\n    return len(x)\n", file.display,
                     options_for(file, settings, unsafe))
    except Exception:  # warming up is only an optimisation
        pass


def _run_rounds(work: dict[int, _Work], order: list[int], jobs: int, results: list[FileOutcome | None],
                progress: Callable[[FileOutcome], None] | None, context: Any) -> None:
    pending = order
    while pending:
        state = context.RawArray("b", len(results))
        broken = _run_pool(work, pending, jobs, context, state, results, progress)
        # Files a worker had started when the pool broke: run each alone to find the culprit.
        suspects = [i for i in broken if state[i] == _RUNNING] or broken[:1]
        for index in suspects:
            results[index] = _done(_run_isolated(work[index], context), progress)
        pending = [i for i in broken if i not in suspects]


def _run_pool(work: dict[int, _Work], indices: list[int], jobs: int, context: Any, state: Any,
              results: list[FileOutcome | None], progress: Callable[[FileOutcome], None] | None) -> list[int]:
    """Run ``indices`` in a pool, filling ``results``; return the files lost to a broken pool.

    At most a few items per worker are in flight: submitting thousands at once can
    fill the executor's wake-up pipe and deadlock it (CPython gh-105829, 3.11).
    """
    workers = min(jobs, len(indices))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_init_worker, initargs=(state, work))
    broken: list[int] = []
    finished = False
    try:
        queue = list(reversed(indices))
        running: dict[Future[dict[str, Any]], int] = {}
        while queue or running:
            while queue and len(running) < 4 * workers and not broken:
                index = queue.pop()
                try:
                    running[pool.submit(_work_item, index)] = index
                except BrokenProcessPool:
                    broken.append(index)
            if broken:  # the pool is gone: collect what it still answers, hand the rest back
                broken.extend(reversed(queue))
                queue.clear()
                if not running:
                    break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                index = running.pop(future)
                try:
                    results[index] = _done(_from_plain(future.result()), progress)
                except BrokenProcessPool:
                    broken.append(index)
                except Exception as exc:  # e.g. the work item could not be sent to the worker
                    detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
                    file = work[index][0]
                    results[index] = _done(FileOutcome(file, error=InputError(
                        file.display, f"internal error, file left unchanged: {detail}")), progress)
        finished = True
    finally:
        _stop_pool(pool, kill=not finished or bool(broken))
    return sorted(broken)


def _stop_pool(pool: ProcessPoolExecutor, kill: bool) -> None:
    """Shut the pool down and wait for its threads; with ``kill``, terminate its workers first.

    Waiting matters: the isolated re-runs fork next, and forking while the executor's
    threads hold locks can leave the child blocked forever.
    """
    if kill:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process_ in processes:
            if process_.is_alive():
                process_.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _isolated_main(item: _Work, connection: Any) -> None:
    _worker_signals()
    connection.send(_to_plain(_process_item(item)))
    connection.close()


def _run_isolated(item: _Work, context: Any) -> FileOutcome:
    """Process one file in a process of its own; its death becomes the file's error."""
    reader, writer = context.Pipe(duplex=False)
    worker = context.Process(target=_isolated_main, args=(item, writer), daemon=True)
    worker.start()
    writer.close()
    try:
        try:
            data = reader.recv()
        except EOFError:
            data = None
        worker.join()
    finally:
        if worker.is_alive():
            worker.terminate()
            worker.join()
        reader.close()
    if data is not None:
        return _from_plain(data)
    code = worker.exitcode
    how = f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
    file = item[0]
    return FileOutcome(file, error=InputError(
        file.display, f"internal error, file left unchanged: the worker process died ({how}) on this file"))


def write_changes(outcomes: Sequence[FileOutcome], guard: SignalGuard | None = None) -> int:
    """Write every changed file atomically; return how many were written.

    A file that fails to write becomes an error. With a ``guard``, SIGINT/SIGTERM never
    cut a file short: the file being written is finished, and the files after it are left
    as they are (the caller reads ``guard.signum`` to tell the user).
    """
    written = 0
    with guard.deferred() if guard is not None else nullcontext():
        for outcome in outcomes:
            if outcome.new_source is None or outcome.error is not None:
                continue
            if guard is not None and guard.signum is not None:
                break
            try:
                write_atomic(outcome.file.path, outcome.new_source)
            except OSError as exc:
                outcome.error = InputError(outcome.file.display, f"cannot write: {exc.strerror or exc}")
                outcome.new_source = None
            else:
                written += 1
    return written
