"""The einx element-wise recipe (TRT381) on real-code variants: einx's broadcasts written with indexing.

Each variant in ``tests/recipe_variants/trt381/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): MSA Pairformer's clipped relative positions (``einx.subtract('b i, b j -> b i j')``
and ``'... -> b i j 1'``), nanospeech's duration predictor pooling over a length mask (``einx.where`` with a number,
``einx.divide``), F5-TTS's length mask of the reference audio (``einx.less('n, b -> b n')`` over an arange as long as
the longest item), x-transformers' ALiBi bias and look-back mask from the query and key lengths and its per-head gate
(``'b n h, b h n d ->b h n d'``, a permutation), and alphafold3-pytorch's outer-product mean (MSA-mask gating, a
division without ``->``, an ellipsis pair mask). einx solves each pattern against the traced shapes and reshapes with
Python ints, so the TorchScript ONNX export of every original bakes the example's sizes: the graph refuses or
misreads other sizes. Rewritten from the code alone (``--unsafe``), eager mode is unchanged (values, gradients) and
the graph with dynamic axes equals eager mode in ONNX Runtime at other sizes. ``migrate`` applies TRT381 at the call
and ends at exit 0 with a faithful graph. einx (0.4) refuses an axis of size 0 (``AxisSizeError``) where the
broadcast returns the empty result: that difference is pinned here too.
"""

from __future__ import annotations

import re
from pathlib import Path

import einx
import onnxruntime as ort
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, assert_unsafe_rewrite, axes_json,
                            built_variant, export_variant, rewritten_variant, seeded)

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt381"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its einx calls become from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "msa_pairformer_relpos": (
        "diff_res_idx = torch.subtract(res_idx[:, :, None], res_idx[:, None, :])",
        "diff_token_idx = torch.subtract(token_idx[:, :, None], token_idx[:, None, :])",
        "diff_sym_id = torch.subtract(sym_id[:, :, None], sym_id[:, None, :])",
        "mask_same_chain = torch.subtract(asym_id[:, :, None], asym_id[:, None, :]) == 0",
        "mask_same_entity = torch.subtract(entity_id[:, :, None, None], entity_id[:, None, :, None]) == 0"),
    "nanospeech_duration_mean": (
        "t = torch.where(mask[:, :, None], t, 0.0)",
        "return torch.divide(num, den.clamp(min=1.0)[:, None])"),
    "f5tts_cond_mask": ("return torch.less(seq[None, :], t[:, None])",),
    "xtransformers_alibi_gate": (
        "bias = -torch.subtract(context_arange[None, None, :], seq_arange[None, :, None]).abs()",
        "dist = torch.subtract(range_q[None, None, :, None], range_k[None, None, None, :])",
        "out = torch.multiply(head_gate.sigmoid().permute(0, 2, 1)[:, :, :, None], out)"),
    "alphafold3_outer_product_mean": (
        "return torch.logical_and(mask_i[..., :, None], mask_j[..., None, :])",
        "a = torch.multiply(a, msa_mask.type(dtype)[:, :, None, None])",
        "b = torch.multiply(b, msa_mask.type(dtype)[:, :, None, None])",
        "outer_product_mean = torch.divide(outer_product, num_msa.clamp(min = self.eps)[:, None, None, None, None])",
        "outer_product_mean = torch.multiply(outer_product_mean, mask.type(dtype)[:, :, :, None])"),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's, none empty where einx sees it.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "msa_pairformer_relpos": [(1, 1), (3, 11)],
    "nanospeech_duration_mean": [(1, 1), (3, 12)],
    "f5tts_cond_mask": [(1, 1, 1), (3, 12, 7), (2, 6, 0)],  # no characters: the text's axis is not einx's
    "xtransformers_alibi_gate": [(1, 1, 0), (3, 7, 4)],  # no memory: i == j
    "alphafold3_outer_product_mean": [(1, 1, 1), (3, 5, 8)],
}
#: variant -> sizes where einx meets an axis of size 0.
EMPTY: dict[str, list[tuple[int, ...]]] = {
    "msa_pairformer_relpos": [(2, 0)],
    "nanospeech_duration_mean": [(2, 0), (0, 4)],
    "f5tts_cond_mask": [(2, 0, 0)],
    "xtransformers_alibi_gate": [(2, 0, 3)],
    "alphafold3_outer_product_mean": [(2, 0, 4), (2, 3, 0)],
}


def _sets(module, name: str, sizes: dict[str, list[tuple[int, ...]]]) -> dict[str, tuple]:
    return {f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in sizes[name]}


def _line(path: Path, code: str) -> int:
    """The line of code ``code`` is (not the docstring quoting it, nor the constant naming it)."""
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == code]
    return line


def _rewritten(name: str, tmp_path: Path) -> dict:
    """The variant rewritten from its code alone (``--unsafe``, every scope), with its original (same weights)."""
    return rewritten_variant(HERE / f"{name}.py", "TRT381", tmp_path)


def _quiet(graph: Path) -> ort.InferenceSession:
    """The graph at ``graph`` in ONNX Runtime, logging nothing: the original's refusing a reshape is expected."""
    options = ort.SessionOptions()
    options.log_severity_level = 4
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def test_the_variants_are_the_five_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE_CALLS) == sorted(SIZES) == sorted(EMPTY)
    repositories = set()
    for name in VARIANTS:
        doc = (HERE / f"{name}.py").read_text()
        [(repository, _)] = re.findall(r"from ([\w.-]+/[\w.-]+) @ ([0-9a-f]{40})", doc)
        repositories.add(repository)
    assert len(repositories) == 5
    assert len({r.split("/")[0] for r in repositories}) == 4  # lucidrains twice at most


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    variant = _rewritten(name, tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    assert_unsafe_rewrite(variant, CODE_ALONE_CALLS[name], "TRT381")  # the texts; nothing without --unsafe

    example = module.inputs(seeded(0))
    others = _sets(module, name, SIZES)
    assert_eager_unchanged(original, rewritten, {"example": example, **others})

    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    before = _quiet(tmp_path / "before.onnx")
    assert_graph_within(before, original, example, 1e-5, "example")
    for label, inputs in others.items():  # the example's sizes are constants of the original's graph
        with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime refuses the reshape, or the values differ
            assert_graph_within(before, original, inputs, 1e-5, label)
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **others}.items():
        assert_graph_within(after, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", VARIANTS)
def test_einx_refuses_an_empty_axis_the_broadcast_does_not(name: str, tmp_path: Path) -> None:
    """Not the same program at size 0: einx raises where the rewrite returns (an empty result, or the bias alone
    for an MSA without rows): one more reason the rule is unsafe."""
    variant = _rewritten(name, tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    for label, inputs in _sets(module, name, EMPTY).items():
        with torch.no_grad():
            with pytest.raises(einx.errors.AxisSizeError):
                original(*inputs)
            out = rewritten(*inputs)
        assert isinstance(out, torch.Tensor) and 0 in inputs[0].shape, label


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt381_migrate_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]  # the original's graph bakes the example's sizes
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT381", _line(path, module.CALL)) in applied, (report["applied"], report["remaining"],
                                                               report.get("reverted"))
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
