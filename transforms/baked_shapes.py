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

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import libcst as cst

from trtcodemod.astutil import (
    bound_names, children, code_of, decorator_names, has_star_args, helper_call, int_value, method_call, short_code, walk,
)
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import scope_bindings
from trtcodemod.transforms._branch_building import branch_assignments, selected_assignments, tensor_condition
from trtcodemod.transforms._numpy_helper import Translation, bound_in, module_constants, translate_helper
from trtcodemod.transforms._numpy_torch import CONSUMERS, Array, Converter, configuration, helpers_in
from trtcodemod.transforms._size_facts import TS_PITFALLS as _TS_PITFALLS
from trtcodemod.transforms._size_facts import INTEGER_OPERATORS, NUMBER_AS_TENSOR_FAILURES
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
    "array": "arithmetic on the sizes themselves (`(x.shape[2] + 7) // 8`, which the trace keeps) instead of an "
             "array of the shape",
    "asarray": "arithmetic on the sizes themselves (`(x.shape[2] + 7) // 8`, which the trace keeps) instead of an "
               "array of the shape",
    # NumPy's repeat repeats each element; torch's `Tensor.repeat` is NumPy's tile, so the same name misleads.
    "repeat": "torch.repeat_interleave(...) (NumPy's repeat repeats each element; torch's `Tensor.repeat` is "
              "NumPy's `tile`)",
    "concatenate": "torch.cat(...)",
    "stack": "torch.stack(...)",
}


