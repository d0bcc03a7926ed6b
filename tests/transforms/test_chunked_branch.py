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


# --- diffusers' VAE slicing: the chunks are a `split`'s pieces, the size test follows a switch in an `and` ----------

SLICED = TESTS / "recipe_variants" / "trt389" / "diffusers_vae_sliced_decode.py"

SPLIT_FORMS = """
import torch


def by_function(z, c, g):
    if len(z) > c:
        y = torch.cat([g(p) for p in torch.split(z, c)])
    else:
        y = g(z)
    return y


def on_another_axis(z, c, g):
    if z.size(1) <= c:
        y = g(z)
    else:
        parts = []
        for p in z.split(c, dim=1):
            parts.append(g(p))
        y = torch.cat(parts, 1)
    return y
"""

SPLIT_LEFT_ALONE = """
import torch


def other_axis(z, c, g):
    if z.shape[1] > c:  # the pieces are along axis 0
        y = torch.cat([g(p) for p in z.split(c)])
    else:
        y = g(z)
    return y


def sections(z, g):
    if z.shape[0] > 2:  # a list of sizes, not a step
        y = torch.cat([g(p) for p in z.split([1, 1])])
    else:
        y = g(z)
    return y


def switch_on_the_whole_branch(z, c, g, flag):
    if flag and z.shape[0] <= c:  # with the switch off, the chunks run at every size
        y = g(z)
    else:
        y = torch.cat([g(p) for p in z.split(c)])
    return y
"""


def test_split_pieces_and_a_switch_are_read_as_chunks(tmp_path: Path) -> None:
    from variant_models import rewritten_variant

    variant = rewritten_variant(SLICED, "TRT389", tmp_path)
    assert "        if not _trt_tracing() and self.use_slicing and z.shape[0] > 1:\n" in variant["source"]
    assert "for z_slice in z.split(1)]" in variant["source"]  # the slices stay for eager mode
    assert variant["safe_only"] == SLICED.read_text()  # unsafe: not without it
    assert rules_found(variant["source"], select=("TRT389",)) == []
    assert rewrite(variant["source"], unsafe=True, select=("TRT389",)) == variant["source"]  # not taken again
    forms = rewrite(SPLIT_FORMS, unsafe=True, select=("TRT389",))
    assert "    if not _trt_tracing() and len(z) > c:\n" in forms
    assert "    if _trt_tracing() or z.size(1) <= c:\n" in forms
    assert rules_found(SPLIT_LEFT_ALONE, select=("TRT389",)) == []


def test_sliced_decode_is_unchanged_in_eager_mode_and_its_graph_follows_the_batch(tmp_path: Path) -> None:
    from variant_models import (assert_eager_unchanged, assert_graph_within, export_variant, graph_matches,
                                rewritten_variant, seeded)

    variant = rewritten_variant(SLICED, "TRT389", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(seeded(0))
    sets = {"batch 1": module.inputs(seeded(2), 1, 6, 5), "batch 3": module.inputs(seeded(3), 3, 7, 9),
            "batch 5, 1 x 1": module.inputs(seeded(4), 5, 1, 1)}
    eager = {**sets, "example": example, "zeros": (torch.zeros(2, 4, 3, 3),), "negatives": (-example[0].abs() - 1,),
             "empty batch": (torch.zeros(0, 4, 6, 5),)}
    assert_eager_unchanged(original, rewritten, eager)
    original.use_slicing = rewritten.use_slicing = False  # the switch off: the whole decode, before as after
    assert_eager_unchanged(original, rewritten, {"example": example, "batch 3": sets["batch 3"]})
    original.use_slicing = rewritten.use_slicing = True
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert graph_matches(before, original, example)
    assert not graph_matches(before, original, sets["batch 3"])  # two slices baked in
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **sets}.items():
        assert_graph_within(after, original, inputs, 1e-5, label)


def test_migrate_takes_the_whole_decode_for_the_sliced_vae() -> None:
    from variant_models import assert_migrate_corrects

    assert_migrate_corrects(SLICED, "TRT389", "trt389_migrate_sliced_vae")


# --- early returns, `or` switches and loops over the number of chunks: VGGT's DPT head, the web UI's attention ------

VGGT = TESTS / "recipe_variants" / "trt389" / "vggt_dpt_head_frame_chunks.py"
SUBQUAD = TESTS / "recipe_variants" / "trt389" / "webui_sub_quadratic_attention.py"
COMFY = TESTS / "recipe_variants" / "trt389" / "comfyui_sub_quadratic_attention.py"

MORE_FORMS = """
import math
import torch


def rounded_up(x, c, g):
    n = x.shape[0]
    if n <= c:
        return g(x)
    return torch.cat([g(x[i * c:(i + 1) * c]) for i in range((n + c - 1) // c)])


def negated_floor(x, c, g):
    n = x.shape[0]
    if c >= n:
        return g(x)
    out = []
    for i in range(-(-n // c)):
        out.append(g(x[i * c:(i + 1) * c]))
    return torch.cat(out)


def elif_chain(self, z, features):
    if self.use_slicing and z.shape[0] > 1:
        decoded = torch.cat([self.decode_one(z_slice) for z_slice in z.split(1)])
    elif features:
        decoded = self.decode_one(z, features)
    else:
        decoded = self.decode_one(z)
    return decoded
"""

