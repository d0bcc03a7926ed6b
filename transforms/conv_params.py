"""One-element stride, padding or dilation of a 2-D/3-D convolution module (TRT357).

``nn.Conv2d(c, c, 3, stride=[2])`` computes as ``stride=(2, 2)`` (torch repeats a one-element
parameter over the spatial axes when it runs), but the module keeps ``stride == (2,)`` and both
ONNX exporters write that one element into the ``Conv``'s ``strides`` attribute, which then has
the wrong length: ONNX Runtime refuses the graph when it loads it ("Attribute strides has
incorrect size") and TensorRT's parser reads past it. EfficientNet code builds its block
convolutions from decoded block strings (``stride=[int(options['s'][0])]``), so every depthwise
convolution of zylo117's EfficientDet backbone has one.

Matching goes through the file's imports (``nn.Conv2d``, ``torch.nn.Conv3d``,
``from torch.nn import ConvTranspose2d as T``); a project's own ``Conv2d`` class never matches.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, int_value
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_conv_params"
_PREFIXES = ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.conv.")
#: module -> (its spatial rank, {parameter: its position in the constructor}).
_CONV = {"stride": 3, "padding": 4, "dilation": 5}
_TRANSPOSED = {"stride": 3, "padding": 4, "output_padding": 5, "dilation": 8}
_MODULES = {
    **{f"{prefix}{name}": (dims, params) for prefix in _PREFIXES
       for name, dims, params in (("Conv2d", 2, _CONV), ("Conv3d", 3, _CONV),
                                  ("ConvTranspose2d", 2, _TRANSPOSED), ("ConvTranspose3d", 3, _TRANSPOSED))},
}


def _full_literal(value: cst.BaseExpression, dims: int) -> bool:
    """An integer, a string (``padding="same"``) or a literal list/tuple of ``dims`` elements:
    nothing the export could write with one element."""
    if int_value(value) is not None or isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return type(value) in (cst.Tuple, cst.List) and len(value.elements) == dims \
        and not any(type(e) is cst.StarredElement for e in value.elements)


class ConvShortParams(Rule):
    needs_text = spelled(*_MODULES)
    info = RuleInfo(
        id="TRT357",
        name="conv-short-params",
        summary="a 2-D/3-D convolution module given a one-element `stride`/`padding`/`dilation` (`stride=[2]`) "
                "exports a Conv attribute of one element, which ONNX Runtime and TensorRT refuse; repeat it per axis",
        doc="""\
What it finds: `nn.Conv2d`, `nn.Conv3d`, `nn.ConvTranspose2d` and `nn.ConvTranspose3d` built
with a `stride`, `padding`, `dilation` (or `output_padding`) that is not an integer, a string or
a literal of one element per spatial axis: a name, an attribute, a call, a one-element literal.
Opt-in: most such arguments are integers at run time (`stride=stride` with `stride=2`), so
`check` names them only when asked (`--select TRT357`); `migrate` runs it and applies it where
ONNX Runtime refused a convolution node made at the line that calls the module.

Why it hurts: torch accepts a one-element list or tuple for these parameters and repeats it
over the spatial axes when the convolution runs, but the module keeps it as given
(`nn.Conv2d(..., stride=[2]).stride == (2,)`). The TorchScript exporter writes it into the
ONNX `Conv`'s `strides`, `pads` and `dilations` as it is (the dynamo exporter repeats the
padding and dilation but not the stride), so a 2-D convolution gets a one-element `strides`:
ONNX Runtime refuses to load the graph (`[ShapeInferenceError] Attribute strides has incorrect
size`) and TensorRT's parser reads one element per spatial axis from it. Real code: the
EfficientNet backbone of zylo117's EfficientDet (`efficientnet/utils_extra.py`,
`Conv2dStaticSamePadding`) builds `nn.Conv2d(..., stride=stride)` with the one-element stride
its block strings decode to (`stride=[int(options['s'][0])]`), so its every block fails.

The rewrite: the argument becomes `_trt_conv_params(stride, 2)` (3 for the 3-D modules): a
one-element list or tuple becomes a tuple of one copy per spatial axis, anything else (an
integer, a full tuple, `"same"`) is returned as it is. The module then holds `stride == (2, 2)`,
and the exported Conv has two strides.

Fix safety: unsafe. The convolution computes the same values (torch repeats the one element
itself), and the parameters and `state_dict` are unchanged; what changes is the module's own
attribute, `(2,)` becoming `(2, 2)`, and its repr. Code that reads `len(conv.stride)` sees 2
(zylo117's `Conv2dStaticSamePadding` reads it to repeat the stride itself, and then gets the
same numbers). `migrate` applies it as a candidate kept only when the rewritten model is
equivalent on every input set. Matters for both exporters, on every TensorRT version.""",
        fix=Safety.UNSAFE,
        opt_in=True,
        assumption="nothing reads the convolution's `stride`/`padding`/`dilation` attribute expecting the "
                   "one element it was given (they now hold one per spatial axis)",
        fails_when=(
            "code branches on `len(conv.stride)` or compares `conv.stride == (2,)`",
            "the model's repr or a saved config is compared with the original's",
        ),
        examples=(
            Example("self.conv = nn.Conv2d(cin, cout, k, stride=stride, bias=False)\n",
                    "self.conv = nn.Conv2d(cin, cout, k, stride=_trt_conv_params(stride, 2), bias=False)\n",
                    unsafe=True),
            Example("up = nn.ConvTranspose3d(8, 4, 3, [2], padding=pad)\n",
                    "up = nn.ConvTranspose3d(8, 4, 3, _trt_conv_params([2], 3), padding=_trt_conv_params(pad, 3))\n",
                    unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.Conv2d.html",
            "https://onnx.ai/onnx/operators/onnx__Conv.html",
            "https://github.com/zylo117/Yet-Another-EfficientDet-Pytorch/issues/29",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        module = self.context.refers_to(node.func, *_MODULES)
        if module is None:
            return
        dims, params = _MODULES[module]
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        names = []
        for name, position in params.items():
            arg = argument(node, position, name)
            if arg is None or _full_literal(arg.value, dims) or _wrapped(arg.value):
                continue
            wrapped = cst.Call(cst.Name(HELPER), [cst.Arg(arg.value), cst.Arg(cst.Integer(str(dims)))])
            replacements[arg] = arg.with_changes(value=wrapped)
            names.append(name)
        if not replacements:
            return
        short = "nn." + module.rsplit(".", 1)[1]
        listed = ", ".join(f"`{n}`" for n in names)
        self.report(node, f"{short} built with {listed} that may be a one-element list or tuple: torch repeats it "
                          f"over the {dims} spatial axes when it runs, but the exported Conv keeps one element, and "
                          f"ONNX Runtime and TensorRT refuse its attribute; `{HELPER}` repeats it",
                    Fix(replacements, helpers=(HELPER,), safety=Safety.UNSAFE))


def _wrapped(value: cst.BaseExpression) -> bool:
    """Already ``_trt_conv_params(...)`` (a second apply changes nothing)."""
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value.startswith(HELPER)


RULES = (ConvShortParams,)
