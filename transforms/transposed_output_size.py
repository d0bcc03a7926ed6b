"""Transposed convolutions called with ``output_size=`` (TRT356): the size the trace bakes kept in the graph.

``self.up = nn.ConvTranspose2d(...)`` called as ``self.up(x, output_size=skip.size())`` works out
an ``output_padding`` from the sizes in Python, which the TorchScript trace records as the
example's number. The construction becomes the helper subclass of
``trtcodemod/helpers/transposed.py`` (same constructor, state and repr), whose forward slices the
largest output to ``output_size`` while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_DIMS = (1, 2, 3)
#: qualified class -> helper subclass
_MODULES = {f"{prefix}.ConvTranspose{n}d": f"_TrtConvTranspose{n}d"
            for n in _DIMS for prefix in ("torch.nn", "torch.nn.modules.conv")}


def _self_attribute(node: cst.BaseExpression) -> str | None:
    """``X`` for ``self.X``, else None."""
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _sized(call: cst.Call) -> bool:
    """Is ``call`` a module call given an output size: ``m(x, output_size=...)`` or ``m(x, size)``?"""
    keyword = any(a.keyword is not None and a.keyword.value == "output_size" for a in call.args)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return keyword or len(positional) == 2


def _loop_sources(loop: cst.For) -> dict[str, cst.BaseExpression]:
    """Loop variable → what it runs over: ``for m in self.X``, ``for i, m in enumerate(self.X)``,
    ``for a, m in zip(xs, self.X)`` (each name with its own sequence)."""
    target, iterable = loop.target, loop.iter
    if type(target) is cst.Name:
        return {target.value: iterable}
    if type(target) is not cst.Tuple or type(iterable) is not cst.Call or type(iterable.func) is not cst.Name:
        return {}
    names = [e.value for e in target.elements]
    if iterable.func.value == "enumerate" and len(names) == 2 and iterable.args and type(names[1]) is cst.Name:
        return {names[1].value: iterable.args[0].value}
    if iterable.func.value == "zip" and len(iterable.args) == len(names):
        return {n.value: a.value for n, a in zip(names, iterable.args) if type(n) is cst.Name and not a.star}
    return {}


def _sized_calls(module: cst.Module) -> tuple[set[str], set[str]]:
    """What the file calls with an output size (``m(x, output_size=...)`` or ``m(x, size)``): the
    attributes ``X`` of ``self.X(...)``, ``self.X[i](...)`` and of a loop variable over ``self.X``
    (``for m in self.X``, through ``enumerate`` or ``zip``); and the classes whose own items are called
    so (``for module in self: ... module(input, output_size)``, an ``nn.Sequential`` subclass)."""
    attributes: set[str] = set()
    containers: set[str] = set()

    # (node, enclosing class, loop variables in scope): a stack, as a file's tree may be deep
    stack: list[tuple[cst.CSTNode, str | None, dict[str, cst.BaseExpression]]] = [(module, None, {})]
    while stack:
        node, cls, loops = stack.pop()
        if type(node) is cst.ClassDef:
            cls, loops = node.name.value, {}
        elif type(node) is cst.FunctionDef:
            loops = {}
        elif type(node) is cst.For:
            loops = {**loops, **_loop_sources(node)}
        if type(node) is cst.Call and _sized(node):
            func = node.func
            callee = func.value if type(func) is cst.Subscript else func
            if type(callee) is cst.Name and callee.value in loops:
                callee = loops[callee.value]
                if type(callee) is cst.Name and callee.value == "self" and cls is not None:
                    containers.add(cls)
            name = _self_attribute(callee)
            if name is not None:
                attributes.add(name)
        stack.extend((child, cls, loops) for child in node.children)
    return attributes, containers


_FILLING = ("append", "extend")


def _filled(module: cst.Module, attributes: set[str]) -> tuple[set[int], set[str]]:
    """What fills a sized container ``self.X`` after it is built: the ids of the values given to
    ``self.X.append(v)``, ``self.X.extend(v)`` and ``self.X += v``; and, where such a value is a name
    bound (directly or as a loop variable, through ``enumerate``/``zip``) to what a method of the file
    returns (``convs = self._make_convs(...)``, then ``for conv in convs: self.X.append(conv)``: pixseg's
    ENet bottlenecks), that method's name."""
    values: set[int] = set()
    methods: set[str] = set()
    for function in (n for n in _walk(module) if type(n) is cst.FunctionDef):
        bound: dict[str, cst.BaseExpression] = {}
        given: list[cst.BaseExpression] = []
        for node in _walk(function.body):
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                bound[node.targets[0].target.value] = node.value
            elif type(node) is cst.For:
                bound.update(_loop_sources(node))
            elif type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign \
                    and _self_attribute(node.target) in attributes:
                given.append(node.value)
            elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _FILLING \
                    and _self_attribute(node.func.value) in attributes and len(node.args) == 1:
                given.append(node.args[0].value)
        for value in given:
            values.add(id(value))
            for _ in range(4):  # a name's value, a loop's sequence: a short chain
                if type(value) is not cst.Name or value.value not in bound:
                    break
                value = bound[value.value]
            if type(value) is cst.Call and _self_attribute(value.func) is not None:
                methods.add(_self_attribute(value.func))  # type: ignore[arg-type]
    return values, methods


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Every node under ``node``, ``node`` first."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


