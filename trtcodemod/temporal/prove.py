"""Prove a lifted model's export wrapper over frames, as ``migrate`` keeps the lift.

The lift itself (``apply.lift_model``) shows that the rewritten model's adapter equals the
original call by call. What deployment runs is the wrapper: this module builds it around the
rewritten model, runs the frame-sequence verifier (``sequence.verify_sequence``: the wrapper in
eager mode and its graphs from each exporter in ONNX Runtime, state carried by the caller,
against the original with its state on ``self``), and checks each exported graph against the
target TensorRT's parser. In-process: the lift worker (``task.py``) calls it. Imports torch.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import torch

from .apply import LiftOutcome, load_source
from .frames import FIRST_SCENE, make_frame_plan
from .sequence import verify_sequence
from .wrapper import build_wrapper


def prove_wrapper(path: Path, module: Any, build: Callable[[Any], Any], outcome: LiftOutcome, inputs: Any,
                  *, seed: int, dynamic_axes: Mapping[str, Mapping[int, str]], exporters: Sequence[str],
                  target: str, frames: int = 6, scene: int | None = None) -> dict[str, Any]:
    """The frame-sequence report of the lifted model's wrapper, with ``trt_issues`` per exporter.

    ``build(None)`` builds the original model, ``build(module)`` the same one from a rewritten
    module (after seeding, so the weights match); ``inputs`` is the config's inputs spec;
    ``scene``: the first scene's frames at least (``reach.frames_to_reach``).
    """
    import onnx

    from trtcodemod.trt.check import check_graph

    contract = outcome.contract
    assert contract is not None and outcome.ok
    lifted_module = load_source(outcome.files[str(path)], path, f"_trtcodemod_proved_{path.stem}")
    torch.manual_seed(seed)
    original = build(None)
    torch.manual_seed(seed)
    lifted = build(lifted_module)
    lifted.load_state_dict(original.state_dict())
    wrapper_file = next(Path(p) for p in outcome.files if p.endswith("_export.py"))
    wrapper_module = load_source(outcome.files[str(wrapper_file)], wrapper_file,
                                 f"_trtcodemod_proved_{wrapper_file.stem}")
    wrapper = build_wrapper(getattr(wrapper_module, contract.wrapper.rpartition(":")[2]), lifted)
    axes = {name: dict(dims) for name, dims in dynamic_axes.items()}
    plan = make_frame_plan(module, inputs, original, contract, axes, seed=seed, frames=frames,
                           scene=scene or FIRST_SCENE)
    with tempfile.TemporaryDirectory(prefix="trtcodemod-lift-proof-") as tmp:
        report = verify_sequence(original, wrapper, contract, plan, dynamic_axes=axes, exporters=exporters,
                                 backends=("onnxruntime-cpu", "tensorrt"), workdir=Path(tmp),
                                 name=contract.model)
        report["trt_issues"] = {}
        for exporter in exporters:
            graph = Path(tmp) / f"wrapper.{exporter}.onnx"
            if graph.is_file():
                issues = check_graph(onnx.load(str(graph)), target)
                report["trt_issues"][exporter] = [i.to_dict() for i in issues]
    return report


def summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """What ``migrate`` keeps of the proof: verdict, frames, runs, the first failure, TensorRT errors."""
    runs = [{"name": r["name"], "status": r["status"], "passed": r["passed"], "verdict": r["verdict"],
             "reason": r.get("reason"), "first_failure": r.get("first_failure")} for r in report.get("runs", [])]
    errors = {exporter: [i for i in issues if i["severity"] == "error"]
              for exporter, issues in report.get("trt_issues", {}).items()}
    return {"equivalent": bool(report.get("equivalent")), "error": report.get("error"),
            "frames": [f"{f['index']}:{f['kind']}" if isinstance(f, dict) else str(f)
                       for f in report.get("frames", [])],
            "runs": runs, "trt_errors": errors, "notes": list(report.get("notes", []))}
