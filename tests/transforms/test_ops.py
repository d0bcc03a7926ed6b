"""TRT301 atan2 / TRT302 unique: rewrite, run on edge values, export without the bad node."""

from __future__ import annotations

import importlib.util
import io
import itertools
import warnings

import onnxruntime as ort
import pytest
import torch

from support import assert_same, load, onnx_ops, rewrite, rules_found

INF, NAN = float("inf"), float("nan")
EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -3.0, INF, -INF, NAN]

ATAN2_MODEL = """
import torch
from torch import nn


class Heading(nn.Module):
    def forward(self, boxes, offsets):
        yaw = torch.atan2(boxes[:, 0], boxes[:, 1])
        rel = offsets[:, 1:2].atan2(offsets[:, 0:1])   # (N, 1) vs (N, 1)
        grid = torch.arctan2(boxes[:, 0:1], offsets[:, 0])  # broadcasts to (N, N)
        return yaw, rel, grid
"""


def _edge_pairs(dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    ys, xs = zip(*itertools.product(EDGE, EDGE))
    return torch.tensor(ys, dtype=dtype), torch.tensor(xs, dtype=dtype)


def _export(module, args, names, axes) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, buffer, dynamo=False, opset_version=17, input_names=names, dynamic_axes=axes)
    return buffer.getvalue()


# --- atan2 -----------------------------------------------------------------------------


def test_atan2_rewrite_text() -> None:
    after = rewrite(ATAN2_MODEL)
    assert "yaw = _trt_atan2(boxes[:, 0], boxes[:, 1])" in after
    assert "rel = _trt_atan2(offsets[:, 1:2], offsets[:, 0:1])   # (N, 1) vs (N, 1)" in after
    assert "grid = _trt_atan2(boxes[:, 0:1], offsets[:, 0])" in after
    assert after.count("def _trt_atan2(") == 1
    assert rewrite(after) == after


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_atan2_same_results_on_edges(dtype: torch.dtype) -> None:
    y, x = _edge_pairs(dtype)
    boxes = torch.stack([y, x], dim=1)
    offsets = torch.stack([x, y], dim=1)
    before = load(ATAN2_MODEL, "Heading")()(boxes, offsets)
    after = load(rewrite(ATAN2_MODEL), "Heading")()(boxes, offsets)
    # Pairs with a zero, an infinity or a NaN are exact; ordinary pairs agree to rounding.
    special = ~torch.isfinite(y) | ~torch.isfinite(x) | (y == 0) | (x == 0)
    assert_same(before[0][special], after[0][special])
    assert_same(before[1][special], after[1][special])
    assert_same(before, after, rtol=2 * torch.finfo(dtype).eps, atol=0.0)


def test_atan2_same_results_random_and_empty() -> None:
    g = torch.Generator().manual_seed(0)
    model_before = load(ATAN2_MODEL, "Heading")()
    model_after = load(rewrite(ATAN2_MODEL), "Heading")()
    for n in (0, 1, 5, 64):
        boxes, offsets = torch.randn(n, 2, generator=g), torch.randn(n, 2, generator=g) * 1e3
        assert_same(model_before(boxes, offsets), model_after(boxes, offsets), rtol=3e-7, atol=0.0)


def test_atan2_exported_graph_is_right_where_torchs_is_wrong() -> None:
    """torch 2.13 exports atan2 as Atan + Where with wrong edge values; the helper's graph is exact."""
    code = "import torch\nfrom torch import nn\n\nclass A(nn.Module):\n    def forward(self, y, x):\n        return torch.atan2(y, x)\n"
    names, axes = ["y", "x"], {"y": {0: "n"}, "x": {0: "n"}}
    args = (torch.randn(3), torch.randn(3))
    y, x = _edge_pairs()
    expected = torch.atan2(y, x)

    before = ort.InferenceSession(_export(load(code, "A")(), args, names, axes))
    wrong = torch.from_numpy(before.run(None, {"y": y.numpy(), "x": x.numpy()})[0])
    assert torch.isnan(wrong[(y == 0) & (x == 0)]).all()  # torch's export: atan2(0, 0) is NaN
    assert wrong[(y == 0) & ~torch.signbit(y) & (x == -1)].item() < 0  # and atan2(0, -1) is -pi

    after_module = load(rewrite(code), "A")()
    assert "Atan" in onnx_ops(after_module, args, dynamic_axes=axes, input_names=names)
    after = ort.InferenceSession(_export(after_module, args, names, axes))
    got = torch.from_numpy(after.run(None, {"y": y.numpy(), "x": x.numpy()})[0])
    special = ~torch.isfinite(y) | ~torch.isfinite(x) | (y == 0) | (x == 0)
    assert_same(expected[special], got[special])
    assert_same(expected, got, rtol=3e-7, atol=0.0)


