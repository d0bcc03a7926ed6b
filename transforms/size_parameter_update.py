"""An augmented assignment to a size parameter (``length *= 2``), which the TorchScript exporter makes an
in-place update of the caller's traced size (TRT730).

In eager mode a size is a Python ``int``: ``length *= 2`` inside ``valid_length(self, length)`` rebinds the
function's own name and leaves the caller's ``length`` alone. While the TorchScript exporter traces, every size
read from a shape is a 0-d tensor, and ``*=`` on a tensor is ``mul_``: the update writes into the very tensor the
caller still holds, so the caller's size changes too. Demucs v3 (``demucs/demucs.py``) computes
``delta = self.valid_length(length) - length`` with ``if self.resample: length *= 2`` inside: traced, ``length``
is doubled by the call, the pad comes out negative (a crop of half the waveform), and the export stops at a
convolution given 2 samples for a kernel of 8. The rewrite rebinds the name (``length = length * 2``), which is
what Python does for a number.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

#: Augmented operators -> the binary operator that rebinds instead.
_REBIND: dict[type, type] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
}

#: Annotations that say a parameter holds a number (then the rebinding is Python's own meaning).
_NUMBER_ANNOTATIONS = frozenset({"int", "float"})

#: Calls that take a parameter as a number: ``math.ceil(length / 2)``, ``int(length)``, ``range(length)``.
_NUMBER_CALLS = frozenset({"int", "float", "round", "range", "abs"})


def _parameters(func: cst.FunctionDef) -> list[cst.Param]:
    return [*func.params.posonly_params, *func.params.params]


def _annotation(param: cst.Param) -> str | None:
    if param.annotation is None:
        return None
    node = param.annotation.annotation
    return node.value if type(node) is cst.Name else None


def _used_as_number(func: cst.FunctionDef, name: str) -> bool:
    """Does the body pass ``name`` to ``math.*``, ``int``, ``range``... or to ``max``/``min`` beside an int literal?"""
    for node in walk(func.body):
        if type(node) is not cst.Call:
            continue
        callee = node.func
        names = [a.value for a in node.args if not a.star]
        if not any(_mentions(value, name) for value in names):
            continue
        if type(callee) is cst.Attribute and type(callee.value) is cst.Name and callee.value.value == "math":
            return True
        if type(callee) is cst.Name and callee.value in _NUMBER_CALLS:
            return True
        if type(callee) is cst.Name and callee.value in ("max", "min") \
                and any(type(v) is cst.Integer for v in names):
            return True
    return False


#: Attributes that only a tensor (not a number) has: a parameter read through one of them is a tensor.
_TENSOR_ATTRIBUTES = frozenset({"shape", "size", "dim", "ndim", "numel", "device", "dtype"})


def _read_as_tensor(func: cst.FunctionDef, name: str) -> bool:
    """Does the body read ``name.shape``, ``name.size(-1)``, ``name.dtype``...? Then ``name`` holds a tensor, and
    ``int(... * name.size(-1))`` is a number made from its size, not the parameter used as a number (audiocraft's
    watermark crop: ``watermark *= mask`` on a tensor the caller still holds, updated in place on purpose)."""
    return any(type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == name
               and node.attr.value in _TENSOR_ATTRIBUTES for node in walk(func.body))


def _mentions(expr: cst.BaseExpression, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(expr))


def _shape_read(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.shape[...]``, ``x.size()`` or ``x.size(i)``: sizes, ``int``s in eager mode, 0-d tensors while
    the TorchScript exporter traces."""
    if type(node) is cst.Subscript:
        node = node.value
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" \
        and len(node.args) <= 1 and not any(a.star or a.keyword for a in node.args)


def _one_size(node: cst.BaseExpression) -> bool:
    """``x.shape[i]`` or ``x.size(i)``: one size (an ``int`` in eager mode), not a slice of the shape or all of it."""
    if type(node) is cst.Subscript:
        return len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index and _shape_read(node.value)
    return type(node) is cst.Call and len(node.args) == 1 and _shape_read(node)


def _size_names(func: cst.FunctionDef) -> set[str]:
    """Names the function binds to a size read from a shape, and to nothing else (an augmented update aside, a
    parameter never): ``B, C, H, W = x.shape``, ``n = x.size(-1)``, ``b, n = x.shape[0], x.shape[1]``. Each is an
    ``int`` in eager mode wherever it is read."""
    names: set[str] = set()
    shaped: set[int] = set()
    for node in walk(func.body):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        target, value = node.targets[0].target, node.value
        if type(target) is cst.Name and _one_size(value):
            names.add(target.value)
            shaped.add(id(node))
        elif type(target) in (cst.Tuple, cst.List) and all(type(e.value) is cst.Name for e in target.elements):
            elements = [e.value for e in target.elements]
            if _shape_read(value):
                names.update(e.value for e in elements)
                shaped.add(id(node))
            elif type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(elements) \
                    and all(_shape_read(v.value) for v in value.elements):
                names.update(e.value for e in elements)
                shaped.add(id(node))
    # A name bound otherwise too (a parameter, another assignment, a loop target...) may hold something else.
    names -= {p.name.value for p in _parameters(func)} | {p.name.value for p in func.params.kwonly_params}
    for node in walk(func.body):
        if id(node) in shaped or type(node) is cst.AugAssign:
            continue
        names = {name for name in names if not (type(node) in (cst.Assign, cst.AnnAssign, cst.For, cst.NamedExpr,
                                                                 cst.AsName) and _binds_here(node, name))}
    return names


