"""TRT709 (``torch.fft.*`` taken as a real tensor): cosine and sine matrix products while exporting.

The rewrite text (the uses taken, import names, a transform kept in a variable, what is refused),
eager mode bit for bit against the original (the helpers are the torch functions there), the
export formulation against ``torch.fft`` on real tensors (every transform, ``n``/``s``/``dim``/
``norm``, sizes 1, odd sizes, zeros, negatives, integers, half precision, inf/NaN), the export
with both exporters (the original fails or yields DFT; the rewritten graph has no DFT, passes the
TensorRT check and equals eager at other sizes in ONNX Runtime), the rule on real uses of
``torch.fft`` from vit_pytorch, MONAI, timm and kornia (restated in our words), and migrate on a
small model.
"""

from __future__ import annotations

import io
import math
import textwrap
import warnings

import onnx
import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import export_formulation, migrate_small, rewrite, rules_found, strip_helpers

from trtcodemod.helpers.spectral import (
    _trt_fft, _trt_fft2, _trt_fftn, _trt_fftshift, _trt_ifft, _trt_ifft2, _trt_ifftn, _trt_ifftshift, _trt_rfft,
    _trt_rfft2, _trt_rfftn,
)
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph

HELPERS = {"fft": _trt_fft, "ifft": _trt_ifft, "rfft": _trt_rfft, "fft2": _trt_fft2, "ifft2": _trt_ifft2,
           "rfft2": _trt_rfft2, "fftn": _trt_fftn, "ifftn": _trt_ifftn, "rfftn": _trt_rfftn}
PARTS = {"view_as_real": lambda z: torch.view_as_real(z.resolve_conj()), "real": lambda z: z.real,
         "imag": lambda z: z.imag, "abs": lambda z: z.abs()}

SOURCE = '''
import torch
import torch.fft as tfft
from torch import nn
from torch.fft import fft2


class Spectra(nn.Module):
    def forward(self, img, signal):
        freqs = torch.view_as_real(fft2(img))
        magnitude = torch.fft.rfft(signal, n=12, dim=-1, norm="ortho").abs()
        real = tfft.fftn(img, dim=(-2, -1)).real.sum(-1)
        imag = torch.imag(torch.fft.ifft(signal))
        kept = tfft.rfft2(img, s=(4, 6), norm="forward")
        energy = torch.real(kept) ** 2 + kept.imag ** 2
        pairs = torch.stack((img, img.flip(-1)), -1)
        back = torch.view_as_real(torch.fft.ifft2(torch.view_as_complex(pairs), norm="ortho"))
        return freqs, magnitude, real, imag, energy, back
'''


def test_rewrite_text_and_what_is_left() -> None:
    assert rules_found(SOURCE, select=("TRT709",)) == ["TRT709"] * 6
    assert rewrite(SOURCE, select=("TRT709",)) == rewrite(SOURCE, select=("TRT709",), unsafe=False)
    assert "_trt_" not in rewrite(SOURCE, select=("TRT709",))  # unsafe: nothing without --unsafe
    after = strip_helpers(rewrite(SOURCE, select=("TRT709",), unsafe=True))
    assert 'freqs = _trt_fft2("view_as_real", img)' in after
    assert 'magnitude = _trt_rfft("abs", signal, n=12, dim=-1, norm="ortho")' in after
    assert 'real = _trt_fftn("real", img, dim=(-2, -1)).sum(-1)' in after
    assert 'imag = _trt_ifft("imag", signal)' in after
    assert 'kept = _trt_rfft2("complex", img, s=(4, 6), norm="forward")' in after
    assert 'energy = _trt_dft_part(kept, "real") ** 2 + _trt_dft_part(kept, "imag") ** 2' in after
    assert 'back = _trt_ifft2("pairs:view_as_real", pairs, norm="ortho")' in after
    once = rewrite(SOURCE, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once
    refused = '''
import torch
from torch import nn


class Refused(nn.Module):
    def forward(self, x, k, buffer, args):
        product = torch.fft.irfft(torch.fft.rfft(x) / torch.fft.rfft(k))  # a quotient of spectra
        first = torch.fft.fft(x, dim=-1)[:, :3].real          # indexed while complex
        written = torch.fft.fft(x, out=buffer).real           # out=
        unpacked = torch.view_as_real(torch.fft.fft2(*args))  # unpacked arguments
        z = torch.fft.fftn(x)
        mixed = z.real + z * 2                                # z is also used as a complex tensor
        return product, first, written, unpacked, mixed
'''
    assert rules_found(refused, select=("TRT709",)) == ["TRT709"] * 6
    assert rewrite(refused, select=("TRT709",), unsafe=True) == refused  # nothing rewritten
    # A name rebound to the spectrum times a number, then read by a part: a complex pipeline (taken).
    rebound = "import torch\ndef f(x):\n    w = torch.fft.fft(x)\n    w = w * 2\n    return w.real\n"
    after = strip_helpers(rewrite(rebound, select=("TRT709",), unsafe=True))
    for line in ('w = _trt_fft("tracked", x)', "w = _trt_complex_mul(w, 2)", 'return _trt_dft_part(w, "tracked:real")'):
        assert line in after, after
    own = "def fft2(x):\n    return x\n\ndef f(x):\n    return fft2(x).real\n"
    assert rules_found(own, select=("TRT709",)) == []


def test_a_variable_named_like_the_module_is_kept() -> None:
    """``fft = torch.fft.rfft2(x)`` (vision-ssm-derain's ``FreqEnhance``): the ``fft`` in
    ``torch.fft.rfft2`` and a keyword named ``fft`` are no uses of the variable, so its one use
    still takes a part. (Before, they counted as uses of the complex tensor: no fix.)"""
    code = '''
import torch
from torch import nn


class FreqEnhance(nn.Module):
    def forward(self, x, gate):
        fft = torch.fft.rfft2(x.float(), norm="ortho")
        amp = torch.abs(fft)
        return gate(amp, fft=None)
'''
    after = strip_helpers(rewrite(code, select=("TRT709",), unsafe=True))
    assert 'fft = _trt_rfft2("complex", x.float(), norm="ortho")' in after, after
    assert 'amp = _trt_dft_part(fft, "abs")' in after and "return gate(amp, fft=None)" in after
    # A real second use of the variable still keeps the call as it is.
    mixed = code.replace("return gate(amp, fft=None)", "return gate(amp, fft=fft)")
    assert rewrite(mixed, select=("TRT709",), unsafe=True) == mixed


def _signal(shape: tuple[int, ...], values: str, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    g = torch.Generator().manual_seed(sum(shape) + len(values))
    x = torch.randn(*shape, generator=g, dtype=torch.float64)
    if values == "zeros":
        x = torch.zeros_like(x)
    elif values == "negative":
        x = -x.abs() - 1
    return x.to(dtype)


def _calls(kind: str) -> list[dict]:
    """Argument sets real code passes (as keywords), for ``kind``."""
    if kind in ("fft", "ifft", "rfft"):
        return [{}, {"n": 7}, {"n": 3, "dim": 1}, {"dim": 0}, {"n": 1, "dim": -2}]
    if kind.endswith("2"):
        return [{}, {"s": (5, 3)}, {"s": (2, 9), "dim": (0, 2)}, {"dim": (1, -1)}, {"s": (-1, 4)}]
    return [{}, {"dim": (-2, -1)}, {"s": (4,)}, {"s": (3, 5), "dim": (0, -1)}, {"dim": 1}]


@pytest.mark.parametrize("kind", list(HELPERS))
def test_the_export_formulation_is_torchs_transform_up_to_rounding(kind) -> None:
    fn, helper = getattr(torch.fft, kind), HELPERS[kind]
    for shape in [(2, 3, 8), (1, 1, 1), (3, 5, 7), (2, 1, 9), (4, 6, 1)]:
        for values in ("random", "zeros", "negative"):
            x = _signal(shape, values)
            for kwargs in _calls(kind):
                for norm in (None, "backward", "ortho", "forward"):
                    for part, take in PARTS.items():
                        want = take(fn(x, norm=norm, **kwargs))
                        with export_formulation():
                            got = helper(part, x, norm=norm, **kwargs)
                        assert got.dtype == want.dtype and got.shape == want.shape, (kind, shape, kwargs, part)
                        assert torch.allclose(got, want, rtol=1e-12, atol=1e-12), (kind, shape, values, kwargs, norm)


@pytest.mark.parametrize("kind", ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"])
def test_the_export_formulation_of_complex_pairs(kind) -> None:
    """``fft(torch.view_as_complex(pairs))``: the products take both parts of the pairs."""
    fn, helper = getattr(torch.fft, kind), HELPERS[kind]
    for shape in [(2, 3, 8, 2), (1, 1, 1, 2), (3, 5, 7, 2)]:
        for values in ("random", "zeros", "negative"):
            pairs = _signal(shape, values)
            for kwargs in _calls(kind)[:3]:
                for part, take in PARTS.items():
                    want = take(fn(torch.view_as_complex(pairs), norm="ortho", **kwargs))
                    outside = helper(f"pairs:{part}", pairs, norm="ortho", **kwargs)
                    assert torch.equal(outside, want)  # outside an export: torch's transform itself
                    with export_formulation():
                        got = helper(f"pairs:{part}", pairs, norm="ortho", **kwargs)
                    assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-12, atol=1e-12), (kind, kwargs)


def test_the_export_formulation_on_other_dtypes() -> None:
    x = _signal((2, 16, 16), "random", torch.float32)
    with export_formulation():
        got = _trt_fft2("view_as_real", x)
        whole = _trt_rfft("abs", torch.arange(-4, 5))
        half = _trt_fft("real", x.half())
        brain = _trt_rfftn("imag", x.bfloat16())
        positional = _trt_fft2("view_as_real", x, (8, 8), (0, 1), "ortho")
    want = torch.view_as_real(torch.fft.fft2(x))
    assert got.dtype == torch.float32 and float((got - want).abs().max() / want.abs().max()) < 2e-6
    assert whole.dtype == torch.float32 and torch.allclose(whole, torch.fft.rfft(torch.arange(-4, 5)).abs(), atol=1e-5)
    assert half.dtype == torch.float16 and torch.allclose(half.float(), torch.fft.fft(x).real, atol=3e-2, rtol=1e-3)
    assert brain.dtype == torch.bfloat16 and torch.allclose(brain.float(), torch.fft.rfftn(x).imag, atol=0.5, rtol=1e-2)
    assert torch.allclose(positional, torch.view_as_real(torch.fft.fft2(x, (8, 8), (0, 1), "ortho")), atol=1e-5)


def test_the_shifts_export_as_the_same_permutation_bit_for_bit() -> None:
    for shape in [(7, 4), (1, 1), (5, 6, 3), (0, 3), (2, 9, 8)]:
        x = torch.randn(*shape)
        for dim in (None, 0, -1, (0, 1), [-1, 0]):
            with export_formulation():
                shifted, back = _trt_fftshift(x, dim), _trt_ifftshift(x, dim=dim)
            assert torch.equal(shifted, torch.fft.fftshift(x, dim)) and torch.equal(back, torch.fft.ifftshift(x, dim))
    whole = torch.arange(12).reshape(3, 4)
    with export_formulation():
        assert torch.equal(_trt_fftshift(whole), torch.fft.fftshift(whole))
    for name, fn, original in (("fftshift", _trt_fftshift, torch.fft.fftshift),
                               ("ifftshift", _trt_ifftshift, torch.fft.ifftshift)):
        x = torch.randn(2, 3, 8, 7)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception, match=name):
                torch.onnx.export(_Shift(original), (x,), io.BytesIO(), dynamo=False, opset_version=17)
            buffer = io.BytesIO()
            torch.onnx.export(_Shift(fn), (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
        session = ort.InferenceSession(buffer.getvalue())
        for shape in [(1, 3, 5, 11), (3, 3, 2, 2), (1, 3, 1, 1)]:
            y = torch.randn(*shape)
            assert torch.equal(torch.from_numpy(session.run(None, {"x": y.numpy()})[0]), original(y, (-2, -1)))


class _Shift(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x, (-2, -1))


def test_inf_and_nan_spread_over_their_line() -> None:
    """As documented: the FFT keeps some outputs of a line with an inf finite; the products do not."""
    x = torch.tensor([[1.0, math.inf, 2.0, 3.0], [1.0, math.nan, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]])
    want = torch.view_as_real(torch.fft.fft(x))
    with export_formulation():
        got = _trt_fft("view_as_real", x)
    assert bool(want[0].isfinite().any()) and not bool(got[0].isfinite().any())
    assert not bool(got[1].isfinite().any())
    assert torch.allclose(got[2], want[2], atol=1e-5)  # the other lines keep their values


@pytest.fixture(scope="module")
def spectra(tmp_path_factory):
    before = import_source(SOURCE, tmp_path_factory.mktemp("before"))["Spectra"]
    after = import_source(rewrite(SOURCE, select=("TRT709",), unsafe=True), tmp_path_factory.mktemp("after"))["Spectra"]
    return before, after


def _inputs(n: int, h: int, w: int, values: str) -> list[torch.Tensor]:
    img = _signal((n, 3, h, w), values, torch.float32)
    signal = _signal((n, 10), values, torch.float32)
    if values == "special":
        img.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
    return [img.requires_grad_(True), signal.requires_grad_(True)]


def test_eager_mode_is_the_original_bit_for_bit(spectra) -> None:
    before, after = spectra
    for n, h, w in [(1, 4, 6), (2, 5, 7), (1, 1, 1)]:
        for values in ("random", "zeros", "negative", "special"):
            original = run_once(before(), _inputs(n, h, w, values))
            assert original.error is None and original.backward_error is None  # values are compared, not errors
            assert_same_run(original, run_once(after(), _inputs(n, h, w, values)), context=f"{n} {h} {w} {values}")
    for inputs in ([torch.zeros(0, 3, 4, 6), torch.zeros(0, 10)],            # empty batch: torch's error
                   [torch.ones(1, 3, 4, 6, dtype=torch.complex64), torch.randn(1, 10)],  # complex: torch's values
                   [torch.ones(1, 3, 4, 6, dtype=torch.float16), torch.randn(1, 10)]):   # half on CPU: torch's error
        assert_same_run(run_once(before(), inputs), run_once(after(), inputs))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool) -> onnx.ModelProto:
    names = ["img", "signal"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {"img": {0: torch.export.Dim("n"), 2: torch.export.Dim("h", min=2), 3: torch.export.Dim("w", min=2)},
                    "signal": {0: torch.export.Dim("n")}}
            return torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=names, dynamic_shapes=dims,
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={"img": {0: "n", 2: "h", 3: "w"}, "signal": {0: "n"}})
        return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_original_does_not_export_and_the_rewrite_matches_eager(spectra, dynamo) -> None:
    before, after = spectra
    example = [t.detach() for t in _inputs(2, 8, 6, "random")]
    if dynamo:
        try:
            graph = _export(before(), example, dynamo)
        except Exception:  # noqa: BLE001 - complex outputs may not export at all: as bad
            pass
        else:
            assert "DFT" in {n.op_type for n in graph.graph.node}
    else:
        with pytest.raises(Exception, match="fft"):
            _export(before(), example, dynamo)
    graph = _export(after(), example, dynamo)
    ops = {n.op_type for n in graph.graph.node}
    assert "DFT" not in ops and "MatMul" in ops
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    assert not [i for i in check_graph(graph, target="8.4") if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for n, h, w in [(2, 8, 6), (1, 5, 11), (3, 16, 16), (1, 2, 3)]:  # other sizes than the example's
        for values in ("random", "zeros", "negative"):
            inputs = [t.detach() for t in _inputs(n, h, w, values)]
            got = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)})
            for mine, want in zip(got, before()(*inputs)):
                want = want.detach()
                assert mine.shape == tuple(want.shape)
                assert torch.allclose(torch.from_numpy(mine), want, rtol=1e-4, atol=1e-4 * (1 + float(want.abs().max())))


