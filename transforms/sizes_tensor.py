"""A tensor built from a list of sizes: the TorchScript trace copies them into a constant (TRT716).

``spatial_shapes = torch.as_tensor([(h, w) for each level])`` (Deformable DETR's spatial
shapes) reads every traced size into a Python number; the graph keeps the example's sizes.
The rule finds ``torch.as_tensor(X, ...)`` and ``torch.tensor(X, ...)`` where ``X`` is a
list/tuple display of sizes, a list comprehension of them, or a local list that starts empty
and only gets sizes appended, and calls ``_trt_sizes_tensor`` (:mod:`trtcodemod.helpers.sizes_tensor`) instead.
What a size is comes from :mod:`trtcodemod.transforms._size_facts`.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, code_of, method_call, plain_read, short_code, strip_parens, \
    variable_names
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import scope_bindings
from trtcodemod.transforms._size_facts import INTEGER_OPERATORS, NUMBER_AS_TENSOR_FAILURES, TS_PITFALLS
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_sizes_tensor"
#: ``torch.tensor([s] * n)``: a list of sizes repeated by a size (each sample's length for a batch of ``n``).
REPEATED_HELPER = "_trt_sizes_repeated"
#: ``torch.Tensor(data)`` of a list display: the legacy constructor, data of the default float dtype.
LEGACY_HELPER = "_trt_sizes_legacy_tensor"
_CONSTRUCTORS = ("torch.as_tensor", "torch.tensor")
#: ``+ - * / //``: the operators of a number computed from sizes with a true division (``(w - 1) / 2.``).
_NUMBER_OPERATORS = (*INTEGER_OPERATORS, cst.Divide)
#: Operators a tuple does not take: an operand of one is a number (``n - 1``, ``2.0 / n``).
_NUMBER_ONLY_OPERATORS = (cst.Subtract, cst.Divide, cst.FloorDivide)
#: TRT712's helpers for ``max(a, b)`` and ``min(a, b)`` of sizes: the same number, kept in the graph.
_EXTREME_HELPERS = frozenset({"_trt_size_max", "_trt_size_min"})
#: The level of a literal in :meth:`SizesTensor._number_level`: not a size, but may stand beside one.
_LITERAL = 3
#: The keywords the helper takes; a call with any other (``requires_grad=``...) is left alone.
_KEYWORDS = frozenset({"dtype", "device"})

#: How sure the sizes are: from a tensor shown to be one, or "loose" (``o.shape`` of an ``o``
#: not shown to be a tensor), which counts only where the observed export warned at the call.
SIZE, LOOSE = 2, 1
#: A display of number literals only (``[0.0, 0.0, 1.0]``): it may sit beside rows of sizes, but
#: is no nest of sizes itself.
_LITERALS = 3
#: What a number computed from sizes may be made with; a ``/`` makes it a float.
_NUMBER_OPERATORS = (*INTEGER_OPERATORS, cst.Divide)


class SizesTensor(SizeRule):
    needs_text = (b"tensor", b"range", b"Tensor")
    info = RuleInfo(
        id="TRT716",
        name="sizes-tensor",
        summary="`torch.as_tensor`/`torch.tensor` of a list of sizes: the TorchScript export bakes the sizes",
        doc="""\
