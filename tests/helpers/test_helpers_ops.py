"""Property tests: each helper's export formulation against the torch operation it replaces.

The helpers run the torch operation itself outside ``torch.onnx.export`` (tests/safety/test_safety.py
checks that); what they export is the ``*_onnx`` formulation tested here, on seeded random
tensors of many shapes and dtypes, plus exhaustive grids of edge values.
The helpers are imported from the package; the engine injects the same source.
"""

from __future__ import annotations

import io
import itertools
import math
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from support import assert_same
from trtcodemod.helpers import helper_definitions, trt_atan2
from trtcodemod.helpers.atan2 import _trt_atan2, _trt_atan2_onnx
from trtcodemod.helpers.indexing import _trt_mask_index
from trtcodemod.helpers.unique import _trt_unique, _trt_unique_onnx

INF, NAN = float("inf"), float("nan")
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _same_bits(expected: torch.Tensor, actual: torch.Tensor) -> None:
    """Identical values, NaN where NaN, and the same sign on every zero."""
    assert expected.dtype == actual.dtype and expected.shape == actual.shape
    both_nan = torch.isnan(expected) & torch.isnan(actual)
    equal = (expected == actual) & (torch.signbit(expected) == torch.signbit(actual))
    bad = ~(both_nan | equal)
    assert not bad.any(), (expected[bad][:8], actual[bad][:8])


# --- atan2 -----------------------------------------------------------------------------


def _edge_values(dtype: torch.dtype) -> list[float]:
    info = torch.finfo(dtype)
    return [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, info.tiny, -info.tiny, info.max, -info.max,
            info.tiny * info.eps, -info.tiny * info.eps]  # the last two are subnormal


@pytest.mark.parametrize("dtype", FLOATS)
def test_atan2_edge_grid(dtype: torch.dtype) -> None:
    """Every pair of edge values: exact where the answer is a special value, rounding-level elsewhere."""
    values = _edge_values(dtype)
    y, x = (torch.tensor(v, dtype=dtype) for v in zip(*itertools.product(values, values)))
    expected, actual = torch.atan2(y, x), _trt_atan2_onnx(y, x)
    special = ~torch.isfinite(y) | ~torch.isfinite(x) | (y == 0) | (x == 0)
    _same_bits(expected[special], actual[special])
    assert_same(expected, actual, rtol=2 * torch.finfo(dtype).eps, atol=0.0)


def test_atan2_named_edge_values() -> None:
    pi = math.pi
    # A list, not a dict: 0.0 == -0.0, so (0.0, 0.0) and (-0.0, 0.0) would be one key.
    cases = [
        (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -0.0, pi), (-0.0, -0.0, -pi),
        (0.0, -1.0, pi), (-0.0, -1.0, -pi), (1.0, 0.0, pi / 2), (-1.0, -0.0, -pi / 2),
        (INF, INF, pi / 4), (INF, -INF, 3 * pi / 4), (-INF, INF, -pi / 4), (-INF, -INF, -3 * pi / 4),
        (1.0, INF, 0.0), (-1.0, INF, -0.0), (1.0, -INF, pi), (-1.0, -INF, -pi), (INF, 1.0, pi / 2),
        (NAN, 1.0, NAN), (1.0, NAN, NAN), (NAN, NAN, NAN), (0.0, NAN, NAN), (INF, NAN, NAN),
    ]
    for y, x, want in cases:
        got = _trt_atan2_onnx(torch.tensor([y]), torch.tensor([x]))
        _same_bits(torch.tensor([want]), got)
        _same_bits(torch.atan2(torch.tensor([y]), torch.tensor([x])), got)


