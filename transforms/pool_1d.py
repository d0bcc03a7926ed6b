"""1-D pooling → the same pooling as a 2-D window over an added axis (TRT603).

``F.avg_pool1d`` / ``F.max_pool1d`` (and ``nn.AvgPool1d`` / ``nn.MaxPool1d``, which call them)
export as an ONNX AveragePool / MaxPool with a one-element kernel, and TensorRT pools 2-D and 3-D
windows only. torch itself computes 1-D pooling as the 2-D pooling of the input unsqueezed at -2,
so the helpers (``trtcodemod/helpers/pooling.py``) do that while exporting and take the added axis
away by index: the values are torch's, and the graph has a 2-D window.

Matching goes through the file's imports (``F.avg_pool1d``, ``torch.max_pool1d``,
``from torch.nn import AvgPool1d as P``); a project's own ``avg_pool1d`` never matches. A module whose
class a factory names at run time (``getattr(nn, f"{kind}Pool{dims}d")(k)``, a registry, a class passed
in) is matched by the observed run's record of which call built it (``ObservedFacts.built``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_PREFIXES = ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.pooling.")

#: function -> (helper, its parameters after the input, in order). ``F.max_pool1d``'s
#: ``return_indices`` is not among them: a call that passes it is reported without a fix.
_FUNCTIONS = {
    "torch.nn.functional.avg_pool1d": ("_trt_avg_pool1d", "avg"),
    "torch.avg_pool1d": ("_trt_avg_pool1d", "avg"),
    "torch.nn.functional.max_pool1d": ("_trt_max_pool1d", "max"),
    "torch.max_pool1d": ("_trt_max_pool1d", "max"),
}
_PARAMETERS = {
    "avg": ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"),
    "max": ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
}
#: module -> (helper class, the position and name of ``return_indices`` or None).
_MODULES = {
    **{f"{prefix}AvgPool1d": ("_TrtAvgPool1d", None) for prefix in _PREFIXES},
    **{f"{prefix}MaxPool1d": ("_TrtMaxPool1d", 4) for prefix in _PREFIXES},
}
#: The classes as the observer names them (``ObservedFacts.built``).
_BUILT = ("torch.nn.AvgPool1d", "torch.nn.MaxPool1d")


def _is_false(arg: cst.Arg) -> bool:
    return type(arg.value) is cst.Name and arg.value.value == "False"


class Pool1d(Rule):
    needs_text = spelled(*_FUNCTIONS, *_MODULES)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT603",
        name="pool-1d",
        summary="1-D average/max pooling exports as a 1-D AveragePool/MaxPool, which TensorRT refuses; "
                "pool a 2-D window over an added axis",
        doc="""\
What it finds: calls of `F.avg_pool1d`, `F.max_pool1d`, `torch.avg_pool1d`, `torch.max_pool1d`
and the modules `nn.AvgPool1d` / `nn.MaxPool1d` where they are built (`__init__`,
`nn.Sequential(...)`, anywhere), under any import alias. Real code pools tokens with them:
timm's Next-ViT and PVT-style attention reduce keys and values with
`nn.AvgPool1d(kernel_size=sr_ratio**2, stride=sr_ratio**2)` over `x.transpose(1, 2)`; audio
and sequence models pool along time.

Why it hurts: both exporters emit an ONNX AveragePool / MaxPool with a one-element
`kernel_shape`, and TensorRT's parser pools 2-D or 3-D windows only: the graph is refused
(every TensorRT version).

