"""TRT363: ``x.as_strided(size, stride)`` becomes ``_trt_as_strided(x, size, stride)``: ``as_strided`` itself
outside a TorchScript export, and while exporting, a view that is windows of one axis gathered as those windows.

The rewrite text and what is left alone; which layouts are windows (and which are not); the export form
against ``as_strided`` on real tensors (every axis, window, step and count up to a bound, strided inputs,
empty ones); the helper outside an export, its errors and the toolchains; and three framings as real code
writes them (julius's padded frames, torchaudio's Kaldi frames, SnAG's chunks with the window axis inside),
each rewritten, run before and after on lengths shorter than, equal to and longer than the window, empty
and negative inputs, then exported with a dynamic length and compared in ONNX Runtime at other lengths.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite, rules_found

from trtcodemod.helpers.splitting import _trt_as_strided, _trt_as_strided_windows, _trt_strided_windows


def _fixed(code: str, select: tuple[str, ...] = ("TRT363",)) -> str:
    return rewrite("import torch\n\n\n" + code, select=select, unsafe=True)


@pytest.mark.parametrize(("code", "want"), [
    ("f = padded.as_strided(shape + [n_frames, kernel_size], strides)\n",
     "f = _trt_as_strided(padded, shape + [n_frames, kernel_size], strides)\n"),
    ("f = waveform.as_strided(sizes, strides)\n", "f = _trt_as_strided(waveform, sizes, strides)\n"),
    ("f = x.as_strided(size=chunk_size, stride=chunk_stride)\n", "f = _trt_as_strided(x, chunk_size, chunk_stride)\n"),
    ("f = x.as_strided(stride=(s, 1), size=(n, k))\n", "f = _trt_as_strided(x, (n, k), (s, 1))\n"),
    ("f = x.as_strided((n, k), (s, 1), 0)\n", "f = _trt_as_strided(x, (n, k), (s, 1), 0)\n"),
    ("f = (x + 1).as_strided(\n    (n, k),  # frames\n    (s, 1),\n)\n",
     "f = _trt_as_strided(\n    x + 1, (n, k),  # frames\n    (s, 1),\n)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    source = "import torch\n\n\n" + code
    assert rules_found(source, select=("TRT363",)) == ["TRT363"]
    assert rewrite(source, select=("TRT363",)) == source  # unsafe: only with --unsafe (or proved by migrate)
    after = _fixed(code)
    assert after.endswith(want), after
    assert "def _trt_as_strided(" in after and "def _trt_windows_gathered(" in after
    assert rules_found(after, select=("TRT363",)) == []
    compile(after, "after.py", "exec")


@pytest.mark.parametrize("code", [
    "f = torch.as_strided(x, s, t)\n",  # the function form
    "f = x.as_strided_(s, t)\n",  # in place
    "f = torch.as_strided_scatter(x, y, s, t)\n",
    "f = x.as_strided(*args)\n",
    "f = x.as_strided(s)\n",  # another signature
    "f = np.lib.stride_tricks.as_strided(a, shape=s, strides=t)\n",
])
def test_left_alone(code: str) -> None:
    source = "import numpy as np\nimport torch\n\n\n" + code
    assert "TRT363" not in rules_found(source)
    assert _fixed(code.replace("import numpy as np\n", "")) == "import torch\n\n\n" + code


def _windows_like_as_strided(x: torch.Tensor, size: list, stride: list, offset: int | None = None) -> None:
    """The export form equals ``as_strided`` (values, shape, dtype), or the layout is not taken."""
    got = _trt_as_strided_windows(x, size, stride, offset)
    assert got is not None, (x.shape, x.stride(), size, stride)
    want = x.as_strided(size, stride) if offset is None else x.as_strided(size, stride, offset)
    assert got.shape == want.shape and got.dtype == want.dtype and torch.equal(got, want)


@pytest.mark.parametrize("length", [1, 2, 3, 5, 8, 9])
@pytest.mark.parametrize(("window", "step"), [(1, 1), (2, 1), (3, 2), (2, 2), (4, 3), (2, 5)])
def test_frames_of_every_axis_are_as_strided_windows(length: int, window: int, step: int) -> None:
    x = torch.arange(3 * length * 2, dtype=torch.float32).reshape(3, length, 2) - 7.5  # negatives too
    if window > length:
        return
    for axis in range(3):
        n = x.shape[axis]
        if window > n:
            continue
        unit = x.stride(axis)
        for count in range(0, (n - window) // step + 2):
            size = list(x.shape)
            stride = list(x.stride())
            size[axis], stride[axis] = count, step * unit
            for place in range(4):  # the window axis anywhere
                s, t = size.copy(), stride.copy()
                s.insert(place, window)
                t.insert(place, unit)
                if count and (count - 1) * step + window > n:
                    assert _trt_strided_windows(x, s, t, None) is None  # a window past the axis
                    continue
                _windows_like_as_strided(x, s, t)


def test_strided_and_sliced_inputs() -> None:
    base = torch.randn(4, 11, 6)
    for x in (base.transpose(0, 2), base[:, 1::2], base[..., 1:], base[1:]):
        axis = 1
        unit = x.stride(axis)
        size = list(x.shape)
        stride = list(x.stride())
        size[axis], stride[axis] = (x.shape[axis] - 2) // 2 + 1, 2 * unit
        _windows_like_as_strided(x, size + [2], stride + [unit])
        # The offset `as_strided` takes by default, written out, is the same view.
        _windows_like_as_strided(x, size + [2], stride + [unit], x.storage_offset())


def test_empty_inputs_and_no_windows() -> None:
    x = torch.randn(0, 7)
    _windows_like_as_strided(x, [0, 3, 4], [7, 1, 1])
    y = torch.randn(2, 7)
    _windows_like_as_strided(y, [2, 0, 4], [7, 1, 1])  # no windows at all


@pytest.mark.parametrize(("shape", "size", "stride", "offset"), [
    ((4, 4), [4], [5], None),  # a diagonal
    ((4, 4), [4, 4], [1, 4], None),  # a transpose: two axes, no window
    ((2, 6), [2, 2, 2], [6, 2, 1], 1),  # an offset other than x's
    ((2, 6), [2, 3, 4], [6, 2, 1], None),  # the last window runs past the axis into the next row
    ((2, 6), [2, 3, 2], [5, 2, 1], None),  # another row stride than x's
    ((2, 6), [3, 3, 2], [6, 2, 1], None),  # more rows than x has
    ((2, 6), [2, 3, 2], [6, 0, 1], None),  # a step of 0
    ((2, 6), [2, 3], [6, 2], None),  # no window axis
])
def test_other_layouts_keep_as_strided(shape: tuple[int, ...], size: list, stride: list, offset: int | None) -> None:
    x = torch.randn(shape[0] + 1, *shape[1:])[:shape[0]]  # storage to spare: a window past the axis reads it
    assert _trt_strided_windows(x, size, stride, offset) is None
    assert _trt_strided_windows(x.expand(3, *shape), [3, *size], [0, *stride], offset) is None  # an expanded axis
    # Outside an export the helper is `as_strided` itself, here and everywhere.
    got = _trt_as_strided(x, size, stride, offset)
    want = x.as_strided(size, stride, offset)
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset() and torch.equal(got, want)


@pytest.mark.parametrize("chunks", [1, 2, 3])
@pytest.mark.parametrize("w", [1, 2, 3])
def test_windows_across_two_axes_of_a_chunked_view(chunks: int, w: int) -> None:
    """The view keeps the rank: windows run across the chunk and row axes of a chunked view, taken as one
    axis. Longformer's `_chunk` (allenai/longformer@caefee6 longformer/sliding_chunks.py:25-37) overlaps
    chunks of 2w rows by halving the chunk stride; CogView's `_chunk` (THUDM/CogView@189a12b
    mpu/sparse_transformer.py:629-650) stretches blocks of w rows over the next ones. Neither is windows of
    one axis of the view, so only the merged axes take them."""
    base = torch.arange(2 * 2 * chunks * w * 3, dtype=torch.float32) - 10.5  # negatives too
    x = base.view(2, chunks, 2 * w, 3)  # Longformer: (batch x head, chunks, 2w, size)
    size, stride = list(x.size()), list(x.stride())
    size[1], stride[1] = size[1] * 2 - 1, stride[1] // 2
    assert _trt_strided_windows(x, size, stride, None) is None
    _windows_like_as_strided(x, size, stride)
    heads = base.view(2, 1, 2 * chunks, w, 3)  # CogView: (batch, heads, blocks, w, size), windows of 2 blocks
    size, stride = list(heads.size()), list(heads.stride())
    size[2], size[3] = size[2] - 1, w * 2
    assert _trt_strided_windows(heads, size, stride, None) is None
    _windows_like_as_strided(heads, size, stride)
    # A transposed base whose chunked axes still merge (a view of rows of another tensor's columns).
    rows = torch.randn(3, 2 * chunks * w, 2).transpose(0, 2)  # (2, 2 * chunks * w, 3), strides (1, 2, 4cw)
    view = rows.reshape(2, chunks, 2 * w, 3)
    size, stride = list(view.size()), list(view.stride())
    size[1], stride[1] = size[1] * 2 - 1, stride[1] // 2
    _windows_like_as_strided(view, size, stride)


def test_axes_that_do_not_merge_keep_as_strided() -> None:
    # The chunk axis does not step over its rows (a slice of them): no single axis to take windows of.
    x = torch.randn(2, 3, 6, 4)[:, :, :4]
    size, stride = list(x.size()), list(x.stride())
    size[1], stride[1] = 5, stride[1] // 2
    assert _trt_as_strided_windows(x, size, stride, None) is None
    # The last window would run past the merged axis (one chunk too many).
    y = torch.randn(2, 3, 4, 2)
    size, stride = list(y.size()), list(y.stride())
    size[1], stride[1] = 6, stride[1] // 2
    assert _trt_as_strided_windows(y, size, stride, None) is None


def test_traced_sizes_are_read_without_a_node() -> None:
    """While tracing, sizes are 0-d integer tensors: read outside the trace, with no TracerWarning."""
    x = torch.randn(2, 9)
    size = [torch.tensor(2), torch.tensor(4), torch.tensor(3)]
    stride = [9, torch.tensor(2), 1]
    assert _trt_strided_windows(x, size, stride, None) == (1, 2, stride[1])  # the code's own step, kept traced
    assert _trt_strided_windows(x, [2.0, 4, 3], [9, 2, 1], None) is None  # a float is no size
    assert _trt_strided_windows(x, [2, 4, 3], [9, 2, True], None) is None  # nor a bool


def test_outside_an_export_the_helper_is_as_strided_with_its_errors() -> None:
    x = torch.arange(12.0)
    view = _trt_as_strided(x, (4, 3), (2, 1))
    want = x.as_strided((4, 3), (2, 1))
    assert view.stride() == want.stride() and view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    view[0, 0] = 5.0  # a view: the write reaches x, as before
    assert x[0] == 5.0
    for bad in (((4, 3), (2,)), ((20, 3), (2, 1)), ((4, -3), (2, 1)), ((4, 3), (2, 1), -1)):
        with pytest.raises(Exception) as original:
            x.as_strided(*bad)
        with pytest.raises(type(original.value)):
            _trt_as_strided(x, *bad)


# --- real framings ------------------------------------------------------------------------------------------

#: julius 0.2.8 (adefossez/julius on PyPI) julius/core.py:112-123, `unfold`: frames of the last axis of a padded,
#: contiguous signal, strides read from the padded tensor, the last asserted 1, `[stride, 1]` appended; the
#: count and the padding from `math.ceil` and `max` of the length (TRT712's, rewritten with it).
JULIUS = """\
import math

