"""A model file that is only a wrapper: the model lives in the sibling module ``anchor_head``.

The observer sees the code run in ``anchor_head.py``, so that is the file the migration
rewrites. ``squeeze(1)`` is an unsafe fix in general (TRT401); here the observed size of
axis 1 was 1 on every run, which proves it, so it is applied without ``--unsafe``.

    trtcodemod migrate examples/migrate/wrapper.py --model build --inputs inputs \\
        --dynamic-axes '{"feats": {"0": "batch", "2": "height", "3": "width"}}'
"""

import torch

from anchor_head import AnchorHead


def build() -> torch.nn.Module:
    return AnchorHead(channels=8)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 6, 6, generator=generator),)
