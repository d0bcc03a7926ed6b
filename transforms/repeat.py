"""``repeat`` along an axis just made by ``unsqueeze`` / ``None`` → ``expand`` (TRT404, opt-in).

Only the chains where the repeated axes are visibly of size 1 are matched: the receiver of
``.repeat(...)`` is ``x.unsqueeze(d)`` or ``torch.unsqueeze(x, d)`` for a literal ``d``, or an
index made of ``None`` (a new axis), ``:`` (an axis kept) and at most one ``...``
(``x[None]``, ``x[:, None]``, ``x[:, None, None, :]``, ``x[..., None]``). Every count that
does not meet a new axis must be the literal ``1``. Which count a new axis meets is read
with one axis per count (the rule's stated assumption): ``d`` from the front when it is not
negative, from the end when it is. Where the tensor has fewer axes than counts (``repeat``
then adds leading axes), the ``expand`` raises or gives the same result, never other values.

``unsqueeze`` is a torch-only method, so that chain names a tensor; ``None`` indexing also
works on NumPy arrays (whose ``repeat(n, axis)`` means something else), so that form is
skipped when the indexed name is bound to a NumPy value in the same function
(``np.*(...)`` or ``.numpy()``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, int_value, method_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety


def _new_axis(rule: "RepeatExpand", receiver: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[int, ...]] | None:
    """(tensor, positions) when ``receiver`` inserts size-1 axes at ``positions`` of its result
    (counted from the front when >= 0, from the end when negative)."""
    if type(receiver) is cst.Call and not has_star_args(receiver):
        if rule.context.refers_to(receiver.func, "torch.unsqueeze"):
            tensor, dim = argument(receiver, 0, "input"), argument(receiver, 1, "dim")
            base = tensor.value if tensor is not None else None
            expected = 2
        else:
            parts = method_call(receiver)
            if parts is None or parts[1] != "unsqueeze" or rule.context.qualified_names(parts[0]):
                return None
            base, dim = parts[0], argument(receiver, 0, "dim")
            expected = 1
        if base is None or dim is None or len(receiver.args) != expected:
            return None
        d = int_value(dim.value)
        return (base, (d,)) if d is not None else None
    if type(receiver) is cst.Subscript and not rule.numpy_value(receiver.value):
        items = [_index_item(element) for element in receiver.slice]
        if None in items or items.count("...") > 1 or "None" not in items:
            return None
        # Each `:` keeps an axis and each `None` adds one; after `...` the axes count from the end.
        split = items.index("...") if "..." in items else len(items)
        front = [i for i, item in enumerate(items[:split]) if item == "None"]
        back = [i - len(items) for i, item in enumerate(items) if i > split and item == "None"]
        return receiver.value, tuple(front + back)
    return None


def _index_item(element: cst.SubscriptElement) -> str | None:
    """``"None"``, ``"..."`` or ``":"`` (the whole axis) for a subscript element, else None."""
    sl = element.slice
    if type(sl) is cst.Slice:
        return ":" if sl.lower is None and sl.upper is None and sl.step is None else None
    if type(sl) is not cst.Index or sl.star is not None:
        return None
    if type(sl.value) is cst.Name and sl.value.value == "None":
        return "None"
    if type(sl.value) is cst.Ellipsis:
        return "..."
    return None


class RepeatExpand(Rule):
    needs_text = (b"repeat",)
    info = RuleInfo(
        id="TRT404",
        name="repeat-singleton-expand",
        summary="`x.unsqueeze(0).repeat(n, 1, 1)` copies a size-1 axis; `expand(n, -1, -1)` broadcasts it "
        "(opt-in: Tile becomes Expand)",
        doc="""\
