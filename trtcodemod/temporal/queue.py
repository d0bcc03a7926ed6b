"""A memory queue that grows to a cap over the first frames, lifted as a fixed-capacity state plus a count.

Tracking and video models keep the last N frames' features on ``self``: a tensor grown and cut
(``self.mem = torch.cat([self.mem, x], 0)[-self.cap:]``) or a list appended and trimmed
(``self.gallery.append(f)`` then ``self.gallery = self.gallery[-self.budget:]``, or
``if len(self.cached) == self.max_len: self.cached = self.cached[1:]``). Its shape changes until
the cap is reached, so no fixed engine input holds it. The guidance's padding method does:
the lifted state is ``capacity`` rows, the valid ones last (padding first), and a count input.

* Growing: the new rows go in at the end and the oldest row leaves at the front, so the
  original ``torch.cat([...])[-cap:]`` works on the padded rows unchanged; the count grows by
  the rows added, up to the cap. A list's append is the same with one row.
* Reading: the valid rows are selected with a boolean index on the row number
  (``arange(capacity) >= capacity - count``, the guidance's "create index ... do querying"),
  so every consumer (``mem.mean(0)``, attention over it) sees exactly the rows the original
  had, bit for bit, on the frames before the cap and after it. A list is read only through
  ``torch.stack(self.q[, 0])`` or ``torch.cat(self.q, dim)``; any other read is refused at its line.

Detection is static (the statements' form) plus the built model (the cap, when it is an
attribute such as ``self.cap``, and an empty queue at the start).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import libcst as cst

from trtcodemod.astutil import argument, code_of, int_value, method_call, walk
from trtcodemod.names import dotted_name

TENSOR, LIST = "tensor", "list"
#: The manual step for a queue the lift does not take.
QUEUE_STEP = ("keep the queue at a fixed capacity by hand: a (capacity, ...) tensor with the valid rows last and a "
              "count input, grown with torch.cat([...])[-capacity:], read through a boolean index on the row "
              "number (docs/temporal.md)")


@dataclass(frozen=True)
class CappedQueue:
    """A queue on ``self.<attribute>``: ``capacity`` rows at most during forward, ``kept`` after it."""

    attribute: str
    form: str  # TENSOR or LIST
    capacity: int
    capacity_code: str  # the capacity as code of the source (``self.cap``, ``self.budget + 1``)
    kept_code: str  # the rows kept after the trim, as code (lists)
    line: int


def _self_attr(node: cst.CSTNode) -> str | None:
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _cap(node: cst.BaseExpression, model: Any) -> int | None:
    """An int literal, or ``self.<attr>`` holding an int on the built model."""
    value = int_value(node)
    if value is not None:
        return value
    attr = _self_attr(node)
    held = getattr(model, attr, None) if attr is not None and model is not None else None
    return held if type(held) is int else None


def _is_call(node: cst.CSTNode, name: str) -> bool:
    return type(node) is cst.Call and dotted_name(node.func) == name


def _only_slice(node: cst.BaseExpression) -> cst.Slice | None:
    if type(node) is not cst.Subscript or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Slice:
        return None
    return node.slice[0].slice


def _tail(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``C`` of ``[-C:]``."""
    s = _only_slice(node)
    if s is None or s.upper is not None or s.step is not None or type(s.lower) is not cst.UnaryOperation:
        return None
    return s.lower.expression if type(s.lower.operator) is cst.Minus else None


def _cat_dim0(call: cst.Call) -> bool:
    dim = argument(call, 1, "dim")
    return dim is None or int_value(dim.value) == 0


def tensor_write(stmt: cst.CSTNode, attr: str | None = None) -> tuple[str, cst.BaseExpression] | None:
    """``self.s = torch.cat([self.s, v, ...], 0)[-C:]`` → (s, C)."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign:
        return None
    assign = stmt.body[0]
    target = _self_attr(assign.targets[0].target) if len(assign.targets) == 1 else None
    value = assign.value
    cap = _tail(value) if type(value) is cst.Subscript else None
    if target is None or cap is None or (attr is not None and target != attr):
        return None
    call = value.value
    if not _is_call(call, "torch.cat") or not _cat_dim0(call):
        return None
    items = call.args[0].value if call.args and call.args[0].keyword is None else None
    if type(items) not in (cst.List, cst.Tuple) or len(items.elements) < 2:
        return None
    first = items.elements[0].value
    if _self_attr(first) != target or any(_self_attr(n) == target for e in items.elements[1:] for n in walk(e)):
        return None
    return target, cap


def _append(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """``self.q.append(v)`` → (q, v)."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    parts = method_call(call) if type(call) is cst.Call else None
    if parts is None or parts[1] != "append" or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return None
    attr = _self_attr(parts[0])
    return (attr, call.args[0].value) if attr is not None else None


