"""Boolean-mask indexing (TRT201 reads; the mask evidence TRT202 and TRT204 share).

``t[mask]`` with a boolean mask exports as ``NonZero`` (whose output size depends on the
data) followed by ``Transpose`` + ``GatherND``; the NonZero reads the bool mask directly.
TRT201 rewrites reads into a call of the helper ``_trt_mask_index``, which is the
same indexing in eager mode and explicit integer positions while exporting. Assignments through
a mask are ``mask_update`` (TRT202) and ``assignment`` (TRT204).

Whether an index is a boolean mask is decided from evidence in the code (DESIGN §8.3):
a comparison, a bool-valued torch function or method, a ``torch.bool`` conversion, or a
local name every assignment of which in the same function is such an expression. A name
alone (``mask``, ``valid``) is weak evidence; a name like ``keep`` (often long indices
from NMS) is none. The helper itself checks the dtype at run time and leaves anything
but a 1-D bool tensor untouched, so a wrong guess never picks wrong rows.
"""

from __future__ import annotations

import re

import libcst as cst

from trtcodemod.astutil import method_call, strip_parens
from trtcodemod.helpers import RESERVED_PREFIX
from trtcodemod.providers import ObservedFacts
from trtcodemod.transforms._tensor_evidence import TensorEvidence, WrittenSubscripts
from trtcodemod.transforms._op_calls import INF_TEST_HELPERS
from trtcodemod.evidence.proofs import prove_mask
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.nonzero.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
    "https://github.com/NVIDIA/TensorRT/issues/2285",
)

HELPER = "_trt_mask_index"
#: A mask after sliced axes (``t[:, mask, :]``): the same selection on the masked axes.
AXES_HELPER = "_trt_mask_axes"

NONE, WEAK, STRONG = 0, 1, 2

#: Comparison operators whose result on tensors is a bool tensor (not ``is``/``in``).
_COMPARISONS = (
    cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual,
)

_BOOL_FUNCTIONS = tuple(
    f"torch.{name}"
    for name in (
        "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isin", "isclose", "signbit",
        "logical_and", "logical_or", "logical_not", "logical_xor",
        "gt", "ge", "lt", "le", "eq", "ne", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "any", "all",
    )
)

_BOOL_METHODS = frozenset(
    {
        "bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose", "signbit",
        "logical_and", "logical_or", "logical_not", "logical_xor",
        "gt", "ge", "lt", "le", "eq", "ne", "greater", "greater_equal", "less", "less_equal", "not_equal",
        "any", "all",
    }
)

_MODULE_LIKE = frozenset({"torch", "np", "numpy", "self", "cls", "math", "F", "nn"})

#: Names that suggest a boolean mask, and names that suggest integer indices.
_MASKISH = re.compile(r"mask|(^|_)(valid|invalid|visible|inside|is|has)(_|$)")
_INDEXISH = re.compile(r"(^|_)(idx|idxs|ind|inds|index|indices|ids|keep|order|perm)(_|$)")

_BITWISE = (cst.BitAnd, cst.BitOr, cst.BitXor)


def _maskish(name: str) -> bool:
    lowered = name.lower()
    return bool(_MASKISH.search(lowered)) and not _INDEXISH.search(lowered)


