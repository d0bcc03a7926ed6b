"""The promoted-operands recipe (TRT370) on real-code variants.

Each variant in ``tests/recipe_variants/trt370/`` is a small runnable model reduced from public code (cited in
its docstring) that multiplies integer positions by float frequencies with ``einsum`` or ``outer`` in
``forward``, in the form the original writes it: timesformer-pytorch's frame rotary (``seq`` from
``torch.arange``, ``from torch import einsum``; migrated in ``tests/transforms/test_promoted_operands.py``),
x-transformers' scaled sinusoidal embedding (``arange`` itself imported from torch, plus an offset),
stable-audio-tools' copy of it (positions under ``if pos is None``, starts subtracted under another test), V-JEPA
2's 3D rotary attention (int64 token indices split into frame, row and column by floor division, an ellipsis
equation in a module-level function), perceiver-io's rotary frequency encoding (batched int64 positions shifted
by left padding and clamped, a spaced two-operand equation), TRELLIS's voxel position embedder (``torch.outer``
of int32 sparse-voxel coordinates, whose integer product the TorchScript export hands to ``Sin``/``Cos``) and
FLUX.1's first N-d rotary embedding (float32 ids times float64 frequencies: two float types, not an integer).

For each: the rule finds the call from the code alone and rewrites it; eager mode is unchanged (outputs,
gradients, exceptions) on the example and on edge sets of its inputs (one and many tokens, zeros, negatives,
inf/NaN, an empty batch, and each variant's own: a row all padding, coordinates at 0 and far out, far and
negative ids); the original's
TorchScript graph is refused by ONNX Runtime at load (an ``Einsum`` of int64 and float, or of float and double, or
an int32 product at a ``Sin``/``Cos``); the rewritten graph equals eager mode (values, dtype, shape) on every set.
``migrate`` applies TRT370 at the x-transformers line and at TRELLIS's ``outer`` (refused at the ``Cos`` below
it), verifies it and ends with exit 0.

Not counted: Meta's llama (``llama/model.py:101-102``), gpt-fast (``model.py:274-275``) and their ports write
``torch.outer(torch.arange(end), freqs)`` of an int64 range too (the form TRT370 takes for ``outer``), but
call it in ``__init__`` or a cache setup, so the export sees a constant of eager mode's values: no case where
the fix shows. TRELLIS's sparse-structure flow model calls the same embedder on an int64 ``arange`` grid, but in
``__init__`` (a buffer): likewise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import migrate_json, rules_found
from variant_models import (assert_eager_unchanged, axes_json, built_variant, export_variant, input_names, line_of,
                            load_variant, seeded, seeded_rand, seeded_specials)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt370"


#: variant -> the line of the call the rule finds, and what the rewrite makes of its start
VARIANTS = {
    "timesformer_frame_rotary": ("freqs = einsum('i, j -> i j', seq, self.inv_freqs)",
                                 "_trt_promoted_einsum('i, j -> i j', [seq, self.inv_freqs])"),
    "x_transformers_scaled_sinusoidal": ("emb = einsum('i, j -> i j', pos, self.inv_freq)",
                                         "_trt_promoted_einsum('i, j -> i j', [pos, self.inv_freq])"),
    "stable_audio_scaled_sinusoidal": ("emb = einsum('i, j -> i j', pos, self.inv_freq)",
                                       "_trt_promoted_einsum('i, j -> i j', [pos, self.inv_freq])"),
    "vjepa2_rope_attention": ('freq = torch.einsum("..., f -> ... f", pos, omega)',
                              '_trt_promoted_einsum("..., f -> ... f", [pos, omega])'),
    "perceiver_io_frequency_positions": ('pos_enc = torch.einsum("b n, f -> b n f", abs_pos, self.inv_freq)',
                                         '_trt_promoted_einsum("b n, f -> b n f", [abs_pos, self.inv_freq])'),
    "trellis_voxel_positions": ("out = torch.outer(x, self.freqs)", "_trt_promoted_outer(x, self.freqs)"),
    "flux_rope_embednd": ('out = torch.einsum("...n,d->...nd", pos, omega)',
                          '_trt_promoted_einsum("...n,d->...nd", [pos, omega])'),
}
#: How ONNX Runtime refuses each original graph at load
EINSUM_REFUSAL = r"Optype \(Einsum\) bound to different types \(tensor\(int64\)"
REFUSALS = {name: EINSUM_REFUSAL for name in VARIANTS}
REFUSALS["flux_rope_embednd"] = r"Optype \(Einsum\) bound to different types \(tensor\(float\) and tensor\(double\)"
REFUSALS["trellis_voxel_positions"] = r"Type 'tensor\(int32\)' of input parameter \(\S+\) of operator \((Sin|Cos)\)"
#: The edge sets of the variants whose input is one float tensor of (batch, tokens, 8)
SETS = {
    "one-token": (seeded_rand(2, 1, 8, seed=2),),
    "many-tokens": (seeded_rand(1, 257, 8, seed=3),),
    "zeros": (torch.zeros(3, 4, 8),),
    "negatives": (-seeded_rand(2, 5, 8, seed=5, scale=7),),
    "inf-nan": (seeded_specials(2, 6, 8, seed=6),),
    "no-batch": (torch.zeros(0, 5, 8),),
}
#: V-JEPA 2's tokens are frames of 2 by 2 patches, traced at 8 tokens of 24 channels: the batch varies
GRID_SETS = {
    "one-clip": (seeded_rand(1, 8, 24, seed=2),),
    "many-clips": (seeded_rand(9, 8, 24, seed=3),),
    "zeros": (torch.zeros(3, 8, 24),),
    "negatives": (-seeded_rand(2, 8, 24, seed=5, scale=7),),
    "inf-nan": (seeded_specials(2, 8, 24, seed=6),),
    "no-batch": (torch.zeros(0, 8, 24),),
}


def _padded(rows: int, tokens: int, left: list[int]) -> torch.Tensor:
    mask = torch.zeros(rows, tokens, dtype=torch.bool)
    for row, count in enumerate(left):
        mask[row, :count] = True
    return mask


#: perceiver-io's tokens come with a left-padding mask: the shift of every row's positions
PADDED_SETS = {
    "one-token": (seeded_rand(2, 1, 8, seed=2), _padded(2, 1, [0, 0])),
    "many-tokens": (seeded_rand(1, 257, 8, seed=3), _padded(1, 257, [100])),
    "zeros": (torch.zeros(3, 4, 8), _padded(3, 4, [0, 1, 3])),
    "all-padding": (seeded_rand(2, 5, 8, seed=4), _padded(2, 5, [5, 5])),
    "negatives": (-seeded_rand(2, 5, 8, seed=5, scale=7), _padded(2, 5, [2, 0])),
    "inf-nan": (seeded_specials(2, 6, 8, seed=6), _padded(2, 6, [1, 0])),
    "no-batch": (torch.zeros(0, 5, 8), _padded(0, 5, [])),
}
#: TRELLIS's voxels: features and int32 coordinates, any number of voxels
VOXEL_SETS = {
    "one-voxel": (seeded_rand(1, 4, seed=2), torch.tensor([[3, 1, 4]], dtype=torch.int32)),
    "many-voxels": (seeded_rand(257, 4, seed=3), torch.randint(0, 64, (257, 3), generator=seeded(3),
                                                                dtype=torch.int32)),
    "origin": (torch.zeros(3, 4), torch.zeros(3, 3, dtype=torch.int32)),
    "far-out": (seeded_rand(4, 4, seed=4), torch.tensor([[255, 0, 17], [1023, 1023, 1023], [0, 511, 2],
                                                         [64, 64, 64]], dtype=torch.int32)),
    "negatives": (-seeded_rand(5, 4, seed=5, scale=7), torch.randint(0, 64, (5, 3), generator=seeded(5),
                                                                     dtype=torch.int32)),
    "inf-nan": (seeded_specials(6, 4, seed=6), torch.randint(0, 64, (6, 3), generator=seeded(6),
                                                              dtype=torch.int32)),
    "no-voxels": (torch.zeros(0, 4), torch.zeros(0, 3, dtype=torch.int32)),
}
#: Sets with no graph to compare with eager mode (``test_eager_mode_is_unchanged`` runs them all):
NOT_COMPARED = {
    # The pairs' reshape (timesformer), the qkv's unflatten (V-JEPA 2) and the turned pairs' reshape
    # (perceiver-io) export as a Reshape with a -1 beside the empty batch (to (0, n, -1, 2), (0, 8, 3, 2, -1),
    # (0, 1, 5, -1)), which ONNX Runtime refuses for an empty tensor before and after (not this recipe's: TRT367's).
    ("timesformer_frame_rotary", "no-batch"), ("vjepa2_rope_attention", "no-batch"),
    ("perceiver_io_frequency_positions", "no-batch"),
    # TRELLIS's embedder reshapes the embedding of 0 voxels to (0, -1), FLUX's ``apply_rope`` the queries of an
    # empty batch to (0, 2, 5, -1, 1, 2): eager mode raises, before and after.
    ("trellis_voxel_positions", "no-voxels"), ("flux_rope_embednd", "no-batch"),
}


def _ids(rows: int, tokens: int, scale: float = 1.0) -> torch.Tensor:
    """FLUX's (time, row, column) ids of ``tokens`` tokens in rows of 3, times ``scale``."""
    ids = torch.zeros(rows, tokens, 3)
    ids[..., 1] = torch.arange(tokens).float() // 3
    ids[..., 2] = torch.arange(tokens).float() % 3
    return ids * scale


