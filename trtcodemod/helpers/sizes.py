"""``len``, ``min``/``max``/``int``/``math.ceil``/``math.floor`` of sizes, kept in the graph while
the TorchScript exporter traces.

``_trt_len(x)`` is ``x.shape[0]`` for a tensor that has a first dimension (a size the trace
records, where ``len`` gives it a Python int) and ``len(x)`` for everything else, so it keeps
``len``'s result and exceptions whatever a caller passes.

Under ``torch.jit.trace`` (which the TorchScript exporter runs) a tensor's size is a traced
0-d tensor. Python's ``min``/``max`` compare it into a ``bool`` and return one of the
operands: the trace keeps the example's choice. These helpers are the built-in everywhere
else (eager, scripting, fx, ``torch.compile``, ``torch.export`` and the dynamo exporter,
which keeps ``min``/``max`` of symbolic sizes itself), and only while a trace meets a
tensor operand do they compute the choice with a traced ``clamp``/``minimum``/``maximum``.
``_trt_size_where`` is the choice an ``if`` on a size made between two numbers (TRT717), and
``_trt_size_taken`` the test of a branch that pads by writing into a filled tensor, taken every time while tracing,
and ``_trt_pad_where`` a padding module's call that such a test guards (its amounts chosen one by one).
``int``, ``ceil`` and ``floor`` of a traced size (``int(h * scale)``, ``math.ceil(h / s)``) read
it into a Python number the same way; their helpers keep it a 0-d ``int64`` tensor there
(``Ceil``/``Floor`` and a cast in the graph, the cast truncating toward zero as ``int`` does).
``torch.export`` (the dynamo exporter) keeps ``math.ceil``/``math.floor`` of a symbolic float
symbolic but specializes ``int()`` of one to the example's value: ``_trt_size_int`` takes
``torch.sym_int`` there.
``math.sqrt`` of a size (a token count's side, ``int(math.sqrt(n))``) reads it the same way; its
helper keeps a traced float32 ``Sqrt`` there; ``math.log`` of one (proportional attention's
``math.log(seq_len, base_seq_len)``) keeps a float32 ``Log`` (over the base's, ``_trt_size_log_base``). ``round`` of a
size's quotient (piq's
``round(min(x.size()[-2:]) / 256)``) keeps a traced ``Round`` (halves to even, as ``round``) and a cast,
and ``min``/``max`` of a slice of the sizes (``min(x.size()[-2:])``) a traced minimum/maximum of them all.
``isinstance(s, int)`` of a size is False for the 0-d tensor a trace passes (oflibpytorch's shape check
then raises): ``_trt_size_is_int`` takes that tensor, and a ``torch.SymInt``, for the int they stand for.
"""

import torch


def _trt_len(value):
    """``len(value)``, as ``value.shape[0]`` where that is the same: a tensor with a first
    dimension whose class keeps ``Tensor.__len__`` (a 0-d tensor's ``len`` raises ``TypeError``)."""
    if not torch.jit.is_scripting() and _trt_len_is_size(value):
        return value.shape[0]
    return len(value)


@torch.jit.unused
def _trt_len_is_size(value) -> bool:
    """Whether ``len(value)`` is ``value.shape[0]`` (never runs when scripted)."""
    return isinstance(value, torch.Tensor) and type(value).__len__ is torch.Tensor.__len__ and value.dim() > 0


def _trt_size_max(a: int, b: int) -> int:
    """``max(a, b)``; a traced maximum while a trace passes a tensor for a size."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_traced(True, a, b)
    return max(a, b)


def _trt_size_min(a: int, b: int) -> int:
    """``min(a, b)``; a traced minimum while a trace passes a tensor for a size."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_traced(False, a, b)
    return min(a, b)


