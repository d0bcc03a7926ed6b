"""TRT348 (a loop nest whose iterations each work on their own elements): all iterations at once while tracing.

The rewrite text (pytorchcv's keypoint refinement, an `if`/`else` with a local rebound under a
mask, a single loop, and the loops left alone), eager mode (the loop itself), the traced
formulation against the loop on edge values (maxima on the border, zeros, negatives, an empty
batch), the export with both exporters (the original's TorchScript graph keeps the example's
keypoints; the rewritten graph follows the input in ONNX Runtime), and migrate on a small model.
"""

from __future__ import annotations

import io
import warnings

import onnx
import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import migrate_small, rewrite, rules_found, strip_helpers

SOURCE = '''
import torch
from torch import nn


class Refine(nn.Module):
    """The quarter-pixel shift of each keypoint towards its higher neighbour (pytorchcv's form)."""

    def forward(self, x):
        heatmap = x
        batch = heatmap.shape[0]
        channels = heatmap.shape[1]
        in_size = x.shape[2:]
        scores, indices = heatmap.view(batch, channels, -1).max(dim=2, keepdim=True)
        scores_mask = (scores > 0.0).float()
        pts = torch.cat(((indices % in_size[1]) * scores_mask, (indices // in_size[1]) * scores_mask, scores), dim=2)
        for b in range(batch):
            for k in range(channels):
                hm = heatmap[b, k, :, :]
                px = int(pts[b, k, 0])
                py = int(pts[b, k, 1])
                if (0 < px < in_size[1] - 1) and (0 < py < in_size[0] - 1):
                    pts[b, k, 0] += (hm[py, px + 1] - hm[py, px - 1]).sign() * 0.25
                    pts[b, k, 1] += (hm[py + 1, px] - hm[py - 1, px]).sign() * 0.25
        return pts


class Branches(nn.Module):
    """HRNet's chained indexes, an `else`, and a local rebound under a condition."""

    def forward(self, x):
        out = x.new_zeros(x.shape[0], x.shape[1], 2)
        n, m = x.shape[0], x.shape[1]
        for i in range(n):
            for j in range(m):
                v = x[i][j][0][0]
                w = v * 2
                if v > 0.5:
                    w = w - 1
                    out[i, j, 0] = w
                elif v < -0.5 or not v < 0.25:
                    out[i, j, 1] = abs(v)
                else:
                    out[i][j][0] = torch.clamp(v, min=-0.1, max=0.1)
                out[i, j, 1] += w
        return out


def single(values, limit: float):
    for i in range(values.shape[0]):
        if values[i, 0] > limit:
            values[i, 1] = values[i, 0] - limit
    return values


def kept(x, y, n: int):
    for i in range(x.shape[0]):
        x[i, 0] = i                      # the loop variable as a number
    for i in range(x.shape[0]):
        x[i, 0] = x[i - 1, 0]            # another iteration's element
    for i in range(x.shape[0]):
        t = x[i, 0] * 2
        y[i] = t
    for i in range(x.shape[0]):
        x[i, 0] = x[i, 1].sum()          # not element-wise by name
    for i in range(x.shape[0]):
        if x[i, 0] > 0:
            break
        x[i, 0] = 0
    for i in range(4):                    # a fixed trip count unrolls correctly
        x[i, 0] = x[i, 1] + n
    for i in range(x.shape[0]):
        x[i, 0] = x[i, 1] + 1
    print(i)                              # the loop variable, read after the loop
    return x, t
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT348",)) == ["TRT348"] * 3
    assert "_trt_" not in rewrite(SOURCE, select=("TRT348",))  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT348",), unsafe=True))
    refine = after.split("class Branches")[0]
    assert "        if _trt_tracing():\n            _trt_b = torch.arange(batch).view(-1, 1).expand(batch, channels)\n" \
        in refine
    assert "            px = pts[:batch, :channels, 0].long()\n" in refine
    assert "            _trt_mask1 = (((0 < px) & (px < (in_size[1] - 1))) & ((0 < py) & (py < (in_size[0] - 1))))\n" \
        in refine
    assert "            pts[:batch, :channels, 0] = torch.where(_trt_mask1, (pts[:batch, :channels, 0] + ((" in refine
    assert "        else:\n            for b in range(batch):\n                for k in range(channels):\n" in refine
    branches = after.split("class Branches")[1].split("def single")[0]
    assert "w = torch.where(_trt_mask1, (w - 1), w)" in branches  # rebound under the `if`: the other iterations keep it
    assert "_trt_mask2 = ~((v > 0.5))" in branches
    assert "out[:n, :m, 1] = torch.where(_trt_mask3, torch.abs(v), out[:n, :m, 1])" in branches
    assert "out[:n, :m, 0] = torch.where(_trt_mask4, torch.clamp(v, min=(-0.1), max=0.1), out[:n, :m, 0])" in branches
    assert "out[:n, :m, 1] = (out[:n, :m, 1] + w)" in branches
    assert ("    if _trt_tracing():\n        _trt_mask1 = (values[:values.shape[0], 0] > limit)\n"
            "        values[:values.shape[0], 1] = torch.where(_trt_mask1, (values[:values.shape[0], 0] - limit), "
            "values[:values.shape[0], 1])\n    else:\n        for i in range(values.shape[0]):\n") in after
    assert after.split("def kept")[1] == SOURCE.split("def kept")[1]  # nothing else rewritten
    once = rewrite(SOURCE, select=("TRT348",), unsafe=True)
    assert rewrite(once, select=("TRT348",), unsafe=True) == once  # the loop it keeps is not taken again


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))
    after = import_source(rewrite(SOURCE, select=("TRT348",), unsafe=True), tmp_path_factory.mktemp("after"))
    return before, after


def _heatmaps(batch: int, channels: int, h: int, w: int, kind: str, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(batch, channels, h, w, generator=g)
    if kind == "zeros":
        return torch.zeros(batch, channels, h, w)
    if kind == "negative":
        return -x
    if kind == "border" and batch and channels:
        x[:, ::2, 0, :] += 2.0  # maxima on the top row: the shift is skipped there
        x[:, 1::3, :, -1] += 3.0  # and on the right column
    if kind == "ties":
        return torch.floor(x * 2) / 2  # equal neighbours: sign 0
    return x


_KINDS = ("random", "zeros", "negative", "border", "ties")
_SHAPES = ((2, 3, 8, 6), (1, 17, 9, 7), (3, 1, 3, 3), (0, 4, 5, 5), (2, 0, 5, 5), (1, 2, 1, 1))


def test_eager_mode_is_the_loop(programs) -> None:
    before, after = programs
    for shape in _SHAPES:
        for kind in _KINDS:
            x = _heatmaps(*shape, kind)
            assert_same_run(run_once(before["Refine"](), [x]), run_once(after["Refine"](), [x.clone()]),
                            context=f"{shape} {kind}")


def _traced(module: torch.nn.Module, example: torch.Tensor) -> torch.jit.ScriptModule:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.trace(module, (example,), check_trace=False)


def test_the_traced_formulation_is_the_loop(programs) -> None:
    before, after = programs
    for name, example in (("Refine", _heatmaps(2, 3, 8, 6, "random")), ("Branches", torch.randn(2, 3, 8, 6))):
        traced = _traced(after[name](), example)
        original = _traced(before[name](), example)
        differs = False
        for shape in _SHAPES:
            for kind in _KINDS:
                x = _heatmaps(*shape, kind) if name == "Refine" else _heatmaps(*shape, kind) * 2 - 1
                try:
                    expected = before[name]()(x.clone())
                except RuntimeError:  # the model's own `view(b, c, -1)` of an empty batch: the graph raises too
                    with pytest.raises(RuntimeError):
                        traced(x.clone())
                    continue
                assert torch.equal(traced(x.clone()), expected), (name, shape, kind)
                try:
                    differs = differs or not torch.equal(original(x.clone()), expected)
                except RuntimeError:  # the unrolled loop indexes past a smaller input
                    differs = True
        assert differs, name  # the original's trace kept the example's keypoints and branches


def test_a_single_loop_while_tracing(programs) -> None:
    before, after = programs
    for values in (torch.randn(6, 2), torch.zeros(3, 2), torch.full((2, 2), -1.0), torch.zeros(0, 2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(lambda v: after["single"](v.clone(), 0.2), (torch.randn(4, 2),))
        assert torch.equal(traced(values), before["single"](values.clone(), 0.2))


def _export(model: torch.nn.Module, example: torch.Tensor, dynamo: bool) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"x": {0: torch.export.Dim("b", min=1, max=8), 2: torch.export.Dim("h", min=3, max=64),
                          3: torch.export.Dim("w", min=3, max=64)}}
            return torch.onnx.export(model, (example,), dynamo=True, input_names=["x"], dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
        return onnx.load_from_string(buffer.getvalue())


def _inputs(name: str, shape: tuple[int, ...], kind: str) -> torch.Tensor:
    x = _heatmaps(*shape, kind, seed=shape[0])
    return x if name == "Refine" else x * 2 - 1


def _agrees(graph: onnx.ModelProto, name: str, reference: torch.nn.Module) -> bool:
    session = ort.InferenceSession(graph.SerializeToString())
    for shape in ((1, 3, 8, 6), (3, 3, 9, 7), (2, 3, 16, 5), (4, 3, 3, 3)):
        for kind in _KINDS:
            x = _inputs(name, shape, kind)
            got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
            if not torch.equal(got, reference(x.clone())):
                return False
    return True


# The TorchScript exporter traces batch 1 (an indexed assignment by index tensors keeps a traced size of 1);
# torch.export specializes a dimension whose example size is 1, so the dynamo export traces batch 2, and
# takes `Branches`, since its ONNX translation of pytorchcv's `indices % in_size[1]` (a remainder by a
# symbolic size) fails before any loop.
@pytest.mark.parametrize("dynamo, name", [(False, "Refine"), (False, "Branches"), (True, "Branches")],
                         ids=["torchscript-refine", "torchscript-branches", "dynamo-branches"])
def test_the_export_follows_the_input(programs, dynamo, name) -> None:
    before, after = programs
    example = _inputs(name, (2 if dynamo else 1, 3, 8, 6), "random")
    reference = before[name]()
    if not dynamo:
        assert not _agrees(_export(before[name](), example, dynamo), name, reference)
    assert _agrees(_export(after[name](), example, dynamo), name, reference)


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        heatmap = self.conv(x)
        batch, channels, height, width = heatmap.shape
        scores, indices = heatmap.view(batch, channels, -1).max(dim=2, keepdim=True)
        pts = torch.cat(((indices % width).float(), (indices // width).float(), scores), dim=2)
        for b in range(batch):
            for k in range(channels):
                px = int(pts[b, k, 0])
                py = int(pts[b, k, 1])
                if 0 < px < width - 1 and 0 < py < height - 1:
                    pts[b, k, 0] += (heatmap[b, k, py, px + 1] - heatmap[b, k, py, px - 1]).sign() * 0.25
        return pts


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "keypoint_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT348"]
    assert "+        if _trt_tracing():" in report["diff"]


def test_scripting_takes_the_loop(programs) -> None:
    """`torch.jit.script` compiles both branches and runs the loop (`_trt_tracing()` is false when scripted)."""
    before, after = programs
    for name in ("Refine", "Branches"):
        scripted = torch.jit.script(after[name]())
        for shape in ((2, 3, 8, 6), (1, 2, 1, 1)):
            for kind in _KINDS:
                x = _inputs(name, shape, kind)
                assert torch.equal(scripted(x.clone()), before[name]()(x.clone())), (name, shape, kind)


def test_a_trip_count_with_a_call_is_evaluated_once() -> None:
    """`range(count(x))` calls `count` once; the rewrite binds it before the slices that read it, and the traced
    form still equals the loop."""
    code = (
        "import torch\n\n\n"
        "def shift(values, calls):\n"
        "    def count(v):\n"
        "        calls.append(1)\n"
        "        return v.shape[0]\n"
        "    for i in range(count(values)):\n"
        "        if values[i, 0] > 0:\n"
        "            values[i, 1] = values[i, 0] * 2\n"
        "    return values\n"
    )
    after = rewrite(code, select=("TRT348",), unsafe=True)
    assert "        _trt_size_i = count(values)\n        _trt_mask1 = (values[:_trt_size_i, 0] > 0)\n" in after
    namespace: dict = {}
    exec(compile(after, "shift.py", "exec"), namespace)
    for values in (torch.randn(5, 2), torch.zeros(0, 2), torch.tensor([[float("nan"), 1.0], [-0.0, 2.0]])):
        calls: list = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(lambda v: namespace["shift"](v.clone(), calls), (torch.randn(3, 2),))
        calls.clear()
        got = namespace["shift"](values.clone(), calls)  # eager: the loop, one call
        assert len(calls) == 1
        want = values.clone()
        for i in range(want.shape[0]):
            if want[i, 0] > 0:
                want[i, 1] = want[i, 0] * 2
        for result in (got, traced(values)):
            assert torch.equal(result.nan_to_num(), want.nan_to_num()) and torch.equal(result.isnan(), want.isnan())


# The in-place form of the face-alignment network's decoder (1adrianb/face-alignment@cdf86ed3 face_alignment/utils.py:
# 159-167): a row sliced with one written `:`, `torch.FloatTensor` of two differences, in-place methods on it and
# `preds[i, j].add_(...)` for the write.
IN_PLACE = '''
import torch


