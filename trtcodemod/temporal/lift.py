"""Lift per-frame state out of a module: ``self.<state>`` becomes an input and an output.

Given a module class and the attributes its forward keeps between calls, the rewrite turns
``forward`` into two methods:

* ``forward_step(self, <inputs>, <state>..., <indicators>...)``: the old body, with reads of
  ``self.<state>`` replaced by the state parameter, writes by a local of the same name, and
  every ``return out`` by ``return out, <state>...``. An ``if self.<state> is None:`` (or
  ``is not None``, or the conditional expression) becomes both branches and a
  ``torch.where`` on an indicator input: exact, since ``torch.where`` selects values and does
  no arithmetic that would turn inf or NaN into NaN.
* ``forward`` with its original signature: an adapter that reads the state from ``self`` (a
  zero tensor and a false indicator where it is None), calls ``forward_step`` and stores the
  new state back, so training and evaluation code sees the same module frame by frame.

Every other byte of the file stays as it was. What cannot be lifted mechanically is refused
with the line and the guidance's manual step (:class:`Refusal`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from trtcodemod.astutil import code_of, method_call, parenthesize, walk
from trtcodemod.transforms.control_flow import (
    _args, _bound_before, _branch_assignments, _comments_inside, _read_names,
)
from trtcodemod.transforms.module_state import _CONTAINER_MUTATORS, _state_attr

#: The guidance's manual step ("Update Instance Variables"), named in every refusal.
MANUAL_STEP = ("lift it by hand: pass the state into forward as an input, return its new value, and keep it "
               "between frames in the caller (docs/temporal.md)")


@dataclass(frozen=True)
class LiftState:
    """One attribute to lift. ``zeros`` is the adapter's first-frame tensor (code that may use
    forward's parameters) for a state whose first-frame value is None; it needs an indicator."""

    attribute: str
    initial_none: bool = False
    zeros: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a state cannot be lifted mechanically, at its line."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}; {MANUAL_STEP}"


@dataclass
class LiftResult:
    """The rewritten source (None when refused) and the step method's signature."""

    source: str | None
    refusals: list[Refusal] = field(default_factory=list)
    step: str = "forward_step"
    inputs: tuple[str, ...] = ()
    #: attribute -> the step's state parameter, and attribute -> its indicator parameter.
    state_params: dict[str, str] = field(default_factory=dict)
    indicators: dict[str, str] = field(default_factory=dict)
    #: Where forward writes each state: attribute -> line.
    written_at: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.source is not None


def _self_attr(node: cst.CSTNode) -> str | None:
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _none_test(node: cst.BaseExpression, names: Iterable[str]) -> tuple[str, bool] | None:
    """``self.s is None`` → (s, True); ``self.s is not None`` → (s, False); for ``s`` in ``names``."""
    if type(node) is not cst.Comparison or len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    if type(target.operator) not in (cst.Is, cst.IsNot):
        return None
    left, right = node.left, target.comparator
    subject = left if type(right) is cst.Name and right.value == "None" else (
        right if type(left) is cst.Name and left.value == "None" else None)
    attr = _self_attr(subject) if subject is not None else None
    if attr is None or attr not in set(names):
        return None
    return attr, type(target.operator) is cst.Is


def _functions(body: cst.BaseSuite) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in getattr(body, "body", ()) if type(s) is cst.FunctionDef}


def _writes(node: cst.CSTNode) -> list[tuple[cst.CSTNode, cst.BaseExpression]]:
    """Every (statement, target) that assigns, augments or deletes an attribute target."""
    out: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
    for n in walk(node):
        if type(n) is cst.Assign:
            for target in n.targets:
                stack = [target.target]
                while stack:
                    t = stack.pop()
                    if type(t) in (cst.Tuple, cst.List):
                        stack.extend(e.value for e in t.elements)
                    elif type(t) is cst.StarredElement:
                        stack.append(t.value)
                    else:
                        out.append((n, t))
        elif type(n) in (cst.AugAssign, cst.AnnAssign):
            out.append((n, n.target))
        elif type(n) is cst.Del:
            out.append((n, n.target))
    return out


class _Positions:
    def __init__(self, wrapper: MetadataWrapper) -> None:
        self._map = wrapper.resolve(PositionProvider)

    def line(self, node: cst.CSTNode) -> int:
        found: CodeRange | None = self._map.get(node)
        return found.start.line if found else 0


