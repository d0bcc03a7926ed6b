"""The dft-matmul recipe (TRT709) on real-code variants.

Each variant in ``tests/recipe_variants/trt709/`` is a small runnable model reduced from a public
repository (cited in its docstring) that takes a ``torch.fft`` transform as a real tensor in the
form the original writes it: vit-pytorch's SimpleViT with FFT (``torch.view_as_real(fft2(img))``,
``fft2`` imported by name), fastMRI's VarNet block (centered ``fftn``/``ifftn`` of k-space pairs,
``torch.view_as_real(torch.fft.fftn(torch.view_as_complex(data), dim=..., norm=...))``),
Hypercomplex-UNet's Fourier map (``fftn`` over every axis kept in a variable, its ``.real`` and
``.imag`` taken), vision-ssm-derain's frequency gate (``fft = torch.fft.rfft2(...)`` then
``torch.abs(fft)``: found since this variant set, see the rule's test), Fourier Transformer's DCT
of the hidden states (a 1-D ``Vc = torch.fft.fft(v, dim=1)`` read through ``Vc.real`` and
``Vc.imag``) and LaMa's Fourier unit (``rfftn`` rebound by the statement that stacks its two
parts, then ``irfftn`` of ``torch.complex``). The originals do not export with the TorchScript
exporter (no symbolic for ``aten::fft_*``). ``migrate`` rewrites vit-pytorch's, fastMRI's,
Hypercomplex-UNet's, LaMa's and vision-ssm-derain's (with TRT733 for the float64 Cast that its
``torch.nan_to_num(..., posinf=1e6)`` exports) and Fourier Transformer's (with TRT712 for its
``math.ceil`` of a size) and ends with exit 0, equivalent. Hypercomplex-UNet's and
vision-ssm-derain's are also rewritten by the rule and exported directly: the graph equals eager
mode to 1e-5 of the largest magnitude at other sizes, on zeros, negatives and large values (no
empty batch: eager mode refuses one in both), and never gives a finite value where eager mode
gives inf or NaN; eager mode is unchanged.

torch-timeseries' Autoformer auto-correlation (``irfft(rfft(q) * torch.conj(rfft(k)))``, then the
top ``int(log(length))`` delays gathered) was reverted at first contact (zoo 41): the conjugate was no
chain node, so the key's ``rfft`` stayed torch's and the export stopped at ``aten::complex``; the
conjugate is taken now (``_trt_complex_conj``), the model exports and migrate ends with exit 0.

Open-Unmix's spectrogram path (openunmix 1.3.0: its STFT kept as ``torch.view_as_real`` pairs,
``ComplexNorm``'s ``torch.abs(torch.view_as_complex(spec))`` and ``TorchISTFT``'s ``torch.istft(
torch.view_as_complex(X), ...)``) stopped at ``aten::view_as_complex`` at zoo 39's first contact once
the STFT and iSTFT were taken: a part of real pairs viewed as complex is taken now (the pairs' part
while exporting), and its reflect-padded STFT exports without the ``If`` a ``squeeze`` made: migrate
ends with exit 0, equivalent, and the graph equals eager mode at other batches and lengths.

Complex pipelines (taken since TRT709 follows a spectrum through products into complex transforms
and parts): OKNet's frequency gating (``fft2``, a product with a real tensor, ``ifft2`` kept in a
name rebound by ``torch.abs``, twice), FNet's token mixing (``fft(fft(x, dim=-1), dim=-2).real``,
rishikksh20/FNet-pytorch) and DarkIR's frequency MLP (``torch.abs`` and ``torch.angle`` of an
``rfft2``, ``torch.complex``, ``irfft2``): each named with no fix before (migrate exit 1), each
rewritten, exported with both parts taken from real tensors (the angle as TRT301's atan2 form)
and ending with exit 0, equivalent, and equal to eager mode at other sizes.

LaMa's was not taken before this variant set's fix: ``ffted`` is rebound by the statement that
reads its parts, and its ``irfftn`` was TRT706's; both are taken now (see its test). Not taken:
transformers' FNet reaches ``torch.fft.fftn`` through
``functools.partial(torch.fft.fftn, dim=(1, 2))`` held on the module: the rule does not see the
transform at the call (``self.fourier_transform(x).real``), and migrate names the export failure
at that line with no rule.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, assert_unsafe_rewrite, export_variant,
                            input_names, load_variant, rewritten_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt709"
INF = float("inf")


def _found(path: Path) -> list[tuple[str, int, str]]:
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT709",), scope="all"))
    return [(f.rule, f.line, f.fix.value) for f in findings]


#: variant -> (the transform calls the rule fixes, the text the rewrite puts there).
TAKEN = {
    "vit_pytorch_fft_patch_embedding": (["freqs = torch.view_as_real(fft2(img))"],
                                        ['freqs = _trt_fft2("view_as_real", img)']),
    "fastmri_varnet_block_centered_fft": (
        ["torch.fft.fftn(torch.view_as_complex(data)", "torch.fft.ifftn(torch.view_as_complex(data)"],
        ['data = _trt_fftn("pairs:view_as_real", data, dim=(-2, -1), norm=norm)',
         'data = _trt_ifftn("pairs:view_as_real", data, dim=(-2, -1), norm=norm)']),
    "hypercomplex_unet_fft_map": (["fft_x = torch.fft.fftn(x)"],
                                  ['fft_x = _trt_fftn("complex", x)', 'fft_x_real = _trt_dft_part(fft_x, "real")',
                                   'fft_x_imag = _trt_dft_part(fft_x, "imag")']),
    "vision_ssm_derain_freq_enhance": (['fft = torch.fft.rfft2(x32, norm="ortho")'],
                                       ['fft = _trt_rfft2("complex", x32, norm="ortho")',
                                        'amp = _trt_dft_part(fft, "abs")']),
    "fourier_transformer_dct_lowpass": (["Vc = torch.fft.fft(v, dim=1)"],
                                        ['Vc = _trt_fft("complex", v, dim=1)',
                                         'V = _trt_dft_part(Vc, "real") * W_r - _trt_dft_part(Vc, "imag") * W_i']),
    # Complex pipelines: a spectrum times a real tensor, its inverse complex transform kept in a name and
    # rebound by its magnitude (one fix each); a transform of a transform read by `.real`; `torch.angle` as a part.
    "oknet_frequency_gating": (['x2_fft = torch.fft.fft2(x2, norm="backward")',
                                'x_fft = torch.fft.fft2(out, norm="backward")'],
                               ['x2_fft = _trt_fft2("tracked", x2, norm="backward")',
                                "out = _trt_complex_mul(x1, x2_fft)",
                                'out = _trt_ifft2("tracked", out, dim=(-2, -1), norm="backward")',
                                'out = _trt_dft_part(out, "tracked:abs")',
                                "x_fft = _trt_complex_mul(x_att, x_fft)",
                                'x_fca = _trt_dft_part(x_fca, "tracked:abs")']),
    "fnet_pytorch_fourier_mixing": (["x = torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real"],
                                    ['x = _trt_fft("real", _trt_fft("tracked", x, dim=-1), dim=-2)']),
    "darkir_amplitude_phase_mlp": (['x_freq = torch.fft.rfft2(x, norm="backward")',
                                    "x_out = torch.fft.irfft2(x_out, s=(H, W), norm=\"backward\")"],
                                   ['x_freq = _trt_rfft2("complex", x, norm="backward")',
                                    'mag = _trt_dft_part(x_freq, "abs")', 'pha = _trt_dft_part(x_freq, "angle")',
                                    "x_out = _trt_complex(real, imag)"]),
    # An STFT kept in a variable: its magnitude, a function reading it only through abs, a product with a real mask
    # and the inverse STFT of that product (one fix); the noise clip's STFT read by that function alone (another).
    "noisereduce_torchgate_spectral_gate": (
        ["XN = torch.stft(xn, n_fft=self.n_fft,", "X = torch.stft("],
        ['XN = _trt_stft("tracked", xn, n_fft=self.n_fft,', "XN_db = amp_to_db(_trt_dft_abs_argument(XN))",
         'X = _trt_stft("tracked", ', 'sig_mask = self._nonstationary_mask(_trt_dft_part(X, "tracked:abs"))',
         "sig_mask = self._stationary_mask(amp_to_db(_trt_dft_abs_argument(X)))",
         "Y = _trt_complex_mul(X, sig_mask.squeeze(1))", "y = _trt_istft("]),
}


# An inverse of a spectrum times the other's conjugate (`torch.conj` of a spectrum is a chain node).
TAKEN["torch_timeseries_autoformer_autocorrelation"] = (
    ["q_fft = torch.fft.rfft("],
    ['q_fft = _trt_rfft("tracked", q.permute(0, 2, 3, 1).contiguous(), dim=-1)',
     'k_fft = _trt_rfft("tracked", k.permute(0, 2, 3, 1).contiguous(), dim=-1)',
     "res = _trt_complex_mul(q_fft, _trt_complex_conj(k_fft))", "corr = _trt_irfft(res, dim=-1)"])
# Open-Unmix: an STFT kept as real pairs (``torch.view_as_real``), the magnitude of those pairs
# (``torch.abs(torch.view_as_complex(spec))``, its ComplexNorm) and the iSTFT of ``view_as_complex`` pairs.
TAKEN["openunmix_complex_norm_mask"] = (
    ["complex_stft = torch.stft(", "spec = torch.abs(torch.view_as_complex(spec))", "y = torch.istft("],
    ['complex_stft = _trt_stft("complex", x,', 'stft_f = _trt_dft_part(complex_stft, "view_as_real")',
     'spec = _trt_dft_part(_trt_view_as_complex(spec), "abs")', "y = _trt_istft(_trt_view_as_complex(X),"])
TAKEN["noisereduce_torchgate_partial_gate"] = (["X = torch.stft("],
                                              ['X = _trt_stft("tracked", x,', "X_db = amp_to_db(_trt_dft_abs_argument(X))",
                                               "y = _trt_istft(Y, n_fft=self.n_fft,"])


@pytest.mark.parametrize("name", list(TAKEN))
def test_the_rule_finds_each_transform_and_rewrites_it_with_unsafe_only(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    calls, fragments = TAKEN[name]
    assert _found(path) == [("TRT709", _line_of(path, call), "unsafe") for call in calls]
    # The fragments are in the new code, nothing is left for the rule, nothing without --unsafe.
    assert_unsafe_rewrite(rewritten_variant(path, "TRT709", tmp_path), tuple(fragments), "TRT709")


@pytest.mark.parametrize("name", ["vit_pytorch_fft_patch_embedding", "fastmri_varnet_block_centered_fft",
                                  "hypercomplex_unet_fft_map", "oknet_frequency_gating", "fnet_pytorch_fourier_mixing",
                                  "darkir_amplitude_phase_mlp", "torch_timeseries_autoformer_autocorrelation",
                                  "openunmix_complex_norm_mask"])
def test_migrate_rewrites_the_transforms_and_the_model_exports_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    lines = [_line_of(path, call) for call in TAKEN[name][0]]
    assert sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT709") == sorted(lines)
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    for fragment in TAKEN[name][1]:
        assert fragment in report["diff"], report["diff"]


def test_vision_ssm_derain_takes_the_transform_and_its_nan_to_num_end_to_end() -> None:
    """TRT709 takes the transform; the rewritten model's ``torch.nan_to_num(..., posinf=1e6)`` exports
    with the Cast to float64 TensorRT refuses, which TRT733 takes too (it stopped at that line,
    exit 1, before TRT733 existed)."""
    name = "vision_ssm_derain_freq_enhance"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [
        ("TRT709", _line_of(path, "fft = torch.fft.rfft2(")), ("TRT733", _line_of(path, "gate32 = torch.nan_to_num("))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def test_fourier_transformer_dct_takes_the_transform_and_its_size_unpacking_end_to_end() -> None:
    """TRT709 takes the 1-D ``fft`` read through ``.real`` and ``.imag``; the model's
    ``math.ceil(T * KEPT)`` of a size is TRT712's (a verified candidate too). The ``np.sqrt(N)`` of the ortho scaling
    stays a warning (TRT711, no fix): ``N`` is the time axis, fixed here, so its value holds."""
    name = "fourier_transformer_dct_lowpass"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [
        ("TRT709", _line_of(path, "Vc = torch.fft.fft(")), ("TRT712", _line_of(path, "return x_dct[:math.ceil(T * KEPT)"))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert {r["rule"] for r in report["remaining"]} <= {"TRT711"}, report["remaining"]
    for fragment in TAKEN[name][1]:
        assert fragment in report["diff"], report["diff"]


def test_lama_rebound_transform_and_its_inverse_end_to_end() -> None:
    """``ffted`` is bound to the transform, then rebound by the statement that stacks its parts:
    every read the transform reaches takes a part, so the rule takes it (one fix); the
    ``irfftn`` of ``torch.complex(ffted[..., 0], ffted[..., 1])`` is taken too. migrate ends with
    exit 0, equivalent (before this, the rule named the call without a fix and migrate stopped
    there, exit 1)."""
    name = "lama_ffc_fourier_unit"
    path = HERE / f"{name}.py"
    forward, inverse = _line_of(path, "ffted = torch.fft.rfftn("), _line_of(path, "return torch.fft.irfftn(")
    assert _found(path) == [("TRT709", forward, "unsafe"), ("TRT709", inverse, "unsafe")]
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT709", forward),
                                                                                ("TRT709", inverse)]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    for fragment in ('ffted = _trt_rfftn("complex", x, dim=fft_dim, norm=self.fft_norm)',
                     'ffted = torch.stack((_trt_dft_part(ffted, "real"), _trt_dft_part(ffted, "imag")), dim=-1)',
                     "ffted = _trt_complex(ffted[..., 0], ffted[..., 1])",
                     "return _trt_irfftn(ffted, s=ifft_shape_slice, dim=fft_dim, norm=self.fft_norm)"):
        assert fragment in report["diff"], report["diff"]


def test_noisereduce_gate_migrates_its_forward_stft_and_istft() -> None:
    """The forward's STFT, its magnitude, ``amp_to_db`` of it, the masked product and the inverse
    are one fix; the noise clip's STFT (``xn`` is None in this model) never runs, so migrate
    leaves it as it is: exit 0, equivalent (before: TRT706 at the STFT, exit 1)."""
    name = "noisereduce_torchgate_spectral_gate"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT709", _line_of(path, "X = torch.stft("))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    for fragment in TAKEN[name][1][3:]:
        assert fragment in report["diff"], report["diff"]


def test_noisereduce_partial_gate_lands_the_squeeze_inside_the_rewritten_product() -> None:
    """TRT709 wraps ``X * sig_mask.squeeze(1)`` in ``_trt_complex_mul(...)``; the squeeze (an ONNX
    ``If`` on a dynamic axis, TRT401's, proved by the observed sizes) then stands on a line that
    fix changed, at another column. The plan and the facts find it by its text, once on the line
    before and once after, so both fixes land: exit 0, equivalent (before, TRT401 stayed named
    "no observation covers its assumption", exit 1: noisereduce's ``nr_gate_partial``)."""
    name = "noisereduce_torchgate_partial_gate"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    product = _line_of(path, "Y = X * sig_mask.squeeze(1)")
    assert sorted((fix["rule"], fix["line"], fix["landed"]) for fix in report["applied"]) == [
        ("TRT401", product, True), ("TRT709", _line_of(path, "X = torch.stft("), True)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "Y = _trt_complex_mul(X, _trt_squeeze_kept(sig_mask, 1))" in report["diff"], report["diff"]


def test_fnet_partial_is_not_seen() -> None:
    """The transform is bound with ``functools.partial`` when the model is built; at the call the
    rule sees ``self.fourier_transform(...)``, not ``torch.fft.fftn``. migrate places the export
    failure at that line with no rule."""
    name = "transformers_fnet_partial_fftn"
    path = HERE / f"{name}.py"
    assert _found(path) == []
    module = load_variant(path, f"trt709_m_{name}")
    report = migrate_json(path, _axes_json(module))
    line = _line_of(path, "outputs = self.fourier_transform(hidden_states).real")
    assert report["applied"] == [] and report["exit_code"] == 1
    assert any("aten::fft_fftn" in r["message"] and r["source"].endswith(f"{path.name}:{line}")
               for r in report["remaining"]), report["remaining"]


#: Direct export: input sets at other sizes and edge values (one input each).
DIRECT = {
    "hypercomplex_unet_fft_map": {
        "other size": torch.randn(3, 3, 9, 4, generator=seeded(1)),
        "one pixel": torch.randn(1, 3, 1, 1, generator=seeded(2)),
        "zeros": torch.zeros(2, 3, 5, 7),
        "negatives": -torch.rand(2, 3, 4, 8, generator=seeded(3)) - 1,
        "large": torch.randn(2, 3, 6, 6, generator=seeded(4)) * 1e4,
        # No empty batch: the transform runs over the batch axis too, and eager ``fftn`` refuses a
        # length of 0 ("Invalid number of data points").
    },
    "oknet_frequency_gating": {
        "other size": torch.randn(3, 4, 7, 9, generator=seeded(9)),
        "odd width": torch.randn(1, 4, 12, 5, generator=seeded(10)),
        "zeros": torch.zeros(2, 4, 6, 8),
        "negatives": -torch.rand(2, 4, 8, 6, generator=seeded(11)) - 1,
        "large": torch.randn(2, 4, 10, 12, generator=seeded(12)) * 1e4,
    },
    "fnet_pytorch_fourier_mixing": {
        "other size": torch.randn(3, 9, 8, generator=seeded(13)),
        "one token": torch.randn(2, 1, 8, generator=seeded(14)),
        "zeros": torch.zeros(2, 5, 8),
        "negatives": -torch.rand(2, 7, 8, generator=seeded(15)) - 1,
        "large": torch.randn(2, 6, 8, generator=seeded(16)) * 1e4,
    },
    "darkir_amplitude_phase_mlp": {
        "other size": torch.randn(3, 3, 7, 9, generator=seeded(17)),
        "odd width": torch.randn(1, 3, 12, 5, generator=seeded(18)),
        "zeros": torch.zeros(2, 3, 6, 8),
        "negatives": -torch.rand(2, 3, 8, 6, generator=seeded(19)) - 1,
        "large": torch.randn(2, 3, 10, 12, generator=seeded(20)) * 1e4,
    },
    "noisereduce_torchgate_spectral_gate": {
        "batch 3, a length no multiple of the hop": torch.randn(3, 517, generator=seeded(21)),
        "batch 1": torch.randn(1, 640, generator=seeded(22)),
        "zeros": torch.zeros(2, 400),
        "an impulse": torch.zeros(2, 300).index_fill_(1, torch.tensor([150]), 1.0),
        "large": torch.randn(2, 333, generator=seeded(23)) * 1e4,
    },
    # The window is fixed (the delays kept follow its length): other batches, edge values.
    "torch_timeseries_autoformer_autocorrelation": {
        "batch 1": torch.randn(1, 24, 8, generator=seeded(24)),
        "batch 3": torch.randn(3, 24, 8, generator=seeded(25)),
        "zeros": torch.zeros(2, 24, 8),
        "negatives": -torch.rand(2, 24, 8, generator=seeded(26)) - 1,
        "large": torch.randn(2, 24, 8, generator=seeded(27)) * 1e4,
    },
    # Reflect padding (the batch packed into rows), stereo: other batches and lengths, edge values.
    "openunmix_complex_norm_mask": {
        "batch 3, a length no multiple of the hop": 2 * torch.rand(3, 2, 517, generator=seeded(28)) - 1,
        "batch 1, short": 2 * torch.rand(1, 2, 97, generator=seeded(29)) - 1,
        "zeros": torch.zeros(2, 2, 400),
        "an impulse": torch.zeros(2, 2, 300).index_fill_(2, torch.tensor([150]), 1.0),
        "large": torch.randn(2, 2, 333, generator=seeded(30)) * 1e4,
    },
    "vision_ssm_derain_freq_enhance": {
        "other size": torch.randn(3, 4, 7, 9, generator=seeded(5)),
        "odd width": torch.randn(1, 4, 12, 5, generator=seeded(6)),
        "zeros": torch.zeros(2, 4, 6, 8),
        "negatives": -torch.rand(2, 4, 8, 6, generator=seeded(7)) - 1,
        "large": torch.randn(2, 4, 10, 12, generator=seeded(8)) * 1e4,
        # No empty batch: eager ``rfft2`` on the CPU refuses a batch of 0 (an MKL configuration error).
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    variant = rewritten_variant(path, "TRT709", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(seeded(0))
    # The original: no TorchScript export at all.
    failed = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert failed.error is not None and ("fft" in failed.error or "STFT" in failed.error), failed.error
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example[0], **DIRECT[name]}
    for label, x in sets.items():
        assert_graph_within(session, original, (x,), 1e-5, label)
    # An infinity in the input: the products spread it over its lines (the recipe's stated
    # assumption), so the graph may give NaN where the FFT is finite, but never a finite value
    # where eager mode has inf or NaN.
    special = example[0].clone()
    lead = special.dim() - 2  # (the leading axes: batch and channels, or batch alone)
    special[(0,) * lead + (1, 2)] = INF
    special[(1,) * lead + (0, 0)] = -INF
    with torch.no_grad():
        want = original(special).numpy()
    [got] = session.run(None, {input_names(original)[0]: special.numpy()})
    assert got.shape == want.shape and not np.isfinite(want).all()
    assert not np.isfinite(got[~np.isfinite(want)]).any()
    scale = max(1.0, float(np.abs(want[np.isfinite(want)]).max(initial=0.0)))
    assert np.allclose(got[np.isfinite(got)], want[np.isfinite(got)], rtol=0, atol=1e-5 * scale)
    # Eager mode is the original: values bit for bit, and the same behaviour with gradients.
    for label, x in sets.items():
        with torch.no_grad():
            torch.testing.assert_close(rewritten(x), original(x), rtol=0, atol=0, equal_nan=True, msg=label)
    assert_eager_unchanged(original, rewritten, {"example": example, "inf": (special,)})
