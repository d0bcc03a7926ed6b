"""Torch functions with no TorchScript ONNX symbolic (TRT337): a composition while exporting.

One rule with a table (:data:`OPS`): per function, the names it is called by, whether its method
form is taken, the parameters the inserted helper (``trtcodemod/helpers/symbolics.py``) accepts, and
whether the export-time composition gives the function's values bit for bit (a safe fix) or only
up to rounding or the sign of a NaN (an unsafe one). Calls with an argument form the helper does
not take (``out=``, unpacked arguments, unknown keywords) are reported without a fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver


@dataclass(frozen=True)
class MissingSymbolic:
    """One row of TRT337's table."""

    #: The torch function's name (``aten::<name>``) and its helper ``_trt_<name>``.
    name: str
    #: Qualified names of the function form.
    functions: tuple[str, ...]
    #: Whether ``x.<name>(...)`` is taken too.
    method: bool
    #: The helper's parameters, in order (the first is the tensor).
    params: tuple[str, ...]
    #: Bit for bit on every input (True) or up to rounding / a NaN's sign (False: an unsafe fix).
    exact: bool
    #: What the graph computes instead, in a few words.
    composition: str
    #: The inserted helper when it is not ``_trt_<name>`` (one another rule shares).
    helper_name: str = ""
    #: Which calls the exporter refuses, where only some are (a mode, a flag): None, all of them.
    takes: Callable[[cst.Call], bool] | None = None
    #: What the exporter cannot convert, for the message (default: ``torch.<name>``, aten::<name>).
    label: str = ""
    #: Whether ``torch.jit.script`` compiles a call of the helper (False: an unsafe fix even when ``exact``).
    scripts: bool = True
    #: The helper has the function's own signature, so ``*args`` and ``**kwargs`` pass through it.
    forwards_stars: bool = False
    #: Where the exporter does convert the call, the operators it writes that TensorRT never parses
    #: (``torch.hstack``: SequenceConstruct and ConcatFromSequence); empty where it stops the export.
    exports_as: str = ""
    #: The first argument is a sequence of tensors: taken only as a list or tuple display or a list
    #: comprehension, and a tuple display is passed as a list (``torch.jit.script`` gives a helper's
    #: ``list[torch.Tensor]`` parameter no tuple).
    sequence: bool = False

    @property
    def safe(self) -> bool:
        return self.exact and self.scripts

    @property
    def helper(self) -> str:
        return self.helper_name or f"_trt_{self.name}"

    @property
    def refused(self) -> str:
        return self.label or f"`torch.{self.name}` (aten::{self.name})"


def _op(name: str, params: tuple[str, ...], exact: bool, composition: str, *, method: bool = True,
        functions: tuple[str, ...] = (), helper: str = "", takes: Callable[[cst.Call], bool] | None = None,
        label: str = "", scripts: bool = True) -> MissingSymbolic:
    return MissingSymbolic(name, functions or (f"torch.{name}",), method, ("input", *params), exact, composition,
                           helper, takes, label, scripts)


def _string_is(position: int | None, keyword: str, text: str) -> Callable[[cst.Call], bool]:
    """Calls whose argument ``keyword`` (or at ``position``) is the literal string ``text``."""
    def takes(call: cst.Call) -> bool:
        arg = argument(call, position, keyword)
        return arg is not None and type(arg.value) is cst.SimpleString and arg.value.evaluated_value == text
    return takes


def _flag_set(keyword: str) -> Callable[[cst.Call], bool]:
    """Calls that pass ``keyword=`` as anything but the literal False (a variable may hold True), or pass
    ``**kwargs``, which may hold it (transformers' ``sdpa_attention_forward`` sets ``enable_gqa`` that way)."""
    def takes(call: cst.Call) -> bool:
        arg = argument(call, None, keyword)
        if arg is None:
            return any(a.star == "**" for a in call.args)
        return not (type(arg.value) is cst.Name and arg.value.value == "False")
    return takes


def _threshold_not_zero(first: int) -> Callable[[cst.Call], bool]:
    """Calls whose threshold and value (at ``first`` and after it) are not both a literal 0: with both 0
    it is a ReLU, which the exporter converts."""
    def takes(call: cst.Call) -> bool:
        given = (argument(call, first, "threshold"), argument(call, first + 1, "value"))
        return not all(arg is not None and type(arg.value) in (cst.Integer, cst.Float)
                       and float(arg.value.value) == 0 for arg in given)
    return takes


