"""What ``migrate`` costs against doing its checks by hand, model by model, with its phase profile.

    python benchmarks/migrate_cost.py [--model CONFIG:NAME | --model FILE:CALLABLE:INPUTS ...]
        [--real NAME ... [--work DIR]] [--output FILE]

Per model, each in a fresh Python process, measured as wall time from outside:

* **by hand**: what a user does without trtcodemod: import and build the model, make three
  input sets (the verifier's, so that both see the same sizes), run it eagerly on each, export
  it once with the TorchScript exporter and the dynamic axes, open an ONNX Runtime session (CPU,
  one thread, as ``migrate``'s default), run the graph on the same sets, compare with
  ``migrate``'s tolerances, and time 20 runs of the eager model and of the graph. What the
  comparison finds (equal, or the first set whose graph fails, gives another number of outputs,
  other shapes or other values; or an export that fails) is the pipeline's result, not a reason
  to stop: it goes on to the timed runs, so a model whose original graph is wrong still has a
  ratio (the table's "by hand found" column);
* **migrate**: ``python -m trtcodemod migrate ... --format json`` with the model's settings.

Prints one Markdown table (the two wall times and their ratio) and, per model, ``migrate``'s
phases (``phases`` in its JSON report). The default models are examples: one with nothing to
fix (``examples/migrate/clean_net.py``), one that needs two rounds of fixes
(``tracker_update`` of ``examples/models.toml``) and one with a second trace (``yolo_decode`` of
``examples/evidence/models.toml``). ``--real NAME`` adds a model of the real zoos' lists
(``hf_detr``, ``tv_ssdlite``, ...), built from the pinned library wheels that script unpacks
(into ``--work``, kept between runs) as the user's own files. The numbers go into
benchmarks/README.md, never into a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODELS = ["examples/migrate/clean_net.py:build:inputs", "examples/models.toml:tracker_update",
                  "examples/evidence/models.toml:yolo_decode"]

#: The by-hand pipeline, run as ``python -c HAND REQUEST_JSON``; prints its own step times as JSON.
HAND = r'''
import json, sys, time, io, warnings
start = time.perf_counter()
req = json.loads(sys.argv[1])
import numpy as np, torch, onnxruntime as ort
from trtcodemod.verify.inputs import make_input_sets
from trtcodemod.verify.spec import InputsSpec
from trtcodemod.verify.worker import build_model, flatten_outputs, import_user_module
steps = {}
def step(name, t0):
    steps[name] = round(time.perf_counter() - t0, 3)
    return time.perf_counter()
t = step("import torch", start)
torch.set_num_threads(1)
torch.manual_seed(req["seed"])
module = import_user_module(req["model_file"], req["import_root"], req["module"], [])
model = build_model(module, req["model"], tuple(req["args"]), req["kwargs"]).eval()
axes = {k: {int(a): n for a, n in v.items()} for k, v in req["dynamic_axes"].items()}
made = make_input_sets(module, InputsSpec(function=req["inputs"]), model, axes, req["seed"])
t = step("build, inputs", t)
def attempt(call, *args):
    try:
        return call(*args)
    except Exception as exc:  # a failing step is the pipeline's finding: the timed runs still go on
        return exc
def forward(inputs):
    with torch.no_grad():
        return model(**inputs)
eager = [attempt(forward, s) for s in made.sets]
t = step("eager x3", t)
def export():
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(made.sets[0][n] for n in made.names), buffer, dynamo=False,
                          opset_version=17, input_names=made.names, dynamic_axes=axes)
    return buffer.getvalue()
graph_bytes = attempt(export)
t = step("export", t)
session = None
if not isinstance(graph_bytes, Exception):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = attempt(lambda: ort.InferenceSession(graph_bytes, options, providers=["CPUExecutionProvider"]))
def run(inputs):
    wanted = {i.name for i in session.get_inputs()}
    return session.run(None, {n: inputs[n].numpy() for n in made.names if n in wanted})
graph = [attempt(run, s) for s in made.sets] if not isinstance(session, (Exception, type(None))) else []
t = step("onnxruntime x3", t)
def finding():
    """'equal', or the first thing that differs, as the user comparing by hand would see it."""
    if isinstance(graph_bytes, Exception):
        return f"export fails: {type(graph_bytes).__name__}"
    if isinstance(session, Exception):
        return f"ONNX Runtime cannot load the graph: {type(session).__name__}"
    for number, (got, want) in enumerate(zip(graph, eager), 1):
        if isinstance(want, Exception):
            return f"set {number}: eager fails: {type(want).__name__}"
        if isinstance(got, Exception):
            return f"set {number}: the graph fails: {type(got).__name__}"
        want = [v.detach().numpy() for _, v in flatten_outputs(want)]
        if len(got) != len(want):
            return f"set {number}: {len(got)} outputs, eager {len(want)}"
        for index, (g, e) in enumerate(zip(got, want)):
            if g.shape != e.shape:
                return f"set {number} output {index}: shape {list(g.shape)}, eager {list(e.shape)}"
            close = np.isclose(g, e, atol=1e-4, rtol=1e-3, equal_nan=True)
            if not close.all():
                return f"set {number} output {index}: {close.size - int(close.sum())} of {close.size} values differ"
    return "equal"
found = finding()
t = step("compare", t)
for _ in range(20):
    attempt(forward, made.sets[0])
t = step("eager x20", t)
if graph:
    for _ in range(20):
        attempt(run, made.sets[0])
t = step("onnxruntime x20", t)
print(json.dumps({"steps": steps, "same": found == "equal", "found": found}))
'''


def _spec(model: str) -> Any:
    """A ``VerifySpec`` from ``CONFIG.toml:NAME`` or ``FILE.py:CALLABLE:INPUTS``."""
    from trtcodemod.verify.command import collect_specs

    parts = model.split(":")
    if parts[0].endswith(".toml"):
        specs, errors, _ = collect_specs(None, ROOT / parts[0], parts[1], {})
    else:
        specs, errors, _ = collect_specs(ROOT / parts[0], None, parts[1], {"inputs": parts[2]})
    if errors or not specs:
        raise SystemExit(f"{model}: {errors}")
    return specs[0]


def real_models(names: list[str], work: Path) -> list[str]:
    """``CONFIG:NAME`` of the real zoos' models (real_zoo.py, real_zoo2.py, real_zoo3.py), in a fresh
    checkout under ``work``; a model of the second or third zoo needs their four more libraries."""
    import shutil

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import real_zoo
    import real_zoo2
    import real_zoo3

    first = {spec.name: spec for spec in real_zoo.MODELS}
    specs = {**first, **{spec.name: spec for spec in (*real_zoo2.MODELS2, *real_zoo3.MODELS3)}}
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise SystemExit(f"--real: unknown {unknown} (known: {', '.join(specs)})")
    pins = real_zoo.PINS if all(n in first for n in names) else real_zoo2.PINS2
    src = real_zoo.fetch_sources(work.resolve(), pins)
    folder = work.resolve() / "checkout"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    config = real_zoo.make_zoo(folder, src, [specs[n] for n in names])
    return [f"{config}:{name}" for name in names]


def _timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - began, done


def by_hand(spec: Any) -> tuple[float, dict[str, Any]]:
    from trtcodemod.verify.rewrite import locate

    layout = locate(spec.model_file)
    request = {"model_file": str(layout.model_file), "import_root": str(layout.import_root), "module": layout.module,
               "model": spec.model, "args": list(spec.model_args), "kwargs": dict(spec.model_kwargs),
               "inputs": spec.inputs.function, "seed": spec.seed,
               "dynamic_axes": {k: {str(a): n for a, n in v.items()} for k, v in spec.dynamic_axes.items()}}
    seconds, done = _timed([sys.executable, "-c", HAND, json.dumps(request)])
    if done.returncode != 0:
        return seconds, {"error": done.stderr[-500:]}
    return seconds, json.loads(done.stdout.strip().splitlines()[-1])


def by_migrate(model: str) -> tuple[float, dict[str, Any]]:
    parts = model.split(":")
    if parts[0].endswith(".toml"):
        args = ["--config", parts[0], "--model", parts[1], "--no-cache"]
    else:
        args = [parts[0], "--model", parts[1], "--inputs", parts[2]]
    seconds, done = _timed([sys.executable, "-m", "trtcodemod", "migrate", *args, "--format", "json"])
    try:
        return seconds, json.loads(done.stdout)["models"][0]
    except (ValueError, KeyError, IndexError):
        return seconds, {"error": done.stderr[-500:], "exit_code": done.returncode}


def _found(hand: dict[str, Any]) -> str:
    """What the by-hand pipeline found: its comparison's finding, or why it did not finish."""
    if "found" in hand:
        return str(hand["found"])
    if "same" in hand:  # a JSON file of an earlier run
        return "equal" if hand["same"] else "not equal"
    lines = hand.get("error", "").strip().splitlines()
    return "stopped: " + (lines[-1][-150:] if lines else "no message")


