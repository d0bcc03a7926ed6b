"""The bool-sum recipe (TRT352) on real-code variants: a logical or written as ``+`` of bool tensors.

Each variant in ``tests/recipe_variants/trt352/`` is a small runnable model reduced from real code
(cited in its docstring): CenterNet's ``multi_pose_decode`` marks the keypoints it cannot trust with
a sum of six comparisons; TraDeS adds the box tests to a running mask (``... + mask``, the name
assigned a float earlier in the function: the assignment that reaches the sum is a comparison);
TrajNet++ keeps the tracks seen twice with ``(torch.isnan(a) + torch.isnan(b)) == 0``; a relation
classifier pools outside ``masks.unsqueeze(2).eq(0) + subj_mask + obj_mask``, both masks unsqueezed
comparisons; centerpose's TensorRT demo decodes in a method, its scores and distances reassigned
before the sum. The TorchScript export writes an ONNX ``Add`` of bools, which ONNX Runtime
refuses to load. ``migrate`` applies TRT352 (the refusal names a node, not a line) and ends at exit 0;
rewritten from the code alone, the graph loads and equals eager mode at other batch, height and
width, on zeros, negatives and non-finite values, and eager mode is unchanged bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, assert_graph_within, built_variant, export_variant, seeded
from variant_models import axes_json as _axes_json, with_specials

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt352"
CODE_ALONE = Options(select=("TRT352",), scope="all")

#: variant -> the text of the line each sum starts on, as written (the rule reports them in this order).
SUMS: dict[str, tuple[str, ...]] = {
    "centernet_multi_pose": ("mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \\",),
    "trades_keypoint_refine": ("mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \\",) * 2,
    "trajnet_track_mask": ("track_mask = (torch.isnan(prev[:, 0]) + torch.isnan(curr[:, 0])) == 0",),
    "tacred_span_pool": ("out_mask = masks.unsqueeze(2).eq(0) + subj_mask + obj_mask",),
    "centerpose_engine_decode": ("mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) + \\",),
}

#: variant -> the line the traced run takes (the others are rewritten too, and not traced).
TRACED: dict[str, int] = {"trades_keypoint_refine": 0}


def _lines(path: Path, name: str) -> list[int]:
    """The lines of the sums in ``path``, in order (a text written twice is found twice)."""
    lines = path.read_text().splitlines()
    found: list[int] = []
    for text in dict.fromkeys(SUMS[name]):
        found.extend(i + 1 for i, line in enumerate(lines) if line.strip() == text)
    assert len(found) == len(SUMS[name]), found
    return sorted(found)


def _image_sets() -> dict[str, tuple[torch.Tensor]]:
    return {"batch-3": (torch.randn(3, 3, 6, 8, generator=seeded(1)),),
            "larger": (torch.randn(2, 3, 11, 5, generator=seeded(2)),),
            "zeros": (torch.zeros(2, 3, 4, 4),),
            "negatives": (-torch.rand(1, 3, 7, 9, generator=seeded(3)),),
            "specials": (with_specials((1, 3, 5, 6), 4),)}


def _track_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    gen = seeded(5)
    many = (torch.randn(9, 2, generator=gen), torch.randn(9, 2, generator=gen), torch.randn(9, 8, generator=gen))
    gone = (torch.full((3, 2), float("nan")), torch.randn(3, 2, generator=gen), torch.zeros(3, 8))
    specials = (with_specials((4, 2), 6), with_specials((4, 2), 7), -torch.rand(4, 8, generator=gen))
    return {"nine tracks": many, "all entering": gone, "one track": tuple(t[:1] for t in many),
            "zeros": (torch.zeros(2, 2), torch.zeros(2, 2), torch.zeros(2, 8)), "specials": specials}


def _token_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    gen = seeded(6)

    def tokens(batch: int, seq: int, subj: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        words = torch.randint(0, 20, (batch, seq), generator=gen)
        masks = (torch.rand(batch, seq, generator=gen) > 0.3).long()
        subj = torch.where(torch.rand(batch, seq, generator=gen) > 0.6, 1000, -7) if subj is None else subj
        obj = torch.where(torch.rand(batch, seq, generator=gen) > 0.6, 1000, 0)
        return words, masks, subj, obj

    nothing = tokens(2, 4, torch.zeros(2, 4, dtype=torch.long))
    nothing = (nothing[0], torch.zeros(2, 4, dtype=torch.long), nothing[2], torch.zeros(2, 4, dtype=torch.long))
    return {"batch-4": tokens(4, 9), "one token": tokens(1, 1), "longer": tokens(3, 15),
            "nothing kept": nothing, "all kept": (*tokens(2, 5)[:2], torch.full((2, 5), 1000), torch.full((2, 5), 1000))}


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    if name == "trajnet_track_mask":
        return _track_sets()
    if name == "tacred_span_pool":
        return _token_sets()
    return _image_sets()


@pytest.mark.parametrize("name", list(SUMS))
def test_migrate_applies_the_rule(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt352_{name}")
    lines = _lines(path, name)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [f.line for f in found] == lines
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    traced = [lines[TRACED[name]]] if name in TRACED else lines
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT352", n) for n in traced]
    assert report["after"]["faithful"] is True


@pytest.mark.parametrize("name", list(SUMS))
def test_rewritten_from_the_code_alone_loads_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt352_{name}")
    example = module.inputs(seeded(0))
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    for number in _lines(path, name):  # each sum is an or now, its operands as written
        rewritten_line = new_source.splitlines()[number - 1]
        assert " | " in rewritten_line and " + " not in rewritten_line.split("=", 1)[1], rewritten_line
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt352_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    with pytest.raises(Exception, match=r"tensor\(bool\).*Add"):  # ONNX Runtime refuses the original's graph
        export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})


def test_the_branch_not_traced_is_unchanged_in_eager_mode(tmp_path: Path) -> None:
    """TraDeS's margin branch (no boxes), rewritten with the traced one, does what it did."""
    path = HERE / "trades_keypoint_refine.py"
    module, _ = built_variant(path, "trt352_trades_margin")
    new_path = tmp_path / "trades_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode())
    rewritten_module, _ = built_variant(new_path, "trt352_trades_margin_rewritten")
    torch.manual_seed(0)
    before = module.KeypointRefine(with_boxes=False).eval()
    after = rewritten_module.KeypointRefine(with_boxes=False).eval()
    after.load_state_dict(before.state_dict())
    assert_eager_unchanged(before, after, {"example": module.inputs(seeded(0)), **_image_sets()})
