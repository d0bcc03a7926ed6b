"""Shared condition analysis of TRT101 and TRT104: does an expression read tensor values?

What counts as data-dependent: only what is *evidently* a tensor value (real code
branches far more often on strings, NumPy arrays, ints and shapes than on tensors, and
vectorizing those breaks working code). The rules' documentation says what that means
for users; :class:`ConditionEvidence` is the provider that computes it, once per class and
function of a file, and :class:`_DataFlowRule` the base both rules share (it adds what a
recorded run observed, through :class:`~trtcodemod.providers.ObservedFacts`).
This module defines no rule and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import libcst as cst

from trtcodemod.astutil import bound_names, children, code_of, decorator_names, walk
from trtcodemod.context import FileContext
from trtcodemod.names import dotted_name
from trtcodemod.providers import ObservedFacts, Provider
from trtcodemod.rules import Rule

REFERENCES = (
    "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
    "https://pytorch.org/docs/stable/generated/torch.where.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
)


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


def read_names(node: cst.CSTNode) -> set[str]:
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
    #: The function, its parameters and its bindings, for :meth:`fixed` (built on first question).
    function: cst.FunctionDef | None = None
    parameters: list[cst.Param] = field(default_factory=list)
    bindings: list | None = None
    _configuration: "_Configuration | None" = None

    def fixed(self, node: cst.CSTNode) -> bool:
        """Is ``node`` the same for every input of the model: built from configuration only
        (:class:`_Configuration`)? A branch on it is baked correctly by a trace."""
        if self.function is None or self.bindings is None:
            return False
        if self._configuration is None:
            self._configuration = _Configuration(self.context, self.function, self.parameters, self.bindings)
        return self._configuration.fixed(node)

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

    def scripted_read(self, test: cst.BaseExpression) -> bool:
        """Does ``test`` read a name bound from a call of a scripted function of this file on tensors
        (``image, done = step(image)``, ``step`` under ``@torch.jit.script``)? What that function reads
        of tensor values it reads in TorchScript, where a recorded run sees no Python read."""
        if self.bindings is None:
            return False
        read = read_names(test)
        for target, value in self.bindings:
            if type(value) is cst.Call and type(value.func) is cst.Name and read & set(bound_names(target)) \
                    and not self.context.qualified_names(value.func) and self._scripted_file_function(value.func.value) \
                    and self._args_level(value):
                return True
        return False

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
            if not names and self._scripted_file_function(func.value):
                # A function TorchScript compiles computes from what it is given, like a submodule: its
                # results on tensors are tensors or values read from them (`image, done = step(image)`
                # with `done = torch.equal(old, image)` inside).
                return _TENSOR if self._args_level(call) else _NONE
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

    def _scripted_file_function(self, name: str) -> bool:
        """Is ``name`` a module-level function of this file decorated with ``torch.jit.script``, bound
        nowhere else at module level?"""
        body = self.context.module.body
        found = [stmt for stmt in body if type(stmt) is cst.FunctionDef and stmt.name.value == name]
        if len(found) != 1 or any(name in bound_names(t.target) for stmt in body if type(stmt) is cst.SimpleStatementLine
                                  for s in stmt.body if type(s) is cst.Assign for t in s.targets):
            return False
        return any(self.context.refers_to(d.decorator, "torch.jit.script") for d in found[0].decorators)

    def _static_call(self, call: cst.Call) -> bool:
        func = call.func
        if type(func) is cst.Attribute and func.attr.value in _STATIC_METHODS:
            return True
        if type(func) is cst.Name and func.value in _STATIC_BUILTINS and not self.context.qualified_names(func):
            return True
        if self.context.refers_to(func, *_STATIC_TORCH):
            return True
        return False


def _analyze(rule: "ConditionEvidence", func: cst.FunctionDef, seeds: dict[str, int], owner: _ClassEvidence | None,
             is_method: bool) -> _Facts:
    """Evidence for ``func``'s locals, starting from the parameters in ``seeds``."""
    facts = _Facts(rule.context, owner)
    facts.parameters = _method_params(func, is_method)
    facts.params = {p.name.value for p in facts.parameters}
    facts.function = func
    facts.bindings = rule.index(func).pairs  # a list, not a callable: nothing here may point back at the provider
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


