"""TRT351: images padded one by one to the batch's largest size, done on the whole batch while tracing.

The DETR family packs its input into a padded batch and a mask with a loop over the images
(``for img in tensor_list: padded_img = F.pad(img, ...); padded_imgs.append(padded_img)``, then
``torch.stack(padded_imgs)``), after a largest size taken over the images
(``torch.max(torch.stack([img.shape[i] for img in tensor_list]))``). The models call it with one
4-D batch tensor too: iterating a tensor splits it into its rows, so a traced export records as
many rows as the example has, and the graph refuses any other batch size. A batch tensor's rows
all have the batch's own size, so the same packing is one pad of the whole batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from trtcodemod.astutil import children, code_of, method_call, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

#: Calls that keep a row's layout: the result is a row tensor of the same rank (``zeros_like``).
_LIKE = ("torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.empty_like")
_PAD = ("torch.nn.functional.pad",)
#: Methods on a row that act element by element and keep its axes.
_ELEMENTWISE_METHODS = frozenset({"to", "bool", "float", "int", "long", "half", "double", "type", "contiguous",
                                  "clone"})
#: Reads of a row that do not depend on its values, only on its size, dtype and device.
_SIZE_READS = frozenset({"shape", "dtype", "device", "ndim"})
_SIZE_METHODS = frozenset({"size", "dim"})
_REDUCTIONS = ("torch.max", "torch.min", "torch.amax", "torch.amin")


class Decline(Exception):
    """The loop is not one this rule rewrites."""


@dataclass
class _Rows:
    """The names that hold one row's tensor in the loop body (the loop variable and what is derived
    from it), each with how many axes it lost to an index (``img[0]``: one)."""

    batch: str
    row: str
    drops: dict[str, int]
    #: The batch must have more axes than this for every row operation the body does to be valid.
    needs: int = 0
    lists: list[str] = field(default_factory=list)  # the lists appended to (in the branch: the batch itself)
    #: Row names bound to a new tensor (a pad, a ``zeros_like``, arithmetic), not a view of the input.
    fresh: set[str] = field(default_factory=set)

    def need(self, count: int) -> None:
        self.needs = max(self.needs, count)


class PaddedBatchLoop(RuntimeScopeRule):
    needs_text = (b"for",)
    info = RuleInfo(
        id="TRT351",
        name="padded-batch-loop",
        summary="images padded one by one to the batch's largest size (`for img in tensor_list: ... F.pad(img, "
                "...)`, `torch.max(torch.stack([img.shape[i] for img in tensor_list]))`): a batch tensor's rows are "
                "unrolled by the trace; pad the whole batch while tracing",
        doc="""\
