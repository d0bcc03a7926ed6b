"""TRT202: `t[mask] = v` / `t[mask] op= v` rewritten to `torch.where` — rewrite, refusals, runs, export;
and where `migrate` places a graph ONNX Runtime refuses (the SAM prompt encoder's `= 0.0`)."""

from __future__ import annotations

import io
import textwrap
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, run_once
from support import load, rewrite, rules_found


MODULE = """
import torch
from torch import nn


class Update(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(1, 4))

    def forward(self, x: torch.Tensor, labels: torch.Tensor, v: torch.Tensor):
        y = x * 1.5
        y[labels == -1] = 0.0
        y[labels == -1] += self.w
        y[labels == 0] -= v
        y[labels == 1] *= v
        y[labels == 2] /= v
        y[labels == 3] = v
        return y
"""


def _update(code: str):
    torch.manual_seed(0)
    return load(code, "Update")().eval()


def test_rewrite_text_with_trt204_first() -> None:
    after = rewrite(MODULE, unsafe=True, select=("TRT202", "TRT204"))
    body = after[after.index("    def forward"):]
    assert body == (
        "    def forward(self, x: torch.Tensor, labels: torch.Tensor, v: torch.Tensor):\n"
        "        y = x * 1.5\n"
        "        _trt_mask_fill_float(y, labels == -1, 0.0)\n"
        "        y = torch.where(_trt_mask_rows(labels == -1, y), (y + self.w).to(y.dtype), y)\n"
        "        y = torch.where(_trt_mask_rows(labels == 0, y), (y - v).to(y.dtype), y)\n"
        "        y = (y * torch.where(_trt_mask_rows(labels == 1, y), v, 1)).to(y.dtype)\n"
        "        y = (y / torch.where(_trt_mask_rows(labels == 2, y), v, 1)).to(y.dtype)\n"
        "        y = torch.where(_trt_mask_rows(labels == 3, y), torch.as_tensor(v, dtype=y.dtype, device=y.device), y)\n"
        "        return y\n")
    assert after.count("def _trt_mask_rows(") == 1
    assert rewrite(MODULE, select=("TRT202",)) == textwrap.dedent(MODULE)  # unsafe: only with --unsafe
    assert rewrite(after, unsafe=True, select=("TRT202", "TRT204")) == after  # a second pass changes nothing


@pytest.mark.parametrize("line, why", [
    ("self.buf[labels == 0] += v", "attribute, a view or a call's result"),
    ("x[:, 0][labels == 0] += v", "attribute, a view or a call's result"),
    ("y[labels == 0] //= 2", "the operator `//=`"),
    ("y[labels == 0] = y[labels == 0] * 2", "the value reads `y` itself"),
    ("y[labels == 0] = v[labels == 0] * 2", "selects rows with the mask itself"),
    ("y[labels == 0, 1] = v", "other indices beside the mask"),
    ("y[labels == 0] = z = v", "a chained assignment"),
])
def test_refused_forms_are_reported_without_a_fix(line: str, why: str) -> None:
    code = f"""
    import torch

    def f(self, x: torch.Tensor, labels: torch.Tensor, v: torch.Tensor):
        y = x * 2
        {line}
        return y, x
    """
    assert rules_found(code, select=("TRT202",)) == ["TRT202"]
    after = rewrite(code, unsafe=True, select=("TRT202",))
    assert after == textwrap.dedent(code)
    from trtcodemod.engine import Options, check_source

    [finding] = check_source(textwrap.dedent(code).encode(), "snippet.py", Options(select=("TRT202",)))
    assert why in finding.message, finding.message


@pytest.mark.parametrize("body, why", [
    ("    y = x[:, :2]\n    y[labels == 0] += v\n    return x\n", "nothing reads `y` after"),
    ("    y = x.view(-1, 2)\n    y[labels == 0] += v\n    return x, y\n", "may be a view of another tensor"),
    ("    y = x\n    y[labels == 0] += v\n    return y\n", "may be a view of another tensor"),
    ("    y = x * 2\n    y[labels == 0] += v\n    g = lambda: y\n    return y, g\n", "nested function"),
    ("    global y\n    y[labels == 0] += v\n    return y\n", "global or nonlocal"),
])
def test_rebinding_that_would_miss_a_holder_is_refused(body: str, why: str) -> None:
    code = "import torch\n\n\ndef f(x: torch.Tensor, labels: torch.Tensor, v):\n" + body
    from trtcodemod.engine import Options, check_source

    [finding] = check_source(code.encode(), "snippet.py", Options(select=("TRT202",), unsafe=True))
    assert finding.fix.value == "none" and why in finding.message, finding.message


