"""Backends: torch eager, ONNX Runtime (CPU, CUDA, TensorRT EPs), TensorRT via polygraphy.

Each runner takes input sets (``{name: ndarray}``) and returns a ``BackendRun``: ``ok``
with outputs per set (a set may still carry its own error: a graph that baked a shape
fails only on the resized set), or ``failed`` with the error. Whether a backend can run
at all is decided from an environment probe taken in a worker: ``skipped`` plus a reason.
Runners execute inside worker processes, so a segfaulting backend cannot take the run down.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .latency import summarize, time_calls

OK, SKIPPED, FAILED = "ok", "skipped", "failed"
ORT_PROVIDERS = {
    "onnxruntime-cpu": "CPUExecutionProvider",
    "onnxruntime-cuda": "CUDAExecutionProvider",
    "onnxruntime-tensorrt": "TensorrtExecutionProvider",
}
GRAPH_BACKENDS = ("onnxruntime-cpu", "onnxruntime-cuda", "onnxruntime-tensorrt", "tensorrt")
EAGER_BACKENDS = ("torch-cpu", "torch-cuda")


@dataclass
class BackendRun:
    status: str
    error: str | None = None
    #: Per input set: the outputs, or None when that set failed (see ``set_errors``).
    outputs: list[list[np.ndarray] | None] = field(default_factory=list)
    set_errors: list[str | None] = field(default_factory=list)
    latency_ms: dict[str, float] | None = None
    note: str | None = None


# --- availability ---------------------------------------------------------------------


def probe_environment() -> dict[str, Any]:
    """What this machine can run (called in a worker; imports torch, onnxruntime, tensorrt)."""
    info: dict[str, Any] = {}
    try:
        import torch

        # A plain str: torch's own TorchVersion would make the parent import torch to unpickle it.
        info["torch"] = str(torch.__version__)
        info["cuda"] = bool(torch.cuda.is_available())
        info["cuda_device"] = torch.cuda.get_device_name(0) if info["cuda"] else None
    except Exception as exc:  # noqa: BLE001 - a probe reports, it does not fail
        info["torch_error"] = f"{type(exc).__name__}: {exc}"
        info["cuda"] = False
    try:
        import onnxruntime

        info["onnxruntime"] = onnxruntime.__version__
        info["ort_providers"] = list(onnxruntime.get_available_providers())
    except Exception as exc:  # noqa: BLE001
        info["onnxruntime_error"] = f"{type(exc).__name__}: {exc}"
        info["ort_providers"] = []
    if importlib.util.find_spec("tensorrt") is None:
        info["tensorrt_error"] = "tensorrt is not installed"
    else:
        try:
            import tensorrt

            info["tensorrt"] = tensorrt.__version__
        except Exception as exc:  # noqa: BLE001 - the PyPI stub fails here
            info["tensorrt_error"] = f"tensorrt does not import ({type(exc).__name__}: {str(exc)[:200]})"
    if importlib.util.find_spec("polygraphy") is None:
        info["polygraphy_error"] = "polygraphy is not installed"
    return info


def availability(backend: str, probe: dict[str, Any]) -> str | None:
    """None when ``backend`` can run here, else the reason it is skipped."""
    if backend == "torch-cpu":
        return probe.get("torch_error")
    if backend == "torch-cuda":
        return None if probe.get("cuda") else "no CUDA device (torch.cuda.is_available() is False)"
    if backend in ORT_PROVIDERS:
        if "onnxruntime_error" in probe:
            return f"onnxruntime does not import: {probe['onnxruntime_error']}"
        provider = ORT_PROVIDERS[backend]
        if provider not in probe.get("ort_providers", []):
            hint = "" if backend == "onnxruntime-cpu" else " (install onnxruntime-gpu on a CUDA machine)"
            return f"onnxruntime has no {provider}{hint}"
        return None
    if backend == "tensorrt":
        if "tensorrt_error" in probe:
            return probe["tensorrt_error"]
        if "polygraphy_error" in probe:
            return probe["polygraphy_error"]
        if not probe.get("cuda"):
            return "no CUDA device"
        return None
    return f"unknown backend {backend!r}"


# --- graph runners (no torch) -----------------------------------------------------------


def _run_sets(
    infer: Callable[[dict[str, np.ndarray]], list[np.ndarray]],
    input_sets: Sequence[dict[str, np.ndarray]], runs: int, warmup: int, budget: float | None = None,
) -> BackendRun:
    run = BackendRun(status=OK)
    for feed in input_sets:
        try:
            run.outputs.append([np.asarray(o) for o in infer(feed)])
            run.set_errors.append(None)
        except Exception as exc:  # noqa: BLE001 - one failing set is a finding, not a crash
            run.outputs.append(None)
            run.set_errors.append(f"{type(exc).__name__}: {str(exc).strip()[:500]}")
    if run.outputs and run.outputs[0] is not None and runs > 0:
        run.latency_ms = summarize(time_calls(lambda: infer(input_sets[0]), runs, warmup, budget=budget))
    if all(o is None for o in run.outputs):
        run.status, run.error = FAILED, run.set_errors[0]
    return run


def session_options() -> Any:
    """ONNX Runtime's options for the backends' sessions: quiet, at the workers' thread count
    (``TRTCODEMOD_THREADS``). A replay that must round as the backend did opens its session so too."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    threads = int(os.environ.get("TRTCODEMOD_THREADS", "0"))
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    return options