def _trt_size_min_of(sizes: list[int]) -> int:
    """``min(sizes)`` of a tensor's sizes (``min(x.size()[-2:])``); a traced minimum while a trace passes
    tensors for them (an empty sequence raises as ``min`` does)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and _trt_size_any_traced(sizes):
        return _trt_size_folded(False, sizes)
    return min(sizes)


def _trt_size_max_of(sizes: list[int]) -> int:
    """``max(sizes)`` of a tensor's sizes (``max(x.shape[2:])``); a traced maximum while a trace passes
    tensors for them."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and _trt_size_any_traced(sizes):
        return _trt_size_folded(True, sizes)
    return max(sizes)


@torch.jit.unused
def _trt_size_any_traced(sizes: list[int]) -> bool:
    """Whether the trace passed a size as a tensor (never runs when scripted)."""
    return any(isinstance(size, torch.Tensor) for size in sizes)


@torch.jit.unused
def _trt_size_folded(largest: bool, sizes: list[int]) -> int:
    """The traced choice over all the sizes, pair by pair (never runs when scripted)."""
    chosen = sizes[0]
    for size in sizes[1:]:
        chosen = _trt_size_traced(largest, chosen, size)
    return chosen


def _trt_size_max_float(a: float, b: float) -> float:
    """``max(a, b)`` of two float numbers (quotients of sizes); a traced maximum while a trace passes a
    tensor for one (typed ``float`` for scripting, where the integer helper's types would refuse them)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_chosen_float(True, a, b)
    return max(a, b)


def _trt_size_min_float(a: float, b: float) -> float:
    """``min(a, b)`` of two float numbers (a letterbox gain, ``min(h / h0, w / w0)``); a traced minimum
    while a trace passes a tensor for one."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_chosen_float(False, a, b)
    return min(a, b)


@torch.jit.unused
def _trt_size_chosen_float(largest: bool, a: float, b: float) -> float:
    """:func:`_trt_size_traced` under float types, which a scripted caller checks (never runs when scripted)."""
    return _trt_size_traced(largest, a, b)


@torch.jit.unused
def _trt_size_traced(largest: bool, a: int, b: int) -> int:
    """The traced choice: a 0-d tensor, as the trace's sizes are (never runs when scripted)."""
    # clamp against a Python number records no constant tensor (torch.as_tensor would warn).
    if not isinstance(a, torch.Tensor):
        a, b = b, a
    if not isinstance(b, torch.Tensor):
        return torch.clamp(a, min=b) if largest else torch.clamp(a, max=b)
    return torch.maximum(a, b) if largest else torch.minimum(a, b)


def _trt_size_where(condition: bool, chosen: int, other: int) -> int:
    """``chosen if condition else other``; a traced choice while a trace passes a tensor condition
    (a size compared with a number: ``if h <= window: size = h`` kept in the graph)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and isinstance(condition, torch.Tensor):
        return _trt_size_chosen(condition, chosen, other)
    return chosen if condition else other


def _trt_size_taken(condition: bool) -> bool:
    """``condition`` itself; True while a trace passes a tensor condition (a size compared with a number).

    A branch that pads by writing its input into a larger filled tensor (``if h % 8 != 0:``) then runs
    every time the trace records it, its sizes chosen by ``_trt_size_where`` (the input's own where the
    test is false: a copy), so the graph holds the choice; everywhere else the ``if`` decides as written."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and isinstance(condition, torch.Tensor):
        return True
    return condition


@torch.jit.unused
def _trt_pad_where(module, x, condition):
    """``module(x) if condition else x`` for one of torch's padding modules (constant and zero, reflection,
    replication), while a trace passes a tensor condition: the module's own amounts, each
    ``_trt_size_where(condition, amount, 0)``, in one ``F.pad`` of its mode, so the graph keeps the choice (a
    padding of 0 is the input's values). Anything else (another module, a circular pad, whose ONNX symbolic
    takes constant amounts only, a Python condition) as written."""
    padding = torch.nn.modules.padding
    modes = ((padding._ConstantPadNd, "constant"), (padding._ReflectionPadNd, "reflect"),
             (padding._ReplicationPadNd, "replicate"))
    mode = next((name for kind, name in modes if isinstance(module, kind)), None)
    if mode is None or not (torch.jit.is_tracing() and isinstance(condition, torch.Tensor)):
        return module(x) if condition else x
    amounts = [_trt_size_where(condition, amount, 0) for amount in module.padding]
    value = module.value if mode == "constant" else None
    return torch.nn.functional.pad(x, amounts, mode, value)


