"""The migration loop: observe → locate → plan → rewrite → verify → (repeat) → report.

Nothing here imports torch: the observer and the models run in worker processes
(``observe.py`` and the verifier's workers). The original is built, exported and checked
once (``Verification.original``); each round verifies one rewrite against it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

from trtcodemod.report.diff import unified_diff
from trtcodemod.verify.backends import FAILED, OK
from trtcodemod.verify.results import VerifyReport
from trtcodemod.verify.rewrite import Fixer, locate as locate_layout
from trtcodemod.verify.run import Verification
from trtcodemod.verify.spec import RewriteOptions, VerifySpec
from trtcodemod.verify.worker import run_task

from trtcodemod.evidence.facts import Facts, norm
from trtcodemod.evidence.proofs import NO_DETACH
from .locate import (CHECK_CALL_NOTE, CONFIGURATION_NOTE, CONSTANT_DATA_NOTE, CONSTANT_NOTE, GUARD_NOTE,
                     INPUT_FREE_NOTE, INSERTED_HELPER, STEADY, UNTRACED_AFTER_NOTE, UNTRACED_NOTE, WRONG_VALUES,
                     Problem, hidden_data_reads, locate, raise_guard, split_source, traced_lines, unfaithful_graphs,
                     untraced_after)
from .manual_steps import add_manual_steps
from .module_calls import with_builds
from .observe import OBSERVE_TASK, STRETCHED_STAGE
from .phases import ModelTimeout, Phases
from .plan import APPLY, INFO, LAST_RESORT, REMAINS, TRACED_BRANCH_RULES, Plan, assumption, describe
from .retrace import (CARRIED_OPS, Retrace, Rewritten, judge, judge_loops, judge_rewritten, loops_of_rewritten,
                      verdict_of)
from .split import analyse_split
from .report import empty_report

Progress = Callable[[str], None]
MAX_ROUNDS = 6


def observe(spec: VerifySpec, work: Path, timeout: float | None = None) -> tuple[Facts | None, str | None]:
    """Run the observer in a worker (``timeout``: its limit, default ``spec.timeout``); the facts,
    or why there are none."""
    layout = locate_layout(spec.model_file)
    request = {
        "task": OBSERVE_TASK, "model_file": str(layout.model_file), "import_root": str(layout.import_root),
        "module": layout.module, "extra_paths": [], "user_roots": list(layout.user_roots),
        "model": spec.model, "model_args": spec.model_args, "model_kwargs": dict(spec.model_kwargs),
        "inputs": spec.inputs, "seed": spec.seed, "threads": spec.threads,
        "dynamic_axes": {k: dict(v) for k, v in spec.dynamic_axes.items()},
    }
    outcome = run_task(request, work / "observe", timeout or spec.timeout, module="trtcodemod.migrate.observe")
    data = outcome.data.get("facts")
    # Killed (or timed out) on the stretched set alone: the facts of the input sets still hold.
    partial = outcome.status != "ok" and outcome.data.get("stage") == STRETCHED_STAGE
    if (outcome.status != "ok" and not partial) or not data:
        return None, outcome.message or "the observer produced no facts"
    return Facts.from_json(data), None


def _engine_options(options: RewriteOptions, facts: Facts | None,
                    allow: Callable[[Any], bool] | None = None,
                    follow_up: Callable[[Any], bool] | None = None) -> Any:
    from trtcodemod.engine import Options

    # The observed run decides, not names: every line (scope "all") and the opt-in rules too,
    # since the plan applies a fix only where the exported graph shows its problem. The facts
    # are the rules' evidence, as with `check --facts`: a value seen to be a tensor is one.
    return Options(select=_with_opt_in(tuple(options.select)), ignore=tuple(options.ignore), unsafe=options.unsafe,
                   target=options.target, allow=allow, follow_up=follow_up, scope="all", facts=facts)


def _with_opt_in(select: tuple[str, ...]) -> tuple[str, ...]:
    """``ALL`` widened with the opt-in rules' IDs (check's default leaves them out)."""
    if "ALL" not in (code.strip().upper() for code in select):
        return select
    from trtcodemod.registry import all_rules

    return select + tuple(info.id for info in all_rules() if info.opt_in)


def _unasked(decision: Any) -> bool:
    """An opt-in rule's finding that nothing located: migrate widened the selection to weigh it, and the user
    did not ask to see it (a broadcast write whose graph follows every size, TRT388's, is no construct to name)."""
    from trtcodemod.registry import all_rules

    return not decision.problems and decision.finding.rule in {info.id for info in all_rules() if info.opt_in}


def plan_fixer(plan: Plan, facts: Facts | None = None) -> Fixer:
    """A verifier ``Fixer`` that applies exactly the plan's fixes (and honours ``select`` for culprits)."""
    allow, follow_up = plan.allows(), plan.follow_ups()
    planned = {d.key[0] for d in plan.applied}

    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        from trtcodemod.engine import fix_source

        if norm(path) not in planned:
            # No fix is planned in this file, so none is allowed: it stays as it is, unparsed
            # (a library checkout has hundreds of such files, each copied every round).
            return source, []
        result = fix_source(source, path, _engine_options(options, facts, allow, follow_up))
        return result.source, [(f.rule, int(f.line), str(f.message)) for f in result.fixed]

    return fixer


def _findings(files: list[str], options: RewriteOptions, facts: Facts | None) -> tuple[list[Any], list[str]]:
    """The static check on the files the model's code came from."""
    from trtcodemod.engine import check_source
    from trtcodemod.errors import InputError

    findings, errors = [], []
    for path in files:
        crashes: list[InputError] = []
        try:
            findings += check_source(Path(path).read_bytes(), path, _engine_options(options, facts), crashes=crashes)
        except (OSError, InputError) as exc:
            errors.append(f"{path}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug of ours in one file must not end the migration
            errors.append(f"{path}: internal error, its findings left out: {type(exc).__name__}: {exc}")
        errors += [str(crash) for crash in crashes]
    return findings, errors


def _without_failures_of_unrolled_loops(located: list[Problem], plan: Plan, source: VerifyReport,
                                        side: str) -> list[Problem]:
    """``located`` less a node ONNX Runtime refuses, with no rule of its own, in the body of a loop a second trace
    found unrolled (:data:`~.retrace.UNROLLED`), where that graph runs on the traced input set: a loop unrolled for
    the traced batch reads an image a smaller input no longer has (a Gather past its end). The loop, named at its
    ``for``, is why (located, or a finding left there: TRT360's); the refused node is only where that shows. A
    graph that fails on the traced set too fails for a reason of its own, and keeps it."""
    from .locate import FAILS_TO_RUN
    from .retrace import UNROLLED
    from .unrolled import in_body

    left = [p for d in plan.by_action(REMAINS) for p in d.problems]
    loops = [(p.path, p.line) for p in [*located, *left] if p.op == UNROLLED and p.path and p.line]
    traced_runs = {c.exporter for c in source.checks(side) if c.baked}
    return [p for p in located
            if not (p.kind == "unfaithful" and p.op == FAILS_TO_RUN and p.rule is None and p.path and p.line
                    and p.exporter in traced_runs
                    and any(path == p.path and in_body(path, line, p.line) for path, line in loops))]


def _explains_other_values(problems: list[Problem]) -> bool:
    """An error located at a line that can make the graph compute other values than its model (a bake, state,
    an export failure). A node TensorRT refuses (an ``If`` of a squeeze) is an error too, but it says nothing
    about where ONNX Runtime's values come from: with only those, the unrolled loops are still to be found. So is
    a node ONNX Runtime refuses to run (a Gather past the end of a smaller input, where a loop unrolled for the
    traced size reads a row the input no longer has): it is where the graph fails, not why."""
    from .locate import FAILS_TO_RUN

    return any(p.severity == "error" and p.kind != "hostile" and not (p.kind == "unfaithful" and p.op == FAILS_TO_RUN)
               for p in problems)


def _silent_bake_found(files: list[str]) -> bool:
    """A finding, in the analysed files, of a rule whose construct bakes a size with no TracerWarning
    (``plan.SILENT_BAKE_RULES``)."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.registry import rule_classes
    from .plan import SILENT_BAKE_RULES

    options = Options(select=tuple(sorted(SILENT_BAKE_RULES)), scope="all")  # every line, as `_engine_options`
    rules = [cls for cls in rule_classes() if cls.info.id in SILENT_BAKE_RULES]
    for path in files:
        try:
            source = Path(path).read_bytes()
            if any(cls.may_find(source) for cls in rules) and check_source(source, path, options):
                return True
        except Exception:  # noqa: BLE001 - an unreadable file asks for nothing; the static analysis reports it
            continue
    return False


def side_state(report: VerifyReport, side: str) -> dict[str, Any]:
    """``{"exported", "faithful", "trt_errors", "trt_errors_by_op"}`` of one side; None where not measured."""
    errors_by_exporter = report.side_errors(side)
    exported = bool(errors_by_exporter) and all(v is None for v in errors_by_exporter.values())
    graphs = [(g or {}).get(side) for g in report.graphs_by_exporter.values()]
    by_op: dict[str, int] | None = None
    if any(g for g in graphs):
        by_op = {}
        for graph in graphs:
            for issue in graph.errors() if graph else []:
                by_op[issue.op] = by_op.get(issue.op, 0) + 1
    state = {"exported": exported, "faithful": report.export_faithful.get(side),
             "trt_errors": None if by_op is None else sum(by_op.values()), "trt_errors_by_op": by_op}
    # Faithful only with eager mode's own float32 error measured by a float64 run (verify.md): said.
    admitted = sum(c.float64_admitted or 0 for c in report.checks(side))
    if admitted:
        state["float64_admitted"] = admitted
    # Faithful with neighbouring rows a top-k orders by rounding traded back (verify.ties): said.
    traded = sum(c.rows_traded or 0 for c in report.checks(side))
    if traded:
        state["rows_traded"] = traded
    # Faithful with arg-max picks between values the graph computed as tied taken from eager mode (verify.picks).
    tied = sum(c.picks_tied or 0 for c in report.checks(side))
    if tied:
        state["picks_tied"] = tied
    # Judged against the float64 run that took eager float32's picks among its tied values (verify.tiedref).
    reference_ties = sum(c.float64_ties or 0 for c in report.checks(side))
    if reference_ties:
        state["float64_ties"] = reference_ties
    # Compared with the model's export branch, where it asks whether it is exported (verify.exportbranch).
    model = report.models.get(side)
    if model is not None and model.reference:
        state["reference"] = model.reference
    return state


def _latency(report: VerifyReport, key: str = "median") -> dict[str, dict[str, float | None]]:
    """Per backend, the ``key`` (the median, or the timed ``runs`` it is from) of each side's latency."""
    out = {}
    for row in report.backends:
        if row.latency_before or row.latency_after:
            out[row.label] = {side: getattr(row.latency(side), key, None) for side in ("before", "after")}
    return out


def _named_by_a_finding(located: list[Problem], plan: Plan, rewritten: Rewritten) -> list[Problem]:
    """``located`` less the original's problems carried into a rewritten file (an unrolled loop, a first differing
    node: at the user's line, as every located problem is) where a finding left without a fix names that problem:
    one loop, one entry (zoo 29's `od_yolo_obb_n_rows`: TRT360's finding at the wrapper's `for` of line 74, not the
    unrolled loop again). The rewritten graph's own problems stay: its bake is not the original's, judged."""
    named = {(norm(p.path), p.line, p.op) for d in plan.by_action(REMAINS) for p in d.problems if p.path}
    if not named:
        return located
    return [p for p in located if not (p.path and p.line and p.op in CARRIED_OPS and rewritten.changed(p.path)
                                       and (norm(p.path), p.line, p.op) in named)]


def _remaining(problems: list[Problem], plan: Plan) -> list[dict[str, Any]]:
    """What still blocks TensorRT, with the rule that addresses it or the manual step."""
    from .plan import matches

    out = []
    for p in problems:
        if p.severity != "error" and p.kind != "baked":
            continue  # a warning node is the report's detail; a dropped check is worth a line
        # Only a finding kept as a problem (it ran, and its fix is not applied) names the rule:
        # one that never ran, or matched nothing, is information and explains nothing here.
        decision = next((d for d in plan.decisions.values() if d.action == REMAINS and matches(p, d.finding)), None)
        reverted = next((d for d in plan.decisions.values() if d.key in plan.reverted and matches(p, d.finding)
                         and d.finding.rule not in TRACED_BRANCH_RULES), None)
        # A bake judged a warning only (the same number at every traced size) keeps the exporter's words, under
        # the rule whose finding was planned on it (TRT713's `c == 3` on the channels): its fix is not tried.
        judged = next((d for d in plan.decisions.values() if d.action == INFO and p in d.problems),
                      None)
        if reverted is not None:
            rule, message = reverted.finding.rule, f"fix reverted: {plan.reverted[reverted.key]}"
            if p.kind == "export_failure" and p.message and p.message not in message:
                # The exporter's own words say what stops it still; why the fix went says nothing of that.
                message += f"; the export stops with: {p.message}"
        elif decision is not None:
            rule, message = decision.finding.rule, decision.reason
        elif judged is not None and p.severity == "warning":
            rule, message = judged.finding.rule, p.message
        else:
            rule, message = p.rule, p.message
        verdict = verdict_of(p.message) if p.kind == "baked" else ""
        if verdict and verdict not in message:
            message += verdict  # the second trace's word on whether the bake matters stays said
        # Why a located read is only a warning stays said.
        for note in (GUARD_NOTE, CHECK_CALL_NOTE, UNTRACED_NOTE, CONSTANT_NOTE, CONFIGURATION_NOTE, CONSTANT_DATA_NOTE,
                     INPUT_FREE_NOTE):
            if note in p.message and note not in message:
                message += note
        if p.severity == "warning" and STEADY not in message:
            message += _steady([p])
        severity = p.severity
        if decision is not None and _unvouched(decision, [p]):
            severity, message = "error", message + UNVOUCHED_NOTE
        entry = {"op": p.op, "source": p.source, "rule": rule, "message": message, "kind": p.kind,
                 "exporter": p.exporter, "severity": severity}
        # A value read, the exporter's TracerWarning and its failure on one line, all with the
        # same remedy, are one problem to the reader.
        same = next((o for o in out if (o["source"], o["rule"], o["message"]) == (entry["source"], rule, message)
                     and entry["source"]), None)
        if same is None:
            out.append(entry)
        elif p.op not in same["op"]:
            same["op"] += f", {p.op}"
    return out


def _new_sources(plan: Plan, files: list[str], options: RewriteOptions,
                 facts: Facts | None) -> dict[str, tuple[bytes, bytes]]:
    """``path -> (original, rewritten)`` for each file the plan changes (the same rewrite as verified)."""
    fixer = plan_fixer(plan, facts)
    out = {}
    for path in files:
        original = Path(path).read_bytes()
        try:
            new, _ = fixer(original, path, options)
        except Exception:  # noqa: BLE001 - reported by the verification's rewrite errors already
            continue
        if new != original:
            out[path] = (original, new)
    return out


def _base(spec: VerifySpec) -> dict[str, Any]:
    report = empty_report(spec.label)
    report.update(model_file=str(spec.model_file), model=spec.model, inputs=spec.inputs.describe(),
                  target=spec.rewrite.target, unsafe=spec.rewrite.unsafe, exporters=list(spec.exporters),
                  timing={"runs": spec.runs, "warmup": spec.warmup, "budget_s": spec.timing_budget})
    return report


def migrate(spec: VerifySpec, *, progress: Progress | None = None, facts_out: Path | None = None,
            model_timeout: float | None = None) -> tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]:
    """Migrate one model: the report and ``path -> (original, new)`` of the files to write.

    ``model_timeout``: seconds for the whole migration; past it the report is a clean exit 2
    with the phases so far (``phases.py``).
    """
    progress = progress or (lambda _msg: None)
    phases = Phases(progress, spec.model_timeout if model_timeout is None else model_timeout)
    report = _base(spec)
    report["phases"] = phases.rows
    work = Path(tempfile.mkdtemp(prefix="trtcodemod-migrate-"))
    try:
        return _migrate(spec, report, phases, work, progress, facts_out)
    except ModelTimeout as exc:
        report["error"] = str(exc)
        report["exit_code"] = 2
        return report, {}
    finally:
        report["seconds"] = round(phases.elapsed(), 3)
        shutil.rmtree(work, ignore_errors=True)


def _migrate(spec: VerifySpec, report: dict[str, Any], phases: Phases, work: Path, progress: Progress,
             facts_out: Path | None) -> tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]:
    with phases.phase("observe"):
        facts, why = observe(spec, work, phases.worker_timeout(spec.timeout))
    if facts is None:
        report["error"] = f"the model could not be observed: {why}"
        return report, {}
    if facts_out is not None:
        facts.save(facts_out)
    _note_files(report, facts, analysed_files(facts, spec.model_file))
    with Verification(spec, progress=progress, phases=phases) as session:
        report, sources = _loop(spec, session, facts, report, progress, phases, facts_out)
        if report.get("before") is not None:
            from .lift import add_lift  # per-frame state (TRT703): forward_step, adapter, wrapper

            with phases.phase("lift"):
                sources = add_lift(replace(spec, timeout=phases.worker_timeout(spec.timeout)), report, sources,
                                   session.original(), facts, work, progress)
        return report, sources


