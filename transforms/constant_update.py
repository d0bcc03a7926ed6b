"""``t = torch.tensor([...])`` then ``t += y``, or any in-place write in an autograd Function's forward
(TRT728): an update the TorchScript export loses.

While tracing, a tensor built from Python data in forward (``torch.tensor(...)``, or
``torch.as_tensor`` of a literal list) is recorded as a constant. An in-place update of it
afterwards is traced, but the ONNX graph the TorchScript exporter writes reads the constant as it
was built: the update is lost. The inserted helper (``trtcodemod/helpers/constants.py``) is the
tensor itself outside an export and its ``clone()`` while exporting: a node whose updates the graph
keeps.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from trtcodemod.astutil import helper_call, method_call, short_code
from trtcodemod.model_code import is_autograd_function
from trtcodemod.names import dotted_name
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

HELPER = "_trt_updatable"
#: The class decorator that runs an autograd Function's ``forward`` as plain code while exporting.
FORWARD_HELPER = "_trt_traced_forward"
#: Tensor methods whose result is a tensor (a name bound to one is a tensor an augmented assignment
#: updates in place); ``size``, ``dim``, ``item``... give Python numbers, whose ``+=`` rebinds.
_TENSOR_RESULT_METHODS = frozenset({
    "clone", "contiguous", "detach", "float", "double", "half", "long", "int", "bool", "to", "type_as",
    "view", "view_as", "reshape", "reshape_as", "expand", "expand_as", "repeat", "permute", "transpose", "t",
    "flatten", "squeeze", "unsqueeze", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
    "mm", "bmm", "matmul", "mul", "add", "sub", "div", "sum", "mean", "sqrt", "exp", "abs", "clamp",
})
_BUILDERS = ("torch.tensor", "torch.as_tensor")
#: The legacy constructors: a new tensor of Python data (of a tensor or a size they mean other things).
_LEGACY = ("torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.LongTensor",
           "torch.IntTensor", "torch.ShortTensor", "torch.ByteTensor", "torch.BoolTensor")
_DATA = (cst.List, cst.Tuple, cst.ListComp, cst.Integer, cst.Float)


class ConstantUpdate(RuntimeScopeRule):
    scope = "runtime"
    needs_text = spelled(*_BUILDERS, *_LEGACY) + (b"new_tensor", b"Function")
    info = RuleInfo(
        id="TRT728",
        name="constant-update",
        summary="a tensor built from Python data in forward, or any tensor in an autograd Function's forward, "
                "updated in place: the TorchScript export loses the update; clone it (run forward as plain code) "
                "while exporting",
        doc="""\
What it finds, in run-time code: a local name bound to `torch.tensor(...)` or `t.new_tensor(...)`,
or to `torch.as_tensor(...)` of Python data written in place (a list, a tuple, a comprehension, a
number, `[...] * n`), or to a legacy constructor (`torch.Tensor`, `torch.FloatTensor`,
`torch.LongTensor`, ...) of such data other than a number (a size there), that the same function
then updates in place before binding the name to
anything else: an augmented assignment (`t += y`, `t[i] *= 2`), an assignment into it
(`t[0] = v`) or an in-place method (`t.add_(y)`, `t.clamp_(0)`). kornia's CLAHE builds the lookup
indices of its tiles this way: `j_idxs = torch.tensor([[0, 0, 1, 1], [-1, -1, 0, 0]] * n)` then
`j_idxs += j_floor`.

Why it hurts: while the TorchScript exporter traces, such a tensor is a constant of the graph,
and the graph it writes reads that constant as it was built: the in-place update is lost
(torch 2.13, with and without constant folding; a tensor that an operation made, `torch.arange`
or `torch.zeros`, is not affected). The graph computes other values than the model, or fails in
ONNX Runtime where the updated values were indices (`Gather ... indices element out of data
bounds`). The dynamo exporter is not affected.

The rewrite: the building call is wrapped, `t = _trt_updatable(torch.tensor(...))`. The inserted
helper returns its argument itself in eager mode, under `torch.jit.script`, `torch.fx`,
`torch.compile` and `torch.export`; while `torch.onnx.export` runs it returns `clone()` of it, a
node of the graph that the update is then recorded on.

Fix safety: safe. Outside an ONNX export nothing changes. While exporting, the clone has the
same values, dtype, device, shape and strides (a built tensor is contiguous, and `clone` keeps
that), and nothing else refers to the built tensor (`torch.tensor` and `new_tensor` always copy
their data; `torch.as_tensor` and the legacy constructors are taken only of Python data written in
place), so an update through the name
reaches exactly what it reached before. TensorRT versions: all (the problem is the exported
graph).

