"""Small LibCST helpers that several rules need: arguments, literals, building code."""

from __future__ import annotations

import libcst as cst

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


def int_value(node: cst.BaseExpression | None) -> int | None:
    """The value of an integer literal such as ``2`` or ``-1``, else None."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = int_value(node.expression)
        return -inner if inner is not None else None
    return None


def float_value(node: cst.BaseExpression | None) -> float | None:
    """The value of an int/float literal (with an optional minus sign), else None."""
    if isinstance(node, cst.Float):
        try:
            return float(node.value)
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = float_value(node.expression)
        return -inner if inner is not None else None
    value = int_value(node)
    return float(value) if value is not None else None


def method_call(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``receiver.name(...)`` → (receiver, name)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.value, func.attr.value
    return None


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap ``node`` in parentheses unless it is an atom or already wrapped."""
    if isinstance(node, ATOMS) or getattr(node, "lpar", ()):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    if getattr(node, "lpar", ()):
        return node.with_changes(lpar=[], rpar=[])
    return node


def code_of(node: cst.CSTNode) -> str:
    """Source text of a node (without its leading/trailing whitespace owners)."""
    return cst.Module(body=[]).code_for_node(node)


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
