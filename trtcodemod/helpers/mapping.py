"""A function applied to each element along a tensor's first axis, the results stacked (TRT366).

``torch.stack([f(e) for e in t])`` iterates a tensor: a trace unrolls it with the example's batch
size. The rewrite, ``_trt_stack_map(f(e) for e in _trt_rows(t))``, keeps the comprehension as a
generator expression: TorchScript reads it as the list it was, eager mode consumes it as the
comprehension did, and while tracing the generator's own code runs once on the whole of ``t``: handed
``t`` as one element (:class:`_TrtElements`) where it knows every operation, under ``torch.vmap`` otherwise.
"""

import torch


def _trt_rows(source: torch.Tensor) -> torch.Tensor:
    """``source`` itself, to iterate; while ``torch.jit.trace`` records the model, its rows (what
    iterating it gives) in an iterator that also carries ``source`` for :func:`_trt_stack_map`."""
    if torch.jit.is_scripting():
        return source
    if torch.jit.is_tracing() and isinstance(source, torch.Tensor) and source.dim() > 0:
        return _trt_traced_rows(source)
    return source


@torch.jit.unused
def _trt_traced_rows(source: torch.Tensor):
    """The rows of ``source`` as :class:`_TrtRows` (no TracerWarning: the rows are the ``unbind(0)`` that
    iterating a tensor takes, which the vmapped graph does not read)."""
    return _TrtRows(source)


class _TrtRows:
    """An iterator over ``source.unbind(0)`` that keeps ``source``."""

    def __init__(self, source: torch.Tensor) -> None:
        self.source = source
        self._rows = None

    def __iter__(self):
        return self

    def __next__(self) -> torch.Tensor:
        if self._rows is None:
            self._rows = iter(self.source.unbind(0))
        return next(self._rows)


def _trt_stack_map(items: list[torch.Tensor]) -> torch.Tensor:
    """``torch.stack(list(items))``, ``items`` the generator ``(f(e) for e in _trt_rows(t))``.

    While ``torch.jit.trace`` records the model, ``f`` is mapped over ``t``'s first axis by ``torch.vmap``
    so that the graph follows the traced batch size; where vmap cannot run ``f`` (a value read with
    ``.item()``, data-dependent control flow, random ops, a result that is not one tensor) the elements
    are computed one by one, as written.
    """
    if torch.jit.is_scripting():
        return torch.stack(items)
    if torch.jit.is_tracing():
        mapped = _trt_vmapped(items)
        if mapped is not None:
            return mapped
    return torch.stack(list(items))


def _trt_cat_map(items: list[torch.Tensor]) -> torch.Tensor:
    """``torch.cat(list(items))``, ``items`` the generator ``(f(e).unsqueeze(0) for e in _trt_rows(t))``: each
    element given a first axis of one, so the concatenation is their stack (an empty batch raises as
    ``torch.cat`` does). While ``torch.jit.trace`` records the model, the element function is mapped over
    ``t``'s first axis by ``torch.vmap`` and the two first axes merged; as written where vmap cannot run it."""
    if torch.jit.is_scripting():
        return torch.cat(items)
    if torch.jit.is_tracing():
        mapped = _trt_vmapped(items)
        if mapped is not None and mapped.dim() >= 2 and mapped.shape[1] == 1:
            return mapped.flatten(0, 1)
    return torch.cat(list(items))


