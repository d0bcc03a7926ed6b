"""Max unpooling (TRT340): a scatter into zeros while exporting, and max pooling's indices picked from its windows.

``F.max_unpool1d/2d/3d`` and ``nn.MaxUnpool1d/2d/3d`` do not export with the TorchScript exporter,
and TensorRT parses no ONNX MaxUnpool. The calls become the helpers of
``trtcodemod/helpers/unpooling.py`` (same parameters), the modules their helper subclasses (same
constructor, state and repr).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_DIMS = (1, 2, 3)
#: qualified function -> (helper, spatial axes)
_FUNCTIONS = {f"torch.nn.functional.max_unpool{n}d": (f"_trt_max_unpool{n}d", n) for n in _DIMS}
#: qualified class -> (helper subclass, spatial axes)
_MODULES = {f"{prefix}.MaxUnpool{n}d": (f"_TrtMaxUnpool{n}d", n)
            for n in _DIMS for prefix in ("torch.nn", "torch.nn.modules.pooling")}
#: Max pooling whose indices are used (``return_indices=`` given): TensorRT's MaxPool has no Indices output.
_POOL_FUNCTIONS = {"torch.nn.functional.max_pool2d": ("_trt_max_pool2d", 2)}
_POOL_MODULES = {f"{prefix}.MaxPool2d": ("_TrtMaxPool2d", 2) for prefix in ("torch.nn", "torch.nn.modules.pooling")}
_POOL_FUNCTION_PARAMS = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")
_POOL_MODULE_PARAMS = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
#: Parameters, in order, that the helpers (torch's own signatures) take.
_FUNCTION_PARAMS = ("input", "indices", "kernel_size", "stride", "padding", "output_size")
_MODULE_PARAMS = ("kernel_size", "stride", "padding")


class MaxUnpoolRule(Rule):
    needs_text = spelled(*_FUNCTIONS, *_MODULES, *_POOL_FUNCTIONS, *_POOL_MODULES)
    info = RuleInfo(
        id="TRT340",
        name="max-unpool",
        summary="max unpooling (`F.max_unpool2d`, `nn.MaxUnpool2d`, 1-D and 3-D) does not export and TensorRT has "
                "no MaxUnpool, nor MaxPool's Indices output; a scatter into zeros, and the indices picked from the "
                "windows, while exporting",
        doc="""\
What it finds: calls of `F.max_unpool1d`, `F.max_unpool2d` and `F.max_unpool3d`, and
`nn.MaxUnpool1d`, `nn.MaxUnpool2d` and `nn.MaxUnpool3d` where they are built (usually
`__init__`); and the max pooling whose indices they take: `F.max_pool2d(..., return_indices=True)`
and `nn.MaxPool2d(..., return_indices=True)` (given by keyword or position, anything but a literal
`False`). A call with a keyword the function or constructor does not have is reported without a
fix.

Why it hurts: the TorchScript exporter (`torch.onnx.export(dynamo=False)`, torch 2.13) stops at
every max unpooling, at a fixed size and with dynamic axes ("TypeError: cond must be a bool, but
got a Tensor": its symbolic checks a traced size as a Python bool), and no TensorRT release
parses ONNX MaxUnpool, so there is no engine either way. The indices come from max pooling,
which exports as a MaxPool whose second output, Indices, TensorRT's MaxPool does not produce
(its parser rejects the graph). SegNet-style decoders unpool with the
indices of their encoder's max pooling: ENet (pytorchcv's `ENetUpBlock`, `self.unpool =
nn.MaxUnpool2d(kernel_size=2)` called as `self.unpool(x, max_indices)`), monai's QuickNAT
(`monai/networks/nets/quicknat.py`), SegNet ports; ENet pools with 3x3 windows, stride 2,
padding 1 and `return_indices=True` (`ENetMaxDownBlock`).

The rewrite: `F.max_unpool2d(x, idx, 2)` → `_trt_max_unpool2d(x, idx, 2)` and
`nn.MaxUnpool2d(kernel_size=2)` → `_TrtMaxUnpool2d(kernel_size=2)` (a subclass: same
constructor, state and repr; `isinstance` still holds; forward takes `output_size` as torch's
does), likewise for 1-D and 3-D; each an inserted helper that is torch's function itself outside
`torch.onnx.export`, and while exporting zeros of the unpooled size with the input written at
the flat per-channel indices: `zeros.flatten(2).scatter(2, indices.flatten(2),
x.flatten(2)).view_as(zeros)` (ScatterElements, ConstantOfShape, Reshape). The unpooled size is
torch's, `(in - 1) * stride - 2 * padding + kernel` per spatial axis (the stride the kernel's by
default), computed from the input's traced sizes, so a dynamic axis stays dynamic; or the last
axes of a given `output_size`. Unbatched input (one axis fewer) is taken too. Other input (not
int64 indices, a rank torch refuses, complex values) keeps torch's function while exporting too,
and with it torch's error.

