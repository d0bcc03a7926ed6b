"""An extra pad whose amount is set, with the pad, only under a test (TRT331): pad every time, by the
amount times the test.

Reflect padding needs an input longer than the pad, so audio and sequence models pad a short
input with zeros first, then cut the extra off after the reflection (transformers' EnCodec and
DAC ``_pad1d``)::

    extra_pad = 0
    if length <= max_pad:
        extra_pad = max_pad - length + 1
        x = F.pad(x, (0, extra_pad))
    padded = F.pad(x, paddings, "reflect")
    return padded[..., : padded.shape[-1] - extra_pad]

Where the test reads a traced value (EnCodec's paddings are buffers), a traced export keeps the
branch the example took; the code after the ``if`` reads the amount either way.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, int_value, mentions_name, parenthesize, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_PAD = ("torch.nn.functional.pad",)


class ConditionalPad(Rule):
    needs_text = (b"pad",)
    info = RuleInfo(
        id="TRT331",
        name="conditional-pad-amount",
        summary="an extra pad done, with its amount, only under a test (`n = 0` then `if short: n = ...; "
                "x = F.pad(x, (0, n))`): the export keeps the example's branch; pad every time by the amount "
                "times the test",
        doc="""\
What it finds: a block where a name is bound to `0` (`extra_pad = 0`), then, with no other
binding of it between, an `if` without `else` whose test is one comparison and whose body is
exactly two lines: the name bound to an amount (`extra_pad = max_pad - length + 1`), then a
tensor padded by a tuple that reads the name (`x = F.pad(x, (0, extra_pad))`, any
`torch.nn.functional.pad` spelling; the amount and the test do not read the tensor). The code
after the `if` may read the name (the extra is cut off after a reflection: transformers'
EnCodec `_pad1d`, also DAC's and others' copies of it).

