"""The appended-list recipe (TRT364) on real-code variants: prior boxes built in Python loops over sizes.

Each variant in ``tests/recipe_variants/trt364/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose priors are appended to a Python list in loops over the
feature maps' rows and columns, then made a tensor: biubug6's RetinaFace (``product`` of ranges, a
one-element comprehension and a ``product`` over it), retinaface_pytorch's function form (an annotated
list, ``ceil`` of the size in the same function: TRT712 keeps that traced), SSD (``repeat=2``, ``sqrt``,
a loop over aspect ratios, four appends per cell), FaceBoxes (an ``if``/``elif``/``else`` on the anchor
size, four by four dense centres), S3FD (``for k in range(len(...))``, a Python loop, sizes of the
network's feature tensors) and LFFD (``priors.append([...])``, a list of lists, its name rebound to
``torch.tensor(priors)``).

The TorchScript export runs the loops at the example's size and records the list as a constant.
``migrate`` locates it, applies TRT364 and ends at exit 0; rewritten from the code alone (``--unsafe``),
each graph equals eager mode at other sizes (odd ones, where a size rounds up, and ones where a square
map's size is 0, an empty range), and eager mode is the loop itself, bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            observed_facts, seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt364"

#: variant -> (the list's first line, as written; the rules its rewrite needs).
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "biubug6_retinaface": ("anchors = []", ("TRT364",)),
    "ternaus_retinaface": ("anchors: List[float] = []", ("TRT364", "TRT712")),
    "amdegroot_ssd": ("mean = []", ("TRT364",)),
    "zisianw_faceboxes": ("anchors = []", ("TRT364",)),
    "yxlijun_s3fd": ("mean = []", ("TRT364",)),
    "aoru45_lffd": ("priors = []", ("TRT364",)),
}
SQUARE = {"amdegroot_ssd", "aoru45_lffd"}


def _sets(name: str) -> dict[str, tuple[torch.Tensor]]:
    def rand(shape: tuple[int, ...], seed: int, shift: float = 1.0) -> tuple[torch.Tensor]:
        return (torch.rand(*shape, generator=seeded(seed)) + shift,)

    if name in SQUARE:  # side // 4 is 0 at a side of 3: the second map's range is empty
        return {"odd": rand((1, 3, 13, 13), 1), "batch-2": rand((2, 3, 9, 9), 2), "empty-map": rand((1, 3, 3, 3), 3),
                "two": rand((1, 3, 2, 2), 4), "negatives": rand((1, 3, 8, 8), 5, -1.0)}
    return {"odd": rand((1, 3, 9, 13), 1), "batch-2": rand((2, 3, 16, 5), 2), "one": rand((1, 3, 1, 1), 3),
            "tall": rand((1, 3, 17, 3), 4), "negatives": rand((1, 3, 6, 6), 5, -1.0)}


def _rewritten(name: str, tmp_path: Path, rules: tuple[str, ...], module, traced: list):
    path = HERE / f"{name}.py"
    # TRT712 takes `ceil(size[0] / s)` where the recorded run saw a size there (as migrate gives it)
    facts = observed_facts(path, module, tmp_path / "observed", traced) if "TRT712" in rules else None
    options = Options(select=rules, scope="all", unsafe=True, facts=facts)
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    return new_source, built_variant(new_path, f"trt364_rewritten_{name}")[1]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    first, rules = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt364_{name}")
    found = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT364",), scope="all"))
    assert [f.line for f in found] == [_line_of(path, first)]
    assert "_trt_" not in fix_source(path.read_bytes(), str(path.resolve()),
                                     Options(select=("TRT364",), scope="all")).source.decode()
    example = module.inputs(seeded(0))
    before, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert any(Path(f).name == path.name for f, _, _ in traced), traced  # the trace says where it baked
    new_source, rewritten = _rewritten(name, tmp_path, rules, module, traced)
    assert new_source.count("if not torch.jit.is_scripting() and _trt_tracing():") == 1, new_source
    assert "_trt_append_rows(" in new_source, new_source
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **_sets(name)}
    # the original graph holds the example's priors: right there, wrong (other values or shapes) at some other size
    missed = [label for label, inputs in sets.items() if not _matches(before, original, inputs, label)]
    assert missed and "example" not in missed, missed
    for label, inputs in sets.items():
        assert_graph_within(after, original, inputs, 1e-6, label)
    assert_eager_unchanged(original, rewritten, sets)


def _matches(session, model, inputs: tuple, label: str) -> bool:
    try:
        assert_graph_within(session, model, inputs, 1e-6, label)
    except Exception:  # noqa: BLE001 - a wrong value, a wrong shape or a refusal by ONNX Runtime
        return False
    return True


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_the_rule(name: str) -> None:
    first, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt364_migrate_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert ("TRT364", _line_of(path, first)) in {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert report["after"]["faithful"] is True