def _loop(spec: VerifySpec, session: Verification, facts: Facts, report: dict[str, Any], progress: Progress,
          phases: Phases, facts_out: Path | None = None) -> tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]:
    original = session.original()
    if original.exit_code == 2:
        report["error"] = original.error or "the original model could not run"
        return report, {}
    report["before"] = side_state(original, "before")
    problems = with_builds(locate(original, "before", facts), facts)
    if _find_divergence(original, problems, session):
        problems = with_builds(locate(original, "before", facts), facts)
    files = analysed_files(facts, spec.model_file, problems)
    _note_files(report, facts, files)
    # A bake of a size-derived Python value that does not change the graph at other sizes
    # (a static axis, a value the same whatever the size) is a warning, not an error.
    data_baked = any(c.exporter == "torchscript" and c.faithful is False and c.baked for c in original.checks("before"))
    retrace = judge(problems, facts, session, dict(spec.dynamic_axes), progress, data_baked)
    if not retrace.summary and spec.dynamic_axes and not _explains_other_values(problems) \
            and (data_baked or _silent_bake_found(files)):
        # The graph differs from its model at other sizes and nothing says where: a Python loop over
        # a dynamic axis warns nowhere; a second trace finds it unrolled another number of times.
        # Or the code holds a construct whose bake warns nowhere and may match the model on the
        # observed data (Idefics2's `!= pixel_values.shape[1:].numel()` is true on every random image,
        # whatever count the graph keeps): the second trace shows whether it changes with the sizes.
        retrace = judge_loops(session, progress)
    problems = with_builds(retrace.apply(problems), facts)  # what the retrace made anew
    if retrace.summary:
        report["retrace"] = retrace.summary
    if _find_baked_divergence(original, problems, session):
        # Where the values first part is a located problem too, so that a finding of a rule whose construct changes
        # values with no warning (TRT354's read through `.data`: pytorch-ood's Mahalanobis scores, zoo 90) is tried.
        problems = problems + [p for p in unfaithful_graphs(original, "before", baked=True) if p.op == WRONG_VALUES]
    # The export's TracerWarnings are facts too: a rule that needs to know a value is a tensor
    # (or a size of one) takes a warning at its line as that evidence (TRT711 in a helper).
    facts.note_traced(_traced_at(problems))
    # And the nodes the graph check located with a rule: a rule whose construct the syntax cannot tell
    # from a harmless one (TRT334: a cumsum of integers the code does not show) reports where one was.
    _note_located(facts, problems)
    if facts_out is not None:
        facts.save(facts_out)  # with the warnings and located nodes, for `check`/`apply --facts`
    with phases.phase("static analysis"):
        findings, errors = analyse_split(files, lambda some: _findings(some, spec.rewrite, facts))
    report["rewrite_errors"] = errors
    plan = Plan()
    plan.update(findings, problems, facts, spec.rewrite.unsafe)

    def after_problems(verified: VerifyReport) -> list[Problem]:
        """The problems located in a rewritten model's graph. Those a fix let the export reach (a
        cumsum of integers behind a searchsorted that stopped the original's export) are facts the
        first analysis lacked: the files holding them are analysed again, and their findings replace
        the old ones, so a rule that reports only where the graph check located its node sees them."""
        found = with_builds(locate(verified, "after", None, facts), facts)
        noted = set(_note_located(facts, found)) | set(_note_traced(facts, found))
        again = [path for path in files if norm(path) in noted]
        if again:
            more, _ = _findings(again, spec.rewrite, facts)
            findings[:] = [f for f in findings if norm(f.path) not in noted] + more
        return found

    final: VerifyReport | None = None
    verified: list[Any] = []
    extra = tuple(Path(f) for f in files)
    for round_no in range(1, MAX_ROUNDS + 1):
        plan.release_held()  # an alternative whose earlier choice at its test went back last round
        if not plan.applied and (plan.last_resort or not plan.try_last_resort()):
            break  # nothing left to verify (the last resort, where any, tried once everything else went back)
        verified = list(plan.applied)
        with phases.section(f"round {round_no}"):
            # A round before the last verifies what its culprits leave: the next round does.
            final = session.verify(plan_fixer(plan, facts), extra_files=extra, verified_next=round_no < MAX_ROUNDS)
        report["rounds"].append({"round": round_no, "fixes": len(final.fixes), "equivalent": final.equivalent,
                                 "exit_code": final.exit_code, "after": side_state(final, "after"),
                                 "culprits": final.culprit_rules})
        if final.exit_code == 2:
            # Equivalent but not exported: the export now stops further on (Grounding DINO's `cummax`
            # behind the `isin` the round fixed). Another round, where a finding addresses that failure.
            if not (final.equivalent and plan.update(findings, after_problems(final), facts,
                                                     spec.rewrite.unsafe)):
                break
            continue
        if _stopped_at_export(final) and plan.update(findings, after_problems(final), facts,
                                                     spec.rewrite.unsafe):
            # The same in eager mode, but the export now reaches code the original's trace skipped and
            # stops there (timm's antialiased resize behind the size shortcut TRT717 removed while
            # tracing): another round with the fix a finding offers for that failure, nothing reverted.
            continue
        if _reached_past_the_original(final) and plan.update(findings, after_problems(final), facts,
                                                             spec.rewrite.unsafe):
            # The fixes let the export through where the original's stopped, eager mode is unchanged, and the
            # graph now computes other values at a construct a fix takes (piq FSIM's `atan2` at the zero
            # frequency, behind the FFT pipelines TRT709 let through): no fix is to blame for a construct the
            # original's export never reached. Another round with that fix; taken back if it does not help.
            continue
        if _revert_refusing_fixes(final, plan) or _revert_culprits(final, plan):
            continue
        if not final.equivalent and _yield_to_alternatives(final, plan):
            continue
        if not plan.update(findings, after_problems(final), facts, spec.rewrite.unsafe):
            if final.exit_code != 0 and not plan.last_resort and plan.try_last_resort():
                continue  # the other fixes left the graph unfaithful: a branch of a baked size test, tried last
            break
    applied, done = {d.key for d in plan.applied}, {d.key for d in verified}
    if final is not None and not applied <= done:
        plan = _restrict(plan, verified)  # new fixes planned too late: report what was verified
    beyond: list[Problem] = []
    if final is not None and not final.equivalent:
        if _differs_as_the_original(final) and _reached_past_the_original(final):
            # No second trace of the original looked past its export failure: one of the rewritten model does.
            loops = loops_of_rewritten(session, progress) if any(c.baked for c in final.checks("after")) else []
            beyond = _beyond_the_export(final, plan, facts, loops)
        _revert_unproved(plan, NOT_EQUIVALENT_AS_BEFORE if _differs_as_the_original(final) else NOT_EQUIVALENT)
    elif final is not None and not side_state(final, "after")["exported"]:
        # Equivalent in eager mode only, where a candidate's helper is the original call: no exported
        # graph tested its assumption (rf-detr's keypoint model, still stopped by its batch loops).
        _revert_unproved(plan, "not proved: the rewritten model still does not export, so no exported graph "
                               "tested this candidate's assumption")
        _revert_stuck(plan, locate(final, "after", None, facts))
    elif final is not None:
        after = locate(final, "after", None, facts)
        _revert_idle(plan, after)
        if side_state(original, "before")["exported"]:
            # (where the original did not export there is no graph of it to compare: nodes at a fix's line may be
            # another construct's that the export now reaches, ConvONet's `.squeeze(-1)` after its 5-D grid_sample)
            _revert_hostile_makers(plan, problems, after)
    applied = {d.key for d in plan.applied}
    if final is not None and applied != done:
        if not applied:
            final = None  # every fix was reverted: the model stays the original
        else:
            # Only reverts since the last verification: verify what is left, once more.
            with phases.section("without the reverted fixes"):
                final = _settle(final, plan, lambda: session.verify(plan_fixer(plan, facts), extra_files=extra),
                                phases)
    after_retrace = _judge_bakes_left(final, plan, retrace, session, progress) if final is not None else None
    if after_retrace is not None and after_retrace.summary:
        report["retrace_after"] = after_retrace.summary
    with phases.phase("finish"):
        return _finish(spec, report, original, final, plan, facts, files, retrace, after_retrace, beyond)