def test_atan2_matching() -> None:
    code = """
    import math
    import numpy as np
    import torch as th
    from torch import atan2 as angle_of

    def atan2(a, b):
        return a

    def f(y, x, a, b, rest):
        r1 = th.atan2(y, x)
        r2 = angle_of(input=y, other=x)
        r3 = np.arctan2(a, b) + math.atan2(1.0, 2.0)
        r4 = atan2(y, x)                 # the user's own function
        r5 = th.atan2(*rest)             # unpacked: reported only
        r6 = th.atan2(y, x, out=a)       # out=: reported only
        y.atan2_(x)                      # in place: reported only
        r7 = y.atan2(*rest)              # unpacked: reported only
        return r1, r2, r3, r4, r5, r6, r7
    """
    assert rules_found(code) == ["TRT301"] * 6
    after = rewrite(code, unsafe=True)
    assert "r1 = _trt_atan2(y, x)" in after and "r2 = _trt_atan2(y, x)" in after
    for untouched in ("np.arctan2(a, b) + math.atan2(1.0, 2.0)", "r4 = atan2(y, x)", "th.atan2(*rest)",
                      "th.atan2(y, x, out=a)", "y.atan2_(x)", "y.atan2(*rest)"):
        assert untouched in after


def test_atan2_keeps_errors_and_dtypes() -> None:
    code = "import torch\n\ndef f(y, x):\n    return torch.atan2(y, x)\n"
    before, after = load(code, "f"), load(rewrite(code), "f")
    with pytest.raises(TypeError):
        before(torch.ones(2), 1.0)
    with pytest.raises(TypeError):
        after(torch.ones(2), 1.0)
    for y, x in [(torch.tensor([1, -2, 0]), torch.tensor([0, 0, -3])),
                 (torch.ones(3, dtype=torch.float16), torch.tensor([-1.0, 0.0, -0.0])),
                 (torch.tensor(2.0, dtype=torch.float64), torch.tensor([-1.0, 0.0]))]:
        assert_same(before(y, x), after(y, x))


# --- unique ----------------------------------------------------------------------------

UNIQUE_MODEL = """
import torch
from torch import nn


class Classes(nn.Module):
    def forward(self, labels, scores):
        present = torch.unique(labels)
        levels = scores.unique(sorted=True)
        return present, levels
"""


def _unique_inputs() -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    return [
        (torch.randint(-3, 4, (40,), generator=g), torch.randint(0, 5, (6, 7), generator=g).float()),
        (torch.empty(0, dtype=torch.long), torch.empty(0, 3)),
        (torch.full((5,), 7), torch.full((2, 2), -1.5)),
        (torch.tensor([3, -1, 3, -1]), torch.tensor([[NAN, 1.0], [NAN, -INF], [INF, 1.0]])),
        (torch.tensor(4), torch.tensor(float("nan"))),  # 0-d
        (torch.randint(0, 2, (9,), generator=g).bool(), torch.randn(3, 1, 4, generator=g).half()),
    ]


def test_unique_rewrite_text() -> None:
    after = rewrite(UNIQUE_MODEL)
    assert "present = _trt_unique(labels)" in after
    assert "levels = _trt_unique(scores)" in after
    assert after.count("def _trt_unique(") == 1


@pytest.mark.parametrize("inputs", _unique_inputs(), ids=["random", "empty", "all-equal", "nan-inf", "0-d", "bool-half"])
def test_unique_same_results(inputs) -> None:
    before = load(UNIQUE_MODEL, "Classes")()
    after = load(rewrite(UNIQUE_MODEL), "Classes")()
    assert_same(before(*inputs), after(*inputs))


def test_unique_export_has_no_unique_node() -> None:
    args = (torch.tensor([2, 0, 2, 1]), torch.tensor([[0.5, NAN], [0.5, -1.0]]))
    names, axes = ["labels", "scores"], {"labels": {0: "n"}, "scores": {0: "a", 1: "b"}}
    before_ops = onnx_ops(load(UNIQUE_MODEL, "Classes")(), args, dynamic_axes=axes, input_names=names)
    after_module = load(rewrite(UNIQUE_MODEL), "Classes")()
    after_ops = onnx_ops(after_module, args, dynamic_axes=axes, input_names=names)
    assert "Unique" in before_ops
    assert "Unique" not in after_ops
    assert {"TopK", "NonZero", "Gather"} <= set(after_ops)
    session = ort.InferenceSession(_export(after_module, args, names, axes))
    for labels, scores in _unique_inputs()[:4]:
        got = session.run(None, {"labels": labels.numpy(), "scores": scores.numpy()})
        assert_same(after_module(labels, scores), tuple(torch.from_numpy(a) for a in got))


