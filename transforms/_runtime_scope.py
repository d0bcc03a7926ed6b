"""Where the deployment rules look: the code a traced export runs (shared by TRT701–TRT707).

The rules built on :class:`RuntimeScopeRule` (``dtypes``, ``python_values``, ``module_state``,
``dynamic_shapes``, ``unsupported_ops``) report constructs a traced export cannot carry into
TensorRT. Most have no sound automatic rewrite: the fix depends on what the code is for (a
float64 timestamp, a per-frame counter, a data-dependent box count).

Where the rules look (the same for every rule of this family):

- *forward code*: ``forward`` of an ``nn.Module`` subclass and the methods it calls as
  ``self.<name>(...)``, transitively, within the class (TRT702, TRT703, TRT707). A method
  the file installs as an object's forward (``m.forward = m.fuseforward`` in YOLOv5/YOLOv7's
  ``Model.fuse``, ``self.forward = self.forward_deploy``) is forward code too, in every
  module class of the file that defines it: once installed, calling the module runs it.
  So is a function of the file's top level installed as a module's forward, bound to it
  (``block.forward = patched_forward.__get__(block, Block)``, ``types.MethodType(fn, m)``,
  ``functools.partial(fn, m)``: showlab/DiffSim's patched diffusers blocks): its own body,
  not the functions it calls.
  A class counts as a module when one of its bases resolves through the file's imports
  to something in ``torch.nn`` (``nn.Module``, ``nn.Sequential``, ``nn.Conv2d``...), when
  a base's name ends in ``Module`` (``BaseModule``, ``LightningModule``), or when a base
  is a class of the same file already recognised as a module. A base imported from
  another file of the project under another name is not recognised: those classes are
  not analysed (missed findings, never false ones).
- *run-time code*: every function of the file except the methods that only run while
  the object is built (``__init__`` and other dunders, class methods, and the methods only
  they call) (TRT701, TRT705, TRT706 for functions). For a rule that reads the observed run
  (``ObservedFacts``), a construction method the observed export warned in (on its own
  statements' lines, not those of a function it defines) ran in a traced forward, and counts
  with the methods it calls: an object built anew by each call (facexlib's ``PriorBox``, whose
  ``__init__`` computes the feature-map sizes from the image size). Without facts (``apply``)
  nothing changes. A function a method defines and stores
  on the object (``self.compute_padding = compute_padding`` in ``__init__``, transformers'
  BiT) counts as a method of the attribute's name: it runs where ``self.<attr>(...)`` is called.
- nowhere in code that a traced export does not run: the body of ``if self.training:``
  (``torch.onnx.export`` puts the model in eval mode), ``if torch.jit.is_scripting():``,
  the ``else`` of ``if torch.jit.is_tracing():`` / ``if torch.onnx.is_in_onnx_export():``
  (and their negations), and what follows such an ``if`` whose body ends in ``return`` or
  ``raise`` in the same block (an ``else`` written as an early exit); nor in helper functions trtcodemod inserted (``_trt_*``).

Method calls on tensors (``x.nonzero()``, ``t.item()``) cannot be resolved by name:
they are matched by method name in files that import torch, except on receivers that
are imported names (``np.nonzero(a)`` is NumPy's).

This module defines no rule and is not registered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ClassVar, Sequence, Union

import libcst as cst

from trtcodemod.astutil import bound_names, decorator_names, method_call
from trtcodemod.module_files import is_module_subclass
from trtcodemod.names import dotted_name
from trtcodemod.providers import ObservedFacts, Provider
from trtcodemod.rules import Fix, Rule

if TYPE_CHECKING:
    from trtcodemod.context import FileContext


def _closure(roots: set[str], calls: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(calls.get(name, ()))
    return seen


#: A finding's message, or a function that makes it (code generation costs; most held
#: findings are dropped when their method turns out to run only at construction).
Message = Union[str, Callable[[], str]]


def _text(message: Message) -> str:
    return message() if callable(message) else message


@dataclass
class ClassRecord:
    node: cst.ClassDef
    is_module: bool
    methods: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)
    #: Names of methods the file installs as an object's ``forward`` (``m.forward = m.fuseforward``).
    installed_forwards: frozenset[str] = frozenset()
    _kept: dict[tuple[str, frozenset[str]], set[str]] = field(default_factory=dict, repr=False)

    def kept(self, scope: str, traced: frozenset[str] = frozenset()) -> set[str]:
        """The methods whose findings count for rules of ``scope`` (asked once the class is read).

        ``traced``: methods the observed export warned in, which ran in a traced forward whatever
        their name (facexlib's ``PriorBox.__init__``, an object built anew by each forward call).
        """
        found = self._kept.get((scope, traced))
        if found is None:
            if scope == "forward":
                # A method the export warned in ran in the traced forward, called by another object's forward
                # (flashdet's `predict` → `_get_anchors`, which a wrapper's forward calls).
                roots = ({"forward"} | self.installed_forwards | traced) & set(self.methods)
                found = _closure(roots, self.calls) if self.is_module else set()
            else:
                build_roots = {
                    name for name, defs in self.methods.items()
                    if (name.startswith("__") and name.endswith("__") and name != "__call__")
                    or any("classmethod" in decorator_names(d) for d in defs)
                }
                at_build = _closure(build_roots, self.calls)
                at_run = _closure((set(self.methods) - at_build) | traced, self.calls)
                found = set(self.methods) - (at_build - at_run)
            self._kept[(scope, traced)] = found
        return found


class RuntimeScope(Provider, cst.BatchableCSTVisitor):
    """Where the traversal is, for all the :class:`RuntimeScopeRule` rules of a file at once.

    A provider (``requires = (RuntimeScope,)``, then ``rule.provider(RuntimeScope)``): one per
    file, a visitor the engine runs before the
    rules, so when a rule's ``visit_*`` runs the node is already entered here, and when its
    ``leave_*`` runs the node is not yet left.
    """

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Whether the file imports torch (module-level imports).
        self.torch = False
        self.scopes: list[cst.CSTNode] = []  # ClassDef / FunctionDef, outermost first
        self.classes: list[ClassRecord] = []
        #: Per scope: the innermost class and its method the scope is in (None: not in a method).
        self._methods: list[tuple[ClassRecord, cst.FunctionDef] | None] = []
        self._module_names: set[str] = set()
        self._untraced_ids: set[int] = set()
        #: Nodes of a branch that runs only while tracing, under a test that asks for it
        #: (``int(c) if torch.jit.is_tracing() else c``): code written for the export.
        self._for_tracing: set[int] = set()
        #: Depth of code a traced export does not run, and of our own inserted helpers.
        self.untraced = 0
        self.reserved = 0
        self._shadows: list[tuple[cst.CSTNode, set[str]]] = []
        #: Methods the file installs as an object's forward (``m.forward = m.fuseforward``).
        self.installed_forwards: frozenset[str] = frozenset()
        #: Top-level functions the file binds to an object as its forward (``m.forward = fn.__get__(m, M)``).
        self.installed_functions: frozenset[str] = frozenset()

    # --- file and scopes --------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self.torch = self.context.imports.imports_module("torch")
        source = self.context.source
        if source is None or _FORWARD_WRITE.search(source):  # a walk of the module only where the text can hold one
            self.installed_forwards, bound = _installed_forwards(node)
            top_level = {s.name.value for s in node.body if type(s) is cst.FunctionDef}
            self.installed_functions = frozenset(bound & top_level)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value.startswith("_Trt"):
            self.reserved += 1
        record = ClassRecord(node, self._is_module_class(node), installed_forwards=self.installed_forwards)
        if record.is_module:
            self._module_names.add(node.name.value)
        self.classes.append(record)
        self.scopes.append(node)
        self._methods.append(None)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()
        self._methods.pop()
        self.classes.pop()
        if original_node.name.value.startswith("_Trt"):
            self.reserved -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value.startswith("_trt_"):
            self.reserved += 1
        if self.scopes and type(self.scopes[-1]) is cst.ClassDef and self.classes:
            self.classes[-1].methods.setdefault(node.name.value, []).append(node)
            self._methods.append((self.classes[-1], node))
        else:
            outer = self._methods[-1] if self._methods else None
            stored = _stored_on_self(outer[1], node.name.value) \
                if outer is not None and self.scopes and self.scopes[-1] is outer[1] else None
            if outer is not None and stored is not None:
                # A closure a method stores on the object (`self.compute_padding = compute_padding` in
                # transformers' BiT `DynamicPad2d.__init__`): it runs where `self.<attr>(...)` is called,
                # so it counts as a method of that name (a copy under it: not the method's own node).
                alias = node.with_changes(name=cst.Name(stored))
                outer[0].methods.setdefault(stored, []).append(alias)
                self._methods.append((outer[0], alias))
            else:
                self._methods.append(outer)
        self.scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self._methods.pop()
        if original_node.name.value.startswith("_trt_"):
            self.reserved -= 1

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
            if type(expr) is cst.Name and self._imported_module_class(expr.value):
                return True
        return False

    def _imported_module_class(self, name: str) -> bool:
        """A base class imported by name from another file of the user's code that derives from
        ``nn.Module`` (labml's ``AlibiMultiHeadAttention(MultiHeadAttention)``, whose base is in ``mha.py``)."""
        path = getattr(self.context, "path", None)
        if not path:
            return False
        return is_module_subclass(Path(path), name, self.context.source)

    def current_method(self) -> tuple[ClassRecord, cst.FunctionDef] | None:
        """The innermost class and its method we are in (also inside nested functions)."""
        return self._methods[-1] if self._methods else None

    def in_function(self) -> bool:
        return any(type(s) is cst.FunctionDef for s in self.scopes)

    def in_installed_function(self) -> bool:
        """Inside a top-level function the file binds to a module as its forward (and runs as forward code)."""
        return bool(self.scopes) and type(self.scopes[0]) is cst.FunctionDef \
            and self.scopes[0].name.value in self.installed_functions

    # --- code a traced export does not run ------------------------------------
    def visit_If(self, node: cst.If) -> None:
        if id(node) in self._untraced_ids:
            self.untraced += 1
        value = self.value_when_exporting(node.test)
        if value is False:
            self._untraced_ids.add(id(node.body))
        elif value is True and node.orelse is not None:
            self._untraced_ids.add(id(node.orelse))
        if value is True and self._asks_for_tracing(node.test):
            self._mark_for_tracing(node.body)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self.value_when_exporting(node.test) is True and self._asks_for_tracing(node.test):
            self._mark_for_tracing(node.body)

    def _asks_for_tracing(self, test: cst.BaseExpression) -> bool:
        """Does ``test`` call one of the checks that are true while tracing (not ``self.training``)?"""
        stack: list[cst.CSTNode] = [test]
        while stack:
            node = stack.pop()
            if type(node) is cst.Call and self.context.refers_to(node.func, *_TRACING_CALLS) is not None:
                return True
            stack.extend(node.children)
        return False

    def _mark_for_tracing(self, branch: cst.CSTNode) -> None:
        stack: list[cst.CSTNode] = [branch]
        while stack:
            node = stack.pop()
            self._for_tracing.add(id(node))
            stack.extend(node.children)

    def written_for_tracing(self, node: cst.CSTNode) -> bool:
        """Is ``node`` in a branch its author wrote for the trace (``if torch.jit.is_tracing():``)?"""
        return id(node) in self._for_tracing

    def leave_If(self, original_node: cst.If) -> None:
        if id(original_node) in self._untraced_ids:
            self.untraced -= 1

    # A suite (block, one-line suite, ``else``) that a traced export skips, marked by visit_If.
    def visit_IndentedBlock(self, node: cst.CSTNode) -> None:
        if id(node) in self._untraced_ids:
            self.untraced += 1
        if type(node) is cst.IndentedBlock:
            self._mark_after_tracing_exit(node.body)

    def leave_IndentedBlock(self, original_node: cst.CSTNode) -> None:
        if id(original_node) in self._untraced_ids:
            self.untraced -= 1

    visit_SimpleStatementSuite = visit_Else = visit_IndentedBlock
    leave_SimpleStatementSuite = leave_Else = leave_IndentedBlock

    def _mark_after_tracing_exit(self, statements: "Sequence[cst.BaseStatement]") -> None:
        """``if torchvision._is_tracing(): ...; return ...`` is an ``else`` written as an early exit:
        the statements after it in the same block run only when not tracing (torchvision's
        ``heatmaps_to_keypoints``, ``_onnx_paste_masks_in_image``)."""
        for index, statement in enumerate(statements):
            if type(statement) is cst.If and statement.orelse is None and _exits(statement.body) and \
                    self.value_when_exporting(statement.test) is True:
                self._untraced_ids.update(id(after) for after in statements[index + 1:])
                return

    # A statement after such an exit, marked by _mark_after_tracing_exit (an ``if`` is counted in visit_If).
    visit_SimpleStatementLine = visit_For = visit_While = visit_With = visit_Try = visit_TryStar = \
        visit_Match = visit_IndentedBlock
    leave_SimpleStatementLine = leave_For = leave_While = leave_With = leave_Try = leave_TryStar = \
        leave_Match = leave_IndentedBlock

    def value_when_exporting(self, test: cst.BaseExpression) -> bool | None:
        """What ``test`` evaluates to during ``torch.onnx.export`` (eval mode, tracing), if known."""
        return value_when_exporting(self.context, test)

    # --- names bound by lambdas and comprehensions ------------------------------
    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        for star in (params.star_arg, params.star_kwarg):
            if type(star) is cst.Param:
                names.add(star.name.value)
        self._shadows.append((node, names))

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._shadows.pop()

    def visit_ListComp(self, node: cst.CSTNode) -> None:
        names: set[str] = set()
        comp = getattr(node, "for_in", None)
        while comp is not None:
            names.update(bound_names(comp.target))
            comp = comp.inner_for_in
        self._shadows.append((node, names))

    def leave_ListComp(self, original_node: cst.CSTNode) -> None:
        self._shadows.pop()

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp
    leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_ListComp

    def shadowed(self, name: str, outside: cst.CSTNode | None = None) -> bool:
        """Whether a lambda parameter or comprehension target named ``name`` is in scope here
        (``outside``: as seen from just outside that lambda or comprehension)."""
        return any(name in names for node, names in self._shadows if node is not outside)

    def binder(self, name: str) -> cst.CSTNode | None:
        """The innermost lambda or comprehension in scope here that binds ``name``; None where none does."""
        for node, names in reversed(self._shadows):
            if name in names:
                return node
        return None

    # --- the call graph ----------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.classes and not self.untraced:
            # A method called only where the export does not go (`if self.training:`) is not reached.
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
                where = self.current_method()
                if where is not None:
                    where[0].calls.setdefault(where[1].name.value, set()).add(func.attr.value)


class RuntimeScopeRule(Rule):
    """Where a deployment rule looks, and findings held until their class is read.

    ``scope`` says where findings are kept: ``"forward"`` (forward code of modules),
    ``"runtime"`` (functions, except construction-time methods) or ``"anywhere"``.
    Findings inside a class are held until the class ends, when the methods ``forward``
    reaches (or the construction-only ones) are known from the ``self.<m>(...)`` calls
    collected on the way: no method body is walked twice. The bookkeeping itself is the
    file's one :class:`RuntimeScope`, shared by all these rules.
    """

    scope: ClassVar[str] = "runtime"
    requires = (RuntimeScope,)

    def __init__(self, context) -> None:
        super().__init__(context)
        self.runtime: RuntimeScope = self.provider(RuntimeScope)
        #: id(class record) → findings held in its methods: (method, node, message, fix).
        self._pending: dict[int, list[tuple[cst.FunctionDef, cst.CSTNode, Message, Fix | None]]] = {}

    # Read-only views of the shared state, under the names the rules use.
    @property
    def _torch(self) -> bool:
        return self.runtime.torch

    @property
    def _scopes(self) -> list[cst.CSTNode]:
        return self.runtime.scopes

    @property
    def _classes(self) -> list[ClassRecord]:
        return self.runtime.classes

    def current_method(self) -> tuple[ClassRecord, cst.FunctionDef] | None:
        return self.runtime.current_method()

    def shadowed(self, name: str) -> bool:
        return self.runtime.shadowed(name)

    def _value_when_exporting(self, test: cst.BaseExpression) -> bool | None:
        return self.runtime.value_when_exporting(test)

    def hold(self, record: ClassRecord, method: cst.FunctionDef, node: cst.CSTNode, message: Message,
             fix: Fix | None = None) -> None:
        """Keep a finding in ``method`` of ``record`` until the class shows whether the method counts."""
        # The scopes go with it: positions are found by generating the innermost one's code,
        # and the method is far less code than the class it is reported from.
        self._pending.setdefault(id(record), []).append((method, node, message, fix, tuple(self.context.scopes)))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        record = self.runtime.classes[-1] if self.runtime.classes else None
        pending = self._pending.pop(id(record), None) if record is not None else None
        if not pending:
            return
        keep = record.kept(self.scope)
        if self.scope in ("runtime", "forward") and any(method.name.value not in keep for method, *_ in pending):
            keep = record.kept(self.scope, self._traced_methods(record, keep))
        for method, node, message, fix, scopes in pending:
            if method.name.value in keep:
                self.report(node, _text(message), fix, scopes)

    def _traced_methods(self, record: ClassRecord, keep: set[str]) -> frozenset[str]:
        """The methods of ``record`` out of ``keep`` that the observed export warned in (their own lines): they
        ran in a traced forward (facexlib's ``PriorBox``, built by each forward call, computes its
        feature-map sizes in ``__init__``; flashdet's ``_get_anchors``, called by ``predict``, which a wrapper's
        forward calls). Asked only by rules that read the observation (the others keep such methods out), and
        only where facts exist."""
        if ObservedFacts not in self.required():
            return frozenset()
        observed = self.provider(ObservedFacts)
        if not observed.known:
            return frozenset()
        return frozenset(name for name, defs in record.methods.items()
                         if name not in keep and any(observed.traced_own(d) for d in defs))

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
        return not self.runtime.untraced and not self.runtime.reserved

    def found(self, node: cst.CSTNode, message: Message, fix: Fix | None = None, *, scope: str | None = None) -> None:
        """Report now, or hold the finding until the class shows whether its method counts.

        ``message`` may be a function making it: called only for a finding that is kept.
        """
        if not self.active():
            return
        scope = scope or self.scope
        if scope == "anywhere":
            self.report(node, _text(message), fix)
            return
        where = self.current_method()
        if where is not None:
            self.hold(where[0], where[1], node, message, fix)
        elif scope == "runtime" and self.runtime.in_function():
            self.report(node, _text(message), fix)
        elif scope == "forward" and self.runtime.in_installed_function():
            self.report(node, _text(message), fix)


def _stored_on_self(method: cst.FunctionDef, name: str) -> str | None:
    """The attribute ``method`` stores its local function ``name`` in (``self.<attr> = name``), if any."""
    stack: list[cst.CSTNode] = [method.body]
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == name:
            for target in node.targets:
                attribute = target.target
                if type(attribute) is cst.Attribute and type(attribute.value) is cst.Name \
                        and attribute.value.value == "self":
                    return attribute.attr.value
        stack.extend(node.children)
    return None


#: ``<x>.forward = ...`` in a file's text (``==`` aside): where :func:`_installed_forwards` may find one.
_FORWARD_WRITE = re.compile(rb"\.forward\s*=(?!=)")


def _bound_function(value: cst.BaseExpression, written: cst.BaseExpression) -> str | None:
    """The function ``value`` binds to the object ``written``: ``fn.__get__(obj, ...)``,
    ``MethodType(fn, obj)`` or ``partial(fn, obj)`` (``types.``/``functools.`` spelled or not)."""
    if type(value) is not cst.Call or not value.args:
        return None
    func = value.func
    if type(func) is cst.Attribute and func.attr.value == "__get__" and type(func.value) is cst.Name:
        return func.value.value if value.args[0].value.deep_equals(written) else None
    called = dotted_name(func)
    if called is None or called.rsplit(".", 1)[-1] not in ("MethodType", "partial") or len(value.args) < 2:
        return None
    first, second = value.args[0].value, value.args[1].value
    return first.value if type(first) is cst.Name and second.deep_equals(written) else None


def _installed_forwards(module: cst.Module) -> tuple[frozenset[str], set[str]]:
    """``m.forward = m.fuseforward``: the names of the methods an assignment makes an object's
    ``forward`` (its own method, read from the same object the assignment writes to), and of the
    functions it binds to the object as its forward (``m.forward = fn.__get__(m, M)``)."""
    found: set[str] = set()
    bound: set[str] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.Assign:
            # `self.forward = self.fast if deploy else self.forward` (timm's FasterNet) installs either.
            values = [node.value.body, node.value.orelse] if type(node.value) is cst.IfExp else [node.value]
            for target in node.targets:
                written = target.target
                if type(written) is not cst.Attribute or written.attr.value != "forward":
                    continue
                found.update(v.attr.value for v in values
                             if type(v) is cst.Attribute and v.value.deep_equals(written.value))
                bound.update(name for v in values if (name := _bound_function(v, written.value)) is not None)
        elif isinstance(node, cst.BaseExpression):
            continue  # no statement inside an expression (lambdas aside: they hold no assignment)
        stack.extend(node.children)
    return frozenset(found), bound


def _exits(body: cst.BaseSuite) -> bool:
    """Whether a suite always leaves the function: its last statement is a ``return`` or ``raise``."""
    statements = body.body
    if not statements:
        return False
    last = statements[-1]
    if type(last) is cst.SimpleStatementLine:
        last = last.body[-1] if last.body else None
    return type(last) in (cst.Return, cst.Raise)


#: Calls that are true while the TorchScript exporter traces (torchvision's own check included).
_TRACING_CALLS = ("torch.jit.is_tracing", "torch.onnx.is_in_onnx_export", "torch._C._get_tracing_state",
                  "torchvision._is_tracing")
#: The inserted helper that is true while a tracer records the model (trtcodemod/helpers/tracing.py).
TRACING_HELPER = "_trt_tracing"


def value_when_exporting(context: "FileContext", test: cst.BaseExpression) -> bool | None:
    """What ``test`` evaluates to during ``torch.onnx.export`` (eval mode, tracing), if known."""
    kind = type(test)
    if kind is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = value_when_exporting(context, test.expression)
        return None if inner is None else not inner
    if kind is cst.BooleanOperation:
        left = value_when_exporting(context, test.left)
        right = value_when_exporting(context, test.right)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else (True if left is True and right is True else None)
        return True if True in (left, right) else (False if left is False and right is False else None)
    if kind is cst.Attribute and test.attr.value == "training":
        return False if type(test.value) is cst.Name and test.value.value == "self" else None
    if kind is cst.Call and not test.args:
        if context.refers_to(test.func, "torch.jit.is_scripting") is not None:
            return False
        if context.refers_to(test.func, *_TRACING_CALLS) is not None:
            return True
        if type(test.func) is cst.Name and test.func.value == TRACING_HELPER:
            return True  # our own helper, inserted by an earlier fix
    return None
