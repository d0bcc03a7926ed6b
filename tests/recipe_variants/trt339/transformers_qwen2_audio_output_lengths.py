"""Qwen2-Audio: the audio encoder's output lengths from the feature mask, and the masks built on them.

Reduced from transformers 5.24.0 (the pinned wheel), transformers/models/qwen2_audio/
modeling_qwen2_audio.py, ``Qwen2AudioEncoder._get_feat_extract_output_lengths`` (lines 395-401)
and ``Qwen2AudioForConditionalGeneration.forward`` (lines 679-726). Each clip's frame count is
its feature mask's sum; after the encoder's stride-2 convolution it is ``(input_lengths - 1) //
2 + 1`` and after its average pooling ``(input_lengths - 2) // 2 + 1``, both on an int64 tensor.
The first gives the encoder's padding mask (``seq_range >= lengths_expand``), the second which
pooled audio features are kept. A clip of one frame, or an empty row of a padded batch, makes
the quotients negative: eager torch gives 0 output tokens, the TorchScript export truncates and
keeps one. Written here in our own words with a small encoder (the two convolutions, one masked
attention layer and the pooling; no language model), the kept features zeroed where the original
selects them with a boolean index (a size the data decides).
"""

import torch
import torch.nn.functional as F
from torch import nn


class AudioEncoder(nn.Module):
    def __init__(self, num_mel_bins=8, d_model=8) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(num_mel_bins, d_model, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(d_model, d_model, kernel_size=3, stride=2, padding=1)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.avg_pooler = nn.AvgPool1d(2, stride=2)
        self.d_model = d_model

    def forward(self, input_features, attention_mask):
        hidden = F.gelu(self.conv1(input_features))
        hidden = F.gelu(self.conv2(hidden)).permute(0, 2, 1)
        q, k, v = self.qkv(hidden).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / self.d_model ** 0.5
        scores = scores.masked_fill(~attention_mask[:, None, :], torch.finfo(scores.dtype).min)
        hidden = hidden + scores.softmax(-1) @ v
        return self.avg_pooler(hidden.permute(0, 2, 1)).permute(0, 2, 1)

    def _get_feat_extract_output_lengths(self, input_lengths: torch.LongTensor):
        input_lengths = (input_lengths - 1) // 2 + 1
        output_lengths = (input_lengths - 2) // 2 + 1
        return input_lengths, output_lengths


class AudioFeatures(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.audio_tower = AudioEncoder()
        self.multi_modal_projector = nn.Linear(8, 6)

    def forward(self, input_features, feature_attention_mask):
        audio_feat_lengths, audio_output_lengths = self.audio_tower._get_feat_extract_output_lengths(
            feature_attention_mask.sum(-1)
        )
        batch_size, _, max_mel_seq_len = input_features.shape
        max_seq_len = (max_mel_seq_len - 2) // 2 + 1
        seq_range = (
            torch.arange(0, max_seq_len, dtype=audio_feat_lengths.dtype, device=audio_feat_lengths.device)
            .unsqueeze(0)
            .expand(batch_size, max_seq_len)
        )
        lengths_expand = audio_feat_lengths.unsqueeze(1).expand(batch_size, max_seq_len)
        padding_mask = seq_range >= lengths_expand
        audio_features = self.multi_modal_projector(self.audio_tower(input_features, ~padding_mask))

        num_audios, max_audio_tokens, embed_dim = audio_features.shape
        audio_features_mask = torch.arange(max_audio_tokens, device=audio_features.device)[None, :]
        audio_features_mask = audio_features_mask < audio_output_lengths.to(audio_features.device)[:, None]
        return audio_features * audio_features_mask[..., None]


def build() -> nn.Module:
    return AudioFeatures().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Four clips padded to 16 frames: whole, 9 frames, 1 frame, and an empty row.
    features = torch.randn(4, 8, 16, generator=generator)
    mask = (torch.arange(16)[None, :] < torch.tensor([16, 9, 1, 0])[:, None]).long()
    return features, mask


DYNAMIC = {"input_features": {0: "batch", 2: "frames"}, "feature_attention_mask": {0: "batch", 1: "frames"}}
