"""TRT722's fix: ``copy.deepcopy`` through ``_trt_deepcopy``, which the exporters can follow.

The rewrite is shown, the rewritten module is run against the original on edge values
(eager: the same call; under both ONNX exporters: a graph that follows the inputs where the
original's froze the copy or did not export at all), and the export-time copy is checked
against ``copy.deepcopy`` itself: values, dtypes, aliasing, what it hands back to deepcopy.
"""

from __future__ import annotations

import copy
import io
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch

from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite
from trtcodemod.helpers.copying import _trt_deepcopy, _trt_deepcopy_traced

BEFORE = '''\
import copy

import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        feats = [x, x * 2, {"a": x - 1}]
        saved = copy.deepcopy(feats)
        feats[0].mul_(3)
        return feats[0] + saved[1] + saved[2]["a"] + saved[0]
'''

EDGE = [torch.tensor([[0.0, -0.0, 1.5], [-2.0, float("inf"), float("nan")]]), torch.zeros(0, 3),
        torch.randn(4, 3), torch.full((1, 3), -1.0)]


def test_the_rewrite_calls_the_helper_with_the_users_deepcopy() -> None:
    after = rewrite(BEFORE, select=("TRT722",))
    assert "saved = _trt_deepcopy(copy.deepcopy, feats)" in after
    assert "def _trt_deepcopy(" in after and rewrite(after, select=("TRT722",)) == after
    # copy.copy and a deepcopy given its own memo are only reported.
    for kept in ("copy.copy(feats)", "copy.deepcopy(feats, {})"):
        source = BEFORE.replace("copy.deepcopy(feats)", kept)
        assert rewrite(source, unsafe=True, select=("TRT722",)) == source


def _modules(tmp_path: Path) -> tuple[type, type]:
    before = import_source(BEFORE, tmp_path)["M"]
    after = import_source(rewrite(BEFORE, select=("TRT722",)), tmp_path)["M"]
    return before, after


@pytest.mark.parametrize("x", EDGE, ids=["edges", "empty", "random", "row"])
def test_eager_and_the_toolchains_run_the_original_copy(tmp_path: Path, x: torch.Tensor) -> None:
    before, after = _modules(tmp_path)
    assert_same_run(run_once(before(), [x]), run_once(after(), [x]))
    original, rewritten = toolchain_outcomes(before, [x], tmp_path), toolchain_outcomes(after, [x], tmp_path)
    for name, outcome in original.items():
        if isinstance(outcome, Exception):
            continue  # scripting refuses copy.deepcopy in both
        assert torch.equal(outcome.nan_to_num(), rewritten[name].nan_to_num()), name


def _onnx_outputs(module: torch.nn.Module, trace_with: torch.Tensor, feed: list[torch.Tensor], dynamo: bool):
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(module, (trace_with,), dynamo=True, input_names=["x"],
                                        dynamic_axes={"x": {0: "n"}}, verbose=False)
            program.save(buffer)
        else:
            torch.onnx.export(module, (trace_with,), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "n"}})
    session = ort.InferenceSession(buffer.getvalue())
    return [torch.from_numpy(session.run(None, {"x": x.numpy()})[0]) for x in feed]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_exported_graph_follows_the_inputs(tmp_path: Path, dynamo: bool) -> None:
    before, after = _modules(tmp_path)
    trace_with = torch.randn(3, 3)
    feed = [x for x in EDGE if x.shape[0] > 0] + [torch.randn(7, 3)]
    expected = [after()(x.clone()) for x in feed]
    got = _onnx_outputs(after(), trace_with, feed, dynamo)
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e, equal_nan=True)
    # The original froze the copies (TorchScript) or did not export (dynamo): the reason for the rule.
    try:
        frozen = _onnx_outputs(before(), trace_with, feed, dynamo)
    except Exception:  # noqa: BLE001 - the dynamo exporter refuses copy.deepcopy
        assert dynamo
    else:
        assert not all(torch.allclose(f, e, equal_nan=True) for f, e in zip(frozen, expected))


def test_the_export_time_copy_is_deepcopy_for_what_it_handles() -> None:
    x = torch.randn(3)
    param = torch.nn.Parameter(torch.ones(2))
    shared = [x, x, (x, {"k": x}), param, None, 3, "s"]
    copied = _trt_deepcopy_traced(copy.deepcopy, shared, {})
    reference = copy.deepcopy(shared)
    assert type(copied) is list and len(copied) == len(reference)
    assert torch.equal(copied[0], x) and copied[0] is not x
    # One object, copied once: the aliasing deepcopy's memo keeps, ours keeps.
    assert copied[0] is copied[1] is copied[2][0] is copied[2][1]["k"]
    assert reference[0] is reference[1] is reference[2][0]
    assert isinstance(copied[3], torch.nn.Parameter) and copied[3] is not param  # handed to deepcopy
    assert copied[4:] == [None, 3, "s"]
    looped: list = [x]
    looped.append(looped)
    again = _trt_deepcopy_traced(copy.deepcopy, looped, {})
    assert again[1] is again and torch.equal(again[0], x)
    # Outside an export the helper is the user's function, called as it was.
    calls = []
    assert _trt_deepcopy(lambda v: calls.append(v) or "copied", shared) == "copied" and calls == [shared]


