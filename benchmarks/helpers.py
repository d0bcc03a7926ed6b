"""Cost of the inserted helpers against the torch operations they replace.

Each helper (``trtcodemod/helpers/``) runs the original operation outside
``torch.onnx.export`` and a TensorRT-safe formulation while exporting. This measures
what that costs, against the original as the baseline:

- eager forward, original vs the dispatching helper called as rewritten code calls it
  (its fixed cost is the check for an ONNX export in progress);
- eager forward+backward where the operation is differentiable;
- ONNX Runtime (CPU, one intra-op thread): the TorchScript-exported graph of the
  original vs the graph of the helper's export formulation, static shapes, and for
  pooling also dynamic H/W axes (the original does not export there). For atan2 also
  the error of each graph against torch eager, on random values and on an edge grid.

    python benchmarks/helpers.py [--quick] [--device cpu|cuda] [--no-onnx] [--match TEXT] [--output FILE]

Small inputs (0-d, a few elements) show the helpers' fixed cost; ``--match 'small'
--no-onnx`` times only those, eagerly.

Times are medians over interleaved rounds, one thread (``torch.set_num_threads(1)``).
Prints one markdown table; the numbers go into the README, never into a test.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import os
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import torch
import torch.nn.functional as F
from torch.utils.benchmark import Timer

from trtcodemod.helpers.assignment import _trt_mask_fill_float
from trtcodemod.helpers.atan2 import _trt_atan2
from trtcodemod.helpers.indexing import _trt_mask_index
from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.padding import _TrtZeroPad2d, _trt_zero_pad
from trtcodemod.helpers.pooling import (
    _TrtAdaptiveAvgPool2d,
    _trt_adaptive_avg_pool1d,
    _trt_adaptive_avg_pool2d,
)
from trtcodemod.helpers.copying import _trt_deepcopy
from trtcodemod.helpers.unique import _trt_unique

Inputs = Callable[[str], dict[str, torch.Tensor]]


class _Forward(torch.nn.Module):
    """One call in a module's forward: how rewritten model code meets the helpers."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.fn(*inputs)

#: What the timed expressions see: torch, F, the helpers and the module instances.
NAMESPACE: dict[str, Any] = {
    "torch": torch,
    "F": F,
    "copy": copy,
    "_trt_deepcopy": _trt_deepcopy,
    "_trt_atan2": _trt_atan2,
    "_trt_mask_fill_float": _trt_mask_fill_float,
    "_trt_unique": _trt_unique,
    "_trt_mask_index": _trt_mask_index,
    "_trt_zero_pad": _trt_zero_pad,
    "_trt_adaptive_avg_pool1d": _trt_adaptive_avg_pool1d,
    "_trt_adaptive_avg_pool2d": _trt_adaptive_avg_pool2d,
    "atan2_forward": _Forward(torch.atan2),
    "trt_atan2_forward": _Forward(_trt_atan2),
    "pad_module": torch.nn.ZeroPad2d((0, 1, 0, 1)),
    "trt_pad_module": _TrtZeroPad2d((0, 1, 0, 1)),
    "pool_module": torch.nn.AdaptiveAvgPool2d(7),
    "trt_pool_module": _TrtAdaptiveAvgPool2d(7),
}


@dataclass
class Settings:
    """How long to measure: up to ``rounds`` interleaved blocks of about ``block`` seconds each."""

    device: str
    rounds: int  # at most
    min_rounds: int
    block: float
    budget: float  # seconds per comparison, roughly
    quick: bool


@dataclass
class Case:
    """One helper against its original, on inputs of one size.

    ``original`` and ``rewritten`` are the expressions as they stand in the user's code
    before and after trtcodemod's rewrite, over the names of the inputs.
    """

    helper: str
    case: str
    size: str
    make: Inputs
    original: str
    rewritten: str
    grad: tuple[str, ...] = ()  # inputs to differentiate; empty: not differentiable
    ort: bool = True  # also compare the exported graphs in ONNX Runtime
    dynamic_axes: dict[str, dict[int, str]] = field(default_factory=dict)  # adds a dynamic-shape ORT row
    quick: bool = True  # part of the --quick run


@dataclass
class Row:
    """One line of the table."""

    helper: str
    case: str
    size: str
    original: str
    replacement: str
    ratio: str


# ----------------------------------------------------------------------------- inputs


def _seeded(seed: int) -> torch.Generator:
    """A CPU generator with a fixed seed (same inputs on every device and run)."""
    return torch.Generator().manual_seed(seed)