def nudge(hm, preds, limit: int):
    for i in range(preds.size(0)):
        for j in range(preds.size(1)):
            hm_ = hm[i, j, :]
            px, py = int(preds[i, j, 0]) - 1, int(preds[i, j, 1]) - 1
            if px > 0 and px < limit and py > 0 and py < limit:
                diff = torch.FloatTensor([hm_[py, px + 1] - hm_[py, px - 1], hm_[py + 1, px] - hm_[py - 1, px]])
                preds[i, j].add_(diff.sign_().mul_(.25))
    return preds


def shrink(values, scale: float):
    for i in range(values.shape[0]):
        values[i, 0].mul_(scale)
        values[i, 1].sub_(values[i, 0])
    return values


def views(hm, preds):
    for i in range(preds.size(0)):
        v = hm[i, 0, 0]
        v.sign_()                        # in place on a view of the input: not the loop's own vector
        preds[i, 0] = v
    for i in range(preds.size(0)):
        d = torch.tensor([hm[i, 0, 0], hm[i, 0, 1]])
        e = d
        preds[i].add_(e.abs_())          # in place through another name bound to it
    for i in range(preds.size(0)):
        d = torch.tensor([hm[i, 0, 0], hm[i, 0, 1]])
        preds[i].add_(d.mul_(hm[i, 0, 2]))  # in place by a per-iteration number
    for i in range(preds.size(0)):
        preds[i].add_(hm[i, 0, 0], alpha=2)  # a keyword
    return preds
