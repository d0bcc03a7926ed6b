"""A ``while`` loop that steps an index along a run of true elements, kept in the graph (TRT336).

``while mask[..., i, :]: i += 1`` (MONAI's coil-sensitivity model finds the fully sampled centre
of its k-space mask this way) reads one element per trip: a traced export unrolls the loop with
the example's trip count and keeps the index it ended at as a constant. ``_trt_scan_while`` is
the loop itself outside a trace (the same tests, in the same order, with the same results and
errors), ``torch.export`` included (the dynamo exporter stops at the loop's data-dependent
test as it does on the original: a traced index would only move that stop to the slice it
bounds). While ``torch.jit.trace`` (the TorchScript exporter) records the model it computes the index the loop ends at from the whole line: the elements the loop would
test, in its order, with a stop appended, and the first one that is false (``ArgMax`` of
``== 0``). Python's negative indices count from the end, so a loop stepping down past 0 tests the
line again from its last element, as the formulation does. A test that is a function of the
slice at the index (PointRCNN's ``while cur_gt[k].sum() == 0: k -= 1``, the last gt box that is not
zero padding) is mapped over the slices with ``torch.vmap`` while tracing to give that line.
"""

import torch


def _trt_scan_while(test, tensor, axis, start, step, row=None, last=None):
    """The index ``while test(i): i += step`` (``step`` 1 or -1) ends at, from ``i = start``:
    the loop itself, or while a trace records the model, the first false element of ``tensor``'s
    line along ``axis`` in the loop's order, found in the graph. With ``row`` (the test as a
    function of ``tensor``'s slice at the index, ``cur_gt[k].sum() == 0``) the line is that function
    mapped over the slices by ``torch.vmap``; where vmap cannot run it, the loop as written. With
    ``last`` (a guard, ``k >= 0 and ...``: a whole number) the loop tests no index past it."""
    if not torch.jit.is_scripting() and torch.jit.is_tracing() and isinstance(tensor, torch.Tensor):
        line = tensor if row is None else _trt_scan_mapped(row, tensor, axis)
        if line is not None and last is None:
            return _trt_scan_traced(line, axis if row is None else 0, start, step)
        if line is not None and not (isinstance(start, int) and start < 0):  # a negative Python start: the loop
            return _trt_scan_bounded(line, axis if row is None else 0, start, step, last)
    i = start
    while test(i):
        i += step
    return i


@torch.jit.unused
def _trt_scan_mapped(row, tensor, axis):
    """``row`` of each slice of ``tensor`` along ``axis`` (one element each), as a line; None where
    vmap refuses ``row`` or a slice's test is not one element."""
    import warnings  # the helpers import only torch at the top

    slices = tensor.movedim(axis % tensor.dim(), 0)
    try:
        with warnings.catch_warnings():
            # vmap compares its inputs' batch sizes, traced numbers here: a bool of a size, not of the data (a
            # bool of the data in `row` raises under vmap, and the loop as written runs)
            warnings.filterwarnings("ignore", "Converting a tensor to a Python boolean", torch.jit.TracerWarning)
            line = torch.vmap(row)(slices)
    except Exception:  # noqa: BLE001 - `.item()`, data-dependent control flow...: the loop as written
        return None
    if not isinstance(line, torch.Tensor) or line.dim() != 1:
        return None
    return line


@torch.jit.unused
def _trt_scan_bounded(tensor, axis, start, step, last):
    """The end index of a loop whose guard stops it after testing ``last`` (``k >= 0 and ...``: 0), as a traced
    0-d integer: the elements from ``start`` to ``last`` in the loop's order, a stop appended."""
    line = tensor.movedim(axis % tensor.dim(), tensor.dim() - 1).reshape(-1)
    tested = line[last: start + 1].flip(0) if step < 0 else line[start: last + 1]  # none where the guard fails first
    stop = torch.cat((tested == 0, torch.ones(1, dtype=torch.bool, device=tested.device)))
    return start + step * stop.to(torch.int64).argmax()


@torch.jit.unused
def _trt_scan_traced(tensor, axis, start, step):
    """The loop's end index as a traced 0-d integer (never runs when scripted)."""
    line = tensor.movedim(axis % tensor.dim(), tensor.dim() - 1).reshape(-1)  # non-negative axes: ONNX Transpose
    n = line.shape[0]
    below = isinstance(start, int) and start < 0  # a Python number: known here (a traced one is taken as >= 0)
    if step > 0 and below:
        tested = torch.cat((line[n + start:], line))  # -3, -2, -1, then 0, 1, ... to the end
    elif step > 0:
        tested = line[start:]  # i, i + 1, ... to the end (where the loop would raise IndexError)
    elif below:
        tested = line[: n + start + 1].flip(0)  # -1 - k, ..., -n
    else:
        tested = torch.cat((line[: start + 1].flip(0), line.flip(0)))  # i, ..., 0, then -1, ..., -n
    stop = torch.cat((tested == 0, torch.ones(1, dtype=torch.bool, device=tested.device)))
    return start + step * stop.to(torch.int64).argmax()
