"""A function compiled with ``torch.compile`` on the exported path (TRT392): the TorchScript exporter stops at it.

AudioSeal 0.2.0 ships Kyutai's moshi modules, whose ``torch_compile_lazy`` (``audioseal/libs/moshi/utils/
compile.py:35-55``) wraps the encoder's and decoder's ``forward``: the first call binds ``fun_compiled =
torch.compile(fun)`` and every call runs ``fun_compiled(*args, **kwargs)``. Traced by the TorchScript exporter, that
call raises "Detected that you are using FX to torch.jit.trace a dynamo-optimized function. This is not supported at
the moment." The rewrite calls ``_trt_compile`` with the same arguments: ``torch.compile``'s result, except that a
compiled function runs the function itself while traced.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms.flex_attention import FLEX

RULE = "TRT392"
HELPER = "_trt_compile"
_COMPILE = ("torch.compile",)


class CompiledCall(Rule):
    needs_text = spelled(*_COMPILE)
    info = RuleInfo(
        id=RULE,
        name="compiled-call",
        summary="a function compiled with `torch.compile` on the exported path stops the TorchScript export "
                "(\"dynamo-optimized function\"); let the compiled function run the original while traced",
        doc="""\
What it finds: a call of `torch.compile` (however the file imports `torch`), with its arguments written out
(`torch.compile(fun)`, `torch.compile(self.step, dynamic=True)`), and `torch.compile` used as a decorator, bare
(`@torch.compile`) or given keywords (`@torch.compile(mode="max-autotune")`), anywhere in a file: the compiled
function may be made once at import, in `__init__` or lazily on the first call (AudioSeal 0.2.0's bundled moshi
code, `audioseal/libs/moshi/utils/compile.py:35-55`: `fun_compiled = torch.compile(fun)` on the first call of the
encoder's and decoder's `forward`, then `fun_compiled(*args, **kwargs)` on every call). Not taken: a call with
`*args`/`**kwargs`, `torch._dynamo.optimize(...)`, calls inside an inserted helper, and a compiled
`flex_attention` (`torch.compile(flex_attention, ...)`, torchtitan's wrapper): flex attention compiles itself while
traced and stops the export with the same words, so running it uncompiled fixes nothing; TRT315 replaces its calls.

Why it hurts: measured with torch 2.13, `torch.jit.trace`, and so the TorchScript ONNX exporter, refuses to trace
a dynamo-optimized function: "Detected that you are using FX to torch.jit.trace a dynamo-optimized function. This
is not supported at the moment." The export stops at the call of the compiled function, whatever it computes. A
user who sets moshi's `NO_TORCH_COMPILE` avoids it; one who exports the model as shipped does not.

The rewrite: `torch.compile(...)` → `_trt_compile(...)`, the same arguments (the decorator likewise). The inserted
`_trt_compile` returns `torch.compile`'s own result for a module (an `OptimizedModule`: not changed, see below),
and for a function a function that calls the compiled one, except while `torch.jit.is_tracing()`, where it calls
the original function, so the trace records its operations. With no function (a decorator given keywords) it
returns the decorator that does the same. The function's name, qualified name, module and docstring are copied,
and `__wrapped__` is the original, as `functools.wraps` leaves them.

Fix safety: safe. Outside a trace, every call is the compiled function's, as before (eager, `torch.fx`,
`torch.compile` around it, and `torch.export`, which the TorchScript tracer's flag does not concern). While
`torch.jit.trace` traces, where the original raises, the rewrite runs the uncompiled function, whose values
`torch.compile` promises to keep (up to the float rounding of fused kernels). The returned object is a plain
function, not torch's wrapper: code that reads the wrapper's own attributes (`_torchdynamo_orig_callable`) would
not find them. A compiled module (`torch.compile(self.encoder)`) is left as torch makes it: the TorchScript
exporter refuses its `forward` too; compile the module's code outside the exported model, or export the module
itself (`model._orig_mod`).

TensorRT versions: all (the export stops before TensorRT sees a graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def lazy(fun):\n"
                "    compiled = None\n"
                "    def wrapped(*args):\n"
                "        nonlocal compiled\n"
                "        if compiled is None:\n"
                "            compiled = torch.compile(fun)\n"
                "        return compiled(*args)\n"
                "    return wrapped\n",
                "def lazy(fun):\n"
                "    compiled = None\n"
                "    def wrapped(*args):\n"
                "        nonlocal compiled\n"
                "        if compiled is None:\n"
                "            compiled = _trt_compile(fun)\n"
                "        return compiled(*args)\n"
                "    return wrapped\n",
            ),
            Example("@torch.compile(dynamic=True)\ndef fused(x, y):\n    return (x * y).sum(-1)\n",
                    "@_trt_compile(dynamic=True)\ndef fused(x, y):\n    return (x * y).sum(-1)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.compile.html",
            "https://pytorch.org/docs/stable/generated/torch.jit.trace.html",
            "https://github.com/facebookresearch/audioseal",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or self.context.refers_to(node.func, *_COMPILE) is None:
            return
        if any(a.star for a in node.args):
            return
        compiled = argument(node, 0, "model")
        if compiled is not None and self.context.refers_to(compiled.value, FLEX):
            return  # a compiled `flex_attention` compiles itself again while traced: TRT315 replaces its calls
        self.report(node, "`torch.compile(...)`: the TorchScript exporter refuses to trace the compiled function "
                          "(\"dynamo-optimized function\"); `_trt_compile` runs the original function while traced",
                    Fix({node.func: cst.Name(HELPER)}, helpers=(HELPER,)))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if in_inserted_helper(self) or self.context.refers_to(node.decorator, *_COMPILE) is None:
            return
        self.report(node, "`@torch.compile`: the TorchScript exporter refuses to trace the compiled function "
                          "(\"dynamo-optimized function\"); `@_trt_compile` runs the original function while traced",
                    Fix({node.decorator: cst.Name(HELPER)}, helpers=(HELPER,)))


RULES = (CompiledCall,)
