"""Tensors turned into Python values while tracing (TRT702, TRT704).

A traced export records tensor operations only: a Python number read from a tensor
(``t.item()``, ``int(t)``, ``len(t)``) is a constant to the tracer, and the exported graph
repeats the example input's value for every other input.

- TRT702 reports ``.item()`` / ``.tolist()`` / ``.numpy()`` and ``int(t)``-style conversions
  in forward code; it drops an ``.item()`` where a 0-d tensor stands for the number, and gives the
  trace a ``.tolist()``'s elements where a call reads them as sizes (both unsafe).
- TRT704 rewrites ``len(x)`` → ``x.shape[0]`` where an annotation proves ``x`` is a tensor,
  and reports it for unannotated ``forward`` parameters the method uses as tensors.

Where they look is shared with the other deployment rules: see
:mod:`trtcodemod.transforms._runtime_scope`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import libcst as cst

from trtcodemod.astutil import (
    bound_names, code_of, decorator_names, has_star_args, helper_call, method_call, short_code, strip_parens, walk,
)
from trtcodemod.model_code import unobserved_caller
from trtcodemod.providers import ObservedFacts
from trtcodemod.evidence.proofs import prove_len
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.scopes import (
    ANNOTATION, ASSIGN, AUGASSIGN, CLASS, DEF, DEL, EXCEPT, FOR, GLOBAL, IMPORT, MATCH, NESTED_NONLOCAL, NONLOCAL,
    PARAM, TYPE, WALRUS, WITH,
)
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms._size_facts import NUMBER_AS_TENSOR_FAILURES
from trtcodemod.transforms._tensor_evidence import (
    TENSOR_ONLY_METHODS, literal_default, tensor_expression, tensor_parameters,
)

_AVOIDING_PITFALLS = "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"

#: TRT704's helper where an observation cannot speak for every caller (``trtcodemod.helpers.sizes``).
LEN_HELPER = "_trt_len"

#: Attributes a list or tuple lacks: reading one shows a forward input is a tensor.
_TENSOR_ATTRIBUTES = TENSOR_ONLY_METHODS | {"shape", "dtype", "device", "is_cuda", "ndim"}


def _used_as_tensor(function: cst.FunctionDef, name: str) -> bool:
    """Does ``function`` read a tensor attribute of ``name`` (``x.shape``, ``x.sigmoid()``)?

    An unannotated ``forward`` input may as well be a list (``attn_masks``, ``mlvl_feats``),
    whose ``len`` is no traced size.
    """
    return any(
        type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == name
        and node.attr.value in _TENSOR_ATTRIBUTES
        for node in walk(function.body)
    )


#: Methods that only describe a tensor (shape, dtype...): their results are not tensors.
#: Tensor methods that always return a single tensor: `x = x.view(...)` keeps `x` a tensor.
_TENSOR_METHODS = frozenset({
    "float", "half", "double", "bfloat16", "int", "long", "short", "bool", "byte", "to", "cuda", "cpu",
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "contiguous", "flatten",
    "unflatten", "unsqueeze", "squeeze", "clone", "detach", "expand", "expand_as", "repeat", "type_as",
    "narrow", "sigmoid", "softmax", "log_softmax", "relu", "abs", "exp", "log", "clamp", "clamp_min",
    "clamp_max", "neg", "sqrt", "pow", "mul", "add", "sub", "div", "matmul", "flip", "roll",
})
_CONVERSIONS = frozenset({"int", "float", "bool", "complex"})


def _root_name(node: cst.BaseExpression) -> tuple[str | None, bool]:
    """The name an Attribute/Subscript/Call chain starts from, and whether an attribute was crossed."""
    crossed = False
    while True:
        if type(node) is cst.Attribute:
            crossed = True
            node = node.value
        elif type(node) is cst.Subscript:
            node = node.value
        elif type(node) is cst.Call:
            node = node.func
        else:
            break
    return (node.value if type(node) is cst.Name else None), crossed


def _is_tensor_annotation(rule: Rule, annotation: cst.Annotation | None) -> bool:
    if annotation is None:
        return False
    return rule.context.refers_to(annotation.annotation, "torch.Tensor") is not None



# --- TRT702 ------------------------------------------------------------------------


class TensorToPython(RuntimeScopeRule):
    scope = "forward"
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT702",
        name="tensor-to-python",
        summary="`.item()`, `.tolist()`, `.numpy()`, `int(t)` in forward: the export bakes the value in",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses (`forward` and the methods it calls):
`t.item()`, `t.tolist()`, `t.numpy()` (except on attributes of `self`: parameters and
buffers are constants of the export anyway), and `int(t)`, `float(t)`, `bool(t)`,
`complex(t)` where `t` is evidently a tensor: a parameter of `forward` (not annotated as a
non-tensor type, without a number or string default), a parameter annotated `Tensor`, or
a local assigned from a torch call, a tensor method, indexing or arithmetic on one of
those. `int(x.shape[0])`, `int(len(xs))` and `float(self.scale)` are not reported. Inside
`migrate` or with `--facts`, a name the recorded run saw holding a tensor at a torch call on
its line is a tensor, and so is the argument of a conversion where the run read a tensor
value; a `.item()` that ran and read no tensor value (a NumPy scalar's) is not reported.

Why it hurts: tracing records tensor operations only. A Python number taken out of a tensor
is a constant to the tracer (PyTorch warns with a `TracerWarning`, easy to miss in a long
log): the exported graph repeats the example input's value for every other input and gives
silently wrong results. `.numpy()` leaves the graph the same way.

What to do: keep the value a tensor (`t.sum()` instead of `t.sum().item()`, `t.clamp(min=1)`
instead of `max(1, int(t))`, broadcasting instead of a Python loop bound), or compute the
number outside the model and pass it in as an input.

The rewrite (`.item()` only): drop the `.item()` where the number is only used where a 0-d
tensor stands for it: an operand of `+ - * / // % **` (or of a unary `-`), a bound of a slice
(`x[:, :n]`, which Python reads through the tensor's `__index__`), or a positional argument
of `torch.arange` (which reads a 0-d tensor as the number) or a size of `torch.zeros`-like
functions and of a tensor's `view`, `reshape`, `expand`, `repeat`, `tile`, `new_zeros`...
(`patch.reshape(h, w, -1)`, read through `__index__` too): `t.max().item() + 1`,
`mask[:, :t.sum(1).max().item()]`, or `peak = t.max().item()` when every later use of `peak`
in the function is one of those and nothing else assigns it. The 0-d tensor then stands where
the number stood, and the export keeps computing it (a traced slice bound or `arange` end
follows the tensor). Not where that arithmetic ends as the argument of another call, directly
or through the name it is assigned to (a tuple assignment's names too), with no operand on the
way known to be a tensor: `torch.full(s, fill_value=t.min().item() - 1.0)` and `range(n + 1)`
want a number, and a tensor raises there or is read back into one. `int(t.item())` used
the same way becomes `t.long()`: the same integer (both truncate toward zero) as a 0-d tensor.
Where that arithmetic is the one argument of a `math` function that torch has too
(`math.exp(-gap.item() / tau)`), the call becomes the torch function on the tensor
(`torch.exp(-gap / tau)`): `math.exp` would read the tensor back into a number.

The rewrite of an `int(t)` whose number only goes where a 0-d tensor stands for it, as above
(directly, or through the arithmetic on it and the one name it is assigned to), or to a parameter
of a method of the same class (`self.tables(dim, n)`) that the method uses only so or as an
element of a tuple that is only a dictionary key (a cache's, `key = (dim, n); if key not in
self.cache: ...; return self.cache[key]`): `int(t)` becomes `_trt_int(t)`, an inserted helper
that is `int(t)` everywhere but while `torch.jit.trace` records a 0-d tensor, where it is the
tensor as int64 (truncated toward zero, as `int` truncates). Depth Anything v3's rotary
embedding reads `max_position = int(positions.max()) + 1` off the patch grid and builds its
cosine tables with `torch.arange(max_position)`: a size in disguise, which the trace now computes
from the image; its cache, keyed by the tensor while tracing, misses there (a tensor hashes by
identity), so the trace builds the tables in the graph, while eager mode keeps `int` and its hits.
Not where the number also goes anywhere else (`x.new_full((2,), k)`, `range(k)`, an f-string, a
second name it is added into that is read otherwise). A `t.item()` whose number goes to such a
method parameter (where dropping the `.item()` would hand eager code the tensor too) becomes
`_trt_item(t)` the same way: `t.item()` but while `torch.jit.trace` records a 0-d tensor.

The rewrite of a `.tolist()` whose list only goes where a call reads each element as a number:
`F.pad`'s `pad`, `F.interpolate`'s `size`, `torch.reshape`'s shape, the one list of sizes of
`torch.zeros`-like functions and of a tensor's `view`, `reshape`, `expand`, `repeat`, `tile`,
`new_zeros`... (`F.pad(x, pad.tolist())`, also copied by `tuple(...)` or `list(...)` there, or
`widths = pad.tolist()` when every later use of `widths` in the function is one of those and
nothing else assigns it; not a list that is indexed, measured with `len` or annotated,
`n: List[int] = t.tolist()`, which `torch.jit.script` needs).
It becomes `_trt_tolist(pad)`, an inserted helper that is `pad.tolist()` in eager mode, under
`torch.jit.script`, `torch.compile` and `torch.fx`, and for anything but a 1-D tensor; only while
`torch.jit.trace` or `torch.export` records the model (`_trt_tracing()`) does it give the 1-D
tensor's elements as 0-d tensors (`list(pad.unbind(0))`), which those calls read as the numbers:
the TorchScript exporter's graph then computes the pad widths or sizes from the input (a `Pad`
whose pads, a `Resize` or `Reshape` whose sizes follow it) where `tolist` left the example's.
Under `torch.export` (the dynamo exporter) the elements reach the call as the numbers they hold,
as the list did (a size computed from `torch.tensor(x.shape)` is specialized there before the
`tolist` either way).

Fix safety: unsafe. Assumption: a 0-d tensor behaves as the Python number did in that
arithmetic (for `.tolist()`: in the call that reads the list, while tracing; eager code is
unchanged). Values can differ in the last bits (a Python float is a double; the tensor keeps
its dtype, float32 say; `int()` of a NaN or of a value past int64 raises where `.long()` does
not), the results become 0-d tensors instead of numbers (whatever later
reads them as numbers, `range(n)` or an f-string, sees a tensor), and the result dtype
follows tensor promotion; where `math` raises (`math.log(0)`, `math.sqrt(-1)`, an overflow
in `math.exp`), torch returns -inf, NaN or inf. `migrate` tries it as a candidate where the export bakes the value
and keeps it only when the rewritten model is equivalent on every input set. Other `.tolist()`,
`.numpy()`, `float(t)`, `bool(t)` and `int(t)` are reported only. Code under `if self.training:`
or `if not torch.jit.is_tracing():` is not reported: the export does not run it. Applies to
every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the 0-d tensor behaves as the Python number did in the arithmetic that follows (same value, no overflow, "
            "no error, same promoted dtype)"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, logits):\n"
                "        scale = logits.abs().max().item()\n"
                "        return logits / scale\n",
                "class Head(nn.Module):\n"
                "    def forward(self, logits):\n"
                "        scale = logits.abs().max()\n"
                "        return logits / scale\n",
                unsafe=True,
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, logits):\n"
                "        scale = logits.abs().max().item()\n"
                "        print(f'{scale:.3f}')\n"
                "        return logits / scale\n"
            ),
            Example(
                "class Sampler(nn.Module):\n"
                "    def forward(self, x, num):\n"
                "        k = int(num)\n"
                "        return x[:, :k]\n",
                "class Sampler(nn.Module):\n"
                "    def forward(self, x, num):\n"
                "        k = _trt_int(num)\n"
                "        return x[:, :k]\n",
                unsafe=True,
            ),
            Example(
                "class Sampler(nn.Module):\n"
                "    def forward(self, x, num):\n"
                "        k = int(num)\n"
                "        return x.new_full((2,), k) + x[:, :k]\n"
            ),
            Example(
                "class Truncate(nn.Module):\n"
                "    def forward(self, x, mask):\n"
                "        n = mask.sum(1).max().item()\n"
                "        return x[:, :n]\n",
                "class Truncate(nn.Module):\n"
                "    def forward(self, x, mask):\n"
                "        n = mask.sum(1).max()\n"
                "        return x[:, :n]\n",
                unsafe=True,
            ),
            Example(
                "class CenterCrop(nn.Module):\n"
                "    def forward(self, skip, x):\n"
                "        crop = torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]\n"
                "        pad = -torch.stack((crop // 2, crop - crop // 2)).t().flatten()\n"
                "        return F.pad(skip, pad.tolist())\n",
                "class CenterCrop(nn.Module):\n"
                "    def forward(self, skip, x):\n"
                "        crop = torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]\n"
                "        pad = -torch.stack((crop // 2, crop - crop // 2)).t().flatten()\n"
                "        return F.pad(skip, _trt_tolist(pad))\n",
                unsafe=True,
            ),
        ),
        references=(_AVOIDING_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.Tensor.item.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._observed: ObservedFacts = self.provider(ObservedFacts)
        self._tensors: list[set[str]] = []
        self._functions: list[cst.FunctionDef] = []
        #: Where a 0-d tensor stands for the number (arithmetic operands, slice bounds, the
        #: arguments of ``torch.arange``), and the ``.item()`` calls assigned to a plain name.
        self._operands: set[int] = set()
        self._assigned: dict[int, str] = {}
        #: The arithmetic each operand belongs to, and the calls each argument is passed to.
        self._flow = _NumberFlow()
        #: Enclosing one-argument ``math.<fn>(...)`` calls that torch has a function for.
        self._math_calls: list[tuple[cst.Call, str]] = []
        #: ``int(t.item())``: the ``.item()`` call's id → the ``int`` call that holds the number.
        self._int_of: dict[int, cst.Call] = {}
        #: The list arguments of calls that read each element as a number (``F.pad``'s ``pad``).
        self._list_args: set[int] = set()
        #: Each call argument's (by id, parentheses stripped) call.
        self._argument_of: dict[int, cst.Call] = {}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if type(node.operator) in _ARITHMETIC:
            self._operands.update(id(strip_parens(side)) for side in (node.left, node.right))
        self._flow.note(node, self._reads_numbers)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if type(node.operator) in (cst.Minus, cst.Plus):
            self._operands.add(id(strip_parens(node.expression)))
        self._flow.note(node, self._reads_numbers)

    def visit_Slice(self, node: cst.Slice) -> None:
        self._operands.update(_slice_bounds(node))

    def _reads_numbers(self, call: cst.Call) -> bool:
        """A call whose positional arguments are numbers a 0-d integer tensor stands for: the
        bounds of ``torch.arange``, the sizes of ``torch.zeros``-like functions and of a tensor's
        ``view``/``reshape``/``expand``/``repeat``/``new_zeros``... (each reads the tensor through
        ``__index__``, and a trace follows it). The method's receiver is not asked for: it is
        often a name bound later in the function (``patch = patch.reshape(h, w)``), and the
        array-likes with these methods (NumPy's too) read a size through ``__index__`` alike."""
        qualified = self.context.qualified_names(call.func)
        if _NUMBER_FUNCTIONS.intersection(qualified):
            return True
        if qualified:
            return False
        parts = method_call(call)
        return parts is not None and parts[1] in _SIZE_METHODS

    def _math_function(self, node: cst.Call) -> str | None:
        """For a ``math.<fn>(...)`` call: the torch function of the same value (``exp`` for
        ``math.exp(x)`` with one positional argument), or "" where torch has none; else None."""
        for qualified in self.context.qualified_names(node.func):
            if qualified.startswith("math."):
                if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                    return ""
                return _MATH_IN_TORCH.get(qualified[5:], "")
        return None

    def leave_Call(self, original_node: cst.Call) -> None:
        if self._math_calls and self._math_calls[-1][0] is original_node:
            self._math_calls.pop()

    def _math_fix(self, node: cst.Call) -> Fix | None:
        """``math.exp(-t.item() / k)`` → ``torch.exp(-t / k)``: the item in the call's arithmetic."""
        call, function = self._math_calls[-1]
        argument = call.args[0].value if call.args else None
        if len(self._math_calls) != 1 or not function or not _arithmetic_path(argument, node):
            # `math.floor(...)` (an int), `math.exp(math.log(...))`: some math call would read
            # the tensor back into a number, so dropping the item only hides the baked value.
            return None
        inner = argument.deep_replace(node, method_call(node)[0])  # type: ignore[index]
        replacement = cst.Call(func=self.context.torch_attr(function), args=[cst.Arg(inner)])  # type: ignore[arg-type]
        return Fix({call: replacement}, safety=Safety.UNSAFE)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target, value = node.targets[0].target, node.value
        if type(target) is cst.Name:
            self._assigned[id(value)] = target.value
        elif type(target) is cst.Tuple and type(value) is cst.Tuple and len(target.elements) == len(value.elements):
            # `t, h = (g[0].item() // m, ...)`: each element goes to its own name
            for name, element in zip(target.elements, value.elements):
                if type(name) is cst.Element and type(element) is cst.Element and type(name.value) is cst.Name:
                    self._assigned[id(element.value)] = name.value.value

    def _item_fix(self, node: cst.Call) -> Fix | None:
        """Drop ``.item()`` where a 0-d tensor stands for its number (see the rule's doc)."""
        if not self._functions:
            return None
        if self._math_calls:
            return self._math_fix(node)
        # `int(t.item())` (Phi-4's `int(mask.sum().item())`): the int is the number; `t.long()` is the
        # same integer, truncated toward zero as `int` does, as a 0-d tensor.
        whole = self._int_of.get(id(node))
        number = whole if whole is not None else node
        name = self._assigned.get(id(number))
        receiver = method_call(node)[0]  # type: ignore[index]
        # Where the number goes to a method's parameter (`self.tables(dim, t.max().item() + 1)`), the tensor
        # stands for it only while tracing: `_trt_item(t)`, whose eager value is the item's.
        traced = (lambda: None) if whole is not None else (lambda: self._traced_number_fix(node, ITEM_HELPER, receiver))
        if id(number) not in self._operands and (
                name is None or not _number_uses_only(self._functions[-1], name, self._reads_numbers)):
            return traced()
        top = self._flow.top(number, self._is_tensor)
        held = self._assigned.get(id(top)) if top is not None else None
        if top is None or (held not in (None, name) and _read_as_call_argument(
                self._functions[-1], held, self._reads_numbers)):
            # `torch.full(s, fill_value=t.min().item() - 1.0)`: a call that wants a number
            # (`torch.full` raises on a tensor, `range`, `int`...) would get a tensor
            return traced()
        if name is not None and len(self.context.resolver.bindings(self._functions[-1]).sites.get(name, ())) != 1:
            return None  # assigned elsewhere too: another value may reach the same uses
        if whole is not None:
            return Fix({whole: cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("long")))},
                       safety=Safety.UNSAFE)
        return Fix({node: receiver}, safety=Safety.UNSAFE)

    def _int_fix(self, node: cst.Call) -> Fix | None:
        """``int(t)`` → ``_trt_int(t)`` where the number only goes where a traced 0-d tensor stands for it:
        directly, or through the name its arithmetic is assigned to, into arithmetic, slice bounds, sizes,
        ``torch.arange``, or a parameter of a method of the same class that uses it only so or in a
        cache key (see the rule's doc). Eager code keeps ``int``; a trace gets the tensor."""
        return self._traced_number_fix(node, INT_HELPER, node.args[0].value)

    def _traced_number_fix(self, node: cst.Call, helper: str, value: cst.BaseExpression) -> Fix | None:
        """``node`` (``int(t)``, ``t.item()``) → ``helper(value)`` where its number goes only where a traced 0-d
        tensor stands for it (:meth:`_int_fix`)."""
        if not self._functions or self._math_calls:
            return None
        top = self._flow.top(node, self._is_tensor)
        if top is None:
            # `self.tables(dim, int(t.max()) + 1)`: the arithmetic is an argument of a method of the class
            outer: cst.CSTNode = node
            while id(outer) in self._flow._parents:
                outer = self._flow._parents[id(outer)]
            call = self._argument_of.get(id(outer))
            where = self.current_method()
            parameters = _self_call_parameters(call, where[0].node if where else None) if call else None
            parameter = parameters[1].get(id(outer)) if parameters is not None else None
            if parameter is None or not _parameter_numbers_only(
                    parameters[0], parameter, self._reads_numbers, self.context.resolver):  # type: ignore[index]
                return None
            return Fix({node: helper_call(helper, value)}, safety=Safety.UNSAFE, helpers=(helper,))
        name = self._assigned.get(id(top))
        if id(top) not in self._operands:
            function = self._functions[-1]
            if name is None or len(self.context.resolver.bindings(function).sites.get(name, ())) != 1:
                return None  # not a number place, or bound elsewhere too: another value may reach the uses
            where = self.current_method()
            if not _int_uses_only(function, name, self._reads_numbers, where[0].node if where else None,
                                  self.context.resolver):
                return None
        return Fix({node: helper_call(helper, value)}, safety=Safety.UNSAFE, helpers=(helper,))

    def _number_lists(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The arguments of ``call`` that are lists whose every element it reads as a number (a size,
        a pad width), which a traced 0-d tensor stands for: ``F.pad``'s ``pad``, ``F.interpolate``'s
        ``size``, the one list of sizes of ``torch.zeros``-like functions, ``torch.reshape`` and a
        tensor's ``view``/``reshape``/``expand``/``new_zeros``... (each checked to export a graph
        that follows the traced elements with the TorchScript exporter). The list inside a
        ``tuple(...)`` or ``list(...)`` there counts too: the copy holds the same elements."""
        values = self._number_list_arguments(call)
        for value in list(values):
            if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("tuple", "list") \
                    and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star \
                    and not self.context.resolver.binds(value.func.value):
                values.append(value.args[0].value)
        return values

    def _number_list_arguments(self, call: cst.Call) -> list[cst.BaseExpression]:
        """:meth:`_number_lists` without looking inside ``tuple(...)``."""
        qualified = self.context.qualified_names(call.func)
        for name, (position, keyword) in _NUMBER_LIST_ARGUMENTS.items():
            if name in qualified:
                return [arg.value for index, arg in enumerate(call.args) if not arg.star and (
                    (arg.keyword is None and index == position)
                    or (arg.keyword is not None and arg.keyword.value == keyword))]
        positional = [arg.value for arg in call.args if arg.keyword is None]
        if len(positional) != 1 or any(arg.star for arg in call.args):
            return []  # `x.view(h, w)` takes numbers, not a list
        if _NUMBER_FUNCTIONS.intersection(qualified) and "torch.arange" not in qualified:
            return positional
        parts = method_call(call)
        if not qualified and parts is not None and parts[1] in _SIZE_LIST_METHODS:
            return positional
        return []

    def _tolist_fix(self, node: cst.Call) -> Fix | None:
        """``t.tolist()`` → ``_trt_tolist(t)`` where the list only goes where a call reads each element
        as a number (see the rule's doc): eager code keeps ``tolist``, a trace gets the elements."""
        if not self._functions:
            return None
        if id(node) not in self._list_args:
            name = self._assigned.get(id(node))
            function = self._functions[-1]
            if name is None or len(self.context.resolver.bindings(function).sites.get(name, ())) != 1:
                return None  # bound elsewhere too: another value may reach the same uses
            if not _list_uses_only(function, name, self._number_lists):
                return None
        receiver = strip_parens(method_call(node)[0])  # type: ignore[index]  # `(-p).tolist()` → `_trt_tolist(-p)`
        return Fix({node: helper_call(TOLIST_HELPER, receiver)}, safety=Safety.UNSAFE, helpers=(TOLIST_HELPER,))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)
        names: set[str] = set()
        where = self.current_method()
        in_forward = (
            where is not None and where[1] is node and where[0].is_module and node.name.value == "forward"
        )
        names |= tensor_parameters(self.context, node, where is not None and where[1] is node, in_forward,
                                   none_is_literal=False)
        self._tensors.append(names)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._tensors.pop()
        self._functions.pop()

    def _size_conversion(self, node: cst.Call) -> bool:
        """The recorded runs read no tensor value here but the export warned at the line: the
        operand is a number in eager mode and a traced size in the trace (``int(patch_h * 14)``
        with ``patch_h`` handed down from ``x.shape``), TRT712's."""
        return self._observed.known and self._observed.reads_values(node) is False and self._observed.traced(node)

    def _is_tensor(self, expr: cst.BaseExpression) -> bool:
        if not self._tensors:
            return False
        return tensor_expression(
            expr,
            lambda func: next((q for q in self.context.qualified_names(func) if q.startswith("torch.")), None),
            lambda name: name in self._tensors[-1] and not self.shadowed(name),
            self._observed.is_tensor if self._observed.known else None,
        )

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._tensors:
            return
        tensor = self._is_tensor(original_node.value)
        for target in original_node.targets:
            if type(target.target) is cst.Name:
                (self._tensors[-1].add if tensor else self._tensors[-1].discard)(target.target.value)
            else:
                for name in bound_names(target.target):
                    self._tensors[-1].discard(name)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if self._tensors and type(original_node.target) is cst.Name:
            name = original_node.target.value
            value = original_node.value
            if _is_tensor_annotation(self, original_node.annotation) or (value is not None and self._is_tensor(value)):
                self._tensors[-1].add(name)
            else:
                self._tensors[-1].discard(name)

    def visit_For(self, node: cst.For) -> None:
        if self._tensors:
            for name in bound_names(node.target):
                self._tensors[-1].discard(name)

    def visit_Call(self, node: cst.Call) -> None:
        self._argument_of.update((id(strip_parens(arg.value)), node) for arg in node.args)
        if self._reads_numbers(node):
            self._operands.update(_positional_numbers(node))
        self._list_args.update(id(value) for value in self._number_lists(node))
        self._flow.note(node, self._reads_numbers)
        function = self._math_function(node)
        if function is not None:
            self._math_calls.append((node, function))
        func = node.func
        if type(func) is cst.Name and func.value == "int" and len(node.args) == 1 and node.args[0].keyword is None \
                and not node.args[0].star and not self.context.qualified_names(func):
            inner = node.args[0].value
            if type(inner) is cst.Call and not inner.args and method_call(inner) is not None \
                    and method_call(inner)[1] == "item":  # type: ignore[index]
                self._int_of[id(inner)] = node
        method = self.tensor_method(node, "item", "tolist", "numpy")
        if method is not None:
            receiver = method_call(node)[0]  # type: ignore[index]
            root, _ = _root_name(receiver)
            if root == "self" or (method != "numpy" and node.args):
                return
            if self._observed.reads_values(node) is False and not self._is_tensor(receiver):
                return  # it ran and read no tensor value: a NumPy scalar's `.item()`, say
            fix = self._item_fix(node) if method == "item" else self._tolist_fix(node) if method == "tolist" else None
            self.found(node, f"`.{method}()` turns a tensor into a Python value: the traced export keeps the "
                       "example's value as a constant; keep it a tensor or pass it in as an input", fix)
            return
        func = node.func
        if (
            type(func) is cst.Name and func.value in _CONVERSIONS and len(node.args) == 1
            and not has_star_args(node) and node.args[0].keyword is None
            and not self.context.qualified_names(func)
            and (self._is_tensor(node.args[0].value) or self._observed.reads_values(node) is True)
            and not self._size_conversion(node)
        ):
            fix = self._int_fix(node) if func.value == "int" else None
            self.found(node, f"`{short_code(node)}` reads a tensor value into Python: the traced export keeps the "
                       "example's value as a constant; keep it a tensor or pass it in as an input", fix)


