"""Which torch functions the TorchScript exporter cannot convert, or converts to other values.

    python benchmarks/export_coverage.py [--markdown] [NAME ...]

Each case is one torch function called on small fixed tensors (values of both signs, a zero, and
for the division cases negative quotients). It is exported with ``torch.onnx.export(dynamo=False,
opset_version=17)``, run in ONNX Runtime, and compared with eager torch (shape, then values within
1e-4, NaN where NaN). The outcome is one of:

- ``ok``: exports and gives torch's values;
- ``fails``: the export stops (``UnsupportedOperatorError`` or another exporter error);
- ``differs``: it exports and loads, and ONNX Runtime gives other values (silently: the worst kind);
- ``refused``: ONNX Runtime refuses the graph.

The ``rule`` column names the trtcodemod rule whose rewrite takes the call (none: nothing does yet).
Run it after a torch upgrade: a function that starts to export, or to differ, shows here first.
The table of the last run is in README ("Export coverage of torch functions").
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F

_g = torch.Generator().manual_seed(0)
A = torch.randn(3, 5, generator=_g)
B = torch.randn(3, 5, generator=_g)
POS = torch.rand(3, 5, generator=_g) + 0.1
M = torch.randn(2, 3, 3, generator=_g)
V = torch.randn(5, generator=_g)
SQ = torch.randn(3, 3, generator=_g)
IDX = torch.tensor([3, 0, 2, 3, 1, 0, 2])
SIGNED = torch.tensor([-7, -1, 0, 5, 7, -4])
DIVISORS = torch.tensor([2, 3, -3, -2, 2, 3])
IMG = torch.randn(1, 4, 8, 8, generator=_g)
VOL = torch.randn(1, 1, 5, 5, 5, generator=_g)
W3D = torch.randn(2, 1, 3, 3, 3, generator=_g)
GRID = torch.rand(1, 3, 3, 2, generator=_g) * 2 - 1


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable[..., torch.Tensor]
    inputs: tuple[torch.Tensor, ...]
    rule: str = ""


CASES = (
    # TRT337's table and neighbours
    Case("take_along_dim", lambda x: torch.take_along_dim(x, torch.tensor([[0], [2], [4]]), 1), (A,), "TRT337"),
    Case("diff", lambda x: torch.diff(x, dim=1), (A,), "TRT337"),
    Case("rot90", lambda x: torch.rot90(x), (A,), "TRT337"),
    Case("count_nonzero", lambda x: torch.count_nonzero(x > 0, 1), (A,), "TRT337"),
    Case("nansum", lambda x: torch.nansum(x, 1), (A,), "TRT337"),
    Case("trunc", lambda x: torch.trunc(x * 3), (A,), "TRT337"),
    Case("heaviside", lambda x: torch.heaviside(x, torch.tensor(0.5)), (A,), "TRT337"),
    Case("isclose", lambda x, y: torch.isclose(x, y, atol=0.5), (A, B), "TRT337"),
    Case("kron", lambda x: torch.kron(x, SQ), (A,), "TRT337"),
    Case("xlogy", lambda x, y: torch.xlogy(x, y), (A, POS), "TRT337"),
    Case("signbit", lambda x: torch.signbit(x), (A,), "TRT337"),
    Case("copysign", lambda x, y: torch.copysign(x, y), (A, B), "TRT337"),
    Case("cumprod", lambda x: torch.cumprod(x, 1), (A,), "TRT337"),
    Case("rms_norm", lambda x: F.rms_norm(x, (5,)), (A,), "TRT337"),
    Case("nn.RMSNorm", torch.nn.RMSNorm(5), (A,), "TRT337"),
    Case("expm1", lambda x: torch.expm1(x), (A,), "TRT337"),
    Case("fmin", lambda x, y: torch.fmin(x, y), (A, B), "TRT337"),
    Case("fmax", lambda x, y: torch.fmax(x, y), (A, B), "TRT337"),
    Case("fliplr", lambda x: torch.fliplr(x), (A,), "TRT337"),
    Case("flipud", lambda x: x.flipud(), (A,), "TRT337"),
    Case("adjoint", lambda x: x.adjoint(), (M,), "TRT337"),
    Case("diag_embed", lambda x: torch.diag_embed(x), (A,), "TRT337"),
    Case("frac", lambda x: torch.frac(x * 3), (A,), "TRT337"),
    Case("sgn", lambda x: torch.sgn(x), (A,), "TRT337"),
    Case("threshold (value != 0)", lambda x: F.threshold(x, 0.1, 20.0), (A,), "TRT337"),
    Case("nn.Threshold", torch.nn.Threshold(0.1, 20.0), (A,), "TRT337"),
    Case("addcdiv", lambda x, y: torch.addcdiv(x, x, y + 3, value=0.5), (A, B), "TRT337"),
    Case("interpolate nearest-exact", lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"), (IMG,),
         "TRT337"),
    Case("interpolate nearest-exact 1-D", lambda x: F.interpolate(x, size=7, mode="nearest-exact"), (A[None],),
         "TRT337"),
    Case("interpolate nearest-exact 3-D", lambda x: F.interpolate(x, scale_factor=2, mode="nearest-exact"), (VOL,),
         "TRT337"),
    Case("nn.Upsample nearest-exact", torch.nn.Upsample(scale_factor=2, mode="nearest-exact"), (IMG,), "TRT337"),
    Case("sdpa enable_gqa", lambda q: F.scaled_dot_product_attention(q, q[:, :2], q[:, :2], enable_gqa=True),
         (torch.randn(1, 4, 5, 8, generator=_g),), "TRT337"),
    Case("sinh", lambda x: torch.sinh(x), (A,), "TRT337"),
    Case("cosh", lambda x: torch.cosh(x), (A,), "TRT337"),
    Case("asinh", lambda x: torch.asinh(x), (A,), "TRT337"),
    Case("acosh", lambda x: torch.acosh(x.abs() + 1), (A,), "TRT337"),
    Case("atanh", lambda x: torch.atanh(x / 4), (A,), "TRT337"),
    # other rules' functions
    Case("atan2 (signed zeros)", lambda x, y: torch.atan2(x, y),
         (torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0]), torch.tensor([-1.0, -1.0, -0.0, -0.0, 0.0])), "TRT301"),
    Case("isin", lambda x: torch.isin(x, torch.tensor([0, 2])), (IDX,), "TRT305"),
    Case("cummax", lambda x: torch.cummax(x, 1).values, (A,), "TRT307"),
    Case("cummin", lambda x: torch.cummin(x, 1).values, (A,), "TRT307"),
    Case("rad2deg", lambda x: torch.rad2deg(x), (A,), "TRT308"),
    Case("mT", lambda x: x.mT, (M,), "TRT314"),
    Case("searchsorted", lambda x: torch.searchsorted(torch.tensor([-1.0, 0.0, 1.0]), x), (A,), "TRT318"),
    Case("bucketize", lambda x: torch.bucketize(x, torch.tensor([-0.5, 0.0, 0.5])), (A,), "TRT318"),
    Case("median", lambda x: torch.median(x, 1).values, (A,), "TRT319"),
    Case("diag", lambda x: torch.diag(x), (V,), "TRT320"),
    Case("histc", lambda x: torch.histc(x, 4, -2, 2), (A,), "TRT321"),
    Case("inverse", lambda x: torch.inverse(x @ x.mT + torch.eye(3)), (M,), "TRT338"),
    Case("exp2", lambda x: torch.exp2(x), (A,), "TRT708"),
    Case("isposinf", lambda x: torch.isposinf(x), (A,), "TRT733"),
    Case("floor_divide (int)", lambda x, y: x // y, (SIGNED, DIVISORS), "TRT339"),
    Case("floor_divide (float)", lambda x: x // 0.7, (A,), "TRT339"),
    # torch floors the exact quotient of the difference (1.0 // 0.1 is 9.0); the graph floors the rounded one.
    Case("div floor (float)", lambda x: torch.div(x, 0.1, rounding_mode="floor"), (torch.tensor([1.0, -1.0, 2.9]),),
         "TRT339 (migrate)"),
    Case("bitwise_and (int)", lambda x: x & 3, (IDX,), "TRT732 (sizes)"),
    # not taken by any rule yet (but max_unpool2d, TRT340, the accumulating writes, TRT341, and the stable sort, TRT343)
    Case("inner", lambda x, y: torch.inner(x, y), (A, B)),
    Case("vecdot", lambda x, y: torch.linalg.vecdot(x, y), (A, B)),
    Case("block_diag", lambda x, y: torch.block_diag(x, y), (A, B)),
    Case("cartesian_prod", lambda x: torch.cartesian_prod(x, x), (V,)),
    Case("trapezoid", lambda x: torch.trapezoid(x, dim=-1), (A,)),
    Case("logcumsumexp", lambda x: torch.logcumsumexp(x, 1), (A,)),
    Case("quantile", lambda x: torch.quantile(x, 0.3, dim=1), (A,)),
    Case("nanmedian", lambda x: torch.nanmedian(x, 1).values, (A,)),
    Case("bincount", lambda x: torch.bincount(x, minlength=5), (IDX,)),
    Case("unique_consecutive", lambda x: torch.unique_consecutive(x), (IDX,)),
    Case("erfinv", lambda x: torch.erfinv(x / 4), (A,)),
    Case("lgamma", lambda x: torch.lgamma(x), (POS,)),
    Case("erfc", lambda x: torch.erfc(x), (A,)),
    Case("cov", lambda x: torch.cov(x), (A,)),
    Case("sort stable", lambda x: torch.sort(x, stable=True).values, (A,), "TRT343"),
    Case("msort", lambda x: torch.msort(x), (A,), "TRT343"),
    Case("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 2), (A[None],), "TRT602"),
    Case("max_unpool2d", lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), (IMG,), "TRT340"),
    Case("index_add (repeated index)", lambda x: x.index_add(0, torch.tensor([0, 0, 2]), torch.ones(3, 5)), (A,), "TRT341"),
    Case("index_put accumulate", lambda x: x.index_put((torch.tensor([0, 0, 2]),), torch.ones(3, 5), accumulate=True),
         (A,), "TRT341"),
    Case("nonzero_static", lambda x: torch.nonzero_static(x > 0, size=4), (A,)),
    # close relatives of the table's functions, not taken either (probed with them; none is called in the pinned
    # libraries' model code)
    Case("erfcx", lambda x: torch.special.erfcx(x), (A,)),
    Case("ndtr", lambda x: torch.special.ndtr(x), (A,)),
    Case("log_ndtr", lambda x: torch.special.log_ndtr(x), (A,)),
    Case("i0", lambda x: torch.i0(x), (A,)),
    Case("entr", lambda x: torch.special.entr(x), (POS,)),
    Case("digamma", lambda x: torch.digamma(x), (POS,)),
    Case("polygamma", lambda x: torch.polygamma(1, x), (POS,)),
    Case("mvlgamma", lambda x: torch.mvlgamma(x + 2, 1), (POS,)),
    Case("xlog1py", lambda x, y: torch.special.xlog1py(x, y), (A, POS)),
    Case("float_power", lambda x: torch.float_power(x, 2), (A,)),
    Case("ldexp", lambda x: torch.ldexp(x, torch.tensor(2)), (A,)),
    Case("vander", lambda x: torch.vander(x, 3), (V,)),
    Case("diagflat", lambda x: torch.diagflat(x), (V,)),
    Case("linalg.diagonal", lambda x: torch.linalg.diagonal(x), (M,)),
    Case("positive", lambda x: torch.positive(x), (A,)),
    Case("mH", lambda x: x.mH, (M,)),
    # exports, and ONNX's Sign gives NaN where torch's sign gives 0
    Case("sign (NaN)", lambda x: torch.sign(x), (torch.tensor([float("nan"), -2.0, 0.0, 3.0]),)),
    # exported well (controls)
    Case("log1p", lambda x: torch.log1p(x), (POS,)),
    Case("remainder", lambda x: torch.remainder(x, 0.7), (A,)),
    Case("div floor (int)", lambda x, y: torch.div(x, y, rounding_mode="floor"), (SIGNED, DIVISORS)),
    Case("cdist", lambda x, y: torch.cdist(x, y), (A, B)),
    Case("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), (IMG,)),
    Case("grid_sample", lambda x: F.grid_sample(x, GRID, align_corners=False), (IMG,)),
    Case("conv3d", lambda x: F.conv3d(x, W3D), (VOL,)),
    Case("scatter_add", lambda x: x.scatter_add(0, torch.tensor([[0] * 5, [0] * 5, [2] * 5]), torch.ones(3, 5)), (A,)),
)


@contextlib.contextmanager
def _quiet_stdout():
    """Standard output closed at the file descriptor: torch's C++ side prints the graph it failed on."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


