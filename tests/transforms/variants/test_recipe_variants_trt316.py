"""The packed-attention recipe (TRT316) on real-code variants.

Each variant in ``tests/recipe_variants/trt316/`` is a small runnable model reduced from a public
repository (cited in its docstring) that builds torch's attention in the form the original writes
it: torchvision's ViT encoder block (``nn.MultiheadAttention(..., batch_first=True)``, self-attention
with ``need_weights=False``, tokens from the image size), MONAI's MIL model (``nn.TransformerEncoderLayer``
wrapped in ``nn.TransformerEncoder``, sequence first, the bag's instances as the sequence), Ultralytics'
SAM 3 text encoder (self-attention with a causal mask cut from a buffer to the prompt's length),
transformers' SigLIP pooling head (``torch.nn.MultiheadAttention``, a probe attending to the image's
tokens as key and value), kornia's SigLIP 2 pooling head (the construction with keywords over
several lines, an additive ``key_padding_mask`` built from a token mask) and arabicocr-khatt's CRNN
(a bare ``nn.TransformerEncoderLayer(..., activation="gelu", batch_first=True, norm_first=True)``
after a BiLSTM, whose export under ``torch.no_grad()`` fails on the layer's fused fast path,
``aten::_transformer_encoder_layer_fwd``).

The rule finds each construction from the code alone (one finding, at the construction; nothing is
changed without ``--unsafe``). The original's TorchScript export is wrong at every other sequence
length (the graph runs the example and fails or differs at another length), or fails outright for
the ViT block: in eval mode without gradients, self-attention with ``need_weights=False`` takes
torch's fast path, ``aten::_native_multi_head_attention``, which the exporter does not convert.
``migrate`` applies TRT316 at the construction and ends with exit 0, the rewritten model
equivalent, for all six. Three are also rewritten by the rule and exported directly: the graph equals
eager mode at other sizes and on edge values (zeros, negatives, infinities, padding masks, an empty
batch in eager mode only: ONNX Reshape reads a 0 in the shape as "keep that axis", see below), and
eager mode is unchanged bit for bit.

Not taken: timm 1.0.31's ML-Decoder (timm/layers/ml_decoder.py, ``TransformerDecoderLayerOptimal``
builds ``nn.MultiheadAttention`` and ``MLDecoder`` wraps it in ``nn.TransformerDecoder``) does not
run on this torch at all (``nn.TransformerDecoder.forward`` reads ``self.layers[0].self_attn``, which
the timm layer lacks). DETR-style attention (facebookresearch/detr ``models/transformer.py``,
ultralytics' ``AIFI`` and RT-DETR decoder layers, kornia's RT-DETR ``AIFI``) calls the module with
``q = k = x + pos`` and ``value=x``: key is not value, torch projects the three separately, and the
original's TorchScript export already follows the length. The rule, which sees the construction only,
rewrites those too (same values; not needed). The test below pins that.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import NamedTuple

import pytest
import torch
from support import TESTS, migrate_json, rules_found
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            graph_matches, input_names, seeded, variant_inputs)
from variant_models import line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt316"
INF = float("inf")


class Variant(NamedTuple):
    construction: str  # the construction's text, as written (one line)
    helper: str  # the class that replaces torch's
    other_shapes: list[tuple[int, ...]]  # inputs at another sequence length
    before: str  # "baked": the graph runs the example only; or the exporter's error


VARIANTS = {
    "torchvision_vit_encoder_block": Variant(
        "self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, "
        "batch_first=True)", "_TrtMultiheadAttention", [(3, 3, 8, 20)],
        "Exporting the operator 'aten::_native_multi_head_attention' to ONNX opset version 17 is not supported"),
    "monai_milmodel_att_trans": Variant(
        "transformer = nn.TransformerEncoderLayer(d_model=nfc, nhead=8, dropout=trans_dropout)",
        "_TrtTransformerEncoderLayer", [(1, 3, 3, 8, 8)], "baked"),
    "ultralytics_sam3_text_transformer": Variant(
        "self.attn = nn.MultiheadAttention(d_model, n_head, batch_first=True)", "_TrtMultiheadAttention",
        [(3, 12)], "baked"),
    "transformers_siglip_attention_pooling": Variant(
        "self.attention = torch.nn.MultiheadAttention(hidden_size, num_attention_heads, batch_first=True)",
        "_TrtMultiheadAttention", [(1, 3, 20, 8)], "baked"),
    "kornia_siglip2_pooling_padding_mask": Variant(
        "self.attention = nn.MultiheadAttention(", "_TrtMultiheadAttention", [(3, 4, 32), (3, 4)], "baked"),
    "arabicocr_khatt_crnn_attention": Variant(
        "self.attn = nn.TransformerEncoderLayer(", "_TrtTransformerEncoderLayer", [(3, 1, 12, 30)],
        "Exporting the operator 'aten::_transformer_encoder_layer_fwd' to ONNX opset version 17 is not supported"),
}


def _rewritten_construction(variant: Variant) -> str:
    return re.sub(r"(torch\.)?nn\.(MultiheadAttention|TransformerEncoderLayer)\(", f"{variant.helper}(",
                  variant.construction)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rule_finds_the_construction_and_the_original_export_is_wrong(name: str, tmp_path: Path) -> None:
    variant = VARIANTS[name]
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    line = _line_of(path, variant.construction)

    # From the code alone: one finding at the construction; nothing changes without --unsafe.
    findings = check_source(source, str(path.resolve()), Options(select=("TRT316",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT316", line)]
    assert fix_source(source, str(path.resolve()), Options(select=("TRT316",), scope="all")).source == source
    new_source = fix_source(source, str(path.resolve()), Options(select=("TRT316",), scope="all",
                                                                 unsafe=True)).source.decode()
    assert _rewritten_construction(variant) in new_source, new_source
    assert rules_found(new_source, select=("TRT316",)) == []

    # The original's TorchScript export: fails, or runs the example only.
    module, original = built_variant(path, f"trt316_{name}")
    example = module.inputs(seeded(0))
    if variant.before != "baked":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                                  input_names=input_names(original), output_names=["out"],
                                  dynamic_axes=module.DYNAMIC, opset=17)
        assert result.error is not None and variant.before in result.error, result.error
        return
    session, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert graph_matches(session, original, example)
    assert not graph_matches(session, original, variant_inputs(module, variant.other_shapes, 3))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_the_rule_at_the_construction(name: str) -> None:
    variant = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt316_m_{name}")
    axes = json.dumps({n: {str(a): label for a, label in given.items()} for n, given in module.DYNAMIC.items()})
    report = migrate_json(path, axes)
    if variant.before == "baked":
        assert report["before"]["exported"] is True
    else:
        assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == \
        [("TRT316", _line_of(path, variant.construction))], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True
    assert _rewritten_construction(variant) in report["diff"], report["diff"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 3)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


def _mask(batch: int, tokens: int, keep: list[int]) -> torch.Tensor:
    """A token mask: sample ``i`` keeps its first ``keep[i]`` tokens."""
    return (torch.arange(tokens)[None] < torch.tensor(keep)[:, None]).long().reshape(batch, tokens)


DIRECT = {
    "torchvision_vit_encoder_block": {
        "other-sizes": (torch.randn(3, 3, 8, 20, generator=seeded(1)),),
        "one-patch": (torch.randn(1, 3, 4, 4, generator=seeded(2)),),
        "many-patches": (torch.randn(2, 3, 32, 28, generator=seeded(3)),),
        "zeros": (torch.zeros(2, 3, 12, 8),),
        "negatives": (-torch.rand(2, 3, 8, 12, generator=seeded(4)) * 50 - 1,),
        "inf": (_with_inf(torch.randn(2, 3, 8, 8, generator=seeded(5))),),
        # Eager mode only: the model's own reshape to (n, hidden_dim, n_h * n_w) exports as an ONNX Reshape,
        # which reads n == 0 as "keep that axis", so ONNX Runtime fails on no images (the original too).
        "eager-no-images": (torch.zeros(0, 3, 8, 8),),
    },
    "kornia_siglip2_pooling_padding_mask": {
        "other-sizes": (torch.randn(3, 14, 32, generator=seeded(6)), _mask(3, 14, [14, 3, 9])),
        "one-token": (torch.randn(2, 1, 32, generator=seeded(7)), _mask(2, 1, [1, 1])),
        "all-padding": (torch.randn(2, 6, 32, generator=seeded(8)), _mask(2, 6, [0, 6])),
        "zeros": (torch.zeros(2, 5, 32), _mask(2, 5, [5, 2])),
        "negatives": (-torch.rand(2, 7, 32, generator=seeded(9)) * 20 - 1, _mask(2, 7, [7, 7])),
        "inf-in-padding": (torch.cat([torch.randn(1, 4, 32, generator=seeded(10)), torch.full((1, 2, 32), INF)], 1),
                           _mask(1, 6, [4])),
        # Eager mode only: torch's multi_head_attention_forward (which the helper runs while exporting)
        # views the keys as (length, batch * heads, head_dim); ONNX Reshape reads the 0 as "keep that
        # axis", so ONNX Runtime fails on an empty batch.
        "eager-no-batch": (torch.zeros(0, 5, 32), torch.zeros(0, 5, dtype=torch.long)),
    },
    "arabicocr_khatt_crnn_attention": {
        "other-sizes": (torch.rand(3, 1, 12, 30, generator=seeded(11)),),
        "one-step": (torch.rand(2, 1, 12, 2, generator=seeded(12)),),
        "long-line": (torch.rand(1, 1, 12, 200, generator=seeded(13)),),
        "zeros": (torch.zeros(2, 1, 12, 16),),
        "negatives": (-torch.rand(2, 1, 12, 20, generator=seeded(14)) * 50 - 1,),
        # Saturates the LSTM. (Infinities are left out here: eager mode turns them into NaN in the CNN and
        # LSTM, ahead of the attention, where ONNX Runtime's LSTM returns finite numbers.)
        "large": (torch.rand(2, 1, 12, 16, generator=seeded(15)) * 1e4,),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    variant = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt316_d_{name}")
    example = module.inputs(seeded(0))
    options = Options(select=("TRT316",), scope="all", unsafe=True)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    _, rewritten = built_variant(new_path, f"trt316_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    helpers = [m for m in rewritten.modules() if type(m).__name__ == variant.helper]
    assert helpers and not [m for m in rewritten.modules() if type(m) is torch.nn.MultiheadAttention]

    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        if label.startswith("eager-"):  # compared below, in eager mode only
            continue
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)


_DETR_STYLE = '''
import torch
from torch import nn


class EncoderLayer(nn.Module):
    def __init__(self, d_model=16, nhead=4):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead)

    def forward(self, src, pos):
        q = k = src + pos
        return self.self_attn(q, k, value=src)[0]


def build():
    return EncoderLayer().eval()
'''


def test_detr_style_call_already_follows_the_length_and_is_rewritten_anyway(tmp_path: Path) -> None:
    """``q = k = src + pos`` with ``value=src`` (DETR, ultralytics' and kornia's AIFI): torch projects
    query, key and value apart, so torch's own module exports a graph that follows the length; the
    rule rewrites the construction all the same (it cannot see the call)."""
    path = tmp_path / "detr_style.py"
    path.write_text(_DETR_STYLE)
    assert [f.rule for f in check_source(path.read_bytes(), str(path), Options(select=("TRT316",),
                                                                               scope="all"))] == ["TRT316"]
    module, original = built_variant(path, "trt316_detr_style")
    example = (torch.randn(5, 2, 16, generator=seeded(0)), torch.randn(5, 2, 16, generator=seeded(1)))
    session, _ = export_variant(original, example, {"src": {0: "length"}, "pos": {0: "length"}},
                                tmp_path / "detr.onnx", tmp_path)
    longer = (torch.randn(9, 2, 16, generator=seeded(2)), torch.randn(9, 2, 16, generator=seeded(3)))
    assert graph_matches(session, original, example) and graph_matches(session, original, longer)
