"""Bicubic ``F.interpolate`` exported as two weight matrices, not as a cubic ``Resize`` (TRT727).

Both PyTorch exporters turn ``F.interpolate(x, ..., mode="bicubic")`` into an ONNX ``Resize``
with ``mode="cubic"``, which TensorRT's parser rejects (it resizes nearest and linear only).
Bicubic interpolation is separable and linear in the input: each output row is a fixed
combination of four input rows. So ``_trt_bicubic_onnx`` builds PyTorch's own weights as an
``(out_h, in_h)`` and an ``(out_w, in_w)`` matrix from the input and output sizes (Range,
Floor, Min/Max, Equal, Mul, Add: all parsed by TensorRT, and dynamic when the sizes are) and
computes ``Wh @ x @ Ww^T`` (two MatMuls).

The weights are PyTorch's (``upsample_bicubic2d``): the cubic convolution kernel with
A = -0.75, the source coordinate ``scale * (i + 0.5) - 0.5`` (``scale * i`` with
``align_corners=True``), ``scale`` being ``1 / scale_factor`` when a scale factor is given and
not recomputed and ``in / out`` otherwise, and the four taps clamped to the border. What
differs is only the summation order (rounding), and that a matrix product multiplies every
input element by its weight, zero or not: 0 * inf and 0 * NaN are NaN, so one inf or NaN turns
the whole output plane of its image and channel into NaN (or inf), where PyTorch's four-tap sum changes
only the outputs beside it.

``_trt_interpolate`` has ``F.interpolate``'s signature and is ``F.interpolate`` itself outside
``torch.onnx.export``; only while exporting does a bicubic, non-antialiased call on a 4-D
floating tensor take the weight matrices.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.pooling import _trt_adaptive_avg_pool2d_onnx


def _trt_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                     recompute_scale_factor=None, antialias=False):
    """``F.interpolate``; while exporting to ONNX, bicubic as matrix products TensorRT parses, and
    ``nearest-exact`` (which the TorchScript exporter has no symbolic for) as a Gather per axis; while
    tracing, a scale factor the trace holds as a tensor (computed from a traced size, which
    ``F.interpolate`` refuses) as the same resize computed from it (TRT362)."""
    if (not torch.jit.is_scripting() and size is None and torch.jit.is_tracing() and _trt_traced_scales(scale_factor)
            and isinstance(input, torch.Tensor) and 3 <= input.dim() <= 5 and input.is_floating_point()
            and not antialias):
        resized = _trt_resize_by_traced_scale(input, scale_factor, mode, bool(align_corners),
                                              bool(recompute_scale_factor))
        if resized is not None:
            return resized
    if (not torch.jit.is_scripting() and mode == "nearest-exact" and _trt_onnx_exporting()
            and isinstance(input, torch.Tensor) and 3 <= input.dim() <= 5 and not input.is_complex()
            and align_corners is None and not antialias and (size is None) != (scale_factor is None)):
        return _trt_nearest_exact_onnx(input, size, scale_factor, bool(recompute_scale_factor))
    if (not torch.jit.is_scripting() and (mode == "bicubic" or (antialias and mode == "bilinear"))
            and _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() == 4
            and input.is_floating_point() and (size is None) != (scale_factor is None)):
        return _trt_resize_onnx(input, size, scale_factor, mode, bool(align_corners), bool(recompute_scale_factor),
                                bool(antialias))
    return torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
                                           antialias)


def _trt_resize_onnx(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    """``F.interpolate(input, size or scale_factor, mode=mode, antialias=antialias)`` of a 4-D
    floating tensor as ``Wh @ input @ Ww^T`` (bicubic, or antialiased bilinear/bicubic);
    float16/bfloat16 are computed in float32 and rounded back."""
    dtype = input.dtype
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    x = input if dtype == compute else input.to(compute)
    in_h, in_w = x.shape[-2], x.shape[-1]
    if size is not None:
        out_h, out_w = (size[0], size[1]) if isinstance(size, (tuple, list)) else (size, size)
        scale_h = scale_w = None
    else:
        scale_h, scale_w = (scale_factor[0], scale_factor[1]) if isinstance(scale_factor, (tuple, list)) \
            else (scale_factor, scale_factor)
        out_h, out_w = _trt_scaled_size(in_h, scale_h), _trt_scaled_size(in_w, scale_w)
        if recompute_scale_factor:
            scale_h = scale_w = None  # the coordinates then come from the sizes, as in PyTorch
    if antialias:
        weight_h = _trt_antialias_weights(in_h, out_h, scale_h, align_corners, mode, compute, x.device)
        weight_w = _trt_antialias_weights(in_w, out_w, scale_w, align_corners, mode, compute, x.device)
    else:
        weight_h = _trt_cubic_weights(in_h, out_h, scale_h, align_corners, compute, x.device)
        weight_w = _trt_cubic_weights(in_w, out_w, scale_w, align_corners, compute, x.device)
    out = torch.matmul(torch.matmul(weight_h, x), weight_w.transpose(0, 1))
    return out if out.dtype == dtype else out.to(dtype)


def _trt_nearest_exact_onnx(input, size, scale_factor, recompute_scale_factor):
    """``F.interpolate(input, ..., mode="nearest-exact")`` of a 3-D, 4-D or 5-D tensor: per spatial axis,
    a Gather of the source rows ``min(floor((i + 0.5) * scale), in - 1)``, computed in float32 as
    PyTorch's kernel does (``scale`` is ``1 / scale_factor`` rounded to float32 when a factor is given and
    not recomputed, ``in / out`` in float32 otherwise). A Gather copies the values: bit for bit."""
    count = input.dim() - 2
    if size is not None:
        sizes = list(size) if isinstance(size, (tuple, list)) else [size] * count
        factors = [None] * count
    else:
        factors = list(scale_factor) if isinstance(scale_factor, (tuple, list)) else [scale_factor] * count
    if len(sizes if size is not None else factors) != count:
        return torch.nn.functional.interpolate(input, size, scale_factor, "nearest-exact", None,
                                               recompute_scale_factor)  # torch's error
    out = input
    for axis in range(count):
        in_size = input.shape[axis + 2]
        if size is not None:
            out_size, factor = sizes[axis], None
        else:
            out_size = _trt_floor_scaled(in_size, float(factors[axis]))
            factor = None if recompute_scale_factor else float(factors[axis])
        positions = torch.arange(out_size, device=input.device).to(torch.float32)
        if factor is not None and factor > 0:
            step = torch.full((1,), 1.0 / factor, dtype=torch.float32, device=input.device)
        else:
            n_in = torch.ones_like(torch.arange(in_size, device=input.device), dtype=torch.float32).sum(0, keepdim=True)
            n_out = torch.ones_like(positions).sum(0, keepdim=True)
            step = n_in / n_out
        source = torch.floor((positions + 0.5) * step).to(torch.int64)
        last = torch.ones_like(torch.arange(in_size, device=input.device)).sum(0, keepdim=True) - 1
        out = out.index_select(axis + 2, torch.minimum(source, last))
    return out


def _trt_traced_scales(scale_factor) -> bool:
    """A scale factor the trace holds as a tensor, alone or in a sequence: ``96 / max(h, w)`` of traced
    sizes, which ``F.interpolate``'s kernels refuse (they take Python floats)."""
    if isinstance(scale_factor, torch.Tensor):
        return True
    return isinstance(scale_factor, (tuple, list)) and any(isinstance(f, torch.Tensor) for f in scale_factor)


