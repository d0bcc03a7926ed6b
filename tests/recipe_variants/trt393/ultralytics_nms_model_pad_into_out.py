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
(no ``dets[:k]`` in the padding). Reduced: in Ultralytics the NMS and the padding are one loop over ``range(bs)``;
here a confidence filter capped at 4 (``per_image_detections``) makes the per-image list, and the padding loop
runs over it with ``enumerate``, the padding's ``max_det`` the list's cap (4). Written here in our own words.

TRT393 does not take this loop (see the report): the padded tensor is preallocated and written by index rather
than appended to a list and stacked, and there is no cap ``dets = dets[:k]`` in the loop.
"""


import torch
from torch import Tensor, nn


def per_image_detections(prediction: Tensor, conf_thres: float, max_det: int) -> list[Tensor]:
    """Each image's candidates over the threshold as ``(n, 6)`` rows (corners, score, best class), best first, at most
    ``max_det``: a stand-in for the per-image NMS that makes the list in the cited code (how the list is made does not
    change the padding loop's form, which TRT393 does not take)."""
    out = []
    for x in prediction:
        x = x[x[:, 4] > conf_thres]
        x = x[x[:, 4].argsort(descending=True)[:max_det]]
        corners = torch.cat([x[:, :2] - x[:, 2:4] / 2, x[:, :2] + x[:, 2:4] / 2], 1)
        out.append(torch.cat([corners, x[:, 4:5], x[:, 5:].argmax(1, keepdim=True).to(x.dtype)], 1))
    return out


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the list."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 4

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = per_image_detections(pred, 0.1, 4)
        out = torch.zeros(x.shape[0], self.max_det, 6, dtype=pred.dtype, device=pred.device)
        for i, dets in enumerate(detections):
            pad = (0, 0, 0, self.max_det - dets.shape[0])
            out[i] = torch.nn.functional.pad(dets, pad)
        return out


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i, dets in enumerate(detections):"