def _check(module: cst.Module, cls: cst.ClassDef, forward: cst.FunctionDef, states: Sequence[LiftState],
           pos: _Positions) -> list[Refusal]:
    """Refusals: state written outside the class or in a helper, mutated in place, set to None..."""
    names = {s.attribute for s in states}
    refusals: list[Refusal] = []
    # Written outside the class (a helper function, another class): not this module's forward.
    for statement in module.body:
        if statement is cls:
            continue
        for node, target in _writes(statement):
            if type(target) is cst.Attribute and target.attr.value in names:
                refusals.append(Refusal(pos.line(node), f"`{code_of(target)}` writes the state outside "
                                        f"`{cls.name.value}`: the rewrite cannot see every write"))
    # Written in a method that forward calls: the state flows through a helper.
    methods = _functions(cls.body)
    called = {parts[1] for n in walk(forward) if type(n) is cst.Call for parts in [method_call(n)]
              if parts and type(parts[0]) is cst.Name and parts[0].value == "self"}
    for name in sorted(called & set(methods)):
        for node, target in _writes(methods[name]):
            attr = _state_attr(target) if type(target) in (cst.Attribute, cst.Subscript) else None
            if attr in names and code_of(target).startswith("self."):
                how = " in place through an index" if type(target) is cst.Subscript else ""
                refusals.append(Refusal(pos.line(node), f"`{code_of(target)}` is written{how} in `{name}`, a "
                                        "helper that forward calls: inline the helper into forward to lift it"))
    # Inside forward: writes the rewrite can turn into locals are plain `self.s = v` / `self.s op= v`.
    for node, target in _writes(forward.body):
        if type(target) not in (cst.Attribute, cst.Subscript) or not code_of(target).startswith("self."):
            continue
        attr = _state_attr(target)
        if attr not in names:
            continue
        if type(target) is cst.Subscript or _self_attr(target) is None:
            refusals.append(Refusal(pos.line(node), f"`{code_of(target)}` changes the state in place through "
                                    "an index or a view: the lifted state would be a new value"))
        elif type(node) is cst.Del:
            refusals.append(Refusal(pos.line(node), f"`del {code_of(target)}` in forward"))
        elif type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == "None":
            refusals.append(Refusal(pos.line(node), f"forward sets `{code_of(target)}` to None: a state tensor "
                                    "cannot be None; reset it outside forward"))
    for n in walk(forward.body):
        if type(n) is cst.Call and (parts := method_call(n)) is not None:
            receiver, method = parts
            attr = _state_attr(receiver) if type(receiver) in (cst.Attribute, cst.Subscript) else None
            if attr in names and code_of(receiver).startswith("self.") and (
                    method in _CONTAINER_MUTATORS or (method.endswith("_") and not method.startswith("_"))):
                what = "grows a container" if method in _CONTAINER_MUTATORS else "changes it in place"
                refusals.append(Refusal(pos.line(n), f"`{code_of(n.func)}(...)` {what}: a list that grows "
                                        "without bound, or a state mutated in place, has no fixed input"))
        elif type(n) in (cst.FunctionDef, cst.Lambda):
            if any(type(t) is cst.Attribute and _self_attr(t) in names for _, t in _writes(n)):
                refusals.append(Refusal(pos.line(n), "a nested function writes the state"))
    # `is None` tests: only the whole test of an `if` (without elif) or a conditional expression.
    none_names = {s.attribute for s in states if s.initial_none}
    whole = set()
    for n in walk(forward.body):
        if type(n) in (cst.If, cst.IfExp) and _none_test(n.test, none_names):
            if type(n) is cst.If and type(n.orelse) is cst.If:
                refusals.append(Refusal(pos.line(n), "an `elif` follows the `is None` test"))
            whole.add(id(n.test))
    for n in walk(forward.body):
        if _none_test(n, none_names) and id(n) not in whole:
            refusals.append(Refusal(pos.line(n), f"`{code_of(n)}` is not the whole condition of an `if`: "
                                    "the indicator cannot replace it mechanically"))
    return refusals


