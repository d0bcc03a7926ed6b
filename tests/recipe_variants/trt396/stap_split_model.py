"""STAP's split_model: a PDE surrogate evaluated over a pool of initial states a fixed number of states at a time.

Reduced from yegonkim/stap @ 78a1cc2c099e6884ecae721ea18fc0483b9c7810, utils.py lines 58-65 (``split_model`` wraps
a model and an evaluation batch size; its ``forward`` binds the list of the model's outputs on the pieces of
``x.split(self.batch_size)`` to ``y`` and returns their concatenation along the first axis on the next line; the
active-learning acquirers in acquisition/ wrap each ensemble member with it, ``split_model(model,
self.eval_batch_size)(X)``, to predict the next state of every state in the unlabelled pool). Written here in our own
words: the surrogate is two 1-D convolutions with a GELU between them, acting on each state ``[1, nx]`` on its own,
and the evaluation batch size is 2 so that a pool of four states takes two pieces. The comprehension and the
concatenation are the original's, as it spells them, on two lines.

Traced with a pool of 4 states, the graph splits the pool into two pieces of 2 and runs the surrogate twice: a pool
of 5 or of 1 no longer matches the split. The whole call follows the pool.
"""

import torch
from torch import nn


class Surrogate(nn.Module):
    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.lift = nn.Conv1d(1, width, 5, padding=2)
        self.act = nn.GELU()
        self.proj = nn.Conv1d(width, 1, 5, padding=2)

    def forward(self, u):
        return u + self.proj(self.act(self.lift(u)))


class split_model(torch.nn.Module):
    def __init__(self, model, batch_size):
        super().__init__()
        self.model = model
        self.batch_size = batch_size
    def forward(self, x):
        y = [self.model(x_split) for x_split in x.split(self.batch_size)]
        return torch.cat(y, dim=0)


def build() -> nn.Module:
    torch.manual_seed(0)
    return split_model(Surrogate(), 2).eval()


def inputs(generator: torch.Generator, batch: int = 4, nx: int = 16) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 1, nx, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "nx"}}
CALL = "y = [self.model(x_split) for x_split in x.split(self.batch_size)]"
