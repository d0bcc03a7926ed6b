"""Eager cost of a lifted model: the adapter forward against the original, frame after frame.

``python benchmarks/temporal_lift.py``: lifts each model of examples/temporal in a temporary
folder and times ``repeat`` frames of each (median of 7 runs, one thread). A lifted None test
runs both branches on every frame, so the adapter may be slower where a branch is costly.
"""

from __future__ import annotations

import importlib.util
import inspect
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from trtcodemod.temporal.apply import lift_model, load_source

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "temporal"
MODELS = {"bev_fusion": "TemporalBEV", "query_memory": "QueryMemory", "frame_clock": "FrameClock",
          "bev_prev_input": "PrevBEVFusion"}
#: Models whose last input is optional: timed with it omitted on every other frame (absent, given).
OPTIONAL_LAST = {"bev_prev_input"}


def _time(model: torch.nn.Module, frames: list[tuple], runs: int = 7) -> float:
    times = []
    with torch.no_grad():
        for _ in range(runs):
            start = time.perf_counter()
            for frame in frames:
                model(*frame)
            times.append((time.perf_counter() - start) / len(frames))
    return statistics.median(times) * 1e6


def main(repeat: int = 200) -> None:
    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp())
    try:
        for name, cls in MODELS.items():
            path = folder / f"{name}.py"
            shutil.copy(EXAMPLES / f"{name}.py", path)
            spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
            original = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = original
            spec.loader.exec_module(original)
            g = torch.Generator().manual_seed(0)
            frames = [original.inputs(g) for _ in range(repeat)]
            if name in OPTIONAL_LAST:
                frames = [f[:-1] if k % 2 == 0 else f for k, f in enumerate(frames)]
            names = list(inspect.signature(original.build().forward).parameters)
            outcome = lift_model(path, cls, lambda m: (m or original).build(),
                                 [dict(zip(names, f)) for f in frames[:4]])
            lifted = load_source(outcome.files[str(path)], path, f"_bench_lifted_{name}")
            torch.manual_seed(0)
            a, b = original.build(), lifted.build()
            b.load_state_dict(a.state_dict())
            before, after = _time(a, frames), _time(b, frames)
            print(f"{name:14s} original {before:8.1f} us/frame  adapter {after:8.1f} us/frame  "
                  f"({(after / before - 1) * 100:+.0f}%)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
