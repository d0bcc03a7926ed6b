"""TRT340 (max unpooling): the rewrite, eager mode, the export-time scatter, and the export.

The rewrite of `F.max_unpool1d/2d/3d` calls and `nn.MaxUnpool1d/2d/3d` constructions (and what is
left); eager mode before and after, bit for bit, on values with signed zeros, infinities and NaN; the
scatter the helpers take while exporting against torch's function on the same values (overlapping
windows, padding, a given `output_size`, unbatched input, 1-D and 3-D, half precision); the
TorchScript export of an ENet-style block (the original's fails) whose graph passes the TensorRT check
and gives in ONNX Runtime what eager torch gives at two other sizes of its dynamic axes; and migrate
on a small model.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import import_source
from torch.utils._python_dispatch import TorchDispatchMode
from support import bits_equal, export_formulation, migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers import unpooling
from trtcodemod.trt.check import check_graph

SPECIAL = (0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 1e-30, -7.25, 3.0)


class AtenOps(TorchDispatchMode):
    """The aten operators run inside the block (the export-time formulation must not run the operators
    the exporter or TensorRT cannot take)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.add(func.__name__.split(".")[0])
        return func(*args, **(kwargs or {}))


def image(shape: tuple[int, ...], dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    """Random values with the special ones spread over the tensor (so some windows' maxima are NaN,
    infinities or signed zeros)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64).flatten()
    where = torch.randperm(x.numel(), generator=g)[:min(x.numel(), 4 * len(SPECIAL))]
    x[where] = torch.tensor(SPECIAL, dtype=torch.float64).repeat(4)[:len(where)]
    return x.reshape(shape).to(dtype)


# --- the rewrite -----------------------------------------------------------------------------

SOURCE = """import torch
import torch.nn.functional as F
from torch import nn


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.unpool = nn.MaxUnpool2d(kernel_size=2)
        self.wide = torch.nn.MaxUnpool2d(3, stride=2, padding=1)
        self.line = nn.MaxUnpool1d(2)
        self.volume = nn.MaxUnpool3d(2, 2)

    def forward(self, x, i, y, j, z, k):
        a = self.unpool(x, i) + F.max_unpool2d(x, i, 2)
        b = F.max_unpool2d(x, i, kernel_size=2, stride=2, padding=0, output_size=[a.shape[2] + 1, a.shape[3] + 1])
        return a, b, self.line(y, j), F.max_unpool1d(y, j, 2), self.volume(z, k), F.max_unpool3d(z, k, (2, 2, 2))
"""


def test_rewrite_text_and_what_is_left() -> None:
    after = strip_helpers(rewrite(SOURCE, select=("TRT340",)))
    for line in ("self.unpool = _TrtMaxUnpool2d(kernel_size=2)", "self.wide = _TrtMaxUnpool2d(3, stride=2, padding=1)",
                 "self.line = _TrtMaxUnpool1d(2)", "self.volume = _TrtMaxUnpool3d(2, 2)",
                 "a = self.unpool(x, i) + _trt_max_unpool2d(x, i, 2)",
                 "b = _trt_max_unpool2d(x, i, kernel_size=2, stride=2, padding=0, output_size=[a.shape[2] + 1, "
                 "a.shape[3] + 1])",
                 "_trt_max_unpool1d(y, j, 2)", "_trt_max_unpool3d(z, k, (2, 2, 2))"):
        assert line in after, line
    assert "max_unpool" not in after.replace("_trt_max_unpool", "") and "MaxUnpool" not in after.replace(
        "_TrtMaxUnpool", "")
    assert rules_found(SOURCE).count("TRT340") == 8 and "TRT706" not in rules_found(SOURCE)
    # A keyword the function or the constructor does not take: reported, not rewritten.
    odd = "import torch.nn.functional as F\nfrom torch import nn\n\n" \
          "def f(x, i):\n    return F.max_unpool2d(x, i, 2, ceil_mode=True)\n\n" \
          "u = nn.MaxUnpool2d(2, dilation=2)\n"
    assert rules_found(odd, select=("TRT340",)) == ["TRT340", "TRT340"]
    assert rewrite(odd, select=("TRT340",)) == odd


def test_modules_keep_their_state_and_repr_and_eager_mode_is_torchs(tmp_path) -> None:
    before = import_source(SOURCE, tmp_path)["Up"]()
    after = import_source(rewrite(SOURCE, select=("TRT340",)), tmp_path)["Up"]()
    assert repr(after) == repr(before)
    assert [type(m).__name__ for m in (after.unpool, after.wide, after.line, after.volume)] == [
        "_TrtMaxUnpool2d", "_TrtMaxUnpool2d", "_TrtMaxUnpool1d", "_TrtMaxUnpool3d"]
    assert isinstance(after.unpool, torch.nn.MaxUnpool2d) and isinstance(after.line, torch.nn.MaxUnpool1d)
    assert after.wide.stride == (2, 2) and after.wide.padding == (1, 1) and after.volume.kernel_size == (2, 2, 2)
    for size in (8, 10):
        x, i = F.max_pool2d(image((2, 3, size, size + 2)), 2, return_indices=True)
        y, j = F.max_pool1d(image((2, 3, size)), 2, return_indices=True)
        z, k = F.max_pool3d(image((1, 2, size, 4, 6)), 2, return_indices=True)
        for expected, got in zip(before(x, i, y, j, z, k), after(x, i, y, j, z, k)):
            assert bits_equal(expected, got)


# --- the scatter taken while exporting, on real tensors ---------------------------------------

#: (pooling, unpooling, input shape, kwargs of both): windows that tile, overlap (repeated indices)
#: and are padded, with and without a given output size, batched and unbatched.
CASES = {
    "2d": (F.max_pool2d, unpooling._trt_max_unpool2d, F.max_unpool2d, (2, 3, 8, 6), dict(kernel_size=2)),
    "2d-odd": (F.max_pool2d, unpooling._trt_max_unpool2d, F.max_unpool2d, (1, 2, 7, 9), dict(kernel_size=2)),
    "2d-overlap-pad": (F.max_pool2d, unpooling._trt_max_unpool2d, F.max_unpool2d, (2, 2, 9, 7),
                       dict(kernel_size=3, stride=2, padding=1)),
    "2d-rect": (F.max_pool2d, unpooling._trt_max_unpool2d, F.max_unpool2d, (1, 3, 6, 9),
                dict(kernel_size=(2, 3), stride=(2, 3))),
    "2d-unbatched": (F.max_pool2d, unpooling._trt_max_unpool2d, F.max_unpool2d, (3, 6, 4), dict(kernel_size=2)),
    "1d": (F.max_pool1d, unpooling._trt_max_unpool1d, F.max_unpool1d, (2, 4, 11), dict(kernel_size=3, stride=2)),
    "3d": (F.max_pool3d, unpooling._trt_max_unpool3d, F.max_unpool3d, (1, 2, 4, 6, 4), dict(kernel_size=2)),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize("name", list(CASES))
def test_the_scatter_gives_torchs_values_bit_for_bit(name: str, dtype: torch.dtype) -> None:
    pool, helper, original, shape, kwargs = CASES[name]
    x = image(shape, dtype, seed=len(name))
    pooled, indices = pool(x, return_indices=True, **kwargs)
    count = len(shape) - 1 if name.endswith("unbatched") else len(shape) - 2
    if name == "2d-odd":
        # the default size (6x8) is too small for the indices of a 7x9 input: torch refuses them, so does
        # the scatter
        with pytest.raises(RuntimeError):
            original(pooled, indices, **kwargs)
        with export_formulation(), pytest.raises(RuntimeError):
            helper(pooled, indices, **kwargs)
        expected = got = None
    else:
        expected = original(pooled, indices, **kwargs)
        assert bits_equal(helper(pooled, indices, **kwargs), expected)  # eager: torch's function
    with export_formulation(), AtenOps() as ops:
        if expected is not None:
            got = helper(pooled, indices, **kwargs)
        # the output size given, in full or as the spatial sizes only (torch takes the last axes)
        full = list(x.shape[-count:]) if name.endswith("unbatched") else list(x.shape)  # torch takes n or n + 2
        given = helper(pooled, indices, output_size=full, **kwargs)
        spatial = helper(pooled, indices, output_size=x.shape[-count:], **kwargs)
    if expected is not None:
        assert bits_equal(got, expected), name
    assert bits_equal(given, original(pooled, indices, output_size=full, **kwargs))
    assert bits_equal(spatial, given)
    assert "scatter" in ops.names and not [name for name in ops.names if "unpool" in name], ops.names
    # the special values were unpooled where they were maxima
    assert given.isnan().any() and (given == math.inf).any()


def test_other_input_keeps_torchs_function_and_its_error() -> None:
    """A guard of the fallback (it holds without the rule too): what the scatter does not take is torch's."""
    pooled, indices = F.max_pool2d(image((1, 2, 4, 4)), 2, return_indices=True)
    with export_formulation():
        with pytest.raises(RuntimeError):  # int32 indices: torch refuses them, and so does the helper
            unpooling._trt_max_unpool2d(pooled, indices.int(), 2)
        with pytest.raises(RuntimeError):  # a 2-D input for a 2-D unpooling
            unpooling._trt_max_unpool2d(pooled[0, 0], indices[0, 0], 2)


# --- max pooling's indices, which TensorRT's MaxPool does not produce ---------------------------

POOLS = [  # kernel, stride, padding, dilation, ceil mode: tiling, overlapping and padded (ENet's), dilated,
    # rectangular, ceil mode with windows past the end
    (2, None, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False),
    ((2, 3), (1, 2), (1, 0), 1, True), (3, 3, 0, 1, True)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize("pool", POOLS, ids=str)
def test_max_pool_indices_are_torchs_pick_bit_for_bit(pool, dtype) -> None:
    """Ties (rounded values), NaN (torch picks a window's last), -inf (a window of them: its first element),
    signed zeros; batched and unbatched."""
    for shape, seed in (((2, 3, 7, 9), 0), ((1, 2, 8, 8), 1), ((3, 6, 5), 2)):
        x = (image(shape, torch.float64, seed) * 2).round().to(dtype)
        x[..., :3, :3] = -math.inf  # a window of -inf only
        expected = F.max_pool2d(x, *pool, return_indices=True)
        assert all(bits_equal(e, g) for e, g in zip(expected, unpooling._trt_max_pool2d(x, *pool, True)))
        with export_formulation(), AtenOps() as ops:
            values, indices = unpooling._trt_max_pool2d(x, *pool, True)
            plain = unpooling._trt_max_pool2d(x, *pool)
        # the pick by ArgMax and GatherElements (eager torch runs `max_pool2d_with_indices` for any max pooling:
        # the exporter writes a MaxPool without Indices where they are not returned)
        assert {"argmax", "gather"} <= ops.names, ops.names
        assert bits_equal(values, expected[0]) and bits_equal(indices, expected[1]), (shape, pool)
        assert bits_equal(plain, expected[0])
        assert expected[0].isnan().any()


def test_max_pool_with_indices_is_rewritten_only_where_they_are_returned() -> None:
    source = ("import torch.nn.functional as F\nfrom torch import nn\n\n"
              "a = nn.MaxPool2d(3, 2, 1, return_indices=True)\nb = nn.MaxPool2d(2)\nc = nn.MaxPool2d(2, 2, 0, 1, True)\n"
              "d = nn.MaxPool2d(2, return_indices=False)\n\n"
              "def f(x):\n    return F.max_pool2d(x, 2, return_indices=True), F.max_pool2d(x, 2)\n")
    after = strip_helpers(rewrite(source, select=("TRT340",)))
    for line in ("a = _TrtMaxPool2d(3, 2, 1, return_indices=True)", "b = nn.MaxPool2d(2)",
                 "c = _TrtMaxPool2d(2, 2, 0, 1, True)", "d = nn.MaxPool2d(2, return_indices=False)",
                 "return _trt_max_pool2d(x, 2, return_indices=True), F.max_pool2d(x, 2)"):
        assert line in after, line


# --- the export -------------------------------------------------------------------------------

BLOCK = """import torch
from torch import nn
import torch.nn.functional as F


class Block(nn.Module):
    \"\"\"ENet's down and up blocks (pytorchcv/models/enet.py): max pooling with indices, a 1x1 conv,
    max unpooling with them; and a padded, overlapping one whose output size is the input's.\"\"\"

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1, return_indices=True)
        self.unpool = nn.MaxUnpool2d(kernel_size=2)

    def forward(self, x):
        y, max_indices = self.pool(x)
        up = self.unpool(y * 2, max_indices)  # (ENet convolves first: a product rounds the same in both)
        z, wide = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        back = F.max_unpool2d(z, wide, 3, 2, 1, output_size=x.size())
        return up, back
"""


def _export(model: torch.nn.Module, x: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
    return onnx.load_from_string(buffer.getvalue())


def test_the_export_passes_the_trt_check_and_matches_eager_at_other_sizes(tmp_path) -> None:
    torch.manual_seed(0)
    before = import_source(BLOCK, tmp_path)["Block"]().eval()
    after = import_source(rewrite(BLOCK, select=("TRT340",)), tmp_path)["Block"]().eval()
    after.load_state_dict(before.state_dict())
    x = image((1, 3, 8, 10))
    with pytest.raises(Exception):
        _export(before, x)
    graph = _export(after, x)
    ops = {node.op_type for node in graph.graph.node}
    assert "ScatterElements" in ops and "MaxUnpool" not in ops
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in ((2, 3, 12, 6), (1, 3, 6, 14)):
        y = image(shape, seed=shape[2])
        with torch.no_grad():
            expected = before(y)
        got = session.run(None, {"x": y.numpy()})
        for e, g in zip(expected, got):
            assert bits_equal(e, torch.from_numpy(g)), shape
        assert got[1].shape == tuple(shape)  # the given output size follows the input's


MODEL = '''
import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(kernel_size=2)

    def forward(self, x):
        y, max_indices = self.pool(self.conv(x))
        y = self.unpool(y * 2, max_indices, output_size=x.size())
        return y + F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=x.shape[2:]).sum(1, True)


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    """The export stops where forward calls `self.unpool` (built in `__init__`) with an error that names
    no op, and once it exports, TensorRT's MaxPool has no Indices output where `self.pool` is called:
    migrate links the calls to the constructions and applies TRT340 there and at the nested function calls."""
    path = tmp_path / "unpool_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT340"] * 4
    assert "+        self.unpool = _TrtMaxUnpool2d(kernel_size=2)" in report["diff"]
    assert "+        self.pool = _TrtMaxPool2d(2, return_indices=True)" in report["diff"]
    # nested calls, both rewritten
    assert "_trt_max_unpool2d(*_trt_max_pool2d(x, 2, return_indices=True), 2, output_size=x.shape[2:])" in report["diff"]


HANDED_DOWN = '''
import torch
from torch import nn


class Decoder(nn.Module):
    """monai's QuickNAT (monai/networks/nets/quicknat.py): the pooling and unpooling modules are built by the
    network and handed to the block whose forward calls them."""

    def __init__(self, max_pool, un_pool):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 1)
        self.max_pool = max_pool
        self.un_pool = un_pool

    def forward(self, x):
        out, indices = self.max_pool(x)
        return self.un_pool(self.conv(out), indices, output_size=x.shape)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        max_pool = nn.MaxPool2d(2, 2, return_indices=True, ceil_mode=True)
        un_pool = nn.MaxUnpool2d(kernel_size=2, stride=2)
        self.stem = nn.Conv2d(3, 8, 1)
        self.block = Decoder(max_pool, un_pool)

    def forward(self, x):
        return self.block(self.stem(x))


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_modules_built_in_one_class_and_called_in_another(tmp_path) -> None:
    """The export error names no op and the line that calls `self.un_pool` is not where it is built: the
    traceback's frame in `F.max_unpool2d` names TRT340; once it exports, the MaxPool whose Indices output is
    used is tagged TRT340, and the construction is found where it is (a ceil-mode pooling of odd sizes: 5x5)."""
    path = tmp_path / "handed_down.py"
    path.write_text(HANDED_DOWN)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert sorted(a["rule"] for a in report["applied"]) == ["TRT340"] * 2
    assert "+        max_pool = _TrtMaxPool2d(2, 2, return_indices=True, ceil_mode=True)" in report["diff"]
    assert "+        un_pool = _TrtMaxUnpool2d(kernel_size=2, stride=2)" in report["diff"]


CONCAT_NORM = """import torch
from torch import nn
import torch.nn.functional as F


class Dense(nn.Module):
    \"\"\"QuickNAT's dense blocks: the unpooled map concatenated with the skip and instance-normalized, which the
    TorchScript exporter refuses for an unknown channel count.\"\"\"

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)
        self.pool = nn.MaxPool2d(2, 2, return_indices=True, ceil_mode=True)
        self.unpool = nn.MaxUnpool2d(2, 2)

    def forward(self, x):
        x = self.conv(x)
        y, indices = self.pool(x)
        return F.instance_norm(torch.cat([self.unpool(y, indices, output_size=x.shape), x], 1))
"""


def test_the_exported_sizes_keep_the_channels(tmp_path) -> None:
    torch.manual_seed(0)
    model = import_source(rewrite(CONCAT_NORM, select=("TRT340",)), tmp_path)["Dense"]().eval()
    graph = _export(model, torch.randn(1, 3, 7, 9))  # "instance_norm for unknown channel size" where they are lost
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    y = torch.randn(2, 3, 5, 12)
    with torch.no_grad():
        expected = model(y)
    torch.testing.assert_close(torch.from_numpy(session.run(None, {"x": y.numpy()})[0]), expected, atol=1e-5, rtol=1e-5)


SCRIPTED = '''
import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, return_indices=True)

    def forward(self, x):
        y, i = self.pool(x)
        z, j = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(y, i, 2) + F.max_unpool2d(z, j, [2, 2])
'''


def test_torch_jit_script_runs_the_original(tmp_path) -> None:
    """Each helper starts with a scripting fallback: the rewritten module scripts and gives the original's
    values; `nn.MaxUnpool2d` itself fails to script in torch 2.13 ("Expected IntList but got Int"), and so
    does its subclass, the same way."""
    after_source = rewrite(SCRIPTED, select=("TRT340",))
    assert "_TrtMaxPool2d(2, return_indices=True)" in after_source and "_trt_max_unpool2d(y, i, 2)" in after_source
    before = import_source(SCRIPTED, tmp_path)["M"]()
    after = import_source(after_source, tmp_path)["M"]()
    x = torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(0))
    assert torch.equal(torch.jit.script(after)(x), torch.jit.script(before)(x))
    for module in (torch.nn.MaxUnpool2d(2), import_source(rewrite(
            "from torch import nn\nu = nn.MaxUnpool2d(2)\n", select=("TRT340",)), tmp_path)["u"]):
        with pytest.raises(RuntimeError, match="IntList"):
            torch.jit.script(module)