class _Call(torch.nn.Module):
    def __init__(self, call: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.call = call

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.call(*inputs)


def outcome(case: Case) -> tuple[str, str]:
    """What the exporter and ONNX Runtime make of ``case``, and a detail."""
    model = case.call if isinstance(case.call, torch.nn.Module) else _Call(case.call)
    want = model(*case.inputs)
    buffer = io.BytesIO()
    names = [f"input_{i}" for i in range(len(case.inputs))]
    # The exporter prints the failing TorchScript graph: not part of the table.
    with warnings.catch_warnings(), _quiet_stdout():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(model, case.inputs, buffer, dynamo=False, opset_version=17, input_names=names)
        except Exception as error:  # noqa: BLE001 - the exporter's refusal is the result
            return "fails", f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"
    try:
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        feed = {i.name: case.inputs[names.index(i.name)].numpy() for i in session.get_inputs()}
        got = session.run(None, feed)[0]
    except Exception as error:  # noqa: BLE001
        return "refused", str(error).splitlines()[0][:90]
    expected = want.detach().numpy()
    if expected.shape != got.shape:
        return "differs", f"shape {got.shape}, torch {expected.shape}"
    if not np.allclose(expected.astype(np.float64), got.astype(np.float64), rtol=1e-4, atol=1e-5, equal_nan=True):
        if (np.isnan(expected.astype(np.float64)) != np.isnan(got.astype(np.float64))).any():
            return "differs", "NaN where torch gives a number, or a number where torch gives NaN"
        gap = np.nanmax(np.abs(expected.astype(np.float64) - got.astype(np.float64)))
        return "differs", f"largest difference {gap:.3g}"
    return "ok", ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.names or c.name in args.names]
    print(f"torch {torch.__version__}, onnxruntime {ort.__version__}, TorchScript exporter, opset 17")
    if args.markdown:
        print("\n| function | export | rule | detail |\n| --- | --- | --- | --- |")
    for case in cases:
        status, detail = outcome(case)
        if args.markdown:
            print(f"| `{case.name}` | {status} | {case.rule or '-'} | {detail.replace('|', '/')} |")
        else:
            print(f"{case.name:28s} {status:8s} {case.rule or '-':15s} {detail}")


if __name__ == "__main__":
    main()
