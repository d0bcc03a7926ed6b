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

from trtcodemod.verify.rewrite import locate as locate_layout
from trtcodemod.verify.spec import VerifySpec
from trtcodemod.verify.worker import run_task

from .facts import Facts, norm
from .locate import locate


def state_problems(report: dict[str, Any], facts: Facts | None) -> list[Any]:
    """TRT703 problems of the original (forward wrote module state and the graph differs)."""
    return [p for p in locate(report, "before", facts) if p.kind == "state" and p.rule == "TRT703"]


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

    return any(SUPERSEDES.get(a["rule"]) == problem.rule and a.get("landed") and problem.path
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
             original: dict[str, Any], facts: Facts, work: Path, progress: Callable[[str], None],
             ) -> dict[str, tuple[bytes, bytes]]:
    """Plan, apply and report the lift where TRT703 state is located; the files to write."""
    problems = [p for p in state_problems(original, facts) if not _in_refreshed_cache(p, report)]
    optional = optional_problems([str(locate_layout(spec.model_file).model_file)], facts)
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
                             "contract_markdown": data.get("contract_md"), "error": data.get("error")}
    report["lift"] = entry
    files: dict[str, str] = data.get("files") or {}
    model_path = next((p for p in files if p.endswith(".py") and not p.endswith("_export.py")), None)
    if model_path and any(norm(p) == norm(model_path) for p in sources):
        entry["refusals"].append(f"{model_path}: other fixes rewrite this file too; write them, then run migrate "
                                 "again to lift the state")
        files = {}
    if not files:
        # The export covers only the call the inputs function makes: say so at each optional input's test.
        why = "; ".join(entry["refusals"]) or entry.get("mismatch") or entry.get("error") or "not lifted"
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
    wrapper = next((Path(p).name for p in files if p.endswith("_export.py")), "the wrapper")
    proved = data.get("proof") or {}
    entry["proof"] = proved or None
    verdict = _wrapper_verdict(proved, wrapper)
    what = [f"`self.{s}`" for s in entry["states"]] + [f"`{p}` given and None" for p in entry["optional"]]
    proof = (f"lift-state (unsafe by label: see `trtcodemod explain TRT703`): the adapter equals the original on "
             f"{entry['frames']} frames, outputs and {', '.join(what)} bit for bit; {verdict}")
    messages = {"TRT703": "per-frame state lifted into inputs and outputs",
                "TRT721": "optional input lifted: always a tensor, with an indicator input and a blend"}
    for path, line, rule in lines:
        report["applied"].append({"rule": rule, "path": path, "line": line, "proof": proof,
                                  "message": messages[rule], "landed": True})
    report["remaining"] = [r for r in report["remaining"]
                           if not (r.get("rule") in ("TRT703", "TRT721") and r.get("kind") in ("state", "finding"))]
    report["info"] = [i for i in report.get("info", []) if not (i.get("rule") == "TRT721" and any(
        norm(i.get("path") or "") == norm(path) and i.get("line") == line for path, line, _ in lines))]
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
