"""The bool-fill recipe (TRT380) on real-code variants: ``masked_fill`` with ``True`` or ``False``.

Each variant in ``tests/recipe_variants/trt380/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): egnn-pytorch takes the self loops out of a bool adjacency it is given; Microsoft
SFM fills a bool causal mask in place with ``True`` and clears periodic neighbours with ``torch.masked_fill(...,
False)``; MultiMolecule clears self pairs from a mask of non-canonical base pairs; spectre clears a bool factor under
``if ret.dtype == torch.bool``; Chai-1 clears an MSA's own bool mask with its tokens. The TorchScript export of each
stops in the exporter's alias analysis (no ``masked_fill`` schema for a Python bool). Rewritten from the code alone,
each exports and eager mode is unchanged (bit for bit, with gradients); where the code shows both operands bool the
graph also equals eager mode in ONNX Runtime at other sizes. ``migrate`` applies TRT380 at the fill (the bitwise form
proved by the run where only the run shows the receiver bool) and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, axes_json, built_variant, input_names, seeded

from trtcodemod.engine import Options, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt380"
CODE_ALONE = Options(select=("TRT380", "TRT310"), scope="all")  # TRT310: egnn's bool torch.eye (EyeLike)
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the text each rewritten fill becomes from the code alone.
CODE_ALONE_FILLS: dict[str, tuple[str, ...]] = {
    "egnn_self_loops": ("adj_mat = adj_mat.masked_fill(self_mask, 0)",),
    "sfm_causal_and_pbc_masks": ("mask = torch.full((tgt_len, tgt_len), 0, device=device, dtype=torch.bool)",
                                 "mask.bitwise_or_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1))",
                                 "expand_mask = (expand_mask & ~atoms.eq(0).unsqueeze(-1)).contiguous()"),
    "multimolecule_noncanonical": ("mask = mask.masked_fill(self_mask, 0)",),
    "spectre_bool_factor": ("ret = ret.masked_fill(~mask, 0)",),
    "chai_msa_apply_mask": ("masked = msa_mask.masked_fill(~mask, 0)",),
}
#: variants whose fills all take the bitwise form from the code alone (the others make a Where of bools, which
#: ONNX Runtime's CPU provider does not implement: migrate's run shows their receivers bool).
BITWISE_FROM_CODE = {"sfm_causal_and_pbc_masks"}


def _sets(module, name: str) -> dict[str, tuple]:
    sizes = {"egnn_self_loops": [(1, 1), (3, 8), (2, 0)], "sfm_causal_and_pbc_masks": [(1, 1, 1), (3, 9, 2)],
             "multimolecule_noncanonical": [(1, 1), (12, 20), (4, 0)], "spectre_bool_factor": [(1, 1), (9, 3)],
             "chai_msa_apply_mask": [(1, 1), (8, 12), (0, 3)]}[name]
    return {f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in sizes}


def _line(path: Path, code: str) -> int:
    """The line of code ``code`` is (not the docstring quoting it, nor the constant naming it)."""
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == code]
    return line


def _export(model: torch.nn.Module, example: tuple, dynamic: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17, input_names=input_names(model),
                          dynamic_axes=dynamic)
    return buffer.getvalue()


def test_the_variants_are_the_five_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE_FILLS)


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt380_{name}")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    for text in CODE_ALONE_FILLS[name]:
        assert text in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt380_rewritten_{name}")
    example = module.inputs(seeded(0))
    with pytest.raises(RuntimeError, match=r"We don't have an op for aten::masked_fill"):
        _export(original, example, module.DYNAMIC)
    graph = _export(rewritten, example, module.DYNAMIC)
    sets = {"example": example, **_sets(module, name)}
    assert_eager_unchanged(original, rewritten, sets)
    if name not in BITWISE_FROM_CODE:
        return
    import onnxruntime as ort

    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    names = input_names(original)
    for label, inputs in sets.items():
        got = session.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        with torch.no_grad():
            want = original(*inputs)
        for g, w in zip(got, want):
            assert torch.equal(torch.from_numpy(g), w), label


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt380_migrate_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT380", _line(path, module.FILL)) in applied, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
