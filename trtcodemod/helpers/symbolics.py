"""Torch functions the TorchScript exporter has no ONNX symbolic for, composed while exporting (TRT337).

``torch.onnx.export(dynamo=False, opset_version=17)`` stops with ``UnsupportedOperatorError`` on
each of these (torch 2.13). Each ``_trt_<op>`` is the torch function itself everywhere except inside
``torch.onnx.export``, where a real tensor takes a composition of operators that export and that
TensorRT parses (Slice, Gather, Where, comparisons, Floor/Ceil, ReduceSum/ReduceProd, Mul...).
Which compositions give the torch function's values bit for bit, and which only up to rounding, is
said per function (and measured in tests/transforms/test_missing_symbolic.py). An argument form a
composition does not take (a non-tensor input, a complex one, an argument torch would refuse) keeps
the torch function, and with it torch's result or error.

ONNX Runtime's Where gives 0.0 for a -0.0 it takes from its first branch (the second keeps it), so a
value that may be -0.0 is passed as the second branch, or a sign is applied as a product with +-1. Its
graph optimizer also rewrites a Where whose condition is a Not (``x != y`` exports as Not(Equal)) into
one with the branches swapped, so such a Where's condition is written without a Not.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.splitting import _trt_unflatten_view


def _trt_composable(input) -> bool:
    """A real (not complex) tensor while exporting: what the compositions take."""
    return isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting()


def _trt_foreign(input, name: str) -> bool:
    """A receiver of the method form that is not a tensor but has its own method ``name``."""
    return not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, name)


@torch.jit.unused
def _trt_float_of(input, other):
    """Both operands as tensors of their promoted type, integers and bools promoted to the default
    float type (the type ``copysign``, ``xlogy``, ``hypot`` and ``logaddexp`` compute in)."""
    dtype = torch.result_type(input, other)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    device = input.device if isinstance(input, torch.Tensor) else other.device
    first = input.to(dtype) if isinstance(input, torch.Tensor) else torch.tensor(input, dtype=dtype, device=device)
    second = other.to(dtype) if isinstance(other, torch.Tensor) else torch.tensor(other, dtype=dtype, device=device)
    return first, second


def _trt_negative(x):
    """Where ``x``'s sign is negative: ``x < 0``, and for a zero ``1 / x < 0`` (-0.0); a NaN reads as
    positive (the graph cannot read its sign bit)."""
    if not x.is_floating_point():
        return x < 0
    return (x < 0) | ((x == 0) & (torch.reciprocal(x) < 0))


def _trt_widened(x):
    """A half or bfloat16 tensor in float32, which torch computes their elementwise functions in."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _trt_log1p(x):
    """``log(1 + x)`` without ``log1p`` (not in ONNX), accurate for small ``x``: ``log(u) * x / (u - 1)``
    with ``u = 1 + x`` corrects the rounding of ``u``."""
    u = 1 + x
    return torch.where(u == 1, x, torch.log(u) * x / (u - 1))


@torch.jit.unused
def _trt_slice_on(x, dim: int, start, stop):
    """``x`` sliced ``start:stop`` on axis ``dim`` (a Slice node; dynamic sizes stay dynamic)."""
    index = [slice(None)] * x.dim()
    index[dim] = slice(start, stop)
    return x[tuple(index)]


# --- safe: the composition computes the function's values bit for bit -------------------------


def _trt_take_along_dim(input, indices, dim: int | None = None):
    """``torch.take_along_dim``; while exporting, ``gather`` on the broadcast operands (GatherElements)."""
    if torch.jit.is_scripting():
        return torch.take_along_dim(input, indices, dim)
    if _trt_foreign(input, "take_along_dim"):
        return input.take_along_dim(indices, dim)
    if (_trt_composable(input) and isinstance(indices, torch.Tensor) and indices.dtype == torch.int64
            and (dim is None or (input.dim() == indices.dim() and -input.dim() <= dim < max(input.dim(), 1)))):
        return _trt_take_along_dim_onnx(input, indices, dim)
    return torch.take_along_dim(input, indices, dim)


@torch.jit.unused
def _trt_take_along_dim_onnx(input, indices, dim):
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() == 0:
        return input.gather(0, indices)
    axis = dim % input.dim()
    # Each operand broadcast to the other's sizes on every axis but ``axis``: a zero of shape 1 on
    # ``axis`` (a sum of zeros, so an empty axis is no problem) added to the indices, and a Where that
    # picks the input itself (a sum would turn -0.0 into 0.0).
    input_shape = torch.zeros_like(input, dtype=torch.int64).sum(axis, keepdim=True)
    index_shape = torch.ones_like(indices, dtype=input.dtype).sum(axis, keepdim=True) > 0
    wide_indices = indices + input_shape
    # The input times ones (a -0.0, an infinity and a NaN stay what they are); bool: a logical and.
    wide_input = input & index_shape if input.dtype == torch.bool else input * index_shape.to(input.dtype)
    return wide_input.gather(axis, wide_indices)


def _trt_diff(input, n: int = 1, dim: int = -1, prepend: torch.Tensor | None = None,
              append: torch.Tensor | None = None):
    """``torch.diff``; while exporting, ``n`` differences of two slices (``logical_xor`` for bool)."""
    if torch.jit.is_scripting():
        return torch.diff(input, n, dim, prepend, append)
    if _trt_foreign(input, "diff"):  # the arguments given (pandas' diff takes two)
        if prepend is None and append is None:
            return input.diff(n) if dim == -1 else input.diff(n, dim)
        return input.diff(n, dim, prepend, append)
    if (_trt_composable(input) and input.dim() > 0 and -input.dim() <= dim < input.dim() and n >= 0
            and all(extra is None or (isinstance(extra, torch.Tensor) and extra.dim() == input.dim())
                    for extra in (prepend, append))):
        return _trt_diff_onnx(input, n, dim % input.dim(), prepend, append)
    return torch.diff(input, n, dim, prepend, append)


