"""TRT319: ``torch.median``/``torch.kthvalue`` have no ONNX symbolic (either exporter); where only
their values are used, the helper keeps torch's own function outside an export and takes the
element of a sort while exporting (NaN restored as torch gives it, ties, negatives, infinities,
one element, integer tensors). Real forward uses rewritten and run: timm's MedianPool2d, MONAI's
median_filter, I-BERT's percentile clipping, kornia DISK's threshold of the n strongest.

``torch.quantile`` (TRT319 widened): the TorchScript exporter has no symbolic for ``aten::quantile``.
The helper keeps torch's function outside that export and, while it traces, follows torch's
``quantile_compute`` on a sort: tested against torch on zeros, negatives, ties, infinities, NaN,
sizes 1, 2, odd and even, every interpolation, ``q`` a float, a 0-d and a 1-D tensor, ``dim`` None
and ``keepdim``; and through ONNX Runtime at other sizes than the example's."""

from __future__ import annotations

import itertools
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from support import export_dynamo, export_torchscript, import_file, migrate_json, ort_session, rewrite, rules_found, same_up_to_zero_sign

from trtcodemod.helpers.selection import _trt_kthvalue, _trt_median, _trt_nanmedian, _trt_quantile, _trt_sorted_quantile

NAN, INF = float("nan"), float("inf")


def test_the_rewrite() -> None:
    code = ("import torch\n\n\ndef f(x, k, df):\n"
            "    a = x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]\n"
            "    b = torch.median(x, dim=1)[0] + torch.median(x) + torch.median(input=x, dim=1, keepdim=True).values\n"
            "    c = torch.kthvalue(x, k=k).values + torch.kthvalue(-x, 3, 1, True)[0] + x.kthvalue(2)[0]\n"
            "    v, i = torch.median(x, 1)\n"
            "    d = torch.kthvalue(x, 2, 1)[1]\n"
            "    e = df.median().values + df.median()\n"
            "    return a, b, c, v, i, d, e\n")
    new = rewrite(code)
    assert "    a = _trt_median(x.contiguous().view(x.size()[:4] + (-1,)), dim=-1)\n" in new
    assert "    b = _trt_median(x, dim=1) + _trt_median(x) + _trt_median(x, dim=1, keepdim=True)\n" in new
    assert "    c = _trt_kthvalue(x, k=k) + _trt_kthvalue(-x, 3, 1, True) + _trt_kthvalue(x, 2)\n" in new
    assert "    v, i = torch.median(x, 1)\n" in new  # indices used: reported only
    assert "    d = torch.kthvalue(x, 2, 1)[1]\n" in new
    assert "    e = df.median().values + df.median()\n" in new  # a pandas object has .median() too
    assert rules_found(code) == ["TRT319"] * 9  # TRT706 no longer reports them; nor df.median()
    assert rewrite("def f(x):\n    return torch.median(x, 1)[0]\n").endswith("torch.median(x, 1)[0]\n")


def test_unpacked_values_with_an_unread_underscored_index() -> None:
    """``values, _indices = ...`` where the underscored name appears nowhere else in the function is
    the values alone; an index that is read, or ``_`` bound twice keeps the call."""
    code = ("import torch\n\n\ndef f(x, n):\n"
            "    minus_threshold, _indices = torch.kthvalue(-x, n)\n"
            "    [low, _k] = x.kthvalue(2, -1)\n"
            "    b, _i = torch.median(x, dim=1)\n"
            "    c = _i + 1\n"
            "    d, e = torch.median(x, 1)\n"
            "    return minus_threshold, low, b, c, d, e\n\n\n"
            "def g(x):\n"
            "    a, _ = torch.median(x, 0)\n"
            "    b, _ = torch.median(x, 1)\n"
            "    return a, b\n\n\n"
            "values, _unused = torch.median(table, 0)\n")
    new = rewrite(code)
    assert "    minus_threshold = _trt_kthvalue(-x, n)\n" in new
    assert "    low = _trt_kthvalue(x, 2, -1)\n" in new
    assert "    b, _i = torch.median(x, dim=1)\n" in new  # _i is read
    assert "    d, e = torch.median(x, 1)\n" in new
    assert "    a, _ = torch.median(x, 0)\n    b, _ = torch.median(x, 1)\n" in new  # `_` bound twice
    assert new.endswith("values, _unused = torch.median(table, 0)\n")  # module level: not a function's name


