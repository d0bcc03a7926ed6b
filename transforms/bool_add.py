"""A sum of boolean tensors (``(x < l) + (x > r)``), which the TorchScript exporter writes as an Add of bools (TRT352)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from trtcodemod.astutil import bound_names, method_call, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._tensor_evidence import TensorEvidence

#: Comparison operators whose result is a bool tensor when an operand is a tensor (``is``/``in`` are Python's).
_COMPARISONS = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)

#: torch functions whose result is a bool tensor.
_BOOL_FUNCTIONS = frozenset({
    "torch.lt", "torch.gt", "torch.le", "torch.ge", "torch.eq", "torch.ne", "torch.less", "torch.greater",
    "torch.less_equal", "torch.greater_equal", "torch.not_equal", "torch.logical_and", "torch.logical_or",
    "torch.logical_not", "torch.logical_xor", "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf",
    "torch.isneginf", "torch.isclose", "torch.isin", "torch.signbit",
})

#: Tensor methods whose result is a bool tensor (methods NumPy arrays lack, or whose result is bool there too).
_BOOL_METHODS = frozenset({
    "bool", "lt", "gt", "le", "ge", "eq", "ne", "less", "greater", "less_equal", "greater_equal", "not_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isposinf",
    "isneginf", "isclose", "signbit", "any", "all",
})

#: Tensor methods whose result has the receiver's dtype (a view, a copy or a rearrangement of it): of a
#: bool tensor, a bool tensor (``pos.eq(k).unsqueeze(2)``).
_SAME_DTYPE_METHODS = frozenset({
    "unsqueeze", "squeeze", "view", "reshape", "expand", "expand_as", "permute", "transpose", "flatten",
    "unflatten", "contiguous", "clone", "detach", "repeat", "t", "flip", "roll", "narrow", "view_as",
    "reshape_as", "movedim", "tile", "masked_fill", "masked_fill_",
})

#: Expanding methods: of a bool tensor, a bool tensor whose elements may share memory.
_SHARING_METHODS = frozenset({"expand", "expand_as"})

#: torch functions that make a tensor of the ``dtype=`` they are given (a bool one with ``dtype=torch.bool``).
_BOOL_CREATION = frozenset({
    "torch.eye", "torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.zeros_like", "torch.ones_like",
    "torch.full_like", "torch.empty_like", "torch.tensor", "torch.as_tensor",
})

#: Functions whose result has their first argument's dtype (of a bool tensor, a bool tensor): torch's
#: rearrangements and einops' (egnn-pytorch's ``rearrange(torch.eye(n, dtype=torch.bool), 'i j -> () i j')``).
_SAME_DTYPE_FUNCTIONS = frozenset({
    "torch.unsqueeze", "torch.squeeze", "torch.flatten", "torch.reshape", "torch.transpose", "torch.permute",
    "torch.flip", "torch.roll", "torch.tril", "torch.triu", "torch.clone", "torch.broadcast_to",
    "einops.rearrange", "einops.repeat",
})

#: ... of which those whose result's elements may share memory (``einops.repeat`` expands a new axis).
_SHARING_FUNCTIONS = frozenset({"torch.broadcast_to", "einops.repeat"})

#: Nodes below which a name belongs to another scope (or to a comprehension's own).
_OTHER_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                 cst.GeneratorExp)

#: Operators that bind tighter than ``|`` and may take an unparenthesized ``a + b`` as their left operand
#: (``a + b - c``, ``a + b << c``, ``a + b & c``): there the rewritten ``a | b`` needs parentheses.
_TIGHTER = (cst.Add, cst.Subtract, cst.LeftShift, cst.RightShift, cst.BitAnd, cst.BitXor)


#: Tensor methods whose result is a Python number (or list), not a tensor.
_NUMBER_METHODS = frozenset({"size", "dim", "numel", "item", "tolist", "nelement", "ndimension", "element_size",
                             "get_device", "stride", "storage_offset", "is_contiguous", "is_floating_point"})

#: Arithmetic whose result is a tensor when an operand is one.
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
               cst.MatrixMultiply)


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether anything in ``node`` (a statement) may bind ``name`` in its scope."""
    for inner in walk(node):
        kind = type(inner)
        if kind is cst.Assign:
            targets = [t.target for t in inner.targets]
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor):
            targets = [inner.target]
        elif kind is cst.WithItem:
            targets = [inner.asname.name] if inner.asname is not None else []
        elif kind in (cst.FunctionDef, cst.ClassDef):
            targets = [inner.name]
        elif kind is cst.Del:
            targets = [inner.target]
        elif kind in (cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom, cst.ExceptHandler, cst.MatchAs):
            return True  # rare around a mask: not followed
        else:
            continue
        if any(type(t) is cst.Name and t.value == name or name in bound_names(t) for t in targets):
            return True
    return False


