"""Python control flow that depends on tensor values (TRT101, TRT104).

A traced export (``torch.onnx.export(dynamo=False)`` on an ``nn.Module``) runs the
Python code once: an ``if`` whose condition reads tensor values takes the branch the
example input chose, and the graph keeps only that branch (with a ``TracerWarning``
at best). A loop whose trip count comes from tensor data is unrolled with the
example's count. Scripting instead exports ONNX ``If``/``Loop`` nodes, which TensorRT
handles poorly (branches must agree in rank; loops with dynamic trip counts).

What counts as data-dependent, decided per function without type information:
- a parameter of the function (not ``self``/``cls``), unless it is annotated ``bool``,
  ``int``, ``float`` or ``str`` or has a bool/number/string literal default (a
  configuration switch such as ``return_loss=False``);
- a local assigned, directly or through other locals, from an expression that reads one;
- but not through a static view of a tensor: ``.shape``, ``.size()``, ``.dim()``,
  ``.ndim``, ``.dtype``, ``.device``, ``.is_cuda``, ``.numel()``, ``len()``,
  ``isinstance()``, ``is None`` comparisons, string comparisons, and
  ``torch.jit.is_tracing()``-style queries; membership tests (``key in state``) are
  about containers and static too;
- a parameter tested for truth as it is (``if flag:``, ``if not ctx.needs_grad``) is a
  switch, not tensor data (a multi-element tensor would raise there); a local computed
  from tensors and tested for truth (``has = mask.any()``; ``if has:``) is data.

Only methods of classes are looked at (``forward``, the helpers it calls, and the
methods of tracker/coder classes that are not modules). Construction-time code is
skipped: ``__init__`` and other dunder methods, the methods only they call
(``_make_layer``), and class methods. Attributes of ``self`` are not followed:
per-frame state kept on ``self`` (DESIGN §8.8) is not seen by this analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import libcst as cst

from trtcodemod.astutil import (
    bound_names, children, code_of, decorator_names, method_call, parenthesize, short_code, walk,
)
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
    "is_sparse", "is_quantized", "is_meta", "training",
})
#: Methods that describe a tensor without reading its values (their arguments don't matter).
_STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "is_floating_point",
    "is_complex", "is_contiguous", "is_signed", "get_device", "__len__", "has_names",
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

    def visit(n: cst.CSTNode) -> None:
        if isinstance(n, cst.Name):
            found.add(n.value)
            return
        if isinstance(n, cst.Attribute):
            visit(n.value)
            return
        if isinstance(n, cst.Arg):
            visit(n.value)
            return
        for child in children(n):
            visit(child)

    visit(node)
    return found


def _is_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


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
    while isinstance(default, cst.UnaryOperation):
        default = default.expression
    if isinstance(default, cst.Name):
        return default.value in ("True", "False")
    return isinstance(default, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString))


def _body_statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    return list(body.body)


def _assignment_pairs(func: cst.FunctionDef) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
    """(target, value) for every binding in ``func``, nested functions and classes excluded."""
    pairs: list[tuple[cst.BaseExpression, cst.CSTNode]] = []

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not func:
            return
        if isinstance(node, cst.Assign):
            for target in node.targets:
                _pair_up(target.target, node.value, pairs)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            pairs.append((node.target, node.value))
        elif isinstance(node, cst.AugAssign):
            pairs.append((node.target, node.value))
        elif isinstance(node, (cst.For, cst.CompFor)):
            pairs.append((node.target, node.iter))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            pairs.append((node.asname.name, node.item))
        elif isinstance(node, cst.NamedExpr):
            pairs.append((node.target, node.value))
        for child in children(node):
            visit(child)

    visit(func.body)
    return pairs


def _pair_up(target: cst.BaseExpression, value: cst.BaseExpression, pairs: list) -> None:
    """``a, b = x, y`` pairs element-wise; anything else pairs the whole value."""
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
    ):
        for t, v in zip(target.elements, value.elements):
            _pair_up(t.value, v.value, pairs)
        return
    pairs.append((target, value))


# --- the per-function analysis -----------------------------------------------------


@dataclass
class _Facts:
    """What one function's code says about which names carry tensor data."""

    rule: "Rule"
    tainted: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)

    def condition_depends(self, test: cst.BaseExpression) -> bool:
        """Like :meth:`depends`, for an ``if``/``while`` test.

        A parameter (or its attribute) tested for truth as it is (``if flag:``,
        ``if not ctx.needs_grad``) is taken as a switch: a multi-element tensor would
        raise there, and flags passed in are far more common than 1-element masks.
        """
        if isinstance(test, cst.BooleanOperation):
            return self.condition_depends(test.left) or self.condition_depends(test.right)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.condition_depends(test.expression)
        root = test
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and root.value in self.params and isinstance(test, (cst.Name, cst.Attribute)):
            return False
        return self.depends(test)

    def depends(self, node: cst.CSTNode) -> bool:
        """Does the value of ``node`` depend on tensor data from the parameters?"""
        if isinstance(node, cst.Name):
            return node.value in self.tainted
        if isinstance(node, cst.Attribute):
            if node.attr.value in _STATIC_ATTRS:
                return False
            return self.depends(node.value)
        if isinstance(node, cst.Call):
            if self._static_call(node):
                return False
            return self.depends(node.func) or any(self.depends(arg.value) for arg in node.args)
        if isinstance(node, cst.Comparison):
            for comparison in node.comparisons:
                if isinstance(comparison.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    # identity (`x is None`) and membership (`key in state`) are about
                    # objects and containers, not tensor values
                    return False
            parts = [node.left, *(c.comparator for c in node.comparisons)]
            if any(_is_string(p) for p in parts):
                return False
            return any(self.depends(p) for p in parts)
        if isinstance(node, cst.Lambda):
            return False
        if isinstance(node, cst.Arg):
            return self.depends(node.value)
        return any(self.depends(child) for child in children(node))

    def _static_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _STATIC_METHODS:
            return True
        if isinstance(func, cst.Name) and func.value in _STATIC_BUILTINS and not self.rule.context.qualified_names(func):
            return True
        if self.rule.context.refers_to(func, *_STATIC_TORCH):
            return True
        return False


def _analyze(rule: Rule, func: cst.FunctionDef, is_method: bool) -> _Facts:
    facts = _Facts(rule)
    params = [*func.params.posonly_params, *func.params.params]
    if is_method and "staticmethod" not in decorator_names(func) and params:
        params = params[1:]  # self / cls
    params += list(func.params.kwonly_params)
    for star in (func.params.star_arg, func.params.star_kwarg):
        if isinstance(star, cst.Param):
            facts.tainted.add(star.name.value)
    for param in params:
        if not _static_param(param) and param.name.value != "ctx":  # autograd.Function's context
            facts.tainted.add(param.name.value)
    facts.params = set(facts.tainted)
    pairs = _assignment_pairs(func)
    changed = True
    while changed:
        changed = False
        for target, value in pairs:
            names = [n for n in bound_names(target) if n not in facts.tainted]
            if names and facts.depends(value):
                facts.tainted.update(names)
                changed = True
    return facts


def _self_calls(func: cst.FunctionDef) -> set[str]:
    """Names of methods called as ``self.name(...)`` inside ``func``."""
    called = set()
    for node in walk(func.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
                called.add(node.func.attr.value)
    return called


def _construction_methods(cls: cst.ClassDef) -> set[cst.FunctionDef]:
    """Methods that run only while building the object (``__init__`` and what only it calls)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return set()
    methods = {stmt.name.value: stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)}
    calls = {name: _self_calls(func) & set(methods) for name, func in methods.items()}

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
    """Shared: which function we are in, whether to look at it, and its facts."""

    def __init__(self, context) -> None:
        super().__init__(context)
        self._construction: dict[cst.ClassDef, set[cst.FunctionDef]] = {}
        self._facts: dict[cst.FunctionDef, _Facts] = {}

    def current_facts(self) -> _Facts | None:
        func, cls = self.context.function, self.context.enclosing_class
        if func is None or cls is None:
            return None
        # Computed on first need only: most classes never reach a data-dependent branch.
        skipped = self._construction.get(cls)
        if skipped is None:
            skipped = self._construction[cls] = _construction_methods(cls)
        if func in skipped:
            return None
        facts = self._facts.get(func)
        if facts is None:
            facts = self._facts[func] = _analyze(self, func, is_method=True)
        return facts


_GUIDANCE = ("move the decision out of the graph and pass an indicator tensor as an input, compute both "
             "branches and blend them with torch.where, or script this part with torch.jit.script")


class DataDependentIf(_DataFlowRule):
    info = RuleInfo(
        id="TRT101",
        name="data-dependent-if",
        summary="`if` on tensor values: tracing bakes in one branch; vectorize assignments with `torch.where`",
        doc="""\
What it finds: an `if`/`elif`/`else` in a method whose condition depends on tensor
values flowing from the function's parameters (`if score.max() > thresh:`,
`if n > 0:` for a parameter `n`, or a local computed from them). Static conditions are
not reported: `self.training`, configuration attributes, shapes and sizes
(`x.shape[0] > 1`, `x.dim() == 4`, `len(x.shape)`), `isinstance`, `is None`,
`torch.cuda.is_available()`, `x.is_cuda`, `torch.jit.is_tracing()`, string comparisons,
membership tests (`key in state`) and literals. Parameters annotated
`bool`/`int`/`float`/`str` or with such a literal default, and parameters tested for truth
as they are (`if return_loss:`), count as configuration. Construction code (`__init__`,
what only it calls, class methods) is not looked at.

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
    def step(self, score, age):
        if score < 0.3:
            age += 1
        return age
""",
                """\
class Tracker:
    def step(self, score, age):
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
            if isinstance(orelse, cst.If):
                self._chain_members.add(orelse)
                current = orelse
            else:
                else_body = orelse.body if orelse is not None else None
                current = None
        facts = self.current_facts()
        if facts is None:
            return
        dependent = [facts.condition_depends(test) for test in tests]
        if not any(dependent):
            return
        first = code_of(tests[dependent.index(True)]).strip()
        if len(first) > 60:
            first = first[:57] + "..."
        message = (f"`if {first}` depends on tensor values: a traced export keeps only the branch the example "
                   "input takes")
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
            n for t, _ in _assignment_pairs(self.context.function) for n in bound_names(t)
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
        if isinstance(test, cst.BooleanOperation):
            facts = self.current_facts()
            if facts is None or not (facts.condition_depends(test.left) and facts.condition_depends(test.right)):
                # `x is not None and x.sum() > 0`: the static operand guards the other one;
                # without short-circuiting, the guarded part would run anyway.
                return None
            left, right = self._condition(test.left), self._condition(test.right)
            if left is None or right is None:
                return None
            name = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
            return cst.Call(func=self.context.torch_attr(name), args=_args(left, right))
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._condition(test.expression)
            if inner is None:
                return None
            return cst.Call(func=self.context.torch_attr("logical_not"), args=_args(inner))
        for n in walk(test):
            if isinstance(n, cst.Call):
                parts = method_call(n)
                if parts and parts[1] in _PY_VALUE_METHODS:
                    return None
                if isinstance(n.func, cst.Name) and n.func.value in _PY_VALUE_BUILTINS:
                    return None
            if isinstance(n, (cst.Await, cst.Yield, cst.NamedExpr)):
                return None
        if isinstance(test, cst.Comparison):
            if len(test.comparisons) != 1 or isinstance(
                test.comparisons[0].operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)
            ):
                return None
            return cst.Call(func=self.context.torch_attr("as_tensor"), args=_args(_unwrap(test)))
        as_tensor = cst.Call(func=self.context.torch_attr("as_tensor"), args=_args(_unwrap(test)))
        parts = method_call(test) if isinstance(test, cst.Call) else None
        if parts is not None and parts[1] in _BOOL_METHODS:
            return as_tensor
        return cst.Call(func=cst.Attribute(value=as_tensor, attr=cst.Name("bool")))


