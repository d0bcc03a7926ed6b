"""A decision on a size that the trace bakes, where one branch holds at every size: take it while tracing
(TRT390, TRT391).

diffusers' UNet2DConditionModel forwards the skip connections' sizes to its upsamplers only when the latents are not
a multiple of the overall upsampling factor::

    forward_upsample_size = False
    for dim in sample.shape[-2:]:
        if dim % default_overall_up_factor != 0:
            forward_upsample_size = True
            break

Traced at a multiple, the graph upsamples by 2 and fails at any other size (the skip connections no longer match).
Forwarding the sizes is right at every size: at a multiple it gives what the scale of 2 gives. Nothing in the code
says which branch is the general one, so ``migrate`` tries both, one after the other: the `if` branch taken while
tracing (TRT390), and where its verification fails, the other (TRT391). Each is kept only where the rewritten model's
graph is faithful and equivalent to eager mode on every input set, sets whose sizes decide the other way included.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import short_code, strip_parens, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER
from trtcodemod.transforms._size_facts import SizeRule
from trtcodemod.transforms.baked_shapes import _only_raises

TRACING = TRACING_HELPER

_ASSUMPTION = ("the branch taken while tracing computes, at every size of the dynamic axes, what eager mode computes "
               "there (the test only picks a shortcut or a special case the other branch also covers)")

_DOC = """\
What it finds: an `if` whose test is a Python decision on sizes (`if dim % 8 != 0:`,
`if any(s % 8 != 0 for s in x.shape[-2:]):`); with observed facts (`migrate`, `--facts`)
only where the recorded TorchScript export warned at the test that it turned a traced size
into a bool. Not an `elif` chain, nor a check whose block only raises. Opt-in: `check`
selects it only by its ID (most such tests decide a layout no deployed size changes);
`migrate` considers it anyway, where its second trace finds the decision baked.

Where TRT389 (the other branch only chunks the computation) or TRT713 (both branches merged
with `torch.where`) applies, `migrate` tries those first; these forms are tried where they
do not (the branches loop, break, return, change shapes) or once their fixes are taken back.

Why it hurts: the export keeps the branch the example took. Where the other branch is the
one that holds at every size (a special case that forwards a size, pads to a multiple,
chunks), a graph traced at an ordinary size fails or computes other values at the sizes the
special case is for.

