"""Updates through a boolean mask (TRT202): ``t[mask] = v``, ``t[mask] += v`` with a tensor value.

Both exporters turn these into ``NonZero`` + ``GatherND`` + ``ScatterND`` (torch 2.13); the
TorchScript exporter's graph for a mask over fewer axes than ``t`` can even be one ONNX
Runtime refuses to load. The rewrite computes the new tensor with ``torch.where`` over the
mask widened to ``t``'s rank (the inserted helper ``_trt_mask_rows``), and rebinds the name:
unsafe (DESIGN §8.4), so it is offered only for a plain local name that the function reads
again, that is no view of another tensor and that no nested function sees. The mask
evidence is ``indexing``'s; number literals are TRT204's (``assignment``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import children, code_of, mentions_name, method_call, short_code, strip_parens
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms.assignment import _is_bare_colon
from trtcodemod.transforms.indexing import _REFERENCES, NONE, _described, _is_plain_scalar, _MaskRule

HELPER = "_trt_mask_rows"

#: Augmented operators the rewrite computes as ``t op v``: elementwise, so ``(t op v)[mask]``
#: is ``t[mask] op v`` element for element.
_OPERATORS: dict[type, str] = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
}

#: Tensor methods whose result may share memory with the receiver: a write into it is a write
#: into the receiver, which a rebinding would not make.
_VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "expand", "expand_as", "narrow",
    "select", "squeeze", "unsqueeze", "flatten", "unflatten", "diagonal", "as_strided", "unfold", "detach",
    "movedim", "moveaxis", "swapaxes", "swapdims", "contiguous", "to", "type", "float", "half", "double",
    "long", "int", "bool", "cpu", "cuda", "requires_grad_", "unbind", "split", "chunk", "tensor_split",
})

#: Expressions that need no parentheses as the right operand of ``t op v``.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)


class BoolMaskAssign(_MaskRule):
    info = RuleInfo(
        id="TRT202",
        name="bool-mask-assign",
        summary="`t[mask] = value` / `t[mask] += value` with a tensor value exports as NonZero + ScatterND; build the result with `torch.where`",
        doc="""\
What it finds: assignments through a boolean mask, `t[mask] = value` and `t[mask] += value`
(also with other indices, `t[mask, 2] = v`), with the same evidence that the index is a
mask as TRT201 (a comparison, a bool-valued call, or a local name assigned from one; a
mask-like name alone counts too). Filling with a number literal (`t[mask] = 0`,
`t[mask] = float("-inf")`) is TRT204's.

Why it hurts: with a tensor value, or with an augmented assignment, both exporters emit
`NonZero` + `GatherND` + `ScatterND`: a data-dependent scatter that TensorRT before 8.5
cannot build and that later versions run as a slow, serialized scatter whose every shape
downstream is known only at run time. With a mask over fewer axes than `t` (SAM's
`point_embedding[labels == -1] += w`, a (B, N) mask over (B, N, C) embeddings) the
TorchScript exporter's graph of the neighbouring `t[mask] = 0.0` is a `Where` that ONNX
Runtime refuses to load (incompatible dimensions; TRT204's helper fixes that line).

The rewrite (unsafe): for a mask that is the only index of a plain local name,
`t[mask] = v` becomes
`t = torch.where(_trt_mask_rows(mask, t), torch.as_tensor(v, dtype=t.dtype, device=t.device), t)`,
`t[mask] = v[mask]` (the same mask) the same with `v`, `t[mask] += v` (also `-=`) becomes
`t = torch.where(_trt_mask_rows(mask, t), (t + v).to(t.dtype), t)`, and `t[mask] *= v` (also
`/=`) becomes `t = (t * torch.where(_trt_mask_rows(mask, t), v, 1)).to(t.dtype)`: a factor of
1 outside the mask, so that no gradient of `t * v` (0 * inf = NaN) reaches `v` or `t` from the
rows the mask leaves.
`_trt_mask_rows` (inserted) appends size-1 axes to the mask up to `t`'s rank, so the mask
selects leading axes as the indexing does (Unsqueeze nodes in the graph); in eager mode it
raises the indexing's IndexError for a mask that does not match `t`'s leading axes.
The graph is a `Where`, with no NonZero or ScatterND. The values are those of the
assignment, bit for bit: the same elementwise operation on the same elements, cast to `t`'s
dtype as the in-place write casts; an all-false mask leaves `t`, an empty `t` stays empty,
inf/NaN in the rows the mask leaves are not picked, and the gradients are the assignment's
(measured on all-false, all-true, empty, inf/NaN and zero-divisor inputs: tests/transforms/test_mask_update.py).

The mask on the last axis: `t[:, m] = t[:, m] / u[m]` (also `*`, `+`, `-`, and the methods
`.div`, `.mul`, `.add`, `.sub`), the selected elements combined with the matching ones of `u`
(nnAudio's iSTFT divides the overlap-added frames by the window's square sum where it is not
zero), becomes `t = (t / torch.where(m, u, 1)).to(t.dtype)` (`*` alike) or
`t = torch.where(m, (t + u).to(t.dtype), t)` (`-` alike): the mask broadcasts from the right,
as it indexes `t`'s last axis. It assumes a 1-D bool mask over `t`'s last axis (bare colons
before it) and a `u` of the mask's shape; in `migrate` the recorded run must show both (the
read `t[:, m]` indexed with `(:, 1-D bool)` on a tensor of that rank, `u[m]` with a 1-D bool
on a 1-D tensor), else it is left alone. Values are the write's bit for bit; the gradients are
the write's up to float summation order (a broadcast `u`'s gradient is summed in another order)
and the sign of a zero (the write's backward adds the selected elements' gradient into zeros,
`0.0 + -0.0` being `0.0`; the product passes a `-0.0` on).