def test_unpacked_values_with_an_unread_plain_index_name() -> None:
    """The indices' name need not be underscored: bound once and read nowhere else in the function
    (SpeckleNoisePytorch's ``median_pool_2d``: ``med_unf_input, med_unf_indexes = th.median(...)``,
    ``torch`` as ``th``), the values alone are used. A plain name that is read, a parameter's name,
    a name declared ``global`` or read by a nested function keeps the call."""
    code = ("import torch as th\n\n\ndef pool(rows, indexes):\n"
            "    med, med_indexes = th.median(rows, dim=2, keepdim=True)\n"
            "    low, index = th.kthvalue(rows, 2, 1)\n"
            "    mid, indexes = th.median(rows, 1)\n"
            "    return med, low, index, mid\n\n\n"
            "def kept(rows):\n"
            "    global where\n"
            "    a, where = th.median(rows, 0)\n"
            "    b, order = th.median(rows, 1)\n"
            "    read = lambda: order\n"
            "    return a, b, read\n")
    new = rewrite(code)
    assert "    med = _trt_median(rows, dim=2, keepdim=True)\n" in new
    assert "    low, index = th.kthvalue(rows, 2, 1)\n" in new  # index is returned
    assert "    mid, indexes = th.median(rows, 1)\n" in new  # a parameter's name
    assert "    a, where = th.median(rows, 0)\n" in new  # global
    assert "    b, order = th.median(rows, 1)\n" in new  # read by the lambda
    assert rules_found(code, select=("TRT319",)) == ["TRT319"] * 5


class Select(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                                torch.Tensor]:
        return (_trt_median(x, 1), _trt_median(x, -1, True), _trt_median(x), _trt_kthvalue(x, 1, 1),
                _trt_kthvalue(x, 2, 1, True), _trt_median(x, 0))


