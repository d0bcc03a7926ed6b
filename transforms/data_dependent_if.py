"""TRT101: an ``if`` on tensor values; the branches' assignments vectorised with ``torch.where``.

The evidence is :mod:`trtcodemod.transforms._condition_evidence`'s; the rewrite is built by
:mod:`trtcodemod.transforms._branch_building`. The family is described in
:mod:`trtcodemod.transforms.control_flow`.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import (
    bound_names, children, code_of, helper_call, method_call, not_variables, short_code, strip_parens, walk,
)
from trtcodemod.evidence.proofs import prove_both_ways
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._branch_building import (
    _PY_BOOL_RESULTS, _storage_root, _assign, _walk_with_syntax as _walk_syntax, comments_inside, _fresh_names, selected_assignments, tensor_condition,
)
from trtcodemod.transforms._condition_evidence import REFERENCES as _REFERENCES
from trtcodemod.transforms._condition_evidence import (
    _PY_VALUE_BUILTINS, _PY_VALUE_METHODS, _DataFlowRule, read_names,
)
from trtcodemod.transforms._runtime_scope import value_when_exporting

_GUIDANCE = ("move the decision out of the graph and pass an indicator tensor as an input, compute both "
             "branches and blend them with torch.where, or script this part with torch.jit.script")



class DataDependentIf(_DataFlowRule):
    info = RuleInfo(
        id="TRT101",
        name="data-dependent-if",
        summary="`if` on tensor values: tracing bakes in one branch; vectorize assignments with `torch.where`",
        doc="""\
