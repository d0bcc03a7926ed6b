"""A cache on ``self`` keyed by an input's shape: a traced export bakes its values (TRT726).

``if self.shape != shape: self.anchors = make(...); self.shape = shape`` is a memo: the
anchors are recomputed only when the key changes. A trace decides the comparison once, on
the example; when the cache already holds that shape (any earlier call with it), the graph
keeps the cached tensors as constants for every input size. The fix makes the cache miss
while a tracer records the model. See :mod:`trtcodemod.transforms._runtime_scope` for which
code counts as forward code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import bound_names, code_of, short_code, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule
from trtcodemod.transforms.module_state import _self_state, state_attr, _target_elements

HELPER = TRACING_HELPER

_TORCHSCRIPT = "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"
_EXPORT = "https://pytorch.org/docs/stable/export.html"


def _same(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """The same expression, whatever its spacing (``self.grid[i]`` and ``self.grid[ i ]``)."""
    return "".join(code_of(a).split()) == "".join(code_of(b).split())


def _chain(node: cst.BaseExpression,
           aliases: dict[str, cst.BaseExpression] | None = None) -> list[cst.BaseExpression]:
    """``self.grid[i].shape[2:4]`` → itself, ``self.grid[i].shape``, ``self.grid[i]``, ``self.grid``.

    A local name in ``aliases`` stands for the read of ``self`` it was bound to
    (``grid = self.grids[k]``: ``grid.shape[2:4]`` → …, ``self.grids[k]``, ``self.grids``).
    """
    out = []
    while type(node) in (cst.Attribute, cst.Subscript):
        out.append(node)
        node = node.value
    if type(node) is cst.Name and node.value != "self" and aliases and node.value in aliases:
        return out + _chain(aliases[node.value])
    return out if type(node) is cst.Name and node.value == "self" else []


def _statement_names(statement: cst.CSTNode) -> set[str]:
    """Every plain name a statement binds, in nested blocks too (assignments, loops, ``with``, ``:=``)."""
    names: set[str] = set()
    for node in walk(statement):
        if type(node) is cst.Assign:
            for target in node.targets:
                names.update(bound_names(target.target))
        elif type(node) in (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr):
            names.update(bound_names(node.target))
        elif type(node) is cst.AsName:
            names.update(bound_names(node.name))
        elif type(node) in (cst.FunctionDef, cst.ClassDef):
            names.add(node.name.value)
    return names


def _aliases(method: cst.FunctionDef, node: cst.If) -> dict[str, cst.BaseExpression]:
    """Local names that hold a read of ``self`` where ``node`` runs: ``grid = self.grids[k]`` in
    the same block before the ``if``, with neither the name nor a name the read uses bound again
    in between (YOLOX's ``get_output_and_grid`` compares ``grid.shape`` and writes ``self.grids[k]``)."""
    before: list[cst.CSTNode] = []
    for block in [method.body, *walk(method.body)]:
        body = getattr(block, "body", None)
        if isinstance(body, (list, tuple)) and any(s is node for s in body):
            before = list(body[:[i for i, s in enumerate(body) if s is node][0]])
            break
    found: dict[str, cst.BaseExpression] = {}
    rebound: set[str] = set()
    for statement in reversed(before):
        names = _statement_names(statement)
        if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                and type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1:
            assign = statement.body[0]
            target, value = assign.targets[0].target, assign.value
            used = {n.value for n in walk(value) if type(n) is cst.Name}
            if type(target) is cst.Name and target.value not in rebound and target.value not in found \
                    and _chain(value) and not used & rebound:
                found[target.value] = value
        rebound |= names
    return found


def _disjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a top-level ``or`` chain (the test itself when it is no ``or``)."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or and not test.lpar:
        return [*_disjuncts(test.left), *_disjuncts(test.right)]
    return [test]


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a top-level ``and`` chain (the test itself when it is no ``and``)."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And and not test.lpar:
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """A parenthesized ``or`` chain without its parentheses, so that its operands are seen."""
    if type(node) is cst.BooleanOperation and node.lpar:
        return node.with_changes(lpar=[], rpar=[])
    return node


def _miss_operands(test: cst.BaseExpression) -> tuple[list[cst.BaseExpression], bool] | None:
    """The operands a cache-miss test compares, and whether the key is a container tested with ``not in``.

    ``a != b``, ``not a == b``, ``k not in a``: a miss when true. ``a is None`` alone is a
    first-call initialisation (its value depends on that call's input, not on a key): it may
    only join such a test in the ``or`` chain.
    """
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = test.expression
        if type(inner) is cst.Comparison and len(inner.comparisons) == 1 \
                and type(inner.comparisons[0].operator) is cst.Equal:
            return [inner.left, inner.comparisons[0].comparator], False
        return None
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    operator, right = type(test.comparisons[0].operator), test.comparisons[0].comparator
    if operator is cst.NotEqual:
        return [test.left, right], False
    if operator is cst.NotIn:
        return [right], True
    grown = _capacity(test, miss=True)
    return ([grown], False) if grown is not None else None


def _sized(operand: cst.BaseExpression) -> cst.BaseExpression | None:
    """``self.c`` of ``self.c.shape[i]``, ``self.c.size(i)`` or ``len(self.c)``: a size of a value on ``self``."""
    if type(operand) is cst.Subscript and type(operand.value) is cst.Attribute and operand.value.attr.value == "shape":
        owner = operand.value.value
    elif type(operand) is cst.Call and type(operand.func) is cst.Attribute and operand.func.attr.value == "size" \
            and len(operand.args) == 1:
        owner = operand.func.value
    elif type(operand) is cst.Call and type(operand.func) is cst.Name and operand.func.value == "len" \
            and len(operand.args) == 1:
        owner = operand.args[0].value
    else:
        return None
    return owner if _chain(owner) else None


def _capacity(test: cst.BaseExpression, miss: bool) -> cst.BaseExpression | None:
    """The value on ``self`` a grow-only cache tests its size of: a miss ``self.c.shape[0] < n`` (or ``n >
    self.c.shape[0]``), a hit ``n <= self.c.shape[0]`` (or ``self.c.shape[0] >= n``), the other side not read
    from ``self`` (labml's rotary tables and ALiBi biases, rebuilt only for a longer sequence)."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    operator, right = type(test.comparisons[0].operator), test.comparisons[0].comparator
    smaller, larger = (cst.LessThan, cst.GreaterThan) if miss else (cst.GreaterThanEqual, cst.LessThanEqual)
    if operator is smaller:
        sized, other = test.left, right
    elif operator is larger:
        sized, other = right, test.left
    else:
        return None
    if _chain(other):
        return None
    return _sized(sized)


def _length_key(test: cst.BaseExpression) -> cst.Attribute | None:
    """``self.k`` of a miss ``n > self.k`` (or ``self.k < n``), ``self.k`` a plain attribute and ``n`` not
    read from ``self``: the length a grow-only cache was last built for (older Hugging Face and GPT-NeoX
    rotary embeddings: ``if seq_len > self.max_seq_len_cached:``)."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    operator, right = type(test.comparisons[0].operator), test.comparisons[0].comparator
    if operator is cst.GreaterThan:
        key, other = right, test.left
    elif operator is cst.LessThan:
        key, other = test.left, right
    else:
        return None
    if _self_attr(key) is None or _chain(other) or any(_self_attr(n) is not None for n in walk(other)):
        return None
    return key


def _length_fill(key: cst.Attribute, body: cst.BaseSuite, record) -> frozenset[str] | None:
    """The methods of the class that ``body`` calls on ``self`` to fill a cache keyed by the length ``key``
    (empty when the body fills it itself), if the fill writes ``key`` from something else than ``key``
    (a length, not a counter) and fills another attribute of ``self`` besides (the cache itself)."""
    methods = {s.name.value: s for s in record.node.body.body if type(s) is cst.FunctionDef}
    called = sorted({n.func.attr.value for n in walk(body) if type(n) is cst.Call and type(n.func) is cst.Attribute
                     and _self_attr(n.func) is not None and n.func.attr.value in methods})
    bodies = [body, *(methods[name].body for name in called)]
    attr = key.attr.value
    assigned = [n for b in bodies for n in walk(b) if type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign)]
    writes_key = [n for n in assigned if any(state_attr(t) == attr for t in _written(n))]
    if not writes_key or any(type(n) is not cst.Assign or any(_same(r, key) for r in walk(n.value))
                             for n in writes_key):
        return None  # the length is not recorded, or is counted up from itself
    if not _filled(bodies) - {attr}:
        return None  # nothing besides the length is filled: no cache
    return frozenset(called)