def _drops_oldest(stmt: cst.CSTNode, attr: str) -> bool:
    """``self.q.pop(0)``, ``del self.q[0]`` or ``self.q = self.q[1:]``."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if type(small) is cst.Expr and type(small.value) is cst.Call:
        parts = method_call(small.value)
        return (parts is not None and parts[1] == "pop" and _self_attr(parts[0]) == attr
                and len(small.value.args) == 1 and int_value(small.value.args[0].value) == 0)
    if type(small) is cst.Del:
        t = small.target
        return (type(t) is cst.Subscript and _self_attr(t.value) == attr and len(t.slice) == 1
                and type(t.slice[0].slice) is cst.Index and int_value(t.slice[0].slice.value) == 0)
    if type(small) is cst.Assign and len(small.targets) == 1 and _self_attr(small.targets[0].target) == attr:
        s = _only_slice(small.value)
        return (s is not None and _self_attr(small.value.value) == attr and int_value(s.lower) == 1
                and s.upper is None and s.step is None)
    return False


def list_trim(stmt: cst.CSTNode, attr: str) -> tuple[cst.BaseExpression, int] | None:
    """The trim of a list queue → (C, rows kept relative to C: 0 for C, -1 for C - 1)."""
    if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign:
        assign = stmt.body[0]
        if len(assign.targets) == 1 and _self_attr(assign.targets[0].target) == attr:
            cap = _tail(assign.value) if type(assign.value) is cst.Subscript else None
            if cap is not None and _self_attr(assign.value.value) == attr:
                return cap, 0
        return None
    if type(stmt) is not cst.If or stmt.orelse is not None or len(stmt.body.body) != 1:
        return None
    test = stmt.test
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    left, op = test.left, test.comparisons[0].operator
    if not (_is_call(left, "len") and len(left.args) == 1 and _self_attr(left.args[0].value) == attr):
        return None
    if not _drops_oldest(stmt.body.body[0], attr):
        return None
    kept = {cst.GreaterThan: 0, cst.Equal: -1, cst.GreaterThanEqual: -1}.get(type(op))
    return (test.comparisons[0].comparator, kept) if kept is not None else None


def list_read(node: cst.CSTNode, attr: str) -> int | None:
    """``torch.stack(self.q[, 0])`` → -1 (stacked on a new axis 0); ``torch.cat(self.q, d)`` → d; else None."""
    if type(node) is not cst.Call or not node.args or _self_attr(node.args[0].value) != attr or node.args[0].keyword:
        return None
    dim = argument(node, 1, "dim")
    if len(node.args) > (2 if dim is not None else 1):
        return None
    d = 0 if dim is None else int_value(dim.value)
    if d is None or d < 0:
        return None
    if _is_call(node, "torch.stack"):
        return -1 if d == 0 else None
    return d if _is_call(node, "torch.cat") else None


def _code(cap: cst.BaseExpression, delta: int) -> str:
    literal = int_value(cap)
    if literal is not None:
        return str(literal + delta)
    text = code_of(cap)
    return text if delta == 0 else f"{text} {'+' if delta > 0 else '-'} {abs(delta)}"


def find_queues(forward: cst.FunctionDef, model: Any, line: Any) -> list[CappedQueue]:
    """The capped queues among ``forward``'s top-level statements (``line(node)`` gives a node's line)."""
    body = list(forward.body.body)
    found: list[CappedQueue] = []
    for i, stmt in enumerate(body):
        write = tensor_write(stmt)
        if write is not None:
            cap = _cap(write[1], model)
            if cap is not None and cap > 0:
                found.append(CappedQueue(write[0], TENSOR, cap, code_of(write[1]), code_of(write[1]), line(stmt)))
            continue
        appended = _append(stmt)
        if appended is None:
            continue
        attr = appended[0]
        for later in body[i + 1:]:
            trim = list_trim(later, attr)
            if trim is None:
                continue
            cap = _cap(trim[0], model)
            if cap is not None and cap + trim[1] > 0:
                # During forward the list holds one row more than it keeps: that is the capacity.
                found.append(CappedQueue(attr, LIST, cap + trim[1] + 1, _code(trim[0], trim[1] + 1),
                                         _code(trim[0], trim[1]), line(stmt)))
            break
    names = [q.attribute for q in found]
    return [q for q in found if names.count(q.attribute) == 1]


def valid_rows(name: str, count: str) -> str:
    """The valid rows of a padded queue: a boolean index on the row number (exact values)."""
    return f"{name}[torch.arange({name}.shape[0], device={name}.device) >= {name}.shape[0] - {count}]"


def pack_lines(queue: CappedQueue, name: str, count: str, item_zeros: str | None) -> list[str]:
    """The adapter's lines that turn ``self.<queue>`` (``name`` holds it) into the padded rows and a count."""
    if queue.form == TENSOR:
        return [f"{count} = torch.full((1,), {name}.shape[0], dtype=torch.int64, device={name}.device)",
                f"{name} = torch.cat([{name}.new_zeros(({queue.capacity_code} - {name}.shape[0],) + "
                f"tuple({name}.shape[1:])), {name}], 0)"]
    device = item_zeros.rsplit("device=", 1)[1][:-1] if item_zeros and "device=" in item_zeros else "None"
    return [f"{count} = torch.full((1,), len({name}), dtype=torch.int64, device={device})",
            f"{name} = torch.stack([{item_zeros}] * ({queue.capacity_code} - len({name})) + list({name}), 0)"]


