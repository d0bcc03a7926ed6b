"""Small LibCST helpers that several rules need: arguments, literals, building code.

Convention for the whole package: a concrete node class is tested with ``type(node) is
cst.Call`` (or ``type(node) in (...)``), an abstract one (``cst.BaseExpression``) with
``isinstance``. LibCST's classes have an ABC metaclass, which makes every ``isinstance``
a Python-level call, five times the cost; its concrete classes are final, so both
answer the same (``tests/core/test_traversal.py`` checks that they stay final).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from functools import lru_cache
from typing import Callable, Iterator

import libcst as cst

from trtcodemod.names import dotted_name

ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)


def has_star_args(call: cst.Call) -> bool:
    """``f(*a)`` / ``f(**kw)``: the real arguments are unknown, so no rewrite is sound."""
    return any(arg.star for arg in call.args)


def argument(call: cst.Call, position: int | None, keyword: str | None) -> cst.Arg | None:
    """The argument given at ``position`` (positional only) or as ``keyword=``."""
    if keyword is not None:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                return arg
    if position is not None:
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if position < len(positional):
            return positional[position]
    return None


def keywords(call: cst.Call) -> set[str]:
    return {arg.keyword.value for arg in call.args if arg.keyword is not None}


def is_true(node: cst.BaseExpression | None) -> bool:
    """The literal ``True`` (a keyword: it cannot be rebound)."""
    return type(node) is cst.Name and node.value == "True"


def is_false(node: cst.BaseExpression | None) -> bool:
    """The literal ``False`` (or ``0``, which a flag takes as false)."""
    return type(node) is cst.Name and node.value == "False" or type(node) is cst.Integer and node.value == "0"


def int_value(node: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal such as ``2`` or ``-1``, else None."""
    if type(node) is cst.Integer:
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = int_value(node.expression)
        return -inner if inner is not None else None
    return None


def plain_read(node: cst.BaseExpression) -> bool:
    """Names, integer literals, attributes, arithmetic of those and subscripts by integer literals and
    literal slices (``B``, ``Nprime // B``, ``x.shape[0]``, ``geom_feats[:, 3]``): an expression that calls
    nothing of the user's, so evaluating it once more, or before or after another expression, cannot be
    told apart."""
    node = strip_parens(node)
    if type(node) in (cst.Name, cst.Integer):
        return True
    if type(node) is cst.Attribute:
        return plain_read(node.value)
    if type(node) is cst.UnaryOperation:
        return plain_read(node.expression)
    if type(node) is cst.BinaryOperation:
        return plain_read(node.left) and plain_read(node.right)
    if type(node) is cst.Subscript:
        for element in node.slice:
            index = element.slice
            if type(index) is cst.Slice:
                if not all(part is None or int_value(part) is not None for part in (index.lower, index.upper,
                                                                                   index.step)):
                    return False
            elif index.star is not None or int_value(index.value) is None:
                return False
        return plain_read(node.value)
    return False


def int_values(node: cst.BaseExpression) -> list[int] | None:
    """``(1, 2)`` / ``[1, 2]`` / ``1`` as integers, else None."""
    single = int_value(node)
    if single is not None:
        return [single]
    if type(node) not in (cst.Tuple, cst.List):
        return None
    values = []
    for element in node.elements:
        if type(element) is cst.StarredElement:
            return None
        value = int_value(element.value)
        if value is None:
            return None
        values.append(value)
    return values


def float_value(node: cst.BaseExpression | None) -> float | None:
    """The value of an int/float literal (with an optional minus sign), else None."""
    if type(node) is cst.Float:
        try:
            return float(node.value)
        except ValueError:
            return None
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = float_value(node.expression)
        return -inner if inner is not None else None
    value = int_value(node)
    return float(value) if value is not None else None


