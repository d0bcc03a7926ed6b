"""TRT101: an ``if`` on tensor values; the branches' assignments vectorised with ``torch.where``.

The evidence is :mod:`trtcodemod.transforms._condition_evidence`'s; the rewrite is built by
:mod:`trtcodemod.transforms._branch_building`. The family is described in
:mod:`trtcodemod.transforms.control_flow`.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, code_of, helper_call, method_call, short_code, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._branch_building import (
    _PY_BOOL_RESULTS, _storage_root, _assign, comments_inside, _fresh_names, selected_assignments, tensor_condition,
)
from trtcodemod.transforms._condition_evidence import REFERENCES as _REFERENCES
from trtcodemod.transforms._condition_evidence import (
    _PY_VALUE_BUILTINS, _PY_VALUE_METHODS, _DataFlowRule, read_names,
)
from trtcodemod.transforms._runtime_scope import value_when_exporting

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
one is not; a `forward` input the run passed a Python number at every call is configuration
(Real-CUGAN's `forward(self, x, tile_mode, ...)`: an `elif tile_mode == 1:` the run never
reached is not reported); `len(x)` of a tensor reads its size (`x.shape[0]`), not a value, so
`if len(desc) == 0:` is not reported even where the run saw `Tensor.__len__` (kornia's
`match_mnn`; an emptiness test is TRT713's). Nor is a condition on a tensor built only from
configuration, even where the run read its value: literals, parameters that count as
configuration, module constants and the `dtype`/`device` of anything, through torch factories,
torch functions, tensor methods and helpers of the same file, with only such values written into
it (piq's DSS: `weight` from `torch.arange(1, dct_size + 1, dtype=x.dtype, device=x.device)`,
then `if weight[m, n] < threshold: weight[m, n] = 0`): it is the same for every input, so the
trace keeps the branch eager mode takes. A size of an input, a random draw, `torch.empty`, or a
tensor handed to a function the rule cannot see into is not configuration.

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
A branch's own temporary (`clamp_value = torch.finfo(h.dtype).max - 1000`, then
`h = torch.clamp(h, -clamp_value, clamp_value)`: a name that appears nowhere else in the
function and reads nothing the branch assigned before it) is computed before the selects,
as a plain assignment.
An early return, `if C: return A` as a statement of the function's own body with no `else`, `A` a
name or an attribute (what the `if` hands back as it is), followed by the rest of the function
ending in `return B`, is rewritten otherwise (oflibpytorch's `apply_flow`: `if
all(is_zero_flow(flow, thresholded=True)): return target` before the warp): the condition goes into
a fresh local (the built-ins `all`/`any` of it through `_trt_all`/`_trt_any`, which reduce a 1-D
tensor in the graph while tracing instead of reading each element), the `if` reads it through
`_trt_shortcut_taken` (its truth, as `if` reads it, in eager mode and scripted; False while a trace
meets a one-element tensor), `A` is kept in a second local, and each `return B` after it returns
`_trt_shortcut_select(cond, A, B)`: `B` in eager mode (the shortcut was not taken there), and while
tracing `torch.where(cond, A, B)` for tensors of one shape and dtype (tuples and lists of them element
by element); anything else reads the condition as before, so the trace keeps the example's way with its
warning and nothing is hidden. Eager mode runs the original code: the same values, the very tensor `A`,
the same exceptions and cost. Not rewritten: a value the early return computes, an `if` inside a
block, a bare `return` after it, generators, a condition built with `not`/`and`/`or` or a Python value,
and a rest that writes in place to `A`'s name or a name bound to it or a view of it (which would change
the kept value; a write inside a called function is not seen).
Anything else (calls with side effects, `return`, `raise`, attribute or item assignment,
other branch statements that read each other's results, string or `None` values, a name
assigned in only some branches that may be `None` before the `if` (a parameter defaulting to
None, or `name = None`), a condition built with `.item()`, `int()`, `float()`,
`torch.allclose` or `torch.equal`, which stays a Python value) is reported with guidance
instead.

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

For an early return, the trace computes the rest of the function on every input, the shortcut's
inputs included: the rest must not raise there (a check it makes that the shortcut skipped), and the
graph's cost is the rest's. The graph returns the shortcut's value where the condition holds only where
the trace saw both values with one shape and dtype: a shortcut that returns a tensor of another shape at
other sizes (a batch of one where the rest broadcasts to many) is selected broadcast.

Which TensorRT versions: all (the baked-in branch is an export problem, not a parser one).""",
        fix=Safety.UNSAFE,
        assumption=(
            "the branches compute values of the same shape and dtype, without raising and without inf or NaN (or NaN "
            "gradients) where they are not taken, and no alias of a branch value is written in place later (an early "
            "return: the rest of the function runs without raising where the shortcut is taken, and its value has "
            "the shortcut's shape and dtype at every size)"),
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
            Example(
                """\
class Warp(nn.Module):
    def forward(self, flow, frame):
        if torch.all(flow == 0):
            return frame
        grid = self.base - flow.permute(0, 2, 3, 1)
        return F.grid_sample(frame, grid, align_corners=True)
""",
                """\
class Warp(nn.Module):
    def forward(self, flow, frame):
        _trt_cond = torch.all(flow == 0)
        if _trt_shortcut_taken(_trt_cond):
            return frame
        _trt_shortcut = frame
        grid = self.base - flow.permute(0, 2, 3, 1)
        return _trt_shortcut_select(_trt_cond, _trt_shortcut, F.grid_sample(frame, grid, align_corners=True))
""",
                unsafe=True,
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
        if facts is None and not self._observed.known:
            return
        # A test whose value while exporting is known (`not torch.jit.is_tracing() and ...`) decides
        # nothing from data there, and the tests after one known true never run in the trace.
        known = [value_when_exporting(self.context, test) for test in tests]
        last = known.index(True) if True in known else len(tests) - 1
        decided = [self.evident(facts, test) if known[i] is None and i <= last else (False, False)
                   for i, test in enumerate(tests)]
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
        shortcut = reason is None and len(tests) == 1 and else_body is None and _returned(bodies[0]) is not None
        if shortcut:
            fix, reason = self._shortcut(node, tests[0], bodies[0])
        elif reason is None:
            fix, reason = self._vectorize(node, tests, bodies, else_body)
        if fix is not None and shortcut:
            self.report(node, message + "; the trace computes the rest of the function and selects the early "
                        "return's value with torch.where where the condition holds", fix)
        elif fix is not None:
            self.report(node, message + "; select the assigned values with torch.where", fix)
        else:
            self.report(node, f"{message}; {_GUIDANCE} (not rewritten: {reason})")

    # --- the rewrite -------------------------------------------------------------

    def _vectorize(self, node: cst.If, tests: list, bodies: list, else_body) -> tuple[Fix | None, str]:
        conditions = []
        for test in tests:
            converted = self._condition(test)
            if converted is None:
                return None, ("the condition is a Python value (.item(), int(), torch.allclose, a chained "
                             "comparison...) "
                             "or a static check guards a data-dependent one")
            conditions.append(converted)
        used = read_names(self.context.function) | {
            n for t, _ in self.index(self.context.function).pairs for n in bound_names(t)
        }
        statements = selected_assignments(self.context.function, node, conditions, bodies, else_body,
                                          self.context.torch_attr("where"), used)
        if isinstance(statements, str):
            return None, statements
        comments = comments_inside(node)
        statements[0] = statements[0].with_changes(leading_lines=[*node.leading_lines, *comments])
        return Fix({node: cst.FlattenSentinel(statements)}, safety=Safety.UNSAFE), ""

    def _shortcut(self, node: cst.If, test: cst.BaseExpression, body: cst.BaseSuite) -> tuple[Fix | None, str]:
        """``if C: return A`` followed by the rest of the function, which ends in ``return B``: the
        condition is kept in a fresh local, the ``if`` reads it through ``_trt_shortcut_taken`` (its
        truth in eager mode; False while a trace meets a tensor), ``A`` is kept as it is then, and each
        ``return B`` after it returns ``_trt_shortcut_select(cond, A, B)``: ``B`` in eager mode (where the
        shortcut was not taken), ``torch.where(cond, A, B)`` while tracing."""
        function = self.context.function
        statements = list(function.body.body) if type(function.body) is cst.IndentedBlock else []
        if not any(s is node for s in statements):
            return None, "the early return is inside a block, not a statement of the function's own body"
        value = _returned(body)
        if not _plain_reference(value):
            return None, "the early return's value is computed (only a name or attribute is kept as it is)"
        rest = statements[[i for i, s in enumerate(statements) if s is node][0] + 1:]
        if not rest or _returned(rest[-1]) is None:
            return None, "the function does not end in `return value` after the early return"
        returns = [n for n in _own_nodes(rest) if type(n) is cst.Return]
        if any(r.value is None for r in returns):
            return None, "a `return` after it returns nothing"
        if any(type(n) in (cst.Yield, cst.Await) for n in _own_nodes(statements)):
            return None, "the function is a generator or a coroutine"
        written = _written_in_place(rest, value)
        if written:
            return None, f"the rest writes a tensor in place (`{written}`), which could change the early return's value"
        condition = self._shortcut_condition(test)
        if condition is None:
            return None, ("the condition reads a Python value (`not`, `and`, `.item()`, `int()`...), which a trace "
                          "cannot keep")
        converted, helpers = condition
        used = read_names(function) | {n for t, _ in self.index(function).pairs for n in bound_names(t)}
        [cond] = _fresh_names(used, 1)
        early = next(name for name in (f"_trt_shortcut{'' if i == 1 else f'_{i}'}" for i in range(1, 100))
                     if name not in used)
        taken = node.with_changes(test=helper_call(_TAKEN, cst.Name(cond)), leading_lines=())
        statements_out = [_assign(cond, converted).with_changes(leading_lines=node.leading_lines), taken,
                          _assign(early, value)]
        changes: dict[cst.CSTNode, cst.CSTNode] = {node: cst.FlattenSentinel(statements_out)}
        for ret in returns:
            changes[ret] = ret.with_changes(value=helper_call(_SELECT, cst.Name(cond), cst.Name(early), ret.value))
        return Fix(changes, safety=Safety.UNSAFE, helpers=(_TAKEN, _SELECT, *helpers)), ""

    def _shortcut_condition(self, test: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[str, ...]] | None:
        """The condition with the built-ins ``all``/``any`` read through their helpers (a 0-d tensor while
        tracing), or None where it stays a Python value in a trace."""
        helpers: list[str] = []

        class Builtins(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
                if type(original.func) is cst.Name and original.func.value in _ITERATED and id(original) in wanted:
                    helpers.append(_ITERATED[original.func.value])
                    return updated.with_changes(func=cst.Name(_ITERATED[original.func.value]))
                return updated

        wanted: set[int] = set()
        for n in walk(test):
            if type(n) in (cst.BooleanOperation, cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda) or \
                    type(n) is cst.UnaryOperation and type(n.operator) is cst.Not:
                return None
            if type(n) is cst.Comparison and (len(n.comparisons) != 1 or type(n.comparisons[0].operator) in (
                    cst.In, cst.NotIn, cst.Is, cst.IsNot)):
                return None
            if type(n) is cst.Call:
                parts = method_call(n)
                if parts and (parts[1] in _PY_VALUE_METHODS or parts[1] in _PY_BOOL_RESULTS):
                    return None
                if type(n.func) is cst.Name and n.func.value in _PY_VALUE_BUILTINS:
                    if n.func.value not in _ITERATED or self.context.resolver.binds(n.func.value) \
                            or len(n.args) != 1 or n.args[0].keyword is not None or n.args[0].star:
                        return None
                    wanted.add(id(n))
        converted = strip_parens(test).visit(Builtins())
        return converted, tuple(dict.fromkeys(helpers))

    def _condition(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """The condition as a bool tensor expression, or None when it stays a Python value."""
        facts = self.current_facts()
        # `x is not None and x.sum() > 0`: the static operand guards the other one; without
        # short-circuiting, the guarded part would run anyway.
        return tensor_condition(test, self.context.torch_attr, lambda operation: facts is not None and (
            facts.condition_depends(operation.left) and facts.condition_depends(operation.right)))


#: The helpers an early return's rewrite calls (``trtcodemod/helpers/tracing.py``).
_TAKEN, _SELECT = "_trt_shortcut_taken", "_trt_shortcut_select"
#: Built-ins that iterate a tensor and read each element: their helpers reduce it in the graph.
_ITERATED = {"all": "_trt_all", "any": "_trt_any"}


def _returned(body: cst.CSTNode) -> cst.BaseExpression | None:
    """``A`` where ``body`` (a suite or a statement) is just ``return A``."""
    if isinstance(body, cst.BaseSuite):
        inner = list(body.body) if type(body) is cst.IndentedBlock else [body]
        if len(inner) != 1:
            return None
        body = inner[0]
    if type(body) is cst.SimpleStatementLine and len(body.body) == 1 and type(body.body[0]) is cst.Return:
        return body.body[0].value
    if type(body) is cst.SimpleStatementSuite and len(body.body) == 1 and type(body.body[0]) is cst.Return:
        return body.body[0].value
    return None


def _plain_reference(value: cst.BaseExpression | None) -> bool:
    """A name or a chain of attributes of one (``target``, ``self.frame``): reading it again has no effect."""
    value = strip_parens(value) if value is not None else None
    while type(value) is cst.Attribute:
        value = strip_parens(value.value)
    return type(value) is cst.Name


def _own_nodes(statements: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """Every node of ``statements``, not descending into nested functions, lambdas or classes (their
    ``return`` is their own)."""
    found: list[cst.CSTNode] = []
    stack = list(reversed(statements))
    while stack:
        current = stack.pop()
        found.append(current)
        if type(current) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        stack.extend(reversed(list(current.children)))
    return found


def _written_in_place(statements: list[cst.CSTNode], shortcut: cst.BaseExpression) -> str | None:
    """The first in-place write the rest makes that may reach the early return's tensor: an item or
    attribute assignment, an augmented assignment or a method ending in ``_`` (``add_``, ``copy_``) on
    its name or on a name bound to it or a view of it (``t = target[0]``); None where the rewrite sees
    none (a write through another name or inside a called function is not seen)."""
    root = _storage_root(strip_parens(shortcut))
    if root is None:
        return None
    shared = {root}
    for n in _own_nodes(statements):
        if type(n) is cst.Assign and _storage_root(n.value) in shared:
            shared.update(t.target.value for t in n.targets if type(t.target) is cst.Name)
        targets = [t.target for t in n.targets] if type(n) is cst.Assign else \
            [n.target] if type(n) is cst.AugAssign else []
        if any(type(t) in (cst.Subscript, cst.Attribute) and _storage_root(t) in shared or
               type(n) is cst.AugAssign and type(t) is cst.Name and t.value in shared for t in targets):
            return short_code(n)
        if type(n) is cst.Call and type(n.func) is cst.Attribute:
            name = n.func.attr.value
            if name.endswith("_") and not name.startswith("__") and _storage_root(n.func.value) in shared:
                return short_code(n)
    return None


RULES = (DataDependentIf,)
