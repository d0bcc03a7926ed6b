"""TRT337 (functions with no TorchScript ONNX symbolic): the rewrite, eager mode, and the export.

For every function in the rule's table: the rewrite of its function and method forms (and what
is left), eager mode before and after on edge values (the torch function itself), the
export-time composition against the torch function on the same values (bit for bit for the
functions the table marks safe: signed zeros, infinities, NaN, half and integer types, empty
tensors, broadcasting; within rounding for the others), and one TorchScript export per function
(the original's fails) whose graph passes the TensorRT check and gives in ONNX Runtime, at two
other sizes of the dynamic axis, what eager torch gives.
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass
from typing import Callable

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import Run, assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.transforms.missing_symbolic import OPS
from trtcodemod.trt.check import check_graph

SPECIAL = (0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 2.5, -2.5, 1.0, -1.0, 3.0, 1e-30, -7.25)


def values(n: int, dtype: torch.dtype, seed: int = 0, exact: bool = False) -> torch.Tensor:
    """``n`` values: the special ones first (NaN and infinities for floats), then random ones (multiples
    of 1/4 when ``exact``, so that every sum of them is exact)."""
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        drawn = torch.randn(max(n, 1), generator=g, dtype=torch.float64) * 4
        if exact:
            drawn = (drawn * 4).round() / 4
        return torch.cat([torch.tensor(SPECIAL, dtype=torch.float64), drawn])[:n].to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), generator=g).bool()
    low = 0 if dtype == torch.uint8 else -9
    return torch.randint(low, 10, (n,), generator=g).to(dtype)


def rows(n: int, width: int, dtype: torch.dtype, seed: int = 0, exact: bool = False) -> torch.Tensor:
    return values(n * width, dtype, seed, exact).reshape(width, n).T.contiguous()


@dataclass
class Case:
    #: The call in the source, in function form (``a`` and ``b`` are the inputs).
    call: str
    #: Inputs: number of rows (the dynamic axis 0) and dtype -> the forward's arguments.
    inputs: Callable[[int, torch.dtype], list]
    #: Eager dtypes the function takes.
    dtypes: tuple[torch.dtype, ...]
    #: The method form, when there is one.
    method: str | None = None


FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
NUMBERS = FLOATS + (torch.int64, torch.int32, torch.uint8)


def one(width: int = 1):
    return lambda n, dtype: [rows(n, width, dtype) if width > 1 else values(n, dtype)]


def two(width: int = 1):
    return lambda n, dtype: [rows(n, width, dtype), rows(n, width, dtype, seed=1).flip(0)] if width > 1 else \
        [values(n, dtype), values(n, dtype, seed=1).flip(0)]


CASES: dict[str, Case] = {
    "take_along_dim": Case("torch.take_along_dim(a, b, dim=1)",
                           lambda n, dt: [rows(n, 4, dt), torch.randint(0, 4, (n, 6), generator=torch.Generator()
                                                                          .manual_seed(n))],
                           NUMBERS + (torch.bool,), "a.take_along_dim(b, 1)"),
    "diff": Case("torch.diff(a, n=2, dim=0)", one(3), NUMBERS + (torch.bool,), "a.diff(dim=0)"),
    "rot90": Case("torch.rot90(a, 1, [0, 1])", one(3), NUMBERS + (torch.bool,), "a.rot90(3, [1, 0])"),
    "count_nonzero": Case("torch.count_nonzero(a, 0)", one(3), NUMBERS + (torch.bool,), "a.count_nonzero(dim=1)"),
    # ONNX Runtime sums in its own order (as for torch.sum exported): values whose sums are exact.
    "nansum": Case("torch.nansum(a, 0)", lambda n, dt: [rows(n, 3, dt, exact=True)], NUMBERS,
                   "a.nansum(dim=1, keepdim=True)"),
    "nanmean": Case("torch.nanmean(a, dim=0)", lambda n, dt: [rows(n, 3, dt, exact=True)], FLOATS,
                    "a.nanmean(1, True)"),
    "trunc": Case("torch.trunc(a)", one(), NUMBERS, "a.trunc()"),
    # kornia's histogram matching ravels its images; a transposed input takes the copy path.
    "ravel": Case("torch.ravel(a.t())", one(3), NUMBERS + (torch.bool,), "a.ravel()"),
    "heaviside": Case("torch.heaviside(a, b)", two(), NUMBERS, "a.heaviside(b)"),
    "isclose": Case("torch.isclose(a, b, rtol=1e-2, atol=1e-3, equal_nan=True)",
                    lambda n, dt: [values(n, dt), (values(n, dt).double() * (1 + 0.02 * torch.randn(
                        n, generator=torch.Generator().manual_seed(3), dtype=torch.float64))).to(dt)
                                   if dt.is_floating_point else values(n, dt, seed=2)],
                    NUMBERS, "a.isclose(b)"),
    "kron": Case("torch.kron(a, b)", lambda n, dt: [rows(n, 2, dt), rows(3, 2, dt, seed=4)], NUMBERS,
                 "a.kron(b)"),
    "channel_shuffle": Case("F.channel_shuffle(a, 2)", lambda n, dt: [rows(n, 24, dt).reshape(n, 6, 4)],
                            (torch.float32, torch.float64, torch.uint8)),
    "xlogy": Case("torch.xlogy(a, b)", two(), NUMBERS, "a.xlogy(b)"),
    "sinc": Case("torch.special.sinc(a)", one(), FLOATS + (torch.int64,), "a.sinc()"),
    "signbit": Case("torch.signbit(a)", one(), NUMBERS, "a.signbit()"),
    "copysign": Case("torch.copysign(a, b)", two(), NUMBERS, "a.copysign(b)"),
    "trace": Case("torch.trace(a)", one(3), (torch.float32, torch.float64, torch.int64), "a.trace()"),
    "logaddexp": Case("torch.logaddexp(a, b)", two(), (torch.float32, torch.float64), "a.logaddexp(b)"),
    "hypot": Case("torch.hypot(a, b)", two(), (torch.float32, torch.float64), "a.hypot(b)"),
    "cumprod": Case("torch.cumprod(a, 0)", one(3), (torch.float32, torch.float64, torch.int64), "a.cumprod(dim=1)"),
    # eps by default (the machine epsilon of the computing type: float32 for half input); a weight of
    # both signs; rows of zeros, infinities and NaN among the input's.
    "rms_norm": Case("F.rms_norm(a, [3], b)", lambda n, dt: [rows(n, 3, dt), torch.tensor([-2.0, 0.5, 3.0]).to(dt)],
                     FLOATS),
    "expm1": Case("torch.expm1(a)", one(), FLOATS + (torch.int64, torch.bool), "a.expm1()"),
    "fmin": Case("torch.fmin(a, b)", two(), NUMBERS, "a.fmin(b)"),
    "fmax": Case("torch.fmax(a, b)", two(), NUMBERS, "a.fmax(b)"),
    "fliplr": Case("torch.fliplr(a)", one(3), NUMBERS + (torch.bool,), "a.fliplr()"),
    "flipud": Case("torch.flipud(a)", one(3), NUMBERS + (torch.bool,), "a.flipud()"),
    "adjoint": Case("torch.adjoint(a)", one(3), NUMBERS + (torch.bool,), "a.adjoint()"),
    # dims 0 and 2 of the result (the square across the dynamic axis) and an offset; the method: below it
    "diag_embed": Case("torch.diag_embed(a, 1, 0, 2)", one(3), NUMBERS + (torch.bool,), "a.diag_embed(-2)"),
    "frac": Case("torch.frac(a)", one(), FLOATS + (torch.int64,), "a.frac()"),
    "sgn": Case("torch.sgn(a)", one(), NUMBERS, "a.sgn()"),
    # torch compares a half input in float32: 1.7 rounds up to 1.7001953125 in float16, which is above the
    # threshold in float32 and at it in float16 (the input holds that number)
    "threshold": Case("F.threshold(a, 1.7, -2.5)",
                      lambda n, dt: [torch.cat([torch.tensor([1.7, 1.75], dtype=dt), values(n, dt)])[:n]], FLOATS),
    "addcdiv": Case("torch.addcdiv(a, a, b, value=0.3)", two(), FLOATS, "a.addcdiv(b, a.flip(0))"),
    # 1-D, 2-D and 3-D resizing: a 2-D one of (n, 2, 3, 5) inputs at a scale factor of 1.5 and 2.5
    "nearest_exact": Case("F.interpolate(a, scale_factor=(1.5, 2.5), mode='nearest-exact')",
                          lambda n, dt: [rows(n, 30, dt).reshape(n, 2, 3, 5)], NUMBERS),
    # 4 query heads over 2 key/value heads, a causal mask
    "sdpa_gqa": Case("F.scaled_dot_product_attention(a, b, b * 2, is_causal=True, enable_gqa=True)",
                     lambda n, dt: [rows(n, 96, dt, exact=True).reshape(n, 4, 3, 8) / 8,
                                    rows(n, 48, dt, seed=1, exact=True).reshape(n, 2, 3, 8) / 8],
                     (torch.float32, torch.float64, torch.bfloat16)),
    # braindecode's max-norm weights (`X.renorm(p=2, dim=0, maxnorm=...)`): rows above and below the bound, zeros,
    # infinities and NaN among them; the method over the other axis and another p
    # a weight of three output features over inputs of 3 and 2 features, a bias
    "bilinear": Case("F.bilinear(a, b[:, :2], torch.linspace(-2, 2, 18).reshape(3, 3, 2).to(a.dtype), "
                     "torch.tensor([0.5, -1.0, 0.0]).to(a.dtype))", two(3), FLOATS),
    # running sums of exponentials with -inf, +inf and NaN among the values, along the dynamic axis and across it
    "logcumsumexp": Case("torch.logcumsumexp(a, 0)", one(3), FLOATS, "a.logcumsumexp(dim=1)"),
    "renorm": Case("torch.renorm(a, 2, 0, 1.5)", one(3), FLOATS, "a.renorm(p=1, dim=1, maxnorm=0.5)"),
    "sinh": Case("torch.sinh(a)", one(), FLOATS + (torch.int64,), "a.sinh()"),
    "cosh": Case("torch.cosh(a)", one(), FLOATS + (torch.int64,), "a.cosh()"),
    "asinh": Case("torch.arcsinh(a)", one(), FLOATS + (torch.int64,), "a.arcsinh()"),
    "acosh": Case("torch.acosh(a)", one(), FLOATS + (torch.int64,), "a.acosh()"),
    "atanh": Case("torch.atanh(a / 8)", one(), FLOATS + (torch.int64,), "a.arctanh()"),
    # RetinaFace ports' `dets = torch.hstack((boxes, scores[:, None]))`; a 1-D tensor made a row (vstack), a
    # column (column_stack) or a (1, n, 1) block (dstack); a list display and a tuple display
    "hstack": Case("torch.hstack((a, b[:, 1:]))", two(3), NUMBERS + (torch.bool,)),
    "vstack": Case("torch.vstack((b[0], a))", two(3), NUMBERS + (torch.bool,)),
    "row_stack": Case("torch.row_stack([a[:, 0], b[:, 2]])", two(3), NUMBERS + (torch.bool,)),
    "dstack": Case("torch.dstack([a, b * 2])", two(3), NUMBERS + (torch.bool,)),
    "column_stack": Case("torch.column_stack((a, b[:, 0]))", two(3), NUMBERS + (torch.bool,)),
}
#: Functions the exporter converts, into sequence operators TensorRT never parses (the others stop the export).
SEQUENCES = {op.name for op in OPS if op.exports_as}
EXACT = {op.name: op.exact for op in OPS}
SAFE = {op.name: op.safe for op in OPS}
HELPER = {op.name: op.helper for op in OPS}
#: Exact in eager mode, within rounding in ONNX Runtime: the attention (every exported SDPA rounds its own way).
GRAPH_ROUNDS = {"sdpa_gqa"}


def _source(form: str) -> str:
    lines = ["import torch", "import torch.nn.functional as F", "from torch import nn", ""]
    for name, case in CASES.items():
        call = case.call if form == "function" else case.method
        if call is not None:
            lines += [f"def {name}(a, b=None):", f"    return {call}", ""]
    return "\n".join(lines)


def test_the_table_and_the_cases_cover_the_same_functions() -> None:
    assert set(CASES) == set(EXACT)
    assert {n for n, exact in EXACT.items() if exact} == {
        "take_along_dim", "diff", "rot90", "count_nonzero", "nansum", "nanmean", "trunc", "ravel", "heaviside",
        "isclose", "kron", "channel_shuffle", "fliplr", "flipud", "adjoint", "diag_embed", "frac", "sgn",
        "threshold", "addcdiv", "nearest_exact", "sdpa_gqa", "hstack", "vstack", "row_stack", "dstack",
        "column_stack"}
    assert SEQUENCES == {"hstack", "vstack", "row_stack"}
    # the function form of nearest-exact calls `_trt_interpolate`, which torch.jit.script cannot compile
    assert {n for n, safe in SAFE.items() if EXACT[n] and not safe} == {"nearest_exact"}


def test_rewrite_text_and_what_is_left() -> None:
    for form in ("function", "method"):
        source = _source(form)
        count = sum(1 for case in CASES.values() if (case.call if form == "function" else case.method))
        assert rules_found(source, select=("TRT337",)) == ["TRT337"] * count
        safe = strip_helpers(rewrite(source, select=("TRT337",)))
        unsafe = strip_helpers(rewrite(source, select=("TRT337",), unsafe=True))
        for name, case in CASES.items():
            if form == "method" and case.method is None:
                continue
            assert (f"{HELPER[name]}(" in safe) == SAFE[name], name
            assert f"{HELPER[name]}(" in unsafe, name
        once = rewrite(source, select=("TRT337",), unsafe=True)
        assert rewrite(once, select=("TRT337",), unsafe=True) == once
    after = strip_helpers(rewrite(_source("function"), select=("TRT337",), unsafe=True))
    assert "return _trt_diff(a, n=2, dim=0)" in after and "return _trt_channel_shuffle(a, 2)" in after
    assert "return _trt_sinc(a)" in after  # torch.special.sinc
    method = strip_helpers(rewrite(_source("method"), select=("TRT337",), unsafe=True))
    assert "return _trt_take_along_dim(a, b, 1)" in method and "return _trt_nanmean(a, 1, True)" in method
    left = ("import torch\nimport numpy as np\n"
            "def f(a, b, t, args):\n"
            "    torch.diff(a, out=b)\n"
            "    torch.nansum(*args)\n"
            "    a.cumprod(1, 2, 3)\n"
            "    a.trunc_()\n"
            "    graph = tracer.trace(model, concrete_args=args)\n"
            "    return np.diff(t), np.kron(t, t), torch.cumsum(a, 0)\n")
    # out= and unpacked arguments: reported, not rewritten; methods no tensor has (with those arguments): silent
    assert rules_found(left, select=("TRT337",)) == ["TRT337"] * 2
    assert rewrite(left, select=("TRT337",), unsafe=True) == left
    own = "def diff(x):\n    return x\n\ndef f(x):\n    return diff(x)\n"
    assert rules_found(own, select=("TRT337",)) == []
    # a tuple display is passed as a list (a scripted helper's `list[torch.Tensor]` takes no tuple)
    assert "return _trt_hstack([a, b[:, 1:]])" in after and "return _trt_vstack([a[:, 0], b[:, 2]])" in after
    stacked = "import torch\ndef f(a, parts):\n    return torch.hstack(parts), torch.vstack((a,)), torch.dstack([*parts])\n"
    assert strip_helpers(rewrite(stacked, select=("TRT337",))) == (
        "import torch\ndef f(a, parts):\n    return torch.hstack(parts), _trt_vstack([a]), torch.dstack([*parts])\n")
    assert rules_found(stacked, select=("TRT337",)) == ["TRT337"] * 3  # a name and an unpacking: reported only


def test_stacking_every_rank_while_exporting_is_torchs_own() -> None:
    """0-D, 1-D, 2-D and 3-D tensors and empty ones, each function's reshaping of them as torch's `atleast_*d`,
    and what torch refuses (an empty sequence, ranks that do not line up) refused the same way while exporting."""
    from trtcodemod.helpers import symbolics

    scalar, row, empty, grid, cube = (torch.tensor(2.5), torch.arange(4.0), torch.zeros(0), torch.ones(4, 4),
                                      torch.ones(2, 4, 3))
    calls = {
        "hstack": [(scalar, scalar), (row, empty, scalar), (grid, grid[:, :1]), (cube, cube)],
        "vstack": [(scalar,), (row, row), (row, grid), (empty.reshape(0, 4), row), (cube, cube)],
        "row_stack": [(row, grid), (scalar, scalar)],
        "dstack": [(scalar, scalar), (row, row), (grid, grid), (cube, cube[..., :1]), (empty, empty)],
        "column_stack": [(scalar, scalar), (row, grid), (row, row), (empty, empty), (cube, cube)],
    }
    for name, cases in calls.items():
        torch_function, helper = getattr(torch, name), getattr(symbolics, HELPER[name])
        for tensors in [*cases, (), (row, grid[:3])]:
            want = run_once(torch_function, [list(tensors)])
            with export_formulation():
                got = run_once(helper, [list(tensors)])
            assert (got.error is None) == (want.error is None), (name, [t.shape for t in tensors], got.error)
            if want.error is None:
                _same_values(got.output, want.output, f"{name} {[tuple(t.shape) for t in tensors]}")


def test_a_scripted_caller_of_the_stacking_helpers_compiles(tmp_path) -> None:
    code = ("import torch\n\n\n@torch.jit.script\ndef rows(boxes, scores):\n"
            "    return torch.hstack((boxes, scores[:, None])), torch.column_stack([scores, scores])\n")
    after = rewrite(code, select=("TRT337",))
    assert "_trt_hstack([boxes, scores[:, None]])" in after and "_trt_column_stack([scores, scores])" in after
    before_rows, after_rows = import_source(code, tmp_path)["rows"], import_source(after, tmp_path)["rows"]
    boxes, scores = torch.randn(5, 4), torch.tensor([0.5, -1.0, math.inf, math.nan, 0.0])
    for want, got in zip(before_rows(boxes, scores), after_rows(boxes, scores)):
        _same_values(got, want, "scripted")


def test_fmin_and_fmax_lose_a_negative_zero_only_in_onnx_runtime() -> None:
    """Why they are unsafe: eager torch and the composition agree bit for bit, but ONNX Runtime's Where reads
    a -0.0 it picks from its first operand as 0.0."""
    a, b = torch.tensor([1.0, math.nan, 0.0, -0.0]), torch.tensor([-0.0, -0.0, -0.0, 0.0])
    from trtcodemod.helpers.symbolics import _trt_fmax, _trt_fmin
    for helper, function in ((_trt_fmin, torch.fmin), (_trt_fmax, torch.fmax)):
        with export_formulation():
            _same_values(helper(a, b), function(a, b), function.__name__)
        graph = _export(_Call(lambda x, y, helper=helper: helper(x, y)), [a, b])
        got = _run(graph, [a, b])
        assert torch.equal(got, function(a, b))  # equal as numbers...
        assert torch.signbit(function(a, b)).any() and not torch.equal(torch.signbit(got), torch.signbit(function(a, b)))


def test_heaviside_and_expm1_keep_a_negative_zero_in_onnx_runtime() -> None:
    """ONNX Runtime's optimizer swaps the branches of a Where on a Not (`x != 0`), and its Where reads a -0.0
    from the first branch as 0.0: the helpers test without a Not, so a -0.0 they pass through stays -0.0."""
    from trtcodemod.helpers.symbolics import _trt_expm1, _trt_heaviside
    x = torch.tensor([0.0, -0.0, 1.0, 0.0, -0.0, math.nan])
    values = torch.tensor([-0.0, -0.0, -0.0, 0.5, 2.0, -0.0])
    graph = _export(_Call(lambda a, b: (_trt_heaviside(a, b), _trt_expm1(a))), [x, values])
    session = ort.InferenceSession(graph.SerializeToString())
    step, grown = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), (x, values))})
    _same_values(torch.from_numpy(step), torch.heaviside(x, values), "heaviside")
    zeros = (x == 0) | x.isnan()  # expm1 is within rounding elsewhere (unsafe), exact at zeros and NaN
    _same_values(torch.from_numpy(grown)[zeros], torch.expm1(x)[zeros], "expm1")


def test_channel_shuffle_keeps_the_batch_of_sizes_read_after_it(tmp_path) -> None:
    """The shuffle's export-time form views the channels as ``(groups, -1)`` with ``view`` and the other sizes
    read from the input: an ``unflatten`` there left the result typed with the traced batch, so a size read
    from it later (``y.view(y.shape[0], -1)``) was the example's, and the graph failed at any other batch."""
    source = ("import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\nclass M(nn.Module):\n"
              "    def forward(self, x):\n        y = F.channel_shuffle(x, 2)\n"
              "        return y.view(y.shape[0], -1) * 2\n")
    after = rewrite(source, select=("TRT337",))
    assert "y = _trt_channel_shuffle(x, 2)" in after and "def _trt_unflatten_view(" in after
    before_m, after_m = import_source(source, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    graph = _export(after_m, [torch.randn(3, 4, 2, 5)])
    for batch in (1, 2, 6):
        x = torch.randn(batch, 4, 2, 5)
        assert torch.equal(_run(graph, [x]), before_m(x)), batch
    edges = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0]).repeat(2, 4, 2, 1)
    got, want = _run(graph, [edges]), before_m(edges)
    assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(), want.nan_to_num())


