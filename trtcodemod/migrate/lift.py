"""migrate's "lift state" fix for TRT703: per-frame state located at its lines becomes explicit.

Where the original's graph computes other values than its model and the observer saw forward
write module attributes (``locate.frozen_state``), the lift runs in a worker
(``trtcodemod.temporal.task``): the model's class gets ``forward_step`` and an adapter
``forward``, and ``<model>_export.py`` plus the deployment contract are written next to it.
The fix is unsafe by label (TRT703's ``explain`` names its assumptions); it is kept only when
the rewritten model equals the original frame by frame (outputs and state attributes, bit for
bit) on the worker's frames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from trtcodemod.verify.results import VerifyReport
from trtcodemod.verify.rewrite import locate as locate_layout
from trtcodemod.verify.spec import VerifySpec
from trtcodemod.verify.worker import run_task

from trtcodemod.evidence.facts import Facts, norm
from .locate import locate


def state_problems(report: VerifyReport, facts: Facts | None) -> list[Any]:
    """TRT703 problems of the original (forward wrote module state and the graph differs)."""
    return [p for p in locate(report, "before", facts)
            if p.kind == "state" and p.rule == "TRT703" and p.severity == "error"]


def compared_state(model_file: str, facts: Facts | None) -> list[Any]:
    """TRT703 problems the input sets cannot show: forward writes ``self.<s>`` and the code compares
    it with a number (``if self.frame > 10:``), so the export, which keeps the traced call's value,
    differs from the frame the comparison turns on, though the graph matched on the few calls observed."""
    from trtcodemod.temporal.reach import comparisons

    from .locate import Problem, carried_attributes, scratch_write

    carried = carried_attributes(facts) if facts is not None else set()
    # Scratch state (written before it is read on every observed call) holds no frame's value: nothing to compare.
    writes = [e for e in (facts.events if facts is not None else []) if e.get("kind") == "state_write"
              and not e.get("unchanged") and not scratch_write([e], carried, facts.runs)
              and norm(e.get("path") or "") == norm(model_file) and e.get("attribute")]
    if not writes:
        return []
    try:
        import libcst as cst

        source = Path(model_file).read_text(encoding="utf-8")
        classes = [s.name.value for s in cst.parse_module(source).body if type(s) is cst.ClassDef]
    except Exception:  # noqa: BLE001 - the main check reports a file it cannot read or parse
        return []
    out: dict[tuple[int, str], Any] = {}
    for event in writes:
        attr = event["attribute"]
        found = [c for cls in classes for c in comparisons(source, cls, [attr])]
        if found and (event["line"], attr) not in out:
            c = found[0]
            out[(event["line"], attr)] = Problem(
                "state", event["path"], event["line"], "(module state)", "TRT703",
                f"forward writes `self.{attr}`, and line {c.line} compares it with {c.number} "
                f"(`{c.code}`): the exported graph keeps the traced call's value, so it differs from the frame "
                "that comparison turns on, which the observed calls need not reach")
    return list(out.values())


#: TRT721's message on an optional forward input (its other case is state on self, TRT703's).
_OPTIONAL = "tests an optional forward input"


def optional_problems(files: list[str], facts: Facts | None) -> list[tuple[str, int]]:
    """TRT721 on an optional forward input, at lines the observed run executed: (path, line)."""
    from trtcodemod.engine import Options, check_source

    # The facts are evidence here as in migrate's own check: an input seen to be a tensor is one.
    options = Options(select=("TRT721",), scope="model", facts=facts)
    found = []
    for path in files:
        try:
            findings = check_source(Path(path).read_bytes(), path, options)
        except Exception:  # noqa: BLE001 - the static check's own errors are reported by the main check
            continue
        found += [(f.path, f.line) for f in findings
                  if _OPTIONAL in f.message and (facts is None or facts.ran(f.path, f.line))]
    return found


def _in_refreshed_cache(problem: Any, report: dict[str, Any]) -> bool:
    """A write that fills a cache TRT726's landed fix refreshes while tracing: no state to lift."""
    from .plan import SUPERSEDES

    return any(problem.rule in SUPERSEDES.get(a["rule"], ()) and a.get("landed") and problem.path
               and norm(a["path"]) == norm(problem.path) and a["line"] <= (problem.line or 0) <= a.get("end_line", 0)
               for a in report.get("applied", []))


def run_lift(spec: VerifySpec, work: Path) -> dict[str, Any] | None:
    """The worker's lift data, or None when it failed (its message under ``error``)."""
    from trtcodemod.temporal.task import LIFT_TASK

    layout = locate_layout(spec.model_file)
    request = {
        "task": LIFT_TASK, "model_file": str(layout.model_file), "import_root": str(layout.import_root),
        "module": layout.module, "extra_paths": [], "model": spec.model, "model_args": spec.model_args,
        "model_kwargs": dict(spec.model_kwargs), "inputs": spec.inputs, "seed": spec.seed, "threads": spec.threads,
        # The wrapper is proved over frames with the model's own export settings.
        "exporters": list(spec.exporters), "target": spec.rewrite.target,
        "dynamic_axes": {k: dict(v) for k, v in spec.dynamic_axes.items()},
    }
    outcome = run_task(request, work / "lift", spec.timeout, module="trtcodemod.temporal.task")
    data = outcome.data.get("lift")
    if outcome.status != "ok" or not data:
        return {"error": outcome.message or "the lift produced nothing"}
    return data


