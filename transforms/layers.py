"""Layers and calls whose export TensorRT cannot take, or that the trace cuts off (TRT722–TRT725).

- TRT722 ``tensor-copy``: ``copy.deepcopy`` / ``copy.copy`` in forward code; the traced
  graph loses the copied tensors' link to the inputs.
- TRT723 ``gelu-op``: GELU exports as the ONNX ``Gelu`` op at opset 20+ (torch 2.13's
  default), which TensorRT parses only from 10.0.
- TRT724 ``conv-dynamic-weight``: ``F.conv*`` with a kernel computed from forward's inputs;
  TensorRT before 8.5 builds Conv only from constant weights.
- TRT725 ``antialias-resize``: antialiased resizing (``F.interpolate(antialias=True)``,
  torchvision's ``Resize``); no exporter gives TensorRT something it parses.

All detect only, except TRT722's `copy.deepcopy` (a safe fix through an inserted helper).
Checked with torch 2.13 (TorchScript exporter and dynamo exporter) against
TensorRT's ONNX operator table (``shared/reference``). Other constructs of the same
guidance were checked and need no rule: ``nn.Flatten`` / ``torch.flatten`` export as
Flatten or Reshape (parsed by every TensorRT version); ``nn.UpsamplingBilinear2d``,
``nn.UpsamplingNearest2d``, ``F.upsample*`` export as the same ``Resize`` as the equivalent
``F.interpolate`` call; ``cumsum`` exports as CumSum, parsed from TensorRT 8.4 on.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import (argument, bound_names, helper_call, is_false, is_true, short_code, variable_names,
                                walk)
from trtcodemod.context import NameSet
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.providers import ObservedFacts
from trtcodemod.transforms._runtime_scope import RuntimeScope, RuntimeScopeRule
from trtcodemod.transforms.bicubic_resize import HELPER as INTERPOLATE_HELPER, antialiased
from trtcodemod.versions import format_version

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"


# --- TRT722 ----------------------------------------------------------------------------

DEEPCOPY_HELPER = "_trt_deepcopy"

_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _literal(node: cst.BaseExpression) -> bool:
    """A constant made of literals only (numbers, strings, None/True/False, containers of them)."""
    if isinstance(node, _LITERALS):
        return True
    if type(node) is cst.Name:
        return node.value in ("None", "True", "False")
    if type(node) is cst.UnaryOperation:
        return _literal(node.expression)
    if type(node) in (cst.List, cst.Tuple, cst.Set):
        return all(type(e) is not cst.StarredElement and _literal(e.value) for e in node.elements)
    if type(node) is cst.Dict:
        return all(
            type(e) is cst.DictElement and _literal(e.key) and _literal(e.value) for e in node.elements
        )
    return False


class TensorCopy(RuntimeScopeRule):
    scope = "forward"
    requires = (RuntimeScope, ObservedFacts)
    needs_text = spelled("copy.deepcopy", "copy.copy")
    info = RuleInfo(
        id="TRT722",
        name="tensor-copy",
        summary="`copy.deepcopy` / `copy.copy` in forward: the traced graph turns the copied tensors into constants",
        doc="""\
