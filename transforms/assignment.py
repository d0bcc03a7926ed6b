"""Writes into part of a tensor: slice / index assignment (TRT203), masked fill (TRT204).

``x[:, a:b] = y``, ``x[..., 0] = v`` and ``x[idx] = y`` export as ``ScatterND`` (or
``ScatterElements``) with both exporters, static or dynamic shapes. ``x[mask] = 0.0``
exports as a ``Where`` with the TorchScript exporter but as ``NonZero`` + ``ScatterND``
with the dynamo exporter (torch 2.13).

TRT203 only knows a subscript target is a tensor from evidence in the same function (a
torch factory, ``.clone()``, ``.new_zeros(...)``, a ``torch.Tensor`` annotation) or in the
class (an attribute registered as a buffer or assigned from torch); dict and list stores
never fire. Its rewrite rebinds a name and is offered only where nothing else can see the
tensor. TRT204 reuses the boolean-mask evidence of ``indexing`` (TRT202 reports masked
assignments of tensor values; TRT204 the number literals TRT202 leaves alone).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import (children, int_value, mentions_name, plain_read, short_code, strip_parens,
                                visit_readonly, walk)
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import PARAM, Bindings
from trtcodemod.transforms._module_functions import body_statements, file_function
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms._tensor_evidence import TensorEvidence, annotated_tensor_parameter
from trtcodemod.transforms.ellipsis_index import reported_index
from trtcodemod.transforms.indexing import NONE, STRONG, _is_plain_scalar, _MaskRule

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"
_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.cat.html",
    "https://pytorch.org/docs/stable/generated/torch.Tensor.index_put_.html",
    "https://onnx.ai/onnx/operators/onnx__ScatterND.html",
    _OPERATORS,
)

#: torch functions whose result is a new tensor that nothing else refers to.
_FRESH_FUNCTIONS = tuple(
    f"torch.{name}"
    for name in (
        "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
        "arange", "linspace", "eye", "tensor", "cat", "concat", "stack", "rand", "randn", "randint",
    )
)
#: Tensor methods whose result is a new tensor (``repeat`` copies its receiver's data, unlike ``expand``: RAFT's
#: ``coords_grid`` returns ``coords[None].repeat(batch, 1, 1, 1)``).
_FRESH_METHODS = frozenset({"clone", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "repeat"})
#: Further evidence that a value is a tensor (it may be a view of another one).
_TENSOR_FUNCTION_PREFIXES = ("torch.", )
_NOT_TENSOR_FUNCTIONS = frozenset({
    "torch.Size", "torch.device", "torch.dtype", "torch.no_grad", "torch.is_tensor", "torch.numel",
    "torch.get_default_dtype", "torch.Generator",
})
#: Namespaces whose callables build modules, parameters' containers or utilities, not tensors
#: (`self.classifier = nn.Sequential(...)` then `self.classifier[-1] = nn.Linear(...)`).
_NOT_TENSOR_PREFIXES = ("torch.nn.", "torch.jit.", "torch.cuda.", "torch.utils.", "torch.distributed.",
                        "torch.optim.", "torch.backends.", "torch.onnx.")
_TENSOR_METHODS = _FRESH_METHODS | {
    "contiguous", "float", "half", "double", "long", "int", "bool", "to", "view", "reshape", "permute",
    "transpose", "flatten", "detach", "sigmoid", "softmax", "expand", "repeat", "squeeze", "unsqueeze",
}
#: Elementwise tensor methods whose result is always a new tensor, never a view of the receiver.
_COMPUTING_METHODS = frozenset({
    "clamp", "clip", "clamp_min", "clamp_max", "abs", "neg", "exp", "log", "sqrt", "sigmoid", "tanh", "round",
    "floor", "ceil", "mul", "div", "add", "sub",
})
_COMPUTING_FUNCTIONS = frozenset(f"torch.{name}" for name in _COMPUTING_METHODS)
#: Tensor methods whose result is the receiver, a converted copy of it or a view of it (one
#: element per position: not `expand`, whose write raises): nothing else holds it when nothing
#: else holds the receiver.
_OWN_METHODS = frozenset({
    "to", "float", "double", "half", "long", "int", "contiguous", "detach", "view", "reshape", "permute",
    "transpose", "flatten", "squeeze", "unsqueeze",
})
#: Reading these from the tensor creates no alias.
_HARMLESS_ATTRIBUTES = frozenset({"shape", "size", "dtype", "device", "dim", "ndim", "numel", "is_cuda", "ndimension"})

_LOOPS = (cst.For, cst.While)


def _is_bare_colon(element: cst.SubscriptElement) -> bool:
    sl = element.slice
    return type(sl) is cst.Slice and sl.lower is None and sl.upper is None and sl.step is None


def _is_ellipsis(element: cst.SubscriptElement) -> bool:
    return type(element.slice) is cst.Index and type(element.slice.value) is cst.Ellipsis


def _has_slicing(subscript: cst.Subscript) -> bool:
    """A slice, an ellipsis or several indices: never a dict key or a list position."""
    return len(subscript.slice) > 1 or any(
        type(e.slice) is cst.Slice or _is_ellipsis(e) for e in subscript.slice
    )


#: The helper that makes an integer position among index tensors a tensor while exporting.
POSITION_HELPER = "_trt_index_position"


def _positions_among_names(subscript: cst.Subscript) -> tuple[list[cst.BaseExpression], list[cst.Name]] | None:
    """``out[b, 0, h, w]``: every index a plain name (an index tensor, for all the code shows) or a
    non-negative integer literal, at least one of each, nothing sliced: the literals and the names."""
    literals: list[cst.BaseExpression] = []
    names: list[cst.Name] = []
    for element in subscript.slice:
        index = element.slice
        if type(index) is not cst.Index or index.star is not None:
            return None
        value = index.value
        if type(value) is cst.Integer and int_value(value) is not None and int_value(value) >= 0:
            literals.append(value)
        elif type(value) is cst.Name and value.value not in ("None", "True", "False"):
            names.append(value)
        else:
            return None
    return (literals, names) if literals and names else None


#: The helper that writes through index tensors a full slice stands between, in a form the exporter takes.
SLICED_HELPER = "_trt_index_put_sliced"


def _indices_apart(subscript: cst.Subscript) -> tuple[list[cst.BaseExpression], list[int]] | None:
    """``final[b, :, z, x, y]``: only index expressions and bare ``:``, at least two indices with a ``:`` between
    them (the write the TorchScript exporter refuses): the index expressions and the positions of the ``:``."""
    indices: list[cst.BaseExpression] = []
    sliced: list[int] = []
    for position, element in enumerate(subscript.slice):
        if _is_bare_colon(element):
            sliced.append(position)
            continue
        index = element.slice
        if type(index) is not cst.Index or index.star is not None:
            return None
        value = strip_parens(index.value)
        if type(value) in (cst.Ellipsis, cst.Integer, cst.Float) or (
                type(value) is cst.Name and value.value in ("None", "True", "False")):
            return None  # a number is a select, `None` a new axis: another write
        indices.append(index.value)
    placed = [n for n in range(len(subscript.slice)) if n not in sliced]
    if len(indices) < 2 or not any(placed[0] < p < placed[-1] for p in sliced):
        return None  # consecutive indices: the exporter writes them
    return indices, sliced


#: The helper that wraps the base of a number written into slices, a ``masked_fill_`` while exporting.
SLICE_FILL_HELPER = "_trt_slice_fill"


def _slice_fill_form(target: cst.Subscript, value: cst.BaseExpression) -> bool:
    """``img_mask[:, h, w, :] = cnt``: a number literal or a plain name written into a subscript of only ``:``,
    ``...``, names and slices with plain bounds, with at least one name or slice that is not ``:``; for a name
    value, at least one name among the indices (slices alone take the value expanded, :data:`SLICE_VALUE_HELPER`,
    as a name may hold a tensor)."""
    value = strip_parens(value)
    literal = _is_number(value) and not (type(value) is cst.Name and value.value in ("True", "False"))
    if not literal and not (type(value) is cst.Name and value.value not in ("None", "True", "False")):
        return False
    indexed = named = False
    for element in target.slice:
        index = element.slice
        if _is_bare_colon(element) or _is_ellipsis(element):
            continue
        if type(index) is cst.Slice:
            if not all(part is None or plain_read(part) for part in (index.lower, index.upper, index.step)):
                return False
        elif index.star is not None or type(strip_parens(index.value)) is not cst.Name \
                or strip_parens(index.value).value in ("None", "True", "False"):
            return False
        else:
            named = True
        indexed = True
    return indexed and (literal or named)


#: The helper that expands a value written into a slice to the slice's shape while exporting.
SLICE_VALUE_HELPER = "_trt_slice_value"


def _basic_slicing(subscript: cst.Subscript) -> bool:
    """Only slices with plain bounds, Ellipsis and integer literals: a view of the tensor (no index tensor), cheap to
    take twice, whose bounds have no side effects (names, attributes, literals and arithmetic of those)."""
    for element in subscript.slice:
        index = element.slice
        if type(index) is cst.Slice:
            if not all(part is None or plain_read(part) for part in (index.lower, index.upper, index.step)):
                return False
        elif type(index) is not cst.Index or index.star is not None:
            return False
        elif not (_is_ellipsis(element) or int_value(index.value) is not None):
            return False
    return True


def _root_name(node: cst.BaseExpression) -> str | None:
    """``out`` of ``out``, ``out[0]`` or ``out.buf``: the name whose tensor a write goes into."""
    while type(node) in (cst.Subscript, cst.Attribute):
        node = node.value  # type: ignore[attr-defined]
    return node.value if type(node) is cst.Name else None


def _is_number(value: cst.BaseExpression) -> bool:
    """A number or bool literal (signed): the write fills it, with nothing to broadcast."""
    if type(value) is cst.UnaryOperation:
        return _is_number(value.expression)
    return type(value) in (cst.Integer, cst.Float) or (type(value) is cst.Name and value.value in ("True", "False"))


def _is_slice_value_call(value: cst.BaseExpression) -> bool:
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == SLICE_VALUE_HELPER


class _Active:
    """The one indexed axis of ``x[:, a:b]`` / ``x[..., k]`` and where it is."""

    def __init__(self, dim: int, start: int | None, stop: int | None, index: int | None) -> None:
        self.dim = dim
        self.start = start
        self.stop = stop
        self.index = index  # an integer index instead of a slice


def _bound(node: cst.BaseExpression | None) -> tuple[bool, int | None]:
    if node is None or (type(node) is cst.Name and node.value == "None"):
        return True, None
    value = int_value(node)
    return value is not None, value


def _active_axis(subscript: cst.Subscript) -> tuple[_Active | None, str]:
    """The rewritable form, or None with the reason it is not."""
    elements = list(subscript.slice)
    active = [n for n, e in enumerate(elements) if not _is_bare_colon(e) and not _is_ellipsis(e)]
    if len(active) != 1:
        return None, "several indexed axes" if active else "no indexed axis"
    position = active[0]
    ellipses = [n for n, e in enumerate(elements) if _is_ellipsis(e)]
    if ellipses and ellipses != [0]:
        return None, "an ellipsis not in first place"
    dim = position if not ellipses else position - len(elements)
    element = elements[position].slice
    if type(element) is cst.Index:
        if element.star is not None:
            return None, "a starred index"
        value = int_value(element.value)
        if value is None:
            return None, "an index that is not an integer literal"
        return _Active(dim, None, None, value), ""
    assert type(element) is cst.Slice
    ok_start, start = _bound(element.lower)
    ok_stop, stop = _bound(element.upper)
    ok_step, step = _bound(element.step)
    if not (ok_start and ok_stop and ok_step):
        return None, "slice bounds that are not integer literals"
    if step not in (None, 1):
        return None, "a slice with a step"
    if start is not None and stop is not None and (start < 0) != (stop < 0):
        return None, "slice bounds of different signs (their order depends on the axis size)"
    if start is not None and stop is not None and start > stop:
        return None, "an empty slice (start after stop)"
    if start is None and stop is None:
        return None, "no indexed axis"
    return _Active(dim, start, stop, None), ""


def _index_text(dim: int, item: str) -> str:
    if dim >= 0:
        return ", ".join([":"] * dim + [item])
    return ", ".join(["..."] + [item] + [":"] * (-dim - 1))


class SliceAssign(RuntimeScopeRule):
    # Read through `_MaskProbe` (the mask evidence of `indexing`), on this rule's behalf.
    requires = (TensorEvidence,)
    #: While a called function's return is judged (:meth:`_returns_fresh`): its own calls are not followed.
    _in_callee = False
    info = RuleInfo(
        id="TRT203",
        name="slice-assign",
        summary="`x[:, a:b] = y` / `x[..., k] = v` / `x[idx] = y` on a tensor exports as ScatterND; build it with `torch.cat`",
        doc="""\
