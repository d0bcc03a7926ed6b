"""The transposed-output-size recipe (TRT356) on real-code variants.

``tests/recipe_variants/trt356/enet_upsampling.py`` is reduced from davidtvs/PyTorch-ENet (cited in
its docstring): two transposed convolutions called with ``output_size=`` the encoder's size, one
added to an upsampled branch cut to that size. The TorchScript graph keeps the traced example's
output padding, and at an odd size ONNX Runtime refuses the Add: ``migrate`` takes TRT356 at both
constructions (the problem is placed at the Add, another line) and ends with exit 0, the rewrite
equivalent. VFIT's (zhshi0816/Video-Frame-Interpolation-Transformer) decoder keeps its transposed
3-D convolution in a one-element container called by index, and its synthesis heads hand the frame
size to the transposed convolution inside an ``nn.Sequential`` subclass: both fail at odd sizes as
ENet does, and migrate takes TRT356 where each is built. pytorch-toolbelt's (BloodAxe/pytorch-toolbelt) FPN
decoder upsamples each coarser map with a deconvolution wrapper whose forward hands its ``output_size``
on (the spatial sizes alone, ``feature_map.shape[-2:]``) and adds it to the finer map: the Add fails at
odd sizes in the same way, and migrate takes TRT356 where the wrapper builds its ``nn.ConvTranspose2d``.
SpeechBrain's ``ConvTranspose1d`` wrapper (speechbrain/speechbrain) transposes a (batch, time, channel)
signal around its ``nn.ConvTranspose1d`` and hands on an ``output_size`` given as a one-element list, here
the input's length restored after a stride-2 encoder and added to a residual: the Add fails at odd lengths,
and migrate takes TRT356 in one dimension as in two.
Rewritten from the code alone, each graph
equals eager mode at even and odd sizes, with both exporters, on edge values, and eager mode is
unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, export_variant_dynamo,
                            load_variant, rewrite_variant, seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source
from trtcodemod.rules import Safety

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt356"
CODE_ALONE = Options(select=("TRT356",), scope="all")

#: variant -> (the text of each line a transposed convolution is built on, a line of migrate's diff).
VARIANTS: dict[str, tuple[tuple[str, ...], str]] = {
    "enet_upsampling": (("self.ext_tconv = nn.ConvTranspose2d(", "self.last = nn.ConvTranspose2d("),
                        "+        self.ext_tconv = _TrtConvTranspose2d("),
    "vfit_upsplit_decoder": (("[nn.ConvTranspose3d(in_channels=cin, out_channels=cout, kernel_size=(3, 3, 3),",),
                             "+            [_TrtConvTranspose3d(in_channels=cin, out_channels=cout,"),
    "vfit_synblock_sequential": (("        torch.nn.ConvTranspose2d(nf, nf, kernel_size=3, stride=2, padding=1),",),
                                 "+        _TrtConvTranspose2d(nf, nf, kernel_size=3, stride=2, padding=1),"),
    "speechbrain_convtranspose1d": (
        ("        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)",),
        "+        self.conv = _TrtConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)"),
    "toolbelt_fpn_deconv": (
        ("        self.conv = nn.ConvTranspose2d(channels, channels, kernel_size=3, padding=1, stride=2)",),
        "+        self.conv = _TrtConvTranspose2d(channels, channels, kernel_size=3, padding=1, stride=2)"),
}


def _enet_sets() -> dict[str, tuple]:
    special = torch.randn(1, 3, 9, 13, generator=seeded(3))
    special.view(-1)[::5] = 0.0
    special.view(-1)[1::7] = -0.0
    special.view(-1)[2::11] = -1e4
    return {"traced size": (torch.randn(1, 3, 16, 24, generator=seeded(0)),),
            "odd": (torch.randn(2, 3, 17, 25, generator=seeded(1)),),
            "small": (torch.randn(1, 3, 3, 5, generator=seeded(2)),),
            "edge values": (special,), "zeros": (torch.zeros(1, 3, 8, 8),)}


def _signal_sets() -> dict[str, tuple]:
    """(batch, time, channel) signals: the traced length, odd and short lengths, another batch, edge values
    (infinities and NaN too), zeros, an empty batch."""
    special = torch.randn(1, 23, 3, generator=seeded(3))
    special.view(-1)[::5] = 0.0
    special.view(-1)[1::7] = -0.0
    special.view(-1)[2::11] = -1e4
    return {"traced size": (torch.randn(2, 40, 3, generator=seeded(0)),),
            "odd": (torch.randn(3, 41, 3, generator=seeded(1)),), "short": (torch.randn(1, 3, 3, generator=seeded(2)),),
            "edge values": (special,), "specials": (with_specials((2, 17, 3), 4),), "zeros": (torch.zeros(1, 8, 3),),
            "empty batch": (torch.zeros(0, 9, 3),)}


def _resized_sets(module) -> dict[str, tuple]:
    """The example and the same inputs at other heights and widths (odd, small, mixed), edge values, zeros."""
    example = module.inputs(seeded(0))

    def resized(height: int, width: int, seed: int, batch: int = 1) -> tuple:
        gen = seeded(seed)
        return tuple(torch.randn(batch, *t.shape[1:-2], height, width, generator=gen) for t in example)

    special = resized(9, 13, 3)
    for tensor in special:
        tensor.view(-1)[::5] = 0.0
        tensor.view(-1)[1::7] = -0.0
        tensor.view(-1)[2::11] = -1e4
    return {"traced size": example, "odd": resized(17, 25, 1, batch=2), "small": resized(3, 5, 2),
            "mixed": resized(16, 7, 4), "edge values": special,
            "zeros": tuple(torch.zeros_like(t) for t in resized(8, 8, 5))}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt356_m_{name}")
    lines = [_line_of(path, text) for text in VARIANTS[name][0]]
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.line, f.fix) for f in found] == [(n, Safety.SAFE) for n in lines]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT356", n) for n in lines]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert VARIANTS[name][1] in report["diff"], report["diff"]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_rewritten_graph_equals_eager(tmp_path, name: str, dynamo: bool) -> None:
    path = HERE / f"{name}.py"
    original = load_variant(path, f"trt356_o_{name}_{dynamo}")
    _, rewritten = rewrite_variant(path, CODE_ALONE, tmp_path, f"trt356_r_{name}_{dynamo}")
    before, after = built(original), built(rewritten)  # the same weights, drawn from seed 0
    sets = (_enet_sets() if name == "enet_upsampling" else _signal_sets() if name == "speechbrain_convtranspose1d"
            else _resized_sets(original))
    assert_eager_unchanged(before, after, sets)
    example = sets["traced size"]
    if dynamo:
        session = export_variant_dynamo(after, example, original.DYNAMIC, tmp_path / "after.onnx")
    else:
        session, _ = export_variant(after, example, original.DYNAMIC, tmp_path / "after.onnx", HERE)
    for label, inputs in sets.items():
        assert_graph_within(session, before, inputs, 1e-5, label)