class _Step(cst.CSTTransformer):
    """forward's body → forward_step's body (state as locals, None tests as blends)."""

    def __init__(self, params: dict[str, str], indicators: dict[str, str], forward: cst.FunctionDef,
                 pos: _Positions) -> None:
        self.params, self.indicators, self.forward, self.pos = params, indicators, forward, pos
        self.refusals: list[Refusal] = []
        self.depth = 0  # nested functions keep their own returns

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.depth -= 1
        return updated

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.depth += 1
        return True

    def leave_Lambda(self, original: cst.Lambda, updated: cst.Lambda) -> cst.Lambda:
        self.depth -= 1
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        attr = _self_attr(original)
        return cst.Name(self.params[attr]) if attr in self.params else updated

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if self.depth:
            return updated
        value = updated.value if updated.value is not None else cst.Name("None")
        if type(value) is cst.Tuple and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        elements = [cst.Element(value)] + [cst.Element(cst.Name(p)) for p in self.params.values()]
        return updated.with_changes(value=cst.Tuple(elements, lpar=[], rpar=[]),
                                    whitespace_after_return=cst.SimpleWhitespace(" "))

    def _condition(self, attr: str) -> cst.BaseExpression:
        # A 0-d condition: torch.where then keeps the branches' shape, even for 0-d values.
        return cst.parse_expression(f"{self.indicators[attr]}.reshape(())")

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        test = _none_test(original.test, self.indicators)
        if test is None:
            return updated
        attr, is_none = test
        present, absent = (updated.orelse, updated.body) if is_none else (updated.body, updated.orelse)
        return _where(self._condition(attr), present, absent)

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.BaseStatement | cst.FlattenSentinel:
        test = _none_test(original.test, self.indicators)
        if test is None:
            return updated
        attr, is_none = test
        line = self.pos.line(original)
        other = updated.orelse.body if type(updated.orelse) is cst.Else else None
        absent_body, present_body = (updated.body, other) if is_none else (other, updated.body)
        branches = []
        for body in (present_body, absent_body):
            found = _branch_assignments(body) if body is not None else {}
            if isinstance(found, str):
                self.refusals.append(Refusal(line, f"the `is None` branch cannot be blended: {found}"))
                return updated
            earlier: set[str] = set()
            for name, value in found.items():
                if _read_names(value) & earlier:
                    self.refusals.append(Refusal(line, f"a branch reads `{name}`'s inputs assigned in the same "
                                                       "branch, which a blend would evaluate out of order"))
                    return updated
                earlier.add(name)
            branches.append(found)
        present, absent = branches
        bound = (_bound_before(self.forward, original) or set()) | set(self.params.values())
        names = list(dict.fromkeys([*present, *absent]))
        values = []
        for name in names:
            if (name not in present or name not in absent) and name not in bound:
                self.refusals.append(Refusal(line, f"`{name}` is assigned in one branch only and unbound before"))
                return updated
            values.append(_where(self._condition(attr), present.get(name, cst.Name(name)),
                                 absent.get(name, cst.Name(name))))
        if not names:
            return cst.RemovalSentinel.REMOVE
        target: cst.BaseExpression = cst.Name(names[0]) if len(names) == 1 else cst.Tuple(
            [cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
        value: cst.BaseExpression = values[0] if len(values) == 1 else cst.Tuple(
            [cst.Element(v) for v in values], lpar=[], rpar=[])
        note = cst.EmptyLine(comment=cst.Comment(
            f"# trtcodemod lift-state: both branches of `{code_of(original.test)}` run; "
            f"`{self.indicators[attr]}` selects"))
        return cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(target)], value=value)],
            leading_lines=[*updated.leading_lines, note, *_comments_inside(original)])


def _where(condition: cst.BaseExpression, present: cst.BaseExpression,
           absent: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.parse_expression("torch.where"),
                    args=_args(condition, parenthesize(present), parenthesize(absent)))


def _all_names(node: cst.CSTNode) -> set[str]:
    """Names used as variables anywhere in ``node`` (attribute names such as ``self.x``'s ``x`` aside)."""
    attrs = {id(n.attr) for n in walk(node) if type(n) is cst.Attribute}
    return {n.value for n in walk(node) if type(n) is cst.Name and id(n) not in attrs}


def _param_names(func: cst.FunctionDef) -> list[str]:
    p = func.params
    return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]


