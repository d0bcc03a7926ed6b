"""TRT309 (``F.affine_grid``) on 3-D grids and on sizes whose length is known only when the call runs.

The real code this follows is torchreg 0.1.3 (the PyPI wheel): torchreg/affine.py, ``affine_transform``
(lines 61-65), ``F.affine_grid(affine, [len(x), len(shape), *shape], align_corners)``, and
torchreg/utils.py, ``create_grid`` (lines 40-41), ``F.affine_grid(torch.eye(4)[None, :3], [1, 3,
*shape], align_corners=True)``: the size's length (4 for an image, 5 for a volume) is unknown to
the rule, and ``len(x)`` in the same call is TRT704's. The reduced model below is written in our own
words; the cited variants are in ``tests/recipe_variants/trt309/``.
"""

from __future__ import annotations

import io
import math
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once
from support import assert_same, rewrite, rules_found, strip_helpers

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.helpers.affine import _trt_affine_grid, _trt_affine_grid_3d

SOURCE = '''
import torch
import torch.nn.functional as F
from torch import nn


def sampling_grid(x: torch.Tensor, affine, shape=None, align_corners=True):
    shape = x.shape[2:] if shape is None else shape
    return F.affine_grid(affine, [len(x), len(shape), *shape], align_corners)


class Registration(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Parameter(torch.eye(4)[None, :3] + 0.1 * torch.randn(1, 3, 4))

    def forward(self, x):
        grid = sampling_grid(x, self.affine.expand(x.shape[0], -1, -1))
        size = [x.shape[0], 1, x.shape[2], x.shape[3], x.shape[4]]
        fixed = F.affine_grid(self.affine.expand(x.shape[0], -1, -1), size, align_corners=False)
        return grid, fixed
'''


def test_the_rewrite_takes_3d_and_unpacked_sizes() -> None:
    """Before, a size written out with five entries was reported without a fix; now every call is
    rewritten (the helper reads the length), and `len(x)` in the same call is TRT704's."""
    five = "import torch.nn.functional as F\ndef f(theta, n, c, d, h, w):\n" \
           "    return F.affine_grid(theta, [n, c, d, h, w], align_corners=True)\n"
    assert "return _trt_affine_grid(theta, [n, c, d, h, w], align_corners=True)" in rewrite(five, select=("TRT309",))
    after = strip_helpers(rewrite(SOURCE, select=("TRT309",)))
    assert "return _trt_affine_grid(affine, [len(x), len(shape), *shape], align_corners)" in after
    assert "fixed = _trt_affine_grid(self.affine.expand(x.shape[0], -1, -1), size, align_corners=False)" in after
    unpacked = "import torch.nn.functional as F\ndef f(args):\n    return F.affine_grid(*args)\n"
    assert rules_found(unpacked, select=("TRT309",)) == ["TRT309"]
    assert rewrite(unpacked, select=("TRT309",)) == unpacked


def test_the_len_inside_the_call_lands_in_the_same_pass() -> None:
    """``migrate`` allows the fixes it planned at their first-pass positions only. TRT309 replaced
    the whole call before, so TRT704's ``len(x)`` inside it waited a pass and then stood on a changed
    line, where it was no longer allowed: torchreg's graph kept the example's batch. The rule now
    replaces the function's name only, and both fixes land at once."""
    source = SOURCE.encode()
    options = Options(select=("TRT309", "TRT704"), scope="all")
    planned = {(f.rule, f.line, f.column) for f in check_source(source, "reg.py", options) if f.edit is not None}
    assert {rule for rule, _, _ in planned} == {"TRT309", "TRT704"}
    only = Options(select=("TRT309", "TRT704"), scope="all", allow=lambda f: (f.rule, f.line, f.column) in planned)
    after = fix_source(source, "reg.py", only).source.decode()
    assert "return _trt_affine_grid(affine, [x.shape[0], len(shape), *shape], align_corners)" in after, after


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_3d_export_grid_is_pytorchs_bit_for_bit(dtype, align_corners) -> None:
    g = torch.Generator().manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # F.affine_grid's note on unit sizes with align_corners
        for n, d, h, w in [(2, 4, 5, 6), (1, 1, 1, 1), (3, 1, 7, 2), (2, 9, 1, 1), (1, 16, 20, 24), (2, 33, 17, 5)]:
            theta = torch.randn(n, 3, 4, generator=g, dtype=dtype)
            want = F.affine_grid(theta, [n, 2, d, h, w], align_corners=align_corners)
            got = _trt_affine_grid_3d(theta, [n, 2, d, h, w], align_corners)
            assert torch.equal(got, want) and got.stride() == want.stride()
        theta = torch.tensor([[[math.inf, 0.0, 0.0, 1.0], [0.0, math.nan, 0.0, 0.0], [0.0, 0.0, -0.0, -1.0]]],
                             dtype=dtype)
        assert_same(_trt_affine_grid_3d(theta, [1, 1, 2, 3, 3], align_corners),
                    F.affine_grid(theta, [1, 1, 2, 3, 3], align_corners=align_corners))


