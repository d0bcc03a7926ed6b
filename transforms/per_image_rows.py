"""TRT361: a list of one result an image flattened into rows with the image's index, taken flattened while tracing.

``for i, det in enumerate(results): rows.append(torch.cat([det["boxes"], torch.full_like(det["scores"][:, None],
i)], 1))`` then ``torch.cat(rows)`` (or ``torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in
enumerate(out)])``): a trace unrolls it with the example's batch. Where ``results`` is the list TRT360 made while
tracing from a per-image NMS loop (it carries every image's rows flattened and each row's image), the rewrite takes
those rows at once; the loop stays for eager code and for any other list.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from trtcodemod.astutil import code_of, int_value, plain_read, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule
from trtcodemod.transforms.per_image_nms import (_CAT, FILL_HELPER, Decline, Flattener, Kind, PerImageNms, _indented,
                                                 _skip_parts, calls_nms)

ROWS_HELPER = "_trt_flat_rows"
IMAGES_HELPER = "_trt_flat_images"
SAME_IMAGES_HELPER = "_trt_same_images"
#: Names the rewrite binds (reserved prefix).
_RESULTS, _FLAT, _IMAGES = "_trt_results", "_trt_flat", "_trt_flat_image"

_ASSUMPTION = ("the list that TRT360's rewrite of a per-image loop made while tracing reaches the caller unchanged "
               "(no entry added, removed, replaced or written in place since; a copy of it is another list, whose "
               "loop is kept): its flattened rows are then its entries' rows, image by image")

#: The rule's example: the caller's loop (before, and kept after for eager code).
_LOOP = ("for i, det in enumerate(results):\n"
         "    rows.append(torch.cat([det['boxes'], torch.full_like(det['scores'][:, None], i)], 1))\n")


_COMPREHENSION = "return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])\n"
#: The rewrite's test (``results``: the list), up to the flattened statements.
_TEST = (f"{_FLAT} = None\n"
         f"if not torch.jit.is_scripting() and {TRACING_HELPER}():\n"
         f"    {_FLAT} = {ROWS_HELPER}({{results}})\n"
         f"if {_FLAT} is not None:\n"
         f"    {_IMAGES} = {IMAGES_HELPER}({{results}})\n")



def _none_skip(statement: cst.BaseStatement, entry: str | tuple[str, ...]) -> bool:
    """Is ``statement`` ``if <entry> is None: continue`` (no ``else``), ``entry`` the loop's whole entry?"""
    if isinstance(entry, tuple) or type(statement) is not cst.If or statement.orelse is not None \
            or type(statement.body) is not cst.IndentedBlock or len(statement.body.body) != 1:
        return False
    line = statement.body.body[0]
    test = strip_parens(statement.test)
    return type(line) is cst.SimpleStatementLine and len(line.body) == 1 and type(line.body[0]) is cst.Continue \
        and type(test) is cst.Comparison and len(test.comparisons) == 1 \
        and type(test.comparisons[0].operator) is cst.Is and code_of(test.comparisons[0].comparator).strip() == "None" \
        and type(strip_parens(test.left)) is cst.Name and strip_parens(test.left).value == entry


def _empty_skip(statement: cst.BaseStatement, entry: str | tuple[str, ...]) -> bool:
    """Is ``statement`` ``if not <entry has rows>: continue`` (``if len(det) == 0:``, ``if det.shape[0] == 0:``; no
    ``else``)?"""
    # a bare `if <test>: continue` as TRT360 reads one (`_skip_parts`), no `elif` after it
    if isinstance(entry, tuple) or _skip_parts(statement) != (None, None) or statement.orelse is not None:
        return False
    test = strip_parens(statement.test)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _has_rows(test.expression, entry)
    return type(test) is cst.Comparison and len(test.comparisons) == 1 \
        and type(test.comparisons[0].operator) is cst.Equal \
        and int_value(strip_parens(test.comparisons[0].comparator)) == 0 and _has_rows(test.left, entry)


def _has_rows(test: cst.BaseExpression, entry: str) -> bool:
    """Is ``test`` true exactly where the tensor ``entry`` has rows: ``entry.shape[0]``, ``len(entry)`` or
    ``entry.size(0)`` (not ``numel()``, which rows of no value make 0), alone or compared ``> 0`` / ``!= 0``?"""
    test = strip_parens(test)
    if type(test) is cst.Comparison and len(test.comparisons) == 1 \
            and type(test.comparisons[0].operator) in (cst.GreaterThan, cst.NotEqual) \
            and int_value(strip_parens(test.comparisons[0].comparator)) == 0:
        test = strip_parens(test.left)
    return code_of(test).strip() in (f"{entry}.shape[0]", f"len({entry})", f"{entry}.size(0)")