@torch.jit.unused
def _trt_size_chosen(condition, chosen, other):
    """The traced choice: ``where`` of two numbers or 0-d tensors (never runs when scripted)."""
    # Numbers go in as scalars: torch.as_tensor would record a constant (and warn).
    return torch.where(condition, chosen, other)


def _trt_size_int(value: int | float) -> int:
    """``int(value)``; the traced number as an ``int64`` 0-d tensor while a trace passes a tensor, and
    a symbolic integer while ``torch.export`` (the dynamo exporter) passes a symbolic float or integer."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "trunc")
        if isinstance(value, torch.SymFloat):
            return _trt_size_symbolic_int(value)
        if isinstance(value, torch.SymInt):
            return value  # already an integer: `int` of it would specialize the export to the example's value
        return int(value)
    if isinstance(value, int):
        return value
    return int(value)


def _trt_size_is_int(value) -> bool:
    """``isinstance(value, int)``; also true for what an exporter passes where eager code has a size: a 0-d
    integer tensor while a trace runs, a symbolic integer (``torch.SymInt``) under ``torch.export``."""
    if not torch.jit.is_scripting() and _trt_size_stands_for_int(value):
        return True
    return isinstance(value, int)


@torch.jit.unused
def _trt_size_stands_for_int(value) -> bool:
    """A traced size (0-d, an integer dtype, not bool) or a symbolic integer (never runs when scripted)."""
    if isinstance(value, torch.SymInt):
        return True
    return torch.jit.is_tracing() and isinstance(value, torch.Tensor) and value.dim() == 0 \
        and not value.is_floating_point() and not value.is_complex() and value.dtype != torch.bool


def _trt_size_float(value: int | float) -> float:
    """``float(value)``; the traced number as a float32 0-d tensor while a trace passes a tensor (a ratio
    of sizes, ``float(w) / float(w_pad)``, stays in the graph)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_traced_float(value)
        return float(value)
    return float(value)


@torch.jit.unused
def _trt_size_traced_float(value):
    """The traced number as float32, as the graph computes it (TensorRT has no float64)."""
    return value.to(torch.float32)


