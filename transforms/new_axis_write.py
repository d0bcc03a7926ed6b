"""Writes through a subscript holding ``None`` (``T[:, :3, 3, None] = t``) that the TorchScript exporter drops (TRT355).

PyTorch reads ``None`` in a subscript as a new axis of size 1: ``T[:, :3, 3, None]`` is the
``(b, 3)`` slice ``T[:, :3, 3]`` with a unit axis appended, and a write into it changes the same
elements of ``T``. The TorchScript exporter (torch 2.13, opset 17, static or dynamic axes)
records no node for such a write, plain or augmented, and gives no warning: the graph computes
with the tensor as it was before the write. The rewrite removes the ``None`` s from the subscript
and hands the value, through an inserted helper, as the write into the subscript with them would
have taken it, its new axes selected away (``trtcodemod/helpers/indexing.py``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, short_code
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.shape_cache import _statement_names

HELPER = "_trt_new_axes_value"


def _is_none(element: cst.SubscriptElement) -> bool:
    sl = element.slice
    return type(sl) is cst.Index and sl.star is None and type(sl.value) is cst.Name and sl.value.value == "None"


def _is_ellipsis(element: cst.SubscriptElement) -> bool:
    return type(element.slice) is cst.Index and type(element.slice.value) is cst.Ellipsis


def _has_call(node: cst.CSTNode) -> bool:
    """Does evaluating ``node`` call anything (so that evaluating it twice could do more than once)?"""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) in (cst.Call, cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda):
            return True
        stack.extend(current.children)
    return False


def new_axes(subscript: cst.Subscript, ints: frozenset[str] = frozenset()) -> list[int] | None:
    """The axes the ``None`` s of ``subscript`` make in the indexed view, in the order to select them away
    (non-negative ones from the last, then negative ones from the first: each selection leaves the axes
    still to take where they were), when every index is a slice, an integer literal, a name of ``ints``
    (a Python int), an Ellipsis or ``None`` (basic indexing: no index tensor moves the new axes); else None."""
    elements = list(subscript.slice)
    if sum(_is_ellipsis(e) for e in elements) > 1:
        return None
    for element in elements:
        sl = element.slice
        if type(sl) is cst.Slice or _is_none(element) or _is_ellipsis(element):
            continue
        if type(sl) is cst.Index and sl.star is None and (int_value(sl.value) is not None or
                                                          type(sl.value) is cst.Name and sl.value.value in ints):
            continue
        return None
    ellipsis = next((i for i, e in enumerate(elements) if _is_ellipsis(e)), None)

    def makes_axis(element: cst.SubscriptElement) -> bool:
        return type(element.slice) is cst.Slice or _is_none(element)

    forward, backward = [], []
    for i, element in enumerate(elements):
        if not _is_none(element):
            continue
        if ellipsis is None or i < ellipsis:
            forward.append(sum(makes_axis(e) for e in elements[:i]))
        else:  # after the Ellipsis the view's axes are counted from its end
            backward.append(-sum(makes_axis(e) for e in elements[i:]))
    return sorted(forward, reverse=True) + sorted(backward)


def without_new_axes(subscript: cst.Subscript) -> cst.Subscript:
    """``subscript`` with its ``None`` s removed (``x[None] -> x[...]``)."""
    kept = [e for e in subscript.slice if not _is_none(e)]
    if not kept:
        kept = [cst.SubscriptElement(cst.Index(cst.Ellipsis()))]
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return subscript.with_changes(slice=kept)


def _selects_all(subscript: cst.Subscript) -> bool:
    """Do the indices of ``subscript`` other than ``None`` select the whole of what it indexes: only
    ``:`` (no bounds, no step) and at most one Ellipsis?"""
    for element in subscript.slice:
        sl = element.slice
        if _is_none(element) or _is_ellipsis(element):
            continue
        if type(sl) is not cst.Slice or sl.lower is not None or sl.upper is not None or sl.step is not None:
            return False
    return True


def _range_target(loop: cst.For) -> str | None:
    """``i`` of ``for i in range(...):`` when nothing in the loop's body binds ``i`` again: an int at every
    statement of the body (``range`` yields ints only)."""
    if type(loop.target) is not cst.Name or type(loop.iter) is not cst.Call or type(loop.iter.func) is not cst.Name \
            or loop.iter.func.value != "range":
        return None
    name = loop.target.value
    return None if name in _statement_names(loop.body) else name


def _number_literal(value: cst.BaseExpression) -> bool:
    if type(value) is cst.UnaryOperation and type(value.operator) in (cst.Minus, cst.Plus):
        value = value.expression
    return type(value) in (cst.Integer, cst.Float) or (type(value) is cst.Name and value.value in ("True", "False"))


class SubscriptWriteRule(RuntimeScopeRule):
    """A run-time-scope rule on assignments into subscripts (shared by TRT355 and TRT388): it hands each
    single-target assignment to ``_write`` and knows which names hold a Python int at a statement (the targets
    of the ``for ... in range(...)`` loops of its function around it)."""

    requires = (TensorEvidence, ObservedFacts)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._evidence = self.provider(TensorEvidence)
        self._observed = self.provider(ObservedFacts)
        #: the loops around the statement visited, innermost last; a function starts afresh (None).
        self._loops: list[cst.For | None] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1:
            self._write(node.targets[0].target, node.value, assigned=True)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._write(node.target, node.value, assigned=True)

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression, assigned: bool) -> None:
        raise NotImplementedError

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._loops.append(None)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._loops.pop()

    def _loop_ints(self) -> frozenset[str]:
        """Names that hold a Python int here: the targets of the ``for ... in range(...)`` loops of this
        function around the write (POET's matcher writes ``cost_deltas[:, i, None] = ...`` in ``for i in
        range(num_persons)``), none of them bound again in its body."""
        names: set[str] = set()
        for loop in reversed(self._loops):
            if loop is None:
                break
            name = _range_target(loop)
            if name is not None:
                names.add(name)
        return frozenset(names)


class NewAxisWrite(SubscriptWriteRule):
    needs_text = (b"None",)
    info = RuleInfo(
        id="TRT355",
        name="new-axis-write",
        summary="a write through a subscript holding `None` (`T[:, :3, 3, None] = t`) is dropped by the TorchScript "
                "exporter; the same write without the `None`",
        doc="""\
