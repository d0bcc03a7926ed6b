"""XOR, AND and OR of integer tensors while exporting, as arithmetic TensorRT parses (TRT385).

Instant-NGP-style hash grids hash each integer voxel corner as the XOR of its coordinates times large primes
(nerfstudio's ``HashEncoding.hash_fn``: ``torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])``). The TorchScript
exporter has no ONNX operator for a bitwise operator on integers ("Exporting the operator 'aten::bitwise_xor' to ONNX
opset version 17 is not supported", "ONNX export does NOT support exporting bitwise XOR for non-boolean input
values"), and where the dynamo exporter writes ONNX ``BitwiseXor``/``BitwiseAnd``/``BitwiseOr`` (opset 18) no
TensorRT release parses them. The helpers are torch's operator everywhere but while either ONNX exporter traces; there
an integer result is computed from the operands' bits: each two's-complement operand is split into its sign and its
low 63 (int64) or 31 (int32) bits, those bits are read against constant rows of powers of two (``low % 2**(k+1)
>= 2**k``: ONNX Mod and GreaterOrEqual), combined (xor ``p + q - 2pq``, and ``pq``, or ``p + q - pq``) and summed back,
the sign's combination added as the type's minimum. The graph: Less, Cast, Mul, Add, Sub, Unsqueeze, Mod, Concat,
GreaterOrEqual, Slice, ReduceSum, all on INT32/INT64, which TensorRT parses (Mod from 8.5); the same integers as
torch's operator for every input.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_bitwise_xor(a, b):
    # type: (Union[Tensor, int], Union[Tensor, int]) -> Tensor
    """``a ^ b`` (``torch.bitwise_xor``); while exporting, integers by :func:`_trt_bitwise_exported`."""
    if torch.jit.is_scripting():
        if isinstance(a, torch.Tensor):
            if isinstance(b, torch.Tensor):
                return torch.bitwise_xor(a, b)
            return torch.bitwise_xor(a, b)  # each type of `b` refined: torch has no overload for the Union
        if isinstance(b, torch.Tensor):
            return torch.bitwise_xor(b, a)  # torch's operator is symmetric, values and dtype alike
        raise RuntimeError("bitwise_xor: neither operand is a tensor")
    if _trt_onnx_exporting():
        return _trt_bitwise_exported(a, b, 0)
    return a ^ b


def _trt_bitwise_and(a, b):
    # type: (Union[Tensor, int], Union[Tensor, int]) -> Tensor
    """``a & b`` (``torch.bitwise_and``); while exporting, integers by :func:`_trt_bitwise_exported`."""
    if torch.jit.is_scripting():
        if isinstance(a, torch.Tensor):
            if isinstance(b, torch.Tensor):
                return torch.bitwise_and(a, b)
            return torch.bitwise_and(a, b)  # each type of `b` refined: torch has no overload for the Union
        if isinstance(b, torch.Tensor):
            return torch.bitwise_and(b, a)
        raise RuntimeError("bitwise_and: neither operand is a tensor")
    if _trt_onnx_exporting():
        return _trt_bitwise_exported(a, b, 1)
    return a & b


def _trt_bitwise_or(a, b):
    # type: (Union[Tensor, int], Union[Tensor, int]) -> Tensor
    """``a | b`` (``torch.bitwise_or``); while exporting, integers by :func:`_trt_bitwise_exported`."""
    if torch.jit.is_scripting():
        if isinstance(a, torch.Tensor):
            if isinstance(b, torch.Tensor):
                return torch.bitwise_or(a, b)
            return torch.bitwise_or(a, b)  # each type of `b` refined: torch has no overload for the Union
        if isinstance(b, torch.Tensor):
            return torch.bitwise_or(b, a)
        raise RuntimeError("bitwise_or: neither operand is a tensor")
    if _trt_onnx_exporting():
        return _trt_bitwise_exported(a, b, 2)
    return a | b


@torch.jit.unused
def _trt_bitwise_exported(a, b, op):
    """``a ^ b`` (``op`` 0), ``a & b`` (1) or ``a | b`` (2) while an ONNX exporter traces (never runs scripted).

    Where torch's result is an integer tensor (int8, int16, int32, int64, uint8: the two operands' type promotion,
    a Python int taken as torch takes it) the same integers by :func:`_trt_bitwise_bits`, in int64 for an int64
    result and int32 otherwise (a narrower type's bits are the low bits of the wider one's, so the cast back is
    exact); anything else (bool, which exports as Xor/And/Or; floats and the other dtypes, which torch refuses or
    the exporter handles as it does) is torch's operator."""
    tensors = [v for v in (a, b) if isinstance(v, torch.Tensor)]
    numbers_ok = all(isinstance(v, torch.Tensor) or (isinstance(v, int) and -2 ** 63 <= v < 2 ** 63) for v in (a, b))
    if tensors and numbers_ok:
        dtype = torch.result_type(a, b)
        if dtype in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
            work = torch.int64 if dtype == torch.int64 else torch.int32
            bits = 63 if work == torch.int64 else 31
            device = tensors[0].device
            result = _trt_bitwise_bits(_trt_bitwise_operand(a, work, bits, device),
                                       _trt_bitwise_operand(b, work, bits, device), op, work, bits)
            return result if dtype == work else result.to(dtype)
    if op == 0:
        return a ^ b
    if op == 1:
        return a & b
    return a | b