def test_loop_and_own_view_are_rewritten() -> None:
    code = """
    import torch

    def f(x: torch.Tensor, labels: torch.Tensor, v):
        y = x * 1
        y = y[:, :2]
        for k in range(3):
            y[labels == k] += v
        return y
    """
    after = rewrite(code, unsafe=True, select=("TRT202",))
    assert "        y = torch.where(_trt_mask_rows(labels == k, y), (y + v).to(y.dtype), y)\n" in after


def _edge_inputs() -> dict[str, tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(5, 3, 4, generator=g)
    labels = torch.randint(-1, 4, (5, 3), generator=g)
    v = torch.rand(4, generator=g) + 0.5
    odd = x.clone()
    odd[0, 0, 0], odd[1, 1, 1], odd[2, 2, 2], odd[3, 0, 3] = float("inf"), float("nan"), -float("inf"), -0.0
    return {
        "random": (x, labels, v),
        "all-false": (x, torch.full_like(labels, 7), v),
        "all-true": (x, torch.full_like(labels, 0), v),
        "empty-rows": (x[:0], labels[:0], v),
        "empty-points": (x[:, :0], labels[:, :0], v),
        "inf-nan": (odd, labels, v),
        "zero-divisor": (x, torch.full_like(labels, 2), torch.zeros(4)),
        "inf-value": (x, labels, torch.full((4,), float("inf"))),
        "mask-mismatch": (x, labels[:, :2], v),  # the original's IndexError, raised again
    }


@pytest.mark.parametrize("label", list(_edge_inputs()))
def test_eager_runs_are_unchanged(label: str) -> None:
    after = rewrite(MODULE, unsafe=True, select=("TRT202", "TRT204"))
    assert after.count("torch.where(_trt_mask_rows(") == 5  # the rewrite is what runs here
    original, rewritten = _update(MODULE), _update(after)
    inputs = _edge_inputs()[label]
    graded = [inputs[0].clone().requires_grad_(), inputs[1], inputs[2].clone().requires_grad_()]
    for given in (list(inputs), graded):
        assert_same_run(run_once(original, given), run_once(rewritten, given), context=label)


def test_dtype_of_the_target_is_kept() -> None:
    code = """
    import torch

    def f(x: torch.Tensor, labels: torch.Tensor, v, fill):
        y = x.clone()
        y[labels > 0] += v
        y[labels < 0] *= v
        y[labels == 0] = fill
        return y
    """
    rewritten = rewrite(code, unsafe=True, select=("TRT202",))
    assert rewritten.count("_trt_mask_rows(labels") == 3
    before, after = load(code, "f"), load(rewritten, "f")
    x = torch.randn(6, 3).half()
    labels = torch.tensor([1, -1, 0, 1, -1, 0])
    v = torch.tensor([0.1, 70000.0, -2.5])  # float32, one value beyond float16's range
    want, got = before(x, labels, v, 3), after(x, labels, v, 3)
    assert got.dtype == want.dtype == torch.float16
    assert torch.equal(want.isinf(), got.isinf()) and torch.equal(want.nan_to_num(), got.nan_to_num())


def _export(model: torch.nn.Module, args: tuple, dynamo: bool) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, input_names=["x", "labels", "v"], opset_version=18,
                                        dynamic_shapes=({0: torch.export.Dim("n"), 1: torch.export.Dim("p")},
                                                        {0: torch.export.Dim("n"), 1: torch.export.Dim("p")},
                                                        None))
            return program.model_proto.SerializeToString()
        torch.onnx.export(model, args, buffer, dynamo=False, input_names=["x", "labels", "v"], opset_version=17,
                          dynamic_axes={"x": {0: "n", 1: "p"}, "labels": {0: "n", 1: "p"}})
    return buffer.getvalue()