def add_lift(spec: VerifySpec, report: dict[str, Any], sources: dict[str, tuple[bytes, bytes]],
             original: VerifyReport, facts: Facts, work: Path, progress: Callable[[str], None],
             ) -> dict[str, tuple[bytes, bytes]]:
    """Plan, apply and report the lift where TRT703 state is located; the files to write."""
    problems = [p for p in state_problems(original, facts) if not _in_refreshed_cache(p, report)]
    model_file = str(locate_layout(spec.model_file).model_file)
    if not problems:
        problems = [p for p in compared_state(model_file, facts) if not _in_refreshed_cache(p, report)]
        # Not located by the verification (its graph matched on the input sets): a problem all the same.
        for p in problems:
            report["remaining"].append({"op": p.op, "source": p.source, "rule": p.rule, "message": p.message,
                                        "kind": "state", "exporter": None, "severity": "error"})
            report["exit_code"] = max(report.get("exit_code", 1), 1)
    optional = optional_problems([model_file], facts)
    if not problems and not optional:
        return sources
    progress("lifting per-frame state (TRT703) and optional inputs (TRT721)" if optional
             else "lifting per-frame state (TRT703)")
    data = run_lift(spec, work) or {}
    lines = sorted({(p.path, p.line, "TRT703") for p in problems if p.path} | {(*o, "TRT721") for o in optional})
    entry: dict[str, Any] = {"class": data.get("class"), "states": data.get("states", []),
                             "optional": data.get("optional", []),
                             "frames": data.get("frames", 0), "mismatch": data.get("mismatch"),
                             "refusals": list(data.get("refusals", [])), "files": [], "contract": data.get("contract"),
                             "contract_markdown": data.get("contract_md"), "error": data.get("error"),
                             "reach": data.get("reach"), "step": data.get("step", [])}
    report["lift"] = entry
    _name_step_findings(report, data, model_file)
    files: dict[str, str] = data.get("files") or {}
    model_path = next((p for p in files if p.endswith(".py") and not p.endswith("_export.py")), None)
    if model_path and any(norm(p) == norm(model_path) for p in sources):
        entry["refusals"].append(f"{model_path}: other fixes rewrite this file too; write them, then run migrate "
                                 "again to lift the state")
        files = {}
    wrapper = next((Path(p).name for p in files if p.endswith("_export.py")), "the wrapper")
    proved = data.get("proof") or {}
    verdict = _wrapper_verdict(proved, wrapper)
    if files and proved.get("equivalent") is not True:
        # Nothing unproved is written: the lift is reverted, in the dry run and with --write alike.
        _revert(report, entry, lines, verdict)
        files = {}
    if not files:
        # The export covers only the call the inputs function makes: say so at each optional input's test.
        why = "; ".join(entry["refusals"]) or entry.get("reverted") or entry.get("mismatch") or entry.get("error") \
            or "not lifted"
        for path, line, rule in lines:
            if rule == "TRT721":
                report["remaining"].append({
                    "op": "(optional input)", "source": f"{path}:{line}", "rule": rule, "kind": "finding",
                    "exporter": None, "severity": "warning",
                    "message": f"not lifted, so the export keeps the traced call's branch: {why}"})
        return sources
    from trtcodemod.report.diff import unified_diff

    new_sources = dict(sources)
    for path, text in files.items():
        old = Path(path).read_bytes() if Path(path).exists() else b""
        new_sources[path] = (old, text.encode("utf-8"))
        report["diff"] += unified_diff(path, old, text.encode("utf-8"))
    entry["files"] = sorted(files)
    report["changed_files"] = sorted({*report.get("changed_files", []), *files})
    entry["proof"] = proved or None
    what = [f"`self.{s}`" for s in entry["states"]] + [f"`{p}` given and None" for p in entry["optional"]]
    proof = (f"lift-state (unsafe by label: see `trtcodemod explain TRT703`): the adapter equals the original on "
             f"{entry['frames']} frames, outputs and {', '.join(what)} bit for bit; {verdict}")
    messages = {"TRT703": "per-frame state lifted into inputs and outputs",
                "TRT721": "optional input lifted: always a tensor, with an indicator input and a blend"}
    for path, line, rule in lines:
        report["applied"].append({"rule": rule, "path": path, "line": line, "proof": proof,
                                  "message": messages[rule], "landed": True})
    for fixed in (f for f in data.get("step", []) if f["fixed"]):
        # A rule's fix in the lifted forward_step (a branch on the state made a torch.where): a
        # candidate, kept because the rewrite and the wrapper are proved over the frames.
        report["applied"].append({"rule": fixed["rule"], "path": model_file, "line": fixed["line"] or 0,
                                  "message": fixed["said"], "landed": True,
                                  "proof": f"in the lifted forward_step, where the state is a tensor input: a "
                                           f"candidate, kept because the adapter equals the original on "
                                           f"{entry['frames']} frames and {verdict}"})
    report["remaining"] = [r for r in report["remaining"]
                           if not (r.get("rule") in ("TRT703", "TRT721") and r.get("kind") in ("state", "finding"))]
    report["info"] = [i for i in report.get("info", []) if not (i.get("rule") == "TRT721" and any(
        norm(i.get("path") or "") == norm(path) and i.get("line") == line for path, line, _ in lines))]
    for far in (data.get("reach") or {}).get("beyond", []):
        report["remaining"].append({"op": "(frames not reached)", "source": f"{model_file}:{far['line']}",
                                    "rule": "TRT703", "message": far["note"], "kind": "finding", "exporter": None,
                                    "severity": "warning"})
    if _wrapper_proved(proved):
        # The model's own forward keeps its state on self by design (its export still freezes it);
        # the wrapper is what is exported, and it follows the original over every frame.
        entry["superseded"] = [r["message"] for r in report["remaining"] if r.get("kind") == "unfaithful"]
        report.setdefault("after", {})["wrapper_faithful"] = True
        report["remaining"] = [r for r in report["remaining"] if r.get("kind") != "unfaithful"]
    else:
        for item in report["remaining"]:
            if item.get("kind") == "unfaithful":
                item["message"] += f"; the model's forward keeps its state on self by design; {verdict}"
        rule = lines[0][2] if lines else "TRT703"
        report["remaining"].append({"op": "(export wrapper)", "source": f"{wrapper}", "rule": rule,
                                    "message": verdict, "kind": "state", "exporter": None, "severity": "error"})
    after = report.get("after") or {}
    errors_left = [r for r in report["remaining"] if r.get("severity") == "error"]
    deployable = after.get("exported") and after.get("trt_errors") == 0 and report.get("equivalent")
    report["exit_code"] = 0 if deployable and not errors_left else max(report.get("exit_code", 1), 1)
    return new_sources


