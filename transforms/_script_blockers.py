"""What evidently stops ``torch.jit.script`` from compiling a function as written (TRT104's fix).

TRT104 puts ``@torch.jit.script`` on the module-level function that holds a data-dependent
loop; the decorator compiles the function when the module is imported, so a function that
TorchScript rejects turns a model that ran into one that fails at import. Rejections read from
the code alone: a parameter with a default and no annotation (TorchScript takes it as a Tensor
and refuses the default; a number, bool or string literal default is annotated with its type
instead), ``*args``/``**kwargs``, keyword-only parameters with defaults (owndet's ``nms(..., *,
max_detections=None)``), ``torch.tensor`` of a list started empty (TorchScript types it
as a list of tensors, which ``torch.tensor`` rejects at run time: eager mode's empty result
becomes an error; :mod:`._stacked_list` rewrites a list of index tensors first), an append of a
Python number (``order[0].item()``, ``int(x)``, a literal, a name only ever bound to one) to such a
list (refused at import: pyfacer's RetinaFace ``nms``), and a name
first bound inside the loop and read after it (the loop may run zero times, so TorchScript
finds it undefined on that path: "undefined value"; :mod:`._loop_prebind` declares it where
that is sound). A function of the file it calls is compiled with it, as written: a parameter
there with a default and no annotation is rejected (:func:`callee_blocker`). A returned number literal compiles but
stops the traced export ("Tracer cannot set value trace for type Int"). Other rejections (Python
features TorchScript lacks) remain the fix's stated assumption.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import bound_names, walk


def script_blocker(function: cst.FunctionDef, is_torch_tensor: Callable[[cst.BaseExpression], bool]) -> str | None:
    """Why scripting ``function`` would evidently fail, at import, at run time or in the traced
    export, or None (a parameter with a default that :func:`annotate_defaults` annotates is no
    blocker). ``is_torch_tensor`` tells whether a callee is ``torch.tensor``."""
    params = function.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return "TorchScript does not compile `*args`/`**kwargs`"
    if any(param.default is not None for param in params.kwonly_params):
        # owndet's `nms(boxes, scores, iou_threshold=0.5, *, max_detections=None)` (zoo 91)
        return "TorchScript does not compile keyword-only parameters with defaults"
    for param in _params(function):
        if param.annotation is None and param.default is not None and _literal_type(param.default) is None:
            return (f"parameter `{param.name.value}` has a default and no annotation: TorchScript takes it as a "
                    f"Tensor and rejects the default")
    for node in walk(function.body):
        if type(node) is cst.Return and node.value is not None and _returns_number(node.value):
            return ("the function returns a Python number: a traced export cannot carry it out of a scripted "
                    "function")
    started_empty = _started_empty(function)
    for node in walk(function.body):
        if type(node) is cst.Call and node.args and type(node.args[0].value) is cst.Name \
                and node.args[0].value.value in started_empty and is_torch_tensor(node.func):
            return (f"`torch.tensor({node.args[0].value.value})` of a list started empty: TorchScript types the list "
                    "as a list of tensors, and `torch.tensor` of one raises at run time")
    numbers = _number_names(function)
    for node in walk(function.body):
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "append" \
                and type(node.func.value) is cst.Name and node.func.value.value in started_empty \
                and len(node.args) == 1 and _is_number(node.args[0].value, numbers):
            return (f"`{node.func.value.value}.append(...)` of a Python number to a list started empty: TorchScript "
                    "types the list as a list of tensors and refuses the number at import")
    return None


def callee_blocker(function: cst.FunctionDef, module: cst.Module) -> str | None:
    """Why TorchScript would evidently reject a function of ``module`` that ``function`` calls by name,
    directly or through other such calls, or None. Scripting ``function`` compiles each undecorated
    module-level function it calls as written, without :func:`annotate_defaults`: a parameter there with
    a default other than None and no annotation is taken as a Tensor and the default refused
    (pytorch_filters' ``canny`` calls ``non_maximum_suppression(m, round_angle, threshold=0.005)``)."""
    defined = {stmt.name.value: stmt for stmt in module.body if type(stmt) is cst.FunctionDef}
    rebound = {name for stmt in module.body if type(stmt) is cst.SimpleStatementLine for s in stmt.body
               if type(s) is cst.Assign for t in s.targets for name in bound_names(t.target)}
    seen = {function.name.value}
    pending = [function]
    while pending:
        caller = pending.pop()
        targets = [t.target for node in walk(caller.body) if type(node) is cst.Assign for t in node.targets]
        targets += [node.target for node in walk(caller.body) if type(node) in (cst.AnnAssign, cst.For)]
        local = {p.name.value for p in _params(caller)} | {name for t in targets for name in bound_names(t)}
        for node in walk(caller.body):
            if type(node) is not cst.Call or type(node.func) is not cst.Name:
                continue
            name = node.func.value
            callee = defined.get(name)
            if callee is None or name in seen or name in rebound or name in local or callee.decorators:
                continue  # not this file's plain function (a decorated one is compiled, or not, its own way)
            seen.add(name)
            if isinstance(callee.params.star_arg, cst.Param) or callee.params.star_kwarg is not None:
                return f"`{name}`, which it calls, takes `*args`/`**kwargs`: TorchScript does not compile it"
            for param in _params(callee):
                if param.annotation is None and param.default is not None \
                        and not (type(param.default) is cst.Name and param.default.value == "None"):
                    return (f"`{name}`, which it calls, has parameter `{param.name.value}` with a default and no "
                            "annotation: TorchScript takes it as a Tensor and rejects the default")
            pending.append(callee)
    return None


def _started_empty(function: cst.FunctionDef) -> set[str]:
    """Names bound to an empty list display without an annotation (``keep = []``)."""
    return {target.target.value for node in walk(function.body) if type(node) is cst.Assign
            and type(node.value) is cst.List and not node.value.elements
            for target in node.targets if type(target.target) is cst.Name}


#: Calls whose result is a Python number, not a tensor: ``order[0].item()``, ``int(order[0])``.
_NUMBER_METHODS, _NUMBER_CALLS = ("item",), ("int", "float", "len")


def _is_number(value: cst.BaseExpression, numbers: set[str]) -> bool:
    """Whether ``value`` is evidently a Python number: a literal, ``x.item()``, ``int(x)``/``float(x)``/``len(x)``,
    or a name only ever bound to one of those in the function."""
    if _literal_type(value) in ("int", "float"):
        return True
    if type(value) is cst.Name:
        return value.value in numbers
    if type(value) is cst.Call and type(value.func) is cst.Attribute:
        return value.func.attr.value in _NUMBER_METHODS and not value.args
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in _NUMBER_CALLS


def _number_names(function: cst.FunctionDef) -> set[str]:
    """Names every binding of which in ``function`` is a plain assignment of an evident Python number
    (``i = order[0].item()``)."""
    values: dict[str, list[bool]] = {}
    for node in walk(function.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                for name in bound_names(target.target):
                    values.setdefault(name, []).append(type(target.target) is cst.Name and _is_number(node.value, set()))
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
            for name in bound_names(node.target):
                values.setdefault(name, []).append(False)  # other bindings: not evidently a number
    return {name for name, kinds in values.items() if all(kinds)}


def annotate_defaults(function: cst.FunctionDef) -> cst.FunctionDef:
    """``function`` with each unannotated parameter whose default is a number, bool or string literal
    annotated with the default's type (TorchScript would take it as a Tensor and reject the default)."""
    def annotated(param: cst.Param) -> cst.Param:
        kind = _literal_type(param.default) if param.annotation is None and param.default is not None else None
        if kind is None:
            return param
        spaced = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" "))
        return param.with_changes(annotation=cst.Annotation(cst.Name(kind)), equal=spaced)  # PEP 8: `x: int = 1`

    params = function.params
    return function.with_changes(params=params.with_changes(
        posonly_params=[annotated(p) for p in params.posonly_params], params=[annotated(p) for p in params.params],
        kwonly_params=[annotated(p) for p in params.kwonly_params]))


