"""TRT342: pooling whose window is read from the pooled tensor's own sizes → a reduction while exporting.

``F.avg_pool2d(x, x.size()[2:])`` stops the TorchScript export (the kernel is a traced value, "not
constant"); after the rewrite the graph holds a ReduceMean / ReduceMax that gives torch's values at the
traced size and at others. Eager mode is torch's call itself. What the window means is followed through
local names (``n, c, h, w = x.size()``), and a name or tensor rebound in between is not taken. The safety
contract (script, fx, compile, export, hypothesis-drawn tensors) runs in tests/safety/.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import export_formulation, invoke, rewrite

from trtcodemod.engine import Options, check_source
from trtcodemod.trt.check import check_graph

SOURCE = """import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import max_pool2d


class Pool(nn.Module):
    def forward(self, x):
        a = F.avg_pool2d(x, x.size()[2:])
        b = F.max_pool2d(x, kernel_size=x.shape[-2:])
        c = F.avg_pool2d(x, (x.data.size()[2], x.data.size()[3]))
        n, ch, h, w = x.size()
        d = max_pool2d(x, (h, 1))
        size = (x.size(2), x.size(3))
        e = nn.functional.avg_pool2d(x, size, stride=size, ceil_mode=True, count_include_pad=False)
        hh, ww = x.shape[2:]
        f = F.avg_pool2d(x, [1, ww], padding=0)
        g = F.avg_pool2d(x, (hh, 2), stride=(hh, 2), padding=(0, 1), ceil_mode=True)
        return a, b, c, d, e, f, g
"""


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT342",))
    body = after.split("class Pool", 1)[1]
    assert "a = _trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3))" in body
    assert "b = _trt_whole_max_pool2d(x, kernel_size=x.shape[-2:], whole=(-2, -1))" in body
    assert "c = _trt_whole_avg_pool2d(x, (x.data.size()[2], x.data.size()[3]), whole=(2, 3))" in body
    assert "d = _trt_whole_max_pool2d(x, (h, 1), whole=(2, None))" in body
    assert ("e = _trt_whole_avg_pool2d(x, size, stride=size, ceil_mode=True, count_include_pad=False, "
            "whole=(2, 3))") in body
    assert "f = _trt_whole_avg_pool2d(x, [1, ww], padding=0, whole=(None, 3))" in body
    assert "g = _trt_whole_avg_pool2d(x, (hh, 2), stride=(hh, 2), padding=(0, 1), ceil_mode=True, whole=(2, None))" \
        in body
    # 1-D and 3-D forms, `torch.max_pool3d`, `from ... import avg_pool1d as pool`
    other = ("import torch\nfrom torch.nn.functional import avg_pool1d as pool\n\n\n"
             "def f(x, v):\n    *_, length = x.shape\n    return pool(x, length), torch.max_pool3d(v, v.shape[-3:])\n")
    assert ("    return _trt_whole_avg_pool1d(x, length, whole=(-1,)), "
            "_trt_whole_max_pool3d(v, v.shape[-3:], whole=(-3, -2, -1))\n") in rewrite(other, select=("TRT342",))


KEPT = """import torch
import torch.nn.functional as F


def rebound(self, x):
    h, w = x.shape[2:]
    x = self.conv(x)
    return F.avg_pool2d(x, (h, w))


def other_tensor(x, y):
    return F.avg_pool2d(x, y.size()[2:])


def padded(x, q):
    a = F.avg_pool2d(x, x.size()[2:], padding=1)
    b = F.max_pool2d(x, x.size()[2:], dilation=2)
    c = F.avg_pool2d(x, x.size()[2:], divisor_override=3)
    d = F.max_pool2d(x, x.size()[2:], return_indices=True)
    e = F.avg_pool2d(x, *q)
    return a, b, c, d, e


def branch(x, flag):
    h = 3
    if flag:
        h = x.size(2)
    return F.avg_pool2d(x, (h, 1))


def loop(self, x):
    h = x.size(2)
    for conv in self.convs:
        x = F.max_pool2d(x, (h, 1))
        x = conv(x)
    return x


def in_place(x):
    h = x.size(2)
    x.unsqueeze_(1)
    return F.avg_pool3d(x, (1, h, 1))