@pytest.mark.parametrize("dynamo", [False, True])
def test_exported_graph_loads_and_equals_eager(dynamo: bool) -> None:
    after = rewrite(MODULE, unsafe=True, select=("TRT202", "TRT204"))
    original, rewritten = _update(MODULE), _update(after)
    inputs = _edge_inputs()
    data = _export(rewritten, inputs["random"], dynamo)
    ops = {node.op_type for node in onnx.load_from_string(data).graph.node}
    assert "Where" in ops and not ops & {"NonZero", "ScatterND", "GatherND"}, ops
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for label, (x, labels, v) in inputs.items():
        if label in ("mask-mismatch", "empty-rows") or (dynamo and label == "empty-points"):
            continue  # the export checks no mask shape; dynamo specializes sizes 0 and 1
        with torch.no_grad():
            want = original(x, labels, v).numpy()
        [got] = session.run(None, {"x": x.numpy(), "labels": labels.numpy(), "v": v.numpy()})
        assert got.shape == want.shape and np.array_equal(got, want, equal_nan=True), label


def test_original_graph_fails_to_run_in_onnx_runtime() -> None:
    """Why SAM needs this: the TorchScript export of the (B, N) mask's `= 0.0` broadcasts it from
    the trailing axes; with static shapes ONNX Runtime refuses the graph at load."""
    original = _update(MODULE)
    data = _export(original, _edge_inputs()["random"], dynamo=False)
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    x, labels, v = _edge_inputs()["random"]
    with pytest.raises(Exception, match="Where"):
        session.run(None, {"x": x.numpy(), "labels": labels.numpy(), "v": v.numpy()})


def test_mask_rows_helper() -> None:
    from trtcodemod.helpers.assignment import _trt_mask_rows

    mask = torch.tensor([[True, False, True]])
    target = torch.zeros(1, 3, 2, 5)
    assert _trt_mask_rows(mask, target).shape == (1, 3, 1, 1)
    assert torch.jit.script(_trt_mask_rows)(mask, target).shape == (1, 3, 1, 1)
    for wrong in (torch.tensor([True, False]), torch.ones(1, 3, 2, 5, 1, dtype=torch.bool)):
        with pytest.raises(IndexError):
            _trt_mask_rows(wrong, target)
        with pytest.raises(IndexError):
            target[wrong]


def test_migrate_places_a_graph_onnx_runtime_refuses(tmp_path) -> None:
    """The node ONNX Runtime names (at load or at run time) is mapped back to the line that made it,
    and the fixes of that line (TRT204's helper for `= 0.0`) are planned for it; a NonZero of a
    masked update is a problem TRT202's fix removes."""
    from trtcodemod.evidence.facts import norm
    from trtcodemod.migrate.locate import FAILS_TO_RUN, Problem, unfaithful_graphs
    from trtcodemod.verify.results import VerifyReport
    from trtcodemod.migrate.plan import describe, matches
    from trtcodemod.rules import Finding, Safety
    from trtcodemod.verify.static import failed_node

    model_file = tmp_path / "prompt.py"
    model_file.write_text(textwrap.dedent(MODULE))
    from support import import_file

    model = import_file(model_file, "trt202_prompt").Update().eval()
    path = tmp_path / "before.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, _edge_inputs()["random"], str(path), dynamo=False, opset_version=17, verbose=True)
    with pytest.raises(Exception) as refused:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    fill_line = textwrap.dedent(MODULE).splitlines().index("        y[labels == -1] = 0.0") + 1
    found = failed_node(str(path), str(refused.value))
    assert found is not None and found.op == "Where" and found.source == f"{model_file}:{fill_line}", found
    at_run = failed_node(str(path), "Non-zero status code returned while running Where node. Name:"
                                    f"'{found.node}' Status Message: broadcast")
    assert at_run == found

    check = {"side": "before", "exporter": "torchscript", "faithful": False, "baked": False,
             "detail": f"ONNX Runtime CPU failed: {refused.value}", "failed_node": found.to_json()}
    [problem] = unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before")
    assert (problem.kind, problem.op, problem.path, problem.line) == ("unfaithful", FAILS_TO_RUN, norm(str(model_file)),
                                                                     fill_line)
    assert describe([problem]) == f"the torchscript graph fails to run at line {fill_line}"

    def finding(rule: str, line: int) -> Finding:
        return Finding(rule, "x", "m", str(model_file), line, 9, line, 40, Safety.SAFE)

    assert matches(problem, finding("TRT204", fill_line))
    assert not matches(problem, finding("TRT202", fill_line + 1))
    unplaced = Problem("unfaithful", None, None, FAILS_TO_RUN, None, "no node named", "error", "torchscript")
    assert not matches(unplaced, finding("TRT204", fill_line))
    nonzero = Problem("hostile", norm(str(model_file)), fill_line + 1, "NonZero", "TRT201", "data-dependent", "warning")
    assert matches(nonzero, finding("TRT202", fill_line + 1))