# --- tensors built from configuration only -------------------------------------------

#: torch functions whose result is not the same on every call (random draws, uninitialised memory).
_UNREPEATABLE = frozenset({
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "bernoulli", "multinomial",
    "normal", "poisson", "empty", "empty_like", "empty_strided", "dropout", "dropout1d", "dropout2d", "dropout3d",
    "alpha_dropout", "feature_alpha_dropout", "rrelu", "gumbel_softmax",
})
#: Tensor methods that draw random numbers (in place or not).
_UNREPEATABLE_METHODS = frozenset({
    "uniform_", "normal_", "random_", "bernoulli_", "bernoulli", "exponential_", "geometric_", "cauchy_",
    "log_normal_", "multinomial",
})
#: ``torch.nn.init`` functions that write the same values every time.
_FIXED_INIT = frozenset({"zeros_", "ones_", "constant_", "eye_", "dirac_"})
#: Attributes that say nothing about a tensor's values or sizes: fixed in an exported graph.
_FIXED_ATTRS = frozenset({"dtype", "device", "is_cuda", "is_cpu", "layout", "ndim"})
#: Methods that answer the same as :data:`_FIXED_ATTRS` (the rank, the dtype, the device).
_FIXED_METHODS = frozenset({"dim", "ndimension", "is_floating_point", "is_complex", "get_device", "element_size"})
#: Methods whose tensor arguments only lend their dtype and device (``t.to(x)``, ``x.new_zeros(n)``).
_LENDING_METHODS = frozenset({"to", "type_as"})
_NEW_FROM_RECEIVER = frozenset({"new_tensor", "new_ones", "new_zeros", "new_full"})
#: Builtins that compute from their arguments alone.
_PURE_BUILTINS = frozenset({"int", "float", "bool", "abs", "min", "max", "round", "range", "len", "sum", "pow",
                            "divmod", "reversed", "enumerate", "zip", "tuple", "list"})
#: Tensor methods and torch functions that make a new tensor, never a view or the same object: a
#: name bound to one does not alias the names it reads.
_FRESH = frozenset({
    "exp", "log", "log2", "log10", "sqrt", "rsqrt", "abs", "neg", "sin", "cos", "tan", "tanh", "sigmoid", "sign",
    "floor", "ceil", "round", "trunc", "frac", "pow", "square", "sum", "mean", "prod", "max", "min", "amax", "amin",
    "argmax", "argmin", "std", "var", "norm", "cumsum", "cumprod", "clamp", "clip", "add", "sub", "mul", "div",
    "matmul", "mm", "bmm", "outer", "ger", "cat", "stack", "clone", "where", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "any", "all", "softmax", "exp2", "reciprocal", "remainder",
    "fmod", "atan2", "hypot", "erf", "lgamma", "cos", "arange", "linspace", "logspace", "ones", "zeros", "full",
    "eye", "tensor", "zeros_like", "ones_like", "full_like", "kron", "cdist", "einsum", "meshgrid", "repeat",
    "tile", "flip", "roll", "sort", "topk", "masked_fill", "index_select", "gather", "item", "tolist",
})