def _sole_assignment(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value ``statement`` (a simple statement line) last assigns to ``name`` alone (``name = value``),
    or None for any other binding of it there."""
    if type(statement) is not cst.SimpleStatementLine:
        return None
    for small in reversed(statement.body):
        if not _binds(small, name):
            continue
        if (type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name
                and not any(type(n) is cst.NamedExpr for n in walk(small.value))):
            return small.value
        return None
    return None


class BoolTensors:
    """What the code shows of a tensor's being one, and a bool one, for a rule that reads
    :class:`TensorEvidence` (BoolAdd's TRT352, TRT380's ``masked_fill`` with a Python bool)."""

    #: The rule's (:class:`~trtcodemod.rules.Rule` supplies it, and ``provider``).
    context: Any

    def _parents(self, scope: cst.CSTNode) -> dict[int, cst.CSTNode]:
        """id(node) → its parent, for every node of ``scope`` (built once per function)."""
        maps = self.__dict__.setdefault("_parent_maps", {})
        found = maps.get(id(scope))
        if found is None:
            found = maps[id(scope)] = {}
            for node in walk(scope):
                for child in node.children:
                    found[id(child)] = node
        return found

    def _reaching(self, use: cst.Name) -> cst.BaseExpression | None:
        """The value of the assignment ``name = value`` that every path to ``use`` last runs, where the
        code shows one: the nearest earlier statement of an enclosing block that binds the name, if it is
        that plain assignment. None where a loop around ``use`` or a ``try`` it is handled in rebinds it."""
        scope = self.context.function or self.context.module
        parents = self._parents(scope)
        name, node = use.value, use
        while node is not scope:
            parent = parents.get(id(node))
            if parent is None or isinstance(parent, _OTHER_SCOPES) and parent is not scope:
                return None
            if type(parent) in (cst.For, cst.While, cst.Try, cst.TryStar) and _binds(parent, name):
                return None  # a later pass, or the part of the `try` that ran, may have rebound it
            if type(parent) in (cst.IndentedBlock, cst.SimpleStatementLine, cst.Module):
                statements = list(parent.body)
                index = next((i for i, s in enumerate(statements) if s is node), None)
                for statement in reversed(statements[:index] if index is not None else ()):
                    if _binds(statement, name):
                        if type(parent) is cst.SimpleStatementLine:
                            return _sole_assignment(parent.with_changes(body=[statement]), name)
                        return _sole_assignment(statement, name)
            node = parent
        return None

    def _tensor(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Does the code show that ``expr`` is a tensor (an index into one, or arithmetic with one, too)?"""
        if depth > 8:
            return False
        if type(expr) is cst.Subscript:
            return self._tensor(expr.value, depth + 1)
        if type(expr) is cst.BinaryOperation and isinstance(expr.operator, _ARITHMETIC):
            return self._tensor(expr.left, depth + 1) or self._tensor(expr.right, depth + 1)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._tensor(expr.expression, depth + 1)
        parts = method_call(expr) if type(expr) is cst.Call else None
        if parts is not None and parts[1] in _NUMBER_METHODS:
            return False  # `x.size(0)` shows that `x` is a tensor, but is a number itself
        if self.provider(TensorEvidence).evident(expr):
            return True
        if type(expr) is cst.Name:  # assigned more than once: the assignment that reaches this use
            value = self._reaching(expr)
            return value is not None and self._tensor(value, depth + 1)
        return False

    def _bool(self, expr: cst.BaseExpression, depth: int = 0, fresh: bool = False) -> bool:
        """Does the code show that ``expr`` is a bool tensor? ``fresh``: and one no two elements of which share
        memory (no ``expand`` of one, which an in-place write refuses)."""
        if depth > 8:
            return False
        kind = type(expr)
        if kind is cst.Comparison:
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, _COMPARISONS):
                return False
            sides = (expr.left, expr.comparisons[0].comparator)
            if any(type(s) is cst.Name and s.value == "None" for s in sides):
                return False
            return any(self._tensor(s) or self._bool(s, depth + 1) for s in sides)
        if kind is cst.UnaryOperation:
            return type(expr.operator) is cst.BitInvert and self._bool(expr.expression, depth + 1)
        if kind is cst.BinaryOperation:
            if isinstance(expr.operator, (cst.BitOr, cst.BitAnd, cst.BitXor, cst.Add)):
                return self._bool(expr.left, depth + 1) and self._bool(expr.right, depth + 1)
            return False
        if kind is cst.Subscript:  # an index into a bool tensor keeps its dtype
            return self._bool(expr.value, depth + 1, fresh)
        if kind is cst.Call:
            names = self.context.qualified_names(expr.func)
            if names:
                if any(n in _BOOL_FUNCTIONS for n in names):
                    return True
                if any(n in _BOOL_CREATION for n in names):
                    dtype = [a.value for a in expr.args if a.keyword is not None and a.keyword.value == "dtype"]
                    if dtype:
                        return self._bool_dtype(dtype[0])
                    # `torch.full(size, False)`: the dtype follows a Python bool fill value
                    fill = [a.value for i, a in enumerate(expr.args) if a.keyword is None and i == 1
                            or a.keyword is not None and a.keyword.value == "fill_value"]
                    return (any(n in ("torch.full", "torch.full_like") for n in names) and len(fill) == 1
                            and type(fill[0]) is cst.Name and fill[0].value in ("True", "False"))
                same = [n for n in names if n in _SAME_DTYPE_FUNCTIONS]
                if same and expr.args and expr.args[0].keyword is None and not expr.args[0].star:
                    if fresh and any(n in _SHARING_FUNCTIONS for n in same):
                        return False
                    return self._bool(expr.args[0].value, depth + 1, fresh)
                return False
            parts = method_call(expr)
            if parts is None:
                return False
            if parts[1] in _SAME_DTYPE_METHODS:
                return not (fresh and parts[1] in _SHARING_METHODS) and self._bool(parts[0], depth + 1, fresh)
            if parts[1] in ("to", "type") and any(self._bool_dtype(a.value) for a in expr.args
                                                  if a.keyword is None or a.keyword.value == "dtype"):
                return self._tensor(parts[0]) or self._bool(parts[0], depth + 1)
            return parts[1] in _BOOL_METHODS and self._tensor(parts[0])
        if kind is cst.Name:
            values = self.provider(TensorEvidence).bindings().get(expr.value)
            if bool(values) and all(v is not None and v is not expr and self._bool(v, depth + 1, fresh)
                                    for v in values):
                return True
            value = self._reaching(expr)  # assigned otherwise too: the assignment that reaches this use
            return value is not None and self._bool(value, depth + 1, fresh)
        return False

    def _bool_dtype(self, expr: cst.BaseExpression) -> bool:
        """Is ``expr`` ``torch.bool`` (however torch was imported)?"""
        return "torch.bool" in self.context.qualified_names(expr)