def test_channel_shuffle_module_is_built_as_the_subclass(tmp_path) -> None:
    source = ("import torch\nfrom torch import nn\n\nclass M(nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n        self.shuffle = nn.ChannelShuffle(3)\n\n"
              "    def forward(self, x):\n        return self.shuffle(x)\n")
    after = rewrite(source, select=("TRT337",))
    assert "self.shuffle = _TrtChannelShuffle(3)" in after
    before_m, after_m = import_source(source, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    assert isinstance(after_m.shuffle, torch.nn.ChannelShuffle) and repr(after_m) == repr(before_m)
    x = torch.randn(2, 6, 3, 3)
    assert torch.equal(after_m(x), before_m(x))
    graph = _export(after_m, [x])
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    y = torch.randn(5, 6, 3, 3)
    assert torch.equal(_run(graph, [y]), before_m(y))


RMS_SOURCE = """import torch
from torch import nn

try:
    from torch.nn.functional import rms_norm
except ImportError:  # timm's form (timm/layers/norm.py): its own formula on a torch without one
    from fast_norm import rms_norm


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.RMSNorm([4, 6], eps=1e-5)
        self.plain = torch.nn.RMSNorm(6, elementwise_affine=False)
        self.weight = nn.Parameter(torch.linspace(-1.0, 2.0, 6))

    def forward(self, x):
        y = rms_norm(x.float(), (x.shape[-1],), self.weight.float(), 1e-6).to(x.dtype)
        return self.norm(x) + self.plain(x) * y
"""


def test_rms_norm_modules_and_an_imported_function_are_rewritten(tmp_path) -> None:
    """``nn.RMSNorm`` (any constructor arguments) is built as ``_TrtRMSNorm``, a subclass with the same state
    and repr; timm's ``try: from torch.nn.functional import rms_norm`` is torch's function too. Eager mode
    is the original bit for bit, on edge values and in half precision; the export (whose original fails)
    passes the TensorRT check and matches eager at two other sizes of the dynamic axis."""
    after = rewrite(RMS_SOURCE, select=("TRT337",), unsafe=True)
    assert rewrite(RMS_SOURCE, select=("TRT337",)) == RMS_SOURCE  # unsafe: rounding while exporting
    body = strip_helpers(after)
    assert "self.norm = _TrtRMSNorm([4, 6], eps=1e-5)" in body
    assert "self.plain = _TrtRMSNorm(6, elementwise_affine=False)" in body
    assert "y = _trt_rms_norm(x.float(), (x.shape[-1],), self.weight.float(), 1e-6).to(x.dtype)" in body
    assert rewrite(after, select=("TRT337",), unsafe=True) == after
    before_m, after_m = import_source(RMS_SOURCE, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    torch.nn.init.normal_(before_m.norm.weight, generator=torch.Generator().manual_seed(0))
    after_m.load_state_dict(before_m.state_dict())
    assert isinstance(after_m.norm, torch.nn.RMSNorm) and repr(after_m) == repr(before_m)
    x = torch.randn(3, 4, 6, generator=torch.Generator().manual_seed(1)) * 5
    x[0, 0] = 0.0
    x[0, 1, 2] = math.inf
    x[1, 2, 3] = math.nan
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        _same_values(after_m.to(dtype)(x.to(dtype)), before_m.to(dtype)(x.to(dtype)), str(dtype))
        with export_formulation():
            _same_values(after_m(x.to(dtype)), before_m(x.to(dtype)), f"{dtype}, the composition")
    before_m, after_m = before_m.float(), after_m.float()
    _same_values(after_m(x[:0]), before_m(x[:0]), "empty")
    scripted = torch.jit.script(after_m.norm)  # the subclass scripts as nn.RMSNorm does
    _same_values(scripted(x), before_m.norm(x), "scripted")
    with pytest.raises(Exception, match="Unsupported|not supported|export"):
        _export(before_m, [x])
    graph = _export(after_m, [x])
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    for n in (1, 7):
        y = torch.randn(n, 4, 6, generator=torch.Generator().manual_seed(n)) * 3
        _close_values(_run(graph, [y]), before_m(y), f"rms_norm graph at {n}", 1e-5)


BILINEAR_SOURCE = """import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = nn.Bilinear(5, 3, 4)
        self.plain = torch.nn.Bilinear(5, 5, 2, bias=False)

    def forward(self, x, y):
        return self.pair(x, y[..., :3]), self.plain(x, x)
"""


def test_bilinear_modules_are_built_as_the_subclass(tmp_path) -> None:
    """``nn.Bilinear`` (a biaffine scorer's, a fusion head's) is built as ``_TrtBilinear``: same state, repr and
    class; eager mode is torch's bit for bit (edge values, an empty batch, torch's error for a wrong width, half
    precision); the export, whose original fails (aten::bilinear), passes the TensorRT check and matches eager
    mode at other batch sizes."""
    after = rewrite(BILINEAR_SOURCE, select=("TRT337",), unsafe=True)
    assert rewrite(BILINEAR_SOURCE, select=("TRT337",)) == BILINEAR_SOURCE  # unsafe: the graph's rounding
    body = strip_helpers(after)
    assert "self.pair = _TrtBilinear(5, 3, 4)" in body and "self.plain = _TrtBilinear(5, 5, 2, bias=False)" in body
    before_m, after_m = import_source(BILINEAR_SOURCE, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    after_m.load_state_dict(before_m.state_dict())
    assert isinstance(after_m.pair, torch.nn.Bilinear) and repr(after_m) == repr(before_m)
    x = torch.randn(4, 2, 5, generator=torch.Generator().manual_seed(1)) * 3
    y = torch.randn(4, 2, 5, generator=torch.Generator().manual_seed(2))
    x[0, 0] = 0.0
    x[1, 0, 1], y[2, 1, 0] = math.inf, math.nan
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        b, a = before_m.to(dtype), after_m.to(dtype)
        for got, want in zip(a(x.to(dtype), y.to(dtype)), b(x.to(dtype), y.to(dtype))):
            _same_values(got, want, str(dtype))
    before_m, after_m = before_m.float(), after_m.float()
    for got, want in zip(after_m(x[:0], y[:0]), before_m(x[:0], y[:0])):
        _same_values(got, want, "empty")
    for model in (before_m, after_m):
        with pytest.raises(RuntimeError):
            model(x[..., :4], y)  # the weight's width: torch's own error, in both
    with pytest.raises(Exception, match="Unsupported|not supported|export"):
        _export(before_m, [x, y])
    graph = _export(after_m, [x, y])
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for n in (1, 6):
        a, c = torch.randn(n, 2, 5), torch.randn(n, 2, 5)
        got = session.run(None, {"input_0": a.numpy(), "input_1": c.numpy()})
        for g, w in zip(got, before_m(a, c)):
            _close_values(torch.from_numpy(g), w.detach(), f"bilinear graph at {n}", 1e-5, 1e-6)


def test_rms_norm_is_unsafe_for_the_graphs_rounding() -> None:
    """Why the table marks ``rms_norm`` unsafe: the composition is torch's kernel bit for bit in eager mode,
    but the exported ReduceMean and reciprocal square root round otherwise in ONNX Runtime."""
    from trtcodemod.helpers.symbolics import _trt_rms_norm

    x = torch.randn(4000, 48, generator=torch.Generator().manual_seed(3)) * 7
    weight = torch.randn(48, generator=torch.Generator().manual_seed(4))
    want = torch.nn.functional.rms_norm(x, [48], weight, 1e-6)
    with export_formulation():
        assert torch.equal(_trt_rms_norm(x, [48], weight, 1e-6), want)
    graph = _export(_Call(lambda a, w: _trt_rms_norm(a, [48], w, 1e-6)), [x, weight])
    got = _run(graph, [x, weight])
    assert not torch.equal(got, want)
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    source = _source("function")
    before = import_source(source, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(source, select=("TRT337",), unsafe=True), tmp_path_factory.mktemp("after"))
    return before, after


def _edge_inputs(name: str, dtype: torch.dtype) -> list[list]:
    case = CASES[name]
    sets = [case.inputs(len(SPECIAL), dtype), case.inputs(7, dtype)]
    if name not in ("trace", "channel_shuffle", "take_along_dim", "kron", "nearest_exact", "sdpa_gqa"):
        sets.append(case.inputs(0, dtype))  # empty
    if name in ("heaviside", "xlogy", "copysign", "logaddexp", "hypot", "isclose", "fmin", "fmax", "addcdiv"):
        first, second = case.inputs(len(SPECIAL), dtype)
        sets.append([first.reshape(-1, 1), second[:5].reshape(1, 5)])  # broadcasting
    return sets


def _same_values(got: torch.Tensor, want: torch.Tensor, context: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, f"{context}: {got.dtype}{tuple(got.shape)} vs " \
                                                                 f"{want.dtype}{tuple(want.shape)}"
    if want.is_floating_point():
        same = ((got == want) & (torch.signbit(got) == torch.signbit(want))) | (got.isnan() & want.isnan())
    else:
        same = got == want
    assert bool(same.all()), f"{context}: {got[~same][:4].tolist()} vs {want[~same][:4].tolist()}"


def _close_values(got: torch.Tensor, want: torch.Tensor, context: str, rtol: float, atol: float = 1e-30) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, context
    if not want.is_floating_point():
        assert torch.equal(got, want), context
        return
    assert bool((got.isnan() == want.isnan()).all()), context
    assert torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True), context


@pytest.mark.parametrize("name", list(CASES))
def test_eager_mode_is_the_original_and_the_composition_matches_it(programs, name) -> None:
    before, after = programs
    for dtype in CASES[name].dtypes:
        for inputs in _edge_inputs(name, dtype):
            context = f"{name} {dtype} {[tuple(i.shape) for i in inputs]}"
            assert_same_run(run_once(before[name], inputs), run_once(after[name], inputs), context=context)
            want = run_once(before[name], inputs)
            if want.error is not None:
                continue
            if name in ("signbit", "copysign"):  # all but the sign of a NaN (see the next test)
                inputs = _positive_nans(inputs)
                want = run_once(before[name], inputs)
            with export_formulation(after):
                got = after[name](*[i.clone() for i in inputs])
            if EXACT[name] or name in ("signbit", "copysign"):
                _same_values(got, want.output, context)
            else:
                # The output's type: an integer input of expm1 or sinc gives a float32 result.
                rtol = {torch.float16: 2e-3, torch.bfloat16: 2e-2, torch.float32: 1e-5}.get(want.output.dtype, 1e-12)
                _close_values(got, want.output, context, rtol)


def _positive_nans(inputs: list) -> list:
    return [torch.where(i.isnan(), torch.full_like(i, math.nan), i) if i.is_floating_point() else i for i in inputs]


TOOLCHAIN_SOURCE = """
import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, a, b):
        return (torch.take_along_dim(a, (b.abs() * 10).long() % 3, dim=1), torch.diff(a, dim=0), a.rot90(1, [0, 1]),
                torch.count_nonzero(a, 0), torch.nansum(a, 0), torch.nanmean(a), torch.trunc(a),
                torch.heaviside(a, b), a.isclose(b), torch.kron(a, b), F.channel_shuffle(a.unsqueeze(-1), 3),
                torch.xlogy(a, b), torch.sinc(a), torch.signbit(a), torch.copysign(a, b), torch.trace(a),
                torch.logaddexp(a, b), torch.hypot(a, b), torch.cumprod(a, 0), F.rms_norm(a, [3], b[0], 1e-6),
                torch.rms_norm(a, (4, 3)), torch.expm1(a), torch.fmin(a, b), a.fmax(b), torch.fliplr(a), a.flipud(),
                a.adjoint(), torch.diag_embed(a, -1), a.frac(), torch.sgn(a), F.threshold(a, 0.1, 2.0),
                torch.addcdiv(a, a, b, value=0.5), torch.sinh(a), a.cosh(), torch.asinh(a), torch.acosh(a.abs() + 1),
                torch.atanh(a / 8), torch.hstack((a, b)), torch.vstack([a, b[0]]), torch.row_stack((a,)),
                torch.dstack((a, b)), torch.column_stack((a[:, 0], b)),
                F.scaled_dot_product_attention(a[None, None], b[None, None], b[None, None], enable_gqa=True))
"""


def test_other_toolchains_run_the_original(tmp_path) -> None:
    """torch.jit.script, torch.fx (and fx then script), torch.compile and torch.export give what they give
    the original: each helper is the torch function there."""
    before = import_source(TOOLCHAIN_SOURCE, tmp_path)["M"]
    after = import_source(rewrite(TOOLCHAIN_SOURCE, select=("TRT337",), unsafe=True), tmp_path)["M"]
    inputs = [torch.randn(4, 3), torch.randn(4, 3)]
    want = toolchain_outcomes(before, inputs, tmp_path)
    got = toolchain_outcomes(after, inputs, tmp_path)
    assert set(want) == set(got)
    for name in want:
        if isinstance(want[name], Exception):
            assert isinstance(got[name], Exception), name
        else:
            assert not isinstance(got[name], Exception), f"{name}: {got[name]!r}"
            assert_same_run(Run(inputs, want[name]), Run(inputs, got[name]), context=name)


def test_the_unsafe_functions_do_differ_somewhere() -> None:
    """Why the table marks them unsafe: a value where the composition is not the function bit for bit."""
    negative_nan = torch.tensor([-math.nan, 1.0])
    assert bool(torch.signbit(negative_nan)[0])
    with export_formulation():
        from trtcodemod.helpers.symbolics import _trt_copysign, _trt_cumprod, _trt_signbit, _trt_trace
        assert not bool(_trt_signbit(negative_nan)[0])
        assert float(_trt_copysign(torch.tensor([2.0]), negative_nan[:1])) == 2.0
        x = torch.rand(4000, dtype=torch.float32, generator=torch.Generator().manual_seed(0)) * 0.02 + 0.995
        assert not torch.equal(_trt_cumprod(x, 0), torch.cumprod(x, 0))
        m = torch.randn(300, 300, generator=torch.Generator().manual_seed(1))
        assert not torch.equal(_trt_trace(m), torch.trace(m))
        from trtcodemod.helpers.symbolics import _trt_hypot, _trt_logaddexp, _trt_sinc, _trt_xlogy
        g = torch.Generator().manual_seed(2)
        a, b = torch.randn(20000, generator=g) * 5, torch.randn(20000, generator=g).abs() * 5
        from trtcodemod.helpers.symbolics import _trt_expm1
        for helper, function, inputs in ((_trt_xlogy, torch.xlogy, (a, b)), (_trt_sinc, torch.sinc, (a,)),
                                         (_trt_expm1, torch.expm1, (a / 8,)),
                                         (_trt_logaddexp, torch.logaddexp, (a, b)), (_trt_hypot, torch.hypot, (a, b))):
            got, want = helper(*inputs), function(*inputs)
            assert not torch.equal(got, want), function.__name__  # an ulp or two apart, on some values
            assert torch.allclose(got, want, rtol=1e-6, atol=0.0), function.__name__
    assert float(torch.copysign(torch.tensor([2.0]), negative_nan[:1])) == -2.0


def test_the_hyperbolic_functions_do_differ_somewhere() -> None:
    """Why ``sinh``, ``cosh``, ``asinh``, ``acosh`` and ``atanh`` are unsafe: an ulp or two from torch's own."""
    from trtcodemod.helpers.symbolics import _trt_acosh, _trt_asinh, _trt_atanh, _trt_cosh, _trt_sinh
    x = torch.randn(20000, generator=torch.Generator().manual_seed(5)) * 4
    with export_formulation():
        for helper, function, inputs in ((_trt_sinh, torch.sinh, x), (_trt_cosh, torch.cosh, x),
                                         (_trt_asinh, torch.asinh, x), (_trt_acosh, torch.acosh, x.abs() + 1),
                                         (_trt_atanh, torch.atanh, x / 16)):
            got, want = helper(inputs), function(inputs)
            assert not torch.equal(got, want), function.__name__
            assert torch.allclose(got, want, rtol=1e-6, atol=0.0), function.__name__


def test_threshold_to_a_negative_zero_keeps_its_sign_in_onnx_runtime() -> None:
    """``F.threshold(x, t, -0.0)``: ONNX Runtime's Where reads a -0.0 from its first branch as 0.0, so the
    helper fills a +0.0 and signs it by a product; the input's own -0.0 and NaN pass through."""
    from trtcodemod.helpers.symbolics import _trt_threshold
    x = torch.tensor([-0.0, 0.0, -1.0, 0.5, math.nan, 3.0, -math.inf])
    graph = _export(_Call(lambda a: _trt_threshold(a, -0.5, -0.0)), [x])
    for inputs in ([x], [x.flip(0)]):
        _same_values(_run(graph, inputs), torch.nn.functional.threshold(inputs[0], -0.5, -0.0), "threshold -0.0")


MODULES_SOURCE = """import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="nearest-exact")
        self.up3d = torch.nn.Upsample(size=(3, 5, 4), mode="nearest-exact")
        self.plain = nn.Upsample(scale_factor=2)
        self.cut = nn.Threshold(0.25, -1.0)
        self.relu = nn.Threshold(0, 0.0)

    def forward(self, x):
        y = self.cut(self.up(x)) + self.relu(self.plain(x))
        wide = F.interpolate(x, size=(7, 3), mode="nearest-exact") + F.interpolate(x, size=(7, 3), mode="nearest")
        line = F.interpolate(x.flatten(2), scale_factor=0.75, mode="nearest-exact", recompute_scale_factor=True)
        cube = self.up3d(x.unsqueeze(2))
        return y.sum((2, 3)) + wide.sum((2, 3)) + line.sum(2) + cube.sum((2, 3, 4))
"""


def test_modules_and_resizes_of_every_rank(tmp_path) -> None:
    """``nn.Upsample(mode="nearest-exact")`` and ``nn.Threshold`` are built as helper subclasses (same state and
    repr, scriptable as torch's); 1-D, 2-D and 3-D nearest-exact resizing by size, factor and recomputed
    factor export (the original does not) and give torch's values bit for bit in ONNX Runtime at two other
    batch and image sizes; other modes and a ReLU-like threshold are left alone."""
    after = rewrite(MODULES_SOURCE, select=("TRT337",), unsafe=True)
    body = strip_helpers(after)
    assert 'self.up = _TrtUpsample(scale_factor=2, mode="nearest-exact")' in body
    assert 'self.up3d = _TrtUpsample(size=(3, 5, 4), mode="nearest-exact")' in body
    assert "self.plain = nn.Upsample(scale_factor=2)" in body and "self.relu = nn.Threshold(0, 0.0)" in body
    assert "self.cut = _TrtThreshold(0.25, -1.0)" in body
    assert '_trt_interpolate(x, size=(7, 3), mode="nearest-exact") + F.interpolate(x, size=(7, 3), mode="nearest")' \
        in body
    safe = strip_helpers(rewrite(MODULES_SOURCE, select=("TRT337",)))
    assert "_TrtUpsample(scale_factor=2" in safe and 'F.interpolate(x, size=(7, 3), mode="nearest-exact")' in safe
    before_m, after_m = import_source(MODULES_SOURCE, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    assert isinstance(after_m.up, torch.nn.Upsample) and isinstance(after_m.cut, torch.nn.Threshold)
    assert repr(after_m) == repr(before_m)
    x = torch.randn(2, 3, 6, 5, generator=torch.Generator().manual_seed(0))
    x[0, 0, 0, 0], x[0, 1, 2, 3], x[1, 2, 4, 4] = math.nan, -math.inf, -0.0
    _same_values(after_m(x), before_m(x), "eager")
    with export_formulation():
        _same_values(after_m(x), before_m(x), "the composition")
    for name in ("up", "up3d", "cut"):  # the subclasses script as torch's modules do
        scripted = torch.jit.script(getattr(after_m, name))
        y = x.unsqueeze(2) if name == "up3d" else x
        _same_values(scripted(y), getattr(before_m, name)(y), f"scripted {name}")
    with pytest.raises(Exception, match="Unsupported|not supported|export"):
        _export(before_m, [x])
    names = ["input_0"]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(after_m, (x,), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={"input_0": {0: "n", 2: "h", 3: "w"}})
    graph = onnx.load_from_string(buffer.getvalue())
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    for shape in ((1, 3, 4, 7), (3, 3, 9, 10)):
        y = torch.randn(*shape, generator=torch.Generator().manual_seed(shape[2])) * 3
        _close_values(_run(graph, [y]), before_m(y), f"graph at {shape}", 1e-6)  # sums of the resized values
        with export_formulation():
            _same_values(after_m.up(y), before_m.up(y), f"nearest-exact at {shape}")
    # the resize alone, bit for bit in ONNX Runtime at another image size (NaN, infinities and -0.0 copied)
    buffer = io.BytesIO()
    torch.onnx.export(_Call(lambda a: after_m.up(a)), (x,), buffer, dynamo=False, opset_version=17,
                      input_names=names, dynamic_axes={"input_0": {0: "n", 2: "h", 3: "w"}})
    y = torch.randn(4, 3, 7, 9, generator=torch.Generator().manual_seed(7))
    y[1, 1, 3], y[2, 0, 0, 0] = math.nan, -0.0
    _same_values(_run(onnx.load_from_string(buffer.getvalue()), [y]), before_m.up(y), "nearest-exact graph")


def test_a_mode_or_flag_the_exporter_takes_is_left_alone() -> None:
    source = ("import torch\nimport torch.nn.functional as F\n\ndef f(x, q, k, v, mode, gqa):\n"
              "    a = F.interpolate(x, scale_factor=2, mode='nearest')\n"
              "    b = F.interpolate(x, scale_factor=2, mode=mode)\n"
              "    c = F.scaled_dot_product_attention(q, k, v, enable_gqa=False)\n"
              "    d = F.scaled_dot_product_attention(q, k, v)\n"
              "    e = F.threshold(x, 0, 0) + F.threshold(x, 0.0, 0.0)\n"
              "    g = F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa)\n"
              "    return a, b, c, d, e, g\n")
    assert rules_found(source, select=("TRT337",)) == ["TRT337"]  # a flag that may be True: taken
    after = rewrite(source, select=("TRT337",))
    assert strip_helpers(after).count("_trt_sdpa(q, k, v, enable_gqa=gqa)") == 1


class _Call(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def _export(model: torch.nn.Module, inputs: list) -> onnx.ModelProto:
    names = [f"input_{i}" for i in range(len(inputs))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={n: {0: f"n{i}"} for i, n in enumerate(names)})
    return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: list) -> torch.Tensor:
    session = ort.InferenceSession(graph.SerializeToString())
    feed = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(session.run(None, feed)[0])


def _onnx_inputs(name: str, n: int) -> list:
    case = CASES[name]
    inputs = case.inputs(n, torch.float32)
    if name in ("signbit", "copysign"):  # a NaN's sign is what the graph cannot read (see the test above)
        inputs = _positive_nans(inputs)
    if name == "kron":
        inputs[1] = case.inputs(3, torch.float32)[1]
    if name == "sdpa_gqa":  # the exported attention spreads a NaN or an infinity its own way (any SDPA's graph)
        inputs = [torch.nan_to_num(i, nan=0.0, posinf=3.0, neginf=-3.0) for i in inputs]
    return inputs


@pytest.mark.parametrize("name", list(CASES))
def test_the_export_passes_the_trt_check_and_matches_eager_at_other_sizes(programs, name) -> None:
    before, after = programs
    example = _onnx_inputs(name, 9)
    if name in SEQUENCES:
        refused = {i.op for i in check_graph(_export(_Call(before[name]), example)) if i.severity == "error"}
        assert refused & {"SequenceConstruct", "ConcatFromSequence"}, refused
    else:
        with pytest.raises(Exception, match="Unsupported|not supported|not implemented|export"):
            _export(_Call(before[name]), example)
    graph = _export(_Call(after[name]), example)
    assert not [i for i in check_graph(graph) if i.severity == "error"], name
    for n in (len(SPECIAL) + 3, 40):
        inputs = _onnx_inputs(name, n)
        got, want = _run(graph, inputs), before[name](*inputs)
        if (EXACT[name] and name not in GRAPH_ROUNDS) or name in ("signbit", "copysign"):
            _same_values(got, want, f"{name} at {n}")
        else:  # an attention's sums of products: within rounding of its largest terms
            _close_values(got, want, f"{name} at {n}", 1e-5, 1e-6 if name in GRAPH_ROUNDS else 1e-30)


def test_the_dynamo_exporter_takes_the_compositions_too(programs) -> None:
    """The helpers take their composition under the dynamo exporter as well: one export of every function
    (several of whose originals the dynamo exporter fails on or computes differently: kron, copysign,
    hypot, cumprod, heaviside), and ONNX Runtime gives eager torch's values at another size."""
    before, after = programs
    names, params, calls, position = list(CASES), [], [], 0
    for name in names:
        count = len(_onnx_inputs(name, 9))
        arguments = [f"x{position + i}" for i in range(count)]
        params += arguments
        calls.append(f"functions[{name!r}]({', '.join(arguments)})")
        position += count
    namespace = {"torch": torch, "functions": after}
    exec(f"class All(torch.nn.Module):\n    def forward(self, {', '.join(params)}):\n"
         f"        return ({', '.join(calls)},)\n", namespace)
    example = [t for name in names for t in _onnx_inputs(name, 9)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(namespace["All"](), tuple(example), dynamo=True, verbose=False,
                                    dynamic_shapes=tuple({0: torch.export.Dim.AUTO} for _ in example))
    graph = program.model_proto
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    inputs = {name: _onnx_inputs(name, 40) for name in names}
    flat = [t for name in names for t in inputs[name]]
    outputs = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), flat)})
    for name, got in zip(names, outputs):
        want = before[name](*inputs[name])
        if (EXACT[name] and name not in GRAPH_ROUNDS) or name in ("signbit", "copysign"):
            _same_values(torch.from_numpy(got), want, f"{name} (dynamo)")
        else:
            _close_values(torch.from_numpy(got), want, f"{name} (dynamo)", 1e-5, 1e-6 if name in GRAPH_ROUNDS else 1e-30)


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        rates = torch.sigmoid(y.mean((2, 3)))
        decay = torch.cumprod(1 - rates * 0.5, dim=1)
        edges = torch.diff(y, dim=-1).abs().mean((2, 3))
        near = torch.isclose(x, x.round(), atol=0.25).float().mean((1, 2, 3))  # of the input: no rounding to flip
        return decay + edges * near[:, None]


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    """A safe fix (diff, isclose) and an unsafe one (cumprod, kept once migrate has verified it)."""
    path = tmp_path / "decay_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT337"] * 3
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        decay = _trt_cumprod(1 - rates * 0.5, dim=1)" in report["diff"]
    assert "+        near = _trt_isclose(x, x.round(), atol=0.25).float().mean((1, 2, 3))" in report["diff"]


