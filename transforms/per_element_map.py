"""A comprehension over a tensor's first axis that applies a function to each element, then stacks (TRT366).

RetinaFace's decoding wrappers decode each image's boxes against one set of priors::

    boxes = torch.stack([decode(l, priors, variances) for l in loc])

Iterating a tensor makes a trace unroll the comprehension with the example's batch size. The rewrite
``_trt_stack_map(decode(l, priors, variances) for l in _trt_rows(loc))`` keeps the comprehension (as a
generator expression) for eager code and scripts, and maps its element function with ``torch.vmap``
while tracing.
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from trtcodemod.astutil import code_of, strip_parens, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import TRACING_HELPER
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.chunked_map import batch_of_one
from trtcodemod.transforms.stacked_rows import _first_axis, _plain, _range_bound, _stack_rest, first_axis_source

HELPER = "_trt_stack_map"
#: The same for a concatenation of elements each given a first axis of one (``torch.cat(out)`` of ``x.unsqueeze(0)``).
CAT_HELPER = "_trt_cat_map"
ROWS = "_trt_rows"
#: A batch's rows handed to another function, and their stack there (:func:`trtcodemod.helpers.mapping._trt_unbound`).
UNBOUND, LISTED, RESTACK = "_trt_unbound", "_trt_listed", "_trt_restack"

_ASSUMPTION = ("the comprehension's element function treats each element on its own (no element's result "
               "depends on another's, on how many there are, or on state the function changes), and where "
               "`torch.vmap` or the whole-batch element runs it, it computes what the loop computes")

#: Calls whose results differ from one call to the next: vmap draws them for the whole batch at once.
_RANDOM = frozenset({"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
                     "bernoulli", "multinomial", "normal", "normal_", "uniform_", "dropout", "dropout1d",
                     "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "exponential_",
                     "geometric_", "cauchy_", "log_normal_", "random_", "bernoulli_", "poisson"})

#: Methods that change the object they are called on: on a name other than the element, an outer write.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "remove",
                       "clear", "add", "discard", "__setitem__", "__setattr__"})

#: What a trace says where a comprehension iterates a tensor.
_ITERATING = "Iterating over a tensor"


def _called_name(call: cst.Call) -> str | None:
    """The last name of what ``call`` calls (``torch.rand`` → ``rand``, ``x.add_`` → ``add_``)."""
    func = call.func
    if type(func) is cst.Attribute:
        return func.attr.value
    return func.value if type(func) is cst.Name else None


def _last_name(func: cst.BaseExpression) -> str:
    """``f`` of ``f(...)``, ``self.m.f(...)``; empty for anything else."""
    return func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""


def _first_dim(args: Sequence[cst.Arg]) -> bool:
    """Do an unbind's remaining arguments take the first axis: none, ``0`` or ``dim=0``?"""
    return not args or len(args) == 1 and code_of(args[0].value).strip() == "0" \
        and (args[0].keyword is None or args[0].keyword.value == "dim")


#: Builtins that read rows handed to them, or copy them into a container that does not carry the batch
#: (``list(torch.unbind(images, dim=0))`` then ``.insert``, a video loader's frames).
_COPIES = frozenset({"list", "tuple", "set", "dict", "len", "zip", "enumerate", "iter", "sorted", "reversed", "map",
                     "filter", "sum", "any", "all", "min", "max", "print", "isinstance"})

