"""The model's float64 run taking eager float32's picks where eager mode's values tie.

The comparison's float64 run (``worker.run_float64``) tells eager mode's own rounding from a graph's
error, element by element. Where eager float32 picks among values it computed as equal, float64 picks
otherwise: a sigmoid saturates at exactly 1.0 in float32 for logits past about 17 and not in float64,
so a top-k over saturated scores takes, in float32, whichever of the tied anchors its tie-break puts
first, and in float64 the anchors whose logits are largest. The two runs then describe other objects
at most rows, and every value read through those picks (the boxes, classes and mask coefficients
gathered by them) differs by a whole value: eager mode misses float64 at a quarter of the output
or more and is judged no reference (``inconclusive``), or is left a few elements short of admitting
the graph's rounding (lucid_yolo's segmentation decode, thirty-fourth zoo: every score 1.0 at the
128-pixel set; eager float32 misses float64 at 88 of 120 detection values, and at 2 of 120 once the
float64 run takes eager mode's picks).

Neither run is wrong there: the model's output is defined only up to the order of the tied values.
This module replays the tie-break, not a tolerance:

1. the model runs once more in float32 (:func:`record_picks`), each pick kept in call order: a
   ``topk``, ``sort``, ``argsort``, ``max``/``min`` along a dimension, ``argmax``/``argmin`` of a
   floating tensor, with the values it picked from;
2. the float64 run (:class:`TiedPicks`) pairs its k-th pick with float32's k-th, when both are the
   same function over the same shape (the first that is not ends the pairing: the runs took other
   paths); where their indices differ, row by row along the picked dimension, the row takes float32's
   indices when float32's own values at both runs' picks tie at every place that differs (within
   the comparison's tolerance, as ``picks.tied_flips`` tests a graph's picks), and its values are
   the float64 input at those indices;
3. a pick whose float32 values do not tie keeps float64's indices: there rounding did not decide.

The caller judges with this run only a comparison that the plain float64 run failed
(``run._along_ties``): it cannot fail a set the plain run passed or set aside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

#: The torch functions (and ``Tensor`` methods) that pick indices by comparing floating values.
PICKS = frozenset({"topk", "sort", "argsort", "max", "min", "argmax", "argmin"})
#: A pick whose input is larger than this is paired but not replayed, nor any once the run's picks have kept
#: :data:`_MAX_KEPT` values (memory is bounded: a Python loop of picks, a segmentation map's arg-max).
_MAX_ELEMENTS = 1 << 22
_MAX_KEPT = 1 << 25


@dataclass
class Pick:
    """One pick of the float32 run: its function, input shape, picked dimension, and values and indices."""

    name: str
    shape: tuple[int, ...]
    dim: int | None
    keepdim: bool
    values: np.ndarray | None
    indices: np.ndarray


def _call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], torch: Any) -> tuple[int | None, bool] | None:
    """``(dim, keepdim)`` of a pick call (``dim`` None: over the flattened input), or None when the call
    picks no index (``torch.max(a, b)``, ``x.max()``)."""
    position = {"topk": 2, "sort": 1, "argsort": 1}.get(name, 1)
    default: Any = -1 if name in ("topk", "sort", "argsort") else None
    dim = kwargs.get("dim", args[position] if len(args) > position else default)
    if isinstance(dim, torch.Tensor) or (dim is not None and not isinstance(dim, int)):
        return None  # ``torch.max(a, b)``: an element-wise maximum
    if name in ("max", "min") and dim is None:
        return None  # the whole tensor's extreme: a value, no index
    keepdim = bool(kwargs.get("keepdim", args[2] if name in ("max", "min", "argmax", "argmin") and len(args) > 2
                              else False))
    return dim, keepdim


def _indices(out: Any, torch: Any) -> Any:
    """The index tensor of a pick's result (a ``(values, indices)`` pair or the indices alone)."""
    if isinstance(out, torch.Tensor):
        return out if not out.is_floating_point() else None
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], torch.Tensor):
        return out[1]
    return None


def _pick_of(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], torch: Any) -> tuple[str, Any, tuple] | None:
    """``(name, input, (dim, keepdim))`` when ``func(*args, **kwargs)`` is a pick of a floating tensor."""
    name = getattr(func, "__name__", "")
    if name not in PICKS or not args or not isinstance(args[0], torch.Tensor) or not args[0].is_floating_point():
        return None
    how = _call(name, args, kwargs, torch)
    return None if how is None else (name, args[0], how)