What it finds, in forward code: `torch.as_tensor(X, ...)` and `torch.tensor(X, ...)` where
`X` is a list or tuple display of tensor sizes (`[(h1, w1), (h2, w2)]`, with `h, w =
x.shape[2:]`), or a local name bound to an empty list (`shapes = []`) that only ever gets
sizes appended (`shapes.append((h, w))`, also through a name bound to such a tuple) before
the call, or a list comprehension whose items are such displays: read from an item of a list of
sizes (`[[s[1], s[0]] for s in shapes]`, with `+ - * //` and integer literals) or from an item
of any other list (`[f.shape[-2:] for f in feats]`, `[(f.size(2), f.size(3)) for f in feats]`,
`[list(f.shape[-2:]) for f in feats]`) or of a parameter not rebound in the function (a list
of sizes a caller hands down: `[[shape[1], shape[0]] for shape in spatial_shapes_list]` in
Mask2Former's deformable attention), the latter two loose sizes as below. A comprehension over a tensor's shape
itself gives one size per item, also rounded (`[int(round(s / self.scale)) for s in x.shape[2:]]`, then
`torch.tensor(shape)`: torchreg's pyramid, its sigmas divided by the new sizes). An item of a list a
caller hands down is one size itself where it stands as a number: an operand of `-`, `/` or `//`, or
an argument of the built-in `max(a, b)` / `min(a, b)` (a tuple there raises), with the larger or
smaller of two such numbers one too: pyniftireg 0.1.1's `to_grid_sample` (`pyniftireg/grid.py:43`)
scales voxel coordinates by `torch.tensor([2.0 / max(n - 1, 1) for n in shape], dtype=coords.dtype,
device=coords.device)` of the image's sizes (loose: taken where the export warned at the call); the
rewrite writes such a `max`/`min` as TRT712's `_trt_size_max`/`_trt_size_min` in the same fix, so the
choice (a one-voxel axis keeps the factor 2) stays in the graph with the list. What a size is is
decided as for TRT711–TRT715 (`x.shape[i]`, `x.size(i)`, names
unpacked from `x.shape`, arithmetic on those). In a display, a size may also be divided or
scaled: `+ - * / // %` of sizes with integer and float literals (`w / 2.0`, `h * 0.8`, `(h - 1) / 2`),
and number literals may stand beside the sizes, also as whole rows (`[0.0, 0.0, 1.0]`); the
same holds for sizes read from a comprehension's or a loop's item (`[s[1] / 2.0 for s in shapes]`): a
camera's intrinsics built from the image size, `torch.tensor([[w * 0.8, 0.0, w / 2.0], [0.0,
h * 0.8, h / 2.0], [0.0, 0.0, 1.0]])`, which kornia's depth warp and undistortion take (a display
of literals only is no nest of sizes). A display of sizes repeated by a size, `[x.shape[2]] * x.shape[0]`
or `n * [(h, w)]` (NanoCodec's encoder: each sample's encoded length, `torch.tensor([x.shape[2]] *
x.shape[0], dtype=torch.int32)`), becomes `_trt_sizes_repeated(display, count, ...)`: `torch.as_tensor(display *
count, ...)` outside a trace, and while tracing the sizes stacked and repeated by the traced count along the first
axis (Python's repetition read the example's batch; a count of 0 with no dtype given makes the float32 of an empty
list in eager mode, the sizes' dtype in the graph). So does a display of number literals and indices of enclosing
`for i in range(...)` loops repeated by a size (pytorch-retinanet's class column, `torch.tensor([i] *
anchors_nms_idx.shape[0])`, which distinanet 1.0.1 keeps): the numbers are the same in every graph, the count is
what the list bakes. A size of an object not shown to be a tensor
(the loop variable in `for source in sources: h, w = source.shape[2:]`) counts only where the
observed export warned at the call (inside `migrate`, or with `--facts`). Deformable DETR
(transformers) builds its `spatial_shapes` this way.

A display may also hold names a `for` loop unpacks from each item of such a list, with `+ - *
//` and integer literals: `for lvl, (h, w) in enumerate(spatial_shapes):` (the built-in
`enumerate`, also with `start=`), `for (h, w) in shapes:`, or the item whole (`for shape in
shapes: torch.tensor(shape)`), where the list is a local list of sizes as above, or a parameter
(a list a caller hands down: loose sizes, counted only where the export warned at the call). A
parameter that is only given its default under `if spatial_shapes is None:` (the anchors made
for `eval_spatial_size` when no list is given) still counts as handed down. The target is one
name or a flat tuple of names; a name the loop body rebinds is no longer the item's size, and
the index `enumerate` counts is not one. The anchor generators of the RT-DETR family build
their normaliser this way: D-FINE's, DEIM's and easydetect's `_generate_anchors`
(`(grid_xy.unsqueeze(0) + 0.5) / torch.tensor([w, h], dtype=dtype)`, easydetect 0.7.10's
`nn/decoder.py:742`), lyuwenyu's RT-DETR (`valid_WH = torch.tensor([w, h]).to(dtype)` in
`rtdetr_decoder.py`) and transformers' OmDet-Turbo (`torch.tensor([width, height], dtype=dtype,
device=device)`, `modeling_omdet_turbo.py:1215`); transformers' D-FINE scales its "discrete"
deformable sampling the same way (`torch.tensor([[width, height]], device=value.device)` in the
loop over `value_spatial_shapes`, `modeling_d_fine.py:190`). The trace keeps `torch.arange(h)` and `h * w`
following the input but divides by the example's `[w, h]`: every anchor is wrong at another size.

An item may also be a number computed from sizes with a true division or a float literal, with
`+ - * / //`, integer and float literals and `int` parameters, and a float literal may stand beside
the sizes: GMFlow's `normalize_coords` (haofeixu/gmflow, `gmflow/geometry.py:37`) divides sampling
coordinates by `torch.Tensor([(w - 1) / 2., (h - 1) / 2.])`, SuperPoint's descriptor sampling
(magicleap/SuperGluePretrainedNetwork, `models/superpoint.py:84`) by `torch.tensor([(w*s - s/2 -
0.5), (h*s - s/2 - 0.5)])`. In such a number a parameter of the function not rebound there counts
as a size a caller hands down (GMFlow's `h, w`), loose, so only where the export warned at the call;
so it does in integer arithmetic too: XFeat's sparse sampler (verlab/accelerated_features,
`modules/interpolator.py:19`) divides keypoints by `torch.tensor([W-1, H-1], device=x.device,
dtype=x.dtype)` of the image size its caller hands down.
The legacy constructor given one list or tuple display, `torch.Tensor([...])`, is taken as
`torch.tensor` of the default float dtype (given sizes, `torch.Tensor(b, h, w)`, it is TRT349's).
`t.new_tensor(X)` (`t` a plain name or attribute) is taken as `torch.tensor(X, dtype=t.dtype,
device=t.device)`, the dtype and device it gives by default written out. `X` may also be a whole parameter
of the function not rebound there, where the export converted a traced tensor into a Python number at the call
(not only the warning every `torch.tensor` result gives while tracing, which a configuration number gets too): dsntnn's
`normalized_to_pixel_coordinates(coords, size)` (`dsntnn/__init__.py:311`) copies the size its caller hands
down, `images.shape[-2:]`, by `coords.new_tensor(size).flip(-1)`.

It also finds an index built in Python from one size: `x[list(range(x.shape[0])), k]`,
`x[range(n)]` or `x[tuple(range(n))]` (also through a name the function binds once to such a range and whose
bounds it never rebinds: lafhterlearn's decoder binds `batch_indices = range(batch_size)` and writes
`y_hat_prev[batch_indices, top] = 1.0` at each step; the index becomes `torch.arange(batch_size)`, the name
keeps its range), with `n` a size of a tensor, or a size of the very value
indexed, whatever made it: `times[list(range(times.shape[0])), ki]` in kornia's DeFMO, with
`times` a buffer repeated to the batch.

Why it hurts: under the TorchScript exporter each size is a traced 0-d tensor, but
`torch.as_tensor` and `torch.tensor` copy the Python list into a new tensor, reading every
value: the graph keeps the example's sizes as a constant (a `TracerWarning` says "results
are registered as constants"), and everything computed from it (level start indices, offset
normalisers) is wrong at another input size. Measured with torch 2.13: a toy model that
exports feature sizes at 32x32 gives the 32x32 sizes at 64x48 too. The dynamo exporter keeps
sizes symbolic itself.

Indexing copies a list of positions into a tensor the same way, and `range` reads the size into a
Python int first: no TracerWarning at all, and the graph gathers the example's positions (measured
with torch 2.13: DeFMO traced at batch 1 gathers row 0 only, and at batch 2 ONNX Runtime refuses
the `Concat` of that one row with the batch of the latent, two lines below).

