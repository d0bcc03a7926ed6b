"""Python control flow that depends on tensor values (TRT101, TRT104).

A traced export (``torch.onnx.export(dynamo=False)`` on an ``nn.Module``) runs the
Python code once: an ``if`` whose condition reads tensor values takes the branch the
example input chose, and the graph keeps only that branch (with a ``TracerWarning``
at best). A loop whose trip count comes from tensor data is unrolled with the
example's count. Scripting instead exports ONNX ``If``/``Loop`` nodes, which TensorRT
handles poorly (branches must agree in rank; loops with dynamic trip counts).

What counts as data-dependent: only what is *evidently* a tensor value (real code
branches far more often on strings, NumPy arrays, ints and shapes than on tensors, and
vectorizing those breaks working code). Decided per class without type information:
- tensors to start from: the inputs of an ``nn.Module``'s ``forward`` (parameters without
  a ``bool``/``int``/``float``/``str`` annotation or a literal default), parameters
  annotated ``Tensor`` in any method or function, the parameters of a helper method that
  a method calls with a tensor (``self.refine(feat)``), and module tensors: ``self.<name>``
  assigned from ``torch.*``/``nn.Parameter`` or registered with ``register_buffer`` in
  construction code;
- what torch computes from them: a ``torch.*``/``torchvision.*`` call with such an
  argument, a tensor method on one (``.max()``, ``.any()``, ``.sum()``), a submodule built
  in ``__init__`` (``self.proj(x)``, ``self.blocks[i](x)``), indexing, arithmetic and
  comparisons of one; ``.item()``, ``int()``, ``float()`` of one read a Python value out of
  the tensor, which is data too;
- tracked through local assignments of the same function (one tensor assignment of a
  name is enough);
- never: sizes and static views (``.shape``, ``.size()``, ``.dim()``, ``.numel()``,
  ``len()``, ``.dtype``, ``.device``), Python and NumPy values (``np.*``, ``math.*``,
  numbers, strings, calls of functions we cannot see into), ``isinstance``, ``is None``,
  membership (``key in state``), string-keyed lookups and dict/str methods
  (``meta["flip"]``, ``meta.get(...)``), attributes of ``self`` that are not module tensors
  (``self.training``, ``self.cfg.x``) and names nothing above reaches;
- a parameter tested for truth as it is (``if flag:``, ``if not ctx.needs_grad``) is a
  switch, not tensor data (a multi-element tensor would raise there); a local computed
  from tensors and tested for truth (``has = mask.any()``; ``if has:``) is data.

Methods of classes are looked at (``forward``, the helpers it calls, and the methods of
tracker/coder classes that are not modules), and plain functions with ``Tensor``
parameters. Construction-time code is skipped: ``__init__`` and other dunder methods, the
methods only they call (``_make_layer``), and class methods. Per-frame state kept on
``self`` (DESIGN §8.8) is not seen by this analysis. Facts observed by ``migrate``
(``--facts``) add what syntax cannot show: see :meth:`_DataFlowRule.observed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import libcst as cst

from trtcodemod.astutil import (
    bound_names, children, code_of, decorator_names, method_call, parenthesize, short_code, strip_parens, walk,
)
from trtcodemod.context import FileContext
from trtcodemod.names import dotted_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
    "https://pytorch.org/docs/stable/generated/torch.where.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
)

#: Attributes that describe a tensor without reading its values.
_STATIC_ATTRS = frozenset({
    "shape", "ndim", "dtype", "device", "is_cuda", "is_cpu", "is_mps", "requires_grad", "layout",
    "is_sparse", "is_quantized", "is_meta", "training", "is_nested", "is_leaf", "is_mkldnn", "is_xpu",
    "names", "itemsize", "nbytes",
})
#: Methods that describe a tensor without reading its values (their arguments don't matter).
_STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "is_floating_point",
    "is_complex", "is_contiguous", "is_signed", "get_device", "__len__", "has_names",
    "data_ptr", "storage_offset", "is_inference", "is_pinned", "is_shared", "is_set_to", "untyped_storage",
    "storage", "is_same_size", "is_coalesced", "type",
})
#: Builtins whose result says nothing about tensor values.
_STATIC_BUILTINS = frozenset({"len", "isinstance", "issubclass", "type", "hasattr", "callable", "id"})
#: torch functions that are static queries.
_STATIC_TORCH = (
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
    "torch.jit.is_tracing", "torch.jit.is_scripting", "torch.cuda.is_available",
    "torch.onnx.is_in_onnx_export", "torch.is_grad_enabled", "torch.is_inference_mode_enabled",
    "torch.compiler.is_compiling", "torch._C._get_tracing_state",
)
#: Annotations of parameters that cannot hold a tensor.
_STATIC_ANNOTATIONS = frozenset({"bool", "int", "float", "str"})
#: Calls that turn tensor values into Python values: a condition built from them
#: stays a Python bool, so vectorizing it would not reach the graph.
_PY_VALUE_METHODS = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__"})
_PY_VALUE_BUILTINS = frozenset({"int", "float", "bool", "round", "abs", "min", "max", "sum", "any", "all"})
#: Methods of dicts, lists and strings that tensors lack: a receiver that has them is no tensor
#: (``meta.get("scale")`` on a forward input that is a dict of image metadata).
_CONTAINER_METHODS = frozenset({
    "get", "keys", "values", "items", "setdefault", "update", "append", "extend", "insert", "pop",
    "startswith", "endswith", "strip", "lstrip", "rstrip", "lower", "upper", "format", "join", "replace",
    "encode", "decode", "index", "count", "find", "splitlines", "copy",
})
#: Calls with side effects a vectorized branch must not run unconditionally.
_IMPURE_BUILTINS = frozenset({"print", "input", "exec", "eval", "setattr", "delattr", "next", "open"})
_IMPURE_MODULES = ("logging", "logger", "log", "warnings", "_logger", "LOGGER")
#: Methods whose result is already a bool tensor (no `.bool()` needed in a condition).
_BOOL_METHODS = frozenset({
    "any", "all", "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or", "eq", "ne",
    "gt", "ge", "lt", "le", "bool", "isclose", "equal",
})


# --- helpers on expressions -------------------------------------------------------


def _read_names(node: cst.CSTNode) -> set[str]:
    """Names an expression reads (attribute names and keyword names excluded)."""
    found: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is cst.Name:
            found.add(n.value)
        elif type(n) in (cst.Attribute, cst.Arg):
            todo.append(n.value)
        else:
            todo.extend(children(n))
    return found


def _is_string(node: cst.BaseExpression) -> bool:
    return type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _static_param(param: cst.Param) -> bool:
    """A parameter that cannot carry a tensor: ``flag: bool``, ``mode="bilinear"``, ``k=3``."""
    if param.annotation is not None:
        text = code_of(param.annotation.annotation).replace(" ", "").replace("typing.", "")
        for wrapper in ("Optional[",):
            if text.startswith(wrapper) and text.endswith("]"):
                text = text[len(wrapper):-1]
        text = text.replace("|None", "").replace("None|", "")
        if text in _STATIC_ANNOTATIONS:
            return True
    default = param.default
    if default is None:
        return False
    while type(default) is cst.UnaryOperation:
        default = default.expression
    if type(default) is cst.Name:
        return default.value in ("True", "False")
    return type(default) in (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)


def _body_statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    return list(body.body)


@dataclass
class _FunctionIndex:
    """What the analyses read from one function's body, collected in one walk."""

    #: (target, value) of every binding, nested functions, classes and lambdas excluded.
    pairs: list[tuple[cst.BaseExpression, cst.CSTNode]]
    #: ``self.<name>(...)`` calls anywhere in the body, nested functions included.
    self_calls: list[cst.Call]

    @staticmethod
    def of(func: cst.FunctionDef) -> "_FunctionIndex":
        pairs: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        self_calls: list[cst.Call] = []
        # (node, inside a nested definition): nested code has no bindings of ours but its
        # `self.m(...)` calls still count as calls of this method.
        stack: list[tuple[cst.CSTNode, bool]] = [(func.body, False)]
        while stack:
            node, nested = stack.pop()
            kind = type(node)
            if kind is cst.Call:
                callee = node.func
                if type(callee) is cst.Attribute and type(callee.value) is cst.Name and callee.value.value == "self":
                    self_calls.append(node)
            elif kind in _DEFINITION_TYPES:
                nested = True
            elif nested:
                pass
            elif kind is cst.Assign:
                for target in node.targets:
                    _pair_up(target.target, node.value, pairs)
            elif kind is cst.AnnAssign:
                if node.value is not None:
                    pairs.append((node.target, node.value))
            elif kind is cst.AugAssign:
                pairs.append((node.target, node.value))
            elif kind is cst.For or kind is cst.CompFor:
                pairs.append((node.target, node.iter))
            elif kind is cst.WithItem:
                if node.asname is not None:
                    pairs.append((node.asname.name, node.item))
            elif kind is cst.NamedExpr:
                pairs.append((node.target, node.value))
            stack.extend((child, nested) for child in reversed(children(node)))
        return _FunctionIndex(pairs, self_calls)