def _params(function: cst.FunctionDef) -> tuple[cst.Param, ...]:
    params = function.params
    return (*params.posonly_params, *params.params, *params.kwonly_params)


def _literal_type(value: cst.BaseExpression) -> str | None:
    """``int``, ``float``, ``bool`` or ``str`` for a literal of that type (``200``, ``-0.5``, ``True``,
    ``'union'``), else None."""
    if type(value) is cst.SimpleString:
        return "str" if value.prefix.lower() in ("", "r", "u") else None  # not bytes, not an f-string
    if type(value) is cst.UnaryOperation and type(value.operator) in (cst.Minus, cst.Plus):
        value = value.expression
        if type(value) is cst.Name:
            return None  # `-True` is an int
    if type(value) is cst.Integer:
        return "int"
    if type(value) is cst.Float:
        return "float"
    if type(value) is cst.Name and value.value in ("True", "False"):
        return "bool"
    return None


def _returns_number(value: cst.BaseExpression) -> bool:
    """A returned number literal, alone or in a returned tuple (``return keep, 0``)."""
    parts = [e.value for e in value.elements] if type(value) is cst.Tuple else [value]
    return any(_literal_type(part) in ("int", "float") for part in parts)


def first_bound_inside(function: cst.FunctionDef, loop: cst.CSTNode) -> list[str]:
    """The names ``loop`` first binds that are read after it, in the order of their first read."""
    inside = {id(n) for n in walk(loop)}
    targets: set[int] = set()  # Name nodes that are bound, not read
    for node in walk(function.body):
        for target in _targets(node):
            targets.update(id(n) for n in walk(target) if type(n) is cst.Name)
        if type(node) is cst.Attribute:
            targets.add(id(node.attr))
        elif type(node) is cst.Arg and node.keyword is not None:
            targets.add(id(node.keyword))
    before = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                     *function.params.kwonly_params)}
    bound_inside: set[str] = set()
    found: list[str] = []
    phase = 0  # 0 before the loop, 1 inside it, 2 after it
    for node in walk(function.body):
        if phase == 0 and node is loop:
            phase = 1
        elif phase == 1 and id(node) not in inside:
            phase = 2
        bound = {n for target in _targets(node) for n in bound_names(target)}
        if phase == 0:
            before |= bound
        elif phase == 1:
            bound_inside |= bound
        elif type(node) is cst.Name and id(node) not in targets and node.value in bound_inside - before \
                and node.value not in found:
            found.append(node.value)
    return found


def _targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The binding targets ``node`` itself writes."""
    kind = type(node)
    if kind is cst.Assign:
        return [t.target for t in node.targets]
    if kind in (cst.AnnAssign, cst.AugAssign, cst.NamedExpr):
        return [node.target]
    if kind is cst.For:
        return [node.target]
    if kind is cst.WithItem and node.asname is not None:
        return [node.asname.name]
    return []