def randn(name: str, *shape: int) -> Inputs:
    """One random float32 tensor of ``shape``."""
    return lambda device: {name: torch.randn(*shape, generator=_seeded(0)).to(device)}


def randn2(*shape: int) -> Inputs:
    """Random float32 ``y`` and ``x`` of ``shape`` (atan2's arguments)."""
    return lambda device: {
        "y": torch.randn(shape, generator=_seeded(0)).to(device),
        "x": torch.randn(shape, generator=_seeded(1)).to(device),
    }


def labels(n: int, classes: int) -> Inputs:
    """``n`` int64 class ids below ``classes``."""
    return lambda device: {"labels": torch.randint(0, classes, (n,), generator=_seeded(0)).to(device)}


def masked(rows: int, cols: int, keep: float) -> Inputs:
    """A (rows, cols) float tensor ``t`` and a bool ``mask`` keeping about ``keep`` of its rows."""
    def make(device: str) -> dict[str, torch.Tensor]:
        values = torch.randn(rows, cols, generator=_seeded(0))
        mask = torch.rand(rows, generator=_seeded(1)) < keep
        return {"t": values.to(device), "mask": mask.to(device)}
    return make


def cases() -> list[Case]:
    """Every comparison, from a detection head's few hundred boxes to a batch of feature maps."""
    atan2 = ("_trt_atan2", "torch.atan2(y, x)", "torch.atan2(y, x)", "_trt_atan2(y, x)")
    unique = ("_trt_unique", "torch.unique(labels)", "torch.unique(labels)", "_trt_unique(labels)")
    mask = ("_trt_mask_index", "t[mask], ~50% kept", "t[mask]", "_trt_mask_index(t, mask)")
    fill = ("_trt_mask_fill_float", "t[mask] = 0.0", "t[mask] = 0.0", "_trt_mask_fill_float(t, mask, 0.0)")
    pad = ("_trt_zero_pad", "F.pad(x, (0,1,0,1))", "F.pad(x, (0, 1, 0, 1))", "_trt_zero_pad(x, (0, 1, 0, 1))")
    pad_module = ("_TrtZeroPad2d", "nn.ZeroPad2d((0,1,0,1))(x)", "pad_module(x)", "trt_pad_module(x)")
    pool7 = ("_trt_adaptive_avg_pool2d", "F.adaptive_avg_pool2d(x, (7,7))", "F.adaptive_avg_pool2d(x, (7, 7))",
             "_trt_adaptive_avg_pool2d(x, (7, 7))")
    pool25 = ("_trt_adaptive_avg_pool2d", "F.adaptive_avg_pool2d(x, (2,5))", "F.adaptive_avg_pool2d(x, (2, 5))",
              "_trt_adaptive_avg_pool2d(x, (2, 5))")
    pool_module = ("_TrtAdaptiveAvgPool2d", "nn.AdaptiveAvgPool2d(7)(x)", "pool_module(x)", "trt_pool_module(x)")
    pool1d = ("_trt_adaptive_avg_pool1d", "F.adaptive_avg_pool1d(x, 7)", "F.adaptive_avg_pool1d(x, 7)",
              "_trt_adaptive_avg_pool1d(x, 7)")
    deepcopy = ("_trt_deepcopy", "copy.deepcopy(x)", "copy.deepcopy(x)", "_trt_deepcopy(copy.deepcopy, x)")
    hw = {"x": {2: "H", 3: "W"}}
    return [
        # The original exports a frozen constant (or not at all): eager cost only.
        Case(*deepcopy[:2], "300x4", randn("x", 300, 4), *deepcopy[2:], ort=False),
        Case(*deepcopy[:2], "8x256x56x56", randn("x", 8, 256, 56, 56), *deepcopy[2:], ort=False, quick=False),
        # Small inputs: the helpers' fixed cost (a call and two flag checks) against a fast op.
        Case(*atan2[:2], "0-d (small)", randn2(), *atan2[2:], ort=False),
        Case(*unique[:2], "8 of 4 (small)", labels(8, 4), *unique[2:], ort=False),
        Case(*fill[:2], "8x1 (small)", masked(8, 1, 0.5), *fill[2:], ort=False),
        Case("_trt_atan2", "module forward calling atan2", "0-d (small)", randn2(), "atan2_forward(y, x)",
             "trt_atan2_forward(y, x)", ort=False),
        Case(*fill[:2], "300x4", masked(300, 4, 0.5), *fill[2:], ort=False),
        Case(*atan2[:2], "300", randn2(300), *atan2[2:], grad=("y", "x")),
        Case(*atan2[:2], "8400", randn2(8400), *atan2[2:], grad=("y", "x"), quick=False),
        Case(*atan2[:2], "1e6", randn2(1_000_000), *atan2[2:], grad=("y", "x")),
        Case(*unique[:2], "300 of 80", labels(300, 80), *unique[2:]),
        Case(*unique[:2], "8400 of 80", labels(8400, 80), *unique[2:], quick=False),
        Case(*unique[:2], "1e6 of 1000", labels(1_000_000, 1000), *unique[2:]),
        Case(*mask[:2], "300x4", masked(300, 4, 0.5), *mask[2:], grad=("t",)),
        Case(*mask[:2], "8400x85", masked(8400, 85, 0.5), *mask[2:], grad=("t",), quick=False),
        Case(*mask[:2], "1e6x4", masked(1_000_000, 4, 0.5), *mask[2:], grad=("t",)),
        Case(*pad[:2], "1x3x32x32", randn("x", 1, 3, 32, 32), *pad[2:], grad=("x",)),
        Case(*pad[:2], "1x64x56x56", randn("x", 1, 64, 56, 56), *pad[2:], grad=("x",), quick=False),
        Case(*pad[:2], "8x256x56x56", randn("x", 8, 256, 56, 56), *pad[2:], grad=("x",)),
        Case(*pad_module[:2], "1x3x32x32", randn("x", 1, 3, 32, 32), *pad_module[2:], ort=False),
        Case(*pool7[:2], "1x512x7x7", randn("x", 1, 512, 7, 7), *pool7[2:], grad=("x",)),
        Case(*pool7[:2], "1x512x14x14", randn("x", 1, 512, 14, 14), *pool7[2:], grad=("x",), quick=False),
        Case(*pool7[:2], "8x256x56x56", randn("x", 8, 256, 56, 56), *pool7[2:], grad=("x",), dynamic_axes=hw),
        Case(*pool25[:2], "1x256x14x14", randn("x", 1, 256, 14, 14), *pool25[2:], grad=("x",)),
        Case(*pool25[:2], "8x256x56x56", randn("x", 8, 256, 56, 56), *pool25[2:], grad=("x",), quick=False),
        Case(*pool_module[:2], "1x512x14x14", randn("x", 1, 512, 14, 14), *pool_module[2:], ort=False),
        Case(*pool1d[:2], "1x64x56", randn("x", 1, 64, 56), *pool1d[2:], grad=("x",)),
        Case(*pool1d[:2], "8x256x1000", randn("x", 8, 256, 1000), *pool1d[2:], grad=("x",),
             dynamic_axes={"x": {2: "L"}}, quick=False),
        # A/A: the original against itself, the noise floor of this machine and run.
        Case("(noise floor)", "torch.atan2 vs itself", "300", randn2(300), atan2[2], atan2[2], ort=False),
        Case("(noise floor)", "F.pad vs itself", "8x256x56x56", randn("x", 8, 256, 56, 56), pad[2], pad[2],
             grad=("x",), ort=False),
    ]


