"""What is a tensor, a size of one, or a value read from one (shared by TRT711–TRT715).

:class:`SizeRule` is the base of the rules in ``baked_shapes`` (TRT711–TRT713) and
``value_shapes`` (TRT714, TRT715). It follows, per function, which local names hold

- tensors: a parameter annotated ``Tensor``, an unannotated parameter of a module's
  ``forward`` without a literal default, or a local assigned from a torch call, a tensor
  method, indexing or arithmetic on one of those (as TRT702 decides); with facts, also a
  name a recorded run saw holding a tensor at its line (``output`` in a helper's
  ``output.size(2)``, :meth:`~trtcodemod.providers.ObservedFacts.is_tensor`);
- sizes: ``t.shape[i]``, ``t.size(i)``, ``t.numel()``, ``torch.numel(t)``, ``len(t)`` of such a
  tensor, the count of a shape (``t.shape[1:].numel()``, TRT346's ``_trt_size_numel(t.shape[1:])``),
  and locals assigned from them (``h, w = x.shape[2:]``, ``b, c, h, w = x.size()``),
  or indexing a local bound to a whole shape (``s = x.shape[2:]`` then ``s[1]``),
  and names bound to one size each turn of a loop or comprehension over a shape (``for s in
  x.shape[2:]``, ``[s // 2 for s in x.size()]``, ``for i, s in enumerate(shape)``, ``for s, f in
  zip(x.shape[2:], factors)``, also through ``reversed``/``list``/``tuple``: :meth:`SizeRule.iterated_sizes`),
  and arithmetic on sizes with non-tensors (``w - 1``, ``h * scale``);
- 0-d values computed from tensor data: reductions without a dim (``m.sum()``,
  ``torch.count_nonzero(m)``), their ``.long()``/``.clamp()``, arithmetic on them;
- tensors whose size depends on the data (``x[mask]``, ``nonzero``, ``unique``);
- "loose" sizes: ``o.size(i)``/``o.shape[i]`` of a local ``o`` not shown to be a tensor, and
  names bound to them; a rule counts them only where :meth:`SizeRule.traced_at` says the
  observed export warned at the line (``--facts``, or inside ``migrate``).

``a, b = p, q`` binds each name from its own value.

A name rebound to anything else is forgotten. Where the rules look is
:mod:`trtcodemod.transforms._runtime_scope`'s ``runtime`` scope. This module defines no
rule and is not registered.
"""


from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import libcst as cst

from trtcodemod.astutil import bound_names, has_star_args, int_value, mentions_name, method_call, walk
from trtcodemod.providers import ObservedFacts, Provider
from trtcodemod.rules import Fix
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms._tensor_evidence import STATIC_METHODS as _STATIC_METHODS
from trtcodemod.transforms._tensor_evidence import tensor_expression, tensor_parameters


#: How a Python number kept as a tensor (``.item()`` dropped, ``len`` or a size read as a
#: traced value) can behave otherwise: what TRT702, TRT704 and TRT711–TRT716 assume away, and
#: ``trtcodemod explain`` lists.
NUMBER_AS_TENSOR_FAILURES = (
    "integer overflow: a Python int never overflows; an int64 tensor wraps around past 2**63 - 1 "
    "(`torch.tensor(2**62) * 4` is 0), and int32, which ONNX casts and TensorRT's shape tensors use, past "
    "2**31 - 1 (a product of sizes `n * c * h * w`, a shift `1 << 40`)",
    "operations that raise on a tensor where Python computed: `n ** -1` on an integer tensor raises (\"Integers to "
    "negative integer powers are not allowed\") where Python gives a float; a tensor with more than one element "
    "in `math.*`, `range(t)` or a list index",
    "and the other way round: where Python raised (`1 / 0`, `math.log(0)`, `math.sqrt(-1)`), a tensor gives inf, "
    "-inf or NaN and the code goes on",
    "dtype promotion: `/` of integers gives a float in Python and torch alike, but float32 (torch's default) where "
    "Python computes a double, and so does an integer tensor mixed with a Python float (`n * 0.5`, `n // 2.0`): "
    "with a power of two, equal only while the value fits float32's 24-bit mantissa (16777217 becomes 16777216); "
    "with any other factor the quotient rounds otherwise at small sizes too, and a floor or `int` after it gives "
    "a size one smaller (`int(h / 1.2)` is 15 in Python and 14 in float32 at h = 18, and so at 30 and 36: about "
    "one size in 15); a float32 value that `.item()` made a double stays float32",
    "a 0-d tensor where a number was: `isinstance(n, int)`, f-strings and dict keys (a tensor hashes by identity, "
    "not by value) see something else",
)

TS_PITFALLS = "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"
TRT_SHAPE_TENSORS = (
    "https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/work-with-dynamic-shapes.html"
)
OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"

