"""TRT201/TRT202: boolean-mask indexing — evidence, rewrite, run, export."""

from __future__ import annotations

import io
import textwrap
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from torch import nn

from support import assert_same, load, migrate_json, onnx_ops, rewrite, rules_found
from trtcodemod.helpers.indexing import _trt_mask_axes


MODEL = """
import torch
from torch import nn


class Select(nn.Module):
    def forward(self, boxes, scores, labels):
        keep = scores > 0.3                      # a visible comparison
        kept = boxes[keep]
        finite = boxes[torch.isfinite(scores) & (labels != 2)]
        mask = scores.isnan().logical_not()
        mask = mask & (labels >= 0)
        wide = (scores.unsqueeze(1) > 0.5).squeeze(1)   # a comparison reshaped: still a mask
        return kept, scores[keep], finite, labels[mask], boxes[wide.flatten()], scores[(scores < 0.2).view(-1)]
"""


def _model_inputs(n: int, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(n, 4, generator=generator), torch.rand(n, generator=generator),
            torch.randint(-1, 3, (n,), generator=generator))


def _edge_inputs() -> list[tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(0)
    nan_scores = torch.tensor([float("nan"), 0.9, float("inf"), -float("inf"), 0.3, -0.0])
    return [
        _model_inputs(7, g),
        (torch.randn(5, 4, generator=g), torch.zeros(5), torch.zeros(5, dtype=torch.long)),  # all False
        (torch.randn(5, 4, generator=g), torch.ones(5), torch.full((5,), 2)),  # all True / mixed
        (torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.long)),  # empty
        (torch.full((6, 4), float("nan")), nan_scores, torch.tensor([0, 1, 2, -1, 0, 1])),  # NaN / inf
        (-torch.zeros(1, 4), torch.tensor([0.31]), torch.tensor([0])),  # one row, -0.0 values
    ]


def test_rewrite_text() -> None:
    # TRT201 alone: TRT333 would also take the mask's torch.isfinite (tests/transforms/test_infinities.py).
    after = rewrite(MODEL, select=("TRT201",))
    assert "kept = _trt_mask_index(boxes, keep)" in after
    assert "_trt_mask_index(scores, keep)" in after
    assert "_trt_mask_index(boxes, torch.isfinite(scores) & (labels != 2))" in after
    assert "_trt_mask_index(labels, mask)" in after
    assert "_trt_mask_index(boxes, wide.flatten())" in after
    assert "_trt_mask_index(scores, (scores < 0.2).view(-1))" in after
    assert after.count("def _trt_mask_index(") == 1
    assert "# a visible comparison" in after
    assert rewrite(after, select=("TRT201",)) == after  # idempotent


@pytest.mark.parametrize("inputs", _edge_inputs(), ids=["random", "all-false", "all-true", "empty", "nan-inf", "neg-zero"])
def test_same_results(inputs) -> None:
    before = load(MODEL, "Select")()
    after = load(rewrite(MODEL), "Select")()
    assert_same(before(*inputs), after(*inputs))


def test_helper_leaves_non_masks_alone() -> None:
    """With only a name as evidence the fix is opt-in, but never picks wrong rows: long indices,
    uint8 masks, 0-d masks, 2-D masks and NumPy arrays index exactly as before."""
    code = "def pick(t: torch.Tensor, valid_mask):\n    return t[valid_mask]\n"
    assert rewrite(code) == code  # weak evidence: needs --unsafe
    after = rewrite("import torch\n" + code, unsafe=True)
    assert "_trt_mask_index(t, valid_mask)" in after
    before_f, after_f = load(code, "pick"), load(after, "pick")
    t = torch.arange(24.0).reshape(6, 4)
    cases = [
        torch.tensor([4, 0, 0, 2]),  # long indices (NMS keep), repeated, unordered
        torch.tensor([True, False, True, False, False, True]),
        torch.tensor([1, 0, 1, 0, 0, 1], dtype=torch.uint8),  # legacy byte mask
        torch.tensor(True), torch.tensor(False),  # 0-d masks add an axis
        t > 10,  # 2-D mask
        torch.zeros(6, dtype=torch.bool),
    ]
    for index in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # uint8 indexing is deprecated
            assert_same(before_f(t, index), after_f(t, index))
    array = np.arange(6.0)
    assert np.array_equal(before_f(array, array > 2), after_f(array, array > 2))


