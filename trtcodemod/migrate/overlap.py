"""Does a subscript write read memory it overwrites? The observer's check of ``t[a] = t[b]`` (TRT740).

PyTorch leaves a copy between partly overlapping parts of one storage undefined: it raises where it can tell,
and otherwise copies in the kernel's order (AlphaPose's ``out[:, :, :, 1:] = out[:, :, :, 0:-1]`` smears the
heatmaps on the CPU). Every exporter writes the copy from the source as it was, so a graph of such a model cannot
equal its eager outputs. The check compares the storage offsets of the elements written and read, exactly for
parts up to :data:`EXACT_ELEMENTS` elements and by their address ranges beyond.
"""

from __future__ import annotations

from typing import Any

import torch

#: Parts up to this many elements are compared element by element; larger ones by the ranges they span.
EXACT_ELEMENTS = 1 << 21


def _basic(index: Any) -> bool:
    """An index of integers, slices, ``...`` and ``None`` only (a view of the tensor, no gathered copy)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, slice)) and not isinstance(p, bool) for p in parts)


def _offsets(part: torch.Tensor) -> torch.Tensor:
    """The storage offset of every element of ``part``."""
    offsets = torch.tensor([part.storage_offset()], dtype=torch.int64)
    for size, stride in zip(part.shape, part.stride()):
        offsets = (offsets[:, None] + torch.arange(size, dtype=torch.int64)[None, :] * stride).reshape(-1)
    return offsets


def _span(part: torch.Tensor) -> tuple[int, int]:
    low = part.storage_offset() + sum((s - 1) * st for s, st in zip(part.shape, part.stride()) if st < 0)
    high = part.storage_offset() + sum((s - 1) * st for s, st in zip(part.shape, part.stride()) if st > 0)
    return low, high


def reads_what_it_writes(target: Any, index: Any, value: Any) -> bool:
    """Did ``target[index] = value`` read, through ``value``, elements of ``target`` it also wrote, the two
    parts not being the very same view (a copy onto itself is defined)?"""
    if not isinstance(target, torch.Tensor) or not isinstance(value, torch.Tensor) or not _basic(index):
        return False
    if value.numel() == 0 or target.dtype != value.dtype or target.device != value.device:
        return False
    try:
        if target.untyped_storage().data_ptr() != value.untyped_storage().data_ptr():
            return False
    except (RuntimeError, NotImplementedError):  # a tensor without storage (a fake or a functional one)
        return False
    written = target[index]
    if written.numel() == 0:
        return False
    if (written.storage_offset(), written.shape, written.stride()) == (value.storage_offset(), value.shape,
                                                                        value.stride()):
        return False
    if written.numel() > EXACT_ELEMENTS or value.numel() > EXACT_ELEMENTS:
        (a, b), (c, d) = _span(written), _span(value)
        return a <= d and c <= b
    return bool(torch.isin(_offsets(written), _offsets(value)).any())