#: Reductions whose result (without a dim) is a 0-d tensor holding a count or a value.
_REDUCTIONS = frozenset({"sum", "max", "min", "amax", "amin", "count_nonzero", "argmax", "argmin", "prod"})
_TORCH_REDUCTIONS = frozenset(f"torch.{name}" for name in _REDUCTIONS)
#: Methods that keep a 0-d value a 0-d value.
_VALUE_KEEPING = frozenset({"long", "int", "short", "to", "clamp", "clamp_min", "clamp_max", "cpu", "cuda",
                            "detach", "squeeze", "type_as", "float", "double"})
#: Reductions that count or add up elements (over an axis: counts per group).
_COUNTING = frozenset({"sum", "count_nonzero", "cumsum"})
_COUNTING_TORCH = frozenset(f"torch.{name}" for name in _COUNTING)
#: Operations whose output size depends on the data.
_DATA_DEPENDENT_TORCH = frozenset({"torch.nonzero", "torch.masked_select", "torch.argwhere", "torch.unique",
                                   "torch.unique_consecutive"})
_DATA_DEPENDENT_METHODS = frozenset({"nonzero", "masked_select", "argwhere", "unique", "unique_consecutive"})
#: Operators that keep integers integers (``/`` gives a float, ``**`` may).
#: Operators that keep integers integers (``%`` of a size by a positive number is the ONNX ``Mod``
#: TensorRT takes, with Python's sign rule in both).
INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
#: What rounds a number to an integer: ``round`` of one argument, ``int``, ``math.ceil``/``floor``/``trunc``,
#: and TRT712's helpers that keep them traced.
_ROUNDING_BUILTINS = frozenset({"int", "round"})
_ROUNDING_MATH = frozenset({"math.ceil", "math.floor", "math.trunc"})
_ROUNDING_HELPERS = frozenset({"_trt_size_int", "_trt_size_round", "_trt_size_ceil", "_trt_size_floor"})
_FACTORY_MATH = frozenset({"ceil", "floor", "trunc", "sqrt", "log", "log2", "log10", "exp", "pow", "prod",
                           "isqrt", "gcd", "lcm", "fabs", "copysign", "fmod", "hypot", "dist", "comb", "perm"})


@dataclass
class _Frame:
    tensors: set[str] = field(default_factory=set)
    #: Size names → True when the size is a count (``numel``, or of a data-dependent tensor).
    sizes: dict[str, bool] = field(default_factory=dict)
    #: Names holding arithmetic on sizes (``n = x.shape[1] - 1``).
    derived: set[str] = field(default_factory=set)
    #: Names holding 0-d values computed from tensor data (``n = mask.sum()``).
    values: set[str] = field(default_factory=set)
    #: Those values' expressions, while no name the expression reads has been rebound or written
    #: through (``m = ...``, ``m[i] = ...``, ``m += ...``) since: what the name still stands for.
    sources: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: Tensors whose size depends on the data (``keep = x[score > t]``).
    dynamic: set[str] = field(default_factory=set)
    #: Boolean masks (comparisons of tensors).
    masks: set[str] = field(default_factory=set)
    #: Counts per group (``c = m.sum(dim=1)``, ``torch.bincount(i)``): integers, not 0/1.
    counts: set[str] = field(default_factory=set)
    #: Names holding ``o.size(i)`` / ``o.shape[i]`` of an ``o`` not shown to be a tensor: a size
    #: only where observed facts say a traced tensor met Python there (see ``traced_at``).
    loose: set[str] = field(default_factory=set)
    #: Parameters every recorded call passed a ``torch.Size`` (``image.shape[2:]`` handed to a grid builder),
    #: not rebound since: their items are loose sizes (see ``loose``).
    loose_shapes: set[str] = field(default_factory=set)
    #: Parameters annotated ``int`` (``max_det: int``), not rebound since: Python ints.
    ints: set[str] = field(default_factory=set)
    #: Names bound to a whole shape (``image_shape = x.shape[2:]``) → its sizes are counts.
    shapes: dict[str, bool] = field(default_factory=dict)
    #: Names holding a Python decision on sizes (``odd = h % 2 == 1 or w % 2 == 1``).
    decisions: set[str] = field(default_factory=set)

    def written(self, name: str) -> None:
        """``name`` was rebound or written through: values read from it no longer stand for it."""
        for holder in [h for h, source in self.sources.items() if mentions_name(source, name)]:
            del self.sources[holder]

    def forget(self, name: str) -> None:
        self.shapes.pop(name, None)
        self.ints.discard(name)
        self.tensors.discard(name)
        self.sizes.pop(name, None)
        self.derived.discard(name)
        self.values.discard(name)
        self.sources.pop(name, None)
        self.dynamic.discard(name)
        self.masks.discard(name)
        self.counts.discard(name)
        self.loose.discard(name)
        self.loose_shapes.discard(name)
        self.decisions.discard(name)