def record_picks(run: Callable[[], Any]) -> list[Pick]:
    """Each pick ``run()`` makes, in call order (float32: eager mode's own tie-breaks)."""
    import torch
    from torch.overrides import TorchFunctionMode

    picks: list[Pick] = []
    kept = [0]

    class Record(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            found = _pick_of(func, args, kwargs, torch)
            indices = _indices(out, torch) if found is not None else None
            if found is not None and indices is not None:
                name, source, (dim, keepdim) = found
                small = source.numel() <= _MAX_ELEMENTS and kept[0] + source.numel() <= _MAX_KEPT
                kept[0] += source.numel() if small else 0
                picks.append(Pick(name, tuple(source.shape), dim, keepdim,
                                  source.detach().cpu().numpy().copy() if small else None,
                                  indices.detach().cpu().numpy().copy()))
            return out

    with torch.no_grad(), Record():
        run()
    return picks


def _rows(values: np.ndarray, indices: np.ndarray, dim: int | None, keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as rows along ``dim`` and ``indices`` as the picks of each row, in the same row order."""
    if dim is None:
        return values.reshape(1, -1), indices.reshape(1, -1)
    dim = dim % values.ndim
    if indices.ndim < values.ndim:  # ``max(dim)`` without keepdim: one pick per row, its axis dropped
        indices = np.expand_dims(indices, dim)
    rows = np.moveaxis(values, dim, -1).reshape(-1, values.shape[dim])
    picks = np.moveaxis(indices, dim, -1).reshape(rows.shape[0], -1)
    return rows, picks


def tied_rows(values: np.ndarray, mine: np.ndarray, theirs: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """Rows (of ``values``, picks ``mine`` and ``theirs`` per row) whose picks differ at some place and
    where, at every place they differ, ``values`` at both picks are within ``atol + rtol * max(|a|, |b|)``."""
    differ = mine != theirs
    a = np.take_along_axis(values, mine, 1).astype(np.float64)
    b = np.take_along_axis(values, theirs, 1).astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: no number within any tolerance, so no tie
        tied = np.abs(a - b) <= atol + rtol * np.maximum(np.abs(a), np.abs(b))
    return differ.any(axis=1) & (tied | ~differ).all(axis=1)


class TiedPicks:
    """A ``TorchFunctionMode`` factory for the float64 run: each pick paired with float32's (``recorded``)
    takes float32's indices at its tied rows when ``replace``; :attr:`taken` counts those rows either way
    (with ``replace`` False the run is left as it is: does any row tie at all?)."""

    def __init__(self, recorded: list[Pick], atol: float, rtol: float, replace: bool = True) -> None:
        self.recorded, self.atol, self.rtol, self.replace = recorded, atol, rtol, replace
        self.taken = 0
        self._next = 0

    def restart(self) -> None:
        """Pair from the first pick again (a run that failed part-way is run once more)."""
        self.taken, self._next = 0, 0

    def mode(self) -> Any:
        import torch
        from torch.overrides import TorchFunctionMode

        owner = self

        class Replay(TorchFunctionMode):
            def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
                kwargs = kwargs or {}
                out = func(*args, **kwargs)
                found = _pick_of(func, args, kwargs, torch)
                if found is None or _indices(out, torch) is None:
                    return out
                return owner._replayed(found, out, torch)

        return Replay()

    def _replayed(self, found: tuple[str, Any, tuple], out: Any, torch: Any) -> Any:
        name, source, (dim, keepdim) = found
        if self._next >= len(self.recorded):
            return out
        pick = self.recorded[self._next]
        if (pick.name, pick.shape, pick.dim, pick.keepdim) != (name, tuple(source.shape), dim, keepdim):
            self._next = len(self.recorded)  # the runs took other paths: nothing more is paired
            return out
        self._next += 1
        indices = _indices(out, torch)
        if pick.values is None or tuple(pick.indices.shape) != tuple(indices.shape):
            return out
        mine = indices.detach().cpu().numpy()
        if np.array_equal(mine, pick.indices):
            return out
        rows, theirs = _rows(pick.values, pick.indices, dim, keepdim)
        _, ours = _rows(pick.values, mine, dim, keepdim)
        take = tied_rows(rows, ours, theirs, self.atol, self.rtol)
        self.taken += int(np.count_nonzero(take))
        if not self.replace or not take.any():
            return out
        chosen = np.where(take[:, None], theirs, ours)
        new = torch.from_numpy(_laid_out(chosen, mine.shape, source.shape, dim, keepdim)).to(indices.device)
        if isinstance(out, torch.Tensor):
            return new
        gathered = _gathered(source, new, dim, keepdim)
        return type(out)((gathered, new)) if hasattr(type(out), "n_fields") else (gathered, new)


def _laid_out(rows: np.ndarray, shape: tuple[int, ...], source: tuple[int, ...], dim: int | None,
              keepdim: bool) -> np.ndarray:
    """The per-row picks ``rows`` back in an index tensor's layout (``shape``): the inverse of :func:`_rows`."""
    if dim is None:
        return rows.reshape(shape)
    dim = dim % len(source)
    full = list(shape) if len(shape) == len(source) else list(shape[:dim]) + [1] + list(shape[dim:])
    moved = full[:dim] + full[dim + 1:] + [full[dim]]
    back = np.moveaxis(rows.reshape(moved), -1, dim)
    return back.reshape(shape)


def _gathered(source: Any, indices: Any, dim: int | None, keepdim: bool) -> Any:
    """The values of ``source`` at ``indices`` along ``dim`` (a pick's values output)."""
    if indices.dim() < source.dim():
        return source.gather(dim, indices.unsqueeze(dim)).squeeze(dim)
    return source.gather(dim, indices)


def float64_along_ties(run64: Callable[[], Any], recorded: list[Pick], atol: float, rtol: float) -> tuple[Any, int]:
    """``run64()``'s result with its picks replayed (:class:`TiedPicks`) and how many rows were taken."""
    replay = TiedPicks(recorded, atol, rtol)
    with replay.mode():
        out = run64()
    return out, replay.taken