def test_assignments_are_tensor_where_with_unsafe() -> None:
    code = """
    import torch

    def f(boxes: torch.Tensor, scores: torch.Tensor, labels, fallback):
        boxes[scores < 0.05] = fallback      # TRT202
        scores[labels == 0] += 1.0           # TRT202
        scores[labels == 1] = 0.0            # a masked fill: exports as one Where
        scores[scores.isnan()] = float("-inf")
        keep = scores > 0
        scores[keep, 0:1] = labels[:, None]  # TRT202 (mixed indices)
        boxes[keep][0] = 1.0                 # a read of a copy, then a write: TRT201 on the read
        return boxes, scores
    """
    assert rules_found(code, select=("TRT201", "TRT202")) == ["TRT202", "TRT202", "TRT202", "TRT201"]
    after = rewrite(code, unsafe=True)
    safe = rewrite(code)  # TRT202's fix needs --unsafe
    assert "boxes[scores < 0.05] = fallback" in safe and "scores[labels == 0] += 1.0" in safe
    assert ("boxes = torch.where(_trt_mask_rows(scores < 0.05, boxes), torch.as_tensor(fallback, dtype=boxes.dtype, "
            "device=boxes.device), boxes)") in after
    assert "scores = torch.where(_trt_mask_rows(labels == 0, scores), (scores + 1.0).to(scores.dtype), scores)" in after
    assert "scores[keep, 0:1] = labels[:, None]" in after  # mixed indices: reported only
    assert "_trt_mask_index(boxes, keep)[0] = 1.0" in after


# The mask on the last axis, the selected elements combined with those of a tensor of the mask's shape:
# nnAudio's iSTFT, KinWaiCheuk/nnAudio@ad2d8875f335b0a08098e42a0a2826b89a7fa073
# Installation/nnAudio/features/stft.py:49 (`real[:, m] = real[:, m].div(w_sum[m])` after the overlap-add).
TRAILING = """
import torch


def unwindow(frames: torch.Tensor, wsum: torch.Tensor, gain: torch.Tensor):
    out = frames * 1.0
    keep = wsum > 1e-10
    out[:, keep] = out[:, keep].div(wsum[keep])
    out[:, keep] = out[:, keep] * gain[keep]
    out[:, keep] = out[:, keep] + gain[keep]
    out[:, keep] = (out[:, keep].sub(wsum[keep]))
    return out[:, 1:]


def cube(frames: torch.Tensor, wsum: torch.Tensor):
    out = frames.clone()
    ok = wsum != 0
    out[:, :, ok] = out[:, :, ok] / wsum[ok]
    return out
"""


def test_trailing_mask_update_rewrite_text() -> None:
    after = rewrite(TRAILING, unsafe=True, select=("TRT202",))
    assert "    out = (out / torch.where(keep, wsum, 1)).to(out.dtype)\n" in after
    assert "    out = (out * torch.where(keep, gain, 1)).to(out.dtype)\n" in after
    assert "    out = torch.where(keep, (out + gain).to(out.dtype), out)\n" in after
    assert "    out = torch.where(keep, (out - wsum).to(out.dtype), out)\n" in after
    assert "    out = (out / torch.where(ok, wsum, 1)).to(out.dtype)\n" in after
    assert "[:, keep]" not in after and "[:, :, ok]" not in after and "_trt_mask_rows" not in after
    assert rewrite(TRAILING, select=("TRT202",)) == textwrap.dedent(TRAILING)  # unsafe: only with --unsafe
    assert rewrite(after, unsafe=True, select=("TRT202",)) == after


