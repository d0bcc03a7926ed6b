"""MusicFlamingo's audio timestamps: each audio sample in the prompt is a run of audio tokens and is
encoded in windows; every window's row is mapped to its sample by searching the running token
counts (``torch.searchsorted(cumsum_samples, cumsum_post, right=True)``, int64 boundaries and
float32 values), the first row of each sample is found by searching those sample indices
(``torch.searchsorted(sample_indices, torch.arange(...))``), and a window's time offset is its
index within its sample times the window's duration, plus each frame's offset.

Reduced from transformers 5.24.0 (the PyPI wheel the zoo unpacks),
transformers/models/musicflamingo/modeling_musicflamingo.py,
``MusicFlamingoForConditionalGeneration._build_audio_timestamps`` lines 329-367 (the searches at
lines 357 and 360). Written here in our own words: the check that audio tokens and features agree
is left out, the window length is read from the features' shape instead of an argument, a
linear layer adds the timestamps to the features so the model has weights, and the run edges are
the padded mask minus itself shifted by one where transformers writes ``torch.diff(..., dim=1)``
(the TorchScript exporter has no symbolic for ``aten::diff``, torch 2.13: transformers' own line
stops the export before either search).
"""

import torch
from torch import nn


class AudioTimestamps(nn.Module):
    def __init__(self, hidden: int = 6, audio_token_id: int = 7, audio_frame_step: float = 0.01) -> None:
        super().__init__()
        self.audio_token_id = audio_token_id
        self.audio_frame_step = audio_frame_step
        self.time_proj = nn.Linear(1, hidden)

    def _build_audio_timestamps(self, input_ids: torch.Tensor, post_lengths: torch.Tensor,
                                max_post_length: int) -> torch.Tensor:
        audio_token_mask = input_ids == self.audio_token_id
        padded = torch.nn.functional.pad(audio_token_mask.int(), (1, 1), value=0)
        diff = padded[:, 1:] - padded[:, :-1]
        _, starts = torch.where(diff == 1)
        _, ends = torch.where(diff == -1)
        sample_lengths = (ends - starts).to(torch.long)

        # the encoder downsamples four times
        step = self.audio_frame_step * 4
        frame_offsets = torch.arange(max_post_length, device=post_lengths.device, dtype=torch.float32) * step

        # the sample of each window row, from the running token counts
        cumsum_post = torch.cat([torch.zeros(1, device=post_lengths.device), torch.cumsum(post_lengths, dim=0)[:-1]])
        cumsum_samples = torch.cumsum(sample_lengths, dim=0)
        sample_indices = torch.searchsorted(cumsum_samples, cumsum_post, right=True)

        # the index of each window within its sample
        sample_start_rows = torch.searchsorted(
            sample_indices, torch.arange(sample_lengths.shape[0], device=post_lengths.device)
        )
        window_indices = torch.arange(post_lengths.shape[0], device=post_lengths.device) - sample_start_rows[
            sample_indices]
        return window_indices.unsqueeze(1) * max_post_length * step + frame_offsets

    def forward(self, input_ids: torch.Tensor, post_lengths: torch.Tensor,
                audio_features: torch.Tensor) -> torch.Tensor:
        timestamps = self._build_audio_timestamps(input_ids, post_lengths, audio_features.size(1))
        return audio_features + self.time_proj(timestamps.unsqueeze(-1))


def build() -> nn.Module:
    return AudioTimestamps()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two audio samples of 5 and 7 tokens, encoded in windows of 3 + 2 and 4 + 3 rows
    input_ids = torch.tensor([[1, 2, 7, 7, 7, 7, 7, 4, 5, 7, 7, 7, 7, 7, 7, 7, 9]])
    post_lengths = torch.tensor([3, 2, 4, 3])
    audio_features = torch.randn(4, 4, 6, generator=generator)
    return input_ids, post_lengths, audio_features


DYNAMIC = {"input_ids": {1: "sequence"}, "post_lengths": {0: "windows"},
           "audio_features": {0: "windows", 1: "frames"}}
