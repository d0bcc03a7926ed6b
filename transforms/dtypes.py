"""Tensors of a dtype TensorRT lacks: float64, int16, uint8 (TRT701).

Reported in run-time code only (see :mod:`trtcodemod.transforms._runtime_scope`): a float64
table built in ``__init__`` and cast down before use is fine. Detect only: which dtype keeps
the meaning depends on the values.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, code_of
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import ASSIGN
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"


#: dtype → (what it is, what to do).
_DTYPES: dict[str, tuple[str, str]] = {
    "torch.float64": ("float64", "float64"),
    "torch.double": ("float64", "float64"),
    "torch.int16": ("int16", "int16"),
    "torch.short": ("int16", "int16"),
    "torch.uint8": ("uint8", "uint8"),
}
_LEGACY_TYPES = {
    "torch.DoubleTensor": "float64", "torch.cuda.DoubleTensor": "float64",
    "torch.ShortTensor": "int16", "torch.cuda.ShortTensor": "int16",
    "torch.ByteTensor": "uint8", "torch.cuda.ByteTensor": "uint8",
}
_CAST_METHODS = {"double": "float64", "short": "int16", "byte": "uint8"}
#: What the fix writes instead: the nearest dtype TensorRT has (uint8 has none that fits every use).
_REPLACEMENTS = {"float64": "float32", "int16": "int32"}
_CAST_REPLACEMENTS = {"double": "float", "short": "int"}
_DTYPE_ADVICE = {
    "float64": ("TensorRT narrows float64 to float32 in every version (clamping to +-FLT_MAX), which loses "
                "what float64 was for "
                "(float32 values near 1.5e9, Unix time in seconds, are 128 apart): subtract a reference "
                "(the first frame's timestamp) before casting to float32, or do this arithmetic outside "
                "the exported graph"),
    "int16": "no TensorRT version has int16 tensors: use int32",
    "uint8": ("TensorRT takes uint8 only as an engine input or output (from 8.5): use int32 for numbers, "
              "`.bool()`/`torch.bool` for masks"),
}


class UnsupportedDtype(RuntimeScopeRule):
    needs_text = (b"float64", b"double", b"Double", b"int16", b"short", b"Short", b"uint8", b"byte", b"Byte")
    info = RuleInfo(
        id="TRT701",
        name="unsupported-dtype",
        summary="float64, int16 or uint8 tensors created or cast to in run-time code: TensorRT lacks them",
        doc="""\
What it finds: tensors of a dtype TensorRT does not have, made in run-time code (methods of
modules and other classes except construction-time ones, and plain functions):
`dtype=torch.float64` / `torch.double` / `torch.int16` / `torch.short` / `torch.uint8` passed to
any call, those dtypes as a positional argument of `.to(...)`, `.type(...)` or `.view(...)`,
`.double()`, `.short()`, `.byte()`, and the legacy `torch.DoubleTensor(...)`-style
constructors. The dtype names go through the file's imports: `np.float64` is NumPy's and is
not reported, nor is a comparison such as `x.dtype == torch.uint8`, nor `torch.finfo(...)`.
A dtype held in a local name counts where the name is bound once in the function, to a dtype
or to a conditional choosing between dtypes (`dtype = torch.float32 if x.device.type ==
"mps" else torch.float64`, then `x.to(dtype)` or `torch.arange(n, dtype=dtype)`): the
finding is at each use, the rewrite at the binding.