The forward of an autograd Function. What it finds: a `torch.autograd.Function` subclass (a base
named `Function`, `autograd.Function`, `torch.autograd.Function`) without its own `symbolic`, whose
`forward` writes into a tensor in place: an assignment into part of one (`yi[:, i, :, :] = y`), an
augmented assignment of a part (`y[..., 0] += 1`) or of a name every assignment of which in
`forward` is a torch call or a tensor-making method (`t = x.clone(); t += 1`; not `m = x.size(0);
m += 1`), an in-place method (`y.clamp_(0)`, `buf.add_(x)`), or a call with `out=`. It is reported
once per class, at the first such write. pytorchcv's iSQRT-COV fills the Newton-Schulz buffers
`yi`/`zi` with slice writes in a Python loop this way.

Why it hurts: the TorchScript exporter records `Fn.apply(x)` (however it is called: stored as
`self.sqrt = Fn.apply` in `__init__` too) as one PythonOp node holding the trace of `forward`, and
inlines that trace into the graph; the inlining loses the trace's in-place writes (torch 2.13): a
buffer filled by slice writes reads as it was allocated (iSQRT-COV's graph differed from eager mode
in 10 of 10 outputs on the traced input), and an in-place method or an augmented assignment often
stops the export (`IndexError: Argument passed to at() was not in the map`). A Function with a
`symbolic` is exported by it, not by its trace; the dynamo exporter is not affected. `migrate` takes
the rule where the graph differs from eager mode on the traced inputs (no line to blame: the
writes vanish), and where the export stops with that `IndexError` (the error is raised in a graph
pass, with no user frame left).

The rewrite: the class is decorated, `@_trt_traced_forward`. The inserted helper gives the class an
`apply` that, while `torch.onnx.export` runs (either exporter) and the class has no `symbolic`,
calls `forward` as plain code, under `torch.no_grad()` as `apply` does, with a stand-in context
that takes `save_for_backward`, `mark_dirty`, `mark_non_differentiable`, `set_materialize_grads`,
attributes and `needs_input_grad` (a Function written with `setup_context` gets no context, as its
`forward` takes none): the tracer then follows the writes as anywhere else in a model. Everywhere
else `apply` is the class's own (`apply` of its base, or one the class defines), so eager values,
gradients through `backward`, `torch.compile` and `torch.export` are as before.

