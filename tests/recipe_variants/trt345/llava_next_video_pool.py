"""LLaVA-NeXT-Video's video features: frames unflattened back out of the batch, then flattened.

Reduced from transformers 5.24.0, models/llava_next_video/modeling_llava_next_video.py:
``get_video_features`` (lines 560-600) runs the vision tower on ``batch_size * frames`` images, pools
and projects each frame's patches, and regroups them per video with
``video_features.unflatten(0, (batch_size, frames)).flatten(1, 2)`` (line 599); the language model
then reads the video's token count from that tensor. Here the tower is a patch projection, the
pooling an average over 2x2 patches, and the tokens' count and width are read from the regrouped
features to lay them out per video. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class VideoFeatures(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, width, 4, stride=4)
        self.projector = nn.Linear(width, 24)

    def forward(self, pixel_values_videos):
        batch_size, frames, channels, height, width = pixel_values_videos.shape
        images = pixel_values_videos.reshape(batch_size * frames, channels, height, width)
        features = F.avg_pool2d(self.patch(images), 2).flatten(2).transpose(1, 2)
        features = self.projector(features)
        video = features.unflatten(0, (batch_size, frames)).flatten(1, 2)
        tokens, dim = video.shape[1], video.shape[2]
        return video.reshape(-1, tokens * dim).softmax(-1).view(-1, tokens, dim)


def build() -> nn.Module:
    return VideoFeatures().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 3, 16, 16, generator=generator),)


DYNAMIC = {"pixel_values_videos": {0: "batch", 1: "frames"}}