@dataclass
class _LenFrame:
    function: cst.FunctionDef
    tensor_params: dict[str, cst.Param]
    forward_params: set[str]
    candidates: list[tuple[cst.Call, str, bool]] = field(default_factory=list)  # call, name, inside try


#: How a parameter can be rebound in its function (for the message that withholds the fix).
_REBINDINGS = {
    ASSIGN: "an assignment", FOR: "a `for` target", WITH: "`with ... as`", EXCEPT: "`except ... as`",
    MATCH: "a `match` capture", WALRUS: "`:=`", DEL: "`del`", GLOBAL: "`global`", NONLOCAL: "`nonlocal`",
    NESTED_NONLOCAL: "`nonlocal` in a nested function", IMPORT: "an import", DEF: "a nested `def`",
    CLASS: "a nested `class`", TYPE: "a `type` statement",
}


class LenOfTensor(RuntimeScopeRule):
    scope = "anywhere"
    needs_text = (b"len",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT704",
        name="len-of-tensor",
        summary="`len(x)` of a tensor is traced as a constant; `x.shape[0]` stays symbolic",
        doc="""\
What it finds: `len(x)` where `x` is a parameter annotated `torch.Tensor` (rewritten), and
`len(x)` of an unannotated parameter of a module's `forward` that the method also uses as a
tensor (`x.shape`, `x.sigmoid()`...; reported only: an input that may be a list of masks,
`attn_masks`, is left alone). `len` of an attribute or subscript chain (`len(levels[0])`,
`len(self.pairs[k])`) is only considered where a recorded run saw a tensor there (below):
without one it may be any container, and nothing is said.

Why it hurts: the tracer sees `len(x)` as a Python int, so the exported graph carries the
example's first dimension as a constant: exported with a dynamic batch axis, a Reshape or an
`arange` built from it is wrong, or fails, for every other batch size. `x.shape[0]` is
recorded as `Shape` → `Gather` and follows the input.

The rewrite: `len(x)` → `x.shape[0]`.

Fix safety: safe, given the annotation. For a tensor, `len(x)` is defined as its first
dimension, and the two agree on every shape, empty tensors included. One difference: on a
0-d tensor `len(x)` raises `TypeError` and `x.shape[0]` raises `IndexError`; both fail, so
`len` calls inside a `try` statement are reported without a fix. The fix trusts the
`Tensor` annotation (Python does not enforce it) and is withheld when the parameter has a
default other than `None` (`x: Tensor = ()` is a tuple whenever the caller leaves it out),
or is rebound anywhere in the function by anything but `x = x.<tensor method>(...)`,
`x = x[...]` or an augmented assignment (also as one name of a tuple given as many values,
`x, xp = x.to(t), xp.to(t)`: kornia's `interp`): another assignment, a `for`, `with ... as` or
`except ... as` target, `:=`, a `match` capture, `del`, `global`/`nonlocal` (also in a
nested function), an import, a nested `def` or `class` of that name. A plain assignment the
`len` cannot see does not count: one after it that no loop around both brings back
(`B = len(x)`, then `x = self.conv(x)`), or one whose value holds the call; a `len` inside a
lambda or a generator expression runs later and sees every assignment. A `len(x)` inside a
lambda or a comprehension that binds its own `x` is not about the parameter and is left
alone. With a `None` default (`x: Tensor = None`) the fix is applied: when `x` is None,
`len(None)` raises `TypeError` and `None.shape` raises `AttributeError`; both fail, with
different exception types. Without an annotation `x` may be a list, a tuple or another
container with `__len__` (DESIGN §8.5), so `len(x)` is only reported, unless a recorded run
(`check/apply --facts`, or `migrate`'s own observation) saw a tensor there on every call, in
any function, not only in `forward`. The observation speaks only for the calls the run made,
so which fix it gets depends on the file's static call graph. When every reference to the
function is a call that ran, made from a module's `forward` or from functions whose own
callers pass the same test, and the function is `forward` or private (`_name`: a public name
may be imported and called from files the run never reached), the rewrite is `x.shape[0]`,
an unsafe fix whose assumption (`x` is a tensor at every call) the observation proves, applied
without `--unsafe`. Otherwise (`count(items)` also called by another method with a list) it
is `_trt_len(x)`, an inserted helper that is `x.shape[0]` for a tensor with a first dimension
and `len(x)` for everything else, 0-d tensors included (the same values and exceptions for
every type: safe). `migrate`'s report says which. Applies to every TensorRT version.""",
        fix=Safety.SAFE,
        proof=prove_len,
        assumption="the argument of `len` is a tensor at every call, of every caller (then `len(x)` is `x.shape[0]`)",
        fails_when=("the argument is no tensor at a call the observed run never made: a list raises "
                    "`AttributeError` at `.shape`", *NUMBER_AS_TENSOR_FAILURES),
        examples=(
            Example(
                "def flatten_rois(rois: torch.Tensor):\n    return rois.reshape(len(rois), -1)\n",
                "def flatten_rois(rois: torch.Tensor):\n    return rois.reshape(rois.shape[0], -1)\n",
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        x = x.flatten(1)\n"
                "        return torch.arange(len(x))[:, None] + x\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        x = x.flatten(1)\n"
                "        return torch.arange(x.shape[0])[:, None] + x\n",
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, boxes):\n"
                "        return boxes.new_zeros(len(boxes))\n"
            ),
        ),
        references=(_AVOIDING_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.Tensor.size.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._frames: list[_LenFrame] = []
        self._try = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        where = self.current_method()
        is_method = where is not None and where[1] is node
        params = node.params
        listed = [*params.posonly_params, *params.params]
        if is_method and listed and "staticmethod" not in decorator_names(node):
            listed = listed[1:]
        listed += list(params.kwonly_params)
        tensors = {p.name.value: p for p in listed if _is_tensor_annotation(self, p.annotation)}
        forward = set()
        if is_method and where[0].is_module and node.name.value == "forward":  # type: ignore[index]
            forward = {p.name.value for p in listed if p.annotation is None and not literal_default(p)}
        self._frames.append(_LenFrame(node, tensors, forward))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        frame = self._frames.pop()
        for call, name, in_try in frame.candidates:
            param = frame.tensor_params.get(name)
            if param is not None:
                why = (self._why_not_rewritten(frame.function, param, call)
                       or ("it is inside a `try`" if in_try else None))
                if why is None:
                    fix = Fix({call: _shape0(call.args[0].value)})
                    self.report(call, f"len({name}) is traced as a constant; `{name}.shape[0]` follows the input",
                                fix)
                else:
                    self.report(call, f"len({name}) is traced as a constant; use `{name}.shape[0]` "
                                f"(not rewritten: {why})")
            elif self._observed_tensor(call):
                observed = self.provider(ObservedFacts)
                unseen = unobserved_caller(self.context.module, frame.function, observed.ran, observed.line)
                if unseen is None:
                    fix = Fix({call: _shape0(call.args[0].value)}, safety=Safety.UNSAFE,
                              evidence=f"the static call graph: only observed code calls `{frame.function.name.value}`")
                    self.report(call, f"len({name}) is traced as a constant; `{name}` was a tensor in every observed "
                                f"call, and `{name}.shape[0]` follows the input", fix)
                else:
                    # The observation speaks for the calls the run made only: keep len() for the others.
                    fix = Fix({call: helper_call(LEN_HELPER, call.args[0].value)}, helpers=(LEN_HELPER,),
                              evidence=f"`{LEN_HELPER}` is len() for anything but a tensor, since {unseen}")
                    self.report(call, f"len({name}) is traced as a constant; `{name}` was a tensor in every observed "
                                f"call, but {unseen}: `{LEN_HELPER}({name})` takes `.shape[0]` of a tensor only", fix)
            elif name in frame.forward_params and _used_as_tensor(frame.function, name):
                self.report(call, f"len({name}) is traced as a constant if `{name}` is a tensor; use "
                            f"`{name}.shape[0]` (not rewritten: `{name}` is not annotated as a Tensor)")

    def _observed_tensor(self, call: cst.Call) -> bool:
        """A recorded run (``--facts``, or inside ``migrate``) saw a tensor at this ``len`` each time."""
        return self.provider(ObservedFacts).proof(self.info, call) is not None

    def _why_not_rewritten(self, function: cst.FunctionDef, param: cst.Param, call: cst.Call) -> str | None:
        """Why the annotation alone does not prove ``param`` is still a tensor at this ``len``, if so."""
        default = param.default
        if default is not None and not (type(default) is cst.Name and default.value == "None"):
            return "its default value may not be a tensor"
        name = param.name.value
        resolver = self.context.resolver
        for kind, value in resolver.bindings(function).sites.get(name, ()):
            if kind in (PARAM, AUGASSIGN, ANNOTATION):
                continue  # `x += 1` and `x: Tensor` keep a tensor a tensor
            if kind == ASSIGN and value is not None and _keeps_tensor(name, value):
                continue
            if kind == ASSIGN and value is not None and not _reaches(function, value, call):
                continue  # `B = len(x)` before `x = self.conv(x)`: the len still sees the parameter
            return f"it is reassigned in this function ({_REBINDINGS.get(kind, kind)})"
        if name in resolver.walrus(function):
            return f"it is reassigned in this function ({_REBINDINGS[WALRUS]})"
        return None

    def visit_Try(self, node: cst.Try) -> None:
        self._try += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        self._try -= 1

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._try += 1

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self._try -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active():
            return
        func = node.func
        if not (type(func) is cst.Name and func.value == "len"):
            return
        if self.context.resolver.binds("len"):
            return  # an import, a definition or a local named `len`: not the builtin
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        arg = node.args[0].value
        if type(arg) is cst.Name:
            if not self.shadowed(arg.value):
                self._frames[-1].candidates.append((node, arg.value, self._try > 0))
        elif _access_chain(arg):
            # `len(self.pairs[k])`: only an observation can say it is a tensor (see leave_FunctionDef)
            self._frames[-1].candidates.append((node, code_of(arg), self._try > 0))


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)

