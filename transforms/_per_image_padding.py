"""How TRT393 and TRT360 read a padding of each image's rows to a fixed count (shared; no rule here).

TRT393 takes such a padding in a loop of its own over a per-image list; TRT360 takes it where it ends the loop that
runs NMS image by image (Ultralytics' ``NMSModel``). Both read it with :class:`PaddingReader`; this module imports
neither rule's module, so each can import it.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, int_value, plain_read, strip_parens, walk

#: TRT393's helper: each image's rows padded to a count, from the flattened rows of TRT360's list.
PAD_HELPER = "_trt_padded_by_image"
_CAT = ("torch.cat", "torch.concat", "torch.concatenate")
_F_PAD = ("torch.nn.functional.pad",)


class PaddingReader:
    """What TRT393 reads of a padding (the zeros made before a loop, ``F.pad`` / ``torch.cat`` with ``new_zeros`` of
    an image's rows to a count, the slot written by the image's index), with a file's ``context``: TRT393's own loops,
    and the tail of a loop over the batch that TRT360 flattens (:func:`fused_padding`)."""

    context: object

    def _allocated(self, statement: cst.BaseStatement) -> tuple[str, str, str | None] | None:
        """(name, ``k``, fill) of ``name = torch.zeros((n, k, ...))`` (or ``torch.zeros(n, k, ...)``,
        ``x.new_zeros(...)``; ``dtype=`` and ``device=`` allowed; fill None) or of ``name = torch.full((n, k, ...),
        v)`` (``x.new_full(...)``; fill ``v`` as :func:`_fill` reads it): a tensor of three or more axes."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if type(small) is not cst.Assign or len(small.targets) != 1 or type(small.targets[0].target) is not cst.Name:
            return None
        call = strip_parens(small.value)
        if type(call) is not cst.Call:
            return None
        method = call.func.attr.value if type(call.func) is cst.Attribute else None
        full = self.context.refers_to(call.func, "torch.full") is not None or method == "new_full"
        if not full and self.context.refers_to(call.func, "torch.zeros") is None and method != "new_zeros":
            return None
        arguments = list(call.args)
        if any(a.star for a in arguments):
            return None
        fill: str | None = None
        if full:  # `torch.full(size, fill_value)`: the size a tuple or list, the fill second or by keyword
            sizes = [a for a in arguments if a.keyword is None]
            value = [a for a in arguments if a.keyword is not None and a.keyword.value == "fill_value"]
            if len(sizes) + len(value) != 2 or (value and len(sizes) != 1):
                return None
            read = _fill((value or sizes[1:])[0].value)
            if read is False:
                return None
            fill = read
            arguments = [sizes[0]] + [a for a in arguments if a.keyword is not None and a.keyword.value != "fill_value"]
        if any(a.keyword is not None and a.keyword.value not in ("dtype", "device") for a in arguments):
            return None
        sizes = [a.value for a in arguments if a.keyword is None]
        if len(sizes) == 1 and type(strip_parens(sizes[0])) in (cst.Tuple, cst.List):
            elements = strip_parens(sizes[0]).elements
            if any(type(e) is cst.StarredElement for e in elements):
                return None
            sizes = [e.value for e in elements]
        elif full:
            return None
        if len(sizes) < 3:
            return None
        return small.targets[0].target.value, code_of(sizes[1]).strip(), fill

    def _fill_of(self, node: cst.BaseExpression) -> str | None:
        """The fill of a padding :meth:`_padding` read: ``F.pad``'s ``value`` (None for zeros; ``new_zeros``'s too)."""
        node = strip_parens(node)
        if type(node) is cst.Call and self.context.refers_to(node.func, *_F_PAD):
            return _pad_arguments(node)[2]
        return None

    def _padding(self, node: cst.BaseExpression, entry: str, bound: dict | None = None) -> str | None:
        """The count ``k`` that ``node`` pads the rows ``entry`` to with zero rows: ``torch.cat([entry,
        entry.new_zeros(k - n, ...)])`` (along the first axis) or ``F.pad(entry, (0, 0, 0, k - n))``, ``n`` the
        rows' count (``entry.shape[0]``, ``entry.size(0)``, ``len(entry)``), the widths maybe a name ``bound`` maps to
        the tuple it was bound to; None for anything else."""
        node = strip_parens(node)
        if type(node) is not cst.Call or any(a.star for a in node.args):
            return None
        if self.context.refers_to(node.func, *_CAT):
            if not 1 <= len(node.args) <= 2 or node.args[0].keyword is not None or (
                    len(node.args) == 2 and (node.args[1].keyword is not None and node.args[1].keyword.value != "dim"
                                             or int_value(strip_parens(node.args[1].value)) != 0)):
                return None
            parts = strip_parens(node.args[0].value)
            if type(parts) not in (cst.List, cst.Tuple) or len(parts.elements) != 2 \
                    or any(type(e) is cst.StarredElement for e in parts.elements) \
                    or code_of(parts.elements[0].value).strip() != entry:
                return None
            zeros = strip_parens(parts.elements[1].value)
            if type(zeros) is not cst.Call or type(zeros.func) is not cst.Attribute \
                    or zeros.func.attr.value != "new_zeros" or code_of(zeros.func.value).strip() != entry \
                    or not zeros.args or any(a.keyword or a.star for a in zeros.args):
                return None
            sizes = [a.value for a in zeros.args]
            if len(sizes) == 1 and type(strip_parens(sizes[0])) is cst.Tuple:
                sizes = [e.value for e in strip_parens(sizes[0]).elements]
            return self._short_of(sizes[0], entry) if sizes else None
        if self.context.refers_to(node.func, *_F_PAD):
            arguments = _pad_arguments(node)
            if arguments is None or code_of(arguments[0]).strip() != entry:
                return None
            widths = strip_parens(arguments[1])
            if type(widths) is cst.Name and widths.value in (bound or {}):
                widths = bound[widths.value]
            if type(widths) not in (cst.Tuple, cst.List) or len(widths.elements) != 4 \
                    or any(int_value(strip_parens(e.value)) != 0 for e in widths.elements[:3]):
                return None
            return self._short_of(widths.elements[3].value, entry)
        return None

    def _crops(self, node: cst.BaseExpression) -> bool:
        """Is ``node`` (a padding :meth:`_padding` read) ``F.pad``, whose negative width crops the rows to the count
        (``torch.cat`` with ``new_zeros`` raises instead)?"""
        node = strip_parens(node)
        return type(node) is cst.Call and self.context.refers_to(node.func, *_F_PAD)

    @staticmethod
    def _short_of(node: cst.BaseExpression, entry: str) -> str | None:
        """``k`` of ``k - n``, ``n`` the count of the rows ``entry``."""
        node = strip_parens(node)
        if type(node) is not cst.BinaryOperation or type(node.operator) is not cst.Subtract:
            return None
        if code_of(node.right).strip() not in _counts(entry):
            return None
        return code_of(node.left).strip()

    def _written_padding(self, allocated: tuple[str, str, str | None], index: str, entry: str,
                         statements: list) -> tuple[str, str | None, dict] | None:
        """(``k``, fill, widths bound) of the statements ``[entry = entry[:k]] [pad = (0, 0, 0, k - len(entry))]
        out[index] = <entry padded to k>`` (or ``out[index, :len(entry)] = entry`` after the cap), ``out`` the
        ``allocated`` zeros (:meth:`_allocated`) whose second size is ``k``; None for anything else."""
        out, size, fill = allocated
        if not 1 <= len(statements) <= 3 or {index, entry} & {out} or index == entry:
            return None
        *before, write = statements
        cap, widths = None, {}
        for statement in before:
            if cap is None and not widths and _capped(statement, entry) is not None:
                cap = code_of(_capped(statement, entry)).strip()
            elif not widths and _widths(statement) is not None:
                widths = dict([_widths(statement)])
            else:
                return None
        if type(write) is not cst.Assign or len(write.targets) != 1:
            return None
        target = strip_parens(write.targets[0].target)
        if type(target) is not cst.Subscript or code_of(target.value).strip() != out \
                or not 1 <= len(target.slice) <= 2 or type(target.slice[0].slice) is not cst.Index \
                or code_of(target.slice[0].slice.value).strip() != index:
            return None
        if len(target.slice) == 1:
            count = self._padding(write.value, entry, widths)
            if count is None or (cap is None and not self._crops(write.value)) or (cap is not None and cap != count):
                return None  # `torch.cat` with `new_zeros` and no cap raises in eager mode where the rows outnumber `k`
            fill = self._fill_of(write.value)  # the whole slot written: the allocation's fill is overwritten
        else:
            part = target.slice[1].slice
            if widths or cap is None or code_of(strip_parens(write.value)).strip() != entry \
                    or type(part) is not cst.Slice or part.lower is not None or part.step is not None \
                    or part.upper is None or code_of(part.upper).strip() not in _counts(entry):
                return None
            count = cap
        if count != size or _names(count) & {entry, index, out, *widths}:
            return None  # a count made from the rows or the loop's names
        if fill is not None and _names(fill) & {entry, index, out, *widths}:
            return None  # a fill made in the loop
        return count, fill, widths


