"""The static analysis of several files in two processes: this one and a fork of it.

``migrate``'s static analysis reads every user file that ran during the observed forwards (a
transformers model: fifteen files, two of them over 3 000 lines) while no worker runs, so one
of two cores sits idle. The files are dealt out by size; a forked child analyses its share and
hands back what the plan reads of each finding (all but the edit's nodes: the edit keeps its
safety, ``evidence``, helpers' names, ``covers`` and prover, since the rewrite parses each file
again). The findings are the same and in the same order as one process would give. Without
``fork``, with one core, with one file, or if the child fails in any way, this process analyses
everything itself.
"""

from __future__ import annotations

import os
import pickle
import signal
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from trtcodemod.cores import usable_cores

#: ``analyse(files) -> (findings, errors)``: the one-process analysis of ``files``, in order.
Analyse = Callable[[list[str]], tuple[list[Any], list[str]]]
#: Below this many bytes in all, a fork costs more than it saves.
MIN_BYTES = 100_000
#: Files whose findings came from a forked child, in this process. Tests read it.
STATS = {"files_in_child": 0}


def deal(files: list[str]) -> tuple[list[str], list[str]]:
    """Two shares of about equal size (largest file first, each to the lighter share)."""
    shares: tuple[list[str], list[str]] = ([], [])
    weights = [0, 0]
    for path in sorted(files, key=_size, reverse=True):
        lighter = 0 if weights[0] <= weights[1] else 1
        shares[lighter].append(path)
        weights[lighter] += _size(path)
    return shares


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _plain(finding: Any) -> Any:
    """``finding`` without the edit's nodes (what crosses the process boundary)."""
    if finding.edit is None:
        return finding
    # Everything but the nodes crosses: the helpers' names tell a rule's kinds of fix apart (`plan._helper_of`:
    # TRT366's two halves, TRT203's slice value), and a form's own prover keeps it out of the candidates (TRT101).
    return replace(finding, edit=replace(finding.edit, replacements={}))


def analyse_split(files: list[str], analyse: Analyse) -> tuple[list[Any], list[str]]:
    """``analyse(files)``, with a forked child taking about half of the files where that pays."""
    if len(files) < 2 or usable_cores() < 2 or not hasattr(os, "fork") or sum(map(_size, files)) < MIN_BYTES:
        return analyse(files)
    mine, theirs = deal(files)
    handle, out = tempfile.mkstemp(prefix="trtcodemod-analysis-", suffix=".pkl")
    os.close(handle)
    try:
        pid = os.fork()
        if pid == 0:
            _child(theirs, analyse, out)
        try:
            by_file = _per_file(mine, analyse)
        except BaseException:
            # Interrupted (the child ignores Ctrl-C, as forked workers do): stop it before the
            # temporary file is removed, or it would write that file again after we are gone.
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        _, status = os.waitpid(pid, 0)
        theirs_by_file = _read(out) if os.waitstatus_to_exitcode(status) == 0 else None
    finally:
        Path(out).unlink(missing_ok=True)
    if theirs_by_file is None:
        theirs_by_file = _per_file(theirs, analyse)
    else:
        STATS["files_in_child"] += len(theirs_by_file)
    by_file.update(theirs_by_file)
    findings: list[Any] = []
    errors: list[str] = []
    for path in files:
        found, failed = by_file[path]
        findings += found
        errors += failed
    return findings, errors


def _per_file(files: list[str], analyse: Analyse) -> dict[str, tuple[list[Any], list[str]]]:
    return {path: analyse([path]) for path in files}


def _child(files: list[str], analyse: Analyse, out: str) -> None:
    """In the fork: analyse ``files``, write the plain findings, and leave without cleaning up
    anything of the parent's (its servers, its temporary folders): never returns."""
    code = 1
    try:
        result = {path: ([_plain(f) for f in found], failed) for path, (found, failed) in
                  _per_file(files, analyse).items()}
        with open(out, "wb") as fh:
            pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    except BaseException:  # noqa: BLE001 - the parent analyses these files itself
        code = 1
    finally:
        os._exit(code)


def _read(path: str) -> dict[str, tuple[list[Any], list[str]]] | None:
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None