#: ``math`` functions of one number → the torch function of the same value on a 0-d tensor.
_MATH_IN_TORCH = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "erf": "erf", "erfc": "erfc", "fabs": "abs",
}


def _arithmetic_path(root: cst.BaseExpression, target: cst.CSTNode) -> bool:
    """Is ``target`` reached from ``root`` through arithmetic operands only (parentheses allowed)?"""
    if root is target:
        return True
    if type(root) is cst.BinaryOperation and type(root.operator) in _ARITHMETIC:
        return _arithmetic_path(root.left, target) or _arithmetic_path(root.right, target)
    if type(root) is cst.UnaryOperation and type(root.operator) in (cst.Minus, cst.Plus):
        return _arithmetic_path(root.expression, target)
    return False


def _slice_bounds(node: cst.Slice) -> list[int]:
    """The ids of a slice's bounds and step (LibCST keeps parentheses on the node itself)."""
    return [id(part) for part in (node.lower, node.upper, node.step) if part is not None]


def _positional_numbers(node: cst.Call) -> list[int]:
    """The ids of the numbers a call that reads numbers gets positionally (``torch.arange``'s start,
    end and step; each size of ``x.view(h, w)``, or of one tuple ``x.view((h, w))``)."""
    values = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if len(values) == 1 and type(values[0]) in (cst.Tuple, cst.List):
        values = [e.value for e in values[0].elements if type(e) is cst.Element]  # type: ignore[union-attr]
    return [id(v) for v in values]