def _binds_here(node: cst.CSTNode, name: str) -> bool:
    """Does this one binding node (not what it holds) bind ``name``?"""
    if type(node) is cst.Assign:
        targets = [t.target for t in node.targets]
    elif type(node) is cst.AsName:
        targets = [node.name]
    else:
        targets = [node.target]
    return any(type(n) is cst.Name and n.value == name for t in targets for n in walk(t))


def _alias_of_size(value: cst.BaseExpression, sizes: set[str]) -> str | None:
    """The code of ``value`` where it hands back the very object a size name holds: the name itself (``n = length``)
    or ``min``/``max`` of size names (``min(W, H)`` returns one of them)."""
    if type(value) is cst.Name and value.value in sizes:
        return value.value
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("min", "max") \
            and len(value.args) >= 2 and all(not a.star and a.keyword is None and type(a.value) is cst.Name
                                             and a.value.value in sizes for a in value.args):
        return cst.Module(body=()).code_for_node(value)
    return None


def _blocks(statement: cst.CSTNode) -> list[list[cst.BaseStatement]]:
    """The statement lists directly inside a compound statement (its body, ``else``/``elif``, handlers, ``finally``)."""
    found = []
    for field in ("body", "orelse", "handlers", "finalbody"):
        part = getattr(statement, field, None)
        if part is None:
            continue
        for piece in part if isinstance(part, (list, tuple)) else (part,):
            if type(piece) is cst.IndentedBlock:
                found.append(list(piece.body))
            elif isinstance(piece, (cst.If, cst.Else, cst.ExceptHandler, cst.Finally)):
                found.extend(_blocks(piece) if type(piece) is cst.If else
                             [list(piece.body.body)] if type(piece.body) is cst.IndentedBlock else [])
    return found


def _path(block: list[cst.BaseStatement], node: cst.CSTNode) -> list[tuple[list[cst.BaseStatement], int]] | None:
    """(statement list, index) from ``block`` down to the simple statement line that holds ``node``."""
    for index, statement in enumerate(block):
        if type(statement) is cst.SimpleStatementLine:
            if any(small is node for small in statement.body):
                return [(block, index)]
            continue
        for inner in _blocks(statement):
            below = _path(inner, node)
            if below is not None:
                return [(block, index), *below]
    return None


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Does ``node`` bind ``name`` anywhere (an assignment target, a loop target, ``with ... as``, ``:=``)?"""
    for inner in walk(node):
        targets = []
        if type(inner) is cst.Assign:
            targets = [t.target for t in inner.targets]
        elif type(inner) in (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr):
            targets = [inner.target]
        elif type(inner) is cst.AsName:
            targets = [inner.name]
        if any(type(n) is cst.Name and n.value == name for t in targets for n in walk(t)):
            return True
    return False


def _size_alias(func: cst.FunctionDef, node: cst.AugAssign, name: str) -> str | None:
    """Where the binding of ``name`` that reaches ``node`` (the last one before it, on every path: an earlier
    statement of its own block or of a block around it) makes it an alias of a size read from a shape
    (``lower_bound = min(W, H)``, ``new_h, new_w = height, width``): that alias's code; None otherwise. Augmented
    updates in between keep the alias (they update the same object while tracing)."""
    if type(func.body) is not cst.IndentedBlock:
        return None
    path = _path(list(func.body.body), node)
    if path is None:
        return None
    sizes = _size_names(func) - {name}
    if not sizes:
        return None
    line_block, line_index = path[-1]
    line = line_block[line_index]
    before = [list(reversed(line.body[:[s is node for s in line.body].index(True)]))]
    for block, index in reversed(path):
        before.append([s for s in reversed(block[:index])])
    for statements in before:
        for statement in statements:
            smalls = reversed(statement.body) if type(statement) is cst.SimpleStatementLine else (statement,)
            for small in smalls:
                if type(small) is cst.AugAssign and type(small.target) is cst.Name and small.target.value == name:
                    continue
                if not _binds(small, name):
                    continue
                if type(small) is not cst.Assign or len(small.targets) != 1:
                    return None
                target, value = small.targets[0].target, small.value
                if type(target) is cst.Name and target.value == name:
                    return _alias_of_size(value, sizes)
                if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
                        and len(target.elements) == len(value.elements):
                    for element, part in zip(target.elements, value.elements):
                        if type(element.value) is cst.Name and element.value.value == name:
                            return _alias_of_size(part.value, sizes)
                return None
    return None


def _rebound(node: cst.AugAssign, name: str, rebind: type) -> cst.Assign:
    """``name = name <op> (value)``: the augmented assignment as a rebinding with the same operator."""
    operator = rebind(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" "))
    value = node.value
    if type(value) in (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda) \
            and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Assign(targets=[cst.AssignTarget(target=node.target)],
                      value=cst.BinaryOperation(left=cst.Name(name), operator=operator, right=value))


class SizeParameterUpdate(Rule):
    needs_text = (b"=",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT730",
        name="size-parameter-update",
        summary="`length *= 2` on a size parameter, or on a name bound to a size (`n = min(W, H)`): traced, the size "
                "is a 0-d tensor and the update writes into the caller's or the shape's size too; rebind it "
                "(`length = length * 2`)",
        doc="""\
