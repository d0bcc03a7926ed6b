"""The adaptive-max-pool recipe (TRT602's fix) on real-code variants.

Each variant in ``tests/recipe_variants/trt602/`` is a small runnable model reduced from a public
repository (cited in its docstring) that pools to a fixed grid with ``nn.AdaptiveMaxPool1d``/``2d``,
in the form the original writes it: LibMultiLabel's XML-CNN encoder (a 1-D module built under
``if num_pool > 1``, its output viewed flat), C^3 Framework's CMTL (a tuple literal, first in an
``nn.Sequential``), Tracking by Animation's feature extractor (``tuple(out_sizes[i])``, registered
with ``setattr`` in a loop), seq2seq.pytorch's Pervasive Attention decoder (``(1, None)``: the
source axis pooled away, the target axis kept) and PyTorch-Networks' ANN pyramid pooling (keyword
``output_size=`` appended to an ``nn.ModuleList`` in a loop, one of the sizes 1). With the pooled
axes dynamic, the TorchScript exporter refuses each original ("input size not accessible", or
"output_size is not constant" for the ``None`` axis). ``migrate`` applies TRT602 where each pool
is built (proved by that export failure) and ends with exit 0, the rewritten model equivalent.
Two variants are also rewritten by the rule from the code alone (``--unsafe``) and exported
directly (one with the dynamo exporter too): the graph equals eager mode at other sizes (sizes
that do not divide, sizes below the grid, an empty batch) and on zeros, negatives and infinities,
and eager mode is unchanged bit for bit.

Not taken before: mmdetection's BFP neck pools to another level's size, ``F.adaptive_max_pool2d(inputs[i],
output_size=gather_size)`` with ``gather_size = inputs[k].size()[2:]``, traced counts the helper now
takes (the test at the end).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, export_variant, export_variant_dynamo, input_names, load_variant,
                            rewritten_variant)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt602"
INF = float("inf")


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


#: variant -> (where the pool is built, that text rewritten, what the TorchScript exporter says).
VARIANTS: dict[str, tuple[str, str, str]] = {
    "libmultilabel_xmlcnn_encoder": ("self.pool = nn.AdaptiveMaxPool1d(num_pool)",
                                     "self.pool = _TrtAdaptiveMaxPool1d(num_pool)",
                                     "adaptive_max_pool1d, input size not accessible"),
    "c3_cmtl_high_level_prior": ("self.hl_prior_2 = nn.Sequential(nn.AdaptiveMaxPool2d((6, 6)),",
                                 "self.hl_prior_2 = nn.Sequential(_TrtAdaptiveMaxPool2d((6, 6)),",
                                 "adaptive_max_pool2d, input size not accessible"),
    "tracking_by_animation_conv": ('setattr(self, "pool" + str(i), nn.AdaptiveMaxPool2d(tuple(out_sizes[i])))',
                                   'setattr(self, "pool" + str(i), _TrtAdaptiveMaxPool2d(tuple(out_sizes[i])))',
                                   "adaptive_max_pool2d, input size not accessible"),
    "seq2seq_pervasive_decoder": ("self.pool = nn.AdaptiveMaxPool2d((1, None))",
                                  "self.pool = _TrtAdaptiveMaxPool2d((1, None))",
                                  "adaptive pooling, since output_size is not constant"),
    "ann_spatial_pyramid_pooling": ("self.pool_layers.append(nn.AdaptiveMaxPool2d(output_size=output_size))",
                                    "self.pool_layers.append(_TrtAdaptiveMaxPool2d(output_size=output_size))",
                                    "adaptive_max_pool2d, input size not accessible"),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_pool_and_rewrites_it_with_unsafe_only(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    built, rewritten, _ = VARIANTS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT602",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT602", _line_of(path, built))]
    variant = rewritten_variant(path, "TRT602", tmp_path)
    assert rewritten in variant["source"], variant["source"]
    assert variant["safe_only"] == path.read_text()  # unsafe for speed: not without --unsafe


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt602_where_the_export_fails_and_ends_with_exit_0(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    built, _, refusal = VARIANTS[name]
    module = load_variant(path, f"trt602_m_{name}")
    torch.manual_seed(0)
    original = module.build().eval()
    example = module.inputs(_g(0))
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and refusal in before.error, before.error
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT602", _line_of(path, built))], \
        report["applied"]
    assert "export fails on adaptive pooling" in report["applied"][0]["proof"], report["applied"][0]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]


def _one_inf_per_pixel(tensor: torch.Tensor) -> torch.Tensor:
    """Infinities, never two in one pixel (a 1x1 convolution mixing +inf and -inf gives NaN, which the
    graph and eager mode need not place alike: that is the convolution's, not the pooling's)."""
    out = tensor.clone()
    out[0, 0, 1, 2], out[0, 1, 5, 3], out[-1, 2, 0, 0] = INF, -INF, INF
    return out


#: variant -> (input sets at other sizes and edge values, dynamo too).
DIRECT = {
    "tracking_by_animation_conv": ({
        "not-dividing": (torch.randn(1, 3, 37, 50, generator=_g(1)),),
        "below-the-grid": (torch.randn(3, 3, 9, 14, generator=_g(2)),),
        "larger": (torch.randn(2, 3, 64, 40, generator=_g(3)),),
        "zeros": (torch.zeros(2, 3, 32, 48),),
        "negatives": (-torch.rand(2, 3, 20, 30, generator=_g(4)) - 1,),
        "inf": (_one_inf_per_pixel(torch.randn(2, 3, 21, 33, generator=_g(5))),),
        "empty-batch": (torch.zeros(0, 3, 32, 48),),
    }, True),
    "ann_spatial_pyramid_pooling": ({
        "not-dividing": (torch.randn(1, 8, 13, 17, generator=_g(6)),),
        "below-the-grid": (torch.randn(2, 8, 5, 7, generator=_g(7)),),
        "zeros": (torch.zeros(2, 8, 12, 16),),
        "negatives": (-torch.rand(2, 8, 9, 11, generator=_g(8)) - 1,),
        "inf": (_one_inf_per_pixel(torch.randn(2, 8, 12, 16, generator=_g(9))),),
        # No empty batch: the model's view(b, c, -1) raises on it in eager mode.
    }, False),
}


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """Shape and dtype; values to 1e-5 of the largest finite magnitude; NaN and infinities where eager has them."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager_at_other_sizes(name: str, tmp_path: Path) -> None:
    others, with_dynamo = DIRECT[name]
    variant = rewritten_variant(HERE / f"{name}.py", "TRT602", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(_g(0))
    sessions = {"torchscript": export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx",
                                              tmp_path)[0]}
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        for exporter, session in sessions.items():
            _graph_equals_eager(session, original, inputs, f"{exporter} {label}")
    assert_eager_unchanged(original, rewritten, sets)