class _Reader(PaddingReader):
    def __init__(self, context) -> None:
        self.context = context


def fused_padding(context, made: cst.BaseStatement, statements: list, index: str
                  ) -> tuple[str, str, str, str, str | None, str | None, int, set[str]] | None:
    """The padding that ends the body of a loop over the batch which also makes each image's rows (Ultralytics'
    export-time ``NMSModel``: ``out = torch.zeros(bs, k, C)`` / ``for i in range(bs):`` / ... / ``dets = ...`` /
    ``pad = (0, 0, 0, k - dets.shape[0])`` / ``out[i] = F.pad(dets, pad)``), for TRT360 to flatten the statements
    before it and fill ``out`` from the flattened rows as TRT393 does: (``out``, the zeros' first size, the rows'
    name, ``k``, the fill of the padding, the fill of the zeros, how many statements the padding takes, the names
    it binds), or None. ``made`` is the statement right before the loop, ``statements`` the body's, one a line."""
    reader = _Reader(context)
    allocated = reader._allocated(made)
    if allocated is None or index is None:
        return None
    sizes = _sizes(strip_parens(made.body[0].value))
    for length in (3, 2, 1):
        if length >= len(statements) or any(not isinstance(s, cst.BaseSmallStatement) for s in statements[-length:]):
            continue
        write = statements[-1]
        if type(write) is not cst.Assign or len(write.targets) != 1:
            return None
        value = strip_parens(write.value)
        entry = value.args[0].value if type(value) is cst.Call and value.args and not value.args[0].star else value
        if type(value) is cst.Call and reader.context.refers_to(value.func, *_CAT):
            parts = strip_parens(entry)
            entry = parts.elements[0].value if type(parts) in (cst.List, cst.Tuple) and parts.elements else parts
        entry = strip_parens(entry)
        if type(entry) is not cst.Name:
            return None
        read = reader._written_padding(allocated, index, entry.value, list(statements[-length:]))
        if read is not None:
            count, fill, widths = read
            return (allocated[0], sizes[0], entry.value, count, fill, allocated[2], length,
                    {*widths})
    return None


