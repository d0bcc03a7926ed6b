"""Calls of a torch operator, in function or method form: what the operator rules share.

A function form (``torch.atan2(y, x)``) is matched through the file's imports; a method form
(``y.atan2(x)``) cannot be resolved by name and matches any receiver that is not an imported
module or a module-like name (``np``, ``torch``, ``self``...). No rule rewrites inside a helper
trtcodemod inserted, since the helpers call the originals. This module defines no rule.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, method_call
from trtcodemod.helpers import RESERVED_PREFIX
from trtcodemod.rules import Rule

#: Receivers that are modules or the object itself, never a tensor (also when not imported).
#: The inserted helpers TRT733 writes for ``isinf``-like tests: their result is a bool tensor, as the
#: torch function's, so rules that recognise masks by the call take them too.
INF_TEST_HELPERS = frozenset({"_trt_isinf", "_trt_isfinite", "_trt_isposinf", "_trt_isneginf"})

MODULE_LIKE = frozenset({"torch", "np", "numpy", "pd", "pandas", "math", "self", "cls", "F", "nn"})


def in_inserted_helper(rule: Rule) -> bool:
    """Inside an inserted ``_trt_*`` helper: never rewrite (the helpers call the originals)."""
    return any(f.name.value.startswith(RESERVED_PREFIX) for f in rule.context.functions)


def tensor_method_receiver(rule: Rule, call: cst.Call, names: tuple[str, ...]) -> cst.BaseExpression | None:
    """The receiver of ``receiver.<name>(...)`` when it may be a tensor, else None."""
    parts = method_call(call)
    if parts is None or parts[1] not in names:
        return None
    receiver = parts[0]
    if rule.context.qualified_names(receiver):
        return None  # np.unique(a), torch.Tensor.unique(...): a module's function
    if type(receiver) is cst.Name and receiver.value in MODULE_LIKE:
        return None
    return receiver


def torch_operator_call(rule: Rule, call: cst.Call, names: tuple[str, ...]) -> tuple[str, cst.Arg | None, int] | None:
    """``torch.<name>(x, ...)`` or ``x.<name>(...)`` for one of ``names`` (outside inserted
    helpers): the name, the tensor's argument (None when the function form omits it) and the
    position in ``call.args`` of the first argument after the tensor; None for any other call."""
    if in_inserted_helper(rule):
        return None
    name = next((n for n in names if rule.context.refers_to(call.func, f"torch.{n}")), None)
    if name is not None:
        return name, argument(call, 0, "input"), 1
    receiver = tensor_method_receiver(rule, call, names)
    if receiver is None:
        return None
    return call.func.attr.value, cst.Arg(value=receiver), 0  # type: ignore[attr-defined]



def plain_call(rule: Rule, call: cst.Call, names: tuple[str, ...], parameters: tuple[str, ...]) -> bool:
    """``call`` calls one of the functions ``names`` (qualified), outside an inserted helper, with its arguments
    spelled out: no ``*args`` or ``**kwargs``, no more than ``parameters`` and no keyword other than theirs."""
    if in_inserted_helper(rule) or rule.context.refers_to(call.func, *names) is None:
        return False
    if has_star_args(call) or len(call.args) > len(parameters):
        return False
    return not {arg.keyword.value for arg in call.args if arg.keyword is not None} - set(parameters)
