"""A tensor's values sent through NumPy and back (TRT394): the same steps in torch.

``torch.from_numpy(np.flip(x.cpu().numpy(), axis=3).copy())`` (test-time augmentation's horizontal flip in
SSSegmentation) leaves the graph at ``.numpy()``: a traced export records the example's array as a constant.
The rule translates the NumPy steps between the tensor and the constructor that takes the array back, where
every step has a torch equivalent with NumPy's values, dtype and layout, and rewrites the whole into torch
calls on the tensor. Anything outside the table keeps the code as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import argument, code_of, int_value, method_call, not_variables, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

#: Constructors that take a NumPy array back, and whether they copy it (``torch.tensor``) or share its memory.
_CONSTRUCTORS = {"torch.from_numpy": False, "torch.as_tensor": False, "torch.tensor": True, "torch.Tensor": False}
#: The legacy constructor: it shares an array of the default dtype, as ``torch.from_numpy`` does, and copies any other
#: into the default dtype (AdaBins' flip: ``torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy())``).
_DEFAULT_DTYPE = "torch.Tensor"
#: NumPy functions taken -> the names of their array and axis parameters.
_FUNCTIONS = {"numpy.flip": ("m", "axis"), "numpy.fliplr": ("m", ""), "numpy.flipud": ("m", ""),
              "numpy.copy": ("a", ""), "numpy.array": ("object", ""), "numpy.transpose": ("a", "axes"),
              "numpy.maximum.accumulate": ("array", "axis"),
              "numpy.minimum.accumulate": ("array", "axis")}
#: Methods between a tensor and its ``.numpy()`` that keep its values (``.cpu()``: NumPy needs the host).
_PASSING = ("cpu", "detach")

_ASSUMPTION = ("the tensor does not require gradients and holds a dtype NumPy has (the original raises at "
               "`.numpy()` otherwise; the torch steps compute), and it is on the device the steps run on as written")


@dataclass(frozen=True)
class _Steps:
    """A translated NumPy expression: the torch text, and what NumPy's array is: whether it shares the tensor's
    memory (a view), whether it has negative strides (a flip's view: every constructor refuses it), and whether
    the torch text makes new memory (laid out as its input)."""

    text: str
    shares: bool
    negative: bool
    fresh: bool


class NumpyRoundTrip(Rule):
    needs_text = (b".numpy(",)
    #: Names bound to an array the statement before built, while its constructor's argument is read.
    _bound: dict[str, _Steps] = {}
    info = RuleInfo(
        id="TRT394",
        name="numpy-round-trip",
        summary="a tensor's values through NumPy and back (`torch.from_numpy(np.flip(x.cpu().numpy(), 3).copy())`): "
                "a traced export records the example's array as a constant; take the same steps in torch",
        doc="""\
What it finds: `torch.from_numpy(E)`, `torch.as_tensor(E)` or `torch.tensor(E)` (no other argument) where `E` is
built from a tensor's values, `t.numpy()` (with `.cpu()`, `.detach()` or `.data` before it), by NumPy steps that
torch takes with the same values, dtype and layout: `np.flip(a, axis=k)` (also `axis=(j, k)`), `np.fliplr(a)`,
`np.flipud(a)`, `np.transpose(a, axes)` and `a.transpose(...)`, `np.maximum.accumulate(a, axis=k)` and
`np.minimum.accumulate` (running extremes), a basic slice that reverses whole axes (`a[:, :, :, ::-1]`,
`a[..., ::-1]`: NumPy's flip written as a view), `a.copy()`, `np.copy(a)` and `np.array(a)` (one argument: NumPy's
copy in the order of `a`'s strides, as `np.copy`); and the legacy constructor `torch.Tensor(E)`, which shares an
array of the default dtype as `torch.from_numpy` does and copies any other into it (AdaBins' flip:
`torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy())`). SSSegmentation's test-time flip is the case in
real code: `torch.from_numpy(np.flip(images.cpu().numpy(), axis=3).copy())`. Also split over two consecutive
statements through a name, as pose and segmentation code writes its flip test (Simple Baselines:
`input_flipped = np.flip(input.cpu().numpy(), 3).copy()`, then
`input_flipped = torch.from_numpy(input_flipped).cuda()`), where the second statement rebinds the name or nothing
else in the function reads it: the array never escapes. Not reported: any other NumPy step, a flip with no axis,
and a flipped array taken back without a copy (NumPy's negative strides: every constructor raises there, the
original too).

Why it hurts: `.numpy()` reads the tensor's values into Python. The TorchScript exporter warns
("Converting a tensor to a NumPy array") and records the array it got as a constant, so the graph
returns the example's flipped image for every input (or fails where the size differs); the dynamo
exporter stops at `.numpy()`.

The rewrite: the same steps in torch, on the tensor as written before `.numpy()`: `np.flip(a, axis=3)` is
`torch.flip(a, (3,))`, and so is `a[:, :, :, ::-1]` (`a[..., ::-1]` flips axis -1), `np.fliplr` `torch.fliplr`,
`np.transpose(a, axes)` `a.permute(axes)`, `np.maximum.accumulate(a, axis=k)` `torch.cummax(a, k).values`. A copy
after a step that makes new memory (a flip, a running extreme) is that result, made contiguous for `a.copy()`
(`.contiguous()`: torch lays a flip out as its input, `a.copy()` copies in C order); after none,
`.clone(memory_format=torch.contiguous_format)`. Split over two statements, the first binds the torch steps' tensor
and the constructor becomes the rest of the steps on it
(`input_flipped = torch.flip(input.cpu(), (3,)).contiguous()`, `input_flipped = input_flipped.cuda()`).
`np.copy(a)` and `np.array(a)` keep the order of `a`'s strides, as torch's new memory and `.clone()` do;
`torch.Tensor(E)` is the steps then `.to(torch.get_default_dtype())` (the same tensor where the dtype is already
the default one, a converted copy otherwise, as the legacy constructor makes). Where the array still shares the
tensor's memory, `torch.from_numpy` and `torch.as_tensor` share it too (`a.detach()`, `a.detach().permute(...)`),
and `torch.tensor` copies it with its strides (`.clone()`).

Fix safety: unsafe; the assumption: {assumption}. Values, dtype and shape are NumPy's where the original
runs, and so are the strides (a running extreme of a non-contiguous array aside: NumPy may lay its result out
as the input, torch contiguously; and the stride of an axis of size 1, along which no element lies, where a copy
of new memory is `contiguous()`: torch keeps the one its input had there).

TensorRT versions: all (the graph was wrong before TensorRT saw it).""".format(assumption=_ASSUMPTION),
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example("import numpy as np\n\n"
                    "flipped = torch.from_numpy(np.flip(images.cpu().numpy(), axis=3).copy())\n",
                    "import numpy as np\n\n"
                    "flipped = torch.flip(images.cpu(), (3,)).contiguous()\n", unsafe=True),
            Example("import numpy as np\n\n"
                    "last = torch.as_tensor(np.maximum.accumulate(idx.numpy(), axis=2))\n",
                    "import numpy as np\n\n"
                    "last = torch.cummax(idx, 2).values\n", unsafe=True),
            Example("import numpy as np\n\n"
                    "shared = torch.from_numpy(np.transpose(x.numpy(), (0, 2, 1)))\n",
                    "import numpy as np\n\n"
                    "shared = x.detach().permute(0, 2, 1)\n", unsafe=True),
        ),
        references=(
            "https://numpy.org/doc/stable/reference/generated/numpy.flip.html",
            "https://pytorch.org/docs/stable/generated/torch.flip.html",
            "https://pytorch.org/docs/stable/generated/torch.cummax.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#limitations",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        constructor = self.context.refers_to(node.func, *_CONSTRUCTORS)
        if constructor is None:
            return
        copies = _CONSTRUCTORS[constructor]
        steps = self._steps(node.args[0].value, detached=not copies)
        if steps is None or steps.negative:
            return  # another step, or a flip's negative strides: the constructor raises, and the original with it
        # What shares the tensor's memory: `torch.from_numpy` shares it too (the leaf detached), `torch.tensor`
        # copies it, with NumPy's strides (`clone` keeps them).
        text = f"{steps.text}.clone()" if steps.shares and copies else steps.text
        text = _in_dtype(text, constructor)
        short = code_of(node.args[0].value).strip()
        self.report(node, f"`{short}` takes a tensor's values through NumPy and back: a traced export records the "
                          "example's array as a constant; the same steps in torch keep them in the graph "
                          f"(unsafe: assumes {_ASSUMPTION})",
                    Fix({node: cst.parse_expression(text)}, safety=Safety.UNSAFE))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """The round trip split over two consecutive statements through a name, as pose and segmentation code
        writes its test-time flip: ``a = np.flip(x.cpu().numpy(), 3).copy()`` and then ``a = torch.from_numpy(a)
        .cuda()`` (or ``model(torch.from_numpy(a.copy()))``). Taken where the name is read nowhere else in the
        function (the second statement rebinds it, or nothing else reads it): the array never escapes, so the
        first statement can bind the torch steps' tensor instead, and the constructor becomes the steps on it."""
        function = self.context.function
        body = node.body
        for first, second in zip(body, body[1:]):
            name, value = _single_assignment(first)
            target, later = _single_assignment(second)
            if name is None or target is None or value is None or later is None:
                continue
            if "numpy" not in code_of(value) or _reads(later, name) != 1:
                continue
            built = self._steps(value, True)
            if built is None:
                continue
            # The second statement rebinds the name: before the first and after the second it is a tensor in both
            # programs (a loop's next turn included). Else nothing else in the function may read it.
            if target != name and (function is None or _reads(function, name) != 2 + _reads(value, name)):
                continue
            self._take_split(first, value, later, name, built)

    def _take_split(self, first: cst.CSTNode, value: cst.BaseExpression, later: cst.BaseExpression, name: str,
                    built: _Steps) -> None:
        calls = [c for c in _calls(later) if len(c.args) == 1 and c.args[0].keyword is None and not c.args[0].star
                 and _reads(c.args[0].value, name) == 1 and self.context.refers_to(c.func, *_CONSTRUCTORS)]
        if len(calls) != 1:
            return
        constructor = self.context.refers_to(calls[0].func, *_CONSTRUCTORS)
        copies = _CONSTRUCTORS[constructor]
        self._bound = {name: _Steps(name, built.shares, built.negative, built.fresh)}
        try:
            steps = self._steps(calls[0].args[0].value, detached=not copies)
        finally:
            self._bound = {}
        if steps is None or steps.negative:
            return
        text = _in_dtype(f"{steps.text}.clone()" if steps.shares and copies else steps.text, constructor)
        short = code_of(value).strip()
        self.report(value, f"`{short}` takes a tensor's values through NumPy, and `{code_of(calls[0]).strip()}` the "
                           "array back: a traced export records the example's array as a constant; the same steps in "
                           f"torch keep them in the graph (unsafe: assumes {_ASSUMPTION})",
                    Fix({value: cst.parse_expression(built.text), calls[0]: cst.parse_expression(text)},
                        safety=Safety.UNSAFE, covers=True))

    # -- the NumPy steps ------------------------------------------------------------------

    def _steps(self, expr: cst.BaseExpression, detached: bool) -> _Steps | None:
        """``expr`` as torch steps on the tensor (``.detach()`` after it where ``detached``: the result then shares
        its memory as a new tensor that needs no gradient), or None where a step has no equivalent here."""
        if type(expr) is cst.Name and expr.value in self._bound:
            return self._bound[expr.value]  # the array the statement before built (see `visit_IndentedBlock`)
        if type(expr) is cst.Subscript:
            # `a[:, :, ::-1]`, `a[..., ::-1]`: NumPy's view with a negative stride, the flip of those axes.
            dims = _reversed_axes(expr)
            inner = None if dims is None else self._steps(expr.value, False)
            return None if inner is None else \
                _Steps(f"torch.flip({inner.text}, {_tuple(dims)})", inner.shares, True, True)  # type: ignore[arg-type]
        function = self.context.refers_to(expr.func, *_FUNCTIONS) if type(expr) is cst.Call else None
        # `np.transpose(a, axes)` reads as a method call on `np`: a NumPy function is not a method.
        parts = method_call(expr) if type(expr) is cst.Call and function is None else None
        if parts is not None and parts[1] == "numpy" and not expr.args:  # type: ignore[attr-defined]
            tensor = self._tensor(parts[0])
            if tensor is None:
                return None
            return _Steps(f"{tensor}.detach()" if detached and not tensor.endswith(".detach()") else tensor,
                          True, False, False)
        if parts is not None and parts[1] == "copy" and not expr.args:  # type: ignore[attr-defined]
            inner = self._steps(parts[0], False)
            return None if inner is None else _copied(inner)
        if parts is not None and parts[1] == "transpose":
            inner = self._steps(parts[0], detached)
            axes = [int_value(a.value) for a in expr.args if not a.keyword and not a.star]  # type: ignore[attr-defined]
            if inner is None or not axes or len(axes) != len(expr.args) or None in axes:  # type: ignore[attr-defined]
                return None
            return _Steps(f"{inner.text}.permute({', '.join(map(str, axes))})", inner.shares, inner.negative, False)
        if function is None or any(a.star for a in expr.args):  # type: ignore[union-attr]
            return None
        array = argument(expr, 0, _FUNCTIONS[function][0])
        if array is None:
            return None
        if function in ("numpy.copy", "numpy.array"):
            inner = self._steps(array.value, False)
            return None if inner is None or len(expr.args) != 1 else _copied(inner, keep_layout=True)
        if function in ("numpy.fliplr", "numpy.flipud"):
            inner = self._steps(array.value, False)
            if inner is None or len(expr.args) != 1:
                return None
            return _Steps(f"torch.{function.rsplit('.', 1)[1]}({inner.text})", inner.shares, True, True)
        axis = argument(expr, 1, _FUNCTIONS[function][1])
        if axis is None or len(expr.args) != 2:
            return None
        dims = _axes(axis.value)
        if dims is None:
            return None
        if function == "numpy.transpose":
            inner = self._steps(array.value, detached)
            return None if inner is None else \
                _Steps(f"{inner.text}.permute({', '.join(map(str, dims))})", inner.shares, inner.negative, False)
        inner = self._steps(array.value, False)
        if inner is None:
            return None
        if function == "numpy.flip":
            return _Steps(f"torch.flip({inner.text}, {_tuple(dims)})", inner.shares, True, True)
        if len(dims) != 1:
            return None
        extreme = "cummax" if "maximum" in function else "cummin"
        return _Steps(f"torch.{extreme}({inner.text}, {dims[0]}).values", False, False, True)

    def _tensor(self, receiver: cst.BaseExpression) -> str | None:
        """The tensor before ``.numpy()``, as written (its ``.cpu()``/``.detach()``/``.data`` kept)."""
        node = receiver
        while True:
            parts = method_call(node) if type(node) is cst.Call else None
            if parts is not None and parts[1] in _PASSING and not node.args:  # type: ignore[attr-defined]
                node = parts[0]
            elif type(node) is cst.Attribute and node.attr.value == "data":
                node = node.value
            else:
                break
        if type(node) not in (cst.Name, cst.Attribute, cst.Subscript, cst.Call):
            return None
        return code_of(receiver).strip()


def _in_dtype(text: str, constructor: str) -> str:
    """The torch steps' tensor as ``constructor`` makes it: the legacy ``torch.Tensor`` in the default dtype."""
    return f"{text}.to(torch.get_default_dtype())" if constructor == _DEFAULT_DTYPE else text


def _single_assignment(statement: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    """``name = value`` alone on its line: the name and the value."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None, None
    assign = statement.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return None, None
    return assign.targets[0].target.value, assign.value


def _reads(tree: cst.CSTNode, name: str) -> int:
    """How often ``name`` occurs in ``tree`` as a variable, every binding and read (not as an attribute's or a
    keyword argument's name)."""
    skip = not_variables(tree)
    return sum(1 for n in walk(tree) if type(n) is cst.Name and n.value == name and id(n) not in skip)


def _calls(tree: cst.CSTNode) -> list[cst.Call]:
    """The calls in ``tree`` that run once when it runs: none inside a comprehension or a lambda (a constructor
    there would make a tensor per turn, of the one array: several copies, or several tensors sharing it)."""
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ListComp(self, node: cst.ListComp) -> bool:
            return False

        def visit_SetComp(self, node: cst.SetComp) -> bool:
            return False

        def visit_DictComp(self, node: cst.DictComp) -> bool:
            return False

        def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
            return False

    tree.visit(_Calls())
    return found


def _copied(inner: _Steps, keep_layout: bool = False) -> _Steps:
    """A NumPy copy of ``inner``: ``a.copy()`` in C order, ``np.copy(a)`` (``keep_layout``) in the order of its
    strides, as torch lays out a step's new memory (a flip of a transposed tensor) and ``clone`` copies. A
    step's new memory is made contiguous for C order (itself where it is already)."""
    if keep_layout:
        return _Steps(inner.text if inner.fresh else f"{inner.text}.clone()", False, False, True)
    if inner.fresh:
        return _Steps(f"{inner.text}.contiguous()", False, False, True)
    return _Steps(f"{inner.text}.clone(memory_format=torch.contiguous_format)", False, False, True)


def _reversed_axes(node: cst.Subscript) -> list[int] | None:
    """The axes a basic slice ``a[:, ::-1]`` reverses: every element a whole slice (``:``) or a whole reversed one
    (``::-1``), at least one reversed, and at most one ``...``, first or last (then the axes after it count from
    the end: ``a[..., ::-1]`` reverses axis -1). Else None. Where the array has fewer axes than the elements,
    NumPy raises IndexError and ``torch.flip`` too (a 0-d array aside, as for ``np.flip``)."""
    kinds = []
    for element in node.slice:
        part = element.slice
        if type(part) is cst.Index and type(part.value) is cst.Ellipsis and part.star is None:
            kinds.append("...")
        elif type(part) is cst.Slice and part.lower is None and part.upper is None:
            kinds.append("reversed" if int_value(part.step) == -1 else ":" if part.step is None else "other")
        else:
            return None
    if "other" in kinds or "reversed" not in kinds or kinds.count("...") > 1 \
            or "..." in kinds[1:-1]:
        return None
    if kinds[0] == "..." and len(kinds) > 1:
        after = kinds[1:]
        return [i - len(after) for i, kind in enumerate(after) if kind == "reversed"]
    return [i for i, kind in enumerate(kinds) if kind == "reversed"]


def _tuple(dims: list[int]) -> str:
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(map(str, dims))})"


def _axes(value: cst.BaseExpression) -> list[int] | None:
    """An integer, or a tuple or list of integers."""
    single = int_value(value)
    if single is not None:
        return [single]
    if type(value) in (cst.Tuple, cst.List):
        found = [int_value(e.value) for e in value.elements]  # type: ignore[attr-defined]
        return None if not found or None in found else found  # type: ignore[return-value]
    return None


RULES = (NumpyRoundTrip,)
