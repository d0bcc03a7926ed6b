"""A list of numbers built by a loop nest over sizes, as one tensor while tracing (TRT364).

Prior boxes (RetinaFace, SSD, FaceBoxes) are built by appending numbers to a Python list in loops
over each feature map's rows and columns, then ``torch.Tensor(anchors)``. While tracing, the
rewritten code computes each dynamic nest's numbers over all its iterations at once (index tensors
laid along the nest's axes) and collects them here; the parts joined in order are the list's
numbers in the loop's order.
"""

import torch


def _trt_append_rows(parts, row, like):
    """Add one part to ``parts``: the numbers ``row`` that every iteration of a loop nest appends,
    each a tensor of the nest's shape (``like``'s) or one number the same for every iteration,
    stacked along a last axis and flattened (row-major: the loop's order). ``like`` None: a row
    appended once, outside any nest. A row of no numbers adds nothing."""
    if len(row) == 0:
        return parts
    values = [v if isinstance(v, torch.Tensor) else torch.tensor(v) for v in row]
    if like is not None:
        values = [v.expand_as(like) for v in values]
    parts.append(torch.stack(values, -1).reshape(-1))
    return parts


def _trt_appended(parts, dtype, width):
    """The numbers the parts hold, joined in order, as ``torch.Tensor(list)`` (``dtype`` the default
    float type), ``torch.tensor(list)`` (``dtype`` None: the numbers' own type, floats in the default
    float type) or with the ``dtype`` given; ``width`` > 0: a list of lists of that many numbers,
    one row each (an empty nest's rows too, where the empty list's tensor has one axis)."""
    if len(parts) == 0:  # no row at all: the empty list's tensor (a list of no lists has no second axis)
        return torch.zeros(0, dtype=torch.get_default_dtype() if dtype is None else dtype)
    joined = torch.cat(parts)
    if dtype is None:
        if joined.is_floating_point():
            joined = joined.to(torch.get_default_dtype())
    else:
        joined = joined.to(dtype)
    if width > 0:
        joined = joined.view(-1, width)
    return joined