def method_call(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``receiver.name(...)`` → (receiver, name)."""
    func = call.func
    if type(func) is cst.Attribute:
        return func.value, func.attr.value
    return None


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap ``node`` in parentheses unless it is an atom or already wrapped."""
    if isinstance(node, ATOMS) or getattr(node, "lpar", ()):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


#: Expressions whose parentheses are part of their meaning: ``()`` is only a tuple with them,
#: ``f((a, b))`` is not ``f(a, b)``, and ``f((x for x in y), 1)`` is a syntax error without.
_OWN_PARENS = (cst.Tuple, cst.GeneratorExp)


def strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without the parentheses around it, except those a tuple or generator needs."""
    lpar = getattr(node, "lpar", ())
    if not lpar:
        return node
    if type(node) in _OWN_PARENS:
        # The innermost pair stays: it is the last opening and the first closing parenthesis.
        return node.with_changes(lpar=lpar[-1:], rpar=node.rpar[:1]) if len(lpar) > 1 else node
    return node.with_changes(lpar=[], rpar=[])


#: Expressions that stay one argument without their parentheses (a tuple or a generator would not).
_PLAIN_ARGUMENTS = (cst.BinaryOperation, cst.UnaryOperation, cst.Call, cst.Attribute, cst.Subscript, cst.Name,
                    cst.Comparison, cst.BooleanOperation)


def as_argument(value: cst.BaseExpression) -> cst.BaseExpression:
    """A method receiver moved into an argument list: its one pair of parentheses (``(a - b).gt_(0)`` becoming
    ``helper(a - b, 0)``) is not needed there; a tuple's or a generator's, or more than one pair, stay."""
    if isinstance(value, _PLAIN_ARGUMENTS) and len(value.lpar) == 1 and len(value.rpar) == 1:
        return value.with_changes(lpar=[], rpar=[])
    return value


def bound_names(target: cst.BaseExpression) -> list[str]:
    """Plain names bound by an assignment or loop target (``a``, ``a, (b, *c)``)."""
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        names: list[str] = []
        for element in target.elements:
            names.extend(bound_names(element.value))
        return names
    if type(target) is cst.StarredElement:
        return bound_names(target.value)
    return []


def code_of(node: cst.CSTNode) -> str:
    """Source text of a node (without its leading/trailing whitespace owners)."""
    return cst.Module(body=[]).code_for_node(node)


def short_code(node: cst.CSTNode, limit: int = 48) -> str:
    """The node's source on one line (whitespace runs collapsed), cut to ``limit`` characters for messages."""
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def decorator_names(func: cst.FunctionDef) -> set[str]:
    """Last parts of the decorators' dotted names (``@torch.jit.script`` → ``script``, calls too)."""
    names = set()
    for decorator in func.decorators:
        target = decorator.decorator.func if type(decorator.decorator) is cst.Call else decorator.decorator
        name = dotted_name(target)
        if name:
            names.add(name.rsplit(".", 1)[-1])
    return names


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def index_expr(base: cst.BaseExpression, items: list[str]) -> cst.Subscript:
    """``base[items...]`` with each item given as source text (``":"``, ``"0"``, ``"None"``, ``"..."``)."""
    elements = []
    for number, item in enumerate(items):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if number < len(items) - 1 else cst.MaybeSentinel.DEFAULT
        if item == ":":
            sl: cst.BaseSlice = cst.Slice(lower=None, upper=None)
        else:
            sl = cst.Index(value=cst.parse_expression(item))
        elements.append(cst.SubscriptElement(slice=sl, comma=comma))
    return cst.Subscript(value=parenthesize(base), slice=elements)


# --- fast read-only traversal ---------------------------------------------------
# ``CSTNode.children`` and ``CSTNode.visit`` rebuild nodes as they go; on large files
# that costs more than parsing. Rules that look inside a subtree use these instead.

#: Pure syntax with nothing inside a rule could care about: never descended into.
_SKIPPED_TYPES: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.TrailingWhitespace,
    cst.LeftParen,
    cst.RightParen,
    cst.Comma,
    cst.Dot,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Semicolon,
    cst.AssignEqual,
    cst.Colon,
)


#: Fields that only ever hold punctuation, whitespace or operator tokens.
_SYNTAX_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators",
    "trailing_whitespace", "header", "footer", "operator", "equal", "colon", "dot",
    "lbracket", "rbracket", "lbrace", "rbrace", "newline", "asynchronous", "star_tok",
})


@lru_cache(maxsize=None)
def _child_fields(node_type: type) -> tuple[str, ...]:
    """Fields of a node type that can hold meaningful child nodes, in declaration order."""
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if not f.name.startswith("whitespace") and f.name not in _SYNTAX_FIELDS
    )


#: type → 1: a node to descend into, 2: a node to skip, 3: a sequence, 0: anything else.
#: (isinstance against LibCST's abstract classes is slow; the answer depends on the type only.)
_KINDS: dict[type, int] = {}


def _kind(value_type: type) -> int:
    kind = _KINDS.get(value_type)
    if kind is None:
        if issubclass(value_type, cst.CSTNode):
            kind = 2 if issubclass(value_type, _SKIPPED_TYPES) else 1
        else:
            kind = 3 if value_type in (tuple, list) else 0
        _KINDS[value_type] = kind
    return kind


def _field_children(value: object) -> list[cst.CSTNode]:
    """The meaningful nodes held by one field, whatever it holds (the general case)."""
    kind = _KINDS.get(type(value))
    if kind is None:
        kind = _kind(type(value))
    if kind == 1:
        return [value]  # type: ignore[list-item]
    if kind == 3:
        return [item for item in value if _kind(type(item)) == 1]  # type: ignore[attr-defined]
    return []


