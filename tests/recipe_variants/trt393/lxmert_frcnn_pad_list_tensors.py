"""The LXMERT/VisualBERT demo's Faster R-CNN: per-image NMS results padded to ``max_detections`` rows and stacked.

Source: huggingface/transformers @ 2782171f27770c128adbfbcf7b30451469164235
examples/research_projects/lxmert/modeling_frcnn.py, ``pad_list_tensors`` (lines 46-112; the loop 80-106, the
stack 110) and its caller ``GeneralizedRCNN.inference`` near the end of the file (``preds_per_image =
torch.tensor([p.size(0) for p in boxes])`` then ``boxes = pad_list_tensors(boxes, preds_per_image,
**subset_kwargs)``). There each image's boxes come from ``do_nms`` run image by image (``keep = nms(...);
keep = keep[:maxd]``), and with ``padding="max_detections", return_tensors="pt"`` the list is padded and stacked
into ``(images, max_detections, 4)``. Kept: the loop over ``range(len(list_tensors))`` that pops the list's first
entry, ``nn.functional.pad(input=..., pad=(0, 0, 0, max_detections - preds_per_image[i]), mode="constant",
value=pad_value)`` (``pad_value`` 0 by default), ``new.append``, ``torch.stack(new, dim=0)``; the count of each
image's rows a separate tensor made by the caller. Reduced: the other ``padding``/``return_tensors``/``location``
branches and the 1-d ``too_small`` case are left out; the rows are YOLOv7's ``(n, 6)`` detections rather than the
R-CNN's boxes, and ``max_detections`` (5) is above the NMS's cap (4), as ``do_nms``'s ``maxd`` keeps it there
(a negative pad would crop). A confidence filter capped at 4 (``per_image_detections``) makes the per-image
list in place of the NMS that makes it there. Written here in our own words.

TRT393 does not take this loop (see the report): an index loop that pops the list's first entry (the caller's list
is emptied, which the rewrite would not do), and the count is not the rows' own (``preds_per_image[i]``, a tensor
the caller made; that it equals each entry's rows cannot be read from this function). ``F.pad`` by keywords with
``mode="constant"`` and ``value=pad_value`` (a plain name) is a spelling TRT393 takes.
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


def pad_list_tensors(list_tensors, preds_per_image, max_detections, pad_value=0):
    new = []
    for i in range(len(list_tensors)):
        tensor_i = list_tensors.pop(0)
        tensor_i = nn.functional.pad(
            input=tensor_i,
            pad=(0, 0, 0, max_detections - preds_per_image[i]),
            mode="constant",
            value=pad_value,
        )
        new.append(tensor_i)
    return torch.stack(new, dim=0)


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the list."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 5

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = per_image_detections(pred, 0.1, 4)
        preds_per_image = torch.tensor([p.size(0) for p in detections])
        return pad_list_tensors(detections, preds_per_image, max_detections=self.max_det, pad_value=0)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for i in range(len(list_tensors)):"