def test_export_uses_cast_nonzero_gather() -> None:
    g = torch.Generator().manual_seed(1)
    args = _model_inputs(9, g)
    names = ["boxes", "scores", "labels"]
    axes = {name: {0: "n"} for name in names}
    before_ops = onnx_ops(load(MODEL, "Select")(), args, dynamic_axes=axes, input_names=names)
    after_ops = onnx_ops(load(rewrite(MODEL), "Select")(), args, dynamic_axes=axes, input_names=names)
    assert "GatherND" in before_ops
    assert "GatherND" not in after_ops and after_ops.count("NonZero") == 5  # one per mask

    # Every NonZero of the rewritten graph reads a float32 Cast, not the bool mask.
    model = _export(load(rewrite(MODEL), "Select")(), args, names, axes)
    producers = {out: node for node in model.graph.node for out in node.output}
    for node in model.graph.node:
        if node.op_type == "NonZero":
            cast = producers[node.input[0]]
            assert cast.op_type == "Cast" and cast.attribute[0].i == onnx.TensorProto.FLOAT

    # The exported graph selects the same rows as eager, on other sizes than traced.
    session = ort.InferenceSession(model.SerializeToString())
    eager = load(MODEL, "Select")()
    for inputs in [_model_inputs(23, g), _edge_inputs()[1], _edge_inputs()[4]]:
        got = session.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        for e, a in zip(eager(*inputs), got):
            assert_same(e, torch.from_numpy(a))


def _export(module, args, names, axes) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, buffer, dynamo=False, opset_version=17, input_names=names, dynamic_axes=axes)
    return onnx.load_from_string(buffer.getvalue())


PARTS = """
import torch


def rows(pred: torch.Tensor, thr: float):
    xc = pred[..., 4] > thr                      # one mask for the whole batch
    order = pred[..., 4].argsort(-1)             # long indices: not a mask
    out = []
    for i, x in enumerate(pred):
        out.append(x[xc[i]])
        out.append(x[:3][xc[i, :3]])
        out.append(x[order[i]])
    return out
"""


def test_a_part_of_a_mask_is_a_mask() -> None:
    """The row or slice of a bool tensor is bool (YOLOv5's `x[xc[xi]]`); a long index stays."""
    after = rewrite(PARTS)
    assert "out.append(_trt_mask_index(x, xc[i]))" in after
    assert "out.append(_trt_mask_index(x[:3], xc[i, :3]))" in after
    assert "out.append(x[order[i]])" in after
    assert rewrite("import torch\ndef f(t: torch.Tensor, valid_mask):\n    return t[valid_mask[0]]\n") \
        == "import torch\ndef f(t: torch.Tensor, valid_mask):\n    return t[valid_mask[0]]\n"  # a name alone: unsafe
    before, rewritten = load(PARTS, "rows"), load(after, "rows")
    g = torch.Generator().manual_seed(4)
    nan_inf = torch.randn(2, 5, 6, generator=g)
    nan_inf[0, :, 4] = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.7])
    for pred in (torch.randn(2, 5, 6, generator=g), torch.zeros(2, 5, 6), -torch.rand(2, 5, 6) - 1,
                 torch.ones(3, 4, 6), torch.empty(2, 0, 6), torch.empty(0, 5, 6), nan_inf):
        assert_same(before(pred, 0.2), rewritten(pred, 0.2))


def test_evidence_from_the_same_function_only() -> None:
    code = """
    import torch

    def f(t: torch.Tensor, scores, keep, idx, masks):
        a = t[keep]                    # no evidence: NMS indices are long
        m = scores > 0
        m = idx                        # reassigned: no longer evidence
        b = t[m]
        n = scores > 0
        c = [t[n] for n in masks]      # comprehension rebinds n
        d = t[scores is None]          # `is` gives a Python bool
        e = t[0 < scores < 1]          # chained: Python `and`
        keep2 = scores.gt(0.5)
        f = t[keep2]                   # method evidence
        def inner(u):
            return u[keep2]            # closure: no local evidence, name not mask-like
        g = t[(scores > 0).to(idx)]    # `to` another tensor may change the dtype
        h = t[(scores > 0).view(idx.dtype)]  # so may `view`
        i = t[torch.flatten(idx)]      # a function on indices, not a mask method
        return a, b, c, d, e, f, inner, g, h, i
    """
    after = rewrite(code, unsafe=True)
    assert rules_found(code) == ["TRT201"]
    assert "f = _trt_mask_index(t, keep2)" in after
    for untouched in ("t[keep]", "t[m]", "[t[n] for n in masks]", "t[scores is None]", "t[0 < scores < 1]",
                      "u[keep2]", "t[(scores > 0).to(idx)]", "t[(scores > 0).view(idx.dtype)]", "t[torch.flatten(idx)]"):
        assert untouched in after


