"""Translate an element-wise loop nest into one computation on all its iterations (TRT348's engine).

The nest is ``for v1 in range(n1): for v2 in range(n2): ...`` whose innermost body computes a
few numbers per iteration and writes them into the iteration's own elements of tensors made
before the loop. Each loop variable becomes an index tensor (``arange`` laid along its own
axis), each per-iteration number a tensor over all iterations, each ``if`` a mask, each write
one indexed assignment of ``torch.where(mask, new, old)``. The translation declines (raises
:class:`Decline`) anything whose meaning it cannot carry over exactly as written: a loop
variable used as a number, a call it does not know to be element-wise, a read of a written
tensor at another iteration's elements, a name the loop leaves behind for later code.

What it assumes, and ``migrate`` verifies, is that every read it treats as one number is one
element (the subscript indexes every axis) and that the numbers are tensors' elements: a
per-iteration Python ``int()`` becomes ``.long()``, which truncates the same way but does not
raise on NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import libcst as cst

from trtcodemod.astutil import code_of, walk

#: Tensor methods that act on each element alone (``.item()`` is the element itself).
ELEMENTWISE_METHODS = frozenset({
    "sign", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "floor", "ceil", "trunc", "round",
    "long", "int", "float", "double", "half", "bool", "item", "clamp", "clamp_min", "clamp_max", "reciprocal",
})
#: ``torch.<name>`` functions that act on each element alone.
ELEMENTWISE_FUNCTIONS = frozenset({
    "sign", "abs", "exp", "log", "sqrt", "sigmoid", "tanh", "floor", "ceil", "trunc", "clamp", "minimum", "maximum",
})
#: In-place element-wise methods: ``v.sign_()`` on a vector the iteration made, kept in place over all iterations.
IN_PLACE_METHODS = frozenset(f"{name}_" for name in ELEMENTWISE_METHODS - {"item", "long", "int", "float", "double",
                                                                             "half", "bool"})
#: In-place arithmetic methods and the operator each applies: ``t[b, k].add_(v)`` is ``t[b, k] += v``.
IN_PLACE_ARITHMETIC = {"add_": "+", "sub_": "-", "mul_": "*", "div_": "/"}
#: ``torch.<name>((a, b))`` of numbers: a new vector per iteration, and the dtype it makes (None: the numbers' own).
_VECTOR_MAKERS = {"Tensor": "get_default_dtype()", "FloatTensor": "float32", "tensor": None, "stack": None}
#: Modules whose ``floor``/``ceil`` of one number the translation takes (the names code binds them to).
_MATH_MODULES = frozenset({"math", "np", "numpy"})
#: Functions of one number (by qualified name) and their form over all iterations (append mode resolves names).
#: The argument goes through ``as_tensor``: an iteration's name may hold a plain number (a comprehension's variable
#: over numbers written out, `[x * s for x in [0.5, 1.0]]`), which ``torch.sqrt`` refuses.
_MATH_FUNCTIONS = {"math.sqrt": "{torch}.sqrt({torch}.as_tensor({value}))",
                   "math.ceil": "{torch}.ceil({torch}.as_tensor({value})).long()",
                   "math.floor": "{torch}.floor({torch}.as_tensor({value})).long()",
                   "math.exp": "{torch}.exp({torch}.as_tensor({value}))",
                   "math.log": "{torch}.log({torch}.as_tensor({value}))"}
#: The same functions of a number the same for every iteration: TRT712's helpers (``math``'s function unless a trace
#: passes a tensor).
_MATH_OF_NUMBERS = {"math.sqrt": "_trt_size_sqrt", "math.ceil": "_trt_size_ceil", "math.floor": "_trt_size_floor"}
_COMPARISONS = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
                cst.Equal: "==", cst.NotEqual: "!="}
#: Prefix of every name the translation binds (reserved: no user's name starts with it).
PREFIX = "_trt_"


class Decline(Exception):
    """The loop is not one this translation carries over exactly."""


@dataclass
class _Alias:
    """A per-iteration name bound to ``base[<loop variables>, :, ...]``: read later with item indexes."""

    base: str
    prefix: list[str]
    slices: int | None  # explicit trailing `:` (None: none written, the rest of the axes)


@dataclass
class LoopNest:
    """The loops of a nest, outermost first, and the innermost body's statements."""

    variables: list[str]
    counts: list[cst.BaseExpression]
    body: list[cst.BaseStatement]