Fix safety: safe. Outside an ONNX export nothing changes (the decorated class's `apply` calls the
one it replaced). While exporting, `forward` computes what `apply` returns (the same code on the
same arguments, gradients off); the context keeps nothing for a backward pass an export never runs.
A subclass of the decorated class inherits the new `apply` and runs its own `forward`.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def lookup(luts: torch.Tensor, n: int):\n"
                "    idx = torch.tensor([0, 1, 1, 2] * n)\n"
                "    idx += torch.arange(4 * n) // 4\n"
                "    return luts[idx]\n",
                "def lookup(luts: torch.Tensor, n: int):\n"
                "    idx = _trt_updatable(torch.tensor([0, 1, 1, 2] * n))\n"
                "    idx += torch.arange(4 * n) // 4\n"
                "    return luts[idx]\n",
            ),
            Example(
                "def scales(x: torch.Tensor):\n"
                "    s = torch.as_tensor([1.0, 2.0])\n"
                "    s[0] = 3.0\n"
                "    return x * s\n",
                "def scales(x: torch.Tensor):\n"
                "    s = _trt_updatable(torch.as_tensor([1.0, 2.0]))\n"
                "    s[0] = 3.0\n"
                "    return x * s\n",
            ),
            Example(
                "class Shifted(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x):\n"
                "        out = torch.zeros_like(x)\n"
                "        out[:, 1:] = x[:, :-1]\n"
                "        return out\n",
                "@_trt_traced_forward\n"
                "class Shifted(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x):\n"
                "        out = torch.zeros_like(x)\n"
                "        out[:, 1:] = x[:, :-1]\n"
                "        return out\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
            "https://pytorch.org/docs/stable/generated/torch.tensor.html",
            "https://pytorch.org/docs/stable/generated/torch.clone.html",
        ),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check_function_forward(node)
        built: dict[str, cst.Call] = {}
        reported: set[int] = set()
        for statement in _own_statements(node.body):
            for name, call in _updates(statement, built):
                if id(call) in reported:
                    continue
                reported.add(id(call))
                self.found(call, f"`{short_code(call)}` is updated in place below (`{short_code(statement)}`), but the "
                                 "TorchScript export keeps it as built (the update is lost); "
                                 f"`{HELPER}` clones it while exporting",
                           Fix({call: helper_call(HELPER, call)}, helpers=(HELPER,)))
            self._bind(statement, built)

    def _check_function_forward(self, node: cst.FunctionDef) -> None:
        """``forward`` of a ``torch.autograd.Function`` subclass that writes into a tensor in place."""
        cls = self.context.enclosing_class
        if node.name.value != "forward" or cls is None or not self._torch or not is_autograd_function(cls):
            return
        if any((dotted_name(d.decorator) or "").startswith(FORWARD_HELPER) for d in cls.decorators):
            return  # already decorated
        if _defines(cls, "symbolic"):
            return  # the exporter writes the Function's own ONNX form, not its traced forward
        params = [p.name.value for p in node.params.params]
        ctx = params[0] if params and not _defines(cls, "setup_context") else None
        writes = [statement for statement in _own_statements(node.body) if self._writes_in_place(statement, node, ctx)]
        if not writes:
            return
        lines = ", ".join(f"`{short_code(w, 40)}`" for w in writes[:3]) + (" ..." if len(writes) > 3 else "")
        decorated = cls.with_changes(decorators=[cst.Decorator(cst.Name(FORWARD_HELPER)), *cls.decorators])
        self.found(writes[0], f"`forward` of autograd Function `{cls.name.value}` writes into a tensor in place "
                              f"({len(writes)}: {lines}): the TorchScript export inlines the Function's traced forward "
                              "and loses such writes (the graph reads the tensor as it was, or the export fails); "
                              f"`@{FORWARD_HELPER}` runs forward as plain code while exporting",
                   Fix({cls: decorated}, helpers=(FORWARD_HELPER,)))

    def _writes_in_place(self, statement: cst.CSTNode, forward: cst.FunctionDef, ctx: str | None) -> bool:
        """Does ``statement`` (of ``forward``) write into a tensor: ``t[i] = v``, ``t[i] += v``, ``t += v`` on a
        name bound to a tensor, ``t.add_(v)``, ``torch.f(..., out=t)``?"""
        if type(statement) is cst.Assign:
            if any(type(t.target) is cst.Subscript and _root(t.target) not in (None, ctx) for t in statement.targets):
                return True
        elif type(statement) is cst.AugAssign:
            target = statement.target
            if type(target) is cst.Subscript:
                return _root(target) not in (None, ctx)
            if type(target) is cst.Name and self._bound_to_tensor(forward, target.value):
                return True
        if type(statement) not in (cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return):
            return False
        stack: list[cst.CSTNode] = [statement]
        while stack:
            item = stack.pop()
            if type(item) in (cst.Lambda, cst.FunctionDef):
                continue
            if type(item) is cst.Call:
                if any(a.keyword is not None and a.keyword.value == "out" for a in item.args):
                    return True
                parts = method_call(item)
                if parts is not None and parts[1].endswith("_") and not parts[1].startswith("_") \
                        and _root(parts[0]) not in (None, ctx) and not self.context.qualified_names(parts[0]):
                    return True
            stack.extend(item.children)
        return False

    def _bound_to_tensor(self, forward: cst.FunctionDef, name: str) -> bool:
        """Is every plain assignment of ``name`` in ``forward`` a torch call or a tensor-making method
        (so that ``name += v`` updates a tensor in place rather than rebinding a number)?"""
        values = [s.value for s in _own_statements(forward.body) if type(s) is cst.Assign
                  and any(type(t.target) is cst.Name and t.target.value == name for t in s.targets)]
        if not values:
            return False
        for value in values:
            if type(value) is not cst.Call:
                return False
            names = self.context.qualified_names(value.func)
            if names:
                if not any(n.startswith("torch.") and n not in ("torch.Size", "torch.numel") for n in names):
                    return False
                continue
            parts = method_call(value)
            if parts is None or parts[1] not in _TENSOR_RESULT_METHODS:
                return False
        return True

    def _bind(self, statement: cst.CSTNode, built: dict[str, cst.Call]) -> None:
        """Names ``statement`` binds: to a building call, or (any other value) no longer to one."""
        targets: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        if type(statement) is cst.Assign:
            targets, value = [t.target for t in statement.targets], statement.value
        elif type(statement) is cst.AnnAssign:
            targets, value = [statement.target], statement.value
        for target in targets:
            if type(target) is cst.Name:
                built.pop(target.value, None)
            elif type(target) in (cst.Tuple, cst.List):
                for element in target.elements:  # type: ignore[attr-defined]
                    if type(element.value) is cst.Name:
                        built.pop(element.value.value, None)
        if len(targets) == 1 and type(targets[0]) is cst.Name and value is not None and self._builds(value):
            built[targets[0].value] = value  # type: ignore[assignment]
        for name in _rebound(statement):
            built.pop(name, None)

    def _builds(self, value: cst.BaseExpression) -> bool:
        if type(value) is not cst.Call or not value.args or value.args[0].keyword is not None or value.args[0].star:
            return False
        if any(a.keyword is not None and a.keyword.value == "requires_grad" for a in value.args):
            return False
        name = self.context.refers_to(value.func, *_BUILDERS, *_LEGACY)
        if name == "torch.tensor":
            return True
        if name is None and type(value.func) is cst.Attribute and value.func.attr.value == "new_tensor":
            return True  # `t.new_tensor(data)` always copies its data, as `torch.tensor` does
        if name == "torch.as_tensor":
            return _python_data(value.args[0].value)
        # A legacy constructor takes a number as a size (an uninitialized tensor), a tensor as itself.
        return name is not None and _python_data(value.args[0].value) and not _number(value.args[0].value)