def swapped(x):
    return F.avg_pool2d(x, (x.size(3), x.size(-2))), F.avg_pool2d(x, x.shape[:2]), F.avg_pool2d(x, x.shape[-3:-1])
"""


def test_what_is_not_taken_and_what_is_named_without_a_fix() -> None:
    findings = check_source(KEPT.encode(), "snippet.py", Options(select=("TRT342",)))
    # only the calls whose other arguments change the meaning are named (without a fix), one per call
    assert [(f.line, f.edit is None) for f in findings] == [(16, True), (17, True), (18, True), (19, True)]
    assert "padding" in findings[0].message and "divisor_override" in findings[2].message
    after = rewrite(KEPT, select=("TRT342",))
    assert after == KEPT
    # `x.shape[1:3]` is the whole window of a 3-D `(C, H, W)` input: taken, as axes 1 and 2
    unbatched = "import torch.nn.functional as F\n\n\ndef f(x):\n    return F.avg_pool2d(x, x.shape[1:3])\n"
    assert "_trt_whole_avg_pool2d(x, x.shape[1:3], whole=(1, 2))" in rewrite(unbatched, select=("TRT342",))


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("whole_window_pool")
    after = rewrite(SOURCE, select=("TRT342",))
    return import_source(SOURCE, folder)["Pool"], import_source(after, folder)


def _image(n: int, c: int, h: int, w: int, seed: int, dtype=torch.float32) -> torch.Tensor:
    """Random values with edge values, one kind per channel (so each stays visible): inf in channel 0, NaN in
    channel 1, all -0.0 in channel 2 and a huge value (near float32's largest) next to -inf in the last."""
    generator = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, c, h, w, generator=generator, dtype=torch.float64) * 3).to(dtype)
    x[:, 0, h // 2, w // 2] = float("inf")
    if c > 1:
        x[:, 1, 0, w - 1] = float("nan")
    if c > 2:
        x[:, 2] = -0.0
    if c > 3:
        x[:, 3, 0, 0], x[:, 3, h - 1, 0] = 3e38, -float("inf")
    return x


def _same(got, want, exact: bool) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    if exact:
        assert torch.equal(torch.nan_to_num(got, nan=123.0), torch.nan_to_num(want, nan=123.0)), (got, want)
    else:
        torch.testing.assert_close(got, want, equal_nan=True, rtol=1e-5, atol=1e-6)


EXACT = (False, True, False, True, False, False, False)  # the maxima are exact; means within a rounding


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_eager_mode_is_torchs_call_and_the_export_formulation_is_its_reduction(programs, dtype) -> None:
    before, namespace = programs
    assert "_trt_whole_avg_pool2d" in namespace and "_trt_whole_max_pool2d" in namespace  # rewritten
    for shape in ((1, 4, 1, 1), (2, 3, 5, 4), (1, 4, 7, 9), (3, 1, 2, 6)):
        x = _image(*shape, seed=sum(shape), dtype=dtype)
        want = before()(x)
        for got, wanted in zip(namespace["Pool"]()(x), want):
            _same(got, wanted, exact=True)  # torch's call itself
        with export_formulation(namespace):
            got = namespace["Pool"]()(x)
        for number, (g, w) in enumerate(zip(got, want)):
            _same(g, w, exact=EXACT[number])


def test_the_helper_keeps_torchs_call_where_the_axes_do_not_hold() -> None:
    """``x.size()[2:]`` read as axes 2 and 3 is the whole window of a 4-D input only: a 3-D input ``(C, H, W)``
    gives a one-entry window ``(W,)`` pooled as ``(W, W)``, which torch computes (no reduction); integer
    tensors (torch's integer division), a divisor, padding on a whole axis keep torch's call (and its error) too."""
    from trtcodemod.helpers.whole_pooling import _trt_whole_avg_pool2d, _trt_whole_max_pool2d

    x = torch.arange(24.0).reshape(2, 6, 2)  # C=2, H=6, W=2
    with export_formulation():
        assert torch.equal(_trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3)),
                           torch.nn.functional.avg_pool2d(x, x.size()[2:]))
        image = x[None]
        assert torch.equal(_trt_whole_avg_pool2d(image, (6, 2), divisor_override=5, whole=(2, 3)),
                           torch.nn.functional.avg_pool2d(image, (6, 2), divisor_override=5))
        with pytest.raises(RuntimeError, match="pad should be at most half"):
            _trt_whole_max_pool2d(image, (6, 2), padding=(4, 0), whole=(2, 3))
        whole = _trt_whole_avg_pool2d(image.long(), (6, 2), whole=(2, 3))
        assert whole.dtype == torch.int64 and torch.equal(whole, torch.nn.functional.avg_pool2d(image.long(), (6, 2)))
        # a whole axis named at another rank (axis 2 of a 3-D input is its width) is not reduced
        assert torch.equal(_trt_whole_avg_pool2d(image, (2, 2), whole=(None, 2)),
                           torch.nn.functional.avg_pool2d(image, (2, 2)))