def unpack_line(queue: CappedQueue, count: str) -> str:
    """The adapter's line that stores the valid rows back on ``self`` as the original kept them."""
    attr = f"self.{queue.attribute}"
    rows = f"{attr}[{attr}.shape[0] - int({count}):]"
    return f"{attr} = {rows}" if queue.form == TENSOR else f"{attr} = list({rows}.unbind(0))"


def _stmt(text: str, leading: Sequence[cst.EmptyLine] = ()) -> cst.SimpleStatementLine:
    return cst.ensure_type(cst.parse_statement(text + "\n"), cst.SimpleStatementLine).with_changes(
        leading_lines=list(leading))


class QueueStatements(cst.CSTTransformer):
    """Rewrites each queue's growing and trimming statements in forward's body to the padded rows
    (``names``: attribute -> (state parameter, count parameter)). Run :class:`QueueReads` after it."""

    def __init__(self, queues: Sequence[CappedQueue], names: dict[str, tuple[str, str]]) -> None:
        self.queues = {q.attribute: q for q in queues}
        self.names = names

    def _grow_tensor(self, stmt: cst.SimpleStatementLine, attr: str) -> list[cst.BaseStatement]:
        name, count = self.names[attr]
        assign = stmt.body[0]
        assert type(assign) is cst.Assign and type(assign.value) is cst.Subscript
        grown = f"{name}_grown"
        cat = assign.value.value.deep_replace(assign.value.value.args[0].value.elements[0].value, cst.Name(name))
        cap = self.queues[attr].capacity_code
        note = cst.EmptyLine(comment=cst.Comment(
            f"# trtcodemod lift-state: `self.{attr}` padded to {cap} rows (valid rows last), `{count}` counts them"))
        return [_stmt(f"{grown} = {code_of(cat)}", [*stmt.leading_lines, note]),
                _stmt(f"{count} = torch.clamp({count} + ({grown}.shape[0] - {name}.shape[0]), max={cap})"),
                _stmt(f"{name} = {grown}[-{cap if ' ' not in cap else '(' + cap + ')'}:]")]

    def _grow_list(self, stmt: cst.SimpleStatementLine, attr: str, value: cst.BaseExpression) -> list[cst.BaseStatement]:
        name, count = self.names[attr]
        q = self.queues[attr]
        note = cst.EmptyLine(comment=cst.Comment(
            f"# trtcodemod lift-state: `self.{attr}` as {q.capacity_code} stacked rows (valid rows last), "
            f"`{count}` counts them"))
        return [_stmt(f"{name} = torch.cat([{name}[1:], ({code_of(value)}).unsqueeze(0)], 0)",
                      [*stmt.leading_lines, note]),
                _stmt(f"{count} = torch.clamp({count} + 1, max={q.capacity_code})")]

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        out: list[cst.BaseStatement] = []
        for stmt in updated.body:
            write = tensor_write(stmt)
            if write is not None and write[0] in self.queues and self.queues[write[0]].form == TENSOR:
                out += self._grow_tensor(stmt, write[0])
                continue
            appended = _append(stmt)
            if appended is not None and appended[0] in self.queues and self.queues[appended[0]].form == LIST:
                out += self._grow_list(stmt, *appended)
                continue
            trimmed = next((a for a, q in self.queues.items() if q.form == LIST and list_trim(stmt, a)), None)
            if trimmed is not None:
                name, count = self.names[trimmed]
                leading = stmt.leading_lines
                out.append(_stmt(f"{count} = torch.clamp({count}, max={self.queues[trimmed].kept_code})", leading))
                continue
            out.append(stmt)
        return updated.with_changes(body=out)


