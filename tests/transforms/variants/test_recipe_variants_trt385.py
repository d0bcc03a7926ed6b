"""The integer-bitwise rule (TRT385) on real-code variants: XOR, AND and OR of integer tensors.

Each variant in ``tests/recipe_variants/trt385/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): nerfstudio's torch hash encoding (``torch.bitwise_xor`` of voxel corners times
primes), Point Transformer V3's z-order serialization (``|`` of lookup-table reads indexed by ``x & mask``, the batch
index shifted above them), O-CNN's shuffled-key decoding (``x | (DX[k] << 3i)`` in a loop from ``torch.zeros_like``),
a mip-NeRF hash-grid encoder (``(c0 * p0) ^ (c1 * p1) ^ (c2 * p2)`` masked by ``&``, in a function of the file
called with stacked corners) and a bigram hash of token ids (``torch.bitwise_xor(36313 * t[..., 1:], 27191 * t[...,
:-1]) % mod``). The TorchScript exporter has no ONNX operator for a bitwise operator on integers, so every original's
export stops. Rewritten from the code alone by the safe rule (no ``--unsafe``), eager mode is unchanged and the graph,
exported with dynamic axes, equals eager mode exactly in ONNX Runtime at other sizes. ``migrate`` applies TRT385 at
the line and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from variant_models import assert_cited_by_distinct_owners, assert_migrate_applies, assert_safe_rewrite_exports

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt385"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its operations become from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "nerfstudio_hash_grid": ("x = _trt_bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])",
                             "x = _trt_bitwise_xor(x, in_tensor[..., 2])"),
    "ptv3_z_order_serialization": (
        "key = _trt_bitwise_or(_trt_bitwise_or(EX[_trt_bitwise_and(x, mask)], EY[_trt_bitwise_and(y, mask)]), "
        "EZ[_trt_bitwise_and(z, mask)])",
        "code = _trt_bitwise_or(batch << depth * 3, code)"),
    "ocnn_shuffled_key_decode": ("key = _trt_bitwise_and(key, (1 << 48) - 1)",
                                 "x = _trt_bitwise_or(x, DX[k] << (i * 3))"),
    "mipnerf_hash_grid": (
        "return _trt_bitwise_and(_trt_bitwise_xor(_trt_bitwise_xor(coords[:, 0] * _PRIMES[0], coords[:, 1] * "
        "_PRIMES[1]), coords[:, 2] * _PRIMES[2]), size_mask)",),
    "bigram_hash_embedding": (
        "out[..., 1:] = _trt_bitwise_xor(36313 * t[..., 1:], 27191 * t[..., :-1]) % mod",),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "nerfstudio_hash_grid": [(1,), (4,), (33,)],
    "ptv3_z_order_serialization": [(1,), (5,), (40,)],
    "ocnn_shuffled_key_decode": [(1,), (5,), (40,)],
    "mipnerf_hash_grid": [(1,), (4,), (33,)],
    "bigram_hash_embedding": [(1, 2), (3, 5), (2, 17)],
}


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE_CALLS) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    assert_safe_rewrite_exports(HERE / f"{name}.py", "TRT385", tmp_path, CODE_ALONE_CALLS[name], SIZES[name],
                                "bitwise")


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_applies(HERE / f"{name}.py", "TRT385", f"trt385_migrate_{name}")
