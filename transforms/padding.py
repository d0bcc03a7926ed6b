"""``F.pad`` and the padding modules (TRT501, TRT502).

Why: the TorchScript exporter turns ``F.pad(x, pads)`` into an ONNX ``Pad`` whose
``pads`` input is computed by a Slice/Transpose subgraph that is never
constant-folded (the "Only steps=1 can be constant folded ... Slice op" warning,
with literal pads too). TensorRT 7.x needs ``pads`` as an initializer and accepts
only constant-0 padding; other modes arrived later (non-zero constant in 8.2,
reflect/edge by 8.6, wrap in 10.0). Zero padding can always be written as
``torch.cat`` with zero blocks, which exports as ``Concat``.

Matching goes through the file's imports (``F.pad``, ``torch.nn.functional.pad``,
``from torch.nn.functional import pad as p``); a project's own ``pad`` never matches.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, float_value, has_star_args, int_value, int_values
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_PAD = ("torch.nn.functional.pad",)
_PAD_KEYWORDS = {"input", "pad", "mode", "value"}

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html",
    "https://github.com/NVIDIA/TensorRT/issues/1019",
    "https://github.com/onnx/onnx-tensorrt/issues/321",
    "https://github.com/onnx/onnx-tensorrt/issues/378",
    "https://github.com/NVIDIA/trt-samples-for-hackathon-cn/issues/34",
    "https://github.com/NVIDIA/TensorRT/releases/tag/v10.0.0",
)

#: Module classes → (padding mode, fill value if fixed by the class).
_MODULES: dict[str, tuple[str, float | None]] = {}
for _dims in ("1d", "2d", "3d"):
    for _prefix in ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.padding."):
        _MODULES[f"{_prefix}ZeroPad{_dims}"] = ("constant", 0.0)
        _MODULES[f"{_prefix}ConstantPad{_dims}"] = ("constant", None)
        _MODULES[f"{_prefix}ReflectionPad{_dims}"] = ("reflect", None)
        _MODULES[f"{_prefix}ReplicationPad{_dims}"] = ("replicate", None)
        _MODULES[f"{_prefix}CircularPad{_dims}"] = ("circular", None)

#: Newest TensorRT release (exclusive) whose ONNX parser rejects a padding mode.
_MODE_NEEDED_BEFORE = {
    "constant": (8, 2),  # a non-zero constant
    "reflect": (8, 6),
    "replicate": (8, 6),
    "circular": (10, 0),
}

_MODE_ADVICE = {
    "constant": "pad with zeros and add the constant where needed, or deploy on TensorRT >= 8.2",
    "reflect": "build the border from flipped slices (`torch.cat([x[..., 1:p + 1].flip(-1), x, "
               "x[..., -p - 1:-1].flip(-1)], -1)`), or deploy on TensorRT >= 8.6",
    "replicate": "repeat the edge slices (`torch.cat([x[..., :1].expand(..., p), x, "
                 "x[..., -1:].expand(..., p)], -1)`), or deploy on TensorRT >= 8.6",
    "circular": "concatenate the wrapped slices (`torch.cat([x[..., -p:], x, x[..., :p]], -1)`), "
                "or deploy on TensorRT >= 10.0",
}


def _self_attribute(node: cst.BaseExpression) -> bool:
    """``self.halo_size``, ``self.cfg.pad``: a module's configuration, fixed when it was built."""
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Name and node.value == "self"


def _configured_pads(node: cst.BaseExpression) -> bool:
    """Pads read from the module's attributes (``self.padding``, ``[self.halo, self.halo]``, with
    literals among them): Python values fixed at construction, not sizes traced from the input.

    Their values are not visible, so ``_trt_zero_pad`` decides while exporting: the
    concatenation for non-negative Python ints, ``F.pad`` itself for anything else.
    """
    if _self_attribute(node):
        return True
    if type(node) not in (cst.Tuple, cst.List) or not node.elements:
        return False
    elements = [element.value for element in node.elements if type(element) is not cst.StarredElement]
    return (
        len(elements) == len(node.elements)
        and any(_self_attribute(value) for value in elements)
        and all(_self_attribute(value) or int_value(value) is not None for value in elements)
    )


def _string(node: cst.BaseExpression | None) -> str | None:
    if type(node) is cst.SimpleString:
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


def _is_positive_zero(node: cst.BaseExpression | None) -> bool:
    """``0``, ``0.0``, ``None``; not ``-0.0`` (F.pad would fill with negative zero)."""
    if node is None or (type(node) is cst.Name and node.value == "None"):
        return True
    if float_value(node) != 0.0:
        return False
    return not (type(node) is cst.UnaryOperation and type(node.expression) is cst.Float)


