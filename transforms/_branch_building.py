"""Building the vectorised form of an ``if`` (TRT101's fix on tensor values, TRT713's on sizes), and the
checks that refuse it: what each branch assigns, aliasing, mutations, impure calls, loops around,
comments that would be lost, names bound before. This module defines no rule and is not registered.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import bound_names, children, method_call, parenthesize, short_code, strip_parens, walk
from trtcodemod.names import dotted_name
from trtcodemod.transforms._condition_evidence import (
    _BOOL_METHODS, _IMPURE_BUILTINS, _IMPURE_MODULES, _PY_VALUE_BUILTINS, _PY_VALUE_METHODS, _body_statements,
    read_names,
)

#: Tensor functions and methods that answer with a Python bool (``torch.allclose(a, b)``,
#: ``a.equal(b)``): a condition built on one stays a Python value in a trace.
_PY_BOOL_RESULTS = frozenset({"allclose", "equal"})


def call_args(*values: cst.BaseExpression) -> list[cst.Arg]:
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


def branch_smalls(body: cst.BaseSuite) -> list[cst.BaseSmallStatement] | str:
    """The small statements of a branch in order, or why not (a compound statement in it)."""
    if type(body) is cst.SimpleStatementSuite:
        return list(body.body)
    smalls: list[cst.BaseSmallStatement] = []
    for statement in body.body:
        if type(statement) is not cst.SimpleStatementLine:
            return "a branch holds a compound statement"
        smalls.extend(statement.body)
    return smalls


def branch_assignments(body: cst.BaseSuite) -> dict[str, cst.BaseExpression] | str:
    """Name → value for a branch made only of plain assignments, or why not."""
    smalls = branch_smalls(body)
    if isinstance(smalls, str):
        return smalls
    assigned: dict[str, cst.BaseExpression] = {}
    for small in smalls:
        if type(small) is cst.Pass:
            continue
        plain = _plain_assignment(small)
        if isinstance(plain, str):
            return plain
        name, value = plain
        if name in assigned:
            return f"`{name}` is assigned twice in one branch"
        assigned[name] = value
    return assigned


def _plain_assignment(small: cst.BaseSmallStatement) -> tuple[str, cst.BaseExpression] | str:
    """``(name, value)`` of ``a = e``, ``a: T = e`` or ``a += e`` (as ``a + (e)``), with a side-effect-free
    value that ``torch.where`` can select; or why not."""
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
    problem = _impure(value)
    if problem:
        return problem
    if _string_valued(value) or (type(value) is cst.Name and value.value == "None"):
        return "a branch assigns a string or None, which torch.where cannot select"
    return name, value


def _string_valued(value: cst.BaseExpression) -> bool:
    """A string in ``value`` other than a call's keyword argument: the value may be one (``"a" + b``,
    ``", ".join(xs)``, ``x if c else "none"``, ``cfg.get("mode")``). A string passed by keyword
    (``F.pad(x, p, mode="replicate")``: S2M2's stereo pair) is a setting of the call, whose result is
    what the branch assigns."""
    strings = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
    stack: list[cst.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if type(node) in strings:
            return True
        if type(node) is cst.Arg and node.keyword is not None and type(node.value) in strings:
            continue  # ``mode="replicate"``: the call's setting
        stack.extend(node.children)
    return False


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
        if any(target not in branch for branch in branches) and target not in tracked \
                and not _unshared_before(func, node, target):
            # Not assigned on some path: there eager keeps the very tensor the name had, which another
            # name may hold too (a change through `target` later reaches it there, not after the rewrite).
            tracked[target] = f"`{target}` keeps its own tensor where a branch does not assign it"
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


def _unshared_before(func: cst.FunctionDef, node: cst.If, name: str) -> bool:
    """Whether the tensor ``name`` holds when ``node`` starts is visibly its own: bound by a plain
    ``name = value`` in a block around ``node`` (the same pass of any loop: no loop, function or class
    between them), ``value`` a computed tensor (no name, attribute or view of one; a called function's
    result counts as its own), and read between that binding and ``node`` only as an operand, a method's
    receiver (no view) or the target of ``name op= e`` (which changes that very tensor): no other name,
    container or call received it, so an in-place change through ``name`` after the ``if`` reaches no one
    else in eager mode either (MONAI's ``grad = separable_filtering(...)``, then ``if grad_min !=
    grad.max(): grad -= grad_min`` and ``if grad_max > 0: grad /= grad_max``)."""
    # The chain from ``func`` down to ``node``, not into nested definitions: an explicit stack and a
    # parent map, since a recursive closure would hold itself (and the nodes) in a reference cycle.
    parent_of: dict[int, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [func]
    while stack:
        current = stack.pop()
        if current is node:
            break
        if type(current) in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and current is not func:
            continue
        for child in children(current):
            parent_of[id(child)] = current
            stack.append(child)
    else:
        return False
    path: list[cst.CSTNode] = [node]
    while path[-1] is not func:
        path.append(parent_of[id(path[-1])])
    path.reverse()
    binding = None
    for depth in range(len(path) - 2, 0, -1):
        block, inner = path[depth], path[depth + 1]
        if type(block) in (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda) and block is not func:
            return False
        if type(block) is not cst.IndentedBlock:
            continue
        statements = list(block.body)
        for statement in reversed(statements[:statements.index(inner)]):
            if not any(type(n) is cst.Name and n.value == name for n in walk(statement)):
                continue
            if _only_changes_in_place(statement, name):
                continue
            binding = statement
            break
        if binding is not None:
            break
    if binding is None or type(binding) is not cst.SimpleStatementLine or len(binding.body) != 1:
        return False
    assign = binding.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name \
            or assign.targets[0].target.value != name or _storage_root(strip_parens(assign.value)) is not None:
        return False
    # Every read of `name` from the binding to `node`, in the order the code runs.
    parents: dict[int, cst.CSTNode] = {}
    own = {id(n) for n in walk(binding)}
    started = False
    for current in walk(func):
        for child in children(current):
            parents[id(child)] = current
        if current is node:
            break
        if current is binding:
            started = True
            continue
        if not started or type(current) is not cst.Name or current.value != name:
            continue
        if id(current) in own:
            continue
        if not _operand_read(current, parents):
            return False
    return started


def _only_changes_in_place(statement: cst.CSTNode, name: str) -> bool:
    """Whether ``statement`` binds ``name`` only by ``name op= e`` (a tensor stays the same object); a loop,
    ``with`` or ``:=`` in it counts as a binding (the caller then refuses)."""
    for n in walk(statement):
        if type(n) is cst.Assign and any(name in bound_names(t.target) for t in n.targets):
            return False
        if type(n) is cst.AnnAssign and type(n.target) is cst.Name and n.target.value == name:
            return False
        if type(n) in (cst.For, cst.While, cst.With, cst.NamedExpr):
            return False
    return True


def _operand_read(name: cst.Name, parents: dict[int, cst.CSTNode]) -> bool:
    """Whether this read of a tensor name passes it on to nothing that may keep it: an operand of
    arithmetic or a comparison, the receiver of a method that is no view, or ``name op= e``'s target."""
    parent = parents.get(id(name))
    if type(parent) in (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget):
        return True
    if type(parent) is cst.AugAssign and parent.target is name:
        return True
    if type(parent) is cst.Attribute and parent.value is name:
        call = parents.get(id(parent))
        return type(call) is cst.Call and call.func is parent and parent.attr.value not in _ALIASING_METHODS
    return False


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


def comments_inside(node: cst.If, kept: set[int] = frozenset()) -> list[cst.EmptyLine]:
    """The comments written inside an if-chain (its header lines and branches), in order; none of the
    nodes in ``kept`` (ids of a part the rewrite keeps as it is, with its comments)."""
    comments: list[cst.EmptyLine] = []
    own = {id(line) for line in node.leading_lines}
    for n in _walk_with_syntax(node):
        if n is node or id(n) in own or id(n) in kept:
            continue
        if type(n) is cst.EmptyLine and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
        elif type(n) is cst.TrailingWhitespace and n.comment is not None:
            comments.append(cst.EmptyLine(comment=n.comment))
    return comments


def bound_before(func: cst.FunctionDef | None, target: cst.CSTNode) -> set[str] | None:
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


def branch_temporaries(func: cst.FunctionDef, body: cst.BaseSuite,
                       assigned: dict[str, cst.BaseExpression]) -> list[str]:
    """Names the branch ``body`` assigns only to read them in its later assignments.

    ``clamp_value = torch.finfo(h.dtype).max - 1000`` then ``h = torch.clamp(h, -clamp_value,
    clamp_value)``: a name that appears nowhere else in ``func`` (not after the ``if``, not in its
    condition or other branches) and whose value reads no name the branch assigned before it sees
    the values from before the ``if``, so it keeps its value when it is computed there instead
    (every branch runs anyway).
    """
    inside = {id(node) for node in walk(body)}
    items = list(assigned.items())
    found: list[str] = []
    for number, (name, value) in enumerate(items):
        before, after = items[:number], items[number + 1:]
        local = not (read_names(value) & {n for n, _ in before}) and not any(
            type(node) is cst.Name and node.value == name and id(node) not in inside for node in walk(func))
        read_before = any(name in read_names(v) for _, v in [*before, (name, value)])
        if local and not read_before and any(name in read_names(v) for _, v in after):
            found.append(name)
    return found


def may_be_none(func: cst.FunctionDef, name: str) -> bool:
    """Is ``name`` ever ``None`` in ``func``: a parameter defaulting to None, or ``name = None``?"""
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and type(param.default) is cst.Name and param.default.value == "None":
            return True
    for node in walk(func.body):
        if type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == "None" \
                and name in {n for t in node.targets for n in bound_names(t.target)}:
            return True
        if type(node) is cst.AnnAssign and type(node.value) is cst.Name and node.value.value == "None" \
                and name in bound_names(node.target):
            return True
    return False


def tensor_condition(test: cst.BaseExpression, torch_attr: Callable[[str], cst.BaseExpression],
                     combined: Callable[[cst.BooleanOperation], bool],
                     leaf: Callable[[cst.BaseExpression], cst.BaseExpression] | None = None,
                     ) -> cst.BaseExpression | None:
    """``test`` as a bool tensor expression (``torch.as_tensor(c)``, ``.bool()`` of a number,
    ``logical_not``/``logical_and``/``logical_or``), or None where it stays a Python value in a trace.

    ``combined(op)`` says whether both operands of an ``and``/``or`` may run unconditionally (in
    ``x is not None and x.sum() > 0`` the static test guards the other one: it may not). ``leaf``
    makes the bool tensor of a test that is no ``not``/``and``/``or`` (``torch.as_tensor`` by default).
    """
    if type(test) is cst.BooleanOperation:
        if not combined(test):
            return None
        left = tensor_condition(test.left, torch_attr, combined, leaf)
        right = tensor_condition(test.right, torch_attr, combined, leaf)
        if left is None or right is None:
            return None
        name = "logical_and" if type(test.operator) is cst.And else "logical_or"
        return cst.Call(func=torch_attr(name), args=call_args(left, right))
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = tensor_condition(test.expression, torch_attr, combined, leaf)
        if inner is None:
            return None
        return cst.Call(func=torch_attr("logical_not"), args=call_args(inner))
    for n in walk(test):
        if type(n) is cst.Call:
            parts = method_call(n)
            if parts and (parts[1] in _PY_VALUE_METHODS or parts[1] in _PY_BOOL_RESULTS):
                return None
            if type(n.func) is cst.Name and n.func.value in _PY_VALUE_BUILTINS:
                return None
        if type(n) in (cst.Await, cst.Yield, cst.NamedExpr):
            return None
    as_tensor = cst.Call(func=torch_attr("as_tensor"), args=call_args(strip_parens(test)))
    if type(test) is cst.Comparison:
        if len(test.comparisons) != 1 or type(test.comparisons[0].operator) in (cst.In, cst.NotIn, cst.Is, cst.IsNot):
            return None
        return as_tensor if leaf is None else leaf(strip_parens(test))
    if leaf is not None:
        return leaf(strip_parens(test))
    parts = method_call(test) if type(test) is cst.Call else None
    if parts is not None and parts[1] in _BOOL_METHODS:
        return as_tensor
    return cst.Call(func=cst.Attribute(value=as_tensor, attr=cst.Name("bool")))


def selected_assignments(function: cst.FunctionDef | None, node: cst.If, conditions: list[cst.BaseExpression],
                         bodies: list[cst.BaseSuite], else_body: cst.BaseSuite | None, select: cst.BaseExpression,
                         used: set[str], static: Callable[[cst.If], bool] | None = None,
                         ) -> list[cst.BaseStatement] | str:
    """The statements that compute every branch of the if-chain ``node`` and select each assigned
    name with ``select(cond, then, else)`` (``torch.where``; nested for an ``elif`` chain, so the
    first true condition wins): the conditions into fresh locals (not in ``used``), the branches'
    own temporaries, then one assignment per name. Or why not (the refusals of TRT101's doc).

    With ``static`` (which nested ``if``s test configuration), a branch may hold ``if``s on configuration
    (:func:`nested_branch`): it is kept as it is, writing fresh locals, before the selects."""
    branches: list[dict[str, cst.BaseExpression]] = []
    nested: list[NestedBranch] = []
    suites = [*bodies, *([else_body] if else_body is not None else [])]
    used = set(used)

    def fresh(label: str) -> Callable[[str], str]:
        def make(name: str) -> str:
            number, local = 1, f"_trt_{label}_{name}"
            while local in used:
                number += 1
                local = f"_trt_{label}_{name}_{number}"
            used.add(local)
            return local
        return make

    for number, body in enumerate(suites):
        assigned = branch_assignments(body)
        if isinstance(assigned, str) and static is not None and function is not None \
                and assigned == "a branch holds a compound statement":
            inside = {id(n) for n in walk(body)}
            outside = {n.value for n in walk(function) if type(n) is cst.Name and id(n) not in inside}
            label = "then" if number == 0 else "else" if body is else_body else f"elif{number}"
            kept = nested_branch(function, body, static, fresh(label), outside)
            if isinstance(kept, str):
                return kept
            nested.append(kept)
            assigned = dict(kept.selected)
        if isinstance(assigned, str):
            return assigned
        branches.append(assigned)
    # A branch's own temporaries (read only by its later assignments) are computed before the
    # selects, as plain assignments: every branch runs anyway.
    hoisted: list[tuple[str, cst.BaseExpression]] = []
    for body, branch in zip(suites, branches):
        for name in branch_temporaries(function, body, branch):
            hoisted.append((name, branch.pop(name)))
    if else_body is None:
        branches.append({})
    targets: list[str] = []
    for branch in branches:
        targets.extend(name for name in branch if name not in targets)
    if not targets:
        return "the branches assign nothing"
    for branch in branches:
        for name, value in branch.items():
            if (read_names(value) & set(targets)) - {name}:
                return "a branch reads a name another assignment of this `if` sets"
    aliasing = _aliasing_mutated(function, node, [*branches, *(path for kept in nested for path in kept.paths)])
    if aliasing:
        return aliasing
    missing = {name for branch in branches for name in targets if name not in branch}
    if missing:
        bound = bound_before(function, node)
        if bound is None or not missing <= bound:
            unbound = sorted(missing - (bound or set()))
            return f"`{unbound[0]}` is assigned in only some branches and not bound before the `if`"
        maybe_none = sorted(name for name in missing if may_be_none(function, name))
        if maybe_none:
            return (f"`{maybe_none[0]}` is assigned in only some branches and may be None before the "
                    "`if`, which torch.where cannot select")
    cond_names = _fresh_names(used, len(conditions))
    statements: list[cst.SimpleStatementLine] = []
    for name, condition in zip(cond_names, conditions):
        statements.append(_assign(name, condition))
    for name, value in hoisted:
        statements.append(_assign(name, value))
    for kept in nested:
        statements.extend(kept.statements)
    for target in targets:
        value: cst.BaseExpression = branches[-1].get(target, cst.Name(target))
        for number in reversed(range(len(conditions))):
            chosen = branches[number].get(target, cst.Name(target))
            value = cst.Call(func=select, args=call_args(cst.Name(cond_names[number]), chosen, value))
        statements.append(_assign(target, value))
    return statements


#: How many ways through a branch's nested configuration ``if``s the rewrite follows before it refuses.
_MAX_PATHS = 64
_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class _Renamed(cst.CSTTransformer):
    """Reads of the names in ``names`` renamed (attribute and keyword names are no reads)."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.names[updated.value]) if updated.value in self.names else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


class NestedBranch:
    """A branch of a tensor ``if`` that holds ``if``/``elif``/``else`` statements on configuration
    (UniMatch's ``if attn_num_splits > 1:`` under ``if is_self_attn:``): its statements as they are,
    each name it assigns written to a fresh local of its own instead (and read from it after), so
    that every branch can run before the selects; which of those locals hold a name the selects
    read; and each way through it (name -> value, for the alias check)."""

    def __init__(self, statements: list[cst.BaseStatement], selected: dict[str, cst.BaseExpression],
                 paths: list[dict[str, cst.BaseExpression]]) -> None:
        self.statements = statements
        self.selected = selected
        self.paths = paths


def nested_branch(function: cst.FunctionDef | None, body: cst.BaseSuite,
                  static: Callable[[cst.If], bool], fresh: Callable[[str], str],
                  outside: set[str]) -> NestedBranch | str:
    """``body`` (a branch of a tensor ``if``) as a :class:`NestedBranch`, or why not.

    Every statement is a plain assignment (as :func:`branch_assignments` takes them) or an ``if``
    chain each of whose ``if``s ``static`` calls a test on configuration (a Python value the same in eager mode and
    in a trace), made of such statements again. A name is selected when it is read outside
    ``body`` (``outside``: the names the rest of the function and the other branches mention) or
    before the branch assigned it; a selected name must be assigned on every way through the
    branch. A read of a name some ways assign before it and others do not is refused.
    """
    if function is None or type(body) is not cst.IndentedBlock:
        return "a branch holds a compound statement"
    renamed: dict[str, str] = {}
    read_first: set[str] = set()

    def rename(value: cst.BaseExpression, paths: list[dict]) -> cst.BaseExpression | str:
        names = {}
        for name in read_names(value):
            assigned = [name in path for path in paths]
            if any(assigned) and not all(assigned):
                return f"`{name}` is read after only some ways through a nested `if` assign it"
            if all(assigned):
                names[name] = renamed[name]
            else:
                read_first.add(name)  # the value from before the `if`
        if names and any(type(n) in _SCOPES for n in walk(value)):
            return "a nested branch reads its own assignment inside a lambda or comprehension"
        return value.visit(_Renamed(names)) if names else value

    def smalls(items, paths: list[dict]) -> tuple[list, list[dict]] | str:
        out = []
        for small in items:
            if type(small) is cst.Pass:
                out.append(small)
                continue
            if type(small) in (cst.Assert, cst.Raise):
                return (f"a nested branch checks or raises (`{short_code(small)}`): the rewrite would run it where "
                        "the `if` takes the other branch")
            plain = _plain_assignment(small)
            if isinstance(plain, str):
                return plain
            name, value = plain
            if any(name in path for path in paths):
                return f"`{name}` is assigned twice on one way through a branch"
            new_value = rename(value, paths)
            if isinstance(new_value, str):
                return new_value
            target = renamed.setdefault(name, fresh(name))
            out.append(cst.Assign(targets=[cst.AssignTarget(cst.Name(target))], value=new_value,
                                  semicolon=getattr(small, "semicolon", cst.MaybeSentinel.DEFAULT)))
            paths = [{**path, name: value} for path in paths]
        return out, paths

    def block(statements, paths: list[dict]) -> tuple[list, list[dict]] | str:
        out = []
        for statement in statements:
            if type(statement) is cst.SimpleStatementLine:
                done = smalls(statement.body, paths)
                if isinstance(done, str):
                    return done
                out.append(statement.with_changes(body=done[0]))
                paths = done[1]
            elif type(statement) is cst.If:
                done = chain(statement, paths)
                if isinstance(done, str):
                    return done
                out.append(done[0])
                paths = done[1]
            else:
                return "a branch holds a compound statement other than an `if` on configuration"
            if len(paths) > _MAX_PATHS:
                return "a branch's nested `if`s have too many ways through them"
        return out, paths

    def suite(body: cst.BaseSuite, paths: list[dict]) -> tuple[cst.BaseSuite, list[dict]] | str:
        if type(body) is cst.SimpleStatementSuite:
            done = smalls(body.body, paths)
        else:
            done = block(body.body, paths)
        if isinstance(done, str):
            return done
        return body.with_changes(body=done[0]), done[1]

    def chain(statement: cst.If, paths: list[dict]) -> tuple[cst.If, list[dict]] | str:
        if not static(statement):
            return "a nested `if` in a branch tests a tensor value"
        problem = _impure(statement.test)
        if problem:
            return problem
        test = rename(statement.test, paths)
        if isinstance(test, str):
            return test
        then = suite(statement.body, paths)
        if isinstance(then, str):
            return then
        ends = then[1]
        orelse = statement.orelse
        if type(orelse) is cst.If:
            rest = chain(orelse, paths)
            if isinstance(rest, str):
                return rest
            orelse, more = rest
        elif orelse is not None:
            rest = suite(orelse.body, paths)
            if isinstance(rest, str):
                return rest
            orelse, more = orelse.with_changes(body=rest[0]), rest[1]
        else:
            more = paths  # no `else`: the ways that skip the `if`
        return statement.with_changes(test=test, body=then[0], orelse=orelse), [*ends, *more]

    done = block(body.body, [{}])
    if isinstance(done, str):
        return done
    statements, paths = done
    selected: dict[str, cst.BaseExpression] = {}
    for name, local in renamed.items():
        if name in outside or name in read_first:
            if any(name not in path for path in paths):
                return f"`{name}` is assigned on only some ways through a nested `if` of a branch"
            selected[name] = cst.Name(local)
    if not selected:
        return "the branches assign nothing"
    return NestedBranch(statements, selected, paths)