def _range_count(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``n`` of ``range(n)`` or ``range(0, n)`` (positional arguments), else None."""
    if type(node) is not cst.Call or type(node.func) is not cst.Name or node.func.value != "range" \
            or not 1 <= len(node.args) <= 2 or any(arg.keyword is not None or arg.star for arg in node.args):
        return None
    if len(node.args) == 2 and (type(node.args[0].value) is not cst.Integer or node.args[0].value.value != "0"):
        return None
    return node.args[-1].value


def range_loop(node: cst.For, products: bool = False) -> tuple[list[str], list[cst.BaseExpression]] | None:
    """The variables and trip counts of ``for v in range(n)``; with ``products``, also of
    ``for i, j in product(range(a), range(b))`` and ``product(range(f), repeat=2)`` (itertools'
    ``product``: the same as two nested loops, the first outermost). None for any other loop."""
    if node.orelse is not None or node.asynchronous is not None:
        return None
    if type(node.target) is cst.Name:
        count = _range_count(node.iter)
        return None if count is None else ([node.target.value], [count])
    call = node.iter
    if not products or type(node.target) is not cst.Tuple or type(call) is not cst.Call or not call.args:
        return None
    func = call.func
    if not (type(func) is cst.Name and func.value == "product" or type(func) is cst.Attribute
            and type(func.value) is cst.Name and func.value.value == "itertools" and func.attr.value == "product"):
        return None
    names = [e.value.value for e in node.target.elements if type(e.value) is cst.Name and type(e) is cst.Element]
    if len(names) != len(node.target.elements):
        return None
    counts = [_range_count(a.value) for a in call.args if a.keyword is None and not a.star]
    repeat = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "repeat"]
    if any(c is None for c in counts) or len(counts) + len(repeat) != len(call.args):
        return None
    if repeat:
        if len(repeat) != 1 or type(repeat[0]) is not cst.Integer:
            return None
        counts = counts * int(repeat[0].value)
    if len(counts) != len(names):
        return None
    return names, counts  # type: ignore[return-value]


def loop_nest(node: cst.For, depth: int = 3, products: bool = False) -> LoopNest | None:
    """``for v in range(n):`` nested up to ``depth`` deep, each loop the only statement of the one
    outside it (with ``products``, a loop over ``product`` of ranges counts as its nested loops);
    None for any other ``for``."""
    variables: list[str] = []
    counts: list[cst.BaseExpression] = []
    current: cst.BaseStatement = node
    while True:
        if type(current) is not cst.For:
            return None
        loop = range_loop(current, products)
        if loop is None:
            return None
        variables.extend(loop[0])
        counts.extend(loop[1])
        body = list(current.body.body) if type(current.body) is cst.IndentedBlock else []
        if len(body) == 1 and type(body[0]) is cst.For and len(variables) < depth \
                and loop_nest(body[0], 1, products):
            current = body[0]
            continue
        if not body:
            return None
        if any(variables.count(v) > 1 for v in variables):
            return None
        for count in counts:  # a trip count may not read a variable of the nest
            if any(type(n) is cst.Name and n.value in variables for n in walk(count)):
                return None
        return LoopNest(variables, counts, body)


@dataclass
class Vectorizer:
    """The translation of one nest's body; :meth:`statements` is the code, one line per statement."""

    nest: LoopNest
    torch: str
    lines: list[str] = field(default_factory=list)
    _locals: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> the masks it was bound under
    _aliases: dict[str, _Alias] = field(default_factory=dict)
    _outside_reads: set[str] = field(default_factory=set)
    _written: set[str] = field(default_factory=set)
    _masks: list[str] = field(default_factory=list)
    _mask_count: int = 0
    _guarded: dict[tuple[str, str], str] = field(default_factory=dict)  # (mask, index) -> its guarded name
    _counts: list[str] = field(default_factory=list)  # each loop's trip count, as the code reads it
    _ranks: dict[str, int] = field(default_factory=dict)  # name -> the rank of one iteration's value
    _fresh: set[str] = field(default_factory=set)  # names bound to a vector made in this iteration (no other view)
    # --- append mode (TRT364): the body appends numbers to the list ``append`` instead of writing tensors. Each
    # iteration's numbers go to the row ``row`` (a Python list of tensors over all iterations), and the nest's
    # numbers become one part of ``parts`` (`_trt_append_rows`). Loop variables are numbers (index tensors); loops
    # over iterables the same for every iteration and `if`s on such values stay Python code, indented.
    append: str | None = None
    row: str = f"{PREFIX}row"
    parts: str = f"{PREFIX}parts"
    #: The qualified name a called function refers to (``math.sqrt`` for a `from math import sqrt`'s `sqrt`).
    resolve: Callable[[cst.BaseExpression], str | None] | None = None
    #: Numbers per append of a list (``acc.append([cx, cy, w, h])``: 4), 0 for numbers, None until one is seen.
    width: int | None = None
    _indent: str = ""
    _lists: set[str] = field(default_factory=set)  # names bound to a list of numbers made in this iteration
    _loop_names: set[str] = field(default_factory=set)  # targets of the body's Python loops
    #: The helpers the translation calls (TRT712's, for `math` of a number the same for every iteration).
    helpers: set[str] = field(default_factory=set)
    #: Written tensors made just before the loop with one axis per loop variable (``out = torch.zeros(n)``): an
    #: iteration's element of them is one number.
    elementary: frozenset[str] = frozenset()

    def statements(self) -> list[str]:
        self._written = _written_bases(self.nest.body)
        variables = self.nest.variables
        counts = []
        for variable, count in zip(variables, self.nest.counts):
            code = code_of(count).strip()
            if any(type(n) is cst.Call for n in walk(count)):
                if type(count) is cst.Call and type(count.func) is cst.Name and count.func.value == "len" \
                        and len(count.args) == 1 and type(count.args[0].value) is cst.Name and not count.args[0].star:
                    # `len(t)` of a tensor is read into Python by a trace (the example's count); its first size is not
                    name = count.args[0].value.value
                    code = f"({name}.shape[0] if isinstance({name}, {self.torch}.Tensor) else len({name}))"
                self.lines.append(f"{PREFIX}size_{variable} = {code}")  # evaluated once, as `range` did
                code = f"{PREFIX}size_{variable}"
            counts.append(code)
        self._counts = counts
        for axis, variable in enumerate(variables):
            # Every index tensor has the nest's whole shape: the TorchScript exporter writes an indexed
            # assignment with indexes that broadcast into each other as a graph that fails to run.
            shape = ", ".join("-1" if a == axis else "1" for a in range(len(variables)))
            view = f".view({shape}).expand({', '.join(counts)})" if len(variables) > 1 else ""
            self.lines.append(f"{self._index(variable)} = {self.torch}.arange({counts[axis]}){view}")
        if self.append is not None:
            self._emit(f"{self.row} = []")
        for statement in self.nest.body:
            self._statement(statement)
        if self.append is not None:
            # every index tensor has the nest's shape: the first one says how far each number reaches
            self._emit(f"_trt_append_rows({self.parts}, {self.row}, {self._index(variables[0])})")
        indexes = {self._index(v) for v in variables}

        def needed(line: str) -> bool:  # an index tensor that no read uses is not made
            name = line.split(" = ", 1)[0]
            return name not in indexes or any(name in other for other in self.lines if other is not line)

        return [line for line in self.lines if needed(line)]

    def _emit(self, line: str) -> None:
        self.lines.append(self._indent + line)

    # --- statements ---------------------------------------------------------
    def _statement(self, statement: cst.BaseStatement) -> None:
        if self.append is not None and self._appending(statement):
            return
        if type(statement) is cst.If:
            self._if(statement)
            return
        if type(statement) is not cst.SimpleStatementLine:
            raise Decline("a compound statement")
        for small in statement.body:
            self._small(small)

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if type(small) is cst.Pass:
            return
        if type(small) is cst.Assign and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
            if type(target) is cst.Tuple and type(value) is cst.Tuple \
                    and len(target.elements) == len(value.elements) \
                    and not any(e.value is None or type(e) is cst.StarredElement
                                for e in (*target.elements, *value.elements)):
                # `px, py = a, b`: both values are computed before either name is bound
                values = [self._value(e.value) for e in value.elements]
                for element, computed in zip(target.elements, values):
                    self._assign(element.value, computed, None)
                return
            if type(target) in (cst.Tuple, cst.List) and type(value) is cst.Subscript:
                self._unpack(target, value)
                return
            self._assign(target, value, None)
        elif type(small) is cst.AugAssign:
            self._assign(small.target, small.value, code_of(small.operator).strip()[:-1])
        elif _in_place_write(small) is not None:
            # `t[b, k].add_(v)` writes `t[b, k] + v` into those elements, as `t[b, k] += v` does
            call = small.value
            self._assign(call.func.value, call.args[0].value, IN_PLACE_ARITHMETIC[call.func.attr.value])
        else:
            raise Decline("a statement that is not an assignment")

    # --- append mode ----------------------------------------------------------
    def _appending(self, statement: cst.BaseStatement) -> bool:
        """Translate a statement only append mode has (loops and `if`s kept as Python code, the list's
        appends, lists of numbers); False for the statements both modes share."""
        if type(statement) is cst.For:
            self._python_for(statement)
            return True
        if type(statement) is cst.If:
            if self._batched(statement.test):
                raise Decline("an `if` on an iteration's value: iterations would append different numbers")
            self._python_if(statement)
            return True
        if type(statement) is not cst.SimpleStatementLine:
            return False
        for small in statement.body:
            appended = _appended(small, self.append)
            if appended is not None:
                self._append_numbers(*appended)
            elif type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
                    and type(small.value) in (cst.List, cst.ListComp):
                self._bind_list(small.targets[0].target.value, small.value)
            elif any(type(n) is cst.Name and n.value == self.append for n in walk(small)):
                raise Decline(f"the list `{self.append}` is read inside the loop")
            else:
                self._small(small)
        return True

    def _append_numbers(self, elements: list[cst.BaseExpression], width: int) -> None:
        """``acc += [a, b]`` (width 0) or ``acc.append([a, b])`` (width 2): the numbers into the row."""
        if self.width is not None and self.width != width:
            raise Decline(f"`{self.append}` gets numbers and lists, or lists of different lengths")
        self.width = width
        if any(type(n) is cst.Name and n.value == self.append for e in elements for n in walk(e)):
            raise Decline(f"the list `{self.append}` is read inside the loop")
        values = [self._value(e) for e in elements]
        if any(v.rank for v in values):
            raise Decline(f"`{self.append}` gets a value that is not one number")
        self._emit(f"{self.row}.extend([{', '.join(v.code for v in values)}])")

    def _bind_list(self, name: str, value: cst.List | cst.ListComp) -> None:
        """``dense = [x * s for x in [j + 0.5]]`` or ``[a, b]``: a list of numbers made in this iteration."""
        if name in self.nest.variables or name in self._locals or name in self._aliases or name == self.append \
                or name in self._outside_reads or name.startswith(PREFIX):
            raise Decline(f"`{name}` is bound to a list and to something else")
        if type(value) is cst.List:
            self._emit(f"{name} = [{', '.join(self._number(e) for e in _elements(value))}]")
            self._lists.add(name)
            return
        comp = value.for_in
        if comp.inner_for_in is not None or comp.ifs or comp.asynchronous is not None \
                or type(comp.target) is not cst.Name:
            raise Decline("a list comprehension other than one `for` over a list")
        variable = comp.target.value
        if variable in self._locals or variable in self.nest.variables or variable in self._lists:
            raise Decline(f"the comprehension's `{variable}` hides a name of the loop")
        if type(comp.iter) in (cst.List, cst.Tuple):
            items = f"[{', '.join(self._number(e) for e in _elements(comp.iter))}]"
        elif type(comp.iter) is cst.Name and comp.iter.value in self._lists:
            items = comp.iter.value
        else:
            raise Decline("a list comprehension over other than a list written out or one this iteration made")
        self._locals[variable], self._ranks[variable] = (), 0
        try:
            element = self._number(value.elt)
        finally:
            del self._locals[variable], self._ranks[variable]
        self._emit(f"{name} = [{element} for {variable} in {items}]")
        self._lists.add(name)

    def _as_written(self, node: cst.BaseExpression) -> str:
        """``node``'s code; in append mode with ``math`` functions of numbers as TRT712's helpers, since a number
        the same for every iteration may be a traced size (`sqrt(s_k * big / side)`), which `math.sqrt` would
        read into Python (the helpers take it traced, and are `math`'s own otherwise: symbolic under
        `torch.export`)."""
        if self.append is None or self.resolve is None:
            return code_of(node).strip()
        vectorizer = self

        class Calls(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                qualified = vectorizer.resolve(original.func) if len(updated.args) == 1 \
                    and updated.args[0].keyword is None and not updated.args[0].star else None
                helper = _MATH_OF_NUMBERS.get(qualified or "")
                if helper is None:
                    return updated
                vectorizer.helpers.add(helper)
                return updated.with_changes(func=cst.Name(helper))

        return code_of(node.visit(Calls())).strip()

    def _number(self, node: cst.BaseExpression) -> str:
        value = self._value(node)
        if value.rank:
            raise Decline(f"`{code_of(node).strip()}` is not one number")
        return value.code

    def _python_for(self, node: cst.For) -> None:
        """A loop over an iterable the same for every iteration (a configuration list, `enumerate` of one), or over
        lists of numbers this iteration made (`product(dense_cy, dense_cx)`): a Python loop in both forms."""
        if node.orelse is not None or node.asynchronous is not None:
            raise Decline("a loop with `else` or `async`")
        targets = [node.target] if type(node.target) is cst.Name else [
            e.value for e in node.target.elements] if type(node.target) is cst.Tuple else []
        if not targets or any(type(t) is not cst.Name for t in targets):
            raise Decline("a loop whose target is not names")
        loop = range_loop(node, products=True)
        if loop is not None and not any(type(n) is cst.SubscriptElement and any(
                type(m) is cst.Name and m.value in loop[0] for m in walk(n)) for n in walk(node.body)):
            # a loop over sizes inside the nest, apart from it: a Python loop would keep the example's count
            raise Decline("a loop over sizes inside the nest, not nested directly")
        names = [t.value for t in targets]
        # a name a loop of this body bound before may be bound again by another (FaceBoxes' two `product` loops)
        taken = set(self.nest.variables) | self._lists | set(self._aliases) | self._written | (
            (set(self._locals) | self._outside_reads) - self._loop_names)
        if any(n in taken or n == self.append or n.startswith(PREFIX) for n in names):
            raise Decline("a loop's target rebinds a name of the loop")
        iterable = node.iter
        if self._batched(iterable):
            lists = [iterable] if type(iterable) is cst.Name else [
                a.value for a in iterable.args] if type(iterable) is cst.Call and type(iterable.func) is cst.Name \
                and iterable.func.value in ("product", "zip") and all(a.keyword is None and not a.star
                                                                     for a in iterable.args) else []
            if not lists or any(type(a) is not cst.Name or a.value not in self._lists for a in lists):
                raise Decline("a loop over values of the iteration other than its lists of numbers")
            for name in names:  # each an iteration's number, one per element of the lists
                self._locals[name], self._ranks[name] = (), 0
        else:
            for name in names:  # the same for every iteration: read as written
                self._locals.pop(name, None)
        self._loop_names.update(names)
        self._emit(f"for {code_of(node.target).strip()} in {code_of(iterable).strip()}:")
        self._block(_block(node.body))

    def _python_if(self, node: cst.If) -> None:
        self._emit(f"if {code_of(node.test).strip()}:")
        self._block(_block(node.body))
        if node.orelse is None:
            return
        self._emit("else:")
        if type(node.orelse) is cst.If:
            self._indent += "    "
            self._python_if(node.orelse)
            self._indent = self._indent[:-4]
        else:
            self._block(_block(node.orelse.body))

    def _block(self, statements: list[cst.BaseStatement]) -> None:
        self._indent += "    "
        before = len(self.lines)
        for statement in statements:
            self._statement(statement)
        if len(self.lines) == before:
            self._emit("pass")
        self._indent = self._indent[:-4]

    def _if(self, node: cst.If) -> None:
        if not self._batched(node.test):
            raise Decline("an `if` on a value the same for every iteration")
        condition = self._condition(node.test)
        if condition.rank:
            raise Decline("an `if` on a vector")
        test = condition.code
        self._mask_count += 1
        mask = f"{PREFIX}mask{self._mask_count}"
        outer = self._mask()
        self._emit(f"{mask} = {test}" if outer is None else f"{mask} = {outer} & ({test})")
        self._masks.append(mask)
        for statement in _block(node.body):
            self._statement(statement)
        self._masks.pop()
        if node.orelse is None:
            return
        self._mask_count += 1
        other = f"{PREFIX}mask{self._mask_count}"
        self._emit(f"{other} = ~({test})" if outer is None else f"{other} = {outer} & ~({test})")
        self._masks.append(other)
        if type(node.orelse) is cst.If:
            self._if(node.orelse)
        else:
            for statement in _block(node.orelse.body):
                self._statement(statement)
        self._masks.pop()

    def _assign(self, target: cst.BaseExpression, value: "cst.BaseExpression | Value",
                operator: str | None) -> None:
        if type(target) is cst.Name:
            self._bind(target.value, value, operator)
        elif type(target) is cst.Subscript:
            self._write(target, value if isinstance(value, Value) else self._value(value), operator)
        else:
            raise Decline("an assignment to something other than a name or a subscript")

    def _unpack(self, target: cst.Tuple | cst.List, value: cst.Subscript) -> None:
        """``x1, y1, x2, y2 = boxes[i]`` (or ``boxes[i, :4]``): the row at the iteration of a tensor the loop does
        not write, unpacked into its elements; over all iterations, the rows' columns (``unbind`` along the axis
        after the loops': the same unpacking, so a row of another length raises as the loop's does)."""
        names = [e.value.value if type(e) is cst.Element and type(e.value) is cst.Name else None
                 for e in target.elements]
        base, items = _flat_subscript(value)
        variables = self.nest.variables
        if None in names or len(set(names)) != len(names) or self._masks or self.append is not None:
            raise Decline("an unpacking into other than names, or under a condition")
        if type(base) not in (cst.Name, cst.Attribute) or self._batched(base) or code_of(base).strip() in self._written \
                or len(items) not in (len(variables), len(variables) + 1) \
                or any(type(item) is not cst.Name or item.value != v for item, v in zip(items, variables)):
            raise Decline("an unpacking of other than a row at the iteration")
        rest = items[len(variables):]
        if rest and (type(rest[0]) is not cst.Slice or self._batched(rest[0])):
            raise Decline("an unpacked row indexed by more than a slice the same for every iteration")
        for name in names:
            self._bindable(name)
            if name in self._aliases or name in self._locals:
                raise Decline(f"`{name}` is rebound")
        if type(base) is cst.Name:
            self._outside_reads.add(base.value)
        index = [self._index(v) for v in variables] + [code_of(r).strip() for r in rest]
        self._emit(f"{', '.join(names)} = {code_of(base).strip()}[{', '.join(index)}].unbind({len(variables)})")
        for name in names:
            self._locals[name], self._ranks[name] = (), 0
            self._fresh.discard(name)

    def _bindable(self, name: str) -> None:
        if name in self.nest.variables or name in self._written or name in self._outside_reads \
                or name.startswith(PREFIX):
            raise Decline(f"`{name}` carries a value from one iteration to the next")

    def _bind(self, name: str, value: "cst.BaseExpression | Value", operator: str | None) -> None:
        self._bindable(name)
        if self.append is not None and operator is None and not isinstance(value, Value) \
                and not self._batched(value) and not self._masks and name not in self._lists:
            # the same for every iteration (`sizes = self.min_sizes[k]`, `s_k = size / side`): Python code, as
            # written, read as written (a loop may go over it)
            self._emit(f"{name} = {self._as_written(value)}")
            self._locals.pop(name, None)
            return
        alias = self._alias(value) if operator is None and not isinstance(value, Value) else None
        if alias is not None:
            if self._masks or name in self._locals:
                raise Decline(f"`{name}` is bound to a slice under a condition")
            self._aliases[name] = alias
            return
        if name in self._aliases:
            raise Decline(f"`{name}` is rebound")
        new = value if isinstance(value, Value) else self._value(value)
        if operator is not None:
            new = _combine(operator, self._read_local(name), new)
        masks = tuple(self._masks)
        bound = self._locals.get(name)
        if bound is not None and masks[:len(bound)] != bound:
            raise Decline(f"`{name}` is bound in two branches")
        if bound is not None and len(bound) < len(masks):
            old = self._ranks[name]
            if old != new.rank or not new.batched:
                raise Decline(f"`{name}` changes its shape under a condition")
            new = Value(f"{self.torch}.where({_padded(masks[-1], new.rank)}, {new.code}, {name})", new.rank)
            masks = bound
        self._locals[name] = masks
        self._ranks[name] = new.rank
        if operator is None and not isinstance(value, Value) and _makes_vector(value, self.torch):
            self._fresh.add(name)
        else:
            self._fresh.discard(name)
        self._emit(f"{name} = {new.code}")

    def _write(self, target: cst.Subscript, value: "Value", operator: str | None) -> None:
        base, items = _flat_subscript(target)
        if type(base) is not cst.Name or base.value not in self._written:
            raise Decline("a write into something other than a tensor named before the loop")
        slot, rank = self._own_slot(items)
        if len(items) == len(self.nest.variables) and base.value not in self.elementary:
            rank = value.rank
            if rank == 0:
                raise Decline("a number written into a slice of unknown size")
        old = Value(f"{base.value}[{', '.join(slot)}]", rank)
        if value.batched and value.rank != rank:
            if value.rank != 0:
                raise Decline("a value of another shape than the elements it is written into")
            # an iteration's number written into its row (`out[i, :] = s`) fills the row; expanded to the block,
            # since a traced assignment that broadcasts records the example's shape (a `view` to it)
            value = Value(f"{_atom(_padded(value.code, rank))}.expand_as({old.code})", rank)
        new = _combine(operator, old, value) if operator is not None else value
        mask = self._mask()
        code = new.code
        if mask is not None:
            code = f"{self.torch}.where({_padded(mask, rank)}, {new.code}, {old.code})"
        self._emit(f"{old.code} = {code}")

    def _own_slot(self, items: list[cst.BaseExpression]) -> tuple[list[str], int]:
        """The index of the iteration's own elements (the loop variables in order, then numbers the
        same for every iteration and whole slices, `pts[i, :, 0]`) over all iterations, and the rank of
        one iteration's block (its whole slices: the index is taken to cover every axis)."""
        variables = self.nest.variables
        if len(items) < len(variables) or any(
                type(item) is not cst.Name or item.value != variable for item, variable in zip(items, variables)):
            raise Decline("a written tensor indexed otherwise than by the loop variables first")
        rest = items[len(variables):]
        if any(not _whole(item) and (type(item) not in (cst.Integer, cst.Name, cst.Attribute, cst.UnaryOperation)
                                     or self._batched(item)) for item in rest):
            raise Decline("a written tensor indexed by more than the loop variables, fixed numbers and `:`")
        # The iterations' own elements are one block: basic slices, which the TorchScript exporter writes with the
        # traced sizes kept (an indexed assignment by index tensors keeps a traced size of 1).
        slot = [f":{count}" for count in self._counts] + [":" if _whole(item) else code_of(item).strip()
                                                          for item in rest]
        return slot, sum(1 for item in rest if _whole(item))

    # --- expressions ----------------------------------------------------------
    def _alias(self, value: cst.BaseExpression) -> _Alias | None:
        """``base[v1, v2, :, :]`` (the loop variables, then whole slices) of a tensor the loop does
        not write."""
        if type(value) is not cst.Subscript:
            return None
        base, items = _flat_subscript(value)
        variables = self.nest.variables
        if type(base) not in (cst.Name, cst.Attribute) or self._batched(base) \
                or len(items) < len(variables) or code_of(base).strip() in self._written:
            return None
        if any(type(item) is not cst.Name or item.value != v for item, v in zip(items, variables)):
            return None
        rest = items[len(variables):]
        if any(type(item) is not cst.Slice or item.lower or item.upper or item.step for item in rest):
            return None
        return _Alias(code_of(base).strip(), [self._index(v) for v in variables], len(rest) or None)

    def _value(self, node: cst.BaseExpression) -> "Value":
        kind = type(node)
        if kind in (cst.Integer, cst.Float):
            return Value(node.value, 0, batched=False)
        if kind is cst.Name:
            return self._name(node.value)
        if not self._batched(node):  # the same for every iteration: as written
            return Value(f"({self._as_written(node)})", 0, batched=False)
        if kind is cst.Subscript:
            return self._subscript(node)
        if kind is cst.BinaryOperation:
            return _combine(code_of(node.operator).strip(), self._value(node.left), self._value(node.right))
        if kind is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            inner = self._value(node.expression)
            return Value(f"({code_of(node.operator).strip()}{inner.code})", inner.rank)
        if kind in (cst.Comparison, cst.BooleanOperation) or kind is cst.UnaryOperation and type(
                node.operator) is cst.Not:
            return self._condition(node)
        if kind is cst.Call:
            return self._call(node)
        raise Decline(f"`{code_of(node).strip()}` is not an element-wise computation this rule knows")

    def _name(self, name: str) -> "Value":
        if name in self.nest.variables:
            if self.append is not None:
                return Value(self._index(name), 0)  # the iteration's number: an index tensor over all of them
            raise Decline(f"the loop variable `{name}` is used as a number")
        if name in self._lists:
            raise Decline(f"the list `{name}` is used other than as what a loop goes over")
        alias = self._aliases.get(name)
        if alias is not None and alias.slices is not None and self.append is None:
            # a row bound to a name (`row = heat[i, :]`) used whole: the rows of all iterations
            return Value(f"{alias.base}[{', '.join([f':{count}' for count in self._counts] + [':'] * alias.slices)}]",
                         alias.slices)
        if name in self._aliases or name in self._written:
            raise Decline(f"`{name}` is used whole")
        if name in self._locals:
            return self._read_local(name)
        self._outside_reads.add(name)
        return Value(name, 0, batched=False)

    def _read_local(self, name: str) -> "Value":
        if name not in self._locals:
            raise Decline(f"`{name}` is read before this iteration binds it")
        bound = self._locals[name]
        if tuple(self._masks[:len(bound)]) != bound:
            raise Decline(f"`{name}` is read outside the condition that binds it")
        return Value(name, self._ranks[name])

    def _index(self, variable: str) -> str:
        return f"{PREFIX}{variable}"

    def _index_item(self, item: cst.BaseExpression) -> str:
        """One index of a read: a loop variable, a per-iteration integer (kept in range where a
        condition skipped the read, as the loop never made it there), or a number."""
        if type(item) is cst.Name and item.value in self.nest.variables:
            return self._index(item.value)
        if type(item) is cst.Slice:
            raise Decline("a read of more than one element")
        value = self._value(item)
        if value.rank:
            raise Decline("an index that is not one number")
        mask = self._mask()
        if mask is None or not value.batched:
            return value.code
        key = (mask, value.code)
        if key not in self._guarded:
            self._guarded[key] = f"{PREFIX}at{len(self._guarded) + 1}"
            self._emit(f"{self._guarded[key]} = {self.torch}.where({mask}, {value.code}, 0)")
        return self._guarded[key]

    def _subscript(self, node: cst.Subscript) -> "Value":
        base, items = _flat_subscript(node)
        if type(base) is cst.Name and base.value in self._aliases:
            alias = self._aliases[base.value]
            # `hm[b, k, :]` read as `hm[py, px]`: the written `:` and the axes after it (an element, as assumed)
            if alias.slices is not None and len(items) < alias.slices:
                raise Decline(f"`{code_of(node).strip()}` does not read one element of its slice")
            indexes = alias.prefix + [self._index_item(item) for item in items]
            return Value(f"{alias.base}[{', '.join(indexes)}]", 0)
        name = code_of(base).strip()
        if type(base) is cst.Name and name in self._written:
            if len(items) == len(self.nest.variables):
                raise Decline("a read of a written tensor's slice of unknown size")
            slot, rank = self._own_slot(items)
            return Value(f"{name}[{', '.join(slot)}]", rank)
        if type(base) not in (cst.Name, cst.Attribute) or self._batched(base):
            raise Decline(f"`{code_of(node).strip()}` indexes a per-iteration value")
        if type(base) is cst.Name:
            self._outside_reads.add(name)
        if any(_whole(item) for item in items) and len(items) > len(self.nest.variables):
            # a row at the iteration (`indicesc[i, :]`): the rows of all iterations are one block of basic slices
            slot, rank = self._own_slot(items)
            return Value(f"{name}[{', '.join(slot)}]", rank)
        return Value(f"{name}[{', '.join(self._index_item(item) for item in items)}]", 0)

    def _call(self, node: cst.Call) -> "Value":
        if any(arg.star for arg in node.args):
            raise Decline("a call with unpacked arguments")
        func, args = node.func, node.args
        single = len(args) == 1 and args[0].keyword is None
        if type(func) is cst.Name and single and func.value in ("int", "round", "abs"):
            inner = args[0].value
            if func.value == "round" or func.value == "int" and type(inner) is cst.Call \
                    and type(inner.func) is cst.Name and inner.func.value == "round":
                # `round(float(v))` and `int(round(float(v)))`: half to even, an integer, as torch.round then .long()
                rounded = inner.args[0].value if func.value == "int" else inner
                if type(rounded) is cst.Call and type(rounded.func) is cst.Name and rounded.func.value == "float" \
                        and len(rounded.args) == 1 and rounded.args[0].keyword is None:
                    rounded = rounded.args[0].value
                value = self._value(rounded)
                return Value(f"{self.torch}.round({value.code}).long()", value.rank)
            value = self._value(inner)
            if func.value == "int":  # int() truncates toward zero, as .long()
                code = value.code if value.code.endswith(".long()") else f"{_atom(value.code)}.long()"
                return Value(code, value.rank)
            return Value(f"{self.torch}.abs({value.code})", value.rank)
        qualified = self.resolve(func) if self.resolve is not None and single else None
        if qualified in _MATH_FUNCTIONS:
            # `sqrt(x)`, `ceil(x)` of `from math import ...` on an iteration's number: the same for every iteration
            value = self._value(args[0].value)
            return Value(_MATH_FUNCTIONS[qualified].format(torch=self.torch, value=value.code), value.rank)
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in _MATH_MODULES \
                and func.attr.value in ("floor", "ceil") and single:
            # `math.floor(v)` (and NumPy's, on one element) rounds to an integer: the same integer as a long tensor
            value = self._value(args[0].value)
            return Value(f"{self.torch}.{func.attr.value}({value.code}).long()", value.rank)
        if type(func) is cst.Attribute:
            owner, attr = func.value, func.attr.value
            if type(owner) is cst.Name and owner.value == self.torch:
                if attr in ELEMENTWISE_FUNCTIONS:
                    values = self._arguments(node)
                    return Value(f"{self.torch}.{attr}({', '.join(v for v, _ in values)})",
                                 max((r for _, r in values), default=0))
                if attr in _VECTOR_MAKERS and len(args) >= 1 and args[0].keyword is None \
                        and all(a.keyword is not None and a.keyword.value == "device" for a in args[1:]) \
                        and type(args[0].value) in (cst.Tuple, cst.List):
                    # `torch.Tensor((a, b))` and `torch.stack([a, b])` of numbers: one vector per iteration
                    parts = [self._value(e.value) for e in args[0].value.elements]
                    if not parts or any(p.rank for p in parts) or any(type(e) is cst.StarredElement
                                                                   for e in args[0].value.elements):
                        raise Decline("a vector made of other than numbers")
                    # `torch.tensor` of 0-d tensors keeps their dtype, as `stack` does; `torch.Tensor` makes the
                    # default dtype, `torch.FloatTensor` float32
                    stacked = f"{self.torch}.stack(({', '.join(p.code for p in parts)},), -1)"
                    if _VECTOR_MAKERS[attr] is not None:
                        stacked += f".to({self.torch}.{_VECTOR_MAKERS[attr]})"
                    for extra in args[1:]:
                        stacked += f".to({self._value(extra.value).code})"
                    return Value(stacked, 1)
            if self._batched(owner) and attr == "to" and not any(self._batched(a.value) for a in args):
                receiver = self._value(owner)  # `.to(device)`, `.to(dtype)`: element by element
                return Value(f"{_atom(receiver.code)}.to({', '.join(v for v, _ in self._arguments(node))})",
                             receiver.rank)
            if self._batched(owner) and (attr in IN_PLACE_METHODS or attr in IN_PLACE_ARITHMETIC):
                # in place on a vector this iteration made: the same vector over all iterations changes the same way
                # (a view of another tensor would not: an indexed read is a copy while tracing)
                if not self._fresh_receiver(owner) or any(self._batched(a.value) for a in args):
                    raise Decline(f"`{code_of(node).strip()}` changes a tensor it does not own")
                receiver = self._value(owner)
                values = self._arguments(node)
                return Value(f"{_atom(receiver.code)}.{attr}({', '.join(v for v, _ in values)})", receiver.rank)
            if self._batched(owner) and attr in ("clamp", "clamp_min", "clamp_max") \
                    and any(self._batched(a.value) for a in args):
                return self._clamp(self._value(owner), attr, args)
            if self._batched(owner) and attr in ELEMENTWISE_METHODS:
                receiver = self._value(owner)
                if attr == "item":
                    return receiver
                values = self._arguments(node)
                return Value(f"{_atom(receiver.code)}.{attr}({', '.join(v for v, _ in values)})", receiver.rank)
        raise Decline(f"`{code_of(node).strip()}` is not a call this rule knows to be element-wise")

    def _clamp(self, receiver: "Value", attr: str, args: Sequence[cst.Arg]) -> "Value":
        """``x.clamp(lo, hi)`` with an iteration's number as a bound (toolcv's `tmp[i, :, 0].clamp(0, boxes_w[i])`):
        over all iterations the bounds are tensors, which `clamp` takes only both as tensors, so
        `torch.minimum(torch.maximum(x, lo), hi)`, each bound lined up with the receiver's row."""
        names = {"clamp": ("min", "max"), "clamp_min": ("min",), "clamp_max": ("max",)}[attr]
        bounds: dict[str, Value] = {}
        for at, arg in enumerate(args):
            key = arg.keyword.value if arg.keyword is not None else names[at] if at < len(names) else None
            if key not in names or key in bounds or arg.star:
                raise Decline("a clamp with other arguments than its bounds")
            value = self._value(arg.value)
            if value.rank > receiver.rank or value.rank and value.rank != receiver.rank:
                raise Decline("a clamp bound of another shape than its receiver")
            bounds[key] = value
        code = receiver.code
        for key, function in (("min", "maximum"), ("max", "minimum")):
            if key in bounds:
                bound = bounds[key]
                other = _padded(bound.code, receiver.rank - bound.rank) if bound.batched else \
                    f"{self.torch}.as_tensor({bound.code}, dtype={_atom(receiver.code)}.dtype)"
                code = f"{self.torch}.{function}({code}, {other})"
        return Value(code, receiver.rank)

    def _fresh_receiver(self, node: cst.BaseExpression) -> bool:
        """Is ``node`` a name bound to a vector made in this iteration, or an in-place call on one?"""
        while type(node) is cst.Call and type(node.func) is cst.Attribute \
                and (node.func.attr.value in IN_PLACE_METHODS or node.func.attr.value in IN_PLACE_ARITHMETIC):
            node = node.func.value
        return type(node) is cst.Name and node.value in self._fresh and node.value in self._locals \
            and tuple(self._masks[:len(self._locals[node.value])]) == self._locals[node.value]

    def _arguments(self, node: cst.Call) -> list[tuple[str, int]]:
        parts = []
        for arg in node.args:
            value = self._value(arg.value)
            parts.append((f"{arg.keyword.value}={value.code}" if arg.keyword is not None else value.code, value.rank))
        return parts

    def _condition(self, node: cst.BaseExpression) -> "Value":
        kind = type(node)
        if kind is cst.BooleanOperation:
            operator = "&" if type(node.operator) is cst.And else "|"
            return _combine(operator, self._condition(node.left), self._condition(node.right))
        if kind is cst.UnaryOperation and type(node.operator) is cst.Not:
            inner = self._condition(node.expression)
            return Value(f"(~{inner.code})", inner.rank)
        if kind is cst.Comparison:
            parts = []
            left = self._value(node.left)
            for target in node.comparisons:
                symbol = _COMPARISONS.get(type(target.operator))
                if symbol is None:
                    raise Decline("a comparison other than <, <=, >, >=, ==, !=")
                right = self._value(target.comparator)
                parts.append(_combine(symbol, left, right))
                left = right
            result = parts[0]
            for part in parts[1:]:
                result = _combine("&", result, part)
            return result
        return self._value(node)

    def _mask(self) -> str | None:
        return self._masks[-1] if self._masks else None

    def _batched(self, node: cst.CSTNode) -> bool:
        """Does ``node`` depend on the iteration (a loop variable or a name the body binds)?"""
        names = set(self.nest.variables) | set(self._locals) | set(self._aliases) | self._written | self._lists
        return any(type(n) is cst.Name and n.value in names for n in walk(node))


@dataclass(frozen=True)
class Value:
    """A translated expression: its code, the rank of one iteration's value (0: a number), and
    whether it differs between iterations (its leading axes are the nest's)."""

    code: str
    rank: int
    batched: bool = True


def _combine(operator: str, left: Value, right: Value) -> Value:
    """``left <operator> right`` over all iterations: an iteration's number meeting an iteration's
    vector gains the vector's axis (their leading axes are the nest's, so they must line up)."""
    lcode, rcode = left.code, right.code
    if left.batched and right.batched and left.rank and right.rank and left.rank != right.rank:
        # an iteration's vector meets its matrix: padding at the end would not line the vector up with the last axis
        raise Decline("values of two different ranks, neither one number, combined")
    if left.batched and right.batched and left.rank != right.rank:
        lcode, rcode = _padded(lcode, right.rank - left.rank), _padded(rcode, left.rank - right.rank)
    rank = max(left.rank, right.rank)
    return Value(f"({lcode} {operator} {rcode})", rank, left.batched or right.batched)


def _padded(code: str, axes: int) -> str:
    """``code`` with ``axes`` trailing axes of size 1 (none when ``axes`` is not positive)."""
    return f"{_atom(code)}[(..., {', '.join(['None'] * axes)})]" if axes > 0 else code


def _atom(code: str) -> str:
    """``code`` as the receiver of a method: parenthesised unless it is a name or a subscript."""
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return f"({code})"
    return code if type(node) in (cst.Name, cst.Subscript, cst.Call, cst.Attribute) or node.lpar else f"({code})"


def _whole(item: cst.BaseExpression) -> bool:
    """Is ``item`` a whole slice, ``:``?"""
    return type(item) is cst.Slice and item.lower is None and item.upper is None and item.step is None


def _block(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if type(suite) is cst.IndentedBlock:
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]


def _elements(node: cst.List | cst.Tuple) -> list[cst.BaseExpression]:
    if any(type(e) is cst.StarredElement for e in node.elements):
        raise Decline("an unpacked element")
    return [e.value for e in node.elements]


def _appended(node: cst.BaseSmallStatement, name: str | None) -> tuple[list[cst.BaseExpression], int] | None:
    """The numbers ``node`` appends to the list ``name`` and the length of each list it appends (0: numbers):
    ``name += [a, b]``, ``name.extend((a, b))``, ``name.append(a)``, ``name.append([a, b])``."""
    if name is None:
        return None
    if type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign and type(node.target) is cst.Name \
            and node.target.value == name and type(node.value) in (cst.List, cst.Tuple):
        return _elements(node.value), 0
    if type(node) is not cst.Expr or type(node.value) is not cst.Call:
        return None
    call = node.value
    func = call.func
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != name \
            or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    value = call.args[0].value
    if func.attr.value == "extend" and type(value) in (cst.List, cst.Tuple):
        return _elements(value), 0
    if func.attr.value == "append":
        if type(value) in (cst.List, cst.Tuple):
            return _elements(value), len(value.elements)
        return [value], 0
    return None


def _flat_subscript(node: cst.Subscript) -> tuple[cst.BaseExpression, list[cst.BaseExpression]]:
    """``t[a][b, c]`` as ``t`` and ``[a, b, c]`` (chained indexes of single elements are one index)."""
    items: list[cst.BaseExpression] = []
    current: cst.BaseExpression = node
    while type(current) is cst.Subscript:
        level = []
        for element in current.slice:
            if type(element.slice) is cst.Index:
                if element.slice.star is not None:
                    raise Decline("an unpacked index")
                level.append(element.slice.value)
            else:
                level.append(element.slice)
        if type(current.value) is cst.Subscript and any(type(item) is cst.Slice for item in level):
            raise Decline("a chained index after a slice")
        items = level + items
        current = current.value
    if any(type(item) is cst.Name and item.value == "None" or type(item) is cst.Ellipsis for item in items):
        raise Decline("`None` or `...` in an index")
    return current, items


def _in_place_write(node: cst.BaseSmallStatement) -> cst.Call | None:
    """The call of a statement ``t[...].add_(v)`` (one positional argument; ``sub_``, ``mul_``, ``div_`` too)."""
    if type(node) is not cst.Expr or type(node.value) is not cst.Call:
        return None
    call = node.value
    if type(call.func) is not cst.Attribute or call.func.attr.value not in IN_PLACE_ARITHMETIC \
            or type(call.func.value) is not cst.Subscript or len(call.args) != 1 \
            or call.args[0].keyword is not None or call.args[0].star:
        return None
    return call


def _makes_vector(node: cst.BaseExpression, torch: str) -> bool:
    """Is ``node`` ``torch.Tensor(...)``/``torch.FloatTensor(...)``/``torch.tensor(...)``/``torch.stack(...)``
    (a new tensor, no view of another)?"""
    return type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name \
        and node.func.value.value == torch and node.func.attr.value in _VECTOR_MAKERS


def _written_bases(body: list[cst.BaseStatement]) -> set[str]:
    """The names the body writes elements of (``t[...] = v``, ``t[...] += v``, ``t[...].add_(v)``)."""
    written: set[str] = set()
    for statement in body:
        for node in walk(statement):
            target = None
            if type(node) is cst.AugAssign:
                target = node.target
            elif type(node) is cst.AssignTarget:
                target = node.target
            elif isinstance(node, cst.BaseSmallStatement) and _in_place_write(node) is not None:
                target = node.value.func.value
            if type(target) is cst.Subscript:
                base, _ = _flat_subscript(target)
                written.add(code_of(base).strip())
    return written
