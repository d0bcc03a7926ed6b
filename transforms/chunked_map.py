"""A function applied to a tensor chunk by chunk along an axis, the results concatenated (TRT396).

NeRF's ``batchify`` runs the network on a few thousand points at a time to bound its memory::

    torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)

and inference wrappers split a batch into sub-batches of the size they were told to use::

    outs = [self.model(sub) for sub in torch.split(x, self.batch_size)]
    probs = torch.cat(outs)

A traced export unrolls the comprehension with the example's number of chunks: the graph holds that many
calls and slices, and at another size it drops rows or fails. Where each chunk's rows depend on their own
rows only, the function applied to the whole tensor computes the concatenation; the rewrite takes it while
tracing and keeps the chunks for everything else. (A size test that chooses between the whole computation
and the chunks is TRT389's.)
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, code_of, not_variables, strip_parens, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.numpy_round_trip import _single_assignment
from trtcodemod.transforms.per_image_pad import _empty_list

TRACING = TRACING_HELPER

_ASSUMPTION = ("the function computes each chunk's rows from that chunk's rows only (no batch statistics, no "
               "reduction over the chunked axis, nothing that depends on how many rows a chunk has), so applied "
               "to the whole tensor it gives the concatenation of its chunks (over `range(0, n, k)`, every tensor "
               "sliced `t[i:i + k]` has `n` rows; over `range(n)` one row at a time, every tensor read so has `n` "
               "rows); the memory the chunks bounded is spent at once while tracing")


def _text(node: cst.CSTNode) -> str:
    return code_of(node).strip().replace(" ", "")


def _arguments(call: cst.Call, names: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
    """``call``'s arguments by the parameter names ``names`` (positional in that order, or by keyword); None
    where one is starred, unknown or given twice."""
    bound: dict[str, cst.BaseExpression] = {}
    for index, argument in enumerate(call.args):
        if argument.star:
            return None
        name = argument.keyword.value if argument.keyword is not None else \
            (names[index] if index < len(names) else None)
        if name is None or name not in names or name in bound:
            return None
        bound[name] = argument.value
    return bound


def _is_torch(func: cst.BaseExpression, name: str) -> bool:
    return type(func) is cst.Attribute and func.attr.value == name and type(func.value) is cst.Name \
        and func.value.value == "torch"


def _pieces(iterable: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``x.split(k[, dim])``, ``torch.split(x, k[, dim])``, ``x.chunk(n[, dim])``, ``torch.chunk(x, n[, dim])``,
    ``x.tensor_split(n[, dim])``, ``torch.tensor_split(x, n[, dim])``:
    the tensor split and the axis's text (``0`` by default); None for anything else (a list of sizes too: a
    fixed list of sections is a layout the code chose, not a chunking of any size)."""
    call = strip_parens(iterable)
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute:
        return None
    method = call.func.attr.value
    if method not in ("split", "chunk", "tensor_split"):
        return None
    size = {"split": ("split_size_or_sections", "split_size"), "chunk": ("chunks",),
            "tensor_split": ("indices_or_sections", "sections")}[method]
    if _is_torch(call.func, method):
        first = "tensor" if method == "split" else "input"
        bound = _arguments(call, (first, size[0], "dim"))
        if bound is None:
            return None
        tensor = bound.get(first)
    else:
        bound = _arguments(call, (size[-1], "dim"))
        if bound is None:
            return None
        tensor = call.func.value
    count = next((bound[n] for n in size if n in bound), None)
    if tensor is None or count is None or type(strip_parens(count)) in (cst.List, cst.Tuple, cst.ListComp):
        return None
    return tensor, _text(bound.get("dim", cst.Integer("0")))