def _trt_resize_by_traced_scale(input, scale_factor, mode, align_corners, recompute_scale_factor):
    """``F.interpolate(input, scale_factor=scale_factor, mode=mode)`` where the factors are traced
    tensors, as PyTorch computes it: each output size ``floor(size * factor)`` in float32 (as torch's own
    traced ``F.interpolate`` does), nearest and (bi/tri)linear as two Gathers per axis at PyTorch's source
    coordinates (``1 / factor`` per output step unless recomputed or ``align_corners``), bicubic as
    TRT727's weight matrices, area as exact adaptive-pooling bins. None for what it does not take."""
    count = input.dim() - 2
    factors = list(scale_factor) if isinstance(scale_factor, (tuple, list)) else [scale_factor] * count
    if len(factors) != count:
        return None
    if mode == "bicubic":
        return _trt_resize_onnx(input, None, tuple(factors), mode, align_corners, recompute_scale_factor,
                                False) if count == 2 else None
    sizes = [_trt_scaled_size(input.shape[axis + 2], factor) for axis, factor in enumerate(factors)]
    if mode == "area":
        if count != 2:
            return None
        return _trt_adaptive_avg_pool2d_onnx(input, tuple(sizes))
    linear = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if mode != "nearest" and linear != count:
        return None
    compute = torch.float64 if input.dtype == torch.float64 else torch.float32
    out = input
    for axis in range(count):
        factor = None if recompute_scale_factor else factors[axis]
        out = _trt_axis_resized(out, axis + 2, sizes[axis], factor, mode != "nearest", align_corners, compute)
    return out


