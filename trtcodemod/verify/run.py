"""Orchestration: rewrite, build both models in workers, export, run backends, compare, check.

Nothing here imports torch: models, exporters and backends run in worker processes
(``worker.py``); this process only moves numpy arrays and files around, so whatever
a model or backend does (raise, segfault, hang) becomes a line in the report.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import picks, static
from .backends import EAGER_BACKENDS, FAILED, GRAPH_BACKENDS, OK, SKIPPED, BackendRun, availability
from .compare import OutputComparison, compare_outputs, finite_or_none, worst
from .culprits import find_culprits
from .diverge import Divergence
from .inconclusive import no_reference, none_judged, set_aside, unreferenced
from .results import (BackendResult, Culprit, ExportCheck, ExportWarning, InputSets, LatencyFigure, ModelSettings,
                      ModelSummary, OriginalRun, VerifyReport)
from .rewrite import Fix, Fixer, RewrittenTree, SourceLayout, locate, rewrite_copy
from .spec import VerifySpec
from .ties import traded_rows
from .unordered import UnorderedError, match_all, order_all, resolve as resolve_unordered
from .worker import BACKEND_TASK, MODEL_TASK, TaskOutcome, run_task

Progress = Callable[[str], None]

#: An export at stretched sizes may take this many times the original's build, eager runs and export, and
#: at least this many seconds, before it counts as a trace unrolling a loop over the data.
STRETCH_FACTOR, STRETCH_FLOOR_SECONDS = 6.0, 300.0


@dataclass
class _Ctx:
    """State shared by the steps of one verification."""

    spec: VerifySpec
    work: Path  # task folders (always temporary)
    out: Path  # ONNX files and the rewritten sources (``--save DIR`` or temporary)
    progress: Progress
    probe: dict[str, Any] = field(default_factory=dict)
    input_names: list[str] = field(default_factory=list)
    input_sets: list[dict[str, Any]] = field(default_factory=list)
    #: ``--unordered``, resolved against the original's outputs: output name -> row axis.
    row_axes: dict[str, int] = field(default_factory=dict)
    counter: int = 0
    #: The caller's profile (``migrate.phases.Phases``): each step becomes a timed phase, and no
    #: worker outlives the caller's deadline. None (``verify``): a progress line per step.
    phases: Any = None
    #: The last rewrite verified: its tree and its side (for a second trace of the rewritten model).
    last_rewrite: tuple[Any, "SideResult"] | None = None

    def step(self, name: str) -> Any:
        """One step of the session: a phase of the caller's profile, or a progress line."""
        if self.phases is not None:
            return self.phases.phase(name)
        self.progress(name)
        return contextlib.nullcontext()

    def timeout(self) -> float:
        """A worker's limit: ``--timeout``, cut to what is left of the caller's deadline."""
        return self.phases.worker_timeout(self.spec.timeout) if self.phases is not None else self.spec.timeout

    def folder(self, label: str) -> Path:
        self.counter += 1
        return self.work / f"{self.counter:02d}-{label}"


@dataclass
class SideResult:
    """One model (before, after or a culprit probe) through build, eager, export and graphs."""

    role: str
    outcome: TaskOutcome
    graph_runs: dict[tuple[str, str], TaskOutcome] = field(default_factory=dict)
    #: Where its model came from, to run it once more in float64 (``_exact``).
    layout: SourceLayout | None = None
    extra_paths: list[str] = field(default_factory=list)
    #: Its model's outputs per input set in float64, once run (``[None]``: none could be had).
    exact: list[Any] = field(default_factory=list)

    @property
    def eager(self) -> dict[str, BackendRun]:
        return self.outcome.data.get("eager", {})

    @property
    def built(self) -> bool:
        run = self.eager.get("cpu")
        return run is not None and run.status == OK

    def export(self, exporter: str) -> dict[str, Any] | None:
        return self.outcome.data.get("exports", {}).get(exporter)

    def onnx_path(self, exporter: str) -> str | None:
        exp = self.export(exporter)
        return exp.get("path") if exp else None

    def graph_run(self, backend: str, exporter: str) -> BackendRun | None:
        task = self.graph_runs.get((backend, exporter))
        if task is None:
            return None
        run = task.data.get("run")
        if task.status != "ok" or run is None:
            return BackendRun(status=FAILED, error=f"{backend} worker {task.message}")
        return run

    def failure(self) -> str | None:
        """Why this model produced no eager output, or None."""
        if self.built:
            return None
        if self.outcome.status != "ok":
            return self.outcome.message
        run = self.eager.get("cpu")
        return f"eager run failed: {run.error}" if run else "no eager output"


# --- steps ----------------------------------------------------------------------------------