@torch.jit.unused
def _trt_diff_onnx(input, n, axis, prepend, append):
    parts = [p for p in (prepend, input, append) if p is not None]
    x = torch.cat(parts, axis) if len(parts) > 1 else input
    if n == 0:
        return x.clone()
    for _ in range(n):  # slicing an axis shorter than n leaves it empty, as torch's clamp of n does
        later, earlier = _trt_slice_on(x, axis, 1, None), _trt_slice_on(x, axis, None, -1)
        x = torch.logical_xor(later, earlier) if x.dtype == torch.bool else later - earlier
    return x


def _trt_rot90(input, k: int = 1, dims: list[int] | None = None):
    """``torch.rot90`` (``dims`` by default ``[0, 1]``); while exporting, the same flips and transpose
    torch takes."""
    if dims is None:
        dims = [0, 1]
    if torch.jit.is_scripting():
        return torch.rot90(input, k, dims)
    if _trt_foreign(input, "rot90"):
        return input.rot90(k, dims)
    if _trt_composable(input) and len(dims) == 2 and input.dim() >= 2:
        first, second = dims[0] % input.dim(), dims[1] % input.dim()
        if first != second and -input.dim() <= dims[0] < input.dim() and -input.dim() <= dims[1] < input.dim():
            turns = k % 4
            if turns == 1:
                return input.flip(second).transpose(first, second)
            if turns == 2:
                return input.flip(first, second)
            if turns == 3:
                return input.flip(first).transpose(first, second)
            return input.clone()
    return torch.rot90(input, k, dims)


def _trt_count_nonzero(input, dim: int | None = None):
    """``torch.count_nonzero``; while exporting, the sum of ``input != 0`` (int64)."""
    if torch.jit.is_scripting():
        return torch.count_nonzero(input, dim)
    if _trt_foreign(input, "count_nonzero"):
        return input.count_nonzero(dim)
    if _trt_composable(input):
        nonzero = input != 0
        return nonzero.sum() if dim is None else nonzero.sum(dim)
    return torch.count_nonzero(input, dim)


def _trt_nansum(input, dim=None, keepdim=False, dtype=None):
    # type: (Tensor, Optional[BroadcastingList1[int]], bool, Optional[torch.dtype]) -> Tensor
    """``torch.nansum``; while exporting, the sum with each NaN replaced by 0."""
    if torch.jit.is_scripting():
        return torch.nansum(input, dim, keepdim, dtype=dtype)
    if _trt_foreign(input, "nansum"):
        return input.nansum(dim, keepdim, dtype=dtype)
    if _trt_composable(input) and input.dtype != torch.bool:
        return _trt_nansum_onnx(input, dim, keepdim, dtype)
    return torch.nansum(input, dim, keepdim, dtype=dtype)


@torch.jit.unused
def _trt_nansum_onnx(input, dim, keepdim, dtype):
    kept = torch.where(torch.isnan(input), 0, input) if input.is_floating_point() else input
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        total = kept.sum(dtype=dtype)
        return total.reshape([1] * input.dim()) if keepdim else total
    return kept.sum(dim, keepdim, dtype=dtype)


def _trt_nanmean(input, dim=None, keepdim=False, dtype=None):
    # type: (Tensor, Optional[BroadcastingList1[int]], bool, Optional[torch.dtype]) -> Tensor
    """``torch.nanmean``; while exporting, the NaN-free sum over the count of numbers, as torch divides."""
    if torch.jit.is_scripting():
        return torch.nanmean(input, dim, keepdim, dtype=dtype)
    if _trt_foreign(input, "nanmean"):
        return input.nanmean(dim, keepdim, dtype=dtype)
    if _trt_composable(input) and input.is_floating_point():
        numbers = torch.logical_not(torch.isnan(input))
        if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
            count = numbers.sum()
            count = count.reshape([1] * input.dim()) if keepdim else count
        else:
            count = numbers.sum(dim, keepdim)
        return _trt_nansum_onnx(input, dim, keepdim, dtype).div(count)
    return torch.nanmean(input, dim, keepdim, dtype=dtype)


def _trt_trunc(input):
    """``torch.trunc``; while exporting, ``floor`` of the numbers at or above 0 and ``ceil`` of the others."""
    if torch.jit.is_scripting():
        return torch.trunc(input)
    if _trt_foreign(input, "trunc"):
        return input.trunc()
    if _trt_composable(input) and input.dtype != torch.bool:
        if not input.is_floating_point():
            return input.clone()
        one = torch.ones((), dtype=input.dtype, device=input.device)
        magnitude = torch.floor(input.abs()) * torch.where(_trt_negative(input), -one, one)
        return torch.where(torch.isnan(input), input, magnitude)
    return torch.trunc(input)


def _trt_ravel(input):
    """``torch.ravel``; while exporting, ``contiguous().view(-1)``: what torch's ``ravel`` is made of
    (a view where the tensor is contiguous, a copy otherwise), which the exporter writes as Reshape."""
    if torch.jit.is_scripting():
        return torch.ravel(input)
    if _trt_foreign(input, "ravel"):
        return input.ravel()
    if isinstance(input, torch.Tensor) and _trt_onnx_exporting():
        return input.contiguous().view(-1)
    return torch.ravel(input)


def _trt_heaviside(input, values):
    """``torch.heaviside``; while exporting, ``values`` where the input is 0, else ``input > 0``."""
    if torch.jit.is_scripting():
        return torch.heaviside(input, values)
    if _trt_foreign(input, "heaviside"):
        return input.heaviside(values)
    if (_trt_composable(input) and isinstance(values, torch.Tensor) and values.dtype == input.dtype
            and input.dtype != torch.bool):
        # Not `input != 0`: ONNX Runtime's optimizer swaps the branches of a Where on a Not, and a -0.0 in
        # `values` must stay in the second branch (see the module's note).
        nonzero = (input < 0) | (input > 0) | torch.isnan(input) if input.is_floating_point() else (input < 0) | (input > 0)
        return torch.where(nonzero, (input > 0).to(input.dtype), values)
    return torch.heaviside(input, values)


