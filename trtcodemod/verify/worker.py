"""The child process: load a model, build it, make inputs, run eager, export; or run a backend.

The parent writes ``request.pkl`` into a task folder and starts the worker on it: a fork of
its fork server, which imported torch once (``forkserver.py``), or where there is none
``python -m trtcodemod.verify.worker FOLDER``; the child writes ``result.pkl`` (plain
dicts, numpy arrays, no torch objects: the parent never imports torch) after every stage,
so a segfault or a hang still leaves what was done and names the stage it died in.
"""

from __future__ import annotations

import contextlib
import copy
import os
import pickle
import sys
import signal
import subprocess
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from .forkserver import end_with_parent
from .userimport import import_user_module

MODEL_TASK, BACKEND_TASK = "model", "backend"


class Checkpoint:
    """The result so far, written atomically after each stage."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "result.pkl"
        self.data: dict[str, Any] = {"stage": "start", "done": False}

    def stage(self, name: str) -> None:
        self.data["stage"] = name
        self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            pickle.dump(self.data, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self.path)


# --- loading user code ------------------------------------------------------------------


def build_model(module: Any, name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
    """``name`` (dotted within the module) is an ``nn.Module`` class or a callable returning a module,
    called with ``args``/``kwargs`` (``--model 'Net(3, 8)'``, config ``args``/``kwargs``)."""
    import torch

    obj = module
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise AttributeError(f"{module.__name__} has no attribute {name!r} (--model)")
    if not callable(obj):
        raise TypeError(f"--model {name}: not callable")
    model = obj(*args, **(kwargs or {}))
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"--model {name}() returned {type(model).__name__}, not a torch.nn.Module")
    return model.eval()


def flatten_outputs(value: Any, prefix: str = "output") -> list[tuple[str, Any]]:
    """Tensors of a (nested) output in the exporters' order, with readable names."""
    import torch

    if isinstance(value, torch.Tensor):
        return [(prefix, value)]
    if isinstance(value, dict):
        return [item for k, v in value.items() for item in flatten_outputs(v, f"{prefix}.{k}")]
    if isinstance(value, (tuple, list)):
        return [item for i, v in enumerate(value) for item in flatten_outputs(v, f"{prefix}.{i}")]
    return []  # None and Python scalars are not graph outputs


# --- tasks ----------------------------------------------------------------------------------