def _run_model(ctx: _Ctx, role: str, layout: SourceLayout, *, extra_paths: list[str] | None = None,
               exporters: tuple[str, ...] | None = None, state_dict: Path | None = None,
               out_dir: Path | None = None, timing: bool = True, stretch: list[str] | None = None, how: str = "2n+1",
               diverge: dict[str, Any] | None = None, float64: bool = False,
               picks: dict[str, Any] | None = None, timeout: float | None = None) -> SideResult:
    spec = ctx.spec
    # The "before" run is the one that probes the machine, so it cannot ask ctx.probe yet;
    # its worker drops "cuda" itself when no CUDA device is there.
    cuda = ctx.probe.get("cuda") if role != "before" else True
    devices = ["cpu"] + (["cuda"] if "torch-cuda" in spec.backends and cuda else [])
    request = {
        "task": MODEL_TASK, "role": role, "probe": role == "before",
        "model_file": str(layout.model_file), "import_root": str(layout.import_root), "module": layout.module,
        "extra_paths": extra_paths or [], "user_roots": [*layout.user_roots, *(extra_paths or [])],
        "model": spec.model, "model_args": spec.model_args, "model_kwargs": dict(spec.model_kwargs),
        "inputs": spec.inputs, "dynamic_axes": {k: dict(v) for k, v in spec.dynamic_axes.items()},
        "seed": spec.seed, "exporters": list(spec.exporters if exporters is None else exporters),
        "opset": spec.opset, "out_dir": str(out_dir or ctx.out), "eager_devices": devices,
        "runs": spec.runs if timing else 0, "warmup": spec.warmup if timing else 0, "threads": spec.threads,
        "timing_budget": spec.timing_budget,
    }
    if role == "before":
        request["save_state_dict"] = str(ctx.work / "state_dict.pt")
    else:
        request.update(state_dict_path=str(state_dict or ctx.work / "state_dict.pt"),
                       input_names=ctx.input_names, input_sets=ctx.input_sets)
    if stretch is not None:
        # Export only (``stretch``: the original's output names), at the traced set with every
        # dynamic axis stretched as ``how`` says (a key of ``inputs.STRETCHES``: 2n + 1, 3n, 2n or 2n - 1).
        request.update(stretch=how, eager_devices=[], input_sets=ctx.input_sets[:1],
                       output_names=stretch)
        # Another seed for the trace: a random number the forward reads into Python (an augmentation's
        # `torch.randint(...).item()`) then differs between the two traces, so a graph that stays the same shows
        # that it does not use it (``retrace.unused_reads``).
        request["export_seed"] = spec.seed + 1
    if diverge is not None:
        # One set (the traced one unless ``diverge["set"]`` says another), no eager timing, no
        # export: the graph is the original's.
        k = int(diverge.get("set", 0))
        request.update(diverge=diverge, eager_devices=[], input_sets=ctx.input_sets[k:k + 1])
    if picks is not None:
        # The sets ``picks["sets"]`` names (0-based), no eager timing, no export: the graph's arg-max picks
        # against eager mode's on each, in one model run.
        request.update(picks=picks, eager_devices=[], input_sets=[ctx.input_sets[k] for k in picks["sets"]])
    if float64:
        # Every set, no eager timing, no export: the model's outputs in float64.
        # With the tolerance: also the float64 run that takes eager float32's tied picks (``tiedref``).
        request.update(float64={"atol": ctx.spec.atol, "rtol": ctx.spec.rtol}, eager_devices=[], exporters=[])
    what = ("export at other sizes" if stretch is not None else "where the graph differs" if diverge is not None
            else "arg-max picks" if picks is not None else "float64 reference" if float64
            else "build, eager, export")
    with ctx.step(f"{role}: {what}"):
        limit = ctx.timeout() if timeout is None else min(timeout, ctx.timeout())
        side = SideResult(role, run_task(request, ctx.folder(f"{role}-model"), limit))
    side.layout, side.extra_paths = layout, list(extra_paths or [])
    return side


def _exact(ctx: _Ctx, side: SideResult) -> list[Any] | None:
    """``side``'s model run in float64 on every input set (once, on first need): what tells eager
    mode's own float32 rounding from a graph's error (``compare.admitted_by_exact``)."""
    if not side.exact:
        side.exact = [None, None]
        if side.layout is not None:
            run = _run_model(ctx, f"{side.role}-float64", side.layout, extra_paths=side.extra_paths,
                             exporters=(), timing=False, out_dir=ctx.work, float64=True)
            if run.outcome.status == "ok":
                side.exact = [run.outcome.data.get("float64"), run.outcome.data.get("float64_tied")]
    return side.exact[0]


def _exact_tied(ctx: _Ctx, side: SideResult, k: int) -> dict[str, Any] | None:
    """Set ``k``'s float64 run with eager float32's picks taken where its values tie (``verify.tiedref``:
    ``{"outputs", "rows"}``), or None where no float64 pick differed at tied values."""
    _exact(ctx, side)
    tied = side.exact[1] if len(side.exact) > 1 else None
    return tied[k] if isinstance(tied, list) and k < len(tied) and isinstance(tied[k], dict) else None


def _along_ties(ctx: _Ctx, labels: list[str], expected: list[Any], got: list[Any], comps: list[OutputComparison],
                tied: dict[str, Any] | None) -> list[OutputComparison]:
    """``comps`` (a set's comparisons against the plain float64 run), or, where they fail and the float64 run
    that breaks ties as eager float32 did (``tied``) passes them all, those: eager mode's picks among values
    it computed as equal are its model's output as much as float64's (``verify.tiedref``). Only a failing
    set is judged again, so this passes no set the plain run failed for any other reason."""
    if tied is None or all(c.passed for c in comps) or len(tied["outputs"]) != len(expected):
        return comps
    again = compare_outputs(labels, expected, got, ctx.spec.atol, ctx.spec.rtol, _ordered(ctx, labels, tied["outputs"]))
    if not all(c.passed for c in again):
        return comps
    for c, before in zip(again, comps):
        c.picks_tied = before.picks_tied
        if not before.passed:
            c.float64_ties = int(tied["rows"])
    return again


def _run_graphs(ctx: _Ctx, side: SideResult, backends: tuple[str, ...], exporters: tuple[str, ...],
                timing: bool = True) -> None:
    for exporter in exporters:
        path = side.onnx_path(exporter)
        if not path:
            continue
        for backend in backends:
            if backend not in GRAPH_BACKENDS or availability(backend, ctx.probe):
                continue
            request = {"task": BACKEND_TASK, "backend": backend, "onnx_path": path, "input_sets": ctx.input_sets,
                       "runs": ctx.spec.runs if timing else 0, "warmup": ctx.spec.warmup if timing else 0,
                       "threads": ctx.spec.threads, "timing_budget": ctx.spec.timing_budget}
            with ctx.step(f"{side.role}: {backend} ({exporter})"):
                side.graph_runs[(backend, exporter)] = run_task(
                    request, ctx.folder(f"{side.role}-{backend}-{exporter}"), ctx.timeout())


# --- comparisons -------------------------------------------------------------------------------


def _ordered(ctx: _Ctx, labels: list[str], arrays: list[Any]) -> list[Any]:
    """Rows of the outputs whose row order is no part of the contract (tied scores), sorted."""
    return order_all(labels, arrays, ctx.row_axes)


def _paired(ctx: _Ctx, labels: list[str], expected: list[Any], arrays: list[Any]) -> list[Any]:
    """``arrays`` (sorted by :func:`_ordered`) with the rows of each unordered output paired with ``expected``'s
    rows they equal within the tolerance, the outputs of one set of rows moved together
    (:func:`.unordered.match_all`)."""
    return match_all(labels, expected, arrays, ctx.row_axes, ctx.spec.atol, ctx.spec.rtol)


