"""Cost of TRT716's ``_trt_sizes_tensor`` against ``torch.as_tensor`` (the baseline).

- eager: ``torch.as_tensor(shapes, dtype=torch.long)`` vs the helper on the same Python list
  of ``(h, w)`` pairs (its fixed cost is the check for a trace in progress);
- ONNX Runtime (CPU, one thread): a toy model whose spatial shapes feed an offset normaliser,
  exported with the TorchScript exporter and dynamic H/W, original (the shapes a constant, wrong
  at other sizes) vs rewritten (the shapes computed from the input's sizes); both graphs run at
  the export size.

    python benchmarks/sizes_tensor.py [--levels 4]

Times are medians of torch.utils.benchmark / timeit rounds; the numbers go into the report,
never into a test.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
import warnings

import onnxruntime as ort
import torch
from torch.utils.benchmark import Timer

from trtcodemod.helpers.sizes_tensor import _trt_sizes_tensor


class _Levels(torch.nn.Module):
    """Feature maps at ``levels`` strides → spatial shapes → (w, h) normaliser → a division."""

    def __init__(self, levels: int, helper: bool) -> None:
        super().__init__()
        self.levels, self.helper = levels, helper

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shapes, pooled = [], []
        for level in range(self.levels):
            feature = torch.nn.functional.avg_pool2d(x, 2 ** level)
            h, w = feature.shape[2:]
            shapes.append((h, w))
            pooled.append(feature.amax((2, 3)))  # the features are used, as a model's are
        make = _trt_sizes_tensor if self.helper else torch.as_tensor
        spatial = make(shapes, dtype=torch.long, device=x.device)
        normalizer = torch.stack([spatial[:, 1], spatial[:, 0]], -1).to(x.dtype)
        return torch.stack(pooled, -1)[..., None] / normalizer


def _eager(levels: int) -> tuple[float, float]:
    shapes = [(128 >> k, 96 >> k) for k in range(levels)]
    names = {"torch": torch, "_trt_sizes_tensor": _trt_sizes_tensor, "shapes": shapes}
    timers = [Timer(stmt, globals=names) for stmt in ("torch.as_tensor(shapes, dtype=torch.long)",
                                                      "_trt_sizes_tensor(shapes, dtype=torch.long)")]
    rounds: list[list[float]] = [[], []]
    for _ in range(5):  # interleaved, so a busy moment of the machine hits both
        for timer, out in zip(timers, rounds):
            out.append(timer.blocked_autorange(min_run_time=0.3).median * 1e6)
    return statistics.median(rounds[0]), statistics.median(rounds[1])


def _onnx(levels: int, helper: bool) -> float:
    x = torch.randn(1, 8, 128, 96)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Levels(levels, helper), (x,), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {2: "h", 3: "w"}})
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
    feed = {"x": x.numpy()}
    for _ in range(20):
        session.run(None, feed)
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            session.run(None, feed)
        rounds.append((time.perf_counter() - start) / 200 * 1e6)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(1)
    base, helper = _eager(args.levels)
    print(f"| what ({args.levels} levels) | torch.as_tensor (baseline) | _trt_sizes_tensor |")
    print("| --- | ---: | ---: |")
    print(f"| eager call | {base:.2f} us | {helper:.2f} us |")
    print(f"| ONNX Runtime, TorchScript export (dynamic H/W), 1x8x128x96 | {_onnx(args.levels, False):.1f} us "
          f"| {_onnx(args.levels, True):.1f} us |")


if __name__ == "__main__":
    main()