import torch
import torch.nn.functional as F
from torch import nn


class Frames(nn.Module):
    def __init__(self, window: int = 6, hop: int = 4) -> None:
        super().__init__()
        self.window, self.hop = window, hop

    def forward(self, signal: torch.Tensor) -> torch.Tensor:
        dims = list(signal.shape[:-1])
        length = signal.shape[-1]  # julius pops it from the list: a size only facts show (migrate has them)
        count = math.ceil((max(length, self.window) - self.window) / self.hop) + 1
        padded = F.pad(signal, (0, (count - 1) * self.hop + self.window - length)).contiguous()
        steps = []
        for d in range(padded.dim()):
            steps.append(padded.stride(d))
        unit = steps.pop(-1)
        assert unit == 1
        frames = padded.as_strided(dims + [count, self.window], steps + [self.hop, 1])
        return frames * torch.linspace(-1.0, 1.0, self.window)


def build():
    return Frames().eval()
"""

#: torchaudio's Kaldi compliance (pytorch/audio@2326b75059b66c6e4d987196594f9039cf3031bc
#: src/torchaudio/compliance/kaldi.py:83-85, `_get_strided` with `snip_edges`): frames of a 1-D waveform,
#: `m = 1 + (n - window) // shift`, strides `(shift * w.stride(0), w.stride(0))`.
KALDI = """\
import torch
from torch import nn