@torch.jit.unused
def _trt_vmapped(items) -> torch.Tensor | None:
    """``torch.vmap`` of the generator expression's element function over the tensor its rows come from,
    or None where vmap cannot run it (the generator is then left unstarted, for the caller to consume)."""
    import types  # the helpers import only torch at the top

    if not isinstance(items, types.GeneratorType):
        return None
    code = items.gi_code
    frame = items.gi_frame
    if frame is None or code.co_argcount != 1:
        return None
    names = frame.f_locals
    rows = names.get(code.co_varnames[0])
    if not isinstance(rows, _TrtRows) or rows._rows is not None \
            or any(name not in names for name in code.co_freevars):
        return None
    # A generator function of the same code and the same closed-over values, fed one element at a time.
    closure = tuple(types.CellType(names[name]) for name in code.co_freevars)
    element = types.FunctionType(code, frame.f_globals, code.co_name, None, closure or None)
    try:
        # First the batch whole, as one element the function's operations see (no size read into the graph);
        # then vmap, whose batching rules reshape to the example's batch where an element meets a reduction.
        mapped = next(element(iter((_TrtElements(rows.source),))))
        if isinstance(mapped, _TrtElements):
            return mapped.whole
    except Exception:  # an operation the whole-batch form does not know
        pass
    try:
        mapped = torch.vmap(lambda e: next(element(iter((e,)))))(rows.source)
    except Exception:  # vmap refuses what it cannot batch; the loop as written decides then
        return None
    return mapped if isinstance(mapped, torch.Tensor) else None