_DEFINITION_TYPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)

_CONTAINER_DISPLAYS = (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


def _pair_up(target: cst.BaseExpression, value: cst.BaseExpression, pairs: list) -> None:
    """``a, b = x, y`` pairs element-wise; anything else pairs the whole value."""
    if (
        type(target) in (cst.Tuple, cst.List)
        and type(value) in (cst.Tuple, cst.List)
        and len(target.elements) == len(value.elements)
        and not any(type(e) is cst.StarredElement for e in (*target.elements, *value.elements))
    ):
        for t, v in zip(target.elements, value.elements):
            _pair_up(t.value, v.value, pairs)
        return
    pairs.append((target, value))


# --- the per-function analysis -----------------------------------------------------

#: Evidence levels of an expression: nothing known, a Python value read out of tensor
#: data (``x.max().item()``, ``int(n)``), or a tensor computed from the inputs.
_NONE, _VALUE, _TENSOR = 0, 1, 2

#: Qualified-name prefixes of libraries whose functions compute tensors from tensors.
_TORCH_PREFIXES = ("torch.", "torchvision.")
#: torch names that build descriptions or containers, not tensors from data.
_TORCH_NOT_OPS = ("torch.Size", "torch.device", "torch.dtype", "torch.finfo", "torch.iinfo",
                  "torch.nn.Module", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential")
#: Attributes of a tensor that are tensors.
_TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
#: torch constants that are numbers (compared with tensor values like any number).
_TORCH_NUMBERS = frozenset({"torch.inf", "torch.nan", "torch.pi", "torch.e"})
#: torch namespaces of queries, dispatch and runtime state, not tensor computation.
_TORCH_NOT_OP_MODULES = (
    "torch.overrides.", "torch._C.", "torch.jit.", "torch.cuda.", "torch.backends.", "torch.distributed.",
    "torch.onnx.", "torch.compiler.", "torch._dynamo.", "torch.fx.", "torch.utils.", "torch._utils.",
    "torch.autograd.", "torch.testing.", "torch.nn.utils.", "torch.nn.init.",
)
#: Name prefixes of torch functions that answer questions (``is_tensor``, ``has_torch_function``).
_TORCH_QUERY_PREFIXES = ("is_", "has_", "are_", "get_", "_")
#: Constructors in ``__init__`` whose result is a tensor attribute (not a submodule).
_PARAMETER_CTORS = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")


def _torch_query(name: str) -> bool:
    """A torch name that builds no tensor from data: a type, a query, dispatch or runtime state."""
    parts = name.split(".")
    return name.startswith(_TORCH_NOT_OPS) or name.startswith(_TORCH_NOT_OP_MODULES) \
        or parts[-1].startswith(_TORCH_QUERY_PREFIXES) \
        or any(part.startswith("_") for part in parts[1:])  # torch internals (`torch._prims_common`)


def _is_tensor_annotation(annotation: cst.Annotation | None) -> bool:
    """``Tensor``, ``torch.Tensor``, ``Optional[Tensor]``, ``Tensor | None``, ``"torch.Tensor"``."""
    if annotation is None:
        return False
    text = code_of(annotation.annotation).replace(" ", "").replace("typing.", "").strip("'\"")
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional["):-1]
    text = text.replace("|None", "").replace("None|", "")
    return "[" not in text and "|" not in text and text.rsplit(".", 1)[-1].endswith("Tensor")


def _method_params(func: cst.FunctionDef, is_method: bool) -> list[cst.Param]:
    """Parameters a caller passes (``self``/``cls`` dropped for methods), in order."""
    params = [*func.params.posonly_params, *func.params.params]
    if is_method and "staticmethod" not in decorator_names(func) and params:
        params = params[1:]
    return params + list(func.params.kwonly_params)


@dataclass
class _ClassEvidence:
    """What a class's construction code says: which ``self.<name>`` are tensors or submodules."""

    is_module: bool = False
    tensor_attrs: set[str] = field(default_factory=set)
    submodules: set[str] = field(default_factory=set)
    #: method name -> parameter name -> evidence level (forward inputs, annotations, helper calls)
    seeds: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass
class _Facts:
    """What one function's code says about which names hold tensor data.

    ``levels`` maps a local name to the strongest evidence of any assignment to it
    (flow-insensitive: one tensor assignment is enough). ``params`` are all the
    function's parameters, for the truth-test rule in :meth:`condition_depends`.
    """

    context: FileContext
    owner: _ClassEvidence | None = None
    levels: dict[str, int] = field(default_factory=dict)
    params: set[str] = field(default_factory=set)
    #: Locals some assignment binds to a list, tuple, dict or set (display or comprehension).
    containers: set[str] = field(default_factory=set)

    def condition_depends(self, test: cst.BaseExpression) -> bool:
        """Like :meth:`depends`, for an ``if``/``while`` test.

        A parameter (or its attribute) tested for truth as it is (``if flag:``,
        ``if not ctx.needs_grad``) is taken as a switch: a multi-element tensor would
        raise there, and flags passed in are far more common than 1-element masks. So is
        a local that is somewhere a container (``boxes = []`` ... ``if boxes:`` ...
        ``boxes = torch.cat(boxes)``): the test is about the container's length.
        """
        if type(test) is cst.BooleanOperation:
            return self.condition_depends(test.left) or self.condition_depends(test.right)
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.condition_depends(test.expression)
        root = test
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is cst.Name and root.value in self.params and type(test) in (cst.Name, cst.Attribute):
            return False
        if type(test) is cst.Name and test.value in self.containers:
            return False
        return self.depends(test)

    def depends(self, node: cst.CSTNode) -> bool:
        """Is ``node`` evidently computed from tensor values of the inputs or module tensors?"""
        return self.level(node) >= _VALUE

    def level(self, node: cst.CSTNode) -> int:
        """The evidence that ``node`` is a tensor (``_TENSOR``) or a value read from one (``_VALUE``)."""
        if type(node) is cst.Name:
            return self.levels.get(node.value, _NONE)
        if type(node) is cst.Attribute:
            if node.attr.value in _STATIC_ATTRS:
                return _NONE
            if type(node.value) is cst.Name and node.value.value == "self":
                # Module tensors only: other attributes of self are configuration or state.
                owner = self.owner
                return _TENSOR if owner is not None and node.attr.value in owner.tensor_attrs else _NONE
            # `x.T`, `x.grad` are tensors; other attributes (`batch.meta`, `t.placements`) are not evidently.
            return self.level(node.value) if node.attr.value in _TENSOR_ATTRS else _NONE
        if type(node) is cst.Call:
            return self._call_level(node)
        if type(node) is cst.Subscript:
            base = self.level(node.value)
            if base and any(_is_string(e.slice.value) for e in node.slice if type(e.slice) is cst.Index):
                return _NONE  # `data["img_metas"]`: a container, not tensor indexing
            return base
        if type(node) is cst.Comparison:
            for comparison in node.comparisons:
                if type(comparison.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
                    # identity (`x is None`) and membership (`key in state`) are about
                    # objects and containers, not tensor values
                    return _NONE
            parts = [node.left, *(c.comparator for c in node.comparisons)]
            if any(_is_string(p) or self._torch_constant(p) for p in parts):
                return _NONE  # `mode == "nearest"`, `qscheme == torch.per_channel_affine`
            return max(self.level(p) for p in parts)
        if type(node) is cst.BinaryOperation:
            if _is_string(node.left) or _is_string(node.right):
                return _NONE  # `"%s" % x`
            return max(self.level(node.left), self.level(node.right))
        if type(node) is cst.UnaryOperation:
            inner = self.level(node.expression)
            return min(inner, _VALUE) if type(node.operator) is cst.Not else inner
        if type(node) is cst.BooleanOperation:
            return max(self.level(node.left), self.level(node.right))
        if type(node) is cst.IfExp:
            return max(self.level(node.body), self.level(node.orelse))
        if type(node) in (cst.Tuple, cst.List):
            # A container of tensors is no tensor, but what is taken out of it is.
            return max((min(self.level(e.value), _VALUE) for e in node.elements), default=_NONE)
        if type(node) is cst.NamedExpr:
            return self.level(node.value)
        if type(node) is cst.Arg:
            return self.level(node.value)
        return _NONE  # literals, strings, lambdas, comprehensions, awaits...

    def _torch_constant(self, node: cst.BaseExpression) -> bool:
        """``torch.float16``, ``torch.contiguous_format``: a dtype, layout or scheme, not a number."""
        if type(node) is not cst.Attribute:
            return False
        names = self.context.qualified_names(node)
        return any(n.startswith("torch.") and n not in _TORCH_NUMBERS for n in names)

    def _args_level(self, call: cst.Call) -> int:
        return max((self.level(arg.value) for arg in call.args), default=_NONE)

    def _call_level(self, call: cst.Call) -> int:
        if self._static_call(call):
            return _NONE
        func = call.func
        context = self.context
        names = context.qualified_names(func) if type(func) in (cst.Name, cst.Attribute) else ()
        if any(n.startswith(_TORCH_PREFIXES) for n in names):
            if any(_torch_query(n) for n in names):
                return _NONE
            # A torch op makes a tensor; from the inputs only when an argument comes from them.
            return _TENSOR if self._args_level(call) else _NONE
        if type(func) is cst.Name:
            if func.value in _PY_VALUE_BUILTINS and not names:
                return min(self._args_level(call), _VALUE)  # `int(n)`, `max(a, b)`: Python values
            return _NONE  # an unknown function: no evidence of what it returns
        if self._submodule_call(func):
            return _TENSOR if self._args_level(call) else _NONE
        if type(func) is cst.Attribute:
            if func.attr.value in _CONTAINER_METHODS or func.attr.value.startswith("_"):
                return _NONE  # dict/str methods; private methods (`x._nnz()`, `x._is_view()`) are internals
            receiver = self.level(func.value)
            if func.attr.value in _PY_VALUE_METHODS:
                return min(receiver, _VALUE)  # `.item()`: a Python value read from the tensor
            return receiver  # a tensor method keeps tensors; a method of a Python value keeps values
        return _NONE

    def _submodule_call(self, func: cst.BaseExpression) -> bool:
        """``self.proj(...)``, ``self.layers[i](...)``: a submodule built in ``__init__``."""
        while type(func) is cst.Subscript:
            func = func.value
        owner = self.owner
        return (owner is not None and type(func) is cst.Attribute and type(func.value) is cst.Name
                and func.value.value == "self" and func.attr.value in owner.submodules)

    def _static_call(self, call: cst.Call) -> bool:
        func = call.func
        if type(func) is cst.Attribute and func.attr.value in _STATIC_METHODS:
            return True
        if type(func) is cst.Name and func.value in _STATIC_BUILTINS and not self.context.qualified_names(func):
            return True
        if self.context.refers_to(func, *_STATIC_TORCH):
            return True
        return False


def _analyze(rule: Rule, func: cst.FunctionDef, seeds: dict[str, int], owner: _ClassEvidence | None,
             is_method: bool) -> _Facts:
    """Evidence for ``func``'s locals, starting from the parameters in ``seeds``."""
    facts = _Facts(rule.context, owner)
    facts.params = {p.name.value for p in _method_params(func, is_method)}
    for star in (func.params.star_arg, func.params.star_kwarg):
        if type(star) is cst.Param:
            facts.params.add(star.name.value)
    facts.levels = dict(seeds)
    if not seeds and (owner is None or not (owner.tensor_attrs or owner.submodules)):
        return facts  # nothing to start from: no name can be shown to hold tensor data
    pairs = rule.index(func).pairs
    facts.containers = {name for target, value in pairs if type(value) in _CONTAINER_DISPLAYS
                        for name in bound_names(target)}
    changed = True
    while changed:
        changed = False
        for target, value in pairs:
            level = facts.level(value)
            if not level:
                continue
            for name in bound_names(target):
                if facts.levels.get(name, _NONE) < level:
                    facts.levels[name] = level
                    changed = True
    return facts


def _construction_methods(
    cls: cst.ClassDef, index: Callable[[cst.FunctionDef], _FunctionIndex]
) -> set[cst.FunctionDef]:
    """Methods that run only while building the object (``__init__`` and what only it calls)."""
    if type(cls.body) is not cst.IndentedBlock:
        return set()
    methods = {stmt.name.value: stmt for stmt in cls.body.body if type(stmt) is cst.FunctionDef}
    calls = {name: {call.func.attr.value for call in index(func).self_calls} & set(methods)
             for name, func in methods.items()}

    def closure(roots: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo.extend(calls.get(name, ()))
        return seen

    dunders = {n for n in methods if n.startswith("__") and n.endswith("__") and n != "__call__"}
    classmethods = {n for n, f in methods.items() if "classmethod" in decorator_names(f)}
    at_build = closure(dunders | classmethods)
    at_run = closure(set(methods) - at_build)
    return {methods[name] for name in at_build - at_run}


# --- the rules ---------------------------------------------------------------------


class _DataFlowRule(Rule):
    """Shared: which function we are in, whether to look at it, and its evidence."""

    def __init__(self, context) -> None:
        super().__init__(context)
        # TRT101 and TRT104 read the same per-class analysis: computed once per file for both.
        shared = context.shared("dataflow per class and function", lambda: ({}, {}, {}, {}))
        self._construction: dict[cst.ClassDef, set[cst.FunctionDef]] = shared[0]
        self._classes: dict[cst.ClassDef, _ClassEvidence] = shared[1]
        self._functions: dict[cst.FunctionDef, _Facts] = shared[2]
        self._indexes: dict[cst.FunctionDef, _FunctionIndex] = shared[3]
        self._module_classes: set[str] | None = None

    def index(self, func: cst.FunctionDef) -> _FunctionIndex:
        """``func``'s bindings and ``self`` calls (one walk per function and file)."""
        found = self._indexes.get(func)
        if found is None:
            found = self._indexes[func] = _FunctionIndex.of(func)
        return found

    def current_facts(self) -> _Facts | None:
        func, cls = self.context.function, self.context.enclosing_class
        if func is None:
            return None
        if cls is None:
            # A plain function: only parameters annotated as tensors are evidence.
            facts = self._functions.get(func)
            if facts is None:
                seeds = {p.name.value: _TENSOR for p in _method_params(func, False)
                         if _is_tensor_annotation(p.annotation)}
                facts = self._functions[func] = _analyze(self, func, seeds, None, is_method=False)
            return facts
        # Computed on first need only: most classes never reach a data-dependent branch.
        skipped = self._construction.get(cls)
        if skipped is None:
            skipped = self._construction[cls] = _construction_methods(cls, self.index)
        if func in skipped:
            return None
        evidence = self._classes.get(cls)
        if evidence is None:
            self._classes[cls] = self._class_evidence(cls, skipped)
        return self._functions.get(func)

    def observed(self, node: cst.CSTNode) -> bool | None:
        """What facts from a recorded run (``--facts``) say about ``node``, a condition or trip count.

        True: Python read a tensor's value inside it (``__bool__``, ``.item()``...), so an
        export bakes it in whatever the syntax shows; False: it ran and read none, so it is
        static on the observed inputs; None: no facts, or it never ran.
        """
        facts = self.context.facts
        if facts is None:
            return None
        where = self.context.position(node)
        if where is None:
            return None
        reads = facts.value_reads(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return None if reads is None else bool(reads)

    def evident(self, facts: "_Facts | None", test: cst.BaseExpression) -> tuple[bool, bool]:
        """(does ``test`` depend on tensor values, did observed facts decide it)."""
        seen = self.observed(test)
        if seen is not None:
            return seen, True
        return facts is not None and facts.condition_depends(test), False

    # --- per class -----------------------------------------------------------------

    def _is_module_base(self, base: cst.BaseExpression) -> bool:
        if type(base) not in (cst.Name, cst.Attribute):
            return False
        if any(n.startswith("torch.nn.") for n in self.context.qualified_names(base)):
            return True
        name = dotted_name(base) or ""
        # `BaseModule` (mmcv), `LightningModule`, or a module class of this file.
        return name.rsplit(".", 1)[-1].endswith("Module") or name in self._file_module_classes()

    def _file_module_classes(self) -> set[str]:
        """Names of this file's top-level classes that derive from ``nn.Module`` (through each other too)."""
        if self._module_classes is None:
            classes = [s for s in self.context.module.body if type(s) is cst.ClassDef]
            found: set[str] = set()
            self._module_classes = found
            changed = True
            while changed:
                changed = False
                for cls in classes:
                    if cls.name.value not in found and any(self._is_module_base(b.value) for b in cls.bases):
                        found.add(cls.name.value)
                        changed = True
        return self._module_classes

    def _class_evidence(self, cls: cst.ClassDef, construction: set[cst.FunctionDef]) -> _ClassEvidence:
        evidence = _ClassEvidence(is_module=any(self._is_module_base(b.value) for b in cls.bases))
        body = cls.body.body if type(cls.body) is cst.IndentedBlock else ()
        methods = {s.name.value: s for s in body if type(s) is cst.FunctionDef}
        for func in construction | {m for n, m in methods.items() if n == "__init__"}:
            self._collect_attributes(func, evidence)
        runtime = {n: m for n, m in methods.items() if m not in construction}
        for name, func in runtime.items():
            seeds = evidence.seeds.setdefault(name, {})
            for param in _method_params(func, "staticmethod" not in decorator_names(func)):
                if _is_tensor_annotation(param.annotation):
                    seeds[param.name.value] = _TENSOR
                elif evidence.is_module and name == "forward" and param.annotation is None \
                        and not _static_param(param):
                    seeds[param.name.value] = _TENSOR  # forward inputs
        # Helpers called from forward get the evidence of their arguments (DESIGN §8.10):
        # a method is analysed again only when a call gave its parameters more evidence.
        todo = list(runtime)
        waiting = set(todo)
        while todo:
            name = todo.pop(0)
            waiting.discard(name)
            func = runtime[name]
            facts = _analyze(self, func, evidence.seeds[name], evidence, is_method=True)
            # Kept apart from the class evidence: each facts object points at its owner.
            self._functions[func] = facts
            for callee in self._propagate_calls(func, facts, runtime, evidence):
                if callee not in waiting:
                    waiting.add(callee)
                    todo.append(callee)
        return evidence

    def _propagate_calls(self, func: cst.FunctionDef, facts: _Facts, runtime: dict[str, cst.FunctionDef],
                         evidence: _ClassEvidence) -> set[str]:
        """Give the methods ``func`` calls the evidence of their arguments; the names of those that got more."""
        changed: set[str] = set()
        for node in self.index(func).self_calls:
            callee = runtime.get(node.func.attr.value)
            if callee is None:
                continue
            params = _method_params(callee, True)
            seeds = evidence.seeds[callee.name.value]
            static = {p.name.value for p in params if _static_param(p)}
            position = 0
            for arg in node.args:
                if arg.star:
                    break  # `*args`: which parameter gets what is unknown from here on
                if arg.keyword is not None:
                    name = arg.keyword.value
                elif position < len(params):
                    name = params[position].name.value
                    position += 1
                else:
                    continue
                if name in static:
                    continue  # `k: int`, `mode="bilinear"`: configuration whatever is passed
                level = facts.level(arg.value)
                if level > seeds.get(name, _NONE):
                    seeds[name] = level
                    changed.add(callee.name.value)
        return changed

    def _collect_attributes(self, func: cst.FunctionDef, evidence: _ClassEvidence) -> None:
        """``self.w = nn.Parameter(...)``, ``self.register_buffer("w", ...)``, ``self.proj = nn.Linear(...)``."""
        file_modules = self._file_module_classes()
        for node in walk(func.body):
            if type(node) is cst.Assign and type(node.value) is cst.Call:
                for target in node.targets:
                    t = target.target
                    if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                        kind = self._constructed(node.value, file_modules)
                        if kind == "tensor":
                            evidence.tensor_attrs.add(t.attr.value)
                        elif kind == "module":
                            evidence.submodules.add(t.attr.value)
            elif type(node) is cst.Call and type(node.func) is cst.Attribute \
                    and node.func.attr.value in ("register_buffer", "register_parameter") \
                    and node.args and type(node.args[0].value) is cst.SimpleString:
                name = node.args[0].value.evaluated_value
                if isinstance(name, str):
                    evidence.tensor_attrs.add(name)

    def _constructed(self, call: cst.Call, file_modules: set[str]) -> str | None:
        """``"tensor"``, ``"module"`` or None for the value an ``__init__`` assignment builds."""
        func = call.func
        if type(func) not in (cst.Name, cst.Attribute):
            return None
        names = self.context.qualified_names(func)
        if any(n in _PARAMETER_CTORS for n in names):
            return "tensor"
        if any(n.startswith("torch.nn.") and not n.startswith("torch.nn.functional.") for n in names):
            return "module"  # nn.Linear, nn.Sequential, nn.ModuleList...
        if any(n.startswith(_TORCH_PREFIXES) for n in names):
            return "tensor" if not any(_torch_query(n) for n in names) else None
        if type(func) is cst.Name and func.value in file_modules:
            return "module"
        return None


_GUIDANCE = ("move the decision out of the graph and pass an indicator tensor as an input, compute both "
             "branches and blend them with torch.where, or script this part with torch.jit.script")


class DataDependentIf(_DataFlowRule):
    info = RuleInfo(
        id="TRT101",
        name="data-dependent-if",
        summary="`if` on tensor values: tracing bakes in one branch; vectorize assignments with `torch.where`",
        doc="""\
What it finds: an `if`/`elif`/`else` whose condition is evidently a tensor value: computed
by torch operations or tensor methods (`.max()`, `.any()`, `.sum()`, comparisons of such)
from the inputs of an `nn.Module`'s `forward`, from parameters annotated `Tensor` (also in
plain functions and tracker/coder classes), from what a helper method is passed by them,
or from module tensors (`self.w` built by `nn.Parameter`, `torch.*` or `register_buffer`
in `__init__`), directly or through locals; `.item()`/`int()` of such a value count too
(`if score.max() > thresh:`, `if self.scale > 1:`). Anything else is not reported:
`self.training` and other configuration attributes, shapes and sizes (`x.shape[0] > 1`,
`x.dim() == 4`, `len(x)`, `x.numel()`), NumPy and `math` values, strings, numbers,
`isinstance`, `is None`, `torch.cuda.is_available()`, `x.is_cuda`,
`torch.jit.is_tracing()`, membership tests (`key in state`), dict lookups
(`meta["flip"]`), results of functions the rule cannot see into, and names it cannot
trace. Parameters annotated `bool`/`int`/`float`/`str` or with such a literal default, and
parameters tested for truth as they are (`if return_loss:`), count as configuration.
Construction code (`__init__`, what only it calls, class methods) is not looked at. With
`--facts` (saved by `migrate --save-facts`), a line where the observed run read a tensor
value with `__bool__` is reported even without such evidence, and a line that ran without
one is not.

Why it hurts: a traced export runs Python once, so the condition is evaluated on the
example input and the graph keeps only the branch it took (a `TracerWarning` at best): on
inputs that should take the other branch, the exported model silently gives the wrong
answer. Scripting keeps the branch as an ONNX `If`, which TensorRT accepts only when both
branches produce outputs of the same rank, and which blocks fusion across it.

The rewrite (when every branch only assigns plain names, `a = expr` or `a += expr`, with
side-effect-free expressions): the condition is evaluated once into a fresh local as a
tensor (`_trt_cond = torch.as_tensor(cond)`; `not`/`and`/`or` become `logical_not`/
`logical_and`/`logical_or`, the latter two only when both operands depend on data: in
`x is not None and x.sum() > 0` the static test guards the other one), then each assigned name is selected:
`a = torch.where(_trt_cond, <then>, <else>)`. A name assigned in only one branch keeps its
value from before the `if` in the other, which requires it to be bound before the `if`.
An `elif` chain becomes nested `torch.where`s, so the first true condition wins.
Anything else (calls with side effects, `return`, `raise`, attribute or item assignment,
branch statements that read each other's results, string or `None` values, a condition
built with `.item()`,
`int()` or `float()`, which stays a Python value) is reported with guidance instead.

Fix safety: unsafe. The vectorized code evaluates every branch and every condition and
selects with `torch.where`. It assumes the branches compute values of the same shape and
dtype, cheaply, without raising and without NaN gradients where they are not taken, and
that no alias of a branch value is changed in place later. In the contract's terms:
- Values: each assigned name gets the value of the branch the `if` would take, but: a
  branch that reduces over an empty selection (`mean` of nothing is NaN) or makes inf/NaN
  where it is not taken (`sqrt` of a negative, `log(0)`, `0 / 0`) computes it anyway;
  `torch.where` hides it, but with TRT102 also selected the `torch.where` becomes an
  arithmetic blend and that inf/NaN becomes NaN in the result (see `trtcodemod explain
  TRT102`). Side effects of both branches happen (calls known to have effects, in-place
  methods and `print`/logging are refused, but a user function with effects is not known),
  and both branches cost time: a heavy branch runs on every input. A later `elif`
  condition is evaluated even when an earlier one holds. A Python number or list assigned
  in a branch becomes a tensor.
- Dtype and shape: `torch.where` broadcasts and promotes: branches of different shapes or
  dtypes give one result of the broadcast shape and promoted dtype (a float32 branch and a
  float64 one give float64 whichever is taken), where the `if` kept the chosen branch's
  own; a name assigned in only one branch is selected against its value from before the
  `if`.
- Gradients: `torch.where` sends the upstream gradient to the branch that is selected and
  zeros to the other, so the inputs of both branches get gradients: one that only the
  branch not taken uses gets a zero `.grad` where it had `None`, and `requires_grad` of
  the result is set when either branch requires grad. A branch that is not taken but has
  an infinite derivative there gives NaN gradients: `torch.where(c, x.sqrt(), x)` where
  `x` is 0 or negative, `log`, or division by zero backpropagate `0 * inf = NaN` into
  `x.grad`, where the `if` gave a finite gradient. Guard the argument too
  (`x.clamp(min=eps).sqrt()`) when training through such a branch.
- Aliasing: the result is always a new tensor, never a view of a branch value or the same
  object: after `out = x` in a branch, `out is x` no longer holds, and an in-place change
  of one (`out.add_(1)`, `x[0] = 0`, `out += 1`) no longer reaches the other. When the
  rewrite can see such a change after the `if` (`out = x` or a view such as `x[0]`, or a
  name only some branches assign, then an in-place method, item assignment or augmented
  assignment on one of them), it reports instead of rewriting; a change made through
  another name or inside a called function is not seen. `a += e` in a branch is in place
  on a tensor in eager: other references to that tensor saw the change, after the rewrite
  they do not.
- Exceptions: an exception a branch raises (a shape mismatch, an index out of range, an
  `assert`-like check in a called function) now raises whether or not the branch would
  have been taken, and so does one from an `elif` condition after a true one. A condition
  with several elements raises in `if` (`RuntimeError`: ambiguous truth value) but is
  broadcast by `torch.where`, which raises nothing.
- Toolchains: the result uses only `torch.as_tensor`, `torch.where` and
  `torch.logical_and/or/not`: it scripts, compiles (`fullgraph=True` too, where the `if`
  broke the graph) and exports with a `Where` node (TRT102 turns it into a blend for
  TensorRT releases that need one). `torch.fx.symbolic_trace` fails on `torch.as_tensor`
  of a traced value, as it failed on the `if`.

Which TensorRT versions: all (the baked-in branch is an export problem, not a parser one).""",
        fix=Safety.UNSAFE,
        examples=(
            Example(
                """\
class Gate(nn.Module):
    def forward(self, feat, prev):
        if feat.abs().mean() > 0.5:
            out = feat + prev
        else:
            out = prev
        return out
""",
                """\
class Gate(nn.Module):
    def forward(self, feat, prev):
        _trt_cond = torch.as_tensor(feat.abs().mean() > 0.5)
        out = torch.where(_trt_cond, feat + prev, prev)
        return out
""",
                unsafe=True,
            ),
            Example(
                """\
class Tracker:
    def step(self, score: torch.Tensor, age: torch.Tensor):
        if score < 0.3:
            age += 1
        return age
""",
                """\
class Tracker:
    def step(self, score: torch.Tensor, age: torch.Tensor):
        _trt_cond = torch.as_tensor(score < 0.3)
        age = torch.where(_trt_cond, age + 1, age)
        return age
""",
                unsafe=True,
            ),
            Example(
                """\
class Head(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            self.hits += 1
        return x
""",
            ),
        ),
        references=_REFERENCES,
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._chain_members: set[cst.If] = set()

    def visit_If(self, node: cst.If) -> None:
        if node in self._chain_members:
            return
        tests, bodies, else_body = [], [], None
        current: cst.If | None = node
        while current is not None:
            tests.append(current.test)
            bodies.append(current.body)
            orelse = current.orelse
            if type(orelse) is cst.If:
                self._chain_members.add(orelse)
                current = orelse
            else:
                else_body = orelse.body if orelse is not None else None
                current = None
        if self.context.function is None:
            return  # module-level code is not what a model's forward runs
        facts = self.current_facts()
        if facts is None and self.context.facts is None:
            return
        decided = [self.evident(facts, test) for test in tests]
        dependent = [depends for depends, _ in decided]
        if not any(dependent):
            return
        index = dependent.index(True)
        first = code_of(tests[index]).strip()
        if len(first) > 60:
            first = first[:57] + "..."
        message = (f"`if {first}` depends on tensor values: a traced export keeps only the branch the example "
                   "input takes")
        if decided[index][1]:
            message += " (observed: the recorded run read a tensor value in this condition)"
        fix, reason = None, "not every condition is data-dependent" if not all(dependent) else None
        if reason is None:
            fix, reason = self._vectorize(node, tests, bodies, else_body)
        if fix is not None:
            self.report(node, message + "; select the assigned values with torch.where", fix)
        else:
            self.report(node, f"{message}; {_GUIDANCE} (not rewritten: {reason})")

    # --- the rewrite -------------------------------------------------------------

    def _vectorize(self, node: cst.If, tests: list, bodies: list, else_body) -> tuple[Fix | None, str]:
        conditions = []
        for test in tests:
            converted = self._condition(test)
            if converted is None:
                return None, ("the condition is a Python value (.item(), int(), a chained comparison...) "
                             "or a static check guards a data-dependent one")
            conditions.append(converted)
        branches: list[dict[str, cst.BaseExpression]] = []
        for body in [*bodies, *([else_body] if else_body is not None else [])]:
            assigned = _branch_assignments(body)
            if isinstance(assigned, str):
                return None, assigned
            branches.append(assigned)
        if else_body is None:
            branches.append({})
        targets: list[str] = []
        for branch in branches:
            targets.extend(name for name in branch if name not in targets)
        if not targets:
            return None, "the branches assign nothing"
        for branch in branches:
            for name, value in branch.items():
                if (_read_names(value) & set(targets)) - {name}:
                    return None, "a branch reads a name another assignment of this `if` sets"
        aliasing = _aliasing_mutated(self.context.function, node, branches)
        if aliasing:
            return None, aliasing
        missing = {name for branch in branches for name in targets if name not in branch}
        if missing:
            bound = _bound_before(self.context.function, node)
            if bound is None or not missing <= bound:
                unbound = sorted(missing - (bound or set()))
                return None, f"`{unbound[0]}` is assigned in only some branches and not bound before the `if`"
        used = _read_names(self.context.function) | {
            n for t, _ in self.index(self.context.function).pairs for n in bound_names(t)
        }
        cond_names = _fresh_names(used, len(conditions))
        where = self.context.torch_attr("where")
        statements: list[cst.BaseStatement] = []
        for name, condition in zip(cond_names, conditions):
            statements.append(_assign(name, condition))
        for target in targets:
            value: cst.BaseExpression = branches[-1].get(target, cst.Name(target))
            for number in reversed(range(len(conditions))):
                chosen = branches[number].get(target, cst.Name(target))
                value = cst.Call(func=where, args=_args(cst.Name(cond_names[number]), chosen, value))
            statements.append(_assign(target, value))
        comments = _comments_inside(node)
        statements[0] = statements[0].with_changes(leading_lines=[*node.leading_lines, *comments])
        return Fix({node: cst.FlattenSentinel(statements)}, safety=Safety.UNSAFE), ""

    def _condition(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """The condition as a bool tensor expression, or None when it stays a Python value."""
        if type(test) is cst.BooleanOperation:
            facts = self.current_facts()
            if facts is None or not (facts.condition_depends(test.left) and facts.condition_depends(test.right)):
                # `x is not None and x.sum() > 0`: the static operand guards the other one;
                # without short-circuiting, the guarded part would run anyway.
                return None
            left, right = self._condition(test.left), self._condition(test.right)
            if left is None or right is None:
                return None
            name = "logical_and" if type(test.operator) is cst.And else "logical_or"
            return cst.Call(func=self.context.torch_attr(name), args=_args(left, right))
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            inner = self._condition(test.expression)
            if inner is None:
                return None
            return cst.Call(func=self.context.torch_attr("logical_not"), args=_args(inner))
        for n in walk(test):
            if type(n) is cst.Call:
                parts = method_call(n)
                if parts and parts[1] in _PY_VALUE_METHODS:
                    return None
                if type(n.func) is cst.Name and n.func.value in _PY_VALUE_BUILTINS:
                    return None
            if type(n) in (cst.Await, cst.Yield, cst.NamedExpr):
                return None
        if type(test) is cst.Comparison:
            if len(test.comparisons) != 1 or type(test.comparisons[0].operator) in (cst.In, cst.NotIn, cst.Is, cst.IsNot):
                return None
            return cst.Call(func=self.context.torch_attr("as_tensor"), args=_args(strip_parens(test)))
        as_tensor = cst.Call(func=self.context.torch_attr("as_tensor"), args=_args(strip_parens(test)))
        parts = method_call(test) if type(test) is cst.Call else None
        if parts is not None and parts[1] in _BOOL_METHODS:
            return as_tensor
        return cst.Call(func=cst.Attribute(value=as_tensor, attr=cst.Name("bool")))



def _args(*values: cst.BaseExpression) -> list[cst.Arg]:
    args = []
    for number, value in enumerate(values):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if number < len(values) - 1 else cst.MaybeSentinel.DEFAULT
        args.append(cst.Arg(value=strip_parens(value), comma=comma))
    return args


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)])


def _fresh_names(used: set[str], count: int) -> list[str]:
    names: list[str] = []
    number = 1
    while len(names) < count:
        name = "_trt_cond" if number == 1 else f"_trt_cond_{number}"
        if name not in used:
            names.append(name)
        number += 1
    return names


_AUG_TO_BINARY = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor, cst.LeftShiftAssign: cst.LeftShift,
    cst.RightShiftAssign: cst.RightShift,
}


def _branch_assignments(body: cst.BaseSuite) -> dict[str, cst.BaseExpression] | str:
    """Name → value for a branch made only of plain assignments, or why not."""
    smalls: list[cst.BaseSmallStatement] = []
    if type(body) is cst.SimpleStatementSuite:
        smalls = list(body.body)
    else:
        for statement in body.body:
            if type(statement) is not cst.SimpleStatementLine:
                return "a branch holds a compound statement"
            smalls.extend(statement.body)
    assigned: dict[str, cst.BaseExpression] = {}
    for small in smalls:
        if type(small) is cst.Pass:
            continue
        if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
            name, value = small.targets[0].target.value, small.value
        elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
            name, value = small.target.value, small.value
        elif type(small) is cst.AugAssign and type(small.target) is cst.Name:
            name = small.target.value
            value = cst.BinaryOperation(
                left=cst.Name(name), operator=_AUG_TO_BINARY[type(small.operator)](), right=parenthesize(small.value)
            )
        else:
            return "a branch does more than assign plain names"
        if name in assigned:
            return f"`{name}` is assigned twice in one branch"
        problem = _impure(value)
        if problem:
            return problem
        if any(type(n) in (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString) for n in walk(value)) \
                or (type(value) is cst.Name and value.value == "None"):
            return "a branch assigns a string or None, which torch.where cannot select"
        assigned[name] = value
    return assigned


#: Methods whose result may share storage with the receiver (a view, or the receiver
#: itself when nothing changes: ``x.to(x.dtype)``, ``x.contiguous()``, ``x.float()`` of a float).
_ALIASING_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "squeeze", "unsqueeze", "transpose",
    "permute", "t", "expand", "expand_as", "narrow", "select", "unfold", "diagonal", "movedim", "moveaxis",
    "swapaxes", "swapdims", "as_strided", "detach", "contiguous", "to", "type", "type_as", "float", "double",
    "half", "bfloat16", "int", "long", "short", "bool", "cpu", "cuda", "view_as_real", "view_as_complex",
    "requires_grad_",
})
_ALIASING_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})