def _compare_run(ctx: _Ctx, names: list[str], reference: BackendRun, run: BackendRun,
                 owner: SideResult | None = None) -> tuple[list[OutputComparison], list[list[OutputComparison]]]:
    """Per input set comparisons of ``run`` against ``reference``; also the per-output worst.

    ``owner``: the side whose eager outputs ``reference`` holds; where a set differs beyond the
    tolerance, its model's float64 run says which differences are eager mode's own rounding.
    """
    spec = ctx.spec
    per_set: list[list[OutputComparison]] = []
    numbers: list[int] = []  # each entry's input set
    for k, (ref, got) in enumerate(zip(reference.outputs, run.outputs)):
        if ref is None:
            continue  # the reference itself failed on this set: nothing to compare against
        if got is None:
            err = run.set_errors[k] if k < len(run.set_errors) else "no output"
            per_set.append([OutputComparison(name="(run)", shape=(), dtype="", expected_shape=(), expected_dtype="",
                                             max_abs_err=None, max_rel_err=None, passed=False,
                                             problem=f"set {k + 1}: {err}")])
            numbers.append(k)
            continue
        labels = names or [f"output.{i}" for i in range(len(ref))]
        axes = ctx.row_axes

        def rows(arrays: list[Any]) -> list[Any]:
            return _ordered(ctx, labels, arrays)

        ref, got = rows(ref), rows(got)
        got = _paired(ctx, labels, ref, got)
        comps = compare_outputs(labels, ref, got, spec.atol, spec.rtol)
        if owner is not None and not all(c.passed for c in comps):
            exact = _exact(ctx, owner)
            if exact is not None and k < len(exact) and exact[k] is not None and len(exact[k]) == len(ref):
                exact_rows = _paired(ctx, labels, ref, rows(exact[k]))
                comps = compare_outputs(labels, ref, got, spec.atol, spec.rtol, exact_rows)
                if not all(c.passed for c in comps):
                    # Neighbours a top-k orders by rounding, traded in the graph as eager mode and
                    # float64 trade them: the same rows (ties.traded_rows says when that is shown).
                    unordered = {i for i, n in enumerate(labels) if n in axes}
                    traded = traded_rows(ref, got, exact_rows, spec.atol, spec.rtol, unordered)
                    if traded is not None:
                        again = compare_outputs(labels, ref, traded[0], spec.atol, spec.rtol, traded[1])
                        if all(c.passed for c in again):
                            for c, before in zip(again, comps):
                                if not before.passed:
                                    c.rows_traded = traded[2]
                            comps = again
                comps = _along_ties(ctx, labels, ref, got, comps, _exact_tied(ctx, owner, k))
        for c in comps:
            if c.problem:
                c.problem = f"set {k + 1}: {c.problem}"
        per_set.append(comps)
        numbers.append(k)
    if owner is not None:
        # A set where eager mode misses its own float64 run at much of an output judges nothing.
        set_aside(per_set, numbers, ctx.input_sets)
    return _merged(per_set), per_set


def _merged(per_set: list[list[OutputComparison]]) -> list[OutputComparison]:
    """Per output, the comparison of its worst judged set (and why a set judged nothing)."""
    merged: dict[str, OutputComparison] = {}
    for comps in per_set:
        for c in comps:
            old = merged.get(c.name)
            if old is None or (old.passed and not c.passed) or (old.set_aside and not c.set_aside) or (
                    old.passed == c.passed and old.set_aside == c.set_aside
                    and (c.max_abs_err or 0) > (old.max_abs_err or 0)):
                merged[c.name] = c
    for comps in per_set:
        for c in comps:
            shown = merged[c.name]
            if c.set_aside and shown.passed and not shown.problem:
                # The output's worst judged set passed: say which set judged nothing, and why.
                merged[c.name] = dataclasses.replace(shown, problem=c.problem)
    return list(merged.values())


def _faithfulness(ctx: _Ctx, side: SideResult, exporter: str, tree: RewrittenTree | None) -> ExportCheck:
    """Does this side's graph (ONNX Runtime CPU) reproduce this side's own eager outputs?"""
    exp = side.export(exporter)
    entry = ExportCheck(side=side.role, exporter=exporter)
    if exp is None:
        entry.detail = f"not exported: {side.failure() or side.outcome.message or 'model failed'}"
        return entry
    for w in exp.get("warnings", []):
        if w.get("category") == "traceback":
            continue
        path, line = (tree.map_path(w.get("file"), w.get("line")) if tree else (w.get("file"), w.get("line")))
        callers: list[str | None] = []
        for caller in w.get("callers") or []:
            at = (tree.map_path(caller[0], caller[1]) if tree else tuple(caller)) if caller else None
            callers.append(f"{at[0]}:{at[1]}" if at and at[0] else None)
        entry.warnings.append(ExportWarning(w["category"], w["message"], f"{path}:{line}" if path else None,
                                            callers, w.get("origin"), w.get("input_free")))
    if exp.get("error"):
        entry.detail = f"export failed: {exp['error']}"
        return entry
    run = side.graph_run("onnxruntime-cpu", exporter)
    cpu = side.eager.get("cpu")
    if run is None or cpu is None:
        entry.detail = "ONNX Runtime CPU did not run"
        return entry
    if run.status != OK:
        entry.faithful, entry.detail = False, f"ONNX Runtime CPU failed: {run.error}"
        entry.failed_node = static.failed_node(side.onnx_path(exporter), run.error,
                                               tree.map_location if tree else None, tree.helper_at if tree else None)
        return entry
    names = side.outcome.data.get("output_names", [])
    _, per_set = _compare_run(ctx, names, cpu, run, side)
    failing = [k + 1 for k, comps in enumerate(per_set) if not all(c.passed for c in comps)]
    if failing and picks.has_arg_nodes(side.onnx_path(exporter)):
        _take_tied_picks(ctx, side, exporter, names, cpu, per_set, failing)
        failing = [k + 1 for k, comps in enumerate(per_set) if not all(c.passed for c in comps)]
    entry.failing_sets = failing
    entry.faithful = not failing
    # Elements outside the tolerance that passed as eager mode's own float32 rounding.
    entry.float64_admitted = sum(c.exact_admitted for comps in per_set for c in comps)
    traded = sum(max((c.rows_traded for c in comps), default=0) for comps in per_set)
    if traded:
        entry.rows_traded = traded
    tied = sum(max((c.picks_tied for c in comps), default=0) for comps in per_set)
    if tied:
        entry.picks_tied = tied
    reference_ties = sum(max((c.float64_ties for c in comps), default=0) for comps in per_set)
    if reference_ties:
        entry.float64_ties = reference_ties
    if failing:
        first_problem = next(c.problem for c in per_set[failing[0] - 1] if not c.passed)
        refused = next((c.problem for k in failing for c in per_set[k - 1] if c.name == "(run)"), None)
        if refused is not None:
            # ONNX Runtime ran the graph on the traced set and refused it on another (a Concat of a
            # batch the trace baked and one that follows the input): the node it names has a line.
            node = static.failed_node(side.onnx_path(exporter), refused, tree.map_location if tree else None,
                                      tree.helper_at if tree else None)
            if node is not None:
                entry.failed_node = node
        entry.baked = 1 not in failing
        if entry.baked and none_judged(per_set, failing):
            # Eager float32 cannot judge these sets and no set of their shapes could: the failure
            # stands (nothing proved for those shapes), but it is no evidence of a bake.
            entry.no_reference_sets = list(failing)
            entry.detail = (f"the graph matches eager on the traced input set; on set(s) {', '.join(map(str, failing))} "
                            f"eager float32 is no reference and no set of the same input shapes is one, so nothing "
                            f"is proved for those shapes: {unreferenced(per_set[failing[0] - 1])} ({first_problem})")
        elif entry.baked:
            entry.detail = (f"the graph matches eager on the traced input set but not on set(s) "
                            f"{', '.join(map(str, failing))}: the export baked something in ({first_problem})")
        else:
            entry.detail = f"the graph differs from eager even on the traced inputs ({first_problem})"
    return entry