class _TrtElements:
    """The elements of a batch (``whole``'s rows) handed to an element function as if one element: each
    operation the function applies to its element is applied to all rows at once, by operations that read no
    size (a reduction over the element is one over all axes but the first; an element's number meets another
    element's matrix by ``unsqueeze`` after the first axis). Anything else raises ``TypeError``, and the caller
    falls back to ``torch.vmap``: reading a value into Python (``bool``, ``int``, ``len``, iteration), in-place
    methods, indexes by tensors, operands of one kind of dtype but different widths."""

    _UNARY = frozenset({
        "abs", "neg", "negative", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
        "sigmoid", "tanh", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "floor", "ceil", "trunc",
        "round", "sign", "reciprocal", "square", "relu", "relu6", "gelu", "silu", "softplus", "leaky_relu", "elu",
        "hardtanh", "hardsigmoid", "hardswish", "mish", "logit", "nan_to_num", "clamp", "clip", "clamp_min",
        "clamp_max", "float", "double", "half", "bfloat16", "int", "long", "bool", "to", "type_as", "contiguous",
        "clone", "detach", "zeros_like", "ones_like", "full_like", "isnan", "isinf",
        "isfinite", "logical_not", "bitwise_not", "erf", "erfc", "lgamma", "digamma", "deg2rad", "rad2deg", "frac",
        "positive"})
    _BINARY = frozenset({
        "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder",
        "fmod", "pow", "float_power", "maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "eq", "ne",
        "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
        "bitwise_xor", "where", "lerp", "copysign", "xlogy"})
    #: Reductions over the element (no ``dim``) or over given axes (``dim``, shifted past the batch's axis).
    _REDUCTIONS = frozenset({"max", "min", "sum", "mean", "amax", "amin", "prod", "std", "var", "logsumexp",
                             "argmax", "argmin", "all", "any", "nansum", "nanmean", "median"})
    #: Functions of one element along one axis (argument 1 or ``dim``).
    _ALONG = frozenset({"softmax", "log_softmax", "cumsum", "cumprod", "unsqueeze", "squeeze", "flip"})
    _SHAPING = frozenset({"transpose", "swapaxes", "flatten", "view", "reshape", "numel"})

    def __init__(self, whole: torch.Tensor) -> None:
        self.whole = whole

    # --- what the element looks like ------------------------------------------------------------------------
    @property
    def shape(self):
        return self.whole.shape[1:]

    @property
    def ndim(self) -> int:
        return self.whole.dim() - 1

    @property
    def dtype(self):
        return self.whole.dtype

    @property
    def device(self):
        return self.whole.device

    def dim(self) -> int:
        return self.whole.dim() - 1

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def __bool__(self):
        raise TypeError("an element's value read into Python")

    __int__ = __float__ = __index__ = __len__ = __iter__ = __bool__

    # --- operations ---------------------------------------------------------------------------------------
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return _TrtElements._apply(getattr(func, "__name__", ""), args, kwargs or {})

    def __getattr__(self, name: str):
        known = (_TrtElements._UNARY, _TrtElements._BINARY, _TrtElements._REDUCTIONS, _TrtElements._ALONG,
                 _TrtElements._SHAPING)
        if not any(name in names for names in known):
            raise AttributeError(name)
        return lambda *args, **kwargs: _TrtElements._apply(name, (self,) + args, kwargs)

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        for item in index:
            if isinstance(item, (torch.Tensor, _TrtElements, list)) or isinstance(item, bool):
                raise TypeError("an element indexed by a tensor")
        return _TrtElements(self.whole[(slice(None),) + index])

    def __setitem__(self, index, value):
        raise TypeError("an element written in place")

    @staticmethod
    def _dim(dim, rank: int):
        """An element's axis as the batch's (negative axes count from the end in both)."""
        if isinstance(dim, (tuple, list)):
            return type(dim)(_TrtElements._dim(d, rank) for d in dim)
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError("an axis that is not a number")
        return dim + 1 if dim >= 0 else dim

    @staticmethod
    def _apply(name: str, args, kwargs):
        if name.endswith("_") and not name.endswith("__"):
            raise TypeError("an in-place operation")
        if name in _TrtElements._BINARY or name in _TrtElements._UNARY:
            return _TrtElements._elementwise(name, args, kwargs)
        element = args[0]
        if not isinstance(element, _TrtElements) or any(isinstance(a, _TrtElements) for a in args[1:]) \
                or any(isinstance(v, _TrtElements) for v in kwargs.values()):
            raise TypeError("an element in a place other than the first argument")
        whole, rank = element.whole, element.ndim
        if name in _TrtElements._REDUCTIONS:
            rest = dict(kwargs)
            dim = rest.pop("dim", args[1] if len(args) > 1 else None)
            if dim is None:  # over the whole element: over every axis but the batch's
                if rest.pop("keepdim", False) or len(args) > 2:
                    raise TypeError("a reduction over the element with further arguments")
                flat = whole.flatten(1) if whole.dim() > 1 else whole.unsqueeze(1)
                out = getattr(torch, name)(flat, 1, **rest)
                return _TrtElements(out[0] if isinstance(out, tuple) else out)  # max/min/median: the values
            if name in ("max", "min", "median") and not isinstance(dim, int):
                raise TypeError("max/min of two tensors")
            out = getattr(torch, name)(whole, _TrtElements._dim(dim, rank), *args[2:], **rest)
            if isinstance(out, tuple):  # (values, indices)
                return type(out)(tuple(_TrtElements(part) for part in out))
            return _TrtElements(out)
        if name in _TrtElements._ALONG:
            rest = dict(kwargs)
            key = "dims" if name == "flip" else "dim"
            dim = rest.pop(key, args[1] if len(args) > 1 else None)
            if dim is None:
                raise TypeError("an axis not given")
            # a negative axis counts from the end in both (unsqueeze's -1 is a new last axis of both)
            return _TrtElements(getattr(torch, name)(whole, _TrtElements._dim(dim, rank), *args[2:], **rest))
        if name in ("transpose", "swapaxes"):
            return _TrtElements(whole.transpose(_TrtElements._dim(args[1], rank), _TrtElements._dim(args[2], rank)))
        if name in ("flatten",) and not kwargs:
            start = args[1] if len(args) > 1 else 0
            end = args[2] if len(args) > 2 else -1
            if rank == 0:
                raise TypeError("a flattened number")
            return _TrtElements(whole.flatten(_TrtElements._dim(start, rank), _TrtElements._dim(end, rank)))
        if name in ("view", "reshape") and len(args) == 2 and args[1] in (-1, (-1,), [-1]) and not kwargs:
            return _TrtElements(whole.flatten(1) if rank else whole.unsqueeze(1))
        if name == "numel" and len(args) == 1:
            return element.shape.numel()
        if name == "pad":
            # A constant pad of the element's last axes is the same pad of the batch's (nemotron-ocr's
            # `pad_to_square`); the other modes take inputs of given ranks only, which the batch's axis changes.
            pad = args[1] if len(args) > 1 else kwargs.get("pad")
            mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
            if mode != "constant" or not isinstance(pad, (tuple, list)) or len(pad) % 2 or len(pad) // 2 > rank:
                raise TypeError("a pad other than a constant one of the element's own axes")
            return _TrtElements(torch.nn.functional.pad(whole, *args[1:], **kwargs))
        raise TypeError(f"`{name}` on an element")

    @staticmethod
    def _elementwise(name: str, args, kwargs):
        """An element-wise function of elements, tensors the same for every element, and numbers: each element's
        operand gains axes of one after the batch's to the largest element rank (broadcasting from the right,
        as one element's operands do)."""
        values = list(args) + list(kwargs.values())
        ranks = [v.ndim if isinstance(v, _TrtElements) else v.dim() if isinstance(v, torch.Tensor) else 0
                 for v in values if isinstance(v, (_TrtElements, torch.Tensor))]
        tensors = [v for v in values if isinstance(v, (_TrtElements, torch.Tensor))]
        dtypes = {v.dtype for v in tensors}
        if len(dtypes) > 1 and len({bool(r) for r in ranks}) > 1:
            # a number tensor meets a dimensioned one: type promotion looks at which has dimensions, which the
            # whole batch no longer says
            kinds = [(t.dtype.is_complex, t.dtype.is_floating_point, t.dtype == torch.bool) for t in tensors]
            if len(set(kinds)) < len(dtypes):
                raise TypeError("operands of one kind of dtype and different widths")
        top = max(ranks, default=0)

        def lifted(value):
            if not isinstance(value, _TrtElements):
                if isinstance(value, (list, tuple)) and any(isinstance(v, _TrtElements) for v in value):
                    raise TypeError("elements in a list")
                return value
            whole = value.whole
            for _ in range(top - value.ndim):
                whole = whole.unsqueeze(1)
            return whole

        function = getattr(torch, name, None)
        if function is None:
            function = getattr(torch.nn.functional, name, None)
        if name in ("float", "double", "half", "bfloat16", "int", "long", "bool", "to", "type_as", "contiguous",
                    "clone", "detach", "clamp_min", "clamp_max") or function is None:
            receiver = lifted(args[0])
            out = getattr(receiver, name)(*[lifted(a) for a in args[1:]], **{k: lifted(v) for k, v in kwargs.items()})
        else:
            out = function(*[lifted(a) for a in args], **{k: lifted(v) for k, v in kwargs.items()})
        if not isinstance(out, torch.Tensor):
            raise TypeError("an element-wise function that gave no tensor")
        if not any(isinstance(v, _TrtElements) for v in values):
            return out
        return _TrtElements(out)

    def _operator(name: str, reflected: bool = False):  # run while the class body runs, then deleted
        def operator(self, other=None):
            operands = (self,) if name in ("neg", "abs", "invert") else (other, self) if reflected else (self, other)
            if name in ("and", "or", "invert"):  # logical on booleans, bitwise on integers, as the operators are
                kind = ("logical_" if self.dtype == torch.bool else "bitwise_") + ("not" if name == "invert" else name)
                return _TrtElements._apply(kind, operands, {})
            return _TrtElements._apply(name, operands, {})
        return operator

    __add__, __radd__, __sub__, __rsub__ = _operator("add"), _operator("add", True), _operator("sub"), \
        _operator("sub", True)
    __mul__, __rmul__, __truediv__, __rtruediv__ = _operator("mul"), _operator("mul", True), \
        _operator("true_divide"), _operator("true_divide", True)
    __floordiv__, __mod__, __pow__, __rpow__ = _operator("floor_divide"), _operator("remainder"), \
        _operator("pow"), _operator("pow", True)
    __neg__, __abs__, __invert__ = _operator("neg"), _operator("abs"), _operator("invert")
    __lt__, __le__, __gt__, __ge__ = _operator("lt"), _operator("le"), _operator("gt"), _operator("ge")
    __eq__, __ne__, __and__, __or__ = _operator("eq"), _operator("ne"), _operator("and"), _operator("or")
    del _operator
    __hash__ = None