def _unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
    while getattr(node, "lpar", ()):
        node = node.with_changes(lpar=[], rpar=[])
    return node


def _args(*values: cst.BaseExpression) -> list[cst.Arg]:
    args = []
    for number, value in enumerate(values):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if number < len(values) - 1 else cst.MaybeSentinel.DEFAULT
        args.append(cst.Arg(value=_unwrap(value), comma=comma))
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
    if isinstance(body, cst.SimpleStatementSuite):
        smalls = list(body.body)
    else:
        for statement in body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return "a branch holds a compound statement"
            smalls.extend(statement.body)
    assigned: dict[str, cst.BaseExpression] = {}
    for small in smalls:
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name, value = small.targets[0].target.value, small.value
        elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
            name, value = small.target.value, small.value
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
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
        if any(isinstance(n, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) for n in walk(value)) \
                or (isinstance(value, cst.Name) and value.value == "None"):
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
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in _ALIASING_METHODS:
            node = node.func.value
        elif isinstance(node, cst.Attribute) and node.attr.value in _ALIASING_ATTRS:
            node = node.value
        else:
            return dotted_name(node) if isinstance(node, (cst.Name, cst.Attribute)) else None


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

    def search(current: cst.CSTNode, loop: cst.CSTNode | None) -> tuple[bool, cst.CSTNode | None]:
        if current is target:
            return True, loop
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and current is not func:
            return False, None
        if loop is None and isinstance(current, (cst.For, cst.While)):
            loop = current
        for child in children(current):
            found, outer = search(child, loop)
            if found:
                return True, outer
        return False, None

    return search(func.body, None)[1]