Fix safety: unsafe. Assumptions: (1) `v` broadcasts against `t` as it does against
`t[mask]`: a value of the selected rows' shape (`t[mask] = rows`, one row per True entry)
raises in the rewrite unless one or all rows are selected, and a value that the assignment
would reject may be accepted; (2) `t` becomes a new tensor: the write no longer reaches
other references to the old one (a caller's argument, a list it was appended to, an
earlier `y = t`); (3) the index is a bool tensor (a long index tensor makes `torch.where`
raise); (4) `torch.fx` symbolic tracing cannot run `_trt_mask_rows` (the rank is a
Python loop), while eager, `torch.jit.script`, `torch.compile`, `torch.export` and both ONNX
exporters run it; (5) the result is contiguous, whatever `t`'s strides were; (6) a value tensor of
another dtype than `t` is converted (`t[mask] = v` raises for it). To keep (2)
likely, the fix is offered only for a plain local name (not an attribute, not a subscript,
not `global`/`nonlocal`), which the function reads after the write (or the loop around it
does), which is not bound to a view or alias of another tensor (`t = x[:, 0]`,
`t = x.view(...)`, `t = x`), which no nested function or lambda uses, and where the value
does not read `t` itself. Other forms are reported without a fix. In `migrate` the fix is a
candidate: kept only if the rewritten model is equivalent on every input set.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the value broadcasts against `t` as it does against `t[mask]` (it is not one row per selected entry), "
            "and nothing else holds the old `t` (the rewrite rebinds the name to a new tensor); for "
            "`t[:, m] = t[:, m] op u[m]`, the mask is 1-D over `t`'s last axis and `u` has the mask's shape"),
        examples=(
            Example(
                "def embed(pe: torch.Tensor, labels, w):\n    pe[labels == 0] += w\n    return pe\n",
                "def embed(pe: torch.Tensor, labels, w):\n"
                "    pe = torch.where(_trt_mask_rows(labels == 0, pe), (pe + w).to(pe.dtype), pe)\n    return pe\n",
                unsafe=True,
            ),
            Example(
                "def clip(boxes: torch.Tensor, scores, fallback):\n    boxes[scores < 0.05] = fallback\n"
                "    return boxes\n",
                "def clip(boxes: torch.Tensor, scores, fallback):\n"
                "    boxes = torch.where(_trt_mask_rows(scores < 0.05, boxes), "
                "torch.as_tensor(fallback, dtype=boxes.dtype, device=boxes.device), boxes)\n    return boxes\n",
                unsafe=True,
            ),
            Example(
                "def unwindow(frames: torch.Tensor, wsum: torch.Tensor):\n    keep = wsum > 1e-10\n"
                "    frames[:, keep] = frames[:, keep].div(wsum[keep])\n    return frames\n",
                "def unwindow(frames: torch.Tensor, wsum: torch.Tensor):\n    keep = wsum > 1e-10\n"
                "    frames = (frames / torch.where(keep, wsum, 1)).to(frames.dtype)\n    return frames\n",
                unsafe=True,
            ),
            Example("def bump(self, labels: torch.Tensor):\n    self.scores[labels == 0] += 1.0\n"),
            Example("def head(x: torch.Tensor, scores, v):\n    y = x[:, 0]\n    y[scores > 0] = v\n    return x\n"),
        ),
        references=_REFERENCES,
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        if _is_plain_scalar(node.value):
            return
        for target in node.targets:
            self._check(node, target.target, None if len(node.targets) == 1 else "a chained assignment")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        why = None if type(node.operator) in _OPERATORS else f"the operator `{code_of(node.operator).strip()}`"
        self._check(node, node.target, why)

    def _check(self, statement: cst.Assign | cst.AugAssign, target: cst.BaseExpression, why: str | None) -> None:
        if type(target) is not cst.Subscript or not self._active():
            return
        if why is None and type(statement) is cst.Assign and self._trailing_update(statement, target):
            return
        for element in target.slice:
            index = element.slice
            if type(index) is cst.Index and index.star is None and self.evidence(index.value) != NONE \
                    and self._tensor_involved(target.value, index.value):
                kind = "augmented assignment" if type(statement) is cst.AugAssign else "assignment"
                message = (f"{kind} through boolean mask `{_described(index.value)}` exports as NonZero + "
                           "ScatterND")
                if why is None and len(target.slice) != 1:
                    why = "other indices beside the mask"
                why = why or self._blocker(statement, target, strip_parens(index.value))
                if why is not None:
                    self.report(target, f"{message}; compute the new tensor with torch.where (not rewritten: {why})")
                    return
                replacement = self._replacement(statement, target, strip_parens(index.value))
                self.report(target, f"{message}; `torch.where` over the mask computes the new tensor (a Where; "
                            "the name is rebound to it: fix needs --unsafe)",
                            Fix({statement: replacement}, safety=Safety.UNSAFE, helpers=(HELPER,)))
                return

    # --- `t[:, m] = t[:, m] / u[m]`: the mask on the last axis -------------------------------
    def _trailing_update(self, statement: cst.Assign, target: cst.Subscript) -> bool:
        """Report (and fix) ``t[:, m] = t[:, m] op u[m]``, where the 1-D mask ``m`` indexes ``t``'s last axis
        after bare colons and ``u`` has the mask's shape: the selected elements of ``t`` combined with the
        matching ones of ``u`` (nnAudio's iSTFT divides the overlap-added frames by the window's square sum
        where it is not zero). Elementwise, that is ``t op u`` at the mask and ``t`` elsewhere, with the mask
        broadcast from the right as torch.where does. False where the statement is not of that form."""
        elements = target.slice
        if len(elements) < 2 or not all(_is_bare_colon(e) for e in elements[:-1]):
            return False
        last = elements[-1].slice
        if type(last) is not cst.Index or last.star is not None:
            return False
        mask = strip_parens(last.value)
        update = _own_update(strip_parens(statement.value), target, mask)
        if update is None:
            return False
        operator, read, operand = update
        colons = len(elements) - 1
        seen_read, seen_operand = self._observed.indexed(read), self._observed.indexed(operand)
        if self._observed.known and (seen_read or seen_operand):
            # The recorded run decides: a 1-D bool mask over the last axis of `t`, and `u` of the mask's shape.
            wanted = f"tuple({'basic,' * colons}bool:1)"
            if not seen_read or not seen_operand or any(s != (wanted, colons + 1) for s in seen_read) \
                    or any(s != ("bool:1", 1) for s in seen_operand):
                return False
        elif self.evidence(mask) == NONE or not self._tensor_involved(target.value, mask):
            return False
        message = (f"assignment through boolean mask `{_described(mask)}` on the last axis exports as NonZero + "
                   "ScatterND")
        why = self._rebinding_blocker(statement, target)
        if why is not None:
            self.report(target, f"{message}; compute the new tensor with torch.where (not rewritten: {why})")
            return True
        name = code_of(strip_parens(target.value))
        torch_name = self.context.torch_name()
        source, where = code_of(strip_parens(operand.value)), code_of(mask)
        if operator in ("*", "/"):
            # A factor of 1 outside the mask, as for `t[m] *= v`: no 0 * inf gradient from the rows it leaves.
            text = f"({name} {operator} {torch_name}.where({where}, {source}, 1)).to({name}.dtype)"
        else:
            text = f"{torch_name}.where({where}, ({name} {operator} {source}).to({name}.dtype), {name})"
        replacement = cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))],
                                 value=cst.parse_expression(text), semicolon=statement.semicolon)
        self.report(target, f"{message}; `torch.where` over the mask computes the new tensor (a Where; the name "
                    "is rebound to it: fix needs --unsafe)", Fix({statement: replacement}, safety=Safety.UNSAFE))
        return True

    # --- when the rebinding is the write ------------------------------------------------
    def _blocker(self, statement: cst.Assign | cst.AugAssign, target: cst.Subscript,
                 mask: cst.BaseExpression) -> str | None:
        """Why rebinding the name may not do what the write did, or None."""
        base = strip_parens(target.value)
        if type(base) is cst.Name and self.context.function is not None \
                and not _same_mask_selection(statement.value, mask, statement):
            value, name = statement.value, base.value
            if mentions_name(value, name):
                return f"the value reads `{name}` itself (one value per selected row, which torch.where cannot place)"
            if _selects_with(value, mask):
                return (f"the value selects rows with the mask itself (`{short_code(value, 30)}`: one value per "
                        "selected row, which torch.where cannot place)")
        return self._rebinding_blocker(statement, target)

    def _rebinding_blocker(self, statement: cst.Assign | cst.AugAssign, target: cst.Subscript) -> str | None:
        """Why rebinding the target's name may not reach what the write reached, or None."""
        base = strip_parens(target.value)
        if type(base) is not cst.Name:
            return (f"the target `{short_code(base, 30)}` is an attribute, a view or a call's result: rebinding "
                    "it would not update what else holds it")
        name = base.value
        function = self.context.function
        if function is None:
            return "not inside a function"
        scan = _Uses(function, name, statement)
        if scan.declared:
            return f"`{name}` is declared global or nonlocal"
        if scan.nested:
            return f"`{name}` is used in a nested function or lambda, which may hold the old tensor"
        if not scan.read_after:
            return (f"nothing reads `{name}` after this write in the function: the write is for whoever else holds "
                    "the tensor, which a rebinding would not reach")
        for bound in self._bindings().get(name, []):
            if bound is not None and _may_be_view(strip_parens(bound), name):
                return f"`{name}` may be a view of another tensor (`{short_code(bound, 30)}`), which the write updates"
        return None

    def _replacement(self, statement: cst.Assign | cst.AugAssign, target: cst.Subscript,
                     mask: cst.BaseExpression) -> cst.Assign:
        name = code_of(strip_parens(target.value))
        torch_name = self.context.torch_name()
        value = strip_parens(statement.value)
        rows = f"{HELPER}({code_of(mask)}, {name})"
        if type(statement) is cst.Assign:
            if _same_mask_selection(value, mask, statement):
                value = strip_parens(value.value)  # `t[m] = v[m]`: `v` itself, where the mask selects
            new = f"{torch_name}.as_tensor({code_of(value)}, dtype={name}.dtype, device={name}.device)"
            text = f"{torch_name}.where({rows}, {new}, {name})"
        elif _OPERATORS[type(statement.operator)] in ("*", "/"):
            # The factor is 1 outside the mask: `t * where(rows, v, 1)` is `t` there, and no
            # gradient of `t * v` (0 * inf) reaches `v` or `t` from the rows the mask leaves.
            operator = _OPERATORS[type(statement.operator)]
            text = f"({name} {operator} {torch_name}.where({rows}, {code_of(value)}, 1)).to({name}.dtype)"
        else:
            operand = code_of(value) if isinstance(value, _ATOMS) else f"({code_of(value)})"
            text = (f"{torch_name}.where({rows}, ({name} {_OPERATORS[type(statement.operator)]} {operand})"
                    f".to({name}.dtype), {name})")
        return cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=cst.parse_expression(text),
                          semicolon=statement.semicolon)


