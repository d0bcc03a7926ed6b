"""Plain-PyTorch stand-ins for torchvision's compiled ``nms`` and ``roi_align`` (benchmark only).

PyPI's torchvision wheel ships its operators in a C++ extension built against the CUDA torch;
with the CPU torch of this project it does not load, and ``torchvision.ops.nms`` then raises.
Importing this module before torchvision defines ``torchvision::nms`` / ``roi_align`` with
torch.library, with eager kernels written in PyTorch (``roi_align`` reuses torchvision's own
pure-PyTorch ``_roi_align``), and tells torchvision its ops are present. Export then sees one
opaque node per call, as with the real extension, and the TorchScript exporter maps it to ONNX
``NonMaxSuppression`` / ``RoiAlign`` through torchvision's own symbolics.

The benchmark copies this file into a folder named ``site-packages`` so that ``migrate``
treats it as installed code (like the extension it replaces), never as the user's.
"""

from __future__ import annotations

import torch

_LIB = torch.library.Library("torchvision", "DEF")  # noqa: TOR901 (a stand-in for the extension)
_LIB.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_LIB.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
_LIB.define("roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
            "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor")


def _box_iou(boxes: torch.Tensor, others: torch.Tensor) -> torch.Tensor:
    """IoU of each of ``boxes`` (rows) with each of ``others`` (columns)."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    other_area = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    low = torch.max(boxes[:, None, :2], others[None, :, :2])
    high = torch.min(boxes[:, None, 2:], others[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(dim=2)
    return inter / (area[:, None] + other_area[None, :] - inter)


#: Boxes compared at once: memory grows with the candidates, not with their square, as the real CPU kernel's one flag
#: a box (random weights at a large input leave a detector hundreds of thousands of candidates, whose whole IoU
#: matrix would not fit in memory).
_BLOCK = 256
_COLUMNS = 1 << 16


def _nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Greedy NMS by descending score (ties by index, as the C++ kernel's stable sort): each kept box removes the
    later boxes it overlaps by more than the threshold. Block by block of the order: the block's boxes that no
    earlier kept box removed are settled among themselves, then its kept boxes remove later ones."""
    order = scores.argsort(descending=True, stable=True)
    boxes = dets[order]
    count = len(boxes)
    removed = torch.zeros(count, dtype=torch.bool, device=dets.device)
    kept = []
    for start in range(0, count, _BLOCK):
        end = min(start + _BLOCK, count)
        alive = ~removed[start:end]
        if not bool(alive.any()):
            continue
        inner = _box_iou(boxes[start:end], boxes[start:end]) > iou_threshold
        for row in range(end - start):
            if bool(alive[row]):
                alive[row + 1:] &= ~inner[row, row + 1:]
        rows = alive.nonzero()[:, 0]
        kept.extend((rows + start).tolist())
        for column in range(end, count, _COLUMNS):
            stop = min(column + _COLUMNS, count)
            removed[column:stop] |= (_box_iou(boxes[start:end][rows], boxes[column:stop]) > iou_threshold).any(0)
    return order[torch.tensor(kept, dtype=torch.long, device=dets.device)]


def _roi_align(input: torch.Tensor, rois: torch.Tensor, spatial_scale: float, pooled_height: int,
               pooled_width: int, sampling_ratio: int, aligned: bool) -> torch.Tensor:
    import inspect

    from torchvision.ops.roi_align import _roi_align

    # torchvision wraps its pure version in a lazy torch.compile, which torch.jit.trace refuses to run.
    pure_roi_align = inspect.unwrap(_roi_align)
    return pure_roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned)


def _roi_align_fake(input: torch.Tensor, rois: torch.Tensor, spatial_scale: float, pooled_height: int,
                    pooled_width: int, sampling_ratio: int, aligned: bool) -> torch.Tensor:
    return input.new_empty((rois.shape[0], input.shape[1], pooled_height, pooled_width))


_LIB.impl("nms", _nms, "CompositeExplicitAutograd")
_LIB.impl("qnms", _nms, "CompositeExplicitAutograd")
_LIB.impl("roi_align", _roi_align, "CompositeExplicitAutograd")
torch.library.register_fake("torchvision::roi_align", _roi_align_fake, lib=_LIB)

import importlib  # noqa: E402

import torchvision.extension  # noqa: E402  (after the definitions: torchvision registers fakes for them)



def _has_ops() -> bool:
    """A plain function, not a lambda: torch.jit compiles it when a traced export scripts a caller."""
    return True


# torchvision decides at import whether its extension loaded; these ops now exist.
torchvision.extension._has_ops = _has_ops
# (the module, not the function of the same name that torchvision.ops exports)
importlib.import_module("torchvision.ops.roi_align")._has_ops = _has_ops