def _model_task(req: dict[str, Any], cp: Checkpoint) -> None:
    import numpy as np
    import torch

    from .backends import probe_environment, run_eager
    from .export import export_model
    from .exportbranch import export_branch_reference, run_reference
    from .inputs import make_input_sets

    if req.get("probe"):
        cp.stage("probe")
        cp.data["probe"] = probe_environment()
    seed = req["seed"]
    torch.manual_seed(seed)
    np.random.seed(seed)
    # Deterministic, comparable numerics: no TF32 on GPUs.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    cp.stage("import")
    module = import_user_module(req["model_file"], req["import_root"], req["module"], req.get("extra_paths", []))
    cp.stage("build")
    torch.manual_seed(seed)
    model = build_model(module, req["model"], tuple(req.get("model_args", ())), dict(req.get("model_kwargs", {})))
    if req.get("state_dict_path"):
        cp.stage("load_state_dict")
        state = torch.load(req["state_dict_path"], map_location="cpu", weights_only=True)
        _load_weights(model, state)
    if req.get("save_state_dict"):
        torch.save(_weights(model.state_dict()), req["save_state_dict"])
    if req.get("probe"):
        from .userfiles import imported_user_files

        # The user's modules the model file imported (a wrapper's model lives in one): the
        # rewrite covers them too, instead of leaving them silently untouched.
        cp.data["user_files"] = imported_user_files(sys.modules.values(), list(req.get("user_roots", ())))

    cp.stage("inputs")
    if req.get("input_sets") is None:
        made = make_input_sets(module, req["inputs"], model, req["dynamic_axes"], seed)
        names, sets, notes = made.names, made.sets, made.notes
        cp.data["input_names"] = names
        cp.data["input_sets"] = [{k: v.detach().cpu().numpy() for k, v in s.items()} for s in sets]
        cp.data["input_notes"] = notes
    else:
        names = list(req["input_names"])
        sets = [{k: torch.from_numpy(np.array(v)) for k, v in s.items()} for s in req["input_sets"]]
    if req.get("stretch"):
        from .inputs import stretched_set

        # A second trace at other sizes (migrate's evidence for a size-derived bake): the traced
        # set with every dynamic axis at 2n + 1 (the set the observer ran last), or at 2n.
        stretched, cp.data["stretched"] = stretched_set(sets[0], req["dynamic_axes"], seed, how=req["stretch"])
        sets = [{n: stretched[n] for n in names}]

    if req.get("diverge"):
        from .diverge import locate_divergence

        # Where the graph of the traced set first leaves eager mode (a graph that differs
        # even there): one more forward, recorded, and the graph with every node's output.
        cp.stage("divergence")
        ask = req["diverge"]
        args = tuple(sets[0][n] for n in names)
        with export_branch_reference():  # the same branch as the eager reference it explains
            cp.data["divergence"] = locate_divergence(model, args, names, ask["onnx_path"], tuple(
                req.get("user_roots", ())), ask["atol"], ask["rtol"]).to_json()
        return

    if req.get("picks"):
        from .picks import replay_picks

        # Sets whose graph picked otherwise at an arg-max: eager mode's picks on each, and the
        # graph's outputs with them when every pick that differs is between tied values (one answer a set).
        cp.stage("arg-max picks")
        ask = req["picks"]
        cp.data["picks"] = []
        for one in sets:
            args = tuple(one[n] for n in names)
            try:
                with export_branch_reference():  # the same branch as the eager reference it is compared with
                    found = replay_picks(model, args, names, ask["onnx_path"], tuple(req.get("user_roots", ())),
                                         ask["atol"], ask["rtol"])
            except Exception as exc:  # noqa: BLE001 - one set's failed replay leaves the others theirs
                found = {"picks": 0, "why": f"the replay failed: {type(exc).__name__}: {exc}"}
            cp.data["picks"].append(found)
        return

    if req.get("float64"):
        # The comparison's reference for eager mode's own rounding (compare.admitted_by_exact).
        cp.stage("float64")
        with export_branch_reference():  # the same branch as the eager reference
            ties = req["float64"] if isinstance(req["float64"], dict) else None
            tied: list[dict[str, Any] | None] = []
            cp.data["float64"] = run_float64(model, sets, flatten_outputs, ties, tied)
            cp.data["float64_tied"] = tied
        return

    cp.data["eager"] = {}
    output_names: list[str] = []
    for device in req.get("eager_devices", ["cpu"]):
        if device == "cuda" and not torch.cuda.is_available():
            continue
        cp.stage(f"eager ({device})")
        # A model that asks whether it is being exported is run with "yes" for an answer: the
        # graph computes that branch, so the reference does too (exportbranch.py).
        (run, names_here), note = run_reference(lambda: run_eager(
            model, sets, device, req["runs"], req["warmup"], flatten_outputs, req.get("timing_budget")))
        if note and "reference" not in cp.data:
            cp.data["reference"] = note
        output_names = output_names or names_here
        cp.data["eager"][device] = run
        model = model.to("cpu")
    output_names = output_names or list(req.get("output_names", []))
    cp.data["output_names"] = output_names

    cp.data["exports"] = {}
    args = tuple(sets[0][n] for n in names)
    for exporter in req.get("exporters", []):
        cp.stage(f"export ({exporter})")
        torch.manual_seed(req.get("export_seed", seed))
        path = Path(req["out_dir"]) / f"{req['role']}.{exporter}.onnx"
        cp.data["exports"][exporter] = asdict(export_model(
            model, args, path, exporter=exporter, input_names=names,
            output_names=output_names or ["output"], dynamic_axes=req["dynamic_axes"],
            opset=req["opset"], user_roots=tuple(req.get("user_roots", ())),
        ))


