"""A list of index tensors made a tensor, written so that ``torch.jit.script`` compiles it (TRT104's fix).

Greedy NMS loops often collect the kept indices in a list started empty (``keep = []``,
``keep.append(i)`` with ``i = order[0]``) and return ``torch.LongTensor(keep)`` or
``torch.tensor(keep, dtype=torch.long)``. TorchScript types ``keep`` as a list of tensors and
compiles neither call (``torch.LongTensor`` is no TorchScript builtin; ``torch.tensor`` of a
list of tensors raises at run time). Where every element is an integer tensor read from an
index tensor (``argsort``, ``sort``'s or ``topk``'s indices, ``nonzero``, or a selection of
one), the same tensor is ``torch.stack(keep)`` cast to the requested dtype and device, and, for
the empty list, ``torch.zeros(0, ...)`` of that dtype and device: the call becomes
``(torch.stack(keep).to(dtype=D, device=E) if len(keep) > 0 else torch.zeros(0, dtype=D,
device=E))``, which TorchScript compiles and which keeps the empty result (``torch.stack`` of no
tensor raises). Each append becomes ``keep.append(i.reshape(()))``: ``torch.tensor`` reads each
element as one value (a one-element tensor of any shape; more values raise, now at the append).

The values, dtype, shape and device are the original's: integer values convert exactly, and
``torch.LongTensor`` is always on the CPU. ``torch.tensor``/``torch.as_tensor`` without a
``device`` put the result on torch's default device, taken to be the CPU (the TorchScript
default; ``torch.set_default_device`` is not followed). A list read anywhere else (returned,
indexed, iterated, appended a non-index value) is left as written.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import bound_names, walk
from trtcodemod.transforms._script_blockers import _params, _targets

Refers = Callable[[cst.BaseExpression, tuple[str, ...]], bool]
_Kind = tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None  # (dtype, device); None: an append

_INTEGER_DTYPES = tuple(f"torch.{d}" for d in ("long", "int64", "int", "int32", "int16", "short", "int8", "uint8"))
_CONVERTERS = ("torch.tensor", "torch.as_tensor")


def stack_index_lists(function: cst.FunctionDef, refers: Refers,
                      torch_attr: Callable[[str], cst.BaseExpression]) -> cst.FunctionDef:
    """``function`` with each conversion of a list of index tensors rewritten as the module
    docstring says; unchanged where no list qualifies. ``refers(node, names)`` tells whether
    ``node`` names one of the qualified ``names``; ``torch_attr`` writes ``torch.<dotted>``."""
    indices = _index_names(function, refers)
    replacements: dict[cst.Call, cst.BaseExpression] = {}
    for name in _started_empty_once(function):
        found = _conversions(function, name, indices, refers)
        for call, kind in found.items():
            replacements[call] = _scalar_append(call) if kind is None else _stacked(name, *kind, torch_attr)
    if not replacements:
        return function
    return function.visit(_Replace(replacements))  # type: ignore[return-value]


def _started_empty_once(function: cst.FunctionDef) -> list[str]:
    """Names whose only binding in ``function`` is ``name = []``."""
    counts: dict[str, int] = {}
    empty: list[str] = []
    for node in walk(function.body):
        for target in _targets(node):
            for name in bound_names(target):
                counts[name] = counts.get(name, 0) + 1
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
                and type(node.value) is cst.List and not node.value.elements:
            empty.append(node.targets[0].target.value)
    params = {p.name.value for p in _params(function)}
    return [name for name in dict.fromkeys(empty) if counts.get(name) == 1 and name not in params]


def _conversions(function: cst.FunctionDef, name: str, indices: set[str], refers: Refers) -> dict[cst.Call, _Kind]:
    """The calls that make the list ``name`` a tensor, with their dtype and device (None: the
    default), and its appends (None), when every read of ``name`` is an append of an index tensor,
    ``len(name)`` or such a call; otherwise none."""
    found: dict[cst.Call, _Kind] = {}
    uses = {id(n) for n in walk(function.body) if type(n) is cst.Name and n.value == name}
    accounted: set[int] = set()
    for node in walk(function.body):
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
                and node.targets[0].target.value == name:
            accounted.add(id(node.targets[0].target))
        if type(node) is not cst.Call:
            continue
        func, args = node.func, node.args
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == name:
            if func.attr.value != "append" or len(args) != 1 or args[0].keyword is not None or args[0].star \
                    or not _index_tensor(args[0].value, indices, refers):
                return {}
            accounted.add(id(func.value))
            found[node] = None
            continue
        if not (args and type(args[0].value) is cst.Name and args[0].value.value == name and not args[0].star
                and args[0].keyword is None):
            continue
        if type(func) is cst.Name and func.value == "len" and len(args) == 1:
            accounted.add(id(args[0].value))
            continue
        kind = _conversion(node, refers)
        if kind is None:
            return {}
        accounted.add(id(args[0].value))
        found[node] = kind
    if None not in found.values() or all(kind is None for kind in found.values()) or uses != accounted:
        return {}
    return found


def _scalar_append(call: cst.Call) -> cst.Call:
    """``keep.append(x.reshape(()))``: each element one value, as ``torch.tensor`` reads it (a tensor
    of more values raises there, and now at the append; ``torch.stack`` would keep them)."""
    [arg] = call.args
    scalar = cst.Call(cst.Attribute(arg.value, cst.Name("reshape")), [cst.Arg(cst.Tuple([]))])
    return call.with_changes(args=[arg.with_changes(value=scalar)])


def _conversion(call: cst.Call, refers: Refers) -> _Kind:
    """(dtype, device) of ``torch.LongTensor(keep)`` or ``torch.tensor(keep, dtype=<integer>[,
    device=...])``; None for any other call or argument."""
    rest = call.args[1:]
    if refers(call.func, ("torch.LongTensor",)):
        return (None, None) if not rest else None
    if not refers(call.func, _CONVERTERS):
        return None
    given = {arg.keyword.value: arg.value for arg in rest if arg.keyword is not None and not arg.star}
    if len(given) != len(rest) or not set(given) <= {"dtype", "device"} or "dtype" not in given \
            or not refers(given["dtype"], _INTEGER_DTYPES):
        return None
    return given["dtype"], given.get("device")


def _stacked(name: str, dtype: cst.BaseExpression | None, device: cst.BaseExpression | None,
             torch_attr: Callable[[str], cst.BaseExpression]) -> cst.BaseExpression:
    """``(torch.stack(name).to(dtype=D, device=E) if len(name) > 0 else torch.zeros(0, dtype=D, device=E))``."""
    dtype = dtype if dtype is not None else torch_attr("long")
    device = device if device is not None else cst.SimpleString('"cpu"')

    def keywords() -> list[cst.Arg]:
        return [cst.Arg(dtype, keyword=cst.Name("dtype"), equal=_EQUAL),
                cst.Arg(device, keyword=cst.Name("device"), equal=_EQUAL)]

    stacked = cst.Call(cst.Attribute(cst.Call(torch_attr("stack"), [cst.Arg(cst.Name(name))]), cst.Name("to")),
                       keywords())
    empty = cst.Call(torch_attr("zeros"), [cst.Arg(cst.Integer("0")), *keywords()])
    test = cst.Comparison(cst.Call(cst.Name("len"), [cst.Arg(cst.Name(name))]),
                          [cst.ComparisonTarget(cst.GreaterThan(), cst.Integer("0"))])
    return cst.IfExp(test, stacked, empty, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _index_names(function: cst.FunctionDef, refers: Refers) -> set[str]:
    """Locals that hold integer index tensors: every binding of each is an index tensor
    (:func:`_index_tensor`) or the indices of ``sort``/``topk`` unpacked (``_, order = s.sort()``)."""
    bindings: dict[str, list[cst.BaseExpression | None]] = {}
    for node in walk(function.body):
        for target in _targets(node):
            value = node.value if type(node) in (cst.Assign, cst.AnnAssign) else None
            if type(target) is cst.Name:
                bindings.setdefault(target.value, []).append(value)
            elif type(target) is cst.Tuple and len(target.elements) == 2 and value is not None \
                    and _sorting(value, refers):
                first, second = (e.value for e in target.elements)
                if type(second) is cst.Name:
                    bindings.setdefault(second.value, []).append(_SORTED)
                for name in bound_names(first):
                    bindings.setdefault(name, []).append(None)
            else:
                for name in bound_names(target):
                    bindings.setdefault(name, []).append(None)
    for param in _params(function):
        bindings.setdefault(param.name.value, []).append(None)
    indices = set(bindings)  # the largest set whose every binding holds (``order = order[keep_mask]``)
    changed = True
    while changed:
        changed = False
        for name in sorted(indices):
            if not all(v is _SORTED or v is not None and _index_tensor(v, indices, refers) for v in bindings[name]):
                indices.discard(name)
                changed = True
    return indices


_SORTED = cst.Name("_sorted_indices")  # a marker: the second of a sort's or topk's results


def _index_tensor(value: cst.BaseExpression, indices: set[str], refers: Refers | None = None) -> bool:
    """An integer index tensor: a local in ``indices``, ``argsort``/``nonzero`` (method or
    ``torch.`` function), ``sort``'s or ``topk``'s indices (``s.sort()[1]``), or any selection of one."""
    while type(value) is cst.Subscript:
        inner = value.value
        if type(inner) is cst.Call and _sorting(inner, refers) and len(value.slice) == 1 \
                and type(value.slice[0].slice) is cst.Index and _is_one(value.slice[0].slice.value):
            return True
        value = inner
    if type(value) is cst.Name:
        return value.value in indices
    if type(value) is not cst.Call:
        return False
    func = value.func
    if type(func) is cst.Attribute and func.attr.value == "argsort":
        return True
    if type(func) is cst.Attribute and func.attr.value == "nonzero":
        return not any(a.keyword is not None and a.keyword.value == "as_tuple" for a in value.args)
    return refers is not None and refers(func, ("torch.argsort", "torch.nonzero")) \
        and not any(a.keyword is not None and a.keyword.value == "as_tuple" for a in value.args)


def _sorting(call: cst.BaseExpression, refers: Refers | None) -> bool:
    """``x.sort(...)``/``x.topk(...)`` or ``torch.sort``/``torch.topk``: (values, indices)."""
    if type(call) is not cst.Call:
        return False
    func = call.func
    if type(func) is cst.Attribute and func.attr.value in ("sort", "topk"):
        return True
    return refers is not None and refers(func, ("torch.sort", "torch.topk"))


def _is_one(value: cst.BaseExpression) -> bool:
    return type(value) is cst.Integer and value.value == "1"


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.Call, cst.BaseExpression]) -> None:
        super().__init__()
        self.replacements = replacements

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:  # noqa: N802
        return self.replacements.get(original, updated)