#: Methods that give a tensor's values in another dtype, device or layout (the same values).
_CONVERSIONS = frozenset({"to", "type", "type_as", "float", "half", "double", "bfloat16", "cuda", "cpu", "detach",
                          "contiguous"})


def _converts_itself(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``self.c = self.c.to(self._float_tensor)``: the cache moved to another dtype or device, its values kept
    (fairseq's sinusoidal positions before 0.12 and their copies), a fill of nothing rather than state."""
    if _self_attr(target) is None:
        return False
    seen = False
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in _CONVERSIONS:
        value, seen = value.func.value, True
    return seen and _same(value, target)


def _written(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    """The ``self`` targets the body assigns (nested functions and classes aside)."""
    found: list[cst.BaseExpression] = []
    for node in walk(body):
        if type(node) is cst.Assign:
            targets = [t.target for t in node.targets]
        elif type(node) in (cst.AnnAssign, cst.AugAssign) and getattr(node, "value", None) is not None:
            targets = [node.target]
        else:
            continue
        for target in targets:
            found.extend(e for e in _target_elements(target) if _self_state(e))
    return found


def _key(test: cst.BaseExpression, written: list[cst.BaseExpression],
         aliases: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """The cache key a disjunct of ``test`` compares (itself or through a local alias) and the body rewrites, if any."""
    for disjunct in _disjuncts(test):
        miss = _miss_operands(disjunct)
        if miss is None:
            continue
        operands, container = miss
        for operand in operands:
            # `self.mask.size(0) != len(x)`: a size read by a call is the cached value's too (labml's hourglass)
            sized = _sized(operand)
            for prefix in _chain(sized if sized is not None else operand, aliases):
                for target in written:
                    if _same(prefix, target):
                        return target
                    # `if k not in self.cache: self.cache[k] = ...`
                    if container and type(target) is cst.Subscript and _same(prefix, target.value):
                        return target
    return None


# --- a value precomputed for the configured size, recomputed only when the size differs ---


def _self_attr(node: cst.BaseExpression) -> str | None:
    """``self.x`` (read or written) → ``x``; anything else → None."""
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _none_guard(part: cst.BaseExpression, miss: bool) -> bool:
    """``self.c is None`` (in a miss chain) or ``self.c is not None`` (in a hit chain): an empty cache."""
    if type(part) is not cst.Comparison or len(part.comparisons) != 1:
        return False
    operator, right = type(part.comparisons[0].operator), part.comparisons[0].comparator
    return operator is (cst.Is if miss else cst.IsNot) and type(right) is cst.Name and right.value == "None" \
        and bool(_chain(part.left))


def _size_comparisons(test: cst.BaseExpression,
                      guards: bool = False) -> tuple[bool, list[cst.BaseExpression]] | None:
    """Whether ``test`` is a miss (``key != size``, ``or`` chain) or a hit (``key == size``, ``and`` chain) of
    configured keys, and the keys: each comparison has one operand read from ``self`` and one that is not.
    ``guards``: a test of an empty cache on ``self`` (``self.c is None`` / ``self.c is not None``) may join."""
    for miss, parts in ((True, _disjuncts(_bare(test))), (False, _conjuncts(_bare(test)))):
        keys: list[cst.BaseExpression] = []
        for part in parts:
            if guards and _none_guard(part, miss):
                continue
            if miss:
                operands = _miss_operands(part)
                if operands is None or operands[1]:
                    break
                left, right = operands[0]
            else:
                if type(part) is not cst.Comparison or len(part.comparisons) != 1 \
                        or type(part.comparisons[0].operator) is not cst.Equal:
                    break
                left, right = part.left, part.comparisons[0].comparator
            on_self = [bool(_chain(o)) for o in (left, right)]
            if on_self.count(True) != 1:
                break
            keys.append(left if on_self[0] else right)
        else:
            if keys:
                return miss, keys
    return None


def _callees(node: cst.CSTNode) -> set[str]:
    """The functions ``node`` calls by a plain name or as ``self.<method>`` (``torch.zeros`` is no such callee)."""
    found = set()
    for n in walk(node):
        if type(n) is cst.Call and (type(n.func) is cst.Name or _self_attr(n.func) is not None):
            found.add(code_of(n.func))
    return found


def _self_reads(node: cst.CSTNode) -> set[str]:
    """The attributes of ``self`` that ``node`` reads, other than the methods it calls."""
    called = {id(n.func) for n in walk(node) if type(n) is cst.Call}
    return {_self_attr(n) for n in walk(node) if _self_attr(n) is not None and id(n) not in called}


def _precomputed_by(init: cst.FunctionDef) -> dict[str, set[str]]:
    """The attributes ``__init__`` stores from a call (``self.mask = self.calculate_mask(r)``, or through a
    local: ``mask = self.calculate_mask(r)`` then ``self.register_buffer("mask_0", mask[0])``), each with
    the callees it was computed by."""
    derived: dict[str, set[str]] = {}
    stored: dict[str, set[str]] = {}

    def source(value: cst.CSTNode) -> set[str]:
        names = {n.value for n in walk(value) if type(n) is cst.Name}
        found = set(_callees(value))
        for name in names & set(derived):
            found |= derived[name]
        return found

    for n in walk(init.body):
        if type(n) is cst.Assign:
            via = source(n.value)
            for target in n.targets:
                for element in _target_elements(target.target):
                    if type(element) is cst.Name and via:
                        derived[element.value] = derived.get(element.value, set()) | via
                    attr = _self_attr(element)
                    if attr is not None and via:
                        stored.setdefault(attr, set()).update(via)
        elif type(n) is cst.Call and len(n.args) >= 2 and type(n.args[0].value) is cst.SimpleString \
                and type(n.func) is cst.Attribute and _self_attr(n.func) is not None \
                and n.func.attr.value in ("register_buffer", "register_parameter"):
            via = source(n.args[1].value)
            if via:
                stored.setdefault(n.args[0].value.evaluated_value, set()).update(via)
    return stored


def _filled(statements: Sequence[cst.CSTNode]) -> set[str]:
    """The attributes of ``self`` the statements assign, or register as a buffer or parameter by a literal
    name (x-transformers' ALiBi: ``self.register_buffer('bias', bias, persistent=False)``)."""
    found = {state_attr(target) for statement in statements for target in _written(statement)}
    for statement in statements:
        for n in walk(statement):
            if type(n) is cst.Call and len(n.args) >= 2 and type(n.args[0].value) is cst.SimpleString \
                    and type(n.func) is cst.Attribute and _self_attr(n.func) is not None \
                    and n.func.attr.value in ("register_buffer", "register_parameter"):
                found.add(n.args[0].value.evaluated_value)
    return found


def _writes_self(node: cst.CSTNode) -> bool:
    return bool(_written(node)) or any(
        type(n) is cst.Call and type(n.func) is cst.Attribute and _self_attr(n.func) is not None
        and n.func.attr.value in ("register_buffer", "register_parameter") for n in walk(node))


@dataclass
class _Candidate:
    node: cst.If
    method: cst.FunctionDef
    attr: str
    message: str
    fix: Fix
    #: The hit-return form: its cache is filled after the `if`, by forward itself.
    filled_after: bool = False
    #: The hit-or-fill form (an `else`): the attributes its key reads, which the class must write somewhere.
    keys: frozenset[str] = frozenset()
    #: The length-keyed form: the methods the miss calls to fill the cache (their writes are the fill).
    fill_methods: frozenset[str] = frozenset()


def _hit_keys(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The ``self`` reads an ``and`` chain tests for a hit: ``key == v`` / ``v == key`` (one side read
    from ``self``) and ``k in cache``; other operands (``self.use_cache``) may guard them."""
    keys: list[cst.BaseExpression] = []
    for part in _conjuncts(_bare(test)):
        if type(part) is not cst.Comparison or len(part.comparisons) != 1:
            continue
        operator, right = type(part.comparisons[0].operator), part.comparisons[0].comparator
        if operator is cst.Equal:
            on_self = [o for o in (part.left, right) if _chain(o)]
            if len(on_self) == 1:
                keys.append(on_self[0])
        elif operator is cst.In and _chain(right):
            keys.append(right)
        else:
            grown = _capacity(part, miss=False)
            if grown is not None:
                keys.append(grown)
    return keys


def _refreshed(test: cst.BaseExpression) -> bool:
    """The test already calls the tracing flag (a second pass changes nothing)."""
    return any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value.startswith(HELPER) for n in walk(test))


def _hit_first(test: cst.BaseExpression) -> cst.BaseExpression:
    """``a == s and b == t`` → ``not _trt_tracing() and a == s and b == t`` (its parentheses around the chain)."""
    bare = test.with_changes(lpar=[], rpar=[]) if test.lpar else test
    replacement = cst.BooleanOperation(
        left=cst.UnaryOperation(operator=cst.Not(), expression=cst.Call(func=cst.Name(HELPER))),
        operator=cst.And(), right=bare)
    return replacement.with_changes(lpar=test.lpar, rpar=test.rpar) if bare is not test else replacement


def _refreshed_test(test: cst.BaseExpression, miss: bool) -> cst.BaseExpression:
    """The test of an `if` with an `else` that takes its recomputing branch while tracing: a miss chain
    ``a != s or b != t`` → ``_trt_tracing() or a != s or b != t`` (its parentheses around the new chain),
    a hit chain → ``not _trt_tracing() and ...``."""
    if not miss:
        return _hit_first(test)
    bare = test.with_changes(lpar=[], rpar=[]) if test.lpar else test
    replacement = cst.BooleanOperation(left=cst.Call(func=cst.Name(HELPER)), operator=cst.Or(), right=bare)
    return replacement.with_changes(lpar=test.lpar, rpar=test.rpar) if bare is not test else replacement


def _bare_return(body: cst.BaseSuite) -> bool:
    """A body that is one plain ``return``."""
    statements = body.body if type(body) is cst.IndentedBlock else ()
    small = statements[0].body if len(statements) == 1 and type(statements[0]) is cst.SimpleStatementLine else ()
    return len(small) == 1 and type(small[0]) is cst.Return and small[0].value is None


def _conversion_line(statement: cst.CSTNode) -> bool:
    """``self.c = self.c.to(dtype=x.dtype, device=x.device)``, or an ``if`` (no ``else``) of such lines."""
    if type(statement) is cst.SimpleStatementLine:
        return all(type(small) is cst.Assign and len(small.targets) == 1
                   and _converts_itself(small.targets[0].target, small.value) for small in statement.body)
    return type(statement) is cst.If and statement.orelse is None and type(statement.body) is cst.IndentedBlock \
        and all(_conversion_line(inner) for inner in statement.body.body)


def _converted_return(body: cst.BaseSuite) -> bool:
    """A body that moves the cache to the input's dtype or device, then ``return``s (ESPnet's ``extend_pe``:
    ``if self.pe.dtype != x.dtype or ...: self.pe = self.pe.to(dtype=x.dtype, device=x.device)``)."""
    statements = list(body.body) if type(body) is cst.IndentedBlock else []
    if len(statements) < 2 or not all(_conversion_line(statement) for statement in statements[:-1]):
        return False
    last = statements[-1]
    return type(last) is cst.SimpleStatementLine and len(last.body) == 1 and type(last.body[0]) is cst.Return \
        and last.body[0].value is None


def _rest_after(method: cst.FunctionDef, node: cst.If) -> list[cst.CSTNode]:
    """The method's statements after ``node``; for an ``if`` that is the whole body of a top-level ``if``
    without ``else`` (``if self.pe is not None: if <hit>: ... return``), the statements after that one."""
    body = list(method.body.body)
    for index, statement in enumerate(body):
        if statement is node:
            return body[index + 1:]
        if type(statement) is cst.If and statement.orelse is None and type(statement.body) is cst.IndentedBlock \
                and len(statement.body.body) == 1 and statement.body.body[0] is node:
            return body[index + 1:]
    return []


def _returned_read(body: cst.BaseSuite) -> cst.BaseExpression | None:
    """The value of a body that is one ``return <read of self>`` (``return self.cache[device]``), or that binds names
    to reads of ``self`` and returns them, maybe under a test of its own (flashdet's ``_get_anchors``: ``c, s =
    self._cached_anchors[1], self._cached_anchors[2]`` / ``if c.device == device: return c, s``): the first read."""
    statements = body.body if type(body) is cst.IndentedBlock else ()
    small = statements[0].body if len(statements) == 1 and type(statements[0]) is cst.SimpleStatementLine else ()
    if len(small) == 1 and type(small[0]) is cst.Return and small[0].value is not None:
        return small[0].value if _chain(small[0].value) else None
    return _bound_and_returned(statements)


def _bound_and_returned(statements: Sequence[cst.BaseStatement]) -> cst.BaseExpression | None:
    """:func:`_returned_read`'s second form: names bound to reads of one attribute of ``self``, then returned."""
    bound: dict[str, cst.BaseExpression] = {}
    for statement in statements[:-1]:
        small = statement.body if type(statement) is cst.SimpleStatementLine else ()
        if len(small) != 1 or type(small[0]) is not cst.Assign or len(small[0].targets) != 1:
            return None
        target, value = small[0].targets[0].target, small[0].value
        names = [target] if type(target) is cst.Name else [e.value for e in getattr(target, "elements", ())]
        values = [value] if type(target) is cst.Name else [e.value for e in getattr(value, "elements", ())]
        if not names or len(names) != len(values) or type(target) not in (cst.Name, cst.Tuple) \
                or any(type(n) is not cst.Name for n in names) or not all(_chain(v) for v in values):
            return None
        bound.update((n.value, v) for n, v in zip(names, values))
    last = statements[-1] if len(statements) > 1 else None
    if type(last) is cst.If and last.orelse is None and type(last.body) is cst.IndentedBlock \
            and len(last.body.body) == 1 and not any(type(n) is cst.NamedExpr for n in walk(last.test)):
        last = last.body.body[0]  # the hit may still be refused (a cache on another device): it falls through
    small = last.body if type(last) is cst.SimpleStatementLine else ()
    if len(small) != 1 or type(small[0]) is not cst.Return or small[0].value is None:
        return None
    value = small[0].value
    returned = [value] if type(value) is cst.Name else [e.value for e in getattr(value, "elements", ())]
    if not returned or any(type(r) is not cst.Name or r.value not in bound for r in returned):
        return None
    reads = [bound[r.value] for r in returned]
    if any(not _same(_chain(r)[-1], _chain(reads[0])[-1]) for r in reads):
        return None  # values of several attributes: not one cache's
    return reads[0]


class ShapeKeyedCache(RuntimeScopeRule):
    scope = "forward"
    #: The observed export's warnings: a method they fall in ran in a traced forward, whatever calls it.
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT726",
        name="shape-keyed-cache",
        summary="a cache on `self` keyed by an input's shape, or a value precomputed for the configured size: a traced export bakes the cached values",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses (`forward` and the methods it calls
as `self.<m>(...)`, and a method the file installs as an object's forward: YOLOv7's `Model.fuse`
runs `m.forward = m.fuseforward`, so `IDetect.fuseforward` is what the loaded model calls): an
`if` whose test is a cache miss on a value read from `self` (the key)
and whose body writes that same key again, usually with the values it memoizes:
```
if self.dynamic or self.shape != shape:      # ultralytics Detect
    self.anchors, self.strides = make_anchors(...)
    self.shape = shape
if self.grid[i].shape[2:4] != x[i].shape[2:4]:   # YOLOv5/YOLOv7 Detect
    self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
```
A miss test is `key != v`, `not key == v` or `k not in key`, alone or as one operand of an
`or` chain (`self.grid is None or self.grid.shape != ...`), which may itself be one operand of
an `and` (`self.format != "imx" and (self.dynamic or self.shape != shape)`, ultralytics 8.3:
the fix then goes inside that operand, so the other guards still decide while tracing); the key may be read through
`.shape`, an index or an attribute, or through a local name bound to it just before the `if`
in the same block (`grid = self.grids[k]` then `if grid.shape[2:4] != out.shape[2:4]:`, YOLOX). Not reported: a body that does not write the key back,
an `if` with an `elif`/`else`, a test that binds a name (`:=`), a key forward also writes
outside such an `if` other than to `None` (per-frame state, TRT703's and TRT721's; a reset to `None`, as yowo's
`_init_strides` invalidates its anchor cache, only makes the test miss; a write inside another such
`if` on the same key, as in YOLOv7's `forward` and `fuseforward`, is that cache's own fill), and `if self.x is None:`
alone: a first-call initialisation whose value depends on that call's input, not on a key
(recomputing it while tracing would change what the model computes).

It also finds the memo whose hit returns early, the cache filled after the `if` by the same
method (zylo117's EfficientDet `Anchors`): an `if` with no `else` whose body is one `return` of a
value read from `self`, and whose test looks that value up (`key == v` with `key` read from
`self`, or `k in self.cache`, joined by `and`), the method writing the returned attribute again
in its own statements after the `if`:
```
if image_shape == self.last_shape and image.device in self.last_anchors:
    return self.last_anchors[image.device]
...
self.last_anchors[image.device] = anchor_boxes
```
The hit may bind the cached values to names first and return them, maybe under a test of its own that
lets the call fall through to the fill (flashdet's `_get_anchors`: `c, s = self._cached_anchors[1],
self._cached_anchors[2]` / `if c.device == device: return c, s`).
The fix is then `if not _trt_tracing() and <test>:`, so the value is computed while tracing.

It also finds the grow-only cache, rebuilt only when a longer input comes (rotary and ALiBi tables in
language models: labml-nn 0.5.1's `RotaryPositionalEmbeddings._build_cache` and
`AlibiMultiHeadAttention.forward`): a miss compares a size of the cached value with the input's
(`self.c.shape[i] < n`, `n > self.c.size(i)`, `len(self.c) < n`, the other side not read from `self`),
alone or after `self.c is None or`, the body writing `self.c` again; or the hit returns early with a plain
`return` (`if self.c is not None and n <= self.c.shape[0]: return`), the method filling `self.c` after it.
The callers read a slice of it (`self.c[:n]`), which is why a longer cache serves a shorter input.
```
if self.alibi_biases is None or self.alibi_biases.shape[1] < seq_len:
    self.alibi_biases = get_alibi_biases(scores.shape[-1], mask[:, :, 0, 0])
scores += self.alibi_biases[:seq_len, :seq_len, None, :]
```
Its assumption is the memo contract for rows: the first `n` rows of a cache built for a longer input are
the rows a cache built for `n` holds (a table of positions, not of the input's values).
The key may also be the length the cache was last built for, an attribute of `self` of its own
(`if seq_len > self.max_seq_len_cached:`, Hugging Face's GPT-NeoX rotary embedding in transformers 4.36
and Llama's, Mistral's and Qwen2's before 4.38), the fill a method of the class the miss calls
(`self._set_cos_sin_cache(seq_len, ...)`) or the body itself: taken where the fill records the length
from something other than itself (a counter `self.n = self.n + 1` is not a length) and fills another
attribute besides (the tables); the fill method's own writes of the length are the fill, not state.
A cache moved to another dtype or device after the `if` on every call (`self.weights =
self.weights.to(self._float_tensor)`, fairseq's sinusoidal positions before 0.12 and their copies) keeps
its values: that write is no state of its own.
The early return may follow such conversions of the cache, and its `if` may be the whole body of the
emptiness test (ESPnet's and icefall's positional encodings: `if self.pe is not None:` / `if
self.pe.size(1) >= x.size(1):` / `self.pe = self.pe.to(dtype=x.dtype, device=x.device)` / `return`, the
table filled after the outer `if`); the fix goes on the inner test.
A class is a module when a base derives from `nn.Module` in another file of the checkout too
(`class AlibiMultiHeadAttention(MultiHeadAttention)`, its base imported from `mha.py`: followed through
`from ... import` and the bases' own modules, :func:`trtcodemod.module_files.is_module_subclass`).

It also finds the same memo written the other way round, a value precomputed once in
`__init__` for the configured size and recomputed from the input's size only when that size
differs (Swin-style window attention: spandrel's SwinIR, Swin2SR, DRCT, DAT and RGT):
```
if self.patches_resolution != _H or self.patches_resolution != _W:   # RGT, DAT
    mask_tmp = self.calculate_mask(_H, _W)
    x1 = self.attns[0](qkv_0, _H, _W, mask=mask_tmp[0].to(x.device))
else:
    x1 = self.attns[0](qkv_0, _H, _W, mask=self.attn_mask_0)
if self.input_resolution == x_size:                                  # SwinIR, Swin2SR, DRCT
    attn_windows = self.attn(x_windows, mask=self.attn_mask)
else:
    attn_windows = self.attn(x_windows, mask=self.calculate_mask(x_size).to(x.device))
```
That is an `if` with an `else` whose test compares a key read from `self` with a value that
is not (a miss, `key != v` joined by `or`, or a hit, `key == v` joined by `and`); the branch
taken on a hit reads a value on `self` that `__init__` stored from a call (directly, through a
local, or by `register_buffer`) and that the miss branch computes by calling the same function
or method (`self.calculate_mask`) instead of reading it. Not reported: an `elif`, a branch that
writes to `self` (state, or the cache form above), a stored value `__init__` did not compute
with what the miss branch calls (a constant, another function), a miss branch that reads the
stored value too (it adapts the value rather than replacing it), both or neither side of the
comparison on `self`, and a key forward writes.

It also finds the memo written as a hit branch and a fill branch, its key recorded by the fill or
anywhere else in the class (DeAOT's local attention, deaotpy 1.11.0 `aot/networks/layers/attention.py`:
`forward` ends with `self.last_size_2d = (h, w)`, and `local2global` keeps `self.local_mask` the same way):
```
if self.qk_mask is not None and (h, w) == self.last_size_2d:
    qk_mask = self.qk_mask
else:
    qk_mask = 1 - unfold(torch.ones((1, 1, h, w)))
    self.qk_mask = qk_mask
```
That is an `if` with an `else` whose test compares a key read from `self` with a value that is not (a
hit, `key == v` joined by `and`, or a miss, `key != v` joined by `or`), where `self.c is not None` (in a
hit) or `self.c is None` (in a miss) may join as an emptiness test; the hit branch reads values on `self`
and writes none, the miss branch writes those same values, and forward code (the `if`'s method or another
one forward reaches) writes the key. Not reported: a key forward code does not write (a configured size:
the form above), a hit branch that writes to `self`, a miss branch that does not fill what the hit reads,
a cache forward also writes outside such an `if` (per-call state), an emptiness test alone, and an
`elif`.

Why it hurts: both exporters trace. The comparison is a traced size turned into a Python
bool (a TracerWarning at the `if`), decided once on the example call. When the cache already
holds the example's shape (the eager run before the export, or any earlier call), the trace
takes the hit: the graph holds the cached tensors as constants and the engine decodes every
other input size with the example's grid. With a dynamic axis the export even looks clean.

What the fix does: `if _trt_tracing() or <test>:` (the hit-first form of a precomputed value:
`if not _trt_tracing() and <test>:`, so the recomputing `else` runs while tracing). The inserted helper is true while
`torch.jit.trace` (the TorchScript exporter) or `torch.export` (the dynamo exporter) records
the model, so the cache misses there and the values are computed from the traced input, in
the graph; `or` short-circuits, so the comparison is not even evaluated (no TracerWarning).
Eager code and `torch.jit.script` (the helper is false there) keep the cache, its hits and
its speed. `torch.compile` is left out: dynamo turns the comparison into a guard and
recompiles on a new key, so its graphs are right already, and refreshing would recompute the
values on every call. `torch.fx` symbolic tracing fails on the comparison as before.

Fix safety: unsafe. Its assumption is the memo contract: the cached values are a pure function
of the key (and of what is fixed once the model is built), so recomputing them on a hit gives
the same values (for a value precomputed in `__init__`: recomputing it for the configured size
gives what `__init__` stored, so nothing changed it since, a loaded checkpoint included). A body that also counts, logs or depends on something else changes what a
traced call computes and leaves on `self`. `migrate` tries the fix where the export's
TracerWarning is located at the `if`, and keeps it only when the rewritten model is
equivalent on every input set. Applies to every TensorRT version and both exporters.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the cached values are a pure function of the key, so recomputing them on a hit gives the same values"),
        examples=(
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        shape = x.shape\n"
                "        if self.dynamic or self.shape != shape:\n"
                "            self.anchors = torch.arange(shape[-1], dtype=x.dtype)\n"
                "            self.shape = shape\n"
                "        return x + self.anchors\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        shape = x.shape\n"
                "        if _trt_tracing() or self.dynamic or self.shape != shape:\n"
                "            self.anchors = torch.arange(shape[-1], dtype=x.dtype)\n"
                "            self.shape = shape\n"
                "        return x + self.anchors\n",
                unsafe=True,
            ),
            Example(
                "class Detect(nn.Module):\n"
                "    def forward(self, x):\n"
                "        for i in range(self.nl):\n"
                "            if self.grid[i].shape[2:4] != x[i].shape[2:4]:\n"
                "                self.grid[i] = self._make_grid(x[i].shape[3], x[i].shape[2])\n"
                "            x[i] = x[i] + self.grid[i]\n"
                "        return x\n",
                "class Detect(nn.Module):\n"
                "    def forward(self, x):\n"
                "        for i in range(self.nl):\n"
                "            if _trt_tracing() or self.grid[i].shape[2:4] != x[i].shape[2:4]:\n"
                "                self.grid[i] = self._make_grid(x[i].shape[3], x[i].shape[2])\n"
                "            x[i] = x[i] + self.grid[i]\n"
                "        return x\n",
                unsafe=True,
            ),
            Example(
                "class Block(nn.Module):\n"
                "    def __init__(self, size):\n"
                "        super().__init__()\n"
                "        self.size = size\n"
                "        self.register_buffer('mask', self.make_mask(size))\n"
                "\n"
                "    def make_mask(self, n):\n"
                "        return torch.arange(n).float()\n"
                "\n"
                "    def forward(self, x):\n"
                "        if self.size != x.shape[-1]:\n"
                "            mask = self.make_mask(x.shape[-1])\n"
                "        else:\n"
                "            mask = self.mask\n"
                "        return x + mask\n",
                "class Block(nn.Module):\n"
                "    def __init__(self, size):\n"
                "        super().__init__()\n"
                "        self.size = size\n"
                "        self.register_buffer('mask', self.make_mask(size))\n"
                "\n"
                "    def make_mask(self, n):\n"
                "        return torch.arange(n).float()\n"
                "\n"
                "    def forward(self, x):\n"
                "        if _trt_tracing() or self.size != x.shape[-1]:\n"
                "            mask = self.make_mask(x.shape[-1])\n"
                "        else:\n"
                "            mask = self.mask\n"
                "        return x + mask\n",
                unsafe=True,
            ),
        ),
        references=(_TORCHSCRIPT, _EXPORT, "https://pytorch.org/docs/stable/torch.compiler_api.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per open class: cache `if`s found, and each write to `self` in its methods:
        #: (method name, first attribute, ids of the cache `if`s open around it).
        self._candidates: list[list[_Candidate]] = []
        self._writes: list[list[tuple[str, str, frozenset[int]]]] = []
        #: Of those writes, the positions (in that list) of the ones that set the attribute to ``None``.
        self._resets: list[set[int]] = []
        self._open: list[int] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._candidates.append([])
        self._writes.append([])
        self._resets.append(set())

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        record = self._classes[-1] if self._classes else None
        candidates, every_write, resets = self._candidates.pop(), self._writes.pop(), self._resets.pop()
        if record is not None and candidates:
            forward = record.kept("forward")
            for c in candidates:
                # A reset to `None` in another method (yowo's `_init_strides`: `self._anchor_cache_key = None` when
                # the strides change) is an invalidation: it only makes the test miss, as the rewrite makes it miss
                # while tracing. One in the cache's own method (`self.m = None` after its use) is per-call state.
                writes = [w for at, w in enumerate(every_write) if at not in resets or w[0] == c.method.name.value]
                # A key forward also writes elsewhere is state, not a memo; a write inside another cache
                # `if` on the same key is that cache's fill (YOLOv7's `forward` and `fuseforward` share a grid).
                fills = {id(other.node) for other in candidates if other.attr == c.attr}
                if c.keys and not c.keys <= {attr for m, attr, _ in writes if m in forward}:
                    continue  # a key forward code never records (only `__init__`): a configured size, not a memo's key
                if c.filled_after or not any(m in forward and m not in c.fill_methods and attr == c.attr
                                             and not inside & fills for m, attr, inside in writes):
                    # Reported at the whole `if`: its span (the body's writes too) is what migrate matches.
                    self.hold(record, c.method, c.node, c.message, c.fix)
        super().leave_ClassDef(original_node)

    def _record(self, target: cst.BaseExpression, reset: bool = False) -> None:
        where = self.current_method()
        if where is None or not self._writes:
            return
        for element in _target_elements(target):
            if _self_state(element):
                write = (where[1].name.value, state_attr(element), frozenset(self._open))
                if reset:
                    self._resets[-1].add(len(self._writes[-1]))
                self._writes[-1].append(write)

    def visit_Assign(self, node: cst.Assign) -> None:
        reset = type(node.value) is cst.Name and node.value.value == "None"
        for target in node.targets:
            if not _converts_itself(target.target, node.value):
                self._record(target.target, reset)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._record(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._record(node.target)

    def visit_If(self, node: cst.If) -> None:
        candidate = self._candidate(node)
        if candidate is not None:
            self._candidates[-1].append(candidate)
            self._open.append(id(node))

    def leave_If(self, original_node: cst.If) -> None:
        if self._open and self._open[-1] == id(original_node):
            self._open.pop()

    def _candidate(self, node: cst.If) -> _Candidate | None:
        if not self._torch or not self.active() or not self._candidates:
            return None
        where = self.current_method()
        if where is None or not where[0].is_module or self._scopes[-1] is not where[1]:
            return None
        test = node.test
        if any(type(n) is cst.NamedExpr for n in walk(test)):
            return None  # skipped while tracing, the name would be unbound after the `if`
        if node.orelse is not None:
            return self._precomputed(node, where[0], where[1]) or self._filled_else(node, where[1])
        returned = _returned_read(node.body)
        if returned is not None:
            return self._hit_return(node, where[1], returned)
        if _bare_return(node.body) or _converted_return(node.body):
            return self._hit_exit(node, where[1])
        conjuncts = _conjuncts(test)
        if any(type(d) is cst.Call and type(d.func) is cst.Name and d.func.value.startswith(HELPER)
               for c in conjuncts for d in _disjuncts(_bare(c))):
            return None  # already refreshed
        written = _written(node.body)
        aliases: dict[str, cst.BaseExpression] | None = None
        # The miss may be one operand of an `and` (`self.format != "imx" and (... or self.shape != shape)`,
        # ultralytics 8.3): only that operand misses while tracing, the other guards still decide.
        fill_methods: frozenset[str] = frozenset()
        for conjunct in conjuncts:
            key = _key(_bare(conjunct), written, {})
            if key is None:
                aliases = _aliases(where[1], node) if aliases is None else aliases
                key = _key(_bare(conjunct), written, aliases)
            if key is None:
                # `if seq_len > self.max_seq_len_cached: self._set_cos_sin_cache(seq_len)`: the key is the
                # length the cache was built for, the fill may be a method of the class.
                for disjunct in _disjuncts(_bare(conjunct)):
                    length = _length_key(disjunct)
                    filled_by = _length_fill(length, node.body, where[0]) if length is not None else None
                    if filled_by is not None:
                        key, fill_methods = length, filled_by
                        break
            if key is not None:
                break
        else:
            return None
        key_text = short_code(key, 40)
        message = (f"`{short_code(test, 60)}` is a cache keyed by `{key_text}` on self: a traced export decides "
                   "the comparison once on the example, and a hit bakes the cached values into the graph for "
                   f"every input size; {HELPER}() makes the cache miss while tracing")
        bare = _bare(conjunct)
        replacement = cst.BooleanOperation(left=cst.Call(func=cst.Name(HELPER)), operator=cst.Or(), right=bare)
        if bare is not conjunct:  # the operand's own parentheses, kept around the new chain
            replacement = replacement.with_changes(lpar=conjunct.lpar, rpar=conjunct.rpar)
        elif conjunct is not test:  # `a and b` → `a and (_trt_tracing() or b)`
            replacement = replacement.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        fix = Fix({conjunct: replacement}, safety=Safety.UNSAFE, helpers=(HELPER,))
        return _Candidate(node, where[1], state_attr(key), message, fix, fill_methods=fill_methods)

    def _hit_return(self, node: cst.If, method: cst.FunctionDef, returned: cst.BaseExpression) -> _Candidate | None:
        """``if shape == self.last_shape and device in self.cache: return self.cache[device]``, the cache
        filled later in the same method (zylo117's EfficientDet ``Anchors``): the hit returns early."""
        test = node.test
        if _refreshed(test):
            return None
        cache = _chain(returned)[-1]
        if not any(_same(_chain(key)[-1], cache) for key in _hit_keys(test)):
            return None  # the value returned is not what the test looks up
        attr = state_attr(cache)
        rest = method.body.body[method.body.body.index(node) + 1:] if node in method.body.body else []
        if attr not in _filled(rest):
            return None  # no fill after the test in the method's own statements: not a memo of this call
        message = (f"`{short_code(test, 60)}` returns `{short_code(returned, 40)}`, cached on self by an earlier "
                   "call: a traced export decides the comparison once on the example, and a hit bakes the cached "
                   f"values into the graph for every input size; {HELPER}() makes the cache miss while tracing")
        fix = Fix({test: _hit_first(test)}, safety=Safety.UNSAFE, helpers=(HELPER,))
        return _Candidate(node, method, attr, message, fix, filled_after=True)

    def _hit_exit(self, node: cst.If, method: cst.FunctionDef) -> _Candidate | None:
        """``if self.c is not None and n <= self.c.shape[0]: return``, the method filling ``self.c`` after the
        test (labml's rotary ``_build_cache``): the hit leaves the cache as it is, which the caller then reads."""
        test = node.test
        if _refreshed(test):
            return None
        filled = _filled(_rest_after(method, node))
        keys = [state_attr(_chain(key)[-1]) for key in _hit_keys(test)]
        cached = [attr for attr in keys if attr in filled]
        if not cached:
            return None  # nothing the test looks up is filled after it: not a memo of this call
        message = (f"`{short_code(test, 60)}` returns early, keeping `self.{cached[0]}` as an earlier call left it: "
                   "a traced export decides the comparison once on the example, and a hit bakes the cached "
                   f"values into the graph for every input size; {HELPER}() makes the cache miss while tracing")
        fix = Fix({test: _hit_first(test)}, safety=Safety.UNSAFE, helpers=(HELPER,))
        return _Candidate(node, method, cached[0], message, fix, filled_after=True)

    def _precomputed(self, node: cst.If, record, method: cst.FunctionDef) -> _Candidate | None:
        """``if self.res != size: m = self.make(size) ... else: <self.m, made by self.make in __init__>``
        (or the hit test first: ``if self.res == size: <self.m> else: <self.make(size)>``)."""
        if type(node.orelse) is not cst.Else:
            return None  # an `elif` chain decides more than a hit or a miss
        compared = _size_comparisons(node.test)
        if compared is None:
            return None
        miss, keys = compared
        test = node.test
        if _refreshed(test):
            return None
        recompute, cached = (node.body, node.orelse.body) if miss else (node.orelse.body, node.body)
        if _writes_self(node.body) or _writes_self(node.orelse.body):
            return None  # a cache (the form above) or state, not a value fixed at construction
        inits = [s for s in record.node.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"]
        if len(inits) != 1:
            return None
        stored = _precomputed_by(inits[0])
        callees = _callees(recompute)
        # the values the hit path reads in place of what the miss path computes: stored by __init__
        # from a call the miss path makes again, and not read by the miss path itself
        replaced = sorted(attr for attr in _self_reads(cached) - _self_reads(recompute)
                          if stored.get(attr, set()) & callees)
        if not replaced:
            return None
        key_attrs = {state_attr(k) for k in keys}
        if key_attrs & set(replaced):
            return None
        names = ", ".join(f"`self.{a}`" for a in replaced[:3])
        maker = sorted(set().union(*(stored[a] & callees for a in replaced)))[0]
        message = (f"`{short_code(test, 60)}` picks {names}, precomputed in `__init__` by `{maker}(...)` for the "
                   f"configured `{short_code(keys[0], 40)}`, over recomputing it from the input's size: a traced "
                   "export decides the comparison once on the example, and at the configured size the graph keeps "
                   f"the precomputed values for every input size; {HELPER}() takes the recomputing branch while "
                   "tracing")
        fix = Fix({test: _refreshed_test(test, miss)}, safety=Safety.UNSAFE, helpers=(HELPER,))
        return _Candidate(node, method, sorted(key_attrs)[0], message, fix)

    def _filled_else(self, node: cst.If, method: cst.FunctionDef) -> _Candidate | None:
        """``if self.c is not None and size == self.key: c = self.c else: c = make(size); self.c = c``
        (or the miss test first: ``if self.c is None or self.key != size: <fill> else: <read>``), the key
        written by the fill or anywhere else in the class (DeAOT's ``self.last_size_2d = (h, w)`` at the
        end of ``forward``)."""
        if type(node.orelse) is not cst.Else:
            return None
        compared = _size_comparisons(node.test, guards=True)
        if compared is None or _refreshed(node.test):
            return None
        miss, keys = compared
        fill, hit = (node.body, node.orelse.body) if miss else (node.orelse.body, node.body)
        if _writes_self(hit):
            return None  # the hit branch changes state: not a plain read of the cache
        filled = {state_attr(t) for t in _written(fill)}
        cached = sorted(_self_reads(hit) & filled)
        key_attrs = {state_attr(k) for k in keys}
        if not cached or key_attrs & set(cached):
            return None
        test = node.test
        names = ", ".join(f"`self.{a}`" for a in cached[:3])
        message = (f"`{short_code(test, 60)}` reads {names}, cached on self by an earlier call and keyed by "
                   f"`{short_code(keys[0], 40)}`: a traced export decides the comparison once on the example, "
                   "and a hit bakes the cached values into the graph for every input size; "
                   f"{HELPER}() takes the branch that recomputes them while tracing")
        fix = Fix({test: _refreshed_test(test, miss)}, safety=Safety.UNSAFE, helpers=(HELPER,))
        return _Candidate(node, method, cached[0], message, fix, keys=frozenset(key_attrs))


RULES = (ShapeKeyedCache,)