# A batch handed to another function as its rows (`extract_backbone_features(backbone, list(x))`, `torch.unbind(x, 0)`,
# TRT366)
# and stacked back there (`torch.stack(images, dim=0)`): a trace splits the batch into the example's number of rows and
# concatenates them again. While tracing, the rows remember their batch, and the stack takes it whole.


def _trt_unbound(rows, source):
    # type: (List[Tensor], Tensor) -> List[Tensor]
    """``rows``, the rows of ``source`` as ``torch.unbind(source)`` gave them;
    while ``torch.jit.trace`` records the model, the same rows in a list (or tuple) that also carries ``source``, for
    :func:`_trt_restack`. Everywhere else ``rows`` itself."""
    if torch.jit.is_scripting():
        return rows
    if torch.jit.is_tracing() and isinstance(source, torch.Tensor) and source.dim() > 0:
        return _trt_traced_unbound(rows, source)
    return rows


def _trt_listed(source):
    # type: (Tensor) -> List[Tensor]
    """``list(source)``; while ``torch.jit.trace`` records the model, ``source``'s rows from ``unbind(0)`` (the same
    rows, with no "Iterating over a tensor" warning) in a list that also carries ``source``, as :func:`_trt_unbound`
    gives them."""
    if torch.jit.is_scripting():
        return list(source)
    if torch.jit.is_tracing() and isinstance(source, torch.Tensor) and source.dim() > 0:
        return _trt_traced_unbound(list(source.unbind(0)), source)
    return list(source)


