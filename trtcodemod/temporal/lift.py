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

from trtcodemod.astutil import bound_names, children, code_of, method_call, parenthesize, walk
from trtcodemod.transforms.control_flow import (
    call_args, bound_before, comments_inside, read_names,
)
from trtcodemod.transforms.module_state import CONTAINER_MUTATORS, state_attr

from .branch import branch_values, dead_after
from .queue import QUEUE_STEP, CappedQueue, QueueReads, QueueStatements, pack_lines, queue_lines, unlifted_uses, unpack_line

#: The guidance's manual step ("Update Instance Variables"), named in every refusal.
MANUAL_STEP = ("lift it by hand: pass the state into forward as an input, return its new value, and keep it "
               "between frames in the caller (docs/temporal.md)")


#: The guidance's manual step for an optional input ("None Tensors", the indicator case of if-else).
OPTIONAL_STEP = ("make it a tensor by hand: always pass the input (zeros where the caller has none) with an "
                 "indicator input, and select between the two branches with torch.where on it (docs/temporal.md)")


@dataclass(frozen=True)
class LiftState:
    """One attribute to lift. ``zeros`` is the adapter's first-frame tensor (code that may use
    forward's parameters) for a state whose first-frame value is None; it needs an indicator."""

    attribute: str
    initial_none: bool = False
    zeros: str | None = None
    #: A memory queue that grows to a cap (``queue.py``): lifted as padded rows plus a count.
    queue: CappedQueue | None = None
    #: For a list queue: one zero row as code (the adapter pads an empty list with it).
    item_zeros: str | None = None