def _trt_axis_resized(x, dim, out_size, factor, linear, align_corners, compute):
    """``x`` resized along ``dim`` to ``out_size`` as PyTorch's nearest or linear kernel does: the
    source of output ``i`` is ``i / factor`` (``(i + 0.5) / factor - 0.5``, not below 0, for linear;
    ``in / out`` replaces ``1 / factor`` when there is no factor; ``i * (in - 1) / (out - 1)`` with
    ``align_corners``), nearest taking its floor, linear its two neighbours weighted by the distance."""
    in_size = x.shape[dim]
    rows = torch.arange(out_size, device=x.device).to(compute)
    n_in = torch.ones_like(torch.arange(in_size, device=x.device), dtype=compute).sum(0, keepdim=True)
    n_out = torch.ones_like(rows).sum(0, keepdim=True)
    if linear and align_corners:
        step = torch.where(n_out > 1, (n_in - 1) / torch.clamp(n_out - 1, min=1), torch.zeros_like(n_out))
        real = rows * step
    else:
        if factor is None:
            step = n_in / n_out
        elif isinstance(factor, torch.Tensor):
            step = torch.reciprocal(factor.to(compute)).reshape(1)
        else:
            step = torch.full((1,), 1.0 / factor, dtype=compute, device=x.device)
        real = torch.clamp(step * (rows + 0.5) - 0.5, min=0) if linear else rows * step
    last = (n_in - 1).to(torch.int64)
    low = torch.minimum(torch.floor(real).to(torch.int64), last)
    if not linear:
        return x.index_select(dim, low)
    high = torch.minimum(low + 1, last)
    weight = torch.clamp(real - low.to(compute), 0, 1)
    shape = [1] * x.dim()
    shape[dim] = -1
    weight = weight.to(x.dtype).reshape(shape)
    return x.index_select(dim, low) * (1 - weight) + x.index_select(dim, high) * weight


def _trt_floor_scaled(size, factor):
    """``floor(size * factor)`` as PyTorch computes an output size (in double): exactly, in integers,
    where the factor is a ratio ``p / 2^k`` with a small ``p`` (2, 1.5, 0.5, 0.25...); in float32
    otherwise (:func:`_trt_scaled_size`)."""
    numerator, denominator = factor.as_integer_ratio()
    if 0 <= numerator < 2 ** 40 and not isinstance(size, int) and isinstance(size, torch.Tensor):
        return torch.div(size.to(torch.int64) * numerator, denominator, rounding_mode="floor")
    if isinstance(size, int):
        return int(size * factor)
    return _trt_scaled_size(size, factor)


def _trt_bicubic_onnx(input, size, scale_factor, align_corners, recompute_scale_factor):
    """``F.interpolate(input, ..., mode="bicubic")`` (no antialiasing) as two matrix products."""
    return _trt_resize_onnx(input, size, scale_factor, "bicubic", align_corners, recompute_scale_factor, False)


def _trt_scaled_size(size, factor):
    """``floor(size * factor)``: PyTorch's output size for a scale factor (a traced size stays
    traced; the TorchScript exporter's own ``F.interpolate`` computes it in float32 too)."""
    if isinstance(size, torch.Tensor):
        return torch.floor(size.to(torch.float32) * factor).to(torch.int64)
    return int(size * factor) if isinstance(size, int) else torch.sym_int(size * factor)