@torch.jit.unused
def _trt_traced_unbound(rows, source: torch.Tensor):
    """``rows`` in a :class:`_TrtUnboundList` (or tuple) carrying ``source`` and the rows as they were made."""
    kind = _TrtUnboundTuple if isinstance(rows, tuple) else _TrtUnboundList
    out = kind(rows)
    out._trt_batch = source
    out._trt_pieces = tuple(rows)
    return out


class _TrtUnboundList(list):
    """A list of a batch's rows that remembers the batch (``_trt_batch``) and its rows (``_trt_pieces``)."""


class _TrtUnboundTuple(tuple):
    """A tuple of a batch's rows that remembers the batch (``_trt_batch``) and its rows (``_trt_pieces``)."""


def _trt_restack(items):
    # type: (List[Tensor]) -> Tensor
    """``torch.stack(items)``; while ``torch.jit.trace`` records the model and ``items`` are, unchanged, every row of
    one batch (:func:`_trt_unbound`), a copy of that batch: the same values, dtype, shape and device, with no split
    into the example's number of rows."""
    if torch.jit.is_scripting():
        return torch.stack(items)
    if torch.jit.is_tracing():
        batch = _trt_stacked_batch(items)
        if batch is not None:
            return batch
    return torch.stack(items)


@torch.jit.unused
def _trt_stacked_batch(items):
    """The batch ``items`` are the rows of, cloned, or None where they are not (another sequence, rows replaced,
    added or removed since they were made). Attributes, not a class, say so: each file holds its own copy of
    :class:`_TrtUnboundList`."""
    batch = getattr(items, "_trt_batch", None)
    pieces = getattr(items, "_trt_pieces", None)
    # The rows are the batch's by how they were made; no size is compared (a traced size is a tensor, and its test
    # would warn and bake).
    if not isinstance(batch, torch.Tensor) or not isinstance(pieces, tuple) or len(items) != len(pieces) \
            or not pieces or any(a is not b for a, b in zip(items, pieces)):
        return None  # no rows: torch.stack raises, and so must this
    return batch.clone()