#: Functions whose positional arguments are numbers (bounds, sizes) a 0-d integer tensor stands for.
_NUMBER_FUNCTIONS = frozenset({"torch.arange", "torch.zeros", "torch.ones", "torch.empty", "torch.rand",
                               "torch.randn"})
#: Tensor methods whose positional arguments are sizes.
_SIZE_METHODS = frozenset({"view", "reshape", "expand", "repeat", "new_zeros", "new_ones", "new_empty", "tile"})
#: Tensor methods that take their sizes as one list, each element read as a number.
_SIZE_LIST_METHODS = _SIZE_METHODS
#: Functions → (position, keyword) of their argument that is a list of numbers (pad widths, sizes).
_NUMBER_LIST_ARGUMENTS = {
    "torch.nn.functional.pad": (1, "pad"), "torch.nn.functional.interpolate": (1, "size"),
    "torch.nn.functional.upsample": (1, "size"), "torch.reshape": (1, "shape"),
}
#: TRT702's helper for a ``tolist`` of sizes (``trtcodemod.helpers.tracing``).
TOLIST_HELPER = "_trt_tolist"
#: TRT702's helper for an ``int(t)`` whose number goes only where a traced 0-d tensor stands for it.
INT_HELPER = "_trt_int"
#: TRT702's helper for a ``t.item()`` whose number goes to a method's parameter that uses it as a number.
ITEM_HELPER = "_trt_item"