class _Configuration:
    """Which expressions of one function are the same for every input of the model: built only
    from literals, configuration parameters, module constants and the ``dtype``/``device`` of
    anything, through torch factories, operators, torch functions and tensor methods (piq's DSS:
    ``coords = torch.arange(1, dct_size + 1, dtype=x.dtype, device=x.device)``, a Gaussian of it,
    then ``if weight[m, n] < threshold: weight[m, n] = 0``).

    Flow-insensitive like the rest of this module, and conservative: a name is configuration only
    when every binding of it is, when nothing the function writes into it or into what may alias
    it (an item assignment, an in-place method, ``out=``) is other than configuration, and when it
    does not escape where this function cannot see it changed (stored on an attribute, passed to a
    function that is not torch's, read by a nested function, ``global``). A parameter is
    configuration as TRT101 reads it (annotated ``int``/``float``/``bool``/``str`` or with such a
    literal default); sizes of inputs are not (a shape read follows the input), nor is any call
    the proof cannot see into, nor a random draw.
    """

    def __init__(self, context: FileContext, func: cst.FunctionDef, params: list[cst.Param],
                 pairs: list[tuple[cst.BaseExpression, cst.CSTNode]], depth: int = 2, given: bool = False) -> None:
        self.context = context
        self._depth = depth
        self._given = given
        self._helpers: dict[cst.FunctionDef, bool] = {}
        # `given`: a helper called with configuration only, so every parameter holds configuration.
        self._config_params = {p.name.value for p in params if given or _static_param(p)}
        self._params = {p.name.value for p in params}
        for star in (func.params.star_arg, func.params.star_kwarg):
            if type(star) is cst.Param:
                self._params.add(star.name.value)
        self._bindings: dict[str, list[cst.CSTNode]] = {}
        #: Values written into part of a name (``weight[m, n] = 0``) and the targets (their index is read).
        self._writes: dict[str, list[cst.CSTNode]] = {}
        #: In-place calls on a name (``w.mul_(s)``, ``nn.init.zeros_(w)``).
        self._in_place: dict[str, list[cst.Call]] = {}
        self._tainted: set[str] = set()
        self._targets: set[cst.CSTNode] = set()
        #: Calls of helpers of this file that are given a name (they may write into it).
        self._lent: dict[str, list[tuple[cst.Call, cst.FunctionDef]]] = {}
        alias: dict[str, set[str]] = {}
        for target, value in pairs:
            names = bound_names(target)
            if names:
                for name in names:
                    self._bindings.setdefault(name, []).append(value)
                    alias.setdefault(name, set()).update(self._roots(value))
                continue
            root = _subscript_root(target)
            if root is not None:
                self._writes.setdefault(root, []).extend([value, target])
                self._targets.add(target)
                alias.setdefault(root, set()).update(self._roots(value))
            else:
                self._tainted.update(self._roots(value))  # stored on an attribute: changed where we cannot see
        self._scan(func)
        # Names that may share storage change together: a write into one is a write into all.
        self._groups = _closure(alias)
        self._known: dict[str, bool] = {}
        self._busy: set[str] = set()

    def _scan(self, func: cst.FunctionDef) -> None:
        """In-place calls, ``out=``, arguments of calls that may keep or change them, nested reads, ``global``."""
        stack: list[tuple[cst.CSTNode, bool]] = [(func.body, False)]
        while stack:
            node, nested = stack.pop()
            kind = type(node)
            if kind in _DEFINITION_TYPES:
                nested = True
            elif nested and kind is cst.Name:
                self._tainted.add(node.value)
            elif kind in (cst.Global, cst.Nonlocal):
                self._tainted.update(n.name.value for n in node.names)
            elif kind is cst.Call and not nested:
                self._scan_call(node)
            stack.extend((child, nested) for child in children(node))

    def _scan_call(self, call: cst.Call) -> None:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._tainted.update(self._roots(arg.value))
        func = call.func
        names = self.context.qualified_names(func) if type(func) in (cst.Name, cst.Attribute) else ()
        torch_names = [n for n in names if n.startswith(_TORCH_PREFIXES)]
        if torch_names:
            if any(n.rsplit(".", 1)[-1].endswith("_") for n in torch_names) and call.args:
                # `nn.init.zeros_(w)`, `torch.clamp_(w, ...)`: what the call writes into its first argument
                first = call.args[0].value
                for root in self._roots(first):
                    self._in_place.setdefault(root, []).append(call)
            return
        if type(func) is cst.Name and not names and func.value in _PURE_BUILTINS:
            return
        helper = self._file_function(func.value) if type(func) is cst.Name and not names else None
        if helper is not None:
            # Given only configuration, what a helper of this file writes into its arguments is configuration.
            for arg in call.args:
                for root in self._roots(arg.value):
                    self._lent.setdefault(root, []).append((call, helper))
            return
        if names and all(n.startswith(("math.", "numpy.")) for n in names):
            return
        if type(func) is cst.Attribute and not names:
            method = func.attr.value
            if method.endswith("_") and not method.startswith("_"):
                for root in self._roots(func.value):
                    self._in_place.setdefault(root, []).append(call)  # `w.mul_(s)`: its arguments must be configuration
                return
            if method not in _CONTAINER_METHODS:
                return  # a tensor method reads its arguments (a list's `append` keeps them)
        for arg in call.args:
            self._tainted.update(self._roots(arg.value))  # an unknown function may keep or change what it is given

    def _roots(self, node: cst.CSTNode) -> set[str]:
        """Local names ``node``'s value may share storage with (the same object, a view, a container of them)."""
        kind = type(node)
        if kind is cst.Name:
            return {node.value}
        if kind is cst.Subscript:
            return self._roots(node.value)
        if kind is cst.Attribute:
            return self._roots(node.value) if node.attr.value in _TENSOR_ATTRS else set()
        if kind in (cst.Tuple, cst.List, cst.Set):
            return {r for e in node.elements for r in self._roots(e.value)}
        if kind is cst.Dict:
            return {r for e in node.elements if type(e) is cst.DictElement for r in self._roots(e.value)}
        if kind is cst.IfExp:
            return self._roots(node.body) | self._roots(node.orelse)
        if kind is cst.NamedExpr:
            return self._roots(node.value)
        if kind is cst.Call:
            func = node.func
            last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
            if last in _FRESH:
                return set()
            found = {r for arg in node.args for r in self._roots(arg.value)}
            if type(func) is cst.Attribute:
                found |= self._roots(func.value)
            return found
        return set()  # literals, operators: a new value

    # --- the proof -------------------------------------------------------------------

    def fixed(self, node: cst.CSTNode) -> bool:
        """Is ``node`` the same for every input of the model (configuration only)?"""
        kind = type(node)
        if kind in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString):
            return True
        if kind is cst.Name:
            return self._name(node.value)
        if kind is cst.Attribute:
            if node.attr.value in _FIXED_ATTRS:
                return True
            names = self.context.qualified_names(node)
            if names:
                return all(n.startswith(("torch.", "math.", "numpy.")) for n in names)  # torch.float32, math.pi
            return self.fixed(node.value)  # `t.shape`, `t.T`, `finfo.eps` of what is fixed
        if kind is cst.Subscript:
            return self.fixed(node.value) and all(self._fixed_slice(e.slice) for e in node.slice)
        if kind is cst.Call:
            return self._call(node)
        if kind in (cst.BinaryOperation, cst.BooleanOperation):
            return self.fixed(node.left) and self.fixed(node.right)
        if kind is cst.UnaryOperation:
            return self.fixed(node.expression)
        if kind is cst.Comparison:
            return self.fixed(node.left) and all(self.fixed(c.comparator) for c in node.comparisons)
        if kind is cst.IfExp:
            return self.fixed(node.test) and self.fixed(node.body) and self.fixed(node.orelse)
        if kind in (cst.Tuple, cst.List):
            return all(type(e) is cst.Element and self.fixed(e.value) for e in node.elements)
        return False

    def _fixed_slice(self, item: cst.CSTNode) -> bool:
        if type(item) is cst.Index:
            return item.star is None and self.fixed(item.value)
        if type(item) is cst.Slice:
            return all(part is None or self.fixed(part) for part in (item.lower, item.upper, item.step))
        return False

    def _args(self, call: cst.Call, lending: bool = False) -> bool:
        for arg in call.args:
            if arg.star:
                return False
            if arg.keyword is not None and arg.keyword.value in ("dtype", "device"):
                continue  # where the values live, not what they are
            if arg.keyword is not None and arg.keyword.value == "out":
                return False
            if lending and arg.keyword is None:
                continue  # `t.to(x)`: x lends its dtype and device only
            if not self.fixed(arg.value):
                return False
        return True

    def _call(self, call: cst.Call) -> bool:
        func = call.func
        names = self.context.qualified_names(func) if type(func) in (cst.Name, cst.Attribute) else ()
        if names:
            if any(n.startswith(_TORCH_PREFIXES) for n in names):
                last = {n.rsplit(".", 1)[-1] for n in names}
                if last & _UNREPEATABLE or any(".random." in n or ".distributions." in n for n in names):
                    return False
                if any(n in _STATIC_TORCH for n in names):
                    return True
                return self._args(call)
            if all(n.startswith(("math.", "numpy.")) and not n.startswith("numpy.random.") for n in names):
                return self._args(call)
            return False  # an import the proof cannot see into
        if type(func) is cst.Name:
            if func.value in self._bindings or func.value in self._params:
                return False  # a local callable: unknown
            if func.value in _PURE_BUILTINS:
                return self._args(call)
            helper = self._file_function(func.value)
            return helper is not None and self._args(call) and self._returns_fixed(helper)
        if type(func) is not cst.Attribute:
            return False
        method = func.attr.value
        if method in _UNREPEATABLE_METHODS or method.startswith("_"):
            return False
        if method in _FIXED_METHODS:
            return True
        if method in _NEW_FROM_RECEIVER:
            return self._args(call)  # `x.new_zeros(n)`: x lends its dtype and device
        if not self.fixed(func.value):
            return False
        return self._args(call, lending=method in _LENDING_METHODS)

    def _file_function(self, name: str) -> cst.FunctionDef | None:
        """The undecorated module-level function ``name`` of this file, bound nowhere else at module level."""
        found = [stmt for stmt in self.context.module.body if type(stmt) is cst.FunctionDef and stmt.name.value == name]
        rebound = any(name in bound_names(t.target) for stmt in self.context.module.body
                      if type(stmt) is cst.SimpleStatementLine for s in stmt.body if type(s) is cst.Assign
                      for t in s.targets)
        if len(found) != 1 or rebound or found[0].decorators or found[0].asynchronous is not None:
            return None
        return found[0]

    def _returns_fixed(self, helper: cst.FunctionDef) -> bool:
        """Does ``helper`` return configuration whenever it is given configuration (torchaudio's
        ``_hz_to_mel(f_min)``, ``_create_triangular_filterbank(all_freqs, f_pts)``)? Every parameter is
        taken as configuration (the call passed configuration, or the default is), and every ``return``
        must be; a generator, or a helper more than :data:`_HELPER_DEPTH` calls deep, is not."""
        known = self._helpers.get(helper)
        if known is not None:
            return known
        self._helpers[helper] = False  # recursion proves nothing
        answer = False
        if self._depth > 0:
            params = [*helper.params.posonly_params, *helper.params.params, *helper.params.kwonly_params]
            inner = _Configuration(self.context, helper, params, _FunctionIndex.of(helper).pairs,
                                   depth=self._depth - 1, given=True)
            returns = [n for n in _own_nodes(helper) if type(n) is cst.Return]
            answer = bool(returns) and not any(type(n) in (cst.Yield, cst.Await) for n in _own_nodes(helper)) \
                and not any(inner._groups.get(p.name.value, {p.name.value}) & inner._tainted for p in params) \
                and all(p.default is None or inner.fixed(p.default) for p in params) \
                and all(r.value is None or inner.fixed(r.value) for r in returns)
        self._helpers[helper] = answer
        return answer

    def _name(self, name: str) -> bool:
        if name in ("True", "False", "None"):
            return True
        known = self._known.get(name)
        if known is not None:
            return known
        if name in self._busy:
            return True  # a cycle of bindings adds no source of values
        self._busy.add(name)
        try:
            answer = self._name_uncached(name)
        finally:
            self._busy.discard(name)
        if not self._busy:
            self._known[name] = answer
        return answer

    def _name_uncached(self, name: str) -> bool:
        if name in self._params and name not in self._config_params:
            return False
        bindings = self._bindings.get(name)
        if bindings is None and name not in self._params:
            return self._module_constant(name)
        if not all(self._bound(value) for value in bindings or ()):
            return False
        if self._immutable(name):
            return True
        group = self._groups.get(name, {name})
        if group & self._tainted:
            return False
        if not all(self._args(call) and self._returns_fixed(helper) for member in group
                   for call, helper in self._lent.get(member, ())):
            return False
        # What is written into any name sharing its storage must be configuration too.
        return all(self._written(value) for member in group for value in self._writes.get(member, ())) and all(
            self._args(call) and self._fixed_call_target(call) for member in group for call in self._in_place.get(member, ()))

    def _bound(self, value: cst.CSTNode) -> bool:
        return isinstance(value, cst.BaseExpression) and self.fixed(value)

    def _immutable(self, name: str) -> bool:
        """A number, string or flag (a configuration parameter never rebound, a literal, a ``range`` loop
        variable): what a callee is given of it cannot change it."""
        bindings = self._bindings.get(name)
        if bindings is None:
            return name in self._config_params and not self._given  # a helper's parameter may be a tensor
        literal = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)
        return all(type(v) in literal or type(v) is cst.UnaryOperation and type(v.expression) in literal
                   or type(v) is cst.Call and type(v.func) is cst.Name and v.func.value == "range"
                   for v in bindings)

    def _written(self, value: cst.CSTNode) -> bool:
        if type(value) is cst.Subscript and value in self._targets:
            return all(self._fixed_slice(e.slice) for e in value.slice)  # the index a write goes through
        return isinstance(value, cst.BaseExpression) and self.fixed(value)

    def _fixed_call_target(self, call: cst.Call) -> bool:
        """An in-place call that writes the same values every time (not ``w.normal_()``, ``nn.init.uniform_(w)``)."""
        func = call.func
        names = self.context.qualified_names(func) if type(func) in (cst.Name, cst.Attribute) else ()
        if not names:
            return type(func) is cst.Attribute and func.attr.value not in _UNREPEATABLE_METHODS
        return all(n.startswith("torch.") and (not n.startswith("torch.nn.init.") or n.rsplit(".", 1)[-1] in _FIXED_INIT)
                   for n in names)

    def _module_constant(self, name: str) -> bool:
        """A name the module binds only to literals (``THRESHOLD = 1e-2``)."""
        values = [s.value for stmt in self.context.module.body if type(stmt) is cst.SimpleStatementLine
                  for s in stmt.body if type(s) is cst.Assign
                  and any(name in bound_names(t.target) for t in s.targets)]
        literal = (cst.Integer, cst.Float, cst.SimpleString)
        return bool(values) and all(
            type(v) in literal or type(v) is cst.UnaryOperation and type(v.expression) in literal for v in values)