# ----------------------------------------------------------------------------- timing


def timed(timers: Sequence[Timer], settings: Settings) -> list[float]:
    """Median µs per call of each timer, over interleaved blocks of about ``settings.block`` s.

    The machines this runs on drift by tens of percent over seconds (other jobs share
    the cores); alternating short blocks makes drift hit every timer alike. Slow
    statements get fewer rounds (``settings.budget`` s per comparison, at least
    ``settings.min_rounds``).
    """
    numbers, per_call = [], []
    for one in timers:
        first = one.timeit(1).median  # also the warm-up
        if first < settings.block:
            calibration = one.blocked_autorange(min_run_time=settings.block)
            numbers.append(calibration.number_per_run)
            per_call.append(calibration.median)
        else:
            numbers.append(1)
            per_call.append(first)
    per_round = sum(n * t for n, t in zip(numbers, per_call))
    rounds = max(settings.min_rounds, min(settings.rounds, int(settings.budget / per_round)))
    times: list[list[float]] = [[] for _ in timers]
    for round_ in range(rounds):
        order = range(len(timers)) if round_ % 2 == 0 else reversed(range(len(timers)))
        for which in order:
            times[which] += timers[which].timeit(numbers[which]).times
    return [statistics.median(each) * 1e6 for each in times]


def timer(stmt: str, names: dict[str, Any]) -> Timer:
    """A one-thread Timer of ``stmt`` with the helpers and ``names`` in scope."""
    return Timer(stmt=stmt, globals={**NAMESPACE, **names}, num_threads=1)