@pytest.mark.parametrize("line, why", [
    ("self.buf[:, keep] = self.buf[:, keep] / v[keep]", "is an attribute"),
    ("y[:, keep] = y[:, keep] / v", "other indices beside the mask"),  # not the mask's selection of `v`
    ("y[:, keep] = y[:, keep] // v[keep]", "other indices beside the mask"),  # no elementwise operator of ours
    ("y[:, keep] = x[:, keep] / v[keep]", "other indices beside the mask"),  # another tensor's selection
])
def test_trailing_mask_update_refusals(line: str, why: str) -> None:
    code = f"""
    import torch

    def f(self, x: torch.Tensor, v: torch.Tensor):
        y = x * 2
        keep = v > 0
        {line}
        return y, x
    """
    from trtcodemod.engine import Options, check_source

    [finding] = check_source(textwrap.dedent(code).encode(), "snippet.py", Options(select=("TRT202",), unsafe=True))
    assert finding.fix.value == "none" and why in finding.message, finding.message


def _trailing_inputs() -> dict[str, tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(5)
    frames = torch.randn(3, 7, generator=g)
    wsum = torch.rand(7, generator=g) + 0.25
    wsum[0], wsum[-1] = 0.0, 1e-12  # a window's square sum vanishes at the ends
    gain = torch.randn(7, generator=g)
    odd = frames.clone()
    odd[0, 0], odd[1, 3], odd[2, 6], odd[0, 4] = float("inf"), float("nan"), -float("inf"), -0.0
    return {
        "random": (frames, wsum, gain),
        "negative": (-frames.abs(), wsum, -gain.abs()),
        "zeros": (torch.zeros(3, 7), torch.zeros(7), torch.zeros(7)),
        "all-true": (frames, wsum + 1.0, gain),
        "inf-nan": (odd, wsum, gain),
        "inf-divisor": (frames, torch.full((7,), float("inf")), gain),
        "empty-batch": (frames[:0], wsum, gain),
        "empty-length": (frames[:, :0], wsum[:0], gain[:0]),
        "mask-mismatch": (frames, wsum[:5], gain[:5]),  # the original's IndexError; the rewrite's error
    }


@pytest.mark.parametrize("label", list(_trailing_inputs()))
def test_trailing_mask_update_runs_are_unchanged(label: str) -> None:
    after = rewrite(TRAILING, unsafe=True, select=("TRT202",))
    before_f, after_f = load(TRAILING, "unwindow"), load(after, "unwindow")
    frames, wsum, gain = _trailing_inputs()[label]
    graded = [frames.clone().requires_grad_(), wsum.clone().requires_grad_(), gain.clone().requires_grad_()]
    # A mask that does not fit the last axis raises in both (IndexError before, RuntimeError after).
    kinds = label != "mask-mismatch"
    assert_same_run(run_once(before_f, [frames, wsum, gain]), run_once(after_f, [frames, wsum, gain]),
                    context=label, exception_types=kinds)
    _same_up_to_zero_signs(run_once(before_f, graded), run_once(after_f, graded), label, kinds)
    cube_before, cube_after = load(TRAILING, "cube"), load(after, "cube")
    stacked = torch.stack([frames, frames.flip(0)], 1) if frames.shape[0] else frames.unsqueeze(1)
    assert_same_run(run_once(cube_before, [stacked, wsum]), run_once(cube_after, [stacked, wsum]), context=label,
                    exception_types=kinds)
    _same_up_to_zero_signs(run_once(cube_before, [stacked.clone().requires_grad_(), wsum.clone().requires_grad_()]),
                           run_once(cube_after, [stacked.clone().requires_grad_(), wsum.clone().requires_grad_()]),
                           label, kinds)


def _same_up_to_zero_signs(before, after, label: str, kinds: bool) -> None:
    """The whole run contract, the gradients up to float summation order and the sign of a zero: the write's
    backward adds the selected elements' gradient into zeros (0.0 + -0.0 is 0.0) and sums a broadcast
    divisor's gradient over the selection, the rewrite's product passes a -0.0 on and sums over all
    (the rule's doc)."""
    grads = before.grads, after.grads
    before.grads = after.grads = None
    assert_same_run(before, after, context=label, exception_types=kinds)
    assert (grads[0] is None) == (grads[1] is None), label
    for want, got in zip(*(g or [] for g in grads)):
        assert (want is None) == (got is None), label
        if want is not None:
            torch.testing.assert_close(got, want, rtol=1e-6, atol=0.0, equal_nan=True, msg=label)


def test_trailing_mask_update_exports_as_where_at_every_size() -> None:
    """The original's TorchScript graph writes the selection back through NonZero + ScatterND; the rewrite's
    is a `Where`, equal to eager mode at other batch sizes and lengths."""
    after = rewrite(TRAILING, unsafe=True, select=("TRT202",))

    def module(code: str) -> torch.nn.Module:
        function = load(code, "unwindow")

        class Unwindow(torch.nn.Module):
            def forward(self, frames: torch.Tensor, wsum: torch.Tensor) -> torch.Tensor:
                return function(frames, wsum, wsum * 0.5)

        return Unwindow().eval()

    def export(model: torch.nn.Module) -> bytes:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 16), torch.rand(16)), buffer, dynamo=False,
                              input_names=["frames", "wsum"], opset_version=17,
                              dynamic_axes={"frames": {0: "n", 1: "length"}, "wsum": {0: "length"}})
        return buffer.getvalue()

    original_ops = {node.op_type for node in onnx.load_from_string(export(module(TRAILING))).graph.node}
    assert {"NonZero", "ScatterND"} <= original_ops, original_ops
    data = export(module(after))
    ops = {node.op_type for node in onnx.load_from_string(data).graph.node}
    assert "Where" in ops and not ops & {"NonZero", "ScatterND", "GatherND"}, ops
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    # A periodic Hann window's square sum is zero at its first sample: the mask leaves it.
    for frames in (torch.randn(2, 16), torch.randn(3, 40), torch.zeros(1, 9), -torch.rand(4, 33)):
        wsum = torch.hann_window(frames.shape[1]) ** 2
        want = module(TRAILING)(frames, wsum).numpy()
        [got] = session.run(None, {"frames": frames.numpy(), "wsum": wsum.numpy()})
        np.testing.assert_array_equal(got, want)