@pytest.mark.parametrize("dtype", FLOATS)
def test_atan2_random(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(1234)
    eps = torch.finfo(dtype).eps
    for scale_y, scale_x in itertools.product((1e-20, 1e-3, 1.0, 1e3, 1e20), repeat=2):
        y = (torch.randn(4000, generator=g, dtype=torch.float64) * scale_y).to(dtype)
        x = (torch.randn(4000, generator=g, dtype=torch.float64) * scale_x).to(dtype)
        expected, actual = torch.atan2(y, x), _trt_atan2_onnx(y, x)
        assert expected.dtype == actual.dtype
        # Relative to the result: about one unit in the last place (float32: ~1e-7); for
        # subnormal results, one unit of the smallest subnormal.
        smallest = torch.finfo(dtype).tiny * eps
        torch.testing.assert_close(actual, expected, rtol=2 * eps, atol=2 * smallest, equal_nan=True)


def test_atan2_near_axes_is_accurate() -> None:
    """Where |y/x| is huge or tiny, atan(y/x) loses accuracy; the min/max form does not."""
    y = torch.tensor([1.0, 1e-30, 1e30, -1e-38, 3.0e38, 1.0], dtype=torch.float32)
    x = torch.tensor([1e-30, 1.0, -1.0, -1.0, 1e-38, -3.0e38], dtype=torch.float32)
    reference = torch.atan2(y.double(), x.double()).float()
    torch.testing.assert_close(_trt_atan2_onnx(y, x), reference, rtol=1.2e-7, atol=0.0)


@pytest.mark.parametrize(
    "shape_y,shape_x",
    [((), ()), ((5,), ()), ((), (5,)), ((3, 1), (4,)), ((2, 1, 3), (1, 4, 1)), ((0, 3), (1, 3)), ((0,), (0,))],
)
def test_atan2_broadcasting(shape_y, shape_x) -> None:
    g = torch.Generator().manual_seed(7)
    y, x = torch.randn(shape_y, generator=g), torch.randn(shape_x, generator=g)
    assert_same(torch.atan2(y, x), _trt_atan2_onnx(y, x), rtol=3e-7, atol=0.0)


@pytest.mark.parametrize(
    "dtype_y,dtype_x",
    [(torch.int64, torch.int64), (torch.int32, torch.int8), (torch.bool, torch.bool), (torch.int64, torch.float16),
     (torch.float16, torch.float32), (torch.bfloat16, torch.float16), (torch.uint8, torch.float64)],
)
def test_atan2_dtype_promotion(dtype_y, dtype_x) -> None:
    y = torch.tensor([0, 1, 1, 0, 1]).to(dtype_y)
    x = torch.tensor([0, 0, 1, 1, 1]).to(dtype_x)
    expected, actual = torch.atan2(y, x), _trt_atan2_onnx(y, x)
    assert_same(expected, actual, rtol=2 * torch.finfo(expected.dtype).eps, atol=0.0)


def test_atan2_zero_dim_tensor_keeps_the_dimensioned_dtype() -> None:
    y = torch.tensor(1.0, dtype=torch.float64)
    x = torch.tensor([-1.0, 0.0, -0.0], dtype=torch.float16)
    assert_same(torch.atan2(y, x), _trt_atan2_onnx(y, x))


def test_atan2_public_alias_and_errors() -> None:
    assert trt_atan2 is _trt_atan2
    for bad in ((torch.ones(2), 1.0), (1.0, torch.ones(2))):
        with pytest.raises(TypeError):
            torch.atan2(*bad)
        with pytest.raises(TypeError):
            _trt_atan2(*bad)
        with pytest.raises(TypeError):
            _trt_atan2_onnx(*bad)
    c = torch.ones(2, dtype=torch.complex64)
    with pytest.raises(RuntimeError):
        torch.atan2(c, c)
    with pytest.raises(RuntimeError):
        _trt_atan2(c, c)
    with pytest.raises(RuntimeError):
        _trt_atan2_onnx(c, c)


# --- unique ----------------------------------------------------------------------------


def _unique_cases() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(99)
    cases = [
        torch.empty(0), torch.empty(0, 3, dtype=torch.long), torch.tensor(5.0), torch.tensor(-3),
        torch.full((7,), 2), torch.full((2, 3), -0.5), torch.tensor([NAN]), torch.tensor([NAN, NAN, NAN]),
        torch.tensor([INF, -INF, NAN, 1.0, INF, NAN, -INF]), torch.tensor([True, False, True]),
        torch.tensor([False, False]), torch.zeros(2, 0, 4, dtype=torch.bool),
    ]
    for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        low = 0 if dtype == torch.uint8 else -5
        for shape in ((1,), (17,), (4, 5), (2, 3, 4), (300,)):
            cases.append(torch.randint(low, 6, shape, generator=g, dtype=dtype))
    for dtype in FLOATS:
        for shape in ((1,), (17,), (4, 5), (2, 3, 4), (300,)):
            x = torch.randint(-4, 5, shape, generator=g).to(dtype) / 2  # many duplicates
            x = x.masked_fill(x == 0, 1.5)  # no mixed +-0 here: see the test below
            x = x.masked_fill(torch.rand(shape, generator=g) < 0.1, NAN)
            cases.append(x)
            cases.append(torch.randn(shape, generator=g).to(dtype))  # mostly distinct
    return cases


@pytest.mark.parametrize("x", _unique_cases(), ids=lambda t: f"{str(t.dtype)[6:]}{list(t.shape)}")
def test_unique_matches_torch(x: torch.Tensor) -> None:
    expected, actual = torch.unique(x), _trt_unique_onnx(x)
    if x.is_floating_point():
        _same_bits(expected, actual)
    else:
        assert_same(expected, actual)


def test_unique_mixed_signed_zeros() -> None:
    """torch picks 0.0 or -0.0 by its sort (unspecified); values and length agree."""
    x = torch.tensor([0.0, -0.0, 1.0, -0.0, 0.0])
    expected, actual = torch.unique(x), _trt_unique_onnx(x)
    assert_same(expected.abs(), actual.abs())


def test_unique_non_tensor_uses_its_own_method() -> None:
    class Column:
        def unique(self):
            return "own"

    assert _trt_unique(Column()) == "own"


# --- mask_index ------------------------------------------------------------------------


class _OnlyMasks:
    """A user container whose ``__getitem__`` accepts boolean masks only."""

    def __getitem__(self, index):
        if not (isinstance(index, torch.Tensor) and index.dtype == torch.bool):
            raise TypeError("masks only")
        return int(index.sum())


def _index_cases():
    g = torch.Generator().manual_seed(5)
    t = torch.randn(4, 3, generator=g)
    return [
        (t, torch.tensor([True, False, True, True])),
        (t, torch.zeros(4, dtype=torch.bool)),
        (t, torch.tensor([3, 0, 3])),  # long indices from NMS
        (t, torch.tensor([1, 0, 1, 0], dtype=torch.uint8)),
        (t, torch.tensor(True)),  # 0-d mask adds an axis
        (t, torch.ones(4, 3, dtype=torch.bool)),
        (t, torch.tensor([True, False])),  # shorter mask: IndexError, before and after
        (torch.empty(0, 2), torch.empty(0, dtype=torch.bool)),
        (["car", "person"], torch.tensor([True])),  # a list indexed by a one-element mask
        (np.arange(4), np.array([True, False, True, False])),
        (_OnlyMasks(), torch.tensor([True, True, False])),
        (_OnlyMasks(), torch.tensor([0, 1])),
    ]


@pytest.mark.parametrize("values,mask", _index_cases())
def test_mask_index_is_plain_indexing_outside_export(values, mask) -> None:
    try:
        expected = values[mask]
    except Exception as error:  # noqa: BLE001 - the same exception type must come back
        with pytest.raises(type(error)):
            _trt_mask_index(values, mask)
        return
    actual = _trt_mask_index(values, mask)
    if isinstance(expected, torch.Tensor):
        assert_same(expected, actual)
    elif isinstance(expected, np.ndarray):
        assert np.array_equal(expected, actual)
    else:
        assert expected == actual


# --- the injected source is self-contained and exports ------------------------------


def test_injected_helpers_run_on_their_own() -> None:
    import libcst as cst

    module = cst.Module(body=[*helper_definitions(["_trt_atan2", "_trt_unique", "_trt_mask_index"])])
    namespace: dict = {}
    exec(compile("import torch\n" + module.code, "injected.py", "exec"), namespace)
    y, x = torch.tensor([0.0, -0.0, 1.0]), torch.tensor([-1.0, -0.0, INF])
    _same_bits(torch.atan2(y, x), namespace["_trt_atan2"](y, x))
    _same_bits(torch.unique(torch.tensor([2.0, NAN, 2.0])), namespace["_trt_unique"](torch.tensor([2.0, NAN, 2.0])))


def _ops_and_session(fn, args, names):
    class Wrap(torch.nn.Module):
        def forward(self, *a):
            return fn(*a)

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Wrap(), args, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={name: {0: f"n{i}"} for i, name in enumerate(names)})
    model = onnx.load_from_string(buffer.getvalue())
    return [node.op_type for node in model.graph.node], ort.InferenceSession(buffer.getvalue())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("example", [
    torch.empty(0), torch.empty(0, 4), torch.empty(2, 0), torch.empty(0, dtype=torch.long),
    torch.empty(0, 0, 3, dtype=torch.int32), torch.empty(0, dtype=torch.bool),
    torch.tensor([3.0, NAN, 1.0, 3.0]), torch.tensor([[2, -1], [2, 7]]), torch.tensor([True, False, True]),
], ids=lambda t: f"{str(t.dtype)[6:]}{list(t.shape)}")
def test_unique_exports_like_torch_unique_on_empty_and_other_examples(example: torch.Tensor, dynamo: bool) -> None:
    """Where ``torch.unique`` exports, the sort-based form does, with either exporter, and
    computes ``torch.unique``'s values on the example and on other sizes of its first axis."""

    class Wrap(torch.nn.Module):
        def forward(self, x):
            return _trt_unique(x)

    empty = example.numel() == 0
    axes = {} if empty else {"dynamic_axes": {"x": {0: "n"}}}  # an empty example's size specializes
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(Wrap(), (example,), dynamo=True, input_names=["x"], verbose=False, **axes).save(buffer)
        else:
            torch.onnx.export(Wrap(), (example,), buffer, dynamo=False, input_names=["x"], **axes)
    assert "Unique" not in {node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node}
    session = ort.InferenceSession(buffer.getvalue())
    feeds = [example] if empty else [example, example[:0], torch.cat([example, example.flip(0)[:1]])]
    for x in feeds:
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        expected = torch.unique(x)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        _same_bits(expected, got) if x.is_floating_point() else assert_same(expected, got)