def _take_tied_picks(ctx: _Ctx, side: SideResult, exporter: str, names: list[str], reference: BackendRun,
                     per_set: list[list[OutputComparison]], failing: list[int], owner: SideResult | None = None) -> None:
    """Failing sets where ``side``'s graph differs from ``reference`` (``owner``'s eager outputs,
    ``side``'s own by default) only by arg-max picks between values it computed as tied pass, with
    how many picks were ``side``'s eager mode's (``verify.picks``). Every such set is replayed, all in
    one model run: a set left out would fail though it differs only as the replayed ones do (tied
    top-k picks at each of a dynamic axis' sizes)."""
    # Not a set that did not run, judged nothing or gave another shape: no pick explains that.
    wanted = [number - 1 for number in failing
              if reference.outputs[number - 1] is not None
              and not any(c.name == "(run)" or c.set_aside
                          or (not c.passed and tuple(c.shape) != tuple(c.expected_shape)) for c in per_set[number - 1])]
    if not wanted:
        return
    replay = _run_model(ctx, f"{side.role}-picks", side.layout, extra_paths=side.extra_paths, exporters=(),
                        timing=False, out_dir=ctx.work,
                        picks={"onnx_path": side.onnx_path(exporter), "atol": ctx.spec.atol,
                               "rtol": ctx.spec.rtol, "sets": wanted})
    replayed = replay.outcome.data.get("picks") if replay.outcome.status == "ok" else None
    if not isinstance(replayed, list):
        return
    labels = names or [f"output.{i}" for i in range(len(reference.outputs[wanted[0]]))]
    exact = _exact(ctx, owner or side)
    for k, found in zip(wanted, replayed):
        if found and found.get("outputs"):
            exact_k = exact[k] if exact is not None and k < len(exact) and exact[k] is not None else None
            take_replayed(ctx, labels, per_set, k, reference.outputs[k], found, exact_k,
                          _exact_tied(ctx, owner or side, k))


def take_replayed(ctx: Any, labels: list[str], per_set: list[list[OutputComparison]], k: int,
                  expected: list[Any], found: dict[str, Any], exact: list[Any] | None,
                  tied: dict[str, Any] | None = None) -> bool:
    """Set ``k``'s comparisons from the graph's outputs with eager mode's tied picks put back
    (``found``, :func:`verify.picks.replay_picks`), when they pass, or fail only where eager mode misses
    its own float64 run at much of an output (a saturated detector's set, its top rows picked among
    ties: :func:`inconclusive.no_reference`); that set is then judged as any such set is, set aside
    where a set of its shapes judges, else failing with nothing proved. Otherwise the plain comparison
    stands. Where the plain float64 run fails them, the one that breaks ties as eager float32 did
    (``tied``, :func:`_along_ties`) may pass them. Whether they were taken."""
    again = compare_outputs(labels, _ordered(ctx, labels, expected), _ordered(ctx, labels, found["outputs"]),
                            ctx.spec.atol, ctx.spec.rtol, _ordered(ctx, labels, exact) if exact is not None else None)
    again = _along_ties(ctx, labels, _ordered(ctx, labels, expected), _ordered(ctx, labels, found["outputs"]), again,
                        tied)
    if not all(c.passed for c in again) and not no_reference(again):
        # The plain comparison stands; it says what is left once eager mode's picks are put back.
        left = next(c for c in again if not c.passed)
        shown = next((c for c in per_set[k] if not c.passed), None)
        if shown is not None:
            shown.problem += (f"; with eager mode's {int(found['picks'])} tied pick(s) put back, {left.name}: "
                              f"{left.problem}")
        return False
    for c, before in zip(again, per_set[k]):
        if not before.passed:
            c.picks_tied = int(found["picks"])
        if c.problem:
            c.problem = f"set {k + 1}: {c.problem}"
    per_set[k] = again
    if not all(c.passed for c in again):
        set_aside(per_set, list(range(len(per_set))), ctx.input_sets)
    return True