def _alternatives(annotation: object) -> list[object]:
    """The members of a ``Union`` (also written ``A | B``), or the annotation itself."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [part for arg in typing.get_args(annotation) for part in _alternatives(arg)]
    return [annotation]


def _meaningful_classes(annotations: list[object]) -> bool:
    """Whether every alternative is a node class whose instances are all descended into."""
    return all(
        isinstance(a, type) and issubclass(a, cst.CSTNode) and not issubclass(a, _SKIPPED_TYPES)
        and not any(issubclass(skipped, a) for skipped in _SKIPPED_TYPES)
        for a in annotations
    )


def _may_hold_node(annotation: object) -> bool:
    """Whether a value of this type can be, or contain, a node to descend into."""
    for part in _alternatives(annotation):
        if typing.get_origin(part) in (collections.abc.Sequence, list, tuple):
            if any(_may_hold_node(arg) for arg in typing.get_args(part)):
                return True
        elif isinstance(part, type) and issubclass(part, cst.CSTNode) and not issubclass(part, _SKIPPED_TYPES):
            return True
        elif not isinstance(part, type) and typing.get_origin(part) is not typing.Literal:
            return True  # something this reading does not understand: look at the value
    return False


def _children_function(node_type: type) -> Callable[[cst.CSTNode], list[cst.CSTNode]]:
    """Straight-line code listing the meaningful children of ``node_type``, from its field types.

    A field typed as one node class (or a sequence of them) is read directly, with a None
    test when it is ``Optional``; anything looser (unions with sentinels, syntax tokens or
    other types) goes through :func:`_field_children`, which asks each value what it is.
    Fields that can hold no meaningful node (strings, punctuation) are never read.
    """
    hints = typing.get_type_hints(node_type)
    lines = ["def children(node):", "    found = []"]
    for name in _child_fields(node_type):
        annotation = hints[name]
        if not _may_hold_node(annotation):
            continue
        parts = _alternatives(annotation)
        optional = type(None) in parts
        present = [part for part in parts if part is not type(None)]
        single = present[0] if len(present) == 1 else None
        if _meaningful_classes(present):
            if optional:
                lines += [f"    value = node.{name}", "    if value is not None:", "        found.append(value)"]
            else:
                lines.append(f"    found.append(node.{name})")
        elif (single is not None and not optional and typing.get_origin(single) is collections.abc.Sequence
              and _meaningful_classes(_alternatives(typing.get_args(single)[0]))):
            lines.append(f"    found.extend(node.{name})")
        else:
            lines.append(f"    found.extend(_field_children(node.{name}))")
    lines.append("    return found")
    namespace: dict[str, object] = {"_field_children": _field_children}
    exec("\n".join(lines), namespace)  # noqa: S102 - code built above from field names only
    function = namespace["children"]
    _CHILDREN[node_type] = function  # type: ignore[assignment]
    return function  # type: ignore[return-value]


#: node type → the generated function listing its meaningful children.
_CHILDREN: dict[type, Callable[[cst.CSTNode], list[cst.CSTNode]]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The meaningful child nodes of ``node`` (no whitespace, commas or brackets), in a new list."""
    # The hottest function of a check: every node of every file passes here at least once.
    function = _CHILDREN.get(type(node))
    if function is None:
        function = _children_function(type(node))
    return function(node)


def reference_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """What :func:`children` must answer, computed the slow, obvious way (for the tests)."""
    found: list[cst.CSTNode] = []
    for name in _child_fields(type(node)):
        found.extend(_field_children(getattr(node, name)))
    return found


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and everything below it, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def not_variables(node: cst.CSTNode) -> set[int]:
    """The ids of the names in ``node`` that name no variable: an attribute's name (the ``fft`` of
    ``torch.fft.rfft2``) and a keyword argument's name (the ``dim`` of ``f(x, dim=1)``)."""
    found: set[int] = set()
    for inner in walk(node):
        if type(inner) is cst.Attribute:
            found.add(id(inner.attr))
        elif type(inner) is cst.Arg and inner.keyword is not None:
            found.add(id(inner.keyword))
    return found


def variable_names(node: cst.CSTNode) -> set[str]:
    """The names ``node`` uses as variables, read or bound (:func:`not_variables` left out)."""
    skip = not_variables(node)
    return {inner.value for inner in walk(node) if type(inner) is cst.Name and id(inner) not in skip}


def mentions_name(node: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` appears as a name anywhere in ``node`` (an attribute's ``.name`` does not count)."""
    if type(node) is cst.Name:
        return node.value == name
    if type(node) is cst.Attribute:
        return mentions_name(node.value, name)
    return any(mentions_name(child, name) for child in node.children)


def visit_readonly(node: cst.CSTNode, visitor: object) -> None:
    """Call ``visitor.visit_<Type>(n)`` on ``node`` and below; a ``False`` return prunes.

    The cheap counterpart of ``node.visit(visitor)`` for visitors that only collect.
    """
    hooks = _HOOKS.get(type(visitor))
    if hooks is None:
        hooks = _HOOKS[type(visitor)] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        try:
            hook = hooks[kind]
        except KeyError:
            hook = hooks[kind] = getattr(type(visitor), "visit_" + kind.__name__, None)
        if hook is not None and hook(visitor, current) is False:
            continue
        below = children(current)
        below.reverse()
        stack.extend(below)


#: visitor class → node class → its unbound ``visit_<Node>`` hook (None: it has none).
_HOOKS: dict[type, dict[type, Callable[..., object] | None]] = {}


def helper_call(name: str, *values: cst.BaseExpression) -> cst.Call:
    """``name(value, value...)``: a call of an inserted helper, the arguments' own source kept."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [cst.Arg(value=value, comma=comma) for value in values[:-1]]
    args.append(cst.Arg(value=values[-1]))
    return cst.Call(func=cst.Name(name), args=args)
