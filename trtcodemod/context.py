"""What a rule may know about the file being analysed.

One :class:`FileContext` is made per parse. The engine's :class:`ScopeTracker`
runs first in the batch of visitors and keeps the enclosing classes and functions
up to date, so every rule sees the same view without walking the tree itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from trtcodemod.names import ImportTable
from trtcodemod.rules import PendingFinding
from trtcodemod.versions import Version


@dataclass
class FileContext:
    """Per-file state shared by the rules of one pass."""

    path: str
    module: cst.Module
    target: Version
    unsafe: bool
    imports: ImportTable = field(default_factory=ImportTable)
    classes: list[cst.ClassDef] = field(default_factory=list)
    functions: list[cst.FunctionDef] = field(default_factory=list)
    #: Enclosing classes and functions in nesting order.
    scopes: list[cst.CSTNode] = field(default_factory=list)
    findings: list[PendingFinding] = field(default_factory=list)

    def add_finding(self, finding: PendingFinding) -> None:
        finding.scopes = tuple(self.scopes)
        self.findings.append(finding)

    # --- names -------------------------------------------------------------
    def qualified_names(self, node: cst.BaseExpression) -> tuple[str, ...]:
        return self.imports.resolve(node)

    def refers_to(self, node: cst.BaseExpression, *qualified: str) -> str | None:
        """Which of ``qualified`` the expression names, if any."""
        return self.imports.matches(node, qualified)

    def torch_name(self) -> str:
        """The module-level name bound to ``torch`` that generated code should use.

        Keeps the user's alias (``import torch as th`` → ``th``). When the file binds
        no such name, returns ``torch`` and the engine adds ``import torch``.
        """
        names = self.imports.local_names_for("torch")
        if "torch" in names:
            return "torch"
        return names[0] if names else "torch"

    def torch_attr(self, dotted: str) -> cst.BaseExpression:
        """An expression for ``torch.<dotted>`` using the file's own torch alias."""
        return cst.parse_expression(f"{self.torch_name()}.{dotted}")

    # --- where we are ------------------------------------------------------
    @property
    def function(self) -> cst.FunctionDef | None:
        return self.functions[-1] if self.functions else None

    @property
    def enclosing_class(self) -> cst.ClassDef | None:
        """The class whose method we are in (None in a plain or nested function)."""
        if not self.classes or not self.functions:
            return None
        return self.classes[-1] if len(self.functions) == self._method_depth() else None

    def _method_depth(self) -> int:
        # A method's FunctionDef sits directly inside the class body; the tracker
        # records at which function depth each class was entered.
        return self._class_function_depth[-1] + 1 if self._class_function_depth else -1

    _class_function_depth: list[int] = field(default_factory=list)


class ScopeTracker(cst.BatchableCSTVisitor):
    """Keeps :class:`FileContext`'s class/function stacks and nested imports current."""

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.context.classes.append(node)
        self.context.scopes.append(node)
        self.context._class_function_depth.append(len(self.context.functions))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.context.classes.pop()
        self.context.scopes.pop()
        self.context._class_function_depth.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.context.functions.append(node)
        self.context.scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.context.functions.pop()
        self.context.scopes.pop()

    def visit_Import(self, node: cst.Import) -> None:
        self.context.imports.add_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.context.imports.add_import(node)