def _mutations(node: cst.CSTNode) -> list[tuple[str, str]]:
    """(a dotted name a statement or call may change in place, how) for each such name."""
    if isinstance(node, cst.AugAssign):
        root = _storage_root(node.target)
        return [(root, short_code(node))] if root else []  # `t += 1` is in place for a tensor
    if isinstance(node, cst.Assign):
        found = []
        for target in node.targets:
            if isinstance(target.target, (cst.Subscript, cst.Attribute)):
                root = _storage_root(target.target.value)
                if root:
                    found.append((root, short_code(target.target) + " = ..."))
        return found
    if not isinstance(node, cst.Call):
        return []
    func = node.func
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    candidates: list[cst.BaseExpression] = []
    if last.endswith("_") and not last.startswith("_"):
        if isinstance(func, cst.Attribute):
            candidates.append(func.value)  # `out.add_(1)`, `out[0].zero_()`
        if node.args and node.args[0].keyword is None:
            candidates.append(node.args[0].value)  # `torch.relu_(out)`, `nn.init.zeros_(out)`
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "out":
            candidates.append(arg.value)
        if arg.keyword is not None and arg.keyword.value == "inplace" \
                and not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")):
            candidates.extend(a.value for a in node.args if a.keyword is None)
    roots = (_storage_root(candidate) for candidate in candidates)
    return [(root, short_code(node)) for root in roots if root]


