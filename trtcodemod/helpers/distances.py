"""``torch.cdist`` while a tracer records it (TRT379): eager mode's own choice of formula, made in the graph.

Eager ``torch.cdist(x1, x2)`` (p 2, the default compute mode) takes the matrix-product form
``sqrt(clamp(|a|^2 + |b|^2 - 2 a.b, 0))`` only where either row count is more than 25, and computes the
differences exactly otherwise. The TorchScript exporter's symbolic takes the matrix-product form wherever a row count
is a dynamic axis or both are 25 or more, so at 25 rows or fewer the graph gives two identical points a distance of
about 1e-4 where eager mode gives exactly 0; the dynamo exporter has no function for the exact path at all. While a
tracer records the call, the helper computes both forms and selects eager mode's by the traced row counts.
"""

import torch


def _trt_cdist(x1, x2):
    # type: (Tensor, Tensor) -> Tensor
    """``torch.cdist(x1, x2)``; while ``torch.jit.trace`` (the TorchScript exporter) or ``torch.export`` (the dynamo
    exporter) records it, eager mode's choice of formula made in the graph by the traced row counts
    (:func:`_trt_cdist_traced`). Eager mode, ``torch.jit.script``, ``torch.fx`` and ``torch.compile`` run torch's
    call."""
    if torch.jit.is_scripting():
        return torch.cdist(x1, x2)
    return _trt_cdist_eager(x1, x2)


@torch.jit.unused
def _trt_cdist_eager(x1, x2):
    """``torch.cdist(x1, x2)`` outside a trace or ``torch.export`` (never runs scripted); inside one, for
    floating-point tensors of one dtype and rank 2 or more, :func:`_trt_cdist_traced`."""
    if not _trt_cdist_recorded(x1, x2):
        return torch.cdist(x1, x2)
    return _trt_cdist_traced(x1, x2)


@torch.jit.unused
def _trt_cdist_recorded(x1, x2):
    """Whether ``torch.jit.trace`` or ``torch.export`` records a call of ``cdist`` on floating-point tensors of one
    dtype and rank 2 or more (never runs scripted)."""
    tracing = torch.jit.is_tracing()
    if not tracing:
        try:
            tracing = torch.compiler.is_exporting()
        except AttributeError:
            tracing = False
    return bool(tracing and isinstance(x1, torch.Tensor) and isinstance(x2, torch.Tensor)
                and x1.dim() >= 2 and x2.dim() >= 2 and x1.dtype == x2.dtype and x1.is_floating_point())


