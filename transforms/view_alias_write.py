"""In-place writes through a reshaping view of another tensor, which the TorchScript export loses (TRT375)."""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

#: Tensor methods (and ``torch.`` functions) that return a view with other sizes or another order of the axes: a
#: write through one of them is lost for the tensor viewed (indexing, ``narrow`` and ``select`` are slices, which the
#: exporter follows back to the tensor).
VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "transpose", "swapaxes", "swapdims", "permute", "t", "movedim",
    "moveaxis", "unsqueeze", "squeeze", "flatten", "unflatten", "expand", "expand_as", "diagonal", "as_strided",
    "unfold",
})
#: Methods that may return their receiver itself or a slice of it (the chain goes on through them); any other
#: method call makes a new tensor, which nothing else refers to.
_MAY_ALIAS = frozenset({"contiguous", "detach", "narrow", "select", "to", "type_as", "float", "__getitem__"})
#: Methods whose name ends with ``_`` but that write no values.
_NOT_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "pin_memory_"})

_STEP = ("the graph computes with the tensor as it was before the write. By hand: write into the "
         "tensor itself through slices and indices (a level of a strided sweep is one slice: "
         "`x.view(b, d, t // 2, 2, n)[:, :, :, 1]` is `x[:, :, 1::2]`), or compute the update out of place and rebuild "
         "the tensor (`torch.cat`, `torch.where`) and use the result, or export with the dynamo exporter "
         "(`--exporters dynamo`), which keeps in-place updates of views (guidance: Tracing export)")