def _export(model: torch.nn.Module, x: torch.Tensor) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, x: torch.Tensor) -> list[torch.Tensor]:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    return [torch.from_numpy(out) for out in session.run(None, {"x": x.numpy()})]


def test_the_original_stops_and_the_rewritten_export_reduces_at_every_size(programs) -> None:
    before, namespace = programs
    with pytest.raises(Exception, match="not constant"):
        _export(before(), _image(1, 3, 5, 4, seed=0))
    model = namespace["Pool"]()
    graph = _export(model, _image(1, 3, 6, 5, seed=1))
    ops = {node.op_type for node in graph.graph.node}
    assert {"ReduceMean", "ReduceMax"} <= ops
    assert [f for f in check_graph(graph, "10.0") if f.severity == "error"] == []
    for shape in ((1, 3, 6, 5), (2, 3, 9, 4), (1, 3, 3, 11)):
        x = _image(*shape, seed=shape[2])
        # where a window holds a NaN, torch's max pooling gives NaN, and ONNX Runtime's ReduceMax either NaN or the
        # maximum of the other values (as its MaxPool skips NaN): either, and every other value exact
        skipped = model(x.nan_to_num(nan=-float("inf"), posinf=float("inf"), neginf=-float("inf")))
        for number, (got, want, wanted_max) in enumerate(zip(_run(graph, x), model(x), skipped)):
            if EXACT[number]:
                assert got.shape == want.shape and got.dtype == want.dtype
                assert bool(((got == want) | (got == wanted_max) | (got.isnan() & want.isnan())).all()), (got, want)
                assert torch.equal(got[~want.isnan()], want[~want.isnan()])
            else:
                _same(got, want, exact=False)


def test_scripted_it_is_torchs_call(programs) -> None:
    before, namespace = programs
    assert "_trt_whole_avg_pool2d" in namespace
    scripted = torch.jit.script(namespace["Pool"]())
    x = _image(2, 3, 5, 4, seed=3)
    for got, want in zip(scripted(x), before()(x)):
        _same(got, want, exact=True)


HACNN_LIKE = """import torch
import torch.nn.functional as F
from torch import nn


class ChannelAttn(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        x = F.avg_pool2d(x, x.size()[2:])
        return torch.sigmoid(self.conv(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.attn = ChannelAttn(8)

    def forward(self, x):
        y = self.stem(x)
        y = y * self.attn(y)
        return F.avg_pool2d(y, y.size()[2:]).view(y.size(0), -1)


def build():
    torch.manual_seed(0)
    return Net().eval()
"""


def test_migrate_fixes_the_export_that_stops(tmp_path) -> None:
    """HACNN's channel attention and final pooling: the export stops at the first ("not constant"); migrate applies
    TRT342 there and at the other call of the file in the same round."""
    import json

    path = tmp_path / "hacnn_like.py"
    path.write_text(HACNN_LIKE)
    # a dynamic batch alone makes the traced sizes non-constant (Gather of a Shape that is not constant)
    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x3x7x6", "--dynamic-axes",
                    '{"x": {"0": "batch"}}', "--format", "json", "--runs", "1", "--warmup", "0",
                    "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    exit_code = result.exit_code
    assert report["before"]["exported"] is False
    assert exit_code == 0, report["remaining"]
    # the export stops at the first call; the second, in the same file, is applied with it: one round
    assert sorted((a["rule"], a["line"]) for a in report["applied"]) == [("TRT342", 12), ("TRT342", 25)]
    assert len(report["rounds"]) == 1
    assert "+        x = _trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3))" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True