def test_eager_mode_is_affine_grid_for_every_size_form() -> None:
    """Outside an export the helper is ``F.affine_grid``: lists, tuples, ``torch.Size``, 2-D and 3-D,
    and its errors (a size of zero, a theta that does not match the size's length, six entries)."""
    theta2, theta3 = torch.randn(2, 2, 3), torch.randn(2, 3, 4)
    for args in ([theta3, [2, 1, 3, 4, 5]], [theta3, (2, 1, 3, 4, 5)], [theta3, torch.Size([2, 1, 3, 4, 5])],
                 [theta2, [2, 1, 4, 5]], [theta3, [2, 1, 0, 4, 5]], [theta2, [2, 1, 3, 4, 5]],
                 [theta3, [2, 1, 4, 5]], [theta3, [2, 1, 1, 3, 4, 5]], [theta3.int(), [2, 1, 3, 4, 5]]):
        for align_corners in (False, True):
            assert_same_run(run_once(_trt_affine_grid, [*args, align_corners]),
                            run_once(F.affine_grid, [*args, align_corners]), context=str(args[1]))


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["Registration"]
    after = import_source(rewrite(SOURCE, select=("TRT309", "TRT704")), tmp_path_factory.mktemp("after"))
    return before, after["Registration"]


def _volume(n: int, d: int, h: int, w: int, values: str = "random") -> torch.Tensor:
    x = torch.randn(n, 1, d, h, w, generator=torch.Generator().manual_seed(n * 100 + d))
    return {"random": x, "zeros": torch.zeros_like(x), "negative": -x.abs() - 1}[values]


def test_eager_mode_is_the_original(models) -> None:
    before, after = models
    torch.manual_seed(0)
    first = before()
    torch.manual_seed(0)
    second = after()
    for n, d, h, w, values in [(2, 3, 4, 5, "random"), (1, 1, 1, 1, "zeros"), (3, 2, 1, 6, "negative")]:
        assert_same_run(run_once(first, [_volume(n, d, h, w, values)]),
                        run_once(second, [_volume(n, d, h, w, values)]), context=f"{n} {d} {h} {w}")
    assert_same_run(run_once(first, [torch.zeros(1, 1, 0, 2, 2)]), run_once(second, [torch.zeros(1, 1, 0, 2, 2)]))


def test_the_original_does_not_export_and_the_rewrite_follows_every_size(models) -> None:
    before, after = models
    torch.manual_seed(0)
    original = before().eval()
    torch.manual_seed(0)
    rewritten = after().eval()
    example = _volume(2, 3, 4, 5)
    axes = {"x": {0: "n", 2: "d", 3: "h", 4: "w"}}

    def export(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes=axes)
        return onnx.load_from_string(buffer.getvalue())

    with pytest.raises(Exception, match="affine_grid"):
        export(original)
    graph = export(rewritten)
    assert not {"AffineGrid"} & {node.op_type for node in graph.graph.node}
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for n, d, h, w in [(2, 3, 4, 5), (4, 7, 2, 9), (1, 1, 1, 1), (3, 1, 6, 1)]:
        x = _volume(n, d, h, w)
        got = session.run(None, {"x": x.numpy()})
        with torch.no_grad():
            want = original(x)
        for a, b in zip(want, got):
            assert_same(a, torch.from_numpy(b), atol=1e-6, rtol=0)


@pytest.mark.parametrize("spatial", [2, 3])
def test_the_helper_bakes_nothing_while_tracing(spatial) -> None:
    """theta's last two sizes pick the helper's path; read as traced sizes, the comparison was a bool
    the exporter bakes with a TracerWarning at the helper's line (SPIGA's crops, zoo 69), which
    migrate reports as a value left in the user's file."""
    sizes = (4, 5) if spatial == 2 else (3, 4, 5)

    class Crops(torch.nn.Module):
        def forward(self, theta, x):
            return _trt_affine_grid(theta, [theta.shape[0], x.shape[1], *sizes], align_corners=False)

    theta = torch.randn(2, spatial, spatial + 1)
    x = torch.randn(2, 3, *sizes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(Crops(), (theta, x), io.BytesIO(), dynamo=False, opset_version=17,
                          input_names=["theta", "x"], dynamic_axes={"theta": {0: "n"}, "x": {0: "n"}})
    traced = [str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    assert traced == []