def test_augmented_bitwise_assignment_keeps_evidence() -> None:
    code = """
    import torch

    def f(t: torch.Tensor, scores, labels, other):
        m = scores > 0
        m &= labels == 1
        n = scores > 0
        n |= other
        k = scores > 0
        k += 1
        return t[m], t[n], t[k]
    """
    after = rewrite(code)
    assert "_trt_mask_index(t, m), t[n], t[k]" in after


def test_nms_indices_are_not_masks() -> None:
    """`keep` first a mask, then NMS's long indices: no evidence, no finding (DESIGN §8.3)."""
    code = """
    import torch
    from torchvision.ops import nms

    def postprocess(boxes: torch.Tensor, scores: torch.Tensor):
        keep = scores > 0.05
        boxes, scores = boxes[keep], scores[keep]
        keep = nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep]
    """
    assert rules_found(code) == []
    renamed = """
    import torch
    from torchvision.ops import nms

    def postprocess(boxes: torch.Tensor, scores: torch.Tensor):
        keep = scores > 0.05
        boxes, scores = boxes[keep], scores[keep]
        keep2 = nms(boxes, scores, 0.5)
        return boxes[keep2], scores[keep2]
    """
    after = rewrite(renamed)
    assert "_trt_mask_index(boxes, keep), _trt_mask_index(scores, keep)" in after
    assert "return boxes[keep2], scores[keep2]" in after


def test_weak_evidence_from_reassigned_mask_name() -> None:
    code = """
    import torch

    def f(t: torch.Tensor, scores, idx):
        mask = scores > 0
        mask = idx
        return t[mask]
    """
    assert rewrite(code) == textwrap.dedent(code)
    assert "_trt_mask_index(t, mask)" in rewrite(code, unsafe=True)


def test_aliases_and_lookalikes() -> None:
    code = """
    import torch as th
    import numpy as np
    from torch import isnan as nan_of

    def isfinite(x):
        return x

    def f(t: torch.Tensor, s, a):
        return t[th.isfinite(s)], t[nan_of(s)], t[isfinite(s)], a[np.isnan(a)], t[s.to(th.bool)]
    """
    after = rewrite(code, select=("TRT201",))
    assert "_trt_mask_index(t, th.isfinite(s))" in after
    assert "_trt_mask_index(t, nan_of(s))" in after
    assert "_trt_mask_index(t, s.to(th.bool))" in after
    assert "t[isfinite(s)]" in after and "a[np.isnan(a)]" in after  # user's function, NumPy's
    assert "th.isfinite(s)" in after  # the call site keeps the user's alias


def test_files_without_torch_are_not_checked() -> None:
    code = "import numpy as np\n\ndef f(a):\n    a[a < 0] = np.zeros(3)\n    return a[a > 0]\n"
    assert rules_found(code) == []


def test_mask_with_other_indices_is_reported_not_rewritten() -> None:
    code = """
    import torch

    def f(boxes, scores):
        return boxes[scores > 0.05, :4], boxes[0, scores > 0], boxes[:, scores > 0, 1:]
    """
    assert rules_found(code) == ["TRT201", "TRT201", "TRT201"]
    assert rewrite(code, unsafe=True) == textwrap.dedent(code)


def test_a_mask_after_full_slices_is_selected_on_its_axes() -> None:
    code = """
    import torch

    def f(boxes, scores, grid):
        return boxes[:, scores > 0], boxes[:, :, torch.isfinite(scores), :], boxes[:, grid]
    """
    after = rewrite(code, unsafe=True, select=("TRT201",))
    assert "return _trt_mask_axes(boxes, 1, scores > 0), _trt_mask_axes(boxes, 2, torch.isfinite(scores)), " \
           "boxes[:, grid]\n" in after, after
    assert "def _trt_mask_axes(" in after
    assert rewrite(code, unsafe=False, select=("TRT201",)) == textwrap.dedent(code)  # unsafe: scripting fails


class _Distances(nn.Module):
    """SPIGA's landmark distances without the diagonal (spiga 0.0.6, spiga/models/spiga.py:158-164): a 2-D bool
    mask after the batch axis, ``dist[:, self.diagonal_mask, :]``."""

    def __init__(self, rewritten: bool, points: int = 5) -> None:
        super().__init__()
        mask = (torch.ones(points, points) - torch.eye(points)).type(torch.bool)
        self.diagonal_mask = nn.parameter.Parameter(mask, requires_grad=False)
        self.rewritten = rewritten

    def forward(self, pts):
        batch, points, _ = pts.shape
        a = pts.unsqueeze(-2).repeat(1, 1, points, 1)
        dist = a - a.transpose(1, 2)
        picked = _trt_mask_axes(dist, 1, self.diagonal_mask) if self.rewritten else dist[:, self.diagonal_mask, :]
        return picked.reshape(batch, points, -1)


