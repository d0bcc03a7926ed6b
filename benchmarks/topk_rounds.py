"""Cost of TRT804's TopK rounds: ONNX Runtime (CPU) on one TopK of K vs the rounds, and eager mode
(where the helper calls torch.topk itself).

    python benchmarks/topk_rounds.py [--rows 3] [--n 12000] [--k 5000] [--runs 50]
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
import warnings

import onnx
import onnxruntime as ort
import torch

from trtcodemod.helpers.detection import _trt_topk_large


class _Top(torch.nn.Module):
    def __init__(self, k: int, rounds: bool) -> None:
        super().__init__()
        self.k, self.rounds = k, rounds

    def forward(self, x):
        return tuple((_trt_topk_large if self.rounds else torch.topk)(x, self.k, 1))


def _median_ms(fn, runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=3)
    parser.add_argument("--n", type=int, default=12000)
    parser.add_argument("--k", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    x = torch.randn(args.rows, args.n)
    for rounds in (False, True):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Top(args.k, rounds), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"])
        model = onnx.load_from_string(buffer.getvalue())
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        feed = {"x": x.numpy()}
        ms = _median_ms(lambda: session.run(None, feed), args.runs)
        topks = sum(node.op_type == "TopK" for node in model.graph.node)
        print(f"onnxruntime  {'rounds' if rounds else 'one TopK':9}  TopK nodes {topks}  median {ms:.2f} ms")
    torch.set_num_threads(1)
    eager = _median_ms(lambda: torch.topk(x, args.k, 1), args.runs)
    helper = _median_ms(lambda: _trt_topk_large(x, args.k, 1), args.runs)
    print(f"eager        torch.topk {eager:.3f} ms   _trt_topk_large {helper:.3f} ms   ratio {helper / eager:.3f}")


if __name__ == "__main__":
    main()
