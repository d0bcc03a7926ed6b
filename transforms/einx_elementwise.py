"""einx's element-wise operations (TRT381): einx reads every size into Python, so a trace bakes them all.

``einx.subtract('j, i -> i j', k_pos, q_pos)`` (x-transformers' relative-position and ALiBi biases) is computed by a
function einx writes for the operands' shapes: ``torch.reshape(a, (1, 5))``, ``torch.reshape(b, (3, 1))``,
``torch.subtract(a, b)``. Each size is a Python ``int`` there, so ``torch.jit.trace`` and the TorchScript ONNX exporter
record the traced sizes as constants, and the graph fails ("shape '[1, 5]' is invalid for input of size 7") or is
wrong at any other length. The rewrite writes the same broadcast with indexing, which keeps every size in the graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import has_star_args, parenthesize
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

RULE = "TRT381"
#: einx's element-wise operations and the torch function its torch backend calls for each.
TORCH_FUNCTIONS = {
    "add": "torch.add", "subtract": "torch.subtract", "multiply": "torch.multiply",
    "true_divide": "torch.true_divide", "divide": "torch.divide", "floor_divide": "torch.floor_divide",
    "logaddexp": "torch.logaddexp", "logical_and": "torch.logical_and", "logical_or": "torch.logical_or",
    "maximum": "torch.maximum", "minimum": "torch.minimum",
    "less": "torch.less", "less_equal": "torch.less_equal", "greater": "torch.greater",
    "greater_equal": "torch.greater_equal", "equal": "torch.eq", "not_equal": "torch.ne", "where": "torch.where",
}
#: Operations whose torch function takes a Python number for an operand (einx passes numbers through to these, and
#: makes a tensor of them for the others).
_TAKE_NUMBERS = frozenset({"add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "less",
                           "less_equal", "greater", "greater_equal", "equal", "not_equal", "where"})
#: How many operands each operation takes (the n-ary ones, add and the like, are taken with two).
_ARITY = {name: 3 if name == "where" else 2 for name in TORCH_FUNCTIONS}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
ELLIPSIS = "..."


@dataclass(frozen=True)
class Pattern:
    """A parsed element-wise pattern: each operand's axes (None for a number) and the output's axes."""

    operands: tuple[tuple[str, ...] | None, ...]
    output: tuple[str, ...]


def _axes(text: str, output: bool) -> tuple[str, ...] | None:
    """Space-separated axis names, ``...`` first at most, ``1`` only in the output; None for anything else
    (einx's brackets, compositions, other numbers, a repeated name)."""
    tokens = tuple(text.split())
    names = [t for t in tokens if t != "1"]
    if ELLIPSIS in tokens[1:] or len(set(names)) != len(names):
        return None
    for token in tokens:
        if token == ELLIPSIS or (token == "1" and output):
            continue
        if not _NAME.match(token):
            return None
    return tokens


def parse_pattern(text: str, operands: int) -> Pattern | None:
    """The pattern of an element-wise einx call with ``operands`` operands; None where the rule does not take it.

    Without ``->``, einx's output is the one operand that holds every axis of the others (``'b n, b'`` is ``b n``).
    """
    left, arrow, right = text.partition("->")
    if "->" in right:
        return None
    parts = left.split(",")
    if len(parts) != operands:
        return None
    parsed: list[tuple[str, ...] | None] = []
    for part in parts:
        if not part.strip():
            parsed.append(None)
            continue
        axes = _axes(part, output=False)
        if axes is None:
            return None
        parsed.append(axes)
    tensors = [axes for axes in parsed if axes is not None]
    if not tensors:
        return None
    every = {a for axes in tensors for a in axes}
    if arrow:
        output = _axes(right, output=True)
    else:
        output = next((axes for axes in tensors if set(axes) == every), None)
    if output is None or set(output) - {"1"} != every:
        return None  # an axis of no operand (einx would need its size), or one the output drops (a reduction)
    if ELLIPSIS in output and not any(ELLIPSIS in axes for axes in tensors):
        return None  # an operand without the ellipsis broadcasts over it (aligned from the right, as einx aligns it)
    return Pattern(tuple(parsed), output)


def operand_index(axes: tuple[str, ...], output: tuple[str, ...]) -> tuple[tuple[int, ...] | None, str | None]:
    """How one operand becomes the output's layout: the permutation of its own axes (None when they are already in
    the output's order) and the index that inserts the output's other axes (None when none is needed)."""
    named = [a for a in axes if a != ELLIPSIS]
    out_named = [a for a in output if a != ELLIPSIS]
    order = sorted(range(len(named)), key=lambda i: out_named.index(named[i]))
    permutation = tuple(order) if order != list(range(len(named))) else None
    entries = [":" if a in named else "None" for a in out_named]
    if all(e == ":" for e in entries):
        return permutation, None
    prefix = ["..."] if ELLIPSIS in axes else []
    return permutation, ", ".join(prefix + entries)


def _laid_out(value: cst.BaseExpression, axes: tuple[str, ...], output: tuple[str, ...]) -> cst.BaseExpression | None:
    permutation, index = operand_index(axes, output)
    if permutation is not None and ELLIPSIS in axes:
        return None  # a permutation behind an ellipsis needs the rank; rare in real code
    node = parenthesize(value) if permutation is not None or index is not None else value
    if permutation is not None:
        node = cst.Call(cst.Attribute(node, cst.Name("permute")),
                        [cst.Arg(cst.Integer(str(i)), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                         for i in permutation[:-1]] + [cst.Arg(cst.Integer(str(permutation[-1])))])
    if index is not None:
        node = cst.parse_expression(f"_[{index}]").with_changes(value=node)
    return node


class EinxElementwise(Rule):
    needs_text = (b"einx",)
    info = RuleInfo(
        id=RULE,
        name="einx-elementwise",
        summary="`einx.subtract('j, i -> i j', a, b)` and einx's other element-wise operations read every size into "
                "Python, so the export bakes them; write the broadcast with indexing (`torch.subtract(a[None, :], "
                "b[:, None])`)",
        doc="""\
What it finds: calls of einx's element-wise operations (`add`, `subtract`, `multiply`,
`divide`, `true_divide`, `floor_divide`, `maximum`, `minimum`, `logaddexp`, `logical_and`,
`logical_or`, the comparisons `less` ... `not_equal`, and `where`) whose pattern is a literal
string of plain axis names: each operand's axes separated by commas, an optional leading `...`,
an empty entry for a number (`'b n, b n d, -> b n d'`), `1` for a new axis of size 1 in the output
(`'j, i -> 1 i j'`), and the output after `->`, or none, when one operand holds every axis
(`'b n, b'`). x-transformers builds its relative-position buckets, ALiBi biases and length masks
so (`rel_pos = einx.subtract('j, i -> i j', k_pos, q_pos)`, `mask = einx.less('j, i -> i j',
seq_arange, lens)`), and lucidrains' other packages do the same.

Why it hurts: einx solves the pattern against the operands' shapes in Python and runs a function
it writes for those shapes (`torch.reshape(a, (1, 5))`, `torch.reshape(b, (3, 1))`,
`torch.subtract(a, b)`). Under `torch.jit.trace` and the TorchScript ONNX exporter each size is
then a constant ("Converting a tensor to a Python integer"): the graph fails or is wrong at any
other sequence length or batch. `torch.export` specializes the same way.

What the fix does: each operand is indexed into the output's layout, its own axes kept in order
(a `permute` first where the output orders them otherwise) and `None` for the output's other axes,
and the torch function einx's torch backend calls takes them:
```
rel_pos = einx.subtract('j, i -> i j', k_pos, q_pos)
    ->  rel_pos = torch.subtract(k_pos[None, :], q_pos[:, None])
t = einx.where('b n, b n d, -> b n d', mask, t, 0.)
    ->  t = torch.where(mask[:, :, None], t, 0.)
loss = einx.multiply('b fb n, n fb', loss, w)
    ->  loss = torch.multiply(loss, w.permute(1, 0)[None, :, :])
```
Not taken: einx's brackets and compositions (`[l]`, `(b s)`), sizes given as keywords, other
keywords, an ellipsis whose operand must also be permuted, an output axis no operand has, and a
number as the first operand (einx makes a tensor of it; `torch.less(1.5, t)` raises).

Fix safety: unsafe. The broadcast computes the same values with the same torch function, but
einx checks its pattern and the broadcast does not: an operand of another rank than its pattern
names, or one whose axis has size 1 where another operand's axis of that name does not, raises in
einx and is broadcast silently by torch. einx also reshapes where the rewrite takes a view, so for
operands that are not contiguous the result's strides may differ; and einx 0.4 raises on an
axis of size 0, where the broadcast gives the empty result. `migrate` applies it where a
baked size is located at the call and keeps it only when the rewritten model is equivalent on
every input set. Each form runs in eager mode, `torch.jit.script` (where the einx call never did),
`torch.fx`, `torch.compile` and `torch.export`. TensorRT versions: all (Unsqueeze, Transpose and the
element-wise operator).""",
        fix=Safety.UNSAFE,
        assumption="each operand has the rank its pattern names and the same size as the other operands on the axes "
                   "they share, as einx checks (a broadcast would stretch a size-1 axis where einx raises)",
        fails_when=(
            "an operand has another rank than its pattern names: einx raises, the broadcast aligns it from the right",
            "an axis of size 1 meets the same axis of another size in another operand: einx raises, torch broadcasts",
            "an operand is not contiguous: the result has the same values, possibly other strides",
            "an axis has size 0: einx (0.4) finds no size for it and raises, the broadcast gives the empty result",
        ),
        examples=(
            Example("import einx\nimport torch\n\n"
                    "def relative(i, j):\n"
                    "    q_pos = torch.arange(j - i, j)\n"
                    "    k_pos = torch.arange(j)\n"
                    "    return einx.subtract('j, i -> i j', k_pos, q_pos)\n",
                    "import einx\nimport torch\n\n"
                    "def relative(i, j):\n"
                    "    q_pos = torch.arange(j - i, j)\n"
                    "    k_pos = torch.arange(j)\n"
                    "    return torch.subtract(k_pos[None, :], q_pos[:, None])\n", unsafe=True),
            Example("import einx\n\n"
                    "def masked(mask, t):\n"
                    "    return einx.where('b n, b n d, -> b n d', mask, t, 0.)\n",
                    "import einx\n\n"
                    "def masked(mask, t):\n"
                    "    return torch.where(mask[:, :, None], t, 0.)\n", unsafe=True),
        ),
        references=(
            "https://einx.readthedocs.io/en/stable/gettingstarted/tutorial_ops.html",
            "https://github.com/lucidrains/x-transformers/blob/main/x_transformers/x_transformers.py",
            "https://pytorch.org/docs/stable/notes/broadcasting.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = next(iter(self.context.qualified_names(node.func)), "")
        module, _, name = qualified.rpartition(".")
        if module not in ("einx", "einx.torch") or name not in TORCH_FUNCTIONS or in_inserted_helper(self):
            return
        if has_star_args(node) or any(a.keyword is not None for a in node.args) or not node.args:
            return
        text = node.args[0].value
        if type(text) is not cst.SimpleString or "f" in text.prefix.lower() or "b" in text.prefix.lower():
            return
        values = [a.value for a in node.args[1:]]
        pattern = parse_pattern(text.evaluated_value, len(values))
        if pattern is None or len(values) != _ARITY[name]:
            return
        if name not in _TAKE_NUMBERS and any(axes is None for axes in pattern.operands):
            return
        if pattern.operands[0] is None:
            return  # einx makes a tensor of a leading number; `torch.less(1.5, t)`, `torch.where(True, ...)` raise
        arguments: list[cst.BaseExpression] = []
        for value, axes in zip(values, pattern.operands):
            laid = value if axes is None else _laid_out(value, axes, pattern.output)
            if laid is None:
                return
            arguments.append(laid)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        call = cst.Call(cst.parse_expression(TORCH_FUNCTIONS[name]),
                        [cst.Arg(v, comma=comma) for v in arguments[:-1]] + [cst.Arg(arguments[-1])],
                        lpar=node.lpar, rpar=node.rpar)
        self.report(node, f"einx.{name} reads every size into Python and runs a function written for the traced "
                          f"shapes, so the export bakes them; `{TORCH_FUNCTIONS[name]}` of the operands indexed into "
                          f"the output's layout keeps the sizes in the graph",
                    Fix({node: call}, safety=Safety.UNSAFE))


RULES = (EinxElementwise,)