def backward_timer(expr: str, inputs: dict[str, torch.Tensor], grad: tuple[str, ...]) -> Timer:
    """A Timer of ``expr`` forward and its backward, with a fixed output gradient."""
    leaves = {name: x.detach().requires_grad_(name in grad) for name, x in inputs.items()}
    out_grad = torch.ones_like(eval(expr, {**NAMESPACE, **leaves}))
    names = {**leaves, "_wrt": tuple(leaves[name] for name in grad), "_grad": out_grad}
    return timer(f"torch.autograd.grad({expr}, _wrt, _grad)", names)


def us(value: float) -> str:
    """A duration in µs, about three significant digits."""
    if value < 10:
        return f"{value:.2f} µs"
    if value < 100:
        return f"{value:.1f} µs"
    return f"{value:,.0f} µs"


def ratio(original: float, rewritten: float) -> str:
    """``helper / original`` and the absolute difference."""
    diff = rewritten - original
    return f"{rewritten / original:.2f}x ({'+' if diff >= 0 else '−'}{us(abs(diff))})"


def eager_rows(case: Case, settings: Settings) -> list[Row]:
    """Forward, and forward+backward when differentiable, on ``settings.device``."""
    inputs = case.make(settings.device)
    pairs = [("eager fwd", timer(case.original, inputs), timer(case.rewritten, inputs))]
    if case.grad:
        pairs.append(("eager fwd+bwd", backward_timer(case.original, inputs, case.grad),
                      backward_timer(case.rewritten, inputs, case.grad)))
    rows = []
    for label, original, rewritten in pairs:
        before, after = timed([original, rewritten], settings)
        rows.append(Row(case.helper, f"{case.case} · {label}", case.size, us(before), us(after), ratio(before, after)))
    return rows


# ----------------------------------------------------------------------------- ONNX Runtime


class Call(torch.nn.Module):
    """A module whose forward is ``fn`` (what the exporter traces)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.fn(*inputs)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence stdout/stderr at the file-descriptor level (the exporter prints graphs from C++)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def export(expr: str, inputs: dict[str, torch.Tensor], dynamic_axes: dict[str, dict[int, str]] | None = None
           ) -> bytes | str:
    """ONNX bytes of ``expr`` (TorchScript exporter, opset 17), or why it does not export."""
    fn = eval(f"lambda {', '.join(inputs)}: {expr}", NAMESPACE)
    buffer = io.BytesIO()
    try:
        with quiet():
            torch.onnx.export(Call(fn), tuple(inputs.values()), buffer, dynamo=False, opset_version=17,
                              input_names=list(inputs), output_names=["out"], dynamic_axes=dynamic_axes or {})
    except Exception as exc:  # noqa: BLE001 - the reason is reported, not raised
        return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:110]}"
    return buffer.getvalue()


def session(model: bytes) -> Any:
    """A CPU ONNX Runtime session with one intra-op and one inter-op thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def ort_rows(case: Case, settings: Settings, notes: list[str]) -> list[Row]:
    """ONNX Runtime latency of both graphs: static shapes, and dynamic axes if the case has them."""
    inputs = case.make("cpu")
    feeds = {name: x.numpy() for name, x in inputs.items()}
    variants: list[tuple[str, dict[str, dict[int, str]] | None]] = [("static", None)]
    if case.dynamic_axes:
        axes = ",".join(a for dims in case.dynamic_axes.values() for a in dims.values())
        variants.append((f"dynamic {axes}", case.dynamic_axes))
    rows = []
    for label, dynamic_axes in variants:
        graphs = [export(expr, inputs, dynamic_axes) for expr in (case.original, case.rewritten)]
        for which, graph in zip(("original", "helper"), graphs):
            if isinstance(graph, str):
                notes.append(f"- {case.case}, {case.size}, {label}: the {which} does not export ({graph})")
        timers = [timer("run(None, feeds)", {"run": session(g).run, "feeds": feeds}) if isinstance(g, bytes) else None
                  for g in graphs]
        title = f"{case.case} · ORT {label}"
        if None not in timers:
            before, after = timed(timers, settings)
            rows.append(Row(case.helper, title, case.size, us(before), us(after), ratio(before, after)))
            continue
        cells = []
        for one in timers:
            cells.append(us(timed([one], settings)[0]) if one is not None else "does not export")
        rows.append(Row(case.helper, title, case.size, cells[0], cells[1], "—"))
    return rows