def _sizes(call: cst.BaseExpression) -> list[str]:
    """The sizes' code of the call :meth:`PaddingReader._allocated` read (``torch.zeros(n, k, c)``,
    ``torch.zeros((n, k, c))``, ``torch.full((n, k, c), v)``)."""
    sizes = [a.value for a in call.args if a.keyword is None]
    if type(strip_parens(sizes[0])) in (cst.Tuple, cst.List):
        sizes = [e.value for e in strip_parens(sizes[0]).elements]
    return [code_of(size).strip() for size in sizes]


def _pad_arguments(call: cst.Call) -> tuple[cst.BaseExpression, cst.BaseExpression, str | None] | None:
    """(input, widths, fill) of ``F.pad(input, widths)`` that pads with a constant: positional or by keyword
    (``input=``, ``pad=``), with ``mode="constant"`` and a ``value`` (:func:`_fill` reads it: ``None`` for zeros);
    None for another mode or a fill of another form."""
    names = ("input", "pad", "mode", "value")
    bound: dict[str, cst.BaseExpression] = {}
    for position, argument in enumerate(call.args):
        name = argument.keyword.value if argument.keyword is not None else (
            names[position] if position < len(names) else None)
        if argument.star or name not in names or name in bound:
            return None
        bound[name] = strip_parens(argument.value)
    if "input" not in bound or "pad" not in bound:
        return None
    mode = bound.get("mode")
    if mode is not None and not (type(mode) is cst.SimpleString and mode.evaluated_value == "constant"):
        return None
    value = bound.get("value")
    fill = _fill(value) if value is not None else None
    if value is not None and fill is False:
        return None
    return bound["input"], bound["pad"], fill or None