def _sequence_display(call: cst.Call) -> bool:
    """Calls whose tensors are a list or tuple display (no unpacking) or a list comprehension."""
    arg = argument(call, 0, "tensors")
    if arg is None:
        return False
    if type(arg.value) in (cst.List, cst.Tuple):
        return not any(type(e) is cst.StarredElement for e in arg.value.elements)
    return type(arg.value) is cst.ListComp


def _stacking(name: str, composition: str, helper_name: str = "") -> MissingSymbolic:
    refused = name in ("dstack", "column_stack")  # no symbolic; hstack and vstack export as sequences
    return MissingSymbolic(name, (f"torch.{name}",), False, ("tensors",), True, composition, helper_name=helper_name,
                           takes=_sequence_display, sequence=True,
                           exports_as="" if refused else "SequenceConstruct/ConcatFromSequence (and for `hstack` an "
                                                         "`If` on the first tensor's rank)")


_INTERPOLATE_PARAMS = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias")


#: Each row is backed by tests/transforms/test_missing_symbolic.py: the original's TorchScript export
#: fails (opset 17), the rewritten one passes the TensorRT graph check, and ONNX Runtime gives eager
#: torch's values (bit for bit where ``exact``).
OPS: tuple[MissingSymbolic, ...] = (
    _op("take_along_dim", ("indices", "dim"), True, "GatherElements on the operands broadcast to each other"),
    _op("diff", ("n", "dim", "prepend", "append"), True, "differences of two slices (Xor for bool)"),
    _op("rot90", ("k", "dims"), True, "the flips and transpose torch itself takes"),
    _op("count_nonzero", ("dim",), True, "the sum of `x != 0`"),
    _op("nansum", ("dim", "keepdim", "dtype"), True, "the sum with each NaN replaced by 0"),
    _op("nanmean", ("dim", "keepdim", "dtype"), True, "that sum over the count of numbers"),
    _op("trunc", (), True, "`floor` at or above 0, `ceil` below", functions=("torch.trunc", "torch.fix")),
    _op("ravel", (), True, "`contiguous().view(-1)`, the two calls torch's own `ravel` makes"),
    _op("heaviside", ("values",), True, "`values` where the input is 0, else `input > 0`"),
    _op("isclose", ("other", "rtol", "atol", "equal_nan"), True,
        "torch's formula, each half-precision step rounded as torch rounds it"),
    _op("kron", ("other",), True, "the product on interleaved axes, as torch computes it"),
    _op("channel_shuffle", ("groups",), True, "a reshape to (groups, channels / groups) and a transpose",
        method=False, functions=("torch.nn.functional.channel_shuffle", "torch.channel_shuffle",
                                 "torch.native_channel_shuffle")),
    _op("xlogy", ("other",), False, "`where(isnan(y), y, where(x == 0, 0, x * log(y)))`",
        functions=("torch.xlogy", "torch.special.xlogy")),
    _op("sinc", (), False, "`where(x == 0, 1, sin(pi x) / (pi x))`", functions=("torch.sinc", "torch.special.sinc")),
    _op("signbit", (), False, "`x < 0`, or for a zero `1 / x < 0` (a NaN reads as positive)"),
    _op("copysign", ("other",), False, "`|x|` negated where `other` is negative or -0.0 (a NaN reads as positive)"),
    _op("trace", (), False, "the sum of the masked diagonal in the input's type (torch sums a float one in double)"),
    _op("logaddexp", ("other",), False, "`max + log(1 + exp(min - max))` (ONNX has no log1p)"),
    _op("hypot", ("other",), False, "`big * sqrt(1 + (small / big) ** 2)`"),
    _op("cumprod", ("dim", "dtype"), False, "ReduceProd over a triangle (`n * n` values per row), no logarithm"),
    _op("rms_norm", ("normalized_shape", "weight", "eps"), False,
        "`x * rsqrt(mean(x * x) + eps) * weight` over the normalized axes, in float32 for half input as torch "
        "computes it (ReduceMean sums in ONNX Runtime's order)", method=False,
        functions=("torch.nn.functional.rms_norm", "torch.rms_norm")),
    _op("expm1", (), False, "`(u - 1) * x / log(u)` with `u = exp(x)`, `x` where `u` is 1",
        functions=("torch.expm1", "torch.special.expm1")),
    _op("fmin", ("other",), False, "`other` where it is below the input or the input is NaN (a Where: ONNX Runtime "
        "reads a -0.0 it picks from `other` as 0.0)"),
    _op("fmax", ("other",), False, "`other` where it is above the input or the input is NaN (a Where: ONNX Runtime "
        "reads a -0.0 it picks from `other` as 0.0)"),
    _op("fliplr", (), True, "`flip` of axis 1"),
    _op("flipud", (), True, "`flip` of axis 0"),
    _op("adjoint", (), True, "a real tensor's last two axes transposed (the same view)"),
    _op("diag_embed", ("offset", "dim1", "dim2"), True,
        "a Where of the values on a square of zeros (by row and column number), moved to `dim1` and `dim2`"),
    _op("frac", (), True, "`x - trunc(x)`, the truncation as `trunc`'s composition"),
    _op("sgn", (), True, "`sign` of a real tensor"),
    _op("threshold", ("threshold", "value", "inplace"), True,
        "a Where with the input in its second branch (the comparison in float32 for half input, as torch)",
        method=False, functions=("torch.nn.functional.threshold", "torch.threshold"), takes=_threshold_not_zero(1),
        label="`F.threshold` to a threshold or value other than 0"),
    _op("addcdiv", ("tensor1", "tensor2", "value"), True, "`input + value * tensor1 / tensor2` in torch's order"),
    _op("nearest_exact", _INTERPOLATE_PARAMS, True,
        "per spatial axis a Gather of the rows `min(floor((i + 0.5) * scale), in - 1)`, computed in float32 as "
        "torch's kernel does", method=False, functions=("torch.nn.functional.interpolate",),
        helper="_trt_interpolate", takes=_string_is(3, "mode", "nearest-exact"), scripts=False,
        label='`F.interpolate(..., mode="nearest-exact")` (aten::_upsample_nearest_exact1d/2d/3d)'),
    MissingSymbolic(
        "sdpa_gqa", ("torch.nn.functional.scaled_dot_product_attention",), False,
        ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"), True,
        "each key and value head repeated for its group of query heads (as torch's math kernel does), then the "
        "attention without `enable_gqa`", helper_name="_trt_sdpa", takes=_flag_set("enable_gqa"),
        label="`F.scaled_dot_product_attention(..., enable_gqa=True)`", forwards_stars=True),
    _op("bilinear", ("input2", "weight", "bias"), False,
        "`x1 W x2` as two broadcast MatMuls per output feature, plus the bias", method=False,
        functions=("torch.nn.functional.bilinear", "torch.bilinear")),
    _op("logcumsumexp", ("dim",), False,
        "per position the log-sum-exp of the values at or before it over a triangle (`n * n` values per row), "
        "shifted by each row's maximum"),
    _op("renorm", ("p", "dim", "maxnorm"), False,
        "each slice along `dim` times `maxnorm / (norm + 1e-7)` where its `p`-norm exceeds `maxnorm` (torch's "
        "kernel's factor), the norm a reduction over the other axes (braindecode's max-norm weights)"),
    _op("sinh", (), False, "`(e + e / (e + 1)) / 2` with `e = expm1(|x|)`, the sign as a product"),
    _op("cosh", (), False, "`(u + 1 / u) / 2` with `u = exp(|x|)`"),
    _op("asinh", (), False, "`log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`, the sign as a product",
        functions=("torch.asinh", "torch.arcsinh")),
    _op("acosh", (), False, "`log1p(t + sqrt(t * (t + 2)))` with `t = x - 1`",
        functions=("torch.acosh", "torch.arccosh")),
    _op("atanh", (), False, "`log1p(2|x| / (1 - |x|)) / 2`, the sign as a product",
        functions=("torch.atanh", "torch.arctanh")),
    _stacking("hstack", "`cat` along axis 1 (axis 0 for 1-D tensors), a 0-D tensor as one value"),
    _stacking("vstack", "`cat` along axis 0 of the tensors made at least 2-D (`(n,)` as `(1, n)`)"),
    _stacking("row_stack", "`cat` along axis 0 of the tensors made at least 2-D (`(n,)` as `(1, n)`)",
              "_trt_vstack"),  # torch's alias of `vstack`
    _stacking("dstack", "`cat` along axis 2 of the tensors made at least 3-D (`(n,)` as `(1, n, 1)`, `(m, n)` as "
                        "`(m, n, 1)`)"),
    _stacking("column_stack", "`cat` along axis 1 of the tensors with each 0-D or 1-D one as a column"),
)
_BY_FUNCTION = {qualified: op for op in OPS for qualified in op.functions}
_BY_METHOD = {op.name: op for op in OPS if op.method}
#: Methods torch also spells another way (NumPy's names).
_BY_METHOD.update({alias: _BY_METHOD[name] for alias, name in (("arcsinh", "asinh"), ("arccosh", "acosh"),
                                                                ("arctanh", "atanh"))})