'''


def _fan_inputs(batch: int, landmarks: int, size: int, kind: str, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Heatmaps and their 1-based peaks as FAN computes them (a peak on the border skips the nudge)."""
    hm = _heatmaps(batch, landmarks, size, size, kind, seed)
    flat = hm.reshape(batch, landmarks, -1).max(2)[1] + 1 if batch * landmarks else torch.zeros(batch, landmarks)
    preds = flat.view(batch, landmarks, 1).repeat(1, 1, 2).float()
    preds[..., 0] = torch.remainder(preds[..., 0] - 1, size) + 1
    preds[..., 1] = torch.floor((preds[..., 1] - 1) / size) + 1
    return hm, preds


def test_in_place_methods_fan_form() -> None:
    assert rules_found(IN_PLACE, select=("TRT348",)) == ["TRT348"] * 2
    after = strip_helpers(rewrite(IN_PLACE, select=("TRT348",), unsafe=True))
    assert ("        diff = torch.stack(((hm[_trt_i, _trt_j, _trt_at1, _trt_at2] - hm[_trt_i, _trt_j, _trt_at1, "
            "_trt_at3]), (hm[_trt_i, _trt_j, _trt_at4, _trt_at5] - hm[_trt_i, _trt_j, _trt_at6, _trt_at5]),), "
            "-1).to(torch.float32)\n") in after
    assert ("        preds[:_trt_size_i, :_trt_size_j] = torch.where(_trt_mask1[(..., None)], "
            "(preds[:_trt_size_i, :_trt_size_j] + diff.sign_().mul_(.25)), preds[:_trt_size_i, :_trt_size_j])\n"
            "    else:\n") in after
    assert ("        values[:values.shape[0], 0] = (values[:values.shape[0], 0] * scale)\n"
            "        values[:values.shape[0], 1] = (values[:values.shape[0], 1] - values[:values.shape[0], 0])\n"
            ) in after
    assert after.split("def views")[1] == IN_PLACE.split("def views")[1]  # in place on what the loop does not own
    namespace: dict = {}
    exec(compile(rewrite(IN_PLACE, select=("TRT348",), unsafe=True), "nudge.py", "exec"), namespace)
    original: dict = {}
    exec(compile(IN_PLACE, "original.py", "exec"), original)
    example = _fan_inputs(2, 3, 8, "random", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(lambda h, p: namespace["nudge"](h, p.clone(), 7), example)
        traced_original = torch.jit.trace(lambda h, p: original["nudge"](h, p.clone(), 7), example)
    differs = False
    for shape in ((2, 3, 8), (1, 5, 8), (3, 1, 8), (0, 2, 8), (2, 0, 8)):
        for kind in _KINDS:
            hm, preds = _fan_inputs(*shape, kind, 1)
            expected = original["nudge"](hm, preds.clone(), 7)
            assert torch.equal(namespace["nudge"](hm, preds.clone(), 7), expected), (shape, kind)  # eager: the loop
            assert torch.equal(traced(hm, preds), expected), (shape, kind)
            try:
                differs = differs or not torch.equal(traced_original(hm, preds), expected)
            except RuntimeError:  # the unrolled loop indexes past a smaller input
                differs = True
    assert differs  # the original's trace kept the example's peaks and branches
    for values in (torch.randn(4, 2), torch.zeros(0, 2), torch.tensor([[float("inf"), 1.0], [-0.0, float("nan")]])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced_shrink = torch.jit.trace(lambda v: namespace["shrink"](v.clone(), -0.5), (torch.randn(3, 2),))
        want = original["shrink"](values.clone(), -0.5)
        for got in (namespace["shrink"](values.clone(), -0.5), traced_shrink(values)):
            assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.isnan(), want.isnan())


# The row form: ViTPose's decode (vitpose_infer 0.2.0, vitpose_infer/pose_utils/pose_utils.py:161-165, and the same
# loop in its zoo wrapper) writes each person's keypoint columns from that person's rows of arg-max indexes and the
# numbers of its box, in a loop over the persons that starts at 0 written out.
ROWS = '''
import torch
from torch import nn