def _distances_graph(rewritten: bool) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Distances(rewritten), (torch.randn(2, 5, 2),), buffer, dynamo=False, input_names=["pts"],
                          dynamic_axes={"pts": {0: "batch"}})
    return buffer.getvalue()


def test_a_2d_mask_after_the_batch_axis_loads_and_equals_eager_mode() -> None:
    with pytest.raises(Exception, match="Squeeze"):
        ort.InferenceSession(_distances_graph(False))  # the exporter's own form: ONNX Runtime refuses it
    session = ort.InferenceSession(_distances_graph(True))
    reference = _Distances(False)
    g = torch.Generator().manual_seed(7)
    edge = torch.tensor([[[float("inf"), 1.0], [float("nan"), -0.0], [0.0, 0.0], [-3.0, 2.0], [1e30, -1e30]]])
    for pts in (torch.randn(1, 5, 2, generator=g), torch.randn(4, 5, 2, generator=g), torch.zeros(3, 5, 2), edge):
        [got] = session.run(None, {"pts": pts.numpy()})
        np.testing.assert_array_equal(got, reference(pts).numpy())


@pytest.mark.parametrize("start", [1, 2])
def test_mask_axes_is_the_subscript_outside_an_export(start: int) -> None:
    g = torch.Generator().manual_seed(start)
    values = torch.randn(3, 4, 5, 2, generator=g, requires_grad=True)
    values.data[0, 0, 0, 0] = float("nan")
    for mask in (torch.rand(*values.shape[start:start + 2], generator=g) > 0.5,
                 torch.zeros(values.shape[start:start + 2], dtype=torch.bool),
                 torch.ones(values.shape[start], dtype=torch.bool), torch.tensor([0, 2])):
        index = (slice(None),) * start + (mask,)
        assert_same(values[index], _trt_mask_axes(values, start, mask))
    with pytest.raises(IndexError):
        _trt_mask_axes(values, start, torch.ones(9, 9, dtype=torch.bool))  # torch's own error


def test_migrate_takes_a_2d_mask_the_run_saw(tmp_path) -> None:
    """No code evidence (an attribute): the recorded run saw a 2-D bool tensor index the tensor there."""
    path = tmp_path / "spiga_distances.py"
    path.write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Distances(nn.Module):\n"
        "    def __init__(self, points=5):\n"
        "        super().__init__()\n"
        "        mask = (torch.ones(points, points) - torch.eye(points)).type(torch.bool)\n"
        "        self.diagonal_mask = nn.parameter.Parameter(mask, requires_grad=False)\n\n"
        "    def forward(self, pts):\n"
        "        batch, points, _ = pts.shape\n"
        "        a = pts.unsqueeze(-2).repeat(1, 1, points, 1)\n"
        "        dist = a - a.transpose(1, 2)\n"
        "        return dist[:, self.diagonal_mask, :].reshape(batch, points, -1)\n\n\n"
        "def build():\n    return Distances()\n\n\n"
        "def inputs(g):\n    return (torch.randn(2, 5, 2, generator=g),)\n")
    assert rules_found(path.read_text(), select=("TRT201",)) == []
    report = migrate_json(path, '{"pts": {"0": "batch"}}')
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT201", 15)], report["applied"]
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True


def test_star_index_and_helper_bodies_are_left_alone() -> None:
    code = """
    import torch

    def _trt_custom(t, s):
        return t[s > 0]

    def f(t: torch.Tensor, s, rest):
        return t[*rest]
    """
    assert rules_found(code) == []


def test_suppression_comment() -> None:
    code = "import torch\n\ndef f(t: torch.Tensor, s):\n    return t[s > 0]  # trtcodemod: ignore[TRT201]\n"
    assert rules_found(code, select=("TRT201",)) == []
    assert rewrite(code) == code


def _import_file(path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_rewrite_inside_torchscript_still_compiles(tmp_path) -> None:
    """The inserted helper is scriptable, so a scripted function keeps compiling."""
    code = """
    import torch

    @torch.jit.script
    def confident(boxes, scores):
        return boxes[scores > 0.5]
    """
    after = rewrite(code)
    assert "_trt_mask_index(boxes, scores > 0.5)" in after
    (tmp_path / "scripted_before.py").write_text(textwrap.dedent(code))
    (tmp_path / "scripted_after.py").write_text(after)  # torch.jit.script reads the source file
    before_f = _import_file(tmp_path / "scripted_before.py", "confident")
    after_f = _import_file(tmp_path / "scripted_after.py", "confident")
    assert isinstance(after_f, torch.jit.ScriptFunction)
    for n in (0, 1, 6):
        boxes, scores = torch.randn(n, 4), torch.rand(n)
        assert_same(before_f(boxes, scores), after_f(boxes, scores))