def _trt_isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``torch.isclose``; while exporting, torch's own formula, each step rounded to the input's type."""
    if torch.jit.is_scripting():
        return torch.isclose(input, other, rtol, atol, equal_nan)
    if _trt_foreign(input, "isclose"):
        return input.isclose(other, rtol, atol, equal_nan)
    if (_trt_composable(input) and isinstance(other, torch.Tensor) and other.dtype == input.dtype
            and input.dtype != torch.bool and rtol >= 0 and atol >= 0):
        return _trt_isclose_onnx(input, other, rtol, atol, equal_nan)
    return torch.isclose(input, other, rtol, atol, equal_nan)


@torch.jit.unused
def _trt_isclose_onnx(input, other, rtol, atol, equal_nan):
    close = input == other
    if equal_nan and input.is_floating_point():
        close = close | (torch.isnan(input) & torch.isnan(other))
    if rtol == 0 and atol == 0:
        return close
    if not input.is_floating_point():
        input, other = input.to(torch.get_default_dtype()), other.to(torch.get_default_dtype())
    dtype = input.dtype
    # torch computes a half or bfloat16 step in float and rounds its result: so does the graph.
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    allowed = ((other.to(wide) * rtol).to(dtype).abs().to(wide) + atol).to(dtype)
    actual = (input.to(wide) - other.to(wide)).to(dtype).abs()
    return close | ((actual < float("inf")) & (actual <= allowed))


def _trt_kron(input, other):
    """``torch.kron``; while exporting, the product of the operands on interleaved axes, as torch."""
    if torch.jit.is_scripting():
        return torch.kron(input, other)
    if _trt_foreign(input, "kron"):
        return input.kron(other)
    if _trt_composable(input) and isinstance(other, torch.Tensor) and not other.is_complex():
        rank = max(input.dim(), other.dim())
        first = input.reshape([1] * (rank - input.dim()) + list(input.shape)) if input.dim() < rank else input
        second = other.reshape([1] * (rank - other.dim()) + list(other.shape)) if other.dim() < rank else other
        for axis in range(rank):
            first, second = first.unsqueeze(2 * axis + 1), second.unsqueeze(2 * axis)
        product = first * second
        for axis in range(rank):
            product = product.flatten(axis, axis + 1)
        return product
    return torch.kron(input, other)


def _trt_channel_shuffle(input, groups: int):
    """``F.channel_shuffle``; while exporting, the channels split into ``groups`` and transposed."""
    if torch.jit.is_scripting():
        return torch.nn.functional.channel_shuffle(input, groups)
    if _trt_composable(input) and input.dim() >= 3 and groups > 0:
        # `view` with the other sizes read from the input, not `unflatten`, whose result the TorchScript
        # exporter types with the example's sizes (every size read from it later would be baked in)
        return _trt_unflatten_view(input, 1, (groups, -1)).transpose(1, 2).flatten(1, 2)
    return torch.nn.functional.channel_shuffle(input, groups)


class _TrtChannelShuffle(torch.nn.ChannelShuffle):
    """``nn.ChannelShuffle`` whose forward is :func:`_trt_channel_shuffle` (same state, same repr)."""

    def forward(self, input):
        return _trt_channel_shuffle(input, self.groups)

    def _get_name(self):
        return "ChannelShuffle"


def _trt_rms_norm(input, normalized_shape: list[int], weight: torch.Tensor | None = None,
                  eps: float | None = None):
    """``F.rms_norm`` (``torch.rms_norm``); while exporting, ``x * rsqrt(mean(x * x) + eps) * weight`` over
    the last ``len(normalized_shape)`` axes, computed in float32 for float16 and bfloat16 input and cast back
    once, as torch's kernel does (``eps`` by default the machine epsilon of that computing type)."""
    if torch.jit.is_scripting():
        return torch.nn.functional.rms_norm(input, normalized_shape, weight, eps)
    if _trt_composable(input) and input.is_floating_point() and _trt_rms_norm_takes(input, normalized_shape, weight):
        return _trt_rms_norm_onnx(input, len(normalized_shape), weight, eps)
    if not hasattr(torch.nn.functional, "rms_norm") and _trt_rms_norm_takes(input, normalized_shape, weight):
        # torch before 2.4 has no rms_norm: where the call was a fallback's (``try: from torch...
        # import rms_norm``), the same formula
        return _trt_rms_norm_onnx(input, len(normalized_shape), weight, eps)
    return torch.nn.functional.rms_norm(input, normalized_shape, weight, eps)


@torch.jit.unused
def _trt_rms_norm_takes(input, normalized_shape, weight) -> bool:
    """A real floating tensor with at least ``len(normalized_shape)`` axes, and a floating weight of that
    many axes or none (anything else keeps torch's function, and its error). The sizes themselves are not
    compared: while tracing they are traced values, and reading them would bake them in (a weight of the
    wrong sizes still fails to broadcast)."""
    if not (isinstance(input, torch.Tensor) and input.is_floating_point() and not input.is_complex()):
        return False
    count = len(normalized_shape)
    if not 0 < count <= input.dim():
        return False
    return weight is None or (isinstance(weight, torch.Tensor) and weight.is_floating_point()
                              and weight.dim() == count)


@torch.jit.unused
def _trt_rms_norm_onnx(input, count, weight, eps):
    x = _trt_widened(input)
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    axes = list(range(input.dim() - count, input.dim()))
    out = x * torch.rsqrt((x * x).mean(axes, keepdim=True) + eps)
    if weight is not None:
        out = out * weight.to(x.dtype)
    return out.to(input.dtype)


class _TrtRMSNorm(getattr(torch.nn, "RMSNorm", torch.nn.Module)):
    """``nn.RMSNorm`` whose forward is :func:`_trt_rms_norm` (same state, same repr)."""

    def forward(self, x):
        return _trt_rms_norm(x, list(self.normalized_shape), self.weight, self.eps)

    def _get_name(self):
        return "RMSNorm"


