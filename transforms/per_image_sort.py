"""TRT737: a loop over the images that picks each image's rows by an image-index column, sorts them and caps them.

``for i in range(b): (p,) = torch.where(i == rows[:, 5]); o = rows[p, 4].sort(descending=True)[1];
out.append(rows[p][o][:k])`` then ``torch.cat(out)`` (fastface's ``FaceDetector._postprocess``: every image's best
``keep_n`` candidates before one batched NMS): a trace unrolls it with the example's batch. While tracing the rewrite
computes every image's rows at once: each row's rank in its image from pairwise comparisons, its place from the
counts of the images before it (no TopK, no loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import code_of, int_value, plain_read, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule
from trtcodemod.transforms.per_image_nms import SORT_HELPER as HELPER, PerImageNms, _topk_arguments

_ASSUMPTION = ("rows whose sort keys tie within an image keep the order of their positions (the loop's sort, not "
               "stable unless asked to be, or its TopK may order them otherwise; TensorRT does not document its "
               "TopK's order of ties); with a cap of 1 to 3840 a NaN key ranks with an infinite one (`torch.sort` "
               "puts NaN past every number); the image-index column and the sort key are read from the same rows "
               "tensor the loop picks from, unchanged during the loop; where the loop skips images without rows, "
               "some image has rows (with none, the loop's concatenation of an empty list raises, the graph gives no "
               "rows)")

_LOOP = ("for i in range(batch_size):\n"
         "    (pick,) = torch.where(i == preds[:, 5])\n"
         "    order = preds[pick, 4].sort(descending=True)[1]\n"
         "    out.append(preds[pick, :][order][:keep_n, :])\n")


@dataclass
class _Body:
    """What the loop's statements were found to do: the rows tensor, its image column, the picks' names, the sort
    (key column, direction, the order's name) and the cap."""

    rows: str = ""
    column: cst.BaseExpression | None = None
    pick: str = ""
    order: str = ""
    #: Every name the sort binds (``_, order = key.sort(...)`` binds two).
    sorted_names: tuple[str, ...] = ()
    key: cst.BaseExpression | None = None
    descending: bool = False
    cap: cst.BaseExpression | None = None
    #: The pick binds the picked rows themselves (``x = rows[rows[:, c] == i]``), not their positions.
    masked: bool = False
    #: The name bound to ``min(k, <the image's row count>)``, a TopK's K: the cap ``k`` where no more rows are left.
    limit: str = ""
    limit_cap: cst.BaseExpression | None = None


class PerImageSort(RuntimeScopeRule):
    needs_text = (b"==",)  # every pick compares the image column with the loop's index
    info = RuleInfo(
        id="TRT737",
        name="per-image-sorted-rows",
        summary="a loop over the images picking each image's rows by an image-index column, sorted and capped: "
                "tracing unrolls it with the example's batch; every image's rows at once while tracing",
        doc=f"""\
What it finds, in run-time code: a list filled by a loop over the images, `out = []` / `for i in
range(n):` / `out.append(...)`, only concatenated along its first axis after it, whose body
- picks the rows of image `i` of a rows tensor by its image-index column: `(p,) = torch.where(i ==
  rows[:, c])` (or `rows[:, c] == i`, `p, = ...`, `torch.where(...)[0]`, `(...).nonzero(as_tuple=True)[0]`),
  or the rows themselves by that mask, `x = rows[rows[:, c] == i]` (then `x` stands for `rows[p]`);
- may skip an image without rows: `if x.numel() == 0: continue` (`len(x)`, `x.shape[0]`, `x.size(0)`; `p`
  too): it appends nothing, which the concatenation does not tell from its zero rows;
- may sort them by one of their columns: `o = rows[p, s].sort(descending=True)[1]` (or `.indices`,
  `_, o = ....sort(...)`, `.argsort(...)`, `torch.argsort(..., descending=True)`; ascending too; `x[:, s]`),
  or keep the best of them by a sorted TopK whose K is `min(k, <the image's row count>)` (bound to a name
  first or not; `largest=False` ascending): the sort cut at `k`;
- appends them, sorted, maybe capped: `rows[p][o][:k]` (also `rows[p, :]`, `[:k, :]`, `rows[p][o[:k]]`, `x[o]`).

fastface's `FaceDetector._postprocess` keeps each image's best `keep_n` candidates so before one batched NMS;
United-Perception's `RpnMerger.merge` keeps each image's best `top_n` proposals by a TopK.

Why it hurts: a traced export runs the loop with the example's batch: at another batch size the graph
returns the example's number of images (ONNX Runtime drops the others' rows or fails on missing ones).

The rewrite keeps the loop for eager code; while tracing (`{TRACING_HELPER}()`) it appends
`{HELPER}(rows, rows[:, c], rows[:, s], descending, k, n)`: the same rows, image by image, with no loop. Each
row's place among its image's rows is a cumulative count of the images' one-hot (float32: TensorRT's CumSum takes
no integers). With a sort and a cap `k` from 1 to 3840 (TensorRT's largest TopK K), the images' keys are laid
out one image a row of a padded table and one TopK of K = `k` picks each image's best, ties by position as ONNX
specifies; otherwise each row's rank is counted by pairwise comparisons (NaN first descending, last ascending, as
`torch.sort` places it), whose cost is the square of the rows' count, and the kept rows are written at their
image's offset plus their rank.

Fix safety: unsafe: {_ASSUMPTION}. Not taken: a body that does anything else, a name it binds read after
the loop, a rows tensor or column the loop changes, a TopK unsorted or of a K that is not `min(k, <the image's
row count>)`, a skip that does more than `continue`.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                f"def best(preds, batch_size, keep_n):\n    out = []\n"
                + "".join("    " + line + "\n" for line in _LOOP.splitlines())
                + "    return torch.cat(out, dim=0)\n",
                "def best(preds, batch_size, keep_n):\n"
                "    out = []\n"
                f"    if {TRACING_HELPER}():\n"
                f"        out.append({HELPER}(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size))\n"
                "    else:\n"
                + "".join("        " + line + "\n" for line in _LOOP.splitlines())
                + "    return torch.cat(out, dim=0)\n",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/generated/torch.sort.html",
                    "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting"),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active():
            return
        for position, statement in enumerate(node.body):
            if type(statement) is cst.For:
                self._loop(node.body, position, statement)

    def _loop(self, block, position: int, node: cst.For) -> None:
        count = self._range(node)
        if count is None or type(node.target) is not cst.Name:
            return
        index = node.target.value
        body = node.body.body if type(node.body) is cst.IndentedBlock else ()
        small = [s.body[0] if type(s) is cst.SimpleStatementLine and len(s.body) == 1
                 else s if type(s) is cst.If else None for s in body]
        if len(small) < 2 or any(s is None for s in small) or type(small[-1]) is cst.If:
            return
        rule = PerImageNms  # its list helpers, on this rule's context
        target = rule._appended(self, small[-1])
        if target is None or not rule._list_made_before(self, block, position, target) \
                or not rule._only_concatenated_after(self, block, position, target):
            return
        found = _Body()
        for statement in small[:-1]:
            if not (self._skips_empty(statement, found) if type(statement) is cst.If
                    else self._statement(statement, index, found)):
                return
        if not found.pick or not self._appended_rows(small[-1].value.args[0].value, found):
            return
        bound = {index, found.pick, *found.sorted_names} | ({found.limit} if found.limit else set())
        if found.cap is not None and any(type(n) is cst.Name and n.value in bound for n in walk(found.cap)) \
                or found.rows.split(".")[0].split("[")[0] in bound or rule._read_after(self, block, position, bound):
            return  # a cap that changes image by image, rows the loop binds anew, a name read after the loop
        rows = found.rows
        key = f"{rows}[:, {code_of(found.key).strip()}]" if found.key is not None else "None"
        cap = code_of(found.cap).strip() if found.cap is not None else "None"
        call = (f"{target}.append({HELPER}({rows}, {rows}[:, {code_of(found.column).strip()}], {key}, "
                f"{found.descending}, {cap}, {code_of(count).strip()}))")
        rewritten = cst.If(test=cst.parse_expression(f"{TRACING_HELPER}()"),
                           body=cst.IndentedBlock(body=[cst.parse_statement(call + "\n")]),
                           orelse=cst.Else(body=cst.IndentedBlock(body=[node.with_changes(leading_lines=())])),
                           leading_lines=node.leading_lines)
        loop = f"`for {index} in {code_of(node.iter).strip()}`"
        self.found(node, f"{loop} picks each image's rows by the image-index column of `{rows}`, sorts and caps "
                         "them: a traced export unrolls it with the example's batch; while tracing, "
                         f"`{HELPER}` computes every image's rows at once, the loop otherwise; assumes {_ASSUMPTION}",
                   Fix({node: rewritten}, safety=Safety.UNSAFE, helpers=(TRACING_HELPER, HELPER)))

    def _range(self, node: cst.For) -> cst.BaseExpression | None:
        """``n`` of ``for i in range(n)``, ``n`` a read with no effect (a name, ``x.shape[0]``, ``x.size(0)``,
        ``len(x)``): the rewrite reads it again."""
        call = PerImageNms._builtin_call(self, node.iter, "range")
        if call is None or len(call.args) != 1 or node.orelse is not None or node.asynchronous is not None:
            return None
        count = strip_parens(call.args[0].value)
        if plain_read(count):
            return count
        if type(count) is cst.Call and not count.args[1:] and (
                type(count.func) is cst.Name and count.func.value == "len" and len(count.args) == 1
                or type(count.func) is cst.Attribute and count.func.attr.value == "size"
                and [code_of(a.value).strip() for a in count.args] == ["0"]) \
                and plain_read(count.args[0].value if type(count.func) is cst.Name else count.func.value):
            return count
        return None

    def _statement(self, statement: cst.BaseSmallStatement, index: str, found: _Body) -> bool:
        """Take one statement of the body into ``found`` (the pick, then the sort); False for anything else."""
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            return False
        names = _names(statement.targets[0].target)
        value = strip_parens(statement.value)
        if not found.pick and len(names) == 1:
            tuple_target = type(statement.targets[0].target) in (cst.Tuple, cst.List)
            picked = self._pick(value, index, tuple_target=tuple_target)
            if picked is None and not tuple_target:
                picked, found.masked = self._masked_pick(value, index), True
            if picked is None:
                return False
            found.rows, found.column = picked
            found.pick = names[0]
            return True
        if found.pick and not found.order and not found.limit and type(statement.targets[0].target) is cst.Name \
                and self._row_limit(value, found) is not None:
            found.limit, found.limit_cap = names[0], self._row_limit(value, found)
            return True
        if found.pick and not found.order and names:
            return self._sort(value, names, found)
        return False

    def _masked_pick(self, value: cst.BaseExpression, index: str) -> tuple[str, cst.BaseExpression] | None:
        """(the rows tensor, the column) of ``rows[rows[:, c] == i]`` (or ``i == rows[:, c]``): the rows the mask
        picks, in their order, as ``rows[torch.where(mask)[0]]`` picks them."""
        if type(value) is not cst.Subscript or len(value.slice) != 1 or type(value.slice[0].slice) is not cst.Index \
                or not plain_read(value.value):
            return None
        found = self._image_column(strip_parens(value.slice[0].slice.value), index)
        return found if found is not None and found[0] == code_of(value.value).strip() else None

    def _count_of(self, node: cst.BaseExpression, found: _Body) -> bool:
        """Is ``node`` the number of the picked rows: ``x.shape[0]``, ``x.size(0)``, ``len(x)`` (``x`` the picked
        rows, or their positions ``p``), ``x.numel()`` of the positions?"""
        node = strip_parens(node)
        if type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape" \
                and len(node.slice) == 1 and code_of(node.slice[0].slice).strip() == "0":
            return _is_name(node.value.value, found.pick)
        if type(node) is not cst.Call:
            return False
        if PerImageNms._builtin_call(self, node, "len") is not None and len(node.args) == 1:
            return _is_name(node.args[0].value, found.pick)
        if type(node.func) is cst.Attribute and _is_name(node.func.value, found.pick):
            args = [code_of(a).strip().rstrip(",") for a in node.args]
            return node.func.attr.value == "size" and args == ["0"] \
                or node.func.attr.value == "numel" and not args and not found.masked
        return False

    def _row_limit(self, value: cst.BaseExpression, found: _Body) -> cst.BaseExpression | None:
        """``k`` of ``min(k, <the picked rows' count>)`` (either order): a TopK's K that takes every row where
        fewer than ``k`` are left, so that TopK is the sort cut at ``k``."""
        call = PerImageNms._builtin_call(self, value, "min")
        if call is None or len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
            return None
        first, second = (strip_parens(a.value) for a in call.args)
        for cap, count in ((first, second), (second, first)):
            if self._count_of(count, found) and (plain_read(cap) or int_value(cap) is not None):
                return cap
        return None

    def _skips_empty(self, statement: cst.If, found: _Body) -> bool:
        """``if x.numel() == 0: continue`` (``len(x)``, ``x.shape[0]``, ``x.size(0)``), ``x`` the picked rows or
        their positions: an image with no row appends nothing, which the concatenation does not tell from its zero
        rows."""
        if not found.pick or statement.orelse is not None or type(statement.body) is not cst.IndentedBlock \
                or len(statement.body.body) != 1:
            return False
        [line] = statement.body.body
        if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Continue:
            return False
        test = strip_parens(statement.test)
        if type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) is not cst.Equal:
            return False
        sides = [strip_parens(test.left), strip_parens(test.comparisons[0].comparator)]
        return any(int_value(a) == 0 and type(a) is cst.Integer and (self._count_of(b, found) or type(b) is cst.Call
                   and type(b.func) is cst.Attribute and b.func.attr.value == "numel" and not b.args
                   and _is_name(b.func.value, found.pick))
                   for a, b in (sides, sides[::-1]))

    def _pick(self, value: cst.BaseExpression, index: str, tuple_target: bool) \
            -> tuple[str, cst.BaseExpression] | None:
        """(the rows tensor, the column) of ``torch.where(i == rows[:, c])`` (a one-name tuple target), ``...[0]``,
        ``(i == rows[:, c]).nonzero(as_tuple=True)[0]``."""
        if not tuple_target:
            if type(value) is not cst.Subscript or len(value.slice) != 1 \
                    or code_of(value.slice[0].slice).strip() != "0":
                return None
            value = strip_parens(value.value)
        if type(value) is not cst.Call:
            return None
        if self.context.refers_to(value.func, "torch.where") and len(value.args) == 1 \
                and value.args[0].keyword is None:
            condition = value.args[0].value
        elif type(value.func) is cst.Attribute and value.func.attr.value == "nonzero" \
                and [code_of(a).strip().rstrip(",") for a in value.args] == ["as_tuple=True"]:
            condition = value.func.value
        else:
            return None
        return self._image_column(strip_parens(condition), index)

    @staticmethod
    def _image_column(condition: cst.BaseExpression, index: str) -> tuple[str, cst.BaseExpression] | None:
        if type(condition) is not cst.Comparison or len(condition.comparisons) != 1 \
                or type(condition.comparisons[0].operator) is not cst.Equal:
            return None
        sides = [strip_parens(condition.left), strip_parens(condition.comparisons[0].comparator)]
        names = [s for s in sides if type(s) is cst.Name and s.value == index]
        columns = [s for s in sides if type(s) is cst.Subscript]
        if len(names) != 1 or len(columns) != 1:
            return None
        return _column_of(columns[0])

    def _sort(self, value: cst.BaseExpression, names: list[str], found: _Body) -> bool:
        """``o = key.sort(descending=True)[1]`` (``.indices``; ``_, o = key.sort(...)``), ``o = key.argsort(...)``,
        ``o = torch.argsort(key, ...)``, the key a column of the picked rows."""
        call = value
        take_indices = len(names) == 2
        if not take_indices and type(value) is cst.Subscript and len(value.slice) == 1 \
                and code_of(value.slice[0].slice).strip() == "1":
            call, take_indices = strip_parens(value.value), True
        elif not take_indices and type(value) is cst.Attribute and value.attr.value == "indices":
            call, take_indices = strip_parens(value.value), True
        if type(call) is not cst.Call:
            return False
        method = type(call.func) is cst.Attribute and not self.context.qualified_names(call.func)
        if take_indices and _topk_arguments(self.context, call) is not None:
            return self._topk(call, names, found)
        if method and call.func.attr.value == "sort" and take_indices:
            subject, args = call.func.value, list(call.args)
        elif method and call.func.attr.value == "argsort" and len(names) == 1 and not take_indices:
            subject, args = call.func.value, list(call.args)
        elif self.context.refers_to(call.func, "torch.argsort") and call.args and call.args[0].keyword is None \
                and len(names) == 1 and not take_indices:
            subject, args = call.args[0].value, list(call.args[1:])
        else:
            return False
        descending = False
        for arg in args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            text = code_of(arg.value).strip()
            if keyword == "descending" and text in ("True", "False"):
                descending = text == "True"
            elif keyword in ("dim", None) and text in ("0", "-1") and not arg.star:
                continue
            elif keyword == "stable" and text == "True":
                continue
            else:
                return False
        key = self._picked_column(strip_parens(subject), found)
        if key is None:
            return False
        found.key, found.descending, found.order, found.sorted_names = key, descending, names[-1], tuple(names)
        return True

    def _topk(self, call: cst.Call, names: list[str], found: _Body) -> bool:
        """``_, o = torch.topk(key, k=K, sorted=True)`` (``key.topk(K)``, ``largest=False``), ``K`` the name bound
        to ``min(k, <the picked rows' count>)`` or that call itself: the sort (descending where ``largest``) cut
        at ``k``; its indices order the picked rows."""
        given = _topk_arguments(self.context, call)
        if given is None or "input" not in given:
            return False
        said = {name: code_of(value).strip() for name, value in given.items()}
        if said.get("dim", "0") not in ("0", "-1") or said.get("largest", "True") not in ("True", "False") \
                or said.get("sorted", "True") != "True":
            return False  # unsorted: the kept rows in an order of TopK's choosing
        subject, descending = given["input"], said.get("largest", "True") == "True"
        limit = strip_parens(given["k"]) if "k" in given else None
        if limit is None:
            return False
        if found.limit and _is_name(limit, found.limit):
            cap = found.limit_cap
        elif not found.limit:
            cap = self._row_limit(limit, found)
        else:
            return False
        key = self._picked_column(strip_parens(subject), found)
        if cap is None or key is None:
            return False
        found.key, found.descending, found.order, found.sorted_names = key, descending, names[-1], tuple(names)
        found.cap = cap
        return True

    def _picked_column(self, node: cst.BaseExpression, found: _Body) -> cst.BaseExpression | None:
        """``c`` of ``rows[p, c]``, ``rows[p][:, c]`` or ``rows[p, :][:, c]``."""
        if type(node) is not cst.Subscript:
            return None
        if found.masked:  # `x[:, c]`, `x` the picked rows
            return _literal(node.slice[1]) if len(node.slice) == 2 and _is_name(node.value, found.pick) \
                and code_of(node.slice[0].slice).strip() == ":" else None
        if len(node.slice) == 2 and _is_name(node.value, found.rows) \
                and _is_name(_index(node.slice[0]), found.pick):
            return _literal(node.slice[1])
        if len(node.slice) == 2 and code_of(node.slice[0].slice).strip() == ":" \
                and self._picks(node.value, found) is not None:
            return _literal(node.slice[1])
        return None

    @staticmethod
    def _picks(node: cst.BaseExpression, found: _Body) -> bool | None:
        """True for ``rows[p]`` or ``rows[p, :]``; None otherwise."""
        node = strip_parens(node)
        if found.masked:  # the picked rows themselves
            return True if _is_name(node, found.pick) else None
        if type(node) is not cst.Subscript or not _is_name(node.value, found.rows) \
                or not _is_name(_index(node.slice[0]), found.pick):
            return None
        if len(node.slice) == 1 or len(node.slice) == 2 and code_of(node.slice[1].slice).strip() == ":":
            return True
        return None

    def _appended_rows(self, value: cst.BaseExpression, found: _Body) -> bool:
        """Is ``value`` the picked rows, sorted where the body sorts them, capped maybe: ``rows[p][o][:k]``,
        ``rows[p, :][o][:k, :]``, ``rows[p][o[:k]]``, ``rows[p][o]``, ``rows[p][:k]`` (no sort)?"""
        node = strip_parens(value)
        cap = _cap(node)
        if cap is not None and found.cap is not None:
            return False  # a TopK's cap, then another
        if cap is not None:
            found.cap, node = cap, strip_parens(node.value)  # type: ignore[attr-defined]
        if found.order:
            if type(node) is not cst.Subscript or len(node.slice) != 1:
                return False
            at = _index(node.slice[0])
            if found.cap is None and type(at) is cst.Subscript and _is_name(at.value, found.order) \
                    and _cap(at) is not None:
                found.cap = _cap(at)  # `rows[p][o[:k]]`
            elif not _is_name(at, found.order):
                return False
            node = strip_parens(node.value)
        return self._picks(node, found) is True


def _names(target: cst.BaseExpression) -> list[str]:
    """The names of ``x``, ``(x,)``, ``x,`` or ``a, b`` (``_`` included); [] for anything else."""
    target = strip_parens(target)
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List) and all(type(e) is cst.Element and type(e.value) is cst.Name
                                                     for e in target.elements):
        return [e.value.value for e in target.elements]
    return []


def _index(element: cst.SubscriptElement) -> cst.BaseExpression | None:
    return strip_parens(element.slice.value) if type(element.slice) is cst.Index else None


def _is_name(node: cst.BaseExpression | None, name: str) -> bool:
    node = strip_parens(node) if node is not None else None
    return node is not None and plain_read(node) and code_of(node).strip() == name


def _literal(element: cst.SubscriptElement) -> cst.BaseExpression | None:
    """An integer literal index (``5``, ``-1``)."""
    at = _index(element)
    return at if at is not None and int_value(at) is not None else None


def _column_of(node: cst.Subscript) -> tuple[str, cst.BaseExpression] | None:
    """(the tensor, the column) of ``rows[:, c]`` with ``rows`` a plain read and ``c`` an integer literal."""
    if len(node.slice) != 2 or code_of(node.slice[0].slice).strip() != ":" or not plain_read(node.value):
        return None
    column = _literal(node.slice[1])
    return (code_of(node.value).strip(), column) if column is not None else None


def _cap(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``k`` of ``x[:k]`` or ``x[:k, :]`` (``k`` a name, an attribute or an integer literal); else None."""
    if type(node) is not cst.Subscript or not 1 <= len(node.slice) <= 2:
        return None
    first = node.slice[0].slice
    if len(node.slice) == 2 and code_of(node.slice[1].slice).strip() != ":":
        return None
    if type(first) is not cst.Slice or first.lower is not None or first.step is not None or first.upper is None:
        return None
    upper = strip_parens(first.upper)
    return upper if plain_read(upper) or int_value(upper) is not None else None


RULES = (PerImageSort,)