@dataclass(frozen=True)
class LiftOptional:
    """One optional forward input (``def forward(self, x, prev_bev=None)``) tested with ``is None``.
    ``zeros`` is the adapter's placeholder (code over forward's other parameters) where it is None."""

    param: str
    zeros: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a state (or an optional input) cannot be lifted mechanically, at its line, and the manual step."""

    line: int
    message: str
    step: str = MANUAL_STEP

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}; {self.step}"


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
    #: optional forward input -> its indicator parameter.
    optional: dict[str, str] = field(default_factory=dict)
    #: A capped queue's attribute -> its count parameter (the state parameter holds the padded rows).
    counts: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.source is not None


def _self_attr(node: cst.CSTNode) -> str | None:
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _none_comparison(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """``x is None`` / ``None is x`` → (x, True); ``is not`` → (x, False); anything else None."""
    if type(node) is not cst.Comparison or len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    if type(target.operator) not in (cst.Is, cst.IsNot):
        return None
    left, right = node.left, target.comparator
    subject = left if type(right) is cst.Name and right.value == "None" else (
        right if type(left) is cst.Name and left.value == "None" else None)
    return (subject, type(target.operator) is cst.Is) if subject is not None else None


def _none_test(node: cst.BaseExpression, names: Iterable[str]) -> tuple[str, bool] | None:
    """``self.s is None`` → (s, True); ``self.s is not None`` → (s, False); for ``s`` in ``names``."""
    found = _none_comparison(node)
    attr = _self_attr(found[0]) if found is not None else None
    if attr is None or attr not in set(names):
        return None
    return attr, found[1]


def _optional_test(node: cst.BaseExpression, params: Iterable[str]) -> tuple[str, bool] | None:
    """``p is None`` → (p, True); ``p is not None`` → (p, False); for a parameter ``p`` in ``params``."""
    found = _none_comparison(node)
    if found is None or type(found[0]) is not cst.Name or found[0].value not in set(params):
        return None
    return found[0].value, found[1]


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
            attr = state_attr(target) if type(target) in (cst.Attribute, cst.Subscript) else None
            if attr in names and code_of(target).startswith("self."):
                how = " in place through an index" if type(target) is cst.Subscript else ""
                refusals.append(Refusal(pos.line(node), f"`{code_of(target)}` is written{how} in `{name}`, a "
                                        "helper that forward calls: inline the helper into forward to lift it"))
    # Inside forward: writes the rewrite can turn into locals are plain `self.s = v` / `self.s op= v`.
    for node, target in _writes(forward.body):
        if type(target) not in (cst.Attribute, cst.Subscript) or not code_of(target).startswith("self."):
            continue
        attr = state_attr(target)
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
            attr = state_attr(receiver) if type(receiver) in (cst.Attribute, cst.Subscript) else None
            if attr in names and code_of(receiver).startswith("self.") and (
                    method in CONTAINER_MUTATORS or (method.endswith("_") and not method.startswith("_"))):
                what = "grows a container" if method in CONTAINER_MUTATORS else "changes it in place"
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


def _binds(node: cst.CSTNode) -> list[str]:
    """Plain names that one statement or expression node binds (assignments, loops, walrus)."""
    if type(node) is cst.Assign:
        return [n for t in node.targets for n in bound_names(t.target)]
    if type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor):
        return bound_names(node.target)
    return []


def _present_part(node: cst.If | cst.IfExp, is_none: bool) -> cst.CSTNode | None:
    """The branch of a None test where the tested value is given."""
    if type(node) is cst.IfExp:
        return node.orelse if is_none else node.body
    if is_none:
        return node.orelse.body if type(node.orelse) is cst.Else else None
    return node.body


def _absent_assigns(node: cst.If, param: str, is_none: bool) -> bool:
    """Whether the branch where ``param`` is None assigns ``param`` or leaves (so it is a tensor after the if)."""
    absent = node.body if is_none else (node.orelse.body if type(node.orelse) is cst.Else else None)
    # A branch that returns or raises leaves `param` given after the `if` too (the blend refuses it later).
    return absent is not None and any(param in _binds(n) or type(n) in (cst.Return, cst.Raise) for n in walk(absent))


def _optional_refusal(line: int, message: str) -> Refusal:
    return Refusal(line, message, OPTIONAL_STEP)


def _check_optional(forward: cst.FunctionDef, params: Sequence[str], pos: _Positions) -> list[Refusal]:
    """Refusals for optional inputs: a None test that is not a whole ``if``, a test after the input
    is rebound, or a read of the input where it may still be None (outside the branch that has it)."""
    nodes = list(walk(forward.body))
    index = {id(n): i for i, n in enumerate(nodes)}
    size: dict[int, int] = {}
    for n in reversed(nodes):  # subtree sizes: a node's descendants follow it in walk order
        size[id(n)] = 1 + sum(size[id(c)] for c in children(n))

    def span(n: cst.CSTNode) -> range:
        return range(index[id(n)], index[id(n)] + size[id(n)])

    refusals: list[Refusal] = []
    not_reads = {id(n.attr) for n in nodes if type(n) is cst.Attribute}
    not_reads |= {id(n.keyword) for n in nodes if type(n) is cst.Arg and n.keyword is not None}
    for n in nodes:
        if type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor):
            targets = [t.target for t in n.targets] if type(n) is cst.Assign else [n.target]
            not_reads |= {id(t) for t in targets if type(t) is cst.Name and type(n) is not cst.AugAssign}
            not_reads |= {id(e.value) for t in targets if type(t) in (cst.Tuple, cst.List) for e in t.elements}
    for param in params:
        tests = [n for n in nodes if _optional_test(n, [param])]
        whole: dict[int, tuple[cst.If | cst.IfExp, bool]] = {}
        for n in nodes:
            if type(n) in (cst.If, cst.IfExp) and (found := _optional_test(n.test, [param])):
                whole[id(n.test)] = (n, found[1])
                if type(n) is cst.If and type(n.orelse) is cst.If:
                    refusals.append(_optional_refusal(pos.line(n), f"an `elif` follows the `{param} is None` test"))
        first_bind = min((index[id(n)] for n in nodes if param in _binds(n)), default=len(nodes))
        ok: list[range] = []
        for test in tests:
            ok.append(span(test))
            if id(test) not in whole:
                refusals.append(_optional_refusal(
                    pos.line(test), f"`{code_of(test)}` is not the whole condition of an `if`: the indicator cannot "
                    "replace it mechanically"))
            elif index[id(test)] > first_bind:
                refusals.append(_optional_refusal(
                    pos.line(test), f"`{code_of(test)}` tests `{param}` after forward rebinds it: the indicator says "
                    "whether the input was given, not this value"))
            else:
                node, is_none = whole[id(test)]
                present = _present_part(node, is_none)
                if present is not None:
                    ok.append(span(present))
        cover = len(nodes)
        for statement in forward.body.body:
            smalls = statement.body if type(statement) is cst.SimpleStatementLine else []
            lifted = type(statement) is cst.If and id(statement.test) in whole and _absent_assigns(
                statement, param, whole[id(statement.test)][1])
            if lifted or any(param in _binds(small) for small in smalls):
                cover = span(statement).stop
                break
        for n in nodes:
            if type(n) is cst.Name and n.value == param and id(n) not in not_reads:
                i = index[id(n)]
                if i < cover and not any(i in r for r in ok):
                    refusals.append(_optional_refusal(
                        pos.line(n), f"`{param}` is used where it may be None (outside the branch of its `is not None` "
                        "test): the lifted code would compute on the placeholder where the original passes None on "
                        "or raises"))
                    break
    return refusals


class _Step(cst.CSTTransformer):
    """forward's body → forward_step's body (state as locals, None tests as blends)."""

    def __init__(self, params: dict[str, str], indicators: dict[str, str], forward: cst.FunctionDef,
                 pos: _Positions, optional: dict[str, str] | None = None) -> None:
        self.params, self.indicators, self.forward, self.pos = params, indicators, forward, pos
        self.optional = optional or {}
        #: What every `return` hands back beside the result: each state, a queue's count after it.
        self.returns = list(params.values())
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
        if self.depth or not self.params:
            return updated  # a nested function's return, or no state to return beside the result
        value = updated.value if updated.value is not None else cst.Name("None")
        if type(value) is cst.Tuple and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        elements = [cst.Element(value)] + [cst.Element(cst.Name(p)) for p in self.returns]
        return updated.with_changes(value=cst.Tuple(elements, lpar=[], rpar=[]),
                                    whitespace_after_return=cst.SimpleWhitespace(" "))

    def _condition(self, indicator: str) -> cst.BaseExpression:
        # A 0-d condition: torch.where then keeps the branches' shape, even for 0-d values.
        return cst.parse_expression(f"{indicator}.reshape(())")

    def _test(self, test: cst.BaseExpression) -> tuple[str, bool] | None:
        """(indicator, is_none) of a None test on a state or an optional input, else None."""
        found = _none_test(test, self.indicators)
        if found is not None:
            return self.indicators[found[0]], found[1]
        found = _optional_test(test, self.optional)
        return (self.optional[found[0]], found[1]) if found is not None else None

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        test = self._test(original.test)
        if test is None:
            return updated
        attr, is_none = test
        present, absent = (updated.orelse, updated.body) if is_none else (updated.body, updated.orelse)
        return _where(self._condition(attr), present, absent)

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.BaseStatement | cst.FlattenSentinel:
        test = self._test(original.test)
        if test is None:
            return updated
        attr, is_none = test
        line = self.pos.line(original)
        step = OPTIONAL_STEP if attr in self.optional.values() else MANUAL_STEP
        other = updated.orelse.body if type(updated.orelse) is cst.Else else None
        absent_body, present_body = (updated.body, other) if is_none else (other, updated.body)
        branches = []
        for body in (present_body, absent_body):
            # Statements in order, each value over the names bound before the `if` (branch.py).
            found = branch_values(body) if body is not None else {}
            if isinstance(found, str):
                self.refusals.append(Refusal(line, f"the `is None` branch cannot be blended: {found}", step))
                return updated
            branches.append(found)
        present, absent = branches
        bound = (bound_before(self.forward, original) or set()) | set(self.params.values())
        # A name no later statement reads (the branch's own temporaries) needs no blend; state is
        # returned at every `return`, so it is always read.
        dead = dead_after(self.forward, original, {*present, *absent}) - set(self.params.values())
        names = [n for n in dict.fromkeys([*present, *absent]) if n not in dead]
        values = []
        for name in names:
            if (name not in present or name not in absent) and name not in bound:
                self.refusals.append(Refusal(line, f"`{name}` is assigned in one branch only and unbound before", step))
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
            f"`{attr}` selects"))
        return cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(target)], value=value)],
            leading_lines=[*updated.leading_lines, note, *comments_inside(original)])


def _where(condition: cst.BaseExpression, present: cst.BaseExpression,
           absent: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.parse_expression("torch.where"),
                    args=call_args(condition, parenthesize(present), parenthesize(absent)))


def _all_names(node: cst.CSTNode) -> set[str]:
    """Names used as variables anywhere in ``node`` (attribute names such as ``self.x``'s ``x`` aside)."""
    attrs = {id(n.attr) for n in walk(node) if type(n) is cst.Attribute}
    return {n.value for n in walk(node) if type(n) is cst.Name and id(n) not in attrs}


def _param_names(func: cst.FunctionDef) -> list[str]:
    p = func.params
    return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]


