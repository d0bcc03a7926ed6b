"""TransPose's flip test: a transformer pose estimator's input mirrored through NumPy, in two statements.

Reduced from yangsenius/TransPose @ 5ba5bf3ae01d170fa29158122b47970a518a572e, lib/core/function.py, ``validate``
(lines 98 to 145): the heatmaps of the crop (lines 121 to 125, the last of a list of outputs where the model gives
one), then ``input_flipped = np.flip(input.cpu().numpy(), 3).copy()`` (line 130) and ``input_flipped =
torch.from_numpy(input_flipped).cuda()`` (line 131), the heatmaps of the mirrored crop, averaged with the first
(line 143). The model is TransPose-R (lib/models/transpose_r.py, ``TransPoseR.forward`` at line 402): a
convolutional stem, a Transformer encoder over the feature map's positions, and a head to one heatmap per joint.
This is the form of Simple Baselines' flip test (TransPose builds on that code; the variant
``simple_baselines_flip_test_split`` is the same two statements), here under another author's transformer model, its
list-or-tensor outputs, and the comment it keeps on why the flip goes through NumPy. Kept: the two statements as
written, the name the second rebinds, ``isinstance`` on the outputs, the average, no gradients (``validate`` runs
under ``torch.no_grad``). Reduced: one strided convolution, one self-attention (one head, a residual and a layer
norm, written out) along each row of the feature map rather than over all its positions (a flattened empty batch
does not reshape in ONNX), no feed-forward block and no positional embedding (its table has the training size), a
1x1 head; ``.cuda()`` as ``.to(input.device)``; no ``flip_back`` of the heatmaps (a NumPy slice with the symmetric
joints swapped, in another function) and no loss or accuracy. Written here in our own words.

Why it matters for export: a TorchScript export records the example's mirrored crop as a constant, so the graph
averages every input's heatmaps with the example's mirror image's, and fails at another size.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
#: The statement that takes the crop through NumPy (the rule's finding; the fix runs through the next line).
CALL = "input_flipped = np.flip(input.cpu().numpy(), 3).copy()"


class TransPoseStandIn(nn.Module):
    def __init__(self, width: int = 8, joints: int = 4) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.qkv = nn.Linear(width, 3 * width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Conv2d(width, joints, 1)

    def encoder(self, tokens):
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        attention = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        return self.norm(tokens + attention @ v)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.encoder(x.permute(0, 2, 3, 1))
        return [self.head(x.permute(0, 3, 1, 2))]


class FlipTestTransPose(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.model = TransPoseStandIn()

    @torch.no_grad()
    def forward(self, input):
        outputs = self.model(input)
        if isinstance(outputs, list):
            output = outputs[-1]
        else:
            output = outputs

        # the flip goes through NumPy, as TransPose's comment says, for want of negative steps in torch
        input_flipped = np.flip(input.cpu().numpy(), 3).copy()
        input_flipped = torch.from_numpy(input_flipped).to(input.device)
        outputs_flipped = self.model(input_flipped)
        if isinstance(outputs_flipped, list):
            output_flipped = outputs_flipped[-1]
        else:
            output_flipped = outputs_flipped
        return (output + output_flipped) * 0.5


def build() -> nn.Module:
    return FlipTestTransPose().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 6) -> tuple[torch.Tensor, ...]:
    """``batch`` RGB crops of ``height`` x ``width`` pixels (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