BFP = '''\
import torch
import torch.nn.functional as F
from torch import nn


class BFP(nn.Module):
    # mmdetection's Libra R-CNN neck (mmdet/models/necks/bfp.py, BFP.forward): the levels gathered to
    # one level's size, refined, and scattered back to each level's size.

    def __init__(self, refine_level: int = 1) -> None:
        super().__init__()
        self.refine_level = refine_level
        self.refine = nn.Conv2d(2, 2, kernel_size=3, padding=1)

    def forward(self, p2, p3, p4):
        inputs = [p2, p3, p4]
        feats = []
        gather_size = inputs[self.refine_level].size()[2:]
        for i in range(3):
            if i < self.refine_level:
                gathered = F.adaptive_max_pool2d(inputs[i], output_size=gather_size)
            else:
                gathered = F.interpolate(inputs[i], size=gather_size, mode="nearest")
            feats.append(gathered)
        bsf = self.refine(sum(feats) / len(feats))
        outs = []
        for i in range(3):
            out_size = inputs[i].size()[2:]
            if i < self.refine_level:
                residual = F.interpolate(bsf, size=out_size, mode="nearest")
            else:
                residual = F.adaptive_max_pool2d(bsf, output_size=out_size)
            outs.append((residual + inputs[i]).flatten(1).sum(1))
        return torch.stack(outs, 1)


def build():
    return BFP().eval()


def inputs(generator):
    return (torch.randn(1, 2, 16, 16, generator=generator), torch.randn(1, 2, 8, 8, generator=generator),
            torch.randn(1, 2, 4, 4, generator=generator))
'''


def test_an_output_size_read_from_another_tensor(tmp_path: Path) -> None:
    """mmdet's BFP: the output size is another level's size, a 0-d tensor each while the exporter
    traces, not an int. The original does not export ("output_size is not constant"); migrate applies
    TRT602 at both calls, whose helper now computes the bins from those traced counts in the graph:
    the rewritten model exports, follows the levels' sizes and ends with exit 0."""
    path = tmp_path / "bfp.py"
    path.write_text(BFP)
    report = migrate_json(path, json.dumps({f"p{k}": {"2": f"h{k}", "3": f"w{k}"} for k in (2, 3, 4)}))
    lines = [i for i, text in enumerate(BFP.splitlines(), 1) if "F.adaptive_max_pool2d(" in text]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT602", line) for line in lines]
    assert report["before"]["exported"] is False and report["after"]["exported"] is True
    assert report["after"]["faithful"] is True and report["equivalent"] is True, report["remaining"]
    assert report["exit_code"] == 0, report["remaining"]
