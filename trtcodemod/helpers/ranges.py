"""A list comprehension over ``range(n)`` made a tensor, computed at once while tracing (TRT736).

``torch.tensor([i / n for i in range(n)])`` with ``n`` read from a tensor's shape: a traced export runs the
comprehension with the example's ``n`` and records the list as a constant. While tracing, the rewrite evaluates the
comprehension's element on the whole range at once (``torch.arange`` of the same bounds), so the values follow ``n``.
"""

import torch


@torch.jit.unused
def _trt_range_values(values, index, flip=False):
    """The comprehension's element already evaluated on ``index`` (``torch.arange`` of the range's bounds, every
    value at once), as a 1-D tensor: reversed when ``flip`` (``reversed(...)`` of the list). An element that does
    not depend on the index (a number) fills the range. The dtype follows the arithmetic: integers stay int64, a true
    division or a float makes the default float type, as ``torch.tensor`` types the list of Python numbers."""
    if not isinstance(values, torch.Tensor):
        values = torch.full(index.shape, values)
    return values.flip(0) if flip else values
