"""Discrete Fourier transforms of real tensors exported as matrix products (TRT709).

``torch.fft.*`` does not export with the TorchScript exporter (no symbolic for ``aten::fft_*``),
the dynamo exporter emits ONNX ``DFT``, which no TensorRT release parses, and the result is a
complex tensor, which neither ONNX graph TensorRT builds can carry. What real code does with the
transform is usually real again: ``torch.view_as_real(fft2(x))``, ``fft(x).real``, ``.imag``,
``.abs()``. So each helper here takes that use (``part``) with the transform and, while
``torch.onnx.export`` traces the model, computes it without a complex tensor: along each
transformed axis, the input times a cosine and a sine matrix

    C[k, j] = cos(2 pi ((k * j) mod n) / n),  S[k, j] = sin(2 pi ((k * j) mod n) / n)

built from ``arange`` of the traced sizes (Range, Mul, Div, Sub, Cast, Cos, Sin, Transpose,
MatMul; Less where a size is given, Concat for ``view_as_real``, Sqrt for ``abs``: parsed by
TensorRT, and dynamic when the sizes are). ``(k * j) mod n`` is taken in integers (as
``kj - trunc(kj / n) * n``, both non-negative: no ONNX ``Mod``, which TensorRT 8.4 lacks, and no
floor-division sign fix) so the angle stays below 2 pi and keeps its precision. A size ``n``/``s`` given by the code trims (the columns past ``n``
are zero) or zero-pads (the matrix has only the input's columns) as torch does; ``rfft*`` keep
the ``n // 2 + 1`` first rows of the last axis; ``norm`` scales the matrices.

The values differ from the FFT's by rounding (a matrix product sums in another order), and a
matrix product multiplies every element by its weight, a zero weight included: one inf or NaN in
an input line makes every output of that line inf or NaN, where the FFT keeps some of them finite
(``torch.fft.fft([1, inf, 2, 3])`` has the finite real parts -1 in two bins; here they are NaN).
Float16/bfloat16 are computed in float32 and rounded back; integer
and bool inputs in the default float type, as torch promotes them.

The inverse real transforms (``irfft``/``irfft2``/``irfftn``) take the real tensors their complex
input was made of (``_trt_complex``, ``_trt_view_as_complex`` remember them while exporting): the
complex inverse on every axis but the last, then the Hermitian half spectrum on the last (bins 0
and ``n / 2`` once, their imaginary parts ignored, the bins between twice).

Outside ``torch.onnx.export`` (eager, ``torch.fx``, ``torch.compile``, ``torch.export``) every
helper is the torch function followed by the use, so the program there is the original; a
complex input keeps the original while exporting too (and its export error).
"""

import torch

from trtcodemod.helpers.atan2 import _trt_atan2_onnx
from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_dft_part(z, part):
    """What the code takes of the transform ``z``: ``torch.view_as_real(z)``, ``z.real``, ``z.imag``,
    ``z.abs()``, ``torch.angle(z)`` (while exporting, atan2 of the parts as TRT301's helper
    computes it) or ``z`` itself (``"complex"``: a transform kept in a variable). A real ``z`` is
    the ``(..., 2)`` layout the export formulation keeps such a transform in; with a
    ``"tracked:"`` prefix (a part read through a name of a chain, whose spectra stay complex
    tensors) a real ``z`` is no spectrum and takes torch's own part. A ``"pairs:"`` prefix (the
    input was given as real and imaginary pairs) says nothing about the result."""
    if part.startswith("pairs:"):
        part = part[6:]
    if part == "complex" or part == "tracked":
        return z
    tracked = part.startswith("tracked:")
    if tracked:
        part = part[8:]
    if not _trt_onnx_exporting():
        # Eager mode, torch.fx, torch.compile, torch.export: torch's own part of what the code holds, with no
        # branch on the tensor (fx traces a proxy there, which no Python `if` may read).
        return _trt_torch_part(z, part)
    if tracked and not z.is_complex():  # z is whatever a name of a chain holds: a real tensor is no spectrum
        return _trt_torch_part(z, part)
    if z.is_complex() and not torch.jit.is_scripting() and _trt_onnx_exporting():
        parts = _trt_complex_parts(z)
        if parts is not None:  # a tensor the helpers made while exporting: its parts, no complex op
            z = torch.stack(parts, -1)
    if not z.is_complex():
        if part == "view_as_real":
            return z
        if part == "real":
            return z[..., 0]
        if part == "imag":
            return z[..., 1]
        if part == "angle":  # atan2 of the parts, in operations TensorRT parses (no ONNX Atan2)
            return _trt_atan2_onnx(z[..., 1], z[..., 0])
        return torch.sqrt(z[..., 0] * z[..., 0] + z[..., 1] * z[..., 1])
    return _trt_torch_part(z, part)


