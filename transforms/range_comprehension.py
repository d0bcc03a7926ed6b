"""TRT736: a list comprehension over ``range(n)`` made a tensor, computed on the whole range while tracing.

``torch.tensor([i / n for i in range(n)])``, or the list bound to a name first (``w = list(reversed([...]))`` then
``torch.tensor(w, device=d)``: lafhterlearn's attention prior), with ``n`` read from a tensor's shape: a traced
export runs the comprehension with the example's ``n`` and records the list as a constant of the example's length.
The rewrite keeps the comprehension for eager code and, while tracing, evaluates its element on ``torch.arange`` of
the same bounds (:mod:`trtcodemod.helpers.ranges`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import code_of, strip_parens, variable_names, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_range_values"

#: The constructors that copy a list of numbers into a tensor, and the dtype each makes (None: the numbers').
_MAKERS = {"torch.tensor": None, "torch.as_tensor": None, "torch.Tensor": "get_default_dtype()",
           "torch.FloatTensor": "float32", "torch.LongTensor": "long"}
#: Arithmetic an element may use: each has the same meaning on an index tensor as on a Python number.
_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
_ALLOWED = (cst.Name, cst.Integer, cst.Float, cst.BinaryOperation, cst.UnaryOperation, cst.Attribute,
            cst.LeftParen, cst.RightParen, cst.Minus, cst.Plus, cst.SimpleWhitespace, cst.ParenthesizedWhitespace,
            cst.TrailingWhitespace, cst.Newline, cst.Dot) + _OPERATORS

_ASSUMPTION = ("each number the comprehension makes, computed as a tensor over the whole range (int64, or the default "
               "float type after a true division or a float), equals the Python number `torch.tensor` rounds into "
               "the tensor (they may differ in the last bit); an empty range gives an empty tensor of that dtype, "
               "where `torch.tensor([])` is float")


@dataclass(frozen=True)
class Comprehension:
    """``[element for index in range(*bounds)]``, reversed or not."""

    index: str
    element: cst.BaseExpression
    bounds: tuple[cst.BaseExpression, ...]
    flip: bool


class RangeComprehension(SizeRule):
    needs_text = (b"range(",)
    info = RuleInfo(
        id="TRT736",
        name="range-comprehension",
        summary="`torch.tensor([f(i) for i in range(n)])` with `n` from a shape: tracing records the example's list "
                "as a constant; evaluate `f` on `torch.arange` of the bounds while tracing",
        doc="""\