def _fill(node: cst.BaseExpression) -> str | None | bool:
    """The fill ``node`` spells as the helper takes it: ``None`` for zero (``0``, ``0.0``), the code of another number
    (``-1``, ``1.5``), of ``float("nan")``/``float("inf")``/``-float("inf")`` or of a plain name or attribute
    (``np.nan``, ``math.inf``, ``self.pad_value``: read once, as the loop reads it each time); False for anything
    else (a call, a name the loop binds is checked by the caller)."""
    node = strip_parens(node)
    inner = node.expression if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus else node
    inner = strip_parens(inner)
    if type(inner) in (cst.Integer, cst.Float):
        try:
            return None if float(inner.value.replace("_", "")) == 0 else code_of(node).strip()
        except ValueError:
            return False
    if type(inner) is cst.Call and type(inner.func) is cst.Name and inner.func.value == "float" \
            and len(inner.args) == 1 and not inner.args[0].keyword and not inner.args[0].star \
            and type(inner.args[0].value) is cst.SimpleString \
            and inner.args[0].value.evaluated_value.strip().lower() in ("nan", "inf", "-inf", "+inf", "infinity"):
        return code_of(node).strip()
    if type(inner) in (cst.Name, cst.Attribute) and plain_read(inner):
        return code_of(node).strip()
    return False


def _names(code: str) -> set[str]:
    """The names the expression ``code`` reads."""
    return {n.value for n in walk(cst.parse_expression(code)) if type(n) is cst.Name}


def _counts(entry: str) -> tuple[str, ...]:
    """The spellings of the count of the rows ``entry``."""
    return f"{entry}.shape[0]", f"{entry}.size(0)", f"len({entry})"


def _by_index(loop: cst.For) -> tuple[str, str, str, list] | None:
    """(index, entry, list, the body's other statements) of ``for i, det in enumerate(detections):`` or of ``for i in
    range(len(detections)):`` whose first statement is ``det = detections[i]``; None for another loop, or a body of
    anything but one small statement a line."""
    if type(loop.body) is not cst.IndentedBlock:
        return None
    small = [s.body[0] if type(s) is cst.SimpleStatementLine and len(s.body) == 1 else None for s in loop.body.body]
    if not small or any(s is None for s in small):
        return None
    call = strip_parens(loop.iter)
    if type(call) is not cst.Call or type(call.func) is not cst.Name or len(call.args) != 1 \
            or call.args[0].keyword or call.args[0].star:
        return None
    argument = strip_parens(call.args[0].value)
    target = strip_parens(loop.target)
    if call.func.value == "enumerate" and plain_read(argument) and type(target) is cst.Tuple \
            and len(target.elements) == 2 and all(type(e.value) is cst.Name for e in target.elements):
        return target.elements[0].value.value, target.elements[1].value.value, code_of(argument).strip(), small
    if call.func.value != "range" or type(target) is not cst.Name or type(argument) is not cst.Call \
            or type(argument.func) is not cst.Name or argument.func.value != "len" or len(argument.args) != 1 \
            or argument.args[0].keyword or argument.args[0].star or not plain_read(argument.args[0].value):
        return None
    results, index, first = code_of(argument.args[0].value).strip(), target.value, small[0]
    if type(first) is not cst.Assign or len(first.targets) != 1 or type(first.targets[0].target) is not cst.Name:
        return None
    picked = strip_parens(first.value)
    if type(picked) is not cst.Subscript or code_of(picked.value).strip() != results or len(picked.slice) != 1 \
            or type(picked.slice[0].slice) is not cst.Index or code_of(picked.slice[0].slice.value).strip() != index:
        return None
    return index, first.targets[0].target.value, results, small[1:]


def _widths(statement: cst.BaseSmallStatement) -> tuple[str, cst.BaseExpression] | None:
    """(name, tuple) of ``pad = (0, 0, 0, k - det.shape[0])`` (a tuple or list bound to a name)."""
    if type(statement) is not cst.Assign or len(statement.targets) != 1 \
            or type(statement.targets[0].target) is not cst.Name:
        return None
    value = strip_parens(statement.value)
    return (statement.targets[0].target.value, value) if type(value) in (cst.Tuple, cst.List) else None


def _capped(statement: cst.BaseSmallStatement, entry: str) -> cst.BaseExpression | None:
    """``k`` of ``entry = entry[:k]``."""
    if type(statement) is not cst.Assign or len(statement.targets) != 1 \
            or code_of(statement.targets[0].target).strip() != entry:
        return None
    value = strip_parens(statement.value)
    if type(value) is not cst.Subscript or code_of(value.value).strip() != entry or len(value.slice) != 1:
        return None
    part = value.slice[0].slice
    if type(part) is not cst.Slice or part.lower is not None or part.step is not None or part.upper is None:
        return None
    return part.upper