#: How many times a verification made after fixes went back may take back more (each a verification).
SETTLE_TRIES = 2
LEANED_ON_REVERTED = "breaks the rewrite once the fixes taken back are gone"


def _settle(last: VerifyReport, plan: Plan, verify: Callable[[], VerifyReport],
            phases: Phases) -> VerifyReport | None:
    """The verification of what the reverts left, no worse than ``last``, the one made before them. A
    fix may lean on one that went back: pyfacer's ``nms`` scripted by TRT104 compiled only while TRT397
    had rewritten its loop; without TRT397 the model failed at import, and that broken rewrite was the
    result. Where the rewrite left no longer exports where ``last`` did, or is no longer equivalent
    where ``last`` was, the fixes that alone reproduce that go back too (all of them where none does
    alone), and what is left is verified again; None where nothing is left (the model stays the
    original)."""
    def worse(report: VerifyReport) -> bool:
        exported = side_state(report, "after")["exported"]
        return (side_state(last, "after")["exported"] and not exported) or (last.equivalent and not report.equivalent)

    final = verify()
    for attempt in range(SETTLE_TRIES + 1):
        if not plan.applied or not worse(final):
            break
        applied = {d.finding.rule for d in plan.applied}
        blamed = {c.rule for c in final.culprits if c.reproduces and c.rule in applied}
        if attempt == SETTLE_TRIES or not blamed:
            plan.revert(applied, LEANED_ON_REVERTED)
            break
        detail = "; ".join(c.detail for c in final.culprits if c.rule in blamed)[:300]
        plan.revert(blamed, f"{LEANED_ON_REVERTED}: {detail}")
        if plan.applied:
            with phases.section(f"settle {attempt + 1}"):
                final = verify()
    return final if plan.applied else None