#: FLUX's tokens come with float32 ids: far ones (where float32 and float64 phases part), negative ones
ID_SETS = {
    "one-token": (seeded_rand(2, 1, 16, seed=2), _ids(2, 1)),
    "many-tokens": (seeded_rand(1, 257, 16, seed=3), _ids(1, 257)),
    "zeros": (torch.zeros(3, 4, 16), torch.zeros(3, 4, 3)),
    "far-ids": (seeded_rand(2, 5, 16, seed=4), _ids(2, 5, scale=4099.5)),
    "negatives": (-seeded_rand(2, 5, 16, seed=5, scale=7), _ids(2, 5, scale=-3.0)),
    "inf-nan": (seeded_specials(2, 6, 16, seed=6), _ids(2, 6)),
    "no-batch": (torch.zeros(0, 5, 16), torch.zeros(0, 5, 3)),
}
EDGE_SETS = {"flux_rope_embednd": ID_SETS, "vjepa2_rope_attention": GRID_SETS, "perceiver_io_frequency_positions": PADDED_SETS,
             "trellis_voxel_positions": VOXEL_SETS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    options = Options(select=("TRT370",), scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    line, rewritten = VARIANTS[name]
    assert [(f.rule, f.line) for f in findings] == [("TRT370", line_of(path, line))], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert rewritten in new_source
    assert rules_found(new_source, select=("TRT370",)) == []


@pytest.fixture(scope="module", params=list(VARIANTS))
def graphs(request, tmp_path_factory) -> dict:
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt370_o_{name}")
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=("TRT370",), scope="all")).source.decode())
    _, rewritten = built_variant(new_path, f"trt370_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    return {"name": name, "module": module, "path": path, "folder": folder, "original": original,
            "rewritten": rewritten, "after": after, "sets": {"example": example, **EDGE_SETS.get(name, SETS)}}