def lift(source: str, cls_name: str, states: Sequence[LiftState], step: str = "forward_step",
         optional: Sequence[LiftOptional] = ()) -> LiftResult:
    """Rewrite ``cls_name`` in ``source`` so that ``states`` are carried by the caller and each of
    ``optional`` (a forward input that may be None) comes with an indicator input."""
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
    inputs = tuple(_param_names(forward)[1:])
    unknown = [o.param for o in optional if o.param not in inputs]
    if unknown:
        return LiftResult(None, [Refusal(pos.line(forward), f"forward has no parameter `{unknown[0]}`")], step)
    found = _check(module, cls, forward, states, pos) + _check_optional(forward, [o.param for o in optional], pos)
    queues = [s.queue for s in states if s.queue is not None]
    if queues:
        # The queue's own statements grow and trim it (rewritten below); any other use is refused.
        skip = queue_lines(forward, queues, pos.line)
        found = [r for r in found if r.line not in skip] + [
            Refusal(at, why, QUEUE_STEP) for at, why in unlifted_uses(forward, queues, pos.line)]
    refusals = sorted(set(found), key=lambda r: (r.line, r.message))
    taken = _all_names(cls)
    optional_params: dict[str, str] = {}
    for item in optional:
        name = f"has_{item.param}"
        while name in taken:
            name += "_"
        optional_params[item.param] = name
        taken.add(name)
        if item.zeros is None:
            refusals.append(_optional_refusal(
                pos.line(forward), f"`{item.param}` was never given in the observed frames and no value of it was "
                "seen: its placeholder's shape is unknown (give it in the inputs function on some frames)"))
    state_params: dict[str, str] = {}
    indicators: dict[str, str] = {}
    counts: dict[str, str] = {}
    for state in states:
        name = state.attribute if state.attribute not in taken else f"{state.attribute}_state"
        state_params[state.attribute] = name
        taken.add(name)
        if state.queue is not None:
            counts[state.attribute] = f"{name}_count"
            while counts[state.attribute] in taken:
                counts[state.attribute] += "_"
            taken.add(counts[state.attribute])
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
    for q in queues:
        written.setdefault(q.attribute, q.line)
    result = LiftResult(None, refusals, step, inputs, state_params, indicators, written, optional_params, counts)
    if refusals:
        return result
    transformer = _Step(state_params, indicators, forward, pos, optional_params)
    transformer.returns = [n for attr, p in state_params.items() for n in (p, counts.get(attr)) if n]
    body = forward.body
    if queues:
        names = {q.attribute: (state_params[q.attribute], counts[q.attribute]) for q in queues}
        body = body.visit(QueueStatements(queues, names)).visit(QueueReads(queues, names))
    body = body.visit(transformer)
    if transformer.refusals:
        result.refusals = transformer.refusals
        return result
    step_def = _step_def(forward, body, step, state_params, indicators, optional_params, counts)
    adapter = _adapter(forward, step, states, state_params, indicators, optional, optional_params, counts)
    new_body = []
    for statement in cls.body.body:
        new_body += [adapter, step_def] if statement is forward else [statement]
    new_cls = cls.with_changes(body=cls.body.with_changes(body=new_body))
    result.source = module.deep_replace(cls, new_cls).code  # type: ignore[union-attr]
    return result