@dataclass(frozen=True)
class MissingModule:
    """A torch module whose forward calls one of :data:`OPS`: built as a helper subclass instead."""

    #: Qualified names of the class.
    classes: tuple[str, ...]
    #: The helper subclass (same ``__init__``, state and repr; forward calls the function's helper).
    helper: str
    #: The function its forward calls (a row of :data:`OPS`).
    op: str
    #: The constructor's parameters the subclass is known to take; None: any (its ``__init__`` is torch's).
    params: tuple[str, ...] | None
    #: Which constructions build a module whose forward the exporter refuses (a mode): None, all.
    takes: Callable[[cst.Call], bool] | None = None


MODULES: tuple[MissingModule, ...] = (
    MissingModule(("torch.nn.ChannelShuffle", "torch.nn.modules.channelshuffle.ChannelShuffle"),
                  "_TrtChannelShuffle", "channel_shuffle", ("groups",)),
    MissingModule(("torch.nn.RMSNorm", "torch.nn.modules.normalization.RMSNorm"), "_TrtRMSNorm", "rms_norm", None),
    MissingModule(("torch.nn.Bilinear", "torch.nn.modules.linear.Bilinear"), "_TrtBilinear", "bilinear", None),
    MissingModule(("torch.nn.Threshold", "torch.nn.modules.activation.Threshold"), "_TrtThreshold", "threshold",
                  None, takes=_threshold_not_zero(0)),
    # TRT727 builds the same subclass for a bicubic mode; the helper takes either mode while exporting.
    MissingModule(("torch.nn.Upsample", "torch.nn.modules.Upsample", "torch.nn.modules.upsampling.Upsample"),
                  "_TrtUpsample", "nearest_exact", None, takes=_string_is(2, "mode", "nearest-exact")),
)
_BY_MODULE = {qualified: module for module in MODULES for qualified in module.classes}
_MODULES = tuple(_BY_MODULE)