def run_float64(model: Any, sets: list[dict[str, Any]], flatten: Any, ties: dict[str, float] | None = None,
                tied: list[dict[str, Any] | None] | None = None) -> list[list[Any] | None]:
    """Per input set, the outputs of ``model`` with its floating parameters, buffers and inputs in
    float64 (None for a set it fails on).

    A model that mixes in float32 tensors of its own (``coords_grid(...).float()``, a
    ``torch.tensor([0.485, ...])`` mean) stops there ("expected scalar type Float but found Double");
    such a set runs once more with float64 as the default dtype and every float32, float16 or bfloat16
    tensor an operation takes or returns raised to float64 (:func:`_float64_everywhere`): the model's
    own casts to float32 no longer round. None only when that run fails too.

    With ``ties`` (``{"atol", "rtol"}``) and a list ``tied``, each set's float32 picks are recorded first
    and ``tied`` gets, per set, the float64 outputs with eager float32's picks taken where its values tie
    (``{"outputs", "rows"}``, :mod:`verify.tiedref`), or None where no float64 pick differs at tied values.
    """
    import torch

    from .tiedref import TiedPicks, record_picks

    recorded = []
    if ties is not None and tied is not None:
        try:
            # A copy: a model that changes its own state in forward (a frame counter, running statistics)
            # meets the float64 runs as it would have without this one.
            float32 = copy.deepcopy(model)
        except Exception:  # noqa: BLE001 - an uncopyable model: the plain float64 run only
            float32 = None
        for feed in sets if float32 is not None else []:
            try:
                recorded.append(record_picks(lambda: float32(**feed)))
            except Exception:  # noqa: BLE001 - no float32 picks to replay: the plain float64 run only
                recorded.append([])
        del float32
    model = model.double()
    out: list[list[Any] | None] = []
    for k, feed in enumerate(sets):
        doubled = {k: v.double() if v.is_floating_point() else v.clone() for k, v in feed.items()}
        picks = recorded[k] if k < len(recorded) else []
        seen = TiedPicks(picks, ties["atol"], ties["rtol"], replace=False) if picks and ties is not None else None
        result = _float64_once(model, doubled, seen)
        out.append(None if result is None else [t.detach().cpu().numpy() for _, t in flatten(result)])
        if tied is None:
            continue
        if result is None or seen is None or not seen.taken:
            tied.append(None)
            continue
        replay = TiedPicks(picks, ties["atol"], ties["rtol"])
        again = _float64_once(model, doubled, replay)
        tied.append(None if again is None or not replay.taken else
                    {"outputs": [t.detach().cpu().numpy() for _, t in flatten(again)], "rows": replay.taken})
    return out


def _float64_once(model: Any, doubled: dict[str, Any], picks: Any = None) -> Any:
    """``model(**doubled)`` in float64 (:func:`run_float64`), under ``picks``' mode when given (outside the
    raising to float64, so that a pick sees float64 operands); None if it fails."""
    import torch

    def replaying() -> Any:
        return picks.mode() if picks is not None else contextlib.nullcontext()

    try:
        with torch.no_grad(), replaying():
            return model(**doubled)
    except Exception:  # noqa: BLE001 - float32 of the model's own: try with every float raised
        if picks is not None:
            picks.restart()
        try:
            with torch.no_grad(), replaying(), _float64_everywhere():
                return model(**doubled)
        except Exception:  # noqa: BLE001 - no float64 reference for this set: plain tolerance there
            return None