class BoolAdd(BoolTensors, Rule):
    needs_text = (b"+",)
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT352",
        name="bool-add",
        summary="`(x < l) + (x > r)`: a sum of boolean tensors (torch's logical or) exports as an ONNX Add of bools, "
                "which ONNX Runtime and TensorRT refuse; write the or as `|`",
        doc="""\
What it finds: `a + b` where both operands are boolean tensors by what the code shows: a
comparison (`<`, `>`, `<=`, `>=`, `==`, `!=`) with a tensor on one side (a single comparison,
not a chain, and no `None` operand), a torch function or tensor method that returns bools
(`torch.isnan`, `x.logical_not()`, `x.bool()`, `x.gt(v)`...), `~`, `|`, `&` or `^` of such
operands, an index, a view or a rearrangement of one (`pos.eq(k).unsqueeze(2)`, `m[:, 0]`,
`m.view(-1)`: the dtype stays), another such sum, or a local name every assignment of which is
one of these, or whose assignment that reaches the sum is (the nearest earlier `name = value` on
every path to it, no loop or `try` around that rebinds it: TraDeS's running
`mask = (hm_score < thresh)`, later `mask = (hm_kps[..., 0:1] < l) + ... + mask`, the name a
float mask before). A chain is taken whole. CenterNet's keypoint decoding (`multi_pose_decode`) marks the
keypoints to drop that way:
```
mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) + \\
       (hm_kps[..., 1:2] < t) + (hm_kps[..., 1:2] > b) + \\
       (hm_score < thresh) + (min_dist > (torch.max(b - t, r - l) * 0.3))
mask = (mask > 0).float()
```
Not reported: a sum where an operand may be a number, a Python bool or a tensor of another
type (`True + True` is 2 in Python, and a bool tensor plus an int tensor counts), and
`mask += cond` (an in-place sum: not rewritten).

Why it hurts: torch adds two bool tensors as a logical or (the result is bool, `True + True`
is `True`). The TorchScript exporter writes the operator as it reads: an ONNX `Add` whose inputs
are bool, which the ONNX standard does not allow: ONNX Runtime refuses to load the graph
("Type 'tensor(bool)' of input parameter ... of operator (Add) ... is invalid"), and TensorRT's
parser has no bool sum either. (`*` of two bool tensors is safe: the exporter writes it as
`And`.)

What the fix does: `a + b` → `a | b` (a chain `a + b + c` → `a | b | c`), in parentheses
where an operator that binds tighter than `|` takes the sum as its left operand
(`a + b - c`). The exporter writes `|` as ONNX `Or`, which TensorRT parses.

Fix safety: safe. For two bool tensors `+` and `|` are the same operation in torch (logical
or, result bool, shapes broadcast the same way, the same errors for shapes that do not), in
eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`; bools carry no
gradient. The fix is made only where both operands are shown to be bool tensors. TensorRT
versions: all.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "import torch\n\n"
                "def outside(heat, l, r):\n"
                "    kps = heat.sigmoid()\n"
                "    mask = (kps < l) + (kps > r)\n"
                "    return (mask > 0).float()\n",
                "import torch\n\n"
                "def outside(heat, l, r):\n"
                "    kps = heat.sigmoid()\n"
                "    mask = (kps < l) | (kps > r)\n"
                "    return (mask > 0).float()\n",
            ),
            Example(
                "import torch\n\n"
                "def invalid(x, y):\n"
                "    return torch.isnan(x) + (y.abs() > 1) + torch.isinf(x)\n",
                "import torch\n\n"
                "def invalid(x, y):\n"
                "    return torch.isnan(x) | (y.abs() > 1) | torch.isinf(x)\n",
            ),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Add.html",
            "https://pytorch.org/docs/stable/generated/torch.add.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._covered: set[int] = set()
        self._tight: set[int] = set()

    def _or(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The chain with each ``+`` of it written as ``|`` (parentheses kept)."""
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.Add:
            operator = cst.BitOr(whitespace_before=node.operator.whitespace_before,
                                 whitespace_after=node.operator.whitespace_after)
            return node.with_changes(left=self._or(node.left), operator=operator, right=self._or(node.right))
        return node

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _TIGHTER) and type(node.left) is cst.BinaryOperation and not node.left.lpar:
            self._tight.add(id(node.left))
        if type(node.operator) is not cst.Add or id(node) in self._covered or in_inserted_helper(self):
            return
        if not (self._bool(node.left) and self._bool(node.right)):
            return
        for inner in (node.left, node.right):  # the rest of the chain is rewritten with it
            stack = [inner]
            while stack:
                part = stack.pop()
                if type(part) is cst.BinaryOperation and type(part.operator) is cst.Add:
                    self._covered.add(id(part))
                    stack.extend((part.left, part.right))
        replacement = self._or(node)
        if id(node) in self._tight:
            replacement = replacement.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.report(node, "a sum of bool tensors is torch's logical or, but the TorchScript exporter writes an ONNX "
                          "Add of bools, which ONNX Runtime and TensorRT refuse; `|` is the same or and exports as Or",
                    Fix({node: replacement}, safety=Safety.SAFE))


RULES = (BoolAdd,)
