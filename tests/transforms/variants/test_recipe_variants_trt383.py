"""The triangle-indices rule (TRT383) on real-code variants: pairs taken once through ``torch.triu_indices``.

Each variant in ``tests/recipe_variants/trt383/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): torchani's all-pairs neighbour list (``torch.triu_indices(atoms, atoms, 1,
device=device)`` of the number of atoms, then a cutoff screen by ``nonzero``), pbloem's ``former`` causal
self-attention (``mask_`` writes ``-inf`` at ``torch.triu_indices(h, w, 1)`` of the attention matrix in place),
reformer_fastai's scaled dot-product attention (its causal mask at ``torch.triu_indices(n, n, 1)`` beside a shared-key
diagonal), TorchMD-Net's all-to-all Coulomb pairs (``triu_indices`` of the atom count with ``dtype=``/``device=``,
``unbind``, masked by molecule) and Boltz's van der Waals overlap pairs (``triu_indices`` of the atom count, padding
pairs dropped by a boolean mask).
``aten::triu_indices`` has no TorchScript ONNX symbolic, so every original's export stops. Rewritten from the code
alone by the safe rule (no ``--unsafe``), eager mode is unchanged (values, gradients) and the graph, exported with
dynamic axes, equals eager mode in ONNX Runtime at other sizes (one atom or token among them). ``migrate`` applies
TRT383 at the call and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from variant_models import assert_cited_by_distinct_owners, assert_migrate_applies, assert_safe_rewrite_exports

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt383"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its calls become from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "torchani_all_pairs": ("pairs = _trt_triu_indices(atoms, atoms, 1, None, device)",),
    "former_masked_self_attention": (
        "upper = _trt_triu_indices(rows, cols, 0 if mask_diagonal else 1, None, None)",),
    "reformer_causal_dot_attention": ("i, j = _trt_triu_indices(n, n, 1, None, None)",),
    "torchmdnet_coulomb_pairs": ("i, j = _trt_triu_indices(N, N, 1, torch.long, x.device).unbind(0)",),
    "boltz_vdw_overlap_pairs": (
        "pair_index = _trt_triu_indices(n_atoms, n_atoms, 1, None, atom_vdw_radii.device)",),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "torchani_all_pairs": [(1,), (2,), (12,), (30,)],
    "former_masked_self_attention": [(1, 1), (3, 2), (1, 17)],
    "reformer_causal_dot_attention": [(1, 1), (3, 2), (1, 17)],
    "torchmdnet_coulomb_pairs": [(2,), (3,), (16,)],
    "boltz_vdw_overlap_pairs": [(1,), (2,), (13,)],
}


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE_CALLS) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    assert_safe_rewrite_exports(HERE / f"{name}.py", "TRT383", tmp_path, CODE_ALONE_CALLS[name], SIZES[name],
                                "triu_indices")


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_applies(HERE / f"{name}.py", "TRT383", f"trt383_migrate_{name}")