class Decode(nn.Module):
    def forward(self, x):
        heat = x
        boxes = torch.stack([heat[:, 0, 0, 0], heat[:, 0, 0, 1], heat[:, 0, 1, 0] + 2, heat[:, 0, 1, 1] + 3], 1)
        pts = torch.empty((heat.shape[0], heat.shape[1], 3), dtype=torch.float32)
        (b, indices) = torch.max(heat, dim=2)
        (b, indices) = torch.max(b, dim=2)
        (c, indicesc) = torch.max(heat, dim=3)
        (c, indicesc) = torch.max(c, dim=2)
        for i in range(0, heat.shape[0]):
            pts[i, :, 0] = indicesc[i, :] * 0.25 * (boxes[i][3] - boxes[i][1]) + boxes[i][1]
            pts[i, :, 1] = indices[i, :] * 0.5 * (boxes[i][2] - boxes[i][0]) + boxes[i][0]
            pts[i, :, 2] = c[i, :]
        return pts


def named_row(x, s):
    out = torch.zeros(x.shape[0], x.shape[1])
    for i in range(x.shape[0]):
        row = x[i, :]
        if s[i] > 0:
            out[i, :] = row * s[i]
    return out


def fill(x, s):
    out = torch.zeros_like(x)
    for i in range(x.shape[0]):
        out[i, :] = s[i, 0] - 1
    return out