def render(rows: list[dict[str, Any]]) -> str:
    out = ["| model | by hand (s) | by hand found | migrate (s) | ratio | migrate's exit | fixes | rounds |",
           "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        r = row["migrate"]
        # a pipeline that did not reach its timed runs has no wall time to set against migrate's
        ratio = f"{row['migrate_s'] / row['hand_s']:.1f}x" if "found" in row["hand"] or "same" in row["hand"] else "-"
        out.append(f"| {row['model']} | {row['hand_s']:.1f} | {_found(row['hand'])} | {row['migrate_s']:.1f} | "
                   f"{ratio} | {r.get('exit_code')} | {len(r.get('applied', []))} | {len(r.get('rounds', []))} |")
    for row in rows:
        out += ["", f"**{row['model']}**: by hand " + ", ".join(f"{k} {v:.1f} s" for k, v in
                                                                row["hand"].get("steps", {}).items())
                + f" (found: {_found(row['hand'])})", "",
                "| migrate phase | seconds |", "| --- | ---: |"]
        phases = row["migrate"].get("phases") or []
        out += [f"| {p['phase']} | {p['seconds']:.1f} |" for p in phases]
        total = row["migrate"].get("seconds")
        if total is not None:
            out.append(f"| (between phases) | {max(total - sum(p['seconds'] for p in phases), 0.0):.1f} |")
            out.append(f"| (process start, import, report) | {max(row['migrate_s'] - total, 0.0):.1f} |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", help="CONFIG.toml:NAME or FILE.py:CALLABLE:INPUTS "
                                                         "(repeatable; paths from the repository root)")
    parser.add_argument("--real", action="append", default=[],
                        help="a model of the real zoos' lists (real_zoo.py, real_zoo2.py, real_zoo3.py; repeatable)")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / ".real_zoo",
                        help="where real_zoo.py's wheels and sources are kept")
    parser.add_argument("--output", type=Path, help="also write the table here")
    args = parser.parse_args()
    models = list(args.model or ([] if args.real else DEFAULT_MODELS))
    if args.real:
        models += real_models(args.real, args.work)
    rows = []
    for model in models:
        spec = _spec(model)
        hand_s, hand = by_hand(spec)
        migrate_s, report = by_migrate(model)
        rows.append({"model": spec.label, "hand_s": hand_s, "hand": hand, "migrate_s": migrate_s, "migrate": report})
        print(f"{spec.label}: by hand {hand_s:.1f} s, migrate {migrate_s:.1f} s", file=sys.stderr, flush=True)
    text = render(rows)
    print(text)
    if args.output:
        args.output.write_text(text)
        args.output.with_suffix(".json").write_text(json.dumps(rows, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
