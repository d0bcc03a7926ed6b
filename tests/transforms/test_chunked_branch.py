"""TRT389: a computation done whole or in chunks by a size test, taken whole while tracing."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from support import TESTS, assert_same, import_file, load, ort_session, rewrite, rules_found

VARIANT = TESTS / "recipe_variants" / "trt389" / "anomalib_patchcore_chunked_search.py"

FLIPPED = """
import torch
from torch import nn


def attention(q, k):
    return torch.softmax(q @ k.transpose(-2, -1), -1) @ k


class Chunked(nn.Module):
    def forward(self, q, k, chunk: int = 4):
        if q.shape[1] > chunk:
            out = torch.cat([attention(q[:, s:s + chunk], k) for s in range(0, q.shape[1], chunk)], 1)
        else:
            out = attention(q, k)
        return out
"""

NOT_CHUNKS = """
def f(x, n, c):
    if n <= c:
        y = x
    else:
        for s in range(0, n, c + 1):  # another step than the test's bound
            x = x + s
        y = x
    if n <= c:
        for s in range(0, n, c):  # the loop in the whole branch too
            x = x + s
    else:
        for s in range(0, n, c):
            x = x - s
    return y, x
"""


def _graph(model: torch.nn.Module, example: tuple, axes: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17, input_names=list(axes),
                          dynamic_axes=axes)
    return buffer.getvalue()


def _variant_pair(tmp_path: Path):
    source = rewrite(VARIANT.read_text(), unsafe=True, select=("TRT389",))
    path = tmp_path / "rewritten_patchcore.py"
    path.write_text(source)
    original = import_file(VARIANT, "trt389_original").build().eval()
    rewritten = import_file(path, "trt389_rewritten").build().eval()
    rewritten.load_state_dict(original.state_dict())
    return source, original, rewritten


def test_rewrite_takes_the_whole_computation_while_tracing(tmp_path: Path) -> None:
    source, _, _ = _variant_pair(tmp_path)
    assert "        if _trt_tracing() or n <= chunk_size:\n" in source
    assert "for start_idx in range(0, n, chunk_size):" in source  # the chunks stay for eager mode
    assert rewrite(VARIANT.read_text(), select=("TRT389",)) == VARIANT.read_text()  # unsafe: not without it
    flipped = rewrite(FLIPPED, unsafe=True, select=("TRT389",))
    assert "        if not _trt_tracing() and q.shape[1] > chunk:\n" in flipped
    assert rules_found(NOT_CHUNKS, select=("TRT389",)) == []


def test_eager_mode_and_scripting_are_unchanged(tmp_path: Path) -> None:
    _, original, rewritten = _variant_pair(tmp_path)
    generator = torch.Generator().manual_seed(1)
    for shape in [(2, 3, 8, 10), (1, 3, 2, 2), (3, 3, 12, 14)]:  # 40, 1 and 126 patches
        x = torch.rand(*shape, generator=generator)
        for sample in (x, -x, torch.zeros_like(x)):
            assert_same(original(sample), rewritten(sample))
    x = torch.full((1, 3, 4, 4), float("nan"))
    assert_same(original(x), rewritten(x))
    for model in (original, rewritten):  # an empty batch: no patches, and the same error either way
        with pytest.raises(RuntimeError, match="0 elements"):
            model(torch.zeros(0, 3, 8, 10))
    # PatchCore's module-level chunk size does not script (before as after); the flipped form does.
    path = tmp_path / "flipped.py"
    path.write_text(rewrite(FLIPPED, unsafe=True, select=("TRT389",)))
    flipped_before, flipped_after = load(FLIPPED, "Chunked")(), import_file(path, "trt389_flipped").Chunked()
    scripted = torch.jit.script(flipped_after)
    for length in (0, 3, 4, 9):
        q, k = torch.randn(2, length, 5), torch.randn(2, 6, 5)
        assert_same(flipped_before(q, k), flipped_after(q, k))
        assert_same(flipped_before(q, k), scripted(q, k))


def test_trace_follows_the_size_where_the_chunks_were_baked(tmp_path: Path) -> None:
    """Traced at 40 patches (three chunks of 16) and at 126 (eight), the original's graphs differ: the trace kept
    each example's number of chunks. The rewritten model's graphs are one graph, which equals eager mode at every
    size, the chunked sizes included."""
    _, original, rewritten = _variant_pair(tmp_path)
    axes = {"x": {0: "batch", 2: "height", 3: "width"}}
    small, large = (torch.rand(2, 3, 8, 10),), (torch.rand(3, 3, 12, 14),)

    def ops(model, example):
        return [node.op_type for node in onnx.load_from_string(_graph(model, example, axes)).graph.node]

    assert ops(original, small) != ops(original, large)
    assert ops(rewritten, small) == ops(rewritten, large)
    assert "Loop" not in ops(rewritten, small)
    session = ort_session(_graph(rewritten, large, axes))
    for shape in [(1, 3, 2, 2), (2, 3, 8, 10), (4, 3, 16, 18)]:
        x = torch.rand(*shape)
        got = session.run(None, {"x": x.numpy()})
        for graph_value, eager_value in zip(got, original(x)):
            np.testing.assert_allclose(graph_value, eager_value.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_dynamo_export_takes_the_whole_computation(tmp_path: Path) -> None:
    _, original, rewritten = _variant_pair(tmp_path)
    batch = torch.export.Dim("batch", min=1, max=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(rewritten, (torch.rand(2, 3, 8, 10),), dynamo=True, verbose=False,
                                    dynamic_shapes=({0: batch},))
    session = ort_session(program.model_proto.SerializeToString())
    for batch_size in (1, 5):
        x = torch.rand(batch_size, 3, 8, 10)
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        for graph_value, eager_value in zip(got, original(x)):
            np.testing.assert_allclose(graph_value, eager_value.detach().numpy(), rtol=1e-5, atol=1e-5)