def kept(x, y, w):
    for i in range(x.shape[0]):
        x[i, :, 0] = y[i, :, :]          # a matrix into a row
    for i in range(x.shape[0]):
        x[i, :, 0] = y[i, :, 0] + w[i, :, :]  # a row meets a matrix: padding at the end would misalign them
    for i in range(1, x.shape[0]):
        x[i, :, 0] = y[i, :, 0]          # a loop that does not start at 0
    for i in range(x.shape[0]):
        x[i, :, 0] = y[:, i, 0]          # a row along another axis
    return x
'''


def _row_inputs(kind: str, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed))
    if kind == "zeros":
        return torch.zeros(shape)
    if kind == "negative":
        return -x.abs()
    if kind == "special" and x.numel() >= 4:
        x.view(-1)[:4] = torch.tensor([float("inf"), float("nan"), -float("inf"), -0.0])
    return x


def test_rows_at_the_iteration_vitpose_form(tmp_path) -> None:
    assert rules_found(ROWS, select=("TRT348",)) == ["TRT348"] * 3
    after = strip_helpers(rewrite(ROWS, select=("TRT348",), unsafe=True))
    assert ("            pts[:heat.shape[0], :, 0] = (((indicesc[:heat.shape[0], :] * 0.25) * (boxes[_trt_i, 3] - "
            "boxes[_trt_i, 1])[(..., None)]) + boxes[_trt_i, 1][(..., None)])\n") in after
    assert "            pts[:heat.shape[0], :, 2] = c[:heat.shape[0], :]\n" in after
    assert ("        out[:x.shape[0], :] = torch.where(_trt_mask1[(..., None)], (x[:x.shape[0], :] * s[_trt_i][(..., "
            "None)]), out[:x.shape[0], :])\n") in after
    assert "        out[:x.shape[0], :] = (s[_trt_i, 0] - 1)[(..., None)].expand_as(out[:x.shape[0], :])\n" in after
    assert after.split("def kept")[1] == ROWS.split("def kept")[1]
    before_ns = import_source(ROWS, tmp_path)
    after_ns = import_source(rewrite(ROWS, select=("TRT348",), unsafe=True), tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = {"named_row": torch.jit.trace(after_ns["named_row"], (torch.randn(3, 4), torch.randn(3))),
                  "fill": torch.jit.trace(after_ns["fill"], (torch.randn(3, 4), torch.randn(3, 4)))}
        # every example person's scale positive: the unrolled loop writes its three rows, and no more
        kept_trace = torch.jit.trace(before_ns["named_row"], (torch.randn(3, 4), torch.ones(3)))
    differs = False
    for batch in (1, 3, 5, 0):
        for kind in ("random", "zeros", "negative", "special"):
            x, s = _row_inputs(kind, (batch, 4), batch), _row_inputs(kind, (batch,), batch + 7)
            want = before_ns["named_row"](x, s)
            for got in (after_ns["named_row"](x, s), traced["named_row"](x, s)):
                assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.isnan(), want.isnan())
            try:
                kept = kept_trace(x, s)
                differs = differs or not torch.equal(kept.nan_to_num(), want.nan_to_num())
            except RuntimeError:  # the unrolled loop reads a person a smaller batch does not have
                differs = True
            s2 = _row_inputs(kind, (batch, 4), batch + 9)
            want = before_ns["fill"](x, s2)
            for got in (after_ns["fill"](x, s2), traced["fill"](x, s2)):
                assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.isnan(), want.isnan())
    assert differs  # the loop traced as written keeps the example's three persons


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_rows_form_exports_and_follows_the_persons(dynamo: bool, tmp_path) -> None:
    before_ns = import_source(ROWS, tmp_path)
    after_ns = import_source(rewrite(ROWS, select=("TRT348",), unsafe=True), tmp_path)
    original, rewritten = before_ns["Decode"](), after_ns["Decode"]()
    example = _heatmaps(2, 5, 8, 6, "random")
    sets = [_heatmaps(*shape, kind, seed=3) for shape in ((1, 5, 8, 6), (3, 5, 9, 7), (4, 5, 16, 5))
            for kind in _KINDS]
    for x in sets:
        assert torch.equal(rewritten(x), original(x))  # eager mode: the loop
    graphs = [(False, _export(original, example, dynamo))] if not dynamo else []
    graphs.append((True, _export(rewritten, example, dynamo)))
    for should_agree, graph in graphs:
        session = ort.InferenceSession(graph.SerializeToString())
        try:
            agrees = all(np.array_equal(session.run(None, {"x": x.numpy()})[0], original(x).numpy()) for x in sets)
        except ort.capi.onnxruntime_pybind11_state.InvalidArgument:  # the unrolled loop reads past a smaller batch
            agrees = False
        assert agrees is should_agree


# wucng/toolcv (f6ab6c04, toolcv/api/define/utils/tools/tools.py:240-242) clamps each detection's keypoints to its
# own box: a clamp whose bound is an iteration's number, a tensor over all iterations.
CLAMPED = '''
import torch