def _trt_bilinear(input, input2, weight, bias=None):
    """``F.bilinear``; while exporting, ``x1 W x2`` as two broadcast MatMuls per output feature
    (``(x1[..., None, None, :] @ W) @ x2[..., None, :, None]``), plus the bias. Operands torch would refuse
    (other dtypes, shapes that do not fit the weight) keep torch's function and its error."""
    if torch.jit.is_scripting():
        return torch.nn.functional.bilinear(input, input2, weight, bias)
    if (_trt_composable(input) and input.is_floating_point() and isinstance(input2, torch.Tensor)
            and isinstance(weight, torch.Tensor) and weight.dim() == 3 and input.dim() >= 1
            and input2.dtype == input.dtype == weight.dtype and input2.dim() == input.dim()
            and list(input.shape[:-1]) == list(input2.shape[:-1])
            and int(input.shape[-1]) == int(weight.shape[1]) and int(input2.shape[-1]) == int(weight.shape[2])
            and (bias is None or (isinstance(bias, torch.Tensor) and bias.dtype == input.dtype
                                  and list(bias.shape) == [int(weight.shape[0])]))):
        left = input.unsqueeze(-2).unsqueeze(-2) @ weight
        out = (left @ input2.unsqueeze(-2).unsqueeze(-1)).squeeze(-1).squeeze(-1)
        return out if bias is None else out + bias
    return torch.nn.functional.bilinear(input, input2, weight, bias)


class _TrtBilinear(torch.nn.Bilinear):
    """``nn.Bilinear`` whose forward is :func:`_trt_bilinear` (same state, same repr)."""

    def forward(self, input1, input2):
        return _trt_bilinear(input1, input2, self.weight, self.bias)

    def _get_name(self):
        return "Bilinear"


def _trt_renorm(input, p: float, dim: int, maxnorm: float):
    """``torch.renorm``; while exporting, each slice along ``dim`` scaled by ``maxnorm / (norm + 1e-7)`` where its
    ``p``-norm (over the other axes, in float32 for half input) exceeds ``maxnorm``, as torch's kernel scales it.
    A ``p`` that is not positive, or what torch refuses (fewer than two axes, an integer type, an axis out of
    range, a negative bound), keeps torch's function and its error."""
    if torch.jit.is_scripting():
        return torch.renorm(input, p, dim, maxnorm)
    if _trt_composable(input) and input.is_floating_point() and input.dim() >= 2 and p > 0 and maxnorm >= 0 \
            and -input.dim() <= dim < input.dim():
        return _trt_renorm_onnx(input, p, dim, maxnorm)
    return torch.renorm(input, p, dim, maxnorm)


@torch.jit.unused
def _trt_renorm_onnx(input, p, dim, maxnorm):
    x = _trt_widened(input)
    axis = dim % input.dim()
    axes = [d for d in range(input.dim()) if d != axis]
    if p == float("inf"):
        norm = x.abs().amax(axes, keepdim=True)
    elif p == 2:
        norm = (x * x).sum(axes, keepdim=True).sqrt()
    elif p == 1:
        norm = x.abs().sum(axes, keepdim=True)
    else:
        norm = x.abs().pow(p).sum(axes, keepdim=True).pow(1.0 / p)
    factor = torch.where(norm > maxnorm, maxnorm / (norm + 1e-7), torch.ones_like(norm))
    return input * factor.to(input.dtype)


def _trt_xlogy(input, other):
    """``torch.xlogy``; while exporting, NaN where ``other`` is NaN, else 0 where ``input`` is 0, else
    ``input * log(other)``."""
    if torch.jit.is_scripting():
        return torch.xlogy(input, other)
    if _trt_foreign(input, "xlogy"):
        return input.xlogy(other)
    if ((isinstance(input, torch.Tensor) or isinstance(other, torch.Tensor))
            and _trt_composable(input if isinstance(input, torch.Tensor) else other)
            and not (isinstance(input, torch.Tensor) and input.is_complex())
            and not (isinstance(other, torch.Tensor) and other.is_complex())):
        x, y = _trt_float_of(input, other)
        dtype = x.dtype
        x, y = _trt_widened(x), _trt_widened(y)
        product = torch.where(x == 0, torch.zeros_like(x), x * torch.log(y))
        return torch.where(torch.isnan(y), y, product).to(dtype)
    return torch.xlogy(input, other)


def _trt_sinc(input):
    """``torch.sinc``; while exporting, 1 at 0 and ``sin(pi x) / (pi x)`` elsewhere."""
    if torch.jit.is_scripting():
        return torch.sinc(input)
    if _trt_foreign(input, "sinc"):
        return input.sinc()
    if _trt_composable(input):
        x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
        wide = _trt_widened(x)  # torch computes a half or bfloat16 sinc in float
        product = wide * 3.141592653589793
        return torch.where(wide == 0, torch.ones_like(wide), torch.sin(product) / product).to(x.dtype)
    return torch.sinc(input)


# --- unsafe: the composition holds up to rounding (or the sign of a NaN) ----------------------


def _trt_signbit(input):
    """``torch.signbit``; while exporting, ``x < 0``, and for a zero whether ``1 / x`` is negative
    (a NaN counts as positive: the graph cannot read its sign bit)."""
    if torch.jit.is_scripting():
        return torch.signbit(input)
    if _trt_foreign(input, "signbit"):
        return input.signbit()
    if _trt_composable(input):
        return _trt_negative(input)
    return torch.signbit(input)


def _trt_copysign(input, other):
    """``torch.copysign``; while exporting, ``|input|`` negated where ``other``'s sign is negative (the
    sign of a NaN ``other`` reads as positive)."""
    if torch.jit.is_scripting():
        return torch.copysign(input, other)
    if _trt_foreign(input, "copysign"):
        return input.copysign(other)
    if (isinstance(input, torch.Tensor) and _trt_composable(input)
            and not (isinstance(other, torch.Tensor) and other.is_complex())):
        magnitude, sign = _trt_float_of(input, other)
        one = torch.ones((), dtype=magnitude.dtype, device=magnitude.device)
        return magnitude.abs() * torch.where(_trt_negative(sign), -one, one)
    return torch.copysign(input, other)