What it finds: `.repeat(...)` on a tensor that has just received new axes of size 1
(`x.unsqueeze(d)`, `torch.unsqueeze(x, d)` for a literal `d`, or an index of `None`, `:` and
at most one `...`: `x[None]`, `x[:, None]`, `x[:, None, None, :]`, `x[..., None]`), where
every count other than the literal `1` is one for a new axis: `x.unsqueeze(0).repeat(n, 1,
1)`, DETR's `query_embed.unsqueeze(1).repeat(1, bs, 1)`, `mask[:, None, None, :].repeat(1,
heads, 1, 1)`, `x[..., None].repeat(1, 1, k)`. Which count a new axis meets is read with
one axis per count (the assumption below). Opt-in: selected only by its ID, its name or the
prefix `TRT4`, never by `ALL`.

Why: the cheatsheet this project follows lists `repeat` as exporting through a slice that
crashed old TensorRT builds and recommends `expand` for singleton axes. Measured with torch
2.13: `repeat` exports as ONNX `Tile` (the TorchScript exporter adds an `Expand` for the
new leading axes), `expand` as ONNX `Expand` (the TorchScript exporter adds a small
Mul/Equal/Where chain for the `-1` sizes). TensorRT parses both in every version in the
support table, and its ONNX parser builds both as a slice layer (wrap mode for Tile,
stride 0 for Expand), so on current versions the rewrite is about the graph stating a
broadcast rather than a copy, and about PyTorch itself: `expand` allocates nothing. That
is why the rule is opt-in.

The rewrite: `repeat` → `expand`, with `-1` (keep the size) for every count of `1` and
the count itself for the new axis: `x.unsqueeze(0).repeat(n, 1, 1)` →
`x.unsqueeze(0).expand(n, -1, -1)`.

Fix safety: unsafe. The values and shape are the same, but:
- `expand` returns a view of `x` with stride 0 on the new axis, `repeat` a fresh
  contiguous tensor. An in-place write to the result raises ("more than one element of the
  written-to tensor refers to a single memory location"), or, where it does not, writes
  through to `x`; `.view(...)` on the result can raise where it worked on the copy
  (use `reshape`).
- A count of -1 makes `repeat` raise but `expand` keep the size-1 axis; counts are assumed
  to be sizes (non-negative).
- When the tensor has fewer axes than counts, `repeat` adds leading axes of size 1 where
  `expand` refuses `-1` (or, for `unsqueeze(d)` with `d > 0`, where the count for the new
  axis would be met by another one); the tensor is assumed to have one axis per count (after
  the unsqueeze). Where it has not, the rewrite raises or agrees; it never gives other values.
Gradients are the same sums over the copies.""",
        fix=Safety.UNSAFE,
        assumption=(
            "nothing writes in place to the result (now an `expand` view, not a copy), the counts are not negative, and"
            " the tensor has one axis per count"),
        opt_in=True,
        examples=(
            Example(
                "queries = self.query_embed.weight.unsqueeze(0).repeat(bs, 1, 1)\n",
                "queries = self.query_embed.weight.unsqueeze(0).expand(bs, -1, -1)\n",
                unsafe=True,
            ),
            Example("m = mask[..., None].repeat(1, 1, c)\n", "m = mask[..., None].expand(-1, -1, c)\n", unsafe=True),
            Example("query_embed = query_embed.unsqueeze(1).repeat(1, bs, 1)\n",
                    "query_embed = query_embed.unsqueeze(1).expand(-1, bs, -1)\n", unsafe=True),
            Example("m = m[:, None, None, :].repeat(1, heads, 1, 1)\n",
                    "m = m[:, None, None, :].expand(-1, heads, -1, -1)\n", unsafe=True),
            Example("pos = torch.unsqueeze(pos, 0).repeat(b, 1)\n", "pos = torch.unsqueeze(pos, 0).expand(b, -1)\n",
                    unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.repeat.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.expand.html",
            "https://onnx.ai/onnx/operators/onnx__Tile.html",
            "https://onnx.ai/onnx/operators/onnx__Expand.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._torch = False
        self._numpy_names: list[set[str]] = [set()]

    def visit_Module(self, node: cst.Module) -> None:
        self._torch = self.context.imports.imports_module("torch")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._numpy_names.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._numpy_names.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.numpy_value(node.value):
            for target in node.targets:
                if type(target.target) is cst.Name:
                    self._numpy_names[-1].add(target.target.value)

    def numpy_value(self, node: cst.BaseExpression) -> bool:
        """Evidently a NumPy value: ``np.f(...)``, ``x.numpy()``, or a name bound to one here."""
        if type(node) is cst.Name:
            return node.value in self._numpy_names[-1]
        if type(node) is cst.Call:
            if any(q == "numpy" or q.startswith("numpy.") for q in self.context.qualified_names(node.func)):
                return True
            parts = method_call(node)
            return parts is not None and parts[1] == "numpy"
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if not self._torch:
            return
        parts = method_call(node)
        if parts is None or parts[1] != "repeat" or has_star_args(node) or not node.args:
            return
        if any(arg.keyword is not None for arg in node.args):
            return
        found = _new_axis(self, parts[0])
        if found is None:
            return
        _, axes = found
        counts = [arg.value for arg in node.args]
        if len(counts) == 1 and type(counts[0]) in (cst.Tuple, cst.List):
            counts = [element.value for element in counts[0].elements]
            if any(type(element) is cst.StarredElement for element in node.args[0].value.elements):
                return
        # Under the assumption of one axis per count, the new axes meet these counts.
        positions = {d if d >= 0 else len(counts) + d for d in axes}
        if not all(0 <= position < len(counts) for position in positions):
            return
        # One count repeats, on a new axis: then a tensor of fewer axes than counts makes the
        # expand raise (a -1 or the count on an axis it lacks), never differ.
        repeated = [index for index, count in enumerate(counts) if int_value(count) != 1]
        if len(repeated) != 1 or repeated[0] not in positions:
            return  # nothing repeated, several counts, or an axis not visibly of size 1
        value = int_value(counts[repeated[0]])
        if value is not None and value < 0:
            return  # an error either way
        position = repeated[0]
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = []
        for index, count in enumerate(counts):
            value = count if index == position else cst.parse_expression("-1")
            args.append(cst.Arg(value, comma=comma if index < len(counts) - 1 else cst.MaybeSentinel.DEFAULT))
        replacement = node.with_changes(func=node.func.with_changes(attr=cst.Name("expand")), args=args)
        self.report(
            node,
            "repeat along a new size-1 axis copies it (ONNX Tile); expand broadcasts it (ONNX Expand) "
            "(assumes the result is not written in place)",
            Fix({node: replacement}, safety=Safety.UNSAFE),
        )


RULES = (RepeatExpand,)
