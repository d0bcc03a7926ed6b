"""Visible evidence that an expression is a torch tensor (not a NumPy array or a number).

Rules whose construct exists for NumPy arrays too (a threshold comparison used as an index,
``a[m]``) report only where the code shows a tensor: a torch function's result, or a method
that NumPy arrays lack (``x.sigmoid()``, ``x.unsqueeze(0)``, ``x.float()``), directly or
through a local name assigned once. :class:`TensorEvidence` is the provider rules declare
to ask it in the function the traversal is in. This module defines no rule and is not registered.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import bound_names, decorator_names, method_call, walk
from trtcodemod.providers import ObservedFacts, Provider
from trtcodemod.scopes import Value, scope_bindings

#: Methods that torch tensors have and NumPy arrays do not (``reshape``, ``sum``, ``max``,
#: ``transpose``, ``view`` and ``T`` exist on both and prove nothing).
TENSOR_ONLY_METHODS = frozenset({
    "unsqueeze", "sigmoid", "softmax", "log_softmax", "permute", "contiguous", "float", "half", "bfloat16",
    "long", "int", "bool", "double", "detach", "cuda", "cpu", "to", "masked_fill", "new_zeros", "new_ones",
    "new_full", "new_tensor", "expand", "expand_as", "type_as", "clamp", "clamp_min", "clamp_max", "topk",
    "gather", "index_select", "flip", "exp", "log", "sqrt", "abs", "size", "dim", "numel", "split", "chunk",
    "unbind", "softplus", "relu", "tanh", "norm", "matmul", "bmm", "amax", "amin", "logical_not", "logical_and",
    "logical_or", "nonzero", "view_as", "reshape_as", "unflatten", "narrow", "masked_select", "where",
})

def evident_tensor(
    expr: cst.BaseExpression,
    qualified: Callable[[cst.BaseExpression], tuple[str, ...] | set[str]],
    sole_value: Callable[[cst.Name], cst.BaseExpression | None],
    tensor_name: Callable[[cst.Name], bool] = lambda name: False,
    depth: int = 0,
) -> bool:
    """Does the code show that ``expr`` is a tensor?

    ``qualified`` names what an expression refers to through the imports; ``sole_value``
    gives the one value a local name is assigned (None when not exactly one);
    ``tensor_name`` says whether a name is a tensor by itself (an annotated parameter).
    """
    if depth > 6:
        return False
    if type(expr) is cst.Name and tensor_name(expr):
        return True
    if type(expr) is cst.Call:
        if type(expr.func) is cst.Name and expr.func.value.startswith("_trt_"):
            return True  # a helper trtcodemod inserted in place of a torch operation
        names = qualified(expr.func)
        if names:
            return any(n.startswith("torch.") and is_tensor_function(n) for n in names)
        parts = method_call(expr)
        if parts is None:
            return False
        return parts[1] in TENSOR_ONLY_METHODS or evident_tensor(parts[0], qualified, sole_value, tensor_name, depth + 1)
    if type(expr) is cst.Name:
        value = sole_value(expr)
        return value is not None and evident_tensor(value, qualified, sole_value, tensor_name, depth + 1)
    if type(expr) is cst.Subscript:
        return evident_tensor(expr.value, qualified, sole_value, tensor_name, depth + 1)
    if type(expr) is cst.BinaryOperation:
        return evident_tensor(expr.left, qualified, sole_value, tensor_name, depth + 1) or \
            evident_tensor(expr.right, qualified, sole_value, tensor_name, depth + 1)
    if type(expr) is cst.Comparison:  # comparing tensors makes a bool tensor
        return any(evident_tensor(operand, qualified, sole_value, tensor_name, depth + 1)
                   for operand in (expr.left, *(c.comparator for c in expr.comparisons)))
    if type(expr) is cst.UnaryOperation and type(expr.operator) is not cst.Not:
        return evident_tensor(expr.expression, qualified, sole_value, tensor_name, depth + 1)
    return False


class TensorEvidence(Provider):
    """Provider: is an expression visibly a tensor where the traversal is, and what each local
    name of the current function is assigned (one walk per function and file, whichever rule
    asks first). With facts, a name a recorded run saw holding a tensor at its line is one too
    (:meth:`~trtcodemod.providers.ObservedFacts.is_tensor`)."""

    requires = (ObservedFacts,)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._bindings: dict[int, dict[str, list[Value]]] = {}
        observed = self.provider(ObservedFacts)
        self._observed = observed.is_tensor if observed.known else None

    def bindings(self) -> "dict[str, list[Value]]":
        """name → every value assigned to it in the current function (the module outside
        functions), a parameter as None: see :func:`~trtcodemod.scopes.scope_bindings`."""
        scope = self.context.function or self.context.module
        found = self._bindings.get(id(scope))
        if found is None:
            found = self._bindings[id(scope)] = scope_bindings(scope)
        return found

    def evident(self, expr: cst.BaseExpression) -> bool:
        """:func:`evident_in_scope` in the current function."""
        return evident_in_scope(self.context, expr, self.bindings, self._observed)


def tensor_parameter(func: cst.FunctionDef | None, name: str, module_forward: bool) -> bool:
    """Is ``name`` a parameter of ``func`` that is a tensor by its annotation (``Tensor``,
    ``torch.Tensor``, ``Optional[Tensor]``), or an unannotated input of a module's ``forward``?"""
    if func is None:
        return False
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value != name:
            continue
        if param.annotation is not None:
            text = cst.Module([]).code_for_node(param.annotation.annotation)
            return "Tensor" in text and "List" not in text and "list" not in text and "Tuple" not in text
        return module_forward and name != "self" and param.default is None
    return False