def clamp_points(tmp, boxes_w, boxes_h):
    for i in range(len(boxes_w)):
        tmp[i, :, 0] = tmp[i, :, 0].clamp(0, boxes_w[i])
        tmp[i, :, 1] = tmp[i, :, 1].clamp(min=-1.5, max=boxes_h[i])
    return tmp
'''


def test_a_clamp_by_an_iterations_number(tmp_path) -> None:
    after = strip_helpers(rewrite(CLAMPED, select=("TRT348",), unsafe=True))
    assert ("        tmp[:_trt_size_i, :, 0] = torch.minimum(torch.maximum(tmp[:_trt_size_i, :, 0], torch.as_tensor(0, "
            "dtype=tmp[:_trt_size_i, :, 0].dtype)), boxes_w[_trt_i][(..., None)])\n") in after
    before_ns = import_source(CLAMPED, tmp_path)
    after_ns = import_source(rewrite(CLAMPED, select=("TRT348",), unsafe=True), tmp_path)
    generator = torch.Generator().manual_seed(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(lambda t, w, h: after_ns["clamp_points"](t.clone(), w, h),
                                 (torch.randn(3, 5, 2), torch.rand(3) * 4, torch.rand(3) * 4))
    for batch in (1, 3, 6, 0):
        points = torch.randn(batch, 5, 2, generator=generator) * 4
        widths, heights = torch.rand(batch, generator=generator) * 4, torch.rand(batch, generator=generator) * 4
        if batch:
            points[0, 0] = torch.tensor([float("nan"), float("inf")])
            widths[-1], heights[0] = -1.0, -3.0  # a bound below the other: the upper one wins, as in `clamp`
        want = before_ns["clamp_points"](points.clone(), widths, heights)
        for got in (after_ns["clamp_points"](points.clone(), widths, heights), traced(points, widths, heights)):
            assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(), want.nan_to_num()), batch


UNPACKED = '''
import torch