def _backend_row(ctx: _Ctx, backend: str, exporter: str | None, before: SideResult, after: SideResult,
                 names: list[str]) -> BackendResult:
    row = BackendResult(name=backend, exporter=exporter, status=SKIPPED)
    reason = availability(backend, ctx.probe)
    if reason:
        row.reason = reason
        return row
    reference = before.eager.get("cpu")
    if exporter is None:
        device = backend.split("-", 1)[1]
        b_run, a_run = before.eager.get(device), after.eager.get(device)
        a_missing = after.failure() if a_run is None else None
    else:
        b_run, a_run = before.graph_run(backend, exporter), after.graph_run(backend, exporter)
        a_missing = None
        if a_run is None:
            exp = after.export(exporter)
            a_missing = (f"export failed: {exp['error']}" if exp and exp.get("error")
                         else after.failure() or after.outcome.message or "not exported")
    row.before = OriginalRun(status=b_run.status if b_run else FAILED,
                             reason=b_run.error if b_run else "the original was not run here", passed=None)
    if b_run is not None and b_run.status == OK and reference is not None and exporter is not None:
        # Does the original's own graph match the original's eager outputs here? When it does
        # not, a difference of the rewritten graph may be one the rewrite did not introduce.
        _, b_sets = _compare_run(ctx, names, reference, b_run, before)
        row.before.passed = all(c.passed for comps in b_sets for c in comps)
    row.latency_before = LatencyFigure.from_json(b_run.latency_ms) if b_run else None
    if a_run is None:
        row.status, row.reason = FAILED, f"rewritten model: {a_missing}"
        return row
    row.latency_after = LatencyFigure.from_json(a_run.latency_ms)
    if a_run.status != OK:
        row.status, row.reason = FAILED, a_run.error
        return row
    merged, per_set = _compare_run(ctx, names, reference, a_run, before)
    failing = [k + 1 for k, comps in enumerate(per_set) if not all(c.passed for c in comps)]
    if failing and backend == "onnxruntime-cpu" and exporter is not None \
            and picks.has_arg_nodes(after.onnx_path(exporter)):
        # The rewritten graph's own near-tied picks, replayed with the rewritten model's eager picks.
        _take_tied_picks(ctx, after, exporter, names, reference, per_set, failing, owner=before)
        merged = _merged(per_set)
    all_comps = [c for comps in per_set for c in comps]
    max_abs, max_rel, passed = worst(all_comps)
    row.status, row.max_abs_err, row.max_rel_err, row.passed = OK, finite_or_none(max_abs), finite_or_none(max_rel), passed
    row.outputs = list(merged)
    return row


# --- the run ----------------------------------------------------------------------------------


def verify(spec: VerifySpec, *, progress: Progress | None = None, fixer: Fixer | None = None) -> dict[str, Any]:
    """Verify one model; returns the report's JSON (``report.py`` renders it). Never raises for model faults."""
    with Verification(spec, progress=progress) as session:
        return session.verify(fixer).to_json()


class Verification:
    """One model's original, built, exported and checked once, against any number of rewrites.

    ``verify(fixer)`` is the whole verification of one rewrite; ``original()`` is the
    original's side alone (what ``migrate`` locates problems in before it plans a rewrite).
    """

    def __init__(self, spec: VerifySpec, *, progress: Progress | None = None, phases: Any = None) -> None:
        work = Path(tempfile.mkdtemp(prefix="trtcodemod-verify-"))
        out = spec.save_dir or work / "out"
        out.mkdir(parents=True, exist_ok=True)
        self.ctx = _Ctx(spec=spec, work=work, out=out, progress=progress or (lambda _msg: None), phases=phases)
        self.layout = locate(spec.model_file)
        self._before: SideResult | None = None
        #: The stretched exports by label (``retrace``, ``retrace-after``) and the tree they ran.
        self._stretched: dict[str, tuple[SideResult, RewrittenTree | None]] = {}
        self._base: VerifyReport | None = None

    def __enter__(self) -> "Verification":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.ctx.work, ignore_errors=True)

    def original(self) -> VerifyReport:
        """The report with the original's side filled in (``exit_code`` 2 and ``error`` if it failed)."""
        if self._base is None:
            self._base = _original(self.ctx, self)
        return copy.deepcopy(self._base)

    def retrace(self, exporter: str = "torchscript") -> tuple[str | None, list[str], str]:
        """Export the original again at the traced input set with every dynamic axis at ``2n + 1``.

        ``(onnx path or None, the stretched axes, why there is no graph)``; in a worker, so a
        crash or a timeout is that reason.
        """
        self.original()
        if self._before is None or not self._before.built:
            return None, [], "the original model did not run"
        return self._stretched_export(self.layout, [], "retrace", exporter)

    def retrace_rewritten(self, exporter: str = "torchscript") -> tuple[str | None, str | None, list[str], str]:
        """:meth:`retrace` for the last rewrite verified: ``(its ONNX file at the traced set, the
        one at the stretched sizes, the stretched axes, why there is no graph)``."""
        if self.ctx.last_rewrite is None or self._before is None:
            return None, None, [], "no rewrite was verified"
        tree, after = self.ctx.last_rewrite
        traced = after.onnx_path(exporter) if not (after.export(exporter) or {}).get("error") else None
        if traced is None:
            return None, None, [], "the rewritten model did not export"
        path, stretched, why = self._stretched_export(tree.layout, tree.extra_paths, "retrace-after", exporter,
                                                      tree)
        return traced, path, stretched, why

    def baked_numbers(self, which: str, exporter: str = "torchscript") -> dict[tuple[str, int], list[Any]]:
        """The Python values the trace's conversions returned at each line that warned (the numbers
        its graph holds as constants), by the user's ``(path, line)``. ``which``: ``original``,
        ``retrace`` (the original at the stretched sizes), ``rewritten`` (the last rewrite verified),
        ``retrace-after`` (that rewrite at the stretched sizes); empty where it did not run."""
        side: SideResult | None
        tree: RewrittenTree | None = None
        if which == "original":
            side = self._before
        elif which == "rewritten":
            side = self.ctx.last_rewrite[1] if self.ctx.last_rewrite else None
            tree = self.ctx.last_rewrite[0] if self.ctx.last_rewrite else None
        else:
            side, tree = self._stretched.get(which, (None, None))
        numbers: dict[tuple[str, int], list[Any]] = {}
        for w in ((side.export(exporter) if side else None) or {}).get("warnings", []):
            if w.get("category") != "TracerWarning" or "values" not in w or not w.get("file"):
                continue
            path, line = tree.map_path(w["file"], w["line"]) if tree else (w["file"], w["line"])
            if path and line:
                numbers.setdefault((path, line), []).extend(w["values"])
        return numbers

    def _stretched_export(self, layout: SourceLayout, extra_paths: list[str], label: str,
                          exporter: str, tree: RewrittenTree | None = None) -> tuple[str | None, list[str], str]:
        assert self._before is not None
        names = list(self._before.outcome.data.get("output_names", []))
        why = ""
        # 2n + 1 first (it changes every size a division derives); where the model does not
        # take those sizes (a stride that must divide them), 3n, which keeps every divisor of n
        # and changes them too, rounded up as well as down; then 2n; 2n - 1 last, for sizes one more than a
        # multiple of the stride (PSPNet's 8k + 1) (``inputs.STRETCHES``).
        # The original's build and export took ``seconds``; one at sizes about twice as large that takes many
        # times that is a trace unrolling a loop over the data (pyfacer's Python NMS over thousands of random
        # boxes: 1800 s at 2n + 1, then 1395 s at 3n, where the original took 111 s): cut, and no other
        # stretch tried, as each is as large.
        limit = max(STRETCH_FLOOR_SECONDS, STRETCH_FACTOR * self._before.outcome.seconds)
        for how in ("2n+1", "3n", "2n", "2n-1"):  # the keys of inputs.STRETCHES (which imports torch)
            step = label if how == "2n+1" else f"{label}-{how}"
            side = _run_model(self.ctx, step, layout, extra_paths=extra_paths, exporters=(exporter,), timing=False,
                              out_dir=self.ctx.work, stretch=names, how=how, timeout=limit)
            export = side.export(exporter) or {}
            stretched = list(side.outcome.data.get("stretched") or [])
            if export.get("path") and not export.get("error") and stretched:
                self._stretched[label] = (side, tree)
                return export["path"], stretched, ""
            why += (f"; at {how}: " if why else "") + (export.get("error") or side.outcome.message or "not exported")
            if side.outcome.status == "timeout":
                break
        return None, [], why

    def original_onnx(self, exporter: str) -> str | None:
        """The original's ONNX file of ``exporter`` (None when it did not export)."""
        self.original()
        if self._before is None or (self._before.export(exporter) or {}).get("error"):
            return None
        return self._before.onnx_path(exporter)

    def divergence(self, exporter: str, input_set: int = 1) -> Divergence | None:
        """Where the original's graph of ``exporter`` first computes other values than the model on
        input set ``input_set`` (1: the traced one; ``verify.diverge``): in a worker; None when it
        could not tell."""
        path = self.original_onnx(exporter)
        if path is None or self._before is None or not self._before.built \
                or not 1 <= input_set <= len(self.ctx.input_sets):
            return None
        side = _run_model(self.ctx, "divergence", self.layout, exporters=(), timing=False, out_dir=self.ctx.work,
                          diverge={"onnx_path": path, "atol": self.ctx.spec.atol, "rtol": self.ctx.spec.rtol,
                                   "set": input_set - 1})
        found = side.outcome.data.get("divergence") if side.outcome.status == "ok" else None
        return Divergence.from_json(found) if found is not None else None

    def verify(self, fixer: Fixer | None = None, *, extra_files: tuple[Path, ...] = (),
               verified_next: bool = False) -> VerifyReport:
        """Rewrite (``fixer``, default the engine with the spec's options) and verify against the original.

        ``verified_next``: the caller verifies again what is left once the culprits are reverted
        (``find_culprits``)."""
        report = self.original()
        if self._before is None or not self._before.built or report.exit_code == 2:
            return report  # the original did not run, or its settings are wrong (``report.error``)
        return _rewritten(self.ctx, report, self._before, self.layout, fixer, extra_files, verified_next)