def _own_nodes(func: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The nodes of ``func``'s body, without those of functions, classes or lambdas defined inside it."""
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        yield node
        if type(node) not in _DEFINITION_TYPES:
            stack.extend(children(node))


def _subscript_root(target: cst.BaseExpression) -> str | None:
    """``w`` for ``w[i] = ...``, ``w[i][j] = ...`` (a write into part of a local)."""
    if type(target) is not cst.Subscript:
        return None
    while type(target) is cst.Subscript:
        target = target.value
    return target.value if type(target) is cst.Name else None


def _closure(alias: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each name's group: the names connected to it by aliasing, either way."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for name, roots in alias.items():
        for root in roots:
            parent[find(name)] = find(root)
    groups: dict[str, set[str]] = {}
    for name in list(parent):
        groups.setdefault(find(name), set()).add(name)
    return {name: groups[find(name)] for name in parent}


# --- the rules ---------------------------------------------------------------------


class ConditionEvidence(Provider):
    """Provider: which names hold tensor data in the function the traversal is in (TRT101, TRT104).

    Per class, computed on first need (most classes never reach a data-dependent branch):
    construction-time methods, module tensors and submodules, and each runtime method's
    evidence, helpers getting their callers' arguments' evidence.
    """

    requires = (ObservedFacts,)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._construction: dict[cst.ClassDef, set[cst.FunctionDef]] = {}
        self._classes: dict[cst.ClassDef, _ClassEvidence] = {}
        self._functions: dict[cst.FunctionDef, _Facts] = {}
        self._indexes: dict[cst.FunctionDef, _FunctionIndex] = {}
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
            # A plain function: parameters annotated as tensors are evidence, and those every recorded
            # call passed a tensor (pytorch_filters' `canny(image, ...)`, called by a module's forward).
            facts = self._functions.get(func)
            if facts is None:
                seen = self.provider(ObservedFacts).number_parameters(func, frozenset({"tensor"}))
                seeds = {p.name.value: _TENSOR for p in _method_params(func, False)
                         if _is_tensor_annotation(p.annotation) or p.name.value in seen}
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
        observed: ObservedFacts = self.provider(ObservedFacts)
        for name, func in runtime.items():
            seeds = evidence.seeds.setdefault(name, {})
            # An unannotated forward input reads as a tensor unless the recorded run passed it numbers
            # every time (Real-CUGAN's `forward(self, x, tile_mode, ...)` called with `tile_mode=0`).
            numbers = observed.number_parameters(func) if evidence.is_module and name == "forward" else frozenset()
            for param in _method_params(func, "staticmethod" not in decorator_names(func)):
                if _is_tensor_annotation(param.annotation):
                    seeds[param.name.value] = _TENSOR
                elif evidence.is_module and name == "forward" and param.annotation is None \
                        and not _static_param(param) and param.name.value not in numbers:
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


class _DataFlowRule(Rule):
    """Shared by TRT101 and TRT104: the current function's evidence, static and observed."""

    requires = (ConditionEvidence, ObservedFacts)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._evidence: ConditionEvidence = self.provider(ConditionEvidence)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def index(self, func: cst.FunctionDef) -> _FunctionIndex:
        """``func``'s bindings and ``self`` calls (one walk per function and file)."""
        return self._evidence.index(func)

    def current_facts(self) -> _Facts | None:
        """The evidence of the function the traversal is in (None: none to look at)."""
        return self._evidence.current_facts()

    def observed(self, node: cst.CSTNode) -> bool | None:
        """What facts from a recorded run (``--facts``) say about ``node``, a condition or trip count.

        True: Python read a tensor's value inside it (``__bool__``, ``.item()``...), so an
        export bakes it in whatever the syntax shows; False: it ran and read none, so it is
        static on the observed inputs; None: no facts, or it never ran.
        """
        return self._observed.reads_values(node)

    def evident(self, facts: "_Facts | None", test: cst.BaseExpression,
                statement: cst.CSTNode | None = None) -> tuple[bool, bool]:
        """(does ``test`` depend on tensor values, did observed facts decide it); with ``statement``, the
        compound statement whose test it is, reads the run located at a statement around it do not count."""
        seen = self.observed(test) if statement is None else self._observed.reads_values_inside(test, statement)
        if seen is False and facts is not None and facts.scripted_read(test) and facts.condition_depends(test):
            seen = None  # the values were read inside TorchScript, out of the recorded run's sight
        if seen is not None:
            if seen and facts is not None and facts.fixed(test):
                return False, False  # a value read, but of a tensor built from configuration only
            return seen, True
        return facts is not None and facts.condition_depends(test) and not facts.fixed(test), False