def _note_located(facts: Facts, problems: list[Problem]) -> list[str]:
    """Note the hostile nodes the graph check tagged with a rule, and the export failures a rule claims,
    as facts (``Facts.note_located``): the files where a node was noted that the facts did not hold yet."""
    before = len(facts.events)
    # An export that stopped at a line on an operator a rule takes is that rule's node too: the
    # construct ran there (an antialiased resize whose flag is an expression the run took true).
    facts.note_located((p.path, p.line, p.rule) for p in problems
                       if p.kind in ("hostile", "export_failure") and p.rule and p.path and p.line)
    return sorted({e["path"] for e in facts.events[before:]})


def _note_traced(facts: Facts, problems: list[Problem]) -> list[str]:
    """Note a rewritten model's TracerWarnings, at the user's lines, as facts (``Facts.note_traced``):
    a fix can make a value a traced tensor that a later line reads into Python (`float(w)` kept in the
    graph, then `min(gain_w, gain_h)` of the two floats), which the first analysis saw as numbers. The
    files where a warning was noted that the facts did not hold yet."""
    before = len(facts.events)
    facts.note_traced(_traced_at(problems))
    return sorted({e["path"] for e in facts.events[before:]})


#: What the export's failure says where a Python built-in met a traced size: a 0-d tensor has no `__round__`
#: (fastMRI's mask function, `round(num_cols * center_fraction)` of a shape handed down), which eager mode's int has.
_TRACED_NUMBER_FAILURES = ("doesn't define __round__",)


def _traced_at(problems: list[Problem]) -> list[tuple[str, int, str]]:
    """The export's TracerWarnings at the user's lines, and its failures where a built-in met a traced size (no
    warning comes first there: the trace stops), as ``Facts.note_traced`` takes them."""
    found = [(p.path, p.line, p.message) for p in problems if p.path and p.line and (
        p.kind == "baked" and p.op == "(traced constant)"
        or p.op == "(export)" and any(text in p.message for text in _TRACED_NUMBER_FAILURES))]
    # A validation that raised only while tracing (no TracerWarning: `isinstance(value, int)` of a traced size is
    # False, owndet's `_normalize_image_size`): its test read what the trace made of the values, so its lines are
    # noted as the failure's, where a rule takes a size's test on that evidence.
    for p in problems:
        guard = raise_guard(p.path, p.line) if p.op == "(export)" and p.path and p.line else None
        if guard is not None:
            found += [(p.path, line, p.message) for line in range(guard[0], guard[1] + 1)]
    return found


def _find_divergence(original: VerifyReport, problems: list[Problem], session: Verification) -> bool:
    """A graph that differs from its model even on the traced inputs, with nothing located to
    explain it (no state written in forward that changed between calls, no deep copy): find the
    line where its values first part from eager mode's (kept in the check, where ``locate``
    places the problem)."""
    if any(p.kind == "state" and p.severity == "error" for p in problems):
        return False
    found = False
    for check in original.checks("before"):
        if check.faithful is not False or check.baked or "failed" in check.detail:
            continue
        check.divergence = session.divergence(check.exporter)  # a phase of its own (the session's step)
        found = found or bool(check.divergence and check.divergence.source)
    return found


def _find_baked_divergence(original: VerifyReport, problems: list[Problem], session: Verification) -> bool:
    """A graph that differs from its model only on other input sets, with nothing located to
    explain it (no bake, no hostile node, no state, no unrolled loop): find the line where its
    values first part from eager mode's on the first set where they differ (kept in the check;
    ``_finish`` names it as what remains rather than end unfaithful with nothing remaining)."""
    if any(p.severity == "error" for p in problems):
        return False
    found = False
    for check in original.checks("before"):
        if check.faithful is not False or not check.baked or not check.failing_sets or "failed" in check.detail:
            continue
        if check.no_reference_sets:
            # Where eager float32 is no reference, the values part by amplified rounding at whatever line
            # amplifies it most: no line where the graph went wrong.
            continue
        check.divergence = session.divergence(check.exporter, check.failing_sets[0])
        found = found or bool(check.divergence and check.divergence.source)
    return found


def _unexplained(original: VerifyReport, source: VerifyReport, side: str) -> list[Problem]:
    """An unfaithful graph of ``side`` that nothing located explains, as problems: at the line
    where the original's graph first parts from its model (found by ``_find_divergence`` or
    ``_find_baked_divergence``) where that is known, else with the check's own word and no line."""
    out = []
    for p in unfaithful_graphs(source, side, baked=True):
        if p.path is None and source is not original:
            # The rewritten side's graph was not searched: the original's line, where it was found.
            known = next((q for q in unfaithful_graphs(original, "before", baked=True)
                          if q.exporter == p.exporter and q.path), None)
            if known is not None:
                p = replace(p, path=known.path, line=known.line,
                            message=p.message + "; in the original's graph: " + known.message)
        out.append(p)
    return out


def analysed_files(facts: Facts, model_file: Path, problems: Iterable[Problem] = ()) -> list[str]:
    """The files the static analysis reads: those of the user's files where a line ran during
    the observed forwards, the model file, and any file a located problem points into (a
    TorchScript function runs no Python line, yet its export fails at its line) or that built a
    module called at one (a factory of modules: ``Problem.built``). Another file that only ran
    while importing or building holds nothing an export records."""
    forward = set(facts.forward_files)
    forward.add(norm(str(model_file)))
    forward.update(p.path for p in problems if p.path)
    forward.update(b.path for p in problems for b in p.built)  # a factory's file, which ran while building
    if any(p.kind == "export_failure" and NO_DETACH in (p.message or "") for p in problems):
        # The TorchScript exporter's own `state_dict(keep_vars=True)` met a value that is no tensor: the override
        # that added it runs in no forward (neuraloperator's `BaseModel.state_dict`, TRT377), so a file of the user's
        # that defines one is read too.
        forward.update(f for f in facts.files if f.endswith(".py") and _defines_state_dict(f))
    return [f for f in facts.files if f.endswith(".py") and f in forward]


def _defines_state_dict(path: str) -> bool:
    try:
        return "def state_dict" in Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _note_files(report: dict[str, Any], facts: Facts, files: list[str]) -> None:
    report["files"] = files
    # Every user file that ran, imports included: what the model is built from (a zoo's cache
    # depends on them all, as it did when all of them were analysed).
    report["user_files"] = [f for f in facts.files if f.endswith(".py")]
    report["facts"] = {"runs": facts.runs, "files": len(files), "lines_ran": facts.lines_ran(files),
                       "value_reads": len(facts.value_reads()), "run_errors": facts.run_errors,
                       "inputs": facts.inputs}


def _stopped_at_export(final: VerifyReport) -> bool:
    """The rewritten model matches the original in eager mode, and what differs is only that a
    graph of it could not be made: its export failed where the original's did not."""
    rows = final.backends
    failed = [r for r in rows if r.exporter and r.status == FAILED]
    if not failed or not any(final.side_errors("after").values()):
        return False
    eager = [r for r in rows if not r.exporter and r.status == OK]
    return bool(eager) and all(r.passed for r in eager) and all(
        r.passed for r in rows if r.exporter and r.status == OK)


def _yield_to_alternatives(final: VerifyReport, plan: Plan) -> bool:
    """Where the rewritten model is not equivalent and no culprit was found, take back each applied fix that another
    form of the same test waits behind (TRT390 before TRT391), so that the next round tries that form."""
    leads = plan.leading_alternatives()
    why = (NOT_EQUIVALENT_AS_BEFORE if _differs_as_the_original(final) else NOT_EQUIVALENT) + \
        "; the next form of the same test is tried"
    for d in leads:
        plan.reverted[d.key] = why
    return bool(leads)


def _revert_culprits(final: VerifyReport, plan: Plan) -> bool:
    """Take back the fixes that broke equivalence; True when the plan changed."""
    if final.equivalent or not final.culprits:
        return False
    if _baked_past_the_original(final) and _eager_unchanged(final) and _refused_at_other_sizes(final):
        # The fix that let the export through is "culprit" only because no graph of the original exists to
        # compare: what differs is a size baked further on, a graph ONNX Runtime refuses at other sizes
        # (yolov7's per-image NMS loop behind the `multi_label &= nc > 1` TRT732 took). Not blamed; a
        # candidate goes back as unproved. Other values at other sets may be the fix's own (pytorch3d's
        # `searchsorted` one bin over at the CDF's last edge): blamed as before.
        return False
    kept = _input_value_kept(final)
    culprits = {c.rule: c.detail for c in final.culprits if c.reproduces}
    if culprits:
        changed = False
        for rule, detail in culprits.items():
            failing = _fix_before_export_failure(final, plan, rule)
            if failing is not None:
                # One fix of several breaks the export: take back that one, and verify the others
                # again (a wrong guess makes the rule the culprit again in the next round).
                decisions, where = failing
                for decision in decisions:
                    plan.reverted[decision.key] = f"breaks the export at {where}: {detail}"
                changed = True
            else:
                why = _kept_value_reason(kept, detail) if kept else f"breaks equivalence: {detail}"
                changed = plan.revert([rule], why) or changed
        return changed
    if any(c.rule == "-" for c in final.culprits):
        return False  # the original differs the same way: the rewrite did not introduce it
    if _baked_past_the_original(final):
        return False  # a bake the original's failed export never reached: named, the fixes kept for now
    # No single rule reproduces the difference: the fixes break it together; take them all back.
    rules = {d.finding.rule for d in plan.applied}
    together = "together with " + ", ".join(sorted(rules))
    return plan.revert(rules, _kept_value_reason(kept, together) if kept else "breaks equivalence " + together)