def _storage_root(node: cst.BaseExpression) -> str | None:
    """The dotted name whose tensor ``node`` may be, or be a view of (``x``, ``x[0]``, ``self.buf.t()``)."""
    while True:
        if type(node) is cst.Subscript:
            node = node.value
        elif type(node) is cst.Call and type(node.func) is cst.Attribute \
                and node.func.attr.value in _ALIASING_METHODS:
            node = node.func.value
        elif type(node) is cst.Attribute and node.attr.value in _ALIASING_ATTRS:
            node = node.value
        else:
            return dotted_name(node) if type(node) in (cst.Name, cst.Attribute) else None


def _aliasing_mutated(func: cst.FunctionDef | None, node: cst.If, branches: list[dict]) -> str | None:
    """Why the rewrite would break an alias, or None.

    ``out = x`` in a branch makes ``out`` the very tensor ``x`` (``out = x[0]`` a view of
    it), and a name a branch leaves alone keeps its own tensor: an in-place change after
    the ``if`` shows through every name for that tensor. The
    rewrite's ``torch.where`` is always a new tensor, so that change would no longer
    reach the other name. Only a syntactic check: a mutation through another name or
    inside a called function is not seen (the rule's doc says so).
    """
    if func is None:
        return None
    tracked: dict[str, str] = {}  # dotted name -> how it shares a tensor with a name the `if` sets
    for branch in branches:
        for target, value in branch.items():
            source = _storage_root(value)
            if source is None:
                continue
            how = f"`{target} = {short_code(value)}` makes both names one tensor"
            tracked.setdefault(target, how)
            tracked.setdefault(source, how)
    assigned = list(dict.fromkeys(name for branch in branches for name in branch))  # source order
    for target in assigned:
        if any(target not in branch for branch in branches):
            # Not assigned on some path: there eager keeps the very tensor the name had.
            tracked.setdefault(target, f"`{target}` keeps its own tensor where a branch does not assign it")
    if not tracked:
        return None
    loop = _outermost_loop(func, node)
    start = loop if loop is not None else node
    # The branches' own `a += e` is the documented in-place difference, not an alias one.
    inside = {id(n) for n in walk(node)}
    started = False
    for current in walk(func.body):
        if current is start:
            started = True
        if not started or id(current) in inside:
            continue
        for root, change in _mutations(current):
            for name, how in tracked.items():
                if root == name or root.startswith(name + "."):
                    return (f"{how}, and `{change}` later changes it in place; torch.where would give a new "
                            "tensor the change does not reach")
    return None