def _revert(report: dict[str, Any], entry: dict[str, Any], lines: list[tuple[str, int, str]], verdict: str) -> None:
    """Record a lift whose wrapper is not proved as reverted: in the applied list (not landed, and
    why), among the reverted fixes, and at the state problems it leaves where they were."""
    why = f"lift reverted (not written): {verdict}"
    entry["reverted"] = why
    for path, line, rule in lines:
        report["applied"].append({"rule": rule, "path": path, "line": line, "proof": why, "reverted": why,
                                  "message": "per-frame state lifted into inputs and outputs" if rule == "TRT703"
                                  else "optional input lifted", "landed": False})
        report["reverted"].append({"rule": rule, "path": path, "line": line, "why": why})
    for item in report["remaining"]:
        if item.get("kind") in ("unfaithful", "state") and item.get("rule") in (None, "TRT703"):
            item["message"] = f"{why}; {item['message']}"
    report["exit_code"] = max(report.get("exit_code", 1), 1)


def _name_step_findings(report: dict[str, Any], data: dict[str, Any], model_file: str) -> None:
    """Each decision on the state that the lift makes a tensor branch and no rule rewrites: at its line."""
    for found in data.get("step", []):
        if found["fixed"]:
            continue
        report["remaining"].append({"op": "(decision on lifted state)", "rule": found["rule"], "kind": "finding",
                                    "source": f"{model_file}:{found['line']}" if found["line"] else model_file,
                                    "message": found["refusal"] or found["said"], "exporter": None, "severity": "error"})
        report["exit_code"] = max(report.get("exit_code", 1), 1)


def _wrapper_proved(proof: dict[str, Any]) -> bool:
    """Equivalent over the frames on every run, and no TensorRT error in any exported graph."""
    return bool(proof) and proof.get("equivalent") is True and not any(proof.get("trt_errors", {}).values())


def _wrapper_verdict(proof: dict[str, Any], wrapper: str) -> str:
    """One sentence on the exported wrapper's frame-sequence proof, for the report."""
    if not proof:
        return f"{wrapper} was not verified over frames"
    if proof.get("error"):
        return f"{wrapper} could not be verified over frames: {proof['error']}"
    ran = [r for r in proof.get("runs", []) if r["status"] != "skipped"]
    frames = len(proof.get("frames", []))
    failed = next((r for r in ran if not r["passed"]), None)
    if failed is not None:
        first = failed.get("first_failure") or {}
        names = ", ".join(f["name"] for f in first.get("failing", [])) or failed.get("reason") or "-"
        return f"{wrapper} differs from the original in {failed['name']}: {failed['verdict']} ({names})"
    errors = {exp: issues for exp, issues in proof.get("trt_errors", {}).items() if issues}
    if errors:
        ops = sorted({i["op"] for issues in errors.values() for i in issues})
        return f"{wrapper} follows the original over {frames} frames, but its graph has TensorRT errors: {', '.join(ops)}"
    return (f"{wrapper} follows the original over {frames} frames (state carried by the caller) in "
            + ", ".join(r["name"] for r in ran) + "; no TensorRT error in its graph")