def test_a_grad_requiring_non_leaf_still_goes_to_deepcopy() -> None:
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError):
        copy.deepcopy(y)
    with pytest.raises(RuntimeError):
        _trt_deepcopy_traced(copy.deepcopy, [y], {})


# --- copies that share memory: deepcopy keeps the sharing, so must the export ----------

SHARED = '''\
import copy

import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        full = x * 1
        saved = copy.deepcopy({"full": full, "row": full[0], "col": full[:, 1]})
        saved[WRITE].add_(10)
        return saved["full"] * 1, saved["row"] * 1, saved["col"] * 1
'''

SHARED_EDGE = [torch.tensor([[0.0, -0.0, 1.5], [-2.0, float("inf"), float("nan")]]), torch.randn(4, 3),
               torch.full((1, 3), -1.0)]


def _shared_modules(tmp_path: Path, write: str) -> tuple[type, type]:
    source = SHARED.replace("WRITE", repr(write))
    after = rewrite(source, select=("TRT722",))
    assert "saved = _trt_deepcopy(copy.deepcopy, {" in after
    return import_source(source, tmp_path)["M"], import_source(after, tmp_path)["M"]


@pytest.mark.parametrize("write", ["full", "row", "col"])
def test_a_copy_of_a_tensor_and_its_views_keeps_them_views_under_the_dynamo_exporter(
        tmp_path: Path, write: str) -> None:
    before, after = _shared_modules(tmp_path, write)
    for x in SHARED_EDGE:
        assert_same_run(run_once(before(), [x]), run_once(after(), [x]))
    trace_with = torch.randn(3, 3)
    feed = SHARED_EDGE + [torch.randn(7, 3)]
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(after(), (trace_with,), dynamo=True, input_names=["x"],
                          dynamic_axes={"x": {0: "n"}}, verbose=False).save(buffer)
    session = ort.InferenceSession(buffer.getvalue())
    for x in feed:
        expected = before()(x.clone())  # the original, eager: the write shows in every view
        got = session.run(None, {"x": x.numpy()})
        assert len(got) == 3
        for e, g in zip(expected, got):
            torch.testing.assert_close(torch.from_numpy(g), e, equal_nan=True)


def test_the_torchscript_exporter_is_refused_a_copy_it_would_unshare(tmp_path: Path) -> None:
    before, after = _shared_modules(tmp_path, "full")
    with pytest.raises(RuntimeError, match="share memory.*TorchScript exporter"):
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(after(), (torch.randn(3, 3),), io.BytesIO(), dynamo=False, input_names=["x"])


@pytest.mark.parametrize("make", [lambda x: [x, x.detach()], lambda x: [x, x.view(torch.int32)],
                                  lambda x: [torch.nn.Parameter(x)[0], torch.nn.Parameter(x)[1]]],
                         ids=["detach", "dtype", "parameter-views"])
def test_sharing_the_export_cannot_rebuild_is_refused(make) -> None:
    class Copy(torch.nn.Module):
        def forward(self, x):
            held = make(x * 1)
            copied = _trt_deepcopy(copy.deepcopy, held)
            return copied[0] * 1

    with pytest.raises(Exception, match="share memory.*not all views of one dense tensor"):
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(Copy(), (torch.randn(3, 3),), dynamo=True, verbose=False)


def test_views_of_a_tensor_left_out_of_the_copy_still_share_its_copy() -> None:
    class Copy(torch.nn.Module):
        def forward(self, x):
            full = x * 1
            copied = _trt_deepcopy(copy.deepcopy, (full[0:2], full[1:3]))
            copied[0].add_(10)
            return copied[1] * 1

    x = torch.arange(12.0).reshape(4, 3)
    expected = Copy()(x)
    assert torch.equal(expected[0], x[1] + 10)  # eager deepcopy: the overlap row was written
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Copy(), (x,), dynamo=True, input_names=["x"], verbose=False).save(buffer)
    got = ort.InferenceSession(buffer.getvalue()).run(None, {"x": x.numpy()})[0]
    torch.testing.assert_close(torch.from_numpy(got), expected)