def _trt_trace(input):
    """``torch.trace``; while exporting, the sum of the masked diagonal (in the input's type: torch
    accumulates a float matrix's diagonal in double)."""
    if torch.jit.is_scripting():
        return torch.trace(input)
    if _trt_foreign(input, "trace"):
        return input.trace()
    if _trt_composable(input) and input.dim() == 2 and input.dtype != torch.bool:
        rows = torch.arange(input.shape[0], device=input.device).unsqueeze(1)
        columns = torch.arange(input.shape[1], device=input.device).unsqueeze(0)
        diagonal = torch.where(rows != columns, torch.zeros_like(input), input)
        return diagonal.sum() if input.is_floating_point() else diagonal.sum(dtype=torch.int64)
    return torch.trace(input)


def _trt_logaddexp(input, other):
    """``torch.logaddexp``; while exporting, ``max + log(1 + exp(min - max))`` (ONNX has no log1p)."""
    if torch.jit.is_scripting():
        return torch.logaddexp(input, other)
    if _trt_foreign(input, "logaddexp"):
        return input.logaddexp(other)
    if _trt_composable(input) and isinstance(other, torch.Tensor) and not other.is_complex():
        a, b = _trt_float_of(input, other)
        dtype = a.dtype
        a, b = _trt_widened(a), _trt_widened(b)
        larger = a >= b
        high, low = torch.where(larger, a, b), torch.where(larger, b, a)
        same_infinity = (a.abs() == float("inf")) & (a == b)
        return torch.where(same_infinity, a, high + _trt_log1p(torch.exp(low - high))).to(dtype)
    return torch.logaddexp(input, other)


def _trt_hypot(input, other):
    """``torch.hypot``; while exporting, ``big * sqrt(1 + (small / big) ** 2)`` (no overflow), an
    infinity where either is infinite, NaN where either is NaN otherwise."""
    if torch.jit.is_scripting():
        return torch.hypot(input, other)
    if _trt_foreign(input, "hypot"):
        return input.hypot(other)
    if (_trt_composable(input) and input.is_floating_point() and isinstance(other, torch.Tensor)
            and other.dtype == input.dtype):
        dtype = input.dtype
        x, y = _trt_widened(input).abs(), _trt_widened(other).abs()
        first_bigger = x >= y
        big, small = torch.where(first_bigger, x, y), torch.where(first_bigger, y, x)
        ratio = small / big
        length = big * torch.sqrt(1 + ratio * ratio)
        length = torch.where(big == 0, big, length)
        length = torch.where(torch.isnan(x) | torch.isnan(y), x + y, length)
        infinite = (x == float("inf")) | (y == float("inf"))
        return torch.where(infinite, torch.full_like(length, float("inf")), length).to(dtype)
    return torch.hypot(input, other)


def _trt_cumprod(input, dim: int, dtype: torch.dtype | None = None):
    """``torch.cumprod``; while exporting, products over a triangle (ReduceProd of the values at or
    before each position, 1 after it): ``n * n`` values per row, no logarithm."""
    if torch.jit.is_scripting():
        return torch.cumprod(input, dim, dtype=dtype)
    if _trt_foreign(input, "cumprod"):
        return input.cumprod(dim, dtype=dtype)
    if _trt_composable(input) and input.dim() > 0 and -input.dim() <= dim < input.dim():
        return _trt_cumprod_onnx(input, dim % input.dim(), dtype)
    return torch.cumprod(input, dim, dtype=dtype)


@torch.jit.unused
def _trt_cumprod_onnx(input, axis, dtype):
    if dtype is not None:
        x = input.to(dtype)
    elif input.is_floating_point():
        x = input
    else:
        x = input.to(torch.int64)
    last = x.dim() - 1
    moved = x if axis == last else x.movedim(axis, last)
    n = moved.shape[-1]
    position = torch.arange(n, device=x.device)
    earlier = position.unsqueeze(0) <= position.unsqueeze(1)  # [i, j]: j <= i
    rows = moved.unsqueeze(-2).expand(*moved.shape[:-1], n, n)
    products = torch.where(~earlier, torch.ones((), dtype=x.dtype, device=x.device), rows).prod(-1)
    return products if axis == last else products.movedim(last, axis)


def _trt_logcumsumexp(input, dim: int):
    """``torch.logcumsumexp``; while exporting, per position the log-sum-exp of the values at or before it
    over a triangle (``n * n`` values per row, -inf after the position), shifted by that triangle row's
    maximum so that no exponential overflows (in float32 for half input, as torch computes it)."""
    if torch.jit.is_scripting():
        return torch.logcumsumexp(input, dim)
    if _trt_foreign(input, "logcumsumexp"):
        return input.logcumsumexp(dim)
    if _trt_composable(input) and input.is_floating_point() and input.dim() > 0 \
            and -input.dim() <= dim < input.dim() and int(input.shape[dim]) > 0:
        return _trt_logcumsumexp_onnx(input, dim % input.dim())
    return torch.logcumsumexp(input, dim)


@torch.jit.unused
def _trt_logcumsumexp_onnx(input, axis):
    x = _trt_widened(input)
    last = x.dim() - 1
    moved = x if axis == last else x.movedim(axis, last)
    n = moved.shape[-1]
    position = torch.arange(n, device=x.device)
    later = position.unsqueeze(0) > position.unsqueeze(1)  # [i, j]: j after i
    rows = torch.where(later, torch.full((), float("-inf"), dtype=x.dtype, device=x.device), moved.unsqueeze(-2))
    top = rows.amax(-1, keepdim=True)
    # A row whose maximum is infinite (all -inf, or a +inf in it) is not shifted: exp and log give torch's -inf/inf.
    top = torch.where(top.abs() == float("inf"), torch.zeros_like(top), top)
    sums = torch.log(torch.exp(rows - top).sum(-1)) + top.squeeze(-1)
    return (sums if axis == last else sums.movedim(last, axis)).to(input.dtype)


