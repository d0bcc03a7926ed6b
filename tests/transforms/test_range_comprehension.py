"""TRT736: a comprehension over `range(n)` made a tensor, evaluated on `torch.arange` while tracing.

lafhterlearn 0.7.1's attention prior (models.py:134-137, `list(reversed([i / num_embeddings for i in
range(num_embeddings)]))` then `torch.tensor(..., device=device)`, in our own words, with the size read in the same
function; in lafhterlearn it is a helper's argument, which migrate takes where the observed export warns) and the inline forms a grid or a
scale table takes (`torch.tensor([i * s + 0.5 for i in range(w)])`, integer steps with `range(a, b, c)`): the
rewrite's text, eager mode unchanged, and the TorchScript export of the rewritten model following the width in ONNX
Runtime where the original's graph keeps the example's list. Not taken: a comprehension with an `if`, one calling a
function, one whose list is read elsewhere, one over a range of configuration numbers (timm's RegNet widths).
"""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

RULE = ("TRT736",)

SOURCE = '''
import torch
from torch import nn


class Prior(nn.Module):
    def forward(self, x):
        b, w = x.shape[0], x.shape[-1]
        num_embeddings, device = x.shape[1], x.device
        weights = list(
            reversed([i / num_embeddings for i in range(num_embeddings)])
        )
        weights = torch.tensor(weights, device=device)
        prior = weights.unsqueeze(0).repeat(b, 1)
        grid = torch.tensor([i * 2.5 + 0.5 for i in range(w)])
        steps = torch.LongTensor([-(i // 2) for i in range(1, w + 1, 2)])
        return x * prior + grid, steps
'''


def _inputs(batch: int, width: int, seed: int) -> torch.Tensor:
    return torch.randn(batch, width, generator=torch.Generator().manual_seed(seed))


def test_the_three_lists_are_rewritten() -> None:
    assert rules_found(SOURCE, select=RULE) == ["TRT736"] * 3
    after = rewrite(SOURCE, unsafe=True, select=RULE)
    lines = after.splitlines()
    assert ("            weights = _trt_range_values((torch.arange(num_embeddings)) / num_embeddings, "
            "torch.arange(num_embeddings), flip=True)") in lines
    assert ("        weights = (weights.to(device=device) if isinstance(weights, torch.Tensor) else "
            "torch.tensor(weights, device=device))") in lines
    assert ("        grid = (_trt_range_values((torch.arange(w)) * 2.5 + 0.5, torch.arange(w)) if not "
            "torch.jit.is_scripting() and _trt_tracing() else torch.tensor([i * 2.5 + 0.5 for i in range(w)]))") in lines
    assert ("        steps = (_trt_range_values(-((torch.arange(1, w + 1, 2)) // 2), torch.arange(1, w + 1, 2))"
            ".to(dtype=torch.long) if not torch.jit.is_scripting() and _trt_tracing() else "
            "torch.LongTensor([-(i // 2) for i in range(1, w + 1, 2)]))") in lines
    assert rewrite(after, unsafe=True, select=RULE) == after  # once rewritten, left


def test_a_scripted_caller_still_compiles(tmp_path) -> None:
    # the comprehensions script; the rewrite writes no lambda, so the rewritten module scripts too and runs the
    # comprehensions (the tracing branch is never taken there)
    # (TorchScript has no `reversed` of a list: the prior's list is bound without it here)
    scriptable = SOURCE.replace("list(\n            reversed([i / num_embeddings for i in range(num_embeddings)])\n        )",
                                "[i / num_embeddings for i in range(num_embeddings)]")
    assert scriptable != SOURCE and rules_found(scriptable, select=RULE) == ["TRT736"] * 3
    before = torch.jit.script(import_source(scriptable, tmp_path)["Prior"]())
    after = torch.jit.script(import_source(rewrite(scriptable, unsafe=True, select=RULE), tmp_path)["Prior"]())
    for x in (_inputs(2, 5, 1), -_inputs(3, 8, 2)):
        for a, b in zip(before(x), after(x)):
            assert torch.equal(a, b) and a.dtype == b.dtype


def test_eager_mode_is_unchanged(tmp_path) -> None:
    before = import_source(SOURCE, tmp_path)["Prior"]()
    after = import_source(rewrite(SOURCE, unsafe=True, select=RULE), tmp_path)["Prior"]()
    for x in (_inputs(2, 5, 1), torch.zeros(1, 1), -_inputs(3, 8, 2), _inputs(0, 4, 3), _inputs(1, 0, 4)):
        assert_same_run(run_once(before, [x]), run_once(after, [x]))


def _session(model: torch.nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (_inputs(2, 6, 0),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          output_names=["y", "steps"], dynamic_axes={"x": {0: "b", 1: "w"}, "y": {0: "b", 1: "w"},
                                                                     "steps": {0: "s"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_rewritten_graph_follows_the_width(tmp_path) -> None:
    original = import_source(SOURCE, tmp_path)["Prior"]()
    rewritten = import_source(rewrite(SOURCE, unsafe=True, select=RULE), tmp_path)["Prior"]()
    x = _inputs(3, 9, 5)
    with pytest.raises(Exception):  # the original's graph keeps six weights and grid points
        _session(original).run(None, {"x": x.numpy()})
    session = _session(rewritten)
    for x in (x, _inputs(1, 6, 6), -_inputs(2, 13, 7), torch.zeros(1, 2)):
        want = original(x)
        got = session.run(None, {"x": x.numpy()})
        torch.testing.assert_close(torch.from_numpy(got[0]), want[0])
        assert torch.equal(torch.from_numpy(got[1]), want[1])


def test_other_comprehensions_are_left() -> None:
    for changed in ("[i / num_embeddings for i in range(num_embeddings) if i]",
                    "[abs(i) / num_embeddings for i in range(num_embeddings)]"):
        assert rules_found(SOURCE.replace("[i / num_embeddings for i in range(num_embeddings)]", changed),
                           select=RULE) == ["TRT736"] * 2
    config = "import torch\n\n\ndef groups(num_stages, size):\n    return torch.tensor([size for _ in range(num_stages)])\n"
    assert rules_found(config, select=RULE) == []
    read_twice = SOURCE.replace("weights = torch.tensor(weights, device=device)",
                                "weights = torch.tensor(weights, device=device) * len(weights)")
    assert rules_found(read_twice, select=RULE) == ["TRT736"] * 2