def _slices_of(node: cst.CSTNode, index: str, step: str, every: bool = True) -> list[cst.Subscript] | None:
    """The subscripts ``t[i:i + step]`` in ``node`` (``index`` is ``i``'s name), where every use of ``i`` is
    one of them; None where ``i`` is used otherwise (in an offset, another slice, an ``int``). With ``every``
    false, the subscripts whatever the other uses."""
    slices: list[cst.Subscript] = []
    inside: set[int] = set()
    for sub in walk(node):
        if type(sub) is not cst.Subscript or len(sub.slice) != 1:
            continue
        part = sub.slice[0].slice
        if type(part) is not cst.Slice or part.step is not None or part.lower is None or part.upper is None:
            continue
        lower, upper = _text(part.lower), _text(part.upper)
        if lower == index and upper in (f"{index}+{step}", f"{step}+{index}"):
            slices.append(sub)
            inside.update(id(n) for n in walk(sub.slice[0]))
    if not slices or every and any(id(n) not in inside for n in _uses(node, index)):
        return None
    return slices


def _on_first_axis(node: cst.CSTNode, index: str, method: str) -> cst.BaseExpression | None:
    """``x`` of ``x[<index>]``, ``x.<method>(0)`` or ``x.<method>(dim=0)`` (else None)."""
    if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index \
            and _text(node.slice[0].slice.value) == index:
        return node.value
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == method \
            and len(node.args) == 1 and not node.args[0].star and _text(node.args[0].value) == "0" \
            and (node.args[0].keyword is None or node.args[0].keyword.value == "dim"):
        return node.func.value
    return None


def batch_of_one(node: cst.CSTNode) -> cst.BaseExpression | None:
    """``x`` of ``x[None]``, ``x.unsqueeze(0)`` or ``x.unsqueeze(dim=0)``: ``x`` given a first axis of one."""
    return _on_first_axis(node, "None", "unsqueeze")


def _reads_of(node: cst.CSTNode, name: str, found: dict[int, cst.BaseExpression]) \
        -> dict[int, cst.BaseExpression] | None:
    """``found`` where every use of ``name`` in ``node`` lies inside one of its reads, else None."""
    inside = {id(n) for sub in walk(node) if id(sub) in found for n in walk(sub)}
    if not found or any(id(n) not in inside for n in _uses(node, name)) \
            or any(_uses(tensor, name) for tensor in found.values()):
        return None
    return found


def _one_rows_of(node: cst.CSTNode, index: str) -> dict[int, cst.BaseExpression] | None:
    """The one-row slices of a tensor ``t`` at ``index`` in ``node`` (``t[i:i + 1]``, ``t[i][None]``,
    ``t[i, None]``, ``t[i].unsqueeze(0)``), each mapped to ``t``, where every use of ``i`` is in one of them; None
    where ``i`` is used otherwise."""
    found: dict[int, cst.BaseExpression] = {}
    for sub in walk(node):
        row = batch_of_one(sub)
        if type(row) is cst.Subscript and len(row.slice) == 1 and type(row.slice[0].slice) is cst.Index \
                and _text(row.slice[0].slice.value) == index:
            found[id(sub)] = row.value  # `t[i][None]`, `t[i].unsqueeze(0)`
        elif type(sub) is cst.Subscript and len(sub.slice) == 2 and all(type(e.slice) is cst.Index for e in sub.slice) \
                and _text(sub.slice[0].slice.value) == index and _text(sub.slice[1].slice.value) == "None":
            found[id(sub)] = sub.value  # `t[i, None]`
    for sub in _slices_of(node, index, "1", every=False) or ():
        found[id(sub)] = sub.value  # `t[i:i + 1]`
    return _reads_of(node, index, found)


def _unit_reads(node: cst.CSTNode, name: str, whole: cst.BaseExpression) -> dict[int, cst.BaseExpression] | None:
    """The reads ``e[None]`` and ``e.unsqueeze(0)`` of the loop's element ``name`` in ``node``, each mapped to
    ``whole``, where every use of ``e`` is one of them; else None."""
    found = {id(sub): whole for sub in walk(node)
             if (row := batch_of_one(sub)) is not None and type(row) is cst.Name and row.value == name}
    return _reads_of(node, name, found)