def _outermost_loop(func: cst.FunctionDef, target: cst.CSTNode) -> cst.CSTNode | None:
    """The outermost ``for``/``while`` of ``func`` around ``target`` (the ``if`` runs again after code below it)."""
    return _loop_around(func, target, func.body, None)[1]


def _loop_around(func: cst.FunctionDef, target: cst.CSTNode, current: cst.CSTNode,
                 loop: cst.CSTNode | None) -> tuple[bool, cst.CSTNode | None]:
    """(is ``target`` at or below ``current``, the outermost loop around it, ``loop`` if none below)."""
    if current is target:
        return True, loop
    if type(current) in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and current is not func:
        return False, None
    if loop is None and type(current) in (cst.For, cst.While):
        loop = current
    for child in children(current):
        found, outer = _loop_around(func, target, child, loop)
        if found:
            return True, outer
    return False, None


def _mutations(node: cst.CSTNode) -> list[tuple[str, str]]:
    """(a dotted name a statement or call may change in place, how) for each such name."""
    if type(node) is cst.AugAssign:
        root = _storage_root(node.target)
        return [(root, short_code(node))] if root else []  # `t += 1` is in place for a tensor
    if type(node) is cst.Assign:
        found = []
        for target in node.targets:
            if type(target.target) in (cst.Subscript, cst.Attribute):
                root = _storage_root(target.target.value)
                if root:
                    found.append((root, short_code(target.target) + " = ..."))
        return found
    if type(node) is not cst.Call:
        return []
    func = node.func
    last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    candidates: list[cst.BaseExpression] = []
    if last.endswith("_") and not last.startswith("_"):
        if type(func) is cst.Attribute:
            candidates.append(func.value)  # `out.add_(1)`, `out[0].zero_()`
        if node.args and node.args[0].keyword is None:
            candidates.append(node.args[0].value)  # `torch.relu_(out)`, `nn.init.zeros_(out)`
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "out":
            candidates.append(arg.value)
        if arg.keyword is not None and arg.keyword.value == "inplace" \
                and not (type(arg.value) is cst.Name and arg.value.value in ("False", "None")):
            candidates.extend(a.value for a in node.args if a.keyword is None)
    roots = (_storage_root(candidate) for candidate in candidates)
    return [(root, short_code(node)) for root in roots if root]