#: Calls that give a tensor's pieces, a tuple: ``list`` of their result is no batch's rows.
_SPLITS = frozenset({"unbind", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes"})

#: Containers whose annotation says a parameter holds tensors (``Sequence[torch.Tensor]``).
_SEQUENCES = frozenset({"Sequence", "List", "list", "Tuple", "tuple", "Iterable"})


def _tensor_sequence(annotation: cst.BaseExpression) -> bool:
    """Is ``annotation`` a sequence of tensors: ``Sequence[torch.Tensor]``, ``List[Tensor]``, ``tuple[Tensor, ...]``?"""
    if type(annotation) is not cst.Subscript:
        return False
    head = annotation.value
    head_name = head.attr.value if type(head) is cst.Attribute else head.value if type(head) is cst.Name else ""
    if head_name not in _SEQUENCES or not annotation.slice or type(annotation.slice[0].slice) is not cst.Index:
        return False
    element = code_of(annotation.slice[0].slice.value).strip()
    return element in ("Tensor", "torch.Tensor")


def _refusal(elt: cst.BaseExpression, element: str) -> str | None:
    """Why the element expression ``elt`` (``element``: the loop variable) cannot be mapped, or None."""
    for node in walk(elt):
        row = batch_of_one(node)
        if type(row) is cst.Name and row.value == element:
            # a batch of one made of the element, for a batched call (a network): vmap folds the batch into it
            # with the traced size, or fails on its parameters; TRT396 takes such per-sample calls whole
            return "the element made a batch of one (`e[None]`, `e.unsqueeze(0)`) for a batched call"
        if type(node) in (cst.NamedExpr, cst.Yield, cst.Await, cst.Lambda, cst.ListComp, cst.GeneratorExp,
                          cst.SetComp, cst.DictComp):
            return "a nested scope or an assignment expression"
        if type(node) is not cst.Call:
            continue
        name = _called_name(node)
        if name in _RANDOM or "random" in code_of(node.func).strip().split("."):  # `np.random.poisson`
            return f"a random call (`{name}`): vmap draws for the whole batch at once"
        if name in ("setattr", "delattr"):
            return "it writes an attribute"
        func = node.func
        if type(func) is cst.Attribute and (name in _MUTATORS or name.endswith("_") and not name.endswith("__")):
            receiver = func.value
            while type(receiver) in (cst.Attribute, cst.Subscript):
                receiver = receiver.value
            if not (type(receiver) is cst.Name and receiver.value == element):
                return f"it changes an outer object (`.{name}`)"
    return None


class _Rename(cst.CSTTransformer):
    """``source[i]`` → ``i`` and ``source[i, 0]`` → ``i[0]``, for the range form."""

    def __init__(self, source: str, index: str) -> None:
        super().__init__()
        self.source, self.index = source, index

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if _element_read(original, self.source, self.index):
            if len(original.slice) == 1:
                return cst.Name(self.index)
            rest = [element.with_changes(comma=cst.MaybeSentinel.DEFAULT) if at == len(original.slice) - 2
                    else element for at, element in enumerate(original.slice[1:])]
            return original.with_changes(value=cst.Name(self.index), slice=rest)
        return updated


def _basic(element: cst.SubscriptElement) -> bool:
    """An index that picks by position alone: an integer, a slice of integers, ``None`` or ``...``. (A tensor index
    after the row's would move its axes to the front when written beside it, ``t[i, :, idx]``, and not as ``t[i][:,
    idx]``.)"""
    def number(node: cst.BaseExpression | None) -> bool:
        node = strip_parens(node) if node is not None else None
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
            node = strip_parens(node.expression)
        return node is None or type(node) is cst.Integer or type(node) is cst.Name and node.value == "None"

    part = element.slice
    if type(part) is cst.Slice:
        return number(part.lower) and number(part.upper) and number(part.step)
    value = strip_parens(part.value)
    return type(value) is cst.Ellipsis or number(value)


def _element_read(node: cst.CSTNode, source: str, index: str) -> bool:
    """Is ``node`` ``source[index]``, or ``source[index, ...]`` with positional indices after it (U-2-Net's
    ``norm_pred(d1[i, 0])`` per image: the row's first channel)?"""
    return type(node) is cst.Subscript and type(node.slice[0].slice) is cst.Index \
        and type(node.slice[0].slice.value) is cst.Name and node.slice[0].slice.value.value == index \
        and code_of(node.value).strip() == source and all(_basic(e) for e in node.slice[1:])


def _range_source(iterator: cst.BaseExpression) -> cst.BaseExpression | None:
    """``t`` of ``range(t.shape[0])``, ``range(t.size(0))`` or ``range(len(t))``, ``t`` a plain name or attribute
    chain."""
    bound = _range_bound(iterator)
    if bound is None:
        return None
    if _first_axis(bound):
        return bound.value.value if type(bound) is cst.Subscript else bound.func.value
    if type(bound) is cst.Call and type(bound.func) is cst.Name and bound.func.value == "len" \
            and len(bound.args) == 1 and bound.args[0].keyword is None and not bound.args[0].star \
            and _plain(bound.args[0].value):
        return bound.args[0].value
    return None


def _counted_source(iterator: cst.BaseExpression, before: list[cst.BaseStatement]) -> cst.BaseExpression | None:
    """:func:`_range_source`, or ``t`` of ``range(b)`` where ``b`` was last bound, in ``before``, to ``t``'s first
    size (``b = t.shape[0]``, ``b, c, h, w = t.shape``)."""
    source = _range_source(iterator)
    bound = _range_bound(iterator)
    if source is None and type(bound) is cst.Name:
        return first_axis_source(before, bound.value)
    return source


def _started_empty(statement: cst.BaseStatement) -> str | None:
    """``out`` of ``out = []``."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
            or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
        return None
    assign = statement.body[0]
    target = assign.targets[0].target
    if type(target) is not cst.Name or type(assign.value) is not cst.List or assign.value.elements:
        return None
    return target.value


def _appended(statement: cst.BaseStatement, out: str) -> cst.BaseExpression | None:
    """``value`` of ``out.append(value)``, a whole statement."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
            or type(statement.body[0]) is not cst.Expr:
        return None
    call = statement.body[0].value
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "append" \
            or type(call.func.value) is not cst.Name or call.func.value.value != out or len(call.args) != 1 \
            or call.args[0].keyword is not None or call.args[0].star:
        return None
    return call.args[0].value


def _whole_value(statement: cst.BaseStatement) -> cst.Call | None:
    """The call that is the whole value of ``return <call>`` or ``name = <call>``."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is cst.Return and type(small.value) is cst.Call:
        return small.value
    if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
            and type(small.value) is cst.Call:
        return small.value
    return None


def _inlined(bound: cst.BaseStatement, appended: cst.BaseExpression, loop: cst.For, use: cst.BaseStatement,
             function: cst.FunctionDef) -> cst.BaseExpression | None:
    """``appended`` with the loop's local ``d`` replaced by its value, for a body ``d = f(e)`` then
    ``out.append(g(d))``: ``d`` read once there, and after the loop rebound by the use itself (``d =
    torch.cat(out)``) or read nowhere outside the loop (eager mode leaves the last element's value in it)."""
    if type(bound) is not cst.SimpleStatementLine or len(bound.body) != 1 or type(bound.body[0]) is not cst.Assign \
            or len(bound.body[0].targets) != 1 or type(bound.body[0].targets[0].target) is not cst.Name:
        return None
    local, value = bound.body[0].targets[0].target.value, bound.body[0].value
    if type(loop.target) is cst.Name and loop.target.value == local:
        return None
    reads = [n for n in walk(appended) if type(n) is cst.Name and n.value == local]
    in_loop = [n for n in walk(loop) if type(n) is cst.Name and n.value == local]
    if len(reads) != 1 or len(in_loop) != 2 or any(type(n) is cst.Name and n.value == local for n in walk(value)):
        return None
    rebound = type(use) is cst.SimpleStatementLine and type(use.body[0]) is cst.Assign \
        and type(use.body[0].targets[0].target) is cst.Name and use.body[0].targets[0].target.value == local
    elsewhere = [n for n in walk(function.body) if type(n) is cst.Name and n.value == local]
    after = [n for n in walk(use) if type(n) is cst.Name and n.value == local]
    if not rebound and len(elsewhere) != len(in_loop):
        return None
    if rebound and len(after) != 1:
        return None  # the use reads the loop's last value too

    class Inline(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            return value.deep_clone() if original is reads[0] else updated

    return appended.visit(Inline())


#: Calls that allocate a tensor of given sizes, and those that allocate one like a tensor.
_ALLOCATORS = ("torch.zeros", "torch.empty", "torch.ones", "torch.full")
_LIKE = ("torch.zeros_like", "torch.empty_like", "torch.ones_like", "torch.full_like")
_NEW = frozenset({"new_zeros", "new_empty", "new_ones", "new_full"})


def _compact(node: cst.CSTNode) -> str:
    return "".join(code_of(node).split())


def _allocated_for(statement: cst.BaseStatement, source: str, context,
                   count: str | None = None) -> tuple[str, bool] | None:
    """``out`` of ``out = torch.zeros(t.shape[0], ...)`` (``empty``/``ones``/``full``, sizes as arguments or one
    tuple, or ``t.shape``), ``out = x.new_zeros(...)`` of the same sizes, or ``out = torch.zeros_like(t)``: a
    new tensor with one row per element of ``source`` (``t``, written compactly); and whether the sizes say
    ``t`` is a tensor (its ``shape``, ``zeros_like``; ``len(t)`` does not)."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
            or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
        return None
    assign = statement.body[0]
    target, call = assign.targets[0].target, assign.value
    if type(target) is not cst.Name or type(call) is not cst.Call or not call.args or call.args[0].star \
            or call.args[0].keyword is not None:
        return None
    first = call.args[0].value
    if context.refers_to(call.func, *_LIKE) is not None:  # (a tensor's rows: `zeros_like` takes only tensors)
        return (target.value, True) if _compact(first) == source else None
    if context.refers_to(call.func, *_ALLOCATORS) is None and not (
            type(call.func) is cst.Attribute and call.func.attr.value in _NEW):
        return None
    if type(first) in (cst.Tuple, cst.List):
        if not first.elements or type(first.elements[0]) is not cst.Element:
            return None
        first = first.elements[0].value
    rows = {f"{source}.shape[0]", f"{source}.size(0)", f"len({source})", f"{source}.shape", f"{source}.size()"}
    if count is not None and _compact(first) == count:
        return target.value, False  # a name bound to the first size (a NumPy array's has one too): no evidence
    return (target.value, _compact(first) != f"len({source})") if _compact(first) in rows else None


def _tracing_branch(traced: cst.BaseSmallStatement, loop: cst.For) -> cst.If:
    """``if _trt_tracing(): <traced> else: <the loop>``, in the loop's place."""
    return cst.If(test=cst.parse_expression(f"{TRACING_HELPER}()"),
                  body=cst.IndentedBlock([cst.SimpleStatementLine([traced])]),
                  orelse=cst.Else(cst.IndentedBlock([loop.with_changes(leading_lines=())])),
                  leading_lines=loop.leading_lines)


def _row_loop(loop: cst.BaseStatement, before: list[cst.BaseStatement]) -> tuple | None:
    """Of a ``for i in range(t.shape[0])`` (or ``range(b)``, ``b = t.shape[0]`` in the statements
    ``before`` it) or ``for i, e in enumerate(t)``: ``t``, the index's name, the element's (the index's again in
    the range form), and the target and iterator an element generator takes; None for any other statement."""
    if type(loop) is not cst.For or loop.orelse is not None or loop.asynchronous is not None \
            or type(loop.body) is not cst.IndentedBlock or not loop.body.body:
        return None
    iterator, target = loop.iter, loop.target
    if type(target) is cst.Tuple and len(target.elements) == 2 and type(iterator) is cst.Call \
            and type(iterator.func) is cst.Name and iterator.func.value == "enumerate" \
            and len(iterator.args) == 1 and iterator.args[0].keyword is None and not iterator.args[0].star \
            and all(type(e.value) is cst.Name for e in target.elements):
        index, element = (e.value.value for e in target.elements)
        source, element_target, element_iter = iterator.args[0].value, target.elements[1].value, \
            iterator.args[0].value
    elif type(target) is cst.Name:
        source = _counted_source(iterator, before)
        index = element = target.value
        element_target, element_iter = target, iterator
    else:
        return None
    if source is None or not _plain(source) or index == element and type(target) is not cst.Name:
        return None
    return source, index, element, element_target, element_iter


def _row_write(statement: cst.BaseStatement, out: str, index: str) -> cst.BaseExpression | None:
    """``value`` of ``out[index] = value`` (or ``out[index, :, :]``: the whole row), a whole statement."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
            or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
        return None
    target = statement.body[0].targets[0].target
    if type(target) is not cst.Subscript or type(target.value) is not cst.Name or target.value.value != out \
            or type(target.slice[0].slice) is not cst.Index \
            or code_of(target.slice[0].slice.value).strip() != index \
            or any(type(e.slice) is not cst.Slice or e.slice.lower or e.slice.upper or e.slice.step
                   for e in target.slice[1:]):
        return None
    return statement.body[0].value


def _written_value(loop: cst.For, out: str, index: str, function: cst.FunctionDef) -> cst.BaseExpression | None:
    """The value the loop's last statement writes into ``out``'s row (:func:`_row_write`), with the locals its
    statements before bind substituted in (DeepSTORM3D's ``Normalize01``: ``min_val = x[i].min()``, ``max_val =
    ...``, then ``out[i] = (x[i] - min_val) / (max_val - min_val)``); None where a statement is not a local's one
    binding or a local is read outside the loop (eager mode leaves the last element's value in it)."""
    body = list(loop.body.body)
    value = _row_write(body[-1], out, index)
    if value is None:
        return None
    values: dict[str, cst.BaseExpression] = {}
    loop_names = {n.value for n in walk(loop.target) if type(n) is cst.Name}
    for statement in body[:-1]:
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1 \
                or type(statement.body[0].targets[0].target) is not cst.Name:
            return None
        local = statement.body[0].targets[0].target.value
        if local in values or local in loop_names or local == out:
            return None
        elsewhere = [n for n in walk(function.body) if type(n) is cst.Name and n.value == local]
        in_loop = [n for n in walk(loop) if type(n) is cst.Name and n.value == local]
        bound = _substituted(statement.body[0].value, values)
        if len(elsewhere) != len(in_loop) or any(type(n) is cst.Name and n.value == local for n in walk(bound)):
            return None
        values[local] = bound
    return _substituted(value, values)


def _substituted(node: cst.BaseExpression, values: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``node`` with each read of a name of ``values`` replaced by its value, in parentheses."""
    if not values:
        return node

    class Substitute(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            if original.value not in values:
                return updated
            value = values[original.value].deep_clone()
            return value if value.lpar else value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
            return updated.with_changes(attr=original.attr)  # `x.min_val` names an attribute, not the local

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)

    return node.visit(Substitute())


def _unsqueezed_first(appended: cst.BaseExpression, context) -> cst.BaseExpression | None:
    """``x`` of ``x.unsqueeze(0)``, ``x.unsqueeze(dim=0)``, ``torch.unsqueeze(x, 0)`` or ``x[None]``: each element
    given a first axis of one, so their concatenation along it is their stack."""
    if type(appended) is cst.Call and not any(a.star for a in appended.args):
        args = appended.args
        if type(appended.func) is cst.Attribute and appended.func.attr.value == "unsqueeze" \
                and context.refers_to(appended.func, "torch.unsqueeze") is None and len(args) == 1 \
                and code_of(args[0].value).strip() == "0" and (args[0].keyword is None or args[0].keyword.value == "dim"):
            return appended.func.value
        if context.refers_to(appended.func, "torch.unsqueeze") is not None and len(args) == 2 \
                and args[0].keyword is None and code_of(args[1].value).strip() == "0" \
                and (args[1].keyword is None or args[1].keyword.value == "dim"):
            return args[0].value
    if type(appended) is cst.Subscript and len(appended.slice) == 1 \
            and type(appended.slice[0].slice) is cst.Index and code_of(appended.slice[0].slice.value).strip() == "None":
        return appended.value
    return None


class PerElementMap(Rule):
    needs_text = (*spelled("torch.stack", "torch.unbind"), b"list(", b" for ")  # `[e for e in x]` handed on
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT366",
        name="per-element-map",
        summary="`torch.stack([f(e) for e in t])` over a tensor's first axis: tracing unrolls it with the example's "
                "batch size; map `f` with `torch.vmap` while tracing",
        doc=f"""\
What it finds: `torch.stack([f(e) for e in t])` (also `torch.stack(..., 0)` / `dim=0`), and
`torch.stack([f(t[i]) for i in range(t.shape[0])])` (or `t.size(0)`, `len(t)`, or a name the function's
statements before bound to one of those last, `n = t.size(0)`, `b, c, h, w = t.shape`, `t` not bound
again after it; the same for the loop forms below) where `i` is read
only as `t[i]` (or as `t[i, 0]`, `t[i, :, 1:]`: integers, integer slices, `None` or `...` after it,
read as `e[0]`, `e[:, 1:]` of the row `e`: U-2-Net's `norm_pred(d1[i, 0])`), with `t` a plain name or attribute chain that is a tensor: visibly (a forward input,
a `Tensor` annotation, a torch call's result), seen holding one by a recorded run, or where the
recorded export warned "{_ITERATING}" at the comprehension. One `for`, no condition, the element a
single name. The same written as a loop: `out = []`, then `for e in t: out.append(f(e))`, then
`return torch.stack(out)` (or `y = torch.stack(out)`), the three statements one after the other, the
stack the whole value, `out` and `e` read nowhere else in the function; the loop's body may bind a
local first (`d = f(e)`, then `out.append(g(d))`: `g(f(e))`, `d` read nowhere after the loop unless
the stack's own statement rebinds it), and the stack may be a concatenation along the first axis of
elements given one (`torch.cat(out, dim=0)` of `x.unsqueeze(0)`, `torch.unsqueeze(x, 0)`, `x[None]`),
as pypots' BRITS computes each sample's time gaps: `{CAT_HELPER}`, `torch.cat` as written, the mapped
elements' two first axes merged while tracing. Or filled: `out = torch.zeros_like(t)` (or
`torch.zeros`/`empty`/`ones`/`full` and `x.new_zeros`... of `t.shape[0]`, `t.size(0)`, `len(t)` or
`t.shape` rows), then `for i in range(t.shape[0]): out[i] = f(t[i])` or `for i, e in enumerate(t):
out[i] = f(e)`, the two statements one after the other, the loop's only statement the write, `i`
read only as the row written, `out` not read while it is filled, the loop's names not read after it:
while tracing `out = {HELPER}(f(e) for e in {ROWS}(t)).to(out)` (the write's cast to `out`'s dtype
and device), the loop otherwise; this form also assumes each result has the shape of `out`'s row
(a row broadcast into it is not the same stack). The row may be written whole with slices
(`out[i, :, :, :] = ...`), and the loop may bind locals first, each once and read nowhere after the
loop (DeepSTORM3D's `Normalize01`: `min_val = x[i].min()`, `max_val = x[i].max()`, then `out[i] = (x[i]
- min_val) / (max_val - min_val)`): their values are substituted into the written one. Or in place: `for i in range(t.shape[0]): t[i] =
f(t[i])` (or `for i, e in enumerate(t): t[i] = f(e)`), a class-activation map normalised map by map,
`t` read in the write's value only as that row: while tracing `t.copy_({HELPER}(f(e) for e in
{ROWS}(t)))`, in place so that whoever holds `t` or a view of it sees the new rows as the loop's
writes show them (a value that reads `t` whole, `t[i] / t.max()`, would see earlier rows written:
not taken). Refused: an element
expression that draws random numbers (`torch.rand*`, `dropout`, `normal_`...), calls a method
that changes an object other than the element (`.append`, `.update`, an in-place `x.add_` on an
outer `x`), `setattr`, or holds a nested comprehension, a lambda or `:=`. Zoo 27's RetinaFace
decoding wrapper (`torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])`), gurkirt's RetinaNet
(`decode(flat_loc[b], anchors) for b in range(flat_loc.shape[0])`), TVQA+'s `torch.triu(p) for p in
product`. Migrate's `retinaface_decode` needs TRT364 too (its priors are built in a loop over sizes).

TRT406 (opt-in, detect only) names every comprehension over a tensor; this is the fix of its
stacked ones whose element function `torch.vmap` can batch.

Also the same stack with the identity for `f`, split across two functions, often two files: a
batch handed to a call as its rows (`list(x)`, `torch.unbind(x)`, `x.unbind(0)`, along the first
axis, or a copy of them, `[e for e in x]`: one `for`, no condition, the element itself; of a tensor
`x` that is a plain name or attribute chain; directly as an argument, or bound to a name the
function hands to a call), and a function that stacks a sequence it is handed
(`torch.stack(images)`, `0`, `dim=0`; `images` a parameter annotated as a sequence of tensors,
`Sequence[torch.Tensor]`, `List[Tensor]`, of a function the same file hands a batch's rows to, or
seen run by a recorded model: any other stack of a sequence stays as written). oriented_det's
RetinaNet export wrapper (`img_list = torch.unbind(images, dim=0)`, "so batch size stays symbolic
for ONNX") and zoo 29's YOLO-OBB and RTMDet wrappers (`list(x)`) hand the batch to
`extract_backbone_features`, whose `torch.stack(images, dim=0)` makes it a batch again; nanodet's
GFL head and a PicoDet port hand `[c for c in cls_preds]` to mmdetection's `images_to_levels`,
whose `torch.stack(target, 0)` is cut into feature levels (a parameter on both sides: taken where
the recorded run saw the comprehension's source hold a tensor and the stack run). The trace
splits the batch into the example's number of rows: ONNX Runtime refuses the Split at another
batch. The caller's half becomes `_trt_unbound(<rows>, x)` (`list(x)`, `[e for e in x]`:
`_trt_listed(x)`, which is `list(x)`), the callee's `_trt_restack(images)`. Both are safe: eager
mode, scripts and the other toolchains run the code as written (`_trt_listed` is `list`); while `torch.jit.trace` records, the rows come in a
list (a tuple for `unbind`) that also holds `x`, and `_trt_restack` of those rows, unchanged
(none replaced, added or removed: each still the object the caller made), is a copy of `x` (the
same values, dtype, shape and device as the stack), otherwise `torch.stack` as written; an empty
batch still raises. Alone, either half changes no graph: `migrate` applies the caller's half
where the trace's Split is located and the callee's half with it.

Why it hurts: iterating a tensor makes a traced export unroll the comprehension with the example's
batch size: at another batch the graph still returns the example's number of results (or fails).

The rewrite: `{HELPER}(f(e) for e in {ROWS}(t))` (the range form reads `t[i]` as the element `i`;
the loop form's three statements become the last one with this value, the elements computed where
the loop computed them: nothing runs in between).
Eager mode, `torch.fx`, `torch.compile` and `torch.export` iterate `t` and stack as written (a
generator expression consumed at once: the same calls in the same order); `torch.jit.script`
compiles the generator expression as the list comprehension it was, and the helpers take
`torch.stack` there. While `torch.jit.trace` records the model (both ONNX exporters' TorchScript
path), `{ROWS}` gives the rows without unrolling them and `{HELPER}` runs the generator's own code
once on the whole of `t`: first handing it `t` as one element whose operations apply to every row
(`_TrtElements`: element-wise arithmetic, reductions over the element or its axes, softmax,
indexes by numbers and slices), since vmap's batching rules reshape to the example's batch where an
element meets a reduction over it (U-2-Net's `norm_pred`, a min-max over each image); where that
form does not know an operation, under `torch.vmap`. Either way the graph follows the batch size.
Where vmap refuses the function too (a value read with `.item()`, a data-dependent `if`, random
ops, a result that is not one tensor) the elements are computed one by one as written, unrolled
as before.

Fix safety: unsafe: {_ASSUMPTION}. The code of `f` may lie in another file; `migrate` applies the
fix where the export warned at the comprehension and keeps it only where the rewritten model's
graph is faithful and equivalent on its inputs.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                "def decode_batch(loc: torch.Tensor, priors):\n"
                "    return torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])\n",
                "def decode_batch(loc: torch.Tensor, priors):\n"
                f"    return {HELPER}(decode(l, priors, [0.1, 0.2]) for l in {ROWS}(loc))\n",
                unsafe=True,
            ),
            Example(
                "def warp_all(images: torch.Tensor, matrices):\n"
                "    return torch.stack([warp(images[i], matrices) for i in range(images.shape[0])], dim=0)\n",
                "def warp_all(images: torch.Tensor, matrices):\n"
                f"    return {HELPER}(warp(i, matrices) for i in {ROWS}(images))\n",
                unsafe=True,
            ),
            Example(
                "def crops(images: torch.Tensor, box):\n"
                "    out = []\n"
                "    for image in images:\n"
                "        out.append(crop(image, box))\n"
                "    return torch.stack(out)\n",
                "def crops(images: torch.Tensor, box):\n"
                f"    return {HELPER}(crop(image, box) for image in {ROWS}(images))\n",
                unsafe=True,
            ),
            Example(
                "def features(backbone, images: Sequence[torch.Tensor]):\n"
                "    return backbone(torch.stack(images, dim=0))\n"
                "\n"
                "\n"
                "class Wrapper(torch.nn.Module):\n"
                "    def forward(self, x):\n"
                "        rows = torch.unbind(x, dim=0)\n"
                "        return features(self.backbone, rows), features(self.backbone, list(x)), \\\n"
                "            features(self.backbone, [image for image in x])\n",
                "def features(backbone, images: Sequence[torch.Tensor]):\n"
                f"    return backbone({RESTACK}(images))\n"
                "\n"
                "\n"
                "class Wrapper(torch.nn.Module):\n"
                "    def forward(self, x):\n"
                f"        rows = {UNBOUND}(torch.unbind(x, dim=0), x)\n"
                f"        return features(self.backbone, rows), features(self.backbone, {LISTED}(x)), \\\n"
                f"            features(self.backbone, {LISTED}(x))\n",
            ),
        ),
        references=("https://pytorch.org/docs/stable/generated/torch.vmap.html",
                    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or type(node.args[0].value) is not cst.ListComp \
                or self.context.refers_to(node.func, "torch.stack") is None or not _stack_rest(node):
            return
        comp = node.args[0].value
        clause = comp.for_in
        if clause.inner_for_in is not None or clause.ifs or clause.asynchronous is not None:
            return
        generator = self._generator(clause.target, clause.iter, comp.elt, node)
        if generator is None:
            return
        self.report(node, "a comprehension applies a function to each element along a tensor's first axis, then "
                          "stacks: a trace unrolls it with the example's batch size; "
                          f"`{HELPER}` maps the function with `torch.vmap` while tracing; assumes {_ASSUMPTION}",
                    Fix({node: cst.Call(cst.Name(HELPER), [cst.Arg(generator)])}, safety=Safety.UNSAFE,
                        helpers=(HELPER, ROWS)))

    def leave_Call(self, node: cst.Call) -> None:
        """A batch's rows handed to a call (the producer), and a sequence a function was handed stacked (the
        consumer): the two halves of a batch unbound in one function and stacked back in another."""
        self._consumer(node)
        if not self._hands_on(node):
            return  # already rewritten, a builtin that copies or reads the rows, or a stack right where they are made
        for arg in node.args:
            if arg.star or type(strip_parens(arg.value)) not in (cst.Call, cst.ListComp):
                continue
            self._producer(strip_parens(arg.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        """``rows = torch.unbind(x, dim=0)`` whose name the function hands to a call."""
        if len(node.targets) == 1:
            self._bound_rows(node.targets[0].target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """``img_list: Sequence[torch.Tensor] = torch.unbind(images, dim=0)`` (oriented_det's RetinaNet export
        wrapper, handing ``img_list`` to ``extract_backbone_features``)."""
        if node.value is not None:
            self._bound_rows(node.target, node.value)

    def _bound_rows(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """A producer bound to a name that the function hands to a call."""
        function = self.context.function
        value = strip_parens(value)
        if function is None or type(target) is not cst.Name or type(value) not in (cst.Call, cst.ListComp):
            return
        name = target.value
        if any(type(n) is cst.Call and self._hands_on(n)
               and any(not a.star and type(a.value) is cst.Name and a.value.value == name for a in n.args)
               for n in walk(function.body)):
            self._producer(value)

    def _hands_on(self, call: cst.Call) -> bool:
        """Can rows given to ``call`` reach a callee that stacks them: not a builtin that copies or reads them
        (``list(rows)``, ``len(rows)``), not a stack or concatenation right there?"""
        if type(call.func) is cst.Name and call.func.value in (UNBOUND, LISTED, *_COPIES):
            return False
        return self.context.refers_to(call.func, "torch.stack", "torch.cat", "torch.concat") is None

    def _producer(self, call: cst.Call | cst.ListComp) -> None:
        """``list(t)``, ``[e for e in t]``, ``torch.unbind(t)``, ``t.unbind()`` (along the first axis) of a tensor
        ``t``."""
        source = self._unbound_source(call)
        if source is None:
            return
        listed = type(call) is cst.ListComp or type(call.func) is cst.Name and call.func.value == "list"
        helper = LISTED if listed else UNBOUND
        # `list(x)` and `[e for e in x]` iterate x, which a trace warns of: their helper takes the rows from
        # `unbind(0)` while tracing
        new = cst.Call(cst.Name(LISTED), [cst.Arg(source.deep_clone())]) if listed else \
            cst.Call(cst.Name(UNBOUND), [cst.Arg(call.deep_clone()), cst.Arg(source.deep_clone())])
        self.report(call, f"a batch's rows (`{code_of(call).strip()}`) are handed on: a trace splits the batch into "
                          "the example's number of rows, and a callee that stacks them back (`torch.stack(images)`) "
                          f"concatenates that many; `{helper}` keeps the batch beside its rows while tracing, for "
                          f"the callee's `{RESTACK}`",
                    Fix({call: new}, safety=Safety.SAFE, helpers=(helper,)))

    def visit_Module(self, node: cst.Module) -> None:
        """The names of the functions this file hands a batch's rows to (the callee's half needs no recorded run
        where they are stacked in the same file), by the calls' form alone."""
        self._handed: set[str] = set()
        bound = {t.target.value for n in walk(node) if type(n) in (cst.Assign, cst.AnnAssign)
                 for t in (n.targets if type(n) is cst.Assign else [n]) if type(t.target) is cst.Name
                 and getattr(n, "value", None) is not None and type(strip_parens(n.value)) in (cst.Call, cst.ListComp)
                 and self._unbound_source(strip_parens(n.value), evidence=False) is not None}
        for call in walk(node):
            if type(call) is not cst.Call or not self._hands_on(call):
                continue
            for arg in call.args:
                value = strip_parens(arg.value)
                if not arg.star and (type(value) is cst.Name and value.value in bound
                                     or type(value) in (cst.Call, cst.ListComp)
                                     and self._unbound_source(value, evidence=False) is not None):
                    self._handed.add(_last_name(call.func))

    def _unbound_source(self, call: cst.Call | cst.ListComp, evidence: bool = True) -> cst.BaseExpression | None:
        """``t`` of a call that gives the rows of a tensor ``t`` along its first axis (or of ``[e for e in t]``, a
        copy of them: one ``for``, no condition, the element itself), else None (``evidence``: that ``t`` is a
        tensor is shown; else by the call's form alone)."""
        if type(call) is cst.ListComp:
            clause = call.for_in
            if clause.inner_for_in is not None or clause.ifs or clause.asynchronous is not None \
                    or type(clause.target) is not cst.Name or type(call.elt) is not cst.Name \
                    or call.elt.value != clause.target.value or not _plain(clause.iter):
                return None
            source = clause.iter
            return source if not evidence or self._tensor(source, call) and not self._pieces(source) else None
        args = call.args
        if any(a.star for a in args):
            return None
        func = call.func
        if type(func) is cst.Name and func.value == "list" and len(args) == 1 \
                and args[0].keyword is None and _plain(args[0].value):
            source = args[0].value
            return source if not evidence or self._tensor(source, call) and not self._pieces(source) else None
        if self.context.refers_to(func, "torch.unbind") is not None and args and args[0].keyword is None \
                and _plain(args[0].value) and _first_dim(args[1:]):
            return args[0].value
        if type(func) is cst.Attribute and func.attr.value == "unbind" and _plain(func.value) and _first_dim(args) \
                and (not evidence or self._tensor(func.value, call)):
            return func.value
        return None

    def _pieces(self, source: cst.BaseExpression) -> bool:
        """Is ``source`` a name the function binds to a tensor's pieces (``rows = x.unbind(0)``, ``x.split(2)``),
        a tuple of tensors the code evidence takes for one?"""
        function = self.context.function
        if function is None or type(source) is not cst.Name:
            return False
        for node in walk(function.body):
            if type(node) is cst.Assign and type(strip_parens(node.value)) is cst.Call \
                    and any(type(t.target) is cst.Name and t.target.value == source.value for t in node.targets):
                func = strip_parens(node.value).func
                name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
                if name in _SPLITS:
                    return True
        return False

    def _consumer(self, call: cst.Call) -> None:
        """``torch.stack(images)`` (``0``, ``dim=0``), ``images`` a parameter that holds a sequence of tensors:
        annotated so, where the file hands the function a batch's rows, or seen run by the recorded model. A rebinding before the stack (``images = [images]``) needs
        no care: the helper takes the batch only from rows a caller's ``_trt_unbound`` kept, unchanged."""
        function = self.context.function
        if function is None or not call.args or type(call.args[0].value) is not cst.Name \
                or self.context.refers_to(call.func, "torch.stack") is None or not _stack_rest(call):
            return
        name = call.args[0].value.value
        parameter = next((p for p in (*function.params.posonly_params, *function.params.params,
                                      *function.params.kwonly_params) if p.name.value == name), None)
        if parameter is None:
            return
        # Annotated, and handed a batch's rows in this file (by the callee's name; a module's `forward` by any call):
        # `check` and `apply` leave alone every other stack of a sequence, which no caller here unbinds.
        handed = function.name.value in self._handed or function.name.value in ("forward", "__call__") \
            and bool(self._handed)
        annotated = parameter.annotation is not None and _tensor_sequence(parameter.annotation.annotation)
        if not (annotated and handed) and not self.provider(ObservedFacts).ran(call):
            return
        self.report(call, f"`{name}`, a sequence the function is handed, is stacked along a new first axis: where "
                          "a caller made it from a batch's rows (`torch.unbind(x)`, `list(x)`), a trace splits the "
                          f"batch into the example's number of rows and concatenates them again; `{RESTACK}` takes "
                          f"the batch whole while tracing where the caller's `{UNBOUND}` kept it",
                    Fix({call: cst.Call(cst.Name(RESTACK), [cst.Arg(cst.Name(name))])},
                        safety=Safety.SAFE, helpers=(RESTACK,)))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        function = self.context.function
        if function is None:
            return
        body = list(node.body)
        for at in range(len(body) - 2):
            self._loop(function, *body[at:at + 3], before=body[:at])
        for at in range(len(body) - 1):
            self._filled(function, *body[at:at + 2], before=body[:at])
        for at, statement in enumerate(body):
            self._in_place(function, statement, before=body[:at])

    def _filled(self, function: cst.FunctionDef, start: cst.BaseStatement, loop: cst.BaseStatement,
                before: list[cst.BaseStatement]) -> None:
        """``out = torch.zeros(t.shape[0], ...)`` / ``for i in range(t.shape[0]): out[i] = f(t[i])`` (or ``for i,
        e in enumerate(t): out[i] = f(e)``), one after the other: a tensor made for the elements' results, filled
        row by row. While tracing, ``out`` is the mapped function's stack in its dtype and device."""
        header = _row_loop(loop, before)
        if header is None:
            return
        source, index, element, element_target, element_iter = header
        count = _range_bound(element_iter) if index == element else None
        allocated = _allocated_for(start, _compact(source), self.context,
                                   count.value if type(count) is cst.Name else None)
        if allocated is None:
            return
        out, tensor = allocated
        value = _written_value(loop, out, index, function)
        if value is None or out in (index, element):
            return
        names = [n.value for n in walk(function.body) if type(n) is cst.Name]
        in_loop = [n.value for n in walk(loop) if type(n) is cst.Name]
        if any(names.count(name) != in_loop.count(name) for name in (index, element)) \
                or any(type(n) is cst.Name and n.value == out for n in walk(value)):
            return  # the loop's variables read after it, or the tensor read while it is filled
        if index != element and any(type(n) is cst.Name and n.value == index for n in walk(value)):
            return  # the position read as a number
        generator = self._generator(element_target, element_iter, value, loop, tensor, before)
        if generator is None:
            return
        mapped = cst.Call(cst.Attribute(cst.Call(cst.Name(HELPER), [cst.Arg(generator)]), cst.Name("to")),
                          [cst.Arg(cst.Name(out))])
        rewritten = _tracing_branch(cst.Assign([cst.AssignTarget(cst.Name(out))], mapped), loop)
        self.report(loop, f"a loop fills `{out}`, made with one row per element along a tensor's first axis, with a "
                          "function of each element: a trace unrolls it with the example's batch size; while "
                          f"tracing, `{out}` is the function mapped by `{HELPER}`, in `{out}`'s dtype and device; "
                          f"assumes {_ASSUMPTION}, and that each result has the shape of `{out}`'s row",
                    Fix({loop: rewritten}, safety=Safety.UNSAFE, helpers=(HELPER, ROWS, TRACING_HELPER)))

    def _in_place(self, function: cst.FunctionDef, loop: cst.BaseStatement, before: list[cst.BaseStatement]) -> None:
        """``for i in range(t.shape[0]): t[i] = f(t[i])`` (or ``for i, e in enumerate(t): t[i] = f(e)``): each row
        of a tensor replaced by a function of itself (a CAM normalised map by map). While tracing, ``t`` takes
        the mapped function's stack in place (``copy_``: whoever holds ``t`` sees the new rows, as the loop's
        writes show them)."""
        header = _row_loop(loop, before)
        if header is None:
            return
        source, index, element, element_target, element_iter = header
        text = code_of(source).strip()
        if type(source) is not cst.Name:
            return
        value = _written_value(loop, source.value, index, function)
        if value is None or source.value in (index, element):
            return
        names = [n.value for n in walk(function.body) if type(n) is cst.Name]
        in_loop = [n.value for n in walk(loop) if type(n) is cst.Name]
        if any(names.count(name) != in_loop.count(name) for name in (index, element)):
            return  # the loop's variables read after it
        reads = sum(1 for n in walk(value) if type(n) is cst.Name and n.value == source.value)
        if reads != (0 if index != element else sum(1 for n in walk(value) if _element_read(n, text, index))):
            return  # the tensor read otherwise than at the iteration's own row: later rows would see earlier writes
        if index != element and any(type(n) is cst.Name and n.value == index for n in walk(value)):
            return  # the position read as a number
        generator = self._generator(element_target, element_iter, value, loop, index == element, before)
        if generator is None:
            return
        copied = cst.Call(cst.Attribute(source, cst.Name("copy_")),
                          [cst.Arg(cst.Call(cst.Name(HELPER), [cst.Arg(generator)]))])
        rewritten = _tracing_branch(cst.Expr(copied), loop)
        self.report(loop, f"a loop replaces each row along `{text}`'s first axis by a function of itself: a trace "
                          "unrolls it with the example's batch size; while tracing, the function mapped by "
                          f"`{HELPER}` is copied into `{text}` in place; assumes {_ASSUMPTION}, and that each result "
                          f"has the shape of `{text}`'s row",
                    Fix({loop: rewritten}, safety=Safety.UNSAFE, helpers=(HELPER, ROWS, TRACING_HELPER)))

    def _loop(self, function: cst.FunctionDef, start: cst.BaseStatement, loop: cst.BaseStatement,
              use: cst.BaseStatement, before: list[cst.BaseStatement]) -> None:
        """``out = []`` / ``for e in t: out.append(f(e))`` / ``return torch.stack(out)`` (or ``y = ...``), one
        after the other, ``out`` and ``e`` read nowhere else in the function: the stacked comprehension written
        as a loop. The stack is the use's whole value, so that the elements are still computed right after
        whatever ran before it."""
        out = _started_empty(start)
        if out is None or type(loop) is not cst.For or loop.orelse is not None or loop.asynchronous is not None \
                or type(loop.target) is not cst.Name or type(loop.body) is not cst.IndentedBlock \
                or len(loop.body.body) not in (1, 2):
            return
        appended = _appended(loop.body.body[-1], out)
        stack = _whole_value(use)
        if appended is None or stack is None or not stack.args or not _stack_rest(stack) \
                or type(stack.args[0].value) is not cst.Name or stack.args[0].value.value != out:
            return
        if len(loop.body.body) == 2:  # `d = f(e)` then `out.append(g(d))` (pypots' BRITS deltas): `g(f(e))`
            appended = _inlined(loop.body.body[0], appended, loop, use, function)
            if appended is None:
                return
        helper = HELPER
        if self.context.refers_to(stack.func, "torch.cat", "torch.concat", "torch.concatenate") is not None:
            if _unsqueezed_first(appended, self.context) is None:
                return  # a concatenation is a stack only of elements each given a first axis of one
            helper = CAT_HELPER
        elif self.context.refers_to(stack.func, "torch.stack") is None:
            return
        element = loop.target.value
        names = [n.value for n in walk(function.body) if type(n) is cst.Name]
        in_loop = [n.value for n in walk(loop) if type(n) is cst.Name]
        if names.count(out) != 3 or names.count(element) != in_loop.count(element):
            return  # the list, or the loop's variable after the loop, read elsewhere
        generator = self._generator(loop.target, loop.iter, appended, loop, before=before)
        if generator is None:
            return
        mapped = cst.Call(cst.Name(helper), [cst.Arg(generator)])
        small = use.body[0]
        rewritten = use.with_changes(body=[small.with_changes(value=mapped)],
                                     leading_lines=(*start.leading_lines, *loop.leading_lines, *use.leading_lines))
        self.report(loop, f"a loop appends a function of each element along a tensor's first axis to `{out}`, then "
                          "stacks it: a trace unrolls it with the example's batch size; "
                          f"`{helper}` maps the function with `torch.vmap` while tracing; assumes {_ASSUMPTION}",
                    Fix({start: cst.RemovalSentinel.REMOVE, loop: cst.RemovalSentinel.REMOVE, use: rewritten},
                        safety=Safety.UNSAFE, helpers=(helper, ROWS)))

    def _generator(self, target: cst.BaseAssignTargetExpression, iterator: cst.BaseExpression,
                   elt: cst.BaseExpression, where: cst.CSTNode, tensor: bool = False,
                   before: Sequence[cst.BaseStatement] | None = None) -> cst.GeneratorExp | None:
        """``elt for target in _trt_rows(t)`` for a loop over a tensor ``t`` (or over ``range`` of its first axis,
        reading ``t[i]``; ``tensor``: the caller knows ``t`` is one; ``before``: the statements before the loop's,
        where a count's name is bound, else those before ``where``'s in the function), or None where the rule does
        not apply."""
        if type(target) is not cst.Name:
            return None
        element = target.value
        source = _counted_source(iterator, list(before) if before is not None else self._before(where))
        if source is not None:
            text = code_of(source).strip()
            reads = [n for n in walk(elt) if type(n) is cst.Name and n.value == element]
            elements = [n for n in walk(elt) if _element_read(n, text, element)]
            if len(reads) != len(elements) or not elements:
                return None  # the index is read as a number somewhere: no element function to map
            elt = elt.visit(_Rename(text, element))
        elif _plain(iterator):
            source = iterator
        else:
            return None
        if _refusal(elt, element) is not None or not tensor and not self._tensor(source, where):
            return None
        if self._pieces(source):
            return None  # a tuple of a tensor's pieces (speechbrain's `masks = x.unbind(dim=3)`): its count is its own
        return cst.GeneratorExp(elt.deep_clone(), cst.CompFor(
            target=cst.Name(element), iter=cst.Call(cst.Name(ROWS), [cst.Arg(source.deep_clone())])),
            lpar=[], rpar=[])  # the call's only argument: its own parentheses are the generator's

    def _before(self, node: cst.CSTNode) -> list[cst.BaseStatement]:
        """The statements of the function's body before the one that holds ``node``."""
        function = self.context.function
        body = list(function.body.body) if function is not None and type(function.body) is cst.IndentedBlock else []
        for at, statement in enumerate(body):
            if any(inner is node for inner in walk(statement)):
                return body[:at]
        return []

    def _tensor(self, source: cst.BaseExpression, stack: cst.Call) -> bool:
        """Is ``source`` a tensor: visibly, seen holding one, or iterated where the export warned so?"""
        if self.provider(TensorEvidence).evident(source):
            return True
        observed = self.provider(ObservedFacts)
        return observed.is_tensor(source) or any(_ITERATING in m for m in observed.traced_messages(stack))


RULES = (PerElementMap,)