_TABLE = "\n".join(f"- `{op.name}` ({'safe' if op.safe else 'unsafe'}): {op.composition}." for op in OPS)


class MissingSymbolicRule(Rule):
    needs_text = spelled(*_BY_FUNCTION, *_MODULES)
    info = RuleInfo(
        id="TRT337",
        name="missing-symbolic",
        summary="torch functions the TorchScript exporter cannot convert (take_along_dim, diff, rot90, isclose, "
                "trunc, kron, cumprod, frac, fliplr, nearest-exact resizing, SDPA with enable_gqa...) or writes "
                "as sequence operators (hstack, vstack); a composition of supported ops while exporting",
        doc=f"""\
What it finds: calls of torch functions that have no ONNX symbolic in the TorchScript exporter
(`torch.onnx.export(dynamo=False, opset_version=17)`, torch 2.13, raises
`UnsupportedOperatorError`), in function form (`torch.diff(x)`, `torch.special.xlogy(x, y)`,
`F.channel_shuffle(x, g)`, `F.rms_norm(x, shape, w, eps)`) and method form (`x.diff()`), and
`nn.ChannelShuffle`, `nn.RMSNorm`, `nn.Bilinear` and `nn.Threshold` modules. Some are refused only with some
arguments, and only those calls are taken: `F.interpolate(..., mode="nearest-exact")` and
`nn.Upsample(..., mode="nearest-exact")` with the mode written as that string (and a class of the
file that subclasses `nn.Upsample` and is built so: Wan's and Qwen-Image's VAEs), the
`F.scaled_dot_product_attention` calls that pass `enable_gqa` as anything but `False` or pass
`**kwargs` (transformers' SDPA integration sets it there), and `F.threshold`/`nn.Threshold` unless
both numbers are a literal 0 (a ReLU, which exports). A call
with other arguments (`out=`, unpacked ones, keywords the function does not have) is reported
without a fix; a method call whose arguments no tensor method takes is another object's
(`tracer.trace(model)`) and is left alone, as are in-place methods (`x.trunc_()`).

Why it hurts: the export stops at the first such call, so there is no ONNX file for TensorRT.
Real forward code uses them: kornia inverts and checks its homographies with `torch.isclose`
(`kornia/filters/kernels.py`) and `torch.diff`, its solvers take `torch.copysign`; transformers'
layout models `torch.take_along_dim`; `torch.rot90`, `torch.cumprod` and `torch.count_nonzero` in
augmentation-free inference code. Torch's own RMS norm (`nn.RMSNorm`, `F.rms_norm`, torch 2.4 and
newer) is what newer vision towers normalize with: timm's `RmsNorm` calls it (`timm/layers/norm.py`,
imported as `try: from torch.nn.functional import rms_norm`, with timm's own formula as the
fallback: the rewritten call falls back to the same formula on a torch without it), and so do its
Gemma 4, DeepSeek, AIMv2 and ViT-XP towers, vit-pytorch's newer ViTs and transformers' DiffLlama;
the TorchScript exporter has no symbolic for it at any opset it writes. `torch.expm1` is in
transformers' activations and state-space mixers, `torch.fmin`/`torch.fmax` in kornia's RANSAC
and epipolar code. Nearest-exact resizing is how Wan 2.1's and Qwen-Image's video VAEs upsample
(`Upsample(scale_factor=(2., 2.), mode='nearest-exact')`, Wan-Video/Wan2.1 `wan/modules/vae.py`) and
how NAF resizes features; grouped-query attention through SDPA is torchtitan's, nanochat's and
transformers' (`enable_gqa=True` whenever a decoder has fewer key/value heads and no mask). kornia's
Canny detector thresholds with `F.threshold(magnitude, low_threshold, 0.0)`, its crop transforms
build matrices with `torch.diag_embed`, transformers' audio codecs' quantizers call `atanh` and
Moonshine `asinh`. `nn.Bilinear` scores pairs in biaffine parsers and fusion heads, and
`torch.logcumsumexp` is the parallel scan of log-space recurrences (minGRU's and Heinsen's sequences)
and of CTC-style alignments.

Stacking functions: `torch.hstack`, `torch.vstack` and `torch.row_stack` do export, but as
`SequenceConstruct`/`ConcatFromSequence` (and `hstack` with an `If` on the first tensor's rank),
which no TensorRT release parses; `torch.dstack` and `torch.column_stack` have no symbolic. RetinaFace
ports build their detections so, `dets = torch.hstack((boxes, scores.unsqueeze(1)))` before NMS
(pyfacer, several face-detection repositories), as do YOLOX-style post-processing scripts. The call
is taken where its tensors are a list or tuple display or a list comprehension (a tuple display is
passed as a list: a scripted caller gives the helper's `list[torch.Tensor]` no tuple); a name or an
unpacked sequence is reported only.

The rewrite: `torch.diff(x, dim=1)` → `_trt_diff(x, dim=1)` (`x.diff(dim=1)` → `_trt_diff(x,
dim=1)`), `nn.ChannelShuffle(g)` → `_TrtChannelShuffle(g)`, `nn.RMSNorm(d)` → `_TrtRMSNorm(d)` and
`nn.Bilinear(a, b, o)` → `_TrtBilinear(a, b, o)` (subclasses: same constructor, state and repr; `isinstance` still holds), `nn.Threshold(t, v)` →
`_TrtThreshold(t, v)`, `nn.Upsample(..., mode="nearest-exact")` → `_TrtUpsample(...)` (TRT727's
subclass; a file's own subclass of `nn.Upsample` is derived from it instead), `F.interpolate(...,
mode="nearest-exact")` → `_trt_interpolate(...)` and SDPA with `enable_gqa` → `_trt_sdpa(...)`
(TRT322's helper, the same signature),
each an inserted helper that is the torch function itself outside `torch.onnx.export` and, while
exporting, a composition of ops the exporter converts and TensorRT parses:
{_TABLE}
A tensor the composition does not take (complex, mismatched dtypes torch refuses, a dim out of
range) keeps the torch function while exporting too, and with it torch's error.

Fix safety: safe for the functions marked safe: eager, `torch.jit.script`, `torch.fx`,
`torch.compile` and `torch.export` run the torch function itself, and the composition computes
its values bit for bit (measured in float16, float32 and float64 with signed zeros, infinities
and NaN, integers and bool where the function takes them, empty tensors and broadcasting; the sums
of `nansum`, `nanmean` and the torch function reduce in ONNX Runtime's order, as `torch.sum`
exported does). Unsafe for the others (`--unsafe`): the composition rounds differently
(`xlogy`, `sinc`: torch's own `log`/`sin` differ by an ulp from the scalar ones these kernels
call; `logaddexp` without `log1p`; `hypot`; `trace` summed in float, not double; `cumprod` as a
product over a triangle, in the reduction's order; `expm1` from `exp` and `log`; `rms_norm`, whose
composition is torch's own bit for bit in eager mode, but whose exported ReduceMean and reciprocal
square root round in ONNX Runtime's and TensorRT's way, within a few float32 ulps), reads the sign
of a NaN as positive (`signbit`, `copysign`), or picks a -0.0 through a Where, which ONNX
Runtime turns into 0.0 (`fmin`, `fmax`; torch and the composition agree bit for bit in eager);
`sinh`, `cosh`, `asinh`, `acosh` and `atanh` are composed of `exp`, `log` and `sqrt` (without
`expm1`/`log1p`, which ONNX lacks: written out to stay accurate near 0), within two float32 ulps.
Nearest-exact resizing is bit for bit (a Gather copies the values; the source rows are torch's
float32 index arithmetic, the output size for a scale factor `p / 2^k` computed exactly in
integers), but the function form is unsafe: `torch.jit.script` cannot compile a call of
`_trt_interpolate` (F.interpolate's overloaded signature); the module form scripts as
`nn.Upsample`. The grouped-query attention repeats each key/value head as torch's own math kernel
does, bit for bit in eager mode; the exported attention then rounds as any exported SDPA does.

TensorRT versions: all (the export fails before TensorRT is involved; the compositions use
Slice, Gather(Elements), Where, comparisons, Floor/Ceil, Reciprocal, ReduceSum/ReduceProd, Log,
Exp, Sin, Sqrt, ReduceMean, Sign, Transpose, Range and Expand, which every release parses).""",
        fix=Safety.SAFE,
        assumption="for `xlogy`, `sinc`, `logaddexp`, `hypot`, `trace`, `cumprod`, `rms_norm`, `expm1`, `sinh`, `cosh`, "
                   "`asinh`, `acosh` and `atanh`: values within rounding of the torch function's are good enough "
                   "while exporting; for `signbit` and `copysign`: no NaN with its sign bit set reaches them; for "
                   "`fmin` and `fmax`: a -0.0 result may read as 0.0; for `F.interpolate(mode=\"nearest-exact\")`: "
                   "the function is not compiled by `torch.jit.script`",
        fails_when=("`torch.signbit(x)` of a NaN whose sign bit is set (x86's `0.0 / 0.0` is one) is True; the "
                    "graph says False",
                    "`torch.cumprod` of long axes or values near overflow: the product's order differs, so does "
                    "its rounding (and where it overflows)",
                    "`torch.logaddexp(a, b)` of a large gap: `log(1 + e)` rounds `e` away where `log1p` keeps it",
                    "`torch.fmin(a, b)` whose result is a -0.0 taken from `b`: ONNX Runtime's Where gives 0.0",
                    "`torch.sinh(x)` and the other hyperbolic functions: an ulp or two from torch's own values",
                    "a scripted function that calls `F.interpolate(..., mode=\"nearest-exact\")`: the rewritten call "
                    "does not compile under `torch.jit.script`"),
        examples=(
            Example(
                "def edges(x):\n"
                "    return torch.diff(x, dim=-1).abs() + x.diff(dim=-2).abs().sum()\n",
                "def edges(x):\n"
                "    return _trt_diff(x, dim=-1).abs() + _trt_diff(x, dim=-2).abs().sum()\n",
            ),
            Example(
                "def gather_boxes(boxes, order):\n"
                "    return torch.take_along_dim(boxes, order[..., None], dim=1)\n",
                "def gather_boxes(boxes, order):\n"
                "    return _trt_take_along_dim(boxes, order[..., None], dim=1)\n",
            ),
            Example(
                "class Block(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.shuffle = nn.ChannelShuffle(4)\n",
                "class Block(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.shuffle = _TrtChannelShuffle(4)\n",
            ),
            Example("def decay(rates):\n    return torch.cumprod(1 - rates, dim=0)\n",
                    "def decay(rates):\n    return _trt_cumprod(1 - rates, dim=0)\n", unsafe=True),
            Example("def norm(x, weight):\n    return F.rms_norm(x, (x.shape[-1],), weight, 1e-6)\n",
                    "def norm(x, weight):\n    return _trt_rms_norm(x, (x.shape[-1],), weight, 1e-6)\n", unsafe=True),
            Example(
                "class Resample(nn.Module):\n"
                "    def __init__(self, dim):\n"
                "        super().__init__()\n"
                "        self.up = nn.Upsample(scale_factor=2.0, mode='nearest-exact')\n",
                "class Resample(nn.Module):\n"
                "    def __init__(self, dim):\n"
                "        super().__init__()\n"
                "        self.up = _TrtUpsample(scale_factor=2.0, mode='nearest-exact')\n",
            ),
            Example("def attend(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v, is_causal=True, "
                    "enable_gqa=True)\n",
                    "def attend(q, k, v):\n    return _trt_sdpa(q, k, v, is_causal=True, enable_gqa=True)\n"),
            Example("total = torch.nansum(x, out=buffer)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.interpolate.html",
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html",
            "https://github.com/Wan-Video/Wan2.1/blob/main/wan/modules/vae.py",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        #: This file's subclasses of a module in :data:`MODULES` whose own constructor is torch's: name ->
        #: (the base as written, the module), and those already reported.
        self._subclasses: dict[str, tuple[cst.BaseExpression, MissingModule]] = {}
        self._reported_bases: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        own_init = any(type(s) is cst.FunctionDef and s.name.value == "__init__" for s in node.body.body)
        for base in node.bases:
            qualified = self.context.refers_to(base.value, *_MODULES)
            if qualified is not None and _BY_MODULE[qualified].takes is not None and not own_init:
                self._subclasses[node.name.value] = (base.value, _BY_MODULE[qualified])

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if type(node.func) is cst.Name and node.func.value in self._subclasses:
            self._subclass(node, node.func.value)
            return
        qualified = self.context.refers_to(node.func, *_BY_FUNCTION, *_MODULES)
        if qualified in _BY_MODULE:
            module = _BY_MODULE[qualified]
            if module.takes is None or module.takes(node):
                self._module(node, module)
            return
        if qualified is not None:
            op = _BY_FUNCTION[qualified]
            if op.takes is None or op.takes(node):
                self._call(node, op, None)
            elif op.sequence:
                self.report(node, f"the TorchScript exporter writes {op.refused} as {op.exports_as or 'nothing'}; "
                                  f"take {op.composition} while exporting (not rewritten: the tensors are not a list "
                                  "or tuple display, which a scripted helper needs)")
            return
        receiver = tensor_method_receiver(self, node, tuple(_BY_METHOD))
        if receiver is not None:
            self._call(node, _BY_METHOD[node.func.attr.value], receiver)  # type: ignore[attr-defined]

    def _call(self, node: cst.Call, op: MissingSymbolic, receiver: cst.BaseExpression | None) -> None:
        message = (f"the TorchScript exporter writes {op.refused} as {op.exports_as}, which TensorRT never parses"
                   if op.exports_as else f"the TorchScript exporter cannot convert {op.refused}, so the model does not "
                                         "export")
        if receiver is None and op.forwards_stars and has_star_args(node):
            kind = "bit for bit" if op.exact else "up to rounding"
            self.report(node, f"{message} (where the unpacked arguments hold it); take {op.composition} while "
                              f"exporting ({kind}; torch's call otherwise)",
                        Fix({node: node.with_changes(func=cst.Name(op.helper))},
                            safety=Safety.SAFE if op.safe else Safety.UNSAFE, helpers=(op.helper,)))
            return
        params = op.params if receiver is None else op.params[1:]
        positional = [a for a in node.args if a.keyword is None]
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        taken = [p for p in params[:len(positional)]]
        if (has_star_args(node) or len(positional) > len(params) or any(k not in params for k in keywords)
                or len(set(keywords) | set(taken)) != len(keywords) + len(taken)
                or (receiver is None and params[0] not in keywords and not positional)):
            if receiver is not None:
                return  # no tensor method takes these arguments: another object's (an fx tracer's `trace(model)`)
            self.report(node, f"{message}; take {op.composition} while exporting instead (not rewritten: other "
                              "arguments)")
            return
        args = list(node.args)
        if op.sequence and type(args[0].value) is cst.Tuple:
            tensors = args[0].value
            elements = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(tensors.elements) - 1 else e
                        for i, e in enumerate(tensors.elements)]
            brackets = {} if not tensors.lpar else {
                "lbracket": cst.LeftSquareBracket(whitespace_after=tensors.lpar[0].whitespace_after),
                "rbracket": cst.RightSquareBracket(whitespace_before=tensors.rpar[-1].whitespace_before)}
            args[0] = args[0].with_changes(value=cst.List(elements, **brackets))
        if receiver is not None:
            args = [cst.Arg(value=as_argument(receiver), comma=cst.MaybeSentinel.DEFAULT if not args
                            else cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))] + args
        safety = Safety.SAFE if op.safe else Safety.UNSAFE
        kind = ("bit for bit" if op.scripts else "bit for bit; a call `torch.jit.script` cannot compile") \
            if op.exact else "up to rounding"
        self.report(node, f"{message}; take {op.composition} while exporting ({kind}; torch's call otherwise)",
                    Fix({node: cst.Call(func=cst.Name(op.helper), args=args)}, safety=safety, helpers=(op.helper,)))

    def _subclass(self, node: cst.Call, name: str) -> None:
        """``Upsample(scale_factor=2., mode='nearest-exact')`` of a class of this file that subclasses
        ``nn.Upsample`` without its own constructor (Wan's VAE): its base becomes the helper subclass,
        which its ``super().forward`` then reaches."""
        base, module = self._subclasses[name]
        if name in self._reported_bases or not module.takes(node):  # type: ignore[misc]
            return
        self._reported_bases.add(name)
        op = next(op for op in OPS if op.name == module.op)
        torch_name = module.classes[0].rsplit(".", 1)[1]
        # Reported at the construction (which runs when the model is built; the class statement runs at import)
        self.report(node, f"`{name}` subclasses `nn.{torch_name}` and is built to run {op.refused}, which the "
                          f"TorchScript exporter cannot convert; derive it from `{module.helper}`, whose forward takes "
                          f"{op.composition} while exporting ({'bit for bit' if op.exact else 'up to rounding'})",
                    Fix({base: cst.Name(module.helper)}, safety=Safety.SAFE if op.exact else Safety.UNSAFE,
                        helpers=(module.helper,)))

    def _module(self, node: cst.Call, module: MissingModule) -> None:
        op = next(op for op in OPS if op.name == module.op)
        name = module.classes[0].rsplit(".", 1)[1]
        message = (f"`nn.{name}` runs {op.refused}, which the TorchScript exporter cannot convert, so the model "
                   "does not export")
        if module.params is not None and (
                has_star_args(node) or len(node.args) != len(module.params)
                or any(a.keyword is not None and a.keyword.value != p for a, p in zip(node.args, module.params))):
            self.report(node, f"{message} (not rewritten: other arguments)")
            return
        kind = "bit for bit" if op.exact else "up to rounding"
        self.report(node, f"{message}; build `{module.helper}`, whose forward takes {op.composition} while "
                          f"exporting ({kind})",
                    Fix({node: node.with_changes(func=cst.Name(module.helper))},
                        safety=Safety.SAFE if op.exact else Safety.UNSAFE, helpers=(module.helper,)))


RULES = (MissingSymbolicRule,)
