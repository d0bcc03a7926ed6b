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


def _box_iou(boxes: torch.Tensor) -> torch.Tensor:
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    low = torch.max(boxes[:, None, :2], boxes[None, :, :2])
    high = torch.min(boxes[:, None, 2:], boxes[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(dim=2)
    return inter / (area[:, None] + area[None, :] - inter)


def _nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Greedy NMS by descending score (ties by index, as the C++ kernel's stable sort)."""
    order = scores.argsort(descending=True, stable=True)
    over = (_box_iou(dets[order]) > iou_threshold).tolist()
    removed = [False] * len(over)
    kept = []
    for i, row in enumerate(over):
        if removed[i]:
            continue
        kept.append(i)
        for j in range(i + 1, len(row)):
            removed[j] = removed[j] or row[j]
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