def _constructions(node: cst.CSTNode) -> list[cst.Call]:
    """The calls anywhere in ``node`` (module constructions among them), outside lambdas and definitions."""
    found: list[cst.Call] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        if type(current) is cst.Call:
            found.append(current)
        stack.extend(current.children)
    return found


class TransposedOutputSize(Rule):
    needs_text = (b"output_size",)
    info = RuleInfo(
        id="TRT356",
        name="transposed-output-size",
        summary="`nn.ConvTranspose2d` called with `output_size=` exports with the traced example's output "
                "padding (TorchScript exporter); the size kept in the graph while exporting",
        doc="""\
What it finds: a transposed convolution module, `nn.ConvTranspose1d`, `nn.ConvTranspose2d` or
`nn.ConvTranspose3d`, built and stored as `self.X` where the same file calls `self.X(x,
output_size=...)` (or `self.X(x, size)`): decoders that upsample to the size of the encoder's map,
as ENet's upsampling bottleneck (`ext = self.ext_tconv1(ext, output_size=output_size)`) and its
last layer (`self.transposed_conv(x, output_size=input_size)`), davidtvs/PyTorch-ENet's
`models/enet.py`. Also one built inside what `self.X` is assigned (a list, `nn.ModuleList`,
`nn.Sequential`) where the file gives an output size to `self.X[i](...)` or to a loop variable over
`self.X` (`for up in self.X`, through `zip` or `enumerate`), as VFIT's `self.upconv =
nn.ModuleList([nn.ConvTranspose3d(...)])` called `self.upconv[0](x, output_size=output_size)`; one
added to such a container later (`self.X.append(...)`, `self.X.extend(...)`, `self.X += [...]`), also
from what a method of the file returns (every method of that name in the file: pixseg's ENet,
`convs = self._make_convs(...)` then `for i, conv in enumerate(convs): self.main_modules.append(conv)`,
the upsampling subclass's `_make_convs` returning a `nn.ConvTranspose2d` that `forward` calls as
`main(main_out, output_size=output_size)` under `isinstance(main, nn.ConvTranspose2d)`); and
one passed to a class of the file whose own items are given a size (`for module in self: ...
module(input, output_size)`, VFIT's `MySequential(..., torch.nn.ConvTranspose2d(...), ...)`).

Why it hurts: the module's forward turns `output_size` into an `output_padding` in Python
(`_output_padding`: the size less the smallest output the input gives). The TorchScript exporter
(torch 2.13) records that number as the traced example's, with no warning at the call (only the
size check inside torch warns), so the graph's output has the example's padding at every size: at
a size where the padding differs (an odd map after a stride-2 layer) the output is a row short or
long, and the next Add or Concat with the skip branch fails in ONNX Runtime (ENet: "Attempting to
broadcast an axis by a dimension other than 1. 48 by 49"). The dynamo exporter keeps the size.

The rewrite: `nn.ConvTranspose2d(...)` → `_TrtConvTranspose2d(...)`, a subclass (same
constructor, parameters, state dict and repr). Its forward is torch's own, except while exporting
with an `output_size`: the transposed convolution with `output_padding = stride - 1` (the largest
`_output_padding` allows), narrowed on each spatial axis to the size `output_size` gives, a traced
value. A transposed convolution's output is a window of its full result that starts at `padding`;
a larger `output_padding` only extends the window at its end, so the first positions are the same
values (the graph's sum may round otherwise where the runtime orders it otherwise).

Fix safety: safe. Outside an export the forward runs torch's code (the same `_output_padding`,
its `ValueError` for a size out of range, the same `conv_transpose`), in eager mode, `torch.compile`,
`torch.export` and under `torch.jit.script`; `torch.fx` records the module as one call, as it
records torch's (the instance names torch's module as its `__module__`, which is what fx's leaf
test reads; the class, which pickling records, is the subclass).
`isinstance(m, nn.ConvTranspose2d)` holds; `type(m)` is the subclass. While
exporting, an `output_size` out of range, which torch refuses, gives a graph all the same (a
traced graph has no error to raise). Reported without a fix: nothing (every form found is
rewritten); a module that reaches the call otherwise (a local name passed to another class's
constructor, a module returned by a function) is not found.

TensorRT versions: all (the problem is the exported graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Up(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1)\n\n"
                "    def forward(self, x, skip):\n"
                "        return self.up(x, output_size=skip.size()) + skip\n",
                "class Up(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.up = _TrtConvTranspose2d(8, 4, 3, stride=2, padding=1)\n\n"
                "    def forward(self, x, skip):\n"
                "        return self.up(x, output_size=skip.size()) + skip\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose2d.html",
            "https://github.com/davidtvs/PyTorch-ENet/blob/master/models/enet.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._sized: tuple[set[str], set[str]] | None = None
        self._filling: tuple[set[int], set[str]] | None = None
        self._reported: set[int] = set()

    def _filled_here(self) -> tuple[set[int], set[str]]:
        if self._filling is None:
            self._filling = _filled(self.context.module, self._sized_here()[0])
        return self._filling

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """A method whose returned modules fill a sized container: the transposed convolutions it returns."""
        if in_inserted_helper(self) or node.name.value not in self._filled_here()[1]:
            return
        for inner in _walk(node.body):
            if type(inner) is cst.Return and inner.value is not None:
                self._report_in(inner.value, f"a module `{node.name.value}` returns",
                                f"a module `{node.name.value}` returns, which fills a container the file calls with "
                                "an `output_size`,")

    def _sized_here(self) -> tuple[set[str], set[str]]:
        if self._sized is None:
            self._sized = _sized_calls(self.context.module)
        return self._sized

    def _report_in(self, value: cst.BaseExpression, owner: str, inside: str) -> None:
        """Report each transposed convolution built in ``value``: ``owner`` names it where it is the whole
        value, ``inside`` where it is built in the list or container there."""
        for call in _constructions(value):
            if id(call) in self._reported:
                continue
            qualified = self.context.refers_to(call.func, *_MODULES)
            if qualified not in _MODULES:
                continue
            self._reported.add(id(call))
            helper = _MODULES[qualified]
            self.report(call, f"{owner if call is value else inside} is a transposed convolution the file calls with an `output_size`: the "
                              "TorchScript exporter records the output padding worked out from it as the traced "
                              f"example's number; build `{helper}`, whose forward keeps the size in the graph "
                              "while exporting",
                        Fix({call.func: cst.Name(helper)}, safety=Safety.SAFE, helpers=(helper,)))

    def visit_Assign(self, node: cst.Assign) -> None:
        if in_inserted_helper(self):
            return
        names = [n for n in (_self_attribute(t.target) for t in node.targets) if n is not None]
        attributes, _ = self._sized_here()
        for name in names:
            if name in attributes:
                self._report_in(node.value, f"`self.{name}`", f"a module kept in `self.{name}`")
                return

    def visit_Expr(self, node: cst.Expr) -> None:
        """``self.X.append(nn.ConvTranspose2d(...))`` into a sized container."""
        self._given(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """``self.X += [nn.ConvTranspose2d(...)]`` into a sized container."""
        self._given(node.value)

    def _given(self, node: cst.BaseExpression) -> None:
        if in_inserted_helper(self):
            return
        values = self._filled_here()[0]
        candidates = [node] + ([node.args[0].value] if type(node) is cst.Call and len(node.args) == 1 else [])
        for value in candidates:
            if id(value) in values:
                self._report_in(value, "a module added to a container the file calls with an `output_size`",
                                "a module added to a container the file calls with an `output_size`")

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is not cst.Name or in_inserted_helper(self):
            return
        _, containers = self._sized_here()
        if node.func.value in containers and node.args:
            for arg in node.args:
                inside = f"a module of `{node.func.value}`, whose forward passes its items an output size,"
                self._report_in(arg.value, inside, inside)


RULES = (TransposedOutputSize,)