def _trt_torch_part(z, part):
    """``part`` of ``z`` as the code writes it: ``torch.view_as_real``, ``torch.real``, ``torch.imag``,
    ``torch.angle`` or ``torch.abs``."""
    if part == "view_as_real":
        return torch.view_as_real(z)
    if part == "real":
        return torch.real(z)
    if part == "imag":
        return torch.imag(z)
    if part == "angle":
        return torch.angle(z)
    return torch.abs(z)


def _trt_view_as_complex(input):
    """``torch.view_as_complex(input)``, always; while ``torch.onnx.export`` traces the model, the
    complex tensor also remembers ``input`` (its real and imaginary pairs) and the version both
    had, so a transform it is passed to later (``z = view_as_complex(p)``, then ``fftn(z)``, as
    MONAI's ``fftn_centered_t`` writes it) can take the pairs: the complex tensor is then used by
    nothing in the graph, which drops it with its ``view_as_complex``."""
    z = torch.view_as_complex(input)
    if not torch.jit.is_scripting() and _trt_onnx_exporting():
        z._trt_complex_pairs = (input, z._version)
    return z


def _trt_complex(real, imag):
    """``torch.complex(real, imag)``, always; while ``torch.onnx.export`` traces the model, the
    complex tensor also remembers its two parts and the versions the three had, so an inverse
    real transform it is passed to later (``z = torch.complex(re, im)``, then ``irfftn(z)``, as
    LaMa's Fourier unit writes it) can take the parts: the complex tensor is then used by
    nothing in the graph, which drops it."""
    z = torch.complex(real, imag)
    if not torch.jit.is_scripting() and _trt_onnx_exporting():
        z._trt_complex_parts = (real, imag, real._version, imag._version, z._version)
    return z


def _trt_complex_parts(input):
    """The real and imaginary parts of the complex ``input`` that ``_trt_complex`` or
    ``_trt_view_as_complex`` made while exporting, when none of the tensors was written to
    since; None otherwise."""
    if not input.is_complex():
        return None
    kept = getattr(input, "_trt_complex_parts", None)
    if kept is not None and kept[0]._version == kept[2] and kept[1]._version == kept[3] \
            and input._version == kept[4]:
        return kept[0], kept[1]
    kept = getattr(input, "_trt_complex_pairs", None)
    if kept is not None and kept[1] == input._version:
        return kept[0][..., 0], kept[0][..., 1]
    return None


def _trt_dft_input(input, part):
    """``(input, part)`` as the export formulation takes them: a complex ``input`` that
    ``_trt_view_as_complex`` made while exporting, not written to since, is passed as its
    pairs with a ``"pairs:"`` part; anything else as it is."""
    if input.is_complex() and not part.startswith("pairs:"):
        kept = getattr(input, "_trt_complex_pairs", None)
        if kept is not None and kept[1] == input._version:
            return kept[0], "pairs:" + part
        parts = _trt_complex_parts(input)
        if parts is not None:  # made by _trt_complex (or a product or a tracked transform) while exporting
            return torch.stack(parts, -1), "pairs:" + part
    return input, part


def _trt_dft_signal(input, part):
    """The signal the code transforms: ``input`` itself, or, for a ``"pairs:"`` part, the complex
    tensor whose real and imaginary pairs ``input`` holds (``torch.view_as_complex(input)``)."""
    if part.startswith("pairs:"):
        return torch.view_as_complex(input)
    return input


def _trt_dft_shape(input, part):
    """A real tensor of the transformed signal's shape (for its axes): ``input``, or its real parts."""
    if part.startswith("pairs:"):
        return input[..., 0]
    return input