def _trt_expm1(input):
    """``torch.expm1``; while exporting, ``(u - 1) * x / log(u)`` with ``u = exp(x)`` (which corrects the
    rounding of ``u``), ``x`` itself where ``u`` is 1, -1 where it is 0 and infinity where it is."""
    if torch.jit.is_scripting():
        return torch.expm1(input)
    if _trt_foreign(input, "expm1"):
        return input.expm1()
    if _trt_composable(input):
        x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
        wide = _trt_widened(x)
        u = torch.exp(wide)
        corrected = (u - 1) * wide / torch.log(u)
        # The value that may be -0.0 (``x`` itself) goes in Where's second branch (see the module's note).
        near_zero = torch.where((u < 1) | (u > 1), corrected, wide)  # no Not: ONNX Runtime would swap the branches
        ends = torch.where(u == 0, torch.full_like(wide, -1.0), torch.where(u == float("inf"), u, near_zero))
        return torch.where(torch.isnan(wide), wide, ends).to(x.dtype)
    return torch.expm1(input)


def _trt_fmin(input, other):
    """``torch.fmin``; while exporting, ``other`` where it is below ``input`` or ``input`` is NaN, else
    ``input`` (of two equal zeros, the first, as torch)."""
    if torch.jit.is_scripting():
        return torch.fmin(input, other)
    if _trt_foreign(input, "fmin"):
        return input.fmin(other)
    if (_trt_composable(input) and isinstance(other, torch.Tensor) and not other.is_complex()
            and input.dtype == other.dtype):
        take_other = other < input
        if input.is_floating_point():
            take_other = take_other | torch.isnan(input)
        return torch.where(take_other, other, input)
    return torch.fmin(input, other)


def _trt_fmax(input, other):
    """``torch.fmax``; while exporting, ``other`` where it is above ``input`` or ``input`` is NaN, else
    ``input`` (of two equal zeros, the first, as torch)."""
    if torch.jit.is_scripting():
        return torch.fmax(input, other)
    if _trt_foreign(input, "fmax"):
        return input.fmax(other)
    if (_trt_composable(input) and isinstance(other, torch.Tensor) and not other.is_complex()
            and input.dtype == other.dtype):
        take_other = other > input
        if input.is_floating_point():
            take_other = take_other | torch.isnan(input)
        return torch.where(take_other, other, input)
    return torch.fmax(input, other)


# --- safe: flips, a transpose, a diagonal, a fractional part, a threshold ----------------------


def _trt_fliplr(input):
    """``torch.fliplr``; while exporting, ``flip`` of axis 1 (what torch's ``fliplr`` is)."""
    if torch.jit.is_scripting():
        return torch.fliplr(input)
    if _trt_foreign(input, "fliplr"):
        return input.fliplr()
    if _trt_composable(input) and input.dim() >= 2:
        return input.flip(1)
    return torch.fliplr(input)


def _trt_flipud(input):
    """``torch.flipud``; while exporting, ``flip`` of axis 0 (what torch's ``flipud`` is)."""
    if torch.jit.is_scripting():
        return torch.flipud(input)
    if _trt_foreign(input, "flipud"):
        return input.flipud()
    if _trt_composable(input) and input.dim() >= 1:
        return input.flip(0)
    return torch.flipud(input)


def _trt_adjoint(input):
    """``torch.adjoint``; while exporting, a real tensor's last two axes transposed (the same view torch
    returns; a complex one keeps torch's conjugate view, and its error)."""
    if torch.jit.is_scripting():
        return torch.adjoint(input)
    if _trt_foreign(input, "adjoint"):
        return input.adjoint()
    if _trt_composable(input) and input.dim() >= 2:
        return input.transpose(-2, -1)
    return torch.adjoint(input)


def _trt_diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """``torch.diag_embed``; while exporting, the last axis spread over a square of zeros by a Where on
    the row and column numbers (the values in its second branch: a -0.0 stays), then moved to ``dim1`` and
    ``dim2``."""
    if torch.jit.is_scripting():
        return torch.diag_embed(input, offset, dim1, dim2)
    if _trt_foreign(input, "diag_embed"):
        return input.diag_embed(offset, dim1, dim2)
    rank = input.dim() + 1 if isinstance(input, torch.Tensor) else 0
    if (_trt_composable(input) and input.dim() >= 1 and -rank <= dim1 < rank and -rank <= dim2 < rank
            and dim1 % rank != dim2 % rank):
        return _trt_diag_embed_onnx(input, offset, dim1 % rank, dim2 % rank)
    return torch.diag_embed(input, offset, dim1, dim2)


@torch.jit.unused
def _trt_diag_embed_onnx(input, offset, dim1, dim2):
    shift = abs(offset)
    if shift:
        padding = torch.zeros_like(input[..., :1]).expand(*input.shape[:-1], shift)
        input = torch.cat([input, padding], -1)
    positions = torch.arange(input.shape[-1], device=input.device)
    rows, columns = positions.unsqueeze(1), positions.unsqueeze(0)
    # The value of (row, column) is the input's at the row for an offset >= 0, at the column below it.
    spread = input.unsqueeze(-1) if offset >= 0 else input.unsqueeze(-2)  # the Where broadcasts it
    gap = columns - rows
    off = (gap < offset) | (gap > offset)  # no Not: ONNX Runtime would swap the branches
    square = torch.where(off, torch.zeros((), dtype=input.dtype, device=input.device), spread)
    # The two new axes (last) moved to dim1 and dim2, the others in order: one Transpose.
    rank = square.dim()
    others = iter(range(rank - 2))
    order = [rank - 2 if axis == dim1 else rank - 1 if axis == dim2 else next(others) for axis in range(rank)]
    return square.permute(order)