What it finds: an assignment, plain or augmented, into a subscript that holds `None` (a new axis),
in run-time code of a file that imports torch: `T[:, :3, 3, None] = t` (monodepth2's
`get_translation_matrix`, copied into manydepth and many pose networks since),
`cumwidths[..., 0, None] = left` (stribor's rational-quadratic spline), `x[:, None] += v`.

Why it hurts: PyTorch reads `None` as a new axis of size 1, so the write changes the elements
of the slice without it. The TorchScript exporter (torch 2.13, opset 17, with or without
dynamic axes) records no node for the write and says nothing: the exported graph computes with
the tensor as it was before (monodepth2's pose network exports a 4x4 transform whose
translation column stays zero). The dynamo exporter records the write.

The rewrite: the `None` s leave the subscript (`T[:, :3, 3]`; `x[None]` becomes `x[...]`) and
the value becomes `_trt_new_axes_value(t, T[:, :3, 3, None], [2])`, an inserted helper that
does to the value what the write into the subscript with the `None` s does (an assignment drops
leading size-1 axes the slice lacks, an augmented write, an in-place operation on the slice, drops
none: its call passes `False`; both broadcast the value to the slice) and then selects the new axes,
of size 1, at 0.
A number literal is written as it is. The exporter records the write without `None` as any
slice write (a `ScatterND`, as TRT203 says). Where what is written is a view of a view whose last
subscript selects all of it apart from the `None` s (`x[:, s][:, None] = v`, the differentiable MUSIC
peak of ShlezingerLab/AI-Subspace-Methods), the write goes to the inner view, `x[:, s] = ...` (the same
elements; the exporter stops at `x[:, s][:] = v`).

Fix safety: safe. The same elements of the same tensor receive the same values, in place as
before (nothing is rebound: an attribute or a view written keeps receiving the write), in eager
mode, `torch.jit.script` (the helper scripts), `torch.fx`, `torch.compile` and both exporters;
gradients flow to the value through a broadcast and a selection, which sum as the write's
broadcast does; dtype conversion, type promotion of an augmented write and the in-place
semantics are the write's own. A value that does not broadcast to the slice raises
`RuntimeError` as before (from `expand_as` or `reshape`, with another message). The fix is
offered where the indices are slices, integer literals, an Ellipsis, `None` and the variables of
the `for i in range(...)` loops around the write that their bodies do not bind again (ints; an index
tensor moves the new axes elsewhere), nothing in the subscript calls a function (it is evaluated twice),
and the value is a number literal or visibly a tensor (a name a recorded run saw hold one, at the
write or at a torch call on its line, counts):
a Python number held by a name would not script through the helper. Others are reported without
a fix. The subscript without the `None` s is read once more per write (a view, no copy).

TensorRT versions: all (the exporter drops the write whatever TensorRT reads the graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def translation_matrix(t: torch.Tensor):\n"
                "    T = torch.zeros(t.shape[0], 4, 4)\n"
                "    T[:, 3, 3] = 1\n"
                "    T[:, :3, 3, None] = t.view(-1, 3, 1)\n"
                "    return T\n",
                "def translation_matrix(t: torch.Tensor):\n"
                "    T = torch.zeros(t.shape[0], 4, 4)\n"
                "    T[:, 3, 3] = 1\n"
                "    T[:, :3, 3] = _trt_new_axes_value(t.view(-1, 3, 1), T[:, :3, 3, None], [2])\n"
                "    return T\n",
            ),
            Example(
                "def pin_ends(knots: torch.Tensor, left: torch.Tensor):\n"
                "    knots[..., 0, None] = left\n"
                "    knots[..., -1, None] += left * 2\n"
                "    return knots\n",
                "def pin_ends(knots: torch.Tensor, left: torch.Tensor):\n"
                "    knots[..., 0] = _trt_new_axes_value(left, knots[..., 0, None], [-1])\n"
                "    knots[..., -1] += _trt_new_axes_value(left * 2, knots[..., -1, None], [-1], False)\n"
                "    return knots\n",
            ),
            Example("def put(x: torch.Tensor, k: int, v: torch.Tensor):\n"
                    "    x[:, k, None] = v\n    return x\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensor_view.html",
            "https://github.com/nianticlabs/monodepth2/blob/master/layers.py",
        ),
    )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._write(node.target, node.value, assigned=False)

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression, assigned: bool) -> None:
        if type(target) is not cst.Subscript or not self._torch or in_inserted_helper(self):
            return
        if not any(_is_none(e) for e in target.slice):
            return
        message = (f"a write into `{short_code(target, 40)}` (a subscript with `None`, a new axis): the TorchScript "
                   "exporter drops it from the graph without a warning")
        axes = new_axes(target, self._loop_ints())
        why = None
        if axes is None:
            why = "an index that is not a slice, an integer literal, a `range` loop's variable, an Ellipsis or " \
                  "None (it may be a tensor)"
        elif _has_call(target):
            why = "the subscript calls a function (the fix evaluates it twice)"
        elif not _number_literal(value) and not self._evidence.evident(value) and \
                not self._observed.written_tensor(target, value):
            why = "the value is not visibly a tensor or a number literal"
        if why is not None:
            self.found(target, f"{message}; not rewritten: {why}")
            return
        assert axes is not None
        replacements: dict[cst.CSTNode, cst.CSTNode] = {target: without_new_axes(target)}
        helpers: tuple[str, ...] = ()
        if not _number_literal(value):
            if type(target.value) is cst.Subscript and _selects_all(target):
                # `x[:, s][:, None] = v` (AI-Subspace-Methods' MUSIC): the write into the whole view is the write
                # into `x[:, s]`, which the exporter takes where it fails on the view of a view (`x[:, s][:] = v`:
                # an internal assert). The helper's argument reads the subscript with the `None` s first, so an
                # index error of the original is raised as before.
                replacements[target] = target.value.deep_clone()
            axes_list = cst.List([cst.Element(cst.Integer(str(a)) if a >= 0 else
                                              cst.UnaryOperation(cst.Minus(), cst.Integer(str(-a))))
                                  for a in axes])
            args = [cst.Arg(value), cst.Arg(target.deep_clone()), cst.Arg(axes_list)]
            if not assigned:  # an in-place operation on the view: no leading axis of the value is dropped
                args.append(cst.Arg(cst.Name("False")))
            replacements[value] = cst.Call(cst.Name(HELPER), args)
            helpers = (HELPER,)
        self.found(target, f"{message}; written without the `None` s, the value taken as the write would take it",
                   Fix(replacements, helpers=helpers))


RULES = (NewAxisWrite,)
