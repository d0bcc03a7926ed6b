"""The bool-sum recipe (TRT352) on real-code variants: a logical or written as ``+`` of bool tensors.

Each variant in ``tests/recipe_variants/trt352/`` is a small runnable model reduced from real code
(cited in its docstring): CenterNet's ``multi_pose_decode`` marks the keypoints it cannot trust with
a sum of six comparisons. The TorchScript export writes an ONNX ``Add`` of bools, which ONNX Runtime
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
from variant_models import axes_json as _axes_json, line_of as _line_of, with_specials

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt352"
CODE_ALONE = Options(select=("TRT352",), scope="all")

#: variant -> the line the sum starts on, as written.
SUMS: dict[str, str] = {
    "centernet_multi_pose": "mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \\",
}


def _sets() -> dict[str, tuple[torch.Tensor]]:
    return {"batch-3": (torch.randn(3, 3, 6, 8, generator=seeded(1)),),
            "larger": (torch.randn(2, 3, 11, 5, generator=seeded(2)),),
            "zeros": (torch.zeros(2, 3, 4, 4),),
            "negatives": (-torch.rand(1, 3, 7, 9, generator=seeded(3)),),
            "specials": (with_specials((1, 3, 5, 6), 4),)}


@pytest.mark.parametrize("name", list(SUMS))
def test_migrate_applies_the_rule(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt352_{name}")
    line = _line_of(path, SUMS[name])
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [f.line for f in found] == [line]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT352", line)]
    assert report["after"]["faithful"] is True


@pytest.mark.parametrize("name", list(SUMS))
def test_rewritten_from_the_code_alone_loads_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt352_{name}")
    example = module.inputs(seeded(0))
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert " + \\" not in new_source.split("mask = ")[1].split("mask = ")[0], new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt352_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    with pytest.raises(Exception, match=r"tensor\(bool\).*Add"):  # ONNX Runtime refuses the original's graph
        export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets()}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets()})
