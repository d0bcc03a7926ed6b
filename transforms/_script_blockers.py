"""What evidently stops ``torch.jit.script`` from compiling a function as written (TRT104's fix).

TRT104 puts ``@torch.jit.script`` on the module-level function that holds a data-dependent
loop; the decorator compiles the function when the module is imported, so a function that
TorchScript rejects turns a model that ran into one that fails at import. Three rejections
can be read from the code alone: a parameter with a default and no annotation (TorchScript
takes it as a Tensor and refuses the default), ``*args``/``**kwargs``, and a name first bound
inside the loop and read after it (the loop may run zero times, so TorchScript finds it
undefined on that path: "undefined value"). Other rejections (Python features TorchScript
lacks) remain the fix's stated assumption.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, walk


def script_blocker(function: cst.FunctionDef, loop: cst.CSTNode) -> str | None:
    """Why TorchScript would evidently reject ``function`` (holding ``loop``), or None."""
    params = function.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return "TorchScript does not compile `*args`/`**kwargs`"
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.annotation is None and param.default is not None:
            return (f"parameter `{param.name.value}` has a default and no annotation: TorchScript takes it as a "
                    f"Tensor and rejects the default")
    name = _read_after_first_bound_inside(function, loop)
    if name is not None:
        return (f"`{name}` is first bound inside the loop and read after it: TorchScript rejects it as undefined "
                f"where the loop runs zero times")
    return None


def _read_after_first_bound_inside(function: cst.FunctionDef, loop: cst.CSTNode) -> str | None:
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
        elif type(node) is cst.Name and id(node) not in targets and node.value in bound_inside - before:
            return node.value
    return None


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
