"""TRT393: each image's rows capped and padded with zeros to a fixed count, stacked, taken flattened while tracing.

A deployment that wants one fixed-size tensor of detections from a per-image NMS's list writes ``rows = []``, ``for
det in detections: det = det[:k]; rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], 6)]))``, ``return
torch.stack(rows)``: ``(batch, k, 6)`` (or writes each image's padded rows by its index into ``torch.zeros((batch,
k, 6))`` made before the loop). A trace unrolls the loop with the example's batch. Where ``detections`` is
the list TRT360's rewrite of the NMS loop made while tracing (it carries every image's rows flattened, each row's
image and the traced number of images), the rewrite fills the ``(batch, k, ...)`` tensor at once; the loop stays for
eager code and for any other list. One loop that both makes each image's rows and pads them into zeros made before
it is TRT360's: its rewrite fills the zeros with this rule's helper (:func:`._per_image_padding.fused_padding` reads the padding).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, int_value, plain_read, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._per_image_padding import PAD_HELPER, PaddingReader, _by_index, _capped, _names
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule
from trtcodemod.transforms.per_image_rows import ROWS_HELPER

_FLAT = "_trt_flat"
_STACK = ("torch.stack",)

_ASSUMPTION = ("the list that TRT360's rewrite of a per-image loop made while tracing reaches the loop unchanged (no "
               "entry added, removed, replaced or written in place since), the zeros the loop appends have the "
               "rows' other sizes (eager mode raises where they do not; the graph pads with the rows' own); where "
               "`F.pad` pads, each image's rows are 2-D (its four widths pad the second-to-last axis) and the count "
               "is 0 or more (without a cap, eager mode raises on a negative one); where the loop writes into "
               "zeros made before it, their first size is the list's number of images and their sizes after the "
               "count the rows' (eager mode raises where an image's slot is missing or of other sizes; where there "
               "are more slots than images, the loop leaves zeros the graph does not make)")

_LOOP = ("rows = []\n"
         "for det in detections:\n"
         "    det = det[:k]\n"
         "    rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], 6)]))\n")


def _indent(text: str) -> str:
    return "".join("    " + line for line in text.splitlines(keepends=True))










class PerImagePad(PaddingReader, RuntimeScopeRule):
    needs_text = spelled("torch.stack", "torch.zeros", "torch.full")  # `new_zeros`, `new_full` hold them too
    info = RuleInfo(
        id="TRT393",
        name="per-image-pad",
        summary="each image's rows of a per-image list capped and padded with zeros to a fixed count, then stacked: "
                "tracing unrolls the loop with the example's batch; fill the padded tensor from the rows a per-image "
                "NMS loop (TRT360) left flattened",
        doc=f"""\
