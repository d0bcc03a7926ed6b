"""arabicocr-khatt's CRNN, arch v3: one pre-norm GELU transformer encoder layer after a BiLSTM.

Reduced from arabicocr-khatt 0.1.0 (the PyPI wheel), arabicocr_khatt/model.py: ``CRNN.__init__``
builds a two-layer bidirectional ``nn.LSTM(..., batch_first=True)`` (lines 71-75) and, with
``use_attention``, ``nn.TransformerEncoderLayer(d_model=768, nhead=4, dim_feedforward=1024,
dropout=0.2, activation="gelu", batch_first=True, norm_first=True)`` over several lines (80-85),
called bare on the LSTM's output (not inside ``nn.TransformerEncoder``) in ``CRNN.forward``
(lines 91-102: CNN, the feature map's height zones flattened into features, the width as the
sequence, LSTM, the layer, dropout, a linear classifier, time first for CTC). Written here in our
own words, smaller: a two-convolution CNN whose output is 3 rows high stands in for the seven
VGG blocks and the adaptive pooling to 3 rows (another rule's concern). The same construction
(``batch_first=True, norm_first=True``, often ``activation="gelu"``) is common in other authors'
code, most often wrapped in ``nn.TransformerEncoder``.

What breaks: exported in eval mode without gradients (as migrate's verifier does), torch's layer
with ``batch_first=True``, an even number of heads and relu/gelu takes its fused fast path,
``aten::_transformer_encoder_layer_fwd``, which the TorchScript exporter does not convert.
"""

import torch
from torch import nn


class CRNN(nn.Module):
    def __init__(self, num_classes: int = 12, channels: int = 16, hidden: int = 16) -> None:
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, channels, 3, 1, 1), nn.BatchNorm2d(channels), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(channels, channels, 3, 1, 1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.MaxPool2d((2, 1), (2, 1)),
        )
        self.rnn = nn.LSTM(channels * 3, hidden, bidirectional=True, num_layers=2, batch_first=True, dropout=0.2)
        self.attn = nn.TransformerEncoderLayer(
            d_model=hidden * 2, nhead=4, dim_feedforward=48,
            dropout=0.2, activation="gelu",
            batch_first=True, norm_first=True,
        )
        self.fc_drop = nn.Dropout(0.3)
        self.fc = nn.Linear(hidden * 2, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [B, 1, 12, W]
        x = self.cnn(x)  # [B, C, 3, W / 2]
        x = x.flatten(1, 2).permute(0, 2, 1)  # [B, W / 2, 3 C]
        x, _ = self.rnn(x)
        if self.attn is not None:
            x = self.attn(x)
        x = self.fc(self.fc_drop(x))
        return x.permute(1, 0, 2)  # [T, B, classes]


def build() -> nn.Module:
    return CRNN().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 1, 12, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 3: "width"}}