def _same_mask_selection(value: cst.BaseExpression, mask: cst.BaseExpression,
                         statement: cst.Assign | cst.AugAssign) -> bool:
    """``v[mask]`` with the assignment's own mask (same code), in a plain assignment: the
    selected rows of a tensor of ``t``'s leading shape, which ``torch.where`` takes whole."""
    value = strip_parens(value)
    if type(statement) is not cst.Assign or type(value) is not cst.Subscript or len(value.slice) != 1:
        return False
    index = value.slice[0].slice
    return type(index) is cst.Index and index.star is None and code_of(strip_parens(index.value)) == code_of(mask) \
        and type(strip_parens(value.value)) in (cst.Name, cst.Attribute)


#: Tensor methods that are one of the elementwise operators, with their operand as the one argument.
_METHOD_OPERATORS = {"add": "+", "sub": "-", "subtract": "-", "mul": "*", "multiply": "*", "div": "/",
                     "divide": "/", "true_divide": "/"}
_BINARY_OPERATORS: dict[type, str] = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}


def _own_update(value: cst.BaseExpression, target: cst.Subscript,
                mask: cst.BaseExpression) -> tuple[str, cst.Subscript, cst.Subscript] | None:
    """``(operator, the read of the target, u[mask])`` where ``value`` is ``target op u[mask]`` or
    ``target.div(u[mask])`` (the same subscript read back, a plain elementwise operator, and the operand
    selected by the same mask alone); None otherwise."""
    if type(value) is cst.BinaryOperation and type(value.operator) in _BINARY_OPERATORS:
        operator, read, operand = _BINARY_OPERATORS[type(value.operator)], value.left, value.right
    elif type(value) is cst.Call:
        parts = method_call(value)
        if parts is None or parts[1] not in _METHOD_OPERATORS or len(value.args) != 1 \
                or value.args[0].keyword is not None or value.args[0].star:
            return None
        operator, read, operand = _METHOD_OPERATORS[parts[1]], parts[0], value.args[0].value
    else:
        return None
    read, operand = strip_parens(read), strip_parens(operand)
    if type(read) is not cst.Subscript or code_of(read) != code_of(target) or type(operand) is not cst.Subscript \
            or len(operand.slice) != 1 or type(strip_parens(operand.value)) not in (cst.Name, cst.Attribute):
        return None
    index = operand.slice[0].slice
    if type(index) is not cst.Index or index.star is not None or code_of(strip_parens(index.value)) != code_of(mask):
        return None
    return operator, read, operand


