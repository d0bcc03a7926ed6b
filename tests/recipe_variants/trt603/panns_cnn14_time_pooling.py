"""PANNs' Cnn14 with decision-level max pooling (audio tagging): after the convolution blocks and
a mean over the mel axis, the frame features are smoothed along time with ``F.max_pool1d`` plus
``F.avg_pool1d`` (kernel 3, stride 1, padding 1, all keywords), then classified per frame and
max-pooled over time into the clip's scores.

Reduced from qiuqiangkong/audioset_tagging_cnn at commit d2f4b8c18eab44737fcc0de1248ae21eb43f6aa4,
pytorch/models.py, ``Cnn14_DecisionLevelMax.forward`` lines 3059-3110 (``torch.mean(x, dim=3)``,
lines 3093-3095 ``x1 = F.max_pool1d(x, kernel_size=3, stride=1, padding=1)``,
``x2 = F.avg_pool1d(...)``, ``x = x1 + x2``, the transpose, ``fc1``, the sigmoid of
``fc_audioset`` and ``torch.max(segmentwise_output, dim=1)``) and ``ConvBlock`` lines 25-69 (two
3x3 convolutions with batch norm, then a 2x2 average pool). Written here in our own words: the
input is the log-mel spectrogram (the STFT front end, SpecAugment and mixup are left out), two
convolution blocks stand in for six, dropout is left out (eval mode), and the model returns the
clip-wise output only (not the interpolated frame-wise one).
"""

import torch
import torch.nn.functional as F
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=(3, 3), padding=(1, 1), bias=False)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=(3, 3), padding=(1, 1), bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)

    def forward(self, x: torch.Tensor, pool_size=(2, 2), pool_type: str = "avg") -> torch.Tensor:
        x = F.relu_(self.bn1(self.conv1(x)))
        x = F.relu_(self.bn2(self.conv2(x)))
        if pool_type == "max":
            return F.max_pool2d(x, kernel_size=pool_size)
        return F.avg_pool2d(x, kernel_size=pool_size)


class DecisionLevelMax(nn.Module):
    def __init__(self, classes_num: int = 5) -> None:
        super().__init__()
        self.bn0 = nn.BatchNorm2d(16)
        self.conv_block1 = ConvBlock(1, 4)
        self.conv_block2 = ConvBlock(4, 8)
        self.fc1 = nn.Linear(8, 8, bias=True)
        self.fc_audioset = nn.Linear(8, classes_num, bias=True)

    def forward(self, logmel: torch.Tensor) -> torch.Tensor:
        x = self.bn0(logmel.transpose(1, 3)).transpose(1, 3)  # (batch, 1, frames, mel bins)
        x = self.conv_block1(x, pool_size=(2, 2), pool_type="avg")
        x = self.conv_block2(x, pool_size=(2, 2), pool_type="avg")
        x = torch.mean(x, dim=3)
        x1 = F.max_pool1d(x, kernel_size=3, stride=1, padding=1)
        x2 = F.avg_pool1d(x, kernel_size=3, stride=1, padding=1)
        x = x1 + x2
        x = x.transpose(1, 2)
        x = F.relu_(self.fc1(x))
        segmentwise_output = torch.sigmoid(self.fc_audioset(x))
        (clipwise_output, _) = torch.max(segmentwise_output, dim=1)
        return clipwise_output


def build() -> nn.Module:
    return DecisionLevelMax()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 24, 16, generator=generator),)


DYNAMIC = {"logmel": {0: "batch", 2: "frames"}}
