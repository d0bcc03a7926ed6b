"""The helpers added in stop 45 on a CUDA device: eager results, the export-time formulation, latency.

    python benchmarks/gpu_helpers_check.py [--out FILE]

Run on a machine with a GPU (torch with CUDA; libcst and onnx need not be installed: the helper modules,
which import only torch, are loaded from their files). For each of TRT341's, TRT342's, TRT343's and
TRT323's helpers it checks, on CUDA tensors, that eager mode is torch's own call (values, dtype, device),
that the formulation the helper takes while exporting gives torch's values on the GPU too, and measures the
eager overhead of the helper call against the direct torch call (median of 2,000 calls, synchronized).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import types
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]


def _load_helpers() -> dict[str, types.ModuleType]:
    """The helper modules from their files, under their package names (the package's ``__init__`` imports
    libcst, which a bare GPU machine may lack)."""
    for name in ("trtcodemod", "trtcodemod.helpers"):
        module = types.ModuleType(name)
        module.__path__ = [str(ROOT / name.replace(".", "/"))]
        sys.modules.setdefault(name, module)
    loaded = {}
    for stem in ("onnx_export", "accumulation", "whole_pooling", "sorting", "comparisons"):
        spec = importlib.util.spec_from_file_location(f"trtcodemod.helpers.{stem}",
                                                      ROOT / "trtcodemod" / "helpers" / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        loaded[stem] = module
    return loaded


def _exporting(modules, flag: bool) -> None:
    for module in modules.values():
        if hasattr(module, "_trt_onnx_exporting"):
            module._trt_onnx_exporting = (lambda: True) if flag else _REAL[module.__name__]


_REAL: dict[str, object] = {}


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _median_us(call, repeats: int = 2000) -> float:
    for _ in range(50):
        call()
    _sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        _sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="-")
    parser.add_argument("--device", default="cuda", help="cuda (the point) or cpu (to try the script here)")
    args = parser.parse_args()
    dev = torch.device(args.device)
    where = torch.cuda.get_device_name(0) if dev.type == "cuda" else "CPU"
    lines = [f"torch {torch.__version__}, CUDA {torch.version.cuda}, {where}"]
    modules = _load_helpers()
    for module in modules.values():
        if hasattr(module, "_trt_onnx_exporting"):
            _REAL[module.__name__] = module._trt_onnx_exporting
    acc, pool, srt, cmp = modules["accumulation"], modules["whole_pooling"], modules["sorting"], modules["comparisons"]
    g = torch.Generator(device="cpu").manual_seed(0)
    grid = torch.randn(64, 32, generator=g).to(dev)
    cells = torch.randint(0, 64, (4096,), generator=g).to(dev)
    feats = torch.randn(4096, 32, generator=g).to(dev)
    image = torch.randn(8, 64, 28, 28, generator=g).to(dev)
    ids = torch.randint(0, 7, (16, 4096), generator=g).to(dev)
    scores = torch.randn(16, 4096, generator=g).to(dev)
    scores[:, ::3] = 0.5  # ties

    checks = {
        "index_add": (lambda: acc._trt_index_add(grid, 0, cells, feats), lambda: grid.index_add(0, cells, feats)),
        "index_put accumulate": (lambda: acc._trt_index_put(grid, [cells], feats, True),
                                 lambda: grid.index_put((cells,), feats, accumulate=True)),
        "whole avg_pool2d": (lambda: pool._trt_whole_avg_pool2d(image, image.size()[2:], whole=(2, 3)),
                             lambda: torch.nn.functional.avg_pool2d(image, image.size()[2:])),
        "stable sort of ids": (lambda: srt._trt_sort(ids, -1, False, True),
                               lambda: torch.sort(ids, dim=-1, stable=True)),
        "stable argsort, ties": (lambda: srt._trt_argsort(scores, -1, True, True),
                                 lambda: torch.argsort(scores, dim=-1, descending=True, stable=True)),
    }
    for name, (helper, direct) in checks.items():
        eager = helper()
        want = direct()
        # accumulation with repeated indices adds in no fixed order (atomics on CUDA, threads on CPU): two runs of
        # torch's own call may differ in the last bits, so floats are compared within rounding
        same_eager = all(a.device == b.device and a.dtype == b.dtype and
                         (torch.equal(a, b) or (a.is_floating_point() and torch.allclose(a, b, rtol=1e-5, atol=1e-5)))
                         for a, b in zip(_flat(eager), _flat(want)))
        _exporting(modules, True)
        try:
            formulation = helper()
        finally:
            _exporting(modules, False)
        close = all(a.device == b.device and a.dtype == b.dtype and
                    (torch.equal(a, b) if not a.is_floating_point() else torch.allclose(a, b, rtol=1e-5, atol=1e-5))
                    for a, b in zip(_flat(formulation), _flat(want)))
        overhead = _median_us(helper) - _median_us(direct)
        lines.append(f"{name:24s} eager is torch's call: {same_eager}; export formulation on the device matches: {close}; "
                     f"eager overhead of the helper call: {overhead:+.1f} us (median of 2000)")
    mask = torch.rand(64, 64, generator=g).to(dev)
    eager = cmp._trt_compare_(mask.clone(), "gt", 0.5)
    lines.append(f"{'inplace gt_':24s} eager is torch's call: {torch.equal(eager, mask.clone().gt_(0.5))}; "
                 f"dtype kept: {eager.dtype == mask.dtype}")
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        print(text, end="")
    else:
        Path(args.out).write_text(text)
        print(text, end="")


def _flat(value):
    if isinstance(value, torch.Tensor):
        return [value]
    return [v for v in value]


if __name__ == "__main__":
    main()