class Frames(nn.Module):
    def __init__(self, window: int = 5, shift: int = 2) -> None:
        super().__init__()
        self.window, self.shift = window, shift

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        m = 1 + (wave.size(0) - self.window) // self.shift
        strides = (self.shift * wave.stride(0), wave.stride(0))
        frames = wave.as_strided((m, self.window), strides)
        return frames - frames.mean(1, keepdim=True)


def build():
    return Frames().eval()
"""

#: SnAG's local attention (fmu2/snag_release@44dd90eea9a65b64f7088974eae352c1e26ef6e3
#: libs/modeling/blocks.py:216-221, `MaskedMHA._chunk`): overlapping chunks of the time axis of (n, t, d)
#: features, the chunk axis before the features: `(x.stride(0), s * x.stride(1), *x.stride()[1:])`.
SNAG = """\
import torch
from torch import nn


class Chunks(nn.Module):
    def __init__(self, hop: int = 2) -> None:
        super().__init__()
        self.hop = hop

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, t, d = x.size()
        size = 2 * self.hop
        count = (t + self.hop - size) // self.hop
        chunks = x.as_strided(size=(n, count, size, d), stride=(x.stride(0), self.hop * x.stride(1), *x.stride()[1:]))
        return chunks.sum(2) * 0.5


