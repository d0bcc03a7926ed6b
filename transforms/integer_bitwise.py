"""XOR, AND and OR of integer tensors (TRT385): no ONNX operator the TorchScript exporter writes, none TensorRT parses.

Instant-NGP-style hash grids hash each integer voxel corner as the XOR of its coordinates times large primes:
nerfstudio 1.1.5's ``HashEncoding.hash_fn`` (``field_components/encodings.py:414``,
``torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])``) and fast-ngp 0.1.0's ``MultiresHashEncoding``
(``h = h ^ (corner[..., 0] * self.primes[0])``). The TorchScript exporter stops there, and the dynamo exporter's
``BitwiseXor`` is refused by every TensorRT release. The rewrite calls an inserted helper
(``trtcodemod/helpers/bitwise.py``) that is torch's operator outside an ONNX export and, while either exporter
traces, computes the same integers from the operands' bits with arithmetic TensorRT parses.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import (argument, as_argument, bound_names, has_star_args, helper_call, method_call,
                                strip_parens, walk)
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, torch_operator_call
from trtcodemod.scopes import scope_bindings
from trtcodemod.transforms._tensor_evidence import STATIC_METHODS, TensorEvidence, evident_tensor, tensor_parameter

RULE = "TRT385"
#: The operator (a binary operation's class, or torch's function name) -> the helper that replaces it.
OPERATORS: dict[type, str] = {cst.BitXor: "_trt_bitwise_xor", cst.BitAnd: "_trt_bitwise_and",
                              cst.BitOr: "_trt_bitwise_or"}
FUNCTIONS = {"bitwise_xor": "_trt_bitwise_xor", "bitwise_and": "_trt_bitwise_and", "bitwise_or": "_trt_bitwise_or"}
#: Tensor methods and torch functions whose result is a bool tensor: `&`, `|`, `^` of those export as ONNX And, Or,
#: Xor, which TensorRT parses.
_BOOL_METHODS = frozenset({
    "bool", "eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "isin", "any", "all", "isclose", "signbit", "greater", "less",
    "greater_equal", "less_equal", "not_equal", "equal",
})
#: Inserted helpers whose result is a bool tensor (a rule's rewrite of one of the above).
_BOOL_HELPERS = frozenset({"_trt_isinf", "_trt_isfinite", "_trt_isposinf", "_trt_isneginf", "_trt_isin"})
#: A tensor's description rather than a tensor: an operand built from these is a Python number (TRT732's).
_SIZE_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "device"})
#: How many assignments back a name is followed.
_DEPTH = 6


class IntegerBitwise(Rule):
    needs_text = (b"^", b"&", b"|", b"bitwise_")
    requires = (TensorEvidence,)
    info = RuleInfo(
        id=RULE,
        name="integer-bitwise",
        summary="`a ^ b`, `a & b`, `a | b` (`torch.bitwise_xor/and/or`) of integer tensors (hash-grid encodings) "
                "stop the TorchScript export and export as BitwiseXor/And/Or, which TensorRT refuses; the same "
                "integers by arithmetic while exporting",
        doc="""\