def _trt_dft_axes(x, sizes, dims, default_dims):
    """The transformed axes (non-negative) and their sizes (None: the input's), as torch's
    ``fftn``-style ``s``/``dim`` arguments choose them."""
    if dims is not None and not isinstance(dims, (list, tuple)):
        dims = [dims]
    if sizes is not None and not isinstance(sizes, (list, tuple)):  # an int, or a size the tracer records
        sizes = [sizes]
    if dims is None:
        if sizes is not None:
            dims = list(range(-len(sizes), 0))
        elif default_dims is None:
            dims = list(range(x.dim()))
        else:
            dims = list(default_dims)
    dims = [d % x.dim() for d in dims]
    sizes = [None] * len(dims) if sizes is None else [None if s == -1 else s for s in sizes]
    return dims, sizes


def _trt_dft_lines(re, im, sizes, dims, norm, inverse, onesided, compute):
    """The real and imaginary parts (``im`` None: zero) of the DFT of ``re + i im`` along
    ``dims`` (sizes ``sizes``, None: the axis's own), as products with cosine and sine matrices;
    ``onesided`` keeps the first ``n // 2 + 1`` frequencies of the last axis (``rfft``)."""
    sign = 1.0 if inverse else -1.0
    for index in range(len(dims)):
        axis = dims[index]
        length = re.shape[axis]
        n = length if sizes[index] is None else sizes[index]
        rows = n // 2 + 1 if onesided and index == len(dims) - 1 else n
        k = torch.arange(rows, device=re.device)
        j = torch.arange(length, device=re.device)
        kj = k[:, None] * j[None, :]
        kj = kj - torch.div(kj, n, rounding_mode="trunc") * n  # (both non-negative: the floor)
        angle = kj.to(compute) * (6.283185307179586 / n)
        scale = 1.0
        if norm == "ortho":
            scale = n ** -0.5
        elif (norm == "forward") != inverse:
            scale = 1.0 / n
        cos = torch.cos(angle) * scale
        sin = torch.sin(angle) * (scale * sign)
        if sizes[index] is not None:
            keep = (j < n).to(compute)
            cos = cos * keep
            sin = sin * keep
        last = re.dim() - 1  # non-negative: the TorchScript exporter writes a negative movedim into Transpose
        a = re.transpose(axis, last)
        if im is None:
            new_re = torch.matmul(a, cos.transpose(0, 1))
            new_im = torch.matmul(a, sin.transpose(0, 1))
        else:
            b = im.transpose(axis, last)
            new_re = torch.matmul(a, cos.transpose(0, 1)) - torch.matmul(b, sin.transpose(0, 1))
            new_im = torch.matmul(a, sin.transpose(0, 1)) + torch.matmul(b, cos.transpose(0, 1))
        re = new_re.transpose(axis, last)
        im = new_im.transpose(axis, last)
    return re, im


def _trt_dft_onnx(x, part, sizes, dims, norm, inverse, onesided):
    """``part`` of the DFT of the real tensor ``x`` along ``dims`` (sizes ``sizes``, None: the
    axis's own), as products with cosine and sine matrices; ``onesided`` keeps the first
    ``n // 2 + 1`` frequencies of the last axis (``rfft``)."""
    dtype = x.dtype if x.is_floating_point() else torch.get_default_dtype()
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    re = x.to(compute)
    im = None
    if part.startswith("pairs:"):  # x holds (real, imaginary) pairs on its last axis
        part = part[6:]
        im = re[..., 1]
        re = re[..., 0]
    re, im = _trt_dft_lines(re, im, sizes, dims, norm, inverse, onesided, compute)
    if im is None:  # no axis: torch.fft.fftn over zero dims is the input as complex
        im = torch.zeros_like(re)
    return _trt_spectrum_part(part, re, im, dtype)


def _trt_spectrum_part(part, re, im, dtype):
    """What the code takes of a spectrum given as its real and imaginary parts, in ``dtype``: the
    tracked complex value (``tracked``), pairs on a last axis (``view_as_real``, ``complex``), a
    part, the angle, or else the magnitude."""
    if part == "tracked":  # the complex transform, remembering its parts (for a product, an inverse)
        return _trt_complex(re if re.dtype == dtype else re.to(dtype), im if im.dtype == dtype else im.to(dtype))
    if part == "view_as_real" or part == "complex":
        out = torch.stack((re, im), -1)
    elif part == "real":
        out = re
    elif part == "imag":
        out = im
    elif part == "angle":
        out = _trt_atan2_onnx(im, re)
    else:
        out = torch.sqrt(re * re + im * im)
    return out if out.dtype == dtype else out.to(dtype)