class _PadCall:
    """An ``F.pad`` call split into its parts; ``mode``/``value`` None when not given."""

    def __init__(self, call: cst.Call) -> None:
        self.input = argument(call, 0, "input")
        self.pad = argument(call, 1, "pad")
        self.mode_arg = argument(call, 2, "mode")
        self.value_arg = argument(call, 3, "value")
        self.extra = len(call.args) > sum(a is not None for a in (self.input, self.pad, self.mode_arg, self.value_arg))
        self.mode = "constant" if self.mode_arg is None else _string(self.mode_arg.value)


def _match_pad(rule: Rule, call: cst.Call) -> _PadCall | None:
    if not rule.context.refers_to(call.func, *_PAD):
        return None
    return _PadCall(call)


def _drop_args(call: cst.Call, keep: list[cst.Arg]) -> list[cst.Arg]:
    """``keep`` in call order, the last one without a trailing comma."""
    kept = [arg for arg in call.args if any(arg is k for k in keep)]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


class _PadRule(Rule):
    """Dispatches F.pad calls and padding-module constructions to the concrete rule."""
    needs_text = (b"pad", b"Pad")

    def visit_Call(self, node: cst.Call) -> None:
        call = _match_pad(self, node)
        if call is not None:
            self._pad_call(node, call)
            return
        module = self.context.refers_to(node.func, *_MODULES)
        if module is not None:
            self._pad_module(node, module)

    def _pad_call(self, node: cst.Call, call: _PadCall) -> None:
        raise NotImplementedError

    def _pad_module(self, node: cst.Call, module: str) -> None:
        raise NotImplementedError