def _trt_frac(input):
    """``torch.frac``; while exporting, ``x - trunc(x)`` as torch computes it, the truncation as
    :func:`_trt_trunc` composes it (an infinity gives NaN, a negative whole number 0.0, as in torch)."""
    if torch.jit.is_scripting():
        return torch.frac(input)
    if _trt_foreign(input, "frac"):
        return input.frac()
    if _trt_composable(input) and input.is_floating_point():
        return input - _trt_trunc(input)
    return torch.frac(input)


def _trt_threshold(input, threshold: float, value: float, inplace: bool = False):
    """``F.threshold`` (``torch.threshold``): ``value`` where the input is at or below ``threshold``, the
    input elsewhere (a NaN stays); while exporting, a Where with the input in its second branch."""
    if torch.jit.is_scripting():
        return torch.nn.functional.threshold(input, threshold, value, inplace)
    if (_trt_composable(input) and input.is_floating_point() and not inplace
            and isinstance(threshold, (int, float)) and isinstance(value, (int, float))):
        return _trt_threshold_onnx(input, threshold, value)
    return torch.nn.functional.threshold(input, threshold, value, inplace)


@torch.jit.unused
def _trt_threshold_onnx(input, threshold, value):
    # torch compares a half or bfloat16 input in float32, with the threshold in that type, and fills in
    # the input's type: the same numbers here.
    wide = _trt_widened(input)
    limit = torch.tensor(threshold, dtype=wide.dtype, device=input.device)
    fill = torch.tensor(value, dtype=wide.dtype, device=input.device).to(input.dtype)
    below = wide <= limit
    if value == 0 and bool(torch.tensor(float(value)).signbit()):
        # ONNX Runtime's Where reads a -0.0 from its first branch as 0.0: a +0.0 there, signed by a product.
        one = torch.ones((), dtype=input.dtype, device=input.device)
        return torch.where(below, torch.zeros_like(fill), input) * torch.where(below, -one, one)
    return torch.where(below, fill, input)


class _TrtThreshold(torch.nn.Threshold):
    """``nn.Threshold`` whose forward is :func:`_trt_threshold` (same state, same repr)."""

    def forward(self, input):
        return _trt_threshold(input, self.threshold, self.value, self.inplace)

    def _get_name(self):
        return "Threshold"


def _trt_sgn(input):
    """``torch.sgn``; while exporting, ``sign`` of a real tensor (what ``sgn`` is for one), 0 for a NaN as in
    torch (ONNX's Sign gives NaN)."""
    if torch.jit.is_scripting():
        return torch.sgn(input)
    if _trt_foreign(input, "sgn"):
        return input.sgn()
    if _trt_composable(input) and input.dtype != torch.bool:
        if not input.is_floating_point():
            return torch.sign(input)
        return torch.where(torch.isnan(input), torch.zeros((), dtype=input.dtype, device=input.device),
                           torch.sign(input))
    return torch.sgn(input)


# --- unsafe: hyperbolic functions composed of exp and log, within rounding ---------------------


@torch.jit.unused
def _trt_float_input(input):
    """The input as the floating type torch computes a unary function in (integers: the default float)."""
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return x, _trt_widened(x)


@torch.jit.unused
def _trt_signed(magnitude, x):
    """``magnitude`` with ``x``'s sign (a -0.0 too), applied as a product with +-1 (no Where on the value)."""
    one = torch.ones((), dtype=magnitude.dtype, device=magnitude.device)
    return magnitude * torch.where(_trt_negative(x), -one, one)


@torch.jit.unused
def _trt_expm1_of(x):
    """``expm1`` of a non-negative or NaN float tensor without ONNX's missing Expm1 (see :func:`_trt_expm1`)."""
    u = torch.exp(x)
    corrected = (u - 1) * x / torch.log(u)
    return torch.where((u < 1) | (u > 1), torch.where(u == float("inf"), u, corrected), x)


def _trt_sinh(input):
    """``torch.sinh``; while exporting, ``(e + e / (e + 1)) / 2`` with ``e = expm1(|x|)`` (no cancellation
    near 0), ``exp(|x| / 2) ** 2 / 2`` past 20, the sign put back as a product."""
    if torch.jit.is_scripting():
        return torch.sinh(input)
    if _trt_foreign(input, "sinh"):
        return input.sinh()
    if _trt_composable(input):
        x, wide = _trt_float_input(input)
        size = wide.abs()
        e = _trt_expm1_of(size)
        near = (e + e / (e + 1)) * 0.5
        half = torch.exp(size * 0.5)  # exp(|x|) / 2 as a product of halves: no overflow before sinh's own
        far = half * (half * 0.5)
        return _trt_signed(torch.where(size > 20, far, near), wide).to(x.dtype)
    return torch.sinh(input)


def _trt_cosh(input):
    """``torch.cosh``; while exporting, ``(u + 1 / u) / 2`` with ``u = exp(|x|)``, ``exp(|x| / 2) ** 2 / 2`` past 20."""
    if torch.jit.is_scripting():
        return torch.cosh(input)
    if _trt_foreign(input, "cosh"):
        return input.cosh()
    if _trt_composable(input):
        x, wide = _trt_float_input(input)
        size = wide.abs()
        u = torch.exp(size)
        near = (u + 1 / u) * 0.5
        half = torch.exp(size * 0.5)  # exp(|x|) / 2 as a product of halves: no overflow before cosh's own
        far = half * (half * 0.5)
        return torch.where(size > 20, far, near).to(x.dtype)
    return torch.cosh(input)


