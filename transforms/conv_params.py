"""One-element stride, padding or dilation of a 2-D/3-D convolution module (TRT357).

``nn.Conv2d(c, c, 3, stride=[2])`` computes as ``stride=(2, 2)`` (torch repeats a one-element
parameter over the spatial axes when it runs), but the module keeps ``stride == (2,)`` and both
ONNX exporters write that one element into the ``Conv``'s ``strides`` attribute, which then has
the wrong length: ONNX Runtime refuses the graph when it loads it ("Attribute strides has
incorrect size") and TensorRT's parser reads past it. EfficientNet code builds its block
convolutions from decoded block strings (``stride=[int(options['s'][0])]``), so every depthwise
convolution of zylo117's EfficientDet backbone has one.

Matching goes through the file's imports (``nn.Conv2d``, ``torch.nn.Conv3d``,
``from torch.nn import Conv2d as C``); a project's own ``Conv2d`` class never matches.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, int_value
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._size_facts import _int_parameters

_PREFIXES = ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.conv.")
#: {parameter: its position in the constructor}.
_PARAMS = {"stride": 3, "padding": 4, "dilation": 5}
#: module -> (its spatial rank, the helper class that replaces it).
_MODULES = {f"{prefix}{name}": (dims, helper) for prefix in _PREFIXES
            for name, dims, helper in (("Conv2d", 2, "_TrtConv2d"), ("Conv3d", 3, "_TrtConv3d"))}


def _full_literal(value: cst.BaseExpression, dims: int) -> bool:
    """An integer, a string (``padding="same"``) or a literal list/tuple of ``dims`` elements:
    nothing the export could write with one element."""
    if int_value(value) is not None or isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return type(value) in (cst.Tuple, cst.List) and len(value.elements) == dims \
        and not any(type(e) is cst.StarredElement for e in value.elements)


def _an_int(value: cst.BaseExpression, ints: set[str]) -> bool:
    """An integer by its code: a literal, a parameter annotated ``int``, ``int(...)``, or arithmetic of
    those (``k // 2`` with ``k: int``; a list's ``+``/``*`` needs a list operand, which none of these is)."""
    if int_value(value) is not None or type(value) is cst.Name and value.value in ints:
        return True
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "int":
        return True
    if type(value) is cst.BinaryOperation:
        return _an_int(value.left, ints) and _an_int(value.right, ints)
    return type(value) is cst.UnaryOperation and _an_int(value.expression, ints)


class ConvShortParams(Rule):
    needs_text = spelled(*_MODULES)
    info = RuleInfo(
        id="TRT357",
        name="conv-short-params",
        summary="`nn.Conv2d`/`nn.Conv3d` given a one-element `stride`/`padding`/`dilation` (`stride=[2]`) exports a "
                "Conv attribute of one element, which ONNX Runtime and TensorRT refuse; repeat it per axis while exporting",
        doc="""\
What it finds: `nn.Conv2d` and `nn.Conv3d` built with a `stride`, `padding` or `dilation` that is
not an integer, a string or a literal of one element per spatial axis (a name, an attribute, a
call, a one-element literal), or with `*args`/`**kwargs` that may pass one. An integer by its code is
none of these: a parameter annotated `int`, `int(...)`, arithmetic of those (YOLOX's `BaseConv`,
`nn.Conv2d(c, c, k, stride, k // 2)` with `stride: int`). Opt-in: most such
arguments are integers at run time (`stride=stride` with `stride=2`), so `check` names them only
when asked (`--select TRT357`); `migrate` runs it and applies it where ONNX Runtime refused a
convolution node made at the line that calls the module.

Why it hurts: torch accepts a one-element list or tuple for these parameters and repeats it
over the spatial axes when the convolution runs, but the module keeps it as given
(`nn.Conv2d(..., stride=[2]).stride == (2,)`). The TorchScript exporter writes it into the
ONNX `Conv`'s `strides`, `pads` and `dilations` as it is (the dynamo exporter repeats the
padding and dilation but not the stride), so a 2-D convolution gets a one-element `strides`:
ONNX Runtime refuses to load the graph (`[ShapeInferenceError] Attribute strides has incorrect
size`) and TensorRT's parser reads one element per spatial axis from it. Real code: the
EfficientNet backbone of zylo117's EfficientDet (`efficientnet/utils_extra.py`,
`Conv2dStaticSamePadding`, and its copies: DIRV, many EfficientDet forks) builds
`nn.Conv2d(..., stride=stride)` with the one-element stride its block strings decode to
(`stride=[int(options['s'][0])]`), so every block fails.

The rewrite: `nn.Conv2d(...)` → `_TrtConv2d(...)` (`nn.Conv3d` → `_TrtConv3d`), the arguments
unchanged. The inserted subclasses have torch's constructor, attributes (`stride` stays `(2,)`:
EfficientDet compares `block._depthwise_conv.stride == [2, 2]` after repeating its own copy),
parameters and `state_dict`; their forward is torch's outside `torch.onnx.export`, and while
exporting calls `F.conv2d`/`F.conv3d` as torch's own `_conv_forward` does, with a one-element
stride, padding or dilation repeated per spatial axis, so the Conv node's attributes have the
right length.

Fix safety: unsafe, as TRT603's module fix: nothing tells the subclass from `nn.Conv2d` except
`type(m) is nn.Conv2d`, the class name in the model's repr, and `torch.fx` tracing into the
subclass's forward (torch's own modules are leaves). `migrate` applies it as a candidate kept
only when the rewritten model is equivalent on every input set. Matters for both exporters, on
every TensorRT version.""",
        fix=Safety.UNSAFE,
        opt_in=True,
        assumption="nothing in the program tells `nn.Conv2d`/`nn.Conv3d` from the subclasses `_TrtConv2d`/"
                   "`_TrtConv3d` (by `type(m) is`, the repr or an fx graph's leaf modules)",
        fails_when=(
            "code compares `type(module) is nn.Conv2d` or a module's class name",
            "an fx-traced graph is expected to keep the module as one `call_module` node",
            "eager-mode quantization (`torch.ao.quantization.prepare_qat`, `prepare`) swaps modules by exact "
            "type: a `_TrtConv2d` stays a float convolution (an EfficientDet QAT fork, vallabha30/QAT_ED_PyTorch)",
        ),
        examples=(
            Example("self.conv = nn.Conv2d(cin, cout, k, stride=stride, bias=False)\n",
                    "self.conv = _TrtConv2d(cin, cout, k, stride=stride, bias=False)\n", unsafe=True),
            Example("down = torch.nn.Conv3d(8, 4, 3, [2], padding=pad)\n",
                    "down = _TrtConv3d(8, 4, 3, [2], padding=pad)\n", unsafe=True),
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
        dims, helper = _MODULES[module]
        function = self.context.function
        ints = _int_parameters(function) if function is not None else set()
        names = []
        for name, position in _PARAMS.items():
            arg = argument(node, position, name)
            if arg is not None and not _full_literal(arg.value, dims) and not _an_int(arg.value, ints):
                names.append(name)
        if not names and not has_star_args(node):
            return
        short = "nn." + module.rsplit(".", 1)[1]
        listed = ", ".join(f"`{n}`" for n in names) or "arguments"
        self.report(node, f"{short} built with {listed} that may be a one-element list or tuple: torch repeats it "
                          f"over the {dims} spatial axes when it runs, but the exported Conv keeps one element, and "
                          f"ONNX Runtime and TensorRT refuse its attribute; `{helper}` repeats it while exporting",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,), safety=Safety.UNSAFE))


RULES = (ConvShortParams,)