# nnAudio's own spelling (KinWaiCheuk/nnAudio@ad2d8875f335b0a08098e42a0a2826b89a7fa073
# Installation/nnAudio/features/stft.py:49): a mask whose name says "indices", kept on the module, known to be
# a 1-D bool mask only from the recorded run.
OBSERVED = """import torch


class Inverse(torch.nn.Module):
    def unwindow(self, real):
        real = real * 1.0
        real[:, self.nonzero_indices] = real[:, self.nonzero_indices].div(self.w_sum[self.nonzero_indices])
        return real[:, 1:]
"""


def _index_facts(read: tuple[str, int], operand: tuple[str, int]):
    from pathlib import Path

    from trtcodemod.evidence.facts import Facts

    path = str(Path("snippet.py").resolve())
    line = OBSERVED.splitlines()[6]
    read_text, operand_text = "real[:, self.nonzero_indices]", "self.w_sum[self.nonzero_indices]"
    read_at, operand_at = line.index(read_text, line.index("=")), line.index(operand_text)

    def event(start: int, text: str, kind: str, rank: int) -> dict:
        return {"kind": "index", "path": path, "line": 7, "column": start + 1, "end_line": 7,
                "end_column": start + len(text) + 1, "index": kind, "rank": rank}

    return Facts(runs=3, lines={path: set(range(1, 10))},
                 events=[event(read_at, read_text, *read), event(operand_at, operand_text, *operand)])


@pytest.mark.parametrize("read, operand, fixed", [
    (("tuple(basic,bool:1)", 2), ("bool:1", 1), True),
    (("tuple(basic,bool:1)", 3), ("bool:1", 1), False),  # the mask is not on the last axis
    (("tuple(basic,int64:1)", 2), ("int64:1", 1), False),  # positions, not a mask
    (("tuple(basic,bool:1)", 2), ("bool:1", 2), False),  # `u` is not of the mask's shape
])
def test_trailing_mask_update_from_the_recorded_run(read: tuple[str, int], operand: tuple[str, int],
                                                    fixed: bool) -> None:
    from trtcodemod.engine import Options, check_source, fix_source

    options = Options(select=("TRT202",), unsafe=True, facts=_index_facts(read, operand), scope="all")
    found = check_source(OBSERVED.encode(), "snippet.py", options)
    assert [f.fix.value for f in found] == (["unsafe"] if fixed else []), [f.message for f in found]
    assert check_source(OBSERVED.encode(), "snippet.py", Options(select=("TRT202",), unsafe=True)) == []
    if fixed:
        after = fix_source(OBSERVED.encode(), "snippet.py", options).source.decode()
        assert ("        real = (real / torch.where(self.nonzero_indices, self.w_sum, 1)).to(real.dtype)\n"
                in after), after