@contextlib.contextmanager
def _float64_everywhere() -> Iterator[None]:
    """float64 as the default dtype, and every float32, float16 or bfloat16 tensor an operation takes or
    returns raised to float64: a model's explicit ``.float()`` and ``dtype=torch.float32`` compute in
    float64 too. Complex and integer tensors are left as they are."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._pytree import tree_map

    lower = (torch.float32, torch.float16, torch.bfloat16)

    def raise_float(value: Any) -> Any:
        return value.double() if isinstance(value, torch.Tensor) and value.dtype in lower else value

    class Float64(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            args, kwargs = tree_map(raise_float, (args, kwargs or {}))
            return tree_map(raise_float, func(*args, **kwargs))

    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with Float64():
            yield
    finally:
        torch.set_default_dtype(default)


def _backend_task(req: dict[str, Any], cp: Checkpoint) -> None:
    from .backends import run_graph_backend

    cp.stage(f"run ({req['backend']})")
    cp.data["run"] = run_graph_backend(req["backend"], req["onnx_path"], req["input_sets"], req["runs"], req["warmup"],
                                         req.get("timing_budget"))


def main(argv: list[str] | None = None) -> int:
    return worker_main({MODEL_TASK: _model_task, BACKEND_TASK: _backend_task}, argv)


def worker_main(tasks: dict[str, Any], argv: list[str] | None = None) -> int:
    """Run the task named in ``request.pkl`` (one of ``tasks``); failures go back as data."""
    end_with_parent()
    folder = Path((argv or sys.argv[1:])[0])
    with open(folder / "request.pkl", "rb") as fh:
        req = pickle.load(fh)
    cp = Checkpoint(folder)
    if req.get("threads"):
        # Before torch or onnxruntime load: both read these when they start their pools.
        for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TRTCODEMOD_THREADS"):
            os.environ[variable] = str(req["threads"])
    try:
        task = tasks.get(req["task"])
        if task is None:
            raise ValueError(f"unknown task {req['task']!r}")
        task(req, cp)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent as data
        cp.data["error"] = f"{type(exc).__name__}: {str(exc).strip()[:1000]}"
        cp.data["traceback"] = traceback.format_exc()[-6000:]
        cp.save()
        return 3
    cp.data["done"] = True
    cp.save()
    return 0


# --- the parent's side ------------------------------------------------------------------


@dataclass
class TaskOutcome:
    """How a worker ended: ``ok``, ``error`` (an exception), ``crashed`` or ``timeout``."""

    status: str
    data: dict[str, Any]
    message: str = ""
    seconds: float = 0.0
    log: str = ""

    @property
    def stage(self) -> str:
        return str(self.data.get("stage", "start"))


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def run_task(request: dict[str, Any], folder: Path, timeout: float,
             module: str = "trtcodemod.verify.worker") -> TaskOutcome:
    """Run one task in a worker of its own; never raises for what happens inside it.

    ``module`` is the entry point (``python -m``, or its ``main([folder])`` in a fork); it reads
    ``request.pkl`` and writes ``result.pkl`` through ``worker_main`` (``trtcodemod.migrate.observe``
    is another).
    """
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "request.pkl", "wb") as fh:
        pickle.dump(request, fh, protocol=pickle.HIGHEST_PROTOCOL)
    log_path = folder / "worker.log"
    env = {**os.environ, "PYTHONFAULTHANDLER": "1", "PYTHONUNBUFFERED": "1", "TRTCODEMOD_PARENT_PID": str(os.getpid())}
    start = time.perf_counter()
    code, timed_out = _run_worker(module, folder, log_path, env, timeout, request.get("threads"), request)
    seconds = time.perf_counter() - start
    data: dict[str, Any] = {}
    try:
        with open(folder / "result.pkl", "rb") as fh:
            data = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError):
        pass
    log_text = _tail(log_path)
    stage = data.get("stage", "start")
    if timed_out:
        return TaskOutcome("timeout", data, f"timed out after {timeout:g} s during {stage}", seconds, log_text)
    if code < 0:
        return TaskOutcome("crashed", data, f"crashed with {_signal_name(code)} during {stage}", seconds, log_text)
    if data.get("error"):
        return TaskOutcome("error", data, f"{data['error']} (during {stage})", seconds, log_text)
    if code != 0 or not data.get("done"):
        return TaskOutcome("crashed", data, f"exited with code {code} during {stage}", seconds, log_text)
    return TaskOutcome("ok", data, "", seconds, log_text)


def _run_worker(module: str, folder: Path, log_path: Path, env: dict[str, str], timeout: float,
                threads: Any, request: dict[str, Any] | None = None) -> tuple[int, bool]:
    """Run ``module`` on ``folder`` in its own session: ``(exit code, timed out)``.

    A fork of the model server for ``request``'s import (the model's modules already imported,
    ``modelserver.py``), else of this process's fork server (torch already imported,
    ``forkserver.py``) where there is one; a fresh interpreter otherwise.
    """
    from .forkserver import STATS, ServerGone, StartTimeout, server
    from .modelserver import model_server

    top = server(threads)
    # The limit is the task's: starting this process's fork server (torch imported once, for
    # every task after) is not part of it; a model server's import is (the worker's own import).
    began = time.monotonic()
    handle, pid = top, 0
    if top is not None:
        model = model_server(top, request or {}, env)
        if model is not None:
            try:
                pid, handle = model.start(module, str(folder), str(log_path), env, timeout), model
                STATS["preloaded_forks"] += 1
            except StartTimeout:
                # Still importing the model when the task's time ran out: what the worker's own
                # import would have been.
                model.kill()
                Checkpoint(folder).stage("import")
                return -signal.SIGKILL, True
            except ServerGone:
                pid = 0  # its preload failed: the task imports the model itself, as before
        if not pid:
            try:
                handle, pid = top, top.start(module, str(folder), str(log_path), env)
            except ServerGone:
                handle = None
    if handle is not None:
        code = handle.wait(pid, max(timeout - (time.monotonic() - began), 0.0))
        if code is not None:
            return code, False
        _kill_group(pid)
        code = handle.wait(pid, 5.0)
        if code is None:  # killed before it made its own session (a limit of a second or so)
            _kill(pid)
            code = handle.wait(pid, None)
        return (code if code is not None else -signal.SIGKILL), True
    STATS["fresh"] += 1
    with open(log_path, "wb") as log:
        # A new session so a timeout can end the worker and anything it started.
        proc = subprocess.Popen([sys.executable, "-m", module, str(folder)],
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            return proc.wait(), True


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tail(path: Path, limit: int = 4000) -> str:
    try:
        text = path.read_bytes()[-200_000:].decode("utf-8", "replace")
    except OSError:
        return ""
    # The TorchScript exporter's verbose graph dump is noise here; keep the end (tracebacks).
    return text[-limit:]


def _weights(state: Any) -> Any:
    """``state`` as the rewritten model loads it: a ``state_dict`` override may add entries that are no tensors
    (neuraloperator's ``_metadata``, the constructor's arguments with functions among them, which a ``weights_only``
    load refuses, stored without the prefix of a wrapping module, whose ``load_state_dict`` then calls it unexpected:
    TRT377's models). Those are left out; a module's extra state (``..._extra_state``) and torch's own version
    metadata stay, and a state of tensors only is handed on as it is."""
    from collections import OrderedDict

    import torch

    if all(isinstance(value, torch.Tensor) for value in state.values()):
        return state
    kept: Any = OrderedDict()
    for key, value in state.items():
        if isinstance(value, torch.Tensor) or str(key).endswith("_extra_state"):
            kept[key] = value
    if hasattr(state, "_metadata"):
        kept._metadata = state._metadata
    return kept


def _load_weights(model: Any, state: Any) -> None:
    """Load ``state`` (``_weights``'s: tensors, no other values) into ``model``. A strict load side that asks for
    an entry that is no tensor (pytorch-mighty's ``state_attr``, a float its ``_load_from_state_dict`` requires)
    gets the built model's own value for it: such entries are configuration the same build made, not weights."""
    import torch

    try:
        model.load_state_dict(state)
    except RuntimeError as refused:
        own = model.state_dict()
        filled = {key: value for key, value in own.items()
                  if key not in state and not isinstance(value, torch.Tensor)}
        if filled:
            state.update(filled)
            model.load_state_dict(state)
        elif not _loads_but_its_own_extras(model, state, own):
            raise refused


def _loads_but_its_own_extras(model: Any, state: Any, own: Any) -> bool:
    """Does ``state`` load into ``model`` with nothing missing, where the only keys a strict load refuses are ones
    the built model's own ``state_dict`` writes too, with the same values? lightnet's ``state_dict`` override adds
    ``_LN_MODEL_VERSION`` to the dict its parent passes down, unprefixed, so a wrapper's own state does not load
    strictly into the same wrapper: a version the build itself writes, not a weight."""
    import torch

    named = {name for name, _ in model.named_parameters(remove_duplicate=False)}
    named |= {name for name, _ in model.named_buffers(remove_duplicate=False)}
    extra = [key for key in state if key not in named]

    def same(key: str) -> bool:
        mine, given = own.get(key), state[key]
        return isinstance(mine, torch.Tensor) and isinstance(given, torch.Tensor) and mine.shape == given.shape \
            and torch.equal(mine, given)

    if not extra or not all(same(key) for key in extra):
        return False
    loaded = model.load_state_dict(state, strict=False)
    return not loaded.missing_keys and set(loaded.unexpected_keys) <= set(extra)


if __name__ == "__main__":
    sys.exit(main())
