"""TRT364: a list of numbers appended in a loop nest over sizes, then made a tensor, computed at once while tracing.

Prior (anchor) boxes are written so: ``anchors = []``, loops over the feature maps, their rows and
columns and the box sizes appending ``[cx, cy, w, h]``, then ``torch.Tensor(anchors).view(-1, 4)``.
A traced export runs the loops with the example's sizes and records the list as a constant. The
rewrite keeps the loop for eager code and, while tracing, computes each loop over sizes at once
with index tensors (:mod:`trtcodemod.transforms._loop_vectorize` in its append mode).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, code_of, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._loop_vectorize import PREFIX, Decline, Vectorizer, _appended, loop_nest, range_loop
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

#: The constructors that copy a list of numbers into a tensor, and the dtype each makes (None: inferred).
_MAKERS = {"torch.Tensor": "get_default_dtype()", "torch.FloatTensor": "float32", "torch.tensor": None,
           "torch.as_tensor": None}
#: Functions of one number the loop may call on an iteration's number.
_MATH = ("math.sqrt", "math.ceil", "math.floor", "math.exp", "math.log")
#: Roundings of a size in a trip count (`range(ceil(h / step))`) and TRT712's helpers that keep them traced.
_ROUNDINGS = {"math.ceil": "_trt_size_ceil", "math.floor": "_trt_size_floor", "builtins.int": "_trt_size_int"}
_HELPERS = (TRACING_HELPER, "_trt_append_rows", "_trt_appended")

_ASSUMPTION = ("the numbers the loop appends, computed in the tensors' float type over all iterations at once, equal "
               "the Python floats it appends rounded into the tensor (they may differ in the last bit), and no `math` "
               "function the loop calls on an iteration's number meets a value outside its domain (the loop raises "
               "there; the graph computes NaN)")


class AppendedSizeLoop(RuntimeScopeRule):
    needs_text = (b"for",)
    info = RuleInfo(
        id="TRT364",
        name="appended-size-loop",
        summary="a list of numbers appended in a loop nest over sizes, then `torch.Tensor(list)` (prior boxes): "
                "tracing records the example's list as a constant; compute it at once while tracing",
        doc="""\
What it finds, in run-time code: three consecutive statements of one block,
`acc = []`, a `for` loop that appends numbers to `acc`, and a statement that makes a tensor of
it with `torch.Tensor(acc)`, `torch.FloatTensor(acc)`, `torch.tensor(acc)` or
`torch.as_tensor(acc)` (`dtype=`, `device=` allowed; `.view(-1, 4)` and the like after it
stay), where the loop holds a loop over sizes: `for i in range(n)`, `for i, j in
product(range(a), range(b))`, `product(range(f), repeat=2)`, loops nested directly so.
Around and inside those, the loop may hold Python loops over iterables the same for every
iteration (`for k, f in enumerate(feature_maps)`, `for ar in self.aspect_ratios[k]`), `if`s
on such values (FaceBoxes' `if min_size == 32`), assignments of numbers (`+ - * / // **`,
`math.sqrt`/`ceil`/`floor` of them), lists of numbers (`dense_cx = [x * step / w for x in [j +
0.5]]`) and loops over those (`for cy, cx in product(dense_cy, dense_cx)`), and appends:
`acc += [a, b]`, `acc.extend([...])`, `acc.append(a)`, `acc.append([a, b, c, d])` (a list of
lists: one row each, all of one length). A loop variable that indexes something (`self.sizes[k]`)
makes its `range` loop a Python loop. Not reported (nothing rewritten): an `if` on an
iteration's value (iterations would append different counts), the list read inside the loop or
used anywhere else in the function, a name the loop binds read after it, appends of numbers and
of lists together, any other statement.

Why it hurts: a traced export (the TorchScript exporter) runs the loops with the example's
sizes: `range` reads each traced size into Python, and `torch.Tensor(list)` copies the numbers
(0-d tensors where they come from a traced size) into a constant (TracerWarnings at that line).
RetinaFace's priors for a dynamic height and width are the example's priors at every size, a
constant of the example's count: the graph's boxes are wrong, or its shapes fail, at any other
size.

The rewrite: `if not torch.jit.is_scripting() and _trt_tracing(): <the list as one computation>
else: <the three statements, unchanged>` (TorchScript compiles only the `else`: the loop scripts
wherever it did). While tracing, each loop over sizes is one computation: each loop variable an index
tensor along its own axis (`torch.arange(n).view(-1, 1).expand(a, b)`), each number the body
computes a tensor over all iterations (a number the same for every iteration stays a number),
each iteration's appended numbers a row that `_trt_append_rows` stacks along a last axis and
flattens in row-major order, which is the loop's order. Python loops over iterables the same for
every iteration stay Python loops, so their iterations' parts come in order; `_trt_appended` joins
the parts and gives the constructor's dtype (`torch.Tensor`: the default float type;
`torch.tensor`: the numbers' own, floats in the default float type). A trip count rounded from a
size (`range(ceil(h / step))`) takes TRT712's `_trt_size_ceil`, which stays traced. Eager code,
scripting, fx and `torch.compile` run the loop.

