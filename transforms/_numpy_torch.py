"""NumPy array expressions and the torch expression computing the same array (TRT711's rewrite).

:class:`Converter` turns one expression built from ``np.arange``, ``np.linspace``,
``np.meshgrid``, ``np.stack``, ``np.zeros``, ``np.ones``, ``np.indices``, ``.astype(...)``
and ``+``/``-``/``*`` into torch source text, or gives up (None) on anything else. The
dtype of every result is the one NumPy produces (integer ranges int64, ``linspace``,
``zeros`` and ``ones`` float64) and the torch text says it explicitly where torch's
default differs, so ``torch.from_numpy(<expr>)`` and ``<torch expr>`` have one dtype.
The arrays stay on the CPU, like NumPy's. Scalars must be integers: sizes (the caller
says which nodes are), integer literals and ``+ - *`` on them. This module defines no
rule and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from trtcodemod.astutil import code_of, int_value, method_call

#: NumPy scalar types (and the built-ins NumPy reads as dtypes) → torch dtype names.
DTYPES = {
    "float16": "float16", "float32": "float32", "float64": "float64", "double": "float64", "single": "float32",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "bool_": "bool",
}
_BUILTIN_DTYPES = {"float": "float64", "int": "int64", "bool": "bool"}
_FLOATS = frozenset({"float16", "float32", "float64"})
_ARITHMETIC = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*"}
#: torch calls that turn a NumPy array into a tensor: the wrapper the rewrite removes.
CONSUMERS = ("torch.from_numpy", "torch.tensor", "torch.as_tensor")


@dataclass(frozen=True)
class Array:
    """A converted array: torch text, NumPy's dtype (torch's name), rank, and whether it is
    a new tensor of its own (``torch.meshgrid`` returns expanded views; NumPy copies)."""

    text: str
    dtype: str
    ndim: int
    fresh: bool = True


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
    used: list[cst.Name] = field(default_factory=list)
    calls: list[cst.Call] = field(default_factory=list)

    # --- scalars and dtypes ----------------------------------------------------------------
    def integer(self, expr: cst.BaseExpression) -> str | None:
        """Source text of an integer scalar (a size, a literal, ``+ - *`` on those)."""
        if type(expr) is cst.Integer or self.is_size(expr):
            return code_of(expr)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return code_of(expr) if self.integer(expr.expression) is not None else None
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _ARITHMETIC:
            ok = self.integer(expr.left) is not None and self.integer(expr.right) is not None
            return code_of(expr) if ok else None
        return None

    def dimension(self, expr: cst.BaseExpression) -> str | None:
        """An integer where NumPy requires one (a shape's entry): also a configuration value
        such as ``self.num_queries``, assumed an int (NumPy raises on anything else)."""
        found = self.integer(expr)
        if found is not None:
            return found
        root = expr
        while type(root) is cst.Attribute:
            root = root.value
        if type(expr) is cst.Attribute and type(root) is cst.Name and root.value == "self":
            return code_of(expr)
        return None

    def _number(self, expr: cst.BaseExpression) -> str | None:
        if type(expr) is cst.Float or (type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus
                                       and type(expr.expression) is cst.Float):
            return code_of(expr)
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

    # --- arrays -------------------------------------------------------------------------------
    def array(self, expr: cst.BaseExpression) -> Array | None:
        """The torch form of a NumPy array expression, or None."""
        if type(expr) is cst.Name:
            known = self.arrays.get(expr.value)
            if known is not None:
                self.used.append(expr)
            return known
        if type(expr) is cst.BinaryOperation and type(expr.operator) in _ARITHMETIC:
            return self._arithmetic(expr)
        if type(expr) is cst.Subscript:
            return self._item(expr)
        if type(expr) is not cst.Call:
            return None
        parts = method_call(expr)
        if parts is not None and parts[1] == "astype" and not self.numpy_name(expr.func):
            return self._astype(expr, parts[0])
        name = self.numpy_name(expr.func)
        make = {"arange": self._arange, "linspace": self._linspace, "stack": self._stack, "zeros": self._filled,
                "ones": self._filled, "indices": self._indices}.get(name or "")
        if make is None:
            return None
        made = make(expr, name)
        if made is not None:
            self.calls.append(expr)
        return made

    def _positional(self, call: cst.Call) -> list[cst.BaseExpression]:
        return [a.value for a in call.args if a.keyword is None]

    def _dtype_keyword(self, keywords: dict[str, cst.BaseExpression], default: str) -> str | None:
        return self.dtype(keywords["dtype"]) if "dtype" in keywords else default

    def _arange(self, call: cst.Call, _name: str) -> Array | None:
        keywords, args = self._keywords(call, ("dtype",)), self._positional(call)
        if keywords is None or not 1 <= len(args) <= 3:
            return None
        texts = [self.integer(a) for a in args]
        dtype = self._dtype_keyword(keywords, "int64")
        if None in texts or dtype is None:
            return None
        extra = f", dtype={self.torch}.{dtype}" if "dtype" in keywords else ""
        return Array(f"{self.torch}.arange({', '.join(texts)}{extra})", dtype, 1)  # type: ignore[arg-type]

    def _linspace(self, call: cst.Call, _name: str) -> Array | None:
        keywords, args = self._keywords(call, ("dtype",)), self._positional(call)
        if keywords is None or len(args) != 3:
            return None
        start, stop, num = self._number(args[0]), self._number(args[1]), self.integer(args[2])
        dtype = self._dtype_keyword(keywords, "float64")
        if start is None or stop is None or num is None or dtype not in _FLOATS:
            return None  # an integer dtype: NumPy floors the float values, torch.linspace may not
        return Array(f"{self.torch}.linspace({start}, {stop}, {num}, dtype={self.torch}.{dtype})", dtype, 1)

    def _filled(self, call: cst.Call, name: str) -> Array | None:
        keywords, args = self._keywords(call, ("dtype",)), self._positional(call)
        if keywords is None or len(args) != 1:
            return None
        shape = args[0]
        if type(shape) in (cst.Tuple, cst.List):
            sizes = [self.dimension(e.value) if type(e) is cst.Element else None for e in shape.elements]
            if None in sizes:
                return None
            text, ndim = f"({', '.join(sizes)}{',' if len(sizes) == 1 else ''})", len(sizes)  # type: ignore[arg-type]
        else:
            text, ndim = self.dimension(shape), 1  # type: ignore[assignment]
        dtype = self._dtype_keyword(keywords, "float64")
        if text is None or dtype is None:
            return None
        return Array(f"{self.torch}.{name}({text}, dtype={self.torch}.{dtype})", dtype, ndim)

    def _indices(self, call: cst.Call, _name: str) -> Array | None:
        args = self._positional(call)
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
        keywords, args = self._keywords(expr, ("indexing",)), self._positional(expr)
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
        return text, [Array("", i.dtype, len(items), fresh=False) for i in items]  # type: ignore[union-attr]

    def _stack(self, call: cst.Call, _name: str) -> Array | None:
        keywords, args = self._keywords(call, ("axis",)), self._positional(call)
        if keywords is None or not 1 <= len(args) <= 2 or (len(args) == 2 and "axis" in keywords):
            return None
        axis = args[1] if len(args) == 2 else keywords.get("axis")
        if axis is not None and int_value(axis) is None:
            return None  # only a literal axis: the rank is static
        dim = code_of(axis) if axis is not None else "0"
        sequence = args[0]
        grid = self.grid(sequence)
        if grid is not None:
            text, items = grid
        elif type(sequence) in (cst.Tuple, cst.List) and sequence.elements:  # type: ignore[attr-defined]
            elements = sequence.elements  # type: ignore[attr-defined]
            found = [self.array(e.value) if type(e) is cst.Element else None for e in elements]
            if None in found:
                return None
            items = found  # type: ignore[assignment]
            inner = ", ".join(i.text for i in items)
            text = f"({inner},)" if len(items) == 1 else f"({inner})"
        else:
            return None
        if len({i.dtype for i in items}) != 1 or len({i.ndim for i in items}) != 1:
            return None  # NumPy promotes mixed dtypes its own way; not rewritten
        return Array(f"{self.torch}.stack({text}, {dim})", items[0].dtype, items[0].ndim + 1)

    def _item(self, expr: cst.Subscript) -> Array | None:
        """``a[k]`` for an integer literal ``k``: a view in both (of a C-contiguous array)."""
        if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
            return None
        index = int_value(expr.slice[0].slice.value)  # type: ignore[union-attr]
        base = self.array(expr.value)
        if index is None or base is None or base.ndim < 1:
            return None
        return Array(f"{base.text}[{index}]", base.dtype, base.ndim - 1, base.fresh)

    def _astype(self, call: cst.Call, receiver: cst.BaseExpression) -> Array | None:
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        inner, dtype = self.array(receiver), self.dtype(call.args[0].value)
        if inner is None or dtype is None:
            return None
        return Array(f"{inner.text}.to({self.torch}.{dtype})", dtype, inner.ndim, inner.fresh)

    def _arithmetic(self, expr: cst.BinaryOperation) -> Array | None:
        symbol = _ARITHMETIC[type(expr.operator)]
        left, right = self.array(expr.left), self.array(expr.right)
        if left is not None and right is not None:
            if left.dtype != right.dtype:
                return None
            return Array(f"({left.text} {symbol} {right.text})", left.dtype, max(left.ndim, right.ndim))
        known, other = (left, expr.right) if left is not None else (right, expr.left)
        if known is None:
            return None
        # A Python float with an integer array: NumPy gives float64, torch float32. Not rewritten.
        scalar = self._number(other) if known.dtype in _FLOATS else self.integer(other)
        if scalar is None:
            return None
        pair = (known.text, scalar) if left is not None else (scalar, known.text)
        return Array(f"({pair[0]} {symbol} {pair[1]})", known.dtype, known.ndim)

    # --- the wrapper ------------------------------------------------------------------------
    def consumer(self, call: cst.Call, wrapper: str) -> str | None:
        """The torch text replacing ``torch.from_numpy(E)``/``torch.tensor(E, dtype=D)``/
        ``torch.as_tensor(E, dtype=D)``: ``E``'s torch form (``.to(D)``), or None."""
        allowed = ("dtype",) if wrapper != "torch.from_numpy" else ()
        keywords, args = self._keywords(call, allowed), self._positional(call)
        if keywords is None or len(args) != 1:
            return None
        found = self.array(args[0])
        if found is None or not found.fresh:
            return None  # a meshgrid view as the result would change strides: not rewritten
        if "dtype" in keywords:
            return f"{found.text}.to({code_of(keywords['dtype'])})"
        return found.text
