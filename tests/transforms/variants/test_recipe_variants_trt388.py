"""The broadcast-write rule (TRT388) on real-code variants: a value broadcast into the part of a tensor it writes.

Each variant in ``tests/recipe_variants/trt388/`` is a small runnable model reduced from real code of a different
author (cited in its docstring), where a size of the written part follows a dynamic input axis: Photoroom's PRX
(``img_ids[..., 0] = torch.arange(h // patch_size)[:, None]``, then the columns ``[None, :]``: the patch grid's
rotary ids), ComfyUI's Krea 2 DiT (``imgids[..., 1] = torch.arange(h_)[:, None]``, the same grid of three axes
after the text), kornia's boxes as quadrilaterals (``polygons[..., 0] = xmin.unsqueeze(-1)``: each box's corner
into its four vertices), l5kit's SafePathNet (``repeated_features[:, :, :] = features.unsqueeze(2)``: each
agent's features into its trajectory queries) and diffusers' xformers attention backend
(``aligned_mask[:, :, :, :original_seq_len] = mask_additive``: a ``(B, 1, 1, K)`` key-padding bias into every
head and query). The TorchScript exporter broadcasts each value to the written part's shape in the traced
example, so the original graph runs at the example's sizes only: ONNX Runtime refuses it at every other size.

The first four are rewritten from the code alone by the safe rule: eager mode is unchanged (values, gradients) on
the example and other sizes, empty and one-element axes included, and the rewritten graph, exported with the
variant's dynamic axes, equals eager mode at all of them. In diffusers' the value is the result of a call
(``_prepare_additive_attn_mask``, annotated ``-> torch.Tensor``), which the code alone does not show to be a
tensor: the rule leaves it, and takes it with a recorded run's facts (``written_tensor``: the name seen holding a
tensor at the write), after which the graph follows every size too. ``migrate`` applies TRT388 at the write's line
and ends at exit 0 with a faithful graph on kornia's, l5kit's and diffusers'. In diffusers' the node ONNX Runtime
refuses, ``/Reshape_new_reshape``, is its optimizer's fusion of the mask's ``view`` in
``_prepare_additive_attn_mask`` with the write's ``Reshape`` to the example's shape, a name the exported graph does
not hold, so the refusal has no line; the second trace places the first difference at a Reshape node from the
write's line, a bake that ``migrate.plan`` matches to TRT388 (``BROADCAST_WRITE_RULES``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import migrate_json, rules_found
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_graph_within, axes_json,
                            built_variant, export_variant, load_variant, observed_facts, seeded)

from trtcodemod.engine import Options, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt388"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))
HELPER = "_trt_broadcast_written"

#: variant -> the writes the rule makes from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "comfyui_krea2_position_ids": (
        f"imgids[..., 1] = {HELPER}(torch.arange(h_, device=device, dtype=torch.float32)[:, None], imgids[..., 1])",
        f"imgids[..., 2] = {HELPER}(torch.arange(w_, device=device, dtype=torch.float32)[None, :], imgids[..., 2])"),
    "kornia_boxes_to_polygons": (f"polygons[..., 0] = {HELPER}(xmin.unsqueeze(-1), polygons[..., 0])",
                                 f"polygons[..., 1] = {HELPER}(ymin.unsqueeze(-1), polygons[..., 1])"),
    "l5kit_safepathnet_repeat_features": (
        f"repeated_features[:, :, :] = {HELPER}(features.unsqueeze(2), repeated_features[:, :, :])",),
    "prx_image_ids": (
        f"img_ids[..., 0] = {HELPER}(torch.arange(h // patch_size, device=device)[:, None], img_ids[..., 0])",
        f"img_ids[..., 1] = {HELPER}(torch.arange(w // patch_size, device=device)[None, :], img_ids[..., 1])"),
}
#: variant -> the writes the rule makes with a recorded run's facts (the code alone shows no tensor).
FACTS_CALLS: dict[str, tuple[str, ...]] = {
    "diffusers_xformers_aligned_mask": (
        f"aligned_mask[:, :, :, :original_seq_len] = {HELPER}(mask_additive, "
        "aligned_mask[:, :, :, :original_seq_len])",),
}
#: variant -> input sizes other than the example's (as its ``inputs`` takes them): each changes a size of the written
#: part, down to one element or none.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "comfyui_krea2_position_ids": [(1, 2, 2, 1), (2, 10, 8, 5), (1, 2, 12, 0)],  # batch, height, width, tokens
    "diffusers_xformers_aligned_mask": [(1, 1, 1), (3, 7, 8), (2, 9, 6)],  # batch, queries, keys
    "kornia_boxes_to_polygons": [(1, 1), (3, 7), (2, 0)],  # batch, boxes
    "l5kit_safepathnet_repeat_features": [(1, 1), (1, 2), (3, 9)],  # batch, polylines (no agent, one, capped at 4)
    "prx_image_ids": [(1, 2, 2), (2, 10, 4), (3, 4, 12)],  # batch, height, width
}
#: Variants on which ``migrate`` is run end to end (about a minute each).
MIGRATED = ("kornia_boxes_to_polygons", "l5kit_safepathnet_repeat_features", "diffusers_xformers_aligned_mask")


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted((*CODE_ALONE_CALLS, *FACTS_CALLS)) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS)


def _assert_follows_every_size(name: str, text: str, folder: Path) -> None:
    """``text`` (the variant rewritten) keeps eager mode on every set; the original's TorchScript export is refused by
    ONNX Runtime at each size other than the example's, the rewritten one's equals eager mode at all of them."""
    path = HERE / f"{name}.py"
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(text)
    module, original = built_variant(path, f"trt388_o_{name}")
    _, rewritten = built_variant(new_path, f"trt388_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    sets = {"example": example, **{f"sizes {s}": module.inputs(seeded(sum(s) + 1), *s) for s in SIZES[name]}}
    assert_eager_unchanged(original, rewritten, sets)
    before, _ = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", folder)
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    for label, inputs in sets.items():
        if label != "example":
            with pytest.raises(Exception, match="Reshape|Expand"):
                assert_graph_within(before, original, inputs, 1e-5, label)
        assert_graph_within(after, original, inputs, 1e-5, label)
    assert_graph_within(before, original, example, 1e-5, "example")


def _rewrite(name: str, **options) -> str:
    path = HERE / f"{name}.py"
    return fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT388",), scope="all",
                                                                      **options)).source.decode()


@pytest.mark.parametrize("name", sorted(CODE_ALONE_CALLS))
def test_rewritten_from_the_code_alone_follows_every_size(name: str, tmp_path: Path) -> None:
    text = _rewrite(name)
    assert text == _rewrite(name, unsafe=True)  # a safe rule
    for fragment in CODE_ALONE_CALLS[name]:
        assert fragment in text, text
    assert text.count(f"{HELPER}(") == len(CODE_ALONE_CALLS[name]) + 1
    assert rules_found(text, select=("TRT388",)) == []
    _assert_follows_every_size(name, text, tmp_path)


@pytest.mark.parametrize("name", sorted(FACTS_CALLS))
def test_a_recorded_run_shows_the_tensor_the_code_does_not(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    assert rules_found(path.read_text(), select=("TRT388",)) == []
    facts = observed_facts(path, load_variant(path, f"trt388_f_{name}"), tmp_path / "work")
    text = _rewrite(name, facts=facts)
    for fragment in FACTS_CALLS[name]:
        assert fragment in text, text
    _assert_follows_every_size(name, text, tmp_path)


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_the_rule_where_the_graph_fails_to_run(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt388_m_{name}")
    report = migrate_json(path, axes_json(module))
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT388", line) in applied, (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
