"""Ultralytics' export-time NMS (``NMSModel``): each image's kept detections zero-padded to ``max_det`` rows with
``F.pad`` and written into a ``(batch, max_det, C)`` tensor of zeros made before the loop.

Source: ultralytics/ultralytics @ a88c763964379c24f19646ffa05fbac8116c2872 ultralytics/engine/exporter.py,
``NMSModel.forward`` (the last statements of the file; the snapshot is too large to fetch, so the lines were not
counted): ``out = torch.zeros(bs, self.args.max_det, boxes.shape[-1] + 2 + extra_shape, **kwargs)``, then ``for i in
range(bs):`` ... ``keep = nms_fn(...)[: self.args.max_det]``, ``dets = torch.cat([box[keep], score[keep].view(-1, 1),
cls[keep].view(-1, 1).to(out.dtype), extra[keep]], dim=-1)``, "Zero-pad to max_det size to avoid reshape error":
``pad = (0, 0, 0, self.args.max_det - dets.shape[0])``, ``out[i] = torch.nn.functional.pad(dets, pad)``; ``return
out[:bs]``. This is the graph Ultralytics exports with ``nms=True`` for ONNX/TensorRT. Kept: the zeros made before the loop,
the one loop over ``range(bs)`` that makes each image's detections and pads them, its first line reading image ``i``
of the batch's boxes, classes and scores, the confidence mask applied to the three, the class offset of the boxes NMS
takes (``box + cls * offset``), ``keep = nms(...)[: max_det]``, ``dets = torch.cat([box[keep], score[keep].view(-1,
1), cls[keep].view(-1, 1).to(out.dtype)], dim=-1)``, the pad widths bound to a name, ``out[i] = F.pad(dets, pad)`` by
the image's index and ``return out[:bs]``. Reduced: the head is one strided convolution; the boxes are decoded and
the best class taken before the loop (the real code gets them split from its model); no ``extra`` columns, no
normalisation of the boxes before the offset, no OBB or TFLite branches; the cap is 4. Written here in our own
words.

Taken: TRT360 takes the loop (its NMS flattened over the batch while tracing) and, where the body ends by padding the
image's rows into the zeros by its index (TRT393's preallocated form), fills ``out`` from the flattened rows with
TRT393's ``_trt_padded_by_image``; the loop stays for eager code.
"""


import torch
import torchvision
from torch import Tensor, nn


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then one loop over the
    batch that picks each image's detections and pads them into the zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 4

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        boxes = torch.cat([pred[..., :2] - pred[..., 2:4] / 2, pred[..., :2] + pred[..., 2:4] / 2], -1)
        scores, classes = pred[..., 5:].max(-1)
        scores = scores * pred[..., 4]
        bs = x.shape[0]
        out = torch.zeros(bs, self.max_det, 6, dtype=pred.dtype, device=pred.device)
        for i in range(bs):
            box, cls, score = boxes[i], classes[i], scores[i]
            mask = score > 0.1
            box, score, cls = box[mask], score[mask], cls[mask]
            nmsbox = box + cls.view(-1, 1).to(box.dtype) * 64
            keep = torchvision.ops.nms(nmsbox, score, 0.45)[: self.max_det]
            dets = torch.cat([box[keep], score[keep].view(-1, 1), cls[keep].view(-1, 1).to(out.dtype)], dim=-1)
            pad = (0, 0, 0, self.max_det - dets.shape[0])
            out[i] = torch.nn.functional.pad(dets, pad)
        return out[:bs]


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i in range(bs):"
