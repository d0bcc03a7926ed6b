"""TRT336 (``while t[..., i, :]: i += 1``): the search for the first false element, in the graph.

The rewrite text (MONAI's ``get_fully_sampled_region``, the other spellings of the step, what is
left), the helper against the loop (eager: the loop itself, its errors included; the traced
formulation over masks of zeros, ones, NaN and negatives, stepping up and down, negative Python
starts), the export with both exporters (the original's TorchScript graph keeps the example's index;
the rewritten graph follows the mask in ONNX Runtime), and migrate on a small model.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.scanning import _trt_scan_traced, _trt_scan_while
from trtcodemod.trt.check import check_graph

SOURCE = '''
import torch
from torch import nn


class Centre(nn.Module):
    def get_fully_sampled_region(self, mask):
        left = right = mask.shape[-2] // 2
        while mask[..., right, :]:
            right += 1

        while mask[..., left, :]:
            left -= 1

        return left + 1, right

    def forward(self, k, mask):
        left, right = self.get_fully_sampled_region(mask)
        n = right - left
        x = torch.zeros_like(k)
        start = (mask.shape[-2] - n + 1) // 2
        x[..., start : start + n, :] = k[..., start : start + n, :]
        return x


def first_gap(flags, i: int):
    while flags[i]: i = i + 1
    return i


def above(flags, i: int):
    while flags[i] > 0:  # a comparison: a function of the slice
        i += 1
    while i > 0 and flags[i]:  # a guard: no index below 1 is tested
        i -= 1
    return i


def kept(flags, i: int):
    while flags[0, i]:          # an integer index: not a line of the other axes
        i += 1
    while i > flags.shape[0] - 9 and flags[i]:   # a guard whose bound is not a whole number
        i -= 1
    while i > 0 and flags[i] and flags[i - 1]:   # more than a guard and the slice
        i -= 1
    while torch.sum(flags[i]) > 0:  # the slice handed to a function
        i += 1
    while flags[i]:
        i += 2                  # another step
    while flags[i]:
        i += 1
    else:
        i = 0
    return i
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT336",)) == ["TRT336"] * 5
    assert "_trt_" not in rewrite(SOURCE, select=("TRT336",))  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT336",), unsafe=True))
    assert "right = _trt_scan_while(lambda right: mask[..., right, :], mask, -2, right, 1)" in after
    assert "left = _trt_scan_while(lambda left: mask[..., left, :], mask, -2, left, -1)" in after
    assert "i = _trt_scan_while(lambda i: flags[i], flags, 0, i, 1)" in after
    assert "i = _trt_scan_while(lambda i: flags[i] > 0, flags, 0, i, 1, lambda _trt_row: _trt_row > 0)" in after
    assert "i = _trt_scan_while(lambda i: i > 0 and flags[i], flags, 0, i, -1, last=1)" in after
    assert "while " not in after.split("def kept")[0]
    assert after.split("def kept")[1] == SOURCE.split("def kept")[1]  # nothing else rewritten
    once = rewrite(SOURCE, select=("TRT336",), unsafe=True)
    assert rewrite(once, select=("TRT336",), unsafe=True) == once


def _loop(tensor, axis_index, start, step):
    i = start
    while tensor[..., i, :] if axis_index == -2 else tensor[i]:
        i += step
    return i


def _lines() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    out = [torch.tensor(v, dtype=torch.float32) for v in (
        [0.0, 1, 1, 1, 0, 1], [1.0, 1, 0, 1, 1, 1], [0.0] * 5, [1.0, math.nan, 0, -2, 0.5, 0],
        [-1.0, 0, -0.0, 3, 3, 0, 1], [0.0])]
    out += [(torch.rand(n, generator=g) > 0.3).float() for n in (7, 12, 31)]
    return out


def test_eager_mode_is_the_loop_and_its_errors() -> None:
    for line in _lines():
        n = line.shape[0]
        for start in range(-n, n):
            for step in (1, -1):
                for tensor, axis in ((line, 0), (line.reshape(1, 1, n, 1), -2)):
                    want = run_once(lambda: _loop(tensor, axis, start, step), [])
                    test = (lambda i: tensor[..., i, :]) if axis == -2 else (lambda i: tensor[i])
                    got = run_once(lambda: _trt_scan_while(test, tensor, axis, start, step), [])
                    assert_same_run(want, got, context=f"{line.tolist()} {start} {step}")
    # all true: both raise IndexError; two elements per test: both raise at bool()
    ones = torch.ones(4)
    assert_same_run(run_once(lambda: _loop(ones, 0, 1, 1), []),
                    run_once(lambda: _trt_scan_while(lambda i: ones[i], ones, 0, 1, 1), []))
    wide = torch.ones(2, 4, 1)
    assert_same_run(run_once(lambda: _loop(wide, -2, 0, 1), []),
                    run_once(lambda: _trt_scan_while(lambda i: wide[..., i, :], wide, -2, 0, 1), []))


def test_the_traced_formulation_is_where_the_loop_ends() -> None:
    for line in _lines():
        n = line.shape[0]
        for start in range(-n, n):
            for step in (1, -1):
                try:
                    want = _loop(line, 0, start, step)
                except IndexError:
                    continue  # the loop runs off the line: outside the assumption
                for shaped, axis in ((line, 0), (line.reshape(1, 1, n, 1), -2), (line.reshape(1, n), 1)):
                    got = _trt_scan_traced(shaped, axis, start, step)
                    assert got.dtype == torch.int64 and got.dim() == 0 and int(got) == want, (line, start, step)
                if start >= 0:  # a traced start (a 0-d tensor) is taken as non-negative
                    assert int(_trt_scan_traced(line, 0, torch.tensor(start), step)) == want


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["Centre"]
    after = import_source(rewrite(SOURCE, select=("TRT336",), unsafe=True), tmp_path_factory.mktemp("after"))["Centre"]
    return before, after


def _mask(w: int, gap: int = 4) -> torch.Tensor:
    cols = torch.arange(w)
    return ((cols % gap == 0) | ((cols - w // 2).abs() < 4)).reshape(1, 1, 1, w, 1)


def test_eager_mode_is_the_original(programs) -> None:
    before, after = programs
    for w in (64, 50, 33, 9):
        for values in ("random", "zeros", "negative"):
            k = torch.randn(2, 3, 5, w, 2) if values == "random" else torch.zeros(2, 3, 5, w, 2)
            if values == "negative":
                k = -k.abs() - 1
            for mask in (_mask(w), _mask(w, 3), _mask(w).float()):
                assert_same_run(run_once(before(), [k.requires_grad_(True), mask]),
                                run_once(after(), [k.detach().requires_grad_(True), mask]), context=f"{w} {values}")
    empty = [torch.zeros(0, 3, 5, 16, 2), _mask(16)]
    assert_same_run(run_once(before(), empty), run_once(after(), empty))
    ones = [torch.randn(1, 1, 2, 8, 2), torch.ones(1, 1, 1, 8, 1)]  # runs off the mask: IndexError in both
    assert_same_run(run_once(before(), ones), run_once(after(), ones))


class _Wrapped(torch.nn.Module):
    """The mask built from the width, as a caller of the model does."""

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, k):
        return self.model(k, _mask(k.shape[3]))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_export_follows_the_mask(programs, dynamo) -> None:
    before, after = programs
    example = torch.randn(1, 2, 5, 64, 2)

    def export(model):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if dynamo:
                dims = {"k": {0: torch.export.Dim("b"), 3: torch.export.Dim("w", min=16, max=256)}}
                return torch.onnx.export(_Wrapped(model), (example,), dynamo=True, input_names=["k"],
                                         dynamic_shapes=dims, verbose=False).model_proto
            buffer = io.BytesIO()
            torch.onnx.export(_Wrapped(model), (example,), buffer, dynamo=False, opset_version=17, input_names=["k"],
                              dynamic_axes={"k": {0: "b", 3: "w"}})
            return onnx.load_from_string(buffer.getvalue())

    def agrees(graph, widths):
        session = ort.InferenceSession(graph.SerializeToString())
        for w in widths:
            k = torch.randn(2, 2, 5, w, 2)
            got = torch.from_numpy(session.run(None, {"k": k.numpy()})[0])
            if not torch.equal(got, _Wrapped(before())(k)):
                return False
        return True

    widths = (64, 50, 33, 100)
    if dynamo:  # torch.export stops at the loop's data-dependent test: the helper runs the loop there too
        for model in (before(), after()):
            with pytest.raises(Exception, match="data-dependent|Could not guard|GuardOnDataDependent"):
                export(model)
        return
    assert not agrees(export(before()), widths)  # the original keeps the example's centre
    graph = export(after())
    assert "ArgMax" in {n.op_type for n in graph.graph.node}
    assert agrees(graph, widths)


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        flags = x[0, 0, 0] > -10
        flags = torch.cat((flags, flags.new_zeros(1)))
        i = 0
        while flags[i]:
            i += 1
        return self.conv(x[..., :i])


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "scan_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT336"]
    assert "+        i = _trt_scan_while(lambda i: flags[i], flags, 0, i, 1)" in report["diff"]


def _last_box(gt: torch.Tensor) -> torch.Tensor:
    """PointRCNN's trim of zero-padded gt boxes, through the helper (a function of the slice)."""
    k = gt.shape[0] - 1
    k = _trt_scan_while(lambda k: gt[k].sum() == 0, gt, 0, k, -1, lambda row: row.sum() == 0)
    return gt[:k + 1].sum(0)