def _empty_report(spec: VerifySpec) -> VerifyReport:
    return VerifyReport(name=spec.label, model=ModelSettings(
        file=str(spec.model_file), model=spec.model_call, inputs=spec.inputs.describe(),
        dynamic_axes={k: {str(a): d for a, d in v.items()} for k, v in spec.dynamic_axes.items()},
        exporters=list(spec.exporters), opset=spec.opset, target=spec.rewrite.target, unsafe=spec.rewrite.unsafe,
        atol=spec.atol, rtol=spec.rtol, unordered={}, runs=spec.runs, timing_budget=spec.timing_budget))


def _model_summary(side: SideResult) -> ModelSummary:
    o = side.outcome
    return ModelSummary(status="ok" if side.built else o.status if o.status != "ok" else "failed",
                        message=side.failure() or "", stage=o.stage, seconds=round(o.seconds, 2),
                        log_tail=o.log[-1500:] if not side.built else "",
                        reference=o.data.get("reference", "") if side.built else "")


def _exported(spec: VerifySpec, side: SideResult) -> bool:
    return any(side.onnx_path(e) and not (side.export(e) or {}).get("error") for e in spec.exporters)


def _original(ctx: _Ctx, session: Verification) -> VerifyReport:
    """Build, run, export and check the original model: the half every rewrite is compared with."""
    spec = ctx.spec
    report = _empty_report(spec)
    if spec.save_dir:
        report.saved = str(spec.save_dir)
    before = _run_model(ctx, "before", session.layout)
    session._before = before
    ctx.probe = before.outcome.data.get("probe", {})
    report.environment = ctx.probe
    report.models["before"] = _model_summary(before)
    # The user's files the model's code came from: what a zoo's result cache depends on.
    report.user_files = sorted(before.outcome.data.get("user_files", []))
    if not before.built:
        report.error = f"the original model could not run: {before.failure()}"
        return report
    ctx.input_names = before.outcome.data["input_names"]
    ctx.input_sets = before.outcome.data["input_sets"]
    if spec.unordered:
        # The output names exist from the first run on: check them before any comparison.
        names = before.outcome.data.get("output_names", [])
        try:
            first = next((o for o in before.eager["cpu"].outputs if o is not None), [])
            ctx.row_axes = resolve_unordered(spec.unordered, names, first)
        except UnorderedError as exc:
            report.error = f"{spec.unordered_source}: {exc}"
            return report
        report.model.unordered = dict(ctx.row_axes)
    report.inputs = InputSets(names=ctx.input_names, notes=before.outcome.data.get("input_notes", []),
                              sets=[{k: list(v.shape) for k, v in s.items()} for s in ctx.input_sets])
    # The original's exports may still be missing if its worker died while exporting.
    for exporter in spec.exporters:
        if before.export(exporter) is None and before.outcome.status != "ok":
            before.outcome.data.setdefault("exports", {})[exporter] = {
                "exporter": exporter, "path": None, "error": before.outcome.message, "warnings": []}
    _run_graphs(ctx, before, spec.backends, spec.exporters)
    for exporter in spec.exporters:
        report.export_checks.append(_faithfulness(ctx, before, exporter, None))
    values = [c.faithful for c in report.export_checks]
    report.export_faithful["before"] = None if any(v is None for v in values) or not values else all(values)
    with ctx.step("before: static TensorRT check"):
        for exporter in spec.exporters:
            path = before.onnx_path(exporter)
            report.graphs_by_exporter[exporter] = {
                "before": static.check_onnx(path, spec.rewrite.target) if path else None, "after": None}
    report.graphs = report.graphs_by_exporter[spec.exporters[0]]
    report.original_exported = _exported(spec, before)
    report.export_errors = {"before": {e: (before.export(e) or {}).get("error") or (
        None if before.onnx_path(e) else before.outcome.message or "not exported") for e in spec.exporters}}
    report.export_tracebacks = {e: [w["message"] for w in (before.export(e) or {}).get("warnings", [])
                                    if w.get("category") == "traceback"] for e in spec.exporters}
    latency: dict[str, float | None] = {}
    runs: dict[str, int | None] = {}
    timed = [("torch-cpu", before.eager.get("cpu"))]
    timed += [(f"{backend} ({exporter})", before.graph_run(backend, exporter))
              for backend, exporter in before.graph_runs]
    for label, run in timed:
        if run is not None and run.latency_ms:
            latency[label] = run.latency_ms.get("median")
            runs[label] = run.latency_ms.get("runs")
    report.latency_before = latency
    report.latency_before_runs = runs  # how many timed runs each figure is from (the budget may cut them)
    report.exit_code = 1  # until a rewrite has been verified
    return report