@torch.jit.unused
def _trt_bitwise_operand(v, work, bits, device):
    """``v`` as a ``work`` tensor: a tensor cast (sign- or zero-extended, exact), a Python int wrapped to the work
    type's two's complement as torch wraps a scalar to the result type (its low bits are the same)."""
    if isinstance(v, torch.Tensor):
        return v if v.dtype == work else v.to(work)
    span = 2 ** (bits + 1)
    wrapped = (int(v) + span // 2) % span - span // 2
    return torch.tensor(wrapped, dtype=work, device=device)


@torch.jit.unused
def _trt_bitwise_bits(x, y, op, work, bits):
    """The bitwise combination of two ``work`` tensors (int32 with ``bits`` 31, int64 with 63), broadcast as torch
    broadcasts them, with no bitwise operator and no overflow: each operand's sign ``s`` (1 where negative) and its
    low bits ``low = x + s * MAX + s`` (``x - MIN`` where negative, added in an order that never leaves the type);
    bit ``k`` of ``low`` is ``low % 2**(k + 1) >= 2**k`` against constant rows (the exporters write ``remainder`` as
    one ONNX ``Mod``; an integer division would pass through floating point in the TorchScript exporter's ``trunc``
    and ``floor`` forms); the bits and the signs combined as 0/1 integers (xor ``p + q - 2pq``, and ``pq``, or
    ``p + q - pq``); the bits summed back with their powers, 21 at a time, and ``MIN`` added where the combined
    sign is 1."""
    maximum = 2 ** bits - 1
    powers = torch.tensor([2 ** k for k in range(bits)], dtype=work, device=x.device)
    moduli = torch.tensor([2 ** (k + 1) for k in range(bits - 1)], dtype=work, device=x.device)
    x_sign = (x < 0).to(work)
    y_sign = (y < 0).to(work)
    x_low = ((x + x_sign * maximum) + x_sign).unsqueeze(-1)
    y_low = ((y + y_sign * maximum) + y_sign).unsqueeze(-1)
    # low % 2**(k + 1) >= 2**k is bit k; the top bit's modulus (2**bits) is past the type, and low is below it.
    x_bits = (torch.cat([torch.remainder(x_low, moduli), x_low], -1) >= powers).to(work)
    y_bits = (torch.cat([torch.remainder(y_low, moduli), y_low], -1) >= powers).to(work)
    if op == 0:
        both = x_bits * y_bits
        out_bits = x_bits + y_bits - both - both
        out_sign = x_sign + y_sign - x_sign * y_sign * 2
    elif op == 1:
        out_bits = x_bits * y_bits
        out_sign = x_sign * y_sign
    else:
        out_bits = x_bits + y_bits - x_bits * y_bits
        out_sign = x_sign + y_sign - x_sign * y_sign
    # Summed back 21 bits at a time, each group against its own powers (below 2**21, exact even where a reduction
    # accumulates in floating point: ONNX Runtime's int64 ReduceSum rounds a 63-bit total to a double's 53 bits).
    local = torch.tensor([2 ** (k % 21) for k in range(bits)], dtype=work, device=x.device)
    terms = out_bits * local
    low = out_sign * 0
    for start in range(0, bits, 21):
        low = low + terms[..., start:start + 21].sum(-1, dtype=work) * (2 ** start)
    return low + out_sign * (-maximum - 1)