Why it hurts: a traced export turns the test into a Python `bool` and keeps the branch the
example took. Where the test reads a tensor (EnCodec's paddings are buffers, so its
`length <= max_pad` is TRT101's value read), the graph never pads short inputs, and the
reflection then fails or reads the wrong values; the other way round, it always pads by the
example's amount.

The rewrite: the `if` goes; the amount is bound every time as `(<amount>) * (<test>)` and the
pad is done every time. Where the test is false the amount is `0` (a Python `bool` times an
`int` is an `int`; with tensors, a 0-d tensor 0), the name's value before the `if`, and a pad by
0 leaves the values as they are; the trace keeps the test as a computation.

Fix safety: unsafe. Where the test is false it assumes that computing the amount raises nothing
(it is computed now; an amount read from a name the `if` guards would raise), that nothing
relies on the padded tensor being the same object as before (a pad by 0 is a new tensor: aliasing
and in-place writes through it change), and that what reads the name takes a 0-d tensor where
the original had the `int` 0, when the test or the amount is a tensor (sizes, slices and
arithmetic do; `range()` and `str` formatting differ). Under `torch.fx` the original stops at the `if` (a proxy
has no truth value) and the rewrite traces. `migrate` tries it as a verified
candidate where the export baked the test.""",
        fix=Safety.UNSAFE,
        assumption=("where the test is false, computing the amount raises nothing, nothing relies on the padded "
                    "tensor being the same object, and what reads the amount takes a 0-d tensor 0 where the "
                    "test or the amount is a tensor"),
        examples=(
            Example(
                "def pad1d(x, paddings, length, max_pad):\n"
                "    extra_pad = 0\n"
                "    if length <= max_pad:\n"
                "        extra_pad = max_pad - length + 1\n"
                "        x = F.pad(x, (0, extra_pad))\n"
                "    padded = F.pad(x, paddings, 'reflect')\n"
                "    return padded[..., : padded.shape[-1] - extra_pad]\n",
                "def pad1d(x, paddings, length, max_pad):\n"
                "    extra_pad = 0\n"
                "    extra_pad = (max_pad - length + 1) * (length <= max_pad)\n"
                "    x = F.pad(x, (0, extra_pad))\n"
                "    padded = F.pad(x, paddings, 'reflect')\n"
                "    return padded[..., : padded.shape[-1] - extra_pad]\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(list(node.body))

    def visit_Module(self, node: cst.Module) -> None:
        self._block(list(node.body))

    def _block(self, body: list[cst.BaseStatement]) -> None:
        zeroed: set[str] = set()  # names bound to 0 and not bound again since
        for statement in body:
            if type(statement) is cst.If:
                found = self._conditional_pad(statement, zeroed)
                if found is not None:
                    name, amount, pad_line = found
                    self._rewrite(statement, name, amount, pad_line)
            for name in list(zeroed):
                if _binds(statement, name):
                    zeroed.discard(name)
            if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
                    and type(statement.body[0]) is cst.Assign and len(statement.body[0].targets) == 1 \
                    and type(statement.body[0].targets[0].target) is cst.Name \
                    and int_value(statement.body[0].value) == 0 and type(statement.body[0].value) is cst.Integer:
                zeroed.add(statement.body[0].targets[0].target.value)

    def _conditional_pad(self, node: cst.If, zeroed: set[str]
                         ) -> tuple[str, cst.Assign, cst.SimpleStatementLine] | None:
        if node.orelse is not None or type(node.test) is not cst.Comparison or len(node.test.comparisons) != 1:
            return None
        lines = list(node.body.body)
        if len(lines) != 2 or any(type(line) is not cst.SimpleStatementLine or len(line.body) != 1
                                  for line in lines):
            return None
        amount, pad = lines[0].body[0], lines[1].body[0]  # type: ignore[attr-defined]
        if type(amount) is not cst.Assign or len(amount.targets) != 1 or type(amount.targets[0].target) is not cst.Name:
            return None
        name = amount.targets[0].target.value
        if name not in zeroed or mentions_name(amount.value, name) or mentions_name(node.test, name):
            return None
        if type(pad) is not cst.Assign or len(pad.targets) != 1 or type(pad.targets[0].target) is not cst.Name:
            return None
        tensor = pad.targets[0].target.value
        call = pad.value
        if type(call) is not cst.Call or not self.context.refers_to(call.func, *_PAD) or len(call.args) < 2:
            return None
        first, second = call.args[0], call.args[1]
        if first.keyword is not None or type(first.value) is not cst.Name or first.value.value != tensor:
            return None
        if second.keyword is not None or type(second.value) is not cst.Tuple \
                or not mentions_name(second.value, name) or name == tensor:
            return None
        if mentions_name(amount.value, tensor) or mentions_name(node.test, tensor):
            return None
        return name, amount, lines[1]  # type: ignore[return-value]

    def _rewrite(self, node: cst.If, name: str, amount: cst.Assign, pad_line: cst.SimpleStatementLine) -> None:
        scaled = cst.BinaryOperation(left=parenthesize(amount.value), operator=cst.Multiply(),
                                     right=parenthesize(node.test))
        amount_line = node.body.body[0].with_changes(  # type: ignore[attr-defined]
            body=[amount.with_changes(value=scaled)], leading_lines=node.leading_lines)
        self.report(node.test, f"`if {short_code(node.test)}:` sets `{name}` and pads only then: a traced export "
                               "keeps the branch the example took; pad every time by the amount times the test "
                               f"(`{name}` is 0 where it is false, as before the `if`)",
                    Fix({node: cst.FlattenSentinel([amount_line, pad_line.with_changes(leading_lines=[])])},
                        safety=Safety.UNSAFE))


def _binds(statement: cst.BaseStatement, name: str) -> bool:
    """Does ``statement`` bind ``name`` anywhere (an assignment, a loop target, a with/except name)?"""
    from trtcodemod.astutil import walk

    for node in walk(statement):
        if type(node) in (cst.Assign,):
            if any(name in bound_names(t.target) for t in node.targets):  # type: ignore[attr-defined]
                return True
        elif type(node) in (cst.AugAssign, cst.AnnAssign):
            if name in bound_names(node.target):  # type: ignore[attr-defined]
                return True
        elif type(node) is cst.For and name in bound_names(node.target):
            return True
        elif type(node) is cst.AsName and name in bound_names(node.name):  # type: ignore[arg-type]
            return True
        elif type(node) is cst.NamedExpr and name in bound_names(node.target):
            return True
    return False


RULES = (ConditionalPad,)
