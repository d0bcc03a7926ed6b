"""Bicubic interpolation → weight matrices TensorRT parses (TRT727).

``F.interpolate(x, ..., mode="bicubic")`` exports, with both exporters, as an ONNX ``Resize``
in cubic mode; TensorRT's Resize is nearest or linear only, so the engine does not build.
The rewrite routes the call through ``_trt_interpolate`` (same signature), which is
``F.interpolate`` outside ``torch.onnx.export`` and, while exporting, computes PyTorch's
bicubic weights as two matrices (``trtcodemod/helpers/interpolate.py``). The antialiased
form is TRT725's (no fix).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, bound_names, is_true, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._attribute_config import class_writes
from trtcodemod.transforms._runtime_scope import RuntimeScope, RuntimeScopeRule

HELPER = "_trt_interpolate"
MODULE_HELPER = "_TrtUpsample"

_FUNCTIONS = ("torch.nn.functional.interpolate",)
_MODULES = ("torch.nn.Upsample", "torch.nn.modules.Upsample", "torch.nn.modules.upsampling.Upsample")


def _is_bicubic(arg: cst.Arg | None) -> bool:
    """The mode is the literal string ``"bicubic"``."""
    return arg is not None and type(arg.value) is cst.SimpleString and arg.value.evaluated_value == "bicubic"


def antialiased(call: cst.Call, scopes: list[cst.CSTNode]) -> str | None:
    """How an ``F.interpolate`` call is known to antialias: ``antialias=True`` written out; the
    enclosing function's parameter that defaults to True and is never rebound (timm's
    ``resample_abs_pos_embed(..., antialias: bool = True)``); or ``self.<attr>`` that its class
    stores once, as True or as such a parameter of ``__init__`` (timm's NaFlexViT
    ``self.pos_embed_antialias``); None otherwise."""
    arg = argument(call, 6, "antialias")
    if arg is None:
        return None
    if is_true(arg.value):
        return "`antialias=True`"
    if type(arg.value) is cst.Attribute:
        return _configured_true(arg.value, scopes)
    if type(arg.value) is not cst.Name:
        return None
    name = arg.value.value
    function = next((scope for scope in reversed(scopes) if type(scope) is cst.FunctionDef), None)
    if function is None or not _defaults_to_true(function, name):
        return None
    return f"`antialias={name}`, a parameter that defaults to True"


def _configured_true(value: cst.Attribute, scopes: list[cst.CSTNode]) -> str | None:
    """``self.<attr>`` when the innermost class stores it exactly once: True, or an ``__init__``
    parameter that defaults to True and is never rebound there. A value stored in several places,
    a default of False (DINOv2's ``interpolate_antialias``) or a value from elsewhere: None."""
    if type(value.value) is not cst.Name or value.value.value != "self":
        return None
    cls = next((scope for scope in reversed(scopes) if type(scope) is cst.ClassDef), None)
    writes = class_writes(cls, value.attr.value) if cls is not None else []
    if len(writes) != 1:
        return None
    method, stored = writes[0]
    attribute = f"self.{value.attr.value}"
    if is_true(stored):
        return f"`antialias={attribute}`, which its class sets to True"
    if type(stored) is cst.Name and method.name.value == "__init__" and _defaults_to_true(method, stored.value):
        return f"`antialias={attribute}`, set from a constructor parameter that defaults to True"
    return None


def _defaults_to_true(function: cst.FunctionDef, name: str) -> bool:
    """Whether ``name`` is a parameter of ``function`` that defaults to True and is never rebound."""
    params = function.params
    for param in (*params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default is not None and is_true(param.default) and not _rebound(function, name)
    return False


def _rebound(function: cst.FunctionDef, name: str) -> bool:
    """Whether the body of ``function`` binds ``name`` again (an assignment, loop or walrus)."""
    for node in walk(function.body):
        target = getattr(node, "target", None) if type(node) in (
            cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.CompFor) else None
        if target is not None and name in bound_names(target):
            return True
    return False


class BicubicResize(RuntimeScopeRule):
    scope = "anywhere"
    requires = (RuntimeScope, ObservedFacts)
    needs_text = spelled(*_FUNCTIONS, *_MODULES)
    info = RuleInfo(
        id="TRT727",
        name="bicubic-resize",
        summary="bicubic `F.interpolate` exports as a cubic `Resize`, which TensorRT cannot parse; "
                "use bicubic weight matrices",
        doc="""\
What it finds: `F.interpolate(..., mode="bicubic")` (any import alias of
`torch.nn.functional.interpolate`) in run-time code, and `nn.Upsample(..., mode="bicubic")`
where the module is built, with the mode written as the literal string `"bicubic"`; inside
`migrate` (or with `--facts`), also `F.interpolate(..., mode=mode)` with the mode held in a name or
an attribute where the recorded graph has a cubic Resize made at the call (EfficientViT-SAM's
`resize(x, size, mode="bicubic")` helper in `efficientsam/models/utils/network.py`, whose
`F.interpolate(x, size=size, mode=mode, ...)` also runs bilinear: the helper resizes by matrices only
where the mode it is given is bicubic). Not reported: `antialias=True` (TRT725's: no exporter gives
TensorRT that resize), a mode held in a variable that no recorded graph showed cubic, the deprecated `F.upsample(..., mode="bicubic")`, and projects' own
`interpolate` wrappers.

Why it hurts: both exporters (torch 2.13) emit an ONNX `Resize` with `mode="cubic"`, and
TensorRT's ONNX parser takes Resize in nearest and linear modes only, in every version: the
engine does not build. Vision transformers hit it when they interpolate their position
embeddings to the image size (timm, transformers' ViT/DeiT/YOLOS/DINOv2).

The rewrite: `F.interpolate(...)` → `_trt_interpolate(...)`, the same arguments, and
`nn.Upsample(...)` → `_TrtUpsample(...)`, an inserted subclass whose forward calls it.
`_trt_interpolate` is `F.interpolate` itself outside `torch.onnx.export`. While exporting, a
bicubic call on a 4-D floating tensor becomes `Wh @ x @ Ww^T`: `Wh` and `Ww` hold PyTorch's
bicubic weights (A = -0.75; the source coordinate of `align_corners` True and False; `size=`
or `scale_factor=` with and without `recompute_scale_factor`; taps past the border read the
border), built from the sizes with Range, Floor, Min/Max, Equal and Mul, so they follow
dynamic input and output sizes. float16/bfloat16 are computed in float32 and rounded back.

Fix safety: unsafe. Eager, `torch.fx`, `torch.compile` and `torch.export` run
`F.interpolate` itself (same values, gradients, errors), and a scripted `_TrtUpsample` runs
`nn.Upsample`'s call; but `torch.jit.script` cannot compile a function that calls
`_trt_interpolate` (its arguments are untyped). The exported graph equals `F.interpolate`
only under assumptions:
- up to float rounding: the matrix product sums in another order (measured: a few units in
  the last place, about 2e-6 of the largest value in float32, 3e-15 in float64);
- finite inputs only: a matrix product multiplies every input by its weight, zero or not,
  and 0 * inf and 0 * NaN are NaN, so one NaN or inf turns the whole output plane of its
  image and channel into NaN (or inf), where PyTorch's four-tap sum changes only the outputs beside
  it;
- antialias off (`antialias=True` keeps `F.interpolate` and its Resize);
- an output size of 0 raises in PyTorch but gives an empty tensor in the graph, and an
  output size computed from `scale_factor` is rounded in float32, as the TorchScript
  exporter's own Resize does;
- cost: two (out x in) matrix products instead of a four-tap kernel; small for position
  embeddings, more for large images (`benchmarks/bicubic.py`).
`trtcodemod migrate` tries it as a candidate where the graph check finds a cubic Resize,
and keeps it only when the verification finds the rewritten model equivalent.

TensorRT versions: all (no version parses cubic Resize). The new graph uses Range, Floor,
Clip, Min, Equal, Cast, Mul, Add and MatMul, parsed since TensorRT 8.4.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the input is finite (one inf or NaN spreads over the whole output), and the exported values may differ by "
            "float rounding"),
        examples=(
            Example(
                "def resize_pos_embed(pos, h, w):\n"
                "    return F.interpolate(pos, size=(h, w), mode='bicubic', align_corners=False)\n",
                "def resize_pos_embed(pos, h, w):\n"
                "    return _trt_interpolate(pos, size=(h, w), mode='bicubic', align_corners=False)\n",
                unsafe=True,
            ),
            Example("self.up = nn.Upsample(scale_factor=2, mode='bicubic')\n",
                    "self.up = _TrtUpsample(scale_factor=2, mode='bicubic')\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.interpolate.html",
            "https://onnx.ai/onnx/operators/onnx__Resize.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.refers_to(node.func, *_FUNCTIONS):
            mode = argument(node, 3, "mode")
            if antialiased(node, self._scopes):
                return  # antialiased: TRT725's
            if not _is_bicubic(mode) and not (mode is not None and type(mode.value) is not cst.SimpleString
                                              and self.provider(ObservedFacts).located(node, self.info.id)):
                return
            fix = Fix({node: node.with_changes(func=cst.Name(HELPER))}, safety=Safety.UNSAFE, helpers=(HELPER,))
            self.found(node, "`F.interpolate(..., mode=\"bicubic\")` exports as a cubic Resize, which TensorRT "
                       "cannot parse; compute the bicubic weights as matrices while exporting (equal up to "
                       "rounding for finite inputs)", fix, scope="runtime")
        elif self.context.refers_to(node.func, *_MODULES) and _is_bicubic(argument(node, 2, "mode")):
            fix = Fix({node: node.with_changes(func=cst.Name(MODULE_HELPER))}, safety=Safety.UNSAFE,
                      helpers=(MODULE_HELPER,))
            self.found(node, "`nn.Upsample(mode=\"bicubic\")` exports as a cubic Resize, which TensorRT cannot "
                       "parse; use a subclass that computes the bicubic weights as matrices while exporting "
                       "(equal up to rounding for finite inputs)", fix)


RULES = (BicubicResize,)