def _may_be_view(value: cst.BaseExpression, name: str) -> bool:
    """An alias or a view of another tensor: ``x``, ``x[:, 0]``, ``x.view(...)``, ``x.permute(...)``.
    A view of the name's own previous value (``img = img[:, :-1]``) is not: no other name of the
    function holds the tensor it views (a caller's argument is assumption (2))."""
    if type(value) in (cst.Subscript, cst.Call):
        parts = (value.value, "") if type(value) is cst.Subscript else method_call(value)
        if parts is None or (type(value) is cst.Call and parts[1] not in _VIEW_METHODS):
            return False
        receiver = strip_parens(parts[0])
        return not (type(receiver) is cst.Name and receiver.value == name)
    if type(value) is cst.Name:
        return value.value not in ("None", "True", "False")
    return type(value) is cst.Attribute


def _selects_with(value: cst.BaseExpression, mask: cst.BaseExpression) -> bool:
    """Whether ``value`` indexes something with the assignment's mask (``a[m] / b[m, None]``,
    ``self.emb(y[m])``): a value per selected row."""
    wanted = code_of(mask)
    for node in _subscripts(value):
        first = node.slice[0].slice
        if type(first) is cst.Index and code_of(strip_parens(first.value)) == wanted:
            return True
    return False


def _subscripts(node: cst.CSTNode) -> list[cst.Subscript]:
    found = [node] if type(node) is cst.Subscript else []
    for child in children(node):
        found += _subscripts(child)
    return found