def test_eager_mode_is_unchanged(graphs) -> None:
    assert_eager_unchanged(graphs["original"], graphs["rewritten"], graphs["sets"])


def test_the_originals_graph_is_refused_at_load(graphs) -> None:
    example = graphs["sets"]["example"]
    with pytest.raises(Exception, match=REFUSALS[graphs["name"]]):
        export_variant(graphs["original"], example, graphs["module"].DYNAMIC, graphs["folder"] / "before.onnx",
                       graphs["path"].parent)


def test_the_rewritten_graph_equals_eager_mode(graphs) -> None:
    session: ort.InferenceSession = graphs["after"]
    for label, inputs in graphs["sets"].items():
        if (graphs["name"], label) in NOT_COMPARED:
            continue
        with torch.no_grad():
            want = graphs["original"](*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(graphs["original"]), inputs)})
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), label


def test_migrate_applies_trt370_where_the_einsum_is_refused() -> None:
    path = HERE / "x_transformers_scaled_sinusoidal.py"
    module = load_variant(path, "trt370_m_xtransformers")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT370", line_of(path, VARIANTS["x_transformers_scaled_sinusoidal"][0]))], applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])


def test_migrate_applies_trt370_where_the_integer_outer_reaches_a_cosine() -> None:
    """TRELLIS's ``outer`` is refused a line below it (the ``Cos`` of its int32 product): the plan ties the refusal
    to the line that made the refused input."""
    path = HERE / "trellis_voxel_positions.py"
    module = load_variant(path, "trt370_m_trellis")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT370", line_of(path, VARIANTS["trellis_voxel_positions"][0]))], applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
