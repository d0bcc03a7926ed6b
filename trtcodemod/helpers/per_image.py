"""A per-image NMS loop computed on every image at once while tracing (TRT360).

``for i in range(b): ... keep = keep[batched_nms(bx[keep], s[keep], labels[keep], t)] ... rows.append(...)``
runs NMS image by image; a trace unrolls it with the example's batch. The rewrite flattens the batch into one
list of candidates (row ``r`` belongs to image ``r // n``) and calls these helpers where the loop used the image:
one NMS over all candidates whose groups (image, and class where the loop passed one) cannot overlap, the kept
positions ordered by image as the loop's concatenation orders them, and the image's index as a column.
"""

import torch

# Every helper is `torch.jit.unused`: they run only while tracing, and a scripted caller compiles without them.


@torch.jit.unused
def _trt_nms_by_image(boxes: torch.Tensor, scores: torch.Tensor, labels: torch.Tensor | None, image: torch.Tensor,
                      threshold: float, count: int) -> torch.Tensor:
    """Positions kept by NMS done separately for each ``image`` (and each of its ``labels``, if given): by image
    ascending, then as NMS orders them (score descending), which is the order of the loop's concatenation.

    The labels are kept apart by shifting y by ``label * height_span`` (the span of the boxes' own coordinates,
    plus one: as torchvision's own ``batched_nms`` trick does, IoU changes only by the rounding of the shifted
    coordinates), the images by :class:`_TrtNmsEachImage` (one NMS whose classes are the images); under
    ``torch.export``, by shifting x by ``image * width_span`` too. ``count`` is the number of images. The ranges
    include 0, so that they are defined on no candidate at all. The grouping is a counting sort (one-hot counts,
    ``cumsum``, ``scatter``): no TopK, whose K TensorRT limits."""
    x = boxes[:, 0::2].float()  # shifted by up to the batch's width: half precision would round them coarsely
    y = boxes[:, 1::2].float()
    image = image.to(boxes.device)  # CoreYOLO runs NMS on `boxes.cpu()`: the positions come back where the boxes are
    if labels is not None:
        group = (labels - torch.cat([labels.flatten(), labels.new_zeros(1)]).min()).float()
        y = y + (group * _trt_span(y))[:, None]
    if not torch.compiler.is_exporting():
        # A trace (the TorchScript exporter): one NonMaxSuppression with each image a class of its own, the boxes
        # where they are. Shifted by the image, a box a few float32 steps wide in any image past the first rounds to
        # another width (YOLOv7-seg's agnostic NMS, zoo 93: a box 3e-5 wide at x = 35 shifted by 1700 became 0
        # wide, and its copy under another class was no longer suppressed). torch.export (the dynamo exporter)
        # cannot run the Function's loop over the images: it gets the shifted boxes.
        keep = _TrtNmsEachImage.apply(torch.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]], 1), scores.float(),
                                      image.to(torch.int64), float(threshold))
        return _trt_group_by_image(keep, image[keep], count)
    x = x + (image.float() * _trt_span(x))[:, None]
    keep = torch.ops.torchvision.nms(torch.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]], 1), scores.float(), threshold)
    return _trt_group_by_image(keep, image[keep], count)