def build():
    return Chunks().eval()
"""


@pytest.fixture(scope="module")
def framings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    folder = tmp_path_factory.mktemp("strided")
    out = {}
    for name, source, select, want in (
            ("julius", JULIUS, ("TRT363", "TRT712"),
             "frames = _trt_as_strided(padded, dims + [count, self.window], steps + [self.hop, 1])"),
            ("kaldi", KALDI, ("TRT363",), "frames = _trt_as_strided(wave, (m, self.window), strides)"),
            ("snag", SNAG, ("TRT363",), "chunks = _trt_as_strided(x, (n, count, size, d), "
                                        "(x.stride(0), self.hop * x.stride(1), *x.stride()[1:]))")):
        after = rewrite(source, select=select, unsafe=True)
        assert want in after, after
        if name == "julius":  # TRT712 keeps the count traced, in one finding with the `max` in it
            assert "count = _trt_size_ceil((_trt_size_max(length, self.window) - self.window) / self.hop) + 1" in after
        out[name] = import_source(source, folder), import_source(after, folder)
    return out


def _signal(shape: tuple[int, ...]) -> torch.Tensor:
    x = torch.randn(shape)
    if x.numel():
        x.view(-1)[0] = -3.5  # negative values
    return x


#: Input shapes per framing: empty, shorter than the window, equal to it, longer.
SHAPES = {"julius": [(2, 3, 0), (2, 3, 4), (1, 2, 6), (2, 1, 7), (3, 2, 23)],
          "kaldi": [(0,), (3,), (4,), (5,), (6,), (21,)],
          "snag": [(2, 0, 3), (2, 2, 3), (1, 4, 3), (2, 5, 3), (3, 12, 3)]}


@pytest.mark.parametrize("name", ["julius", "kaldi", "snag"])
def test_eager_runs_are_unchanged(framings: dict, name: str) -> None:
    before, after = framings[name]
    for shape in SHAPES[name]:
        x = _signal(shape)
        assert_same_run(run_once(before["build"](), [x]), run_once(after["build"](), [x]), context=f"{name} {shape}")


@pytest.mark.parametrize("name", ["kaldi", "snag"])
def test_the_toolchains_run_as_strided_itself(framings: dict, name: str, tmp_path: Path) -> None:
    before, after = framings[name]
    x = _signal(SHAPES[name][-1])
    cls = "Frames" if name == "kaldi" else "Chunks"
    want, got = toolchain_outcomes(before[cls], [x], tmp_path), toolchain_outcomes(after[cls], [x], tmp_path)
    assert want.keys() == got.keys()
    for toolchain, result in want.items():
        if isinstance(result, Exception):
            assert isinstance(got[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, got[toolchain]), toolchain


def _export(model: torch.nn.Module, x: torch.Tensor, axis: int) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {axis: "length"}})
    return onnx.load_from_string(buffer.getvalue())


#: The traced example and the lengths the graph runs at (the length axis, and shapes at least one window long).
EXPORTS = {"julius": (2, (2, 3, 17), [(2, 3, 17), (2, 3, 6), (2, 3, 9), (2, 3, 40)]),
           "kaldi": (0, (17,), [(17,), (5,), (8,), (41,)]),
           "snag": (1, (2, 10, 3), [(2, 10, 3), (2, 4, 3), (2, 6, 3), (2, 30, 3)])}


@pytest.mark.parametrize("name", ["julius", "kaldi", "snag"])
def test_the_rewritten_graph_follows_the_length(framings: dict, name: str) -> None:
    before, after = framings[name]
    axis, example, shapes = EXPORTS[name]
    # Before: julius's count is baked by `math.ceil` (and where the step is a traced size, as in julius's
    # `fft_conv1d`, the strides stop the export); SnAG's batch stride (t * d, read from `x.stride(0)`) is the
    # example's number, so the graph reads other rows at another length; Kaldi's 1-D wave has constant strides
    # (shift, 1), and the exporter's own Gather already follows the length (TRT363 changes nothing there).
    try:
        original = _export(before["build"](), _signal(example), axis)
    except Exception as error:  # noqa: BLE001 - the TorchScript exporter's refusal
        assert name == "julius" and "not constant" in str(error), error
    else:
        longer = _signal(shapes[-1])
        session = ort.InferenceSession(original.SerializeToString(), providers=["CPUExecutionProvider"])
        got = session.run(None, {"x": longer.numpy()})[0]
        with torch.no_grad():
            want = before["build"]()(longer).numpy()
        assert (got.shape == want.shape and np.allclose(got, want, atol=1e-5)) == (name == "kaldi"), name
    model = after["build"]()
    graph = _export(model, _signal(example), axis)
    assert not {n.op_type for n in graph.graph.node} & {"Loop", "If"}
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in shapes:
        x = _signal(shape)
        with torch.no_grad():
            want = model(x).numpy()
        got = session.run(None, {"x": x.numpy()})[0]
        assert got.shape == want.shape, (name, shape)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{name} {shape}")
    assert math.isfinite(float(np.abs(got).sum()))


#: Frames whose hop is a quarter of the length: the traced step among the strides stops the TorchScript export.
QUARTERS = """\
import torch
from torch import nn


class Quarters(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3, padding=1)

    def forward(self, x):
        y = self.conv(x).contiguous()
        hop = y.shape[-1] // 4
        frames = y.as_strided(y.shape[:-1] + (3, 2 * hop), y.stride()[:-1] + (hop, 1))
        return frames.amax(-1)


def build():
    torch.manual_seed(0)
    return Quarters().eval()


def inputs(generator):
    return [torch.randn(1, 2, 16, generator=generator)]
"""


def test_migrate_finds_the_export_failure_at_the_view_and_proves_the_windows(tmp_path: Path) -> None:
    from support import migrate_json

    model = tmp_path / "quarters.py"
    model.write_text(QUARTERS)
    report = migrate_json(model, '{"x": {"0": "b", "2": "t"}}')
    assert report["before"]["exported"] is False  # "... because it is not constant"
    [fix] = report["applied"]
    assert (fix["rule"], fix["line"]) == ("TRT363", 13) and fix["proof"].startswith("verified:"), fix
    assert report["exit_code"] == 0 and report["equivalent"] is True and not report["remaining"]
    assert "frames = _trt_as_strided(y, y.shape[:-1] + (3, 2 * hop), y.stride()[:-1] + (hop, 1))" in report["diff"]