def _trt_asinh(input):
    """``torch.asinh``; while exporting, ``log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`` (accurate near 0),
    ``log(|x|) + log 2`` past 2^28, the sign put back as a product."""
    if torch.jit.is_scripting():
        return torch.asinh(input)
    if _trt_foreign(input, "asinh"):
        return input.asinh()
    if _trt_composable(input):
        x, wide = _trt_float_input(input)
        size = wide.abs()
        big = size > 268435456.0
        small = torch.where(big, torch.zeros_like(size), size)  # no overflow of the square
        square = small * small
        near = _trt_log1p(small + square / (1 + torch.sqrt(1 + square)))
        far = torch.log(size) + 0.6931471805599453
        return _trt_signed(torch.where(big, far, near), wide).to(x.dtype)
    return torch.asinh(input)


def _trt_acosh(input):
    """``torch.acosh``; while exporting, ``log1p(t + sqrt(t * (t + 2)))`` with ``t = x - 1`` (accurate
    near 1), ``log(x) + log 2`` past 2^28; NaN below 1, as torch."""
    if torch.jit.is_scripting():
        return torch.acosh(input)
    if _trt_foreign(input, "acosh"):
        return input.acosh()
    if _trt_composable(input):
        x, wide = _trt_float_input(input)
        big = wide > 268435456.0
        t = torch.where(big, torch.zeros_like(wide), wide) - 1
        near = _trt_log1p(t + torch.sqrt(t * (t + 2)))
        far = torch.log(wide) + 0.6931471805599453
        below = torch.full_like(wide, float("nan"))
        return torch.where(wide < 1, below, torch.where(big, far, near)).to(x.dtype)
    return torch.acosh(input)


def _trt_atanh(input):
    """``torch.atanh``; while exporting, ``log1p(2|x| / (1 - |x|)) / 2`` (accurate near 0), infinity at 1,
    NaN past it, the sign put back as a product."""
    if torch.jit.is_scripting():
        return torch.atanh(input)
    if _trt_foreign(input, "atanh"):
        return input.atanh()
    if _trt_composable(input):
        x, wide = _trt_float_input(input)
        size = wide.abs()
        inside = size < 1
        safe = torch.where(inside, size, torch.zeros_like(size))
        near = _trt_log1p(2 * safe / (1 - safe)) * 0.5
        edge = torch.where(size == 1, torch.full_like(size, float("inf")), torch.full_like(size, float("nan")))
        return _trt_signed(torch.where(inside, near, torch.where(torch.isnan(size), size, edge)), wide).to(x.dtype)
    return torch.atanh(input)


def _trt_addcdiv(input, tensor1, tensor2, value: float = 1):
    """``torch.addcdiv``: ``input + value * tensor1 / tensor2``; while exporting, those products in torch's
    order (``value * tensor1`` first)."""
    if torch.jit.is_scripting():
        return torch.addcdiv(input, tensor1, tensor2, value=value)
    if _trt_foreign(input, "addcdiv"):
        return input.addcdiv(tensor1, tensor2, value=value)
    if (_trt_composable(input) and isinstance(tensor1, torch.Tensor) and isinstance(tensor2, torch.Tensor)
            and input.is_floating_point() and tensor1.dtype == input.dtype and tensor2.dtype == input.dtype):
        dtype = input.dtype
        a, b, c = _trt_widened(input), _trt_widened(tensor1), _trt_widened(tensor2)
        return (a + value * b / c).to(dtype)
    return torch.addcdiv(input, tensor1, tensor2, value=value)


# --- safe: stacking a sequence of tensors -------------------------------------------------------
# `hstack` and `vstack` export as SequenceConstruct/ConcatFromSequence (and `hstack` as an If on the first
# tensor's rank); `dstack` and `column_stack` have no symbolic. Each is torch's `cat` of the tensors reshaped
# as torch's `atleast_*d` reshapes them: while tracing, the ranks are known and the graph is one Concat.


def _trt_stackable(tensors) -> bool:
    """A non-empty sequence of real tensors while exporting (an empty one keeps torch's call and error)."""
    return len(tensors) > 0 and all(_trt_composable(t) for t in tensors)


def _trt_hstack(tensors: list[torch.Tensor]):
    """``torch.hstack``; while exporting, ``cat`` along axis 1 (axis 0 where the tensors are 1-D), a
    0-D tensor taken as one value (what ``atleast_1d`` makes of it)."""
    if torch.jit.is_scripting():
        return torch.hstack(tensors)
    if _trt_stackable(tensors):
        parts = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
        return torch.cat(parts, 1 if parts[0].dim() > 1 else 0)
    return torch.hstack(tensors)


def _trt_vstack(tensors: list[torch.Tensor]):
    """``torch.vstack`` (and ``torch.row_stack``, its alias); while exporting, ``cat`` along axis 0 of the
    tensors made at least 2-D as ``atleast_2d`` makes them (``()`` as ``(1, 1)``, ``(n,)`` as ``(1, n)``)."""
    if torch.jit.is_scripting():
        return torch.vstack(tensors)
    if _trt_stackable(tensors):
        return torch.cat([t.reshape(1, -1) if t.dim() < 2 else t for t in tensors], 0)
    return torch.vstack(tensors)


def _trt_dstack(tensors: list[torch.Tensor]):
    """``torch.dstack``; while exporting, ``cat`` along axis 2 of the tensors made at least 3-D as
    ``atleast_3d`` makes them (``()`` as ``(1, 1, 1)``, ``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as ``(m, n, 1)``)."""
    if torch.jit.is_scripting():
        return torch.dstack(tensors)
    if _trt_stackable(tensors):
        parts = [t.reshape(1, -1, 1) if t.dim() < 2 else t.unsqueeze(-1) if t.dim() == 2 else t for t in tensors]
        return torch.cat(parts, 2)
    return torch.dstack(tensors)


def _trt_column_stack(tensors: list[torch.Tensor]):
    """``torch.column_stack``; while exporting, ``cat`` along axis 1 with each 0-D or 1-D tensor as a
    column (``(n,)`` as ``(n, 1)``)."""
    if torch.jit.is_scripting():
        return torch.column_stack(tensors)
    if _trt_stackable(tensors):
        return torch.cat([t.reshape(-1, 1) if t.dim() < 2 else t for t in tensors], 1)
    return torch.column_stack(tensors)