def _rewritten(ctx: _Ctx, report: VerifyReport, before: SideResult, layout: SourceLayout,
               fixer: Fixer | None, extra_files: tuple[Path, ...] = (), verified_next: bool = False) -> VerifyReport:
    """Rewrite, build, export and check the rewritten model; compare it with the original."""
    spec = ctx.spec
    extra_files = (*extra_files, *(Path(f) for f in before.outcome.data.get("user_files", [])))
    with ctx.step("rewrite"):
        tree = rewrite_copy(layout, ctx.out / "after_src", spec.rewrite, fixer, extra_files=extra_files)
    report.rules_applied = tree.rules
    report.fixes = list(tree.fixes)
    report.rewrite_errors = tree.errors

    after = _run_model(ctx, "after", tree.layout, extra_paths=tree.extra_paths)
    ctx.last_rewrite = (tree, after)
    report.models["after"] = _model_summary(after)
    _run_graphs(ctx, after, spec.backends, spec.exporters)

    names = before.outcome.data.get("output_names", [])
    for exporter in spec.exporters:
        report.export_checks.append(_faithfulness(ctx, after, exporter, tree))
    order = {e: k for k, e in enumerate(spec.exporters)}
    report.export_checks.sort(key=lambda c: (order.get(c.exporter, 0), c.side != "before"))
    values = [c.faithful for c in report.checks("after")]
    report.export_faithful["after"] = None if any(v is None for v in values) or not values else all(values)

    rows = [_backend_row(ctx, b, None, before, after, names) for b in spec.backends if b in EAGER_BACKENDS]
    for exporter in spec.exporters:
        rows += [_backend_row(ctx, b, exporter, before, after, names) for b in spec.backends if b in GRAPH_BACKENDS]
    report.backends = rows

    with ctx.step("after: static TensorRT check"):
        for exporter in spec.exporters:
            path = after.onnx_path(exporter)
            report.graphs_by_exporter[exporter]["after"] = (
                static.check_onnx(path, spec.rewrite.target, tree.map_location, tree.helper_at) if path else None)
    report.graphs = report.graphs_by_exporter[spec.exporters[0]]
    assert report.export_errors  # the original's side set them: a rewrite is verified only after it ran
    report.export_errors["after"] = {e: tree.map_error((after.export(e) or {}).get("error")) or (
        None if after.onnx_path(e) else after.failure() or after.outcome.message or "not exported")
        for e in spec.exporters}

    # Verdict.
    problems = report.problems
    if not after.built:
        problems.append(f"the rewritten model could not run: {after.failure()}")
    for row in rows:
        if row.status == OK and not row.passed:
            bad = next((o for o in row.outputs if not o.passed), None)
            problems.append(f"{row.label}: outputs differ from the original" + (f" ({bad.problem})" if bad else ""))
        elif row.status == FAILED and row.before.status == OK:
            problems.append(f"{row.label}: the original ran but the rewritten model failed: {row.reason}")
    report.equivalent = not problems
    if not _exported(spec, before):
        why = "; ".join(f"{e}: {(before.export(e) or {}).get('error') or before.outcome.message}" for e in spec.exporters)
        if not _exported(spec, after):
            report.error = "the original model could not be exported: " + why
            report.exit_code = 2
            return report
        # What the rewrite is for: the rewritten model exports where the original could not. Its
        # graphs are still compared with the original's eager outputs, so the verdict stands.
        report.original_export_error = why
    trt_errors = [i for e in spec.exporters if (g := report.graphs_by_exporter[e]["after"]) for i in g.errors()]
    failed_after = [r for r in rows if r.status == FAILED]
    report.exit_code = 0 if report.equivalent and not trt_errors and not failed_after else 1

    unfaithful_only = {id(r) for r in _unfaithful_first_export(report, rows)}
    introduced = [r for r in rows if r.status == OK and not r.passed and r.before.passed is not False
                  and id(r) not in unfaithful_only]
    introduced += [r for r in rows if r.status == FAILED and r.before.status == OK]
    if not report.equivalent and tree.rules and not introduced and after.built:
        # The original's graph is already wrong the same way (a value baked in before and after),
        # or the original had no graph and the rewritten one only disagrees with its own eager
        # outputs: the rewrite did not introduce the difference, so no rule is to blame.
        report.culprits = [Culprit(rule="-", reproduces=False, detail=UNFAITHFUL_FIRST_EXPORT if unfaithful_only else
                                   "the original's own graph differs from its eager outputs where the "
                                   "rewritten one does: the rewrite did not introduce the difference")]
    if not report.equivalent and tree.rules and (introduced or not after.built):
        ctx.progress("looking for the culprit rule(s)")  # each rule's check is a phase of its own
        failing_exporters = tuple(sorted({r.exporter for r in introduced if r.exporter}))
        report.culprits = [Culprit(**c) for c in find_culprits(
            tree.rules, lambda rule: _check_single_rule(ctx, layout, rule, fixer, before, names, failing_exporters,
                                                        extra_files, tree.fixes),
            verified_next=verified_next, last=_safe_rules(tree.rules))]
        report.culprit_rules = [c.rule for c in report.culprits if c.reproduces]
    return report


#: Why no rule is to blame where the original never exported and the rewritten graph is unfaithful.
UNFAITHFUL_FIRST_EXPORT = ("the original did not export; the rewritten model's eager outputs match the original's and "
                           "its graph differs from its own eager outputs as from the original's: the export is "
                           "unfaithful (values it keeps from the traced inputs), the rewritten program is not")