def _reads_only_at(function: cst.FunctionDef, name: str,
                   places: Callable[[cst.CSTNode], Iterable[int]]) -> list[cst.Name] | None:
    """The reads of ``name`` in ``function`` when each is at a place ``places`` marks (the ids it
    returns for each node, fed in source order), or None where one is elsewhere."""
    allowed: set[int] = set()
    not_reads: set[int] = set()  # attribute names, keywords and the assignment targets
    reads: list[cst.Name] = []
    for node in walk(function.body):
        allowed.update(places(node))
        kind = type(node)
        if kind is cst.Attribute:
            not_reads.add(id(node.attr))
        elif kind is cst.Arg and node.keyword is not None:
            not_reads.add(id(node.keyword))
        elif kind is cst.AssignTarget:
            not_reads.update(id(n) for n in walk(node.target) if type(n) is cst.Name)
        elif kind is cst.Name and node.value == name and id(node) not in not_reads:
            if id(node) not in allowed:
                return None
            reads.append(node)
    return reads


def _list_uses_only(function: cst.FunctionDef, name: str,
                    number_lists: Callable[[cst.Call], list[cst.BaseExpression]]) -> bool:
    """Is every read of ``name`` in ``function`` (at least one) a list argument whose elements the
    call reads as numbers (``F.pad(x, pad)``)? Anything else (``len(pad)``, ``pad[0]``, an f-string)
    would see 0-d tensors while tracing where it saw numbers."""
    return bool(_reads_only_at(function, name, lambda node: [
        id(value) for value in number_lists(node)] if type(node) is cst.Call else []))