def test_helpers_export_and_run_in_onnxruntime() -> None:
    ops, session = _ops_and_session(_trt_unique, (torch.tensor([3.0, 1.0, 3.0]),), ["x"])
    assert "Unique" not in ops and "TopK" in ops
    for x in (torch.tensor([NAN, 2.0, -INF, 2.0, NAN]), torch.empty(0), torch.full((9,), 4.0)):
        _same_bits(torch.unique(x), torch.from_numpy(session.run(None, {"x": x.numpy()})[0]))

    ops, session = _ops_and_session(lambda s: _trt_mask_index(s * 2, s > 0.5), (torch.rand(4),), ["s"])
    assert ops.index("Cast") < ops.index("NonZero") and "GatherND" not in ops
    for s in (torch.rand(50), torch.zeros(3), torch.empty(0)):
        assert_same((s * 2)[s > 0.5], torch.from_numpy(session.run(None, {"s": s.numpy()})[0]))

    ops, session = _ops_and_session(_trt_atan2, (torch.randn(3), torch.randn(3)), ["y", "x"])
    assert "Atan" in ops and not {"If", "Loop"} & set(ops)
    values = _edge_values(torch.float32)
    y, x = (torch.tensor(v) for v in zip(*itertools.product(values, values)))
    got = torch.from_numpy(session.run(None, {"y": y.numpy(), "x": x.numpy()})[0])
    special = ~torch.isfinite(y) | ~torch.isfinite(x) | (y == 0) | (x == 0)
    _same_bits(torch.atan2(y, x)[special], got[special])


