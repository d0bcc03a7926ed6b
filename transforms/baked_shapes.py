"""Sizes the TorchScript trace turns into constants (TRT711–TRT713).

Under the TorchScript exporter (``torch.onnx.export(..., dynamo=False)``), ``x.shape[i]``
and ``x.size(i)`` are traced 0-d tensors: arithmetic on them stays in the graph, but any
Python code that needs a real number (NumPy, ``min``/``max``, ``int()``, ``math.*``, an
``if``) reads the example's value and the graph keeps it as a constant. The rules report
those places in run-time code (every function but construction code, see
:mod:`trtcodemod.transforms._runtime_scope`):

- TRT711 ``numpy-on-size``: NumPy called on tensor sizes (a YOLO grid built with
  ``np.meshgrid(np.arange(w), ...)``); a whole computation that ends as a tensor is
  rewritten into torch (unsafe: sizes assumed non-negative; :mod:`._numpy_torch`).
- TRT712 ``python-math-on-size``: ``min``/``max``/``int``/``float``/``round``/``math.*``
  on sizes; ``int(s)``, ``math.ceil(s / k)``, ``math.floor(s / k)``, ``int(s / k)`` are
  rewritten to integer arithmetic (unsafe: the value is assumed to be a tensor).
- TRT713 ``size-guard``: ``if`` on an emptiness test or a count of a tensor: detect only.

The opposite mistake, shapes computed from tensor values, is in ``value_shapes``
(TRT714, TRT715). What counts as a tensor and as a size is decided in
:mod:`trtcodemod.transforms._size_facts`. ``.item()`` and ``int(t)`` on tensor values are
TRT702's; ``len(t)`` itself is TRT704's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from trtcodemod.astutil import (
    bound_names, children, code_of, has_star_args, helper_call, int_value, method_call, short_code,
)
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import scope_bindings
from trtcodemod.transforms._numpy_torch import CONSUMERS, Array, Converter
from trtcodemod.transforms._size_facts import TS_PITFALLS as _TS_PITFALLS
from trtcodemod.transforms._size_facts import NUMBER_AS_TENSOR_FAILURES
from trtcodemod.transforms._size_facts import SizeRule as _SizeRule

# --- TRT711 ------------------------------------------------------------------------------


_NUMPY_FORMS = {
    "arange": "torch.arange(...) (int64 for integer arguments, like NumPy)",
    "linspace": "torch.linspace(..., dtype=torch.float64) (NumPy computes in float64; pass float32 if that is "
                "what the model uses)",
    "meshgrid": "torch.meshgrid(..., indexing=\"xy\") (NumPy's default order is \"xy\", torch's is \"ij\")",
    "zeros": "torch.zeros(...)",
    "ones": "torch.ones(...)",
    "full": "torch.full(...)",
    "prod": "math.prod is no better: multiply the sizes (`h * w`) or use `x.numel()`",
    "indices": "torch.meshgrid(torch.arange(h), torch.arange(w), indexing=\"ij\")",
}


class NumpyOnSize(_SizeRule):
    needs_text = (b"numpy",)
    info = RuleInfo(
        id="TRT711",
        name="numpy-on-size",
        summary="NumPy called on tensor sizes in forward: the export bakes the array for the traced size",
        doc="""\
What it finds: a NumPy function (`np.arange`, `np.linspace`, `np.meshgrid`, `np.zeros`,
`np.prod`...) called in forward code with a tensor's size among its arguments: `x.shape[i]`,
`x.size(i)`, `x.numel()`, `len(x)` of a tensor, a local assigned from them
(`h, w = x.shape[2:]`), or arithmetic on those (`w - 1`). Typical: a YOLO-style grid,
`torch.from_numpy(np.stack(np.meshgrid(np.arange(w), np.arange(h)), -1))`.

Why it hurts: the TorchScript exporter traces tensor operations only. NumPy needs real
numbers, so the traced size is read as a Python value and the array is computed once; the
exported graph holds it as a constant of the example's size. With a dynamic height or
width, ONNX Runtime and TensorRT fail to broadcast at the first other size, or the grid
is silently wrong where the shapes happen to broadcast. Measured with torch 2.13: a
`np.meshgrid`/`np.arange` grid exported with dynamic H and W becomes a `Constant` and the
model fails on a second input size; the same grid written with `torch.arange` /
`torch.meshgrid` exports as `Shape` → `Range` and matches on every size. The dynamo
exporter (`dynamo=True`, strict mode) can trace some NumPy code into torch operations, but
it is not a reliable fallback (its non-strict mode, tried first, fails on the same code).