class ZeroPadCat(_PadRule):
    info = RuleInfo(
        id="TRT501",
        name="zero-pad-cat",
        summary="`F.pad` with zeros exports as a `Pad` with a computed `pads` input; build it with `torch.cat`",
        doc="""\
What it finds: `F.pad(x, pads)` in constant mode with fill value 0 (the defaults, or
`mode="constant"`, `value=0` / `0.0` / `None`), under any import alias, and the modules
`nn.ZeroPad1d/2d/3d` and `nn.ConstantPad1d/2d/3d(p, 0)`.

Why it hurts: the TorchScript exporter emits an ONNX `Pad` whose `pads` input is computed
by a Slice (step -1) / Transpose subgraph that it cannot constant-fold, even for literal
pads: the "Only steps=1 can be constant folded for opset >= 10 onnx::Slice op" warning.
TensorRT 7.x parsers require `pads` to be an initializer and fail on this graph. Pad also
takes no bool tensors in TensorRT, and has no native DLA implementation. `Concat` is
supported by every version, for every type.

The rewrite: `F.pad(x, (l, r, t, b))` → `_trt_zero_pad(x, (l, r, t, b))`, an inserted
helper. Outside `torch.onnx.export` it is `F.pad` itself. While exporting it concatenates
`x` with zero blocks (`x.new_zeros`, so shape, dtype and device follow `x`, also with
dynamic axes), last axis first as F.pad does; sides padded by 0 get no block.
`nn.ZeroPad2d(p)` with literal non-negative padding becomes `_TrtZeroPad2d(p)`, a subclass
of `nn.ZeroPad2d` (same arguments, `padding` attribute, no parameters, so `state_dict` and
`nn.Sequential` indices are unchanged) whose forward uses the helper.

Fix safety: safe for `F.pad`; unsafe for `nn.ZeroPad2d`. The module form assumes nothing
tells the two classes apart: the model prints `_TrtZeroPad2d(...)`, `type(m) is
nn.ZeroPad2d` is false, and `torch.fx` no longer keeps the module as one leaf call (torch's
own modules are leaves, a class of the user's file is traced into), so code that walks or
matches modules by type, repr or fx graph sees another model. For `F.pad`: eager,
`torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run `F.pad` itself: the same values, dtype, strides (a channels_last input stays
channels_last), gradients, quantized inputs and errors, for one Python call and a few flag
checks more. The exported concatenation equals F.pad's result exactly (NaN/inf, signed
zeros, every dtype including bool and integers, empty tensors); the helper takes it only
for non-negative Python int pads and otherwise exports `F.pad` as before. Literal pads
are rewritten when none is negative (negative pads crop), and pads read from the module's
attributes (`self.padding`, `[self.halo, self.halo, 0, 0]`): those are configuration fixed
at construction, not traced sizes, and the helper checks their values while exporting (a
negative one exports `F.pad` as before). A `-0.0` fill value is kept, and other computed
pads are reported without a fix. Other modules (`ZeroPad1d/3d`, `ConstantPad*d(p, 0)`) are
reported.

Pads computed from the input's size (window padding: `pad_r = (ws - W % ws) % ws`,
`F.pad(x, (0, 0, 0, pad_r, 0, pad_b))`): while tracing, `W` is a 0-d tensor (TorchScript
exporter) or a symbolic size (dynamo exporter), so both exporters emit a Pad whose `pads`
come from Shape/Mod/Sub/Concat nodes at run time; the dynamo exporter folds them to an
initializer only for static shapes. TensorRT 8.0's parser requires `pads` to be an
initializer ("The input pads is required to be an initializer"); from 8.2 it reads them
from a run-time tensor. `_trt_zero_pad` cannot help there: it builds the concatenation
only for Python int pads and exports `F.pad` for traced sizes (baking one trace's sizes
into zero blocks would be wrong for every other input size). What to do on TensorRT
before 8.2: export with input sizes that are multiples of the window, so no padding is
needed, and drop the pad from the deployed code path; or deploy on 8.2 or newer.

TensorRT versions: before 8.2 only. From TensorRT 8.2 on the parser takes this Pad (the
computed `pads` and constant 0 included), and the concatenation only costs time: up to 2x
in ONNX Runtime on large feature maps (`benchmarks/helpers.py`). The rule stays quiet for
newer targets; select an older target (`--target 8.0`) for TensorRT 7.x, or where a DLA core
or a bool input needs the concatenation.""",
        fix=Safety.SAFE,
        needed_before=(8, 2),
        examples=(
            Example("y = F.pad(x, (0, 1, 0, 1))\n", "y = _trt_zero_pad(x, (0, 1, 0, 1))\n"),
            Example(
                "out = F.pad(feat, [2, 2], mode='constant', value=0.0)\n",
                "out = _trt_zero_pad(feat, [2, 2])\n",
            ),
            Example("self.pad = nn.ZeroPad2d((0, 1, 0, 1))\n", "self.pad = _TrtZeroPad2d((0, 1, 0, 1))\n",
                    unsafe=True),
            Example("kv = F.pad(kv, [self.halo, self.halo, self.halo, self.halo])\n",
                    "kv = _trt_zero_pad(kv, [self.halo, self.halo, self.halo, self.halo])\n"),
            Example("y = F.pad(x, (0, pad_w, 0, pad_h))\n"),
            Example("y = F.pad(x, (-1, -1))\n"),
        ),
        references=_REFERENCES,
    )

    def _pad_call(self, node: cst.Call, call: _PadCall) -> None:
        if call.mode != "constant" or call.pad is None or call.input is None:
            return  # other modes and unknown modes: TRT502
        value = call.value_arg.value if call.value_arg is not None else None
        if not _is_positive_zero(value):
            if value is not None and (float_value(value) == 0.0):
                self.report(node, "F.pad with a -0.0 fill exports as ONNX Pad; not rewritten (the fill keeps its sign)")
            return  # a non-zero or computed fill value: TRT502
        if has_star_args(node) or call.extra:
            self.report(node, "zero F.pad exports as ONNX Pad with a computed `pads` input; "
                        "not rewritten because its arguments are not all visible")
            return
        if type(call.pad.value) in (cst.Integer, cst.UnaryOperation):
            return  # F.pad itself rejects a single number
        pads = int_values(call.pad.value)
        if pads is None and _configured_pads(call.pad.value):
            self._rewrite(node, call, "zero F.pad with pads from the module's attributes exports as ONNX Pad with a "
                          "computed `pads` input; concatenate zero blocks instead (while exporting, when they are "
                          "non-negative ints)")
            return
        if pads is None:
            self.report(node, "zero F.pad with computed pads exports as ONNX Pad whose `pads` are computed at "
                        "run time, which TensorRT before 8.2 rejects (it needs an initializer); not rewritten "
                        "(a computed pad may be negative, and traced sizes cannot be baked into zero blocks): "
                        "export with sizes that need no padding, or deploy on TensorRT >= 8.2")
            return
        if any(p < 0 for p in pads):
            self.report(node, "F.pad with negative pads crops; write the crop as slicing (`x[..., 1:-1]`), "
                        "which exports as Slice")
            return
        if not pads or len(pads) % 2:
            return  # F.pad itself rejects this
        self._rewrite(node, call, "zero F.pad exports as ONNX Pad with a computed `pads` input; concatenate zero "
                      "blocks instead")

    def _rewrite(self, node: cst.Call, call: _PadCall, message: str) -> None:
        new_call = node.with_changes(
            func=cst.Name("_trt_zero_pad"), args=_drop_args(node, [call.input, call.pad])
        )
        self.report(node, message, Fix({node: new_call}, helpers=("_trt_zero_pad",)))

    def _pad_module(self, node: cst.Call, module: str) -> None:
        mode, fill = _MODULES[module]
        class_name = module.rsplit(".", 1)[1]
        if mode != "constant":
            return  # TRT502
        if fill is None:  # ConstantPadNd(padding, value)
            value = argument(node, 1, "value")
            if value is None or not _is_positive_zero(value.value):
                return
        message = f"nn.{class_name} exports as ONNX Pad with a computed `pads` input"
        padding = argument(node, 0, "padding")
        pads = int_values(padding.value) if padding is not None else None
        rewritable = (
            class_name == "ZeroPad2d"
            and not has_star_args(node)
            and len(node.args) == 1
            and pads is not None
            and len(pads) in (1, 4)
            and all(p >= 0 for p in pads)
        )
        if not rewritable:
            self.report(node, f"{message}; not rewritten (only nn.ZeroPad2d with literal, non-negative "
                        "padding is); call F.pad in forward or use torch.cat with zero blocks")
            return
        self.report(
            node,
            f"{message}; use a ZeroPad2d that concatenates zero blocks",
            Fix({node: node.with_changes(func=cst.Name("_TrtZeroPad2d"))}, helpers=("_TrtZeroPad2d",),
                safety=Safety.UNSAFE),
        )