The rewrite: {form}. A test that is itself an `and`/`or` (`pad_r > 0 or pad_b > 0`) is put in
parentheses whole, so that no part of it decides while tracing.
Eager mode, `torch.jit.script`, `torch.fx` and `torch.compile` decide as written
(`_trt_tracing()` is False there, and `or`/`and` leave the test's value as it was); while
`torch.jit.trace` or `torch.export` records the model, the one branch runs at every size
and no decision on the size is recorded.
{order}

Fix safety: unsafe: it assumes {assumption}. `migrate` tries it where the graph traced at
another size differs from the first at the decision (a baked value of error severity), as a
last resort: only once the other fixes leave the graph unfaithful (or every other fix went
back), and it keeps it only where the rewritten model's graph is faithful and equivalent on
every input set; one that fails is listed under `tried_last` in the JSON report."""


def _decided_while_tracing(test: cst.BaseExpression) -> bool:
    """``_trt_tracing() or ...`` / ``not _trt_tracing() and ...``: a test this rule wrote (also the unparenthesized
    ``_trt_tracing() or a or b`` of earlier versions, which parses as ``(_trt_tracing() or a) or b``)."""
    test = strip_parens(test)
    if type(test) is not cst.BooleanOperation:
        return False
    while type(strip_parens(test.left)) is cst.BooleanOperation \
            and type(strip_parens(test.left).operator) is type(test.operator):
        test = strip_parens(test.left)
    left = strip_parens(test.left)
    if type(left) is cst.UnaryOperation and type(left.operator) is cst.Not:
        left = strip_parens(left.expression)
    return type(left) is cst.Call and type(left.func) is cst.Name and left.func.value == TRACING


#: Expressions that bind more loosely than (or as loosely as) the ``or``/``and`` put before the test: parenthesized.
_LOOSER = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)


class _TracedBranch(SizeRule):
    """A warned decision on sizes; the subclass says which branch the trace
    takes."""

    needs_text = (b"if ",)
    taken: bool = True

    def visit_Module(self, node: cst.Module) -> None:
        super_visit = getattr(super(), "visit_Module", None)
        if super_visit is not None:
            super_visit(node)
        #: The `elif`s of a chain (an `if`'s `orelse`): not rewritten, nor the chain's `if`.
        self._elifs: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if type(node.orelse) is cst.If:
            self._elifs.add(id(node.orelse))
            return
        if id(node) in self._elifs or not self._frames or not self.active() or _only_raises(node):
            return
        if _decided_while_tracing(node.test):
            return  # already rewritten (by this rule or its other form)
        if self.provider(ObservedFacts).known and not self.traced_at(node.test):
            return  # with a recorded run, only where its export warned at the test
        test = strip_parens(node.test)
        if not (self.size_decision(test) or self.size_derived(test) or self._over_sizes(test)):
            return
        if any(self.size_of(part) for part in walk(test) if isinstance(part, cst.BaseExpression)):
            return  # a size the data decides (after a mask or nonzero): no branch holds for every input
        tracing = cst.Call(cst.Name(TRACING))
        test_node = node.test
        if type(test_node) in _LOOSER and not test_node.lpar:
            # `a or b` after `not _trt_tracing() and` would bind as `(not _trt_tracing() and a) or b`: b still
            # decides while tracing (and `_trt_tracing() or a or b` would not read as this rule's test again)
            test_node = test_node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if self.taken:
            new = cst.BooleanOperation(tracing, cst.Or(), test_node)
            which = "the `if` branch"
        else:
            new = cst.BooleanOperation(cst.UnaryOperation(cst.Not(), tracing), cst.And(), test_node)
            which = "the `else` branch" if node.orelse is not None else "the way past the `if`"
        self.report(node.test, f"`{short_code(node.test)}` decides on a size in Python, and the traced export warned "
                               f"here: the graph keeps the example's branch; `{TRACING}()` takes {which} at every "
                               f"size while tracing; assumes {_ASSUMPTION}",
                    Fix({node.test: new}, safety=Safety.UNSAFE, helpers=(TRACING,)))

    def _over_sizes(self, test: cst.BaseExpression) -> bool:
        """``any(s % 8 != 0 for s in sample.shape[-2:])`` (``all`` too): a decision on each of a tensor's sizes
        (diffusers' UNet3DConditionModel)."""
        if type(test) is not cst.Call or type(test.func) is not cst.Name or test.func.value not in ("any", "all") \
                or len(test.args) != 1 or type(test.args[0].value) is not cst.GeneratorExp:
            return False
        generator = test.args[0].value
        clause = generator.for_in
        if clause.inner_for_in is not None or clause.ifs or type(clause.target) is not cst.Name:
            return False
        sizes = strip_parens(clause.iter)
        while type(sizes) is cst.Subscript:
            sizes = strip_parens(sizes.value)
        shape = type(sizes) is cst.Attribute and sizes.attr.value == "shape" or type(sizes) is cst.Call \
            and type(sizes.func) is cst.Attribute and sizes.func.attr.value == "size" and not sizes.args
        name = clause.target.value
        return shape and any(type(n) is cst.Name and n.value == name for n in walk(generator.elt))


_EXAMPLE_BEFORE = (
    "class UNet(nn.Module):\n"
    "    def forward(self, sample):\n"
    "        forward_upsample_size = False\n"
    "        for dim in sample.shape[-2:]:\n"
    "            if dim % 8 != 0:\n"
    "                forward_upsample_size = True\n"
    "                break\n"
    "        return self.blocks(sample, forward_upsample_size)\n"
)


def _info(rule_id: str, name: str, summary: str, test: str, order: str) -> RuleInfo:
    """One form's description: ``test`` is what ``if dim % 8 != 0:`` becomes."""
    return RuleInfo(
        id=rule_id, name=name, summary=summary,
        doc=_DOC.format(form=f"`if dim % 8 != 0:` becomes `if {test}:`", order=order, assumption=_ASSUMPTION),
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(Example(_EXAMPLE_BEFORE, _EXAMPLE_BEFORE.replace("if dim % 8 != 0", f"if {test}"), unsafe=True),),
        opt_in=True,
        references=("https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",),
    )


class TracedBranchTaken(_TracedBranch):
    taken = True
    info = _info("TRT390", "traced-branch-taken",
                 "a decision on a size the trace bakes (`if dim % 8 != 0: forward the size; break`): take the `if` "
                 "branch while tracing, where it holds at every size (tried before TRT391)",
                 f"{TRACING}() or dim % 8 != 0",
                 "`migrate` tries this form after TRT389's and TRT713's at the same test; where its verification "
                 "fails, TRT391 (the other branch) is tried in a later round.")


class TracedBranchSkipped(_TracedBranch):
    taken = False
    info = _info("TRT391", "traced-branch-skipped",
                 "a decision on a size the trace bakes: take the `else` branch (or the way past the `if`) while "
                 "tracing, where it holds at every size (tried after TRT390 is taken back)",
                 f"not {TRACING}() and dim % 8 != 0",
                 "`migrate` holds this form back while TRT390's at the same test is planned, and tries it only "
                 "once that one is taken back.")


RULES = (TracedBranchTaken, TracedBranchSkipped)