#: The TracerWarnings of a tensor's value read into a Python number or list, or a NumPy array (not a truth
#: value: a branch or a check, judged elsewhere).
_VALUE_CONVERSIONS = ("to a NumPy array", "to a Python number", "to a Python integer", "to a Python float",
                      "to a Python list", "to a Python index")


def _input_value_kept(final: VerifyReport) -> str | None:
    """Where only the fixes let the export through (no graph of the original), eager mode is unchanged, and the
    rewritten model's TorchScript graph is not faithful: the user lines (``path:line``, up to three, NumPy arrays
    first) at which its trace read a tensor's value into a Python number or a NumPy array whose value is not shown
    to be the same on every input (``input_free`` not True); else None. The graph keeps the example's value there, and differs from eager
    mode on other inputs whatever a fix does: MoGe-2's focal and shift, solved in NumPy by Gauss-Newton iterations
    (depth-estimation 0.1.3, modeling_moge.py:191), behind the antialiased resize that stopped the original."""
    if not _no_graph_of_the_original(final) or not side_state(final, "after")["exported"] \
            or not _eager_unchanged(final):
        return None
    sources: list[str] = []
    arrays: set[str] = set()
    for check in final.checks("after"):
        if check.exporter != "torchscript" or check.faithful is not False:
            continue
        for warning in check.warnings:
            if warning.category == "TracerWarning" and warning.source and warning.input_free is not True \
                    and any(kind in warning.message for kind in _VALUE_CONVERSIONS) and warning.source not in sources:
                # A NumPy array first: what the model computes outside torch (a solver); a number may be a size.
                sources.insert(len([s for s in sources if s in arrays]) if "NumPy" in warning.message else len(sources),
                               warning.source)
                if "NumPy" in warning.message:
                    arrays.add(warning.source)
    if not sources:
        return None
    shown = sources[:3]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def _kept_value_reason(source: str, detail: str) -> str:
    """Why a culprit goes back where the rewritten graph keeps a value read out of a tensor (:func:`_input_value_kept`):
    not blamed for the difference that value makes, unproved all the same."""
    return (f"not proved: the rewritten model's graph differs from eager mode ({detail}), but it also keeps, as the "
            f"example's constant, a value the model reads out of a tensor (into Python or NumPy) at {source}, which "
            "no fix changes and which only the fixes let the export reach: no graph of this code can match eager mode "
            "on other inputs, so no exported graph could test this candidate's assumption (see what remains at that "
            "line)")


def _reached_past_the_original(final: VerifyReport) -> bool:
    """The original did not export, the rewritten model did, and every eager-mode row matched the original:
    what differs is in a graph only the fixes let the export make."""
    return not side_state(final, "before")["exported"] and side_state(final, "after")["exported"] \
        and _eager_unchanged(final)


def _eager_unchanged(final: VerifyReport) -> bool:
    """Every eager-mode row of the rewritten model that ran matched the original (one ran at least;
    a row skipped for want of a device is none), and none failed."""
    eager = [r for r in final.backends if not r.exporter]
    ran = [r for r in eager if r.status == OK]
    return bool(ran) and all(r.passed for r in ran) and not any(r.status == FAILED for r in eager)


def _refused_at_other_sizes(final: VerifyReport) -> bool:
    """Every unfaithful graph of the rewritten model is one ONNX Runtime refuses to run on some set (a
    Split or Reshape of the example's sizes), never one that runs and computes other values."""
    unfaithful = [c for c in final.checks("after") if c.faithful is False]
    return bool(unfaithful) and all(c.failed_node or "failed" in c.detail for c in unfaithful)


def _baked_past_the_original(final: VerifyReport) -> bool:
    """The original did not export (or no graph of it loaded: :func:`_no_graph_of_the_original`), the rewritten
    model did, and its graph matches eager mode on the
    traced input sets and differs only where the sizes change: a value baked further on in the model,
    which the fixes let the export reach (rf-detr's loop over the batch's images, behind the antialiased
    resize that stopped the original). No single fix reproduces that, and taking them all back hides
    it; the bake is located and named, and a candidate whose assumption no set could test is taken back
    as unproved."""
    if not _no_graph_of_the_original(final) or not side_state(final, "after")["exported"]:
        return False
    unfaithful = [c for c in final.checks("after") if c.faithful is False]
    return bool(unfaithful) and all(c.baked for c in unfaithful)


def _no_graph_of_the_original(final: VerifyReport) -> bool:
    """No graph of the original ran on any input set: it did not export, or ONNX Runtime refused every graph it
    exported at load (SuperGlue's `simple_nms`: a MaxPool with 2-D attributes on a 3-D score map, which TRT325
    takes), so no set could compare what lies further on in it."""
    if not side_state(final, "before")["exported"]:
        return True
    checks = final.checks("before")
    return bool(checks) and all(c.faithful is False and "session creation failed" in c.detail for c in checks)


def _fix_before_export_failure(final: VerifyReport, plan: Plan, rule: str) -> tuple[list[Any], str] | None:
    """Of ``rule``'s applied fixes (two or more), those an export failure of the rewritten model
    points at: the fix holding the failure's line, or else the nearest fix above it in its file
    (what the rewritten line computes flows down to the call that fails: monai's `ch =
    int(x_shape[1])`, kept constant on purpose for `F.layer_norm(x, [ch])` below it), with the
    rule's other fixes above the failure in the function that holds it: they feed the same
    computation, and taking them back one a round spent the rounds (zoo 29's stride helper: TRT712's
    `int(image_size[0])`, `int(fh), int(fw)` and `max(sh, sw)`, each a round, before `round(mid)`
    below them took a Python number again; the rounds ran out before TRT717's candidates were
    verified without them)."""
    fixes = [d for d in plan.applied if d.finding.rule == rule]
    if len(fixes) < 2:
        return None
    for failure in locate(final, "after", None):
        if failure.kind != "export_failure" or failure.path is None or failure.line is None:
            continue
        above = [d for d in fixes if norm(d.finding.path) == norm(failure.path) and d.finding.line <= failure.line]
        if above:
            nearest = max(above, key=lambda d: d.finding.line)
            start = function_start(failure.path, failure.line)
            same = [d for d in above if d is nearest or (start is not None and d.finding.line >= start)]
            return same, f"{failure.path}:{failure.line}"
    return None