def _looks_like_module(cls: cst.ClassDef) -> bool:
    for base in cls.bases:
        text = cst.Module([]).code_for_node(base.value)
        if text.endswith("Module") or text.startswith(("nn.", "torch.nn.")):
            return True
    return False


def evident_in_scope(
    context, expr: cst.BaseExpression, bindings: Callable[[], dict[str, list[cst.BaseExpression | None]]],
    observed: Callable[[cst.CSTNode], bool] | None = None,
) -> bool:
    """:func:`evident_tensor` for the function the traversal is in (``context`` is the rule's
    :class:`~trtcodemod.context.FileContext`; ``bindings`` gives that function's local bindings,
    a parameter bound as ``None``; ``observed``, with facts only, says whether a recorded run
    saw a name hold a tensor at its line)."""
    func = context.function
    forward = (
        func is not None and func.name.value == "forward" and bool(context.classes)
        and _looks_like_module(context.classes[-1]) and any(item is func for item in context.classes[-1].body.body)
    )

    # TorchScript types an unannotated parameter as Tensor.
    scripted = func is not None and any(
        cst.Module([]).code_for_node(d.decorator).endswith("jit.script") for d in func.decorators
    )
    forward = forward or scripted

    def sole_value(name: cst.Name) -> cst.BaseExpression | None:
        values = bindings().get(name.value)
        return values[0] if values and len(values) == 1 else None

    def sole_or_none(name: cst.Name) -> cst.BaseExpression | None:
        return None

    def evident_alone(value: cst.BaseExpression) -> bool:
        return evident_tensor(value, context.qualified_names, sole_or_none)

    def tensor_name(name: cst.Name) -> bool:
        """Every binding of the name keeps it a tensor, and one of them shows it is one.

        A binding is the parameter (annotated ``Tensor``, a module's ``forward`` input), a
        tuple unpacking of a visible tensor (``scores, labels = logits.max(1)``), a value that
        is visibly a tensor, or the name refined from itself (``boxes = boxes[keep]``).
        """
        if observed is not None and observed(name):
            return True
        values = bindings().get(name.value)
        if not values or func is None:
            return False
        anchored = False
        for value in values:
            if value is None:
                if name.value in parameter_names(func):
                    # An unannotated forward input counts while it is only refined (`x = x.clone()`).
                    refined_only = all(v is None or _refines(v, name.value) for v in values)
                    if not tensor_parameter(func, name.value, forward and refined_only):
                        return False
                elif not any(evident_alone(rhs) for rhs in _unpacked_from(func, name.value)):
                    return False
                anchored = True
            elif _refines(value, name.value):
                continue
            elif evident_alone(value):
                anchored = True
            else:
                return False
        return anchored

    return evident_tensor(expr, context.qualified_names, sole_value, tensor_name)