Fix safety: unsafe; the assumption is that the numbers computed as float tensors over all
iterations equal the Python floats rounded into the tensor at the end (in the last bit they may
not: the loop divides in double precision), and that no `math.sqrt`/`log` of an iteration's
number is out of its domain (the loop raises, the graph gives NaN). A list of lists that ends up
empty is a tensor of one axis in eager mode and of two while tracing. `migrate` applies it where
the lines hold a located problem (the constructor's traced constant, a size read by `range`) and
keeps it only if the rewritten model's graph matches eager mode on every input set.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        fails_when=(
            "a number differs in its last bit between double-precision Python arithmetic rounded at the end and "
            "float arithmetic on tensors",
            "`math.sqrt` or `math.log` of an iteration's number out of its domain: the loop raises, the graph gives "
            "NaN",
            "a list of lists that is empty: eager mode makes a tensor of shape (0,), the traced code one of (0, n)",
        ),
        examples=(
            Example(
                "from itertools import product\n"
                "from math import ceil\n"
                "\n"
                "\n"
                "def priors(sizes, steps, h, w):\n"
                "    anchors = []\n"
                "    for k, step in enumerate(steps):\n"
                "        for i, j in product(range(ceil(h / step)), range(ceil(w / step))):\n"
                "            for size in sizes[k]:\n"
                "                anchors += [(j + 0.5) * step / w, (i + 0.5) * step / h, size / w, size / h]\n"
                "    return torch.Tensor(anchors).view(-1, 4)\n",
                "from itertools import product\n"
                "from math import ceil\n"
                "def priors(sizes, steps, h, w):\n"
                "    if not torch.jit.is_scripting() and _trt_tracing():\n"
                "        _trt_parts = []\n"
                "        for k, step in enumerate(steps):\n"
                "            _trt_size_i = _trt_size_ceil(h / step)\n"
                "            _trt_size_j = _trt_size_ceil(w / step)\n"
                "            _trt_i = torch.arange(_trt_size_i).view(-1, 1).expand(_trt_size_i, _trt_size_j)\n"
                "            _trt_j = torch.arange(_trt_size_j).view(1, -1).expand(_trt_size_i, _trt_size_j)\n"
                "            _trt_row1 = []\n"
                "            for size in sizes[k]:\n"
                "                _trt_row1.extend([(((_trt_j + 0.5) * step) / w), (((_trt_i + 0.5) * step) / h), "
                "(size / w), (size / h)])\n"
                "            _trt_append_rows(_trt_parts, _trt_row1, _trt_i)\n"
                "        return _trt_appended(_trt_parts, torch.get_default_dtype(), 0).view(-1, 4)\n"
                "    else:\n"
                "        anchors = []\n"
                "        for k, step in enumerate(steps):\n"
                "            for i, j in product(range(ceil(h / step)), range(ceil(w / step))):\n"
                "                for size in sizes[k]:\n"
                "                    anchors += [(j + 0.5) * step / w, (i + 0.5) * step / h, size / w, size / h]\n"
                "        return torch.Tensor(anchors).view(-1, 4)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/biubug6/Pytorch_Retinaface/blob/master/layers/functions/prior_box.py",
            "https://github.com/amdegroot/ssd.pytorch/blob/master/layers/functions/prior_box.py",
        ),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active() or self.context.function is None:
            return
        body = node.body
        for index in range(1, len(body) - 1):
            loop, made = body[index], body[index + 1]
            acc = _empty_list(body[index - 1])
            if acc is None or type(loop) is not cst.For:
                continue
            maker = self._maker(made, acc)
            if maker is None:
                continue
            try:
                lines = self._translated(loop, acc, maker, made)
            except Decline:
                continue
            if lines is None or self._used_elsewhere(acc, body[index - 1], loop, made):
                continue
            try:
                tracing = [cst.parse_statement(line + "\n") for line in _statements(lines)]
            except cst.ParserSyntaxError:
                continue  # a trip count or value written so that it cannot stand where the code puts it
            kept = cst.Else(body=cst.IndentedBlock(body=[body[index - 1].with_changes(leading_lines=()), loop, made]))
            # `torch.jit.is_scripting()` first: TorchScript compiles only the loop (the branch's Python lists of
            # numbers and tensors would not compile where the loop did)
            test = f"not {self.context.torch_name()}.jit.is_scripting() and {TRACING_HELPER}()"
            rewritten = cst.If(test=cst.parse_expression(test),
                               body=cst.IndentedBlock(body=tracing), orelse=kept,
                               leading_lines=body[index - 1].leading_lines)
            fix = Fix({body[index - 1]: cst.RemovalSentinel.REMOVE, loop: rewritten,
                       made: cst.RemovalSentinel.REMOVE}, safety=Safety.UNSAFE,
                      helpers=_HELPERS + tuple(sorted(self._helpers)), covers=True)
            self.found(loop, lambda acc=acc, maker=maker: self._message(acc, maker), fix)

    # --- what it takes ----------------------------------------------------------
    def _maker(self, statement: cst.BaseStatement, acc: str) -> tuple[cst.Call, str] | None:
        """The call making a tensor of ``acc`` in ``statement`` (its only reference to ``acc``), and its qualified
        name."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return None
        uses = [n for n in walk(statement) if type(n) is cst.Name and n.value == acc]
        if _rebinds(statement, acc):
            uses = uses[1:]  # `priors = torch.tensor(priors)`: the name holds the tensor from here on (LFFD)
        if len(uses) != 1:
            return None
        for call in walk(statement):
            if type(call) is not cst.Call or not call.args or call.args[0].keyword is not None or call.args[0].star \
                    or type(call.args[0].value) is not cst.Name or call.args[0].value is not uses[0]:
                continue
            if any(a.keyword is None or a.keyword.value not in ("dtype", "device") for a in call.args[1:]):
                return None
            name = self.context.refers_to(call.func, *_MAKERS)
            return (call, name) if name is not None else None
        return None

    def _translated(self, loop: cst.For, acc: str, maker: tuple[cst.Call, str], made: cst.BaseStatement
                    ) -> list[str] | None:
        """The tracing branch, one line a statement (indented), or None where the loop holds no loop over sizes."""
        state = _State(acc, self.context.torch_name(), lambda func: self.context.refers_to(func, *_MATH),
                       lambda func: self.context.refers_to(func, *_ROUNDINGS))
        self._helpers = state.helpers
        lines = [f"{PREFIX}parts = []"] + state.statements([loop], "")
        if not state.nests:
            return None
        call, name = maker
        dtype = _MAKERS[name]
        dtype_code = f"{state.torch}.{dtype}" if dtype is not None else "None"
        device = None
        for arg in call.args[1:]:
            if arg.keyword.value == "dtype":
                dtype_code = code_of(arg.value).strip()
            else:
                device = code_of(arg.value).strip()
        joined = f"_trt_appended({PREFIX}parts, {dtype_code}, {state.width or 0})"
        if device is not None:
            joined += f".to({device})"
        replaced = made.with_changes(leading_lines=()).deep_replace(call, cst.parse_expression(joined))
        lines.append(cst.Module(body=[]).code_for_node(replaced).rstrip("\n"))
        return lines

    def _used_elsewhere(self, acc: str, init: cst.BaseStatement, loop: cst.For, made: cst.BaseStatement) -> bool:
        """Is the list read anywhere else in the function, or a name the loop binds read after it (the tracing
        branch leaves other values in them)?"""
        function = self.context.function
        if function is None:
            return True
        bound = {acc}
        for node in walk(loop):
            if type(node) is cst.For:
                bound.update(bound_names(node.target))
            elif type(node) is cst.AssignTarget:
                bound.update(bound_names(node.target))
        inside = {id(n) for s in (init, loop, made) for n in walk(s)}
        rebound = _rebinds(made, acc)
        seen = False
        for node in walk(function.body):
            if node is made:
                seen = True
            if id(node) in inside or type(node) is not cst.Name:
                continue
            if node.value == acc and not (seen and rebound) or seen and node.value in bound - {acc}:
                return True
        return False

    def _message(self, acc: str, maker: tuple[cst.Call, str]) -> str:
        return (f"`{acc}` is appended numbers in a loop over sizes, then made a tensor by `{maker[1]}`: a traced "
                "export runs the loop with the example's sizes and records the list as a constant; while tracing, "
                f"`{TRACING_HELPER}()` computes every loop over sizes at once (index tensors, one row of numbers per "
                "iteration, flattened in the loop's order), the loop otherwise")


class _State:
    """The translation of the statements around the loops over sizes (which stay Python code)."""

    def __init__(self, acc: str, torch: str, resolve, resolve_size) -> None:
        self.acc, self.torch, self.resolve, self.resolve_size = acc, torch, resolve, resolve_size
        self.helpers: set[str] = set()
        self.width: int | None = None
        self.nests = 0

    def statements(self, statements: list[cst.BaseStatement], indent: str) -> list[str]:
        lines: list[str] = []
        for statement in statements:
            lines.extend(self._statement(statement, indent))
        return lines or [indent + "pass"]

    def _statement(self, statement: cst.BaseStatement, indent: str) -> list[str]:
        if type(statement) is cst.For:
            loop = range_loop(statement, products=True)
            if loop is not None and not any(_indexes(v, statement.body) for v in loop[0]):
                return self._nest(statement, indent)
            if statement.orelse is not None or _mentions(statement.target, self.acc) \
                    or _mentions(statement.iter, self.acc):
                raise Decline("a loop over the list, or with `else`")
            head = f"for {code_of(statement.target).strip()} in {code_of(statement.iter).strip()}:"
            return [indent + head] + self.statements(_suite(statement.body), indent + "    ")
        if type(statement) is cst.If:
            if _mentions(statement.test, self.acc):
                raise Decline("an `if` on the list")
            lines = [f"{indent}if {code_of(statement.test).strip()}:"] + self.statements(
                _suite(statement.body), indent + "    ")
            if statement.orelse is not None:
                lines.append(f"{indent}else:")
                lines += self._statement(statement.orelse, indent + "    ") if type(statement.orelse) is cst.If \
                    else self.statements(_suite(statement.orelse.body), indent + "    ")
            return lines
        if type(statement) is not cst.SimpleStatementLine:
            raise Decline("a compound statement")
        lines = []
        for small in statement.body:
            appended = _appended(small, self.acc)
            if appended is not None:
                # appended once, outside any loop over sizes: its numbers as written, a part of their own
                numbers, width = appended
                if any(_mentions(n, self.acc) for n in numbers):
                    raise Decline(f"the list `{self.acc}` is read inside the loop")
                self._width(width)
                values = ", ".join(code_of(n).strip() for n in numbers)
                lines.append(f"{indent}_trt_append_rows({PREFIX}parts, [{values}], None)")
            elif _mentions(small, self.acc):
                raise Decline(f"the list `{self.acc}` is read inside the loop")
            else:
                lines.append(indent + cst.Module(body=[]).code_for_node(small).strip())
        return lines

    def _nest(self, statement: cst.For, indent: str) -> list[str]:
        nest = loop_nest(statement, products=True)
        if nest is None:
            raise Decline("a loop over sizes that is not a nest")
        self.nests += 1
        # a count rounded from a size (`range(ceil(h / step))`) stays a traced size: TRT712's helpers
        nest.counts = [self._count(count) for count in nest.counts]
        vectorizer = Vectorizer(nest, self.torch, append=self.acc, row=f"{PREFIX}row{self.nests}",
                                resolve=self.resolve, width=self.width)
        lines = vectorizer.statements()
        self.helpers |= vectorizer.helpers
        if vectorizer.width is not None:
            self._width(vectorizer.width)
        return [indent + line for line in lines]

    def _count(self, count: cst.BaseExpression) -> cst.BaseExpression:
        state = self

        class Rounded(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                if len(updated.args) != 1 or updated.args[0].keyword is not None or updated.args[0].star:
                    return updated
                func = original.func
                name = state.resolve_size(func) or ("builtins.int" if type(func) is cst.Name and func.value == "int"
                                                    else "")
                helper = _ROUNDINGS.get(name)
                if helper is None:
                    return updated
                state.helpers.add(helper)
                return updated.with_changes(func=cst.Name(helper))

        return count.visit(Rounded())

    def _width(self, width: int) -> None:
        if self.width is not None and self.width != width:
            raise Decline(f"`{self.acc}` gets numbers and lists, or lists of different lengths")
        self.width = width


def _empty_list(statement: cst.BaseStatement) -> str | None:
    """``acc = []`` (or ``acc: List[float] = []``): the name."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is cst.Assign and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif type(small) is cst.AnnAssign and small.value is not None:
        target, value = small.target, small.value
    else:
        return None
    if type(target) is not cst.Name or type(value) is not cst.List or value.elements \
            or target.value.startswith(PREFIX):
        return None
    return target.value


def _rebinds(statement: cst.BaseStatement, name: str) -> bool:
    """Is ``statement`` ``name = <value>`` (the list's name bound to the tensor made of it)?"""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
        and small.targets[0].target.value == name


def _indexes(variable: str, suite: cst.BaseSuite) -> bool:
    """Does ``variable`` stand in a subscript's index in ``suite`` (a loop over positions of a list: Python's)?"""
    for node in walk(suite):
        if type(node) is cst.SubscriptElement and _mentions(node, variable):
            return True
    return False


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(node))


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if type(suite) is cst.IndentedBlock:
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]


def _statements(lines: list[str]) -> list[str]:
    """The lines grouped into top-level statements (a line and the more indented lines after it)."""
    grouped: list[str] = []
    for line in lines:
        if grouped and line.startswith((" ", "\t")):
            grouped[-1] += "\n" + line
        else:
            grouped.append(line)
    return grouped


RULES = (AppendedSizeLoop,)

__all__ = ["AppendedSizeLoop"]