class PerImageRows(RuntimeScopeRule):
    needs_text = spelled("enumerate", "zip")
    info = RuleInfo(
        id="TRT361",
        name="per-image-rows",
        summary="a list of one result an image flattened into rows with the image's index: tracing unrolls it with "
                "the example's batch; take the rows a per-image NMS loop (TRT360) left flattened",
        doc=f"""\
What it finds, in run-time code: a caller that turns a list of one result an image (a dict of
rows, or a tensor of rows, as a per-image NMS loop returns: Holocron's YOLO `_post_process`,
YOLOv5/v7's `non_max_suppression`) into one tensor of rows with an image-index column:
`for i, det in enumerate(results):` (or `zip(range(len(results)), results)`) /
`rows.append(torch.cat([det['boxes'], ...,
torch.full_like(det['scores'][:, None], i)], 1))` / `torch.cat(rows)`, or the comprehension
`torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])` (also along
`dim=0`). An entry unpacked, `for i, (boxes, scores, labels) in enumerate(postprocess(...))` (a tuple an
image: zoo 85's wrapper over modern-yolonas's `postprocess`), reads each part of the flattened tuple by its
position; the list must then be one TRT360 made of such tuples, as many parts as the loop unpacks
(`{ROWS_HELPER}(results, 3)`), else the loop runs as written. The body is what TRT360 carries over
(row-wise work, picks, columns); `i` only as the image's column (`full_like(x, i)`, with `dtype`, `layout`
or `device` by keyword that do not depend on the image; `x.new_full((x.size(0), 1), i)`,
`torch.full((x.shape[0], 1), float(i))`). A name the loop binds may be bound again after it before it is read
(mmdet's `bbox2roi`: `rois` in the loop, then `rois = torch.cat(rois_list, 0)`). The list of rows may start
with empty tensors (`rows = [torch.zeros(0, 8)]`), and the body may skip an entry that is `None`, `if det is
None: continue` (a wrapper over YOLOX's `postprocess`, whose list holds `None` for an image without rows), and
end by filling further lists under a setting the same for every image (`if self.segm is not None:
masks.append(det["masks"][keep, 0])`, lists made in one statement, `rows, masks = [...], [...]`: zoo 90's wrapper
over DETR's post-processors):
TRT360's list holds a tensor an image, so the flattened rows take no such skip. Appends made only where
the image has rows, `if det.shape[0]:` (or `len(det)`, `det.size(0)`, compared `> 0` or `!= 0`, after a setting
`if self.segment and det.shape[0]:`, the appends possibly under `if self.retina: ... else: ...`), are made on
every image's rows at once where any image has rows: an image without rows adds nothing to a list of rows, and
the test keeps the work on rows from running on none (zoo 93's YOLOv7-seg wrapper, whose empty resize raises).
A first `if not len(det): continue` (or `det.shape[0] == 0`, `not det.size(0)`: ultralytics' predictors) puts
every append after it under that test on every image's rows at once. Further lists may be filled for every image
after the rows (`masks.append(ops.process_mask(proto[index], ...))`).
Such an append may call a function of an image's mask prototypes, `process_mask(proto[index], det[:, 6:],
det[:, :4], shape, upsample=True)` (YOLOv5/v7/v9-seg), whose body, read in its own file, touches the prototypes
only as `c, mh, mw = protos.shape` and through one product `masks_in @ protos.float().view(c, -1)`, and its
coefficients and `c` only there (an early return where there are no rows, `if masks_in.shape[0] == 0:`, and their
`device` or `dtype` aside; ultralytics' `ops.process_mask`, of a module the caller imports): it is called once
with every image's channels one after another (`_trt_image_channels(proto)`, `(batch * c, mh, mw)`) and each row's
coefficients at its image's block of columns, zeros elsewhere (`_trt_image_blocks(coefficients, image,
proto.shape[0])`), so each row sums its own image's channels. Where the image column is made apart from the
rows (torchvision's RoI formats: `ids` by such a loop or comprehension,
`concat_boxes = torch.cat(boxes, dim=0)` or `torch.cat([b for b in boxes], dim=0)`), the list's entries
concatenated along the first axis in the same block are taken with it, also each entry's rows by row-wise work
(Roboflow's `torch.cat([det[:, 6:] for det in found])`, an entry unpacked: `for poses, _, _ in found`) and a list
bound beside the taken one by the same assignment (py-feat's `final_boxes, _, final_landmarks = ...` then
`torch.cat(final_landmarks)`), as the statement's value or one of the values it returns. The body may read a
second list of one entry an image at the index, `coeffs[index]` beside `det` (zoo 94's CoreYOLO wrapper: its NMS
fills the rows and their mask coefficients): while tracing its flattened rows are read, where both lists are
TRT360's made with the very same tensor of images (`{SAME_IMAGES_HELPER}`, tested with the list; the loop runs
otherwise).

Why it hurts: a traced export unrolls the loop with the example's batch: at another batch size the
graph returns the example's number of images.

The rewrite keeps the loop for eager code and for every list of another origin. Where the list is
the one TRT360's rewrite of the per-image loop made while tracing (`{ROWS_HELPER}(results)` is then
not `None`; a call that makes the list is computed once, before, as `{_RESULTS}`), it runs the
body once on every image's rows flattened (`{ROWS_HELPER}`) with each row's
image (`{IMAGES_HELPER}`) as the column `full_like(..., i)` made (`{FILL_HELPER}`): the same rows in
the same order, images ascending; the entries' concatenation becomes `torch.cat([{_FLAT}], dim=0)`, the
same rows in a new tensor. A script compiles none of it: the list is looked at only under
`not torch.jit.is_scripting() and {TRACING_HELPER}()`, and the branch on `{_FLAT} is not None`
holds for `None` a script knows statically.

Fix safety: unsafe: {_ASSUMPTION}. A prototype function's call also assumes that the function treats each
row on its own (its mask, cropped, resized, thresholded: each row's alone) and that the prototypes are finite
(a row's zeros meet the other images' channels: zero times infinity is NaN); its product adds those zeros in
another order, so a mask thresholded at 0.5 may flip where the value lies on the threshold, as eager float32
does against float64. `migrate` applies it with TRT360's rewrite of the loop that
makes the list (the unrolled loops at both lines) and keeps it only where the rewritten model's
graph is faithful and equivalent on its inputs.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                f"def rows_of(results):\n    rows = []\n{_indented(_LOOP, 4)}    return torch.cat(rows)\n",
                "def rows_of(results):\n"
                "    rows = []\n"
                f"{_indented(_TEST.format(results='results'), 4)}"
                f"        rows.append(torch.cat([{_FLAT}['boxes'], "
                f"{FILL_HELPER}({_FLAT}['scores'][:, None], {_IMAGES})], 1))\n"
                f"    else:\n{_indented(_LOOP, 8)}"
                "    return torch.cat(rows)\n",
                unsafe=True,
            ),
            Example(
                f"def rows_of(out):\n    {_COMPREHENSION}",
                "def rows_of(out):\n"
                f"{_indented(_TEST.format(results='out'), 4)}"
                f"        return torch.cat([torch.cat([{_FLAT}, {FILL_HELPER}({_FLAT}[:, :1], {_IMAGES})], 1)])\n"
                f"    else:\n        {_COMPREHENSION}",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",),
    )

    def visit_If(self, node: cst.If) -> None:
        # the code this rule's rewrite kept for eager code and other lists: taken already
        if type(node.orelse) is cst.Else and code_of(node.test).strip() == f"{_FLAT} is not None":
            self._kept.add(id(node.orelse.body))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active() or id(node) in self._kept:
            return
        taken: set[str] = set()
        for position, statement in enumerate(node.body):
            if type(statement) is cst.For:
                results = self._loop(node.body, position, statement)
                if results is not None:
                    taken.add(results)
            elif type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
                results = self._comprehension(statement)
                if results is not None:
                    taken.add(results)
        # a list bound beside a taken one (pyfeat's `final_boxes, _, final_landmarks = postprocess(...)`): its
        # entries concatenated are its flattened rows too, where it is a list TRT360 made
        taken |= {name for statement in node.body for name in self._bound_beside(statement, taken)}
        for statement in node.body if taken else ():
            for results in sorted(taken):
                self._entries_concatenated(statement, results)

    @property
    def _kept(self) -> set[int]:
        if not hasattr(self, "_kept_blocks"):
            self._kept_blocks: set[int] = set()
        return self._kept_blocks

    def _enumerated(self, node: cst.BaseExpression, target: cst.BaseExpression) \
            -> tuple[str, str | tuple[str, ...], cst.BaseExpression] | None:
        """(index, entry, list) of ``for i, det in enumerate(results)`` or ``zip(range(len(results)), results)``
        (``results`` a plain read there: it is read twice; ``range`` of any other count may stop early). An entry
        unpacked, ``for i, (boxes, scores, labels) in enumerate(results)`` (zoo 85's YOLO-NAS wrapper over the
        library's ``postprocess``), is the tuple of its names."""
        node = strip_parens(node)
        target = strip_parens(target)
        if type(node) is not cst.Call or type(node.func) is not cst.Name \
                or node.func.value not in ("enumerate", "zip") or self.context.qualified_names(node.func) \
                or any(a.keyword or a.star for a in node.args) or type(target) is not cst.Tuple \
                or len(target.elements) != 2 or type(target.elements[0].value) is not cst.Name:
            return None
        index = target.elements[0].value.value
        unpacked = strip_parens(target.elements[1].value)
        if type(unpacked) is cst.Name:
            entry: str | tuple[str, ...] = unpacked.value
        elif type(unpacked) in (cst.Tuple, cst.List) and unpacked.elements \
                and all(type(e) is cst.Element and type(e.value) is cst.Name for e in unpacked.elements):
            entry = tuple(e.value.value for e in unpacked.elements)
            if len(set(entry)) != len(entry) or index in entry:
                return None
        else:
            return None
        if node.func.value == "enumerate":
            return (index, entry, node.args[0].value) if len(node.args) == 1 else None
        if len(node.args) != 2 or not plain_read(node.args[1].value):
            return None
        results = code_of(node.args[1].value).strip()
        counted = strip_parens(node.args[0].value)
        if type(counted) is not cst.Call or type(counted.func) is not cst.Name or counted.func.value != "range" \
                or self.context.qualified_names(counted.func) or len(counted.args) != 1 \
                or code_of(counted.args[0].value).strip() != f"len({results})" \
                or self.context.qualified_names(strip_parens(counted.args[0].value).func):
            return None
        return index, entry, node.args[1].value

    def _flattener(self, index: str, entry: str | tuple[str, ...], uses_keys: bool) -> Flattener:
        if isinstance(entry, tuple):  # each name one part of the flattened tuple, rows of the same images
            return Flattener(self, index, {}, {name: (f"{_FLAT}[{at}]", Kind("rows", _IMAGES))
                                               for at, name in enumerate(entry)})
        kind = Kind("record" if uses_keys else "rows", _IMAGES)
        return Flattener(self, index, {}, {entry: (_FLAT, kind)})

    @staticmethod
    def _names(entry: str | tuple[str, ...]) -> set[str]:
        return set(entry) if isinstance(entry, tuple) else {entry}

    @staticmethod
    def _parts(entry: str | tuple[str, ...]) -> int:
        """How many values an entry unpacks into (0: the entry is taken whole)."""
        return len(entry) if isinstance(entry, tuple) else 0

    @staticmethod
    def _keyed(node: cst.CSTNode, entry: str | tuple[str, ...]) -> bool:
        """Does ``node`` read ``entry[<string>]`` (the entries are dicts)?"""
        return not isinstance(entry, tuple) and any(
            type(n) is cst.Subscript and type(n.value) is cst.Name and n.value.value == entry
            and len(n.slice) == 1 and type(n.slice[0].slice) is cst.Index
            and type(n.slice[0].slice.value) is cst.SimpleString for n in walk(node))

    def _replacement(self, results: str, lines: list[str], original: cst.BaseStatement,
                     hoisted: str | None = None, parts: int = 0, guards: list[str] = ()) -> cst.FlattenSentinel:
        """``_trt_flat = None``; while tracing (never in a script) and where every one of ``guards`` holds, the list's
        flattened rows; then ``lines`` where there are any, else ``original``. A script drops the branch on ``None``
        it knows statically, so the helpers' untyped arguments never reach its compiler."""
        guarded = "".join(f" and {guard}" for guard in guards)
        statements = [] if hoisted is None else [cst.parse_statement(f"{_RESULTS} = {hoisted}\n")]
        statements += [cst.parse_statement(f"{_FLAT} = None\n"),
                       cst.parse_statement(f"if not torch.jit.is_scripting() and {TRACING_HELPER}(){guarded}:\n"
                                           f"    {_FLAT} = {ROWS_HELPER}({results}{f', {parts}' if parts else ''})\n"),
                       cst.If(test=cst.parse_expression(f"{_FLAT} is not None"),
                              body=cst.IndentedBlock(body=[s for line in [f"{_IMAGES} = {IMAGES_HELPER}({results})",
                                                                          *lines]
                                                           for s in cst.parse_module(line + "\n").body]),
                              orelse=cst.Else(body=cst.IndentedBlock(body=[original.with_changes(leading_lines=())])))]
        statements[0] = statements[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel(statements)

    def _loop(self, block, position: int, node: cst.For, nonempty_carried: bool = True) -> str | None:
        """Report the loop where it is taken; the list it reads where that is a plain read, else None. With
        ``nonempty_carried`` false, appends under a test that the image has rows are never carried over."""
        header = self._enumerated(node.iter, node.target) if node.orelse is None and node.asynchronous is None \
            else None
        if header is None or self._runs_nms(node):
            return
        index, entry, results = header
        body = node.body.body if type(node.body) is cst.IndentedBlock else ()
        # `if det is None: continue` (a wrapper over YOLOX's `postprocess`, whose list holds None for an image
        # without rows): TRT360's list holds a tensor an image, so while tracing the skip never runs
        body = [s for s in body if not _none_skip(s, entry)]
        # `if not len(det): continue` first (ultralytics' predictors): every later append only where the image
        # has rows; on every image's rows at once, where any image has
        skips_empty = bool(body) and nonempty_carried and _empty_skip(body[0], entry)
        body = body[1:] if skips_empty else body
        # `if self.segm is not None: masks.append(...)` (a wrapper over DETR's post-processors): a second list
        # filled under a setting, the same for every image, after the rows
        settled, guards, nonempty = [], [], []
        # a setting reads neither the image's index, nor its entry, nor a name the body binds (`keep`)
        image_names = {index, *self._names(entry), *(n.target.value for n in walk(node.body)
                                                    if type(n) is cst.AssignTarget and type(n.target) is cst.Name)}
        while body:
            if self._settled_appends(body[-1], image_names) is not None:
                settled.insert(0, body.pop())
                continue
            if nonempty_carried and not guards and self._nonempty_appends(body[-1], entry, image_names) is not None:
                # `if det.shape[0]: masks.append(process_mask(proto[index], det[:, 6:], ...))` (zoo 93's YOLOv7-seg
                # wrapper): each image's masks where it has rows, all images' at once where any image has
                nonempty.insert(0, body.pop())
                continue
            setting = self._setting_first(body[-1], image_names)
            if setting is None:
                break
            # `if self.segment and det.shape[0]: masks.append(...)` (zoo 92's YOLOv9 wrapper): the flattened rows
            # are taken where the setting is false, the appends never made; the loop otherwise
            guards.append(f"not ({code_of(setting).strip()})")
            body.pop()
        small = [s.body[0] if type(s) is cst.SimpleStatementLine and len(s.body) == 1 else None for s in body]
        if not small or any(s is None for s in small):
            return
        rule = PerImageNms  # its list helpers, on this rule's context
        # `rows.append(...)` then `masks.append(ops.process_mask(proto[index], ...))`: further lists filled for
        # every image after the rows
        also: list[cst.Expr] = []
        while len(small) > 1 and rule._appended(self, small[-1]) is not None \
                and rule._appended(self, small[-2]) is not None:
            also.insert(0, small.pop())
        target = rule._appended(self, small[-1])
        filled = [target] + [rule._appended(self, statement) for statement in also]
        filled += [name for statement in settled for name, _ in self._settled_appends(statement, image_names)]
        filled += [name for statement in nonempty for name in self._nonempty_appends(statement, entry, image_names)[1]]
        if guards and len(filled) > 1:
            return  # one list under a setting carried over, another left out: not both at once
        if target is None or len(set(filled)) != len(filled) or not all(
                rule._list_made_before(self, block, position, name, empties=True)
                and rule._only_concatenated_after(self, block, position, name) for name in filled):
            return
        flattener = self._flattener(index, entry, self._keyed(node.body, entry))
        # `coeffs[index]` beside `det` (CoreYOLO's mask coefficients, a second list its NMS filled): that list's
        # flattened rows, where it holds rows of the same images (tested while tracing)
        flattener.side_lists = {name: (f"{ROWS_HELPER}({name})", Kind("rows", _IMAGES)) for name in
                                self._read_at_index(node.body, index) - image_names - {code_of(results).strip()}}
        lines: list[str] = []
        try:
            for statement in small[:-1]:
                text = flattener.assignment(statement)
                lines += flattener.take_prelude() + [text]
            text = f"{target}.append({flattener.per_image(small[-1].value.args[0].value)})"
            lines += flattener.take_prelude() + [text]
            for statement in also:
                value = flattener.per_image(statement.value.args[0].value)
                lines += flattener.take_prelude() + [f"{rule._appended(self, statement)}.append({value})"]
            for statement in settled:
                appends = "".join(f"\n    {name}.append({flattener.per_image(value)})"
                                  for name, value in self._settled_appends(statement, image_names))
                lines += flattener.take_prelude() + [f"if {code_of(statement.test).strip()}:{appends}"]
            for statement in nonempty:
                setting = self._nonempty_appends(statement, entry, image_names)[0]
                test = f"{code_of(setting).strip()} and {_FLAT}.shape[0]" if setting is not None \
                    else f"{_FLAT}.shape[0]"
                text = f"if {test}:{self._appends_text(statement.body.body, flattener, '    ')}"
                lines += flattener.take_prelude() + [text]
        except (Decline, KeyError):
            return self._loop(block, position, node, False) if nonempty or skips_empty else None
        if skips_empty:
            lines = [f"if {_FLAT}.shape[0]:\n" + _indented("\n".join(lines) + "\n", 4).rstrip("\n")]
        if FILL_HELPER not in flattener.helpers:
            return  # no image column: not a flattening of per-image results this rule knows
        if rule._read_after(self, block, position, {index, *self._names(entry), *flattener.env}):
            return
        parts = self._parts(entry)
        listed = code_of(results).strip() if plain_read(results) else _RESULTS
        guards += [f"{SAME_IMAGES_HELPER}({name}, {listed})" for name in sorted(flattener.side_read)]
        helpers = flattener.helpers | ({SAME_IMAGES_HELPER} if flattener.side_read else set())
        if plain_read(results):
            self._report(node, self._replacement(listed, lines, node, parts=parts, guards=guards), helpers)
            return listed
        # the list is computed once, before the test, as the loop's header computed it
        loop = node.with_changes(iter=node.iter.with_changes(args=[node.iter.args[0].with_changes(
            value=cst.Name(_RESULTS))]))
        self._report(node, self._replacement(_RESULTS, lines, loop, hoisted=code_of(results).strip(), parts=parts,
                                             guards=guards), helpers)
        return None

    @staticmethod
    def _read_at_index(body: cst.BaseSuite, index: str) -> set[str]:
        """The names read as ``name[index]`` in ``body``."""
        return {n.value.value for n in walk(body) if type(n) is cst.Subscript and type(n.value) is cst.Name
                and len(n.slice) == 1 and type(n.slice[0].slice) is cst.Index
                and type(strip_parens(n.slice[0].slice.value)) is cst.Name
                and strip_parens(n.slice[0].slice.value).value == index}

    def _nonempty_appends(self, statement: cst.BaseStatement, entry: str | tuple[str, ...], image_names: set[str]
                          ) -> tuple[cst.BaseExpression | None, list[str]] | None:
        """(the setting or None, the lists appended to) of ``if [<setting> and] <entry has rows>: <appends>``, the
        appends possibly under ``if <setting>: ... else: ...`` (no ``elif``); else None. The entry has rows:
        ``det.shape[0]``, ``len(det)``, ``det.size(0)``, also compared ``> 0`` or ``!= 0``. An
        image without rows adds nothing to a list of rows, so on every image's rows at once the test asks whether
        any image has rows (the work on rows may refuse none at all: an empty resize raises)."""
        if isinstance(entry, tuple) or type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock:
            return None
        test, setting = strip_parens(statement.test), None
        if type(test) is cst.BooleanOperation and type(test.operator) is cst.And \
                and self._is_setting(test.left, image_names):
            test, setting = strip_parens(test.right), test.left
        if not _has_rows(test, entry):
            return None
        lists = self._appended_lists(statement.body.body, image_names)
        return None if lists is None else (setting, lists)

    def _is_setting(self, node: cst.BaseExpression, image_names: set[str]) -> bool:
        """Does ``node`` read only names and attributes, none of ``image_names`` (the same for every image)?"""
        return not ({n.value for n in walk(node) if type(n) is cst.Name} & image_names) \
            and not any(type(n) in (cst.Call, cst.Subscript) for n in walk(node))

    def _appended_lists(self, lines: Sequence[cst.BaseStatement], image_names: set[str]) -> list[str] | None:
        """The lists (each once) that ``lines`` append to: appends, or ``if <setting>: <appends> else: <appends>``;
        None for anything else."""
        lists: list[str] = []
        for line in lines:
            if type(line) is cst.SimpleStatementLine and len(line.body) == 1:
                name = PerImageNms._appended(self, line.body[0])
                found = None if name is None else [name]
            elif type(line) is cst.If and type(line.body) is cst.IndentedBlock \
                    and self._is_setting(line.test, image_names) \
                    and (line.orelse is None or type(line.orelse) is cst.Else):
                found = self._appended_lists(line.body.body, image_names)
                if found is not None and line.orelse is not None:
                    other = self._appended_lists(line.orelse.body.body, image_names)
                    found = None if other is None else found + [name for name in other if name not in found]
            else:
                found = None
            if found is None:
                return None
            lists += [name for name in found if name not in lists]
        return lists or None

    def _appends_text(self, lines: Sequence[cst.BaseStatement], flattener: Flattener, indent: str) -> str:
        """``lines`` (checked by :meth:`_appended_lists`) on every image's rows at once, each line after a newline."""
        text = ""
        for line in lines:
            if type(line) is cst.SimpleStatementLine:
                call = line.body[0].value
                text += f"\n{indent}{code_of(call.func).strip()}({flattener.per_image(call.args[0].value)})"
                continue
            text += f"\n{indent}if {code_of(line.test).strip()}:"
            text += self._appends_text(line.body.body, flattener, indent + "    ")
            if line.orelse is not None:
                text += f"\n{indent}else:" + self._appends_text(line.orelse.body.body, flattener, indent + "    ")
        return text

    def _settled_appends(self, statement: cst.BaseStatement, image_names: set[str]
                         ) -> list[tuple[str, cst.BaseExpression]] | None:
        """``(list, value)`` of each append of ``if <setting>: a.append(...)`` (no ``else``, only appends), the test
        reading none of ``image_names`` (a setting: the same branch for every image); else None."""
        if type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock:
            return None
        if {n.value for n in walk(statement.test) if type(n) is cst.Name} & image_names:
            return None
        appends = []
        for line in statement.body.body:
            if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
                return None
            name = PerImageNms._appended(self, line.body[0])
            if name is None:
                return None
            appends.append((name, line.body[0].value.args[0].value))
        return appends or None

    def _setting_first(self, statement: cst.BaseStatement, image_names: set[str]) -> cst.BaseExpression | None:
        """``A`` of ``if A and B: <appends>`` (no ``else``), ``A`` reading none of ``image_names`` (a setting: false,
        the body never runs); else None."""
        if type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock:
            return None
        test = strip_parens(statement.test)
        if type(test) is not cst.BooleanOperation or type(test.operator) is not cst.And:
            return None
        first = test.left
        while type(strip_parens(first)) is cst.BooleanOperation and type(strip_parens(first).operator) is cst.And:
            first = strip_parens(first).left
        if not self._is_setting(first, image_names):
            return None  # a call or a subscript may read the image: only names and attributes are settings
        if any(type(line) is not cst.SimpleStatementLine or len(line.body) != 1
               or PerImageNms._appended(self, line.body[0]) is None for line in statement.body.body):
            return None
        return first

    def _entries_concatenated(self, statement: cst.BaseStatement, results: str) -> None:
        """Next to a loop this rule takes over the same list, the list's entries concatenated along the first axis
        (torchvision's ``convert_boxes_to_roi_format``: ``concat_boxes = torch.cat([b for b in boxes], dim=0)``,
        the image column made by the loop): while tracing, the flattened rows themselves, in a new tensor."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return
        small = statement.body[0]
        if type(small) not in (cst.Return, cst.Assign, cst.Expr) or small.value is None:
            return
        value = strip_parens(small.value)
        # the value, or one of the values it returns (pyfeat's caller: `return rows, torch.cat(final_landmarks)`)
        values = [strip_parens(e.value) for e in value.elements] if type(value) is cst.Tuple else [value]
        found = [(call, row) for call in values if type(call) is cst.Call
                 and self.context.refers_to(call.func, *_CAT) and self._first_axis(call)
                 and not call.args[0].keyword and not call.args[0].star
                 for row in [self._entry_rows(strip_parens(call.args[0].value), results)] if row is not None]
        if len(found) != 1:
            return
        call, row = found[0]
        flat = call.with_changes(args=[call.args[0].with_changes(value=cst.parse_expression(f"[{row[0]}]")),
                                       *call.args[1:]])
        line = code_of(small.deep_replace(call, flat)).strip()
        self._report(statement, self._replacement(results, [line], statement, parts=row[2]), row[1])

    @staticmethod
    def _bound_beside(statement: cst.BaseStatement, taken: set[str]) -> set[str]:
        """The other names a tuple assignment binds where it binds one of ``taken``."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
            return set()
        target = statement.body[0].targets[0].target
        names = {e.value.value for e in target.elements if type(e.value) is cst.Name} \
            if type(target) in (cst.Tuple, cst.List) else set()
        return names - taken - {"_"} if names & taken else set()

    def _entry_rows(self, node: cst.BaseExpression, results: str) -> tuple[str, set[str], int] | None:
        """(the flattened rows, helpers, the parts an entry unpacks into) of the list ``results`` itself, or of
        ``[<rows of d> for d in results]`` (each entry as it is, or row-wise work on it: Roboflow's caller,
        ``[det[:, 6:] for det in found]``; an entry unpacked, ``for poses, _, _ in found``)."""
        if plain_read(node) and code_of(node).strip() == results:
            return _FLAT, set(), 0
        if type(node) is not cst.ListComp or node.for_in.inner_for_in is not None or node.for_in.ifs \
                or node.for_in.asynchronous is not None \
                or not plain_read(node.for_in.iter) or code_of(node.for_in.iter).strip() != results:
            return None
        target = strip_parens(node.for_in.target)
        if type(target) is cst.Name:
            entry: str | tuple[str, ...] = target.value
        elif type(target) in (cst.Tuple, cst.List) and target.elements \
                and all(type(e) is cst.Element and type(e.value) is cst.Name for e in target.elements):
            # `[poses.flatten(1) for poses, _, _ in found]` (super-gradients' entries of three tensors)
            entry = tuple(e.value.value for e in target.elements)
        else:
            return None
        flattener = self._flattener("", entry, False)
        try:
            row = flattener.per_image(node.elt)
        except (Decline, KeyError):
            return None
        return None if flattener.prelude else (row, flattener.helpers, self._parts(entry))

    @staticmethod
    def _first_axis(call: cst.Call) -> bool:
        """Does ``call`` (a concatenation) join its one list along the first axis (no axis, ``0`` or ``dim=0``)?"""
        if not 1 <= len(call.args) <= 2 or any(a.star for a in call.args):
            return False
        if len(call.args) == 1:
            return True
        axis = call.args[1]
        return (axis.keyword is None or axis.keyword.value == "dim") and int_value(strip_parens(axis.value)) == 0

    def _comprehension(self, statement: cst.SimpleStatementLine) -> str | None:
        """``return torch.cat([<row> for i, d in enumerate(out)])`` (or an assignment of it; along the first axis,
        torchvision's ``dim=0``), ``out`` a plain read: reported, and ``out`` returned."""
        small = statement.body[0]
        if type(small) not in (cst.Return, cst.Assign, cst.Expr) or small.value is None:
            return None
        call = strip_parens(small.value)
        if type(call) is not cst.Call or not self.context.refers_to(call.func, *_CAT) \
                or not self._first_axis(call) or call.args[0].keyword or call.args[0].star:
            return None
        listed = strip_parens(call.args[0].value)
        if type(listed) is not cst.ListComp or listed.for_in.inner_for_in is not None or listed.for_in.ifs \
                or listed.for_in.asynchronous is not None:
            return None
        header = self._enumerated(listed.for_in.iter, listed.for_in.target)
        if header is None or not plain_read(header[2]):
            return None
        index, entry, results = header
        results_text = code_of(results).strip()
        flattener = self._flattener(index, entry, self._keyed(listed.elt, entry))
        try:
            row = flattener.per_image(listed.elt)
        except (Decline, KeyError):
            return None
        if flattener.prelude:
            return None  # a comprehension has no line before it
        if FILL_HELPER not in flattener.helpers:
            return None
        flat_call = call.with_changes(args=[call.args[0].with_changes(value=cst.parse_expression(f"[{row}]")),
                                            *call.args[1:]])
        flat = code_of(small.with_changes(value=flat_call))
        parts = self._parts(entry)
        self._report(statement, self._replacement(results_text, [flat.strip()], statement, parts=parts),
                     flattener.helpers)
        return results_text

    def _runs_nms(self, node: cst.For) -> bool:
        return calls_nms(self.context, node.body)  # TRT360's loops

    def _report(self, node: cst.CSTNode, replacement: cst.CSTNode, helpers: set[str]) -> None:
        self.found(node, "a list of one result an image flattened into rows with the image's index: a traced "
                         "export unrolls it with the example's batch; where the list is the one TRT360's rewrite of "
                         f"a per-image NMS loop made while tracing, its rows are taken flattened; assumes "
                         f"{_ASSUMPTION}",
                   Fix({node: replacement}, safety=Safety.UNSAFE,
                       helpers=(TRACING_HELPER, ROWS_HELPER, IMAGES_HELPER, *sorted(helpers))))


RULES = (PerImageRows,)
