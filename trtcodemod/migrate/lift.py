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


def run_lift(spec: VerifySpec, work: Path) -> dict[str, Any] | None:
    """The worker's lift data, or None when it failed (its message under ``error``)."""
    from trtcodemod.temporal.task import LIFT_TASK

    layout = locate_layout(spec.model_file)
    request = {
        "task": LIFT_TASK, "model_file": str(layout.model_file), "import_root": str(layout.import_root),
        "module": layout.module, "extra_paths": [], "model": spec.model, "model_args": spec.model_args,
        "model_kwargs": dict(spec.model_kwargs), "inputs": spec.inputs, "seed": spec.seed, "threads": spec.threads,
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
    problems = state_problems(original, facts)
    if not problems:
        return sources
    progress("lifting per-frame state (TRT703)")
    data = run_lift(spec, work) or {}
    lines = sorted({(p.path, p.line) for p in problems if p.path})
    entry: dict[str, Any] = {"class": data.get("class"), "states": data.get("states", []),
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
        return sources
    from trtcodemod.report.diff import unified_diff

    new_sources = dict(sources)
    for path, text in files.items():
        old = Path(path).read_bytes() if Path(path).exists() else b""
        new_sources[path] = (old, text.encode("utf-8"))
        report["diff"] += unified_diff(path, old, text.encode("utf-8"))
    entry["files"] = sorted(files)
    report["changed_files"] = sorted({*report.get("changed_files", []), *files})
    proof = (f"lift-state (unsafe by label: see `trtcodemod explain TRT703`): the adapter equals the original on "
             f"{entry['frames']} frames, outputs and `self.{', self.'.join(entry['states'])}` bit for bit; the "
             f"exported wrapper's frame sequence is verified against the contract separately")
    for path, line in lines:
        report["applied"].append({"rule": "TRT703", "path": path, "line": line, "proof": proof,
                                  "message": "per-frame state lifted into inputs and outputs", "landed": True})
    report["remaining"] = [r for r in report["remaining"]
                           if not (r.get("rule") == "TRT703" and r.get("kind") in ("state", "finding"))]
    wrapper = next((Path(p).name for p in files if p.endswith("_export.py")), "the wrapper")
    for item in report["remaining"]:
        if item.get("kind") == "unfaithful":
            # The adapter keeps the state on self, as the original did: its own export still freezes it.
            item["message"] += (f"; the model's forward keeps its state on self by design: export {wrapper}, whose "
                                "frame-sequence verification follows the contract")
    return new_sources