class _Uses:
    """One in-order walk of a function: is ``name`` read after ``statement`` (or in the loop
    around it), declared global/nonlocal, or used by a nested function or lambda."""

    def __init__(self, function: cst.FunctionDef, name: str, statement: cst.CSTNode) -> None:
        self.name, self.statement = name, statement
        self.declared = self.nested = self.read_after = False
        self._after = False
        self._loops: list[cst.CSTNode] = []
        self._loop_reads: set[int] = set()
        self._statement_loops: list[int] = []
        for child in children(function.body):
            self._visit(child)
        if set(self._statement_loops) & self._loop_reads:
            self.read_after = True

    def _visit(self, node: cst.CSTNode) -> None:
        if node is self.statement:
            self._statement_loops = [id(loop) for loop in self._loops]
            self._after = True
            return
        kind = type(node)
        if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            self.nested = self.nested or mentions_name(node, self.name)
            return
        if kind in (cst.Global, cst.Nonlocal):
            self.declared = self.declared or any(n.name.value == self.name for n in node.names)
            return
        if kind is cst.Name and node.value == self.name:
            self.read_after = self.read_after or self._after
            self._loop_reads.update(id(loop) for loop in self._loops)
            return
        if kind is cst.Attribute:
            self._visit(node.value)  # `x.name` is no read of `name`
            return
        loop = kind in (cst.For, cst.While)
        if loop:
            self._loops.append(node)
        for child in children(node):
            self._visit(child)
        if loop:
            self._loops.pop()


RULES = (BoolMaskAssign,)