RMS_MODEL = '''
import torch
from torch import nn

try:
    from torch.nn.functional import rms_norm
except ImportError:
    from .fast_norm import rms_norm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)
        self.norm = nn.RMSNorm(8, eps=1e-6)
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, 8))

    def forward(self, x):
        tokens = self.conv(x).flatten(2).transpose(1, 2)
        tokens = rms_norm(tokens, (tokens.shape[-1],), self.weight, 1e-5)
        return self.norm(tokens)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_rms_norm_modules_and_timms_imported_function(tmp_path) -> None:
    """The export stops at ``aten::rms_norm``: where forward calls ``self.norm`` (a module built in
    ``__init__``) and at timm's ``rms_norm`` imported with a fallback. The error names TRT337, whose
    unsafe fixes migrate verifies and keeps: the model exports, is faithful and equivalent."""
    path = tmp_path / "rms_model.py"
    path.write_text(RMS_MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert [a["rule"] for a in report["applied"]] == ["TRT337"] * 2
    assert "+        self.norm = _TrtRMSNorm(8, eps=1e-6)" in report["diff"]
    assert "+        tokens = _trt_rms_norm(tokens, (tokens.shape[-1],), self.weight, 1e-5)" in report["diff"]


def test_renorm_keeps_torchs_errors_where_torch_refuses_while_exporting() -> None:
    """An axis out of range or a negative bound: the composition would compute (a wrapped axis, a factor of the
    bound), torch raises; the helper keeps torch's function there, and its error, while exporting too."""
    from trtcodemod.helpers.symbolics import _trt_renorm

    x = torch.randn(3, 4, 5)
    with export_formulation():
        for args in ((2, 3, 1.0), (2, -4, 1.0), (2, 1, -1.0), (0, 1, 1.0)):
            outcomes = []
            for function in (torch.renorm, _trt_renorm):
                try:
                    outcomes.append(function(x, *args))
                except Exception as error:  # noqa: BLE001 - the same exception is part of the same program
                    outcomes.append(type(error))
            if isinstance(outcomes[0], torch.Tensor):
                assert torch.equal(outcomes[0], outcomes[1]), args
            else:
                assert outcomes[0] is outcomes[1], (args, outcomes)
        assert torch.allclose(_trt_renorm(x, 2, -1, 0.5), torch.renorm(x, 2, -1, 0.5), atol=1e-6)