def _chain(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """The name (or other expression) at the root of ``node``'s chain of subscripts, attributes and method
    calls, and whether a view method (or ``torch.<view>(x, ...)``) is on the way."""
    through_view = False
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            attr, receiver = node.func.attr.value, node.func.value
            if attr not in VIEW_METHODS and attr not in _MAY_ALIAS:
                return node, through_view  # a new tensor (`x.clone()`, `x.mul(2)`): nothing else refers to it
            through_view |= attr in VIEW_METHODS
            if isinstance(receiver, cst.Name) and receiver.value == "torch" and node.args:
                node = node.args[0].value
            else:
                node = receiver
        elif isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT", "mH", "H"):
            through_view, node = True, node.value
        else:
            return node, through_view


def _root(node: cst.BaseExpression) -> str | None:
    root, _ = _chain(node)
    return root.value if isinstance(root, cst.Name) else None


class _Body(cst.CSTVisitor):
    """A function's own statements (not those of functions, lambdas or classes in it): the names bound to a view
    chain and the in-place writes with their receivers, each with its place in the text and the loops around it."""

    def __init__(self) -> None:
        #: Bindings of names: (name, place, loops around it, "view" / "alias" / "fresh", the name at its chain's root).
        self.views: list[tuple[str, int, frozenset[int], str, str | None]] = []
        #: (write, target, how, place, loops around the write).
        self.writes: list[tuple[cst.CSTNode, cst.BaseExpression, str, int, frozenset[int]]] = []
        #: (name, place) of every name in the text.
        self.names: list[tuple[str, int]] = []
        #: id(node) -> the place of the last node in it.
        self.ends: dict[int, int] = {}
        self._loops: list[int] = []
        self._place = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._place += 1
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(node, (cst.For, cst.While)):
            self._loops.append(id(node))
        if isinstance(node, cst.Name):
            self.names.append((node.value, self._place))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.ends[id(original_node)] = self._place
        if isinstance(original_node, (cst.For, cst.While)):
            self._loops.pop()
        super().on_leave(original_node)

    def _write(self, node: cst.CSTNode, target: cst.BaseExpression, how: str) -> None:
        self.writes.append((node, target, how, self._place, frozenset(self._loops)))

    def visit_Assign(self, node: cst.Assign) -> None:
        root, through_view = _chain(node.value)
        # A view of a new tensor (`x.clone().transpose(1, 2)`) is its only name; a chain from a name without a view
        # (`Xa = X`, `y = x[:, 1:]`) is another name of that tensor; anything else is a new tensor.
        kind = ("fresh" if not isinstance(root, cst.Name) else "view" if through_view else "alias")
        source = root.value if isinstance(root, cst.Name) else None
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.views.append((target.target.value, self._place, frozenset(self._loops), kind, source))
            elif isinstance(target.target, cst.Subscript):
                self._write(node, target.target, "an assignment into it")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, (cst.Name, cst.Subscript)):
            self._write(node, node.target, "an augmented assignment")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name.endswith("_") and not name.startswith("_") and name not in _NOT_WRITES:
                self._write(node, func.value, f"`{name}`")

    def _before(self, name: str, place: int) -> tuple | None:
        """The last binding of ``name`` in the text before ``place`` (None: a parameter, or bound otherwise)."""
        found = [b for b in self.views if b[0] == name and b[1] < place]
        return found[-1] if found else None

    def _aliasing_view(self, binding: tuple) -> bool:
        """Is ``binding`` a view of a tensor that another name may still reach? `y = y.permute(...)` of a `y` that
        was a new tensor (timm's Swin: `relative_coords = relative_coords.permute(1, 2, 0)`) leaves no other name."""
        name, at, _, kind, source = binding
        if kind != "view":
            return False
        if source != name:
            return True
        previous = self._before(name, at)
        return previous is None or previous[3] != "fresh" and (previous[3] != "view" or self._aliasing_view(previous))

    def viewed(self, name: str, place: int) -> str:
        """The name of the tensor a write into ``name`` at ``place`` reaches through its bindings' roots."""
        seen = set()
        while name not in seen:
            seen.add(name)
            last = self._before(name, place)
            if last is None or last[3] == "fresh" or last[4] is None:
                return name
            name, place = last[4], last[1]
        return name

    def read_after(self, name: str, place: int) -> bool:
        return any(n == name and at > place for n, at in self.names)

    def a_view_at(self, name: str, place: int, loops: frozenset[int]) -> bool:
        """Is ``name`` a view of another tensor where a write at ``place`` in ``loops`` runs: by its last binding
        before the write, or by one in a loop around it (a later round's write goes through it)? A view bound only
        after the write (Jamba's `final_hidden_states.index_add_(...)` in the loop, `.reshape(...)` of it after),
        or a new tensor bound since the view (kornia's ViT: `x = torch.cat([cls_tokens, x], dim=1)`), is not."""
        last = self._before(name, place)
        if last is not None and self._aliasing_view(last):
            return True
        return any(b[0] == name and b[2] & loops and b[1] > place and self._aliasing_view(b) for b in self.views)