def function_start(path: str, line: int) -> int | None:
    """The first line of the innermost function holding ``line`` of the file at ``path``; None
    where the file cannot be read or parsed, or the line is in no function."""
    import ast

    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    starts = [node.lineno for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return max(starts) if starts else None


def _judge_bakes_left(final: VerifyReport, plan: Plan, retrace: Retrace, session: Verification,
                      progress: Progress) -> Retrace | None:
    """The original's graph changed with the sizes (or the original did not export: no verdict),
    so its verdict demotes no bake; where the rewritten model is clean and equivalent with only
    bakes left (a reverted fix's and a finding's without a fix included: their lines are in that
    model as they were), the rewritten model's own second trace decides them (MONAI's VarNet:
    the original stops at `view_as_complex`, and `if shift == 0` of its roll is left)."""
    state = side_state(final, "after")
    if not (final.equivalent and retrace.summary.get("same") is not True and state["exported"]
            and state["faithful"] is True and state["trt_errors"] == 0):
        return None
    after = locate(final, "after", None)
    if any(p.kind != "baked" for p in after if p.severity == "error"):
        return None
    return judge_rewritten([*after, *(p for d in _bakes_as_written(plan) for p in d.problems)], session, progress)


def _bakes_as_written(plan: Plan) -> list[Any]:
    """The reverted fixes and the findings left without a fix whose problems are all baked values
    (with a line): their code is in the rewritten model as it was (YOLOE's `self.nc =
    int(x[-1].shape[1])`, a size of the text embeddings, which no dynamic axis changes). The
    original's graph failing or computing other values beside them is no reason to leave them
    unjudged: this is asked only where the rewritten graph is faithful, which answers that part
    (:func:`_runs_now`); Real-CUGAN x4's `if tile_mode == 0:` holds the crop's bakes and the
    residual add the baked crop made fail."""
    decisions = [plan.decisions[key] for key in plan.reverted] + list(plan.by_action(REMAINS))
    return [d for d in decisions if any(p.kind == "baked" for p in d.problems)
            and all(p.kind == "baked" and p.path and p.line or p.kind == "unfaithful" for p in d.problems)]


#: Why a candidate goes back when the verification did not show the rewrite equivalent.
NOT_EQUIVALENT = ("not proved: the rewritten model is not equivalent to the original, so the verification could not "
                  "test this candidate's assumption")


#: The same, where the original's own graph differs from its eager outputs as the rewritten one does: the
#: candidates are not blamed, but what keeps the graph wrong is something none of them changes (a value
#: baked at a line no rule takes: easydetect's anchors divided by `torch.tensor([w, h])` before TRT716
#: followed a loop's sizes); a candidate goes back all the same, since no graph tested its assumption.
NOT_EQUIVALENT_AS_BEFORE = (
    "not proved: the rewritten model's graph still differs from its eager outputs as the original's does, "
    "for a reason none of the candidates changes (see what remains: a value baked where no fix applies), so no "
    "exported graph could test this candidate's assumption; it may well be right once that is fixed")


#: Said of a problem located in the rewritten model's graph where the original's export stopped before it.
BEYOND_NOTE = ("; located in the rewritten model's graph, which the reverted fixes let the export reach (the "
               "original's stops before it): it keeps that graph unfaithful, so no exported graph could prove them; "
               "once it is fixed they may well hold")


def _beyond_the_export(final: VerifyReport, plan: Plan, facts: Facts, loops: list[Problem]) -> list[Problem]:
    """What keeps the last rewrite's graph unfaithful, at the user's lines, where the original did not export:
    its candidates go back unproved and the original's report cannot show what the export reached past its own
    failure (TimesFM 3's loops over the patches, behind the `nn.RMSNorm` TRT337 made exportable). The graph's
    located errors (mapped to the user's lines already) and ``loops``, those a second trace of it found unrolled
    with the dynamic axes (:func:`.retrace.loops_of_rewritten`), less a refused node in such a loop's body (the
    loop is why)."""
    found = [p for p in locate(final, "after", None, facts) if p.severity == "error" and p.kind != "hostile"]
    found = _without_failures_of_unrolled_loops([*found, *loops], plan, final, "after")
    return [replace(p, message=p.message + BEYOND_NOTE) for p in found if p.path and p.line]


def _differs_as_the_original(final: VerifyReport) -> bool:
    """The verification blamed no rule: the original's own graph already differs the same way."""
    return any(c.rule == "-" for c in final.culprits)


def _revert_unproved(plan: Plan, why: str = NOT_EQUIVALENT) -> None:
    """A candidate is kept only when the verification shows the rewrite equivalent, on an exported graph:
    where it does not (the original's own graph differing the same way included), or where the rewritten
    model still does not export (equivalent in eager mode, where the helpers are the original calls), its
    assumption is unproved."""
    for d in plan.applied:
        if d.candidate:
            plan.reverted[d.key] = why


def _revert_stuck(plan: Plan, after: list[Problem]) -> None:
    """A fix is kept for what it lets through: one tried only for export failures at lines where the rewritten model's
    export stops the same way (TRT337's helper in a ``@torch.jit.script`` function, where it keeps torch's call:
    empanada's ``F.threshold(ctr_hmp, threshold, -1.)``) changes the code and fixes nothing."""
    left = {(p.path, p.line, p.rule) for p in after if p.kind == "export_failure" and p.path}
    for d in plan.applied:
        if d.key in plan.reverted or not d.problems or any(p.kind != "export_failure" for p in d.problems):
            continue
        if all((p.path, p.line, p.rule) in left for p in d.problems):
            plan.reverted[d.key] = ("fixes nothing: the rewritten model's export stops at this line as the "
                                    "original's did")


def _revert_idle(plan: Plan, after: list[Problem]) -> None:
    """A candidate is kept for what it removes: one tried only for hostile nodes, all of which the
    rewritten graph still has (kornia's `.double()` → `.float()` beside a float64 divisor, which
    promotes the division back), changes the code and fixes nothing."""
    left = Counter((p.path, p.line, p.op) for p in after if p.kind == "hostile" and p.severity == "error")
    for d in plan.applied:
        if not d.candidate or any(p.kind != "hostile" for p in d.problems):
            continue
        aimed = Counter((p.path, p.line, p.op) for p in d.problems if p.severity == "error")
        if aimed and all(left[k] >= n for k, n in aimed.items()):
            nodes = ", ".join(sorted({f"{op} at line {line}" for _, line, op in aimed}))
            plan.reverted[d.key] = f"removes nothing: the rewritten graph keeps every node it was tried for ({nodes})"


def _revert_refusing_fixes(final: VerifyReport, plan: Plan) -> bool:
    """Take back the fixes at whose lines ONNX Runtime refused the rewritten graph on an input set where the
    original's graph of the same exporter ran (or inside a helper the fix inserted, whatever the original did);
    True when the plan changed. No rule alone reproduces such a refusal where it needs two fixes together
    (SEA-RAFT's unpadding in ptlflow, zoo 54: `if x.shape[-2] == self.tgt_size[0] ...: x = self.unpad(x)`, whose
    TRT713 selection is a ``Where`` of the padded and unpadded frames, one shape at the traced size only once
    TRT712 made the target size follow the input), and the original's own unfaithful graph made it read as the
    original's difference: every fix went back as unproved, the ones that made the graph follow the input too."""
    before = {c.exporter: c for c in final.checks("before")}
    changed = False
    for check in final.checks("after"):
        node = check.failed_node
        if check.faithful is not False or not node or not getattr(node, "source", None):
            continue
        original = before.get(check.exporter)
        original_ran = original is not None and original.faithful is not None and not original.failed_node \
            and "failed" not in original.detail
        helper = INSERTED_HELPER.search(node.source)
        if not (original_ran or helper):
            continue
        path, line = split_source(node.source)
        for d in plan.applied:
            last = d.finding.end_line or d.finding.line
            if d.key in plan.reverted or norm(d.finding.path) != path or not d.finding.line <= line <= last:
                continue
            made = f"inside {helper.group(1)}, which this fix inserted" if helper else "at this fix's line"
            sets = ", ".join(map(str, check.failing_sets)) or "an input set"
            plan.reverted[d.key] = (f"ONNX Runtime refuses the rewritten graph's {node.op} node {node.node!r}, made "
                                    f"{made}, on set(s) {sets} ({check.exporter} exporter), where the original's "
                                    f"graph " + ("ran" if original_ran else "had no such node"))
            changed = True
    return changed


def _revert_hostile_makers(plan: Plan, before: list[Problem], after: list[Problem]) -> None:
    """A fix is not kept where the rewritten graph refuses, at the lines it rewrote, nodes the original's graph
    (which exported) did not have there and no other fix took: pytorch-tabnet's ghost batch norm (zoo 44), `x.chunk(int(np.ceil(
    x.shape[0] / self.virtual_batch_size)), 0)`, whose chunk count TRT712 kept a traced integer; the TorchScript
    exporter then splits into a sequence (SplitToSequence, SequenceAt), which no TensorRT parses, where the
    original's graph had none."""
    had = Counter((norm(p.path), p.line, p.op) for p in before if p.kind == "hostile" and p.path and p.line)
    made = [p for p in after if p.kind == "hostile" and p.severity == "error" and p.path and p.line]
    for d in plan.applied:
        if d.key in plan.reverted:
            continue
        path, first, last = norm(d.finding.path), d.finding.line, d.finding.end_line or d.finding.line
        new = Counter((p.op, p.line) for p in made if norm(p.path) == path and first <= p.line <= last
                      and not had[(path, p.line, p.op)])
        if new:
            nodes = ", ".join(f"{op} at line {line}" + (f" ×{n}" if n > 1 else "")
                              for (op, line), n in sorted(new.items()))
            plan.reverted[d.key] = (f"makes nodes TensorRT refuses where the original's graph had none ({nodes}), and "
                                    "no fix takes them")


def _restrict(plan: Plan, verified: list[Any]) -> Plan:
    keys = {d.key for d in verified}
    for d in plan.decisions.values():
        if d.action == APPLY and d.key not in keys and d.key not in plan.reverted:
            d.action, d.reason = REMAINS, "planned in the last round; not verified (round limit)"
    return plan


def _finish(spec: VerifySpec, report: dict[str, Any], original: VerifyReport, final: VerifyReport | None,
            plan: Plan, facts: Facts, files: list[str],
            retrace: Retrace | None = None, after_retrace: Retrace | None = None,
            beyond: Iterable[Problem] = ()) -> tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]:
    applied_rules = {(norm(f.path), f.rule, int(f.line)) for f in (final.fixes if final is not None else [])}
    for d in plan.applied:
        if d.follow_up and (norm(d.finding.path), d.finding.rule, d.finding.line) not in applied_rules:
            # Planned for code another fix wrote, but no such fix applies there: it stays located.
            d.action, d.reason = REMAINS, f"{describe(d.problems)}; no {d.finding.rule} fix applies to the code " \
                                          "another fix wrote here"
    report["applied"] = [{"rule": d.finding.rule, "path": d.finding.path, "line": d.finding.line,
                          "end_line": d.finding.end_line, "proof": _proof(d, final, facts), "message": d.finding.message,
                          "landed": (norm(d.finding.path), d.finding.rule, d.finding.line) in applied_rules}
                         for d in sorted(plan.applied, key=lambda d: d.key)]
    report["reverted"] = [{"rule": d.finding.rule, "path": d.finding.path, "line": d.finding.line, "why": why}
                          for key, why in plan.reverted.items() for d in [plan.decisions[key]]
                          if d.finding.rule not in TRACED_BRANCH_RULES]  # a last resort that failed: information
    report["tried_last"] = [{"rule": d.finding.rule, "path": d.finding.path, "line": d.finding.line, "why": why}
                            for key, why in plan.reverted.items() for d in [plan.decisions[key]]
                            if d.finding.rule in TRACED_BRANCH_RULES]
    report["info"] = [d.to_json() for d in sorted(plan.by_action(INFO), key=lambda d: d.key) if not _unasked(d)
                      and not (d.finding.rule in TRACED_BRANCH_RULES and LAST_RESORT in (d.reason or ""))]
    side, source = ("after", final) if final is not None else ("before", original)
    report["after"] = side_state(source, side)
    sources = _new_sources(plan, files, spec.rewrite, facts) if plan.applied and final is not None else {}
    located = locate(source, side, facts if side == "before" else None, facts)
    if side == "after" and report["after"]["faithful"] is True:
        # A value from the data the input sets all gave alike, at a line the rewrite left as it was.
        copies = Rewritten(sources) if sources else None
        located += [p for p in hidden_data_reads(source, facts)
                    if copies is None or copies.copy(p.path, p.line) is not None]
    if retrace is not None:
        # The verdict is about the original's code: on the rewritten side it covers only the
        # code the rewrite left as it was.
        # Where no second trace of the rewritten model judged it and its graph is still not faithful,
        # the original's unrolled loops and first differing line stand where the rewrite left them.
        carry = side == "after" and after_retrace is None and report["after"]["faithful"] is not True
        located = retrace.apply(located, None if side == "before" else Rewritten(sources), carry)
    if after_retrace is not None and side == "after":
        located = after_retrace.apply(located)  # its lines are the rewritten model's own bakes
    if side == "after" and sources:
        located = _named_by_a_finding(located, plan, Rewritten(sources))
    located = _without_failures_of_unrolled_loops(located, plan, source, side)
    report["remaining"] = _remaining([*located, *beyond], plan)
    exported = bool(report["after"]["exported"])
    kept = list(report["remaining"])
    for d in plan.by_action(REMAINS):
        if any(r["rule"] == d.finding.rule and r["source"] and r["source"].endswith(f":{d.finding.line}")
               for r in kept):
            continue
        if d.problems and all(any(r["rule"] == d.finding.rule and r["source"] == p.source for r in kept)
                              for p in d.problems):
            # Listed already, under this rule, at the lines of its problems: a loop whose `break` (the
            # line that bakes) stands below its `for` (the finding's line), as SLANet's decoder.
            continue
        gone = _gone(d, located, side, exported, Rewritten(sources) if sources else None)
        replaced = "" if gone or side != "after" else _replaced(d, plan, final, sources)
        gone = gone or bool(replaced)
        runs = not gone and _runs_now(d, located, side, exported, report["after"]["faithful"])
        problems, judged = _judged(d.problems, after_retrace if side == "after" else None)
        problems, judged = _untraced_after(problems, judged, original, final, side, sources)
        judged = judged or _steady(problems)
        # A graph failure of the original that the rewritten graph no longer has is no error of this
        # finding's; what else it was kept for (a warning node still there) keeps its own severity.
        errors = [p for p in problems if p.severity == "error" and not (runs and p.kind in ("unfaithful", "state"))]
        if not errors and not gone and _unvouched(d, problems):
            errors, judged = [p for p in problems if p.kind == "baked"], judged + UNVOUCHED_NOTE
        report["remaining"].append({
            "op": d.problems[0].op if d.problems else "-", "source": f"{d.finding.path}:{d.finding.line}",
            "rule": d.finding.rule,
            "message": d.reason + (replaced or (_gone_note(d) if gone else RUNS_NOTE if runs else "")) + judged,
            "kind": "finding",
            "exporter": None,
            "severity": "error" if errors and not gone else "warning"})
    # A reverted fix leaves its problem where it was, even one the rewritten side cannot show
    # (a value baked in that no input set exposes is seen by the observer, on the original).
    located_entries = list(report["remaining"])
    # Where the model's graphs show problems: the original's, and the final rewritten model's.
    shown = _lines_of([*located, *(locate(original, "before", facts) if plan.reverted and side == "after" else [])])
    for key, why in plan.reverted.items():
        d = plan.decisions[key]
        if d.finding.rule in TRACED_BRANCH_RULES:
            continue  # a last resort that failed: said in "tried_last", the problem stays under its own rule
        if any(r["rule"] == d.finding.rule and r["source"] and r["source"].endswith(f":{d.finding.line}")
               for r in located_entries):
            continue
        problems, judged = _judged(d.problems, after_retrace if side == "after" else None)
        problems, judged = _untraced_after(problems, judged, original, final, side, sources)
        judged = judged or _steady(problems)
        brought = only_in_reverted_rounds(problems, shown)
        report["remaining"].append({
            "op": problems[0].op if problems else "-", "source": f"{d.finding.path}:{d.finding.line}",
            "rule": d.finding.rule, "message": f"fix reverted: {why}{judged}{REVERTED_ROUND_NOTE if brought else ''}",
            "kind": "finding", "exporter": None,
            "severity": "error" if not brought and any(p.severity == "error" for p in problems) else "warning"})
    add_manual_steps(report["remaining"])
    if final is None:
        report["equivalent"] = True  # nothing was rewritten: the model is the original
        report["latency_ms"] = {k: {"before": v, "after": v} for k, v in (original.latency_before or {}).items()}
        report["latency_runs"] = {k: {"before": v, "after": v} for k, v in (original.latency_before_runs or {}).items()}
    else:
        # A graph that differs from eager as the original's does is the export's failing (``faithful``),
        # not the rewrite's: the rewritten program is equivalent where no row it ran got worse.
        report["equivalent"] = bool(final.equivalent) or _differs_as_the_original(final)
        report["latency_ms"] = _latency(final)
        report["latency_runs"] = _latency(final, "runs")
        report["rewrite_errors"] += final.rewrite_errors
        data = final.to_json()
        report["verification"] = {k: data[k] for k in ("problems", "culprits", "backends", "export_checks",
                                                       "original_export_error")}
    after = report["after"]
    clean = after["exported"] and after["faithful"] is True and after["trt_errors"] == 0
    # A problem still located at a line (a baked value the input sets happen not to expose
    # included) is not a migrated model, whatever the other checks say.
    errors_left = [r for r in report["remaining"] if r["severity"] == "error"]
    if after["exported"] and after["faithful"] is False and not errors_left:
        # Unfaithful, and nothing located says why: what differs is named all the same, never
        # an exit 1 with nothing remaining.
        unexplained = [{"op": p.op, "source": p.source, "rule": p.rule, "message": p.message, "kind": p.kind,
                        "exporter": p.exporter, "severity": p.severity} for p in _unexplained(original, source, side)]
        add_manual_steps(unexplained)
        report["remaining"] += unexplained
        errors_left = [r for r in report["remaining"] if r["severity"] == "error"]
    report["exit_code"] = 0 if clean and report["equivalent"] and not errors_left else 1
    if final is not None and final.exit_code == 2 and not after["exported"]:
        report["exit_code"] = 1  # the model runs; what blocks its export is in `remaining`
    report["changed_files"] = sorted(sources)
    report["diff"] = "".join(unified_diff(_display(p), old, new) for p, (old, new) in sorted(sources.items()))
    return report, sources