What it finds, in run-time code: the two loops of the DETR family's ONNX packing
(`_onnx_nested_tensor_from_tensor_list` in DETR, Conditional DETR, DAB-DETR, DINO, Grounding DINO,
LW-DETR, RF-DETR; torchvision's `_onnx_batch_images`) over a value `images` that may be a list of
images or one batch tensor:
- the largest size over the images, a reduction of a stack of sizes read from each image:
  `torch.max(torch.stack([img.shape[i] for img in images]).to(torch.float32))`, also through a name
  (`sizes = torch.stack([...])`, then only `torch.max(sizes)`), with `torch.max`/`min`/`amax`/`amin`
  over all elements and casts (`.to(...)`, `.float()`) between;
- a `for img in images:` loop whose body pads each image (`F.pad(img, (0, padding[2], 0,
  padding[1], 0, padding[0]))`), builds its mask (`torch.zeros_like(img[0], ...)` padded with
  ones), and appends both to lists that the statements right after the loop stack
  (`tensor = torch.stack(padded_imgs)`, `return torch.stack(padded_imgs)`). The body may read the
  image's size (`img.shape[k]`, `tuple(img.shape)`, `img.device`), index it with numbers and slices,
  call `F.pad`, `torch.zeros_like` and its kin, and cast (`.to(torch.bool)`); what it appends is a
  new tensor (a pad, a `zeros_like`, arithmetic), never the image or a view of it, which the branch
  would hand out as the input itself where `torch.stack` copies. Anything else on an image
  (another call, a branch, a second loop) and the loop is left alone.

Why it hurts: called with a 4-D batch tensor (`nested_tensor_from_tensor_list(samples)` on the
model's input), `for img in images` splits the tensor into its rows: a traced export (the
TorchScript exporter) records a `Split` into as many rows as the example has, so the graph
refuses every other batch size (ONNX Runtime: "Cannot split using values in 'split' attribute").
The guidance's loop sections ask for a loop over a batch to be written over the batch at once.

The rewrite, while tracing and only when `images` is a tensor (`_trt_tracing() and
isinstance(images, torch.Tensor)`); a list of images, eager code, scripting and `torch.compile`
run the code as written. A batch tensor's rows all have the batch's size, dtype and device:
- the largest size reads one row: the comprehension iterates `images[:1].unbind(0)` (a slice, which
  follows the batch, taken apart into its one row without a TracerWarning), and the maximum of one
  row's size is the maximum of the batch's equal sizes;
- the loop's body runs once on the whole batch: `img` becomes `images`, a size read shifts past
  the batch axis (`img.shape[k]` is `images.shape[k + 1]`, `tuple(img.shape)` is
  `tuple(images.shape[1:])`), an index keeps it (`img[0]` is `images[:, 0]`), `F.pad` pads the
  same trailing axes of every row, and each appended list is the batch itself, so
  `torch.stack(padded_imgs)` is `padded_imgs`. The test also asks for more axes than the body's
  pads and indexes take from a row (`images.dim() > 3` for DETR's), so a tensor whose rows are too
  small for the body runs the loop and raises as before.

Fix safety: safe: eager mode runs the loop; while tracing a tensor the graph computes the same
values (padding each row by the same amounts and stacking them is padding the batch). `migrate`
applies it where the loop's lines hold a located problem: the export's TracerWarning at the loop
("Iterating over a tensor"), which also shows the export runs these lines when eager mode never does
(the tracing form is called only while tracing).

TensorRT versions: all.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def pack(tensor_list):\n"
                "    max_size = []\n"
                "    for i in range(tensor_list[0].dim()):\n"
                "        max_size.append(torch.max(torch.stack([img.shape[i] for img in tensor_list])))\n"
                "    padded_imgs = []\n"
                "    for img in tensor_list:\n"
                "        padding = [s1 - s2 for s1, s2 in zip(max_size, tuple(img.shape))]\n"
                "        padded_imgs.append(torch.nn.functional.pad(img, (0, padding[2], 0, padding[1])))\n"
                "    return torch.stack(padded_imgs)\n",
                "def pack(tensor_list):\n"
                "    max_size = []\n"
                "    for i in range(tensor_list[0].dim()):\n"
                "        max_size.append(torch.max(torch.stack([img.shape[i] for img in (tensor_list[:1].unbind(0) if "
                "_trt_tracing() and isinstance(tensor_list, torch.Tensor) else tensor_list)])))\n"
                "    padded_imgs = []\n"
                "    if _trt_tracing() and isinstance(tensor_list, torch.Tensor) and tensor_list.dim() > 2:\n"
                "        padding = [s1 - s2 for s1, s2 in zip(max_size, tuple(tensor_list.shape[1:]))]\n"
                "        padded_imgs = torch.nn.functional.pad(tensor_list, (0, padding[2], 0, padding[1]))\n"
                "        return padded_imgs\n"
                "    else:\n"
                "        for img in tensor_list:\n"
                "            padding = [s1 - s2 for s1, s2 in zip(max_size, tuple(img.shape))]\n"
                "            padded_imgs.append(torch.nn.functional.pad(img, (0, padding[2], 0, padding[1])))\n"
                "        return torch.stack(padded_imgs)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html",
            "https://github.com/facebookresearch/detr/blob/main/util/misc.py",
            "https://github.com/pytorch/vision/blob/main/torchvision/models/detection/transform.py",
        ),
    )

    def visit_ListComp(self, node: cst.ListComp) -> None:
        function = self.context.function
        if not self.active() or not self._torch or function is None:
            return
        if node.for_in.inner_for_in is not None or node.for_in.ifs:
            return
        target, iterable = node.for_in.target, node.for_in.iter
        if type(target) is not cst.Name or type(iterable) is not cst.Name or target.value == iterable.value:
            return
        if not _reads_only_size(node.elt, target.value) or not self._reduced(function, node):
            return
        batch = iterable.value
        torch = self.context.torch_name()
        guarded = cst.parse_expression(f"({batch}[:1].unbind(0) if {TRACING_HELPER}() and isinstance({batch}, "
                                       f"{torch}.Tensor) else {batch})")
        fix = Fix({iterable: guarded}, safety=Safety.SAFE, helpers=(TRACING_HELPER,))
        self.found(node, lambda: self._size_message(batch), fix)

    def visit_For(self, node: cst.For) -> None:
        function = self.context.function
        if not self.active() or not self._torch or function is None or type(function.body) is not cst.IndentedBlock:
            return
        statements = list(function.body.body)
        for index, statement in enumerate(statements):
            if statement is node:
                self._loop(function, statements, index)

    # --- the largest size over the images -------------------------------------------------
    def _reduced(self, function: cst.FunctionDef, comp: cst.ListComp) -> bool:
        """Is the comprehension the list of a ``torch.stack`` whose every value only a reduction over all
        its elements reads (directly, or through a name read only so)?"""
        parents = _parents(function.body)
        node: cst.CSTNode = comp
        stack = parents.get(id(node))
        if type(stack) is not cst.Arg or stack.keyword is not None:
            return False
        call = parents.get(id(stack))
        if type(call) is not cst.Call or len(call.args) != 1 or self.context.refers_to(call.func, "torch.stack") is None:
            return False
        value: cst.CSTNode = _casts_up(call, parents)
        holder = parents.get(id(value))
        if type(holder) is cst.Assign and holder.value is value and len(holder.targets) == 1 \
                and type(holder.targets[0].target) is cst.Name:
            name = holder.targets[0].target.value
            uses = [n for n in walk(function.body) if type(n) is cst.Name and n.value == name
                    and n is not holder.targets[0].target]
            return bool(uses) and all(self._reduction_of(n, parents) for n in uses)
        return self._reduction_of(value, parents)

    def _reduction_of(self, value: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> bool:
        """``torch.max(value)`` (one argument), or ``value.max()`` (none), after casts."""
        value = _casts_up(value, parents)
        arg = parents.get(id(value))
        if type(arg) is cst.Arg and arg.keyword is None and arg.star == "":
            call = parents.get(id(arg))
            return (type(call) is cst.Call and len(call.args) == 1
                    and self.context.refers_to(call.func, *_REDUCTIONS) is not None)
        attribute = parents.get(id(value))
        if type(attribute) is cst.Attribute and attribute.value is value and attribute.attr.value in ("max", "min"):
            call = parents.get(id(attribute))
            return type(call) is cst.Call and call.func is attribute and not call.args
        return False

    def _size_message(self, batch: str) -> str:
        return (f"the largest size over `{batch}` reads every image: called with a batch tensor, the trace splits it "
                f"into the example's rows and the graph refuses another batch size; while tracing a tensor "
                f"(`{TRACING_HELPER}()`), read one row (`{batch}[:1].unbind(0)`: a batch's rows all have its size)")

    # --- the loop that pads each image ----------------------------------------------------
    def _loop(self, function: cst.FunctionDef, statements: list[cst.BaseStatement], index: int) -> None:
        loop = statements[index]
        assert type(loop) is cst.For
        if loop.orelse is not None or loop.asynchronous is not None:
            return
        if type(loop.target) is not cst.Name or type(loop.iter) is not cst.Name:
            return
        row, batch = loop.target.value, loop.iter.value
        if row == batch or type(loop.body) is not cst.IndentedBlock:
            return
        rows = _Rows(batch=batch, row=row, drops={row: 0})
        try:
            lines = [self._statement(s, rows, row) for s in loop.body.body]
            stacks = self._stacks(statements, index, rows)
        except Decline:
            return
        if not rows.lists or not self._lists_start_empty(statements[:index], rows) \
                or self._read_later(function, loop, statements[index + 1 + len(stacks):], rows):
            return
        torch = self.context.torch_name()
        tail = []
        for stack in stacks:
            small = stack.body[0]
            listed = _stacked(small)
            assert listed is not None
            tail.append(("return " if type(small) is cst.Return else f"{code_of(small.targets[0].target)} = ")
                        + listed)
        test = (f"{TRACING_HELPER}() and isinstance({batch}, {torch}.Tensor) and {batch}.dim() > {rows.needs}")
        body = [cst.parse_statement(line + "\n") for line in [*lines, *tail]]
        kept = [loop.with_changes(leading_lines=()), *stacks]
        branch = cst.If(test=cst.parse_expression(test), body=cst.IndentedBlock(body=body),
                        orelse=cst.Else(body=cst.IndentedBlock(body=kept)), leading_lines=loop.leading_lines)
        replacements: dict[cst.CSTNode, object] = {loop: branch}
        for stack in stacks:
            replacements[stack] = cst.RemovalSentinel.REMOVE
        fix = Fix(replacements, safety=Safety.SAFE, helpers=(TRACING_HELPER,))
        self.found(loop, lambda: self._loop_message(row, batch, rows), fix)

    def _loop_message(self, row: str, batch: str, rows: _Rows) -> str:
        lists = ", ".join(f"`{name}`" for name in rows.lists)
        return (f"`for {row} in {batch}:` pads each image and appends it to {lists}, stacked after the loop: called "
                f"with a batch tensor, the trace splits it into the example's rows and the graph refuses another "
                f"batch size; while tracing a tensor (`{TRACING_HELPER}()`), pad the whole batch at once (its rows "
                "all have its size), the loop otherwise")

    def _statement(self, statement: cst.BaseStatement, rows: _Rows, row: str) -> str:
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            raise Decline
        small = statement.body[0]
        if _mentions(small, {rows.batch}):
            raise Decline
        if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
            name = small.targets[0].target.value
            if name in rows.lists or name == row:
                raise Decline
            text, drop = self._expr(small.value, rows)
            rows.fresh.discard(name)
            if drop is None:
                rows.drops.pop(name, None)
            else:
                rows.drops[name] = drop
                if self._fresh(small.value, rows):
                    rows.fresh.add(name)
            return f"{name} = {text}"
        if type(small) is cst.Expr and type(small.value) is cst.Call:
            call = small.value
            parts = method_call(call)
            if parts is not None and parts[1] == "append" and type(parts[0]) is cst.Name and len(call.args) == 1 \
                    and call.args[0].keyword is None and call.args[0].star == "":
                name = parts[0].value
                if name in rows.drops or name in rows.lists:
                    raise Decline  # appended to twice, or a row's own list
                text, drop = self._expr(call.args[0].value, rows)
                if drop is None:
                    raise Decline  # a number per image: the list is not the batch's rows
                if not self._fresh(call.args[0].value, rows):
                    raise Decline  # the image itself or a view of it: the branch would hand out the input
                rows.lists.append(name)
                return f"{name} = {text}"
        raise Decline

    def _fresh(self, node: cst.BaseExpression, rows: _Rows) -> bool:
        """Is the row ``node`` a new tensor, as ``torch.stack`` makes one (not the image or a view of it)?"""
        node = strip_parens(node)
        if type(node) is cst.Name:
            return node.value in rows.fresh
        if type(node) is cst.BinaryOperation:
            return True
        if type(node) is cst.Call:
            if self.context.refers_to(node.func, *_PAD, *_LIKE) is not None:
                return True
            parts = method_call(node)
            if parts is not None and parts[1] == "clone":
                return True
            if parts is not None and parts[1] in _ELEMENTWISE_METHODS:
                return self._fresh(parts[0], rows)
        return False

    def _expr(self, node: cst.BaseExpression, rows: _Rows) -> tuple[str, int | None]:
        """The expression over the whole batch, and how many axes its row lost (None: not a row)."""
        if not _mentions(node, set(rows.drops)):
            if _mentions(node, set(rows.lists)):
                raise Decline
            return code_of(node), None
        kind = type(node)
        if kind is cst.Name:
            name = node.value
            return (rows.batch if name == rows.row else name), rows.drops[name]
        if kind is cst.Attribute and type(node.value) is cst.Name and node.value.value in rows.drops:
            receiver, drop = self._expr(node.value, rows)
            if node.attr.value == "shape":
                return f"{receiver}.shape[1:]", None
            if node.attr.value in ("dtype", "device"):
                return f"{receiver}.{node.attr.value}", None
            if node.attr.value == "ndim":
                return f"({receiver}.ndim - 1)", None
            raise Decline
        if kind is cst.Subscript:
            return self._subscript(node, rows)
        if kind is cst.Call:
            return self._call(node, rows)
        if kind is cst.BinaryOperation:
            left, left_drop = self._expr(node.left, rows)
            right, right_drop = self._expr(node.right, rows)
            if left_drop is not None and right_drop is not None and left_drop != right_drop:
                raise Decline
            drop = left_drop if left_drop is not None else right_drop
            return f"({left} {code_of(node.operator).strip()} {right})", drop
        if kind in (cst.ListComp, cst.GeneratorExp, cst.List, cst.Tuple):
            return self._sizes(node, rows), None
        raise Decline

    def _sizes(self, node: cst.BaseExpression, rows: _Rows) -> str:
        """A list of numbers built from the rows' sizes (``[(s1 - s2) for s1, s2 in zip(max_size,
        tuple(img.shape))]``): every row read in it is a size read."""
        class Shift(cst.CSTTransformer):
            def __init__(self, rule: "PaddedBatchLoop") -> None:
                super().__init__()
                self.rule = rule

            def leave_Subscript(self, original: cst.Subscript, updated: cst.CSTNode) -> cst.CSTNode:
                if _size_read(original, rows):
                    text, drop = self.rule._expr(original, rows)
                    assert drop is None
                    return cst.parse_expression(text)
                return updated

            def leave_Attribute(self, original: cst.Attribute, updated: cst.CSTNode) -> cst.CSTNode:
                if type(original.value) is cst.Name and original.value.value in rows.drops:
                    text, drop = self.rule._expr(original, rows)
                    if drop is not None:
                        raise Decline
                    return cst.parse_expression(text)
                return updated

            def leave_Call(self, original: cst.Call, updated: cst.CSTNode) -> cst.CSTNode:
                parts = method_call(original)
                if parts is not None and type(parts[0]) is cst.Name and parts[0].value in rows.drops:
                    text, drop = self.rule._expr(original, rows)
                    if drop is not None:
                        raise Decline
                    return cst.parse_expression(text)
                return updated

        # Every read of a row must be a size read: a bare row name inside the list is a row in a list.
        for inner in walk(node):
            if type(inner) is cst.Name and inner.value in rows.drops and not _inside_size_read(node, inner, rows):
                raise Decline
        return code_of(node.visit(Shift(self)))

    def _subscript(self, node: cst.Subscript, rows: _Rows) -> tuple[str, int | None]:
        if _size_read(node, rows):
            shape = node.value
            assert type(shape) is cst.Attribute
            receiver, drop = self._expr(shape.value, rows)
            position = _literal_int(node.slice[0].slice.value)  # type: ignore[union-attr]
            assert position is not None and drop is not None
            rows.need(drop + (position + 1 if position >= 0 else -position))
            shifted = position + 1 if position >= 0 else position
            return f"{receiver}.shape[{shifted}]", None
        receiver, drop = self._expr(node.value, rows)
        if drop is None:
            items = []
            for element in node.slice:
                text, inner = self._expr(element.slice.value, rows) if type(element.slice) is cst.Index \
                    else (code_of(element.slice), None)
                if inner is not None or _mentions(element.slice, set(rows.drops)):
                    raise Decline
                items.append(text)
            return f"{receiver}[{', '.join(items)}]", None
        items, lost = [":"], 0
        for element in node.slice:
            part = element.slice
            if _mentions(part, set(rows.drops) | set(rows.lists)):
                raise Decline
            if type(part) is cst.Index and _literal_int(part.value) is not None:
                lost += 1
            elif type(part) is cst.Slice:
                pass
            else:
                raise Decline  # a tensor index, an ellipsis, a None: not the same on the batch
            items.append(code_of(part))
        rows.need(drop + len(node.slice))
        return f"{receiver}[{', '.join(items)}]", drop + lost

    def _call(self, node: cst.Call, rows: _Rows) -> tuple[str, int | None]:
        if any(arg.star for arg in node.args):
            raise Decline
        parts = method_call(node)
        if parts is not None and type(parts[0]) is cst.Name and parts[0].value in rows.drops:
            receiver, drop = self._expr(parts[0], rows)
            name = parts[1]
            if name in _ELEMENTWISE_METHODS:
                return f"{receiver}.{name}({self._arguments(node.args, rows)})", drop
            if name == "size" and len(node.args) == 1:
                position = _literal_int(node.args[0].value)
                if position is None:
                    raise Decline
                assert drop is not None
                rows.need(drop + (position + 1 if position >= 0 else -position))
                return f"{receiver}.size({position + 1 if position >= 0 else position})", None
            if name == "dim" and not node.args:
                return f"({receiver}.dim() - 1)", None
            raise Decline
        if parts is not None and parts[1] in _ELEMENTWISE_METHODS:
            receiver, drop = self._expr(parts[0], rows)
            if drop is not None:
                return f"{receiver}.{parts[1]}({self._arguments(node.args, rows)})", drop
        if self.context.refers_to(node.func, *_PAD) is not None and node.args and node.args[0].keyword is None:
            source, drop = self._expr(node.args[0].value, rows)
            if drop is None or len(node.args) < 2:
                raise Decline
            pads = node.args[1].value
            if node.args[1].keyword not in (None,) or type(pads) not in (cst.Tuple, cst.List) \
                    or len(pads.elements) % 2:
                raise Decline
            rows.need(drop + len(pads.elements) // 2)
            rest = self._arguments(node.args[1:], rows)
            return f"{code_of(node.func)}({source}, {rest})", drop
        if self.context.refers_to(node.func, *_LIKE) is not None and node.args and node.args[0].keyword is None:
            source, drop = self._expr(node.args[0].value, rows)
            if drop is None:
                raise Decline
            rest = self._arguments(node.args[1:], rows)
            return f"{code_of(node.func)}({source}{', ' + rest if rest else ''})", drop
        if type(node.func) is cst.Name and node.func.value in ("tuple", "list") and len(node.args) == 1:
            text, drop = self._expr(node.args[0].value, rows)
            if drop is not None:
                raise Decline
            return f"{node.func.value}({text})", None
        raise Decline  # a call on a row this rule does not know to act row by row

    def _arguments(self, args, rows: _Rows) -> str:
        out = []
        for arg in args:
            text, drop = self._expr(arg.value, rows)
            if drop is not None:
                raise Decline
            out.append(f"{arg.keyword.value}={text}" if arg.keyword is not None else text)
        return ", ".join(out)

    def _stacks(self, statements: list[cst.BaseStatement], index: int, rows: _Rows) -> list[cst.SimpleStatementLine]:
        """The statements right after the loop that stack the appended lists: one each."""
        found: list[cst.SimpleStatementLine] = []
        done: set[str] = set()
        for statement in statements[index + 1:]:
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
                break
            listed = _stacked(statement.body[0], self)
            if listed is None or listed not in rows.lists or listed in done:
                break
            found.append(statement)
            done.add(listed)
            if type(statement.body[0]) is cst.Return:
                break
        if done != set(rows.lists):
            raise Decline
        return found

    def _lists_start_empty(self, before: list[cst.BaseStatement], rows: _Rows) -> bool:
        """Each appended list is bound to ``[]`` before the loop (the last binding of its name there)."""
        for name in rows.lists:
            last = None
            for statement in before:
                for inner in walk(statement):
                    if type(inner) in (cst.Assign, cst.AnnAssign):
                        targets = [t.target for t in inner.targets] if type(inner) is cst.Assign else [inner.target]
                        if any(type(t) is cst.Name and t.value == name for t in targets):
                            last = inner.value
            if last is None or type(last) is not cst.List or last.elements:
                return False
        return True

    def _read_later(self, function: cst.FunctionDef, loop: cst.For, after: list[cst.BaseStatement],
                    rows: _Rows) -> bool:
        """Does code after the stacks read a list or a name the loop binds (their values differ in the
        branch)? The loop's own target, the names it assigns, and the lists."""
        bound = set(rows.drops) | set(rows.lists)
        for statement in loop.body.body:  # type: ignore[union-attr]
            for inner in walk(statement):
                if type(inner) is cst.AssignTarget and type(inner.target) is cst.Name:
                    bound.add(inner.target.value)
        return any(_mentions(statement, bound) for statement in after)


def _stacked(small: cst.BaseSmallStatement, rule: PaddedBatchLoop | None = None) -> str | None:
    """``x = torch.stack(name)`` or ``return torch.stack(name)`` (along the first axis): ``name``."""
    if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
        value = small.value
    elif type(small) is cst.Return and small.value is not None:
        value = small.value
    else:
        return None
    value = strip_parens(value)
    if type(value) is not cst.Call or not value.args or value.args[0].keyword is not None:
        return None
    if rule is not None and rule.context.refers_to(value.func, "torch.stack") is None:
        return None
    if type(value.args[0].value) is not cst.Name:
        return None
    for extra in value.args[1:]:
        if not ((extra.keyword is None or extra.keyword.value == "dim") and _literal_int(extra.value) == 0):
            return None
    return value.args[0].value.value


def _literal_int(node: cst.BaseExpression) -> int | None:
    if type(node) is cst.Integer:
        return int(node.value)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(node.expression) is cst.Integer:
        return -int(node.expression.value)
    return None


def _size_read(node: cst.CSTNode, rows: _Rows) -> bool:
    """``row.shape[k]`` with a literal ``k``."""
    return (type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape"
            and type(node.value.value) is cst.Name and node.value.value.value in rows.drops and len(node.slice) == 1
            and type(node.slice[0].slice) is cst.Index and _literal_int(node.slice[0].slice.value) is not None)


def _inside_size_read(root: cst.CSTNode, name: cst.Name, rows: _Rows) -> bool:
    """Is ``name`` the receiver of a size read (``name.shape``, ``name.size(k)``, ``name.dim()``,
    ``name.dtype``) within ``root``?"""
    for inner in walk(root):
        if type(inner) is cst.Attribute and inner.value is name and inner.attr.value in (_SIZE_READS | _SIZE_METHODS):
            return True
    return False


def _reads_only_size(node: cst.BaseExpression, row: str) -> bool:
    """Does ``node`` read ``row`` only through its size (``row.shape[i]``, ``row.size(i)``, ``row.dim()``)?"""
    names = [n for n in walk(node) if type(n) is cst.Name and n.value == row]
    if not names:
        return False
    for name in names:
        if not any(type(a) is cst.Attribute and a.value is name and a.attr.value in (_SIZE_READS | _SIZE_METHODS)
                   for a in walk(node)):
            return False
    return True


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    return any(type(n) is cst.Name and n.value in names for n in walk(node))


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    for node in walk(root):
        for child in children(node):
            parents[id(child)] = node
    return parents


def _casts_up(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> cst.CSTNode:
    """Climb past element-wise casts applied to ``node`` (``node.to(torch.float32)``, ``node.float()``)."""
    while True:
        attribute = parents.get(id(node))
        if type(attribute) is not cst.Attribute or attribute.value is not node \
                or attribute.attr.value not in _ELEMENTWISE_METHODS:
            return node
        call = parents.get(id(attribute))
        if type(call) is not cst.Call or call.func is not attribute:
            return node
        node = call


RULES = (PaddedBatchLoop,)

__all__ = ["PaddedBatchLoop"]
