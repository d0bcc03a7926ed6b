"""The bitwise-on-size recipe (TRT732) on real-code variants.

Each variant in ``tests/recipe_variants/trt732/`` is a small runnable model reduced from a public
repository (cited in its docstring) that rounds an image's sizes up with a bitwise OR before a
U-Net, in the form the original writes it: fastMRI's ``NormUnet.pad`` (``((w - 1) | 15) + 1``),
MONAI's ``divisible_pad_t`` on a 3-D image (``| (k - 1)`` with ``k`` the module's pad factor, a
``floor_ceil`` helper), DIRECT's 3-D ``NormUnetModel3d.pad`` (three sizes, static methods),
ATOMMIC's ``NormUnet.pad`` (``| self.padding_size`` behind an ``if self.padding_size > 0`` guard)
and mridc's segmentation V-Net (``| self.padding_size`` with the default 11, which is not one
less than a power of two). The rule finds every OR from the code alone; the TorchScript exporter
refuses each original ("bitwise OR for non-boolean input values"); ``migrate`` applies TRT732 at
those lines (with TRT712 for the ``math.floor``/``math.ceil`` of the padding) and ends with exit
0, the rewritten model equivalent. Three variants are also rewritten and exported directly: the
graph equals eager mode at sizes that are and are not multiples of the mask, on zeros,
negatives and infinities, and eager mode is unchanged bit for bit; mridc's padding size 11 is
exported directly too (its OR keeps bit 2 of each size, two runs of set bits in the helper's
arithmetic).

A sixth variant, Mimicry's SAGAN self-attention, shifts sizes right (``location_num >> 2``,
``C >> 3``): the rule finds the shifts, but the TorchScript exporter writes this model as it is
(it has a symbolic for ``__rshift__``: Pow, Cast, Div) and ``migrate`` finds nothing to do; the
last test pins that.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, built_variant, export_variant, input_names, load_variant,
                            seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt732"
INF = float("inf")

#: variant -> (each OR as written, the text the rule writes for it)
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "fastmri_normunet_pad": (
        ("w_mult = ((w - 1) | 15) + 1", 'w_mult = (_trt_size_bitwise("|", w - 1, 15)) + 1'),
        ("h_mult = ((h - 1) | 15) + 1", 'h_mult = (_trt_size_bitwise("|", h - 1, 15)) + 1')),
    "monai_divisible_pad_3d": (
        ("w_mult = ((w - 1) | (k - 1)) + 1", 'w_mult = (_trt_size_bitwise("|", w - 1, k - 1)) + 1'),
        ("h_mult = ((h - 1) | (k - 1)) + 1", 'h_mult = (_trt_size_bitwise("|", h - 1, k - 1)) + 1'),
        ("d_mult = ((d - 1) | (k - 1)) + 1", 'd_mult = (_trt_size_bitwise("|", d - 1, k - 1)) + 1')),
    "direct_normunet3d_pad": (
        ("w_mult = ((w - 1) | 15) + 1", 'w_mult = (_trt_size_bitwise("|", w - 1, 15)) + 1'),
        ("h_mult = ((h - 1) | 15) + 1", 'h_mult = (_trt_size_bitwise("|", h - 1, 15)) + 1'),
        ("z_mult = ((z - 1) | 15) + 1", 'z_mult = (_trt_size_bitwise("|", z - 1, 15)) + 1')),
    "atommic_normunet_padding_size": (
        ("w_mult = ((w - 1) | self.padding_size) + 1",
         'w_mult = (_trt_size_bitwise("|", w - 1, self.padding_size)) + 1'),
        ("h_mult = ((h - 1) | self.padding_size) + 1",
         'h_mult = (_trt_size_bitwise("|", h - 1, self.padding_size)) + 1')),
    "mridc_vnet_segmentation_pad": (
        ("w_mult = ((w - 1) | self.padding_size) + 1",
         'w_mult = (_trt_size_bitwise("|", w - 1, self.padding_size)) + 1'),
        ("h_mult = ((h - 1) | self.padding_size) + 1",
         'h_mult = (_trt_size_bitwise("|", h - 1, self.padding_size)) + 1')),
}


def _ors(path: Path) -> list[int]:
    """Every line of code in the variant with a bitwise OR on a size (MONAI's 2-D branch too)."""
    return sorted(i for i, text in enumerate(path.read_text().splitlines(), 1)
                  if "_mult = ((" in text and "|" in text and "``" not in text)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_or_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT732",), scope="all"))
    assert {f.rule for f in findings} == {"TRT732"}
    assert sorted(f.line for f in findings) == _ors(path), findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT732",), unsafe=True, scope="all")).source.decode()
    for written, rewritten in VARIANTS[name]:
        assert rewritten in new_source, new_source
        assert not [line for line in new_source.splitlines() if written in line and "``" not in line]
    assert not [line for line in new_source.splitlines() if "_mult = ((" in line and "|" in line and "``" not in line]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_does_not_export(name: str, tmp_path: Path) -> None:
    module, original = built_variant(HERE / f"{name}.py", f"trt732_o_{name}")
    example = module.inputs(seeded(0))
    result = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert result.error is not None and "bitwise OR" in str(result.error), result.error


MIGRATED = ("fastmri_normunet_pad", "monai_divisible_pad_3d", "mridc_vnet_segmentation_pad")


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_trt732_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt732_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    three_d = _line_of(path, "elif len(x.shape) == 5:") if name == "monai_divisible_pad_3d" else 0
    ran = [line for line in _ors(path) if line > three_d]  # MONAI's 2-D branch does not run
    assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT732") == sorted(ran), \
        report["applied"]
    assert {fix["rule"] for fix in report["applied"]} <= {"TRT732", "TRT712"}, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_size_bitwise(" in report["diff"], report["diff"]


def _x(shape: tuple[int, ...], seed: int, fill: float | None = None) -> tuple[torch.Tensor]:
    x = torch.randn(shape, generator=seeded(seed)) * 2
    if fill is not None:
        x.flatten()[:: max(1, x.numel() // 7)] = fill
    return (x,)


#: variant -> input sets at other sizes (multiples of 16 and not, one, two bits set) and edge values
DIRECT = {
    "direct_normunet3d_pad": {
        "multiples-of-16": _x((1, 1, 16, 32, 16), 1),
        "one-past": _x((2, 1, 17, 1, 33), 2),
        "ones": _x((1, 1, 1, 1, 1), 3),
        "zeros": (torch.zeros(1, 1, 3, 20, 9),),
        "negatives": (-_x((3, 1, 4, 7, 15), 4)[0].abs(),),
        "inf": _x((1, 1, 6, 5, 18), 5, INF),
        "no-batch": (torch.zeros(0, 1, 4, 5, 6),),
    },
    "atommic_normunet_padding_size": {
        "multiples-of-16": _x((2, 2, 16, 48), 6),
        "one-past": _x((1, 2, 17, 1), 7),
        "large": _x((1, 2, 63, 65), 8),
        "zeros": (torch.zeros(3, 2, 5, 5),),
        "negatives": (-_x((1, 2, 31, 9), 9)[0].abs(),),
        "-inf": _x((2, 2, 12, 19), 10, -INF),
        "no-batch": (torch.zeros(0, 2, 7, 8),),
    },
    # padding size 11 (0b1011): the rounding keeps bit 2 of the size and sets the others
    "mridc_vnet_segmentation_pad": {
        "bit-2-set": _x((1, 2, 5, 13), 11),
        "bit-2-clear": _x((3, 2, 9, 16), 12),
        "ones": _x((1, 2, 1, 1), 13),
        "large": _x((1, 2, 29, 40), 14),
        "zeros": (torch.zeros(2, 2, 6, 7),),
        "negatives": (-_x((1, 2, 12, 3), 15)[0].abs(),),
        "inf": _x((1, 2, 8, 21), 16, INF),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt732_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    options = Options(select=("TRT732", "TRT712"), unsafe=True, scope="all")  # TRT712: math.floor/ceil of a size
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    _, rewritten = built_variant(new_path, f"trt732_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, traced = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert not [w for w in traced if "bitwise" in w[2]], traced
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(original), inputs)})
        assert got.shape == want.shape, (label, got.shape, want.shape)
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), label
    assert_eager_unchanged(original, rewritten, sets)


MIMICRY = HERE / "mimicry_sagan_self_attention.py"
SHIFTS = ("downsampled_num = location_num >> 2", "theta = self.theta(x).view(N, C >> 3, location_num)",
          "phi = phi.view(N, C >> 3, downsampled_num)", "g = g.view(N, C >> 1, downsampled_num)",
          "attn_g = attn_g.view(N, C >> 1, H, W)")


def test_mimicrys_shifts_are_found_but_export_as_they_are(tmp_path: Path) -> None:
    """Mimicry's self-attention shifts sizes right (``location_num >> 2``, ``C >> 3``, ``C >> 1``). The
    rule finds the five shifts from the code, but the TorchScript exporter writes a shift of a traced
    size (``aten::__rshift_``: Pow, Cast, Div): the graph equals eager mode at other (even) sizes, and
    ``migrate`` finds nothing to do (exit 0). What TRT732's documentation says of shifts (no ONNX
    operator before opset 18) holds for ``| & ^`` under this exporter; a shift of a symbolic size
    does stop the dynamo exporter where its value reaches the graph (not in this model, whose
    shifted sizes only feed ``view``)."""
    findings = check_source(MIMICRY.read_bytes(), str(MIMICRY.resolve()), Options(select=("TRT732",), scope="all"))
    assert sorted((f.rule, f.line) for f in findings) == sorted(("TRT732", _line_of(MIMICRY, s)) for s in SHIFTS)
    module, model = built_variant(MIMICRY, "trt732_mimicry")
    example = module.inputs(seeded(0))
    session, traced = export_variant(model, example, module.DYNAMIC, tmp_path / "ts.onnx", tmp_path)
    assert not traced, traced  # no size turned into a constant
    for shape in [(1, 16, 4, 4), (3, 16, 12, 2), (2, 16, 2, 18)]:
        x = torch.randn(shape, generator=seeded(sum(shape)))
        with torch.no_grad():
            want = model(x).numpy()
        [got] = session.run(None, {"x": x.numpy()})
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5), shape
    report = migrate_json(MIMICRY, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is True, report["before"]
    assert report["applied"] == [] and report["exit_code"] == 0, (report["applied"], report["remaining"])
