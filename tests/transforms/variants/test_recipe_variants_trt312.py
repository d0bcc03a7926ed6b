"""The fold recipe (TRT312) on real-code variants.

Each variant in ``tests/recipe_variants/trt312/`` is a small runnable model reduced from a public
repository (cited in its docstring), with ``F.fold`` in the form the original writes it: keywords
read from attributes (timm's VOLO outlook attention), ``nn.functional.fold(`` over four lines with
a size tuple from the shape (transformers' MobileViT-v2), ``input=`` keywords with a
``torch.Size`` and a dict unpacked into the call, in a list comprehension too (kornia's
``combine_tensor_patches``), ``torch.nn.functional.fold(`` with a trailing comma and a subscript
(Vocos' ISTFT) and ``F.fold(`` over five lines folding an expanded buffer (transformers'
X-Codec 2). The TorchScript exporter at opset 17 stops on ``aten::col2im`` (ONNX Col2Im only from
opset 18, never parsed by TensorRT): the original does not export. The rule rewrites each file
from the code alone with ``--unsafe`` (nothing without it: the fix is unsafe only for
``torch.jit.script``), one finding per call; the rewritten model exports (with the dynamo exporter
too for two variants, to keep the file fast) with no Col2Im and nothing hostile in the inserted
helper's lines, its graph equals eager mode at other sizes and on edge values (zeros, negatives,
inf/NaN, an empty batch where the model allows one), and eager mode is unchanged bit for bit
(outputs, gradients, exceptions).
"""

from __future__ import annotations

import re
import warnings
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

HERE = TESTS / "recipe_variants" / "trt312"
NAN, INF = float("nan"), float("inf")






class Variant(NamedTuple):
    fragments: tuple[str, ...]
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values; "raises-"/"eager-": eager mode only
    tolerance: float = 1e-5  # relative to the output's largest finite magnitude (1 at least)
    dynamo: bool = False  # the dynamo export too (slow: two variants)