def _number_uses_only(function: cst.FunctionDef, name: str, is_arange: Callable[[cst.Call], bool]) -> bool:
    """Is every read of ``name`` in ``function`` (at least one) a place where a 0-d tensor stands
    for the number: an operand of ``+ - * / // % **``, a slice bound, an argument of ``torch.arange``?"""
    flow = _NumberFlow()

    def operands(node: cst.CSTNode) -> list[int]:
        kind = type(node)
        found: list[int] = []
        if kind is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:
            found = [id(strip_parens(side)) for side in (node.left, node.right)]
        elif kind is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            found = [id(strip_parens(node.expression))]
        elif kind is cst.Slice:
            found = _slice_bounds(node)
        elif kind is cst.Call and is_arange(node):
            found = _positional_numbers(node)
        flow.note(node, is_arange)
        return found

    reads = _reads_only_at(function, name, operands)
    return bool(reads) and all(flow.top(read, lambda _: False) is not None for read in reads)


def _number_places(node: cst.CSTNode, reads_numbers: Callable[[cst.Call], bool]) -> list[int]:
    """The ids of the expressions ``node`` reads as numbers a 0-d tensor stands for: the operands of
    ``+ - * / // % **`` (and of a unary ``-``), a slice's bounds, the positional numbers of a call that
    reads numbers (``torch.arange``, sizes)."""
    kind = type(node)
    if kind is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:
        return [id(strip_parens(side)) for side in (node.left, node.right)]
    if kind is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        return [id(strip_parens(node.expression))]
    if kind is cst.Slice:
        return _slice_bounds(node)
    if kind is cst.Call and reads_numbers(node):
        return _positional_numbers(node)
    return []