def _impure(node: cst.CSTNode) -> str | None:
    """Why evaluating ``node`` unconditionally could have effects, or None."""
    for n in walk(node):
        if type(n) in (cst.Yield, cst.Await, cst.NamedExpr):
            return "a branch expression has side effects"
        if type(n) is not cst.Call:
            continue
        func = n.func
        if type(func) is cst.Attribute:
            attr = func.attr.value
            if attr.endswith("_") and not attr.startswith("_"):
                return f"a branch calls the in-place `{attr}`"
            if attr in _PY_VALUE_METHODS:
                return f"a branch calls `.{attr}()`"
        name = dotted_name(func)
        if name is not None:
            if name in _IMPURE_BUILTINS or name.split(".", 1)[0] in _IMPURE_MODULES:
                return f"a branch calls `{name}`"
    return None


def _walk_with_syntax(node: cst.CSTNode):
    """Every node, whitespace and comments included (LibCST's slower ``children``; fixes only)."""
    yield node
    for child in node.children:
        yield from _walk_with_syntax(child)


def _comments_inside(node: cst.If) -> list[cst.EmptyLine]:
    """The comments written inside an if-chain (its header lines and branches), in order."""
    comments: list[cst.EmptyLine] = []
    own = {id(line) for line in node.leading_lines}
    for n in _walk_with_syntax(node):
        if n is node or id(n) in own:
            continue
        if type(n) is cst.EmptyLine and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
        elif type(n) is cst.TrailingWhitespace and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
    return comments