def lift(source: str, cls_name: str, states: Sequence[LiftState], step: str = "forward_step") -> LiftResult:
    """Rewrite ``cls_name`` in ``source`` so that ``states`` are carried by the caller."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    pos = _Positions(wrapper)
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    if cls is None:
        return LiftResult(None, [Refusal(0, f"no top-level class `{cls_name}`")], step)
    methods = _functions(cls.body)
    forward = methods.get("forward")
    if forward is None:
        return LiftResult(None, [Refusal(pos.line(cls), f"`{cls_name}` defines no forward")], step)
    if step in methods:
        return LiftResult(None, [Refusal(pos.line(methods[step]), f"`{cls_name}` already has `{step}`")], step)
    params = forward.params
    if type(params.star_arg) is cst.Param or params.star_kwarg is not None or not params.params:
        return LiftResult(None, [Refusal(pos.line(forward), "forward takes *args or **kwargs")], step)
    imported = {code_of(a.name) for s in module.body for n in walk(s) if type(n) is cst.Import
                for a in n.names if a.asname is None}
    if "torch" not in imported:
        return LiftResult(None, [Refusal(0, "the file does not `import torch`, which the rewrite uses")], step)
    refusals = sorted(set(_check(module, cls, forward, states, pos)), key=lambda r: (r.line, r.message))
    inputs = tuple(_param_names(forward)[1:])
    taken = _all_names(cls)
    state_params: dict[str, str] = {}
    indicators: dict[str, str] = {}
    for state in states:
        name = state.attribute if state.attribute not in taken else f"{state.attribute}_state"
        state_params[state.attribute] = name
        taken.add(name)
        if state.initial_none:
            indicators[state.attribute] = f"has_{name}"
            if state.zeros is None:
                refusals.append(Refusal(pos.line(forward), f"`self.{state.attribute}` starts as None and no "
                                        "first-frame shape was observed for it"))
    written = {}
    for node, target in _writes(forward.body):
        attr = _self_attr(target)
        if attr in state_params:
            written.setdefault(attr, pos.line(node))
    result = LiftResult(None, refusals, step, inputs, state_params, indicators, written)
    if refusals:
        return result
    transformer = _Step(state_params, indicators, forward, pos)
    body = forward.body.visit(transformer)
    if transformer.refusals:
        result.refusals = transformer.refusals
        return result
    step_def = _step_def(forward, body, step, state_params, indicators)
    adapter = _adapter(forward, step, states, state_params, indicators)
    new_body = []
    for statement in cls.body.body:
        new_body += [adapter, step_def] if statement is forward else [statement]
    new_cls = cls.with_changes(body=cls.body.with_changes(body=new_body))
    result.source = module.deep_replace(cls, new_cls).code  # type: ignore[union-attr]
    return result


def _step_def(forward: cst.FunctionDef, body: cst.BaseSuite, step: str, state_params: dict[str, str],
              indicators: dict[str, str]) -> cst.FunctionDef:
    extra = []
    for attr, name in state_params.items():
        extra.append(name)
        if attr in indicators:
            extra.append(indicators[attr])
    params = forward.params
    new = [cst.Param(cst.Name(n)) for n in extra]
    if any(p.default is not None for p in params.params) or params.kwonly_params:
        # After parameters with defaults only keyword-only parameters without one are allowed.
        params = params.with_changes(star_arg=cst.ParamStar() if params.star_arg is cst.MaybeSentinel.DEFAULT
                                     else params.star_arg, kwonly_params=[*params.kwonly_params, *new])
    else:
        params = params.with_changes(params=[*params.params, *new])
    note = cst.EmptyLine(comment=cst.Comment(
        f"# trtcodemod lift-state: forward's body, the state in ({', '.join(extra)}) and out: the export's signature"))
    return forward.with_changes(name=cst.Name(step), params=_commas(params), body=body, returns=None,
                                leading_lines=[cst.EmptyLine(indent=False), note])


def _param_text(param: cst.Param) -> str:
    text = param.name.value
    if param.annotation is not None:
        text += ": " + code_of(param.annotation.annotation)
    if param.default is not None:
        text += (" = " if param.annotation is not None else "=") + code_of(param.default)
    return text


def _commas(params: cst.Parameters) -> cst.Parameters:
    """Re-punctuate a parameter list (``, `` between every parameter)."""
    text = ", ".join(_param_text(p) for p in (*params.posonly_params, *params.params))
    if params.kwonly_params:
        text += (", " if text else "") + "*, " + ", ".join(_param_text(p) for p in params.kwonly_params)
    return cst.ensure_type(cst.parse_statement(f"def f({text}): pass"), cst.FunctionDef).params


def _adapter(forward: cst.FunctionDef, step: str, states: Sequence[LiftState], state_params: dict[str, str],
             indicators: dict[str, str]) -> cst.FunctionDef:
    lines = [f'"""The original call (trtcodemod lift-state): the state from ``self``, into ``{step}``, back."""']
    call = [n if n not in {p.name.value for p in forward.params.kwonly_params} else f"{n}={n}"
            for n in _param_names(forward)[1:]]
    keyword = any(p.default is not None for p in forward.params.params) or bool(forward.params.kwonly_params)
    for state in states:
        name = state_params[state.attribute]
        lines.append(f"{name} = self.{state.attribute}")
        if state.attribute in indicators:
            ind = indicators[state.attribute]
            lines += [f"{ind} = {name} is not None", f"if not {ind}:", f"    {name} = {state.zeros}"]
            lines.append(f"{ind} = torch.full((1,), {ind}, device={name}.device)")
        call.append(f"{name}={name}" if keyword else name)
        if state.attribute in indicators:
            call.append(f"{indicators[state.attribute]}={indicators[state.attribute]}" if keyword
                        else indicators[state.attribute])
    result = "result" if "result" not in _param_names(forward) else "step_result"
    targets = ", ".join([result, *(f"self.{s.attribute}" for s in states)])
    lines += [f"{targets} = self.{step}({', '.join(call)})", f"return {result}"]
    body = cst.parse_module("\n".join(lines) + "\n").body
    return forward.with_changes(body=cst.IndentedBlock(body=body))
