"""NumPy array expressions and the torch expression computing the same array (TRT711's rewrite).

:class:`Converter` translates any composition of the NumPy functions and array methods in
its tables, whose leaves are tensor sizes and Python numbers, into torch source text; it
gives up (None) on anything outside them, and the code stays as it is. Every step keeps
NumPy's meaning, not its spelling:

- dtypes: each result carries NumPy's dtype (integer ranges int64, ``linspace``/``zeros``/
  ``ones`` and true division float64, NumPy's promotion between arrays and with Python
  numbers), and the torch text casts where torch's own rule would give another
  (``torch.arange(w) * 0.5`` is float32 in torch, float64 in NumPy);
- ``ndarray.repeat`` is ``repeat_interleave`` (torch's ``repeat`` is NumPy's ``tile``),
  ``np.linspace`` includes its end point, ``np.meshgrid`` indexes "xy" by default,
  ``np.expand_dims`` is ``unsqueeze``, ``np.vstack``/``np.hstack`` stack 1-D arrays;
- layout: whether the torch result has NumPy's strides (``torch.meshgrid`` returns
  expanded views where NumPy copies; ``a[None]`` has another stride on the new axis) and
  whether it may share memory with a converted local: ``torch.from_numpy``, ``torch.as_tensor``
  and ``torch.tensor`` all keep NumPy's strides, so only such a result replaces them, and a
  copy is made where ``torch.tensor`` copied.

Scalars are sizes (the caller says which nodes are), numeric literals, configuration values
(``self.stride``: an ``int`` assumed where NumPy needs one or meets an integer array) and
arithmetic on those. The arrays stay on the CPU, like NumPy's. This module defines no rule
and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import libcst as cst
import numpy as np

from trtcodemod.astutil import code_of, int_value, method_call

#: NumPy scalar types (and the built-ins NumPy reads as dtypes) → torch dtype names.
DTYPES = {
    "float16": "float16", "float32": "float32", "float64": "float64", "double": "float64", "single": "float32",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "bool_": "bool",
}
_BUILTIN_DTYPES = {"float": "float64", "int": "int64", "bool": "bool"}
_FLOATS = frozenset({"float16", "float32", "float64"})
_ARITHMETIC = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//"}
#: torch calls that turn a NumPy array into a tensor: the wrapper the rewrite removes.
CONSUMERS = ("torch.from_numpy", "torch.tensor", "torch.as_tensor")


@dataclass(frozen=True)
class Array:
    """A converted array: torch text, NumPy's dtype (torch's name), rank, and its layout.

    ``fresh``: the torch tensor has NumPy's strides (False for ``torch.meshgrid``'s expanded
    views of what NumPy copies). ``contiguous``: those strides are C-contiguous. ``shared``:
    it may be (a view of) a converted local, which ``torch.tensor`` would have copied.
    """

    text: str
    dtype: str
    ndim: int
    fresh: bool = True
    contiguous: bool = True
    shared: bool = False


@dataclass(frozen=True)
class _Scalar:
    text: str
    kind: str  # "int" or "float"


def promote(*dtypes: str) -> str:
    """NumPy's result dtype of arrays of these dtypes (as torch names)."""
    names = ["bool_" if d == "bool" else d for d in dtypes]
    found = np.result_type(*[np.dtype(n.rstrip("_")) for n in names]).name
    return "bool" if found == "bool" else found


def _with_scalar(dtype: str, scalar: str) -> str:
    """NumPy's dtype of an array of ``dtype`` with a Python number (NEP 50): the array's kind
    wins unless the number is of a higher kind (a float with integers: float64)."""
    if scalar == "float" and dtype not in _FLOATS:
        return "float64"
    if dtype == "bool":
        return "int64" if scalar == "int" else "float64"
    return dtype


#: The helper a converted ``np.linspace`` of a run-time count calls (TRT368's, ``trtcodemod/helpers/spacing.py``).
SPACING_HELPER = "_trt_linspace"


def helpers_in(replacements: Iterable[object]) -> tuple[str, ...]:
    """The helpers converted code calls: :data:`SPACING_HELPER` where a replacement's text calls it."""
    texts = (code_of(r) if isinstance(r, cst.CSTNode) else str(r) for r in replacements)
    return (SPACING_HELPER,) if any(f"{SPACING_HELPER}(" in t for t in texts) else ()