class _TrtNmsEachImage(torch.autograd.Function):
    """NMS run separately on each image's boxes (``image``: each box's image, ints from 0): the kept positions by
    image ascending, each image's as NMS orders them. Exported as one ONNX ``NonMaxSuppression`` whose classes are
    the images (a box's score is -inf under every other image's class, below the score threshold, the lowest
    float32), so no coordinate is moved and no rounding comes between two boxes of one image. A candidate scored
    -inf or NaN is then dropped by the graph, where ``nms`` keeps it last. TensorRT's NMS layer takes classes as
    they are; it considers at most its TopK limit of boxes (5000) over all the images, as with one class."""

    @staticmethod
    def forward(ctx, boxes: torch.Tensor, scores: torch.Tensor, image: torch.Tensor, threshold: float) -> torch.Tensor:
        import warnings  # the helpers import only torch at the top

        kept = [image.new_zeros(0)]
        with warnings.catch_warnings():
            # the tracer records `symbolic` for this node, not these values: nothing here is baked
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            for number in range(int(image.max()) + 1 if image.numel() else 0):
                at = (image == number).nonzero().flatten()
                kept.append(at[torch.ops.torchvision.nms(boxes[at], scores[at], threshold)])
        return torch.cat(kept)

    @staticmethod
    def symbolic(g, boxes, scores, image, threshold: float):
        def constant(value, dtype):
            return g.op("Constant", value_t=torch.tensor(value, dtype=dtype))

        def unsqueeze(value, axis: int):
            # an attribute before opset 13, an input from it on: the exporter's own helper writes either
            return torch.onnx.symbolic_helper._unsqueeze_helper(g, value, [axis])

        # as many classes as images: one more than the largest image number (0 where there is no box)
        largest = g.op("ReduceMax", g.op("Concat", image, constant([0], torch.int64), axis_i=0), keepdims_i=0)
        classes = g.op("Range", constant(0, torch.int64), g.op("Add", largest, constant(1, torch.int64)),
                       constant(1, torch.int64))
        own = g.op("Equal", unsqueeze(classes, 1), unsqueeze(image, 0))
        by_class = g.op("Where", own, unsqueeze(scores, 0), constant(float("-inf"), torch.float32))
        selected = g.op("NonMaxSuppression", unsqueeze(boxes, 0), unsqueeze(by_class, 0),
                        constant([9223372036854775807], torch.int64), constant([threshold], torch.float32),
                        constant([torch.finfo(torch.float32).min], torch.float32))
        return g.op("Gather", selected, constant(2, torch.int64), axis_i=1)


@torch.jit.unused
def _trt_span(values: torch.Tensor) -> torch.Tensor:
    """One more than the range of ``values`` and 0 (defined when ``values`` is empty)."""
    padded = torch.cat([values.flatten(), values.new_zeros(1)])
    return padded.max() - padded.min() + 1


@torch.jit.unused
def _trt_group_by_image(keep: torch.Tensor, image: torch.Tensor, count: int) -> torch.Tensor:
    """``keep`` reordered stably by ``image`` (ints in ``[0, count)``): a counting sort whose destination of entry
    ``j`` is the number of entries of a smaller image plus those of the same image before ``j``."""
    one_hot, before_in_image = _trt_rank_in_image(image, count)
    per_image = one_hot.sum(0)
    smaller_images = (per_image.cumsum(0) - per_image)[None, :] * one_hot
    destination = (before_in_image + smaller_images).sum(1).to(torch.int64)
    return torch.zeros_like(keep).scatter(0, destination, keep)