def _unfaithful_first_export(report: VerifyReport, rows: list[BackendResult]) -> list[BackendResult]:
    """Graph rows whose difference is the export's, not the rewrite's: the original had no graph with
    that exporter, every eager row ran and matched the original, and the rewritten graph matches its
    own eager outputs on the traced input set and differs on another (its check found a bake).

    Comparing such a graph with the original's eager outputs measures what the trace kept from the
    example inputs (a `.numpy()` of an input, a Python `bool` of a tensor), which the faithfulness
    check and the located bakes already report; blaming the rule that made the model export for it
    would revert the one fix that let the graph be judged at all (mbrl's planner: TRT384). A graph
    that differs on the traced set itself (a helper whose export path computes something else) is
    not a bake: the rule stays blamed.
    """
    eager = [r for r in rows if r.exporter is None and r.status != SKIPPED]
    if not eager or not all(r.status == OK and r.passed for r in eager):
        return []
    unfaithful = {c.exporter for c in report.checks("after") if c.faithful is False and c.baked}
    return [r for r in rows if r.exporter in unfaithful and r.status == OK and not r.passed
            and r.before.status != OK]


#: A frame of a Python or TorchScript traceback: ``File "/tmp/…/src/pkg/utils.py", line 67``.
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def rewritten_where_it_fails(failure: str, alone: RewrittenTree, full_fixes: list[Fix], rule: str) -> list[Fix]:
    """The fixes of rules other than ``rule`` in ``full_fixes`` at a user's line that ``failure`` (the
    model rewritten with ``rule`` alone, as the copy ``alone``) names in its traceback."""
    named = set()
    for match in _FRAME.finditer(failure):
        path, line = alone.map_path(match.group(1), int(match.group(2)))
        if path is not None and line is not None and path != match.group(1):
            named.add((os.path.realpath(path), line))
    return [f for f in full_fixes if f.rule != rule and (os.path.realpath(f.path), int(f.line)) in named]


def _safe_rules(rules: list[str]) -> set[str]:
    """Of ``rules``, those whose fixes are safe (values kept bit for bit): the least likely culprits."""
    from trtcodemod.findings import Safety
    from trtcodemod.registry import rule_by_id

    return {r for r in rules if (info := rule_by_id(r)) is not None and info.fix == Safety.SAFE}


def _check_single_rule(ctx: _Ctx, layout: SourceLayout, rule: str, fixer: Fixer | None, before: SideResult,
                       names: list[str], exporters: tuple[str, ...],
                       extra_files: tuple[Path, ...] = (), full_fixes: list[Fix] | None = None) -> tuple[bool, str]:
    """Rewrite with ``select = (rule,)`` only; does that alone break equivalence?

    ``full_fixes``: the fixes of the whole rewrite. Where the rule alone fails at code another of them
    rewrites, the failure is that code's as the whole rewrite never runs it: not this rule's to answer for."""
    spec = ctx.spec
    options = type(spec.rewrite)(select=(rule,), ignore=spec.rewrite.ignore, unsafe=spec.rewrite.unsafe,
                                 target=spec.rewrite.target)
    probe_dir = ctx.work / f"culprit-{rule}"
    tree = rewrite_copy(layout, probe_dir / "src", options, fixer, extra_files=extra_files)
    if not tree.fixes:
        return False, "applies no fix on its own"
    side = _run_model(ctx, f"culprit-{rule}", tree.layout, extra_paths=tree.extra_paths, exporters=exporters,
                      out_dir=probe_dir, timing=False)
    if not side.built:
        failure = side.failure() or ""
        others = rewritten_where_it_fails(failure, tree, full_fixes or [], rule)
        if others:
            # zoo 30's ty3_yolov3_nms: TRT104 alone fails at `x.new(...)`, which TRT349 rewrites in the
            # same rewrite; blaming TRT104 for it named code the verified model no longer has.
            where = ", ".join(f"{f.rule} at {Path(f.path).name}:{f.line}" for f in others)
            return False, (f"{rule} alone does not run, but it fails at code another fix of the rewrite changes "
                           f"({where}), which the rewritten model does not run: not reproduced on its own")
        return True, f"the model rewritten with {rule} alone does not run: {failure}"
    _, per_set = _compare_run(ctx, names, before.eager["cpu"], side.eager["cpu"], before)
    bad = [c for comps in per_set for c in comps if not c.passed]
    if bad:
        return True, f"eager outputs differ with {rule} alone: {bad[0].name}: {bad[0].problem}"
    _run_graphs(ctx, side, ("onnxruntime-cpu",), exporters, timing=False)
    for exporter in exporters:
        run = side.graph_run("onnxruntime-cpu", exporter)
        if run is None or run.status != OK:
            original = before.graph_run("onnxruntime-cpu", exporter)
            if original is None or original.status != OK:
                # The original had no working graph either (kornia's SIFT: two operators missing, a
                # rule fixes each): failing alone where the original failed proves nothing.
                continue
            return True, f"{exporter} graph with {rule} alone fails: {run.error if run else 'not exported'}"
        _, per_set = _compare_run(ctx, names, before.eager["cpu"], run, before)
        original = before.graph_run("onnxruntime-cpu", exporter)
        original_sets = None
        if original is not None and original.status == OK:
            _, original_sets = _compare_run(ctx, names, before.eager["cpu"], original, before)
        bad = introduced_differences(per_set, original_sets)
        if bad:
            return True, f"{exporter} graph with {rule} alone differs: {bad[0].name}: {bad[0].problem}"
    return False, f"{rule} alone keeps the outputs equal"


def introduced_differences(per_set: list[list[OutputComparison]],
                           original_sets: list[list[OutputComparison]] | None) -> list[OutputComparison]:
    """The failed comparisons of a rewritten graph (``per_set``) that the original's graph
    (``original_sets``, the same input sets against the same eager reference) did not fail too.

    A graph that already differs at an input set (a size baked in, a Concat that fails at other
    sizes) differs there whatever one rule does: a rule alone is to blame only for a difference it
    brings, as the verdict's ``introduced`` rows say for the whole rewrite. ``None``: the original
    has no graph run to compare, so every failure counts."""
    bad: list[OutputComparison] = []
    for i, comps in enumerate(per_set):
        before = original_sets[i] if original_sets is not None and i < len(original_sets) else None
        failed = {c.name for c in before or () if not c.passed}
        for c in comps:
            if c.passed:
                continue
            # The original failed to run on this set: no output of it was judged, so none passed.
            if before is not None and ("(run)" in failed or c.name in failed):
                continue
            bad.append(c)
    return bad