class ViewAliasWrite(Rule):
    needs_text = tuple(sorted(m.encode() for m in VIEW_METHODS))
    info = RuleInfo(
        id="TRT375",
        name="view-alias-write",
        summary="an in-place write through `x.view(...)`, `x.transpose(...)` or another reshaping view: the "
                "TorchScript export loses it for `x`, so later reads of `x` see the old values (detect only)",
        doc="""\
What it finds: in a function, an in-place write (an in-place method `y.add_(v)`, `y[:, 1].mul_(v)`,
an assignment into part of it `y[..., 0] = v`, an augmented assignment `y += v`) into a tensor
reached through a reshaping view: a name bound to a chain with `view`, `view_as`, `reshape`,
`transpose`, `swapaxes`, `permute`, `t`, `movedim`, `unsqueeze`, `squeeze`, `flatten`,
`unflatten`, `expand`, `diagonal`, `as_strided` or `unfold` in it (as a method or as
`torch.<name>(x, ...)`, `.T`), or such a chain written into directly
(`x.view(b, -1)[:, 0].zero_()`), where something may read the tensor viewed afterwards: the
function reads it after the write, it is one of the function's parameters (the caller holds it),
or the write is in a loop. A view bound after the write, a view of a new tensor under its only
name (`r = r.permute(1, 2, 0)` of a product) and a name bound to a new tensor since the view are
not writes through a view. It is reported once per function, at the first such write.
mambapy 1.2.0's parallel scan (`mambapy/pscan.py`, `PScan.pscan`) sweeps up with
`Xa = Xa.view(B, D, T//2, 2, -1)` then `Xa[:, :, :, 1].add_(Aa[:, :, :, 1].mul(Xa[:, :, :, 0]))`,
and its caller reads the scanned values back from the tensor it passed in.

Why it hurts: eager mode writes through the view into the memory of the tensor viewed, so every
other view of it, and the tensor itself, sees the new values. The TorchScript exporter (torch
2.13, any opset) turns in-place writes into out-of-place ones and follows a write back to the
tensor viewed only through indexing (slices, `select`, `narrow`): through a `view`, a
`transpose` or the others above the graph keeps the update for the view's own later reads
only, and the tensor viewed keeps its old values: `y = x.view(1, 3, 16); y.mul_(2); return x`
exports as `x` unchanged (48 of 48 values differ), `x.transpose(1, 2)[:, 2].add_(a)` loses
that row. No warning is raised; the graph computes other values than the model even on the
inputs it was traced with (mambapy's Mamba: 22 of 384 outputs). The dynamo exporter
functionalizes the writes and is not affected. When nothing reads the tensor viewed after the
write (`x = x.transpose(1, 2); x[:, 0] += 1` rebinds the only name), the graph is right:
`migrate` takes this rule only where the graph differs from eager mode on the traced inputs.

What to do (no rewrite: which reads of which tensor need the update is the program's whole
aliasing, across calls): write into the tensor itself through slices (the exporter follows
those), e.g. a level of a strided sweep as one slice, `x[:, :, 1::2]` for
`x.view(b, d, t // 2, 2, n)[:, :, :, 1]`; or compute the update out of place and use the new
tensor (`torch.cat`, `torch.where`); or export with the dynamo exporter.

Fix safety: none (detect only).""",
        fix=Safety.NONE,
        examples=(
            Example(
                "def up_sweep(A, X):\n"
                "    b, d, t, n = X.shape\n"
                "    Xa = X.view(b, d, t // 2, 2, n)\n"
                "    Aa = A.view(b, d, t // 2, 2, n)\n"
                "    Xa[:, :, :, 1].add_(Aa[:, :, :, 1].mul(Xa[:, :, :, 0]))\n"
            ),
            Example("def bump(x):\n    x.transpose(1, 2)[:, 0] += 1\n    return x\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensor_view.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: id(write node) -> message, for the first write through a view of each function (reported when the
        #: traversal reaches the node, so that its position is found in its own scopes).
        self._due: dict[int, str] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if in_inserted_helper(self):
            return
        body = _Body()
        node.body.visit(body)
        params = node.params
        parameters = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        for write, target, how, place, loops in body.writes:
            root, through_view = _chain(target)
            if not isinstance(root, cst.Name) or not through_view and not body.a_view_at(root.value, place, loops):
                continue
            viewed = body.viewed(root.value, place)
            if not loops and viewed not in parameters and not body.read_after(viewed, body.ends.get(id(write), place)):
                continue  # nothing reads the tensor viewed after the write (kornia's `return atlas.flatten(2, 3).mul_(0.5)`)
            name = root.value if isinstance(root, cst.Name) else "the tensor"
            self._due[id(write)] = (
                f"{how} writes in place into `{name}`, a reshaping view (`view`, `transpose`, ...) of another "
                "tensor: the TorchScript export keeps the write for the view's own reads only, and later reads of "
                f"the tensor viewed see its old values; {_STEP}")
            return

    def _write(self, node: cst.CSTNode) -> None:
        message = self._due.pop(id(node), None)
        if message is not None:
            self.report(node, message)

    def visit_Call(self, node: cst.Call) -> None:
        self._write(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._write(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._write(node)


RULES = (ViewAliasWrite,)