MORE_LEFT_ALONE = """
import math
import torch


def switch_on_the_chunks(x, c, g):
    if c is None or x.shape[0] > c:  # with no chunk size, the "chunks" run at every size
        return torch.cat([g(p) for p in x.split(c)])
    return g(x)


def no_return(x, c, g):
    n = x.shape[0]
    if n <= c:  # the body falls through into the chunks: no early return
        x = g(x)
    for i in range(math.ceil(n / c)):
        x = x + i
    return x


def chunks_in_the_elif(x, c, g, flag):
    n = x.shape[0]
    if n <= c:
        y = g(x)
    elif flag:  # the chunks run under their own test
        y = torch.cat([g(p) for p in x.split(c)])
    else:
        y = x
    return y


def another_count(x, c, g):
    n = x.shape[0]
    if n <= c:
        return g(x)
    return torch.cat([g(x[i:i + 1]) for i in range(math.ceil(n / (c + 1)))])
"""


def test_early_returns_or_switches_and_chunk_counts_are_read_as_chunks(tmp_path: Path) -> None:
    from variant_models import assert_unsafe_rewrite, rewritten_variant

    vggt = rewritten_variant(VGGT, "TRT389", tmp_path)
    assert_unsafe_rewrite(vggt, ("        if _trt_tracing() or frames_chunk_size is None or frames_chunk_size >= S:\n",
                                 "for frames_start_idx in range(0, S, frames_chunk_size):"), "TRT389")
    subquad = rewritten_variant(SUBQUAD, "TRT389", tmp_path)
    assert_unsafe_rewrite(subquad, ("    if _trt_tracing() or q_tokens <= query_chunk_size:\n",
                                    "for i in range(math.ceil(q_tokens / query_chunk_size)):"), "TRT389")
    comfy = rewritten_variant(COMFY, "TRT389", tmp_path)
    assert_unsafe_rewrite(comfy, ("    if _trt_tracing() or q_tokens <= query_chunk_size:\n",
                                  "for i in range(math.ceil(q_tokens / query_chunk_size))"), "TRT389")
    for variant in (vggt, subquad, comfy):
        assert rewrite(variant["source"], unsafe=True, select=("TRT389",)) == variant["source"]  # not taken again
    forms = rewrite(MORE_FORMS, unsafe=True, select=("TRT389",))
    assert "    if _trt_tracing() or n <= c:\n" in forms
    assert "    if _trt_tracing() or c >= n:\n" in forms
    assert "    if not _trt_tracing() and self.use_slicing and z.shape[0] > 1:\n" in forms
    assert rules_found(MORE_LEFT_ALONE, select=("TRT389",)) == []


def _eager_sets(module, sizes: list[tuple[int, ...]], empty: tuple[int, ...]) -> dict[str, tuple]:
    from variant_models import seeded

    example = module.inputs(seeded(0))
    sets = {f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in sizes}
    return {"example": example, **sets, "zeros": (torch.zeros_like(example[0]),),
            "negatives": (-example[0].abs() - 1,), "empty": (torch.zeros(empty),)}


@pytest.mark.parametrize("path, sizes, longer, empty", [
    (VGGT, [(1, 1, 2, 2), (2, 3, 4, 6), (3, 8, 6, 4)], (2, 5, 4, 6), (1, 0, 3, 4, 4)),
    (SUBQUAD, [(1, 1), (3, 6), (1, 17)], (2, 13), (2, 0, 8)),
    (COMFY, [(1, 1), (3, 5), (1, 17)], (2, 13), (2, 0, 8)),
], ids=["vggt", "webui", "comfyui"])
def test_eager_mode_is_unchanged_and_the_graph_follows_the_size(tmp_path: Path, path: Path, sizes, longer,
                                                                empty) -> None:
    from variant_models import assert_eager_unchanged, assert_graph_within, export_variant, rewritten_variant

    variant = rewritten_variant(path, "TRT389", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    sets = _eager_sets(module, sizes, empty)
    sets["longer"] = module.inputs(torch.Generator().manual_seed(7), *longer)
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert_graph_within(before, original, example, 1e-5, "the original on its example")
    with pytest.raises(Exception):  # noqa: B017 - the example's chunks at fixed offsets: other values or a refusal
        assert_graph_within(before, original, sets["longer"], 1e-5, "longer")
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        if label != "empty":
            assert_graph_within(after, original, inputs, 1e-5, label)


@pytest.mark.parametrize("path", [VGGT, SUBQUAD, COMFY], ids=["vggt", "webui", "comfyui"])
def test_migrate_takes_the_whole_computation(path: Path) -> None:
    from variant_models import assert_migrate_corrects

    assert_migrate_corrects(path, "TRT389", f"trt389_migrate_{path.stem}")


def test_the_variants_are_cited_by_distinct_owners() -> None:
    """diffusers, VGGT, the web UI and ComfyUI at full commits; anomalib's PatchCore is cited at its release tag
    (v2.7.0), the stored snapshot of that file being a version without the chunks."""
    from variant_models import assert_cited_by_distinct_owners

    folder = TESTS / "recipe_variants" / "trt389"
    names = [path.stem for path in (SLICED, VGGT, SUBQUAD, COMFY)]
    assert_cited_by_distinct_owners(folder, names, count=4)
    assert "open-edge-platform/anomalib at tag v2.7.0" in VARIANT.read_text()