@torch.jit.unused
def _trt_rank_in_image(image: torch.Tensor, count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(one-hot of each entry's image over ``[0, count)``, float32; the same one-hot times the number of entries of
    the same image before it): an entry's rank among its image's entries is its row's sum of the second."""
    one_hot = (image[:, None] == torch.arange(count, device=image.device)[None, :]).to(torch.float32)
    return one_hot, (one_hot.cumsum(0) - one_hot) * one_hot


@torch.jit.unused
def _trt_cap_by_image(keep: torch.Tensor, image: torch.Tensor, cap: int, count: int) -> torch.Tensor:
    """``keep[:cap]`` done separately for each image: the entries of ``keep`` (positions in rows whose images
    ``image`` gives, ints in ``[0, count)``) whose rank among the entries of their image, in ``keep``'s order, is
    under ``cap``; a negative ``cap`` counts back from each image's number of entries, as a slice does. The order is
    kept. Exact on float32 counts up to 2**24 entries; no TopK (TensorRT limits its K), no loop over the images."""
    one_hot, before = _trt_rank_in_image(image[keep], count)
    rank = before.sum(1)
    if cap < 0:
        limit = (one_hot * (one_hot.sum(0)[None, :] + cap)).sum(1)  # the entry's image's count, less |cap|
    else:
        limit = torch.full_like(rank, cap)
    return keep[rank < limit]


@torch.jit.unused
def _trt_top_k_by_image(key: torch.Tensor, image: torch.Tensor, k: int, count: int, largest: bool = True,
                        at_least: bool = False) -> torch.Tensor:
    """Positions in the rows ``key`` scores (one value a row; ``image``: each row's image, ints in ``[0, count)``,
    grouped ascending) that ``if n > k: top = key.topk(k).indices`` then ``x = x[top]`` keeps, image by image: an
    image of more than ``k`` rows (``at_least``: of ``k`` or more) keeps its ``k`` best, best first (``largest``
    False: the smallest), every other image all its rows in their order. Grouped by image ascending.

    One TopK of K = ``k`` over a (count, rows + k) table (each image's values in its row, padded with -inf so that
    K fits on no row at all; a row's -inf is raised to the lowest finite value, above the padding): an image over
    the limit ranks by its key (NaN first where largest, as ``topk`` puts it), any other by its rows' order. Ties
    follow ONNX's TopK (the lower index first), where ``topk`` leaves them unspecified. Exact on float32 counts up to 2**24 rows; K past TensorRT's TopK limit (3840) is refused there."""
    if key.dim() != 1:
        raise ValueError(f"a per-image top-k cap needs one key value a row, got a key of shape {tuple(key.shape)}")
    one_hot, before = _trt_rank_in_image(image, count)
    within = before.sum(1)
    rows_in_image = (one_hot * one_hot.sum(0)[None, :]).sum(1)
    over = rows_in_image >= k if at_least else rows_in_image > k
    ranked = key.to(torch.float64 if key.dtype == torch.float64 else torch.float32)
    ranked = torch.where(torch.isnan(ranked), torch.full_like(ranked, float("inf")), ranked)
    ranked = torch.where(over, ranked if largest else -ranked, -within.to(ranked.dtype))
    # the padding's -inf below every row's value: a row's -inf would tie with it, and TopK's ties are not kept
    # in index order by every runtime
    ranked = ranked.clamp_min(torch.finfo(ranked.dtype).min)
    width = key.shape[0] + k
    slot = image.to(torch.int64) * width + within.to(torch.int64)
    table = torch.full((count * width,), float("-inf"), dtype=ranked.dtype, device=key.device)
    table = table.scatter(0, slot, ranked).reshape(count, width)
    positions = torch.full((count * width,), -1, dtype=torch.int64, device=key.device)
    positions = positions.scatter(0, slot, torch.arange(key.shape[0], device=key.device))
    best = table.topk(k, dim=1).indices
    picked = positions.reshape(count, width).gather(1, best).flatten()
    return picked[picked >= 0]


@torch.jit.unused
def _trt_squeeze_rows(rows: torch.Tensor) -> torch.Tensor:
    """``rows.squeeze()`` of one image's rows where it has more than one candidate, on the flattened rows: every axis
    of size 1 but the candidates' (the first) removed, by name, so that the graph's Squeeze has axes (TensorRT cannot
    tell which axes of a dynamic shape are 1). The axes after the first are the same for every batch."""
    axes = [axis for axis in range(1, rows.dim()) if rows.shape[axis] == 1]
    return rows.squeeze(axes) if axes else rows


@torch.jit.unused
def _trt_squeeze_row_axis(rows: torch.Tensor, axis: int) -> torch.Tensor:
    """``rows.squeeze(axis)`` (an axis after the candidates') on the flattened rows: the axis, of size 1, picked by a
    Gather, which needs no If on its size (the size is the same for every batch, known while tracing)."""
    return rows.select(axis, 0) if rows.shape[axis] == 1 else rows


@torch.jit.unused
def _trt_image_fill(like: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    """``torch.full_like(like, i)`` for every row at once: row ``r`` of ``like`` filled with ``image[r]``."""
    column = image.to(like.dtype).reshape([-1] + [1] * (like.dim() - 1))
    return column.expand(like.shape).contiguous()


@torch.jit.unused
def _trt_image_channels(images: torch.Tensor) -> torch.Tensor:
    """Every image's channels one after another: ``(batch, c, ...)`` made ``(batch * c, ...)``, the prototypes a
    mask function reads as one image's (TRT360/TRT361's call of YOLO's ``process_mask`` on every image's rows)."""
    return images.flatten(0, 1)


@torch.jit.unused
def _trt_image_blocks(rows: torch.Tensor, image: torch.Tensor, count: int) -> torch.Tensor:
    """Each row's ``c`` values at its image's block of ``count * c`` columns, zeros in the other images' blocks:
    multiplied by :func:`_trt_image_channels`' ``(count * c, ...)``, a row sums its own image's channels only. The
    zeros are chosen, not multiplied in, so a row's own non-finite value stays in its own block."""
    own = image.reshape(-1, 1, 1) == torch.arange(count, device=rows.device).reshape(1, -1, 1)
    return torch.where(own, rows.unsqueeze(1), torch.zeros((), dtype=rows.dtype, device=rows.device)).flatten(1)


class _TrtPerImageList(list):
    """A list of one entry an image (a dict or tuple of rows, or rows) that also carries every image's rows
    flattened, in the list's order, and each row's image: a caller that flattens the list again (TRT361) takes them
    as they are while tracing, where splitting by image would unroll a loop over the batch."""

    def __init__(self, entries: list, flat, image: torch.Tensor, count=None) -> None:
        super().__init__(entries)
        self.trt_flat = flat
        self.trt_image = image
        self.trt_count = count  # the number of images, as the trace has it (the list's length is the example's)


class _TrtEntryTuple(tuple):
    """An entry of a :class:`_TrtPerImageList` that is a tuple (``trt_list``: the list)."""


class _TrtEntryDict(dict):
    """An entry of a :class:`_TrtPerImageList` that is a dict (``trt_list``: the list)."""


@torch.jit.unused
def _trt_per_image_list(flat, image: torch.Tensor, count: int):
    """The list the loop built (entry ``j``: the rows of image ``j``, in their order) from ``flat`` (rows, or a dict
    or tuple of rows with the same images) and ``image``, each row's image in ``[0, count)``, grouped by image
    ascending. Each entry knows its list (``trt_list``), so that a generator that yields them (pytorch-ssd's
    ``process_model_output``) and a ``list(...)`` of it still lead a caller to the flattened rows."""
    if isinstance(flat, dict):
        entries = [_TrtEntryDict({key: value[image == j] for key, value in flat.items()}) for j in range(count)]
    elif isinstance(flat, tuple):
        entries = [_TrtEntryTuple(value[image == j] for value in flat) for j in range(count)]
    else:
        entries = [flat[image == j] for j in range(count)]
    made = _TrtPerImageList(entries, flat, image, count)
    for entry in entries:
        entry.trt_list = made
    return made


@torch.jit.unused
def _trt_source_list(results):
    """The :class:`_TrtPerImageList` ``results`` is, or whose entries ``results`` holds, all of them in order (a
    ``list(...)`` of a generator that yielded them); else None. By its attributes, not its class: each rewritten
    file carries its own copy of these helpers, and the list may come from another file's."""
    if not isinstance(results, list):
        return None
    if hasattr(results, "trt_flat") and hasattr(results, "trt_image"):
        return results
    made = getattr(results[0], "trt_list", None) if results else None
    if not isinstance(made, list) or not hasattr(made, "trt_flat") or not hasattr(made, "trt_image") \
            or len(made) != len(results) or any(entry is not mine for entry, mine in zip(results, made)):
        return None
    return made


@torch.jit.unused
def _trt_flat_rows(results, parts: int = 0):
    """Every image's rows flattened (a dict of rows, or rows; with ``parts``, a tuple of that many rows: entries the
    caller unpacks) where ``results`` came from a per-image loop that TRT360 ran on the flattened batch while
    tracing; else ``None`` (eager code, a list of another origin, or entries of another form)."""
    results = _trt_source_list(results)
    if results is None:
        return None
    unpacked = isinstance(results.trt_flat, tuple)
    if unpacked != bool(parts) or (unpacked and len(results.trt_flat) != parts):
        return None
    return results.trt_flat


@torch.jit.unused
def _trt_same_images(other, results) -> bool:
    """Does ``other`` hold, entry for entry, rows of the same images as ``results``, both lists TRT360's rewrite made
    while tracing from rows picked alike (one tensor of their images for both: row ``k`` of each flattened list is the
    same candidate's)? ``None`` has nothing to align: read, it fails as the loop's ``None[i]`` does."""
    if other is None:
        return True
    other, results = _trt_source_list(other), _trt_source_list(results)
    return other is not None and results is not None and other.trt_image is results.trt_image \
        and not isinstance(other.trt_flat, (tuple, dict))


@torch.jit.unused
def _trt_flat_images(results) -> torch.Tensor:
    """The image of each row of :func:`_trt_flat_rows`' rows."""
    return _trt_source_list(results).trt_image


@torch.jit.unused
def _trt_padded_by_image(results, cap: int, value: float = 0.0) -> torch.Tensor:
    """``torch.stack([torch.cat([d[:cap], zeros]) for d in results])`` (each image's first ``cap`` rows, zero rows
    after them up to ``cap``; rows of ``value`` in place of zeros where the padding fills with another number, as
    ``F.pad(..., value=-1)`` does) from the flattened rows of the list TRT360's rewrite made while tracing (TRT393).

    Each row's slot is its rank among its image's rows (``_trt_rank_in_image``: one-hot counts, no TopK); slot
    ``(image, k)`` gathers the row of that image and rank, or a row of ``value`` appended after the rows where the image
    has fewer than ``k + 1``. A gather, not a sum of rows times weights: an infinite or NaN value stays in its own slot.
    Exact on float32 counts up to 2**24 rows."""
    results = _trt_source_list(results)
    flat, image, count = results.trt_flat, results.trt_image, results.trt_count
    one_hot, before = _trt_rank_in_image(image, count)
    rank = before.sum(1)
    slots = torch.arange(cap, device=flat.device, dtype=torch.float32)
    where = one_hot[:, :, None] * (rank[:, None, None] == slots[None, None, :]).to(torch.float32)
    positions = torch.arange(flat.shape[0], device=flat.device, dtype=torch.float32)
    filled = where.sum(0)
    index = (where * positions[:, None, None]).sum(0) + (1 - filled) * flat.shape[0]
    padded = torch.cat([flat, torch.full((1,) + tuple(flat.shape[1:]), value, dtype=flat.dtype, device=flat.device)])
    return padded[index.to(torch.int64)]


@torch.jit.unused
def _trt_rows_by_image(rows: torch.Tensor, image: torch.Tensor, key: torch.Tensor | None, descending: bool,
                       cap: int | None, count: int) -> torch.Tensor:
    """``torch.cat([rows[image == j][order_j][:cap] for j in range(count)])`` at once (TRT737), ``order_j`` the sort
    of image ``j``'s ``key`` values (descending or not; ``key`` None: the rows' own order), ``cap`` None: every row.

    A row belongs to image ``j`` where its ``image`` value equals ``j`` (a float column too; any other value is in
    no image). Its position among its image's rows comes from a cumulative count of each image's one-hot (float32,
    exact up to 2**24 rows: TensorRT's CumSum takes no integers). With a key and a cap from 1 to TensorRT's TopK
    limit, each image's rows are laid out in a row of a (count, rows + cap) table, padded, and one TopK of K = cap
    picks the best (ties by position, as ONNX specifies TopK; a NaN key ranks with an infinite one); otherwise its
    rank is counted from pairwise comparisons (NaN first descending and last ascending, as ``torch.sort`` places
    it; ties by position), whose cost is the square of the rows' count."""
    if key is not None and key.dim() != 1:
        # a key of several values a row (a top-k along its columns) is no sort of the rows: refused, not misread
        raise ValueError(f"a per-image sort of rows needs one key value a row, got a key of shape {tuple(key.shape)}")
    total = rows.shape[0]
    at = torch.arange(total, device=rows.device)
    valid = (image >= 0) & (image < count)
    if image.is_floating_point():
        valid = valid & (image == torch.floor(image))
    group = torch.where(valid, image, torch.zeros_like(image)).to(torch.int64)
    one_hot = ((group[:, None] == torch.arange(count, device=rows.device)[None, :]) & valid[:, None]).to(torch.float32)
    within = ((one_hot.cumsum(0) - one_hot) * one_hot).sum(1)  # the row's place among its image's rows
    if key is not None and cap is not None and 0 < cap <= 3840:  # TensorRT's largest TopK K
        return _trt_top_rows_by_image(rows, key, descending, cap, count, valid, group, within)
    if key is None:
        rank = within
    else:
        first, second = key[:, None], key[None, :]  # does row `s` (first axis) sort before row `r`?
        nan_first, nan_second = torch.isnan(first), torch.isnan(second)
        if descending:
            ahead = (first > second) | (nan_first & ~nan_second)
        else:
            ahead = (first < second) | (~nan_first & nan_second)
        tied = (first == second) | (nan_first & nan_second)
        same = (group[:, None] == group[None, :]) & valid[:, None] & valid[None, :]
        rank = (same & (ahead | (tied & (at[:, None] < at[None, :])))).to(torch.float32).sum(0)
    kept = valid
    if cap is not None:
        limit = cap if cap >= 0 else one_hot.sum(0)[group] + cap  # a negative cap counts back, as a slice does
        kept = valid & (rank < limit)
    per_image = (one_hot * kept[:, None].to(torch.float32)).sum(0)
    smaller_images = per_image.cumsum(0) - per_image
    place = (smaller_images[group] + rank)[kept].to(torch.int64)
    picked = rows[kept]
    index = place.reshape([-1] + [1] * (picked.dim() - 1)).expand(picked.shape)
    return torch.zeros_like(picked).scatter(0, index, picked)


def _trt_top_rows_by_image(rows: torch.Tensor, key: torch.Tensor, descending: bool, cap: int, count: int,
                           valid: torch.Tensor, group: torch.Tensor, within: torch.Tensor) -> torch.Tensor:
    """:func:`_trt_rows_by_image` with a key and a cap within TensorRT's TopK limit: one TopK of K = ``cap`` over a
    (count, rows + cap) table of each image's keys in their order, padded (wide enough for K on no row at all)."""
    width = rows.shape[0] + cap
    slot = (group * width + within.to(torch.int64))[valid]
    ranked = torch.where(torch.isnan(key), torch.full_like(key, float("inf")), key)
    ranked = ranked if descending else -ranked
    table = torch.full((count * width,), float("-inf"), dtype=ranked.dtype, device=rows.device)
    table = table.scatter(0, slot, ranked[valid]).reshape(count, width)
    positions = torch.full((count * width,), -1, dtype=torch.int64, device=rows.device)
    positions = positions.scatter(0, slot, torch.arange(rows.shape[0], device=rows.device)[valid])
    # a padding slot ties with a real row's -inf but comes after it: ONNX's TopK puts the lower index first
    best = table.topk(cap, dim=1).indices
    picked = positions.reshape(count, width).gather(1, best)
    return rows[picked[picked >= 0]]
