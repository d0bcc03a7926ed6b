"""SAM 3 video: objects grouped by the prompt that found them, the prompts by ``.unique(sorted=True)``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/sam3_video/
modeling_sam3_video.py (the occlusion suppression in ``Sam3VideoModel``, lines 1070-1100): each
tracked object carries its prompt id, ``unique_prompts = prompt_ids_global.unique(sorted=True)``
(line 1082), and only objects of the same prompt are compared, a group of one object being skipped.
Written here in our own words as the size of each prompt's group (a broadcast comparison in place
of the original's loop over the prompts, a loop over a tensor outside this recipe); ids may be
negative.
"""

import torch
from torch import nn


class PromptGroups(nn.Module):
    def forward(self, prompt_ids_global):
        unique_prompts = prompt_ids_global.unique(sorted=True)
        group_sizes = (prompt_ids_global[None] == unique_prompts[:, None]).sum(1)
        return torch.stack((unique_prompts, group_sizes), dim=1)


def build() -> nn.Module:
    return PromptGroups()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.tensor([3, 0, 3, 7, 0, 3]),)


DYNAMIC = {"prompt_ids_global": {0: "objects"}}
