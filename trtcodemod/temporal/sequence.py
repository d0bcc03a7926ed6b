"""Verify a temporal model's export wrapper over a sequence of frames.

The reference is the original model in eager mode, its state on ``self``. Each run carries the
state the way a deployment does (``carry``) and is compared with the reference frame by frame:
every frame output, and every state output against the module's attribute after that frame.
Runs: the wrapper in torch eager; the wrapper exported with each ONNX exporter and run in ONNX
Runtime; the same graphs in TensorRT where it imports and a GPU exists (skipped with the reason
otherwise). A traced export bakes the first frame's state and branch into constants; the frames
after it, a reset and a resize are where that shows. Imports torch.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, Sequence

import torch

from trtcodemod.verify.backends import availability, open_onnxruntime, open_tensorrt, probe_environment
from trtcodemod.verify.compare import OutputComparison, compare_array, finite_or_none, worst
from trtcodemod.verify.export import export_model
from trtcodemod.verify.spec import DEFAULTS, EXPORTERS

from .carry import FrameResult, carry, eager_step, reference_run, valid_rows
from .contract import DeploymentContract
from .frames import FramePlan

OK, SKIPPED, FAILED = "ok", "skipped", "failed"
GRAPH_BACKENDS = ("onnxruntime-cpu", "tensorrt")


def export_axes(contract: DeploymentContract, dynamic_axes: dict[str, dict[int, str]]) -> dict[str, dict[int, str]]:
    """The exporters' dynamic axes: the config's on frame inputs, the contract's named dims on state."""
    axes = {name: dict(dynamic_axes[name]) for name in contract.inputs if name in dynamic_axes}
    for item in contract.optional:
        named = {axis: dim for axis, dim in enumerate(item.shape) if isinstance(dim, str)}
        if named:
            axes[item.name] = {**named, **axes.get(item.name, {})}
    for slot in contract.states:
        named = {axis: dim for axis, dim in enumerate(slot.shape) if isinstance(dim, str)}
        if named:
            axes[slot.input] = named
            axes[slot.output] = dict(named)
    return axes


def compare_frame(contract: DeploymentContract, expected: FrameResult, actual: FrameResult,
                  atol: float, rtol: float) -> dict[str, Any]:
    """One frame: every output, then every state output against the module's attribute."""
    row: dict[str, Any] = {"error": actual.error}
    checks: list[tuple[str, OutputComparison]] = []
    if not actual.error:
        for name, e, a in zip(contract.outputs, expected.outputs, actual.outputs):
            checks.append(("output", compare_array(name, e, a, atol, rtol)))
        for slot, e, a in zip(contract.states, expected.states, actual.states):
            if e is None:
                continue  # the module holds None after this frame: there is no value to compare
            if slot.role == "queue":
                a = valid_rows(contract, slot, actual.states)  # the padding rows hold nothing to compare
            checks.append(("state", compare_array(slot.output, e, a, atol, rtol)))
    max_abs, max_rel, passed = worst([c for _, c in checks])
    row.update(max_abs_err=finite_or_none(max_abs), max_rel_err=finite_or_none(max_rel),
               passed=passed and not row["error"],
               checks=[{"role": role, **c.to_json()} for role, c in checks])
    row["failing"] = [{"role": role, "name": c.name, "problem": c.problem} for role, c in checks if not c.passed]
    return row


def _run_row(name: str, backend: str, exporter: str | None, plan: FramePlan, contract: DeploymentContract,
             reference: list[FrameResult], results: list[FrameResult], atol: float, rtol: float) -> dict[str, Any]:
    frames = []
    for frame, expected, actual in zip(plan.frames, reference, results):
        frames.append({"index": frame.index, "kind": frame.kind,
                       **compare_frame(contract, expected, actual, atol, rtol)})
    abs_errs = [f["max_abs_err"] for f in frames if f["max_abs_err"] is not None]
    rel_errs = [f["max_rel_err"] for f in frames if f["max_rel_err"] is not None]
    first = next((f for f in frames if not f["passed"]), None)
    failure = None
    if first is not None:
        failure = {"frame": first["index"], "kind": first["kind"], "error": first["error"],
                   "failing": first["failing"]}
    return {"name": name, "backend": backend, "exporter": exporter, "status": OK, "reason": None,
            "frames": frames, "frames_passed": sum(f["passed"] for f in frames),
            "max_abs_err": max(abs_errs) if abs_errs else None, "max_rel_err": max(rel_errs) if rel_errs else None,
            "passed": first is None, "first_failure": failure,
            "verdict": "equivalent" if first is None else f"NOT EQUIVALENT from frame {first['index']}"}


def _other_row(name: str, backend: str, exporter: str | None, status: str, reason: str) -> dict[str, Any]:
    return {"name": name, "backend": backend, "exporter": exporter, "status": status, "reason": reason,
            "frames": [], "frames_passed": 0, "max_abs_err": None, "max_rel_err": None,
            "passed": status == SKIPPED, "first_failure": None, "verdict": status}