Why it hurts, per TensorRT version (onnx-tensorrt operators.md and changelog; see
`trtcodemod.versions.DTYPE_FACTS`):
- float64, every version (8.x to 11.x): the parser has no DOUBLE tensors and attempts to
  cast them down to float32, clamping values to +-FLT_MAX (3.4e38). Where that works,
  every float64 intermediate is computed in float32: magnitudes past 3.4e38 become +-FLT_MAX
  (not inf) and float64's precision is gone. TensorRT 11.x builds strongly typed networks
  only (the ONNX dtypes decide each layer's precision), so there is no builder flag that
  brings the precision back.
- uint8: before 8.5 not at all; from 8.5 only as a network input or output tensor (and
  in quantization layers), never as an intermediate.
- int16: never: INT16 is not among the data types any release's parser supports.

NumPy float64 arrays fed to `torch.from_numpy` or
`torch.as_tensor` also become float64 tensors; those cannot be seen by name and are not
reported.

What to do:
- float64: casting to float32 is not a neutral change: float64 is usually there for
  precision. Absolute timestamps around 1.5e9 s have a float32 spacing of 128 s, so the
  frame-to-frame differences a temporal model needs vanish. Subtract a reference time
  (e.g. the first frame's timestamp, in float64, outside the graph) and pass the small
  offsets as float32, or keep the computation outside the exported graph.
- int16: use int32.
- uint8: for masks use `.bool()` / `torch.bool` (`.byte()` masks are a pre-1.2 PyTorch idiom;
  indexing with them is deprecated); for numbers use int32. uint8 images should be converted
  to float before they enter the model.

The rewrite (float64 and int16; uint8 stays a finding, since a mask wants `bool` and a
number `int32`): `.double()` → `.float()`, `.short()` → `.int()`, and the dtype itself in
`dtype=...`, `.to(...)` and `.type(...)`: `torch.float64`/`torch.double` → `torch.float32`,
`torch.int16`/`torch.short` → `torch.int32`; for a dtype held in a local name, the same in the
name's one binding (`torch.float32 if ... else torch.float32`: the condition is kept, it may
have effects). `.view(dtype)` reinterprets bytes and is never rewritten, nor are the legacy
constructors.

Fix safety: unsafe. Which dtype keeps the meaning depends on the values, so the fix assumes:
for float64, that float32's precision and range (about 7 digits, +-3.4e38) are enough for
every value on that path (absolute timestamps are not: `migrate` tries the fix as a
candidate where the graph check locates the cast, and reverts it when the verification finds
the outputs outside the tolerances); for
int16, that the values stay within int16's range (int16 arithmetic wraps at +-32768, int32
does not). Either way the tensor's dtype changes, which code that checks `x.dtype` sees.
Applies to every TensorRT version (what happens differs, see above).""",
        fix=Safety.UNSAFE,
        assumption=(
            "float32's precision and range (about 7 digits, +-3.4e38) are enough for every float64 value on that path, "
            "and int16 code does not rely on wrapping at +-32768"),
        examples=(
            Example("def age(stamps):\n    return stamps.to(torch.float64) - stamps[0].double()\n",
                    "def age(stamps):\n    return stamps.to(torch.float32) - stamps[0].float()\n", unsafe=True),
            Example("def empty_mask(n):\n    return torch.zeros(n, dtype=torch.uint8)\n"),
            Example("def keep(scores):\n    return (scores > 0.5).byte()\n"),
            Example("def mean(bbox):\n"
                    "    dtype = torch.float32 if bbox.device.type == 'mps' else torch.float64\n"
                    "    return bbox.to(dtype).mean(-1)\n",
                    "def mean(bbox):\n"
                    "    dtype = torch.float32 if bbox.device.type == 'mps' else torch.float32\n"
                    "    return bbox.to(dtype).mean(-1)\n", unsafe=True),
        ),
        references=(_OPERATORS, "https://github.com/onnx/onnx-tensorrt/blob/main/docs/Changelog.md",
                    "https://pytorch.org/docs/stable/tensor_attributes.html#torch-dtype"),
    )

    def _dtype_of(self, expr: cst.BaseExpression) -> str | None:
        name = self.context.refers_to(expr, *_DTYPES, *_LEGACY_TYPES)
        if name is None:
            return None
        return _DTYPES[name][0] if name in _DTYPES else _LEGACY_TYPES[name]

    def _held_dtype(self, expr: cst.BaseExpression) -> tuple[str, Fix | None] | None:
        """For a local name bound once in this function to a dtype choice that holds one TensorRT
        lacks (``torch.float32 if mps else torch.float64``): that dtype, and the fix of the binding."""
        if type(expr) is not cst.Name:
            return None
        function = next((s for s in reversed(self._scopes) if type(s) is cst.FunctionDef), None)
        if function is None or self.shadowed(expr.value) or expr.value in self.context.resolver.walrus(function):
            return None
        sites = self.context.resolver.bindings(function).sites.get(expr.value, ())
        if len(sites) != 1 or sites[0][0] != ASSIGN or sites[0][1] is None:
            return None  # a parameter, a loop target, or assigned twice: no single value to follow
        held = [(leaf, self._dtype_of(leaf)) for leaf in _choices(sites[0][1])]
        lacking = [(leaf, dtype) for leaf, dtype in held if dtype is not None]
        if not lacking:
            return None
        dtype = lacking[0][1]
        if any(d not in _REPLACEMENTS for _, d in lacking):
            return dtype, None  # uint8: a mask wants bool, a number int32
        edits = {leaf: self.context.torch_attr(_REPLACEMENTS[d]) for leaf, d in lacking}
        return dtype, Fix(edits, safety=Safety.UNSAFE)  # type: ignore[arg-type]

    def _dtype_or_held(self, expr: cst.BaseExpression) -> tuple[str, Fix | None] | None:
        """The unsupported dtype ``expr`` names, directly or through a local name, and its fix."""
        dtype = self._dtype_of(expr)
        if dtype is not None:
            return dtype, self._wider(expr, dtype)
        return self._held_dtype(expr)

    def _flag(self, node: cst.CSTNode, dtype: str, what: str, fix: Fix | None = None) -> None:
        advice = _DTYPE_ADVICE[dtype]
        if what == ".byte()":
            advice = "TensorRT takes uint8 only at a Cast; for a mask use `.bool()`, for numbers int32"
        self.found(node, f"`{what}` makes a {dtype} tensor: {advice}", fix)

    def _wider(self, expr: cst.BaseExpression, dtype: str) -> Fix | None:
        """The dtype expression replaced by the one TensorRT has (float64 → float32, int16 → int32)."""
        if dtype not in _REPLACEMENTS:
            return None
        return Fix({expr: self.context.torch_attr(_REPLACEMENTS[dtype])}, safety=Safety.UNSAFE)

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.refers_to(node.func, "torch.finfo", "torch.iinfo", "torch.set_default_dtype"):
            return
        legacy = self.context.refers_to(node.func, *_LEGACY_TYPES)
        if legacy is not None:
            self._flag(node, _LEGACY_TYPES[legacy], legacy.rsplit(".", 1)[-1] + "(...)")
            return
        dtype_arg = argument(node, None, "dtype")
        if dtype_arg is not None:
            found = self._dtype_or_held(dtype_arg.value)
            if found is not None:
                self._flag(node, found[0], f"dtype={code_of(dtype_arg.value)}", found[1])
                return
        method = self.tensor_method(node, "to", "type", "view", *_CAST_METHODS)
        if method in _CAST_METHODS:
            if not node.args:
                dtype = _CAST_METHODS[method]
                fix = None
                if dtype in _REPLACEMENTS and type(node.func) is cst.Attribute:
                    fix = Fix({node.func.attr: cst.Name(_CAST_REPLACEMENTS[method])}, safety=Safety.UNSAFE)
                self._flag(node, dtype, f".{method}()", fix)
            return
        if method is not None:
            for arg in node.args:
                if arg.keyword is None and not arg.star:
                    found = self._dtype_or_held(arg.value)
                    if found is not None:
                        # .view(dtype) reinterprets the bytes: another dtype is another shape.
                        fix = found[1] if method != "view" else None
                        self._flag(node, found[0], f".{method}({code_of(arg.value)})", fix)
                        return


def _choices(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a dtype expression can take: both sides of each conditional, else itself."""
    if type(value) is cst.IfExp:
        return [*_choices(value.body), *_choices(value.orelse)]
    return [value]


RULES = (UnsupportedDtype,)