def _impure(node: cst.CSTNode) -> str | None:
    """Why evaluating ``node`` unconditionally could have effects, or None."""
    for n in walk(node):
        if isinstance(n, (cst.Yield, cst.Await, cst.NamedExpr)):
            return "a branch expression has side effects"
        if not isinstance(n, cst.Call):
            continue
        func = n.func
        if isinstance(func, cst.Attribute):
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
        if isinstance(n, cst.EmptyLine) and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
        elif isinstance(n, cst.TrailingWhitespace) and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
    return comments


def _bound_before(func: cst.FunctionDef | None, target: cst.CSTNode) -> set[str] | None:
    """Names certainly bound when ``target`` (a statement of ``func``) starts, or None if not found."""
    if func is None:
        return None
    params = func.params
    bound = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
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
    if isinstance(statement, cst.If):
        blocks.append((_body_statements(statement.body), set()))
        if statement.orelse is not None:
            if isinstance(statement.orelse, cst.If):
                blocks.extend(_inner_blocks(statement.orelse))
            else:
                blocks.append((_body_statements(statement.orelse.body), set()))
    elif isinstance(statement, (cst.For, cst.While)):
        header = set(bound_names(statement.target)) if isinstance(statement, cst.For) else set()
        blocks.append((_body_statements(statement.body), header))
        if statement.orelse is not None:
            blocks.append((_body_statements(statement.orelse.body), set()))
    elif isinstance(statement, cst.With):
        header = {n for item in statement.items if item.asname for n in bound_names(item.asname.name)}
        blocks.append((_body_statements(statement.body), header))
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        blocks.append((_body_statements(statement.body), set()))
        for handler in statement.handlers:
            name = {handler.name.name.value} if handler.name and isinstance(handler.name.name, cst.Name) else set()
            blocks.append((_body_statements(handler.body), name))
        for extra in (statement.orelse, statement.finalbody):
            if extra is not None:
                blocks.append((_body_statements(extra.body), set()))
    return blocks


def _names_bound_by(statement: cst.CSTNode) -> set[str]:
    """Names a statement binds on every path through it (straight-line code and `with` bodies)."""
    names: set[str] = set()
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    names.update(bound_names(target.target))
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                names.update(bound_names(small.target))
            elif isinstance(small, cst.AugAssign):
                names.update(bound_names(small.target))
            elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    local = alias.asname.name if alias.asname else alias.name
                    text = dotted_name(local) if isinstance(local, (cst.Name, cst.Attribute)) else None
                    if text:
                        names.add(text.split(".", 1)[0])
    elif isinstance(statement, cst.With):
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
`range(n.item())`), in methods, with the same data-flow analysis as TRT101 (loops over
`range(x.shape[0])` or a configuration value are static and not reported).

Why it hurts: a traced export runs the loop once, with the example's trip count, and
unrolls it: the graph repeats the body exactly that many times, whatever the input says
at run time. Scripting keeps an ONNX `Loop`, whose dynamic trip count TensorRT handles
slowly and with restrictions (loop-carried values must keep one shape).

What to do (not rewritten): when the iterations are independent, vectorize them (compute
all candidates at once with a fixed maximum count and mask the unused ones); when they are
not, move the loop into a `torch.jit.script` function, or run it outside the exported
graph and pass its result in.

Which TensorRT versions: all.""",
        fix=Safety.NONE,
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
class Decoder:
    def decode(self, scores):
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
        facts = self.current_facts()
        if facts is not None and facts.condition_depends(node.test):
            self.report(node, "`while` condition depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop")

    def visit_For(self, node: cst.For) -> None:
        call = node.iter
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range"):
            return
        if self.context.qualified_names(call.func):
            return  # someone's own `range`
        facts = self.current_facts()
        if facts is not None and any(facts.depends(arg.value) for arg in call.args):
            self.report(node, "`range(...)` bound depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop")


RULES = (DataDependentIf, DataDependentLoop)