def _steady(problems: list[Problem]) -> str:
    """Why a finding's bakes are warnings where the second trace found them steady: its note."""
    return next((f"; {p.message[p.message.index(STEADY):]}" for p in problems
                 if p.severity == "warning" and STEADY in p.message), "")


def _untraced_after(problems: list[Problem], judged: str, original: VerifyReport, final: VerifyReport | None,
                    side: str, sources: dict[str, tuple[bytes, bytes]]) -> tuple[list[Problem], str]:
    """``problems`` of a finding left as it was, its eager value reads judged on the rewritten model's
    trace where the original's export stopped (:func:`.locate.untraced_after`), and the note that says
    so where it changed a severity."""
    if side != "after" or final is None:
        return problems, judged
    out = untraced_after(problems, original, final, Rewritten(sources))
    if any(a.severity != b.severity for a, b in zip(out, problems)) and UNTRACED_AFTER_NOTE not in judged:
        judged += UNTRACED_AFTER_NOTE
    return out, judged


#: Why a reverted fix's problems are no error: only a rewritten round's graph had them.
REVERTED_ROUND_NOTE = ("; only the graph of a rewritten round showed the problem this fix was planned for (code "
                       "another candidate changed, since reverted, made the value a traced tensor here); neither "
                       "the original's graph nor the final one has it")


def _lines_of(problems: Iterable[Problem]) -> set[tuple[str, int, str]]:
    """``(path, line, kind)`` of each located problem that names a line."""
    return {(norm(p.path), p.line, p.kind) for p in problems if p.path is not None and p.line is not None}


