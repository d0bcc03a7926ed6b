"""``torch.full(size, 3)`` with no ``dtype``: the TorchScript exporter makes a float tensor where the size is traced
(TRT734).

Eager mode (and TorchScript) infer the dtype of ``torch.full`` from its fill value: an ``int`` gives ``int64``. The
TorchScript exporter's symbolic for ``full`` keeps that inference only where the size is constant; for a size it
traces (``(batch_size, 1)``) it emits ``ConstantOfShape`` with a float value, so what the model treats as integers
reaches the graph as floats (chronos-forecasting's Chronos-Bolt: ``torch.full((batch_size, 1),
self.config.reg_token_id)`` indexes an embedding, and ONNX Runtime refuses the graph's float ``Gather`` indices).
Writing the dtype eager mode infers (``dtype=torch.int64``) keeps the integers in the graph.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, int_values
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_FULL = ("torch.full",)


def _literal_size(node: cst.BaseExpression) -> bool:
    """A size written as integer literals only (``(2, 3)``, ``[4]``, ``5``): the exporter folds it, and the dtype."""
    return int_values(node) is not None


def _with_dtype(args: list[cst.Arg], dtype: str) -> list[cst.Arg]:
    """``args`` and ``dtype=<dtype>`` after them, laid out as the call lays out its arguments: a trailing comma (a
    call over several lines) stays last, and the new argument is separated as the others are."""
    last = args[-1]
    between = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else \
        cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    # The space after the last argument (a line break before a closing parenthesis on its own line, with no
    # trailing comma) now follows the added one: `..., device=d, dtype=torch.int64\n)`.
    added = cst.Arg(keyword=cst.Name("dtype"), value=cst.parse_expression(dtype),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")),
                    comma=last.comma, whitespace_after_arg=last.whitespace_after_arg)
    return [*args[:-1], last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace("")), added]


class FullDtype(Rule):
    needs_text = spelled(*_FULL)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT734",
        name="full-dtype",
        summary="`torch.full(size, 3)` with no `dtype` and a traced size exports as a float tensor (TorchScript "
                "exporter); write the dtype eager mode infers, `dtype=torch.int64`",
        doc="""\
What it finds: `torch.full(size, fill_value)` with no `dtype=` (and no `out=`), whose size is not written as
integer literals (`(batch_size, 1)`, `x.shape[:2]`, a name), and whose fill value is an `int` literal
(`torch.full((n, 1), 0)`, `torch.full(shape, -1, device=d)`); or, with facts (inside `migrate`), any fill value
where the recorded run saw the call make an `int64` tensor (chronos-forecasting's Chronos-Bolt:
`torch.full((batch_size, 1), self.config.reg_token_id, device=...)`, the `[REG]` token ids it embeds).

Why it hurts: eager mode and TorchScript infer `full`'s dtype from the fill value (an `int` gives `int64`). The
TorchScript exporter's symbolic for `full` keeps the inference only for a constant size; for a size it traces
(a batch read from an input's shape) it emits ONNX `ConstantOfShape` with a float value and no cast, so the
graph carries floats where the model has integers (checked with torch 2.13). Used as indices (an embedding's
`Gather`), ONNX Runtime refuses to load the graph ("Type 'tensor(float)' ... of operator (Gather) is invalid");
used in arithmetic or comparisons, the values or their dtype differ. The dynamo exporter is not affected.

The rewrite: `dtype=torch.int64` is added to the call, the dtype eager mode infers for an `int`: the result is
the same tensor in eager mode, TorchScript, `torch.fx`, `torch.compile` and `torch.export`, and the traced graph
holds `int64` values.

Fix safety: safe for an `int` literal fill. For a fill the code does not show (a name, an attribute), unsafe:
it rests on the fill being an `int` (a `float` fills a float tensor, a `bool` a bool one); `migrate` applies it
where the recorded run saw the call make an `int64` tensor. A `bool` literal is left alone: eager mode fills a
`bool` tensor and TorchScript an `int64` one, so no dtype written out is both.

TensorRT versions: all (the dtype is lost before TensorRT sees the graph).""",
        fix=Safety.SAFE,
        assumption="the fill value is a Python int, whose `torch.full` eager mode makes int64",
        fails_when=("a float or bool fill value: eager mode fills a float or bool tensor, the rewrite an int64 one",),
        examples=(
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        ids = torch.full((x.shape[0], 1), 3, device=x.device)\n"
                "        return self.embed(ids)\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        ids = torch.full((x.shape[0], 1), 3, device=x.device, dtype=torch.int64)\n"
                "        return self.embed(ids)\n",
            ),
            Example("pad = torch.full(shape, -1)\n", "pad = torch.full(shape, -1, dtype=torch.int64)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.full.html",
            "https://onnx.ai/onnx/operators/onnx__ConstantOfShape.html",
            "https://github.com/amazon-science/chronos-forecasting/blob/main/src/chronos/chronos_bolt.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or self.context.refers_to(node.func, *_FULL) is None:
            return
        if any(a.star for a in node.args):
            return
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if keywords & {"dtype", "out"}:
            return
        positional = [a.value for a in node.args if a.keyword is None]
        named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        size = positional[0] if positional else named.get("size")
        fill = positional[1] if len(positional) > 1 else named.get("fill_value")
        if size is None or fill is None or len(positional) > 2 or _literal_size(size):
            return
        # An int literal, signed or not; `True`/`False` are no ints here: TorchScript fills them as int64 where
        # eager mode makes bool, so writing either dtype out changes one of the two.
        literal = int_value(fill) is not None
        observed = not literal and self.provider(ObservedFacts).dtypes(node) == {"int64"}
        if not (literal or observed):
            return
        fixed = node.with_changes(args=_with_dtype(list(node.args), f"{self.context.torch_name()}.int64"))
        message = ("`torch.full` with no dtype and a traced size: the TorchScript exporter makes its tensor float "
                   "where eager mode infers int64 from the int fill value")
        if literal:
            self.report(node, message + "; `dtype=torch.int64` writes the inferred dtype out", Fix({node: fixed}))
            return
        seen = "observed the call making an int64 tensor in the recorded run"
        self.report(node, message + "; `dtype=torch.int64` writes it out (unsafe: the recorded run saw int64 here)",
                    Fix({node: fixed}, safety=Safety.UNSAFE, proof=lambda _seen, words=seen: words))


RULES = (FullDtype,)