What it finds: `torch.bitwise_xor(a, b)`, `torch.bitwise_and(a, b)`, `torch.bitwise_or(a, b)` however the file
imports `torch` (arguments by position or as `input=`/`other=`), the methods `a.bitwise_xor(b)` (and, or), and
the operators `a ^ b`, `a & b`, `a | b` where the code shows an operand is a tensor (a torch function's result, a
tensor-only method, an annotated or `forward` input, a local name assigned those, or combined with itself as in
`h = torch.zeros_like(c); h = h ^ (c * p)`; with a recorded run, a name it saw hold a tensor). Instant-NGP-style
hash grids hash integer voxel corners so: nerfstudio 1.1.5's `HashEncoding.hash_fn`
(`x = torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])`) and fast-ngp 0.1.0's `MultiresHashEncoding`
(`h = h ^ (corner[..., 0] * self.primes[0])`). A chain (`h ^ a ^ b`) is one finding. Not taken: an operator
whose operands are Python numbers or sizes (`(i >> 0) & 1`, `x.shape[-1] | 7`: TRT732's), one with an operand
the code shows is a bool tensor (`(x > 0) & valid`, `mask.bool() | other`: ONNX And/Or/Xor, which TensorRT
parses), the in-place forms (`a ^= b`, `a.bitwise_xor_(b)`), and a call with `out=` or unpacked arguments.

Why it hurts: the TorchScript exporter (torch 2.13, opset 17) has no ONNX operator for a bitwise operator on
integers: "Exporting the operator 'aten::bitwise_xor' to ONNX opset version 17 is not supported"
(`bitwise_and` alike) or "ONNX export does NOT support exporting bitwise XOR for non-boolean input values"
(`^`, `&`, `|`, `bitwise_or`), so no ONNX file is written. The dynamo exporter writes ONNX BitwiseXor,
BitwiseAnd and BitwiseOr (opset 18), which no TensorRT release parses.

The rewrite: `torch.bitwise_xor(a, b)`, `a.bitwise_xor(b)` and `a ^ b` → `_trt_bitwise_xor(a, b)`
(`_trt_bitwise_and`, `_trt_bitwise_or`), an inserted helper. Outside an ONNX export (eager mode, `torch.jit.trace`
alone, `torch.fx`, `torch.compile`, `torch.export`) it is the operator itself; scripted, torch's function. While
either ONNX exporter traces, where torch's result is an integer tensor (int8, int16, int32, int64 or uint8, by
torch's type promotion of the operands, a Python int wrapped as torch wraps it), it computes in int64 (an int64
result) or int32 (the others, cast back: a narrower type's bits are the low bits of the wider one's): each
operand's sign `s` and its low 63 (31) bits `x + s * MAX + s` (never overflowing), bit `k` as
`low % 2**(k + 1) >= 2**k` against constant rows, the bits and signs combined as 0/1 integers (xor `p + q - 2pq`,
and `pq`, or `p + q - pq`), the bits summed back with their powers 21 at a time (every partial sum below 2**21, so
a reduction that accumulates in floating point, as ONNX Runtime's int64 ReduceSum does, stays exact) and `MIN`
added where the combined sign is 1. Bool results (ONNX Xor/And/Or) and anything torch refuses keep the operator.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run the operator
(values, dtype, shape, device and exceptions the original's; integer results have no gradients). The exported
graph holds the same integers for every input: the tests compare every operator and dtype pair over random int64
and int32 values across the whole range (MIN, MAX, -1, 0 included), broadcast shapes, 0-d and empty tensors and a
Python int on either side with torch's operator, and the graphs of both exporters under ONNX Runtime at a size
other than the traced one. Cost: while exporting only. The graph has about 40 nodes an operator (Less, Cast, Mul,
Add, Sub, Unsqueeze, Mod, Concat, GreaterOrEqual, Slice, ReduceSum, all INT32/INT64) where the original had one,
and each intermediate of the bit rows holds 63 (int64; 31 for int32) integers an element: 0.5 GiB per such
intermediate for 2**20 int64 elements, a few of them alive at once unless TensorRT fuses the element-wise chain. Eager mode calls the operator after two flag reads: about 1 us a call over the operator's own.

TensorRT versions: 8.5 and newer (ONNX Mod on integers; the other operators are parsed from 8.4).""",
        fix=Safety.SAFE,
        examples=(
            Example("import torch\nx = torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])\n",
                    "import torch\nx = _trt_bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])\n"),
            Example("import torch\n"
                    "def hash_corner(corner, primes):\n"
                    "    h = torch.zeros_like(corner[..., 0])\n"
                    "    h = h ^ (corner[..., 0] * primes[0])\n"
                    "    return h & 0xFFFF\n",
                    "import torch\n"
                    "def hash_corner(corner, primes):\n"
                    "    h = torch.zeros_like(corner[..., 0])\n"
                    "    h = _trt_bitwise_xor(h, corner[..., 0] * primes[0])\n"
                    "    return _trt_bitwise_and(h, 0xFFFF)\n"),
            Example("import torch\ncode = ids.long().bitwise_or(flags << 8)\n",
                    "import torch\ncode = _trt_bitwise_or(ids.long(), flags << 8)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.bitwise_xor.html",
            "https://onnx.ai/onnx/operators/onnx__BitwiseXor.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
            "https://github.com/nerfstudio-project/nerfstudio/blob/v1.1.5/nerfstudio/field_components/encodings.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._evidence: TensorEvidence = self.provider(TensorEvidence)
        #: Operations already rewritten as part of an outer one (a chain).
        self._inner: set[int] = set()
        #: (function, parameter) -> whether every call of the file passes a tensor there.
        self._called: dict[tuple[int, str], bool] = {}

    # --- the function and method forms ---------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, tuple(FUNCTIONS))
        if found is None:
            return
        name, tensor, first = found
        if has_star_args(node) or tensor is None:
            return
        allowed = {"input", "other"} if first == 1 else {"other"}
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args if arg.keyword is None]
        if keywords - allowed or len(positional) > first + 1:
            return  # `out=`, or more arguments than torch takes: the call raises as written
        other = argument(node, first, "other")
        if other is None:
            return
        if first == 0 and self._boolean(tensor.value, _DEPTH):
            return  # `mask.bitwise_and(other)` of a bool tensor: ONNX And
        helper = FUNCTIONS[name]
        self._report(node, name, helper_call(helper, as_argument(tensor.value), as_argument(other.value)), helper)

    # --- the operators ------------------------------------------------------------------------------------
    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if id(node) in self._inner or type(node.operator) not in OPERATORS or in_inserted_helper(self):
            return
        if not self._taken(node):
            return
        helper = OPERATORS[type(node.operator)]
        name = {cst.BitXor: "^", cst.BitAnd: "&", cst.BitOr: "|"}[type(node.operator)]
        self._report(node, f"`{name}`", self._rewritten(node), helper)

    def _taken(self, node: cst.BinaryOperation) -> bool:
        """An operator of this rule whose operands the code shows include a tensor and no bool tensor."""
        sides = (strip_parens(node.left), strip_parens(node.right))
        if any(self._boolean(side, _DEPTH) for side in sides):
            return False
        return any(self._tensor(side, _DEPTH) or self._chained(side) for side in sides)

    def _chained(self, expr: cst.BaseExpression) -> bool:
        return type(expr) is cst.BinaryOperation and type(expr.operator) in OPERATORS and self._taken(expr)

    def _rewritten(self, node: cst.BinaryOperation) -> cst.Call:
        """The helper call for ``node``, the operations of this rule chained into its operands rewritten too."""
        values = []
        for side in (node.left, node.right):
            inner = strip_parens(side)
            if self._chained(inner):
                self._inner.add(id(inner))
                values.append(self._rewritten(inner))  # type: ignore[arg-type]
            else:
                values.append(as_argument(side))
        return helper_call(OPERATORS[type(node.operator)], *values)

    def _report(self, node: cst.CSTNode, name: str, call: cst.Call, helper: str) -> None:
        helpers = tuple(sorted({helper, *_helpers_in(call)}))
        self.report(node, f"{name} of integer tensors has no ONNX operator the TorchScript exporter writes, and "
                    f"TensorRT parses no Bitwise operator; `{helper}` computes the same integers with arithmetic "
                    "while exporting", Fix({node: call}, helpers=helpers))

    # --- evidence ------------------------------------------------------------------------------------------
    def _tensor(self, expr: cst.BaseExpression, depth: int) -> bool:
        """The code shows ``expr`` is a tensor, and not a size (``x.size(0)``, ``x.shape[1] - 1``)."""
        expr = strip_parens(expr)
        if depth <= 0 or self._size(expr, depth):
            return False
        if type(expr) is cst.BinaryOperation:
            return self._tensor(expr.left, depth - 1) or self._tensor(expr.right, depth - 1)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is not cst.Not:
            return self._tensor(expr.expression, depth - 1)
        if self._evidence.evident(expr):
            return True
        if type(expr) is cst.Subscript:
            # `table[idx]` with a tensor index (a lookup table read by a tensor: PTv3's `EX[x & mask]`).
            return self._tensor(expr.value, depth - 1) or any(
                type(element.slice) is cst.Index and self._tensor(element.slice.value, depth - 1)
                for element in expr.slice)
        if type(expr) is cst.Name and self._unpacked_tensor(expr, depth):
            return True
        if type(expr) is cst.Name:
            # `h = torch.zeros_like(c)`, then `h = h ^ (c * p)`: a tensor combined with itself stays one.
            values = self._evidence.bindings().get(expr.value) or []
            if not values or any(v is None for v in values):
                return False
            combined = [v for v in values if _combines(v, expr.value)]
            others = [v for v in values if not _combines(v, expr.value)]
            return bool(combined) and bool(others) and all(self._tensor(v, depth - 1) for v in others)
        return False

    def _unpacked_tensor(self, name: cst.Name, depth: int) -> bool:
        """Every binding of ``name`` in the function is a tensor: an annotated tensor parameter, an element of a
        tuple of tensors unpacked into it (``x, y, z = x.long(), y.long(), z.long()``), or a value that is one;
        or ``name`` is a parameter of a function of this file that every call in the file passes a tensor."""
        func = self.context.function
        if func is None:
            return False
        values: list[cst.BaseExpression | None] = []
        for node in walk(func.body):
            if type(node) is cst.Assign:
                for target in node.targets:
                    values.extend(_assigned(target.target, node.value, name.value))
            elif type(node) in (cst.AugAssign, cst.For, cst.With, cst.NamedExpr) and \
                    name.value in _targets_of(node):
                return False
        parameter = name.value in {p.name.value for p in (*func.params.posonly_params, *func.params.params,
                                                          *func.params.kwonly_params)}
        if parameter and not (tensor_parameter(func, name.value, False) or self._called_with_tensor(func, name.value)):
            return False
        anchored = parameter
        for value in values:
            if value is None:
                return False
            if _refines_name(value, name.value) or _combines(value, name.value):
                continue  # `key = key & mask`, `x = x.long()`: what it was stays what it is
            if not self._tensor(value, depth - 1):
                return False
            anchored = True
        return anchored

    def _called_with_tensor(self, func: cst.FunctionDef, parameter: str) -> bool:
        """``func`` is a module-level function of this file, called at least once, and every call passes a tensor
        the calling function shows for ``parameter`` (DevCielo's `_hash(offs, mask)`, `offs = torch.stack(...)`)."""
        if self.context.classes or len(self.context.functions) != 1:
            return False
        key = (id(func), parameter)
        if key not in self._called:
            self._called[key] = self._every_call_passes_tensor(func, parameter)
        return self._called[key]

    def _every_call_passes_tensor(self, func: cst.FunctionDef, parameter: str) -> bool:
        params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        if parameter not in params:
            return False
        position = params.index(parameter)
        found = 0
        for caller in walk(self.context.module):
            if type(caller) is not cst.FunctionDef or caller is func:
                continue
            bindings = None
            for call in walk(caller.body):
                if type(call) is not cst.Call or type(call.func) is not cst.Name or call.func.value != func.name.value:
                    continue
                given = argument(call, position, parameter)
                if given is None:
                    return False
                if bindings is None:
                    bindings = scope_bindings(caller)
                def sole_value(n: cst.Name, bindings=bindings):
                    values = bindings.get(n.value)
                    return values[0] if values and len(values) == 1 else None
                def tensor_name(n: cst.Name, caller=caller):
                    return tensor_parameter(caller, n.value, caller.name.value == "forward")
                if not evident_tensor(given.value, self.context.qualified_names, sole_value, tensor_name):
                    return False
                found += 1
        return found > 0

    def _size(self, expr: cst.BaseExpression, depth: int) -> bool:
        """A Python number read off a tensor: ``x.size(0)``, ``x.shape[-1]``, ``x.numel()``, ``len(x)``, a name
        assigned one once, arithmetic on those and numbers."""
        expr = strip_parens(expr)
        if depth <= 0:
            return False
        if type(expr) is cst.Call:
            parts = method_call(expr)
            if parts is not None and parts[1] in STATIC_METHODS:
                return True
            return type(expr.func) is cst.Name and expr.func.value == "len"
        if type(expr) is cst.Subscript:
            return self._size(expr.value, depth - 1) or (
                type(expr.value) is cst.Attribute and expr.value.attr.value in _SIZE_ATTRIBUTES)
        if type(expr) is cst.Attribute:
            return expr.attr.value in _SIZE_ATTRIBUTES
        if type(expr) is cst.BinaryOperation:
            sides = (strip_parens(expr.left), strip_parens(expr.right))
            return any(self._size(s, depth - 1) for s in sides) and all(
                self._size(s, depth - 1) or type(s) in (cst.Integer, cst.Float) for s in sides)
        if type(expr) is cst.Name:
            values = self._evidence.bindings().get(expr.value) or []
            return len(values) == 1 and values[0] is not None and self._size(values[0], depth - 1)
        return False

    def _boolean(self, expr: cst.BaseExpression, depth: int) -> bool:
        """The code shows ``expr`` is a bool tensor (or a bool): a comparison, ``not``, a bool-valued method or
        torch function, ``dtype=torch.bool``, ``&``/``|``/``^``/``~`` of such, a local name assigned one once."""
        expr = strip_parens(expr)
        if depth <= 0:
            return False
        if type(expr) is cst.Comparison or type(expr) is cst.Name and expr.value in ("True", "False"):
            return True
        if type(expr) is cst.UnaryOperation:
            return type(expr.operator) is cst.Not or type(expr.operator) is cst.BitInvert and \
                self._boolean(expr.expression, depth - 1)
        if type(expr) is cst.BinaryOperation and type(expr.operator) in OPERATORS:
            return self._boolean(expr.left, depth - 1) or self._boolean(expr.right, depth - 1)
        if type(expr) is cst.Call:
            if type(expr.func) is cst.Name and expr.func.value in _BOOL_HELPERS:
                return True
            dtype = argument(expr, None, "dtype")
            if dtype is not None and "torch.bool" in self.context.qualified_names(dtype.value):
                return True
            if any(name.startswith("torch.") and name.rsplit(".", 1)[-1] in _BOOL_METHODS
                   for name in self.context.qualified_names(expr.func)):
                return True
            parts = method_call(expr)
            if parts is not None and not self.context.qualified_names(expr.func):
                if parts[1] in _BOOL_METHODS:
                    return True
                if parts[1] == "to" and expr.args and "torch.bool" in self.context.qualified_names(expr.args[0].value):
                    return True
            return False
        if type(expr) is cst.Name:
            values = self._evidence.bindings().get(expr.value) or []
            return len(values) == 1 and values[0] is not None and self._boolean(values[0], depth - 1)
        return False


def _combines(value: cst.BaseExpression, name: str, depth: int = 4) -> bool:
    """``name ^ x``, ``name ^ x ^ y`` (binary operations with ``name`` as an operand): what ``name`` was stays."""
    value = strip_parens(value)
    if depth <= 0 or type(value) is not cst.BinaryOperation:
        return False
    for side in (strip_parens(value.left), strip_parens(value.right)):
        if type(side) is cst.Name and side.value == name or _combines(side, name, depth - 1):
            return True
    return False


def _assigned(target: cst.BaseExpression, value: cst.BaseExpression, name: str) -> list[cst.BaseExpression | None]:
    """The values ``target = value`` binds to ``name``: the value itself, the matching element of a tuple unpacked
    into a tuple of the same length, or None where the element is not known (a call's result unpacked)."""
    if type(target) is cst.Name:
        return [value] if target.value == name else []
    if type(target) in (cst.Tuple, cst.List):
        elements = [e.value for e in target.elements]  # type: ignore[attr-defined]
        if name not in bound_names(target):
            return []
        inner = strip_parens(value)
        if type(inner) in (cst.Tuple, cst.List) and len(inner.elements) == len(elements) and \
                not any(type(e) is cst.StarredElement for e in (*target.elements, *inner.elements)):  # type: ignore
            found: list[cst.BaseExpression | None] = []
            for element, given in zip(elements, inner.elements):  # type: ignore[attr-defined]
                found.extend(_assigned(element, given.value, name))
            return found
        return [None]
    return []


def _targets_of(node: cst.CSTNode) -> list[str]:
    if type(node) is cst.AugAssign:
        return bound_names(node.target)
    if type(node) is cst.For:
        return bound_names(node.target)
    if type(node) is cst.NamedExpr:
        return bound_names(node.target)
    if type(node) is cst.With:
        return [n for item in node.items if item.asname is not None for n in bound_names(item.asname.name)]
    return []


def _refines_name(value: cst.BaseExpression, name: str) -> bool:
    """``name.long()``, ``name[...]``: the tensor stays a tensor."""
    value = strip_parens(value)
    while True:
        if type(value) is cst.Subscript:
            value = value.value
        elif type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value not in STATIC_METHODS:
            value = value.func.value
        else:
            break
    return type(value) is cst.Name and value.value == name


def _helpers_in(call: cst.Call) -> set[str]:
    """The helpers a (chained) rewrite calls."""
    found = {call.func.value} if type(call.func) is cst.Name else set()  # type: ignore[union-attr]
    for arg in call.args:
        if type(arg.value) is cst.Call and type(arg.value.func) is cst.Name and \
                arg.value.func.value in OPERATORS.values():
            found |= _helpers_in(arg.value)
    return found


RULES = (IntegerBitwise,)
