"""A NumPy helper that returns its array to a caller that makes a tensor of it (TRT711's rewrite).

online-face-detection's RetinaFace builds its priors in ``_priors_np(h, w)``: a loop over
constant strides, ``np.arange``/``np.meshgrid``/``np.repeat`` per level appended to a list,
``np.concatenate(blocks).astype("float32")`` returned; the caller turns it into a tensor with
``torch.from_numpy``. :func:`translate_helper` translates such a function statement by
statement with :class:`~trtcodemod.transforms._numpy_torch.Converter` (the same table, the
same dtype and layout rules), keeping its Python control flow: loops over constant sequences
(unrolled by the trace, as before), scalars (``math.ceil(h / step)``: TRT712 rewrites those on
its own), constant rows (``_MIN_SIZES[k]``), lists of arrays. Anything else in the body, and the
translation is refused. :func:`module_constants` finds the constant sequences a module defines.
This module defines no rule and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from trtcodemod.astutil import bound_names, visit_readonly
from trtcodemod.scopes import Bindings, scope_bindings
from trtcodemod.transforms._numpy_torch import Array, Converter


@dataclass
class Translation:
    """The helper's rewrite: replaced expressions, and the returned tensor's description."""

    replacements: dict[cst.CSTNode, cst.BaseExpression] = field(default_factory=dict)
    result: Array | None = None
    #: NumPy calls translated (the findings in the helper that this rewrite covers).
    calls: list[cst.Call] = field(default_factory=list)


def module_constants(module: cst.Module) -> dict[str, str]:
    """Names a module binds once, at its top level, to a non-empty literal tuple or list of
    numbers (or of such rows, all of one kind): name → kind as in ``Converter.sequences``."""
    found: dict[str, str] = {}
    bindings = scope_bindings(module)
    for line in module.body:
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Assign:
            continue
        assign = line.body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            continue
        kind = _literal_kind(assign.value)
        name = assign.targets[0].target.value
        if kind is not None and len(bindings.get(name, ())) == 1:
            found[name] = kind
    return found


def _literal_kind(expr: cst.BaseExpression) -> str | None:
    """"int"/"float" for a non-empty literal sequence of such numbers, "seq:..." for rows of them."""
    if type(expr) not in (cst.Tuple, cst.List) or not expr.elements:  # type: ignore[attr-defined]
        return None
    kinds = set()
    for element in expr.elements:  # type: ignore[attr-defined]
        if type(element) is not cst.Element:
            return None
        value = element.value
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            value = value.expression
        if type(value) is cst.Integer:
            kinds.add("int")
        elif type(value) is cst.Float:
            kinds.add("float")
        else:
            inner = _literal_kind(value)
            if inner is None or inner.startswith("seq:"):
                return None
            kinds.add("seq:" + inner)
    return kinds.pop() if len(kinds) == 1 else None


def translate_helper(function: cst.FunctionDef, convert: Converter) -> Translation | None:
    """The torch form of ``function``'s body, or None: every statement must be a docstring, a
    scalar or constant-row assignment, an array assignment (or a ``meshgrid`` unpacked), an empty
    list, an ``append`` of an array to one, a ``for`` over a constant sequence (``enumerate`` or
    ``range`` of one too) whose body is such statements, and the last one ``return`` of an array."""
    walk = _Walk(convert, Translation())
    body = function.body.body
    if type(function.body) is not cst.IndentedBlock or not body:
        return None
    last = body[-1]
    if type(last) is not cst.SimpleStatementLine or len(last.body) != 1 or type(last.body[0]) is not cst.Return:
        return None
    if not walk.block(list(body[:-1])):
        return None
    value = last.body[0].value
    made = walk.array(value) if value is not None else None
    if made is None:
        return None
    walk.out.replacements[value] = cst.parse_expression(made.text)  # type: ignore[index]
    walk.out.result = made
    return walk.out


@dataclass
class _Walk:
    convert: Converter
    out: Translation

    def array(self, expr: cst.BaseExpression) -> Array | None:
        convert = replace(self.convert, used=[], calls=[])
        made = convert.array(expr)
        if made is not None:
            self.out.calls.extend(convert.calls)
        return made

    def block(self, statements: list[cst.BaseStatement]) -> bool:
        return all(self.statement(s) for s in statements)

    def statement(self, statement: cst.BaseStatement) -> bool:
        if type(statement) is cst.For:
            return self.loop(statement)
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return False
        small = statement.body[0]
        if type(small) is cst.Expr:
            return type(small.value) is cst.SimpleString or self.append(small.value)
        if type(small) is cst.Pass:
            return True
        if type(small) is not cst.Assign or len(small.targets) != 1:
            return False
        return self.assign(small.targets[0].target, small.value)

    def forget(self, names: list[str]) -> None:
        for name in names:
            for table in (self.convert.arrays, self.convert.numbers, self.convert.sequences, self.convert.lists):
                table.pop(name, None)  # type: ignore[attr-defined]

    def assign(self, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        convert = self.convert
        if type(target) in (cst.Tuple, cst.List):
            names = bound_names(target)
            if len(names) != len(target.elements) or any(type(e.value) is not cst.Name  # type: ignore[attr-defined]
                                                          for e in target.elements):  # type: ignore[attr-defined]
                return False
            if type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(names):  # type: ignore[attr-defined]
                kinds = [convert.scalar(e.value) if type(e) is cst.Element else None
                         for e in value.elements]  # type: ignore[attr-defined]
                if None in kinds:
                    return False
                self.forget(names)
                convert.numbers.update({n: k.kind for n, k in zip(names, kinds)})  # type: ignore[union-attr]
                return True
            grid = convert.grid(value)
            if grid is None or len(grid[1]) != len(names):
                return False
            self.out.calls.append(value)  # type: ignore[arg-type]
            self.out.replacements[value] = cst.parse_expression(grid[0])
            self.forget(names)
            convert.arrays.update({n: replace(item, text=n) for n, item in zip(names, grid[1])})
            return True
        if type(target) is not cst.Name:
            return False
        name = target.value
        if type(value) is cst.List and not value.elements:
            self.forget([name])
            convert.lists[name] = None  # type: ignore[assignment]  # an empty list: elements come with append
            return True
        scalar = convert.scalar(value)
        if scalar is not None:
            self.forget([name])
            convert.numbers[name] = scalar.kind
            return True
        row = convert.sequence(value)
        if row is not None:
            self.forget([name])
            convert.sequences[name] = row
            return True
        made = self.array(value)
        if made is None:
            return False
        self.out.replacements[value] = cst.parse_expression(made.text).with_changes(lpar=[], rpar=[])
        self.forget([name])
        convert.arrays[name] = replace(made, text=name, shared=False)
        return True

    def append(self, expr: cst.BaseExpression) -> bool:
        """``blocks.append(array)``: every array appended to one list has one dtype and rank."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Attribute or expr.func.attr.value != "append" \
                or type(expr.func.value) is not cst.Name or len(expr.args) != 1 or expr.args[0].keyword \
                or expr.args[0].star:
            return False
        name = expr.func.value.value
        if name not in self.convert.lists:
            return False
        value = expr.args[0].value
        made = self.array(value)
        known = self.convert.lists[name]
        if made is None or known is not None and (known.dtype, known.ndim) != (made.dtype, made.ndim):
            return False
        self.out.replacements[value] = cst.parse_expression(made.text).with_changes(lpar=[], rpar=[])
        self.convert.lists[name] = Array(name, made.dtype, made.ndim)
        return True

    def loop(self, loop: cst.For) -> bool:
        """``for v in SEQ``, ``for i, v in enumerate(SEQ)``, ``for i in range(n)``: no ``else``."""
        if loop.orelse is not None or loop.asynchronous is not None:
            return False
        convert, target, source = self.convert, loop.target, loop.iter
        kinds: list[tuple[str, str]] = []  # (name, kind) bound each iteration
        if type(source) is cst.Call and type(source.func) is cst.Name and len(source.args) == 1 \
                and not source.args[0].keyword and not source.args[0].star:
            callee, arg = source.func.value, source.args[0].value
            if callee == "enumerate" and not convert.rebound("enumerate") and type(target) is cst.Tuple \
                    and len(target.elements) == 2 and all(type(e.value) is cst.Name for e in target.elements):
                row = convert.sequence(arg)
                if row is None:
                    return False
                kinds = [(target.elements[0].value.value, "int"), (target.elements[1].value.value, row)]  # type: ignore[attr-defined]
            elif callee == "range" and not convert.rebound("range") and type(target) is cst.Name \
                    and convert.integer(arg) is not None:
                kinds = [(target.value, "int")]
            else:
                return False
        elif type(target) is cst.Name and convert.sequence(source) is not None:
            kinds = [(target.value, convert.sequence(source))]  # type: ignore[list-item]
        else:
            return False
        # A name the body binds is read before its binding only through the previous iteration:
        # forgotten here, so such a read is refused.
        inside = [n for s in loop.body.body for n in bound_in(s)]
        self.forget(inside + [name for name, _ in kinds])
        for name, kind in kinds:
            if kind in ("int", "float"):
                convert.numbers[name] = kind
            else:
                convert.sequences[name] = kind
        return self.block(list(loop.body.body))


def bound_in(statement: cst.CSTNode) -> list[str]:
    """Every name ``statement`` binds, in it or in anything nested in it."""
    collector = Bindings()
    visit_readonly(statement, collector)
    return list(collector.values)
