"""torchinfo's ``PartialJITModel``: an MNIST network whose two fully connected layers are scripted ``nn.Linear``s.

Reduced from TylerYep/torchinfo @ 5c4164f1e2e185ce33c597dbe00535bf8ed2b930, tests/fixtures/models.py:566-567:
``PartialJITModel.__init__`` builds ``self.fc1 = torch.jit.script(nn.Linear(320, 50))`` and ``self.fc2 =
torch.jit.script(nn.Linear(50, 10))`` beside plain convolutions and a ``Dropout2d``; forward pools the two
convolutions, flattens to 320 features and runs the scripted layers with a ReLU between them, ending in a log-softmax.
Kept: the two scripted torch layers, the convolutions, pooling, dropout module and flatten as written. Reduced:
nothing of torchinfo's summary machinery (the fixture is the model only). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch"}}
#: The line of the first scripted layer forward calls (the rule's finding the failing call needs).
CALL = "self.fc1 = torch.jit.script(nn.Linear(320, 50))"


class PartialJITModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d(0.3)
        self.fc1 = torch.jit.script(nn.Linear(320, 50))
        self.fc2 = torch.jit.script(nn.Linear(50, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def build() -> nn.Module:
    return PartialJITModel().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    """A batch of 28x28 single-channel images."""
    return (torch.rand(batch, 1, 28, 28, generator=generator),)