@dataclass
class Converter:
    """Convert NumPy expressions of one function; collects which names and calls it read.

    ``numpy_name``: the ``numpy.<name>`` an expression refers to (its last part), or None.
    ``is_size``: whether a node is a tensor size (decided by the rule, with its evidence).
    ``arrays``: the function's locals already converted (NumPy arrays turned into tensors).
    """

    torch: str
    numpy_name: Callable[[cst.BaseExpression], str | None]
    is_size: Callable[[cst.BaseExpression], bool]
    arrays: dict[str, Array]
    #: Locals holding Python numbers (every binding one) → "int" or "float".
    numbers: dict[str, str] = field(default_factory=dict)
    used: list[cst.Name] = field(default_factory=list)
    calls: list[cst.Call] = field(default_factory=list)
    #: Constant sequences of numbers (a module's ``_STEPS = (8, 16, 32)``, a row of one) → their
    #: elements' kind: "int", "float", or "seq:int"/"seq:float" for a sequence of such rows.
    sequences: dict[str, str] = field(default_factory=dict)
    #: Local lists of converted arrays (``blocks.append(...)`` of arrays of one dtype and rank).
    lists: dict[str, Array] = field(default_factory=dict)
    #: The qualified names an expression refers to (``math.ceil``), and whether a built-in's
    #: name (``len``) is rebound in the module: from the rule's context.
    qualified: Callable[[cst.BaseExpression], tuple[str, ...]] = lambda expr: ()
    rebound: Callable[[str], bool] = lambda name: True
    #: id(expression) → the tensor it now is (a translated helper's call, whose caller converted it).
    results: dict[int, Array] = field(default_factory=dict)

    # --- scalars and dtypes ----------------------------------------------------------------
    def scalar(self, expr: cst.BaseExpression) -> _Scalar | None:
        """A Python number: a size, a literal, configuration, arithmetic on those."""
        if type(expr) is cst.Integer or self.is_size(expr):
            return _Scalar(code_of(expr), "int")
        if type(expr) is cst.Float:
            return _Scalar(code_of(expr), "float")
        if type(expr) is cst.Name and expr.value in self.numbers:
            return _Scalar(expr.value, self.numbers[expr.value])
        if configuration(expr):
            return _Scalar(code_of(expr), "int")  # assumed: NumPy would raise on most other values
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            inner = self.scalar(expr.expression)
            return _Scalar(code_of(expr), inner.kind) if inner is not None else None
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _ARITHMETIC:
            left, right = self.scalar(expr.left), self.scalar(expr.right)
            if left is None or right is None:
                return None
            floats = type(expr.operator) is cst.Divide or "float" in (left.kind, right.kind)
            return _Scalar(code_of(expr), "float" if floats else "int")
        if type(expr) is cst.Subscript:
            return self._indexed_scalar(expr)
        if type(expr) is cst.Call:
            return self._scalar_call(expr)
        return None

    def _indexed_scalar(self, expr: cst.Subscript) -> _Scalar | None:
        """``a.shape[i]`` of a converted array (a tensor's size has the array's value), or an
        element of a constant sequence of numbers (``_STEPS[k]``)."""
        if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
            return None
        index = expr.slice[0].slice.value  # type: ignore[union-attr]
        owner = expr.value
        if type(owner) is cst.Attribute and owner.attr.value == "shape" and type(owner.value) is cst.Name \
                and owner.value.value in self.arrays and int_value(index) is not None:
            self.used.append(owner.value)
            return _Scalar(code_of(expr), "int")
        kind = self.sequence(owner)
        if kind in ("int", "float") and self.integer(index) is not None:
            return _Scalar(code_of(expr), kind)
        return None

    def _scalar_call(self, call: cst.Call) -> _Scalar | None:
        """``math.ceil(s)``/``math.floor(s)`` (an ``int``; TRT712 rewrites them on its own), or
        ``len`` of a constant sequence."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        arg = call.args[0].value
        rounding = set(self.qualified(call.func)) & {"math.ceil", "math.floor"} or (
            type(call.func) is cst.Name and call.func.value in ("_trt_size_ceil", "_trt_size_floor"))
        if rounding:
            return _Scalar(code_of(call), "int") if self.scalar(arg) is not None else None
        if type(call.func) is cst.Name and call.func.value == "len" and not self.rebound("len") \
                and self.sequence(arg) is not None:
            return _Scalar(code_of(call), "int")
        return None

    def sequence(self, expr: cst.BaseExpression) -> str | None:
        """The kind of a constant sequence's elements (see :attr:`sequences`), or None."""
        if type(expr) is cst.Name:
            return self.sequences.get(expr.value)
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
            outer = self.sequence(expr.value)
            index = expr.slice[0].slice.value  # type: ignore[union-attr]
            if outer is not None and outer.startswith("seq:") and self.integer(index) is not None:
                return outer[4:]
        return None

    def integer(self, expr: cst.BaseExpression) -> str | None:
        """Source text of an integer scalar (a size, a literal, ``+ - * //`` on those)."""
        found = self.scalar(expr)
        return found.text if found is not None and found.kind == "int" else None

    def dimension(self, expr: cst.BaseExpression) -> str | None:
        """An integer where NumPy requires one (a shape's entry, a count)."""
        return self.integer(expr)

    def dtype(self, expr: cst.BaseExpression) -> str | None:
        """The torch dtype name of ``np.float32``, ``float``, ``"float32"``..., or None."""
        if type(expr) is cst.SimpleString and expr.value.strip("\"'") in DTYPES:
            return DTYPES[expr.value.strip("\"'")]
        if type(expr) is cst.Name and expr.value in _BUILTIN_DTYPES:
            return _BUILTIN_DTYPES[expr.value] if self.numpy_name(expr) is None else None
        name = self.numpy_name(expr)
        return DTYPES.get(name) if name is not None else None

    def _keywords(self, call: cst.Call, allowed: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
        out = {}
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None:
                if arg.keyword.value not in allowed:
                    return None
                out[arg.keyword.value] = arg.value
        return out

    def _arguments(self, call: cst.Call, names: tuple[str, ...], required: int) -> list | None:
        """The call's arguments by NumPy's parameter ``names`` (positional or keyword), None
        where one is unknown, missing or given twice; absent optional ones are None."""
        keywords = self._keywords(call, names)
        positional = [a.value for a in call.args if a.keyword is None]
        if keywords is None or len(positional) > len(names):
            return None
        values: list = positional + [None] * (len(names) - len(positional))
        for index, name in enumerate(names):
            if name in keywords:
                if values[index] is not None:
                    return None
                values[index] = keywords[name]
        if any(v is None for v in values[:required]):
            return None
        return values

    def _cast(self, item: Array, dtype: str) -> Array:
        """``item`` as ``dtype`` (NumPy's promotion made explicit for torch)."""
        if item.dtype == dtype:
            return item
        return Array(f"{item.text}.to({self.torch}.{dtype})", dtype, item.ndim)

    # --- arrays -------------------------------------------------------------------------------
    def array(self, expr: cst.BaseExpression) -> Array | None:
        """The torch form of a NumPy array expression, or None."""
        if id(expr) in self.results:
            return self.results[id(expr)]
        if type(expr) is cst.Name:
            known = self.arrays.get(expr.value)
            if known is not None:
                self.used.append(expr)
                return replace(known, shared=True)
            return None
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _ARITHMETIC:
            return self._arithmetic(expr)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            inner = self.array(expr.expression)
            return Array(f"(-{inner.text})", inner.dtype, inner.ndim) if inner and inner.dtype != "bool" else None
        if type(expr) is cst.Subscript:
            return self._subscript(expr)
        if type(expr) is cst.Attribute and expr.attr.value == "T":
            base = self.array(expr.value)
            return self._permuted(base, list(range(base.ndim))[::-1]) if base is not None else None
        if type(expr) is not cst.Call:
            return None
        name = self.numpy_name(expr.func)
        if name is None:
            parts = method_call(expr)
            method = _METHODS.get(parts[1]) if parts is not None else None
            if method is None:
                return None
            receiver = self.array(parts[0])  # type: ignore[index]
            return method(self, expr, receiver) if receiver is not None else None
        make = _FUNCTIONS.get(name)
        if make is None:
            return None
        made = make(self, expr)
        if made is not None:
            self.calls.append(expr)
        return made

    def _dtype_keyword(self, keywords: dict[str, cst.BaseExpression], default: str) -> str | None:
        return self.dtype(keywords["dtype"]) if "dtype" in keywords else default

    def _arange(self, call: cst.Call) -> Array | None:
        keywords = self._keywords(call, ("dtype",))
        args = [a.value for a in call.args if a.keyword is None]
        if keywords is None or not 1 <= len(args) <= 3:
            return None
        scalars = [self.scalar(a) for a in args]
        if None in scalars:
            return None
        floats = any(s.kind == "float" for s in scalars)  # type: ignore[union-attr]
        dtype = self._dtype_keyword(keywords, "float64" if floats else "int64")
        if dtype is None:
            return None
        texts = ", ".join(s.text for s in scalars)  # type: ignore[union-attr]
        extra = f", dtype={self.torch}.{dtype}" if "dtype" in keywords or floats else ""
        return Array(f"{self.torch}.arange({texts}{extra})", dtype, 1)

    def _linspace(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("start", "stop", "num", "endpoint", "retstep", "dtype"), 3)
        if values is None or values[4] is not None or (values[3] is not None and code_of(values[3]) != "True"):
            return None  # endpoint=False, retstep: not in the table
        start, stop, num = self.scalar(values[0]), self.scalar(values[1]), self.integer(values[2])
        dtype = self.dtype(values[5]) if values[5] is not None else "float64"
        if start is None or stop is None or num is None or dtype not in _FLOATS:
            return None  # an integer dtype: NumPy floors the float values, torch.linspace may not
        # A count read at run time: the TorchScript exporter divides by ``num - 1``, 0/0 at one step (NaN where
        # NumPy gives ``[start]``); TRT368's helper is ``torch.linspace`` but divides by at least 1 while exporting.
        spaced = f"{self.torch}.linspace" if type(values[2]) is cst.Integer else SPACING_HELPER
        return Array(f"{spaced}({start.text}, {stop.text}, {num}, dtype={self.torch}.{dtype})", dtype, 1)

    def _from_sequence(self, call: cst.Call) -> Array | None:
        """``np.array(seq)`` of a constant sequence of numbers, or ``np.array([f(m) for m in seq])``
        with ``f`` arithmetic on ``m`` and scalars: ``f`` applied to the whole sequence made a
        tensor, which is NumPy's element by element (Python's ``m / w`` is a float64 division)."""
        values = self._arguments(call, ("object", "dtype"), 1)
        if values is None:
            return None
        target = self.dtype(values[1]) if values[1] is not None else None
        if values[1] is not None and target is None:
            return None
        made = self._sequence_array(values[0])
        if made is None or made.ndim != 1:
            return None
        return self._cast(made, target) if target is not None else made

    def _sequence_array(self, expr: cst.BaseExpression) -> Array | None:
        kind = self.sequence(expr)
        if kind in ("int", "float"):
            dtype = "int64" if kind == "int" else "float64"
            return Array(f"{self.torch}.tensor({code_of(expr)}, dtype={self.torch}.{dtype})", dtype, 1)
        if type(expr) in (cst.List, cst.Tuple):
            return self._scalars_array(expr)  # type: ignore[arg-type]
        if type(expr) is not cst.ListComp or expr.lpar or expr.for_in.inner_for_in is not None \
                or expr.for_in.ifs or expr.for_in.asynchronous is not None or type(expr.for_in.target) is not cst.Name:
            return None
        each = self._sequence_array(expr.for_in.iter)
        if each is None:
            return None
        name = expr.for_in.target.value  # type: ignore[attr-defined]
        inner = replace(self, arrays={**self.arrays, name: each}, used=[], calls=[])
        made = inner.array(expr.elt)
        if made is None:
            return None
        self.used.extend(n for n in inner.used if n.value != name)
        self.calls.extend(inner.calls)
        return Array(made.text, made.dtype, made.ndim)

    def _scalars_array(self, display: cst.List | cst.Tuple) -> Array | None:
        """``np.array([w])``, ``np.array((h, w))``: a row of Python numbers (sizes among them), int64 when all
        are integers, else float64, as NumPy makes it; each number a 0-d tensor of that dtype (a traced size
        stays in the graph), stacked."""
        if not display.elements or any(type(e) is not cst.Element for e in display.elements):
            return None  # `[*sizes]`, `[]`: not in the table
        scalars = [self.scalar(e.value) for e in display.elements]
        if None in scalars or any(s.kind not in ("int", "float") for s in scalars):  # type: ignore[union-attr]
            return None
        dtype = "int64" if all(s.kind == "int" for s in scalars) else "float64"  # type: ignore[union-attr]
        items = ", ".join(f"{self.torch}.as_tensor({s.text}, dtype={self.torch}.{dtype})"  # type: ignore[union-attr]
                          for s in scalars)
        return Array(f"{self.torch}.stack([{items}])", dtype, 1)

    def _shape(self, shape: cst.BaseExpression) -> tuple[str, int] | None:
        """A shape argument: ``(n, 4)`` or ``n`` → its text and rank."""
        if type(shape) in (cst.Tuple, cst.List):
            sizes = [self.dimension(e.value) if type(e) is cst.Element else None
                     for e in shape.elements]  # type: ignore[attr-defined]
            if not sizes or None in sizes:
                return None
            return f"({', '.join(sizes)}{',' if len(sizes) == 1 else ''})", len(sizes)  # type: ignore[arg-type]
        text = self.dimension(shape)
        return (text, 1) if text is not None else None

    def _filled(self, call: cst.Call) -> Array | None:
        name = self.numpy_name(call.func)
        keywords = self._keywords(call, ("dtype",))
        args = [a.value for a in call.args if a.keyword is None]
        if keywords is None or len(args) != 1:
            return None
        shape, dtype = self._shape(args[0]), self._dtype_keyword(keywords, "float64")
        if shape is None or dtype is None:
            return None
        return Array(f"{self.torch}.{name}({shape[0]}, dtype={self.torch}.{dtype})", dtype, shape[1])

    def _full(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("shape", "fill_value", "dtype"), 2)
        if values is None:
            return None
        shape, fill = self._shape(values[0]), self.scalar(values[1])
        if shape is None or fill is None:
            return None
        dtype = self.dtype(values[2]) if values[2] is not None else ("int64" if fill.kind == "int" else "float64")
        if dtype is None:
            return None
        return Array(f"{self.torch}.full({shape[0]}, {fill.text}, dtype={self.torch}.{dtype})", dtype, shape[1])

    def _indices(self, call: cst.Call) -> Array | None:
        args = [a.value for a in call.args if a.keyword is None]
        if len(call.args) != 1 or len(args) != 1 or type(args[0]) not in (cst.Tuple, cst.List):
            return None
        elements = args[0].elements  # type: ignore[attr-defined]
        sizes = [self.dimension(e.value) if type(e) is cst.Element else None for e in elements]
        if not sizes or None in sizes:
            return None
        ranges = ", ".join(f"{self.torch}.arange({s})" for s in sizes)
        return Array(f"{self.torch}.stack({self.torch}.meshgrid({ranges}, indexing=\"ij\"))", "int64", len(sizes) + 1)

    def grid(self, expr: cst.BaseExpression) -> tuple[str, list[Array]] | None:
        """``np.meshgrid(a, b, ...)`` of 1-D arrays: the torch call and its outputs (views)."""
        if type(expr) is not cst.Call or self.numpy_name(expr.func) != "meshgrid":
            return None
        keywords = self._keywords(expr, ("indexing",))
        args = [a.value for a in expr.args if a.keyword is None]
        if keywords is None or not args:
            return None
        indexing = keywords.get("indexing")
        order = indexing.value.strip("\"'") if type(indexing) is cst.SimpleString else "xy" if indexing is None else ""
        if order not in ("xy", "ij"):
            return None
        items = [self.array(a) for a in args]
        if any(i is None or i.ndim != 1 for i in items):
            return None
        self.calls.append(expr)
        text = f"{self.torch}.meshgrid({', '.join(i.text for i in items)}, indexing=\"{order}\")"  # type: ignore[union-attr]
        return text, [Array("", i.dtype, len(items), fresh=False, contiguous=False) for i in items]  # type: ignore[union-attr]

    def _sequence(self, expr: cst.BaseExpression) -> tuple[str, list[Array]] | None:
        """A tuple or list of arrays (or a meshgrid): the torch sequence text and its items,
        cast to NumPy's common dtype (torch.stack/cat would promote another way)."""
        grid = self.grid(expr)
        if grid is not None:
            return grid
        if type(expr) is cst.Name and self.lists.get(expr.value) is not None:
            # A local list of arrays of one dtype and rank (checked as each was appended).
            self.used.append(expr)
            return expr.value, [self.lists[expr.value]]
        if type(expr) not in (cst.Tuple, cst.List) or not expr.elements:  # type: ignore[attr-defined]
            return None
        found = [self.array(e.value) if type(e) is cst.Element else None for e in expr.elements]  # type: ignore[attr-defined]
        if None in found:
            return None
        common = promote(*[i.dtype for i in found])  # type: ignore[union-attr]
        items = [self._cast(i, common) for i in found]  # type: ignore[arg-type]
        inner = ", ".join(i.text for i in items)
        return (f"({inner},)" if len(items) == 1 else f"({inner})"), items

    def _joined(self, call: cst.Call) -> Array | None:
        """``np.stack``, ``np.concatenate``, ``np.vstack``, ``np.hstack``, ``np.column_stack``."""
        name = self.numpy_name(call.func)
        has_axis = name in ("stack", "concatenate")
        values = self._arguments(call, ("arrays", "axis") if has_axis else ("tup",), 1)
        if values is None:
            return None
        axis = values[1] if has_axis else None
        if axis is not None and int_value(axis) is None:
            return None  # only a literal axis: the rank is static
        joined = self._sequence(values[0])
        if joined is None:
            return None
        text, items = joined
        if len({i.ndim for i in items}) != 1:
            return None
        ndim, dim = items[0].ndim, int_value(axis) if axis is not None else 0
        if name == "stack":
            function, rank = "stack", ndim + 1
        elif name == "concatenate":
            function, rank = "cat", ndim
        elif name == "vstack":
            function, rank, dim = ("stack", 2, 0) if ndim == 1 else ("cat", ndim, 0)
        elif name == "hstack":
            function, rank, dim = ("cat", 1, 0) if ndim == 1 else ("cat", ndim, 1)
        else:  # column_stack
            function, rank, dim = ("stack", 2, 1) if ndim == 1 else ("cat", ndim, 1)
        if ndim == 0 or not -rank <= dim < rank:  # type: ignore[operator]
            return None
        return Array(f"{self.torch}.{function}({text}, {dim})", items[0].dtype, rank)

    def _expand_dims(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("a", "axis"), 2)
        if values is None:
            return None
        base, axis = self.array(values[0]), int_value(values[1])
        if base is None or axis is None or not -(base.ndim + 1) <= axis <= base.ndim:
            return None
        return Array(f"{base.text}.unsqueeze({axis})", base.dtype, base.ndim + 1, base.fresh, base.contiguous,
                     base.shared)

    def _np_reshape(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("a", "newshape"), 2)
        if values is None:
            return None
        base = self.array(values[0])
        return self._reshaped(base, [values[1]]) if base is not None else None

    def _reshaped(self, base: Array, shape: list[cst.BaseExpression]) -> Array | None:
        """``base.reshape(shape)``: a view where NumPy's is one (same strides), else a copy."""
        if len(shape) == 1 and type(shape[0]) in (cst.Tuple, cst.List):
            shape = [e.value for e in shape[0].elements if type(e) is cst.Element]  # type: ignore[attr-defined]
        sizes = [self.dimension(s) for s in shape]
        if not sizes or None in sizes:
            return None
        # A reshape of a contiguous array is a contiguous view in both; of anything else the
        # strides are each library's choice, so the layout is only "unknown".
        same = base.fresh and base.contiguous
        return Array(f"{base.text}.reshape({', '.join(sizes)})", base.dtype, len(sizes), same, same,  # type: ignore[arg-type]
                     base.shared)

    def _np_repeat(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("a", "repeats", "axis"), 2)
        if values is None:
            return None
        base = self.array(values[0])
        return self._repeated(base, values[1], values[2]) if base is not None else None

    def _repeated(self, base: Array, repeats: cst.BaseExpression, axis: cst.BaseExpression | None) -> Array | None:
        """NumPy's ``repeat`` is torch's ``repeat_interleave`` (each element ``repeats`` times)."""
        count = self.integer(repeats)
        if count is None:
            return None
        if axis is None:
            return Array(f"{base.text}.repeat_interleave({count})", base.dtype, 1)
        dim = int_value(axis)
        if dim is None or not -base.ndim <= dim < base.ndim:
            return None
        return Array(f"{base.text}.repeat_interleave({count}, {dim})", base.dtype, base.ndim)

    def _tile(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("A", "reps"), 2)
        if values is None:
            return None
        base = self.array(values[0])
        reps = values[1]
        items = [e.value for e in reps.elements] if type(reps) in (cst.Tuple, cst.List) else [reps]  # type: ignore[attr-defined]
        counts = [self.integer(r) for r in items]
        if base is None or not counts or None in counts:
            return None
        text = f"({', '.join(counts)}{',' if len(counts) == 1 else ''})"  # type: ignore[arg-type]
        return Array(f"{self.torch}.tile({base.text}, {text})", base.dtype, max(base.ndim, len(counts)))

    def _np_transpose(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("a", "axes"), 1)
        if values is None:
            return None
        base = self.array(values[0])
        if base is None:
            return None
        return self._permuted(base, self._axes(values[1], base.ndim))

    def _swapaxes(self, call: cst.Call) -> Array | None:
        values = self._arguments(call, ("a", "axis1", "axis2"), 3)
        if values is None:
            return None
        base, first, second = self.array(values[0]), int_value(values[1]), int_value(values[2])
        if base is None or first is None or second is None or not all(-base.ndim <= a < base.ndim
                                                                       for a in (first, second)):
            return None
        axes = list(range(base.ndim))
        axes[first], axes[second] = axes[second], axes[first]
        return self._permuted(base, axes)

    def _axes(self, axes: cst.BaseExpression | None, ndim: int) -> list[int] | None:
        if axes is None:
            return list(range(ndim))[::-1]
        items = [e.value for e in axes.elements] if type(axes) in (cst.Tuple, cst.List) else None  # type: ignore[attr-defined]
        found = [int_value(a) for a in items] if items is not None else [None]
        if None in found or sorted(a % ndim for a in found) != list(range(ndim)):  # type: ignore[operator]
            return None
        return found  # type: ignore[return-value]

    def _permuted(self, base: Array, axes: list[int] | None) -> Array | None:
        """A transpose: a view with permuted strides in both libraries."""
        if axes is None or base.ndim == 0:
            return None
        text = ", ".join(str(a) for a in axes)
        keeps = axes == sorted(axes, key=lambda a: a % base.ndim)
        return Array(f"{base.text}.permute({text})", base.dtype, base.ndim, base.fresh, base.contiguous and keeps,
                     base.shared)

    def _subscript(self, expr: cst.Subscript) -> Array | None:
        """``a[k]``, ``a[None]``, ``a[:, 1:]``, ``a[..., 0]`` (literal indices, steps 1 or more):
        the same view in both."""
        base = self.array(expr.value)
        if base is None:
            return None
        ndim, plain, fresh = base.ndim, True, base.fresh
        for element in expr.slice:
            part = element.slice
            if type(part) is cst.Index:
                value = part.value
                if type(value) is cst.Name and value.value == "None":
                    ndim += 1
                    fresh = False  # NumPy gives the new axis stride 0, torch another
                elif type(value) is cst.Ellipsis:
                    plain = False
                elif int_value(value) is not None:
                    ndim -= 1
                else:
                    return None
            else:
                bounds = (part.lower, part.upper)  # type: ignore[union-attr]
                step = part.step  # type: ignore[union-attr]
                if any(b is not None and int_value(b) is None for b in bounds):
                    return None
                if step is not None and (int_value(step) is None or int_value(step) < 1):  # type: ignore[operator]
                    return None  # torch has no negative steps
                plain = False
        if ndim < 0:
            return None
        contiguous = base.contiguous and plain
        index = code_of(expr.with_changes(value=cst.Name("_"), lpar=[], rpar=[]))[1:]
        return Array(f"{base.text}{index}", base.dtype, ndim, fresh, contiguous, base.shared)

    def _astype(self, call: cst.Call, base: Array) -> Array | None:
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        dtype = self.dtype(call.args[0].value)
        if dtype is None:
            return None
        if dtype == base.dtype:  # NumPy copies; torch's `.to` would return the same tensor
            return Array(f"{base.text}.clone()", dtype, base.ndim, base.fresh, base.contiguous)
        return Array(f"{base.text}.to({self.torch}.{dtype})", dtype, base.ndim, base.fresh, base.contiguous)

    def _method_reshape(self, call: cst.Call, base: Array) -> Array | None:
        if any(a.keyword is not None or a.star for a in call.args) or not call.args:
            return None
        return self._reshaped(base, [a.value for a in call.args])

    def _ravel(self, call: cst.Call, base: Array) -> Array | None:
        if call.args:
            return None
        if base.fresh and base.contiguous:
            return Array(f"{base.text}.reshape(-1)", base.dtype, 1, shared=base.shared)
        # NumPy copies into C order; torch's reshape copies too where no view exists, and
        # .contiguous() makes sure of it.
        return Array(f"{base.text}.contiguous().reshape(-1)", base.dtype, 1)

    def _method_repeat(self, call: cst.Call, base: Array) -> Array | None:
        values = self._arguments(call, ("repeats", "axis"), 1)
        return self._repeated(base, values[0], values[1]) if values is not None else None

    def _method_transpose(self, call: cst.Call, base: Array) -> Array | None:
        if any(a.keyword is not None or a.star for a in call.args):
            return None
        args = [a.value for a in call.args]
        if not args:
            axes: list[int] | None = list(range(base.ndim))[::-1]
        elif len(args) == 1 and type(args[0]) in (cst.Tuple, cst.List):
            axes = self._axes(args[0], base.ndim)
        else:
            axes = self._axes(cst.Tuple([cst.Element(a) for a in args]), base.ndim)
        return self._permuted(base, axes)

    def _arithmetic(self, expr: cst.BinaryOperation) -> Array | None:
        symbol = _ARITHMETIC[type(expr.operator)]
        divide = type(expr.operator) is cst.Divide
        left, right = self.array(expr.left), self.array(expr.right)
        if left is not None and right is not None:
            dtype = promote(left.dtype, right.dtype)
            if divide and dtype not in _FLOATS:
                dtype = "float64"
            if "bool" in (left.dtype, right.dtype) and not divide:
                return None  # NumPy's bool arithmetic (`-` raises, `+` is "or"): not in the table
            left, right = self._cast(left, dtype), self._cast(right, dtype)
            return Array(f"({left.text} {symbol} {right.text})", dtype, max(left.ndim, right.ndim))
        known, other = (left, expr.right) if left is not None else (right, expr.left)
        if known is None or known.dtype == "bool":
            return None
        scalar = self.scalar(other)
        if scalar is None:
            return None
        dtype = _with_scalar(known.dtype, scalar.kind)
        if divide and dtype not in _FLOATS:
            dtype = "float64"
        known = self._cast(known, dtype)
        pair = (known.text, scalar.text) if left is not None else (scalar.text, known.text)
        return Array(f"({pair[0]} {symbol} {pair[1]})", dtype, known.ndim)

    # --- the wrapper ------------------------------------------------------------------------
    def consumer(self, call: cst.Call, wrapper: str) -> str | None:
        """The torch text replacing ``torch.from_numpy(E)``, ``torch.as_tensor(E, dtype=,
        device=)`` or ``torch.tensor(E, dtype=, device=)``: ``E``'s torch form, or None."""
        allowed = ("dtype", "device") if wrapper != "torch.from_numpy" else ()
        keywords, args = self._keywords(call, allowed), [a.value for a in call.args if a.keyword is None]
        if keywords is None or len(args) != 1:
            return None
        found = self.array(args[0])
        if found is None:
            return None
        if not found.fresh:
            return None  # all three keep NumPy's strides: a meshgrid view would change them
        text = found.text
        if wrapper == "torch.tensor" and found.shared and not keywords:
            text += ".clone()"  # torch.tensor copies (keeping the strides, as clone does)
        if not keywords:
            return text
        if list(keywords) == ["dtype"]:
            moved = code_of(keywords["dtype"])
        else:
            moved = ", ".join(f"{k}={code_of(v)}" for k, v in keywords.items())
        if wrapper == "torch.tensor" and found.shared:
            moved += ", copy=True"  # `.to` returns the same tensor where nothing changes
        return f"{text}.to({moved})"


def configuration(expr: cst.BaseExpression) -> bool:
    """``self.a`` (or ``self.a.b``, ``self.a[0]``): a module's configuration value."""
    if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index \
            and int_value(expr.slice[0].slice.value) is not None:  # type: ignore[union-attr]
        expr = expr.value
    while type(expr) is cst.Attribute:
        expr = expr.value
        if type(expr) is cst.Name:
            return expr.value == "self"
    return False


_FUNCTIONS: dict[str, Callable[[Converter, cst.Call], Array | None]] = {
    "arange": Converter._arange, "linspace": Converter._linspace, "zeros": Converter._filled,
    "ones": Converter._filled, "full": Converter._full, "indices": Converter._indices,
    "stack": Converter._joined, "concatenate": Converter._joined, "vstack": Converter._joined,
    "hstack": Converter._joined, "column_stack": Converter._joined, "expand_dims": Converter._expand_dims,
    "reshape": Converter._np_reshape, "repeat": Converter._np_repeat, "tile": Converter._tile,
    "transpose": Converter._np_transpose, "swapaxes": Converter._swapaxes, "array": Converter._from_sequence,
    "asarray": Converter._from_sequence,
}
_METHODS: dict[str, Callable[[Converter, cst.Call, Array], Array | None]] = {
    "astype": Converter._astype, "reshape": Converter._method_reshape, "ravel": Converter._ravel,
    "flatten": Converter._ravel, "repeat": Converter._method_repeat, "transpose": Converter._method_transpose,
}