class NonZeroPad(_PadRule):
    info = RuleInfo(
        id="TRT502",
        name="nonzero-pad",
        summary="reflect / replicate / circular or non-zero constant padding: older TensorRT parsers reject the Pad",
        doc="""\
What it finds: `F.pad(x, pads, mode=...)` with mode `reflect`, `replicate` or `circular`,
constant mode with a non-zero (or computed) fill value, a mode that is not a literal, and
the modules `nn.ReflectionPad*d`, `nn.ReplicationPad*d`, `nn.CircularPad*d` and
`nn.ConstantPad*d(p, value)` with a non-zero value.

Why it hurts: these export as an ONNX `Pad` with mode `reflect`, `edge` or `wrap`, or a
non-zero constant. TensorRT 7.x stops with "Assertion failed: mode == "constant" &&
value == 0.f && This version of TensorRT only supports constant 0 padding!". Non-zero
constants parse from TensorRT 8.2, reflect and edge were still reported failing on 8.4
and parse on 8.6 (its Slice layer has REFLECT and CLAMP modes), and wrap (`circular`)
arrived in TensorRT 10.0. The rule reports each mode only for targets older than that.

What to do (not rewritten automatically): deploy on a TensorRT that parses the mode, or
write the border with `torch.cat` of slices of `x` — for `replicate`, the edge slices
expanded; for `circular`, the wrapped slices; for `reflect`, flipped slices — which export
as Slice/Expand/Concat. Replacing the mode by zero padding changes the model's results.""",
        fix=Safety.NONE,
        needed_before=(10, 0),
        examples=(
            Example("y = F.pad(x, (1, 1, 1, 1), mode='circular')\n"),
            Example("self.pad = nn.CircularPad2d(1)\n"),
        ),
        references=_REFERENCES,
    )

    def _report_mode(self, node: cst.Call, mode: str, what: str) -> None:
        if self.context.target >= _MODE_NEEDED_BEFORE[mode]:
            return
        if mode == "constant":
            problem = "TensorRT before 8.2 only parses constant-0 padding"
        else:
            onnx_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
            version = "8.6" if mode != "circular" else "10.0"
            problem = f"TensorRT before {version} cannot parse ONNX Pad mode '{onnx_mode}'"
        self.report(node, f"{what}: {problem}; {_MODE_ADVICE[mode]}")

    def _pad_call(self, node: cst.Call, call: _PadCall) -> None:
        if call.mode_arg is not None and call.mode is None:
            if self.context.target < (10, 0):
                self.report(node, "F.pad with a computed mode: TensorRT parses reflect/edge only from 8.6 "
                            "and wrap (circular) from 10.0; use a literal mode")
            return
        if call.mode in _MODE_ADVICE and call.mode != "constant":
            self._report_mode(node, call.mode, f"F.pad mode '{call.mode}'")
            return
        value = call.value_arg.value if call.value_arg is not None else None
        if call.mode == "constant" and float_value(value) != 0.0 and not _is_positive_zero(value):
            self._report_mode(node, "constant", "F.pad with a non-zero (or computed) fill value")

    def _pad_module(self, node: cst.Call, module: str) -> None:
        mode, fill = _MODULES[module]
        class_name = module.rsplit(".", 1)[1]
        if mode == "constant":
            if fill is not None:
                return
            value = argument(node, 1, "value")
            if value is not None and float_value(value.value) == 0.0:
                return  # zero (TRT501) or negative zero: constant-0 as far as TensorRT is concerned
            self._report_mode(node, "constant", f"nn.{class_name} with a non-zero (or computed) value")
            return
        self._report_mode(node, mode, f"nn.{class_name}")


RULES = (ZeroPadCat, NonZeroPad)