def test_unique_other_forms_are_reported_not_rewritten() -> None:
    code = """
    import numpy as np
    import torch

    def f(x, a, flag, opts, df):
        r1 = torch.unique(x, return_inverse=True)
        r2 = torch.unique(x, return_counts=True)
        r3 = torch.unique(x, dim=0)
        r4 = torch.unique(x, sorted=False)
        r5 = x.unique(sorted=flag)
        r6 = torch.unique(x, **opts)
        r7 = np.unique(a)
        r8 = torch.unique(x, True, False, False, None)
        r9 = torch.unique(*opts)
        return r1, r2, r3, r4, r5, r6, r7, r8, r9
    """
    assert rules_found(code) == ["TRT302"] * 8
    after = rewrite(code, unsafe=True)
    assert "r8 = _trt_unique(x)" in after
    assert after.count("_trt_unique(") == 2  # the call and the definition
    # The inverse (unsafe: a float32 running count) and the counts (safe) have their own helpers.
    assert "r1 = _trt_unique_inverse(x)" in after and "r2 = _trt_unique_counts(x)" in after
    assert "r2 = _trt_unique_counts(x)" in rewrite(code) and "r1 = torch.unique(x, return_inverse=True)" in \
        rewrite(code)
    for kept in ("torch.unique(x, dim=0)", "torch.unique(x, sorted=False)", "x.unique(sorted=flag)",
                 "np.unique(a)", "torch.unique(x, **opts)", "torch.unique(*opts)"):
        assert kept in after, kept


UNIQUE_ALL_MODEL = """
import torch
from torch import nn


class Quantiles(nn.Module):
    def forward(self, source, template):
        _, bins, counts = torch.unique(source.reshape(-1), return_inverse=True, return_counts=True)
        values, t_counts = template.unique(return_counts=True)
        quantiles = counts.to(torch.float32).cumsum(0) / source.numel()
        return quantiles[bins].reshape(source.shape), values, t_counts
"""


def test_unique_with_inverse_and_counts_is_torchs_in_eager_and_in_the_graph() -> None:
    """kornia's histogram matching, reduced: the inverse indices and counts of a sorted unique."""
    after = rewrite(UNIQUE_ALL_MODEL, select=("TRT302",), unsafe=True)
    assert "_trt_unique_inverse_counts(source.reshape(-1))" in after and "_trt_unique_counts(template)" in after
    before_module, after_module = load(UNIQUE_ALL_MODEL, "Quantiles")(), load(after, "Quantiles")()
    g = torch.Generator().manual_seed(1)
    cases = [(torch.randint(0, 6, (2, 5, 7), generator=g).float(), torch.randint(0, 9, (4, 4), generator=g).float()),
             (torch.tensor([[NAN, 1.0, -0.0], [0.0, INF, NAN]]), torch.tensor([[-INF, 2.0], [2.0, NAN]])),
             (torch.full((3, 3), 2.5), torch.tensor([[7.0]]))]
    for source, template in cases:
        assert_same(before_module(source, template), after_module(source, template))
    args = cases[0]
    names, axes = ["source", "template"], {"source": {0: "b", 1: "h", 2: "w"}, "template": {0: "a", 1: "c"}}
    assert "Unique" in onnx_ops(before_module, args, dynamic_axes=axes, input_names=names)
    ops = onnx_ops(after_module, args, dynamic_axes=axes, input_names=names)
    assert "Unique" not in ops and {"TopK", "NonZero", "ScatterElements", "CumSum"} <= set(ops), ops
    session = ort.InferenceSession(_export(after_module, args, names, axes))
    for source, template in [*cases[:1], (torch.randint(-2, 3, (1, 9, 4), generator=g).float(),
                                          torch.randint(0, 3, (3, 5), generator=g).float())]:
        got = session.run(None, {"source": source.numpy(), "template": template.numpy()})
        assert_same(before_module(source, template), tuple(torch.from_numpy(a) for a in got))


def test_unique_method_on_non_tensors_still_works() -> None:
    """A pandas-like object's own .unique() keeps working after the rewrite."""
    code = "import torch\n\ndef classes(column):\n    return column.unique()\n"
    after = rewrite(code)
    assert "return _trt_unique(column)" in after

    class Column:
        def unique(self):
            return ["a", "b"]

    assert load(after, "classes")(Column()) == ["a", "b"]
    own = "import torch\n\nclass Table:\n    def labels(self):\n        return self.unique()\n"
    assert rules_found(own) == [] and rewrite(own) == own


def test_torchscript_functions_are_rewritten_and_still_compile(tmp_path) -> None:
    """The helpers are scriptable: under TorchScript they are the torch operations themselves."""
    code = """
    import torch

    @torch.jit.script
    def heading(s, c):
        return torch.atan2(s, c), torch.unique(s), torch.unique(c, return_inverse=True, return_counts=True)
    """
    assert rules_found(code) == ["TRT301", "TRT302", "TRT302"]
    after = rewrite(code, unsafe=True)
    assert "_trt_atan2(s, c), _trt_unique(s), _trt_unique_inverse_counts(c)" in after
    path = tmp_path / "scripted_heading.py"
    path.write_text(after)  # TorchScript reads the function's source from its file
    spec = importlib.util.spec_from_file_location("scripted_heading", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert isinstance(module.heading, torch.jit.ScriptFunction)
    s, c = torch.tensor([0.0, -0.0, 1.0, 1.0]), torch.tensor([-1.0, -1.0, 0.0, 1.0])
    got = module.heading(s, c)
    for expected, actual in zip((torch.atan2(s, c), torch.unique(s)), got[:2]):
        assert torch.equal(expected, actual)
    for expected, actual in zip(torch.unique(c, return_inverse=True, return_counts=True), got[2]):
        assert torch.equal(expected, actual)