class _MaskRule(Rule):
    """Shared evidence analysis: is an index expression a boolean mask?"""

    requires = (TensorEvidence, ObservedFacts)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._torch_file = False
        self._evidence: TensorEvidence = self.provider(TensorEvidence)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def visit_Module(self, node: cst.Module) -> None:
        # Module-level imports only: the table has not seen the functions' imports yet.
        self._torch_file = self.context.imports.imports_module("torch")

    # --- where rules may act ---------------------------------------------------
    def _active(self) -> bool:
        if any(f.name.value.startswith(RESERVED_PREFIX) for f in self.context.functions):
            return False  # never inside inserted helpers
        return self._torch_file

    def _bindings(self) -> dict[str, list[cst.BaseExpression | None]]:
        return self._evidence.bindings()

    # --- evidence --------------------------------------------------------------
    def _tensor_involved(self, indexed: cst.BaseExpression, mask: cst.BaseExpression) -> bool:
        """The indexed value or the mask is visibly a tensor: NumPy code (`a[a > 0]`) looks the same."""
        parts = [indexed, mask]
        mask = strip_parens(mask)
        if type(mask) is cst.Comparison:
            parts += [mask.left, *(c.comparator for c in mask.comparisons)]
        return any(self._evidence.evident(part) for part in parts)

    def evidence(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> int:
        """STRONG: visibly bool; WEAK: only the name says so; NONE: no reason to think so."""
        if type(node) is cst.Comparison:
            comparisons = node.comparisons
            return STRONG if len(comparisons) == 1 and isinstance(comparisons[0].operator, _COMPARISONS) else NONE
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.BitInvert:
            return self.evidence(node.expression, seen)
        if type(node) is cst.BinaryOperation and isinstance(node.operator, _BITWISE):
            return max(self.evidence(node.left, seen), self.evidence(node.right, seen))
        if type(node) is cst.Call:
            if self._bool_call(node):
                return STRONG
            receiver = self._layout_receiver(node)
            return NONE if receiver is None else self.evidence(receiver, seen)
        if type(node) is cst.Name:
            return self._name_evidence(node.value, seen)
        if type(node) is cst.Subscript:
            # Any part of a bool tensor is bool: the row of a batch-wide mask (`x[xc[xi]]` in
            # YOLOv5's NMS, `pred_candidates[img_idx]` in YOLOv6's), a slice of one.
            return self.evidence(strip_parens(node.value), seen)
        if type(node) is cst.Attribute:
            return WEAK if _maskish(node.attr.value) and not self.context.qualified_names(node) else NONE
        return NONE

    def _name_evidence(self, name: str, seen: frozenset[str]) -> int:
        if name in seen or len(seen) > 8:
            return NONE
        values = self._bindings().get(name)
        if values and all(value is not None for value in values):
            if all(self.evidence(value, seen | {name}) == STRONG for value in values if value is not None):
                return STRONG
        return WEAK if _maskish(name) else NONE

    def _bool_call(self, call: cst.Call) -> bool:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "dtype" and self._is_torch_bool(arg.value):
                return True  # torch.zeros(..., dtype=torch.bool), x.to(dtype=torch.bool)
        if self.context.refers_to(call.func, *_BOOL_FUNCTIONS):
            return True
        if type(call.func) is cst.Name and call.func.value in INF_TEST_HELPERS:
            return True  # TRT733's rewrite of torch.isfinite(...) and the like
        parts = method_call(call)
        if parts is None:
            return False
        receiver, name = parts
        if self._module_receiver(receiver):
            return False  # np.isnan(...), math.isnan(...): not a tensor method
        if name in _BOOL_METHODS:
            return True
        if name in ("to", "type") and call.args and call.args[0].keyword is None:
            return self._is_torch_bool(call.args[0].value)
        return False

    def _layout_receiver(self, call: cst.Call) -> cst.BaseExpression | None:
        """``m`` of ``m.squeeze(1)``, ``m.flatten()``...: methods that keep the dtype, so the
        result is a mask exactly when ``m`` is (``(s >= t).squeeze()`` in YOLOX's post-processing)."""
        parts = method_call(call)
        if parts is None:
            return None
        if parts[1] not in _DTYPE_KEEPING_METHODS and not (parts[1] == "view" and _shape_view(call)):
            return None
        receiver = parts[0]
        if self._module_receiver(receiver):
            return None  # torch.flatten(...) / np.squeeze(...): a function, not a method of the mask
        return strip_parens(receiver)

    def _module_receiver(self, receiver: cst.BaseExpression) -> bool:
        """``torch``, ``np``, an imported module: ``receiver.f(...)`` is a function call, not a method."""
        return bool(self.context.qualified_names(receiver)) or (
            type(receiver) is cst.Name and receiver.value in _MODULE_LIKE
        )

    def _is_torch_bool(self, node: cst.BaseExpression) -> bool:
        return self.context.refers_to(node, "torch.bool") is not None


#: Tensor methods whose result has the receiver's dtype whatever their arguments (not ``view``,
#: which also takes a dtype: see :func:`_shape_view`; nor ``to``/``type``).
_DTYPE_KEEPING_METHODS = frozenset({
    "squeeze", "unsqueeze", "flatten", "reshape", "contiguous", "clone", "detach", "permute",
    "transpose", "t", "expand", "expand_as", "cpu",
})


def _shape_view(call: cst.Call) -> bool:
    """``m.view(-1)``, ``m.view(b, n)``: a view by shape (``m.view(torch.uint8)`` reinterprets the dtype)."""
    args = call.args
    if not args or any(arg.star or arg.keyword is not None for arg in args):
        return False
    if len(args) > 1:
        return True
    value = args[0].value
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        value = value.expression
    return type(value) is cst.Integer


def _sole_index(node: cst.Subscript) -> cst.Index | None:
    """The index of ``t[i]`` when it is a single plain expression (no slice, no star)."""
    if len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if type(index) is cst.Index and index.star is None:
        return index
    return None


def _full_slice(element: cst.SubscriptElement) -> bool:
    """``:`` alone (no bounds, no step)."""
    part = element.slice
    return type(part) is cst.Slice and part.lower is None and part.upper is None and part.step is None


def _middle_mask(node: cst.Subscript) -> tuple[int, cst.BaseExpression] | None:
    """``(k, m)`` for ``t[:, ..., :, m, :, ...]``: ``k >= 1`` full slices, one plain expression ``m`` (a name, an
    attribute or a call; no literal, tuple, list or star), then only full slices."""
    elements = list(node.slice)
    start = 0
    while start < len(elements) and _full_slice(elements[start]):
        start += 1
    if start == 0 or start >= len(elements) or not all(_full_slice(e) for e in elements[start + 1:]):
        return None
    part = elements[start].slice
    if type(part) is not cst.Index or part.star is not None:
        return None
    value = strip_parens(part.value)
    if type(value) not in (cst.Name, cst.Attribute, cst.Call, cst.Comparison, cst.UnaryOperation, cst.BinaryOperation):
        return None
    if type(value) is cst.Name and value.value in ("None", "True", "False", "Ellipsis"):
        return None
    return start, value


def _described(node: cst.BaseExpression) -> str:
    text = cst.Module(body=[]).code_for_node(node)
    return text if len(text) <= 40 else text[:37] + "..."


class BoolMaskIndex(WrittenSubscripts, _MaskRule):
    info = RuleInfo(
        id="TRT201",
        name="bool-mask-index",
        summary="`t[mask]` with a boolean mask exports as NonZero on a bool tensor + GatherND; index with integer positions",
        doc="""\
What it finds: reads of a tensor through a boolean mask, `t[mask]`, where the code shows
that `mask` is boolean: a comparison (`scores > thr`, `labels == c`), a bool-valued
function or method (`torch.isfinite(x)`, `x.isnan()`, `m.logical_and(n)`, `x.any(1)`), a
conversion (`.bool()`, `.to(torch.bool)`, `dtype=torch.bool`), `~`, `&`, `|`, `^` of those,
one of those reshaped by a method that keeps the dtype (`(s >= thr).squeeze()`,
`m.flatten()`, `m.view(-1)`; not `m.view(dtype)` or `m.to(other)`), a part of one taken by
indexing (the row `xc[i]` of a batch-wide mask `xc = pred[..., 4] > t`), or a local name that
every assignment in the same function sets to such an expression.
Inside `migrate` or with `--facts`, the indexed value or the mask's operand seen holding a
tensor in the recorded run counts as a tensor, and an index seen to be a 1-D bool tensor on
every call is a mask whatever its name (`boxes[keep]` in a helper): reported with the fix as
unsafe, whose assumption that observation proves, so it applies without `--unsafe` there.
Assignments through a mask are TRT202. A mask after full slices and before nothing but full
slices (`t[:, mask]`, `dist[:, self.diagonal_mask, :]`) becomes `_trt_mask_axes(t, k, mask)`, `k`
the number of slices before it: unsafe (a scripted caller cannot compile the helper), taken by
`migrate` where the recorded run saw a bool tensor index there at every call (SPIGA 0.0.6's
landmark distances, `spiga/models/spiga.py:163`, a 2-D mask after the batch axis, which the
TorchScript exporter writes with a Squeeze ONNX Runtime refuses to load). While exporting it
selects on the masked axes flattened into one, as below; elsewhere it is the subscript itself. A
mask used with other indices (`t[mask, :4]`, `t[0, mask]`) is reported without a fix.

Why it hurts: boolean indexing exports as `NonZero` + `Transpose` + `GatherND`. NonZero's
output size depends on the data; TensorRT has no NonZero before 8.5, so the selection
cannot be built at all there (the guidance's alternative, a fixed-size `topk`, changes the
result and is not automatic). From 8.5 on NonZero parses, but the ONNX-TensorRT operator
table documents its input types as FP32/FP16 only, while the exported graph feeds it the
bool mask directly; the guidance reports parser errors for boolean indices.

The rewrite: `t[mask]` → `_trt_mask_index(t, mask)`, an inserted helper. Outside
`torch.onnx.export` it is `t[mask]` itself. While exporting, a tensor indexed by a 1-D bool
tensor becomes `t[positions]` with the positions of the True entries in order, exactly
`mask.nonzero()[:, 0]`, via a float32 cast; the graph becomes `Cast` → `NonZero` →
`Transpose` → `Reshape` → `Gather`. To be honest about what this buys on current TensorRT:
the data-dependent NonZero is still there (nothing can remove it while the result's length
depends on the data); the gain is a documented NonZero input type and a plain Gather on
axis 0 instead of GatherND. A k-D mask over the first k axes (`boxes[filter_mask]` with an
`R x K` mask over `R x K x 4` boxes, detectron2's form) is the same selection on those axes
flattened into one.

Fix safety: safe when the code shows the mask is boolean. Eager, `torch.jit.script`,
`torch.fx`, `torch.compile` and `torch.export` run `t[mask]` itself, whatever `t` and
`mask` are: a Python list indexed by a one-element bool tensor (`CLASSES[p > 0.5]`), a
class with its own `__getitem__`, a long index tensor (`keep` from NMS), a mask of the
wrong length (still an IndexError): same values, dtype, gradients, errors, and a copy as
before. While exporting only a tensor indexed by a bool tensor of one or more axes changes form; a mask
whose length does not match the axis is not checked in the exported graph (the export of
the original does not check it either). When only a mask-like name says the index is a mask
(`valid`, `fg_mask`), the fix needs `--unsafe`: not because results could differ but
because the evidence is weak and the edit may be pointless. Names such as `keep`, `idx`,
`inds` are never treated as masks. Files that do not import torch are not checked.

TensorRT versions: all. Before 8.5 neither form builds (no NonZero); the rule still marks
the places to rework.""",
        fix=Safety.SAFE,
        proof=prove_mask,
        assumption=(
            "an index that only its name calls a mask is a 1-D bool tensor: a long index tensor (from NMS) would pick "
            "other rows"),
        examples=(
            Example(
                "def select(boxes: torch.Tensor, scores: torch.Tensor, thr):\n    keep = scores > thr\n"
                "    return boxes[keep], scores[keep]\n",
                "def select(boxes: torch.Tensor, scores: torch.Tensor, thr):\n    keep = scores > thr\n"
                "    return _trt_mask_index(boxes, keep), _trt_mask_index(scores, keep)\n",
            ),
            Example(
                "finite = boxes[torch.isfinite(boxes).all(1)]\n",
                "finite = _trt_mask_index(boxes, torch.isfinite(boxes).all(1))\n",
            ),
            Example(
                "def crop(points: torch.Tensor, valid_mask):\n    return points[valid_mask]\n",
                "def crop(points: torch.Tensor, valid_mask):\n    return _trt_mask_index(points, valid_mask)\n",
                unsafe=True,
            ),
            Example("def head(boxes: torch.Tensor, scores):\n    return boxes[scores > 0.05, :4]\n"),
        ),
        references=_REFERENCES,
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.is_written(node) or not self._active():
            return
        index = _sole_index(node)
        if index is None:
            middle = _middle_mask(node)
            if middle is None or not self._report_middle(node, *middle):
                self._report_mixed(node)
            return
        level = self.evidence(index.value)
        # With facts: an index the recorded run saw to be a 1-D bool tensor at every call (an
        # index event is recorded only when a tensor is indexed) is a mask whatever its name.
        seen = level == NONE and self._observed.proof(self.info, node) is not None
        if seen:
            level = WEAK
        elif level == NONE or not self._tensor_involved(node.value, index.value):
            return
        mask = strip_parens(index.value)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        replacement = cst.Call(
            func=cst.Name(HELPER),
            args=[cst.Arg(value=strip_parens(node.value), comma=comma), cst.Arg(value=mask)],
            lpar=node.lpar,
            rpar=node.rpar,
        )
        if level == STRONG:
            message = ("boolean-mask indexing exports as NonZero on a bool tensor + GatherND; "
                       "index with the mask's integer positions")
            safety = Safety.SAFE
        elif seen:
            message = (f"`{_described(mask)}` was a 1-D bool tensor in the recorded run; boolean-mask indexing "
                       "exports as NonZero on a bool tensor + GatherND; index with the mask's integer positions")
            safety = Safety.UNSAFE
        else:
            message = (f"`{_described(mask)}` looks like a boolean mask by its name only; boolean-mask indexing "
                       "exports as NonZero on a bool tensor + GatherND (fix needs --unsafe)")
            safety = Safety.UNSAFE
        self.report(node, message, Fix({node: replacement}, safety=safety, helpers=(HELPER,)))

    def _report_middle(self, node: cst.Subscript, start: int, mask: cst.BaseExpression) -> bool:
        """``t[:, mask, :]``: a mask after ``start`` full slices, taken where the code shows a boolean mask or the
        recorded run saw a bool tensor index it there at every call (SPIGA's 2-D ``self.diagonal_mask``)."""
        level = self.evidence(mask)
        kinds = self._observed.indexed(node)
        pattern = re.compile(r"tuple\((basic,){%d}bool:\d+(,basic)*\)" % start)
        seen = bool(kinds) and all(pattern.fullmatch(kind) for kind, _rank in kinds)
        if level != STRONG and not seen:
            return False
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        replacement = cst.Call(func=cst.Name(AXES_HELPER), args=[
            cst.Arg(value=strip_parens(node.value), comma=comma), cst.Arg(value=cst.Integer(str(start)), comma=comma),
            cst.Arg(value=strip_parens(mask))], lpar=node.lpar, rpar=node.rpar)
        why = "the recorded run saw a bool tensor index it there" if seen and level != STRONG else "a boolean mask"
        # Seen: the recorded forwards ran this subscript in Python (not scripted) with a bool index at every call,
        # which is what the fix assumes.
        words = (f"observed: a bool tensor indexed the tensor after {start} sliced axis(es) at every recorded "
                 "call, run in Python (not scripted)") if seen else None
        self.report(node, f"`{_described(mask)}` after {start} sliced axis(es), {why}: the TorchScript exporter "
                          "writes a mask of two or more axes there with a Squeeze ONNX Runtime refuses, and any "
                          "bool mask as NonZero on a bool tensor + GatherND; select the mask's integer positions on "
                          "its axes flattened while exporting",
                    Fix({node: replacement}, safety=Safety.UNSAFE, helpers=(AXES_HELPER,),
                        proof=(lambda _seen, said=words: said) if words else None))
        return True

    def _report_mixed(self, node: cst.Subscript) -> None:
        for element in node.slice:
            index = element.slice
            if type(index) is cst.Index and index.star is None and self.evidence(index.value) == STRONG:
                self.report(
                    node,
                    f"boolean mask `{_described(index.value)}` used with other indices exports as NonZero + GatherND; "
                    "index the masked axis on its own (`_trt_mask_index(t, mask)`), then the rest",
                )
                return


def _is_plain_scalar(node: cst.BaseExpression) -> bool:
    """A number literal (``0``, ``-1.5``, ``True``, ``float("inf")``): a masked fill."""
    if type(node) in (cst.Integer, cst.Float):
        return True
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        return _is_plain_scalar(node.expression)
    if type(node) is cst.Name and node.value in ("True", "False"):
        return True
    if (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("float", "int")
            and len(node.args) == 1 and type(node.args[0].value) in (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    return False


RULES = (BoolMaskIndex,)
