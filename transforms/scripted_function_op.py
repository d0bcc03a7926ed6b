"""TRT398: an autograd Function whose ``forward`` calls a scripted function stops the TorchScript export.

The memory-efficient activations of geffnet and timm (``HardSwishJitAutoFn``, ``SwishJitAutoFn``...) are
``torch.autograd.Function`` subclasses whose ``forward`` saves the input for ``backward`` and returns
``hard_swish_jit_fwd(x)``, a ``@torch.jit.script`` function. The TorchScript exporter records the Function as one
Python operator and cannot inline a trace that holds a scripted call: "Couldn't export Python operator
HardSwishJitAutoFn". The rewrite decorates the class with TRT728's ``_trt_traced_forward``: while exporting,
``apply`` runs ``forward`` as plain code, so the scripted call is traced like any other.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import walk
from trtcodemod.model_code import is_autograd_function
from trtcodemod.names import dotted_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms.constant_update import FORWARD_HELPER, _defines

_SCRIPT = ("torch.jit.script",)


class ScriptedFunctionOp(Rule):
    needs_text = (b"Function",)
    info = RuleInfo(
        id="TRT398",
        name="scripted-function-op",
        summary="an autograd Function whose `forward` calls a `torch.jit.script` function stops the TorchScript "
                "export (\"Couldn't export Python operator\"); run `forward` as plain code while exporting",
        doc="""\
What it finds: a `torch.autograd.Function` subclass (a base named `Function`, `autograd.Function`,
`torch.autograd.Function`) without its own `symbolic`, not already decorated with `_trt_traced_forward`,
whose `forward` calls a function of the same file that is scripted: decorated with `@torch.jit.script` (however
the file imports torch) or bound to `torch.jit.script(f)`, at any depth (copies define both under an `if`). The memory-efficient activations of geffnet and timm
(`activations_me.py`: `SwishJitAutoFn`, `MishJitAutoFn`, `HardSigmoidJitAutoFn`, `HardSwishJitAutoFn`) are
written so, to save memory in training: `forward` keeps the input for `backward` and returns
`hard_swish_jit_fwd(x)`.

Why it hurts: the TorchScript exporter records `Fn.apply(x)` as one Python operator holding the trace of
`forward`, and inlines that trace into the graph; a trace holding a call of a scripted function is not inlined,
and the export stops: `RuntimeError: ONNX export failed: Couldn't export Python operator HardSwishJitAutoFn`
(torch 2.13). A `forward` of plain torch calls inlines and exports. geffnet and timm avoid the class when a
global "exportable" flag is set before the model is built (`set_exportable(True)`); a model built without it,
as a user's usually is, keeps the classes.

The rewrite: the class is decorated, `@_trt_traced_forward` (TRT728's helper): while `torch.onnx.export` runs
(either exporter) `apply` calls `forward` as plain code, under `torch.no_grad()` as `apply` does, with a stand-in
context that takes `save_for_backward`; the scripted call is then traced like any other call in a model (the
tracer inlines a scripted function without control flow). Everywhere else `apply` is the class's own, so eager
values, gradients through `backward`, `torch.compile` and `torch.export` are as before.

Fix safety: safe (as TRT728's for the same decorator): outside an ONNX export nothing changes; while exporting,
`forward` computes what `apply` returns, on the same arguments, with gradients off. `migrate` applies it where
the export stops with "Couldn't export Python operator".

TensorRT versions: all (the graph is that of `forward`'s own operations).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "@torch.jit.script\n"
                "def hard_swish_fwd(x):\n"
                "    return x * (x + 3).clamp(min=0, max=6).div(6.)\n"
                "\n"
                "\n"
                "class HardSwishAutoFn(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x):\n"
                "        ctx.save_for_backward(x)\n"
                "        return hard_swish_fwd(x)\n",
                "@torch.jit.script\n"
                "def hard_swish_fwd(x):\n"
                "    return x * (x + 3).clamp(min=0, max=6).div(6.)\n"
                "\n"
                "\n"
                "@_trt_traced_forward\n"
                "class HardSwishAutoFn(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x):\n"
                "        ctx.save_for_backward(x)\n"
                "        return hard_swish_fwd(x)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#inline-autograd-function",
            "https://github.com/rwightman/gen-efficientnet-pytorch/blob/master/geffnet/activations/activations_me.py",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._scripted = _scripted_functions(node, self.context)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._scripted or not is_autograd_function(node) or _defines(node, "symbolic"):
            return
        if any((dotted_name(d.decorator) or "").startswith(FORWARD_HELPER) for d in node.decorators):
            return
        forward = next((line for line in node.body.body
                        if type(line) is cst.FunctionDef and line.name.value == "forward"), None)
        if forward is None:
            return
        called = sorted({n.func.value for n in walk(forward.body)
                         if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in self._scripted})
        if not called:
            return
        decorated = node.with_changes(decorators=[cst.Decorator(cst.Name(FORWARD_HELPER)), *node.decorators])
        self.report(node, f"autograd Function `{node.name.value}` calls the scripted `{called[0]}` in `forward`: the "
                          f"TorchScript export stops (\"Couldn't export Python operator {node.name.value}\"); "
                          f"`@{FORWARD_HELPER}` runs forward as plain code while exporting",
                    Fix({node: decorated}, helpers=(FORWARD_HELPER,)))


def _scripted_functions(module: cst.Module, context) -> set[str]:
    """Names of the file's functions made ``torch.jit.script`` functions (decorated, or bound to
    ``torch.jit.script(f)``), at any depth: copies of these activations define them under an ``if`` or in a
    function that picks an implementation."""
    names: set[str] = set()
    for node in walk(module):
        if type(node) is cst.FunctionDef:
            if any(context.refers_to(d.decorator, *_SCRIPT) is not None for d in node.decorators):
                names.add(node.name.value)
        elif type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
                and type(node.value) is cst.Call and context.refers_to(node.value.func, *_SCRIPT) is not None:
            names.add(node.targets[0].target.value)
    return names


RULES = (ScriptedFunctionOp,)