def _expected(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return (torch.median(x, 1)[0], torch.median(x, -1, True)[0], torch.median(x), torch.kthvalue(x, 1, 1)[0],
            torch.kthvalue(x, 2, 1, True)[0], torch.median(x, 0)[0])


CASES = {
    "random": torch.randn(4, 7) * 3,
    "ties": torch.tensor([[1.0, 1.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [-1.0, 3.0, -1.0, 3.0, -1.0]]),
    "nan": torch.tensor([[NAN, 1.0, 2.0, 3.0, 4.0], [1.0, NAN, NAN, NAN, NAN], [2.0, 1.0, 0.0, -1.0, -2.0]]),
    "infinities": torch.tensor([[INF, -INF, INF, 0.0, -0.0], [-INF, -INF, -INF, 1.0, NAN]]),
    "negatives": -torch.arange(12.0).reshape(3, 4),
    "even-length": torch.tensor([[4.0, 1.0, 3.0, 2.0], [8.0, 6.0, 7.0, 5.0]]),
    "two-per-row": torch.tensor([[1.0, 0.0], [NAN, 0.0], [5.0, 5.0]]),
}


@pytest.fixture(scope="module", params=["torchscript", "dynamo"])
def graph(request: pytest.FixtureRequest) -> ort.InferenceSession:
    example = (torch.randn(3, 6),)
    if request.param == "torchscript":
        return ort_session(export_torchscript(Select(), example, {"x": {0: "batch", 1: "n"}}))
    shapes = ({0: torch.export.Dim("batch"), 1: torch.export.Dim("n", min=2)},)
    return ort_session(export_dynamo(Select(), example, shapes))


@pytest.mark.parametrize("case", CASES)
def test_the_graph_gives_torchs_values(graph: ort.InferenceSession, case: str) -> None:
    x = CASES[case]
    outputs = graph.run(None, {graph.get_inputs()[0].name: x.numpy()})
    for got, want in zip(outputs, _expected(x)):
        assert same_up_to_zero_sign(torch.from_numpy(got), want), (case, got, want)


def test_the_graph_holds_no_median_and_only_ops_tensorrt_parses() -> None:
    model = export_torchscript(Select(), (torch.randn(2, 5),), {"x": {0: "batch"}})
    ops = {node.op_type for node in onnx.load_from_string(model).graph.node}
    assert "TopK" in ops and "If" not in ops
    parsed = {"TopK", "IsNaN", "Where", "ReduceSum", "Cast", "Sub", "Less", "LessOrEqual", "Gather", "Slice",
              "Shape", "Constant", "Unsqueeze", "Reshape", "Add", "Div", "Equal", "Concat", "Squeeze", "Mul"}
    assert ops <= parsed, ops - parsed


def test_integers_and_a_window_axis() -> None:
    """Integer tensors (no NaN) and a median over a window axis of a 5-D tensor (a median filter)."""
    class Window(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return _trt_median(x, -1), _trt_kthvalue(x, 3, 2)

    for dtype in (torch.int64, torch.int32, torch.float64, torch.float16):
        x = torch.randint(-5, 5, (1, 2, 3, 4, 9)).to(dtype)
        session = ort_session(export_torchscript(Window(), (x,), {"x": {0: "b", 3: "w"}}))
        for x in (x, torch.randint(-9, 9, (2, 2, 3, 7, 9)).to(dtype)):
            got = session.run(None, {"x": x.numpy()})
            for g, w in zip(got, (torch.median(x, -1)[0], torch.kthvalue(x, 3, 2)[0])):
                assert same_up_to_zero_sign(torch.from_numpy(g), w), (dtype, g, w)


def test_eager_scripted_traced_compiled_exported_is_torchs_function() -> None:
    x = torch.tensor([[3.0, NAN, 1.0, 2.0], [0.0, -0.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0]])
    want = _expected(x)
    scripted = torch.jit.script(Select())
    traced = torch.fx.symbolic_trace(Select())
    compiled = torch.compile(Select(), fullgraph=True, backend="eager")
    exported = torch.export.export(Select(), (x,)).module()
    for model in (Select(), scripted, traced, compiled, exported):
        for got, expected in zip(model(x), want):
            assert got.dtype == expected.dtype and torch.equal(got.view(torch.int32), expected.view(torch.int32))
    y = torch.randn(3, 5, requires_grad=True)
    (_trt_median(y, 1).sum() + _trt_kthvalue(y, 2, 0).sum() + _trt_median(y)).backward()
    ours = y.grad.clone()
    y.grad = None
    (torch.median(y, 1)[0].sum() + torch.kthvalue(y, 2, 0)[0].sum() + torch.median(y)).backward()
    assert torch.equal(ours, y.grad)


# --- torch.nanmedian: the lower median of the numbers, NaN left out (neuralforecast's robust scalers) ---------------

def test_the_nanmedian_rewrite() -> None:
    # neuralforecast 3.3.0 common/_scalers.py:100 (Nixtla/neuralforecast, `nan_median`): the values unpacked, the
    # indices bound to `_` and never read
    code = ("import torch\n\ndef nan_median(x: torch.Tensor, mask: torch.Tensor, dim: int = -1, keepdim: bool = True):\n"
            "    x_nan = x.masked_fill(mask < 1, float('nan'))\n"
            "    x_median, _ = x_nan.nanmedian(dim=dim, keepdim=keepdim)\n"
            "    return torch.nan_to_num(x_median, nan=0.0)\n\n\n"
            "def whole(x: torch.Tensor):\n    return torch.nanmedian(x), torch.nanmedian(x, 1).values\n")
    new = rewrite(code)
    assert "    x_median = _trt_nanmedian(x_nan, dim=dim, keepdim=keepdim)\n" in new, new
    assert "    return _trt_nanmedian(x), _trt_nanmedian(x, 1)\n" in new, new
    assert rules_found(new, select=("TRT319", "TRT706")) == []


class NanSelect(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _trt_nanmedian(x, 1), _trt_nanmedian(x, -1, True), _trt_nanmedian(x)


def _nan_expected(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return torch.nanmedian(x, 1)[0], torch.nanmedian(x, -1, True)[0], torch.nanmedian(x)


NAN_CASES = {**CASES,
             "all-nan-row": torch.tensor([[NAN, NAN, NAN], [1.0, NAN, 3.0], [NAN, 2.0, NAN]]),
             "nan-and-infinities": torch.tensor([[INF, NAN, INF, -1.0], [NAN, -INF, INF, NAN], [INF, INF, NAN, 0.0]]),
             "zeros": torch.zeros(2, 5), "all-nan": torch.full((2, 3), NAN)}


@pytest.mark.parametrize("case", NAN_CASES)
def test_the_nanmedian_graph_gives_torchs_values(case: str) -> None:
    session = _nan_session()
    x = NAN_CASES[case]
    outputs = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    for got, want in zip(outputs, _nan_expected(x)):
        assert same_up_to_zero_sign(torch.from_numpy(got), want), (case, got, want)
    for got, want in zip(NanSelect()(x), _nan_expected(x)):  # eager mode: torch's own function
        assert torch.equal(got.view(torch.int32), want.view(torch.int32))


_NAN_SESSION: list[ort.InferenceSession] = []


def _nan_session() -> ort.InferenceSession:
    if not _NAN_SESSION:
        model = export_torchscript(NanSelect(), (torch.randn(3, 6),), {"x": {0: "batch", 1: "n"}})
        ops = {node.op_type for node in onnx.load_from_string(model).graph.node}
        assert "TopK" in ops and "If" not in ops and not any("Median" in op for op in ops), ops
        _NAN_SESSION.append(ort_session(model))
    return _NAN_SESSION[0]


def test_nanmedian_of_integers_and_under_the_other_toolchains() -> None:
    x = torch.tensor([[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN], [1.0, 2.0, 3.0, 4.0]])
    want = _nan_expected(x)
    for model in (torch.jit.script(NanSelect()), torch.fx.symbolic_trace(NanSelect()),
                  torch.compile(NanSelect(), fullgraph=True, backend="eager"),
                  torch.export.export(NanSelect(), (x,)).module()):
        for got, expected in zip(model(x), want):
            assert got.dtype == expected.dtype and torch.equal(got.view(torch.int32), expected.view(torch.int32))
    ints = torch.randint(-5, 5, (2, 7))
    session = ort_session(export_torchscript(NanSelect(), (ints,), {"x": {0: "batch", 1: "n"}}))
    for got, want in zip(session.run(None, {"x": ints.numpy()}), _nan_expected(ints)):
        assert torch.equal(torch.from_numpy(got), want)


def test_what_torch_refuses_keeps_its_error_while_exporting() -> None:
    class Bad(torch.nn.Module):
        def __init__(self, k: int, dim: int) -> None:
            super().__init__()
            self.k, self.dim = k, dim

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_kthvalue(x, self.k, self.dim)

    for k, dim, x in ((6, 1, torch.randn(2, 5)), (1, 2, torch.randn(2, 5)), (1, 1, torch.empty(2, 0))):
        with pytest.raises((RuntimeError, IndexError)) as theirs:
            torch.kthvalue(x, k, dim)
        with pytest.raises(type(theirs.value)):
            export_torchscript(Bad(k, dim), (x,), {"x": {}})
    with pytest.raises(IndexError):
        _trt_median(torch.randn(2, 3), 4)


# Real forward code (the library lines cited), rewritten and run before and after.
TIMM = """\
import torch
import torch.nn.functional as F


def median_pool(x):
    # timm/layers/median_pool.py:45-49 (3x3 window, stride 1, reflect padding)
    x = F.pad(x, (1, 1, 1, 1), mode='reflect')
    x = x.unfold(2, 3, 1).unfold(3, 3, 1)
    x = x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]
    return x
"""

MONAI = """\
import torch


def median_of_features(features, original_shape):
    # monai/networks/layers/simplelayers.py:495-496
    median: torch.Tensor = torch.median(features, dim=1)[0]
    median = median.reshape(original_shape)
    return median
"""

IBERT = """\
import torch


def percentile_bounds(input, lower_percentile, upper_percentile):
    # transformers/models/ibert/quant_modules.py:545-556
    input_length = input.shape[0]
    lower_index = round(input_length * (1 - lower_percentile * 0.01))
    upper_index = round(input_length * upper_percentile * 0.01)
    upper_bound = torch.kthvalue(input, k=upper_index).values
    lower_bound = -torch.kthvalue(-input, k=lower_index).values
    return lower_bound, upper_bound
"""


DISK = """\
import torch


def strongest(detection_logp, n):
    # kornia/feature/disk/detector.py:56-61
    minus_threshold, _indices = torch.kthvalue(-detection_logp, n)
    threshold = -minus_threshold
    above = detection_logp > threshold
    tied = detection_logp == threshold
    return above, tied, threshold
"""


def _bits(t: torch.Tensor) -> torch.Tensor:
    """A float32 tensor's bytes as integers (signed zeros and NaN payloads compared); others as they are."""
    return t.view(torch.int32) if t.dtype == torch.float32 else t


def _load(tmp_path: Path, name: str, code: str, rewritten: bool):
    path = tmp_path / f"{name}_{int(rewritten)}.py"
    # --unsafe: timm's Tensor.unfold is TRT311's (unsafe), which the export needs as well.
    path.write_text(rewrite(code, unsafe=True) if rewritten else code)
    return import_file(path, f"{name}_{int(rewritten)}")


@pytest.mark.parametrize("name,code,function,make,others,exports", [
    ("timm", TIMM, "median_pool", lambda: torch.randn(2, 3, 6, 5), (), True),
    ("monai", MONAI, "median_of_features", lambda: torch.randn(2, 27, 5, 4), ((2, 5, 4),), True),
    # I-BERT rounds a size (`round(input.shape[0] * ...)`), which the TorchScript exporter traces as a
    # tensor that `round` refuses: that line stops its export before kthvalue, with or without the fix.
    ("ibert", IBERT, "percentile_bounds", lambda: torch.randn(40), (0.1, 90.0), False),
    ("disk", DISK, "strongest", lambda: torch.randn(50), (7,), True),
])
def test_real_uses_rewrite_run_and_export(tmp_path: Path, name: str, code: str, function: str, make,
                                          others: tuple, exports: bool) -> None:
    """Each real use is rewritten to the helper; before and after give the same values in eager mode
    (NaN and a tie included), and the rewritten one exports (TorchScript) and runs in ONNX Runtime
    as torch does, where the original does not export."""
    new = rewrite(code)
    assert "median(" not in new.split("\n\n\ndef ")[-1].replace("_trt_median(", "")
    assert "kthvalue(" not in new.split("\n\n\ndef ")[-1].replace("_trt_kthvalue(", "")
    before, after = _load(tmp_path, name, code, False), _load(tmp_path, name, code, True)
    x = make()
    x.view(-1)[3] = NAN
    x.view(-1)[5] = x.view(-1)[6]
    for tensor in (x, make(), torch.zeros_like(x), -make().abs()):
        for want, got in zip(torch.utils._pytree.tree_leaves(getattr(before, function)(tensor, *others)),
                             torch.utils._pytree.tree_leaves(getattr(after, function)(tensor, *others))):
            assert torch.equal(_bits(want), _bits(got))

    class Original(torch.nn.Module):
        def forward(self, t):
            return getattr(before, function)(t, *others)

    class Wrapped(torch.nn.Module):
        def forward(self, t):
            return getattr(after, function)(t, *others)

    with pytest.raises(Exception):
        export_torchscript(Original(), (x,), {"x": {}})
    if not exports:
        with pytest.raises(TypeError, match="__round__"):
            export_torchscript(Wrapped(), (x,), {"x": {}})
        return
    session = ort_session(export_torchscript(Wrapped(), (x,), {"x": {}}))
    for tensor in (x, make(), torch.zeros_like(x)):
        got = session.run(None, {"x": tensor.numpy()})
        want = torch.utils._pytree.tree_leaves(getattr(before, function)(tensor, *others))
        for g, w in zip(got, want):
            assert same_up_to_zero_sign(torch.from_numpy(g), w), (name, g, w)


MODEL = """\
import torch
import torch.nn.functional as F
from torch import nn


class Denoise(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        x = F.pad(x, (1, 1, 1, 1), mode="reflect")
        x = x.unfold(2, 3, 1).unfold(3, 3, 1)
        x = x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]
        return self.conv(x)


def build():
    return Denoise().eval()


def inputs(generator):
    return (torch.randn(2, 3, 8, 8, generator=generator),)
"""


def test_migrate_fixes_the_export_failure(tmp_path: Path) -> None:
    model = tmp_path / "denoise.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"x": {"0": "batch"}}')
    # TRT311 takes the Tensor.unfold windows, TRT319 their median.
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT311", "TRT319"], report["applied"]
    assert report["exit_code"] == 0 and report["after"]["exported"] and report["equivalent"] is True
    rewritten = import_file(model, "denoise_rewritten")
    original = {}
    exec(compile(MODEL, "denoise.py", "exec"), original)
    x = torch.randn(3, 3, 8, 8)
    torch.manual_seed(0)
    ours = rewritten.build()
    torch.manual_seed(0)
    theirs = original["build"]()
    assert torch.equal(ours(x), theirs(x))


# torch.quantile
MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def test_the_quantile_rewrite() -> None:
    code = ("import torch\n\n\ndef f(x, df, p, t):\n"
            "    a = torch.quantile(mask.float(), self.confidence_ratio, dim=-1, keepdim=True)\n"
            "    l, r = x.quantile(q=torch.tensor([1 - p, p], device=x.device), dim=-1, keepdim=True)\n"
            "    b = df.quantile(0.9)\n"
            "    c = x.sigmoid().quantile(0.5, 1)\n"
            "    d = torch.quantile(x, 0.5, out=t)\n"
            "    e = torch.quantile(input=x, q=0.2, interpolation='nearest')\n"
            "    g = torch.quantile(x.abs().reshape(x.shape[0], -1), p, dim=1)\n"
            "    h = torch.quantile(x, *p)\n"
            "    return a, l, r, b, c, d, e, g, h\n")
    new = rewrite(code)
    assert "    a = _trt_quantile(mask.float(), self.confidence_ratio, dim=-1, keepdim=True)\n" in new
    assert "    l, r = _trt_quantile(x, q=torch.tensor([1 - p, p], device=x.device), dim=-1, keepdim=True)\n" in new
    assert "    b = df.quantile(0.9)\n" in new  # a pandas object has .quantile(q) too: not taken, not reported
    assert "    c = _trt_quantile(x.sigmoid(), 0.5, 1)\n" in new  # sigmoid() shows a tensor
    assert "    d = torch.quantile(x, 0.5, out=t)\n" in new
    assert "    e = _trt_quantile(x, q=0.2, interpolation='nearest')\n" in new
    assert "    g = _trt_quantile(x.abs().reshape(x.shape[0], -1), p, dim=1)\n" in new
    assert "    h = torch.quantile(x, *p)\n" in new
    assert rules_found(code, select=("TRT319",)) == ["TRT319"] * 7


def _close(got: torch.Tensor, want: torch.Tensor) -> bool:
    """Within an ulp or two of torch's operands (torch's CPU lerp fuses a multiply-add), NaN where torch's is."""
    if got.dtype != want.dtype or got.shape != want.shape or not torch.equal(got.isnan(), want.isnan()):
        return False
    g, w = got.nan_to_num(0.0, 1e300, -1e300), want.nan_to_num(0.0, 1e300, -1e300)
    return torch.equal(got.isinf(), want.isinf()) and torch.allclose(g, w, rtol=4 * torch.finfo(got.dtype).eps,
                                                                     atol=4 * torch.finfo(got.dtype).eps)


Q_CASES = {
    "random": torch.randn(4, 7) * 3,
    "ties": torch.tensor([[1.0, 1.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0], [-1.0, 3.0, -1.0, 3.0, -1.0]]),
    "nan": torch.tensor([[NAN, 1.0, 2.0, 3.0, 4.0], [1.0, NAN, NAN, NAN, NAN], [2.0, 1.0, 0.0, -1.0, -2.0]]),
    "infinities": torch.tensor([[INF, -INF, INF, 0.0, 1.0], [-INF, -INF, -INF, 1.0, 2.0], [INF, INF, 1.0, 1.0, 1.0]]),
    "negatives": -torch.arange(12.0).reshape(3, 4),
    "zeros": torch.zeros(3, 6),
    "one per row": torch.tensor([[3.0], [-1.0]]),
    "two per row": torch.tensor([[1.0, 0.0], [NAN, 0.0], [5.0, 5.0]]),
    "even": torch.randn(3, 8),
}
QS = (0.0, 0.25, 1 / 3, 0.5, 0.7, 1.0, 1, "0-d", "1-D")


def _q(q, dtype: torch.dtype):
    if q == "0-d":
        return torch.tensor(0.7, dtype=dtype)
    if q == "1-D":
        return torch.tensor([0.1, 0.5, 0.9, 1.0], dtype=dtype)
    return q


@pytest.mark.parametrize("case", Q_CASES)
def test_the_sort_is_torchs_quantile(case: str) -> None:
    """Every q form, dim, keepdim, interpolation and dtype: lower/higher/nearest/midpoint bit for bit,
    linear within an ulp of its operands, NaN where torch's is."""
    for q, dim, keepdim, mode, dtype in itertools.product(QS, (None, 0, 1, -1), (False, True), MODES,
                                                          (torch.float32, torch.float64)):
        x, qq = Q_CASES[case].to(dtype), _q(q, dtype)
        want = torch.quantile(x, qq, dim, keepdim, interpolation=mode)
        got = _trt_sorted_quantile(x, qq, dim, keepdim, mode)
        assert (_close if mode == "linear" else same_up_to_zero_sign)(got, want), (q, dim, keepdim, mode, dtype, got, want)


class Quantiles(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("qs", torch.tensor([0.05, 0.5, 0.95]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                                torch.Tensor, torch.Tensor]:
        return (_trt_quantile(x, 0.3, dim=-1, keepdim=True), _trt_quantile(x, self.qs, dim=1), _trt_quantile(x, 0.5),
                _trt_quantile(x, 0.75, 0, interpolation="nearest"),
                _trt_quantile(x, torch.tensor([0.2, 0.9]), keepdim=True, interpolation="midpoint"),
                _trt_quantile(x, 1.0, 1, interpolation="lower"), _trt_quantile(x, 0.4, 1, interpolation="higher"))


def _expected_quantiles(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    qs = torch.tensor([0.05, 0.5, 0.95])
    return (torch.quantile(x, 0.3, dim=-1, keepdim=True), torch.quantile(x, qs, dim=1), torch.quantile(x, 0.5),
            torch.quantile(x, 0.75, 0, interpolation="nearest"),
            torch.quantile(x, torch.tensor([0.2, 0.9]), keepdim=True, interpolation="midpoint"),
            torch.quantile(x, 1.0, 1, interpolation="lower"), torch.quantile(x, 0.4, 1, interpolation="higher"))


@pytest.fixture(scope="module")
def quantile_graph() -> ort.InferenceSession:
    model = export_torchscript(Quantiles(), (torch.randn(3, 6),), {"x": {0: "batch", 1: "n"}})
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("case", Q_CASES)
def test_the_graph_gives_torchs_quantiles_at_other_sizes(quantile_graph: ort.InferenceSession, case: str) -> None:
    x = Q_CASES[case]
    for got, want in zip(quantile_graph.run(None, {"x": x.numpy()}), _expected_quantiles(x)):
        assert _close(torch.from_numpy(got), want), (case, got, want)


def test_the_original_does_not_export_and_the_graph_holds_only_what_tensorrt_parses() -> None:
    class Original(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.quantile(x, 0.3, dim=-1, keepdim=True)

    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError, match="aten::quantile"):
        export_torchscript(Original(), (torch.randn(2, 5),), {"x": {0: "batch"}})
    ops = {node.op_type for node in onnx.load_from_string(
        export_torchscript(Quantiles(), (torch.randn(2, 5),), {"x": {0: "batch"}})).graph.node}
    assert "TopK" in ops and "If" not in ops and "GatherElements" not in ops
    parsed = {"TopK", "IsNaN", "Where", "ReduceSum", "Greater", "Cast", "Sub", "Less", "Gather", "Shape", "Constant",
              "Unsqueeze", "Reshape", "Add", "Mul", "Ceil", "Floor", "Round", "Transpose", "Squeeze", "Slice", "Concat"}
    assert ops <= parsed, ops - parsed


def test_quantile_eager_scripted_fx_compiled_exported_is_torchs_function() -> None:
    x = torch.tensor([[3.0, NAN, 1.0, 2.0], [0.0, -0.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0]])
    want = _expected_quantiles(x)
    models = (Quantiles(), torch.jit.script(Quantiles()), torch.fx.symbolic_trace(Quantiles()),
              torch.compile(Quantiles(), fullgraph=True, backend="eager"), torch.export.export(Quantiles(), (x,)).module())
    for model in models:
        for got, expected in zip(model(x), want):
            assert got.dtype == expected.dtype and torch.equal(got.view(torch.int32), expected.view(torch.int32))
    y = torch.randn(3, 5, requires_grad=True)
    (_trt_quantile(y, 0.3, 1).sum() + _trt_quantile(y, torch.tensor([0.2, 0.6])).sum()).backward()
    ours = y.grad.clone()
    y.grad = None
    (torch.quantile(y, 0.3, 1).sum() + torch.quantile(y, torch.tensor([0.2, 0.6])).sum()).backward()
    assert torch.equal(ours, y.grad)


@pytest.mark.parametrize("x,q,dim", [
    (torch.randn(2, 5), 1.5, 1), (torch.randn(2, 5), -0.1, None), (torch.randn(2, 5), torch.tensor([0.5, 1.2]), 1),
    (torch.empty(2, 0), 0.5, 1), (torch.empty(0), 0.5, None), (torch.arange(6).reshape(2, 3), 0.5, 1),
    (torch.randn(2, 5), 0.5, 2), (torch.randn(2, 5), torch.tensor([[0.5]]), 1),
    (torch.randn(2, 5), torch.tensor([0.5], dtype=torch.float64), 1),
])
def test_what_torch_quantile_refuses_keeps_its_error_in_eager_and_while_exporting(x: torch.Tensor, q, dim) -> None:
    class Bad(torch.nn.Module):
        def forward(self, t: torch.Tensor) -> torch.Tensor:
            return _trt_quantile(t, q, dim)

    with pytest.raises((RuntimeError, IndexError)) as theirs:
        torch.quantile(x, q, dim)
    with pytest.raises(type(theirs.value), match=str(theirs.value).splitlines()[0][:40].replace("(", ".").replace(")", ".").replace("[", ".").replace("]", ".")):
        _trt_quantile(x, q, dim)
    with pytest.raises(type(theirs.value)):
        export_torchscript(Bad(), (x,), {"t": {}})


def test_the_exporters_error_names_trt319_and_a_path_does_not() -> None:
    """migrate ties "Exporting the operator 'aten::quantile'" to TRT319; the bare word in a path
    (a checkout under ``.../quantile/``) named TRT319 for another operator's failure."""
    from trtcodemod.migrate.locate import _rules_named

    assert _rules_named("UnsupportedOperatorError: Exporting the operator 'aten::quantile' to ONNX opset version 17 "
                        "is not supported [at /src/att_modules.py:142]") == ["TRT319"]
    assert "TRT319" not in _rules_named("SymbolicValueError: Unsupported: ONNX export of operator Unfold, input size "
                                        "not accessible [at /work/quantile/denoise.py:13]")
    # The same for every operator the table names, not this one only.
    assert "TRT319" not in _rules_named("SymbolicValueError: Unsupported: ONNX export of operator Unfold, input size "
                                        "not accessible [at /home/me/median/filters.py:7]")
    assert _rules_named("ATen fallback op 'quantile' [at /src/att.py:1]") == ["TRT319"]