def _trt_cubic_weights(in_size, out_size, scale, align_corners, dtype, device):
    """The ``(out_size, in_size)`` matrix of PyTorch's bicubic weights along one axis.

    ``scale`` is the user's scale factor (None: from the sizes). Sizes may be ints, symbolic
    ints (dynamo exporter) or traced 0-d tensors (TorchScript exporter).
    """
    rows = torch.arange(out_size, device=device).to(dtype)
    cols = torch.arange(in_size, device=device).to(dtype)
    # The sizes as 1-element tensors counted from the ranges, not sliced from them (``rows[-1:]``): a
    # slice's length is symbolic for the dynamo exporter, which then cannot prove it broadcasts
    # against ``rows`` when the output size is computed (``h // 4``), and the export fails.
    n_out = torch.ones_like(rows).sum(0, keepdim=True)
    n_in = torch.ones_like(cols).sum(0, keepdim=True)
    if align_corners:
        # (in - 1) / (out - 1), and 0 for a single output (its coordinate is 0 either way).
        real = rows * ((n_in - 1) / torch.clamp(n_out - 1, min=1))
    else:
        if isinstance(scale, torch.Tensor):  # a traced factor (TRT362): positive, or torch would refuse its size
            step = torch.reciprocal(scale.to(dtype)).reshape(1)
        elif scale is not None and scale > 0:
            step = torch.full((1,), 1.0 / scale, dtype=dtype, device=device)
        else:
            step = n_in / n_out
        real = step * (rows + 0.5) - 0.5
    index = torch.floor(real)
    t = torch.clamp(real - index, 0, 1)
    a = -0.75
    # PyTorch's cubic convolution coefficients for the taps at index - 1, index, index + 1, index + 2.
    s = t + 1
    c0 = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    c1 = ((a + 2) * t - (a + 3)) * t * t + 1
    u = 1 - t
    c2 = ((a + 2) * u - (a + 3)) * u * u + 1
    s = u + 1
    c3 = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    last = n_in - 1
    weights = None
    for offset, coefficient in ((-1, c0), (0, c1), (1, c2), (2, c3)):
        # Taps past the border read the border element, as in PyTorch: their weights add up there.
        tap = torch.minimum(torch.clamp(index + offset, min=0), last)
        term = (tap[:, None] == cols[None, :]).to(dtype) * coefficient[:, None]
        weights = term if weights is None else weights + term
    return weights


def _trt_antialias_weights(in_size, out_size, scale, align_corners, mode, dtype, device):
    """The ``(out_size, in_size)`` matrix of PyTorch's antialiased bilinear or bicubic weights
    along one axis (``_upsample_bilinear2d_aa`` / ``_upsample_bicubic2d_aa``).

    PyTorch follows Pillow: an output pixel's centre in the input is ``scale * (i + 0.5)``;
    when shrinking (``scale >= 1``) the filter is stretched by ``scale`` (its support and the
    taps it reaches grow with it); the taps are the input pixels in
    ``[trunc(centre - support + 0.5), trunc(centre + support + 0.5))`` cut to the input (at most
    ``2 * ceil(support) + 1`` of them), never clamped to the border, and their weights are
    divided by their sum. Bilinear's filter is the triangle, bicubic's the cubic with A = -0.5.
    """
    rows = torch.arange(out_size, device=device).to(dtype)
    cols = torch.arange(in_size, device=device).to(dtype)
    n_out = torch.ones_like(rows).sum(0, keepdim=True)  # see _trt_cubic_weights: counted, not sliced
    n_in = torch.ones_like(cols).sum(0, keepdim=True)
    if align_corners:
        # PyTorch's area scale: (in - 1) / (out - 1), and 0 for a single output.
        ratio = torch.where(n_out > 1, (n_in - 1) / torch.clamp(n_out - 1, min=1), torch.zeros_like(n_out))
    elif scale is not None and scale > 0:
        ratio = torch.full((1,), 1.0 / scale, dtype=dtype, device=device)
    else:
        ratio = n_in / n_out
    half = 2.0 if mode == "bicubic" else 1.0  # half the filter's width at scale 1
    shrinking = ratio >= 1
    support = torch.where(shrinking, half * ratio, torch.full_like(ratio, half))
    inverse = torch.where(shrinking, 1 / ratio, torch.ones_like(ratio))
    centre = ratio * (rows + 0.5)
    # trunc and floor agree here: a negative start is raised to 0 either way.
    start = torch.clamp(torch.floor(centre - support + 0.5), min=0)
    stop = torch.minimum(torch.floor(centre + support + 0.5), n_in)
    stop = torch.minimum(stop, start + (torch.ceil(support) * 2 + 1))
    inside = (cols[None, :] >= start[:, None]) & (cols[None, :] < stop[:, None])
    x = torch.abs((cols[None, :] - centre[:, None] + 0.5) * inverse)
    if mode == "bicubic":
        a = -0.5
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = (((x - 5) * x + 8) * x - 4) * a
        weights = torch.where(x < 1, near, torch.where(x < 2, far, torch.zeros_like(x)))
    else:
        weights = torch.clamp(1 - x, min=0)
    weights = weights * inside.to(dtype)
    total = weights.sum(1, keepdim=True)
    # PyTorch leaves a row whose weights sum to 0 as it is.
    return torch.where(total != 0, weights / torch.where(total != 0, total, torch.ones_like(total)), weights)