def atan2_accuracy_rows(settings: Settings) -> list[Row]:
    """Error of each exported atan2 graph against torch eager: random values and an edge grid."""
    def run(expr: str, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        graph = export(expr, inputs)
        assert isinstance(graph, bytes), graph
        return torch.from_numpy(session(graph).run(None, {k: v.numpy() for k, v in inputs.items()})[0])

    exprs = ("torch.atan2(y, x)", "_trt_atan2(y, x)")
    size = 10_000 if settings.quick else 1_000_000
    inputs = randn2(size)("cpu")
    expected = torch.atan2(inputs["y"], inputs["x"])
    errors = [(run(expr, inputs) - expected).abs().max().item() for expr in exprs]
    rows = [Row("_trt_atan2", "torch.atan2(y, x) · ORT max abs error vs eager, randn", f"{size:.0e}",
                f"{errors[0]:.1e}", f"{errors[1]:.1e}", "—")]
    edges = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0])
    y, x = (t.reshape(-1).contiguous() for t in torch.meshgrid(edges, edges, indexing="ij"))
    expected = torch.atan2(y, x)
    wrong = []
    for expr in exprs:
        got = run(expr, {"y": y, "x": x})
        same = (torch.isnan(got) & torch.isnan(expected)) | (
            torch.isclose(got, expected, rtol=0, atol=1e-6) & (torch.signbit(got) == torch.signbit(expected)))
        wrong.append(int((~same).sum()))
    rows.append(Row("_trt_atan2", "torch.atan2(y, x) · ORT wrong on edge grid {0,−0,±inf,nan,±1}²", "7x7",
                    f"{wrong[0]} of 49", f"{wrong[1]} of 49", "—"))
    return rows


# ----------------------------------------------------------------------------- report


def machine(device: str) -> str:
    """CPU model, core count, torch / ONNX Runtime versions (and the GPU, if used)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        import onnxruntime

        ort_version = onnxruntime.__version__
    except ImportError:
        ort_version = "not installed"
    text = (f"CPU: {cpu} ({os.cpu_count()} cores), torch {torch.__version__}, onnxruntime {ort_version}, "
            f"1 thread")
    if device.startswith("cuda"):
        text += f"; eager on {torch.cuda.get_device_name(device)}, ORT on CPU"
    return text


def markdown(rows: list[Row]) -> str:
    """The rows as one markdown table."""
    lines = ["| helper | case | size | original | helper | ratio (helper/original) |",
             "| --- | --- | --- | ---: | ---: | --- |"]
    for r in rows:
        name = r.helper if r.helper.startswith("(") else f"`{r.helper}`"
        lines.append(f"| {name} | {r.case} | {r.size} | {r.original} | {r.replacement} | {r.ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="device for the eager timings (cpu, cuda); ORT is CPU")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and shorter measurements (~30 s)")
    parser.add_argument("--no-onnx", action="store_true", help="skip the ONNX Runtime comparisons")
    parser.add_argument("--output", type=str, help="also write the report (markdown) to this file")
    parser.add_argument("--match", type=str, default="", help="only the cases whose size or case holds this text")
    args = parser.parse_args()
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device visible to torch")
    torch.set_num_threads(1)
    if args.quick:
        settings = Settings(args.device, rounds=8, min_rounds=3, block=0.01, budget=0.15, quick=True)
    else:
        settings = Settings(args.device, rounds=20, min_rounds=5, block=0.02, budget=1.0, quick=False)
    start = time.perf_counter()
    rows: list[Row] = []
    notes: list[str] = []
    selected = [case for case in cases() if (case.quick or not args.quick)
                and (args.match in case.size or args.match in case.case or args.match in case.helper)]
    for case in selected:
        rows += eager_rows(case, settings)
    if not args.no_onnx:
        for case in selected:
            if case.ort:
                rows += ort_rows(case, settings, notes)
        rows += atan2_accuracy_rows(settings)
    check = timer("_trt_onnx_exporting()", {"_trt_onnx_exporting": _trt_onnx_exporting})
    check_us = timed([check], settings)[0]
    mode = "--quick" if args.quick else "full run"
    report = [
        f"Machine: {machine(args.device)}",
        "",
        markdown(rows),
        "",
        f"Median time per call over {settings.min_rounds} to {settings.rounds} interleaved rounds "
        f"({mode}, {time.perf_counter() - start:.0f} s); ratio is helper / original, with the difference. "
        f"The helpers' export check `_trt_onnx_exporting()` alone costs {us(check_us)} per call. "
        "The (noise floor) rows time the original against itself: ratios that far from 1.00x are noise.",
        *(["", "Not exported:", *notes] if notes else []),
    ]
    text = "\n".join(report)
    print(text)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()
