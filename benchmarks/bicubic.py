"""Cost and error of TRT727's bicubic weight matrices against ``F.interpolate(mode="bicubic")``.

Baseline: ``F.interpolate(x, size, mode="bicubic")`` as the user's code called it. Measured:

- eager, one thread: the baseline; ``_trt_interpolate`` as the rewritten code calls it
  (``F.interpolate`` itself outside an export, so only its dispatch cost); the export
  formulation ``_trt_bicubic_onnx`` run eagerly (what the graph computes);
- ONNX Runtime CPU, one thread: the TorchScript-exported graph of a module calling the
  baseline (a cubic ``Resize``, which ONNX Runtime runs and TensorRT cannot parse) against the
  one calling the helper (two MatMuls);
- max abs error of the formulation (eager and ONNX Runtime) against the baseline, and that
  error relative to the largest output value.

    python benchmarks/bicubic.py [--repeat N]

Times are medians of N rounds after warm-up, each round running every variant once; on a shared machine read the ratios, not the
microseconds. Prints one markdown table; the numbers go into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import io
import platform
import statistics
import time
import warnings
from typing import Callable

import onnxruntime as ort
import torch
import torch.nn.functional as F

from trtcodemod.helpers.interpolate import _trt_bicubic_onnx, _trt_interpolate

#: (label, input shape, output size): position embeddings (ViT-B at 224 → 384, YOLOS-tiny's
#: grid to an 800x1333 image), an image upscaled, a feature map downscaled.
CASES = [
    ("ViT-B pos. embedding 14x14 -> 24x24", (1, 768, 14, 14), (24, 24)),
    ("YOLOS-tiny pos. embedding 32x54 -> 50x84", (1, 192, 32, 54), (50, 84)),
    ("image 1x3x224x224 -> 448x448", (1, 3, 224, 224), (448, 448)),
    ("features 8x64x56x56 -> 28x28", (8, 64, 56, 56), (28, 28)),
]


def medians_us(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median time of each function; rounds alternate the functions so that load hits them alike."""
    for fn in fns:
        for _ in range(3):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, kept in zip(fns, times):
            start = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - start)
    return [statistics.median(kept) * 1e6 for kept in times]


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable, size: tuple[int, int]) -> None:
        super().__init__()
        self.fn, self.size = fn, size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x, size=self.size, mode="bicubic", align_corners=False)


def session(fn: Callable, x: torch.Tensor, size: tuple[int, int]) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Call(fn, size), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, onnxruntime {ort.__version__}, "
          f"one thread, median of {args.repeat}\n")
    print("| case | eager F.interpolate (µs) | eager _trt_interpolate | eager matrices | ORT cubic Resize (µs) "
          "| ORT matrices | max abs error, eager / ORT | relative to max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for label, shape, size in CASES:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(0))
        with torch.no_grad():
            want = F.interpolate(x, size=size, mode="bicubic", align_corners=False)
            base, helper, matrices = medians_us([
                lambda: F.interpolate(x, size=size, mode="bicubic", align_corners=False),
                lambda: _trt_interpolate(x, size=size, mode="bicubic", align_corners=False),
                lambda: _trt_bicubic_onnx(x, size, None, False, False),
            ], args.repeat)
            eager_error = (_trt_bicubic_onnx(x, size, None, False, False) - want).abs().max().item()
        feed = {"x": x.numpy()}
        resize, matmul = session(F.interpolate, x, size), session(_trt_interpolate, x, size)
        ort_resize, ort_matrices = medians_us([lambda: resize.run(None, feed), lambda: matmul.run(None, feed)],
                                              args.repeat)
        ort_error = float(abs(matmul.run(None, feed)[0] - want.numpy()).max())
        top = want.abs().max().item()
        print(f"| {label} | {base:.0f} | {helper:.0f} ({helper / base:.2f}x) | {matrices:.0f} ({matrices / base:.2f}x) "
              f"| {ort_resize:.0f} | {ort_matrices:.0f} ({ort_matrices / ort_resize:.2f}x) "
              f"| {eager_error:.1e} / {ort_error:.1e} | {eager_error / top:.1e} / {ort_error / top:.1e} |")


if __name__ == "__main__":
    main()
