"""Where the deployment rules look: the code a traced export runs (shared by TRT701–TRT707).

The rules built on :class:`RuntimeScopeRule` (``dtypes``, ``python_values``, ``module_state``,
``dynamic_shapes``, ``unsupported_ops``) report constructs a traced export cannot carry into
TensorRT. Most have no sound automatic rewrite: the fix depends on what the code is for (a
float64 timestamp, a per-frame counter, a data-dependent box count).

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

This module defines no rule and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from trtcodemod.astutil import bound_names, decorator_names, method_call
from trtcodemod.names import dotted_name
from trtcodemod.rules import Fix, Rule


def _closure(roots: set[str], calls: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(calls.get(name, ()))
    return seen


@dataclass
class ClassRecord:
    node: cst.ClassDef
    is_module: bool
    methods: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)
    pending: list[tuple[cst.FunctionDef, cst.CSTNode, str, Fix | None]] = field(default_factory=list)


class RuntimeScopeRule(Rule):
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
        self._classes: list[ClassRecord] = []
        self._module_names: set[str] = set()
        self._untraced_nodes: set[cst.CSTNode] = set()
        self._untraced = 0
        self._reserved = 0
        self._shadows: list[set[str]] = []

    # --- file and scopes --------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._torch = self.context.imports.imports_module("torch")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value.startswith("_Trt"):
            self._reserved += 1
        record = ClassRecord(node, self._is_module_class(node))
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
                or any("classmethod" in decorator_names(d) for d in defs)
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

    def current_method(self) -> tuple[ClassRecord, cst.FunctionDef] | None:
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

    # A suite (block, one-line suite, ``else``) that a traced export skips, marked by visit_If.
    def visit_IndentedBlock(self, node: cst.CSTNode) -> None:
        if node in self._untraced_nodes:
            self._untraced += 1

    def leave_IndentedBlock(self, original_node: cst.CSTNode) -> None:
        if original_node in self._untraced_nodes:
            self._untraced -= 1

    visit_SimpleStatementSuite = visit_Else = visit_IndentedBlock
    leave_SimpleStatementSuite = leave_Else = leave_IndentedBlock

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
    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        self._shadows.append(names)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._shadows.pop()

    def visit_ListComp(self, node: cst.CSTNode) -> None:
        names: set[str] = set()
        comp = getattr(node, "for_in", None)
        while comp is not None:
            names.update(bound_names(comp.target))
            comp = comp.inner_for_in
        self._shadows.append(names)

    def leave_ListComp(self, original_node: cst.CSTNode) -> None:
        self._shadows.pop()

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp
    leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_ListComp

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
