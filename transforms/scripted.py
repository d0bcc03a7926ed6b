"""Scripted islands in a traced export: ``@torch.jit.script`` functions with control flow (TRT105).

A function compiled with ``torch.jit.script`` (decorated, or wrapped by a
``torch.jit.script(fn)`` call, or marked ``script_if_tracing``: torch's or a library's copy) keeps its Python
control flow when a traced model calls it: the TorchScript exporter turns its loops into
ONNX ``Loop`` and its branches into ``If``, and its list appends into ``Sequence*`` ops.
The dynamo exporter (``torch.export``) cannot trace into a scripted function with control
flow at all. Detect only: whether the dynamic loop is wanted is the author's decision.

Only functions whose body the file shows are judged: a ``torch.jit.script(fn)`` call on an
imported function or on a module (scripting a whole model) is not reported.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import children, method_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_SCRIPT = ("torch.jit.script",)
_SCRIPT_IF_TRACING = ("torch.jit._script_if_tracing", "torch.jit.script_if_tracing")
#: The names a library gives its own copy of torch's decorator.
_SCRIPT_IF_TRACING_NAMES = frozenset({"script_if_tracing", "_script_if_tracing"})

_TORCHSCRIPT = "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting"
_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"


def _control_flow(func: cst.FunctionDef) -> tuple[bool, bool, bool]:
    """(has a loop, has a branch, appends to a list inside a loop) in ``func``'s own body."""
    loop = branch = appends = False
    stack: list[tuple[cst.CSTNode, bool]] = [(statement, False) for statement in func.body.body]
    while stack:
        node, in_loop = stack.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue  # nested definitions are compiled (or not) on their own
        if type(node) in (cst.For, cst.While):
            loop = True
            in_loop = True
        elif type(node) in (cst.If, cst.IfExp):
            branch = True
        elif in_loop and type(node) is cst.Call:
            parts = method_call(node)
            if parts is not None and parts[1] in ("append", "extend", "insert"):
                appends = True
        stack.extend((child, in_loop) for child in children(node))
    return loop, branch, appends