def _method_named(klass: cst.ClassDef | None, name: str) -> cst.FunctionDef | None:
    """The one plain method ``name`` of ``klass`` (None where there is none, several, or a decorated one)."""
    if klass is None:
        return None
    found = [s for s in klass.body.body if type(s) is cst.FunctionDef and s.name.value == name]
    if len(found) != 1 or found[0].decorators:
        return None
    return found[0]


def _self_call_parameters(call: cst.Call, klass: cst.ClassDef | None) -> tuple[cst.FunctionDef, dict[int, str]] | None:
    """For ``self.m(a, b=c)`` where ``m`` is a plain method of ``klass``: ``m`` and each argument's
    parameter name (by the argument's id); None for anything else, or star arguments."""
    func = call.func
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != "self":
        return None
    method = _method_named(klass, func.attr.value)
    if method is None or has_star_args(call) or method.params.star_arg is not cst.MaybeSentinel.DEFAULT \
            and method.params.star_arg is not None:
        return None
    positional = [p.name.value for p in (*method.params.posonly_params, *method.params.params)][1:]
    names: dict[int, str] = {}
    for index, arg in enumerate(call.args):
        if arg.keyword is None:
            if index >= len(positional):
                return None
            names[id(arg.value)] = positional[index]
        else:
            names[id(arg.value)] = arg.keyword.value
    return method, names


def _key_uses_only(function: cst.FunctionDef, name: str) -> bool:
    """Is every read of ``name`` (at least one) a dictionary key: ``name in d`` / ``not in``, or ``d[name]``?
    A tuple key holding a 0-d tensor hashes by identity: while tracing, such a cache misses."""
    def places(node: cst.CSTNode) -> list[int]:
        if type(node) is cst.Comparison and len(node.comparisons) == 1 \
                and type(node.comparisons[0].operator) in (cst.In, cst.NotIn):
            return [id(strip_parens(node.left))]
        if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
            return [id(strip_parens(node.slice[0].slice.value))]
        return []
    return bool(_reads_only_at(function, name, places))


def _parameter_numbers_only(method: cst.FunctionDef, name: str, reads_numbers: Callable[[cst.Call], bool],
                            resolver) -> bool:
    """Does ``method`` use its parameter ``name`` only where a 0-d tensor stands for the number, or as an
    element of a tuple assigned to a name that is only a dictionary key (a cache's key)? ``name`` is bound
    nowhere else in the method."""
    if len(resolver.bindings(method).sites.get(name, ())) != 1:
        return False
    keys: dict[int, str] = {}  # id of a tuple element -> the name the tuple is assigned to
    for node in walk(method.body):
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
                and type(node.value) is cst.Tuple:
            key = node.targets[0].target.value
            for element in node.value.elements:
                if type(element) is cst.Element:
                    keys[id(element.value)] = key
    flow = _NumberFlow()
    used_keys: set[str] = set()

    def places(node: cst.CSTNode) -> list[int]:
        flow.note(node, reads_numbers)
        return _number_places(node, reads_numbers) + list(keys)

    reads = _reads_only_at(method, name, places)
    if not reads:
        return False
    for read in reads:
        if id(read) in keys:
            used_keys.add(keys[id(read)])
        elif flow.top(read, lambda _: False) is None:
            return False
    return all(len(resolver.bindings(method).sites.get(key, ())) == 1 and _key_uses_only(method, key)
               for key in used_keys)