def verify_sequence(
    model: torch.nn.Module, wrapper: torch.nn.Module, contract: DeploymentContract, plan: FramePlan, *,
    dynamic_axes: dict[str, dict[int, str]] | None = None, exporters: Sequence[str] = EXPORTERS,
    backends: Sequence[str] = GRAPH_BACKENDS, atol: float = DEFAULTS["atol"], rtol: float = DEFAULTS["rtol"],
    opset: int = DEFAULTS["opset"], workdir: Path | None = None, name: str = "",
) -> dict[str, Any]:
    """The report of one model's wrapper over ``plan`` (see :func:`render_text` for its reading)."""
    report: dict[str, Any] = {
        "version": 1, "name": name or contract.model, "contract": contract.to_dict(),
        "frames": [f.describe() for f in plan.frames], "notes": list(plan.notes),
        "atol": atol, "rtol": rtol, "runs": [], "equivalent": False, "exit_code": 2, "error": None}
    reference = reference_run(model, plan, contract)
    broken = next((r.error for r in reference if r.error), None)
    if broken:
        report["error"] = f"the original model fails in eager mode: {broken}"
        return report
    if len(reference[0].outputs) != len(contract.outputs):
        report["error"] = (f"the original model returns {len(reference[0].outputs)} tensor(s); the contract names "
                           f"{len(contract.outputs)} output(s): {', '.join(contract.outputs)}")
        return report
    wrapper = wrapper.eval()
    eager = carry(eager_step(wrapper, contract), plan, contract)
    report["runs"].append(_run_row("wrapper (torch eager, state carried by the caller)", "torch-cpu", None,
                                   plan, contract, reference, eager, atol, rtol))
    feeds = [r.feed for r in eager if r.feed is not None and r.error is None]
    if not feeds:
        # The wrapper's own failure is a finding (exit 1), and there is no frame to trace it on.
        report["notes"].append("not exported: the wrapper fails on every frame in eager mode")
        report["exit_code"] = 1
        return report
    # Trace on a later frame where there is one: its state is real, and a first frame's 0/1
    # sizes would make torch.export specialise them.
    example = feeds[1] if len(feeds) > 1 else feeds[0]
    axes = export_axes(contract, dynamic_axes or {})
    probe = probe_environment() if "tensorrt" in backends else {}
    with tempfile.TemporaryDirectory(prefix="trtcodemod-frames-") as tmp, _stdout_to_stderr():
        folder = Path(workdir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for exporter in exporters:
            path = folder / f"wrapper.{exporter}.onnx"
            args = tuple(torch.from_numpy(example[n].copy()) for n in contract.engine_inputs())
            # The dynamo exporter converts dynamic_axes to dynamic_shapes, which name inputs only.
            exporter_axes = axes if exporter == "torchscript" else {
                k: v for k, v in axes.items() if k in contract.engine_inputs()}
            exported = export_model(wrapper, args, path, exporter=exporter, input_names=list(contract.engine_inputs()),
                                    output_names=list(contract.engine_outputs()), dynamic_axes=exporter_axes,
                                    opset=opset)
            for backend in backends:
                label = f"{backend} ({exporter})"
                reason = availability(backend, probe) if backend == "tensorrt" else None
                if reason:
                    report["runs"].append(_other_row(label, backend, exporter, SKIPPED, reason))
                elif exported.error:
                    report["runs"].append(_other_row(label, backend, exporter, FAILED, f"export failed: {exported.error}"))
                else:
                    report["runs"].append(_graph_run(label, backend, exporter, str(path), feeds, plan, contract,
                                                     reference, atol, rtol))
    ran = [r for r in report["runs"] if r["status"] != SKIPPED]
    report["equivalent"] = all(r["passed"] for r in ran)
    report["exit_code"] = 0 if report["equivalent"] else 1
    return report


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """The exporters and TensorRT's builder print to the process's stdout, where the JSON report goes."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _graph_run(label: str, backend: str, exporter: str, path: str, feeds: list[dict[str, Any]],
               plan: FramePlan, contract: DeploymentContract, reference: list[FrameResult],
               atol: float, rtol: float) -> dict[str, Any]:
    if backend == "onnxruntime-cpu":
        try:
            infer = open_onnxruntime(backend, path)
        except RuntimeError as exc:
            return _other_row(label, backend, exporter, FAILED, str(exc))
        return _run_row(label, backend, exporter, plan, contract, reference, carry(infer, plan, contract), atol, rtol)
    if backend == "tensorrt":
        try:
            # One profile covering every frame's shapes, from the frames the eager wrapper ran.
            with open_tensorrt(path, feeds) as infer:
                results = carry(infer, plan, contract)
        except Exception as exc:  # noqa: BLE001 - parser and builder errors are the finding
            return _other_row(label, backend, exporter, FAILED, f"{type(exc).__name__}: {str(exc).strip()[:800]}")
        return _run_row(label, backend, exporter, plan, contract, reference, results, atol, rtol)
    return _other_row(label, backend, exporter, FAILED, f"unknown backend {backend!r}")
