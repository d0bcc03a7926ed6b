"""Input sizes shared by the pre-NMS selection variants: below, at and above a cap of 5000.

The input sets' generators are seeded ``seed``, ``seed + 1``, ``seed + 2``; the first set is the
one exported (above the cap, so the original graph holds a TopK of 5000), the others run the
graph at the cap and below it. Scores are distinct (a permutation), so eager PyTorch and ONNX
Runtime pick the same entries (among equal scores their orders differ, as for the original).
"""

import torch

CAP = 5000
SIZES = (6000, 3000, CAP)


def size_for(generator: torch.Generator) -> int:
    return SIZES[generator.initial_seed() % len(SIZES)]


def distinct_scores(n: int, columns: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` x ``columns`` distinct scores in [0, 1) (``columns`` 0: a vector of ``n``)."""
    count = n * max(columns, 1)
    values = torch.randperm(count, generator=generator).float() / count
    return values.view(n, columns) if columns else values