def parameter_names(func: cst.FunctionDef) -> set[str]:
    params = func.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def _refines(value: cst.BaseExpression, name: str) -> bool:
    """``name[...]`` or ``name.method(...)``: a tensor stays a tensor (``boxes = boxes[keep]``)."""
    while True:
        if type(value) is cst.Subscript:
            value = value.value
        elif type(value) is cst.Call and type(value.func) is cst.Attribute and \
                value.func.attr.value not in STATIC_METHODS:
            value = value.func.value
        else:
            break
    return type(value) is cst.Name and value.value == name


def _unpacked_from(func: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    """Right-hand sides of tuple assignments in ``func`` that bind ``name``."""
    found = []
    for node in walk(func.body):
        if type(node) is cst.Assign and node.targets:
            for target in node.targets:
                if type(target.target) in (cst.Tuple, cst.List) and name in bound_names(target.target):
                    found.append(node.value)
    return found


#: Methods that describe a tensor rather than compute one (their result is no tensor).
STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "is_floating_point",
    "is_complex", "is_contiguous", "is_signed", "get_device", "data_ptr", "storage_offset", "__len__",
    "item", "tolist", "numpy", "type", "has_names", "is_set_to", "equal", "dim_order",
})
#: torch functions whose results are not tensors (or only static facts).
NON_TENSOR_TORCH = frozenset({
    "torch.Size", "torch.finfo", "torch.iinfo", "torch.device", "torch.dtype", "torch.numel",
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.is_nonzero",
    "torch.get_default_dtype", "torch.is_grad_enabled", "torch.no_grad", "torch.enable_grad",
    "torch.set_grad_enabled", "torch.inference_mode", "torch.is_inference_mode_enabled",
    "torch.manual_seed", "torch.initial_seed", "torch.equal", "torch.is_storage",
    "torch.sym_int", "torch.sym_float", "torch.sym_min", "torch.sym_max",
})
#: torch namespaces that hold modules and utilities, not tensor functions (``torch.nn.functional`` excepted).
NON_TENSOR_TORCH_PREFIXES = (
    "torch.nn.", "torch.jit.", "torch.cuda.", "torch.onnx.", "torch.distributed.", "torch.backends.",
    "torch.utils.", "torch.testing.", "torch.autograd.", "torch.fx.", "torch._", "torch.compiler.",
    "torch.distributions.", "torch.hub.", "torch.optim.", "torch.overrides.",
)


def is_tensor_function(qualified: str) -> bool:
    """Does the torch function named ``qualified`` return a tensor?"""
    return qualified not in NON_TENSOR_TORCH and (
        qualified.startswith("torch.nn.functional.") or not qualified.startswith(NON_TENSOR_TORCH_PREFIXES)
    )


def tensor_expression(
    expr: cst.BaseExpression,
    torch_function: Callable[[cst.BaseExpression], str | None],
    tensor_name: Callable[[str], bool],
    observed: Callable[[cst.CSTNode], bool] | None = None,
) -> bool:
    """Is ``expr`` built from tensors: a tensor name, a torch function's result, a computing
    method of a tensor, indexing, ``.T``, arithmetic on one? (TRT702 and TRT711–TRT715.)

    ``torch_function`` gives the torch function an expression names (None when it names none);
    ``tensor_name`` says whether a local name currently holds a tensor; ``observed`` (only
    with facts: :meth:`~trtcodemod.providers.ObservedFacts.is_tensor`) whether a recorded run
    saw a name or a call's result there hold one.
    """
    # A module-level recursion, not a nested one: a closure that calls itself is a reference
    # cycle, which keeps the rule (and through it the parsed module) alive until the garbage
    # collector's next full pass.
    return _built_from_tensors(expr, torch_function, tensor_name, observed)


