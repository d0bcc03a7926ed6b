"""A loop (or a comprehension) over the batch that gathers each element's rows, then stacks them (TRT358).

FCOS-style detection heads take each image's top-k candidates one image at a time::

    _cls_scores = []
    for batch in range(cls_scores.shape[0]):
        _cls_scores.append(cls_scores[batch][topk_ind[batch]])
    cls_scores_topk = torch.stack(_cls_scores, dim=0)

A trace unrolls the loop with the example's batch size. The stack becomes
``_trt_stacked_rows(_cls_scores, cls_scores, topk_ind, cls_scores.shape[0])``: ``torch.stack`` itself outside an
export, every image's rows gathered at once while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms.shape_cache import _statement_names

HELPER = "_trt_stacked_rows"


def _first_axis_of(iterator: cst.BaseExpression) -> cst.BaseExpression | None:
    """The bound of ``range(x.shape[0])`` or ``range(x.size(0))``, ``x`` a plain name or attribute chain
    (``len(x)`` is left out: a trace reads it as the example's number)."""
    bound = _range_bound(iterator)
    return bound if bound is not None and _first_axis(bound) else None


def _range_bound(iterator: cst.BaseExpression) -> cst.BaseExpression | None:
    """``n`` of ``range(n)``."""
    if type(iterator) is not cst.Call or type(iterator.func) is not cst.Name or iterator.func.value != "range" \
            or len(iterator.args) != 1 or iterator.args[0].keyword is not None or iterator.args[0].star:
        return None
    return iterator.args[0].value


def _first_axis(bound: cst.BaseExpression) -> bool:
    """Is ``bound`` ``x.shape[0]`` or ``x.size(0)``, ``x`` a plain name or attribute chain?"""
    if type(bound) is cst.Subscript and type(bound.value) is cst.Attribute and bound.value.attr.value == "shape":
        return len(bound.slice) == 1 and type(bound.slice[0].slice) is cst.Index \
            and code_of(bound.slice[0].slice.value) == "0" and _plain(bound.value.value)
    return type(bound) is cst.Call and len(bound.args) == 1 and not bound.args[0].star \
        and bound.args[0].keyword is None and type(bound.func) is cst.Attribute \
        and bound.func.attr.value == "size" and code_of(bound.args[0].value) == "0" and _plain(bound.func.value)


def _first_axis_name(before: list[cst.BaseStatement], name: str) -> bool:
    """Was ``name`` last bound, in the statements ``before`` the loop, to a first axis (:func:`first_axis_source`)?"""
    return first_axis_source(before, name, lengths=False) is not None


def first_axis_source(before: list[cst.BaseStatement], name: str, lengths: bool = True) -> cst.BaseExpression | None:
    """The tensor whose first axis ``name`` was last bound to in the statements ``before`` a loop: ``B =
    x.shape[0]``, ``B = x.size(0)``, ``B = len(x)``, or the first of names unpacked from a shape, ``b, c, h, w =
    x.shape`` / ``x.size()`` (a batch gather that names its batch size first, as RoboOrchardSim's
    ``batch_gather`` does); None otherwise, or where a later statement binds the tensor's name again. ``lengths``:
    ``len(x)`` too (whose ``x`` the caller must still show to be a tensor)."""
    for at in range(len(before) - 1, -1, -1):
        statement = before[at]
        if name not in _statement_names(statement):
            continue
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
            return None
        target, value = statement.body[0].targets[0].target, statement.body[0].value
        source = None
        if type(target) is cst.Name:
            if _first_axis(value):
                source = value.value.value if type(value) is cst.Subscript else value.func.value
            elif lengths and type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "len" \
                    and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star \
                    and _plain(value.args[0].value):
                source = value.args[0].value
        elif type(target) in (cst.Tuple, cst.List) and target.elements \
                and type(target.elements[0]) is cst.Element and type(target.elements[0].value) is cst.Name \
                and target.elements[0].value.value == name \
                and not any(type(e) is cst.StarredElement for e in target.elements):
            if type(value) is cst.Attribute and value.attr.value == "shape" and _plain(value.value):
                source = value.value
            elif type(value) is cst.Call and not value.args and type(value.func) is cst.Attribute \
                    and value.func.attr.value == "size" and _plain(value.func.value):
                source = value.func.value
        if source is None or any(_root(source) in _statement_names(later) for later in before[at + 1:]):
            return None
        return source
    return None


def _item(node: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """``base[name]`` → ``base`` (a plain name or attribute chain that does not read ``name``)."""
    if type(node) is not cst.Subscript or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    index = node.slice[0].slice.value
    base = node.value
    if type(index) is not cst.Name or index.value != name or not _plain(base) or _reads(base, name):
        return None
    return base


def _plain(node: cst.BaseExpression) -> bool:
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Name


def _reads(node: cst.CSTNode, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(node))


def _root(node: cst.BaseExpression) -> str:
    while type(node) is cst.Attribute:
        node = node.value
    assert type(node) is cst.Name
    return node.value


def _read_part(statement: cst.CSTNode) -> cst.CSTNode:
    """What ``statement`` reads: the value of a plain assignment to names (``seed_xyz =
    torch.stack(seed_xyz)`` reads the list once, then rebinds its name), the statement otherwise."""
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
            and type(statement.body[0]) is cst.Assign \
            and all(type(t.target) is cst.Name for t in statement.body[0].targets):
        return statement.body[0].value
    return statement


def _row(node: cst.BaseExpression, name: str) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(values, index)`` of ``values[name][index[name]]`` or ``values[name, index[name]]`` (for a tensor
    ``values`` the same rows: the integer ``name`` selects first, then ``index[name]`` indexes what is left)."""
    if type(node) is not cst.Subscript or any(type(e.slice) is not cst.Index for e in node.slice):
        return None
    if len(node.slice) == 1:
        values = _item(node.value, name)
    elif len(node.slice) == 2 and not _reads(node.value, name) and _plain(node.value) \
            and type(node.slice[0].slice.value) is cst.Name and node.slice[0].slice.value.value == name:
        values = node.value
    else:
        return None
    index = _item(node.slice[-1].slice.value, name)
    return None if values is None or index is None else (values, index)


def _appends(loop: cst.For) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression]] | None:
    """``(list, values, index)`` per statement of a body made only of ``L.append(values[v][index[v]])``."""
    if type(loop.target) is not cst.Name or loop.orelse is not None or type(loop.body) is not cst.IndentedBlock:
        return None
    name = loop.target.value
    found = []
    for line in loop.body.body:
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Expr:
            return None
        call = line.body[0].value
        if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "append" \
                or type(call.func.value) is not cst.Name or len(call.args) != 1 or call.args[0].keyword is not None \
                or call.args[0].star:
            return None
        row = _row(call.args[0].value, name)
        if row is None:
            return None
        found.append((call.func.value.value, *row))
    lists = [f[0] for f in found]
    return found if found and len(set(lists)) == len(lists) else None


class StackedRows(Rule):
    needs_text = spelled("torch.stack")
    info = RuleInfo(
        id="TRT358",
        name="stacked-row-gather",
        summary="a loop over the batch appending each element's rows `values[b][index[b]]`, then `torch.stack`: "
                "tracing unrolls it with the example's batch size; gather every element's rows at once",
        doc="""\
What it finds: a `for b in range(x.shape[0])` (or `x.size(0)`, or a name last bound before it
in the same block to one of those or unpacked first from a shape: `B = data.shape[0]`, `n, k, c =
x.shape`) whose body only appends `values[b][index[b]]` to lists started empty (`L = []`) before it
in the same block, each list read once afterwards, by `torch.stack(L)` / `torch.stack(L, 0)` /
`torch.stack(L, dim=0)` in the same block (also rebinding the list's own name: `L =
torch.stack(L)`), with nothing rebinding the list, `values`, `index` or the bound's name in between;
and the same loop written as a comprehension stacked at once, `torch.stack([values[b][index[b]] for b
in range(x.shape[0])])` (no condition, no second `for`, no `:=`). A row may also be read as
`values[b, index[b]]`, the same rows of a tensor. FCOS-style heads take each image's top-k candidates this way (zhenghao977/FCOS-PyTorch-37.2AP's
`DetectHead`, copied into many repositories): `_boxes.append(boxes[batch][topk_ind[batch]])`;
RoboOrchardSim's IK selection names the batch size first (`batch_gather` in
`robo_orchard_sim/controllers/curobo_planner/curobo_ext.py`); SpERT pairs its entity spans with
`torch.stack([tensor[i][index[i]] for i in range(index.shape[0])])` (`batch_index` in
lavis-nlp/spert's `spert/util.py`), and ODIN maps segment masks back to points with `bs, n, c =
voxel_map.shape` and `torch.stack([voxel_map[i, poin2voxel[i]] for i in range(bs)])`.

Why it hurts: a traced export runs the loop with the example's batch size and unrolls it: the
graph stacks that many gathers whatever the batch it is given (ONNX Runtime then fails or returns
the example's number of images, TensorRT builds an engine for one batch size only).

The rewrite: each `torch.stack(L, ...)` becomes `_trt_stacked_rows(L, values, index, x.shape[0])`,
the loop's bound read again (nothing rebinds `x`, or the name that holds it, in between); a stacked
comprehension becomes `_trt_stacked_rows([...], values, index, x.shape[0])`, the comprehension kept
as the first argument. Outside `torch.onnx.export` it is
`torch.stack(L)` of the loop's own list. While exporting, with an integer `index`, it returns
`values[rows, index[:n]]`, `rows` the positions `0 .. n - 1` along `index`'s first axis and `n`
the traced bound: element `b` is `values[b][index[b]]` (negative indices too), stacked in order,
for the batch the graph is given. The unrolled loop's gathers are then read by nothing and
dropped from the graph. Anything else (a bool mask, an empty loop) takes `torch.stack(L)`.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run the loop (or comprehension) and `torch.stack` as written (values, dtype, strides, gradients, errors); the
exported graph computes the same values as one indexing.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def take(scores, boxes, topk_ind):\n"
                "    s = []\n"
                "    b = []\n"
                "    for i in range(scores.shape[0]):\n"
                "        s.append(scores[i][topk_ind[i]])\n"
                "        b.append(boxes[i][topk_ind[i]])\n"
                "    return (torch.stack(s, dim=0),\n"
                "            torch.stack(b, dim=0))\n",
                "def take(scores, boxes, topk_ind):\n"
                "    s = []\n"
                "    b = []\n"
                "    for i in range(scores.shape[0]):\n"
                "        s.append(scores[i][topk_ind[i]])\n"
                "        b.append(boxes[i][topk_ind[i]])\n"
                "    return (_trt_stacked_rows(s, scores, topk_ind, scores.shape[0]),\n"
                "            _trt_stacked_rows(b, boxes, topk_ind, scores.shape[0]))\n",
            ),
            Example(
                "def pairs(spans, relations):\n"
                "    return torch.stack([spans[i][relations[i]] for i in range(relations.shape[0])])\n",
                "def pairs(spans, relations):\n"
                "    return _trt_stacked_rows([spans[i][relations[i]] for i in range(relations.shape[0])], spans, "
                "relations, relations.shape[0])\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
            "https://github.com/zhenghao977/FCOS-PyTorch-37.2AP/blob/master/model/fcos.py",
        ),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(list(node.body))

    def visit_Module(self, node: cst.Module) -> None:
        self._block(list(node.body))

    def _block(self, statements: list[cst.BaseStatement]) -> None:
        for at, loop in enumerate(statements):
            if type(loop) is cst.SimpleStatementLine:
                self._comprehensions(loop, statements[:at])
            if type(loop) is not cst.For:
                continue
            bound = _range_bound(loop.iter)
            if bound is None or not _batch_bound(bound, statements[:at]):
                continue
            appends = _appends(loop)
            if appends is None:
                continue
            replacements = self._stacks(statements, at, appends)
            if replacements is None:
                continue
            lists = ", ".join(f"`{name}`" for name, _, _ in appends)
            self.report(loop, f"a loop over the batch gathers each element's rows into {lists}, then stacks them: "
                              f"a trace unrolls it with the example's batch size; `{HELPER}` gathers every "
                              "element's rows at once while exporting",
                        Fix(replacements, helpers=(HELPER,)))

    def _comprehensions(self, line: cst.SimpleStatementLine, before: list[cst.BaseStatement]) -> None:
        """``torch.stack([values[b][index[b]] for b in range(x.shape[0])])`` in ``line``: the loop written
        as a comprehension (SpERT's ``batch_index``, ODIN's ``voxel_map_to_source``). Nothing in it can
        rebind a name (no ``:=``), so ``values``, ``index`` and the bound are read again at the stack."""
        for node in walk(line):
            if type(node) is not cst.Call or not node.args or type(node.args[0].value) is not cst.ListComp \
                    or self.context.refers_to(node.func, "torch.stack") is None or not _stack_rest(node):
                continue
            comp = node.args[0].value
            clause = comp.for_in
            if clause.inner_for_in is not None or clause.ifs or clause.asynchronous is not None \
                    or type(clause.target) is not cst.Name \
                    or any(type(n) is cst.NamedExpr for n in walk(comp)):
                continue
            bound = _range_bound(clause.iter)
            row = _row(comp.elt, clause.target.value)
            if bound is None or row is None or _reads(bound, clause.target.value) or not _batch_bound(bound, before):
                continue
            values, index = row
            self.report(node, "a comprehension over the batch gathers each element's rows, then stacks them: a trace "
                              f"unrolls it with the example's batch size; `{HELPER}` gathers every element's rows at "
                              "once while exporting",
                        Fix({node: cst.Call(cst.Name(HELPER), [
                            cst.Arg(comp), cst.Arg(values.deep_clone()), cst.Arg(index.deep_clone()),
                            cst.Arg(bound.deep_clone())])}, helpers=(HELPER,)))

    def _stacks(self, statements: list[cst.BaseStatement], at: int,
                appends: list[tuple[str, cst.BaseExpression, cst.BaseExpression]]) -> dict | None:
        loop = statements[at]
        bound = _range_bound(loop.iter)
        assert bound is not None
        # The loop's bound is read again at the stack: its owner (or the name holding it) stays bound.
        counted = bound if type(bound) is cst.Name else bound.value.value if type(bound) is cst.Subscript \
            else bound.func.value
        protected = {name for name, _, _ in appends} | {_root(counted)}
        for _, values, index in appends:
            protected |= {_root(values), _root(index)}
        if _statement_names(loop.body) & protected or loop.target.value in protected:
            return None
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        for name, values, index in appends:
            if not self._started_empty(statements[:at], name):
                return None
            stack = None
            for later in statements[at + 1:]:
                reads = [n for n in walk(_read_part(later)) if type(n) is cst.Name and n.value == name]
                if reads:
                    stack = self._stack_of(later, name, len(reads))
                    if stack is None:
                        return None
                    break
                if _statement_names(later) & protected:
                    return None
            if stack is None:
                return None
            replacements[stack] = cst.Call(cst.Name(HELPER), [
                cst.Arg(cst.Name(name)), cst.Arg(values.deep_clone()), cst.Arg(index.deep_clone()),
                cst.Arg(bound.deep_clone())])
        return replacements

    def _started_empty(self, before: list[cst.BaseStatement], name: str) -> bool:
        """The last binding of ``name`` before the loop is ``name = []``."""
        for statement in reversed(before):
            if name not in _statement_names(statement):
                continue
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                    or type(statement.body[0]) is not cst.Assign:
                return False
            assign = statement.body[0]
            return len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name \
                and type(assign.value) is cst.List and not assign.value.elements
        return False

    def _stack_of(self, statement: cst.CSTNode, name: str, reads: int) -> cst.Call | None:
        """The ``torch.stack(name)`` call of ``statement``, the only read of ``name`` there."""
        if reads != 1:
            return None
        for node in walk(statement):
            if type(node) is not cst.Call or self.context.refers_to(node.func, "torch.stack") is None:
                continue
            args = node.args
            if not args or args[0].keyword is not None or args[0].star or type(args[0].value) is not cst.Name \
                    or args[0].value.value != name:
                continue
            if _stack_rest(node):
                return node
        return None


def _stack_rest(call: cst.Call) -> bool:
    """Does ``torch.stack(L, ...)`` stack along the first axis: no more arguments, ``0`` or ``dim=0``?"""
    first, rest = call.args[0], call.args[1:]
    if first.keyword is not None or first.star:
        return False
    return not rest or (len(rest) == 1 and not rest[0].star and code_of(rest[0].value) == "0"
                        and (rest[0].keyword is None or rest[0].keyword.value == "dim"))


def _batch_bound(bound: cst.BaseExpression, before: list[cst.BaseStatement]) -> bool:
    """``x.shape[0]``, ``x.size(0)``, or a name last bound to one of those in the statements ``before``."""
    return _first_axis(bound) or type(bound) is cst.Name and _first_axis_name(before, bound.value)


RULES = (StackedRows,)