class QueueReads(cst.CSTTransformer):
    """Rewrites each read of a queue to its valid rows; what it cannot rewrite is left as
    ``self.<queue>`` for the caller to refuse."""

    def __init__(self, queues: Sequence[CappedQueue], names: dict[str, tuple[str, str]]) -> None:
        self.queues = {q.attribute: q for q in queues}
        self.names = names

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        for attr, q in self.queues.items():
            if q.form != LIST:
                continue
            d = list_read(updated, attr)
            if d is None:
                continue
            name, count = self.names[attr]
            rows = valid_rows(name, count)
            if d == -1:
                return cst.parse_expression(rows)
            return cst.parse_expression(f"{rows}.flatten(0, 1)" if d == 0 else f"{rows}.movedim(0, {d}).flatten({d}, {d + 1})")
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        attr = _self_attr(original)
        q = self.queues.get(attr) if attr is not None else None
        if q is None or q.form != TENSOR:
            return updated
        name, count = self.names[attr]
        return cst.parse_expression(valid_rows(name, count))


def _recognized(forward: cst.FunctionDef, queues: Sequence[CappedQueue]) -> list[cst.BaseStatement]:
    """The top-level statements of forward that grow or trim a queue (the rewrite replaces them)."""
    by_attr = {q.attribute: q for q in queues}
    out = []
    for stmt in forward.body.body:
        write = tensor_write(stmt)
        appended = _append(stmt)
        if (write is not None and by_attr.get(write[0], None) is not None and by_attr[write[0]].form == TENSOR) or (
                appended is not None and appended[0] in by_attr and by_attr[appended[0]].form == LIST) or any(
                q.form == LIST and list_trim(stmt, a) for a, q in by_attr.items()):
            out.append(stmt)
    return out


def queue_lines(forward: cst.FunctionDef, queues: Sequence[CappedQueue], line: Any) -> set[int]:
    """Every line of the statements the rewrite replaces (other checks skip them)."""
    return {line(n) for stmt in _recognized(forward, queues) for n in walk(stmt)} - {0}


def unlifted_uses(forward: cst.FunctionDef, queues: Sequence[CappedQueue], line: Any) -> list[tuple[int, str]]:
    """(line, why) for each use of a queue the rewrite does not take: another write, or a list read
    in another form than ``torch.stack``/``torch.cat`` of the whole list."""
    by_attr = {q.attribute: q for q in queues}
    skip = {id(n) for stmt in _recognized(forward, queues) for n in walk(stmt)}
    taken = {id(n.args[0].value) for n in walk(forward.body) if type(n) is cst.Call
             for a, q in by_attr.items() if q.form == LIST and list_read(n, a) is not None}
    stores = set()
    for n in walk(forward.body):
        if type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del):
            targets = [t.target for t in n.targets] if type(n) is cst.Assign else [n.target]
            stores |= {id(t) for t in targets}
    out = []
    for n in walk(forward.body):
        attr = _self_attr(n) if type(n) is cst.Attribute else None
        q = by_attr.get(attr) if attr is not None else None
        if q is None or id(n) in skip or id(n) in taken:
            continue
        if id(n) in stores:
            out.append((line(n), f"`self.{attr}` is written outside its queue statement (line {q.line}): the "
                        "padded rows and their count would not follow it"))
        elif q.form == LIST:
            out.append((line(n), f"`{code_of(n)}` reads the list queue `self.{attr}` in a form whose padding "
                        "the lift cannot keep exact: read it as torch.stack(self.q) or torch.cat(self.q, dim)"))
    return out


def capped_queues(source: str, cls_name: str, model: Any) -> list[CappedQueue]:
    """The capped queues of ``cls_name.forward`` in ``source``, caps read from the built ``model``."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(source)
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    forward = next((s for s in (cls.body.body if cls is not None else ()) if type(s) is cst.FunctionDef
                    and s.name.value == "forward"), None)
    if forward is None:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return find_queues(forward, model, lambda n: positions[n].start.line if n in positions else 0)
