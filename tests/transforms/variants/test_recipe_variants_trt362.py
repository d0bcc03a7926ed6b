"""The traced-scale-resize recipe (TRT362) on real-code variants.

Each variant in ``tests/recipe_variants/trt362/`` is a small runnable model reduced from a public
repository (cited in its docstring) that resizes by a scale factor computed from a size: DINO's position
embeddings (``(w0 / math.sqrt(N), h0 / math.sqrt(N))`` of the patch counts), dino-vit-features' strided copy
installed by a closure, kornia's DINOv2 copy for DeDoDe (float32 and back, check calls on the grid), FeatUp's
CLIP copy (the grid's side from ``np.sqrt``), Torchelie's perceptual loss
(an area resize to a shorter side of 224). While the TorchScript exporter traces, the factor is a tensor:
the bicubic kernel refuses it (TypeError) and the area resize stops in adaptive pooling. The rule rewrites
each call (``--unsafe``; migrate keeps it only verified), with the observed run's facts where the sizes reach
the call as a method's parameters (DINO's ``w, h``), and with TRT712 where a Python ``min`` of sizes picks the
example's side (Torchelie); the rewritten model exports, its TorchScript graph equals eager mode up to float
rounding at other sizes and on zeros and negatives (finite inputs: bicubic's stated assumption), its dynamo
graph is the original's, eager mode is unchanged bit for bit, and ``migrate`` takes each variant end to end
(exit 0).

FeatUp's ``int(np.sqrt(...))`` was not taken by the rule before NumPy's functions of a size counted as
numbers computed from it (migrate reached the same helper through TRT727, the call being bicubic; an area
or linear resize has no such second way); Torchelie's area resize was not tried by migrate before an
adaptive pooling stopping the export at the call was TRT362's to fix (it ended with exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built, export_variant,
                            export_variant_dynamo, input_names, line_of, load_variant, observed_facts, seeded,
                            with_specials)

from trtcodemod.engine import Options, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt362"
#: linear, bicubic and area sum in another order than PyTorch's kernels (the rule's stated rounding)
TOLERANCE = 3e-5


def _images(*shape: int, seed: int) -> tuple[torch.Tensor]:
    return (torch.randn(shape, generator=seeded(seed)),)


def _pairs(*shape: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.rand(shape, generator=seeded(seed)), torch.rand(shape, generator=seeded(seed + 1))


class Variant(NamedTuple):
    fragments: tuple[str, ...]  # the rewritten calls
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values, for the graphs and eager mode
    eager: dict[str, tuple[torch.Tensor, ...]]  # eager mode only
    rules: tuple[str, ...] = ("TRT362",)
    facts: bool = False  # the sizes reach the call as parameters: the observed run says what they are


def _position_sets(seed: int) -> dict[str, tuple[torch.Tensor, ...]]:
    """Images whose patch grid is not the embedding's square one: wider, taller, with leftover pixels,
    zeros and negatives (bicubic's assumption: finite values)."""
    return {"wide": _images(1, 3, 16, 40, seed=seed), "tall": _images(3, 3, 28, 8, seed=seed + 1),
            "leftover-pixels": _images(2, 3, 9, 13, seed=seed + 2), "zeros": (torch.zeros(2, 3, 20, 24),),
            "negatives": (-torch.rand(2, 3, 24, 20, generator=seeded(seed + 3)) - 1,)}


def _eager_positions(square: int, seed: int) -> dict[str, tuple[torch.Tensor, ...]]:
    """Eager mode only: the square image whose grid is the embedding's (the shortcut the trace does not
    take), inf/NaN, no images, a wrong rank."""
    return {"square-at-the-grid": _images(2, 3, square, square, seed=seed), "inf-nan": (with_specials((2, 3, 20, 24), seed),),
            "no-images": (torch.zeros(0, 3, 20, 24),), "wrong-rank": (torch.randn(3, 20, 24),)}


VARIANTS: dict[str, Variant] = {
    "dino_pos_encoding": Variant(("grid_pos = _trt_interpolate(",), _position_sets(1), _eager_positions(12, 6),
                                 facts=True),
    "dino_vit_features_stride": Variant(("patch_pos_embed = _trt_interpolate(",), {
        "wide": _images(1, 3, 22, 10, seed=10), "tall": _images(3, 3, 8, 30, seed=11),
        "odd": _images(2, 3, 11, 13, seed=12), "zeros": (torch.zeros(2, 3, 14, 18),),
        "negatives": (-torch.rand(2, 3, 18, 14, generator=seeded(13)) - 1,)}, _eager_positions(8, 14), facts=True),
    "kornia_dedode_dinov2_positions": Variant(("grid_rows = _trt_interpolate(",), _position_sets(40),
                                              _eager_positions(12, 46), facts=True),
    # Not taken before: the grid's side from NumPy's square root.
    "featup_clip_positions": Variant(("patch_pos_embed_interp = _trt_interpolate(",), _position_sets(20),
                                     _eager_positions(12, 26)),
    # Not tried by migrate before: the area resize stops the export in adaptive pooling, not in a TypeError.
    "torchelie_perceptual_rescale": Variant(
        ("y = _trt_interpolate(y, scale_factor=s, mode='area')", "x = _trt_interpolate(x, scale_factor=s, mode='area')",
         "s = self.side / _trt_size_min_of(y.shape[-2:])"), {
            "shorter-height": _pairs(1, 3, 12, 40, seed=30), "shorter-width": _pairs(3, 3, 50, 17, seed=32),
            "upsampled": _pairs(2, 3, 7, 9, seed=34), "zeros": (torch.zeros(2, 3, 24, 30), torch.zeros(2, 3, 24, 30)),
            "negatives": (-torch.rand(2, 3, 20, 26, generator=seeded(36)), torch.rand(2, 3, 20, 26, generator=seeded(37)))},
        {"inf-nan": (with_specials((2, 3, 24, 30), 38), torch.rand(2, 3, 24, 30, generator=seeded(39))),
         "wrong-rank": (torch.rand(3, 24, 30), torch.rand(3, 24, 30))},
        rules=("TRT362", "TRT712")),
}


def _rewrite(path: Path, rules: tuple[str, ...], unsafe: bool, facts=None) -> str:
    options = Options(select=rules, unsafe=unsafe, scope="all", facts=facts)
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant rewritten (with the observed run's facts where it needs them), the original's failed
    TorchScript export, and the rewritten model's TorchScript and dynamo graphs (each exported once)."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path, variant = HERE / f"{name}.py", VARIANTS[name]
    module = load_variant(path, f"trt362_{name}")
    facts = observed_facts(path, module, folder) if variant.facts else None
    source = _rewrite(path, variant.rules, True, facts)
    (folder / f"{name}_rewritten.py").write_text(source)
    original, rewritten = built(module), built(load_variant(folder / f"{name}_rewritten.py", f"trt362_rewritten_{name}"))
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    refused = export_model(original, example, folder / "before.onnx", exporter="torchscript",
                           input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC, opset=17)
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    dynamo = {kind: export_variant_dynamo(model, example, module.DYNAMIC, folder / f"dynamo_{kind}.onnx")
              for kind, model in (("original", original), ("rewritten", rewritten))}
    return dict(name=name, path=path, source=source, facts=facts, original=original, rewritten=rewritten,
                example=example, refused=refused.error, after=after, dynamo=dynamo, folder=folder)


def test_the_original_does_not_export(migrated) -> None:
    """The traced factor is a tensor: the bicubic kernel refuses it, the area resize's pooling stops on it."""
    assert migrated["refused"] is not None
    assert "upsample_bicubic2d" in migrated["refused"] or "adaptive pooling" in migrated["refused"], migrated["refused"]


def test_the_rule_rewrites_every_call(migrated) -> None:
    variant = VARIANTS[migrated["name"]]
    for fragment in variant.fragments:
        assert fragment in migrated["source"], migrated["source"]
    assert "F.interpolate(" not in migrated["source"].split("class ")[-1]
    assert _rewrite(migrated["path"], variant.rules, False, migrated["facts"]) == migrated["path"].read_text()
    if variant.facts:  # the sizes are a method's parameters: from the code alone they are unknown
        assert "_trt_interpolate(" not in _rewrite(migrated["path"], variant.rules, True)


def test_the_rewritten_graph_follows_every_size(migrated) -> None:
    model = onnx.load(str(migrated["folder"] / "after.onnx"))
    assert "Resize" not in {n.op_type for n in model.graph.node}  # Gathers, weight matrices or pooling bins
    assert not [i for i in check_graph(model) if i.severity == "error"]
    sets = {"example": migrated["example"], **VARIANTS[migrated["name"]].sets}
    for label, inputs in sets.items():
        assert_graph_within(migrated["after"], migrated["original"], inputs, TOLERANCE, label)


def _follows(session, model: torch.nn.Module, inputs: tuple) -> bool:
    """Whether the graph runs on ``inputs`` and gives eager mode's output (shape, values to the tolerance)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    try:
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    except Exception:  # noqa: BLE001 - a graph that refuses the input set does not follow it
        return False
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return got.shape == want.shape and np.allclose(got, want, rtol=0, atol=TOLERANCE * scale)


def test_the_dynamo_graph_follows_what_the_originals_does(migrated) -> None:
    """The dynamo exporter traces no tensor factor (the helper is ``F.interpolate`` there, bicubic as TRT727's
    weight matrices): the rewritten model's graph equals eager mode at the example and follows exactly the
    other sizes the original's graph follows: for these variants, only the example's sizes (the dynamo
    exporter specializes a factor computed from symbolic sizes to the example's number: a limit of that
    exporter, outside this rule's reach; migrate verifies the TorchScript export)."""
    before, after, original = migrated["dynamo"]["original"], migrated["dynamo"]["rewritten"], migrated["original"]
    assert _follows(after, original, migrated["example"]) and _follows(before, original, migrated["example"])
    for label, inputs in VARIANTS[migrated["name"]].sets.items():
        assert _follows(after, original, inputs) == _follows(before, original, inputs), label


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_takes_the_variant_end_to_end(name: str) -> None:
    """migrate places the export's failure at the resize, tries TRT362 there (with the rules the other
    sizes need: TRT712, TRT717, TRT727), verifies the rewrite and ends equivalent without ``--unsafe``."""
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt362_migrate_{name}")))
    calls = sorted(i for i, text in enumerate(path.read_text().splitlines(), 1)
                   if "interpolate(" in text and "``" not in text and "def " not in text)
    assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT362") == calls, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
