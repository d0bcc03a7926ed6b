"""TRT104: a loop whose trip count comes from tensor values (unrolled by a traced export);
``@torch.jit.script`` on the module-level function holding it, as an unsafe fix.

The evidence is :mod:`trtcodemod.transforms._condition_evidence`'s.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._condition_evidence import REFERENCES as _REFERENCES
from trtcodemod.transforms._condition_evidence import _DataFlowRule


class DataDependentLoop(_DataFlowRule):
    info = RuleInfo(
        id="TRT104",
        name="data-dependent-loop",
        summary="`while` or `for ... in range(n)` with a trip count from tensor values: tracing unrolls it",
        doc="""\
What it finds: a `while` loop whose condition depends on tensor values, and a
`for ... in range(...)` whose bound does (`range(int(n))`, `range(x.sum())`,
`range(n.item())`), with the same evidence as TRT101: the trip count must evidently come
from tensor values (loops over `range(x.shape[0])`, `range(len(names))` or a
configuration value are static and not reported).

Why it hurts: a traced export runs the loop once, with the example's trip count, and
unrolls it: the graph repeats the body exactly that many times, whatever the input says
at run time. Scripting keeps an ONNX `Loop`, whose dynamic trip count TensorRT handles
slowly and with restrictions (loop-carried values must keep one shape).

What to do: when the iterations are independent, vectorize them (compute all candidates at
once with a fixed maximum count and mask the unused ones); when they are not, move the loop
into a `torch.jit.script` function, or run it outside the exported graph and pass its result
in.

The rewrite (a loop in a module-level function without decorators, the guidance's recipe):
`@torch.jit.script` on that function. The TorchScript exporter then keeps the loop as an ONNX
`Loop` whose trip count follows the input; TensorRT parses `Loop`.

Fix safety: unsafe. It assumes the function compiles with TorchScript as written
(parameters without annotations are taken as Tensors, and Python features TorchScript lacks
fail at import), that eager callers accept the compiled function (same values, but another
call overhead and no Python debugging inside), and that the model is exported with the
TorchScript exporter: the dynamo exporter refuses scripted functions (TRT105). `migrate`
tries it as a candidate where the export bakes the trip count; a function that does not
compile, or a model that no longer matches, is reverted.

Which TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the function compiles with TorchScript as written (unannotated parameters are Tensors), and the model is "
            "exported with the TorchScript exporter"),
        examples=(
            Example(
                """\
class Refiner(nn.Module):
    def forward(self, x, steps):
        for _ in range(int(steps)):
            x = self.block(x)
        return x
""",
            ),
            Example(
                """\
def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = x * 0.5 + 1.0
    return x
""",
                """\
@torch.jit.script
def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = x * 0.5 + 1.0
    return x
""",
                unsafe=True,
            ),
            Example(
                """\
class Decoder:
    def decode(self, scores: torch.Tensor):
        n = 0
        while scores[n] > 0.5:
            n += 1
        return n
""",
            ),
        ),
        references=_REFERENCES,
    )

    def visit_While(self, node: cst.While) -> None:
        if self.context.function is None:
            return
        if self.evident(self.current_facts(), node.test)[0]:
            self.report(node, "`while` condition depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop",
                        self._script_fix())

    def _script_fix(self) -> Fix | None:
        """``@torch.jit.script`` on the module-level function that holds the loop, if it is one."""
        context = self.context
        if len(context.functions) != 1 or context.classes:
            return None
        function = context.functions[0]
        if function.decorators or function.asynchronous is not None:
            return None
        decorator = cst.Decorator(decorator=context.torch_attr("jit.script"))
        return Fix({function: function.with_changes(decorators=[decorator])}, safety=Safety.UNSAFE)

    def visit_For(self, node: cst.For) -> None:
        call = node.iter
        if not (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range"):
            return
        if self.context.qualified_names(call.func):
            return  # someone's own `range`
        if self.context.function is None:
            return
        facts = self.current_facts()
        seen = self.observed(call)
        if seen if seen is not None else facts is not None and any(facts.depends(arg.value) for arg in call.args):
            self.report(node, "`range(...)` bound depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop",
                        self._script_fix())


RULES = (DataDependentLoop,)