The rewrite: `F.avg_pool1d(...)` → `_trt_avg_pool1d(...)` and `F.max_pool1d(...)` →
`_trt_max_pool1d(...)`, the arguments unchanged (the helpers have torch's signature, without
`return_indices`). Outside `torch.onnx.export` the helpers are torch's functions themselves.
While exporting a floating 2-D `(C, L)` or 3-D `(N, C, L)` tensor with plain int arguments,
they pool the input unsqueezed at -2 with the 2-D window `(1, k)`, stride `(1, s)`, padding
`(0, p)` (dilation `(1, d)`), `ceil_mode` and `count_include_pad` as given, and take the added
axis away with `.select(-2, 0)` (a Gather of a constant index, never a Squeeze the exporter
may have to guard with an `If`). That is how torch computes `avg_pool1d` itself
(`avg_pool2d(self.unsqueeze(-2), ...).squeeze(-2)`), so the values are torch's bit for bit:
checked against torch for every kernel, stride (`None` included), padding, `ceil_mode`,
`count_include_pad` and dilation, unbatched and empty inputs, inf and NaN, with the same
dtype, shape, strides and gradients (a kernel longer than the padded input fails while
exporting with torch's 2-D wording of the same RuntimeError). A dilation other than 1 still exports a dilated MaxPool, which
TensorRT refuses as well (the graph check says so). The modules become `_TrtAvgPool1d(...)` /
`_TrtMaxPool1d(...)`, subclasses (same constructor, attributes, `extra_repr`, no parameters or
buffers, so `state_dict` and `nn.Sequential` indices are unchanged) whose forward calls the
helper. A call or module that asks for `return_indices` is reported without a fix (TensorRT's
MaxPool has no Indices output either), as is an `F.max_pool1d(*args, **kwargs)` that could
pass it.

A pool whose class the code names only at run time is found where a recorded run (`migrate`,
`check --facts`) saw a call build it: unet's `class_ = getattr(nn, "{}Pool{}d".format(...))` then
`class_(kernel_size)`, nnU-Net's `get_matching_pool_op(conv_op, pool_type=pool)(kernel_size=...)`,
MONAI's `Pool[Pool.MAX, spatial_dims](**params)`, a `pool_cls(...)` handed `nn.MaxPool1d`. The
call keeps its arguments and its callee goes through `_trt_pool_class`:
`class_(kernel_size)` → `_trt_pool_class(class_)(kernel_size)`. `_trt_pool_class` returns
`_TrtAvgPool1d` for `nn.AvgPool1d` itself, for `nn.MaxPool1d` itself a constructor that builds
torch's module and makes it a `_TrtMaxPool1d` unless it returns indices, the same for a
`functools.partial` of one (its arguments kept), and anything else (the 2-D and 3-D pools the
same call builds for other arguments, subclasses, a user's factory) as it is. Without a recorded
run nothing is found there: the code alone does not say which class the call builds.

Fix safety: safe for the functions: eager mode, `torch.jit.script` (the helpers carry torch's
`BroadcastingList1` types in a type comment, so an int or a one-element sequence is taken as
by torch), `torch.fx`, `torch.compile` and `torch.export` run torch's function itself (values,
dtype, strides, gradients, errors); the exported graph computes torch's own 2-D formulation of
the same pooling. Unsafe for the modules, as for TRT405's: nothing tells the subclass from
`nn.AvgPool1d` except `type(m) is nn.AvgPool1d`, the class name in the model's repr, and
`torch.fx` tracing into the subclass's forward (torch's own modules are leaves); `migrate` tries
it as a candidate and keeps it only when the rewritten model is equivalent on every input set.
The same holds for a factory's call through `_trt_pool_class`, which changes nothing else: the
module is built by torch's constructor with the same arguments (its errors are torch's), and every
other class the call builds is built as before.""",
        fix=Safety.SAFE,
        assumption="nothing in the program tells `nn.AvgPool1d`/`nn.MaxPool1d` from the subclasses "
                   "`_TrtAvgPool1d`/`_TrtMaxPool1d` (by `type(m) is`, the repr or an fx graph's leaf modules)",
        fails_when=(
            "code compares `type(module) is nn.AvgPool1d` or a module's class name",
            "an fx-traced graph is expected to keep the module as one `call_module` node",
        ),
        examples=(
            Example("y = F.avg_pool1d(x, 4, stride=4)\n", "y = _trt_avg_pool1d(x, 4, stride=4)\n"),
            Example("y = F.max_pool1d(x, 3, 2, padding=1)\n", "y = _trt_max_pool1d(x, 3, 2, padding=1)\n"),
            Example("self.sr = nn.AvgPool1d(kernel_size=self.N_ratio, stride=self.N_ratio)\n",
                    "self.sr = _TrtAvgPool1d(kernel_size=self.N_ratio, stride=self.N_ratio)\n", unsafe=True),
            Example("y, idx = F.max_pool1d(x, 2, return_indices=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.AvgPool1d.html",
            "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/AveragePool2d.cpp",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        function = self.context.refers_to(node.func, *_FUNCTIONS)
        if function is not None:
            self._function_call(node, function.rsplit(".", 1)[1], *_FUNCTIONS[function])
            return
        module = self.context.refers_to(node.func, *_MODULES)
        if module is not None:
            self._module_call(node, "nn." + module.rsplit(".", 1)[1], *_MODULES[module])
            return
        observed = self.provider(ObservedFacts)
        if observed.builds_any(*_BUILT):
            built = [name for name in observed.built(node) if name in _BUILT]
            if built:
                self._built_call(node, built)

    def _built_call(self, node: cst.Call, built: list[str]) -> None:
        """A call that names no class, seen building a 1-D pool (a factory's ``class_(kernel_size)``):
        the callee goes through ``_trt_pool_class``, which changes only the two 1-D pools."""
        names = " and ".join("nn." + name.rsplit(".", 1)[1] for name in built)
        self.report(node, f"this call was seen building {names}, which exports as a 1-D pooling, and TensorRT "
                          "pools 2-D or 3-D windows only; `_trt_pool_class` builds the subclass that pools a 2-D "
                          "window over an added axis while exporting (any other class as it is)",
                    Fix({node: node.with_changes(func=cst.Call(cst.Name("_trt_pool_class"), [cst.Arg(node.func)]))},
                        helpers=("_trt_pool_class",), safety=Safety.UNSAFE))

    def _function_call(self, node: cst.Call, name: str, helper: str, kind: str) -> None:
        why = f"{name} exports as a 1-D {'AveragePool' if kind == 'avg' else 'MaxPool'}, and TensorRT pools 2-D " \
              "or 3-D windows only"
        parameters = _PARAMETERS[kind]
        positional = [a for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if (kind == "max" and has_star_args(node)) or len(positional) > len(parameters) \
                or keywords - set(parameters):
            self.report(node, f"{why}; not rewritten: it may ask for `return_indices` or pass arguments "
                        "the helper does not take")
            return
        self.report(node, f"{why}; `{helper}` pools a 2-D window over an added axis while exporting",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,)))

    def _module_call(self, node: cst.Call, name: str, helper: str, indices_at: int | None) -> None:
        why = f"{name} exports as a 1-D pooling, and TensorRT pools 2-D or 3-D windows only"
        if indices_at is not None:
            indices = argument(node, indices_at, "return_indices")
            if has_star_args(node) or (indices is not None and not _is_false(indices)):
                self.report(node, f"{why}; not rewritten: it may ask for `return_indices`")
                return
        self.report(node, f"{why} where forward calls it; `{helper}` pools a 2-D window over an added axis "
                          "while exporting",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,), safety=Safety.UNSAFE))


RULES = (Pool1d,)