@torch.jit.unused
def _trt_cdist_traced(x1, x2):
    """Eager mode's ``torch.cdist(x1, x2)`` written with the traced row counts ``P`` and ``R`` (never runs scripted).

    Under ``torch.jit.trace`` torch's call runs first on the example, for its errors only (mismatched feature sizes
    or batch dims); its result feeds nothing, so the exporter drops its nodes (``torch.export`` would guard the
    row counts on it, so there the forms below raise for those inputs themselves). Then both of eager mode's forms
    are computed:

    - the matrix-product form, ATen's ``_euclidean_dist``: ``[-2 a, |a|^2, 1] @ [b, 1, |b|^2]^T``, clamped at 0,
      square-rooted (eager mode's where ``P > 25`` or ``R > 25``);
    - the differences form ``sqrt(sum((a_i - b_j)^2))`` on the first 25 rows of each side only, rows of zeros after
      the last where a side has fewer (``25 x 25 x M`` differences per batch: it is read only where neither side
      has more than 25 rows), spread to ``P x R`` by two Gathers of indices clamped at 24;

    and ``torch.where`` on ``P > 25 or R > 25`` (read as "some row index is 25 or more", so no size is compared in
    Python and the graph follows a dynamic axis) picks one. The unpicked form's values are never seen (a Where
    node passes no NaN from the other side)."""
    if torch.jit.is_tracing():
        torch.cdist(x1, x2)  # the example's errors; its nodes feed nothing
    rows = torch.arange(x1.shape[-2], device=x1.device)
    cols = torch.arange(x2.shape[-2], device=x2.device)
    large = (rows >= 25).any() | (cols >= 25).any()
    # Matrix-product form, as ATen's _euclidean_dist writes it.
    norm1 = x1.pow(2).sum(-1, keepdim=True)
    norm2 = x2.pow(2).sum(-1, keepdim=True)
    left = torch.cat([x1 * -2.0, norm1, torch.ones_like(norm1)], -1)
    right = torch.cat([x2, torch.ones_like(norm2), norm2], -1)
    product = left.matmul(right.transpose(-2, -1)).clamp_min(0.0).sqrt()
    # Differences form on 25 rows a side: the first 25 rows, or all rows and then rows of zeros (no slice of a
    # traced size, so torch.export guards nothing).
    near1 = _trt_cdist_first_rows(x1, rows)
    near2 = _trt_cdist_first_rows(x2, cols)
    exact = (near1.unsqueeze(-2) - near2.unsqueeze(-3)).pow(2).sum(-1).sqrt()
    spread = exact.index_select(exact.dim() - 2, rows.clamp(max=24))
    spread = spread.index_select(exact.dim() - 1, cols.clamp(max=24))
    return torch.where(large, product, spread)


@torch.jit.unused
def _trt_cdist_first_rows(x, rows):
    """The first 25 rows of ``x`` (its rows axis the one before last), with rows of zeros after the last where it has
    fewer (never runs scripted): gathered from ``x`` behind one row of zeros by the indices ``rows + 1`` followed by
    25 zeros, cut at 25, so no size of a traced axis is compared or sliced."""
    zero = x.new_zeros(x.shape[:-2] + (1, x.shape[-1]))
    index = torch.cat([rows + 1, torch.zeros(25, dtype=rows.dtype, device=rows.device)])[:25]
    return torch.cat([zero, x], -2).index_select(x.dim() - 2, index)


def _trt_cdist_p(x1, x2, p):
    # type: (Tensor, Tensor, float) -> Tensor
    """``torch.cdist(x1, x2, p)`` for a finite p above 0 other than 2; while ``torch.jit.trace`` or ``torch.export``
    records it, the differences of every pair of rows reduced as eager mode's exact kernel reduces them
    (:func:`_trt_cdist_p_traced`). Eager mode, ``torch.jit.script``, ``torch.fx`` and ``torch.compile`` run torch's
    call."""
    if torch.jit.is_scripting():
        return torch.cdist(x1, x2, p)
    return _trt_cdist_p_eager(x1, x2, p)


@torch.jit.unused
def _trt_cdist_p_eager(x1, x2, p):
    """``torch.cdist(x1, x2, p)``, or :func:`_trt_cdist_p_traced` while a tracer records it (never runs scripted)."""
    if not (_trt_cdist_recorded(x1, x2) and type(p) in (int, float) and 0 < p < float("inf") and p != 2):
        return torch.cdist(x1, x2, p)
    return _trt_cdist_p_traced(x1, x2, p)


@torch.jit.unused
def _trt_cdist_p_traced(x1, x2, p):
    """Eager mode's exact ``cdist`` for a finite p above 0 other than 2, written out (never runs scripted):
    ``|a_i - b_j|`` for every pair of rows (``B x P x R x M`` values), then summed (p 1), or summed as ``|d|^p`` and
    raised to ``1 / p``. Under ``torch.jit.trace`` torch's call runs first on the example for its errors (its nodes
    feed nothing and are dropped)."""
    if torch.jit.is_tracing():
        torch.cdist(x1, x2, p)  # the example's errors; its nodes feed nothing
    differences = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 1:
        return differences.sum(-1)
    return differences.pow(p).sum(-1).pow(1.0 / p)
