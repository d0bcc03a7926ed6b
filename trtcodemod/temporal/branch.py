"""The values a straight-line branch of an ``is None`` test leaves, for the lift's blend.

A branch the lift blends runs on every frame (both branches do), so what it needs is, per name,
one expression over the names bound before the ``if``. Real branches are written as a few
statements in order: StreamPETR ages its memory with ``t += step`` and then cuts it with
``t = t[:, :n] * keep``; BEVFormer's layer unpacks ``bs, len_bev, c = query.shape`` before it
builds ``value`` from them. Each later statement reads what the earlier ones bound, so each value
is the statement's expression with the earlier values put in place of those names, in order.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, parenthesize, walk
from trtcodemod.transforms._branch_building import branch_smalls
from trtcodemod.transforms.control_flow import branch_assignments, read_names


class _Substitute(cst.CSTTransformer):
    """Names read in an expression → the values an earlier statement of the branch gave them."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # `x.attr`: the attribute's name is no read; the receiver is done below

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)  # `f(bs=...)`: a keyword is no read

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.values.get(original.value)
        return parenthesize(value) if value is not None else updated


def _substituted(value: cst.BaseExpression, earlier: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    if not read_names(value) & set(earlier):
        return value
    return value.visit(_Substitute(earlier))


def _unpacked(small: cst.BaseSmallStatement) -> list[tuple[str, cst.BaseExpression]] | None:
    """``a, b, c = value`` (names only, no star) → [(a, value[0]), ...]; else None."""
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if type(target) not in (cst.Tuple, cst.List) or not all(type(e) is cst.Element and type(e.value) is cst.Name
                                                             for e in target.elements):
        return None
    return [(e.value.value, cst.Subscript(value=parenthesize(small.value),
                                           slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]))
            for i, e in enumerate(target.elements)]


def branch_values(body: cst.BaseSuite) -> dict[str, cst.BaseExpression] | str:
    """Name → the value a branch of plain assignments leaves it, each statement reading the earlier
    ones' values (a name assigned twice, ``+=``, a tuple of names unpacked), or why not."""
    smalls = branch_smalls(body)
    if isinstance(smalls, str):
        return smalls
    values: dict[str, cst.BaseExpression] = {}
    for small in smalls:
        pairs = _unpacked(small)
        # One statement at a time through the blend's own check (impure calls, strings, None).
        checked = branch_assignments(cst.SimpleStatementSuite(
            [cst.Assign([cst.AssignTarget(cst.Name("_"))], small.value)] if pairs is not None else [small]))
        if isinstance(checked, str):
            return checked
        for name, value in pairs if pairs is not None else list(checked.items()):
            values[name] = _substituted(value, values)
    return values


def dead_after(forward: cst.FunctionDef, node: cst.If, names: set[str]) -> set[str]:
    """Those of ``names`` that no statement after ``node`` (a statement of forward's own body)
    reads before rebinding it: the branch's temporaries. Inside a block: none (not followed)."""
    statements = list(forward.body.body)
    if node not in statements:
        return set()
    dead: set[str] = set()
    open_names = set(names)
    for statement in statements[statements.index(node) + 1:]:
        if not open_names:
            break
        if type(statement) is not cst.SimpleStatementLine:
            open_names -= _mentioned(statement)  # read or not, kept: a compound statement is not followed
            continue
        for small in statement.body:
            open_names -= _reads(small)
            for name in _rebinds(small) & open_names:
                open_names.discard(name)
                dead.add(name)
    return dead | open_names  # never read again before forward ends


def _mentioned(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if type(n) is cst.Name}


def _reads(small: cst.BaseSmallStatement) -> set[str]:
    """What a statement reads: an assignment its value and what its targets index or reach through."""
    if type(small) in (cst.Assign, cst.AnnAssign) and small.value is not None:
        targets = [t.target for t in small.targets] if type(small) is cst.Assign else [small.target]
        through = {n for t in targets for n in read_names(t) - set(bound_names(t))}
        return read_names(small.value) | through
    return read_names(small)


def _rebinds(small: cst.BaseSmallStatement) -> set[str]:
    if type(small) is cst.Assign:
        return {n for t in small.targets for n in bound_names(t.target)}
    if type(small) is cst.AnnAssign and small.value is not None:
        return set(bound_names(small.target))
    return set()