The rewrite: the call → `_trt_sizes_tensor(X, dtype=..., device=...)` (the same arguments);
`torch.Tensor(X)` → `_trt_sizes_legacy_tensor(X)` (`_trt_sizes_tensor` with the default float dtype).
The index → `torch.arange(n)`: an int64 tensor of the same positions, so the same advanced
indexing (a copy, of the same shape and values; `x[range(n)]` too); only a single bound that is
a size itself, since `torch.arange(a, b)` raises where `range(a, b)` is empty backwards and
`torch.arange(n - 2)` where the bound is negative.
Outside a trace the helper is `torch.as_tensor(X, dtype=dtype, device=device)`; while
`torch.jit.trace` runs (the TorchScript exporter) it builds the tensor with nested
`torch.stack` of `torch.as_tensor` of each size, which the trace records from the sizes' own
nodes, so the graph follows the input. While tracing, a size divided or scaled (`w / 2.0`) is
a 0-d float32 tensor: the helper infers as_tensor's dtype (the default float dtype where any
number is a Python float or a floating size, `int64` otherwise). Anything that is not a
non-empty, uniform nest of lists/tuples of ints, floats and traced sizes (0-d `int64`, or of the
default float dtype) takes the original call (bools, a float64 0-d tensor, an empty list, a
ragged list).