What it finds: assignments into part of a tensor in run-time code: `x[:, a:b] = y`,
`x[..., 0] = v`, `img_mask[:, h, w, :] = cnt`, `x[idx] = y`, and their augmented forms
(`x[:, 0] += 1`). Only where the code shows that `x` is a tensor: every assignment of the
name in the function is a torch call (`torch.zeros(...)`, `torch.cat(...)`), a tensor
method (`.clone()`, `.new_zeros(...)`, `.view(...)`) or a call of a function of the file whose
straight-line body returns a new tensor (DaD's `get_grid`), the parameter is annotated
`torch.Tensor`, or `self.x` is registered as a buffer (or assigned from torch) in the
class. Dict and list stores (`out["boxes"] = b`, `xs[i] = v`) never match. A boolean-mask
index is TRT202's (a tensor value) or TRT204's (a number); a list of positions right
after an Ellipsis (`boxes[..., [0, 2]] -= pad`) is TRT344's.

Why it hurts: both exporters (torch 2.13, static and dynamic shapes) turn a write into
part of a tensor into `ScatterND` (dynamo: `ScatterElements` for some integer indices),
fed by a Shape/Range/Expand index subgraph. TensorRT's parser has no ScatterND or
ScatterElements before 8.2; later versions run it as a scatter kernel that serializes the
writes and keeps the index tensors alive, and the guidance reports crashes on such slice
writes. The in-place write is also why the exporter has to model aliasing: a view of `x`
taken earlier sees the change.

What to do: compute the new tensor from pieces, e.g. `x = torch.cat([x[:, :a], y, x[:, b:]], 1)`
(exports as Slice + Expand + Concat), `torch.where` with a mask for scattered positions,
or build the tensor in one go instead of filling a buffer.

The rewrite (unsafe): for one indexed axis with integer-literal bounds and no step,
`x[:, a:b] = y` becomes
`x = torch.cat([x[:, :a], torch.as_tensor(y, dtype=x.dtype, device=x.device).expand_as(x[:, a:b]), x[:, b:]], dim=1)`
and `x[..., k] = v` the same with `x[..., k:k + 1]` and the value unsqueezed at that axis.
The value is converted to `x`'s dtype and broadcast to the slice, as the assignment does;
an empty slice, bounds past the end and negative bounds give the same result.
It rebinds the name instead of writing into the tensor, so it is offered only when:
the target is a plain local name (not a parameter, attribute, or a subscript of a
subscript), every assignment of it in the function creates a new tensor (a torch factory,
`torch.cat`, `.clone()`, `.new_*`), without `requires_grad=`, it is not read between its
creation and the last rewritten write other than through `.shape`/`.size()`/`.dtype`/
`.device` (no view, no `y = x`, no call that may keep it), not read at all in a loop that
rewrites it, not used in a nested function, and not read by the value written (`hist[1:3] =
hist[0:2]` copies from a view that overlaps the target: the original raises or reads the
values being written; any mention of the name withholds the fix, unless the value is computed
anew: arithmetic or an elementwise call such as `boxes[:, 0] = boxes[:, 0].clamp(0, w)`, whose
result has memory of its own). Bounds of different signs (`1:-1`, whose
order depends on the axis size), steps, computed bounds, several indexed axes and index
tensors are reported without a fix.

One form of several indexed axes gets a safe fix of another kind: a non-negative integer literal
among plain names and nothing sliced, `out[b, 0, h, w] = v` (also augmented), as kornia 0.9.0's
ConvQuadInterp3d writes its refined coordinates (`coords_max[b_idx, c_idx, 0, d_idx, h_idx, w_idx] =
...`, `spatial_soft_argmax.py:1128`). PyTorch takes the integer as a `select` and the index
tensors as one advanced index of what is left, and the TorchScript exporter (torch 2.13) refuses
the write: "Only consecutive 1-d tensor indices are supported in exporting aten::index_put", so the
model does not export at all. The literal → `_trt_index_position(0, [b, h, w])`, an inserted helper
that returns the integer itself outside `torch.onnx.export`; while exporting, where every other
index is a 1-d integer tensor, `torch.full_like` of the first one with the position: with every
written axis indexed, the position broadcast to the indices' length names the same elements in the
same order, and the export writes one ScatterND (measured: equal to eager mode in ONNX Runtime at
other batch and spatial sizes, no index at all included). Any other index (a bool mask, a 2-d
index, a number) keeps the integer: the original write. A negative position, a slice, `None` or
an index that is not a plain name is left alone. The ScatterND stays (this finding's point).

Index expressions that a bare `:` stands between, `final[b, :, z, x, y] = feats` (lift-splat-shoot's
voxel pooling writes its pooled features so into a (B, C, Z, X, Y) grid, `src/models.py:237`, and the
LSS-based repositories copy it; PointPillars-style scatters write `canvas[b, :, y, x] = pillars`), fail
the TorchScript export with the same error: PyTorch puts the indexed axes first in the part written,
which the exporter cannot express. The statement → `_trt_index_put_sliced(final, [b, z, x, y], [1],
feats)`, an inserted helper that is the assignment itself outside `torch.onnx.export` (the subscript
rebuilt with `:` at the listed positions: the same objects, so NumPy arrays, masks and indices out of
range behave as before) and, under `torch.jit.script`, the same `index_put_` into a view whose indexed
axes come first. While exporting, where the target is a tensor and every index a 1-d integer tensor,
it moves the indexed axes first (a permutation: the part written is then the same elements in the
same order and shape), writes the value there out of place (one ScatterND) and copies the result back
into the target, which the trace follows as a write of the target itself (measured: both exporters,
equal to eager mode in ONNX Runtime at other numbers of rows, none included). Anything else (an int
among the indices, a mask, consecutive indices) keeps the original write. Offered for a plain
`target[...] = value` whose target is a name or an attribute, whose value is not a number (TorchScript
types the helper's value as a tensor), and where evaluating the value after the target and the indices
cannot be told apart (the value is a local name, or the target and indices only read names, attributes
and literal subscripts such as `geom_feats[:, 3]`).

A number written into slices and index names, `img_mask[:, h, w, :] = cnt` (Swin's shifted-window
attention mask: the detection and segmentation backbones' `BasicLayer.forward`, Video Swin's
`compute_mask` with `[:, d, h, w, :]`, SwinIR's `calculate_mask`, each `h` one of `slice(0, -window)`,
`slice(-window, -shift)`, `slice(-shift, None)`), fails the TorchScript export (torch 2.13) where a
slice is empty at constant sizes (the padded size equals the window: the last stage at 224 px, small
inputs; upstream Swin-Transformer-Object-Detection issue #227): the index_put's shape inference stops
with "minus_one_pos != -1 INTERNAL ASSERT FAILED ... shape_has_zero". For a plain `x[...] = value`
whose value is a number literal or a plain name and whose subscript holds only `:`, `...`, names and
slices with plain bounds, the base is wrapped and the statement keeps its text:
`_trt_slice_fill(img_mask)[:, h, w, :] = cnt`. The inserted helper returns the tensor itself outside
`torch.onnx.export` (and under `torch.jit.script`): the original write, on the same object. While
exporting it returns an object whose item assignment writes `masked_fill_` of a boolean mask built
from `torch.arange` of the tensor's sizes and the slices' bounds (Python's slicing: negative bounds
from the end, `None`, bounds past either end, positive steps), where every element of the subscript
is a slice with int bounds (or `...`) and the value a number (or a 0-d tensor of the tensor's dtype
and device) that `masked_fill_` writes as the assignment does (see `_trt_mask_fill_covers`); any
other index (an int, a tensor, `None`), value, dtype, or a negative start with a step keeps the
original write (measured: both exporters, equal to eager mode in ONNX Runtime at other batch and
spatial sizes). `migrate` applies it where the TorchScript export stops with that error at such a
write, with every other such write of the file (the exporter stops at the first empty slice, so each
round would locate one more).

A plain write of a tensor value into a view (only slices with plain bounds, Ellipsis and integer
literals, `coords[:, :, 0] = torch.arange(d).view(d, 1, 1)`) where the torch.cat rebuild above is
not offered, and whose value does not mention the tensor written (it may be a view of it), gets a
safe fix too: the TorchScript trace records the broadcast of the value to the
slice with the example's sizes as constants, so at any other size the graph expands to the wrong
shape and ONNX Runtime refuses to run it (measured, torch 2.13: "invalid expand shape"). The value →
`_trt_slice_value(value, coords[:, :, 0])`, an inserted helper that returns the value itself outside
`torch.onnx.export`, and while exporting `value.expand_as(slice)`, whose shape the trace takes from
the slice's own sizes: the same values, as the write broadcasts the value to that shape itself. A
value with more axes than the slice (leading size-1 axes the write drops) or a number is left to
the write. `migrate` applies the positions (and the writes through index tensors a `:` stands
between) where the export fails with that error at one of them,
and the broadcasts where ONNX Runtime refuses the Expand made at one of them (not another node
there: a Gather out of bounds is another fix's), each with every finding of the same kind of fix
in that file: the exporter and ONNX Runtime stop at the first, so each round would locate only
one more.
Measured on kornia 0.9.0's quad_interp3d zoo model (`benchmarks/real_zoo19.py`): the positions at
`spatial_soft_argmax.py:1128-1130` with TRT708's `exp2`, and the grid's broadcasts at `:953-955`.

Fix safety: unsafe. Assumptions: `x` is a strided tensor; nothing else holds it (the
conditions above cannot see a reference kept by a function the tensor was passed to
before, such as a list `append`); the value broadcasts to the slice without leading extra
axes (the assignment drops leading size-1 axes of the value, `expand_as` rejects them); the
result's strides are those of `torch.cat` (contiguous), not the original's memory format;
autograd does not refuse the original: a deep copy of a leaf that requires grad is such a
leaf, whose in-place write raises (the rebinding does not), and a write that changes what
the gradient of its own value reads (`x[..., 0] = torch.clamp(x[..., 0], 0, w)`) makes the
original's backward raise (the rebuilt tensor's backward runs).
Values, dtype, shape and gradients of the value are otherwise the same.

TensorRT versions: all. ScatterND does not parse before 8.2; from 8.2 it parses, and the
write stays an in-place scatter that both exporters must track through the graph (the
dynamo exporter turns some forms into ScatterElements). We have not measured its speed in
TensorRT (no TensorRT on our machines): the finding is about the construct, and
`trtcodemod verify` compares the two graphs where TensorRT is installed.""",
        fix=Safety.UNSAFE,
        assumption=(
            "`x` is a strided tensor that nothing else holds, and the value broadcasts to the slice without leading "
            "extra axes"),
        examples=(
            Example(
                "def heads(x, y):\n    out = torch.zeros(4, 6)\n    out[:, 1:3] = y\n    return out\n",
                "def heads(x, y):\n    out = torch.zeros(4, 6)\n"
                "    out = torch.cat([out[:, :1], torch.as_tensor(y, dtype=out.dtype, device=out.device)"
                ".expand_as(out[:, 1:3]), out[:, 3:]], dim=1)\n    return out\n",
                unsafe=True,
            ),
            Example(
                "def head(x):\n    boxes = x.clone()\n    boxes[..., 0] = 0.5\n    return boxes\n",
                "def head(x):\n    boxes = x.clone()\n"
                "    boxes = torch.cat([torch.as_tensor(0.5, dtype=boxes.dtype, device=boxes.device)"
                ".expand_as(boxes[..., 0]).unsqueeze(-1), boxes[..., 1:]], dim=-1)\n    return boxes\n",
                unsafe=True,
            ),
            Example(
                "def window_mask(h_slices, w_slices):\n    img_mask = torch.zeros((1, 8, 8, 1))\n"
                "    cnt = 0\n    for h in h_slices:\n        for w in w_slices:\n"
                "            img_mask[:, h, w, :] = cnt\n            cnt += 1\n    return img_mask\n",
                "def window_mask(h_slices, w_slices):\n    img_mask = torch.zeros((1, 8, 8, 1))\n"
                "    cnt = 0\n    for h in h_slices:\n        for w in w_slices:\n"
                "            _trt_slice_fill(img_mask)[:, h, w, :] = cnt\n            cnt += 1\n    return img_mask\n",
            ),
            Example("def embed(x: torch.Tensor, idx, y):\n    x[idx] = y\n    return x\n"),
        ),
        references=_REFERENCES,
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._bindings: dict[int, Bindings] = {}
        self._class_tensors: dict[int, set[str]] = {}

    # --- evidence -----------------------------------------------------------------------
    def _function_bindings(self) -> Bindings | None:
        function = self.context.function
        if function is None:
            return None
        found = self._bindings.get(id(function))
        if found is None:
            found = Bindings(comprehension_targets=False)
            found.bind_params(function.params)
            visit_readonly(function.body, found)
            self._bindings[id(function)] = found
        return found

    def _annotated_tensor(self, name: str) -> bool:
        return annotated_tensor_parameter(self.context, name)

    def _is_tensor_value(self, value: cst.BaseExpression, fresh_only: bool) -> bool:
        value = strip_parens(value)
        if type(value) is cst.BinaryOperation:
            # arithmetic with a tensor operand is a new tensor (`segments.unsqueeze(1) + offsets[None]`)
            return self._is_tensor_value(value.left, False) or self._is_tensor_value(value.right, False)
        if type(value) is not cst.Call:
            return False
        if type(value.func) is cst.Name and not self._in_callee \
                and not self._bound_here(value.func.value) and self._returns_fresh(value.func.value):
            # DaD's `get_grid(B, n, n)`, RAFT's `coords_grid(b, h, w)`: a function of this file whose one return is
            # a new tensor (bound directly, or through a view of it)
            return True
        names = self.context.qualified_names(value.func)
        if names:
            if fresh_only:
                if "copy.deepcopy" in names:
                    return len(value.args) == 1  # a copy nothing else holds (no memo argument)
                if not any(n in _FRESH_FUNCTIONS for n in names):
                    return False
                return not any(a.keyword is not None and a.keyword.value == "requires_grad" for a in value.args) \
                    and not any(a.star for a in value.args)
            return any(n.startswith(_TENSOR_FUNCTION_PREFIXES) and n not in _NOT_TENSOR_FUNCTIONS
                       and (not n.startswith(_NOT_TENSOR_PREFIXES) or n.startswith("torch.nn.functional."))
                       for n in names)
        func = value.func
        if type(func) is cst.Attribute:
            if type(func.value) is cst.Name and func.value.value in ("np", "numpy", "self", "cls", "math"):
                return False
            if self.context.qualified_names(func.value):
                return False  # a module's function (np.zeros...), not a tensor method
            method = func.attr.value
            if fresh_only:
                if method in _COMPUTING_METHODS:
                    return True
                if method in _OWN_METHODS:
                    # the receiver itself, a converted copy or a view of it: fresh when the receiver is
                    # (arithmetic, `(points - 1).long()`, allocates its result)
                    receiver = strip_parens(func.value)
                    return type(receiver) is cst.BinaryOperation or self._is_tensor_value(receiver, True)
                return method in _FRESH_METHODS and not any(
                    a.keyword is not None and a.keyword.value == "requires_grad" for a in value.args)
            return method in _TENSOR_METHODS
        return False

    def _bound_here(self, name: str) -> bool:
        """Does the function being read bind ``name`` itself (a parameter, an assignment, an import), so that a call
        of it may not be the module's function of that name?"""
        bindings = self._function_bindings()
        return bindings is None or bool(bindings.sites.get(name))

    def _returns_fresh(self, name: str) -> bool:
        """Is ``name`` an undecorated function of this file, bound nowhere else at module level, whose body runs
        straight through (simple statements, a docstring) to ``return <value>``, the value a new tensor: fresh
        itself, or a local name whose last assignment before the return is fresh and which no statement between
        them reads (nothing else keeps it)? Its calls then hand the caller a tensor nothing else holds (DaD's
        ``get_grid``: ``x1_n = torch.stack(...).reshape(...)``, ``return x1_n``). The callee's calls are not
        followed."""
        function = file_function(self.context.module, name)
        if function is None or function.asynchronous is not None:
            return False
        body = body_statements(function)
        if not body or any(type(s) is not cst.SimpleStatementLine or len(s.body) != 1 for s in body):
            return False
        *steps, last = [s.body[0] for s in body]
        if type(last) is not cst.Return or last.value is None:
            return False
        self._in_callee = True  # the callee's own calls are not followed (nor recursion)
        try:
            return self._returns_new(steps, strip_parens(last.value))
        finally:
            self._in_callee = False

    def _returns_new(self, steps: list[cst.BaseSmallStatement], returned: cst.BaseExpression) -> bool:
        """Is ``returned``, after the straight-line ``steps``, a new tensor nothing else holds?"""
        if type(returned) is not cst.Name:
            return self._is_tensor_value(returned, True)
        for position in range(len(steps) - 1, -1, -1):
            step = steps[position]
            if type(step) is cst.Assign and len(step.targets) == 1 and type(step.targets[0].target) is cst.Name \
                    and step.targets[0].target.value == returned.value:
                later = steps[position + 1:]
                return not any(mentions_name(s, returned.value) for s in later) \
                    and self._is_tensor_value(step.value, True)
            if mentions_name(step, returned.value):
                return False  # bound or read some other way before the return
        return False

    def _name_is_tensor(self, name: str) -> bool:
        bindings = self._function_bindings()
        if bindings is None:
            return False
        sites = bindings.sites.get(name)
        if not sites:
            return False
        if any(kind == PARAM for kind, _ in sites) and self.context.function is not None \
                and _rebound_before_writes(self.context.function, name):
            sites = [site for site in sites if site[0] != PARAM]  # the writes see the new value only
        annotated = any(kind == PARAM for kind, _ in sites) and self._annotated_tensor(name)
        return all(
            (kind == PARAM and annotated) or (value is not None and self._is_tensor_value(value, False))
            for kind, value in sites
        )

    def _attribute_is_tensor(self, node: cst.Attribute) -> bool:
        if not (type(node.value) is cst.Name and node.value.value == "self"):
            return False
        cls = self.context.enclosing_class
        if cls is None:
            return False
        names = self._class_tensors.get(id(cls))
        if names is None:
            names = self._class_tensors[id(cls)] = self._tensor_attributes(cls)
        return node.attr.value in names

    def _tensor_attributes(self, cls: cst.ClassDef) -> set[str]:
        names: set[str] = set()
        for node in walk(cls):
            if type(node) is cst.Call and type(node.func) is cst.Attribute \
                    and node.func.attr.value == "register_buffer" and node.args:
                first = node.args[0].value
                if type(first) is cst.SimpleString and isinstance(first.evaluated_value, str):
                    names.add(first.evaluated_value)
            elif type(node) is cst.Assign and len(node.targets) == 1:
                target = node.targets[0].target
                if type(target) is cst.Attribute and type(target.value) is cst.Name \
                        and target.value.value == "self" and self._is_tensor_value(node.value, False):
                    names.add(target.attr.value)
        return names

    def _base_is_tensor(self, base: cst.BaseExpression) -> bool:
        while type(base) is cst.Subscript:
            base = base.value
        if type(base) is cst.Name:
            return self._name_is_tensor(base.value)
        if type(base) is cst.Attribute:
            return self._attribute_is_tensor(base)
        return False

    # --- findings -------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._torch:
            return
        for target in node.targets:
            self._check(node, target.target, node.value, rewritable=len(node.targets) == 1)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._torch:
            self._check(node, node.target, None, rewritable=False)

    def _check(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None,
               rewritable: bool) -> None:
        if type(target) is not cst.Subscript or not self._base_is_tensor(target.value):
            return
        if self._mask_index(target):
            return  # TRT202 / TRT204
        if reported_index(self.context, target) is not None:
            return  # TRT344: a list right after an Ellipsis, whose write ONNX Runtime refuses
        what = "augmented assignment" if value is None else "assignment"
        sliced = _has_slicing(target)
        problem = (f"{what} into part of tensor `{short_code(target.value, 24)}` exports as ScatterND "
                   f"(TensorRT parses ScatterND from 8.2 only)")
        if not sliced:
            self.found(target, f"{problem}; index tensors cannot be rewritten automatically: build the result "
                       "with torch.cat / torch.where / scatter instead of writing into it")
            return
        active, why = _active_axis(target)
        fix = None
        positions = _positions_among_names(target) if active is None else None
        if positions is not None:
            # `out[b, 0, h, w] = v`: the TorchScript exporter cannot write an integer among index tensors.
            indices = cst.List([cst.Element(n) for n in positions[1]])
            replaced = {e: cst.Call(cst.Name(POSITION_HELPER), [cst.Arg(e), cst.Arg(indices)]) for e in positions[0]}
            reason = (f"not rewritten into torch.cat: {why}; the integer position among index tensors also fails "
                      "the TorchScript export (only consecutive 1-d tensor indices): "
                      f"{POSITION_HELPER} makes it a tensor of the indices' length while exporting")
            fix = Fix(replaced, helpers=(POSITION_HELPER,))
        elif active is None and (apart := self._indices_apart_fix(statement, target, value, rewritable)):
            reason, fix = apart
        elif active is None and rewritable and type(statement) is cst.Assign and value is not None \
                and _slice_fill_form(target, value):
            # `img_mask[:, h, w, :] = cnt`: the statement keeps its text, its base wrapped; an empty slice
            # there stops the TorchScript exporter's shape inference, a masked_fill_ exports at any size.
            reason = (f"not rewritten into torch.cat: {why}; an empty slice there also stops the TorchScript "
                      f"export (shape inference of the index_put): {SLICE_FILL_HELPER} writes the number as a "
                      "masked_fill_ while exporting")
            call = cst.Call(cst.Name(SLICE_FILL_HELPER), [cst.Arg(target.value)])
            fix = Fix({target.value: call}, helpers=(SLICE_FILL_HELPER,))
        elif active is None:
            reason = f"not rewritten: {why}"
        elif not rewritable or value is None:
            reason = "not rewritten: only a plain `x[...] = value` is"
        elif type(target.value) is not cst.Name:
            reason = ("not rewritten: the target is an attribute or a view, which a rebinding would not "
                      "update; build the new tensor and assign it where it belongs")
        elif mentions_name(value, target.value.value) and not self._computed_value(value):
            reason = (f"not rewritten: the value reads `{target.value.value}` itself and may be a view of it "
                      "(an overlapping in-place copy raises or reads the values being written; the "
                      "concatenation would not)")
        else:
            blocker = self._alias_blocker(target.value.value)
            if blocker:
                reason = f"not rewritten: {blocker}"
            else:
                reason = "rebuild it with torch.cat (fix needs --unsafe: it rebinds the name)"
                fix = Fix({statement: self._replacement(statement, target.value, active, value)},
                          safety=Safety.UNSAFE)
        root = _root_name(target.value)
        if fix is None and value is not None and rewritable and _basic_slicing(target) and root is not None \
                and not mentions_name(value, root) and not _is_number(value) and not _is_slice_value_call(value):
            # The write broadcasts the value to the slice: the TorchScript trace bakes that broadcast's sizes.
            reason += (f"; {SLICE_VALUE_HELPER} expands the value to the slice while exporting (the trace would "
                       "broadcast it to the example's sizes)")
            call = cst.Call(cst.Name(SLICE_VALUE_HELPER), [cst.Arg(value), cst.Arg(target)])
            fix = Fix({value: call}, helpers=(SLICE_VALUE_HELPER,))
        self.found(target, f"{problem}; {reason}", fix)

    def _indices_apart_fix(self, statement: cst.CSTNode, target: cst.Subscript, value: cst.BaseExpression | None,
                           rewritable: bool) -> tuple[str, Fix] | None:
        """``final[b, :, z, x, y] = feats`` → ``_trt_index_put_sliced(final, [b, z, x, y], [1], feats)``: the
        reason and the safe fix, where the subscript has index expressions a ``:`` stands between."""
        apart = _indices_apart(target)
        if apart is None or not rewritable or value is None or type(statement) is not cst.Assign or _is_number(value):
            return None  # TorchScript types the helper's value as a tensor: a number stays the original write
        indices, sliced = apart
        if not _plain_reference(target.value):
            return None  # a write through an indexed view: the copy back would go into a temporary
        # Python evaluates the value first, then the target and its indices; the call evaluates the value last.
        # Only code with effects or errors could tell, so one side must run none: the target and the indices
        # only read names (`geom_feats[:, 3]`), or the value is a local name, which no call can rebind.
        if not (type(strip_parens(value)) is cst.Name
                or all(plain_read(i) for i in indices) and plain_read(target.value)):
            return None
        call = cst.Call(cst.Name(SLICED_HELPER), [
            cst.Arg(strip_parens(target.value), comma=_comma()),
            cst.Arg(cst.List([cst.Element(i) for i in indices]), comma=_comma()),
            cst.Arg(cst.List([cst.Element(cst.Integer(str(p))) for p in sliced]), comma=_comma()),
            cst.Arg(value),
        ])
        reason = ("index tensors a `:` stands between also fail the TorchScript export (only consecutive 1-d "
                  f"tensor indices): {SLICED_HELPER} writes the indexed axes moved first while exporting")
        return reason, Fix({statement: cst.Expr(call, semicolon=statement.semicolon)}, helpers=(SLICED_HELPER,))

    def _computed_value(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is a tensor computed anew, never a view of what it reads.

        ``boxes[..., 0] = boxes[..., 0].clamp(0, w)`` reads the tensor it writes into, but the
        arithmetic or the elementwise call allocates its result before the write: the write
        copies from memory of its own, so no overlap can raise or be read half-written, and
        the concatenation computes the same values from the same (unchanged) tensor."""
        value = strip_parens(value)
        if type(value) is cst.BinaryOperation:
            return True  # arithmetic on a tensor always allocates its result
        if type(value) is cst.UnaryOperation:
            return type(value.operator) in (cst.Minus, cst.BitInvert)  # `+t` returns `t` itself
        if type(value) is not cst.Call:
            return False
        names = self.context.qualified_names(value.func)
        if any(a.keyword is not None and a.keyword.value == "out" for a in value.args):
            return False  # `torch.clamp(x[:, 0], 0, 1, out=x[:, 0])` writes into the view itself
        if names:
            return any(n in _COMPUTING_FUNCTIONS for n in names)
        return type(value.func) is cst.Attribute and value.func.attr.value in _COMPUTING_METHODS \
            and not self.context.qualified_names(value.func.value)

    def _mask_index(self, target: cst.Subscript) -> bool:
        probe = _MaskProbe(self.context)
        for element in target.slice:
            index = element.slice
            if type(index) is cst.Index and index.star is None and probe.evidence(index.value) != NONE:
                return True
        return False

    # --- may the name be rebound? -----------------------------------------------------------
    def _alias_blocker(self, name: str) -> str | None:
        bindings = self._function_bindings()
        function = self.context.function
        if bindings is None or function is None:
            return "it is not inside a function"
        sites = bindings.sites.get(name, [])
        if any(kind == PARAM for kind, _ in sites) and _rebound_before_writes(function, name):
            sites = [site for site in sites if site[0] != PARAM]  # the caller's tensor is never written
        if any(kind != "assign" for kind, _ in sites):
            return f"`{name}` is a parameter or bound other than by a plain assignment (the caller may hold it)"
        if not all(value is not None and self._is_tensor_value(value, True) for _, value in sites):
            return (f"`{name}` is not always a new tensor here (a view or another object may share it); "
                    "rebinding would leave that one unchanged")
        return _use_blocker(function, name)

    def _replacement(self, statement: cst.Assign, name: cst.Name, active: _Active,
                     value: cst.BaseExpression) -> cst.Assign:
        x = name.value
        torch_name = self.context.torch_name()
        value_code = self._code(strip_parens(value))
        converted = f"{torch_name}.as_tensor({value_code}, dtype={x}.dtype, device={x}.device)"
        dim = active.dim
        if active.index is not None:
            k = active.index
            start, stop = k, (k + 1 if k != -1 else None)
            middle = f"{converted}.expand_as({x}[{_index_text(dim, str(k))}]).unsqueeze({dim})"
        else:
            start, stop = active.start, active.stop
            bounds = f"{'' if start is None else start}:{'' if stop is None else stop}"
            middle = f"{converted}.expand_as({x}[{_index_text(dim, bounds)}])"
        pieces = []
        if start is not None and start != 0:
            pieces.append(f"{x}[{_index_text(dim, f':{start}')}]")
        pieces.append(middle)
        if stop is not None:
            pieces.append(f"{x}[{_index_text(dim, f'{stop}:')}]")
        new_value = cst.parse_expression(f"{torch_name}.cat([{', '.join(pieces)}], dim={dim})")
        return statement.with_changes(targets=[cst.AssignTarget(target=cst.Name(x))], value=new_value)

    @staticmethod
    def _code(node: cst.CSTNode) -> str:
        return cst.Module(body=[]).code_for_node(node)


def _rebinds(statement: cst.BaseStatement, name: str) -> bool:
    """Whether ``statement`` is a plain ``name = value`` line (one target)."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return type(small) is cst.Assign and len(small.targets) == 1 \
        and type(small.targets[0].target) is cst.Name and small.targets[0].target.value == name


def _writes_into(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` holds a ``name[...] = v`` / ``name[...] op= v`` statement."""
    for sub in walk(node):
        if type(sub) in (cst.Assign, cst.AugAssign):
            targets = [t.target for t in sub.targets] if type(sub) is cst.Assign else [sub.target]
            if any(type(t) is cst.Subscript and type(t.value) is cst.Name and t.value.value == name
                   for t in targets):
                return True
    return False


def _rebound_before_writes(function: cst.FunctionDef, name: str) -> bool:
    """Whether the function body rebinds the parameter ``name`` on a line of its own (not in a
    branch or a loop) before anything writes into it: every write then reaches that new value,
    never the caller's tensor (``coords = coords.clone()`` then ``coords[..., 0] = ...``)."""
    for statement in function.body.body:
        if _rebinds(statement, name):
            return True
        if _writes_into(statement, name):
            return False
    return False


def _use_blocker(function: cst.FunctionDef, name: str) -> str | None:
    """Why ``name`` may be seen by something else between its writes, or None."""
    return _UseScan(function, name).blocker()


class _UseScan:
    """One walk over a function recording where ``name`` is written through a subscript
    and where it is read (a class, not a closure that calls itself: that would be a
    reference cycle keeping the parsed module alive until a full garbage collection)."""

    def __init__(self, function: cst.FunctionDef, name: str) -> None:
        self.function, self.name = function, name
        self.writes: list[int] = []       # positions of `name[...] = ...` statements
        self.loads: list[int] = []        # positions of other reads that may alias
        self.loop_stack: list[cst.CSTNode] = []
        self.loops_with_writes: set[int] = set()
        self.loops_with_loads: set[int] = set()
        self.position = 0

    def blocker(self) -> str | None:
        name = self.name
        for statement in self.function.body.body:
            problem = self.visit(statement, False)
            if problem:
                return problem
            if _rebinds(statement, name):
                # a new tensor from here on (outside branches and loops): what read or kept the
                # previous one never sees the writes into this one
                problem = self.read_before_write()
                if problem:
                    return problem
                self.writes, self.loads = [], []
        problem = self.read_before_write()
        if problem:
            return problem
        if self.loops_with_writes & self.loops_with_loads:
            return f"`{name}` is read in the loop that writes into it"
        return None

    def read_before_write(self) -> str | None:
        if self.writes and any(load < self.writes[-1] for load in self.loads):
            return (f"`{self.name}` is read before its last partial write (a view or another reference taken "
                    "there would not see the new tensor)")
        return None

    def visit(self, node: cst.CSTNode, in_write: bool) -> str | None:
        name = self.name
        self.position += 1
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef) and node is not self.function:
            if any(type(n) is cst.Name and n.value == name for n in walk(node)):
                return f"`{name}` is used in a nested function, which may keep it"
            return None
        is_loop = isinstance(node, _LOOPS)
        if is_loop:
            self.loop_stack.append(node)
        try:
            if type(node) in (cst.Assign, cst.AugAssign) and not in_write:
                targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
                if any(type(t) is cst.Subscript and type(t.value) is cst.Name and t.value.value == name
                       for t in targets):
                    self.writes.append(self.position)
                    self.loops_with_writes.update(id(loop) for loop in self.loop_stack)
                    for child in _children(node):
                        problem = self.visit(child, True)
                        if problem:
                            return problem
                    return None
            if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == name \
                    and node.attr.value in _HARMLESS_ATTRIBUTES:
                return None
            if type(node) is cst.Name and node.value == name and not in_write:
                self.loads.append(self.position)
                self.loops_with_loads.update(id(loop) for loop in self.loop_stack)
                return None
            for child in _children(node):
                problem = self.visit(child, in_write)
                if problem:
                    return problem
            return None
        finally:
            if is_loop:
                self.loop_stack.pop()


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    found = children(node)
    if type(node) is cst.Assign:
        # the binding targets `x = ...` are not reads
        found = [c for c in found if not (type(c) is cst.AssignTarget and type(c.target) is cst.Name)]
    return found


class _MaskProbe(_MaskRule):
    """The boolean-mask evidence of ``indexing``, usable from another rule."""

    info = None  # type: ignore[assignment]


class MaskFillAssign(_MaskRule):
    info = RuleInfo(
        id="TRT204",
        name="mask-fill-assign",
        summary="`t[mask] = 0.0` exports as NonZero + ScatterND (dynamo exporter); fill through a helper that exports as Where",
        doc="""\
What it finds: a number literal written through a boolean mask, `t[mask] = 0`,
`scores[scores < thr] = 0.0`, `x[torch.isnan(x)] = float("-inf")`, with the same evidence
that the index is a mask as TRT201/TRT202 (a comparison, a bool-valued call, a local name
assigned from one; a mask-like name alone makes the fix unsafe). A tensor value is
TRT202's.

Why it hurts: measured with torch 2.13, the TorchScript exporter already turns this into a
single `Where`, but the dynamo exporter emits `NonZero` + `ScatterND` (plus Transpose,
ReduceSum, Expand): a data-dependent scatter that TensorRT before 8.5 cannot build
(NonZero) and later versions run slowly. `t.masked_fill_(mask, v)` exports as one `Where`
with both exporters, but it is not the same operation: `t[mask]` indexes `t`'s leading
axes (a mask of shape (N,) on boxes (N, 4) fills rows), while `masked_fill_` broadcasts the
mask from the trailing axes (a different result, or an error).

The rewrite: `t[mask] = 0.0` → `_trt_mask_fill_float(t, mask, 0.0)` (`_trt_mask_fill_int`
for int literals), an inserted helper. Outside `torch.onnx.export` it runs `t[mask] = v`
itself. While exporting, when `t` is a tensor, `mask` a bool tensor whose shape is that of
`t`'s leading axes and the value fits `t`'s dtype, it calls
`t.masked_fill_(mask[..., None, ...], v)`: the same in-place write, which exports as
`Where`. Where that `Where` would not compute the assignment in ONNX Runtime the helper
keeps the assignment while exporting too: bool, int16 and bfloat16 targets (no `Where`
kernel), and a `-0.0` fill (the dynamo exporter's constant loses its sign). The target is
not rebound, so attributes (`self.buf[m] = 0`) and names bound to views are written
exactly as before. Not rewritten (reported only): `True`/`False` values, a mask over inner
axes after bare `:` (`scores[:, ~valid] = -1`: the helpers take leading axes only), and a target that
is itself an indexed view or a call's result (`gt[..., 2][m] = 0`, `x[0][m] = v`): the
TorchScript exporter keeps such a write only when the view and the write are one
expression, which a helper call would split.

Fix safety: safe when the code shows the index is a mask: eager, `torch.jit.script`,
`torch.fx`, `torch.compile` and `torch.export` run the assignment itself (same values,
dtype, aliasing, gradients, errors; NumPy arrays too). Both exported graphs compute the
same values as the original's, in ONNX Runtime too. In eager mode the helper costs a call
and two flag checks, about 0.4-0.5 µs (`python benchmarks/helpers.py --no-onnx --match
small`): 1.25x the assignment on 8 elements, 1.12x on 300x4 rows, within 10% from a few
µs of work. With only a mask-like name as
evidence the fix needs `--unsafe`.

TensorRT versions: all, when exporting with the dynamo exporter (the TorchScript
exporter's graph is unchanged: a `Where` either way).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def clean(scores: torch.Tensor, thr):\n    scores[scores < thr] = 0.0\n    return scores\n",
                "def clean(scores: torch.Tensor, thr):\n    _trt_mask_fill_float(scores, scores < thr, 0.0)\n    return scores\n",
            ),
            Example(
                "def clip(boxes: torch.Tensor, labels):\n    ignore = labels == -1\n    boxes[ignore] = 0\n    return boxes\n",
                "def clip(boxes: torch.Tensor, labels):\n    ignore = labels == -1\n    _trt_mask_fill_int(boxes, ignore, 0)\n    return boxes\n",
            ),
            Example(
                "def drop(x: torch.Tensor, valid_mask):\n    x[valid_mask] = -1.0\n    return x\n",
                "def drop(x: torch.Tensor, valid_mask):\n    _trt_mask_fill_float(x, valid_mask, -1.0)\n    return x\n",
                unsafe=True,
            ),
            Example("def flags(x: torch.Tensor):\n    x[x > 0] = True\n    return x\n"),
            Example("def clip(boxes: torch.Tensor):\n    b = boxes.clone()\n    b[..., 2][b[..., 2] < 0] = 0.0\n"
                    "    return b\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.masked_fill_.html",
            "https://onnx.ai/onnx/operators/onnx__Where.html",
            _OPERATORS,
        ),
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if not _is_plain_scalar(node.value) or not self._active():
            return
        for target in node.targets:
            target = target.target
            if type(target) is not cst.Subscript:
                continue
            index = _sole_mask(target)
            if index is None:
                self._report_inner_mask(target)
                continue
            level = self.evidence(index)
            if level == NONE or not self._tensor_involved(target.value, index):
                continue  # `weights[weights == 0] = 1` on a NumPy array looks the same
            self._report(node, target, index, level)

    def _report_inner_mask(self, target: cst.Subscript) -> None:
        """`scores[:, ~valid] = -1`: a mask over inner axes after bare `:`, reported without a fix
        (the helpers take a mask over the leading axes only; `masked_fill_` needs the mask
        unsqueezed where the `:` are, which the code does not show)."""
        elements = list(target.slice)
        last = elements[-1].slice
        if len(elements) < 2 or not all(_is_bare_colon(e) for e in elements[:-1]) \
                or type(last) is not cst.Index or last.star is not None:
            return
        if self.evidence(last.value) == NONE or not self._tensor_involved(target.value, last.value):
            return
        self.report(target, "a number written through a boolean mask over inner axes exports as NonZero + "
                    "ScatterND with the dynamo exporter; not rewritten: the helper takes a mask over the leading "
                    "axes only (write `t.masked_fill_(m, v)` with `m` widened to t's rank: a leading axis per `:`, "
                    "a trailing one per axis the mask leaves)")

    def _report(self, node: cst.Assign, target: cst.Subscript, mask: cst.BaseExpression, level: int) -> None:
        message = ("a number written through a boolean mask exports as NonZero + ScatterND with the dynamo "
                   "exporter")
        helper = _helper_for(node.value)
        if helper is None or len(node.targets) != 1:
            self.report(target, f"{message}; use `t.masked_fill_(mask, v)` when the mask has t's shape "
                        "(not rewritten: a bool value or a chained assignment)")
            return
        if not _plain_reference(target.value):
            # `b[..., 2][m] = 0`: the TorchScript exporter keeps a write through an indexed view
            # only when the view and the write are one expression; a helper call splits them.
            self.report(target, f"{message} (not rewritten: the target `{short_code(target.value, 30)}` "
                        "is an indexed view, whose write the TorchScript exporter keeps only in this form)")
            return
        value = node.value
        call = cst.Call(
            func=cst.Name(helper),
            args=[
                cst.Arg(value=strip_parens(target.value), comma=_comma()),
                cst.Arg(value=strip_parens(mask), comma=_comma()),
                cst.Arg(value=value),
            ],
        )
        replacement = cst.Expr(value=call, semicolon=node.semicolon)
        if level == STRONG:
            safety = Safety.SAFE
            text = f"{message}; fill through `{helper}` (a single Where in the exported graph)"
        else:
            safety = Safety.UNSAFE
            text = (f"{message}; `{short_code(mask, 40)}` looks like a mask by its name only "
                    f"(fix with `{helper}` needs --unsafe)")
        self.report(target, text, Fix({node: replacement}, safety=safety, helpers=(helper,)))


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _sole_mask(target: cst.Subscript) -> cst.BaseExpression | None:
    if len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if type(index) is cst.Index and index.star is None:
        return index.value
    return None


def _plain_reference(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes (`t`, `self.buf`): not an indexed view or a call's result."""
    node = strip_parens(node)
    while type(node) is cst.Attribute:
        node = strip_parens(node.value)
    return type(node) is cst.Name


def _helper_for(value: cst.BaseExpression) -> str | None:
    """Which helper takes the literal: float or int (TorchScript types the value); None for bools."""
    node = value
    while type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        node = node.expression
    if type(node) is cst.Float:
        return "_trt_mask_fill_float"
    if type(node) is cst.Integer:
        return "_trt_mask_fill_int"
    if type(node) is cst.Call and type(node.func) is cst.Name:
        return {"float": "_trt_mask_fill_float", "int": "_trt_mask_fill_int"}.get(node.func.value)
    return None


RULES = (SliceAssign, MaskFillAssign)