What it finds, in run-time code: a list of numbers made by one comprehension over `range(...)` (one `for`, no `if`)
whose bounds hold a size of a tensor (`range(x.shape[-1])`, `w = x.size(3)`; or, with a recorded run, any range
the observed export warned at, such as a size passed to a helper as an argument),
whose element is arithmetic (`+ - * / // % **`, unary minus) of the index, numbers and names bound outside it, possibly
wrapped in `list(...)`, `tuple(...)` or `reversed(...)`, and made a tensor by `torch.tensor`, `torch.as_tensor`,
`torch.Tensor`, `torch.FloatTensor` or `torch.LongTensor` (`dtype=`, `device=` allowed): in the call itself
(`torch.tensor([i * s for i in range(w)])`), or bound to a name by the statement just before the one that makes it,
the name read nowhere else (lafhterlearn 0.7.1's attention prior: `attention_weights = list(reversed([i /
num_embeddings for i in range(num_embeddings)]))`, then `torch.tensor(attention_weights, device=device)`).

Why it hurts: a traced export (the TorchScript exporter) runs the comprehension in Python with the example's bounds
(`range` reads a traced size into an int) and `torch.tensor` records the list as a constant ("torch.tensor results are
registered as constants"): the graph keeps the example's length and values at every size, and fails or differs
where the size changes (lafhterlearn's decoder: an Expand refused at another width).

The rewrite: while tracing (`not torch.jit.is_scripting() and _trt_tracing()`), `_trt_range_values(<element with
the index replaced by torch.arange(<bounds>)>, torch.arange(<bounds>), flip=<reversed>)` evaluates the element on the
whole range at once (no lambda: a function TorchScript compiled before still compiles), then the
constructor's dtype and device are applied with `.to(...)`; otherwise the statements run as written. A bound list
keeps its statement for eager code under `else:`, and the constructor becomes `(w.to(...) if isinstance(w,
torch.Tensor) else torch.tensor(w, ...))`.

Fix safety: unsafe; the assumption is that the numbers computed as a tensor over the range (int64, or the default
float type after a true division or a float operand) equal the Python numbers rounded into the tensor (a division
computed in float32 may differ from Python's float64 in the last bit), and an empty range gives an empty tensor of
the element's dtype where `torch.tensor([])` is float32. `migrate` applies it where the lines hold a located problem
(the constructor's constant, the size `range` reads) and keeps it only if the rewritten graph matches eager mode.

TensorRT versions: all (Range, arithmetic).""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        fails_when=(
            "a value whose float32 computation differs from Python's float64 in the last bit",
            "an empty range: the tensor has the element's dtype where `torch.tensor([])` is float32",
        ),
        examples=(
            Example(
                "class Prior(nn.Module):\n"
                "    def forward(self, x):\n"
                "        n = x.shape[-1]\n"
                "        w = list(reversed([i / n for i in range(n)]))\n"
                "        w = torch.tensor(w, device=x.device)\n"
                "        return x * w\n",
                "class Prior(nn.Module):\n"
                "    def forward(self, x):\n"
                "        n = x.shape[-1]\n"
                "        if not torch.jit.is_scripting() and _trt_tracing():\n"
                "            w = _trt_range_values((torch.arange(n)) / n, torch.arange(n), flip=True)\n"
                "        else:\n"
                "            w = list(reversed([i / n for i in range(n)]))\n"
                "        w = (w.to(device=x.device) if isinstance(w, torch.Tensor) else torch.tensor(w, device=x.device))\n"
                "        return x * w\n",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/generated/torch.arange.html",
                    "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: id of a statement -> its block's statements and its position there (filled as blocks are entered, read
        #: when the statement is: the sizes bound before it are known by then).
        self._places: dict[int, tuple[list[cst.BaseStatement], int]] = {}

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        for index, statement in enumerate(node.body):
            self._places[id(statement)] = (list(node.body), index)

    def visit_SimpleStatementLine(self, statement: cst.SimpleStatementLine) -> None:
        place = self._places.get(id(statement))
        if place is None or not self.active() or self.context.function is None:
            return
        body, index = place
        torch = self.context.torch_name()
        test = f"not {torch}.jit.is_scripting() and {TRACING_HELPER}()"
        for maker, name in self._makers(statement):
            argument = maker.args[0].value
            if type(argument) is not cst.Name:
                found = _comprehension(argument)
                if found is None or not self._of_a_size(found, statement):
                    continue
                traced = f"{self._values(found)}{self._options(maker, name)}"
                conditional = cst.parse_expression(f"({traced} if {test} else {code_of(maker).strip()})")
                self.found(maker, self._message(name), Fix({maker: conditional}, safety=Safety.UNSAFE,
                                                           helpers=(TRACING_HELPER, HELPER)))
                continue
            bound = self._bound_before(body, index, argument.value)
            if bound is None:
                continue
            binding, found = bound
            if not self._of_a_size(found, binding) and not self.traced_at(statement):
                continue
            variable = argument.value
            traced = cst.parse_statement(f"{variable} = {self._values(found)}\n")
            rewritten = cst.If(test=cst.parse_expression(test), body=cst.IndentedBlock(body=[traced]),
                               orelse=cst.Else(body=cst.IndentedBlock(body=[binding.with_changes(
                                   leading_lines=())])), leading_lines=binding.leading_lines)
            options = self._options(maker, name)
            converted = cst.parse_expression(f"({variable}{options} if isinstance({variable}, {torch}.Tensor) "
                                             f"else {code_of(maker).strip()})")
            self.found(binding, self._message(name),
                       Fix({binding: rewritten, maker: converted}, safety=Safety.UNSAFE,
                           helpers=(TRACING_HELPER, HELPER), covers=True))

    def _makers(self, statement: cst.SimpleStatementLine) -> list[tuple[cst.Call, str]]:
        """The constructor calls in ``statement`` given one positional argument (and ``dtype=``/``device=``)."""
        out = []
        # a constructor this rule already kept for eager code, under `... if _trt_tracing() else <it>`
        kept = {id(n) for e in walk(statement) if type(e) is cst.IfExp
                and TRACING_HELPER in {x.value for x in walk(e.test) if type(x) is cst.Name} for n in walk(e.orelse)}
        for node in walk(statement):
            if type(node) is not cst.Call or not node.args or node.args[0].keyword is not None or node.args[0].star \
                    or id(node) in kept:
                continue
            name = self.context.refers_to(node.func, *_MAKERS)
            if name is None or any(a.keyword is None or a.keyword.value not in ("dtype", "device")
                                   for a in node.args[1:]):
                continue
            out.append((node, name))
        return out

    def _bound_before(self, body, index: int, variable: str
                      ) -> tuple[cst.SimpleStatementLine, Comprehension] | None:
        """The statement just before ``body[index]`` binding ``variable`` to a comprehension over a range, where the
        name is read nowhere else in the function (the maker's statement may rebind it to the tensor)."""
        if index == 0:
            return None
        binding = body[index - 1]
        if type(binding) is not cst.SimpleStatementLine or len(binding.body) != 1:
            return None
        assign = binding.body[0]
        if type(assign) is not cst.Assign or len(assign.targets) != 1 \
                or type(assign.targets[0].target) is not cst.Name or assign.targets[0].target.value != variable:
            return None
        found = _comprehension(assign.value)
        if found is None:
            return None
        maker_statement = body[index]
        reads = [n for n in walk(maker_statement) if type(n) is cst.Name and n.value == variable]
        rebinds = any(type(s) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == variable
                                                    for t in s.targets) for s in maker_statement.body)
        if len(reads) != (2 if rebinds else 1):
            return None
        # read after the maker's statement only where that statement rebinds it (the tensor from then on)
        function = self.context.function
        inside = {id(n) for n in walk(binding)} | {id(n) for n in walk(maker_statement)}
        if not rebinds and function is not None and any(
                type(n) is cst.Name and n.value == variable and id(n) not in inside for n in walk(function.body)):
            return None
        return binding, found

    def _of_a_size(self, found: Comprehension, statement: cst.CSTNode) -> bool:
        """A bound of the range is a size of a tensor (or holds one), or the observed export warned at the
        statement (a size read by `range` into Python): a range of configuration numbers is the same at every
        input (timm's RegNet widths, computed while the model is built)."""
        if self.traced_at(statement):
            return True
        for bound in found.bounds:
            if self.size_of(bound) is not None:
                return True
            if any(type(n) is cst.Name and self.size_of(n) is not None for n in walk(bound)):
                return True
        return False

    def _values(self, found: Comprehension) -> str:
        bounds = ", ".join(code_of(b).strip() for b in found.bounds)
        flip = ", flip=True" if found.flip else ""
        torch = self.context.torch_name()
        index = f"{torch}.arange({bounds})"
        # the index replaced by the range as a tensor: no lambda, which TorchScript would refuse to compile in a
        # function it compiled before (the branch written for the trace is compiled too where it is an expression)
        element = code_of(found.element.visit(_Substitute(found.index, cst.parse_expression(index)))).strip()
        return f"{HELPER}({element}, {index}{flip})"

    def _options(self, maker: cst.Call, name: str) -> str:
        """``.to(...)`` with the constructor's dtype and device ('' where it sets neither)."""
        torch = self.context.torch_name()
        options = [f"{a.keyword.value}={code_of(a.value).strip()}" for a in maker.args[1:]]
        if _MAKERS[name] is not None and not any(o.startswith("dtype=") for o in options):
            options.insert(0, f"dtype={torch}.{_MAKERS[name]}")
        return f".to({', '.join(options)})" if options else ""

    def _message(self, name: str) -> str:
        return (f"a comprehension over `range(...)` made a tensor by `{name}`: a traced export runs it with the "
                "example's bounds and records the list as a constant; while tracing, "
                f"`{HELPER}` evaluates the element on `torch.arange` of the bounds (the comprehension otherwise)")


def _comprehension(value: cst.BaseExpression) -> Comprehension | None:
    """``value`` as ``[element for index in range(...)]`` under ``list``/``tuple``/``reversed`` wrappers."""
    value = strip_parens(value)
    flip = False
    while type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "tuple",
                                                                                             "reversed") \
            and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star:
        if value.func.value == "reversed":
            flip = not flip
        value = strip_parens(value.args[0].value)
    if type(value) is not cst.ListComp:
        return None
    loop = value.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous or type(loop.target) is not cst.Name:
        return None
    iterator = loop.iter
    if type(iterator) is not cst.Call or type(iterator.func) is not cst.Name or iterator.func.value != "range" \
            or not 1 <= len(iterator.args) <= 3 or any(a.keyword is not None or a.star for a in iterator.args):
        return None
    index = loop.target.value
    if any(index in variable_names(a.value) for a in iterator.args):
        return None
    element = value.elt
    if not all(type(n) in _ALLOWED for n in walk(element)):
        return None
    if any(type(n) is cst.BinaryOperation and type(n.operator) not in _OPERATORS for n in walk(element)):
        return None
    if any(type(n) is cst.UnaryOperation and type(n.operator) not in (cst.Minus, cst.Plus) for n in walk(element)):
        return None
    return Comprehension(index, element, tuple(a.value for a in iterator.args), flip)


class _Substitute(cst.CSTTransformer):
    """Every name ``index`` in an element (names and arithmetic only) replaced by ``value``, parenthesised."""

    def __init__(self, index: str, value: cst.BaseExpression) -> None:
        super().__init__()
        self.index, self.value = index, value

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if updated.value != self.index:
            return updated
        return self.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


RULES = (RangeComprehension,)