def open_onnxruntime(backend: str, onnx_path: str) -> Callable[[dict[str, np.ndarray]], list[np.ndarray]]:
    """An ONNX Runtime session for one execution provider (CPU as the fallback for GPU EPs), as a
    function from a feed to the outputs in graph order; raises RuntimeError when it cannot start."""
    import onnxruntime as ort

    provider = ORT_PROVIDERS[backend]
    providers = [provider] if provider == "CPUExecutionProvider" else [provider, "CPUExecutionProvider"]
    try:
        session = ort.InferenceSession(onnx_path, sess_options=session_options(), providers=providers)
    except Exception as exc:  # noqa: BLE001
        raise RuntimeError(f"session creation failed: {type(exc).__name__}: {str(exc)[:800]}") from exc
    if provider not in session.get_providers():
        raise RuntimeError(f"{provider} was not used (session providers: {session.get_providers()})")
    wanted = [i.name for i in session.get_inputs()]
    out_names = [o.name for o in session.get_outputs()]

    def infer(feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        missing = [n for n in wanted if n not in feed]
        if missing:
            raise KeyError(f"graph input(s) {missing} not among the model inputs {list(feed)}")
        return session.run(out_names, {n: feed[n] for n in wanted})

    return infer


def run_onnxruntime(backend: str, onnx_path: str, input_sets: Sequence[dict[str, np.ndarray]],
                    runs: int, warmup: int, budget: float | None = None) -> BackendRun:
    """Run an ONNX file with one ONNX Runtime execution provider on every input set."""
    try:
        infer = open_onnxruntime(backend, onnx_path)
    except RuntimeError as exc:
        return BackendRun(status=FAILED, error=str(exc))
    return _run_sets(infer, input_sets, runs, warmup, budget)


def _trt_profile(input_sets: Sequence[dict[str, np.ndarray]], names: Sequence[str]) -> Any:
    """One optimization profile covering every input set's shapes (opt = the traced set)."""
    from polygraphy.backend.trt import Profile

    profile = Profile()
    for name in names:
        shapes = [s[name].shape for s in input_sets if name in s]
        lo = tuple(min(d) for d in zip(*shapes))
        hi = tuple(max(d) for d in zip(*shapes))
        profile.add(name, min=lo, opt=shapes[0], max=hi)
    return profile


@contextlib.contextmanager
def open_tensorrt(onnx_path: str, input_sets: Sequence[dict[str, np.ndarray]]
                  ) -> Iterator[Callable[[dict[str, np.ndarray]], list[np.ndarray]]]:
    """A TensorRT engine built with polygraphy (FP32, TF32 off, one profile covering every input
    set's shapes), as a function from a feed to the outputs in graph order."""
    from polygraphy.backend.trt import CreateConfig, EngineFromNetwork, NetworkFromOnnxPath, TrtRunner

    import onnx

    graph = onnx.load(onnx_path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    names = [i.name for i in graph.input if i.name not in initializers]
    config = CreateConfig(tf32=False, profiles=[_trt_profile(input_sets, names)])
    build_engine = EngineFromNetwork(NetworkFromOnnxPath(onnx_path), config=config)
    with TrtRunner(build_engine) as runner:
        out_names = [o.name for o in graph.output]

        def infer(feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            result = runner.infer(feed_dict={n: np.ascontiguousarray(feed[n]) for n in names})
            # Copy: polygraphy may reuse its host buffers on the next call.
            return [np.array(result[n]) for n in out_names]

        yield infer


def run_tensorrt(onnx_path: str, input_sets: Sequence[dict[str, np.ndarray]], runs: int, warmup: int,
                 budget: float | None = None) -> BackendRun:
    """Build a TensorRT engine and run every input set."""
    try:
        with open_tensorrt(onnx_path, input_sets) as infer:
            return _run_sets(infer, input_sets, runs, warmup, budget)
    except Exception as exc:  # noqa: BLE001 - parser/builder errors are the finding
        return BackendRun(status=FAILED, error=f"{type(exc).__name__}: {str(exc).strip()[:800]}",
                          note=traceback.format_exc()[-2000:])


def run_graph_backend(backend: str, onnx_path: str, input_sets: Sequence[dict[str, np.ndarray]],
                      runs: int, warmup: int, budget: float | None = None) -> BackendRun:
    """Run ``onnx_path`` on ``backend``; ``budget``: seconds of timing (``latency.time_calls``)."""
    if backend in ORT_PROVIDERS:
        return run_onnxruntime(backend, onnx_path, input_sets, runs, warmup, budget)
    if backend == "tensorrt":
        return run_tensorrt(onnx_path, input_sets, runs, warmup, budget)
    return BackendRun(status=FAILED, error=f"unknown graph backend {backend!r}")


# --- eager (torch) ---------------------------------------------------------------------


def run_eager(model: Any, input_sets: Sequence[dict[str, Any]], device: str, runs: int, warmup: int,
              flatten: Callable[[Any], list[tuple[str, Any]]],
              budget: float | None = None) -> tuple[BackendRun, list[str]]:
    """Run ``model`` in eager mode on ``device``; inputs are cloned per call (forward may mutate them)."""
    import torch

    model = model.to(device)
    sync = torch.cuda.synchronize if device.startswith("cuda") else None

    def call(feed: dict[str, Any]) -> Any:
        with torch.no_grad():
            return model(**{k: v.to(device).clone() for k, v in feed.items()})

    run, names = BackendRun(status=OK), []
    for feed in input_sets:
        try:
            flat = flatten(call(feed))
            names = names or [n for n, _ in flat]
            run.outputs.append([t.detach().cpu().numpy() for _, t in flat])
            run.set_errors.append(None)
        except Exception as exc:  # noqa: BLE001
            run.outputs.append(None)
            run.set_errors.append(f"{type(exc).__name__}: {str(exc).strip()[:500]}")
    if run.outputs and run.outputs[0] is not None and runs > 0:
        feed = {k: v.to(device) for k, v in input_sets[0].items()}
        run.latency_ms = summarize(time_calls(lambda: call(feed), runs, warmup, sync, budget))
    if all(o is None for o in run.outputs):
        run.status, run.error = FAILED, run.set_errors[0]
    return run, names