def _trt_size_floordiv(a: int, b: int) -> int:
    """``a // b``; while a trace passes a tensor, a floor division the graph keeps (the exporter writes
    a traced ``//`` as a ``Div`` that truncates toward zero: ``-(-h // s)`` would come out one smaller)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return _trt_size_floordiv_traced(a, b)
    return a // b


@torch.jit.unused
def _trt_size_floordiv_traced(a, b):
    """The traced quotient: ``torch.div(..., rounding_mode="floor")``, exported exactly for integers."""
    if not isinstance(a, torch.Tensor):
        a = torch.zeros_like(b) + a  # a number on the left: the divisor's type and device, no constant
    return torch.div(a, b, rounding_mode="floor")


def _trt_size_ceil(value: int | float) -> int:
    """``math.ceil(value)``; a traced ``ceil`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "ceil")
        # What math.ceil does: the value's own __ceil__, else that of its float.
        ceil = getattr(value, "__ceil__", None)
        return ceil() if ceil is not None else _trt_size_real(value).__ceil__()
    if isinstance(value, int):
        return value
    return -int(-value // 1.0)  # TorchScript has no math here; the same for every finite float


def _trt_size_floor(value: int | float) -> int:
    """``math.floor(value)``; a traced ``floor`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "floor")
        floor = getattr(value, "__floor__", None)
        return floor() if floor is not None else _trt_size_real(value).__floor__()
    if isinstance(value, int):
        return value
    return int(value // 1.0)


@torch.jit.unused
def _trt_size_real(value):
    """``value`` as the float ``math.ceil``/``math.floor`` read (a string is no number to them)."""
    if not (hasattr(value, "__float__") or hasattr(value, "__index__")):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


@torch.jit.unused
def _trt_size_symbolic_int(value):
    """``int`` of a symbolic float, kept symbolic: ``int()`` would specialize it to the example's value
    (``torch.export`` guards on it, and a dynamic axis the user did not mark strict is silently fixed)."""
    return torch.sym_int(value)


def _trt_size_rounded(value, how):
    """The traced integer: ``ceil``/``floor``/``round`` (halves to even, as Python's) of a float, then
    ``int64`` (a cast truncates toward zero, which is ``trunc``)."""
    if value.is_floating_point():
        if how == "ceil":
            value = torch.ceil(value)
        elif how == "floor":
            value = torch.floor(value)
        elif how == "round":
            value = torch.round(value)
    return value.to(torch.int64)


def _trt_size_round(value: int | float) -> float:
    """``round(value)``; the traced rounding as an ``int64`` 0-d tensor while a trace passes a tensor.
    Python's ``round`` and ``torch.round`` both round halves to even. Scripted, ``round`` itself, which
    TorchScript types ``float`` (hence the annotation; eager mode returns ``round``'s ``int``)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_rounded(value, "round")
        return round(value)
    if isinstance(value, int):
        return float(value)  # TorchScript's round of an int
    return round(value)


def _trt_size_sqrt(value: int | float) -> float:
    """``math.sqrt(value)``; a traced float32 ``Sqrt`` while a trace passes a tensor."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_root(value)
        return _trt_size_math_sqrt(value)
    # TorchScript has no math here; its scalar aten::sqrt is the op scripted math.sqrt calls.
    return torch.sqrt(float(value))


@torch.jit.unused
def _trt_size_math_sqrt(value):
    """``math.sqrt`` itself, imported where it runs (the helpers import only torch at the top)."""
    import math

    return math.sqrt(value)


@torch.jit.unused
def _trt_size_root(value):
    """The traced root: float32, as the graph computes it (TensorRT has no float64)."""
    return torch.sqrt(value.to(torch.float32))


def _trt_size_log(value: float) -> float:
    """``math.log(value)``; while a trace passes a tensor (a traced size, or a number computed from one),
    its float32 natural ``Log``."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return _trt_size_traced_log(value)
        return _trt_size_math_log(value)
    # TorchScript has no math here; its scalar aten::log is the op scripted math.log calls.
    return torch.log(float(value))


def _trt_size_log_base(value: float, base: float) -> float:
    """``math.log(value, base)``; while a trace passes a tensor for either, the float32 natural ``Log`` of
    the value over that of the base (a Python number's log taken by ``math.log``, in double)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and (isinstance(value, torch.Tensor) or isinstance(base, torch.Tensor)):
            return _trt_size_traced_log_base(value, base)
        return _trt_size_math_log(value, base)
    return torch.log(float(value)) / torch.log(float(base))


@torch.jit.unused
def _trt_size_math_log(*arguments):
    """``math.log`` itself, with the arguments given (imported where it runs)."""
    import math

    return math.log(*arguments)


@torch.jit.unused
def _trt_size_traced_log(value):
    """The traced natural logarithm, float32 as the graph computes it (TensorRT has no float64)."""
    return torch.log(value.to(torch.float32))


@torch.jit.unused
def _trt_size_traced_log_base(value, base):
    """The traced logarithm to ``base``: ``ln(value) / ln(base)``, each a traced ``Log`` where a tensor."""
    if not isinstance(value, torch.Tensor):
        value = torch.zeros_like(base, dtype=torch.float32) + float(value)  # no constant of the example
    logged = _trt_size_traced_log(value)
    if isinstance(base, torch.Tensor):
        return logged / _trt_size_traced_log(base)
    return logged / _trt_size_math_log(base)


def _trt_size_bitwise(op: str, a: int, b: int) -> int:
    """``a | b`` (``op`` ``"|"``; ``"&"``, ``"^"``, ``"<<"``, ``">>"`` alike, TRT732); while a trace passes
    a tensor for one size and the other operand is a Python ``int``, the same integer computed with
    floor divisions, products and sums (ONNX has no bitwise operator on integers before opset 18,
    and the TorchScript exporter writes none for them)."""
    if not torch.jit.is_scripting() and (torch.jit.is_tracing() or torch.compiler.is_exporting()) \
            and _trt_size_bitwise_traceable(op, a, b):
        return _trt_size_bitwise_traced(op, a, b)
    if op == "|":
        return a | b
    if op == "&":
        return a & b
    if op == "^":
        return a ^ b
    if op == "<<":
        return a << b
    return a >> b


@torch.jit.unused
def _trt_size_bitwise_traceable(op, a, b) -> bool:
    """Whether the arithmetic form applies: one 0-d integer tensor (a traced size) or ``SymInt`` and a Python ``int``
    (the right operand of a shift; either of ``| & ^``)."""
    def number(v):
        return isinstance(v, int) and not isinstance(v, bool)

    def size(v):
        if isinstance(v, torch.SymInt):  # torch.export's symbolic size (the dynamo exporter)
            return True
        return isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() \
            and not v.is_complex() and v.dtype != torch.bool
    if op in ("<<", ">>"):
        return size(a) and number(b) and 0 <= b < 63
    return size(a) and number(b) or size(b) and number(a)


@torch.jit.unused
def _trt_size_bitwise_traced(op, a, b):
    """The bitwise result as arithmetic on the traced integer (never runs when scripted)."""
    if op == "<<":
        return a * (1 << b)
    if op == ">>":
        return _trt_size_floor_div(a, 1 << b)
    if isinstance(a, int):
        a, b = b, a  # the tensor first; | & ^ are symmetric
    both = _trt_size_and_number(a, b)
    if op == "&":
        return both
    if op == "|":
        return a + b - both  # a + b = (a | b) + (a & b)
    return a + b - 2 * both  # a ^ b = (a | b) - (a & b)


@torch.jit.unused
def _trt_size_and_number(t, c):
    """``t & c`` for an integer tensor (or ``SymInt``) ``t`` and a Python int ``c``: each run of set bits
    ``[lo, hi)`` of ``c`` keeps ``floor(t / 2**lo) - floor(t / 2**hi) * 2**(hi - lo)`` (those bits of
    ``t``, floor division keeping two's complement for negative ``t``), shifted back by ``lo``."""
    if c < 0:
        return t - _trt_size_and_number(t, ~c)  # the bits of ~c cleared (~c >= 0)
    out = t * 0
    lo = 0
    while c >> lo:
        if not (c >> lo) & 1:
            lo += 1
            continue
        hi = lo
        while (c >> hi) & 1:
            hi += 1
        low = _trt_size_floor_div(t, 1 << lo)
        high = _trt_size_floor_div(t, 1 << hi)
        out = out + (low - high * (1 << (hi - lo))) * (1 << lo)
        lo = hi
    return out


@torch.jit.unused
def _trt_size_floor_div(t, d):
    """``t // d`` for an integer tensor (or a ``SymInt``) and a positive Python int, as a truncating ``Div`` and a
    step down where that rounded up (no ONNX ``Mod``, which TensorRT 8.4 lacks)."""
    if not isinstance(t, torch.Tensor):
        return t // d  # a SymInt: torch.export keeps Python's floor division symbolic
    q = torch.div(t, d, rounding_mode="trunc")
    return q - (q * d > t).to(q.dtype)


def _trt_size_stepped(value: int, step: int, period: int, scale: float, offset: int) -> int:
    """The size ``while (value + offset) * scale % period != 0: value += step`` ends at (``step`` 1 or -1):
    the loop itself, and while a trace passes a tensor size the closed form on the period of the test
    (``((v + offset + m - 1) // m) * m - offset`` up, ``((v + offset) // m) * m - offset`` down): a traced
    loop would unroll as many times as the example ran it (TRT717)."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and (isinstance(value, torch.Tensor)
                                                                    or isinstance(offset, torch.Tensor)):
        # A traced offset too: `while (h + pad) % k != 0: pad += 1` steps a count beside a size.
        period_of_test = _trt_size_test_period(step, period, scale, offset, value)
        if period_of_test > 0:
            return _trt_size_stepped_traced(value, step, period_of_test, offset)
    while (value + offset) * scale % period != 0:
        value += step
    return value


@torch.jit.unused
def _trt_size_test_period(step, period, scale, offset, value=0) -> int:
    """The smallest ``m > 0`` with ``(n + offset) * scale % period == 0`` exactly where ``n + offset`` is a
    multiple of ``m``, for Python numbers (``scale = p / q`` exactly, a float's own binary fraction:
    ``m = period * q / gcd(period * q, p)``); 0 where there is none to take (a tensor, a scale of 0, inf or
    NaN, a value or an offset that is no integer, a period so long that the products it meets are not exact)."""
    numbers = (int, float)
    integers = [n for n in (offset, value) if type(n) is not int]
    if any(not isinstance(n, torch.Tensor) or n.dim() != 0 or n.is_floating_point() or n.dtype == torch.bool
           for n in integers):
        return 0
    if step not in (1, -1) or isinstance(step, bool) or type(period) is not int \
            or type(scale) not in numbers or period == 0 or scale == 0 or scale != scale \
            or scale in (float("inf"), float("-inf")):
        return 0
    p, q = scale.as_integer_ratio()
    a, b = abs(period * q), abs(p)
    while b:  # gcd: helpers import nothing but torch
        a, b = b, a % b
    m = abs(period * q) // a
    return m if m <= 1 << 16 else 0


@torch.jit.unused
def _trt_size_stepped_traced(value, step, period, offset):
    """The traced round to a multiple of ``period`` (positive), up or down by ``step``."""
    shifted = value + offset
    if step > 0:
        shifted = shifted + (period - 1)
    return _trt_size_floor_div(shifted, period) * period - offset


@torch.jit.unused
def _trt_size_np(function, value):
    """``function(value)`` for a NumPy rounding function (``np.round``, ``np.floor``, ``np.ceil``...) as the
    code calls it; while a trace passes a tensor (a traced size's quotient), torch's rounding of the same name
    (``torch.round`` halves to even, as ``np.round`` does), a float 0-d tensor the graph keeps."""
    if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
        # NumPy's rounding functions by name, and torch's of the same meaning
        how = {"round": "round", "around": "round", "rint": "round", "floor": "floor", "ceil": "ceil",
               "trunc": "trunc", "fix": "trunc"}.get(getattr(function, "__name__", ""))
        if how is not None:
            return getattr(torch, how)(value if value.is_floating_point() else value.to(torch.float32))
    return function(value)


@torch.jit.unused
def _trt_size_astype(value, dtype):
    """``value.astype(dtype)``; while a trace passes a tensor (a rounded size), the traced number as ``int64``
    for an integer dtype (a cast truncates toward zero, as ``astype`` does) or as it is for a float one."""
    if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
        import numpy

        kind = numpy.dtype(dtype).kind
        if kind in "iu":
            return value.to(torch.int64)
        if kind == "f":
            return value
    return value.astype(dtype)
