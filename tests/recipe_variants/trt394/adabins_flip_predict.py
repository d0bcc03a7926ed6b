"""AdaBins' depth prediction with a mirrored second pass: the image mirrored through NumPy by the legacy constructor.

Reduced from shariqfarooq123/AdaBins @ 0952d91e9e762be310bb4cd055cbfe2448c0ce20, infer.py,
``InferenceHelper.predict`` (lines 104 to 129): the depth of the image is predicted, then of its mirror image,
``image = torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy()).to(self.device)`` (line 110), whose
prediction is mirrored back and averaged with the first (lines 111 to 115); evaluate.py's ``predict_tta`` carries the
same line (line 52). The model is ``UnetAdaptiveBins`` (models/unet_adaptive_bins.py, ``forward`` at lines 92 to
111), which returns the bin edges and the depth map. Kept: the round trip as written, in one expression: the
legacy ``torch.Tensor`` constructor (not ``torch.from_numpy``), ``np.array`` around ``.numpy()`` (NumPy's copy),
NumPy's flip as a reversed slice after an ellipsis, ``.copy()`` and ``.to(self.device)``; the model's pair of
outputs and ``[-1]``; the clip to the depth range; the average; no gradients, as ``predict`` runs. Reduced: a
convolution and a pooled linear head stand in for the network; the two clips and the mirror back, which AdaBins
also takes through NumPy (``np.clip(pred.cpu().numpy(), ...)``, ``np.clip(pred_lr.cpu().numpy()[..., ::-1], ...)``
and ``torch.Tensor(final)``, arithmetic over several statements that the rule does not take), are written here in
torch; no resize to the image's size (the prediction has it already) and no replacement of inf and NaN. Written
here in our own words.

Why it matters for export: ``.numpy()`` leaves the trace; a TorchScript export records the example's mirror image
as a constant, so every input's depth is averaged with the example's mirror image's, and another size fails.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
#: The statement that mirrors the image through NumPy (the rule's finding).
CALL = "image = torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy()).to(self.device)"


class AdaptiveBinsStandIn(nn.Module):
    """``UnetAdaptiveBins`` in small: bin edges from the pooled features, and a depth map at the image's size."""

    def __init__(self, n_bins: int = 8, min_val: float = 0.1, max_val: float = 10.0) -> None:
        super().__init__()
        self.min_val, self.max_val = min_val, max_val
        self.features = nn.Conv2d(3, 8, 3, padding=1)
        self.bins = nn.Linear(8, n_bins)
        self.depth = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        features = torch.relu(self.features(x))
        widths = torch.softmax(self.bins(features.mean(dim=(2, 3))), dim=1) * (self.max_val - self.min_val)
        bin_edges = torch.cumsum(nn.functional.pad(widths, (1, 0), value=self.min_val), dim=1)
        pred = self.min_val + torch.sigmoid(self.depth(features)) * (self.max_val - self.min_val)
        return bin_edges, pred


class InferenceHelper(nn.Module):
    def __init__(self, min_depth: float = 1e-3, max_depth: float = 10.0) -> None:
        super().__init__()
        self.model = AdaptiveBinsStandIn()
        self.min_depth, self.max_depth = min_depth, max_depth
        self.device = torch.device("cpu")

    @torch.no_grad()
    def forward(self, image):
        bins, pred = self.model(image)
        pred = torch.clamp(pred, self.min_depth, self.max_depth)

        image = torch.Tensor(np.array(image.cpu().numpy())[..., ::-1].copy()).to(self.device)
        pred_lr = self.model(image)[-1]
        pred_lr = torch.clamp(torch.flip(pred_lr, (-1,)), self.min_depth, self.max_depth)

        final = 0.5 * (pred + pred_lr)
        return final


def build() -> nn.Module:
    return InferenceHelper().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 6) -> tuple[torch.Tensor, ...]:
    """``batch`` normalized RGB images of ``height`` x ``width`` pixels (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