`nn.MaxPool2d(3, 2, 1, return_indices=True)` → `_TrtMaxPool2d(3, 2, 1, return_indices=True)` and
`F.max_pool2d(x, 2, return_indices=True)` → `_trt_max_pool2d(x, 2, return_indices=True)`: while
exporting, each window's elements as one strided slice per kernel offset (of the input padded
with zeros, which a mask of the positions inside the input leaves out), the pick torch's kernel
makes (the window's last NaN if it holds one, else its first element equal to the maximum, so
the first of a window of -inf) as an ArgMax of distinct priorities, and the maximum and its flat
index by GatherElements; a MaxPool without indices gives only the output's sizes (ceil mode
included). Without `return_indices` the pooling is left alone (another rule's, or no problem). The
2-D form only: 1-D max pooling is TRT603's, and a 3-D one with indices keeps torch's function.

Fix safety: safe: eager, `torch.fx`, `torch.compile` and `torch.export` run torch's function
itself, and the scatter copies values without arithmetic, so the graph gives torch's values bit
for bit (signed zeros, infinities and NaN included) wherever each index is written once, or a
repeated index carries the same value each time, as max pooling's indices do (overlapping
windows repeat the index of one input element, with its one value); and the pooling's maxima and
indices are torch's bit for bit (ties, NaN, infinities and signed zeros: measured in float16,
float32 and float64, padded, overlapping, dilated and ceil-mode windows; the maximum is the
window's element itself, not MaxPool's, which in ONNX Runtime passes over a NaN). Indices that write two
different values to one place have no defined result in torch either (its CUDA kernel writes in
any order). Under `torch.jit.script` each helper is torch's function (a scripting fallback; the
function form of max pooling is rewritten only with a literal `return_indices=True`, the pair
the scripted helper returns; `nn.MaxUnpool2d` itself does not script in torch 2.13, nor does its
subclass, the same way). Torch's check of an `output_size` out of range runs in eager mode, not
while exporting.

TensorRT versions: all (ScatterElements with no reduction, ConstantOfShape, Shape, Reshape,
Slice, Range, ArgMax, GatherElements, MaxPool with one output and integer arithmetic on sizes,
which every release parses).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class UpBlock(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.unpool = nn.MaxUnpool2d(kernel_size=2)\n",
                "class UpBlock(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.unpool = _TrtMaxUnpool2d(kernel_size=2)\n",
            ),
            Example(
                "def decode(x, indices):\n"
                "    return F.max_unpool2d(x, indices, 2, stride=2)\n",
                "def decode(x, indices):\n"
                "    return _trt_max_unpool2d(x, indices, 2, stride=2)\n",
            ),
            Example("def encode(x):\n    return F.max_pool2d(x, 3, 2, 1, return_indices=True)\n",
                    "def encode(x):\n    return _trt_max_pool2d(x, 3, 2, 1, return_indices=True)\n"),
            Example("def decode(x, indices):\n    return F.max_unpool1d(x, indices, 2, ceil_mode=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.MaxUnpool2d.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        qualified = self.context.refers_to(node.func, *_FUNCTIONS, *_MODULES, *_POOL_FUNCTIONS, *_POOL_MODULES)
        if qualified in _POOL_FUNCTIONS or qualified in _POOL_MODULES:
            helper, _ = _POOL_FUNCTIONS.get(qualified) or _POOL_MODULES[qualified]
            params = _POOL_FUNCTION_PARAMS if qualified in _POOL_FUNCTIONS else _POOL_MODULE_PARAMS
            if not _returns_indices(node, params, literal_true=qualified in _POOL_FUNCTIONS):
                return
            kind = "`F.max_pool2d`" if qualified in _POOL_FUNCTIONS else "`nn.MaxPool2d`"
            self._rewrite(node, helper, params,
                          f"{kind} with `return_indices` exports as a MaxPool whose Indices output TensorRT does not "
                          "produce", pool=True)
        elif qualified in _FUNCTIONS:
            helper, count = _FUNCTIONS[qualified]
            self._rewrite(node, helper, _FUNCTION_PARAMS,
                          f"`F.max_unpool{count}d` does not export (the TorchScript exporter fails on it, and "
                          "TensorRT parses no ONNX MaxUnpool)")
        elif qualified in _MODULES:
            helper, count = _MODULES[qualified]
            self._rewrite(node, helper, _MODULE_PARAMS,
                          f"`nn.MaxUnpool{count}d` does not export (the TorchScript exporter fails where forward "
                          "calls it, and TensorRT parses no ONNX MaxUnpool)")

    def _rewrite(self, node: cst.Call, helper: str, params: tuple[str, ...], message: str, pool: bool = False) -> None:
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if any(k not in params for k in keywords) or len(positional) > len(params):
            self.report(node, f"{message} (not rewritten: other arguments)")
            return
        what = ("takes the maxima from a MaxPool without indices and each window's index by torch's pick (an "
                "ArgMax over the window's elements)" if pool else
                "scatters the input into zeros of the unpooled size")
        self.report(node, f"{message}; build `{helper}`, whose forward {what} while exporting (bit for bit)"
                    if helper.startswith("_Trt") else
                    f"{message}; call `{helper}`, which {what} while exporting (bit for bit)",
                    Fix({node.func: cst.Name(helper)}, safety=Safety.SAFE, helpers=(helper,)))


def _returns_indices(node: cst.Call, params: tuple[str, ...], literal_true: bool = False) -> bool:
    """Is ``return_indices`` given (by keyword or position), as anything but a literal False (with
    ``literal_true``: as a literal True, the function form, whose scripted helper returns the pair)?"""
    place = params.index("return_indices")
    for position, arg in enumerate(node.args):
        if arg.star:
            return False
        if (arg.keyword is not None and arg.keyword.value == "return_indices") or (
                arg.keyword is None and position == place):
            if literal_true:
                return isinstance(arg.value, cst.Name) and arg.value.value == "True"
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
    return False


RULES = (MaxUnpoolRule,)