What it finds: `copy.deepcopy(x)` and `copy.copy(x)` (under any import alias) in forward code of
`nn.Module` subclasses (`forward` and the methods it calls), and in a top-level function the file
binds to a module as its forward (showlab/DiffSim's patched diffusers block, `block.forward =
hacked_forward.__get__(block, BasicTransformerBlock)`, copying the hidden states). With an observed
run (`migrate`, `--facts`), also a `copy.deepcopy` the recorded forwards ran, whatever class holds it.
OpenPCDet's `MPPNetHead(RoIHeadTemplate)`, whose base is imported from another file, copies its
proposals in `forward`: found from the code alone where that file is beside it (the base is followed
into its module and derives from `nn.Module` there), and with facts wherever it is. Copies of literal constants (`copy.deepcopy({"a": 1})`) are not reported.

Why it hurts: the tracer does not see through Python's copy protocol. Measured with torch
2.13: `y = copy.deepcopy(x); return y + 1` exports (TorchScript exporter) as a graph with no
input at all, whose output is a constant of the traced shape; `copy.copy(x)` likewise
becomes a constant. No error is raised, so the ONNX file silently computes something else.
The dynamo exporter (`torch.export`) refuses the model. Copies of lists or dicts of tensors
(`feats = copy.deepcopy(feats_in)`) copy the tensors inside them in the same way.

What to do: copy tensors with `x.clone()` (recorded as an Identity/no-op in the graph); copy
a list with `list(xs)` or `[x.clone() for x in xs]`, a dict with `dict(d)` or
`{k: v.clone() for k, v in d.items()}`; or drop the copy when nothing writes to it in place.

The rewrite (`copy.deepcopy(x)` with one argument): `_trt_deepcopy(copy.deepcopy, x)`, an
inserted helper that calls the same `deepcopy` outside `torch.onnx.export`. While exporting,
it copies tensors with `clone()` and rebuilds exact lists, tuples and dicts around them,
an object met twice being copied once (deepcopy's memo), so the graph keeps the copies'
link to the inputs; everything else (modules, `nn.Parameter`s,
container subclasses, a non-leaf tensor that requires grad) still goes to `deepcopy`.
Copied tensors that share memory (`{"full": x, "row": x[0]}`) share the copy's memory under
`deepcopy`, so an in-place write through one shows in the other: while exporting, the helper
clones their base once and rebuilds each view on the clone, which the dynamo exporter follows;
the TorchScript exporter drops writes through views, so there (and where the tensors are not
all views of one dense tensor of one dtype) the helper raises while exporting, saying why,
rather than give a graph that computes other values.

Fix safety: safe. Eager, scripted, fx-traced, compiled and `torch.export`-ed code runs the
original call. While exporting to ONNX the copies hold the same values, dtypes and shapes,
and share memory where deepcopy's do (or the export is refused);
what differs is only what no ONNX graph can show (a copy is laid out densely by `clone()`,
so an expanded tensor's copy is no longer a view of one row). `copy.copy(x)`, and `deepcopy`
with a memo argument, are reported only. Applies to every TensorRT version: the problem is
in the exported graph.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "import copy\n"
                "class Head(nn.Module):\n"
                "    def forward(self, feats):\n"
                "        outs = copy.deepcopy(feats)\n"
                "        outs[0] = outs[0] * 2\n"
                "        return outs\n",
                "import copy\n"
                "class Head(nn.Module):\n"
                "    def forward(self, feats):\n"
                "        outs = _trt_deepcopy(copy.deepcopy, feats)\n"
                "        outs[0] = outs[0] * 2\n"
                "        return outs\n",
            ),
            Example(
                "import copy\n"
                "class Head(nn.Module):\n"
                "    def forward(self, feats):\n"
                "        return copy.copy(feats)\n"
            ),
        ),
        references=(
            "https://docs.python.org/3/library/copy.html",
            "https://pytorch.org/docs/stable/generated/torch.clone.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, "copy.deepcopy", "copy.copy")
        if name is None or not node.args:
            return
        first = node.args[0]
        if first.star or _literal(first.value):
            return
        short = name.rsplit(".", 1)[-1]
        message = (f"`copy.{short}` in forward code: the tracer does not follow the copy, so copied tensors "
                   "become constants cut off from the inputs (the dynamo exporter refuses it)")
        fix = None
        if short == "deepcopy" and len(node.args) == 1 and first.keyword is None:
            fix = Fix({node: helper_call(DEEPCOPY_HELPER, node.func, first.value)}, helpers=(DEEPCOPY_HELPER,))
            message += "; copy with a helper the export follows"
        else:
            message += "; use `.clone()` for tensors, `list(...)` / `dict(...)` for containers"
        if short == "deepcopy" and self.active() and self.provider(ObservedFacts).deep_copied(node):
            # The recorded forwards ran this copy: forward code, even where the class is not seen to be a
            # module (a base imported from another file of the project under another name).
            self.report(node, message, fix)
            return
        self.found(node, message, fix)


# --- TRT723 ----------------------------------------------------------------------------

_GELU = ("torch.nn.functional.gelu", "torch.nn.GELU", "torch.nn.modules.GELU", "torch.nn.modules.activation.GELU")
_GELU_NAMES = NameSet(_GELU)
_GELU_SINCE = (10, 0)


class GeluOp(RuntimeScopeRule):
    scope = "anywhere"
    needs_text = spelled(*_GELU)
    info = RuleInfo(
        id="TRT723",
        name="gelu-op",
        summary="GELU exports as ONNX `Gelu` at opset 20+ (torch 2.13's default), which TensorRT parses from 10.0",
        doc="""\
What it finds: `F.gelu(...)` calls, `nn.GELU(...)` modules where they are built, and `nn.GELU` /
`F.gelu` used as values (`act_layer=nn.GELU`, `activation=F.gelu`), under any import alias.
Only for TensorRT targets before 10.0. GELU named by a configuration string
(`dict(type="GELU")`) is not matched.

Why it hurts: ONNX added a `Gelu` operator in opset 20, and torch 2.13's default opset is 20
for both exporters: measured, `F.gelu(x)` (exact or `approximate="tanh"`) exports as a single
`Gelu` node at opset 20 and 21, and as Erf (or Tanh) arithmetic at opset 17 to 19.
TensorRT's ONNX parser has `Gelu` only from 10.0; 8.x and 9.x have no importer for it
and reject the model.

What to do: for TensorRT before 10.0, export with an older opset:
`torch.onnx.export(..., opset_version=17)` (TorchScript exporter) or 18/19 (the dynamo
exporter starts at 18). GELU then becomes Div/Erf/Add/Mul (Tanh/Pow for the tanh form),
which every TensorRT version parses and fuses. The model code need not change.

Fix safety: none (detect only): the fix is an export option, not a code change.

Opt-in: every transformer uses GELU (140 findings in timm alone), and what decides the
graph is the `opset_version` of the export call, not the model code; `trtcodemod verify`
and `migrate` export at opset 17. Select it (`--select TRT723`) to list the sites when you
must export at opset 20 or later for a TensorRT before 10.0.""",
        fix=Safety.NONE,
        needed_before=_GELU_SINCE,
        opt_in=True,
        examples=(
            Example("def ffn(x, w1, w2):\n    return F.gelu(x @ w1) @ w2\n"),
            Example("self.act = nn.GELU(approximate='tanh')\n"),
            Example("block = Mlp(dim, hidden, act_layer=nn.GELU)\n"),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Gelu.html",
            "https://pytorch.org/docs/stable/generated/torch.nn.GELU.html",
            _OPERATORS,
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._not_values: set[int] = set()
        self._imports = 0

    def _message(self, what: str) -> str:
        return (f"{what} exports as the ONNX `Gelu` op at opset 20 and later (torch 2.13's default), which TensorRT "
                f"{format_version(self.context.target)} lacks (added in 10.0); export with opset_version=17 "
                "(18 or 19 with dynamo=True) to get Erf arithmetic instead")

    def visit_Call(self, node: cst.Call) -> None:
        self._not_values.add(id(node.func))
        if type(node.func) is cst.Name and node.func.value in ("isinstance", "issubclass"):
            for arg in node.args[1:]:
                self._not_values.add(id(arg.value))
                if type(arg.value) in (cst.Tuple, cst.List):
                    self._not_values.update(id(e.value) for e in arg.value.elements)
        name = self.context.refers_to(node.func, *_GELU)
        if name is not None:
            self.found(node, self._message("`nn.GELU`" if name.endswith("GELU") else "`F.gelu`"))

    def visit_Import(self, node: cst.Import) -> None:
        self._imports += 1

    def leave_Import(self, original_node: cst.Import) -> None:
        self._imports -= 1

    visit_ImportFrom = visit_Import
    leave_ImportFrom = leave_Import

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_values.add(id(node.attr))
        self._value(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._value(node)

    def _value(self, node: cst.Name | cst.Attribute) -> None:
        if self._imports or id(node) in self._not_values:
            return
        name = self.context.refers_to_any(node, _GELU_NAMES)
        if name is not None:
            what = "`nn.GELU`" if name.endswith("GELU") else "`F.gelu`"
            self.found(node, self._message(f"{what} (passed as a value)"))


# --- TRT724 ----------------------------------------------------------------------------

_CONV = tuple(
    f"{prefix}{kind}{dims}"
    for prefix in ("torch.nn.functional.", "torch.")
    for kind in ("conv", "conv_transpose")
    for dims in ("1d", "2d", "3d")
)
_DYNAMIC_CONV_SINCE = (8, 5)


def _data_names(func: cst.FunctionDef) -> dict[str, str]:
    """Names in ``forward`` whose value depends on its inputs → the input they come from."""
    params = [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]
    for star in (func.params.star_arg, func.params.star_kwarg):
        if type(star) is cst.Param:
            params.append(star)
    tainted = {p.name.value: p.name.value for p in params[1:]}  # params[0] is self
    flows: list[tuple[list[str], cst.CSTNode]] = []
    for node in walk(func.body):
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            continue
        if type(node) is cst.Assign:
            for target in node.targets:
                flows.append((bound_names(target.target), node.value))
        elif type(node) in (cst.AnnAssign, cst.AugAssign) and node.value is not None:
            flows.append((bound_names(node.target), node.value))
        elif type(node) is cst.For:
            flows.append((bound_names(node.target), node.iter))
        elif type(node) is cst.NamedExpr:
            flows.append((bound_names(node.target), node.value))
    used = [(targets, variable_names(value)) for targets, value in flows]
    changed = True
    while changed:
        changed = False
        for targets, names in used:
            sources = [tainted[n] for n in sorted(names) if n in tainted]
            if not sources:
                continue
            for target in targets:
                if target not in tainted:
                    tainted[target] = sources[0]
                    changed = True
    return tainted


class ConvDynamicWeight(RuntimeScopeRule):
    scope = "forward"
    needs_text = spelled(*_CONV)
    info = RuleInfo(
        id="TRT724",
        name="conv-dynamic-weight",
        summary="`F.conv2d` with a kernel computed from forward's inputs: TensorRT before 8.5 needs constant weights",
        doc="""\
What it finds: `F.conv1d/2d/3d` and `F.conv_transpose1d/2d/3d` (and the `torch.conv*`
functions) in `forward` of `nn.Module` subclasses whose weight depends on forward's inputs:
an input itself, or a local computed from one (`w = self.weight * style`,
`k = self.kernel_net(x)`). Only for TensorRT targets before 8.5. A weight computed from
parameters alone (`self.weight * self.scale`, weight standardisation) is not reported: both
exporters fold it into a constant initializer (checked with torch 2.13). Helper functions
that receive the weight as an argument are not analysed (the caller may pass a parameter).

Why it hurts: the exported Conv then takes its weight from another node instead of an
initializer. TensorRT's ONNX parser builds such a Conv only from 8.5 on (before it asks for
constant weights); from 8.5 the weight can be a run-time tensor. Independently of the
TensorRT version, the TorchScript exporter stops with "ONNX export of convolution for kernel
of unknown shape" when the kernel's shape depends on a dynamic axis (per-sample kernels
folded into the batch, as in dynamic or modulated convolutions exported with a dynamic
batch); the dynamo exporter exports it.

What to do: for TensorRT before 8.5, keep the weight constant and move the input-dependent
part to the activations where the algebra allows (modulated convolution: scale the input
channels by `style` instead of the weight, then demodulate the output), or upgrade to
TensorRT 8.5+. With the TorchScript exporter, keep the kernel's shape static (no dynamic
batch in it).

Fix safety: none (detect only).""",
        fix=Safety.NONE,
        needed_before=_DYNAMIC_CONV_SINCE,
        examples=(
            Example(
                "class ModulatedConv(nn.Module):\n"
                "    def forward(self, x, style):\n"
                "        w = self.weight * style.view(1, -1, 1, 1)\n"
                "        return F.conv2d(x, w, padding=1)\n"
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.conv2d.html",
            "https://github.com/onnx/onnx-tensorrt/issues/609",
            _OPERATORS,
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._data: dict[int, dict[str, str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_CONV)
        if name is None:
            return
        where = self.current_method()
        if where is None or not where[0].is_module or where[1].name.value != "forward":
            return
        func = where[1]
        if self._scopes[-1] is not func or not func.params.params:
            return
        weight = argument(node, 1, "weight")
        if weight is None:
            return
        data = self._data.get(id(func))
        if data is None:
            data = self._data[id(func)] = _data_names(func)
        sources = sorted({data[n] for n in variable_names(weight.value) if n in data})
        if not sources:
            return
        short = name.replace("torch.nn.functional.", "F.")
        inputs = ", ".join(f"`{s}`" for s in sources)
        self.found(node, f"`{short}` takes a weight computed from forward's input {inputs}: TensorRT "
                   f"{format_version(self.context.target)} builds Conv only from constant weights (run-time "
                   "weights from 8.5); keep the weight constant and apply the input-dependent part to the activations")


# --- TRT725 ----------------------------------------------------------------------------

RESIZE_HELPER = "_TrtResize"
_TV_RESIZE_CLASSES = ("torchvision.transforms.Resize", "torchvision.transforms.v2.Resize")
_TV_RESIZE_FUNCTIONS = ("torchvision.transforms.functional.resize", "torchvision.transforms.v2.functional.resize")


def _nearest(node: cst.BaseExpression) -> bool:
    """``InterpolationMode.NEAREST`` / ``NEAREST_EXACT`` (antialias does not apply), or a "nearest" string."""
    if type(node) is cst.Attribute:
        return node.attr.value in ("NEAREST", "NEAREST_EXACT")
    if type(node) is cst.SimpleString:
        return "nearest" in node.evaluated_value
    return False


class AntialiasResize(RuntimeScopeRule):
    scope = "anywhere"
    requires = (RuntimeScope, ObservedFacts)
    needs_text = spelled("torch.nn.functional.interpolate", *_TV_RESIZE_CLASSES, *_TV_RESIZE_FUNCTIONS)
    info = RuleInfo(
        id="TRT725",
        name="antialias-resize",
        summary="antialiased resize (`antialias=True`, torchvision `Resize`): no exporter gives TensorRT a "
                "Resize it parses; use antialiased weight matrices",
        doc="""\
What it finds: `F.interpolate(..., antialias=True)` in run-time code, also where `antialias`
is a parameter of the enclosing function that defaults to True and is never rebound (timm's
`resample_abs_pos_embed`, which resizes ViT position embeddings to the image), or
`self.<attr>` that its class stores once, as True or from an `__init__` parameter that
defaults to True and is never rebound there (timm's NaFlexViT `self.pos_embed_antialias`;
DINOv2's `interpolate_antialias`, default False, is left); inside `migrate` (or with
`--facts`), `antialias=<any expression but False>` where the recorded export stopped at the
antialiased kernel made on that call's lines (rf-detr's windowed DINOv2 writes
`antialias=patch_pos_embed.device.type != "mps"`); and inside
`nn.Module` subclasses torchvision's `transforms.Resize(...)` / `transforms.v2.Resize(...)`
and `transforms.functional.resize(...)`, whose tensor path interpolates with antialiasing
by default (torchvision 0.17 and later). Not reported: `antialias=False`, and nearest
interpolation (antialiasing does not apply). torchvision transforms outside modules (data
pipelines) are not reported: they are not part of the exported graph.

Why it hurts: measured with torch 2.13, the TorchScript exporter has no symbolic for the
antialiased kernels ("Exporting the operator 'aten::_upsample_bilinear2d_aa' to ONNX ...
is not supported", bicubic likewise); the dynamo exporter emits `Resize` with
`antialias=1` (opset 18+), and TensorRT's Resize does not support antialiasing in any
version of its ONNX parser. The seed guidance's older worries about bilinear and nearest
`nn.Upsampling*` modules no longer apply: they export as the same Resize as `F.interpolate`.

The rewrite: `F.interpolate(...)` → `_trt_interpolate(...)`, TRT727's helper, the same
arguments; torchvision's `Resize(...)` built in a module (SAM 2's `SAM2Transforms`, an
`nn.Sequential` of `Resize` and `Normalize`) → `_TrtResize(Resize(...))`, an inserted module that
holds the transform (it has no parameters: the state dict is the same) and calls it, except
while exporting a 3-D or 4-D floating image to a size of two numbers, bilinear or bicubic, where
it makes the `_trt_interpolate` call that torchvision's tensor path makes (`align_corners=False`,
the transform's antialias flag; a scripted `_TrtResize` calls the transform). A size of one
number (the shorter edge), `max_size`, integer images and `transforms.functional.resize` keep
torchvision's call. Outside `torch.onnx.export` `_trt_interpolate` is `F.interpolate` itself. While
exporting, an antialiased bilinear or bicubic resize of a 4-D floating tensor becomes
`Wh @ x @ Ww^T`, with PyTorch's antialiased weights built from the sizes (Pillow's scheme,
which PyTorch follows: the filter widened by the shrink factor, the taps inside the image,
each row divided by its sum; bicubic with A = -0.5), so they follow dynamic sizes. Resizing to
the same size gives the identity matrix.

Fix safety: unsafe, with TRT727's assumptions: the graph equals `F.interpolate` up to float
rounding (the sums run in another order; measured about 1e-6 of the largest value in
float32), for finite inputs only (a matrix product multiplies an inf or NaN by every zero
weight, so it spreads over its whole image and channel), `torch.jit.script` cannot compile
the helper's call, and two (out x in) matrix products cost more than the kernel on large
images. One more difference, PyTorch's: measured with torch 2.13 on CPU, an antialiased
resize to an output width of 1 repeats the first row's value down every row; the matrices
compute each row. `trtcodemod migrate` tries the rewrite where the export fails on the
antialiased kernel or the graph has an antialiased Resize, and keeps it only when the
verification finds the rewritten model equivalent.

What to do by hand where no rewrite applies (`transforms.functional.resize`, a size of one
number): pass `antialias=False` (values change when downscaling; blur first with a fixed
depthwise convolution, or pool with `F.avg_pool2d` for integer factors), or resize in
preprocessing, outside the engine. Applies to every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the input is finite (one inf or NaN spreads over the whole output), and the exported values may differ by "
            "float rounding"),
        examples=(
            Example("def shrink(x):\n    return F.interpolate(x, size=(56, 56), mode='bilinear', antialias=True)\n",
                    "def shrink(x):\n    return _trt_interpolate(x, size=(56, 56), mode='bilinear', antialias=True)\n",
                    unsafe=True),
            Example(
                "from torchvision import transforms as T\n"
                "class Preprocess(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.resize = T.Resize((224, 224))\n",
                "from torchvision import transforms as T\n"
                "class Preprocess(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.resize = _TrtResize(T.Resize((224, 224)))\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.interpolate.html",
            "https://pytorch.org/vision/stable/generated/torchvision.transforms.Resize.html",
            "https://onnx.ai/onnx/operators/onnx__Resize.html",
            _OPERATORS,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and node.func.value == RESIZE_HELPER:
            # already held by our module: the transform inside is not found again
            self._held = getattr(self, "_held", set()) | {id(arg.value) for arg in node.args}
            return
        if self.context.refers_to(node.func, "torch.nn.functional.interpolate"):
            how = antialiased(node, self._scopes) or self._met_true(node)
            if how is None:
                return
            mode = argument(node, 3, "mode")
            if mode is None or type(mode.value) is not cst.SimpleString:
                kind = "the antialiased kernel of the mode it is given"
            else:
                kind = "the antialiased " + ("bicubic" if "cubic" in _text(mode.value) else "bilinear") + " kernel"
            fix = Fix({node: node.with_changes(func=cst.Name(INTERPOLATE_HELPER))}, safety=Safety.UNSAFE,
                      helpers=(INTERPOLATE_HELPER,))
            self.found(node, f"`F.interpolate(...)` with {how}: the TorchScript exporter cannot export {kind} "
                       "and the dynamo exporter emits a Resize with antialias=1, which TensorRT does not "
                       "support; compute PyTorch's antialiased weights as matrices while exporting (equal up to "
                       "rounding for finite inputs)", fix, scope="runtime")
            return
        tv = self.context.refers_to(node.func, *_TV_RESIZE_CLASSES, *_TV_RESIZE_FUNCTIONS)
        if tv is None or id(node) in getattr(self, "_held", ()):
            return
        where = self.current_method()
        if where is None or not where[0].is_module:
            return  # a data pipeline, not the model
        is_class = tv in _TV_RESIZE_CLASSES
        antialias = argument(node, 3 if is_class else 4, "antialias")
        interpolation = argument(node, 1 if is_class else 2, "interpolation")
        if antialias is not None and not is_true(antialias.value):
            return  # antialias=False, or a value we cannot read
        if interpolation is not None and _nearest(interpolation.value):
            return
        what = "`Resize`" if is_class else "`resize`"
        fix = None
        size = argument(node, 0, "size")
        if is_class and not (size is None or type(size.value) is cst.Integer
                             or type(size.value) in (cst.List, cst.Tuple) and len(size.value.elements) == 1):
            fix = Fix({node: cst.Call(func=cst.Name(RESIZE_HELPER), args=[cst.Arg(node)])}, safety=Safety.UNSAFE,
                      helpers=(RESIZE_HELPER,))
        self.found(node, f"torchvision {what} inside a module antialiases tensors by default: the TorchScript "
                   "exporter cannot export it and the dynamo exporter emits a Resize with antialias=1, which "
                   "TensorRT does not support; " + (
                       "hold it in a module that resizes a floating image to a fixed size by antialiased weight "
                       "matrices while exporting (equal up to rounding for finite inputs)" if fix else
                       "pass antialias=False (values change when downscaling) or resize in preprocessing"), fix)


    def _met_true(self, node: cst.Call) -> str | None:
        """``antialias=<expression>`` (not a literal False) where the recorded export stopped at an
        antialiased kernel made on this call's lines: the run took it true (rf-detr's windowed DINOv2,
        ``antialias=patch_pos_embed.device.type != "mps"``). The helper is the same call outside an
        export, so it keeps whatever the expression gives there."""
        arg = argument(node, 6, "antialias")
        if arg is None or is_false(arg.value):
            return None
        if not self.provider(ObservedFacts).located(node, self.info.id):
            return None
        return f"`antialias={short_code(arg.value)}`, which the recorded export met true (it stopped at the " \
               "antialiased kernel made here)"


def _text(node: cst.BaseExpression) -> str:
    return node.evaluated_value if type(node) is cst.SimpleString else ""


RULES = (TensorCopy, GeluOp, ConvDynamicWeight, AntialiasResize)