Fix safety: unsafe. Assumptions: `X` is a nested list/tuple of sizes (and numbers computed
from them) with a uniform structure, a number computed with a true division rounds to the same
float32 value computed in float32 while tracing as in Python's double (exact for halves and
quarters of sizes, as GMFlow's and SuperPoint's), and `dtype` is given (integral or floating: the anchors' `dtype=torch.float32`) or
left to infer (`torch.tensor` and `torch.as_tensor` of such a list are the same new tensor, `int64`
when inferred, so both become the one helper; while tracing, each traced size is converted to the
dtype, as `torch.tensor` converts the number; a size scaled by a float is computed in float32
while tracing, where eager Python computes in double and rounds once: measured with torch 2.13,
`w * 0.8` differs by one float32 rounding at some sizes (1535.2 at w = 1919: 1.2e-4), halves and
literals are exact); for an index, that the
value indexed is a `torch.Tensor` (an object with its own `__getitem__` may treat a tensor index
otherwise than a list). Outside a trace the
helper is `torch.as_tensor` itself, so eager, `torch.fx`, `torch.compile`, `torch.export` and
the dynamo exporter see the original (measured: `torch.export` raises the same error for
dynamic sizes, as both specialize them). `torch.jit.script` cannot compile a caller of the
helper (its arguments are untyped; measured: a scripted `torch.as_tensor([h, w])` runs, the
rewrite does not compile). A list name is followed through its own function only: a list also changed
elsewhere (passed to a function that appends to it) is outside what the rule sees.
`migrate` tries it as a candidate where the export warns of a traced constant at the call, or
where ONNX Runtime refuses, on an input set at other sizes, a node made in the same file (the
index's silent bake), kept only when the verification (an input set at other sizes) finds the
rewrite equivalent.
Measured on transformers 5.24.0's Deformable DETR (`benchmarks/real_zoo.py`): applied at
`modeling_deformable_detr.py:1431`, the export goes from not faithful to faithful, exit 1 → 0;
on its Mask2Former (`benchmarks/real_zoo4.py`), applied at `modeling_mask2former.py:1000` (the
list handed down) and `:1353` with TRT717's four Swin pads, exit 1 → 0; on kornia 0.9.0's DeFMO
(`benchmarks/real_zoo16.py`), the range index at `kornia/feature/defmo.py:358`, exit 1 → 0; on
pyniftireg 0.1.1's registration models (`benchmarks/real_zoo38.py`), the comprehension at
`pyniftireg/grid.py:43`: pn_svf_3d (with TRT313), pn_bspline and pn_bspline_nmi (with TRT371's
movedim) exit 1 → 0, pn_svf_inverse_lncc's graph becomes faithful (it stays at exit 1 for its
data-dependent step count); on easydetect 0.7.10's D-FINE-style detectors
(`benchmarks/real_zoo17.py`, ed_n_deploy and ed_s_fused), the loop-unpacked `[w, h]` at `easydetect/nn/decoder.py:742` with TRT316, TRT712 and
TRT717's candidates (which the bake left unprovable and took back before), exit 1 → 0; on kornia
0.9.0's depth warp and undistortion (`benchmarks/real_zoo19.py`, kornia_warp_frame_depth and
kornia_undistort), the camera matrix of scaled sizes in the model's `forward`, from not faithful to
faithful, exit 1 → 0 (in the depth warp with the TRT320 and TRT712 candidates the bake had left
unprovable: the EyeLike and CumSum go).
Applies to every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the list is a nested list or tuple of sizes (and numbers computed from them) with a uniform "
            "structure, and the dtype is integral or floating (or inferred); a number computed from sizes "
            "with a true division rounds alike in float32 and in Python's double; "
            "a value indexed by a range of a size is a tensor"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "class Grid(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b, c, h, w = x.shape\n"
                "        return x / torch.Tensor([(w - 1) / 2., (h - 1) / 2.])[:, None, None]\n",
                "class Grid(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b, c, h, w = x.shape\n"
                "        return x / _trt_sizes_legacy_tensor([(w - 1) / 2., (h - 1) / 2.])[:, None, None]\n",
                unsafe=True,
            ),
            Example(
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        h1, w1 = x.shape[2:]\n"
                "        h2, w2 = y.shape[2:]\n"
                "        return torch.as_tensor([(h1, w1), (h2, w2)], dtype=torch.long)\n",
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        h1, w1 = x.shape[2:]\n"
                "        h2, w2 = y.shape[2:]\n"
                "        return _trt_sizes_tensor([(h1, w1), (h2, w2)], dtype=torch.long)\n",
                unsafe=True,
            ),
            Example(
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        shapes = []\n"
                "        h, w = x.shape[2:]\n"
                "        shapes.append((h, w))\n"
                "        h, w = y.shape[2:]\n"
                "        shapes.append((h, w))\n"
                "        return torch.tensor(shapes, device=x.device)\n",
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        shapes = []\n"
                "        h, w = x.shape[2:]\n"
                "        shapes.append((h, w))\n"
                "        h, w = y.shape[2:]\n"
                "        shapes.append((h, w))\n"
                "        return _trt_sizes_tensor(shapes, device=x.device)\n",
                unsafe=True,
            ),
            Example(
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        shapes = [x.shape[2:], y.shape[2:]]\n"
                "        return torch.tensor([[s[1], s[0]] for s in shapes])\n",
                "class Levels(nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        shapes = [x.shape[2:], y.shape[2:]]\n"
                "        return _trt_sizes_tensor([[s[1], s[0]] for s in shapes])\n",
                unsafe=True,
            ),
        ),
        references=(TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.as_tensor.html",
                    "https://pytorch.org/docs/stable/generated/torch.stack.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per function: local name → how sure its value is sizes (SIZE/LOOSE), for lists
        #: built with ``append`` and for names bound to a display of sizes (``s = (h, w)``).
        self._lists: list[dict[str, int]] = []
        self._displays: list[dict[str, int]] = []
        #: Per function: its parameters not rebound since (a list a caller hands down).
        self._params: list[set[str]] = []
        #: Comprehension targets being looked at, innermost last: name → how sure each item of the
        #: iterable is a nest of sizes (0: an item of something else, such as a list of features).
        self._items: list[tuple[str, int]] = []
        #: Per function: names a ``for`` loop unpacks from each item of a nest of sizes
        #: (``for lvl, (h, w) in enumerate(spatial_shapes):``) → how sure each is one size.
        self._looped: list[dict[str, int]] = []
        #: Assignments that only give a parameter left ``None`` its default (``if spatial_shapes is
        #: None: spatial_shapes = [...]``): the parameter still holds what a caller hands down otherwise.
        self._defaults: set[int] = set()
        #: Names of the enclosing ``for i in range(...)`` loops that their bodies do not rebind: a Python ``int``
        #: on every pass (a trace's too), the same in every graph.
        self._indices: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._lists.append({})
        self._displays.append({})
        self._looped.append({})
        params = node.params
        self._params.append({p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._lists.pop()
        self._displays.pop()
        self._looped.pop()
        self._params.pop()

    def visit_If(self, node: cst.If) -> None:
        super().visit_If(node)
        test = node.test
        if not (self._params and type(test) is cst.Comparison and type(test.left) is cst.Name
                and len(test.comparisons) == 1 and type(test.comparisons[0].operator) is cst.Is
                and type(test.comparisons[0].comparator) is cst.Name
                and test.comparisons[0].comparator.value == "None"):
            return
        name = test.left.value
        for line in node.body.body:
            if type(line) is not cst.SimpleStatementLine:
                continue
            for statement in line.body:
                if type(statement) is cst.Assign and len(statement.targets) == 1 \
                        and type(statement.targets[0].target) is cst.Name and statement.targets[0].target.value == name:
                    self._defaults.add(id(statement))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        super().leave_Assign(original_node)
        if not self._lists:
            return
        for target in original_node.targets:
            name = target.target.value if type(target.target) is cst.Name else None
            handed = name is not None and id(original_node) in self._defaults and name in self._params[-1]
            self._rebind(target.target, original_node.value)
            if handed:
                # A default for a parameter left None: the list is the caller's or this default, so
                # it counts as handed down (loose: only where the export warned at the call).
                self._lists[-1].pop(name, None)
                self._displays[-1].pop(name, None)
                self._params[-1].add(name)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        super().leave_AugAssign(original_node)
        if self._lists:
            self._rebind(original_node.target, cst.Name("None"))  # `shapes += other`: not followed

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        self._indices.append(self._range_index(node))
        if not self._params:
            return
        # What the iterable holds is judged before the loop rebinds its target (`for shapes in shapes`).
        item, sure = self._loop_item(node)
        for name in bound_names(node.target):  # a loop rebinds its target
            self._params[-1].discard(name)
            self._lists[-1].pop(name, None)
            self._displays[-1].pop(name, None)
            self._looped[-1].pop(name, None)
        if item is None or not sure:
            return
        if type(item) is cst.Name:
            self._displays[-1][item.value] = sure  # `for shape in shapes`: each item a display of sizes
            return
        for element in item.elements:  # type: ignore[attr-defined]
            self._looped[-1][element.value.value] = sure  # `for (h, w) in shapes`: each name one size

    def leave_For(self, original_node: cst.For) -> None:
        super().leave_For(original_node)
        self._indices.pop()

    def _range_index(self, node: cst.For) -> str:
        """The target of ``for i in range(...)`` (the built-in), where the body binds no ``i`` of its own; else ''."""
        iterable = strip_parens(node.iter)
        if type(node.target) is not cst.Name or node.asynchronous is not None or type(iterable) is not cst.Call \
                or type(iterable.func) is not cst.Name or iterable.func.value != "range" \
                or self.context.resolver.binds("range"):
            return ""
        name = node.target.value
        return "" if name in bound_names(node.body) else name

    def _plain_numbers(self, display: cst.BaseExpression) -> bool:
        """A non-empty list or tuple display of number literals and ``range`` loop indices (``[i]``, ``[0, 1]``)."""
        display = strip_parens(display)
        if type(display) not in (cst.List, cst.Tuple) or not display.elements:  # type: ignore[attr-defined]
            return False
        return all(type(e) is cst.Element and self._plain_number(strip_parens(e.value))
                   for e in display.elements)  # type: ignore[attr-defined]

    def _plain_number(self, value: cst.BaseExpression) -> bool:
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            value = strip_parens(value.expression)
        return type(value) in (cst.Integer, cst.Float) or type(value) is cst.Name and value.value in self._indices

    def _loop_item(self, node: cst.For) -> tuple[cst.BaseExpression | None, int]:
        """The part of a ``for`` target bound to each item of the iterable, and how sure that item is a
        nest of sizes: ``(h, w)`` of ``for (h, w) in shapes`` or of ``for lvl, (h, w) in enumerate(shapes)``
        (the built-in ``enumerate``), where ``shapes`` is a display or local list of sizes, or a parameter
        not rebound here (a list of sizes a caller hands down: loose, counted where the export warned).
        Only a name, or a flat tuple/list of plain names (no star): what unpacks an item of known depth."""
        target, iterable = node.target, node.iter
        if node.asynchronous is not None:
            return None, 0
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.func.value == "enumerate" \
                and not self.context.resolver.binds("enumerate") and iterable.args \
                and iterable.args[0].keyword is None and not iterable.args[0].star \
                and all(a.keyword is not None and a.keyword.value == "start" for a in iterable.args[1:]):
            if type(target) not in (cst.Tuple, cst.List) or len(target.elements) != 2 \
                    or type(target.elements[0]) is not cst.Element or type(target.elements[1]) is not cst.Element:
                return None, 0
            target, iterable = target.elements[1].value, iterable.args[0].value
        if type(target) in (cst.Tuple, cst.List):
            if not target.elements or any(type(e) is not cst.Element or type(e.value) is not cst.Name
                                          for e in target.elements):
                return None, 0
        elif type(target) is not cst.Name:
            return None, 0
        return target, self._nest(iterable) or self._handed_down(iterable)

    def _rebind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        lists, displays = self._lists[-1], self._displays[-1]
        if type(target) is not cst.Name:
            for element in getattr(target, "elements", ()):
                self._rebind(element.value, cst.Name("None"))  # unpacked: none of ours any more
            return
        name = target.value
        lists.pop(name, None)
        displays.pop(name, None)
        self._looped[-1].pop(name, None)
        self._params[-1].discard(name)
        if type(value) is cst.List and not value.elements:
            lists[name] = SIZE  # an empty list: sizes until something else is appended
            return
        sure = self._display(value)
        if sure:
            displays[name] = sure

    def _item(self, expr: cst.BaseExpression) -> tuple[str, int] | None:
        """The comprehension target ``expr`` names (it shadows a local of the same name)."""
        if type(expr) is cst.Name:
            for item in reversed(self._items):
                if item[0] == expr.value:
                    return item
        return None

    def _item_size(self, expr: cst.BaseExpression) -> int | None:
        """How sure ``expr`` is a size read from a comprehension target; None where ``expr``
        does not involve one (``s[1]`` of an item of a list of sizes, ``f.shape[2]`` or
        ``f.size(3)`` of an item of anything else: loose, counted where the export warned)."""
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
            item = self._item(expr.value)
            if item is not None:
                return item[1]
            if self._item_shape(expr.value) is not None:
                return LOOSE
        if type(expr) is cst.Call and len(expr.args) == 1 and expr.args[0].keyword is None:
            parts = method_call(expr)
            if parts is not None and parts[1] == "size" and self._item(parts[0]) is not None:
                return LOOSE
        if self._item(expr) is not None:
            return 0  # an item alone is a display, not one integer
        return None

    def _item_leaf(self, expr: cst.BaseExpression, numeric: bool = False) -> int:
        """How sure ``expr`` (reading a comprehension target) is one number of sizes: a size read
        from the target, or ``+ - * / //`` of those with number literals (``s[0] // 2``, ``s[1] / 2.0``),
        or the larger or smaller of two (``max(n - 1, 1)``). Where ``numeric``, ``expr`` stands where only
        a number can (an operand of ``-``, ``/``, ``//``, a negation, an argument of ``max(a, b)``
        compared with a number): the target itself is then one number, an item of a flat list of sizes
        (``[2.0 / max(n - 1, 1) for n in shape]``, pyniftireg's ``to_grid_sample``; a tuple there raises)."""
        found = self._item_size(expr)
        if found is not None:
            item = self._item(expr)
            return item[1] if found == 0 and numeric and item is not None else found
        if type(expr) in (cst.Integer, cst.Float):
            return SIZE
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _NUMBER_OPERATORS:
            numeric = type(expr.operator) in _NUMBER_ONLY_OPERATORS
            return min(self._item_leaf(expr.left, numeric), self._item_leaf(expr.right, numeric))
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._item_leaf(expr.expression, True)
        pair = self._extreme_pair(expr)
        if pair is not None and any(type(a) not in (cst.Integer, cst.Float) for a in pair):
            return min(self._item_leaf(a, True) for a in pair)
        return 0

    def _extreme_pair(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """The two arguments of the built-in ``max(a, b)`` / ``min(a, b)`` (not rebound), or of the
        helpers TRT712 puts there (``_trt_size_max(a, b)``), which take the same larger or smaller."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or len(expr.args) != 2 \
                or any(a.keyword is not None or a.star for a in expr.args):
            return None
        name = expr.func.value
        if name in ("max", "min") and not self.context.resolver.binds(name) \
                or name in _EXTREME_HELPERS:
            return expr.args[0].value, expr.args[1].value
        return None

    def _item_shape(self, expr: cst.BaseExpression) -> int | None:
        """``f.shape``, ``f.shape[a:b]``, ``f.size()`` of a comprehension target ``f``: LOOSE."""
        if type(expr) is cst.Subscript and all(type(e.slice) is cst.Slice for e in expr.slice):
            expr = expr.value
        owner = None
        if type(expr) is cst.Attribute and expr.attr.value == "shape":
            owner = expr.value
        elif type(expr) is cst.Call and not expr.args:
            parts = method_call(expr)
            owner = parts[0] if parts is not None and parts[1] == "size" else None
        return LOOSE if owner is not None and self._item(owner) is not None else None

    def _comprehension(self, expr: cst.BaseExpression) -> int:
        """How sure ``[E for v in items if ...]`` (one ``for``) is a non-empty nest of sizes:
        ``E`` read from ``v``, an item of a list of sizes or of feature maps."""
        if type(expr) is not cst.ListComp:
            return 0
        loop = expr.for_in
        if loop.inner_for_in is not None or loop.asynchronous is not None or type(loop.target) is not cst.Name:
            return 0
        # The iterable is evaluated outside the comprehension's scope.
        of_sizes = self._nest(loop.iter) or self._handed_down(loop.iter)
        self._items.append((loop.target.value, of_sizes))
        try:
            with self.judging(expr):
                return self._leaf(expr.elt) or self._display(expr.elt)
        finally:
            self._items.pop()

    def _nest(self, expr: cst.BaseExpression) -> int:
        """How sure ``expr`` is a nest of sizes: a display, or a local list appended with sizes."""
        if type(expr) is cst.Name and self._lists and expr.value in self._lists[-1] and self._local(expr.value) \
                and self._item(expr) is None:
            return self._lists[-1][expr.value]
        return self._display(expr)

    def _handed_down(self, expr: cst.BaseExpression) -> int:
        """LOOSE where ``expr`` is a parameter not rebound here (``spatial_shapes_list``, a list
        of sizes a caller hands down): what it holds is known only from the observed export."""
        if type(expr) is cst.Name and self._params and expr.value in self._params[-1] \
                and self._local(expr.value) and self._item(expr) is None:
            return LOOSE
        return 0

    def _leaf(self, expr: cst.BaseExpression) -> int:
        """How sure ``expr`` is one integer computed from a size (0: it is not), or one number computed
        from sizes with a true division or a float literal."""
        if self._items and any(self._item(n) is not None for n in _names(expr)):
            found = self._item_leaf(expr)
            if found or not self.size_number(expr):
                return found
            # An item of a shape is one size: `[int(round(s / k)) for s in x.shape[2:]]` (torchreg's pyramid).
            return SIZE
        if self.integer_size(expr) and self._sized(expr):
            return SIZE
        if self._fractional_size(expr) and self._sized(expr):
            return SIZE
        if self._loose_size(expr):
            return LOOSE
        return self._looped_leaf(expr) or self._number_leaf(expr)

    def _number_leaf(self, expr: cst.BaseExpression) -> int:
        """How sure ``expr`` is a number computed from sizes with a true division or a float literal
        (``(w - 1) / 2.``, GMFlow's ``normalize_coords``; ``w * s - s / 2 - 0.5``, SuperPoint's descriptor
        sampling): sizes, ``int`` parameters, parameters of this function not rebound (LOOSE: sizes a
        caller hands down, counted only where the export warned at the call) and loose sizes, with
        integer and float literals and ``+ - * / //``, not literals alone. Without a true division or a
        float literal only a number of such parameters counts, loose (XFeat's ``[W - 1, H - 1]`` of the
        image size handed down): an integer computed from sizes is taken above, and one computed from
        ``int`` parameters alone is a constant of the trace."""
        level = self._number_level(expr)
        if level == _LITERAL:
            return 0
        return level if _fractional(expr) else (LOOSE if level == LOOSE else 0)

    def _number_level(self, expr: cst.BaseExpression) -> int:
        if type(expr) in (cst.Integer, cst.Float):
            return _LITERAL
        if self.size_of(expr) is not None or self.int_parameter(expr):
            return SIZE
        if self._loose_size(expr):
            return LOOSE
        if type(expr) is cst.Name and self._params and expr.value in self._params[-1] \
                and self._local(expr.value) and self._item(expr) is None:
            return LOOSE
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _NUMBER_OPERATORS:
            return min(self._number_level(expr.left), self._number_level(expr.right))
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._number_level(expr.expression)
        return 0

    def _fractional_size(self, expr: cst.BaseExpression) -> bool:
        """``w / 2.0``, ``h * 0.8``, ``(w - 1) / 2``: ``+ - * / //`` of integer sizes and number
        literals, with a ``/`` or a float literal somewhere: a Python ``float`` in eager mode, a
        traced 0-d float tensor while tracing (a camera's intrinsics built from the image size)."""
        if type(expr) is cst.Float:
            return True
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._fractional_size(expr.expression)
        if type(expr) is not cst.BinaryOperation or type(expr.operator) not in _NUMBER_OPERATORS:
            return False
        sides = (expr.left, expr.right)
        if not all(self.integer_size(side) or self._fractional_size(side) for side in sides):
            return False
        return type(expr.operator) is cst.Divide or any(self._fractional_size(side) for side in sides)

    def _looped_leaf(self, expr: cst.BaseExpression, literal: int = 0) -> int:
        """How sure ``expr`` is one number read from a loop's item of sizes: such a name, or
        ``+ - * / //`` of those with number literals (``w // 2``, ``w / 2.0``); a literal alone is not one."""
        if type(expr) is cst.Name:
            looped = self._looped[-1] if self._looped else {}
            return looped.get(expr.value, 0) if self._local(expr.value) and self._item(expr) is None else 0
        if type(expr) in (cst.Integer, cst.Float):
            return literal
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _NUMBER_OPERATORS:
            left, right = self._looped_leaf(expr.left, SIZE), self._looped_leaf(expr.right, SIZE)
            literals = (cst.Integer, cst.Float)
            if left and right and (type(expr.left) not in literals or type(expr.right) not in literals):
                return min(left, right)
            return 0
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._looped_leaf(expr.expression, literal)
        return 0

    def _sized(self, expr: cst.BaseExpression) -> bool:
        """Does ``expr`` read a size? ``-1`` or an ``int`` parameter alone is a constant of the trace."""
        if self.size_of(expr) is not None:
            return True
        if type(expr) is cst.BinaryOperation:
            return self._sized(expr.left) or self._sized(expr.right)
        if type(expr) is cst.UnaryOperation:
            return self._sized(expr.expression)
        return False

    def _display(self, expr: cst.BaseExpression) -> int:
        """How sure ``expr`` is a non-empty nest of sizes (number literals may join them, also as
        whole rows: ``[0.0, 0.0, 1.0]`` under a camera matrix's rows of sizes)."""
        level = self._display_nest(expr)
        return 0 if level == _LITERALS else level

    def _display_nest(self, expr: cst.BaseExpression) -> int:
        """:meth:`_display`, or ``_LITERALS`` for a display of number literals only."""
        item = self._item(expr)
        if item is not None:
            return item[1]
        if self._items and self._item_shape(expr) is not None:
            return LOOSE
        if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in ("list", "tuple") \
                and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star \
                and not self.context.resolver.binds(expr.func.value):
            return self._display(expr.args[0].value)  # `list(f.shape[-2:])`: the same sizes
        if type(expr) is cst.ListComp:
            return self._comprehension(expr)
        if type(expr) is cst.Name and self._displays and expr.value in self._displays[-1] \
                and self._local(expr.value):
            return self._displays[-1][expr.value]
        if self._is_shape_tuple(expr):
            return SIZE
        if self._loose_owner(expr) is not None:
            return LOOSE
        if type(expr) not in (cst.List, cst.Tuple) or not expr.elements:  # type: ignore[attr-defined]
            return 0
        levels = []
        for element in expr.elements:  # type: ignore[attr-defined]
            if type(element) is not cst.Element:
                return 0  # a starred element: its length is unknown here
            value = element.value
            if (self.integer_size(value) or self._fractional_size(value)) and not self._sized(value):
                levels.append(_LITERALS)  # `-1`, `0.5`, `n: int`: a number alongside the sizes, not one of them
                continue
            level = self._leaf(value) or self._display_nest(value)
            if not level:
                return 0
            levels.append(level)
        return min(levels, default=0)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self._lists or not self.active():
            return
        parts = method_call(node)
        if parts is not None and type(parts[0]) is cst.Name and parts[0].value in self._lists[-1]:
            self._note_method(parts[0].value, parts[1], node)
            return
        legacy = self.context.refers_to(node.func, "torch.Tensor") is not None
        receiver = _new_tensor_receiver(node)
        if not legacy and receiver is None and not self.context.refers_to(node.func, *_CONSTRUCTORS):
            return
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) != 1 or node.args[0] is not positional[0] or any(
                a.star or a.keyword.value not in _KEYWORDS for a in node.args[1:]):  # type: ignore[union-attr]
            return
        if legacy and (len(node.args) != 1 or type(positional[0].value) not in (cst.List, cst.Tuple)):
            return  # `torch.Tensor(b, h)`, `torch.Tensor(n)`: sizes of a new tensor, TRT349's
        repeated = None if legacy else self._repeated(positional[0].value)
        if repeated is not None:
            self._repeated_fix(node, *repeated)
            return
        # A parameter the function hands on whole (dsntnn's `normalized_to_pixel_coordinates(coords, size)`, given
        # `images.shape[-2:]`): what it holds is known only from the observed export, so it is loose.
        sure = self._nest(positional[0].value)
        if not sure and self._handed_down(positional[0].value) and self._observed.converted(node):
            # Only where the export converted a traced value there: rf-detr's `torch.as_tensor(block_size)` of a
            # configuration number warns too (every `as_tensor` result is a constant of the trace).
            sure = LOOSE
        if not sure or (sure == LOOSE and not self.traced_at(node)):
            return
        helper = LEGACY_HELPER if legacy else HELPER
        # A built-in `max(a, b)` / `min(a, b)` of sizes in the list compares traced sizes in Python, which keeps the
        # example's choice: TRT712's helpers keep it in the graph, written here too so that the list is whole.
        extremes = _Extremes(self)
        data = positional[0].value.visit(extremes)
        args = [node.args[0].with_changes(value=data), *node.args[1:]]
        if receiver is not None:
            # `t.new_tensor(data)` is in `t`'s dtype and on its device unless told otherwise.
            given = {a.keyword.value for a in node.args[1:] if a.keyword is not None}
            args = [args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    if len(args) == 1 else args[0], *args[1:]]
            extra = [f"{key}={code_of(receiver).strip()}.{key}" for key in ("dtype", "device") if key not in given]
            if len(args) > 1 and extra:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args += [cst.parse_expression(f"f({e})").args[0] for e in extra]
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        fix = Fix({node: node.with_changes(func=cst.Name(helper), args=args)}, safety=Safety.UNSAFE,
                  helpers=(helper, *sorted(extremes.used)))
        self.found(node, f"`{short_code(node)}` copies traced sizes into a new tensor: the TorchScript export "
                         f"keeps the example's sizes as a constant; {helper} stacks them in the graph while "
                         "tracing", fix)

    def _repeated(self, data: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """``(display, count)`` of ``[s] * n`` or ``n * [s]``: a display of sizes repeated by a size, else None."""
        data = strip_parens(data)
        if type(data) is not cst.BinaryOperation or type(data.operator) is not cst.Multiply:
            return None
        for display, count in ((data.left, data.right), (data.right, data.left)):
            display, count = strip_parens(display), strip_parens(count)
            if type(display) in (cst.List, cst.Tuple) and type(count) not in (cst.List, cst.Tuple) \
                    and self._sized(count):
                return display, count
        return None

    def _repeated_fix(self, node: cst.Call, display: cst.BaseExpression, count: cst.BaseExpression) -> None:
        """Report ``torch.tensor([s] * n, ...)`` with ``_trt_sizes_repeated``: its sizes and its count traced."""
        sure = min(self._display(display), SIZE)
        if not sure and self._plain_numbers(display):
            # `torch.tensor([i] * keep.shape[0])` (pytorch-retinanet's class column, distinanet 1.0.1): numbers the
            # same in every graph, repeated by a traced count, which is what the list bakes
            sure = SIZE if self.size_of(count) is not None else LOOSE
        if not sure or (sure == LOOSE and not self.traced_at(node)):
            return
        extremes = _Extremes(self)
        data = display.visit(extremes)
        rest = "".join(f", {code_of(a).strip().rstrip(',')}" for a in node.args[1:])
        call = cst.parse_expression(f"{REPEATED_HELPER}({code_of(data).strip()}, {code_of(count).strip()}{rest})")
        fix = Fix({node: call}, safety=Safety.UNSAFE, helpers=(REPEATED_HELPER, *sorted(extremes.used)))
        what = "numbers" if self._plain_numbers(display) else "traced sizes"
        self.found(node, f"`{short_code(node)}` repeats {what} by a traced size in a Python list: the TorchScript "
                         f"export keeps the example's {what.split()[-1]} and count as a constant; {REPEATED_HELPER} "
                         f"stacks the {what.split()[-1]} and repeats them by the count in the graph while tracing", fix)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """``x[list(range(x.shape[0])), k]``: an index built in Python from a size, which indexing
        copies into a tensor as ``torch.as_tensor`` would (and no TracerWarning says so)."""
        if not self._frames or not self.active():
            return
        for element in node.slice:
            if type(element.slice) is not cst.Index:
                continue
            index = element.slice.value
            bounds = self._range_bounds(index)
            if bounds is None and type(index) is cst.Name:
                bounds = self._bound_range(index.value)  # `batch_indices = range(batch_size)` first
            # One bound, a size itself: `torch.arange(n)` is `range(n)` for every n >= 0, while
            # `torch.arange(a, b)` raises where `range(a, b)` is empty backwards (a > b) and
            # `torch.arange(n - 2)` where the difference is negative.
            if bounds is None or len(bounds) != 1 or not (
                    self.size_of(bounds[0]) is not None or self._own_size(bounds[0], node.value)):
                continue
            torch_name = self.context.torch_name()
            arange = cst.parse_expression(f"{torch_name}.arange()").with_changes(args=[cst.Arg(b) for b in bounds])
            self.found(index, f"`{short_code(index)}` indexes with a Python list of the numbers in a range of a "
                              "traced size: indexing copies it into a constant of the example's length, silently "
                              f"(no TracerWarning); {torch_name}.arange of the size stays in the graph",
                       Fix({index: arange}, safety=Safety.UNSAFE))

    def _range_bounds(self, index: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """The arguments of ``range(...)``, ``list(range(...))`` or ``tuple(range(...))`` (built-ins)."""
        call = index
        if type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in ("list", "tuple") \
                and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star \
                and not self.context.resolver.binds(call.func.value):
            call = call.args[0].value
        if not (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range"
                and not self.context.resolver.binds("range") and 1 <= len(call.args) <= 3
                and all(a.keyword is None and not a.star for a in call.args)):
            return None
        return [a.value for a in call.args]

    def _bound_range(self, name: str) -> list[cst.BaseExpression] | None:
        """The bounds of the range ``name`` is bound to, where the function binds it once, to ``range(...)`` (or
        ``list``/``tuple`` of one), and binds each name of the bounds at most once: the bounds computed again at the
        index are the same numbers (lafhterlearn's decoder: ``batch_indices = range(batch_size)``, then
        ``y_hat_prev[batch_indices, top] = 1.0`` in its loop)."""
        function = self.context.function
        if function is None:
            return None
        bindings = scope_bindings(function)  # parameters, loop targets and augmented assignments count as bindings
        values = bindings.get(name, [])
        if len(values) != 1 or values[0] is None:
            return None
        bounds = self._range_bounds(values[0])
        if bounds is None or any(len(bindings.get(n, [])) > 1 for b in bounds for n in variable_names(b)):
            return None
        return bounds

    def _own_size(self, bound: cst.BaseExpression, indexed: cst.BaseExpression) -> bool:
        """``o.shape[i]`` or ``o.size(i)`` of the very value indexed (``o[list(range(o.shape[0]))]``): a
        value with sizes indexed by a list of positions is a tensor (or an array), whatever made it."""
        if type(bound) is cst.Subscript and len(bound.slice) == 1 and type(bound.slice[0].slice) is cst.Index:
            owner = self._loose_owner(bound.value)
        elif type(bound) is cst.Call and len(bound.args) == 1 and bound.args[0].keyword is None:
            parts = method_call(bound)
            owner = parts[0] if parts is not None and parts[1] == "size" else None
        else:
            return False
        return owner is not None and type(indexed) is cst.Name and type(owner) is cst.Name \
            and owner.value == indexed.value

    def _note_method(self, name: str, method: str, node: cst.Call) -> None:
        """A method of a tracked list: ``append`` of sizes keeps it sizes, anything else ends that."""
        lists = self._lists[-1]
        args = node.args
        sure = 0
        if method == "append" and len(args) == 1 and args[0].keyword is None and not args[0].star:
            sure = self._display(args[0].value)
        if sure:
            lists[name] = min(lists[name], sure)
        else:
            lists.pop(name)


class _Extremes(cst.CSTTransformer):
    """``max(a, b)`` → ``_trt_size_max(a, b)`` (``min`` likewise) for the built-ins (not rebound)."""

    def __init__(self, rule: SizesTensor) -> None:
        super().__init__()
        self.rule = rule
        self.used: set[str] = set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if type(func) is cst.Name and func.value in ("max", "min") and self.rule._extreme_pair(original_node):
            helper = f"_trt_size_{func.value}"
            self.used.add(helper)
            return updated_node.with_changes(func=cst.Name(helper))
        return updated_node


def _new_tensor_receiver(node: cst.Call) -> cst.BaseExpression | None:
    """``t`` of ``t.new_tensor(data, ...)``, where ``t`` is a plain name or attribute read (read twice by the
    rewrite, for the dtype and the device the method gives by default), else None."""
    parts = method_call(node)
    if parts is None or parts[1] != "new_tensor" or not plain_read(parts[0]):
        return None
    return parts[0]


def _fractional(expr: cst.BaseExpression) -> bool:
    """Does ``expr`` hold a true division or a float literal (so its value is a float)?"""
    if type(expr) is cst.Float:
        return True
    if type(expr) is cst.BinaryOperation:
        return type(expr.operator) is cst.Divide or _fractional(expr.left) or _fractional(expr.right)
    if type(expr) is cst.UnaryOperation:
        return _fractional(expr.expression)
    return False


def _names(expr: cst.BaseExpression) -> list[cst.Name]:
    """The names ``expr`` reads (attribute names aside)."""
    found: list[cst.Name] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            found.append(node)
        elif type(node) is cst.Attribute:
            stack.append(node.value)
        else:
            stack.extend(node.children)
    return found


RULES = (SizesTensor,)
