"""What a traced export cannot carry into TensorRT (TRT701–TRT707).

Most of these constructs have no sound automatic rewrite: the fix depends on what the
code is for (a float64 timestamp, a per-frame counter, a data-dependent box count).
The rules find them and explain what to do; only ``len(tensor)`` → ``tensor.shape[0]``
(TRT704) is rewritten, where an annotation proves the argument is a tensor.

Where the rules look (the same for every rule of this family):

- *forward code*: ``forward`` of an ``nn.Module`` subclass and the methods it calls as
  ``self.<name>(...)``, transitively, within the class (TRT702, TRT703, TRT707).
  A class counts as a module when one of its bases resolves through the file's imports
  to something in ``torch.nn`` (``nn.Module``, ``nn.Sequential``, ``nn.Conv2d``...), when
  a base's name ends in ``Module`` (``BaseModule``, ``LightningModule``), or when a base
  is a class of the same file already recognised as a module. A base imported from
  another file of the project under another name is not recognised: those classes are
  not analysed (missed findings, never false ones).
- *run-time code*: every function of the file except the methods that only run while
  the object is built (``__init__`` and other dunders, class methods, and the methods only
  they call) (TRT701, TRT705, TRT706 for functions).
- nowhere in code that a traced export does not run: the body of ``if self.training:``
  (``torch.onnx.export`` puts the model in eval mode), ``if torch.jit.is_scripting():``,
  the ``else`` of ``if torch.jit.is_tracing():`` / ``if torch.onnx.is_in_onnx_export():``
  (and their negations); nor in helper functions trtcodemod inserted (``_trt_*``).

Method calls on tensors (``x.nonzero()``, ``t.item()``) cannot be resolved by name:
they are matched by method name in files that import torch, except on receivers that
are imported names (``np.nonzero(a)`` is NumPy's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from trtcodemod.astutil import argument, bound_names, code_of, has_star_args, method_call
from trtcodemod.names import dotted_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.versions import Version, format_version

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"
_TORCHSCRIPT = "https://pytorch.org/docs/stable/onnx_torchscript.html"
_AVOIDING_PITFALLS = "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"
_SUPPORTED_ATEN = "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html"

#: Methods that only describe a tensor (shape, dtype...): their results are not tensors.
_STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "is_floating_point",
    "is_complex", "is_contiguous", "is_signed", "get_device", "data_ptr", "storage_offset", "__len__",
    "item", "tolist", "numpy", "type", "has_names", "is_set_to", "equal",
})
#: torch functions whose results are not tensors (or are only static facts).
_NON_TENSOR_TORCH = frozenset({
    "torch.Size", "torch.finfo", "torch.iinfo", "torch.device", "torch.dtype", "torch.numel",
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.is_nonzero",
    "torch.get_default_dtype", "torch.is_grad_enabled", "torch.no_grad", "torch.enable_grad",
    "torch.set_grad_enabled", "torch.inference_mode", "torch.is_inference_mode_enabled",
    "torch.manual_seed", "torch.initial_seed", "torch.equal", "torch.is_storage",
})
_NON_TENSOR_TORCH_PREFIXES = (
    "torch.nn.", "torch.jit.", "torch.cuda.", "torch.onnx.", "torch.distributed.", "torch.backends.",
    "torch.utils.", "torch.testing.", "torch.autograd.", "torch.fx.", "torch._", "torch.compiler.",
    "torch.distributions.", "torch.hub.", "torch.optim.", "torch.overrides.",
)
#: Tensor methods that always return a single tensor: `x = x.view(...)` keeps `x` a tensor.
_TENSOR_METHODS = frozenset({
    "float", "half", "double", "bfloat16", "int", "long", "short", "bool", "byte", "to", "cuda", "cpu",
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "contiguous", "flatten",
    "unflatten", "unsqueeze", "squeeze", "clone", "detach", "expand", "expand_as", "repeat", "type_as",
    "narrow", "sigmoid", "softmax", "log_softmax", "relu", "abs", "exp", "log", "clamp", "clamp_min",
    "clamp_max", "neg", "sqrt", "pow", "mul", "add", "sub", "div", "matmul", "flip", "roll",
})
#: In-place container methods: `self.frames.append(x)` changes module state too.
_CONTAINER_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "popleft", "appendleft", "clear", "update", "remove",
    "setdefault", "discard", "popitem",
})
_CONVERSIONS = frozenset({"int", "float", "bool", "complex"})


def _imports_torch(module: cst.Module) -> bool:
    """Whether the module imports torch (or anything from it) at its top level (also in if/try)."""
    statements = list(module.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import) and any(
                    (dotted_name(alias.name) or "").split(".")[0] == "torch" for alias in small.names
                ):
                    return True
                if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
                    if (dotted_name(small.module) or "").split(".")[0] == "torch":
                        return True
        elif isinstance(statement, (cst.If, cst.Try, cst.TryStar)):
            for part in (statement, *getattr(statement, "handlers", ()), statement.orelse,
                         getattr(statement, "finalbody", None)):
                body = getattr(part, "body", None)
                if isinstance(body, cst.IndentedBlock):
                    statements.extend(body.body)
                elif isinstance(part, cst.If):
                    statements.append(part)
    return False


def _root_name(node: cst.BaseExpression) -> tuple[str | None, bool]:
    """The name an Attribute/Subscript/Call chain starts from, and whether an attribute was crossed."""
    crossed = False
    while True:
        if isinstance(node, cst.Attribute):
            crossed = True
            node = node.value
        elif isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            break
    return (node.value if isinstance(node, cst.Name) else None), crossed


def _self_state(target: cst.BaseExpression) -> bool:
    """``self.x``, ``self.x[i]``, ``self.a.b``: a target that writes to the module."""
    if not isinstance(target, (cst.Attribute, cst.Subscript)):
        return False
    node = target
    crossed = False
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        crossed = crossed or isinstance(node, cst.Attribute)
        node = node.value
    return crossed and isinstance(node, cst.Name) and node.value == "self"


def _state_attr(target: cst.BaseExpression) -> str:
    """The first attribute after ``self`` in a state target (``self.buf[0]`` → ``buf``)."""
    node = target
    attr = "state"
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            attr = node.attr.value
        node = node.value
    return attr


def _decorators(func: cst.FunctionDef) -> set[str]:
    names = set()
    for decorator in func.decorators:
        expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        name = dotted_name(expr)
        if name:
            names.add(name.rsplit(".", 1)[-1])
    return names


def _closure(roots: set[str], calls: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(calls.get(name, ()))
    return seen


def _short(node: cst.CSTNode, limit: int = 48) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class _ClassRecord:
    node: cst.ClassDef
    is_module: bool
    methods: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)
    pending: list[tuple[cst.FunctionDef, cst.CSTNode, str, Fix | None]] = field(default_factory=list)


class _DeploymentRule(Rule):
    """Shared bookkeeping: where we are, whether the code is traced, deferred findings.

    ``scope`` says where findings are kept: ``"forward"`` (forward code of modules),
    ``"runtime"`` (functions, except construction-time methods) or ``"anywhere"``.
    Findings inside a class are held until the class ends, when the methods ``forward``
    reaches (or the construction-only ones) are known from the ``self.<m>(...)`` calls
    collected on the way: no method body is walked twice.
    """

    scope: ClassVar[str] = "runtime"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._torch = False
        self._scopes: list[cst.CSTNode] = []  # ClassDef / FunctionDef, outermost first
        self._classes: list[_ClassRecord] = []
        self._module_names: set[str] = set()
        self._untraced_nodes: set[cst.CSTNode] = set()
        self._untraced = 0
        self._reserved = 0
        self._shadows: list[set[str]] = []

    # --- file and scopes --------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._torch = _imports_torch(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value.startswith("_Trt"):
            self._reserved += 1
        record = _ClassRecord(node, self._is_module_class(node))
        if record.is_module:
            self._module_names.add(node.name.value)
        self._classes.append(record)
        self._scopes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()
        record = self._classes.pop()
        if original_node.name.value.startswith("_Trt"):
            self._reserved -= 1
        if not record.pending:
            return
        if self.scope == "forward":
            keep = _closure({"forward"} & set(record.methods), record.calls) if record.is_module else set()
        else:
            build_roots = {
                name for name, defs in record.methods.items()
                if (name.startswith("__") and name.endswith("__") and name != "__call__")
                or any("classmethod" in _decorators(d) for d in defs)
            }
            at_build = _closure(build_roots, record.calls)
            at_run = _closure(set(record.methods) - at_build, record.calls)
            keep = set(record.methods) - (at_build - at_run)
        for method, node, message, fix in record.pending:
            if method.name.value in keep:
                self.report(node, message, fix)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value.startswith("_trt_"):
            self._reserved += 1
        if self._scopes and isinstance(self._scopes[-1], cst.ClassDef) and self._classes:
            self._classes[-1].methods.setdefault(node.name.value, []).append(node)
        self._scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()
        if original_node.name.value.startswith("_trt_"):
            self._reserved -= 1

    def _is_module_class(self, node: cst.ClassDef) -> bool:
        for base in node.bases:
            if base.keyword is not None:
                continue
            expr = base.value
            for qualified in self.context.qualified_names(expr):
                if qualified.startswith("torch.nn.") and not qualified.startswith(
                    ("torch.nn.functional", "torch.nn.parameter", "torch.nn.Parameter", "torch.nn.init",
                     "torch.nn.utils")
                ):
                    return True
            dotted = dotted_name(expr)
            if dotted and (dotted.rsplit(".", 1)[-1].endswith("Module") or dotted in self._module_names):
                return True
        return False

    def current_method(self) -> tuple[_ClassRecord, cst.FunctionDef] | None:
        """The innermost class and its method we are in (also inside nested functions)."""
        for index in range(len(self._scopes) - 1, -1, -1):
            if isinstance(self._scopes[index], cst.ClassDef):
                if index + 1 < len(self._scopes):
                    return self._classes[-1], self._scopes[index + 1]  # type: ignore[return-value]
                return None
        return None

    # --- code a traced export does not run ------------------------------------
    def visit_If(self, node: cst.If) -> None:
        if node in self._untraced_nodes:
            self._untraced += 1
        value = self._value_when_exporting(node.test)
        if value is False:
            self._untraced_nodes.add(node.body)
        elif value is True and node.orelse is not None:
            self._untraced_nodes.add(node.orelse)

    def leave_If(self, original_node: cst.If) -> None:
        if original_node in self._untraced_nodes:
            self._untraced -= 1

    def _enter_suite(self, node: cst.CSTNode) -> None:
        if node in self._untraced_nodes:
            self._untraced += 1

    def _leave_suite(self, node: cst.CSTNode) -> None:
        if node in self._untraced_nodes:
            self._untraced -= 1

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_suite(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_suite(original_node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_suite(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_suite(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._enter_suite(node)

    def leave_Else(self, original_node: cst.Else) -> None:
        self._leave_suite(original_node)

    def _value_when_exporting(self, test: cst.BaseExpression) -> bool | None:
        """What ``test`` evaluates to during ``torch.onnx.export`` (eval mode, tracing), if known."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._value_when_exporting(test.expression)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            left = self._value_when_exporting(test.left)
            right = self._value_when_exporting(test.right)
            if isinstance(test.operator, cst.And):
                return False if False in (left, right) else (True if left is True and right is True else None)
            return True if True in (left, right) else (False if left is False and right is False else None)
        if isinstance(test, cst.Attribute) and test.attr.value == "training":
            return False if isinstance(test.value, cst.Name) and test.value.value == "self" else None
        if isinstance(test, cst.Call) and not test.args:
            name = self.context.refers_to(
                test.func, "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export",
                "torch._C._get_tracing_state",
            )
            if name == "torch.jit.is_scripting":
                return False
            if name is not None:
                return True
        return None

    # --- names bound by lambdas and comprehensions ------------------------------
    def _push_shadow(self, names: set[str]) -> None:
        self._shadows.append(names)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        self._shadows.append(names)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._shadows.pop()

    def _visit_comp(self, node: cst.CSTNode) -> None:
        names: set[str] = set()
        comp = getattr(node, "for_in", None)
        while comp is not None:
            names.update(bound_names(comp.target))
            comp = comp.inner_for_in
        self._shadows.append(names)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._visit_comp(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._shadows.pop()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._visit_comp(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._shadows.pop()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._visit_comp(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._shadows.pop()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._visit_comp(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._shadows.pop()

    def shadowed(self, name: str) -> bool:
        return any(name in names for names in self._shadows)

    # --- calls and findings ----------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.scope != "anywhere" and self._classes and not self._untraced:
            # A method called only where the export does not go (`if self.training:`) is not reached.
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                where = self.current_method()
                if where is not None:
                    where[0].calls.setdefault(where[1].name.value, set()).add(func.attr.value)
        self.check_call(node)

    def check_call(self, node: cst.Call) -> None:
        """Rules that look at calls override this (``visit_Call`` keeps the call graph)."""

    def tensor_method(self, node: cst.Call, *names: str) -> str | None:
        """``<receiver>.<name>(...)`` for one of ``names`` on a receiver that may be a tensor."""
        if not self._torch:
            return None
        parts = method_call(node)
        if parts is None or parts[1] not in names:
            return None
        receiver = parts[0]
        if self.context.qualified_names(receiver):
            return None  # np.nonzero(a), torch.distributions...: a module's function, not a method
        return parts[1]

    def active(self) -> bool:
        return not self._untraced and not self._reserved

    def found(self, node: cst.CSTNode, message: str, fix: Fix | None = None, *, scope: str | None = None) -> None:
        """Report now, or hold the finding until the class shows whether its method counts."""
        if not self.active():
            return
        scope = scope or self.scope
        if scope == "anywhere":
            self.report(node, message, fix)
            return
        where = self.current_method()
        if where is not None:
            where[0].pending.append((where[1], node, message, fix))
        elif scope == "runtime" and any(isinstance(s, cst.FunctionDef) for s in self._scopes):
            self.report(node, message, fix)


def _is_tensor_annotation(rule: Rule, annotation: cst.Annotation | None) -> bool:
    if annotation is None:
        return False
    return rule.context.refers_to(annotation.annotation, "torch.Tensor") is not None


# --- TRT701 ------------------------------------------------------------------------

#: dtype → (what it is, what to do).
_DTYPES: dict[str, tuple[str, str]] = {
    "torch.float64": ("float64", "float64"),
    "torch.double": ("float64", "float64"),
    "torch.int16": ("int16", "int16"),
    "torch.short": ("int16", "int16"),
    "torch.uint8": ("uint8", "uint8"),
}
_LEGACY_TYPES = {
    "torch.DoubleTensor": "float64", "torch.cuda.DoubleTensor": "float64",
    "torch.ShortTensor": "int16", "torch.cuda.ShortTensor": "int16",
    "torch.ByteTensor": "uint8", "torch.cuda.ByteTensor": "uint8",
}
_CAST_METHODS = {"double": "float64", "short": "int16", "byte": "uint8"}
_DTYPE_ADVICE = {
    "float64": ("TensorRT has no float64 tensors, and casting to float32 loses what float64 was for "
                "(float32 values near 1.5e9, Unix time in seconds, are 128 apart): subtract a reference "
                "(the first frame's timestamp) before casting to float32, or do this arithmetic outside "
                "the exported graph"),
    "int16": "TensorRT has no int16 tensors: use int32",
    "uint8": ("TensorRT takes uint8 only at a Cast (and quantization layers): use int32 for numbers, "
              "`.bool()`/`torch.bool` for masks"),
}


class UnsupportedDtype(_DeploymentRule):
    info = RuleInfo(
        id="TRT701",
        name="unsupported-dtype",
        summary="float64, int16 or uint8 tensors created or cast to in run-time code: TensorRT lacks them",
        doc="""\
What it finds: tensors of a dtype TensorRT does not have, made in run-time code (methods of
modules and other classes except construction-time ones, and plain functions):
`dtype=torch.float64` / `torch.double` / `torch.int16` / `torch.short` / `torch.uint8` passed to
any call, those dtypes as a positional argument of `.to(...)`, `.type(...)` or `.view(...)`,
`.double()`, `.short()`, `.byte()`, and the legacy `torch.DoubleTensor(...)`-style
constructors. The dtype names go through the file's imports: `np.float64` is NumPy's and is
not reported, nor is a comparison such as `x.dtype == torch.uint8`, nor `torch.finfo(...)`.

Why it hurts: the TensorRT ONNX parser has no float64 or int16 tensors (no operator in its
support table lists them) and takes uint8 only at a Cast and in quantization layers. An
intermediate of such a dtype makes the engine build fail or, where a tool casts it down
silently, changes the numbers. NumPy float64 arrays fed to `torch.from_numpy` or
`torch.as_tensor` also become float64 tensors; those cannot be seen by name and are not
reported.

What to do (not rewritten automatically):
- float64: casting to float32 is not a neutral change: float64 is usually there for
  precision. Absolute timestamps around 1.5e9 s have a float32 spacing of 128 s, so the
  frame-to-frame differences a temporal model needs vanish. Subtract a reference time
  (e.g. the first frame's timestamp, in float64, outside the graph) and pass the small
  offsets as float32, or keep the computation outside the exported graph.
- int16: use int32.
- uint8: for masks use `.bool()` / `torch.bool` (`.byte()` masks are a pre-1.2 PyTorch idiom;
  indexing with them is deprecated); for numbers use int32. uint8 images should be converted
  to float before they enter the model.

Fix safety: none (detect only): which replacement dtype keeps the meaning depends on the
values. Applies to every TensorRT version.""",
        fix=Safety.NONE,
        examples=(
            Example("def age(stamps):\n    return stamps.to(torch.float64) - stamps[0].double()\n"),
            Example("def empty_mask(n):\n    return torch.zeros(n, dtype=torch.uint8)\n"),
            Example("def keep(scores):\n    return (scores > 0.5).byte()\n"),
        ),
        references=(_OPERATORS, "https://pytorch.org/docs/stable/tensor_attributes.html#torch-dtype"),
    )

    def _dtype_of(self, expr: cst.BaseExpression) -> str | None:
        name = self.context.refers_to(expr, *_DTYPES, *_LEGACY_TYPES)
        if name is None:
            return None
        return _DTYPES[name][0] if name in _DTYPES else _LEGACY_TYPES[name]

    def _flag(self, node: cst.CSTNode, dtype: str, what: str) -> None:
        advice = _DTYPE_ADVICE[dtype]
        if what == ".byte()":
            advice = "TensorRT takes uint8 only at a Cast; for a mask use `.bool()`, for numbers int32"
        self.found(node, f"`{what}` makes a {dtype} tensor: {advice}")

    def check_call(self, node: cst.Call) -> None:
        if self.context.refers_to(node.func, "torch.finfo", "torch.iinfo", "torch.set_default_dtype"):
            return
        legacy = self.context.refers_to(node.func, *_LEGACY_TYPES)
        if legacy is not None:
            self._flag(node, _LEGACY_TYPES[legacy], legacy.rsplit(".", 1)[-1] + "(...)")
            return
        dtype_arg = argument(node, None, "dtype")
        if dtype_arg is not None:
            dtype = self._dtype_of(dtype_arg.value)
            if dtype is not None:
                self._flag(node, dtype, f"dtype={code_of(dtype_arg.value)}")
                return
        method = self.tensor_method(node, "to", "type", "view", *_CAST_METHODS)
        if method in _CAST_METHODS:
            if not node.args:
                self._flag(node, _CAST_METHODS[method], f".{method}()")
            return
        if method is not None:
            for arg in node.args:
                if arg.keyword is None and not arg.star:
                    dtype = self._dtype_of(arg.value)
                    if dtype is not None:
                        self._flag(node, dtype, f".{method}({code_of(arg.value)})")
                        return


# --- TRT702 ------------------------------------------------------------------------


class TensorToPython(_DeploymentRule):
    scope = "forward"
    info = RuleInfo(
        id="TRT702",
        name="tensor-to-python",
        summary="`.item()`, `.tolist()`, `.numpy()`, `int(t)` in forward: the export bakes the value in",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses (`forward` and the methods it calls):
`t.item()`, `t.tolist()`, `t.numpy()` (except on attributes of `self`: parameters and
buffers are constants of the export anyway), and `int(t)`, `float(t)`, `bool(t)`,
`complex(t)` where `t` is evidently a tensor: a parameter of `forward` (not annotated as a
non-tensor type, without a number or string default), a parameter annotated `Tensor`, or
a local assigned from a torch call, a tensor method, indexing or arithmetic on one of
those. `int(x.shape[0])`, `int(len(xs))` and `float(self.scale)` are not reported.

Why it hurts: tracing records tensor operations only. A Python number taken out of a tensor
is a constant to the tracer (PyTorch warns with a `TracerWarning`, easy to miss in a long
log): the exported graph repeats the example input's value for every other input and gives
silently wrong results. `.numpy()` leaves the graph the same way.

What to do: keep the value a tensor (`t.sum()` instead of `t.sum().item()`, `t.clamp(min=1)`
instead of `max(1, int(t))`, broadcasting instead of a Python loop bound), or compute the
number outside the model and pass it in as an input.

Fix safety: none (detect only). Code under `if self.training:` or
`if not torch.jit.is_tracing():` is not reported: the export does not run it. Applies to
every TensorRT version.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, logits):\n"
                "        scale = logits.abs().max().item()\n"
                "        return logits / scale\n"
            ),
            Example(
                "class Sampler(nn.Module):\n"
                "    def forward(self, x, num):\n"
                "        k = int(num)\n"
                "        return x[:, :k]\n"
            ),
        ),
        references=(_AVOIDING_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.Tensor.item.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._tensors: list[set[str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        names: set[str] = set()
        where = self.current_method()
        in_forward = (
            where is not None and where[1] is node and where[0].is_module and node.name.value == "forward"
        )
        params = node.params
        listed = [*params.posonly_params, *params.params]
        if where is not None and where[1] is node and listed and "staticmethod" not in _decorators(node):
            listed = listed[1:]
        for param in (*listed, *params.kwonly_params):
            if _is_tensor_annotation(self, param.annotation):
                names.add(param.name.value)
            elif in_forward and param.annotation is None and not _literal_default(param):
                names.add(param.name.value)
        self._tensors.append(names)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._tensors.pop()
        super().leave_FunctionDef(original_node)

    def _is_tensor(self, expr: cst.BaseExpression) -> bool:
        if not self._tensors:
            return False
        if isinstance(expr, cst.Name):
            return expr.value in self._tensors[-1] and not self.shadowed(expr.value)
        if isinstance(expr, cst.Call):
            torch_names = [q for q in self.context.qualified_names(expr.func) if q.startswith("torch.")]
            if torch_names:
                name = torch_names[0]
                return name not in _NON_TENSOR_TORCH and (
                    name.startswith("torch.nn.functional.") or not name.startswith(_NON_TENSOR_TORCH_PREFIXES)
                )
            parts = method_call(expr)
            return parts is not None and parts[1] not in _STATIC_METHODS and self._is_tensor(parts[0])
        if isinstance(expr, cst.Subscript):
            return self._is_tensor(expr.value)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in ("T", "mT", "data") and self._is_tensor(expr.value)
        if isinstance(expr, cst.BinaryOperation):
            return self._is_tensor(expr.left) or self._is_tensor(expr.right)
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self._is_tensor(expr.expression)
        return False

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._tensors:
            return
        tensor = self._is_tensor(original_node.value)
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                (self._tensors[-1].add if tensor else self._tensors[-1].discard)(target.target.value)
            else:
                for name in bound_names(target.target):
                    self._tensors[-1].discard(name)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if self._tensors and isinstance(original_node.target, cst.Name):
            name = original_node.target.value
            value = original_node.value
            if _is_tensor_annotation(self, original_node.annotation) or (value is not None and self._is_tensor(value)):
                self._tensors[-1].add(name)
            else:
                self._tensors[-1].discard(name)

    def visit_For(self, node: cst.For) -> None:
        if self._tensors:
            for name in bound_names(node.target):
                self._tensors[-1].discard(name)

    def check_call(self, node: cst.Call) -> None:
        method = self.tensor_method(node, "item", "tolist", "numpy")
        if method is not None:
            root, _ = _root_name(method_call(node)[0])  # type: ignore[index]
            if root == "self" or (method != "numpy" and node.args):
                return
            self.found(node, f"`.{method}()` turns a tensor into a Python value: the traced export keeps the "
                       "example's value as a constant; keep it a tensor or pass it in as an input")
            return
        func = node.func
        if (
            isinstance(func, cst.Name) and func.value in _CONVERSIONS and len(node.args) == 1
            and not has_star_args(node) and node.args[0].keyword is None
            and not self.context.qualified_names(func) and self._is_tensor(node.args[0].value)
        ):
            self.found(node, f"`{_short(node)}` reads a tensor value into Python: the traced export keeps the "
                       "example's value as a constant; keep it a tensor or pass it in as an input")


def _literal_default(param: cst.Param) -> bool:
    default = param.default
    if default is None:
        return False
    if isinstance(default, cst.UnaryOperation):
        default = default.expression
    if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Tuple,
                            cst.List, cst.Dict)):
        return True
    return isinstance(default, cst.Name) and default.value in ("True", "False")


# --- TRT703 ------------------------------------------------------------------------


class StateInForward(_DeploymentRule):
    scope = "forward"
    info = RuleInfo(
        id="TRT703",
        name="state-in-forward",
        summary="forward writes to `self`: the exported graph keeps no state between calls",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses (`forward` and the methods it calls
as `self.<m>(...)`): assignments and augmented assignments to attributes of `self`
(`self.count += 1`, `self.prev = x`, `self.buf[i] = v`, `self.a.b = v`), `del self.x`,
in-place tensor methods on them (`self.count.add_(1)`, `self.memory.copy_(x)`), container
mutations (`self.frames.append(x)`, `self.cache.pop(k)`), `setattr(self, ...)` and
`self.register_buffer(...)`. Framework attributes such as `self.training` are reported too:
assigning them in forward is state all the same.

Which classes are modules is decided from their bases (see the family's notes): `nn.*`
bases, base names ending in `Module`, and module classes of the same file.

Why it hurts: an ONNX graph, and the TensorRT engine built from it, is a pure function of its
inputs. A traced export runs forward once: the update happens on the Python object during
tracing, and the graph keeps the value the attribute had then as a constant (or an
initializer). Every later inference sees that one frame's state; a frame counter, a memory
bank or the previous frame's features never advance.

What to do: make the state explicit. Pass it in as an input and return the updated value
(`def forward(self, x, count): ...; return y, count + 1`); the caller keeps it between frames
(outside the engine) and feeds it back on the next call.

Fix safety: none (detect only): the signature change reaches every caller. Updates under
`if self.training:` (such as running statistics) are not reported: the export runs in eval
mode. Applies to every TensorRT version.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Temporal(nn.Module):\n"
                "    def forward(self, x):\n"
                "        self.frame_idx += 1\n"
                "        return x * self.frame_idx\n"
            ),
            Example(
                "class Memory(nn.Module):\n"
                "    def forward(self, feats):\n"
                "        out = feats + self.prev\n"
                "        self.prev = feats.detach()\n"
                "        return out\n"
            ),
            Example(
                "class Counter(nn.Module):\n"
                "    def forward(self, x):\n"
                "        self.seen.add_(x.shape[0])\n"
                "        return x\n"
            ),
        ),
        references=(_TORCHSCRIPT, "https://pytorch.org/docs/stable/generated/torch.nn.Module.html"),
    )

    def _flag(self, node: cst.CSTNode, target: cst.BaseExpression, what: str) -> None:
        attr = _state_attr(target)
        self.found(node, f"{what} changes module state in forward: the exported graph keeps `{attr}` as a "
                   f"constant and never updates it; pass `{attr}` in as an input and return its new value")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for element in _target_elements(target.target):
                if _self_state(element):
                    self._flag(element, element, f"`{_short(element)} = ...`")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and _self_state(node.target):
            self._flag(node.target, node.target, f"`{_short(node.target)} = ...`")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _self_state(node.target):
            op = code_of(node.operator).strip()
            self._flag(node, node.target, f"`{_short(node.target)} {op} ...`")

    def visit_Del(self, node: cst.Del) -> None:
        for element in _target_elements(node.target):
            if _self_state(element):
                self._flag(element, element, f"`del {_short(element)}`")

    def check_call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("setattr", "delattr") and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Name) and first.value == "self" and not self.context.qualified_names(func):
                self.found(node, f"`{func.value}(self, ...)` changes module state in forward: the exported graph "
                           "keeps no state; pass the value in as an input and return its new value")
            return
        parts = method_call(node)
        if parts is None:
            return
        receiver, name = parts
        if isinstance(receiver, cst.Name) and receiver.value == "self" and name in (
            "register_buffer", "register_parameter", "register_module", "add_module"
        ):
            self.found(node, f"`self.{name}(...)` in forward changes module state: the exported graph keeps "
                       "no state; build it in __init__, or pass the value in as an input")
            return
        in_place = name.endswith("_") and not name.startswith("_")
        if (in_place or name in _CONTAINER_MUTATORS) and _self_state(receiver):
            self._flag(node, receiver, f"`{_short(receiver)}.{name}(...)`")


def _target_elements(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        found: list[cst.BaseExpression] = []
        for element in target.elements:
            found.extend(_target_elements(element.value))
        return found
    if isinstance(target, cst.StarredElement):
        return _target_elements(target.value)
    return [target]


# --- TRT704 ------------------------------------------------------------------------


@dataclass
class _LenFrame:
    function: cst.FunctionDef
    tensor_params: set[str]
    forward_params: set[str]
    #: name → whether every rebinding keeps it a tensor
    rebound: dict[str, bool] = field(default_factory=dict)
    candidates: list[tuple[cst.Call, str, bool]] = field(default_factory=list)  # call, name, inside try


class LenOfTensor(_DeploymentRule):
    scope = "anywhere"
    info = RuleInfo(
        id="TRT704",
        name="len-of-tensor",
        summary="`len(x)` of a tensor is traced as a constant; `x.shape[0]` stays symbolic",
        doc="""\
What it finds: `len(x)` where `x` is a parameter annotated `torch.Tensor` (rewritten), and
`len(x)` of an unannotated parameter of a module's `forward` (reported only).

Why it hurts: the tracer sees `len(x)` as a Python int, so the exported graph carries the
example's first dimension as a constant: exported with a dynamic batch axis, a Reshape or an
`arange` built from it is wrong, or fails, for every other batch size. `x.shape[0]` is
recorded as `Shape` → `Gather` and follows the input.

The rewrite: `len(x)` → `x.shape[0]`.

Fix safety: safe, given the annotation. For a tensor, `len(x)` is defined as its first
dimension, and the two agree on every shape, empty tensors included. One difference: on a
0-d tensor `len(x)` raises `TypeError` and `x.shape[0]` raises `IndexError`; both fail, so
`len` calls inside a `try` statement are reported without a fix. The fix trusts the
`Tensor` annotation (Python does not enforce it) and is withheld when the parameter is
reassigned in the function by anything but `x = x.<tensor method>(...)`, `x = x[...]` or an
augmented assignment. Without an annotation `x` may be a list, a tuple or another
container with `__len__` (DESIGN §8.5), so `len(x)` is only reported. Applies to every
TensorRT version.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def flatten_rois(rois: torch.Tensor):\n    return rois.reshape(len(rois), -1)\n",
                "def flatten_rois(rois: torch.Tensor):\n    return rois.reshape(rois.shape[0], -1)\n",
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        x = x.flatten(1)\n"
                "        return torch.arange(len(x))[:, None] + x\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        x = x.flatten(1)\n"
                "        return torch.arange(x.shape[0])[:, None] + x\n",
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, boxes):\n"
                "        return boxes.new_zeros(len(boxes))\n"
            ),
        ),
        references=(_AVOIDING_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.Tensor.size.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._frames: list[_LenFrame] = []
        self._try = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # A nested def binds its name in the enclosing function.
        self._rebind(node.name.value, False)
        super().visit_FunctionDef(node)
        where = self.current_method()
        is_method = where is not None and where[1] is node
        params = node.params
        listed = [*params.posonly_params, *params.params]
        if is_method and listed and "staticmethod" not in _decorators(node):
            listed = listed[1:]
        listed += list(params.kwonly_params)
        tensors = {p.name.value for p in listed if _is_tensor_annotation(self, p.annotation)}
        forward = set()
        if is_method and where[0].is_module and node.name.value == "forward":  # type: ignore[index]
            forward = {p.name.value for p in listed if p.annotation is None and not _literal_default(p)}
        self._frames.append(_LenFrame(node, tensors, forward))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        frame = self._frames.pop()
        super().leave_FunctionDef(original_node)
        for call, name, in_try in frame.candidates:
            if name in frame.tensor_params:
                keeps = frame.rebound.get(name, True)
                if keeps and not in_try:
                    fix = Fix({call: _shape0(call.args[0].value)})
                    self.report(call, f"len({name}) is traced as a constant; `{name}.shape[0]` follows the input",
                                fix)
                else:
                    why = "it is reassigned in this function" if not keeps else "it is inside a `try`"
                    self.report(call, f"len({name}) is traced as a constant; use `{name}.shape[0]` "
                                f"(not rewritten: {why})")
            elif name in frame.forward_params:
                self.report(call, f"len({name}) is traced as a constant if `{name}` is a tensor; use "
                            f"`{name}.shape[0]` (not rewritten: `{name}` is not annotated as a Tensor)")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._rebind(node.name.value, False)
        super().visit_ClassDef(node)

    def visit_Try(self, node: cst.Try) -> None:
        self._try += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        self._try -= 1

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._try += 1

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self._try -= 1

    def _rebind(self, name: str, keeps_tensor: bool) -> None:
        if self._frames and not self.shadowed(name):
            frame = self._frames[-1]
            frame.rebound[name] = frame.rebound.get(name, True) and keeps_tensor

    def _rebind_target(self, target: cst.BaseExpression, keeps_tensor: bool = False) -> None:
        for name in bound_names(target):
            self._rebind(name, keeps_tensor)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._rebind(target.target.value, _keeps_tensor(target.target.value, node.value))
            else:
                self._rebind_target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._rebind(node.target.value, node.value is None or _keeps_tensor(node.target.value, node.value))

    def visit_For(self, node: cst.For) -> None:
        self._rebind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._rebind_target(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name) and self._frames:
            self._frames[-1].rebound[node.target.value] = False  # binds in the function even in a comprehension

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._rebind_target(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._rebind_target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self._rebind(item.name.value, False)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._rebind(item.name.value, False)
        # The enclosing function's variable can change from here too.
        for frame in self._frames[:-1]:
            for item in node.names:
                frame.rebound[item.name.value] = False

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self._rebind(name.value, False)
        elif isinstance(name, cst.Attribute):
            root, _ = _root_name(name)
            if root:
                self._rebind(root, False)

    def check_call(self, node: cst.Call) -> None:
        if not self._frames or not self.active():
            return
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "len") or self.context.qualified_names(func):
            return
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        arg = node.args[0].value
        if not isinstance(arg, cst.Name) or self.shadowed(arg.value):
            return
        self._frames[-1].candidates.append((node, arg.value, self._try > 0))


def _keeps_tensor(name: str, value: cst.BaseExpression) -> bool:
    """``x = x.view(...)``, ``x = x[...]``: a tensor ``x`` stays a tensor."""
    if isinstance(value, cst.Subscript):
        return isinstance(value.value, cst.Name) and value.value.value == name
    if isinstance(value, cst.Call):
        parts = method_call(value)
        if parts is None or parts[1] not in _TENSOR_METHODS:
            return False
        receiver = parts[0]
        while isinstance(receiver, cst.Call) and method_call(receiver) and method_call(receiver)[1] in _TENSOR_METHODS:
            receiver = method_call(receiver)[0]  # type: ignore[index]
        return isinstance(receiver, cst.Name) and receiver.value == name
    return False


def _shape0(tensor: cst.Name) -> cst.Subscript:
    return cst.Subscript(
        value=cst.Attribute(value=tensor, attr=cst.Name("shape")),
        slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer("0")))],
    )


# --- TRT705 ------------------------------------------------------------------------

_NONZERO_FUNCS = ("torch.nonzero", "torch.masked_select", "torch.argwhere")
_NONZERO_SINCE: Version = (8, 5)


class NonZero(_DeploymentRule):
    info = RuleInfo(
        id="TRT705",
        name="nonzero",
        summary="`nonzero` / `masked_select` / `argwhere`: the output size depends on the data",
        doc="""\
What it finds: `torch.nonzero(x)`, `x.nonzero()`, `torch.masked_select(x, m)`,
`x.masked_select(m)`, `torch.argwhere(x)` and `x.argwhere()` in run-time code. The
one-argument `torch.where(c)` is the same operation and is reported by TRT103.

Why it hurts: the number of selected elements depends on the values, so the output shape is
data-dependent. `nonzero` and `masked_select` export as ONNX `NonZero` (`masked_select` adds
a GatherND); TensorRT before 8.5 has no NonZero at all, and from 8.5 on it builds a
data-dependent shape: every later layer works on a size known only at run time, which
prevents shape-based optimisations and, with the output size unknown, complicates buffer
allocation. `torch.argwhere` does not export with the TorchScript exporter at all.

What to do: keep a fixed size. Use the mask as a multiplier (`scores * keep`), select a fixed
number of elements with `torch.topk(scores, k)` (padding with a score that sorts last), or
sort by the mask and keep a fixed-size prefix. Where the variable-size result is needed,
take it outside the engine, after the network.

Fix safety: none (detect only): the fixed-size alternatives change the output's shape, which
the code after it must expect.""",
        fix=Safety.NONE,
        examples=(
            Example("def keep_boxes(boxes, scores):\n    return boxes[torch.nonzero(scores > 0.3)[:, 0]]\n"),
            Example("def positives(logits):\n    return logits.masked_select(logits > 0)\n"),
            Example("def active(mask):\n    return mask.nonzero(as_tuple=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nonzero.html",
            "https://pytorch.org/docs/stable/generated/torch.masked_select.html",
            _OPERATORS,
        ),
    )

    def check_call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_NONZERO_FUNCS)
        if name is not None:
            name = name.rsplit(".", 1)[-1]
        else:
            name = self.tensor_method(node, "nonzero", "masked_select", "argwhere")
        if name is None:
            return
        if name == "argwhere":
            why = "`argwhere` does not export with the TorchScript exporter (no symbolic for aten::argwhere)"
        elif self.context.target < _NONZERO_SINCE:
            why = f"it exports as ONNX NonZero, which TensorRT {format_version(self.context.target)} lacks (added in 8.5)"
        else:
            why = "it exports as ONNX NonZero, whose output shape depends on the data"
        self.found(node, f"`{name}` selects a data-dependent number of elements: {why}; keep a fixed size "
                   "(mask multiply, top-k with a fixed k)")


# --- TRT706 ------------------------------------------------------------------------


@dataclass(frozen=True)
class UnsupportedOp:
    """One row of TRT706's table."""

    #: Qualified names of the functions / module classes.
    names: tuple[str, ...]
    #: The ONNX op the TorchScript exporter emits (None: it cannot export the call at all).
    onnx_op: str | None
    #: What goes wrong, in a few words (the finding's message).
    message: str
    #: Only a problem on TensorRT older than this (None: every version in the table).
    needed_before: Version | None = None
    #: Opset the exporter needs before it emits ``onnx_op`` (it fails below).
    opset: int = 17


_FFT = tuple(f"torch.fft.{n}" for n in (
    "fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
    "hfft", "ihfft",
))
_NO_EXPORT = "the TorchScript exporter has no ONNX symbolic for it"

#: Each row is backed by an export in tests/test_deployment.py (opset 17, dynamo=False) and by
#: TensorRT's operator table (trtcodemod/trt/onnx_ops.csv).
UNSUPPORTED_OPS: tuple[UnsupportedOp, ...] = (
    UnsupportedOp(("torch.nn.functional.fold", "torch.nn.Fold", "torch.nn.modules.fold.Fold"), "Col2Im",
                  "exports only from opset 18, as ONNX Col2Im, which no TensorRT release parses", opset=18),
    UnsupportedOp(_FFT, None, f"{_NO_EXPORT} (aten::fft_*), and ONNX DFT is not parsed by any TensorRT release"),
    UnsupportedOp(("torch.stft",), "STFT",
                  "complex output does not export; with return_complex=False it exports as ONNX STFT, which "
                  "TensorRT parses only from 10.15 (window and frame step as initializers)"),
    UnsupportedOp(("torch.nn.functional.grid_sample",), "GridSample",
                  "exports as ONNX GridSample, which TensorRT parses from 8.5 (4-D input only)", needed_before=(8, 5)),
    UnsupportedOp(("torch.tril", "torch.triu"), "Trilu",
                  "exports as ONNX Trilu, which TensorRT parses from 8.5", needed_before=(8, 5)),
    UnsupportedOp(("torch.det", "torch.linalg.det", "torch.logdet"), "Det",
                  "exports as ONNX Det, which no TensorRT release parses"),
    UnsupportedOp(("torch.multinomial",), "Multinomial", "exports as ONNX Multinomial, which TensorRT does not parse"),
    UnsupportedOp(("torch.bernoulli",), "Bernoulli", "exports as ONNX Bernoulli, which TensorRT does not parse"),
    UnsupportedOp(("torch.nn.functional.max_unpool1d", "torch.nn.functional.max_unpool2d",
                   "torch.nn.functional.max_unpool3d", "torch.nn.MaxUnpool1d", "torch.nn.MaxUnpool2d",
                   "torch.nn.MaxUnpool3d"), None,
                  "the TorchScript exporter fails on it, and ONNX MaxUnpool is not parsed by TensorRT"),
    UnsupportedOp(("torch.nn.functional.affine_grid",), None,
                  "exports only from opset 20, as ONNX AffineGrid, which TensorRT does not parse"),
    UnsupportedOp(("torch.cumprod", "torch.cummax", "torch.cummin", "torch.logcumsumexp"), None, _NO_EXPORT),
    UnsupportedOp(("torch.searchsorted", "torch.histc", "torch.bincount"), None, _NO_EXPORT),
    UnsupportedOp(("torch.inverse", "torch.linalg.inv", "torch.linalg.pinv", "torch.linalg.solve",
                   "torch.slogdet", "torch.linalg.slogdet"), None, _NO_EXPORT),
    UnsupportedOp(("torch.erfinv", "torch.special.erfinv"), None, _NO_EXPORT),
    UnsupportedOp(("torch.median", "torch.nanmedian", "torch.kthvalue", "torch.mode"), None, _NO_EXPORT),
    UnsupportedOp(("torch.diag", "torch.renorm", "torch.unique_consecutive"), None, _NO_EXPORT),
)
_BY_NAME: dict[str, UnsupportedOp] = {name: row for row in UNSUPPORTED_OPS for name in row.names}


class UnsupportedOperator(_DeploymentRule):
    info = RuleInfo(
        id="TRT706",
        name="unsupported-op",
        summary="a torch function or module with no TensorRT path (fold, fft, det, grid_sample < 8.5...)",
        doc="""\
What it finds: calls of torch functions and module classes from a table, each backed by an
export with `torch.onnx.export(dynamo=False, opset_version=17)` and by TensorRT's ONNX
operator table: `F.fold` / `nn.Fold` (ONNX Col2Im, opset 18), `torch.fft.*` and `torch.stft`
(DFT / STFT), `torch.det` / `torch.linalg.det` / `torch.logdet` (Det), `torch.multinomial`,
`torch.bernoulli`, `F.max_unpool*` / `nn.MaxUnpool*`, `F.affine_grid`, and functions the
TorchScript exporter cannot export at all (`torch.cumprod`, `torch.searchsorted`,
`torch.histc`, `torch.linalg.inv`, `torch.erfinv`, `torch.median`, `torch.kthvalue`, ...).
For older targets also `F.grid_sample` and `torch.tril`/`torch.triu` (parsed from
TensorRT 8.5). Functions are reported in run-time code; module classes where they are
built (usually `__init__`).

Not listed, because they export to ops TensorRT parses: `F.unfold` (Gather/Pad/Reshape),
`torch.bucketize` (comparisons and a ReduceSum), `torch.cumsum`, `torch.einsum`,
`torch.roll`, `torch.cdist`. Tensor methods (`x.cumprod(1)`, `x.median()`) cannot be
resolved by name and are not matched.

Why it hurts: the export fails, or the ONNX file holds an op TensorRT's parser rejects, so
no engine can be built (or the layer falls back to a plugin you have to write).

What to do: compute it outside the network (pre/post-processing), precompute it when its
inputs are constant (an inverse of a fixed matrix in `__init__`), rewrite it with supported
ops (`cumprod` as `exp(cumsum(log(x)))` for positive inputs; `median` with `sort` and a fixed
index), or provide a TensorRT plugin.

Fix safety: none (detect only).""",
        fix=Safety.NONE,
        examples=(
            Example("def merge_patches(cols):\n    return F.fold(cols, (32, 32), kernel_size=4, stride=4)\n"),
            Example("def spectrum(x):\n    return torch.fft.rfft(x).abs()\n"),
            Example("def jacobian_scale(m):\n    return torch.linalg.det(m).abs()\n"),
        ),
        references=(_OPERATORS, _SUPPORTED_ATEN, "https://pytorch.org/docs/stable/generated/torch.nn.Fold.html"),
    )

    def check_call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_BY_NAME)
        if name is None:
            return
        row = _BY_NAME[name]
        if row.needed_before is not None and not self.context.target < row.needed_before:
            return
        short = name.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
        is_class = name.rsplit(".", 1)[-1][:1].isupper()
        self.found(node, f"`{short}` has no TensorRT path: {row.message}", scope="anywhere" if is_class else None)


# --- TRT707 ------------------------------------------------------------------------


class DistributionRsample(_DeploymentRule):
    scope = "forward"
    info = RuleInfo(
        id="TRT707",
        name="distribution-rsample",
        summary="`dist.rsample()` in forward: TensorRT rejects the graph; use the mean or mode at inference",
        doc="""\
What it finds: `.rsample(...)` calls in forward code of `nn.Module` subclasses (typically a
`torch.distributions` object built from predicted parameters: VAEs, stochastic policies).

Why it hurts: the reparameterised sample draws random noise during tracing; the export ends
up with the noise frozen as a constant or with random ops TensorRT does not build. The
cheatsheet this project follows reports TensorRT failing with "Network must have at least
one output" on such graphs.

What to do: at inference, use a deterministic statistic (`dist.mean`, `dist.mode`, or the
location parameter directly), for example under `if self.training:` (code there is not
reported), or draw the noise outside and pass it in as an input
(`loc + scale * eps`).

Fix safety: none (detect only): which statistic to use is a modelling choice.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Policy(nn.Module):\n"
                "    def forward(self, obs):\n"
                "        loc, log_std = self.net(obs).chunk(2, dim=-1)\n"
                "        dist = torch.distributions.Normal(loc, log_std.exp())\n"
                "        return dist.rsample()\n"
            ),
        ),
        references=("https://pytorch.org/docs/stable/distributions.html", _OPERATORS),
    )

    def check_call(self, node: cst.Call) -> None:
        if self.tensor_method(node, "rsample") is not None:
            self.found(node, "`rsample()` draws random noise in forward: TensorRT cannot build it (\"Network must "
                       "have at least one output\"); use the distribution's mean/mode for inference or pass "
                       "the noise in as an input")


RULES = (UnsupportedDtype, TensorToPython, StateInForward, LenOfTensor, NonZero, UnsupportedOperator,
         DistributionRsample)
