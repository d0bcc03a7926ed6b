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


class SizeParameterUpdate(Rule):
    needs_text = (b"=",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT730",
        name="size-parameter-update",
        summary="`length *= 2` on a size parameter: traced, the size is a 0-d tensor and the update writes into the "
                "caller's size too; rebind it (`length = length * 2`)",
        doc="""\
What it finds: an augmented assignment (`+=`, `-=`, `*=`, `//=`, `/=` and the others) whose target is
a parameter of the enclosing function that holds a number, where the same file calls that function
with a plain name in that parameter's place, by position or by its keyword (a caller that still
holds the value it passed). "Holds a number": annotated `int` or `float`, or given to `math.*`, `int`, `float`, `round`, `range`, `abs`,
or to `max`/`min` beside an integer literal in the function (and never read as a tensor there: `.shape`,
`.size()`, `.dim()`, `.numel()`, `.device`, `.dtype`); or, with facts (inside `migrate`), passed
an `int` in every recorded call. Demucs v3's `valid_length(self, length)` (`if self.resample: length
*= 2`, then `math.ceil(...)` and `max(1, length)` on it, called as `self.valid_length(length)` in
`forward`) is the case found in real code.

Why it hurts: in eager mode an `int` is immutable, so `length *= 2` rebinds the callee's name and the
caller's `length` keeps its value. The TorchScript exporter runs the model under `torch.jit.trace`,
where a size read from a shape (`x.shape[-1]`) is a 0-d tensor so that the graph can follow it;
`*=` on a tensor is the in-place `mul_`, which writes into the tensor the caller holds. The caller's
size silently changes: Demucs' `delta = self.valid_length(length) - length` takes the doubled
length, pads by a negative amount (a crop) and the export stops later at a convolution whose input
became shorter than its kernel ("Kernel size can't be greater than actual input size"), far from the
line at fault. No TracerWarning names it. The dynamo exporter is not affected (symbolic sizes are
immutable integers).

The rewrite: `length *= 2` → `length = length * 2` (the same operator, rebinding the name). For a
number it is what Python does for the augmented form; while tracing it makes a new tensor and the
caller's size stays its own.

Fix safety: safe where the parameter is annotated `int` or `float` (the rebinding is the augmented
assignment's meaning for a number), unsafe otherwise: it assumes the parameter holds a number in
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
        operator = rebind(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" "))
        value = node.value
        if type(value) in (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda) \
                and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        new = cst.Assign(targets=[cst.AssignTarget(target=node.target)],
                         value=cst.BinaryOperation(left=cst.Name(name), operator=operator, right=value))
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