def _defines(cls: cst.ClassDef, name: str) -> bool:
    """Does the body of ``cls`` define or assign ``name``?"""
    for line in cls.body.body:  # type: ignore[union-attr]
        if type(line) is cst.FunctionDef and line.name.value == name:
            return True
        if type(line) is cst.SimpleStatementLine:
            for small in line.body:
                if type(small) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                                     for t in small.targets):
                    return True
    return False


def _python_data(value: cst.BaseExpression) -> bool:
    """Python data written in place: a list, tuple, comprehension, number, or `[...] * n`."""
    if isinstance(value, _DATA):
        return True
    if type(value) is cst.UnaryOperation:
        return _python_data(value.expression)
    return type(value) is cst.BinaryOperation and type(value.operator) is cst.Multiply and (
        isinstance(value.left, (cst.List, cst.Tuple)) or isinstance(value.right, (cst.List, cst.Tuple)))


def _number(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.Integer, cst.Float)) or (type(value) is cst.UnaryOperation
                                                          and _number(value.expression))


def _own_statements(body: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement | cst.BaseCompoundStatement]:
    """The function's statements in source order, the blocks of `if`/`for`/`while`/`with`/`try`
    included (not nested functions or classes); a line of several statements gives each."""
    for line in body.body:  # type: ignore[union-attr]
        if type(line) is cst.SimpleStatementLine:
            yield from line.body
        elif type(line) in (cst.FunctionDef, cst.ClassDef):
            continue
        else:
            yield line  # a compound statement: its own binding (`for t in ...`), then its blocks
            for block in _blocks(line):
                yield from _own_statements(block)


def _blocks(statement: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, cst.BaseSuite):
            yield part
        elif part is not None and isinstance(getattr(part, "body", None), cst.BaseSuite):
            yield part.body  # `else:` / `elif` / `finally:` hold their block one level down
            if type(part) is cst.If:
                yield from _blocks(part)
    for handler in getattr(statement, "handlers", ()):
        yield handler.body


def _root(target: cst.BaseExpression) -> str | None:
    """``t`` of ``t``, ``t[i]``, ``t[i][j]``: the name a write into ``target`` updates."""
    while type(target) is cst.Subscript:
        target = target.value  # type: ignore[attr-defined]
    return target.value if type(target) is cst.Name else None


def _updates(statement: cst.CSTNode, built: dict[str, cst.Call]) -> Iterator[tuple[str, cst.Call]]:
    """Each built name ``statement`` updates in place, with its building call."""
    names: list[str | None] = []
    if type(statement) is cst.AugAssign:
        names.append(_root(statement.target))
    elif type(statement) is cst.Assign:
        names += [_root(t.target) for t in statement.targets if type(t.target) is cst.Subscript]
    if type(statement) in (cst.Expr, cst.Assign, cst.AugAssign, cst.Return):
        value = getattr(statement, "value", None)
        if type(value) is cst.Call:
            parts = method_call(value)
            if parts is not None and type(parts[0]) is cst.Name and parts[1].endswith("_") \
                    and not parts[1].startswith("_"):
                names.append(parts[0].value)
    for name in names:
        if name is not None and name in built:
            yield name, built[name]


def _rebound(statement: cst.CSTNode) -> list[str]:
    """Plain names a `for` or `with` binds (``for t in ...``, ``with ... as t``)."""
    if type(statement) is cst.For and type(statement.target) is cst.Name:
        return [statement.target.value]
    if type(statement) is cst.With:
        return [i.asname.name.value for i in statement.items
                if i.asname is not None and type(i.asname.name) is cst.Name]
    return []


RULES = (ConstantUpdate,)