def only_in_reverted_rounds(problems: list[Problem], shown: set[tuple[str, int, str]]) -> bool:
    """Were ``problems`` (a reverted fix's) all seen in a rewritten round's graph only, none of
    them at a line where the original's or the final model's graph shows one (``shown``)?

    A round verifies its candidates' rewritten code: a fix that turns a Python number into a traced
    size (zoo 29's stride helper, `fh, fw = int(fh), int(fw)` kept as 0-d tensors) makes the next
    line's `max(sh, sw)` read a tensor, and the plan takes that bake for a problem of its own. Once
    the fix that brought it is reverted, the line computes on Python numbers again: nothing is
    baked there, and the reverted follow-up is no error of the model's."""
    return bool(problems) and not _lines_of(problems) & shown and all(
        p.path is not None and p.line is not None for p in problems)


def _judged(problems: list[Problem], after_retrace: Retrace | None) -> tuple[list[Problem], str]:
    """``problems`` of a line the rewritten model holds as it was, with the verdict of that model's
    own second trace, and the note that says so where it changed a severity."""
    if after_retrace is None:
        return problems, ""
    judged = after_retrace.apply(problems)
    changed = any(a.severity != b.severity for a, b in zip(judged, problems))
    return judged, f"; {after_retrace.note}" if changed else ""


#: Why a bake stays an error whatever a second trace found (:func:`_unvouched`).
UNVOUCHED_NOTE = ("; the traced sizes do not vouch for it: the number decides an `if` on sizes that picks what a loop "
                  "collects, and which branch eager mode takes follows whether a ratio of sizes is whole (or another "
                  "test of them), which the stretched size can share with the example where other sizes do not "
                  "(oriented-det's strides: the same graph at 128 and 257 px, and at 300 px eager mode infers a "
                  "stride of 30 where the graph keeps 32)")
#: The second traces' verdicts that demote a bake (``retrace.VERDICT_STARTS``), after the original's own verdict
#: where the rewritten model's trace judged it again; "no dynamic axis" is a fact about the inputs, not a sample.
_SAMPLED_VERDICTS = ("; same graph at ", "; the rewritten model's graph traced at ", f"; {STEADY}")


def _unvouched(decision: Any, problems: list[Problem]) -> bool:
    """A bake that a second trace demoted, where the rule's finding says its number decides a branch that picks
    what a loop collects (TRT712's stride inferred as image size / feature size, accepted only where whole): two
    sizes sample that choice, they do not show it for the others (the stretched size, odd, takes the fallback
    the example's whole ratio gave too)."""
    from trtcodemod.transforms.baked_shapes import COLLECTING_BRANCH

    return COLLECTING_BRANCH in decision.finding.message and any(
        p.kind == "baked" and p.severity == "warning" and any(v in p.message for v in _SAMPLED_VERDICTS)
        for p in problems)


#: Why a finding left without a fix is no longer an error: the other fixes removed its node.
GONE_NOTE = "; the rewritten model's graph has no such node any more (the fixes applied removed it)"
RUNS_NOTE = ("; the rewritten model's graph runs and gives eager mode's values on the input sets, where the "
             "original's did not (the fixes applied removed the failure)")


def _gone(decision: Any, located: list[Problem], side: str, exported: bool = True,
          rewritten: Rewritten | None = None) -> bool:
    """A finding kept for hostile nodes of the original whose rewritten graph (exported, so its
    nodes are known) has none of them (MViT's squeeze `If` came from the shapes a sequence hid;
    with the split as slices it is gone), or kept for the original graph failing or computing
    other values there, where the rewritten graph is faithful (kornia CLAHE's tile indices: the
    original's Gather ran out of bounds at the slice assignment's line, TRT728's fix of the indices
    removed that). Not for bakes: a rewritten export that does not warn at a line, or whose second
    trace could not tell, proves nothing about the decision there (kornia CLAHE's tile parity,
    which its graph gets wrong at 129 pixels). An export failure of the original is gone where the
    rewritten model exports (Swin's window mask written into an empty slice stops the TorchScript
    exporter only while the padded size is the example's constant: TRT712's fix of the size removed
    it). The rewritten graph's nodes stand at the rewritten
    files' lines: each is judged at the original line it copies (``rewritten``), and one at a line
    a fix wrote at the finding's own line (it may be the same node, moved: spandrel's reflect pad,
    one line up once TRT717 returned it every time)."""
    from .plan import matches

    def original(problem: Problem) -> Problem:
        if rewritten is None or problem.path is None or not problem.line or not rewritten.changed(problem.path):
            return problem
        line = rewritten.origin(problem.path, problem.line)
        return replace(problem, line=line if line is not None else decision.finding.line)

    if side != "after" or not exported or not decision.problems \
            or not all(p.kind in ("hostile", "unfaithful", "export_failure") for p in decision.problems):
        return False
    if any(p.kind == "hostile" and matches(original(p), decision.finding) for p in located):
        return False
    # An unfaithful graph is one verdict over the whole graph: gone only where the rewritten one is faithful.
    return not (any(p.kind == "unfaithful" for p in decision.problems) and any(p.kind == "unfaithful" for p in located))


def _runs_now(decision: Any, located: list[Problem], side: str, exported: bool = True,
              faithful: bool | None = None) -> bool:
    """A finding kept (among others) for the original graph failing or computing other values, where
    the rewritten graph, exported, is faithful: that failure is gone, whatever else the finding was
    kept for (spandrel's HVI-CIDNet: the mask assignment's NonZero, a warning, stays in the rewritten
    graph; the graph's failure at that line came from the hue plane TRT349 no longer bakes).

    Module state written in forward is named only as the likely reason of the original graph's other
    values (``frozen_state``); where the rewritten graph is checked faithful on every input set, run in
    order as the observer ran them, the writes passed nothing between the calls (monodepth2's
    ``self.outputs = {}`` filled and returned by each forward; the difference was TRT355's write)."""
    if side != "after" or not exported or any(p.kind == "unfaithful" for p in located):
        return False
    if any(p.kind == "unfaithful" for p in decision.problems):
        return True
    return faithful is True and bool(decision.problems) and all(p.kind == "state" for p in decision.problems)


def _replaced(decision: Any, plan: Plan, final: VerifyReport | None, sources: dict[str, tuple[bytes, bytes]]) -> str:
    """The note for a finding kept for values baked at lines that a verified fix rewrote whole, where the rewritten
    model's TorchScript export read no tensor value at any line that fix's rewrite wrote; else "".

    flashdet's ``if keep.sum() == 0: continue`` (TRT101) in the per-image loop TRT360 flattened: the loop stays,
    re-indented, only for eager code (the ``else`` of ``_trt_tracing()``), so no line of the traced path is the
    one that read the value; and the trace reads every tensor value into Python with a TracerWarning, of which the
    rewritten lines have none. A line the rewrite left as it was (a copy) still decides what it decided."""
    if final is None or not sources or not decision.problems or any(p.kind != "baked" for p in decision.problems):
        return ""
    traced = traced_lines(final, "after")
    if traced is None:
        return ""
    rewritten = Rewritten(sources)
    fixes = []
    for p in decision.problems:
        if not p.path or not p.line or not rewritten.changed(p.path) or rewritten.copy(p.path, p.line) is not None:
            return ""
        fix = next((d for d in plan.applied if d.key not in plan.reverted and norm(d.finding.path) == norm(p.path)
                    and d.finding.line <= p.line <= (d.finding.end_line or d.finding.line)), None)
        if fix is None:
            return ""
        fixes.append(fix)
    for path, line in traced:
        if not rewritten.changed(path):
            continue
        origin = rewritten.origin(path, line)
        # A read at a line the rewrite wrote in a file none of these fixes changed is another fix's code (zoo 90's
        # DETR: TRT704's asserts on traced sizes in `models/detr.py`, the loop TRT361 rewrote in the wrapper); in a
        # file they changed, such a line may be theirs.
        if origin is None and any(norm(f.finding.path) == norm(path) for f in fixes) or origin is not None and any(
                norm(f.finding.path) == norm(path) and f.finding.line <= origin <= (f.finding.end_line or f.finding.line)
                for f in fixes):
            return ""  # the rewritten code still reads a value while tracing there
    spans = ", ".join(sorted({f"{f.finding.rule} at lines {f.finding.line}-{f.finding.end_line or f.finding.line}"
                              for f in fixes}))
    return (f"; the fix of {spans} rewrote these lines: the traced path no longer runs them as they were (what "
            "stays of them runs only in eager mode), and the rewritten model's TorchScript export reads no tensor "
            "value in the code that fix wrote")


def _gone_note(decision: Any) -> str:
    return RUNS_NOTE if any(p.kind == "unfaithful" for p in decision.problems) else GONE_NOTE


def _proof(decision: Any, final: VerifyReport | None, facts: Facts) -> str:
    """What proved a kept fix; for a candidate, the verification that kept it."""
    if not decision.candidate or final is None:
        return decision.proof
    rule, located = decision.finding.rule, describe(decision.problems)
    if final.equivalent:
        return (f"verified: the rewritten model is equivalent to the original on all {facts.runs} input set(s); "
                f"its assumption held on them: {assumption(rule)}; fixes {located}")
    return (f"kept: the remaining difference is the original model's own, not this fix's (see the culprits); "
            f"its assumption is not proved: {assumption(rule)}; fixes {located}")


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path
