"""Ultralytics' export-time NMS (``NMSModel``): each image's kept detections zero-padded to ``max_det`` rows with
``F.pad`` and written into a ``(batch, max_det, C)`` tensor of zeros made before the loop.

Source: ultralytics/ultralytics @ a88c763964379c24f19646ffa05fbac8116c2872 ultralytics/engine/exporter.py,
``NMSModel.forward`` (the last statements of the file; the snapshot is too large to fetch, so the lines were not
counted): ``out = torch.zeros(bs, self.args.max_det, boxes.shape[-1] + 2 + extra_shape, **kwargs)``, then ``for i in
range(bs):`` ... ``keep = nms_fn(...)[: self.args.max_det]``, ``dets = torch.cat([box[keep], score[keep].view(-1, 1),
cls[keep].view(-1, 1).to(out.dtype), extra[keep]], dim=-1)``, "Zero-pad to max_det size to avoid reshape error":
``pad = (0, 0, 0, self.args.max_det - dets.shape[0])``, ``out[i] = torch.nn.functional.pad(dets, pad)``; ``return
out[:bs]``. This is the graph Ultralytics exports with ``nms=True`` for ONNX/TensorRT. Kept: the zeros made before
the loop, the pad widths bound to a name, ``out[i] = F.pad(dets, pad)`` by the image's index, the cap made by the NMS
(no ``dets[:k]`` in the padding), and the one loop over ``range(bs)`` that makes each image's detections and pads
them. Reduced: the NMS of the loop's body is a confidence filter capped at 4
(best first), the padding's ``max_det`` 4 too. Written here in our own words.

TRT393 does not take this loop (see the report): its padding (zeros made before the loop, ``F.pad`` of the rows
written by the image's index, the widths bound to ``pad``) is a form TRT393 takes, but only where a per-image list
made by an earlier loop (TRT360's) is padded; here the NMS and the padding are one loop over the batch, which
neither TRT360 nor TRT393 takes.
"""


import torch
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
        bs = x.shape[0]
        out = torch.zeros(bs, self.max_det, 6, dtype=pred.dtype, device=pred.device)
        for i in range(bs):
            candidates = pred[i]
            candidates = candidates[candidates[:, 4] > 0.1]
            keep = candidates[:, 4].argsort(descending=True)[: self.max_det]
            box = torch.cat([candidates[:, :2] - candidates[:, 2:4] / 2, candidates[:, :2] + candidates[:, 2:4] / 2], 1)
            cls = candidates[:, 5:].argmax(1)
            dets = torch.cat([box[keep], candidates[keep, 4:5], cls[keep].view(-1, 1).to(out.dtype)], dim=-1)
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