class ScriptedIsland(Rule):
    needs_text = (b"script",)
    info = RuleInfo(
        id="TRT105",
        name="scripted-island",
        summary="a `torch.jit.script` function with loops or branches exports as ONNX `Loop`/`If` "
                "(and fails with the dynamo exporter)",
        doc="""\
What it finds: functions compiled with TorchScript inside a model file whose body has a
loop or a branch: functions decorated with `@torch.jit.script` or
`@torch.jit._script_if_tracing` (`script_if_tracing`), and `torch.jit.script(fn)` calls on a
function `fn` defined in the same file. The message names the function. Scripted functions
without control flow export as plain operators and are not reported; neither are
`torch.jit.script(...)` calls on imported functions or on modules (scripting the whole model).

Why it hurts: a traced export (`torch.onnx.export(..., dynamo=False)`) records the scripted
function as TorchScript, with its control flow: each `for`/`while` becomes an ONNX `Loop`
whose trip count is computed at run time, each `if` an ONNX `If`, and appending to a list
inside a loop becomes `SequenceEmpty`/`SequenceInsert`/`ConcatFromSequence` (checked with
torch 2.13). TensorRT (8.4 to 10.x) parses `Loop` and `If` with restrictions: the two
branches of an `If` must give tensors of the same rank, a loop-carried tensor must keep its
shape across iterations, and a scan output's length cannot be dynamic; it parses no
`Sequence*` op at all. Loops also run iteration by iteration on the GPU, which is slow next
to the unrolled or vectorised form. The dynamo exporter (`dynamo=True`, torch 2.9's default)
does not export it at all: `torch.export` cannot trace into a scripted function with
control flow (`@torch.jit._script_if_tracing` functions are traced as plain Python there, so
their loops are unrolled for the example input).

What to do: when the number of iterations is really data-dependent, scripting is the
documented way to keep it: then keep the loop body free of list appends (write into a
preallocated tensor), give both branches of every `if` the same rank, and export with the
TorchScript exporter; `trtcodemod verify` shows whether TensorRT builds the result. When the
trip count is fixed for a deployment (a number of layers, queries, a static size), drop the
decorator so the trace unrolls the loop, or vectorise it (a batched op instead of the loop).

The rewrite (unsafe), for a module-level function whose one decorator is `@torch.jit.script` or
`script_if_tracing` (torch's, or a library's own copy of it under that name, as asteroid and
asteroid-filterbanks define for old torch releases; not a `torch.jit.script(fn)` call): the
decorator is removed, so a traced export unrolls the function's loops and takes its branches for
the example input, as for the rest of the model. Eager mode runs the function as Python either
way for `script_if_tracing` (it scripts only while a trace runs), and as Python instead of
TorchScript for `@torch.jit.script`. It is offered at the decorated function and at each
call of it in run-time code (a value the scripted code reads, seen by `migrate` at the call's
line, is where such a function shows up: effdet's `_batch_detection` reads `.tolist()` inside).

Fix safety: unsafe. It assumes the function computes the same as Python as it did compiled
(TorchScript's semantics are Python's for the code it accepts: the rare differences are in
integer division of negative numbers and in mutation of default arguments), and, for the
export, that the trip counts and branches the trace unrolls for the example are the ones every
input takes (a count fixed by the model or by sizes that are not dynamic): otherwise the graph
keeps the example's. `migrate` keeps the fix only when the rewritten model is equivalent on every
input set. TensorRT versions: all (the restrictions above hold in every version; Sequence ops
are parsed by none).""",
        fix=Safety.UNSAFE,
        assumption="the scripted function computes the same as Python, and the loops and branches a trace "
                   "unrolls for the example (its trip counts, the branches taken) are those of every input",
        fails_when=("a loop whose trip count depends on the data or on a dynamic size: the trace keeps the "
                    "example's count",
                    "a branch on data: the trace keeps the example's branch"),
        examples=(
            Example(
                "@torch.jit.script\n"
                "def decode_steps(x, steps: int):\n"
                "    for _ in range(steps):\n"
                "        x = torch.relu(x) * 0.5\n"
                "    return x\n",
                "def decode_steps(x, steps: int):\n"
                "    for _ in range(steps):\n"
                "        x = torch.relu(x) * 0.5\n"
                "    return x\n",
                unsafe=True,
            ),
            Example(
                "def gather_valid(x):\n"
                "    out = []\n"
                "    for i in range(x.shape[0]):\n"
                "        if bool(x[i].sum() > 0):\n"
                "            out.append(x[i])\n"
                "    return torch.stack(out)\n"
                "\n"
                "gather_valid_scripted = torch.jit.script(gather_valid)\n"
            ),
        ),
        references=(
            _TORCHSCRIPT,
            "https://pytorch.org/docs/stable/generated/torch.jit.script.html",
            _OPERATORS,
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._functions: dict[str, list[cst.FunctionDef]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if type(statement) is cst.FunctionDef:
                self._functions.setdefault(statement.name.value, []).append(statement)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            target = decorator.decorator
            if type(target) is cst.Call:
                target = target.func
            how = self._script_kind(target)
            if how is not None:
                # The whole function is the finding's span: a graph check places its Loop or Sequence nodes
                # at the body's lines, where the fix is wanted.
                self._judge(node, node, how, self._unscripted(node))
                return

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and self.runtime_call():
            defs = self._functions.get(node.func.value, [])
            fix = self._unscripted(defs[0]) if len(defs) == 1 else None
            if fix is not None and not self.context.resolver.lookup(node.func.value):
                self._judge(node, defs[0], "@torch.jit.script", fix, call=True)
            return
        if self.context.refers_to(node.func, *_SCRIPT) is None or len(node.args) != 1:
            return
        arg = node.args[0]
        if arg.star or (arg.keyword is not None and arg.keyword.value != "obj"):
            return
        if type(arg.value) is not cst.Name or self.context.resolver.lookup(arg.value.value):
            return  # an expression, or an imported function whose body we cannot read
        defs = self._functions.get(arg.value.value, [])
        if len(defs) == 1:
            self._judge(node, defs[0], "torch.jit.script(...)")

    def _script_kind(self, target: cst.BaseExpression) -> str | None:
        if self.context.refers_to(target, *_SCRIPT):
            return "@torch.jit.script"
        if self.context.refers_to(target, *_SCRIPT_IF_TRACING) or self._library_script_if_tracing(target):
            return "@torch.jit._script_if_tracing"
        return None

    def _library_script_if_tracing(self, target: cst.BaseExpression) -> bool:
        """A library's own copy of ``script_if_tracing`` (asteroid and asteroid-filterbanks define one, for torch
        releases that had none): named so, wherever it is defined or imported from."""
        if type(target) is cst.Name:
            last = target.value
        elif type(target) is cst.Attribute:
            last = target.attr.value
        else:
            return False
        # A decorator's name is bound when the module runs (by a relative import, a definition): the name says it.
        return last in _SCRIPT_IF_TRACING_NAMES

    def runtime_call(self) -> bool:
        """A call made inside a function or method (where a model's forward calls its helpers)."""
        return self.context.function is not None

    def _unscripted(self, func: cst.FunctionDef) -> Fix | None:
        """``func`` without its plain ``@torch.jit.script`` decorator, as an unsafe fix (None when it
        has no such decorator, or another decorator that might compile it too)."""
        plain = [d for d in func.decorators if type(d.decorator) is not cst.Call
                 and self._script_kind(d.decorator) is not None]
        if len(plain) != 1 or len(func.decorators) != 1:
            return None
        kept = func.with_changes(decorators=[], leading_lines=[*func.leading_lines, *plain[0].leading_lines])
        return Fix({func: kept}, safety=Safety.UNSAFE)

    def _judge(self, where: cst.CSTNode, func: cst.FunctionDef, how: str, fix: Fix | None = None,
               call: bool = False) -> None:
        loop, branch, appends = _control_flow(func)
        if not (loop or branch):
            return
        name = func.name.value
        kinds = " and ".join(k for k, present in (("loops", loop), ("branches", branch)) if present)
        exported = " / ".join(op for op, present in (("Loop", loop), ("If", branch)) if present)
        if how == "@torch.jit._script_if_tracing":
            dynamo = "the dynamo exporter unrolls it for the example input instead"
        else:
            dynamo = "the dynamo exporter cannot export it"
        needs = " and ".join(n for n, present in (("loop state of a fixed shape", loop),
                                                  ("branches of the same rank", branch)) if present)
        who = f"`{name}`, called here," if call else f"`{name}`"
        message = (f"{who} is scripted ({how}) and has {kinds}: a traced export emits ONNX {exported} "
                   f"(TensorRT needs {needs}) and {dynamo}")
        if appends:
            message += ("; its list appends in a loop become Sequence ops, which no TensorRT version parses "
                        "(write into a preallocated tensor)")
        else:
            message += "; unroll or vectorise it if the trip count is fixed at deployment"
        if fix is not None:
            message += "; removing the decorator lets the trace unroll it (unsafe: the trip counts become the example's)"
        self.report(where, message, fix)


RULES = (ScriptedIsland,)
