"""Which names hold tensors where the user's code calls torch: the observer's tensor sites.

A :class:`~torch.overrides.TorchFunctionMode` active during the observed forwards sees every
torch function and tensor method call. For a call made from a user file (the first frame
that is not torch's dispatch or ours), it records, at the call's site, the receiver and
argument tensors by the local names (or ``self.<attribute>``) that hold them, and the result
when it is a tensor, each with its dtype and the shapes seen. Across the input sets that
says which names are tensors at that line and which of their axes vary: evidence a rule
cannot get from the syntax of an unannotated helper parameter (``def _grid(output, stride)``).

Cheap by construction: the mode's hook is one frame walk per torch call; names are looked
up at most :data:`CALLS_PER_RUN` times per site and input set, and at most
:data:`MAX_SHAPES` distinct shapes are kept per name and site.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from trtcodemod.evidence.facts import FLOOR_GAP, OVERLAPPING_WRITE, RESULT
from trtcodemod.migrate.overlap import reads_what_it_writes
from trtcodemod.usercode import OURS

#: How many calls per site and input set are inspected (a site in a loop runs many times).
CALLS_PER_RUN = 4
#: Distinct shapes kept per name and site.
MAX_SHAPES = 8
#: torch's Python plumbing between a tensor method or a ``torch.nn.functional`` function and the
#: mode (``Tensor.__len__`` and ``F.grid_sample`` dispatch through
#: ``overrides.handle_torch_function``; ``F.max_pool2d`` and the other functions with a
#: ``return_indices`` flag through ``_jit_internal.boolean_dispatch``): frames that act for the caller.
_PLUMBING = tuple(os.sep + os.path.join("torch", *name.split("/"))
                  for name in ("overrides.py", "_tensor.py", "nn/functional.py", "_jit_internal.py"))
_USER, _THROUGH, _OTHER = 0, 1, 2


#: Floor divisions that make a new tensor (in-place ones leave no operands to compare with).
_FLOOR_DIVISIONS = (torch.Tensor.__floordiv__, torch.floor_divide, torch.Tensor.floor_divide)
_DIVISIONS = (torch.div, torch.Tensor.div, torch.divide, torch.Tensor.divide)


def _floor_division(func: Any, kwargs: dict) -> str:
    """``"//"`` for ``//`` and ``floor_divide``, ``"div"`` for ``div(..., rounding_mode="floor")``, else ``""``."""
    if func in _FLOOR_DIVISIONS:
        return "//"
    if func in _DIVISIONS and kwargs.get("rounding_mode") == "floor":
        return "div"
    return ""


def _floor_gap(kind: str, args: tuple, result: Any) -> bool:
    """Did a floor division give other values than the graph the TorchScript exporter writes for it: a
    truncating ``Div`` for ``//`` (a negative quotient that is not whole differs), ``Floor(Div)`` for a
    float ``div(..., rounding_mode="floor")`` (a quotient that rounds up to a whole number differs; an
    integer one is exported exactly)?"""
    if len(args) != 2 or not isinstance(args[0], torch.Tensor) or not isinstance(result, torch.Tensor) \
            or result.dtype == torch.bool or result.is_complex() or result.numel() == 0:
        return False
    if kind == "//":
        exported = torch.div(args[0], args[1], rounding_mode="trunc")
    elif result.is_floating_point():
        exported = torch.floor(torch.true_divide(*args)).to(result.dtype)
    else:
        return False
    differs = result != exported
    if result.is_floating_point():
        differs = differs & ~(torch.isnan(result) & torch.isnan(exported))
    return bool(differs.any())


_GETITEM = torch.Tensor.__getitem__
_SETITEM = torch.Tensor.__setitem__


def index_kind(index: Any) -> str:
    """``bool:1`` for a 1-D bool tensor, ``int64:1``..., ``tuple(...)``, ``list`` or ``basic`` otherwise."""
    if isinstance(index, torch.Tensor):
        return f"{str(index.dtype).replace('torch.', '')}:{index.dim()}"
    if isinstance(index, tuple):
        return "tuple(" + ",".join(index_kind(i) for i in index) + ")"
    if isinstance(index, list):
        return "list"
    return "basic"