def _int_uses_only(function: cst.FunctionDef, name: str, reads_numbers: Callable[[cst.Call], bool],
                   klass: cst.ClassDef | None, resolver) -> bool:
    """Is every read of ``name`` in ``function`` (at least one) a place where a 0-d tensor stands for the
    number (:func:`_number_places`), or an argument of ``self.m(...)`` whose parameter ``m`` uses so
    (:func:`_parameter_numbers_only`), with no call between that reads it otherwise?"""
    flow = _NumberFlow()
    passed: set[int] = set()

    def places(node: cst.CSTNode) -> list[int]:
        found = _number_places(node, reads_numbers)
        if type(node) is cst.Call and not reads_numbers(node):
            parameters = _self_call_parameters(node, klass)
            flow.note(node, reads_numbers)
            if parameters is not None:
                method, names = parameters
                for arg in node.args:
                    if _parameter_numbers_only(method, names[id(arg.value)], reads_numbers, resolver):
                        passed.add(id(arg.value))
                        found.append(id(strip_parens(arg.value)))
            return found
        flow.note(node, reads_numbers)
        return found

    reads = _reads_only_at(function, name, places)
    if not reads:
        return False
    held = {id(node.value): node.targets[0].target.value for node in walk(function.body)
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name}
    for read in reads:
        top = flow.top(read, lambda _: False)
        if top is not None and held.get(id(top), name) != name \
                and not _number_uses_only(function, held[id(top)], reads_numbers):
            return False  # `n = k + 1`, then `torch.full(s, n)`: the name the arithmetic goes to is read otherwise
        if top is None:
            # the number (or arithmetic on it) is a call's argument: only a parameter that passed
            current = read
            while id(current) in flow._parents:
                current = flow._parents[id(current)]
            if id(current) not in passed:
                return False
    return True


class _NumberFlow:
    """Where arithmetic on a number ends: the arithmetic each operand belongs to, and the call
    (other than ``torch.arange``) each argument is passed to. Fed nodes in source order."""

    def __init__(self) -> None:
        self._parents: dict[int, cst.CSTNode] = {}
        self._arguments: set[int] = set()

    def note(self, node: cst.CSTNode, is_arange: Callable[[cst.Call], bool]) -> None:
        kind = type(node)
        if kind is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:
            self._parents[id(node.left)] = self._parents[id(node.right)] = node
        elif kind is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            self._parents[id(node.expression)] = node
        elif kind is cst.Call and not is_arange(node):
            self._arguments.update(id(arg.value) for arg in node.args)

    def top(self, node: cst.CSTNode, is_tensor: Callable[[cst.BaseExpression], bool]) -> cst.CSTNode | None:
        """The outermost arithmetic ``node`` feeds (``node`` itself if none), or None where that is
        a call's argument. A known tensor operand on the way ends the search: that arithmetic made
        a tensor before the rewrite too (the top is then that operation)."""
        current = node
        while id(current) in self._parents:
            parent = self._parents[id(current)]
            if type(parent) is cst.BinaryOperation:
                other = parent.right if parent.left is current else parent.left
                if is_tensor(other):
                    return parent
            current = parent
        return None if id(current) in self._arguments else current


def _read_as_call_argument(function: cst.FunctionDef, name: str, is_arange: Callable[[cst.Call], bool]) -> bool:
    """Does a read of ``name`` reach a call's argument (not ``torch.arange``'s) through arithmetic?"""
    flow = _NumberFlow()
    reads = []
    for node in walk(function.body):
        flow.note(node, is_arange)
        if type(node) is cst.Name and node.value == name:
            reads.append(node)
    return any(flow.top(read, lambda _: False) is None for read in reads)


def _keeps_tensor(name: str, value: cst.BaseExpression) -> bool:
    """``x = x.view(...)``, ``x = x[...]``: a tensor ``x`` stays a tensor."""
    if type(value) is cst.Subscript:
        return type(value.value) is cst.Name and value.value.value == name
    if type(value) is cst.Call:
        parts = method_call(value)
        if parts is None or parts[1] not in _TENSOR_METHODS:
            return False
        receiver = parts[0]
        while type(receiver) is cst.Call and method_call(receiver) and method_call(receiver)[1] in _TENSOR_METHODS:
            receiver = method_call(receiver)[0]  # type: ignore[index]
        return type(receiver) is cst.Name and receiver.value == name
    return False


def _reaches(function: cst.FunctionDef, value: cst.BaseExpression, call: cst.Call) -> bool:
    """Can the assignment of ``value`` run before ``call`` in ``function``?

    Python jumps backwards only in loops: an assignment that comes after the call in the source
    (its value holds the call, or starts after it) reaches it only through a loop around both. A
    call inside a lambda or a generator expression runs later, whenever it is called or consumed.
    """
    nodes = list(walk(function.body))
    order = {id(node): number for number, node in enumerate(nodes)}
    if id(value) not in order or id(call) not in order:
        return True
    if any(type(node) in (cst.Lambda, cst.GeneratorExp) and _holds(node, call) for node in nodes):
        return True
    inside = any(node is call for node in walk(value))
    if order[id(value)] < order[id(call)] and not inside:
        return True
    return any(type(node) in (cst.For, cst.While) and _holds(node, value) and _holds(node, call) for node in nodes)


def _holds(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(node is inner for node in walk(outer))


def _access_chain(node: cst.BaseExpression) -> bool:
    """``a.b``, ``a[k]``, ``self.pairs[k].x``: attributes and plain subscripts down to a name, no call
    (``x.shape[0]`` in place of ``len(x)`` then reads the same object, once, as ``len`` did)."""
    if type(node) is cst.Attribute:
        return _access_chain(node.value) or type(node.value) is cst.Name
    if type(node) is cst.Subscript:
        simple = all(type(e.slice) is cst.Index and type(e.slice.value) in (cst.Name, cst.Integer)
                     and e.slice.star is None for e in node.slice)
        return simple and (type(node.value) is cst.Name or _access_chain(node.value))
    return False


def _shape0(tensor: cst.BaseExpression) -> cst.Subscript:
    return cst.Subscript(
        value=cst.Attribute(value=tensor, attr=cst.Name("shape")),
        slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer("0")))],
    )


RULES = (TensorToPython, LenOfTensor)