def _bound_before(func: cst.FunctionDef | None, target: cst.CSTNode) -> set[str] | None:
    """Names certainly bound when ``target`` (a statement of ``func``) starts, or None if not found."""
    if func is None:
        return None
    params = func.params
    bound = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            bound.add(star.name.value)
    found = _search_block(_body_statements(func.body), target)
    return None if found is None else bound | found


def _search_block(statements: list, target: cst.CSTNode) -> set[str] | None:
    bound: set[str] = set()
    for statement in statements:
        if statement is target:
            return bound
        for block, header in _inner_blocks(statement):
            inner = _search_block(block, target)
            if inner is not None:
                return bound | header | inner
        bound |= _names_bound_by(statement)
    return None


def _inner_blocks(statement: cst.CSTNode) -> list[tuple[list, set[str]]]:
    """Statement lists nested in a compound statement, with the names its header binds there."""
    blocks: list[tuple[list, set[str]]] = []
    if type(statement) is cst.If:
        blocks.append((_body_statements(statement.body), set()))
        if statement.orelse is not None:
            if type(statement.orelse) is cst.If:
                blocks.extend(_inner_blocks(statement.orelse))
            else:
                blocks.append((_body_statements(statement.orelse.body), set()))
    elif type(statement) in (cst.For, cst.While):
        header = set(bound_names(statement.target)) if type(statement) is cst.For else set()
        blocks.append((_body_statements(statement.body), header))
        if statement.orelse is not None:
            blocks.append((_body_statements(statement.orelse.body), set()))
    elif type(statement) is cst.With:
        header = {n for item in statement.items if item.asname for n in bound_names(item.asname.name)}
        blocks.append((_body_statements(statement.body), header))
    elif type(statement) in (cst.Try, cst.TryStar):
        blocks.append((_body_statements(statement.body), set()))
        for handler in statement.handlers:
            name = {handler.name.name.value} if handler.name and type(handler.name.name) is cst.Name else set()
            blocks.append((_body_statements(handler.body), name))
        for extra in (statement.orelse, statement.finalbody):
            if extra is not None:
                blocks.append((_body_statements(extra.body), set()))
    return blocks