def _first_of(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``h`` of ``h[0]``, ``h.squeeze(0)`` or ``h.squeeze(dim=0)``: a batch of one's only row."""
    return _on_first_axis(strip_parens(node), "0", "squeeze")


def _uses(node: cst.CSTNode, name: str) -> list[cst.Name]:
    """The names ``name`` in ``node`` that read a variable (not an attribute's or a keyword's name)."""
    labels = not_variables(node)
    return [n for n in walk(node) if type(n) is cst.Name and n.value == name and id(n) not in labels]


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether a comprehension or lambda inside ``node`` binds ``name`` again (its uses there are not ours)."""
    for sub in walk(node):
        if type(sub) is cst.CompFor and any(type(t) is cst.Name and t.value == name for t in walk(sub.target)):
            return True
        if type(sub) is cst.Lambda and any(p.name.value == name for p in sub.params.params):
            return True
        if type(sub) is cst.NamedExpr and type(sub.target) is cst.Name and sub.target.value == name:
            return True
    return False


class _Whole(cst.CSTTransformer):
    """The element with the chunk replaced by the whole: the loop's name, or each ``t[i:i + k]`` by ``t``."""

    def __init__(self, name: str | None, whole: cst.BaseExpression | None,
                 slices: list[cst.Subscript] | None, rows: dict[int, cst.BaseExpression] | None = None) -> None:
        super().__init__()
        self.name, self.whole = name, whole
        self.slices = {id(s) for s in slices or ()}
        self.rows = rows or {}  # one-row reads (`t[i][None]`, `t[i].unsqueeze(0)`) -> their tensor

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if self.whole is not None and original.value == self.name:
            whole = self.whole
            needs = type(strip_parens(whole)) not in (cst.Name, cst.Attribute, cst.Subscript, cst.Call)
            return whole.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if needs and \
                not whole.lpar else whole
        return updated

    def transform(self, node: cst.BaseExpression) -> cst.BaseExpression:
        return node.visit(self)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)  # `m.sub` names an attribute, not the chunk

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if id(original) in self.rows:
            return self.rows[id(original)].deep_clone()
        return updated.value if id(original) in self.slices else updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.rows[id(original)].deep_clone() if id(original) in self.rows else updated


def whole_element(comp: cst.ListComp | cst.GeneratorExp, axis: str) -> tuple[cst.BaseExpression, str] | None:
    """For a comprehension over the chunks of a tensor along ``axis`` (the axis its results are concatenated
    on): its element computed on the whole tensor, and a phrase saying what the chunks were; None where the
    comprehension is no such map."""
    loop = comp.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None or type(loop.target) is not cst.Name:
        return None
    name = loop.target.value
    if _binds(comp.elt, name):
        return None
    pieces = _pieces(loop.iter)
    iterated = strip_parens(loop.iter)
    if pieces is None and axis == "0" and type(iterated) in (cst.Name, cst.Attribute):
        # the rows of a tensor, each made a batch of one (`net(img[None]) for img in x`): `x` whole
        units = _unit_reads(comp.elt, name, iterated)
        if units is None:
            return None
        return _Whole(name, None, None, units).transform(comp.elt), \
            f"each row of `{code_of(iterated).strip()}` made a batch of one"
    if pieces is not None:
        tensor, dim = pieces
        if dim != axis or not _uses(comp.elt, name):
            return None
        return _Whole(name, tensor, None).transform(comp.elt), f"the pieces of `{code_of(loop.iter).strip()}`"
    call = strip_parens(loop.iter)
    if type(call) is not cst.Call or type(call.func) is not cst.Name or call.func.value != "range" \
            or not 1 <= len(call.args) <= 3 or any(a.keyword is not None or a.star for a in call.args) \
            or axis != "0" or len(call.args) > 1 and _text(call.args[0].value) != "0":
        return None
    if len(call.args) < 3 or _text(call.args[2].value) == "1":
        # one row at a time (`self.net(x[i:i + 1]) for i in range(x.shape[0])`): chunks of one
        rows = _one_rows_of(comp.elt, name)
        if rows is None:
            return None
        return _Whole(name, None, None, rows).transform(comp.elt), \
            f"one-row slices of `{name}` over `{code_of(call).strip()}`"
    slices = _slices_of(comp.elt, name, _text(call.args[2].value))
    if slices is None:
        return None
    return _Whole(name, None, slices).transform(comp.elt), f"slices `[{name}:{name} + ...]` over `{code_of(call).strip()}`"