What it finds: an `if`/`elif`/`else` whose condition is evidently a tensor value: computed
by torch operations or tensor methods (`.max()`, `.any()`, `.sum()`, comparisons of such)
from the inputs of an `nn.Module`'s `forward`, from parameters annotated `Tensor` (also in
plain functions and tracker/coder classes), from what a helper method is passed by them,
or from module tensors (`self.w` built by `nn.Parameter`, `torch.*` or `register_buffer`
in `__init__`), directly or through locals; `.item()`/`int()` of such a value count too
(`if score.max() > thresh:`, `if self.scale > 1:`). Anything else is not reported:
`self.training` and other configuration attributes, shapes and sizes (`x.shape[0] > 1`,
`x.dim() == 4`, `len(x)`, `x.numel()`), NumPy and `math` values, strings, numbers,
`isinstance`, `is None`, `torch.cuda.is_available()`, `x.is_cuda`,
`torch.jit.is_tracing()`, membership tests (`key in state`), dict lookups
(`meta["flip"]`), results of functions the rule cannot see into, and names it cannot
trace. Parameters annotated `bool`/`int`/`float`/`str` or with such a literal default, and
parameters tested for truth as they are (`if return_loss:`), count as configuration.
Construction code (`__init__`, what only it calls, class methods) is not looked at. With
`--facts` (saved by `migrate --save-facts`), a line where the observed run read a tensor
value with `__bool__` is reported even without such evidence, and a line that ran without
one is not; a `forward` input the run passed a Python number at every call is configuration
(Real-CUGAN's `forward(self, x, tile_mode, ...)`: an `elif tile_mode == 1:` the run never
reached is not reported); `len(x)` of a tensor reads its size (`x.shape[0]`), not a value, so
`if len(desc) == 0:` is not reported even where the run saw `Tensor.__len__` (kornia's
`match_mnn`; an emptiness test is TRT713's). Nor is a condition on a tensor built only from
configuration, even where the run read its value: literals, parameters that count as
configuration, module constants and the `dtype`/`device` of anything, through torch factories,
torch functions, tensor methods and helpers of the same file, with only such values written into
it (piq's DSS: `weight` from `torch.arange(1, dct_size + 1, dtype=x.dtype, device=x.device)`,
then `if weight[m, n] < threshold: weight[m, n] = 0`): it is the same for every input, so the
trace keeps the branch eager mode takes. A size of an input, a random draw, `torch.empty`, or a
tensor handed to a function the rule cannot see into is not configuration.

Why it hurts: a traced export runs Python once, so the condition is evaluated on the
example input and the graph keeps only the branch it took (a `TracerWarning` at best): on
inputs that should take the other branch, the exported model silently gives the wrong
answer. Scripting keeps the branch as an ONNX `If`, which TensorRT accepts only when both
branches produce outputs of the same rank, and which blocks fusion across it.

The rewrite (when every branch only assigns plain names, `a = expr` or `a += expr`, with
side-effect-free expressions): the condition is evaluated once into a fresh local as a
tensor (`_trt_cond = torch.as_tensor(cond)`; `not`/`and`/`or` become `logical_not`/
`logical_and`/`logical_or`, the latter two only when both operands depend on data: in
`x is not None and x.sum() > 0` the static test guards the other one), then each assigned name is selected:
`a = torch.where(_trt_cond, <then>, <else>)`. A name assigned in only one branch keeps its
value from before the `if` in the other, which requires it to be bound before the `if`.
An `elif` chain becomes nested `torch.where`s, so the first true condition wins.
A branch's own temporary (`clamp_value = torch.finfo(h.dtype).max - 1000`, then
`h = torch.clamp(h, -clamp_value, clamp_value)`: a name that appears nowhere else in the
function and reads nothing the branch assigned before it) is computed before the selects,
as a plain assignment.
A branch may also hold `if`/`elif`/`else` statements on configuration (tests the rule would not
report: Python ints, flags, strings), made of such assignments and `if`s again (UniMatch's
`if is_self_attn:` whose branches each pick their attention by `if attn_num_splits > 1:`). Such a
branch is kept as it is, its inner `if`s included, but every name it assigns is written to a
fresh local of its own (`_trt_then_message`, `_trt_else_message`; read from it after), so each
branch runs before the selects, and each name the code after the `if` (or another branch) reads is
selected from those locals: `message = torch.where(_trt_cond, _trt_then_message,
_trt_else_message)`. A name only such a branch reads stays its local. A selected name must be
assigned on every way through the inner `if`s. Not rewritten: an inner test on a tensor value (a
read the recorded run located at the enclosing `if` is that `if`'s own), an `assert` or `raise`
in such a branch (it would run where the other branch is taken: autonomousvision/unimatch's
swin-1d cross branch asserts a mask the self-attention call does not pass), a name read after
only some ways through an inner `if` assign it, and any other compound statement (loops, `with`,
`try`). Both branches' calls then run on every input: the graph costs both attentions.
An early return, `if C: return A` as a statement of the function's own body with no `else`, followed
by the rest of the function ending in `return B`, is rewritten otherwise (oflibpytorch's
`apply_flow`: `if all(is_zero_flow(flow, thresholded=True)): return target` before the warp): the
condition goes into a fresh local (the built-ins `all`/`any` of it through `_trt_all`/`_trt_any`,
which reduce a 1-D tensor in the graph while tracing instead of reading each element; `not` of it
through `_trt_not`, `torch.logical_not` of a tensor, which `if` reads as it read `not`: pyro's `if
not near_hole.any():`), the `if` reads it through `_trt_shortcut_taken` (its truth, as `if` reads
it, in eager mode and scripted; False while a trace meets a one-element tensor), `A` is kept in a
second local (a name or an attribute as it is; a value the early return computes, such as
torchmetrics' `tensor(0.0, device=preds.device)` or pyro's `super().log_prob(value)`, only while
tracing: `A if _trt_tracing() else None`, so eager mode and scripts compute it only where they
return it), and each `return B` after it returns `_trt_shortcut_select(cond, A, B)`: `B` in eager
mode (the shortcut was not taken there), and while tracing `torch.where(cond, A, B)` for tensors of
one shape and dtype (tuples and lists of them element by element); anything else reads the condition
as before, so the trace keeps the example's way with its warning and nothing is hidden. A static
test `or`-ed in front (MONAI's `if not self.gaussian or torch.count_nonzero(t) == 0: return t`)
keeps its own `if S: return A` before the shortcut on the rest: Python decides it alike on every
input. Eager mode runs the original code (`not` of a tensor as one `logical_not`): the same values,
the very tensor `A`, the same exceptions and cost. Not rewritten: an `if` inside a block, `return
None` (no graph returns None on some inputs only), a bare `return` after it, generators, a condition
built with `and`, with `or` after a tensor, or a Python value (`.item()`), a computed value that
writes in place, assigns or prints (the trace would do it where it is not returned), and a rest that
writes in place to `A`'s name (or, for a computed `A`, to a name it reads) or a name bound to it or
a view of it (which would change the kept value; a write inside a called function is not seen).
An emptiness guard over writes through a mask, `if M.any():` (or `torch.any(M)`) with no `else`
whose body only writes through `M` (`out[M] = f(x[M])`, `out[M, 0] = ...`, `out[M] += ...`) and
binds temporaries that no later read sees before binding them again (kornia's `_modified_bessel_0`:
`if idx_a.any(): y = ...; out[idx_a] = ...`, then the same for `idx_b`), `M` visibly a bool tensor
at every binding (a comparison, `~`, `&`, `torch.logical_*`, `isfinite`...; `.any()` of integer
indices is False for index 0, which a write would still reach), and the `if` in no loop, reads its
test through `_trt_masked_taken`: its truth, as `if` reads it, in eager mode and scripted; True
while a trace meets a one-element tensor, so the graph keeps the writes, which write nothing where
the mask is empty (before, a trace whose example left the mask empty dropped them for every input).
It assumes the body runs on an empty selection without raising (elementwise arithmetic does; `max`
of nothing, or a helper that checks its input's size, may not) and that what it calls has no effect
besides its value.
An emptiness exit ahead of a mask selection, `if not M.any():` (or `not torch.any(M)`) whose body is
just `continue`, `break`, `return` or `return V`, followed in its block by code that selects with `M`
(`x[M]`, `M.nonzero()`, `torch.nonzero(M)`, `torch.where(M)`), or `if M.any(): <selects with M> else:
<such an exit>` (oriented_det's midpoint RPN: `if not valid.any(): continue` before
`idx = valid.nonzero(as_tuple=True)[0]`; its RoI head: `if candidate_mask.any(): ... else: return None`),
the early return above taking what it can (this form takes `continue`, `break`, `return None`, a return
inside a block, and one whose rest writes the returned tensor), `M` visibly a bool tensor at every binding
(comparisons and their `&`/`|`/`~`/`*`, `zeros_like` of one, views
of one such as `.unsqueeze(1)`, a function of the same file returning such a comparison), reads its test
through `_trt_shortcut_taken` (the exit) or `_trt_masked_taken` (the selection): its truth, as `if` reads
it, in eager mode and scripted; while a trace meets a one-element tensor, the way that selects, so the
graph computes the selection on every input (before, a trace whose example took the exit returned the
exit's value on every input, and one that did not kept the test as a baked read). It assumes that where
`M` is empty the code after the exit gives what the exit gives (values, dtype and shape of the model's
outputs): an empty selection flows through as zero rows (a `cat` of them, a `topk` of `min(k, n)`), and
nothing after it raises or reduces over nothing (`max` of nothing raises, `mean` of nothing is NaN). That
is proved only by observation: `migrate` applies it where the recorded run saw the test go both ways on
the input sets the verification compares (so it compared the graph, which never takes the exit, with the
model where it took it), never as a candidate; elsewhere it remains, and `--unsafe` applies it.
A narrowing guard, `if <test reading M>:` with no `else` whose body ends by narrowing the bool mask `M`
(`M = A & B`), its other names temporaries of its own (bound before read there; read after it only
once bound again) and an item write only into a tensor it made (oriented_det's midpoint RPN: `if
valid.sum() > pre_nms_top_n:` keeps the top `min(2 * pre_nms_top_n, n)` scores, `mask =
torch.zeros_like(valid)`, `mask[top_idx] = True`, `valid = mask & (scores >= score_threshold)`), reads
its test through `_trt_masked_taken`, so the graph narrows on every input. It assumes the narrowing
leaves `M` as it is where the test is false (there, the top `min(2k, n)` scores hold every one above the
threshold, unless NaN scores, which `topk` ranks first, crowd them out), and is proved the same way.
Anything else (calls with side effects, `return`, `raise`, attribute or item assignment,
other branch statements that read each other's results, string or `None` values, a name
assigned in only some branches that may be `None` before the `if` (a parameter defaulting to
None, or `name = None`), a condition built with `.item()`, `int()`, `float()`,
`torch.allclose` or `torch.equal`, which stays a Python value) is reported with guidance
instead.

Fix safety: unsafe. The vectorized code evaluates every branch and every condition and
selects with `torch.where`. It assumes the branches compute values of the same shape and
dtype, cheaply, without raising and without NaN gradients where they are not taken, and
that no alias of a branch value is changed in place later. In the contract's terms:
- Values: each assigned name gets the value of the branch the `if` would take, but: a
  branch that reduces over an empty selection (`mean` of nothing is NaN) or makes inf/NaN
  where it is not taken (`sqrt` of a negative, `log(0)`, `0 / 0`) computes it anyway;
  `torch.where` hides it, but with TRT102 also selected the `torch.where` becomes an
  arithmetic blend and that inf/NaN becomes NaN in the result (see `trtcodemod explain
  TRT102`). Side effects of both branches happen (calls known to have effects, in-place
  methods and `print`/logging are refused, but a user function with effects is not known),
  and both branches cost time: a heavy branch runs on every input (a branch with inner `if`s on
  configuration runs the way they choose). A later `elif`
  condition is evaluated even when an earlier one holds. A Python number or list assigned
  in a branch becomes a tensor.
- Dtype and shape: `torch.where` broadcasts and promotes: branches of different shapes or
  dtypes give one result of the broadcast shape and promoted dtype (a float32 branch and a
  float64 one give float64 whichever is taken), where the `if` kept the chosen branch's
  own; a name assigned in only one branch is selected against its value from before the
  `if`.
- Gradients: `torch.where` sends the upstream gradient to the branch that is selected and
  zeros to the other, so the inputs of both branches get gradients: one that only the
  branch not taken uses gets a zero `.grad` where it had `None`, and `requires_grad` of
  the result is set when either branch requires grad. A branch that is not taken but has
  an infinite derivative there gives NaN gradients: `torch.where(c, x.sqrt(), x)` where
  `x` is 0 or negative, `log`, or division by zero backpropagate `0 * inf = NaN` into
  `x.grad`, where the `if` gave a finite gradient. Guard the argument too
  (`x.clamp(min=eps).sqrt()`) when training through such a branch.
- Aliasing: the result is always a new tensor, never a view of a branch value or the same
  object: after `out = x` in a branch, `out is x` no longer holds, and an in-place change
  of one (`out.add_(1)`, `x[0] = 0`, `out += 1`) no longer reaches the other. When the
  rewrite can see such a change after the `if` (`out = x` or a view such as `x[0]`, or a
  name only some branches assign, then an in-place method, item assignment or augmented
  assignment on one of them), it reports instead of rewriting; a change made through
  another name or inside a called function is not seen. A name only some branches assign
  may be changed in place after the `if` when the tensor it holds there is visibly its own:
  bound by a plain `name = value` in a block around the `if` (in the same pass of any loop)
  to a computed value (no name, attribute or view of one: a called function's result counts
  as its own), then read only as an operand or a method's receiver (MONAI's
  `SobelGradients`: `grad = separable_filtering(...)`, then `if grad_min != grad.max():
  grad -= grad_min` and `if grad_max > 0: grad /= grad_max`, both rewritten). `a += e` in a branch is in place
  on a tensor in eager: other references to that tensor saw the change, after the rewrite
  they do not.
- Exceptions: an exception a branch raises (a shape mismatch, an index out of range, an
  `assert`-like check in a called function) now raises whether or not the branch would
  have been taken, and so does one from an `elif` condition after a true one. A condition
  with several elements raises in `if` (`RuntimeError`: ambiguous truth value) but is
  broadcast by `torch.where`, which raises nothing.
- Toolchains: the result uses only `torch.as_tensor`, `torch.where` and
  `torch.logical_and/or/not`: it scripts, compiles (`fullgraph=True` too, where the `if`
  broke the graph) and exports with a `Where` node (TRT102 turns it into a blend for
  TensorRT releases that need one). `torch.fx.symbolic_trace` fails on `torch.as_tensor`
  of a traced value, as it failed on the `if`.

For an early return, the trace computes the rest of the function on every input, the shortcut's
inputs included: the rest must not raise there (a check it makes that the shortcut skipped), and the
graph's cost is the rest's (and a computed shortcut's, which must not raise there either). The graph
returns the shortcut's value where the condition holds only where
the trace saw both values with one shape and dtype: a shortcut that returns a tensor of another shape at
other sizes (a batch of one where the rest broadcasts to many) is selected broadcast.

Which TensorRT versions: all (the baked-in branch is an export problem, not a parser one).""",
        fix=Safety.UNSAFE,
        assumption=(
            "the branches compute values of the same shape and dtype (for a branch with `if`s on configuration, "
            "on the way they choose), without raising and without inf or NaN (or NaN "
            "gradients) where they are not taken, and no alias of a branch value is written in place later (an early "
            "return: the rest of the function runs without raising where the shortcut is taken, and its value has "
            "the shortcut's shape and dtype at every size; an emptiness exit before a mask selection: where the mask "
            "is empty the code after the exit gives what the exit gives; a narrowing guard: where its test is false "
            "the narrowing leaves the mask as it is)"),
        examples=(
            Example(
                """\
class Gate(nn.Module):
    def forward(self, feat, prev):
        if feat.abs().mean() > 0.5:
            out = feat + prev
        else:
            out = prev
        return out
""",
                """\
class Gate(nn.Module):
    def forward(self, feat, prev):
        _trt_cond = torch.as_tensor(feat.abs().mean() > 0.5)
        out = torch.where(_trt_cond, feat + prev, prev)
        return out
""",
                unsafe=True,
            ),
            Example(
                """\
class Tracker:
    def step(self, score: torch.Tensor, age: torch.Tensor):
        if score < 0.3:
            age += 1
        return age
""",
                """\
class Tracker:
    def step(self, score: torch.Tensor, age: torch.Tensor):
        _trt_cond = torch.as_tensor(score < 0.3)
        age = torch.where(_trt_cond, age + 1, age)
        return age
""",
                unsafe=True,
            ),
            Example(
                """\
class Head(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            self.hits += 1
        return x
""",
            ),
            Example(
                """\
class Warp(nn.Module):
    def forward(self, flow, frame):
        if torch.all(flow == 0):
            return frame
        grid = self.base - flow.permute(0, 2, 3, 1)
        return F.grid_sample(frame, grid, align_corners=True)
""",
                """\
class Warp(nn.Module):
    def forward(self, flow, frame):
        _trt_cond = torch.all(flow == 0)
        if _trt_shortcut_taken(_trt_cond):
            return frame
        _trt_shortcut = frame
        grid = self.base - flow.permute(0, 2, 3, 1)
        return _trt_shortcut_select(_trt_cond, _trt_shortcut, F.grid_sample(frame, grid, align_corners=True))
""",
                unsafe=True,
            ),
            Example(
                """\
class Precision(nn.Module):
    def forward(self, preds, target):
        if not target.sum():
            return torch.zeros((), device=preds.device)
        return (preds * target).sum() / target.sum()
""",
                """\
class Precision(nn.Module):
    def forward(self, preds, target):
        _trt_cond = _trt_not(target.sum())
        if _trt_shortcut_taken(_trt_cond):
            return torch.zeros((), device=preds.device)
        _trt_shortcut = torch.zeros((), device=preds.device) if _trt_tracing() else None
        return _trt_shortcut_select(_trt_cond, _trt_shortcut, (preds * target).sum() / target.sum())
""",
                unsafe=True,
            ),
            Example(
                """\
class Proposals(nn.Module):
    def forward(self, scores, boxes):
        rows = []
        for level in range(scores.shape[0]):
            keep = scores[level] > 0.5
            if not keep.any():
                continue
            rows.append(boxes[level][keep.nonzero(as_tuple=True)[0]])
        return torch.cat(rows + [boxes.new_zeros((0, 4))])
""",
                """\
class Proposals(nn.Module):
    def forward(self, scores, boxes):
        rows = []
        for level in range(scores.shape[0]):
            keep = scores[level] > 0.5
            if _trt_shortcut_taken(_trt_not(keep.any())):
                continue
            rows.append(boxes[level][keep.nonzero(as_tuple=True)[0]])
        return torch.cat(rows + [boxes.new_zeros((0, 4))])
""",
                unsafe=True,
            ),
        ),
        references=_REFERENCES,
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._chain_members: set[cst.If] = set()

    def visit_If(self, node: cst.If) -> None:
        if node in self._chain_members:
            return
        tests, bodies, else_body = [], [], None
        current: cst.If | None = node
        while current is not None:
            tests.append(current.test)
            bodies.append(current.body)
            orelse = current.orelse
            if type(orelse) is cst.If:
                self._chain_members.add(orelse)
                current = orelse
            else:
                else_body = orelse.body if orelse is not None else None
                current = None
        if self.context.function is None:
            return  # module-level code is not what a model's forward runs
        facts = self.current_facts()
        if facts is None and not self._observed.known:
            return
        # A test whose value while exporting is known (`not torch.jit.is_tracing() and ...`) decides
        # nothing from data there, and the tests after one known true never run in the trace.
        known = [value_when_exporting(self.context, test) for test in tests]
        last = known.index(True) if True in known else len(tests) - 1
        # The run locates a read at the statement that made it: one at an `if` around this chain (UniMatch's
        # `if is_self_attn:` around `if attn_num_splits > 1:`) is that `if`'s own, not this chain's.
        decided = [self.evident(facts, test, node) if known[i] is None and i <= last else (False, False)
                   for i, test in enumerate(tests)]
        dependent = [depends for depends, _ in decided]
        if not any(dependent):
            return
        index = dependent.index(True)
        first = code_of(tests[index]).strip()
        if len(first) > 60:
            first = first[:57] + "..."
        message = (f"`if {first}` depends on tensor values: a traced export keeps only the branch the example "
                   "input takes")
        if decided[index][1]:
            message += " (observed: the recorded run read a tensor value in this condition)"
        fix, reason = None, "not every condition is data-dependent" if not all(dependent) else None
        shortcut = reason is None and len(tests) == 1 and else_body is None and _returned(bodies[0]) is not None
        guarded = None if shortcut or reason is not None or len(tests) != 1 or else_body is not None \
            else self._masked_guard(node, tests[0], bodies[0])
        # An early return the shortcut can select in the graph stays the shortcut's (a candidate, as before);
        # the emptiness exit takes what it refuses (`continue`, `return None`, a return inside a block).
        shortcut_fix = self._shortcut(node, tests[0], bodies[0]) if shortcut else (None, "")
        exit_fix = self._emptiness_exit(node, tests, bodies, else_body) \
            if reason is None and shortcut_fix[0] is None else None
        narrowed = None if exit_fix is not None or guarded is not None or reason is not None or len(tests) != 1 \
            or else_body is not None else self._narrowing_guard(node, tests[0], bodies[0])
        if narrowed is not None:
            self.report(node, message + f"; the trace records the narrowing of `{narrowed[1]}`, which leaves it as "
                        "it is where the test is false" + _BOTH_WAYS, narrowed[0])
            return
        if exit_fix is not None:
            fix, mask = exit_fix
        elif shortcut:
            fix, reason = shortcut_fix
        elif guarded is not None:
            fix = guarded
        elif reason is None:
            fix, reason = self._vectorize(node, tests, bodies, else_body)
        if exit_fix is not None:
            self.report(node, message + f"; the trace records the code after the exit, which selects with `{mask}` "
                        "(an empty selection where the exit is taken), where it kept the example's way" + _BOTH_WAYS,
                        fix)
        elif fix is not None and shortcut:
            self.report(node, message + "; the trace computes the rest of the function and selects the early "
                        "return's value with torch.where where the condition holds", fix)
        elif fix is not None and guarded is not None:
            self.report(node, message + "; the trace records the writes through the mask, which write nothing "
                        "where it is empty", fix)
        elif fix is not None:
            self.report(node, message + "; select the assigned values with torch.where", fix)
        else:
            self.report(node, f"{message}; {_GUIDANCE} (not rewritten: {reason})")

    # --- the rewrite -------------------------------------------------------------

    def _vectorize(self, node: cst.If, tests: list, bodies: list, else_body) -> tuple[Fix | None, str]:
        conditions = []
        for test in tests:
            converted = self._condition(test)
            if converted is None:
                return None, ("the condition is a Python value (.item(), int(), torch.allclose, a chained "
                             "comparison...) "
                             "or a static check guards a data-dependent one")
            conditions.append(converted)
        used = read_names(self.context.function) | {
            n for t, _ in self.index(self.context.function).pairs for n in bound_names(t)
        }
        facts = self.current_facts()

        def static(statement: cst.If) -> bool:
            # A nested test the rule would not report: configuration, the same in eager mode and in a trace
            # (the run's read at the `if` around it, located at that whole statement, is not its own).
            test = statement.test
            return value_when_exporting(self.context, test) is not None \
                or not self.evident(facts, test, statement)[0]

        statements = selected_assignments(self.context.function, node, conditions, bodies, else_body,
                                          self.context.torch_attr("where"), used, static)
        if isinstance(statements, str):
            return None, statements
        # The comments of a branch kept as it is (one with nested `if`s) stay where they are.
        kept = {id(n) for body in (*bodies, else_body) if body is not None and type(body) is cst.IndentedBlock
                and any(type(s) is not cst.SimpleStatementLine for s in body.body) for n in _walk_syntax(body)}
        comments = comments_inside(node, kept)
        statements[0] = statements[0].with_changes(leading_lines=[*node.leading_lines, *comments])
        return Fix({node: cst.FlattenSentinel(statements)}, safety=Safety.UNSAFE), ""

    def _shortcut(self, node: cst.If, test: cst.BaseExpression, body: cst.BaseSuite) -> tuple[Fix | None, str]:
        """``if C: return A`` followed by the rest of the function, which ends in ``return B``: the
        condition is kept in a fresh local, the ``if`` reads it through ``_trt_shortcut_taken`` (its
        truth in eager mode; False while a trace meets a tensor), ``A`` is kept as it is then, and each
        ``return B`` after it returns ``_trt_shortcut_select(cond, A, B)``: ``B`` in eager mode (where the
        shortcut was not taken), ``torch.where(cond, A, B)`` while tracing."""
        function = self.context.function
        statements = list(function.body.body) if type(function.body) is cst.IndentedBlock else []
        if not any(s is node for s in statements):
            return None, "the early return is inside a block, not a statement of the function's own body"
        value = _returned(body)
        if type(strip_parens(value)) is cst.Name and value.value == "None":
            return None, "the early return hands back None, which no graph returns on some inputs only"
        computed = not _plain_reference(value)
        if computed:
            effect = _computing_effect(value)
            if effect:
                return None, f"the early return's value {effect}, which the trace would do where it is not returned"
        rest = statements[[i for i, s in enumerate(statements) if s is node][0] + 1:]
        if not rest or _returned(rest[-1]) is None:
            return None, "the function does not end in `return value` after the early return"
        returns = [n for n in _own_nodes(rest) if type(n) is cst.Return]
        if any(r.value is None for r in returns):
            return None, "a `return` after it returns nothing"
        if any(type(n) in (cst.Yield, cst.Await) for n in _own_nodes(statements)):
            return None, "the function is a generator or a coroutine"
        # A kept name must not change under the rest; a computed value is computed before the rest (while
        # tracing), where the `return` would have computed it, so only what it reads must stay as it was.
        for kept in [value, *(cst.Name(n) for n in sorted(read_names(value)) if computed)]:
            written = _written_in_place(rest, kept)
            if written:
                return None, (f"the rest writes a tensor in place (`{written}`), which could change the early "
                              "return's value")
        # `if S or C: return A` with S static (`not self.gaussian or torch.count_nonzero(t) == 0`) is
        # `if S: return A` and then the shortcut on C: Python decides S alike on every input.
        test, guard = strip_parens(test), None
        if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or \
                and not self.evident(self.current_facts(), test.left)[0]:
            guard, test = test.left, strip_parens(test.right)
        condition = self._shortcut_condition(test)
        if condition is None:
            return None, ("the condition reads a Python value (`not`, `and`, `.item()`, `int()`...), which a trace "
                          "cannot keep")
        converted, helpers = condition
        used = read_names(function) | {n for t, _ in self.index(function).pairs for n in bound_names(t)}
        [cond] = _fresh_names(used, 1)
        early = next(name for name in (f"_trt_shortcut{'' if i == 1 else f'_{i}'}" for i in range(1, 100))
                     if name not in used)
        taken = node.with_changes(test=helper_call(_TAKEN, cst.Name(cond)), leading_lines=())
        if computed:
            # Computed only while tracing: eager mode and scripting compute it only where it is returned.
            helpers = (*helpers, _TRACING)
            kept_value: cst.BaseExpression = cst.IfExp(test=cst.Call(func=cst.Name(_TRACING)),
                                                       body=_grouped(strip_parens(value)), orelse=cst.Name("None"))
        else:
            kept_value = value
        statements_out = [_assign(cond, converted).with_changes(leading_lines=node.leading_lines), taken,
                          _assign(early, kept_value)]
        if guard is not None:
            statements_out[0] = statements_out[0].with_changes(leading_lines=())
            statements_out.insert(0, node.with_changes(test=guard, body=body.deep_clone()))
        changes: dict[cst.CSTNode, cst.CSTNode] = {node: cst.FlattenSentinel(statements_out)}
        for ret in returns:
            changes[ret] = ret.with_changes(value=helper_call(_SELECT, cst.Name(cond), cst.Name(early),
                                                              _grouped(ret.value)))
        return Fix(changes, safety=Safety.UNSAFE, helpers=(_TAKEN, _SELECT, *helpers)), ""

    def _emptiness_exit(self, node: cst.If, tests: list, bodies: list, else_body) -> tuple[Fix, str] | None:
        """An exit taken where a bool mask selects nothing, ahead of code that selects with it: ``if not M.any():
        continue`` (or ``return V``, ``break``), or ``if M.any(): <selects with M> else: <exit>``. The ``if`` reads
        its test through ``_trt_shortcut_taken`` (the exit) or ``_trt_masked_taken`` (the selection): the truth in
        eager mode and scripted; while a trace meets a tensor, the way that selects, so the graph computes the
        selection on every input. Applied where the run saw the test go both ways (``Fix.proof``)."""
        if len(tests) != 1:
            return None
        test, body = strip_parens(tests[0]), bodies[0]
        negated = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not
        mask = self._any_of_mask(strip_parens(test.expression) if negated else test)
        if mask is None:
            return None
        if negated and else_body is None and _exits(body):
            after = _following(self.context.function, node)
            converted = self._shortcut_condition(test)
            if converted is None or not any(_selects_with(s, mask) for s in after):
                return None
            condition, helpers = converted
            guard = node.with_changes(test=helper_call(_TAKEN, condition))
            return Fix({node: guard}, safety=Safety.UNSAFE, helpers=(_TAKEN, *helpers),
                       proof=prove_both_ways), mask
        if not negated and else_body is not None and _exits(else_body) and _selects_with(body, mask):
            guard = node.with_changes(test=helper_call(_MASKED, tests[0]))
            return Fix({node: guard}, safety=Safety.UNSAFE, helpers=(_MASKED,), proof=prove_both_ways), mask
        return None

    def _narrowing_guard(self, node: cst.If, test: cst.BaseExpression, body: cst.BaseSuite) -> tuple[Fix, str] | None:
        """``if <test of M>: ...; M = A & B`` (no ``else``): a bool mask narrowed only where a test on it asks
        (oriented_det's midpoint RPN: ``if valid.sum() > pre_nms_top_n:`` keeps the top-k scores, ``valid =
        mask & (scores >= score_threshold)``). The body's other names are its own temporaries (read nowhere
        else, each bound before it is read), an item write goes only to a fresh tensor of the body's
        (``mask = torch.zeros_like(valid)``; ``mask[top_idx] = True``). The ``if`` reads its test through
        ``_trt_masked_taken``: the truth in eager mode and scripted, True while a trace meets a tensor, so the
        graph narrows on every input. It assumes the narrowing leaves the mask as it is where the test is
        false; applied where the run saw the test go both ways (``Fix.proof``)."""
        if type(body) is not cst.IndentedBlock or not body.body:
            return None
        last = body.body[-1]
        if type(last) is not cst.SimpleStatementLine or len(last.body) != 1 or type(last.body[0]) is not cst.Assign \
                or len(last.body[0].targets) != 1 or type(last.body[0].targets[0].target) is not cst.Name:
            return None
        mask = last.body[0].targets[0].target.value
        narrowing = strip_parens(last.body[0].value)
        if type(narrowing) is not cst.BinaryOperation or type(narrowing.operator) is not cst.BitAnd \
                or mask not in read_names(test) or not self._bool_mask(mask):
            return None
        function = self.context.function
        bound: list[str] = []
        fresh: set[str] = set()
        for n in walk(body):
            if type(n) in (cst.Return, cst.Raise, cst.Yield, cst.Await, cst.Global, cst.Nonlocal, cst.Del,
                           cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While, cst.With, cst.Try,
                           cst.AugAssign, cst.Continue, cst.Break, cst.NamedExpr):
                return None
            if type(n) is cst.Call and _computing_effect(n):
                return None
            if type(n) is cst.Assign:
                for t in n.targets:
                    if type(t.target) is cst.Subscript:
                        root = strip_parens(t.target.value)
                        if type(root) is not cst.Name or root.value not in fresh:
                            return None  # a write to a tensor the body did not make
                    elif type(t.target) in (cst.Name, cst.Tuple):
                        names = bound_names(t.target)
                        bound.extend(names)
                        if type(t.target) is cst.Name and _fresh_tensor(n.value, self.context):
                            fresh.add(t.target.value)
                    else:
                        return None
        temporaries = set(bound) - {mask}
        if not _rebound_in_block(function, node, temporaries):
            return None  # a temporary read elsewhere would see what the trace computed
        seen: set[str] = set()
        for statement in body.body:
            reads = {n.value for n in walk(statement) if type(n) is cst.Name} & temporaries
            if reads - seen - _bound_by(statement):
                return None  # read before the body binds it: a value from before the `if`
            seen |= _bound_by(statement)
        guard = node.with_changes(test=helper_call(_MASKED, test))
        return Fix({node: guard}, safety=Safety.UNSAFE, helpers=(_MASKED,), proof=prove_both_ways), mask

    def _any_of_mask(self, test: cst.BaseExpression) -> str | None:
        """``M`` where ``test`` is ``M.any()`` or ``torch.any(M)`` of a name visibly bound to a bool tensor, or
        seen holding only bool tensors there in the recorded run (DensePose's ``j_valid``, a product of
        an attribute and a comparison)."""
        mask = None
        if type(test) is cst.Call and not test.args and type(test.func) is cst.Attribute \
                and test.func.attr.value == "any":
            mask = strip_parens(test.func.value)
        elif type(test) is cst.Call and len(test.args) == 1 and not test.args[0].keyword and not test.args[0].star \
                and "torch.any" in self.context.qualified_names(test.func):
            mask = strip_parens(test.args[0].value)
        # `.any()` of integer indices is False for index 0, which a selection still picks.
        if type(mask) is not cst.Name:
            return None
        return mask.value if self._bool_mask(mask.value) or self._observed.dtypes(mask) == {"bool"} else None

    def _masked_guard(self, node: cst.If, test: cst.BaseExpression, body: cst.BaseSuite) -> Fix | None:
        """``if M.any():`` (or ``torch.any(M)``) over writes through ``M`` (``out[M] = f(x[M])``) and the
        branch's own temporaries: where ``M`` is empty they write nothing, so the trace may record them on
        every input; the ``if`` reads its test through ``_trt_masked_taken`` (True while tracing a tensor)."""
        masked = self._any_of_mask(strip_parens(test))
        if masked is None or type(body) is not cst.IndentedBlock:
            return None
        mask = cst.Name(masked)
        function = self.context.function
        temporaries: set[str] = set()
        for statement in body.body:
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
                return None
            small = statement.body[0]
            if type(small) is cst.Assign and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif type(small) is cst.AugAssign:
                target, value = small.target, small.value
            else:
                return None
            if _computing_effect(value) or any(type(n) is cst.Lambda for n in walk(value)):
                return None
            if type(target) is cst.Name and type(small) is cst.Assign:
                if target.value == mask.value:
                    return None
                temporaries.add(target.value)
                continue
            if type(target) is not cst.Subscript or not target.slice:
                return None
            first = target.slice[0].slice
            if type(first) is not cst.Index or type(strip_parens(first.value)) is not cst.Name \
                    or strip_parens(first.value).value != mask.value or read_names(target.value) & temporaries:
                return None
        if not any(type(s.body[0]) is not cst.Assign or type(s.body[0].targets[0].target) is not cst.Name
                   for s in body.body):
            return None  # only temporaries: nothing is written through the mask
        if temporaries and not _rebound_before_read(function, node, temporaries):
            return None  # a later read would see what the trace computed from an empty selection
        guard = node.with_changes(test=helper_call(_MASKED, test))
        return Fix({node: guard}, safety=Safety.UNSAFE, helpers=(_MASKED,))

    def _bool_mask(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether every binding of ``name`` in the function is visibly a bool tensor: a comparison, ``~``,
        ``&``/``|``/``^`` or ``torch.logical_*``/``bitwise_*`` of such, ``isfinite``/``isnan``/``isinf``,
        ``.bool()``; a parameter or anything else is not."""
        if name in seen:
            return True  # a cycle (`mask = zeros_like(valid)`, `valid = mask & ...`): its other bindings decide
        if len(seen) > 8:
            return False
        values = [value for target, value in self.index(self.context.function).pairs
                  if type(target) is cst.Name and target.value == name]
        if not values or any(type(target) is not cst.Name and name in bound_names(target)
                             for target, _ in self.index(self.context.function).pairs):
            return False

        def boolean(node: cst.BaseExpression) -> bool:
            return _comparison_tree(node, operand)

        def operand(node: cst.BaseExpression) -> bool:
            if type(node) is cst.Name:
                return self._bool_mask(node.value, seen | {name})
            if type(node) is cst.Call:
                names = self.context.qualified_names(node.func)
                last = {n.rsplit(".", 1)[-1] for n in names if n.startswith("torch.")}
                if last & {"isfinite", "isnan", "isinf", "isneginf", "isposinf", "logical_not"}:
                    return True
                if last & {"logical_and", "logical_or", "logical_xor"}:
                    return True
                if last & {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"}:
                    return all(boolean(a.value) for a in node.args if a.keyword is None)
                if last & {"zeros_like", "ones_like", "empty_like"}:
                    # Of a bool tensor with no dtype given: a bool tensor (oriented_det's top-k mask).
                    return len(node.args) == 1 and node.args[0].keyword is None and boolean(node.args[0].value)
                if last & {"any", "all"}:
                    return True
                parts = method_call(node) if not names else None
                if parts is not None and parts[1] in _SAME_DTYPE_METHODS:
                    return boolean(parts[0])  # a view or copy of a bool tensor (`real.unsqueeze(1)`)
                if parts is None and not names and type(node.func) is cst.Name:
                    return self._returns_bool(node.func.value, seen | {name})
                return parts is not None and parts[1] in {"isfinite", "isnan", "isinf", "bool", "logical_not",
                                                          "any", "all"}
            return False

        return all(boolean(value) for value in values)

    def _returns_bool(self, function: str, seen: frozenset[str]) -> bool:
        """Whether ``function`` is a function of this module whose every ``return`` is visibly a bool tensor of
        its own (oriented_det's ``_obb_positive_size_mask``: ``return (boxes[:, 2] > 0) & (boxes[:, 3] > 0)``)."""
        found = [s for s in self.context.module.body if type(s) is cst.FunctionDef and s.name.value == function]
        if len(found) != 1 or len(seen) > 8:
            return False
        returns = [n.value for n in _own_nodes(list(found[0].body.body)) if type(n) is cst.Return]
        if not returns or any(r is None for r in returns):
            return False
        return all(type(strip_parens(r)) in (cst.Comparison, cst.BinaryOperation, cst.UnaryOperation)
                   and _comparison_tree(strip_parens(r)) for r in returns)

    def _shortcut_condition(self, test: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[str, ...]] | None:
        """The condition with the built-ins ``all``/``any`` and ``not`` read through their helpers (a 0-d
        tensor while tracing), or None where it stays a Python value in a trace."""
        helpers: list[str] = []

        def convert(expression: cst.BaseExpression) -> cst.BaseExpression | None:
            if type(expression) is cst.UnaryOperation and type(expression.operator) is cst.Not:
                inner = convert(strip_parens(expression.expression))
                if inner is None:
                    return None
                helpers.append(_NOT)
                return helper_call(_NOT, inner).with_changes(lpar=expression.lpar, rpar=expression.rpar)
            return self._shortcut_operand(expression, helpers)

        converted = convert(strip_parens(test))
        return None if converted is None else (converted, tuple(dict.fromkeys(helpers)))

    def _shortcut_operand(self, test: cst.BaseExpression, helpers: list[str]) -> cst.BaseExpression | None:
        """One operand of an early return's condition with ``all``/``any`` read through their helpers, or None
        where it stays a Python value in a trace."""

        class Builtins(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
                if type(original.func) is cst.Name and original.func.value in _ITERATED and id(original) in wanted:
                    helpers.append(_ITERATED[original.func.value])
                    return updated.with_changes(func=cst.Name(_ITERATED[original.func.value]))
                return updated

        wanted: set[int] = set()
        for n in walk(test):
            if type(n) in (cst.BooleanOperation, cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda) or \
                    type(n) is cst.UnaryOperation and type(n.operator) is cst.Not:
                return None
            if type(n) is cst.Comparison and (len(n.comparisons) != 1 or type(n.comparisons[0].operator) in (
                    cst.In, cst.NotIn, cst.Is, cst.IsNot)):
                return None
            if type(n) is cst.Call:
                parts = method_call(n)
                if parts and (parts[1] in _PY_VALUE_METHODS or parts[1] in _PY_BOOL_RESULTS):
                    return None
                if type(n.func) is cst.Name and n.func.value in _PY_VALUE_BUILTINS:
                    if n.func.value not in _ITERATED or self.context.resolver.binds(n.func.value) \
                            or len(n.args) != 1 or n.args[0].keyword is not None or n.args[0].star:
                        return None
                    wanted.add(id(n))
        return test.visit(Builtins())

    def _condition(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """The condition as a bool tensor expression, or None when it stays a Python value."""
        facts = self.current_facts()
        # `x is not None and x.sum() > 0`: the static operand guards the other one; without
        # short-circuiting, the guarded part would run anyway.
        return tensor_condition(test, self.context.torch_attr, lambda operation: facts is not None and (
            facts.condition_depends(operation.left) and facts.condition_depends(operation.right)))


#: How an emptiness exit or a narrowing guard is proved (``Fix.proof``), and what to do where it is not.
_BOTH_WAYS = ("; proved where the recorded run takes the `if` one way on some input and the other way on another "
              "(give migrate an input set that takes the exit, e.g. one with nothing above the threshold), or "
              "applied with --unsafe; by hand, drop the exit where the code after it already gives its result on "
              "an empty selection")

#: The helpers an early return's rewrite calls (``trtcodemod/helpers/tracing.py``).
_TAKEN, _SELECT, _TRACING, _NOT = "_trt_shortcut_taken", "_trt_shortcut_select", "_trt_tracing", "_trt_not"
#: The helper of an emptiness guard over writes through a mask.
_MASKED = "_trt_masked_taken"
#: Built-ins that iterate a tensor and read each element: their helpers reduce it in the graph.
_ITERATED = {"all": "_trt_all", "any": "_trt_any"}


def _returned(body: cst.CSTNode) -> cst.BaseExpression | None:
    """``A`` where ``body`` (a suite or a statement) is just ``return A``."""
    if isinstance(body, cst.BaseSuite):
        inner = list(body.body) if type(body) is cst.IndentedBlock else [body]
        if len(inner) != 1:
            return None
        body = inner[0]
    if type(body) is cst.SimpleStatementLine and len(body.body) == 1 and type(body.body[0]) is cst.Return:
        return body.body[0].value
    if type(body) is cst.SimpleStatementSuite and len(body.body) == 1 and type(body.body[0]) is cst.Return:
        return body.body[0].value
    return None


#: Tensor methods whose result has the receiver's dtype: views, copies and reshapes.
_SAME_DTYPE_METHODS = frozenset({"unsqueeze", "squeeze", "view", "reshape", "expand", "expand_as", "flatten",
                                 "contiguous", "clone", "t", "transpose", "permute", "detach", "view_as",
                                 "reshape_as"})


def _comparison_tree(node: cst.BaseExpression, operand=lambda node: False) -> bool:
    """A comparison, or ``&``/``|``/``^``/``*``/``~`` of comparisons and of what ``operand`` accepts: a bool
    tensor of tensor operands (a Python comparison is a bool, which a mask test would not meet; ``a * b`` of
    bool tensors is their ``&``, DensePose's ``j_valid * (mesh_ids == mesh_id)``)."""
    node = strip_parens(node)
    if type(node) is cst.Comparison:
        return len(node.comparisons) == 1 and type(node.comparisons[0].operator) in (
            cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.BitInvert:
        return _comparison_tree(node.expression, operand)
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor,
                                                                     cst.Multiply):
        return _comparison_tree(node.left, operand) and _comparison_tree(node.right, operand)
    return operand(node)


def _rebound_in_block(function: cst.FunctionDef, node: cst.If, names: set[str]) -> bool:
    """Whether every read of ``names`` outside ``node`` follows, in its own block, a statement that binds the
    name again and comes after any statement of that block holding ``node`` (oriented_det's RPN reuses
    ``top_idx`` and ``scores_for_topk`` after rebinding them; a read in the next turn of a loop must be
    preceded by such a binding too)."""
    parents: dict[int, cst.CSTNode] = {}
    for parent in walk(function):
        for child in children(parent):
            parents[id(child)] = parent
    inside = {id(n) for n in walk(node)}
    skip = not_variables(function)
    # The names an assignment binds (`x = ...`, `_, idx = ...`), which are no reads.
    binding = {id(m) for n in walk(function) if type(n) is cst.Assign for t in n.targets
               if type(t.target) in (cst.Name, cst.Tuple, cst.List) for m in walk(t.target) if type(m) is cst.Name}
    for read in walk(function):
        if type(read) is not cst.Name or read.value not in names or id(read) in inside or id(read) in skip \
                or id(read) in binding:
            continue
        earlier = _earlier_in_block(parents, read)
        if earlier is None:
            return False
        holders = [i for i, s in enumerate(earlier) if id(node) in {id(n) for n in walk(s)}]
        after = earlier[holders[-1] + 1:] if holders else earlier
        if not any(_surely_binds(s, read.value) for s in after):
            return False
    return True


def _earlier_in_block(parents: dict[int, cst.CSTNode], read: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the block holding ``read`` before the one holding it; None where no block holds it."""
    statement, block = read, parents.get(id(read))
    while block is not None and type(block) is not cst.IndentedBlock:
        statement, block = block, parents.get(id(block))
    if block is None:
        return None
    return list(block.body)[:[i for i, s in enumerate(block.body) if s is statement][0]]


def _surely_binds(statement: cst.CSTNode, name: str) -> bool:
    """Whether running ``statement`` always binds ``name``: a plain assignment, or an ``if`` whose every branch,
    ``else`` included, does (``if deterministic: s = scores`` / ``else: s = scores + noise``)."""
    if type(statement) is cst.SimpleStatementLine:
        return name in _bound_by(statement)
    if type(statement) is cst.If:
        branch = statement.orelse
        if branch is None or not any(_surely_binds(s, name) for s in statement.body.body):
            return False
        if type(branch) is cst.If:
            return _surely_binds(branch, name)
        return any(_surely_binds(s, name) for s in branch.body.body)
    return False


def _bound_by(statement: cst.CSTNode) -> set[str]:
    """The plain names ``statement`` (and what it holds) binds by assignment."""
    return {name for n in walk(statement) if type(n) is cst.Assign for t in n.targets
            if type(t.target) in (cst.Name, cst.Tuple) for name in bound_names(t.target)}


def _fresh_tensor(value: cst.BaseExpression, context) -> bool:
    """A new tensor no one else holds: a torch factory (``zeros_like``, ``zeros``, ``full``...) or ``.clone()``."""
    value = strip_parens(value)
    if type(value) is not cst.Call:
        return False
    parts = method_call(value)
    if parts is not None and parts[1] == "clone" and not context.qualified_names(value.func):
        return True
    return any(name.rsplit(".", 1)[-1] in _FACTORIES for name in context.qualified_names(value.func)
               if name.startswith("torch."))


#: torch functions that return a new tensor.
_FACTORIES = frozenset({"zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
                        "arange"})


def _exits(body: cst.BaseSuite) -> bool:
    """Whether ``body`` is just an exit: ``continue``, ``break``, ``return`` or ``return V``."""
    inner = list(body.body) if type(body) is cst.IndentedBlock else [body]
    if len(inner) != 1 or type(inner[0]) not in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
        return False
    small = inner[0].body
    return len(small) == 1 and type(small[0]) in (cst.Continue, cst.Break, cst.Return)


def _following(function: cst.FunctionDef, node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements after ``node`` in its own block (what an exit there skips first)."""
    for block in walk(function):
        if type(block) is cst.IndentedBlock:
            statements = list(block.body)
            for i, statement in enumerate(statements):
                if statement is node:
                    return statements[i + 1:]
    return []


def _selects_with(tree: cst.CSTNode, mask: str) -> bool:
    """Whether ``tree`` selects with the mask ``mask``: ``x[mask]`` (first index), ``mask.nonzero()``,
    ``torch.nonzero(mask)``/``torch.where(mask)``, or ``mask.nonzero`` read some other way."""
    for n in walk(tree):
        if type(n) is cst.Subscript and n.slice and type(n.slice[0].slice) is cst.Index \
                and type(strip_parens(n.slice[0].slice.value)) is cst.Name \
                and strip_parens(n.slice[0].slice.value).value == mask:
            return True
        if type(n) is cst.Attribute and n.attr.value in ("nonzero", "argwhere") \
                and type(strip_parens(n.value)) is cst.Name and strip_parens(n.value).value == mask:
            return True
        if type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value in ("nonzero", "where",
                                                                                           "argwhere") \
                and len(n.args) >= 1 and type(strip_parens(n.args[0].value)) is cst.Name \
                and strip_parens(n.args[0].value).value == mask and (n.func.attr.value != "where" or len(n.args) == 1):
            return True
    return False


def _plain_reference(value: cst.BaseExpression | None) -> bool:
    """A name or a chain of attributes of one (``target``, ``self.frame``): reading it again has no effect."""
    value = strip_parens(value) if value is not None else None
    while type(value) is cst.Attribute:
        value = strip_parens(value.value)
    return type(value) is cst.Name


def _rebound_before_read(function: cst.FunctionDef, node: cst.If, names: set[str]) -> bool:
    """Whether every read of ``names`` outside ``node`` comes after a statement of its own block, itself after
    ``node``, that binds the name again (kornia's ``y`` of one ``if mask.any():`` reused by the next), and
    ``node`` is in no loop: then what ``node``'s body left in them is never read."""
    parents: dict[int, cst.CSTNode] = {}
    for parent in walk(function):
        for child in children(parent):
            parents[id(child)] = parent
    up = parents.get(id(node))
    while up is not None and up is not function:
        if type(up) in (cst.For, cst.While):
            return False
        up = parents.get(id(up))
    order = {id(n): i for i, n in enumerate(walk(function))}
    inside = {id(n) for n in walk(node)}
    end = max(order[i] for i in inside)  # a binding counts only after the guard
    skip = not_variables(function)
    bound = {id(t.target) for n in walk(function) if type(n) is cst.Assign for t in n.targets}
    for read in walk(function):
        if type(read) is not cst.Name or read.value not in names or order[id(read)] <= end or id(read) in skip \
                or id(read) in bound:
            continue  # a read before the guard (in no loop) never sees what its body binds
        earlier = _earlier_in_block(parents, read)
        if earlier is None:
            return False
        if not any(type(t.target) is cst.Name and t.target.value == read.value for s in earlier
                   if type(s) is cst.SimpleStatementLine and order[id(s)] > end for small in s.body
                   if type(small) is cst.Assign for t in small.targets):
            return False  # only a plain assignment of the same block is sure to run before the read
    return True


def _grouped(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` in parentheses where it binds looser than an argument or a conditional expression's branch
    (``a, b``; ``x if c else y``; a lambda), as it is elsewhere."""
    if type(value) in (cst.Tuple, cst.IfExp, cst.Lambda, cst.NamedExpr) and not value.lpar:
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return value


def _computing_effect(value: cst.BaseExpression) -> str | None:
    """What computing the early return's value does besides computing it (an in-place method, an assignment
    expression, a yield, a ``print``), or None: the trace computes it where the shortcut is not taken too."""
    for n in walk(value):
        if type(n) in (cst.NamedExpr, cst.Yield, cst.Await):
            return "assigns or suspends"
        if type(n) is cst.Call and type(n.func) is cst.Attribute:
            name = n.func.attr.value
            if name.endswith("_") and not name.startswith("__"):
                return f"writes in place (`{name}`)"
        if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in ("print", "next", "setattr"):
            return f"calls `{n.func.value}`"
    return None


def _own_nodes(statements: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """Every node of ``statements``, not descending into nested functions, lambdas or classes (their
    ``return`` is their own)."""
    found: list[cst.CSTNode] = []
    stack = list(reversed(statements))
    while stack:
        current = stack.pop()
        found.append(current)
        if type(current) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        stack.extend(reversed(list(current.children)))
    return found


def _written_in_place(statements: list[cst.CSTNode], shortcut: cst.BaseExpression) -> str | None:
    """The first in-place write the rest makes that may reach the early return's tensor: an item or
    attribute assignment, an augmented assignment or a method ending in ``_`` (``add_``, ``copy_``) on
    its name or on a name bound to it or a view of it (``t = target[0]``); None where the rewrite sees
    none (a write through another name or inside a called function is not seen)."""
    root = _storage_root(strip_parens(shortcut))
    if root is None:
        return None
    shared = {root}
    for n in _own_nodes(statements):
        if type(n) is cst.Assign and _storage_root(n.value) in shared:
            shared.update(t.target.value for t in n.targets if type(t.target) is cst.Name)
        targets = [t.target for t in n.targets] if type(n) is cst.Assign else \
            [n.target] if type(n) is cst.AugAssign else []
        if any(type(t) in (cst.Subscript, cst.Attribute) and _storage_root(t) in shared or
               type(n) is cst.AugAssign and type(t) is cst.Name and t.value in shared for t in targets):
            return short_code(n)
        if type(n) is cst.Call and type(n.func) is cst.Attribute:
            name = n.func.attr.value
            if name.endswith("_") and not name.startswith("__") and _storage_root(n.func.value) in shared:
                return short_code(n)
    return None


RULES = (DataDependentIf,)