def areas(boxes):
    out = torch.zeros(boxes.shape[0])
    for i in range(boxes.shape[0]):
        x1, y1, x2, y2 = boxes[i]
        out[i] = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    return out


def centres(boxes):
    c = torch.zeros_like(boxes[:, :2])
    for i in range(len(boxes)):
        x1, y1, x2, y2 = boxes[i, :4]
        c[i, 0] = (x1 + x2) / 2
        c[i, 1] = (y1 + y2) / 2
    return c


def unknown(boxes, out):
    for i in range(boxes.shape[0]):
        x1, y1, x2, y2 = boxes[i]
        out[i] = x2 - x1
    return out
'''


def test_a_box_row_unpacked_into_its_corners(tmp_path) -> None:
    """`x1, y1, x2, y2 = boxes[i]`: the rows' columns, unbound; a 1-D result made just before the loop takes an
    iteration's number (`out` of unknown rank may be a row an iteration: left as it is)."""
    assert rules_found(UNPACKED, select=("TRT348",)) == ["TRT348"] * 2
    after = strip_helpers(rewrite(UNPACKED, select=("TRT348",), unsafe=True))
    assert "        x1, y1, x2, y2 = boxes[_trt_i].unbind(1)\n" in after
    assert "        out[:boxes.shape[0]] = ((x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0))\n" in after
    assert "        x1, y1, x2, y2 = boxes[_trt_i, :4].unbind(1)\n" in after
    assert after.split("def unknown")[1] == UNPACKED.split("def unknown")[1]
    before_ns = import_source(UNPACKED, tmp_path)
    after_ns = import_source(rewrite(UNPACKED, select=("TRT348",), unsafe=True), tmp_path)
    generator = torch.Generator().manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced_centres = torch.jit.trace(after_ns["centres"], (torch.randn(3, 5),))
    for batch in (1, 3, 6, 0):
        boxes = torch.randn(batch, 5, generator=generator) * 10
        if batch:
            boxes[0, :4] = torch.tensor([float("nan"), -float("inf"), 0.0, -0.0])
        for name in ("areas", "centres"):
            given = boxes[:, :4] if name == "areas" else boxes
            want = before_ns[name](given)
            for got in (after_ns[name](given), *([traced_centres(given)] if name == "centres" else [])):
                assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(), want.nan_to_num())
    # a row of another length raises as the loop's unpacking does, in both
    for program in (before_ns["areas"], after_ns["areas"]):
        with pytest.raises(ValueError):
            program(torch.randn(2, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced_areas = torch.jit.trace(after_ns["areas"], (torch.randn(3, 4),))
        unrolled = torch.jit.trace(before_ns["areas"], (torch.randn(3, 4),))
    for batch in (1, 3, 6, 0):
        boxes = torch.randn(batch, 4, generator=generator) * 10
        assert torch.equal(traced_areas(boxes), before_ns["areas"](boxes))
    wide = torch.rand(6, 4) + torch.tensor([0.0, 0.0, 2.0, 2.0])
    assert not torch.equal(unrolled(wide), before_ns["areas"](wide))  # the unrolled loop wrote three boxes