What it finds, in run-time code: a loop over a list of one tensor of rows an image (what a
per-image NMS returns: YOLOv5/v7's `non_max_suppression`) that keeps each image's first `k`
rows, pads them with zero rows up to `k`, and stacks the padded tensors into one of
`(images, k, ...)`, the fixed-size output a TensorRT deployment wants:
`rows = []` / `for det in detections:` / `det = det[:k]` /
`rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], 6)]))` (or `new_zeros((k - len(det), 6))`,
`det.size(0)`, `torch.cat(..., 0)`, `F.pad(det, (0, 0, 0, k - det.shape[0]))`) / `torch.stack(rows)`
(returned, assigned or along `dim=0`), the cap `k` the same in both places and not made in the loop.
`F.pad` needs no cap (a negative width crops the rows to `k`, so `rows.append(F.pad(det, (0, 0, 0,
k - len(det))))` alone is the same loop), and is also taken by keyword (`input=`, `pad=`) with
`mode="constant"` and a `value` (below). Also the same padding written by the image's index into zeros
made right before the loop (Ultralytics' `NMSModel`, Super Gradients' `ConvertFlatTensorToTRTFormat`):
`out = torch.zeros((n, k, 6))` (or `torch.zeros(n, k, 6)`, `x.new_zeros(...)`, `dtype=`/`device=`) /
`for i, det in enumerate(detections):` (or `for i in range(len(detections)):` / `det = detections[i]`) /
`out[i] = F.pad(det, (0, 0, 0, k - det.shape[0]))` (the widths maybe bound first, `pad = (0, 0, 0,
k - len(det))` / `out[i] = F.pad(det, pad)`), or after the cap `det = det[:k]`,
`out[i] = torch.cat([det, det.new_zeros(k - len(det), 6)])` or `out[i, :len(det)] = det`; the zeros'
second size the count `k`. The padding may fill with another number than zero (Super Gradients pads
classes with -1, an ensemble's boxes with NaN): `F.pad`'s `value=` (a number, `float("nan")`,
`float("inf")`, or a plain name or attribute such as `np.nan`, not made in the loop), or, where the
loop writes the rows only (`out[i, :len(det)] = det`), the fill of `out = torch.full((n, k, 6), v)`
(or `x.new_full(...)`).

Why it hurts: a traced export runs the loop once an image of the example and records each: at
another batch size the graph still stacks the example's number of images.

The rewrite keeps the loop for eager code and for every list of another origin. Where the list is
the one TRT360's rewrite of the NMS loop made while tracing (`_trt_flat_rows(detections)` is then not
`None`), the stacked tensor is `_trt_padded_by_image(detections, k)` (with a fill other than zero,
`_trt_padded_by_image(detections, k, fill)`; in the preallocated form, `out = _trt_padded_by_image(
detections, k).to(out)`, in the zeros' dtype and device, as the writes cast): each row's slot is its
rank among its image's rows (one-hot counts, no TopK), and slot `(image, j)` gathers that row, or a
row of the fill where the image has fewer than `j + 1` rows: each image's `det[:k]` padded with
zeros (or the fill) to `k`, in the dtype and device of the rows, for every image at once. A script
compiles none of it (the list is looked at only under `not torch.jit.is_scripting() and
_trt_tracing()`).

One loop over the batch that both makes each image's rows (its NMS) and pads them by the image's index into
zeros made before it (Ultralytics' export-time `NMSModel`: `out = torch.zeros(bs, k, C)` / `for i in
range(bs):` / ... / `out[i] = F.pad(dets, pad)`) is no loop over a list: TRT360 takes it, its rewrite
flattening the statements before the padding and filling the zeros with `{PAD_HELPER}` from the list it makes
of the flattened rows (the padding read as here, by `fused_padding`).

Fix safety: unsafe: {_ASSUMPTION}. `migrate` applies it with TRT360's rewrite of the loop that makes
the list, and keeps it only where the rewritten model's graph is faithful and equivalent on its
inputs at other batch sizes.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                f"def padded(detections, k):\n{_indent(_LOOP)}    return torch.stack(rows)\n",
                "def padded(detections, k):\n"
                "    rows = []\n"
                f"    {_FLAT} = None\n"
                f"    if not torch.jit.is_scripting() and {TRACING_HELPER}():\n"
                f"        {_FLAT} = {ROWS_HELPER}(detections)\n"
                f"    if {_FLAT} is not None:\n"
                f"        return {PAD_HELPER}(detections, k)\n"
                "    else:\n"
                "        for det in detections:\n"
                "            det = det[:k]\n"
                "            rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], 6)]))\n"
                "        return torch.stack(rows)\n",
                unsafe=True,
            ),
            Example(
                "def padded(detections, k):\n"
                "    out = torch.zeros((len(detections), k, 6))\n"
                "    for i, det in enumerate(detections):\n"
                "        pad = (0, 0, 0, k - det.shape[0])\n"
                "        out[i] = F.pad(det, pad)\n"
                "    return out\n",
                "def padded(detections, k):\n"
                "    out = torch.zeros((len(detections), k, 6))\n"
                f"    {_FLAT} = None\n"
                f"    if not torch.jit.is_scripting() and {TRACING_HELPER}():\n"
                f"        {_FLAT} = {ROWS_HELPER}(detections)\n"
                f"    if {_FLAT} is not None:\n"
                f"        out = {PAD_HELPER}(detections, k).to(out)\n"
                "    else:\n"
                "        for i, det in enumerate(detections):\n"
                "            pad = (0, 0, 0, k - det.shape[0])\n"
                "            out[i] = F.pad(det, pad)\n"
                "    return out\n",
                unsafe=True,
            ),
            Example("def padded(detections, k):\n    rows = []\n    for det in detections:\n"
                    "        rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], 6)]))\n"
                    "    return torch.stack(rows)\n"),
        ),
        references=("https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
                    "https://pytorch.org/docs/stable/generated/torch.stack.html"),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active():
            return
        body = node.body
        for position in range(1, len(body)):
            if type(body[position]) is cst.For:
                if position < len(body) - 1:
                    self._loop(body, position)
                self._filled(body, position)

    def _loop(self, body, position: int) -> None:
        loop, made, stacked = body[position], body[position - 1], body[position + 1]
        rows = _empty_list(made)
        if rows is None or loop.orelse is not None or loop.asynchronous is not None \
                or type(loop.target) is not cst.Name or not plain_read(loop.iter):
            return
        entry, results = loop.target.value, code_of(loop.iter).strip()
        small = [s.body[0] if type(s) is cst.SimpleStatementLine and len(s.body) == 1 else None
                 for s in (loop.body.body if type(loop.body) is cst.IndentedBlock else ())]
        if not 1 <= len(small) <= 2 or any(s is None for s in small):
            return
        if len(small) == 1:
            padded = _appended(small[0], rows)
            count = self._padding(padded, entry) if padded is not None else None
            if count is None or self._stacked(stacked, rows) is None:
                return
            if not self._crops(padded):
                self.found(loop, "each image's rows padded with zeros to a fixed count, then stacked: a traced export "
                                 "unrolls the loop with the example's batch (not rewritten: no cap `det = det[:k]` "
                                 "before the padding, so eager mode raises where an image has more rows than the "
                                 "count; cap the rows first, then TRT393 takes the loop)")
                return
            # `F.pad(det, (0, 0, 0, k - len(det)))` caps by itself: a negative width crops the rows to `k`
        else:
            cap = _capped(small[0], entry)
            padded = _appended(small[1], rows)
            if cap is None or padded is None or self._padding(padded, entry) != code_of(cap).strip():
                return
            count = code_of(cap).strip()
        if {n.value for n in walk(cst.parse_expression(count)) if type(n) is cst.Name} & {entry, rows}:
            return  # a count made from the rows themselves
        fill = self._fill_of(padded)
        if fill is not None and _names(fill) & {entry, rows}:
            return  # a fill made in the loop
        value = self._stacked(stacked, rows)
        if value is None or self._read_after(body[position + 2:], {rows, entry}):
            return
        call = f"{PAD_HELPER}({results}, {count}{'' if fill is None else ', ' + fill})"
        replaced = stacked.body[0].with_changes(value=cst.parse_expression(call))
        statements = [
            cst.parse_statement(f"{_FLAT} = None\n").with_changes(leading_lines=loop.leading_lines),
            cst.parse_statement(f"if not torch.jit.is_scripting() and {TRACING_HELPER}():\n"
                                f"    {_FLAT} = {ROWS_HELPER}({results})\n"),
            cst.If(test=cst.parse_expression(f"{_FLAT} is not None"),
                   body=cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[replaced])]),
                   orelse=cst.Else(body=cst.IndentedBlock(body=[loop.with_changes(leading_lines=()),
                                                                stacked.with_changes(leading_lines=())]))),
        ]
        self.found(loop, "each image's rows capped and padded with zeros to a fixed count, then stacked: a traced "
                         "export unrolls the loop with the example's batch; where the list is the one TRT360's "
                         "rewrite of a per-image NMS loop made while tracing, the padded tensor is filled from its "
                         f"flattened rows at once; assumes {_ASSUMPTION}",
                   Fix({loop: cst.FlattenSentinel(statements), stacked: cst.RemovalSentinel.REMOVE},
                       safety=Safety.UNSAFE, helpers=(TRACING_HELPER, ROWS_HELPER, PAD_HELPER), covers=True))

    def _filled(self, body, position: int) -> None:
        """The preallocated form: ``out = torch.zeros((n, k, ...))`` right before ``for i, det in
        enumerate(detections):`` (or ``for i in range(len(detections)): det = detections[i]``) whose body writes each
        image's padded rows by its index: ``out[i] = F.pad(det, (0, 0, 0, k - det.shape[0]))`` (the widths maybe bound
        to a name first), or after a cap ``det = det[:k]``, ``out[i] = torch.cat([det, det.new_zeros(k - len(det),
        ...)])`` or ``out[i, :len(det)] = det``."""
        loop, made = body[position], body[position - 1]
        allocated = self._allocated(made)
        if allocated is None or loop.orelse is not None or loop.asynchronous is not None:
            return
        out = allocated[0]
        header = _by_index(loop)
        if header is None:
            return
        index, entry, results, statements = header
        read = self._written_padding(allocated, index, entry, statements)
        if read is None:
            return
        count, fill, widths = read
        if _names(count) & _names(results):
            return  # a count made from the list
        call = f"{PAD_HELPER}({results}, {count}{'' if fill is None else ', ' + fill}).to({out})"
        if self._read_after(body[position + 1:], {entry, index, *widths}):
            return
        statements = [
            cst.parse_statement(f"{_FLAT} = None\n").with_changes(leading_lines=loop.leading_lines),
            cst.parse_statement(f"if not torch.jit.is_scripting() and {TRACING_HELPER}():\n"
                                f"    {_FLAT} = {ROWS_HELPER}({results})\n"),
            cst.If(test=cst.parse_expression(f"{_FLAT} is not None"),
                   body=cst.IndentedBlock(body=[cst.parse_statement(f"{out} = {call}\n")]),
                   orelse=cst.Else(body=cst.IndentedBlock(body=[loop.with_changes(leading_lines=())]))),
        ]
        self.found(loop, "each image's rows padded with zeros to a fixed count and written by the image's index into "
                         "a tensor of zeros: a traced export unrolls the loop with the example's batch; where the list "
                         "is the one TRT360's rewrite of a per-image NMS loop made while tracing, the padded tensor is "
                         f"filled from its flattened rows at once; assumes {_ASSUMPTION}",
                   Fix({loop: cst.FlattenSentinel(statements)},
                       safety=Safety.UNSAFE, helpers=(TRACING_HELPER, ROWS_HELPER, PAD_HELPER), covers=True))

    def _stacked(self, statement: cst.BaseStatement, rows: str) -> cst.BaseExpression | None:
        """``torch.stack(rows)`` (or along ``0`` / ``dim=0``) returned, assigned or evaluated by ``statement``."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if type(small) not in (cst.Return, cst.Assign) or small.value is None:
            return None
        call = strip_parens(small.value)
        if type(call) is not cst.Call or not self.context.refers_to(call.func, *_STACK) \
                or not 1 <= len(call.args) <= 2 or any(a.star for a in call.args) or call.args[0].keyword \
                or code_of(call.args[0].value).strip() != rows:
            return None
        if len(call.args) == 2 and ((call.args[1].keyword is not None and call.args[1].keyword.value != "dim")
                                    or int_value(strip_parens(call.args[1].value)) != 0):
            return None
        return call

    @staticmethod
    def _read_after(statements, names: set[str]) -> bool:
        """Does a later statement of the block read one of ``names`` before binding it again?"""
        for statement in statements:
            for node in walk(statement):
                if type(node) is cst.Name and node.value in names:
                    return True
        return False














def _empty_list(statement: cst.BaseStatement) -> str | None:
    """The name ``statement`` binds to an empty list (``rows = []``, ``rows = list()``), or None."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1 or type(small.targets[0].target) is not cst.Name:
        return None
    value = strip_parens(small.value)
    empty = type(value) is cst.List and not value.elements or (
        type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "list" and not value.args)
    return small.targets[0].target.value if empty else None




def _appended(statement: cst.BaseSmallStatement, rows: str) -> cst.BaseExpression | None:
    """The value of ``rows.append(value)``."""
    if type(statement) is not cst.Expr:
        return None
    call = strip_parens(statement.value)
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "append" \
            or code_of(call.func.value).strip() != rows or len(call.args) != 1 or call.args[0].keyword \
            or call.args[0].star:
        return None
    return call.args[0].value


RULES = (PerImagePad,)