def _step_def(forward: cst.FunctionDef, body: cst.BaseSuite, step: str, state_params: dict[str, str],
              indicators: dict[str, str], optional: dict[str, str],
              counts: dict[str, str] | None = None) -> cst.FunctionDef:
    extra = list(optional.values())
    for attr, name in state_params.items():
        extra.append(name)
        if attr in (counts or {}):
            extra.append((counts or {})[attr])
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
    flags = list(optional.values())
    what = ", ".join(([f"the state in ({', '.join(extra[len(flags):])}) and out"] if state_params else [])
                     + ([f"with ({', '.join(flags)})"] if flags else []))
    note = cst.EmptyLine(comment=cst.Comment(
        f"# trtcodemod lift-state: forward's body, {what}: the export's signature"))
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
             indicators: dict[str, str], optional: Sequence[LiftOptional] = (),
             optional_params: dict[str, str] | None = None, counts: dict[str, str] | None = None) -> cst.FunctionDef:
    what = "the state from ``self``, into ``{step}``, back" if states else "into ``{step}``"
    if optional:
        what = "a None input as a placeholder and an indicator, " + what
    lines = [f'"""The original call (trtcodemod lift-state): {what.format(step=step)}."""']
    call = [n if n not in {p.name.value for p in forward.params.kwonly_params} else f"{n}={n}"
            for n in _param_names(forward)[1:]]
    keyword = any(p.default is not None for p in forward.params.params) or bool(forward.params.kwonly_params)
    for item in optional:
        # None becomes a placeholder and a false indicator; a given tensor passes through as it is.
        ind = (optional_params or {})[item.param]
        lines += [f"{ind} = {item.param} is not None", f"if not {ind}:", f"    {item.param} = {item.zeros}",
                  f"{ind} = torch.full((1,), {ind}, device={item.param}.device)"]
        call.append(f"{ind}={ind}" if keyword else ind)
    for state in states:
        name = state_params[state.attribute]
        lines.append(f"{name} = self.{state.attribute}")
        count = (counts or {}).get(state.attribute)
        if state.queue is not None and count:
            lines += pack_lines(state.queue, name, count, state.item_zeros)
        if state.attribute in indicators:
            ind = indicators[state.attribute]
            lines += [f"{ind} = {name} is not None", f"if not {ind}:", f"    {name} = {state.zeros}"]
            lines.append(f"{ind} = torch.full((1,), {ind}, device={name}.device)")
        call.append(f"{name}={name}" if keyword else name)
        if count:
            call.append(f"{count}={count}" if keyword else count)
        if state.attribute in indicators:
            call.append(f"{indicators[state.attribute]}={indicators[state.attribute]}" if keyword
                        else indicators[state.attribute])
    result = "result" if "result" not in _param_names(forward) else "step_result"
    if states:
        targets = ", ".join([result, *(t for s in states for t in (f"self.{s.attribute}", (counts or {}).get(s.attribute))
                                        if t)])
        lines.append(f"{targets} = self.{step}({', '.join(call)})")
        # A queue goes back on `self` as the original keeps it: its valid rows only.
        lines += [unpack_line(s.queue, (counts or {})[s.attribute]) for s in states if s.queue is not None]
        lines.append(f"return {result}")
    else:
        lines.append(f"return self.{step}({', '.join(call)})")
    body = cst.parse_module("\n".join(lines) + "\n").body
    return forward.with_changes(body=cst.IndentedBlock(body=body))
