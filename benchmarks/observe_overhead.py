"""What recording tensors at user call sites (``migrate/tensor_sites.py``) adds to the observe step.

    python benchmarks/observe_overhead.py [--repeat N]

**Baseline:** the observer without the ``TensorSites`` mode (what ``migrate`` observed before
issue 21: the value-read wrappers and the line tracer), on the same models and input sets.
For each example model of ``examples/models.toml``-style specs below, it runs the observe task
(``migrate/observe.py``'s ``_observe_task``: import, build, make the input sets, one forward per
set) in this process, alternating without and with the mode, and prints the median wall time of
each (and the fastest run, less disturbed by other jobs on a shared machine), the forwards
alone without any instrumentation, and how many tensor events the mode adds to the facts. The worker process's start (about a second of importing torch) is left out: it is
the same with and without, and would hide the difference.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: name -> (model file, builder, inputs function, dynamic axes): models of the example zoos.
MODELS = {
    "evidence/yolo_decode": ("examples/evidence/yolo_decode.py", "build", "inputs",
                             {"x": {0: "batch", 2: "height", 3: "width"}}),
    "bev_decoder": ("examples/bev_decoder.py", "build", "inputs", {"bev": {0: "batch", 2: "height", 3: "width"}}),
    "detection_postprocess": ("examples/detection_postprocess.py", "build", "inputs",
                              {"cls_logits": {0: "boxes"}, "box_preds": {0: "boxes"}}),
    "tracker_update": ("examples/tracker_update.py", "build", "inputs", {}),
}


class _Stage:
    """The worker's checkpoint, without the file: the task only needs ``stage`` and ``data``."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def stage(self, name: str) -> None:
        self.data["stage"] = name


class _NoSites(contextlib.nullcontext):
    """Stands in for ``TensorSites``: the observer as it was before."""

    def __init__(self, recorder: Any) -> None:
        super().__init__()
        self.run = 0

    def events(self) -> list[dict[str, Any]]:
        return []


def _request(name: str) -> dict[str, Any]:
    from trtcodemod.verify.rewrite import locate as locate_layout
    from trtcodemod.verify.spec import InputsSpec

    path, model, inputs, dynamic = MODELS[name]
    layout = locate_layout(ROOT / path)
    return {"model_file": str(layout.model_file), "import_root": str(layout.import_root), "module": layout.module,
            "extra_paths": [], "user_roots": list(layout.user_roots), "model": model, "inputs": InputsSpec(function=inputs), "seed": 0,
            "dynamic_axes": {k: {int(a): v for a, v in axes.items()} for k, axes in dynamic.items()}}


def _observe(request: dict[str, Any], with_sites: bool) -> tuple[float, dict[str, Any]]:
    from trtcodemod.migrate import observe, tensor_sites

    real = tensor_sites.TensorSites
    if not with_sites:
        tensor_sites.TensorSites = _NoSites  # type: ignore[misc,assignment]
    try:
        stage = _Stage()
        start = time.perf_counter()
        observe._observe_task(request, stage)  # type: ignore[arg-type]
        return time.perf_counter() - start, stage.data["facts"]
    finally:
        tensor_sites.TensorSites = real  # type: ignore[misc]


def _plain(request: dict[str, Any]) -> float:
    """The same forwards without any instrumentation (the floor)."""
    import torch

    from trtcodemod.verify.inputs import make_input_sets, stretched_set
    from trtcodemod.verify.worker import build_model, import_user_module

    module = import_user_module(request["model_file"], request["import_root"], request["module"], [])
    torch.manual_seed(0)
    model = build_model(module, request["model"], (), {})
    made = make_input_sets(module, request["inputs"], model, request["dynamic_axes"], 0)
    sets = list(made.sets)
    if request["dynamic_axes"]:
        stretched, changed = stretched_set(sets[0], request["dynamic_axes"], 0)
        sets += [stretched] if changed else []
    start = time.perf_counter()
    with torch.no_grad():
        for inputs in sets:
            model(**inputs)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, {args.repeat} repetitions, medians\n")
    print("| model | forwards alone | observe step, before | observe step, with tensor sites | added | "
          "fastest before / with | tensor events |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory():
        for name in MODELS:
            request = _request(name)
            _observe(request, True)  # warm-up: imports, first-call costs
            before, after, plain = [], [], []
            facts: dict[str, Any] = {}
            for _ in range(args.repeat):
                before.append(_observe(request, False)[0])
                seconds, facts = _observe(request, True)
                after.append(seconds)
                plain.append(_plain(request))
            b, a, p = (statistics.median(x) * 1e3 for x in (before, after, plain))
            events = sum(1 for e in facts["events"] if e["kind"] == "tensor")
            fastest = f"{min(before) * 1e3:.1f} / {min(after) * 1e3:.1f} ms"
            print(f"| {name} | {p:.1f} ms | {b:.1f} ms | {a:.1f} ms | {a - b:+.1f} ms ({a / b:.2f}x) | {fastest} | "
                  f"{events} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
