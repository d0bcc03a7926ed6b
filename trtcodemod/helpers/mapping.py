"""A function applied to each element along a tensor's first axis, the results stacked (TRT366).

``torch.stack([f(e) for e in t])`` iterates a tensor: a trace unrolls it with the example's batch
size. The rewrite, ``_trt_stack_map(f(e) for e in _trt_rows(t))``, keeps the comprehension as a
generator expression: TorchScript reads it as the list it was, eager mode consumes it as the
comprehension did, and while tracing the generator's own code runs once under ``torch.vmap`` on the
whole of ``t``.
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
        mapped = torch.vmap(lambda e: next(element(iter((e,)))))(rows.source)
    except Exception:  # vmap refuses what it cannot batch; the loop as written decides then
        return None
    return mapped if isinstance(mapped, torch.Tensor) else None


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