def _trt_fft(part, input, n=None, dim=-1, norm=None):
    """``part`` of ``torch.fft.fft(input, n, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), n, dim, None)
            return _trt_dft_onnx(input, part, sizes, dims, norm, False, False)
    return _trt_dft_part(torch.fft.fft(_trt_dft_signal(input, part), n, dim, norm), part)


def _trt_ifft(part, input, n=None, dim=-1, norm=None):
    """``part`` of ``torch.fft.ifft(input, n, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), n, dim, None)
            return _trt_dft_onnx(input, part, sizes, dims, norm, True, False)
    return _trt_dft_part(torch.fft.ifft(_trt_dft_signal(input, part), n, dim, norm), part)


def _trt_rfft(part, input, n=None, dim=-1, norm=None):
    """``part`` of ``torch.fft.rfft(input, n, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting() and not input.is_complex():
        dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), n, dim, None)
        return _trt_dft_onnx(input, part, sizes, dims, norm, False, True)
    return _trt_dft_part(torch.fft.rfft(_trt_dft_signal(input, part), n, dim, norm), part)


def _trt_fft2(part, input, s=None, dim=(-2, -1), norm=None):
    """``part`` of ``torch.fft.fft2(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, (-2, -1))
            return _trt_dft_onnx(input, part, sizes, dims, norm, False, False)
    return _trt_dft_part(torch.fft.fft2(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_ifft2(part, input, s=None, dim=(-2, -1), norm=None):
    """``part`` of ``torch.fft.ifft2(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, (-2, -1))
            return _trt_dft_onnx(input, part, sizes, dims, norm, True, False)
    return _trt_dft_part(torch.fft.ifft2(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_rfft2(part, input, s=None, dim=(-2, -1), norm=None):
    """``part`` of ``torch.fft.rfft2(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting() and not input.is_complex():
        dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, (-2, -1))
        return _trt_dft_onnx(input, part, sizes, dims, norm, False, True)
    return _trt_dft_part(torch.fft.rfft2(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_fftn(part, input, s=None, dim=None, norm=None):
    """``part`` of ``torch.fft.fftn(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, None)
            return _trt_dft_onnx(input, part, sizes, dims, norm, False, False)
    return _trt_dft_part(torch.fft.fftn(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_ifftn(part, input, s=None, dim=None, norm=None):
    """``part`` of ``torch.fft.ifftn(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting():
        input, part = _trt_dft_input(input, part)
        if not input.is_complex():
            dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, None)
            return _trt_dft_onnx(input, part, sizes, dims, norm, True, False)
    return _trt_dft_part(torch.fft.ifftn(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_rfftn(part, input, s=None, dim=None, norm=None):
    """``part`` of ``torch.fft.rfftn(input, s, dim, norm)``; while exporting, matrix products."""
    if _trt_onnx_exporting() and not input.is_complex():
        dims, sizes = _trt_dft_axes(_trt_dft_shape(input, part), s, dim, None)
        return _trt_dft_onnx(input, part, sizes, dims, norm, False, True)
    return _trt_dft_part(torch.fft.rfftn(_trt_dft_signal(input, part), s, dim, norm), part)


def _trt_irdft_onnx(re, im, sizes, dims, norm):
    """``torch.fft.irfftn`` of ``re + i im`` along ``dims`` (output sizes ``sizes``, None: the
    axis's own, and ``2 * (m - 1)`` on the last of ``m`` bins) as products with cosine and sine
    matrices: the complex inverse along every axis but the last, then, on the last, the
    Hermitian half spectrum: bins 0 and ``n / 2`` (``n`` even) count once, their imaginary parts
    are ignored, and the bins between twice; bins past ``n // 2`` are dropped, missing ones
    are zeros."""
    dtype = re.dtype
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    re = re.to(compute)
    im = im.to(compute)
    re, im = _trt_dft_lines(re, im, sizes[:-1], dims[:-1], norm, True, False, compute)
    axis = dims[-1]
    bins = re.shape[axis]
    n = 2 * (bins - 1) if sizes[-1] is None else sizes[-1]
    t = torch.arange(n, device=re.device)
    k = torch.arange(bins, device=re.device)
    tk = t[:, None] * k[None, :]
    tk = tk - torch.div(tk, n, rounding_mode="trunc") * n  # (both non-negative: the floor)
    angle = tk.to(compute) * (6.283185307179586 / n)
    scale = 1.0
    if norm == "ortho":
        scale = n ** -0.5
    elif norm != "forward":
        scale = 1.0 / n
    below = (2 * k < n).to(compute)  # the bins counted twice, and bin 0
    first = (k == 0).to(compute)
    middle = (2 * k == n).to(compute)
    cos = torch.cos(angle) * ((2.0 * below - first + middle) * scale)
    sin = torch.sin(angle) * ((2.0 * below - 2.0 * first) * scale)
    last = re.dim() - 1
    a = re.transpose(axis, last)
    b = im.transpose(axis, last)
    out = torch.matmul(a, cos.transpose(0, 1)) - torch.matmul(b, sin.transpose(0, 1))
    out = out.transpose(axis, last)
    return out if out.dtype == dtype else out.to(dtype)


def _trt_irfft(input, n=None, dim=-1, norm=None):
    """``torch.fft.irfft(input, n, dim, norm)``; while exporting, matrix products of the parts
    ``_trt_complex``/``_trt_view_as_complex`` made ``input`` of."""
    if _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            dims, sizes = _trt_dft_axes(parts[0], n, dim, None)
            return _trt_irdft_onnx(parts[0], parts[1], sizes, dims, norm)
    return torch.fft.irfft(input, n, dim, norm)


def _trt_irfft2(input, s=None, dim=(-2, -1), norm=None):
    """``torch.fft.irfft2(input, s, dim, norm)``; while exporting, matrix products of the parts
    ``_trt_complex``/``_trt_view_as_complex`` made ``input`` of."""
    if _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            dims, sizes = _trt_dft_axes(parts[0], s, dim, (-2, -1))
            return _trt_irdft_onnx(parts[0], parts[1], sizes, dims, norm)
    return torch.fft.irfft2(input, s, dim, norm)


def _trt_irfftn(input, s=None, dim=None, norm=None):
    """``torch.fft.irfftn(input, s, dim, norm)``; while exporting, matrix products of the parts
    ``_trt_complex``/``_trt_view_as_complex`` made ``input`` of."""
    if _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            dims, sizes = _trt_dft_axes(parts[0], s, dim, None)
            return _trt_irdft_onnx(parts[0], parts[1], sizes, dims, norm)
    return torch.fft.irfftn(input, s, dim, norm)


def _trt_complex_factor(x):
    """``(real, imaginary)`` of a factor of a spectral product while exporting: the parts a
    complex tensor the helpers made remembers, a real tensor or number with no imaginary part
    (None), a Python complex number's two parts; None for a complex tensor made otherwise."""
    if isinstance(x, torch.Tensor):
        if x.is_complex():
            return _trt_complex_parts(x)
        return x, None
    if isinstance(x, complex):
        return x.real, x.imag
    if isinstance(x, (bool, int, float, torch.SymInt, torch.SymFloat)):  # (a size the exporter traces)
        return x, None
    return None


def _trt_complex_mul(input, other):
    """``input * other``, always the same value; while ``torch.onnx.export`` traces the model and
    a factor is a complex tensor whose parts the helpers remember (a transform taken as
    ``"tracked"``, ``_trt_complex``, ``_trt_view_as_complex``, another such product), the product
    is computed from the parts, ``(a + ib)(c + id) = (ac - bd) + i(ad + bc)`` (a real factor:
    ``ac + i bc``), and is a complex tensor remembering its parts: an inverse real transform (or a
    part) taken of it then uses nothing complex, and the complex tensors leave the graph unused."""
    if not torch.jit.is_scripting() and _trt_onnx_exporting():
        left, right = _trt_complex_factor(input), _trt_complex_factor(other)
        if left is not None and right is not None and (left[1] is not None or right[1] is not None):
            a, b = left
            c, d = right
            if b is None:
                re, im = a * c, a * d
            elif d is None:
                re, im = a * c, b * c
            else:
                re, im = a * c - b * d, a * d + b * c
            if isinstance(re, torch.Tensor) and isinstance(im, torch.Tensor):
                if re.dtype != im.dtype:  # (a zero-dimensional factor promotes apart)
                    common = torch.promote_types(re.dtype, im.dtype)
                    re, im = re.to(common), im.to(common)
                return _trt_complex(re, im)
    return input * other


def _trt_complex_div(input, other):
    """``input / other``, always the same value; while ``torch.onnx.export`` traces the model, a
    complex ``input`` whose parts the helpers remember divided by a real tensor or number (an FFT
    convolution's ``rfft(k, n=size) / size``) is each part divided, a complex tensor remembering
    them; a complex divisor keeps torch's ``/``."""
    if not torch.jit.is_scripting() and _trt_onnx_exporting():
        left, right = _trt_complex_factor(input), _trt_complex_factor(other)
        if left is not None and left[1] is not None and right is not None and right[1] is None:
            re, im = left[0] / right[0], left[1] / right[0]
            if re.dtype != im.dtype:
                common = torch.promote_types(re.dtype, im.dtype)
                re, im = re.to(common), im.to(common)
            return _trt_complex(re, im)
    return input / other


def _trt_complex_shaped(input, method, *args, **kwargs):
    """``input.<method>(*args, **kwargs)``, a method that only moves elements (``reshape``, ``view``,
    ``transpose``, ``permute``, ...), always the same value; while ``torch.onnx.export`` traces the model and
    ``input`` is a complex tensor whose parts the helpers remember, the method is taken of each part and the
    result is a complex tensor remembering them (torchaudio's ``spectrogram``: the STFT of the signal packed to
    2-D, reshaped back to its batch axes, then its magnitude), so nothing complex reaches the graph."""
    if not torch.jit.is_scripting() and isinstance(input, torch.Tensor) and _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            return _trt_complex(getattr(parts[0], method)(*args, **kwargs),
                                getattr(parts[1], method)(*args, **kwargs))
    return getattr(input, method)(*args, **kwargs)


def _trt_complex_shape(input):
    """``input.shape``; while ``torch.onnx.export`` traces the model and ``input`` is a complex tensor whose parts
    the helpers remember, the real part's shape (the same sizes): a size read of the spectrum (torchaudio's
    ``spec_f.shape[-2:]``) then keeps no complex tensor in the graph."""
    if not torch.jit.is_scripting() and isinstance(input, torch.Tensor) and _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            return parts[0].shape
    return input.shape


def _trt_complex_put(input, index, value):
    """``input[index] = value``, then ``input`` (the same tensor, written in place); while ``torch.onnx.export``
    traces the model and ``input`` is a complex tensor whose parts the helpers remember, with a real number
    ``value``, the write is made to copies of the parts (``value`` into the real part, 0 into the imaginary one;
    a mask of the parts' shape as a ``masked_fill``, a Where) and the result is a complex tensor remembering them:
    TimeMixer's ``xf[freq <= top_k_freq.min()] = 0`` before ``irfft(xf)``."""
    if not torch.jit.is_scripting() and isinstance(input, torch.Tensor) and _trt_onnx_exporting() \
            and isinstance(value, (int, float)) and not isinstance(value, bool):
        parts = _trt_complex_parts(input)
        if parts is not None:
            re, im = parts
            if isinstance(index, torch.Tensor) and index.dtype == torch.bool and index.shape == re.shape:
                return _trt_complex(re.masked_fill(index, value), im.masked_fill(index, 0))
            re, im = re.clone(), im.clone()
            re[index] = value
            im[index] = 0
            return _trt_complex(re, im)
    input[index] = value
    return input


def _trt_complex_conj(input, physical=False):
    """``torch.conj(input)`` (``torch.conj_physical`` when ``physical``), always the same value;
    while ``torch.onnx.export`` traces the model and ``input`` is a complex tensor whose parts the
    helpers remember (a transform taken as ``"tracked"``, ``_trt_complex``, a product), the
    conjugate is ``_trt_complex(real, -imag)``: a complex tensor remembering its parts, so the
    product or inverse it reaches uses nothing complex. ``-imag`` is torch's negation of the
    imaginary part (a zero becomes -0., as ``torch.conj`` gives it)."""
    if not torch.jit.is_scripting() and isinstance(input, torch.Tensor) and _trt_onnx_exporting():
        parts = _trt_complex_parts(input)
        if parts is not None:
            return _trt_complex(parts[0], -parts[1])
    return torch.conj_physical(input) if physical else torch.conj(input)


def _trt_shift_onnx(input, dim, inverse):
    """``torch.fft.fftshift(input, dim)`` (``ifftshift`` when ``inverse``) as slices and a
    concatenation per axis: the same permutation of the same elements, with each axis's split
    computed from its traced size."""
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    out = input
    for axis in dims:
        axis = axis % input.dim()
        n = out.shape[axis]
        split = n - n // 2 if not inverse else n // 2  # roll by n // 2 (fftshift) or by -(n // 2)
        head = out.narrow(axis, 0, split)
        tail = out.narrow(axis, split, n - split)
        out = torch.cat((tail, head), axis)
    return out


def _trt_fftshift(input, dim=None):
    """``torch.fft.fftshift(input, dim)``; while exporting, slices and a concatenation."""
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and not input.is_complex():
        return _trt_shift_onnx(input, dim, False)
    return torch.fft.fftshift(input, dim)


def _trt_ifftshift(input, dim=None):
    """``torch.fft.ifftshift(input, dim)``; while exporting, slices and a concatenation."""
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and not input.is_complex():
        return _trt_shift_onnx(input, dim, True)
    return torch.fft.ifftshift(input, dim)


def _trt_stft_window(window, n_fft, win_length, like, compute):
    """The analysis (or synthesis) window as torch uses it: ``window`` (None: ones of
    ``win_length``), zero-padded on both sides to ``n_fft``, in ``compute``."""
    length = n_fft if win_length is None else win_length
    if window is None:
        window = torch.ones(length, dtype=compute, device=like.device)
    else:
        window = window.to(compute)
    if length < n_fft:
        left = (n_fft - length) // 2
        window = torch.nn.functional.pad(window, (left, n_fft - length - left))
    return window


def _trt_stft_onnx(x, part, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided):
    """``part`` of ``torch.stft(x, ..., return_complex=True)`` of the real ``x`` (``(L)`` or
    ``(B, L)``) without a complex operation: the signal padded by ``n_fft // 2`` on each side
    as ``center``/``pad_mode`` say, cut into frames by a gather of computed indices (frame t
    holds samples ``t * hop + j``), multiplied by the window and transformed along the frame by
    the cosine and sine products of :func:`_trt_dft_lines`; the result ``(..., freq, frames)``."""
    dtype = x.dtype if x.is_floating_point() else torch.get_default_dtype()
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    hop = n_fft // 4 if hop_length is None else hop_length
    signal = x.to(compute)
    batched = signal.dim() == 2
    if not batched:
        signal = signal.unsqueeze(0)
    if center:
        pad = n_fft // 2
        if pad_mode == "constant":
            signal = torch.nn.functional.pad(signal, (pad, pad))
        else:  # as torch.stft pads: a (1, B, L) view for the 1-D padding modes
            signal = torch.nn.functional.pad(signal.unsqueeze(0), (pad, pad), pad_mode)[0]  # (no squeeze: an If)
    frames = torch.div(signal.shape[-1] - n_fft, hop, rounding_mode="trunc") + 1  # (non-negative: the floor)
    index = torch.arange(frames, device=signal.device)[:, None] * hop \
        + torch.arange(n_fft, device=signal.device)[None, :]
    cut = signal[:, index]  # (B, frames, n_fft)
    cut = cut * _trt_stft_window(window, n_fft, win_length, signal, compute)
    side = True if onesided is None else onesided
    re, im = _trt_dft_lines(cut, None, [None], [2], "ortho" if normalized else None, False, side, compute)
    re = re.transpose(1, 2)
    im = im.transpose(1, 2)
    if not batched:
        re = re.squeeze(0)
        im = im.squeeze(0)
    return _trt_spectrum_part(part, re, im, dtype)


def _trt_stft(part, input, n_fft, hop_length=None, win_length=None, window=None, center=True,
              pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """``part`` of ``torch.stft(input, ...)``; while exporting, with a real 1-D or 2-D input and
    ``return_complex=True`` (or ``return_complex=False``, the real pairs, taken as ``"view_as_real"``), a gather
    of frames and cosine and sine matrix products."""
    pairs = return_complex is False and part == "view_as_real"
    if _trt_onnx_exporting() and not torch.jit.is_scripting() and isinstance(input, torch.Tensor) \
            and not input.is_complex() and (return_complex is True or pairs) and input.dim() in (1, 2) \
            and (window is None or (isinstance(window, torch.Tensor) and not window.is_complex())):
        return _trt_stft_onnx(input, part, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                              onesided)
    spectrum = torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                          return_complex)
    return spectrum if pairs else _trt_dft_part(spectrum, part)  # (the real pairs are torch's own result)


def _trt_overlap_add(frames, hop, n):
    """``(B, T, n)`` frames added at offsets ``t * hop``: ``(B, (T - 1) * hop + n)``, computed as
    ``ceil(n / hop)`` shifted copies of hop-long pieces (Pad, Reshape, Slice, Add). ``n`` is the
    Python int (a traced size's ``//`` would export as a truncating Div)."""
    pieces = -(-n // hop)
    if pieces * hop != n:
        frames = torch.nn.functional.pad(frames, (0, pieces * hop - n))
    chunks = frames.reshape(frames.shape[0], frames.shape[1], pieces, hop)
    total = None
    for j in range(pieces):
        shifted = torch.nn.functional.pad(chunks[:, :, j, :], (0, 0, j, pieces - 1 - j))
        total = shifted if total is None else total + shifted
    out = total.reshape(frames.shape[0], -1)  # ((T + pieces - 1) * hop)
    return out[:, :out.shape[1] - (pieces * hop - n)]


def _trt_istft_onnx(re, im, n_fft, hop_length, win_length, window, center, normalized, length):
    """``torch.istft`` of the one-sided spectrum ``re + i im`` (``(freq, T)`` or ``(B, freq, T)``)
    without a complex operation: each frame's inverse real DFT (:func:`_trt_irdft_onnx`), times
    the window, added at its hop, divided by the window's squares added the same way, trimmed
    by ``n_fft // 2`` where ``center`` and to ``length``."""
    dtype = re.dtype
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    hop = n_fft // 4 if hop_length is None else hop_length
    batched = re.dim() == 3
    if not batched:
        re = re.unsqueeze(0)
        im = im.unsqueeze(0)
    re = re.to(compute).transpose(1, 2)  # (B, T, freq)
    im = im.to(compute).transpose(1, 2)
    frames = _trt_irdft_onnx(re, im, [n_fft], [2], "ortho" if normalized else None)  # (B, T, n_fft)
    win = _trt_stft_window(window, n_fft, win_length, re, compute)
    signal = _trt_overlap_add(frames * win, hop, n_fft)
    envelope = _trt_overlap_add((win * win).expand(1, frames.shape[1], n_fft), hop, n_fft)
    start = n_fft // 2 if center else 0
    if length is None:
        end = signal.shape[1] - n_fft // 2 if center else signal.shape[1]
    else:  # (a length past the frames: zeros, as torch pads; no comparison of traced sizes)
        signal = torch.nn.functional.pad(signal, (0, length))
        envelope = torch.nn.functional.pad(envelope, (0, length), value=1.0)
        end = start + length
    out = signal[:, start:end] / envelope[:, start:end]
    if not batched:
        out = out.squeeze(0)
    return out if out.dtype == dtype else out.to(dtype)


def _trt_istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
               onesided=None, length=None, return_complex=False):
    """``torch.istft(input, ...)``; while exporting, of a one-sided spectrum whose parts the
    helpers remember (a tracked ``_trt_stft``, ``_trt_complex``, a product of them), the
    inverse DFT of each frame as matrix products and a windowed overlap-add."""
    if _trt_onnx_exporting() and not torch.jit.is_scripting() and not return_complex and onesided is not False \
            and (window is None or (isinstance(window, torch.Tensor) and not window.is_complex())):
        parts = _trt_complex_parts(input)
        # (the bins are not compared with n_fft // 2 + 1: a traced size compared is a constant of the trace;
        # torch.istft refuses another count, the products drop bins past n_fft // 2 or take missing ones as 0)
        if parts is not None and parts[0].dim() in (2, 3):
            return _trt_istft_onnx(parts[0], parts[1], n_fft, hop_length, win_length, window, center, normalized,
                                   length)
    return torch.istft(input, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                       return_complex)


def _trt_dft_abs_argument(z):
    """``z``, always, for a function that reads it only through ``abs``; while exporting, a
    complex ``z`` whose parts the helpers remember is passed as its magnitude instead (a real
    tensor whose ``abs`` is itself), so the function computes from real tensors only."""
    if isinstance(z, torch.Tensor) and z.is_complex() and not torch.jit.is_scripting() and _trt_onnx_exporting():
        parts = _trt_complex_parts(z)
        if parts is not None:
            return torch.sqrt(parts[0] * parts[0] + parts[1] * parts[1])
    return z