class TensorSites(TorchFunctionMode):
    """Records tensors by name at user call sites into ``recorder`` while ``recorder.recording``."""

    def __init__(self, recorder: Any) -> None:
        super().__init__()
        self.rec = recorder
        self.run = 0
        #: (code, instruction, run) -> calls inspected there in that run.
        self._calls: dict[tuple[Any, int, int], int] = {}
        #: (path, line, column, end_line, end_column, name) -> entry (JSON-ready, shapes as lists).
        self.entries: dict[tuple, dict[str, Any]] = {}
        #: filename -> what its frames are (:meth:`_kind`), decided once per file.
        self._kinds: dict[str, int] = {}

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        rec = self.rec
        # A patched tensor method reaches the mode as its wrapper, which recorded already.
        try:
            func = rec.unwrapped.get(func, func)
        except TypeError:  # an unhashable callable: none of ours
            pass
        result = func(*args, **kwargs)
        if rec.recording and not rec._busy:
            rec._busy = True  # our own tensor reads below must not be recorded as the model's
            try:
                if func is _GETITEM and len(args) >= 2 and isinstance(args[0], torch.Tensor):
                    site, direct = rec.site(2)
                    if site:
                        rec.add("index", site, direct, index=index_kind(args[1]), rank=args[0].dim())
                elif func is _SETITEM and len(args) == 3 and reads_what_it_writes(*args):
                    site, direct = rec.site(2)
                    if site:
                        rec.add(OVERLAPPING_WRITE, site, direct)
                self._record(args, kwargs, result, _floor_division(func, kwargs))
            except Exception:  # noqa: BLE001 - observing must never change what the model does
                pass
            finally:
                rec._busy = False
        return result

    def _user_frame(self) -> Any:
        """The user frame that made the call, or None when torch's own code made it."""
        frame = sys._getframe(3)  # _user_frame <- _record <- __torch_function__ <- caller
        kinds = self._kinds
        while frame is not None:
            filename = frame.f_code.co_filename
            kind = kinds.get(filename)
            if kind is None:
                kind = kinds[filename] = self._kind(filename)
            if kind == _USER:
                return frame
            if kind == _OTHER:
                return None
            frame = frame.f_back
        return None

    def _kind(self, filename: str) -> int:
        """A file's part: the user's code, plumbing that acts for its caller (ours, torch's
        dispatch), or other code (torch's own, whose torch calls are not the user's)."""
        if self.rec.user(filename):
            return _USER
        if filename.endswith(_PLUMBING) or os.path.realpath(filename).startswith(OURS + os.sep):
            return _THROUGH
        return _OTHER

    def _record(self, args: tuple, kwargs: dict, result: Any, floor_division: str = "") -> None:
        frame = self._user_frame()
        if frame is None:
            return
        key = (frame.f_code, frame.f_lasti, self.run)
        seen = self._calls.get(key, 0)
        if seen >= CALLS_PER_RUN:
            return
        self._calls[key] = seen + 1
        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        named = _names_of(frame, tensors) if tensors else []
        if isinstance(result, torch.Tensor):
            named.append((RESULT, result))
        if not named:
            return
        site = self.rec._position(frame)
        for name, tensor in named:
            self._add(site, name, tensor)
        if floor_division and _floor_gap(floor_division, args, result):
            self._add(site, FLOOR_GAP, result)

    def _add(self, site: tuple, name: str, tensor: Any) -> None:
        path, line, col, end_line, end_col = site
        entry = self.entries.get((*site, name))
        if entry is None:
            entry = self.entries[(*site, name)] = {
                "kind": "tensor", "path": path, "line": line, "column": col, "end_line": end_line,
                "end_column": end_col, "direct": True, "count": 0, "name": name, "dtypes": [], "shapes": [],
                "runs": []}
        entry["count"] += 1
        dtype = str(tensor.dtype).replace("torch.", "")
        if dtype not in entry["dtypes"]:
            entry["dtypes"].append(dtype)
        shape = list(tensor.shape)
        if shape not in entry["shapes"] and len(entry["shapes"]) < MAX_SHAPES:
            entry["shapes"].append(shape)
        if self.run not in entry["runs"]:
            entry["runs"].append(self.run)

    def events(self) -> list[dict[str, Any]]:
        """The entries as facts events, with the axes whose size changed between the shapes seen."""
        out = []
        for entry in self.entries.values():
            event = dict(entry)
            event["varying"] = varying_axes(entry["shapes"])
            out.append(event)
        return out


def _names_of(frame: Any, tensors: list[Any]) -> list[tuple[str, Any]]:
    """The frame's local names bound to one of ``tensors`` (by identity), and ``self.<name>``
    for a module's own tensors (attributes, parameters, buffers)."""
    wanted = {id(t): t for t in tensors}
    found: list[tuple[str, Any]] = []
    local = frame.f_locals
    for name, value in local.items():
        if id(value) in wanted:
            found.append((name, value))
    owner = local.get("self")
    if owner is not None and len({id(value) for _, value in found}) < len(wanted):  # some still unnamed
        spaces = [getattr(owner, "__dict__", {})]
        spaces += [getattr(owner, key, None) or {} for key in ("_parameters", "_buffers")]
        for space in spaces:
            for name, value in list(space.items()):
                if id(value) in wanted and not name.startswith("_"):
                    found.append((f"self.{name}", value))
    return found


def varying_axes(shapes: list[list[int]]) -> list[int]:
    """Axes whose size differs between ``shapes`` (none when the rank changes)."""
    if len({len(s) for s in shapes}) != 1:
        return []
    return [axis for axis in range(len(shapes[0])) if len({s[axis] for s in shapes}) > 1]