def test_a_function_of_the_slice_is_mapped_while_tracing() -> None:
    """The traced line is the test mapped over the rows: the graph follows where the padding starts, with
    rows of infinities and NaN (whose sums are not zero) among the boxes; a test vmap refuses runs the loop."""
    example = torch.randn(6, 4)
    example[4:] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(_last_box, (example,))
    for valid in (1, 2, 5, 6):
        gt = torch.randn(6, 4)
        gt[valid:] = 0
        gt[0, 0] = math.inf
        if valid > 2:
            gt[1, 1] = math.nan
        assert torch.equal(traced(gt).isnan(), _last_box(gt).isnan())
        assert torch.allclose(traced(gt).nan_to_num(), _last_box(gt).nan_to_num())

    def refused(gt: torch.Tensor) -> torch.Tensor:
        k = gt.shape[0] - 1
        k = _trt_scan_while(lambda k: gt[k].sum().item() == 0, gt, 0, k, -1, lambda row: row.sum().item() == 0)
        return gt[:k + 1].sum(0)

    with pytest.warns(torch.jit.TracerWarning), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.trace(refused, (example,))  # vmap refuses `.item()`: the loop, unrolled as written


@pytest.mark.parametrize(("guard", "start", "step", "last"), [
    ("k >= 0", 5, -1, 0), ("k > 0", 5, -1, 1), ("k > 2", 5, -1, 3), ("k < 5", 0, 1, 4), ("k <= 3", 1, 1, 3),
    ("k >= 0", -1, -1, 0), ("k > 0", 0, -1, 1), ("k < 5", 5, 1, 4),  # the guard fails first: no test at all
])
def test_a_guarded_scan_stops_where_its_guard_does(guard: str, start: int, step: int, last: int) -> None:
    """``while k >= 0 and t[k].sum() == 0`` (OpenPCDet): traced, the loop tests no index past its guard's, on rows
    all padding, none, and some; eager mode is the loop."""
    bound = eval(f"lambda k: {guard}")  # noqa: S307 - the parametrized guard

    def scan(gt: torch.Tensor) -> torch.Tensor:
        k = _trt_scan_while(lambda k: bound(k) and gt[k].sum() == 0, gt, 0, start, step,
                            lambda row: row.sum() == 0, last=last)
        return torch.as_tensor(k)

    def loop(gt: torch.Tensor) -> int:
        k = start
        while bound(k) and gt[k].sum() == 0:
            k += step
        return k

    for zero_rows in ([], [0, 1, 2, 3, 4, 5], [3, 4, 5], [0, 1], [2]):
        gt = torch.randn(6, 3)
        gt[zero_rows] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(scan, (torch.randn(6, 3),))
        assert int(traced(gt)) == loop(gt) == int(scan(gt)), (zero_rows, int(traced(gt)), loop(gt))