def _names_bound_by(statement: cst.CSTNode) -> set[str]:
    """Names a statement binds on every path through it (straight-line code and `with` bodies)."""
    names: set[str] = set()
    if type(statement) is cst.SimpleStatementLine:
        for small in statement.body:
            if type(small) is cst.Assign:
                for target in small.targets:
                    names.update(bound_names(target.target))
            elif type(small) is cst.AnnAssign and small.value is not None:
                names.update(bound_names(small.target))
            elif type(small) is cst.AugAssign:
                names.update(bound_names(small.target))
            elif type(small) in (cst.Import, cst.ImportFrom) and type(small.names) is not cst.ImportStar:
                for alias in small.names:
                    local = alias.asname.name if alias.asname else alias.name
                    text = dotted_name(local) if type(local) in (cst.Name, cst.Attribute) else None
                    if text:
                        names.add(text.split(".", 1)[0])
    elif type(statement) is cst.With:
        names |= {n for item in statement.items if item.asname for n in bound_names(item.asname.name)}
        for inner in _body_statements(statement.body):
            names |= _names_bound_by(inner)
    return names


class DataDependentLoop(_DataFlowRule):
    info = RuleInfo(
        id="TRT104",
        name="data-dependent-loop",
        summary="`while` or `for ... in range(n)` with a trip count from tensor values: tracing unrolls it",
        doc="""\
What it finds: a `while` loop whose condition depends on tensor values, and a
`for ... in range(...)` whose bound does (`range(int(n))`, `range(x.sum())`,
`range(n.item())`), with the same evidence as TRT101: the trip count must evidently come
from tensor values (loops over `range(x.shape[0])`, `range(len(names))` or a
configuration value are static and not reported).

Why it hurts: a traced export runs the loop once, with the example's trip count, and
unrolls it: the graph repeats the body exactly that many times, whatever the input says
at run time. Scripting keeps an ONNX `Loop`, whose dynamic trip count TensorRT handles
slowly and with restrictions (loop-carried values must keep one shape).

What to do: when the iterations are independent, vectorize them (compute all candidates at
once with a fixed maximum count and mask the unused ones); when they are not, move the loop
into a `torch.jit.script` function, or run it outside the exported graph and pass its result
in.

The rewrite (a loop in a module-level function without decorators, the guidance's recipe):
`@torch.jit.script` on that function. The TorchScript exporter then keeps the loop as an ONNX
`Loop` whose trip count follows the input; TensorRT parses `Loop`.

Fix safety: unsafe. It assumes the function compiles with TorchScript as written
(parameters without annotations are taken as Tensors, and Python features TorchScript lacks
fail at import), that eager callers accept the compiled function (same values, but another
call overhead and no Python debugging inside), and that the model is exported with the
TorchScript exporter: the dynamo exporter refuses scripted functions (TRT105). `migrate`
tries it as a candidate where the export bakes the trip count; a function that does not
compile, or a model that no longer matches, is reverted.

Which TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        examples=(
            Example(
                """\
class Refiner(nn.Module):
    def forward(self, x, steps):
        for _ in range(int(steps)):
            x = self.block(x)
        return x
""",
            ),
            Example(
                """\
def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = x * 0.5 + 1.0
    return x
""",
                """\
@torch.jit.script
def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = x * 0.5 + 1.0
    return x
""",
                unsafe=True,
            ),
            Example(
                """\
class Decoder:
    def decode(self, scores: torch.Tensor):
        n = 0
        while scores[n] > 0.5:
            n += 1
        return n
""",
            ),
        ),
        references=_REFERENCES,
    )

    def visit_While(self, node: cst.While) -> None:
        if self.context.function is None:
            return
        if self.evident(self.current_facts(), node.test)[0]:
            self.report(node, "`while` condition depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop",
                        self._script_fix())

    def _script_fix(self) -> Fix | None:
        """``@torch.jit.script`` on the module-level function that holds the loop, if it is one."""
        context = self.context
        if len(context.functions) != 1 or context.classes:
            return None
        function = context.functions[0]
        if function.decorators or function.asynchronous is not None:
            return None
        decorator = cst.Decorator(decorator=context.torch_attr("jit.script"))
        return Fix({function: function.with_changes(decorators=[decorator])}, safety=Safety.UNSAFE)

    def visit_For(self, node: cst.For) -> None:
        call = node.iter
        if not (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range"):
            return
        if self.context.qualified_names(call.func):
            return  # someone's own `range`
        if self.context.function is None:
            return
        facts = self.current_facts()
        seen = self.observed(call)
        if seen if seen is not None else facts is not None and any(facts.depends(arg.value) for arg in call.args):
            self.report(node, "`range(...)` bound depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop",
                        self._script_fix())


RULES = (DataDependentIf, DataDependentLoop)