def _built_from_tensors(
    node: cst.BaseExpression,
    torch_function: Callable[[cst.BaseExpression], str | None],
    tensor_name: Callable[[str], bool],
    observed: Callable[[cst.CSTNode], bool] | None,
) -> bool:
    if type(node) is cst.Name:
        return tensor_name(node.value) or (observed is not None and observed(node))
    if type(node) is cst.Call:
        name = torch_function(node.func)
        if name is not None:
            return is_tensor_function(name)
        parts = method_call(node)
        if parts is not None and parts[1] not in STATIC_METHODS and \
                _built_from_tensors(parts[0], torch_function, tensor_name, observed):
            return True
        return observed is not None and observed(node)
    if type(node) is cst.Subscript:
        return _built_from_tensors(node.value, torch_function, tensor_name, observed)
    if type(node) is cst.Attribute:
        if node.attr.value in ("T", "mT", "data"):
            return _built_from_tensors(node.value, torch_function, tensor_name, observed)
        return observed is not None and observed(node)  # `self.anchors`, seen holding a tensor
    if type(node) is cst.BinaryOperation:
        return (_built_from_tensors(node.left, torch_function, tensor_name, observed)
                or _built_from_tensors(node.right, torch_function, tensor_name, observed))
    if type(node) is cst.UnaryOperation:
        return type(node.operator) is not cst.Not and \
            _built_from_tensors(node.expression, torch_function, tensor_name, observed)
    if type(node) is cst.Comparison and len(node.comparisons) == 1 \
            and type(node.comparisons[0].operator) in _ELEMENTWISE_COMPARISONS:
        # `ids == pad`: a bool tensor, element by element (Petals counts padding with `.sum(-1)` of it)
        return (_built_from_tensors(node.left, torch_function, tensor_name, observed)
                or _built_from_tensors(node.comparisons[0].comparator, torch_function, tensor_name, observed))
    return False


#: Comparisons that a tensor operand makes element-wise (not ``is``/``in``, which give a bool).
_ELEMENTWISE_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
                            cst.GreaterThanEqual)


class WrittenSubscripts:
    """Mixin for rules about reading with an index: remembers the subscripts written to
    (``t[m] = v``, ``t[i] += 1``, ``del t[k]``, ``for t[i] in ...``), which are no reads."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._targets: set[int] = set()

    def is_written(self, node: cst.Subscript) -> bool:
        return id(node) in self._targets

    def _skip_target(self, node: cst.BaseExpression) -> None:
        if type(node) is cst.Subscript:
            self._targets.add(id(node))
        elif type(node) in (cst.Tuple, cst.List):
            for element in node.elements:
                self._skip_target(element.value)
        elif type(node) is cst.StarredElement:
            self._skip_target(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._skip_target(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._skip_target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._skip_target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._skip_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._skip_target(node.target)


def literal_default(param: cst.Param, none_is_literal: bool = False) -> bool:
    """A default written as a literal (a number, string, container, True/False, maybe None)."""
    default = param.default
    if default is None:
        return False
    if type(default) is cst.UnaryOperation:
        default = default.expression
    if type(default) in (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Tuple,
                            cst.List, cst.Dict):
        return True
    literals = ("True", "False", "None") if none_is_literal else ("True", "False")
    return type(default) is cst.Name and default.value in literals


def tensor_parameters(context, func: cst.FunctionDef, is_method: bool, in_forward: bool,
                      none_is_literal: bool) -> set[str]:
    """Parameters of ``func`` that hold tensors: annotated ``torch.Tensor``, or inputs of a
    module's ``forward`` without an annotation or a literal default (``self`` left out)."""
    params = func.params
    listed = [*params.posonly_params, *params.params]
    if is_method and listed and "staticmethod" not in decorator_names(func):
        listed = listed[1:]
    names: set[str] = set()
    for param in (*listed, *params.kwonly_params):
        annotation = param.annotation
        if annotation is not None and context.refers_to(annotation.annotation, "torch.Tensor") is not None:
            names.add(param.name.value)
        elif in_forward and annotation is None and not literal_default(param, none_is_literal):
            names.add(param.name.value)
    return names


def annotated_tensor_parameter(context, name: str) -> bool:
    """Is ``name`` a parameter of the current function annotated ``torch.Tensor``?"""
    function = context.function
    if function is None:
        return False
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            return context.refers_to(param.annotation.annotation, "torch.Tensor") is not None
    return False
