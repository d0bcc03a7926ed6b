"""TRT104: a loop whose trip count comes from tensor values (unrolled by a traced export);
``@torch.jit.script`` on the module-level function holding it, as an unsafe fix.

The evidence is :mod:`trtcodemod.transforms._condition_evidence`'s.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._condition_evidence import REFERENCES as _REFERENCES
from trtcodemod.transforms._condition_evidence import _TENSOR, _DataFlowRule
from trtcodemod.transforms._data_sized import DataSized
from trtcodemod.transforms._loop_prebind import prebind
from trtcodemod.transforms._script_blockers import annotate_defaults, callee_blocker, first_bound_inside, script_blocker
from trtcodemod.transforms._stacked_list import stack_index_lists


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
configuration value are static and not reported, nor is a count read from a tensor built only
from configuration, as TRT101 defines it: `range(int(steps.sum()))` with `steps =
torch.tensor(float(k)) * 2`). Also a trip count that is the size of a
tensor whose size depends on values, though no value is read: `while idx.numel() > 0`
after `idx = idx[iou.le(t)]`, `range(len(m.nonzero()))`, `for c in torch.unique(labels)`
(`nonzero`, `unique`, `masked_select`, a one-argument `torch.where`, a boolean selection, also
through a mask held in a local, `detections[~invalid]`, or an index shifted by a number,
`order[inds + 1]`). And a loop of any bound that a `break` under a condition on tensor values
ends (`for _ in range(100): ... if err.item() < tol: break`): the trip count is the data's.
Tensors are those the code shows (parameters annotated as tensors and what flows from them)
or, with a recorded run (`--facts`, `migrate`), those the run saw (a plain function's parameter
every recorded call passed a tensor is one). What a function of the file decorated with
`torch.jit.script` returns from tensors is data too: an iterate-until-convergence loop,
`while not done: image, done = step(image)` with `done = torch.equal(old, image)` in the scripted
`step` (pytorch_filters' Canny hysteresis), whose test the recorded run sees read no value, as the
read happens in TorchScript; its traced export stops ("Tracer cannot set value trace for type
Bool").
Loops in a function decorated with `torch.jit.script` or `torch.jit.script_if_tracing` are
not reported: they stay loops in the export.

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
`Loop` whose trip count follows the input; TensorRT parses `Loop`. Not where TorchScript
evidently rejects the function (the decorator would raise at import): a parameter with a
default and no annotation (taken as a Tensor) unless the default is a number, bool or string
literal (then the parameter is annotated `int`, `float`, `bool` or `str`, the default's type), or
`*args`/`**kwargs`; nor where a function of the file it calls (compiled with it, as written) has a
parameter with a default other than None and no annotation (the finding names it: annotate it and
the fix applies); nor where it returns a number literal (`return keep, 0`: a traced export
cannot carry a Python number out of a scripted function), nor where it calls `torch.tensor` on a
list bound to `[]` (TorchScript types that list as a list of tensors, and `torch.tensor` of one
raises at run time where eager mode returned an empty tensor); those loops are reported only.
Except a list of index tensors made a tensor of an integer dtype (`keep.append(i)` with `i =
order[0]` and `order` from `argsort`, `sort`'s or `topk`'s indices or `nonzero`, the list read
only by `append`, `len` and `torch.LongTensor(keep)` or `torch.tensor(keep, dtype=torch.long)`):
that call becomes `(torch.stack(keep).to(dtype=D, device=E) if len(keep) > 0 else
torch.zeros(0, dtype=D, device=E))`, the same tensor, also where no index was kept (the device
the call's own, else the CPU: `torch.LongTensor`'s, and torch's default device taken to be the
CPU), each append `keep.append(i.reshape(()))` (the call read each element as one value). A
name first bound inside the loop and read after it is undefined where the loop runs zero
times, and TorchScript rejects it: where every binding of it in the loop is `name = <tensor>` and
the statement right after the loop reads it unconditionally, the rewrite also
declares it `name: torch.Tensor | None = None` before the loop and adds `assert name is not
None` after it (where the loop ran zero times, eager mode raised `UnboundLocalError` at that
read; it now raises an `AssertionError` one line before); otherwise the loop is reported only.

Fix safety: unsafe. It assumes the function compiles with TorchScript as written
(parameters without annotations are taken as Tensors, those given a number, bool or string
literal default are passed values of the default's type, and Python features TorchScript
lacks fail at import), that eager callers accept the compiled function (same values, but another
call overhead and no Python debugging inside), and that the model is exported with the
TorchScript exporter: the dynamo exporter refuses scripted functions (TRT105). `migrate`
tries it as a candidate where the export bakes the trip count; a function that does not
compile, or a model that no longer matches, is reverted.

Which TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the function compiles with TorchScript as written (unannotated parameters are Tensors, or of their "
            "literal default's type), and the model is exported with the TorchScript exporter"),
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

    def _scripted(self) -> bool:
        """Inside a function TorchScript compiles (also when tracing): its loops stay loops."""
        return any(self.context.refers_to(d.decorator, *_SCRIPTING) for f in self.context.functions
                   for d in f.decorators)

    def visit_While(self, node: cst.While) -> None:
        if self.context.function is None or self._scripted():
            return
        facts = self.current_facts()
        if self.evident(facts, node.test)[0] and facts is not None and facts.scripted_read(node.test):
            self._report_loop(node, "`while` condition is a value a scripted function computes from tensors (an "
                              "iterate-until-convergence loop): a traced export cannot carry a Python bool or number "
                              "out of a scripted function and stops there; loop a fixed number of times that covers "
                              "the most passes the deployed data needs (where later passes change nothing), or "
                              "script the loop with its function (an ONNX `Loop` whose condition the graph computes: "
                              "`torch.equal` has no ONNX op, `bool((a == b).all())` of same-shaped tensors does)")
        elif self.evident(facts, node.test)[0]:
            self._report_loop(node, "`while` condition depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop")
        elif self._sized().reads_size(node.test):
            self._report_loop(node, "`while` condition reads the size of a tensor whose size depends on values "
                        f"({_SIZED_KINDS}): {_UNROLLS}")
        else:
            self._report_data_break(node)

    def _report_data_break(self, loop: cst.For | cst.While) -> None:
        """Report ``loop`` where a ``break`` of its own runs under a condition on tensor values
        (``if err.item() < tol: break``): the trip count is the data's, whatever the bound says."""
        facts = self.current_facts()
        if any(self.evident(facts, test)[0] for test in _break_guards(loop.body)):
            self._report_loop(loop, f"a `break` under a condition on tensor values ends the loop: {_UNROLLS}")

    def _report_loop(self, loop: cst.For | cst.While, message: str) -> None:
        """Report ``loop`` with the scripting fix, or with why TorchScript would evidently reject it."""
        fix = self._script_fix(loop)
        if isinstance(fix, str):
            message, fix = f"{message}; not scripted here: {fix}", None
        self.report(loop, message, fix)

    def _script_fix(self, loop: cst.CSTNode) -> Fix | str | None:
        """``@torch.jit.script`` on the module-level function that holds the loop, if it is one and
        nothing in it evidently stops TorchScript from compiling it (:mod:`._script_blockers`)."""
        context = self.context
        if len(context.functions) != 1 or context.classes:
            return None
        original = function = context.functions[0]
        if function.decorators or function.asynchronous is not None:
            return None
        function = stack_index_lists(function, lambda node, names: context.refers_to(node, *names) is not None,
                                     context.torch_attr)
        if script_blocker(function, lambda callee: context.refers_to(callee, "torch.tensor") is not None):
            return None
        blocker = callee_blocker(function, context.module)
        if blocker is not None:
            return blocker  # the user can annotate the callee: say which, where the loop is reported
        function = annotate_defaults(function)
        names = first_bound_inside(function, loop)
        if names:
            facts = self.current_facts()
            prebound = prebind(function, loop, names, lambda value: facts is not None and facts.level(value) >= _TENSOR,
                               context.torch_attr("Tensor"))
            if prebound is None:
                return None
            function = prebound
        decorator = cst.Decorator(decorator=context.torch_attr("jit.script"))
        return Fix({original: function.with_changes(decorators=[decorator])}, safety=Safety.UNSAFE)

    def _sized(self) -> DataSized:
        """Which tensors of the current function have a data-dependent size."""
        function = self.context.function
        assert function is not None
        facts = self.current_facts()
        observed = self._observed
        return DataSized(self.context, self.index(function).pairs,
                         lambda node: facts is not None and facts.level(node) >= _TENSOR or observed.is_tensor(node))

    def visit_For(self, node: cst.For) -> None:
        if self.context.function is None or self._scripted():
            return
        call = node.iter
        if not (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range"):
            if self._sized().sized(call):
                self._report_loop(node, f"the loop iterates over a tensor whose size depends on values ({_SIZED_KINDS}): "
                            f"{_UNROLLS}")
            else:
                self._report_data_break(node)
            return
        if self.context.qualified_names(call.func):
            return  # someone's own `range`
        facts = self.current_facts()
        seen = self.observed(call)
        dependent = seen if seen is not None else facts is not None and any(facts.depends(arg.value) for arg in call.args)
        if dependent and facts is not None and facts.fixed(call):
            dependent = False  # `range(int(t.sum()))` of a tensor built from configuration only: the same count always
        if dependent:
            self._report_loop(node, "`range(...)` bound depends on tensor values: a traced export unrolls the loop with the "
                        "example's trip count; vectorize with a fixed maximum and a mask, or script the loop")
        elif self._sized().reads_size(call):
            self._report_loop(node, "`range(...)` bound is the size of a tensor whose size depends on values "
                        f"({_SIZED_KINDS}): {_UNROLLS}")
        else:
            self._report_data_break(node)


_SCRIPTING = ("torch.jit.script", "torch.jit.script_if_tracing", "torch.jit._script_if_tracing")
_SIZED_KINDS = "`nonzero`, `unique`, a boolean selection"
_UNROLLS = ("a traced export reads the example's size and unrolls the loop that many times; vectorize with a "
            "fixed maximum and a mask, or script the loop")


def _break_guards(node: cst.CSTNode, guards: tuple[cst.BaseExpression, ...] = ()) -> list[cst.BaseExpression]:
    """The conditions of the ``if`` statements around each ``break`` in ``node``, a loop's body
    (a nested loop's or function's breaks are their own)."""
    found: list[cst.BaseExpression] = []
    for child in node.children:
        if isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if type(child) is cst.Break:
            found.extend(guards)
        else:  # an `if`'s branches, `elif` and `else` too, run under its condition
            found.extend(_break_guards(child, (*guards, child.test) if type(child) is cst.If else guards))
    return found

RULES = (DataDependentLoop,)
