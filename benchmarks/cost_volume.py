"""Cost of TRT369's full-width cost-volume planes against the sliced planes they replace.

TRT369 (``cost-volume-shift``) rewrites ``volume[:, :, i, :, i:] = f(ref[..., i:], tgt[..., :-i])`` into
``if _trt_tracing(): <each plane at full width> else: <the block as written>``: while tracing, every disparity
plane is computed at full width from the target moved ``i`` columns right and written from column ``i`` on with
``torch.where``. The sliced original computes ``W - i`` columns per plane; the traced copy computes ``W``, plus a
pad, a narrow and a select per plane. This measures what that costs on the two common volume kinds (group-wise
correlation, GwcNet/IGEV; concatenation, PSMNet), at quarter resolution of stereo inputs, with the sliced original
as the baseline:

- eager forward on one thread (``torch.set_num_threads(1)``), original vs the code TRT369 writes (produced by the
  project's own rewrite of the source below, not written by hand): eager runs the block as written, so this is
  the cost of the ``_trt_tracing()`` test per plane;
- ONNX Runtime (CPU, one intra-op thread) on each one's TorchScript export at static shapes (the original exports
  there; it is where it fails, a width at or below the range, that the rewrite is for): the full-width graph's
  cost;
- the columns each graph computes: ``D * W`` against the sum over planes of ``W - i``.

    python benchmarks/cost_volume.py [--runs 20] [--quick]

Prints one markdown table; times are medians of `--runs` calls each. No test runs this.
"""

from __future__ import annotations

import argparse
import io
import platform
import types
import warnings

import onnxruntime as ort
import torch

from topk_rounds import _median_ms  # a sibling script: run from the repository root, benchmarks/ is on sys.path
from trtcodemod.engine import Options, fix_source

SOURCE = '''import torch


def correlation(fea1, fea2, groups: int):
    B, C, H, W = fea1.shape
    return (fea1 * fea2).view([B, groups, C // groups, H, W]).mean(dim=2)


def groupwise(ref, tgt, D: int, groups: int):
    B, C, H, W = ref.shape
    volume = ref.new_zeros([B, groups, D, H, W])
    for i in range(D):
        if i > 0:
            volume[:, :, i, :, i:] = correlation(ref[:, :, :, i:], tgt[:, :, :, :-i], groups)
        else:
            volume[:, :, i, :, :] = correlation(ref, tgt, groups)
    return volume


def concatenated(ref, tgt, D: int):
    B, C, H, W = ref.shape
    volume = ref.new_zeros([B, 2 * C, D, H, W])
    for i in range(D):
        if i > 0:
            volume[:, :C, i, :, i:] = ref[:, :, :, i:]
            volume[:, C:, i, :, i:] = tgt[:, :, :, :-i]
        else:
            volume[:, :C, i, :, :] = ref
            volume[:, C:, i, :, :] = tgt
    return volume
'''


def _module(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def _rewritten() -> str:
    result = fix_source(SOURCE.encode(), "cost_volume.py", Options(select=("TRT369",), unsafe=True))
    if result.source.decode().count("_trt_where_from(") < 4:  # the helper's definition and three writes
        raise SystemExit("TRT369 did not rewrite the benchmark's source: nothing to measure")
    return result.source.decode()


class _Volume(torch.nn.Module):
    def __init__(self, fn, *extra: int) -> None:
        super().__init__()
        self.fn, self.extra = fn, extra

    def forward(self, ref, tgt):
        return self.fn(ref, tgt, *self.extra)


def _session(model: torch.nn.Module, ref: torch.Tensor, tgt: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (ref, tgt), buffer, dynamo=False, opset_version=17, input_names=["ref", "tgt"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="the smaller shape only, 5 runs")
    args = parser.parse_args()
    runs = 5 if args.quick else args.runs
    torch.set_num_threads(1)
    original, rewritten = _module(SOURCE, "original"), _module(_rewritten(), "rewritten")
    # Quarter resolution of a 256x512 crop and of a full 384x1248 KITTI frame; D = 192 / 4.
    shapes = [(1, 32, 64, 128, 48)] + ([] if args.quick else [(1, 32, 96, 312, 48)])
    print(f"Machine: {platform.processor() or platform.machine()}, torch {torch.__version__}, "
          f"onnxruntime {ort.__version__}, one thread, median of {runs} runs.\n")
    print("| volume | B, C, H, W, D | columns computed (rewrite / original) | eager original | eager rewrite | ratio "
          "| ONNX Runtime original | ONNX Runtime rewrite | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for B, C, H, W, D in shapes:
        generator = torch.Generator().manual_seed(0)
        ref, tgt = (torch.randn(B, C, H, W, generator=generator) for _ in range(2))
        columns = D * W / sum(W - i for i in range(D))
        for kind, extra in (("groupwise", (D, 8)), ("concatenated", (D,))):
            before = _Volume(getattr(original, kind), *extra)
            after = _Volume(getattr(rewritten, kind), *extra)
            torch.testing.assert_close(after(ref, tgt), before(ref, tgt), rtol=1e-5, atol=1e-6)
            eager = [_median_ms(lambda m=m: m(ref, tgt), runs) for m in (before, after)]
            sessions = [_session(m, ref, tgt) for m in (before, after)]
            feed = {"ref": ref.numpy(), "tgt": tgt.numpy()}
            graph = [_median_ms(lambda s=s: s.run(None, feed), runs) for s in sessions]
            print(f"| {kind} | {B}, {C}, {H}, {W}, {D} | {columns:.2f}x | {eager[0]:.1f} ms | {eager[1]:.1f} ms "
                  f"| {eager[1] / eager[0]:.2f}x | {graph[0]:.1f} ms | {graph[1]:.1f} ms | {graph[1] / graph[0]:.2f}x |")


if __name__ == "__main__":
    main()
