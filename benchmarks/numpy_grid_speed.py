"""Eager speed of TRT711's rewrite on the YOLO grid: NumPy + from_numpy vs the torch form.

    python benchmarks/numpy_grid_speed.py

Prints the median time per call of ``make_grid`` before and after the rewrite for a few
feature-map sizes (single thread, CPU), and the ratio after/before.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch


def before(output: torch.Tensor) -> torch.Tensor:
    ny, nx = output.size(2), output.size(3)
    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))


def after(output: torch.Tensor) -> torch.Tensor:
    ny, nx = output.size(2), output.size(3)
    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
    return torch.stack((xv, yv), 2).to(torch.float32)


def median_us(fn, x: torch.Tensor, runs: int = 2000) -> float:
    for _ in range(100):
        fn(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    torch.set_num_threads(1)
    print("| H x W | before (us) | after (us) | after / before |")
    print("| --- | ---: | ---: | ---: |")
    for h, w in [(20, 20), (40, 40), (80, 80), (160, 160)]:
        x = torch.zeros(1, 2, h, w)
        assert torch.equal(before(x), after(x))
        b, a = median_us(before, x), median_us(after, x)
        print(f"| {h} x {w} | {b:.1f} | {a:.1f} | {a / b:.2f} |")


if __name__ == "__main__":
    main()