What it finds: an augmented assignment (`+=`, `-=`, `*=`, `//=`, `/=` and the others) whose target is
a parameter of the enclosing function that holds a number, where the same file calls that function
with a plain name in that parameter's place, by position or by its keyword (a caller that still
holds the value it passed). "Holds a number": annotated `int` or `float`, or given to `math.*`, `int`, `float`, `round`, `range`, `abs`,
or to `max`/`min` beside an integer literal in the function (and never read as a tensor there: `.shape`,
`.size()`, `.dim()`, `.numel()`, `.device`, `.dtype`); or, with facts (inside `migrate`), passed
an `int` in every recorded call. Demucs v3's `valid_length(self, length)` (`if self.resample: length
*= 2`, then `math.ceil(...)` and `max(1, length)` on it, called as `self.valid_length(length)` in
`forward`) is the case found in real code. Also, without any caller: an augmented assignment to a
name whose binding that reaches it makes it the very object a size read from a shape holds
(`lower_bound = min(W, H)` with `B, C, H, W = x.shape`, `new_h, new_w = height, width`, `n = length`):
nunif's iw3 frame resize for Depth Anything (`lower_bound -= lower_bound % ensure_multiple_of`).

Why it hurts: in eager mode an `int` is immutable, so `length *= 2` rebinds the callee's name and the
caller's `length` keeps its value. The TorchScript exporter runs the model under `torch.jit.trace`,
where a size read from a shape (`x.shape[-1]`) is a 0-d tensor so that the graph can follow it;
`*=` on a tensor is the in-place `mul_`, which writes into the tensor the caller holds. The caller's
size silently changes: Demucs' `delta = self.valid_length(length) - length` takes the doubled
length, pads by a negative amount (a crop) and the export stops later at a convolution whose input
became shorter than its kernel ("Kernel size can't be greater than actual input size"), far from the
line at fault. No TracerWarning names it. The dynamo exporter is not affected (symbolic sizes are
immutable integers).

For an alias, the size that changes is the function's own: `min(W, H)` hands back the tensor `H`
itself while tracing, `-=` shrinks `H` with `lower_bound`, and what is computed from `H` afterwards
(the resize's scale) differs from eager mode on the very input the model was traced with.

The rewrite: `length *= 2` → `length = length * 2` (the same operator, rebinding the name). For a
number it is what Python does for the augmented form; while tracing it makes a new tensor and the
caller's size stays its own.

Fix safety: safe where the parameter is annotated `int` or `float`, and for an alias of a size read
from a shape (an `int` in eager mode): the rebinding is the augmented assignment's meaning for a
number. Unsafe otherwise: it assumes the parameter holds a number in
eager mode. A tensor passed there is updated in place by the original, and the caller sees the
update; the rewrite leaves the caller's tensor as it was. `migrate` applies it where the recorded
run passed an `int` in every call.

TensorRT versions: all (the size is wrong before TensorRT sees the graph).""",
        fix=Safety.UNSAFE,
        assumption="the parameter holds a Python number (a size) in eager mode, so rebinding it is what the "
                   "augmented assignment does there",
        fails_when=("a tensor passed as the parameter: the original updates the caller's tensor in place, the "
                    "rewrite does not",),
        examples=(
            Example(
                "class Net(nn.Module):\n"
                "    def valid_length(self, length):\n"
                "        if self.resample:\n"
                "            length *= 2\n"
                "        return math.ceil(length / 4) * 4\n"
                "\n"
                "    def forward(self, x):\n"
                "        length = x.shape[-1]\n"
                "        delta = self.valid_length(length) - length\n"
                "        return F.pad(x, (0, delta))\n",
                "class Net(nn.Module):\n"
                "    def valid_length(self, length):\n"
                "        if self.resample:\n"
                "            length = length * 2\n"
                "        return math.ceil(length / 4) * 4\n"
                "\n"
                "    def forward(self, x):\n"
                "        length = x.shape[-1]\n"
                "        delta = self.valid_length(length) - length\n"
                "        return F.pad(x, (0, delta))\n",
                unsafe=True,
            ),
            Example(
                "def padded(n: int, block: int):\n"
                "    n += (-n) % block\n"
                "    return n\n"
                "\n"
                "def forward(x):\n"
                "    n = x.shape[1]\n"
                "    return x.new_zeros(padded(n, 8)), n\n",
                "def padded(n: int, block: int):\n"
                "    n = n + ((-n) % block)\n"
                "    return n\n"
                "\n"
                "def forward(x):\n"
                "    n = x.shape[1]\n"
                "    return x.new_zeros(padded(n, 8)), n\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://docs.python.org/3/reference/simple_stmts.html#augmented-assignment-statements",
            "https://github.com/adefossez/demucs/blob/main/demucs/demucs.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._called: dict[str, set[int | str]] | None = None

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        func = self.context.function
        if func is None or in_inserted_helper(self) or type(node.target) is not cst.Name:
            return
        rebind = _REBIND.get(type(node.operator))
        if rebind is None:
            return
        name = node.target.value
        alias = _size_alias(func, node, name)
        if alias is not None:
            self._report_alias(node, name, alias, rebind)
            return
        params = _parameters(func)
        index = next((i for i, p in enumerate(params) if p.name.value == name), None)
        if index is None or name == "self":
            return
        param = params[index]
        annotated = _annotation(param) in _NUMBER_ANNOTATIONS
        observed = name in self.provider(ObservedFacts).number_parameters(func, frozenset({"int"}))
        if not (annotated or observed or (_used_as_number(func, name) and not _read_as_tensor(func, name))):
            return
        # A method's callers pass the arguments after `self`.
        is_method = bool(params) and params[0].name.value in ("self", "cls")
        position = index - 1 if is_method else index
        passed = self._call_positions().get(func.name.value, set())
        if (position < 0 or position not in passed) and name not in passed:
            return
        new = _rebound(node, name, rebind)
        text = self.context.module.code_for_node(node)
        message = (f"`{text}` updates the parameter `{name}` in place while the TorchScript exporter traces (a size "
                   f"is a 0-d tensor there), so the caller's `{name}` changes too; rebinding it is what Python does "
                   "for a number")
        if annotated:
            self.report(node, message, Fix({node: new}))
            return
        proof = None
        if observed:
            seen = f"observed `{name}` passed an int in every recorded call of `{func.name.value}`"
            proof = lambda _seen, words=seen: words  # noqa: E731 - a constant prover: the facts were read above
        self.report(node, message + " (unsafe: assumes it holds a number in eager mode)",
                    Fix({node: new}, safety=Safety.UNSAFE, proof=proof))

    def _report_alias(self, node: cst.AugAssign, name: str, alias: str, rebind: type) -> None:
        """``name`` holds the very size another name holds (``lower_bound = min(W, H)``, ``W`` and ``H`` from
        ``x.shape``): an ``int`` in eager mode, so the rebinding is Python's meaning there (safe), and while
        tracing it keeps the other name's size from changing with it."""
        text = self.context.module.code_for_node(node)
        message = (f"`{text}` updates `{name}`, bound to `{alias}` (a size read from a shape), in place while the "
                   f"TorchScript exporter traces (a size is a 0-d tensor there, `{name}` the same tensor as that "
                   "size), so the size it came from changes too; rebinding it is what Python does for the int it "
                   "holds in eager mode")
        self.report(node, message, Fix({node: _rebound(node, name, rebind)}))

    def _call_positions(self) -> dict[str, set[int | str]]:
        """Function or method name -> the positional indices, and the keywords, at which some call in the file passes
        a plain name (a caller that keeps the object it passed): ``self.valid_length(length)`` and
        ``self.valid_length(length=length)`` alike."""
        if self._called is None:
            self._called = {}
            for node in walk(self.context.module):
                if type(node) is not cst.Call:
                    continue
                callee = node.func
                called = callee.value if type(callee) is cst.Name else \
                    callee.attr.value if type(callee) is cst.Attribute else None
                if called is None:
                    continue
                positional = True
                for i, arg in enumerate(node.args):
                    if arg.star:
                        positional = False
                        continue
                    if arg.keyword is not None:
                        positional = False
                        if type(arg.value) is cst.Name:
                            self._called.setdefault(called, set()).add(arg.keyword.value)
                        continue
                    if positional and type(arg.value) is cst.Name:
                        self._called.setdefault(called, set()).add(i)
        return self._called


RULES = (SizeParameterUpdate,)