def _cat_parts(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``torch.cat(parts[, dim])`` (or ``torch.concat``/``torch.concatenate``): the parts and the axis's text."""
    if not any(_is_torch(call.func, n) for n in ("cat", "concat", "concatenate")):
        return None
    bound = _arguments(call, ("tensors", "dim"))
    if bound is None or "tensors" not in bound:
        return None
    return bound["tensors"], _text(bound.get("dim", cst.Integer("0")))


def _tracing_or(whole: cst.BaseExpression, chunked: cst.BaseExpression) -> cst.IfExp:
    return cst.IfExp(test=cst.Call(cst.Name(TRACING)), body=whole, orelse=chunked,
                     lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class ChunkedMap(Rule):
    needs_text = (b"cat(", b"concat", b"stack(")
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT396",
        name="chunked-map",
        summary="`torch.cat([f(c) for c in x.split(k)])`, `torch.cat([f(x[i:i + k]) for i in range(0, n, k)])`: "
                "the trace unrolls the example's chunks; apply `f` to the whole tensor while tracing",
        doc="""\
What it finds: a list comprehension (or generator) that applies an expression to each chunk of a
tensor and whose results are concatenated along the chunked axis, with no size test around it
(TRT389 takes the `if n <= chunk:` form):

- over the pieces of `x.split(k)`, `torch.split(x, k)`, `x.chunk(n)`, `torch.chunk(x, n)` or
  `torch.tensor_split(x, n)` (`dim` given or 0; not a written-out list of sizes), the loop's name
  used in the element; the concatenation's `dim` is the split's;
- over `range(0, n, k)`, where every use of the loop's index is a first-axis slice
  `t[i:i + k]` of one or more tensors (NeRF's `batchify`, which many NeRF code bases copy:
  `torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)`), and the
  concatenation is on axis 0;
- over `range(n)` (`range(0, n)`), one row at a time: every use of the index is a one-row read
  `t[i:i + 1]`, `t[i][None]`, `t[i, None]` or `t[i].unsqueeze(0)` (per-sample calls of a network,
  `torch.cat([self.net(x[i:i + 1]) for i in range(x.shape[0])])`), concatenated on axis 0;

and the list is either `torch.cat`'s argument itself, or bound to a name whose only later use in
the same block is `torch.cat(name[, dim])` (face-crop-plus' BiSeNet wrapper,
`outs = [self.model(...) for sub in torch.split(x, self.model.batch_size)]`, then
`torch.cat(outs)`). Also the same as a loop: `out = []`, then `for c in x.split(k):` whose body appends
one result an iteration (`out.append(v)`, `out` read nowhere else in it), then a statement that
concatenates `out` along the split's axis, `out` read nowhere after it and no name the loop binds
read after it before it is bound again (the chunked inference helpers that bind a chunk's output to
a local first and append it); the loop may go over a name bound to the pieces earlier in the block
(`p_split = torch.split(p, k)`, then `for pi in p_split:`, Occupancy Networks' `eval_points`) where
nothing else reads that name and nothing in between binds a name the split tensor reads; or `for i in range(n):` whose
body reads only one row at a time as above (`outs.append(self.net(x[i].unsqueeze(0)))`).

Why it hurts: the TorchScript export runs the comprehension once, with the example's number of
chunks: the graph holds that many calls and slices (or a `Split` into that many pieces), so at
another size it drops rows, repeats them, or fails at a Concat or a Split. The dynamo exporter
specialises on the size or stops at the data-dependent number of pieces.

The rewrite: the element computed on the whole tensor, taken while tracing:
`(fn(inputs) if _trt_tracing() else torch.cat([...], 0))`, or for a bound list
`outs = [self.model((x - self.mean) / self.std)] if _trt_tracing() else [...]` (the concatenation of one
tensor is that tensor); the loop form's iterable becomes `([x] if _trt_tracing() else x.split(k))`
(`([p] if _trt_tracing() else p_split)` over a bound name), so its body runs once, on the whole
tensor; a one-row loop runs `range(1 if _trt_tracing() else n)`,
each of its one-row reads `(x if _trt_tracing() else x[i].unsqueeze(0))`. Eager mode, `torch.jit.script`, `torch.fx` and `torch.compile` run the
chunks as written (`_trt_tracing()` is False there); `torch.jit.trace` and `torch.export` record
one call that follows the size.

Fix safety: unsafe: it assumes {assumption}. A batch norm in training mode, a softmax or sum over
the chunked axis, or code that reads a chunk's length breaks it. `migrate` applies it where the
recorded export baked the chunks (a graph that fails or differs at another size at the
comprehension's line) and keeps it only where the rewritten model's graph is faithful and equivalent
on its inputs.""".format(assumption=_ASSUMPTION),
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                "def batchify(fn, chunk):\n"
                "    def ret(inputs):\n"
                "        return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)\n"
                "    return ret\n",
                "def batchify(fn, chunk):\n"
                "    def ret(inputs):\n"
                f"        return (fn(inputs) if {TRACING}() else torch.cat([fn(inputs[i:i+chunk]) for i in "
                "range(0, inputs.shape[0], chunk)], 0))\n"
                "    return ret\n",
                unsafe=True,
            ),
            Example(
                "def parse(model, x, mean, std, batch_size: int):\n"
                "    outs = [model((sub - mean) / std) for sub in torch.split(x, batch_size)]\n"
                "    return torch.cat(outs).softmax(1)\n",
                "def parse(model, x, mean, std, batch_size: int):\n"
                f"    outs = ([model((x - mean) / std)] if {TRACING}() else [model((sub - mean) / std) for sub in "
                "torch.split(x, batch_size)])\n"
                "    return torch.cat(outs).softmax(1)\n",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
                    "https://github.com/yenchenlin/nerf-pytorch/blob/master/run_nerf.py"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Concatenations already taken whole while tracing (this rule's rewrite): the `else` of such a test.
        self._decided: set[int] = set()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        test = strip_parens(node.test)
        if type(test) is cst.Call and type(test.func) is cst.Name and test.func.value == TRACING:
            self._decided.add(id(strip_parens(node.orelse)))

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.function is None or id(node) in self._decided:
            return
        parts = _cat_parts(node)
        stacked = None
        if parts is None and _is_torch(node.func, "stack"):
            # `torch.stack([h[0] for ...])` of batches of one: their concatenation, each `h` whole while tracing
            bound = _arguments(node, ("tensors", "dim"))
            comp = strip_parens(bound["tensors"]) if bound is not None and "tensors" in bound else None
            if comp is None or type(comp) not in (cst.ListComp, cst.GeneratorExp) \
                    or _text(bound.get("dim", cst.Integer("0"))) != "0" or _first_of(comp.elt) is None:
                return
            stacked = comp
            parts = (comp.with_changes(elt=_first_of(comp.elt)), "0")
        if parts is None or type(strip_parens(parts[0])) not in (cst.ListComp, cst.GeneratorExp):
            return
        comp = strip_parens(parts[0])
        found = whole_element(comp, parts[1])
        if found is not None and stacked is not None and "batch of one" not in found[1] \
                and "one-row" not in found[1]:
            return  # a stack of chunks' first rows is no concatenation
        if found is None or not self._rows_of_a_tensor(comp, found[1]):
            return
        whole, what = found
        self._report(node, stacked or comp, what, Fix({node: _tracing_or(whole, node)}, safety=Safety.UNSAFE,
                                            helpers=(TRACING,)))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self.context.function is None:
            return
        body = list(node.body)
        for index, statement in enumerate(body):
            if index >= 2 and type(statement) is not cst.For:
                self._appending_loop(body, index)
            assign = _list_assignment(statement)
            if assign is None:
                continue
            name, comp = assign
            axis = _only_concatenated(body[index + 1:], name)
            if axis is None:
                continue
            found = whole_element(comp, axis)
            if found is None or not self._rows_of_a_tensor(comp, found[1]):
                continue
            whole, what = found
            one = cst.List([cst.Element(whole)])
            self._report(comp, comp, what, Fix({comp: _tracing_or(one, comp)}, safety=Safety.UNSAFE,
                                                helpers=(TRACING,)))

    def _appending_loop(self, body: list[cst.BaseStatement], at: int) -> None:
        """``out = []``, ``for c in x.split(k): ... out.append(v)``, then ``body[at]`` concatenating ``out`` along the
        split's axis, ``out`` read nowhere else: the loop runs once, on the whole tensor, while tracing."""
        start, loop = body[at - 2], body[at - 1]
        name = _empty_list(start)
        if name is None or type(loop) is not cst.For or loop.orelse is not None or loop.asynchronous is not None \
                or type(loop.target) is not cst.Name:
            return
        pieces, split = _pieces(loop.iter), None
        if pieces is None and type(strip_parens(loop.iter)) is cst.Name:
            # the pieces bound to a name before (`p_split = torch.split(p, k)`, `occ_hats = []`, `for pi in p_split:`)
            split = _bound_pieces(body, at - 1, strip_parens(loop.iter).value)
            pieces = _pieces(split) if split is not None else None
        rows = _one_row_loop(loop) if pieces is None else None
        if pieces is None and rows is None or not _uses(loop.body, loop.target.value):
            return
        axis = _only_concatenated(body[at:at + 1], name)
        if axis != (pieces[1] if pieces is not None else "0") or _uses_after(body[at + 1:], name) \
                or not _appends_once(loop, name):
            return
        if any(_read_before_bound(body[at:], left) for left in _loop_bindings(loop)):
            return  # a name the loop leaves behind would hold the whole tensor's value, not the last chunk's
        if rows is not None:
            # one row an iteration: while tracing, one iteration whose reads are the whole tensors
            count = strip_parens(loop.iter).args[-1].value  # `range(1 if _trt_tracing() else n)`: TorchScript's range
            edits: dict[cst.CSTNode, cst.CSTNode] = {count: _tracing_or(cst.Integer("1"), count).with_changes(
                lpar=[], rpar=[])}
            for read in walk(loop.body):
                if id(read) in rows:
                    edits[read] = _tracing_or(rows[id(read)].deep_clone(), read)
            self._report(loop.iter, loop.iter, f"one-row slices of `{loop.target.value}` in a loop appending to "
                                               f"`{name}`", Fix(edits, safety=Safety.UNSAFE, helpers=(TRACING,)))
            return
        whole = cst.List([cst.Element(pieces[0].deep_clone())])
        iterable = strip_parens(loop.iter)
        edits = {iterable: _tracing_or(whole, iterable)}
        if split is not None:
            # The graph's fixed pieces are made at the split's own line, where `migrate` locates them (ONNX Runtime
            # refuses the Split there at another size): the finding runs from that line, which stays as it is.
            edits[split] = split
        self._report(loop.iter, loop.iter, f"the pieces of `{code_of(loop.iter).strip()}` in a loop appending to "
                                           f"`{name}`", Fix(edits, safety=Safety.UNSAFE, helpers=(TRACING,),
                                                            covers=split is not None))

    def _rows_of_a_tensor(self, comp: cst.ListComp | cst.GeneratorExp, what: str) -> bool:
        """Where the comprehension goes over an iterable's rows (`net(img[None]) for img in x`), is ``x`` a tensor
        (visibly, or seen holding one by a recorded run)? A list of images of several sizes is no batch."""
        if "made a batch of one" not in what:
            return True
        iterated = strip_parens(comp.for_in.iter)
        return self.provider(TensorEvidence).evident(iterated) or self.provider(ObservedFacts).is_tensor(iterated)

    def _report(self, node: cst.CSTNode, comp: cst.CSTNode, what: str, fix: Fix) -> None:
        self.report(node, f"`{code_of(comp).strip()[:80]}` applies a function to {what} and concatenates the "
                          "results: a trace unrolls the example's number of chunks; the whole tensor is taken while "
                          f"tracing (`{TRACING}()`); assumes {_ASSUMPTION}", fix)


def _list_assignment(statement: cst.BaseStatement) -> tuple[str, cst.ListComp] | None:
    """``name = [<comprehension>]`` as one statement: the name and the comprehension."""
    name, value = _single_assignment(statement)
    if name is None or type(strip_parens(value)) is not cst.ListComp:
        return None
    return name, strip_parens(value)


def _one_row_loop(loop: cst.For) -> dict[int, cst.BaseExpression] | None:
    """For ``for i in range(n)`` (``range(0, n)``) whose body uses ``i`` only in one-row reads (``x[i:i + 1]``,
    ``x[i][None]``, ``x[i].unsqueeze(0)``): those reads, each mapped to its tensor; else None."""
    call = strip_parens(loop.iter)
    if type(loop.target) is not cst.Name or type(call) is not cst.Call or type(call.func) is not cst.Name \
            or call.func.value != "range" or not 1 <= len(call.args) <= 2 \
            or any(a.keyword is not None or a.star for a in call.args) \
            or len(call.args) == 2 and _text(call.args[0].value) != "0" or _binds(loop.body, loop.target.value) \
            or TRACING in _text(call):  # already one iteration while tracing (this rule's rewrite)
        return None
    return _one_rows_of(loop.body, loop.target.value)


def _appends_once(loop: cst.For, name: str) -> bool:
    """Whether the loop's body reads ``name`` only as one ``name.append(v)`` statement at its top level (a chunk's
    result appended once an iteration, and the list not read or changed otherwise)."""
    uses = _uses(loop.body, name)
    if len(uses) != 1 or type(loop.body) is not cst.IndentedBlock:
        return False
    for statement in loop.body.body:
        if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                and type(statement.body[0]) is cst.Expr and type(statement.body[0].value) is cst.Call:
            call = statement.body[0].value
            if type(call.func) is cst.Attribute and call.func.value is uses[0] and call.func.attr.value == "append" \
                    and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
                return True
    return False


def _loop_bindings(loop: cst.For) -> set[str]:
    """The names a loop binds: its target and the targets of the assignments in its body."""
    return set(bound_names(loop.target)) | _bindings_in(loop.body)


def _bindings_in(tree: cst.CSTNode) -> set[str]:
    """The names the assignments and ``for`` targets in ``tree`` bind."""
    names: set[str] = set()
    for node in walk(tree):
        if type(node) is cst.Assign:
            names.update(n for target in node.targets for n in bound_names(target.target))
        elif type(node) in (cst.AugAssign, cst.AnnAssign):
            names.update(bound_names(node.target))
        elif type(node) is cst.For:
            names.update(bound_names(node.target))
    return names


def _bound_pieces(body: list[cst.BaseStatement], loop_at: int, name: str) -> cst.BaseExpression | None:
    """The split (``_pieces`` reads its tensor and axis) the name ``name`` holds at ``body[loop_at]``, the loop over
    it: bound by one ``name = x.split(k)`` earlier in the block, read by nothing but the loop (in the statements
    between, in the loop's body, after it), and no name the pieces' tensor reads bound again in between; else None."""
    for index in range(loop_at - 1, -1, -1):
        bound, value = _single_assignment(body[index])
        if bound == name:
            pieces = _pieces(value)
            between = body[index + 1:loop_at]
            read = {n.value for n in walk(pieces[0]) if type(n) is cst.Name} if pieces is not None else set()
            if pieces is None or _uses_after(between, name) or _uses(body[loop_at].body, name) \
                    or _uses_after(body[loop_at + 1:], name) \
                    or any(read & _bindings_in(statement) for statement in between):
                return None
            return value
        if _uses(body[index], name):
            return None
    return None


def _read_before_bound(rest: list[cst.BaseStatement], name: str) -> bool:
    """Whether a statement of ``rest`` reads ``name`` before one binds it again (``name = v`` with ``v`` not reading
    it): the value a loop left in ``name`` is read."""
    for statement in rest:
        bound, value = _single_assignment(statement)
        if bound == name and not _uses(value, name):
            return False
        if _uses(statement, name):
            return True
    return False


def _uses_after(rest: list[cst.BaseStatement], name: str) -> bool:
    return any(_uses(statement, name) for statement in rest)


def _only_concatenated(rest: list[cst.BaseStatement], name: str) -> str | None:
    """The axis of ``torch.cat(name[, dim])`` where that is the only use of ``name`` in ``rest`` (and ``name``
    is not bound again there); None otherwise."""
    uses = [n for statement in rest for n in _uses(statement, name)]
    if len(uses) != 1:
        return None
    for statement in rest:
        for sub in walk(statement):
            if type(sub) is cst.Call:
                parts = _cat_parts(sub)
                if parts is not None and strip_parens(parts[0]) is uses[0]:
                    return parts[1]
    return None


RULES = (ChunkedMap,)