What to do: build the array with torch on the size itself: `torch.arange(w)`,
`torch.linspace(0, w - 1, w)`, `torch.meshgrid(..., indexing="xy")` (NumPy's default index
order), then `torch.stack`. Mind the dtypes: NumPy's integer ranges are int64 and its
`linspace` is float64, and `torch.tensor`/`torch.from_numpy` keep them; torch's float
default is float32.

The rewrite: a whole NumPy computation whose result becomes a tensor in the same function
(through `torch.from_numpy`, `torch.tensor(..., dtype=)` or `torch.as_tensor(..., dtype=)`)
is rewritten into torch, the wrapper dropped, when every step has an exact torch form:
`np.arange` (integer arguments; int64), `np.linspace` (float64 unless a float `dtype=`),
`np.meshgrid` (its `indexing`, "xy" by default, written out), `np.stack` (same dtypes),
`np.zeros`/`np.ones` (float64), `np.indices` (int64), `.astype(t)` → `.to(torch.t)`, and
`+`/`-`/`*` with integers (and floats on float arrays). NumPy locals of the function
(`yv, xv = np.meshgrid(...)`) are rewritten with it when the computation is their only
reader. Scalars must be integers: sizes, integer literals and arithmetic on them. The rest
(an array returned or printed as NumPy, a float with an integer array, `np.prod`, a
`device=`) is named, not rewritten. A size is a tensor's as described above; inside
`migrate` or with `--facts`, also `o.size(i)`/`o.shape[i]` of an unannotated `o` (a helper's
parameter, as in YOLO's `make_grid(output)`) where the export's `TracerWarning` was raised at
the NumPy call's line, or where the recorded run saw `o` hold a tensor at a torch call on its
line (`output.size(2)`).

Device: the torch form is created on the CPU, where the NumPy array was, so the program
is the same; the guidance's `device=x.device` (no copy in the graph on a GPU) is a manual
step after review.

Fix safety: unsafe. Assumptions: (1) the arguments of `arange`, `zeros`, `ones`, `indices`
and `linspace`'s count are not negative, and `arange(a, b)` has `b >= a`: NumPy returns an
empty array there, torch raises. A bare size is never negative, but arithmetic on one
(`np.arange(w - 1)` at `w = 0`) can be. (2) `linspace` values: torch computes the upper half
from the end point, so where the step is inexact a value can differ from NumPy's in the last
bit (measured identical for `linspace(0, n - 1, n)`, n < 200). (3) The size is a tensor's,
as the evidence says. dtypes, shapes and the CPU placement are kept; a rewritten local now
holds a tensor (it has no other reader). `migrate` tries the fix where a baked value is
located at its line and keeps it only when the rewritten model is verified equivalent on
every input set. Matters for the TorchScript exporter, on every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the sizes are a tensor's, the counts given to `arange`/`zeros`/`ones`/`linspace` are not negative, and "
            "torch's `linspace` values are NumPy's (they can differ in the last bit)"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "import numpy as np\n\n"
                "class Detect(nn.Module):\n"
                "    def forward(self, p):\n"
                "        ny, nx = p.shape[2:]\n"
                "        yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing=\"ij\")\n"
                "        grid = torch.from_numpy(np.stack((xv, yv), 2)).float()\n"
                "        return p.permute(0, 2, 3, 1)[..., :2] + grid\n",
                "import numpy as np\n\n"
                "class Detect(nn.Module):\n"
                "    def forward(self, p):\n"
                "        ny, nx = p.shape[2:]\n"
                "        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing=\"ij\")\n"
                "        grid = torch.stack((xv, yv), 2).float()\n"
                "        return p.permute(0, 2, 3, 1)[..., :2] + grid\n",
                unsafe=True,
            ),
            Example(
                "import numpy as np\n\n"
                "class Ramp(nn.Module):\n"
                "    def forward(self, x):\n"
                "        w = x.size(-1)\n"
                "        return x * torch.tensor(np.linspace(0, w - 1, w), dtype=x.dtype)\n",
                "import numpy as np\n\n"
                "class Ramp(nn.Module):\n"
                "    def forward(self, x):\n"
                "        w = x.size(-1)\n"
                "        return x * torch.linspace(0, w - 1, w, dtype=torch.float64).to(x.dtype)\n",
                unsafe=True,
            ),
            Example(
                "import numpy as np\n\n"
                "class Prior(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return np.zeros((x.shape[0], 4))\n"
            ),
        ),
        references=(_TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.meshgrid.html",
                    "https://pytorch.org/docs/stable/generated/torch.arange.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._scopes_np: list[_Function] = []

    def _numpy_name(self, func: cst.BaseExpression) -> str | None:
        for qualified in self.context.qualified_names(func):
            if qualified.startswith("numpy."):
                return qualified
        return None

    def _short_numpy(self, expr: cst.BaseExpression) -> str | None:
        name = self._numpy_name(expr)
        return name.rsplit(".", 1)[-1] if name is not None and name.count(".") == 1 else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._scopes_np.append(_Function(node, self.context.torch_name()))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        function = self._scopes_np.pop()
        self._report(function)
        super().leave_FunctionDef(original_node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._scopes_np and len(node.targets) == 1 and self.active():
            self._scopes_np[-1].assigns.append(node)

    def _sizes_in(self, call: cst.Call) -> set[int]:
        """The ids of the size nodes among ``call``'s arguments (nested NumPy calls count on
        their own). A size of an object not shown to be a tensor counts where the observed
        export warned at this line that a traced value became a Python or NumPy one."""
        found: set[int] = set()
        traced: bool | None = None
        stack: list[cst.CSTNode] = [arg.value for arg in call.args]
        while stack:
            node = stack.pop()
            if type(node) in (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp):
                continue
            if type(node) is cst.Call and self._numpy_name(node.func):
                continue  # a NumPy call inside is visited on its own
            if isinstance(node, cst.BaseExpression):
                if self.size_of(node) is not None:
                    found.add(id(node))
                    continue
                if self._loose_size(node):
                    traced = self.traced_at(call) if traced is None else traced
                    if traced:
                        found.add(id(node))
                        continue
            stack.extend(children(node))
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self._scopes_np or not self.active():
            return
        function = self._scopes_np[-1]
        wrapper = self.context.refers_to(node.func, *CONSUMERS)
        if wrapper is not None:
            function.consumers.append((node, wrapper))
            return
        if self._numpy_name(node.func) is None:
            return
        sizes = self._sizes_in(node)
        if sizes:
            function.sizes.update(sizes)
            function.found.append((node, self.current_method(), self.runtime.in_function()))

    # --- the rewrite: whole NumPy computations that end as tensors ----------------------------
    def _converter(self, function: _Function, arrays: dict[str, Array]) -> Converter:
        return Converter(function.torch, self._short_numpy, lambda e: id(e) in function.sizes, arrays)

    def _roots(self, function: _Function, excluded: set[str]) -> tuple[list[_Root], dict[str, Array]]:
        """Converted NumPy locals (assignments) and wrappers, with the names each reads."""
        roots: list[_Root] = []
        arrays: dict[str, Array] = {}
        for assign in function.assigns:
            target = assign.targets[0].target
            names = bound_names(target)
            if not names or any(n in excluded or len(function.bindings.get(n, ())) != 1 for n in names):
                continue
            convert = self._converter(function, dict(arrays))
            if type(target) is cst.Name:
                made = convert.array(assign.value)
                if made is None:
                    continue
                text, outputs = made.text, {target.value: Array(target.value, made.dtype, made.ndim, made.fresh)}
            elif type(target) in (cst.Tuple, cst.List) and all(type(e.value) is cst.Name for e in target.elements):
                grid = convert.grid(assign.value)
                if grid is None or len(grid[1]) != len(names):
                    continue
                text = grid[0]
                outputs = {n: Array(n, item.dtype, item.ndim, fresh=False) for n, item in zip(names, grid[1])}
            else:
                continue
            arrays.update(outputs)
            roots.append(_Root(assign.value, text, set(outputs), convert.used, convert.calls))
        for call, wrapper in function.consumers:
            convert = self._converter(function, arrays)
            text = convert.consumer(call, wrapper)
            if text is not None:
                roots.append(_Root(call, text, set(), convert.used, convert.calls))
        return roots, arrays

    def _fixes(self, function: _Function) -> dict[int, Fix]:
        """id(first NumPy call fed by a size of a rewritten computation) → its fix."""
        function.bindings = scope_bindings(function.node)
        excluded: set[str] = set()
        while True:
            roots, arrays = self._roots(function, excluded)
            read = Counter(name.value for root in roots for name in root.reads)
            # A NumPy local rewritten into a tensor must be read exactly once, and only by code
            # that is rewritten too: anywhere else it would now be a tensor, or be shared.
            escaping = {n for n in arrays if read[n] != 1 or _loads(function.node, n) != 1}
            if not escaping:
                break
            excluded |= escaping
        groups = _groups(roots)
        found = {id(call): call for call, _, _ in function.found}
        fixes: dict[int, Fix] = {}
        for group in groups:
            if not any(not root.binds for root in group):
                continue  # never reaches torch: nothing to rewrite
            fed = [c for root in group for c in root.calls if id(c) in found]
            if not fed:
                continue
            replacements = {root.node: _expression(root) for root in group}
            fix = Fix(replacements, safety=Safety.UNSAFE)
            first = min(fed, key=lambda c: function.order(c))
            fixes[id(first)] = fix
            function.texts[id(first)] = next(root.text for root in group if any(c is first for c in root.calls))
            for other in fed:
                if other is not first:
                    fixes.setdefault(id(other), _COVERED)
        return fixes

    def _report(self, function: _Function) -> None:
        if not function.found:
            return
        fixes = self._fixes(function)
        for call, method, in_function in function.found:
            fix = fixes.get(id(call))
            if fix is _COVERED:
                continue  # rewritten together with the finding reported for the computation
            name = self._numpy_name(call.func) or "numpy"
            short = name.rsplit(".", 1)[-1]
            text = (f"`{short_code(call)}` computes with a tensor size in NumPy: the TorchScript export keeps the "
                    "array for the traced size as a constant; ")
            if fix is not None:
                new = function.texts[id(call)]
                new = new if len(new) <= 90 else new[:87] + "..."
                text += (f"rewritten with torch on the size, `{new}` (NumPy's dtypes kept, on the CPU like the NumPy "
                         "array; assumes the sizes given to arange/zeros... are not negative)")
            else:
                form = _NUMPY_FORMS.get(short, "the torch function of the same name, on the size itself")
                text += (f"use {form} (not rewritten: the array does not end as a tensor through torch.from_numpy/"
                         "torch.tensor/torch.as_tensor in this function, or part of it has no exact torch form)")
            if method is not None:
                self.hold(method[0], method[1], call, text, fix)
            elif in_function:
                self.report(call, text, fix)


#: Marks a finding whose construct another finding's fix rewrites (reported once, with the fix).
_COVERED = Fix({}, safety=Safety.UNSAFE)


@dataclass
class _Function:
    """What TRT711 gathers in one function: NumPy calls fed by sizes, assignments, wrappers."""

    node: cst.FunctionDef
    torch: str
    sizes: set[int] = field(default_factory=set)
    found: list[tuple[cst.Call, Any, bool]] = field(default_factory=list)
    assigns: list[cst.Assign] = field(default_factory=list)
    consumers: list[tuple[cst.Call, str]] = field(default_factory=list)
    bindings: dict[str, list[Any]] = field(default_factory=dict)
    #: id(finding's call) → the torch text that replaces the expression holding it.
    texts: dict[int, str] = field(default_factory=dict)

    def order(self, call: cst.Call) -> int:
        return next(i for i, (c, _, _) in enumerate(self.found) if c is call)


@dataclass
class _Root:
    """One expression the rewrite replaces: a NumPy local's value, or a torch wrapper call."""

    node: cst.BaseExpression
    text: str
    binds: set[str]
    reads: list[cst.Name]
    calls: list[cst.Call]


def _expression(root: _Root) -> cst.BaseExpression:
    made = cst.parse_expression(root.text)
    # The value of an assignment needs no parentheses of its own; a wrapper call's place might.
    return made.with_changes(lpar=[], rpar=[]) if root.binds and made.lpar else made


def _groups(roots: list[_Root]) -> list[list[_Root]]:
    """Roots joined by the locals they bind and read: each group is one computation."""
    groups: list[list[_Root]] = []
    for root in roots:
        names = root.binds | {n.value for n in root.reads}
        joined = [g for g in groups if any(names & (r.binds | {n.value for n in r.reads}) for r in g)]
        merged = [r for g in joined for r in g] + [root]
        groups = [g for g in groups if all(g is not j for j in joined)] + [merged]
    return groups


def _loads(function: cst.FunctionDef, name: str) -> int:
    """How many times ``name`` is read in ``function`` (attribute and keyword names aside)."""
    count = 0
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name and node.value == name:
            count += 1
        elif type(node) is cst.Attribute:
            stack.append(node.value)
            continue
        elif type(node) is cst.Arg and node.keyword is not None:
            stack.append(node.value)
            continue
        elif type(node) is cst.Assign:
            # The binding itself is no read (only a single target is rewritten).
            stack.append(node.value)
            stack.extend(t.target for t in node.targets if bound_names(t.target) == [] or
                         type(t.target) not in (cst.Name, cst.Tuple, cst.List))
            continue
        stack.extend(children(node))
    return count


# --- TRT712 ------------------------------------------------------------------------------


SIZE_MIN_HELPER = "_trt_size_min"
SIZE_MAX_HELPER = "_trt_size_max"


class PythonMathOnSize(_SizeRule):
    info = RuleInfo(
        id="TRT712",
        name="python-math-on-size",
        summary="`min`/`max`/`int`/`math.ceil`... on tensor sizes: the TorchScript export bakes the result",
        doc="""\
What it finds, in forward code: the built-ins `min(...)`, `max(...)`, `int(...)`,
`float(...)`, `round(...)` and `math.*` functions (`math.ceil`, `math.floor`,
`math.sqrt`...) applied to a tensor size: `x.shape[i]`, `x.size(i)`, `x.numel()`,
`len(x)` of a tensor, a local assigned from one (`h, w = x.shape[2:]`), or arithmetic on
those with numbers (`int(h * scale)`, `math.ceil(w / stride)`, `min(k, x.shape[1])`).
Inside `migrate` or with `--facts`, a name the recorded run saw holding a tensor at a torch
call on its line is a tensor too (an unannotated helper's `scores` in
`min(scores.size(1), 10)`). Built-ins on tensor *values* (`int(t)`) are TRT702's.

Why it hurts: under the TorchScript exporter `x.shape[i]` is a traced 0-d tensor, so
`h // 2` or `h - 1` stay in the graph, but `min`/`max` compare it into a Python `bool`
and `int()`/`float()`/`math.*` read it into a Python number: the result is a constant of
the example input (a `TracerWarning` says so). Measured with torch 2.13 and a dynamic
axis: `x.topk(min(4, x.shape[1]))` exports `TopK` with a constant k = 4 and fails on a
row of 2; `x.new_zeros(math.ceil(x.shape[1] / 3))` exports a single constant. The dynamo
exporter (`dynamo=True`) keeps `min`, `max` and `math.ceil` of sizes symbolic (`Min`,
`Ceil` nodes), so for those the rule matters with the TorchScript exporter only; but it
specializes `int(x.shape[1] * 0.5)` to the example's value too (measured: a constant
slice end); `int(x.shape[0])` alone stays symbolic there.

The rewrite (only where the result is the same integer): `int(s)` → `s` (a size is
already an `int`), `math.floor(s / k)` and `int(s / k)` → `s // k`, `math.ceil(s / k)` →
`(s + k - 1) // k`, for a size `s` and a positive integer literal `k`. Integer floor
division of a non-negative size exports as ONNX `Div` (which truncates: the same for
non-negative operands), so the result follows the input. Note that the common
`-(-s // k)` ceiling is *wrong* in both exporters: the negative operand meets `Div`'s
truncation (measured: 0 instead of 1 for s = 2, k = 3). `min(a, b)` and `max(a, b)` of two
integers built from sizes, integer literals and parameters annotated `int` with `+ - * //`
(`max(x.shape[1] // 2, 1)`, ultralytics' `min(max_det, anchors)` with `max_det: int`)
become `_trt_size_min(a, b)` / `_trt_size_max(a, b)`: the built-in itself in eager mode,
`torch.jit.script`, fx, `torch.compile`, `torch.export` and the dynamo exporter (which keeps
`min`/`max` of symbolic sizes on its own), and only while a trace passes a size as a 0-d
tensor a `clamp`/`maximum` that the graph keeps. Measured with torch 2.13, exported at
width 8: the original's top-k of `max(w // 2, 1)` gives no value at width 1 (the trace kept
"the size wins") and its `x[:, :min(w - 2, 3)]` keeps 3 columns at width 3 (the trace kept
"3 wins"); the rewritten graph gives 1 value and 1 column, as eager does. Other uses are reported with the manual step:
`int(s * 0.5)` → `s // 2` where the factor is a reciprocal of an integer, or compute the
number outside the model and pass it in.

Fix safety: unsafe. The rewrite assumes the value is a `torch.Tensor`, so that its size
is a Python `int` (the tensor is only evidenced by `forward`'s parameters, a `Tensor`
annotation or a torch call: a NumPy array or another object with a `.shape` gives ints
too, but a custom `.shape` may not). `math.ceil(s / k)` and `math.floor(s / k)` go
through a float: they equal the integer forms for every size below 2**53 (larger sizes
exist only for expanded, stride-0 tensors; there the integer form is the exact one). In
eager mode, `torch.jit.script` and `torch.export` the rewritten expression is the same
`int`. The `min`/`max` helpers also assume that a parameter annotated `int` holds an `int`
(its annotation is taken at its word), and that, while the TorchScript exporter traces, the
code after them accepts a 0-d tensor where it got the number (a top-k's K, a slice bound,
a shape do; `range(k)` reads it back into a number as before, with the same TracerWarning).
`migrate` applies them as verified candidates (an input set with the axis stretched shows the
baked choice). Applies to every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the value is a `torch.Tensor`, so its sizes are Python ints "
            "(and a parameter annotated `int` holds an int)"),
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "import math\n\n"
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        n = math.ceil(x.shape[1] / 4)\n"
                "        return x.new_zeros(x.shape[0], n)\n",
                "import math\n\n"
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        n = (x.shape[1] + 3) // 4\n"
                "        return x.new_zeros(x.shape[0], n)\n",
                unsafe=True,
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b = int(x.shape[0])\n"
                "        return x.reshape(b, -1)\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b = x.shape[0]\n"
                "        return x.reshape(b, -1)\n",
                unsafe=True,
            ),
            Example(
                "class Half(nn.Module):\n"
                "    def forward(self, x):\n"
                "        k = max(x.shape[1] // 2, 1)\n"
                "        return x[:, :k]\n",
                "class Half(nn.Module):\n"
                "    def forward(self, x):\n"
                "        k = _trt_size_max(x.shape[1] // 2, 1)\n"
                "        return x[:, :k]\n",
                unsafe=True,
            ),
        ),
        references=(_TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.clamp.html",
                    "https://onnx.ai/onnx/operators/onnx__Div.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._topk_arguments: set[int] = set()

    def _builtin(self, func: cst.BaseExpression) -> str | None:
        if type(func) is cst.Name and func.value in ("min", "max", "int", "float", "round"):
            if not self.context.resolver.binds(func.value):
                return func.value
        return None

    def _math(self, func: cst.BaseExpression) -> str | None:
        for qualified in self.context.qualified_names(func):
            if qualified.startswith("math.") and qualified.count(".") == 1:
                return qualified[5:]
        return None

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or has_star_args(node):
            return
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "topk" or \
                type(func) is cst.Name and func.value in ("topk", "_trt_topk_capped"):
            # A top-k's K built with min()/max() of a size is TRT802/TRT803's (one finding per construct).
            self._topk_arguments.update(id(arg.value) for arg in node.args)
            return
        if id(node) in self._topk_arguments:
            return
        builtin = self._builtin(node.func)
        name = builtin or self._math(node.func)
        if name is None:
            return
        positional = [a.value for a in node.args if a.keyword is None]
        if builtin in ("min", "max"):
            if len(positional) < 2 or len(positional) != len(node.args):
                return  # `max(sizes)` of a list, `key=`: not about one size
            if not any(self.size_derived(v) for v in positional):
                return
        elif builtin is not None:
            if not positional or not self.size_derived(positional[0]) or self.is_tensor(positional[0]):
                return
        elif not any(self.size_derived(v) for v in positional):
            return
        fix = self._fix(node, name, builtin is not None, positional)
        text = short_code(node)
        if builtin in ("min", "max") and len(positional) == 2 and all(map(self.integer_size, positional)):
            helper = SIZE_MIN_HELPER if builtin == "min" else SIZE_MAX_HELPER
            fix = Fix({node: helper_call(helper, *positional)}, safety=Safety.UNSAFE, helpers=(helper,))
            message = (f"`{text}` compares a traced size in Python: the TorchScript export keeps the example's "
                       f"choice as a constant; {helper} keeps the choice in the graph while tracing")
        elif fix is not None:
            message = (f"`{text}` turns a traced size into a Python number: the TorchScript export keeps the "
                       "example's value; integer arithmetic on the size stays in the graph")
        elif builtin in ("min", "max"):
            other = "torch.clamp(torch.as_tensor(s), max=k)" if builtin == "min" else \
                "torch.clamp(torch.as_tensor(s), min=k)"
            message = (f"`{text}` compares a traced size in Python: the TorchScript export keeps the example's "
                       f"choice as a constant; keep it in the graph ({other}, a tensor in eager mode too) or pass "
                       "the number in as an input")
        else:
            message = (f"`{text}` turns a traced size into a Python number: the TorchScript export keeps the "
                       "example's value; use integer arithmetic on the size (`s // k`, `(s + k - 1) // k`) or "
                       "pass the number in as an input")
        self.found(node, message, fix)

    def _fix(self, node: cst.Call, name: str, builtin: bool, positional: list[cst.BaseExpression]) -> Fix | None:
        if len(node.args) != 1 or node.args[0].keyword is not None:
            return None
        arg = positional[0]
        if builtin and name == "int" and self.size_of(arg) is not None:
            return Fix({node: arg}, safety=Safety.UNSAFE)
        if (builtin and name != "int") or (not builtin and name not in ("ceil", "floor")):
            return None
        if not (type(arg) is cst.BinaryOperation and type(arg.operator) is cst.Divide):
            return None
        if self.size_of(arg.left) is None or arg.lpar:
            return None
        k = int_value(arg.right)
        if k is None or k <= 0 or type(arg.right) is not cst.Integer:
            return None
        size = code_of(arg.left)
        if name == "ceil" and k > 1:
            replacement = cst.parse_expression(f"({size} + {k - 1}) // {k}")
        else:
            replacement = cst.parse_expression(f"{size} // {k}")
        return Fix({node: replacement}, safety=Safety.UNSAFE)


# --- TRT713 ------------------------------------------------------------------------------


class SizeGuard(_SizeRule):
    info = RuleInfo(
        id="TRT713",
        name="size-guard",
        summary="`if` on a tensor's emptiness or element count: the export keeps one branch",
        doc="""\
What it finds, in forward code: an `if` (or `elif`) whose condition tests a tensor size
for emptiness (`if x.shape[0] == 0:`, `if not len(dets):`, `if boxes.numel():`,
`> 0`, `< 1`...), compares an element count (`if boxes.numel() > 4000:`), or compares any
size of a tensor whose size depends on the data (`keep = boxes[scores > t]` then
`if keep.shape[0] > max_det:`; also after `nonzero`, `masked_select`, `unique`). Sizes
that describe the layout (`if x.shape[1] == 3:`, `if x.dim() == 4:`) are not reported,
nor tests on tensor values (TRT101's).

Why it hurts: a size is known when tracing, so the TorchScript exporter keeps the branch
the example took (a `TracerWarning`), and the dynamo exporter does the same for a dynamic
axis: `torch.export` assumes a dynamic dimension is at least 2, so `x.shape[0] == 0` is
decided as False (measured with torch 2.13: both exporters dropped the empty-input branch,
and the graph gave a different result on an empty input). When the size comes from the
data (a boolean mask, `nonzero`), `torch.export` cannot decide the test at all and stops
with a data-dependent-guard error. In TensorRT the branch would need an `If` layer on a
shape computed from data.

What to do: make both branches one computation that also works on an empty tensor
(`amax` over an empty axis raises, but a `topk` with a fixed k after padding, a masked
`sum`, or `torch.where` do not); for `torch.export`, state what the code assumes with
`torch._check(keep.shape[0] <= max_det)` or `torch._check_is_size(n)` so the guard is not
needed; or move the decision out of the exported graph (return the full result and let
the caller drop empty outputs).

Fix safety: none (detect only): the branch-free form depends on what each branch does.
Matters for both exporters and every TensorRT version.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Post(nn.Module):\n"
                "    def forward(self, boxes, scores):\n"
                "        keep = boxes[scores > 0.5]\n"
                "        if keep.shape[0] == 0:\n"
                "            return keep.new_zeros(0, 4)\n"
                "        return keep\n"
            ),
            Example(
                "class Nms(nn.Module):\n"
                "    def forward(self, boxes):\n"
                "        if boxes.numel() > 4000:\n"
                "            boxes = boxes[:1000]\n"
                "        return boxes\n"
            ),
        ),
        references=("https://pytorch.org/docs/stable/export.html#data-dependent-errors",
                    "https://pytorch.org/docs/stable/generated/torch._check.html", _TS_PITFALLS),
    )

    def visit_If(self, node: cst.If) -> None:
        if not self._frames or not self.active():
            return
        if self._value_when_exporting(node.test) is not None:
            return
        found = self._guard(node.test, truth=True)
        if found is not None:
            self.found(node.test, f"`{short_code(node.test)}` branches on {found}: a traced export keeps only "
                       "the branch the example took (torch.export stops on it when the size comes from data); "
                       "make both branches one computation, state the assumption with torch._check, or take "
                       "the decision outside the graph")

    def _guard(self, test: cst.BaseExpression, *, truth: bool) -> str | None:
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._guard(test.expression, truth=True)
        if type(test) is cst.BooleanOperation:
            return self._guard(test.left, truth=True) or self._guard(test.right, truth=True)
        if truth and self.size_of(test) is not None:
            return "whether a tensor is empty"
        if type(test) is cst.Comparison:
            operands = [test.left, *(c.comparator for c in test.comparisons)]
            for index, operand in enumerate(operands):
                count = self.size_of(operand)
                if count is None:
                    continue
                if count or self._is_numel(operand):
                    return "an element count that changes with the input"
                if _tests_emptiness(test, index):
                    return "whether a tensor is empty"
        return None

    def _is_numel(self, expr: cst.BaseExpression) -> bool:
        if type(expr) is cst.Call:
            parts = method_call(expr)
            if parts is not None and parts[1] in ("numel", "nelement"):
                return True
            return self.context.refers_to(expr.func, "torch.numel") is not None
        return False


#: (operator, constant) pairs that ask "is the size zero?" with the size on the left;
#: `n == 1` or `n > 1` ask about the layout (one image, a batch) and are not emptiness tests.
_EMPTINESS = {("Equal", 0), ("NotEqual", 0), ("GreaterThan", 0), ("LessThanEqual", 0), ("LessThan", 1),
              ("GreaterThanEqual", 1)}
_MIRRORED = {"LessThan": "GreaterThan", "GreaterThan": "LessThan", "LessThanEqual": "GreaterThanEqual",
             "GreaterThanEqual": "LessThanEqual", "Equal": "Equal", "NotEqual": "NotEqual"}


def _tests_emptiness(test: cst.Comparison, index: int) -> bool:
    """Does the comparison ask whether operand ``index`` (a size) is zero?"""
    operands = [test.left, *(c.comparator for c in test.comparisons)]
    if index + 1 < len(operands):  # `n <op> constant`
        operator = type(test.comparisons[index].operator).__name__
        if (operator, int_value(operands[index + 1])) in _EMPTINESS:
            return True
    if index > 0:  # `constant <op> n`
        operator = _MIRRORED.get(type(test.comparisons[index - 1].operator).__name__)
        if (operator, int_value(operands[index - 1])) in _EMPTINESS:
            return True
    return False


RULES = (NumpyOnSize, PythonMathOnSize, SizeGuard)