# --- real uses of torch.fft (restated in our words) -------------------------------------------

REAL_USES = '''
import torch
from torch import nn
from torch.fft import fft2


class FrequencyPatches(nn.Module):
    """vit_pytorch's SimpleViT with FFT: the image's 2-D spectrum, as real and imaginary channels."""

    def forward(self, img):
        freqs = torch.view_as_real(fft2(img))
        return freqs.flatten(-2)


class CenteredKSpace(nn.Module):
    """MONAI's fftn_centered_t on a real image: the centered orthonormal spectrum over the last axes."""

    def __init__(self, spatial_dims=2):
        super().__init__()
        self.spatial_dims = spatial_dims

    def forward(self, im):
        dims = tuple(range(-self.spatial_dims, 0))
        x = torch.fft.ifftshift(im, dims)
        x = torch.view_as_real(torch.fft.fftn(x, dim=dims, norm="ortho"))
        return torch.fft.fftshift(x, [d - 1 for d in dims])


class SpectralAmplitude(nn.Module):
    """MONAI's spectral loss: the amplitude of the spectrum, from its real and imaginary parts."""

    def __init__(self, size=None, dims=(2, 3), norm="ortho"):
        super().__init__()
        self.fft_signal_size, self.fft_dim, self.fft_norm = size, dims, norm

    def forward(self, images):
        img_fft = torch.fft.fftn(images, s=self.fft_signal_size, dim=self.fft_dim, norm=self.fft_norm)
        return torch.sqrt(torch.real(img_fft) ** 2 + torch.imag(img_fft) ** 2)


def dct_kernel(size):
    """timm's CSATv2 DCT-II kernel: the spectrum is cut while complex, then turned by a complex factor."""
    v = torch.eye(size)
    v = torch.cat([v, v.flip([1])], dim=-1)
    v = torch.fft.fft(v, dim=-1)[:, :size]
    k = torch.exp(-1j * torch.pi * torch.arange(size)[None, :] / (2 * size))
    return (v * k).real


def fft_conv(image, kernel, h, w):
    """kornia's FFT filtering: a product of two spectra, transformed back."""
    image_fr = torch.fft.rfftn(image, dim=(-2, -1))
    kernel_fr = torch.fft.rfftn(kernel, s=(h, w), dim=(-2, -1))
    return torch.fft.irfftn(image_fr * kernel_fr, s=(h, w), dim=(-2, -1))


def hilbert(x, axis):
    """MONAI's Hilbert transform: the spectrum of a complex signal, stepped, transformed back."""
    x = torch.as_tensor(x, dtype=torch.complex64)
    xf = torch.fft.fft(x, n=x.shape[axis], dim=axis)
    return torch.fft.ifft(xf * 2, dim=axis)
'''


def test_the_rule_on_real_uses(tmp_path) -> None:
    after_text = rewrite(REAL_USES, select=("TRT709",), unsafe=True)
    stripped = strip_helpers(after_text)
    assert 'freqs = _trt_fft2("view_as_real", img)' in stripped
    assert 'x = _trt_fftn("view_as_real", x, dim=dims, norm="ortho")' in stripped
    assert '_trt_dft_part(img_fft, "real") ** 2 + _trt_dft_part(img_fft, "imag") ** 2' in stripped
    # kornia's product of two spectra, transformed back by irfftn: the chain is taken
    assert 'image_fr = _trt_rfftn("tracked", image, dim=(-2, -1))' in stripped
    assert 'kernel_fr = _trt_rfftn("tracked", kernel, s=(h, w), dim=(-2, -1))' in stripped
    assert "return _trt_irfftn(_trt_complex_mul(image_fr, kernel_fr), s=(h, w), dim=(-2, -1))" in stripped
    # the two other complex uses are named, not rewritten
    for kept in ("torch.fft.fft(v, dim=-1)[:, :size]", "torch.fft.fft(x, n=x.shape[axis], dim=axis)"):
        assert kept in stripped
    assert "x = _trt_ifftshift(im, dims)" in stripped and "return _trt_fftshift(x, [d - 1 for d in dims])" in stripped
    assert rules_found(REAL_USES, select=("TRT709",)) == ["TRT709"] * 9  # 6 fixed (fft_conv's chain); 3 named
    before_ns = import_source(REAL_USES, tmp_path)
    after_ns = import_source(after_text, tmp_path)
    g = torch.Generator().manual_seed(11)
    for h, w in ((8, 8), (7, 10)):  # fft_conv: eager bit for bit, and its formulation while exporting
        image, kernel = torch.randn(2, 3, h, w, generator=g), torch.randn(1, 3, 3, 3, generator=g)
        want = before_ns["fft_conv"](image, kernel, h, w)
        assert torch.equal(after_ns["fft_conv"](image, kernel, h, w), want)
        with export_formulation(after_ns):
            got = after_ns["fft_conv"](image, kernel, h, w)
        assert torch.allclose(got, want, atol=1e-5 * (1 + float(want.abs().max()))), (h, w)
    cases = [("FrequencyPatches", (), [torch.randn(2, 3, 8, 8, generator=g)], {"img": {0: "n", 2: "h", 3: "w"}},
              [(1, 3, 6, 10)]),
             ("CenteredKSpace", (), [torch.randn(2, 1, 6, 8, generator=g)], {"im": {0: "n", 2: "h", 3: "w"}},
              [(1, 1, 9, 5)]),
             ("SpectralAmplitude", (), [torch.randn(2, 1, 6, 8, generator=g)], {"images": {0: "n", 2: "h", 3: "w"}},
              [(3, 1, 7, 4)])]
    for name, args, example, axes, others in cases:
        original, rewritten = before_ns[name](*args), after_ns[name](*args)
        for x in example + [torch.zeros(*example[0].shape), -example[0].abs()]:
            assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception):
                torch.onnx.export(original, tuple(example), io.BytesIO(), dynamo=False, opset_version=17)
            buffer = io.BytesIO()
            torch.onnx.export(rewritten, tuple(example), buffer, dynamo=False, opset_version=17,
                              input_names=list(axes), dynamic_axes=axes)
        graph = onnx.load_from_string(buffer.getvalue())
        assert not [i for i in check_graph(graph) if i.severity == "error"], name
        session = ort.InferenceSession(buffer.getvalue())
        for shape in others:
            x = torch.randn(*shape, generator=g)
            got = torch.from_numpy(session.run(None, {session.get_inputs()[0].name: x.numpy()})[0])
            want = original(x)
            assert got.shape == want.shape and torch.allclose(got, want, atol=1e-5 * (1 + float(want.abs().max()))), name


MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 4, 1)

    def forward(self, x):
        freqs = torch.view_as_real(torch.fft.fft2(x, norm="ortho"))
        return self.conv(freqs.permute(0, 1, 4, 2, 3).flatten(1, 2))


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_small_model(tmp_path) -> None:
    path = tmp_path / "spectral_model.py"
    path.write_text(MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT709"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert '+        freqs = _trt_fft2("view_as_real", x, norm="ortho")' in report["diff"]


# --- a complex input kept in a variable (MONAI's fftn_centered_t/ifftn_centered_t) --------------

KSPACE = '''
import torch
from torch import nn


def roll_last(x, dims):
    for d in dims:
        x = torch.cat((x.narrow(d, x.shape[d] // 2, x.shape[d] - x.shape[d] // 2), x.narrow(d, 0, x.shape[d] // 2)), d)
    return x


def ifftn_centered(ksp, spatial_dims: int, is_complex: bool = True):
    dims = list(range(-spatial_dims, 0))
    if is_complex:
        if ksp.shape[-1] != 2:
            raise ValueError(f"ksp.shape[-1] is not 2 ({ksp.shape[-1]}).")
        x = torch.view_as_complex(roll_last(ksp, [d - 1 for d in dims]))
    else:
        x = roll_last(ksp, dims)
    x = torch.view_as_real(torch.fft.ifftn(x, dim=dims, norm="ortho"))
    return roll_last(x, [d - 1 for d in dims])


class KSpaceToImage(nn.Module):
    """MONAI's coil-sensitivity step: k-space as (real, imaginary) pairs, to the image."""

    def __init__(self, is_complex=True):
        super().__init__()
        self.is_complex = is_complex

    def forward(self, ksp):
        return ifftn_centered(ksp, spatial_dims=2, is_complex=self.is_complex)
'''


def test_a_view_as_complex_kept_in_a_variable_is_taken_with_the_transform() -> None:
    before = KSPACE
    after = strip_helpers(rewrite(before, select=("TRT709",), unsafe=True))
    assert "x = torch.view_as_complex(roll_last(ksp, [d - 1 for d in dims]))" in before
    assert "x = _trt_view_as_complex(roll_last(ksp, [d - 1 for d in dims]))" in after
    assert 'x = _trt_ifftn("view_as_real", x, dim=dims, norm="ortho")' in after
    assert "x = roll_last(ksp, dims)" in after  # the real branch is left as it is
    assert rules_found(before, select=("TRT709",)) == ["TRT709"]  # one finding, one fix for both lines
    once = rewrite(before, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once
    # a view_as_complex no transform takes is not touched
    other = "import torch\ndef f(p):\n    z = torch.view_as_complex(p)\n    return torch.view_as_real(z * 2)\n"
    assert rewrite(other, select=("TRT709",), unsafe=True) == other


def test_the_remembered_pairs_are_taken_only_while_exporting_and_unwritten() -> None:
    from trtcodemod.helpers.spectral import _trt_view_as_complex

    for shape in [(2, 3, 8, 2), (1, 1, 1, 2), (3, 5, 7, 2), (4, 1, 2)]:
        for values in ("random", "zeros", "negative"):
            pairs = _signal(shape, values)
            z = _trt_view_as_complex(pairs)  # outside an export: torch's view, and nothing remembered
            want_z = torch.view_as_complex(pairs)
            assert torch.equal(z, want_z) and z.data_ptr() == pairs.data_ptr() and z.stride() == want_z.stride()
            assert not hasattr(z, "_trt_complex_pairs")
            for kind in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"):
                want = torch.view_as_real(getattr(torch.fft, kind)(torch.view_as_complex(pairs), norm="ortho"))
                with export_formulation():
                    z = _trt_view_as_complex(pairs)
                    got = HELPERS[kind]("view_as_real", z, norm="ortho")
                assert got.dtype == want.dtype and got.shape == want.shape
                assert torch.allclose(got, want, rtol=1e-12, atol=1e-12), (kind, shape, values)
    # written to after it was made: the pairs are not taken (the transform keeps torch's, on the complex tensor)
    pairs = _signal((2, 4, 6, 2), "random")
    with export_formulation():
        z = _trt_view_as_complex(pairs.clone())
        z.mul_(2j)
        got = _trt_fft2("view_as_real", z)
    assert torch.equal(got, torch.view_as_real(torch.fft.fft2(torch.view_as_complex(pairs) * 2j)))
    # inf/NaN: the products spread them over their line, as documented for every input
    special = _signal((1, 4, 2), "random")
    special[0, 1, 0] = math.inf
    with export_formulation():
        got = _trt_fft("view_as_real", _trt_view_as_complex(special))
    assert not bool(got.isfinite().any())
    # a last axis other than 2: torch's own error, in both modes
    for exporting in (False, True):
        with pytest.raises(RuntimeError, match="last dimension"):
            if exporting:
                with export_formulation():
                    _trt_view_as_complex(torch.zeros(2, 3))
            else:
                _trt_view_as_complex(torch.zeros(2, 3))


@pytest.fixture(scope="module")
def kspace(tmp_path_factory):
    before = import_source(KSPACE, tmp_path_factory.mktemp("before"))["KSpaceToImage"]
    after = import_source(rewrite(KSPACE, select=("TRT709",), unsafe=True),
                          tmp_path_factory.mktemp("after"))["KSpaceToImage"]
    return before, after


def test_the_kept_complex_input_runs_as_the_original_in_eager_mode(kspace) -> None:
    before, after = kspace
    for is_complex in (True, False):
        for shape in [(1, 4, 6, 8, 2), (2, 1, 5, 7, 2), (1, 1, 1, 1, 2), (0, 2, 4, 4, 2), (1, 2, 4, 4, 3)]:
            for values in ("random", "zeros", "negative", "special"):
                ksp = _signal(shape, "random" if values == "special" else values, torch.float32)
                if values == "special" and ksp.numel() >= 3:
                    ksp.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
                original = run_once(before(is_complex), [ksp.clone().requires_grad_(True)])
                rewritten = run_once(after(is_complex), [ksp.clone().requires_grad_(True)])
                assert_same_run(original, rewritten, context=f"{is_complex} {shape} {values}")


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_kept_complex_input_exports_without_view_as_complex(kspace, dynamo) -> None:
    before, after = kspace
    example = _signal((1, 4, 8, 6, 2), "random", torch.float32)
    names = ["ksp"]

    def export(model):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if dynamo:
                dims = {"ksp": {0: torch.export.Dim("n"), 2: torch.export.Dim("h", min=2),
                                3: torch.export.Dim("w", min=2)}}
                return torch.onnx.export(model, (example,), dynamo=True, input_names=names, dynamic_shapes=dims,
                                         verbose=False).model_proto
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes={"ksp": {0: "n", 2: "h", 3: "w"}})
            return onnx.load_from_string(buffer.getvalue())

    if dynamo:
        try:
            graph = export(before())
        except Exception:  # noqa: BLE001 - complex tensors may not export at all: as bad
            pass
        else:
            assert "DFT" in {n.op_type for n in graph.graph.node}
    else:
        with pytest.raises(Exception, match="view_as_complex"):
            export(before())
    graph = export(after())
    ops = {n.op_type for n in graph.graph.node}
    assert "DFT" not in ops and "MatMul" in ops
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for shape in [(1, 4, 8, 6, 2), (2, 4, 5, 9, 2), (1, 4, 2, 3, 2)]:  # other sizes than the example's
        for values in ("random", "zeros", "negative"):
            ksp = _signal(shape, values, torch.float32)
            got = torch.from_numpy(session.run(None, {"ksp": ksp.numpy()})[0])
            want = before()(ksp)
            assert got.shape == want.shape and torch.allclose(got, want, atol=1e-5 * (1 + float(want.abs().max())))


KSPACE_MODEL = '''
import torch
from torch import nn


def to_image(ksp, is_complex: bool = True):
    if is_complex:
        x = torch.view_as_complex(ksp)
    else:
        x = ksp
    return torch.view_as_real(torch.fft.ifft2(x, norm="ortho"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 4, 1)

    def forward(self, x):
        image = to_image(torch.stack((x, x.flip(-1)), -1).contiguous())
        return self.conv(image.permute(0, 1, 4, 2, 3).flatten(1, 2))


def build():
    torch.manual_seed(0)
    return Net().eval()
'''


def test_migrate_fixes_a_model_whose_transform_takes_a_kept_complex_input(tmp_path) -> None:
    path = tmp_path / "kspace_model.py"
    path.write_text(KSPACE_MODEL)
    report, exit_code = migrate_small(path)
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT709"]
    assert report["before"]["exported"] is False and report["after"]["faithful"] is True
    assert "+        x = _trt_view_as_complex(ksp)" in report["diff"]


# --- a transform rebound by the statement that reads its parts, and the inverse real transforms ----
# (LaMa's Fourier unit, spandrel's and advimman/lama's: `ffted = rfftn(...)` in each branch of an `if`,
# `ffted = torch.stack((ffted.real, ffted.imag), dim=-1)`, a convolution on the parts, then
# `irfftn(torch.complex(re, im), s=..., dim=..., norm=...)`.)

REBOUND = '''
import torch
from torch import nn


class FourierUnit(nn.Module):
    """LaMa's Fourier unit (restated): the spectrum's name rebound by the statement that stacks
    its parts, a 1x1 convolution on them, then irfftn of torch.complex of the result."""

    def __init__(self, channels=2, norm="ortho", upcast=False):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(channels * 2, channels * 2, 1)
        self.norm = norm
        self.upcast = upcast

    def forward(self, x):
        batch = x.shape[0]
        if self.upcast:
            ffted = torch.fft.rfftn(x.float(), dim=(-2, -1), norm=self.norm)
        else:
            ffted = torch.fft.rfftn(x, dim=(-2, -1), norm=self.norm)
        ffted = torch.stack((ffted.real, ffted.imag), dim=-1)
        ffted = ffted.permute(0, 1, 4, 2, 3).reshape((batch, -1) + ffted.shape[2:4])
        ffted = self.conv(ffted)
        ffted = ffted.view((batch, -1, 2) + ffted.shape[2:]).permute(0, 1, 3, 4, 2)
        ffted = torch.complex(ffted[..., 0], ffted[..., 1])
        size = x.shape[-2:]
        return torch.fft.irfftn(ffted, s=size, dim=(-2, -1), norm=self.norm)


class Filter(nn.Module):
    """A 1-D filter: the spectrum rebound by view_as_real, irfft of view_as_complex written there."""

    def __init__(self, norm=None):
        super().__init__()
        self.norm = norm

    def forward(self, x):
        spec = torch.fft.rfft(x, dim=-1, norm=self.norm)
        spec = torch.view_as_real(spec)
        return torch.fft.irfft(torch.view_as_complex((spec * torch.sigmoid(spec)).contiguous()), n=x.shape[-1],
                               dim=-1, norm=self.norm)
'''


def test_the_rebound_transform_and_the_inverse_are_rewritten() -> None:
    after = strip_helpers(rewrite(REBOUND, select=("TRT709",), unsafe=True))
    assert 'ffted = _trt_rfftn("complex", x.float(), dim=(-2, -1), norm=self.norm)' in after
    assert 'ffted = _trt_rfftn("complex", x, dim=(-2, -1), norm=self.norm)' in after
    assert 'ffted = torch.stack((_trt_dft_part(ffted, "real"), _trt_dft_part(ffted, "imag")), dim=-1)' in after
    assert "ffted = _trt_complex(ffted[..., 0], ffted[..., 1])" in after
    assert "return _trt_irfftn(ffted, s=size, dim=(-2, -1), norm=self.norm)" in after
    assert 'spec = _trt_rfft("complex", x, dim=-1, norm=self.norm)' in after
    assert 'spec = _trt_dft_part(spec, "view_as_real")' in after
    assert ("return _trt_irfft(_trt_view_as_complex((spec * torch.sigmoid(spec)).contiguous()), n=x.shape[-1],"
            in after)
    # One finding for the two branches' transforms (placed on their `if`), one per inverse, one for Filter's.
    assert rules_found(REBOUND, select=("TRT709",)) == ["TRT709"] * 4
    once = rewrite(REBOUND, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once
    # An inverse of a product of spectra is taken with its transform (see the product tests below);
    # an inverse of anything else is not TRT709's (TRT706 names it: see its test), and the
    # quotient of spectra's forward transforms are named without a fix.
    product = "import torch\ndef f(x, k):\n    return torch.fft.irfftn(torch.fft.rfftn(x) * k)\n"
    assert rules_found(product, select=("TRT709",)) == ["TRT709"]
    assert "return _trt_irfftn(_trt_complex_mul(_trt_rfftn(\"tracked\", x), k))" in strip_helpers(
        rewrite(product, select=("TRT709",), unsafe=True))
    other = "import torch\ndef f(x, k):\n    return torch.fft.irfftn(torch.fft.rfftn(x) / torch.fft.rfftn(k))\n"
    assert rules_found(other, select=("TRT709",)) == ["TRT709"] * 2
    assert rewrite(other, select=("TRT709",), unsafe=True) == other


REBOUND_REFUSED = '''
import torch


def in_try(x):
    try:
        y = torch.fft.rfft2(x)
        y = torch.stack((y.real, y.imag), -1)       # a handler could read the transform
    except RuntimeError:
        return y
    return y


def leaves_the_loop(xs):
    for x in xs:
        y = torch.fft.rfft2(x)
        if x.sum() > 0:
            break                                   # the transform would leave the loop
        y = torch.stack((y.real, y.imag), -1)
    return y


def read_later(x):
    y = torch.fft.rfft2(x)
    part = lambda: y.real                           # read when called, after the rebinding
    y = torch.stack((y.real, y.imag), -1)
    return part() + y.sum()


def inverse_of_a_quotient(x, k):
    return torch.fft.irfft2(torch.fft.rfft2(x) / torch.fft.rfft2(k))  # a quotient of spectra: TRT706's
'''


#: Forms refused as rebound transforms, taken as complex pipelines since parts of a chain's names are
#: (the transform tracked, each part `_trt_dft_part(y, "tracked:<part>")`: torch's part of a real `y`).
REBOUND_CHAINED = '''
import torch


def no_else(x, c):
    y = x
    if c:
        y = torch.fft.rfft2(x)
    y = torch.stack((y.real, y.imag), -1)          # y may be the input: not every binding is a transform
    return y


def whole_read(x):
    y = torch.fft.rfft2(x)
    z = y * 2                                       # the complex tensor read as a whole
    y = torch.stack((y.real, z.imag), -1)
    return y


def rebound_from_whole(x):
    y = torch.fft.rfft2(x)
    y = torch.view_as_real(y * 2)                   # the rebinding statement reads it as a whole
    return y
'''


def test_the_rebound_forms_refused_next_to_one_taken() -> None:
    """Each refused form is named without a fix, while the same file's taken form is rewritten."""
    taken = "\n\ndef taken(x):\n    y = torch.fft.rfft2(x)\n    y = torch.view_as_real(y)\n    return y\n"
    after = strip_helpers(rewrite(REBOUND_REFUSED + taken, select=("TRT709",), unsafe=True))
    assert 'y = _trt_rfft2("complex", x)\n    y = _trt_dft_part(y, "view_as_real")' in after
    assert after.count("_trt_") == 2 and after.count("torch.fft.rfft2(") == 5 and "torch.fft.irfft2(" in after
    for line in REBOUND_REFUSED.splitlines():
        assert line in after  # every refused line as it was
    found = check_source(REBOUND_REFUSED.encode(), "snippet.py", Options(select=("TRT709",)))
    # Each transform named without a fix; the inverse of a quotient is not TRT709's.
    assert [(f.rule, f.fix.value) for f in found] == [("TRT709", "none")] * 5
    # The forms a chain takes now: the whole tensor read in a product, a name that may hold the input.
    chained = strip_helpers(rewrite(REBOUND_CHAINED, select=("TRT709",), unsafe=True))
    for line in ('y = _trt_rfft2("tracked", x)', "z = _trt_complex_mul(y, 2)",
                 'y = torch.stack((_trt_dft_part(y, "tracked:real"), _trt_dft_part(z, "tracked:imag")), -1)',
                 'y = _trt_dft_part(_trt_complex_mul(y, 2), "tracked:view_as_real")',
                 'y = torch.stack((_trt_dft_part(y, "tracked:real"), _trt_dft_part(y, "tracked:imag")), -1)'):
        assert line in chained, line
    module = {}
    exec(compile(rewrite(REBOUND_CHAINED, select=("TRT709",), unsafe=True), "chained", "exec"), module)
    original = {}
    exec(compile(REBOUND_CHAINED, "original", "exec"), original)
    x = torch.randn(2, 5, 6)
    for name in ("whole_read", "rebound_from_whole"):
        assert torch.equal(module[name](x), original[name](x))
    assert torch.equal(module["no_else"](x, True), original["no_else"](x, True))
    with pytest.raises(RuntimeError):  # a real `y`: `y.imag` raises, as the original does
        module["no_else"](x, False)
    with pytest.raises(RuntimeError):
        original["no_else"](x, False)


def _rebound_modules(tmp_path_factory):
    before = import_source(REBOUND, tmp_path_factory.mktemp("rebound_before"))
    after = import_source(rewrite(REBOUND, select=("TRT709",), unsafe=True), tmp_path_factory.mktemp("rebound_after"))
    return before, after


@pytest.fixture(scope="module")
def rebound(tmp_path_factory):
    return _rebound_modules(tmp_path_factory)


def test_the_rebound_rewrite_runs_as_the_original_in_eager_mode(rebound) -> None:
    before, after = rebound
    assert {"_trt_rfftn", "_trt_rfft", "_trt_irfftn", "_trt_irfft", "_trt_complex"} <= set(after)  # rewritten
    for name, args in (("FourierUnit", {}), ("FourierUnit", {"norm": None, "upcast": True}),
                       ("FourierUnit", {"norm": "forward"}), ("Filter", {}), ("Filter", {"norm": "ortho"})):
        for shape in [(1, 2, 6, 8), (2, 2, 5, 7), (1, 2, 1, 2), (1, 2, 3, 1)]:
            for values in ("random", "zeros", "negative", "special"):
                x = _signal(shape, "random" if values == "special" else values, torch.float32)
                if values == "special":
                    x.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
                original = run_once(before[name](**args), [x.clone().requires_grad_(True)])
                rewritten = run_once(after[name](**args), [x.clone().requires_grad_(True)])
                assert_same_run(original, rewritten, context=f"{name} {args} {shape} {values}")
    for x in (torch.zeros(0, 2, 4, 4), torch.ones(1, 2, 4, 4, dtype=torch.float64)):  # torch's error; float64
        assert_same_run(run_once(before["FourierUnit"](), [x]), run_once(after["FourierUnit"](), [x]))


def _inverse_calls(kind: str) -> list[dict]:
    if kind == "irfft":
        return [{}, {"n": 7}, {"n": 8}, {"n": 3, "dim": 1}, {"dim": 0}, {"n": 1}]
    if kind == "irfft2":
        return [{}, {"s": (5, 3)}, {"s": (2, 9), "dim": (0, 2)}, {"dim": (1, -1)}, {"s": (-1, 4)}]
    return [{}, {"dim": (-2, -1)}, {"s": (4,)}, {"s": (3, 5), "dim": (0, -1)}, {"dim": 1}, {"s": (6, 7)}]


@pytest.mark.parametrize("kind", ["irfft", "irfft2", "irfftn"])
def test_the_inverse_formulation_is_torchs_on_half_spectra(kind) -> None:
    """Random half spectra, odd and even output lengths, trimmed and zero-padded, each norm: the
    products equal torch's inverse (float64: 1e-12), with the parts given by ``torch.complex`` or by
    ``torch.view_as_complex``; outside an export the helper is torch's function bit for bit."""
    from trtcodemod.helpers.spectral import _trt_complex, _trt_irfft, _trt_irfft2, _trt_irfftn, _trt_view_as_complex

    fn, helper = getattr(torch.fft, kind), {"irfft": _trt_irfft, "irfft2": _trt_irfft2, "irfftn": _trt_irfftn}[kind]
    checked = 0
    for shape in [(2, 3, 5), (3, 7, 2), (2, 6, 9), (2, 2, 4), (2, 4, 3)]:  # (one bin: torch refuses n = 0)
        for values in ("random", "zeros", "negative"):
            re, im = _signal(shape, values), _signal(shape, "random") * (values != "zeros")
            for kwargs in _inverse_calls(kind):
                for norm in (None, "backward", "ortho", "forward"):
                    want = fn(torch.complex(re, im), norm=norm, **kwargs)
                    assert torch.equal(helper(_trt_complex(re, im), norm=norm, **kwargs), want)
                    with export_formulation():
                        got = helper(_trt_complex(re, im), norm=norm, **kwargs)
                        pairs = helper(_trt_view_as_complex(torch.stack((re, im), -1)), norm=norm, **kwargs)
                    assert got.dtype == want.dtype and got.shape == want.shape, (kind, shape, kwargs)
                    assert torch.allclose(got, want, rtol=1e-12, atol=1e-12), (kind, shape, values, kwargs, norm)
                    assert torch.allclose(pairs, want, rtol=1e-12, atol=1e-12), (kind, shape, values, kwargs, norm)
                    checked += 1
    assert checked == 5 * 3 * len(_inverse_calls(kind)) * 4


def test_the_inverse_formulation_in_float32_and_its_edges() -> None:
    from trtcodemod.helpers.spectral import _trt_complex, _trt_irfft, _trt_irfftn

    g = torch.Generator().manual_seed(5)
    for h, w in [(64, 64), (63, 65), (32, 17)]:
        spectrum = torch.fft.rfftn(torch.randn(2, 3, h, w, generator=g), dim=(-2, -1))
        re, im = spectrum.real.contiguous(), spectrum.imag.contiguous()
        for norm in (None, "ortho", "forward"):
            want = torch.fft.irfftn(torch.complex(re, im), s=(h, w), dim=(-2, -1), norm=norm)
            with export_formulation():
                got = _trt_irfftn(_trt_complex(re, im), s=(h, w), dim=(-2, -1), norm=norm)
            assert got.dtype == torch.float32 and float((got - want).abs().max() / want.abs().max()) < 1e-5, (h, w)
    # The imaginary parts of bin 0 and of bin n / 2 (n even) are ignored, as irfft ignores them.
    re, im = torch.randn(3, 5, generator=g, dtype=torch.float64), torch.randn(3, 5, generator=g, dtype=torch.float64)
    moved = im.clone()
    moved[:, 0] += 10.0
    moved[:, 4] -= 7.0
    with export_formulation():
        even, even_moved = _trt_irfft(_trt_complex(re, im), n=8), _trt_irfft(_trt_complex(re, moved), n=8)
        odd, odd_moved = _trt_irfft(_trt_complex(re, im), n=9), _trt_irfft(_trt_complex(re, moved), n=9)
    assert torch.allclose(even, even_moved, atol=1e-12)
    assert torch.allclose(even, torch.fft.irfft(torch.complex(re, im), 8), atol=1e-12)
    assert not torch.allclose(odd, odd_moved)  # n = 9: bin 4 is a full bin, its imaginary part counts
    assert torch.allclose(odd_moved, torch.fft.irfft(torch.complex(re, moved), 9), atol=1e-12)
    # Half precision is computed in float32 and rounded back.
    with export_formulation():
        half = _trt_irfftn(_trt_complex(re.half(), im.half()))
    assert half.dtype == torch.float16 and torch.allclose(half.double(), torch.fft.irfftn(torch.complex(re, im)),
                                                          atol=1e-2)
    # An inf in a bin makes its line inf or NaN, as documented for every transform here.
    special = re.clone()
    special[1, 2] = math.inf
    with export_formulation():
        spread = _trt_irfft(_trt_complex(special, im))
    assert not bool(spread[1].isfinite().any()) and bool(spread[0].isfinite().all())
    # Parts written to after the complex tensor was made: not taken (torch's, on the tensor made).
    with export_formulation():
        a = re.clone()
        z = _trt_complex(a, im)
        a.mul_(2)
        written = _trt_irfft(z)
        assert not hasattr(torch.complex(re, im), "_trt_complex_parts")
    assert torch.equal(written, torch.fft.irfft(torch.complex(re, im)))
    assert not hasattr(_trt_complex(re, im), "_trt_complex_parts")  # outside an export nothing is kept


def _exported_as_products(export, original, rewritten, dynamo: bool, name: str):
    """The original's graph holds a DFT (dynamo) or does not export (TorchScript: no `fft` symbolic);
    the rewritten one exports as matrix products TensorRT takes: its graph."""
    if dynamo:
        try:
            graph = export(original)
        except Exception:  # noqa: BLE001 - complex tensors may not export at all: as bad
            pass
        else:
            assert "DFT" in {n.op_type for n in graph.graph.node}
    else:
        with pytest.raises(Exception, match="fft"):
            export(original)
    graph = export(rewritten)
    ops = {n.op_type for n in graph.graph.node}
    assert "DFT" not in ops and "MatMul" in ops, name
    assert not [i for i in check_graph(graph) if i.severity == "error"], name
    return graph


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rebound_rewrite_exports_and_equals_eager(rebound, dynamo) -> None:
    before, after = rebound
    example = _signal((2, 2, 8, 10), "random", torch.float32)
    for name in ("FourierUnit", "Filter"):
        original, rewritten = before[name](), after[name]()

        def export(model):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if dynamo:
                    dims = {"x": {0: torch.export.Dim("n"), 2: torch.export.Dim("h", min=2),
                                  3: torch.export.Dim("w", min=2)}}
                    return torch.onnx.export(model, (example,), dynamo=True, input_names=["x"], dynamic_shapes=dims,
                                             verbose=False).model_proto
                buffer = io.BytesIO()
                torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                                  dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
                return onnx.load_from_string(buffer.getvalue())

        graph = _exported_as_products(export, original, rewritten, dynamo, name)
        assert not [i for i in check_graph(graph, target="8.4") if i.severity == "error"], name
        session = ort.InferenceSession(graph.SerializeToString())
        for shape in [(2, 2, 7, 9), (1, 2, 16, 6)]:  # two other sizes: odd and even widths
            for values in ("random", "zeros", "negative"):
                x = _signal(shape, values, torch.float32)
                got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
                with torch.no_grad():
                    want = original(x)
                assert got.shape == want.shape, (name, shape)
                assert torch.allclose(got, want, rtol=1e-5, atol=1e-5 * (1 + float(want.abs().max()))), (name, shape)


# --- an inverse real transform of a product of spectra ---------------------------------------
# (FFTformer's frequency attention and feed-forward filter, in spandrel and upstream: 8 x 8 patches,
# `q_fft = rfft2(q)`, `k_fft = rfft2(k)`, `out = q_fft * k_fft`, `irfft2(out, s=(8, 8))`, and
# `x_fft = x_fft * self.fft` with a real weight; GFNet's global filter: `x = rfft2(x, dim=(1, 2),
# norm="ortho")`, `x = x * torch.view_as_complex(self.complex_weight)`, `irfft2(x, s=(a, b), ...)`;
# an FFT convolution `irfft(rfft(x, n) * rfft(k, n), n)`. Restated in our words.)

PRODUCTS = '''
import torch
from torch import nn


class PatchAttention(nn.Module):
    """FFTformer's FSAS (restated): query and key patches multiplied in the frequency domain."""

    def __init__(self, patch=4):
        super().__init__()
        self.patch = patch

    def forward(self, q, k):
        b, c, h, w = q.shape
        p = self.patch
        q_patch = q.reshape(b, c, h // p, p, w // p, p).permute(0, 1, 2, 4, 3, 5)
        k_patch = k.reshape(b, c, h // p, p, w // p, p).permute(0, 1, 2, 4, 3, 5)
        q_fft = torch.fft.rfft2(q_patch.float())
        k_fft = torch.fft.rfft2(k_patch.float())

        out = q_fft * k_fft
        out = torch.fft.irfft2(out, s=(self.patch, self.patch))
        return out.permute(0, 1, 2, 4, 3, 5).reshape(b, c, h, w)


class PatchFilter(nn.Module):
    """FFTformer's DFFN filter (restated): the spectrum's name rebound by its product with a real weight."""

    def __init__(self, channels=3, patch=4):
        super().__init__()
        torch.manual_seed(0)
        self.patch = patch
        self.fft = nn.Parameter(torch.randn(channels, 1, 1, patch, patch // 2 + 1))

    def forward(self, x):
        b, c, h, w = x.shape
        p = self.patch
        x_patch = x.reshape(b, c, h // p, p, w // p, p).permute(0, 1, 2, 4, 3, 5)
        x_patch_fft = torch.fft.rfft2(x_patch.float())
        x_patch_fft = x_patch_fft * self.fft
        x_patch = torch.fft.irfft2(x_patch_fft, s=(self.patch, self.patch))
        return x_patch.permute(0, 1, 2, 4, 3, 5).reshape(b, c, h, w)


class GlobalFilter(nn.Module):
    """GFNet's global filter (restated): a complex weight kept as real pairs, channels last."""

    def __init__(self, channels=3, h=8, w=5):
        super().__init__()
        torch.manual_seed(1)
        self.complex_weight = nn.Parameter(torch.randn(h, w, channels, 2) * 0.02)

    def forward(self, x):
        b, c, h, w = x.shape
        x = x.permute(0, 2, 3, 1).to(torch.float32)
        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        weight = torch.view_as_complex(self.complex_weight)
        x = x * weight
        x = torch.fft.irfft2(x, s=(h, w), dim=(1, 2), norm="ortho")
        return x.permute(0, 3, 1, 2)


class Convolve(nn.Module):
    """A circular convolution along the width written inline, scaled by a number."""

    def __init__(self, norm=None):
        super().__init__()
        self.norm = norm

    def forward(self, x):
        k = x.flip(-1)
        n = x.shape[-1]
        return torch.fft.irfft(torch.fft.rfft(x, n=n, norm=self.norm) * torch.fft.rfft(k, n=n, norm=self.norm) * 0.5,
                               n=n, norm=self.norm)


class LongConvolution(nn.Module):
    """A long-convolution layer's FFT convolution (restated): the kernel's spectrum divided by the
    FFT size, the input zero-padded to twice its length, the output cut back."""

    def forward(self, u, k):
        seqlen = u.shape[-1]
        fft_size = 2 * seqlen
        k_f = torch.fft.rfft(k, n=fft_size) / fft_size
        u_f = torch.fft.rfft(u.to(dtype=k.dtype), n=fft_size)
        y = torch.fft.irfft(u_f * k_f, n=fft_size, norm="forward")[..., :seqlen]
        return y


class AutoCorrelate(nn.Module):
    """Autoformer's period-based dependencies (restated from torch-timeseries 0.2.5,
    torch_timeseries/nn/AutoCorrelation.py:127-130): the correlation of two series along time as
    the inverse of one spectrum times the other's conjugate, the conjugate written three ways."""

    def forward(self, x, y):
        q_fft = torch.fft.rfft(x, dim=-1)
        k_fft = torch.fft.rfft(y, dim=-1)
        res = q_fft * torch.conj(k_fft)
        a = torch.fft.irfft(res, dim=-1)
        b = torch.fft.irfft(k_fft.conj() * q_fft, n=x.shape[-1], dim=-1)
        c = torch.fft.irfft(torch.conj_physical(q_fft) * q_fft, dim=-1)
        return torch.cat([a, b, c], dim=-1)
'''


def test_the_product_chains_are_rewritten() -> None:
    after = strip_helpers(rewrite(PRODUCTS, select=("TRT709",), unsafe=True))
    for line in ('q_fft = _trt_rfft2("tracked", q_patch.float())', 'k_fft = _trt_rfft2("tracked", k_patch.float())',
                 "out = _trt_complex_mul(q_fft, k_fft)", "out = _trt_irfft2(out, s=(self.patch, self.patch))",
                 'x_patch_fft = _trt_rfft2("tracked", x_patch.float())',
                 "x_patch_fft = _trt_complex_mul(x_patch_fft, self.fft)",
                 "x_patch = _trt_irfft2(x_patch_fft, s=(self.patch, self.patch))",
                 'x = _trt_rfft2("tracked", x, dim=(1, 2), norm="ortho")',
                 "weight = _trt_view_as_complex(self.complex_weight)", "x = _trt_complex_mul(x, weight)",
                 'x = _trt_irfft2(x, s=(h, w), dim=(1, 2), norm="ortho")',
                 'return _trt_irfft(_trt_complex_mul(_trt_complex_mul(_trt_rfft("tracked", x, n=n, norm=self.norm), '
                 '_trt_rfft("tracked", k, n=n, norm=self.norm)), 0.5),',
                 'k_f = _trt_complex_div(_trt_rfft("tracked", k, n=fft_size), fft_size)',
                 'u_f = _trt_rfft("tracked", u.to(dtype=k.dtype), n=fft_size)',
                 'y = _trt_irfft(_trt_complex_mul(u_f, k_f), n=fft_size, norm="forward")[..., :seqlen]',
                 'q_fft = _trt_rfft("tracked", x, dim=-1)', 'k_fft = _trt_rfft("tracked", y, dim=-1)',
                 "res = _trt_complex_mul(q_fft, _trt_complex_conj(k_fft))",
                 "b = _trt_irfft(_trt_complex_mul(_trt_complex_conj(k_fft), q_fft), n=x.shape[-1], dim=-1)",
                 "c = _trt_irfft(_trt_complex_mul(_trt_complex_conj(q_fft, True), q_fft), dim=-1)"):
        assert line in after, line
    assert "torch.fft" not in after.split("class PatchAttention")[1]
    # One finding per chain, on its first transform (where an export stops first).
    found = check_source(PRODUCTS.encode(), "snippet.py", Options(select=("TRT709", "TRT706")))
    lines = PRODUCTS.splitlines()
    assert [(f.rule, f.fix.value) for f in found] == [("TRT709", "unsafe")] * 6
    assert [lines[f.line - 1].split()[0] for f in found] == ["q_fft", "x_patch_fft", "x", "return", "k_f", "q_fft"]
    once = rewrite(PRODUCTS, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once


def test_what_a_product_chain_does_not_take() -> None:
    """A quotient of spectra, a factor read through a name bound after the inverse, an in-place
    product and an inverse of a name no transform reaches are not taken (each transform named
    without a fix)."""
    refused = (
        "import torch\n"
        "def quotient(x, k):\n"
        "    y = torch.fft.rfft2(x)\n"
        "    y = y / torch.fft.rfft2(k)\n"
        "    return torch.fft.irfft2(y)\n"
        "def later(x, k):\n"
        "    z = k\n"
        "    out = torch.fft.irfft2(z)\n"
        "    z = torch.fft.rfft2(x) * k\n"
        "    return out, z\n"
        "def in_place(x, k):\n"
        "    y = torch.fft.rfft2(x)\n"
        "    y *= k\n"
        "    return torch.fft.irfft2(y)\n"
    )
    assert rewrite(refused, select=("TRT709",), unsafe=True) == refused
    found = check_source(refused.encode(), "snippet.py", Options(select=("TRT709",)))
    assert [(f.rule, f.fix.value) for f in found] == [("TRT709", "none")] * 4
    # An earlier binding in the same block is hidden by a later one: only the product reaches.
    shadowed = ("import torch\ndef f(x, k):\n    y = torch.fft.rfft2(x)\n    y = k\n    return torch.fft.irfft2(y)\n")
    assert rewrite(shadowed, select=("TRT709",), unsafe=True) == shadowed
    # A binding in one branch of an `if` and one before it both reach: both are taken.
    branches = ("import torch\ndef f(x, k, c):\n    y = torch.fft.rfft2(x)\n    if c:\n"
                "        y = y * k\n    return torch.fft.irfft2(y)\n")
    after = strip_helpers(rewrite(branches, select=("TRT709",), unsafe=True))
    assert 'y = _trt_rfft2("tracked", x)' in after and "y = _trt_complex_mul(y, k)" in after
    assert "return _trt_irfft2(y)" in after


def test_the_complex_product_formulation() -> None:
    """``_trt_complex_mul`` is ``*`` outside an export, bit for bit; while exporting it computes the
    product from remembered parts (complex by complex, by a real tensor, by a number, broadcast, in
    float32 and float64, zeros, negatives, inf), and falls back to ``*`` for a complex tensor whose
    parts are unknown or were written to since."""
    from trtcodemod.helpers.spectral import _trt_complex, _trt_complex_mul, _trt_irfft2, _trt_view_as_complex

    g = torch.Generator().manual_seed(7)
    for dtype in (torch.float32, torch.float64):
        for values in ("random", "zeros", "negative", "inf"):
            a_re = _signal((2, 3, 4, 5), "random" if values == "inf" else values, dtype)
            a_im = _signal((2, 3, 4, 5), "negative", dtype)
            if values == "inf":
                a_re[0, 0, 0, 0] = math.inf
            b_re = torch.randn(3, 1, 5, generator=g, dtype=torch.float64).to(dtype)
            b_im = torch.randn(3, 1, 5, generator=g, dtype=torch.float64).to(dtype)
            real = torch.randn(4, 1, generator=g, dtype=torch.float64).to(dtype)
            pairs = torch.stack((b_re, b_im), -1)
            want_cc = torch.complex(a_re, a_im) * torch.complex(b_re, b_im)
            cases = [
                (lambda: (_trt_complex(a_re, a_im), _trt_complex(b_re, b_im)), want_cc),
                (lambda: (_trt_complex(a_re, a_im), _trt_view_as_complex(pairs)), want_cc),
                (lambda: (_trt_complex(a_re, a_im), real), torch.complex(a_re, a_im) * real),
                (lambda: (real, _trt_complex(a_re, a_im)), real * torch.complex(a_re, a_im)),
                (lambda: (_trt_complex(a_re, a_im), 0.5), torch.complex(a_re, a_im) * 0.5),
                (lambda: (2 - 1j, _trt_complex(a_re, a_im)), (2 - 1j) * torch.complex(a_re, a_im)),
            ]
            for make, want in cases:
                outside = _trt_complex_mul(*make())  # outside an export: `*` itself, bit for bit
                torch.testing.assert_close(outside, want, rtol=0, atol=0, equal_nan=True)
                with export_formulation():
                    got = _trt_complex_mul(*make())
                    re, im = got._trt_complex_parts[:2]  # remembered: an inverse takes them
                assert got.dtype == want.dtype and got.shape == want.shape
                for part, expected in ((re, want.real), (im, want.imag)):
                    finite = expected.isfinite()
                    assert torch.equal(part.isfinite(), finite) or values == "inf"
                    assert torch.allclose(part[finite], expected[finite], rtol=1e-6, atol=1e-6), (dtype, values)
    # The quotient by a real tensor (with a zero in it) or a number; by a complex tensor: torch's `/`.
    from trtcodemod.helpers.spectral import _trt_complex_div

    for dtype in (torch.float32, torch.float64):
        a_re, a_im = _signal((2, 3, 4, 5), "random", dtype), _signal((2, 3, 4, 5), "negative", dtype)
        divisor = _signal((4, 1), "negative", dtype)
        divisor[1, 0] = 0.0
        for other in (divisor, 6, 0.25):
            want = torch.complex(a_re, a_im) / other
            torch.testing.assert_close(_trt_complex_div(torch.complex(a_re, a_im), other), want, rtol=0, atol=0,
                                       equal_nan=True)
            with export_formulation():
                got = _trt_complex_div(_trt_complex(a_re, a_im), other)
                re, im = got._trt_complex_parts[:2]
            assert got.dtype == want.dtype and got.shape == want.shape
            finite = want.real.isfinite() & want.imag.isfinite()
            assert torch.allclose(re[finite], want.real[finite], rtol=1e-6, atol=1e-6)
            assert torch.allclose(im[finite], want.imag[finite], rtol=1e-6, atol=1e-6)
            assert not bool((re.isfinite() & im.isfinite())[~finite].any())  # a zero divisor: not finite either
        with export_formulation():
            by_complex = _trt_complex_div(_trt_complex(a_re, a_im), _trt_complex(a_im, a_re))
        assert not hasattr(by_complex, "_trt_complex_parts")
        torch.testing.assert_close(by_complex, torch.complex(a_re, a_im) / torch.complex(a_im, a_re), rtol=0, atol=0)
    # A complex factor the helpers did not make, or one written to since: torch's product, nothing kept.
    z = torch.complex(torch.ones(2, 3), torch.ones(2, 3))
    with export_formulation():
        plain = _trt_complex_mul(_trt_complex(torch.ones(2, 3), torch.ones(2, 3)), z)
        re = torch.ones(2, 3)
        made = _trt_complex(re, torch.ones(2, 3))
        re.mul_(3)
        written = _trt_complex_mul(made, 2.0)
    assert not hasattr(plain, "_trt_complex_parts") and torch.equal(plain, z * z)
    assert not hasattr(written, "_trt_complex_parts") and torch.equal(written, z * 2.0)
    # The chain's formulation while exporting equals torch's chain on real tensors.
    for shape, s in (((2, 3, 8, 8), None), ((1, 2, 5, 6), (5, 6)), ((2, 1, 4, 7), (4, 7))):
        x, k = _signal(shape, "random"), _signal(shape, "negative")
        want = torch.fft.irfft2(torch.fft.rfft2(x) * torch.fft.rfft2(k) * 0.25, s=s or shape[-2:])
        with export_formulation():
            got = _trt_irfft2(_trt_complex_mul(_trt_complex_mul(_trt_rfft2("tracked", x), _trt_rfft2("tracked", k)),
                                               0.25), s=s or shape[-2:])
        assert torch.allclose(got, want, rtol=1e-10, atol=1e-10), shape
    assert torch.equal(_trt_rfft2("tracked", x), torch.fft.rfft2(x))  # outside an export: torch's transform


def test_the_conjugate_formulation() -> None:
    """``_trt_complex_conj`` is ``torch.conj`` (``conj_physical``) outside an export, bit for bit,
    the conjugate bit included; while exporting, of a spectrum whose parts the helpers remember, a
    complex tensor remembering ``(real, -imag)`` (zeros, negatives, inf, float32 and float64); a
    complex tensor made otherwise, or a real one, is torch's conjugate, nothing kept."""
    from trtcodemod.helpers.spectral import _trt_complex, _trt_complex_conj, _trt_complex_mul, _trt_irfft

    for dtype in (torch.float32, torch.float64):
        for values in ("random", "zeros", "negative", "inf"):
            re = _signal((2, 3, 5), "random" if values == "inf" else values, dtype)
            im = _signal((2, 3, 5), "negative" if values != "zeros" else "zeros", dtype)
            if values == "inf":
                im[0, 0, 0] = -math.inf
            z = torch.complex(re, im)
            for physical, torch_conj in ((False, torch.conj), (True, torch.conj_physical)):
                outside = _trt_complex_conj(z, physical)
                want = torch_conj(z)
                assert outside.is_conj() == want.is_conj()
                torch.testing.assert_close(outside.resolve_conj(), want.resolve_conj(), rtol=0, atol=0)
                with export_formulation():
                    got = _trt_complex_conj(_trt_complex(re, im), physical)
                    got_re, got_im = got._trt_complex_parts[:2]
                assert torch.equal(got_re, want.real) and torch.equal(got_im, want.imag)
                assert torch.equal(torch.signbit(got_im), torch.signbit(want.imag))  # -0. where imag is 0.
    real = torch.randn(2, 3)
    z = torch.complex(real, real.flip(-1))
    with export_formulation():
        assert _trt_complex_conj(real) is real  # torch.conj of a real tensor is the tensor itself
        plain = _trt_complex_conj(z)
    assert not hasattr(plain, "_trt_complex_parts") and torch.equal(plain.resolve_conj(), z.conj().resolve_conj())
    # The correlation chain while exporting equals torch's on real tensors (odd and even lengths, length 1).
    for n in (1, 2, 7, 48):
        x, k = _signal((2, 3, n), "random"), _signal((2, 3, n), "negative")
        want = torch.fft.irfft(torch.fft.rfft(x) * torch.conj(torch.fft.rfft(k)), n=n)
        with export_formulation():
            got = _trt_irfft(_trt_complex_mul(_trt_rfft("tracked", x), _trt_complex_conj(_trt_rfft("tracked", k))),
                             n=n)
        assert torch.allclose(got, want, rtol=1e-10, atol=1e-10), n


def test_the_conjugate_forms_in_a_chain() -> None:
    """Every spelling of the conjugate of a spectrum is a chain node (``torch.conj``, ``input=``, the
    method, ``conj_physical``, an alias, the spectrum through a name); the conjugate of what is no
    spectrum is left as it is, and a conjugate no inverse or part reads is not taken."""
    forms = {
        "torch.conj(k_fft)": "_trt_complex_conj(k_fft)",
        "torch.conj(input=k_fft)": "_trt_complex_conj(k_fft)",
        "k_fft.conj()": "_trt_complex_conj(k_fft)",
        "k_fft.conj_physical()": "_trt_complex_conj(k_fft, True)",
        "torch.conj_physical(k_fft)": "_trt_complex_conj(k_fft, True)",
        "th.conj(torch.fft.rfft(k))": '_trt_complex_conj(_trt_rfft("tracked", k))',
    }
    for form, rewritten in forms.items():
        source = ("import torch\nimport torch as th\ndef f(q, k):\n    q_fft = torch.fft.rfft(q)\n"
                  "    k_fft = torch.fft.rfft(k)\n"
                  f"    return torch.fft.irfft(q_fft * {form}, n=q.shape[-1])\n")
        after = strip_helpers(rewrite(source, select=("TRT709",), unsafe=True))
        assert f"return _trt_irfft(_trt_complex_mul(q_fft, {rewritten}), n=q.shape[-1])" in after, (form, after)
    # A complex weight's conjugate: the product is taken (its other factor is a spectrum), the conjugate is not.
    weight = ("import torch\ndef f(q, w):\n    return torch.fft.irfft(torch.fft.rfft(q) * torch.conj(w))\n")
    after = strip_helpers(rewrite(weight, select=("TRT709",), unsafe=True))
    assert 'return _trt_irfft(_trt_complex_mul(_trt_rfft("tracked", q), torch.conj(w)))' in after, after
    # A conjugate returned as it is (no inverse, no part): nothing to take.
    alone = "import torch\ndef f(q):\n    return torch.conj(torch.fft.rfft(q))\n"
    assert rewrite(alone, select=("TRT709",), unsafe=True) == alone


@pytest.fixture(scope="module")
def products(tmp_path_factory):
    before = import_source(PRODUCTS, tmp_path_factory.mktemp("products_before"))
    after = import_source(rewrite(PRODUCTS, select=("TRT709",), unsafe=True), tmp_path_factory.mktemp("products_after"))
    return before, after


_PRODUCT_INPUTS = {"PatchAttention": 2, "PatchFilter": 1, "GlobalFilter": 1, "Convolve": 1, "LongConvolution": 2,
                   "AutoCorrelate": 2}


def test_the_product_rewrite_runs_as_the_original_in_eager_mode(products) -> None:
    before, after = products
    assert {"_trt_rfft2", "_trt_rfft", "_trt_irfft2", "_trt_irfft", "_trt_complex_mul",
            "_trt_complex_div", "_trt_complex_conj"} <= set(after)  # rewritten
    for name, count in _PRODUCT_INPUTS.items():
        for shape in [(1, 3, 8, 8), (2, 3, 8, 8)]:
            for values in ("random", "zeros", "negative", "special"):
                xs = [_signal(shape, "random" if values == "special" else values, torch.float32) * (i + 1)
                      for i in range(count)]
                if values == "special":
                    xs[0].view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
                original = run_once(before[name](), [x.clone().requires_grad_(True) for x in xs])
                rewritten = run_once(after[name](), [x.clone().requires_grad_(True) for x in xs])
                assert_same_run(original, rewritten, context=f"{name} {shape} {values}")


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_product_rewrite_exports_and_equals_eager(products, dynamo) -> None:
    """The original does not export (TorchScript) or yields DFT (dynamo); the rewritten graph has
    no DFT, passes the TensorRT check, and equals eager at two other sizes in ONNX Runtime."""
    before, after = products
    for name, count in _PRODUCT_INPUTS.items():
        names = ["x", "y"][:count]
        fixed = name == "GlobalFilter"  # its weight is for one spatial size: only the batch varies
        example = [_signal((2, 3, 8, 8), "random", torch.float32) for _ in names]
        original, rewritten = before[name](), after[name]()

        def export(model):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if dynamo:
                    n, h, w = torch.export.Dim("n"), torch.export.Dim("h", min=2), torch.export.Dim("w", min=2)
                    axes = {0: n} if fixed else {0: n, 2: 4 * h, 3: 4 * w} if name.startswith("Patch") \
                        else {0: n, 2: h, 3: w}
                    return torch.onnx.export(model, tuple(example), dynamo=True, input_names=names,
                                             dynamic_shapes=tuple(axes for _ in names), verbose=False).model_proto
                buffer = io.BytesIO()
                axes = {0: "n"} if fixed else {0: "n", 2: "h", 3: "w"}
                torch.onnx.export(model, tuple(example), buffer, dynamo=False, opset_version=17, input_names=names,
                                  dynamic_axes={k: axes for k in names})
                return onnx.load_from_string(buffer.getvalue())

        graph = _exported_as_products(export, original, rewritten, dynamo, name)
        session = ort.InferenceSession(graph.SerializeToString())
        sizes = [(1, 3, 8, 8), (3, 3, 8, 8)] if fixed else [(1, 3, 16, 8), (3, 3, 12, 20)]
        for shape in sizes:
            for values in ("random", "zeros", "negative"):
                xs = [_signal(shape, values, torch.float32) * (i + 1) for i in range(count)]
                got = torch.from_numpy(session.run(None, {k: x.numpy() for k, x in zip(names, xs)})[0])
                with torch.no_grad():
                    want = original(*xs)
                assert got.shape == want.shape, (name, shape)
                assert torch.allclose(got, want, rtol=1e-5, atol=1e-5 * (1 + float(want.abs().max()))), (name, shape)


# --- complex pipelines: a complex transform of a spectrum, read by a part --------------------
# (piq 0.8.0's image quality metrics, restated in our words: VSI's log-Gabor saliency
# `x_fft = fft2(x_lab)`, `ifft2(x_fft * lg).real` (photosynthesis-team/piq@v0.8.0 piq/vsi.py:221-222);
# FSIM's phase congruency `imagefft = fft2(x)`, `filters_ifft = ifft2(filters)` then `.real`,
# `view_as_real(ifft2(imagefft * filters))` (photosynthesis-team/piq@v0.8.0 piq/fsim.py:238-241);
# SR-SIM's spectral residual `imagefft.abs()`, `torch.angle(imagefft)`, `torch.abs(ifft2(
# view_as_complex(compx))) ** 2` (photosynthesis-team/piq@v0.8.0 piq/srsim.py:156-184), each with
# the pre-1.8 branch that binds the spectrum's name otherwise; FNet's nested transform
# (rishikksh20/FNet-pytorch@6288eca8af31a5c2a2f753c11eb0a56783e9483a fnet.py:30).)

PIPELINES = '''
import math
import textwrap

import torch
import torch.nn.functional as F
from torch import nn


class GaborSaliency(nn.Module):
    """VSI's SDSP frequency saliency: a real log-Gabor filter from a grid of the size, applied by
    multiplying the image's complex spectrum, the inverse's real part kept."""

    def __init__(self, new_api=True):
        super().__init__()
        self.new_api = new_api

    def forward(self, x):
        h, w = x.shape[-2:]
        fy = torch.arange(h, dtype=x.dtype) / h - 0.5
        fx = torch.arange(w, dtype=x.dtype) / w - 0.5
        yy, xx = torch.meshgrid(fy, fx, indexing="ij")
        radius = torch.sqrt(xx ** 2 + yy ** 2) + 1e-3
        lg = torch.exp(-torch.log(radius / 0.1) ** 2 / 0.5).view(1, 1, h, w)
        if self.new_api:
            x_fft = torch.fft.fft2(x)
            x_ifft_real = torch.fft.ifft2(x_fft * lg).real
        else:
            x_fft = torch.stack((x, torch.zeros_like(x)), -1)
            x_ifft_real = x_fft[..., 0] * lg
        return x_ifft_real.pow(2).sum(dim=1, keepdim=True).sqrt()


class EvenOdd(nn.Module):
    """FSIM's phase congruency responses: filters built on a grid, their inverse's real part, the
    image's spectrum times each filter, the inverse as real and imaginary pairs."""

    def __init__(self, scales=2):
        super().__init__()
        self.scales = scales

    def forward(self, x):
        n, _, h, w = x.shape
        fy = torch.arange(h, dtype=x.dtype) / h
        fx = torch.arange(w, dtype=x.dtype) / w
        yy, xx = torch.meshgrid(fy, fx, indexing="ij")
        filters = torch.stack([torch.exp(-((xx - 0.2 * s) ** 2 + yy ** 2) * 8) for s in range(self.scales)])
        filters = filters.unsqueeze(0)
        imagefft = torch.fft.fft2(x)
        filters_ifft = torch.fft.ifft2(filters)
        filters_ifft = filters_ifft.real * 2.0  # (piq scales by math.sqrt(H * W): a size the trace bakes in)
        even_odd = torch.view_as_real(torch.fft.ifft2(imagefft * filters)).view(n, self.scales, h, w, 2)
        an = torch.sqrt(torch.sum(even_odd ** 2, dim=-1))
        return an + filters_ifft.sum(dim=1, keepdim=True) * 1e-3


class SpectralResidual(nn.Module):
    """SR-SIM's saliency: the log amplitude minus its local mean, the phase kept, back through the
    inverse transform of the complex made from real pairs, its squared magnitude."""

    def __init__(self, new_api=True):
        super().__init__()
        self.new_api = new_api

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps
        if self.new_api:
            imagefft = torch.fft.fft2(x)
            log_amplitude = torch.log(imagefft.abs() + eps)
            phase = torch.angle(imagefft)
        else:
            imagefft = torch.stack((x, torch.zeros_like(x)), -1)
            log_amplitude = torch.log(imagefft.pow(2).sum(dim=-1).sqrt() + eps)
            phase = torch.atan2(imagefft[..., 1], imagefft[..., 0] + eps)
        padded = F.pad(log_amplitude, [1, 1, 1, 1], mode="replicate")
        spectral_residual = log_amplitude - F.avg_pool2d(padded, kernel_size=3, stride=1)
        compx = torch.stack((torch.exp(spectral_residual) * torch.cos(phase),
                             torch.exp(spectral_residual) * torch.sin(phase)), -1)
        return torch.abs(torch.fft.ifft2(torch.view_as_complex(compx))) ** 2


class FourierMixing(nn.Module):
    """FNet's token mixing: a transform over the features, then over the tokens, the real part."""

    def forward(self, x):
        return torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real
'''


def test_the_complex_pipelines_are_rewritten() -> None:
    after = strip_helpers(rewrite(PIPELINES, select=("TRT709",), unsafe=True))
    for line in ('x_fft = _trt_fft2("tracked", x)',
                 'x_ifft_real = _trt_ifft2("real", _trt_complex_mul(x_fft, lg))',
                 "x_fft = torch.stack((x, torch.zeros_like(x)), -1)",  # the other branch's binding, as it was
                 'imagefft = _trt_fft2("tracked", x)',
                 'filters_ifft = _trt_ifft2("complex", filters)',
                 'filters_ifft = _trt_dft_part(filters_ifft, "real") * 2.0',
                 'even_odd = _trt_ifft2("view_as_real", _trt_complex_mul(imagefft, filters)).view(',
                 'log_amplitude = torch.log(_trt_dft_part(imagefft, "tracked:abs") + eps)',
                 'phase = _trt_dft_part(imagefft, "tracked:angle")',
                 "phase = torch.atan2(imagefft[..., 1], imagefft[..., 0] + eps)",
                 'return _trt_ifft2("pairs:abs", compx) ** 2',
                 'return _trt_fft("real", _trt_fft("tracked", x, dim=-1), dim=-2)'):
        assert line in after, line
    found = check_source(PIPELINES.encode(), "snippet.py", Options(select=("TRT709", "TRT301")))
    lines = PIPELINES.splitlines()
    assert [(f.rule, f.fix.value, lines[f.line - 1].split("=")[0].strip()) for f in found] == [
        ("TRT709", "unsafe", "x_fft"), ("TRT709", "unsafe", "imagefft"), ("TRT709", "unsafe", "filters_ifft"),
        ("TRT709", "unsafe", "imagefft"), ("TRT301", "safe", "phase"),
        ("TRT709", "unsafe", "return torch.abs(torch.fft.ifft2(torch.view_as_complex(compx))) ** 2"),
        ("TRT709", "unsafe", "return torch.fft.fft(torch.fft.fft(x, dim")]
    once = rewrite(PIPELINES, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once


def test_the_angle_part_while_exporting() -> None:
    """``torch.angle`` of a transform is atan2 of its parts (TRT301's form) while exporting: equal
    to the FFT's angle up to rounding, except at the branch cut (a bin whose imaginary part the
    FFT gives as zero comes out as a tiny number of either sign: pi or -pi, the same point)."""
    from trtcodemod.helpers.spectral import _trt_dft_part

    for shape in ((2, 3, 8, 8), (1, 1, 7, 5), (2, 1, 1, 6)):
        for values in ("random", "zeros", "negative"):
            x = _signal(shape, values)
            want = torch.angle(torch.fft.fft2(x))
            assert torch.equal(_trt_fft2("angle", x), want)  # outside an export: torch's
            with export_formulation():
                direct = _trt_fft2("angle", x)
                kept = _trt_dft_part(_trt_fft2("complex", x), "angle")
                tracked = _trt_dft_part(_trt_fft2("tracked", x), "tracked:angle")
            for got in (direct, kept, tracked):
                assert got.shape == want.shape and got.dtype == want.dtype
                assert torch.allclose(torch.cos(got), torch.cos(want), atol=1e-9), (shape, values)
                assert torch.allclose(torch.sin(got), torch.sin(want), atol=1e-9), (shape, values)
                assert float(got.abs().max()) <= math.pi
    # A name of a chain may hold a real tensor when it runs: torch's own part of it.
    real = _signal((2, 3), "negative")
    assert torch.equal(_trt_dft_part(real, "tracked:angle"), torch.angle(real))
    assert torch.equal(_trt_dft_part(real, "tracked:abs"), real.abs())
    with pytest.raises(RuntimeError):
        _trt_dft_part(real, "tracked:imag")


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory):
    before = import_source(PIPELINES, tmp_path_factory.mktemp("pipelines_before"))
    after = import_source(rewrite(PIPELINES, select=("TRT709",), unsafe=True),
                          tmp_path_factory.mktemp("pipelines_after"))
    return before, after


_PIPELINE_MODELS = {"GaborSaliency": (1, 3, 8, 8), "EvenOdd": (2, 1, 8, 8), "SpectralResidual": (1, 1, 8, 8),
                    "FourierMixing": (2, 6, 8)}


def test_the_pipeline_rewrite_runs_as_the_original_in_eager_mode(pipelines) -> None:
    before, after = pipelines
    for name, example in _PIPELINE_MODELS.items():
        for shape in (example, example[:-2] + (7, 5)):
            for values in ("random", "zeros", "negative", "special"):
                x = _signal(shape, "random" if values == "special" else values, torch.float32)
                if values == "special":
                    x.view(-1)[:3] = torch.tensor([math.inf, math.nan, -0.0])
                original = run_once(before[name](), [x.clone().requires_grad_(True)])
                rewritten = run_once(after[name](), [x.clone().requires_grad_(True)])
                assert_same_run(original, rewritten, context=f"{name} {shape} {values}")
    for name in ("GaborSaliency", "SpectralResidual"):  # the other branch (the pre-1.8 code) as it was
        x = _signal((1, 1, 6, 6), "random", torch.float32)
        assert torch.equal(before[name](new_api=False)(x), after[name](new_api=False)(x))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_pipeline_rewrite_exports_and_equals_eager(pipelines, dynamo) -> None:
    """The original does not export (TorchScript) or yields DFT (dynamo); the rewritten graph has
    no DFT and no complex op, passes the TensorRT check, and equals eager at other sizes (odd ones
    too) on random values, zeros and negatives in ONNX Runtime."""
    before, after = pipelines
    for name, shape in _PIPELINE_MODELS.items():
        example = _signal(shape, "random", torch.float32)
        original, rewritten = before[name](), after[name]()
        rank = len(shape)

        def export(model):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if dynamo:
                    axes = {0: torch.export.Dim("n"), rank - 2: torch.export.Dim("h", min=2),
                            rank - 1: torch.export.Dim("w", min=2)}
                    return torch.onnx.export(model, (example,), dynamo=True, input_names=["x"],
                                             dynamic_shapes=({"x": axes},)[0], verbose=False).model_proto
                buffer = io.BytesIO()
                torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                                  dynamic_axes={"x": {0: "n", rank - 2: "h", rank - 1: "w"}})
                return onnx.load_from_string(buffer.getvalue())

        graph = _exported_as_products(export, original, rewritten, dynamo, name)
        ops = {n.op_type for n in graph.graph.node}
        assert not ops & {"DFT", "STFT", "Atan2"}, (name, ops)
        session = ort.InferenceSession(graph.SerializeToString())
        for other in (shape[:-2] + (7, 5), (3,) + shape[1:-2] + (12, 9)):
            for values in ("random", "zeros", "negative"):
                x = _signal(other, values, torch.float32)
                got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
                with torch.no_grad():
                    want = original(x)
                assert got.shape == want.shape, (name, other)
                assert torch.allclose(got, want, rtol=1e-4, atol=1e-4 * (1 + float(want.abs().max()))), \
                    (name, other, values, float((got - want).abs().max()))


# --- torch.stft / torch.istft as members of the pipeline family ---------------------------------------

from trtcodemod.helpers.spectral import _trt_istft_onnx, _trt_stft_onnx  # noqa: E402

STFT_GATE = '''
import torch
from torch import nn


def amp_to_db(x, eps=1e-10, top_db=40):
    x_db = 20 * torch.log10(x.abs() + eps)
    return torch.max(x_db, (x_db.max(-1).values - top_db).unsqueeze(-1))


class Gate(nn.Module):
    def __init__(self, nonstationary):
        super().__init__()
        self.nonstationary = nonstationary

    def forward(self, x):
        X = torch.stft(x, n_fft=64, hop_length=16, return_complex=True, pad_mode="constant", center=True,
                       window=torch.hann_window(64).to(x.device))
        if self.nonstationary:
            mask = torch.sigmoid(X.abs() - 1.0)
        else:
            db = amp_to_db(X)
            mask = torch.gt(db, db.mean(-1, keepdim=True)) * 1.0
        Y = X * mask
        return torch.istft(Y, n_fft=64, hop_length=16, center=True, window=torch.hann_window(64).to(Y.device))
'''


def _stft_signals() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(5)
    impulse = torch.zeros(3, 300, dtype=torch.float64)
    impulse[:, 150] = 1.0
    return {"batch 3": torch.randn(3, 1000, generator=generator, dtype=torch.float64),
            "batch 1, a length no multiple of the hop": torch.randn(1, 999, generator=generator, dtype=torch.float64),
            "1-D": torch.randn(777, generator=generator, dtype=torch.float64),
            "zeros": torch.zeros(3, 400, dtype=torch.float64), "an impulse": impulse}


#: (n_fft, hop_length, win_length, window?, center, pad_mode, normalized)
STFT_SETTINGS = [(256, 64, None, True, True, "constant", False), (256, 100, 200, True, True, "reflect", True),
                 (64, 16, None, False, False, "reflect", False), (128, 32, 100, False, True, "replicate", False),
                 (64, 24, 50, True, True, "circular", False)]


@pytest.mark.parametrize("setting", STFT_SETTINGS, ids=str)
def test_stft_and_istft_export_formulations_are_torchs_up_to_rounding(setting) -> None:
    n_fft, hop, win_length, windowed, center, pad_mode, normalized = setting
    window = torch.hann_window(win_length or n_fft, dtype=torch.float64) if windowed else None
    for label, x in _stft_signals().items():
        if x.shape[-1] <= n_fft // 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's rectangular-window warning)
            spectrum = torch.stft(x, n_fft, hop, win_length, window, center, pad_mode, normalized, None, True)
        got = _trt_stft_onnx(x, "view_as_real", n_fft, hop, win_length, window, center, pad_mode, normalized, None)
        want = torch.view_as_real(spectrum)
        assert got.shape == want.shape, label
        torch.testing.assert_close(got, want, rtol=0, atol=1e-12 * max(1.0, want.abs().max().item()), msg=label)
        if not center and not windowed:  # (NOLA holds for a rectangular window without centring too)
            pass
        for length in (None, x.shape[-1], x.shape[-1] - 7):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                signal = torch.istft(spectrum, n_fft, hop, win_length, window, center, normalized, None, length)
            back = _trt_istft_onnx(spectrum.real, spectrum.imag, n_fft, hop, win_length, window, center, normalized,
                                   length)
            assert back.shape == signal.shape, (label, length)
            torch.testing.assert_close(back, signal, rtol=0, atol=1e-12 * max(1.0, signal.abs().max().item()),
                                       msg=f"{label} {length}")


def test_stft_pipeline_rewrite_text() -> None:
    new = strip_helpers(rewrite(STFT_GATE, unsafe=True, select=("TRT709",)))
    for fragment in ('X = _trt_stft("tracked", x, n_fft=64,', 'mask = torch.sigmoid(_trt_dft_part(X, "tracked:abs")',
                     "db = amp_to_db(_trt_dft_abs_argument(X))", "Y = _trt_complex_mul(X, mask)",
                     "return _trt_istft(Y, n_fft=64,"):
        assert fragment in new, new
    assert rules_found(STFT_GATE).count("TRT706") == 0  # (TRT709 takes the STFT: TRT706 does not name it too)
    assert rewrite(STFT_GATE, select=("TRT709",)) == textwrap.dedent(STFT_GATE)  # unsafe only


@pytest.mark.parametrize("reads", ["return x.real", "y = x.abs()\n    return y + x.real", "return helper(x)",
                                   "x = x * 2\n    return x.abs()"])
def test_a_function_reading_more_than_abs_keeps_the_stft_named(reads: str) -> None:
    code = STFT_GATE.replace("    x_db = 20 * torch.log10(x.abs() + eps)\n    return torch.max(x_db, (x_db.max(-1)"
                             ".values - top_db).unsqueeze(-1))", f"    {reads}")
    assert "def amp_to_db(x, eps=1e-10, top_db=40):\n    " + reads.split("\n")[0] in code
    new = rewrite(code, unsafe=True, select=("TRT709",))
    assert "amp_to_db(X)" in new and "_trt_dft_abs_argument" not in new


def test_a_function_imported_from_another_module_is_read_there(tmp_path) -> None:
    package = tmp_path / "gatepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(textwrap.dedent('''
        import torch


        @torch.no_grad()
        def amp_to_db(x, eps=1e-10, top_db=40):
            x_db = 20 * torch.log10(x.abs() + eps)
            return torch.max(x_db, (x_db.max(-1).values - top_db).unsqueeze(-1))
    '''))
    main = package / "gate.py"
    main.write_text(STFT_GATE.replace("def amp_to_db(x, eps=1e-10, top_db=40):\n    x_db = 20 * torch.log10(x.abs() "
                                      "+ eps)\n    return torch.max(x_db, (x_db.max(-1).values - top_db).unsqueeze(-1))",
                                      "from .utils import amp_to_db"))
    findings = check_source(main.read_bytes(), str(main), Options(select=("TRT709", "TRT706"), scope="all"))
    assert [f.rule for f in findings] == ["TRT709"]
    new = fix_source(main.read_bytes(), str(main), Options(select=("TRT709",), unsafe=True)).source.decode()
    assert "db = amp_to_db(_trt_dft_abs_argument(X))" in new


@pytest.fixture(scope="module")
def gates(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stft_gate")
    original = import_source(STFT_GATE, folder)
    rewritten = import_source(rewrite(STFT_GATE, unsafe=True, select=("TRT709",)), folder)
    return original, rewritten


@pytest.mark.parametrize("nonstationary", [False, True])
def test_the_stft_gate_exports_and_matches_eager(gates, nonstationary: bool, tmp_path) -> None:
    original, rewritten = (g["Gate"](nonstationary).eval() for g in gates)
    example = torch.randn(2, 400, generator=torch.Generator().manual_seed(1))
    with pytest.raises(Exception, match="STFT"):
        torch.onnx.export(original, (example,), io.BytesIO(), dynamo=False, opset_version=17)
    buffer = io.BytesIO()
    torch.onnx.export(rewritten, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                      dynamic_axes={"x": {0: "batch", 1: "samples"}})
    graph = onnx.load_from_string(buffer.getvalue())
    assert not {"STFT", "DFT"} & {n.op_type for n in graph.graph.node}
    session = ort.InferenceSession(buffer.getvalue())
    impulse = torch.zeros(3, 300)
    impulse[:, 150] = 1.0
    for label, x in {"example": example, "batch 3, 517 samples": torch.randn(3, 517), "batch 1": torch.randn(1, 640),
                     "zeros": torch.zeros(2, 400), "an impulse": impulse}.items():
        want = original(x)
        [got] = session.run(None, {"x": x.numpy()})
        assert got.shape == tuple(want.shape), label
        assert np.allclose(got, want.numpy(), rtol=0, atol=1e-5 * max(1.0, want.abs().max().item())), label
        torch.testing.assert_close(rewritten(x), want, rtol=0, atol=0, msg=label)  # eager: the original


@pytest.mark.parametrize("nonstationary", [False, True])
def test_the_stft_gate_exports_with_the_dynamo_exporter_too(gates, nonstationary: bool) -> None:
    original, rewritten = (g["Gate"](nonstationary).eval() for g in gates)
    example = torch.randn(2, 400, generator=torch.Generator().manual_seed(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(rewritten, (example,), dynamo=True, dynamic_shapes={
            "x": {0: torch.export.Dim("batch"), 1: torch.export.Dim("samples", min=100)}})
    model = program.model_proto
    assert not {"STFT", "DFT"} & {n.op_type for n in model.graph.node}
    session = ort.InferenceSession(model.SerializeToString())
    name = session.get_inputs()[0].name
    impulse = torch.zeros(3, 300)
    impulse[:, 150] = 1.0
    for label, x in {"example": example, "batch 3, 517 samples": torch.randn(3, 517), "batch 1": torch.randn(1, 640),
                     "zeros": torch.zeros(2, 400), "an impulse": impulse}.items():
        want = original(x)
        [got] = session.run(None, {name: x.numpy()})
        assert got.shape == tuple(want.shape), label
        assert np.allclose(got, want.numpy(), rtol=0, atol=1e-5 * max(1.0, want.abs().max().item())), label


def test_the_builtin_abs_of_a_spectrum_is_a_part(tmp_path) -> None:
    """Python's ``abs`` of a spectrum is its magnitude (``Tensor.__abs__`` is ``torch.abs``):
    torch-timeseries 0.2.5's TimesNet, ``torch_timeseries/model/TimesNet.py:11-18`` (restated):
    ``xf = torch.fft.rfft(x, dim=1)``, then ``abs(xf).mean(0).mean(-1)`` and ``abs(xf).mean(-1)``.
    Taken as the rule's ``abs`` part, written inline or through the name; a file that binds or
    mentions the bare name ``abs`` otherwise (a parameter, a ``def``) is left as it is. Eager mode
    runs as the original; the export equals eager mode."""
    source = ("import torch\n"
              "def amplitudes(x):\n"
              "    xf = torch.fft.rfft(x, dim=1)\n"
              "    frequency_list = abs(xf).mean(0).mean(-1)\n"
              "    return frequency_list, abs(xf).mean(-1)\n"
              "def inline(x):\n"
              "    return abs(torch.fft.rfft(x, dim=1)).mean(-1)\n")
    after = strip_helpers(rewrite(source, select=("TRT709",), unsafe=True))
    for line in ('xf = _trt_rfft("complex", x, dim=1)', 'frequency_list = _trt_dft_part(xf, "abs").mean(0).mean(-1)',
                 'return frequency_list, _trt_dft_part(xf, "abs").mean(-1)',
                 'return _trt_rfft("abs", x, dim=1).mean(-1)'):
        assert line in after, (line, after)
    for shadowing in ("def f(x, abs):\n    return abs(torch.fft.rfft(x))\n",
                      "def abs(z):\n    return z.real\ndef f(x):\n    return abs(torch.fft.rfft(x))\n",
                      "from numpy import abs\ndef f(x):\n    return abs(torch.fft.rfft(x))\n"):
        kept = "import torch\n" + shadowing
        assert rewrite(kept, select=("TRT709",), unsafe=True) == kept, shadowing
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    before = import_source(source, tmp_path / "before")
    rewritten = import_source(rewrite(source, select=("TRT709",), unsafe=True), tmp_path / "after")
    for values in ("random", "zeros", "negative", "special"):
        x = _signal((2, 9, 3), "random" if values == "special" else values, torch.float32)
        if values == "special":
            x[0, 1, 0], x[1, 2, 1] = math.inf, math.nan
        for name in ("amplitudes", "inline"):
            want, got = before[name](x), rewritten[name](x)
            for a, b in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                torch.testing.assert_close(b, a, rtol=0, atol=0, equal_nan=True)

    class Amplitudes(torch.nn.Module):
        def forward(self, x):
            return rewritten["amplitudes"](x)[1]

    buffer = io.BytesIO()
    example = _signal((2, 9, 3), "random", torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Amplitudes(), (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 1: "t"}})
    session = ort.InferenceSession(buffer.getvalue())
    for shape in ((2, 9, 3), (3, 16, 3), (1, 1, 3)):
        x = _signal(shape, "random", torch.float32)
        [got] = session.run(None, {"x": x.numpy()})
        want = before["amplitudes"](x)[1]
        assert np.allclose(got, want.numpy(), rtol=1e-5, atol=1e-5 * (1 + float(want.abs().max()))), shape


# --- a part of real pairs viewed as complex (Open-Unmix's ComplexNorm) -------------------------------
# openunmix 1.3.0, openunmix/transforms.py:210 (ComplexNorm.forward): `torch.abs(torch.view_as_complex(spec))`
# of an STFT kept as (real, imaginary) pairs on a last axis of 2; no Fourier transform in that function.

PAIRS = '''
import torch
from torch import nn


class PairParts(nn.Module):
    """Each part of (real, imaginary) pairs viewed as complex, in the forms real code writes."""

    def __init__(self, mono=False):
        super().__init__()
        self.mono = mono

    def forward(self, spec):
        mag = torch.abs(torch.view_as_complex(spec))
        if self.mono:
            mag = torch.mean(mag, 1, keepdim=True)
        phase = torch.view_as_complex(input=spec).angle()
        z = torch.view_as_complex(spec)
        re, im = z.real, torch.imag(z)
        return mag, phase, re * 2 - im, torch.view_as_complex(spec).abs() ** 2
'''


def test_a_part_of_pairs_viewed_as_complex_is_taken_of_the_pairs() -> None:
    after = strip_helpers(rewrite(PAIRS, select=("TRT709",), unsafe=True))
    assert 'mag = _trt_dft_part(_trt_view_as_complex(spec), "abs")' in after
    assert 'phase = _trt_dft_part(_trt_view_as_complex(input=spec), "angle")' in after
    assert "z = _trt_view_as_complex(spec)" in after
    assert 're, im = _trt_dft_part(z, "real"), _trt_dft_part(z, "imag")' in after
    assert 'return mag, phase, re * 2 - im, _trt_dft_part(_trt_view_as_complex(spec), "abs") ** 2' in after
    assert "torch.view_as_complex" not in after
    assert rules_found(PAIRS, select=("TRT709",)) == ["TRT709"] * 4
    assert rewrite(PAIRS, select=("TRT709",)) == PAIRS  # unsafe only
    once = rewrite(PAIRS, select=("TRT709",), unsafe=True)
    assert rewrite(once, select=("TRT709",), unsafe=True) == once
    # Not taken: the complex tensor used as such (a product), a name read otherwise or bound twice.
    for kept in ("    z = torch.view_as_complex(p)\n    return torch.view_as_real(z * 2)\n",
                 "    return torch.view_as_real(torch.view_as_complex(p) * 2)\n",
                 "    z = torch.view_as_complex(p)\n    return z.abs(), z\n",
                 "    z = torch.view_as_complex(p)\n    z = z * 2\n    return z.abs()\n",
                 "    z = torch.view_as_complex(p)\n    for z in (z,):\n        pass\n    return z.abs()\n",
                 "    z = torch.view_as_complex(p)\n    return z.abs(), (lambda: z)()\n"):
        source = f"import torch\ndef f(p):\n{kept}"
        assert rewrite(source, select=("TRT709",), unsafe=True) == source, kept


@pytest.fixture(scope="module")
def pair_parts(tmp_path_factory):
    before = import_source(PAIRS, tmp_path_factory.mktemp("before"))["PairParts"]
    after = import_source(rewrite(PAIRS, select=("TRT709",), unsafe=True),
                          tmp_path_factory.mktemp("after"))["PairParts"]
    return before, after


def _pairs(shape, values, dtype=torch.float32):
    x = _signal(shape, "random" if values == "special" else values, dtype)
    if values == "special" and x.numel() >= 4:
        x.view(-1)[:4] = torch.tensor([math.inf, math.nan, -0.0, -math.inf], dtype=dtype)
    return x


def test_the_pair_parts_run_as_the_original_in_eager_mode(pair_parts) -> None:
    before, after = pair_parts
    for mono in (False, True):
        for shape in [(1, 2, 9, 5, 2), (3, 1, 4, 7, 2), (0, 2, 3, 3, 2), (1, 1, 1, 1, 2), (2, 2, 3, 3, 3)]:
            for values in ("random", "zeros", "negative", "special"):
                for dtype in (torch.float32, torch.float64):
                    spec = _pairs(shape, values, dtype)
                    original = run_once(before(mono), [spec.clone().requires_grad_(True)])
                    rewritten = run_once(after(mono), [spec.clone().requires_grad_(True)])
                    assert_same_run(original, rewritten, context=f"{mono} {shape} {values} {dtype}")
    # torch's own errors stay: no last axis of 2, an integer tensor, a last axis with a stride other than 1
    for bad in (torch.zeros(2, 3), torch.zeros(2, 2, dtype=torch.long), torch.zeros(2, 4)[:, ::2]):
        assert_same_run(run_once(before(), [bad]), run_once(after(), [bad]), context=str(bad.shape))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_pair_parts_export_without_view_as_complex(pair_parts, dynamo) -> None:
    before, after = pair_parts
    example = _pairs((2, 2, 9, 6, 2), "random")
    names = ["spec"]

    def export(model):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if dynamo:
                dims = {"spec": {0: torch.export.Dim("n"), 3: torch.export.Dim("t", min=2)}}
                return torch.onnx.export(model, (example,), dynamo=True, input_names=names, dynamic_shapes=dims,
                                         verbose=False).model_proto
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes={"spec": {0: "n", 3: "t"}})
            return onnx.load_from_string(buffer.getvalue())

    if not dynamo:
        with pytest.raises(Exception, match="view_as_complex"):
            export(before())
    graph = export(after())
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(graph.SerializeToString())
    for shape in [(2, 2, 9, 6, 2), (3, 2, 9, 4, 2), (1, 2, 9, 11, 2)]:  # other sizes than the example's
        for values in ("random", "zeros", "negative", "special"):
            spec = _pairs(shape, values)
            got = session.run(None, {"spec": spec.numpy()})
            with torch.no_grad():
                want = before()(spec)
            for index, (g, w) in enumerate(zip(got, want)):
                w = w.numpy()
                assert g.shape == w.shape
                # zeros: the magnitude 0 and the angle of (0, 0) as torch gives them. A pair holding an inf beside
                # a NaN has the magnitude NaN here where torch gives inf (hypot's rule; the rule's assumption is a
                # finite input): non-finite where torch is, and the same value wherever torch is finite.
                finite = np.isfinite(w)
                assert not np.isfinite(g[~finite]).any() and np.isfinite(g[finite]).all(), (shape, values, index)
                assert np.allclose(g[finite], w[finite], rtol=1e-5, atol=1e-6), (shape, values, index)
                assert np.array_equal(g[np.isinf(g)], w[np.isinf(g)]), (shape, values, index)


# --- torch.stft(..., return_complex=False): the real pairs (hear21passt's AugmentMelSTFT, zoo 64) -------------------

STFT_PAIRS = '''
import torch
from torch import nn


class Power(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(64, periodic=False), persistent=False)

    def forward(self, x):
        x = torch.stft(x, 64, hop_length=16, win_length=64, center=True, normalized=False, window=self.window,
                       return_complex=False)
        return (x ** 2).sum(dim=-1)
'''


def test_a_real_pairs_stft_is_rewritten_and_not_named_by_trt706() -> None:
    after = rewrite(STFT_PAIRS, unsafe=True, select=("TRT709",))
    assert ('x = _trt_stft("view_as_real", x, 64, hop_length=16, win_length=64, center=True, normalized=False, '
            'window=self.window,\n                       return_complex=False)') in after, after
    # TRT706 names no STFT that TRT709 takes (both selected: TRT706's own tests are in test_unsupported_ops.py)
    assert {f.rule for f in check_source(textwrap.dedent(STFT_PAIRS).encode(), "pairs.py",
                                         Options(select=("TRT709", "TRT706")))} == {"TRT709"}
    assert rewrite(STFT_PAIRS, select=("TRT709",)) == textwrap.dedent(STFT_PAIRS)  # unsafe only
    keyword = STFT_PAIRS.replace("torch.stft(x, 64,", "torch.stft(input=x, n_fft=64,")
    assert '_trt_stft("view_as_real", input=x, n_fft=64,' in rewrite(keyword, unsafe=True, select=("TRT709",))
    for other in ("return_complex=True)", "return_complex=flag)"):  # a complex result, or one the code decides
        assert "_trt_stft(\"view_as_real\"" not in rewrite(STFT_PAIRS.replace("return_complex=False)", other),
                                                           unsafe=True, select=("TRT709",))


@pytest.fixture(scope="module")
def stft_pairs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stft_pairs")
    return (import_source(STFT_PAIRS, folder)["Power"]().eval(),
            import_source(rewrite(STFT_PAIRS, unsafe=True, select=("TRT709",)), folder)["Power"]().eval())


def _pairs_signals() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(11)
    impulse = torch.zeros(3, 300)
    impulse[:, 150] = 1.0
    return {"example": torch.randn(2, 400, generator=generator), "batch 3, 517 samples": torch.randn(3, 517),
            "batch 1": torch.randn(1, 640, generator=generator), "zeros": torch.zeros(2, 400),
            "negatives": -torch.rand(2, 333, generator=generator), "an impulse": impulse}


def test_a_real_pairs_stft_is_the_original_in_eager_mode(stft_pairs) -> None:
    original, rewritten = stft_pairs
    special = torch.randn(2, 400)
    special[0, 7], special[1, 100] = float("inf"), float("nan")
    for label, x in {**_pairs_signals(), "inf and nan": special, "1-D": torch.randn(300),
                     "too short for reflect padding": torch.randn(2, 20)}.items():
        assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=label)
        graded = x.clone().requires_grad_()
        assert_same_run(run_once(original, [graded]), run_once(rewritten, [graded.detach().requires_grad_()]),
                        context=f"{label}, with gradients")


def test_a_real_pairs_stft_exports_without_stft_and_matches_eager(stft_pairs) -> None:
    original, rewritten = stft_pairs
    example = _pairs_signals()["example"]
    buffer = io.BytesIO()
    torch.onnx.export(original, (example,), buffer, dynamo=False, opset_version=17)
    assert "STFT" in {n.op_type for n in onnx.load_from_string(buffer.getvalue()).graph.node}
    buffer = io.BytesIO()
    torch.onnx.export(rewritten, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                      dynamic_axes={"x": {0: "batch", 1: "samples"}})
    graph = onnx.load_from_string(buffer.getvalue())
    assert not {"STFT", "DFT"} & {n.op_type for n in graph.graph.node}
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(buffer.getvalue())
    for label, x in _pairs_signals().items():
        want = original(x)
        [got] = session.run(None, {"x": x.numpy()})
        assert got.shape == tuple(want.shape), label
        assert np.allclose(got, want.numpy(), rtol=0, atol=1e-5 * max(1.0, want.abs().max().item())), label


# --- torchaudio's spectrogram: the STFT of the packed signal, reshaped back, then its magnitude -----

#: torchaudio 2.11.1's ``torchaudio.functional.spectrogram`` (functional/functional.py, lines 115-145), reduced in
#: our own words: the batch axes packed into one, ``torch.stft(input=..., return_complex=True)`` by keyword, the
#: spectrum reshaped back with its own ``.shape`` read in the reshape, an in-place division under a flag, and the
#: magnitude (or its power) returned where ``power`` is given, the complex spectrum where it is not. Zoo 74's dasheng
#: models and zoo 64's Conformer stopped here at first contact.
TORCHAUDIO_SPECTROGRAM = '''
import torch
from torch import nn


def spectrogram(waveform, window, n_fft, hop_length, power, normalized):
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    spec_f = torch.stft(
        input=waveform,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=n_fft,
        window=window,
        center=True,
        pad_mode="reflect",
        normalized=False,
        onesided=True,
        return_complex=True,
    )
    spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
    if normalized:
        spec_f /= window.pow(2.0).sum().sqrt()
    if power is not None:
        if power == 1.0:
            return spec_f.abs()
        return spec_f.abs().pow(power)
    return spec_f


class MelFrontEnd(nn.Module):
    def __init__(self, power=2.0):
        super().__init__()
        self.power = power
        self.register_buffer("window", torch.hann_window(64))
        self.register_buffer("filters", torch.rand(33, 8, generator=torch.Generator().manual_seed(3)))

    def forward(self, x):
        spec = spectrogram(x, self.window, 64, 16, self.power, False)
        if self.power is None:
            return torch.view_as_real(spec)
        return torch.matmul(spec.transpose(-1, -2), self.filters)
'''


def test_torchaudios_spectrogram_is_rewritten_as_a_chain() -> None:
    after = rewrite(TORCHAUDIO_SPECTROGRAM, unsafe=True, select=("TRT709",))
    assert '    spec_f = _trt_stft("tracked", input=waveform,\n' in after, after
    assert '    spec_f = _trt_complex_shaped(spec_f, "reshape", shape[:-1] + _trt_complex_shape(spec_f)[-2:])\n' \
        in after, after
    assert '            return _trt_dft_part(spec_f, "tracked:abs")\n' in after
    assert '        return _trt_dft_part(spec_f, "tracked:abs").pow(power)\n' in after
    assert "spec_f /= window.pow(2.0).sum().sqrt()" in after  # (a copy the helpers check by its version)
    assert {f.rule for f in check_source(textwrap.dedent(TORCHAUDIO_SPECTROGRAM).encode(), "spec.py",
                                         Options(select=("TRT709", "TRT706")))} == {"TRT709"}
    assert rewrite(TORCHAUDIO_SPECTROGRAM, select=("TRT709",)) == textwrap.dedent(TORCHAUDIO_SPECTROGRAM)
    # A reshaped spectrum no part reads (only a product with a number): no chain, the STFT stays named.
    complex_only = TORCHAUDIO_SPECTROGRAM.replace("return spec_f.abs().pow(power)", "return spec_f * 2") \
        .replace("return spec_f.abs()", "return spec_f * 3")
    assert "_trt_complex_shaped" not in rewrite(complex_only, unsafe=True, select=("TRT709",))


@pytest.fixture(scope="module")
def torchaudio_spectrograms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("torchaudio_spectrogram")
    before = import_source(TORCHAUDIO_SPECTROGRAM, folder)["MelFrontEnd"]
    after = import_source(rewrite(TORCHAUDIO_SPECTROGRAM, unsafe=True, select=("TRT709",)), folder)["MelFrontEnd"]
    return before, after


def _waveforms() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(5)
    special = torch.randn(2, 1, 400, generator=generator)
    special[0, 0, 9], special[1, 0, 200] = float("inf"), float("nan")
    return {"example": torch.randn(2, 1, 400, generator=generator), "3 clips, 517 samples": torch.randn(3, 1, 517),
            "one clip": torch.randn(1, 1, 640, generator=generator), "zeros": torch.zeros(2, 1, 400),
            "negatives": -torch.rand(2, 1, 333, generator=generator), "two channels": torch.randn(2, 2, 300),
            "inf and nan": special}


@pytest.mark.parametrize("power", [1.0, 2.0, None])
def test_torchaudios_spectrogram_rewrite_is_the_original_in_eager_mode(torchaudio_spectrograms, power) -> None:
    before, after = torchaudio_spectrograms
    original, rewritten = before(power).eval(), after(power).eval()
    for label, x in _waveforms().items():
        assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=label)
        graded = x.clone().requires_grad_()
        assert_same_run(run_once(original, [graded]), run_once(rewritten, [x.clone().requires_grad_()]),
                        context=f"{label}, with gradients")


@pytest.mark.parametrize("power", [1.0, 2.0])
def test_torchaudios_spectrogram_exports_without_a_complex_tensor(torchaudio_spectrograms, power) -> None:
    before, after = torchaudio_spectrograms
    original, rewritten = before(power).eval(), after(power).eval()
    example = _waveforms()["example"]
    axes = {"x": {0: "batch", 2: "samples"}}
    with pytest.raises(Exception, match="stft|complex|STFT"):
        torch.onnx.export(original, (example,), io.BytesIO(), dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes=axes)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes=axes)
    graph = onnx.load_from_string(buffer.getvalue())
    assert not {"STFT", "DFT"} & {n.op_type for n in graph.graph.node}
    assert not [n for n in graph.graph.node if n.domain not in ("", "ai.onnx")]
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for label, x in _waveforms().items():
        if label in ("inf and nan", "two channels"):
            continue  # (a matrix product spreads inf/NaN over the frame: module docstring; channels: another axis)
        want = original(x)
        [got] = session.run(None, {"x": x.numpy()})
        assert got.shape == tuple(want.shape), label
        assert np.allclose(got, want.numpy(), rtol=1e-4, atol=1e-4 * max(1.0, want.abs().max().item())), label


# --- a real number written into a spectrum through a mask, then the inverse: TimeMixer's decomposition -----

#: pypots 1.5's TimeMixer ``DFT_series_decomp`` (pypots/nn/modules/timemixer/layers.py:23-31), in our own words:
#: the spectrum's magnitudes, the top k kept by zeroing every bin at or below the k-th largest, then the inverse.
MASKED_SPECTRUM = '''
import torch
from torch import nn


class SeasonalTrend(nn.Module):
    def __init__(self, top_k=3):
        super().__init__()
        self.top_k = top_k

    def forward(self, x):
        xf = torch.fft.rfft(x)
        freq = abs(xf)
        freq[0] = 0
        top_k_freq, top_list = torch.topk(freq, self.top_k)
        xf[freq <= top_k_freq.min()] = 0
        season = torch.fft.irfft(xf)
        return season, x - season
'''


def test_a_masked_write_into_a_spectrum_is_part_of_the_chain() -> None:
    after = rewrite(MASKED_SPECTRUM, unsafe=True, select=("TRT709",))
    assert "        xf = _trt_complex_put(xf, freq <= top_k_freq.min(), 0)\n" in after, after
    assert '        freq = _trt_dft_part(xf, "tracked:abs")\n' in after and "season = _trt_irfft(xf)\n" in after
    assert rewrite(MASKED_SPECTRUM, select=("TRT709",)) == textwrap.dedent(MASKED_SPECTRUM)
    # A complex value, a value read from the spectrum itself, or a tensor written: the chain stops there.
    for write in ("xf[freq <= top_k_freq.min()] = 1j", "xf[xf.abs() <= top_k_freq.min()] = 0",
                  "xf[freq <= top_k_freq.min()] = freq.min()"):
        changed = rewrite(MASKED_SPECTRUM.replace("xf[freq <= top_k_freq.min()] = 0", write), unsafe=True,
                          select=("TRT709",))
        assert "_trt_complex_put" not in changed and "_trt_irfft" not in changed, write


def test_the_masked_spectrum_is_the_original_in_eager_mode_and_exports(tmp_path) -> None:
    original = import_source(MASKED_SPECTRUM, tmp_path)["SeasonalTrend"]()
    rewritten = import_source(rewrite(MASKED_SPECTRUM, unsafe=True, select=("TRT709",)), tmp_path)["SeasonalTrend"]()
    generator = torch.Generator().manual_seed(2)
    sets = {"example": torch.randn(4, 6, 48, generator=generator), "batch 7": torch.randn(7, 6, 48),
            "one": torch.randn(1, 6, 48), "zeros": torch.zeros(2, 6, 48),
            "negatives": -torch.rand(2, 6, 48, generator=generator)}
    for label, x in sets.items():
        assert_same_run(run_once(original, [x]), run_once(rewritten, [x]), context=label)
        assert_same_run(run_once(original, [x.clone().requires_grad_()]),
                        run_once(rewritten, [x.clone().requires_grad_()]), context=f"{label}, with gradients")
    with pytest.raises(Exception, match="fft"):
        torch.onnx.export(original, (sets["example"],), io.BytesIO(), dynamo=False, opset_version=17)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, (sets["example"],), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    graph = onnx.load_from_string(buffer.getvalue())
    assert not {"DFT"} & {n.op_type for n in graph.graph.node}
    assert not [n for n in graph.graph.node if n.domain not in ("", "ai.onnx")]
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for label in ("example", "batch 7", "one", "negatives"):
        want = original(sets[label])
        got = session.run(None, {"x": sets[label].numpy()})
        for w, g in zip(want, got):
            assert np.allclose(g, w.numpy(), rtol=0, atol=1e-5), label


def test_torchaudios_spectrogram_rewrite_fx_traces_and_compiles_as_the_original(torchaudio_spectrograms) -> None:
    """The chain's parts outside an export are torch's own, with no branch on the tensor: ``torch.fx`` traces the
    rewrite where it traced the original (a ``z.is_complex()`` test on the proxy stopped it), with the same values."""
    before, after = torchaudio_spectrograms
    x = _waveforms()["example"]
    for power in (1.0, 2.0):
        original, rewritten = before(power).eval(), after(power).eval()
        want = original(x)
        assert torch.equal(torch.fx.symbolic_trace(original)(x), want)
        assert torch.equal(torch.fx.symbolic_trace(rewritten)(x), want)
        assert torch.equal(torch.compile(rewritten, backend="eager")(x), want)
