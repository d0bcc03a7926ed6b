"""What the observer's module-attribute read hook (``nn.Module.__getattribute__`` wrapped while the
recorded forwards run, ``migrate/observe.py``'s ``Wrappers``) costs a forward of a large model.

    python benchmarks/state_read_overhead.py [--repeat N] [--models resnet50,vit_b_16,swin_t]

The hook tells scratch state (an attribute every forward writes before reading it) from state kept
between calls (stop 60, DeAOT). It runs on every ``self.<name>`` of every module in the forward, so
its cost grows with the number of modules and attribute reads, not with the tensors' sizes.

**Baseline:** the same ``Wrappers`` (tensor value reads, ``len``, ``__setattr__``, ``deepcopy``)
without the ``__getattribute__`` hook, and the forward with no instrumentation at all. Each row
is the median of ``--repeat`` alternating forwards (one thread, no gradients, batch 1, 224x224,
torchvision's architectures with random weights: plain PyTorch code; torchvision must be importable,
``PYTHONPATH`` to an unpacked wheel as the zoos use, and its compiled ops are the zoos' plain-PyTorch
stand-ins, ``real_zoo_env/torchvision_ops_standin.py``). Library
files count as the user's here (``UserFiles`` rooted at torchvision), as a checkout unpacked beside
the model file does in ``benchmarks/real_zoo*.py``: the first read of each attribute then walks
the stack to the user's frame, the worst case.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]


def _wrappers(rec: Any, with_reads: bool) -> Any:
    from trtcodemod.migrate.observe import Wrappers

    class WithoutReads(Wrappers):
        """The observer as it was before the read hook (stop 59)."""

        def _patch(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
            if name != "__getattribute__":
                super()._patch(owner, name, make)

    return Wrappers(rec) if with_reads else WithoutReads(rec)


def _timed(model: Any, x: Any, rec: Any, mode: str) -> float:
    """One forward's seconds under ``mode``: ``plain``, ``before`` (no read hook) or ``with``."""
    import torch

    with torch.no_grad():
        if mode == "plain":
            start = time.perf_counter()
            model(x)
            return time.perf_counter() - start
        with _wrappers(rec, mode == "with"):
            rec.begin_call()
            rec.recording = True
            try:
                start = time.perf_counter()
                model(x)
                return time.perf_counter() - start
            finally:
                rec.recording = False


def _reads(model: Any, x: Any, rec: Any) -> int:
    """How many attribute reads one forward makes through the hook (counted, not timed)."""
    import torch

    count = 0
    original = rec.note_read

    def counting(module: Any, name: str) -> None:
        nonlocal count
        count += 1
        original(module, name)

    rec.note_read = counting
    try:
        with torch.no_grad(), _wrappers(rec, True):
            rec.begin_call()
            rec.recording = True
            model(x)
    finally:
        rec.recording = False
        rec.note_read = original
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--models", default="resnet50,vit_b_16,swin_t")
    args = parser.parse_args(argv)
    import torch

    # PyPI's torchvision is built against CUDA torch: its compiled ops (NMS, RoIAlign) do not load with the
    # CPU wheel; the zoos' plain-PyTorch stand-in registers them first (no model here calls them).
    sys.path.insert(0, str(ROOT / "benchmarks" / "real_zoo_env"))
    import torchvision_ops_standin  # noqa: F401
    import torchvision

    from trtcodemod.migrate.observe import Recorder
    from trtcodemod.usercode import UserFiles

    torch.set_num_threads(1)
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"{args.repeat} repetitions, medians, one thread\n")
    print("| model | modules | attribute reads a forward | plain | before (no read hook) | with the read hook | "
          "hook's cost |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        rec = Recorder(UserFiles([str(Path(torchvision.__file__).parent)]))
        for mode in ("plain", "before", "with"):
            _timed(model, x, rec, mode)  # warm-up
        times: dict[str, list[float]] = {"plain": [], "before": [], "with": []}
        for _ in range(args.repeat):
            for mode in times:
                times[mode].append(_timed(model, x, rec, mode))
        plain, before, with_reads = (statistics.median(times[m]) * 1e3 for m in ("plain", "before", "with"))
        modules = sum(1 for _ in model.modules())
        print(f"| {name} | {modules} | {_reads(model, x, rec)} | {plain:.1f} ms | {before:.1f} ms | "
              f"{with_reads:.1f} ms | {with_reads - before:+.1f} ms ({with_reads / before:.3f}x) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