class SizeFacts(Provider):
    """The provider behind :class:`SizeRule`: one stack of per-function frames per file.

    The size rules of a file share it; the first rule the traversal calls for a node updates
    it and the others see the result (the analysis is the same for all of them).
    """

    def __init__(self, context) -> None:
        super().__init__(context)
        self.frames: list[_Frame] = []
        #: (node id, hook) last handled: the hooks of one node run back to back.
        self.last: tuple[int, str] | None = None
        #: Comprehension (node id) → its targets bound to one size of a tensor each turn → whether a count.
        self.iterated: dict[int, dict[str, bool]] = {}
        #: Comprehensions judged from outside (a rule reading a display's items at the call), innermost
        #: last: the names each binds → its targets that are sizes.
        self.judged: list[tuple[set[str], dict[str, bool]]] = []


class SizeRule(RuntimeScopeRule):
    """What is a tensor, a size of one, or a value read from one, in the function being visited."""

    scope = "runtime"
    requires = (SizeFacts, ObservedFacts)

    def __init__(self, context) -> None:
        super().__init__(context)
        shared = self.provider(SizeFacts)
        self._shared: SizeFacts = shared
        self._frames: list[_Frame] = shared.frames
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def report(self, node: cst.CSTNode, message: str, fix: Fix | None = None,
               scopes: tuple[cst.CSTNode, ...] | None = None) -> None:
        """As every rule's, except in a branch its author wrote for the trace: a size made a Python
        number there is made one on purpose (kornia's ``filter2d``: ``int(c) if torch.jit.is_tracing()
        else c``, a convolution's group count the exporter needs constant)."""
        if self.runtime.written_for_tracing(node):
            return
        super().report(node, message, fix, scopes)

    def _first(self, node: cst.CSTNode, hook: str) -> bool:
        """True for the first rule that handles ``hook`` on ``node`` (hooks of one node run back to back)."""
        key = (id(node), hook)
        if self._shared.last == key:
            return False
        self._shared.last = key
        return True

    # --- frames ------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._first(node, "visit_FunctionDef"):
            return
        frame = _Frame()
        where = self.current_method()
        is_method = where is not None and where[1] is node
        in_forward = is_method and where[0].is_module and node.name.value == "forward"  # type: ignore[index]
        frame.tensors |= tensor_parameters(self.context, node, is_method, in_forward, none_is_literal=True)
        # An unannotated forward parameter reads as a tensor; the recorded run may say it held a number.
        frame.tensors -= self._observed.number_parameters(node)
        frame.ints |= _int_parameters(node)
        # A parameter the recorded run saw holding a ``torch.Size`` only: a shape handed down by the caller.
        frame.loose_shapes |= self._observed.number_parameters(node, frozenset({"shape"}))
        self._frames.append(frame)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if self._first(original_node, "leave_FunctionDef"):
            self._frames.pop()

    def _frame(self) -> _Frame | None:
        return self._frames[-1] if self._frames else None

    def int_parameter(self, expr: cst.BaseExpression) -> bool:
        """A parameter of the current function annotated ``int`` and not rebound since."""
        frame = self._frame()
        return frame is not None and type(expr) is cst.Name and expr.value in frame.ints

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        frame = self._frame()
        if frame is None:
            return
        if value is not None and _pairwise(target, value):
            # `ny, nx = x.size(2), x.size(3)`: each name from its own value.
            pairs = [(e.value, v.value) for e, v in zip(target.elements, value.elements)]  # type: ignore[union-attr]
        else:
            pairs = [(target, value)]
        # Classify the values before the names they rebind are forgotten (`x = x[:n]`).
        kinds = [(bound_names(t), self._classify(t, v)) for t, v in pairs]
        for target, _ in pairs:
            for name in bound_names(target) or _written_through(target):
                frame.written(name)
        for names, _ in kinds:
            for name in names:
                frame.forget(name)
        for (names, kind), (_, v) in zip(kinds, pairs):
            for name in names:
                _record(frame, name, kind)
                if kind[0] == "value" and v is not None and not mentions_name(v, name):
                    frame.sources[name] = v  # `n = n.long()` reads the old `n`: no source

    def _classify(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> tuple[str | None, bool]:
        """What ``target = value`` binds: (kind, flag); the flag is "a count" for sizes and
        "data dependent" / "a mask" packed for tensors (see :func:`_record`)."""
        if value is None:
            return None, False
        if type(target) is cst.Name:
            size = self.size_of(value)
            if size is not None:
                return "size", size
            shape = self._copied_shape(value)
            if self._is_shape_tuple(shape):
                return "shape", self._is_count_tensor(self._shape_owner(shape))
            if self.size_derived(value) or self._rounded_size(value) or self._chosen_size(value):
                return "derived", False
            if self.is_value(value):
                return "value", False
            if self.size_decision(value):
                return "decision", False
            if self.is_tensor(value) or self.is_mask(value) or self._tensor_either_way(value):
                return ("tensor" + (":dynamic" if self.is_data_dependent(value) else "")
                        + (":mask" if self.is_mask(value) else "")
                        + (":counts" if self.is_counts(value) else "")), False
            if self._loose_size(value):
                return "loose", False
            return None, False
        if type(target) in (cst.Tuple, cst.List):
            if self._is_shape_tuple(value):
                return "size", self._is_count_tensor(self._shape_owner(value))
            if self._loose_owner(value) is not None or self._loose_shape(value):
                return "loose", False
        return None, False

    def _tensor_either_way(self, value: cst.BaseExpression) -> bool:
        """``a & b if self.training else a``: a tensor whichever branch runs."""
        return type(value) is cst.IfExp and all(
            self.is_tensor(branch) or self.is_mask(branch) for branch in (value.body, value.orelse))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._first(original_node, "leave_Assign"):
            return
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if not self._first(original_node, "leave_AnnAssign"):
            return
        self._bind(original_node.target, original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if not self._first(original_node, "leave_AugAssign"):
            return
        frame = self._frame()
        for name in _written_through(original_node.target) or bound_names(original_node.target):
            if frame is not None:
                frame.written(name)
        if frame is not None and type(original_node.target) is cst.Name:
            name = original_node.target.value
            if (name in frame.sizes or name in frame.derived) and not self.is_tensor(original_node.value):
                frame.sizes.pop(name, None)
                frame.derived.add(name)  # `n += 1`: still computed from sizes, maybe no longer one
                return
            if name in frame.tensors and name not in frame.values:
                return
            frame.forget(name)

    def visit_For(self, node: cst.For) -> None:
        if self._first(node, "visit_For"):
            # The iterable is read before the target is bound (`for s in s.shape`).
            sizes = self.iterated_sizes(node.target, node.iter)
            self._bind(node.target, None)
            self._written_in_loop(node)
            frame = self._frame()
            if frame is not None:
                # `for size in x.shape[-1:1:-1]:` (pixseg's ENet): each turn's name is one of the sizes
                frame.sizes.update(sizes)

    def visit_ListComp(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp) -> None:
        if self._first(node, "visit_comprehension"):
            self.comprehension_sizes(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def comprehension_sizes(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
                            ) -> dict[str, bool]:
        """The targets of comprehension ``node`` bound to one size each turn (→ whether a count), judged
        once, where the comprehension is first met: `[int(round(s / k)) for s in x.shape[2:]]` (torchreg's
        pyramid). Its element is visited before its `for`, so each `for` is judged after those before it."""
        known = self._shared.iterated.get(id(node))
        if known is not None:
            return known
        sizes: dict[str, bool] = {}
        self._shared.iterated[id(node)] = sizes
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            found = self.iterated_sizes(comp.target, comp.iter) if comp.asynchronous is None else {}
            for name in bound_names(comp.target):
                sizes.pop(name, None)  # a later `for` rebinding a name
            sizes.update(found)
            comp = comp.inner_for_in
        return sizes

    @contextmanager
    def judging(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp) -> Iterator[None]:
        """While a rule reads comprehension ``node``'s element from outside it (at the call that takes the
        list): its targets stand for what each turn binds, not for the enclosing function's names."""
        names: set[str] = set()
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            names.update(bound_names(comp.target))
            comp = comp.inner_for_in
        self._shared.judged.append((names, self.comprehension_sizes(node)))
        try:
            yield
        finally:
            self._shared.judged.pop()

    def iterated_sizes(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> dict[str, bool]:
        """The names ``for target in iterable`` binds to one size of a tensor each turn (→ whether a count):
        a plain name over a tensor's shape or a slice of it (``x.shape[2:]``, ``x.size()``, a local bound
        to one), or an element of a tuple target over ``zip`` of such shapes with anything, or the second
        of ``enumerate(shape)``, also through ``reversed``/``list``/``tuple`` of a shape. Traced, each is
        a 0-d tensor as ``x.shape[i]`` is (``round`` of it raises), in eager mode an ``int``."""
        frame = self._frame()
        if frame is None:
            return {}
        names = bound_names(target)
        if len(names) != len(set(names)):
            return {}  # `for s, s in ...`: the later one wins; not followed
        owner = self._shape_owner(iterable)
        if owner is not None or type(iterable) is cst.Name and iterable.value in frame.shapes \
                and self._local(iterable.value):
            if type(target) is not cst.Name:
                return {}
            count = self._is_count_tensor(owner) if owner is not None else frame.shapes[iterable.value]  # type: ignore[union-attr]
            return {target.value: count}
        if type(iterable) is not cst.Call or type(iterable.func) is not cst.Name or has_star_args(iterable):
            return {}
        builtin = iterable.func.value
        if self.context.resolver.binds(builtin):
            return {}
        allowed = {"enumerate": {"start"}, "zip": {"strict"}}.get(builtin, set())
        if any(a.keyword is not None and a.keyword.value not in allowed for a in iterable.args):
            return {}
        args = [a.value for a in iterable.args if a.keyword is None]
        if builtin in ("reversed", "list", "tuple") and len(args) == 1:
            return self.iterated_sizes(target, args[0])
        if type(target) not in (cst.Tuple, cst.List) or any(
                type(e) is cst.StarredElement for e in target.elements):  # type: ignore[union-attr]
            return {}
        elements = [e.value for e in target.elements]  # type: ignore[union-attr]
        if builtin == "enumerate" and len(args) == 1 and len(elements) == 2:
            return self.iterated_sizes(elements[1], args[0])
        found: dict[str, bool] = {}
        if builtin == "zip" and len(args) == len(elements):
            for element, arg in zip(elements, args):
                found.update(self.iterated_sizes(element, arg))
        return found

    def visit_While(self, node: cst.While) -> None:
        if self._first(node, "visit_While"):
            self._written_in_loop(node)

    def _written_in_loop(self, loop: cst.For | cst.While) -> None:
        """A loop's body runs again after its later lines: a value read before the loop no
        longer stands for a name the body rebinds or writes through, even below the use."""
        frame = self._frame()
        if frame is None:
            return
        for node in walk(loop):
            targets: list[cst.BaseExpression] = []
            if type(node) is cst.Assign:
                targets = [t.target for t in node.targets]
            elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For):
                targets = [node.target]  # type: ignore[union-attr]
            for target in targets:
                for name in bound_names(target) or _written_through(target):
                    frame.written(name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self._first(node, "visit_NamedExpr"):
            self._bind(node.target, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and self._first(node, "visit_WithItem"):
            self._bind(node.asname.name, None)

    # --- what an expression is ---------------------------------------------------
    def _local(self, name: str) -> bool:
        return not self.shadowed(name)

    def _torch_function(self, func: cst.BaseExpression) -> str | None:
        for qualified in self.context.qualified_names(func):
            if qualified.startswith("torch."):
                return qualified
        return None

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        frame = self._frame()
        if frame is None:
            return False
        return tensor_expression(expr, self._torch_function,
                                 lambda name: name in frame.tensors and self._local(name),
                                 self._observed.is_tensor if self._observed.known else None)

    def is_mask(self, expr: cst.BaseExpression) -> bool:
        frame = self._frame()
        if frame is None:
            return False
        if type(expr) is cst.Name:
            return expr.value in frame.masks and self._local(expr.value)
        if type(expr) is cst.Comparison:
            return self.is_tensor(expr.left) or any(self.is_tensor(c.comparator) for c in expr.comparisons)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.BitInvert:
            return self.is_mask(expr.expression)
        if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor):
            return self.is_mask(expr.left) or self.is_mask(expr.right)
        if type(expr) is cst.IfExp:
            # `a & b if self.training else a`: a mask whichever branch runs
            return self.is_mask(expr.body) and self.is_mask(expr.orelse)
        if type(expr) is cst.Call:
            parts = method_call(expr)
            return parts is not None and parts[1] == "bool" and self.is_tensor(parts[0])
        return False

    def is_counts(self, expr: cst.BaseExpression) -> bool:
        """Counts per group: a sum or count over an axis (``m.sum(dim=1)``), ``bincount``, or a cast
        of one; its elements are integers, not 0/1, so its sum counts no elements of it."""
        frame = self._frame()
        if frame is None:
            return False
        if type(expr) is cst.Name:
            return expr.value in frame.counts and self._local(expr.value)
        if type(expr) is not cst.Call:
            return False
        name = self._torch_function(expr.func)
        if name is not None:
            return name == "torch.bincount" or (name in _COUNTING_TORCH and len(expr.args) > 1)
        parts = method_call(expr)
        if parts is None or not self.is_tensor(parts[0]):
            return False
        if parts[1] == "bincount":
            return True
        if parts[1] in _COUNTING:
            return bool(expr.args)  # over an axis: positional or `dim=`
        return parts[1] in _VALUE_KEEPING and self.is_counts(parts[0])

    def is_data_dependent(self, expr: cst.BaseExpression) -> bool:
        """A tensor whose size depends on the data (``x[mask]``, ``nonzero``, ``unique``)."""
        frame = self._frame()
        if frame is None:
            return False
        if type(expr) is cst.Name:
            return expr.value in frame.dynamic and self._local(expr.value)
        if type(expr) is cst.Call:
            name = self._torch_function(expr.func)
            if name in _DATA_DEPENDENT_TORCH:
                return True
            if name == "torch.where" and len(expr.args) == 1:
                return True
            parts = method_call(expr)
            if parts is not None and self.is_tensor(parts[0]):
                return parts[1] in _DATA_DEPENDENT_METHODS or (
                    parts[1] not in _STATIC_METHODS and self.is_data_dependent(parts[0])
                )
            return False
        if type(expr) is cst.Subscript:
            if self.is_data_dependent(expr.value):
                return True
            return self.is_tensor(expr.value) and any(
                type(e.slice) is cst.Index and self.is_mask(e.slice.value) for e in expr.slice
            )
        if type(expr) is cst.BinaryOperation:
            return self.is_data_dependent(expr.left) or self.is_data_dependent(expr.right)
        return False

    def _is_count_tensor(self, tensor: cst.BaseExpression | None) -> bool:
        return tensor is not None and self.is_data_dependent(tensor)

    def _shape_owner(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """``x`` for ``x.shape``, ``x.shape[a:b]``, ``x.size()`` (the whole shape), if ``x`` is a tensor."""
        if type(expr) is cst.Subscript and all(type(e.slice) is cst.Slice for e in expr.slice):
            expr = expr.value
        if type(expr) is cst.Attribute and expr.attr.value == "shape":
            return expr.value if self.is_tensor(expr.value) else None
        if type(expr) is cst.Call and not expr.args:
            parts = method_call(expr)
            if parts is not None and parts[1] == "size" and self.is_tensor(parts[0]):
                return parts[0]
        return None

    def _copied_shape(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``x.shape[2:]`` of ``list(x.shape[2:])`` or ``tuple(x.size())``: a copy holds the same sizes
        (neuraloperator's ``in_shape = list(x.shape[2:])``, zipped with scaling factors); ``expr`` otherwise."""
        if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in ("list", "tuple") \
                and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star \
                and not self.context.resolver.binds(expr.func.value):
            return expr.args[0].value
        return expr

    def _is_shape_tuple(self, expr: cst.BaseExpression) -> bool:
        return self._shape_owner(expr) is not None

    def size_of(self, expr: cst.BaseExpression) -> bool | None:
        """None unless ``expr`` is one size of a tensor; then whether it is a count
        (``numel``, or any size of a data-dependent tensor)."""
        frame = self._frame()
        if frame is None:
            return None
        if type(expr) is cst.Name:
            for names, sizes in reversed(self._shared.judged):
                if expr.value in names:
                    return sizes.get(expr.value)
            binder = self.runtime.binder(expr.value)
            if binder is not None:  # a comprehension's target (or a lambda's parameter)
                return self._shared.iterated.get(id(binder), {}).get(expr.value)
            return frame.sizes.get(expr.value)
        if type(expr) is cst.Subscript:
            if len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
                owner = self._shape_owner(expr.value)
                if owner is not None:
                    return self._is_count_tensor(owner)
                whole = expr.value
                if type(whole) is cst.Name and whole.value in frame.shapes and self._local(whole.value):
                    return frame.shapes[whole.value]  # `image_shape[1]` of `image_shape = x.shape[2:]`
            return None
        if type(expr) is not cst.Call or has_star_args(expr):
            return None
        parts = method_call(expr)
        if parts is not None and parts[1] == "numel" and not expr.args and self._is_shape_tuple(parts[0]):
            return True  # `x.shape[1:].numel()`: the count of a tensor's sizes (TRT346 keeps it traced)
        if parts is not None and self.is_tensor(parts[0]) and not self.context.qualified_names(parts[0]):
            if parts[1] == "size" and len(expr.args) == 1 and (
                expr.args[0].keyword is None or expr.args[0].keyword.value == "dim"
            ):
                return self._is_count_tensor(parts[0])
            if parts[1] in ("numel", "nelement") and not expr.args:
                return True
            return None
        func = expr.func
        if len(expr.args) == 1 and expr.args[0].keyword is None:
            if self.context.refers_to(func, "torch.numel") and self.is_tensor(expr.args[0].value):
                return True
            if type(func) is cst.Name and func.value == "_trt_size_numel" and self._is_shape_tuple(expr.args[0].value):
                return True  # TRT346's rewrite of `x.shape[1:].numel()`: the same count
            if type(func) is cst.Name and func.value == "int" and not self.context.resolver.binds("int"):
                # `in_height = int(x.shape[-2])` (transformers' TF-style padding): the same integer.
                return self.size_of(expr.args[0].value)
            if type(func) is cst.Name and func.value == "len" and not self.context.resolver.binds("len") \
                    and self.is_tensor(expr.args[0].value):
                return self._is_count_tensor(expr.args[0].value)
        return None

    def _loose_owner(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """``o`` for ``o.shape``, ``o.shape[a:b]``, ``o.size()``, with ``o`` a plain local name
        not shown to be a tensor (an unannotated helper's parameter), or an element of one at an
        integer index (``hidden_states[0].shape[0]`` of a list of tensors)."""
        if type(expr) is cst.Subscript and all(type(e.slice) is cst.Slice for e in expr.slice):
            expr = expr.value
        owner: cst.BaseExpression | None = None
        if type(expr) is cst.Attribute and expr.attr.value == "shape":
            owner = expr.value
        elif type(expr) is cst.Call and not expr.args:
            parts = method_call(expr)
            owner = parts[0] if parts is not None and parts[1] == "size" else None
        if type(owner) is cst.Subscript and len(owner.slice) == 1 and type(owner.slice[0].slice) is cst.Index \
                and type(owner.slice[0].slice.value) is cst.Integer:
            owner = owner.value  # an element of a local list: checked as the list's name below
        if type(owner) is not cst.Name or self.context.qualified_names(owner) or not self._local(owner.value):
            return None
        return owner

    def _loose_shape(self, expr: cst.BaseExpression) -> bool:
        """A parameter the recorded run saw holding a ``torch.Size`` on every call, not rebound since
        (PaddleOCR's TPS ``build_P_paddle(self, I_r_size)``, given ``image.shape[2:]``)."""
        frame = self._frame()
        return frame is not None and type(expr) is cst.Name and expr.value in frame.loose_shapes \
            and self._local(expr.value)

    def _loose_size(self, expr: cst.BaseExpression) -> bool:
        """``o.size(i)``, ``o.shape[i]`` or a name bound to one, where ``o`` is not shown to be a
        tensor: a size only with observed evidence (:meth:`traced_at`)."""
        frame = self._frame()
        if frame is None:
            return False
        if type(expr) is cst.Name:
            return expr.value in frame.loose and self._local(expr.value)
        if type(expr) is cst.Subscript:
            return (len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index
                    and (self._loose_owner(expr.value) is not None or self._loose_shape(expr.value)))
        if type(expr) is cst.Call and len(expr.args) == 1 and expr.args[0].keyword is None:
            parts = method_call(expr)
            return parts is not None and parts[1] == "size" and type(parts[0]) is cst.Name and \
                not self.context.qualified_names(parts[0]) and self._local(parts[0].value)
        return False

    def traced_at(self, node: cst.CSTNode) -> bool:
        """Did the observed export (``migrate``, or ``--facts``) warn that a traced tensor was
        turned into a Python or NumPy value on ``node``'s lines (a ``TracerWarning``)?"""
        return self._observed.traced(node)

    def _rounded_size(self, value: cst.BaseExpression) -> bool:
        """``math.floor(math.ceil(w / 32.0) * 32.0)``, ``math.ceil(h / s)``: a size rounded in Python (or
        by the helper that keeps it traced), bound to a name that is then computed from sizes too (SpyNet's
        padded size, read again in ``float(w) / float(w_pad)``)."""
        if type(value) is not cst.Call or len(value.args) != 1 or value.args[0].keyword or value.args[0].star:
            return False
        func = value.func
        names = self.context.qualified_names(func)
        rounding = set(names) & {"math.ceil", "math.floor", "numpy.ceil", "numpy.floor"} or \
            type(func) is cst.Name and func.value in ("_trt_size_ceil", "_trt_size_floor")
        if not rounding:
            return False
        inner = value.args[0].value
        return self.size_derived(inner) or self._rounded_size(inner) or type(inner) is cst.BinaryOperation and any(
            self._rounded_size(side) for side in (inner.left, inner.right))

    def _chosen_size(self, value: cst.BaseExpression) -> bool:
        """``w if w % 32 == 0 else 32 * (w // 32 + 1)``: one number or another computed from sizes (mmagic's
        SPyNet), bound to a name that is then computed from sizes too."""
        if type(value) is not cst.IfExp:
            return False
        branches = (value.body, value.orelse)
        return any(self.size_derived(b) for b in branches) and all(
            self.size_derived(b) or int_value(b) is not None for b in branches)

    def size_derived(self, expr: cst.BaseExpression) -> bool:
        """A size, or arithmetic on sizes with numbers and other non-tensors (``h * scale``, ``w - 1``)."""
        if self.size_of(expr) is not None:
            return True
        if type(expr) is cst.Name:
            frame = self._frame()
            return frame is not None and expr.value in frame.derived and self._local(expr.value)
        if type(expr) is cst.BinaryOperation:
            left, right = self.size_derived(expr.left), self.size_derived(expr.right)
            if left and right:
                return True
            if left:
                return not self.is_tensor(expr.right)
            if right:
                return not self.is_tensor(expr.left)
            return False
        if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
            return self.size_derived(expr.expression)
        return False

    def size_number(self, expr: cst.BaseExpression) -> bool:
        """A number computed from sizes: :meth:`size_derived`, or a rounding of one (``int(s / k)``,
        ``round(s / k)`` with one argument, ``math.ceil``/``floor``/``trunc``, or TRT712's helpers for
        them), also in arithmetic with non-tensors (``int(round(s / self.scale)) * 2``)."""
        if self.size_derived(expr):
            return True
        if type(expr) is cst.Call:
            if len(expr.args) != 1 or expr.args[0].keyword is not None or expr.args[0].star:
                return False
            func = expr.func
            rounding = type(func) is cst.Name and (
                func.value in _ROUNDING_BUILTINS and not self.context.resolver.binds(func.value)
                or func.value in _ROUNDING_HELPERS) or bool(_ROUNDING_MATH & set(self.context.qualified_names(func)))
            return rounding and self.size_number(expr.args[0].value)
        if type(expr) is cst.BinaryOperation:
            left, right = self.size_number(expr.left), self.size_number(expr.right)
            return left and right or left and not self.is_tensor(expr.right) or right and not self.is_tensor(expr.left)
        if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
            return self.size_number(expr.expression)
        return False

    def size_decision(self, expr: cst.BaseExpression) -> bool:
        """A Python decision on sizes: a comparison of a size or arithmetic on sizes with
        non-tensors (``n % 2 == 1``, ``q_len > 1``), ``not`` of one, ``and``/``or`` with one (no
        tensor operand: a comparison with a tensor is a mask), or a name bound to one."""
        if type(expr) is cst.Name:
            frame = self._frame()
            return frame is not None and expr.value in frame.decisions and self._local(expr.value)
        if type(expr) is cst.Comparison:
            operands = [expr.left, *(c.comparator for c in expr.comparisons)]
            return any(self.size_derived(o) for o in operands) and not any(self.is_tensor(o) for o in operands)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Not:
            return self.size_decision(expr.expression) or self.size_derived(expr.expression)
        if type(expr) is cst.BooleanOperation:
            sides = (expr.left, expr.right)
            return any(self.size_decision(e) for e in sides) and not any(
                self.is_tensor(e) or self.is_mask(e) for e in sides)
        return False

    def integer_size(self, expr: cst.BaseExpression) -> bool:
        """An integer literal, a size, a parameter annotated ``int``, or ``+ - * //`` of those:
        an ``int`` in eager mode (TRT712's ``min``/``max``, TRT716's lists of sizes)."""
        if type(expr) is cst.Integer or self.size_of(expr) is not None or self.int_parameter(expr):
            return True
        if type(expr) is cst.BinaryOperation and type(expr.operator) in INTEGER_OPERATORS:
            return self.integer_size(expr.left) and self.integer_size(expr.right)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self.integer_size(expr.expression)
        return False

    def value_source(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The expression a local value was bound to (``n`` of ``n = mask.sum()``), where nothing it
        reads was rebound or written through since (in source order); None otherwise."""
        frame = self._frame()
        if frame is None or type(expr) is not cst.Name or not self._local(expr.value):
            return None
        return frame.sources.get(expr.value)

    def is_value(self, expr: cst.BaseExpression) -> bool:
        """A 0-d tensor computed from tensor data (``mask.sum()``, ``torch.count_nonzero(m)``, ``n.long()``)."""
        frame = self._frame()
        if frame is None:
            return False
        if type(expr) is cst.Name:
            return expr.value in frame.values and self._local(expr.value)
        if type(expr) is cst.Call:
            name = self._torch_function(expr.func)
            if name is not None:
                if name in _TORCH_REDUCTIONS and len(expr.args) == 1 and expr.args[0].keyword is None:
                    return self.is_tensor(expr.args[0].value) or self.is_mask(expr.args[0].value)
                return False
            parts = method_call(expr)
            if parts is None:
                return False
            positional = [a for a in expr.args if a.keyword is None]
            if parts[1] in _REDUCTIONS and not positional and "dim" not in {
                a.keyword.value for a in expr.args if a.keyword is not None
            }:
                # `(scores > t).sum()`: a comparison of tensors is a mask, a tensor too
                return (self.is_tensor(parts[0]) or self.is_mask(parts[0])) \
                    and not self.context.qualified_names(parts[0])
            if parts[1] in _VALUE_KEEPING:
                return self.is_value(parts[0])
            return False
        if type(expr) is cst.BinaryOperation:
            # Each side once: asking twice per level is exponential in a long chain (`a + b + c + ...`).
            left, right = self.is_value(expr.left), self.is_value(expr.right)
            return (left and right or left and not self.is_tensor(expr.right)
                    or right and not self.is_tensor(expr.left))
        return False


def _pairwise(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``a, b = p, q``: a tuple of plain targets bound element by element (no starred items)."""
    if type(target) not in (cst.Tuple, cst.List) or type(value) not in (cst.Tuple, cst.List):
        return False
    elements = [*target.elements, *value.elements]  # type: ignore[union-attr]
    return len(target.elements) == len(value.elements) and not any(  # type: ignore[union-attr]
        type(e) is cst.StarredElement for e in elements)


def _written_through(target: cst.BaseExpression) -> list[str]:
    """The name a subscript or attribute target writes into (``m`` of ``m[i] = v``, ``m.data = v``)."""
    while type(target) in (cst.Subscript, cst.Attribute):
        target = target.value  # type: ignore[attr-defined]
    return [target.value] if type(target) is cst.Name else []


def _int_parameters(func: cst.FunctionDef) -> set[str]:
    """Parameters annotated plainly ``int`` (not ``Optional[int]``, not a union)."""
    params = func.params
    listed = [*params.posonly_params, *params.params, *params.kwonly_params]
    return {p.name.value for p in listed
            if p.annotation is not None and type(p.annotation.annotation) is cst.Name
            and p.annotation.annotation.value == "int"}


def _record(frame: _Frame, name: str, kind: tuple[str | None, bool]) -> None:
    what, flag = kind
    if what == "size":
        frame.sizes[name] = flag
    elif what == "shape":
        frame.shapes[name] = flag
    elif what == "derived":
        frame.derived.add(name)
    elif what == "value":
        frame.values.add(name)
        frame.tensors.add(name)
    elif what == "loose":
        frame.loose.add(name)
    elif what == "decision":
        frame.decisions.add(name)
    elif what is not None and what.startswith("tensor"):
        frame.tensors.add(name)
        if ":dynamic" in what:
            frame.dynamic.add(name)
        if ":mask" in what:
            frame.masks.add(name)
        if ":counts" in what:
            frame.counts.add(name)