class NumpyOnSize(_SizeRule):
    needs_text = (b"numpy",)
    info = RuleInfo(
        id="TRT711",
        name="numpy-on-size",
        summary="NumPy called on tensor sizes in forward: the export bakes the array for the traced size",
        doc="""\
What it finds: a NumPy function (`np.arange`, `np.linspace`, `np.meshgrid`, `np.zeros`,
`np.prod`...) called in forward code with a tensor's size among its arguments, or `np.array`/`np.asarray`
of a whole shape (`np.array(x.shape[2:])`, named only): `x.shape[i]`,
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
(through `torch.from_numpy`, `torch.tensor(..., dtype=, device=)` or `torch.as_tensor(...,
dtype=, device=)`) is translated into torch, the wrapper dropped, when every call in it is in
the translation table, whatever the nesting: `np.arange` (int64 for integer arguments, float64
for float ones), `np.linspace` (end point included, float64 unless a float `dtype=`),
`np.zeros`/`np.ones`/`np.full`, `np.indices`, `np.meshgrid` ("xy" unless `indexing=`, written
out), `np.stack`/`np.concatenate`/`np.vstack`/`np.hstack`/`np.column_stack`, `np.expand_dims`
(`unsqueeze`), `np.reshape`/`.reshape`/`.ravel()`/`.flatten()`, `np.repeat`/`.repeat`
(`repeat_interleave`: NumPy repeats each element; torch's `repeat` is NumPy's `tile`),
`np.tile` (`torch.tile`), `np.transpose`/`.transpose()`/`.T`/`np.swapaxes` (`permute`),
`.astype(t)` (`.to(torch.t)`), indexing with literal indices, slices and `None`, and `+ - * /
//` with NumPy's dtype promotion made explicit (an integer array with a Python float or a true
division is float64 in NumPy and float32 in torch: the rewrite casts to float64 first; arrays
of different dtypes are cast to NumPy's common dtype). A real YOLOv4 decode,
`np.expand_dims(np.linspace(0, w - 1, w), axis=0).repeat(h, 0)` then `torch.tensor(grid,
device=d, dtype=torch.float32)`, becomes `_trt_linspace(0, w - 1, w,
dtype=torch.float64).unsqueeze(0).repeat_interleave(h, 0)` and `grid.to(device=d,
dtype=torch.float32, copy=True)` (`torch.tensor` copied; `copy=True` keeps a new tensor per
call). A `linspace` whose count is not a literal calls TRT368's inserted helper, `torch.linspace`
itself except while the TorchScript exporter traces, where its graph divides by `max(w - 1, 1)`:
the exporter's own `torch.linspace` divides 0 by 0 at one step, a NaN where NumPy gives `[0.]`
(a YOLO head's 1x1 map at the smallest input: wf-pytorch-yolo-v4's yolov4-sam-mish at 32x32). NumPy locals of the function (`yv, xv = np.meshgrid(...)`, also a name rebound as in
`shift_x, shift_y = np.meshgrid(shift_x, shift_y)` or `batch_id = torch.from_numpy(batch_id)`)
are rewritten with it when only rewritten code reads them. Scalars are sizes, numeric
literals, configuration values (`self.stride`, assumed an `int`) and locals holding numbers.
`np.array([w])`, `np.array((h, w))`, a row of numbers, becomes each number a 0-d tensor of NumPy's
dtype (int64, float64 where one is a float), stacked: PaddleOCR's TPS rectifier divides its grid by
`torch.as_tensor(np.array([I_r_width]).astype(np.float64))`. A size may also be an item of a
parameter the recorded run saw holding a `torch.Size` on every call (that TPS hands `image.shape[2:]`
to its grid builder, which unpacks it), where the export warned at the line.
Anything else (a call outside the table, an array returned or printed as NumPy, a local changed
in place, `**`) is named, not rewritten.

A helper that returns its NumPy result to callers that make it a tensor (online-face-detection's
RetinaFace `_priors_np(h, w)`, `torch.from_numpy(arr)` in `prior_box`) is rewritten with them when
it is a private top-level function (`_name`: another module importing a public one might read the
array) whose every use in the module is a call converted by `torch.from_numpy`/`torch.as_tensor`/
`torch.tensor`, directly or through a local read only there, and whose body is, statement by
statement, in the table: its sizes are its parameters annotated `int` or seen holding only ints in
the recorded run; scalars (`math.ceil(h / step)`, left to TRT712, `len` of a constant row,
`a.shape[0]` of a converted array); constant rows of numbers the module binds once (`_STEPS[k]`);
`np.array([m / w for m in row])` (the arithmetic on the whole row made a float64 tensor: Python's
`m / w` is the same float64 division); an empty list and `append`s of arrays of one dtype and rank,
joined by `np.concatenate`; `for` over a constant row, `enumerate` or `range` of one (the loop stays
Python, as the trace unrolled it before); `return` of an array. The caller's `torch.from_numpy(arr)`
becomes `arr`, `torch.as_tensor(arr, dtype=d)` `arr.to(d)`, `torch.tensor(arr)` a copy. The finding
is at the caller's conversion (where the export warns), or at the helper's first NumPy call fed
by a size, and runs through every line the fix rewrites. A `functools.lru_cache` on the helper is
kept: in eager code the sizes are ints and every caller still shares the one cached result, as it
shared the cached array through `torch.from_numpy` (dropping the cache would change only speed, but
also which calls alias); while tracing the sizes are tensors, hashed by identity, so the cache
misses and each trace computes its own graph. Elsewhere (a public helper, a use not converted, a
statement outside the table) the reason is named with what to do: build the result with torch in
that function, on the sizes as passed (not `int()` of them). The
guidance for `np.repeat` is `torch.repeat_interleave` (torch's `Tensor.repeat` is NumPy's `tile`). The torch form keeps NumPy's strides where
`torch.from_numpy`/`torch.as_tensor` would have kept them (a `torch.meshgrid` view is not
handed out there) and is a new contiguous tensor where `torch.tensor` copied. A size is a
tensor's as described above; inside `migrate` or with `--facts`, also `o.size(i)`/`o.shape[i]`
of an unannotated `o` (a helper's parameter, as in YOLO's `make_grid(output)`) where the
export's `TracerWarning` was raised at the NumPy call's line, or where the recorded run saw `o`
hold a tensor at a torch call on its line (`output.size(2)`).

Device: the torch form is created on the CPU, where the NumPy array was, so the program
is the same; the guidance's `device=x.device` (no copy in the graph on a GPU) is a manual
step after review.

Fix safety: unsafe. Assumptions: (1) the arguments of `arange`, `zeros`, `ones`, `indices`
and `linspace`'s count are not negative, and `arange(a, b)` has `b >= a`: NumPy returns an
empty array there, torch raises. A bare size is never negative, but arithmetic on one
(`np.arange(w - 1)` at `w = 0`) can be. (2) `linspace` values: torch computes the upper half
from the end point, so where the step is inexact a value can differ from NumPy's in the last
bit (measured identical for `linspace(0, n - 1, n)`, n < 200), and a float `arange` likewise.
(3) The size is a tensor's, as the evidence says; a configuration value (`self.stride`) meeting
an integer array is an `int` (a float one makes float64 in NumPy and float32 in torch). (4)
While the TorchScript exporter traces, a size is a 0-d int64 tensor, so a scalar computed from
it with `/` is float32 there (the eager result is unchanged). (5) For a helper rewritten with its
callers: no other module imports the private helper, a parameter taken as a size is an `int`
(as annotated, or as every recorded call passed), and a size that divides a number in
`np.array([m / w for m in row])` is not 0 (Python raises `ZeroDivisionError` there; the tensor
division gives inf). dtypes, shapes and the CPU placement are kept; a
rewritten local, or a rewritten helper's result, now holds a tensor (it has no other reader). `migrate` tries the fix where a baked value is
located at its line and keeps it only when the rewritten model is verified equivalent on
every input set. Matters for the TorchScript exporter, on every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the sizes are a tensor's, the counts given to `arange`/`zeros`/`ones`/`linspace` are not negative, and "
            "torch's `linspace` values are NumPy's (they can differ in the last bit); a private NumPy helper rewritten "
            "with its callers is imported by no other module and its size parameters are ints, not 0 where divided"),
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
                "import numpy as np\n"  # the inserted helper stands here
                "class Ramp(nn.Module):\n"
                "    def forward(self, x):\n"
                "        w = x.size(-1)\n"
                "        return x * _trt_linspace(0, w - 1, w, dtype=torch.float64).to(x.dtype)\n",
                unsafe=True,
            ),
            Example(
                "import numpy as np\n\n"
                "class Decode(nn.Module):\n"
                "    def forward(self, p):\n"
                "        h, w = p.shape[2:]\n"
                "        cells = np.expand_dims(np.linspace(0, w - 1, w), axis=0).repeat(h, 0)\n"
                "        return p + torch.tensor(cells, dtype=torch.float32)\n",
                "import numpy as np\n"  # the inserted helper stands here
                "class Decode(nn.Module):\n"
                "    def forward(self, p):\n"
                "        h, w = p.shape[2:]\n"
                "        cells = _trt_linspace(0, w - 1, w, dtype=torch.float64).unsqueeze(0).repeat_interleave(h, 0)\n"
                "        return p + cells.to(torch.float32, copy=True)\n",
                unsafe=True,
            ),
            Example(
                "import numpy as np\n\n"
                "def _centers(h: int, w: int):\n"
                "    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing=\"ij\")\n"
                "    return np.stack([xs, ys], axis=-1).reshape(-1, 2) + 0.5\n\n"
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + torch.from_numpy(_centers(x.shape[2], x.shape[3]))\n",
                "import numpy as np\n\n"
                "def _centers(h: int, w: int):\n"
                "    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing=\"ij\")\n"
                "    return (torch.stack((xs, ys), -1).reshape(-1, 2).to(torch.float64) + 0.5)\n\n"
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return x + _centers(x.shape[2], x.shape[3])\n",
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
        self._rounded: set[int] = set()
        #: Module-level NumPy helpers translated into torch with their callers (name → rewrite).
        self._helpers: dict[str, _Helper] = {}

    def visit_Module(self, node: cst.Module) -> None:
        super_visit = getattr(super(), "visit_Module", None)
        if super_visit is not None:
            super_visit(node)
        self._helpers = self._numpy_helpers(node)

    # --- a helper that returns its NumPy array to callers that make it a tensor -------------------
    def _numpy_helpers(self, module: cst.Module) -> dict[str, _Helper]:
        """Top-level functions returning a NumPy computation that translates into torch, whose every
        use in the module is a call converted by ``torch.from_numpy``/``as_tensor``/``tensor``."""
        helpers: dict[str, _Helper] = {}
        # A private top-level function (another module importing it would read the NumPy array) that calls NumPy.
        candidates = [s for s in module.body if type(s) is cst.FunctionDef and s.name.value.startswith("_")
                      and any(type(n) is cst.Call and self._numpy_name(n.func) for n in walk(s.body))]
        if not candidates:
            return helpers
        parents = _parents(module)
        constants = module_constants(module)
        torch = self.context.torch_name()
        for function in candidates:
            name = function.name.value
            uses = self._converted_uses(module, function, parents)
            sizes = self._size_parameters(function)
            if not uses or not sizes:
                continue
            convert = Converter(torch, self._short_numpy, lambda e, sizes=sizes: type(e) is cst.Name and e.value in sizes,
                                {}, {}, sequences=dict(constants), qualified=self.context.qualified_names,
                                rebound=self.context.resolver.binds)
            translation = translate_helper(function, convert)
            if translation is None or translation.result is None or not translation.result.fresh \
                    or not any(type(n) is cst.Name and n.value in sizes for n in walk(function.body)):
                continue
            replacements: dict[cst.CSTNode, Any] = dict(translation.replacements)
            for consumer, wrapper, call in uses:
                # The cached tensor is handed to every caller, as the cached array was: shared.
                result = replace(translation.result, text=code_of(call), shared=True)
                text = Converter(torch, self._short_numpy, lambda e: False, {}, results={id(call): result}).consumer(
                    consumer, wrapper)
                if text is None:
                    break
                replacements[consumer] = cst.parse_expression(text)
            else:
                # The finding runs through the helper and its callers: a problem the graph check finds
                # in the code written there (NumPy's float64 kept, TRT701's) follows up on this fix.
                fix = Fix(replacements, safety=Safety.UNSAFE, covers=True, helpers=helpers_in(replacements.values()))
                helpers[name] = _Helper(function, translation, uses, fix)
        return helpers

    def _size_parameters(self, function: cst.FunctionDef) -> set[str]:
        """Parameters the helper reads as integer sizes: annotated ``int``, or seen holding only ``int``s
        in the recorded run; none rebound in the function."""
        params = function.params
        listed = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
        found = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]
                 if p.annotation is not None and type(p.annotation.annotation) is cst.Name
                 and p.annotation.annotation.value == "int"}
        found |= self._observed.number_parameters(function, kinds=frozenset({"int"})) & listed
        return found - {n for statement in function.body.body for n in bound_in(statement)}

    def _converted_uses(self, module: cst.Module, function: cst.FunctionDef,
                        parents: dict[int, cst.CSTNode]) -> list[tuple[cst.Call, str, cst.BaseExpression]] | None:
        """(consumer call, its name, the converted expression) for every use of ``function``'s name in
        the module: ``torch.from_numpy(helper(...))``, or ``arr = helper(...)`` whose every read is
        ``torch.from_numpy(arr)``; None if any use is another."""
        name = function.name.value
        uses: list[tuple[cst.Call, str, cst.BaseExpression]] = []
        for node in walk(module):
            if type(node) is not cst.Name or node.value != name or node is function.name:
                continue
            parent = parents.get(id(node))
            if type(parent) is cst.Attribute and parent.attr is node:
                continue  # `obj._priors_np`: another object's attribute
            if type(parent) is not cst.Call or parent.func is not node:
                return None
            found = self._consumer_of(parent, parents)
            if found is not None:
                uses.append((found[0], found[1], parent))
                continue
            holder = parents.get(id(parent))
            if type(holder) is not cst.Assign or len(holder.targets) != 1 or type(holder.targets[0].target) is not cst.Name:
                return None
            local = holder.targets[0].target.value
            scope = _enclosing_function(holder, parents)
            if scope is None or len(scope_bindings(scope).get(local, ())) != 1:
                return None
            for read in walk(scope.body):
                if type(read) is not cst.Name or read.value != local or read is holder.targets[0].target:
                    continue
                outer = parents.get(id(read))
                if type(outer) is cst.Attribute and outer.attr is read:
                    continue
                found = self._consumer_of(read, parents)
                if found is None:
                    return None
                uses.append((found[0], found[1], read))
        return uses

    def _consumer_of(self, expr: cst.BaseExpression, parents: dict[int, cst.CSTNode]) -> tuple[cst.Call, str] | None:
        """The ``torch.from_numpy(expr)``-like call whose only positional argument is ``expr`` or a method
        chain on it (``torch.from_numpy(helper(h, w).astype(np.float32))``: the translation takes the rest)."""
        while True:
            attribute = parents.get(id(expr))
            call = parents.get(id(attribute))
            if type(attribute) is not cst.Attribute or attribute.value is not expr or type(call) is not cst.Call \
                    or call.func is not attribute:
                break
            expr = call
        arg = parents.get(id(expr))
        call = parents.get(id(arg)) if type(arg) is cst.Arg and arg.keyword is None and not arg.star else None
        if type(call) is not cst.Call or sum(a.keyword is None for a in call.args) != 1 or call.args[0] is not arg:
            return None
        wrapper = self.context.refers_to(call.func, *CONSUMERS)
        if wrapper is None and type(call.func) is cst.Attribute and type(call.func.value) is cst.Name:
            # Read from the module's scope, a function's own `import torch` is not seen: looked up there.
            scope = _enclosing_function(call, parents)
            spelled = f"torch.{call.func.attr.value}"
            if scope is not None and spelled in CONSUMERS and call.func.value.value in _local_torch(scope):
                wrapper = spelled
        return (call, wrapper) if wrapper is not None else None

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

    def leave_Assign(self, original_node: cst.Assign) -> None:
        # After its value: a wrapper call in the value reads the binding before this one.
        if self._scopes_np and len(original_node.targets) == 1 and self.active():
            self._scopes_np[-1].events.append(original_node)
        super().leave_Assign(original_node)

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
            self._helper_consumer(node)
            function.events.append((node, wrapper))
            return
        if type(node.func) is cst.Name and node.func.value == "int" and len(node.args) == 1 \
                and type(node.args[0].value) is cst.Call and not self.context.resolver.binds("int") \
                and self._short_numpy(node.args[0].value.func) in ("ceil", "floor"):
            self._rounded.add(id(node.args[0].value))  # `int(np.ceil(s / k))`: one number, TRT712's
        if self._numpy_name(node.func) is None:
            if self._on_numpy(node):
                function.sizes.update(self._sizes_in(node))  # `np.expand_dims(...).repeat(h, 0)`
            return
        if id(node) in self._rounded:
            return
        if self._short_numpy(node.func) in ("array", "asarray") and node.args and self._shape_tuple(node.args[0].value):
            # `np.array(image.shape[2:])` (yhenon's RetinaNet anchors): the whole shape made a NumPy array,
            # named; no torch form is written for it.
            function.found.append((node, self.current_method(), self.runtime.in_function()))
            return
        sizes = self._sizes_in(node)
        if sizes:
            function.sizes.update(sizes)
            function.found.append((node, self.current_method(), self.runtime.in_function()))

    def _shape_tuple(self, expr: cst.BaseExpression) -> bool:
        """A tensor's shape or a slice of it (``x.shape[2:]``, ``x.size()``), or a local bound to one."""
        if self._is_shape_tuple(expr):
            return True
        frame = self._frame()
        return type(expr) is cst.Name and frame is not None and expr.value in frame.shapes and self._local(expr.value)

    def _on_numpy(self, call: cst.Call) -> bool:
        """A method called on a NumPy call's result (through other methods and indexing)."""
        parts = method_call(call)
        receiver = parts[0] if parts is not None else None
        while receiver is not None:
            if type(receiver) is cst.Call:
                if self._numpy_name(receiver.func):
                    return True
                inner = method_call(receiver)
                receiver = inner[0] if inner is not None else None
            elif type(receiver) is cst.Subscript:
                receiver = receiver.value
            else:
                return False
        return False

    # --- the rewrite: whole NumPy computations that end as tensors ----------------------------
    def _converter(self, function: _Function, arrays: dict[str, Array]) -> Converter:
        return Converter(function.torch, self._short_numpy, lambda e: id(e) in function.sizes, arrays,
                         function.numbers)

    def _numbers(self, function: _Function) -> None:
        """Locals every binding of which is a Python number (``stride = self.stride``,
        ``half = size * ratio / 2.0``): NumPy scalars too, with their kind."""
        convert = self._converter(function, {})
        for _ in range(3):  # a number may be computed from another
            for name, values in function.bindings.items():
                if name in function.numbers or not values or any(v is None for v in values):
                    continue
                kinds = {getattr(convert.scalar(v), "kind", None) for v in values}  # type: ignore[arg-type]
                if len(kinds) == 1 and None not in kinds:
                    function.numbers[name] = kinds.pop()  # type: ignore[assignment]

    def _roots(self, function: _Function, excluded: set[str]) -> tuple[list[_Root], dict[str, Array]]:
        """Converted NumPy locals (assignments) and wrappers, in source order, with the names
        each reads (a local rebound later is read at the binding before the reader)."""
        roots: list[_Root] = []
        arrays: dict[str, Array] = {}
        top = {id(line.body[0]) for line in function.node.body.body
               if type(line) is cst.SimpleStatementLine and len(line.body) == 1}
        for event in function.events:
            if type(event) is tuple:
                call, wrapper = event
                convert = self._converter(function, arrays)
                text = convert.consumer(call, wrapper)
                if text is not None:
                    roots.append(_Root(call, text, set(), convert.used, convert.calls))
                continue
            assign = event
            target = assign.targets[0].target
            names = bound_names(target)
            # A name bound more than once is followed in the function's own statement list only,
            # where the order of the source is the order of the run.
            if not names or any(n in excluded or len(function.bindings.get(n, ())) != 1 and id(assign) not in top
                                for n in names):
                for name in names:
                    arrays.pop(name, None)
                continue
            convert = self._converter(function, dict(arrays))
            if type(target) is cst.Name:
                made = convert.array(assign.value)
                if made is None:
                    arrays.pop(target.value, None)  # rebound to something else: no longer ours
                    continue
                text, outputs = made.text, {target.value: replace(made, text=target.value, shared=False)}
            elif type(target) in (cst.Tuple, cst.List) and all(type(e.value) is cst.Name for e in target.elements):
                grid = convert.grid(assign.value)
                if grid is None or len(grid[1]) != len(names):
                    for name in names:
                        arrays.pop(name, None)
                    continue
                text = grid[0]
                outputs = {n: replace(item, text=n) for n, item in zip(names, grid[1])}
            else:
                continue
            arrays.update(outputs)
            roots.append(_Root(assign.value, text, set(outputs), convert.used, convert.calls))
        return roots, arrays

    def _fixes(self, function: _Function) -> dict[int, Fix]:
        """id(first NumPy call fed by a size of a rewritten computation) → its fix."""
        function.bindings = scope_bindings(function.node)
        self._numbers(function)
        excluded: set[str] = set()
        while True:
            roots, _ = self._roots(function, excluded)
            escaping = _escaping(function, roots)
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
            fix = Fix(replacements, safety=Safety.UNSAFE, helpers=helpers_in(replacements.values()))
            first = min(fed, key=lambda c: function.order(c))
            fixes[id(first)] = fix
            function.texts[id(first)] = next(root.text for root in group if any(c is first for c in root.calls))
            for other in fed:
                if other is not first:
                    fixes.setdefault(id(other), _COVERED)
        return fixes

    def _helper_consumer(self, node: cst.Call) -> None:
        """A caller's conversion of a translated helper's array: reported with the helper's rewrite where
        the helper's result depends on sizes here (sizes passed, or the export warned at this line)."""
        for name, helper in self._helpers.items():
            use = next((u for u in helper.uses if u[0] is node), None)
            if use is None or helper.reported:
                continue
            call = use[2]
            if type(call) is cst.Name:
                call = next((u[2] for u in helper.uses if type(u[2]) is cst.Call), call)
            passed = type(call) is cst.Call and any(
                self.size_of(a.value) is not None or self._loose_size(a.value) for a in call.args)
            if not (passed or self.traced_at(node) or self.traced_at(use[2])):
                continue
            self._report_helper(helper, node)

    def _report_helper(self, helper: _Helper, node: cst.CSTNode) -> None:
        helper.reported = True
        name = helper.function.name.value
        result = helper.translation.result
        new = code_of(helper.translation.replacements[_returned(helper.function)])
        new = new if len(new) <= 90 else new[:87] + "..."
        text = (f"`{name}` builds its array from sizes in NumPy and returns it, and its callers make a tensor of it "
                f"(`{short_code(node)}`): the TorchScript export keeps the array for the traced size as a constant; "
                f"`{name}` rewritten with torch on the sizes it is passed, returning `{new}` ({result.dtype}, NumPy's "
                "dtypes kept, on the CPU like the NumPy array), and the callers' conversion made the tensor's "
                "(`torch.from_numpy` dropped); assumes the sizes are ints or a tensor's, not negative")
        if {"lru_cache", "cache"} & decorator_names(helper.function):
            text += (f"; `{name}`'s cache is kept: eager sizes are ints and every caller still shares the cached "
                     "result; traced sizes are tensors, hashed by identity, so the cache misses while tracing")
        method = self.current_method()
        if method is not None:
            self.hold(method[0], method[1], node, text, helper.fix)
        else:
            self.report(node, text, helper.fix)

    def _report(self, function: _Function) -> None:
        if not function.found:
            return
        helper = self._helpers.get(function.node.name.value)
        if helper is not None and helper.function is function.node:
            # Rewritten with its callers: reported once, here where the export warned, or at a caller.
            if not helper.reported:
                self._report_helper(helper, function.found[0][0])
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
                text += f"use {form} (not rewritten: {self._unrewritten_reason(function)})"
            if method is not None:
                self.hold(method[0], method[1], call, text, fix)
            elif in_function:
                self.report(call, text, fix)


    def _unrewritten_reason(self, function: _Function) -> str:
        """Why a finding has no fix; where the function hands its NumPy result back (a prior or grid
        helper, made a tensor by its caller), that is the reason, with what to do in this function."""
        returned = None if any(type(e) is tuple for e in function.events) else self._returned_numpy(function.node)
        if returned is None:
            return ("the array does not end as a tensor through torch.from_numpy/torch.tensor/torch.as_tensor in "
                    "this function, or part of it has no exact torch form")
        name = function.node.name.value
        text = (f"`{name}` returns the NumPy array (`return {short_code(returned)}`), so any tensor is made from "
                "it by a caller, and the rewrite stays within one function. Build the whole result with torch in "
                f"`{name}`, on the sizes as its caller passes them (not `int()` of them), and drop the caller's "
                "torch.from_numpy")
        if {"lru_cache", "cache"} & decorator_names(function.node):
            # The cache stays right: eager sizes are ints; traced ones are tensors, hashed by identity (a miss).
            text += (f"; `{name}`'s cache keeps working in eager code (the sizes are ints there) and misses while "
                     "tracing (they are tensors then)")
        return text

    def _returned_numpy(self, node: cst.FunctionDef) -> cst.BaseExpression | None:
        """The value of a ``return`` of ``node`` (its own, not a nested function's) that is a NumPy call or a
        method of one (``np.concatenate(blocks).astype("float32")``)."""
        stack: list[cst.CSTNode] = list(node.body.children)
        while stack:
            item = stack.pop()
            if type(item) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                continue
            if type(item) is cst.Return and type(item.value) is cst.Call and (
                    self._numpy_name(item.value.func) is not None or self._on_numpy(item.value)):
                return item.value
            stack.extend(children(item))
        return None


#: Marks a finding whose construct another finding's fix rewrites (reported once, with the fix).
_COVERED = Fix({}, safety=Safety.UNSAFE)


@dataclass
class _Helper:
    """A NumPy helper translated into torch, the uses its callers convert, and the one fix for all."""

    function: cst.FunctionDef
    translation: Translation
    uses: list[tuple[cst.Call, str, cst.BaseExpression]]
    fix: Fix
    reported: bool = False


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """id(node) → its parent, for every node under ``root``."""
    parents: dict[int, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents


def _enclosing_function(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> cst.FunctionDef | None:
    while node is not None and type(node) is not cst.FunctionDef:
        node = parents.get(id(node))  # type: ignore[assignment]
    return node


def _local_torch(function: cst.FunctionDef) -> set[str]:
    """Names ``function``'s own statements bind to the torch module (``import torch``, ``import torch as
    th``) and nothing else binds there."""
    names: dict[str, bool] = {}
    for statement in function.body.body:
        for node in walk(statement):
            if type(node) is cst.Import:
                for alias in node.names:
                    if type(alias.name) is cst.Name:
                        local = alias.asname.name.value if alias.asname is not None else alias.name.value  # type: ignore[union-attr]
                        names[local] = names.get(local, True) and alias.name.value == "torch"
    others = {n for statement in function.body.body for n in bound_in(statement) if not _imported(statement, n)}
    return {n for n, torch in names.items() if torch and n not in others}


def _imported(statement: cst.CSTNode, name: str) -> bool:
    return any(type(node) is cst.Import and name in bound_in(node) for node in walk(statement))


def _returned(function: cst.FunctionDef) -> cst.BaseExpression:
    """The value of the translated helper's last statement (its ``return``)."""
    return function.body.body[-1].body[0].value  # type: ignore[attr-defined, return-value]


@dataclass
class _Function:
    """What TRT711 gathers in one function: NumPy calls fed by sizes, assignments, wrappers."""

    node: cst.FunctionDef
    torch: str
    sizes: set[int] = field(default_factory=set)
    found: list[tuple[cst.Call, Any, bool]] = field(default_factory=list)
    #: Single-target assignments and torch wrapper calls (call, its name), in source order.
    events: list[Any] = field(default_factory=list)
    bindings: dict[str, list[Any]] = field(default_factory=dict)
    #: id(finding's call) → the torch text that replaces the expression holding it.
    texts: dict[int, str] = field(default_factory=dict)
    #: Locals holding Python numbers → "int" or "float".
    numbers: dict[str, str] = field(default_factory=dict)

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


def _escaping(function: _Function, roots: list[_Root]) -> set[str]:
    """Converted NumPy locals read by code that is not rewritten: there they would now be
    tensors. A name bound once must have every read rewritten; a name bound by several
    assignments of the function's own statement list, every read of a converted binding (the
    reads after it, up to the next binding's value)."""
    read = {id(name) for root in roots for name in root.reads}
    converted = {id(root.node) for root in roots if root.binds}
    names = {name for root in roots for name in root.binds}
    statements = list(function.node.body.body)
    versions: dict[str, list[tuple[int, cst.BaseExpression]]] = {}
    for index, line in enumerate(statements):
        if type(line) is cst.SimpleStatementLine and len(line.body) == 1 and type(line.body[0]) is cst.Assign \
                and len(line.body[0].targets) == 1:
            for name in bound_names(line.body[0].targets[0].target):
                versions.setdefault(name, []).append((index, line.body[0].value))
    escaping = set()
    for name in names:
        sites = len(function.bindings.get(name, ()))
        if sites == 1:
            loads = _load_nodes(function.node.body, name)
            if not loads or any(id(load) not in read for load in loads):
                escaping.add(name)
            continue
        bound = versions.get(name, [])
        if len(bound) != sites:
            escaping.add(name)  # also bound elsewhere (a loop, a branch): not followed
            continue
        for index, statement in enumerate(statements):
            earlier = [value for at, value in bound if at < index]
            if earlier and id(earlier[-1]) in converted and any(
                    id(load) not in read for load in _load_nodes(statement, name)):
                escaping.add(name)
    return escaping


def _load_nodes(root: cst.CSTNode, name: str) -> list[cst.Name]:
    """The reads of ``name`` in ``root`` (attribute and keyword names aside)."""
    found: list[cst.Name] = []
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name and node.value == name:
            found.append(node)
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
    return found


# --- TRT712 ------------------------------------------------------------------------------


def _read_of_name(expr: cst.BaseExpression) -> bool:
    """``o.size(i)``, ``o.shape[i]``, ``values[i]`` of a plain name ``o`` (whatever it holds), or of an
    element ``o[k]`` of one (SpyNet's pyramid, a list of tensors: ``ref[0].size(2)``)."""
    if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
        base = expr.value
        if type(base) is cst.Attribute and base.attr.value == "shape":
            return _named(base.value)
        return type(base) is cst.Name
    parts = method_call(expr) if type(expr) is cst.Call else None
    return parts is not None and parts[1] == "size" and _named(parts[0]) and len(expr.args) == 1


def _float_valued(expr: cst.BaseExpression, function: cst.FunctionDef | None = None, depth: int = 0) -> bool:
    """An expression whose Python value is a float whatever its operands: a true division, a float
    literal, ``float(...)``, ``+ - *`` with one of those on either side, or a local of ``function``
    every assignment of which is one (``gain_w = float(img_size[0]) / img0_shape[1]``)."""
    if type(expr) is cst.Float:
        return True
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "float":
        return True
    if type(expr) is cst.BinaryOperation:
        if type(expr.operator) is cst.Divide:
            return True
        if type(expr.operator) in (cst.Add, cst.Subtract, cst.Multiply):
            return _float_valued(expr.left, function, depth) or _float_valued(expr.right, function, depth)
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        return _float_valued(expr.expression, function, depth)
    if type(expr) is cst.Name and function is not None and depth < 3:
        values = _assigned_values(function, expr.value)
        return bool(values) and all(v is not None and _float_valued(v, function, depth + 1) for v in values)
    return False


def _assigned_values(function: cst.FunctionDef, name: str) -> list[cst.BaseExpression | None]:
    """What each binding of ``name`` in ``function`` assigns (None where it is not a plain ``name = value``:
    a tuple target, a loop, an augmented assignment, a parameter)."""
    values: list[cst.BaseExpression | None] = []
    if any(param.name.value == name for param in function.params.params + function.params.kwonly_params
           + function.params.posonly_params):
        values.append(None)
    for node in walk(function.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                if name in bound_names(target.target):
                    values.append(node.value if type(target.target) is cst.Name else None)
        elif type(node) in (cst.AugAssign, cst.AnnAssign) and type(node.target) is cst.Name \
                and node.target.value == name:
            values.append(None if type(node) is cst.AugAssign else node.value)
        elif type(node) in (cst.For, cst.NamedExpr, cst.WithItem) or type(node) is cst.CompFor:
            target = node.target if type(node) is not cst.WithItem else (node.asname.name if node.asname else None)
            if target is not None and name in bound_names(target):
                values.append(None)
    return values


def _named(owner: cst.BaseExpression) -> bool:
    """A plain name, or an element of one at a literal index (``levels[0]``, ``feats[-1]``)."""
    if type(owner) is cst.Name:
        return True
    return type(owner) is cst.Subscript and type(owner.value) is cst.Name and len(owner.slice) == 1 \
        and type(owner.slice[0].slice) is cst.Index and int_value(owner.slice[0].slice.value) is not None


SIZE_MIN_HELPER = "_trt_size_min"
SIZE_MAX_HELPER = "_trt_size_max"
SIZE_MIN_FLOAT_HELPER = "_trt_size_min_float"
SIZE_MAX_FLOAT_HELPER = "_trt_size_max_float"
SIZE_INT_HELPER = "_trt_size_int"
SIZE_FLOAT_HELPER = "_trt_size_float"
_ROUNDING_HELPERS = {"ceil": "_trt_size_ceil", "floor": "_trt_size_floor"}
SIZE_SQRT_HELPER = "_trt_size_sqrt"
SIZE_ROUND_HELPER = "_trt_size_round"
#: NumPy's rounding of a traced size, and the cast after it (``(np.round(x / m) * m).astype(int)``).
SIZE_NUMPY_HELPER, SIZE_ASTYPE_HELPER = "_trt_size_np", "_trt_size_astype"
#: NumPy's rounding functions :data:`SIZE_NUMPY_HELPER` takes.
_NUMPY_ROUNDINGS = frozenset({"numpy.round", "numpy.around", "numpy.rint", "numpy.floor", "numpy.ceil",
                              "numpy.trunc", "numpy.fix"})
SIZE_IS_INT_HELPER = "_trt_size_is_int"
#: ``min``/``max`` of a slice of a tensor's sizes (``min(x.size()[-2:])``).
_SIZES_HELPERS = {"min": "_trt_size_min_of", "max": "_trt_size_max_of"}
#: Arithmetic whose result the helpers take (``/`` included: ``int(h / 2.5)``).
_NUMBER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)




#: What the finding says of such a number (``migrate`` reads it: two traced sizes do not vouch for the bake).
COLLECTING_BRANCH = "a branch that picks what the loop collects"
#: The step by hand where a number from sizes decides a branch that picks what a loop collects.
COLLECTING_BRANCH_STEP = (
    "by hand: where the value is a constant of the architecture (a stride inferred as image size / feature size, "
    "rounded, with a fallback), take it from the configuration instead of the sizes, or pad the input to a multiple "
    "of the largest stride, where the inference gives the configured value at every size; otherwise compute the "
    "choice in the graph (`torch.where` of the test on tensors, both values as tensors) or export at the one size "
    "you deploy (guidance: Dynamic if-else; Tracing vs scripting)")
#: Calls a number may go through and stay a Python number (no tensor comes out of them).
_NUMBER_CALLS = frozenset({"abs", "round", "int", "float", "min", "max", "bool"})


def _number_expression(expr: cst.BaseExpression) -> bool:
    """Arithmetic, comparisons and the number built-ins (``abs``, ``round``, ``min``...) of names, literals and
    sizes (``x.size(2)``): what keeps a Python number a number (a torch call makes a tensor)."""
    for node in walk(expr):
        if type(node) is cst.Call:
            func = node.func
            named = func.value if type(func) is cst.Name else None
            maths = type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "math"
            sizes = type(func) is cst.Attribute and func.attr.value in ("size", "dim", "numel")
            if named not in _NUMBER_CALLS and not maths and not sizes:
                return False
        elif type(node) in (cst.Lambda, cst.Await, cst.Yield, cst.ListComp, cst.GeneratorExp, cst.DictComp,
                            cst.SetComp):
            return False
    return True


def _collects(branch: cst.If) -> bool:
    """The ``if`` (or an ``elif``/``else`` of it) ends an iteration (``continue``/``break``) or appends to a list:
    it picks what a loop collects, a choice no rule keeps in the graph (TRT717 takes an ``if`` that only sets
    numbers or resizes)."""
    for node in walk(branch):
        if type(node) in (cst.Continue, cst.Break):
            return True
        if type(node) is cst.Call and type(node.func) is cst.Attribute \
                and node.func.attr.value in ("append", "extend", "insert"):
            return True
    return False


def _collecting_branch(function: cst.FunctionDef, call: cst.Call) -> cst.If | None:
    """The ``if`` whose test reads the number ``call`` makes (directly, or through locals assigned Python arithmetic
    of it: ``s = img_h / fh``, ``clean = abs(s - round(s)) <= tol``) and that picks what a loop collects; None where
    there is none."""
    assignments = [n for n in walk(function.body) if type(n) in (cst.Assign, cst.AnnAssign, cst.AugAssign)
                   and n.value is not None]

    def bound(statement: cst.CSTNode, reads: Callable[[cst.BaseExpression], bool]) -> set[str]:
        """The names ``statement`` binds from a value that ``reads`` (element by element for ``a, b = x, y``)."""
        if type(statement) is not cst.Assign:
            return set(bound_names(statement.target)) if reads(statement.value) else set()
        names: set[str] = set()
        for target in statement.targets:
            into, value = target.target, statement.value
            if type(into) is cst.Tuple and type(value) is cst.Tuple and len(into.elements) == len(value.elements):
                # `img_h, img_w = int(a), int(b)`: each name gets its own element
                for element, part in zip(into.elements, value.elements):
                    if reads(part.value):
                        names.update(bound_names(element.value))
            elif reads(value):
                names.update(bound_names(into))
        return names

    tainted: set[str] = set()
    for statement in assignments:
        # only a number bound from it: `x = F.interpolate(x, size=int(h * s))` makes a tensor, not the number
        tainted |= bound(statement, lambda value: any(n is call for n in walk(value)) and _number_expression(value))
    changed = bool(tainted)
    while changed:
        changed = False
        for statement in assignments:
            new = bound(statement, lambda value: bool(_names(value) & tainted) and _number_expression(value)) - tainted
            if new:
                tainted |= new
                changed = True
    # Only an `if` in a loop's body picks what the loop collects (DepthPro's `if padding == 0:`, one merge or
    # another, is no loop's choice).
    in_loops = {id(n) for loop in walk(function.body) if type(loop) in (cst.For, cst.While)
                for n in walk(loop.body) if type(n) is cst.If}
    for branch in walk(function.body):
        if type(branch) is cst.If and id(branch) in in_loops and _collects(branch) and (
                any(n is call for n in walk(branch.test)) or _names(branch.test) & tainted):
            return branch
    return None


def _range_bound(function: cst.FunctionDef, reads: Callable[[cst.CSTNode], bool],
                 whole: bool = False) -> cst.Call | None:
    """The first ``range(...)`` of a ``for`` loop in ``function``, or of a comprehension's ``for`` (which a
    trace unrolls alike: ``[g(x) for x in range(size)]``), with an argument that ``reads`` holds for (at the
    argument, or, unless ``whole``, a node below it)."""
    for loop in walk(function):
        if type(loop) not in (cst.For, cst.CompFor) or type(loop.iter) is not cst.Call:
            continue
        bound = loop.iter
        if type(bound.func) is cst.Name and bound.func.value == "range" and bound.args \
                and any(reads(n) for arg in bound.args for n in ([arg.value] if whole else walk(arg.value))):
            return bound
    return None


def _same_code(node: cst.CSTNode) -> str:
    """The node's whole source on one line, for telling two expressions apart."""
    return " ".join(code_of(node).split())


def _one_round(function: cst.FunctionDef, bound: cst.Call) -> bool:
    """Is ``bound``, ``range(start, stop, step)``, a loop whose step may be its stop: one round at every size, so
    that the trip count the trace keeps is every size's? The step written as the stop, or a name the function binds
    to the stop by default (torchcrepe's ``batch_size = total_frames if batch_size is None else batch_size`` before
    ``for i in range(0, total_frames, batch_size)``; ``step = step or n``). Where a caller passes another step, the
    rounds follow the size, and the verification at other sizes finds the graph's."""
    if len(bound.args) != 3 or any(a.keyword is not None or a.star for a in bound.args):
        return False
    stop, step = _same_code(bound.args[1].value), bound.args[2].value
    if _same_code(step) == stop:
        return True
    if type(step) is not cst.Name:
        return False
    for statement in walk(function):
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            continue
        target = statement.targets[0].target
        if type(target) is not cst.Name or target.value != step.value:
            continue
        value = statement.value
        if type(value) is cst.IfExp and stop in (_same_code(value.body), _same_code(value.orelse)):
            return True
        if type(value) is cst.BooleanOperation and type(value.operator) is cst.Or \
                and _same_code(value.right) == stop:
            return True
    return False


def _names(expr: cst.CSTNode) -> set[str]:
    """The plain names ``expr`` reads (the ``b`` of ``a.b`` is no name)."""
    attributes = {id(n.attr) for n in walk(expr) if type(n) is cst.Attribute}
    return {n.value for n in walk(expr) if type(n) is cst.Name and id(n) not in attributes}


class PythonMathOnSize(_SizeRule):
    info = RuleInfo(
        id="TRT712",
        name="python-math-on-size",
        summary="`min`/`max`/`int`/`math.ceil`... on tensor sizes: the TorchScript export bakes the result",
        doc="""\
What it finds, in forward code: the built-ins `min(...)`, `max(...)`, `int(...)`,
`float(...)`, `round(...)` and `math.*` functions (`math.ceil`, `math.floor`,
`math.sqrt`...) applied to a tensor size: `x.shape[i]`, `x.size(i)`, `x.numel()`,
`len(x)` of a tensor, a local assigned from one (`h, w = x.shape[2:]`), a name a loop or
comprehension binds to one size each turn (`[int(round(s / self.scale)) for s in x.shape[2:]]`,
torchreg's pyramid; `[int(s * p) for s in x.shape[2:]]`, DeepLab's multi-scale inputs; `[math.ceil(s * f)
for s, f in zip(x.shape[-3:], factor)]`, jitfields' resize; also `x.size()[2:]`, `enumerate(...)`,
`reversed(...)`, a generator in `tuple(...)`), or arithmetic on those with numbers (`int(h * scale)`,
`math.ceil(w / stride)`, `min(k, x.shape[1])`). Inside `migrate` or with `--facts`, a name the recorded run saw holding a tensor at a torch
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
slice end); `int(x.shape[0])` alone stays symbolic there, but `int(x.shape[-1] // 2)`, an integer
expression, is specialized too (CREDIT's earth padding rolls by it). The rewritten `_trt_size_int` keeps
an `int` of a symbolic float symbolic under `torch.export` (`torch.sym_int`), and returns a symbolic
integer as it is, so it fixes that
exporter's bake as well (measured: spandrel RGT's `windows2img`, `B = int(n / (H * W / H_sp /
W_sp))`, kept the example's batch in the dynamo graph and follows it after the rewrite).

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
"3 wins"); the rewritten graph gives 1 value and 1 column, as eager does. The same holds for
operands that are configuration (`max(h - self.k, 0)`), and for operands holding a rounding
of such a number, which is an integer too: TensorFlow's "SAME" padding `max((math.ceil(h / s) - 1)
* s + (k - 1) * d + 1 - h, 0)` (old timm's `get_same_padding`, transformers' BiT) becomes
`_trt_size_max((_trt_size_ceil(h / s) - 1) * s + ..., 0)`, one finding (measured: kernel 2, stride 3,
traced at height 9, where the padding is 0: the original graph pads nothing at height 10, the
rewritten one pads the row eager mode pads). Two float operands, each a true division, a float
literal or `float(...)` (or `+ - *` with one), take `_trt_size_min_float`/`_trt_size_max_float`, the
same built-ins typed `float` for scripting: YOLOv5's letterbox gain `min(img1_shape[0] / img0_shape[0],
img1_shape[1] / img0_shape[1])` in `scale_boxes` (measured: the original graph keeps the example's
winner, the rewritten one the quotient that wins at each size); a float and an int are left, since eager
code gets either type. `min(S)`/`max(S)` of one argument `S` that is a tensor's sizes or a slice of them
(`min(x.size()[-2:])`, `max(x.shape[2:])`) become `_trt_size_min_of(S)`/`_trt_size_max_of(S)`: the
sequence goes in whole, so whatever the rank, eager mode gets `min`'s own result (and its `ValueError`
for an empty slice), and while a trace passes the sizes as 0-d tensors, the traced minimum/maximum of
them all. `round(E)` of such a number (one argument: an integer; `round(E, ndigits)` is a float and is
left) becomes `_trt_size_round(E)`: `round` in eager mode, and while a trace passes a 0-d tensor, a
traced `Round` cast to int64 (`torch.round`, as `round`, rounds halves to even: 640 / 256 = 2.5 gives
2); scripted, TorchScript's own `round`, a float (so the int helpers around it do not compile scripted,
where TorchScript's `max(1, round(...))` is a float: a float that piq's `F.avg_pool2d(x, kernel_size=f)`
after it refuses too, so piq's function never scripted). Nested, they are one finding: piq's automatic
downsampling `max(1, round(min(x.size()[-2:]) / 256))` (SSIM, VSI, FSIM, SR-SIM, MDSI), where the
traced `round` of a tensor raised `TypeError` and stopped the export, becomes
`_trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))` (measured: exported at 300
by 520, the graph's factor equals eager mode's at every side from 0 to 1152, the halves at 384 and
640 included). So are an `int(E)` and a `min`/`max` of two such integers inside the number: julius's
FFT convolution block `min(int(kernel_size * block_ratio), length)` becomes
`_trt_size_min(_trt_size_int(kernel_size * block_ratio), length)` and its frame count
`math.ceil((max(length, kernel_size) - kernel_size) / stride) + 1` becomes
`_trt_size_ceil((_trt_size_max(length, kernel_size) - kernel_size) / stride) + 1`, one finding each (measured:
exported at a length of 8, the graph's block and count follow the length from 5 to 31). Where no integer form is exact,
`int(E)`, `math.ceil(E)`/`math.floor(E)` and `int(np.ceil(E))`/`int(np.floor(E))` of a number
`E` built from sizes, literals and configuration with `+ - * / //` (`int(h * self.patch_size)`,
`math.ceil(h / self.stride)`) become `_trt_size_int(E)`, `_trt_size_ceil(E)`,
`_trt_size_floor(E)`: the built-in in eager mode (and everywhere but a trace), and while a trace
passes a 0-d tensor, the traced `Ceil`/`Floor` and a cast to int64 (which truncates toward zero,
as `int` does), so the value stays a traced size. `E` may hold `**` and square roots: a token
grid's side `int(math.sqrt(x.shape[1]))` (vit-pytorch's RvT, `int(np.sqrt(h * w))`, `int(n ** 0.5)`)
becomes `_trt_size_int(_trt_size_sqrt(x.shape[1]))`, `math.sqrt` itself in eager mode and under
`torch.jit.script` (its scalar `aten::sqrt`), a float32 `Sqrt` while tracing; `math.sqrt` of a
size alone becomes `_trt_size_sqrt(...)`. The quotient rounded by torch, `int(torch.ceil(torch.tensor(h /
step)))` (py-feat's RetinaFace priors; `torch.floor`, `torch.as_tensor` alike), is the same rounding: torch
rounds a float32 of the quotient, which lands on the same integer as the float64 one for sizes below 2^24
(a further assumption of this form). A rounding of such a rounding is one number too: SpyNet's
size padded to a multiple of 32, `math.floor(math.ceil(w / 32.0) * 32.0)` (basicsr, mmagic), becomes
`_trt_size_floor(_trt_size_ceil(w / 32.0) * 32.0)` (only the inner call rewritten, the outer floor
read the traced size again), and a name bound to it counts as computed from sizes. `float(E)`
of such a number becomes `_trt_size_float(E)`: `float` in eager mode and scripted, a float32 0-d
tensor while a trace passes one, so SpyNet's flow scaled back by `float(w) / float(w_pad)` follows
the input (measured: exported at 64 px, the original graph resizes every input to 64 and scales by 1). A
`float(E)` inside a rounding is rewritten with it: ptlflow's stride padding `int(math.ceil(float(h) / stride)) *
stride` becomes `_trt_size_ceil(_trt_size_float(h) / stride) * stride` (rewriting the `float` alone left `math.ceil`
reading the traced number: FastFlowNet's graph kept the example's size), and `int(math.ceil(float(h) / 8))` the
integer form `(h + 7) // 8` (a size is an int, so its float divides to the same quotient). (A
`torch.linspace` whose step count then stays traced exports, through the TorchScript exporter's own linspace, a
division by `steps - 1`: one step gives NaN there.) Inside `migrate` or with `--facts`, the
operands may also be sizes a caller handed down: a parameter (`patch_h` in Depth Anything's
`int(patch_h * 14)`, `H` in a Swin stage's `int(np.ceil(H / self.window_size))`, the values of
`input_h, input_w = input_shape` in mmcv's adaptive padding, a size of an element of a local list
of tensors (SpyNet's pyramid: `int(math.floor(ref[0].size(2) / 2.0))`), an element of a local tuple such as
the window `get_window_size` returns in Video Swin's and monai's `int(np.ceil(h / window_size[0]))
* window_size[0]`) where the recorded run read no
tensor value at the call (its operands were numbers in eager mode) and the export warned there
(a traced size met Python); in `int(torch.ceil(torch.tensor(E)))` the run sees `int` read the tensor
made of `E`, which counts as no value read where nothing in `E` held a tensor (py-feat's RetinaFace priors,
`image_size` handed down). On the same evidence, a size rounded in NumPy and cast, `(np.round(x / m) * m).astype(int)`
(Depth Anything's `Resize.constrain_to_multiple_of`, `x` a scaled size handed down; `np.floor`, `np.ceil`,
`np.rint`, `np.trunc`... alike), becomes `_trt_size_astype(_trt_size_np(np.round, x / m) * m, int)`: NumPy's
own calls in eager mode (the same NumPy scalars), and while a trace passes a tensor torch's rounding of the same
meaning (`torch.round` halves to even, as `np.round`) and an int64 cast (truncating, as `astype`); the original
export stops there, a tensor having no `astype`. `isinstance(s, int)` of such a size (a validation: oflibpytorch's
`get_valid_shape` raises unless every size of `(flow.shape[0],) + flow.shape[2:]` is a positive int, pyro's
`next_fast_len` asserts it of `m + n - 1`) is False while the TorchScript exporter traces, where the size
is a 0-d tensor, so the export stops at the `raise` eager mode never reaches (and `torch.export` passes a
`torch.SymInt`, no `int` either); it becomes `_trt_size_is_int(s)`: `isinstance(s, int)` itself in eager
mode and scripted, also true for a 0-d integer tensor while a trace runs and for a `SymInt` (measured: the
oflibpytorch model stopped at the check exports and follows every size). With facts the operand may be any
name at a line where the export warned and the run read no tensor value (the generator's `item` over the
sizes a caller handed down). `isinstance(v, torch.Tensor)` of a parameter that takes a tensor or a size
(annotated `Union[torch.Tensor, int]`, or seen holding both in the recorded calls: Demucs' `center_trim(tensor,
reference)`, given a skip connection or the input's length) is True while the TorchScript exporter traces
a size, a 0-d tensor then, so the export takes the tensor's branch (`reference.size(-1)` of a 0-d tensor stops
it); `and not _trt_size_is_int(v)` is added beside it (unsafe: a 0-d integer tensor passed while tracing is taken
for a size), named at the whole `if` where the call is its test. Other uses are reported with the manual step: compute the number
outside the model and pass it in. Where such a number bounds a loop below it (`n_iters =
math.ceil(max(h, w) / k)`, then `for i in range(n_iters):`, kornia's distance transform), the
report says so and why no rewrite of the number helps: `range` reads it into a Python int again,
so the trace unrolls the loop for the example's size; the step by hand is a fixed trip count that
covers the largest deployed size (where later rounds change nothing) or the loop in a
`torch.jit.script` function. No fix is offered there, nor where the number is passed to a function
of the file whose parameter bounds such a loop (pytorch_filters' XDoG: `size1 = 2 * int(3 *
scaled_simga) + 1`, the sigma scaled by `(H + W) / 2`, passed to `variable_gaussian_blur(image,
size=size1)`, which fills the kernel in `for i in range(size)`), nor where it is computed from a
bound read whole (`offset = int(np.floor(size / 2))` beside `for i in range(size)`): kept traced it
meets the example's loop, and `migrate` tried and took back each such fix. A loop the recorded forwards never ran does not
count (latex-ocr's `generate`: `batch_size = int(images.size(0))` fills greedy decoding's first tokens and bounds a
loop over the images only for beam search): the number is then fixed as where no loop reads it. Where the number sizes
what the loop builds (a kernel whose shape follows the image's), no graph of one shape holds every
size: the report says to make the number a constant, or to declare the axes static and export one
engine per deployed size. Where the number decides an `if` that picks what a loop collects
(its test reads the number, or a local computed from it with Python arithmetic, and a branch
appends or ends the iteration), no fix is offered either: the trace keeps the branch the example
took at every size, so the number kept traced would meet the example's choice, another program
wherever eager mode takes the other branch. oriented-det's `derive_fpn_strides_from_grid` (zoo 29)
infers each level's stride as `int(image_size[0]) / int(fh)`, accepts its rounding only where the
ratio is whole (`if clean: strides.append(s_round); continue`) and falls back to the configured
stride: with `_trt_size_int` the export stopped at `round` of the traced ratio, and every round of
`migrate` verified and took back those fixes; the `if clean:` would stay the example's choice anyway
(at 257 px eager mode falls back to 32 where the traced ratio rounds to 29). The original graph
keeps the example's strides, which eager mode changes too where another ratio is whole
(measured on that model: 300 px gives a stride of 30 at the last level, 100 px 25), so the bake
is reported with the step by hand, and `migrate` keeps it an error even where its second trace
finds the same graph (the stretched size, odd, takes the fallback the example's whole ratios
gave): take a constant of the architecture from the configuration, or pad the input to a
multiple of the largest stride (where the inference gives the configured strides at every
size), or compute the choice in the graph.

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
a shape, `F.interpolate`'s size, `F.pad`'s padding do; `range(k)` reads it back into a number
as before, with the same TracerWarning). The `int`/`ceil`/`floor`/`round`/`sqrt` helpers are exact in eager
mode; while tracing, a traced `/` or square root is float32 (a Python float is a double), so a
quotient or root within float32's rounding of an integer can round the other way (a root of a
perfect square below 2**24 is exact), and a configuration value is a number. `_trt_size_is_int` assumes
that a 0-d integer tensor met while tracing is a size (an int in eager mode): a 0-d integer tensor a
caller really passed is an int to it only while tracing, where the original raised.
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
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h, w = x.shape[2:]\n"
                "        return F.interpolate(x, (int(h * self.scale), int(w * self.scale)))\n",
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h, w = x.shape[2:]\n"
                "        return F.interpolate(x, (_trt_size_int(h * self.scale), _trt_size_int(w * self.scale)))\n",
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
            Example(
                "class Preview(nn.Module):\n"
                "    def forward(self, x):\n"
                "        f = max(1, round(min(x.size()[-2:]) / 256))\n"
                "        return x[..., ::f, ::f]\n",
                "class Preview(nn.Module):\n"
                "    def forward(self, x):\n"
                "        f = _trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))\n"
                "        return x[..., ::f, ::f]\n",
                unsafe=True,
            ),
            Example(
                "class Side(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        if not isinstance(h, int):\n"
                "            raise TypeError(h)\n"
                "        return x[:, :, : h // 2]\n",
                "class Side(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        if not _trt_size_is_int(h):\n"
                "            raise TypeError(h)\n"
                "        return x[:, :, : h // 2]\n",
                unsafe=True,
            ),
        ),
        references=(_TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.clamp.html",
                    "https://onnx.ai/onnx/operators/onnx__Div.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._topk_arguments: set[int] = set()
        #: ``math.ceil(E)`` inside ``int(...)``: rewritten with the ``int`` call.
        self._rounded: set[int] = set()
        #: id of an ``if`` statement's test -> the statement.
        self._tests: dict[int, cst.If] = {}
        #: ids of ``isinstance(v, torch.Tensor)`` calls already beside ``not _trt_size_is_int(v)``.
        self._tested: set[int] = set()

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
        if id(node) in self._topk_arguments or id(node) in self._rounded:
            return
        if self._int_test(node) or self._numpy_cast(node):
            return
        builtin = self._builtin(node.func)
        name = builtin or self._math(node.func)
        if name is None:
            return
        positional = [a.value for a in node.args if a.keyword is None]
        observed = self._observed_size(node)
        if builtin in ("min", "max") and self._extreme_of_sizes(node, observed) is not None:
            pass  # `min(x.size()[-2:])`: the smallest of a tensor's sizes (piq's automatic downsampling)
        elif builtin in ("min", "max"):
            if len(positional) < 2 or len(positional) != len(node.args):
                return  # `max(sizes)` of a list, `key=`: not about one size
            # `max(1, round(h / 256))`: a rounding of a size is a number computed from sizes too.
            if not observed and not any(self.size_derived(v) or self._rounded_number(v, observed) is not None
                                        for v in positional):
                return
        elif builtin is not None:
            if not positional:
                return
            rounded = self._rounding(positional[0]) if builtin == "int" else None
            operand = rounded[1] if rounded is not None else positional[0]
            if not observed and (not self._size_number(operand) or self.is_tensor(operand)):
                return
        elif not observed and not any(self._size_number(v) for v in positional):
            return
        fix = self._fix(node, name, builtin is not None, positional) or self._rounded_fix(node, builtin)
        text = short_code(node)
        helper = self._helper_fix(node, builtin or "", name, positional, observed) if fix is None else None
        if builtin in ("min", "max") and helper is not None:
            fix, used = helper
            message = (f"`{text}` compares a traced size in Python: the TorchScript export keeps the example's "
                       f"choice as a constant; {used} keeps the choice in the graph while tracing")
        elif helper is not None:
            fix, used = helper
            message = (f"`{text}` turns a traced size into a Python number: the TorchScript export keeps the "
                       f"example's value; {used} keeps it a traced integer while tracing")
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
        branch = _collecting_branch(self.context.function, node) if self.context.function is not None else None
        if branch is not None:
            # The trace keeps the branch the example took whatever the number: a traced number under a baked
            # choice is another program wherever eager mode takes the other branch (zoo 29's stride helper).
            fix = None
            message = (f"`{text}` turns a traced size into a Python number that decides `if {short_code(branch.test)}:`"
                       f", {COLLECTING_BRANCH}: the TorchScript export keeps the branch the "
                       f"example took at every size, and no rewrite of the number alone is the same program (kept "
                       f"traced, it would meet the example's branch at sizes where eager mode takes the other); "
                       f"{COLLECTING_BRANCH_STEP}")
        trips = self._trip_count_note(node) if branch is None else ""
        if trips:
            # Kept traced, the number meets `range`, which reads it back into a Python int: the helper's
            # fix changes nothing the trace keeps (pytorch_filters' XDoG: a kernel size from the image's).
            fix = None
            message = f"`{text}` turns a traced size into a Python number: the TorchScript export keeps the " \
                      f"example's value{trips}"
        self.found(node, message, fix)

    def _numpy_cast(self, node: cst.Call) -> bool:
        """``(np.round(x / m) * m).astype(int)`` (Depth Anything's ``Resize.constrain_to_multiple_of``), where facts
        say the line is about sizes (the export warned there, the eager runs read no tensor value: ``x`` a size's
        multiple handed down): reported with ``_trt_size_np`` for each NumPy rounding and ``_trt_size_astype`` for
        the cast, NumPy's own calls in eager mode, the traced number while tracing (a tensor has no ``astype``:
        the export stops there). True when handled."""
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value != "astype" or len(node.args) != 1 \
                or node.args[0].keyword is not None:
            return False
        value = func.value
        calls = [n for n in walk(value) if type(n) is cst.Call]
        roundings = [c for c in calls if self._numpy_rounding(c)]
        if not roundings or len(roundings) != len(calls) or not self._observed_size(node):
            return False  # another call in the number, or no sign it is a size's
        self._rounded.update(id(c) for c in roundings)  # rewritten with the cast: no finding of their own

        class Rounded(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                return helper_call(SIZE_NUMPY_HELPER, updated.func, updated.args[0].value)

        number = value.visit(Rounded())
        rewritten = helper_call(SIZE_ASTYPE_HELPER, number.with_changes(lpar=[], rpar=[]), node.args[0].value)
        text = short_code(node)
        self.found(node, f"`{text}` reads a traced size into NumPy: the TorchScript export stops there (a tensor has "
                         f"no `astype`) or keeps the example's value; {SIZE_NUMPY_HELPER} and {SIZE_ASTYPE_HELPER} "
                         "are NumPy's calls in eager mode and keep a traced number while tracing",
                   Fix({node: rewritten}, safety=Safety.UNSAFE, helpers=(SIZE_NUMPY_HELPER, SIZE_ASTYPE_HELPER)))
        return True

    def _numpy_rounding(self, call: cst.Call) -> bool:
        """``np.round(E)`` (one positional argument; ``around``, ``rint``, ``floor``, ``ceil``, ``trunc``, ``fix``)."""
        return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star \
            and bool(set(self.context.qualified_names(call.func)) & _NUMPY_ROUNDINGS)

    def _int_test(self, node: cst.Call) -> bool:
        """``isinstance(s, int)`` of a size (``s`` from a shape, or, with facts, a name where the export
        warned and the run read no tensor value): reported with ``_trt_size_is_int``; True when handled."""
        func = node.func
        if type(func) is not cst.Name or func.value != "isinstance" or self.context.resolver.binds("isinstance"):
            return False
        if len(node.args) != 2 or any(a.keyword is not None or a.star for a in node.args):
            return False
        kind, value = node.args[1].value, node.args[0].value
        if self.context.refers_to(kind, "torch.Tensor") is not None:
            return self._tensor_test(node, value)
        if type(kind) is not cst.Name or kind.value != "int" or self.context.resolver.binds("int"):
            return False
        if self.is_tensor(value) or not (self.size_derived(value) or self._observed_size(node)):
            return False
        text = short_code(node)
        message = (f"`{text}` is False for a traced size: the TorchScript export passes a size as a 0-d tensor "
                   f"(and torch.export as a SymInt), so the export takes the branch eager mode never takes (a "
                   f"validation raises); {SIZE_IS_INT_HELPER} also takes a traced size for the int it stands for")
        fix = Fix({node: helper_call(SIZE_IS_INT_HELPER, value)}, safety=Safety.UNSAFE, helpers=(SIZE_IS_INT_HELPER,))
        self.found(node, message, fix)
        return True

    def _tensor_test(self, node: cst.Call, value: cst.BaseExpression) -> bool:
        """``isinstance(v, torch.Tensor)`` of a parameter that takes a tensor or a size (annotated
        ``Union[torch.Tensor, int]``, or seen holding both in the recorded calls: demucs's ``center_trim(tensor,
        reference)``, given a skip connection and the input's length): True while a trace passes a size, a 0-d
        tensor then, so the export runs the tensor's branch (``reference.size(-1)`` of a 0-d tensor stops it)."""
        function = self.context.function
        if type(value) is not cst.Name or function is None or not self._local(value.value) or id(node) in self._tested:
            return False
        params = function.params
        param = next((p for p in [*params.posonly_params, *params.params, *params.kwonly_params]
                      if p.name.value == value.value), None)
        if param is None or any(value.value in bound_in(s) for s in function.body.body):
            return False
        held = self._observed.parameter_kinds(function).get(value.value, frozenset())
        if not ({"tensor", "int"} <= held or param.annotation is not None
                and _tensor_or_int(param.annotation.annotation, self.context)):
            return False
        text = short_code(node)
        message = (f"`{text}` is True for a size the TorchScript export passes (a 0-d tensor while tracing) where "
                   f"eager mode passes an int, so the export takes the tensor's branch eager mode never takes for a "
                   f"size; `not {SIZE_IS_INT_HELPER}({value.value})` beside it keeps the int's branch for a traced "
                   "size")
        statement = self._tests.get(id(node))
        # Parenthesised unless it is the `if`'s whole test (`not isinstance(...)` must negate both).
        parens = {} if statement is not None else dict(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        test = cst.BooleanOperation(left=node, operator=cst.And(), right=cst.UnaryOperation(
            operator=cst.Not(), expression=helper_call(SIZE_IS_INT_HELPER, value)), **parens)
        fix = Fix({node: test}, safety=Safety.UNSAFE, helpers=(SIZE_IS_INT_HELPER,))
        # Named at the whole `if` where the call is its test: the export stops in the branch it takes.
        self.found(statement or node, message, fix)
        return True

    def visit_If(self, node: cst.If) -> None:
        self._tests[id(node.test)] = node

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        right = node.right
        if type(node.operator) is cst.And and type(right) is cst.UnaryOperation and type(right.operator) is cst.Not \
                and type(right.expression) is cst.Call and type(right.expression.func) is cst.Name \
                and right.expression.func.value == SIZE_IS_INT_HELPER:
            self._tested.add(id(node.left))  # this rule's own rewrite: `isinstance(v, torch.Tensor) and not ...`

    def _trip_count_note(self, node: cst.Call) -> str:
        """Where the number is the bound of a loop below (``n = math.ceil(max(h, w) / k)``, then ``for i in
        range(n):``), what no arithmetic changes: ``range`` reads it into a Python int again, so the trace
        unrolls the loop as many times as the example's size needs (kornia's distance transform). Also
        where the number is computed from such a bound (``offset = int(size / 2)`` beside ``for i in
        range(size)``: the loop is the example's anyway), and where it is passed to a function of this file
        whose parameter bounds such a loop (``blur(image, size=2 * int(3 * sigma) + 1)`` with ``for i in
        range(size)`` building the kernel there: pytorch_filters' XDoG)."""
        function = self.context.function
        if function is None:
            return ""
        # Names bound to the number or to arithmetic on it, not to a tensor it indexes (MPRNet's
        # `top = x[..., 0:int(H / 2), :]`, whose list of patches a helper's `range(len(feats))` counts).
        names = {target.value for statement in walk(function) if type(statement) is cst.Assign
                 and _holds_number(statement.value, node)
                 for assigned in statement.targets for target in [assigned.target] if type(target) is cst.Name}
        bound = _range_bound(function, lambda n: n is node or type(n) is cst.Name and n.value in names)
        relation = "it is the trip count"
        if bound is None:
            # A number read whole as the bound (`range(size)`) and used here (`int(np.floor(size / 2))`).
            read = {n.value for arg in node.args for n in walk(arg.value) if type(n) is cst.Name}
            bound = _range_bound(function, lambda n: type(n) is cst.Name and n.value in read, whole=True)
            relation = "it is computed from the trip count" if bound is not None else relation
        if bound is not None and _one_round(function, bound):
            return ""  # one round at every size: the number is no trip count the trace gets wrong
        if bound is not None and self._observed.known and self._observed.ran(bound) is False:
            # The loop never ran in the recorded forwards (latex-ocr's `generate` counts beams image by image only
            # when `beam_size > 1`; greedy decoding fills `torch.full((batch_size, 1), bos)`): the number is what
            # the code that ran reads, and kept traced it follows the batch there.
            return ""
        where = ""
        if bound is None:
            callee = self._bounding_callee(function, node, names)
            if callee is None:
                return ""
            bound, where = callee[0], f" in `{callee[1]}`, the function it is passed to"
        # The loop is named by its code: rules read no positions but through providers.
        return (f"; {relation} of the loop `for ... in {short_code(bound)}`{where}, which `range` "
                "reads into a Python int again: the trace unrolls the loop as many times as the example's "
                "size needs, so a larger input gets too few rounds and no arithmetic on the size changes "
                "that. By hand: loop a fixed number of times that covers the largest size you deploy "
                "(where later rounds change nothing, as in a cascade that has settled), or move the loop "
                "into a torch.jit.script function (an ONNX Loop with a dynamic trip count); where the number "
                "sizes what the loop builds (a kernel whose size follows the image's), no graph of one shape "
                "holds every size: make the number a constant, or declare the axes static and export one "
                "engine per deployed size")

    def _bounding_callee(self, function: cst.FunctionDef, node: cst.Call,
                         names: set[str]) -> tuple[cst.Call, str] | None:
        """The ``range(...)`` bound and name of a module-level function of this file that ``function`` calls
        with ``node`` or a name bound from it, where the parameter it fills bounds a ``for`` loop there."""
        defined = {s.name.value: s for s in self.context.module.body if type(s) is cst.FunctionDef}
        for call in walk(function):
            if type(call) is not cst.Call or type(call.func) is not cst.Name:
                continue
            callee = defined.get(call.func.value)
            if callee is None or callee is function or self.context.qualified_names(call.func):
                continue
            params = [*callee.params.posonly_params, *callee.params.params, *callee.params.kwonly_params]
            for index, arg in enumerate(call.args):
                if arg.star or not any(n is node or type(n) is cst.Name and n.value in names for n in walk(arg.value)):
                    continue
                keyword = arg.keyword.value if arg.keyword is not None else None
                param = next((p.name.value for p in params if p.name.value == keyword), None) if keyword else \
                    (params[index].name.value if index < len(params) else None)
                bound = _range_bound(callee, lambda n, name=param: type(n) is cst.Name and n.value == name) \
                    if param is not None else None
                if bound is not None:
                    return bound, callee.name.value
        return None

    def _observed_size(self, node: cst.Call) -> bool:
        """Facts say ``node`` is about sizes: the observed export warned at its line that a traced
        value became a Python number, and the eager runs read no tensor value there (its operands
        were numbers then: sizes handed down by a caller, ``patch_h`` in ``int(patch_h * 14)``)."""
        if not (self._observed.known and self.traced_at(node)):
            return False
        if self._observed.reads_values(node) is False:
            return True
        # `int(torch.ceil(torch.tensor(E)))` reads the tensor `torch.tensor` made of `E`: a size for as long as `E`
        # held no tensor in the run (py-feat's RetinaFace priors, `E` the image size over a step).
        rounded = self._rounding(node.args[0].value) if len(node.args) == 1 and self._builtin(node.func) == "int" \
            else None
        return rounded is not None and self.context.refers_to(node.args[0].value.func, "torch.ceil",  # type: ignore
                                                              "torch.floor") is not None \
            and self._observed.reads_values_but_its_own(node) is False \
            and not any(self._observed.is_tensor(n) for n in walk(rounded[1])
                        if type(n) in (cst.Name, cst.Call, cst.Subscript))

    def _rounding(self, expr: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
        """``("ceil", E)`` for ``math.ceil(E)``/``np.ceil(E)`` (floor alike), or ``torch.ceil(torch.tensor(E))``
        (py-feat's RetinaFace priors: ``int(torch.ceil(torch.tensor(image_size[0] / step)))``, a float32 of the
        quotient, which rounds as the float64 one for sizes below 2^24): what ``int()`` of it rounds."""
        if type(expr) is not cst.Call or len(expr.args) != 1 or expr.args[0].keyword or expr.args[0].star:
            return None
        for qualified in self.context.qualified_names(expr.func):
            module, _, function = qualified.rpartition(".")
            if module in ("math", "numpy") and function in ("ceil", "floor"):
                return function, expr.args[0].value
            if module == "torch" and function in ("ceil", "floor"):
                made = expr.args[0].value
                if type(made) is cst.Call and len(made.args) == 1 and not made.args[0].keyword \
                        and not made.args[0].star and self.context.refers_to(made.func, "torch.tensor",
                                                                             "torch.as_tensor") is not None:
                    return function, made.args[0].value
        return None

    def _rounded_fix(self, node: cst.Call, builtin: str | None) -> Fix | None:
        """``int(math.ceil(s / k))`` (or ``np.ceil``): the integer form of the inner call, for the whole."""
        rounded = self._rounding(node.args[0].value) if builtin == "int" and len(node.args) == 1 else None
        if rounded is None:
            return None
        inner = node.args[0].value
        fix = self._fix(inner, rounded[0], False, [rounded[1]])  # type: ignore[arg-type]
        if fix is None:
            return None
        self._rounded.add(id(inner))
        return Fix({node: next(iter(fix.replacements.values()))}, safety=Safety.UNSAFE)

    def _number(self, expr: cst.BaseExpression, observed: bool, integer: bool = False) -> bool:
        """A number the helpers may take: sizes, literals, configuration (``self.patch_size``,
        ``self.stride[0]``) and ``+ - * / //`` of those; with ``observed``, any plain name too.
        ``integer``: no float literal, no ``/`` (configuration and names are taken as ints)."""
        if type(expr) is cst.Integer or self.integer_size(expr) or self._extreme_of_sizes(expr, observed) is not None:
            return True
        rounding = self._rounded_number(expr, observed)
        if rounding is not None:
            return self._number(rounding, observed)  # `round(E)` is an integer whatever `E` is
        if not integer and (type(expr) is cst.Float or self.size_derived(expr)
                            or self._converted_number("float", expr, observed) is not None):
            return True
        operators = INTEGER_OPERATORS if integer else _NUMBER_OPERATORS
        if type(expr) is cst.BinaryOperation and type(expr.operator) in operators:
            return self._number(expr.left, observed, integer) and self._number(expr.right, observed, integer)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._number(expr.expression, observed, integer)
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index \
                and int_value(expr.slice[0].slice.value) is not None:  # type: ignore[union-attr]
            # With facts, `window_size[0]` of a local tuple too (Video Swin's window from `get_window_size`).
            return configuration(expr.value) or observed and (self._loose_size(expr) or _read_of_name(expr))
        if configuration(expr):
            return True
        if self._extreme_of_two(expr, observed) is not None \
                or self._converted_number("int", expr, observed) is not None:
            # julius's framing, `math.ceil((max(length, k) - k) / stride)`, and its block, `min(int(k * ratio),
            # length)`: the larger of two integers, and `int` of a number, are integers the helpers keep traced.
            return True
        rounded = self._rounding(expr)
        if rounded is not None:
            # `math.ceil(x / stride)` inside `max(...)` (TensorFlow's "SAME" padding): an int of a number.
            return self._number(rounded[1], observed)
        root = self._square_root(expr) if not integer else None
        if root is not None:
            return self._number(root, observed)
        return observed and (type(expr) is cst.Name or self._loose_size(expr) or _read_of_name(expr))

    def _size_number(self, expr: cst.BaseExpression) -> bool:
        """A size, arithmetic on sizes with non-tensors, or such a number under ``math.sqrt``
        (``int(math.sqrt(n))`` of a token count, ``int(math.sqrt(h) * 2)``)."""
        if self.size_derived(expr) or self._extreme_of_sizes(expr, False) is not None:
            return True
        root = self._square_root(expr)
        if root is not None:
            return self._size_number(root)
        rounding = self._rounded_number(expr, False)
        if rounding is not None:
            return self._size_number(rounding)  # `round(min(x.size()[-2:]) / 256)`
        floated = self._converted_number("float", expr, False)
        if floated is not None:
            return self._size_number(floated)  # `float(h) / stride`
        if self._extreme_of_two(expr, False) is not None:
            # `max(length, k) - k` (julius's frame count): the larger of a size and a number.
            return any(self._size_number(a.value) for a in expr.args)  # type: ignore[attr-defined]
        rounded = self._rounding(expr)
        if rounded is not None:
            # `math.floor(math.ceil(w / 32.0) * 32.0)` (SpyNet's padded size): the outer call reads the
            # traced size too, and the whole is rewritten with its inner rounding.
            return self._size_number(rounded[1])
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _NUMBER_OPERATORS:
            sides = (expr.left, expr.right)
            return any(self._size_number(v) for v in sides) and not any(self.is_tensor(v) for v in sides)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._size_number(expr.expression)
        return False

    def _rounded_number(self, expr: cst.BaseExpression, observed: bool) -> cst.BaseExpression | None:
        """``E`` of ``round(E)`` (the built-in, one argument: an integer), where ``E`` is a number the
        helpers take; None for ``round(E, ndigits)`` (a float) and for anything else."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or expr.func.value != "round" \
                or self._builtin(expr.func) is None or len(expr.args) != 1 or expr.args[0].keyword \
                or expr.args[0].star:
            return None
        inner = expr.args[0].value
        if self.is_tensor(inner) or not (self._size_number(inner) or observed and self._number(inner, observed)):
            return None
        return inner

    def _extreme_of_two(self, expr: cst.BaseExpression, observed: bool) -> str | None:
        """``"max"`` for ``max(a, b)`` of two integers the helpers take (``min`` alike), nested in a number."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or expr.func.value not in ("min", "max") \
                or self._builtin(expr.func) is None or len(expr.args) != 2 \
                or any(a.keyword or a.star for a in expr.args):
            return None
        if not all(self._number(a.value, observed, integer=True) for a in expr.args):
            return None
        return expr.func.value

    def _converted_number(self, builtin: str, expr: cst.BaseExpression, observed: bool) -> cst.BaseExpression | None:
        """``E`` of the built-in ``int(E)`` or ``float(E)`` (``builtin``, one argument) where ``E`` is a number the
        helpers take and no tensor: ptlflow's InputScaler pads to a stride by ``int(math.ceil(float(h) / stride)) *
        stride``."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or expr.func.value != builtin \
                or self._builtin(expr.func) is None or len(expr.args) != 1 or expr.args[0].keyword \
                or expr.args[0].star:
            return None
        inner = expr.args[0].value
        if self.is_tensor(inner) or not self._number(inner, observed):
            return None
        return inner

    def _extreme_of_sizes(self, expr: cst.BaseExpression, observed: bool) -> str | None:
        """``"min"`` for ``min(x.size()[-2:])`` (``max`` alike): the built-in of one argument, a tensor's
        sizes or a slice of them (with ``observed``, of a name the recorded run saw as a tensor)."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or expr.func.value not in ("min", "max") \
                or self._builtin(expr.func) is None or len(expr.args) != 1 or expr.args[0].keyword \
                or expr.args[0].star:
            return None
        sizes = expr.args[0].value
        if type(sizes) is cst.Subscript and (len(sizes.slice) != 1 or type(sizes.slice[0].slice) is not cst.Slice):
            return None
        if self._shape_owner(sizes) is None and not (observed and self._loose_owner(sizes) is not None):
            return None
        return expr.func.value

    def _square_root(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """``E`` of ``math.sqrt(E)`` (or ``np.sqrt(E)``): a root the helpers keep traced."""
        if type(expr) is not cst.Call or len(expr.args) != 1 or expr.args[0].keyword or expr.args[0].star:
            return None
        for qualified in self.context.qualified_names(expr.func):
            if qualified in ("math.sqrt", "numpy.sqrt"):
                return expr.args[0].value
        return None

    def _traced_roots(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, set[str]]:
        """``expr`` with each ``math.sqrt(E)`` in it as ``_trt_size_sqrt(E)`` and each ``math.ceil(E)``
        / ``math.floor(E)`` (or NumPy's) as ``_trt_size_ceil(E)`` / ``_trt_size_floor(E)``; the helpers
        used. The inner calls are rewritten with the outer one: they get no finding of their own."""
        rule = self

        class Roots(cst.CSTTransformer):
            used: set[str] = set()

            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
                pair = rule._extreme_of_two(original, True)
                if pair is not None or rule._converted_number("int", original, True) is not None:
                    # `max(a, b)` and `int(E)` inside the number: the traced helpers, rewritten with it.
                    rule._rounded.add(id(original))
                    helper = SIZE_INT_HELPER if pair is None else SIZE_MIN_HELPER if pair == "min" else SIZE_MAX_HELPER
                    Roots.used = Roots.used | {helper}
                    return helper_call(helper, *(a.value for a in updated.args))
                if rule._converted_number("float", original, True) is not None:
                    # `float(h)` inside the rounded number: the float helper, or the call would read the size.
                    rule._rounded.add(id(original))
                    Roots.used = Roots.used | {SIZE_FLOAT_HELPER}
                    return helper_call(SIZE_FLOAT_HELPER, updated.args[0].value)
                rounded = rule._rounding(original)
                if rule._rounded_number(original, True) is not None:
                    rounded = ("round", original.args[0].value)
                extreme = rule._extreme_of_sizes(original, True)
                if extreme is not None:
                    rounded = (extreme, original.args[0].value)
                if rule._square_root(original) is None and rounded is None:
                    return updated
                rule._rounded.add(id(original))
                helper = SIZE_SQRT_HELPER if rounded is None else \
                    {**_ROUNDING_HELPERS, **_SIZES_HELPERS, "round": SIZE_ROUND_HELPER}[rounded[0]]
                Roots.used = Roots.used | {helper}
                return helper_call(helper, updated.args[0].value)

        rewritten = expr.visit(Roots())
        return rewritten, Roots.used  # type: ignore[return-value]

    def _helper_fix(self, node: cst.Call, builtin: str, name: str, positional: list[cst.BaseExpression],
                    observed: bool) -> tuple[Fix, str] | None:
        """The call → a helper that is the same call in eager mode and keeps the traced size while
        tracing: ``_trt_size_min``/``_max``, ``_trt_size_int``, ``_trt_size_ceil``/``_floor``."""
        if len(positional) != len(node.args):
            return None
        extreme = self._extreme_of_sizes(node, observed)
        if extreme is not None:
            # `min(x.size()[-2:])`: the sequence goes in whole, so any rank gives `min`'s own result
            # (and its ValueError for an empty slice); no rank or count of sizes is assumed.
            helper = _SIZES_HELPERS[extreme]
            return Fix({node: helper_call(helper, positional[0])}, safety=Safety.UNSAFE, helpers=(helper,)), helper
        if builtin in ("min", "max"):
            # Both integers or both floats: with one of each, eager code gets whichever wins, an int
            # or a float, where the traced choice would be a float tensor.
            if len(positional) != 2:
                return None
            floats = [_float_valued(v, self.context.function) for v in positional]
            if all(floats):
                # Two floats (a letterbox gain, `min(h / h0, w / w0)`): eager returns a float either way.
                helper = SIZE_MIN_FLOAT_HELPER if builtin == "min" else SIZE_MAX_FLOAT_HELPER
            elif not any(floats) and all(self._number(v, observed, integer=True) for v in positional):
                helper = SIZE_MIN_HELPER if builtin == "min" else SIZE_MAX_HELPER
            else:
                return None
            arguments = positional
        elif len(positional) != 1:
            return None
        elif builtin == "float":
            helper, arguments = SIZE_FLOAT_HELPER, positional
        elif builtin == "int":
            rounded = self._rounding(positional[0])
            if rounded is not None:
                self._rounded.add(id(positional[0]))  # rewritten with this call: no finding of its own
                helper, arguments = _ROUNDING_HELPERS[rounded[0]], [rounded[1]]
            else:
                helper, arguments = SIZE_INT_HELPER, positional
        elif not builtin and name in _ROUNDING_HELPERS:
            helper, arguments = _ROUNDING_HELPERS[name], positional
        elif not builtin and name == "sqrt":
            helper, arguments = SIZE_SQRT_HELPER, positional
        elif builtin == "round" and self._rounded_number(node, observed) is not None:
            helper, arguments = SIZE_ROUND_HELPER, positional  # `round(E, ndigits)` is left: a float
        else:
            return None
        if not all(self._number(v, observed) for v in arguments):
            return None
        helpers = (helper,)
        if helper != SIZE_SQRT_HELPER:
            rooted = [self._traced_roots(v) for v in arguments]
            arguments = [v for v, _ in rooted]
            inner = sorted(set().union(*(used for _, used in rooted)) - {helper})
            helpers = (helper, *inner)
        return Fix({node: helper_call(helper, *arguments)}, safety=Safety.UNSAFE, helpers=helpers), helper

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
        # `math.ceil(float(h) / 8)`: a size is an int, so its float divides to the same quotient (exact below
        # 2**53) and the integer form is the same number.
        numerator = self._converted_number("float", arg.left, False) or arg.left
        if self.size_of(numerator) is None or arg.lpar:
            return None
        k = int_value(arg.right)
        if k is None or k <= 0 or type(arg.right) is not cst.Integer:
            return None
        size = code_of(numerator)
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
        summary="`if` on a tensor's emptiness or element count, or a Python decision on a size the trace "
                "warned of: the export keeps one branch",
        doc="""\
What it finds, in forward code: an `if` (or `elif`) whose condition tests a tensor size
for emptiness (`if x.shape[0] == 0:`, `if not len(dets):`, `if boxes.numel():`,
`> 0`, `< 1`...), compares an element count (`if boxes.numel() > 4000:`), or compares any
size of a tensor whose size depends on the data (`keep = boxes[scores > t]` then
`if keep.shape[0] > max_det:`; also after `nonzero`, `masked_select`, `unique`). Sizes
that describe the layout (`if x.shape[1] == 3:`, `if x.dim() == 4:`) are not reported,
nor tests on tensor values (TRT101's).

With observed facts (`migrate`, `--facts`), also any Python decision on a size, or on
arithmetic on sizes, where the observed TorchScript export warned that it turned a traced
value into a Python bool at that line: the test of an `if`, `elif`, `while` or conditional
expression, the left side of `and`/`or` and the operand of `not` (kornia's CLAHE:
`odd = tile_h % 2 == 1 or tile_w % 2 == 1`, then `f(x, not odd)` and `if odd:` pick one of two
algorithms by the parity of `ceil(H / grid)`; transformers' `q_len > 1 and mask is None`), and
a name bound to such a decision. Which axes are dynamic is the export's business, not the
code's, so without that warning (a layout size, code never traced) nothing is reported; and
`migrate` says for each whether the graph changed with the dynamic axes (the same graph at two
sizes: a warning only). An `if` whose block only raises (after assignments to plain names at
most) is a check the graph drops, said so.

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

For a decision on a dynamic size: compute both cases in the graph and select with
`torch.where` on the traced size (where both run at every size), export one graph per case,
or declare the axis static and export at the deployed size.

The rewrite (a decision the export warned of, in an `if`/`else` or an `if` with no `else`
whose branches only assign plain names: TRT101's form and refusals, see `trtcodemod explain
TRT101`) becomes, with the observed facts that found it (`migrate`, `--facts`):

    if not torch.jit.is_scripting() and torch.jit.is_tracing():
        _trt_cond = _trt_size_truth(size[0] % 2)
        x = _trt_traced_where(_trt_cond, torch.arange(-(size[0] - 1) / 2, size[0] / 2) / (size[0] - 1),
                            torch.arange(-size[0] / 2, size[0] / 2) / size[0])
    elif size[0] % 2:
        x = torch.arange(-(size[0] - 1) / 2, size[0] / 2) / (size[0] - 1)
    else:
        x = torch.arange(-size[0] / 2, size[0] / 2) / size[0]

the original `if` kept as the `elif` that eager mode and scripting run (TorchScript compiles
nothing behind `not torch.jit.is_scripting()`); while tracing, the
condition's truth as a 0-d bool tensor (`_trt_size_truth`: the traced decision itself, no constant
recorded; `not`/`and`/`or` of decisions on sizes become `logical_not`/`logical_and`/`logical_or`),
every branch's values, and each name selected with `_trt_traced_where`:
`torch.where` on the traced size for tensors of one shape and dtype (tuples and lists of them
element by element); anything else (a Python number, tensors of other shapes at the traced
size) reads the condition as the `if` did, so the trace keeps the example's case with its
warning and nothing is hidden. A number the function was handed as a size counts too: a
parameter annotated `int` or `Tuple[int, int]`/`List[int]` (piq's `get_meshgrid(size)`,
`if size[0] % 2:` picking the odd or even centring of the grid), whose elements are 0-d
tensors while tracing. Not rewritten: an `elif` chain, a branch that returns, raises or
does more than assign, a branch that pads, crops, resizes, repeats, expands or joins (`F.pad`,
`x[:, :n]`, `interpolate`, `repeat`, `expand`, `torch.cat`: values of other shapes, TRT717's forms), a condition that names a decision taken on an earlier line (`odd = h %
2 == 1 or ...; if odd:`: Python took its truth there) or stays a Python value (`int()`,
`min()`), and a check whose block only raises. A crop the code does not show (a method called
in the branch, ptlflow's `x = self.unpad(x)` under `if x.shape[-2] == self.tgt_size[0] and
...:`) can give both names one shape at the traced size and two at others: the graph's `Where`
is then refused at those sizes, and `migrate` takes this fix back alone (its verification runs
the graph at other sizes), keeping the others.

Fix safety: unsafe. Eager mode and scripting run the original `if` (`torch.jit.is_tracing()`
is False in eager mode, and TorchScript drops the branch behind `not torch.jit.is_scripting()`): the same values, cost and exceptions. While tracing, both branches run at
every size: the rewrite assumes that both run without raising at every size of the dynamic
axes, give values of one shape and dtype there (the trace checks the example's size only; a
pad whose size differs per branch is not this), and are cheap enough to compute both; a
branch that is not taken computes inf or NaN harmlessly (`torch.where` selects the other),
but its gradient may be NaN. The dynamo exporter (`torch.jit.is_tracing()` is False under
`torch.export`) keeps the `if` as before. Matters for both exporters and every TensorRT
version.""",
        fix=Safety.UNSAFE,
        assumption=("both branches run without raising at every size of the dynamic axes and give values of one "
                    "shape and dtype there, and computing both is cheap enough (only while tracing; eager mode keeps "
                    "the `if`)"),
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

    def visit_Module(self, node: cst.Module) -> None:
        super_visit = getattr(super(), "visit_Module", None)
        if super_visit is not None:
            super_visit(node)
        #: Truth tests already looked at as a whole (an `if`'s test), not again as their parts.
        self._tested: set[int] = set()
        #: The `elif`s of a chain (an `if`'s `orelse`): not rewritten alone.
        self._elifs: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if not self._frames or not self.active():
            return
        if self._value_when_exporting(node.test) is not None:
            return
        found = self._guard(node.test, truth=True)
        if found is not None:
            self._taken(node.test)
            self.found(node.test, f"`{short_code(node.test)}` branches on {found}: a traced export keeps only "
                       "the branch the example took (torch.export stops on it when the size comes from data); "
                       "make both branches one computation, state the assumption with torch._check, or take "
                       "the decision outside the graph")
            return
        self._decision(node.test, "branches on", checks=_only_raises(node), statement=node)
        if type(node.orelse) is cst.If:
            self._elifs.add(id(node.orelse))

    def visit_While(self, node: cst.While) -> None:
        super().visit_While(node)
        if self._frames and self.active() and self._value_when_exporting(node.test) is None:
            self._decision(node.test, "repeats a loop on", loop=True)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._frames and self.active() and self._value_when_exporting(node.test) is None:
            self._decision(node.test, "chooses a value on")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a or b` takes the truth of `a` (kornia's `odd = h % 2 == 1 or w % 2 == 1`).
        if self._frames and self.active() and id(node) not in self._tested:
            self._decision(node, "decides on", truth=node.left)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        # `f(x, not odd)` takes the truth of `odd`.
        if type(node.operator) is cst.Not and self._frames and self.active() and id(node) not in self._tested:
            self._decision(node, "decides on")

    def _taken(self, test: cst.BaseExpression) -> None:
        self._tested.update(id(n) for n in walk(test))

    def _decision(self, test: cst.BaseExpression, verb: str, *, truth: cst.BaseExpression | None = None,
                  checks: bool = False, loop: bool = False, statement: cst.If | None = None) -> None:
        """Report a Python truth test of a decision on sizes (:meth:`size_decision`; ``truth``: the part
        whose truth Python takes, the whole ``test`` by default) where the observed export warned that
        it turned a traced value into a Python bool: the graph keeps the example's answer. ``statement``:
        the `if` that ``test`` decides, rewritten when its branches only assign (:meth:`_blend`)."""
        self._taken(test)
        tested = test if truth is None else truth
        if not (self.size_decision(tested) or self.size_derived(tested) or self._on_given_sizes(tested)) \
                or not self.traced_at(test):
            return
        code = short_code(test)
        if any(self.size_of(part) for part in walk(tested) if isinstance(part, cst.BaseExpression)):
            # A size of a tensor the data sizes (`order = order[keep]`, a `nonzero`): no input size decides it.
            self.found(test, f"`{code}` {verb} a size the data decides, and the traced export warned here: the "
                             "graph keeps the example's count; compute a fixed maximum with a mask (a top-k of "
                             "a fixed K), or take this step out of the graph")
            return
        if loop:
            self.found(test, f"`{code}` {verb} a size in Python, and the traced export warned here: the graph "
                             "unrolls the loop as many times as the example ran it; loop a fixed number of times "
                             "with a mask (a fixed maximum), or take this step out of the graph")
            return
        if checks:
            self.found(test, f"`{code}` checks a size in Python, and the traced export warned here: the graph "
                             "drops the check (only eager mode raises); check the size before running the graph, "
                             "or state it with torch._check for torch.export")
            return
        message = (f"`{code}` {verb} a size in Python, and the traced export warned here: the graph keeps "
                   "the decision of the example's size; at a size of a dynamic axis that decides otherwise "
                   "it computes the other case's values")
        fix, reason = self._blend(statement) if statement is not None else (None, "")
        if fix is not None:
            self.found(test, message + "; while tracing, both branches are computed and selected with "
                       "torch.where on the traced size (eager mode keeps the `if`)", fix)
            return
        self.found(test, message + ". Compute both cases in the graph and select with `torch.where` on the "
                   "traced size, export one graph per case, or declare the axis static and export at the "
                   "deployed size" + (f" (not rewritten: {reason})" if reason else ""))

    def _on_given_sizes(self, expr: cst.BaseExpression) -> bool:
        """Arithmetic or a comparison on numbers the function was given as sizes (piq's ``get_meshgrid(size:
        Tuple[int, int])``: ``if size[0] % 2:``), with numbers and other sizes: what the export warned of at
        this line can only be such a number, a 0-d tensor while tracing."""
        return bool(self._numeric(expr))

    def _given_size(self, part: cst.BaseExpression) -> bool:
        """An ``int`` parameter, or an element of a parameter annotated as a sequence of ints."""
        if self.int_parameter(part):
            return True
        return type(part) is cst.Subscript and len(part.slice) == 1 and type(part.slice[0].slice) is cst.Index \
            and type(part.value) is cst.Name and part.value.value in self._int_sequences()

    def _numeric(self, part: cst.BaseExpression) -> bool | None:
        """None: not a number; else whether a given size is in it. (A method, not a closure: a recursive
        local function is a reference cycle that keeps the rule and the tree alive after the pass.)"""
        if self._given_size(part):
            return True
        if type(part) in (cst.Integer, cst.Float) or self.size_derived(part):
            return False
        if type(part) is cst.UnaryOperation and type(part.operator) in (cst.Minus, cst.Plus, cst.Not):
            return self._numeric(part.expression)
        if type(part) is cst.BinaryOperation:
            sides = self._numeric(part.left), self._numeric(part.right)
            return None if None in sides else any(sides)
        if type(part) is cst.Comparison:
            sides = [self._numeric(part.left), *(self._numeric(c.comparator) for c in part.comparisons)]
            return None if None in sides else any(sides)
        return None

    def _int_sequences(self) -> set[str]:
        """Parameters of the current function annotated ``Tuple[int, ...]``, ``tuple[int, int]``,
        ``List[int]`` or ``Sequence[int]`` (sizes handed in), never rebound in it."""
        function = self.context.function
        if function is None:
            return set()
        params = function.params
        found = set()
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            annotation = param.annotation.annotation if param.annotation is not None else None
            if type(annotation) is not cst.Subscript or type(annotation.value) not in (cst.Name, cst.Attribute):
                continue
            outer = annotation.value.value if type(annotation.value) is cst.Name else annotation.value.attr.value
            elements = [e.slice.value for e in annotation.slice if type(e.slice) is cst.Index]
            if outer in ("Tuple", "tuple", "List", "list", "Sequence") and elements and all(
                    type(e) is cst.Name and e.value == "int" or type(e) is cst.Ellipsis for e in elements):
                found.add(param.name.value)
        rebound = {n for node in walk(function.body) if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign)
                   for target in ([t.target for t in node.targets] if type(node) is cst.Assign else [node.target])
                   for n in bound_names(target)}
        return found - rebound

    def _blend(self, node: cst.If) -> tuple[Fix | None, str]:
        """``if C: a = X else: a = Y`` (branches that only assign plain names, TRT101's form) made
        ``if not torch.jit.is_scripting() and torch.jit.is_tracing(): _trt_cond = _trt_size_truth(C);
        a = _trt_traced_where(_trt_cond, X, Y)``
        followed by the original ``if`` as the ``elif``/``else`` that eager mode and scripting run; or why not."""
        if id(node) in self._elifs or type(node.orelse) is cst.If:
            return None, "an `elif` chain"
        function = self.context.function
        if function is None:
            return None, "not in a function"
        frame = self._frame()
        if any(type(n) is cst.Name and frame is not None and n.value in frame.decisions for n in walk(node.test)):
            # `odd = h % 2 == 1 or ...` then `if odd:`: Python took the truth where the name was bound.
            return None, "the condition names a decision taken on an earlier line"
        # Each test's truth through `_trt_size_truth`: a traced size's decision is a tensor already, and
        # `torch.as_tensor` of it would warn that it records a constant.
        condition = tensor_condition(node.test, self.context.torch_attr, lambda operation: all(
            self.size_decision(side) or self.size_derived(side) or self._on_given_sizes(side)
            for side in (operation.left, operation.right)), lambda test: helper_call(_SIZE_TRUTH, test))
        if condition is None:
            return None, "the condition stays a Python value in a trace (`int()`, `min()`, a chained comparison...)"
        used = {n.value for n in walk(function) if type(n) is cst.Name}
        else_body = node.orelse.body if node.orelse is not None else None
        for body in (node.body, else_body):
            assigned = branch_assignments(body) if body is not None else {}
            reshaped = next((v for v in assigned.values() if _reshaping(v)), None) if isinstance(assigned, dict) else None
            if reshaped is not None:
                # Values of other shapes per branch: no select can hold both (TRT717 makes a pad or a
                # resize one computation).
                return None, f"a branch changes the value's shape (`{short_code(reshaped)}`)"
        statements = selected_assignments(function, node, [condition], [node.body], else_body,
                                          cst.Name(_SIZE_WHERE), used)
        if isinstance(statements, str):
            return None, statements
        # `not is_scripting()` first: TorchScript compiles no branch behind it (a size is an `int` there, which
        # the helpers do not take), and `is_tracing()` is False in eager mode, so the `if` runs as written.
        tracing = cst.BooleanOperation(
            left=cst.UnaryOperation(operator=cst.Not(), expression=cst.Call(func=self.context.torch_attr(
                "jit.is_scripting"))), operator=cst.And(), right=cst.Call(func=self.context.torch_attr("jit.is_tracing")))
        blended = cst.If(test=tracing, body=cst.IndentedBlock(body=statements), leading_lines=node.leading_lines,
                         orelse=node.with_changes(leading_lines=()))
        return Fix({node: blended}, safety=Safety.UNSAFE, helpers=(_SIZE_TRUTH, _SIZE_WHERE)), ""

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


#: Calls whose result has another shape than their input: a branch made of one pads, resizes, repeats,
#: expands or joins (a crop is a subscript, see :func:`_reshaping`).
_RESHAPING_CALLS = frozenset({"pad", "interpolate", "upsample", "resize", "repeat", "repeat_interleave", "tile",
                              "expand", "expand_as", "broadcast_to", "cat", "concat", "concatenate", "stack"})


def _reshaping(value: cst.BaseExpression) -> bool:
    """``F.pad(x, ...)``, ``x.repeat(n, 1)``, ``x.expand(b, -1)``, ``torch.cat(...)``, ``x[:, :n]``: a value
    whose shape is not its input's."""
    if type(value) is cst.Subscript:
        # `x[:, :, :h0 * 3]`: a crop (a slice with a bound) has the bound's size, the other branch its own.
        return any(type(e.slice) is cst.Slice and (e.slice.lower is not None or e.slice.upper is not None)
                   for e in value.slice)
    if type(value) is not cst.Call:
        return False
    func = value.func
    name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    return name in _RESHAPING_CALLS


#: The helpers of TRT713's rewrite (``trtcodemod/helpers/tracing.py``): the truth of a test on sizes as a
#: tensor, and the select of a branch's value while tracing.
_SIZE_TRUTH, _SIZE_WHERE = "_trt_size_truth", "_trt_traced_where"


def _only_raises(node: cst.If) -> bool:
    """An `if` with no `else` whose block only raises, after assignments to plain names at most (a
    message's parts): a check, not a choice between computations (as ``migrate`` judges its bakes)."""
    if node.orelse is not None:
        return False
    statements = [s for line in node.body.body
                  for s in (line.body if type(line) in (cst.SimpleStatementLine, cst.SimpleStatementSuite)
                            else [line])] if type(node.body) is cst.IndentedBlock else list(node.body.body)
    return bool(statements) and type(statements[-1]) is cst.Raise and all(
        type(s) is cst.Assign and all(type(t.target) is cst.Name for t in s.targets)
        or type(s) is cst.AnnAssign and type(s.target) is cst.Name for s in statements[:-1])


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


def _holds_number(value: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Is ``node`` in ``value`` other than inside a subscript's index (``x[..., 0:n]`` holds a tensor
    sliced by ``n``, not the number ``n``)?"""
    if value is node:
        return True
    if type(value) is cst.Subscript:
        return _holds_number(value.value, node)
    return any(_holds_number(child, node) for child in value.children)


RULES = (NumpyOnSize, PythonMathOnSize, SizeGuard)


def _tensor_or_int(annotation: cst.BaseExpression, context) -> bool:
    """``Union[torch.Tensor, int]`` (``tp.Union``, ``typing.Union``) or ``torch.Tensor | int``."""
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        members = [annotation.left, annotation.right]
    elif type(annotation) is cst.Subscript and context.refers_to(annotation.value, "typing.Union") is not None:
        members = [e.slice.value for e in annotation.slice if type(e.slice) is cst.Index]
    else:
        return False
    return len(members) == 2 and any(context.refers_to(m, "torch.Tensor") is not None for m in members) and any(
        type(m) is cst.Name and m.value == "int" for m in members)
