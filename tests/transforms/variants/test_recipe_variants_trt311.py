"""The unfold-windows recipe (TRT311) on real-code variants.

Each variant in ``tests/recipe_variants/trt311/`` is a small runnable model reduced from a public
repository (cited in its docstring), with ``x.unfold(d, k, k)`` in the form the original writes it:
a chain continued with a backslash (XFeat), a sliced receiver and negative axes (kornia), keywords
and a negative axis (TimeXer), literal windows of two (Granite Speech 5), three axes of a volume
(MONAI's NaViT) and two axes of a strided 5-D video (Hiera). With a dynamic height, width, length
or depth the TorchScript exporter stops on ``unfold`` ("input size not accessible"): the original
does not export. The rule rewrites each file from the code alone (a safe fix, one finding per
chain); the rewritten model exports (with the dynamo exporter too for two variants, to keep the
file fast) with nothing hostile in the inserted helper's lines, its graph equals eager mode at
other sizes (lengths that are not a multiple of the window included where the model takes them)
and on edge values (zeros, negatives, inf/NaN, an empty batch where the model allows one), and
eager mode is unchanged bit for bit (outputs, gradients, exceptions).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import onnx
import pytest
import torch
from support import TESTS
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            export_variant_dynamo, input_names, seeded, with_specials)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt311"
NAN, INF = float("nan"), float("inf")






def _mask(batch: int, tokens: int, seed: int) -> torch.Tensor:
    return torch.rand(batch, tokens, generator=seeded(seed)) < 0.5


class Variant(NamedTuple):
    fragments: tuple[str, ...]
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values; "raises-"/"eager-": eager mode only
    tolerance: float = 1e-5  # relative to the output's largest finite magnitude (1 at least)
    dynamo: bool = False  # the dynamo export too (slow: two variants)


VARIANTS: dict[str, Variant] = {
    "verlab_xfeat_unfold2d": Variant(("x = _trt_unfold(_trt_unfold(x, 2,  ws , ws), 3, ws,ws) \\",), {
        "not-multiples": (torch.randn(1, 3, 37, 21, generator=seeded(1)),),
        "one-cell": (torch.randn(3, 3, 8, 8, generator=seeded(2)),),
        "zeros": (torch.zeros(2, 3, 16, 24),),
        "negatives": (-torch.rand(2, 3, 17, 9, generator=seeded(3)) - 1,),
        "inf-nan": (with_specials((2, 3, 16, 16), 4),),
        "raises-shorter-than-a-cell": (torch.randn(1, 3, 7, 16, generator=seeded(5)),),
    }, dynamo=True),
    "kornia_rgb_to_yuv420": Variant((
        "return _trt_unfold(_trt_unfold(yuvimage[..., 1:3, :, :], -2, 2, 2), -2, 2, 2).mean((-1, -2))",), {
        "other-sizes": (torch.rand(3, 3, 12, 4, generator=seeded(6)),),
        "one-block": (torch.rand(1, 3, 2, 2, generator=seeded(7)),),
        "zeros": (torch.zeros(2, 3, 4, 6),),
        "negatives": (-torch.rand(2, 3, 8, 2, generator=seeded(8)),),
        "inf-nan": (with_specials((1, 3, 4, 4), 9),),
        "no-images": (torch.zeros(0, 3, 4, 6),),
        "raises-odd-height": (torch.rand(1, 3, 5, 4, generator=seeded(10)),),
    }),
    "thuml_timexer_en_embedding": Variant((
        "x = _trt_unfold(x, -1, self.patch_len, self.patch_len)",), {
        "longer-with-a-remainder": (torch.randn(4, 3, 30, generator=seeded(11)),),
        "one-patch": (torch.randn(1, 3, 4, generator=seeded(12)),),
        "one-patch-and-a-remainder": (torch.randn(2, 3, 7, generator=seeded(13)),),
        "zeros": (torch.zeros(2, 3, 16),),
        "negatives": (-torch.rand(3, 3, 10, generator=seeded(14)) - 1,),
        "inf-nan": (with_specials((2, 3, 12), 15),),
        "raises-shorter-than-a-patch": (torch.randn(2, 3, 3, generator=seeded(16)),),
        "no-batch": (torch.zeros(0, 3, 12),),
    }, dynamo=True),
    "transformers_granite_speech5_subsample": Variant((
        "pooled = _trt_unfold(hidden_states, 1, 2, 2).mean(-1)",), {
        "odd-and-longer": (torch.randn(3, 15, 6, generator=seeded(17)),),
        "even": (torch.randn(2, 10, 6, generator=seeded(18)),),
        "two-frames": (torch.randn(1, 2, 6, generator=seeded(19)),),
        "three-frames": (torch.randn(2, 3, 6, generator=seeded(20)),),
        "zeros": (torch.zeros(2, 8, 6),),
        "negatives": (-torch.rand(2, 7, 6, generator=seeded(21)) - 1,),
        "inf-nan": (with_specials((2, 5, 6), 22),),
        "no-batch": (torch.zeros(0, 8, 6),),
        "raises-one-frame": (torch.randn(2, 1, 6, generator=seeded(23)),),
    }),
    "monai_navit_volume_patches": Variant((
        "seq = _trt_unfold(_trt_unfold(_trt_unfold(image, 1, p, p), 2, p, p), 3, p, p)",), {
        "larger-than-the-tables": (torch.randn(2, 10, 2, 8, generator=seeded(24)),),
        "one-cube": (torch.randn(2, 2, 2, 2, generator=seeded(25)),),
        "zeros": (torch.zeros(2, 4, 4, 4),),
        "negatives": (-torch.rand(2, 2, 6, 4, generator=seeded(26)) - 1,),
        "inf-nan": (with_specials((2, 4, 2, 2), 27),),
        "raises-not-a-multiple": (torch.randn(2, 3, 4, 4, generator=seeded(28)),),
        "raises-empty-axis": (torch.zeros(2, 0, 4, 4),),
    }),
    "hiera_mae_pixel_label_3d": Variant((
        "label = _trt_unfold(_trt_unfold(input_vid, 3, size, size), 4, size, size)",), {
        # 3 frames keep 2; 10 x 17 pixels are 2 x 4 patches with a remainder: 16 tokens.
        "larger-with-remainders": (torch.randn(1, 3, 3, 10, 17, generator=seeded(29)), _mask(1, 16, 30)),
        "all-masked": (torch.randn(3, 3, 2, 4, 8, generator=seeded(31)), torch.ones(3, 2, dtype=torch.bool)),
        "none-masked": (torch.randn(2, 3, 2, 4, 8, generator=seeded(32)), torch.zeros(2, 2, dtype=torch.bool)),
        "zeros": (torch.zeros(2, 3, 4, 8, 12), _mask(2, 12, 33)),
        "negatives": (-torch.rand(2, 3, 4, 8, 12, generator=seeded(34)) - 1, _mask(2, 12, 35)),
        "inf-nan": (with_specials((2, 3, 4, 8, 12), 36), torch.ones(2, 12, dtype=torch.bool)),
        # The model's flatten(1, 3) exports as a Reshape to (0, -1, ...), which ONNX Runtime cannot
        # infer for no elements (the helper's own Reshapes before it run): eager mode only.
        "eager-no-videos": (torch.zeros(0, 3, 4, 8, 12), torch.zeros(0, 12, dtype=torch.bool)),
        "raises-shorter-than-a-patch": (torch.randn(1, 3, 2, 3, 8, generator=seeded(37)), _mask(1, 0, 38)),
    }),
}




@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragments, others, tolerance, with_dynamo = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt311_{name}")
    example = module.inputs(seeded(0))

    # Before: the TorchScript exporter stops on unfold of an axis of dynamic length.
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and "ONNX export of operator Unfold, input size not accessible" in before.error, \
        before.error

    # The rule from the code alone, without --unsafe: one finding per chain, no unfold left.
    options = Options(select=("TRT311",), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment in fragments:
        assert fragment in new_source, new_source
    helpers_end = new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")) + 3  # after the inserted helpers
    body = new_source[helpers_end:]
    assert not re.search(r"\.unfold\(", body), body
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [f.rule for f in findings] == ["TRT311"] * len(fragments)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt311_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    # After: the TorchScript exporter (and dynamo's for some); nothing hostile from the helper; the
    # graphs follow other sizes and values.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sessions = {"torchscript": torchscript}
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    graph = onnx.load(str(tmp_path / "after.onnx"))
    helper_lines = new_source[:helpers_end].count("\n")
    hostile = [i for i in check_graph(graph, "10.0") if i.severity == "error" and i.source
               and i.source.startswith(str(new_path)) and int(i.source.rsplit(":", 1)[1]) <= helper_lines]
    assert hostile == [], hostile
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        if label.startswith(("raises-", "eager-")):  # compared below, in eager mode only
            continue
        for exporter, session in sessions.items():
            assert_graph_within(session, original, inputs, tolerance, f"{exporter} {label}")

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    assert_eager_unchanged(original, rewritten, sets)
    for label in sets:
        if label.startswith("raises-"):
            with pytest.raises((RuntimeError, ValueError)):
                original(*sets[label])