def test_mask_index_over_several_axes_exports_as_cast_nonzero_gather() -> None:
    """A k-D mask over the first k axes (detectron2's R x K scores over R x K x 4 boxes) exports
    with the flattened axes: the NonZero reads a float32 Cast, a plain Gather, no GatherND."""
    ops, session = _ops_and_session(lambda v, s: _trt_mask_index(v, s > 0.5),
                                    (torch.randn(5, 2, 3, 4), torch.rand(5, 2, 3)), ["v", "s"])
    assert ops.index("Cast") < ops.index("NonZero") and "GatherND" not in ops
    g = torch.Generator().manual_seed(3)
    for n in (9, 1, 0):
        v, s = torch.randn(n, 2, 3, 4, generator=g), torch.rand(n, 2, 3, generator=g)
        s[:, 1, 2] = 1.0
        got = session.run(None, {"v": v.numpy(), "s": s.numpy()})[0]
        assert_same(v[s > 0.5], torch.from_numpy(got))


def test_fx_records_the_torch_functions_and_the_graph_still_scripts() -> None:
    """An fx Proxy is not a foreign object with its own method: the helpers record torch.atan2 / torch.unique."""
    import torch.fx

    class Angles(torch.nn.Module):
        def forward(self, y, x):
            return _trt_atan2(y, x)

    class Classes(torch.nn.Module):
        def forward(self, labels):
            return _trt_unique(labels)

    for module, target, args in ((Angles(), torch.atan2, (torch.randn(5), torch.randn(5))),
                                 (Classes(), torch.unique, (torch.tensor([3, 1, 3, 0]),))):
        traced = torch.fx.symbolic_trace(module)
        calls = [(n.op, n.target) for n in traced.graph.nodes if n.op.startswith("call")]
        assert calls == [("call_function", target)]
        scripted = torch.jit.script(traced)
        assert torch.equal(scripted(*args), module(*args))