VARIANTS: dict[str, Variant] = {
    "timm_volo_outlook_attention": Variant((
        "x = _trt_fold(x, output_size=(H, W), kernel_size=self.kernel_size, padding=self.padding, "
        "stride=self.stride)",), {
        "one-image": (torch.randn(1, 10, 12, 8, generator=seeded(1)),),
        "larger-batch": (torch.randn(5, 10, 12, 8, generator=seeded(2)),),
        "zeros": (torch.zeros(2, 10, 12, 8),),
        "negatives": (-torch.rand(2, 10, 12, 8, generator=seeded(3)) - 1,),
        "inf-nan": (with_specials((2, 10, 12, 8), 4),),
        # nn.Unfold exports as a Reshape to (0, -1, ...) that ONNX Runtime cannot infer for no
        # elements (before the helper runs): eager mode only.
        "eager-no-images": (torch.zeros(0, 10, 12, 8),),
    }),
    "transformers_mobilevitv2_folding": Variant((
        "feature_map = _trt_fold(\n            patches,\n            output_size=output_size,\n",), {
        "other-sizes": (torch.randn(3, 8, 16, 10, generator=seeded(5)),),
        "one-patch": (torch.randn(1, 8, 2, 2, generator=seeded(6)),),
        # Odd sizes: unfold drops the last row and column, fold leaves them zero.
        "odd-sizes": (torch.randn(2, 8, 7, 5, generator=seeded(7)),),
        "zeros": (torch.zeros(2, 8, 6, 4),),
        "negatives": (-torch.rand(2, 8, 4, 8, generator=seeded(8)) - 1,),
        "inf-nan": (with_specials((1, 8, 4, 4), 9),),
        "raises-too-few-channels": (torch.randn(1, 7, 4, 4, generator=seeded(10)),),
    }, dynamo=True),
    "kornia_combine_tensor_patches": Variant((
        "norm_map = _trt_fold(input=unfold_ones, output_size=restored_size, kernel_size=window_size, stride=stride)",
        "folded = [_trt_fold(input=part, **fold_kwargs) for part in (patches.real, patches.imag)]",
        "folded = [_trt_fold(input=patches, **fold_kwargs)]"), {
        "one-image": (torch.randn(1, 12, 3, 3, 4, generator=seeded(11)),),
        "larger-batch": (torch.randn(4, 12, 3, 3, 4, generator=seeded(12)),),
        "zeros": (torch.zeros(2, 12, 3, 3, 4),),
        "negatives": (-torch.rand(2, 12, 3, 3, 4, generator=seeded(13)) - 1,),
        "inf-nan": (with_specials((2, 12, 3, 3, 4), 14),),
        # The ones image's F.unfold exports as a Reshape to (0, -1, ...) (as VOLO's): eager mode only.
        "eager-no-images": (torch.zeros(0, 12, 3, 3, 4),),
        "raises-wrong-patch-count": (torch.randn(1, 11, 3, 3, 4, generator=seeded(15)),),
        "raises-four-axes": (torch.randn(12, 3, 3, 4, generator=seeded(16)),),
    }),
    "vocos_istft_head": Variant((
        "y = _trt_fold(\n            ifft, output_size=(1, output_size), kernel_size=(1, self.win_length), "
        "stride=(1, self.hop_length),\n        )[:, 0, 0, pad:-pad]",
        "window_envelope = _trt_fold(\n            window_sq,"), {
        "many-frames": (torch.randn(3, 30, 6, generator=seeded(17)),),
        "one-frame": (torch.randn(2, 1, 6, generator=seeded(18)),),
        "two-frames": (torch.randn(1, 2, 6, generator=seeded(19)),),
        "zeros": (torch.zeros(2, 5, 6),),
        "negatives": (-torch.rand(2, 6, 6, generator=seeded(20)) - 1,),
        "inf-nan": (with_specials((2, 5, 6), 21),),
        "no-batch": (torch.zeros(0, 5, 6),),
        "raises-wrong-width": (torch.randn(2, 5, 4, generator=seeded(22)),),
    }),
    "transformers_xcodec2_istft_head": Variant((
        "audio = _trt_fold(\n            time_frames,\n            output_size=(1, output_size),\n",
        "window_envelope = _trt_fold(\n            self.window.square().expand(1, num_frames, -1)"
        ".transpose(1, 2),\n"), {
        "many-frames": (torch.randn(3, 25, 6, generator=seeded(23)),),
        "one-frame": (torch.randn(2, 1, 6, generator=seeded(24)),),
        "zeros": (torch.zeros(2, 4, 6),),
        "negatives": (-torch.rand(1, 9, 6, generator=seeded(25)) - 1,),
        "inf-nan": (with_specials((2, 6, 6), 26),),
        "no-batch": (torch.zeros(0, 5, 6),),
        "raises-wrong-width": (torch.randn(2, 5, 7, generator=seeded(27)),),
    }, dynamo=True),
}




@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragments, others, tolerance, with_dynamo = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt312_{name}")
    example = module.inputs(seeded(0))

    # Before: the TorchScript exporter at opset 17 stops on fold (col2im).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                              input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                              opset=17)
    assert before.error is not None and "Exporting the operator 'aten::col2im' to ONNX opset version 17" \
        in before.error, before.error

    # The rule from the code alone: nothing without --unsafe; with it, one finding per call, no fold left.
    source = path.read_bytes()
    assert fix_source(source, str(path.resolve()), Options(select=("TRT312",), scope="all")).source == source
    options = Options(select=("TRT312",), scope="all", unsafe=True)
    new_source = fix_source(source, str(path.resolve()), options).source.decode()
    for fragment in fragments:
        assert fragment in new_source, new_source
    helpers_end = new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")) + 3  # after the inserted helpers
    body = new_source[helpers_end:]
    assert not re.search(r"\bfold\(", body.replace("_trt_fold(", "")), body
    findings = check_source(source, str(path.resolve()), options)
    assert [f.rule for f in findings] == ["TRT312"] * len(fragments)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt312_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    # After: the TorchScript exporter (and dynamo's for some); no Col2Im, nothing hostile from the
    # helper; the graphs follow other sizes and values.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sessions = {"torchscript": torchscript}
    graphs = [onnx.load(str(tmp_path / "after.onnx"))]
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
        graphs.append(onnx.load(str(tmp_path / "after_dynamo.onnx")))
    for graph in graphs:
        ops = {node.op_type for node in graph.graph.node}
        assert "Col2Im" not in ops, ops
    helper_lines = new_source[:helpers_end].count("\n")
    hostile = [i for i in check_graph(graphs[0], "10.0") if i.severity == "error" and i.source
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