class _TrtUpsample(torch.nn.Upsample):
    """``nn.Upsample`` whose bicubic mode exports as weight matrices and whose nearest-exact mode as Gathers
    (same arguments, no parameters, the same repr)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            # TorchScript compiles only this branch: nn.Upsample's own call.
            return torch.nn.functional.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                                   recompute_scale_factor=self.recompute_scale_factor)
        return _trt_interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                recompute_scale_factor=self.recompute_scale_factor)

    def _get_name(self):
        # nn.Upsample's own name in a repr; a project's subclass of it (derived from this one) keeps its own
        return "Upsample" if type(self).__name__.startswith("_Trt") else type(self).__name__


def _trt_tv_resize_eager(transform, img):
    """torchvision's ``Resize`` ``transform`` on ``img``; while exporting to ONNX, a 3-D or 4-D floating image
    resized to a fixed ``(height, width)`` with bilinear or bicubic interpolation is ``_trt_interpolate``'s call
    that torchvision's tensor path makes (``align_corners=False``, its antialias flag, ``None`` and ``"warn"`` off),
    so an antialiased resize becomes weight matrices. Anything else (PIL images, integer images, a size of one
    number, ``max_size``, nearest modes) is the transform's own call."""
    size = getattr(transform, "size", None)
    mode = getattr(getattr(transform, "interpolation", None), "value", getattr(transform, "interpolation", None))
    if not (_trt_onnx_exporting() and isinstance(img, torch.Tensor) and img.dim() in (3, 4)
            and img.is_floating_point() and isinstance(size, (tuple, list)) and len(size) == 2
            and all(type(s) is int for s in size) and getattr(transform, "max_size", None) is None
            and mode in ("bilinear", "bicubic")):
        return transform(img)
    batched = img if img.dim() == 4 else img.unsqueeze(0)
    # True only: torchvision 0.15-0.16's default "warn" (and None) kept tensors unantialiased.
    out = _trt_interpolate(batched, size=[size[0], size[1]], mode=mode, align_corners=False,
                           antialias=getattr(transform, "antialias", True) is True)
    return out if img.dim() == 4 else out.squeeze(0)


class _TrtResize(torch.nn.Module):
    """A torchvision ``Resize`` held as ``resize`` (no parameters, so the state dict is the same): its own
    call, except while exporting to ONNX, where a floating image resized to a fixed size is interpolated by
    ``_trt_interpolate`` (antialiased weights as matrices, which TensorRT parses)."""

    def __init__(self, resize):
        super().__init__()
        self.resize = resize

    def forward(self, img):
        if torch.jit.is_scripting():
            # TorchScript compiles only this branch: the transform's own (scriptable) call.
            return self.resize(img)
        return _trt_tv_resize_eager(self.resize, img)