# --- a pooling function the module stores --------------------------------------------------

#: cellpose 3.1.1.2 (MouseLand/cellpose, BSD-3), `cellpose/resnet_torch.py:127-138` (`make_style`): the pooling
#: chosen in `__init__` by the network's dimensionality and stored on the module, then called with the whole
#: window (zoo 101's CPnet stops its export there). Reduced in our own words; a second call pools a fixed window,
#: and the norm's `axis=1` is `dim=1` (TorchScript takes no `axis`), so that the original scripts too.
STORED = """import torch
import torch.nn.functional as F
from torch import nn


class Style(nn.Module):
    def __init__(self, conv_3D=False):
        super().__init__()
        self.flatten = nn.Flatten()
        self.avg_pool = F.avg_pool3d if conv_3D else F.avg_pool2d

    def forward(self, x0):
        style = self.flatten(self.avg_pool(x0, kernel_size=x0.shape[2:]))
        local = self.avg_pool(x0, 1)
        return style / torch.sum(style**2, dim=1, keepdim=True)**.5, local
"""


def test_a_pooling_the_module_stores_is_replaced_where_it_is_stored(tmp_path) -> None:
    after = rewrite(STORED, select=("TRT342",))
    assert "self.avg_pool = _trt_whole_avg_pool3d if conv_3D else _trt_whole_avg_pool2d" in after
    assert "self.flatten(self.avg_pool(x0, kernel_size=x0.shape[2:], whole=((2, 3), (2, 3, 4))))" in after
    assert "local = self.avg_pool(x0, 1)\n" in after  # a window of its own: the helper is torch's call there
    assert rewrite(after, select=("TRT342",)) == after  # nothing left
    # stored twice, or outside `__init__`, or a function of another kind: not taken
    twice = STORED.replace("        self.flatten = nn.Flatten()\n", "        self.avg_pool = F.avg_pool2d\n")
    assert "_trt_whole" not in rewrite(twice, select=("TRT342",))
    mixed = STORED.replace("F.avg_pool3d if", "F.max_pool2d if")
    assert "_trt_whole" not in rewrite(mixed, select=("TRT342",))
    other = STORED.replace("F.avg_pool3d if conv_3D else F.avg_pool2d", "F.avg_pool2d if conv_3D else F.relu")
    assert "_trt_whole" not in rewrite(other, select=("TRT342",))

    namespace = import_source(after, tmp_path)
    before, rewritten = import_source(STORED, tmp_path)["Style"], namespace["Style"]
    for three_d in (False, True):
        for shape in ((1, 4, 1, 1), (2, 4, 5, 4), (1, 4, 7, 9)):
            x = _image(*shape, seed=sum(shape))
            if three_d:
                x = torch.stack([x, -x, torch.zeros_like(x)], 2)  # (n, c, 3, h, w)
            want = before(three_d)(x)
            for got, wanted in zip(rewritten(three_d)(x), want):
                _same(got, wanted, exact=True)  # torch's call itself
            for got, wanted in zip(torch.jit.script(before(three_d))(x), want):
                _same(got, wanted, exact=True)  # the original scripts: so must the rewrite
            scripted = torch.jit.script(rewritten(three_d))
            for got, wanted in zip(scripted(x), want):
                _same(got, wanted, exact=True)
            with export_formulation(namespace):
                got = rewritten(three_d)(x)
            for got_one, wanted in zip(got, want):
                _same(got_one, wanted, exact=False)

    with pytest.raises(Exception, match="not constant"):
        _export(before(), _image(1, 4, 5, 4, seed=0))
    model = rewritten()
    graph = _export(model, _image(1, 4, 6, 5, seed=1))
    assert "ReduceMean" in {node.op_type for node in graph.graph.node}
    for shape in ((1, 4, 6, 5), (2, 4, 9, 4), (3, 4, 3, 11)):
        x = torch.randn(shape) * 3
        x[0, 0, 0, 0] = 0.0
        for got, want in zip(_run(graph, x), model(x)):
            _same(got, want, exact=False)
